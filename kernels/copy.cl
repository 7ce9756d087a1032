/*
 * Device copy, the bandwidth reference of the benchmarks: each work-item
 * moves 16 bytes. SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

__kernel void copy16(__global const uint4 *src, __global uint4 *dst, uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        dst[i] = src[i];
}

/* Fills n words with a pattern: the poison of scratch buffers (tuning poison=1). */
__kernel void fill32(__global uint *dst, uint n, uint value)
{
    const uint i = get_global_id(0);
    if (i < n)
        dst[i] = value ^ (i * 0x9e3779b9u);
}

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

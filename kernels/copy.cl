/*
 * Device copy, the bandwidth reference of the benchmarks: each work-item
 * moves 16 bytes. Counts and indexes are 64-bit: a buffer may hold 2^32
 * words or more. SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

__kernel void copy16(__global const uint4 *src, __global uint4 *dst, ulong n)
{
    const size_t i = get_global_id(0);
    if (i < n)
        dst[i] = src[i];
}

/* Word i of the poison pattern (the same for i and i + 2^32). */
inline uint fill_word(size_t i, uint value)
{
    return value ^ ((uint)i * 0x9e3779b9u);
}

/* Fills n words with a pattern: the poison of scratch buffers (tuning
 * poison=1), of any size. */
__kernel void fill32(__global uint *dst, ulong n, uint value)
{
    const size_t i = get_global_id(0);
    if (i < n)
        dst[i] = fill_word(i, value);
}

/* The FP32 arithmetic peak of the benchmarks: per work-item 16 independent
 * chains of iters x 8 fused multiply-adds (2 flops each), their sum stored
 * so that none is dropped. a and b keep the chains finite. */
__kernel void fma_peak(__global float *out, int iters, float a, float b)
{
    const size_t i = get_global_id(0);
    float x[16];
#pragma unroll
    for (int j = 0; j < 16; j++)
        x[j] = (float)(i % 1024 + j) * 1e-3f;
    for (int n = 0; n < iters; n++)
#pragma unroll
        for (int r = 0; r < 8; r++)
#pragma unroll
            for (int j = 0; j < 16; j++)
                x[j] = fma(x[j], a, b);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 16; j++)
        s += x[j];
    out[i] = s;
}

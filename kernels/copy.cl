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

/* The FP32 arithmetic peak of the benchmarks: per work-item CHAINS
 * independent chains of iters x 8 fused multiply-adds on vectors of FMA_W
 * floats (2 flops a lane), their sum stored so that none is dropped; a and
 * b keep the chains finite. CPU devices take FMA_W 16 (the SIMD lanes of a
 * core; the only vector width the sum takes), others 1 (one lane per
 * work-item). */
#ifndef FMA_W
#define FMA_W 1
#endif
#if FMA_W == 1
typedef float fma_t;
#define CHAINS 16
#define SUM(v) (v)
#else
#define FMA_VEC_(n) float##n
#define FMA_VEC(n)  FMA_VEC_(n)
typedef FMA_VEC(FMA_W) fma_t;
#define CHAINS      8
/* every lane of the float16 in the sum: none of them can be dropped */
inline float fma_sum(fma_t v)
{
    const float8 h = v.lo + v.hi;
    return dot(h.lo + h.hi, (float4)(1.0f));
}
#define SUM(v)      fma_sum(v)
#endif

__kernel void fma_peak(__global float *out, int iters, float a, float b)
{
    const size_t i = get_global_id(0);
    fma_t x[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; j++)
        x[j] = (fma_t)((float)(i % 1024 + j) * 1e-3f);
    for (int n = 0; n < iters; n++)
#pragma unroll
        for (int r = 0; r < 8; r++)
#pragma unroll
            for (int j = 0; j < CHAINS; j++)
                x[j] = fma(x[j], (fma_t)(a), (fma_t)(b));
    fma_t s = x[0];
#pragma unroll
    for (int j = 1; j < CHAINS; j++)
        s += x[j];
    out[i] = SUM(s);
}

/* Packed 2- or 3-channel pixels to 4 and back, for the operations whose
 * kernels read 1 or 4 channels (built per element type with -DT: uchar,
 * short, float, uint or ulong; strides in elements): an added third channel
 * is 0, the fourth u8's or f32's full scale (255 or 1), else 0. */
#ifdef T
#if T_IS_FLOAT
#define FULL 1.0f
#elif defined(T_IS_UCHAR)
#define FULL 255
#else
#define FULL 0
#endif

#ifndef NARROW
#define NARROW 3
#endif

/* A 2- or 3-channel pixel (NARROW) widened to 4 channels: a third channel
 * 0, a fourth FULL (rgba.c's host copies set the same); and the first
 * NARROW channels of a 4-channel pixel. */
#if NARROW == 2
#define WIDEN(p)    ((CONCAT(T, 4))(p, 0, FULL))
#define NARROWED(p) ((p).xy)
#else
#define WIDEN(p)    ((CONCAT(T, 4))(p, FULL))
#define NARROWED(p) ((p).xyz)
#endif

/* A kernel of pixels of IN channels to pixels of OUT channels, through
 * REPACK. */
#define REPACK_KERNEL(NAME, IN, OUT, REPACK)                                                       \
    __kernel void NAME(__global const T *src, int src_stride, int w, int h, __global T *dst,       \
                       int dst_stride)                                                             \
    {                                                                                              \
        const int x = get_global_id(0), y = get_global_id(1);                                      \
        if (x >= w || y >= h)                                                                      \
            return;                                                                                \
        const CONCAT(T, IN) p = CONCAT(vload, IN)(x, src + (size_t)y * (size_t)src_stride);        \
        CONCAT(vstore, OUT)(REPACK(p), x, dst + (size_t)y * (size_t)dst_stride);                   \
    }
REPACK_KERNEL(narrow_to_rgba, NARROW, 4, WIDEN)
REPACK_KERNEL(rgba_to_narrow, 4, NARROW, NARROWED)
#endif

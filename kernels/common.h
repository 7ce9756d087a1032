/*
 * Shared by every kernel program. A family that uses half arithmetic sets
 * CLIK_FP16=1 in its own options where the device reports cl_khr_fp16.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_KERNELS_COMMON_H
#define CLIK_KERNELS_COMMON_H

#ifndef CLIK_FP16
#define CLIK_FP16 0
#endif

#if CLIK_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

/* No fused multiply-adds: float results then match the scalar oracle, which
 * is compiled as ISO C (no contraction), operation for operation. */
#pragma OPENCL FP_CONTRACT OFF

/* Pastes after expanding its arguments: VEC(ACC) is uint4, not ACC4. */
#define CONCAT_(a, b)     a##b
#define CONCAT(a, b)      CONCAT_(a, b)
#define CONVERT(t, v)     CONCAT(convert_, t)(v)
#define CONVERT_SAT(t, v) CONCAT(CONCAT(convert_, t), _sat)(v)

/* A pixel of CH interleaved channels as one value: VEC(t) is its vector type,
 * VLOAD(i, p) / VSTORE(v, i, p) access pixel i of a row of elements. */
#ifdef CH
#if CH == 1
#define VLOAD(i, p)     (p)[(i)]
#define VSTORE(v, i, p) ((p)[(i)] = (v))
#define VEC(t)          t
#elif CH == 2
#define VLOAD(i, p)     vload2((i), (p))
#define VSTORE(v, i, p) vstore2((v), (i), (p))
#define VEC(t)          CONCAT(t, 2)
#elif CH == 3
/* Packed 3-element pixels: vload3 reads 3 elements at p + 3i (a 3-vector
 * in a register; in memory only a float3 of local memory takes 4). */
#define VLOAD(i, p)     vload3((i), (p))
#define VSTORE(v, i, p) vstore3((v), (i), (p))
#define VEC(t)          CONCAT(t, 3)
#elif CH == 4
#define VLOAD(i, p)     vload4((i), (p))
#define VSTORE(v, i, p) vstore4((v), (i), (p))
#define VEC(t)          CONCAT(t, 4)
#endif

/* Two vectors e and o of 16 elements interleaved pixel by pixel (CH 1, 2
 * or 4), as vectors of type V (uchar16, float16): the first and the second
 * 16 elements. */
#if CH == 1
#define INTERLEAVE_LO(V, e, o)                                                                     \
    (V)(e.s0, o.s0, e.s1, o.s1, e.s2, o.s2, e.s3, o.s3, e.s4, o.s4, e.s5, o.s5, e.s6, o.s6, e.s7,  \
        o.s7)
#define INTERLEAVE_HI(V, e, o)                                                                     \
    (V)(e.s8, o.s8, e.s9, o.s9, e.sa, o.sa, e.sb, o.sb, e.sc, o.sc, e.sd, o.sd, e.se, o.se, e.sf,  \
        o.sf)
#elif CH == 2
#define INTERLEAVE_LO(V, e, o) (V)(e.s01, o.s01, e.s23, o.s23, e.s45, o.s45, e.s67, o.s67)
#define INTERLEAVE_HI(V, e, o) (V)(e.s89, o.s89, e.sab, o.sab, e.scd, o.scd, e.sef, o.sef)
#elif CH == 4
#define INTERLEAVE_LO(V, e, o) (V)(e.s0123, o.s0123, e.s4567, o.s4567)
#define INTERLEAVE_HI(V, e, o) (V)(e.s89ab, o.s89ab, e.scdef, o.scdef)
#endif
#endif

/* 16-byte loads and stores at p. With ALIGNED (the host checked that every
 * image base and row stride is a multiple of 16) they are single vector
 * accesses; vload16/vstore16 may otherwise become 16 byte accesses (PoCL). */
#if defined(ALIGNED) && ALIGNED
#define CLIK_LOAD16(p)     (*(__global const uchar16 *)(p))
#define CLIK_STORE16(v, q) (*(__global uchar16 *)(q) = (v))
#else
#define CLIK_LOAD16(p)     vload16(0, (p))
#define CLIK_STORE16(v, q) vstore16((v), 0, (q))
#endif

/* ---- borders and colour, shared by the families ------------------------------ */

/* reflect-101 (gfedcb|abcdefgh|gfedcba) of any index p for a side of n >= 1:
 * the reflected sequence repeats with period 2n - 2, so one remainder
 * replaces repeated folds, and it is only computed off the edges. */
inline int clik_reflect101(int p, int n)
{
    if ((uint)p < (uint)n)
        return p;
    const uint period = (uint)max(2 * n - 2, 1);
    /* abs() the built-in (uint): a select of -p becomes llvm.abs, which
     * Oclgrind cannot run. */
    const int q = (int)(abs(p) % period);
    return q >= n ? (int)period - q : q;
}

/* reflect-101 without branches for an index at most 2 past an edge (seed
 * 001, section V-B: indices by selects, then one uniform load): two folds. */
inline int clik_reflect101_near(int p, int n)
{
    p = (int)abs(p);
    p = p >= n ? 2 * n - 2 - p : p;
    p = (int)abs(p);
    return n == 1 ? 0 : p;
}

/* BT.601 luma of 8-bit RGB in OpenCV's COLOR_RGBA2GRAY fixed point (9798,
 * 19235 and 3735 are 0.299, 0.587 and 0.114 times 2^15, rounded). */
#define CLIK_LUMA_U8(r, g, b) ((9798u * (r) + 19235u * (g) + 3735u * (b) + 16384u) >> 15)

/* The same in float, each product rounded on its own, as the oracle. */
inline float clik_luma_f32(float r, float g, float b)
{
    float y = 0.299f * r;
    y += 0.587f * g;
    y += 0.114f * b;
    return y;
}

/* Applies M to the 16 components of a 16-vector with their lane index. */
/* clang-format off */
#define CLIK_EACH16(M, v)                                                                   \
    M(0, (v).s0) M(1, (v).s1) M(2, (v).s2) M(3, (v).s3) M(4, (v).s4) M(5, (v).s5)          \
    M(6, (v).s6) M(7, (v).s7) M(8, (v).s8) M(9, (v).s9) M(10, (v).sa) M(11, (v).sb)        \
    M(12, (v).sc) M(13, (v).sd) M(14, (v).se) M(15, (v).sf)
/* clang-format on */

#endif

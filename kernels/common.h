/*
 * Shared by every kernel program. Build options set by the host for every
 * program: CLIK_FP16 (cl_khr_fp16 usable), CLIK_LOCAL_MEM (local-memory
 * variants wanted), CLIK_CPU_DEVICE (the device is a CPU).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_KERNELS_COMMON_H
#define CLIK_KERNELS_COMMON_H

#ifndef CLIK_FP16
#define CLIK_FP16 0
#endif
#ifndef CLIK_LOCAL_MEM
#define CLIK_LOCAL_MEM 1
#endif
#ifndef CLIK_CPU_DEVICE
#define CLIK_CPU_DEVICE 0
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
#elif CH == 4
#define VLOAD(i, p)     vload4((i), (p))
#define VSTORE(v, i, p) vstore4((v), (i), (p))
#define VEC(t)          CONCAT(t, 4)
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

/* Applies M to the 16 components of a 16-vector with their lane index. */
/* clang-format off */
#define CLIK_EACH16(M, v)                                                                   \
    M(0, (v).s0) M(1, (v).s1) M(2, (v).s2) M(3, (v).s3) M(4, (v).s4) M(5, (v).s5)          \
    M(6, (v).s6) M(7, (v).s7) M(8, (v).s8) M(9, (v).s9) M(10, (v).sa) M(11, (v).sb)        \
    M(12, (v).sc) M(13, (v).sd) M(14, (v).se) M(15, (v).sf)
/* clang-format on */

#endif

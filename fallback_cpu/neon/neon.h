/* NEON intrinsics: native on AArch64, through SIMDe elsewhere. SPDX-License-Identifier:
 * BSD-2-Clause */
#ifndef CLIK_NEON_H
#define CLIK_NEON_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clik.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* div4 and sqrt4 */
#endif
#endif

#if defined(__GNUC__)
#define CLIK_INLINE static inline __attribute__((always_inline))
#else
#define CLIK_INLINE static inline
#endif

/* x86 builds for the baseline (no FMA): a function whose inner loop calls
 * fma4 gets an FMA clone too, picked when the library loads on a CPU with
 * FMA (there GCC makes each fmaf one VFMADD instead of a call; the same
 * single rounding either way). */
#if !defined(__aarch64__) && !defined(__FMA__) && defined(__x86_64__) && defined(__GNUC__) &&      \
    !defined(__clang__) && defined(__linux__)
#define CLIK_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define CLIK_FMA_CLONES
#endif

/* x86 builds for the baseline (GCC, Linux): CLIK_AVX2 marks a copy of a
 * loop compiled for AVX2, where the loops written in clik_f32x8 (below)
 * run 8 lanes wide, and <immintrin.h>'s intrinsics may be used (with
 * target("avx2,fma"), its fused multiply-adds); clik_cpu_avx2() and
 * clik_cpu_avx2_fma() say whether this CPU runs such a copy, and the
 * caller picks it or the baseline code. Each copy gives the baseline's
 * bits (the tests run the copies on this machine, the baseline under
 * qemu-x86_64 -cpu Nehalem). */
#if !defined(__aarch64__) && !defined(__AVX2__) && defined(__x86_64__) && defined(__GNUC__) &&     \
    !defined(__clang__) && defined(__linux__)
#define CLIK_AVX2 __attribute__((target("avx2")))
static inline int clik_cpu_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
}
/* AVX2 and FMA both (for a copy marked target("avx2,fma")). */
static inline int clik_cpu_avx2_fma(void)
{
    return clik_cpu_avx2() && __builtin_cpu_supports("fma") != 0;
}
#include <immintrin.h>
/* Stores the eight 32-bit lanes of v (each 0..255) as eight bytes at p,
 * in an AVX2 copy. */
#define CLIK_AVX2_STORE8_U8(p, v)                                                                  \
    do {                                                                                           \
        const __m256i w16_ = _mm256_packus_epi32((v), (v));                                        \
        const __m256i w8_ = _mm256_packus_epi16(w16_, w16_);                                       \
        _mm_storel_epi64((void *)(p), _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(          \
                                          w8_, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0))));       \
    } while (0)
#endif

/* Eight floats as one GNU C vector: two NEON (or SSE) registers, one AVX
 * register in an AVX2 copy; the same IEEE operations lane by lane as
 * float32x4_t's. Loads and stores through the unaligned type; kept out of
 * function arguments (whose ABI would differ between the copies). */
typedef float clik_f32x8 __attribute__((vector_size(32)));
typedef float clik_f32x8u __attribute__((vector_size(32), aligned(4)));
typedef int32_t clik_i32x8 __attribute__((vector_size(32)));
/* Lanes of a and b interleaved (ZIP: a0 b0 a1 b1 ...), or their halves
 * (HALVES: a0..3 b0..3 / a4..7 b4..7), the first or second 8 of 16. */
#if defined(__clang__)
#define CLIK_SHUF8(a, b, i0, i1, i2, i3, i4, i5, i6, i7)                                           \
    __builtin_shufflevector(a, b, i0, i1, i2, i3, i4, i5, i6, i7)
#else
#define CLIK_SHUF8(a, b, i0, i1, i2, i3, i4, i5, i6, i7)                                           \
    __builtin_shuffle(a, b, (clik_i32x8){i0, i1, i2, i3, i4, i5, i6, i7})
#endif
#define CLIK_ZIP_LO8(a, b)    CLIK_SHUF8(a, b, 0, 8, 1, 9, 2, 10, 3, 11)
#define CLIK_ZIP_HI8(a, b)    CLIK_SHUF8(a, b, 4, 12, 5, 13, 6, 14, 7, 15)
#define CLIK_HALVES_LO8(a, b) CLIK_SHUF8(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define CLIK_HALVES_HI8(a, b) CLIK_SHUF8(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
#define CLIK_LD8(p)           (*(const clik_f32x8u *)(const void *)(p))
#define CLIK_ST8(p, v)        (*(clik_f32x8u *)(void *)(p) = (v))

/* acc + b * c with one rounding, as fma() in the kernels and fmaf() in the
 * oracles: VFMA on AArch64 and on x86 with FMA, else fmaf lane by lane
 * (SIMDe's vfmaq_f32 rounds the product first there). */
CLIK_INLINE float32x4_t fma4(float32x4_t acc, float32x4_t b, float32x4_t c)
{
#if (defined(__aarch64__) && defined(__ARM_NEON)) || defined(__FMA__)
    return vfmaq_f32(acc, b, c);
#else
    float r[4], x[4], y[4];
    vst1q_f32(r, acc);
    vst1q_f32(x, b);
    vst1q_f32(y, c);
    for (int i = 0; i < 4; i++)
        r[i] = fmaf(x[i], y[i], r[i]);
    return vld1q_f32(r);
#endif
}

/* n / d and sqrt(v) correctly rounded, as the oracles' float operations and
 * the kernels': VDIV and VSQRT on AArch64, DIVPS and SQRTPS on x86 (SSE2),
 * else lane by lane. */
CLIK_INLINE float32x4_t div4(float32x4_t n, float32x4_t d)
{
#if defined(__aarch64__) && defined(__ARM_NEON)
    return vdivq_f32(n, d);
#elif defined(__SSE2__)
    float q[4], r[4];
    vst1q_f32(q, n);
    vst1q_f32(r, d);
    _mm_storeu_ps(q, _mm_div_ps(_mm_loadu_ps(q), _mm_loadu_ps(r)));
    return vld1q_f32(q);
#else
    float q[4], r[4];
    vst1q_f32(q, n);
    vst1q_f32(r, d);
    for (int i = 0; i < 4; i++)
        q[i] /= r[i];
    return vld1q_f32(q);
#endif
}

CLIK_INLINE float32x4_t sqrt4(float32x4_t v)
{
#if defined(__aarch64__) && defined(__ARM_NEON)
    return vsqrtq_f32(v);
#elif defined(__SSE2__)
    float q[4];
    vst1q_f32(q, v);
    _mm_storeu_ps(q, _mm_sqrt_ps(_mm_loadu_ps(q)));
    return vld1q_f32(q);
#else
    float q[4];
    vst1q_f32(q, v);
    for (int i = 0; i < 4; i++)
        q[i] = sqrtf(q[i]);
    return vld1q_f32(q);
#endif
}

/* 16 bytes from four vectors whose lanes hold an int16 in their low halves
 * (the rounding tricks of the blur and resize paths): each saturated to
 * [0, 255], the low bytes in order. */
static inline uint8x16_t clik_neon_sat_u8x16(uint32x4_t a, uint32x4_t b, uint32x4_t c, uint32x4_t d)
{
    const int16x8_t lo = vdupq_n_s16(0), hi = vdupq_n_s16(255);
    int16x8_t ab =
        vreinterpretq_s16_u16(vuzp1q_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b)));
    int16x8_t cd =
        vreinterpretq_s16_u16(vuzp1q_u16(vreinterpretq_u16_u32(c), vreinterpretq_u16_u32(d)));
    ab = vminq_s16(vmaxq_s16(ab, lo), hi);
    cd = vminq_s16(vmaxq_s16(cd, lo), hi);
    return vuzp1q_u8(vreinterpretq_u8_s16(ab), vreinterpretq_u8_s16(cd));
}

/* Stores v at channel c of pixel (x, y) of dst: as it is on f32, rounded to
 * nearest and clamped to 0..255 on u8. */
static inline void store_sample(clik_image *dst, int x, int y, int c, float v)
{
    char *row = (char *)dst->data + (size_t)y * dst->stride;
    const size_t i = (size_t)x * (size_t)dst->channels + (size_t)c;
    if (dst->type == CLIK_F32) {
        ((float *)(void *)row)[i] = v;
        return;
    }
    const float r = rintf(v);
    ((uint8_t *)row)[i] = (uint8_t)(!(r > 0.0f) ? 0.0f : r > 255.0f ? 255.0f : r);
}

/* The first n elements of row y of img (u8 or f32) as floats into out. */
static inline void clik_neon_load_row_f32(const clik_image *img, int y, size_t n, float *out)
{
    const uint8_t *row = (const uint8_t *)img->data + (size_t)y * img->stride;
    if (img->type == CLIK_F32) {
        memcpy(out, row, n * sizeof(float));
        return;
    }
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint16x8_t v = vmovl_u8(vld1_u8(row + i));
        vst1q_f32(out + i, vcvtq_f32_u32(vmovl_u16(vget_low_u16(v))));
        vst1q_f32(out + i + 4, vcvtq_f32_u32(vmovl_u16(vget_high_u16(v))));
    }
    for (; i < n; i++)
        out[i] = (float)row[i];
}

#endif

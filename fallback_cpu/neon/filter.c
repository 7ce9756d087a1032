/*
 * Filter family, NEON: the Gaussian blur (u8 or f32, 1, 2, 3 or 4 channels)
 * and RGB(A) -> grey, bit-identical with the scalar oracle (the blur's f32
 * sums are the same products added in the same order, see
 * scalar/filter.c).
 *
 * The blur runs down the image once. Each source row is converted to floats
 * into a line with its r reflected border pixels on either side, so the
 * horizontal pass is a plain loop over elements (tap k of element e is
 * line[e + k * ch], whatever the channel count) that writes into a ring of
 * ksize filtered rows; each output row is then the weighted sum of the ring's
 * rows, converted and stored. Both passes go 16 elements a step in GNU C
 * vectors of 8 floats (clik_f32x8, neon.h): NEON registers on AArch64,
 * SSE ones on x86, and AVX ones in the passes' AVX2 copy on x86 CPUs that
 * have it. Nothing of the size of the image is kept
 * unless dst is src: then the source is copied first, because the bottom
 * border reflects rows that would already have been overwritten.
 *
 * Grey deinterleaves 16 RGB(A) pixels with one VLD3 or VLD4 (red and blue
 * trade places in BGR(A) order); u8 uses OpenCV's 15-bit
 * fixed-point weights (see scalar/filter.c) in 32-bit lanes and a rounding
 * narrowing shift.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

/* Every product is rounded before it is added (see scalar/filter.c); this
 * keeps GCC from fusing a * b + c in a GNU C dialect. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

CLIK_INLINE const uint8_t *row_of(const clik_image *img, int y)
{
    return (const uint8_t *)img->data + (size_t)y * img->stride;
}

/* ---- blur ------------------------------------------------------------------ */

/* Source row y as floats into line, with r reflected pixels on each side. */
static void load_line(const clik_image *src, int y, int r, float *line)
{
    const int w = src->width, ch = src->channels;
    const size_t n = (size_t)w * (size_t)ch;
    float *mid = line + (size_t)r * (size_t)ch;
    if (src->type == CLIK_F32) {
        memcpy(mid, row_of(src, y), n * sizeof(float));
    } else {
        const uint8_t *in = row_of(src, y);
        size_t i = 0;
        for (; i + 16 <= n; i += 16) {
            uint8x16_t v = vld1q_u8(in + i);
            uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_u8(vget_high_u8(v));
            vst1q_f32(mid + i, vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)))));
            vst1q_f32(mid + i + 4,
                      vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(lo)))));
            vst1q_f32(mid + i + 8,
                      vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)))));
            vst1q_f32(mid + i + 12,
                      vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(hi)))));
        }
        for (; i < n; i++)
            mid[i] = (float)in[i];
    }
    for (int x = 1; x <= r; x++) {
        memcpy(mid - (size_t)x * (size_t)ch, mid + (size_t)clik__reflect101(-x, w) * (size_t)ch,
               (size_t)ch * sizeof(float));
        memcpy(mid + (size_t)(w - 1 + x) * (size_t)ch,
               mid + (size_t)clik__reflect101(w - 1 + x, w) * (size_t)ch,
               (size_t)ch * sizeof(float));
    }
}

/* Taps up to which the passes keep their weights (and the vertical pass
 * its rows) in locals: the stores could alias them. */
#define LOCAL_TAPS 15

/* out[e] = sum over k of w[k] * line[e + k * ch], for e < n (ksize and
 * held a constant where inlined), 16 elements a step in two clik_f32x8:
 * with held, the weights are vectors held in locals (at most LOCAL_TAPS),
 * else each is read where it is used (the flow's wide smoothing). */
CLIK_INLINE void h_pass_any(const float *line, size_t n, int ch, const float *wt, int ksize,
                            float *out, int held)
{
    const clik_f32x8 zero = {0};
    clik_f32x8 w[LOCAL_TAPS];
    for (int k = 0; held && k < ksize; k++)
        w[k] = zero + wt[k];
#define H_WEIGHT(k) (held ? w[k] : zero + wt[k])
    size_t e = 0;
    for (; e + 16 <= n; e += 16) {
        clik_f32x8 s0 = CLIK_LD8(line + e) * H_WEIGHT(0);
        clik_f32x8 s1 = CLIK_LD8(line + e + 8) * H_WEIGHT(0);
        for (int k = 1; k < ksize; k++) {
            const float *p = line + e + (size_t)k * (size_t)ch;
            s0 = s0 + CLIK_LD8(p) * H_WEIGHT(k);
            s1 = s1 + CLIK_LD8(p + 8) * H_WEIGHT(k);
        }
        CLIK_ST8(out + e, s0);
        CLIK_ST8(out + e + 8, s1);
    }
#undef H_WEIGHT
    for (; e < n; e++) {
        float s = wt[0] * line[e];
        for (int k = 1; k < ksize; k++) {
            float p = wt[k] * line[e + (size_t)k * (size_t)ch];
            s += p;
        }
        out[e] = s;
    }
}

CLIK_INLINE uint8_t round_u8(float s)
{
    float r = s + 0.5f;
    return r <= 0.0f ? 0 : r >= 255.0f ? 255 : (uint8_t)r;
}

/* floor(s + 0.5) of the 16 sums s[0], s[1], in the low 16 bits of each
 * lane of q[0..4) as an int16 (the sums stay within a few hundred: the
 * weights add up to 1). r = s + 0.5 as round_u8; adding 1.5 * 2^23 rounds
 * r to the nearest integer (the sum's unit is 1, its low mantissa bits that
 * integer), one less where that is above r: no conversion instruction,
 * which SIMDe pads with range checks on x86. */
CLIK_INLINE void floor_half16(const clik_f32x8 *s, int32x4_t *q)
{
    const clik_f32x8 zero = {0}, magic = zero + 12582912.0f;
    for (int i = 0; i < 2; i++) {
        const clik_f32x8 r = s[i] + 0.5f, m = r + magic;
        const clik_i32x8 bits = (clik_i32x8)m + ((m - magic) > r);
        memcpy(q + 2 * i, &bits, sizeof(bits));
    }
}

/* u8 of 16 floor_half16 results (neon.h). */
CLIK_INLINE uint8x16_t sat16_u8(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    return clik_neon_sat_u8x16(vreinterpretq_u32_s32(a), vreinterpretq_u32_s32(b),
                               vreinterpretq_u32_s32(c), vreinterpretq_u32_s32(d));
}

/* Output row y: the weighted sum of the ring rows rows_in[0..ksize)
 * (ksize and held a constant where inlined), 16 elements a step in two
 * clik_f32x8: with held, the rows and the weight vectors are held in
 * locals (at most LOCAL_TAPS), else each is read where it is used (the
 * flow's wide smoothing). */
CLIK_INLINE void v_pass_any(const float *const *rows_in, size_t n, const float *wt, int ksize,
                            clik_image *dst, int y, int held)
{
    uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
    float *outf = (float *)(void *)out;
    const int u8 = dst->type == CLIK_U8;
    const clik_f32x8 zero = {0};
    const float *rows[LOCAL_TAPS];
    clik_f32x8 w[LOCAL_TAPS];
    for (int k = 0; held && k < ksize; k++) {
        rows[k] = rows_in[k];
        w[k] = zero + wt[k];
    }
#define V_ROW(k)    (held ? rows[k] : rows_in[k])
#define V_WEIGHT(k) (held ? w[k] : zero + wt[k])
    size_t e = 0;
    for (; e + 16 <= n; e += 16) {
        clik_f32x8 s[2];
        s[0] = CLIK_LD8(V_ROW(0) + e) * V_WEIGHT(0);
        s[1] = CLIK_LD8(V_ROW(0) + e + 8) * V_WEIGHT(0);
        for (int k = 1; k < ksize; k++) {
            s[0] = s[0] + CLIK_LD8(V_ROW(k) + e) * V_WEIGHT(k);
            s[1] = s[1] + CLIK_LD8(V_ROW(k) + e + 8) * V_WEIGHT(k);
        }
        if (u8) {
            int32x4_t q[4];
            floor_half16(s, q);
            vst1q_u8(out + e, sat16_u8(q[0], q[1], q[2], q[3]));
        } else {
            CLIK_ST8(outf + e, s[0]);
            CLIK_ST8(outf + e + 8, s[1]);
        }
    }
#undef V_ROW
#undef V_WEIGHT
    for (; e < n; e++) {
        float s = wt[0] * rows_in[0][e];
        for (int k = 1; k < ksize; k++) {
            float p = wt[k] * rows_in[k][e];
            s += p;
        }
        if (u8)
            out[e] = round_u8(s);
        else
            outf[e] = s;
    }
}

/* The passes for a ksize (a constant for the common sizes, so that the
 * taps unroll; held at most LOCAL_TAPS): baseline code, and on x86 a copy
 * compiled for AVX2 (blur_passes_avx2), picked where the CPU has it. */
#define BLUR_PASSES(NAME, ATTR)                                                                    \
    ATTR static void NAME##_h(const float *line, size_t n, int ch, const float *wt, int ksize,     \
                              float *out)                                                          \
    {                                                                                              \
        if (ksize == 7)                                                                            \
            h_pass_any(line, n, ch, wt, 7, out, 1);                                                \
        else if (ksize == 5)                                                                       \
            h_pass_any(line, n, ch, wt, 5, out, 1);                                                \
        else if (ksize == 3)                                                                       \
            h_pass_any(line, n, ch, wt, 3, out, 1);                                                \
        else                                                                                       \
            h_pass_any(line, n, ch, wt, ksize, out, ksize <= LOCAL_TAPS);                          \
    }                                                                                              \
    ATTR static void NAME##_v(const float *const *rows, size_t n, const float *wt, int ksize,      \
                              clik_image *dst, int y)                                              \
    {                                                                                              \
        if (ksize == 7)                                                                            \
            v_pass_any(rows, n, wt, 7, dst, y, 1);                                                 \
        else if (ksize == 5)                                                                       \
            v_pass_any(rows, n, wt, 5, dst, y, 1);                                                 \
        else if (ksize == 3)                                                                       \
            v_pass_any(rows, n, wt, 3, dst, y, 1);                                                 \
        else                                                                                       \
            v_pass_any(rows, n, wt, ksize, dst, y, ksize <= LOCAL_TAPS);                           \
    }                                                                                              \
    static const blur_passes NAME = {NAME##_h, NAME##_v};

typedef struct blur_passes {
    void (*h)(const float *line, size_t n, int ch, const float *wt, int ksize, float *out);
    void (*v)(const float *const *rows, size_t n, const float *wt, int ksize, clik_image *dst,
              int y);
} blur_passes;

BLUR_PASSES(blur_passes_base, )
#ifdef CLIK_AVX2
BLUR_PASSES(blur_passes_avx2, CLIK_AVX2)
#endif

typedef struct blur_job {
    const clik_image *src;
    clik_image *dst;
    const float *wt;
    int ksize;
    const blur_passes *pass;
} blur_job;

/* Output rows [y0, y1): each band keeps its own line and ring. */
static int blur_rows(void *user, int y0, int y1)
{
    const blur_job *j = user;
    const clik_image *src = j->src;
    const float *wt = j->wt;
    const int ksize = j->ksize;
    const int w = src->width, h = src->height, ch = src->channels, r = ksize / 2;
    const size_t n = (size_t)w * (size_t)ch;
    float *line = malloc(((size_t)w + 2 * (size_t)r) * (size_t)ch * sizeof(float));
    float *ring = malloc((size_t)ksize * n * sizeof(float));
    /* Any tap count: the flow's smoothing takes more than clik_gaussian_blur's
     * CLIK_BLUR_MAX_KSIZE. */
    const float **rows = malloc((size_t)ksize * sizeof(*rows));
    if (!line || !ring || !rows) {
        free(line);
        free(ring);
        free(rows);
        return -1;
    }
    /* Virtual row v (reflected to a source row) goes to slot (v + r) % ksize;
     * output row y takes taps from slots y % ksize onwards. */
    for (int v = y0 - r; v < y1 + r; v++) {
        load_line(src, clik__reflect101(v, h), r, line);
        j->pass->h(line, n, ch, wt, ksize, ring + (size_t)((v + r) % ksize) * n);
        const int y = v - r;
        if (y < y0)
            continue;
        for (int k = 0; k < ksize; k++)
            rows[k] = ring + (size_t)((y + k) % ksize) * n;
        j->pass->v(rows, n, wt, ksize, j->dst, y);
    }
    free(line);
    free(ring);
    free(rows);
    return 0;
}

static int blur_disjoint(const clik_image *src, clik_image *dst, const float *wt, int ksize)
{
    blur_job j = {src, dst, wt, ksize, &blur_passes_base};
#ifdef CLIK_AVX2
    if (clik_cpu_avx2())
        j.pass = &blur_passes_avx2;
#endif
    /* Each row costs about ksize multiply-adds per element, twice. */
    return clik__cpu_rows(src->height, (size_t)src->width * (size_t)src->channels * (size_t)ksize,
                          blur_rows, &j);
}

int clik__blur_neon(const clik_image *src, clik_image *dst, const float *weights, int ksize)
{
    if (src->data != dst->data)
        return blur_disjoint(src, dst, weights, ksize);
    /* In place: blur a copy of the source. */
    clik_image copy = *src;
    size_t row = (size_t)src->width * (size_t)src->channels * (src->type == CLIK_U8 ? 1 : 4);
    copy.stride = row;
    copy.data = malloc(row * (size_t)src->height);
    if (!copy.data)
        return -1;
    for (int y = 0; y < src->height; y++)
        memcpy((uint8_t *)copy.data + (size_t)y * row, row_of(src, y), row);
    int ret = blur_disjoint(&copy, dst, weights, ksize);
    free(copy.data);
    return ret;
}

/* ---- grey -------------------------------------------------------------------- */

/* OpenCV's fixed point for 4 pixels: (9798 R + 19235 G + 3735 B + 16384) >> 15. */
CLIK_INLINE uint16x4_t luma4_u8(uint16x4_t r, uint16x4_t g, uint16x4_t b)
{
    uint32x4_t s = vmull_n_u16(r, 9798);
    s = vmlal_n_u16(s, g, 19235);
    s = vmlal_n_u16(s, b, 3735);
    return vrshrn_n_u32(s, 15);
}

CLIK_INLINE uint8x8_t luma8_u8(uint8x8_t r, uint8x8_t g, uint8x8_t b)
{
    uint16x8_t r16 = vmovl_u8(r), g16 = vmovl_u8(g), b16 = vmovl_u8(b);
    uint16x4_t lo = luma4_u8(vget_low_u16(r16), vget_low_u16(g16), vget_low_u16(b16));
    uint16x4_t hi = luma4_u8(vget_high_u16(r16), vget_high_u16(g16), vget_high_u16(b16));
    return vmovn_u16(vcombine_u16(lo, hi));
}

/* Red and blue of a deinterleaved pixel vector: val[0] and val[2] swap
 * places in BGR(A). */
#define RED(p, bgr)  ((p).val[(bgr) ? 2 : 0])
#define BLUE(p, bgr) ((p).val[(bgr) ? 0 : 2])

/* One u8 pixel at p, red at p[red] and blue at p[2 - red]. */
CLIK_INLINE uint8_t luma_px_u8(const uint8_t *p, int red)
{
    return (uint8_t)((9798u * p[red] + 19235u * p[1] + 3735u * p[2 - red] + 16384u) >> 15);
}

CLIK_INLINE uint8x16_t luma16_u8(uint8x16_t r, uint8x16_t g, uint8x16_t b)
{
    uint8x8_t lo = luma8_u8(vget_low_u8(r), vget_low_u8(g), vget_low_u8(b));
    uint8x8_t hi = luma8_u8(vget_high_u8(r), vget_high_u8(g), vget_high_u8(b));
    return vcombine_u8(lo, hi);
}

CLIK_INLINE float32x4_t luma4_f32(float32x4_t r, float32x4_t g, float32x4_t b)
{
    float32x4_t v = vmulq_n_f32(r, 0.299f);
    v = vaddq_f32(v, vmulq_n_f32(g, 0.587f));
    return vaddq_f32(v, vmulq_n_f32(b, 0.114f));
}

/* One f32 pixel at p, red at p[red] and blue at p[2 - red]: each product
 * and sum rounded on its own, as luma4_f32's. */
CLIK_INLINE float luma_px_f32(const float *p, int red)
{
    float v = 0.299f * p[red], q = 0.587f * p[1];
    v += q;
    q = 0.114f * p[2 - red];
    v += q;
    return v;
}

/* Grey rows [y0, y1) of an RGB(A) image of element T: N pixels a step
 * deinterleaved by LD3 / LD4 (into V3 / V4), weighed by LUMA and stored by
 * ST; the last ones by LUMA_PX. */
#define GRAY_ROWS(NAME, T, N, V3, V4, LD3, LD4, ST, LUMA, LUMA_PX)                                 \
    static void NAME(const clik_image *src, clik_image *dst, int y0, int y1)                       \
    {                                                                                              \
        const int ch = src->channels, bgr = src->order == CLIK_ORDER_BGR;                          \
        for (int y = y0; y < y1; y++) {                                                            \
            const T *in = (const T *)(const void *)row_of(src, y);                                 \
            T *out = (T *)(void *)((uint8_t *)dst->data + (size_t)y * dst->stride);                \
            int x = 0;                                                                             \
            for (; x + N <= src->width; x += N) {                                                  \
                if (ch == 4) {                                                                     \
                    V4 p = LD4(in + 4 * x);                                                        \
                    ST(out + x, LUMA(RED(p, bgr), p.val[1], BLUE(p, bgr)));                        \
                } else {                                                                           \
                    V3 p = LD3(in + 3 * x);                                                        \
                    ST(out + x, LUMA(RED(p, bgr), p.val[1], BLUE(p, bgr)));                        \
                }                                                                                  \
            }                                                                                      \
            for (; x < src->width; x++)                                                            \
                out[x] = LUMA_PX(in + (size_t)ch * (size_t)x, bgr ? 2 : 0);                        \
        }                                                                                          \
    }
GRAY_ROWS(gray_u8, uint8_t, 16, uint8x16x3_t, uint8x16x4_t, vld3q_u8, vld4q_u8, vst1q_u8, luma16_u8,
          luma_px_u8)
GRAY_ROWS(gray_f32, float, 4, float32x4x3_t, float32x4x4_t, vld3q_f32, vld4q_f32, vst1q_f32,
          luma4_f32, luma_px_f32)

#ifdef CLIK_AVX2
/* gray_u8 of four channels on x86 CPUs with AVX2 (SIMDe's VLD4 goes byte
 * by byte there): eight pixels a step as 32-bit words, each channel by a
 * shift and a mask, the same fixed point in 32-bit lanes, the results
 * packed to bytes. */
CLIK_AVX2 static void gray_rgba_avx2(const clik_image *src, clik_image *dst, int y0, int y1)
{
    const int bgr = src->order == CLIK_ORDER_BGR;
    const __m256i m8 = _mm256_set1_epi32(255), half = _mm256_set1_epi32(16384);
    const __m256i w0 = _mm256_set1_epi32(bgr ? 3735 : 9798), w1 = _mm256_set1_epi32(19235);
    const __m256i w2 = _mm256_set1_epi32(bgr ? 9798 : 3735);
    for (int y = y0; y < y1; y++) {
        const uint8_t *in = row_of(src, y);
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        int x = 0;
        for (; x + 8 <= src->width; x += 8) {
            const __m256i p = _mm256_loadu_si256((const void *)(in + 4 * (size_t)x));
            const __m256i c0 = _mm256_and_si256(p, m8);
            const __m256i c1 = _mm256_and_si256(_mm256_srli_epi32(p, 8), m8);
            const __m256i c2 = _mm256_and_si256(_mm256_srli_epi32(p, 16), m8);
            __m256i s = _mm256_add_epi32(_mm256_mullo_epi32(c0, w0), _mm256_mullo_epi32(c1, w1));
            s = _mm256_add_epi32(_mm256_add_epi32(s, _mm256_mullo_epi32(c2, w2)), half);
            const __m256i l = _mm256_srli_epi32(s, 15);
            CLIK_AVX2_STORE8_U8(out + x, l);
        }
        for (; x < src->width; x++)
            out[x] = luma_px_u8(in + 4 * (size_t)x, bgr ? 2 : 0);
    }
}
#endif

typedef struct gray_job {
    const clik_image *src;
    clik_image *dst;
    int avx2; /* gray_rgba_avx2 */
} gray_job;

static int gray_rows(void *user, int y0, int y1)
{
    const gray_job *j = user;
#ifdef CLIK_AVX2
    if (j->avx2) {
        gray_rgba_avx2(j->src, j->dst, y0, y1);
        return 0;
    }
#endif
    if (j->src->type == CLIK_U8)
        gray_u8(j->src, j->dst, y0, y1);
    else
        gray_f32(j->src, j->dst, y0, y1);
    return 0;
}

void clik__gray_neon(const clik_image *src, clik_image *dst)
{
    gray_job j = {src, dst, 0};
#ifdef CLIK_AVX2
    j.avx2 = src->type == CLIK_U8 && src->channels == 4 && clik_cpu_avx2();
#endif
    clik__cpu_rows(src->height, (size_t)src->width, gray_rows, &j);
}

void clik__filter_dsp_init_neon(clik_filter_dsp *dsp)
{
    dsp->blur = clik__blur_neon;
    dsp->gray = clik__gray_neon;
}

/*
 * Histogram family, NEON. The histogram loads 16 bytes at a time and counts
 * into four sub-histograms so that repeated values do not serialise on one
 * counter; the table lookup uses four 64-byte TBL/TBX lookups per vector,
 * with channels de-interleaved by LD2/LD4 when each has its own table
 * (through SIMDe, byte loads from the table instead);
 * CLAHE's blend takes each column's tiles and weights from tables made once
 * per call and runs 16 pixels a step in float lanes, rows in bands; its
 * tiles' tables are made tile rows in bands. On x86 CPUs with AVX2 the
 * blend, the YCrCb luma and its replacement run eight pixels a step in
 * copies compiled for it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

#define SUB 4

CLIK_INLINE void hist_rows(const uint8_t *src, size_t stride, int width, int height, const int ch,
                           uint32_t *hist)
{
    uint32_t sub[SUB][4 * 256];
    memset(sub, 0, sizeof(sub[0][0]) * SUB * 4 * 256);
    size_t row_bytes = (size_t)width * (size_t)ch;
    for (int y = 0; y < height; y++) {
        const uint8_t *p = src + (size_t)y * stride;
        size_t i = 0;
        for (; i + 16 <= row_bytes; i += 16) {
            /* One 16-byte load; the lanes then index the counters. */
            uint8_t lane[16];
            vst1q_u8(lane, vld1q_u8(p + i));
            for (int j = 0; j < 16; j++)
                sub[(j / ch) % SUB][(j % ch) * 256 + lane[j]]++;
        }
        for (; i < row_bytes; i++)
            sub[0][(i % (size_t)ch) * 256 + p[i]]++;
    }
    for (int b = 0; b < ch * 256; b++)
        hist[b] += sub[0][b] + sub[1][b] + sub[2][b] + sub[3][b];
}

static void hist_part(const uint8_t *src, size_t stride, int width, int height, int channels,
                      uint32_t *hist)
{
    switch (channels) {
    case 1: hist_rows(src, stride, width, height, 1, hist); break;
    case 2: hist_rows(src, stride, width, height, 2, hist); break;
    default: hist_rows(src, stride, width, height, 4, hist); break;
    }
}

/* The image in `parts` slices of rows, each counted into its own zeroed
 * partial histogram; the partials are then added in slice order. */
typedef struct hist_job {
    const uint8_t *src;
    size_t stride;
    int width, height, channels, parts;
    uint32_t *partial; /* parts x channels x 256 */
} hist_job;

static int hist_slices(void *user, int p0, int p1)
{
    const hist_job *j = user;
    for (int p = p0; p < p1; p++) {
        const int y0 = (int)((long long)j->height * p / j->parts);
        const int y1 = (int)((long long)j->height * (p + 1) / j->parts);
        hist_part(j->src + (size_t)y0 * j->stride, j->stride, j->width, y1 - y0, j->channels,
                  j->partial + (size_t)p * (size_t)j->channels * 256);
    }
    return 0;
}

static void hist_neon(const uint8_t *src, size_t stride, int width, int height, int channels,
                      uint32_t *hist)
{
    const int parts = clik__cpu_threads() < height ? clik__cpu_threads() : 1;
    const size_t bins = (size_t)channels * 256;
    hist_job j = {src, stride, width, height, channels, parts, NULL};
    if (parts > 1)
        j.partial = calloc((size_t)parts * bins, sizeof(uint32_t));
    if (!j.partial) { /* one thread, or out of memory: counted in one pass */
        hist_part(src, stride, width, height, channels, hist);
        return;
    }
    clik__cpu_rows(parts, (size_t)width * (size_t)channels * (size_t)height / (size_t)parts,
                   hist_slices, &j);
    for (int p = 0; p < parts; p++)
        for (size_t b = 0; b < bins; b++)
            hist[b] += j.partial[(size_t)p * bins + b];
    free(j.partial);
}

typedef struct table256 {
    uint8x16x4_t q[4];
} table256;

CLIK_INLINE void load_table(table256 *t, const uint8_t *table)
{
    for (int i = 0; i < 4; i++)
        t->q[i] = vld1q_u8_x4(table + 64 * i);
}

CLIK_INLINE uint8x16_t lookup(const table256 *t, uint8x16_t idx)
{
    const uint8x16_t step = vdupq_n_u8(64);
    uint8x16_t r = vqtbl4q_u8(t->q[0], idx);
    idx = vsubq_u8(idx, step);
    r = vqtbx4q_u8(r, t->q[1], idx);
    idx = vsubq_u8(idx, step);
    r = vqtbx4q_u8(r, t->q[2], idx);
    idx = vsubq_u8(idx, step);
    return vqtbx4q_u8(r, t->q[3], idx);
}

/* Through SIMDe (x86) the lookups above run byte by byte behind a copy of
 * the vectors: plain byte loads from the table are several times faster. */
#if defined(__aarch64__) && defined(__ARM_NEON)
#define NATIVE_TBL 1
#else
#define NATIVE_TBL 0
#endif

static int lut_rows_bytes(void *user, int y0, int y1)
{
    const clik_lut_job *j = user;
    const uint8_t *tables = j->tables;
    const int channels = j->channels;
    const size_t row_bytes = (size_t)j->width * (size_t)channels;
    for (int y = y0; y < y1; y++) {
        const uint8_t *in = j->src + (size_t)y * j->src_stride;
        uint8_t *out = j->dst + (size_t)y * j->dst_stride;
        size_t i = 0;
        if (!j->per_channel || channels == 1) {
            for (; i + 4 <= row_bytes; i += 4) {
                const uint8_t a = tables[in[i]], b = tables[in[i + 1]];
                const uint8_t c = tables[in[i + 2]], d = tables[in[i + 3]];
                out[i] = a;
                out[i + 1] = b;
                out[i + 2] = c;
                out[i + 3] = d;
            }
            for (; i < row_bytes; i++)
                out[i] = tables[in[i]];
        } else {
            for (; i < row_bytes; i += (size_t)channels)
                for (int c = 0; c < channels; c++)
                    out[i + (size_t)c] = tables[c * 256 + in[i + (size_t)c]];
        }
    }
    return 0;
}

static int lut_rows(void *user, int y0, int y1)
{
    const clik_lut_job *j = user;
    const uint8_t *src = j->src, *tables = j->tables;
    uint8_t *dst = j->dst;
    const size_t src_stride = j->src_stride, dst_stride = j->dst_stride;
    const int channels = j->channels;
    int ntab = j->per_channel ? channels : 1;
    table256 t[4];
    for (int c = 0; c < ntab; c++)
        load_table(&t[c], tables + 256 * c);
    size_t row_bytes = (size_t)j->width * (size_t)channels;
    for (int y = y0; y < y1; y++) {
        const uint8_t *in = src + (size_t)y * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        size_t i = 0;
        if (ntab == 1) {
            for (; i + 16 <= row_bytes; i += 16)
                vst1q_u8(out + i, lookup(&t[0], vld1q_u8(in + i)));
        } else if (ntab == 2) {
            for (; i + 32 <= row_bytes; i += 32) {
                uint8x16x2_t v = vld2q_u8(in + i);
                v.val[0] = lookup(&t[0], v.val[0]);
                v.val[1] = lookup(&t[1], v.val[1]);
                vst2q_u8(out + i, v);
            }
        } else {
            for (; i + 64 <= row_bytes; i += 64) {
                uint8x16x4_t v = vld4q_u8(in + i);
                v.val[0] = lookup(&t[0], v.val[0]);
                v.val[1] = lookup(&t[1], v.val[1]);
                v.val[2] = lookup(&t[2], v.val[2]);
                v.val[3] = lookup(&t[3], v.val[3]);
                vst4q_u8(out + i, v);
            }
        }
        for (; i < row_bytes; i++)
            out[i] = tables[(ntab == 1 ? 0 : (i % (size_t)channels) * 256) + in[i]];
    }
    return 0;
}

/* src and dst may be the same memory: each row is read before it is
 * written, by one band. */
static void lut_neon(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                     int width, int height, int channels, const uint8_t *tables, int per_channel)
{
    clik_lut_job j = {src, src_stride, dst, dst_stride, width, channels, tables, per_channel};
    clik__cpu_rows(height, (size_t)width * (size_t)channels, NATIVE_TBL ? lut_rows : lut_rows_bytes,
                   &j);
}

/* CLAHE's blend, four pixels a step: the tile positions and weights in
 * float lanes (multiplies and adds kept apart, no fused steps, as the
 * scalar path), the table values gathered lane by lane. What
 * clahe_interp_neon falls back on without memory for its tables. */
static void clahe_interp_lanes(const uint8_t *src, size_t src_stride, uint8_t *dst,
                               size_t dst_stride, const clik_clahe_plan *p, const uint8_t *luts)
{
    const float32x4_t half = vdupq_n_f32(0.5f), one = vdupq_n_f32(1.0f);
    const float32x4_t inv_tw = vdupq_n_f32(p->inv_tw);
    const int32x4_t zero = vdupq_n_s32(0), last = vdupq_n_s32(p->tiles_x - 1);
    const int32x4_t four = vdupq_n_s32(4);
    const int32x4_t first_x = {0, 1, 2, 3};
    for (int y = 0; y < p->height; y++) {
        const float fy = (float)y * p->inv_th - 0.5f;
        const float flo = floorf(fy);
        const int ty = (int)flo;
        const float wy = fy - flo;
        const int y1 = ty < 0 ? 0 : ty, y2 = ty + 1 > p->tiles_y - 1 ? p->tiles_y - 1 : ty + 1;
        const uint8_t *top = luts + (size_t)y1 * p->tiles_x * 256;
        const uint8_t *bottom = luts + (size_t)y2 * p->tiles_x * 256;
        const float32x4_t wy2 = vdupq_n_f32(wy), wy1 = vdupq_n_f32(1.0f - wy);
        const uint8_t *in = src + (size_t)y * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        int32x4_t xs = first_x;
        int x = 0;
        for (; x + 4 <= p->width; x += 4, xs = vaddq_s32(xs, four)) {
            const float32x4_t f = vsubq_f32(vmulq_f32(vcvtq_f32_s32(xs), inv_tw), half);
            const float32x4_t fl = vrndmq_f32(f);
            const float32x4_t w2 = vsubq_f32(f, fl), w1 = vsubq_f32(one, w2);
            const int32x4_t t = vcvtq_s32_f32(fl);
            int32_t i1[4], i2[4];
            vst1q_s32(i1, vmulq_n_s32(vmaxq_s32(t, zero), 256));
            vst1q_s32(i2, vmulq_n_s32(vminq_s32(vaddq_s32(t, vdupq_n_s32(1)), last), 256));
            float a1[4], a2[4], b1[4], b2[4];
            for (int j = 0; j < 4; j++) {
                const int v = in[x + j];
                a1[j] = (float)top[i1[j] + v];
                a2[j] = (float)top[i2[j] + v];
                b1[j] = (float)bottom[i1[j] + v];
                b2[j] = (float)bottom[i2[j] + v];
            }
            const float32x4_t a =
                vaddq_f32(vmulq_f32(vld1q_f32(a1), w1), vmulq_f32(vld1q_f32(a2), w2));
            const float32x4_t b =
                vaddq_f32(vmulq_f32(vld1q_f32(b1), w1), vmulq_f32(vld1q_f32(b2), w2));
            const float32x4_t r = vaddq_f32(vmulq_f32(a, wy1), vmulq_f32(b, wy2));
            const uint16x4_t r16 = vqmovun_s32(vcvtq_s32_f32(vrndnq_f32(r)));
            const uint8x8_t r8 = vqmovn_u16(vcombine_u16(r16, r16));
            uint8_t bytes[8];
            vst1_u8(bytes, r8);
            memcpy(out + x, bytes, 4);
        }
        for (; x < p->width; x++) {
            const float f = (float)x * p->inv_tw - 0.5f;
            const float fl = floorf(f);
            const int t = (int)fl;
            const float w2 = f - fl, w1 = 1.0f - w2;
            const int i1 = (t < 0 ? 0 : t) * 256;
            const int i2 = (t + 1 > p->tiles_x - 1 ? p->tiles_x - 1 : t + 1) * 256;
            const int v = in[x];
            const float a = (float)top[i1 + v] * w1 + (float)top[i2 + v] * w2;
            const float b = (float)bottom[i1 + v] * w1 + (float)bottom[i2 + v] * w2;
            const long q = lrintf(a * (1.0f - wy) + b * wy);
            out[x] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
        }
    }
}

/* CLAHE's blend. The tile columns and weights of each x are the same on
 * every row: computed once (as the scalar path computes them, multiplies
 * and adds kept apart), then each row gathers its table values 16 pixels at
 * a time into bytes, widens them to float lanes and blends them; the result
 * rounded to nearest, halves to even, by adding 1.5 * 2^23 (no rounding
 * or conversion instruction, which SIMDe has only lane by lane without
 * SSE4.1), and saturated. Rows in bands. */
typedef struct clahe_job {
    const uint8_t *src;
    size_t src_stride;
    uint8_t *dst;
    size_t dst_stride;
    const clik_clahe_plan *p;
    const uint8_t *luts;
    const int32_t *i1, *i2; /* per x: the left and right tiles' tables, times 256 */
    const float *w1, *w2;   /* per x: their weights */
} clahe_job;

/* Lane group g (0..3) of 16 bytes as floats. */
CLIK_INLINE float32x4_t bytes_f32(uint8x16_t v, int g)
{
    const uint16x8_t h = g < 2 ? vmovl_u8(vget_low_u8(v)) : vmovl_u8(vget_high_u8(v));
    const uint32x4_t q = g % 2 == 0 ? vmovl_u16(vget_low_u16(h)) : vmovl_u16(vget_high_u16(h));
    return vcvtq_f32_s32(vreinterpretq_s32_u32(q));
}

/* Row y's tables of the tile rows above and below it, and the weight of
 * the one below. */
CLIK_INLINE float row_tiles(const clahe_job *j, int y, const uint8_t **top, const uint8_t **bottom)
{
    const clik_clahe_plan *p = j->p;
    const float fy = (float)y * p->inv_th - 0.5f;
    const float flo = floorf(fy);
    const int ty = (int)flo;
    const int ya = ty < 0 ? 0 : ty, yb = ty + 1 > p->tiles_y - 1 ? p->tiles_y - 1 : ty + 1;
    *top = j->luts + (size_t)ya * p->tiles_x * 256;
    *bottom = j->luts + (size_t)yb * p->tiles_x * 256;
    return fy - flo;
}

static int clahe_rows(void *user, int y0, int y1)
{
    const clahe_job *j = user;
    const clik_clahe_plan *p = j->p;
    const int32_t *i1 = j->i1, *i2 = j->i2;
    const float *w1 = j->w1, *w2 = j->w2;
    for (int y = y0; y < y1; y++) {
        const uint8_t *top, *bottom;
        const float wy = row_tiles(j, y, &top, &bottom);
        const float32x4_t wy2 = vdupq_n_f32(wy), wy1 = vdupq_n_f32(1.0f - wy);
        const uint8_t *in = j->src + (size_t)y * j->src_stride;
        uint8_t *out = j->dst + (size_t)y * j->dst_stride;
        int x = 0;
        for (; x + 16 <= p->width; x += 16) {
            uint8_t ta[16], tb[16], ba[16], bb[16];
            for (int k = 0; k < 16; k++) {
                const int v = in[x + k];
                ta[k] = top[i1[x + k] + v];
                tb[k] = top[i2[x + k] + v];
                ba[k] = bottom[i1[x + k] + v];
                bb[k] = bottom[i2[x + k] + v];
            }
            const uint8x16_t vta = vld1q_u8(ta), vtb = vld1q_u8(tb);
            const uint8x16_t vba = vld1q_u8(ba), vbb = vld1q_u8(bb);
            uint32x4_t q[4];
            for (int g = 0; g < 4; g++) {
                const float32x4_t u1 = vld1q_f32(w1 + x + 4 * g), u2 = vld1q_f32(w2 + x + 4 * g);
                const float32x4_t a =
                    vaddq_f32(vmulq_f32(bytes_f32(vta, g), u1), vmulq_f32(bytes_f32(vtb, g), u2));
                const float32x4_t b =
                    vaddq_f32(vmulq_f32(bytes_f32(vba, g), u1), vmulq_f32(bytes_f32(vbb, g), u2));
                const float32x4_t r = vaddq_f32(vmulq_f32(a, wy1), vmulq_f32(b, wy2));
                q[g] = vreinterpretq_u32_f32(vaddq_f32(r, vdupq_n_f32(12582912.0f)));
            }
            /* The low 16 bits of each lane: the rounded value as an int16. */
            int16x8_t lo = vreinterpretq_s16_u16(
                vuzp1q_u16(vreinterpretq_u16_u32(q[0]), vreinterpretq_u16_u32(q[1])));
            int16x8_t hi = vreinterpretq_s16_u16(
                vuzp1q_u16(vreinterpretq_u16_u32(q[2]), vreinterpretq_u16_u32(q[3])));
            lo = vminq_s16(vmaxq_s16(lo, vdupq_n_s16(0)), vdupq_n_s16(255));
            hi = vminq_s16(vmaxq_s16(hi, vdupq_n_s16(0)), vdupq_n_s16(255));
            vst1q_u8(out + x, vuzp1q_u8(vreinterpretq_u8_s16(lo), vreinterpretq_u8_s16(hi)));
        }
        for (; x < p->width; x++) {
            const int v = in[x];
            const float a = (float)top[i1[x] + v] * w1[x] + (float)top[i2[x] + v] * w2[x];
            const float b = (float)bottom[i1[x] + v] * w1[x] + (float)bottom[i2[x] + v] * w2[x];
            const long q = lrintf(a * (1.0f - wy) + b * wy);
            out[x] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
        }
    }
    return 0;
}

/* CLAHE's tables, tile rows in bands: a tile inside the image counts
 * its rows' bytes straight into four sub-histograms; one that reaches past
 * the image's edge (reflected, as the oracle pads) goes pixel by pixel. */
typedef struct clahe_luts_job {
    const uint8_t *src;
    size_t stride;
    const clik_clahe_plan *p;
    uint8_t *luts;
} clahe_luts_job;

static int clahe_lut_rows(void *user, int ty0, int ty1)
{
    const clahe_luts_job *j = user;
    const clik_clahe_plan *p = j->p;
    for (int ty = ty0; ty < ty1; ty++)
        for (int tx = 0; tx < p->tiles_x; tx++) {
            uint32_t sub[SUB][256], hist[256];
            memset(sub, 0, sizeof(sub));
            const int x0 = tx * p->tile_w, y0 = ty * p->tile_h;
            if (x0 + p->tile_w <= p->width && y0 + p->tile_h <= p->height) {
                for (int r = 0; r < p->tile_h; r++) {
                    const uint8_t *row = j->src + (size_t)(y0 + r) * j->stride + x0;
                    int i = 0;
                    for (; i + SUB <= p->tile_w; i += SUB)
                        for (int k = 0; k < SUB; k++)
                            sub[k][row[i + k]]++;
                    for (; i < p->tile_w; i++)
                        sub[0][row[i]]++;
                }
            } else {
                for (int r = 0; r < p->tile_h; r++) {
                    const uint8_t *row =
                        j->src + (size_t)clik__reflect101(y0 + r, p->height) * j->stride;
                    for (int i = 0; i < p->tile_w; i++)
                        sub[0][row[clik__reflect101(x0 + i, p->width)]]++;
                }
            }
            for (int v = 0; v < 256; v++)
                hist[v] = sub[0][v] + sub[1][v] + sub[2][v] + sub[3][v];
            clik__clahe_lut_of(hist, p, j->luts + (size_t)(ty * p->tiles_x + tx) * 256);
        }
    return 0;
}

static void clahe_luts_neon(const uint8_t *src, size_t stride, const clik_clahe_plan *p,
                            uint8_t *luts)
{
    clahe_luts_job j = {src, stride, p, luts};
    clik__cpu_rows(p->tiles_y, (size_t)p->tiles_x * (size_t)p->tile_w * (size_t)p->tile_h,
                   clahe_lut_rows, &j);
}

#ifdef CLIK_AVX2
/* clahe_rows on x86 CPUs with AVX2, eight pixels a step: the four tables'
 * entries by gathers of 32-bit words at byte offsets (the luts padded by 3
 * bytes, so that the word at the last entry lies inside), the same float
 * products and sums, rounded by adding 1.5 * 2^23, packed to bytes. */
CLIK_AVX2 static int clahe_rows_avx2(void *user, int y0, int y1)
{
    const clahe_job *j = user;
    const clik_clahe_plan *p = j->p;
    const __m256i m8 = _mm256_set1_epi32(255);
    const __m256i zero = _mm256_setzero_si256();
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    for (int y = y0; y < y1; y++) {
        const uint8_t *t8, *b8;
        const float wy = row_tiles(j, y, &t8, &b8);
        const int *top = (const int *)(const void *)t8, *bottom = (const int *)(const void *)b8;
        const __m256 wy2 = _mm256_set1_ps(wy), wy1 = _mm256_set1_ps(1.0f - wy);
        const uint8_t *in = j->src + (size_t)y * j->src_stride;
        uint8_t *out = j->dst + (size_t)y * j->dst_stride;
        int x = 0;
        for (; x + 8 <= p->width; x += 8) {
            const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const void *)(in + x)));
            const __m256i a1 = _mm256_add_epi32(_mm256_loadu_si256((const void *)(j->i1 + x)), v);
            const __m256i a2 = _mm256_add_epi32(_mm256_loadu_si256((const void *)(j->i2 + x)), v);
#define ENTRY8(t, a) _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_i32gather_epi32((t), (a), 1), m8))
            const __m256 u1 = _mm256_loadu_ps(j->w1 + x), u2 = _mm256_loadu_ps(j->w2 + x);
            const __m256 a = _mm256_add_ps(_mm256_mul_ps(ENTRY8(top, a1), u1),
                                           _mm256_mul_ps(ENTRY8(top, a2), u2));
            const __m256 b = _mm256_add_ps(_mm256_mul_ps(ENTRY8(bottom, a1), u1),
                                           _mm256_mul_ps(ENTRY8(bottom, a2), u2));
#undef ENTRY8
            const __m256 r = _mm256_add_ps(_mm256_mul_ps(a, wy1), _mm256_mul_ps(b, wy2));
            /* the low 16 bits: the rounded value as an int16, sign-extended */
            __m256i q = _mm256_srai_epi32(
                _mm256_slli_epi32(_mm256_castps_si256(_mm256_add_ps(r, magic)), 16), 16);
            q = _mm256_min_epi32(_mm256_max_epi32(q, zero), m8);
            CLIK_AVX2_STORE8_U8(out + x, q);
        }
        for (; x < p->width; x++) {
            const int v = in[x];
            const float a = (float)t8[j->i1[x] + v] * j->w1[x] + (float)t8[j->i2[x] + v] * j->w2[x];
            const float b = (float)b8[j->i1[x] + v] * j->w1[x] + (float)b8[j->i2[x] + v] * j->w2[x];
            const long q = lrintf(a * (1.0f - wy) + b * wy);
            out[x] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
        }
    }
    return 0;
}
#endif

static void clahe_interp_neon(const uint8_t *src, size_t src_stride, uint8_t *dst,
                              size_t dst_stride, const clik_clahe_plan *p, const uint8_t *luts)
{
    const size_t w = (size_t)p->width;
    int32_t *i1 = malloc(2 * w * sizeof(int32_t));
    float *w1 = malloc(2 * w * sizeof(float));
    if (!i1 || !w1) {
        free(i1);
        free(w1);
        clahe_interp_lanes(src, src_stride, dst, dst_stride, p, luts);
        return;
    }
    int32_t *i2 = i1 + w;
    float *w2 = w1 + w;
    for (int x = 0; x < p->width; x++) {
        const float f = (float)x * p->inv_tw - 0.5f;
        const float fl = floorf(f);
        const int t = (int)fl;
        w2[x] = f - fl;
        w1[x] = 1.0f - w2[x];
        i1[x] = (t < 0 ? 0 : t) * 256;
        i2[x] = (t + 1 > p->tiles_x - 1 ? p->tiles_x - 1 : t + 1) * 256;
    }
    clahe_job j = {src, src_stride, dst, dst_stride, p, luts, i1, i2, w1, w2};
    clik_rows_fn rows = clahe_rows;
    uint8_t *padded = NULL;
#ifdef CLIK_AVX2
    const size_t lut_bytes = (size_t)p->tiles_x * (size_t)p->tiles_y * 256;
    if (clik_cpu_avx2() && (padded = malloc(lut_bytes + 3)) != NULL) {
        memcpy(padded, luts, lut_bytes);
        memset(padded + lut_bytes, 0, 3);
        j.luts = padded;
        rows = clahe_rows_avx2;
    }
#endif
    clik__cpu_rows(p->height, w * 4, rows, &j);
    free(padded);
    free(i1);
    free(w1);
}

/* ---- YCrCb luma on x86 with AVX2 ---------------------------------------------------------- */

#ifdef CLIK_AVX2
/* The luma and its replacement of scalar/hist.c (OpenCV's COLOR_RGB2YCrCb
 * and back, 14-bit fixed point) on x86 CPUs with AVX2, eight pixels a step
 * as 32-bit words in 32-bit lanes: the same integer arithmetic (descale14
 * is an arithmetic shift), the last pixels one at a time. No NEON version
 * yet: elsewhere the scalar code runs. */

/* (v + 2^13) >> 14, arithmetic, of 8 lanes and of one value. */
#define DESCALE14_8(v) _mm256_srai_epi32(_mm256_add_epi32((v), _mm256_set1_epi32(1 << 13)), 14)
CLIK_INLINE int descale14_1(int v)
{
    const int r = v + (1 << 13);
    return r >= 0 ? r / 16384 : -((-r + 16383) / 16384);
}
CLIK_INLINE int clamp255_1(int v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* Luma of one pixel whose red is px[red]. */
CLIK_INLINE int luma_px(const uint8_t *px, int red)
{
    return descale14_1(px[red] * 4899 + px[1] * 9617 + px[2 - red] * 1868);
}

/* Channel c of eight RGBA words. */
#define CH8(p, c) _mm256_and_si256(_mm256_srli_epi32((p), 8 * (c)), _mm256_set1_epi32(255))

/* The luma of eight pixels p (red in channel red). */
#define LUMA8(p, red)                                                                              \
    DESCALE14_8(_mm256_add_epi32(                                                                  \
        _mm256_add_epi32(_mm256_mullo_epi32(CH8(p, red), _mm256_set1_epi32(4899)),                 \
                         _mm256_mullo_epi32(CH8(p, 1), _mm256_set1_epi32(9617))),                  \
        _mm256_mullo_epi32(CH8(p, 2 - red), _mm256_set1_epi32(1868))))

CLIK_AVX2 static void luma_avx2(const uint8_t *src, size_t stride, int width, int height, int bgr,
                                uint8_t *y)
{
    const int red = bgr ? 2 : 0;
    for (int r = 0; r < height; r++) {
        const uint8_t *in = src + (size_t)r * stride;
        uint8_t *out = y + (size_t)r * (size_t)width;
        int x = 0;
        for (; x + 8 <= width; x += 8) {
            const __m256i p = _mm256_loadu_si256((const void *)(in + 4 * (size_t)x));
            const __m256i l = red ? LUMA8(p, 2) : LUMA8(p, 0);
            CLIK_AVX2_STORE8_U8(out + x, l);
        }
        for (; x < width; x++)
            out[x] = (uint8_t)luma_px(in + 4 * (size_t)x, red);
    }
}

CLIK_AVX2 static void luma_merge_avx2(const uint8_t *src, size_t src_stride, const uint8_t *y,
                                      uint8_t *dst, size_t dst_stride, int width, int height,
                                      int bgr)
{
    const int red = bgr ? 2 : 0, blue = 2 - red;
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(255);
    const __m256i c128 = _mm256_set1_epi32(128), off = _mm256_set1_epi32(128 << 14);
#define CLAMP8(v) _mm256_min_epi32(_mm256_max_epi32((v), zero), top)
    for (int r = 0; r < height; r++) {
        const uint8_t *in = src + (size_t)r * src_stride;
        const uint8_t *yr = y + (size_t)r * (size_t)width;
        uint8_t *out = dst + (size_t)r * dst_stride;
        int x = 0;
        for (; x + 8 <= width; x += 8) {
            const __m256i p = _mm256_loadu_si256((const void *)(in + 4 * (size_t)x));
            const __m256i y0 = red ? LUMA8(p, 2) : LUMA8(p, 0);
            const __m256i pr = red ? CH8(p, 2) : CH8(p, 0), pb = red ? CH8(p, 0) : CH8(p, 2);
            const __m256i cr = _mm256_sub_epi32(
                CLAMP8(DESCALE14_8(_mm256_add_epi32(
                    _mm256_mullo_epi32(_mm256_sub_epi32(pr, y0), _mm256_set1_epi32(11682)), off))),
                c128);
            const __m256i cb = _mm256_sub_epi32(
                CLAMP8(DESCALE14_8(_mm256_add_epi32(
                    _mm256_mullo_epi32(_mm256_sub_epi32(pb, y0), _mm256_set1_epi32(9241)), off))),
                c128);
            const __m256i y1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const void *)(yr + x)));
            const __m256i vr = CLAMP8(_mm256_add_epi32(
                y1, DESCALE14_8(_mm256_mullo_epi32(cr, _mm256_set1_epi32(22987)))));
            const __m256i vg = CLAMP8(_mm256_add_epi32(
                y1,
                DESCALE14_8(_mm256_add_epi32(_mm256_mullo_epi32(cb, _mm256_set1_epi32(-5636)),
                                             _mm256_mullo_epi32(cr, _mm256_set1_epi32(-11698))))));
            const __m256i vb = CLAMP8(_mm256_add_epi32(
                y1, DESCALE14_8(_mm256_mullo_epi32(cb, _mm256_set1_epi32(29049)))));
            __m256i word = _mm256_and_si256(p, _mm256_set1_epi32((int)0xff000000u));
            word = _mm256_or_si256(word, _mm256_slli_epi32(vr, 8 * red));
            word = _mm256_or_si256(word, _mm256_slli_epi32(vg, 8));
            word = _mm256_or_si256(word, _mm256_slli_epi32(vb, 8 * blue));
            _mm256_storeu_si256((void *)(out + 4 * (size_t)x), word);
        }
        for (; x < width; x++) {
            const uint8_t *px = in + 4 * (size_t)x;
            uint8_t *o = out + 4 * (size_t)x;
            const int y0 = luma_px(px, red);
            const int cr = clamp255_1(descale14_1((px[red] - y0) * 11682 + (128 << 14))) - 128;
            const int cb = clamp255_1(descale14_1((px[blue] - y0) * 9241 + (128 << 14))) - 128;
            const int y1 = yr[x];
            const uint8_t alpha = px[3];
            o[red] = (uint8_t)clamp255_1(y1 + descale14_1(cr * 22987));
            o[1] = (uint8_t)clamp255_1(y1 + descale14_1(cb * -5636 + cr * -11698));
            o[blue] = (uint8_t)clamp255_1(y1 + descale14_1(cb * 29049));
            o[3] = alpha;
        }
    }
#undef CLAMP8
}
#undef LUMA8
#undef CH8
#undef DESCALE14_8
#endif

void clik__hist_dsp_init_neon(clik_hist_dsp *dsp)
{
    dsp->hist = hist_neon;
    dsp->lut = lut_neon;
    dsp->clahe_luts = clahe_luts_neon;
    dsp->clahe_interp = clahe_interp_neon;
#ifdef CLIK_AVX2
    if (clik_cpu_avx2()) {
        dsp->luma = luma_avx2;
        dsp->luma_merge = luma_merge_avx2;
    }
#endif
}

/*
 * Resize family, NEON: u8 with 1 or 4 channels, all four methods; f32 goes
 * to the scalar code. The geometry (first tap and weights per output column
 * and row) is computed once per call by resize_geometry.c, the code that
 * computes it for the kernels.
 *
 * nearest: an integer factor s along x turns each 16-byte chunk of source
 * pixels into s chunks with table lookups (the pixels repeated in place);
 * other factors gather through the offset table. An output row that takes
 * the same source row as the one above it is a copy of it.
 *
 * bilinear, bicubic: rows as kernels/resize.cl's resize_interp_rows: the
 * horizontal sums of the source rows in use are kept in a ring of `taps`
 * float rows (slot r mod taps holds source row r), so upscaled output rows
 * that share source rows filter them once; the vertical pass then runs
 * along whole rows, 16 elements at a time. Sums follow the oracle's order
 * (scalar/resize.c: tap by tap, left to right, every product rounded on its
 * own), so results agree with it bit for bit; u8 results are rounded to
 * nearest (halves to even) and saturated.
 *
 * Exactly x2 on both axes (kernels/resize.cl's resize_period2_rows): the
 * weights repeat with period 2, so the horizontal pass takes fixed weight
 * vectors, the even and odd outputs of eight source elements at once
 * (clik_f32x8; four for the last ones), interleaved (one channel) or side
 * by side (RGBA), no per-column offsets or weights, the band in spans of
 * source columns; the same sums, the same bytes. On x86 CPUs with AVX2 both
 * passes run in a copy compiled for it (p2_passes_avx2). Bilinear x2 has the exact weights 1/4 and
 * 3/4: 16-bit integers give the oracle's bytes (bilinear_x2_weights). Nearest x2 and x4 repeat
 * pixels by zipping chunks with themselves.
 *
 * u8 results are rounded by adding 1.5 * 2^23 (round_bits): SIMDe on x86
 * without SSE4.1 rounds and converts floats lane by lane.
 *
 * bicubic-aa: the same ring of horizontal sums, of ytaps rows (slot r mod
 * ytaps), with the folded taps of resize_geometry.c (consecutive pixels
 * inside the row, xtaps a multiple of 4): four taps per multiply, products
 * added in float (the oracle sums in double: within U8-FLOAT of it).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"
#include "resize_geometry.h"

/* Every product rounded on its own, also in a GNU C dialect or with
 * -ffp-contract=fast, where GCC would fuse a multiply and an add. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define MAX_TABLE_SCALE 16 /* largest x factor of the table-lookup nearest path */

CLIK_INLINE const uint8_t *src_row(const clik_image *img, int y)
{
    return (const uint8_t *)img->data + (size_t)y * img->stride;
}

CLIK_INLINE uint8_t *dst_row(const clik_image *img, int y)
{
    return (uint8_t *)img->data + (size_t)y * img->stride;
}

/* ---- nearest ----------------------------------------------------------- */

/* Byte b of output chunk k takes byte masks[k][b] of the source chunk. */
static void expand_masks(int ch, int s, uint8x16_t *masks)
{
    for (int k = 0; k < s; k++) {
        uint8_t lanes[16];
        for (int b = 0; b < 16; b++)
            lanes[b] = (uint8_t)((k * 16 + b) / ch / s * ch + (k * 16 + b) % ch);
        masks[k] = vld1q_u8(lanes);
    }
}

static void expand_row(const uint8_t *in, uint8_t *out, int sw, int ch, int s,
                       const uint8x16_t *masks)
{
    const int npix = 16 / ch, full = sw / npix * npix;
    int x = 0;
    for (; x < full; x += npix) {
        const uint8x16_t v = vld1q_u8(in + (size_t)x * ch);
        uint8_t *o = out + (size_t)x * (size_t)s * (size_t)ch;
        for (int k = 0; k < s; k++)
            vst1q_u8(o + 16 * k, vqtbl1q_u8(v, masks[k]));
    }
    for (; x < sw; x++)
        for (int k = 0; k < s; k++)
            memcpy(out + ((size_t)x * s + k) * ch, in + (size_t)x * ch, (size_t)ch);
}

/* Factors 2 and 4: each pixel repeated by zipping a chunk with itself
 * (bytes for one channel, 32-bit lanes for RGBA), once or twice. */
CLIK_INLINE void zip_self(uint8x16_t v, int ch, uint8x16_t *lo, uint8x16_t *hi)
{
    if (ch == 1) {
        *lo = vzip1q_u8(v, v);
        *hi = vzip2q_u8(v, v);
    } else {
        const uint32x4_t w = vreinterpretq_u32_u8(v);
        *lo = vreinterpretq_u8_u32(vzip1q_u32(w, w));
        *hi = vreinterpretq_u8_u32(vzip2q_u32(w, w));
    }
}

static void zip_row(const uint8_t *in, uint8_t *out, int sw, int ch, int s)
{
    const int npix = 16 / ch, full = sw / npix * npix;
    int x = 0;
    for (; x < full; x += npix) {
        uint8x16_t a, b;
        zip_self(vld1q_u8(in + (size_t)x * ch), ch, &a, &b);
        uint8_t *o = out + (size_t)x * (size_t)s * (size_t)ch;
        if (s == 2) {
            vst1q_u8(o, a);
            vst1q_u8(o + 16, b);
        } else {
            uint8x16_t c, d;
            zip_self(a, ch, &c, &d);
            vst1q_u8(o, c);
            vst1q_u8(o + 16, d);
            zip_self(b, ch, &c, &d);
            vst1q_u8(o + 32, c);
            vst1q_u8(o + 48, d);
        }
    }
    for (; x < sw; x++)
        for (int k = 0; k < s; k++)
            memcpy(out + ((size_t)x * s + k) * ch, in + (size_t)x * ch, (size_t)ch);
}

static void gather_row(const uint8_t *in, uint8_t *out, const int32_t *xofs, int dw, int ch)
{
    if (ch == 1) {
        for (int x = 0; x < dw; x++)
            out[x] = in[xofs[x]];
        return;
    }
    for (int x = 0; x < dw; x++)
        memcpy(out + (size_t)x * 4, in + (size_t)xofs[x] * 4, 4);
}

typedef struct row_passes row_passes; /* see below */

/* A resize's images and geometry, shared by its bands. */
typedef struct resize_job {
    const clik_image *src;
    clik_image *dst;
    const clik_resize_geometry *g;
    const row_passes *p;
    int xa, xb; /* columns [xa, xb) have every tap inside the row */
    int p2;     /* exactly x2 on both axes (period2_geometry) */
} resize_job;

static int nearest_rows(void *user, int y0, int y1)
{
    const resize_job *j = user;
    const clik_image *src = j->src, *dst = j->dst;
    const int sw = src->width, dw = dst->width, ch = src->channels;
    const int32_t *xofs = j->g->xofs, *yofs = j->g->yofs;
    const int s = j->g->sx;
    uint8x16_t masks[MAX_TABLE_SCALE];
    if (s >= 1 && s <= MAX_TABLE_SCALE && s != 2 && s != 4)
        expand_masks(ch, s, masks);
    const size_t row_bytes = (size_t)dw * (size_t)ch;
    for (int y = y0; y < y1; y++) {
        uint8_t *out = dst_row(dst, y);
        if (y > y0 && yofs[y] == yofs[y - 1])
            memcpy(out, dst_row(dst, y - 1), row_bytes);
        else if (s == 2 || s == 4)
            zip_row(src_row(src, yofs[y]), out, sw, ch, s);
        else if (s >= 1 && s <= MAX_TABLE_SCALE)
            expand_row(src_row(src, yofs[y]), out, sw, ch, s, masks);
        else
            gather_row(src_row(src, yofs[y]), out, xofs, dw, ch);
    }
    return 0;
}

static int nearest_u8(const clik_image *src, clik_image *dst, const double *scale)
{
    clik_resize_geometry g;
    if (clik__resize_geometry_make(&g, src->width, src->height, dst->width, dst->height, scale,
                                   CLIK_INTERP_NEAREST, 1) != 0)
        return -1;
    resize_job j = {src, dst, &g, NULL, 0, 0, 0};
    const int rc =
        clik__cpu_rows(dst->height, (size_t)dst->width * (size_t)src->channels, nearest_rows, &j);
    clik__resize_geometry_free(&g);
    return rc;
}

/* ---- bilinear and bicubic ---------------------------------------------- */

CLIK_INLINE int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Horizontal sums, one element at a time, taps clamped into the row. */
static void hsum_clamped(const uint8_t *row, int sw, int ch, int taps, const int32_t *xofs,
                         const float *xw, int x0, int x1, float *out)
{
    for (int x = x0; x < x1; x++) {
        const float *w = xw + (size_t)x * (size_t)taps;
        for (int c = 0; c < ch; c++) {
            float s = w[0] * (float)row[(size_t)clamp_index(xofs[x], sw) * ch + c];
            for (int k = 1; k < taps; k++) {
                const float t = w[k] * (float)row[(size_t)clamp_index(xofs[x] + k, sw) * ch + c];
                s += t;
            }
            out[(size_t)x * ch + c] = s;
        }
    }
}

/* Four u8 lanes widened to floats. */
CLIK_INLINE float32x4_t widen_lo(uint16x8_t v)
{
    return vcvtq_f32_u32(vmovl_u16(vget_low_u16(v)));
}

CLIK_INLINE float32x4_t widen_hi(uint16x8_t v)
{
    return vcvtq_f32_u32(vmovl_u16(vget_high_u16(v)));
}

/* RGBA away from the borders: the taps are consecutive pixels, one load. */
static void hsum_rgba(const uint8_t *row, int taps, const int32_t *xofs, const float *xw, int x0,
                      int x1, float *out)
{
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = row + (size_t)xofs[x] * 4;
        const float *w = xw + (size_t)x * (size_t)taps;
        float32x4_t s;
        if (taps == 4) {
            const uint8x16_t v = vld1q_u8(p);
            const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_u8(vget_high_u8(v));
            s = vmulq_n_f32(widen_lo(lo), w[0]);
            s = vaddq_f32(s, vmulq_n_f32(widen_hi(lo), w[1]));
            s = vaddq_f32(s, vmulq_n_f32(widen_lo(hi), w[2]));
            s = vaddq_f32(s, vmulq_n_f32(widen_hi(hi), w[3]));
        } else {
            const uint16x8_t v = vmovl_u8(vld1_u8(p));
            s = vmulq_n_f32(widen_lo(v), w[0]);
            s = vaddq_f32(s, vmulq_n_f32(widen_hi(v), w[1]));
        }
        vst1q_f32(out + (size_t)x * 4, s);
    }
}

/* One channel away from the borders: bicubic multiplies the four taps of
 * an output at once and adds the products in tap order. */
static void hsum_gray(const uint8_t *row, int taps, const int32_t *xofs, const float *xw, int x0,
                      int x1, float *out)
{
    if (taps == 2) {
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = row + xofs[x];
            const float *w = xw + (size_t)x * 2;
            float s = w[0] * (float)p[0];
            const float t = w[1] * (float)p[1];
            out[x] = s + t;
        }
        return;
    }
    for (int x = x0; x < x1; x++) {
        uint32_t q;
        memcpy(&q, row + xofs[x], 4);
        const uint16x8_t v = vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(q)));
        const float32x4_t pr = vmulq_f32(widen_lo(v), vld1q_f32(xw + (size_t)x * 4));
        float s = vgetq_lane_f32(pr, 0) + vgetq_lane_f32(pr, 1);
        s += vgetq_lane_f32(pr, 2);
        s += vgetq_lane_f32(pr, 3);
        out[x] = s;
    }
}

/* u8 of a float: nearest, halves to even, saturated. */
CLIK_INLINE uint8_t to_u8(float v)
{
    return (uint8_t)(v <= 0.0f ? 0.0f : v >= 255.0f ? 255.0f : rintf(v));
}

/* Four floats rounded to nearest, halves to even, by adding 1.5 * 2^23:
 * for |s| < 2^22 the sum's unit is 1, and the low 16 bits of its encoding
 * hold the integer as an int16 (the sums here stay within a few hundred).
 * No rounding or conversion instruction, which SIMDe has only lane by
 * lane without SSE4.1. */
CLIK_INLINE uint32x4_t round_bits(float32x4_t s)
{
    return vreinterpretq_u32_f32(vaddq_f32(s, vdupq_n_f32(12582912.0f)));
}

/* The vertical pass of `taps` rows (2 or 4, a constant where inlined),
 * from element 0 in steps of 16; returns where it stopped. The rows and
 * weights are held in locals: the u8 stores could alias them. */
CLIK_INLINE int vpass_taps(const float *const *h, const float *wy, int taps, int n, uint8_t *out)
{
    const float *r[4] = {h[0], h[1], h[taps > 2 ? 2 : 1], h[taps > 2 ? 3 : 1]};
    const clik_f32x8 zero = {0};
    clik_f32x8 w[4];
    for (int j = 0; j < taps; j++)
        w[j] = zero + wy[j];
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        clik_f32x8 s[2];
        for (int k = 0; k < 2; k++) {
            s[k] = CLIK_LD8(r[0] + i + 8 * k) * w[0];
            for (int j = 1; j < taps; j++)
                s[k] = s[k] + CLIK_LD8(r[j] + i + 8 * k) * w[j];
            s[k] = s[k] + 12582912.0f; /* round_bits */
        }
        uint32x4_t q[4];
        memcpy(q, s, sizeof(s));
        vst1q_u8(out + i, clik_neon_sat_u8x16(q[0], q[1], q[2], q[3]));
    }
    return i;
}

CLIK_INLINE void vpass_body(const float *const *h, const float *wy, int taps, int n, uint8_t *out)
{
    int i = taps == 4 ? vpass_taps(h, wy, 4, n, out) : vpass_taps(h, wy, 2, n, out);
    for (; i < n; i++) {
        float s = wy[0] * h[0][i];
        for (int j = 1; j < taps; j++) {
            const float t = wy[j] * h[j][i];
            s += t;
        }
        out[i] = to_u8(s);
    }
}

static void vpass(const float *const *h, const float *wy, int taps, int n, uint8_t *out)
{
    vpass_body(h, wy, taps, n, out);
}

/* ---- exactly x2 -------------------------------------------------------- */

/* Whether an axis of n source pixels and 2n outputs of `taps` taps has
 * period 2: output 2i takes the taps from i - taps / 2 with the weights of
 * output 0, 2i + 1 those from i - taps / 2 + 1 with the weights of output 1
 * (kernels/resize.cl's resize_period2_rows). */
static int period2_axis(const int32_t *ofs, const float *w, int n, int dn, int taps)
{
    if (dn != 2 * n)
        return 0;
    for (int x = 0; x < dn; x++) {
        if (ofs[x] != x / 2 - taps / 2 + (x & 1))
            return 0;
        for (int k = 0; k < taps; k++)
            if (w[(size_t)x * (size_t)taps + (size_t)k] !=
                w[(size_t)(x & 1) * (size_t)taps + (size_t)k])
                return 0;
    }
    return 1;
}

static int period2_geometry(const clik_resize_geometry *g, int sw, int sh, int dw, int dh)
{
    return period2_axis(g->xofs, g->xw, sw, dw, g->xtaps) &&
           period2_axis(g->yofs, g->yw, sh, dh, g->ytaps);
}

/* Bilinear x2 of u8 images: the weights are then 1/4 and 3/4 (output 2i:
 * 1/4 of pixel i - 1 and 3/4 of pixel i; 2i + 1: 3/4 of i and 1/4 of i + 1;
 * rows alike, the edge pixel standing for those past it), so every float
 * product and sum of the oracle's is exact and its result is S / 16, S the
 * integer sum of the pixels times the products of the weights times 4 (at
 * most 16 * 255): the same bytes from 16-bit integers, rounded halves to
 * even. */
static int bilinear_x2_weights(const clik_resize_geometry *g)
{
    for (int k = 0; k < 4; k++) {
        const float want = k == 0 || k == 3 ? 0.25f : 0.75f;
        if (g->xw[k] != want || g->yw[k] != want)
            return 0;
    }
    return 1;
}

/* S / 16 rounded to nearest, halves to even. */
CLIK_INLINE uint16x8_t up2_round(uint16x8_t s)
{
    const uint16x8_t odd = vandq_u16(vshrq_n_u16(s, 4), vdupq_n_u16(1));
    return vshrq_n_u16(vaddq_u16(vaddq_u16(s, vdupq_n_u16(7)), odd), 4);
}

CLIK_INLINE int up2_round1(int s)
{
    return (s + 7 + ((s >> 4) & 1)) >> 4;
}

/* far + 3 near, 8 elements from p and q. */
CLIK_INLINE uint16x8_t up2_v(uint8x8_t far, uint8x8_t near)
{
    const uint16x8_t n = vmovl_u8(near);
    return vaddq_u16(vaddw_u8(n, far), vshlq_n_u16(n, 1));
}

/* Even and odd outputs of 8 source elements: left, centre and right are
 * the vertical sums at the pixels before, at and after them. */
CLIK_INLINE void up2_h(uint16x8_t left, uint16x8_t centre, uint16x8_t right, uint16x8_t *even,
                       uint16x8_t *odd)
{
    const uint16x8_t c3 = vaddq_u16(centre, vshlq_n_u16(centre, 1));
    *even = up2_round(vaddq_u16(left, c3));
    *odd = up2_round(vaddq_u16(c3, right));
}

/* Output row from the source rows far (weight 1/4) and near (3/4). */
/* Element e of a row's two outputs, one by one: the neighbours past the
 * row's ends are the edge pixels themselves. */
static void up2_element(const uint8_t *far, const uint8_t *near, int n, int ch, int e, uint8_t *out)
{
    const int l = e >= ch ? e - ch : e, r = e + ch < n ? e + ch : e;
    const int vl = far[l] + 3 * near[l], vc = far[e] + 3 * near[e];
    const int vr = far[r] + 3 * near[r];
    const size_t o = (size_t)(e / ch) * 2 * (size_t)ch + (size_t)(e % ch);
    out[o] = (uint8_t)up2_round1(vl + 3 * vc);
    out[o + (size_t)ch] = (uint8_t)up2_round1(3 * vc + vr);
}

static void up2_row(const uint8_t *far, const uint8_t *near, int sw, int ch, uint8_t *out)
{
    const int n = sw * ch;
    int e = 0;
    for (; e < n && (e < ch || e + 16 + ch > n); e++) /* the first pixel */
        up2_element(far, near, n, ch, e, out);
    for (; e + 16 + ch <= n; e += 16) {
        const uint8x16_t fl = vld1q_u8(far + e - ch), fc = vld1q_u8(far + e),
                         fr = vld1q_u8(far + e + ch);
        const uint8x16_t nl = vld1q_u8(near + e - ch), nc = vld1q_u8(near + e),
                         nr = vld1q_u8(near + e + ch);
        uint16x8_t e0, o0, e1, o1;
        up2_h(up2_v(vget_low_u8(fl), vget_low_u8(nl)), up2_v(vget_low_u8(fc), vget_low_u8(nc)),
              up2_v(vget_low_u8(fr), vget_low_u8(nr)), &e0, &o0);
        up2_h(up2_v(vget_high_u8(fl), vget_high_u8(nl)), up2_v(vget_high_u8(fc), vget_high_u8(nc)),
              up2_v(vget_high_u8(fr), vget_high_u8(nr)), &e1, &o1);
        /* The u16 lanes hold bytes: their low halves, in order. */
        const uint8x16_t ev = vuzp1q_u8(vreinterpretq_u8_u16(e0), vreinterpretq_u8_u16(e1));
        const uint8x16_t od = vuzp1q_u8(vreinterpretq_u8_u16(o0), vreinterpretq_u8_u16(o1));
        uint8_t *o = out + 2 * (size_t)e;
        if (ch == 1) {
            vst1q_u8(o, vzip1q_u8(ev, od));
            vst1q_u8(o + 16, vzip2q_u8(ev, od));
        } else {
            const uint32x4_t ew = vreinterpretq_u32_u8(ev), ow = vreinterpretq_u32_u8(od);
            vst1q_u8(o, vreinterpretq_u8_u32(vzip1q_u32(ew, ow)));
            vst1q_u8(o + 16, vreinterpretq_u8_u32(vzip2q_u32(ew, ow)));
        }
    }
    for (; e < n; e++) /* the last pixels */
        up2_element(far, near, n, ch, e, out);
}

#ifdef CLIK_AVX2
/* up2_row on x86 CPUs with AVX2: the same 16-bit sums of 16 source
 * elements a step in one register, the even and odd outputs packed to
 * bytes and put in order by one byte shuffle per 128-bit half. */
CLIK_AVX2 static void up2_row_avx2(const uint8_t *far, const uint8_t *near, int sw, int ch,
                                   uint8_t *out)
{
    const int n = sw * ch;
    const __m256i seven = _mm256_set1_epi16(7), one = _mm256_set1_epi16(1);
    /* per half: the 8 even and 8 odd bytes, interleaved by element (one
     * channel) or by pixel (four) */
    const __m256i order =
        ch == 1 ? _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9,
                                   2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15)
                : _mm256_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15, 0, 1, 2, 3,
                                   8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15);
#define UP2_V(o)                                                                                   \
    _mm256_add_epi16(                                                                              \
        _mm256_cvtepu8_epi16(_mm_loadu_si128((const void *)(far + e + (o)))),                      \
        _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const void *)(near + e + (o)))),  \
                           _mm256_set1_epi16(3)))
#define UP2_ROUND(v)                                                                               \
    _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16((v), seven),                               \
                                       _mm256_and_si256(_mm256_srli_epi16((v), 4), one)),          \
                      4)
    int e = 0;
    for (; e < n && (e < ch || e + 16 + ch > n); e++) /* the first pixel */
        up2_element(far, near, n, ch, e, out);
    for (; e + 16 + ch <= n; e += 16) {
        const __m256i vl = UP2_V(-ch), vc = UP2_V(0), vr = UP2_V(ch);
        const __m256i c3 = _mm256_mullo_epi16(vc, _mm256_set1_epi16(3));
        const __m256i even = UP2_ROUND(_mm256_add_epi16(vl, c3));
        const __m256i odd = UP2_ROUND(_mm256_add_epi16(c3, vr));
        const __m256i packed = _mm256_packus_epi16(even, odd);
        _mm256_storeu_si256((void *)(out + 2 * (size_t)e), _mm256_shuffle_epi8(packed, order));
    }
#undef UP2_V
#undef UP2_ROUND
    for (; e < n; e++) /* the last pixels */
        up2_element(far, near, n, ch, e, out);
}
#endif

static int bilinear_x2_rows(void *user, int y0, int y1)
{
    const resize_job *j = user;
    const clik_image *src = j->src, *dst = j->dst;
    const int sh = src->height;
    void (*row)(const uint8_t *, const uint8_t *, int, int, uint8_t *) = up2_row;
#ifdef CLIK_AVX2
    if (clik_cpu_avx2())
        row = up2_row_avx2;
#endif
    for (int y = y0; y < y1; y++) {
        const int near = y / 2;
        const int far = y & 1 ? (near + 1 < sh ? near + 1 : near) : (near > 0 ? near - 1 : 0);
        row(src_row(src, far), src_row(src, near), src->width, src->channels, dst_row(dst, y));
    }
    return 0;
}

/* Four u8 lanes (widened to 16 bits) as floats, through the signed
 * conversion (one instruction on x86, where SIMDe converts unsigned ones in
 * halves). */
CLIK_INLINE float32x4_t small_lo(uint16x8_t v)
{
    return vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(v))));
}

CLIK_INLINE float32x4_t small_hi(uint16x8_t v)
{
    return vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(v))));
}

/* The horizontal sums of a source row at x2 (period2_geometry) for the
 * outputs of source columns [s0, s1): the pixels s0 - taps / 2 ..
 * s1 + taps / 2 - 1 in floats first (f: (s1 - s0 + taps) * ch floats), the
 * edge pixel standing for those past it, then output 2i from the taps at
 * i - taps / 2 with the weights we, 2i + 1 from those one pixel on with wo,
 * each sum in the oracle's order, into out from output 2 s0 on. One
 * channel: four pixels at a time, the even and odd sums interleaved; RGBA:
 * a pixel at a time. ch and taps are constants where inlined. */
CLIK_INLINE void period2_hsum_body(const uint8_t *row, int sw, int s0, int s1, int ch, int taps,
                                   const float *we, const float *wo, float *f, float *out)
{
    const int half = taps / 2, n = (s1 - s0) * ch;
    for (int k = 0; k < half; k++)
        for (int c = 0; c < ch; c++) {
            f[k * ch + c] = row[(size_t)clamp_index(s0 - half + k, sw) * ch + c];
            f[n + (half + k) * ch + c] = row[(size_t)clamp_index(s1 + k, sw) * ch + c];
        }
    const uint8_t *in = row + (size_t)s0 * ch;
    float *fr = f + half * ch;
    int e = 0;
    for (; e + 16 <= n; e += 16) {
        const uint8x16_t v = vld1q_u8(in + e);
        const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_u8(vget_high_u8(v));
        vst1q_f32(fr + e, small_lo(lo));
        vst1q_f32(fr + e + 4, small_hi(lo));
        vst1q_f32(fr + e + 8, small_lo(hi));
        vst1q_f32(fr + e + 12, small_hi(hi));
    }
    for (; e < n; e++)
        fr[e] = in[e];
    const clik_f32x8 zero = {0};
    clik_f32x8 ve8[4], vo8[4];
    float32x4_t ve[4], vo[4];
    for (int k = 0; k < taps; k++) {
        ve8[k] = zero + we[k];
        vo8[k] = zero + wo[k];
        ve[k] = vdupq_n_f32(we[k]);
        vo[k] = vdupq_n_f32(wo[k]);
    }
    /* F8(k), F(k): the eight or four elements from tap k of the first pixel
     * at element e. */
#define F8(k) CLIK_LD8(f + e + (k)*ch)
    for (e = 0; e + 8 <= n; e += 8) {
        clik_f32x8 a = F8(0) * ve8[0], b = F8(1) * vo8[0];
        for (int k = 1; k < taps; k++) {
            a = a + F8(k) * ve8[k];
            b = b + F8(k + 1) * vo8[k];
        }
        CLIK_ST8(out + 2 * e, ch == 1 ? CLIK_ZIP_LO8(a, b) : CLIK_HALVES_LO8(a, b));
        CLIK_ST8(out + 2 * e + 8, ch == 1 ? CLIK_ZIP_HI8(a, b) : CLIK_HALVES_HI8(a, b));
    }
#undef F8
#define F(k) vld1q_f32(f + e + (k)*ch)
    for (; e + 4 <= n; e += 4) {
        float32x4_t a = vmulq_f32(F(0), ve[0]), b = vmulq_f32(F(1), vo[0]);
        for (int k = 1; k < taps; k++) {
            a = vaddq_f32(a, vmulq_f32(F(k), ve[k]));
            b = vaddq_f32(b, vmulq_f32(F(k + 1), vo[k]));
        }
        if (ch == 1) {
            vst1q_f32(out + 2 * e, vzip1q_f32(a, b));
            vst1q_f32(out + 2 * e + 4, vzip2q_f32(a, b));
        } else {
            vst1q_f32(out + 2 * e, a);
            vst1q_f32(out + 2 * e + 4, b);
        }
    }
#undef F
    for (; e < n; e++) { /* one channel: the last pixels */
        float a = we[0] * f[e], b = wo[0] * f[e + ch];
        for (int k = 1; k < taps; k++) {
            const float ta = we[k] * f[e + k * ch], tb = wo[k] * f[e + (k + 1) * ch];
            a += ta;
            b += tb;
        }
        const size_t o = (size_t)(e / ch) * 2 * (size_t)ch + (size_t)(e % ch);
        out[o] = a;
        out[o + (size_t)ch] = b;
    }
}

/* period2_rows' passes: the horizontal sums (ch and taps constants) and
 * the vertical pass, in baseline code and on x86 in a copy compiled for
 * AVX2 (p2_passes_avx2), picked where the CPU has it. */
typedef struct p2_passes {
    void (*h)(const uint8_t *row, int sw, int s0, int s1, int ch, int taps, const float *we,
              const float *wo, float *f, float *out);
    void (*v)(const float *const *h, const float *wy, int taps, int n, uint8_t *out);
} p2_passes;

#define P2_PASSES(NAME, ATTR)                                                                      \
    ATTR static void NAME##_h(const uint8_t *row, int sw, int s0, int s1, int ch, int taps,        \
                              const float *we, const float *wo, float *f, float *out)              \
    {                                                                                              \
        if (ch == 1 && taps == 4)                                                                  \
            period2_hsum_body(row, sw, s0, s1, 1, 4, we, wo, f, out);                              \
        else if (ch == 1)                                                                          \
            period2_hsum_body(row, sw, s0, s1, 1, 2, we, wo, f, out);                              \
        else if (taps == 4)                                                                        \
            period2_hsum_body(row, sw, s0, s1, 4, 4, we, wo, f, out);                              \
        else                                                                                       \
            period2_hsum_body(row, sw, s0, s1, 4, 2, we, wo, f, out);                              \
    }                                                                                              \
    ATTR static void NAME##_v(const float *const *h, const float *wy, int taps, int n,             \
                              uint8_t *out)                                                        \
    {                                                                                              \
        vpass_body(h, wy, taps, n, out);                                                           \
    }                                                                                              \
    static const p2_passes NAME = {NAME##_h, NAME##_v};

P2_PASSES(p2_passes_base, )
#ifdef CLIK_AVX2
P2_PASSES(p2_passes_avx2, CLIK_AVX2)
#endif

/* ---- bicubic-aa --------------------------------------------------------- */

/* The horizontal sums of a source row for output columns [x0, x1), taps
 * clamped into the row (rows shorter than xtaps: padding taps). */
static void aa_hsum_clamped(const uint8_t *row, int sw, int ch, int taps, const int32_t *xofs,
                            const float *xw, int x0, int x1, float *out)
{
    for (int x = x0; x < x1; x++) {
        const float *w = xw + (size_t)x * (size_t)taps;
        for (int c = 0; c < ch; c++) {
            float s = 0.0f;
            for (int k = 0; k < taps; k++)
                s += w[k] * (float)row[(size_t)clamp_index(xofs[x] + k, sw) * ch + c];
            out[(size_t)x * ch + c] = s;
        }
    }
}

/* One channel: four taps per multiply, then the four lanes added. */
static void aa_hsum_gray(const uint8_t *row, int taps, const int32_t *xofs, const float *xw, int x0,
                         int x1, float *out)
{
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = row + xofs[x];
        const float *w = xw + (size_t)x * (size_t)taps;
        float32x4_t s = vdupq_n_f32(0.0f);
        for (int k = 0; k < taps; k += 4) {
            uint32_t q;
            memcpy(&q, p + k, 4);
            const uint16x8_t v = vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(q)));
            s = vaddq_f32(s, vmulq_f32(widen_lo(v), vld1q_f32(w + k)));
        }
        out[x] = vaddvq_f32(s);
    }
}

/* RGBA: four pixels (16 bytes) per load, each pixel times its weight. */
static void aa_hsum_rgba(const uint8_t *row, int taps, const int32_t *xofs, const float *xw, int x0,
                         int x1, float *out)
{
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = row + (size_t)xofs[x] * 4;
        const float *w = xw + (size_t)x * (size_t)taps;
        float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0;
        for (int k = 0; k < taps; k += 4) {
            const uint8x16_t v = vld1q_u8(p + (size_t)k * 4);
            const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_u8(vget_high_u8(v));
            const float32x4_t wk = vld1q_f32(w + k);
            s0 = vaddq_f32(s0, vmulq_laneq_f32(widen_lo(lo), wk, 0));
            s1 = vaddq_f32(s1, vmulq_laneq_f32(widen_hi(lo), wk, 1));
            s0 = vaddq_f32(s0, vmulq_laneq_f32(widen_lo(hi), wk, 2));
            s1 = vaddq_f32(s1, vmulq_laneq_f32(widen_hi(hi), wk, 3));
        }
        vst1q_f32(out + (size_t)x * 4, vaddq_f32(s0, s1));
    }
}

/* u8 results: to nearest, halves up, a value less than 2^-10 below a half
 * counting as the half (scalar/resize.c), saturated. */
#define AA_HALF 0.5009765625f

CLIK_INLINE uint8_t aa_u8_of(float v)
{
    const float r = floorf(v + AA_HALF);
    return (uint8_t)(r <= 0.0f ? 0.0f : r >= 255.0f ? 255.0f : r);
}

/* Four sums of the vertical pass at element i over the rows h. */
CLIK_INLINE uint16x4_t aa_vsum4(const float *const *h, const float *wy, int taps, int i)
{
    float32x4_t s = vmulq_n_f32(vld1q_f32(h[0] + i), wy[0]);
    for (int j = 1; j < taps; j++)
        s = vaddq_f32(s, vmulq_n_f32(vld1q_f32(h[j] + i), wy[j]));
    /* floor(s + AA_HALF): see aa_u8_of. */
    return vqmovn_u32(vcvtq_u32_f32(vrndmq_f32(vaddq_f32(s, vdupq_n_f32(AA_HALF)))));
}

static void aa_vpass(const float *const *h, const float *wy, int taps, int n, uint8_t *out)
{
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        const uint16x8_t a = vcombine_u16(aa_vsum4(h, wy, taps, i), aa_vsum4(h, wy, taps, i + 4));
        const uint16x8_t b =
            vcombine_u16(aa_vsum4(h, wy, taps, i + 8), aa_vsum4(h, wy, taps, i + 12));
        vst1q_u8(out + i, vcombine_u8(vqmovn_u16(a), vqmovn_u16(b)));
    }
    for (; i < n; i++) {
        float s = 0.0f;
        for (int j = 0; j < taps; j++)
            s += wy[j] * h[j][i];
        out[i] = aa_u8_of(s);
    }
}

/* The passes of a separable resize: the horizontal sums of a source row for
 * output columns [x0, x1) (taps clamped into the row; RGBA and one channel
 * away from the borders) and the vertical pass of an output row. */
struct row_passes {
    void (*clamped)(const uint8_t *row, int sw, int ch, int taps, const int32_t *xofs,
                    const float *xw, int x0, int x1, float *out);
    void (*rgba)(const uint8_t *row, int taps, const int32_t *xofs, const float *xw, int x0, int x1,
                 float *out);
    void (*gray)(const uint8_t *row, int taps, const int32_t *xofs, const float *xw, int x0, int x1,
                 float *out);
    void (*vpass)(const float *const *h, const float *wy, int taps, int n, uint8_t *out);
};

static const row_passes interp_passes = {hsum_clamped, hsum_rgba, hsum_gray, vpass};
static const row_passes aa_passes = {aa_hsum_clamped, aa_hsum_rgba, aa_hsum_gray, aa_vpass};

/* u8 resize by geometry (weights quantized or not): a ring of the
 * horizontal sums of the last ytaps source rows, each row summed once (once
 * per band: rows at a band's edge are summed by both bands). */
static int ring_rows(void *user, int y0, int y1)
{
    const resize_job *jb = user;
    const clik_image *src = jb->src, *dst = jb->dst;
    const clik_resize_geometry *g = jb->g;
    const row_passes *p = jb->p;
    const int sw = src->width, sh = src->height, dw = dst->width;
    const int ch = src->channels, n = dw * ch;
    const int ty = g->ytaps;
    float *ring = malloc(sizeof(float) * (size_t)ty * (size_t)n);
    int *held = malloc(sizeof(int) * (size_t)ty);
    const float **h = malloc(sizeof(float *) * (size_t)ty);
    if (!ring || !held || !h) {
        free(ring);
        free(held);
        free(h);
        return -1;
    }
    for (int j = 0; j < ty; j++)
        held[j] = INT_MIN; /* the source row of each slot; none yet */
    const int xa = jb->xa, xb = jb->xb;
    for (int y = y0; y < y1; y++) {
        for (int j = 0; j < ty; j++) {
            const int r = g->yofs[y] + j, slot = (r % ty + ty) % ty;
            float *hrow = ring + (size_t)slot * (size_t)n;
            h[j] = hrow;
            if (held[slot] == r)
                continue;
            const uint8_t *row = src_row(src, clamp_index(r, sh));
            p->clamped(row, sw, ch, g->xtaps, g->xofs, g->xw, 0, xa, hrow);
            if (ch == 4)
                p->rgba(row, g->xtaps, g->xofs, g->xw, xa, xb, hrow);
            else
                p->gray(row, g->xtaps, g->xofs, g->xw, xa, xb, hrow);
            p->clamped(row, sw, ch, g->xtaps, g->xofs, g->xw, xb, dw, hrow);
            held[slot] = r;
        }
        p->vpass(h, g->yw + (size_t)y * (size_t)ty, ty, n, dst_row(dst, y));
    }
    free(ring);
    free(held);
    free(h);
    return 0;
}

/* Source elements of a span of period2_rows: its ring (at most 4 rows of
 * twice as many floats, 128 KiB) stays in the second-level cache on wide
 * images. */
#define P2_SPAN_ELEMS 4096

/* ring_rows at x2 (period2_geometry): the band in spans of source columns,
 * each with its ring of horizontal sums (period2_hsum), so that the rows
 * in use stay in cache whatever the image's width. Each output row is the
 * vertical pass of ring_rows over each span in turn: the same bytes. */
static int period2_rows(void *user, int y0, int y1)
{
    const resize_job *jb = user;
    const clik_image *src = jb->src, *dst = jb->dst;
    const clik_resize_geometry *g = jb->g;
    const int sw = src->width, sh = src->height, ch = src->channels;
    const int ty = g->ytaps, tx = g->xtaps;
    const int span = P2_SPAN_ELEMS / ch;
    const p2_passes *pass = &p2_passes_base;
#ifdef CLIK_AVX2
    if (clik_cpu_avx2())
        pass = &p2_passes_avx2;
#endif
    const size_t slot_floats = (size_t)2 * (size_t)span * (size_t)ch;
    float *ring = malloc(sizeof(float) * (size_t)ty * slot_floats);
    float *f = malloc(sizeof(float) * (size_t)(span + tx) * (size_t)ch);
    if (!ring || !f) {
        free(ring);
        free(f);
        return -1;
    }
    for (int s0 = 0; s0 < sw; s0 += span) {
        const int s1 = s0 + span < sw ? s0 + span : sw;
        int held[4] = {INT_MIN, INT_MIN, INT_MIN, INT_MIN}; /* source row of each slot */
        const float *h[4];
        for (int y = y0; y < y1; y++) {
            for (int j = 0; j < ty; j++) {
                const int r = g->yofs[y] + j, slot = (r % ty + ty) % ty;
                float *hrow = ring + (size_t)slot * slot_floats;
                h[j] = hrow;
                if (held[slot] == r)
                    continue;
                pass->h(src_row(src, clamp_index(r, sh)), sw, s0, s1, ch, tx, g->xw, g->xw + tx, f,
                        hrow);
                held[slot] = r;
            }
            pass->v(h, g->yw + (size_t)y * (size_t)ty, ty, 2 * (s1 - s0) * ch,
                    dst_row(dst, y) + (size_t)2 * (size_t)s0 * (size_t)ch);
        }
    }
    free(ring);
    free(f);
    return 0;
}

static int ring_u8(const clik_image *src, clik_image *dst, const double *scale, clik_interp method,
                   int quantized, const row_passes *p)
{
    clik_resize_geometry g;
    if (clik__resize_geometry_make(&g, src->width, src->height, dst->width, dst->height, scale,
                                   method, quantized) != 0)
        return -1;
    resize_job j = {src, dst, &g, p, 0, 0, 0};
    clik__resize_interior(&g, dst->width, src->width, &j.xa, &j.xb);
    const size_t work = (size_t)dst->width * (size_t)src->channels * (size_t)(g.xtaps + g.ytaps);
    j.p2 = method != CLIK_INTERP_BICUBIC_AA &&
           period2_geometry(&g, src->width, src->height, dst->width, dst->height);
    const int rc = j.p2 && method == CLIK_INTERP_BILINEAR && bilinear_x2_weights(&g)
                       ? clik__cpu_rows(dst->height, (size_t)dst->width * (size_t)src->channels,
                                        bilinear_x2_rows, &j)
                       : clik__cpu_rows(dst->height, work, j.p2 ? period2_rows : ring_rows, &j);
    clik__resize_geometry_free(&g);
    return rc;
}

void clik__resize_neon(const clik_image *src, clik_image *dst, clik_interp method,
                       const double *scale)
{
    int done = -1;
    if (src->type == CLIK_U8 && (src->channels == 1 || src->channels == 4)) {
        if (method == CLIK_INTERP_NEAREST)
            done = nearest_u8(src, dst, scale);
        else if (method == CLIK_INTERP_BICUBIC_AA)
            done = ring_u8(src, dst, scale, method, 0, &aa_passes);
        else
            done = ring_u8(src, dst, scale, method, 1, &interp_passes);
    }
    /* f32, and the rare case of no memory for the tables: the scalar code. */
    if (done != 0)
        clik__resize_scalar(src, dst, method, scale);
}

void clik__resize_dsp_init_neon(clik_resize_dsp *dsp)
{
    dsp->resize = clik__resize_neon;
}

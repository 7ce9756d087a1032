/*
 * Pyramid family, NEON: u8 and f32 with 1, 2 or 4 channels, bit-identical
 * with the scalar oracle (f32 included: the same products and additions in
 * the same order, see scalar/pyramid.c).
 *
 * Both directions filter one row at a time in two passes through a row of
 * vertical sums. The vertical pass reads whole source rows whose pointers
 * were chosen with reflect-101, so it needs no border code. The few border
 * columns of the horizontal pass are copies of interior vertical sums stored
 * around the row, so the horizontal pass has no border code either and the
 * f32 sums see the same terms in the same order as the oracle's.
 *
 * pyrDown only needs even output columns, so the vertical pass splits the
 * sums of even and odd source columns into two rows (unzipping whole
 * pixels); output pixel x then reads pixel x - 1 and x of both, and x + 1 of
 * the even row, all plain unaligned loads. pyrUp makes the sums for the two
 * output rows of each source row, then the even and odd output pixels of
 * each, zipped back into place.
 *
 * u8 sums fit 16-bit lanes: pyrDown's reach 16 * 16 * 255 = 65280 and
 * pyrUp's 8 * 8 * 255 = 16320, and VRSHRN adds the rounding half.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

/* The f32 sums round every product on its own (see scalar/pyramid.c), which
 * the project's ISO C build gives by default; this keeps it so in a GNU C
 * dialect or with -ffp-contract=fast, where GCC would fuse a * b + c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Spare lanes after each work row: a margin past the last lane any load
 * reaches, which stays within the row's width + 2 pixels. */
#define SLACK 32

/* The start of the block of b elements after the one at i in a row of
 * n >= b elements, n after the last. The last block ends at n, overlapping
 * the one before rather than leaving a tail: the overlapped elements are
 * written twice with the same value. */
CLIK_INLINE size_t next_block(size_t i, size_t n, size_t b)
{
    return i + b == n ? n : i + 2 * b > n ? n - b : i + b;
}

CLIK_INLINE const uint8_t *src_row(const clik_image *img, int y)
{
    return (const uint8_t *)img->data + (size_t)y * img->stride;
}

CLIK_INLINE uint8_t *dst_row(const clik_image *img, int y)
{
    return (uint8_t *)img->data + (size_t)y * img->stride;
}

/* ---- pixel unzip and zip, for whole pixels of ch lanes ------------------ */

CLIK_INLINE void unzip_u8(uint8x16_t a, uint8x16_t b, const int ch, uint8x16_t *even,
                          uint8x16_t *odd)
{
    if (ch == 1) {
        uint8x16x2_t t = vuzpq_u8(a, b);
        *even = t.val[0];
        *odd = t.val[1];
    } else if (ch == 2) {
        uint16x8x2_t t = vuzpq_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b));
        *even = vreinterpretq_u8_u16(t.val[0]);
        *odd = vreinterpretq_u8_u16(t.val[1]);
    } else {
        uint32x4x2_t t = vuzpq_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b));
        *even = vreinterpretq_u8_u32(t.val[0]);
        *odd = vreinterpretq_u8_u32(t.val[1]);
    }
}

CLIK_INLINE void zip_store_u8(uint8_t *p, uint8x16_t even, uint8x16_t odd, const int ch)
{
    if (ch == 1) {
        uint8x16x2_t t = vzipq_u8(even, odd);
        vst1q_u8(p, t.val[0]);
        vst1q_u8(p + 16, t.val[1]);
    } else if (ch == 2) {
        uint16x8x2_t t = vzipq_u16(vreinterpretq_u16_u8(even), vreinterpretq_u16_u8(odd));
        vst1q_u8(p, vreinterpretq_u8_u16(t.val[0]));
        vst1q_u8(p + 16, vreinterpretq_u8_u16(t.val[1]));
    } else {
        uint32x4x2_t t = vzipq_u32(vreinterpretq_u32_u8(even), vreinterpretq_u32_u8(odd));
        vst1q_u8(p, vreinterpretq_u8_u32(t.val[0]));
        vst1q_u8(p + 16, vreinterpretq_u8_u32(t.val[1]));
    }
}

CLIK_INLINE void unzip_f32(float32x4_t a, float32x4_t b, const int ch, float32x4_t *even,
                           float32x4_t *odd)
{
    if (ch == 1) {
        float32x4x2_t t = vuzpq_f32(a, b);
        *even = t.val[0];
        *odd = t.val[1];
    } else if (ch == 2) {
        *even = vcombine_f32(vget_low_f32(a), vget_low_f32(b));
        *odd = vcombine_f32(vget_high_f32(a), vget_high_f32(b));
    } else {
        *even = a;
        *odd = b;
    }
}

CLIK_INLINE void zip_store_f32(float *p, float32x4_t even, float32x4_t odd, const int ch)
{
    if (ch == 1) {
        float32x4x2_t t = vzipq_f32(even, odd);
        vst1q_f32(p, t.val[0]);
        vst1q_f32(p + 4, t.val[1]);
    } else if (ch == 2) {
        vst1q_f32(p, vcombine_f32(vget_low_f32(even), vget_low_f32(odd)));
        vst1q_f32(p + 4, vcombine_f32(vget_high_f32(even), vget_high_f32(odd)));
    } else {
        vst1q_f32(p, even);
        vst1q_f32(p + 4, odd);
    }
}

/* ---- pyrDown ------------------------------------------------------------ */

/*
 * Work rows for pyrDown: the vertical sum of source column c lies at
 * col_sum(c) (pixel c / 2 of the even or the odd row), each row with one
 * pixel in front for column -2 or -1 and the even row one more at its end.
 */
typedef struct down_rows {
    char *even, *odd; /* the element of pixel 0 */
    int ch;
    size_t esize;
} down_rows;

static char *col_sum(const down_rows *w, int c)
{
    /* Pixel floor(c / 2): the border columns -2 and -1 are both pixel -1. */
    ptrdiff_t pixel = c >= 0 ? c / 2 : (c - 1) / 2;
    return (c & 1 ? w->odd : w->even) + pixel * (ptrdiff_t)(w->ch * (int)w->esize);
}

/* The border columns the horizontal pass reads: -2, -1 and, past the right
 * edge, 2 * dw - 1 (when the width is odd) and 2 * dw. */
static void down_fill_borders(const down_rows *w, int sw, int dw)
{
    size_t bytes = (size_t)w->ch * w->esize;
    int cols[4] = {-2, -1, 2 * dw - 1, 2 * dw};
    for (int k = 0; k < 4; k++)
        if (cols[k] < 0 || cols[k] >= sw)
            memcpy(col_sum(w, cols[k]), col_sum(w, clik__reflect101(cols[k], sw)), bytes);
}

CLIK_INLINE uint16x8_t down_taps_u8(uint8x8_t r0, uint8x8_t r1, uint8x8_t r2, uint8x8_t r3,
                                    uint8x8_t r4)
{
    uint16x8_t s = vaddl_u8(r0, r4);
    s = vaddq_u16(s, vshlq_n_u16(vaddl_u8(r1, r3), 2));
    return vmlal_u8(s, r2, vdup_n_u8(6));
}

CLIK_INLINE void down_vertical_u8(const uint8_t *const rows[5], int sw, const int ch,
                                  const down_rows *w)
{
    uint16_t *even = (uint16_t *)(void *)w->even, *odd = (uint16_t *)(void *)w->odd;
    size_t n = (size_t)sw * (size_t)ch, i = 0;
    for (; i + 32 <= n; i += 32) {
        uint8x16_t e[5], o[5];
        for (int j = 0; j < 5; j++)
            unzip_u8(vld1q_u8(rows[j] + i), vld1q_u8(rows[j] + i + 16), ch, &e[j], &o[j]);
        uint16_t *pe = even + i / 2, *po = odd + i / 2;
        vst1q_u16(pe, down_taps_u8(vget_low_u8(e[0]), vget_low_u8(e[1]), vget_low_u8(e[2]),
                                   vget_low_u8(e[3]), vget_low_u8(e[4])));
        vst1q_u16(pe + 8, down_taps_u8(vget_high_u8(e[0]), vget_high_u8(e[1]), vget_high_u8(e[2]),
                                       vget_high_u8(e[3]), vget_high_u8(e[4])));
        vst1q_u16(po, down_taps_u8(vget_low_u8(o[0]), vget_low_u8(o[1]), vget_low_u8(o[2]),
                                   vget_low_u8(o[3]), vget_low_u8(o[4])));
        vst1q_u16(po + 8, down_taps_u8(vget_high_u8(o[0]), vget_high_u8(o[1]), vget_high_u8(o[2]),
                                       vget_high_u8(o[3]), vget_high_u8(o[4])));
    }
    /* The last columns, fewer than 32 bytes, one element at a time. */
    for (; i < n; i++) {
        int c = (int)(i / (size_t)ch), k = (int)(i % (size_t)ch);
        unsigned s = rows[0][i] + 4u * rows[1][i] + 6u * rows[2][i] + 4u * rows[3][i] + rows[4][i];
        ((uint16_t *)(void *)col_sum(w, c))[k] = (uint16_t)s;
    }
}

CLIK_INLINE uint16x8_t down_h_u8(const uint16_t *pe, const uint16_t *po, const int ch)
{
    uint16x8_t s = vaddq_u16(vld1q_u16(pe - ch), vld1q_u16(pe + ch));
    s = vaddq_u16(s, vshlq_n_u16(vaddq_u16(vld1q_u16(po - ch), vld1q_u16(po)), 2));
    return vmlaq_n_u16(s, vld1q_u16(pe), 6);
}

CLIK_INLINE void down_horizontal_u8(const down_rows *w, int dw, const int ch, uint8_t *out)
{
    const uint16_t *even = (const uint16_t *)(const void *)w->even;
    const uint16_t *odd = (const uint16_t *)(const void *)w->odd;
    size_t n = (size_t)dw * (size_t)ch;
    if (n >= 16) {
        for (size_t i = 0; i < n; i = next_block(i, n, 16)) {
            uint8x8_t lo = vrshrn_n_u16(down_h_u8(even + i, odd + i, ch), 8);
            uint8x8_t hi = vrshrn_n_u16(down_h_u8(even + i + 8, odd + i + 8, ch), 8);
            vst1q_u8(out + i, vcombine_u8(lo, hi));
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const uint16_t *e = even + i, *o = odd + i;
        unsigned s = e[-ch] + 4u * o[-ch] + 6u * e[0] + 4u * o[0] + e[ch];
        out[i] = (uint8_t)((s + 128) >> 8);
    }
}

CLIK_INLINE float32x4_t down_taps_f32(const float32x4_t r[5])
{
    /* v = 1 * r0 + 4 * r1 + 6 * r2 + 4 * r3 + 1 * r4, left to right; a
     * product by 1 is exact, so it is left out. */
    float32x4_t v = vaddq_f32(r[0], vmulq_n_f32(r[1], 4.0f));
    v = vaddq_f32(v, vmulq_n_f32(r[2], 6.0f));
    v = vaddq_f32(v, vmulq_n_f32(r[3], 4.0f));
    return vaddq_f32(v, r[4]);
}

CLIK_INLINE void down_vertical_f32(const float *const rows[5], int sw, const int ch,
                                   const down_rows *w)
{
    float *even = (float *)(void *)w->even, *odd = (float *)(void *)w->odd;
    size_t n = (size_t)sw * (size_t)ch, i = 0;
    for (; i + 8 <= n; i += 8) {
        float32x4_t e[5], o[5];
        for (int j = 0; j < 5; j++)
            unzip_f32(vld1q_f32(rows[j] + i), vld1q_f32(rows[j] + i + 4), ch, &e[j], &o[j]);
        vst1q_f32(even + i / 2, down_taps_f32(e));
        vst1q_f32(odd + i / 2, down_taps_f32(o));
    }
    for (; i < n; i++) {
        int c = (int)(i / (size_t)ch), k = (int)(i % (size_t)ch);
        float v = rows[0][i];
        float p = 4.0f * rows[1][i];
        v += p;
        p = 6.0f * rows[2][i];
        v += p;
        p = 4.0f * rows[3][i];
        v += p;
        v += rows[4][i];
        ((float *)(void *)col_sum(w, c))[k] = v;
    }
}

CLIK_INLINE float32x4_t down_h_f32(const float *pe, const float *po, const int ch)
{
    /* Columns 2x - 2, 2x - 1, 2x, 2x + 1, 2x + 2 in this order. */
    float32x4_t h = vaddq_f32(vld1q_f32(pe - ch), vmulq_n_f32(vld1q_f32(po - ch), 4.0f));
    h = vaddq_f32(h, vmulq_n_f32(vld1q_f32(pe), 6.0f));
    h = vaddq_f32(h, vmulq_n_f32(vld1q_f32(po), 4.0f));
    h = vaddq_f32(h, vld1q_f32(pe + ch));
    /* x * 2^-8 rounds the same real number as x / 256. */
    return vmulq_n_f32(h, 1.0f / 256.0f);
}

CLIK_INLINE void down_horizontal_f32(const down_rows *w, int dw, const int ch, float *out)
{
    const float *even = (const float *)(const void *)w->even;
    const float *odd = (const float *)(const void *)w->odd;
    size_t n = (size_t)dw * (size_t)ch;
    if (n >= 4) {
        for (size_t i = 0; i < n; i = next_block(i, n, 4)) {
            vst1q_f32(out + i, down_h_f32(even + i, odd + i, ch));
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const float *e = even + i, *o = odd + i;
        float h = e[-ch];
        float p = 4.0f * o[-ch];
        h += p;
        p = 6.0f * e[0];
        h += p;
        p = 4.0f * o[0];
        h += p;
        h += e[ch];
        out[i] = h / 256.0f;
    }
}

CLIK_INLINE void down_image(const clik_image *src, clik_image *dst, const int ch, const int f32,
                            char *buf, int y0, int y1)
{
    size_t esize = f32 ? sizeof(float) : sizeof(uint16_t);
    size_t row_elems = (size_t)(dst->width + 2) * (size_t)ch + SLACK;
    down_rows w = {buf + (size_t)ch * esize, buf + (row_elems + (size_t)ch) * esize, ch, esize};
    for (int y = y0; y < y1; y++) {
        const uint8_t *rows[5];
        for (int j = 0; j < 5; j++)
            rows[j] = src_row(src, clik__reflect101(2 * y + j - 2, src->height));
        if (f32) {
            const float *r[5];
            for (int j = 0; j < 5; j++)
                r[j] = (const float *)(const void *)rows[j];
            down_vertical_f32(r, src->width, ch, &w);
            down_fill_borders(&w, src->width, dst->width);
            down_horizontal_f32(&w, dst->width, ch, (float *)(void *)dst_row(dst, y));
        } else {
            down_vertical_u8(rows, src->width, ch, &w);
            down_fill_borders(&w, src->width, dst->width);
            down_horizontal_u8(&w, dst->width, ch, dst_row(dst, y));
        }
    }
}

/* ---- pyrUp -------------------------------------------------------------- */

/*
 * Source row y gives output rows 2y and 2y + 1. Row 2y takes source rows
 * a, y, b with weights 1, 6, 1 and row 2y + 1 takes y, b with 4, 4, where
 * a and b are the rows above and below after reflect-101 on the doubled
 * height (at the bottom b is y itself). Columns work alike: output pixels
 * 2x and 2x + 1 of a row of vertical sums V are V[x-1] + 6 V[x] + V[x+1] and
 * 4 V[x] + 4 V[x+1], so V gets one copied pixel on each side.
 */
static int up_neighbour(int x, int delta, int n)
{
    return clik__reflect101(2 * x + 2 * delta, 2 * n) / 2;
}

static void up_fill_borders(char *v, int sw, int ch, size_t esize)
{
    size_t bytes = (size_t)ch * esize;
    memcpy(v - bytes, v + (size_t)up_neighbour(0, -1, sw) * bytes, bytes);
    memcpy(v + (size_t)sw * bytes, v + (size_t)up_neighbour(sw - 1, 1, sw) * bytes, bytes);
}

CLIK_INLINE void up_vertical_u8(const uint8_t *a, const uint8_t *m, const uint8_t *b, size_t n,
                                uint16_t *ve, uint16_t *vo)
{
    if (n >= 16) {
        for (size_t i = 0; i < n; i = next_block(i, n, 16)) {
            uint8x16_t ra = vld1q_u8(a + i), rm = vld1q_u8(m + i), rb = vld1q_u8(b + i);
            uint8x8_t six = vdup_n_u8(6);
            vst1q_u16(ve + i,
                      vmlal_u8(vaddl_u8(vget_low_u8(ra), vget_low_u8(rb)), vget_low_u8(rm), six));
            vst1q_u16(ve + i + 8, vmlal_u8(vaddl_u8(vget_high_u8(ra), vget_high_u8(rb)),
                                           vget_high_u8(rm), six));
            vst1q_u16(vo + i, vshlq_n_u16(vaddl_u8(vget_low_u8(rm), vget_low_u8(rb)), 2));
            vst1q_u16(vo + i + 8, vshlq_n_u16(vaddl_u8(vget_high_u8(rm), vget_high_u8(rb)), 2));
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        ve[i] = (uint16_t)(a[i] + 6u * m[i] + b[i]);
        vo[i] = (uint16_t)(4u * m[i] + 4u * b[i]);
    }
}

/* Output pixels 2x and 2x + 1 for the 8 elements at v. */
CLIK_INLINE uint8x8_t up_even_u8(const uint16_t *v, const int ch)
{
    uint16x8_t s = vaddq_u16(vld1q_u16(v - ch), vld1q_u16(v + ch));
    return vrshrn_n_u16(vmlaq_n_u16(s, vld1q_u16(v), 6), 6);
}

CLIK_INLINE uint8x8_t up_odd_u8(const uint16_t *v, const int ch)
{
    return vrshrn_n_u16(vshlq_n_u16(vaddq_u16(vld1q_u16(v), vld1q_u16(v + ch)), 2), 6);
}

CLIK_INLINE void up_horizontal_u8(const uint16_t *v, int sw, int dw, const int ch, uint8_t *out)
{
    /* dw / 2 whole pairs of output pixels, then a lone even pixel when dw
     * is 2 * sw - 1. */
    size_t n = (size_t)(dw / 2) * (size_t)ch, i = 0;
    if (n >= 16) {
        for (; i < n; i = next_block(i, n, 16)) {
            uint8x16_t e = vcombine_u8(up_even_u8(v + i, ch), up_even_u8(v + i + 8, ch));
            uint8x16_t o = vcombine_u8(up_odd_u8(v + i, ch), up_odd_u8(v + i + 8, ch));
            zip_store_u8(out + 2 * i, e, o, ch);
        }
    }
    for (; i < n; i++) {
        size_t x = i / (size_t)ch, k = i % (size_t)ch;
        const uint16_t *p = v + i;
        unsigned e = p[-ch] + 6u * p[0] + p[ch], o = 4u * p[0] + 4u * p[ch];
        out[2 * x * (size_t)ch + k] = (uint8_t)((e + 32) >> 6);
        out[(2 * x + 1) * (size_t)ch + k] = (uint8_t)((o + 32) >> 6);
    }
    if (dw & 1)
        for (int k = 0; k < ch; k++) {
            const uint16_t *p = v + (size_t)(sw - 1) * (size_t)ch + k;
            unsigned e = p[-ch] + 6u * p[0] + p[ch];
            out[(size_t)(dw - 1) * (size_t)ch + (size_t)k] = (uint8_t)((e + 32) >> 6);
        }
}

CLIK_INLINE float32x4_t up_even_v_f32(float32x4_t a, float32x4_t m, float32x4_t b)
{
    return vaddq_f32(vaddq_f32(a, vmulq_n_f32(m, 6.0f)), b);
}

CLIK_INLINE float32x4_t up_odd_v_f32(float32x4_t m, float32x4_t b)
{
    return vaddq_f32(vmulq_n_f32(m, 4.0f), vmulq_n_f32(b, 4.0f));
}

static float up_even_f32_1(float a, float m, float b)
{
    float p = 6.0f * m;
    float s = a + p;
    return s + b;
}

static float up_odd_f32_1(float m, float b)
{
    float p = 4.0f * m, q = 4.0f * b;
    return p + q;
}

CLIK_INLINE void up_vertical_f32(const float *a, const float *m, const float *b, size_t n,
                                 float *ve, float *vo)
{
    if (n >= 4) {
        for (size_t i = 0; i < n; i = next_block(i, n, 4)) {
            float32x4_t ra = vld1q_f32(a + i), rm = vld1q_f32(m + i), rb = vld1q_f32(b + i);
            vst1q_f32(ve + i, up_even_v_f32(ra, rm, rb));
            vst1q_f32(vo + i, up_odd_v_f32(rm, rb));
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        ve[i] = up_even_f32_1(a[i], m[i], b[i]);
        vo[i] = up_odd_f32_1(m[i], b[i]);
    }
}

CLIK_INLINE void up_horizontal_f32(const float *v, int sw, int dw, const int ch, float *out)
{
    /* x * 2^-6 rounds the same real number as x / 64. */
    const float scale = 1.0f / 64.0f;
    size_t n = (size_t)(dw / 2) * (size_t)ch, i = 0;
    if (n >= 4) {
        for (; i < n; i = next_block(i, n, 4)) {
            float32x4_t l = vld1q_f32(v + i - ch), c = vld1q_f32(v + i), r = vld1q_f32(v + i + ch);
            float32x4_t e = vmulq_n_f32(up_even_v_f32(l, c, r), scale);
            float32x4_t o = vmulq_n_f32(up_odd_v_f32(c, r), scale);
            zip_store_f32(out + 2 * i, e, o, ch);
        }
    }
    for (; i < n; i++) {
        size_t x = i / (size_t)ch, k = i % (size_t)ch;
        const float *p = v + i;
        out[2 * x * (size_t)ch + k] = up_even_f32_1(p[-ch], p[0], p[ch]) / 64.0f;
        out[(2 * x + 1) * (size_t)ch + k] = up_odd_f32_1(p[0], p[ch]) / 64.0f;
    }
    if (dw & 1)
        for (int k = 0; k < ch; k++) {
            const float *p = v + (size_t)(sw - 1) * (size_t)ch + k;
            out[(size_t)(dw - 1) * (size_t)ch + (size_t)k] =
                up_even_f32_1(p[-ch], p[0], p[ch]) / 64.0f;
        }
}

CLIK_INLINE void up_image(const clik_image *src, clik_image *dst, const int ch, const int f32,
                          char *buf, int y0, int y1)
{
    int sw = src->width, sh = src->height;
    size_t esize = f32 ? sizeof(float) : sizeof(uint16_t);
    size_t row_elems = (size_t)(sw + 2) * (size_t)ch + SLACK, n = (size_t)sw * (size_t)ch;
    char *ve = buf + (size_t)ch * esize, *vo = buf + (row_elems + (size_t)ch) * esize;
    for (int y = y0; y < y1; y++) {
        const uint8_t *a = src_row(src, up_neighbour(y, -1, sh)), *m = src_row(src, y);
        const uint8_t *b = src_row(src, up_neighbour(y, 1, sh));
        int odd_row = 2 * y + 1 < dst->height;
        if (f32)
            up_vertical_f32((const float *)(const void *)a, (const float *)(const void *)m,
                            (const float *)(const void *)b, n, (float *)(void *)ve,
                            (float *)(void *)vo);
        else
            up_vertical_u8(a, m, b, n, (uint16_t *)(void *)ve, (uint16_t *)(void *)vo);
        up_fill_borders(ve, sw, ch, esize);
        if (odd_row)
            up_fill_borders(vo, sw, ch, esize);
        if (f32) {
            up_horizontal_f32((const float *)(const void *)ve, sw, dst->width, ch,
                              (float *)(void *)dst_row(dst, 2 * y));
            if (odd_row)
                up_horizontal_f32((const float *)(const void *)vo, sw, dst->width, ch,
                                  (float *)(void *)dst_row(dst, 2 * y + 1));
        } else {
            up_horizontal_u8((const uint16_t *)(const void *)ve, sw, dst->width, ch,
                             dst_row(dst, 2 * y));
            if (odd_row)
                up_horizontal_u8((const uint16_t *)(const void *)vo, sw, dst->width, ch,
                                 dst_row(dst, 2 * y + 1));
        }
    }
}

/* ---- both ----------------------------------------------------------------- */

CLIK_INLINE void pyr_image(const clik_image *src, clik_image *dst, const int up, const int ch,
                           const int f32, char *buf, int y0, int y1)
{
    if (up)
        up_image(src, dst, ch, f32, buf, y0, y1);
    else
        down_image(src, dst, ch, f32, buf, y0, y1);
}

/* Rows [y0, y1) of a pyrDown (up 0: output rows) or a pyrUp (source rows),
 * on code made for each channel count and type. */
static void pyr_band(const clik_image *src, clik_image *dst, int up, char *buf, int y0, int y1)
{
    if (src->type == CLIK_F32) {
        switch (src->channels) {
        case 1: pyr_image(src, dst, up, 1, 1, buf, y0, y1); break;
        case 2: pyr_image(src, dst, up, 2, 1, buf, y0, y1); break;
        default: pyr_image(src, dst, up, 4, 1, buf, y0, y1); break;
        }
    } else {
        switch (src->channels) {
        case 1: pyr_image(src, dst, up, 1, 0, buf, y0, y1); break;
        case 2: pyr_image(src, dst, up, 2, 0, buf, y0, y1); break;
        default: pyr_image(src, dst, up, 4, 0, buf, y0, y1); break;
        }
    }
}

/* A pyrDown or pyrUp and its bands: down takes output rows, up source
 * rows (each gives two output rows); each band has its own work rows. */
typedef struct pyr_job {
    const clik_image *src;
    clik_image *dst;
    size_t row_elems, esize;
    int up;
} pyr_job;

static int pyr_rows(void *user, int y0, int y1)
{
    const pyr_job *j = user;
    char *buf = calloc(2 * j->row_elems, j->esize);
    if (!buf)
        return -1;
    pyr_band(j->src, j->dst, j->up, buf, y0, y1);
    free(buf);
    return 0;
}

/* Runs a pyrDown (up 0) or pyrUp on the NEON code, or returns -1 for the
 * scalar code: formats it does not cover, or no memory for work rows. */
static int pyr_neon(const clik_image *src, clik_image *dst, int up)
{
    const int ch = src->channels, f32 = src->type == CLIK_F32;
    if ((src->type != CLIK_U8 && !f32) || (ch != 1 && ch != 2 && ch != 4))
        return -1;
    const int w = up ? src->width : dst->width;
    pyr_job j = {src, dst, (size_t)(w + 2) * (size_t)ch + SLACK,
                 f32 ? sizeof(float) : sizeof(uint16_t), up};
    const int rows = up ? src->height : dst->height;
    return clik__cpu_rows(rows, (size_t)src->width * (size_t)ch * (up ? 4 : 1), pyr_rows, &j);
}

static void pyramid_down_neon(const clik_image *src, clik_image *dst)
{
    /* The scalar code needs no work rows. */
    if (pyr_neon(src, dst, 0) != 0)
        clik__pyramid_down_scalar(src, dst);
}

static void pyramid_up_neon(const clik_image *src, clik_image *dst)
{
    if (pyr_neon(src, dst, 1) != 0)
        clik__pyramid_up_scalar(src, dst);
}

void clik__pyramid_dsp_init_neon(clik_pyramid_dsp *dsp)
{
    dsp->down = pyramid_down_neon;
    dsp->up = pyramid_up_neon;
}

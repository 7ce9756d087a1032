/*
 * LAPAR model family, NEON: the classification and the per-bucket filter of
 * fallback_cpu/cpu.h (clik_lapar_model_plan), four pixels at a time, each
 * lane in the definition's order of operations (no contraction), so that
 * the buckets are the kernels' and the oracle's (the angle is a pseudo-angle
 * of one division, no atan2) and the filter gives the kernels' float sums;
 * the scalar oracle sums the filter in double.
 *
 * The gradients are planes made once; the structure tensor is separable:
 * row sums into three planes (the pixels of four lanes contiguous where the
 * window stays inside the row), then down the columns, weights broadcast. The filter gathers the
 * four lanes' weights of a tap (each lane its own bucket) against four contiguous pixels of U (one
 * channel), or takes a pixel's four channels in the lanes (RGBA).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

#include "cpu.h"
#include "neon.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static const float *up_row(const clik_image *up, int y)
{
    return (const float *)(const void *)((const char *)up->data + (size_t)y * up->stride);
}

/* red: the channel of red, 0 (RGBA) or 2 (BGRA). */
static float luma_at(const float *row, int x, int ch, int red)
{
    if (ch == 1)
        return row[x];
    const float *p = row + (size_t)x * 4;
    return (0.299f * p[red] + 0.587f * p[1]) + 0.114f * p[2 - red];
}

/* The classification's planes, shared by its bands: four passes over the
 * rows (luma, gradient, row sums, column sums and buckets), each pass's
 * rows independent of one another, so each runs in bands. */
typedef struct classify_job {
    const clik_image *up;
    const clik_lapar_model_plan *p;
    clik_image *buckets;
    int w, h, r;
    float *lum, *gx, *gy, *ra, *rb, *rc; /* ra is lum, reused */
    float wt[9], norm;
} classify_job;

static int luma_rows(void *user, int y0, int y1)
{
    const classify_job *j = user;
    const int w = j->w, red = j->up->order == CLIK_ORDER_BGR ? 2 : 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++)
            j->lum[(size_t)y * w + x] = luma_at(up_row(j->up, y), x, j->up->channels, red);
    return 0;
}

static int gradient_rows(void *user, int y0, int y1)
{
    const classify_job *j = user;
    const int w = j->w, h = j->h;
    const float *lum = j->lum;
    float *gx = j->gx, *gy = j->gy;
    for (int y = y0; y < y1; y++) {
        const float *row = lum + (size_t)y * w;
        const float *above = lum + (size_t)clik__reflect101(y - 1, h) * w;
        const float *below = lum + (size_t)clik__reflect101(y + 1, h) * w;
        for (int x = 0; x < w; x++) {
            gx[(size_t)y * w + x] =
                0.5f * (row[clik__reflect101(x + 1, w)] - row[clik__reflect101(x - 1, w)]);
            gy[(size_t)y * w + x] = 0.5f * (below[x] - above[x]);
        }
    }
    return 0;
}

/* Row sums into three planes. */
static int row_sum_rows(void *user, int y0, int y1)
{
    const classify_job *j = user;
    const int w = j->w, r = j->r;
    const float *gx = j->gx, *gy = j->gy, *wt = j->wt;
    float *ra = j->ra, *rb = j->rb, *rc = j->rc;
    for (int y = y0; y < y1; y++) {
        const size_t row = (size_t)y * (size_t)w;
        for (int x = 0; x < w; x += 4) {
            float32x4_t a = vdupq_n_f32(0.0f), b = a, c = a;
            const int lanes = w - x < 4 ? w - x : 4;
            const int inside = lanes == 4 && x - r >= 0 && x + 3 + r < w;
            for (int i = -r; i <= r; i++) {
                float32x4_t u, v;
                if (inside) {
                    u = vld1q_f32(gx + row + (size_t)(x + i));
                    v = vld1q_f32(gy + row + (size_t)(x + i));
                } else {
                    float lu[4] = {0}, lv[4] = {0};
                    for (int l = 0; l < lanes; l++) {
                        const int xx = clik__reflect101(x + l + i, w);
                        lu[l] = gx[row + (size_t)xx];
                        lv[l] = gy[row + (size_t)xx];
                    }
                    u = vld1q_f32(lu);
                    v = vld1q_f32(lv);
                }
                const float32x4_t wgt = vdupq_n_f32(wt[i + r]);
                a = vaddq_f32(a, vmulq_f32(wgt, vmulq_f32(u, u)));
                b = vaddq_f32(b, vmulq_f32(wgt, vmulq_f32(u, v)));
                c = vaddq_f32(c, vmulq_f32(wgt, vmulq_f32(v, v)));
            }
            float la[4], lb[4], lc[4];
            vst1q_f32(la, a);
            vst1q_f32(lb, b);
            vst1q_f32(lc, c);
            for (int l = 0; l < lanes; l++) {
                ra[row + (size_t)(x + l)] = la[l];
                rb[row + (size_t)(x + l)] = lb[l];
                rc[row + (size_t)(x + l)] = lc[l];
            }
        }
    }
    return 0;
}

/* Steps 4 to 6 (clik__lapar_model_bucket in lapar_model_px.h) of pixels x .. x + lanes - 1
 * of row y from their normalised sums a, b, c, four lanes at once, each
 * lane in the definition's order of operations; the pseudo-angle takes its
 * quadrant's base, numerator and denominator by selects and divides once
 * (the first quadrant's 0.0f + v / (u + v) differs from v / (u + v) only
 * in the sign of a zero, which no edge tells apart), as the kernels do. */
static void buckets4(float32x4_t a, float32x4_t b, float32x4_t c, int x, int y, int lanes,
                     const clik_lapar_model_plan *p, uint16_t *out)
{
    const float32x4_t zero = vdupq_n_f32(0.0f), half = vdupq_n_f32(0.5f);
    const float32x4_t t = vaddq_f32(a, c), d = vsubq_f32(a, c);
    const float32x4_t e = sqrt4(vaddq_f32(vmulq_f32(d, d), vmulq_n_f32(vmulq_f32(b, b), 4.0f)));
    const float32x4_t l1 = vmulq_f32(half, vaddq_f32(t, e));
    float32x4_t l2 = vmulq_f32(half, vsubq_f32(t, e));
    l2 = vbslq_f32(vcgtq_f32(l2, zero), l2, zero);
    const float32x4_t s1 = sqrt4(vbslq_f32(vcgtq_f32(l1, zero), l1, zero)), s2 = sqrt4(l2);
    const uint32x4_t edge = vcgeq_f32(s1, vdupq_n_f32(1e-3f)); /* not flat */
    const float32x4_t coherence = vbslq_f32(edge, div4(vsubq_f32(s1, s2), vaddq_f32(s1, s2)), zero);
    const float32x4_t u = d, v = vmulq_n_f32(b, 2.0f), nu = vnegq_f32(u), nv = vnegq_f32(v);
    const uint32x4_t vpos = vcgeq_f32(v, zero), upos = vcgeq_f32(u, zero);
    const uint32x4_t uneg = vcltq_f32(u, zero);
    const float32x4_t num = vbslq_f32(vpos, vbslq_f32(upos, v, nu), vbslq_f32(uneg, nv, u));
    const float32x4_t den = vbslq_f32(vpos, vbslq_f32(upos, vaddq_f32(u, v), vsubq_f32(v, u)),
                                      vbslq_f32(uneg, vsubq_f32(nu, v), vsubq_f32(u, v)));
    const float32x4_t base = vbslq_f32(vpos, vbslq_f32(upos, zero, vdupq_n_f32(1.0f)),
                                       vbslq_f32(uneg, vdupq_n_f32(2.0f), vdupq_n_f32(3.0f)));
    const float32x4_t pseudo = vbslq_f32(edge, vaddq_f32(base, div4(num, den)), zero);
    uint32x4_t ang = vdupq_n_u32(0), sb = ang, cb = ang;
    for (int m = 0; m < p->angles; m++) /* a true comparison is all ones: minus 1 */
        ang = vsubq_u32(ang, vcleq_f32(vdupq_n_f32(p->angle_edges[m]), pseudo));
    ang = vbslq_u32(vceqq_u32(ang, vdupq_n_u32((uint32_t)p->angles)), vdupq_n_u32(0), ang);
    for (int k = 0; k < p->strengths - 1; k++)
        sb = vsubq_u32(sb, vcleq_f32(vdupq_n_f32(p->strength_edges[k]), s1));
    for (int k = 0; k < p->coherences - 1; k++)
        cb = vsubq_u32(cb, vcleq_f32(vdupq_n_f32(p->coherence_edges[k]), coherence));
    uint32_t la[4], lb[4], lc[4];
    vst1q_u32(la, ang);
    vst1q_u32(lb, sb);
    vst1q_u32(lc, cb);
    for (int l = 0; l < lanes; l++) {
        const int phase = p->phases ? (y % p->scale) * p->scale + (x + l) % p->scale : 0;
        out[x + l] =
            (uint16_t)((((uint32_t)phase * (uint32_t)p->angles + la[l]) * (uint32_t)p->strengths +
                        lb[l]) *
                           (uint32_t)p->coherences +
                       lc[l]);
    }
}

/* Column sums and the buckets. */
static int bucket_rows(void *user, int y0, int y1)
{
    const classify_job *j = user;
    const int w = j->w, h = j->h, r = j->r;
    const float *ra = j->ra, *rb = j->rb, *rc = j->rc, *wt = j->wt;
    const float norm = j->norm;
    const clik_lapar_model_plan *p = j->p;
    const clik_image *buckets = j->buckets;
    for (int y = y0; y < y1; y++) {
        uint16_t *out = (uint16_t *)(void *)((char *)buckets->data + (size_t)y * buckets->stride);
        for (int x = 0; x < w; x += 4) {
            float32x4_t a = vdupq_n_f32(0.0f), b = a, c = a;
            const int lanes = w - x < 4 ? w - x : 4;
            for (int j = -r; j <= r; j++) {
                const size_t o = (size_t)clik__reflect101(y + j, h) * (size_t)w + (size_t)x;
                float32x4_t u = vdupq_n_f32(0.0f), v = u, q = u;
                if (lanes == 4) {
                    u = vld1q_f32(ra + o);
                    v = vld1q_f32(rb + o);
                    q = vld1q_f32(rc + o);
                } else {
                    float lu[4] = {0}, lv[4] = {0}, lq[4] = {0};
                    for (int l = 0; l < lanes; l++) {
                        lu[l] = ra[o + (size_t)l];
                        lv[l] = rb[o + (size_t)l];
                        lq[l] = rc[o + (size_t)l];
                    }
                    u = vld1q_f32(lu);
                    v = vld1q_f32(lv);
                    q = vld1q_f32(lq);
                }
                const float32x4_t wgt = vdupq_n_f32(wt[j + r]);
                a = vaddq_f32(a, vmulq_f32(wgt, u));
                b = vaddq_f32(b, vmulq_f32(wgt, v));
                c = vaddq_f32(c, vmulq_f32(wgt, q));
            }
            buckets4(vmulq_n_f32(a, norm), vmulq_n_f32(b, norm), vmulq_n_f32(c, norm), x, y, lanes,
                     p, out);
        }
    }
    return 0;
}

static int classify_neon(const clik_image *up, const clik_lapar_model_plan *p, clik_image *buckets)
{
    const int w = up->width, h = up->height, n = p->window;
    const size_t px = (size_t)w * (size_t)h;
    classify_job j = {up, p, buckets, w, h, n / 2, NULL, NULL, NULL, NULL, NULL, NULL, {0}, 0.0f};
    j.lum = malloc(px * sizeof(float));
    j.gx = malloc(px * sizeof(float));
    j.gy = malloc(px * sizeof(float));
    j.rb = malloc(px * sizeof(float));
    j.rc = malloc(px * sizeof(float));
    j.ra = j.lum;
    const int rc = j.lum && j.gx && j.gy && j.rb && j.rc ? 0 : -1;
    if (rc == 0) {
        for (int i = 0, ci = 1; i < n; i++) {
            j.wt[i] = (float)ci;
            ci = ci * (n - 1 - i) / (i + 1);
        }
        j.norm = ldexpf(1.0f, -2 * (n - 1));
        clik__cpu_rows(h, (size_t)w * (size_t)up->channels, luma_rows, &j);
        clik__cpu_rows(h, (size_t)w * 2, gradient_rows, &j);
        clik__cpu_rows(h, (size_t)w * 3 * (size_t)n, row_sum_rows, &j);
        clik__cpu_rows(h, (size_t)w * (3 * (size_t)n + 16), bucket_rows, &j);
    }
    free(j.rb);
    free(j.rc);
    free(j.lum);
    free(j.gx);
    free(j.gy);
    return rc;
}

/* The k rows of U (k <= 8) of the filter's window around row y, reflected. */
static void window_rows(const clik_image *up, int k, int y, const float **rows)
{
    for (int r = 0; r < k; r++)
        rows[r] = up_row(up, clik__reflect101(y + r - k / 2, up->height));
}

/* One channel, row y: four pixels at a time, each lane its bucket's weight
 * of the tap; rows: U's k rows of the window (reflected); steps whose
 * window stays inside the row read it without reflection. */
static void filter_grey_row(const clik_image *up, const uint16_t *brow,
                            const clik_lapar_model_plan *p, int y, clik_image *dst)
{
    const int w = up->width, k = p->ksize, kh = k / 2, taps = k * k;
    const float *rows[8];
    window_rows(up, k, y, rows);
    for (int x = 0; x < w; x += 4) {
        const int lanes = w - x < 4 ? w - x : 4;
        const float *f[4];
        for (int l = 0; l < 4; l++)
            f[l] = p->filters + (size_t)brow[x + (l < lanes ? l : 0)] * (size_t)taps;
        float32x4_t sum = vdupq_n_f32(0.0f);
        if (lanes == 4 && x - kh >= 0 && x + 3 + kh < w) {
            for (int r = 0, t = 0; r < k; r++) {
                const float *q = rows[r] + (x - kh);
                for (int c = 0; c < k; c++, t++) {
                    const float wl[4] = {f[0][t], f[1][t], f[2][t], f[3][t]};
                    sum = vaddq_f32(sum, vmulq_f32(vld1q_f32(wl), vld1q_f32(q + c)));
                }
            }
        } else {
            for (int r = 0, t = 0; r < k; r++)
                for (int c = 0; c < k; c++, t++) {
                    const float wl[4] = {f[0][t], f[1][t], f[2][t], f[3][t]};
                    float lu[4] = {0};
                    for (int l = 0; l < lanes; l++)
                        lu[l] = rows[r][clik__reflect101(x + l + c - kh, w)];
                    sum = vaddq_f32(sum, vmulq_f32(vld1q_f32(wl), vld1q_f32(lu)));
                }
        }
        float s[4];
        vst1q_f32(s, sum);
        for (int l = 0; l < lanes; l++)
            store_sample(dst, x + l, y, 0, s[l]);
    }
}

/* RGBA: row y, a pixel at a time, its channels in the lanes; alpha is U's.
 * rows: U's k rows of the window (reflected); pixels whose window stays
 * inside the row read it without reflection. */
static void filter_rgba_row(const clik_image *up, const uint16_t *brow,
                            const clik_lapar_model_plan *p, int y, clik_image *dst)
{
    const int w = up->width, k = p->ksize, kh = k / 2, taps = k * k;
    const float *rows[8];
    window_rows(up, k, y, rows);
    const float *self = up_row(up, y);
    for (int x = 0; x < w; x++) {
        const float *f = p->filters + (size_t)brow[x] * (size_t)taps;
        float32x4_t sum = vdupq_n_f32(0.0f);
        if (x >= kh && x + kh < w) {
            for (int r = 0; r < k; r++, f += k) {
                const float *q = rows[r] + (size_t)(x - kh) * 4;
                for (int c = 0; c < k; c++)
                    sum = vaddq_f32(sum, vmulq_n_f32(vld1q_f32(q + 4 * c), f[c]));
            }
        } else {
            for (int r = 0; r < k; r++, f += k)
                for (int c = 0; c < k; c++)
                    sum = vaddq_f32(
                        sum, vmulq_n_f32(
                                 vld1q_f32(rows[r] + (size_t)clik__reflect101(x + c - kh, w) * 4),
                                 f[c]));
        }
        float s[4];
        vst1q_f32(s, sum);
        for (int c = 0; c < 3; c++)
            store_sample(dst, x, y, c, s[c]);
        store_sample(dst, x, y, 3, self[(size_t)x * 4 + 3]);
    }
}

typedef struct filter_job {
    const clik_image *up, *buckets;
    const clik_lapar_model_plan *p;
    clik_image *dst;
} filter_job;

/* Output rows [y0, y1) of the filter. */
static int filter_rows(void *user, int y0, int y1)
{
    const filter_job *j = user;
    const clik_image *up = j->up, *buckets = j->buckets;
    const clik_lapar_model_plan *p = j->p;
    clik_image *dst = j->dst;
    for (int y = y0; y < y1; y++) {
        const uint16_t *brow = (const uint16_t *)(const void *)((const char *)buckets->data +
                                                                (size_t)y * buckets->stride);
        if (up->channels == 4)
            filter_rgba_row(up, brow, p, y, dst);
        else
            filter_grey_row(up, brow, p, y, dst);
    }
    return 0;
}

static int filter_neon(const clik_image *up, const clik_image *buckets,
                       const clik_lapar_model_plan *p, clik_image *dst)
{
    filter_job j = {up, buckets, p, dst};
    const size_t taps = (size_t)p->ksize * (size_t)p->ksize;
    return clik__cpu_rows(up->height, (size_t)up->width * (size_t)up->channels * taps, filter_rows,
                          &j);
}

void clik__lapar_model_dsp_init_neon(clik_lapar_model_dsp *dsp)
{
    dsp->classify = classify_neon;
    dsp->filter = filter_neon;
}

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

/* After the pragmas: steps 4 to 6 without contraction too. */
#include "lapar_model_px.h"

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
            float la[4], lb[4], lc[4];
            vst1q_f32(la, vmulq_n_f32(a, norm));
            vst1q_f32(lb, vmulq_n_f32(b, norm));
            vst1q_f32(lc, vmulq_n_f32(c, norm));
            for (int l = 0; l < lanes; l++)
                out[x + l] = (uint16_t)clik__lapar_model_bucket(la[l], lb[l], lc[l], x + l, y, p);
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

/* One channel: four pixels, each lane its bucket's weight of the tap. */
static void filter_grey(const clik_image *up, const uint16_t *brow, const clik_lapar_model_plan *p,
                        int x, int y, int lanes, clik_image *dst)
{
    const int w = up->width, h = up->height, k = p->ksize, kh = k / 2, taps = k * k;
    const float *f[4];
    for (int l = 0; l < 4; l++)
        f[l] = p->filters + (size_t)brow[x + (l < lanes ? l : 0)] * (size_t)taps;
    const int inside = lanes == 4 && x - kh >= 0 && x + 3 + kh < w;
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (int r = 0; r < k; r++) {
        const float *row = up_row(up, clik__reflect101(y + r - kh, h));
        for (int c = 0; c < k; c++) {
            const int t = r * k + c;
            const float wl[4] = {f[0][t], f[1][t], f[2][t], f[3][t]};
            float32x4_t u;
            if (inside) {
                u = vld1q_f32(row + (x + c - kh));
            } else {
                float lu[4] = {0};
                for (int l = 0; l < lanes; l++)
                    lu[l] = row[clik__reflect101(x + l + c - kh, w)];
                u = vld1q_f32(lu);
            }
            sum = vaddq_f32(sum, vmulq_f32(vld1q_f32(wl), u));
        }
    }
    float s[4];
    vst1q_f32(s, sum);
    for (int l = 0; l < lanes; l++)
        store_sample(dst, x + l, y, 0, s[l]);
}

/* RGBA: one pixel, its channels in the lanes; alpha is U's. */
static void filter_rgba(const clik_image *up, const uint16_t *brow, const clik_lapar_model_plan *p,
                        int x, int y, clik_image *dst)
{
    const int w = up->width, h = up->height, k = p->ksize, kh = k / 2;
    const float *f = p->filters + (size_t)brow[x] * (size_t)(k * k);
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (int r = 0; r < k; r++) {
        const float *row = up_row(up, clik__reflect101(y + r - kh, h));
        for (int c = 0; c < k; c++)
            sum = vaddq_f32(
                sum, vmulq_n_f32(vld1q_f32(row + (size_t)clik__reflect101(x + c - kh, w) * 4),
                                 f[r * k + c]));
    }
    float s[4];
    vst1q_f32(s, sum);
    for (int c = 0; c < 3; c++)
        store_sample(dst, x, y, c, s[c]);
    store_sample(dst, x, y, 3, up_row(up, y)[(size_t)x * 4 + 3]);
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
    const int w = up->width;
    for (int y = y0; y < y1; y++) {
        const uint16_t *brow = (const uint16_t *)(const void *)((const char *)buckets->data +
                                                                (size_t)y * buckets->stride);
        if (up->channels == 4) {
            for (int x = 0; x < w; x++)
                filter_rgba(up, brow, p, x, y, dst);
        } else {
            for (int x = 0; x < w; x += 4)
                filter_grey(up, brow, p, x, y, w - x < 4 ? w - x : 4, dst);
        }
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

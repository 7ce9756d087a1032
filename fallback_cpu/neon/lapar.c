/*
 * LAPAR family, NEON: the upsample U and the LAPAR filter in float, with
 * the kernels' order of operations (kernels/lapar.cl), so that U and the
 * output are the kernels' bits; the scalar oracle computes in double.
 *
 * U is separable: each source row's horizontal sums at every output column
 * are made once (h rows, W' x channels floats per source row), then each
 * output row is the weighted sum of four of them, contiguous, four floats a
 * step. The filter reads U from a copy with two reflected pixels on every
 * side, so a pixel's 5 x 5 patch is five rows of plain loads. F is
 * assembled four pixels at a time (the planes of phi are contiguous along a
 * row): 13 vectors for centrally symmetric atoms, whose pairs of taps share
 * a weight, else 25. One-channel images take the dot product four pixels at
 * a time; RGBA images pixel by pixel, the channels in the lanes. Alpha is
 * carried over from the source pixel, neither interpolated nor filtered.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "half.h"
#include "neon.h"
#include "resize_geometry.h"

/* Every product is rounded before it is added, as in the kernels. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define TAPS CLIK_LAPAR_TAPS

/* ---- the upsample ---------------------------------------------------------------- */

/* The weights of the scale's phases, as lib/ops/lapar.c gives the kernels:
 * Keys' kernel (A = -0.75, clik__cubic_weights) at t, t's of output x = r,
 * in double. */
static void phase_weights(int s, float *wt)
{
    const double step = 1.0 / (double)s;
    for (int r = 0; r < s; r++) {
        const double f = ((double)r + 0.5) * step - 0.5;
        double w[4];
        clik__cubic_weights(f - floor(f), w);
        for (int k = 0; k < 4; k++)
            wt[4 * r + k] = (float)w[k];
    }
}

/* First source tap of output coordinate x (before clamping); *w the offset
 * of its weights. */
static int first_tap(int x, int s, int *w)
{
    const int i = x / s, r = x - i * s;
    *w = 4 * r;
    return i - 1 - (2 * r + 1 < s);
}

static int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Alpha of output (x, y) of an RGBA image: the source pixel's own. */
static float lr_alpha(const clik_image *lr, int s, int x, int y)
{
    const char *row = (const char *)lr->data + (size_t)(y / s) * lr->stride;
    const size_t i = (size_t)(x / s) * 4 + 3;
    return lr->type == CLIK_U8 ? (float)((const uint8_t *)row)[i]
                               : ((const float *)(const void *)row)[i];
}

/* The horizontal sums of every source row at every output column:
 * h[(y * W' + x) * ch + c] = wx0 p(c0) + wx1 p(c1) + wx2 p(c2) + wx3 p(c3).
 * NULL when out of memory. */
static float *h_rows(const clik_image *lr, int s, const float *wt)
{
    const int lw = lr->width, lh = lr->height, ch = lr->channels, w = lw * s;
    float *h = malloc((size_t)w * (size_t)lh * (size_t)ch * sizeof(float));
    float *line = malloc((size_t)lw * (size_t)ch * sizeof(float));
    int *cols = malloc((size_t)w * 5 * sizeof(int));
    if (!h || !line || !cols) {
        free(h);
        free(line);
        free(cols);
        return NULL;
    }
    for (int x = 0; x < w; x++) {
        int wo;
        const int x0 = first_tap(x, s, &wo);
        for (int k = 0; k < 4; k++)
            cols[5 * x + k] = clamp_index(x0 + k, lw) * ch;
        cols[5 * x + 4] = wo;
    }
    for (int y = 0; y < lh; y++) {
        clik_neon_load_row_f32(lr, y, (size_t)lr->width * (size_t)lr->channels, line);
        float *out = h + (size_t)y * (size_t)w * (size_t)ch;
        if (ch == 4) {
            for (int x = 0; x < w; x++) {
                const int *c = cols + 5 * x;
                const float *wx = wt + c[4];
                float32x4_t v = vmulq_n_f32(vld1q_f32(line + c[0]), wx[0]);
                v = vaddq_f32(v, vmulq_n_f32(vld1q_f32(line + c[1]), wx[1]));
                v = vaddq_f32(v, vmulq_n_f32(vld1q_f32(line + c[2]), wx[2]));
                v = vaddq_f32(v, vmulq_n_f32(vld1q_f32(line + c[3]), wx[3]));
                vst1q_f32(out + 4 * x, v);
            }
            continue;
        }
        int x = 0;
        for (; x + 4 <= w; x += 4) {
            float p[4][4], q[4][4];
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 4; k++) {
                    p[k][i] = line[cols[5 * (x + i) + k]];
                    q[k][i] = wt[cols[5 * (x + i) + 4] + k];
                }
            float32x4_t v = vmulq_f32(vld1q_f32(q[0]), vld1q_f32(p[0]));
            for (int k = 1; k < 4; k++)
                v = vaddq_f32(v, vmulq_f32(vld1q_f32(q[k]), vld1q_f32(p[k])));
            vst1q_f32(out + x, v);
        }
        for (; x < w; x++) {
            const int *c = cols + 5 * x;
            const float *wx = wt + c[4];
            float v = wx[0] * line[c[0]];
            for (int k = 1; k < 4; k++)
                v += wx[k] * line[c[k]];
            out[x] = v;
        }
    }
    free(line);
    free(cols);
    return h;
}

/* Output row y of U from the h rows into out (W' x ch floats). */
static void v_row(const float *h, const clik_image *lr, int s, const float *wt, int y, float *out)
{
    const int ch = lr->channels;
    const size_t n = (size_t)lr->width * (size_t)s * (size_t)ch;
    int wo;
    const int y0 = first_tap(y, s, &wo);
    const float *wy = wt + wo;
    const float *r[4];
    for (int k = 0; k < 4; k++)
        r[k] = h + (size_t)clamp_index(y0 + k, lr->height) * n;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float32x4_t v = vmulq_n_f32(vld1q_f32(r[0] + i), wy[0]);
        v = vaddq_f32(v, vmulq_n_f32(vld1q_f32(r[1] + i), wy[1]));
        v = vaddq_f32(v, vmulq_n_f32(vld1q_f32(r[2] + i), wy[2]));
        v = vaddq_f32(v, vmulq_n_f32(vld1q_f32(r[3] + i), wy[3]));
        vst1q_f32(out + i, v);
    }
    for (; i < n; i++) {
        float v = wy[0] * r[0][i];
        for (int k = 1; k < 4; k++)
            v += wy[k] * r[k][i];
        out[i] = v;
    }
}

typedef struct upsample_job {
    const clik_image *lr;
    int scale;
    clik_image *dst;
    const float *wt, *h; /* the phase weights, the horizontal pass */
} upsample_job;

/* Output rows [y0, y1): the vertical pass of the horizontal one. */
static int upsample_rows(void *user, int y0, int y1)
{
    const upsample_job *j = user;
    const clik_image *lr = j->lr, *dst = j->dst;
    for (int y = y0; y < y1; y++) {
        float *out = (float *)(void *)((char *)dst->data + (size_t)y * dst->stride);
        v_row(j->h, lr, j->scale, j->wt, y, out);
        if (lr->channels == 4)
            for (int x = 0; x < dst->width; x++)
                out[4 * x + 3] = lr_alpha(lr, j->scale, x, y);
    }
    return 0;
}

static void lapar_upsample_neon(const clik_image *lr, int scale, clik_image *dst)
{
    float wt[16];
    phase_weights(scale, wt);
    float *h = h_rows(lr, scale, wt);
    if (!h) {
        /* Out of memory: the oracle, which needs less. */
        clik_lapar_dsp scalar;
        clik__lapar_dsp_init_scalar(&scalar);
        scalar.upsample(lr, scale, dst);
        return;
    }
    upsample_job j = {lr, scale, dst, wt, h};
    clik__cpu_rows(dst->height, (size_t)dst->width * (size_t)dst->channels * 4, upsample_rows, &j);
    free(h);
}

/* ---- the filter --------------------------------------------------------------------- */

/* U with two reflected pixels on every side: (W' + 4) x (H' + 4) x ch. */
static float *padded_u(const clik_image *lr, int s, const float *wt)
{
    const int w = lr->width * s, h = lr->height * s, ch = lr->channels;
    const size_t pitch = (size_t)(w + 4) * (size_t)ch;
    float *hr = h_rows(lr, s, wt);
    float *u = malloc(pitch * (size_t)(h + 4) * sizeof(float));
    if (!hr || !u) {
        free(hr);
        free(u);
        return NULL;
    }
    for (int y = 0; y < h; y++) {
        float *row = u + (size_t)(y + 2) * pitch;
        v_row(hr, lr, s, wt, y, row + 2 * ch);
        for (int k = 1; k <= 2; k++) {
            memcpy(row + (size_t)(2 - k) * (size_t)ch,
                   row + (size_t)(2 + clik__reflect101(-k, w)) * (size_t)ch,
                   (size_t)ch * sizeof(float));
            memcpy(row + (size_t)(w + 1 + k) * (size_t)ch,
                   row + (size_t)(2 + clik__reflect101(w - 1 + k, w)) * (size_t)ch,
                   (size_t)ch * sizeof(float));
        }
    }
    for (int k = 1; k <= 2; k++) {
        memcpy(u + (size_t)(2 - k) * pitch, u + (size_t)(2 + clik__reflect101(-k, h)) * pitch,
               pitch * sizeof(float));
        memcpy(u + (size_t)(h + 1 + k) * pitch,
               u + (size_t)(2 + clik__reflect101(h - 1 + k, h)) * pitch, pitch * sizeof(float));
    }
    free(hr);
    return u;
}

/* Four consecutive values of a row of phi as floats. */
static float32x4_t phi4(const clik_image *phi, int row, int x)
{
    const char *p = (const char *)phi->data + (size_t)row * phi->stride;
    if (phi->type == CLIK_F16)
        return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)(const void *)p + x)));
    return vld1q_f32((const float *)(const void *)p + x);
}

/* One value of phi as a float (IEEE half: normal, subnormal, inf, NaN). */
static float phi1(const clik_image *phi, int row, int x)
{
    const char *p = (const char *)phi->data + (size_t)row * phi->stride;
    if (phi->type == CLIK_F32)
        return ((const float *)(const void *)p)[x];
    return clik__half_to_float(((const uint16_t *)(const void *)p)[x]);
}

/* The taps the atoms of a plan use, per term: the 12 pair weights and the
 * centre (symmetric), or all 25. */
static int weights_of(const clik_lapar_plan *plan, int sym, int j, float *a)
{
    const int n = sym ? 13 : TAPS;
    for (int k = 0; k < n; k++)
        a[k] = plan->atom[j][k];
    return n;
}

/* F of pixels x .. x + 3 of row y into f4, f[k] lane i for pixel x + i;
 * or, f4 NULL, F of pixel x into f1. */
static void assemble(const clik_image *phi, const clik_lapar_plan *plan, int sym, int h, int y,
                     int x, float32x4_t *f4, float *f1)
{
    float a[TAPS];
    for (int j = 0; j < plan->count; j++) {
        const int n = weights_of(plan, sym, j, a), row = plan->plane[j] * h + y;
        if (f4) {
            const float32x4_t p = phi4(phi, row, x);
            for (int k = 0; k < n; k++)
                f4[k] = j == 0 ? vmulq_n_f32(p, a[k]) : vaddq_f32(f4[k], vmulq_n_f32(p, a[k]));
        } else {
            const float p = phi1(phi, row, x);
            for (int k = 0; k < n; k++)
                f1[k] = j == 0 ? p * a[k] : f1[k] + p * a[k];
        }
    }
}

/* <F, patch> for the one-channel pixels x .. x + 3: row r of the patch is
 * u[r] + x (padded coordinates). */
static float32x4_t dot4(const float32x4_t *f, int sym, const float *const *u, int x)
{
#define U4(r, c) vld1q_f32(u[r] + x + (c))
    float32x4_t s;
    if (sym) {
        s = vmulq_f32(f[0], vaddq_f32(U4(0, 0), U4(4, 4)));
        for (int k = 1; k < 12; k++)
            s = vaddq_f32(s,
                          vmulq_f32(f[k], vaddq_f32(U4(k / 5, k % 5), U4(4 - k / 5, 4 - k % 5))));
        return vaddq_f32(s, vmulq_f32(f[12], U4(2, 2)));
    }
    s = vmulq_f32(f[0], U4(0, 0));
    for (int k = 1; k < TAPS; k++)
        s = vaddq_f32(s, vmulq_f32(f[k], U4(k / 5, k % 5)));
    return s;
#undef U4
}

/* The same for one RGBA pixel at x (padded coordinates x .. x + 4). */
static float32x4_t dot_rgba(const float *f, int sym, const float *const *u, int x)
{
#define UP(r, c) vld1q_f32(u[r] + 4 * (x + (c)))
    float32x4_t s;
    if (sym) {
        s = vmulq_n_f32(vaddq_f32(UP(0, 0), UP(4, 4)), f[0]);
        for (int k = 1; k < 12; k++)
            s = vaddq_f32(s,
                          vmulq_n_f32(vaddq_f32(UP(k / 5, k % 5), UP(4 - k / 5, 4 - k % 5)), f[k]));
        return vaddq_f32(s, vmulq_n_f32(UP(2, 2), f[12]));
    }
    s = vmulq_n_f32(UP(0, 0), f[0]);
    for (int k = 1; k < TAPS; k++)
        s = vaddq_f32(s, vmulq_n_f32(UP(k / 5, k % 5), f[k]));
    return s;
#undef UP
}

/* One one-channel pixel (the tail of a row). */
static float dot1(const float *f, int sym, const float *const *u, int x)
{
#define U1(r, c) u[r][x + (c)]
    float s;
    if (sym) {
        s = f[0] * (U1(0, 0) + U1(4, 4));
        for (int k = 1; k < 12; k++)
            s += f[k] * (U1(k / 5, k % 5) + U1(4 - k / 5, 4 - k % 5));
        return s + f[12] * U1(2, 2);
    }
    s = f[0] * U1(0, 0);
    for (int k = 1; k < TAPS; k++)
        s += f[k] * U1(k / 5, k % 5);
    return s;
#undef U1
}

typedef struct filter_job {
    const clik_image *lr, *phi;
    const clik_lapar_plan *plan;
    clik_image *dst;
    const float *u; /* padded_u */
} filter_job;

/* Output rows [y0, y1) of the filter. */
static int filter_rows(void *user, int y0, int y1)
{
    const filter_job *j = user;
    const clik_image *lr = j->lr, *phi = j->phi;
    const clik_lapar_plan *plan = j->plan;
    clik_image *dst = j->dst;
    const float *u = j->u;
    const int w = dst->width, h = dst->height, ch = dst->channels, sym = plan->symmetric;
    const size_t pitch = (size_t)(w + 4) * (size_t)ch;
    for (int y = y0; y < y1; y++) {
        const float *rows[5];
        for (int r = 0; r < 5; r++)
            rows[r] = u + (size_t)(y + r) * pitch;
        int x = 0;
        for (; x + 4 <= w; x += 4) {
            float32x4_t f[TAPS];
            assemble(phi, plan, sym, h, y, x, f, NULL);
            if (ch == 1) {
                float out[4];
                vst1q_f32(out, dot4(f, sym, rows, x));
                for (int i = 0; i < 4; i++)
                    store_sample(dst, x + i, y, 0, out[i]);
                continue;
            }
            float lanes[TAPS][4];
            for (int k = 0; k < (sym ? 13 : TAPS); k++)
                vst1q_f32(lanes[k], f[k]);
            for (int i = 0; i < 4; i++) {
                float fi[TAPS], out[4];
                for (int k = 0; k < (sym ? 13 : TAPS); k++)
                    fi[k] = lanes[k][i];
                vst1q_f32(out, dot_rgba(fi, sym, rows, x + i));
                for (int c = 0; c < 3; c++)
                    store_sample(dst, x + i, y, c, out[c]);
                store_sample(dst, x + i, y, 3, lr_alpha(lr, plan->scale, x + i, y));
            }
        }
        for (; x < w; x++) {
            float f[TAPS];
            assemble(phi, plan, sym, h, y, x, NULL, f);
            if (ch == 1) {
                store_sample(dst, x, y, 0, dot1(f, sym, rows, x));
                continue;
            }
            float out[4];
            vst1q_f32(out, dot_rgba(f, sym, rows, x));
            for (int c = 0; c < 3; c++)
                store_sample(dst, x, y, c, out[c]);
            store_sample(dst, x, y, 3, lr_alpha(lr, plan->scale, x, y));
        }
    }
    return 0;
}

static int lapar_filter_neon(const clik_image *lr, const clik_image *phi,
                             const clik_lapar_plan *plan, clik_image *dst)
{
    float wt[16];
    phase_weights(plan->scale, wt);
    float *u = padded_u(lr, plan->scale, wt);
    if (!u)
        return -1;
    filter_job j = {lr, phi, plan, dst, u};
    clik__cpu_rows(dst->height, (size_t)dst->width * (size_t)dst->channels * (size_t)plan->count,
                   filter_rows, &j);
    free(u);
    return 0;
}

void clik__lapar_dsp_init_neon(clik_lapar_dsp *dsp)
{
    dsp->upsample = lapar_upsample_neon;
    dsp->filter = lapar_filter_neon;
}

/*
 * Optical flow family, scalar: the oracle for TV-L1 optical flow, written
 * step by step after the IPOL reference (Sanchez Perez, Meinhardt-Llopis,
 * Facciolo, "TV-L1 Optical Flow Estimation", IPOL 2013, tvl1flow_lib.c,
 * bicubic_interpolation.c, zoom.c, mask.c): the same float arrays, loops and
 * formulas, double where the reference computes in double (the
 * normalisation, the bicubic interpolation, the Gaussian weights, hypot).
 * Where this code departs from the reference, it says so:
 *
 *  - The stopping test runs after every CLIK_FLOW_CHECK_EVERY-th iteration
 *    (the reference: after every one), and sums the squared changes in
 *    double (the reference: in float), so that every path stops at the same
 *    iteration.
 *  - The Gaussian smoothing is the library's blur (clik__blur_scalar, border
 *    reflect-101 at both ends; the reference repeats the last pixel at the
 *    right and bottom ends) with the reference's taps, which lib/ops/flow.c
 *    computes once into the plan for every path.
 *  - The divergence, the gradients and the interpolation taps are written
 *    as one rule for every pixel: at the borders they give the reference's
 *    values (up to the order of one float addition), and they stay defined
 *    for sides of 1 and 2, where the reference reads outside its arrays.
 *  - The warp samples with the reference's bicubic_interpolation_at and
 *    border_out set: its taps are (int)x - 1 .. (int)x + 2 for x >= 0, and
 *    any tap outside the image gives 0, so a sample is 0 unless
 *    1 <= x < W - 2 and 1 <= y < H - 2 (negative points always leave the
 *    image there). Non-finite points give 0 instead of the reference's
 *    undefined conversion.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpu.h"

/* The reference's values with each float operation rounded on its own. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* image_normalization and gaussian (the library's blur): flow_px.h. */
#include "flow_px.h"

#define GRAD_IS_ZERO 1e-10

/* ---- bicubic interpolation (bicubic_interpolation.c) ------------------------------------- */

static double cubic_interpolation_cell(const double v[4], double x)
{
    return v[1] + 0.5 * x *
                      (v[2] - v[0] +
                       x * (2.0 * v[0] - 5.0 * v[1] + 4.0 * v[2] - v[3] +
                            x * (3.0 * (v[1] - v[2]) + v[3] - v[0])));
}

/* p[i][j]: tap i across, j down. */
static double bicubic_interpolation_cell(const double p[4][4], double x, double y)
{
    double v[4];
    for (int i = 0; i < 4; i++)
        v[i] = cubic_interpolation_cell(p[i], y);
    return cubic_interpolation_cell(v, x);
}

static int clamp(int v, int n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* The reference's bicubic_interpolation_at without border_out, for a point
 * with x, y >= 0 (the zooms): taps (int)x - 1 .. (int)x + 2, clamped. */
static float bicubic_clamped(const float *img, int w, int h, float x, float y)
{
    const int ix = (int)x, iy = (int)y;
    double p[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            p[i][j] = img[(size_t)clamp(iy - 1 + j, h) * (size_t)w + (size_t)clamp(ix - 1 + i, w)];
    return (float)bicubic_interpolation_cell(p, x - (float)ix, y - (float)iy);
}

/* The same with border_out: 0 unless every tap lies inside (see the top). */
static float bicubic_inside(const float *img, int w, int h, float x, float y)
{
    if (!(x >= 1.0f && x < (float)(w - 2) && y >= 1.0f && y < (float)(h - 2)))
        return 0.0f;
    return bicubic_clamped(img, w, h, x, y);
}

/* ---- zooms (zoom.c) -------------------------------------------------------------------- */

/* out (ow x oh) = img (w x h) sampled at (x / fx, y / fy), times scale (1:
 * none), as zoom_out (fx = fy = zoom, after the smoothing) and zoom_in
 * (fx = ow / w, fy = oh / h) sample. */
static void resample(const float *img, int w, int h, float *out, int ow, int oh, float fx, float fy,
                     float scale)
{
    for (int i1 = 0; i1 < oh; i1++)
        for (int j1 = 0; j1 < ow; j1++) {
            const float i2 = (float)i1 / fy, j2 = (float)j1 / fx;
            float g = bicubic_clamped(img, w, h, j2, i2);
            if (scale != 1.0f)
                g *= scale;
            out[(size_t)i1 * (size_t)ow + (size_t)j1] = g;
        }
}

/* zoom_out: smooth a copy with the plan's taps of sigma 0.6 sqrt(1 / zoom^2
 * - 1), then sample it at (x / zoom, y / zoom). 0, or -1 when out of
 * memory. */
static int zoom_out(const float *img, int w, int h, float *out, int ow, int oh,
                    const clik_flow_plan *plan)
{
    const float zoom = plan->zoom;
    float *tmp = clik__flow_floats((size_t)w * (size_t)h);
    if (!tmp)
        return -1;
    memcpy(tmp, img, (size_t)w * (size_t)h * sizeof(float));
    const int rc =
        clik__flow_smooth(tmp, w, h, plan->taps_zoom, plan->ksize_zoom, clik__blur_scalar);
    if (rc == 0)
        resample(tmp, w, h, out, ow, oh, zoom, zoom, 1.0f);
    free(tmp);
    return rc;
}

/* ---- the numerical scheme on one level (Dual_TVL1_optic_flow) ---------------------------- */

static void centered_gradient(const float *in, float *dx, float *dy, int nx, int ny)
{
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) {
            const size_t k = (size_t)i * (size_t)nx + (size_t)j;
            const float *row = in + (size_t)i * (size_t)nx;
            dx[k] = (float)(0.5 * (row[clamp(j + 1, nx)] - row[clamp(j - 1, nx)]));
            dy[k] = (float)(0.5 * (in[(size_t)clamp(i + 1, ny) * (size_t)nx + (size_t)j] -
                                   in[(size_t)clamp(i - 1, ny) * (size_t)nx + (size_t)j]));
        }
}

static void warp(const float *in, const float *u1, const float *u2, float *out, int nx, int ny)
{
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) {
            const size_t p = (size_t)i * (size_t)nx + (size_t)j;
            const float uu = (float)j + u1[p], vv = (float)i + u2[p];
            out[p] = bicubic_inside(in, nx, ny, uu, vv);
        }
}

/* div = d/dx v1 + d/dy v2 by backward differences, the field taken as 0
 * before the first and on the last column (row). */
static void divergence(const float *v1, const float *v2, float *div, int nx, int ny)
{
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) {
            const size_t p = (size_t)i * (size_t)nx + (size_t)j;
            const float a = j < nx - 1 ? v1[p] : 0.0f, b = j > 0 ? v1[p - 1] : 0.0f;
            const float c = i < ny - 1 ? v2[p] : 0.0f, d = i > 0 ? v2[p - (size_t)nx] : 0.0f;
            const float v1x = a - b, v2y = c - d;
            div[p] = v1x + v2y;
        }
}

/* Forward differences, 0 on the last column (row). */
static void forward_gradient(const float *f, float *fx, float *fy, int nx, int ny)
{
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) {
            const size_t p = (size_t)i * (size_t)nx + (size_t)j;
            fx[p] = j < nx - 1 ? f[p + 1] - f[p] : 0.0f;
            fy[p] = i < ny - 1 ? f[p + (size_t)nx] - f[p] : 0.0f;
        }
}

enum {
    I1X,
    I1Y,
    I1W,
    I1WX,
    I1WY,
    RHO_C,
    V1,
    V2,
    P11,
    P12,
    P21,
    P22,
    DIV,
    GRAD,
    DIV_P1,
    DIV_P2,
    U1X,
    U1Y,
    U2X,
    U2Y,
    NARRAYS
};

/* One level: warps of the iterations on u1, u2 (in place). ran[w] gets the
 * iterations of warp w; done: the warps of the levels before. 0, -1 when
 * out of memory, or -2 when the progress callback stopped the run. */
static int dual_tvl1(const float *I0, const float *I1, float *u1, float *u2, int nx, int ny,
                     const clik_flow_plan *plan, int *ran, int done)
{
    const size_t size = (size_t)nx * (size_t)ny;
    const float tau = plan->tau, lambda = plan->lambda, theta = plan->theta;
    const float epsilon = plan->epsilon;
    const float l_t = lambda * theta;
    float *a[NARRAYS];
    int ok = 1;
    for (int i = 0; i < NARRAYS; i++)
        ok &= (a[i] = clik__flow_floats(size)) != NULL;
    if (!ok) {
        for (int i = 0; i < NARRAYS; i++)
            free(a[i]);
        return -1;
    }
    float *I1x = a[I1X], *I1y = a[I1Y], *I1w = a[I1W], *I1wx = a[I1WX], *I1wy = a[I1WY];
    float *rho_c = a[RHO_C], *v1 = a[V1], *v2 = a[V2], *grad = a[GRAD];
    float *p11 = a[P11], *p12 = a[P12], *p21 = a[P21], *p22 = a[P22];
    float *div_p1 = a[DIV_P1], *div_p2 = a[DIV_P2];
    float *u1x = a[U1X], *u1y = a[U1Y], *u2x = a[U2X], *u2y = a[U2Y];

    centered_gradient(I1, I1x, I1y, nx, ny);
    for (size_t i = 0; i < size; i++)
        p11[i] = p12[i] = p21[i] = p22[i] = 0.0f;

    int rc = 0;
    for (int warpings = 0; warpings < plan->warps && rc == 0; warpings++) {
        warp(I1, u1, u2, I1w, nx, ny);
        warp(I1x, u1, u2, I1wx, nx, ny);
        warp(I1y, u1, u2, I1wy, nx, ny);
        for (size_t i = 0; i < size; i++) {
            const float Ix2 = I1wx[i] * I1wx[i];
            const float Iy2 = I1wy[i] * I1wy[i];
            grad[i] = Ix2 + Iy2;
            rho_c[i] = I1w[i] - I1wx[i] * u1[i] - I1wy[i] * u2[i] - I0[i];
        }

        int n = 0;
        float error = INFINITY;
        while (error > epsilon * epsilon && n < plan->iterations) {
            n++;
            const int check = n % CLIK_FLOW_CHECK_EVERY == 0;
            /* the thresholding step (V) */
            for (size_t i = 0; i < size; i++) {
                const float rho = rho_c[i] + (I1wx[i] * u1[i] + I1wy[i] * u2[i]);
                float d1, d2;
                if (rho < -l_t * grad[i]) {
                    d1 = l_t * I1wx[i];
                    d2 = l_t * I1wy[i];
                } else if (rho > l_t * grad[i]) {
                    d1 = -l_t * I1wx[i];
                    d2 = -l_t * I1wy[i];
                } else if (grad[i] < GRAD_IS_ZERO) {
                    d1 = d2 = 0.0f;
                } else {
                    const float fi = -rho / grad[i];
                    d1 = fi * I1wx[i];
                    d2 = fi * I1wy[i];
                }
                v1[i] = u1[i] + d1;
                v2[i] = u2[i] + d2;
            }
            /* the divergence of p, and u */
            divergence(p11, p12, div_p1, nx, ny);
            divergence(p21, p22, div_p2, nx, ny);
            double sum = 0.0;
            for (size_t i = 0; i < size; i++) {
                const float u1k = u1[i], u2k = u2[i];
                u1[i] = v1[i] + theta * div_p1[i];
                u2[i] = v2[i] + theta * div_p2[i];
                const double d1 = (double)u1[i] - u1k, d2 = (double)u2[i] - u2k;
                sum += d1 * d1 + d2 * d2;
            }
            if (check)
                error = (float)(sum / (double)size);
            /* the dual variable p, with the forward gradient of u */
            forward_gradient(u1, u1x, u1y, nx, ny);
            forward_gradient(u2, u2x, u2y, nx, ny);
            const float taut = tau / theta;
            for (size_t i = 0; i < size; i++) {
                const float g1 = (float)hypot(u1x[i], u1y[i]);
                const float g2 = (float)hypot(u2x[i], u2y[i]);
                const float ng1 = (float)(1.0 + taut * g1);
                const float ng2 = (float)(1.0 + taut * g2);
                p11[i] = (p11[i] + taut * u1x[i]) / ng1;
                p12[i] = (p12[i] + taut * u1y[i]) / ng1;
                p21[i] = (p21[i] + taut * u2x[i]) / ng2;
                p22[i] = (p22[i] + taut * u2y[i]) / ng2;
            }
            if (check && clik__flow_stop(plan, done + warpings, n)) {
                rc = -2;
                break;
            }
        }
        ran[warpings] = n;
        if (rc == 0 && clik__flow_stop(plan, done + warpings + 1, 0))
            rc = -2;
    }
    for (int i = 0; i < NARRAYS; i++)
        free(a[i]);
    return rc;
}

/* ---- the pyramid (Dual_TVL1_optic_flow_multiscale) ---------------------------------------- */

static int tvl1_scalar(const clik_image *i0, const clik_image *i1, clik_image *flow,
                       const clik_flow_plan *plan)
{
    const int n = plan->scales;
    float *I0s[CLIK_FLOW_MAX_SCALES] = {0}, *I1s[CLIK_FLOW_MAX_SCALES] = {0};
    float *u1s[CLIK_FLOW_MAX_SCALES] = {0}, *u2s[CLIK_FLOW_MAX_SCALES] = {0};
    int ok = 1;
    for (int s = 0; s < n && ok; s++) {
        const size_t size = (size_t)plan->width[s] * (size_t)plan->height[s];
        ok = (I0s[s] = clik__flow_floats(size)) && (I1s[s] = clik__flow_floats(size)) &&
             (u1s[s] = clik__flow_floats(size)) && (u2s[s] = clik__flow_floats(size));
    }
    const int nx = plan->width[0], ny = plan->height[0];
    ok = ok && clik__flow_level0(i0, i1, plan, I0s[0], I1s[0], 1, clik__blur_scalar) == 0;
    for (int s = 1; s < n && ok; s++) {
        const int w = plan->width[s - 1], h = plan->height[s - 1];
        ok = zoom_out(I0s[s - 1], w, h, I0s[s], plan->width[s], plan->height[s], plan) == 0 &&
             zoom_out(I1s[s - 1], w, h, I1s[s], plan->width[s], plan->height[s], plan) == 0;
    }
    /* The flow to start from: 0, or the initial flow brought down the
     * levels (sampled as the images are, without the smoothing) and
     * scaled by zoom at each. */
    const int last = n - 1;
    if (ok && plan->initial) {
        for (int y = 0; y < ny; y++) {
            const float *row =
                (const float *)(const void *)((const char *)flow->data + (size_t)y * flow->stride);
            for (int x = 0; x < nx; x++) {
                u1s[0][(size_t)y * (size_t)nx + (size_t)x] = row[2 * x];
                u2s[0][(size_t)y * (size_t)nx + (size_t)x] = row[2 * x + 1];
            }
        }
        for (int s = 1; s < n; s++) {
            const int w = plan->width[s - 1], h = plan->height[s - 1];
            resample(u1s[s - 1], w, h, u1s[s], plan->width[s], plan->height[s], plan->zoom,
                     plan->zoom, plan->zoom);
            resample(u2s[s - 1], w, h, u2s[s], plan->width[s], plan->height[s], plan->zoom,
                     plan->zoom, plan->zoom);
        }
    } else if (ok) {
        const size_t size = (size_t)plan->width[last] * (size_t)plan->height[last];
        for (size_t i = 0; i < size; i++)
            u1s[last][i] = u2s[last][i] = 0.0f;
    }
    int stopped = 0;
    for (int s = last; s >= 0 && ok; s--) {
        const int rc =
            dual_tvl1(I0s[s], I1s[s], u1s[s], u2s[s], plan->width[s], plan->height[s], plan,
                      plan->iterations_run + (size_t)(last - s) * (size_t)plan->warps,
                      (last - s) * plan->warps);
        stopped = rc == -2;
        ok = rc == 0;
        if (!ok || s == 0)
            break;
        /* zoom_in, then the scale 1 / zoom */
        const int w = plan->width[s], h = plan->height[s];
        const int ow = plan->width[s - 1], oh = plan->height[s - 1];
        const float fx = (float)ow / (float)w, fy = (float)oh / (float)h;
        const float inv = 1.0f / plan->zoom;
        resample(u1s[s], w, h, u1s[s - 1], ow, oh, fx, fy, 1.0f);
        resample(u2s[s], w, h, u2s[s - 1], ow, oh, fx, fy, 1.0f);
        for (size_t i = 0; i < (size_t)ow * (size_t)oh; i++) {
            u1s[s - 1][i] *= inv;
            u2s[s - 1][i] *= inv;
        }
    }
    if (ok)
        for (int y = 0; y < ny; y++) {
            float *row = (float *)(void *)((char *)flow->data + (size_t)y * flow->stride);
            for (int x = 0; x < nx; x++) {
                row[2 * x] = u1s[0][(size_t)y * (size_t)nx + (size_t)x];
                row[2 * x + 1] = u2s[0][(size_t)y * (size_t)nx + (size_t)x];
            }
        }
    for (int s = 0; s < n; s++) {
        free(I0s[s]);
        free(I1s[s]);
        free(u1s[s]);
        free(u2s[s]);
    }
    return ok ? 0 : stopped ? -2 : -1;
}

/* ---- clik_flow_warp ---------------------------------------------------------------- */

/* Pixel x of row y of clik_flow_warp into out (src's channels), the
 * arithmetic of lib/clik.h step by step; with ref, averaged with it. */
void clik__flow_warp_pixel(const clik_image *src, const float *f, int x, int y, const uint8_t *ref,
                           uint8_t *out)
{
    const int w = src->width, h = src->height, ch = src->channels;
    const float sx = fminf(fmaxf((float)x + f[0], -1.0f), (float)w);
    const float sy = fminf(fmaxf((float)y + f[1], -1.0f), (float)h);
    const float fx = floorf(sx), fy = floorf(sy);
    const float a = sx - fx, b = sy - fy;
    const int x0 = (int)fx, y0 = (int)fy;
    const size_t xa = (size_t)clamp_index(x0, w) * (size_t)ch;
    const size_t xb = (size_t)clamp_index(x0 + 1, w) * (size_t)ch;
    const uint8_t *r0 = (const uint8_t *)src->data + (size_t)clamp_index(y0, h) * src->stride;
    const uint8_t *r1 = (const uint8_t *)src->data + (size_t)clamp_index(y0 + 1, h) * src->stride;
    for (int c = 0; c < ch; c++) {
        const float p00 = r0[xa + (size_t)c], p01 = r0[xb + (size_t)c];
        const float p10 = r1[xa + (size_t)c], p11 = r1[xb + (size_t)c];
        const float t0 = fmaf(a, p01 - p00, p00), t1 = fmaf(a, p11 - p10, p10);
        int v = (int)rintf(fmaf(b, t1 - t0, t0));
        if (ref)
            v = (v + ref[c] + 1) >> 1;
        out[c] = (uint8_t)v;
    }
}

static void remap_scalar(const clik_image *src, const clik_image *flow, const clik_image *ref,
                         clik_image *dst)
{
    const int ch = src->channels;
    for (int y = 0; y < src->height; y++) {
        const float *f = (const float *)((const uint8_t *)flow->data + (size_t)y * flow->stride);
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        const uint8_t *mix = ref ? (const uint8_t *)ref->data + (size_t)y * ref->stride : NULL;
        for (int x = 0; x < src->width; x++)
            clik__flow_warp_pixel(src, f + 2 * (size_t)x, x, y,
                                  mix ? mix + (size_t)x * (size_t)ch : NULL,
                                  out + (size_t)x * (size_t)ch);
    }
}

void clik__flow_dsp_init_scalar(clik_flow_dsp *dsp)
{
    dsp->tvl1 = tvl1_scalar;
    dsp->warp = remap_scalar;
}

/*
 * Optical flow family, NEON: TV-L1 with the oracle's scheme
 * (scalar/flow.c) in single precision, operation for operation as
 * kernels/flow.cl computes it: bicubic sampling and the normalisation in
 * float, |grad u| as sqrt(x^2 + y^2), the stopping test after every
 * CLIK_FLOW_CHECK_EVERY-th iteration.
 *
 * The U step (thresholding, divergence, update of u) and the P step (forward
 * gradient, dual update) run along each row four pixels at a time where no
 * lane touches a border (the first and last columns go one by one); the
 * first and last rows take zero vectors for the missing neighbours. The
 * warp samples each plane's 4 x 4 taps as four row vectors, the cubic down
 * the rows on the four columns at once, then across. With plan->f16 the
 * fields u and p are stored as IEEE half floats (VCVT; SIMDe converts
 * lane by lane on x86). The smoothing is the NEON blur (clik__blur_neon)
 * with the plan's taps (lib/ops/flow.c). clik_flow_warp's remap runs four
 * pixels at a time, and on x86 CPUs with AVX2 and FMA eight, its taps
 * gathered (remap_rows_avx2).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

/* Every product is rounded before it is added, as in the kernels. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "flow_px.h"

#define GRAD_IS_ZERO 1e-10f

/* ---- storage of u and p: float or half ------------------------------------------------- */

typedef struct field {
    void *data; /* float or uint16_t (half) elements */
    int half;
} field;

CLIK_INLINE float32x4_t ld4(field f, size_t i)
{
    if (f.half)
        return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)f.data + i)));
    return vld1q_f32((const float *)f.data + i);
}

CLIK_INLINE void st4(field f, size_t i, float32x4_t v)
{
    if (f.half)
        vst1_u16((uint16_t *)f.data + i, vreinterpret_u16_f16(vcvt_f16_f32(v)));
    else
        vst1q_f32((float *)f.data + i, v);
}

CLIK_INLINE float ld1(field f, size_t i)
{
    if (!f.half)
        return ((const float *)f.data)[i];
    const uint16x4_t h = vdup_n_u16(((const uint16_t *)f.data)[i]);
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(h)), 0);
}

CLIK_INLINE void st1(field f, size_t i, float v)
{
    if (f.half)
        ((uint16_t *)f.data)[i] =
            vget_lane_u16(vreinterpret_u16_f16(vcvt_f16_f32(vdupq_n_f32(v))), 0);
    else
        ((float *)f.data)[i] = v;
}

/* Plane k of a field of planes of n elements. */
static field plane(field f, int k, size_t n)
{
    field p = f;
    p.data = f.half ? (void *)((uint16_t *)f.data + (size_t)k * n)
                    : (void *)((float *)f.data + (size_t)k * n);
    return p;
}

/* ---- bicubic sampling --------------------------------------------------------------------- */

static float cubic(float v0, float v1, float v2, float v3, float x)
{
    return v1 +
           0.5f * x *
               (v2 - v0 +
                x * (2.0f * v0 - 5.0f * v1 + 4.0f * v2 - v3 + x * (3.0f * (v1 - v2) + v3 - v0)));
}

/* The same on four columns at once. */
CLIK_INLINE float32x4_t cubic4(float32x4_t v0, float32x4_t v1, float32x4_t v2, float32x4_t v3,
                               float x)
{
    const float32x4_t a = vsubq_f32(vmulq_n_f32(v0, 2.0f), vmulq_n_f32(v1, 5.0f));
    const float32x4_t b = vsubq_f32(vaddq_f32(a, vmulq_n_f32(v2, 4.0f)), v3);
    const float32x4_t c = vsubq_f32(vaddq_f32(vmulq_n_f32(vsubq_f32(v1, v2), 3.0f), v3), v0);
    const float32x4_t inner = vaddq_f32(b, vmulq_n_f32(c, x));
    const float32x4_t outer = vaddq_f32(vsubq_f32(v2, v0), vmulq_n_f32(inner, x));
    return vaddq_f32(v1, vmulq_n_f32(outer, 0.5f * x));
}

static int clampi(int v, int n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* A plane at (x, y), x, y >= 0, taps clamped: down the columns, then across. */
static float bicubic_clamped(const float *img, int w, int h, float x, float y)
{
    const int ix = (int)x, iy = (int)y;
    const float tx = x - (float)ix, ty = y - (float)iy;
    float v[4];
    for (int i = 0; i < 4; i++) {
        const size_t c = (size_t)clampi(ix - 1 + i, w);
        float t[4];
        for (int j = 0; j < 4; j++)
            t[j] = img[(size_t)clampi(iy - 1 + j, h) * (size_t)w + c];
        v[i] = cubic(t[0], t[1], t[2], t[3], ty);
    }
    return cubic(v[0], v[1], v[2], v[3], tx);
}

/* 4 x 4 taps from k (top left), all inside: four row vectors. */
static float bicubic_rows(const float *plane, size_t k, int w, float tx, float ty)
{
    const float32x4_t v =
        cubic4(vld1q_f32(plane + k), vld1q_f32(plane + k + (size_t)w),
               vld1q_f32(plane + k + 2 * (size_t)w), vld1q_f32(plane + k + 3 * (size_t)w), ty);
    return cubic(vgetq_lane_f32(v, 0), vgetq_lane_f32(v, 1), vgetq_lane_f32(v, 2),
                 vgetq_lane_f32(v, 3), tx);
}

/* out (ow x oh) = img at (x / fx, y / fy), times scale (1: none). */
static void resample(const float *img, int w, int h, float *out, int ow, int oh, float fx, float fy,
                     float scale)
{
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            float g = bicubic_clamped(img, w, h, (float)x / fx, (float)y / fy);
            if (scale != 1.0f)
                g *= scale;
            out[(size_t)y * (size_t)ow + (size_t)x] = g;
        }
}

/* The same for the two planes of a stored flow. */
static int resample_flow(field src, int w, int h, field dst, int ow, int oh, float fx, float fy,
                         float scale)
{
    const size_t n = (size_t)w * (size_t)h, on = (size_t)ow * (size_t)oh;
    float *tmp = clik__flow_floats(n);
    if (!tmp)
        return -1;
    float *out = clik__flow_floats(on);
    if (!out) {
        free(tmp);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        const field s = plane(src, k, n), d = plane(dst, k, on);
        for (size_t i = 0; i < n; i++)
            tmp[i] = ld1(s, i);
        resample(tmp, w, h, out, ow, oh, fx, fy, scale);
        for (size_t i = 0; i < on; i++)
            st1(d, i, out[i]);
    }
    free(tmp);
    free(out);
    return 0;
}

/* ---- one level ----------------------------------------------------------------------------- */

typedef struct level_work {
    int w, h;
    size_t n;
    float *gx, *gy;         /* centred gradient of I1 */
    float *ix, *iy, *rho_c; /* the warp data */
    field u, p;             /* u1 u2; p11 p12 p21 p22 */
    float theta, l_t, taut;
    double *row_e;              /* h entries: the U step's squared changes of each row */
    const float *i0, *i1, *img; /* the level's images; the image whose gradient is taken */
} level_work;

/* Rows [y0, y1) of the gradient of L->img. */
static int gradient_rows(void *user, int y0, int y1)
{
    level_work *L = user;
    const float *img = L->img;
    const int w = L->w, h = L->h;
    for (int y = y0; y < y1; y++) {
        const float *row = img + (size_t)y * (size_t)w;
        const float *up = img + (size_t)clampi(y - 1, h) * (size_t)w;
        const float *down = img + (size_t)clampi(y + 1, h) * (size_t)w;
        for (int x = 0; x < w; x++) {
            L->gx[(size_t)y * (size_t)w + (size_t)x] =
                0.5f * (row[clampi(x + 1, w)] - row[clampi(x - 1, w)]);
            L->gy[(size_t)y * (size_t)w + (size_t)x] = 0.5f * (down[x] - up[x]);
        }
    }
    return 0;
}

/* Rows [y0, y1) of the warp of L->i1 by u. */
static int warp_rows(void *user, int y0, int y1)
{
    level_work *L = user;
    const float *i0 = L->i0, *i1 = L->i1;
    const int w = L->w, h = L->h;
    const field u1 = plane(L->u, 0, L->n), u2 = plane(L->u, 1, L->n);
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            const float a = ld1(u1, i), b = ld1(u2, i);
            const float xx = (float)x + a, yy = (float)y + b;
            float iw = 0.0f, gx = 0.0f, gy = 0.0f;
            if (xx >= 1.0f && xx < (float)(w - 2) && yy >= 1.0f && yy < (float)(h - 2)) {
                const int ix = (int)xx, iy = (int)yy;
                const float tx = xx - (float)ix, ty = yy - (float)iy;
                const size_t k = (size_t)(iy - 1) * (size_t)w + (size_t)(ix - 1);
                iw = bicubic_rows(i1, k, w, tx, ty);
                gx = bicubic_rows(L->gx, k, w, tx, ty);
                gy = bicubic_rows(L->gy, k, w, tx, ty);
            }
            L->ix[i] = gx;
            L->iy[i] = gy;
            L->rho_c[i] = iw - gx * a - gy * b - i0[i];
        }
    return 0;
}

/* The U step at one pixel, borders included; returns the squared change. */
static float u_pixel(level_work *L, int x, int y)
{
    const int w = L->w, h = L->h;
    const size_t n = L->n, i = (size_t)y * (size_t)w + (size_t)x;
    const field u1 = plane(L->u, 0, n), u2 = plane(L->u, 1, n);
    const field p11 = plane(L->p, 0, n), p12 = plane(L->p, 1, n);
    const field p21 = plane(L->p, 2, n), p22 = plane(L->p, 3, n);
    const float ix = L->ix[i], iy = L->iy[i], grad = ix * ix + iy * iy;
    const float a = ld1(u1, i), b = ld1(u2, i);
    const float rho = L->rho_c[i] + (ix * a + iy * b);
    const float fi = -rho / grad, l_t = L->l_t;
    const float k = rho < -l_t * grad     ? l_t
                    : rho > l_t * grad    ? -l_t
                    : grad < GRAD_IS_ZERO ? 0.0f
                                          : fi;
    const float v1 = a + k * ix, v2 = b + k * iy;
    const int last_x = x == w - 1, last_y = y == h - 1;
    const float a1 = last_x ? 0.0f : ld1(p11, i), a2 = last_x ? 0.0f : ld1(p21, i);
    const float c1 = last_y ? 0.0f : ld1(p12, i), c2 = last_y ? 0.0f : ld1(p22, i);
    const float l1 = x > 0 ? ld1(p11, i - 1) : 0.0f, l2 = x > 0 ? ld1(p21, i - 1) : 0.0f;
    const float t1 = y > 0 ? ld1(p12, i - (size_t)w) : 0.0f;
    const float t2 = y > 0 ? ld1(p22, i - (size_t)w) : 0.0f;
    const float n1 = v1 + L->theta * ((a1 - l1) + (c1 - t1));
    const float n2 = v2 + L->theta * ((a2 - l2) + (c2 - t2));
    st1(u1, i, n1);
    st1(u2, i, n2);
    const float e1 = n1 - a, e2 = n2 - b;
    return e1 * e1 + e2 * e2;
}

/* The U step over rows [y0, y1): each reads p and writes u of its own row
 * only; row_e[y] gets the row's sum of squared changes. */
static int u_rows(void *user, int y0, int y1)
{
    level_work *L = user;
    const int w = L->w, h = L->h;
    const size_t n = L->n;
    const field u1 = plane(L->u, 0, n), u2 = plane(L->u, 1, n);
    const field p11 = plane(L->p, 0, n), p12 = plane(L->p, 1, n);
    const field p21 = plane(L->p, 2, n), p22 = plane(L->p, 3, n);
    const float32x4_t zero = vdupq_n_f32(0.0f), tiny = vdupq_n_f32(GRAD_IS_ZERO);
    const float32x4_t pos = vdupq_n_f32(L->l_t), neg = vdupq_n_f32(-L->l_t);
    for (int y = y0; y < y1; y++) {
        float32x4_t acc = zero;
        float e = u_pixel(L, 0, y);
        int x = 1;
        /* Lanes x .. x + 3, none on the last column. */
        for (; x + 4 <= w - 1; x += 4) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            const float32x4_t ix = vld1q_f32(L->ix + i), iy = vld1q_f32(L->iy + i);
            const float32x4_t grad = vaddq_f32(vmulq_f32(ix, ix), vmulq_f32(iy, iy));
            const float32x4_t a = ld4(u1, i), b = ld4(u2, i);
            const float32x4_t rho =
                vaddq_f32(vld1q_f32(L->rho_c + i), vaddq_f32(vmulq_f32(ix, a), vmulq_f32(iy, b)));
            const float32x4_t lg = vmulq_n_f32(grad, L->l_t);
            float32x4_t k = div4(vnegq_f32(rho), grad);
            k = vbslq_f32(vcltq_f32(grad, tiny), zero, k);
            k = vbslq_f32(vcgtq_f32(rho, lg), neg, k);
            k = vbslq_f32(vcltq_f32(rho, vnegq_f32(lg)), pos, k);
            const float32x4_t v1 = vaddq_f32(a, vmulq_f32(k, ix));
            const float32x4_t v2 = vaddq_f32(b, vmulq_f32(k, iy));
            const float32x4_t c1 = y < h - 1 ? ld4(p12, i) : zero;
            const float32x4_t c2 = y < h - 1 ? ld4(p22, i) : zero;
            const float32x4_t t1 = y > 0 ? ld4(p12, i - (size_t)w) : zero;
            const float32x4_t t2 = y > 0 ? ld4(p22, i - (size_t)w) : zero;
            const float32x4_t d1 =
                vaddq_f32(vsubq_f32(ld4(p11, i), ld4(p11, i - 1)), vsubq_f32(c1, t1));
            const float32x4_t d2 =
                vaddq_f32(vsubq_f32(ld4(p21, i), ld4(p21, i - 1)), vsubq_f32(c2, t2));
            const float32x4_t n1 = vaddq_f32(v1, vmulq_n_f32(d1, L->theta));
            const float32x4_t n2 = vaddq_f32(v2, vmulq_n_f32(d2, L->theta));
            st4(u1, i, n1);
            st4(u2, i, n2);
            const float32x4_t e1 = vsubq_f32(n1, a), e2 = vsubq_f32(n2, b);
            acc = vaddq_f32(acc, vaddq_f32(vmulq_f32(e1, e1), vmulq_f32(e2, e2)));
        }
        for (; x < w; x++)
            e += u_pixel(L, x, y);
        float lanes[4];
        vst1q_f32(lanes, acc);
        L->row_e[y] = (double)e + ((double)lanes[0] + lanes[1]) + ((double)lanes[2] + lanes[3]);
    }
    return 0;
}

/* The U step over the level; returns the sum of the squared changes, the
 * rows' sums added in row order (the bands change nothing). */
static double u_step(level_work *L)
{
    clik__cpu_rows(L->h, (size_t)L->w * 16, u_rows, L);
    double total = 0.0;
    for (int y = 0; y < L->h; y++)
        total += L->row_e[y];
    return total;
}

/* The P step at one pixel, borders included. */
static void p_pixel(level_work *L, int x, int y)
{
    const int w = L->w, h = L->h;
    const size_t n = L->n, i = (size_t)y * (size_t)w + (size_t)x;
    const field u1 = plane(L->u, 0, n), u2 = plane(L->u, 1, n);
    const float c1 = ld1(u1, i), c2 = ld1(u2, i);
    const int last_x = x == w - 1, last_y = y == h - 1;
    const float gx1 = last_x ? 0.0f : ld1(u1, i + 1) - c1;
    const float gx2 = last_x ? 0.0f : ld1(u2, i + 1) - c2;
    const float gy1 = last_y ? 0.0f : ld1(u1, i + (size_t)w) - c1;
    const float gy2 = last_y ? 0.0f : ld1(u2, i + (size_t)w) - c2;
    const float taut = L->taut;
    const float ng1 = 1.0f + taut * sqrtf(gx1 * gx1 + gy1 * gy1);
    const float ng2 = 1.0f + taut * sqrtf(gx2 * gx2 + gy2 * gy2);
    const float g[4] = {gx1, gy1, gx2, gy2}, ng[4] = {ng1, ng1, ng2, ng2};
    for (int k = 0; k < 4; k++) {
        const field pk = plane(L->p, k, n);
        st1(pk, i, (ld1(pk, i) + taut * g[k]) / ng[k]);
    }
}

/* The P step over rows [y0, y1): each reads u and writes p of its own row. */
static int p_rows(void *user, int y0, int y1)
{
    level_work *L = user;
    const int w = L->w, h = L->h;
    const size_t n = L->n;
    const field u1 = plane(L->u, 0, n), u2 = plane(L->u, 1, n);
    const float32x4_t zero = vdupq_n_f32(0.0f), one = vdupq_n_f32(1.0f);
    const float taut = L->taut;
    for (int y = y0; y < y1; y++) {
        int x = 0;
        /* Lanes x .. x + 3, none on the last column. */
        for (; x + 4 <= w - 1; x += 4) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            const float32x4_t c1 = ld4(u1, i), c2 = ld4(u2, i);
            const float32x4_t gx1 = vsubq_f32(ld4(u1, i + 1), c1);
            const float32x4_t gx2 = vsubq_f32(ld4(u2, i + 1), c2);
            const float32x4_t gy1 = y < h - 1 ? vsubq_f32(ld4(u1, i + (size_t)w), c1) : zero;
            const float32x4_t gy2 = y < h - 1 ? vsubq_f32(ld4(u2, i + (size_t)w), c2) : zero;
            const float32x4_t ng1 = vaddq_f32(
                one, vmulq_n_f32(sqrt4(vaddq_f32(vmulq_f32(gx1, gx1), vmulq_f32(gy1, gy1))), taut));
            const float32x4_t ng2 = vaddq_f32(
                one, vmulq_n_f32(sqrt4(vaddq_f32(vmulq_f32(gx2, gx2), vmulq_f32(gy2, gy2))), taut));
            const float32x4_t g[4] = {gx1, gy1, gx2, gy2}, ng[4] = {ng1, ng1, ng2, ng2};
            for (int k = 0; k < 4; k++) {
                const field pk = plane(L->p, k, n);
                st4(pk, i, div4(vaddq_f32(ld4(pk, i), vmulq_n_f32(g[k], taut)), ng[k]));
            }
        }
        for (; x < w; x++)
            p_pixel(L, x, y);
    }
    return 0;
}

/* The warps of one level; ran[k] gets the iterations of warp k; before:
 * the warps of the levels before. 1 when the progress callback stopped the
 * run, else 0. */
static int level_warps(level_work *L, const float *i0, const float *i1, const clik_flow_plan *pl,
                       int *ran, int before)
{
    const size_t pbytes = 4 * L->n * (L->p.half ? sizeof(uint16_t) : sizeof(float));
    memset(L->p.data, 0, pbytes);
    L->i0 = i0;
    L->i1 = L->img = i1;
    clik__cpu_rows(L->h, (size_t)L->w * 4, gradient_rows, L);
    const float eps2 = pl->epsilon * pl->epsilon;
    for (int k = 0; k < pl->warps; k++) {
        clik__cpu_rows(L->h, (size_t)L->w * 64, warp_rows, L);
        int it = 0, done = 0;
        while (!done && it < pl->iterations) {
            it++;
            const double sum = u_step(L);
            clik__cpu_rows(L->h, (size_t)L->w * 16, p_rows, L);
            if (it % CLIK_FLOW_CHECK_EVERY == 0) {
                done = !((float)(sum / (double)L->n) > eps2);
                if (clik__flow_stop(pl, before + k, it))
                    return 1;
            }
        }
        ran[k] = it;
        if (clik__flow_stop(pl, before + k + 1, 0))
            return 1;
    }
    return 0;
}

/* ---- the pyramid ---------------------------------------------------------------------- */

static int tvl1_neon(const clik_image *i0, const clik_image *i1, clik_image *flow,
                     const clik_flow_plan *plan)
{
    const int n = plan->scales, nx = plan->width[0], ny = plan->height[0];
    const size_t n0 = (size_t)nx * (size_t)ny;
    const size_t esize = plan->f16 ? sizeof(uint16_t) : sizeof(float);
    float *I0s[CLIK_FLOW_MAX_SCALES] = {0}, *I1s[CLIK_FLOW_MAX_SCALES] = {0};
    int ok = 1;
    for (int s = 0; s < n && ok; s++) {
        const size_t size = (size_t)plan->width[s] * (size_t)plan->height[s];
        ok = (I0s[s] = clik__flow_floats(size)) && (I1s[s] = clik__flow_floats(size));
    }
    float *work = ok ? clik__flow_floats(6 * n0) : NULL;
    void *ubuf[2] = {ok ? malloc(2 * n0 * esize) : NULL, ok ? malloc(2 * n0 * esize) : NULL};
    void *pbuf = ok ? malloc(4 * n0 * esize) : NULL;
    double *row_e = ok ? malloc((size_t)ny * sizeof(double)) : NULL;
    ok = ok && work && ubuf[0] && ubuf[1] && pbuf && row_e;
    ok = ok && clik__flow_level0(i0, i1, plan, I0s[0], I1s[0], 0, clik__blur_neon) == 0;
    for (int s = 1; s < n && ok; s++) {
        const int w = plan->width[s - 1], h = plan->height[s - 1];
        for (int k = 0; k < 2 && ok; k++) {
            const float *above = k ? I1s[s - 1] : I0s[s - 1];
            memcpy(work, above, (size_t)w * (size_t)h * sizeof(float));
            ok = clik__flow_smooth(work, w, h, plan->taps_zoom, plan->ksize_zoom,
                                   clik__blur_neon) == 0;
            if (ok)
                resample(work, w, h, k ? I1s[s] : I0s[s], plan->width[s], plan->height[s],
                         plan->zoom, plan->zoom, 1.0f);
        }
    }
    const int last = n - 1;
    int cur = 0, stopped = 0;
    field u = {ubuf[0], plan->f16};
    if (ok && plan->initial) {
        for (int y = 0; y < ny; y++) {
            const float *row =
                (const float *)(const void *)((const char *)flow->data + (size_t)y * flow->stride);
            for (int x = 0; x < nx; x++) {
                st1(u, (size_t)y * (size_t)nx + (size_t)x, row[2 * x]);
                st1(u, n0 + (size_t)y * (size_t)nx + (size_t)x, row[2 * x + 1]);
            }
        }
        for (int s = 1; s <= last && ok; s++) {
            const field next = {ubuf[1 - cur], plan->f16};
            ok = resample_flow(u, plan->width[s - 1], plan->height[s - 1], next, plan->width[s],
                               plan->height[s], plan->zoom, plan->zoom, plan->zoom) == 0;
            cur = 1 - cur;
            u = next;
        }
    } else if (ok) {
        memset(ubuf[0], 0, 2 * n0 * esize);
    }
    for (int s = last; s >= 0 && ok; s--) {
        level_work L = {
            .w = plan->width[s],
            .h = plan->height[s],
            .n = (size_t)plan->width[s] * (size_t)plan->height[s],
            .gx = work,
            .gy = work + n0,
            .ix = work + 2 * n0,
            .iy = work + 3 * n0,
            .rho_c = work + 4 * n0,
            .u = u,
            .p = {pbuf, plan->f16},
            .theta = plan->theta,
            .l_t = plan->lambda * plan->theta,
            .taut = plan->tau / plan->theta,
            .row_e = row_e,
        };
        stopped = level_warps(&L, I0s[s], I1s[s], plan,
                              plan->iterations_run + (size_t)(last - s) * (size_t)plan->warps,
                              (last - s) * plan->warps);
        ok = !stopped;
        if (!ok || s == 0)
            break;
        const int w = plan->width[s], h = plan->height[s];
        const int ow = plan->width[s - 1], oh = plan->height[s - 1];
        const field next = {ubuf[1 - cur], plan->f16};
        ok = resample_flow(u, w, h, next, ow, oh, (float)ow / (float)w, (float)oh / (float)h,
                           1.0f / plan->zoom) == 0;
        cur = 1 - cur;
        u = next;
    }
    if (ok)
        for (int y = 0; y < ny; y++) {
            float *row = (float *)(void *)((char *)flow->data + (size_t)y * flow->stride);
            for (int x = 0; x < nx; x++) {
                row[2 * x] = ld1(u, (size_t)y * (size_t)nx + (size_t)x);
                row[2 * x + 1] = ld1(u, n0 + (size_t)y * (size_t)nx + (size_t)x);
            }
        }
    for (int s = 0; s < n; s++) {
        free(I0s[s]);
        free(I1s[s]);
    }
    free(work);
    free(ubuf[0]);
    free(ubuf[1]);
    free(pbuf);
    free(row_e);
    return ok ? 0 : stopped ? -2 : -1;
}

/* ---- clik_flow_warp ---------------------------------------------------------------- */

typedef struct remap_job {
    const clik_image *src, *flow, *ref;
    clik_image *dst;
} remap_job;

/* Row y of a remap job: the flow's, the output's and the reference's
 * (NULL without one). */
CLIK_INLINE void remap_row_at(const remap_job *j, int y, const float **f, uint8_t **out,
                              const uint8_t **mix)
{
    *f = (const float *)((const uint8_t *)j->flow->data + (size_t)y * j->flow->stride);
    *out = (uint8_t *)j->dst->data + (size_t)y * j->dst->stride;
    *mix = j->ref ? (const uint8_t *)j->ref->data + (size_t)y * j->ref->stride : NULL;
}

/* Pixels x .. w - 1 of row y by the oracle's own function. */
CLIK_INLINE void remap_tail(const clik_image *src, const float *f, uint8_t *out, const uint8_t *mix,
                            int x, int y)
{
    const size_t ch = (size_t)src->channels;
    for (; x < src->width; x++)
        clik__flow_warp_pixel(src, f + 2 * (size_t)x, x, y, mix ? mix + (size_t)x * ch : NULL,
                              out + (size_t)x * ch);
}

/* Rows y0 .. y1 - 1: four pixels' positions, fractions and taps' indexes
 * at a time, each channel's taps gathered into vectors and blended with
 * the oracle's three fused multiply-adds; the last pixels of a row by the
 * oracle's own function. */
CLIK_FMA_CLONES static int remap_rows(void *user, int y0, int y1)
{
    const remap_job *j = user;
    const clik_image *src = j->src;
    const int w = src->width, h = src->height, ch = src->channels;
    static const float steps_f[4] = {0, 1, 2, 3};
    const float32x4_t steps = vld1q_f32(steps_f), lo = vdupq_n_f32(-1.0f);
    const float32x4_t wf = vdupq_n_f32((float)w), hf = vdupq_n_f32((float)h);
    const int32x4_t zero = vdupq_n_s32(0), one = vdupq_n_s32(1);
    const int32x4_t wmax = vdupq_n_s32(w - 1), hmax = vdupq_n_s32(h - 1);
    const uint8_t *base = src->data;
    for (int y = y0; y < y1; y++) {
        const float *f;
        uint8_t *out;
        const uint8_t *mix;
        remap_row_at(j, y, &f, &out, &mix);
        const float32x4_t yv = vdupq_n_f32((float)y);
        int x = 0;
        for (; x + 4 <= w; x += 4) {
            const float32x4x2_t uv = vld2q_f32(f + 2 * (size_t)x);
            const float32x4_t xv = vaddq_f32(vdupq_n_f32((float)x), steps);
            const float32x4_t sx = vminnmq_f32(vmaxnmq_f32(vaddq_f32(xv, uv.val[0]), lo), wf);
            const float32x4_t sy = vminnmq_f32(vmaxnmq_f32(vaddq_f32(yv, uv.val[1]), lo), hf);
            const float32x4_t fx = vrndmq_f32(sx), fy = vrndmq_f32(sy);
            const float32x4_t a = vsubq_f32(sx, fx), b = vsubq_f32(sy, fy);
            const int32x4_t ix = vcvtq_s32_f32(fx), iy = vcvtq_s32_f32(fy);
            int32_t xa[4], xb[4], ya[4], yb[4];
            vst1q_s32(xa, vmulq_n_s32(vminq_s32(vmaxq_s32(ix, zero), wmax), ch));
            vst1q_s32(xb, vmulq_n_s32(vminq_s32(vmaxq_s32(vaddq_s32(ix, one), zero), wmax), ch));
            vst1q_s32(ya, vminq_s32(vmaxq_s32(iy, zero), hmax));
            vst1q_s32(yb, vminq_s32(vmaxq_s32(vaddq_s32(iy, one), zero), hmax));
            const uint8_t *r0[4], *r1[4];
            for (int l = 0; l < 4; l++) {
                r0[l] = base + (size_t)ya[l] * src->stride;
                r1[l] = base + (size_t)yb[l] * src->stride;
            }
            for (int c = 0; c < ch; c++) {
                float p00[4], p01[4], p10[4], p11[4];
                for (int l = 0; l < 4; l++) {
                    p00[l] = r0[l][xa[l] + c];
                    p01[l] = r0[l][xb[l] + c];
                    p10[l] = r1[l][xa[l] + c];
                    p11[l] = r1[l][xb[l] + c];
                }
                const float32x4_t q00 = vld1q_f32(p00), q10 = vld1q_f32(p10);
                const float32x4_t t0 = fma4(q00, a, vsubq_f32(vld1q_f32(p01), q00));
                const float32x4_t t1 = fma4(q10, a, vsubq_f32(vld1q_f32(p11), q10));
                int32_t v[4];
                vst1q_s32(v, vcvtq_s32_f32(vrndnq_f32(fma4(t0, b, vsubq_f32(t1, t0)))));
                uint8_t *o = out + (size_t)x * (size_t)ch + (size_t)c;
                const uint8_t *m = mix ? mix + (size_t)x * (size_t)ch + (size_t)c : NULL;
                for (int l = 0; l < 4; l++)
                    o[(size_t)l * (size_t)ch] =
                        (uint8_t)(m ? (v[l] + m[(size_t)l * (size_t)ch] + 1) >> 1 : v[l]);
            }
        }
        remap_tail(src, f, out, mix, x, y);
    }
    return 0;
}

#ifdef CLIK_AVX2
/* x86 CPUs with AVX2 and FMA, 1 or 4 channels: remap_rows eight pixels at
 * a time, the taps by gathers of 32-bit words at byte offsets into the
 * source (its bytes within 2^31: remap_avx2_fits), the oracle's three
 * fused multiply-adds by VFMADD, its floor and rint by VROUNDPS. One
 * channel: each source row's word from min(xa, w - 4) holds both of its
 * taps xa and xb (xb is xa + 1 or, at the right edge, xa), taken out by
 * shifts; four channels: the word at a tap is its pixel. */
static int remap_avx2_fits(const clik_image *src)
{
    return (src->channels == 1 || src->channels == 4) && src->width >= 4 &&
           (size_t)src->height * src->stride < ((size_t)1 << 31);
}

/* Channel c of the eight pixels g (their bytes, four channels), as floats. */
#define CHANNEL8(g, c)                                                                             \
    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32((g), 8 * (c)), _mm256_set1_epi32(255)))

__attribute__((target("avx2,fma"))) static int remap_rows_avx2(void *user, int y0, int y1)
{
    const remap_job *j = user;
    const clik_image *src = j->src;
    const int w = src->width, h = src->height, ch = src->channels;
    const int stride = (int)src->stride;
    const __m256 steps = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), lo = _mm256_set1_ps(-1.0f);
    const __m256 wf = _mm256_set1_ps((float)w), hf = _mm256_set1_ps((float)h);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i wmax = _mm256_set1_epi32(w - 1), hmax = _mm256_set1_epi32(h - 1);
    const __m256i wlast4 = _mm256_set1_epi32(w - 4);
    const int *base = (const int *)(const void *)src->data;
    for (int y = y0; y < y1; y++) {
        const float *f;
        uint8_t *out;
        const uint8_t *mix;
        remap_row_at(j, y, &f, &out, &mix);
        const __m256 yv = _mm256_set1_ps((float)y);
        int x = 0;
        for (; x + 8 <= w; x += 8) {
            /* u and v of the eight pixels, deinterleaved */
            const __m256 f0 = _mm256_loadu_ps(f + 2 * (size_t)x);
            const __m256 f1 = _mm256_loadu_ps(f + 2 * (size_t)x + 8);
            const __m256 us = _mm256_shuffle_ps(f0, f1, _MM_SHUFFLE(2, 0, 2, 0));
            const __m256 vs = _mm256_shuffle_ps(f0, f1, _MM_SHUFFLE(3, 1, 3, 1));
            const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
            const __m256 u = _mm256_permutevar8x32_ps(us, order);
            const __m256 v = _mm256_permutevar8x32_ps(vs, order);
            const __m256 xv = _mm256_add_ps(_mm256_set1_ps((float)x), steps);
            /* max(s, -1) takes -1 for a NaN s, as fmaxf */
            const __m256 sx = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(xv, u), lo), wf);
            const __m256 sy = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(yv, v), lo), hf);
            const __m256 fx = _mm256_floor_ps(sx), fy = _mm256_floor_ps(sy);
            const __m256 a = _mm256_sub_ps(sx, fx), b = _mm256_sub_ps(sy, fy);
            const __m256i ix = _mm256_cvtps_epi32(fx), iy = _mm256_cvtps_epi32(fy);
            const __m256i xa = _mm256_min_epi32(_mm256_max_epi32(ix, zero), wmax);
            const __m256i xb =
                _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(ix, one), zero), wmax);
            const __m256i ra = _mm256_mullo_epi32(
                _mm256_min_epi32(_mm256_max_epi32(iy, zero), hmax), _mm256_set1_epi32(stride));
            const __m256i rb = _mm256_mullo_epi32(
                _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(iy, one), zero), hmax),
                _mm256_set1_epi32(stride));
            __m256 res[4];
            if (ch == 1) {
                const __m256i at = _mm256_min_epi32(xa, wlast4);
                const __m256i sa = _mm256_slli_epi32(_mm256_sub_epi32(xa, at), 3);
                const __m256i sb = _mm256_slli_epi32(_mm256_sub_epi32(xb, at), 3);
                const __m256i g0 = _mm256_i32gather_epi32(base, _mm256_add_epi32(ra, at), 1);
                const __m256i g1 = _mm256_i32gather_epi32(base, _mm256_add_epi32(rb, at), 1);
                const __m256i m8 = _mm256_set1_epi32(255);
                const __m256 p00 =
                    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(g0, sa), m8));
                const __m256 p01 =
                    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(g0, sb), m8));
                const __m256 p10 =
                    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(g1, sa), m8));
                const __m256 p11 =
                    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(g1, sb), m8));
                const __m256 t0 = _mm256_fmadd_ps(a, _mm256_sub_ps(p01, p00), p00);
                const __m256 t1 = _mm256_fmadd_ps(a, _mm256_sub_ps(p11, p10), p10);
                res[0] = _mm256_fmadd_ps(b, _mm256_sub_ps(t1, t0), t0);
            } else {
                const __m256i xa4 = _mm256_slli_epi32(xa, 2), xb4 = _mm256_slli_epi32(xb, 2);
                const __m256i g00 = _mm256_i32gather_epi32(base, _mm256_add_epi32(ra, xa4), 1);
                const __m256i g01 = _mm256_i32gather_epi32(base, _mm256_add_epi32(ra, xb4), 1);
                const __m256i g10 = _mm256_i32gather_epi32(base, _mm256_add_epi32(rb, xa4), 1);
                const __m256i g11 = _mm256_i32gather_epi32(base, _mm256_add_epi32(rb, xb4), 1);
                for (int c = 0; c < 4; c++) {
                    const __m256 p00 = CHANNEL8(g00, c), p01 = CHANNEL8(g01, c);
                    const __m256 p10 = CHANNEL8(g10, c), p11 = CHANNEL8(g11, c);
                    const __m256 t0 = _mm256_fmadd_ps(a, _mm256_sub_ps(p01, p00), p00);
                    const __m256 t1 = _mm256_fmadd_ps(a, _mm256_sub_ps(p11, p10), p10);
                    res[c] = _mm256_fmadd_ps(b, _mm256_sub_ps(t1, t0), t0);
                }
            }
            /* rintf of each result (0..255), averaged with ref where given */
            __m256i vi[4];
            for (int c = 0; c < ch; c++)
                vi[c] = _mm256_cvtps_epi32(
                    _mm256_round_ps(res[c], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            uint8_t *o = out + (size_t)x * (size_t)ch;
            const uint8_t *m = mix ? mix + (size_t)x * (size_t)ch : NULL;
            if (ch == 1) {
                if (m)
                    vi[0] = _mm256_srli_epi32(
                        _mm256_add_epi32(_mm256_add_epi32(vi[0], one),
                                         _mm256_cvtepu8_epi32(_mm_loadl_epi64((const void *)m))),
                        1);
                CLIK_AVX2_STORE8_U8(o, vi[0]);
            } else {
                __m256i word = zero;
                const __m256i mw = m ? _mm256_loadu_si256((const void *)m) : zero;
                for (int c = 0; c < 4; c++) {
                    __m256i vc = vi[c];
                    if (m)
                        vc = _mm256_srli_epi32(
                            _mm256_add_epi32(_mm256_add_epi32(vc, one),
                                             _mm256_and_si256(_mm256_srli_epi32(mw, 8 * c),
                                                              _mm256_set1_epi32(255))),
                            1);
                    word = _mm256_or_si256(word, _mm256_slli_epi32(vc, 8 * c));
                }
                _mm256_storeu_si256((void *)o, word);
            }
        }
        remap_tail(src, f, out, mix, x, y);
    }
    return 0;
}
#undef CHANNEL8
#endif

static void remap_neon(const clik_image *src, const clik_image *flow, const clik_image *ref,
                       clik_image *dst)
{
    remap_job j = {src, flow, ref, dst};
    clik_rows_fn rows = remap_rows;
#ifdef CLIK_AVX2
    if (clik_cpu_avx2_fma() && remap_avx2_fits(src))
        rows = remap_rows_avx2;
#endif
    /* About 3 fused multiply-adds and 4 loads per channel of each pixel. */
    clik__cpu_rows(src->height, (size_t)src->width * (size_t)src->channels * 4, rows, &j);
}

void clik__flow_dsp_init_neon(clik_flow_dsp *dsp)
{
    dsp->tvl1 = tvl1_neon;
    dsp->warp = remap_neon;
}

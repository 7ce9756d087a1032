/*
 * Optical flow family (TV-L1) on every backend: the conformance cases
 * against the scalar oracle, synthetic pairs with exact ground truth
 * (sub-pixel and large translations, no motion, a small rotation, a smooth
 * random warp of a textured image) against the oracle and against the truth,
 * 16-bit against 32-bit storage, both kernel variants of the device, the
 * initial flow, device images and strides, the stopping test's iterations,
 * the smallest sizes and those refused, smoothing wider than the blur's 31
 * taps, the progress callback and its stop, and bad input.
 *
 * CI time: a flow run is heavy (the oracle computes in double), so the
 * pairs are at most 160 x 120 pixels with at most 3 warps of at most 60
 * iterations (the stopping test usually ends them sooner), the conformance
 * cases as apps/support/cases_flow.c says. Under CLIK_TEST_SMALL (Oclgrind,
 * valgrind) the pairs shrink to at most 80 x 60 pixels, their motions with
 * them, and run 1 warp of at most 20 iterations: those runs check the
 * agreement with the oracle, not the accuracy against the truth.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "flow_eval.h"
#include "harness.h"

#define PI 3.14159265358979323846

/* ---- synthetic pairs with exact ground truth --------------------------------------- */

/* A textured image as a function: a sum of plane waves of random directions,
 * wavelengths 7 to 40 pixels, and phases, from a fixed seed. */
typedef struct texture {
    double kx[12], ky[12], phase[12], amp[12];
} texture;

static void texture_make(texture *t, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < 12; i++) {
        const double angle = (double)(sup_rand_next(&s) % 3600) * PI / 1800.0;
        const double wavelength = 7.0 + (double)(sup_rand_next(&s) % 3300) / 100.0;
        t->kx[i] = 2.0 * PI * cos(angle) / wavelength;
        t->ky[i] = 2.0 * PI * sin(angle) / wavelength;
        t->phase[i] = (double)(sup_rand_next(&s) % 6283) / 1000.0;
        t->amp[i] = 8.0 + (double)(sup_rand_next(&s) % 800) / 100.0;
    }
}

static double texture_at(const texture *t, double x, double y)
{
    double v = 128.0;
    for (int i = 0; i < 12; i++)
        v += t->amp[i] * sin(t->kx[i] * x + t->ky[i] * y + t->phase[i]);
    return v;
}

/* The motions: the flow d(x, y) of each pair. */
typedef enum motion { SHIFT, ROTATION, WARP } motion;

typedef struct pair_spec {
    const char *name;
    int w, h;
    motion kind;
    double a, b;  /* SHIFT: (a, b); ROTATION: a degrees; WARP: amplitude a */
    double bound; /* on the mean EPE against the truth */
} pair_spec;

static void motion_at(const pair_spec *p, double x, double y, double *u, double *v)
{
    const double cx = (p->w - 1) / 2.0, cy = (p->h - 1) / 2.0;
    *u = *v = 0.0;
    switch (p->kind) {
    case SHIFT:
        *u = p->a;
        *v = p->b;
        break;
    case ROTATION: {
        const double r = p->a * PI / 180.0, dx = x - cx, dy = y - cy;
        *u = cos(r) * dx - sin(r) * dy - dx;
        *v = sin(r) * dx + cos(r) * dy - dy;
        break;
    }
    case WARP:
        *u = p->a * sin(2.0 * PI * x / 97.0 + 0.5) * cos(2.0 * PI * y / 83.0);
        *v = p->a * cos(2.0 * PI * x / 71.0) * sin(2.0 * PI * y / 101.0 + 1.0);
        break;
    }
}

/*
 * I1 = the texture, I0(x, y) = I1(x + u, y + v): then I0(x) = I1(x + d(x))
 * holds exactly for the flow d. gt is that flow where the warp stays inside
 * I1 with a margin of `margin` pixels, unknown (1e10) elsewhere: the
 * reference's warp gives no data term where its taps leave the image.
 */
static void make_pair(const pair_spec *p, clik_type type, int margin, clik_image *i0,
                      clik_image *i1, clik_image *gt)
{
    texture t;
    texture_make(&t, 77);
    ck_assert_int_eq(clik_image_alloc(i0, p->w, p->h, 1, type), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(i1, p->w, p->h, 1, type), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(gt, p->w, p->h, 2, CLIK_F32), CLIK_OK);
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++) {
            double u, v;
            motion_at(p, x, y, &u, &v);
            const double a = texture_at(&t, x + u, y + v), b = texture_at(&t, x, y);
            const size_t i = (size_t)y * (size_t)p->w + (size_t)x;
            if (type == CLIK_U8) {
                ((uint8_t *)i0->data)[i] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a + 0.5);
                ((uint8_t *)i1->data)[i] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b + 0.5);
            } else {
                ((float *)i0->data)[i] = (float)a;
                ((float *)i1->data)[i] = (float)b;
            }
            const int inside = x + u >= margin && x + u <= p->w - 1 - margin && y + v >= margin &&
                               y + v <= p->h - 1 - margin && x >= margin &&
                               x <= p->w - 1 - margin && y >= margin && y <= p->h - 1 - margin;
            float *g = (float *)gt->data + 2 * i;
            g[0] = inside ? (float)u : 1e10f;
            g[1] = inside ? (float)v : 1e10f;
        }
}

/* The pair as this run takes it: under CLIK_TEST_SMALL at most 80 x 60, its
 * shifts scaled with it, and no bound (bound 0: not checked). */
static pair_spec fitted(const pair_spec *p)
{
    pair_spec q = *p;
    if (!h_small)
        return q;
    q.w = p->w < 80 ? p->w : 80;
    q.h = p->h < 60 ? p->h : 60;
    if (p->kind == SHIFT) {
        q.a = p->a * q.w / p->w;
        q.b = p->b * q.h / p->h;
    }
    q.bound = 0.0;
    return q;
}

/* Light options for CI: at most 3 warps of at most 60 iterations (1 of at
 * most 20 under CLIK_TEST_SMALL). */
static clik_flow_options light_options(void)
{
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.warps = h_small ? 1 : 3;
    o.iterations = h_small ? 20 : 60;
    o.storage = CLIK_FLOW_STORAGE_F32;
    return o;
}

static void run_flow(clik_context *ctx, const clik_image *i0, const clik_image *i1,
                     const clik_flow_options *o, clik_image *flow, const char *what)
{
    ck_assert_int_eq(clik_image_alloc(flow, i0->width, i0->height, 2, CLIK_F32), CLIK_OK);
    const clik_status st = clik_flow_tvl1(ctx, i0, i1, flow, o);
    ck_assert_msg(st == CLIK_OK, "%s on %s: %s: %s", what,
                  ctx == h_oracle ? "the oracle" : h_backend, clik_status_str(st),
                  clik_context_message(ctx));
}

/* The flow of (i0, i1) by o with f32 (half 0) or f16 storage of u and p:
 * on ctx, which must run it on the device, into got; on oracle into want. */
static void run_on_device(clik_context *ctx, clik_context *oracle, const clik_image *i0,
                          const clik_image *i1, clik_flow_options *o, int half, clik_image *got,
                          clik_image *want, const char *what)
{
    o->storage = half ? CLIK_FLOW_STORAGE_F16 : CLIK_FLOW_STORAGE_F32;
    run_flow(ctx, i0, i1, o, got, what);
    run_flow(oracle, i0, i1, o, want, what);
    ck_assert_msg(clik_context_last_backend(ctx) == CLIK_BACKEND_OPENCL, "%s",
                  clik_context_message(ctx));
}

static double epe(const clik_image *flow, const clik_image *gt)
{
    double e = NAN;
    long counted = 0;
    ck_assert_int_eq(sup_flow_errors(flow, gt, &e, NULL, &counted), CLIK_OK);
    ck_assert_int_gt(counted, 0);
    return e;
}

/* The mean EPE against the truth within the pair's bound (bound 0: not
 * checked, under CLIK_TEST_SMALL). */
static void check_truth(const pair_spec *p, const clik_image *flow, const clik_image *gt,
                        const char *who)
{
    if (p->bound <= 0.0)
        return;
    const double e = epe(flow, gt);
    ck_assert_msg(e <= p->bound, "%s on %s: mean EPE %.4f against the truth, bound %.2f", p->name,
                  who, e, p->bound);
}

/* Compares a backend's flow with the oracle's under tol. */
static void check_against(const clik_image *got, const clik_image *want, sup_tolerance tol,
                          const char *what)
{
    sup_compare cmp;
    sup_compare_images(got, want, tol, &cmp);
    ck_assert_msg(cmp.pass, "%s on %s against the oracle: %s", what, h_backend, cmp.detail);
}

/* The flow of i0 to i1 on h_ctx (got, run as name) and on the oracle (want),
 * which must agree under the flow tolerance (what names them). */
static void run_both(const clik_image *i0, const clik_image *i1, const clik_flow_options *o,
                     clik_image *got, clik_image *want, const char *name, const char *what)
{
    run_flow(h_ctx, i0, i1, o, got, name);
    run_flow(h_oracle, i0, i1, o, want, name);
    check_against(got, want, SUP_TOL_FLOW, what);
}

static const pair_spec pairs[] = {
    {"quarter pixel", 96, 80, SHIFT, 0.25, 0.0, 0.03},
    {"sub-pixel", 97, 61, SHIFT, 0.5, -0.75, 0.03},
    {"pixel and a third", 120, 90, SHIFT, 1.3, 0.4, 0.03},
    {"large motion", 160, 120, SHIFT, 7.5, -5.25, 0.08},
    {"rotation 2 degrees", 128, 128, ROTATION, 2.0, 0.0, 0.1},
    {"smooth warp", 150, 110, WARP, 1.5, 0.0, 0.12},
};

START_TEST(ground_truth)
{
    const pair_spec p = fitted(&pairs[_i]);
    clik_image i0, i1, gt, got, want;
    make_pair(&p, _i % 2 ? CLIK_F32 : CLIK_U8, 6 + (int)ceil(fabs(p.a) + fabs(p.b)), &i0, &i1, &gt);
    const clik_flow_options o = light_options();
    run_both(&i0, &i1, &o, &got, &want, p.name, p.name);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    check_truth(&p, &got, &gt, h_backend);
    check_truth(&p, &want, &gt, "the oracle");
    h_free_images(&i0, &i1, &gt, &got, &want, NULL);
}
END_TEST

/* Colour frames (3 and 4 channels, u8 and f32, RGB and BGR order): the
 * flow of their luma as clik_gray makes it, bit for bit. */
START_TEST(colour)
{
    const pair_spec still = {"colour", 41, 29, SHIFT, 1.3, -0.6, 0.0}, p = fitted(&still);
    for (int k = 0; k < 4; k++) {
        const int ch = k % 2 ? 3 : 4;
        const clik_type t = k >= 2 ? CLIK_F32 : CLIK_U8;
        clik_image c[2], g[2], got, want;
        for (int i = 0; i < 2; i++) {
            ck_assert_int_eq(clik_image_alloc(&c[i], p.w, p.h, ch, t), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&g[i], p.w, p.h, 1, t), CLIK_OK);
            sup_pattern_fill(&c[i], SUP_PATTERN_SMOOTH, 3u + (unsigned)i);
            c[i].order = k == 1 || k == 2 ? CLIK_ORDER_BGR : CLIK_ORDER_RGB;
            ck_assert_int_eq(clik_gray(h_ctx, &c[i], &g[i]), CLIK_OK);
        }
        const clik_flow_options o = light_options();
        run_flow(h_ctx, &c[0], &c[1], &o, &got, "colour");
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        run_flow(h_ctx, &g[0], &g[1], &o, &want, "their luma");
        for (int y = 0; y < p.h; y++)
            ck_assert_msg(
                memcmp((const char *)got.data + (size_t)y * got.stride,
                       (const char *)want.data + (size_t)y * want.stride, (size_t)p.w * 8) == 0,
                "%d-channel %s %s on %s: row %d is not the flow of the luma", ch, clik_type_name(t),
                c[0].order == CLIK_ORDER_BGR ? "BGR" : "RGB", h_backend, y);
        h_free_images(&c[0], &c[1], &g[0], &g[1], &got, &want, NULL);
    }
}
END_TEST

/* No motion: the data term and the dual variable stay 0, the flow is 0
 * exactly (u8 and f32, also with the image given twice). */
START_TEST(zero_motion)
{
    const pair_spec still = {"still", 90, 70, SHIFT, 0.0, 0.0, 0.0}, p = fitted(&still);
    for (int k = 0; k < 3; k++) {
        clik_image i0, i1, gt, got;
        make_pair(&p, k == 1 ? CLIK_F32 : CLIK_U8, 0, &i0, &i1, &gt);
        const clik_flow_options o = light_options();
        run_flow(h_ctx, &i0, k == 2 ? &i0 : &i1, &o, &got, "no motion");
        const float *f = got.data;
        for (int i = 0; i < 2 * p.w * p.h; i++)
            ck_assert_msg(f[i] == 0.0f, "no motion on %s: flow element %d is %g", h_backend, i,
                          f[i]);
        h_free_images(&i0, &i1, &gt, &got, NULL);
    }
}
END_TEST

/* The smallest, thin, odd and one-level sizes: defined results (the
 * reference reads outside its arrays at sides of 1 and 2), as the oracle's. */
START_TEST(small_and_odd_sizes)
{
    const int sizes[][2] = {{4, 4}, {4, 9}, {11, 4}, {5, 5}, {20, 20}, {33, 9}};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const pair_spec p = {"small", sizes[s][0], sizes[s][1], SHIFT, 0.6, -0.3, 0.0};
        clik_image i0, i1, gt, got, want;
        make_pair(&p, CLIK_U8, 0, &i0, &i1, &gt);
        clik_flow_options o = light_options();
        run_both(&i0, &i1, &o, &got, &want, "small", "small");
        const float *f = got.data;
        for (int i = 0; i < 2 * p.w * p.h; i++)
            ck_assert_msg(isfinite(f[i]), "%dx%d on %s: flow element %d is %g", p.w, p.h, h_backend,
                          i, f[i]);
        h_free_images(&i0, &i1, &gt, &got, &want, NULL);
    }
}
END_TEST

/* A side below CLIK_FLOW_MIN_SIDE: no 4 x 4 tap of the warp fits, so there
 * is no data term; refused with the minimum named, not a flow of 0. */
START_TEST(below_minimum_size)
{
    const int sizes[][2] = {{1, 1}, {2, 3}, {3, 2}, {3, 3}, {1, 17}, {23, 1}, {3, 40}, {40, 3}};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const pair_spec p = {"tiny", sizes[s][0], sizes[s][1], SHIFT, 0.6, -0.3, 0.0};
        clik_image i0, i1, gt, flow;
        make_pair(&p, CLIK_U8, 0, &i0, &i1, &gt);
        ck_assert_int_eq(clik_image_alloc(&flow, p.w, p.h, 2, CLIK_F32), CLIK_OK);
        clik_flow_options o = light_options();
        memset(flow.data, 0x5a, flow.stride * (size_t)p.h);
        const clik_status st = clik_flow_tvl1(h_ctx, &i0, &i1, &flow, &o);
        ck_assert_msg(st == CLIK_ERR_INVALID_SIZE, "%dx%d on %s: %s (%s)", p.w, p.h, h_backend,
                      clik_status_str(st), clik_context_message(h_ctx));
        ck_assert_msg(strstr(clik_context_message(h_ctx), "at least 4 x 4"),
                      "the message does not name the minimum: %s", clik_context_message(h_ctx));
        for (size_t k = 0; k < flow.stride * (size_t)p.h; k++)
            ck_assert_msg(((unsigned char *)flow.data)[k] == 0x5a, "%dx%d: the flow was written",
                          p.w, p.h);
        h_free_images(&i0, &i1, &gt, &flow, NULL);
    }
}
END_TEST

/* Smoothing wider than clik_gaussian_blur's CLIK_BLUR_MAX_KSIZE taps, as the
 * oracle: sigma 4 (41 taps), zoom 0.1 (59 taps between the levels), both,
 * and sigma 100 (1001 taps, the widest sigma allowed). */
START_TEST(wide_smoothing)
{
    const pair_spec spec = {"wide smoothing", 64, 48, SHIFT, 0.8, -0.4, 0.0}, p = fitted(&spec);
    const struct {
        double sigma, zoom;
        int scales;
    } runs[] = {{4.0, 0.5, 0}, {0.8, 0.1, 2}, {4.0, 0.1, 3}, {100.0, 0.1, 2}};
    /* Under CLIK_TEST_SMALL (Oclgrind) not the 1001 taps. */
    const size_t count = sizeof(runs) / sizeof(runs[0]) - (h_small ? 1 : 0);
    for (size_t r = 0; r < count; r++) {
        clik_image i0, i1, gt, got, want;
        make_pair(&p, r % 2 ? CLIK_F32 : CLIK_U8, 0, &i0, &i1, &gt);
        clik_flow_options o = light_options();
        o.sigma = runs[r].sigma;
        o.zoom = runs[r].zoom;
        o.scales = runs[r].scales;
        o.warps = 1;
        o.iterations = 20;
        char what[64];
        snprintf(what, sizeof(what), "sigma %g, zoom %g", runs[r].sigma, runs[r].zoom);
        run_both(&i0, &i1, &o, &got, &want, what, what);
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        h_free_images(&i0, &i1, &gt, &got, &want, NULL);
    }
}
END_TEST

/* More taps than a device's constant memory is sure to hold (16384): the
 * OpenCL path refuses before it runs (strict: CLIK_ERR_FALLBACK, caused by
 * CLIK_ERR_DEVICE_LIMITS) rather than launching a kernel that cannot run. */
START_TEST(device_taps_limit)
{
    if (h_expected != CLIK_BACKEND_OPENCL)
        return;
    /* zoom 3e-4: sigma 0.6 sqrt(1 / zoom^2 - 1), about 2000: about 20000 taps;
     * a second level of 1 x 1 needs sides of 1700. */
    clik_image i0, i1, flow;
    ck_assert_int_eq(clik_image_alloc(&i0, 1700, 1700, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&i1, 1700, 1700, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&flow, 1700, 1700, 2, CLIK_F32), CLIK_OK);
    memset(i0.data, 0, i0.stride * 1700);
    memset(i1.data, 0, i1.stride * 1700);
    clik_flow_options o = light_options();
    o.zoom = 3e-4;
    o.scales = 2;
    o.iterations = 1;
    o.warps = 1;
    const clik_status st = clik_flow_tvl1(h_ctx, &i0, &i1, &flow, &o);
    ck_assert_msg(st == CLIK_ERR_FALLBACK, "%s: %s", clik_status_str(st),
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_fallback_cause(h_ctx), CLIK_ERR_DEVICE_LIMITS);
    ck_assert_msg(strstr(clik_context_message(h_ctx), "taps, the device's blur at most 16384"),
                  "%s", clik_context_message(h_ctx));
    h_free_images(&i0, &i1, &flow, NULL);
}
END_TEST

/* One level only (scales 1; 20 x 20 above is a size with one automatic
 * level), other zooms, and many levels. */
START_TEST(levels_and_zooms)
{
    const pair_spec spec = {"levels", 101, 77, SHIFT, 1.7, 0.9, 0.1}, p = fitted(&spec);
    const struct {
        int scales;
        double zoom;
    } runs[] = {{1, 0.5}, {0, 0.8}, {3, 0.3}, {6, 0.7}};
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        clik_image i0, i1, gt, got, want;
        make_pair(&p, CLIK_U8, 8, &i0, &i1, &gt);
        clik_flow_options o = light_options();
        o.scales = runs[r].scales;
        o.zoom = runs[r].zoom;
        o.warps = h_small ? 1 : 2;
        run_both(&i0, &i1, &o, &got, &want, "levels", "levels and zooms");
        if (runs[r].scales != 1) /* one level follows 1.9 pixels less well */
            check_truth(&p, &got, &gt, h_backend);
        h_free_images(&i0, &i1, &gt, &got, &want, NULL);
    }
}
END_TEST

/* 16-bit storage against 32-bit: close to each other (FLOW-F16) and to the
 * truth; auto storage as either. */
START_TEST(half_storage)
{
    for (size_t k = 0; k < 3; k++) {
        const pair_spec p = fitted(&pairs[k == 0 ? 2 : k == 1 ? 3 : 5]);
        clik_image i0, i1, gt, f16, f32;
        make_pair(&p, CLIK_U8, 6 + (int)ceil(fabs(p.a) + fabs(p.b)), &i0, &i1, &gt);
        clik_flow_options o = light_options();
        run_flow(h_ctx, &i0, &i1, &o, &f32, p.name);
        o.storage = CLIK_FLOW_STORAGE_F16;
        run_flow(h_ctx, &i0, &i1, &o, &f16, p.name);
        check_against(&f16, &f32, SUP_TOL_FLOW_F16, "f16 against f32 storage");
        check_truth(&p, &f16, &gt, h_backend);
        o.storage = CLIK_FLOW_STORAGE_AUTO;
        clik_image_free(&f16);
        run_flow(h_ctx, &i0, &i1, &o, &f16, p.name);
        check_against(&f16, &f32, SUP_TOL_FLOW_F16, "auto against f32 storage");
        h_free_images(&i0, &i1, &gt, &f16, &f32, NULL);
    }
}
END_TEST

/* ---- progress and cancellation ----------------------------------------------------- */

#define MAX_CALLS 256

typedef struct progress_log {
    int stop_at; /* stop at this call (1: the first), 0: never */
    int calls, total;
    int done[MAX_CALLS], iteration[MAX_CALLS];
} progress_log;

static int progress(void *user, int done, int total, int iteration)
{
    progress_log *l = user;
    if (l->calls < MAX_CALLS) {
        l->done[l->calls] = done;
        l->iteration[l->calls] = iteration;
    }
    l->total = total;
    l->calls++;
    return l->stop_at > 0 && l->calls >= l->stop_at;
}

/* A run the callback stops: CLIK_ERR_CANCELLED (never a fall back to the
 * CPU), the flow as it was, no further call. */
static void expect_cancelled(clik_context *ctx, const clik_image *i0, const clik_image *i1,
                             clik_flow_options *o, int stop_at, const char *what)
{
    progress_log log = {.stop_at = stop_at};
    o->progress = progress;
    o->progress_user = &log;
    clik_image flow;
    ck_assert_int_eq(clik_image_alloc(&flow, i0->width, i0->height, 2, CLIK_F32), CLIK_OK);
    memset(flow.data, 0x5a, flow.stride * (size_t)flow.height);
    const clik_status st = clik_flow_tvl1(ctx, i0, i1, &flow, o);
    ck_assert_msg(st == CLIK_ERR_CANCELLED, "%s on %s: %s (%s)", what, h_backend,
                  clik_status_str(st), clik_context_message(ctx));
    ck_assert_msg(strstr(clik_context_message(ctx), "progress"), "%s: message %s", what,
                  clik_context_message(ctx));
    ck_assert_int_eq(log.calls, stop_at);
    for (size_t k = 0; k < flow.stride * (size_t)flow.height; k++)
        ck_assert_msg(((unsigned char *)flow.data)[k] == 0x5a, "%s: the flow was written", what);
    clik_image_free(&flow);
}

/* The progress callback runs after each stopping test and each warp, in
 * order, and a run it lets go on gives the flow of a run without it; one
 * that returns non-zero stops the run at once, at its first call or later. */
START_TEST(progress_and_cancel)
{
    /* Over 4096 pixels (under CLIK_TEST_SMALL too): the OpenCL path's level
     * 0 runs step by step. */
    const pair_spec spec = {"progress", 96, 72, SHIFT, 0.9, -0.4, 0.0}, p = fitted(&spec);
    clik_image i0, i1, gt, plain, got;
    make_pair(&p, CLIK_U8, 0, &i0, &i1, &gt);
    clik_flow_options o = light_options();
    o.warps = 2;
    o.iterations = 30;
    o.epsilon = 0.0; /* every warp runs its 30 iterations: tests at 10, 20, 30 */
    run_flow(h_ctx, &i0, &i1, &o, &plain, "without a callback");
    progress_log log = {0};
    o.progress = progress;
    o.progress_user = &log;
    run_flow(h_ctx, &i0, &i1, &o, &got, "with a callback");
    ck_assert_mem_eq(got.data, plain.data, plain.stride * (size_t)p.h);
    ck_assert_int_le(log.calls, MAX_CALLS);
    ck_assert_msg(log.total >= o.warps && log.total % o.warps == 0, "total %d", log.total);
    int warps_ended = 0, mid_warp = 0;
    for (int c = 0; c < log.calls; c++) {
        if (log.iteration[c] == 0) { /* after a warp */
            warps_ended++;
            ck_assert_msg(log.done[c] == warps_ended, "call %d: done %d after %d warps", c,
                          log.done[c], warps_ended);
        } else { /* after a stopping test */
            ck_assert_msg(log.done[c] == warps_ended, "call %d: done %d during warp %d", c,
                          log.done[c], warps_ended);
            ck_assert_msg(log.iteration[c] > 0 && log.iteration[c] <= o.iterations &&
                              log.iteration[c] % CLIK_FLOW_CHECK_EVERY == 0,
                          "call %d: iteration %d", c, log.iteration[c]);
            mid_warp++;
        }
    }
    ck_assert_int_eq(warps_ended, log.total);
    ck_assert_int_eq(log.iteration[log.calls - 1], 0);
    ck_assert_msg(mid_warp > 0, "no call between the iterations of a warp");
    /* Stopped at the first call, at the end of the first warp, and at a
     * later call. */
    expect_cancelled(h_ctx, &i0, &i1, &o, 1, "stopped at the first call");
    int first_warp = 1;
    while (log.done[first_warp] == 0)
        first_warp++;
    expect_cancelled(h_ctx, &i0, &i1, &o, first_warp + 1, "stopped after the first warp");
    expect_cancelled(h_ctx, &i0, &i1, &o, log.calls - 1, "stopped late");
    /* The context runs on. */
    o.progress = NULL;
    clik_image_free(&got);
    run_flow(h_ctx, &i0, &i1, &o, &got, "after a stop");
    ck_assert_mem_eq(got.data, plain.data, plain.stride * (size_t)p.h);
    /* Without strict mode a stop is no cause to fall back to the CPU. */
    if (h_expected == CLIK_BACKEND_OPENCL) {
        clik_context_options copt;
        clik_context_options_init(&copt);
        copt.device = h_device;
        copt.strict = 0;
        clik_context *lax = NULL;
        ck_assert_int_eq(clik_context_create(&lax, &copt), CLIK_OK);
        expect_cancelled(lax, &i0, &i1, &o, 1, "stopped, not strict");
        clik_context_stats stats;
        clik_context_stats_get(lax, &stats);
        ck_assert_int_eq(stats.fallbacks, 0);
        clik_context_destroy(lax);
    }
    h_free_images(&i0, &i1, &gt, &plain, &got, NULL);
}
END_TEST

/* ---- contexts of the backend under test with other settings ------------------------ */

typedef struct log_capture {
    char line[1024];
    int no_block; /* the library said it would not run flow_block */
} log_capture;

static void capture(void *user, clik_log_level level, const char *message)
{
    log_capture *c = user;
    if (level == CLIK_LOG_DEBUG && strstr(message, "flow_tvl1 on"))
        snprintf(c->line, sizeof(c->line), "%s", message);
    if (level == CLIK_LOG_DEBUG && strstr(message, "no flow_block"))
        c->no_block = 1;
}

/* A context on the backend under test (local_memory -1: its default), or on
 * the scalar oracle. */
static clik_context *make_tuned_context(int oracle, int local_memory, log_capture *log,
                                        const char *tuning)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    if (oracle || h_expected != CLIK_BACKEND_OPENCL) {
        opt.device = "none";
        opt.cpu_path =
            oracle || h_expected == CLIK_BACKEND_SCALAR ? CLIK_CPU_SCALAR : CLIK_CPU_NEON;
    } else {
        opt.device = h_device;
        opt.strict = 1;
        opt.local_memory = local_memory;
    }
    opt.log = log ? capture : NULL;
    opt.log_user = log;
    opt.tuning = tuning;
    clik_context *ctx = NULL;
    ck_assert_msg(clik_context_create(&ctx, &opt) == CLIK_OK, "%s", clik_context_message(NULL));
    return ctx;
}

static clik_context *make_context(int oracle, int local_memory, log_capture *log)
{
    return make_tuned_context(oracle, local_memory, log, NULL);
}

/* The iterations after which each warp stopped, from the debug log. */
static const char *iterations_of(const log_capture *c)
{
    const char *s = strstr(c->line, "per warp:");
    return s ? s : c->line;
}

/* The stopping test ends each warp at the same iteration on the backend as
 * on the oracle (every 10th: 10, 20, ...). */
START_TEST(same_iterations)
{
    const pair_spec q = fitted(&pairs[_i == 0 ? 2 : 5]), *p = &q;
    clik_image i0, i1, gt, a, b;
    make_pair(p, CLIK_U8, 0, &i0, &i1, &gt);
    log_capture got = {{0}, 0}, want = {{0}, 0};
    clik_context *ctx = make_context(0, -1, &got), *oracle = make_context(1, -1, &want);
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.iterations = h_small ? 30 : 100;
    o.warps = h_small ? 1 : 2;
    o.storage = CLIK_FLOW_STORAGE_F32;
    run_flow(ctx, &i0, &i1, &o, &a, "iterations");
    run_flow(oracle, &i0, &i1, &o, &b, "iterations");
    ck_assert_msg(*got.line && *want.line, "no iteration log");
    ck_assert_msg(strcmp(iterations_of(&got), iterations_of(&want)) == 0,
                  "%s on %s: %s; the oracle: %s", p->name, h_backend, got.line, want.line);
    /* Every count is a multiple of 10 or the limit. */
    for (const char *s = iterations_of(&got) + strlen("per warp:"); *s;) {
        char *end;
        const long n = strtol(s, &end, 10);
        if (end == s)
            break;
        ck_assert_msg(n % CLIK_FLOW_CHECK_EVERY == 0 || n == o.iterations, "%ld iterations", n);
        s = end;
    }
    clik_context_destroy(ctx);
    clik_context_destroy(oracle);
    h_free_images(&i0, &i1, &gt, &a, &b, NULL);
}
END_TEST

/* Both kernel variants of the device (with and without local memory; on
 * CPU devices the one without is the band kernel), on levels that run
 * step by step (over 4096 pixels) and in one work-group (smaller). */
START_TEST(kernel_variants)
{
    if (h_expected != CLIK_BACKEND_OPENCL)
        return;
    /* Over and under 4096 pixels, under CLIK_TEST_SMALL too. */
    const pair_spec specs[] = {{"steps", h_small ? 80 : 150, h_small ? 60 : 110, WARP, 1.5, 0.0, 0},
                               {"one group", 60, 50, SHIFT, 0.7, 0.4, 0}};
    for (int local = 0; local <= 1; local++)
        for (size_t k = 0; k < 2; k++) {
            clik_image i0, i1, gt, got, want;
            make_pair(&specs[k], CLIK_U8, 8, &i0, &i1, &gt);
            clik_context *ctx = make_context(0, local, NULL);
            clik_flow_options o = light_options();
            for (int half = 0; half <= 1; half++) {
                run_on_device(ctx, h_oracle, &i0, &i1, &o, half, &got, &want, specs[k].name);
                check_against(&got, &want, half ? SUP_TOL_FLOW_F16 : SUP_TOL_FLOW,
                              local ? "local-memory kernels" : "kernels without local memory");
                h_free_images(&got, &want, NULL);
            }
            clik_context_destroy(ctx);
            h_free_images(&i0, &i1, &gt, NULL);
        }
}
END_TEST

/* flow_block (several iterations per launch on tiles with a halo) against
 * the oracle: the same stopping iterations in f32, the flow within the
 * tolerances; 8x8 work-items leave tiles of 6x6 (many halos), and run on
 * every device here (rusticl on llvmpipe gives the kernel 32 work-items:
 * 4x8, tiles of 2x6); 16x16 and 32x16 leave larger ones where the device
 * gives the kernel that many work-items, else the U and P steps run (said
 * in the log). */
START_TEST(block_variants)
{
    if (h_expected != CLIK_BACKEND_OPENCL)
        return;
    static const struct {
        const char *tuning;
        int must_run;
    } blocks[] = {{"flow_block=1,flow_block_wg=8x8,poison=1", 1},
                  {"flow_block=2,flow_block_wg=16x16", 0},
                  {"flow_block=5,flow_block_wg=32x16,poison=1", 0}};
    const pair_spec q = fitted(&pairs[5]), *p = &q;
    clik_image i0, i1, gt, got, want;
    make_pair(p, CLIK_U8, 0, &i0, &i1, &gt);
    for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++) {
        log_capture lg = {{0}, 0}, lw = {{0}, 0};
        clik_context *ctx = make_tuned_context(0, 1, &lg, blocks[k].tuning);
        clik_context *oracle = make_context(1, -1, &lw);
        clik_flow_options o = light_options();
        for (int half = 0; half <= 1; half++) {
            run_on_device(ctx, oracle, &i0, &i1, &o, half, &got, &want, blocks[k].tuning);
            ck_assert_msg(!blocks[k].must_run || !lg.no_block, "%s: flow_block did not run",
                          blocks[k].tuning);
            if (!half)
                ck_assert_msg(strcmp(iterations_of(&lg), iterations_of(&lw)) == 0,
                              "%s: %s; the oracle: %s", blocks[k].tuning, lg.line, lw.line);
            check_against(&got, &want, half ? SUP_TOL_FLOW_F16 : SUP_TOL_FLOW, blocks[k].tuning);
            h_free_images(&got, &want, NULL);
        }
        clik_context_destroy(ctx);
        clik_context_destroy(oracle);
    }
    h_free_images(&i0, &i1, &gt, NULL);
}
END_TEST

/* ---- the initial flow, device images, strides --------------------------------------- */

START_TEST(initial_flow)
{
    /* One level from a zero start cannot follow 11 pixels (4 under
     * CLIK_TEST_SMALL); from the truth it stays there. */
    const pair_spec p = h_small ? (pair_spec){"initial", 80, 60, SHIFT, 3.5, -2.5, 0.05}
                                : (pair_spec){"initial", 160, 120, SHIFT, 9.5, -6.5, 0.05};
    clik_image i0, i1, gt, got, want, start;
    make_pair(&p, CLIK_U8, h_small ? 8 : 20, &i0, &i1, &gt);
    ck_assert_int_eq(clik_image_alloc(&start, p.w, p.h, 2, CLIK_F32), CLIK_OK);
    for (int i = 0; i < p.w * p.h; i++) {
        ((float *)start.data)[2 * i] = (float)p.a;
        ((float *)start.data)[2 * i + 1] = (float)p.b;
    }
    for (int scales = 1; scales <= 3; scales += 2) {
        clik_flow_options o = light_options();
        o.initial_flow = 1;
        o.scales = scales;
        ck_assert_int_eq(clik_image_alloc(&got, p.w, p.h, 2, CLIK_F32), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&want, p.w, p.h, 2, CLIK_F32), CLIK_OK);
        memcpy(got.data, start.data, got.stride * (size_t)p.h);
        memcpy(want.data, start.data, want.stride * (size_t)p.h);
        ck_assert_int_eq(clik_flow_tvl1(h_ctx, &i0, &i1, &got, &o), CLIK_OK);
        ck_assert_int_eq(clik_flow_tvl1(h_oracle, &i0, &i1, &want, &o), CLIK_OK);
        check_against(&got, &want, SUP_TOL_FLOW, "initial flow");
        check_truth(&p, &got, &gt, h_backend);
        h_free_images(&got, &want, NULL);
    }
    clik_flow_options o = light_options();
    o.scales = 1;
    run_flow(h_ctx, &i0, &i1, &o, &got, "no initial flow");
    ck_assert_msg(epe(&got, &gt) > 0.5, "one level reached %.3f without an initial flow",
                  epe(&got, &gt));
    clik_image_free(&got);
    h_free_images(&i0, &i1, &gt, &start, NULL);
}
END_TEST

/* Device images in and out, and host images with padded rows: the same
 * flow as packed host images. */
START_TEST(device_images_and_strides)
{
    const pair_spec p = {"strides", 77, 53, SHIFT, 0.8, 0.3, 0.0};
    clik_image i0, i1, gt, ref;
    make_pair(&p, CLIK_F32, 0, &i0, &i1, &gt);
    const clik_flow_options o = light_options();
    run_flow(h_ctx, &i0, &i1, &o, &ref, "packed");
    /* Padded rows. */
    const size_t in_stride = (size_t)p.w * 4 + 36, flow_stride = (size_t)p.w * 8 + 24;
    char *a = calloc((size_t)p.h, in_stride), *b = calloc((size_t)p.h, in_stride);
    char *f = calloc((size_t)p.h, flow_stride);
    ck_assert(a && b && f);
    memset(f, 0x7f, (size_t)p.h * flow_stride);
    for (int y = 0; y < p.h; y++) {
        memcpy(a + y * in_stride, (char *)i0.data + y * i0.stride, (size_t)p.w * 4);
        memcpy(b + y * in_stride, (char *)i1.data + y * i1.stride, (size_t)p.w * 4);
    }
    clik_image pa, pb, pf;
    ck_assert_int_eq(clik_image_wrap(&pa, p.w, p.h, 1, CLIK_F32, a, in_stride), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&pb, p.w, p.h, 1, CLIK_F32, b, in_stride), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&pf, p.w, p.h, 2, CLIK_F32, f, flow_stride), CLIK_OK);
    ck_assert_int_eq(clik_flow_tvl1(h_ctx, &pa, &pb, &pf, &o), CLIK_OK);
    for (int y = 0; y < p.h; y++) {
        ck_assert_mem_eq(f + y * flow_stride, (char *)ref.data + y * ref.stride, (size_t)p.w * 8);
        for (size_t k = (size_t)p.w * 8; k < flow_stride; k++) /* padding untouched */
            ck_assert_int_eq(f[y * flow_stride + k], 0x7f);
    }
    /* Device images. */
    clik_image da, db, df, out;
    ck_assert_int_eq(clik_image_create(h_ctx, &da, p.w, p.h, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &db, p.w, p.h, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &df, p.w, p.h, 2, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &da, &i0), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &db, &i1), CLIK_OK);
    ck_assert_int_eq(clik_flow_tvl1(h_ctx, &da, &db, &df, &o), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_int_eq(clik_image_alloc(&out, p.w, p.h, 2, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_download(h_ctx, &out, &df), CLIK_OK);
    ck_assert_mem_eq(out.data, ref.data, ref.stride * (size_t)p.h);
    h_free_images(&da, &db, &df, &out, NULL);
    free(a);
    free(b);
    free(f);
    h_free_images(&i0, &i1, &gt, &ref, NULL);
}
END_TEST

/* ---- options and bad input --------------------------------------------------------- */

START_TEST(defaults)
{
    clik_flow_options o;
    memset(&o, 0xff, sizeof(o));
    clik_flow_options_init(&o);
    ck_assert(o.tau == 0.25 && o.lambda == 0.15 && o.theta == 0.3 && o.zoom == 0.5);
    ck_assert(o.scales == 0 && o.warps == 5 && o.iterations == 300 && o.initial_flow == 0);
    ck_assert(o.epsilon == 0.01 && o.sigma == 0.8 && o.storage == CLIK_FLOW_STORAGE_AUTO);
    clik_flow_options_init(NULL); /* no crash */
}
END_TEST

/* Each refusal: its status, and the flow left as it was. */
static void expect_refused(const clik_image *i0, const clik_image *i1, clik_image *flow,
                           const clik_flow_options *o, clik_status want, const char *what)
{
    const size_t bytes = flow && flow->data ? flow->stride * (size_t)flow->height : 0;
    if (bytes)
        memset(flow->data, 0x5a, bytes);
    const clik_status st = clik_flow_tvl1(h_ctx, i0, i1, flow, o);
    ck_assert_msg(st == want, "%s on %s: %s, expected %s (%s)", what, h_backend,
                  clik_status_str(st), clik_status_str(want), clik_context_message(h_ctx));
    ck_assert_msg(*clik_context_message(h_ctx), "%s: no message", what);
    for (size_t k = 0; k < bytes; k++)
        ck_assert_msg(((unsigned char *)flow->data)[k] == 0x5a, "%s: the flow was written", what);
}

START_TEST(bad_input)
{
    clik_image a, b, f, small, rgba, f32, mono, wrong_flow, u8flow;
    ck_assert_int_eq(clik_image_alloc(&a, 20, 16, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&b, 20, 16, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&f, 20, 16, 2, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&small, 19, 16, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&rgba, 20, 16, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&f32, 20, 16, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&mono, 20, 16, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&wrong_flow, 20, 17, 2, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&u8flow, 20, 16, 2, CLIK_U8), CLIK_OK);
    sup_pattern_fill(&a, SUP_PATTERN_SMOOTH, 1);
    sup_pattern_fill(&b, SUP_PATTERN_SMOOTH, 2);
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.iterations = 10;

    ck_assert_int_eq(clik_flow_tvl1(NULL, &a, &b, &f, &o), CLIK_ERR_NULL);
    expect_refused(NULL, &b, &f, &o, CLIK_ERR_NULL, "I0 NULL");
    expect_refused(&a, NULL, &f, &o, CLIK_ERR_NULL, "I1 NULL");
    expect_refused(&a, &b, NULL, &o, CLIK_ERR_NULL, "flow NULL");
    expect_refused(&a, &small, &f, &o, CLIK_ERR_SIZE_MISMATCH, "sizes that differ");
    expect_refused(&small, &a, &f, &o, CLIK_ERR_SIZE_MISMATCH, "sizes that differ");
    clik_image rgb;
    ck_assert_int_eq(clik_image_alloc(&rgb, 20, 16, 3, CLIK_U8), CLIK_OK);
    expect_refused(&rgba, &rgb, &f, &o, CLIK_ERR_UNSUPPORTED_FORMAT, "3 and 4 channels mixed");
    expect_refused(&rgba, &a, &f, &o, CLIK_ERR_UNSUPPORTED_FORMAT, "colour and grey mixed");
    clik_image_free(&rgb);
    expect_refused(&a, &f32, &f, &o, CLIK_ERR_UNSUPPORTED_FORMAT, "u8 and f32 mixed");
    expect_refused(&f, &f, &wrong_flow, &o, CLIK_ERR_UNSUPPORTED_FORMAT, "2-channel inputs");
    expect_refused(&a, &b, &wrong_flow, &o, CLIK_ERR_SIZE_MISMATCH, "flow of another size");
    expect_refused(&a, &b, &mono, &o, CLIK_ERR_UNSUPPORTED_FORMAT, "1-channel flow");
    expect_refused(&a, &b, &u8flow, &o, CLIK_ERR_UNSUPPORTED_FORMAT, "u8 flow");
    /* An initial flow of the wrong size. */
    o.initial_flow = 1;
    expect_refused(&a, &b, &wrong_flow, &o, CLIK_ERR_SIZE_MISMATCH, "initial flow of another size");
    o.initial_flow = 0;
    /* The flow over an input's memory. */
    clik_image alias;
    ck_assert_int_eq(clik_image_wrap(&alias, 5, 16, 2, CLIK_F32, f32.data, 0), CLIK_OK);
    clik_image short_in;
    ck_assert_int_eq(clik_image_wrap(&short_in, 5, 16, 1, CLIK_F32, f32.data, 0), CLIK_OK);
    clik_image other;
    ck_assert_int_eq(clik_image_wrap(&other, 5, 16, 1, CLIK_F32, mono.data, 0), CLIK_OK);
    ck_assert_int_eq(clik_flow_tvl1(h_ctx, &short_in, &other, &alias, &o), CLIK_ERR_INVALID_ARG);

    /* Options out of range, NaN among them. */
    struct {
        const char *what;
        double *field;
        double value;
    } reals[] = {
        {"tau NaN", &o.tau, NAN},
        {"tau > 0.25", &o.tau, 0.2500001},
        {"tau 0", &o.tau, 0.0},
        {"tau < 0", &o.tau, -0.1},
        {"lambda NaN", &o.lambda, NAN},
        {"lambda 0", &o.lambda, 0.0},
        {"lambda inf", &o.lambda, INFINITY},
        {"theta NaN", &o.theta, NAN},
        {"theta 0", &o.theta, 0.0},
        {"zoom NaN", &o.zoom, NAN},
        {"zoom 0", &o.zoom, 0.0},
        {"zoom < 0", &o.zoom, -0.5},
        {"zoom 1", &o.zoom, 1.0},
        {"zoom > 1", &o.zoom, 1.5},
        {"epsilon NaN", &o.epsilon, NAN},
        {"epsilon < 0", &o.epsilon, -1e-3},
        {"sigma NaN", &o.sigma, NAN},
        {"sigma < 0", &o.sigma, -0.8},
        {"sigma > 100", &o.sigma, 101.0},
    };
    for (size_t k = 0; k < sizeof(reals) / sizeof(reals[0]); k++) {
        clik_flow_options_init(&o);
        *reals[k].field = reals[k].value;
        expect_refused(&a, &b, &f, &o, CLIK_ERR_INVALID_ARG, reals[k].what);
    }
    struct {
        const char *what;
        int *field;
        int value;
    } ints[] = {
        {"iterations 0", &o.iterations, 0},
        {"iterations < 0", &o.iterations, -3},
        {"warps 0", &o.warps, 0},
        {"warps over 1000", &o.warps, 1001},
        {"scales < 0", &o.scales, -1},
        {"scales over the limit", &o.scales, 101},
        {"initial_flow 2", &o.initial_flow, 2},
    };
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
        clik_flow_options_init(&o);
        *ints[k].field = ints[k].value;
        expect_refused(&a, &b, &f, &o, CLIK_ERR_INVALID_ARG, ints[k].what);
    }
    clik_flow_options_init(&o);
    o.storage = (clik_flow_storage)7;
    expect_refused(&a, &b, &f, &o, CLIK_ERR_INVALID_ARG, "unknown storage");
    /* The limits themselves run (tau 0.25, epsilon 0, sigma 0, 1 iteration). */
    clik_flow_options_init(&o);
    o.epsilon = 0.0;
    o.sigma = 0.0;
    o.iterations = 1;
    ck_assert_int_eq(clik_flow_tvl1(h_ctx, &a, &b, &f, &o), CLIK_OK);
    ck_assert_int_eq(clik_flow_tvl1(h_ctx, &a, &b, &f, NULL), CLIK_OK);
    h_free_images(&a, &b, &f, &small, &rgba, &f32, &mono, &wrong_flow, &u8flow, NULL);
}
END_TEST

int main(void)
{
    /* The device's default kernels, then again with poisoned scratch
     * buffers (reads of unwritten memory fail the comparisons) and the warp
     * by pixels (CPU devices take it by rows); the kernel variants run in
     * kernel_variants on every device. */
    static const char *const tunings[] = {"", "poison=1,warp_rows=0", NULL};
    const h_test tests[] = {H_LOOP(ground_truth, (int)(sizeof(pairs) / sizeof(pairs[0]))),
                            H_TEST(zero_motion),
                            H_TEST(colour),
                            H_TEST(small_and_odd_sizes),
                            H_TEST(below_minimum_size),
                            H_TEST(wide_smoothing),
                            H_TEST(device_taps_limit),
                            H_TEST(progress_and_cancel),
                            H_TEST(levels_and_zooms),
                            H_TEST(half_storage),
                            H_LOOP(same_iterations, 2),
                            H_TEST(kernel_variants),
                            H_TEST(block_variants),
                            H_TEST(initial_flow),
                            H_TEST(device_images_and_strides),
                            H_TEST(defaults),
                            H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"flow", "flow", 1200, tests, H_COUNT(tests), tunings, NULL});
}

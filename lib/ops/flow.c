/*
 * Optical flow family: TV-L1 optical flow (kernels/flow.cl,
 * fallback_cpu/{scalar,neon}/flow.c).
 *
 * The options are checked and resolved here once (clik_flow_plan: the
 * scheme's parameters as floats, the pyramid's level sizes, the Gaussian
 * taps, the storage of the fields), and every path runs the same plan: the
 * OpenCL path in flow_opencl.c, the CPU path through the family's table.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"

#define MAX_WARPS 1000

void clik_flow_options_init(clik_flow_options *opt)
{
    if (!opt)
        return;
    *opt = (clik_flow_options){
        .tau = 0.25,
        .lambda = 0.15,
        .theta = 0.3,
        .scales = 0,
        .zoom = 0.5,
        .warps = 5,
        .epsilon = 0.01,
        .iterations = 300,
        .sigma = 0.8,
        .initial_flow = 0,
        .storage = CLIK_FLOW_STORAGE_AUTO,
    };
}

/* ---- validation and the plan -------------------------------------------------------- */

/* Grey, or colour (RGB(A) or BGR(A)) compared on its luma (clik_gray). */
static clik_status check_input(clik_context *ctx, const clik_image *img, const char *what)
{
    return clik__check_format(ctx, img, what, CLIK_TYPES(CLIK_U8, CLIK_F32), CLIK_CHANNELS(1, 3, 4),
                              0, 0);
}

static clik_status check_images(clik_context *ctx, const clik_image *i0, const clik_image *i1,
                                const clik_image *flow)
{
    clik_status st = check_input(ctx, i0, "clik_flow_tvl1: I0");
    if (st == CLIK_OK)
        st = check_input(ctx, i1, "clik_flow_tvl1: I1");
    if (st == CLIK_OK)
        st = clik__check_image(ctx, flow, "clik_flow_tvl1: flow");
    if (st != CLIK_OK)
        return st;
    if (i1->type != i0->type || i1->channels != i0->channels)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "clik_flow_tvl1: I0 is %d-channel %s and I1 %d-channel %s: both must be "
                          "of one format",
                          i0->channels, clik_type_name(i0->type), i1->channels,
                          clik_type_name(i1->type));
    if (i1->width != i0->width || i1->height != i0->height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "clik_flow_tvl1: I0 is %dx%d and I1 %dx%d",
                          i0->width, i0->height, i1->width, i1->height);
    if (flow->channels != 2 || flow->type != CLIK_F32)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "clik_flow_tvl1: flow is %d-channel %s, needs 2-channel f32 (u, v)",
                          flow->channels, clik_type_name(flow->type));
    if (flow->width != i0->width || flow->height != i0->height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          "clik_flow_tvl1: flow is %dx%d, the images %dx%d", flow->width,
                          flow->height, i0->width, i0->height);
    if (clik__images_overlap(flow, i0) || clik__images_overlap(flow, i1))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_flow_tvl1: flow shares memory with an input image");
    return CLIK_OK;
}

/* A real option within (lo, hi], [lo, hi] or ... as `open` says. */
static clik_status check_real(clik_context *ctx, const char *name, double v, double lo, double hi,
                              int lo_open, int hi_open)
{
    const int ok = isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
    if (ok)
        return CLIK_OK;
    return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_flow_tvl1: %s %g is not in %s%g, %g%s", name,
                      v, lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
}

static clik_status check_options(clik_context *ctx, const clik_flow_options *o)
{
    clik_status st = check_real(ctx, "tau", o->tau, 0.0, 0.25, 1, 0);
    if (st == CLIK_OK)
        st = check_real(ctx, "lambda", o->lambda, 0.0, 1e30, 1, 0);
    if (st == CLIK_OK)
        st = check_real(ctx, "theta", o->theta, 0.0, 1e30, 1, 0);
    if (st == CLIK_OK)
        st = check_real(ctx, "zoom", o->zoom, 0.0, 1.0, 1, 1);
    if (st == CLIK_OK)
        st = check_real(ctx, "epsilon", o->epsilon, 0.0, 1e30, 0, 0);
    if (st == CLIK_OK)
        st = check_real(ctx, "sigma", o->sigma, 0.0, 100.0, 0, 0);
    if (st != CLIK_OK)
        return st;
    if (o->scales < 0 || o->scales > CLIK_FLOW_MAX_SCALES)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_flow_tvl1: scales %d is not in 0..%d (0: automatic)", o->scales,
                          CLIK_FLOW_MAX_SCALES);
    if (o->warps < 1 || o->warps > MAX_WARPS)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_flow_tvl1: warps %d is not in 1..%d",
                          o->warps, MAX_WARPS);
    if (o->iterations < 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_flow_tvl1: iterations %d: at least 1 is needed", o->iterations);
    if (o->initial_flow != 0 && o->initial_flow != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_flow_tvl1: initial_flow %d is neither 0 nor 1", o->initial_flow);
    if (o->storage != CLIK_FLOW_STORAGE_AUTO && o->storage != CLIK_FLOW_STORAGE_F32 &&
        o->storage != CLIK_FLOW_STORAGE_F16)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_flow_tvl1: unknown storage %d",
                          (int)o->storage);
    return CLIK_OK;
}

/* The levels: the reference's count for scales 0 (1 + log(hypot(W, H) / 16)
 * / log(1 / zoom), truncated, at least 1), each side (int)(side * zoom +
 * 0.5) in float as its zoom_size, stopping before a side would be 0. */
static void plan_levels(const clik_flow_options *o, int w, int h, clik_flow_plan *plan)
{
    int n = o->scales;
    if (n == 0) {
        const float levels = (float)(1.0 + log(hypot(w, h) / 16.0) / log(1.0 / o->zoom));
        n = levels < 1.0f ? 1 : levels >= CLIK_FLOW_MAX_SCALES ? CLIK_FLOW_MAX_SCALES : (int)levels;
    }
    plan->width[0] = w;
    plan->height[0] = h;
    plan->scales = 1;
    for (int s = 1; s < n; s++) {
        const int nw = (int)((float)plan->width[s - 1] * plan->zoom + 0.5);
        const int nh = (int)((float)plan->height[s - 1] * plan->zoom + 0.5);
        if (nw < 1 || nh < 1)
            break;
        plan->width[s] = nw;
        plan->height[s] = nh;
        plan->scales = s + 1;
    }
}

/* The reference's Gaussian taps of sigma (Sanchez Perez, Meinhardt-Llopis
 * and Facciolo, IPOL 2013, gaussian() of mask.c): 2 (int)(5 sigma) + 1,
 * exp(-i^2 / (2 sigma^2)) normalised to sum 1; one tap of 1 (no smoothing)
 * for sigma <= 0 or a radius of 0. w NULL: the count only. */
static int gaussian_taps(double sigma, float *w)
{
    const int r = sigma > 0.0 ? (int)(5.0 * sigma) : 0;
    double norm = 0.0;
    for (int i = 0; i <= r && w; i++)
        norm += (i == 0 ? 1.0 : 2.0) * exp(-(double)i * i / (2.0 * sigma * sigma));
    for (int i = 0; i <= r && w; i++)
        w[r + i] = w[r - i] = r ? (float)(exp(-(double)i * i / (2.0 * sigma * sigma)) / norm) : 1;
    return 2 * r + 1;
}

/* The taps of both smoothings into the plan (*mem holds them: the caller
 * frees it); the zoom's sigma rounded to float as the reference's zoom_out
 * rounds it. Only the pyramid's levels past the first take the second. */
static int plan_taps(clik_flow_plan *plan, float **mem)
{
    const float zs = (float)(0.6 * sqrt(1.0 / (plan->zoom * plan->zoom) - 1.0));
    plan->ksize_pre = gaussian_taps(plan->sigma, NULL);
    plan->ksize_zoom = plan->scales > 1 ? gaussian_taps(zs, NULL) : 1;
    *mem = malloc((size_t)(plan->ksize_pre + plan->ksize_zoom) * sizeof(float));
    if (!*mem)
        return -1;
    gaussian_taps(plan->sigma, *mem);
    if (plan->scales > 1)
        gaussian_taps(zs, *mem + plan->ksize_pre);
    plan->taps_pre = *mem;
    plan->taps_zoom = *mem + plan->ksize_pre;
    return 0;
}

/* ---- the CPU path ----------------------------------------------------------------------- */

/* v[0] is I0, v[1] I1, v[2] the flow. */
static clik_status tvl1_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const flow_args *a = p;
    const int rc = ctx->dsp.flow.tvl1(v[0], v[1], v[2], &a->plan);
    if (rc == -2)
        return clik__flow_cancelled(ctx);
    if (rc != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_flow_tvl1: out of memory on the CPU path");
    return CLIK_OK;
}

static const clik_op tvl1_op = {"flow_tvl1", clik__flow_opencl, tvl1_cpu};

/* ---- clik_flow_warp -------------------------------------------------------------------- */

typedef struct warp_args {
    int average; /* the images: src, flow, ref, dst; else src, flow, dst */
} warp_args;

static clik_status warp_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const warp_args *a = p;
    const int n = a->average ? 4 : 3;
    clik_status st = clik__check_int_strides(ctx, b, n, 0, "clik_flow_warp");
    const clik_binding *src = b[0], *flow = b[1], *ref = b[a->average ? 2 : 0], *dst = b[n - 1];
    const int w = src->image.width, h = src->image.height, ch = src->image.channels;
    /* By rows on CPU devices (a row a work-item, 16 pixels a step): where
     * src's offsets fit an int and a row's steps the loop budget. */
    const long budget = clik__loop_budget(ctx);
    const int rows = (size_t)h * src->stride <= (size_t)INT_MAX &&
                     (!budget || (long)w / 16 * (ch + 17) + 16 < budget / 2) &&
                     (int)clik__tune(ctx, CLIK_TUNE_WARP_ROWS, ctx->dev.type == CLIK_DEVICE_CPU);
    clik_kernel_entry *k;
    if (st == CLIK_OK)
        st = clik__kernel(ctx, "flow", "-DSTORE_HALF=0 -DCLIK_FP16=0",
                          rows ? "flow_remap_rows" : "flow_remap", &k);
    const int ss = clik__elems(src), fs = clik__elems(flow), rs = clik__elems(ref),
              ds = clik__elems(dst), average = a->average;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(ch),
                       CLIK_A(flow->mem), CLIK_A(fs), CLIK_A(ref->mem), CLIK_A(rs), CLIK_A(average),
                       CLIK_A(dst->mem), CLIK_A(ds));
    if (st != CLIK_OK)
        return st;
    if (rows) {
        size_t items[1] = {(size_t)h}, lsize[1] = {1};
        return clik__launch_exact(ctx, k, 1, items, lsize);
    }
    size_t items[2] = {(size_t)w, (size_t)h}, lsize[2] = {32, 8};
    return clik__launch(ctx, k, 2, items, lsize);
}

static clik_status warp_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const warp_args *a = p;
    ctx->dsp.flow.warp(v[0], v[1], a->average ? v[2] : NULL, v[a->average ? 3 : 2]);
    return CLIK_OK;
}

static const clik_op warp_op = {"flow_warp", warp_opencl, warp_cpu};

/* The checks of both warps (fn names the call); ref is checked with
 * average only. */
static clik_status check_warp(clik_context *ctx, int average, const clik_image *ref,
                              const clik_image *src, const clik_image *flow, const clik_image *dst,
                              const char *fn)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: src", fn);
    clik_status st =
        clik__check_format(ctx, src, what, CLIK_TYPES(CLIK_U8), CLIK_CHANNELS(1, 2, 3, 4), 0, 0);
    if (st != CLIK_OK)
        return st;
    snprintf(what, sizeof(what), "%s: flow", fn);
    st = clik__check_format(ctx, flow, what, CLIK_TYPES(CLIK_F32), CLIK_CHANNELS(2), src->width,
                            src->height);
    snprintf(what, sizeof(what), "%s: dst", fn);
    if (st == CLIK_OK)
        st = clik__check_like(ctx, dst, src, what, src->width, src->height);
    snprintf(what, sizeof(what), "%s: ref", fn);
    if (st == CLIK_OK && average)
        st = clik__check_like(ctx, ref, src, what, src->width, src->height);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, dst, 0, fn);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, flow, dst, 0, fn);
    if (st == CLIK_OK && average)
        st = clik__check_apart(ctx, ref, dst, 1, fn);
    return st;
}

/* Both warps, checked (average: with ref) and run. */
static clik_status warp_run(clik_context *ctx, int average, const clik_image *ref,
                            const clik_image *src, const clik_image *flow, clik_image *dst,
                            const char *fn)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_warp(ctx, average, ref, src, flow, dst, fn);
    if (st != CLIK_OK)
        return st;
    warp_args a = {average};
    const clik_op_image images[] = {{src, CLIK_READ},
                                    {flow, CLIK_READ},
                                    {average ? ref : dst, average ? CLIK_READ : CLIK_WRITE},
                                    {dst, CLIK_WRITE}};
    return clik__run_op(ctx, &warp_op, images, average ? 4 : 3, &a);
}

clik_status clik_flow_warp(clik_context *ctx, const clik_image *src, const clik_image *flow,
                           clik_image *dst)
{
    return warp_run(ctx, 0, NULL, src, flow, dst, "clik_flow_warp");
}

clik_status clik_flow_warp_average(clik_context *ctx, const clik_image *ref, const clik_image *src,
                                   const clik_image *flow, clik_image *dst)
{
    return warp_run(ctx, 1, ref, src, flow, dst, "clik_flow_warp_average");
}

/* ---- public entry point --------------------------------------------------------------- */

/* Logs the iterations each warp ran (debug level), coarsest level first. */
static void log_iterations(clik_context *ctx, const clik_flow_plan *plan)
{
    clik_strbuf sb = {0};
    clik__sb_printf(&sb, "clik: flow_tvl1 on %s, %d levels, iterations per warp:",
                    clik_backend_name(ctx->last_backend), plan->scales);
    for (int i = 0; i < plan->scales * plan->warps; i++)
        clik__sb_printf(&sb, " %d", plan->iterations_run[i]);
    if (sb.data)
        clik__log(ctx, CLIK_LOG_DEBUG, "%s", sb.data);
    clik__sb_free(&sb);
}

/* Colour frames: the flow of their luma (clik_gray, in each frame's
 * order), into device images where there is a device (no host round trip)
 * or host images. */
static clik_status tvl1_colour(clik_context *ctx, const clik_image *I0, const clik_image *I1,
                               clik_image *flow, const clik_flow_options *opt)
{
    clik_image g[2] = {{0}, {0}};
    const clik_image *in[2] = {I0, I1};
    clik_status st = CLIK_OK;
    for (int i = 0; i < 2 && st == CLIK_OK; i++) {
        st = ctx->has_device ? clik_image_create(ctx, &g[i], I0->width, I0->height, 1, I0->type)
                             : clik_image_alloc(&g[i], I0->width, I0->height, 1, I0->type);
        if (st != CLIK_OK)
            st = clik__fail(ctx, st, "clik_flow_tvl1: no memory for the luma of I%d", i);
        else
            st = clik_gray(ctx, in[i], &g[i]);
    }
    if (st == CLIK_OK)
        st = clik_flow_tvl1(ctx, &g[0], &g[1], flow, opt);
    clik_image_free(&g[0]);
    clik_image_free(&g[1]);
    return st;
}

clik_status clik_flow_tvl1(clik_context *ctx, const clik_image *I0, const clik_image *I1,
                           clik_image *flow, const clik_flow_options *opt)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_flow_options defaults;
    if (!opt) {
        clik_flow_options_init(&defaults);
        opt = &defaults;
    }
    clik_status st = check_images(ctx, I0, I1, flow);
    if (st == CLIK_OK && (I0->width < CLIK_FLOW_MIN_SIDE || I0->height < CLIK_FLOW_MIN_SIDE))
        st = clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                        "clik_flow_tvl1: the images are %dx%d; the flow needs at least %d x %d "
                        "pixels (CLIK_FLOW_MIN_SIDE): the warp's 4 x 4 bicubic taps fit no "
                        "smaller image",
                        I0->width, I0->height, CLIK_FLOW_MIN_SIDE, CLIK_FLOW_MIN_SIDE);
    if (st == CLIK_OK)
        st = check_options(ctx, opt);
    if (st != CLIK_OK)
        return st;
    if (I0->channels != 1)
        return tvl1_colour(ctx, I0, I1, flow, opt);
    flow_args a;
    memset(&a, 0, sizeof(a));
    clik_flow_plan *plan = &a.plan;
    plan->tau = (float)opt->tau;
    plan->lambda = (float)opt->lambda;
    plan->theta = (float)opt->theta;
    plan->epsilon = (float)opt->epsilon;
    plan->zoom = (float)opt->zoom;
    plan->sigma = (float)opt->sigma;
    plan->warps = opt->warps;
    plan->iterations = opt->iterations;
    plan->initial = opt->initial_flow;
    plan->progress = opt->progress;
    plan->progress_user = opt->progress_user;
    plan_levels(opt, I0->width, I0->height, plan);
    /* Storage: f16 where asked; AUTO gives it to GPUs with fp16 only. */
    plan->f16 = opt->storage == CLIK_FLOW_STORAGE_F16;
    a.half = plan->f16 || (opt->storage == CLIK_FLOW_STORAGE_AUTO &&
                           ctx->dev.type == CLIK_DEVICE_GPU && ctx->dev.fp16);
    float *taps = NULL;
    plan->iterations_run = calloc((size_t)plan->scales * (size_t)plan->warps, sizeof(int));
    if (!plan->iterations_run || plan_taps(plan, &taps) != 0) {
        free(plan->iterations_run);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    }
    const clik_op_image images[] = {
        {I0, CLIK_READ}, {I1, CLIK_READ}, {flow, CLIK_WRITE | (opt->initial_flow ? CLIK_READ : 0)}};
    st = clik__run_op(ctx, &tvl1_op, images, 3, &a);
    if (st == CLIK_OK)
        log_iterations(ctx, plan);
    free(plan->iterations_run);
    free(taps);
    return st;
}

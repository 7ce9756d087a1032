/*
 * LAPAR model family: the LAPAR upscaler without a network (clik's own
 * closed-form variant of the LAPAR filter of Li et al. 2020: the
 * coefficients phi chosen per pixel by a bucket of the local structure of U
 * instead of a network). Classification of an upsample into buckets and the
 * upscale by a model: on a device the kernels of kernels/lapar_model.cl, on
 * the CPU ctx->dsp.lapar_model (the definition is in fallback_cpu/cpu.h).
 * Models in memory are lapar_model_entry.c, their file lapar_model_file.c,
 * training lapar_train.c.
 *
 * Model kinds: 0, per bucket the coefficients of `atoms` atoms of the 5 x 5
 * dictionary (F_b = sum_l phi_{b,l} D_l); 1, per bucket a free k x k filter
 * (k = 5 or 7, row-major, the linear map of the patch of U to the output).
 * A kind-1 model may be stored with symmetry: the group of 2 (the
 * 180-degree rotation), 4 (with the horizontal and vertical flips) or 8
 * (with the transposition) image transforms acts on buckets (phase, angle;
 * strength and coherence are invariant) and on filter taps; the buckets of
 * one orbit share one stored filter (that of the orbit's least bucket
 * index), the others are its transforms (see lapar_model_entry.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar.h"
#include "lapar_model_entry.h"

static void plan_of(const model_entry *e, const float *filters, clik_lapar_model_plan *p)
{
    memset(p, 0, sizeof(*p));
    COPY_GRID(p, e);
    p->buckets = e->buckets;
    p->ksize = e->ksize;
    for (int m = 0; m < e->angles; m++) {
        const double phi = (2 * m + 1) * 3.14159265358979323846 / e->angles;
        const double u = cos(phi), v = sin(phi);
        const double q = v >= 0 ? (u >= 0 ? v / (u + v) : 1.0 - u / (v - u))
                                : (u < 0 ? 2.0 - v / (-u - v) : 3.0 + u / (u - v));
        p->angle_edges[m] = (float)q;
    }
    COPY_EDGES(p, e);
    p->filters = filters;
}

/* The model's entry for scale (model NULL: the default's). */
static clik_status find_entry(clik_context *ctx, const clik_lapar_model *model, int scale,
                              const char *fn, const model_entry **e)
{
    if (scale < 2 || scale > 4)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: scale %d is not 2, 3 or 4", fn, scale);
    if (!model && !(model = clik_lapar_model_default(scale)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: the library's default model has no entry for scale %d", fn, scale);
    if (!(*e = clik__lmodel_entry_for(model, scale)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: the model has no entry for scale %d", fn,
                          scale);
    return CLIK_OK;
}

/* The arguments of classification and upscaling: the plan of an entry. */
typedef struct plan_args {
    clik_lapar_model_plan plan;
    const float *filters_by_tap; /* the entry's table tap-major (NULL with no filters) */
} plan_args;

static clik_status classify_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const plan_args *a = p;
    if (ctx->dsp.lapar_model.classify(v[0], &a->plan, v[1]) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_classify: out of memory");
    return CLIK_OK;
}

/* ---- OpenCL path (kernels/lapar_model.cl) ---- */

#define STR_(x)       #x
#define STR(x)        STR_(x)
#define MODEL_OPTIONS "-DMAX_BINS=" STR(CLIK_LAPAR_MODEL_MAX_BINS)

/* C(n, k), n <= 8: the window's weights. */
static int binomial_of(int n, int k)
{
    int v = 1;
    for (int i = 1; i <= k; i++)
        v = v * (n - k + i) / i;
    return v;
}

/* The classification's arguments from index 3 + shift of lmodel_classify on: the
 * window, its weights and the bins (constant buffers made here, released by
 * the caller through *wt and *params). */
static clik_status classify_args_cl(clik_context *ctx, clik_kernel_entry *k, int shift,
                                    const clik_lapar_model_plan *p, cl_mem *wt, cl_mem *params)
{
    float w[9] = {0}, q[3 * CLIK_LAPAR_MODEL_MAX_BINS] = {0};
    const int n = p->window;
    for (int i = 0; i < n; i++)
        w[i] = (float)binomial_of(n - 1, i);
    for (int i = 0; i < CLIK_LAPAR_MODEL_MAX_BINS - 1; i++) {
        q[1 + i] = p->strength_edges[i];
        q[CLIK_LAPAR_MODEL_MAX_BINS + i] = p->coherence_edges[i];
    }
    for (int i = 0; i < p->angles; i++)
        q[2 * CLIK_LAPAR_MODEL_MAX_BINS + i] = p->angle_edges[i];
    clik_status st = clik__temp_buffer(ctx, sizeof(w), wt);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, *wt, w, sizeof(w));
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, sizeof(q), params);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, *params, q, sizeof(q));
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 3 + shift, CLIK_A(n), CLIK_A(*wt), CLIK_A(*params),
                          CLIK_A(p->angles), CLIK_A(p->strengths), CLIK_A(p->coherences),
                          CLIK_A(p->scale), CLIK_A(p->phases));
    return st;
}

/* Enqueues the buckets of the bound U (F32) into the bound buckets (U16),
 * with the program of output type t (one program serves an upscale). */
static clik_status cl_classify(clik_context *ctx, const clik_lapar_model_plan *p,
                               const clik_binding *up, const clik_binding *buckets, clik_type t)
{
    const int w = up->image.width, h = up->image.height, us = clik__elems(up);
    const int bs = clik__elems(buckets);
    const size_t grad_bytes = (size_t)w * (size_t)h * 2 * sizeof(float);
    const size_t rows_bytes = 2 * grad_bytes;
    clik_kernel_entry *kg, *kr, *kc;
    cl_mem grad = NULL, rows = NULL, wt = NULL, params = NULL;
    const int ch = up->image.channels, n = p->window, bgr = up->image.order == CLIK_ORDER_BGR;
    clik_status st =
        clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_gradient", &kg);
    if (st == CLIK_OK)
        st =
            clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_tensor_rows", &kr);
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_classify", &kc);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, grad_bytes, &grad);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, rows_bytes, &rows);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kg, CLIK_A(up->mem), CLIK_A(us), CLIK_A(w), CLIK_A(h), CLIK_A(grad),
                       CLIK_A(bgr));
    size_t items[2] = {(size_t)w, (size_t)h}, local[2] = {32, 8};
    if (st == CLIK_OK)
        st = clik__launch(ctx, kg, 2, items, local);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kc, CLIK_A(rows), CLIK_A(w), CLIK_A(h));
    if (st == CLIK_OK)
        st = classify_args_cl(ctx, kc, 0, p, &wt, &params);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kr, CLIK_A(grad), CLIK_A(w), CLIK_A(h), CLIK_A(n), CLIK_A(wt),
                       CLIK_A(rows));
    if (st == CLIK_OK)
        st = clik__launch(ctx, kr, 2, items, local);
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, kc, 11, CLIK_A(buckets->mem), CLIK_A(bs));
    if (st == CLIK_OK)
        st = clik__launch(ctx, kc, 2, items, local);
    clik__temp_release(ctx, grad, grad_bytes);
    clik__temp_release(ctx, rows, rows_bytes);
    clik__temp_release(ctx, wt, 9 * sizeof(float));
    clik__temp_release(ctx, params, 3 * CLIK_LAPAR_MODEL_MAX_BINS * sizeof(float));
    return st;
}

/* The kernels (kernels/lapar_model.cl) take row strides as int elements
 * and form every offset past a row in 64 bits: a binding whose stride does
 * not fit an int (31 bits) is refused (CLIK_ERR_DEVICE_LIMITS, so the CPU
 * path runs); any number of elements is fine otherwise. */
#define STRIDE_BITS 31

/* b[0] is up, b[1] the buckets. */
static clik_status classify_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    clik_status st = clik__lapar_check_strides(ctx, "lapar_classify",
                                               (const clik_binding *const *)b, 2, STRIDE_BITS);
    if (st != CLIK_OK)
        return st;
    return cl_classify(ctx, &((const plan_args *)p)->plan, b[0], b[1], CLIK_F32);
}

static const clik_op classify_op = {"lapar_classify", classify_opencl, classify_cpu};

/* Runs op on in and out with the plan of entry e (filters: its filters). */
static clik_status run_planned(clik_context *ctx, const clik_op *op, const model_entry *e,
                               const float *filters, const clik_image *in, clik_image *out)
{
    plan_args a;
    plan_of(e, filters, &a.plan);
    a.filters_by_tap =
        filters ? filters + (size_t)e->buckets * (size_t)e->ksize * (size_t)e->ksize : NULL;
    const clik_op_image images[] = {{in, CLIK_READ}, {out, CLIK_WRITE}};
    return clik__run_op_rgba(ctx, op, images, 2, &a);
}

static clik_status check_up(clik_context *ctx, const clik_image *up, const clik_image *buckets,
                            const char *fn)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: up", fn);
    clik_status st =
        clik__check_format(ctx, up, what, CLIK_TYPES(CLIK_F32), CLIK_CHANNELS(1, 3, 4), 0, 0);
    snprintf(what, sizeof(what), "%s: buckets", fn);
    if (st == CLIK_OK)
        st = clik__check_format(ctx, buckets, what, CLIK_TYPES(CLIK_U16), CLIK_CHANNELS(1),
                                up->width, up->height);
    if (st == CLIK_OK && clik__images_overlap(up, buckets))
        st = clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: buckets overlaps up", fn);
    return st;
}

clik_status clik_lapar_classify(clik_context *ctx, const clik_image *up,
                                const clik_lapar_model *model, int scale, clik_image *buckets)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    const char *fn = "clik_lapar_classify";
    const model_entry *e = NULL;
    clik_status st = check_up(ctx, up, buckets, fn);
    if (st == CLIK_OK)
        st = find_entry(ctx, model, scale, fn, &e);
    if (st != CLIK_OK)
        return st;
    return run_planned(ctx, &classify_op, e, e->filters, up, buckets);
}

clik_status clik__lmodel_classify(clik_context *ctx, const model_entry *e, const clik_image *up,
                                  clik_image *buckets)
{
    return run_planned(ctx, &classify_op, e, NULL, up, buckets);
}

/* U, its buckets and the filter, on host views: v[0] src, v[1] dst. */
static clik_status upscale_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const plan_args *a = p;
    clik_image up = {0}, buckets = {0};
    clik_status st = clik_image_alloc(&up, v[1]->width, v[1]->height, v[0]->channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_image_alloc(&buckets, v[1]->width, v[1]->height, 1, CLIK_U16);
    up.order = v[0]->order; /* the luma of the buckets weights its colours */
    if (st == CLIK_OK) {
        ctx->dsp.lapar.upsample(v[0], a->plan.scale, &up);
        if (ctx->dsp.lapar_model.classify(&up, &a->plan, &buckets) != 0 ||
            ctx->dsp.lapar_model.filter(&up, &buckets, &a->plan, v[1]) != 0)
            st = CLIK_ERR_NO_MEMORY;
    }
    clik_image_free(&up);
    clik_image_free(&buckets);
    return st == CLIK_OK ? CLIK_OK
                         : clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_upscale_lapar: out of memory");
}

/* ---- CPU devices: by rows (lmodel_rows) ---- */

/* The row kernels on this call: CPU devices by default, within the loop
 * budget (llvmpipe): a row of the filter runs w / 16 k^2 steps. */
static int lmodel_rows(clik_context *ctx, const clik_lapar_model_plan *p, int w)
{
    const long budget = clik__loop_budget(ctx);
    return (!budget || (long)(w / 16 + 2 * p->ksize) * p->ksize * p->ksize < budget / 2) &&
           (int)clik__tune(ctx, CLIK_TUNE_LMODEL_ROWS, ctx->dev.type == CLIK_DEVICE_CPU);
}

/* The scratch of the row kernels: U's colour planes, the luma (4
 * channels), the tensor's three planes; w x h floats each, packed. */
typedef struct rows_scratch {
    cl_mem u, luma, t;
    size_t u_bytes, luma_bytes, t_bytes;
} rows_scratch;

static void rows_scratch_release(clik_context *ctx, rows_scratch *r)
{
    clik__temp_release(ctx, r->u, r->u_bytes);
    clik__temp_release(ctx, r->luma, r->luma_bytes);
    clik__temp_release(ctx, r->t, r->t_bytes);
}

/* The buckets of U (planes in r->u) into buckets, by rows. */
static clik_status cl_classify_rows(clik_context *ctx, const clik_lapar_model_plan *p, int w, int h,
                                    int ch, int bgr, rows_scratch *r, const clik_binding *buckets,
                                    clik_type t)
{
    const cl_long plane = (cl_long)w * (cl_long)h;
    clik_kernel_entry *kl = NULL, *kt, *kc;
    cl_mem wt = NULL, params = NULL;
    clik_status st = CLIK_OK;
    if (ch == 4) {
        r->luma_bytes = (size_t)plane * sizeof(float);
        st = clik__temp_buffer(ctx, r->luma_bytes, &r->luma);
        if (st == CLIK_OK)
            st = clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_luma_rows",
                                    &kl);
        if (st == CLIK_OK)
            st = CLIK_ARGS(ctx, kl, CLIK_A(r->u), CLIK_A(w), CLIK_A(plane), CLIK_A(w), CLIK_A(h),
                           CLIK_A(bgr), CLIK_A(r->luma), CLIK_A(w));
        if (st == CLIK_OK)
            st = clik__lapar_launch_rows(ctx, kl, h);
    }
    const cl_mem luma = ch == 4 ? r->luma : r->u;
    r->t_bytes = 3 * (size_t)plane * sizeof(float);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, r->t_bytes, &r->t);
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_tensor_hrows",
                                &kt);
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_classify_rows",
                                &kc);
    /* lmodel_classify_rows takes lmodel_classify's arguments from the window
     * on, two places further. */
    if (st == CLIK_OK)
        st = classify_args_cl(ctx, kc, 2, p, &wt, &params);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kt, CLIK_A(luma), CLIK_A(w), CLIK_A(w), CLIK_A(h), CLIK_A(p->window),
                       CLIK_A(wt), CLIK_A(r->t), CLIK_A(w), CLIK_A(plane));
    if (st == CLIK_OK)
        st = clik__lapar_launch_rows(ctx, kt, h);
    const int bs = clik__elems(buckets);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kc, CLIK_A(r->t), CLIK_A(w), CLIK_A(plane), CLIK_A(w), CLIK_A(h));
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, kc, 13, CLIK_A(buckets->mem), CLIK_A(bs));
    if (st == CLIK_OK)
        st = clik__lapar_launch_rows(ctx, kc, h);
    clik__temp_release(ctx, wt, 9 * sizeof(float));
    clik__temp_release(ctx, params, 3 * CLIK_LAPAR_MODEL_MAX_BINS * sizeof(float));
    return st;
}

/* The upscale by rows: U's planes, the buckets, the filter by rows. */
static clik_status upscale_rows_cl(clik_context *ctx, const plan_args *args, clik_binding *const *b)
{
    const clik_lapar_model_plan *plan = &args->plan;
    const clik_image *dst = &b[1]->image;
    const int w = dst->width, h = dst->height, ch = dst->channels, taps = plan->ksize * plan->ksize;
    const cl_long plane = (cl_long)w * (cl_long)h;
    /* the table bucket-major, padded by 8 floats (a pixel's row of taps is
     * one 8-float load) */
    const size_t table = (size_t)plan->buckets * (size_t)taps;
    const size_t filter_bytes = (table + 8) * sizeof(float);
    float *padded = malloc(filter_bytes);
    if (!padded)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_upscale_lapar: out of memory");
    memcpy(padded, plan->filters, table * sizeof(float));
    memset(padded + table, 0, 8 * sizeof(float));
    rows_scratch r = {0};
    r.u_bytes = (size_t)plane * (ch == 4 ? 3u : 1u) * sizeof(float);
    clik_binding buckets;
    cl_mem filters = NULL;
    clik_status st = clik__bind_scratch(ctx, w, h, 1, CLIK_U16, &buckets);
    const int have_buckets = st == CLIK_OK;
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, r.u_bytes, &r.u);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, filter_bytes, &filters);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, filters, padded, filter_bytes);
    free(padded);
    if (st == CLIK_OK)
        st = clik__lapar_upsample_planes_cl(ctx, b[0], plan->scale, NULL, r.u);
    if (st == CLIK_OK)
        st = cl_classify_rows(ctx, plan, w, h, ch, b[0]->image.order == CLIK_ORDER_BGR, &r,
                              &buckets, dst->type);
    clik_kernel_entry *k;
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", dst->type, ch, MODEL_OPTIONS,
                                "lmodel_filter_rows", &k);
    const int bs = clik__elems(&buckets), ls = clik__elems(b[0]), ds = clik__elems(b[1]);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(r.u), CLIK_A(w), CLIK_A(plane), CLIK_A(w), CLIK_A(h),
                       CLIK_A(buckets.mem), CLIK_A(bs), CLIK_A(filters), CLIK_A(plan->ksize),
                       CLIK_A(b[0]->mem), CLIK_A(ls), CLIK_A(plan->scale), CLIK_A(b[1]->mem),
                       CLIK_A(ds));
    if (st == CLIK_OK)
        st = clik__lapar_launch_rows(ctx, k, h);
    clik__temp_release(ctx, filters, filter_bytes);
    rows_scratch_release(ctx, &r);
    if (have_buckets)
        clik__unbind(ctx, &buckets, 0);
    return st;
}

/* b[0] is src, b[1] dst: U and the buckets are device scratch, the filters
 * a buffer of the entry's table (tap-major on GPUs). */
static clik_status upscale_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const plan_args *args = p;
    const clik_lapar_model_plan *plan = &args->plan;
    const clik_image *dst = &b[1]->image;
    const int w = dst->width, h = dst->height, ch = dst->channels, taps = plan->ksize * plan->ksize;
    /* src's stride is checked by the upsample (clik__lapar_upsample_cl). */
    clik_status st = clik__lapar_check_strides(ctx, "upscale_lapar",
                                               (const clik_binding *const *)b + 1, 1, STRIDE_BITS);
    if (st != CLIK_OK)
        return st;
    if (lmodel_rows(ctx, plan, w))
        return upscale_rows_cl(ctx, args, b);
    /* The filter: on GPUs U through a local-memory tile (lmodel_filter_local:
     * work-groups of at most 32 x 8) and the table tap-major; else U from
     * global memory and the table bucket-major (a work-item's taps in a row). */
    const int local = (int)clik__tune(ctx, CLIK_TUNE_LMODEL_LOCAL,
                                      ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU);
    const int bstride = local ? 1 : taps, tstride = local ? plan->buckets : 1;
    const size_t filter_bytes = (size_t)plan->buckets * (size_t)taps * sizeof(float);
    clik_binding up, buckets;
    cl_mem filters = NULL;
    int have_up = 0, have_buckets = 0;
    st = clik__bind_scratch(ctx, w, h, ch, CLIK_F32, &up);
    have_up = st == CLIK_OK;
    up.image.order = b[0]->image.order; /* the luma of the buckets weights its colours */
    if (st == CLIK_OK)
        st = clik__bind_scratch(ctx, w, h, 1, CLIK_U16, &buckets);
    have_buckets = have_up && st == CLIK_OK;
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, filter_bytes, &filters);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, filters, local ? args->filters_by_tap : plan->filters,
                               filter_bytes);
    if (st == CLIK_OK)
        st = clik__lapar_upsample_cl(ctx, b[0], plan->scale, &up);
    if (st == CLIK_OK)
        st = cl_classify(ctx, plan, &up, &buckets, dst->type);
    clik_kernel_entry *k;
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", dst->type, ch, MODEL_OPTIONS,
                                local ? "lmodel_filter_local" : "lmodel_filter", &k);
    const int us = clik__elems(&up), bs = clik__elems(&buckets), ds = clik__elems(b[1]);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(up.mem), CLIK_A(us), CLIK_A(w), CLIK_A(h),
                       CLIK_A(buckets.mem), CLIK_A(bs), CLIK_A(filters), CLIK_A(bstride),
                       CLIK_A(tstride), CLIK_A(plan->ksize), CLIK_A(b[1]->mem), CLIK_A(ds));
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)w, (size_t)h}, group[2] = {32, 8};
        st = clik__launch(ctx, k, 2, items, group);
    }
    clik__temp_release(ctx, filters, filter_bytes);
    if (have_buckets)
        clik__unbind(ctx, &buckets, 0);
    if (have_up)
        clik__unbind(ctx, &up, 0);
    return st;
}

static const clik_op upscale_op = {"upscale_lapar", upscale_opencl, upscale_cpu};

clik_status clik_upscale_lapar(clik_context *ctx, const clik_image *src, clik_image *dst, int scale,
                               const clik_lapar_model *model)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    const char *fn = "clik_upscale_lapar";
    clik_status st =
        clik__check_format(ctx, src, "clik_upscale_lapar: src", CLIK_TYPES(CLIK_U8, CLIK_F32),
                           CLIK_CHANNELS(1, 3, 4), 0, 0);
    const model_entry *e = NULL;
    if (st == CLIK_OK)
        st = find_entry(ctx, model, scale, fn, &e);
    if (st != CLIK_OK)
        return st;
    if ((long)src->width * scale > CLIK_MAX_DIM || (long)src->height * scale > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE, "%s: %dx%d times %d is larger than %d", fn,
                          src->width, src->height, scale, CLIK_MAX_DIM);
    st = clik__check_like(ctx, dst, src, "clik_upscale_lapar: dst", src->width * scale,
                          src->height * scale);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, dst, 0, fn);
    if (st != CLIK_OK)
        return st;
    return run_planned(ctx, &upscale_op, e, e->filters, src, dst);
}

/* ---- training ----------------------------------------------------------------------------- */

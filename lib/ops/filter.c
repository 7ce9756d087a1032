/*
 * Filter family: Gaussian weights, separable Gaussian blur, RGBA -> grey
 * (kernels/filter.cl, fallback_cpu/{scalar,neon}/filter.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- weights ------------------------------------------------------------------- */

clik_status clik_gaussian_weights(int ksize, double sigma, float *weights)
{
    if (!weights)
        return CLIK_ERR_NULL;
    if (ksize < 1 || ksize > CLIK_BLUR_MAX_KSIZE || ksize % 2 == 0 || !isfinite(sigma))
        return CLIK_ERR_INVALID_ARG;
    /* OpenCV's getGaussianKernel: fixed tables (in 256ths) for the small
     * sizes when sigma is not given; OpenCV 4 has one for 9 taps too. */
    static const double small[5][9] = {
        {256},
        {64, 128, 64},
        {16, 64, 96, 64, 16},
        {8, 28, 56, 72, 56, 28, 8},
        {4, 13, 30, 51, 60, 51, 30, 13, 4},
    };
    double w[CLIK_BLUR_MAX_KSIZE], sum = 0.0;
    const int r = ksize / 2;
    if (sigma <= 0.0 && ksize <= 9) {
        for (int i = 0; i < ksize; i++)
            w[i] = small[r][i];
        sum = 256.0;
    } else {
        const double s = sigma > 0.0 ? sigma : 0.3 * ((ksize - 1) * 0.5 - 1.0) + 0.8;
        for (int i = 0; i < ksize; i++) {
            const double x = i - r;
            /* The centre is 1 even when 2 s^2 underflows to 0. */
            w[i] = x == 0.0 ? 1.0 : exp(-(x * x) / (2.0 * s * s));
            sum += w[i];
        }
    }
    const double scale = 1.0 / sum;
    for (int i = 0; i < ksize; i++)
        weights[i] = (float)(w[i] * scale);
    return CLIK_OK;
}

/* ---- arguments and validation --------------------------------------------------- */

typedef struct filter_args {
    const clik_image *src;
    clik_image *dst;
    int ksize;
    float weights[32]; /* ksize taps, then zeros: the kernels take two float16 */
} filter_args;

static clik_status check_pixels(clik_context *ctx, const clik_image *img, const char *what)
{
    clik_status st = clik__check_image(ctx, img, what);
    if (st == CLIK_OK && img->type != CLIK_U8 && img->type != CLIK_F32)
        st = clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: needs u8 or f32 pixels, not %s",
                        what, clik_type_name(img->type));
    return st;
}

/* dst: channels of type t, of src's size. */
static clik_status check_output(clik_context *ctx, const clik_image *src, const clik_image *dst,
                                int channels, const char *what)
{
    clik_status st = clik__check_image(ctx, dst, what);
    if (st != CLIK_OK)
        return st;
    if (dst->type != src->type || dst->channels != channels)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: needs %d-channel %s, not %d-channel %s", what, channels,
                          clik_type_name(src->type), dst->channels, clik_type_name(dst->type));
    if (dst->width != src->width || dst->height != src->height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: is %dx%d, needs %dx%d", what,
                          dst->width, dst->height, src->width, src->height);
    return CLIK_OK;
}

/* ---- OpenCL path ------------------------------------------------------------------- */

static int elems(const clik_binding *b)
{
    return (int)(b->stride / clik_type_size(b->image.type));
}

/* Kernels index images with int: every element must be reachable. */
static clik_status check_int_range(clik_context *ctx, const clik_binding *b)
{
    if (b->span / clik_type_size(b->image.type) > (size_t)INT32_MAX)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "an image of %zu bytes is larger than the filter kernels address",
                          b->span);
    return CLIK_OK;
}

static const char *cl_type(clik_type t)
{
    return t == CLIK_U8 ? "uchar" : "float";
}

/* Binds src and dst (once when they are the same image). */
typedef struct pair {
    clik_binding src, dst;
    int same;
} pair;

static clik_status bind_pair(clik_context *ctx, const clik_image *src, clik_image *dst, pair *p)
{
    clik_status st;
    p->same = clik__same_image(src, dst, &st) == 1;
    st = clik__bind(ctx, src, p->same ? CLIK_READ | CLIK_WRITE : CLIK_READ, &p->src);
    if (st != CLIK_OK)
        return st;
    if (!p->same) {
        st = clik__bind(ctx, dst, CLIK_WRITE, &p->dst);
        if (st != CLIK_OK) {
            clik__unbind(ctx, &p->src, 0);
            return st;
        }
    }
    st = check_int_range(ctx, &p->src);
    if (st == CLIK_OK && !p->same)
        st = check_int_range(ctx, &p->dst);
    if (st != CLIK_OK) {
        if (!p->same)
            clik__unbind(ctx, &p->dst, 0);
        clik__unbind(ctx, &p->src, 0);
    }
    return st;
}

static clik_status unbind_pair(clik_context *ctx, pair *p, clik_status st)
{
    clik_status st2 = p->same ? CLIK_OK : clik__unbind(ctx, &p->dst, st == CLIK_OK);
    clik_status st3 = clik__unbind(ctx, &p->src, st == CLIK_OK);
    return st != CLIK_OK ? st : st2 != CLIK_OK ? st2 : st3;
}

/* The blur program for src's format, with a tile of *tw x *th work-items
 * when local (shrunk to the device's and then the kernel's limits). */
static clik_status blur_kernel(clik_context *ctx, const clik_image *img, int ksize, int local,
                               const char *name, int *tw, int *th, clik_kernel_entry **k)
{
    size_t limit = ctx->dev.max_work_group_size;
    for (;;) {
        if (!local)
            *tw = *th = 1; /* unused: one program for every launch shape */
        while ((size_t)(*tw * *th) > limit || (size_t)*tw > ctx->dev.max_work_item_sizes[0] ||
               (size_t)*th > ctx->dev.max_work_item_sizes[1])
            if (*th > 1)
                *th /= 2;
            else
                *tw /= 2;
        char options[192];
        snprintf(options, sizeof(options),
                 "-DT=%s -DT_IS_FLOAT=%d -DCH=%d -DKSIZE=%d -DBLUR_LOCAL=%d -DTILE_W=%d "
                 "-DTILE_H=%d",
                 cl_type(img->type), img->type == CLIK_F32, img->channels, ksize, local, *tw, *th);
        clik_status st = clik__kernel(ctx, "filter", options, name, k);
        if (st != CLIK_OK || !local || (*k)->max_work_group >= (size_t)(*tw * *th))
            return st;
        if (*tw * *th == 1)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "%s: no work-group fits", name);
        limit = (*k)->max_work_group; /* rebuild with a tile the kernel accepts */
    }
}

/* Sets the kernel arguments that follow the images: the weights as two float16. */
static clik_status set_weights(clik_context *ctx, clik_kernel_entry *k, unsigned idx,
                               const float *weights)
{
    clik_status st = clik__arg(ctx, k, idx, 16 * sizeof(float), weights);
    return st == CLIK_OK ? clik__arg(ctx, k, idx + 1, 16 * sizeof(float), weights + 16) : st;
}

/* Local memory a tile of tw x th pixels with halos needs (row: th = 1). */
static int tile_fits(const clik_context *ctx, size_t pixels, const clik_image *img)
{
    return pixels * (size_t)img->channels * sizeof(float) <= ctx->dev.local_mem_size;
}

/* Row pass into scratch, then column pass into dst (any device; dst may be
 * src: the row pass has read all of src before the column pass writes).
 * Each kernel is looked up right before its launch: building a program
 * (the scratch's poison fill too) may move the earlier entries. */
static clik_status cl_blur_two_pass(clik_context *ctx, const filter_args *a,
                                    const clik_binding *src, const clik_binding *dst, int local)
{
    const clik_image *img = &src->image;
    const int w = img->width, h = img->height, r = a->ksize / 2;
    int rw = (int)clik__tune_int(ctx, "blur_row_w", 256), rh = 1;
    int cw = (int)clik__tune_int(ctx, "blur_col_w", 8);
    int chh = (int)clik__tune_int(ctx, "blur_col_h", 32);
    const int row_local = local && tile_fits(ctx, (size_t)(rw + 2 * r), img);
    const int col_local = local && tile_fits(ctx, (size_t)cw * (size_t)(chh + 2 * r), img);
    clik_binding tmp;
    clik_status st = clik__bind_scratch(ctx, w, h, img->channels, CLIK_F32, &tmp);
    if (st != CLIK_OK)
        return st;
    const int ss = elems(src), ts = elems(&tmp), ds = elems(dst);
    size_t items[2] = {(size_t)w, (size_t)h};
    clik_kernel_entry *k;
    st = blur_kernel(ctx, img, a->ksize, row_local, "blur_row", &rw, &rh, &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(tmp.mem),
                       CLIK_A(ts));
    if (st == CLIK_OK)
        st = set_weights(ctx, k, 6, a->weights);
    if (st == CLIK_OK && row_local) {
        size_t global[2] = {((size_t)w + rw - 1) / rw * rw, (size_t)h}, lsize[2] = {(size_t)rw, 1};
        st = clik__launch_exact(ctx, k, 2, global, lsize);
    } else if (st == CLIK_OK) {
        size_t lsize[2] = {64, 4};
        st = clik__launch(ctx, k, 2, items, lsize);
    }
    if (st == CLIK_OK)
        st = blur_kernel(ctx, img, a->ksize, col_local, "blur_col", &cw, &chh, &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(tmp.mem), CLIK_A(ts), CLIK_A(w), CLIK_A(h), CLIK_A(dst->mem),
                       CLIK_A(ds));
    if (st == CLIK_OK)
        st = set_weights(ctx, k, 6, a->weights);
    if (st == CLIK_OK && col_local) {
        size_t global[2] = {((size_t)w + cw - 1) / cw * cw, ((size_t)h + chh - 1) / chh * chh};
        size_t lsize[2] = {(size_t)cw, (size_t)chh};
        st = clik__launch_exact(ctx, k, 2, global, lsize);
    } else if (st == CLIK_OK) {
        size_t lsize[2] = {32, 8};
        st = clik__launch(ctx, k, 2, items, lsize);
    }
    clik__unbind(ctx, &tmp, 0);
    return st;
}

/* CPU devices: blur_cpu, a band of rows per work-item with its ring of
 * filtered rows. In place, the source is copied first (bands read rows that
 * their neighbours write). */
static clik_status cl_blur_cpu(clik_context *ctx, const filter_args *a, const clik_binding *src,
                               const clik_binding *dst, int same)
{
    const clik_image *img = &src->image;
    const int w = img->width, h = img->height;
    /* A few bands per compute unit; a band of fewer rows than taps would
     * filter most of its rows twice. */
    const long groups = (long)ctx->dev.compute_units * 4;
    long rows = (h + groups - 1) / groups;
    rows = rows < 2L * a->ksize ? 2L * a->ksize : rows;
    const int band_rows = (int)clik__tune_int(ctx, "blur_band_rows", rows);
    const size_t bands = ((size_t)h + (size_t)band_rows - 1) / (size_t)band_rows;
    /* Per band: ksize filtered rows of w * channels floats. */
    const size_t ring_bytes =
        bands * (size_t)a->ksize * (size_t)w * (size_t)img->channels * sizeof(float);
    cl_mem ring, copy = NULL;
    clik_status st = clik__temp_buffer(ctx, ring_bytes, &ring);
    if (st != CLIK_OK)
        return st;
    cl_mem in = src->mem;
    if (same) {
        st = clik__temp_buffer(ctx, src->span, &copy);
        if (st == CLIK_OK) {
            cl_int err = ctx->cl->clEnqueueCopyBuffer(ctx->queue, src->mem, copy, 0, 0, src->span,
                                                      0, NULL, NULL);
            if (err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "clEnqueueCopyBuffer");
            in = copy;
        }
    }
    /* The kernel after the buffers: their poison fill may build a program. */
    int tw = 1, th = 1;
    clik_kernel_entry *k;
    if (st == CLIK_OK)
        st = blur_kernel(ctx, img, a->ksize, 0, "blur_cpu", &tw, &th, &k);
    const int ss = elems(src), ds = elems(dst);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(in), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(dst->mem),
                       CLIK_A(ds), CLIK_A(ring), CLIK_A(band_rows));
    if (st == CLIK_OK)
        st = set_weights(ctx, k, 8, a->weights);
    if (st == CLIK_OK) {
        size_t global[1] = {bands}, lsize[1] = {1};
        st = clik__launch_exact(ctx, k, 1, global, lsize);
    }
    if (copy)
        clik__temp_release(ctx, copy, src->span);
    clik__temp_release(ctx, ring, ring_bytes);
    return st;
}

static clik_status blur_opencl(clik_context *ctx, void *p)
{
    filter_args *a = p;
    pair b;
    clik_status st = bind_pair(ctx, a->src, a->dst, &b);
    if (st != CLIK_OK)
        return st;
    const clik_binding *dst = b.same ? &b.src : &b.dst;
    if (clik__tune_flag(ctx, "blur_cpu", ctx->dev.type == CLIK_DEVICE_CPU)) {
        st = cl_blur_cpu(ctx, a, &b.src, dst, b.same);
    } else {
        const int local = clik__tune_flag(ctx, "blur_local",
                                          ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU);
        st = cl_blur_two_pass(ctx, a, &b.src, dst, local);
    }
    return unbind_pair(ctx, &b, st);
}

static clik_status gray_opencl(clik_context *ctx, void *p)
{
    filter_args *a = p;
    pair b;
    clik_status st = bind_pair(ctx, a->src, a->dst, &b);
    if (st != CLIK_OK)
        return st;
    const clik_image *img = a->src;
    const size_t esize = clik_type_size(img->type);
    /* Whole-pixel loads where every pixel starts 4-element aligned; u8
     * pixels then also as uints on little-endian devices. */
    const int aligned = b.src.base_aligned && b.src.stride % (4 * esize) == 0;
    const int as_uint = aligned && img->type == CLIK_U8 && ctx->dev.little_endian;
    const int rows = clik__tune_flag(ctx, "gray_rows", ctx->dev.type == CLIK_DEVICE_CPU);
    char options[128];
    snprintf(options, sizeof(options),
             "-DGRAY=1 -DT=%s -DT_IS_FLOAT=%d -DALIGNED4=%d -DPIXEL_UINT=%d", cl_type(img->type),
             img->type == CLIK_F32, aligned, as_uint);
    clik_kernel_entry *k;
    st = clik__kernel(ctx, "filter", options, rows ? "gray_rows" : "gray", &k);
    const int w = img->width, h = img->height, ss = elems(&b.src), ds = elems(&b.dst);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(b.src.mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h),
                       CLIK_A(b.dst.mem), CLIK_A(ds));
    if (st == CLIK_OK && rows) {
        /* A few bands per compute unit. */
        const long groups = (long)ctx->dev.compute_units * 4;
        const int band_rows = (int)clik__tune_int(ctx, "gray_band_rows", (h + groups - 1) / groups);
        st = CLIK_ARG(ctx, k, 6, band_rows);
        size_t global[1] = {((size_t)h + (size_t)band_rows - 1) / (size_t)band_rows},
               lsize[1] = {1};
        if (st == CLIK_OK)
            st = clik__launch_exact(ctx, k, 1, global, lsize);
    } else if (st == CLIK_OK) {
        size_t items[2] = {(size_t)w, (size_t)h}, lsize[2] = {64, 4};
        st = clik__launch(ctx, k, 2, items, lsize);
    }
    return unbind_pair(ctx, &b, st);
}

/* ---- CPU path ------------------------------------------------------------------------- */

typedef struct filter_cpu {
    const clik_filter_dsp *dsp;
    const filter_args *args;
} filter_cpu;

static int blur_body(const clik_image *src, clik_image *dst, void *user)
{
    const filter_cpu *f = user;
    return f->dsp->blur(src, dst, f->args->weights, f->args->ksize);
}

static int gray_body(const clik_image *src, clik_image *dst, void *user)
{
    ((const filter_cpu *)user)->dsp->gray(src, dst);
    return 0;
}

static clik_status blur_cpu(clik_context *ctx, void *p)
{
    filter_cpu f = {&ctx->dsp.filter, p};
    return clik__cpu_apply(ctx, f.args->src, f.args->dst, blur_body, &f, "clik_gaussian_blur");
}

static clik_status gray_cpu(clik_context *ctx, void *p)
{
    filter_cpu f = {&ctx->dsp.filter, p};
    return clik__cpu_apply(ctx, f.args->src, f.args->dst, gray_body, &f, "clik_gray");
}

/* ---- public entry points ---------------------------------------------------------------- */

clik_status clik_gaussian_blur(clik_context *ctx, const clik_image *src, clik_image *dst, int ksize,
                               double sigma)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, src, "clik_gaussian_blur: src");
    if (st == CLIK_OK)
        st = check_output(ctx, src, dst, src->channels, "clik_gaussian_blur: dst");
    if (st != CLIK_OK)
        return st;
    if (ksize < 1 || ksize > CLIK_BLUR_MAX_KSIZE || ksize % 2 == 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_gaussian_blur: ksize %d is not odd and within 1..%d", ksize,
                          CLIK_BLUR_MAX_KSIZE);
    if (!isfinite(sigma))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_gaussian_blur: sigma is not finite");
    clik__same_image(src, dst, &st);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_gaussian_blur: src and dst overlap partially");
    filter_args a = {.src = src, .dst = dst, .ksize = ksize};
    clik_gaussian_weights(ksize, sigma, a.weights);
    return clik__run(ctx, "gaussian_blur", blur_opencl, blur_cpu, &a);
}

clik_status clik_gray(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, src, "clik_gray: src");
    if (st == CLIK_OK && src->channels != 4)
        st = clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                        "clik_gray: src has %d channels, needs 4 (RGBA)", src->channels);
    if (st == CLIK_OK)
        st = check_output(ctx, src, dst, 1, "clik_gray: dst");
    if (st != CLIK_OK)
        return st;
    /* Images of different formats cannot be the same: any overlap is partial. */
    clik__same_image(src, dst, &st);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_gray: src and dst overlap");
    filter_args a = {.src = src, .dst = dst};
    return clik__run(ctx, "gray", gray_opencl, gray_cpu, &a);
}

/*
 * Filter family: Gaussian weights, separable Gaussian blur, RGB(A) -> grey
 * (kernels/filter.cl, fallback_cpu/{scalar,neon}/filter.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gaussian.h"
#include "internal.h"

/* ---- weights ------------------------------------------------------------------- */

clik_status clik_gaussian_weights(int ksize, double sigma, float *weights)
{
    if (!weights)
        return CLIK_ERR_NULL;
    if (ksize < 1 || ksize > CLIK_BLUR_MAX_KSIZE || ksize % 2 == 0 || !isfinite(sigma))
        return CLIK_ERR_INVALID_ARG;
    clik__gaussian_weights(ksize, sigma, weights);
    return CLIK_OK;
}

/* ---- arguments and validation --------------------------------------------------- */

typedef struct filter_args {
    const clik_image *src;
    clik_image *dst;
    int ksize;
    float weights[CLIK_BLUR_MAX_KSIZE];
    cl_mem weights_mem; /* OpenCL path: the weights in device memory */
} filter_args;

#define PIXELS CLIK_TYPES(CLIK_U8, CLIK_F32)

/* ---- OpenCL path ------------------------------------------------------------------- */

/* Sets the arguments of a blur kernel from index idx: the taps and the
 * buffer of their weights. */
static clik_status set_taps(clik_context *ctx, clik_kernel_entry *k, unsigned idx,
                            const filter_args *a)
{
    clik_status st = CLIK_ARG(ctx, k, idx, a->ksize);
    return st == CLIK_OK ? CLIK_ARG(ctx, k, idx + 1, a->weights_mem) : st;
}

/*
 * One pass of the two-pass blur. With local memory, a tile of tw x th
 * work-items (th = 1 for the row pass) stages its pixels and halos: the
 * tile is shrunk to the device's and the kernel's limits and must fit the
 * local memory, else the pass runs without it.
 */
static clik_status blur_pass(clik_context *ctx, const filter_args *a, const char *name, int local,
                             int tw, int th, cl_mem in, int in_stride, cl_mem out, int out_stride)
{
    const clik_image *img = a->src;
    /* The row pass's tile is one row with both halos, the column pass's
     * th rows with theirs: by the pass, not by th (a column tile may be one
     * row high). */
    const int w = img->width, h = img->height, r = a->ksize / 2;
    const int row = strcmp(name, "blur_row") == 0;
    char kname[32];
    snprintf(kname, sizeof(kname), "%s%s", name, local ? "_local" : "");
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "filter", img->type, img->channels, "", kname, &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(in), CLIK_A(in_stride), CLIK_A(w), CLIK_A(h), CLIK_A(out),
                       CLIK_A(out_stride));
    if (st == CLIK_OK)
        st = set_taps(ctx, k, 6, a);
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)w, (size_t)h};
    if (!local) {
        size_t lsize[2] = {row ? 64 : 32, row ? 4 : 8};
        return clik__launch(ctx, k, 2, items, lsize);
    }
    size_t lsize[2] = {(size_t)tw, (size_t)th};
    clik__fit_local(ctx, k, 2, lsize);
    /* A 3-channel pixel is a float3 in the tile: the size of a float4. */
    const size_t px = (size_t)(img->channels == 3 ? 4 : img->channels) * sizeof(float);
    const size_t bytes =
        (row ? lsize[0] + 2 * (size_t)r : lsize[0] * (lsize[1] + 2 * (size_t)r)) * px;
    if (bytes > ctx->dev.local_mem_size)
        return blur_pass(ctx, a, name, 0, 1, th, in, in_stride, out, out_stride);
    st = clik__arg(ctx, k, 8, bytes, NULL);
    return st == CLIK_OK ? clik__launch(ctx, k, 2, items, lsize) : st; /* lsize fits */
}

/* Row pass into scratch, then column pass into dst (any device; dst may be
 * src: the row pass has read all of src before the column pass writes). */
static clik_status cl_blur_two_pass(clik_context *ctx, const filter_args *a,
                                    const clik_binding *src, const clik_binding *dst, int local)
{
    const clik_image *img = &src->image;
    clik_binding tmp;
    clik_status st =
        clik__bind_scratch(ctx, img->width, img->height, img->channels, CLIK_F32, &tmp);
    if (st != CLIK_OK)
        return st;
    const int ss = clik__elems(src), ts = clik__elems(&tmp), ds = clik__elems(dst);
    st = blur_pass(ctx, a, "blur_row", local, (int)clik__tune(ctx, CLIK_TUNE_BLUR_ROW_W, 256), 1,
                   src->mem, ss, tmp.mem, ts);
    if (st == CLIK_OK)
        st = blur_pass(ctx, a, "blur_col", local, (int)clik__tune(ctx, CLIK_TUNE_BLUR_COL_W, 8),
                       (int)clik__tune(ctx, CLIK_TUNE_BLUR_COL_H, 32), tmp.mem, ts, dst->mem, ds);
    clik__unbind(ctx, &tmp, 0);
    return st;
}

/* The most taps of blur_block (its window in registers). */
#define BLOCK_MAX_KSIZE 9

/* Blurs of at most 9 taps on GPUs (blur_block): both passes in registers, a
 * work-item per 16 elements of two output rows, the taps a build option.
 * *ran stays 0 in place, where a work-item's source rows are its
 * neighbours' output (the caller then runs another kernel). */
static clik_status cl_blur_block(clik_context *ctx, const filter_args *a, const clik_binding *src,
                                 const clik_binding *dst, int *ran)
{
    const clik_image *img = &src->image;
    *ran = 0;
    if (src->mem == dst->mem)
        return CLIK_OK;
    char opts[16];
    snprintf(opts, sizeof(opts), "-DKS=%d", a->ksize);
    clik_kernel_entry *k;
    clik_status st =
        clik__pixel_kernel(ctx, "filter", img->type, img->channels, opts, "blur_block", &k);
    const int w = img->width, h = img->height, ss = clik__elems(src), ds = clik__elems(dst);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(dst->mem),
                       CLIK_A(ds), CLIK_A(a->weights_mem));
    if (st != CLIK_OK)
        return st;
    const size_t elems = (size_t)w * (size_t)img->channels;
    size_t items[2] = {(elems + 15) / 16, ((size_t)h + 1) / 2}, lsize[2] = {32, 4};
    *ran = 1;
    return clik__launch(ctx, k, 2, items, lsize);
}

/*
 * Both passes in one kernel through local memory (blur_fused): a work-group
 * of w x h work-items writes w x (h * rows) pixels. The rows per work-item
 * halve until the two tiles fit the local memory; *ran stays 0 (the caller
 * runs the two passes) where even one row does not fit, and in place, where
 * a tile's halo would be a neighbour's output.
 */
static clik_status cl_blur_fused(clik_context *ctx, const filter_args *a, const clik_binding *src,
                                 const clik_binding *dst, int *ran)
{
    const clik_image *img = &src->image;
    const int w = img->width, h = img->height;
    const size_t r = (size_t)(a->ksize / 2);
    *ran = 0;
    if (src->mem == dst->mem)
        return CLIK_OK;
    clik_kernel_entry *k;
    clik_status st =
        clik__pixel_kernel(ctx, "filter", img->type, img->channels, "", "blur_fused", &k);
    if (st != CLIK_OK)
        return st;
    size_t lsize[2] = {(size_t)clik__tune(ctx, CLIK_TUNE_BLUR_FUSED_W, 32),
                       (size_t)clik__tune(ctx, CLIK_TUNE_BLUR_FUSED_H, 8)};
    clik__fit_local(ctx, k, 2, lsize);
    /* No more rows per work-item than the image needs. */
    size_t rows = (size_t)clik__tune(ctx, CLIK_TUNE_BLUR_FUSED_ROWS, 4);
    const size_t needed = ((size_t)h + lsize[1] - 1) / lsize[1];
    rows = rows < needed ? rows : needed;
    /* Staged pixels as T; the row pass's as floats (a float3 has a float4's
     * size). */
    const size_t elem = clik_type_size(img->type) * (size_t)img->channels;
    const size_t px = (size_t)(img->channels == 3 ? 4 : img->channels) * sizeof(float);
    size_t src_bytes = 0, row_bytes = 0;
    for (; rows > 0; rows /= 2) {
        const size_t sh = lsize[1] * rows + 2 * r;
        src_bytes = (lsize[0] + 2 * r) * sh * elem;
        row_bytes = lsize[0] * sh * px;
        if (src_bytes + row_bytes <= ctx->dev.local_mem_size)
            break;
    }
    if (rows == 0) {
        clik__log(ctx, CLIK_LOG_DEBUG,
                  "clik_gaussian_blur: a fused tile of %zu x %zu work-items with ksize %d "
                  "exceeds %zu bytes of local memory: two passes",
                  lsize[0], lsize[1], a->ksize, (size_t)ctx->dev.local_mem_size);
        return CLIK_OK;
    }
    const int ss = clik__elems(src), ds = clik__elems(dst), rpi = (int)rows;
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(dst->mem),
                   CLIK_A(ds));
    if (st == CLIK_OK)
        st = set_taps(ctx, k, 6, a);
    if (st == CLIK_OK)
        st = CLIK_ARG(ctx, k, 8, rpi);
    if (st == CLIK_OK)
        st = clik__arg(ctx, k, 9, src_bytes, NULL);
    if (st == CLIK_OK)
        st = clik__arg(ctx, k, 10, row_bytes, NULL);
    if (st != CLIK_OK)
        return st;
    const size_t tile_rows = lsize[1] * rows;
    const size_t global[2] = {((size_t)w + lsize[0] - 1) / lsize[0] * lsize[0],
                              ((size_t)h + tile_rows - 1) / tile_rows * lsize[1]};
    *ran = 1;
    return clik__launch_exact(ctx, k, 2, global, lsize);
}

int clik__blur_band_rows(const clik_context *ctx, int w, int ch, int h, int ksize)
{
    const long budget = clik__loop_budget(ctx);
    /* Loop iterations per source row, each loop counted with its exit test:
     * (ksize + 1) per 16 elements in each pass, per edge element and per
     * element of the unaligned heads and tails; a band filters ksize - 1
     * rows more than it writes. */
    const long n = (long)w * ch;
    const long per_row = (n / 8 + (long)(ksize - 1) * ch + 64) * (ksize + 1) + 16;
    const long most = budget ? budget / per_row - (ksize - 1) : 0;
    if (budget && most < 1)
        return 0;
    if (h <= 0)
        return budget ? (int)(most < INT_MAX ? most : INT_MAX) : 0;
    /* A few bands per compute unit; a band of fewer rows than taps would
     * filter most of its rows twice. */
    const long groups = (long)ctx->dev.compute_units * 4;
    long rows = (h + groups - 1) / (groups > 0 ? groups : 1);
    rows = rows < 2L * ksize ? 2L * ksize : rows;
    return (int)(budget && rows > most ? most : rows);
}

/* Sets blur_cpu's arguments on a w x h image of ch channels and launches it
 * over its bands. */
static clik_status launch_band(clik_context *ctx, clik_type t, int ch, cl_mem in, int ss, int w,
                               int h, cl_mem out, int ds, cl_mem ring, int band_rows,
                               const filter_args *a)
{
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "filter", t, ch, "", "blur_cpu", &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(in), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(out),
                       CLIK_A(ds), CLIK_A(ring), CLIK_A(band_rows));
    if (st == CLIK_OK)
        st = set_taps(ctx, k, 8, a);
    size_t global[1] = {((size_t)h + (size_t)band_rows - 1) / (size_t)band_rows}, lsize[1] = {1};
    return st == CLIK_OK ? clik__launch_exact(ctx, k, 1, global, lsize) : st;
}

clik_status clik__blur_plane(clik_context *ctx, cl_mem src, cl_mem dst, int w, int h, cl_mem taps,
                             int ksize, int band_rows, cl_mem ring, cl_mem tmp)
{
    const clik_image img = {.width = w, .height = h, .channels = 1, .type = CLIK_F32};
    const filter_args a = {.src = &img, .ksize = ksize, .weights_mem = taps};
    if (band_rows > 0)
        return launch_band(ctx, CLIK_F32, 1, src, w, w, h, dst, w, ring, band_rows, &a);
    clik_status st = blur_pass(ctx, &a, "blur_row", 0, 1, 1, src, w, tmp, w);
    return st == CLIK_OK ? blur_pass(ctx, &a, "blur_col", 0, 1, 1, tmp, w, dst, w) : st;
}

/* CPU devices: blur_cpu, a band of rows per work-item with its ring of
 * filtered rows. In place, the source is copied first (bands read rows that
 * their neighbours write). */
static clik_status cl_blur_cpu(clik_context *ctx, const filter_args *a, const clik_binding *src,
                               const clik_binding *dst, int same)
{
    const clik_image *img = &src->image;
    const int w = img->width, h = img->height;
    int band_rows = (int)clik__tune(ctx, CLIK_TUNE_BLUR_BAND_ROWS,
                                    clik__blur_band_rows(ctx, w, img->channels, h, a->ksize));
    const int most = clik__blur_band_rows(ctx, w, img->channels, 0, a->ksize);
    band_rows = most && band_rows > most ? most : band_rows;
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
    if (st == CLIK_OK)
        st = launch_band(ctx, img->type, img->channels, in, clik__elems(src), w, h, dst->mem,
                         clik__elems(dst), ring, band_rows, a);
    clik__temp_release(ctx, copy, src->span);
    clik__temp_release(ctx, ring, ring_bytes);
    return st;
}

/* b[0] is src, b[1] dst (the same binding in place). */
static clik_status blur_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    filter_args *a = p;
    /* Row offsets are size_t products, the strides int arguments. */
    clik_status st = clik__check_int_strides(ctx, b, 2, 0, "clik_gaussian_blur");
    const size_t wbytes = (size_t)a->ksize * sizeof(float);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, wbytes, &a->weights_mem);
    if (st != CLIK_OK)
        return st;
    st = clik__write_bytes(ctx, a->weights_mem, a->weights, wbytes);
    const clik_image *img = &b[0]->image;
    /* blur_cpu where a band of one row at least stays within the device's
     * loop budget, whatever the tuning asks. */
    const int band_fits =
        clik__blur_band_rows(ctx, img->width, img->channels, img->height, a->ksize) > 0;
    if (st == CLIK_OK && band_fits &&
        clik__tune(ctx, CLIK_TUNE_BLUR_CPU, ctx->dev.type == CLIK_DEVICE_CPU)) {
        st = cl_blur_cpu(ctx, a, b[0], b[1], b[0] == b[1]);
    } else if (st == CLIK_OK) {
        const int gpu_local = ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU;
        int ran = 0;
        /* blur_block by default on GPUs for grey images that give it 1024
         * work-items a compute unit or more (an NVIDIA H200, 3840x2160:
         * 0.100 -> 0.065 ms; at 1920x1080 and with 3 or 4 channels the
         * fused kernel was faster). */
        const double items = (double)img->width * img->height / 32.0;
        const int block =
            ctx->dev.type != CLIK_DEVICE_CPU && img->channels == 1 &&
            items >= 1024.0 * (ctx->dev.compute_units > 0 ? ctx->dev.compute_units : 1);
        if (a->ksize <= BLOCK_MAX_KSIZE && clik__tune(ctx, CLIK_TUNE_BLUR_BLOCK, block))
            st = cl_blur_block(ctx, a, b[0], b[1], &ran);
        if (st == CLIK_OK && !ran && clik__tune(ctx, CLIK_TUNE_BLUR_FUSED, gpu_local))
            st = cl_blur_fused(ctx, a, b[0], b[1], &ran);
        if (st == CLIK_OK && !ran)
            st = cl_blur_two_pass(ctx, a, b[0], b[1],
                                  (int)clik__tune(ctx, CLIK_TUNE_BLUR_LOCAL, gpu_local));
    }
    clik__temp_release(ctx, a->weights_mem, wbytes);
    return st;
}

static clik_status gray_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    (void)p;
    const clik_binding *src = b[0], *dst = b[1];
    clik_status st = clik__check_int_strides(ctx, b, 2, 0, "clik_gray");
    if (st != CLIK_OK)
        return st;
    const clik_image *img = &src->image;
    const size_t esize = clik_type_size(img->type);
    /* Whole-pixel loads where every 4-channel pixel starts 4-element
     * aligned; u8 pixels then also as uints on little-endian devices. */
    const int aligned = img->channels == 4 && src->base_aligned && src->stride % (4 * esize) == 0;
    const int as_uint = aligned && img->type == CLIK_U8 && ctx->dev.little_endian;
    const int rows = (int)clik__tune(ctx, CLIK_TUNE_GRAY_ROWS, ctx->dev.type == CLIK_DEVICE_CPU);
    clik_kernel_entry *k;
    st = clik__pixel_kernel(ctx, "filter", img->type, img->channels, "-DGRAY=1",
                            rows      ? "gray_rows"
                            : aligned ? "gray_aligned"
                                      : "gray",
                            &k);
    const int w = img->width, h = img->height, ss = clik__elems(src), ds = clik__elems(dst);
    const int bgr = img->order == CLIK_ORDER_BGR;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(dst->mem),
                       CLIK_A(ds), CLIK_A(bgr));
    if (st != CLIK_OK)
        return st;
    if (!rows) {
        size_t items[2] = {(size_t)w, (size_t)h}, lsize[2] = {64, 4};
        return clik__launch(ctx, k, 2, items, lsize);
    }
    const int band_rows = (int)clik__band_rows(ctx, CLIK_TUNE_GRAY_BAND_ROWS, h);
    st = CLIK_ARGS_AT(ctx, k, 7, CLIK_A(band_rows), CLIK_A(as_uint));
    size_t global[1] = {((size_t)h + (size_t)band_rows - 1) / (size_t)band_rows}, lsize[1] = {1};
    return st == CLIK_OK ? clik__launch_exact(ctx, k, 1, global, lsize) : st;
}

/* ---- CPU path ------------------------------------------------------------------------- */

static clik_status blur_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const filter_args *a = p;
    if (ctx->dsp.filter.blur(v[0], v[1], a->weights, a->ksize) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_gaussian_blur: out of memory");
    return CLIK_OK;
}

static clik_status gray_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    (void)p;
    ctx->dsp.filter.gray(v[0], v[1]);
    return CLIK_OK;
}

static const clik_op blur_op = {"gaussian_blur", blur_opencl, blur_cpu};
static const clik_op gray_op = {"gray", gray_opencl, gray_cpu};

/* ---- public entry points ---------------------------------------------------------------- */

clik_status clik_gaussian_blur(clik_context *ctx, const clik_image *src, clik_image *dst, int ksize,
                               double sigma)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = clik__check_pixels(ctx, src, "clik_gaussian_blur: src");
    if (st == CLIK_OK)
        st = clik__check_like(ctx, dst, src, "clik_gaussian_blur: dst", src->width, src->height);
    if (st != CLIK_OK)
        return st;
    if (ksize < 1 || ksize > CLIK_BLUR_MAX_KSIZE || ksize % 2 == 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_gaussian_blur: ksize %d is not odd and within 1..%d", ksize,
                          CLIK_BLUR_MAX_KSIZE);
    if (!isfinite(sigma))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_gaussian_blur: sigma is not finite");
    st = clik__check_apart(ctx, src, dst, 1, "clik_gaussian_blur");
    if (st != CLIK_OK)
        return st;
    filter_args a = {.src = src, .dst = dst, .ksize = ksize};
    clik_gaussian_weights(ksize, sigma, a.weights);
    const clik_op_image images[] = {{src, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op(ctx, &blur_op, images, 2, &a);
}

clik_status clik_gray(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st =
        clik__check_format(ctx, src, "clik_gray: src", PIXELS, CLIK_CHANNELS(3, 4), 0, 0);
    if (st == CLIK_OK)
        st = clik__check_format(ctx, dst, "clik_gray: dst", CLIK_TYPE_BIT(src->type),
                                CLIK_CHANNELS(1), src->width, src->height);
    /* Images of different formats cannot be the same: any overlap is partial. */
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, dst, 0, "clik_gray");
    if (st != CLIK_OK)
        return st;
    const clik_op_image images[] = {{src, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op(ctx, &gray_op, images, 2, NULL);
}

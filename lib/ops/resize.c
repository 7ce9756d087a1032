/*
 * Resize family: nearest, bilinear, bicubic and antialiased bicubic
 * (MATLAB's imresize) resampling (kernels/resize.cl,
 * fallback_cpu/{scalar,neon}/resize.c).
 *
 * The geometry of a resize (per output column and row the first source tap
 * and its weights) is computed once per call, in double, as OpenCV's resize
 * computes it (fallback_cpu/resize_geometry.c). The kernels receive it as
 * one small table, so every device uses the same coefficients and no
 * device needs doubles. Programs are built per pixel format (and number of
 * taps); sizes, factors, tiles and alignment are arguments. This file
 * checks the arguments and runs the CPU path; the OpenCL path is in
 * resize_opencl.c.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "resize.h"

const char *clik_interp_name(clik_interp method)
{
    switch (method) {
    case CLIK_INTERP_NEAREST: return "nearest";
    case CLIK_INTERP_BILINEAR: return "bilinear";
    case CLIK_INTERP_BICUBIC: return "bicubic";
    case CLIK_INTERP_BICUBIC_AA: return "bicubic-aa";
    }
    return "unknown";
}

/* ---- sizes ------------------------------------------------------------------------ */

/* One output side: rounded to nearest, halves to even (OpenCV's cvRound). */
static clik_status scaled_side(int side, double scale, int *out)
{
    const double v = rint((double)side * scale);
    if (!(v >= 1.0) || v > (double)CLIK_MAX_DIM)
        return CLIK_ERR_INVALID_SIZE;
    *out = (int)v;
    return CLIK_OK;
}

clik_status clik_resize_size(int width, int height, double scale_x, double scale_y, int *out_width,
                             int *out_height)
{
    if (!out_width || !out_height)
        return CLIK_ERR_NULL;
    if (!isfinite(scale_x) || !isfinite(scale_y) || !(scale_x > 0.0) || !(scale_y > 0.0))
        return CLIK_ERR_INVALID_ARG;
    if (width <= 0 || height <= 0 || width > CLIK_MAX_DIM || height > CLIK_MAX_DIM)
        return CLIK_ERR_INVALID_SIZE;
    int w, h;
    clik_status st = scaled_side(width, scale_x, &w);
    if (st == CLIK_OK)
        st = scaled_side(height, scale_y, &h);
    if (st != CLIK_OK)
        return st;
    if ((size_t)w > SIZE_MAX / (size_t)h)
        return CLIK_ERR_OVERFLOW;
    *out_width = w;
    *out_height = h;
    return CLIK_OK;
}

/* ---- CPU path ------------------------------------------------------------------------ */

static clik_status resize_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const resize_args *a = p;
    ctx->dsp.resize.resize(v[0], v[1], a->method, a->scale);
    return CLIK_OK;
}

static const clik_op resize_op = {"resize", clik__resize_opencl, resize_cpu};
static const clik_op scaled_op = {"resize_scaled", clik__resize_opencl, resize_cpu};

/* ---- public entry point ---------------------------------------------------------------- */

/* The checks of clik_resize and clik_resize_scaled (fn: the name). */
static clik_status resize_check(clik_context *ctx, const char *fn, const clik_image *src,
                                const clik_image *dst, clik_interp method)
{
    if (method != CLIK_INTERP_NEAREST && method != CLIK_INTERP_BILINEAR &&
        method != CLIK_INTERP_BICUBIC && method != CLIK_INTERP_BICUBIC_AA)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: unknown method %d", fn, (int)method);
    char what[64];
    snprintf(what, sizeof(what), "%s: src", fn);
    clik_status st = clik__check_pixels(ctx, src, what);
    snprintf(what, sizeof(what), "%s: dst", fn);
    if (st == CLIK_OK)
        st = clik__check_like(ctx, dst, src, what, 0, 0);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, dst, 0, fn);
    return st;
}

clik_status clik_resize(clik_context *ctx, const clik_image *src, clik_image *dst,
                        clik_interp method)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = resize_check(ctx, "clik_resize", src, dst, method);
    if (st != CLIK_OK)
        return st;
    resize_args a = {.method = method};
    const clik_op_image images[] = {{src, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op_rgba2(ctx, &resize_op, images, 2, &a);
}

clik_status clik_resize_scaled(clik_context *ctx, const clik_image *src, clik_image *dst,
                               clik_interp method, double scale_x, double scale_y)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = resize_check(ctx, "clik_resize_scaled", src, dst, method);
    if (st != CLIK_OK)
        return st;
    int w, h;
    st = clik_resize_size(src->width, src->height, scale_x, scale_y, &w, &h);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_resize_scaled: scale %g x %g of a %dx%d image: %s",
                          scale_x, scale_y, src->width, src->height,
                          st == CLIK_ERR_INVALID_ARG ? "a scale that is not finite and positive"
                                                     : "no output size of 1 to 2^20 pixels a side");
    if (dst->width != w || dst->height != h)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_resize_scaled: dst is %dx%d; a %dx%d image scaled by %g x %g "
                          "gives %dx%d",
                          dst->width, dst->height, src->width, src->height, scale_x, scale_y, w, h);
    const double scale[2] = {scale_x, scale_y};
    resize_args a = {.method = method, .scale = scale};
    const clik_op_image images[] = {{src, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op_rgba2(ctx, &scaled_op, images, 2, &a);
}

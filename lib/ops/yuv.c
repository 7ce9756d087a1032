/*
 * YUV 4:2:0 family: camera frames (NV12, NV21, I420) to RGB(A) or grey and
 * back (kernels/yuv.cl, fallback_cpu/{scalar,neon}/yuv.c). A frame is its
 * planes, each an image of its own: the operations bind them one by one,
 * so frames on the host, on the device, in one allocation or in several
 * all take the same path.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- colour spaces ------------------------------------------------------------- */

/* c in 20-bit fixed point, rounded to nearest. */
static int32_t fixed20(double c)
{
    return (int32_t)lround(c * (double)(1 << 20));
}

/* The coefficients of a colour space: OpenCV's constants for BT.601 video
 * range (cvtColor's bytes), the exact matrices (Kr, Kb) otherwise. */
static void space_coeffs(clik_yuv_space space, clik_yuv_coeffs *k)
{
    if (space == CLIK_YUV_BT601) {
        *k = (clik_yuv_coeffs){.y_off = 16,
                               .cy = 1220542,
                               .cvr = 1673527,
                               .cvg = -852492,
                               .cug = -409993,
                               .cub = 2116026,
                               .ry = 269484,
                               .gy = 528482,
                               .by = 102760,
                               .ru = -155188,
                               .gu = -305135,
                               .bu = 460324,
                               .rv = 460324,
                               .gv = -385875,
                               .bv = -74448};
        return;
    }
    const int bt709 = space == CLIK_YUV_BT709 || space == CLIK_YUV_BT709_FULL;
    const int video = space == CLIK_YUV_BT709;
    const double kr = bt709 ? 0.2126 : 0.299, kb = bt709 ? 0.0722 : 0.114, kg = 1.0 - kr - kb;
    /* Video range: Y over 219 of 255 levels from 16, chroma over 224. */
    const double ys = video ? 219.0 / 255.0 : 1.0, cs = video ? 224.0 / 255.0 : 1.0;
    k->y_off = video ? 16 : 0;
    k->cy = fixed20(1.0 / ys);
    k->cvr = fixed20(2.0 * (1.0 - kr) / cs);
    k->cvg = fixed20(-2.0 * kr * (1.0 - kr) / kg / cs);
    k->cug = fixed20(-2.0 * kb * (1.0 - kb) / kg / cs);
    k->cub = fixed20(2.0 * (1.0 - kb) / cs);
    k->ry = fixed20(kr * ys);
    k->gy = fixed20(kg * ys);
    k->by = fixed20(kb * ys);
    k->ru = fixed20(-kr / (2.0 * (1.0 - kb)) * cs);
    k->gu = fixed20(-kg / (2.0 * (1.0 - kb)) * cs);
    k->bu = fixed20(0.5 * cs);
    k->rv = fixed20(0.5 * cs);
    k->gv = fixed20(-kg / (2.0 * (1.0 - kr)) * cs);
    k->bv = fixed20(-kb / (2.0 * (1.0 - kr)) * cs);
}

/* ---- frames ----------------------------------------------------------------------- */

/* The planes of frame f that its format uses (2 or 3): y, then uv or u
 * and v. */
static int frame_planes(const clik_yuv_image *f, const clik_image **planes)
{
    planes[0] = &f->y;
    if (f->format != CLIK_YUV_I420) {
        planes[1] = &f->uv;
        return 2;
    }
    planes[1] = &f->u;
    planes[2] = &f->v;
    return 3;
}

/* Checks frame f (what: "clik_yuv_to_rgb: src") and its planes. */
static clik_status check_frame(clik_context *ctx, const clik_yuv_image *f, const char *what)
{
    if (!f)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: the frame is NULL", what);
    if (!clik__yuv_format_known(f->format))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: unknown format %d", what, (int)f->format);
    char name[96];
    snprintf(name, sizeof(name), "%s.y", what);
    clik_status st =
        clik__check_format(ctx, &f->y, name, CLIK_TYPE_BIT(CLIK_U8), CLIK_CHANNELS(1), 0, 0);
    if (st != CLIK_OK)
        return st;
    const int w = f->y.width, h = f->y.height;
    if (w % 2 != 0 || h % 2 != 0 || w < 2 || h < 2)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "%s: a 4:2:0 frame is %dx%d: its width and height must be even", what, w,
                          h);
    const clik_image *planes[3];
    const int n = frame_planes(f, planes);
    for (int i = 1; i < n && st == CLIK_OK; i++) {
        snprintf(name, sizeof(name), "%s.%s", what, n == 2 ? "uv" : i == 1 ? "u" : "v");
        st = clik__check_format(ctx, planes[i], name, CLIK_TYPE_BIT(CLIK_U8),
                                1u << (unsigned)(n == 2 ? 2 : 1), w / 2, h / 2);
    }
    return st;
}

/* The arguments of one conversion: the colour space's coefficients, the
 * frame's format, and where its planes and the RGB image are in the op's
 * image list. */
typedef struct yuv_args {
    clik_yuv_coeffs k;
    clik_yuv_format format;
    int rgb;   /* index of the RGB image */
    int plane; /* index of Y; the chroma planes follow */
} yuv_args;

/* ---- OpenCL path -------------------------------------------------------------------- */

/* The chroma arguments of a kernel (from argument `at` on): U's buffer,
 * its first element and stride, V's likewise, and the step between
 * samples (NV12 and NV21: both in the interleaved plane, 2 apart). */
static clik_status set_chroma_args(clik_context *ctx, clik_kernel_entry *k, unsigned at,
                                   const yuv_args *a, clik_binding *const *b)
{
    const clik_binding *cu = b[a->plane + 1],
                       *cv = b[a->plane + (a->format == CLIK_YUV_I420 ? 2 : 1)];
    const int interleaved = a->format != CLIK_YUV_I420, step = interleaved ? 2 : 1;
    const int u_first = a->format == CLIK_YUV_NV21, v_first = interleaved && !u_first;
    const int us = clik__elems(cu), vs = clik__elems(cv);
    return CLIK_ARGS_AT(ctx, k, at, CLIK_A(cu->mem), CLIK_A(u_first), CLIK_A(us), CLIK_A(cv->mem),
                        CLIK_A(v_first), CLIK_A(vs), CLIK_A(step));
}

/* 1 when binding b starts 16-byte aligned with rows of whole `unit` bytes. */
static int rows_aligned(const clik_binding *b, size_t unit)
{
    return b->base_aligned && b->stride % unit == 0;
}

static clik_status yuv_opencl(clik_context *ctx, void *p, clik_binding *const *b, int to_rgb)
{
    const yuv_args *a = p;
    const clik_binding *rgb = b[a->rgb], *y = b[a->plane];
    const int w2 = y->image.width / 2, h2 = y->image.height / 2;
    const int ys = clik__elems(y), rs = clik__elems(rgb), bgr = rgb->image.order == CLIK_ORDER_BGR;
    /* The vector kernels (yuv_to_rgb_rows, rgb_to_yuv_rows): CPU devices
     * take bands of whole block rows per work-item, GPUs a 16-pixel step of
     * one block row; else a work-item per 2 x 2 block. */
    const int rows = (int)clik__tune(ctx, CLIK_TUNE_YUV_ROWS, 1);
    clik_kernel_entry *k;
    const char *name = to_rgb ? (rows ? "yuv_to_rgb_rows" : "yuv_to_rgb")
                              : (rows ? "rgb_to_yuv_rows" : "rgb_to_yuv");
    clik_status st = clik__pixel_kernel(ctx, "yuv", CLIK_U8, rgb->image.channels, "", name, &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(y->mem), CLIK_A(ys), CLIK_A(rgb->mem), CLIK_A(rs),
                       CLIK_A(bgr), CLIK_A(w2), CLIK_A(h2));
    if (st == CLIK_OK)
        st = set_chroma_args(ctx, k, 7, a, b);
    const clik_yuv_coeffs *c = &a->k;
    if (st == CLIK_OK && to_rgb)
        st = CLIK_ARGS_AT(ctx, k, 14, CLIK_A(c->y_off), CLIK_A(c->cy), CLIK_A(c->cvr),
                          CLIK_A(c->cvg), CLIK_A(c->cug), CLIK_A(c->cub));
    else if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 14, CLIK_A(c->y_off), CLIK_A(c->ry), CLIK_A(c->gy), CLIK_A(c->by),
                          CLIK_A(c->ru), CLIK_A(c->gu), CLIK_A(c->bu), CLIK_A(c->rv), CLIK_A(c->gv),
                          CLIK_A(c->bv));
    if (st != CLIK_OK)
        return st;
    if (!rows) {
        /* A work-item per 2 x 2 block. */
        size_t items[2] = {(size_t)w2, (size_t)h2}, lsize[2] = {32, 4};
        return clik__launch(ctx, k, 2, items, lsize);
    }
    /* Whole-vector accesses where every plane and the RGB image start
     * 16-byte aligned and their rows keep it (I420's chroma is read 8 bytes
     * a step); RGB(A) pixels as uints on little-endian devices where the
     * rows start 4-byte aligned. */
    const int i420 = a->format == CLIK_YUV_I420;
    int aligned = rows_aligned(rgb, 16) && rows_aligned(y, 16) &&
                  rows_aligned(b[a->plane + 1], i420 ? 8 : 16);
    if (i420)
        aligned = aligned && rows_aligned(b[a->plane + 2], 8);
    const int as_uint = rgb->image.channels >= 3 && ctx->dev.little_endian && rows_aligned(rgb, 4);
    const unsigned at = to_rgb ? 20 : 24;
    const int chunk =
        (int)clik__tune(ctx, CLIK_TUNE_YUV_ROW_STEPS, ctx->dev.type != CLIK_DEVICE_CPU);
    if (chunk > 0) {
        /* chunk steps of one block row per work-item, neighbours side by
         * side along the row (the last of a row also its w2 % 8 blocks). */
        const int steps = w2 / 8, nx = steps > chunk ? (steps + chunk - 1) / chunk : 1;
        const int one = 1;
        st = CLIK_ARGS_AT(ctx, k, at, CLIK_A(one), CLIK_A(aligned), CLIK_A(as_uint), CLIK_A(chunk));
        size_t items[2] = {(size_t)nx, (size_t)h2}, lsize[2] = {32, 4};
        return st == CLIK_OK ? clik__launch(ctx, k, 2, items, lsize) : st;
    }
    /* A few bands per compute unit, and no more block rows than keep a
     * work-item's loops (about w / 16 + 8 iterations a block row, twice that
     * for grey) within half of llvmpipe's limit of 65535. */
    const long band_rows = clik__band_rows(ctx, CLIK_TUNE_YUV_BAND_ROWS, h2);
    const long most = 32768 / ((long)w2 / 4 + 16);
    const int band = (int)(band_rows < most ? band_rows : most > 0 ? most : 1);
    const int whole = 0;
    st = CLIK_ARGS_AT(ctx, k, at, CLIK_A(band), CLIK_A(aligned), CLIK_A(as_uint), CLIK_A(whole));
    size_t global[2] = {1, ((size_t)h2 + (size_t)band - 1) / (size_t)band}, local[2] = {1, 1};
    return st == CLIK_OK ? clik__launch_exact(ctx, k, 2, global, local) : st;
}

static clik_status to_rgb_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    return yuv_opencl(ctx, p, b, 1);
}

static clik_status from_rgb_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    return yuv_opencl(ctx, p, b, 0);
}

/* ---- CPU path ------------------------------------------------------------------------- */

/* The host planes of the views v of a frame. */
static void host_planes(const yuv_args *a, clik_image *const *v, clik_yuv_planes *out)
{
    const clik_image *y = v[a->plane], *c0 = v[a->plane + 1];
    out->width = y->width;
    out->height = y->height;
    out->y = y->data;
    out->y_stride = y->stride;
    if (a->format == CLIK_YUV_I420) {
        const clik_image *c1 = v[a->plane + 2];
        out->u = c0->data;
        out->u_stride = c0->stride;
        out->v = c1->data;
        out->v_stride = c1->stride;
        out->step = 1;
        return;
    }
    uint8_t *base = c0->data;
    const int u_first = a->format == CLIK_YUV_NV21;
    out->u = base + u_first;
    out->v = base + (1 - u_first);
    out->u_stride = out->v_stride = c0->stride;
    out->step = 2;
}

static clik_status to_rgb_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const yuv_args *a = p;
    clik_yuv_planes planes;
    host_planes(a, v, &planes);
    ctx->dsp.yuv.to_rgb(&planes, v[a->rgb], &a->k);
    return CLIK_OK;
}

static clik_status from_rgb_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const yuv_args *a = p;
    clik_yuv_planes planes;
    host_planes(a, v, &planes);
    ctx->dsp.yuv.from_rgb(v[a->rgb], &planes, &a->k);
    return CLIK_OK;
}

static const clik_op to_rgb_op = {"yuv_to_rgb", to_rgb_opencl, to_rgb_cpu};
static const clik_op from_rgb_op = {"rgb_to_yuv", from_rgb_opencl, from_rgb_cpu};

/* ---- public entry points ---------------------------------------------------------------- */

static clik_status check_space(clik_context *ctx, clik_yuv_space space, const char *what)
{
    if (space < CLIK_YUV_BT601 || space > CLIK_YUV_BT709_FULL)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: unknown colour space %d", what,
                          (int)space);
    return CLIK_OK;
}

/* The checks of either direction: the frame, the RGB image (rgb_channels
 * allowed), no two images sharing memory; then the op's image list:
 * the RGB image first, the planes after it. */
static clik_status prepare(clik_context *ctx, const clik_yuv_image *f, const clik_image *rgb,
                           unsigned rgb_channels, clik_yuv_space space, const char *fn,
                           int rgb_access, clik_op_image *images, int *count, yuv_args *a)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: %s", fn, rgb_access == CLIK_WRITE ? "src" : "dst");
    clik_status st = check_space(ctx, space, fn);
    if (st == CLIK_OK)
        st = check_frame(ctx, f, what);
    snprintf(what, sizeof(what), "%s: %s", fn, rgb_access == CLIK_WRITE ? "dst" : "src");
    if (st == CLIK_OK)
        st = clik__check_format(ctx, rgb, what, CLIK_TYPE_BIT(CLIK_U8), rgb_channels, f->y.width,
                                f->y.height);
    if (st != CLIK_OK)
        return st;
    const clik_image *planes[3];
    const int n = frame_planes(f, planes);
    for (int i = 0; i < n && st == CLIK_OK; i++) {
        st = clik__check_apart(ctx, rgb, planes[i], 0, fn);
        for (int j = i + 1; j < n && st == CLIK_OK; j++)
            st = clik__check_apart(ctx, planes[i], planes[j], 0, fn);
    }
    if (st != CLIK_OK)
        return st;
    images[0] = (clik_op_image){rgb, rgb_access};
    for (int i = 0; i < n; i++)
        images[1 + i] =
            (clik_op_image){planes[i], rgb_access == CLIK_WRITE ? CLIK_READ : CLIK_WRITE};
    *count = 1 + n;
    space_coeffs(space, &a->k);
    a->format = f->format;
    a->rgb = 0;
    a->plane = 1;
    return CLIK_OK;
}

/* Either direction: the checks, then op on the frame's planes and rgb. */
static clik_status convert(clik_context *ctx, const clik_yuv_image *f, const clik_image *rgb,
                           unsigned rgb_channels, clik_yuv_space space, const char *fn,
                           int rgb_access, const clik_op *op)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_op_image images[4];
    int count = 0;
    yuv_args a;
    clik_status st = prepare(ctx, f, rgb, rgb_channels, space, fn, rgb_access, images, &count, &a);
    return st == CLIK_OK ? clik__run_op(ctx, op, images, count, &a) : st;
}

clik_status clik_yuv_to_rgb(clik_context *ctx, const clik_yuv_image *src, clik_image *dst,
                            clik_yuv_space space)
{
    return convert(ctx, src, dst, CLIK_CHANNELS(1, 3, 4), space, "clik_yuv_to_rgb", CLIK_WRITE,
                   &to_rgb_op);
}

clik_status clik_rgb_to_yuv(clik_context *ctx, const clik_image *src, clik_yuv_image *dst,
                            clik_yuv_space space)
{
    return convert(ctx, dst, src, CLIK_CHANNELS(3, 4), space, "clik_rgb_to_yuv", CLIK_READ,
                   &from_rgb_op);
}

/* The checks of a frame-to-frame operation fn: both frames, one format,
 * and no dst plane over any other plane; the planes into in and out, their
 * count returned (0 on failure). */
static int frame_pair(clik_context *ctx, const char *fn, const clik_yuv_image *src,
                      const clik_yuv_image *dst, const clik_image **in, const clik_image **out,
                      clik_status *status)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: src", fn);
    clik_status st = check_frame(ctx, src, what);
    snprintf(what, sizeof(what), "%s: dst", fn);
    if (st == CLIK_OK)
        st = check_frame(ctx, dst, what);
    if (st == CLIK_OK && src->format != dst->format)
        st = clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                        "%s: src is %s and dst %s: the result keeps the format (clik_yuv_to_rgb "
                        "and clik_rgb_to_yuv convert)",
                        fn, clik__yuv_format_name(src->format), clik__yuv_format_name(dst->format));
    int n = 0;
    if (st == CLIK_OK) {
        n = frame_planes(src, in);
        frame_planes(dst, out);
    }
    for (int i = 0; i < n && st == CLIK_OK; i++)
        for (int j = 0; j < n && st == CLIK_OK; j++) {
            st = clik__check_apart(ctx, in[j], out[i], 0, fn);
            if (st == CLIK_OK && j > i)
                st = clik__check_apart(ctx, out[i], out[j], 0, fn);
        }
    *status = st;
    return st == CLIK_OK ? n : 0;
}

clik_status clik_yuv_resize(clik_context *ctx, const clik_yuv_image *src, clik_yuv_image *dst,
                            clik_interp method)
{
    static const char fn[] = "clik_yuv_resize";
    if (!ctx)
        return CLIK_ERR_NULL;
    if (method != CLIK_INTERP_NEAREST && method != CLIK_INTERP_BILINEAR &&
        method != CLIK_INTERP_BICUBIC && method != CLIK_INTERP_BICUBIC_AA)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: unknown method %d", fn, (int)method);
    const clik_image *in[3], *out[3];
    clik_status st;
    const int n = frame_pair(ctx, fn, src, dst, in, out, &st);
    for (int i = 0; i < n && st == CLIK_OK; i++)
        st = clik_resize(ctx, in[i], (clik_image *)out[i], method);
    return st;
}

/* The luma plane of a frame upscaled into another (clik_upscale_lapar or
 * clik_lapar_net_run). */
typedef clik_status (*luma_upscaler)(clik_context *ctx, const clik_image *src, clik_image *dst,
                                     int scale, const void *with);

/* The upscalers of frames: the luma by up, each chroma plane bicubic;
 * refused: the caller's arguments' status (with why), given once the frames
 * have passed their checks. */
static clik_status upscale_frame(clik_context *ctx, const char *fn, const clik_yuv_image *src,
                                 clik_yuv_image *dst, int scale, luma_upscaler up, const void *with,
                                 clik_status refused, const char *why)
{
    const clik_image *in[3], *out[3];
    clik_status st;
    const int n = frame_pair(ctx, fn, src, dst, in, out, &st);
    if (st != CLIK_OK)
        return st;
    if (refused != CLIK_OK)
        return clik__fail(ctx, refused, "%s: %s", fn, why);
    if ((long)out[0]->width != (long)in[0]->width * scale ||
        (long)out[0]->height != (long)in[0]->height * scale)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          "%s: dst is %dx%d; a %dx%d frame upscaled by %d is %ldx%ld", fn,
                          out[0]->width, out[0]->height, in[0]->width, in[0]->height, scale,
                          (long)in[0]->width * scale, (long)in[0]->height * scale);
    st = up(ctx, in[0], (clik_image *)out[0], scale, with);
    for (int i = 1; i < n && st == CLIK_OK; i++)
        st = clik_resize(ctx, in[i], (clik_image *)out[i], CLIK_INTERP_BICUBIC);
    return st;
}

static clik_status luma_by_model(clik_context *ctx, const clik_image *src, clik_image *dst,
                                 int scale, const void *model)
{
    return clik_upscale_lapar(ctx, src, dst, scale, model);
}

static clik_status luma_by_net(clik_context *ctx, const clik_image *src, clik_image *dst, int scale,
                               const void *net)
{
    (void)scale;
    return clik_lapar_net_run(ctx, net, src, dst, NULL);
}

clik_status clik_yuv_upscale_lapar(clik_context *ctx, const clik_yuv_image *src,
                                   clik_yuv_image *dst, int scale, const clik_lapar_model *model)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    char why[64];
    snprintf(why, sizeof(why), "scale %d: the model upscales by 2 to 4", scale);
    const int ok = scale >= 2 && scale <= 4;
    return upscale_frame(ctx, "clik_yuv_upscale_lapar", src, dst, scale, luma_by_model, model,
                         ok ? CLIK_OK : CLIK_ERR_INVALID_ARG, why);
}

clik_status clik_yuv_upscale_lapar_net(clik_context *ctx, const clik_yuv_image *src,
                                       clik_yuv_image *dst, const clik_lapar_net *net)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_lapar_net_info info = {0};
    const clik_status described = net ? clik_lapar_net_describe(net, &info) : CLIK_ERR_NULL;
    return upscale_frame(ctx, "clik_yuv_upscale_lapar_net", src, dst, info.scale, luma_by_net, net,
                         described, net ? "net cannot be described" : "net is NULL");
}

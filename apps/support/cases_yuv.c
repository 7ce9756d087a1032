/*
 * Conformance cases of the YUV 4:2:0 family. A case's frame is made from
 * its synthetic input, rounded up to even sizes (edge pixels repeated):
 * luma from channel 0, U and V from the last channel and from channel 0
 * read bottom to top, so that chroma varies apart from luma. RGB to YUV
 * and resize cases write the frame in OpenCV's layout, a (H * 3 / 2) x W
 * grey image.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cases.h"

/* Element (x, y, c) of a u8 host image, coordinates clamped. */
static uint8_t at(const clik_image *in, int x, int y, int c)
{
    x = x < in->width ? x : in->width - 1;
    y = y < in->height ? y : in->height - 1;
    return ((const uint8_t *)in->data)[(size_t)y * in->stride + (size_t)x * in->channels + c];
}

/* The even-sized frame of input `in` in a malloc'd buffer (*bytes), of
 * `format`. */
static clik_status make_frame(const clik_image *in, clik_yuv_format format, clik_yuv_image *f,
                              uint8_t **bytes)
{
    const int w = (in->width + 1) & ~1, h = (in->height + 1) & ~1;
    uint8_t *p = malloc(clik_yuv_size(w, h));
    if (!p)
        return CLIK_ERR_NO_MEMORY;
    clik_status st = clik_yuv_wrap(f, format, w, h, p, 0);
    if (st != CLIK_OK) {
        free(p);
        return st;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            p[(size_t)y * (size_t)w + (size_t)x] = at(in, x, y, 0);
    const int last = in->channels - 1;
    for (int j = 0; j < h / 2; j++)
        for (int i = 0; i < w / 2; i++) {
            const uint8_t u = at(in, 2 * i + 1, 2 * j, last);
            const int flipped = 2 * j < in->height ? in->height - 1 - 2 * j : 0;
            const uint8_t v = at(in, 2 * i, flipped, 0);
            if (format == CLIK_YUV_I420) {
                ((uint8_t *)f->u.data)[(size_t)j * f->u.stride + (size_t)i] = u;
                ((uint8_t *)f->v.data)[(size_t)j * f->v.stride + (size_t)i] = v;
            } else {
                uint8_t *c = (uint8_t *)f->uv.data + (size_t)j * f->uv.stride + 2 * (size_t)i;
                c[format == CLIK_YUV_NV21] = u;
                c[format != CLIK_YUV_NV21] = v;
            }
        }
    *bytes = p;
    return CLIK_OK;
}

static clik_status to_rgb_as(clik_context *ctx, const clik_image *in, clik_image *out,
                             clik_yuv_format format, clik_yuv_space space, clik_order order)
{
    clik_yuv_image f;
    uint8_t *bytes = NULL;
    clik_status st = make_frame(in, format, &f, &bytes);
    if (st == CLIK_OK)
        st = sup_case_output(out, f.y.width, f.y.height, in->channels, CLIK_U8);
    if (st == CLIK_OK) {
        clik_image dst = *out;
        dst.order = order;
        st = clik_yuv_to_rgb(ctx, &f, &dst, space);
    }
    free(bytes);
    return st;
}

SUP_CASE_RUN(run_nv21, to_rgb_as(ctx, in, out, CLIK_YUV_NV21, CLIK_YUV_BT601, CLIK_ORDER_RGB))
SUP_CASE_RUN(run_nv12, to_rgb_as(ctx, in, out, CLIK_YUV_NV12, CLIK_YUV_BT601, CLIK_ORDER_RGB))
SUP_CASE_RUN(run_i420, to_rgb_as(ctx, in, out, CLIK_YUV_I420, CLIK_YUV_BT601, CLIK_ORDER_RGB))
SUP_CASE_RUN(run_nv21_bgr, to_rgb_as(ctx, in, out, CLIK_YUV_NV21, CLIK_YUV_BT601, CLIK_ORDER_BGR))
SUP_CASE_RUN(run_nv12_bt709, to_rgb_as(ctx, in, out, CLIK_YUV_NV12, CLIK_YUV_BT709, CLIK_ORDER_RGB))
SUP_CASE_RUN(run_i420_full,
             to_rgb_as(ctx, in, out, CLIK_YUV_I420, CLIK_YUV_BT601_FULL, CLIK_ORDER_BGR))

/* RGB(A) to a frame in OpenCV's layout, written into out; the source
 * is in, rounded up to even sizes (edge pixels repeated). */
static clik_status from_rgb_as(clik_context *ctx, const clik_image *in, clik_image *out,
                               clik_yuv_format format, clik_yuv_space space, clik_order order)
{
    const int w = (in->width + 1) & ~1, h = (in->height + 1) & ~1;
    clik_image src;
    clik_status st = clik_image_alloc(&src, w, h, in->channels, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < in->channels; c++)
                ((uint8_t *)src.data)[(size_t)y * src.stride + (size_t)x * in->channels + c] =
                    at(in, x, y, c);
    src.order = order;
    st = sup_case_host_output(out, w, h / 2 * 3, 1, CLIK_U8);
    clik_yuv_image f;
    if (st == CLIK_OK)
        st = clik_yuv_wrap(&f, format, w, h, out->data, out->stride);
    if (st == CLIK_OK)
        st = clik_rgb_to_yuv(ctx, &src, &f, space);
    clik_image_free(&src);
    return st;
}

SUP_CASE_RUN(run_to_nv21, from_rgb_as(ctx, in, out, CLIK_YUV_NV21, CLIK_YUV_BT601, CLIK_ORDER_RGB))
SUP_CASE_RUN(run_to_nv12, from_rgb_as(ctx, in, out, CLIK_YUV_NV12, CLIK_YUV_BT601, CLIK_ORDER_BGR))
SUP_CASE_RUN(run_to_i420, from_rgb_as(ctx, in, out, CLIK_YUV_I420, CLIK_YUV_BT601, CLIK_ORDER_RGB))
SUP_CASE_RUN(run_to_i420_bt709_full,
             from_rgb_as(ctx, in, out, CLIK_YUV_I420, CLIK_YUV_BT709_FULL, CLIK_ORDER_RGB))

/* A frame-to-frame operation of the cases (clik_yuv_resize and the
 * upscalers), arg its last argument. */
typedef clik_status (*frame_op)(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                const void *arg);

/* The frame of `in` (format) made by op into a frame of the even size
 * nearest in's times num / den (at least 2), written into out in OpenCV's
 * layout. */
static clik_status frame_case(clik_context *ctx, const clik_image *in, clik_image *out,
                              clik_yuv_format format, int num, int den, frame_op op,
                              const void *arg)
{
    clik_yuv_image f, g;
    uint8_t *bytes = NULL;
    clik_status st = make_frame(in, format, &f, &bytes);
    if (st != CLIK_OK)
        return st;
    const int w = f.y.width * num / den / 2 * 2, h = f.y.height * num / den / 2 * 2;
    const int ow = w < 2 ? 2 : w, oh = h < 2 ? 2 : h;
    st = sup_case_host_output(out, ow, oh / 2 * 3, 1, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_yuv_wrap(&g, format, ow, oh, out->data, out->stride);
    if (st == CLIK_OK)
        st = op(ctx, &f, &g, arg);
    free(bytes);
    return st;
}

static clik_status op_resize(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                             const void *method)
{
    return clik_yuv_resize(ctx, f, g, *(const clik_interp *)method);
}

/* The frame resampled by clik_yuv_resize with method. */
static clik_status resize_as(clik_context *ctx, const clik_image *in, clik_image *out,
                             clik_yuv_format format, clik_interp method, int num, int den)
{
    return frame_case(ctx, in, out, format, num, den, op_resize, &method);
}

static clik_status run_resize_nv21_bilinear(clik_context *ctx, const clik_image *in,
                                            clik_image *out)
{
    return resize_as(ctx, in, out, CLIK_YUV_NV21, CLIK_INTERP_BILINEAR, 2, 1);
}

SUP_CASE_RUN(run_resize_nv12_nearest,
             resize_as(ctx, in, out, CLIK_YUV_NV12, CLIK_INTERP_NEAREST, 2, 3))
SUP_CASE_RUN(run_resize_i420_bicubic,
             resize_as(ctx, in, out, CLIK_YUV_I420, CLIK_INTERP_BICUBIC, 3, 2))
SUP_CASE_RUN(run_resize_nv21_aa,
             resize_as(ctx, in, out, CLIK_YUV_NV21, CLIK_INTERP_BICUBIC_AA, 1, 3))

static clik_status op_upscale_model(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                    const void *unused)
{
    (void)unused;
    return clik_yuv_upscale_lapar(ctx, f, g, 2, NULL);
}

static clik_status op_upscale_net(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                  const void *net)
{
    return clik_yuv_upscale_lapar_net(ctx, f, g, net);
}

/* The frame of `in` (NV21) upscaled x2 by the LAPAR model. */
SUP_CASE_RUN(run_upscale_nv21,
             frame_case(ctx, in, out, CLIK_YUV_NV21, 2, 1, op_upscale_model, NULL))

/* The frame of `in` cropped to 12 x 12 (the network's cost, under Oclgrind too), as NV12,
 * upscaled x2 by the small network of the LAPAR network family's cases. */
static clik_status run_upscale_net_nv12(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const clik_image crop = sup_case_crop(in, 12, 12);
    clik_lapar_net *net = NULL;
    clik_status st = sup_case_small_net(&net);
    if (st == CLIK_OK)
        st = frame_case(ctx, &crop, out, CLIK_YUV_NV12, 2, 1, op_upscale_net, net);
    clik_lapar_net_free(net);
    return st;
}

/* The conversions: integer arithmetic everywhere, every backend gives the
 * oracle's bytes. */
const sup_case sup_cases_yuv[] = {
    {"yuv", "yuv_to_rgb-nv21", SUP_TOL_EXACT, SUP_CH134, CLIK_U8, run_nv21},
    {"yuv", "yuv_to_rgb-nv12", SUP_TOL_EXACT, SUP_CH134, CLIK_U8, run_nv12},
    {"yuv", "yuv_to_rgb-i420", SUP_TOL_EXACT, SUP_CH134, CLIK_U8, run_i420},
    {"yuv", "yuv_to_rgb-nv21-bgr", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_nv21_bgr},
    {"yuv", "yuv_to_rgb-nv12-bt709", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_nv12_bt709},
    {"yuv", "yuv_to_rgb-i420-full", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_i420_full},
    {"yuv", "rgb_to_yuv-nv21", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_to_nv21},
    {"yuv", "rgb_to_yuv-nv12-bgr", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_to_nv12},
    {"yuv", "rgb_to_yuv-i420", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_to_i420},
    {"yuv", "rgb_to_yuv-i420-bt709-full", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_to_i420_bt709_full},
    /* resize: each plane as clik_resize, with its tolerances */
    {"yuv", "yuv_resize-nv21-bilinear-x2", SUP_TOL_U8_FLOAT, SUP_CH134, CLIK_U8,
     run_resize_nv21_bilinear},
    {"yuv", "yuv_resize-nv12-nearest-down", SUP_TOL_EXACT, SUP_CH34, CLIK_U8,
     run_resize_nv12_nearest},
    {"yuv", "yuv_resize-i420-bicubic-frac", SUP_TOL_U8_FLOAT, SUP_CH34, CLIK_U8,
     run_resize_i420_bicubic},
    {"yuv", "yuv_resize-nv21-bicubic-aa-d3", SUP_TOL_U8_FLOAT, SUP_CH34, CLIK_U8,
     run_resize_nv21_aa},
    /* the LAPAR model on the luma: its upscaler's tolerance */
    {"yuv", "yuv_upscale_lapar-nv21-x2", SUP_TOL_FUSION, SUP_CH34, CLIK_U8, run_upscale_nv21},
    /* a LAPAR network on the luma: the network's tolerance */
    {"yuv", "yuv_upscale_lapar_net-nv12-x2", SUP_TOL_U8_FLOAT, SUP_CH(4), CLIK_U8,
     run_upscale_net_nv12},
};
const int sup_cases_yuv_count = (int)(sizeof(sup_cases_yuv) / sizeof(sup_cases_yuv[0]));

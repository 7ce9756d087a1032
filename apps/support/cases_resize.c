/*
 * Conformance cases of the resize family. Each case resizes its input to a
 * size derived from the input's: x2 and x3 (integer factors: the nearest
 * fast path and the bicubic tiles), 5/3 (non-integer up), 1/2 and 3/7
 * (down, at least 1 pixel); the two axes of a case may scale differently.
 * The scaled cases map coordinates by a given scale (2.6, 0.7: sizes
 * whose ratio is not the scale), as OpenCV's resize with fx, fy.
 * The antialiased bicubic (MATLAB's imresize) shrinks by 1/3 and by 3/7 x
 * 2/5, and in f32 shrinks one axis by 3/7 while growing the other by 5/3.
 * Inputs above a megapixel keep their height in the x3 cases, so that the
 * largest test size stays a 5763 x 1081 output rather than 5763 x 3243.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cases.h"

/* side * num / den rounded to nearest, at least 1. */
static int scaled(int side, int num, int den)
{
    const long v = ((long)side * num * 2 + den) / (2L * den);
    return v < 1 ? 1 : (int)v;
}

static int above_megapixel(const clik_image *in)
{
    return (long)in->width * in->height > 1000000;
}

/* Resizes in to (num_x / den_x, num_y / den_y) of its size into *out. */
static clik_status resize_by(clik_context *ctx, const clik_image *in, int num_x, int den_x,
                             int num_y, int den_y, clik_interp method, clik_image *out)
{
    clik_status st = sup_case_output(out, scaled(in->width, num_x, den_x),
                                     scaled(in->height, num_y, den_y), in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_resize(ctx, in, out, method);
    return st;
}

static clik_status x2(clik_context *ctx, const clik_image *in, clik_interp m, clik_image *out)
{
    return resize_by(ctx, in, 2, 1, 2, 1, m, out);
}

static clik_status x3(clik_context *ctx, const clik_image *in, clik_interp m, clik_image *out)
{
    return resize_by(ctx, in, 3, 1, above_megapixel(in) ? 1 : 3, 1, m, out);
}

SUP_CASE_RUN(nearest_x2, x2(ctx, in, CLIK_INTERP_NEAREST, out))
SUP_CASE_RUN(nearest_x3, x3(ctx, in, CLIK_INTERP_NEAREST, out))
SUP_CASE_RUN(nearest_frac, resize_by(ctx, in, 5, 3, 3, 7, CLIK_INTERP_NEAREST, out))
SUP_CASE_RUN(nearest_down, resize_by(ctx, in, 3, 7, 1, 2, CLIK_INTERP_NEAREST, out))
SUP_CASE_RUN(bilinear_x2, x2(ctx, in, CLIK_INTERP_BILINEAR, out))
SUP_CASE_RUN(bilinear_frac, resize_by(ctx, in, 3, 7, 5, 3, CLIK_INTERP_BILINEAR, out))
SUP_CASE_RUN(bilinear_mixed, resize_by(ctx, in, 5, 3, 1, 2, CLIK_INTERP_BILINEAR, out))
SUP_CASE_RUN(bicubic_x2, x2(ctx, in, CLIK_INTERP_BICUBIC, out))
SUP_CASE_RUN(bicubic_x3, x3(ctx, in, CLIK_INTERP_BICUBIC, out))
SUP_CASE_RUN(bicubic_frac, resize_by(ctx, in, 5, 3, 3, 7, CLIK_INTERP_BICUBIC, out))
SUP_CASE_RUN(bicubic_down, resize_by(ctx, in, 1, 2, 3, 7, CLIK_INTERP_BICUBIC, out))
SUP_CASE_RUN(bicubic_mixed, resize_by(ctx, in, 2, 1, 5, 3, CLIK_INTERP_BICUBIC, out))
SUP_CASE_RUN(bicubic_aa_d3, resize_by(ctx, in, 1, 3, 1, 3, CLIK_INTERP_BICUBIC_AA, out))
SUP_CASE_RUN(bicubic_aa_frac, resize_by(ctx, in, 3, 7, 2, 5, CLIK_INTERP_BICUBIC_AA, out))
SUP_CASE_RUN(bicubic_aa_mixed, resize_by(ctx, in, 3, 7, 5, 3, CLIK_INTERP_BICUBIC_AA, out))

/* Resizes in by the coordinate scale (sx, sy) (clik_resize_scaled). */
static clik_status resize_scaled(clik_context *ctx, const clik_image *in, double sx, double sy,
                                 clik_interp method, clik_image *out)
{
    int w, h;
    clik_status st = clik_resize_size(in->width, in->height, sx, sy, &w, &h);
    if (st == CLIK_OK)
        st = sup_case_output(out, w, h, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_resize_scaled(ctx, in, out, method, sx, sy);
    return st;
}

SUP_CASE_RUN(nearest_scaled, resize_scaled(ctx, in, 2.6, 0.7, CLIK_INTERP_NEAREST, out))
SUP_CASE_RUN(bilinear_scaled, resize_scaled(ctx, in, 0.7, 0.7, CLIK_INTERP_BILINEAR, out))
SUP_CASE_RUN(bicubic_scaled, resize_scaled(ctx, in, 0.7, 0.7, CLIK_INTERP_BICUBIC, out))

/* 3 channels run the 4-channel kernels between two conversions: one case
 * per method and type path is enough (SUP_CH134); 2 (interleaved chroma)
 * run through the same 4-channel copies as 3 (SUP_CH1234). */
const sup_case sup_cases_resize[] = {
    {"resize", "resize-nearest-x2", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, nearest_x2},
    {"resize", "resize-nearest-x3", SUP_TOL_EXACT, SUP_CH14, CLIK_U8, nearest_x3},
    {"resize", "resize-nearest-frac", SUP_TOL_EXACT, SUP_CH14, CLIK_U8, nearest_frac},
    {"resize", "resize-nearest-f32", SUP_TOL_EXACT, SUP_CH14, CLIK_F32, nearest_down},
    {"resize", "resize-bilinear-x2", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bilinear_x2},
    {"resize", "resize-bilinear-frac", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bilinear_frac},
    {"resize", "resize-bilinear-f32", SUP_TOL_F32, SUP_CH1234, CLIK_F32, bilinear_mixed},
    {"resize", "resize-bicubic-x2", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bicubic_x2},
    {"resize", "resize-bicubic-x3", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bicubic_x3},
    {"resize", "resize-bicubic-frac", SUP_TOL_U8_FLOAT, SUP_CH1234, CLIK_U8, bicubic_frac},
    {"resize", "resize-bicubic-down", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bicubic_down},
    {"resize", "resize-bicubic-f32", SUP_TOL_F32, SUP_CH14, CLIK_F32, bicubic_mixed},
    {"resize", "resize_scaled-nearest", SUP_TOL_EXACT, SUP_CH14, CLIK_U8, nearest_scaled},
    {"resize", "resize_scaled-bilinear", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bilinear_scaled},
    {"resize", "resize_scaled-bicubic", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bicubic_scaled},
    {"resize", "resize-bicubic-aa-d3", SUP_TOL_U8_FLOAT, SUP_CH1234, CLIK_U8, bicubic_aa_d3},
    {"resize", "resize-bicubic-aa-frac", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, bicubic_aa_frac},
    {"resize", "resize-bicubic-aa-f32", SUP_TOL_F32, SUP_CH14, CLIK_F32, bicubic_aa_mixed},
};
const int sup_cases_resize_count = (int)(sizeof(sup_cases_resize) / sizeof(sup_cases_resize[0]));

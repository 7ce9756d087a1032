/*
 * Conformance cases of the fusion family: RGB(A) u8 input, fused RGB(A) output
 * (or the artifact map), under the FUSION tolerance (a pixel whose blurred
 * artifact sits on the threshold may take the other image).
 *
 * Scales above 2 upscale at most 960 x 540 pixels of the input (its top
 * left corner): a 1921 x 1081 input would give up to 35 megapixels per run,
 * and the run is made twice per backend (backend and oracle).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cases.h"

#define BIG_INPUT 1000000L /* input pixels above which scales > 2 crop */
#define CROP_W    960
#define CROP_H    540

typedef struct fusion_setup {
    int scale;
    int tile;        /* 0: default */
    int blur_ksize;  /* 0: default */
    float threshold; /* < 0: default */
    int map;         /* 1: the case's output is the artifact map */
} fusion_setup;

static clik_status run_setup(clik_context *ctx, const clik_image *in, clik_image *out,
                             const fusion_setup *f)
{
    const int big = f->scale > 2 && (long)in->width * in->height > BIG_INPUT;
    const clik_image src = big ? sup_case_crop(in, CROP_W, CROP_H) : *in;
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    if (f->tile)
        opt.tile = f->tile;
    if (f->blur_ksize)
        opt.blur_ksize = f->blur_ksize;
    if (f->threshold >= 0.0f)
        opt.threshold = f->threshold;
    const int w = src.width * f->scale, h = src.height * f->scale;
    clik_image fused = {0}; /* a temporary when the output is the map */
    clik_status st = f->map ? clik_image_alloc(&fused, w, h, src.channels, CLIK_U8)
                            : sup_case_output(out, w, h, src.channels, CLIK_U8);
    fused.order = src.order;
    if (st == CLIK_OK && f->map)
        st = sup_case_output(out, w, h, 1, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_upscale_fusion(ctx, &src, f->map ? &fused : out, &opt, f->map ? out : NULL);
    clik_image_free(&fused);
    return st;
}

static clik_status run_x2(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const fusion_setup f = {2, 0, 0, -1.0f, 0};
    return run_setup(ctx, in, out, &f);
}

static clik_status run_x3(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const fusion_setup f = {3, 0, 0, -1.0f, 0};
    return run_setup(ctx, in, out, &f);
}

static clik_status run_x4_tile4(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const fusion_setup f = {4, 4, 0, -1.0f, 0};
    return run_setup(ctx, in, out, &f);
}

static clik_status run_x2_low_threshold(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const fusion_setup f = {2, 0, 5, 0.02f, 0};
    return run_setup(ctx, in, out, &f);
}

static clik_status run_map(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const fusion_setup f = {2, 0, 0, -1.0f, 1};
    return run_setup(ctx, in, out, &f);
}

/* The same input read as BGR(A): the luma weights blue as red. */
SUP_CASE_RUN(run_x2_bgr, sup_case_bgr(ctx, in, out, run_x2))
SUP_CASE_RUN(run_map_bgr, sup_case_bgr(ctx, in, out, run_map))

/* RGB(A): 3 channels run the 4-channel kernels between two conversions. */
const sup_case sup_cases_fusion[] = {
    {"fusion", "upscale_fusion", SUP_TOL_FUSION, SUP_CH34, CLIK_U8, run_x2},
    {"fusion", "upscale_fusion-bgr", SUP_TOL_FUSION, SUP_CH34, CLIK_U8, run_x2_bgr},
    {"fusion", "upscale_fusion-x3", SUP_TOL_FUSION, SUP_CH34, CLIK_U8, run_x3},
    {"fusion", "upscale_fusion-x4-tile4", SUP_TOL_FUSION, SUP_CH(4), CLIK_U8, run_x4_tile4},
    {"fusion", "upscale_fusion-blur5-t0.02", SUP_TOL_FUSION, SUP_CH(4), CLIK_U8,
     run_x2_low_threshold},
    {"fusion", "upscale_fusion-map", SUP_TOL_FUSION, SUP_CH34, CLIK_U8, run_map},
    {"fusion", "upscale_fusion-map-bgr", SUP_TOL_FUSION, SUP_CH34, CLIK_U8, run_map_bgr},
};
const int sup_cases_fusion_count = (int)(sizeof(sup_cases_fusion) / sizeof(sup_cases_fusion[0]));

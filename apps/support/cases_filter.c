/* Conformance cases of the filter family. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"

static clik_status blur_as(clik_context *ctx, const clik_image *in, int ksize, double sigma,
                           clik_image *out)
{
    clik_status st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_gaussian_blur(ctx, in, out, ksize, sigma);
    return st;
}

SUP_CASE_RUN(run_blur3, blur_as(ctx, in, 3, 0.0, out))
SUP_CASE_RUN(run_blur7, blur_as(ctx, in, 7, 0.0, out))
SUP_CASE_RUN(run_blur11, blur_as(ctx, in, 11, 2.5, out))

static clik_status run_gray(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = sup_case_output(out, in->width, in->height, 1, in->type);
    if (st == CLIK_OK)
        st = clik_gray(ctx, in, out);
    return st;
}

/* The same input read as BGR(A): blue weighted as red. */
SUP_CASE_RUN(run_gray_bgr, sup_case_bgr(ctx, in, out, run_gray))

/* 3 channels where the kernels differ from 4 (the loads, the tile of the
 * local passes); the other tap counts run the same code at each count. */
const sup_case sup_cases_filter[] = {
    {"filter", "gaussian_blur-k3", SUP_TOL_U8_FLOAT, SUP_CH124, CLIK_U8, run_blur3},
    {"filter", "gaussian_blur-k7", SUP_TOL_U8_FLOAT, SUP_CH1234, CLIK_U8, run_blur7},
    {"filter", "gaussian_blur-k11-s2.5", SUP_TOL_U8_FLOAT, SUP_CH124, CLIK_U8, run_blur11},
    {"filter", "gaussian_blur-f32", SUP_TOL_F32, SUP_CH1234, CLIK_F32, run_blur7},
    {"filter", "gray", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_gray},
    {"filter", "gray-f32", SUP_TOL_F32, SUP_CH34, CLIK_F32, run_gray},
    {"filter", "gray-bgr", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_gray_bgr},
};
const int sup_cases_filter_count = (int)(sizeof(sup_cases_filter) / sizeof(sup_cases_filter[0]));

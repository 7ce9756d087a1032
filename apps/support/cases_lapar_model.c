/*
 * Conformance cases of the LAPAR model family: clik_upscale_lapar by the
 * library's default model, x2 on u8 grey and RGBA (and x3 f32), and the
 * classification of the upsample alone. A case crops its input to at most
 * CROP x CROP (the oracle's filter sums up to 49 taps per pixel and
 * channel in double).
 *
 * Tolerances. The classification is defined in float in a fixed order
 * (fallback_cpu/cpu.h); a device may contract to fma or round sqrt and
 * division differently, so a pixel whose structure tensor lies within a few ulp of a
 * bin edge may take the neighbouring bucket: BUCKETS (>= 99.9 % of indices
 * identical) for the indices, and for u8 outputs FUSION (>= 99.9 % of
 * elements within +-1 -- the rest: pixels filtered by a neighbouring
 * bucket's filter -- and >= 99 % identical: U8-FLOAT's rounding of float
 * sums otherwise). f32 outputs are divided by 400 (the range of U) and
 * compared as F32 where no bucket flipped; a flip would exceed it, so the
 * f32 case runs at a size small enough that none does on the CPU paths.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>

#include "cases.h"

#define CROP 96

static clik_status run_upscale(clik_context *ctx, const clik_image *in, int scale, int side,
                               clik_image *out)
{
    const clik_image src = sup_case_crop(in, side, side);
    clik_status st =
        src.type == CLIK_F32
            ? sup_case_host_output(out, src.width * scale, src.height * scale, src.channels,
                                   src.type)
            : sup_case_output(out, src.width * scale, src.height * scale, src.channels, src.type);
    if (st == CLIK_OK)
        st = clik_upscale_lapar(ctx, &src, out, scale, NULL);
    if (st == CLIK_OK && src.type == CLIK_F32)
        for (int y = 0; y < out->height; y++) {
            float *row = (float *)(void *)((char *)out->data + (size_t)y * out->stride);
            for (int x = 0; x < out->width * out->channels; x++)
                row[x] /= 400.0f;
        }
    return st;
}

SUP_CASE_RUN(upscale_x2, run_upscale(ctx, in, 2, CROP, out))
SUP_CASE_RUN(upscale_x3_f32, run_upscale(ctx, in, 3, 32, out))

/* The buckets of the x2 upsample of in (U16). */
static clik_status classify_x2(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const clik_image src = sup_case_crop(in, CROP, CROP);
    clik_image up = {0};
    clik_context *oracle = sup_case_oracle_context();
    clik_status st =
        oracle ? clik_image_alloc(&up, src.width * 2, src.height * 2, src.channels, CLIK_F32)
               : CLIK_ERR_NO_MEMORY;
    up.order = src.order; /* the buckets weigh its colours */
    if (st == CLIK_OK)
        st = clik_lapar_upsample(oracle, &src, 2, &up);
    clik_context_destroy(oracle);
    if (st == CLIK_OK)
        st = sup_case_output(out, up.width, up.height, 1, CLIK_U16);
    if (st == CLIK_OK)
        st = clik_lapar_classify(ctx, &up, NULL, 2, out);
    clik_image_free(&up);
    return st;
}

/* The same input read as BGR(A): the buckets weight blue as red. */
SUP_CASE_RUN(upscale_x2_bgr, sup_case_bgr(ctx, in, out, upscale_x2))

/* The cases of this group run with 1 and 4 channels; the upscales with 3
 * (through 4-channel copies) too. */
#define MODEL_CASE(name, tol, channels, type, fn)                                                  \
    {                                                                                              \
        "lapar_model", name, tol, channels, type, fn                                               \
    }

const sup_case sup_cases_lapar_model[] = {
    MODEL_CASE("upscale_lapar-x2", SUP_TOL_FUSION, SUP_CH134, CLIK_U8, upscale_x2),
    MODEL_CASE("upscale_lapar-x2-bgr", SUP_TOL_FUSION, SUP_CH134, CLIK_U8, upscale_x2_bgr),
    MODEL_CASE("upscale_lapar-x3-f32", SUP_TOL_MODEL_F32, SUP_CH134, CLIK_F32, upscale_x3_f32),
    MODEL_CASE("lapar_classify-x2", SUP_TOL_BUCKETS, SUP_CH134, CLIK_U8, classify_x2),
};
const int sup_cases_lapar_model_count =
    (int)(sizeof(sup_cases_lapar_model) / sizeof(sup_cases_lapar_model[0]));

/* Comparison of a backend's output with the oracle's, by tolerance class. SPDX-License-Identifier:
 * BSD-2-Clause */
#ifndef SUP_COMPARE_H
#define SUP_COMPARE_H

#include <stddef.h>

#include "clik.h"

typedef enum sup_tolerance {
    SUP_TOL_EXACT,     /* bit-identical */
    SUP_TOL_U8_FLOAT,  /* max |diff| <= 1 and >= 99.9 % identical */
    SUP_TOL_F32,       /* |a - b| <= 1e-4 * max(1, |b|) per element */
    SUP_TOL_FLOW,      /* mean end-point difference of 2-channel flows <= 0.01 */
    SUP_TOL_FLOW_F16,  /* flows iterated in 16-bit storage against the f32 oracle: mean
                           end-point difference <= 0.01 + 2^-9 x the oracle's mean |flow| (half
                           floats keep 11 bits: rounding steps of 2^-11 to 2^-10 |u|) */
    SUP_TOL_SSIM,      /* SSIM maps: |a - b| <= 5e-4 per element (f32 moments vs double) */
    SUP_TOL_FUSION,    /* fused u8 images: >= 99.9 % of elements within +-1, >= 99 % identical
                           (a pixel whose blurred artifact sits on the threshold may take the
                           other image) */
    SUP_TOL_BUCKETS,   /* LAPAR model bucket indices (u16): >= 99.9 % identical (a pixel whose
                           structure tensor sits within a few ulp of a bin edge may take the
                           neighbouring bucket: fallback_cpu/cpu.h, clik_lapar_model_dsp) */
    SUP_TOL_MODEL_F32, /* LAPAR model f32 output: >= 99.9 % of elements within F32's bound (a
                           pixel of a neighbouring bucket, as BUCKETS, has another filter) */
} sup_tolerance;

typedef struct sup_compare {
    int pass;
    size_t count;      /* elements compared */
    size_t mismatches; /* elements not bit-identical */
    double max_abs;    /* largest |got - want| */
    double mean_epe;   /* FLOW only */
    int worst_x, worst_y, worst_c;
    char detail[192]; /* one line for reports */
} sup_compare;

const char *sup_tolerance_name(sup_tolerance t);

/* Compares two host images of the same size and format over their pixels
 * only (row padding is ignored). */
void sup_compare_images(const clik_image *got, const clik_image *want, sup_tolerance tol,
                        sup_compare *out);

#endif

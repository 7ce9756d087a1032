/* Comparison of a backend's output with the oracle's, by tolerance class. SPDX-License-Identifier:
 * BSD-2-Clause */
#ifndef CLIK_COMPARE_H
#define CLIK_COMPARE_H

#include <stddef.h>

#include "clik.h"

typedef enum clik_tolerance {
    CLIK_TOL_EXACT,     /* bit-identical */
    CLIK_TOL_U8_FLOAT,  /* max |diff| <= 1 and >= 99.9 % identical */
    CLIK_TOL_F32,       /* |a - b| <= 1e-4 * max(1, |b|) per element */
    CLIK_TOL_FLOW,      /* mean end-point difference of 2-channel flows <= 0.01 */
    CLIK_TOL_FLOW_F16,  /* flows iterated in 16-bit storage against the f32 oracle: mean
                           end-point difference <= 0.01 + 2^-9 x the oracle's mean |flow| (half
                           floats keep 11 bits: rounding steps of 2^-11 to 2^-10 |u|) */
    CLIK_TOL_SSIM,      /* SSIM maps: |a - b| <= 5e-4 per element (f32 moments vs double) */
    CLIK_TOL_FUSION,    /* fused u8 images: >= 99.9 % of elements within +-1, >= 99 % identical
                           (a pixel whose blurred artifact sits on the threshold may take the
                           other image) */
    CLIK_TOL_BUCKETS,   /* LAPAR model bucket indices (u16): >= 99.9 % identical (a pixel whose
                           structure tensor sits within a few ulp of a bin edge may take the
                           neighbouring bucket: fallback_cpu/cpu.h, clik_lapar_model_dsp) */
    CLIK_TOL_MODEL_F32, /* LAPAR model f32 output: >= 99.9 % of elements within F32's bound (a
                           pixel of a neighbouring bucket, as BUCKETS, has another filter) */
} clik_tolerance;

typedef struct clik_compare {
    int pass;
    size_t count;      /* elements compared */
    size_t mismatches; /* elements not bit-identical */
    double max_abs;    /* largest |got - want| */
    double mean_epe;   /* FLOW only */
    int worst_x, worst_y, worst_c;
    char detail[192]; /* one line for reports */
} clik_compare;

const char *clik_tolerance_name(clik_tolerance t);

/* Compares two host images of the same size and format over their pixels
 * only (row padding is ignored). */
void clik_compare_images(const clik_image *got, const clik_image *want, clik_tolerance tol,
                         clik_compare *out);

#endif

/*
 * Optical flow evaluation and display, for the clik tool, the tests and the
 * benchmarks: the Middlebury error measures and colour coding (Baker et al.,
 * "A Database and Evaluation Methodology for Optical Flow", IJCV 2011).
 *
 * A flow is a 2-channel f32 host image, u and v interleaved: pixel (x, y) of
 * the first image moves to (x + u, y + v) in the second. A vector is unknown
 * when |u| or |v| is above SUP_FLOW_UNKNOWN or is NaN (.flo files mark
 * unknown vectors with 1e10); every function here skips unknown vectors.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef SUP_FLOW_EVAL_H
#define SUP_FLOW_EVAL_H

#include "clik.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SUP_FLOW_UNKNOWN 1e9

/* 1 when (u, v) is a known vector: both finite and within SUP_FLOW_UNKNOWN. */
int sup_flow_known(float u, float v);

/* Mean end-point error |(u, v) - (u_gt, v_gt)| and mean angular error, in
 * degrees, between the space-time directions (u, v, 1) and (u_gt, v_gt, 1),
 * over the vectors known in both flows; *counted gets their number. With none
 * known, *epe and *aae are NaN and *counted 0 (still CLIK_OK). flow and gt are
 * 2-channel f32 host images of one size (CLIK_ERR_UNSUPPORTED_FORMAT,
 * CLIK_ERR_SIZE_MISMATCH, CLIK_ERR_INVALID_ARG for a device image); any of
 * epe, aae and counted may be NULL. */
clik_status sup_flow_errors(const clik_image *flow, const clik_image *gt, double *epe, double *aae,
                            long *counted);

/* Colour-codes flow into rgba (4-channel u8 host image of the flow's size,
 * alpha 255) with the Middlebury colour wheel: the direction picks the hue
 * (right red, down yellow, left cyan, up violet), the length over
 * max_motion the saturation, white for no motion; longer vectors than
 * max_motion are drawn at full saturation, darkened to 3/4. max_motion <= 0
 * means the longest known vector (no motion at all gives white). Unknown
 * vectors are black. A NaN or infinite max_motion gives CLIK_ERR_INVALID_ARG. */
clik_status sup_flow_colorize(const clik_image *flow, clik_image *rgba, float max_motion);

/* The longest known vector of flow, 0 when none is known (or when flow is not
 * a 2-channel f32 host image). */
double sup_flow_max_motion(const clik_image *flow);

#ifdef __cplusplus
}
#endif
#endif /* SUP_FLOW_EVAL_H */

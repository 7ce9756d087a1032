/*
 * The geometry of a resize: per output column and row the first source tap
 * and, for the interpolating methods, the taps' weights, computed once per
 * call in double as OpenCV's resize computes them (bicubic-aa: as MATLAB's
 * imresize computes them, see clik.h). One computation serves
 * the OpenCL kernels (lib/ops/resize_opencl.c uploads the table as it is), the
 * NEON path and the fusion upscaler's bicubic phases, so they all use the
 * same coefficients. The scalar oracle (scalar/resize.c) does not use it:
 * it computes its own taps from the definitions, to check this code.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_RESIZE_GEOMETRY_H
#define CLIK_RESIZE_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "clik.h"

/*
 * One allocation, `table` (`bytes` long), laid out as kernels/resize.cl
 * reads it:
 *     xofs[dw], yofs[dh]   int32: the first source column of output column x
 *                          and row of output row y (nearest: the source
 *                          pixel; bilinear, bicubic: the first tap, before
 *                          the border is replicated: it may be negative or
 *                          past the edge; bicubic-aa: the first tap, never
 *                          negative, see below);
 *     from (dw + dh) rounded up to a multiple of 4, floats:
 *     xw[dw * xtaps], yw[dh * ytaps]   the taps' weights (16-byte aligned,
 *                          so that a column's weights are vector loads).
 *
 * bicubic-aa: the mirrored taps of an output are folded onto the source
 * pixels they stand for (their weights added), so the taps of an output are
 * consecutive pixels inside the image; xtaps and ytaps are the widest such
 * run of the axis rounded up (4, 8, 12 or 16, then multiples of 16 up to
 * 64, then powers of 2), padded with zero weights. Where the axis has at
 * least that many pixels every run lies inside it (the first tap is at most
 * side - taps); on shorter axes the padding taps pass the edge and are read
 * clamped (with a weight of 0).
 */
typedef struct clik_resize_geometry {
    int32_t *table;
    size_t bytes;
    int32_t *xofs, *yofs;
    float *xw, *yw;   /* NULL for nearest */
    int xtaps, ytaps; /* 0 (nearest), 2 (bilinear), 4 (bicubic); bicubic-aa: per axis */
    int sx, sy;       /* nearest: the integer factor of each axis, else 0 */
} clik_resize_geometry;

/* The geometry of resizing sw x sh to dw x dh, source coordinates taken
 * from destination ones by 1 / scale[0] across and 1 / scale[1] down
 * (OpenCV's resize with fx, fy; scale NULL: dw / sw and dh / sh, OpenCV's
 * resize to a given size). quantize (u8 images) takes
 * the weights of bilinear and bicubic in steps of 1/2048, as OpenCV's
 * fixed-point resize (bicubic-aa keeps them as they are). Returns
 * 0, or -1 when out of memory (g then holds nothing to free). */
int clik__resize_geometry_make(clik_resize_geometry *g, int sw, int sh, int dw, int dh,
                               const double scale[2], clik_interp method, int quantize);
void clik__resize_geometry_free(clik_resize_geometry *g);

/* The output columns [*xa, *xb) whose xtaps taps all lie inside a source
 * row of sw pixels (interpolating methods). */
void clik__resize_interior(const clik_resize_geometry *g, int dw, int sw, int *xa, int *xb);

/* Keys' cubic kernel (A = -0.75) at the four taps around a point t in
 * [0, 1) past the second: distances 1 + t, t, 1 - t and 2 - t. */
void clik__cubic_weights(double t, double *w);
/* A weight in steps of 1/2048, as OpenCV's fixed-point resize of u8 images
 * (INTER_RESIZE_COEF_BITS) and clik_resize for u8. */
double clik__u8_weight(double w);

#endif

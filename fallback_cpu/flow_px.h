/*
 * Optical flow family: the reads of the input images and their
 * normalisation, shared by the scalar oracle and the NEON code (cpu.h,
 * clik_flow_plan, and scalar/flow.c give the scheme).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_FLOW_PX_H
#define CLIK_FLOW_PX_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu.h"

/* n floats, or NULL (also when n * 4 bytes overflow). */
static inline float *clik__flow_floats(size_t n)
{
    return n > SIZE_MAX / sizeof(float) ? NULL : malloc((n ? n : 1) * sizeof(float));
}

/* Pixel (x, y) of a one-channel u8 or f32 image, as a float. */
static inline float clik__flow_pixel(const clik_image *img, int x, int y)
{
    const uint8_t *row = (const uint8_t *)img->data + (size_t)y * img->stride;
    return img->type == CLIK_U8 ? (float)row[x] : ((const float *)(const void *)row)[x];
}

/* Both images (one size) to [0, 255] with their joint minimum and maximum
 * into the packed planes an and bn; copied as they are when those are
 * equal (the reference's image_normalization). NaN pixels are skipped by
 * the comparisons, as the reference skips them (unless first). The scalar oracle maps
 * in double (in_double 1), as the reference; the NEON path in float, as the
 * kernels. */
static inline void clik__flow_normalize(const clik_image *a, const clik_image *b, float *an,
                                        float *bn, int in_double)
{
    const int w = a->width, h = a->height;
    float lo = INFINITY, hi = -INFINITY;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            /* Comparisons, not fminf/fmaxf: GCC 12's AArch64 vectorizer
             * stops with an internal error on that reduction. */
            const float p = clik__flow_pixel(a, x, y), q = clik__flow_pixel(b, x, y);
            lo = p < lo ? p : lo;
            lo = q < lo ? q : lo;
            hi = p > hi ? p : hi;
            hi = q > hi ? q : hi;
        }
    const float den = hi - lo;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            const float p = clik__flow_pixel(a, x, y), q = clik__flow_pixel(b, x, y);
            if (!(den > 0.0f)) {
                an[i] = p;
                bn[i] = q;
            } else if (in_double) {
                an[i] = (float)(255.0 * (p - lo) / den);
                bn[i] = (float)(255.0 * (q - lo) / den);
            } else {
                an[i] = 255.0f * (p - lo) / den;
                bn[i] = 255.0f * (q - lo) / den;
            }
        }
}

/* The blur of a path (clik__blur_scalar or clik__blur_neon). */
typedef int (*clik_flow_blur_fn)(const clik_image *src, clik_image *dst, const float *weights,
                                 int ksize);

/* Smooths a packed w x h plane in place with taps by blur (ksize 1: none,
 * a tap of 1); 0, or -1 when out of memory. */
static inline int clik__flow_smooth(float *img, int w, int h, const float *taps, int ksize,
                                    clik_flow_blur_fn blur)
{
    clik_image view = clik__f32_plane(img, w, h);
    return ksize == 1 ? 0 : blur(&view, &view, taps, ksize);
}

/* Level 0 of both pyramids (plan's level-0 size): i0 and i1 normalised into
 * I0 and I1 (clik__flow_normalize), then smoothed with the plan's
 * pre-smoothing taps by blur; 0, or -1 when out of memory. */
static inline int clik__flow_level0(const clik_image *i0, const clik_image *i1,
                                    const clik_flow_plan *plan, float *I0, float *I1, int in_double,
                                    clik_flow_blur_fn blur)
{
    const int w = plan->width[0], h = plan->height[0];
    clik__flow_normalize(i0, i1, I0, I1, in_double);
    return clik__flow_smooth(I0, w, h, plan->taps_pre, plan->ksize_pre, blur) == 0 &&
                   clik__flow_smooth(I1, w, h, plan->taps_pre, plan->ksize_pre, blur) == 0
               ? 0
               : -1;
}

#endif

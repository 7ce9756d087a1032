/*
 * Helpers of the scalar oracles, and only of them: nothing here is shared
 * with the kernels, the NEON path or lib/ops.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_SCALAR_COMMON_H
#define CLIK_SCALAR_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu.h"

/* Keys' cubic convolution kernel with A = -0.75 at distance d. */
static inline double keys(double d)
{
    const double a = -0.75;
    d = fabs(d);
    if (d <= 1.0)
        return (a + 2.0) * d * d * d - (a + 3.0) * d * d + 1.0;
    if (d < 2.0)
        return a * d * d * d - 5.0 * a * d * d + 8.0 * a * d - 4.0 * a;
    return 0.0;
}

/* Index i clamped into 0 .. n - 1 (border replicate). */
static inline int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Element c of pixel (x, y) of img (u8, s16 or f32), as a double. */
static inline double load(const clik_image *img, int x, int y, int c)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case CLIK_U8: return ((const uint8_t *)row)[i];
    case CLIK_S16: return ((const int16_t *)(const void *)row)[i];
    default: return ((const float *)(const void *)row)[i];
    }
}

/* Stores v as element c of pixel (x, y) of dst: f32 rounded once; u8
 * rounded to nearest (halves to even) and saturated, NaN giving 0. */
static inline void store(clik_image *dst, int x, int y, int c, double v)
{
    char *row = (char *)dst->data + (size_t)y * dst->stride;
    const size_t i = (size_t)x * (size_t)dst->channels + (size_t)c;
    if (dst->type == CLIK_F32) {
        ((float *)(void *)row)[i] = (float)v;
        return;
    }
    v = nearbyint(v);
    ((uint8_t *)row)[i] = (uint8_t)(!(v > 0.0) ? 0.0 : v > 255.0 ? 255.0 : v);
}

#endif

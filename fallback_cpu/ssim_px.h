/*
 * SSIM family: the float formula of one tile of clik_ssim_tiles from its
 * exact integer sums (scalar/ssim.c gives the derivation), shared by the
 * scalar oracle and the NEON code. Each includer compiles it under its own
 * floating-point settings (both without contraction).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_SSIM_PX_H
#define CLIK_SSIM_PX_H

#include <stdint.h>

/* n pixels; ga, gb the sums of the values; ca, cb the sums of value - 128;
 * qa, qb the sums of their squares; p the sum of their products. The
 * operations of every backend, in their order. */
static inline float clik__ssim_tile(int64_t n, int64_t ga, int64_t gb, int64_t ca, int64_t cb,
                                    int64_t qa, int64_t qb, int64_t p)
{
    const float nn = (float)(n * n);
    const float fa = (float)ga, fb = (float)gb;
    const float va = (float)(n * qa - ca * ca), vb = (float)(n * qb - cb * cb);
    const float cov = (float)(n * p - ca * cb);
    const float c1 = 6.5025f * nn, c2 = 58.5225f * nn; /* (0.01 * 255)^2, (0.03 * 255)^2 */
    const float num = (2.0f * fa * fb + c1) * (2.0f * cov + c2);
    const float den = (fa * fa + fb * fb + c1) * (va + vb + c2);
    return num / den;
}

#endif

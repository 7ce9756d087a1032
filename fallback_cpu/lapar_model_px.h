/*
 * LAPAR model family: steps 4 to 6 of one pixel's classification (the
 * definition in cpu.h, clik_lapar_model_plan), in float in the order the
 * definition writes: the scalar oracle's (the NEON code and the kernels
 * compute lanes of them in the same operations). Its includer compiles it
 * without contraction.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_LAPAR_MODEL_PX_H
#define CLIK_LAPAR_MODEL_PX_H

#include <math.h>

#include "cpu.h"

/* Step 4's pseudo-angle of the direction (u, v). */
static inline float clik__lapar_model_pseudo_angle(float u, float v)
{
    if (v >= 0.0f)
        return u >= 0.0f ? v / (u + v) : 1.0f + (-u) / (v - u);
    return u < 0.0f ? 2.0f + (-v) / (-u - v) : 3.0f + u / (u - v);
}

/* Steps 4 to 6 of pixel (x, y) from its structure tensor (a, b, c), already
 * normalised: the pixel's bucket. */
static inline int clik__lapar_model_bucket(float a, float b, float c, int x, int y,
                                           const clik_lapar_model_plan *p)
{
    /* Step 4. */
    const float t = a + c, d = a - c;
    const float e = sqrtf(d * d + 4.0f * (b * b));
    const float l1 = 0.5f * (t + e);
    float l2 = 0.5f * (t - e);
    l2 = l2 > 0.0f ? l2 : 0.0f;
    const float s1 = sqrtf(l1 > 0.0f ? l1 : 0.0f), s2 = sqrtf(l2);
    const float strength = s1;
    /* Flat (below 1e-3, or NaN): angle and coherence are rounding noise. */
    const int flat = !(s1 >= 1e-3f);
    const float coherence = flat ? 0.0f : (s1 - s2) / (s1 + s2);
    const float pseudo = flat ? 0.0f : clik__lapar_model_pseudo_angle(d, 2.0f * b);
    /* Step 5. */
    int ang = 0;
    for (int m = 0; m < p->angles; m++)
        ang += p->angle_edges[m] <= pseudo;
    ang = ang == p->angles ? 0 : ang;
    int sb = 0, cb = 0;
    for (int k = 0; k < p->strengths - 1; k++)
        sb += p->strength_edges[k] <= strength;
    for (int k = 0; k < p->coherences - 1; k++)
        cb += p->coherence_edges[k] <= coherence;
    /* Step 6. */
    const int phase = p->phases ? (y % p->scale) * p->scale + (x % p->scale) : 0;
    return ((phase * p->angles + ang) * p->strengths + sb) * p->coherences + cb;
}

#endif

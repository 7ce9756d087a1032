/*
 * IEEE binary16 conversion, a pure helper below the library and the CPU
 * paths: the model files (lib/ops/lapar_model_file.c, lapar_net_file.c),
 * LAPAR's compression (lib/ops/lapar_compress.c) and the CPU paths that
 * read f16 phi (fallback_cpu/{scalar,neon}/lapar.c) convert here.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_HALF_H
#define CLIK_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A half as a float, exactly: normal, subnormal, zero, infinity and NaN. */
static inline float clik__half_to_float(uint16_t h)
{
    const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float v;
    if (exponent == 0)
        v = ldexpf((float)mantissa, -24);
    else if (exponent == 31)
        v = mantissa ? NAN : INFINITY;
    else
        v = ldexpf((float)(mantissa | 0x400), exponent - 25);
    return sign ? -v : v;
}

/* A float as a half, rounded to nearest even; finite values beyond the
 * half range become infinite. */
static inline uint16_t clik__float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const float a = fabsf(f);
    if (a != a)
        return (uint16_t)(sign | 0x7e00u);
    if (a >= 65520.0f)
        return (uint16_t)(sign | 0x7c00u);
    if (a < 6.103515625e-05f) /* subnormal: steps of 2^-24 */
        return (uint16_t)(sign | (uint16_t)lrintf(a * 16777216.0f));
    int e;
    long q = lrintf(frexpf(a, &e) * 2048.0f); /* 1024..2048 */
    if (q == 2048) {
        q = 1024;
        e++;
    }
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)(q - 1024));
}

#endif

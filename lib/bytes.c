/*
 * Bytes of the library's file formats: little-endian integers and floats,
 * IEEE binary16 and CRC-32. SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "internal.h"

uint32_t clik__crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

uint32_t clik__get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void clik__put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

float clik__get_f32(const uint8_t *p)
{
    const uint32_t u = clik__get_u32(p);
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

void clik__put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    clik__put_u32(p, u);
}

float clik__half_to_float(uint16_t h)
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

/* Round to nearest even; finite values beyond the half range become infinite. */
uint16_t clik__float_to_half(float f)
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

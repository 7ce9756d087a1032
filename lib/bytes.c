/*
 * Bytes of the library's file formats: little-endian integers and floats
 * and CRC-32 (IEEE binary16: fallback_cpu/half.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
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

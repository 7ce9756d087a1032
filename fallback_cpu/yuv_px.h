/*
 * YUV 4:2:0 family: one pixel's arithmetic, shared by the scalar oracle and
 * the NEON code's tails (lib/clik_yuv.h gives the definitions).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_YUV_PX_H
#define CLIK_YUV_PX_H

#include <stdint.h>

#include "cpu.h"

/* s >> 20 saturated to 0..255 (s < 0 gives 0, as an arithmetic shift and
 * a saturating narrow do). */
static inline uint8_t clik__yuv_sat(int32_t s)
{
    return s < 0 ? 0 : s >= (256 << 20) ? 255 : (uint8_t)(s >> 20);
}

/* The scaled luma term of Y: max(0, Y - y_off) * cy. */
static inline int32_t clik__yuv_luma_term(const clik_yuv_coeffs *k, int y)
{
    return (y > k->y_off ? y - k->y_off : 0) * k->cy;
}

/* Red, green and blue (rgb[0..2]) of a pixel of luma term yt in a block
 * of chroma u, v. */
static inline void clik__yuv_px_rgb(const clik_yuv_coeffs *k, int32_t yt, int u, int v,
                                    uint8_t *rgb)
{
    const int32_t half = 1 << 19, du = u - 128, dv = v - 128;
    rgb[0] = clik__yuv_sat(yt + k->cvr * dv + half);
    rgb[1] = clik__yuv_sat(yt + k->cvg * dv + k->cug * du + half);
    rgb[2] = clik__yuv_sat(yt + k->cub * du + half);
}

/* Y of red, green and blue. */
static inline uint8_t clik__yuv_px_y(const clik_yuv_coeffs *k, int r, int g, int b)
{
    return clik__yuv_sat(k->ry * r + k->gy * g + k->by * b + (k->y_off << 20) + (1 << 19));
}

/* U and V of red, green and blue. */
static inline void clik__yuv_px_uv(const clik_yuv_coeffs *k, int r, int g, int b, uint8_t *u,
                                   uint8_t *v)
{
    const int32_t add = (128 << 20) + (1 << 19);
    *u = clik__yuv_sat(k->ru * r + k->gu * g + k->bu * b + add);
    *v = clik__yuv_sat(k->rv * r + k->gv * g + k->bv * b + add);
}

/* Pixels x0..x1 - 1 of row y of frame s into RGB row out (ch channels, red
 * at channel `red`; 1 channel copies Y). */
static inline void clik__yuv_rgb_row(const clik_yuv_planes *s, const clik_yuv_coeffs *k, int y,
                                     uint8_t *out, int ch, int red, int x0, int x1)
{
    const uint8_t *yrow = s->y + (size_t)y * s->y_stride;
    const uint8_t *urow = s->u + (size_t)(y / 2) * s->u_stride;
    const uint8_t *vrow = s->v + (size_t)(y / 2) * s->v_stride;
    for (int x = x0; x < x1; x++) {
        uint8_t *p = out + (size_t)x * (size_t)ch;
        if (ch == 1) {
            p[0] = yrow[x];
            continue;
        }
        const size_t c = (size_t)(x / 2) * (size_t)s->step;
        uint8_t rgb[3];
        clik__yuv_px_rgb(k, clik__yuv_luma_term(k, yrow[x]), urow[c], vrow[c], rgb);
        p[red] = rgb[0];
        p[1] = rgb[1];
        p[2 - red] = rgb[2];
        if (ch == 4)
            p[3] = 255;
    }
}

/* Pixels x0..x1 - 1 of RGB row `in` (ch channels, red at `red`) into row y
 * of frame d: Y of each, U and V of those of even x in even rows. */
static inline void clik__yuv_from_rgb_row(const uint8_t *in, int ch, int red, int y,
                                          const clik_yuv_planes *d, const clik_yuv_coeffs *k,
                                          int x0, int x1)
{
    uint8_t *yrow = d->y + (size_t)y * d->y_stride;
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = in + (size_t)x * (size_t)ch;
        yrow[x] = clik__yuv_px_y(k, p[red], p[1], p[2 - red]);
        if (y % 2 == 0 && x % 2 == 0) {
            const size_t c = (size_t)(x / 2) * (size_t)d->step;
            clik__yuv_px_uv(k, p[red], p[1], p[2 - red], d->u + (size_t)(y / 2) * d->u_stride + c,
                            d->v + (size_t)(y / 2) * d->v_stride + c);
        }
    }
}

#endif

/*
 * YUV 4:2:0 family, scalar: the correctness oracle of clik_yuv_to_rgb and
 * clik_rgb_to_yuv, pixel by pixel from their definitions (lib/clik_yuv.h):
 * each pixel takes its 2 x 2 block's U and V; RGB to YUV takes a block's
 * chroma from its top-left pixel, as OpenCV's COLOR_RGB2YUV_I420.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "cpu.h"
#include "yuv_px.h"

static void to_rgb_scalar(const clik_yuv_planes *src, clik_image *dst, const clik_yuv_coeffs *k)
{
    const int ch = dst->channels, red = dst->order == CLIK_ORDER_BGR ? 2 : 0;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *yrow = src->y + (size_t)y * src->y_stride;
        const uint8_t *urow = src->u + (size_t)(y / 2) * src->u_stride;
        const uint8_t *vrow = src->v + (size_t)(y / 2) * src->v_stride;
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        if (ch == 1) {
            memcpy(out, yrow, (size_t)src->width);
            continue;
        }
        for (int x = 0; x < src->width; x++) {
            const size_t c = (size_t)(x / 2) * (size_t)src->step;
            uint8_t rgb[3];
            clik__yuv_px_rgb(k, clik__yuv_luma_term(k, yrow[x]), urow[c], vrow[c], rgb);
            uint8_t *p = out + (size_t)x * (size_t)ch;
            p[red] = rgb[0];
            p[1] = rgb[1];
            p[2 - red] = rgb[2];
            if (ch == 4)
                p[3] = 255;
        }
    }
}

static void from_rgb_scalar(const clik_image *src, const clik_yuv_planes *dst,
                            const clik_yuv_coeffs *k)
{
    const int ch = src->channels, red = src->order == CLIK_ORDER_BGR ? 2 : 0;
    for (int y = 0; y < dst->height; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *yrow = dst->y + (size_t)y * dst->y_stride;
        for (int x = 0; x < dst->width; x++) {
            const uint8_t *p = in + (size_t)x * (size_t)ch;
            yrow[x] = clik__yuv_px_y(k, p[red], p[1], p[2 - red]);
            if (y % 2 == 0 && x % 2 == 0) {
                const size_t c = (size_t)(x / 2) * (size_t)dst->step;
                clik__yuv_px_uv(k, p[red], p[1], p[2 - red],
                                dst->u + (size_t)(y / 2) * dst->u_stride + c,
                                dst->v + (size_t)(y / 2) * dst->v_stride + c);
            }
        }
    }
}

void clik__yuv_dsp_init_scalar(clik_yuv_dsp *dsp)
{
    dsp->to_rgb = to_rgb_scalar;
    dsp->from_rgb = from_rgb_scalar;
}

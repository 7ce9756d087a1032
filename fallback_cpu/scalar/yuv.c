/*
 * YUV 4:2:0 family, scalar: the correctness oracle of clik_yuv_to_rgb and
 * clik_rgb_to_yuv, pixel by pixel from their definitions (lib/clik_yuv.h):
 * each pixel takes its 2 x 2 block's U and V; RGB to YUV takes a block's
 * chroma from its top-left pixel, as OpenCV's COLOR_RGB2YUV_I420.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cpu.h"
#include "yuv_px.h"

static void to_rgb_scalar(const clik_yuv_planes *src, clik_image *dst, const clik_yuv_coeffs *k)
{
    const int red = dst->order == CLIK_ORDER_BGR ? 2 : 0;
    for (int y = 0; y < src->height; y++)
        clik__yuv_rgb_row(src, k, y, (uint8_t *)dst->data + (size_t)y * dst->stride, dst->channels,
                          red, 0, src->width);
}

static void from_rgb_scalar(const clik_image *src, const clik_yuv_planes *dst,
                            const clik_yuv_coeffs *k)
{
    const int red = src->order == CLIK_ORDER_BGR ? 2 : 0;
    for (int y = 0; y < dst->height; y++)
        clik__yuv_from_rgb_row((const uint8_t *)src->data + (size_t)y * src->stride, src->channels,
                               red, y, dst, k, 0, dst->width);
}

void clik__yuv_dsp_init_scalar(clik_yuv_dsp *dsp)
{
    dsp->to_rgb = to_rgb_scalar;
    dsp->from_rgb = from_rgb_scalar;
}

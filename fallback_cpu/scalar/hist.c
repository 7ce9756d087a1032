/* Histogram family, scalar: the correctness oracle. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

static void hist_scalar(const uint8_t *src, size_t stride, int width, int height, int channels,
                        uint32_t *hist)
{
    for (int y = 0; y < height; y++) {
        const uint8_t *row = src + (size_t)y * stride;
        for (int x = 0; x < width; x++)
            for (int c = 0; c < channels; c++)
                hist[c * 256 + row[x * channels + c]]++;
    }
}

static void lut_scalar(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                       int width, int height, int channels, const uint8_t *tables, int per_channel)
{
    for (int y = 0; y < height; y++) {
        const uint8_t *in = src + (size_t)y * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        for (int x = 0; x < width; x++)
            for (int c = 0; c < channels; c++) {
                const uint8_t *table = tables + (per_channel ? c * 256 : 0);
                out[x * channels + c] = table[in[x * channels + c]];
            }
    }
}

void clik__hist_dsp_init_scalar(clik_hist_dsp *dsp)
{
    dsp->hist = hist_scalar;
    dsp->lut = lut_scalar;
}

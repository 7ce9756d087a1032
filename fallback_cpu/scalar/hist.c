/* Histogram family, scalar: the correctness oracle. SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <string.h>

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

/* ---- YCrCb luma (8-bit, 14-bit fixed point: Y = 0.299 R + 0.587 G + 0.114 B,
 * Cr = 0.713 (R - Y) + 128, Cb = 0.564 (B - Y) + 128, ITU-R BT.601, with the
 * coefficients and rounding of OpenCV's COLOR_RGB2YCrCb and back) ---------- */

static int clamp255(int v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* (v + 2^13) >> 14, rounding toward minus infinity for negative v as an
 * arithmetic shift does. */
static int descale14(int v)
{
    const int r = v + (1 << 13);
    return r >= 0 ? r / 16384 : -((-r + 16383) / 16384);
}

/* The luma of pixel px, whose red is px[red] and blue px[2 - red]. */
static int luma_of(const uint8_t *px, int red)
{
    return descale14(px[red] * 4899 + px[1] * 9617 + px[2 - red] * 1868);
}

static void luma_scalar(const uint8_t *src, size_t stride, int width, int height, int bgr,
                        uint8_t *y)
{
    const int red = bgr ? 2 : 0;
    for (int r = 0; r < height; r++)
        for (int x = 0; x < width; x++)
            y[(size_t)r * width + x] = (uint8_t)luma_of(src + (size_t)r * stride + 4 * x, red);
}

static void luma_merge_scalar(const uint8_t *src, size_t src_stride, const uint8_t *y, uint8_t *dst,
                              size_t dst_stride, int width, int height, int bgr)
{
    const int red = bgr ? 2 : 0, blue = 2 - red;
    for (int r = 0; r < height; r++)
        for (int x = 0; x < width; x++) {
            const uint8_t *in = src + (size_t)r * src_stride + 4 * x;
            uint8_t *out = dst + (size_t)r * dst_stride + 4 * x;
            const int y0 = luma_of(in, red);
            const int cr = clamp255(descale14((in[red] - y0) * 11682 + (128 << 14))) - 128;
            const int cb = clamp255(descale14((in[blue] - y0) * 9241 + (128 << 14))) - 128;
            const int y1 = y[(size_t)r * width + x];
            const uint8_t alpha = in[3];
            out[red] = (uint8_t)clamp255(y1 + descale14(cr * 22987));
            out[1] = (uint8_t)clamp255(y1 + descale14(cb * -5636 + cr * -11698));
            out[blue] = (uint8_t)clamp255(y1 + descale14(cb * 29049));
            out[3] = alpha;
        }
}

/* ---- CLAHE ------------------------------------------------------------------ */

/* The source index of padded index i (0 <= i < n + padding): reflection
 * about the last element, repeated as often as needed. */
static int reflect101(int i, int n)
{
    if (n == 1)
        return 0;
    while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

void clik__clahe_lut_of(uint32_t *hist, const clik_clahe_plan *p, uint8_t *lut)
{
    /* Clip, then hand the excess out: an equal share to every bin, then
     * one more count to every step-th bin from 0 while any is left, step =
     * 256 / remainder (at least 1). */
    uint32_t excess = 0;
    for (int v = 0; v < 256; v++)
        if (hist[v] > p->limit) {
            excess += hist[v] - p->limit;
            hist[v] = p->limit;
        }
    const uint32_t share = excess / 256;
    uint32_t rest = excess - share * 256;
    for (int v = 0; v < 256; v++)
        hist[v] += share;
    if (rest > 0) {
        const uint32_t step = 256 / rest > 1 ? 256 / rest : 1;
        for (uint32_t v = 0; v < 256 && rest > 0; v += step, rest--)
            hist[v]++;
    }
    uint32_t cdf = 0;
    for (int v = 0; v < 256; v++) {
        cdf += hist[v];
        const long q = lrintf((float)cdf * p->lut_scale);
        lut[v] = (uint8_t)(q > 255 ? 255 : q);
    }
}

static void clahe_luts_scalar(const uint8_t *src, size_t stride, const clik_clahe_plan *p,
                              uint8_t *luts)
{
    for (int ty = 0; ty < p->tiles_y; ty++)
        for (int tx = 0; tx < p->tiles_x; tx++) {
            uint32_t hist[256];
            memset(hist, 0, sizeof(hist));
            for (int j = 0; j < p->tile_h; j++) {
                const uint8_t *row =
                    src + (size_t)reflect101(ty * p->tile_h + j, p->height) * stride;
                for (int i = 0; i < p->tile_w; i++)
                    hist[row[reflect101(tx * p->tile_w + i, p->width)]]++;
            }
            clik__clahe_lut_of(hist, p, luts + (size_t)(ty * p->tiles_x + tx) * 256);
        }
}

/* Tile coordinate t of pixel i: the tile whose centre is at or left of i,
 * its right neighbour, and the weight of that neighbour; outside the
 * centres the nearest tile on both sides. */
typedef struct tile_pos {
    int t1, t2;
    float w2;
} tile_pos;

static tile_pos tile_at(int i, float inv, int tiles)
{
    const float f = (float)i * inv - 0.5f;
    const int t = (int)floorf(f);
    tile_pos r;
    r.w2 = f - (float)t;
    r.t1 = t < 0 ? 0 : t;
    r.t2 = t + 1 > tiles - 1 ? tiles - 1 : t + 1;
    return r;
}

static void clahe_interp_scalar(const uint8_t *src, size_t src_stride, uint8_t *dst,
                                size_t dst_stride, const clik_clahe_plan *p, const uint8_t *luts)
{
    for (int y = 0; y < p->height; y++) {
        const tile_pos ty = tile_at(y, p->inv_th, p->tiles_y);
        const uint8_t *top = luts + (size_t)ty.t1 * p->tiles_x * 256;
        const uint8_t *bottom = luts + (size_t)ty.t2 * p->tiles_x * 256;
        const uint8_t *in = src + (size_t)y * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        for (int x = 0; x < p->width; x++) {
            const tile_pos tx = tile_at(x, p->inv_tw, p->tiles_x);
            const int v = in[x];
            const float w1 = 1.0f - tx.w2;
            const float a = (float)top[tx.t1 * 256 + v] * w1 + (float)top[tx.t2 * 256 + v] * tx.w2;
            const float b =
                (float)bottom[tx.t1 * 256 + v] * w1 + (float)bottom[tx.t2 * 256 + v] * tx.w2;
            const long q = lrintf(a * (1.0f - ty.w2) + b * ty.w2);
            out[x] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
        }
    }
}

void clik__hist_dsp_init_scalar(clik_hist_dsp *dsp)
{
    dsp->hist = hist_scalar;
    dsp->lut = lut_scalar;
    dsp->luma = luma_scalar;
    dsp->luma_merge = luma_merge_scalar;
    dsp->clahe_luts = clahe_luts_scalar;
    dsp->clahe_interp = clahe_interp_scalar;
}

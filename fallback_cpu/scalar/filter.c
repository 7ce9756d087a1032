/*
 * Filter family, scalar: the correctness oracle for the Gaussian blur and
 * RGB(A) -> grey, written straight from their definitions.
 *
 * Blur: a row pass into an f32 image, then a column pass, each output
 *
 *   s = w[0] * in(p - r) + w[1] * in(p - r + 1) + ... + w[k - 1] * in(p + r)
 *
 * summed left to right with every product rounded on its own (no fused
 * multiply-add; the NEON code and kernels/filter.cl follow the same order and
 * give the same bits). Out-of-image taps reflect-101 (clik__reflect101, which
 * folds as often as an image narrower than the radius needs). u8 results are
 * floor(s + 0.5), saturated: rounding half up, as OpenCV's fixed-point blur.
 *
 * Grey: OpenCV's COLOR_RGBA2GRAY (3 or 4 channels, red first or, in BGR
 * order, blue first: COLOR_BGR(A)2GRAY); u8 in the 15-bit fixed point of OpenCV 4
 * (9798 R + 19235 G + 3735 B + 16384) >> 15, which equals cvtColor for all
 * 2^24 RGB triples (the 14-bit (4899 R + 9617 G + 1868 B + 8192) >> 14 of
 * older releases differs by 1 for 43864 of them); f32 as
 * 0.299 R + 0.587 G + 0.114 B.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu.h"

/* Every product is rounded before it is added (see above), which the
 * project's ISO C build gives by default; this keeps it so in a GNU C
 * dialect or with -ffp-contract=fast. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Element c of pixel (x, y) of a u8 or f32 image, as a float. */
static float element(const clik_image *img, int x, int y, int c)
{
    const uint8_t *row = (const uint8_t *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == CLIK_U8)
        return (float)row[i];
    return ((const float *)(const void *)row)[i];
}

static void set_element(clik_image *img, int x, int y, int c, float v)
{
    uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == CLIK_U8) {
        float r = v + 0.5f;
        row[i] = r <= 0.0f ? 0 : r >= 255.0f ? 255 : (uint8_t)r; /* the cast truncates */
    } else {
        ((float *)(void *)row)[i] = v;
    }
}

int clik__blur_scalar(const clik_image *src, clik_image *dst, const float *weights, int ksize)
{
    const int w = src->width, h = src->height, ch = src->channels, r = ksize / 2;
    /* The whole row pass is kept, so that dst may be src. */
    size_t n = (size_t)w * (size_t)h * (size_t)ch;
    if (n > SIZE_MAX / sizeof(float))
        return -1;
    float *tmp = malloc(n * sizeof(float));
    if (!tmp)
        return -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                float s = weights[0] * element(src, clik__reflect101(x - r, w), y, c);
                for (int k = 1; k < ksize; k++) {
                    float p = weights[k] * element(src, clik__reflect101(x - r + k, w), y, c);
                    s += p;
                }
                tmp[((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c] = s;
            }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                float s = 0.0f;
                for (int k = 0; k < ksize; k++) {
                    size_t yy = (size_t)clik__reflect101(y - r + k, h);
                    float p =
                        weights[k] * tmp[(yy * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c];
                    s = k == 0 ? p : s + p;
                }
                set_element(dst, x, y, c, s);
            }
    free(tmp);
    return 0;
}

void clik__gray_scalar(const clik_image *src, clik_image *dst)
{
    /* The channels of red and blue: 0 and 2 in RGB(A), 2 and 0 in BGR(A). */
    const int red = src->order == CLIK_ORDER_BGR ? 2 : 0, blue = 2 - red;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            if (src->type == CLIK_U8) {
                uint32_t r = (uint32_t)element(src, x, y, red);
                uint32_t g = (uint32_t)element(src, x, y, 1);
                uint32_t b = (uint32_t)element(src, x, y, blue);
                uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
                out[x] = (uint8_t)((9798u * r + 19235u * g + 3735u * b + 16384u) >> 15);
            } else {
                float v = 0.299f * element(src, x, y, red);
                float p = 0.587f * element(src, x, y, 1);
                v += p;
                p = 0.114f * element(src, x, y, blue);
                v += p;
                set_element(dst, x, y, 0, v);
            }
        }
}

void clik__filter_dsp_init_scalar(clik_filter_dsp *dsp)
{
    dsp->blur = clik__blur_scalar;
    dsp->gray = clik__gray_scalar;
}

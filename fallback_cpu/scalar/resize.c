/*
 * Resize family, scalar: the correctness oracle, written straight from the
 * definitions, pixel by pixel.
 *
 *  - nearest: source index floor(x * (1 / (W' / W))), the reciprocal and the
 *    product in double (OpenCV's INTER_NEAREST), clamped to the last pixel;
 *  - bilinear, bicubic: the source point of output x is
 *    f = (x + 0.5) * W / W' - 0.5; with t = f - floor(f) the taps are the
 *    pixels floor(f) + k for k = 0, 1 (bilinear: weights 1 - t, t) or
 *    k = -1 .. 2 (bicubic: Keys' kernel with A = -0.75 at the distances
 *    t + 1, t, 1 - t, 2 - t); taps outside the image take the nearest edge
 *    pixel (border replicate). Both axes alike. For u8 images each weight
 *    is rounded to a multiple of 1/2048, the steps of OpenCV's fixed-point
 *    resize (INTER_RESIZE_COEF_BITS = 11), so that results match
 *    INTER_CUBIC's also where the exact value is close to a half. A u8
 *    result is rounded to nearest (halves to even, as IEEE rounding and
 *    OpenCV's cvRound) and saturated.
 *
 * The coefficients are computed here on their own, in double, not taken
 * from the tables that lib/ops/resize.c builds for the kernels. The sums
 * are in float, in a fixed order that the kernels and the NEON code follow:
 *
 *   h_j = wx[0] * p(j, 0) + wx[1] * p(j, 1) + ...   (each source row j)
 *   out = wy[0] * h_0 + wy[1] * h_1 + ...
 *
 * left to right, every product rounded on its own (no fused multiply-add).
 * Exact values that are ties (x.5, frequent with weights such as 1/2 and
 * 1/4) then round the same way everywhere.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

#include "cpu.h"

/* Keeps every product rounded on its own in a GNU C dialect or with
 * -ffp-contract=fast, where GCC would fuse a * b + c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define MAX_TAPS 4

static int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static int nearest_index(int x, int src_size, int dst_size)
{
    const double inverse_scale = (double)dst_size / (double)src_size;
    const int i = (int)floor((double)x * (1.0 / inverse_scale));
    return i < src_size - 1 ? i : src_size - 1;
}

/* Keys' cubic convolution kernel with A = -0.75 at distance d. */
static double keys(double d)
{
    const double a = -0.75;
    d = fabs(d);
    if (d <= 1.0)
        return (a + 2.0) * d * d * d - (a + 3.0) * d * d + 1.0;
    if (d < 2.0)
        return a * d * d * d - 5.0 * a * d * d + 8.0 * a * d - 4.0 * a;
    return 0.0;
}

/* The taps of output coordinate x along an axis: source indices (border
 * replicated) and weights, in steps of 1/2048 when quantized (u8). */
static void axis_taps(int x, int src_size, int dst_size, int ntaps, int quantized, int *index,
                      float *weight)
{
    const double f = ((double)x + 0.5) * (double)src_size / (double)dst_size - 0.5;
    const double base = floor(f), t = f - base;
    const int first = (int)base - (ntaps == 4 ? 1 : 0);
    for (int k = 0; k < ntaps; k++) {
        index[k] = clamp_index(first + k, src_size);
        double w = ntaps == 2 ? (k == 0 ? 1.0 - t : t) : keys(t + 1.0 - (double)k);
        if (quantized)
            w = rint(w * 2048.0) / 2048.0;
        weight[k] = (float)w;
    }
}

/* Source element c of pixel col of a row. */
static float element(const clik_image *img, const void *row, int col, int c)
{
    const size_t i = (size_t)col * (size_t)img->channels + (size_t)c;
    if (img->type == CLIK_U8)
        return ((const uint8_t *)row)[i];
    return ((const float *)row)[i];
}

static void set_element(clik_image *img, void *row, int x, int c, float v)
{
    const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == CLIK_U8)
        ((uint8_t *)row)[i] = (uint8_t)(v <= 0.0f ? 0.0f : v >= 255.0f ? 255.0f : rintf(v));
    else
        ((float *)row)[i] = v;
}

static void resize_nearest(const clik_image *src, clik_image *dst)
{
    const size_t pixel = (size_t)src->channels * (src->type == CLIK_U8 ? 1 : sizeof(float));
    for (int y = 0; y < dst->height; y++) {
        const int sy = nearest_index(y, src->height, dst->height);
        const uint8_t *in = (const uint8_t *)src->data + (size_t)sy * src->stride;
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++) {
            const int sx = nearest_index(x, src->width, dst->width);
            for (size_t b = 0; b < pixel; b++)
                out[(size_t)x * pixel + b] = in[(size_t)sx * pixel + b];
        }
    }
}

static void resize_interp(const clik_image *src, clik_image *dst, int ntaps)
{
    const int quantized = src->type == CLIK_U8;
    for (int y = 0; y < dst->height; y++) {
        int rows[MAX_TAPS];
        float wy[MAX_TAPS];
        const void *in[MAX_TAPS];
        axis_taps(y, src->height, dst->height, ntaps, quantized, rows, wy);
        for (int j = 0; j < ntaps; j++)
            in[j] = (const char *)src->data + (size_t)rows[j] * src->stride;
        void *out = (char *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++) {
            int cols[MAX_TAPS];
            float wx[MAX_TAPS];
            axis_taps(x, src->width, dst->width, ntaps, quantized, cols, wx);
            for (int c = 0; c < src->channels; c++) {
                float sum = 0.0f;
                for (int j = 0; j < ntaps; j++) {
                    float h = wx[0] * element(src, in[j], cols[0], c);
                    for (int i = 1; i < ntaps; i++) {
                        const float term = wx[i] * element(src, in[j], cols[i], c);
                        h += term;
                    }
                    const float term = wy[j] * h;
                    sum = j == 0 ? term : sum + term;
                }
                set_element(dst, out, x, c, sum);
            }
        }
    }
}

void clik__resize_scalar(const clik_image *src, clik_image *dst, clik_interp method)
{
    switch (method) {
    case CLIK_INTERP_NEAREST: resize_nearest(src, dst); break;
    case CLIK_INTERP_BILINEAR: resize_interp(src, dst, 2); break;
    case CLIK_INTERP_BICUBIC: resize_interp(src, dst, 4); break;
    }
}

void clik__resize_dsp_init_scalar(clik_resize_dsp *dsp)
{
    dsp->resize = clik__resize_scalar;
}

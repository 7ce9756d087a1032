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
 *  - with the coordinate scale fx of clik_resize_scaled (OpenCV's resize
 *    with fx, fy given), the same with W / W' replaced by 1 / fx, computed
 *    as OpenCV's resize computes it: nearest floor(x * (1 / fx)), bilinear
 *    and bicubic f = (x + 0.5) * (1 / fx) - 0.5; bicubic-aa s = fx.
 *
 * The coefficients are computed here on their own, in double, not taken
 * from the tables that lib/ops/resize_opencl.c keeps for the kernels. The sums
 * are in float, in a fixed order that the kernels and the NEON code follow:
 *
 *   h_j = wx[0] * p(j, 0) + wx[1] * p(j, 1) + ...   (each source row j)
 *   out = wy[0] * h_0 + wy[1] * h_1 + ...
 *
 * left to right, every product rounded on its own (no fused multiply-add).
 * Exact values that are ties (x.5, frequent with weights such as 1/2 and
 * 1/4) then round the same way everywhere.
 *
 *  - bicubic-aa (MATLAB's imresize(..., 'bicubic'), antialiased): straight
 *    from MATLAB's definition, in double. Along an axis of n source pixels
 *    and n' outputs, s = n' / n, k = min(s, 1); output x (0-based) takes
 *    the source point u = (x + 0.5) / s - 0.5 (MATLAB's x / s + 0.5 *
 *    (1 - 1 / s) in 1-based coordinates), the taps j = floor(u - 2 / k)
 *    + 0 .. ceil(4 / k) + 1, each weighted k * cubic(k * (u - j)) with
 *    MATLAB's cubic (Keys, a = -0.5), the weights divided by their sum, and
 *    tap j reading source pixel j mirrored (half-sample symmetric: ... 1 0
 *    | 0 1 .. n-1 | n-1 n-2 ...). Each output is the sum over the pairs of
 *    a row tap and a column tap of the product of their weights and the
 *    pixel, in double; u8 rounded to nearest with halves up, and
 *    saturated, a value less than 2^-10 below a half counting as the half
 *    (AA_HALF: the float sums of the other paths are off by far less, so
 *    that exact halves, frequent with symmetric weights, round alike); f32
 *    as it is.
 *    (MATLAB also rounds u8 between its two passes; results are within +-1
 *    of MATLAB's.) Nothing is shared with resize_geometry.c, which folds
 *    the mirrored taps for the kernels and the NEON path.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

/* Keeps every product rounded on its own in a GNU C dialect or with
 * -ffp-contract=fast, where GCC would fuse a * b + c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* After the pragma: keys() too keeps its products apart. */
#include "common.h"

#define MAX_TAPS 4

/* fx: the axis' coordinate scale (clik_resize_scaled), or 0 for
 * dst_size / src_size (clik_resize). */
static int nearest_index(int x, int src_size, int dst_size, double fx)
{
    const double inverse_scale = fx > 0.0 ? fx : (double)dst_size / (double)src_size;
    const int i = (int)floor((double)x * (1.0 / inverse_scale));
    return i < src_size - 1 ? i : src_size - 1;
}

/* The taps of output coordinate x along an axis: source indices (border
 * replicated) and weights, in steps of 1/2048 when quantized (u8). */
static void axis_taps(int x, int src_size, int dst_size, double fx, int ntaps, int quantized,
                      int *index, float *weight)
{
    const double f = fx > 0.0 ? ((double)x + 0.5) * (1.0 / fx) - 0.5
                              : ((double)x + 0.5) * (double)src_size / (double)dst_size - 0.5;
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

static void resize_nearest(const clik_image *src, clik_image *dst, double fx, double fy)
{
    const size_t pixel = (size_t)src->channels * (src->type == CLIK_U8 ? 1 : sizeof(float));
    for (int y = 0; y < dst->height; y++) {
        const int sy = nearest_index(y, src->height, dst->height, fy);
        const uint8_t *in = (const uint8_t *)src->data + (size_t)sy * src->stride;
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++) {
            const int sx = nearest_index(x, src->width, dst->width, fx);
            for (size_t b = 0; b < pixel; b++)
                out[(size_t)x * pixel + b] = in[(size_t)sx * pixel + b];
        }
    }
}

static void resize_interp(const clik_image *src, clik_image *dst, double fx, double fy, int ntaps)
{
    const int quantized = src->type == CLIK_U8;
    for (int y = 0; y < dst->height; y++) {
        int rows[MAX_TAPS];
        float wy[MAX_TAPS];
        const void *in[MAX_TAPS];
        axis_taps(y, src->height, dst->height, fy, ntaps, quantized, rows, wy);
        for (int j = 0; j < ntaps; j++)
            in[j] = (const char *)src->data + (size_t)rows[j] * src->stride;
        void *out = (char *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++) {
            int cols[MAX_TAPS];
            float wx[MAX_TAPS];
            axis_taps(x, src->width, dst->width, fx, ntaps, quantized, cols, wx);
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

/* ---- bicubic-aa ---- */

/* MATLAB's cubic kernel (imresize.m): Keys' with a = -0.5. */
static double matlab_cubic(double x)
{
    const double ax = fabs(x), ax2 = ax * ax, ax3 = ax2 * ax;
    if (ax <= 1.0)
        return 1.5 * ax3 - 2.5 * ax2 + 1.0;
    if (ax <= 2.0)
        return -0.5 * ax3 + 2.5 * ax2 - 4.0 * ax + 2.0;
    return 0.0;
}

/* Source index of tap j (any integer) on an axis of n pixels, mirrored as
 * MATLAB's aux = [1:n, n:-1:1] indexed by mod(j - 1, 2n) + 1 (0-based here). */
static int symmetric_index(long long j, int n)
{
    long long m = j % (2LL * n);
    if (m < 0)
        m += 2LL * n;
    return m < n ? (int)m : (int)(2LL * n - 1 - m);
}

/* The taps of output x along an axis of src_size -> dst_size: the first
 * tap, their count, and what the weights are computed from. */
typedef struct aa_axis {
    double u, k, sum;
    long long first, count;
} aa_axis;

static double aa_weight(const aa_axis *a, long long j)
{
    return a->k * matlab_cubic(a->k * (a->u - (double)j));
}

static aa_axis aa_axis_at(int x, int src_size, int dst_size, double fx)
{
    aa_axis a;
    const double s = fx > 0.0 ? fx : (double)dst_size / (double)src_size;
    a.k = s < 1.0 ? s : 1.0;
    const double width = 4.0 / a.k;
    a.u = ((double)x + 0.5) / s - 0.5;
    a.first = (long long)floor(a.u - width / 2.0);
    a.count = (long long)ceil(width) + 2;
    a.sum = 0.0;
    for (long long j = a.first; j < a.first + a.count; j++)
        a.sum += aa_weight(&a, j);
    return a;
}

/* u8 of a value: floor(v + AA_HALF), saturated. */
#define AA_HALF (0.5 + 1.0 / 1024.0)

static void resize_bicubic_aa(const clik_image *src, clik_image *dst, double fx, double fy)
{
    const int ch = src->channels;
    for (int y = 0; y < dst->height; y++) {
        const aa_axis ay = aa_axis_at(y, src->height, dst->height, fy);
        char *out = (char *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++) {
            const aa_axis ax = aa_axis_at(x, src->width, dst->width, fx);
            double acc[4] = {0.0, 0.0, 0.0, 0.0};
            for (long long j = ay.first; j < ay.first + ay.count; j++) {
                const double wy = aa_weight(&ay, j) / ay.sum;
                if (wy == 0.0)
                    continue;
                const int sy = symmetric_index(j, src->height);
                for (long long i = ax.first; i < ax.first + ax.count; i++) {
                    const double wx = aa_weight(&ax, i) / ax.sum;
                    const int sx = symmetric_index(i, src->width);
                    for (int c = 0; c < ch; c++)
                        acc[c] += wy * wx * load(src, sx, sy, c);
                }
            }
            for (int c = 0; c < ch; c++) {
                const size_t i = (size_t)x * (size_t)ch + (size_t)c;
                const double r = floor(acc[c] + AA_HALF);
                if (dst->type == CLIK_U8)
                    ((uint8_t *)out)[i] = (uint8_t)(r <= 0.0 ? 0.0 : r >= 255.0 ? 255.0 : r);
                else
                    ((float *)out)[i] = (float)acc[c];
            }
        }
    }
}

void clik__resize_scalar(const clik_image *src, clik_image *dst, clik_interp method,
                         const double *scale)
{
    const double fx = scale ? scale[0] : 0.0, fy = scale ? scale[1] : 0.0;
    switch (method) {
    case CLIK_INTERP_NEAREST: resize_nearest(src, dst, fx, fy); break;
    case CLIK_INTERP_BILINEAR: resize_interp(src, dst, fx, fy, 2); break;
    case CLIK_INTERP_BICUBIC: resize_interp(src, dst, fx, fy, 4); break;
    case CLIK_INTERP_BICUBIC_AA: resize_bicubic_aa(src, dst, fx, fy); break;
    }
}

void clik__resize_dsp_init_scalar(clik_resize_dsp *dsp)
{
    dsp->resize = clik__resize_scalar;
}

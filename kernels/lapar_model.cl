/*
 * LAPAR model family: the bucket of every pixel of the upsample U and the
 * per-bucket filter (lib/ops/lapar_model.c). The definition, which the
 * scalar oracle follows too, is the comment on clik_lapar_model_plan in
 * fallback_cpu/cpu.h; floating-point contraction is off (common.h) so that
 * every expression rounds as written there.
 *
 * Build options, one program per format of the output:
 *   T, T_IS_FLOAT   the output: uchar or float;
 *   CH              channels of U and of the output, 1 or 4 (alpha is U's).
 * Everything else is an argument: the window, its weights, the bins' edges
 * and counts, the scale and phases, the filter side and the filters (one
 * k x k table per bucket). Strides are in elements.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h" /* FP_CONTRACT OFF */

#ifndef MAX_BINS
#define MAX_BINS 32 /* CLIK_LAPAR_MODEL_MAX_BINS, which lib/ops passes */
#endif

/* Step 1: the luma of pixel i of a row of U, whose first channel is red,
 * or blue with bgr set. */
inline float luma(__global const float *row, int i, int bgr)
{
#if CH == 4
    const float4 p = vload4(i, row);
    const float r = bgr ? p.z : p.x, b = bgr ? p.x : p.z;
    return (0.299f * r + 0.587f * p.y) + 0.114f * b;
#else
    return row[i];
#endif
}

/* Step 2: the gradient of every pixel of U, as (gx, gy) pairs. */
__kernel void lmodel_gradient(__global const float *up, int up_stride, int w, int h,
                              __global float2 *grad, int bgr)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    __global const float *row = up + (size_t)y * up_stride;
    const float left = luma(row, clik_reflect101(x - 1, w), bgr);
    const float right = luma(row, clik_reflect101(x + 1, w), bgr);
    const float above = luma(up + (size_t)clik_reflect101(y - 1, h) * up_stride, x, bgr);
    const float below = luma(up + (size_t)clik_reflect101(y + 1, h) * up_stride, x, bgr);
    grad[(size_t)y * w + x] = (float2)(0.5f * (right - left), 0.5f * (below - above));
}

/* Step 3, the horizontal half: per pixel the window's row sums of the
 * gradient products, (sum w(i) gx gx, sum w(i) gx gy, sum w(i) gy gy, 0)
 * over i = -r..r; wt: the window's n weights. */
__kernel void lmodel_tensor_rows(__global const float2 *grad, int w, int h, int n,
                                 __constant float *wt, __global float4 *rows)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int r = n / 2;
    __global const float2 *grow = grad + (size_t)y * w;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    if (x >= r && x < w - r) {
        for (int i = -r; i <= r; i++) {
            const float2 g = grow[x + i];
            const float wgt = wt[i + r];
            a += wgt * (g.x * g.x);
            b += wgt * (g.x * g.y);
            c += wgt * (g.y * g.y);
        }
    } else {
        for (int i = -r; i <= r; i++) {
            const float2 g = grow[clik_reflect101(x + i, w)];
            const float wgt = wt[i + r];
            a += wgt * (g.x * g.x);
            b += wgt * (g.x * g.y);
            c += wgt * (g.y * g.y);
        }
    }
    rows[(size_t)y * w + x] = (float4)(a, b, c, 0.0f);
}

/* Steps 3 (the vertical half) to 6: the bucket of every pixel. params:
 * the strength edges from 1 and the coherence edges from MAX_BINS (MAX_BINS
 * - 1 each), the angle edges from 2 MAX_BINS; wt: the window's n weights. */
__kernel void lmodel_classify(__global const float4 *rows, int w, int h, int n,
                              __constant float *wt, __constant float *params, int angles,
                              int strengths, int coherences, int scale, int phases,
                              __global ushort *buckets, int bucket_stride)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int r = n / 2;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    for (int j = -r; j <= r; j++) {
        const float4 s = rows[(size_t)clik_reflect101(y + j, h) * w + x];
        const float wgt = wt[j + r];
        a += wgt * s.x;
        b += wgt * s.y;
        c += wgt * s.z;
    }
    const float norm = ldexp(1.0f, -2 * (n - 1));
    a *= norm;
    b *= norm;
    c *= norm;
    const float t = a + c, d = a - c;
    const float e = sqrt(d * d + 4.0f * (b * b));
    const float l1 = 0.5f * (t + e);
    float l2 = 0.5f * (t - e);
    l2 = l2 > 0.0f ? l2 : 0.0f;
    const float s1 = sqrt(l1 > 0.0f ? l1 : 0.0f), s2 = sqrt(l2);
    const int flat = !(s1 >= 1e-3f);
    const float coherence = flat ? 0.0f : (s1 - s2) / (s1 + s2);
    const float u = d, v = 2.0f * b;
    const float pa = v >= 0.0f ? (u >= 0.0f ? v / (u + v) : 1.0f + (-u) / (v - u))
                               : (u < 0.0f ? 2.0f + (-v) / (-u - v) : 3.0f + u / (u - v));
    const float pseudo = flat ? 0.0f : pa;
    int ang = 0;
    for (int m = 0; m < angles; m++)
        ang += params[2 * MAX_BINS + m] <= pseudo;
    ang = ang == angles ? 0 : ang;
    int sb = 0, cb = 0;
    for (int k = 0; k < strengths - 1; k++)
        sb += params[1 + k] <= s1;
    for (int k = 0; k < coherences - 1; k++)
        cb += params[MAX_BINS + k] <= coherence;
    const int phase = phases ? (y % scale) * scale + (x % scale) : 0;
    buckets[(size_t)y * bucket_stride + x] =
        (ushort)(((phase * angles + ang) * strengths + sb) * coherences + cb);
}

#if T_IS_FLOAT
#define STORE1(v, i, p) ((p)[(i)] = (v))
#else
/* Round to nearest, halves to even, and saturate; NaN becomes 0. */
#define STORE1(v, i, p) ((p)[(i)] = convert_uchar_sat(rint(v)))
#endif

#if CH == 4
typedef float4 px_t;
#define UP_AT(row, i) vload4((i), (row))
#else
typedef float px_t;
#define UP_AT(row, i) ((row)[(i)])
#endif

/* The filter's output pixel; alpha (4 channels) is U's, not filtered. */
inline void store_px(px_t sum, int x, int y, __global const float *up, int up_stride,
                     __global T *dst, int dst_stride)
{
    __global T *out = dst + (size_t)y * dst_stride + (size_t)x * CH;
#if CH == 4
    sum.w = vload4(x, up + (size_t)y * up_stride).w;
    STORE1(sum.x, 0, out);
    STORE1(sum.y, 1, out);
    STORE1(sum.z, 2, out);
    STORE1(sum.w, 3, out);
#else
    STORE1(sum, 0, out);
#endif
}

/* The filter: out = sum over the k x k taps of F_b[t] U(x + c - h, y + r - h),
 * reflect-101, F_b[t] at filters[b * bstride + t * tstride]: bucket-major
 * (k * k, 1) or tap-major (1, buckets), where a work-group's reads of one
 * tap fall in one run of the table (GPUs). */
__kernel void lmodel_filter(__global const float *up, int up_stride, int w, int h,
                            __global const ushort *buckets, int bucket_stride,
                            __global const float *filters, int bstride, int tstride, int k,
                            __global T *dst, int dst_stride)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int kh = k / 2;
    __global const float *f = filters + (size_t)buckets[(size_t)y * bucket_stride + x] * bstride;
    px_t sum = (px_t)(0.0f);
    if (x >= kh && x < w - kh && y >= kh && y < h - kh) {
        /* inside: no reflection */
        __global const float *row = up + (size_t)(y - kh) * up_stride + (size_t)(x - kh) * CH;
        for (int r = 0; r < k; r++, row += up_stride)
            for (int c = 0; c < k; c++)
                sum += f[(r * k + c) * tstride] * UP_AT(row, c);
    } else {
        for (int r = 0; r < k; r++) {
            __global const float *row = up + (size_t)clik_reflect101(y + r - kh, h) * up_stride;
            for (int c = 0; c < k; c++)
                sum += f[(r * k + c) * tstride] * UP_AT(row, clik_reflect101(x + c - kh, w));
        }
    }
    store_px(sum, x, y, up, up_stride, dst, dst_stride);
}

/* The same filter with the work-group's window of U staged in local memory
 * (GPUs): work-groups of at most LMODEL_WG_X x LMODEL_WG_Y, k at most 7;
 * the same sums in the same order. */
#define LMODEL_WG_X 32
#define LMODEL_WG_Y 8
#define TILE_W      (LMODEL_WG_X + 6)
#define TILE_H      (LMODEL_WG_Y + 6)

__kernel void lmodel_filter_local(__global const float *up, int up_stride, int w, int h,
                                  __global const ushort *buckets, int bucket_stride,
                                  __global const float *filters, int bstride, int tstride, int k,
                                  __global T *dst, int dst_stride)
{
    __local px_t tile[TILE_W * TILE_H];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int kh = k / 2, tw = lw + k - 1, th = lh + k - 1;
    const int x0 = get_group_id(0) * lw - kh, y0 = get_group_id(1) * lh - kh;
    for (int i = ly * lw + lx; i < tw * th; i += lw * lh) {
        const int ty = i / tw, tx = i - ty * tw;
        __global const float *row = up + (size_t)clik_reflect101(y0 + ty, h) * up_stride;
        tile[ty * TILE_W + tx] = UP_AT(row, clik_reflect101(x0 + tx, w));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    __global const float *f = filters + (size_t)buckets[(size_t)y * bucket_stride + x] * bstride;
    px_t sum = (px_t)(0.0f);
    for (int r = 0; r < k; r++)
        for (int c = 0; c < k; c++)
            sum += f[(r * k + c) * tstride] * tile[(ly + r) * TILE_W + lx + c];
    store_px(sum, x, y, up, up_stride, dst, dst_stride);
}

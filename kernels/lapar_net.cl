/*
 * LAPAR network family: the layers of LaparNet (Li et al., "LAPAR", NeurIPS
 * 2020, section 3.3 and its released code's description in
 * lib/ops/lapar_net.c) on planar float tensors: channel c of a W x H tensor
 * at c * plane + y * W + x.
 *
 *   lapar_net_input  the image (T, CH: uchar or float on 0..255, 1 or 4
 *                    channels) to 3 planes, v / 255 - mean[c]; grey feeds
 *                    the same value to the three;
 *   lapar_net_conv   one fused convolution: bias, K x K cross-correlation
 *                    with zero padding K / 2, ReLU when asked, plus alpha
 *                    times a residual tensor when asked, stored plain or
 *                    pixel-shuffled (SHUFFLE = s: output channel
 *                    c s^2 + i s + j of pixel (y, x) goes to channel c at
 *                    (s y + i, s x + j) of an s W x s H tensor).
 *
 * Build options of lapar_net_conv: K (3 or 5), COB (output channels per
 * work-item, dividing the layer's output channels), SHUFFLE (1 or s),
 * OUT_HALF (the output stored as binary16 with vstore_half: phi as F16),
 * LOCAL (the input tile and its apron staged in local memory, TW x TH
 * work-groups; else every tap read from global memory).
 * Work-item (x, y, z) computes output channels z COB .. z COB + COB - 1 at
 * pixel (x, y); every product is added in one fixed order (input channel,
 * row, column), so both variants give the same bits.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef K
#define K 3
#endif
#ifndef COB
#define COB 8
#endif
#ifndef SHUFFLE
#define SHUFFLE 1
#endif
#ifndef OUT_HALF
#define OUT_HALF 0
#endif
#ifndef LOCAL
#define LOCAL 0
#endif
#define R  (K / 2)
#define KK (K * K)

#if OUT_HALF
typedef half out_t;
#define STORE(v, i, p) vstore_half((v), (i), (p))
#else
typedef float out_t;
#define STORE(v, i, p) ((p)[(i)] = (v))
#endif

#ifdef T
__kernel void lapar_net_input(__global const T *src, int src_stride, int width, int height,
                              __global float *dst, ulong plane, float m0, float m1, float m2)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    __global const T *p = src + (size_t)y * (size_t)src_stride + (size_t)x * CH;
    const size_t o = (size_t)y * (size_t)width + (size_t)x;
    const float k = 1.0f / 255.0f;
#if CH == 1
    const float g = (float)p[0] * k;
    dst[o] = g - m0;
    dst[o + plane] = g - m1;
    dst[o + 2 * plane] = g - m2;
#else
    dst[o] = (float)p[0] * k - m0;
    dst[o + plane] = (float)p[1] * k - m1;
    dst[o + 2 * plane] = (float)p[2] * k - m2;
#endif
}
#endif

/* Stores acc[j] + the residual at pixel (x, y) for output channels co0 + j. */
inline void store_outputs(float *acc, int co0, int x, int y, int width, int height,
                          __global out_t *out, ulong out_plane, int out_pitch,
                          __global const float *res, ulong res_plane, float alpha, int has_res,
                          int relu)
{
    const size_t px = (size_t)y * (size_t)width + (size_t)x;
    for (int j = 0; j < COB; j++) {
        float v = acc[j];
        if (relu)
            v = fmax(v, 0.0f);
        if (has_res)
            v += alpha * res[(size_t)(co0 + j) * res_plane + px];
#if SHUFFLE == 1
        STORE(v, (size_t)(co0 + j) * out_plane + (size_t)y * (size_t)out_pitch + (size_t)x, out);
#else
        const int co = co0 + j, c = co / (SHUFFLE * SHUFFLE), ij = co % (SHUFFLE * SHUFFLE);
        const int oy = y * SHUFFLE + ij / SHUFFLE, ox = x * SHUFFLE + ij % SHUFFLE;
        STORE(v, (size_t)c * out_plane + (size_t)oy * (size_t)out_pitch + (size_t)ox, out);
#endif
    }
}

#if !LOCAL
__kernel void lapar_net_conv(__global const float *in, ulong in_off, ulong in_plane, int cin,
                             __global out_t *out, ulong out_off, ulong out_plane, int out_pitch,
                             __global const float *res, ulong res_off, ulong res_plane, float alpha,
                             int has_res, __global const float *w, ulong w_off, ulong b_off,
                             int width, int height, int relu)
{
    const int x = get_global_id(0), y = get_global_id(1), co0 = get_global_id(2) * COB;
    if (x >= width || y >= height)
        return;
    in += in_off;
    out += out_off;
    res += res_off;
    __global const float *bias = w + b_off;
    w += w_off;
    float acc[COB];
    for (int j = 0; j < COB; j++)
        acc[j] = bias[co0 + j];
    /* The taps inside the image: zero padding is a shorter loop. */
    const int ky0 = max(0, R - y), ky1 = min(K, height + R - y);
    const int kx0 = max(0, R - x), kx1 = min(K, width + R - x);
    const size_t wstride = (size_t)cin * KK;
    for (int ci = 0; ci < cin; ci++) {
        __global const float *p = in + (size_t)ci * in_plane;
        __global const float *wc = w + (size_t)co0 * wstride + (size_t)ci * KK;
        for (int ky = ky0; ky < ky1; ky++) {
            __global const float *row = p + (size_t)(y + ky - R) * (size_t)width + (x - R);
            for (int kx = kx0; kx < kx1; kx++) {
                const float v = row[kx];
                for (int j = 0; j < COB; j++)
                    acc[j] = fma(wc[j * wstride + ky * K + kx], v, acc[j]);
            }
        }
    }
    store_outputs(acc, co0, x, y, width, height, out, out_plane, out_pitch, res, res_plane, alpha,
                  has_res, relu);
}
#else
/* The tile of TW x TH pixels of a work-group and its apron of R pixels,
 * one input channel at a time, in local memory. */
__kernel void lapar_net_conv(__global const float *in, ulong in_off, ulong in_plane, int cin,
                             __global out_t *out, ulong out_off, ulong out_plane, int out_pitch,
                             __global const float *res, ulong res_off, ulong res_plane, float alpha,
                             int has_res, __global const float *w, ulong w_off, ulong b_off,
                             int width, int height, int relu, __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int tw = get_local_size(0), th = get_local_size(1);
    const int x0 = get_group_id(0) * tw, y0 = get_group_id(1) * th;
    const int x = x0 + lx, y = y0 + ly, co0 = get_global_id(2) * COB;
    const int pw = tw + 2 * R, ph = th + 2 * R;
    in += in_off;
    out += out_off;
    res += res_off;
    __global const float *bias = w + b_off;
    w += w_off;
    float acc[COB];
    for (int j = 0; j < COB; j++)
        acc[j] = bias[co0 + j];
    const size_t wstride = (size_t)cin * KK;
    for (int ci = 0; ci < cin; ci++) {
        __global const float *p = in + (size_t)ci * in_plane;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = ly * tw + lx; i < pw * ph; i += tw * th) {
            const int ty = i / pw, tx = i - ty * pw, gy = y0 + ty - R, gx = x0 + tx - R;
            tile[i] = gy >= 0 && gy < height && gx >= 0 && gx < width
                          ? p[(size_t)gy * (size_t)width + (size_t)gx]
                          : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        __global const float *wc = w + (size_t)co0 * wstride + (size_t)ci * KK;
        for (int ky = 0; ky < K; ky++)
            for (int kx = 0; kx < K; kx++) {
                const float v = tile[(ly + ky) * pw + lx + kx];
                for (int j = 0; j < COB; j++)
                    acc[j] = fma(wc[j * wstride + ky * K + kx], v, acc[j]);
            }
    }
    if (x >= width || y >= height)
        return;
    store_outputs(acc, co0, x, y, width, height, out, out_plane, out_pitch, res, res_plane, alpha,
                  has_res, relu);
}
#endif

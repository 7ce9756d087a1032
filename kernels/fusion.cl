/*
 * Fusion upscaler (Martinez and Toro): nearest and bicubic upscales
 * of an RGBA image by an integer scale, an artifact map from 8 x 8 tile
 * SSIM and the difference of the two luma images, a Gaussian blur of the
 * map, and a per-pixel choice between the two upscales. Four kernels:
 *   fusion_block     both colour images and both luma images (the merged
 *                    kernel of Martinez and Toro, section VI.A), one
 *                    source pixel's output block per work-item;
 *   fusion_tiles     one SSIM tile per work-item, from exact integer sums;
 *   fusion_rows      the artifact value, computed where it is read, blurred
 *                    along rows;
 *   fusion_select    the blur along columns, the threshold and the choice.
 * Build options:
 *   S        the scale (2..8);  T  the tile side (2..16);  K  blur taps;
 *   PIX4     RGBA rows start 4-byte aligned (pixels load and store as one
 *            uchar4);  MAP  an artifact map is written.
 * The plan, the last argument of the kernels that use it (a __constant
 * buffer, lib/ops/fusion.c plan_table): XW(r), XOFS(r) the bicubic weights
 * and tap offset of output phase r (S of each; the weights in steps of
 * 1/2048, those clik_resize gives u8 images), BW(k) the K blur weights.
 * Strides are in bytes, int arguments (the host checks them); images and
 * intermediates may hold more than 2^31 bytes or elements: row offsets (the
 * `row` of LOAD_PX and STORE_PX) and the rows of the tile map are size_t
 * products (CLIK_ROW, ssim_tile.h), the index within a row stays int.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"
#include "ssim_tile.h"

#define XW(r)   vload4((r), plan)
#define BW(k)   plan[4 * S + (k)]
#define XOFS(r) ((int)plan[4 * S + K + (r)])

#if PIX4
#define LOAD_PX(p, row, x)     (((__global const uchar4 *)((p) + (row)))[(x)])
#define STORE_PX(v, p, row, x) (((__global uchar4 *)((p) + (row)))[(x)] = (v))
#else
#define LOAD_PX(p, row, x)     vload4((x), (p) + (row))
#define STORE_PX(v, p, row, x) vstore4((v), (x), (p) + (row))
#endif

/* OpenCV's COLOR_RGBA2GRAY (COLOR_BGRA2GRAY when BGR) fixed point (BT.601
 * weights, 15 bits), as clik_gray. */
inline uchar luma(uchar4 p)
{
#if BGR
    return (uchar)((3735u * p.x + 19235u * p.y + 9798u * p.z + 16384u) >> 15);
#else
    return (uchar)((9798u * p.x + 19235u * p.y + 3735u * p.z + 16384u) >> 15);
#endif
}

/* reflect-101 for any offset (the blur radius may exceed the side); n >= 2.
 * The fold is only computed off the edges: a modulo per tap is costly. */
inline int reflect_any(int p, int n)
{
    if (p >= 0 && p < n)
        return p;
    const int period = 2 * (n - 1);
    p = (int)abs(p) % period;
    return p < n ? p : period - p;
}

/* One row of bicubic taps at columns x0 .. x0 + 3 (clamped), weighted. */
inline float4 cubic_row(__global const uchar *src, size_t row, int x0, int sw, float4 w)
{
    const float4 a = convert_float4(LOAD_PX(src, row, clamp(x0, 0, sw - 1)));
    const float4 b = convert_float4(LOAD_PX(src, row, clamp(x0 + 1, 0, sw - 1)));
    const float4 c = convert_float4(LOAD_PX(src, row, clamp(x0 + 2, 0, sw - 1)));
    const float4 d = convert_float4(LOAD_PX(src, row, clamp(x0 + 3, 0, sw - 1)));
    return a * w.s0 + b * w.s1 + c * w.s2 + d * w.s3;
}

/* One work-item per source pixel: its S x S output block. Every tap of the
 * block lies in the 5 x 5 source pixels around it (offsets -2..2 for any
 * S), loaded once; each row result is computed once per output column
 * phase. The arithmetic per output is that of fusion_upscale. */
__kernel void fusion_block(__global const uchar *src, int ss, int sw, int sh, __global uchar *img1,
                           __global uchar *img2, int ds, __global uchar *g1, __global uchar *g2,
                           int gs, __constant float *plan)
{
    const int qx = get_global_id(0), qy = get_global_id(1);
    if (qx >= sw || qy >= sh)
        return;
    float4 p[5][5];
    for (int j = 0; j < 5; j++) {
        const size_t row = CLIK_ROW(clamp(qy + j - 2, 0, sh - 1), ss);
        for (int i = 0; i < 5; i++)
            p[j][i] = convert_float4(LOAD_PX(src, row, clamp(qx + i - 2, 0, sw - 1)));
    }
    /* h[j][rx]: the row result of source row qy + j - 2 for column phase rx. */
    float4 h[5][S];
    for (int rx = 0; rx < S; rx++) {
        const int o = XOFS(rx) + 1;
        const float4 w = XW(rx);
        for (int j = 0; j < 5; j++)
            h[j][rx] =
                p[j][o] * w.s0 + p[j][o + 1] * w.s1 + p[j][o + 2] * w.s2 + p[j][o + 3] * w.s3;
    }
    const uchar4 near = LOAD_PX(src, CLIK_ROW(qy, ss), qx);
    const uchar gn = luma(near);
    for (int ry = 0; ry < S; ry++) {
        const int o = XOFS(ry) + 1, y = qy * S + ry;
        const float4 wy = XW(ry);
        const size_t irow = CLIK_ROW(y, ds), grow = CLIK_ROW(y, gs);
        for (int rx = 0; rx < S; rx++) {
            const int x = qx * S + rx;
            const uchar4 cubic =
                convert_uchar4_sat_rte(h[o][rx] * wy.s0 + h[o + 1][rx] * wy.s1 +
                                       h[o + 2][rx] * wy.s2 + h[o + 3][rx] * wy.s3);
            STORE_PX(near, img1, irow, x);
            STORE_PX(cubic, img2, irow, x);
            g1[grow + x] = gn;
            g2[grow + x] = luma(cubic);
        }
    }
}

/* One tile's SSIM per work-item, from exact integer sums (ssim_tile.h, the
 * code of clik_ssim_tiles). */
__kernel void fusion_tiles(__global const uchar *g1, __global const uchar *g2, int gs, int w, int h,
                           __global float *tiles, int tw, int th)
{
    const int tx = get_global_id(0), ty = get_global_id(1);
    if (tx >= tw || ty >= th)
        return;
    const int x0 = tx * T, y0 = ty * T;
    const int nx = min(T, w - x0), ny = min(T, h - y0);
    const size_t at = CLIK_ROW(y0, gs) + x0;
    tiles[CLIK_ROW(ty, tw) + tx] = clik_tile_ssim_at(g1 + at, gs, g2 + at, gs, nx, ny);
}

/* artifact(x, y) = SSIM of the tile of (x, y) * |G1 - G2| / 255, from row y
 * of g1 and g2 and the row of tiles over it. */
inline float artifact(__global const uchar *g1, __global const uchar *g2,
                      __global const float *trow, int x)
{
    const float d = (float)abs((int)g1[x] - (int)g2[x]);
    return trow[x / T] * d / 255.0f;
}

/* Four outputs per work-item: the K + 3 artifact values they need are
 * computed once. */
#define RUN 4
__kernel void fusion_rows(__global const uchar *g1, __global const uchar *g2, int gs, int w, int h,
                          __global const float *tiles, int tw, __global float *rows,
                          __constant float *plan)
{
    const int x0 = get_global_id(0) * RUN, y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    const size_t grow = CLIK_ROW(y, gs);
    __global const float *trow = tiles + CLIK_ROW(y / T, tw);
    float a[K + RUN - 1];
    for (int i = 0; i < K + RUN - 1; i++)
        a[i] = artifact(g1 + grow, g2 + grow, trow, reflect_any(x0 + i - K / 2, w));
    __global float *out = rows + CLIK_ROW(y, w);
    for (int o = 0; o < RUN && x0 + o < w; o++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += BW(k) * a[o + k];
        out[x0 + o] = acc;
    }
}

__kernel void fusion_select(__global const float *rows, int w, int h, float threshold,
                            __global const uchar *img1, __global const uchar *img2, int is,
                            __global uchar *dst, int ds, __global uchar *map, int ms,
                            __constant float *plan)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += BW(k) * rows[CLIK_ROW(reflect_any(y + k - K / 2, h), w) + x];
    const int take_nearest = acc > threshold;
    const size_t irow = CLIK_ROW(y, is);
    const uchar4 v = take_nearest ? LOAD_PX(img1, irow, x) : LOAD_PX(img2, irow, x);
    STORE_PX(v, dst, CLIK_ROW(y, ds), x);
#if MAP
    map[CLIK_ROW(y, ms) + x] = take_nearest ? 255 : 0;
#endif
}

/* ---- CPU devices: one row per work-item, separable bicubic ---------------------- */
/* The same arithmetic in the same order as the kernels above (rows of taps
 * first, then the column of four row results), arranged so that each row
 * result is computed once per source row, and the reflect-101 folds once
 * per row. */

/* hrow(j, x): the bicubic row result of source row j for output column x. */
__kernel void fusion_hpass(__global const uchar *src, int ss, int sw, int sh,
                           __global float4 *restrict hrow, int dw, __constant float *plan)
{
    const int j = get_global_id(0);
    if (j >= sh)
        return;
    __global float4 *out = hrow + CLIK_ROW(j, dw);
    const size_t row = CLIK_ROW(j, ss);
    for (int qx = 0; qx < sw; qx++)
        for (int rx = 0; rx < S; rx++)
            out[qx * S + rx] = cubic_row(src, row, qx + XOFS(rx) - 1, sw, XW(rx));
}

__kernel void fusion_vpass(__global const uchar *src, int ss, int sh,
                           __global const float4 *restrict hrow, __global uchar *img1,
                           __global uchar *img2, int ds, __global uchar *g1, __global uchar *g2,
                           int gs, int dw, int dh, __constant float *plan)
{
    const int y = get_global_id(0);
    if (y >= dh)
        return;
    const int qy = y / S, ry = y - qy * S, y0 = qy + XOFS(ry) - 1;
    const float4 wy = XW(ry);
    __global const float4 *r0 = hrow + CLIK_ROW(clamp(y0, 0, sh - 1), dw);
    __global const float4 *r1 = hrow + CLIK_ROW(clamp(y0 + 1, 0, sh - 1), dw);
    __global const float4 *r2 = hrow + CLIK_ROW(clamp(y0 + 2, 0, sh - 1), dw);
    __global const float4 *r3 = hrow + CLIK_ROW(clamp(y0 + 3, 0, sh - 1), dw);
    const size_t srow = CLIK_ROW(qy, ss), irow = CLIK_ROW(y, ds), grow = CLIK_ROW(y, gs);
    for (int qx = 0; qx < dw / S; qx++) {
        const uchar4 near = LOAD_PX(src, srow, qx);
        const uchar gn = luma(near);
        for (int rx = 0; rx < S; rx++) {
            const int x = qx * S + rx;
            const uchar4 cubic = convert_uchar4_sat_rte(r0[x] * wy.s0 + r1[x] * wy.s1 +
                                                        r2[x] * wy.s2 + r3[x] * wy.s3);
            STORE_PX(near, img1, irow, x);
            STORE_PX(cubic, img2, irow, x);
            g1[grow + x] = gn;
            g2[grow + x] = luma(cubic);
        }
    }
}

/* The artifact map of one row, then its blur along the row. */
__kernel void fusion_hblur(__global const uchar *g1, __global const uchar *g2, int gs, int w, int h,
                           __global const float *tiles, int tw, __global float *restrict art,
                           __global float *restrict rows, __constant float *plan)
{
    const int y = get_global_id(0);
    if (y >= h)
        return;
    __global float *a = art + CLIK_ROW(y, w);
    __global float *out = rows + CLIK_ROW(y, w);
    const size_t grow = CLIK_ROW(y, gs);
    __global const float *trow = tiles + CLIK_ROW(y / T, tw);
    for (int x = 0; x < w; x++)
        a[x] = artifact(g1 + grow, g2 + grow, trow, x);
    const int R = K / 2;
    for (int x = 0; x < w; x++) {
        float acc = 0.0f;
        if (x >= R && x + R < w) {
            for (int k = 0; k < K; k++)
                acc += BW(k) * a[x + k - R];
        } else {
            for (int k = 0; k < K; k++)
                acc += BW(k) * a[reflect_any(x + k - R, w)];
        }
        out[x] = acc;
    }
}

/* The blur along columns, the threshold and the choice, for one row. */
__kernel void fusion_vselect(__global const float *rows, int w, int h, float threshold,
                             __global const uchar *img1, __global const uchar *img2, int is,
                             __global uchar *dst, int ds, __global uchar *map, int ms,
                             __constant float *plan)
{
    const int y = get_global_id(0);
    if (y >= h)
        return;
    __global const float *r[K];
    for (int k = 0; k < K; k++)
        r[k] = rows + CLIK_ROW(reflect_any(y + k - K / 2, h), w);
    const size_t irow = CLIK_ROW(y, is), drow = CLIK_ROW(y, ds);
#if MAP
    __global uchar *mrow = map + CLIK_ROW(y, ms);
#endif
    for (int x = 0; x < w; x++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += BW(k) * r[k][x];
        const int take_nearest = acc > threshold;
        const uchar4 v = take_nearest ? LOAD_PX(img1, irow, x) : LOAD_PX(img2, irow, x);
        STORE_PX(v, dst, drow, x);
#if MAP
        mrow[x] = take_nearest ? 255 : 0;
#endif
    }
}

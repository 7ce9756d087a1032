/*
 * LAPAR network family: the layers of LaparNet (Li et al., "LAPAR", NeurIPS
 * 2020, section 3.3; the layers as lib/ops/lapar_net.c describes them) on
 * planar float tensors with a zero border: channel c of a W x H tensor is a
 * plane of `plane` floats, rows `pitch` floats apart, pixel (x, y) at
 * c * plane + (y + HALO) * pitch + x + HALO. The border of HALO = 2 pixels
 * is zero, so the convolutions' zero padding (K / 2 <= 2) needs no test.
 *
 *   lapar_net_zero   clears a buffer (the tensors' borders);
 *   lapar_net_input  the image (T, CH: uchar or float on 0..255, 1 or 4
 *                    channels) to 3 planes, v / 255 - mean[c], red first
 *                    (red: the pixel's element 0, or 2 in BGR(A) order);
 *                    grey feeds the same value to the three;
 *   lapar_net_conv   one fused convolution: bias, K x K cross-correlation,
 *                    ReLU when asked, plus alpha times a residual tensor
 *                    when asked, stored plain or pixel-shuffled (SHUFFLE =
 *                    s: output channel c s^2 + i s + j of pixel (y, x) goes
 *                    to channel c at (s y + i, s x + j) of the s W x s H
 *                    output).
 *
 * Build options of lapar_net_conv: K (3 or 5); COB, the output channels of
 * a work-item, and COUT, the layer's (the last group's channels past COUT
 * are computed from zero weights and not stored); VW, the pixels of a work-item
 * along a row (1, or 4, 8, 16: vectors, for CPU devices), each input
 * vector loaded once for the COB channels; RY, the rows of a work-item
 * (each input row loaded once for the RY output rows that use it, each
 * weight once for the RY rows); SHUFFLE (1 or s); ACT_HALF (the tensors,
 * input and residual, are binary16: vload_half, arithmetic in float);
 * OUT_HALF (the output stored as binary16 with vstore_half: phi as F16, or
 * a tensor under ACT_HALF); LOCAL (VW 1
 * only: the work-group's input tile and its apron staged in local memory,
 * one input channel at a time); WINO (3 x 3 layers without a shuffle, for
 * CPU devices: lapar_net_wino below). Weights are laid out per group of COB
 * output channels: [cout / WCOB][cin][K * K][WCOB] (WCOB a multiple of COB,
 * default COB), so that a work-item's weights of one tap are contiguous. Every variant adds the
 * products of an output in one order (input channel, row, column): they give the same bits.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef K
#define K 3
#endif
#ifndef COB
#define COB 8
#endif
#ifndef VW
#define VW 1
#endif
/* the layer's output channels: the last group's channels past them are not stored */
#ifndef COUT
#define COUT (1 << 30)
#endif
#ifndef WCOB
#define WCOB COB /* the channel groups of the weights' layout: a multiple of COB */
#endif
#ifndef RY
#define RY 1
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
#ifndef ACT_HALF
#define ACT_HALF 0
#endif
#ifndef CI2
#define CI2 0
#endif
#ifndef WINO
#define WINO 0
#endif
#define HALO 2
#define R    (K / 2)
#define KK   (K * K)

/* the tensors' element: act_t; LOAD1 reads one as a float */
#if ACT_HALF
typedef half act_t;
#define LOAD1(p, i) vload_half((i), (p))
#else
typedef float act_t;
#define LOAD1(p, i) ((p)[(i)])
#endif

#define VEC_(n)         float##n
#define VEC(n)          VEC_(n)
#define VLOAD_(n)       vload##n
#define VLOAD(n)        VLOAD_(n)
#define VSTORE_(n)      vstore##n
#define VSTORE(n)       VSTORE_(n)
#define VLOAD_HALF_(n)  vload_half##n
#define VLOAD_HALF(n)   VLOAD_HALF_(n)
#define VSTORE_HALF_(n) vstore_half##n
#define VSTORE_HALF(n)  VSTORE_HALF_(n)
#if VW == 1
typedef float vec_t;
#define LOADV(p) LOAD1((p), 0)
#else
typedef VEC(VW) vec_t;
#if ACT_HALF
#define LOADV(p) VLOAD_HALF(VW)(0, (p))
#else
#define LOADV(p) VLOAD(VW)(0, (p))
#endif
#endif

#if OUT_HALF
typedef half out_t;
#define STORE1(v, i, p) vstore_half((v), (i), (p))
#define STOREV(v, p)    VSTORE_HALF(VW)((v), 0, (p))
#else
typedef float out_t;
#define STORE1(v, i, p) ((p)[(i)] = (v))
#define STOREV(v, p)    VSTORE(VW)((v), 0, (p))
#endif

/* The COB weights of one tap, wt[0 .. COB - 1], into wv: in vectors of
 * four (or two) floats, which the layout aligns (each step's weights start
 * at a multiple of 16 floats, WCOB is a multiple of COB and a group's
 * first channel of COB), so that a GPU issues one wide load in place of
 * four scalar ones. */
#if COB % 4 == 0
#define WTAP(wv, wt)                                                                               \
    do {                                                                                           \
        for (int j4 = 0; j4 < COB / 4; j4++) {                                                     \
            const float4 t4 = ((__global const float4 *)(wt))[j4];                                 \
            wv[4 * j4] = t4.x;                                                                     \
            wv[4 * j4 + 1] = t4.y;                                                                 \
            wv[4 * j4 + 2] = t4.z;                                                                 \
            wv[4 * j4 + 3] = t4.w;                                                                 \
        }                                                                                          \
    } while (0)
#elif COB == 2
#define WTAP(wv, wt)                                                                               \
    do {                                                                                           \
        const float2 t2 = *(__global const float2 *)(wt);                                          \
        wv[0] = t2.x;                                                                              \
        wv[1] = t2.y;                                                                              \
    } while (0)
#else
#define WTAP(wv, wt)                                                                               \
    do {                                                                                           \
        for (int j1 = 0; j1 < COB; j1++)                                                           \
            wv[j1] = (wt)[j1];                                                                     \
    } while (0)
#endif

__kernel void lapar_net_zero(__global float4 *dst, ulong n)
{
    const size_t i = get_global_id(0);
    if (i < n)
        dst[i] = (float4)(0.0f);
}

#ifdef T
#if ACT_HALF
#define PUT(v, o) vstore_half((v), (o), dst)
#else
#define PUT(v, o) (dst[(o)] = (v))
#endif
__kernel void lapar_net_input(__global const T *src, int src_stride, int width, int height,
                              __global act_t *dst, ulong plane, int pitch, float m0, float m1,
                              float m2, int red)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    __global const T *p = src + (size_t)y * (size_t)src_stride + (size_t)x * CH;
    const size_t o = (size_t)(y + HALO) * (size_t)pitch + (size_t)(x + HALO);
    const float k = 1.0f / 255.0f;
#if CH == 1
    const float g = (float)p[0] * k;
    PUT(g - m0, o);
    PUT(g - m1, o + plane);
    PUT(g - m2, o + 2 * plane);
#else
    PUT((float)p[red] * k - m0, o);
    PUT((float)p[1] * k - m1, o + plane);
    PUT((float)p[2 - red] * k - m2, o + 2 * plane);
#endif
}
#endif

/* The arguments of every convolution kernel (lapar_net_conv, lapar_net_wino),
 * in the order lib/ops/lapar_net.c sets them. */
#define CONV_ARGS                                                                                  \
    __global const act_t *in, ulong in_off, ulong in_plane, int cin, int pitch,                    \
        __global out_t *out, ulong out_off, ulong out_plane, int out_pitch, int out_halo,          \
        __global const act_t *res, ulong res_off, ulong res_plane, float alpha, int has_res,       \
        __global const float *w, ulong w_off, ulong b_off, int width, int height, int relu

/* Stores one output value of channel co at pixel (x, y). */
inline void store_one(float v, int co, int x, int y, __global out_t *out, ulong out_plane,
                      int out_pitch, int out_halo)
{
#if SHUFFLE == 1
    STORE1(v, (size_t)co * out_plane + (size_t)(y + out_halo) * (size_t)out_pitch + x + out_halo,
           out);
#else
    const int c = co / (SHUFFLE * SHUFFLE), ij = co - c * (SHUFFLE * SHUFFLE);
    const int oy = y * SHUFFLE + ij / SHUFFLE + out_halo,
              ox = x * SHUFFLE + ij % SHUFFLE + out_halo;
    STORE1(v, (size_t)c * out_plane + (size_t)oy * (size_t)out_pitch + (size_t)ox, out);
#endif
}

/* acc[r][j] (+ ReLU, + alpha res) for channels co0 + j at pixels x0 .. x0 +
 * VW - 1 of rows y0 + r, the rows past the height and the pixels past the
 * width left alone. */
inline void store_outputs(vec_t acc[RY][COB], int co0, int x0, int y0, int width, int height,
                          __global out_t *out, ulong out_plane, int out_pitch, int out_halo,
                          __global const act_t *res, ulong res_plane, int pitch, float alpha,
                          int has_res, int relu)
{
#pragma unroll
    for (int r = 0; r < RY; r++) {
        const int y = y0 + r;
        if (y >= height)
            continue;
        const size_t px = (size_t)(y + HALO) * (size_t)pitch + (size_t)(x0 + HALO);
#pragma unroll
        for (int j = 0; j < COB; j++) {
            if (co0 + j >= COUT)
                break;
            vec_t v = acc[r][j];
            if (relu)
                v = fmax(v, (vec_t)(0.0f));
            if (has_res)
                v += alpha * LOADV(res + (size_t)(co0 + j) * res_plane + px);
#if VW == 1
            store_one(v, co0 + j, x0, y, out, out_plane, out_pitch, out_halo);
#else
#if SHUFFLE == 1
            if (x0 + VW <= width) {
                STOREV(v, out + (size_t)(co0 + j) * out_plane +
                              (size_t)(y + out_halo) * (size_t)out_pitch + x0 + out_halo);
                continue;
            }
#endif
            float lanes[VW];
            VSTORE(VW)(v, 0, lanes);
            for (int l = 0; l < VW && x0 + l < width; l++)
                store_one(lanes[l], co0 + j, x0 + l, y, out, out_plane, out_pitch, out_halo);
#endif
        }
    }
}

#if WINO
/* Winograd's minimal filtering F(2 x 2, 3 x 3) (Lavin and Gray, "Fast
 * Algorithms for Convolutional Neural Networks", CVPR 2016, section 4.1):
 * each 2 x 2 output tile from its 4 x 4 input tile d as
 * A^T [sum over ci of (G g G^T) . (B^T d B)] A, 16 multiplications per
 * input channel and output channel where the direct sum takes 36. For CPU
 * devices (VW 4, 8 or 16; a work-group of one work-item): a work-item takes
 * a strip of VW tiles (2 VW pixels of rows 2 j and 2 j + 1), lane t of a
 * vector is tile t. It transforms the strip's input tiles of every input
 * channel into local memory (vl: cin x 16 vectors), then per group of COB
 * output channels and per element k of the 4 x 4 products sums over the
 * input channels (one vector load, COB fused multiply-adds), keeping the 16
 * sums of the group in ml (COB x 16 vectors), then the output transform,
 * bias, ReLU and residual as lapar_net_conv. Weights are G g G^T,
 * [16][cin][cout rounded up to COB]. The sums differ from the direct
 * kernel's in rounding only (F32's bound; tests/test_lapar_net.c). */
#if VW == 4
#define EVENS (uint4)(0, 2, 4, 6)
#define ODDS  (uint4)(1, 3, 5, 7)
#define ILO   (uint4)(0, 4, 1, 5)
#define IHI   (uint4)(2, 6, 3, 7)
#elif VW == 8
#define EVENS (uint8)(0, 2, 4, 6, 8, 10, 12, 14)
#define ODDS  (uint8)(1, 3, 5, 7, 9, 11, 13, 15)
#define ILO   (uint8)(0, 8, 1, 9, 2, 10, 3, 11)
#define IHI   (uint8)(4, 12, 5, 13, 6, 14, 7, 15)
#elif VW == 16
#define EVENS (uint16)(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define ODDS  (uint16)(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
#define ILO   (uint16)(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)
#define IHI   (uint16)(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)
#else
#error "lapar_net_wino: VW is 4, 8 or 16"
#endif

/* The 2 VW pixels from x0 of row y of channel co (+ ReLU, + alpha res),
 * the pixels past the width left alone. */
inline void wino_store(vec_t lo, vec_t hi, int co, int x0, int y, int width, __global out_t *out,
                       ulong out_plane, int out_pitch, int out_halo, __global const act_t *res,
                       ulong res_plane, int pitch, float alpha, int has_res, int relu)
{
    if (relu) {
        lo = fmax(lo, (vec_t)(0.0f));
        hi = fmax(hi, (vec_t)(0.0f));
    }
    if (has_res) {
        __global const act_t *r =
            res + (size_t)co * res_plane + (size_t)(y + HALO) * (size_t)pitch + x0 + HALO;
        lo += alpha * LOADV(r);
        hi += alpha * LOADV(r + VW);
    }
    __global out_t *o =
        out + (size_t)co * out_plane + (size_t)(y + out_halo) * (size_t)out_pitch + x0 + out_halo;
    if (x0 + 2 * VW <= width) {
        STOREV(lo, o);
        STOREV(hi, o + VW);
        return;
    }
    float lanes[2 * VW];
    VSTORE(VW)(lo, 0, lanes);
    VSTORE(VW)(hi, 0, lanes + VW);
    for (int l = 0; l < 2 * VW && x0 + l < width; l++)
        STORE1(lanes[l], l, o);
}

/* Work-item (i, j): tiles i VW .. i VW + VW - 1 of tile row j; every
 * output channel. */
__kernel void lapar_net_wino(CONV_ARGS, __local vec_t *vl)
{
    const int x0 = get_global_id(0) * 2 * VW, y0 = get_global_id(1) * 2;
    if (x0 >= width || y0 >= height)
        return;
    __local vec_t *ml = vl + (size_t)cin * 16;
    in += in_off;
    out += out_off;
    res += res_off;
    const int cpad = (COUT + COB - 1) / COB * COB;
    /* input tiles: rows y0 - 1 .. y0 + 2, columns x0 - 1 .. x0 + 2 VW */
    __global const act_t *p0 =
        in + (size_t)(y0 + HALO - 1) * (size_t)pitch + (size_t)(x0 + HALO - 1);
    for (int ci = 0; ci < cin; ci++) {
        __global const act_t *p = p0 + (size_t)ci * in_plane;
        vec_t d[4][4];
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const vec_t a = LOADV(p + r * pitch), b = LOADV(p + r * pitch + VW);
            const vec_t c = LOADV(p + r * pitch + 2), e = LOADV(p + r * pitch + 2 + VW);
            d[r][0] = shuffle2(a, b, EVENS);
            d[r][1] = shuffle2(a, b, ODDS);
            d[r][2] = shuffle2(c, e, EVENS);
            d[r][3] = shuffle2(c, e, ODDS);
        }
        vec_t s[4][4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            s[0][c] = d[0][c] - d[2][c];
            s[1][c] = d[1][c] + d[2][c];
            s[2][c] = d[2][c] - d[1][c];
            s[3][c] = d[1][c] - d[3][c];
        }
        __local vec_t *v = vl + (size_t)ci * 16;
#pragma unroll
        for (int r = 0; r < 4; r++) {
            v[r * 4] = s[r][0] - s[r][2];
            v[r * 4 + 1] = s[r][1] + s[r][2];
            v[r * 4 + 2] = s[r][2] - s[r][1];
            v[r * 4 + 3] = s[r][1] - s[r][3];
        }
    }
    __global const float *wk = w + w_off;
    for (int co0 = 0; co0 < COUT; co0 += COB) {
        for (int k = 0; k < 16; k++) {
            vec_t acc[COB];
#pragma unroll
            for (int j = 0; j < COB; j++)
                acc[j] = (vec_t)(0.0f);
            __global const float *wc = wk + (size_t)k * (size_t)cin * (size_t)cpad + co0;
            for (int ci = 0; ci < cin; ci++) {
                const vec_t v = vl[(size_t)ci * 16 + k];
                float wv[COB];
                WTAP(wv, wc + (size_t)ci * (size_t)cpad);
#pragma unroll
                for (int j = 0; j < COB; j++)
                    acc[j] = fma((vec_t)(wv[j]), v, acc[j]);
            }
#pragma unroll
            for (int j = 0; j < COB; j++)
                ml[j * 16 + k] = acc[j];
        }
        for (int j = 0; j < COB && co0 + j < COUT; j++) {
            __local const vec_t *m = ml + j * 16;
            vec_t t[2][4];
#pragma unroll
            for (int c = 0; c < 4; c++) {
                t[0][c] = m[c] + m[4 + c] + m[8 + c];
                t[1][c] = m[4 + c] - m[8 + c] - m[12 + c];
            }
            const float b = w[b_off + co0 + j];
#pragma unroll
            for (int r = 0; r < 2; r++) {
                if (y0 + r >= height)
                    break;
                const vec_t e = t[r][0] + t[r][1] + t[r][2] + b,
                            o = t[r][1] - t[r][2] - t[r][3] + b;
                wino_store(shuffle2(e, o, ILO), shuffle2(e, o, IHI), co0 + j, x0, y0 + r, width,
                           out, out_plane, out_pitch, out_halo, res, res_plane, pitch, alpha,
                           has_res, relu);
            }
        }
    }
}
#else
/* The sums of a work-item's RY rows of output channels co0 .. co0 + COB - 1,
 * each started at its channel's bias; returns the work-item's weights (its
 * group of WCOB channels, from co0's column). */
inline __global const float *conv_start(vec_t acc[RY][COB], __global const float *w, ulong w_off,
                                        ulong b_off, int cin, int co0)
{
    __global const float *bias = w + b_off + co0;
#pragma unroll
    for (int r = 0; r < RY; r++)
#pragma unroll
        for (int j = 0; j < COB; j++)
            acc[r][j] = (vec_t)(bias[j]);
    return w + w_off + (size_t)(co0 / WCOB) * (size_t)cin * KK * WCOB + (size_t)(co0 % WCOB);
}

/* Input row q of channel ci of a work-item (v: its K taps) into the sums of
 * the output rows that use it, with tap row q - r; wg: the work-item's
 * weights (conv_start). */
inline void conv_row(vec_t acc[RY][COB], const vec_t *v, int q, __global const float *wg, int ci)
{
    __global const float *wc = wg + (size_t)ci * KK * WCOB;
#pragma unroll
    for (int r = 0; r < RY; r++) {
        const int ky = q - r;
        if (ky < 0 || ky >= K)
            continue;
#pragma unroll
        for (int kx = 0; kx < K; kx++) {
            float wv[COB];
            WTAP(wv, wc + (ky * K + kx) * WCOB);
#pragma unroll
            for (int j = 0; j < COB; j++)
                acc[r][j] = fma((vec_t)(wv[j]), v[kx], acc[r][j]);
        }
    }
}

#if !LOCAL
/* Work-item (i, r, g): pixels i VW .. i VW + VW - 1 of rows r RY .. r RY +
 * RY - 1, output channels g COB .. g COB + COB - 1. */
__kernel void lapar_net_conv(CONV_ARGS)
{
    const int x0 = get_global_id(0) * VW, y0 = get_global_id(1) * RY, g = get_global_id(2);
    if (x0 >= width || y0 >= height)
        return;
    const int co0 = g * COB;
    in += in_off;
    out += out_off;
    res += res_off;
    vec_t acc[RY][COB];
    __global const float *wg = conv_start(acc, w, w_off, b_off, cin, co0);
    /* the top left tap of pixel (x0, y0) */
    __global const act_t *p0 =
        in + (size_t)(y0 + HALO - R) * (size_t)pitch + (size_t)(x0 + HALO - R);
    /* a work-item of one row and at most two channels has few loads in
     * flight per input channel: two channels at a time (CI2) */
#if CI2
#pragma unroll 2
#endif
    for (int ci = 0; ci < cin; ci++) {
        __global const act_t *p = p0 + (size_t)ci * in_plane;
#pragma unroll
        for (int q = 0; q < K + RY - 1; q++) {
            vec_t v[K];
#pragma unroll
            for (int kx = 0; kx < K; kx++)
                v[kx] = LOADV(p + q * pitch + kx);
            conv_row(acc, v, q, wg, ci);
        }
    }
    store_outputs(acc, co0, x0, y0, width, height, out, out_plane, out_pitch, out_halo, res,
                  res_plane, pitch, alpha, has_res, relu);
}
#else
/* The tile of TW x TH RY pixels of a work-group and its apron of R pixels,
 * one input channel at a time, in local memory (VW 1: vec_t is float);
 * work-item (lx, ly) computes pixel x0 + lx of rows y0 + ly RY .. y0 + ly
 * RY + RY - 1. */
__kernel void lapar_net_conv(CONV_ARGS, __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int tw = get_local_size(0), th = get_local_size(1);
    const int x0 = get_group_id(0) * tw, y0 = get_group_id(1) * th * RY;
    const int x = x0 + lx, y = y0 + ly * RY, g = get_global_id(2), co0 = g * COB;
    const int pw = tw + 2 * R, ph = th * RY + 2 * R;
    /* rows and columns of the bordered tensor's memory */
    const int rows = (int)(in_plane / (ulong)pitch), cols = pitch;
    in += in_off;
    out += out_off;
    res += res_off;
    vec_t acc[RY][COB];
    __global const float *wg = conv_start(acc, w, w_off, b_off, cin, co0);
    for (int ci = 0; ci < cin; ci++) {
        __global const act_t *p = in + (size_t)ci * in_plane;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = ly * tw + lx; i < pw * ph; i += tw * th) {
            const int ty = i / pw, tx = i - ty * pw;
            const int gy = y0 + ty + HALO - R, gx = x0 + tx + HALO - R;
            tile[i] =
                gy < rows && gx < cols ? LOAD1(p, (size_t)gy * (size_t)pitch + (size_t)gx) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int q = 0; q < K + RY - 1; q++) {
            vec_t v[K];
#pragma unroll
            for (int kx = 0; kx < K; kx++)
                v[kx] = tile[(ly * RY + q) * pw + lx + kx];
            conv_row(acc, v, q, wg, ci);
        }
    }
    if (x >= width)
        return;
    store_outputs(acc, co0, x, y, width, height, out, out_plane, out_pitch, out_halo, res,
                  res_plane, pitch, alpha, has_res, relu);
}
#endif
#endif

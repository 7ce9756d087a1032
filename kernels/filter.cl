/*
 * Filter family: separable Gaussian blur and RGBA -> grey. Build options:
 *   T, T_IS_FLOAT   element type, uchar or float;   CH  channels (1, 2 or 4);
 *   KSIZE           blur taps, odd, 1..31 (R = KSIZE / 2 on each side);
 *   BLUR_LOCAL      blur_row / blur_col stage their tiles in local memory;
 *   TILE_W, TILE_H  the work-group, and output tile, of those passes;
 *   GRAY            builds the grey kernels instead of the blur ones;
 *   ALIGNED4        gray: every RGBA pixel starts 4-element aligned;
 *   PIXEL_UINT      gray_rows: u8 pixels may be read as little-endian uints.
 *
 * The blur is defined as the scalar oracle computes it: a row pass into f32,
 * then a column pass, each sum taken in tap order with every product rounded
 * on its own (no contraction, see common.h), so every variant here gives the
 * oracle's bits. A u8 result is floor(sum + 0.5), saturated: half up, as
 * OpenCV's fixed-point blur rounds. Borders reflect-101, folded as often as
 * needed for images narrower than the radius.
 * Images are addressed in elements (stride in elements).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef GRAY
#define GRAY 0
#endif
#ifndef PIXEL_UINT
#define PIXEL_UINT 0
#endif

/* reflect-101 of any index: the reflected sequence repeats with period
 * 2n - 2, so one remainder replaces repeated folds. n = 1 gives 0. */
inline int reflect101_any(int p, int n)
{
    const uint period = (uint)max(2 * n - 2, 1);
    /* abs() the built-in (uint): a select of -p becomes llvm.abs, which
     * Oclgrind cannot run. */
    const int q = (int)(abs(p) % period);
    return q >= n ? (int)period - q : q;
}

/* The common case, an index already inside, without the remainder. */
inline int reflect101(int p, int n)
{
    return (uint)p < (uint)n ? p : reflect101_any(p, n);
}

/* Elements from p to the next address aligned to 16 elements of type t;
 * n (all of them) when p is not even aligned to one element. The CPU
 * kernels store whole vectors from there on. */
inline int to_aligned16(size_t address, size_t size, int n)
{
    if (address % size != 0)
        return n;
    return (int)((16 * size - address % (16 * size)) % (16 * size) / size);
}
#define TO_ALIGNED16(p, t, n) to_aligned16((size_t)(p), sizeof(t), (n))

#if !GRAY

#define R (KSIZE / 2)

/* The weights arrive as two float16 arguments (taps 0..15 and 16..31). */
#define WEIGHT_ARGS float16 wa, float16 wb
#define WEIGHTS_INIT                                                                               \
    float wt[32];                                                                                  \
    vstore16(wa, 0, wt);                                                                           \
    vstore16(wb, 0, wt + 16)

typedef VEC(float) acc_t;

#if T_IS_FLOAT
#define TO_ACC(v)      (v)
#define STORE_PX(s, p) VSTORE((s), 0, (p))
#else
#define TO_ACC(v)      CONVERT(VEC(float), v)
/* Half up: the sums are never negative, and the conversion truncates. */
#define STORE_PX(s, p) VSTORE(CONVERT_SAT(VEC(uchar), (s) + 0.5f), 0, (p))
#endif

/* Pixel p of a row of n pixels, reflected, as floats. */
inline acc_t load_px(__global const T *row, int p, int n)
{
    return TO_ACC(VLOAD(0, row + reflect101(p, n) * CH));
}

/*
 * Row pass: tmp = the horizontal blur of src, as f32. With BLUR_LOCAL a
 * work-group of TILE_W x 1 stages its row segment and both halos in local
 * memory (one global read per source pixel instead of KSIZE).
 */
__kernel void blur_row(__global const T *src, int src_stride, int w, int h, __global float *tmp,
                       int tmp_stride, WEIGHT_ARGS)
{
    WEIGHTS_INIT;
    const int x = get_global_id(0), y = get_global_id(1);
#if BLUR_LOCAL
    __local acc_t tile[TILE_W + 2 * R];
    const int lx = get_local_id(0), x0 = get_group_id(0) * TILE_W;
    __global const T *row = src + min(y, h - 1) * src_stride;
    for (int i = lx; i < TILE_W + 2 * R; i += TILE_W)
        tile[i] = load_px(row, x0 - R + i, w);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= w || y >= h)
        return;
    acc_t s = wt[0] * tile[lx];
    for (int k = 1; k < KSIZE; k++)
        s += wt[k] * tile[lx + k];
#else
    if (x >= w || y >= h)
        return;
    __global const T *row = src + y * src_stride;
    acc_t s = wt[0] * load_px(row, x - R, w);
    for (int k = 1; k < KSIZE; k++)
        s += wt[k] * load_px(row, x - R + k, w);
#endif
    VSTORE(s, 0, tmp + y * tmp_stride + x * CH);
}

/*
 * Column pass: dst = the vertical blur of tmp. With BLUR_LOCAL a work-group
 * of TILE_W x TILE_H stages its columns with TILE_H + 2R rows in local
 * memory (seed 003 uses 8 x 32: rows of 8 pixels are read whole).
 */
__kernel void blur_col(__global const float *tmp, int tmp_stride, int w, int h, __global T *dst,
                       int dst_stride, WEIGHT_ARGS)
{
    WEIGHTS_INIT;
    const int x = get_global_id(0), y = get_global_id(1);
#if BLUR_LOCAL
    __local acc_t tile[TILE_H + 2 * R][TILE_W];
    const int lx = get_local_id(0), ly = get_local_id(1), y0 = get_group_id(1) * TILE_H;
    __global const float *col = tmp + min(x, w - 1) * CH;
    for (int i = ly; i < TILE_H + 2 * R; i += TILE_H)
        tile[i][lx] = VLOAD(0, col + reflect101(y0 - R + i, h) * tmp_stride);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= w || y >= h)
        return;
    acc_t s = wt[0] * tile[ly][lx];
    for (int k = 1; k < KSIZE; k++)
        s += wt[k] * tile[ly + k][lx];
#else
    if (x >= w || y >= h)
        return;
    __global const float *col = tmp + x * CH;
    acc_t s = wt[0] * VLOAD(0, col + reflect101(y - R, h) * tmp_stride);
    for (int k = 1; k < KSIZE; k++)
        s += wt[k] * VLOAD(0, col + reflect101(y - R + k, h) * tmp_stride);
#endif
    STORE_PX(s, dst + y * dst_stride + x * CH);
}

/* ---- CPU devices: both passes fused, a band of rows per work-item --------------- */

/*
 * The vector steps store 16 elements at addresses aligned to 16 of them
 * (a whole-vector store; PoCL splits unaligned vstore16 of uchar into 16
 * byte stores), see to_aligned16(). The elements before the first such
 * address and after the last step take the scalar path, which computes the
 * same sums.
 */
#if T_IS_FLOAT
#define LOAD16(p)     vload16(0, (p))
#define STORE16(s, p) (*(__global float16 *)(p) = (s))
#define STORE1(s, p)  (*(p) = (s))
#else
#define LOAD16(p)     convert_float16(vload16(0, (p)))
#define STORE16(s, p) (*(__global uchar16 *)(p) = convert_uchar16_sat((s) + 0.5f))
#define STORE1(s, p)  (*(p) = convert_uchar_sat((s) + 0.5f))
#endif

/* Element c of pixel x of the horizontal blur of a row of w pixels. */
inline float h_element(__global const T *row, int x, int c, int w, const float *wt)
{
    float s = wt[0] * (float)row[reflect101(x - R, w) * CH + c];
    for (int k = 1; k < KSIZE; k++)
        s += wt[k] * (float)row[reflect101(x - R + k, w) * CH + c];
    return s;
}

/* Element e of the horizontal blur, for an interior pixel (no reflection). */
inline float h_inner(__global const T *row, int e, const float *wt)
{
    __global const T *p = row + e - R * CH;
    float s = wt[0] * (float)p[0];
    for (int k = 1; k < KSIZE; k++)
        s += wt[k] * (float)p[k * CH];
    return s;
}

/* The horizontal blur of one row into out (w * CH floats). The R pixels at
 * each edge reflect; the interior ones, whose taps all lie inside, go 16
 * elements at a time. */
inline void h_row(__global const T *row, __global float *out, int w, const float *wt)
{
    const int xb = min(R, w), xe = max(xb, w - R);
    for (int x = 0; x < xb; x++)
        for (int c = 0; c < CH; c++)
            out[x * CH + c] = h_element(row, x, c, w, wt);
    for (int x = xe; x < w; x++)
        for (int c = 0; c < CH; c++)
            out[x * CH + c] = h_element(row, x, c, w, wt);
    const int e1 = xe * CH;
    int e = xb * CH;
    for (const int head = min(e1, e + TO_ALIGNED16(out + e, float, e1)); e < head; e++)
        out[e] = h_inner(row, e, wt);
    for (; e + 16 <= e1; e += 16) {
        __global const T *p = row + e - R * CH;
        float16 s = wt[0] * LOAD16(p);
#pragma unroll
        for (int k = 1; k < KSIZE; k++)
            s += wt[k] * LOAD16(p + k * CH);
        *(__global float16 *)(out + e) = s;
    }
    for (; e < e1; e++)
        out[e] = h_inner(row, e, wt);
}

/* Output row from the KSIZE ring rows; tap k is in slot (first + k) % KSIZE. */
inline void v_row(__global const float *ring, int n, int first, __global T *out, const float *wt)
{
    __global const float *r[KSIZE];
    for (int k = 0; k < KSIZE; k++)
        r[k] = ring + ((first + k) % KSIZE) * n;
    int e = 0;
    for (const int head = min(n, TO_ALIGNED16(out, T, n)); e < head; e++) {
        float s = wt[0] * r[0][e];
        for (int k = 1; k < KSIZE; k++)
            s += wt[k] * r[k][e];
        STORE1(s, out + e);
    }
    for (; e + 16 <= n; e += 16) {
        float16 s = wt[0] * vload16(0, r[0] + e);
#pragma unroll
        for (int k = 1; k < KSIZE; k++)
            s += wt[k] * vload16(0, r[k] + e);
        STORE16(s, out + e);
    }
    for (; e < n; e++) {
        float s = wt[0] * r[0][e];
        for (int k = 1; k < KSIZE; k++)
            s += wt[k] * r[k][e];
        STORE1(s, out + e);
    }
}

/*
 * Work-item i blurs rows [i * band_rows, (i + 1) * band_rows): each source
 * row of its window is filtered horizontally once into a ring of KSIZE rows
 * (its own part of `ring`, KSIZE * w * CH floats), and each output row is
 * the column sum of the ring. The ring stays in the cache; nothing of the
 * size of the image is written between the passes. dst must not be src.
 */
__kernel void blur_cpu(__global const T *src, int src_stride, int w, int h, __global T *dst,
                       int dst_stride, __global float *ring, int band_rows, WEIGHT_ARGS)
{
    WEIGHTS_INIT;
    const int y0 = get_global_id(0) * band_rows;
    if (y0 >= h)
        return;
    const int y1 = min(h, y0 + band_rows), n = w * CH;
    __global float *mine = ring + get_global_id(0) * ((size_t)KSIZE * (size_t)n);
    for (int v = y0 - R; v < y1 + R; v++) {
        h_row(src + reflect101(v, h) * src_stride, mine + ((v - y0 + R) % KSIZE) * n, w, wt);
        const int y = v - R;
        if (y >= y0)
            v_row(mine, n, (y - y0) % KSIZE, dst + y * dst_stride, wt);
    }
}

#else /* GRAY */

/* BT.601 luma as OpenCV's COLOR_RGBA2GRAY: u8 in its 15-bit fixed point
 * (9798, 19235, 3735 are 0.299, 0.587, 0.114 times 2^15, rounded). */
#if T_IS_FLOAT
#define LUMA(r, g, b)   luma_f(r, g, b)
inline float luma_f(float r, float g, float b)
{
    float y = 0.299f * r;
    y += 0.587f * g;
    y += 0.114f * b;
    return y;
}
#define LUMA16(r, g, b) luma_f16(r, g, b)
inline float16 luma_f16(float16 r, float16 g, float16 b)
{
    float16 y = 0.299f * r;
    y += 0.587f * g;
    y += 0.114f * b;
    return y;
}
typedef float16 vec16;
#else
#define LUMA(r, g, b)                                                                              \
    (uchar)((9798u * (uint)(r) + 19235u * (uint)(g) + 3735u * (uint)(b) + 16384u) >> 15)
#define LUMA16(r, g, b)                                                                            \
    convert_uchar16((convert_uint16(r) * 9798u + convert_uint16(g) * 19235u +                      \
                     convert_uint16(b) * 3735u + 16384u) >>                                        \
                    15u)
typedef uchar16 vec16;
#endif

#if ALIGNED4
#define LOAD_RGBA(p) (*(__global const CONCAT(T, 4) *)(p))
#else
#define LOAD_RGBA(p) vload4(0, (p))
#endif

/* One pixel per work-item: one 4-element load (one transaction for u8). */
__kernel void gray(__global const T *src, int src_stride, int w, int h, __global T *dst,
                   int dst_stride)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const CONCAT(T, 4) p = LOAD_RGBA(src + y * src_stride + x * 4);
    dst[y * dst_stride + x] = LUMA(p.x, p.y, p.z);
}

/* Pixel x of a row, for the scalar steps. */
#define LUMA_AT(in, x) LUMA((in)[4 * (x)], (in)[4 * (x) + 1], (in)[4 * (x) + 2])

/*
 * CPU devices: a band of rows per work-item, 16 pixels per step: four
 * 16-element loads deinterleaved by swizzles, and one store to an address
 * aligned to 16 elements (whole-vector; PoCL splits unaligned vstore16 of
 * uchar into 16 byte stores). The pixels before the first aligned address
 * and after the last step go one by one.
 */
__kernel void gray_rows(__global const T *src, int src_stride, int w, int h, __global T *dst,
                        int dst_stride, int band_rows)
{
    const int y0 = get_global_id(0) * band_rows, y1 = min(h, y0 + band_rows);
    for (int y = y0; y < y1; y++) {
        __global const T *in = src + y * src_stride;
        __global T *out = dst + y * dst_stride;
        int x = 0;
        for (const int head = min(w, TO_ALIGNED16(out, T, w)); x < head; x++)
            out[x] = LUMA_AT(in, x);
#if PIXEL_UINT
        /* u8 pixels as aligned little-endian uints: channels by shifts and
         * masks, one 64-byte load per step (3.8 times faster on PoCL than
         * deinterleaving by swizzles). */
        for (; x + 16 <= w; x += 16) {
            const uint16 p = vload16(0, (__global const uint *)(in + 4 * x));
            const uint16 y = ((p & 0xffu) * 9798u + ((p >> 8) & 0xffu) * 19235u +
                              ((p >> 16) & 0xffu) * 3735u + 16384u) >>
                             15;
            *(__global uchar16 *)(out + x) = convert_uchar16(y);
        }
#endif
        for (; x + 16 <= w; x += 16) {
            __global const T *p = in + 4 * x;
            const vec16 a = vload16(0, p), b = vload16(1, p), c = vload16(2, p), d = vload16(3, p);
            const vec16 r = (vec16)(a.s048c, b.s048c, c.s048c, d.s048c);
            const vec16 g = (vec16)(a.s159d, b.s159d, c.s159d, d.s159d);
            const vec16 bl = (vec16)(a.s26ae, b.s26ae, c.s26ae, d.s26ae);
            *(__global vec16 *)(out + x) = LUMA16(r, g, bl);
        }
        for (; x < w; x++)
            out[x] = LUMA_AT(in, x);
    }
}
#endif

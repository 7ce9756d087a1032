/*
 * Filter family: separable Gaussian blur and RGB(A) -> grey. Build options:
 *   T, T_IS_FLOAT   element type, uchar or float;
 *   CH              channels: blur 1, 2, 3 or 4; grey 3 or 4;
 *   GRAY            builds the grey kernels instead of the blur ones.
 * Everything else is an argument: the taps (ksize, odd: 1..31 for
 * clik_gaussian_blur, up to 16384 for the flow's smoothing; R = ksize / 2 on
 * each side; the weights in constant memory), and the tiles of the
 * local-memory passes, whose size is the work-group's and whose memory the
 * host sizes at launch. One program then serves every blur size.
 *
 * The blur is defined as the scalar oracle computes it: a row pass into f32,
 * then a column pass, each sum taken in tap order with every product rounded
 * on its own (no contraction, see common.h), so every variant here gives the
 * oracle's bits. A u8 result is floor(sum + 0.5), saturated: half up, as
 * OpenCV's fixed-point blur rounds. Borders reflect-101, folded as often as
 * needed for images narrower than the radius.
 * Images are addressed in elements (stride in elements, an int: the host
 * checks it). Buffers may hold more than 2^31 elements: row offsets are
 * size_t products (row * stride), formed once per row; indexes within a row
 * (at most 2^22 elements) stay int.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef GRAY
#define GRAY 0
#endif

#define reflect101(p, n) clik_reflect101((p), (n))

/* Elements from a buffer's start to row r of a stride of `stride` elements:
 * a size_t product (buffers may hold more than 2^31 elements). */
#define ROW(r, stride) ((size_t)(r) * (size_t)(stride))

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

/* The taps and their weights (ksize floats in constant memory). The weights
 * are not copied into a private array: llvmpipe's compiler lets such an
 * array be overwritten by the callees' locals from 25 taps on. */
#define WEIGHT_ARGS  int ksize, __constant const float *wt
#define WEIGHTS_INIT const int R = ksize / 2

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

/* The weighted sums of the taps, in tap order from wt[0] (the oracle's):
 * the row pass at pixel x of a row of w pixels; the column pass at row y of
 * a column of h f32 pixels (rows `stride` elements apart); and the pixels
 * taps[k * step] of a local tile. */
inline acc_t row_taps(__global const T *row, int x, int w, int ksize, __constant const float *wt)
{
    const int R = ksize / 2;
    acc_t s = wt[0] * load_px(row, x - R, w);
    for (int k = 1; k < ksize; k++)
        s += wt[k] * load_px(row, x - R + k, w);
    return s;
}

inline acc_t col_taps(__global const float *col, int stride, int y, int h, int ksize,
                      __constant const float *wt)
{
    const int R = ksize / 2;
    acc_t s = wt[0] * VLOAD(0, col + ROW(reflect101(y - R, h), stride));
    for (int k = 1; k < ksize; k++)
        s += wt[k] * VLOAD(0, col + ROW(reflect101(y - R + k, h), stride));
    return s;
}

inline acc_t tile_taps(__local const acc_t *taps, int step, int ksize, __constant const float *wt)
{
    acc_t s = wt[0] * taps[0];
    for (int k = 1; k < ksize; k++)
        s += wt[k] * taps[k * step];
    return s;
}

/* Row pass: tmp = the horizontal blur of src, as f32. */
__kernel void blur_row(__global const T *src, int src_stride, int w, int h, __global float *tmp,
                       int tmp_stride, WEIGHT_ARGS)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    VSTORE(row_taps(src + ROW(y, src_stride), x, w, ksize, wt), 0,
           tmp + ROW(y, tmp_stride) + x * CH);
}

/* The same with a work-group of TW x 1 that stages its row segment and both
 * halos in `tile` (TW + 2R pixels): one global read per source pixel
 * instead of ksize. */
__kernel void blur_row_local(__global const T *src, int src_stride, int w, int h,
                             __global float *tmp, int tmp_stride, WEIGHT_ARGS, __local acc_t *tile)
{
    WEIGHTS_INIT;
    const int x = get_global_id(0), y = get_global_id(1);
    const int tw = get_local_size(0), lx = get_local_id(0), x0 = get_group_id(0) * tw;
    __global const T *row = src + ROW(min(y, h - 1), src_stride);
    for (int i = lx; i < tw + 2 * R; i += tw)
        tile[i] = load_px(row, x0 - R + i, w);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= w || y >= h)
        return;
    VSTORE(tile_taps(tile + lx, 1, ksize, wt), 0, tmp + ROW(y, tmp_stride) + x * CH);
}

/* Column pass: dst = the vertical blur of tmp. */
__kernel void blur_col(__global const float *tmp, int tmp_stride, int w, int h, __global T *dst,
                       int dst_stride, WEIGHT_ARGS)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    STORE_PX(col_taps(tmp + x * CH, tmp_stride, y, h, ksize, wt),
             dst + ROW(y, dst_stride) + x * CH);
}

/* The same with a work-group of TW x TH that stages its columns with
 * TH + 2R rows in `tile` (row-major, TW wide; Martinez and Toro, section
 * VIII.B, found 8 x 32 best: rows of 8 pixels are read whole). */
__kernel void blur_col_local(__global const float *tmp, int tmp_stride, int w, int h,
                             __global T *dst, int dst_stride, WEIGHT_ARGS, __local acc_t *tile)
{
    WEIGHTS_INIT;
    const int x = get_global_id(0), y = get_global_id(1);
    const int tw = get_local_size(0), th = get_local_size(1);
    const int lx = get_local_id(0), ly = get_local_id(1), y0 = get_group_id(1) * th;
    __global const float *col = tmp + min(x, w - 1) * CH;
    for (int i = ly; i < th + 2 * R; i += th)
        tile[i * tw + lx] = VLOAD(0, col + ROW(reflect101(y0 - R + i, h), tmp_stride));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= w || y >= h)
        return;
    STORE_PX(tile_taps(tile + ly * tw + lx, tw, ksize, wt), dst + ROW(y, dst_stride) + x * CH);
}

/* ---- GPUs: both passes fused through local memory ---------------------------------- */

/*
 * A work-group of TW x TH work-items writes a tile of TW x (TH * rpi) pixels
 * (rpi output rows per work-item). It stages the tile's source rows and both
 * halos, TW + 2R pixels wide and TH * rpi + 2R rows high, in `src_tile` as T
 * (a u8 pixel costs a byte there), runs the row pass over every staged row
 * into `row_tile` (f32, TW wide), then the column pass from there: the
 * intermediate stays on chip, so global memory sees one read and one write
 * per pixel (plus the halos) instead of the two passes' four accesses, the
 * f32 ones four bytes an element. The sums are the two-pass kernels', in the
 * same order. Not in place: a tile's halo is its neighbours' output.
 */
__kernel void blur_fused(__global const T *src, int src_stride, int w, int h, __global T *dst,
                         int dst_stride, WEIGHT_ARGS, int rpi, __local T *src_tile,
                         __local acc_t *row_tile)
{
    WEIGHTS_INIT;
    const int tw = get_local_size(0), th = get_local_size(1);
    const int lx = get_local_id(0), ly = get_local_id(1), rows = th * rpi;
    const int x0 = get_group_id(0) * tw, y0 = get_group_id(1) * rows;
    const int sw = tw + 2 * R, sh = rows + 2 * R;
    /* Work-item (lx, ly) stages columns lx, lx + tw, ... of rows ly, ly + th,
     * ...: neighbours read neighbouring pixels, and a column's reflection
     * is found once for all its rows. */
    for (int c = lx; c < sw; c += tw) {
        const int gx = reflect101(x0 - R + c, w) * CH;
        for (int r = ly; r < sh; r += th)
            VSTORE(VLOAD(0, src + ROW(reflect101(y0 - R + r, h), src_stride) + gx), r * sw + c,
                   src_tile);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The row pass: column lx of every staged row ly, ly + th, ... */
    for (int r = ly; r < sh; r += th) {
        __local const T *p = src_tile + (r * sw + lx) * CH;
        acc_t s = wt[0] * TO_ACC(VLOAD(0, p));
        for (int k = 1; k < ksize; k++)
            s += wt[k] * TO_ACC(VLOAD(k, p));
        row_tile[r * tw + lx] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    if (x >= w)
        return;
    for (int j = 0; j < rpi; j++) {
        const int ty = j * th + ly, y = y0 + ty;
        if (y >= h)
            return;
        STORE_PX(tile_taps(row_tile + ty * tw + lx, tw, ksize, wt),
                 dst + ROW(y, dst_stride) + x * CH);
    }
}

/* ---- GPUs, small blurs: both passes in registers ---------------------------------- */

#ifdef KS
/*
 * KS taps (a build option, at most 9: the loops unroll and the window stays
 * in registers). A work-item writes 16 elements (of 16 / CH pixels) of two
 * output rows. It reads each of their KS + 1 source rows once: the row's
 * 16 + 2R*CH elements into registers, then their row pass (16 sums), which
 * it adds to both outputs' column sums with that row's tap; nothing goes
 * through local or global memory between the passes. The sums are the
 * oracle's, in its order. Not in place: a work-item's source rows are its
 * neighbours' output.
 */
#define KR   (KS / 2)
#define SPAN (16 + 2 * KR * CH)

__kernel void blur_block(__global const T *src, int src_stride, int w, int h, __global T *dst,
                         int dst_stride, __constant const float *wt)
{
    const int e0 = (int)get_global_id(0) * 16, y0 = (int)get_global_id(1) * 2, n = w * CH;
    if (e0 >= n || y0 >= h)
        return;
    /* Element j of the window is element e0 - R*CH + j of the row: pixel
     * (e0 + j) / CH - R, channel (e0 + j) % CH. */
    const int first = e0 - KR * CH, inner = first >= 0 && first + SPAN <= n;
    float16 o0 = 0.0f, o1 = 0.0f;
    for (int r = 0; r <= KS; r++) {
        __global const T *row = src + ROW(reflect101(y0 - KR + r, h), src_stride);
        float px[SPAN];
        if (inner) {
            for (int j = 0; j < SPAN; j++)
                px[j] = (float)row[first + j];
        } else {
            for (int j = 0; j < SPAN; j++)
                px[j] = (float)row[reflect101((e0 + j) / CH - KR, w) * CH + (e0 + j) % CH];
        }
        float16 s = wt[0] * vload16(0, px);
        for (int k = 1; k < KS; k++)
            s += wt[k] * vload16(0, px + k * CH);
        if (r < KS)
            o0 = r == 0 ? wt[0] * s : o0 + wt[r] * s;
        if (r > 0)
            o1 = r == 1 ? wt[0] * s : o1 + wt[r - 1] * s;
    }
    for (int dy = 0; dy < 2 && y0 + dy < h; dy++) {
        __global T *out = dst + ROW(y0 + dy, dst_stride) + e0;
#if T_IS_FLOAT
        const float16 v = dy ? o1 : o0;
#else
        const uchar16 v = convert_uchar16_sat((dy ? o1 : o0) + 0.5f);
#endif
        if (e0 + 16 <= n) {
            vstore16(v, 0, out);
        } else {
#if T_IS_FLOAT
            float t[16];
#else
            uchar t[16];
#endif
            vstore16(v, 0, t);
            for (int i = 0; i < n - e0; i++)
                out[i] = t[i];
        }
    }
}
#endif

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
inline float h_element(__global const T *row, int x, int c, int w, __constant const float *wt,
                       int ksize)
{
    const int R = ksize / 2;
    float s = wt[0] * (float)row[reflect101(x - R, w) * CH + c];
    for (int k = 1; k < ksize; k++)
        s += wt[k] * (float)row[reflect101(x - R + k, w) * CH + c];
    return s;
}

/* Element e of the horizontal blur, for an interior pixel (no reflection). */
inline float h_inner(__global const T *row, int e, __constant const float *wt, int ksize)
{
    __global const T *p = row + e - ksize / 2 * CH;
    float s = wt[0] * (float)p[0];
    for (int k = 1; k < ksize; k++)
        s += wt[k] * (float)p[k * CH];
    return s;
}

/* The horizontal blur of one row into out (w * CH floats). The R pixels at
 * each edge reflect; the interior ones, whose taps all lie inside, go 16
 * elements at a time. */
inline void h_row(__global const T *row, __global float *out, int w, __constant const float *wt,
                  int ksize)
{
    const int R = ksize / 2;
    const int xb = min(R, w), xe = max(xb, w - R);
    for (int x = 0; x < xb; x++)
        for (int c = 0; c < CH; c++)
            out[x * CH + c] = h_element(row, x, c, w, wt, ksize);
    for (int x = xe; x < w; x++)
        for (int c = 0; c < CH; c++)
            out[x * CH + c] = h_element(row, x, c, w, wt, ksize);
    const int e1 = xe * CH;
    int e = xb * CH;
    for (const int head = min(e1, e + TO_ALIGNED16(out + e, float, e1)); e < head; e++)
        out[e] = h_inner(row, e, wt, ksize);
    for (; e + 16 <= e1; e += 16) {
        __global const T *p = row + e - R * CH;
        float16 s = wt[0] * LOAD16(p);
        for (int k = 1; k < ksize; k++)
            s += wt[k] * LOAD16(p + k * CH);
        *(__global float16 *)(out + e) = s;
    }
    for (; e < e1; e++)
        out[e] = h_inner(row, e, wt, ksize);
}

/* Output row from the ksize ring rows; tap k is in slot (first + k) % ksize. */
/* Row k of the window: ring slot (first + k) mod ksize (first < ksize). */
#define RING_ROW(k) (ring + ROW((first + (k)) - ((first + (k)) >= ksize ? ksize : 0), n))

/* v_row's steps of 16 from element e for ksize = 3, 5 or 7 taps (a
 * constant where called): the window's rows and weights found once per
 * row, not per step, in scalars (PoCL keeps them in registers; arrays of
 * them it does not), taps past ksize - 1 standing for the last (never
 * used). Returns where it stopped. */
inline int v_steps_fixed(__global const float *ring, int n, int first, __global T *out,
                         __constant const float *wt, const int ksize, int e)
{
    __global const float *r0 = RING_ROW(0), *r1 = RING_ROW(1), *r2 = RING_ROW(2),
                         *r3 = RING_ROW(min(3, ksize - 1)), *r4 = RING_ROW(min(4, ksize - 1)),
                         *r5 = RING_ROW(min(5, ksize - 1)), *r6 = RING_ROW(min(6, ksize - 1));
    const float w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[min(3, ksize - 1)],
                w4 = wt[min(4, ksize - 1)], w5 = wt[min(5, ksize - 1)], w6 = wt[min(6, ksize - 1)];
    for (; e + 16 <= n; e += 16) {
        float16 s = w0 * vload16(0, r0 + e);
        s += w1 * vload16(0, r1 + e);
        s += w2 * vload16(0, r2 + e);
        if (ksize > 3) {
            s += w3 * vload16(0, r3 + e);
            s += w4 * vload16(0, r4 + e);
        }
        if (ksize > 5) {
            s += w5 * vload16(0, r5 + e);
            s += w6 * vload16(0, r6 + e);
        }
        STORE16(s, out + e);
    }
    return e;
}

inline void v_row(__global const float *ring, int n, int first, __global T *out,
                  __constant const float *wt, int ksize)
{
    int e = 0;
    for (const int head = min(n, TO_ALIGNED16(out, T, n)); e < head; e++) {
        float s = wt[0] * RING_ROW(0)[e];
        for (int k = 1; k < ksize; k++)
            s += wt[k] * RING_ROW(k)[e];
        STORE1(s, out + e);
    }
    if (ksize == 7)
        e = v_steps_fixed(ring, n, first, out, wt, 7, e);
    else if (ksize == 5)
        e = v_steps_fixed(ring, n, first, out, wt, 5, e);
    else if (ksize == 3)
        e = v_steps_fixed(ring, n, first, out, wt, 3, e);
    for (; e + 16 <= n; e += 16) {
        float16 s = wt[0] * vload16(0, RING_ROW(0) + e);
        for (int k = 1; k < ksize; k++)
            s += wt[k] * vload16(0, RING_ROW(k) + e);
        STORE16(s, out + e);
    }
    for (; e < n; e++) {
        float s = wt[0] * RING_ROW(0)[e];
        for (int k = 1; k < ksize; k++)
            s += wt[k] * RING_ROW(k)[e];
        STORE1(s, out + e);
    }
}

/*
 * Work-item i blurs rows [i * band_rows, (i + 1) * band_rows): each source
 * row of its window is filtered horizontally once into a ring of ksize rows
 * (its own part of `ring`, ksize * w * CH floats), and each output row is
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
    __global float *mine = ring + get_global_id(0) * ((size_t)ksize * (size_t)n);
    for (int v = y0 - R; v < y1 + R; v++) {
        h_row(src + ROW(reflect101(v, h), src_stride), mine + ROW((v - y0 + R) % ksize, n), w, wt,
              ksize);
        const int y = v - R;
        if (y >= y0)
            v_row(mine, n, (y - y0) % ksize, dst + ROW(y, dst_stride), wt, ksize);
    }
}

#else /* GRAY */

/* BT.601 luma as OpenCV's COLOR_RGBA2GRAY (COLOR_BGRA2GRAY with bgr set): u8 in its 15-bit fixed
 * point, f32 with each product rounded (common.h). */
#if T_IS_FLOAT
#define LUMA(r, g, b)   clik_luma_f32(r, g, b)
inline float16 luma_f16(float16 r, float16 g, float16 b)
{
    float16 y = 0.299f * r;
    y += 0.587f * g;
    y += 0.114f * b;
    return y;
}
#define LUMA16(r, g, b) luma_f16(r, g, b)
typedef float16 vec16;
#else
#define LUMA(r, g, b) (uchar) CLIK_LUMA_U8((uint)(r), (uint)(g), (uint)(b))
#define LUMA16(r, g, b)                                                                            \
    convert_uchar16(CLIK_LUMA_U8(convert_uint16(r), convert_uint16(g), convert_uint16(b)))
typedef uchar16 vec16;
#endif

/* Luma of a pixel p (a 3- or 4-vector) whose first channel is red, or
 * blue when bgr is set: the weights of red and blue trade places. */
#define LUMA_PX(p, bgr) (bgr ? LUMA((p).z, (p).y, (p).x) : LUMA((p).x, (p).y, (p).z))

/* One pixel per work-item: one CH-element load (one transaction for RGBA
 * u8). */
__kernel void gray(__global const T *src, int src_stride, int w, int h, __global T *dst,
                   int dst_stride, int bgr)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const VEC(T) p = VLOAD(x, src + ROW(y, src_stride));
    dst[ROW(y, dst_stride) + x] = LUMA_PX(p, bgr);
}

#if CH == 4
/* The same where every pixel starts 4-element aligned: the load is one
 * whole-vector access. */
__kernel void gray_aligned(__global const T *src, int src_stride, int w, int h, __global T *dst,
                           int dst_stride, int bgr)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const CONCAT(T, 4) p = *(__global const CONCAT(T, 4) *)(src + ROW(y, src_stride) + x * 4);
    dst[ROW(y, dst_stride) + x] = LUMA_PX(p, bgr);
}
#endif

/* Pixel x of a row, for the scalar steps. */
#define LUMA_AT(in, x, bgr)                                                                        \
    (bgr ? LUMA((in)[CH * (x) + 2], (in)[CH * (x) + 1], (in)[CH * (x)])                            \
         : LUMA((in)[CH * (x)], (in)[CH * (x) + 1], (in)[CH * (x) + 2]))

/*
 * CPU devices: a band of rows per work-item, 16 pixels per step: CH
 * 16-element loads deinterleaved by swizzles, and one store to an address
 * aligned to 16 elements (whole-vector; PoCL splits unaligned vstore16 of
 * uchar into 16 byte stores). The pixels before the first aligned address
 * and after the last step go one by one. pixel_uint (u8 with every pixel
 * 4-byte aligned, little-endian device): pixels read as uints instead.
 */
__kernel void gray_rows(__global const T *src, int src_stride, int w, int h, __global T *dst,
                        int dst_stride, int bgr, int band_rows, int pixel_uint)
{
    const int y0 = get_global_id(0) * band_rows, y1 = min(h, y0 + band_rows);
    for (int y = y0; y < y1; y++) {
        __global const T *in = src + ROW(y, src_stride);
        __global T *out = dst + ROW(y, dst_stride);
        int x = 0;
        for (const int head = min(w, TO_ALIGNED16(out, T, w)); x < head; x++)
            out[x] = LUMA_AT(in, x, bgr);
#if !T_IS_FLOAT && CH == 4
        /* u8 pixels as aligned little-endian uints: channels by shifts and
         * masks, one 64-byte load per step (3.8 times faster on PoCL than
         * deinterleaving by swizzles). */
        if (pixel_uint)
            for (; x + 16 <= w; x += 16) {
                const uint16 p = vload16(0, (__global const uint *)(in + 4 * x));
                const uint16 c0 = p & 0xffu, c2 = (p >> 16) & 0xffu;
                const uint16 y = CLIK_LUMA_U8(bgr ? c2 : c0, (p >> 8) & 0xffu, bgr ? c0 : c2);
                *(__global uchar16 *)(out + x) = convert_uchar16(y);
            }
#endif
        for (; x + 16 <= w; x += 16) {
            __global const T *p = in + CH * x;
#if CH == 4
            const vec16 a = vload16(0, p), b = vload16(1, p), c = vload16(2, p), d = vload16(3, p);
            const vec16 c0 = (vec16)(a.s048c, b.s048c, c.s048c, d.s048c);
            const vec16 g = (vec16)(a.s159d, b.s159d, c.s159d, d.s159d);
            const vec16 c2 = (vec16)(a.s26ae, b.s26ae, c.s26ae, d.s26ae);
#else
            /* 48 elements: element 3i + c is channel c of pixel i. */
            const vec16 a = vload16(0, p), b = vload16(1, p), c = vload16(2, p);
            const vec16 c0 = (vec16)(a.s0369, a.scf, b.s258b, b.se, c.s147, c.sad);
            const vec16 g = (vec16)(a.s147a, a.sd, b.s0369, b.scf, c.s258b, c.se);
            const vec16 c2 = (vec16)(a.s258b, a.se, b.s147a, b.sd, c.s0369, c.scf);
#endif
            *(__global vec16 *)(out + x) = bgr ? LUMA16(c2, g, c0) : LUMA16(c0, g, c2);
        }
        for (; x < w; x++)
            out[x] = LUMA_AT(in, x, bgr);
    }
}
#endif

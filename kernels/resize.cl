/*
 * Resize family: nearest, bilinear and bicubic resampling (clik_resize).
 *
 * The host computes the geometry once per call, in double
 * (fallback_cpu/resize_geometry.c): for each output column and row the
 * first source tap (before border clamping) and, for the interpolating
 * methods, TAPS float weights. They reach the kernels as one int buffer
 * `geo`:
 *     geo[0 .. dw)             xofs, first source column of output column x
 *     geo[dw .. dw + dh)       yofs, first source row of output row y
 *     from W = dw + dh rounded up to a multiple of 4, as floats:
 *                              xw[dw * TAPS], yw[dh * TAPS]
 *     (16-byte aligned: a column's weights are one vector load)
 * so every kernel and every device uses the same coefficients.
 *
 * (bicubic-aa: AA_TX weights per output column and AA_TY per output row,
 * and xofs, yofs the first taps, inside the image; see
 * fallback_cpu/resize_geometry.h).
 *
 * Build options, one program per pixel format:
 *   BPP          nearest kernels: bytes per pixel, 1, 4 or 16 (a pixel is
 *                moved as a uchar, uint or uint4 whatever its type);
 *   T, T_IS_FLOAT, CH   interpolating kernels: uchar or float, 1 or 4 channels;
 *   TAPS         2 (bilinear) or 4 (bicubic); with TAPS 2 and uchar,
 *                resize_bilinear_x2_rows for exact factors of 2;
 *   AA_TX, AA_TY bicubic-aa (instead of TAPS): the taps of each axis, a
 *                multiple of 4.
 * Everything else is an argument: sizes, factors, bands, spans and the
 * tiles of resize_interp_local (the work-group's shape, its local memory
 * sized by the host). Each kernel comes in versions for what the host found
 * aligned, NAME_any, NAME_pix and (where it matters) NAME_a16:
 *   _any   nothing: pixels go through vloadn / vstoren;
 *   _pix   the images and their rows start at multiples of the pixel size:
 *          a pixel is one typed access (one transaction for an RGBA uchar4);
 *   _a16   also every 16-byte chunk the kernel writes (and, for
 *          resize_nearest_int_rows, reads) is 16-byte aligned.
 * The versions share one body, inlined with its alignment constant.
 * Strides are in bytes for the nearest kernels, in elements for the others.
 * Row starts are 64-bit products, (size_t)y * stride, once per row or
 * stepped as pointers (images may hold 2^31 elements or more); offsets
 * within a row are int.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

/* The alignments, a body's argument a: 0 (_any), ALIGN_PIX, ALIGN_16. */
#define ALIGN_PIX 1
#define ALIGN_16  2

/* ==== nearest ============================================================== */
#ifdef BPP

/* Pixel i of a row, and pixel stores. */
#if BPP == 1
typedef uchar pix_t;
inline pix_t pload(__global const uchar *p, int i, const int a)
{
    return p[i];
}
inline void pstore(pix_t v, __global uchar *p, int i, const int a)
{
    p[i] = v;
}
#elif BPP == 4
typedef uint pix_t;
inline pix_t pload(__global const uchar *p, int i, const int a)
{
    return a ? ((__global const uint *)p)[i] : as_uint(vload4(i, p));
}
inline void pstore(pix_t v, __global uchar *p, int i, const int a)
{
    if (a)
        ((__global uint *)p)[i] = v;
    else
        vstore4(as_uchar4(v), i, p);
}
#else
typedef uint4 pix_t;
inline pix_t pload(__global const uchar *p, int i, const int a)
{
    return a ? ((__global const uint4 *)p)[i] : as_uint4(vload16(i, p));
}
inline void pstore(pix_t v, __global uchar *p, int i, const int a)
{
    if (a)
        ((__global uint4 *)p)[i] = v;
    else
        vstore16(as_uchar16(v), i, p);
}
#endif

/*
 * Chunks: 16 bytes of a row, NPIX pixels, moved as a uint4. With ALIGN_16
 * one access; else, where pixels are aligned, pixel accesses (on GPUs each
 * coalesced); else vload16 / vstore16.
 */
#define NPIX (16 / BPP)
inline uint4 chunk_get(__global const uchar *p, const int a)
{
    if (a == ALIGN_16)
        return *(__global const uint4 *)p;
#if BPP == 4
    if (a)
        return (uint4)(pload(p, 0, a), pload(p, 1, a), pload(p, 2, a), pload(p, 3, a));
#elif BPP == 16
    return pload(p, 0, a);
#endif
    return as_uint4(vload16(0, p));
}

inline void chunk_put(uint4 v, __global uchar *q, const int a)
{
    if (a == ALIGN_16) {
        *(__global uint4 *)q = v;
        return;
    }
#if BPP == 4
    if (a) {
        pstore(v.s0, q, 0, a);
        pstore(v.s1, q, 1, a);
        pstore(v.s2, q, 2, a);
        pstore(v.s3, q, 3, a);
        return;
    }
#elif BPP == 16
    pstore(v, q, 0, a);
    return;
#endif
    vstore16(as_uchar16(v), 0, q);
}

/*
 * GPU kernels: work-item (i, y) makes output chunk i of a row. Consecutive
 * work-items store consecutive whole chunks (coalesced); the source pixels
 * come from pixel loads that the cache serves; a row's last chunk may be
 * partial and goes pixel by pixel.
 */
#if BPP == 1
typedef uchar16 chunk_t;
#define EACH_LANE(M)                                                                               \
    M(s0) M(s1) M(s2) M(s3) M(s4) M(s5) M(s6) M(s7) M(s8) M(s9) M(sa) M(sb) M(sc) M(sd) M(se) M(sf)
#else
typedef uint4 chunk_t;
#define EACH_LANE(M) M(s0) M(s1) M(s2) M(s3)
#endif

/* Generic: output (x, y) = source (xofs[x], yofs[y]). */
inline void nearest_at(__global const uchar *src, int src_stride, __global uchar *dst,
                       int dst_stride, int dw, __global const int *geo, int x0, int y, const int a)
{
    __global const uchar *in = src + (size_t)geo[dw + y] * src_stride;
    __global uchar *out = dst + (size_t)y * dst_stride;
    if (x0 + NPIX > dw) {
        for (int x = x0; x < dw; x++)
            pstore(pload(in, geo[x], a), out, x, a);
        return;
    }
    chunk_t v;
#if BPP == 16
    v = pload(in, geo[x0], a);
#else
    int x = x0;
#define NN_GATHER(lane)                                                                            \
    v.lane = pload(in, geo[x], a);                                                                 \
    x++;
    EACH_LANE(NN_GATHER)
#undef NN_GATHER
#endif
    chunk_put(as_uint4(v), out + x0 * BPP, a);
}

#define NEAREST_KERNEL(NAME, A)                                                                    \
    __kernel void NAME(__global const uchar *src, int src_stride, __global uchar *dst,             \
                       int dst_stride, int dw, int dh, __global const int *geo)                    \
    {                                                                                              \
        const int x0 = get_global_id(0) * NPIX, y = get_global_id(1);                              \
        if (x0 < dw && y < dh)                                                                     \
            nearest_at(src, src_stride, dst, dst_stride, dw, geo, x0, y, A);                       \
    }
NEAREST_KERNEL(resize_nearest_any, 0)
NEAREST_KERNEL(resize_nearest_pix, ALIGN_PIX)
NEAREST_KERNEL(resize_nearest_a16, ALIGN_16)

/* Integer scales (output x from source x / sx, which the host checked
 * against the generic tables): output chunk i of the sy rows that source
 * row y becomes, its pixels repeated from the source row. */
inline void nearest_int_at(__global const uchar *src, int src_stride, __global uchar *dst,
                           int dst_stride, int sx, int sy, int dw, int x0, int y, const int a)
{
    __global const uchar *in = src + (size_t)y * src_stride;
    __global uchar *out = dst + (size_t)(y * sy) * dst_stride;
    if (x0 + NPIX > dw) {
        for (int x = x0; x < dw; x++) {
            const pix_t p = pload(in, x / sx, a);
            __global uchar *o = out;
            for (int r = 0; r < sy; r++, o += dst_stride)
                pstore(p, o, x, a);
        }
        return;
    }
    chunk_t v;
    int i = x0 / sx;
#if BPP == 16
    v = pload(in, i, a);
#else
    /* Source pixel i serves sx outputs: count them off, no division. */
    int used = x0 - i * sx;
#define NN_REPEAT(lane)                                                                            \
    v.lane = pload(in, i, a);                                                                      \
    used++;                                                                                        \
    i += used == sx;                                                                               \
    used = used == sx ? 0 : used;
    EACH_LANE(NN_REPEAT)
#undef NN_REPEAT
#endif
    __global uchar *o = out + x0 * BPP;
    for (int r = 0; r < sy; r++, o += dst_stride)
        chunk_put(as_uint4(v), o, a);
}

#define NEAREST_INT_KERNEL(NAME, A)                                                                \
    __kernel void NAME(__global const uchar *src, int src_stride, int sw, int sh,                  \
                       __global uchar *dst, int dst_stride, int sx, int sy, int dw)                \
    {                                                                                              \
        const int x0 = get_global_id(0) * NPIX, y = get_global_id(1);                              \
        if (x0 < dw && y < sh)                                                                     \
            nearest_int_at(src, src_stride, dst, dst_stride, sx, sy, dw, x0, y, A);                \
    }
NEAREST_INT_KERNEL(resize_nearest_int_any, 0)
NEAREST_INT_KERNEL(resize_nearest_int_pix, ALIGN_PIX)
NEAREST_INT_KERNEL(resize_nearest_int_a16, ALIGN_16)

/*
 * CPU devices, integer scales: a 16-byte chunk of source pixels read once
 * becomes sx chunks, written to sy rows. Byte b of output chunk k is byte
 * NN_LANE(s, k, b) of the source chunk: a constant shuffle per (s, k).
 */
#define NN_LANE(s, k, b) (((((k)*16 + (b)) / BPP / (s)) * BPP) + ((k)*16 + (b)) % BPP)
#define NN_MASK(s, k)                                                                              \
    (uchar16)(NN_LANE(s, k, 0), NN_LANE(s, k, 1), NN_LANE(s, k, 2), NN_LANE(s, k, 3),              \
              NN_LANE(s, k, 4), NN_LANE(s, k, 5), NN_LANE(s, k, 6), NN_LANE(s, k, 7),              \
              NN_LANE(s, k, 8), NN_LANE(s, k, 9), NN_LANE(s, k, 10), NN_LANE(s, k, 11),            \
              NN_LANE(s, k, 12), NN_LANE(s, k, 13), NN_LANE(s, k, 14), NN_LANE(s, k, 15))

/* Source pixels 0 .. n - 1 of row `in` magnified sx times into row `out`:
 * whole chunks up to the last multiple of NPIX, then pixel by pixel. */
inline void nn_row(__global const uchar *in, __global uchar *out, int sw, int sx, const int a)
{
    const int n = sw / NPIX * NPIX;
#define NN_EACH_CHUNK(body)                                                                        \
    for (int x0 = 0; x0 < n; x0 += NPIX) {                                                         \
        const uchar16 v = as_uchar16(chunk_get(in + x0 * BPP, a));                                 \
        __global uchar *o = out + x0 * sx * BPP;                                                   \
        body                                                                                       \
    }
#define NN_PUT(s, k) chunk_put(as_uint4(shuffle(v, NN_MASK(s, k))), o + 16 * (k), a);
    int x = n;
    switch (sx) {
    case 1: NN_EACH_CHUNK(chunk_put(as_uint4(v), o, a);) break;
    case 2: NN_EACH_CHUNK(NN_PUT(2, 0) NN_PUT(2, 1)) break;
    case 3: NN_EACH_CHUNK(NN_PUT(3, 0) NN_PUT(3, 1) NN_PUT(3, 2)) break;
    case 4: NN_EACH_CHUNK(NN_PUT(4, 0) NN_PUT(4, 1) NN_PUT(4, 2) NN_PUT(4, 3)) break;
    default: x = 0; break; /* larger factors: pixel-sized stores */
    }
#undef NN_PUT
#undef NN_EACH_CHUNK
    for (; x < sw; x++) {
        const pix_t p = pload(in, x, a);
        for (int k = 0; k < sx; k++)
            pstore(p, out, x * sx + k, a);
    }
}

/* Copies `bytes` bytes of the row above `out` (16-byte chunks, then bytes). */
inline void copy_row_above(__global uchar *out, int dst_stride, int bytes, const int a)
{
    __global const uchar *above = out - dst_stride;
    const int whole = bytes / 16 * 16;
    for (int i = 0; i < whole; i += 16)
        chunk_put(chunk_get(above + i, a), out + i, a);
    for (int i = whole; i < bytes; i++)
        out[i] = above[i];
}

/*
 * The CPU-device kernels below: work-item (i, j) makes span i of band
 * band0 + j, `span` pixels of `rows` rows. The host bounds the work of a
 * work-item (llvmpipe ends every loop of a work-item after 65535 iterations
 * in all, see lib/ops/resize.c) and keeps spans multiples of 16 pixels, so
 * that 16-byte alignment holds at every span.
 */

/* Integer scales: source pixels [x0, x1) of `rows` source rows magnified:
 * the first of each sy output rows chunk by chunk, the others copies of it
 * (rows written one after the other, from the cache). */
inline void nearest_int_rows(__global const uchar *src, int src_stride, int x0, int x1, int y0,
                             int y1, __global uchar *dst, int dst_stride, int sx, int sy,
                             const int a)
{
    const int bytes = (x1 - x0) * sx * BPP;
    for (int y = y0; y < y1; y++) {
        __global uchar *out = dst + (size_t)(y * sy) * dst_stride + x0 * sx * BPP;
        nn_row(src + (size_t)y * src_stride + x0 * BPP, out, x1 - x0, sx, a);
        __global uchar *o = out;
        for (int r = 1; r < sy; r++) {
            o += dst_stride;
            copy_row_above(o, dst_stride, bytes, a);
        }
    }
}

#define NEAREST_INT_ROWS_KERNEL(NAME, A)                                                           \
    __kernel void NAME(__global const uchar *src, int src_stride, int sw, int sh,                  \
                       __global uchar *dst, int dst_stride, int sx, int sy, int rows, int span,    \
                       int band0)                                                                  \
    {                                                                                              \
        const int x0 = get_global_id(0) * span, x1 = min(sw, x0 + span);                           \
        const int y0 = (band0 + (int)get_global_id(1)) * rows, y1 = min(sh, y0 + rows);            \
        nearest_int_rows(src, src_stride, x0, x1, y0, y1, dst, dst_stride, sx, sy, A);             \
    }
NEAREST_INT_ROWS_KERNEL(resize_nearest_int_rows_any, 0)
NEAREST_INT_ROWS_KERNEL(resize_nearest_int_rows_pix, ALIGN_PIX)
NEAREST_INT_ROWS_KERNEL(resize_nearest_int_rows_a16, ALIGN_16)

/* Any scale: output columns [x0, x1) of `rows` output rows; a row that
 * samples the same source row as the one above is a copy of it. */
inline void nearest_rows(__global const uchar *src, int src_stride, __global uchar *dst,
                         int dst_stride, int dw, __global const int *geo, int x0, int x1, int y0,
                         int y1, const int a)
{
    for (int y = y0; y < y1; y++) {
        __global uchar *out = dst + (size_t)y * dst_stride;
        if (y > y0 && geo[dw + y] == geo[dw + y - 1]) {
            copy_row_above(out + x0 * BPP, dst_stride, (x1 - x0) * BPP, a);
            continue;
        }
        __global const uchar *in = src + (size_t)geo[dw + y] * src_stride;
        for (int x = x0; x < x1; x++)
            pstore(pload(in, geo[x], a), out, x, a);
    }
}

#define NEAREST_ROWS_KERNEL(NAME, A)                                                               \
    __kernel void NAME(__global const uchar *src, int src_stride, __global uchar *dst,             \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows,          \
                       int span, int band0)                                                        \
    {                                                                                              \
        const int x0 = get_global_id(0) * span, x1 = min(dw, x0 + span);                           \
        const int y0 = (band0 + (int)get_global_id(1)) * rows, y1 = min(dh, y0 + rows);            \
        nearest_rows(src, src_stride, dst, dst_stride, dw, geo, x0, x1, y0, y1, A);                \
    }
NEAREST_ROWS_KERNEL(resize_nearest_rows_any, 0)
NEAREST_ROWS_KERNEL(resize_nearest_rows_pix, ALIGN_PIX)
NEAREST_ROWS_KERNEL(resize_nearest_rows_a16, ALIGN_16)

#endif /* BPP */

/* ==== interpolating methods =============================================== */
#ifdef T

typedef VEC(float) acc_t;
typedef VEC(T) px_t;
#if T_IS_FLOAT
#define TO_ACC(v)   (v)
#define FROM_ACC(v) (v)
#else
#define TO_ACC(v)   CONVERT(VEC(float), v)
/* Round to nearest, halves to even (as the oracle), and saturate. */
#define FROM_ACC(v) CONVERT_SAT(VEC(uchar), rint(v))
#endif

inline px_t px(__global const T *row, int i, const int a)
{
    return a ? ((__global const px_t *)row)[i] : VLOAD(i, row);
}

inline void px_store(px_t v, __global T *row, int i, const int a)
{
    if (a)
        ((__global px_t *)row)[i] = v;
    else
        VSTORE(v, i, row);
}

/* ---- bilinear and bicubic ---- */
#ifdef TAPS

/*
 * WEIGH(w, F): w.s0 * F(0) + w.s1 * F(1) + ..., left to right, every
 * product rounded on its own (common.h turns contraction off). Every kernel
 * below combines taps through it, as the oracle does, so they agree bit for
 * bit. The taps are written out (no private arrays): PoCL keeps them in
 * registers then.
 */
#if TAPS == 2
typedef float2 wvec_t;
typedef int2 ivec_t;
#define WLOAD(i, p) (((__global const float2 *)(p))[(i)])
#define IOTA        ((int2)(0, 1))
#define WEIGH(w, F) ((w).s0 * F(0) + (w).s1 * F(1))
#elif TAPS == 4
typedef float4 wvec_t;
typedef int4 ivec_t;
#define WLOAD(i, p) (((__global const float4 *)(p))[(i)])
#define IOTA        ((int4)(0, 1, 2, 3))
#define WEIGH(w, F) ((w).s0 * F(0) + (w).s1 * F(1) + (w).s2 * F(2) + (w).s3 * F(3))
#endif

/* Source columns first + IOTA clamped into the row. (Vector bounds:
 * Oclgrind 21.10 computes clamp() of an int vector with scalar bounds
 * wrongly.) */
#define CLAMPED_COLS(first, sw) clamp((first) + IOTA, (ivec_t)0, (ivec_t)((sw)-1))

/* The horizontal sum of one source row at source columns c (clamped). */
inline acc_t row_sum(__global const T *row, ivec_t c, wvec_t w, const int a)
{
#define ROW_TAP(k) TO_ACC(px(row, c.s##k, a))
    return WEIGH(w, ROW_TAP);
#undef ROW_TAP
}

/* The tables of geo (see the top of the file). */
#define GEO_TABLES                                                                                 \
    __global const int *xofs = geo, *yofs = geo + dw;                                              \
    __global const float *xw = (__global const float *)(geo + ((dw + dh + 3) & ~3));               \
    __global const float *yw = xw + dw * TAPS

/* Generic: one work-item per output pixel, separable: TAPS horizontal sums
 * (one per source row), then the vertical one. */
inline void interp_at(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                      int dst_stride, int dw, int dh, __global const int *geo, int x, int y,
                      const int a)
{
    GEO_TABLES;
    const wvec_t wx = WLOAD(x, xw), wy = WLOAD(y, yw);
    const ivec_t cols = CLAMPED_COLS(xofs[x], sw);
    const int r = yofs[y];
#define SRC_ROW(j) row_sum(src + (size_t)clamp(r + (j), 0, sh - 1) * src_stride, cols, wx, a)
    px_store(FROM_ACC(WEIGH(wy, SRC_ROW)), dst + (size_t)y * dst_stride, x, a);
#undef SRC_ROW
}

#define INTERP_KERNEL(NAME, A)                                                                     \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo)                    \
    {                                                                                              \
        const int x = get_global_id(0), y = get_global_id(1);                                      \
        if (x < dw && y < dh)                                                                      \
            interp_at(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x, y, A);             \
    }
INTERP_KERNEL(resize_interp_any, 0)
INTERP_KERNEL(resize_interp_pix, ALIGN_PIX)

/* Stages the source pixels [r0, r0 + nrows) x [c0, c0 + ncols) (clamped
 * into the image) into pix, rows reach_w apart; work-item (lx, ly) of a
 * tw x th work-group takes rows ly, ly + th, ... and columns lx, lx + tw,
 * ... of them (no division by the runtime shape). */
inline void stage_tile(__global const T *src, int src_stride, int sw, int sh, int r0, int c0,
                       int nrows, int ncols, __local acc_t *pix, int reach_w, int lx, int ly,
                       int tw, int th, const int a)
{
    for (int r = ly; r < nrows; r += th) {
        __global const T *row = src + (size_t)clamp(r0 + r, 0, sh - 1) * src_stride;
        for (int c = lx; c < ncols; c += tw)
            pix[r * reach_w + c] = TO_ACC(px(row, clamp(c0 + c, 0, sw - 1), a));
    }
}

/*
 * Local-memory tiles (Martinez and Toro, section VI): a work-group of tw x th
 * work-items stages the source region its tw x th outputs reach, makes the
 * horizontal sums of each staged row for its columns, then each work-item
 * combines TAPS of them vertically. Upscaling by s shares each source pixel
 * among about s^2 outputs and each horizontal sum among about TAPS * s of
 * them. The host uses this kernel only where every tile reaches at most
 * (tw + TAPS) x (th + TAPS) source pixels (upscaling), and sizes `pix` for
 * that many and `hsum` for (th + TAPS) x tw.
 */
inline void interp_local(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                         int dst_stride, int dw, int dh, __global const int *geo,
                         __local acc_t *pix, __local acc_t *hsum, const int a)
{
    GEO_TABLES;
    const int tw = get_local_size(0), th = get_local_size(1), reach_w = tw + TAPS;
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * tw, y0 = get_group_id(1) * th;
    const int xl = min(x0 + tw, dw) - 1, yl = min(y0 + th, dh) - 1;
    const int c0 = xofs[x0], ncols = xofs[xl] + TAPS - c0;
    const int r0 = yofs[y0], nrows = yofs[yl] + TAPS - r0;
    stage_tile(src, src_stride, sw, sh, r0, c0, nrows, ncols, pix, reach_w, lx, ly, tw, th, a);
    barrier(CLK_LOCAL_MEM_FENCE);
    {
        /* Column lx of the horizontal sums, rows ly, ly + th, ... */
        const int x = min(x0 + lx, xl), first = xofs[x] - c0;
        const wvec_t w = WLOAD(x, xw);
        for (int r = ly; r < nrows; r += th) {
            const int o = r * reach_w + first;
#define STAGED(k) pix[o + (k)]
            hsum[r * tw + lx] = WEIGH(w, STAGED);
#undef STAGED
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx, y = y0 + ly;
    if (x >= dw || y >= dh)
        return;
    const int o = yofs[y] - r0;
    const wvec_t w = WLOAD(y, yw);
#define HSUM(j) hsum[(o + (j)) * tw + lx]
    const px_t v = FROM_ACC(WEIGH(w, HSUM));
#undef HSUM
    px_store(v, dst + (size_t)y * dst_stride, x, a);
}

#define INTERP_LOCAL_KERNEL(NAME, A)                                                               \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo,                    \
                       __local acc_t *pix, __local acc_t *hsum)                                    \
    {                                                                                              \
        interp_local(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, pix, hsum, A);         \
    }
INTERP_LOCAL_KERNEL(resize_interp_local_any, 0)
INTERP_LOCAL_KERNEL(resize_interp_local_pix, ALIGN_PIX)

/*
 * The taps of an output column away from the borders are TAPS consecutive
 * pixels: one load of NT = TAPS * CH elements, multiplied by the weights
 * spread over the channels, then the TAPS partial products added in tap
 * order (the order of WEIGH).
 */
#if TAPS * CH == 2
#define NT 2
#elif TAPS * CH == 4
#define NT 4
#elif TAPS * CH == 8
#define NT 8
#else
#define NT 16
#endif
#define FLOATNT CONCAT(float, NT)
typedef FLOATNT tvec_t;
#if CH == 1
#define SPREAD(w) (w)
#if TAPS == 2
#define TAP_SUM(p) ((p).s0 + (p).s1)
#else
#define TAP_SUM(p) ((p).s0 + (p).s1 + (p).s2 + (p).s3)
#endif
#else
#if TAPS == 2
#define SPREAD(w)  ((float8)((w).s0000, (w).s1111))
#define TAP_SUM(p) ((p).s0123 + (p).s4567)
#else
#define SPREAD(w)  ((float16)((w).s0000, (w).s1111, (w).s2222, (w).s3333))
#define TAP_SUM(p) ((p).s0123 + (p).s4567 + (p).s89ab + (p).scdef)
#endif
#endif

/* The TAPS pixels from p as NT floats. Whole uchar4 pixels, where aligned,
 * as consecutive 4-byte loads, which compilers merge. */
inline tvec_t taps_load(__global const T *p, const int a)
{
#if !T_IS_FLOAT && CH == 4
    if (a)
        return CONVERT(FLOATNT,
                       CONCAT(as_uchar, NT)(CONCAT(vload, TAPS)(0, (__global const uint *)p)));
#endif
    return CONVERT(FLOATNT, CONCAT(vload, NT)(0, p));
}

/* The horizontal sums of source row `row` for output columns x0 .. x1 - 1
 * into `out` (floats, a pixel per column, column base first); clamped:
 * taps may leave the row. */
inline void hpass_span(__global const T *row, int sw, int x0, int x1, int clamped,
                       __global const int *xofs, __global const float *xw, __global float *out,
                       int base, const int a)
{
    if (clamped) {
        for (int x = x0; x < x1; x++)
            VSTORE(row_sum(row, CLAMPED_COLS(xofs[x], sw), WLOAD(x, xw), a), x - base, out);
        return;
    }
    for (int x = x0; x < x1; x++) {
        const tvec_t p = taps_load(row + xofs[x] * CH, a) * SPREAD(WLOAD(x, xw));
        VSTORE(TAP_SUM(p), x - base, out);
    }
}

/* The vertical pass stores 16 u8 results at a time, rounded (halves to
 * even: adding and taking away 1.5 * 2^23 leaves the nearest integer of a
 * float in [0, 2^22]) and saturated; one uint4 store where aligned. */
#define ROUND_SAT_U8(v, n)                                                                         \
    CONCAT(convert_uchar, n)((clamp((v), 0.0f, 255.0f) + 12582912.0f) - 12582912.0f)

inline void store16(float16 v, __global T *out, const int a)
{
#if T_IS_FLOAT
    vstore16(v, 0, out);
#else
    const uchar16 u = ROUND_SAT_U8(v, 16);
    if (a == ALIGN_16)
        *(__global uint4 *)out = as_uint4(u);
    else
        vstore16(u, 0, out);
#endif
}

inline void store1(float v, __global T *out)
{
#if T_IS_FLOAT
    *out = v;
#else
    *out = ROUND_SAT_U8(v, );
#endif
}

/* Ring slot of source row r, and its row of horizontal sums. */
#define SLOT(r) ((r) & (TAPS - 1))
#define HROW(j) (ring + SLOT(r0 + (j)) * n)
#define H16(j)  vload16(0, h##j + i)
#define H1(j)   h##j[i]

/*
 * CPU devices: work-item (i, j) makes output columns [x0, x1) = span i of
 * output rows [y0, y1) = band band0 + j. The horizontal sums of the source
 * rows it needs live in its ring of TAPS rows of the span (slot r mod TAPS
 * holds source row r), so upscaled rows that share source rows filter them
 * once; the vertical pass then runs along the span, 16 elements at a time.
 * The arithmetic is resize_interp's, term for term. yofs never decreases,
 * so the rows held are the run lo .. hi filtered last, of which the TAPS
 * latest are in the ring (no private arrays: see kernels/filter.cl on
 * llvmpipe). The host bounds the work of a work-item (llvmpipe ends every
 * loop of a work-item after 65535 iterations in all, see lib/ops/resize.c)
 * and keeps spans multiples of 16 pixels, so that 16-byte alignment holds
 * at every span.
 */
inline void interp_rows(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                        int dst_stride, int dw, int dh, __global const int *geo, int x0, int x1,
                        int y0, int y1, int xa, int xb, __global float *ring, const int a)
{
    GEO_TABLES;
    const int n = (x1 - x0) * CH; /* elements of a span */
    /* Columns [ca, cb) have every tap inside the row. */
    const int ca = clamp(xa, x0, x1), cb = clamp(xb, ca, x1);
    int lo = 1, hi = 0; /* no source row held */
    for (int y = y0; y < y1; y++) {
        const int r0 = yofs[y];
        for (int r = r0; r < r0 + TAPS; r++) {
            if (r >= max(lo, hi - TAPS + 1) && r <= hi)
                continue;
            __global const T *row = src + (size_t)clamp(r, 0, sh - 1) * src_stride;
            __global float *out = ring + SLOT(r) * n;
            hpass_span(row, sw, x0, ca, 1, xofs, xw, out, x0, a);
            hpass_span(row, sw, ca, cb, 0, xofs, xw, out, x0, a);
            hpass_span(row, sw, cb, x1, 1, xofs, xw, out, x0, a);
            lo = r == hi + 1 ? lo : r;
            hi = r;
        }
        const wvec_t wy = WLOAD(y, yw);
        __global const float *h0 = HROW(0), *h1 = HROW(1);
#if TAPS == 4
        __global const float *h2 = HROW(2), *h3 = HROW(3);
#endif
        __global T *out = dst + (size_t)y * dst_stride + x0 * CH;
        int i = 0;
        for (; i + 16 <= n; i += 16)
            store16(WEIGH(wy, H16), out + i, a);
        for (; i < n; i++)
            store1(WEIGH(wy, H1), out + i);
    }
}

#define INTERP_ROWS_KERNEL(NAME, A)                                                                \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows, int xa,  \
                       int xb, __global float *scratch, int span, int band0)                       \
    {                                                                                              \
        const int x0 = get_global_id(0) * span, x1 = min(dw, x0 + span);                           \
        const int y0 = (band0 + (int)get_global_id(1)) * rows, y1 = min(dh, y0 + rows);            \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        interp_rows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x0, x1, y0, y1, xa, xb, \
                    scratch + item * TAPS * span * CH, A);                                         \
    }
INTERP_ROWS_KERNEL(resize_interp_rows_any, 0)
INTERP_ROWS_KERNEL(resize_interp_rows_pix, ALIGN_PIX)
INTERP_ROWS_KERNEL(resize_interp_rows_a16, ALIGN_16)

#if CH != 3
/*
 * CPU devices, exactly x2 on both axes (bilinear and bicubic, u8 and f32):
 * output column 2x then takes the TAPS source columns from x - TAPS / 2
 * with the weights of column 0, and 2x + 1 those from x - TAPS / 2 + 1 with
 * the weights of column 1, whatever x; rows alike (the host checks the
 * table: lib/ops/resize.c). The weights repeat with period 2, so a pair of
 * outputs comes from one set of source loads with constant weights, 16
 * source elements at a time, with no per-pixel offsets or weights.
 * Work-item (i, j) makes the outputs of source columns [s0, s1) = span i
 * and source rows [j0, j1) = band band0 + j: for each source row r from j0
 * - TAPS / 2 (clamped into the image) the horizontal pass of the span into
 * slot (r - j0 + TAPS / 2) mod (TAPS + 1) of its ring, then, once the ring
 * holds rows j - TAPS / 2 .. j + TAPS / 2, output rows 2j and 2j + 1. The
 * sums are those of resize_interp_rows term for term (WEIGH's order,
 * every product rounded on its own): the same bytes. The host bounds the
 * loops of a work-item (llvmpipe) and keeps spans multiples of 16 pixels.
 */
#define P2_H (TAPS / 2)
#if TAPS == 2
#define P2_EVEN(w, F) ((w).s0 * F(0) + (w).s1 * F(1))
#define P2_ODD(w, F)  ((w).s0 * F(1) + (w).s1 * F(2))
#else
#define P2_EVEN(w, F) ((w).s0 * F(0) + (w).s1 * F(1) + (w).s2 * F(2) + (w).s3 * F(3))
#define P2_ODD(w, F)  ((w).s0 * F(1) + (w).s1 * F(2) + (w).s2 * F(3) + (w).s3 * F(4))
#endif

/* Even and odd outputs, 16 elements each, interleaved pixel by pixel: the
 * first and the second 16 output elements. */
#if CH == 1
#define P2_LO(e, o)                                                                                \
    (float16)(e.s0, o.s0, e.s1, o.s1, e.s2, o.s2, e.s3, o.s3, e.s4, o.s4, e.s5, o.s5, e.s6, o.s6,  \
              e.s7, o.s7)
#define P2_HI(e, o)                                                                                \
    (float16)(e.s8, o.s8, e.s9, o.s9, e.sa, o.sa, e.sb, o.sb, e.sc, o.sc, e.sd, o.sd, e.se, o.se,  \
              e.sf, o.sf)
#elif CH == 2
#define P2_LO(e, o) (float16)(e.s01, o.s01, e.s23, o.s23, e.s45, o.s45, e.s67, o.s67)
#define P2_HI(e, o) (float16)(e.s89, o.s89, e.sab, o.sab, e.scd, o.scd, e.sef, o.sef)
#else
#define P2_LO(e, o) (float16)(e.s0123, o.s0123, e.s4567, o.s4567)
#define P2_HI(e, o) (float16)(e.s89ab, o.s89ab, e.scdef, o.scdef)
#endif

/* The horizontal pass of source row `row` for source columns [s0, s1):
 * 2 (s1 - s0) pixels of floats into `out`. Whole groups of 16 elements
 * whose taps all lie in the row from vector loads, the others pixel by
 * pixel, clamped. */
inline void period2_hpass(__global const T *row, int sw, int s0, int s1, wvec_t we, wvec_t wo,
                          __global float *out, const int a)
{
    const int npx = 16 / CH;
    const int lo = min(max(s0, P2_H), s1);
    int x = s0;
    for (; x < lo; x++) {
        VSTORE(row_sum(row, CLAMPED_COLS(x - P2_H, sw), we, a), 2 * (x - s0), out);
        VSTORE(row_sum(row, CLAMPED_COLS(x - P2_H + 1, sw), wo, a), 2 * (x - s0) + 1, out);
    }
    for (; x + npx <= s1 && x + npx + P2_H <= sw; x += npx) {
        __global const T *p = row + x * CH;
#define P2_SRC(k) CONVERT(float16, vload16(0, p + ((k)-P2_H) * CH))
        const float16 e = P2_EVEN(we, P2_SRC), o = P2_ODD(wo, P2_SRC);
#undef P2_SRC
        __global float *q = out + 2 * (x - s0) * CH;
        vstore16(P2_LO(e, o), 0, q);
        vstore16(P2_HI(e, o), 0, q + 16);
    }
    for (; x < s1; x++) {
        VSTORE(row_sum(row, CLAMPED_COLS(x - P2_H, sw), we, a), 2 * (x - s0), out);
        VSTORE(row_sum(row, CLAMPED_COLS(x - P2_H + 1, sw), wo, a), 2 * (x - s0) + 1, out);
    }
}

inline void period2_rows(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                         int dst_stride, int dw, int dh, __global const int *geo, int s0, int s1,
                         int j0, int j1, __global float *ring, const int a)
{
    __global const float *xw = (__global const float *)(geo + ((dw + dh + 3) & ~3));
    __global const float *yw = xw + dw * TAPS;
    const wvec_t we = WLOAD(0, xw), wo = WLOAD(1, xw), ve = WLOAD(0, yw), vo = WLOAD(1, yw);
    const int n = 2 * (s1 - s0) * CH; /* elements of a span of an output row */
    for (int r = j0 - P2_H; r < j1 + P2_H; r++) {
        const int k = r - j0 + P2_H; /* rows filtered so far */
        period2_hpass(src + (size_t)clamp(r, 0, sh - 1) * src_stride, sw, s0, s1, we, wo,
                      ring + (k % (TAPS + 1)) * n, a);
        if (k < TAPS)
            continue;
        /* Source row j = r - TAPS / 2: rows j - TAPS / 2 + m in slots
         * (k - TAPS + m) mod (TAPS + 1). */
        const int j = r - P2_H;
#define P2_ROW(m) __global const float *h##m = ring + ((k - TAPS + (m)) % (TAPS + 1)) * n
        P2_ROW(0);
        P2_ROW(1);
        P2_ROW(2);
#if TAPS == 4
        P2_ROW(3);
        P2_ROW(4);
#endif
#undef P2_ROW
        __global T *even = dst + (size_t)(2 * j) * dst_stride + 2 * s0 * CH;
        __global T *odd = even + dst_stride;
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            store16(P2_EVEN(ve, H16), even + i, a);
            store16(P2_ODD(vo, H16), odd + i, a);
        }
        for (; i < n; i++) {
            store1(P2_EVEN(ve, H1), even + i);
            store1(P2_ODD(vo, H1), odd + i);
        }
    }
}

#define PERIOD2_ROWS_KERNEL(NAME, A)                                                               \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows,          \
                       int span, __global float *scratch, int band0)                               \
    {                                                                                              \
        const int s0 = get_global_id(0) * span, s1 = min(sw, s0 + span);                           \
        const int j0 = (band0 + (int)get_global_id(1)) * rows, j1 = min(sh, j0 + rows);            \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        if (s0 < sw && j0 < sh)                                                                    \
            period2_rows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, s0, s1, j0, j1,    \
                         scratch + item * (TAPS + 1) * 2 * span * CH, A);                          \
    }
PERIOD2_ROWS_KERNEL(resize_period2_rows_any, 0)
PERIOD2_ROWS_KERNEL(resize_period2_rows_pix, ALIGN_PIX)
PERIOD2_ROWS_KERNEL(resize_period2_rows_a16, ALIGN_16)
#endif /* CH != 3 */

#if TAPS == 2 && !T_IS_FLOAT
/*
 * CPU devices, u8 bilinear by exactly 2 on both axes (up2_rows.h): the
 * weights are then (1/4, 3/4) for an even output and (3/4, 1/4) for an odd
 * one, so every float product and sum of the oracle is exact and the
 * result is S / 16 of the integer sum S of both axes' weights times 4,
 * rounded halves to even as ROUND_SAT_U8: the same bytes from integers.
 * Clamped borders: the weights of a tap past an edge fall on the edge.
 */
#define UP2_E0          1
#define UP2_E1          3
#define UP2_E2          0
#define UP2_O1          3
#define UP2_O2          1
#define UP2_PREV(x, n)  max((x)-1, 0)
#define UP2_NEXT(x, n)  min((x) + 1, (n)-1)
#define UP2_ROUND(T, s) (((s) + (T)7 + (((s) >> (T)4) & (T)1)) >> (T)4)
#include "up2_rows.h"
UP2_ROWS_KERNEL(resize_bilinear_x2_rows, UP2_DST_PARAMS, UP2_DST16, UP2_DST1)
#endif

#endif /* TAPS */

/* ---- bicubic-aa ---- */
#ifdef AA_TX

/* The tables of geo (see the top of the file). */
#define AA_XW(geo, dw, dh) ((__global const float *)((geo) + (((dw) + (dh) + 3) & ~3)))

/* Four consecutive pixels of a row as floats, and weights spread over
 * their channels. */
#if CH == 1
typedef float4 quad_t;
#define QUAD_LOAD(p)   CONVERT(float4, vload4(0, (p)))
#define QUAD_SPREAD(w) (w)
#define QUAD_SUM(q)    ((q).s0 + (q).s1 + (q).s2 + (q).s3)
#else
typedef float16 quad_t;
#define QUAD_LOAD(p)   CONVERT(float16, vload16(0, (p)))
#define QUAD_SPREAD(w) ((float16)((w).s0000, (w).s1111, (w).s2222, (w).s3333))
#define QUAD_SUM(q)    ((q).s0123 + (q).s4567 + (q).s89ab + (q).scdef)
#endif

/* The horizontal sum of one output column over a source row: AA_TX taps
 * from column `first` with weights w, four at a time where they all lie in
 * the row (always, unless the row is shorter than AA_TX), else one by one
 * clamped into it (the padding taps, of weight 0). */
inline acc_t aa_hsum(__global const T *row, int sw, int first, __global const float *w, const int a)
{
    if (first + AA_TX <= sw) {
        quad_t q = QUAD_LOAD(row + first * CH) * QUAD_SPREAD(vload4(0, w));
        for (int k = 4; k < AA_TX; k += 4)
            q += QUAD_LOAD(row + (first + k) * CH) * QUAD_SPREAD(vload4(0, w + k));
        return QUAD_SUM(q);
    }
    acc_t s = (acc_t)(0.0f);
    for (int k = 0; k < AA_TX; k++)
        s += w[k] * TO_ACC(px(row, min(first + k, sw - 1), a));
    return s;
}

/* u8 results of bicubic-aa: floor(v + AA_HALF) saturated (to nearest,
 * halves up, a value less than 2^-10 below a half counting as the half: see
 * fallback_cpu/scalar/resize.c). */
#define AA_HALF 0.5009765625f
#if T_IS_FLOAT
#define AA_OUT(v)             (v)
#define AA_STORE16(v, out, a) vstore16((v), 0, (out))
#define AA_STORE1(v, out)     (*(out) = (v))
#else
#define AA_OUT(v)         CONVERT(VEC(uchar), clamp(floor((v) + AA_HALF), 0.0f, 255.0f))
#define AA_STORE1(v, out) (*(out) = convert_uchar(clamp(floor((v) + AA_HALF), 0.0f, 255.0f)))
inline void AA_STORE16(float16 v, __global T *out, const int a)
{
    const uchar16 u = convert_uchar16(clamp(floor(v + AA_HALF), 0.0f, 255.0f));
    if (a == ALIGN_16)
        *(__global uint4 *)out = as_uint4(u);
    else
        vstore16(u, 0, out);
}
#endif

/* Separable in two launches (any device, any factor): resize_aa_h makes
 * the horizontal sums of every source row, a dw x sh float image `tmp`
 * (work-item (x, r)); resize_aa_v the outputs from AA_TY of its rows
 * (work-item (x, y)). A work-item's loops run AA_TX / 4 or AA_TY times. */
#define AA_H_KERNEL(NAME, A)                                                                       \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global acc_t *tmp, \
                       int dw, int dh, __global const int *geo)                                    \
    {                                                                                              \
        const int x = get_global_id(0), r = get_global_id(1);                                      \
        if (x < dw && r < sh)                                                                      \
            tmp[(size_t)r * dw + x] = aa_hsum(src + (size_t)r * src_stride, sw, geo[x],            \
                                              AA_XW(geo, dw, dh) + x * AA_TX, A);                  \
    }
AA_H_KERNEL(resize_aa_h_any, 0)
AA_H_KERNEL(resize_aa_h_pix, ALIGN_PIX)

inline void aa_v(__global const acc_t *tmp, int sh, __global T *dst, int dst_stride, int dw, int dh,
                 __global const int *geo, int x, int y, const int a)
{
    const int r0 = geo[dw + y], last = sh - 1;
    __global const float *w = AA_XW(geo, dw, dh) + dw * AA_TX + y * AA_TY;
    /* Tap j reads row min(r0 + j, last) of tmp (which may hold 2^31
     * elements or more): a pointer stepped down column x. */
    __global const acc_t *t = tmp + (size_t)min(r0, last) * dw + x;
    acc_t s = (acc_t)(0.0f);
    for (int j = 0; j < AA_TY; j++) {
        s += w[j] * *t;
        t += r0 + j < last ? dw : 0;
    }
    px_store(AA_OUT(s), dst + (size_t)y * dst_stride, x, a);
}

#define AA_V_KERNEL(NAME, A)                                                                       \
    __kernel void NAME(__global const acc_t *tmp, int sh, __global T *dst, int dst_stride, int dw, \
                       int dh, __global const int *geo)                                            \
    {                                                                                              \
        const int x = get_global_id(0), y = get_global_id(1);                                      \
        if (x < dw && y < dh)                                                                      \
            aa_v(tmp, sh, dst, dst_stride, dw, dh, geo, x, y, A);                                  \
    }
AA_V_KERNEL(resize_aa_v_any, 0)
AA_V_KERNEL(resize_aa_v_pix, ALIGN_PIX)

/*
 * CPU devices: as resize_interp_rows, work-item (i, j) makes output columns
 * [x0, x1) = span i of output rows [y0, y1) = band band0 + j, the
 * horizontal sums of the source rows in use in its ring of AA_TY rows of
 * the span (slot r mod AA_TY holds source row r, r >= 0 here), each made
 * once for the band; then the vertical pass along the span, 16 elements at
 * a time. The host bounds the loops of a work-item (llvmpipe, see
 * lib/ops/resize.c) and keeps spans multiples of 16 pixels.
 */
inline void aa_rows(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                    int dst_stride, int dw, int dh, __global const int *geo, int x0, int x1, int y0,
                    int y1, __global float *ring, const int a)
{
    __global const int *xofs = geo, *yofs = geo + dw;
    __global const float *xw = AA_XW(geo, dw, dh), *yw = xw + dw * AA_TX;
    const int n = (x1 - x0) * CH; /* elements of a span */
    int lo = 1, hi = 0;           /* no source row held */
    for (int y = y0; y < y1; y++) {
        const int r0 = yofs[y];
        for (int r = r0; r < r0 + AA_TY; r++) {
            if (r >= max(lo, hi - AA_TY + 1) && r <= hi)
                continue;
            __global const T *row = src + (size_t)min(r, sh - 1) * src_stride;
            __global float *out = ring + (r % AA_TY) * n;
            for (int x = x0; x < x1; x++)
                VSTORE(aa_hsum(row, sw, xofs[x], xw + x * AA_TX, a), x - x0, out);
            lo = r == hi + 1 ? lo : r;
            hi = r;
        }
        __global const float *w = yw + y * AA_TY;
        __global T *out = dst + (size_t)y * dst_stride + x0 * CH;
        const int slot0 = r0 % AA_TY;
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            float16 s = (float16)(0.0f);
            for (int j = 0, slot = slot0; j < AA_TY; j++, slot = slot + 1 == AA_TY ? 0 : slot + 1)
                s += w[j] * vload16(0, ring + slot * n + i);
            AA_STORE16(s, out + i, a);
        }
        for (; i < n; i++) {
            float s = 0.0f;
            for (int j = 0, slot = slot0; j < AA_TY; j++, slot = slot + 1 == AA_TY ? 0 : slot + 1)
                s += w[j] * ring[slot * n + i];
            AA_STORE1(s, out + i);
        }
    }
}

/* The horizontal sum of one output column over a line of n pixels of
 * floats (aa_hsum's, from a vertical pass). */
#if CH == 1
#define QUAD_LOADF(p) vload4(0, (p))
#else
#define QUAD_LOADF(p) vload16(0, (p))
#endif
inline acc_t aa_hsum_line(__global const float *line, int n, int first, __global const float *w)
{
    if (first + AA_TX <= n) {
        quad_t q = QUAD_LOADF(line + first * CH) * QUAD_SPREAD(vload4(0, w));
        for (int k = 4; k < AA_TX; k += 4)
            q += QUAD_LOADF(line + (first + k) * CH) * QUAD_SPREAD(vload4(0, w + k));
        return QUAD_SUM(q);
    }
    acc_t s = (acc_t)(0.0f);
    for (int k = 0; k < AA_TX; k++)
        s += w[k] * VLOAD(min(first + k, n - 1), line);
    return s;
}

/*
 * CPU devices, where the image shrinks vertically: the vertical pass first,
 * per output row, over the source columns the span reaches, 16 elements at
 * a time from consecutive memory (contiguous and vectorised, where the
 * horizontal-first ring would filter every source row), into `line`; then
 * the horizontal sums of the span from it. Work-item (i, j) as in
 * resize_aa_rows; the host bounds its loops.
 */
inline void aa_vrows(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                     int dst_stride, int dw, int dh, __global const int *geo, int x0, int x1,
                     int y0, int y1, __global float *line, const int a)
{
    __global const int *xofs = geo, *yofs = geo + dw;
    __global const float *xw = AA_XW(geo, dw, dh), *yw = xw + dw * AA_TX;
    const int c0 = xofs[x0], n = min(xofs[x1 - 1] + AA_TX, sw) - c0; /* source columns */
    const int m = n * CH, last = sh - 1;
    for (int y = y0; y < y1; y++) {
        const int r0 = yofs[y];
        __global const float *w = yw + y * AA_TY;
        /* Tap j reads source row min(r0 + j, last): pointers stepped down
         * from the first. */
        __global const T *in = src + (size_t)min(r0, last) * src_stride + c0 * CH;
        int i = 0;
        for (; i + 16 <= m; i += 16) {
            float16 s = (float16)(0.0f);
            __global const T *p = in + i;
            for (int j = 0; j < AA_TY; j++) {
                s += w[j] * CONVERT(float16, vload16(0, p));
                p += r0 + j < last ? src_stride : 0;
            }
            vstore16(s, 0, line + i);
        }
        for (; i < m; i++) {
            float s = 0.0f;
            __global const T *p = in + i;
            for (int j = 0; j < AA_TY; j++) {
                s += w[j] * (float)*p;
                p += r0 + j < last ? src_stride : 0;
            }
            line[i] = s;
        }
        __global T *out = dst + (size_t)y * dst_stride;
        for (int x = x0; x < x1; x++)
            px_store(AA_OUT(aa_hsum_line(line, n, xofs[x] - c0, xw + x * AA_TX)), out, x, a);
    }
}

#define AA_VROWS_KERNEL(NAME, A)                                                                   \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows,          \
                       __global float *scratch, int line, int span, int band0)                     \
    {                                                                                              \
        const int x0 = get_global_id(0) * span, x1 = min(dw, x0 + span);                           \
        const int y0 = (band0 + (int)get_global_id(1)) * rows, y1 = min(dh, y0 + rows);            \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        if (x0 < dw)                                                                               \
            aa_vrows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x0, x1, y0, y1,        \
                     scratch + item * line, A);                                                    \
    }
AA_VROWS_KERNEL(resize_aa_vrows_any, 0)
AA_VROWS_KERNEL(resize_aa_vrows_pix, ALIGN_PIX)

#define AA_ROWS_KERNEL(NAME, A)                                                                    \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows,          \
                       __global float *scratch, int span, int band0)                               \
    {                                                                                              \
        const int x0 = get_global_id(0) * span, x1 = min(dw, x0 + span);                           \
        const int y0 = (band0 + (int)get_global_id(1)) * rows, y1 = min(dh, y0 + rows);            \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        aa_rows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x0, x1, y0, y1,             \
                scratch + item * AA_TY * span * CH, A);                                            \
    }
AA_ROWS_KERNEL(resize_aa_rows_any, 0)
AA_ROWS_KERNEL(resize_aa_rows_pix, ALIGN_PIX)
AA_ROWS_KERNEL(resize_aa_rows_a16, ALIGN_16)

#endif /* AA_TX */

#endif /* T */

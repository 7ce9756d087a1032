/*
 * Resize family: nearest, bilinear and bicubic resampling (clik_resize).
 *
 * The host (lib/ops/resize.c) computes the geometry once per call, in
 * double: for each output column and row the first source tap (before
 * border clamping) and, for the interpolating methods, TAPS float weights.
 * They reach the kernels as one int buffer `geo`:
 *     geo[0 .. dw)             xofs, first source column of output column x
 *     geo[dw .. dw + dh)       yofs, first source row of output row y
 *     from W = dw + dh rounded up to a multiple of 4, as floats:
 *                              xw[dw * TAPS], yw[dh * TAPS]
 *     (16-byte aligned: a column's weights are one vector load)
 * so every kernel and every device uses the same coefficients.
 *
 * Build options:
 *   BPP          nearest kernels: bytes per pixel, 1, 4 or 16 (a pixel is
 *                moved as a uchar, uint or uint4 whatever its type);
 *   T, T_IS_FLOAT, CH   interpolating kernels: uchar or float, 1 or 4 channels;
 *   TAPS         2 (bilinear) or 4 (bicubic);
 *   PIX_ALIGNED  the images and their rows start at multiples of the pixel
 *                size: a pixel is one typed access (one transaction for an
 *                RGBA uchar4), else vloadn / vstoren;
 *   ALIGNED      (common.h) 16-byte chunks of rows are 16-byte aligned;
 *   TILE_W, TILE_H  the output tile of resize_interp_local;
 *   DST_ALIGNED16 resize_interp_rows: dst and its rows start at multiples of 16.
 * Strides are in bytes for the nearest kernels, in elements for the others.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef PIX_ALIGNED
#define PIX_ALIGNED 0
#endif

/* ==== nearest ============================================================== */
#ifdef BPP

#if BPP == 1
typedef uchar pix_t;
#define PLOAD(p, i)     ((p)[(i)])
#define PSTORE(v, p, i) ((p)[(i)] = (v))
#elif BPP == 4 && PIX_ALIGNED
typedef uint pix_t;
#define PLOAD(p, i)     (((__global const uint *)(p))[(i)])
#define PSTORE(v, p, i) (((__global uint *)(p))[(i)] = (v))
#elif BPP == 4
typedef uint pix_t;
#define PLOAD(p, i)     as_uint(vload4((i), (p)))
#define PSTORE(v, p, i) vstore4(as_uchar4(v), (i), (p))
#elif BPP == 16 && PIX_ALIGNED
typedef uint4 pix_t;
#define PLOAD(p, i)     (((__global const uint4 *)(p))[(i)])
#define PSTORE(v, p, i) (((__global uint4 *)(p))[(i)] = (v))
#else
typedef uint4 pix_t;
#define PLOAD(p, i)     as_uint4(vload16((i), (p)))
#define PSTORE(v, p, i) vstore16(as_uchar16(v), (i), (p))
#endif

/*
 * Chunks: 16 bytes of a row, NPIX pixels, moved as a uint4. With ALIGNED
 * (every chunk 16-byte aligned) one access; else, where pixels are aligned,
 * pixel accesses (on GPUs each coalesced); else vload16 / vstore16.
 */
#define NPIX (16 / BPP)
#if defined(ALIGNED) && ALIGNED
#define CHUNK_GET(p)    (*(__global const uint4 *)(p))
#define CHUNK_PUT(v, q) (*(__global uint4 *)(q) = (v))
#elif BPP == 4 && PIX_ALIGNED
#define CHUNK_GET(p)    ((uint4)(PLOAD(p, 0), PLOAD(p, 1), PLOAD(p, 2), PLOAD(p, 3)))
#define CHUNK_PUT(v, q) chunk_put_pixels((v), (q))
inline void chunk_put_pixels(uint4 v, __global uchar *q)
{
    PSTORE(v.s0, q, 0);
    PSTORE(v.s1, q, 1);
    PSTORE(v.s2, q, 2);
    PSTORE(v.s3, q, 3);
}
#elif BPP == 16
#define CHUNK_GET(p)    PLOAD(p, 0)
#define CHUNK_PUT(v, q) PSTORE((v), (q), 0)
#else
#define CHUNK_GET(p)    as_uint4(vload16(0, (p)))
#define CHUNK_PUT(v, q) vstore16(as_uchar16(v), 0, (q))
#endif

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
__kernel void resize_nearest(__global const uchar *src, int src_stride, __global uchar *dst,
                             int dst_stride, int dw, int dh, __global const int *geo)
{
    const int x0 = get_global_id(0) * NPIX, y = get_global_id(1);
    if (x0 >= dw || y >= dh)
        return;
    __global const uchar *in = src + geo[dw + y] * src_stride;
    __global uchar *out = dst + y * dst_stride;
    if (x0 + NPIX > dw) {
        for (int x = x0; x < dw; x++)
            PSTORE(PLOAD(in, geo[x]), out, x);
        return;
    }
    chunk_t v;
#if BPP == 16
    v = PLOAD(in, geo[x0]);
#else
    int x = x0;
#define NN_GATHER(lane)                                                                            \
    v.lane = PLOAD(in, geo[x]);                                                                    \
    x++;
    EACH_LANE(NN_GATHER)
#undef NN_GATHER
#endif
    CHUNK_PUT(as_uint4(v), out + x0 * BPP);
}

/* Integer scales (output x from source x / sx, which the host checked
 * against the generic tables): output chunk i of the sy rows that source
 * row y becomes, its pixels repeated from the source row. */
__kernel void resize_nearest_int(__global const uchar *src, int src_stride, int sw, int sh,
                                 __global uchar *dst, int dst_stride, int sx, int sy, int dw)
{
    const int x0 = get_global_id(0) * NPIX, y = get_global_id(1);
    if (x0 >= dw || y >= sh)
        return;
    __global const uchar *in = src + y * src_stride;
    __global uchar *out = dst + y * sy * dst_stride;
    if (x0 + NPIX > dw) {
        for (int x = x0; x < dw; x++) {
            const pix_t p = PLOAD(in, x / sx);
            for (int r = 0; r < sy; r++)
                PSTORE(p, out + r * dst_stride, x);
        }
        return;
    }
    chunk_t v;
    int i = x0 / sx;
#if BPP == 16
    v = PLOAD(in, i);
#else
    /* Source pixel i serves sx outputs: count them off, no division. */
    int used = x0 - i * sx;
#define NN_REPEAT(lane)                                                                            \
    v.lane = PLOAD(in, i);                                                                         \
    used++;                                                                                        \
    i += used == sx;                                                                               \
    used = used == sx ? 0 : used;
    EACH_LANE(NN_REPEAT)
#undef NN_REPEAT
#endif
    for (int r = 0; r < sy; r++)
        CHUNK_PUT(as_uint4(v), out + r * dst_stride + x0 * BPP);
}

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

/* Source pixels 0 .. n - 1 of row `in` (n a multiple of NPIX) magnified
 * sx times into row `out`. */
inline void nn_row(__global const uchar *in, __global uchar *out, int n, int sx)
{
#define NN_EACH_CHUNK(body)                                                                        \
    for (int x0 = 0; x0 < n; x0 += NPIX) {                                                         \
        const uchar16 v = as_uchar16(CHUNK_GET(in + x0 * BPP));                                    \
        __global uchar *o = out + x0 * sx * BPP;                                                   \
        body                                                                                       \
    }
#define NN_PUT(s, k) CHUNK_PUT(as_uint4(shuffle(v, NN_MASK(s, k))), o + 16 * (k));
    switch (sx) {
    case 1: NN_EACH_CHUNK(CHUNK_PUT(as_uint4(v), o);) break;
    case 2: NN_EACH_CHUNK(NN_PUT(2, 0) NN_PUT(2, 1)) break;
    case 3: NN_EACH_CHUNK(NN_PUT(3, 0) NN_PUT(3, 1) NN_PUT(3, 2)) break;
    case 4: NN_EACH_CHUNK(NN_PUT(4, 0) NN_PUT(4, 1) NN_PUT(4, 2) NN_PUT(4, 3)) break;
    default:
        /* Larger factors: each pixel repeated with pixel-sized stores. */
        for (int x = 0; x < n; x++) {
            const pix_t p = PLOAD(in, x);
            for (int k = 0; k < sx; k++)
                PSTORE(p, out, x * sx + k);
        }
        break;
    }
#undef NN_PUT
#undef NN_EACH_CHUNK
}

/* Copies `bytes` bytes of the row above `out` (16-byte chunks, then bytes). */
inline void copy_row_above(__global uchar *out, int dst_stride, int bytes)
{
    __global const uchar *above = out - dst_stride;
    const int whole = bytes / 16 * 16;
    for (int i = 0; i < whole; i += 16)
        CHUNK_PUT(CHUNK_GET(above + i), out + i);
    for (int i = whole; i < bytes; i++)
        out[i] = above[i];
}

/* CPU devices, integer scales: each work-item magnifies `rows` source rows:
 * the first of each sy output rows chunk by chunk, the others copies of it
 * (rows written one after the other, from the cache). */
__kernel void resize_nearest_int_rows(__global const uchar *src, int src_stride, int sw, int sh,
                                      __global uchar *dst, int dst_stride, int sx, int sy, int rows)
{
    const int y0 = get_global_id(0) * rows, y1 = min(sh, y0 + rows);
    const int full = sw / NPIX * NPIX, bytes = sw * sx * BPP;
    for (int y = y0; y < y1; y++) {
        __global const uchar *in = src + y * src_stride;
        __global uchar *out = dst + y * sy * dst_stride;
        nn_row(in, out, full, sx);
        for (int x = full; x < sw; x++) {
            const pix_t p = PLOAD(in, x);
            for (int k = 0; k < sx; k++)
                PSTORE(p, out, x * sx + k);
        }
        for (int r = 1; r < sy; r++)
            copy_row_above(out + r * dst_stride, dst_stride, bytes);
    }
}

/* CPU devices, any scale: each work-item makes `rows` output rows; a row
 * that samples the same source row as the one above is a copy of it. */
__kernel void resize_nearest_rows(__global const uchar *src, int src_stride, __global uchar *dst,
                                  int dst_stride, int dw, int dh, __global const int *geo, int rows)
{
    const int y0 = get_global_id(0) * rows, y1 = min(dh, y0 + rows);
    for (int y = y0; y < y1; y++) {
        __global uchar *out = dst + y * dst_stride;
        if (y > y0 && geo[dw + y] == geo[dw + y - 1]) {
            copy_row_above(out, dst_stride, dw * BPP);
            continue;
        }
        __global const uchar *in = src + geo[dw + y] * src_stride;
        for (int x = 0; x < dw; x++)
            PSTORE(PLOAD(in, geo[x]), out, x);
    }
}

#endif /* BPP */

/* ==== bilinear and bicubic ================================================= */
#ifdef T

typedef VEC(float) acc_t;
#if T_IS_FLOAT
#define TO_ACC(v)   (v)
#define FROM_ACC(v) (v)
#else
#define TO_ACC(v)   CONVERT(VEC(float), v)
/* Round to nearest, halves to even (as the oracle), and saturate. */
#define FROM_ACC(v) CONVERT_SAT(VEC(uchar), rint(v))
#endif

#if PIX_ALIGNED
#define PX(row, i)          (((__global const VEC(T) *)(row))[(i)])
#define PX_STORE(v, row, i) (((__global VEC(T) *)(row))[(i)] = (v))
#else
#define PX(row, i)          VLOAD((i), (row))
#define PX_STORE(v, row, i) VSTORE((v), (i), (row))
#endif

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
inline acc_t row_sum(__global const T *row, ivec_t c, wvec_t w)
{
#define ROW_TAP(k) TO_ACC(PX(row, c.s##k))
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
__kernel void resize_interp(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                            int dst_stride, int dw, int dh, __global const int *geo)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= dw || y >= dh)
        return;
    GEO_TABLES;
    const wvec_t wx = WLOAD(x, xw), wy = WLOAD(y, yw);
    const ivec_t cols = CLAMPED_COLS(xofs[x], sw);
    const int r = yofs[y];
#define SRC_ROW(j) row_sum(src + clamp(r + (j), 0, sh - 1) * src_stride, cols, wx)
    PX_STORE(FROM_ACC(WEIGH(wy, SRC_ROW)), dst + y * dst_stride, x);
#undef SRC_ROW
}

#if defined(TILE_W) && defined(TILE_H)
/* Source pixels a tile can reach per axis; the host uses this kernel only
 * where every tile's reach fits (upscaling). */
#define REACH_W (TILE_W + TAPS)
#define REACH_H (TILE_H + TAPS)

/*
 * Local-memory tiles (seed 003, section VI): a work-group stages the source
 * region its TILE_W x TILE_H outputs reach, makes the horizontal sums of
 * each staged row for its columns, then each work-item combines TAPS of
 * them vertically. Upscaling by s shares each source pixel among about s^2
 * outputs and each horizontal sum among about TAPS * s of them.
 */
__kernel void resize_interp_local(__global const T *src, int src_stride, int sw, int sh,
                                  __global T *dst, int dst_stride, int dw, int dh,
                                  __global const int *geo)
{
    __local acc_t pix[REACH_H * REACH_W];
    __local acc_t hsum[REACH_H * TILE_W];
    GEO_TABLES;
    const int lx = get_local_id(0), ly = get_local_id(1), lid = ly * TILE_W + lx;
    const int x0 = get_group_id(0) * TILE_W, y0 = get_group_id(1) * TILE_H;
    const int xl = min(x0 + TILE_W, dw) - 1, yl = min(y0 + TILE_H, dh) - 1;
    const int c0 = xofs[x0], ncols = xofs[xl] + TAPS - c0;
    const int r0 = yofs[y0], nrows = yofs[yl] + TAPS - r0;
    for (int i = lid; i < nrows * ncols; i += TILE_W * TILE_H) {
        const int r = i / ncols, c = i - r * ncols;
        __global const T *row = src + clamp(r0 + r, 0, sh - 1) * src_stride;
        pix[r * REACH_W + c] = TO_ACC(PX(row, clamp(c0 + c, 0, sw - 1)));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < nrows * TILE_W; i += TILE_W * TILE_H) {
        const int r = i / TILE_W, c = i - r * TILE_W;
        const int x = min(x0 + c, xl), o = r * REACH_W + xofs[x] - c0;
        const wvec_t w = WLOAD(x, xw);
#define STAGED(k) pix[o + (k)]
        hsum[r * TILE_W + c] = WEIGH(w, STAGED);
#undef STAGED
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx, y = y0 + ly;
    if (x >= dw || y >= dh)
        return;
    const int o = yofs[y] - r0;
    const wvec_t w = WLOAD(y, yw);
#define HSUM(j) hsum[(o + (j)) * TILE_W + lx]
    PX_STORE(FROM_ACC(WEIGH(w, HSUM)), dst + y * dst_stride, x);
#undef HSUM
}
#endif

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
typedef CONCAT(float, NT) tvec_t;
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
#if !T_IS_FLOAT && CH == 4 && PIX_ALIGNED
/* Whole uchar4 pixels: consecutive 4-byte loads, which compilers merge. */
#define TAPS_LOAD(p)                                                                               \
    CONVERT(CONCAT(float, NT),                                                                     \
            CONCAT(as_uchar, NT)(CONCAT(vload, TAPS)(0, (__global const uint *)(p))))
#else
#define TAPS_LOAD(p) CONVERT(CONCAT(float, NT), CONCAT(vload, NT)(0, (p)))
#endif

/* The horizontal sums of source row `row` for output columns x0 .. x1 - 1
 * into `out` (floats, a pixel per column); clamped: taps may leave the row. */
inline void hpass_span(__global const T *row, int sw, int x0, int x1, int clamped,
                       __global const int *xofs, __global const float *xw, __global float *out)
{
    if (clamped) {
        for (int x = x0; x < x1; x++)
            VSTORE(row_sum(row, CLAMPED_COLS(xofs[x], sw), WLOAD(x, xw)), x, out);
        return;
    }
    for (int x = x0; x < x1; x++) {
        const tvec_t p = TAPS_LOAD(row + xofs[x] * CH) * SPREAD(WLOAD(x, xw));
        VSTORE(TAP_SUM(p), x, out);
    }
}

/* resize_interp_rows' vertical pass stores 16 results at a time: u8 ones
 * rounded (halves to even: adding and taking away 1.5 * 2^23 leaves the
 * nearest integer of a float in [0, 2^22]) and saturated. */
#if DST_ALIGNED16
#define STORE16_U8(v, out) (*(__global uint4 *)(out) = as_uint4(v))
#else
#define STORE16_U8(v, out) vstore16((v), 0, (out))
#endif
#define ROUND_SAT_U8(v, n)                                                                         \
    CONCAT(convert_uchar, n)((clamp((v), 0.0f, 255.0f) + 12582912.0f) - 12582912.0f)

/*
 * CPU devices: each work-item makes `rows` output rows. The horizontal sums
 * of the source rows it needs live in a ring of TAPS rows of `scratch`
 * (slot r mod TAPS holds source row r), so upscaled rows that share source
 * rows filter them once; the vertical pass then runs along whole rows, 16
 * elements at a time. The arithmetic is resize_interp's, term for term.
 */
__kernel void resize_interp_rows(__global const T *src, int src_stride, int sw, int sh,
                                 __global T *dst, int dst_stride, int dw, int dh,
                                 __global const int *geo, int rows, int xa, int xb,
                                 __global float *scratch)
{
    GEO_TABLES;
    const int y0 = get_global_id(0) * rows, y1 = min(dh, y0 + rows);
    const int n = dw * CH; /* elements of a row */
    __global float *ring = scratch + (size_t)get_global_id(0) * TAPS * n;
    int held[TAPS];
    for (int k = 0; k < TAPS; k++)
        held[k] = -TAPS - 1; /* no source row */
    for (int y = y0; y < y1; y++) {
        __global const float *h[TAPS];
        for (int j = 0; j < TAPS; j++) {
            const int r = yofs[y] + j, slot = r & (TAPS - 1);
            h[j] = ring + slot * n;
            if (held[slot] == r)
                continue;
            __global const T *row = src + clamp(r, 0, sh - 1) * src_stride;
            __global float *out = ring + slot * n;
            hpass_span(row, sw, 0, xa, 1, xofs, xw, out);
            hpass_span(row, sw, xa, xb, 0, xofs, xw, out);
            hpass_span(row, sw, xb, dw, 1, xofs, xw, out);
            held[slot] = r;
        }
        const wvec_t wy = WLOAD(y, yw);
        __global T *out = dst + y * dst_stride;
        int i = 0;
#define H16(j) vload16(0, h[j] + i)
        for (; i + 16 <= n; i += 16) {
#if T_IS_FLOAT
            vstore16(WEIGH(wy, H16), 0, out + i);
#else
            STORE16_U8(ROUND_SAT_U8(WEIGH(wy, H16), 16), out + i);
#endif
        }
#undef H16
#define H1(j) h[j][i]
        for (; i < n; i++) {
#if T_IS_FLOAT
            out[i] = WEIGH(wy, H1);
#else
            out[i] = ROUND_SAT_U8(WEIGH(wy, H1), );
#endif
        }
#undef H1
    }
}

#endif /* T */

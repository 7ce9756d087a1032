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

/* The versions of a kernel, from KERNEL(NAME, a) (its name and alignment):
 * NAME_any and NAME_pix, or all three with NAME_a16. */
#define ANY_PIX_VERSIONS(KERNEL, NAME) KERNEL(NAME##_any, 0) KERNEL(NAME##_pix, ALIGN_PIX)
#define ALL_VERSIONS(KERNEL, NAME)     ANY_PIX_VERSIONS(KERNEL, NAME) KERNEL(NAME##_a16, ALIGN_16)

/* A CPU-device work-item's part of the image (in a kernel with the
 * arguments span, rows and band0): columns [x0, x1) of span i, of a row W
 * pixels wide, and rows [y0, y1) of band band0 + j, of H rows. */
#define SPAN_BAND(W, H)                                                                            \
    const int x0 = get_global_id(0) * span, x1 = min((W), x0 + span);                              \
    const int y0 = (band0 + (int)get_global_id(1)) * rows, y1 = min((H), y0 + rows)

/* ==== nearest ============================================================== */
#ifdef BPP
#include "resize_nearest.h"
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

#if !T_IS_FLOAT
/* 16 u8 results: one uint4 store where the chunk is 16-byte aligned. */
inline void put_u8x16(uchar16 u, __global uchar *out, const int a)
{
    if (a == ALIGN_16)
        *(__global uint4 *)out = as_uint4(u);
    else
        vstore16(u, 0, out);
}
#endif

/* The CPU-device kernels' rings of horizontally filtered source rows (see
 * interp_rows): whether a ring of `taps` rows holds source row r, when the
 * rows filtered last are the run lo .. hi (none while lo > hi). */
inline int ring_holds(int r, int lo, int hi, int taps)
{
    return r >= max(lo, hi - taps + 1) && r <= hi;
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
ANY_PIX_VERSIONS(INTERP_KERNEL, resize_interp)

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
ANY_PIX_VERSIONS(INTERP_LOCAL_KERNEL, resize_interp_local)

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
    put_u8x16(ROUND_SAT_U8(v, 16), out, a);
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
 * loop of a work-item after 65535 iterations in all, see lib/ops/resize_opencl.c)
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
            if (ring_holds(r, lo, hi, TAPS))
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
        SPAN_BAND(dw, dh);                                                                         \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        interp_rows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x0, x1, y0, y1, xa, xb, \
                    scratch + item * TAPS * span * CH, A);                                         \
    }
ALL_VERSIONS(INTERP_ROWS_KERNEL, resize_interp_rows)

#if CH != 3
/*
 * CPU devices, exactly x2 on both axes (bilinear and bicubic, u8 and f32):
 * output column 2x then takes the TAPS source columns from x - TAPS / 2
 * with the weights of column 0, and 2x + 1 those from x - TAPS / 2 + 1 with
 * the weights of column 1, whatever x; rows alike (the host checks the
 * table: lib/ops/resize_opencl.c). The weights repeat with period 2, so a pair of
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
#define P2_LO(e, o) INTERLEAVE_LO(float16, e, o)
#define P2_HI(e, o) INTERLEAVE_HI(float16, e, o)

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
ALL_VERSIONS(PERIOD2_ROWS_KERNEL, resize_period2_rows)

/*
 * GPUs, exactly x2 on both axes (the geometry of resize_period2_rows):
 * work-item (i, j) makes 16 elements (2 * P2_NP pixels) of output rows 2j
 * and 2j + 1, those of source pixels [i * P2_NP, (i + 1) * P2_NP) of source
 * row j. For each source row j - TAPS / 2 + m (m = 0 .. TAPS, clamped into
 * the image) it takes the even and odd horizontal sums of its pixels and
 * adds them at once into the vertical sums of the even row (m < TAPS) and
 * of the odd row (m > 0), in WEIGH's order: the sums of resize_interp term
 * for term, so the same bytes, with no per-pixel offsets or weights: a
 * typed load per source pixel (_pix, _a16) and one 16-element store per
 * output row (one uint4 for u8 in _a16; elements past the image's last
 * pixel one by one).
 */
#define P2_NP (8 / CH)
#if TAPS == 2
#define P2_WSTORE(w, p) vstore2((w), 0, (p))
#else
#define P2_WSTORE(w, p) vstore4((w), 0, (p))
#endif

inline void period2_block(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                          int dst_stride, int dw, int dh, __global const int *geo, const int a)
{
    const int i0 = get_global_id(0) * P2_NP, j = get_global_id(1);
    if (i0 >= sw || j >= sh)
        return;
    __global const float *xw = (__global const float *)(geo + ((dw + dh + 3) & ~3));
    __global const float *yw = xw + dw * TAPS;
    const wvec_t we = WLOAD(0, xw), wo = WLOAD(1, xw);
    float ve[TAPS], vo[TAPS];
    P2_WSTORE(WLOAD(0, yw), ve);
    P2_WSTORE(WLOAD(1, yw), vo);
    const int c0 = i0 - P2_H; /* the first source pixel a row's sums take */
    const int inside = c0 >= 0 && c0 + P2_NP + TAPS <= sw;
    float16 even = 0.0f, odd = 0.0f;
    for (int m = 0; m <= TAPS; m++) {
        __global const T *row = src + (size_t)clamp(j - P2_H + m, 0, sh - 1) * src_stride;
        acc_t s[P2_NP + TAPS];
        for (int p = 0; p < P2_NP + TAPS; p++)
            s[p] = TO_ACC(px(row, inside ? c0 + p : clamp(c0 + p, 0, sw - 1), a));
        float h[16];
        for (int p = 0; p < P2_NP; p++) {
#define P2_S(k) s[p + (k)]
            VSTORE(P2_EVEN(we, P2_S), 2 * p, h);
            VSTORE(P2_ODD(wo, P2_S), 2 * p + 1, h);
#undef P2_S
        }
        const float16 hv = vload16(0, h);
        if (m < TAPS)
            even = m == 0 ? ve[0] * hv : even + ve[m] * hv;
        if (m > 0)
            odd = m == 1 ? vo[0] * hv : odd + vo[m - 1] * hv;
    }
    __global T *out = dst + (size_t)(2 * j) * dst_stride + 2 * i0 * CH;
    const int n = 2 * min(P2_NP, sw - i0) * CH;
    if (n == 16) {
        store16(even, out, a);
        store16(odd, out + dst_stride, a);
        return;
    }
    float e16[16], o16[16];
    vstore16(even, 0, e16);
    vstore16(odd, 0, o16);
    for (int e = 0; e < n; e++) {
        store1(e16[e], out + e);
        store1(o16[e], out + dst_stride + e);
    }
}

#define PERIOD2_BLOCK_KERNEL(NAME, A)                                                              \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo)                    \
    {                                                                                              \
        period2_block(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, A);                   \
    }
ALL_VERSIONS(PERIOD2_BLOCK_KERNEL, resize_period2_block)
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
#include "resize_aa.h"
#endif /* AA_TX */

#endif /* T */

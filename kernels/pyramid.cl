/*
 * Pyramid family: OpenCV pyrDown and pyrUp, and the fused steps of the
 * Laplacian pyramid. Build options, the pixels' format only:
 *   T       element type, uchar or float;   CH  channels (1, 2 or 4).
 * One program holds every kernel of that format: pyr_down (and
 * pyr_down_local, whose tile is the work-group and whose local memory the
 * host sizes at launch), pyr_up, the Laplacian steps for both band types
 * (short bands for uchar pixels only), for uchar pyr_down_rows, pyr_up_rows
 * and the Laplacian steps pyr_up_{sub,add}_rows_* (CPU devices), and for
 * uchar pyr_down_vec (one channel) and pyr_down_strip (1 or 4; GPUs).
 * Images are addressed in elements (stride in elements); a pixel is CH
 * consecutive elements, loaded and stored as one vector. Row starts are
 * 64-bit products, (size_t)y * stride (images may hold 2^31 elements or
 * more); offsets within a row are int.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#if T_IS_FLOAT
/* Sums in float, in one fixed order: the scalar oracle uses the same one. */
typedef VEC(float) acc_t;
typedef VEC(float) pix_t;
#define TO_ACC(v) (v)
/* Exact scalings by powers of two (a division need not be correctly rounded). */
#define DOWN_RESULT(s) ((s) * (1.0f / 256.0f))
#define UP_RESULT(s)   ((s) * (1.0f / 64.0f))
#else
/* Exact integer sums: at most 255 * 256. */
typedef VEC(uint) acc_t;
typedef VEC(uchar) pix_t;
#define TO_ACC(v)      CONVERT(VEC(uint), v)
#define DOWN_RESULT(s) CONVERT(VEC(uchar), ((s) + 128) >> 8)
#define UP_RESULT(s)   CONVERT(VEC(uchar), ((s) + 32) >> 6)
#endif

/* Offsets here are at most 2 past an edge: the branch-free reflection. */
#define reflect101(p, n) clik_reflect101_near((p), (n))

/* ---- pyrDown -------------------------------------------------------------------- */

/* Vertical taps [1 4 6 4 1] of column x (in pixels) around source row 2y. */
inline acc_t down_column(__global const T *src, int stride, int sw, int sh, int x, int y)
{
    const size_t r0 = (size_t)reflect101(2 * y - 2, sh) * stride;
    const size_t r1 = (size_t)reflect101(2 * y - 1, sh) * stride;
    const size_t r2 = (size_t)(2 * y) * stride;
    const size_t r3 = (size_t)reflect101(2 * y + 1, sh) * stride;
    const size_t r4 = (size_t)reflect101(2 * y + 2, sh) * stride;
    /* Columns of a tile past the image are computed but unused: keep them
     * within two of the edge, where reflect101's two folds suffice. */
    const int c = reflect101(clamp(x, -2, sw + 1), sw) * CH;
    acc_t s = TO_ACC(VLOAD(0, src + r0 + c));
    s += TO_ACC(VLOAD(0, src + r1 + c)) * 4;
    s += TO_ACC(VLOAD(0, src + r2 + c)) * 6;
    s += TO_ACC(VLOAD(0, src + r3 + c)) * 4;
    s += TO_ACC(VLOAD(0, src + r4 + c));
    return s;
}

inline acc_t down_row(acc_t c0, acc_t c1, acc_t c2, acc_t c3, acc_t c4)
{
    acc_t s = c0;
    s += c1 * 4;
    s += c2 * 6;
    s += c3 * 4;
    s += c4;
    return s;
}

/* Filter and decimate in one pass: each output pixel from its 5 x 5 source
 * window. */
__kernel void pyr_down(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                       int dst_stride, int dw, int dh)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= dw || y >= dh)
        return;
    const acc_t s = down_row(down_column(src, src_stride, sw, sh, 2 * x - 2, y),
                             down_column(src, src_stride, sw, sh, 2 * x - 1, y),
                             down_column(src, src_stride, sw, sh, 2 * x, y),
                             down_column(src, src_stride, sw, sh, 2 * x + 1, y),
                             down_column(src, src_stride, sw, sh, 2 * x + 2, y));
    VSTORE(DOWN_RESULT(s), 0, dst + (size_t)y * dst_stride + x * CH);
}

/* The same with a work-group of TW x TH outputs that computes the vertical
 * sums of its source columns once into `cols` (TH rows of 2 TW + 3 sums):
 * neighbouring outputs share 3 of their 5 columns. */
__kernel void pyr_down_local(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                             int dst_stride, int dw, int dh, __local acc_t *cols)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int tw = get_local_size(0), lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * tw, n = 2 * tw + 3;
    /* Source columns 2 x0 - 2 .. 2 (x0 + tw - 1) + 2 of this output row;
     * rows past the image repeat the last one. */
    __local acc_t *row = cols + ly * n;
    const int yy = min(y, dh - 1);
    for (int i = lx; i < n; i += tw)
        row[i] = down_column(src, src_stride, sw, sh, 2 * x0 - 2 + i, yy);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= dw || y >= dh)
        return;
    const int i = 2 * lx;
    const acc_t s = down_row(row[i], row[i + 1], row[i + 2], row[i + 3], row[i + 4]);
    VSTORE(DOWN_RESULT(s), 0, dst + (size_t)y * dst_stride + x * CH);
}

#if !T_IS_FLOAT
/*
 * CPU devices, u8: each work-item filters `rows` output rows with 16-wide
 * vectors. Per 16 output elements (16 / CH pixels) it takes the vertical
 * sums of 32 new source elements (two ushort16) and keeps the next 16 from
 * the previous step; the five horizontal taps are swizzles of them, whole
 * pixels apart. One channel on little-endian devices reads the 32 new
 * elements as 16 ushort instead, whose low and high bytes are the even and
 * odd elements: the taps are those two vectors of vertical sums and
 * copies of them moved by one lane (down_steps). The steps of a row store to
 * 16-byte aligned addresses (a plain vector store: vstore16 of uchar may
 * become 16 byte stores, PoCL); one step at pixel 1 and one ending at the
 * last pixel whose window lies in the row, both with vstore16, cover the
 * rest but for the one to three edge pixels where reflection applies. The
 * host bounds `rows` so that a work-item's loops stay well within the
 * 65535 iterations after which llvmpipe silently ends them (the loops of a
 * work-item share that count).
 */
/* The vertical sums [1 4 6 4 1] of source elements c .. c + 15. */
inline ushort16 down_vsum16(__global const uchar *r0, __global const uchar *r1,
                            __global const uchar *r2, __global const uchar *r3,
                            __global const uchar *r4, int c)
{
    const ushort16 a = convert_ushort16(vload16(0, r0 + c)) + convert_ushort16(vload16(0, r4 + c));
    const ushort16 b = convert_ushort16(vload16(0, r1 + c)) + convert_ushort16(vload16(0, r3 + c));
    return a + (b << (ushort16)2) + convert_ushort16(vload16(0, r2 + c)) * (ushort16)6;
}

/* 16 output elements from the vertical sums of the 48 source elements
 * from pixel 2 * x0 - 2 on (w0, w1, w2); em .. ep are the source pixels
 * 2x - 2 .. 2x + 2 of each output pixel x. Of w2 only the first 3 CH
 * elements count. */
inline uchar16 down_h16(ushort16 w0, ushort16 w1, ushort16 w2)
{
#if CH == 1
    const ushort16 em = (ushort16)(w0.even, w1.even);
    const ushort16 om = (ushort16)(w0.odd, w1.odd);
    const ushort16 e = (ushort16)(w0.s2468, w0.sace, w1.even, w2.s0);
    const ushort16 o = (ushort16)(w0.s3579, w0.sbdf, w1.odd, w2.s1);
    const ushort16 ep = (ushort16)(w0.s468a, w0.sce, w1.even, w2.s02);
#elif CH == 2
    const ushort16 em = (ushort16)(w0.s01, w0.s45, w0.s89, w0.scd, w1.s01, w1.s45, w1.s89, w1.scd);
    const ushort16 om = (ushort16)(w0.s23, w0.s67, w0.sab, w0.sef, w1.s23, w1.s67, w1.sab, w1.sef);
    const ushort16 e = (ushort16)(w0.s45, w0.s89, w0.scd, w1.s01, w1.s45, w1.s89, w1.scd, w2.s01);
    const ushort16 o = (ushort16)(w0.s67, w0.sab, w0.sef, w1.s23, w1.s67, w1.sab, w1.sef, w2.s23);
    const ushort16 ep = (ushort16)(w0.s89, w0.scd, w1.s01, w1.s45, w1.s89, w1.scd, w2.s01, w2.s45);
#else
    const ushort16 em = (ushort16)(w0.s0123, w0.s89ab, w1.s0123, w1.s89ab);
    const ushort16 om = (ushort16)(w0.s4567, w0.scdef, w1.s4567, w1.scdef);
    const ushort16 e = (ushort16)(w0.s89ab, w1.s0123, w1.s89ab, w2.s0123);
    const ushort16 o = (ushort16)(w0.scdef, w1.s4567, w1.scdef, w2.s4567);
    const ushort16 ep = (ushort16)(w1.s0123, w1.s89ab, w2.s0123, w2.s89ab);
#endif
    const ushort16 sum = em + ((om + o) << (ushort16)2) + e * (ushort16)6 + ep;
    return convert_uchar16((sum + (ushort16)128) >> (ushort16)8);
}

/* Output pixel (x, y) the plain way, for the edges. */
inline pix_t down_pixel(__global const uchar *src, int stride, int sw, int sh, int x, int y)
{
    return DOWN_RESULT(down_row(down_column(src, stride, sw, sh, 2 * x - 2, y),
                                down_column(src, stride, sw, sh, 2 * x - 1, y),
                                down_column(src, stride, sw, sh, 2 * x, y),
                                down_column(src, stride, sw, sh, 2 * x + 1, y),
                                down_column(src, stride, sw, sh, 2 * x + 2, y)));
}

/* Output pixel x of the row whose five source rows are r0 .. r4, columns
 * reflected as down_column() does. */
inline pix_t down_edge(__global const uchar *r0, __global const uchar *r1, __global const uchar *r2,
                       __global const uchar *r3, __global const uchar *r4, int sw, int x)
{
    acc_t c[5];
    for (int k = 0; k < 5; k++) {
        const int i = reflect101(clamp(2 * x - 2 + k, -2, sw + 1), sw) * CH;
        c[k] = TO_ACC(VLOAD(0, r0 + i)) + TO_ACC(VLOAD(0, r4 + i)) +
               (TO_ACC(VLOAD(0, r1 + i)) + TO_ACC(VLOAD(0, r3 + i))) * 4 +
               TO_ACC(VLOAD(0, r2 + i)) * 6;
    }
    return DOWN_RESULT(down_row(c[0], c[1], c[2], c[3], c[4]));
}

/* Output pixels of a vector step, the source pixels its loads span, and
 * the source elements its filter reads (2 DOWN_STEP + 3 pixels). */
#define DOWN_STEP   (16 / CH)
#define DOWN_WINDOW (48 / CH)
#define DOWN_NEED   ((2 * DOWN_STEP + 3) * CH)

/* The 16 vertical sums from element DOWN_NEED - 16 of a step moved to
 * where down_h16() reads w2 (its first 3 CH elements). */
#if CH == 1
#define DOWN_W2_FROM_END(t) (ushort16)((t).sdef, (t).s0123, (t).s4567, (t).s89ab, (t).s0)
#elif CH == 2
#define DOWN_W2_FROM_END(t) (ushort16)((t).sabcd, (t).sef, (t).s01, (t).s01234567)
#else
#define DOWN_W2_FROM_END(t) (ushort16)((t).s4567, (t).s89ab, (t).scdef, (t).s0123)
#endif

/* The step from element e = (2 x0 - 2) CH reading no further than its
 * filter needs: for steps whose 48-element window would pass the row. */
inline uchar16 down_step_short(__global const uchar *r0, __global const uchar *r1,
                               __global const uchar *r2, __global const uchar *r3,
                               __global const uchar *r4, int e)
{
    const ushort16 t = down_vsum16(r0, r1, r2, r3, r4, e + DOWN_NEED - 16);
    return down_h16(down_vsum16(r0, r1, r2, r3, r4, e), down_vsum16(r0, r1, r2, r3, r4, e + 16),
                    DOWN_W2_FROM_END(t));
}

/* v at p, 16-byte aligned where `aligned` says so. */
inline void down_store16(uchar16 v, __global uchar *p, int aligned)
{
    if (aligned)
        *(__global uchar16 *)p = v;
    else
        vstore16(v, 0, p);
}

#if CH == 1 && defined(__ENDIAN_LITTLE__)
/* One channel on little-endian devices: the vertical sums of source
 * elements c .. c + 31, the even ones in *e and the odd ones in *o: the low
 * and high bytes of 16 ushort, no shuffles. */
#define DOWN_PAIRS(r, c)                                                                           \
    (ushort16)(as_ushort8(vload16(0, (r) + (c))), as_ushort8(vload16(0, (r) + (c) + 16)))
inline void down_vsum_pairs(__global const uchar *r0, __global const uchar *r1,
                            __global const uchar *r2, __global const uchar *r3,
                            __global const uchar *r4, int c, ushort16 *e, ushort16 *o)
{
    const ushort16 p0 = DOWN_PAIRS(r0, c), p1 = DOWN_PAIRS(r1, c), p2 = DOWN_PAIRS(r2, c);
    const ushort16 p3 = DOWN_PAIRS(r3, c), p4 = DOWN_PAIRS(r4, c), m = (ushort16)0xff;
    *e = (p0 & m) + (p4 & m) + (((p1 & m) + (p3 & m)) << (ushort16)2) + (p2 & m) * (ushort16)6;
    *o = (p0 >> (ushort16)8) + (p4 >> (ushort16)8) +
         (((p1 >> (ushort16)8) + (p3 >> (ushort16)8)) << (ushort16)2) +
         (p2 >> (ushort16)8) * (ushort16)6;
}

/* The vertical sum of source element c. */
inline ushort down_vsum1(__global const uchar *r0, __global const uchar *r1,
                         __global const uchar *r2, __global const uchar *r3,
                         __global const uchar *r4, int c)
{
    return (ushort)(r0[c] + r4[c] + 4 * (r1[c] + r3[c]) + 6 * r2[c]);
}

/* Steps from x0 while x0 <= xend: outputs x0 .. x0 + 15 from the sums of
 * source elements 2 x0 - 2 .. 2 x0 + 32 (e, o: those of 2 x0 on; lane 15
 * of pe, po: those of 2 x0 - 2 and 2 x0 - 1; ne: those of 2 x0 + 32 on, the
 * next step's e). Reads source elements up to 2 xend + 63. Returns the
 * first x0 past xend. */
inline int down_steps(__global const uchar *r0, __global const uchar *r1, __global const uchar *r2,
                      __global const uchar *r3, __global const uchar *r4, __global uchar *out,
                      int x0, int xend, int aligned)
{
    if (x0 > xend)
        return x0;
    ushort16 e, o, ne, no;
    ushort16 pe = (ushort16)down_vsum1(r0, r1, r2, r3, r4, 2 * x0 - 2);
    ushort16 po = (ushort16)down_vsum1(r0, r1, r2, r3, r4, 2 * x0 - 1);
    down_vsum_pairs(r0, r1, r2, r3, r4, 2 * x0, &e, &o);
    for (; x0 <= xend; x0 += 16) {
        down_vsum_pairs(r0, r1, r2, r3, r4, 2 * x0 + 32, &ne, &no);
        const ushort16 em = (ushort16)(pe.sf, e.s0123, e.s4567, e.s89ab, e.scde);
        const ushort16 om = (ushort16)(po.sf, o.s0123, o.s4567, o.s89ab, o.scde);
        const ushort16 ep = (ushort16)(e.s1234, e.s5678, e.s9abc, e.sdef, ne.s0);
        const ushort16 sum = em + ep + ((om + o) << (ushort16)2) + e * (ushort16)6;
        down_store16(convert_uchar16((sum + (ushort16)128) >> (ushort16)8), out + x0, aligned);
        pe = e;
        po = o;
        e = ne;
        o = no;
    }
    return x0;
}
/* Their last step reads to source pixel 2 x0 + 63. */
#define DOWN_LOOP_END(sw) (((sw)-64) / 2)
#else
/* Steps from x0 while x0 <= xend: w0 holds the sums of source elements
 * from pixel 2 x0 - 2 on; each step computes the next 32 and passes the
 * last 16 on. Reads source pixels up to 2 xend - 3 + DOWN_WINDOW. Returns
 * the first x0 past xend. */
inline int down_steps(__global const uchar *r0, __global const uchar *r1, __global const uchar *r2,
                      __global const uchar *r3, __global const uchar *r4, __global uchar *out,
                      int x0, int xend, int aligned)
{
    if (x0 > xend)
        return x0;
    ushort16 w0 = down_vsum16(r0, r1, r2, r3, r4, (2 * x0 - 2) * CH);
    for (; x0 <= xend; x0 += DOWN_STEP) {
        const int e = (2 * x0 - 2) * CH;
        const ushort16 w1 = down_vsum16(r0, r1, r2, r3, r4, e + 16);
        const ushort16 w2 = down_vsum16(r0, r1, r2, r3, r4, e + 32);
        down_store16(down_h16(w0, w1, w2), out + x0 * CH, aligned);
        w0 = w2;
    }
    return x0;
}
#define DOWN_LOOP_END(sw) (((sw) + 2 - DOWN_WINDOW) / 2)
#endif

__kernel void pyr_down_rows(__global const uchar *src, int src_stride, int sw, int sh,
                            __global uchar *dst, int dst_stride, int dw, int dh, int rows)
{
    const int y0 = get_global_id(0) * rows, y1 = min(dh, y0 + rows);
    /* Steps cover outputs x0 .. x0 + DOWN_STEP - 1 with 1 <= x0 and x0 +
     * DOWN_STEP <= dw; those of the loop read source pixels up to where
     * DOWN_LOOP_END allows (x0 <= xfull), the short ones 2 DOWN_STEP + 3 of
     * them (x0 <= xlast); both inside the row. (Two output rows per pass,
     * sharing three source rows, measured slower on PoCL.) */
    const int xfull = min(dw - DOWN_STEP, DOWN_LOOP_END(sw));
    const int xlast = min(dw - DOWN_STEP, (sw - 1 - 2 * DOWN_STEP) / 2);
    for (int y = y0; y < y1; y++) {
        __global const uchar *r0 = src + (size_t)reflect101(2 * y - 2, sh) * src_stride;
        __global const uchar *r1 = src + (size_t)reflect101(2 * y - 1, sh) * src_stride;
        __global const uchar *r2 = src + (size_t)(2 * y) * src_stride;
        __global const uchar *r3 = src + (size_t)reflect101(2 * y + 1, sh) * src_stride;
        __global const uchar *r4 = src + (size_t)reflect101(2 * y + 2, sh) * src_stride;
        __global uchar *out = dst + (size_t)y * dst_stride;
        if (xlast < 1) {
            for (int x = 0; x < dw; x++)
                VSTORE(down_edge(r0, r1, r2, r3, r4, sw, x), 0, out + x * CH);
            continue;
        }
        VSTORE(down_edge(r0, r1, r2, r3, r4, sw, 0), 0, out);
        vstore16(down_step_short(r0, r1, r2, r3, r4, 0), 0, out + CH);
        /* x0: the first pixel after 1 whose elements start 16-byte aligned
         * in dst, where a pixel can (else DOWN_STEP + 1, stores by vstore16). */
        const uint misalign = (uint)((size_t)(out + CH) % 16);
        const int aligned = misalign % CH == 0;
        int x0 = 1 + (aligned ? (int)((16 - misalign) % 16) / CH : DOWN_STEP);
        x0 = down_steps(r0, r1, r2, r3, r4, out, x0, xfull, aligned);
        /* Short steps up to the last one's start. */
        for (; x0 < xlast; x0 += DOWN_STEP)
            down_store16(down_step_short(r0, r1, r2, r3, r4, (2 * x0 - 2) * CH), out + x0 * CH,
                         aligned);
        vstore16(down_step_short(r0, r1, r2, r3, r4, (2 * xlast - 2) * CH), 0, out + xlast * CH);
        for (int x = xlast + DOWN_STEP; x < dw; x++)
            VSTORE(down_edge(r0, r1, r2, r3, r4, sw, x), 0, out + x * CH);
    }
}
#endif

#if !T_IS_FLOAT && CH == 1
/*
 * GPUs, u8 with one channel: a work-item makes 8 neighbouring outputs of a
 * row from one 16-byte load per source row (its even and odd lanes are the
 * centre taps) and two 2-byte halo loads; a warp reads whole 512-byte row
 * segments. Work-items whose window crosses an edge compute pixel by pixel.
 */
__kernel void pyr_down_vec(__global const uchar *src, int src_stride, int sw, int sh,
                           __global uchar *dst, int dst_stride, int dw, int dh)
{
    const int x0 = get_global_id(0) * 8, y = get_global_id(1);
    if (x0 >= dw || y >= dh)
        return;
    __global uchar *out = dst + (size_t)y * dst_stride + x0;
    if (x0 == 0 || 2 * x0 + 18 > sw || x0 + 8 > dw) {
        for (int i = 0; i < min(8, dw - x0); i++)
            out[i] = down_pixel(src, src_stride, sw, sh, x0 + i, y);
        return;
    }
    ushort2 l = (ushort2)0, r = (ushort2)0; /* columns 2x0 - 2, -1 and 2x0 + 16, 17 */
    ushort16 m = (ushort16)0;               /* columns 2x0 .. 2x0 + 15 */
    const ushort w[5] = {1, 4, 6, 4, 1};
    for (int k = 0; k < 5; k++) {
        __global const uchar *row =
            src + (size_t)reflect101(2 * y - 2 + k, sh) * src_stride + 2 * x0;
        l += convert_ushort2(vload2(0, row - 2)) * w[k];
        m += convert_ushort16(vload16(0, row)) * w[k];
        r += convert_ushort2(vload2(0, row + 16)) * w[k];
    }
    const ushort8 em = (ushort8)(l.s0, m.s024, m.s68ac); /* 2x - 2 */
    const ushort8 om = (ushort8)(l.s1, m.s135, m.s79bd); /* 2x - 1 */
    const ushort8 ep = (ushort8)(m.s246, m.s8ace, r.s0); /* 2x + 2 */
    const ushort8 sum = em + ((om + m.odd) << (ushort8)2) + m.even * (ushort8)6 + ep;
    vstore8(convert_uchar8((sum + (ushort8)128) >> (ushort8)8), 0, out);
}
#endif

#if !T_IS_FLOAT && (CH == 1 || CH == 4)
/*
 * GPUs, u8 with 1 or 4 channels: a work-item makes 4 neighbouring output
 * pixels of `rows` output rows. It walks down the source rows keeping the
 * horizontal sums of the last five in registers, so each source row of its
 * strip is read once (a block of 8 pixels and 3 halo pixels: a warp reads
 * whole row segments) and each output written once; two new source rows
 * per output row. Pixels near the edges reflect through
 * clik_reflect101_near(), columns of outputs past the image clamped to
 * within two of the edge as down_column() does.
 */
#define STRIP_W 4

/* Horizontal sums [1 4 6 4 1] of source row `row` centred on the columns
 * 2 x0 .. 2 x0 + 6 (the strip's 4 outputs). */
inline void strip_hsums(__global const uchar *row, int sw, int x0, acc_t *h)
{
    acc_t p[11]; /* source pixels 2 x0 - 2 .. 2 x0 + 8 */
    const int c = 2 * x0;
    if (c >= 2 && c + 8 < sw) {
#if CH == 1
        const uchar8 m = vload8(0, row + c);
        const uchar2 l = vload2(0, row + c - 2);
        p[0] = l.s0, p[1] = l.s1, p[2] = m.s0, p[3] = m.s1, p[4] = m.s2, p[5] = m.s3;
        p[6] = m.s4, p[7] = m.s5, p[8] = m.s6, p[9] = m.s7, p[10] = row[c + 8];
#else
        const uchar16 a = vload16(0, row + 4 * c), b = vload16(0, row + 4 * c + 16);
        const uchar8 l = vload8(0, row + 4 * c - 8);
        p[0] = convert_uint4(l.lo), p[1] = convert_uint4(l.hi);
        p[2] = convert_uint4(a.s0123), p[3] = convert_uint4(a.s4567);
        p[4] = convert_uint4(a.s89ab), p[5] = convert_uint4(a.scdef);
        p[6] = convert_uint4(b.s0123), p[7] = convert_uint4(b.s4567);
        p[8] = convert_uint4(b.s89ab), p[9] = convert_uint4(b.scdef);
        p[10] = convert_uint4(vload4(0, row + 4 * c + 32));
#endif
    } else {
        for (int i = 0; i < 11; i++)
            p[i] = TO_ACC(VLOAD(0, row + reflect101(clamp(c - 2 + i, -2, sw + 1), sw) * CH));
    }
    for (int j = 0; j < STRIP_W; j++)
        h[j] = down_row(p[2 * j], p[2 * j + 1], p[2 * j + 2], p[2 * j + 3], p[2 * j + 4]);
}

__kernel void pyr_down_strip(__global const uchar *src, int src_stride, int sw, int sh,
                             __global uchar *dst, int dst_stride, int dw, int dh, int rows)
{
    const int x0 = get_global_id(0) * STRIP_W, y0 = get_global_id(1) * rows;
    if (x0 >= dw || y0 >= dh)
        return;
    const int y1 = min(dh, y0 + rows);
    /* h[k]: the sums of source row 2 y - 2 + k for the current output row y. */
    acc_t h[5][STRIP_W];
    for (int k = 0; k < 5; k++)
        strip_hsums(src + (size_t)reflect101(2 * y0 - 2 + k, sh) * src_stride, sw, x0, h[k]);
    for (int y = y0;;) {
        acc_t v[STRIP_W];
        for (int j = 0; j < STRIP_W; j++)
            v[j] = down_row(h[0][j], h[1][j], h[2][j], h[3][j], h[4][j]);
        __global uchar *out = dst + (size_t)y * dst_stride + x0 * CH;
        if (x0 + STRIP_W <= dw) {
#if CH == 1
            vstore4(convert_uchar4(((uint4)(v[0], v[1], v[2], v[3]) + 128u) >> 8u), 0, out);
#else
            vstore16(convert_uchar16(((uint16)(v[0], v[1], v[2], v[3]) + 128u) >> 8u), 0, out);
#endif
        } else {
            for (int j = 0; j < dw - x0; j++)
                VSTORE(DOWN_RESULT(v[j]), 0, out + j * CH);
        }
        if (++y >= y1)
            break;
        for (int j = 0; j < STRIP_W; j++) {
            h[0][j] = h[2][j];
            h[1][j] = h[3][j];
            h[2][j] = h[4][j];
        }
        strip_hsums(src + (size_t)reflect101(2 * y + 1, sh) * src_stride, sw, x0, h[3]);
        strip_hsums(src + (size_t)reflect101(2 * y + 2, sh) * src_stride, sw, x0, h[4]);
    }
}
#endif

/* ---- pyrUp ------------------------------------------------------------------------ */

/*
 * The 2 x 2 outputs (2x, 2y) .. (2x + 1, 2y + 1) of pyrUp from the 3 x 3
 * source pixels around (x, y). On the zero-inserted grid the 5-tap kernel
 * leaves, per axis, weights (1, 6, 1) for an even output and (4, 4) for an
 * odd one. OpenCV reflects on the doubled grid, so the neighbour before the
 * first pixel is pixel 1 and the one after the last pixel is the last pixel.
 */
typedef struct up_block {
    acc_t e_e, o_e, e_o, o_o; /* (x parity)_(y parity) of the output */
} up_block;

inline acc_t up_even(acc_t a, acc_t b, acc_t c)
{
    acc_t s = a;
    s += b * 6;
    s += c;
    return s;
}

inline acc_t up_odd(acc_t b, acc_t c)
{
    acc_t s = b * 4;
    s += c * 4;
    return s;
}

inline up_block up_compute(__global const T *src, int stride, int sw, int sh, int x, int y)
{
    const int xm = x == 0 ? min(1, sw - 1) : x - 1, xp = min(x + 1, sw - 1);
    const int ym = y == 0 ? min(1, sh - 1) : y - 1, yp = min(y + 1, sh - 1);
    /* Vertical first, then horizontal: the oracle's order for float. */
    __global const T *r0 = src + (size_t)ym * stride, *r1 = src + (size_t)y * stride;
    __global const T *r2 = src + (size_t)yp * stride;
    const int cols[3] = {xm * CH, x * CH, xp * CH};
    acc_t v_e[3], v_o[3]; /* even and odd output rows, per source column */
    for (int k = 0; k < 3; k++) {
        const acc_t a = TO_ACC(VLOAD(0, r0 + cols[k])), b = TO_ACC(VLOAD(0, r1 + cols[k]));
        const acc_t c = TO_ACC(VLOAD(0, r2 + cols[k]));
        v_e[k] = up_even(a, b, c);
        v_o[k] = up_odd(b, c);
    }
    up_block u;
    u.e_e = up_even(v_e[0], v_e[1], v_e[2]);
    u.o_e = up_odd(v_e[1], v_e[2]);
    u.e_o = up_even(v_o[0], v_o[1], v_o[2]);
    u.o_o = up_odd(v_o[1], v_o[2]);
    return u;
}

/* Runs STORE(v, X, Y) for the outputs (2x..2x+1, 2y..2y+1) of work-item
 * (x, y) that lie inside dst (dw x dh). */
#define UP_OUTPUTS(STORE)                                                                          \
    do {                                                                                           \
        const int x = get_global_id(0), y = get_global_id(1);                                      \
        if (x >= sw || y >= sh)                                                                    \
            return;                                                                                \
        const up_block u = up_compute(src, src_stride, sw, sh, x, y);                              \
        const int X = 2 * x, Y = 2 * y;                                                            \
        STORE(u.e_e, X, Y);                                                                        \
        if (X + 1 < dw)                                                                            \
            STORE(u.o_e, X + 1, Y);                                                                \
        if (Y + 1 < dh) {                                                                          \
            STORE(u.e_o, X, Y + 1);                                                                \
            if (X + 1 < dw)                                                                        \
                STORE(u.o_o, X + 1, Y + 1);                                                        \
        }                                                                                          \
    } while (0)

/* Pixel (X, Y) of img. */
#define PX(img, X, Y) (img + (size_t)(Y)*img##_stride + (X)*CH)

/* dst = pyrUp(src). */
#define STORE_UP(v, X, Y) VSTORE(UP_RESULT(v), 0, PX(dst, X, Y))
__kernel void pyr_up(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                     int dst_stride, int dw, int dh)
{
    UP_OUTPUTS(STORE_UP);
}

#if CH != 3
/*
 * GPUs: work-item (i, y) makes 16 elements (2 * UPB_NP pixels) of output
 * rows 2y and 2y + 1, those of source pixels [i * UPB_NP, (i + 1) * UPB_NP)
 * of row y, from the vertical sums of the UPB_NP + 2 source columns around
 * them: the sums of up_compute() term for term (its reflection, its order),
 * with a typed load per source pixel (_pix, _a16) and one 16-element store
 * per output row (a uint4 for u8 in _a16); elements outside dst one by one.
 */
#define UPB_NP (8 / CH)

inline pix_t upb_px(__global const T *row, int x, const int a)
{
    return a ? ((__global const pix_t *)row)[x] : VLOAD(x, row);
}

inline void upb_store(__global T *out, __private const T *v, int n, const int a)
{
    if (n == 16) {
#if T_IS_FLOAT
        vstore16(vload16(0, v), 0, out);
#else
        if (a == 2)
            *(__global uint4 *)out = as_uint4(vload16(0, v));
        else
            vstore16(vload16(0, v), 0, out);
#endif
        return;
    }
    for (int e = 0; e < n; e++)
        out[e] = v[e];
}

inline void up_block16(__global const T *src, int src_stride, int sw, int sh, __global T *dst,
                       int dst_stride, int dw, int dh, const int a)
{
    const int x0 = get_global_id(0) * UPB_NP, y = get_global_id(1);
    if (x0 >= sw || y >= sh)
        return;
    const int ym = y == 0 ? min(1, sh - 1) : y - 1, yp = min(y + 1, sh - 1);
    __global const T *r0 = src + (size_t)ym * src_stride, *r1 = src + (size_t)y * src_stride;
    __global const T *r2 = src + (size_t)yp * src_stride;
    acc_t ve[UPB_NP + 2], vo[UPB_NP + 2]; /* columns x0 - 1 .. x0 + UPB_NP */
    for (int p = 0; p < UPB_NP + 2; p++) {
        const int x = x0 - 1 + p < 0 ? min(1, sw - 1) : min(x0 - 1 + p, sw - 1);
        const acc_t b = TO_ACC(upb_px(r1, x, a)), c = TO_ACC(upb_px(r2, x, a));
        ve[p] = up_even(TO_ACC(upb_px(r0, x, a)), b, c);
        vo[p] = up_odd(b, c);
    }
    T even[16], odd[16];
    for (int p = 0; p < UPB_NP; p++) {
        VSTORE(UP_RESULT(up_even(ve[p], ve[p + 1], ve[p + 2])), 2 * p, even);
        VSTORE(UP_RESULT(up_odd(ve[p + 1], ve[p + 2])), 2 * p + 1, even);
        VSTORE(UP_RESULT(up_even(vo[p], vo[p + 1], vo[p + 2])), 2 * p, odd);
        VSTORE(UP_RESULT(up_odd(vo[p + 1], vo[p + 2])), 2 * p + 1, odd);
    }
    const int n = min(16, (dw - 2 * x0) * CH);
    __global T *out = dst + (size_t)(2 * y) * dst_stride + 2 * x0 * CH;
    upb_store(out, even, n, a);
    if (2 * y + 1 < dh)
        upb_store(out + dst_stride, odd, n, a);
}

#define UP_BLOCK_KERNEL(NAME, A)                                                                   \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh)                                             \
    {                                                                                              \
        up_block16(src, src_stride, sw, sh, dst, dst_stride, dw, dh, A);                           \
    }
UP_BLOCK_KERNEL(pyr_up_block_any, 0)
UP_BLOCK_KERNEL(pyr_up_block_pix, 1)
UP_BLOCK_KERNEL(pyr_up_block_a16, 2)
#endif

#if !T_IS_FLOAT
/* CPU devices, u8: pyr_up and the Laplacian steps by rows (up2_rows.h),
 * the weights and borders of up_compute() (OpenCV's reflection on the
 * doubled grid), the rounding of UP_RESULT. */
#define UP2_E0          1
#define UP2_E1          6
#define UP2_E2          1
#define UP2_O1          4
#define UP2_O2          4
#define UP2_PREV(x, n)  ((x) == 0 ? min(1, (n)-1) : (x)-1)
#define UP2_NEXT(x, n)  min((x) + 1, (n)-1)
#define UP2_ROUND(T, s) (((s) + (T)32) >> (T)6)
#include "up2_rows.h"
UP2_ROWS_KERNEL(pyr_up_rows, UP2_DST_PARAMS, UP2_DST16, UP2_DST1)

/* The Laplacian steps by rows (pyr_up_sub_NAME and pyr_up_add_NAME below,
 * the same conversions): band = fine - pyrUp(src) and dst = band +
 * pyrUp(src) saturated, with bands of short (s16) or float (f32). */
#define FINE(Y, E) (fine + (size_t)(Y)*fine_stride + (E))
#define BAND(Y, E) (band + (size_t)(Y)*band_stride + (E))
#define OUT(Y, E)  (dst + (size_t)(Y)*dst_stride + (E))
#define UP2_SUB_s16                                                                                \
    __global const uchar *fine, int fine_stride, __global short *band, int band_stride
#define UP2_SUB_f32                                                                                \
    __global const uchar *fine, int fine_stride, __global float *band, int band_stride
#define UP2_ADD_s16 __global const short *band, int band_stride, __global uchar *dst, int dst_stride
#define UP2_ADD_f32 __global const float *band, int band_stride, __global uchar *dst, int dst_stride
#define SUB16(BT, v, Y, E)                                                                         \
    vstore16(CONVERT(CONCAT(BT, 16), convert_int16(vload16(0, FINE(Y, E))) - convert_int16(v)), 0, \
             BAND(Y, E))
#define SUB1(BT, v, Y, E) (*BAND(Y, E) = (BT)((int)*FINE(Y, E) - (int)(v)))
#define ADD16(v, Y, E)                                                                             \
    vstore16(convert_uchar16_sat(convert_int16(vload16(0, BAND(Y, E))) + convert_int16(v)), 0,     \
             OUT(Y, E))
#define ADD1(v, Y, E)      (*OUT(Y, E) = convert_uchar_sat(convert_int(*BAND(Y, E)) + (int)(v)))
#define SUB16_s16(v, Y, E) SUB16(short, v, Y, E)
#define SUB1_s16(v, Y, E)  SUB1(short, v, Y, E)
#define SUB16_f32(v, Y, E) SUB16(float, v, Y, E)
#define SUB1_f32(v, Y, E)  SUB1(float, v, Y, E)
UP2_ROWS_KERNEL(pyr_up_sub_rows_s16, UP2_SUB_s16, SUB16_s16, SUB1_s16)
UP2_ROWS_KERNEL(pyr_up_sub_rows_f32, UP2_SUB_f32, SUB16_f32, SUB1_f32)
UP2_ROWS_KERNEL(pyr_up_add_rows_s16, UP2_ADD_s16, ADD16, ADD1)
UP2_ROWS_KERNEL(pyr_up_add_rows_f32, UP2_ADD_f32, ADD16, ADD1)
#endif

/* ---- the Laplacian pyramid --------------------------------------------------------- */

/*
 * For bands of type BT, named by suffix NAME:
 *   pyr_up_sub_NAME    band = fine - pyrUp(src), a level of the build;
 *   pyr_up_add_NAME    dst = band + pyrUp(src), a level of the collapse;
 *   pyr_to_band_NAME   band = src (the top of the pyramid);
 *   pyr_from_band_NAME dst = band, saturated to T.
 * For u8 pixels a band holds the exact difference of two u8 images.
 */
#if T_IS_FLOAT
#define SUB_TO(BT, f, up) ((f) - (up))
#define ADD_TO(BT, b, up) ((b) + (up))
#define FROM_BAND(BT, v)  (float)(v)
#else
#define SUB_TO(BT, f, up) CONVERT(VEC(BT), CONVERT(VEC(int), f) - CONVERT(VEC(int), up))
#define ADD_TO(BT, b, up) CONVERT_SAT(VEC(uchar), CONVERT(VEC(int), b) + CONVERT(VEC(int), up))
#define FROM_BAND(BT, v)  convert_uchar_sat_rte(v)
#endif

/* A kernel storing the upsampled src through STORE (UP_OUTPUTS), which
 * reads image `in` (IN_T) and writes image `out` (OUT_T). */
#define UP_KERNEL(NAME, IN_T, in, OUT_T, out, STORE)                                               \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh,                      \
                       __global const IN_T *in, int in##_stride, __global OUT_T *out,              \
                       int out##_stride, int dw, int dh)                                           \
    {                                                                                              \
        UP_OUTPUTS(STORE);                                                                         \
    }

#define BAND_KERNELS(BT, NAME)                                                                     \
    UP_KERNEL(pyr_up_sub_##NAME, T, fine, BT, band, STORE_SUB_##NAME)                              \
    UP_KERNEL(pyr_up_add_##NAME, BT, band, T, dst, STORE_ADD_##NAME)                               \
    __kernel void pyr_to_band_##NAME(__global const T *src, int src_stride, int row_elems,         \
                                     int rows, __global BT *band, int band_stride)                 \
    {                                                                                              \
        const int i = get_global_id(0), r = get_global_id(1);                                      \
        if (i < row_elems && r < rows)                                                             \
            band[(size_t)r * band_stride + i] = (BT)src[(size_t)r * src_stride + i];               \
    }                                                                                              \
    __kernel void pyr_from_band_##NAME(__global const BT *band, int band_stride, int row_elems,    \
                                       int rows, __global T *dst, int dst_stride)                  \
    {                                                                                              \
        const int i = get_global_id(0), r = get_global_id(1);                                      \
        if (i < row_elems && r < rows)                                                             \
            dst[(size_t)r * dst_stride + i] = FROM_BAND(BT, band[(size_t)r * band_stride + i]);    \
    }

#define STORE_SUB_f32(v, X, Y)                                                                     \
    VSTORE(SUB_TO(float, VLOAD(0, PX(fine, X, Y)), UP_RESULT(v)), 0, PX(band, X, Y))
#define STORE_ADD_f32(v, X, Y)                                                                     \
    VSTORE(ADD_TO(float, VLOAD(0, PX(band, X, Y)), UP_RESULT(v)), 0, PX(dst, X, Y))
BAND_KERNELS(float, f32)

#if !T_IS_FLOAT
#define STORE_SUB_s16(v, X, Y)                                                                     \
    VSTORE(SUB_TO(short, VLOAD(0, PX(fine, X, Y)), UP_RESULT(v)), 0, PX(band, X, Y))
#define STORE_ADD_s16(v, X, Y)                                                                     \
    VSTORE(ADD_TO(short, VLOAD(0, PX(band, X, Y)), UP_RESULT(v)), 0, PX(dst, X, Y))
BAND_KERNELS(short, s16)
#endif

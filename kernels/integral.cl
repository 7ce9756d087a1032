/*
 * Integral images, OpenCV layout: sum is (W + 1) x (H + 1), row 0 and
 * column 0 zero, sum(X, Y) = sum of src(x, y) over x < X, y < Y.
 *
 * The image is cut into strips of R rows. Three kernels:
 *   integral_strips  per strip, S(X) = the strip's contribution to every
 *                    column prefix: column sums over its rows, then a scan
 *                    along the row (work-efficient up-sweep / down-sweep in
 *                    local memory, seed 001 section V-C);
 *   integral_carry   per column, an exclusive scan of S over the strips:
 *                    then S(s, X) = sum(X, first row of strip s) (the last
 *                    strip's S is not needed, so not computed);
 *   integral_rows    per strip, row by row: the row's prefix added to the
 *                    running column sums, written out.
 * The input is read twice, the output written once. Work-items own K
 * neighbouring pixels of a row (serial prefix in registers, then one
 * work-group scan of the work-item totals); with CPU_SERIAL a single
 * work-item walks a whole strip instead.
 *
 * Build options: ST source element (uchar, float); ACC accumulation and SUM
 * storage types (uint/uint, ulong/ulong, double/double, double or float /
 * float); SQ (ulong or double) with SQSUM for sums of squares; CH channels;
 * K pixels per work-item; LS work-group size (a power of two); CPU_SERIAL;
 * VEC_ROWS (with CPU_SERIAL, u8 sources only): 16-element vector steps;
 * STAGE (work-group kernels without SQSUM): rows staged in local memory so
 * that global accesses are coalesced.
 * Element indices and strides count elements of their buffer's type.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#if NEED_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef VEC(ACC) accv;
#define TO_ACC(v) CONVERT(VEC(ACC), v)
#define TO_SUM(v) CONVERT(VEC(SUM), v)
#if SQSUM
typedef VEC(SQ) sqv;
#define TO_SQ(v)      CONVERT(VEC(SQ), v)
#define SQ_ONLY(stmt) stmt /* a statement about the sums of squares */
#else
#define SQ_ONLY(stmt)
#endif

/* ---- 16-element steps of the CPU kernels (VEC_ROWS: u8 source, exact sums) -------- */

#if VEC_ROWS
/* Inclusive prefix over the 16 / CH pixels of 16 elements, in log steps of
 * whole pixels; LAST16 repeats the last pixel, LAST the last pixel. */
/* Shifts by 1, 2, 4, 8 elements towards the end, zeros in front (swizzles
 * have 1, 2, 3, 4, 8 or 16 components, hence the pieces). */
#define SH1(T, v) ((CONCAT(T, 16))((T)0, (v).s012, (v).s3456, (v).s789abcde))
#define SH2(T, v) ((CONCAT(T, 16))((CONCAT(T, 2))0, (v).s0123, (v).s456789ab, (v).scd))
#define SH4(T, v) ((CONCAT(T, 16))((CONCAT(T, 4))0, (v).s01234567, (v).s89ab))
#define SH8(T, v) ((CONCAT(T, 16))((CONCAT(T, 8))0, (v).s01234567))
#if CH == 1
#define PREFIX16(T, v) (v += SH1(T, v), v += SH2(T, v), v += SH4(T, v), v += SH8(T, v))
#define LAST16(v)      ((v).sffffffffffffffff)
#define LAST(v)        ((v).sf)
#elif CH == 2
#define PREFIX16(T, v) (v += SH2(T, v), v += SH4(T, v), v += SH8(T, v))
#define LAST16(v)      ((v).sefefefefefefefef)
#define LAST(v)        ((v).sef)
#else
#define PREFIX16(T, v) (v += SH4(T, v), v += SH8(T, v))
#define LAST16(v)      ((v).scdefcdefcdefcdef)
#define LAST(v)        ((v).scdef)
#endif
typedef CONCAT(ACC, 16) acc16;
typedef CONCAT(SUM, 16) sum16;
#define TO_ACC16(v) CONVERT(CONCAT(ACC, 16), v)
#define TO_SUM16(v) CONVERT(CONCAT(SUM, 16), v)
#if SQSUM
typedef CONCAT(SQ, 16) sq16;
#define TO_SQ16(v) CONVERT(CONCAT(SQ, 16), v)
#endif
#endif

/* ---- work-group exclusive scan (Blelloch) ---------------------------------------- */

#ifndef CPU_SERIAL
/* Exclusive prefix of v over the work-group's LS work-items; buf holds LS
 * values. The sums of squares, when kept, ride the same barriers. */
#if SQSUM
#define SCAN_ARGS accv v, __local accv *buf, sqv q, __local sqv *qbuf, sqv *q_out
#else
#define SCAN_ARGS accv v, __local accv *buf
#endif

inline accv wg_exclusive_scan(SCAN_ARGS)
{
    const int lid = get_local_id(0);
    buf[lid] = v;
    SQ_ONLY(qbuf[lid] = q);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < LS; d <<= 1) { /* up-sweep: partial sums in a tree */
        const int i = (lid + 1) * 2 * d - 1;
        if (i < LS) {
            buf[i] += buf[i - d];
            SQ_ONLY(qbuf[i] += qbuf[i - d]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        buf[LS - 1] = (accv)0;
        SQ_ONLY(qbuf[LS - 1] = (sqv)0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = LS / 2; d >= 1; d >>= 1) { /* down-sweep: prefixes back down */
        const int i = (lid + 1) * 2 * d - 1;
        if (i < LS) {
            const accv t = buf[i - d];
            buf[i - d] = buf[i];
            buf[i] += t;
            SQ_ONLY(const sqv tq = qbuf[i - d]; qbuf[i - d] = qbuf[i]; qbuf[i] += tq);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const accv r = buf[lid];
    SQ_ONLY(*q_out = qbuf[lid]);
    barrier(CLK_LOCAL_MEM_FENCE); /* the buffers are reused by the next scan */
    return r;
}

/* A work-item's K pixels become their prefix (serial), and the result is
 * the exclusive prefix of the work-item totals over the work-group. */
#if SQSUM
#define PREFIX_ARGS       accv *p, __local accv *buf, sqv *q, __local sqv *qbuf, sqv *q_out
#define PREFIX_SCAN(p, q) prefix_and_scan(p, buf, q, qbuf, &qoff)
#else
#define PREFIX_ARGS       accv *p, __local accv *buf
#define PREFIX_SCAN(p, q) prefix_and_scan(p, buf)
#endif

inline accv prefix_and_scan(PREFIX_ARGS)
{
    for (int k = 1; k < K; k++) {
        p[k] += p[k - 1];
        SQ_ONLY(q[k] += q[k - 1]);
    }
#if SQSUM
    return wg_exclusive_scan(p[K - 1], buf, q[K - 1], qbuf, q_out);
#else
    return wg_exclusive_scan(p[K - 1], buf);
#endif
}
#endif

/* ---- kernel 1: the strips' contributions ------------------------------------------- */

#if defined(CPU_SERIAL) && VEC_ROWS
/* One work-item per strip, a row at a time: column sums in 16-element
 * vectors into the strip's row of S, then the prefix along it. */
__kernel void integral_strips(__global const ST *src, int src_stride, int w, int h, int rows,
                              __global ACC *strips
#if SQSUM
                              ,
                              __global SQ *sqstrips
#endif
)
{
    const int s = get_global_id(0), y0 = s * rows, y1 = min(h, y0 + rows), n = w * CH;
    if (y0 >= h)
        return;
    __global ACC *out = strips + s * (w + 1) * CH;
#if SQSUM
    __global SQ *qout = sqstrips + s * (w + 1) * CH;
#endif
    /* Column sums, 64 columns at a time down the strip, in registers: 16-bit
     * lanes for up to 256 rows, then widened (squares: 32-bit lanes). */
    const int n64 = n / 64 * 64, nv = n / 16 * 16;
    for (int e = 0; e < n64; e += 64) {
        acc16 t[4] = {(acc16)0, (acc16)0, (acc16)0, (acc16)0};
#if SQSUM
        sq16 tq[4] = {(sq16)0, (sq16)0, (sq16)0, (sq16)0};
#endif
        for (int yb = y0; yb < y1; yb += 256) {
            ushort16 u0 = (ushort16)0, u1 = (ushort16)0, u2 = (ushort16)0, u3 = (ushort16)0;
#if SQSUM
            uint16 q0 = (uint16)0, q1 = (uint16)0, q2 = (uint16)0, q3 = (uint16)0;
#endif
            for (int y = yb; y < min(y1, yb + 256); y++) {
                __global const ST *in = src + y * src_stride + e;
                const ushort16 p0 = convert_ushort16(vload16(0, in));
                const ushort16 p1 = convert_ushort16(vload16(1, in));
                const ushort16 p2 = convert_ushort16(vload16(2, in));
                const ushort16 p3 = convert_ushort16(vload16(3, in));
                u0 += p0;
                u1 += p1;
                u2 += p2;
                u3 += p3;
#if SQSUM
                q0 += convert_uint16(p0 * p0);
                q1 += convert_uint16(p1 * p1);
                q2 += convert_uint16(p2 * p2);
                q3 += convert_uint16(p3 * p3);
#endif
            }
            t[0] += TO_ACC16(u0);
            t[1] += TO_ACC16(u1);
            t[2] += TO_ACC16(u2);
            t[3] += TO_ACC16(u3);
#if SQSUM
            tq[0] += TO_SQ16(q0);
            tq[1] += TO_SQ16(q1);
            tq[2] += TO_SQ16(q2);
            tq[3] += TO_SQ16(q3);
#endif
        }
        for (int i = 0; i < 4; i++) {
            vstore16(t[i], 0, out + CH + e + 16 * i);
#if SQSUM
            vstore16(tq[i], 0, qout + CH + e + 16 * i);
#endif
        }
    }
    /* Column 0 and the columns past the last block start from zero. */
    for (int e = 0; e < CH; e++) {
        out[e] = 0;
        SQ_ONLY(qout[e] = 0);
    }
    for (int e = n64; e < n; e++) {
        out[CH + e] = 0;
        SQ_ONLY(qout[CH + e] = 0);
    }
    for (int y = y0; y < y1; y++) {
        __global const ST *in = src + y * src_stride;
        for (int e = n64; e < n; e++) {
            out[CH + e] += (ACC)in[e];
#if SQSUM
            qout[CH + e] += (SQ)in[e] * (SQ)in[e];
#endif
        }
    }
    /* The prefix along the row, pixel by pixel per channel. */
    acc16 carry = (acc16)0;
#if SQSUM
    sq16 qcarry = (sq16)0;
#endif
    for (int e = 0; e < nv; e += 16) {
        acc16 v = vload16(0, out + CH + e);
        PREFIX16(ACC, v);
        v += carry;
        carry = LAST16(v);
        vstore16(v, 0, out + CH + e);
#if SQSUM
        sq16 q = vload16(0, qout + CH + e);
        PREFIX16(SQ, q);
        q += qcarry;
        qcarry = LAST16(q);
        vstore16(q, 0, qout + CH + e);
#endif
    }
    for (int e = nv; e < n; e++) {
        out[CH + e] += out[e];
#if SQSUM
        qout[CH + e] += qout[e];
#endif
    }
}
#elif defined(CPU_SERIAL)
/* One work-item per strip; S is written as the prefix along the row. */
__kernel void integral_strips(__global const ST *src, int src_stride, int w, int h, int rows,
                              __global ACC *strips
#if SQSUM
                              ,
                              __global SQ *sqstrips
#endif
)
{
    const int s = get_global_id(0), y0 = s * rows, y1 = min(h, y0 + rows);
    if (y0 >= h)
        return;
    __global ACC *out = strips + s * (w + 1) * CH;
    accv run = (accv)0;
    VSTORE(run, 0, out);
#if SQSUM
    __global SQ *qout = sqstrips + s * (w + 1) * CH;
    sqv qrun = (sqv)0;
    VSTORE(qrun, 0, qout);
#endif
    for (int x = 0; x < w; x++) {
        accv col = (accv)0;
#if SQSUM
        sqv qcol = (sqv)0;
#endif
        for (int y = y0; y < y1; y++) {
            const accv v = TO_ACC(VLOAD(x, src + y * src_stride));
            col += v;
#if SQSUM
            const sqv sv = TO_SQ(VLOAD(x, src + y * src_stride));
            qcol += sv * sv;
#endif
        }
        run += col;
        VSTORE(run, x + 1, out);
#if SQSUM
        qrun += qcol;
        VSTORE(qrun, x + 1, qout);
#endif
    }
}
#else
__kernel void integral_strips(__global const ST *src, int src_stride, int w, int h, int rows,
                              __global ACC *strips
#if SQSUM
                              ,
                              __global SQ *sqstrips
#endif
)
{
    __local accv buf[LS];
    const int s = get_group_id(1), lid = get_local_id(0);
    const int y0 = s * rows, y1 = min(h, y0 + rows), x0 = lid * K;
    accv p[K];
#if SQSUM
    __local sqv qbuf[LS];
    sqv q[K];
#endif
    /* Column sums of this work-item's K pixels over the strip's rows. */
    for (int k = 0; k < K; k++) {
        p[k] = (accv)0;
#if SQSUM
        q[k] = (sqv)0;
#endif
    }
#if STAGE
    /* Coalesced: work-item lid sums the elements lid, lid + LS, ... of each
     * row; the sums meet in local memory, where each work-item then takes
     * its K neighbouring pixels. */
    __local ACC tile[LS * K * CH];
    {
        ACC c[K * CH];
        for (int j = 0; j < K * CH; j++)
            c[j] = 0;
        for (int y = y0; y < y1; y++) {
            __global const ST *in = src + y * src_stride;
            for (int j = 0; j < K * CH; j++) {
                const int e = j * LS + lid;
                if (e < w * CH)
                    c[j] += (ACC)in[e];
            }
        }
        for (int j = 0; j < K * CH; j++)
            tile[j * LS + lid] = c[j];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < K; k++)
            p[k] = VLOAD(x0 + k, tile);
    }
#else
    for (int y = y0; y < y1; y++)
        for (int k = 0; k < K; k++)
            if (x0 + k < w) {
                p[k] += TO_ACC(VLOAD(x0 + k, src + y * src_stride));
#if SQSUM
                const sqv sv = TO_SQ(VLOAD(x0 + k, src + y * src_stride));
                q[k] += sv * sv;
#endif
            }
#endif
    /* Prefix along the row: serial over K, then across work-items. */
    SQ_ONLY(sqv qoff);
    const accv off = PREFIX_SCAN(p, q);
    __global ACC *out = strips + s * (w + 1) * CH;
    if (lid == 0)
        VSTORE((accv)0, 0, out);
    for (int k = 0; k < K; k++)
        if (x0 + k < w)
            VSTORE(off + p[k], x0 + k + 1, out);
#if SQSUM
    __global SQ *qout = sqstrips + s * (w + 1) * CH;
    if (lid == 0)
        VSTORE((sqv)0, 0, qout);
    for (int k = 0; k < K; k++)
        if (x0 + k < w)
            VSTORE(qoff + q[k], x0 + k + 1, qout);
#endif
}
#endif

/* ---- kernel 2: carries down the columns --------------------------------------------- */

/* Work-item X: the strips' column prefixes become exclusive sums over the
 * strips above (n elements per strip row). */
__kernel void integral_carry(__global ACC *strips, int n, int nstrips
#if SQSUM
                             ,
                             __global SQ *sqstrips
#endif
)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    /* The last strip's contribution reaches no strip below it: it was never
     * computed, and row nstrips - 1 only receives its carries. Eight loads
     * in flight before the stores: the walk down the strips is bound by
     * memory latency, not bandwidth. */
    const int last = nstrips - 1;
    ACC run = 0;
    int s = 0;
    for (; s + 8 <= last; s += 8) {
        ACC t[8];
        for (int j = 0; j < 8; j++)
            t[j] = strips[(s + j) * n + i];
        for (int j = 0; j < 8; j++) {
            strips[(s + j) * n + i] = run;
            run += t[j];
        }
    }
    for (; s < last; s++) {
        const ACC t = strips[s * n + i];
        strips[s * n + i] = run;
        run += t;
    }
    strips[last * n + i] = run;
#if SQSUM
    SQ qrun = 0;
    for (s = 0; s < last; s++) {
        const SQ t = sqstrips[s * n + i];
        sqstrips[s * n + i] = qrun;
        qrun += t;
    }
    sqstrips[last * n + i] = qrun;
#endif
}

/* ---- kernel 3: the rows ---------------------------------------------------------------- */

#if SQSUM
#define SQ_ROWS_ARGS , __global SQ *sqstrips, __global SQ *sq, int sq_stride
#else
#define SQ_ROWS_ARGS
#endif

#if defined(CPU_SERIAL) && VEC_ROWS
/* One work-item per strip, 16 elements a step: each output row is the row
 * above it (for the strip's first row, its carries) plus the row's prefix
 * (log steps in 16-bit lanes, then widened). */
__kernel void integral_rows(__global const ST *src, int src_stride, int w, int h, int rows,
                            __global ACC *strips, __global SUM *sum, int sum_stride SQ_ROWS_ARGS)
{
    const int s = get_global_id(0), y0 = s * rows, y1 = min(h, y0 + rows), n = w * CH;
    if (y0 >= h)
        return;
    const int nv = n / 16 * 16;
    if (s == 0)
        for (int e = 0; e < n + CH; e++) {
            sum[e] = 0;
#if SQSUM
            sq[e] = 0;
#endif
        }
    for (int y = y0; y < y1; y++) {
        __global const ST *in = src + y * src_stride;
        __global SUM *out = sum + (y + 1) * sum_stride;
        /* The sums of the rows above: exact in SUM (integers), or the
         * strip's carries in ACC. */
        __global const SUM *above = out - sum_stride;
        __global const ACC *carries = strips + s * (w + 1) * CH;
        const int first = y == y0;
        for (int c = 0; c < CH; c++)
            out[c] = 0;
        acc16 carry = (acc16)0;
#if SQSUM
        __global SQ *qo = sq + (y + 1) * sq_stride;
        __global const SQ *qabove = qo - sq_stride;
        __global const SQ *qcarries = sqstrips + s * (w + 1) * CH;
        for (int c = 0; c < CH; c++)
            qo[c] = 0;
        sq16 qcarry = (sq16)0;
#endif
        for (int e = 0; e < nv; e += 16) {
            const uchar16 px = vload16(0, in + e);
            /* The prefix of 16 bytes fits 16-bit lanes: half the shuffle width. */
            ushort16 p16 = convert_ushort16(px);
            PREFIX16(ushort, p16);
            const acc16 v = TO_ACC16(p16) + carry;
            carry = LAST16(v);
            const acc16 up =
                first ? vload16(0, carries + CH + e) : TO_ACC16(vload16(0, above + CH + e));
            vstore16(TO_SUM16(up + v), 0, out + CH + e);
#if SQSUM
            uint16 q32 = convert_uint16(px);
            q32 *= q32;
            PREFIX16(uint, q32);
            const sq16 q = TO_SQ16(q32) + qcarry;
            qcarry = LAST16(q);
            const sq16 qup = vload16(0, (first ? qcarries : qabove) + CH + e);
            vstore16(qup + q, 0, qo + CH + e);
#endif
        }
        accv run = LAST(carry);
#if SQSUM
        sqv qrun = LAST(qcarry);
#endif
        for (int x = nv / CH; x < w; x++) {
            run += TO_ACC(VLOAD(x, in));
            const accv up = first ? VLOAD(x + 1, carries) : TO_ACC(VLOAD(x + 1, above));
            VSTORE(TO_SUM(up + run), x + 1, out);
#if SQSUM
            const sqv sv = TO_SQ(VLOAD(x, in));
            qrun += sv * sv;
            VSTORE(VLOAD(x + 1, first ? qcarries : qabove) + qrun, x + 1, qo);
#endif
        }
    }
}
#elif defined(CPU_SERIAL)
/* One work-item per strip; the strip's row of carries is its running sum. */
__kernel void integral_rows(__global const ST *src, int src_stride, int w, int h, int rows,
                            __global ACC *strips, __global SUM *sum, int sum_stride SQ_ROWS_ARGS)
{
    const int s = get_global_id(0), y0 = s * rows, y1 = min(h, y0 + rows);
    if (y0 >= h)
        return;
    __global ACC *acc = strips + s * (w + 1) * CH;
#if SQSUM
    __global SQ *qacc = sqstrips + s * (w + 1) * CH;
#endif
    if (s == 0)
        for (int x = 0; x <= w; x++) {
            VSTORE((VEC(SUM))0, x, sum);
#if SQSUM
            VSTORE((sqv)0, x, sq);
#endif
        }
    for (int y = y0; y < y1; y++) {
        __global const ST *in = src + y * src_stride;
        __global SUM *out = sum + (y + 1) * sum_stride;
        accv run = (accv)0;
        VSTORE((VEC(SUM))0, 0, out);
#if SQSUM
        __global SQ *qo = sq + (y + 1) * sq_stride;
        sqv qrun = (sqv)0;
        VSTORE((sqv)0, 0, qo);
#endif
        for (int x = 0; x < w; x++) {
            run += TO_ACC(VLOAD(x, in));
            const accv a = VLOAD(x + 1, acc) + run;
            VSTORE(a, x + 1, acc);
            VSTORE(TO_SUM(a), x + 1, out);
#if SQSUM
            const sqv sv = TO_SQ(VLOAD(x, in));
            qrun += sv * sv;
            const sqv qa = VLOAD(x + 1, qacc) + qrun;
            VSTORE(qa, x + 1, qacc);
            VSTORE(qa, x + 1, qo);
#endif
        }
    }
}
#else
__kernel void integral_rows(__global const ST *src, int src_stride, int w, int h, int rows,
                            __global ACC *strips, __global SUM *sum, int sum_stride SQ_ROWS_ARGS)
{
    __local accv buf[LS];
    const int s = get_group_id(1), lid = get_local_id(0);
    const int y0 = s * rows, y1 = min(h, y0 + rows), x0 = lid * K;
    __global const ACC *carry = strips + s * (w + 1) * CH;
    accv acc[K]; /* sum(x + 1, y) of this work-item's pixels, row after row */
    for (int k = 0; k < K; k++)
        acc[k] = x0 + k < w ? VLOAD(x0 + k + 1, carry) : (accv)0;
#if SQSUM
    __local sqv qbuf[LS];
    __global const SQ *qcarry = sqstrips + s * (w + 1) * CH;
    sqv qacc[K];
    for (int k = 0; k < K; k++)
        qacc[k] = x0 + k < w ? VLOAD(x0 + k + 1, qcarry) : (sqv)0;
#endif
    if (s == 0) { /* row 0 of the output */
        for (int k = 0; k < K; k++)
            if (x0 + k < w) {
                VSTORE((VEC(SUM))0, x0 + k + 1, sum);
#if SQSUM
                VSTORE((sqv)0, x0 + k + 1, sq);
#endif
            }
        if (lid == 0) {
            VSTORE((VEC(SUM))0, 0, sum);
#if SQSUM
            VSTORE((sqv)0, 0, sq);
#endif
        }
    }
#if STAGE
    /* Rows pass through local memory both ways, so that global loads and
     * stores are coalesced (work-item lid touches elements lid, lid + LS, ...). */
    __local ST in_tile[LS * K * CH];
    __local SUM out_tile[LS * K * CH];
#endif
    for (int y = y0; y < y1; y++) { /* every work-item takes part: barriers */
        __global const ST *in = src + y * src_stride;
        accv p[K];
#if SQSUM
        sqv q[K];
#endif
#if STAGE
        for (int j = 0; j < K * CH; j++) {
            const int e = j * LS + lid;
            in_tile[e] = e < w * CH ? in[e] : (ST)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < K; k++)
            p[k] = TO_ACC(VLOAD(x0 + k, in_tile)); /* zeros past the row */
#else
        for (int k = 0; k < K; k++) {
            const int x = x0 + k < w ? x0 + k : w - 1;
            p[k] = x0 + k < w ? TO_ACC(VLOAD(x, in)) : (accv)0;
#if SQSUM
            const sqv sv = TO_SQ(VLOAD(x, in));
            q[k] = x0 + k < w ? sv * sv : (sqv)0;
#endif
        }
#endif
        SQ_ONLY(sqv qoff);
        const accv off = PREFIX_SCAN(p, q);
        __global SUM *out = sum + (y + 1) * sum_stride;
        if (lid == 0)
            VSTORE((VEC(SUM))0, 0, out);
#if STAGE
        for (int k = 0; k < K; k++) {
            acc[k] += off + p[k];
            VSTORE(TO_SUM(acc[k]), x0 + k, out_tile);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < K * CH; j++) {
            const int e = j * LS + lid;
            if (e < w * CH)
                out[CH + e] = out_tile[e];
        }
        /* The tiles are rewritten only after the next row's scan barriers. */
#else
        for (int k = 0; k < K; k++) {
            acc[k] += off + p[k];
            if (x0 + k < w)
                VSTORE(TO_SUM(acc[k]), x0 + k + 1, out);
        }
#endif
#if SQSUM
        __global SQ *qo = sq + (y + 1) * sq_stride;
        if (lid == 0)
            VSTORE((sqv)0, 0, qo);
        for (int k = 0; k < K; k++) {
            qacc[k] += qoff + q[k];
            if (x0 + k < w)
                VSTORE(qacc[k], x0 + k + 1, qo);
        }
#endif
    }
}
#endif

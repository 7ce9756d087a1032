/*
 * Integral images, OpenCV layout: sum is (W + 1) x (H + 1), row 0 and
 * column 0 zero, sum(X, Y) = sum of src(x, y) over x < X, y < Y.
 *
 * The image is cut into strips of R rows. Three kernels:
 *   integral_strips  per strip, S(X) = the strip's contribution to every
 *                    column prefix: column sums over its rows, then a scan
 *                    along the row (work-efficient up-sweep / down-sweep in
 *                    local memory, Wang et al. (EgpuIP), section V-C);
 *   integral_carry   per column, an exclusive scan of S over the strips:
 *                    then S(s, X) = sum(X, first row of strip s) (the last
 *                    strip's S is not needed, so not computed);
 *   integral_rows    per strip, row by row: the row's prefix added to the
 *                    running column sums, written out.
 * The input is read twice, the output written once. With LOOKBACK, one
 * kernel instead (integral_lookback, after integral_zero): bands of R rows
 * in the order of an atomic ticket, each publishing its contribution and
 * taking the earlier bands' sums by decoupled look-back, then writing its
 * rows; no strips, no carry pass. Work-items own K
 * neighbouring pixels of a row (serial prefix in registers, then one
 * work-group scan of the work-item totals); with CPU_SERIAL a single
 * work-item walks a whole strip instead.
 *
 * Build options: ST source element (uchar, float); ACC accumulation and SUM
 * storage types (uint/uint, ulong/ulong, double/double, double/float); SQ
 * accumulation and SQO storage types (ulong or double) with SQSUM for sums
 * of squares; CH channels; K pixels per work-item; LS work-group size (a
 * power of two); CPU_SERIAL; VEC_ROWS (with CPU_SERIAL, u8 sources only):
 * 16-element vector steps; STAGE (work-group kernels without ACC_FF or
 * SQ_FF): rows staged in local memory so that global accesses are
 * coalesced, KC of each work-item's K pixels at a time (KC a power of two
 * dividing K; the tiles hold LS * KC pixels, so that rows of any width
 * stage within a device's local memory); LOOKBACK (work-group kernels, exact or double sums) with
 * ACC_W, the 32-bit words of an ACC.
 * Devices without cl_khr_fp64 (NEED_FP64 0: no double in the program):
 * ACC_FF / SQ_FF, f32 pixels add in float-float pairs (ACC / SQ float2:
 * the high and low floats of each element of the strips); SUM_BITS /
 * SQ_BITS, f64 results are stored as binary64 bit patterns (SUM / SQO
 * ulong), made with integer operations from ulong sums (u8 pixels) or from
 * the pairs.
 * Element indices and strides count elements of their buffer's type; row
 * and strip starts are 64-bit products ((size_t)y * stride, once per row or
 * stepped as pointers), indices within a row int (a row has at most
 * (2^20 + 1) * 4 elements).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#if NEED_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef ACC_FF
#define ACC_FF 0
#endif
#ifndef SUM_BITS
#define SUM_BITS 0
#endif
#ifndef SQ_FF
#define SQ_FF 0
#endif
#ifndef SQ_BITS
#define SQ_BITS 0
#endif
#ifndef SQO
#define SQO SQ
#endif
#if (SQ_FF && !SQ_BITS) || (STAGE && (ACC_FF || (SQSUM && SQ_FF))) || (VEC_ROWS && ACC_FF)
#error "float-float sums: f32 or binary64-bit results of the unstaged kernels"
#endif

/* The sums' representations and arithmetic: binary64 bit patterns from
 * integers, float-float sums, the ACC and SQ types and their operations. */
#include "integral_sums.h"

/* Strip s's row of S in strips (or sqstrips): w + 1 pixels of CH elements. */
#define STRIP_ROW(strips, s, w) ((strips) + (size_t)(s) * (((w) + 1) * CH))

/* A work-group kernel's strip row (row) and a work-item's K pixels v[] of
 * it, pixel x0 + k at index x0 + k + 1; STORE, LOAD and ZERO those of ACC
 * or SQ. Stored: pixels inside the image, and column 0's zero by the first
 * work-item. Loaded: zero past the image. */
#define STORE_STRIP(STORE, ZERO, v, row)                                                           \
    do {                                                                                           \
        if (lid == 0)                                                                              \
            STORE(ZERO, 0, row);                                                                   \
        for (int k = 0; k < K; k++)                                                                \
            if (x0 + k < w)                                                                        \
                STORE(v[k], x0 + k + 1, row);                                                      \
    } while (0)
#define LOAD_STRIP(LOAD, ZERO, v, row)                                                             \
    do {                                                                                           \
        for (int k = 0; k < K; k++) {                                                              \
            v[k] = ZERO;                                                                           \
            if (x0 + k < w)                                                                        \
                v[k] = LOAD(x0 + k + 1, row);                                                      \
        }                                                                                          \
    } while (0)

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
#define TO_ACC16(v) CONVERT(CONCAT(ACC, 16), v)
#if SUM_BITS
#define TO_SUM16(v)   u64_bits16(v)
#define FROM_SUM16(v) bits_u64_16(v)
#else
#define TO_SUM16(v)   CONVERT(CONCAT(SUM, 16), v)
#define FROM_SUM16(v) TO_ACC16(v)
#endif
#if SQSUM
typedef CONCAT(SQ, 16) sq16;
#define TO_SQ16(v) CONVERT(CONCAT(SQ, 16), v)
#if SQ_BITS
#define TO_SQO16(v)   u64_bits16(v)
#define FROM_SQO16(v) bits_u64_16(v)
#else
#define TO_SQO16(v)   (v)
#define FROM_SQO16(v) (v)
#endif
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
            buf[i] = ACC_ADD(buf[i], buf[i - d]);
            SQ_ONLY(qbuf[i] = SQ_ADD(qbuf[i], qbuf[i - d]));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        buf[LS - 1] = ACC_ZERO;
        SQ_ONLY(qbuf[LS - 1] = SQ_ZERO);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = LS / 2; d >= 1; d >>= 1) { /* down-sweep: prefixes back down */
        const int i = (lid + 1) * 2 * d - 1;
        if (i < LS) {
            const accv t = buf[i - d];
            buf[i - d] = buf[i];
            buf[i] = ACC_ADD(buf[i], t);
            SQ_ONLY(const sqv tq = qbuf[i - d]; qbuf[i - d] = qbuf[i];
                    qbuf[i] = SQ_ADD(qbuf[i], tq));
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
        p[k] = ACC_ADD(p[k], p[k - 1]);
        SQ_ONLY(q[k] = SQ_ADD(q[k], q[k - 1]));
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
    __global ACC *out = STRIP_ROW(strips, s, w);
    SQ_ONLY(__global SQ *qout = STRIP_ROW(sqstrips, s, w));
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
            __global const ST *in = src + (size_t)yb * src_stride + e;
            for (int y = yb; y < min(y1, yb + 256); y++, in += src_stride) {
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
            SQ_ONLY(vstore16(tq[i], 0, qout + CH + e + 16 * i));
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
        __global const ST *in = src + (size_t)y * src_stride;
        for (int e = n64; e < n; e++) {
            out[CH + e] += (ACC)in[e];
            SQ_ONLY(qout[CH + e] += (SQ)in[e] * (SQ)in[e]);
        }
    }
    /* The prefix along the row, pixel by pixel per channel. */
    acc16 carry = (acc16)0;
    SQ_ONLY(sq16 qcarry = (sq16)0);
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
        SQ_ONLY(qout[CH + e] += qout[e]);
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
    __global ACC *out = STRIP_ROW(strips, s, w);
    accv run = ACC_ZERO;
    ACC_STORE(run, 0, out);
#if SQSUM
    __global SQ *qout = STRIP_ROW(sqstrips, s, w);
    sqv qrun = SQ_ZERO;
    SQ_STORE(qrun, 0, qout);
#endif
    __global const ST *top = src + (size_t)y0 * src_stride; /* the strip's first row */
    for (int x = 0; x < w; x++) {
        accv col = ACC_ZERO;
        SQ_ONLY(sqv qcol = SQ_ZERO);
        __global const ST *in = top;
        for (int y = y0; y < y1; y++, in += src_stride) {
            const VEC(ST) px = VLOAD(x, in);
            col = ACC_ADD(col, ACC_SRC(px));
            SQ_ONLY(qcol = SQ_ADD(qcol, SQ_SQUARE(px)));
        }
        run = ACC_ADD(run, col);
        ACC_STORE(run, x + 1, out);
#if SQSUM
        qrun = SQ_ADD(qrun, qcol);
        SQ_STORE(qrun, x + 1, qout);
#endif
    }
}
#else
/* Local memory of the work-group kernels, declared by each kernel (OpenCL C
 * 1.2 allows __local variables at kernel scope only) and handed on. */
#if SQSUM
#define SQ_LOCALS     __local sqv qbuf[LS];
#define SQ_LOCAL_ARGS , __local sqv *qbuf
#define SQ_LOCAL_PASS , qbuf
#define SQ_PRIV_ARGS  , sqv *q
#define SQ_PRIV_PASS  , q
#else
#define SQ_LOCALS
#define SQ_LOCAL_ARGS
#define SQ_LOCAL_PASS
#define SQ_PRIV_ARGS
#define SQ_PRIV_PASS
#endif
#if STAGE
#ifndef KC
#define KC K
#endif
/* A chunk: pixels j .. j + KC - 1 of every work-item's K, LS * KC * CH
 * elements. Element t of a chunk's tile is element chunk_elem(j, t) of the
 * row: neighbouring work-items take neighbouring elements of a run of
 * KC * CH (the whole row when KC is K). */
#define CHUNK_N (LS * KC * CH)
inline int chunk_elem(int j, int t)
{
    const int owner = t / (KC * CH);
    return (owner * K + j) * CH + (t - owner * (KC * CH));
}
#if SQSUM
#define SQ_STAGE_LOCALS __local SQ qtile[CHUNK_N];
#define SQ_STAGE_ARGS   , __local SQ *qtile
#define SQ_STAGE_PASS   , qtile
#else
#define SQ_STAGE_LOCALS
#define SQ_STAGE_ARGS
#define SQ_STAGE_PASS
#endif
#define STAGE_LOCALS                                                                               \
    __local ACC tile[CHUNK_N];                                                                     \
    __local ST in_tile[CHUNK_N];                                                                   \
    SQ_STAGE_LOCALS
/* The rows' output tiles take the places of the sums' (SUM is never wider
 * than ACC, SQO than SQ). */
#define STAGE_ARGS , __local ACC *tile, __local ST *in_tile SQ_STAGE_ARGS
#define STAGE_PASS , tile, in_tile SQ_STAGE_PASS
#else
#define STAGE_LOCALS
#define STAGE_ARGS
#define STAGE_PASS
#endif
#define WG_LOCALS                                                                                  \
    __local accv buf[LS];                                                                          \
    SQ_LOCALS STAGE_LOCALS
#define WG_ARGS __local accv *buf SQ_LOCAL_ARGS STAGE_ARGS
#define WG_PASS buf SQ_LOCAL_PASS STAGE_PASS

/* The contribution of rows y0 .. y1 - 1 to every column prefix of this
 * work-item's K pixels: p[k] (q[k]) = the sum over those rows and the
 * columns before x0 + k + 1. Every work-item of the group calls it. */
inline void band_contribution(__global const ST *src, int src_stride, int w, int y0, int y1,
                              accv *p SQ_PRIV_ARGS, WG_ARGS)
{
    const int lid = get_local_id(0), x0 = lid * K;
    /* Column sums of this work-item's K pixels over the rows. */
    for (int k = 0; k < K; k++) {
        p[k] = ACC_ZERO;
        SQ_ONLY(q[k] = SQ_ZERO);
    }
#if STAGE
    /* Coalesced, a chunk at a time: work-item lid sums the chunk's
     * elements lid, lid + LS, ... of each row; the sums meet in local
     * memory, where each work-item then takes its KC neighbouring pixels. */
    for (int j = 0; j < K; j += KC) {
        ACC c[KC * CH];
        SQ_ONLY(SQ qc[KC * CH]);
        for (int i = 0; i < KC * CH; i++) {
            c[i] = 0;
            SQ_ONLY(qc[i] = 0);
        }
        for (int y = y0; y < y1; y++) {
            __global const ST *in = src + (size_t)y * src_stride;
            for (int i = 0; i < KC * CH; i++) {
                const int e = chunk_elem(j, i * LS + lid);
                if (e < w * CH) {
                    c[i] += (ACC)in[e];
                    SQ_ONLY(qc[i] += (SQ)in[e] * (SQ)in[e]);
                }
            }
        }
        for (int i = 0; i < KC * CH; i++) {
            tile[i * LS + lid] = c[i];
            SQ_ONLY(qtile[i * LS + lid] = qc[i]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < KC; k++) {
            p[j + k] = VLOAD(lid * KC + k, tile);
            SQ_ONLY(q[j + k] = VLOAD(lid * KC + k, qtile));
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the tiles are free again */
    }
#else
    for (int y = y0; y < y1; y++) {
        __global const ST *in = src + (size_t)y * src_stride;
        for (int k = 0; k < K; k++)
            if (x0 + k < w) {
                const VEC(ST) px = VLOAD(x0 + k, in);
                p[k] = ACC_ADD(p[k], ACC_SRC(px));
                SQ_ONLY(q[k] = SQ_ADD(q[k], SQ_SQUARE(px)));
            }
    }
#endif
    /* Prefix along the row: serial over K, then across work-items. */
    SQ_ONLY(sqv qoff);
    const accv off = PREFIX_SCAN(p, q);
    for (int k = 0; k < K; k++) {
        p[k] = ACC_ADD(off, p[k]);
        SQ_ONLY(q[k] = SQ_ADD(qoff, q[k]));
    }
}

__kernel void integral_strips(__global const ST *src, int src_stride, int w, int h, int rows,
                              __global ACC *strips
#if SQSUM
                              ,
                              __global SQ *sqstrips
#endif
)
{
    WG_LOCALS
    const int s = get_group_id(1), lid = get_local_id(0), x0 = lid * K;
    const int y0 = s * rows, y1 = min(h, y0 + rows);
    accv p[K];
    SQ_ONLY(sqv q[K]);
    band_contribution(src, src_stride, w, y0, y1, p SQ_PRIV_PASS, WG_PASS);
    STORE_STRIP(ACC_STORE, ACC_ZERO, p, STRIP_ROW(strips, s, w));
    SQ_ONLY(STORE_STRIP(SQ_STORE, SQ_ZERO, q, STRIP_ROW(sqstrips, s, w)));
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
    acc1 run = ACC1_ZERO;
    int s = 0;
    /* Strip s's element i, a pointer stepped down the strips (their
     * elements may pass 2^31). */
    __global ACC *c = strips + i;
    for (; s + 8 <= last; s += 8, c += 8 * (size_t)n) {
        acc1 t[8];
        for (int j = 0; j < 8; j++)
            t[j] = c[j * n];
        for (int j = 0; j < 8; j++) {
            c[j * n] = run;
            run = ACC1_ADD(run, t[j]);
        }
    }
    for (; s < last; s++, c += n) {
        const acc1 t = *c;
        *c = run;
        run = ACC1_ADD(run, t);
    }
    *c = run;
#if SQSUM
    sq1 qrun = SQ1_ZERO;
    __global SQ *qc = sqstrips + i;
    for (s = 0; s < last; s++, qc += n) {
        const sq1 t = *qc;
        *qc = qrun;
        qrun = SQ1_ADD(qrun, t);
    }
    *qc = qrun;
#endif
}

/* ---- kernel 3: the rows ---------------------------------------------------------------- */

#if SQSUM
#define SQ_ROWS_ARGS , __global SQ *sqstrips, __global SQO *sq, int sq_stride
#else
#define SQ_ROWS_ARGS
#endif

#if defined(CPU_SERIAL) && VEC_ROWS
/* Elements e .. e + 15 of an output row (out) from their prefix p along the
 * row, widened to T16 and added to the carry of the elements before them;
 * plus the row above, or on the strip's first row (first) its carries.
 * FROM and TO: the stored type to T16 and back. */
#define ROW_STEP16(T16, WIDEN, FROM, TO, p, carry, carries, above, out)                            \
    do {                                                                                           \
        const T16 v_ = WIDEN(p) + (carry);                                                         \
        (carry) = LAST16(v_);                                                                      \
        const T16 up_ =                                                                            \
            first ? vload16(0, (carries) + CH + e) : FROM(vload16(0, (above) + CH + e));           \
        vstore16(TO(up_ + v_), 0, (out) + CH + e);                                                 \
    } while (0)

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
    if (s == 0) { /* row 0 of the output, 16 elements a step */
        int e = 0;
        for (; e + 16 <= n + CH; e += 16) {
            vstore16((CONCAT(SUM, 16))0, 0, sum + e);
            SQ_ONLY(vstore16((CONCAT(SQO, 16))0, 0, sq + e));
        }
        for (; e < n + CH; e++) {
            sum[e] = 0;
            SQ_ONLY(sq[e] = 0);
        }
    }
    for (int y = y0; y < y1; y++) {
        __global const ST *in = src + (size_t)y * src_stride;
        __global SUM *out = sum + (size_t)(y + 1) * sum_stride;
        /* The sums of the rows above: exact in SUM (integers, or the bits
         * of integral doubles), or the strip's carries in ACC. */
        __global const SUM *above = out - sum_stride;
        __global const ACC *carries = STRIP_ROW(strips, s, w);
        const int first = y == y0;
        for (int c = 0; c < CH; c++)
            out[c] = 0;
        acc16 carry = (acc16)0;
#if SQSUM
        __global SQO *qo = sq + (size_t)(y + 1) * sq_stride;
        __global const SQO *qabove = qo - sq_stride;
        __global const SQ *qcarries = STRIP_ROW(sqstrips, s, w);
        for (int c = 0; c < CH; c++)
            qo[c] = 0;
        sq16 qcarry = (sq16)0;
#endif
        for (int e = 0; e < nv; e += 16) {
            const uchar16 px = vload16(0, in + e);
            /* The prefix of 16 bytes fits 16-bit lanes: half the shuffle width. */
            ushort16 p16 = convert_ushort16(px);
            PREFIX16(ushort, p16);
            ROW_STEP16(acc16, TO_ACC16, FROM_SUM16, TO_SUM16, p16, carry, carries, above, out);
#if SQSUM
            uint16 q32 = convert_uint16(px);
            q32 *= q32;
            PREFIX16(uint, q32);
            ROW_STEP16(sq16, TO_SQ16, FROM_SQO16, TO_SQO16, q32, qcarry, qcarries, qabove, qo);
#endif
        }
        accv run = LAST(carry);
        SQ_ONLY(sqv qrun = LAST(qcarry));
        for (int x = nv / CH; x < w; x++) {
            run += TO_ACC(VLOAD(x, in));
            const accv up = first ? VLOAD(x + 1, carries) : FROM_SUM(VLOAD(x + 1, above));
            VSTORE(TO_SUM(up + run), x + 1, out);
#if SQSUM
            const sqv sv = TO_SQ(VLOAD(x, in));
            qrun += sv * sv;
            const sqv qup = first ? VLOAD(x + 1, qcarries) : FROM_SQO(VLOAD(x + 1, qabove));
            VSTORE(TO_SQO(qup + qrun), x + 1, qo);
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
    __global ACC *acc = STRIP_ROW(strips, s, w);
    SQ_ONLY(__global SQ *qacc = STRIP_ROW(sqstrips, s, w));
    if (s == 0)
        for (int x = 0; x <= w; x++) {
            VSTORE((VEC(SUM))0, x, sum);
            SQ_ONLY(VSTORE((VEC(SQO))0, x, sq));
        }
    for (int y = y0; y < y1; y++) {
        __global const ST *in = src + (size_t)y * src_stride;
        __global SUM *out = sum + (size_t)(y + 1) * sum_stride;
        accv run = ACC_ZERO;
        VSTORE((VEC(SUM))0, 0, out);
#if SQSUM
        __global SQO *qo = sq + (size_t)(y + 1) * sq_stride;
        sqv qrun = SQ_ZERO;
        VSTORE((VEC(SQO))0, 0, qo);
#endif
        for (int x = 0; x < w; x++) {
            const VEC(ST) px = VLOAD(x, in);
            run = ACC_ADD(run, ACC_SRC(px));
            const accv a = ACC_ADD(ACC_LOAD(x + 1, acc), run);
            ACC_STORE(a, x + 1, acc);
            VSTORE(TO_SUM(a), x + 1, out);
#if SQSUM
            qrun = SQ_ADD(qrun, SQ_SQUARE(px));
            const sqv qa = SQ_ADD(SQ_LOAD(x + 1, qacc), qrun);
            SQ_STORE(qa, x + 1, qacc);
            VSTORE(TO_SQO(qa), x + 1, qo);
#endif
        }
    }
}
#else
/* Rows y0 .. y1 - 1 of the output from acc[k] (qacc[k]) = sum(x0 + k + 1,
 * y0) of this work-item's K pixels; the band at the top also writes row 0.
 * Every work-item of the group calls it. */
inline void band_rows(__global const ST *src, int src_stride, int w, int y0, int y1,
                      __global SUM *sum, int sum_stride, accv *acc SQ_PRIV_ARGS, __global SQO *sq,
                      int sq_stride, WG_ARGS)
{
    const int lid = get_local_id(0), x0 = lid * K;
    SQ_ONLY(sqv *qacc = q);
    if (y0 == 0) { /* row 0 of the output */
        for (int k = 0; k < K; k++)
            if (x0 + k < w) {
                VSTORE((VEC(SUM))0, x0 + k + 1, sum);
                SQ_ONLY(VSTORE((VEC(SQO))0, x0 + k + 1, sq));
            }
        if (lid == 0) {
            VSTORE((VEC(SUM))0, 0, sum);
            SQ_ONLY(VSTORE((VEC(SQO))0, 0, sq));
        }
    }
#if STAGE
    /* Rows pass through local memory both ways, so that global loads and
     * stores are coalesced (work-item lid touches elements lid, lid + LS, ...). */
    __local SUM *out_tile = (__local SUM *)tile;
    SQ_ONLY(__local SQO *out_qtile = (__local SQO *)qtile);
#endif
    for (int y = y0; y < y1; y++) { /* every work-item takes part: barriers */
        __global const ST *in = src + (size_t)y * src_stride;
        accv p[K];
        SQ_ONLY(sqv q[K]);
#if STAGE
        for (int j = 0; j < K; j += KC) {
            for (int i = 0; i < KC * CH; i++) {
                const int t = i * LS + lid, e = chunk_elem(j, t);
                in_tile[t] = e < w * CH ? in[e] : (ST)0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < KC; k++) { /* zeros past the row */
                p[j + k] = TO_ACC(VLOAD(lid * KC + k, in_tile));
                SQ_ONLY(q[j + k] = SQ_SQUARE(VLOAD(lid * KC + k, in_tile)));
            }
            if (j + KC < K)
                barrier(CLK_LOCAL_MEM_FENCE); /* read before the next chunk lands */
        }
#else
        for (int k = 0; k < K; k++) {
            /* Past the row: pixel w - 1 is read, and zeros are summed. */
            const VEC(ST) px = VLOAD(x0 + k < w ? x0 + k : w - 1, in);
            p[k] = ACC_ZERO;
            SQ_ONLY(q[k] = SQ_ZERO);
            if (x0 + k < w) {
                p[k] = ACC_SRC(px);
                SQ_ONLY(q[k] = SQ_SQUARE(px));
            }
        }
#endif
        SQ_ONLY(sqv qoff);
        const accv off = PREFIX_SCAN(p, q);
        __global SUM *out = sum + (size_t)(y + 1) * sum_stride;
        if (lid == 0)
            VSTORE((VEC(SUM))0, 0, out);
#if SQSUM
        __global SQO *qo = sq + (size_t)(y + 1) * sq_stride;
        if (lid == 0)
            VSTORE((VEC(SQO))0, 0, qo);
#endif
#if STAGE
        for (int k = 0; k < K; k++) {
            acc[k] += off + p[k];
            SQ_ONLY(qacc[k] += qoff + q[k]);
        }
        for (int j = 0; j < K; j += KC) {
            for (int k = 0; k < KC; k++) {
                VSTORE(TO_SUM(acc[j + k]), lid * KC + k, out_tile);
                SQ_ONLY(VSTORE(TO_SQO(qacc[j + k]), lid * KC + k, out_qtile));
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = 0; i < KC * CH; i++) {
                const int t = i * LS + lid, e = chunk_elem(j, t);
                if (e < w * CH) {
                    out[CH + e] = out_tile[t];
                    SQ_ONLY(qo[CH + e] = out_qtile[t]);
                }
            }
            if (j + KC < K)
                barrier(CLK_LOCAL_MEM_FENCE); /* stored before the next chunk lands */
        }
        /* The last chunk's tile is rewritten only after the next row's scan
         * barriers. */
#else
        for (int k = 0; k < K; k++) {
            acc[k] = ACC_ADD(acc[k], ACC_ADD(off, p[k]));
            if (x0 + k < w)
                VSTORE(TO_SUM(acc[k]), x0 + k + 1, out);
        }
#if SQSUM
        for (int k = 0; k < K; k++) {
            qacc[k] = SQ_ADD(qacc[k], SQ_ADD(qoff, q[k]));
            if (x0 + k < w)
                VSTORE(TO_SQO(qacc[k]), x0 + k + 1, qo);
        }
#endif
#endif
    }
}

#if SQSUM
#define SQ_OUT_PASS , sq, sq_stride
#else
#define SQ_OUT_PASS , (__global SQO *)0, 0
#endif

__kernel void integral_rows(__global const ST *src, int src_stride, int w, int h, int rows,
                            __global ACC *strips, __global SUM *sum, int sum_stride SQ_ROWS_ARGS)
{
    WG_LOCALS
    const int s = get_group_id(1), lid = get_local_id(0), x0 = lid * K;
    const int y0 = s * rows, y1 = min(h, y0 + rows);
    accv acc[K]; /* sum(x + 1, y) of this work-item's pixels, row after row */
    LOAD_STRIP(ACC_LOAD, ACC_ZERO, acc, STRIP_ROW(strips, s, w));
#if SQSUM
    sqv q[K];
    LOAD_STRIP(SQ_LOAD, SQ_ZERO, q, STRIP_ROW(sqstrips, s, w));
#endif
    band_rows(src, src_stride, w, y0, y1, sum, sum_stride, acc SQ_PRIV_PASS SQ_OUT_PASS, WG_PASS);
}

/* ---- one pass: bands of rows in ticket order, carries by decoupled look-back ------------ */

/*
 * integral_lookback: each work-group takes the next band of `rows` rows
 * (an atomic ticket: every earlier band has a running group, so waiting
 * for them always ends on devices whose running groups keep making
 * progress), adds up its contribution (band_contribution) and publishes it
 * as the band's aggregate (flag AGG), then looks back over the earlier
 * bands: aggregates are added until a band that has published its
 * inclusive prefix (flag INC: sum(X, first row of the next band)). It
 * publishes its own inclusive prefix and writes its rows (band_rows) from
 * the carries. The input is read twice, the second time within the
 * group's own band (from the cache); the output is written once.
 *
 * state: word 0 the ticket counter, word 1 + b band b's flag (all zero
 * before the launch: integral_zero). agg, inc: per band, n = w * CH
 * elements of ACC (SQ) each, as ACC_W (SQ_W) 32-bit words. The look-back
 * reads LB_WINDOW flags at once. Flags and published words are all
 * written and read with atomics (OpenCL C 1.2 orders nothing else between
 * work-groups), a global fence and a barrier between a band's words and
 * its flag.
 */
#if LOOKBACK
#define LB_AGG    1u
#define LB_INC    2u
#define LB_WINDOW 32

/* Element i of a band's published row, as 32-bit words. */
#if ACC_W == 1
#define ACC_PUT(p, i, v) atomic_xchg((p) + (i), as_uint(v))
#define ACC_GET(p, i)    CONCAT(as_, ACC)(atomic_or((p) + (i), 0u))
#else
#define ACC_PUT(p, i, v) put2((p), (i), as_ulong(v))
#define ACC_GET(p, i)    CONCAT(as_, ACC)(get2((p), (i)))
#endif
#define SQ_PUT(p, i, v) put2((p), (i), as_ulong(v))
#define SQ_GET(p, i)    CONCAT(as_, SQ)(get2((p), (i)))

inline void put2(volatile __global uint *p, int i, ulong v)
{
    atomic_xchg(p + 2 * i, (uint)v);
    atomic_xchg(p + 2 * i + 1, (uint)(v >> 32));
}

inline ulong get2(volatile __global uint *p, int i)
{
    return (ulong)atomic_or(p + 2 * i, 0u) | (ulong)atomic_or(p + 2 * i + 1, 0u) << 32;
}

#if ACC_FF || SQ_FF
#error "the look-back kernel takes exact or double sums"
#endif

__kernel void integral_zero(__global uint *state, int n)
{
    const int i = get_global_id(0);
    if (i < n)
        state[i] = 0;
}

#if SQSUM
#define LB_SQ_ARGS                                                                                 \
    , volatile __global uint *sqagg, volatile __global uint *sqinc, __global SQO *sq, int sq_stride
#else
#define LB_SQ_ARGS
#endif

__kernel void integral_lookback(__global const ST *src, int src_stride, int w, int h, int rows,
                                volatile __global uint *state, volatile __global uint *agg,
                                volatile __global uint *inc, __global SUM *sum,
                                int sum_stride LB_SQ_ARGS)
{
    WG_LOCALS
    __local int band, found, ready;
    __local uint flags[LB_WINDOW];
    const int lid = get_local_id(0), x0 = lid * K, n = w * CH;
    if (lid == 0)
        band = (int)atomic_inc(&state[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int b = band;
    const int y0 = b * rows, y1 = min(h, y0 + rows);
    accv p[K];
    SQ_ONLY(sqv q[K]);
    band_contribution(src, src_stride, w, y0, y1, p SQ_PRIV_PASS, WG_PASS);
    /* Element by element from here: atomics take no vectors. */
    ACC pe[K * CH], ce[K * CH]; /* the band's contribution, the carries */
#if SQSUM
    SQ qe[K * CH], cqe[K * CH];
#endif
    for (int k = 0; k < K; k++) {
        VSTORE(p[k], k, pe);
        SQ_ONLY(VSTORE(q[k], k, qe));
    }
    for (int i = 0; i < K * CH; i++) {
        ce[i] = 0;
        SQ_ONLY(cqe[i] = 0);
    }
    const int e0 = x0 * CH, ne = min(K * CH, n - e0); /* this work-item's elements */

    /* Publish the aggregate (the first band's is its inclusive prefix too). */
    /* Loops over all K * CH elements: constant bounds keep the arrays in
     * registers. */
    for (int i = 0; i < K * CH; i++)
        if (i < ne) {
            ACC_PUT(agg + (size_t)b * n * ACC_W, e0 + i, pe[i]);
            SQ_ONLY(SQ_PUT(sqagg + (size_t)b * n * 2, e0 + i, qe[i]));
        }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        atomic_xchg(&state[1 + b], b == 0 ? LB_INC : LB_AGG);

    /* Look back: the carries become the sums of every earlier band
     * (sum(X, y0)). Band 0's inclusive prefix is its aggregate. */
    int top = b; /* bands top - 1, top - 2, ... are still to be added */
    while (top > 0) {
        if (lid < LB_WINDOW)
            flags[lid] = top - 1 - lid >= 0 ? atomic_or(&state[top - lid], 0u) : LB_INC;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            /* The nearest inclusive prefix, every band before it an aggregate. */
            int i = 0;
            while (i < LB_WINDOW && flags[i] == LB_AGG)
                i++;
            found = i < LB_WINDOW && flags[i] == LB_INC ? i : -1;
            ready = i; /* bands published without a gap, from top - 1 on */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int f = found, r = ready;
        barrier(CLK_LOCAL_MEM_FENCE); /* the next round rewrites them */
        /* A band not yet published: look again. */
        if (f < 0 && r < LB_WINDOW)
            continue;
        const int last = f < 0 ? r : f + 1; /* bands top - 1 .. top - last */
        for (int d = 0; d < last && top - 1 - d >= 0; d++) {
            const int j = top - 1 - d, use_inc = d == f && j > 0;
            volatile __global uint *from = (use_inc ? inc : agg) + (size_t)j * n * ACC_W;
            for (int i = 0; i < K * CH; i++)
                if (i < ne)
                    ce[i] += ACC_GET(from, e0 + i);
#if SQSUM
            volatile __global uint *fromq = (use_inc ? sqinc : sqagg) + (size_t)j * n * 2;
            for (int i = 0; i < K * CH; i++)
                if (i < ne)
                    cqe[i] += SQ_GET(fromq, e0 + i);
#endif
        }
        top = f < 0 ? top - last : 0;
    }

    /* Publish the inclusive prefix, then write the rows from the carries. */
    if (b > 0) {
        for (int i = 0; i < K * CH; i++)
            if (i < ne) {
                ACC_PUT(inc + (size_t)b * n * ACC_W, e0 + i, pe[i] + ce[i]);
                SQ_ONLY(SQ_PUT(sqinc + (size_t)b * n * 2, e0 + i, qe[i] + cqe[i]));
            }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (lid == 0)
            atomic_xchg(&state[1 + b], LB_INC);
    }
    for (int k = 0; k < K; k++) {
        p[k] = VLOAD(k, ce);
        SQ_ONLY(q[k] = VLOAD(k, cqe));
    }
    band_rows(src, src_stride, w, y0, y1, sum, sum_stride, p SQ_PRIV_PASS SQ_OUT_PASS, WG_PASS);
}
#endif
#endif

/*
 * Histogram family: per-work-group histograms and their reduction, and
 * table lookup. Images are u8 rows of row_bytes bytes, stride bytes apart,
 * walked in 16-byte chunks (16 is a multiple of every channel count, so
 * byte j of a chunk belongs to channel j % CH).
 *
 * Build option: CH (1, 2 or 4 channels), the only one. Everything else is
 * an argument: `aligned` (the host checked that every image base and row
 * stride is a multiple of 16: chunks are then single vector accesses, which
 * vload16 may not be on PoCL), the number of local histograms per
 * work-group, and the local memory, which the host sizes at launch. The
 * kernels for every device are in one program:
 *   hist_local    local atomics into copies of the histogram per work-group
 *                 (GPUs), merged by global atomics or left for hist_reduce;
 *   hist_global   global atomics into the work-group's slice (no local memory);
 *   hist_serial   one work-item per work-group counting alone (CPU devices);
 *   hist_pairs    the same, counting byte pairs in 65536 bins (CPU devices);
 *   lut_apply, lut_apply_local (tables staged in local memory), and
 *   lut_apply_pairs (CPU devices: one lookup per two bytes).
 * One work-item per work-group walks a contiguous run of chunks, which suits
 * a CPU's caches; neighbouring work-items of the other kernels read
 * neighbouring chunks, which suits a GPU.
 *
 * Loop counts: Mesa's llvmpipe ends every loop of a work-item silently
 * once all its loops together have run 65535 iterations (gallivm's loop
 * limiter, shared by the loops of a shader). The host keeps each work-item
 * to at most 32768 chunks (lib/ops/hist.c, ITEM_CHUNKS); the partial chunk
 * at a row's end is handled without a loop (a loop entered per chunk costs
 * an iteration even when it runs none), and the pair histogram's fills and
 * sums go 16 values per iteration.
 *
 * Sizes: a row's start is a 64-bit product, (size_t)row * stride, once per
 * chunk or per row; within a row and in chunk counts 32 bits suffice, as
 * the host sees to (lib/ops/hist.c: strides and a contiguous image walked as
 * one row below 2^32 bytes, chunk totals within 2^31 where a work-item
 * divides them, counted pixels within 2^32 - 1).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#define BINS (CH * 256)

/* Kernels that read chunks run their loop through a body function twice,
 * with `aligned` a constant in each copy; each call site picks one copy
 * (written out: OpenCL C 1.2 has no variadic macros, and NVIDIA's compiler
 * refuses them). */
inline uchar16 load16(const int aligned, __global const uchar *p)
{
    return aligned ? *(__global const uchar16 *)p : vload16(0, p);
}

inline void store16(const int aligned, uchar16 v, __global uchar *q)
{
    if (aligned)
        *(__global uchar16 *)q = v;
    else
        vstore16(v, 0, q);
}

/* Applies M to the lanes 0..15 of a chunk, without a loop. */
/* clang-format off */
#define EACH_LANE(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) \
    M(14) M(15)
/* clang-format on */

/* Position of a 16-byte chunk: its row and its first byte in the row. */
typedef struct cursor {
    uint row, col;
} cursor;

inline cursor cursor_at(uint chunk, uint chunks_per_row)
{
    cursor k;
    k.row = chunk / chunks_per_row;
    k.col = (chunk - k.row * chunks_per_row) * 16;
    return k;
}

/* The next chunk, without a division (which costs more than 16 lookups). */
inline void cursor_next(cursor *k, uint row_bytes)
{
    k->col += 16;
    if (k->col >= row_bytes) {
        k->col = 0;
        k->row++;
    }
}

/* CPU style: this work-item's contiguous share [first, end) of total chunks. */
inline uint2 own_run(uint total)
{
    const uint items = (uint)get_global_size(0);
    const uint per = (total + items - 1) / items;
    const uint first = min(total, (uint)get_global_id(0) * per);
    return (uint2)(first, min(total, first + per));
}

/* ---- histograms ------------------------------------------------------------------ */

__kernel void hist_zero(__global uint *partial, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        partial[i] = 0;
}

/* Bin b of h is the counter h[b * step]. */
#define ATOMIC_COUNT(lane, value) atomic_inc(h + (((lane) % CH) * 256 + (value)) * step);
/* Lane j of a row's partial last chunk. */
#define ATOMIC_TAIL(j)                                                                             \
    if (k.col + (j) < row_bytes)                                                                   \
        atomic_inc(h + (((j) % CH) * 256 + p[j]) * step);

/* NAME(aligned, ...): counts the image into h (in address space SPACE) with
 * atomics, neighbouring work-items reading neighbouring chunks (coalesced). */
#define ATOMIC_WALK(NAME, SPACE)                                                                   \
    inline void NAME(const int aligned, __global const uchar *src, uint stride, uint row_bytes,    \
                     uint chunks_per_row, uint rows, SPACE uint *h, uint step)                     \
    {                                                                                              \
        const uint total = chunks_per_row * rows;                                                  \
        for (uint c = get_global_id(0); c < total; c += get_global_size(0)) {                      \
            const cursor k = cursor_at(c, chunks_per_row);                                         \
            __global const uchar *p = src + (size_t)k.row * stride + k.col;                        \
            if (k.col + 16 <= row_bytes) {                                                         \
                const uchar16 v = load16(aligned, p);                                              \
                CLIK_EACH16(ATOMIC_COUNT, v)                                                       \
            } else {                                                                               \
                EACH_LANE(ATOMIC_TAIL)                                                             \
            }                                                                                      \
        }                                                                                          \
    }
ATOMIC_WALK(local_walk, __local)
ATOMIC_WALK(global_walk, __global)

/*
 * GPUs: `replicas` copies of the histogram per work-group in `lh`,
 * work-item i counting into copy i % replicas (fewer collisions on one
 * counter). With `spread` 0 the copies follow one another (replicas * BINS
 * uints); else copy r of bin b is lh[b * spread + r] (spread, at least
 * replicas and odd where it fits, times BINS uints): the copies of one bin sit in
 * neighbouring local-memory banks, so that work-items of a warp or
 * sub-group counting the same value into their copies do not queue on one
 * bank. The copies' sum goes to the zeroed result by global atomics when
 * `merge` (no second pass), else to the work-group's slice of `partial`
 * for hist_reduce.
 */
__kernel void hist_local(__global const uchar *src, uint stride, uint row_bytes,
                         uint chunks_per_row, uint rows, __global uint *partial, int aligned,
                         uint replicas, int merge, uint spread, __local uint *lh)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint words = spread ? spread * BINS : replicas * BINS;
    for (uint i = lid; i < words; i += lsize)
        lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint r0 = lid % replicas, step = spread ? spread : 1;
    __local uint *h = lh + (spread ? r0 : r0 * BINS);
    if (aligned)
        local_walk(1, src, stride, row_bytes, chunks_per_row, rows, h, step);
    else
        local_walk(0, src, stride, row_bytes, chunks_per_row, rows, h, step);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < BINS; b += lsize) {
        uint sum = 0;
        for (uint r = 0; r < replicas; r++)
            sum += lh[spread ? b * spread + r : r * BINS + b];
        if (!merge)
            partial[get_group_id(0) * BINS + b] = sum;
        else if (sum)
            atomic_add(partial + b, sum);
    }
}

/* Devices without local memory: global atomics into the work-group's slice
 * of `partial` (zeroed by hist_zero). */
__kernel void hist_global(__global const uchar *src, uint stride, uint row_bytes,
                          uint chunks_per_row, uint rows, __global uint *partial, int aligned)
{
    __global uint *h = partial + get_group_id(0) * BINS;
    if (aligned)
        global_walk(1, src, stride, row_bytes, chunks_per_row, rows, h, 1);
    else
        global_walk(0, src, stride, row_bytes, chunks_per_row, rows, h, 1);
}

/* Sub-histograms break the store-load chains of repeated values. */
#define SUBS                    (CH == 1 ? 4 : 2)
#define SERIAL_COUNT(lane, val) h[(((lane) / CH) % SUBS) * BINS + ((lane) % CH) * 256 + (val)]++;
#define SERIAL_TAIL(j)                                                                             \
    if (k.col + (j) < row_bytes)                                                                   \
        h[((j) % CH) * 256 + p[j]]++;

inline void serial_walk(const int aligned, __global const uchar *src, uint stride, uint row_bytes,
                        uint chunks_per_row, uint rows, __local uint *h)
{
    const uint2 run = own_run(chunks_per_row * rows);
    cursor k = cursor_at(run.x, chunks_per_row);
    for (uint c = run.x; c < run.y; c++, cursor_next(&k, row_bytes)) {
        __global const uchar *p = src + (size_t)k.row * stride + k.col;
        if (k.col + 16 <= row_bytes) {
            const uchar16 v = load16(aligned, p);
            CLIK_EACH16(SERIAL_COUNT, v)
        } else {
            EACH_LANE(SERIAL_TAIL)
        }
    }
}

/* CPU devices: one work-item per work-group counts a contiguous run of
 * chunks into SUBS sub-histograms in `h` (SUBS * BINS uints of local memory,
 * which on a CPU is the work-group's own cache-resident block, and no large
 * private array). */
__kernel void hist_serial(__global const uchar *src, uint stride, uint row_bytes,
                          uint chunks_per_row, uint rows, __global uint *partial, int aligned,
                          __local uint *h)
{
    for (uint i = 0; i < SUBS * BINS; i++)
        h[i] = 0;
    if (aligned)
        serial_walk(1, src, stride, row_bytes, chunks_per_row, rows, h);
    else
        serial_walk(0, src, stride, row_bytes, chunks_per_row, rows, h);
    __global uint *out = partial + get_group_id(0) * BINS;
    for (uint b = 0; b < BINS; b++) {
        uint sum = 0;
        for (uint s = 0; s < SUBS; s++)
            sum += h[s * BINS + b];
        out[b] = sum;
    }
}

/* hist[b] = sum over groups of partial[g][b]; one work-item per bin. */
__kernel void hist_reduce(__global const uint *partial, uint groups, __global uint *hist)
{
    const uint b = get_global_id(0);
    if (b >= BINS)
        return;
    uint sum = 0;
    for (uint g = 0; g < groups; g++)
        sum += partial[g * BINS + b];
    hist[b] = sum;
}

#if CH <= 2
/* Bytes j and j + 1 of a row's partial last chunk: a pair, or the row's odd
 * last byte. */
#define PAIR_TAIL(j)                                                                               \
    if (k.col + (j) + 1 < row_bytes)                                                               \
        pairs[p[j] | (uint)p[(j) + 1] << 8]++;                                                     \
    else if (k.col + (j) < row_bytes)                                                              \
        single[p[j]]++;

inline void pairs_walk(const int aligned, __global const uchar *src, uint stride, uint row_bytes,
                       uint chunks_per_row, uint rows, __local uint *pairs, __local uint *single)
{
    const uint2 run = own_run(chunks_per_row * rows);
    cursor k = cursor_at(run.x, chunks_per_row);
    for (uint c = run.x; c < run.y; c++, cursor_next(&k, row_bytes)) {
        __global const uchar *p = src + (size_t)k.row * stride + k.col;
        if (k.col + 16 <= row_bytes) {
            /* Little-endian (checked by the host): word k = byte 2k | byte 2k+1 << 8. */
            const ushort8 w = as_ushort8(load16(aligned, p));
            pairs[w.s0]++;
            pairs[w.s1]++;
            pairs[w.s2]++;
            pairs[w.s3]++;
            pairs[w.s4]++;
            pairs[w.s5]++;
            pairs[w.s6]++;
            pairs[w.s7]++;
        } else {
            PAIR_TAIL(0)
            PAIR_TAIL(2)
            PAIR_TAIL(4)
            PAIR_TAIL(6)
            PAIR_TAIL(8)
            PAIR_TAIL(10)
            PAIR_TAIL(12)
            PAIR_TAIL(14)
        }
    }
}

/*
 * CPU devices, 1 or 2 channels: pairs of bytes (neighbouring pixels for
 * CH = 1, the two channels for CH = 2) counted in 65536 bins, one increment
 * per two bytes, then the two marginal histograms. `t` holds 65536 + 512
 * uints: the pair counts, the odd last bytes of rows (CH = 1) and the low
 * bytes' marginal.
 */
__kernel void hist_pairs(__global const uchar *src, uint stride, uint row_bytes,
                         uint chunks_per_row, uint rows, __global uint *partial, int aligned,
                         __local uint *t)
{
    __local uint *pairs = t, *single = t + 65536, *lo = t + 65536 + 256;
    for (uint i = 0; i < (65536 + 512) / 16; i++)
        vstore16((uint16)0, i, t);
    if (aligned)
        pairs_walk(1, src, stride, row_bytes, chunks_per_row, rows, pairs, single);
    else
        pairs_walk(0, src, stride, row_bytes, chunks_per_row, rows, pairs, single);
    /* Marginals: lo[v] sums the column v of the table, hi its row v. */
    __global uint *out = partial + get_group_id(0) * BINS;
    for (uint h = 0; h < 256; h++) {
        uint16 row = (uint16)0;
        for (uint l = 0; l < 16; l++) {
            const uint16 n = vload16(l, pairs + (h << 8));
            vstore16(vload16(l, lo) + n, l, lo);
            row += n;
        }
        const uint8 r8 = row.lo + row.hi;
        const uint4 r4 = r8.lo + r8.hi;
        const uint2 r2 = r4.lo + r4.hi;
        out[CH == 1 ? h : 256 + h] = r2.x + r2.y;
    }
    for (uint v = 0; v < 256; v++)
        out[v] = CH == 1 ? out[v] + lo[v] + single[v] : lo[v];
}
#endif

/* ---- table lookup ------------------------------------------------------------------ */

/* `tables` holds CH tables of 256 entries, one per channel (the host repeats
 * a shared table). */
#define LOOKUP(lane, value) r.s##lane = t[((0x##lane) % CH) * 256 + (value)];
#define LUT_TAIL(j)                                                                                \
    if (col + (j) < row_bytes)                                                                     \
        q[j] = t[((j) % CH) * 256 + p[j]];

/* NAME(aligned, ...): dst = t[src] along one row, the tables t in address
 * space SPACE; NAME_row(aligned, ...) the work-item's row (none at or past
 * `rows`), the walk compiled for each alignment. */
#define LUT_WALK(NAME, SPACE)                                                                      \
    inline void NAME(const int aligned, __global const uchar *src, uint src_stride,                \
                     __global uchar *dst, uint dst_stride, uint row_bytes, uint chunks_per_row,    \
                     uint row, SPACE const uchar *t)                                               \
    {                                                                                              \
        __global const uchar *in = src + (size_t)row * src_stride;                                 \
        __global uchar *out = dst + (size_t)row * dst_stride;                                      \
        for (uint chunk = get_global_id(0); chunk < chunks_per_row; chunk += get_global_size(0)) { \
            const uint col = chunk * 16;                                                           \
            __global const uchar *p = in + col;                                                    \
            __global uchar *q = out + col;                                                         \
            if (col + 16 <= row_bytes) {                                                           \
                const uchar16 v = load16(aligned, p);                                              \
                uchar16 r;                                                                         \
                LOOKUP(0, v.s0)                                                                    \
                LOOKUP(1, v.s1)                                                                    \
                LOOKUP(2, v.s2)                                                                    \
                LOOKUP(3, v.s3)                                                                    \
                LOOKUP(4, v.s4)                                                                    \
                LOOKUP(5, v.s5)                                                                    \
                LOOKUP(6, v.s6)                                                                    \
                LOOKUP(7, v.s7)                                                                    \
                LOOKUP(8, v.s8)                                                                    \
                LOOKUP(9, v.s9)                                                                    \
                LOOKUP(a, v.sa)                                                                    \
                LOOKUP(b, v.sb)                                                                    \
                LOOKUP(c, v.sc)                                                                    \
                LOOKUP(d, v.sd)                                                                    \
                LOOKUP(e, v.se)                                                                    \
                LOOKUP(f, v.sf)                                                                    \
                store16(aligned, r, q);                                                            \
            } else {                                                                               \
                EACH_LANE(LUT_TAIL)                                                                \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    inline void NAME##_row(int aligned, __global const uchar *src, uint src_stride,                \
                           __global uchar *dst, uint dst_stride, uint row_bytes,                   \
                           uint chunks_per_row, uint rows, SPACE const uchar *t)                   \
    {                                                                                              \
        const uint row = get_global_id(1);                                                         \
        if (row >= rows)                                                                           \
            return;                                                                                \
        if (aligned)                                                                               \
            NAME(1, src, src_stride, dst, dst_stride, row_bytes, chunks_per_row, row, t);          \
        else                                                                                       \
            NAME(0, src, src_stride, dst, dst_stride, row_bytes, chunks_per_row, row, t);          \
    }
LUT_WALK(lut_walk, __global)
LUT_WALK(lut_walk_local, __local)

/* dst = tables[src], 16 bytes per step; global size (at most chunks_per_row,
 * rows): a work-item steps along its row by the global width. */
__kernel void lut_apply(__global const uchar *src, uint src_stride, __global uchar *dst,
                        uint dst_stride, uint row_bytes, uint chunks_per_row, uint rows,
                        __global const uchar *tables, int aligned)
{
    lut_walk_row(aligned, src, src_stride, dst, dst_stride, row_bytes, chunks_per_row, rows,
                 tables);
}

/* The same with the tables staged in `t` (BINS bytes of local memory). */
__kernel void lut_apply_local(__global const uchar *src, uint src_stride, __global uchar *dst,
                              uint dst_stride, uint row_bytes, uint chunks_per_row, uint rows,
                              __global const uchar *tables, int aligned, __local uchar *t)
{
    const uint lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const uint lsize = get_local_size(0) * get_local_size(1);
    for (uint i = lid; i < BINS; i += lsize)
        t[i] = tables[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    lut_walk_local_row(aligned, src, src_stride, dst, dst_stride, row_bytes, chunks_per_row, rows,
                       t);
}

/* 255 / d (d >= 1) in float, rounded to nearest even: OpenCL's float
 * division may be 2.5 ulp off, and equalizeHist's tables must be OpenCV's
 * to the bit. m = 255 * 2^k / d with 2^23 <= m < 2^24, rounded by its
 * remainder; 255 * 2^k stays below 2^56. */
static float div255(uint d)
{
    const ulong want = (ulong)d << 23;
    int k = 0;
    while (((ulong)255 << k) < want)
        k++;
    const ulong n = (ulong)255 << k;
    ulong m = n / d;
    const ulong r = n - m * d;
    if (2 * r > d || (2 * r == d && (m & 1)))
        m++;
    return ldexp((float)m, -k);
}

/* OpenCV equalizeHist's table of each colour channel from the histogram,
 * on the device (no read of the counts by the host): the first non-empty
 * bin i maps to 0, later bins to rint(cdf * 255 / (total - hist[i])) in
 * float as OpenCV computes it; an image of one value maps it to itself.
 * Channels from `colour` on (alpha) get the identity. Work-item c: channel c. */
__kernel void equalize_tables(__global const uint *hist, uint total, int colour,
                              __global uchar *tables)
{
    const int c = get_global_id(0);
    if (c >= CH)
        return;
    __global const uint *h = hist + 256 * c;
    __global uchar *lut = tables + 256 * c;
    int i = 0;
    while (c < colour && i < 255 && h[i] == 0)
        i++;
    if (c >= colour || h[i] == total) {
        for (int v = 0; v < 256; v++)
            lut[v] = (uchar)(c >= colour ? v : i);
        return;
    }
    const float scale = div255(total - h[i]);
    for (int j = 0; j <= i; j++)
        lut[j] = 0;
    uint sum = 0;
    for (int j = i + 1; j < 256; j++) {
        sum += h[j];
        lut[j] = (uchar)clamp(rint((float)sum * scale), 0.0f, 255.0f);
    }
}

#define PAIR_TABLES (CH == 4 ? 2 : 1)

/* pairs[k][lo | hi << 8] = T[2k][lo] | T[2k + 1][hi] << 8, the table of two
 * neighbouring bytes (channels 2k and 2k + 1 mod CH, or two pixels for
 * CH = 1). */
__kernel void lut_pair_tables(__global const uchar *tables, __global ushort *pairs)
{
    const uint i = get_global_id(0);
    if (i >= 65536u * PAIR_TABLES)
        return;
    const uint k = i >> 16, lo = i & 255, hi = (i >> 8) & 255;
    pairs[i] =
        (ushort)(tables[(2 * k) % CH * 256 + lo] | (uint)tables[(2 * k + 1) % CH * 256 + hi] << 8);
}

#define PAIRS_TAIL(j)                                                                              \
    if (k.col + (j) < row_bytes)                                                                   \
        q[j] = tables[((j) % CH) * 256 + p[j]];

inline void pairs_apply_walk(const int aligned, __global const uchar *src, uint src_stride,
                             __global uchar *dst, uint dst_stride, uint row_bytes,
                             uint chunks_per_row, uint rows, __global const ushort *restrict pairs,
                             __global const uchar *restrict tables)
{
    __global const ushort *p0 = pairs;
    __global const ushort *p1 = pairs + (PAIR_TABLES - 1) * 65536;
    const uint2 run = own_run(chunks_per_row * rows);
    cursor k = cursor_at(run.x, chunks_per_row);
    for (uint c = run.x; c < run.y; c++, cursor_next(&k, row_bytes)) {
        __global const uchar *p = src + (size_t)k.row * src_stride + k.col;
        __global uchar *q = dst + (size_t)k.row * dst_stride + k.col;
        if (k.col + 16 <= row_bytes) {
            const ushort8 v = as_ushort8(load16(aligned, p));
            const ushort8 r = (ushort8)(p0[v.s0], p1[v.s1], p0[v.s2], p1[v.s3], p0[v.s4], p1[v.s5],
                                        p0[v.s6], p1[v.s7]);
            store16(aligned, as_uchar16(r), q);
        } else {
            EACH_LANE(PAIRS_TAIL)
        }
    }
}

/* dst = pairs[src pair] (little-endian devices); one work-item per
 * work-group walks a contiguous run of 16-byte chunks (CPU devices). */
__kernel void lut_apply_pairs(__global const uchar *src, uint src_stride, __global uchar *dst,
                              uint dst_stride, uint row_bytes, uint chunks_per_row, uint rows,
                              __global const ushort *restrict pairs,
                              __global const uchar *restrict tables, int aligned)
{
    if (aligned)
        pairs_apply_walk(1, src, src_stride, dst, dst_stride, row_bytes, chunks_per_row, rows,
                         pairs, tables);
    else
        pairs_apply_walk(0, src, src_stride, dst, dst_stride, row_bytes, chunks_per_row, rows,
                         pairs, tables);
}

/* ---- YCrCb luma (8-bit, 14-bit fixed point, BT.601 as OpenCV's
 * COLOR_RGB2YCrCb and COLOR_YCrCb2RGB) ------------------------------------------- */

#if CH == 4
/* (v + 2^13) >> 14 (an arithmetic shift: floor for negative v). */
inline int descale14(int v)
{
    return (v + (1 << 13)) >> 14;
}

inline int2 descale14_2(int2 v)
{
    return (v + (1 << 13)) >> 14;
}

inline int4 descale14_4(int4 v)
{
    return (v + (1 << 13)) >> 14;
}

inline int luma_of(uchar4 p)
{
    return descale14(p.x * 4899 + p.y * 9617 + p.z * 1868);
}

/* Pixel s (RGBA, bgr: BGRA) with its luma replaced by y1: its Cr and Cb
 * kept, back to RGB, alpha kept. */
inline uchar4 merge_px(uchar4 s, int y1, int bgr)
{
    const int4 p = convert_int4(bgr ? s.zyxw : s);
    const int y0 = descale14(p.x * 4899 + p.y * 9617 + p.z * 1868);
    /* Vector bounds: Oclgrind 21.10 computes clamp() of an int vector with
     * scalar bounds wrongly. */
    const int2 cc = descale14_2((int2)(p.x - y0, p.z - y0) * (int2)(11682, 9241) + (128 << 14));
    const int2 c = clamp(cc, (int2)(0), (int2)(255)) - 128;
    const int4 q =
        (int4)(y1) + descale14_4((int4)(c.x * 22987, c.y * -5636 + c.x * -11698, c.y * 29049, 0));
    const int4 o = (int4)(q.xyz, p.w);
    return convert_uchar4_sat(bgr ? o.zyxw : o);
}

/* y = the luma of the RGBA (bgr: BGRA) image src (one work-item per pixel). */
__kernel void luma_plane(__global const uchar *src, int src_stride, __global uchar *y, int y_stride,
                         int width, int height, int bgr)
{
    const int x = get_global_id(0), r = get_global_id(1);
    if (x >= width || r >= height)
        return;
    const uchar4 s = vload4(x, src + (size_t)r * src_stride);
    y[(size_t)r * y_stride + x] = (uchar)luma_of(bgr ? s.zyxw : s);
}

/* dst = the RGBA (bgr: BGRA, as src) of (y, Cr and Cb of src), alpha of src. */
__kernel void luma_merge(__global const uchar *src, int src_stride, __global const uchar *y,
                         int y_stride, __global uchar *dst, int dst_stride, int width, int height,
                         int bgr)
{
    const int x = get_global_id(0), r = get_global_id(1);
    if (x >= width || r >= height)
        return;
    const uchar4 s = vload4(x, src + (size_t)r * src_stride);
    vstore4(merge_px(s, y[(size_t)r * y_stride + x], bgr), x, dst + (size_t)r * dst_stride);
}

/*
 * CPU devices: the same two steps, a row per work-item, 16 pixels a step: four
 * 16-byte loads read as 16 uints whose bytes are the channels (shifts and
 * masks, no shuffles), the same integer arithmetic, one 16-byte store of
 * luma or four of RGBA. A row's
 * last pixels (fewer than 16) go through the per-pixel code above.
 */
#define LOAD_RGBA16(s)                                                                             \
    const uchar16 q0 = vload16(0, s), q1 = vload16(1, s), q2 = vload16(2, s), q3 = vload16(3, s);  \
    const uint16 px = (uint16)(as_uint4(q0), as_uint4(q1), as_uint4(q2), as_uint4(q3));            \
    const int16 c0 = CHANNEL16(px, 0), c1 = CHANNEL16(px, 1), c2 = CHANNEL16(px, 2);               \
    const int16 R = bgr ? c2 : c0, G = c1, B = bgr ? c0 : c2
/* Channel k of 16 pixels as bytes of uints (little-endian devices), and
 * the pixels back from four channels. */
#ifdef __ENDIAN_LITTLE__
#define CHANNEL16(px, k) as_int16(((px) >> (uint16)(8 * (k))) & (uint16)255)
#define PACK16(c0, c1, c2, c3)                                                                     \
    (convert_uint16(c0) | (convert_uint16(c1) << (uint16)8) | (convert_uint16(c2) << (uint16)16) | \
     (convert_uint16(c3) << (uint16)24))
#else
#define CHANNEL16(px, k) as_int16(((px) >> (uint16)(24 - 8 * (k))) & (uint16)255)
#define PACK16(c0, c1, c2, c3)                                                                     \
    ((convert_uint16(c0) << (uint16)24) | (convert_uint16(c1) << (uint16)16) |                     \
     (convert_uint16(c2) << (uint16)8) | convert_uint16(c3))
#endif

inline int16 descale14_16(int16 v)
{
    return (v + (1 << 13)) >> 14;
}

inline void luma_plane16_at(__global const uchar *s, __global uchar *out, int bgr)
{
    LOAD_RGBA16(s);
    vstore16(convert_uchar16(descale14_16(R * 4899 + G * 9617 + B * 1868)), 0, out);
}

inline void luma_merge16_at(__global const uchar *s, __global const uchar *yr, __global uchar *out,
                            int bgr)
{
    LOAD_RGBA16(s);
    const int16 y0 = descale14_16(R * 4899 + G * 9617 + B * 1868);
    const int16 cr =
        clamp(descale14_16((R - y0) * 11682 + (128 << 14)), (int16)(0), (int16)(255)) - 128;
    const int16 cb =
        clamp(descale14_16((B - y0) * 9241 + (128 << 14)), (int16)(0), (int16)(255)) - 128;
    const int16 y1 = convert_int16(vload16(0, yr));
    const uchar16 r8 = convert_uchar16_sat(y1 + descale14_16(cr * 22987));
    const uchar16 g8 = convert_uchar16_sat(y1 + descale14_16(cb * -5636 + cr * -11698));
    const uchar16 b8 = convert_uchar16_sat(y1 + descale14_16(cb * 29049));
    const uint16 o = PACK16(bgr ? b8 : r8, g8, bgr ? r8 : b8, convert_uchar16(CHANNEL16(px, 3)));
    vstore16(as_uchar16(o.lo.lo), 0, out);
    vstore16(as_uchar16(o.lo.hi), 1, out);
    vstore16(as_uchar16(o.hi.lo), 2, out);
    vstore16(as_uchar16(o.hi.hi), 3, out);
}

/* Work-item r: row r. */
__kernel void luma_plane16(__global const uchar *src, int src_stride, __global uchar *y,
                           int y_stride, int width, int height, int bgr)
{
    const int r = get_global_id(0);
    if (r >= height)
        return;
    __global const uchar *s = src + (size_t)r * src_stride;
    __global uchar *out = y + (size_t)r * y_stride;
    int x = 0;
    for (; x + 16 <= width; x += 16)
        luma_plane16_at(s + (size_t)x * 4, out + x, bgr);
    for (; x < width; x++) {
        const uchar4 p = vload4(x, s);
        out[x] = (uchar)luma_of(bgr ? p.zyxw : p);
    }
}

__kernel void luma_merge16(__global const uchar *src, int src_stride, __global const uchar *y,
                           int y_stride, __global uchar *dst, int dst_stride, int width, int height,
                           int bgr)
{
    const int r = get_global_id(0);
    if (r >= height)
        return;
    __global const uchar *s = src + (size_t)r * src_stride;
    __global const uchar *yr = y + (size_t)r * y_stride;
    __global uchar *out = dst + (size_t)r * dst_stride;
    int x = 0;
    for (; x + 16 <= width; x += 16)
        luma_merge16_at(s + (size_t)x * 4, yr + x, out + (size_t)x * 4, bgr);
    for (; x < width; x++)
        vstore4(merge_px(vload4(x, s), yr[x], bgr), x, out);
}
#endif

/* ---- CLAHE (Zuiderveld 1994; tiles, clip limit and blending as OpenCV's
 * createCLAHE: lib/ops/hist.c resolves the plan) ------------------------------ */

#if CH == 1
/* Pixel k of this work-group's share of its tile (tile g / parts, every
 * parts-th run of local-size pixels from run g % parts). */
#define CLAHE_WALK(COUNT)                                                                          \
    const int g = get_group_id(0), tile = g / parts, part = g - tile * parts;                      \
    const int tx = tile % tiles_x, ty = tile / tiles_x;                                            \
    const uint area = (uint)tile_w * (uint)tile_h;                                                 \
    const uint step = (uint)parts * (uint)get_local_size(0);                                       \
    for (uint k = (uint)part * get_local_size(0) + get_local_id(0); k < area; k += step) {         \
        const int j = (int)(k / (uint)tile_w), i = (int)(k - (uint)j * (uint)tile_w);              \
        const int sy = clik_reflect101(ty * tile_h + j, height);                                   \
        const int sx = clik_reflect101(tx * tile_w + i, width);                                    \
        COUNT(src[(size_t)sy * stride + sx]);                                                      \
    }

#define LOCAL_COUNT(v)  atomic_inc(lh + (v))
#define GLOBAL_COUNT(v) atomic_inc(hist + tile * 256 + (v))

/* Each work-group counts its share of a tile into a local copy of the bins,
 * then adds it to the tile's zeroed bins in `hist`. */
__kernel void clahe_hist_local(__global const uchar *src, int stride, int width, int height,
                               int tile_w, int tile_h, int tiles_x, int parts, __global uint *hist,
                               __local uint *lh)
{
    for (uint b = get_local_id(0); b < 256; b += get_local_size(0))
        lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    CLAHE_WALK(LOCAL_COUNT);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = get_local_id(0); b < 256; b += get_local_size(0))
        if (lh[b])
            atomic_add(hist + tile * 256 + b, lh[b]);
}

/* Devices without local memory: global atomics into the tile's bins. */
__kernel void clahe_hist_global(__global const uchar *src, int stride, int width, int height,
                                int tile_w, int tile_h, int tiles_x, int parts, __global uint *hist)
{
    CLAHE_WALK(GLOBAL_COUNT);
}

/* CPU devices: one work-item per work-group counts a contiguous run of its
 * tile's pixels (at most 32768: llvmpipe's loop limit, see above) into four
 * copies of the bins `lh` (1024 uints of local memory: neighbouring pixels
 * of one value do not wait on each other's counts) without atomics, a row's
 * columns inside the image 4 at a step, then adds them to the tile's zeroed
 * bins. */
__kernel void clahe_hist_serial(__global const uchar *src, int stride, int width, int height,
                                int tile_w, int tile_h, int tiles_x, int parts, __global uint *hist,
                                __local uint *lh)
{
    for (uint b = 0; b < 1024; b += 4)
        vstore4((uint4)0, b / 4, lh);
    const int g = get_group_id(0), tile = g / parts, part = g - tile * parts;
    const int tx = tile % tiles_x, ty = tile / tiles_x;
    const uint area = (uint)tile_w * (uint)tile_h, per = (area + parts - 1) / parts;
    const uint first = min(area, (uint)part * per), end = min(area, first + per);
    int j = (int)(first / (uint)tile_w), i = (int)(first - (uint)j * (uint)tile_w);
    for (uint k = first; k < end; j++, i = 0) {
        /* Columns i.. of row j: those inside the image, then the reflected. */
        const int n = (int)min(end - k, (uint)(tile_w - i)), x0 = tx * tile_w + i;
        const int inside = clamp(width - x0, 0, n);
        __global const uchar *row = src + (size_t)clik_reflect101(ty * tile_h + j, height) * stride;
        __global const uchar *s = row + x0;
        int c = 0;
        for (; c + 4 <= inside; c += 4) {
            const uint4 v = convert_uint4(vload4(0, s + c));
            lh[v.x]++;
            lh[256 + v.y]++;
            lh[512 + v.z]++;
            lh[768 + v.w]++;
        }
        for (; c < inside; c++)
            lh[s[c]]++;
        for (; c < n; c++)
            lh[row[clik_reflect101(x0 + c, width)]]++;
        k += (uint)n;
    }
    for (uint b = 0; b < 256; b++) {
        const uint n = lh[b] + lh[256 + b] + lh[512 + b] + lh[768 + b];
        if (n)
            atomic_add(hist + tile * 256 + b, n);
    }
}

/* One work-item per tile: its histogram clipped at `limit`, the excess
 * handed out (an equal share to every bin, then one more to every
 * step-th bin from 0, step = 256 / remainder, while any remains), and the
 * table round(cdf * scale), saturated. */
__kernel void clahe_tables(__global const uint *hist, int tiles, uint limit, float scale,
                           __global uchar *luts)
{
    const int t = get_global_id(0);
    if (t >= tiles)
        return;
    __global const uint *h = hist + t * 256;
    uint excess = 0;
    for (int v = 0; v < 256; v++) {
        /* min() the built-in: a select becomes llvm.usub.sat, which
         * Oclgrind cannot run. */
        const uint n = h[v];
        excess += n - min(n, limit);
    }
    const uint share = excess / 256;
    uint rest = excess - share * 256;
    const uint every = rest ? max(256 / rest, 1u) : 256;
    uint cdf = 0;
    for (uint v = 0; v < 256; v++) {
        uint n = min(h[v], limit) + share;
        if (rest && v % every == 0) {
            n++;
            rest--;
        }
        cdf += n;
        luts[t * 256 + v] = convert_uchar_sat_rte((float)cdf * scale);
    }
}

/* One work-item per pixel: the blend of the four tables around it (GPUs;
 * CPU devices take clahe_interp_rows). */
__kernel void clahe_interp(__global const uchar *src, int src_stride, __global uchar *dst,
                           int dst_stride, int width, int height, int tiles_x, int tiles_y,
                           float inv_tw, float inv_th, __global const uchar *luts)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const float fx = (float)x * inv_tw - 0.5f, fy = (float)y * inv_th - 0.5f;
    /* floor of values from -0.5 on: truncation, -1 below 0. */
    const int tx = fx < 0.0f ? -1 : (int)fx, ty = fy < 0.0f ? -1 : (int)fy;
    const float wx = fx - (float)tx, wy = fy - (float)ty;
    const int v = src[(size_t)y * src_stride + x];
    const int x1 = max(tx, 0) * 256 + v, x2 = min(tx + 1, tiles_x - 1) * 256 + v;
    __global const uchar *top = luts + (size_t)max(ty, 0) * tiles_x * 256;
    __global const uchar *bottom = luts + (size_t)min(ty + 1, tiles_y - 1) * tiles_x * 256;
    const float a = (float)top[x1] * (1.0f - wx) + (float)top[x2] * wx;
    const float b = (float)bottom[x1] * (1.0f - wx) + (float)bottom[x2] * wx;
    /* The blend of bytes with weights summing to 1: within 0..255. */
    dst[(size_t)y * dst_stride + x] = (uchar)(int)rint(a * (1.0f - wy) + b * wy);
}

/* CPU devices: the four tables around a pixel in one word. Pair (px, py)
 * of (tiles_x + 1) x (tiles_y + 1) joins tiles px - 1 and px of rows py - 1
 * and py, clamped to the grid (the blends left of the first centre, right of
 * the last, above and below); word v of the pair holds the four tables at v:
 * top left, top right, bottom left, bottom right from the low byte up. */
__kernel void clahe_quads(__global const uchar *luts, int tiles_x, int tiles_y,
                          __global uint *quads)
{
    const int p = get_global_id(0);
    if (p >= (tiles_x + 1) * (tiles_y + 1))
        return;
    const int px = p % (tiles_x + 1), py = p / (tiles_x + 1);
    const int l = max(px - 1, 0), r = min(px, tiles_x - 1);
    __global const uchar *top = luts + (size_t)max(py - 1, 0) * tiles_x * 256;
    __global const uchar *bottom = luts + (size_t)min(py, tiles_y - 1) * tiles_x * 256;
    __global uint *out = quads + (size_t)p * 256;
    for (int v = 0; v < 64; v++) {
        const uint4 tl = convert_uint4(vload4(v, top + l * 256));
        const uint4 tr = convert_uint4(vload4(v, top + r * 256));
        const uint4 bl = convert_uint4(vload4(v, bottom + l * 256));
        const uint4 br = convert_uint4(vload4(v, bottom + r * 256));
        vstore4(tl | tr << 8 | bl << 16 | br << 24, v, out);
    }
}

#define CLAHE_GATHER16(q, i)                                                                       \
    (uint16)(q[i.s0], q[i.s1], q[i.s2], q[i.s3], q[i.s4], q[i.s5], q[i.s6], q[i.s7], q[i.s8],      \
             q[i.s9], q[i.sa], q[i.sb], q[i.sc], q[i.sd], q[i.se], q[i.sf])

/* CPU devices: a row a work-item, 16 pixels a step, each pixel's four
 * tables by one word of clahe_quads; the weights and the blend are
 * clahe_interp's, operation for operation. */
__kernel void clahe_interp_rows(__global const uchar *src, int src_stride, __global uchar *dst,
                                int dst_stride, int width, int height, int tiles_x, float inv_tw,
                                float inv_th, __global const uint *quads)
{
    const int y = get_global_id(0);
    if (y >= height)
        return;
    const float fy = (float)y * inv_th - 0.5f;
    const int ty = fy < 0.0f ? -1 : (int)fy;
    const float wy = fy - (float)ty, wy1 = 1.0f - wy;
    __global const uint *q = quads + (size_t)(ty + 1) * (tiles_x + 1) * 256;
    __global const uchar *in = src + (size_t)y * src_stride;
    __global uchar *out = dst + (size_t)y * dst_stride;
    const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        const float16 fx = convert_float16((int16)x + lane) * inv_tw - 0.5f;
        /* floor of values from -0.5 on: truncation, -1 below 0 (Oclgrind
         * 21.10 rounds convert_int16_rtn toward zero). */
        const int16 tx = select(convert_int16(fx), (int16)-1, fx < 0.0f);
        const float16 wx = fx - convert_float16(tx), wx1 = 1.0f - wx;
        /* The grid's bound splat: Oclgrind 21.10 takes min(int16, int) for
         * lanes 0 and 10 only. */
        const int16 i = min(tx + 1, (int16)tiles_x) * 256 + convert_int16(vload16(0, in + x));
        const uint16 w = CLAHE_GATHER16(q, i);
        const float16 a = convert_float16(w & 0xffu) * wx1 + convert_float16((w >> 8) & 0xffu) * wx;
        const float16 b = convert_float16((w >> 16) & 0xffu) * wx1 + convert_float16(w >> 24) * wx;
        vstore16(convert_uchar16_sat_rte(a * wy1 + b * wy), 0, out + x);
    }
    for (; x < width; x++) {
        const float fx = (float)x * inv_tw - 0.5f;
        const int tx = fx < 0.0f ? -1 : (int)fx;
        const float wx = fx - (float)tx, wx1 = 1.0f - wx;
        const uint w = q[min(tx + 1, tiles_x) * 256 + in[x]];
        const float a = (float)(w & 0xffu) * wx1 + (float)((w >> 8) & 0xffu) * wx;
        const float b = (float)((w >> 16) & 0xffu) * wx1 + (float)(w >> 24) * wx;
        out[x] = convert_uchar_sat_rte(a * wy1 + b * wy);
    }
}
#endif

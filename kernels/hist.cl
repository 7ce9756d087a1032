/*
 * Histogram family: per-work-group histograms and their reduction, and
 * table lookup. Images are u8 rows of row_bytes bytes, stride bytes apart,
 * walked in 16-byte chunks (16 is a multiple of every channel count, so
 * byte j of a chunk belongs to channel j % CH).
 *
 * Build options: CH (1, 2 or 4 channels);
 *   hist: HIST_MODE 0 = local atomics into REPLICAS copies per work-group,
 *         merged into the result by global atomics when HIST_MERGE,
 *         1 = one work-item per work-group counting privately (CPU devices),
 *         2 = global atomics into the work-group's slice (no local memory),
 *         3 = one work-item per work-group counting byte pairs (CPU devices);
 *   both: ALIGNED (16-byte aligned image bases and strides: vector accesses);
 *   lut:  NTAB (1 or CH tables), LUT_LOCAL (tables staged in local memory),
 *         LUT_PAIRS (CPU devices: one lookup in a 65536-entry table per two
 *         bytes).
 * One work-item per work-group (modes 1 and 3, lut_apply_pairs) walks a
 * contiguous run of chunks, which suits a CPU's caches; neighbouring
 * work-items of the other modes read neighbouring chunks, which suits a GPU.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#define BINS (CH * 256)

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

#ifdef HIST_MODE

#if HIST_MODE == 1
#define SUBS               (CH == 1 ? 4 : 2) /* private sub-histograms break store-load chains */
#define COUNT(lane, value) h[((lane) / CH) % SUBS][((lane) % CH) * 256 + (value)]++;
#else
#define COUNT(lane, value) atomic_inc(h + ((lane) % CH) * 256 + (value));
#endif

__kernel void hist_zero(__global uint *partial, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        partial[i] = 0;
}

__kernel void hist_partial(__global const uchar *src, uint stride, uint row_bytes,
                           uint chunks_per_row, uint rows, __global uint *partial)
{
    const uint total = chunks_per_row * rows;
    const uint group = get_group_id(0);
#if HIST_MODE == 0
    __local uint lh[REPLICAS * BINS];
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    for (uint i = lid; i < REPLICAS * BINS; i += lsize)
        lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *h = lh + (lid % REPLICAS) * BINS;
#elif HIST_MODE == 1
    uint h[SUBS][BINS];
    for (uint s = 0; s < SUBS; s++)
        for (uint i = 0; i < BINS; i++)
            h[s][i] = 0;
#else
    __global uint *h = partial + group * BINS;
#endif

#if HIST_MODE == 1
    /* One work-item per group: a contiguous run of chunks, for the caches. */
    const uint2 run = own_run(total);
    cursor k = cursor_at(run.x, chunks_per_row);
    for (uint c = run.x; c < run.y; c++, cursor_next(&k, row_bytes)) {
#else
    /* Neighbouring work-items read neighbouring chunks: coalesced. */
    for (uint c = get_global_id(0); c < total; c += get_global_size(0)) {
        const cursor k = cursor_at(c, chunks_per_row);
#endif
        const uint col = k.col;
        __global const uchar *p = src + k.row * stride + col;
        if (col + 16 <= row_bytes) {
            const uchar16 v = CLIK_LOAD16(p);
            CLIK_EACH16(COUNT, v)
        } else {
            for (uint j = 0; col + j < row_bytes; j++) {
                const uint lane = j, value = p[j];
#if HIST_MODE == 1
                h[0][(lane % CH) * 256 + value]++;
#else
                atomic_inc(h + (lane % CH) * 256 + value);
#endif
            }
        }
    }

#if HIST_MODE == 0
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < BINS; b += lsize) {
        uint sum = 0;
        for (uint r = 0; r < REPLICAS; r++)
            sum += lh[r * BINS + b];
#if HIST_MERGE
        /* Straight into the (zeroed) result: no second pass over partials. */
        if (sum)
            atomic_add(partial + b, sum);
#else
        partial[group * BINS + b] = sum;
#endif
    }
#elif HIST_MODE == 1
    for (uint b = 0; b < BINS; b++) {
        uint sum = 0;
        for (uint s = 0; s < SUBS; s++)
            sum += h[s][b];
        partial[group * BINS + b] = sum;
    }
#endif
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

#if HIST_MODE == 3
/*
 * Pairs of bytes (neighbouring pixels for CH = 1, the two channels for
 * CH = 2) counted in 65536 bins: one increment per two bytes, then the two
 * marginal histograms. Needs 256 KiB of local memory per work-group.
 */
__kernel void hist_pairs(__global const uchar *src, uint stride, uint row_bytes,
                         uint chunks_per_row, uint rows, __global uint *partial)
{
    __local uint pairs[65536];
    uint single[256]; /* the odd last byte of rows (CH = 1) */
    for (uint i = 0; i < 65536; i++)
        pairs[i] = 0;
    for (uint i = 0; i < 256; i++)
        single[i] = 0;
    const uint2 run = own_run(chunks_per_row * rows);
    cursor k = cursor_at(run.x, chunks_per_row);
    for (uint c = run.x; c < run.y; c++, cursor_next(&k, row_bytes)) {
        const uint col = k.col;
        __global const uchar *p = src + k.row * stride + col;
        if (col + 16 <= row_bytes) {
            /* Little-endian (checked by the host): word k = byte 2k | byte 2k+1 << 8. */
            const ushort8 w = as_ushort8(CLIK_LOAD16(p));
            pairs[w.s0]++;
            pairs[w.s1]++;
            pairs[w.s2]++;
            pairs[w.s3]++;
            pairs[w.s4]++;
            pairs[w.s5]++;
            pairs[w.s6]++;
            pairs[w.s7]++;
        } else {
            uint j = 0;
            for (; col + j + 1 < row_bytes; j += 2)
                pairs[p[j] | (uint)p[j + 1] << 8]++;
            if (col + j < row_bytes)
                single[p[j]]++;
        }
    }
    /* Marginals: lo[v] sums the row v of the table, hi[v] its column v. */
    uint lo[256], hi[256];
    for (uint v = 0; v < 256; v++)
        lo[v] = 0;
    for (uint h = 0; h < 256; h++) {
        uint sum = 0;
        for (uint l = 0; l < 256; l++) {
            const uint n = pairs[h << 8 | l];
            lo[l] += n;
            sum += n;
        }
        hi[h] = sum;
    }
    __global uint *out = partial + get_group_id(0) * BINS;
    for (uint v = 0; v < 256; v++) {
#if CH == 1
        out[v] = lo[v] + hi[v] + single[v];
#else
        out[v] = lo[v];
        out[256 + v] = hi[v];
#endif
    }
}
#endif

#endif /* HIST_MODE */

#ifdef NTAB

#if NTAB == 1
#define TABLE(lane) 0
#else
#define TABLE(lane) (((lane) % CH) * 256)
#endif
#define LOOKUP(lane, value) r.s##lane = t[TABLE(0x##lane) + (value)]

/* The tables of the low and high byte of pair table k. */
inline __global const uchar *t_lo(__global const uchar *tables, uint k)
{
    return tables + (NTAB == 1 ? 0 : 2 * k * 256);
}
inline __global const uchar *t_hi(__global const uchar *tables, uint k)
{
    return tables + (NTAB == 1 ? 0 : (2 * k + 1) % CH * 256);
}

/* dst = table[src], 16 bytes per step; global size (at most chunks_per_row, rows): a
 * work-item steps along its row by the global width. */
__kernel void lut_apply(__global const uchar *src, uint src_stride, __global uchar *dst,
                        uint dst_stride, uint row_bytes, uint chunks_per_row, uint rows,
                        __global const uchar *tables)
{
#if LUT_LOCAL
    __local uchar t[NTAB * 256];
    const uint lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const uint lsize = get_local_size(0) * get_local_size(1);
    for (uint i = lid; i < NTAB * 256; i += lsize)
        t[i] = tables[i];
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    __global const uchar *t = tables;
#endif
    const uint row = get_global_id(1);
    if (row >= rows)
        return;
    for (uint chunk = get_global_id(0); chunk < chunks_per_row; chunk += get_global_size(0)) {
        const uint col = chunk * 16;
        __global const uchar *p = src + row * src_stride + col;
        __global uchar *q = dst + row * dst_stride + col;
        if (col + 16 <= row_bytes) {
            const uchar16 v = CLIK_LOAD16(p);
            uchar16 r;
            LOOKUP(0, v.s0);
            LOOKUP(1, v.s1);
            LOOKUP(2, v.s2);
            LOOKUP(3, v.s3);
            LOOKUP(4, v.s4);
            LOOKUP(5, v.s5);
            LOOKUP(6, v.s6);
            LOOKUP(7, v.s7);
            LOOKUP(8, v.s8);
            LOOKUP(9, v.s9);
            LOOKUP(a, v.sa);
            LOOKUP(b, v.sb);
            LOOKUP(c, v.sc);
            LOOKUP(d, v.sd);
            LOOKUP(e, v.se);
            LOOKUP(f, v.sf);
            CLIK_STORE16(r, q);
        } else {
            for (uint j = 0; col + j < row_bytes; j++)
                q[j] = t[TABLE(j) + p[j]];
        }
    }
}

#ifdef LUT_PAIRS
#define PAIR_TABLES (CH == 4 ? 2 : 1)

/* pairs[k][lo | hi << 8] = T[2k][lo] | T[2k + 1][hi] << 8, the table of two
 * neighbouring bytes (channels 2k and 2k + 1, or two pixels for CH = 1). */
__kernel void lut_pair_tables(__global const uchar *tables, __global ushort *pairs)
{
    const uint i = get_global_id(0);
    if (i >= 65536u * PAIR_TABLES)
        return;
    const uint k = i >> 16, lo = i & 255, hi = (i >> 8) & 255;
    pairs[i] = (ushort)(t_lo(tables, k)[lo] | (uint)t_hi(tables, k)[hi] << 8);
}

/* dst = pairs[src pair]; one work-item per work-group walks a contiguous run
 * of 16-byte chunks (CPU devices). */
__kernel void lut_apply_pairs(__global const uchar *src, uint src_stride, __global uchar *dst,
                              uint dst_stride, uint row_bytes, uint chunks_per_row, uint rows,
                              __global const ushort *restrict pairs,
                              __global const uchar *restrict tables)
{
    __global const ushort *p0 = pairs;
    __global const ushort *p1 = pairs + (PAIR_TABLES - 1) * 65536;
    const uint2 run = own_run(chunks_per_row * rows);
    cursor k = cursor_at(run.x, chunks_per_row);
    for (uint c = run.x; c < run.y; c++, cursor_next(&k, row_bytes)) {
        const uint col = k.col;
        __global const uchar *p = src + k.row * src_stride + col;
        __global uchar *q = dst + k.row * dst_stride + col;
        if (col + 16 <= row_bytes) {
            const ushort8 v = as_ushort8(CLIK_LOAD16(p));
            const ushort8 r = (ushort8)(p0[v.s0], p1[v.s1], p0[v.s2], p1[v.s3], p0[v.s4], p1[v.s5],
                                        p0[v.s6], p1[v.s7]);
            CLIK_STORE16(as_uchar16(r), q);
        } else {
            for (uint j = 0; col + j < row_bytes; j++)
                q[j] = tables[TABLE(j) + p[j]];
        }
    }
}
#endif

#endif /* NTAB */

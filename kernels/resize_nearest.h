/*
 * The nearest kernels of the resize family (included by resize.cl, where
 * BPP is defined; the alignments ALIGN_PIX and ALIGN_16 come from there):
 * pixels moved as uchar, uint or uint4 whatever their type, through the
 * geometry table or, for integer factors, without it (GPU and CPU-device
 * versions). See resize.cl for the table, the build options and the
 * aligned versions of each kernel.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_KERNELS_RESIZE_NEAREST_H
#define CLIK_KERNELS_RESIZE_NEAREST_H

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
#else
/* A pixel of 4 or 16 bytes as a uint or uint4: one typed access where
 * aligned, else vload4 / vload16 of its bytes. */
#if BPP == 4
#define PIX uint
#else
#define PIX uint4
#endif
typedef PIX pix_t;
inline pix_t pload(__global const uchar *p, int i, const int a)
{
    return a ? ((__global const pix_t *)p)[i] : CONCAT(as_, PIX)(CONCAT(vload, BPP)(i, p));
}
inline void pstore(pix_t v, __global uchar *p, int i, const int a)
{
    if (a)
        ((__global pix_t *)p)[i] = v;
    else
        CONCAT(vstore, BPP)(CONCAT(as_uchar, BPP)(v), i, p);
}
#undef PIX
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
ALL_VERSIONS(NEAREST_KERNEL, resize_nearest)

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
ALL_VERSIONS(NEAREST_INT_KERNEL, resize_nearest_int)

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
 * in all, see lib/ops/resize_opencl.c) and keeps spans multiples of 16 pixels, so
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
        SPAN_BAND(sw, sh);                                                                         \
        nearest_int_rows(src, src_stride, x0, x1, y0, y1, dst, dst_stride, sx, sy, A);             \
    }
ALL_VERSIONS(NEAREST_INT_ROWS_KERNEL, resize_nearest_int_rows)

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
        SPAN_BAND(dw, dh);                                                                         \
        nearest_rows(src, src_stride, dst, dst_stride, dw, geo, x0, x1, y0, y1, A);                \
    }
ALL_VERSIONS(NEAREST_ROWS_KERNEL, resize_nearest_rows)

#endif

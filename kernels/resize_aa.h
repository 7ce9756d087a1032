/*
 * The bicubic-aa kernels of the resize family (included by resize.cl, where
 * T, CH, AA_TX and AA_TY are defined; acc_t, px, px_store and the
 * alignments come from there): separable in two launches on any device, or
 * in bands of rows on CPU devices, horizontal or vertical pass first. See
 * resize.cl and fallback_cpu/resize_geometry.h for the table.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_KERNELS_RESIZE_AA_H
#define CLIK_KERNELS_RESIZE_AA_H

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

/* The horizontal sum of one output column over a line of n pixels (NAME
 * over a source row of T, its _line version over a line of floats from a
 * vertical pass): AA_TX taps from pixel `first` with weights w, four at a
 * time where they all lie in the line (always, unless it is shorter than
 * AA_TX), else one by one clamped into it (the padding taps, of weight 0);
 * PIXEL(i) is pixel i of `in` as an acc_t. */
#define AA_HSUM(NAME, IN_T, PIXEL)                                                                 \
    inline acc_t NAME(__global const IN_T *in, int n, int first, __global const float *w,          \
                      const int a)                                                                 \
    {                                                                                              \
        if (first + AA_TX <= n) {                                                                  \
            quad_t q = QUAD_LOAD(in + first * CH) * QUAD_SPREAD(vload4(0, w));                     \
            for (int k = 4; k < AA_TX; k += 4)                                                     \
                q += QUAD_LOAD(in + (first + k) * CH) * QUAD_SPREAD(vload4(0, w + k));             \
            return QUAD_SUM(q);                                                                    \
        }                                                                                          \
        acc_t s = (acc_t)(0.0f);                                                                   \
        for (int k = 0; k < AA_TX; k++)                                                            \
            s += w[k] * PIXEL(min(first + k, n - 1));                                              \
        return s;                                                                                  \
    }
#define ROW_PIXEL(i)  TO_ACC(px(in, (i), a))
#define LINE_PIXEL(i) VLOAD((i), in)
AA_HSUM(aa_hsum, T, ROW_PIXEL)
AA_HSUM(aa_hsum_line, float, LINE_PIXEL)
#undef ROW_PIXEL
#undef LINE_PIXEL

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
#define AA_STORE16(v, out, a)                                                                      \
    put_u8x16(convert_uchar16(clamp(floor((v) + AA_HALF), 0.0f, 255.0f)), (out), (a))
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
ANY_PIX_VERSIONS(AA_H_KERNEL, resize_aa_h)

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
ANY_PIX_VERSIONS(AA_V_KERNEL, resize_aa_v)

/*
 * CPU devices: as resize_interp_rows, work-item (i, j) makes output columns
 * [x0, x1) = span i of output rows [y0, y1) = band band0 + j, the
 * horizontal sums of the source rows in use in its ring of AA_TY rows of
 * the span (slot r mod AA_TY holds source row r, r >= 0 here), each made
 * once for the band; then the vertical pass along the span, 16 elements at
 * a time. The host bounds the loops of a work-item (llvmpipe, see
 * lib/ops/resize_opencl.c) and keeps spans multiples of 16 pixels.
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
            if (ring_holds(r, lo, hi, AA_TY))
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
            px_store(AA_OUT(aa_hsum_line(line, n, xofs[x] - c0, xw + x * AA_TX, a)), out, x, a);
    }
}

#define AA_VROWS_KERNEL(NAME, A)                                                                   \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows,          \
                       __global float *scratch, int line, int span, int band0)                     \
    {                                                                                              \
        SPAN_BAND(dw, dh);                                                                         \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        if (x0 < dw)                                                                               \
            aa_vrows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x0, x1, y0, y1,        \
                     scratch + item * line, A);                                                    \
    }
ANY_PIX_VERSIONS(AA_VROWS_KERNEL, resize_aa_vrows)

#define AA_ROWS_KERNEL(NAME, A)                                                                    \
    __kernel void NAME(__global const T *src, int src_stride, int sw, int sh, __global T *dst,     \
                       int dst_stride, int dw, int dh, __global const int *geo, int rows,          \
                       __global float *scratch, int span, int band0)                               \
    {                                                                                              \
        SPAN_BAND(dw, dh);                                                                         \
        const size_t item = get_global_id(1) * get_global_size(0) + get_global_id(0);              \
        aa_rows(src, src_stride, sw, sh, dst, dst_stride, dw, dh, geo, x0, x1, y0, y1,             \
                scratch + item * AA_TY * span * CH, A);                                            \
    }
ALL_VERSIONS(AA_ROWS_KERNEL, resize_aa_rows)

#endif

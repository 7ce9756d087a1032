/*
 * LAPAR model family: the bucket of every pixel of the upsample U and the
 * per-bucket filter (lib/ops/lapar_model.c). The definition, which the
 * scalar oracle follows too, is the comment on clik_lapar_model_plan in
 * fallback_cpu/cpu.h; floating-point contraction is off (common.h) so that
 * every expression rounds as written there.
 *
 * Build options, one program per format of the output:
 *   T, T_IS_FLOAT   the output: uchar or float;
 *   CH              channels of U and of the output, 1 or 4 (alpha is U's).
 * Everything else is an argument: the window, its weights, the bins' edges
 * and counts, the scale and phases, the filter side and the filters (one
 * k x k table per bucket). Strides are in elements.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h" /* FP_CONTRACT OFF */

#ifndef MAX_BINS
#define MAX_BINS 32 /* CLIK_LAPAR_MODEL_MAX_BINS, which lib/ops passes */
#endif

/* Step 1: the luma of pixel i of a row of U, whose first channel is red,
 * or blue with bgr set. */
inline float luma(__global const float *row, int i, int bgr)
{
#if CH == 4
    const float4 p = vload4(i, row);
    const float r = bgr ? p.z : p.x, b = bgr ? p.x : p.z;
    return (0.299f * r + 0.587f * p.y) + 0.114f * b;
#else
    return row[i];
#endif
}

/* Step 2: the gradient of every pixel of U, as (gx, gy) pairs. */
__kernel void lmodel_gradient(__global const float *up, int up_stride, int w, int h,
                              __global float2 *grad, int bgr)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    __global const float *row = up + (size_t)y * up_stride;
    const float left = luma(row, clik_reflect101(x - 1, w), bgr);
    const float right = luma(row, clik_reflect101(x + 1, w), bgr);
    const float above = luma(up + (size_t)clik_reflect101(y - 1, h) * up_stride, x, bgr);
    const float below = luma(up + (size_t)clik_reflect101(y + 1, h) * up_stride, x, bgr);
    grad[(size_t)y * w + x] = (float2)(0.5f * (right - left), 0.5f * (below - above));
}

/* Step 3, the horizontal half: per pixel the window's row sums of the
 * gradient products, (sum w(i) gx gx, sum w(i) gx gy, sum w(i) gy gy, 0)
 * over i = -r..r; wt: the window's n weights. */
__kernel void lmodel_tensor_rows(__global const float2 *grad, int w, int h, int n,
                                 __constant float *wt, __global float4 *rows)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int r = n / 2;
    __global const float2 *grow = grad + (size_t)y * w;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    if (x >= r && x < w - r) {
        for (int i = -r; i <= r; i++) {
            const float2 g = grow[x + i];
            const float wgt = wt[i + r];
            a += wgt * (g.x * g.x);
            b += wgt * (g.x * g.y);
            c += wgt * (g.y * g.y);
        }
    } else {
        for (int i = -r; i <= r; i++) {
            const float2 g = grow[clik_reflect101(x + i, w)];
            const float wgt = wt[i + r];
            a += wgt * (g.x * g.x);
            b += wgt * (g.x * g.y);
            c += wgt * (g.y * g.y);
        }
    }
    rows[(size_t)y * w + x] = (float4)(a, b, c, 0.0f);
}

/* Steps 3's normalisation to 6 of one pixel (F float, I int) or of 16
 * (float16, int16): the bucket from the window's sums a, b, c. Written with
 * select (whose condition is true when nonzero for scalars and when the top
 * bit is set for vectors, as comparisons give them) so that one text makes
 * both; the pseudo-angle takes its quadrant's base, numerator and
 * denominator by select and divides once (the first quadrant's 0.0f +
 * v / (u + v) differs from v / (u + v) only by the sign of a zero, which no
 * edge tells apart). params: the strength edges from 1 and the coherence
 * edges from MAX_BINS (MAX_BINS - 1 each), the angle edges from
 * 2 MAX_BINS. */
#define BUCKET_FN(NAME, F, I)                                                                      \
    inline I NAME(F a, F b, F c, int n, __constant float *params, int angles, int strengths,       \
                  int coherences, I phase)                                                         \
    {                                                                                              \
        const float norm = ldexp(1.0f, -2 * (n - 1));                                              \
        a *= norm;                                                                                 \
        b *= norm;                                                                                 \
        c *= norm;                                                                                 \
        const F t = a + c, d = a - c;                                                              \
        const F e = sqrt(d * d + 4.0f * (b * b));                                                  \
        const F l1 = 0.5f * (t + e), l2_ = 0.5f * (t - e);                                         \
        const F l2 = select((F)0.0f, l2_, l2_ > 0.0f);                                             \
        const F s1 = sqrt(select((F)0.0f, l1, l1 > 0.0f)), s2 = sqrt(l2);                          \
        const I flat = !(s1 >= 1e-3f);                                                             \
        const F coherence = select((s1 - s2) / (s1 + s2), (F)0.0f, flat);                          \
        const F u = d, v = 2.0f * b;                                                               \
        const I vpos = v >= 0.0f, upos = u >= 0.0f, uneg = u < 0.0f;                               \
        const F num = select(select(u, -v, uneg), select(-u, v, upos), vpos);                      \
        const F den = select(select(u - v, -u - v, uneg), select(v - u, u + v, upos), vpos);       \
        const F base =                                                                             \
            select(select((F)3.0f, (F)2.0f, uneg), select((F)1.0f, (F)0.0f, upos), vpos);          \
        const F pseudo = select(base + num / den, (F)0.0f, flat);                                  \
        I ang = 0, sb = 0, cb = 0;                                                                 \
        for (int m = 0; m < angles; m++)                                                           \
            ang += select((I)0, (I)1, params[2 * MAX_BINS + m] <= pseudo);                         \
        ang = select(ang, (I)0, ang == angles);                                                    \
        for (int k = 0; k < strengths - 1; k++)                                                    \
            sb += select((I)0, (I)1, params[1 + k] <= s1);                                         \
        for (int k = 0; k < coherences - 1; k++)                                                   \
            cb += select((I)0, (I)1, params[MAX_BINS + k] <= coherence);                           \
        return ((phase * angles + ang) * strengths + sb) * coherences + cb;                        \
    }
BUCKET_FN(bucket_px, float, int)
BUCKET_FN(bucket16, float16, int16)

/* Steps 3 (the vertical half) to 6: the bucket of every pixel; wt: the
 * window's n weights. */
__kernel void lmodel_classify(__global const float4 *rows, int w, int h, int n,
                              __constant float *wt, __constant float *params, int angles,
                              int strengths, int coherences, int scale, int phases,
                              __global ushort *buckets, int bucket_stride)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int r = n / 2;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    for (int j = -r; j <= r; j++) {
        const float4 s = rows[(size_t)clik_reflect101(y + j, h) * w + x];
        const float wgt = wt[j + r];
        a += wgt * s.x;
        b += wgt * s.y;
        c += wgt * s.z;
    }
    const int phase = phases ? (y % scale) * scale + (x % scale) : 0;
    buckets[(size_t)y * bucket_stride + x] =
        (ushort)bucket_px(a, b, c, n, params, angles, strengths, coherences, phase);
}

#if T_IS_FLOAT
#define STORE1(v, i, p) ((p)[(i)] = (v))
#else
/* Round to nearest, halves to even, and saturate; NaN becomes 0. */
#define STORE1(v, i, p) ((p)[(i)] = convert_uchar_sat(rint(v)))
#endif

#if CH == 4
typedef float4 px_t;
#define UP_AT(row, i) vload4((i), (row))
#else
typedef float px_t;
#define UP_AT(row, i) ((row)[(i)])
#endif

/* The filter's output pixel; alpha (4 channels) is U's, not filtered. */
inline void store_px(px_t sum, int x, int y, __global const float *up, int up_stride,
                     __global T *dst, int dst_stride)
{
    __global T *out = dst + (size_t)y * dst_stride + (size_t)x * CH;
#if CH == 4
    sum.w = vload4(x, up + (size_t)y * up_stride).w;
    STORE1(sum.x, 0, out);
    STORE1(sum.y, 1, out);
    STORE1(sum.z, 2, out);
    STORE1(sum.w, 3, out);
#else
    STORE1(sum, 0, out);
#endif
}

/* The filter: out = sum over the k x k taps of F_b[t] U(x + c - h, y + r - h),
 * reflect-101, F_b[t] at filters[b * bstride + t * tstride]: bucket-major
 * (k * k, 1) or tap-major (1, buckets), where a work-group's reads of one
 * tap fall in one run of the table (GPUs). */
__kernel void lmodel_filter(__global const float *up, int up_stride, int w, int h,
                            __global const ushort *buckets, int bucket_stride,
                            __global const float *filters, int bstride, int tstride, int k,
                            __global T *dst, int dst_stride)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int kh = k / 2;
    __global const float *f = filters + (size_t)buckets[(size_t)y * bucket_stride + x] * bstride;
    px_t sum = (px_t)(0.0f);
    if (x >= kh && x < w - kh && y >= kh && y < h - kh) {
        /* inside: no reflection */
        __global const float *row = up + (size_t)(y - kh) * up_stride + (size_t)(x - kh) * CH;
        for (int r = 0; r < k; r++, row += up_stride)
            for (int c = 0; c < k; c++)
                sum += f[(r * k + c) * tstride] * UP_AT(row, c);
    } else {
        for (int r = 0; r < k; r++) {
            __global const float *row = up + (size_t)clik_reflect101(y + r - kh, h) * up_stride;
            for (int c = 0; c < k; c++)
                sum += f[(r * k + c) * tstride] * UP_AT(row, clik_reflect101(x + c - kh, w));
        }
    }
    store_px(sum, x, y, up, up_stride, dst, dst_stride);
}

/* The same filter with the work-group's window of U staged in local memory
 * (GPUs): work-groups of at most LMODEL_WG_X x LMODEL_WG_Y, k at most 7;
 * the same sums in the same order. */
#define LMODEL_WG_X 32
#define LMODEL_WG_Y 8
#define TILE_W      (LMODEL_WG_X + 6)
#define TILE_H      (LMODEL_WG_Y + 6)

__kernel void lmodel_filter_local(__global const float *up, int up_stride, int w, int h,
                                  __global const ushort *buckets, int bucket_stride,
                                  __global const float *filters, int bstride, int tstride, int k,
                                  __global T *dst, int dst_stride)
{
    __local px_t tile[TILE_W * TILE_H];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int kh = k / 2, tw = lw + k - 1, th = lh + k - 1;
    const int x0 = get_group_id(0) * lw - kh, y0 = get_group_id(1) * lh - kh;
    for (int i = ly * lw + lx; i < tw * th; i += lw * lh) {
        const int ty = i / tw, tx = i - ty * tw;
        __global const float *row = up + (size_t)clik_reflect101(y0 + ty, h) * up_stride;
        tile[ty * TILE_W + tx] = UP_AT(row, clik_reflect101(x0 + tx, w));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    __global const float *f = filters + (size_t)buckets[(size_t)y * bucket_stride + x] * bstride;
    px_t sum = (px_t)(0.0f);
    for (int r = 0; r < k; r++)
        for (int c = 0; c < k; c++)
            sum += f[(r * k + c) * tstride] * tile[(ly + r) * TILE_W + lx + c];
    store_px(sum, x, y, up, up_stride, dst, dst_stride);
}

/* ---- CPU devices: a row a work-item, 16 pixels a step (lmodel_rows) ----------------------
 * U arrives as planes of floats (the colour channels of a 4-channel U, one
 * plane each, plane elements apart; alpha stays in the source image), the
 * luma as a plane of its own, the structure tensor's row sums as three
 * planes (a, b, c); every value is computed operation for operation as the
 * pixel kernels above compute it, so the buckets and the output are theirs.
 * Steps whose taps would cross a border run the pixel code (reflect-101). */

/* The luma plane of U's colour planes (red first, or blue with bgr set). */
__kernel void lmodel_luma_rows(__global const float *u, int u_stride, long u_plane, int w, int h,
                               int bgr, __global float *luma, int l_stride)
{
    const int y = get_global_id(0);
    if (y >= h)
        return;
    __global const float *c0 = u + (size_t)y * u_stride, *g = c0 + u_plane, *c2 = g + u_plane;
    __global const float *r = bgr ? c2 : c0, *b = bgr ? c0 : c2;
    __global float *out = luma + (size_t)y * l_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16)
        vstore16((0.299f * vload16(0, r + x) + 0.587f * vload16(0, g + x)) +
                     0.114f * vload16(0, b + x),
                 0, out + x);
    for (; x < w; x++)
        out[x] = (0.299f * r[x] + 0.587f * g[x]) + 0.114f * b[x];
}

/* The gradient of the luma plane at (x, y), any pixel (lmodel_gradient's). */
inline float2 luma_gradient(__global const float *l, int ls, int w, int h, int x, int y)
{
    __global const float *row = l + (size_t)y * ls;
    const float left = row[clik_reflect101(x - 1, w)], right = row[clik_reflect101(x + 1, w)];
    const float above = l[(size_t)clik_reflect101(y - 1, h) * ls + x];
    const float below = l[(size_t)clik_reflect101(y + 1, h) * ls + x];
    return (float2)(0.5f * (right - left), 0.5f * (below - above));
}

/* Step 3's row sums (lmodel_tensor_rows) into the planes a, b, c of t
 * (t_plane elements apart), from the luma plane l. */
__kernel void lmodel_tensor_hrows(__global const float *l, int ls, int w, int h, int n,
                                  __constant float *wt, __global float *t, int ts, long t_plane)
{
    const int y = get_global_id(0);
    if (y >= h)
        return;
    const int r = n / 2;
    __global const float *row = l + (size_t)y * ls;
    __global const float *above = l + (size_t)clik_reflect101(y - 1, h) * ls;
    __global const float *below = l + (size_t)clik_reflect101(y + 1, h) * ls;
    __global float *ta = t + (size_t)y * ts, *tb = ta + t_plane, *tc = tb + t_plane;
    /* Steps x..x + 15 whose gradients need no reflection: x - r - 1 >= 0
     * and x + 15 + r + 1 <= w - 1; the last one overlaps its neighbour. */
    const int lo = r + 1, hi = w - 17 - r;
    for (int x = lo; x <= hi; x = x == hi ? hi + 1 : min(x + 16, hi)) {
        float16 a = 0.0f, b = 0.0f, c = 0.0f;
        for (int i = -r; i <= r; i++) {
            const float16 gx = 0.5f * (vload16(0, row + x + i + 1) - vload16(0, row + x + i - 1));
            const float16 gy = 0.5f * (vload16(0, below + x + i) - vload16(0, above + x + i));
            const float wgt = wt[i + r];
            a += wgt * (gx * gx);
            b += wgt * (gx * gy);
            c += wgt * (gy * gy);
        }
        vstore16(a, 0, ta + x);
        vstore16(b, 0, tb + x);
        vstore16(c, 0, tc + x);
    }
    /* The other pixels: [0, lo) and [hi + 16, w), or every pixel. */
    const int skip = lo <= hi ? hi + 16 : lo;
    for (int x = 0; x < w; x = x + 1 == lo ? skip : x + 1) {
        float a = 0.0f, b = 0.0f, c = 0.0f;
        for (int i = -r; i <= r; i++) {
            const float2 g = luma_gradient(l, ls, w, h, clik_reflect101(x + i, w), y);
            const float wgt = wt[i + r];
            a += wgt * (g.x * g.x);
            b += wgt * (g.x * g.y);
            c += wgt * (g.y * g.y);
        }
        ta[x] = a;
        tb[x] = b;
        tc[x] = c;
    }
}

/* Steps 3 (the vertical half) to 6 (lmodel_classify) from the planes of
 * lmodel_tensor_hrows. */
__kernel void lmodel_classify_rows(__global const float *t, int ts, long t_plane, int w, int h,
                                   int n, __constant float *wt, __constant float *params,
                                   int angles, int strengths, int coherences, int scale, int phases,
                                   __global ushort *buckets, int bucket_stride)
{
    const int y = get_global_id(0);
    if (y >= h)
        return;
    const int r = n / 2, py = phases ? (y % scale) * scale : 0;
    __global ushort *out = buckets + (size_t)y * bucket_stride;
    const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    /* 16 pixels a step, the last step overlapping its neighbour; rows
     * narrower than a step a pixel at a time. */
    for (int x = 0; x <= w - 16; x = x == w - 16 ? w : min(x + 16, w - 16)) {
        float16 a = 0.0f, b = 0.0f, c = 0.0f;
        for (int j = -r; j <= r; j++) {
            __global const float *row = t + (size_t)clik_reflect101(y + j, h) * ts + x;
            const float wgt = wt[j + r];
            a += wgt * vload16(0, row);
            b += wgt * vload16(0, row + t_plane);
            c += wgt * vload16(0, row + 2 * t_plane);
        }
        const int16 phase = phases ? py + ((int16)x + lane) % scale : (int16)0;
        vstore16(
            convert_ushort16(bucket16(a, b, c, n, params, angles, strengths, coherences, phase)), 0,
            out + x);
    }
    for (int x = 0; x < w && w < 16; x++) {
        float a = 0.0f, b = 0.0f, c = 0.0f;
        for (int j = -r; j <= r; j++) {
            __global const float *row = t + (size_t)clik_reflect101(y + j, h) * ts + x;
            const float wgt = wt[j + r];
            a += wgt * row[0];
            b += wgt * row[t_plane];
            c += wgt * row[2 * t_plane];
        }
        const int phase = phases ? py + x % scale : 0;
        out[x] = (ushort)bucket_px(a, b, c, n, params, angles, strengths, coherences, phase);
    }
}

#define LMODEL_MAX_K 7

/* Row r's k taps (k <= 8) of the filters of 16 pixels, tap c of every
 * pixel as f[c]: each pixel's taps by one 8-float load from the table
 * (bucket-major, padded by 8 floats), then a transposition of the 16 x 8
 * block in three rounds of shuffles (rather than a 16-lane gather a tap). */
#define TAPS8(i)      vload8(0, filters + (size_t)at.s##i + r * k)
#define SHUF(a, b, m) shuffle2(a, b, (uint16)m)
#define M_LO4         (0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27)
#define M_HI4         (4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31)
#define M_LO2         (0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29)
#define M_HI2         (2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31)
#define M_EVEN        (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define M_ODD         (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
__attribute__((always_inline)) inline void row_taps16(__global const float *filters, int16 at,
                                                      int r, int k, float16 *f)
{
    /* a_j: pixels 2j and 2j + 1, taps 0..7 each */
    const float16 a0 = (float16)(TAPS8(0), TAPS8(1)), a1 = (float16)(TAPS8(2), TAPS8(3));
    const float16 a2 = (float16)(TAPS8(4), TAPS8(5)), a3 = (float16)(TAPS8(6), TAPS8(7));
    const float16 a4 = (float16)(TAPS8(8), TAPS8(9)), a5 = (float16)(TAPS8(a), TAPS8(b));
    const float16 a6 = (float16)(TAPS8(c), TAPS8(d)), a7 = (float16)(TAPS8(e), TAPS8(f));
    /* b: 4 pixels' taps 0..3 (l) or 4..7 (h) */
    const float16 bl0 = SHUF(a0, a1, M_LO4), bl1 = SHUF(a2, a3, M_LO4);
    const float16 bl2 = SHUF(a4, a5, M_LO4), bl3 = SHUF(a6, a7, M_LO4);
    const float16 bh0 = SHUF(a0, a1, M_HI4), bh1 = SHUF(a2, a3, M_HI4);
    const float16 bh2 = SHUF(a4, a5, M_HI4), bh3 = SHUF(a6, a7, M_HI4);
    /* c: 8 pixels' taps 2t and 2t + 1 (pixels 0..7, then 8..15) */
    const float16 c01a = SHUF(bl0, bl1, M_LO2), c01b = SHUF(bl2, bl3, M_LO2);
    const float16 c23a = SHUF(bl0, bl1, M_HI2), c23b = SHUF(bl2, bl3, M_HI2);
    const float16 c45a = SHUF(bh0, bh1, M_LO2), c45b = SHUF(bh2, bh3, M_LO2);
    const float16 c67a = SHUF(bh0, bh1, M_HI2), c67b = SHUF(bh2, bh3, M_HI2);
    f[0] = SHUF(c01a, c01b, M_EVEN);
    f[1] = SHUF(c01a, c01b, M_ODD);
    f[2] = SHUF(c23a, c23b, M_EVEN);
    f[3] = SHUF(c23a, c23b, M_ODD);
    f[4] = SHUF(c45a, c45b, M_EVEN);
    if (k > 5) {
        f[5] = SHUF(c45a, c45b, M_ODD);
        f[6] = SHUF(c67a, c67b, M_EVEN);
    }
}

#if T_IS_FLOAT
typedef float16 T16;
#define OUT_T16(v) (v)
#else
typedef uchar16 T16;
/* Round to nearest, halves to even, and saturate; NaN becomes 0 (STORE1). */
#define OUT_T16(v) convert_uchar16_sat(rint(v))
#endif

#if CH == 4
/* 16 pixels of the planes r, g, b, a interleaved into out: bytes as the
 * bytes of words (shifts, as luma_merge16), floats by shuffles. */
inline void store_rgba16(T16 r, T16 g, T16 b, T16 a, __global T *out)
{
#if T_IS_FLOAT
    const uint16 lo = (uint16)(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const uint16 hi = lo + 8u;
    const float16 rg0 = shuffle2(r, g, lo), rg1 = shuffle2(r, g, hi);
    const float16 ba0 = shuffle2(b, a, lo), ba1 = shuffle2(b, a, hi);
    const uint16 q0 = (uint16)(0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
    const uint16 q1 = q0 + 8u;
    vstore16(shuffle2(rg0, ba0, q0), 0, out);
    vstore16(shuffle2(rg0, ba0, q1), 1, out);
    vstore16(shuffle2(rg1, ba1, q0), 2, out);
    vstore16(shuffle2(rg1, ba1, q1), 3, out);
#else
    const uint16 p = convert_uint16(r) | convert_uint16(g) << 8 | convert_uint16(b) << 16 |
                     convert_uint16(a) << 24;
    vstore16(as_uchar16(p.lo.lo), 0, out);
    vstore16(as_uchar16(p.lo.hi), 1, out);
    vstore16(as_uchar16(p.hi.lo), 2, out);
    vstore16(as_uchar16(p.hi.hi), 3, out);
#endif
}
#endif

/* The filter (lmodel_filter) from U's planes, the table bucket-major (as
 * lmodel_filter's), padded by 8 floats; alpha (4 channels) from the source
 * pixel of lr, as U's alpha is. */
__kernel void lmodel_filter_rows(__global const float *u, int us, long u_plane, int w, int h,
                                 __global const ushort *buckets, int bucket_stride,
                                 __global const float *filters, int k, __global const T *lr,
                                 int lr_stride, int scale, __global T *dst, int dst_stride)
{
    const int y = get_global_id(0);
    if (y >= h)
        return;
    const int kh = k / 2, kk = k * k;
    size_t rows[LMODEL_MAX_K];
    for (int r = 0; r < k; r++)
        rows[r] = (size_t)clik_reflect101(y + r - kh, h) * us;
    __global const ushort *brow = buckets + (size_t)y * bucket_stride;
    __global T *out = dst + (size_t)y * dst_stride;
#if CH == 4
    __global const T *lrow = lr + (size_t)(y / scale) * lr_stride;
#endif
    /* Steps whose taps stay inside the row: x - kh >= 0, x + 15 + kh <= w - 1. */
    const int lo = kh, hi = w - 16 - kh;
    for (int x = lo; x <= hi; x = x == hi ? hi + 1 : min(x + 16, hi)) {
        const int16 at = convert_int16(vload16(0, brow + x)) * kk;
        float16 s0 = 0.0f;
#if CH == 4
        float16 s1 = 0.0f, s2 = 0.0f;
#endif
        for (int r = 0; r < k; r++) {
            float16 f[LMODEL_MAX_K];
            row_taps16(filters, at, r, k, f);
            __global const float *p = u + rows[r] + x - kh;
            for (int c = 0; c < k; c++) {
                s0 += f[c] * vload16(0, p + c);
#if CH == 4
                s1 += f[c] * vload16(0, p + u_plane + c);
                s2 += f[c] * vload16(0, p + 2 * u_plane + c);
#endif
            }
        }
#if CH == 4
        /* alpha of output x + i: the source pixel's */
#define AL(i) lrow[(x + (i)) / scale * 4 + 3]
        const T16 a = (T16)(AL(0), AL(1), AL(2), AL(3), AL(4), AL(5), AL(6), AL(7), AL(8), AL(9),
                            AL(10), AL(11), AL(12), AL(13), AL(14), AL(15));
#undef AL
        store_rgba16(OUT_T16(s0), OUT_T16(s1), OUT_T16(s2), a, out + (size_t)x * 4);
#else
        vstore16(OUT_T16(s0), 0, out + x);
#endif
    }
    /* The other pixels: [0, lo) and [hi + 16, w), or every pixel. */
    const int skip = lo <= hi ? hi + 16 : lo;
    for (int x = 0; x < w; x = x + 1 == lo ? skip : x + 1) {
        __global const float *fb = filters + (size_t)brow[x] * kk;
        float s0 = 0.0f;
#if CH == 4
        float s1 = 0.0f, s2 = 0.0f;
#endif
        for (int r = 0; r < k; r++)
            for (int c = 0; c < k; c++) {
                const float f = fb[r * k + c];
                const size_t i = rows[r] + clik_reflect101(x + c - kh, w);
                s0 += f * u[i];
#if CH == 4
                s1 += f * u[i + u_plane];
                s2 += f * u[i + 2 * u_plane];
#endif
            }
        __global T *o = out + (size_t)x * CH;
        STORE1(s0, 0, o);
#if CH == 4
        STORE1(s1, 1, o);
        STORE1(s2, 2, o);
        o[3] = lrow[x / scale * 4 + 3];
#endif
    }
}

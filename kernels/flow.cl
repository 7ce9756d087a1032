/*
 * Optical flow family: TV-L1 with the scheme of the IPOL reference (see
 * lib/ops/flow.c for the pipeline, fallback_cpu/scalar/flow.c for the
 * oracle). Build options:
 *   STORE_HALF  1: the iterated fields u and p are stored as 16-bit floats
 *               (vload_half / vstore_half_rte, core OpenCL 1.2), else as
 *               floats; the arithmetic is f32 either way, except that
 *   CLIK_FP16   1 (set with STORE_HALF where the device reports
 *               cl_khr_fp16): the dual update (P step) computes in half.
 * Everything else is an argument: sizes, the scheme's parameters, the
 * iteration number; the local tiles are sized at launch.
 *
 * Layout: every field of a level of w x h pixels is planar and packed, n =
 * w * h elements per plane: u holds u1 then u2, p holds p11, p12, p21, p22,
 * the warp data wd holds I1x, I1y (the warped gradient) and rho_c (the
 * constant part of the data term), the gradient g of the level's I1 holds
 * its x then y derivative. Images (I0, I1 of the level) are packed floats.
 * A field may hold more than 2^31 elements (p: four planes of n): flat
 * indexes and plane sizes are long, rows' indexes 64-bit products (IDX,
 * once per work-item or row); indexes within a row stay int.
 *
 * One iteration is two launches: the U step (thresholding V, divergence of
 * p, update of u; in place: each pixel reads only its own u) and the P step
 * (forward gradient of u, dual update; in place: each pixel reads only its
 * own p). Each has a variant that stages a tile and its one-pixel apron in
 * local memory (p above and left of the tile for U, u below and right of it
 * for P), one without local memory, and one for CPU devices (bands of rows,
 * 16 pixels per step). Small levels run blocks of a warp's iterations in
 * one work-group and one launch (flow_iterate).
 *
 * The stopping test runs after the U step of every CLIK_FLOW_CHECK_EVERY-th
 * iteration (10, 20, ...; clik.h): flow_u_check writes the sum of the squared
 * changes of u over each work-group, flow_decide adds them up and, when
 * their mean is at most epsilon^2, records the iteration in *stop. Every
 * U and P launch of iteration `iter` returns at once when iter > *stop, so
 * the host may queue iterations ahead of the test without a round trip;
 * the P step of the stopping iteration still runs, as in the reference.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef STORE_HALF
#define STORE_HALF 0
#endif
#if CLIK_FP16 && !STORE_HALF
#error "CLIK_FP16 computes on half storage: it needs STORE_HALF=1"
#endif

#define GRAD_IS_ZERO 1e-10f

/* The flat index of row y of a plane w wide, and the elements of a w x h
 * plane: 64-bit products. */
#define IDX(y, w)   ((long)(y) * (long)(w))
#define PLANE(w, h) ((long)(w) * (long)(h))

#if STORE_HALF
typedef ushort store_t; /* never half in a kernel's signature */
/* Element i (a long, negative in the guards) by pointer arithmetic: the
 * offset argument of vload_half is a size_t. */
#define LD(ptr, i)    vload_half(0, (__global const half *)(ptr) + (i))
#define ST(v, ptr, i) vstore_half_rte((v), 0, (__global half *)(ptr) + (i))
#else
typedef float store_t;
#define LD(ptr, i)    ((ptr)[i])
#define ST(v, ptr, i) ((ptr)[i] = (v))
#endif

/* The four planes of p at pixel i, and of u. */
inline float4 load_p(__global const store_t *p, long n, long i)
{
    return (float4)(LD(p, i), LD(p, n + i), LD(p, 2 * n + i), LD(p, 3 * n + i));
}

inline float2 load_u(__global const store_t *u, long n, long i)
{
    return (float2)(LD(u, i), LD(u, n + i));
}

/* ---- reductions within a work-group ------------------------------------------------ */

inline int local_index(void)
{
    return (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
}

inline int local_count(void)
{
    return (int)(get_local_size(0) * get_local_size(1));
}

/* The sum of v over the work-group, returned to every work-item (s holds one
 * float per work-item). Any work-group size. */
inline float group_sum(float v, __local float *s)
{
    const int lid = local_index(), count = local_count();
    s[lid] = v;
    for (int k = 1; k < count; k *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if ((lid & (2 * k - 1)) == 0 && lid + k < count)
            s[lid] += s[lid + k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float total = s[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* The minimum and maximum of (lo, hi) over the work-group into s[0] and
 * s[count] (s holds two floats per work-item). NaN is skipped (fmin/fmax). */
inline void group_min_max(float lo, float hi, __local float *s)
{
    const int lid = local_index(), count = local_count();
    s[lid] = lo;
    s[count + lid] = hi;
    for (int k = 1; k < count; k *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if ((lid & (2 * k - 1)) == 0 && lid + k < count) {
            s[lid] = fmin(s[lid], s[lid + k]);
            s[count + lid] = fmax(s[count + lid], s[count + lid + k]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* ---- buffers ---------------------------------------------------------------------- */

/* Zeroes n 32-bit words (u and p start at 0: zero bits are 0.0 in both
 * storages), chunk words (4, or a multiple of 16) per work-item. */
__kernel void flow_zero(__global uint *buf, ulong n, int chunk)
{
    const ulong i0 = (ulong)get_global_id(0) * (ulong)chunk, i1 = min(n, i0 + (ulong)chunk);
    ulong i = i0;
    for (; i + 16 <= i1; i += 16)
        vstore16((uint16)(0u), 0, buf + i);
    for (; i + 4 <= i1; i += 4)
        vstore4((uint4)(0u), 0, buf + i);
    for (; i < i1; i++)
        buf[i] = 0u;
}

/* The caller's flow (2-channel f32, stride in floats) into u, and back. */
__kernel void flow_load(__global const float *flow, int stride, int w, int h, __global store_t *u)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const long i = IDX(y, w) + x;
    const float2 f = vload2(x, flow + IDX(y, stride));
    ST(f.x, u, i);
    ST(f.y, u, PLANE(w, h) + i);
}

__kernel void flow_store(__global const store_t *u, int w, int h, __global float *flow, int stride)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    vstore2(load_u(u, PLANE(w, h), IDX(y, w) + x), x, flow + IDX(y, stride));
}

/* ---- normalisation: I0 and I1 jointly to [0, 255] ---------------------------------- */

/* Pixel (x, y) of an input image as a float: u8 or f32 elements (one
 * program takes both), stride in elements. */
inline float input_pixel(__global const uchar *img, int stride, int x, int y, int is_u8)
{
    const long i = IDX(y, stride) + x;
    return is_u8 ? (float)img[i] : ((__global const float *)img)[i];
}

/* Each work-group's minimum and maximum over both images (pixels taken in
 * strides of the whole launch) into partial[2 * group], partial[2 * group + 1]. */
__kernel void flow_min_max(__global const uchar *a, int as, __global const uchar *b, int bs, int w,
                           int h, int is_u8, __global float *partial, __local float *s)
{
    float lo = INFINITY, hi = -INFINITY;
    /* Pixels id, id + step, ... of the w h (possibly over 2^31): (x, y)
     * stepped by (dx, dy), without a division per pixel. */
    const int step = (int)get_global_size(0), dx = step % w, dy = step / w;
    int x = (int)get_global_id(0) % w, y = (int)get_global_id(0) / w;
    while (y < h) {
        const float p = input_pixel(a, as, x, y, is_u8), q = input_pixel(b, bs, x, y, is_u8);
        lo = fmin(lo, fmin(p, q));
        hi = fmax(hi, fmax(p, q));
        x += dx;
        y += dy;
        if (x >= w) {
            x -= w;
            y++;
        }
    }
    group_min_max(lo, hi, s);
    if (get_local_id(0) == 0) {
        partial[2 * get_group_id(0)] = s[0];
        partial[2 * get_group_id(0) + 1] = s[get_local_size(0)];
    }
}

/* One work-group: the minimum and maximum of `groups` partial results into
 * mm[0] and mm[1]. */
__kernel void flow_min_max_final(__global const float *partial, int groups, __global float *mm,
                                 __local float *s)
{
    float lo = INFINITY, hi = -INFINITY;
    for (int g = get_local_id(0); g < groups; g += get_local_size(0)) {
        lo = fmin(lo, partial[2 * g]);
        hi = fmax(hi, partial[2 * g + 1]);
    }
    group_min_max(lo, hi, s);
    if (get_local_id(0) == 0) {
        mm[0] = s[0];
        mm[1] = s[get_local_size(0)];
    }
}

/* 255 (p - min) / (max - min), or p itself when max - min is not positive. */
__kernel void flow_normalize(__global const uchar *a, int as, __global const uchar *b, int bs,
                             int w, int h, int is_u8, __global const float *mm, __global float *oa,
                             __global float *ob)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const float lo = mm[0], den = mm[1] - mm[0];
    const float p = input_pixel(a, as, x, y, is_u8), q = input_pixel(b, bs, x, y, is_u8);
    const long i = IDX(y, w) + x;
    oa[i] = den > 0.0f ? 255.0f * (p - lo) / den : p;
    ob[i] = den > 0.0f ? 255.0f * (q - lo) / den : q;
}

/* ---- bicubic interpolation (the reference's, in float) ------------------------------ */

/* The cubic through v0..v3 at -1, 0, 1, 2, at x in [0, 1), operation for
 * operation as the reference's cubic_interpolation_cell. */
#define CUBIC(T)                                                                                   \
    inline T cubic_##T(T v0, T v1, T v2, T v3, float x)                                            \
    {                                                                                              \
        return v1 + 0.5f * x *                                                                     \
                        (v2 - v0 +                                                                 \
                         x * (2.0f * v0 - 5.0f * v1 + 4.0f * v2 - v3 +                             \
                              x * (3.0f * (v1 - v2) + v3 - v0)));                                  \
    }
CUBIC(float)
CUBIC(float2)
CUBIC(float4)

/* NAME(img, w, h, x, y): img (w x h) at (x, y), x, y >= 0, taps clamped to
 * the image: down each of the four tap columns first, then across, as the
 * reference; AT(k) is the T at element k of img's plane (bicubic_clamped:
 * a plane; bicubic_flow: the two planes of a flow). */
#define BICUBIC_CLAMPED(NAME, T, IN_T, AT)                                                         \
    inline T NAME(__global const IN_T *img, int w, int h, float x, float y)                        \
    {                                                                                              \
        const int ix = (int)x, iy = (int)y;                                                        \
        const float tx = x - (float)ix, ty = y - (float)iy;                                        \
        long r[4];                                                                                 \
        for (int j = 0; j < 4; j++)                                                                \
            r[j] = IDX(clamp(iy - 1 + j, 0, h - 1), w);                                            \
        T v[4];                                                                                    \
        for (int i = 0; i < 4; i++) {                                                              \
            const int c = clamp(ix - 1 + i, 0, w - 1);                                             \
            v[i] = cubic_##T(AT(r[0] + c), AT(r[1] + c), AT(r[2] + c), AT(r[3] + c), ty);          \
        }                                                                                          \
        return cubic_##T(v[0], v[1], v[2], v[3], tx);                                              \
    }
#define PLANE_AT(k) img[k]
#define FLOW_AT(k)  load_u(img, PLANE(w, h), k)
BICUBIC_CLAMPED(bicubic_clamped, float, float, PLANE_AT)
BICUBIC_CLAMPED(bicubic_flow, float2, store_t, FLOW_AT)
#undef PLANE_AT
#undef FLOW_AT

/* ---- pyramid and flow resampling ---------------------------------------------------- */

/* dst (dw x dh) = src (sw x sh) at (x / fx, y / fy): the reference's zoom_out
 * (fx = fy = zoom, on the smoothed level) and zoom_in (fx = dw / sw). */
__kernel void flow_zoom(__global const float *src, int sw, int sh, __global float *dst, int dw,
                        int dh, float fx, float fy)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= dw || y >= dh)
        return;
    dst[IDX(y, dw) + x] = bicubic_clamped(src, sw, sh, (float)x / fx, (float)y / fy);
}

/* The same for a flow, the vectors multiplied by scale (1: none). */
__kernel void flow_zoom_flow(__global const store_t *src, int sw, int sh, __global store_t *dst,
                             int dw, int dh, float fx, float fy, float scale)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= dw || y >= dh)
        return;
    float2 f = bicubic_flow(src, sw, sh, (float)x / fx, (float)y / fy);
    if (scale != 1.0f)
        f *= scale;
    const long i = IDX(y, dw) + x;
    ST(f.x, dst, i);
    ST(f.y, dst, PLANE(dw, dh) + i);
}

/* ---- warping, once per warp --------------------------------------------------------- */

/* The bicubic value of a plane from its 4 x 4 taps at k (top left), rows w
 * apart: each row's four taps as one vector, the cubic down the rows on the
 * four columns at once, then across (the reference's order). */
inline float cubic_rows(__global const float *plane, long k, int w, float tx, float ty)
{
    const float4 v = cubic_float4(vload4(0, plane + k), vload4(0, plane + k + w),
                                  vload4(0, plane + k + 2 * w), vload4(0, plane + k + 3 * w), ty);
    return cubic_float(v.x, v.y, v.z, v.w, tx);
}

/* g = the centred gradient of the level's I1, one-sided at the borders. */
__kernel void flow_gradient(__global const float *img, int w, int h, __global float *g)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const long i = IDX(y, w) + x;
    __global const float *row = img + IDX(y, w);
    /* Rows min(y + 1, h - 1) and max(y - 1, 0). */
    __global const float *down = row + (y < h - 1 ? w : 0), *up = row - (y > 0 ? w : 0);
    g[i] = 0.5f * (row[min(x + 1, w - 1)] - row[max(x - 1, 0)]);
    g[PLANE(w, h) + i] = 0.5f * (down[x] - up[x]);
}

/*
 * I1 and its gradient sampled bicubically at (x + u1, y + u2), 0 unless all
 * 4 x 4 taps lie inside (1 <= x + u1 < w - 2, the same down), then the data
 * term's constant parts: wd = (I1x, I1y, rho_c = I1w - I1x u1 - I1y u2 - I0).
 * The first work-item also clears the stop mark of the warp's iterations.
 */
__kernel void flow_warp(__global const float *i0, __global const float *i1, __global const float *g,
                        __global const store_t *u, int w, int h, __global float *wd,
                        __global int *stop)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x == 0 && y == 0)
        stop[0] = INT_MAX;
    if (x >= w || y >= h)
        return;
    const long n = PLANE(w, h), i = IDX(y, w) + x;
    const float2 uv = load_u(u, n, i);
    const float xx = (float)x + uv.x, yy = (float)y + uv.y;
    float iw = 0.0f, gx = 0.0f, gy = 0.0f;
    if (xx >= 1.0f && xx < (float)(w - 2) && yy >= 1.0f && yy < (float)(h - 2)) {
        const int ix = (int)xx, iy = (int)yy;
        const float tx = xx - (float)ix, ty = yy - (float)iy;
        const long k = IDX(iy - 1, w) + ix - 1;
        iw = cubic_rows(i1, k, w, tx, ty);
        gx = cubic_rows(g, k, w, tx, ty);
        gy = cubic_rows(g + n, k, w, tx, ty);
    }
    const float4 s = (float4)(iw, gx, gy, 0.0f);
    wd[i] = s.y;
    wd[n + i] = s.z;
    wd[2 * n + i] = s.x - s.y * uv.x - s.z * uv.y - i0[i];
}

/* ---- the U step: thresholding, divergence, update of u ------------------------------ */

/*
 * The thresholding step of the data term at a pixel of u = uo, image
 * gradient (ix, iy) (grad = ix^2 + iy^2) and constant part rho_c of the
 * residual: v = uo + k (ix, iy), the reference's four cases as one factor k
 * without branches (they vectorize): l_t, -l_t, 0 where grad is 0, -rho /
 * grad.
 */
inline float2 u_threshold(float2 uo, float ix, float iy, float rho_c, float grad, float l_t)
{
    const float rho = rho_c + (ix * uo.x + iy * uo.y);
    const float fi = -rho / grad;
    const float k = rho < -l_t * grad     ? l_t
                    : rho > l_t * grad    ? -l_t
                    : grad < GRAD_IS_ZERO ? 0.0f
                                          : fi;
    return (float2)(uo.x + k * ix, uo.y + k * iy);
}

/* The squared change of u from uo to (u1, u2). */
inline float u_change(float u1, float u2, float2 uo)
{
    const float e1 = u1 - uo.x, e2 = u2 - uo.y;
    return e1 * e1 + e2 * e2;
}

/*
 * At pixel i = (x, y): v = u + the thresholding step of the data term, then
 * u = v + theta div p, with p at (x, y) (pc), at (x - 1, y) (pl, 0 on the
 * first column) and at (x, y - 1) (pu, 0 on the first row); p counts as 0 on
 * the last column (p11, p21) and the last row (p12, p22). Returns the
 * squared change of u.
 */
inline float u_core(__global const float *wd, __global store_t *u, long n, long i, int x, int y,
                    int w, int h, float4 pc, float4 pl, float4 pu, float theta, float l_t)
{
    const float ix = wd[i], iy = wd[n + i];
    const float2 uo = load_u(u, n, i);
    const float2 v = u_threshold(uo, ix, iy, wd[2 * n + i], ix * ix + iy * iy, l_t);
    const int last_x = x == w - 1, last_y = y == h - 1;
    const float div1 = ((last_x ? 0.0f : pc.s0) - pl.s0) + ((last_y ? 0.0f : pc.s1) - pu.s1);
    const float div2 = ((last_x ? 0.0f : pc.s2) - pl.s2) + ((last_y ? 0.0f : pc.s3) - pu.s3);
    const float u1 = v.x + theta * div1, u2 = v.y + theta * div2;
    ST(u1, u, i);
    ST(u2, u, n + i);
    return u_change(u1, u2, uo);
}

/* The U step at (x, y) with p read from global memory: the neighbours are
 * loaded whatever x and y (p's guard, see P_FIELD) and then masked, so the
 * loads of a row are contiguous. */
inline float u_global(__global const float *wd, __global store_t *u, __global const store_t *p,
                      int x, int y, int w, int h, float theta, float l_t)
{
    const long n = PLANE(w, h), i = IDX(y, w) + x;
    const float4 zero = (float4)(0.0f);
    const float4 pc = load_p(p, n, i);
    float4 pl = load_p(p, n, i - 1), pu = load_p(p, n, i - w);
    pl = x > 0 ? pl : zero;
    pu = y > 0 ? pu : zero;
    return u_core(wd, u, n, i, x, y, w, h, pc, pl, pu, theta, l_t);
}

/* p's planes start after a guard of w elements (one row), so that p at
 * (x - 1, y) and (x, y - 1) may be loaded for every pixel; u's planes are
 * followed by a guard of w + 1 elements, for u at (x + 1, y) and (x, y + 1).
 * The guards' values are never used. */
#define P_FIELD(p, w) ((p) + (w))

#define U_ARGS                                                                                     \
    __global const float *wd, __global store_t *u, __global const store_t *p, int w, int h,        \
        float theta, float l_t, int iter, __global const int *stop

__kernel void flow_u(U_ARGS)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (iter > stop[0] || x >= w || y >= h)
        return;
    u_global(wd, u, P_FIELD(p, w), x, y, w, h, theta, l_t);
}

/* flow_u that also writes the work-group's sum of squared changes into
 * partial (one float per work-group, row-major over the groups). */
__kernel void flow_u_check(U_ARGS, __global float *partial, __local float *sums)
{
    const int x = get_global_id(0), y = get_global_id(1), active = iter <= stop[0];
    float e = 0.0f;
    if (active && x < w && y < h)
        e = u_global(wd, u, P_FIELD(p, w), x, y, w, h, theta, l_t);
    e = group_sum(e, sums);
    if (active && local_index() == 0)
        partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = e;
}

/* p of a tile of tw x th work-items and the column left of it and the row
 * above it into tile ((tw + 1) x (th + 1), row-major), 0 outside the image;
 * nothing when the warp has stopped (the barrier is reached either way). */
inline void stage_p(__global const store_t *p, int w, int h, int active, __local float4 *tile)
{
    const int tw = get_local_size(0), th = get_local_size(1);
    const int x0 = get_group_id(0) * tw - 1, y0 = get_group_id(1) * th - 1;
    const long n = PLANE(w, h);
    p = P_FIELD(p, w);
    for (int k = local_index(); active && k < (tw + 1) * (th + 1); k += tw * th) {
        const int gx = x0 + k % (tw + 1), gy = y0 + k / (tw + 1);
        tile[k] =
            gx >= 0 && gx < w && gy >= 0 && gy < h ? load_p(p, n, IDX(gy, w) + gx) : (float4)(0.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The U step at (x, y) with p from the staged tile. */
inline float u_tile(__global const float *wd, __global store_t *u, __local const float4 *tile,
                    int x, int y, int w, int h, float theta, float l_t)
{
    const int tw = get_local_size(0), lx = get_local_id(0), ly = get_local_id(1);
    const int c = (ly + 1) * (tw + 1) + lx + 1;
    return u_core(wd, u, PLANE(w, h), IDX(y, w) + x, x, y, w, h, tile[c], tile[c - 1],
                  tile[c - tw - 1], theta, l_t);
}

/* Kernels with barriers return only after the last one: every work-item of
 * a work-group must reach each (PoCL hangs on a return before a barrier
 * even when the whole work-group takes it). */
__kernel void flow_u_local(U_ARGS, __local float4 *tile)
{
    const int x = get_global_id(0), y = get_global_id(1), active = iter <= stop[0];
    stage_p(p, w, h, active, tile);
    if (active && x < w && y < h)
        u_tile(wd, u, tile, x, y, w, h, theta, l_t);
}

__kernel void flow_u_local_check(U_ARGS, __global float *partial, __local float *sums,
                                 __local float4 *tile)
{
    const int x = get_global_id(0), y = get_global_id(1), active = iter <= stop[0];
    stage_p(p, w, h, active, tile);
    float e = 0.0f;
    if (active && x < w && y < h)
        e = u_tile(wd, u, tile, x, y, w, h, theta, l_t);
    e = group_sum(e, sums);
    if (active && local_index() == 0)
        partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = e;
}

/* One work-group: the mean of the partial sums over n pixels; when it is at
 * most eps2 (or NaN), iteration iter is the warp's last. */
__kernel void flow_decide(__global const float *partial, long groups, long n, float eps2, int iter,
                          __global int *stop, __local float *sums)
{
    const int active = iter <= stop[0];
    float e = 0.0f;
    for (long g = get_local_id(0); active && g < groups; g += get_local_size(0))
        e += partial[g];
    e = group_sum(e, sums);
    /* Every work-item has read stop before work-item 0 may write it (the
     * sum's barriers order local memory only). */
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (active && get_local_id(0) == 0 && !(e / (float)n > eps2))
        stop[0] = iter;
}

/* ---- the P step: forward gradient of u, dual update --------------------------------- */

/*
 * The dual step of p = (p1 along x, p1 along y, p2 along x, p2 along y)
 * from the forward gradients of u1 and u2, (gx.x, gy.x) and (gx.y, gy.y):
 * p = (p + taut grad u) / (1 + taut |grad u|), each of u1 and u2. |grad u|
 * as sqrt(x^2 + y^2): hypot is a slow library call on some devices (PoCL),
 * and these gradients are far from overflow.
 */
inline float4 p_dual(float4 pv, float2 gx, float2 gy, float taut)
{
    const float2 g = sqrt(gx * gx + gy * gy);
    const float ng1 = 1.0f + taut * g.x, ng2 = 1.0f + taut * g.y;
    return (float4)((pv.s0 + taut * gx.x) / ng1, (pv.s1 + taut * gy.x) / ng1,
                    (pv.s2 + taut * gx.y) / ng2, (pv.s3 + taut * gy.y) / ng2);
}

#if CLIK_FP16
/* p_dual in half arithmetic: the fields are halves already; so is the
 * result. */
inline half4 p_dual_half(half4 pv, half2 gx, half2 gy, half t)
{
    const half2 g = sqrt(gx * gx + gy * gy);
    const half ng1 = 1.0h + t * g.x, ng2 = 1.0h + t * g.y;
    return (half4)((pv.s0 + t * gx.x) / ng1, (pv.s1 + t * gy.x) / ng1, (pv.s2 + t * gx.y) / ng2,
                   (pv.s3 + t * gy.y) / ng2);
}
#endif

/* At pixel i = (x, y) with u at (x, y), (x + 1, y) and (x, y + 1) (any
 * value on the last column or row, where the gradient is 0): p_dual. */
inline void p_core(__global store_t *p, long n, long i, int x, int y, int w, int h, float2 uc,
                   float2 ur, float2 ud, float taut)
{
    const int last_x = x == w - 1, last_y = y == h - 1;
#if CLIK_FP16
    const half2 c = convert_half2(uc), r = convert_half2(ur), d = convert_half2(ud);
    const half2 gx = last_x ? (half2)(0.0h) : r - c, gy = last_y ? (half2)(0.0h) : d - c;
    __global half *ph = (__global half *)p;
    const half4 pn =
        p_dual_half((half4)(ph[i], ph[n + i], ph[2 * n + i], ph[3 * n + i]), gx, gy, (half)taut);
    ph[i] = pn.s0;
    ph[n + i] = pn.s1;
    ph[2 * n + i] = pn.s2;
    ph[3 * n + i] = pn.s3;
#else
    const float2 gx = last_x ? (float2)(0.0f) : ur - uc, gy = last_y ? (float2)(0.0f) : ud - uc;
    const float4 pn = p_dual(load_p(p, n, i), gx, gy, taut);
    ST(pn.s0, p, i);
    ST(pn.s1, p, n + i);
    ST(pn.s2, p, 2 * n + i);
    ST(pn.s3, p, 3 * n + i);
#endif
}

/* The P step at (x, y) with u read from global memory (past its end on the
 * last row: u's guard). */
inline void p_global(__global const store_t *u, __global store_t *p, int x, int y, int w, int h,
                     float taut)
{
    const long n = PLANE(w, h), i = IDX(y, w) + x;
    p_core(p, n, i, x, y, w, h, load_u(u, n, i), load_u(u, n, i + 1), load_u(u, n, i + w), taut);
}

#define P_ARGS                                                                                     \
    __global const store_t *u, __global store_t *p, int w, int h, float taut, int iter,            \
        __global const int *stop

__kernel void flow_p(P_ARGS)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (iter > stop[0] || x >= w || y >= h)
        return;
    p_global(u, P_FIELD(p, w), x, y, w, h, taut);
}

/* u of a tile and the column right of it and the row below it staged in
 * tile ((tw + 1) x (th + 1)), clamped to the image. */
__kernel void flow_p_local(P_ARGS, __local float2 *tile)
{
    const int tw = get_local_size(0), th = get_local_size(1);
    const long n = PLANE(w, h);
    const int x0 = get_group_id(0) * tw, y0 = get_group_id(1) * th, active = iter <= stop[0];
    for (int k = local_index(); active && k < (tw + 1) * (th + 1); k += tw * th) {
        const int gx = min(x0 + k % (tw + 1), w - 1), gy = min(y0 + k / (tw + 1), h - 1);
        tile[k] = load_u(u, n, IDX(gy, w) + gx);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = get_global_id(0), y = get_global_id(1);
    if (!active || x >= w || y >= h)
        return;
    const int c = get_local_id(1) * (tw + 1) + get_local_id(0);
    p_core(P_FIELD(p, w), n, IDX(y, w) + x, x, y, w, h, tile[c], tile[c + 1], tile[c + tw + 1],
           taut);
}

/* ---- CPU devices: bands of rows, 16 pixels per step -------------------------------- */

/*
 * Work-item g takes rows [g * band, (g + 1) * band) of the level, 16 pixels
 * at a time with the same operations as u_core and p_core on each lane
 * (the borders by lane masks), the last pixels of a row one by one. One
 * work-item per work-group: no barriers, and few work-groups (PoCL pays for
 * each). flow_u_rows also writes its squared changes into partial[g].
 */
#if STORE_HALF
#define LDV(ptr, i)    vload_half16(0, (__global const half *)(ptr) + (i))
#define STV(v, ptr, i) vstore_half16_rte((v), 0, (__global half *)(ptr) + (i))
#else
#define LDV(ptr, i)    vload16(0, (ptr) + (i))
#define STV(v, ptr, i) vstore16((v), 0, (ptr) + (i))
#endif

#define LANES (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)

/* The start of both: work-item g's rows [y0, y1), n the elements of a
 * plane, p moved to its field (P_FIELD); nothing to do once the warp has
 * stopped or below the level. */
#define ROWS_BAND                                                                                  \
    const int g = get_global_id(0), y0 = g * band, y1 = min(h, y0 + band);                         \
    const long n = PLANE(w, h);                                                                    \
    if (iter > stop[0] || y0 >= h)                                                                 \
        return;                                                                                    \
    p = P_FIELD(p, w)

inline float sum16(float16 v)
{
    const float8 a = v.lo + v.hi;
    const float4 b = a.lo + a.hi;
    const float2 c = b.lo + b.hi;
    return c.x + c.y;
}

__kernel void flow_u_rows(U_ARGS, int band, __global float *partial)
{
    ROWS_BAND;
    const float16 zero = (float16)(0.0f);
    float16 acc = zero;
    float e = 0.0f;
    for (int y = y0; y < y1; y++) {
        const long row = IDX(y, w);
        int x = 0;
        for (; x + 16 <= w; x += 16) {
            const long i = row + x;
            const int16 xs = (int16)(x) + LANES;
            const int16 first = xs == (int16)(0), last = xs == (int16)(w - 1);
            const float16 ix = vload16(0, wd + i), iy = vload16(0, wd + n + i);
            const float16 grad = ix * ix + iy * iy;
            const float16 u1 = LDV(u, i), u2 = LDV(u, n + i);
            const float16 rho = vload16(0, wd + 2 * n + i) + (ix * u1 + iy * u2);
            const float16 fi = -rho / grad, lg = l_t * grad;
            float16 k = select(fi, zero, grad < (float16)(GRAD_IS_ZERO));
            k = select(k, (float16)(-l_t), rho > lg);
            k = select(k, (float16)(l_t), rho < -lg);
            const float16 v1 = u1 + k * ix, v2 = u2 + k * iy;
            const float16 a1 = select(LDV(p, i), zero, last);
            const float16 a2 = select(LDV(p, 2 * n + i), zero, last);
            const float16 l1 = select(LDV(p, i - 1), zero, first);
            const float16 l2 = select(LDV(p, 2 * n + i - 1), zero, first);
            const float16 c1 = y < h - 1 ? LDV(p, n + i) : zero;
            const float16 c2 = y < h - 1 ? LDV(p, 3 * n + i) : zero;
            const float16 t1 = y > 0 ? LDV(p, n + i - w) : zero;
            const float16 t2 = y > 0 ? LDV(p, 3 * n + i - w) : zero;
            const float16 n1 = v1 + theta * ((a1 - l1) + (c1 - t1));
            const float16 n2 = v2 + theta * ((a2 - l2) + (c2 - t2));
            STV(n1, u, i);
            STV(n2, u, n + i);
            const float16 e1 = n1 - u1, e2 = n2 - u2;
            acc += e1 * e1 + e2 * e2;
        }
        for (; x < w; x++)
            e += u_global(wd, u, p, x, y, w, h, theta, l_t);
    }
    partial[g] = e + sum16(acc);
}

__kernel void flow_p_rows(P_ARGS, int band)
{
    ROWS_BAND;
    const float16 zero = (float16)(0.0f);
    for (int y = y0; y < y1; y++) {
        const long row = IDX(y, w);
        int x = 0;
        for (; x + 16 <= w; x += 16) {
            const long i = row + x;
            const int16 last = (int16)(x) + LANES == (int16)(w - 1);
            const float16 c1 = LDV(u, i), c2 = LDV(u, n + i);
            const float16 gx1 = select(LDV(u, i + 1) - c1, zero, last);
            const float16 gx2 = select(LDV(u, n + i + 1) - c2, zero, last);
            const float16 gy1 = y < h - 1 ? LDV(u, i + w) - c1 : zero;
            const float16 gy2 = y < h - 1 ? LDV(u, n + i + w) - c2 : zero;
            const float16 ng1 = 1.0f + taut * sqrt(gx1 * gx1 + gy1 * gy1);
            const float16 ng2 = 1.0f + taut * sqrt(gx2 * gx2 + gy2 * gy2);
            STV((LDV(p, i) + taut * gx1) / ng1, p, i);
            STV((LDV(p, n + i) + taut * gy1) / ng1, p, n + i);
            STV((LDV(p, 2 * n + i) + taut * gx2) / ng2, p, 2 * n + i);
            STV((LDV(p, 3 * n + i) + taut * gy2) / ng2, p, 3 * n + i);
        }
        for (; x < w; x++)
            p_global(u, p, x, y, w, h, taut);
    }
}

/* ---- small levels: a warp's iterations in one work-group ---------------------------- */

/*
 * Iterations first .. first + count - 1 of one warp by one work-group of any
 * shape (the host launches a warp's iterations in blocks: a work-item's
 * loops stay short, see lib/ops/flow.c), each work-item taking the pixels
 * (x, y) = its local id plus multiples of the work-group's size: the U step
 * over the level, a barrier, the P step, a barrier (global memory is
 * consistent within a work-group at barriers). The stopping test sums each
 * work-item's squared changes over the work-group; *stop gets the last
 * iteration when the test ends the warp, and a block after it does nothing.
 */
__kernel void flow_iterate(__global const float *wd, __global store_t *u, __global store_t *p,
                           int w, int h, float theta, float l_t, float taut, int first, int count,
                           int check_every, float eps2, __global int *stop, __local float *sums)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int sx = get_local_size(0), sy = get_local_size(1);
    p = P_FIELD(p, w);
    /* Every work-item reads the mark before the first barrier; the only
     * write is after the last. */
    int it = first - 1, done = first > stop[0];
    while (!done && it < first + count - 1) {
        it++;
        float e = 0.0f;
        for (int y = ly; y < h; y += sy)
            for (int x = lx; x < w; x += sx)
                e += u_global(wd, u, p, x, y, w, h, theta, l_t);
        barrier(CLK_GLOBAL_MEM_FENCE);
        for (int y = ly; y < h; y += sy)
            for (int x = lx; x < w; x += sx)
                p_global(u, p, x, y, w, h, taut);
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* Every work-item takes the same sum, so the loop ends for all. */
        if (it % check_every == 0 && !(group_sum(e, sums) / (float)PLANE(w, h) > eps2)) {
            done = 1;
            if (local_index() == 0)
                stop[0] = it;
        }
    }
}

/* ---- GPUs: several iterations per launch on tiles with a halo ---------------------- */

#if STORE_HALF
#define LDL(ptr, i)    vload_half(0, (__local const half *)(ptr) + (i))
#define STL(v, ptr, i) vstore_half_rte((v), 0, (__local half *)(ptr) + (i))
#else
#define LDL(ptr, i)    ((ptr)[i])
#define STL(v, ptr, i) ((ptr)[i] = (v))
#endif

/*
 * Iterations first .. first + count - 1 of one warp, on a region of the
 * level the size of the work-group (a pixel per work-item) held in local
 * memory: the region is the work-group's tile and a halo of `halo` pixels
 * around it. Each iteration's U step reads p to the left and above, its P
 * step u to the right and below, so after k iterations the pixels within k
 * of the region's edge are wrong and the tile (count <= halo) is right;
 * only the tile is written. The fields are read from (u, p) and written
 * to (uo, po), other buffers: a work-group's halo is another's tile. A
 * block after the warp's stop (first > *stop) or of count 0 copies its
 * tile, so that the host knows which buffer holds the fields without
 * reading the stop mark. With check, the squared changes of u in the last
 * iteration's U step over the tile go to partial (flow_decide).
 * Local memory: fields holds the region's u1, u2, p11, p12, p21, p22
 * (planes of the work-group's size, stored as the fields are), sums one
 * float per work-item. The arithmetic and the rounding of stored values
 * are those of u_core and p_core.
 */
__kernel void flow_block(__global const float *wd, __global const store_t *u,
                         __global const store_t *p, __global store_t *uo, __global store_t *po,
                         int w, int h, float theta, float l_t, float taut, int first, int count,
                         int halo, int check, __global const int *stop, __global float *partial,
                         __local float *sums, __local store_t *fields)
{
    const int sx = get_local_size(0), sy = get_local_size(1);
    const int lx = get_local_id(0), ly = get_local_id(1), r = sx * sy, c = ly * sx + lx;
    const int x = get_group_id(0) * (sx - 2 * halo) - halo + lx;
    const int y = get_group_id(1) * (sy - 2 * halo) - halo + ly;
    const int in = x >= 0 && x < w && y >= 0 && y < h;
    const int own = in && lx >= halo && lx < sx - halo && ly >= halo && ly < sy - halo;
    const long n = PLANE(w, h), i = in ? IDX(y, w) + x : 0;
    p = P_FIELD(p, w);
    po = P_FIELD(po, w);
    /* Every work-item reads the mark before the first barrier. */
    const int steps = first <= stop[0] ? count : 0;
    float ix = 0.0f, iy = 0.0f, rho_c = 0.0f;
    if (in) {
        STL(LD(u, i), fields, c);
        STL(LD(u, n + i), fields, r + c);
        for (int k = 0; k < 4; k++)
            STL(LD(p, k * n + i), fields, (2 + k) * r + c);
        if (steps) {
            ix = wd[i];
            iy = wd[n + i];
            rho_c = wd[2 * n + i];
        }
    } else {
        for (int k = 0; k < 6; k++)
            STL(0.0f, fields, k * r + c);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float grad = ix * ix + iy * iy;
    const int last_x = x == w - 1, last_y = y == h - 1;
    const int has_l = lx > 0 && x > 0, has_u = ly > 0 && y > 0;
    const int has_r = lx + 1 < sx && !last_x, has_d = ly + 1 < sy && !last_y;
    __local store_t *pf = fields + 2 * r;
    float e = 0.0f;
    for (int it = 0; it < steps; it++) {
        /* The U step (u_core's arithmetic). */
        if (in) {
            const float2 uo2 = (float2)(LDL(fields, c), LDL(fields, r + c));
            const float2 v = u_threshold(uo2, ix, iy, rho_c, grad, l_t);
            const float pc0 = last_x ? 0.0f : LDL(pf, c), pc2 = last_x ? 0.0f : LDL(pf, 2 * r + c);
            const float pc1 = last_y ? 0.0f : LDL(pf, r + c),
                        pc3 = last_y ? 0.0f : LDL(pf, 3 * r + c);
            const float pl0 = has_l ? LDL(pf, c - 1) : 0.0f,
                        pl2 = has_l ? LDL(pf, 2 * r + c - 1) : 0.0f;
            const float pu1 = has_u ? LDL(pf, r + c - sx) : 0.0f;
            const float pu3 = has_u ? LDL(pf, 3 * r + c - sx) : 0.0f;
            const float u1 = v.x + theta * ((pc0 - pl0) + (pc1 - pu1));
            const float u2 = v.y + theta * ((pc2 - pl2) + (pc3 - pu3));
            STL(u1, fields, c);
            STL(u2, fields, r + c);
            e = u_change(u1, u2, uo2);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The P step (p_core's arithmetic). */
        if (in) {
            const float2 uc = (float2)(LDL(fields, c), LDL(fields, r + c));
            const float2 ur = has_r ? (float2)(LDL(fields, c + 1), LDL(fields, r + c + 1)) : uc;
            const float2 ud = has_d ? (float2)(LDL(fields, c + sx), LDL(fields, r + c + sx)) : uc;
#if CLIK_FP16
            const half2 hc = convert_half2(uc), hr = convert_half2(ur), hd = convert_half2(ud);
            __local half *ph = (__local half *)pf;
            const half4 pn = p_dual_half((half4)(ph[c], ph[r + c], ph[2 * r + c], ph[3 * r + c]),
                                         hr - hc, hd - hc, (half)taut);
            ph[c] = pn.s0;
            ph[r + c] = pn.s1;
            ph[2 * r + c] = pn.s2;
            ph[3 * r + c] = pn.s3;
#else
            const float4 pv =
                (float4)(LDL(pf, c), LDL(pf, r + c), LDL(pf, 2 * r + c), LDL(pf, 3 * r + c));
            const float4 pn = p_dual(pv, ur - uc, ud - uc, taut);
            STL(pn.s0, pf, c);
            STL(pn.s1, pf, r + c);
            STL(pn.s2, pf, 2 * r + c);
            STL(pn.s3, pf, 3 * r + c);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (own) {
        ST(LDL(fields, c), uo, i);
        ST(LDL(fields, r + c), uo, n + i);
        for (int k = 0; k < 4; k++)
            ST(LDL(pf, k * r + c), po, k * n + i);
    }
    if (check) {
        e = group_sum(steps && own ? e : 0.0f, sums);
        if (steps && local_index() == 0)
            partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = e;
    }
}

/* ---- clik_flow_warp: an image moved back along a flow --------------------------------- */

/* dst(x, y) = src sampled at (x + u, y + v), (u, v) the flow at (x, y),
 * as OpenCV 5's remap with INTER_LINEAR and BORDER_REPLICATE (lib/clik.h
 * gives the arithmetic): the position clamped to [-1, w] x [-1, h] (fmin and
 * fmax: NaN takes the low end), its whole part picks four taps (each
 * clamped into the image), its fraction blends them by three fused
 * multiply-adds, rounded half to even. With `average`, dst = (ref + that +
 * 1) >> 1. One pixel per work-item, `ch` channels (1 to 4) of bytes; strides
 * in elements (the flow's in floats). */
/* Pixel (x, y) of flow_remap: f the flow there, out and mix its first
 * channel in dst and ref. */
inline void remap_px(__global const uchar *src, int ss, int w, int h, int ch, float2 f, int x,
                     int y, __global const uchar *mix, int average, __global uchar *out)
{
    const float sx = fmin(fmax((float)x + f.x, -1.0f), (float)w);
    const float sy = fmin(fmax((float)y + f.y, -1.0f), (float)h);
    const float fx = floor(sx), fy = floor(sy);
    const float a = sx - fx, b = sy - fy;
    const int x0 = (int)fx, y0 = (int)fy;
    const int xa = clamp(x0, 0, w - 1) * ch, xb = clamp(x0 + 1, 0, w - 1) * ch;
    __global const uchar *r0 = src + IDX(clamp(y0, 0, h - 1), ss);
    __global const uchar *r1 = src + IDX(clamp(y0 + 1, 0, h - 1), ss);
    for (int c = 0; c < ch; c++) {
        const float p00 = r0[xa + c], p01 = r0[xb + c], p10 = r1[xa + c], p11 = r1[xb + c];
        const float t0 = fma(a, p01 - p00, p00), t1 = fma(a, p11 - p10, p10);
        int v = (int)rint(fma(b, t1 - t0, t0));
        if (average)
            v = (v + mix[c] + 1) >> 1;
        out[c] = (uchar)v;
    }
}

__kernel void flow_remap(__global const uchar *src, int ss, int w, int h, int ch,
                         __global const float *flow, int fs, __global const uchar *ref, int rs,
                         int average, __global uchar *dst, int ds)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= w || y >= h)
        return;
    remap_px(src, ss, w, h, ch, vload2(0, flow + IDX(y, fs) + 2 * x), x, y,
             ref + IDX(y, rs) + x * ch, average, dst + IDX(y, ds) + x * ch);
}

/* CPU devices (warp_rows): flow_remap by a row a work-item, 16 pixels a
 * step (the row's last w mod 16 pixels one at a time), the taps gathered
 * lane by lane and every lane's
 * arithmetic flow_remap's, operation for operation. Offsets within src fit
 * an int (the host's choice). */
#define REMAP_GATHER16(p, i)                                                                       \
    (float16)(p[i.s0], p[i.s1], p[i.s2], p[i.s3], p[i.s4], p[i.s5], p[i.s6], p[i.s7], p[i.s8],     \
              p[i.s9], p[i.sa], p[i.sb], p[i.sc], p[i.sd], p[i.se], p[i.sf])

#define REMAP_PAIR(p, i) (uint) as_ushort(vload2(0, (p) + (i)))
#define REMAP_PAIRS16(p, i)                                                                        \
    (uint16)(REMAP_PAIR(p, i.s0), REMAP_PAIR(p, i.s1), REMAP_PAIR(p, i.s2), REMAP_PAIR(p, i.s3),   \
             REMAP_PAIR(p, i.s4), REMAP_PAIR(p, i.s5), REMAP_PAIR(p, i.s6), REMAP_PAIR(p, i.s7),   \
             REMAP_PAIR(p, i.s8), REMAP_PAIR(p, i.s9), REMAP_PAIR(p, i.sa), REMAP_PAIR(p, i.sb),   \
             REMAP_PAIR(p, i.sc), REMAP_PAIR(p, i.sd), REMAP_PAIR(p, i.se), REMAP_PAIR(p, i.sf))
#define REMAP_PP(p, i) as_ulong(vload8(0, (p) + (i)))
#define REMAP_PIXEL_PAIRS16(p, i)                                                                  \
    (ulong16)(REMAP_PP(p, i.s0), REMAP_PP(p, i.s1), REMAP_PP(p, i.s2), REMAP_PP(p, i.s3),          \
              REMAP_PP(p, i.s4), REMAP_PP(p, i.s5), REMAP_PP(p, i.s6), REMAP_PP(p, i.s7),          \
              REMAP_PP(p, i.s8), REMAP_PP(p, i.s9), REMAP_PP(p, i.sa), REMAP_PP(p, i.sb),          \
              REMAP_PP(p, i.sc), REMAP_PP(p, i.sd), REMAP_PP(p, i.se), REMAP_PP(p, i.sf))

/* The bilinear blend of 16 lanes' taps, rounded (remap_px's arithmetic). */
inline int16 remap_blend16(float16 a, float16 b, float16 p00, float16 p01, float16 p10, float16 p11)
{
    const float16 t0 = fma(a, p01 - p00, p00), t1 = fma(a, p11 - p10, p10);
    return convert_int16(rint(fma(b, t1 - t0, t0)));
}

__kernel void flow_remap_rows(__global const uchar *src, int ss, int w, int h, int ch,
                              __global const float *flow, int fs, __global const uchar *ref, int rs,
                              int average, __global uchar *dst, int ds)
{
    const int y = (int)get_global_id(0);
    if (y >= h)
        return;
    __global const float *frow = flow + IDX(y, fs);
    __global uchar *out = dst + IDX(y, ds);
    __global const uchar *mix = ref + IDX(y, rs);
    const float16 lane = (float16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int16 zero = (int16)0, wmax = (int16)(w - 1), hmax = (int16)(h - 1), chv = (int16)ch;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        const float16 f0 = vload16(0, frow + 2 * x), f1 = vload16(1, frow + 2 * x);
        const float16 u = (float16)(f0.even, f1.even), v = (float16)(f0.odd, f1.odd);
        const float16 sx = fmin(fmax(((float16)x + lane) + u, -1.0f), (float)w);
        const float16 sy = fmin(fmax((float16)y + v, -1.0f), (float)h);
        const float16 fx = floor(sx), fy = floor(sy);
        const float16 a = sx - fx, b = sy - fy;
        const int16 x0 = convert_int16(fx), y0 = convert_int16(fy);
        const int16 o0 = clamp(y0, zero, hmax) * ss, o1 = clamp(y0 + 1, zero, hmax) * ss;
        if (ch == 1) {
            /* a row's two taps by one 2-byte load from clamp(x0, 0, w - 2)
             * (rows of steps have w >= 16): its low byte is the left tap and
             * its high byte the right one, but left of the image both are
             * the low byte and from w - 1 on both the high one */
            const int16 bx = clamp(x0, zero, wmax - 1), right = x0 >= wmax, left = x0 < zero;
            const int16 j0 = o0 + bx, j1 = o1 + bx;
            const uint16 q0 = REMAP_PAIRS16(src, j0), q1 = REMAP_PAIRS16(src, j1);
            const uint16 lo0 = q0 & 255u, hi0 = q0 >> 8, lo1 = q1 & 255u, hi1 = q1 >> 8;
            int16 r = remap_blend16(a, b, convert_float16(select(lo0, hi0, right)),
                                    convert_float16(select(hi0, lo0, left)),
                                    convert_float16(select(lo1, hi1, right)),
                                    convert_float16(select(hi1, lo1, left)));
            if (average)
                r = (r + convert_int16(vload16(0, mix + x)) + 1) >> 1;
            vstore16(convert_uchar16(r), 0, out + x);
            continue;
        }
        if (ch == 4) {
            /* a row's two taps by one 8-byte load (as the bytes of two
             * words), from pixel clamp(x0, 0, w - 2) as for one channel; a
             * tap's four channels as the bytes of its word */
            const int16 right = x0 >= wmax, left = x0 < zero;
            const int16 bx = clamp(x0, zero, wmax - 1) * 4;
            const int16 j0 = o0 + bx, j1 = o1 + bx;
            const ulong16 q0 = REMAP_PIXEL_PAIRS16(src, j0), q1 = REMAP_PIXEL_PAIRS16(src, j1);
            const uint16 lo0 = convert_uint16(q0 & 0xffffffffu), hi0 = convert_uint16(q0 >> 32);
            const uint16 lo1 = convert_uint16(q1 & 0xffffffffu), hi1 = convert_uint16(q1 >> 32);
            const uint16 w00 = select(lo0, hi0, right), w01 = select(hi0, lo0, left);
            const uint16 w10 = select(lo1, hi1, right), w11 = select(hi1, lo1, left);
            __global uchar *o = out + 4 * x;
            uint16 m = 0, packed = 0;
            if (average)
                m = (uint16)(as_uint4(vload16(0, mix + 4 * x)), as_uint4(vload16(1, mix + 4 * x)),
                             as_uint4(vload16(2, mix + 4 * x)), as_uint4(vload16(3, mix + 4 * x)));
            for (uint sh = 0; sh < 32; sh += 8) {
#define BYTE16(v) convert_float16(((v) >> sh) & 255u)
                int16 r = remap_blend16(a, b, BYTE16(w00), BYTE16(w01), BYTE16(w10), BYTE16(w11));
#undef BYTE16
                if (average)
                    r = (r + convert_int16((m >> sh) & 255u) + 1) >> 1;
                packed |= convert_uint16(r) << sh;
            }
            vstore16(as_uchar16(packed.lo.lo), 0, o);
            vstore16(as_uchar16(packed.lo.hi), 1, o);
            vstore16(as_uchar16(packed.hi.lo), 2, o);
            vstore16(as_uchar16(packed.hi.hi), 3, o);
            continue;
        }
        /* 2 and 3 channels: each tap's byte by a load of its own */
        const int16 xa = clamp(x0, zero, wmax) * chv, xb = clamp(x0 + 1, zero, wmax) * chv;
        const int16 i00 = o0 + xa, i01 = o0 + xb, i10 = o1 + xa, i11 = o1 + xb;
        uchar kept[3][16]; /* stored lane by lane */
        for (int c = 0; c < ch; c++) {
            __global const uchar *s = src + c;
            int16 r = remap_blend16(a, b, REMAP_GATHER16(s, i00), REMAP_GATHER16(s, i01),
                                    REMAP_GATHER16(s, i10), REMAP_GATHER16(s, i11));
            if (average) {
                __global const uchar *q = mix + x * ch + c;
                r = (r +
                     (int16)(q[0], q[ch], q[2 * ch], q[3 * ch], q[4 * ch], q[5 * ch], q[6 * ch],
                             q[7 * ch], q[8 * ch], q[9 * ch], q[10 * ch], q[11 * ch], q[12 * ch],
                             q[13 * ch], q[14 * ch], q[15 * ch]) +
                     1) >>
                    1;
            }
            vstore16(convert_uchar16(r), 0, kept[c]);
        }
        for (int i = 0; i < 16; i++) {
            __global uchar *o = out + (x + i) * ch;
            for (int c = 0; c < ch; c++)
                o[c] = kept[c][i];
        }
    }
    /* The last pixels one at a time: a step overlapping the one before
     * would read ref where it already wrote dst (in place, ref may be dst). */
    for (; x < w; x++)
        remap_px(src, ss, w, h, ch, vload2(0, frow + 2 * x), x, y, mix + x * ch, average,
                 out + x * ch);
}

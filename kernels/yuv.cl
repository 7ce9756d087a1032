/*
 * YUV 4:2:0 family: camera frames (NV12, NV21, I420) to RGB(A) or grey and
 * back, as lib/clik_yuv.h defines them, in the 20-bit fixed point of the
 * scalar oracle (fallback_cpu/scalar/yuv.c): integer arithmetic, the same
 * bytes on every device. Build options:
 *   CH   channels of the RGB image: 1 (grey: Y itself), 3 or 4.
 * Everything else is an argument: the luma plane (stride in bytes), the RGB
 * image, bgr (blue first), the frame's size in 2 x 2 blocks, the chroma
 * planes as U's buffer, first byte and stride, V's likewise and the step
 * between samples (NV12 and NV21: one interleaved plane passed twice, step
 * 2; I420: two planes, step 1), then the colour space's coefficients.
 * yuv_to_rgb and rgb_to_yuv: a work-item converts one 2 x 2 block, one U
 * and one V, four pixels. yuv_to_rgb_rows and rgb_to_yuv_rows (tuning
 * yuv_rows): a work-item converts `band` block rows (twice as many pixel
 * rows), 16 pixels (8 blocks) a step with vector accesses, `chunk` steps
 * of each (0: the whole row; CPU devices take whole rows in bands, GPUs a
 * step or a few of one block row, so that neighbouring work-items read and
 * write neighbouring 16 bytes), the work-item that ends a row also its
 * last blocks one by one as the block kernels do; with
 * `aligned` (the host checked that every plane and the RGB image start
 * 16-byte aligned with strides of whole 16 bytes, 8 for I420's chroma) the
 * steps are single vector loads and stores (PoCL splits unaligned vload16
 * of uchar into 16 byte loads), and with `as_uint` (a little-endian device,
 * RGB rows that start 4-byte aligned) RGB(A) pixels are built and read as
 * uints by shifts. Every path computes the same
 * integers, so every kernel gives the same bytes.
 * Buffers may hold more than 2^31 bytes: row offsets are size_t products.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#define ROW(r, stride) ((size_t)(r) * (size_t)(stride))

/* s >> 20 saturated to 0..255 (s < 0 gives 0), two lanes. */
inline uchar2 sat20(int2 s)
{
    return convert_uchar2_sat(max(s, (int2)(0)) >> 20);
}

/* Red, green and blue of the pixel pair y (one row of a block) in a block
 * of chroma terms (rv = cvr (V - 128) + 2^19, ...). */
#define PAIR_RGB(yv, r, g, b)                                                                      \
    do {                                                                                           \
        const int2 yt = max(convert_int2(yv) - y_off, (int2)(0)) * cy;                             \
        r = sat20(yt + rt);                                                                        \
        g = sat20(yt + gt);                                                                        \
        b = sat20(yt + bt);                                                                        \
    } while (0)

/* Block (bx, by) to RGB: yuv_to_rgb's body, also the rows kernels' last
 * blocks of a row. */
inline void to_rgb_block(__global const uchar *ys, int y_stride, __global uchar *dst,
                         int dst_stride, int bgr, int bx, int by, __global const uchar *us,
                         int u_first, int u_stride, __global const uchar *vs, int v_first,
                         int v_stride, int step, int y_off, int cy, int cvr, int cvg, int cug,
                         int cub)
{
#if CH == 1
    for (int dy = 0; dy < 2; dy++)
        vstore2(vload2(bx, ys + ROW(2 * by + dy, y_stride)), bx,
                dst + ROW(2 * by + dy, dst_stride));
#else
    const int du = (int)us[u_first + ROW(by, u_stride) + (size_t)bx * step] - 128;
    const int dv = (int)vs[v_first + ROW(by, v_stride) + (size_t)bx * step] - 128;
    const int rnd = 1 << 19;
    const int2 rt = (int2)(cvr * dv + rnd), gt = (int2)(cvg * dv + cug * du + rnd),
               bt = (int2)(cub * du + rnd);
    for (int dy = 0; dy < 2; dy++) {
        const int y = 2 * by + dy;
        uchar2 r, g, b;
        PAIR_RGB(vload2(bx, ys + ROW(y, y_stride)), r, g, b);
        if (bgr) {
            const uchar2 t = r;
            r = b;
            b = t;
        }
        __global uchar *out = dst + ROW(y, dst_stride);
#if CH == 4
        vstore8((uchar8)(r.x, g.x, b.x, 255, r.y, g.y, b.y, 255), bx, out);
#else
        vstore3((uchar3)(r.x, g.x, b.x), 2 * bx, out);
        vstore3((uchar3)(r.y, g.y, b.y), 2 * bx + 1, out);
#endif
    }
#endif
}

__kernel void yuv_to_rgb(__global const uchar *ys, int y_stride, __global uchar *dst,
                         int dst_stride, int bgr, int w2, int h2, __global const uchar *us,
                         int u_first, int u_stride, __global const uchar *vs, int v_first,
                         int v_stride, int step, int y_off, int cy, int cvr, int cvg, int cug,
                         int cub)
{
    const int bx = get_global_id(0), by = get_global_id(1);
    if (bx >= w2 || by >= h2)
        return;
    to_rgb_block(ys, y_stride, dst, dst_stride, bgr, bx, by, us, u_first, u_stride, vs, v_first,
                 v_stride, step, y_off, cy, cvr, cvg, cug, cub);
}

/* 16 bytes at p: one vector access where the host found the rows aligned. */
#define LOAD16(p)     (aligned ? *(__global const uchar16 *)(p) : vload16(0, (p)))
#define STORE16(v, p) (aligned ? (void)(*(__global uchar16 *)(p) = (v)) : vstore16((v), 0, (p)))

/* The rows kernels' share of the frame: block rows by0..by1 - 1 (dimension
 * 1: `band` a work-item) and steps i0..i1 - 1 of 16 pixels of each
 * (dimension 0: `chunk` a work-item, 0: the whole row); `tail`: this
 * work-item ends the rows, their last w2 % 8 blocks are its too. A
 * work-item past the row (a launch rounded up) returns. */
#define ROWS_SHARE()                                                                               \
    const int steps = w2 / 8; /* 8 blocks a step */                                                \
    const int nx = chunk ? max(1, (steps + chunk - 1) / chunk) : 1;                                \
    if ((int)get_global_id(0) >= nx)                                                               \
        return;                                                                                    \
    const int i0 = chunk ? (int)get_global_id(0) * chunk : 0;                                      \
    const int i1 = chunk ? min(steps, i0 + chunk) : steps, tail = i1 == steps;                     \
    const int by0 = (int)get_global_id(1) * band, by1 = min(h2, by0 + band)

/* s >> 20 saturated to 0..255 (s < 0 gives 0), 16 lanes, as ints. */
inline int16 sat20_16(int16 s)
{
    return min(max(s, (int16)(0)) >> 20, (int16)(255));
}

__kernel void yuv_to_rgb_rows(__global const uchar *ys, int y_stride, __global uchar *dst,
                              int dst_stride, int bgr, int w2, int h2, __global const uchar *us,
                              int u_first, int u_stride, __global const uchar *vs, int v_first,
                              int v_stride, int step, int y_off, int cy, int cvr, int cvg, int cug,
                              int cub, int band, int aligned, int as_uint, int chunk)
{
    ROWS_SHARE();
    for (int by = by0; by < by1; by++) {
#if CH == 1
        for (int dy = 0; dy < 2; dy++) {
            __global const uchar *in = ys + ROW(2 * by + dy, y_stride);
            __global uchar *out = dst + ROW(2 * by + dy, dst_stride);
            for (int i = i0; i < i1; i++)
                STORE16(LOAD16(in + 16 * i), out + 16 * i);
        }
#else
        __global const uchar *urow = us + ROW(by, u_stride), *vrow = vs + ROW(by, v_stride);
        for (int i = i0; i < i1; i++) {
            int8 du, dv;
            if (step == 2) {
                /* One interleaved plane (passed as U and as V): U and V
                 * are its even or odd bytes. */
                const uchar16 c = LOAD16(urow + 16 * i);
                du = convert_int8(u_first ? c.odd : c.even);
                dv = convert_int8(v_first ? c.odd : c.even);
            } else {
                du = convert_int8(aligned ? *(__global const uchar8 *)(urow + 8 * i)
                                          : vload8(i, urow));
                dv = convert_int8(aligned ? *(__global const uchar8 *)(vrow + 8 * i)
                                          : vload8(i, vrow));
            }
            du -= 128;
            dv -= 128;
            const int rnd = 1 << 19;
            const int8 rt8 = cvr * dv + rnd, gt8 = cvg * dv + cug * du + rnd, bt8 = cub * du + rnd;
            const int16 rt = rt8.s0011223344556677, gt = gt8.s0011223344556677,
                        bt = bt8.s0011223344556677;
            /* Both rows' luma loaded before the first store (the stores
             * could alias the loads for all the compiler knows). */
            const uchar16 yrow[2] = {LOAD16(ys + ROW(2 * by, y_stride) + 16 * i),
                                     LOAD16(ys + ROW(2 * by + 1, y_stride) + 16 * i)};
            for (int dy = 0; dy < 2; dy++) {
                const int y = 2 * by + dy;
                const int16 yt = max(convert_int16(yrow[dy]) - y_off, (int16)(0)) * cy;
                const int16 r = sat20_16(yt + rt), g = sat20_16(yt + gt), b = sat20_16(yt + bt);
                const int16 c0 = bgr ? b : r, c2 = bgr ? r : b;
                __global uchar *out = dst + ROW(y, dst_stride) + (size_t)(16 * CH) * i;
#if CH == 4
                if (as_uint) {
                    /* Little-endian uints: byte 0 is the first channel. */
                    const uint16 px = as_uint16(c0) | as_uint16(g) << 8 | as_uint16(c2) << 16 |
                                      (uint16)(0xff000000u);
                    if (aligned) {
                        __global uint4 *o = (__global uint4 *)out;
                        o[0] = px.s0123;
                        o[1] = px.s4567;
                        o[2] = px.s89ab;
                        o[3] = px.scdef;
                    } else {
                        vstore16(px, 0, (__global uint *)out);
                    }
                    continue;
                }
                const uchar16 a = convert_uchar16(c0), m = convert_uchar16(g),
                              z = convert_uchar16(c2);
                const uchar e = 255;
                STORE16(((uchar16)(a.s0, m.s0, z.s0, e, a.s1, m.s1, z.s1, e, a.s2, m.s2, z.s2, e,
                                   a.s3, m.s3, z.s3, e)),
                        out);
                STORE16(((uchar16)(a.s4, m.s4, z.s4, e, a.s5, m.s5, z.s5, e, a.s6, m.s6, z.s6, e,
                                   a.s7, m.s7, z.s7, e)),
                        out + 16);
                STORE16(((uchar16)(a.s8, m.s8, z.s8, e, a.s9, m.s9, z.s9, e, a.sa, m.sa, z.sa, e,
                                   a.sb, m.sb, z.sb, e)),
                        out + 32);
                STORE16(((uchar16)(a.sc, m.sc, z.sc, e, a.sd, m.sd, z.sd, e, a.se, m.se, z.se, e,
                                   a.sf, m.sf, z.sf, e)),
                        out + 48);
#else
                if (as_uint) {
                    /* Little-endian uints: a pixel's 3 bytes in one uint,
                     * then 4 pixels (12 bytes) in 3 uints; lane k of qj is
                     * pixel 4k + j. */
                    const uint16 px = as_uint16(c0) | as_uint16(g) << 8 | as_uint16(c2) << 16;
                    const uint4 q0 = px.s048c, q1 = px.s159d, q2 = px.s26ae, q3 = px.s37bf;
                    const uint4 p0 = q0 | q1 << 24, p1 = q1 >> 8 | q2 << 16,
                                p2 = q2 >> 16 | q3 << 8;
                    const uint4 o0 = (uint4)(p0.x, p1.x, p2.x, p0.y),
                                o1 = (uint4)(p1.y, p2.y, p0.z, p1.z),
                                o2 = (uint4)(p2.z, p0.w, p1.w, p2.w);
                    if (aligned) {
                        __global uint4 *o = (__global uint4 *)out;
                        o[0] = o0;
                        o[1] = o1;
                        o[2] = o2;
                    } else {
                        __global uint *o = (__global uint *)out;
                        vstore4(o0, 0, o);
                        vstore4(o1, 1, o);
                        vstore4(o2, 2, o);
                    }
                    continue;
                }
                const uchar16 a = convert_uchar16(c0), m = convert_uchar16(g),
                              z = convert_uchar16(c2);
                STORE16(((uchar16)(a.s0, m.s0, z.s0, a.s1, m.s1, z.s1, a.s2, m.s2, z.s2, a.s3, m.s3,
                                   z.s3, a.s4, m.s4, z.s4, a.s5)),
                        out);
                STORE16(((uchar16)(m.s5, z.s5, a.s6, m.s6, z.s6, a.s7, m.s7, z.s7, a.s8, m.s8, z.s8,
                                   a.s9, m.s9, z.s9, a.sa, m.sa)),
                        out + 16);
                STORE16(((uchar16)(z.sa, a.sb, m.sb, z.sb, a.sc, m.sc, z.sc, a.sd, m.sd, z.sd, a.se,
                                   m.se, z.se, a.sf, m.sf, z.sf)),
                        out + 32);
#endif
            }
        }
#endif
        for (int bx = tail ? 8 * steps : w2; bx < w2; bx++)
            to_rgb_block(ys, y_stride, dst, dst_stride, bgr, bx, by, us, u_first, u_stride, vs,
                         v_first, v_stride, step, y_off, cy, cvr, cvg, cug, cub);
    }
}

#if CH >= 3
/* Y of red, green and blue, two lanes. */
#define PAIR_Y(r, g, b) sat20(ry *(r) + gy * (g) + by_ * (b) + yadd)

/* Block (bx, by) from RGB: rgb_to_yuv's body, also the rows kernels' last
 * blocks of a row. */
inline void from_rgb_block(__global uchar *ys, int y_stride, __global const uchar *src,
                           int src_stride, int bgr, int bx, int by, __global uchar *us, int u_first,
                           int u_stride, __global uchar *vs, int v_first, int v_stride, int step,
                           int y_off, int ry, int gy, int by_, int ru, int gu, int bu, int rv,
                           int gv, int bv)
{
    const int yadd = (y_off << 20) + (1 << 19);
    int first_r = 0, first_g = 0, first_b = 0;
    for (int dy = 0; dy < 2; dy++) {
        const int y = 2 * by + dy;
        __global const uchar *in = src + ROW(y, src_stride);
#if CH == 4
        const int8 p = convert_int8(vload8(bx, in));
        int2 r = p.s04, g = p.s15, b = p.s26;
#else
        const int3 p0 = convert_int3(vload3(2 * bx, in)), p1 = convert_int3(vload3(2 * bx + 1, in));
        int2 r = (int2)(p0.x, p1.x), g = (int2)(p0.y, p1.y), b = (int2)(p0.z, p1.z);
#endif
        if (bgr) {
            const int2 t = r;
            r = b;
            b = t;
        }
        vstore2(PAIR_Y(r, g, b), bx, ys + ROW(y, y_stride));
        if (dy == 0) {
            first_r = r.x;
            first_g = g.x;
            first_b = b.x;
        }
    }
    /* The block's chroma from its top-left pixel. */
    const int add = (128 << 20) + (1 << 19);
    const int2 uv = (int2)(ru * first_r + gu * first_g + bu * first_b + add,
                           rv * first_r + gv * first_g + bv * first_b + add);
    const uchar2 c = sat20(uv);
    us[u_first + ROW(by, u_stride) + (size_t)bx * step] = c.x;
    vs[v_first + ROW(by, v_stride) + (size_t)bx * step] = c.y;
}

__kernel void rgb_to_yuv(__global uchar *ys, int y_stride, __global const uchar *src,
                         int src_stride, int bgr, int w2, int h2, __global uchar *us, int u_first,
                         int u_stride, __global uchar *vs, int v_first, int v_stride, int step,
                         int y_off, int ry, int gy, int by_, int ru, int gu, int bu, int rv, int gv,
                         int bv)
{
    const int bx = get_global_id(0), by = get_global_id(1);
    if (bx >= w2 || by >= h2)
        return;
    from_rgb_block(ys, y_stride, src, src_stride, bgr, bx, by, us, u_first, u_stride, vs, v_first,
                   v_stride, step, y_off, ry, gy, by_, ru, gu, bu, rv, gv, bv);
}

__kernel void rgb_to_yuv_rows(__global uchar *ys, int y_stride, __global const uchar *src,
                              int src_stride, int bgr, int w2, int h2, __global uchar *us,
                              int u_first, int u_stride, __global uchar *vs, int v_first,
                              int v_stride, int step, int y_off, int ry, int gy, int by_, int ru,
                              int gu, int bu, int rv, int gv, int bv, int band, int aligned,
                              int as_uint, int chunk)
{
    ROWS_SHARE();
    const int yadd = (y_off << 20) + (1 << 19), add = (128 << 20) + (1 << 19);
    for (int by = by0; by < by1; by++) {
        for (int i = i0; i < i1; i++) {
            int8 r0 = 0, g0 = 0, b0 = 0; /* the blocks' top-left pixels */
            for (int dy = 0; dy < 2; dy++) {
                const int y = 2 * by + dy;
                __global const uchar *in = src + ROW(y, src_stride) + (size_t)(16 * CH) * i;
                int16 c0, g, c2;
#if CH == 4
                if (as_uint) {
                    /* Little-endian uints: channels by shifts and masks. */
                    uint16 p;
                    if (aligned) {
                        __global const uint4 *q = (__global const uint4 *)in;
                        p = (uint16)(q[0], q[1], q[2], q[3]);
                    } else {
                        p = vload16(0, (__global const uint *)in);
                    }
                    c0 = as_int16(p & 0xffu);
                    g = as_int16((p >> 8) & 0xffu);
                    c2 = as_int16((p >> 16) & 0xffu);
                } else {
                    const uchar16 a = LOAD16(in), b = LOAD16(in + 16), c = LOAD16(in + 32),
                                  d = LOAD16(in + 48);
                    c0 = convert_int16((uchar16)(a.s048c, b.s048c, c.s048c, d.s048c));
                    g = convert_int16((uchar16)(a.s159d, b.s159d, c.s159d, d.s159d));
                    c2 = convert_int16((uchar16)(a.s26ae, b.s26ae, c.s26ae, d.s26ae));
                }
#else
                /* 48 bytes: byte 3i + c is channel c of pixel i. */
                const uchar16 a = LOAD16(in), b = LOAD16(in + 16), c = LOAD16(in + 32);
                c0 = convert_int16((uchar16)(a.s0369, a.scf, b.s258b, b.se, c.s147a, c.sd));
                g = convert_int16((uchar16)(a.s147a, a.sd, b.s0369, b.scf, c.s258b, c.se));
                c2 = convert_int16((uchar16)(a.s258b, a.se, b.s147a, b.sd, c.s0369, c.scf));
#endif
                const int16 r = bgr ? c2 : c0, b_ = bgr ? c0 : c2;
                const int16 yv = sat20_16(ry * r + gy * g + by_ * b_ + yadd);
                STORE16(convert_uchar16(yv), ys + ROW(y, y_stride) + 16 * i);
                if (dy == 0) {
                    r0 = r.even;
                    g0 = g.even;
                    b0 = b_.even;
                }
            }
            const int8 u =
                min(max(ru * r0 + gu * g0 + bu * b0 + add, (int8)(0)) >> 20, (int8)(255));
            const int8 v =
                min(max(rv * r0 + gv * g0 + bv * b0 + add, (int8)(0)) >> 20, (int8)(255));
            if (step == 2) {
                /* One interleaved plane, written through U's pointer. */
                const uchar8 f = convert_uchar8(u_first ? v : u),
                             s = convert_uchar8(u_first ? u : v);
                STORE16(((uchar16)(f.s0, s.s0, f.s1, s.s1, f.s2, s.s2, f.s3, s.s3, f.s4, s.s4, f.s5,
                                   s.s5, f.s6, s.s6, f.s7, s.s7)),
                        us + ROW(by, u_stride) + 16 * i);
            } else if (aligned) {
                *(__global uchar8 *)(us + ROW(by, u_stride) + 8 * i) = convert_uchar8(u);
                *(__global uchar8 *)(vs + ROW(by, v_stride) + 8 * i) = convert_uchar8(v);
            } else {
                vstore8(convert_uchar8(u), i, us + ROW(by, u_stride));
                vstore8(convert_uchar8(v), i, vs + ROW(by, v_stride));
            }
        }
        for (int bx = tail ? 8 * steps : w2; bx < w2; bx++)
            from_rgb_block(ys, y_stride, src, src_stride, bgr, bx, by, us, u_first, u_stride, vs,
                           v_first, v_stride, step, y_off, ry, gy, by_, ru, gu, bu, rv, gv, bv);
    }
}
#endif

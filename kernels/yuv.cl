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
 * A work-item converts one 2 x 2 block: one U and one V, four pixels.
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

__kernel void yuv_to_rgb(__global const uchar *ys, int y_stride, __global uchar *dst,
                         int dst_stride, int bgr, int w2, int h2, __global const uchar *us,
                         int u_first, int u_stride, __global const uchar *vs, int v_first,
                         int v_stride, int step, int y_off, int cy, int cvr, int cvg, int cug,
                         int cub)
{
    const int bx = get_global_id(0), by = get_global_id(1);
    if (bx >= w2 || by >= h2)
        return;
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

#if CH >= 3
/* Y of red, green and blue, two lanes. */
#define PAIR_Y(r, g, b) sat20(ry *(r) + gy * (g) + by_ * (b) + yadd)

__kernel void rgb_to_yuv(__global uchar *ys, int y_stride, __global const uchar *src,
                         int src_stride, int bgr, int w2, int h2, __global uchar *us, int u_first,
                         int u_stride, __global uchar *vs, int v_first, int v_stride, int step,
                         int y_off, int ry, int gy, int by_, int ru, int gu, int bu, int rv, int gv,
                         int bv)
{
    const int bx = get_global_id(0), by = get_global_id(1);
    if (bx >= w2 || by >= h2)
        return;
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
#endif

/*
 * LAPAR family: the upsample U of a low-resolution image and the LAPAR
 * filter (Li et al. 2020; lib/ops/lapar.c)
 *
 *   out(p) = <F(p), patch(U, p)>,   F(p) = sum_j phi_{plane j}(p) A_j,
 *
 * assembled per pixel in registers: neither the per-pixel filters F nor the
 * filtered images A_j * U are ever written.
 *
 * Build options, one program per format:
 *   T, T_IS_FLOAT   the low-resolution input and the output: uchar or float;
 *   CH              channels, 1 or 4 (RGBA: alpha is carried over from the
 *                   source pixel, neither interpolated nor filtered);
 *   PHI_HALF        phi stored as F16 (vload_half, no cl_khr_fp16 needed),
 *                   else F32;
 *   WIDE            1 when lr, dst, U or one plane of phi holds more than
 *                   INT_MAX elements: row offsets in 64 bits (idx_t long),
 *                   the upsample's source rows as int offsets from one
 *                   64-bit row pointer per work-item; 0: in int, as before
 *                   (fewer registers: the one-kernel variants run faster).
 * Everything else is an argument:
 *   scale, wt       the integer scale s and the bicubic weights of its s
 *                   phases, 4 floats each: output coordinate X = s i + r
 *                   takes source taps i - 1 - (2 r + 1 < s) .. + 3 (clamped
 *                   to the image) with weights wt[4 r .. 4 r + 3];
 *   planes, count   the element offset in phi of the plane of each term
 *                   (long whatever WIDE: a phi of 72 planes of 7680 x 4320
 *                   has 2.39e9 elements);
 *   atoms           each term's atom: 16 floats in the symmetric kernels
 *                   (*_sym: the 12 weights of the tap pairs (k, 24 - k),
 *                   k < 12, then the centre's; for centrally symmetric atoms,
 *                   which the default dictionary's all are), 32 in the
 *                   others (the 25 taps, row-major);
 *   tiles           the local-memory kernel's tiles, sized by the host from
 *                   the work-group's shape.
 * Strides are in elements (the host keeps them within 2^28); indices
 * within a row are int (a row has at most 2^22 elements).
 *
 * Every kernel computes U as the horizontal sums of four source rows, each
 * left to right, then their weighted sum top to bottom (clik_resize's order
 * for f32), and F and the dot product in one fixed order, so all variants
 * give the same bits; the scalar oracle computes in double.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#ifndef PHI_HALF
#define PHI_HALF 0
#endif
#ifndef WIDE
#define WIDE 0
#endif

/* Offsets past a row: 64-bit only where some buffer needs it (WIDE). */
#if WIDE
typedef long idx_t;
#else
typedef int idx_t;
#endif
/* Row y of an image at p, stride elements a row. */
#define ROW(p, y, stride) ((p) + (idx_t)(y) * (stride))

typedef VEC(float) acc_t;

#if T_IS_FLOAT
#define TO_ACC(v)          (v)
#define STORE_OUT(v, i, p) VSTORE((v), (i), (p))
#else
#define TO_ACC(v)          CONVERT(VEC(float), v)
/* Round to nearest, halves to even, and saturate; NaN becomes 0. */
#define STORE_OUT(v, i, p) VSTORE(CONVERT_SAT(VEC(uchar), rint(v)), (i), (p))
#endif

#if PHI_HALF
typedef half phi_t;
#define PHI_AT(p, i) vload_half((i), (p))
#else
typedef float phi_t;
#define PHI_AT(p, i) ((p)[(i)])
#endif

/* ---- the upsample ---------------------------------------------------------- */

/* First source tap of output coordinate x, and the offset of its weights. */
inline int first_tap(int x, int s, int *w)
{
    const int i = x / s, r = x - i * s;
    *w = 4 * r;
    return i - 1 - (2 * r + 1 < s);
}

/* Alpha of output (x, y) of a 4-channel image: carried over from the source
 * pixel that holds it, never interpolated. */
#define LR_ALPHA(x, y) ((float)ROW(lr, (y) / scale, lr_stride)[(x) / scale * 4 + 3])

#define WX_SUM(P, c0, c1, c2, c3)                                                                  \
    (wx.s0 * (P(c0)) + wx.s1 * (P(c1)) + wx.s2 * (P(c2)) + wx.s3 * (P(c3)))
/* U from its 4 x 4 taps, weights wx across and wy down: PXr(c) the tap of
 * row r at column c (c0 .. c3). */
#define U_SUM                                                                                      \
    (wy.s0 * WX_SUM(PX0, c0, c1, c2, c3) + wy.s1 * WX_SUM(PX1, c0, c1, c2, c3) +                   \
     wy.s2 * WX_SUM(PX2, c0, c1, c2, c3) + wy.s3 * WX_SUM(PX3, c0, c1, c2, c3))

/* With WIDE, the lowest source row that U at output rows from Y on reads,
 * clamped: U at rows Y .. Y + 4 reads rows at most 6 past it (first_tap
 * grows by at most 3 over 4 rows, and U reads 4 rows from it); else 0. */
inline int first_row(int Y, int s, int lh)
{
#if WIDE
    int unused;
    return clamp(first_tap(Y, s, &unused), 0, lh - 1);
#else
    return 0;
#endif
}

/* U at output (X, Y) from lr in global memory: lrb is source row b of lr
 * (lr itself and b = 0 without WIDE), b <= every row read and within 6
 * rows of them, so that the rows are int offsets from it (strides within
 * 2^28 elements) while lr may pass 2^31 elements. */
inline acc_t u_global(__global const T *lrb, int b, int stride, int lw, int lh, int s,
                      __constant const float *wt, int X, int Y)
{
    int px, py;
    const int x0 = first_tap(X, s, &px), y0 = first_tap(Y, s, &py);
    const float4 wx = vload4(0, wt + px), wy = vload4(0, wt + py);
    const int c0 = clamp(x0, 0, lw - 1), c1 = clamp(x0 + 1, 0, lw - 1);
    const int c2 = clamp(x0 + 2, 0, lw - 1), c3 = clamp(x0 + 3, 0, lw - 1);
    __global const T *r0 = lrb + (clamp(y0, 0, lh - 1) - b) * stride;
    __global const T *r1 = lrb + (clamp(y0 + 1, 0, lh - 1) - b) * stride;
    __global const T *r2 = lrb + (clamp(y0 + 2, 0, lh - 1) - b) * stride;
    __global const T *r3 = lrb + (clamp(y0 + 3, 0, lh - 1) - b) * stride;
#define PX0(c) TO_ACC(VLOAD((c), r0))
#define PX1(c) TO_ACC(VLOAD((c), r1))
#define PX2(c) TO_ACC(VLOAD((c), r2))
#define PX3(c) TO_ACC(VLOAD((c), r3))
    return U_SUM;
#undef PX0
#undef PX1
#undef PX2
#undef PX3
}

/* U at (X, Y) from a local tile of lr whose element (0, 0) is source pixel
 * (tx, ty), pitch elements a row; every tap lies in it. */
inline acc_t u_tile(__local const acc_t *tile, int pitch, int tx, int ty, int lw, int lh, int s,
                    __constant const float *wt, int X, int Y)
{
    int px, py;
    const int x0 = first_tap(X, s, &px), y0 = first_tap(Y, s, &py);
    const float4 wx = vload4(0, wt + px), wy = vload4(0, wt + py);
    const int c0 = clamp(x0, 0, lw - 1) - tx, c1 = clamp(x0 + 1, 0, lw - 1) - tx;
    const int c2 = clamp(x0 + 2, 0, lw - 1) - tx, c3 = clamp(x0 + 3, 0, lw - 1) - tx;
    __local const acc_t *r0 = tile + (clamp(y0, 0, lh - 1) - ty) * pitch;
    __local const acc_t *r1 = tile + (clamp(y0 + 1, 0, lh - 1) - ty) * pitch;
    __local const acc_t *r2 = tile + (clamp(y0 + 2, 0, lh - 1) - ty) * pitch;
    __local const acc_t *r3 = tile + (clamp(y0 + 3, 0, lh - 1) - ty) * pitch;
#define PX0(c) r0[c]
#define PX1(c) r1[c]
#define PX2(c) r2[c]
#define PX3(c) r3[c]
    return U_SUM;
#undef PX0
#undef PX1
#undef PX2
#undef PX3
}

/* U as an F32 image of the output's size: interleaved (clik_lapar_upsample),
 * or with u_plane > 0 one plane per colour channel, u_plane elements apart
 * (the first kernel of the CPU-device variant; no alpha plane). */
__kernel void lapar_upsample(__global const T *lr, int lr_stride, int lw, int lh, int scale,
                             __constant const float *wt, __global float *u, int u_stride,
                             long u_plane)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= lw * scale || y >= lh * scale)
        return;
    const int b = first_row(y, scale, lh);
    acc_t v = u_global(ROW(lr, b, lr_stride), b, lr_stride, lw, lh, scale, wt, x, y);
#if CH == 4
    if (u_plane > 0) {
        const idx_t plane = (idx_t)u_plane;
        __global float *p = ROW(u, y, u_stride) + x;
        p[0] = v.x;
        p[plane] = v.y;
        p[2 * plane] = v.z;
        return;
    }
    v.w = LR_ALPHA(x, y);
#endif
    VSTORE(v, x, ROW(u, y, u_stride));
}

/* ---- the upsample on CPU devices: by rows, in two passes ----------------------
 * U's colour planes as lapar_upsample writes them with u_plane > 0 (or
 * grey), in the same operations: the horizontal sums of a source row
 * (WX_SUM) once per row instead of once per output row that reads it, then
 * their weighted sum down (U_SUM's outer sum). */

/* Source row y's colours as planes of floats (lw wide, src_plane apart). */
__kernel void lapar_src_planes(__global const T *lr, int lr_stride, int lw, int lh,
                               __global float *sp, int sp_stride, long sp_plane)
{
    const int y = get_global_id(0);
    if (y >= lh)
        return;
    __global const T *row = ROW(lr, y, lr_stride);
    __global float *out = sp + (size_t)y * sp_stride;
    for (int x = 0; x < lw; x++) {
        const acc_t v = TO_ACC(VLOAD(x, row));
#if CH == 4
        out[x] = v.x;
        out[x + sp_plane] = v.y;
        out[x + 2 * sp_plane] = v.z;
#else
        out[x] = v;
#endif
    }
}

/* WX_SUM of output column X from a colour plane of a source row (p, lw
 * wide). */
inline float hpass_px(__global const float *p, int lw, int scale, __constant const float *wt, int X)
{
    int px;
    const int x0 = first_tap(X, scale, &px);
    const float4 wx = vload4(0, wt + px);
#define P(c) p[clamp(c, 0, lw - 1)]
    return WX_SUM(P, x0, x0 + 1, x0 + 2, x0 + 3);
#undef P
}

/* One colour plane of a source row (p, lw wide) through the horizontal
 * weights into hrow (ow = lw scale wide): WX_SUM of every output column. */
inline void hpass_plane(__global const float *p, int lw, int scale, __constant const float *wt,
                        int ow, __global float *hrow)
{
    int X = 0;
    if (scale == 2) {
        /* Output columns 2 i (taps i - 2 .. i + 1) and 2 i + 1 (i - 1 ..
         * i + 2), 8 i a step, from the first i whose taps are inside. */
        const float4 we = vload4(0, wt), wo = vload4(1, wt);
        for (int i = 2; i + 10 <= lw; i += 8) {
            for (; X < 2 * i; X++)
                hrow[X] = hpass_px(p, lw, scale, wt, X);
            const float8 a = vload8(0, p + i - 2), b = vload8(0, p + i - 1);
            const float8 c = vload8(0, p + i), d = vload8(0, p + i + 1), e = vload8(0, p + i + 2);
            const float8 even = we.s0 * a + we.s1 * b + we.s2 * c + we.s3 * d;
            const float8 odd = wo.s0 * b + wo.s1 * c + wo.s2 * d + wo.s3 * e;
            vstore16(
                shuffle2(even, odd, (uint16)(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15)),
                0, hrow + 2 * i);
            X = 2 * i + 16;
        }
    }
    for (; X < ow; X++)
        hrow[X] = hpass_px(p, lw, scale, wt, X);
}

/* The horizontal pass of source row y: hp's planes (lh rows of ow,
 * h_plane apart). */
__kernel void lapar_hpass_rows(__global const float *sp, int sp_stride, long sp_plane, int lw,
                               int lh, int scale, __constant const float *wt, __global float *hp,
                               int ow, long h_plane)
{
    const int y = get_global_id(0);
    if (y >= lh)
        return;
    for (int c = 0; c < (CH == 4 ? 3 : 1); c++)
        hpass_plane(sp + (size_t)y * sp_stride + c * sp_plane, lw, scale, wt, ow,
                    hp + (size_t)y * ow + c * h_plane);
}

/* The vertical pass: U's row Y from the four rows of hp it reads. */
__kernel void lapar_vpass_rows(__global const float *hp, int ow, long h_plane, int lh, int oh,
                               int scale, __constant const float *wt, __global float *u,
                               int u_stride, long u_plane)
{
    const int Y = get_global_id(0);
    if (Y >= oh)
        return;
    int py;
    const int y0 = first_tap(Y, scale, &py);
    const float4 wy = vload4(0, wt + py);
    const size_t r0 = (size_t)clamp(y0, 0, lh - 1) * ow, r1 = (size_t)clamp(y0 + 1, 0, lh - 1) * ow;
    const size_t r2 = (size_t)clamp(y0 + 2, 0, lh - 1) * ow,
                 r3 = (size_t)clamp(y0 + 3, 0, lh - 1) * ow;
    for (int c = 0; c < (CH == 4 ? 3 : 1); c++) {
        __global const float *p = hp + c * h_plane;
        __global float *out = u + (size_t)Y * u_stride + c * u_plane;
        for (int X = 0; X <= ow - 16; X = X == ow - 16 ? ow : min(X + 16, ow - 16))
            vstore16(wy.s0 * vload16(0, p + r0 + X) + wy.s1 * vload16(0, p + r1 + X) +
                         wy.s2 * vload16(0, p + r2 + X) + wy.s3 * vload16(0, p + r3 + X),
                     0, out + X);
        for (int X = 0; X < ow && ow < 16; X++)
            out[X] = wy.s0 * p[r0 + X] + wy.s1 * p[r1 + X] + wy.s2 * p[r2 + X] + wy.s3 * p[r3 + X];
    }
}

/* ---- assembling F and the dot product --------------------------------------- */

/* Symmetric atoms: F's 13 distinct weights in lanes 0..12; at is the
 * pixel's offset in a plane of phi. */
inline float16 assemble_sym(__global const phi_t *phi, idx_t at, __constant const long *planes,
                            __constant const float *atoms, int count)
{
    float16 f = PHI_AT(phi + planes[0], at) * vload16(0, atoms);
    for (int j = 1; j < count; j++)
        f += PHI_AT(phi + planes[j], at) * vload16(j, atoms);
    return f;
}

/* Any atoms: F's 25 weights as lanes 0..15 of f, 0..7 of g, and h. */
inline void assemble_all(__global const phi_t *phi, idx_t at, __constant const long *planes,
                         __constant const float *atoms, int count, float16 *f, float8 *g, float *h)
{
    float p = PHI_AT(phi + planes[0], at);
    float16 a = p * vload16(0, atoms);
    float8 b = p * vload8(2, atoms);
    float c = p * atoms[24];
    for (int j = 1; j < count; j++) {
        __constant const float *aj = atoms + 32 * j;
        p = PHI_AT(phi + planes[j], at);
        a += p * vload16(0, aj);
        b += p * vload8(2, aj);
        c += p * aj[24];
    }
    *f = a;
    *g = b;
    *h = c;
}

/* <F, patch> with U(r, c) the patch's tap at row r, column c (0..4). */
#define DOT_SYM(f, U)                                                                              \
    ((f).s0 * (U(0, 0) + U(4, 4)) + (f).s1 * (U(0, 1) + U(4, 3)) + (f).s2 * (U(0, 2) + U(4, 2)) +  \
     (f).s3 * (U(0, 3) + U(4, 1)) + (f).s4 * (U(0, 4) + U(4, 0)) + (f).s5 * (U(1, 0) + U(3, 4)) +  \
     (f).s6 * (U(1, 1) + U(3, 3)) + (f).s7 * (U(1, 2) + U(3, 2)) + (f).s8 * (U(1, 3) + U(3, 1)) +  \
     (f).s9 * (U(1, 4) + U(3, 0)) + (f).sa * (U(2, 0) + U(2, 4)) + (f).sb * (U(2, 1) + U(2, 3)) +  \
     (f).sc * U(2, 2))
#define DOT_ALL(f, g, h, U)                                                                        \
    ((f).s0 * U(0, 0) + (f).s1 * U(0, 1) + (f).s2 * U(0, 2) + (f).s3 * U(0, 3) +                   \
     (f).s4 * U(0, 4) + (f).s5 * U(1, 0) + (f).s6 * U(1, 1) + (f).s7 * U(1, 2) +                   \
     (f).s8 * U(1, 3) + (f).s9 * U(1, 4) + (f).sa * U(2, 0) + (f).sb * U(2, 1) +                   \
     (f).sc * U(2, 2) + (f).sd * U(2, 3) + (f).se * U(2, 4) + (f).sf * U(3, 0) +                   \
     (g).s0 * U(3, 1) + (g).s1 * U(3, 2) + (g).s2 * U(3, 3) + (g).s3 * U(3, 4) +                   \
     (g).s4 * U(4, 0) + (g).s5 * U(4, 1) + (g).s6 * U(4, 2) + (g).s7 * U(4, 3) + (h)*U(4, 4))

/* Writes the output pixel: the dot product DOT in the colour channels;
 * alpha (4 channels) is ALPHA, the source pixel's own. */
#if CH == 4
#define WRITE_PIXEL(DOT, ALPHA, x, row)                                                            \
    do {                                                                                           \
        float4 v_ = DOT;                                                                           \
        v_.w = ALPHA;                                                                              \
        STORE_OUT(v_, (x), (row));                                                                 \
    } while (0)
#else
#define WRITE_PIXEL(DOT, ALPHA, x, row) STORE_OUT((DOT), (x), (row))
#endif

/* Filter arguments shared by the kernels below. */
#define PHI_ARGS                                                                                   \
    __global const phi_t *phi, int phi_stride, __constant const long *planes,                      \
        __constant const float *atoms, int count, __global T *dst, int dst_stride, int w, int h

/* Declares F for pixel (x, y): SYM 1 for the symmetric kernels. */
#define ASSEMBLE_1 float16 f = assemble_sym(phi, (idx_t)y * phi_stride + x, planes, atoms, count)
#define ASSEMBLE_0                                                                                 \
    float16 f;                                                                                     \
    float8 g;                                                                                      \
    float hh;                                                                                      \
    assemble_all(phi, (idx_t)y *phi_stride + x, planes, atoms, count, &f, &g, &hh)
#define DOT_1(U) DOT_SYM(f, U)
#define DOT_0(U) DOT_ALL(f, g, hh, U)

/* ---- the CPU-device variant: U written first, 16 pixels a step ---------------- */

/*
 * Work-item (i, y) filters output pixels 16 i .. 16 i + 15 of row y as
 * float16 vectors, one lane a pixel: phi of each plane is one 16-wide load,
 * F is 13 (or 25) vectors, and each tap of U (planar: one plane per colour
 * channel) one load. Spans within 2 pixels of the left or right edge, or
 * past it, take each lane's tap from its reflected column (and the lanes
 * past the edge compute the last pixel again, unstored). Every lane does
 * the per-pixel kernels' operations in their order: the same bits.
 */
#if PHI_HALF
#define PHI16(p) vload_half16(0, (p))
#else
#define PHI16(p) vload16(0, (p))
#endif

/* Runs M(i, lane) for the 16 lanes of a float16. */
/* clang-format off */
#define LANES16(M)                                                                          \
    M(0, s0) M(1, s1) M(2, s2) M(3, s3) M(4, s4) M(5, s5) M(6, s6) M(7, s7) M(8, s8)         \
    M(9, s9) M(10, sa) M(11, sb) M(12, sc) M(13, sd) M(14, se) M(15, sf)
/* clang-format on */

/* 16 values of row p at columns x0 + d + lane, reflected and clamped per
 * lane (edge spans). */
inline float16 gather16(__global const float *p, int x0, int d, int w)
{
    float16 v;
#define GATHER(i, lane) v.lane = p[clik_reflect101(min(x0 + (i), w - 1) + d, w)];
    LANES16(GATHER)
#undef GATHER
    return v;
}

inline float16 phi_gather16(__global const phi_t *p, int x0, int w)
{
    float16 v;
#define GATHER(i, lane) v.lane = PHI_AT(p, min(x0 + (i), w - 1));
    LANES16(GATHER)
#undef GATHER
    return v;
}

/* Tap (r, c) of the 16 pixels' patches in colour plane `plane`. */
#define U16(r, c)                                                                                  \
    (inner ? vload16(0, ur##r + plane + x0 + (c)-2) : gather16(ur##r + plane, x0, (c)-2, w))

/* F of the atoms for the chunks of a work-item, plane by plane: with a
 * symmetric dictionary (sym) 13 float16 per chunk, of atoms of 13 weights
 * 16 floats apart; else 25, of atoms of 25 weights 32 floats apart. Each
 * plane is read as one run of `n` chunks (one long burst per plane, not
 * one line of every plane per chunk: the memory streams better). */
#define F_SYM 13
#define F_ALL 25

inline void rows_assemble(__global const phi_t *phi, idx_t row, __constant const long *planes,
                          __constant const float *atoms, int count, int xs, int n, int w,
                          __local float16 *F, const int sym)
{
    for (int j = 0; j < count; j++) {
        __global const phi_t *pr = phi + planes[j] + row;
        const float16 a = sym ? vload16(j, atoms) : vload16(0, atoms + 32 * j);
        const float8 b = sym ? (float8)(0.0f) : vload8(2, atoms + 32 * j);
        const float cc = sym ? 0.0f : atoms[32 * j + 24];
        for (int c = 0; c < n; c++) {
            const int x0 = xs + 16 * c;
            const float16 p = x0 + 16 <= w ? PHI16(pr + x0) : phi_gather16(pr, x0, w);
            __local float16 *f = F + (sym ? F_SYM : F_ALL) * c;
            if (j == 0) {
                f[0] = p * a.s0, f[1] = p * a.s1, f[2] = p * a.s2, f[3] = p * a.s3;
                f[4] = p * a.s4, f[5] = p * a.s5, f[6] = p * a.s6, f[7] = p * a.s7;
                f[8] = p * a.s8, f[9] = p * a.s9, f[10] = p * a.sa, f[11] = p * a.sb;
                f[12] = p * a.sc;
                if (!sym) {
                    f[13] = p * a.sd, f[14] = p * a.se, f[15] = p * a.sf;
                    f[16] = p * b.s0, f[17] = p * b.s1, f[18] = p * b.s2, f[19] = p * b.s3;
                    f[20] = p * b.s4, f[21] = p * b.s5, f[22] = p * b.s6, f[23] = p * b.s7;
                    f[24] = p * cc;
                }
            } else {
                f[0] += p * a.s0, f[1] += p * a.s1, f[2] += p * a.s2, f[3] += p * a.s3;
                f[4] += p * a.s4, f[5] += p * a.s5, f[6] += p * a.s6, f[7] += p * a.s7;
                f[8] += p * a.s8, f[9] += p * a.s9, f[10] += p * a.sa, f[11] += p * a.sb;
                f[12] += p * a.sc;
                if (!sym) {
                    f[13] += p * a.sd, f[14] += p * a.se, f[15] += p * a.sf;
                    f[16] += p * b.s0, f[17] += p * b.s1, f[18] += p * b.s2, f[19] += p * b.s3;
                    f[20] += p * b.s4, f[21] += p * b.s5, f[22] += p * b.s6, f[23] += p * b.s7;
                    f[24] += p * cc;
                }
            }
        }
    }
}

#define ROWS_LOAD_1                                                                                \
    __local const float16 *f = F + F_SYM * c;                                                      \
    const float16 f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4], f5 = f[5], f6 = f[6];     \
    const float16 f7 = f[7], f8 = f[8], f9 = f[9], f10 = f[10], f11 = f[11], f12 = f[12];
#define ROWS_LOAD_0                                                                                \
    __local const float16 *f = F + F_ALL * c;                                                      \
    const float16 f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4], f5 = f[5], f6 = f[6];     \
    const float16 f7 = f[7], f8 = f[8], f9 = f[9], f10 = f[10], f11 = f[11], f12 = f[12];          \
    const float16 f13 = f[13], f14 = f[14], f15 = f[15], f16 = f[16], f17 = f[17], f18 = f[18];    \
    const float16 f19 = f[19], f20 = f[20], f21 = f[21], f22 = f[22], f23 = f[23], f24 = f[24];

#define ROWS_DOT_1(U)                                                                              \
    (f0 * (U(0, 0) + U(4, 4)) + f1 * (U(0, 1) + U(4, 3)) + f2 * (U(0, 2) + U(4, 2)) +              \
     f3 * (U(0, 3) + U(4, 1)) + f4 * (U(0, 4) + U(4, 0)) + f5 * (U(1, 0) + U(3, 4)) +              \
     f6 * (U(1, 1) + U(3, 3)) + f7 * (U(1, 2) + U(3, 2)) + f8 * (U(1, 3) + U(3, 1)) +              \
     f9 * (U(1, 4) + U(3, 0)) + f10 * (U(2, 0) + U(2, 4)) + f11 * (U(2, 1) + U(2, 3)) +            \
     f12 * U(2, 2))

#define ROWS_DOT_0(U)                                                                              \
    (f0 * U(0, 0) + f1 * U(0, 1) + f2 * U(0, 2) + f3 * U(0, 3) + f4 * U(0, 4) + f5 * U(1, 0) +     \
     f6 * U(1, 1) + f7 * U(1, 2) + f8 * U(1, 3) + f9 * U(1, 4) + f10 * U(2, 0) + f11 * U(2, 1) +   \
     f12 * U(2, 2) + f13 * U(2, 3) + f14 * U(2, 4) + f15 * U(3, 0) + f16 * U(3, 1) +               \
     f17 * U(3, 2) + f18 * U(3, 3) + f19 * U(3, 4) + f20 * U(4, 0) + f21 * U(4, 1) +               \
     f22 * U(4, 2) + f23 * U(4, 3) + f24 * U(4, 4))

#if T_IS_FLOAT
#define OUT16(v, p) vstore16((v), 0, (p))
#define OUT1(v, p)  (*(p) = (v))
#else
#define OUT16(v, p) vstore16(convert_uchar16_sat(rint(v)), 0, (p))
#define OUT1(v, p)  (*(p) = convert_uchar_sat(rint(v)))
#endif

/*
 * Work-item (i, y): `chunks` chunks of 16 pixels of row y from pixel
 * 16 chunks i; F of each chunk in its part of `acc` (local memory, F_SYM or
 * F_ALL float16 a chunk, chunks of them per work-item).
 */
#define LAPAR_ROWS(NAME, SYM, TAPS)                                                                \
    __kernel void NAME(__global const float *u, int u_stride, long u_plane, PHI_ARGS,              \
                       __global const T *lr, int lr_stride, int scale, int chunks,                 \
                       __local float16 *acc)                                                       \
    {                                                                                              \
        const int xs = get_global_id(0) * chunks * 16, y = get_global_id(1);                       \
        if (xs >= w || y >= h)                                                                     \
            return;                                                                                \
        const int n = min(chunks, (w - xs + 15) / 16);                                             \
        __local float16 *F =                                                                       \
            acc + (get_local_id(1) * get_local_size(0) + get_local_id(0)) * TAPS * chunks;         \
        rows_assemble(phi, (idx_t)y *phi_stride, planes, atoms, count, xs, n, w, F, SYM);          \
        __global const float *ur0 = ROW(u, clik_reflect101(y - 2, h), u_stride);                   \
        __global const float *ur1 = ROW(u, clik_reflect101(y - 1, h), u_stride);                   \
        __global const float *ur2 = ROW(u, y, u_stride);                                           \
        __global const float *ur3 = ROW(u, clik_reflect101(y + 1, h), u_stride);                   \
        __global const float *ur4 = ROW(u, clik_reflect101(y + 2, h), u_stride);                   \
        __global T *out = ROW(dst, y, dst_stride);                                                 \
        for (int c = 0; c < n; c++) {                                                              \
            const int x0 = xs + 16 * c;                                                            \
            const int full = x0 + 16 <= w, inner = x0 >= 2 && x0 + 18 <= w;                        \
            ROWS_LOAD_##SYM;                                                                       \
            ROWS_STORE(ROWS_DOT_##SYM);                                                            \
        }                                                                                          \
    }

/* The colour planes' dot products, stored. */
#if CH == 1
#define ROWS_STORE(DOT)                                                                            \
    const idx_t plane = 0;                                                                         \
    const float16 v0 = DOT(U16);                                                                   \
    if (full) {                                                                                    \
        OUT16(v0, out + x0);                                                                       \
    } else {                                                                                       \
        LANES16(STORE_LANE_1)                                                                      \
    }
#else
#define ROWS_STORE(DOT)                                                                            \
    idx_t plane = 0;                                                                               \
    const float16 v0 = DOT(U16);                                                                   \
    plane = (idx_t)u_plane;                                                                        \
    const float16 v1 = DOT(U16);                                                                   \
    plane = 2 * (idx_t)u_plane;                                                                    \
    const float16 v2 = DOT(U16);                                                                   \
    LANES16(STORE_LANE_4)
#endif

#define STORE_LANE_1(i, lane)                                                                      \
    if (x0 + (i) < w)                                                                              \
        OUT1(v0.lane, out + x0 + (i));
#define STORE_LANE_4(i, lane)                                                                      \
    if (x0 + (i) < w)                                                                              \
        STORE_OUT((float4)(v0.lane, v1.lane, v2.lane, LR_ALPHA(x0 + (i), y)), x0 + (i), out);

LAPAR_ROWS(lapar_rows_sym, 1, F_SYM)
LAPAR_ROWS(lapar_rows, 0, F_ALL)

/* ---- one kernel, U from lr in global memory (no local memory) ---------------- */

#define U_DIRECT(r, c) u_global(lrb, b, lr_stride, lw, lh, scale, wt, cx##c, cy##r)

#define LAPAR_DIRECT(NAME, SYM)                                                                    \
    __kernel void NAME(__global const T *lr, int lr_stride, int lw, int lh, int scale,             \
                       __constant const float *wt, PHI_ARGS)                                       \
    {                                                                                              \
        const int x = get_global_id(0), y = get_global_id(1);                                      \
        if (x >= w || y >= h)                                                                      \
            return;                                                                                \
        ASSEMBLE_##SYM;                                                                            \
        const int cx0 = clik_reflect101(x - 2, w), cx1 = clik_reflect101(x - 1, w);                \
        const int cx2 = x, cx3 = clik_reflect101(x + 1, w), cx4 = clik_reflect101(x + 2, w);       \
        const int cy0 = clik_reflect101(y - 2, h), cy1 = clik_reflect101(y - 1, h);                \
        const int cy2 = y, cy3 = clik_reflect101(y + 1, h), cy4 = clik_reflect101(y + 2, h);       \
        /* every cy is at least max(y - 2, 0) and at most y + 2 */                                 \
        const int b = first_row(max(y - 2, 0), scale, lh);                                         \
        __global const T *lrb = ROW(lr, b, lr_stride);                                             \
        WRITE_PIXEL(DOT_##SYM(U_DIRECT), LR_ALPHA(x, y), x, ROW(dst, y, dst_stride));              \
    }

LAPAR_DIRECT(lapar_direct_sym, 1)
LAPAR_DIRECT(lapar_direct, 0)

/* ---- one kernel, U from a local-memory tile of lr ------------------------------ */

/*
 * A work-group of gw x gh output pixels from (X0, Y0) needs U over
 * (gw + 4) x (gh + 4) pixels from (X0 - 2, Y0 - 2), reflected at the
 * borders: output columns a..b = max(0, X0 - 2)..min(w - 1, X0 + gw + 1),
 * so source columns first_tap(a)..first_tap(b) + 3, clamped; rows alike.
 *   1. the group copies that block of lr into `src` (pitch elements a row;
 *      the host sizes it for the largest block, (gw + 3) / scale + 5 wide);
 *   2. computes U over the halo'd block into `ut` ((gw + 4) x (gh + 4));
 *   3. each work-item assembles F and takes the dot product with its patch
 *      of `ut`.
 * Entries of `ut` that no pixel of the image needs (a group past the
 * image's edge) are computed at a clamped position, inside the block.
 */
#define U_TILE(r, c) ut[(ly + (r)) * uw + lx + (c)]

inline void load_tiles(__global const T *lr, int lr_stride, int lw, int lh, int scale,
                       __constant const float *wt, int w, int h, __local acc_t *src, int pitch,
                       __local acc_t *ut)
{
    const int gw = get_local_size(0), gh = get_local_size(1);
    const int X0 = get_group_id(0) * gw, Y0 = get_group_id(1) * gh;
    const int n = gw * gh, id = get_local_id(1) * gw + get_local_id(0);
    const int ax = max(0, X0 - 2), bx = min(w - 1, X0 + gw + 1);
    const int ay = max(0, Y0 - 2), by = min(h - 1, Y0 + gh + 1);
    int unused;
    const int tx = max(0, first_tap(ax, scale, &unused));
    const int ty = max(0, first_tap(ay, scale, &unused));
    const int tw = min(lw - 1, first_tap(bx, scale, &unused) + 3) - tx + 1;
    const int th = min(lh - 1, first_tap(by, scale, &unused) + 3) - ty + 1;
    for (int i = id; i < tw * th; i += n) {
        const int r = i / tw, c = i - r * tw;
        src[r * pitch + c] = TO_ACC(VLOAD(tx + c, ROW(lr, ty + r, lr_stride)));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int uw = gw + 4;
    for (int i = id; i < uw * (gh + 4); i += n) {
        const int r = i / uw, c = i - r * uw;
        const int X = clamp(clik_reflect101(X0 - 2 + c, w), ax, bx);
        const int Y = clamp(clik_reflect101(Y0 - 2 + r, h), ay, by);
        ut[i] = u_tile(src, pitch, tx, ty, lw, lh, scale, wt, X, Y);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#define LAPAR_LOCAL(NAME, SYM)                                                                     \
    __kernel void NAME(__global const T *lr, int lr_stride, int lw, int lh, int scale,             \
                       __constant const float *wt, PHI_ARGS, __local acc_t *src, int pitch,        \
                       __local acc_t *ut)                                                          \
    {                                                                                              \
        load_tiles(lr, lr_stride, lw, lh, scale, wt, w, h, src, pitch, ut);                        \
        const int x = get_global_id(0), y = get_global_id(1);                                      \
        if (x >= w || y >= h)                                                                      \
            return;                                                                                \
        const int lx = get_local_id(0), ly = get_local_id(1), uw = get_local_size(0) + 4;          \
        ASSEMBLE_##SYM;                                                                            \
        WRITE_PIXEL(DOT_##SYM(U_TILE), LR_ALPHA(x, y), x, ROW(dst, y, dst_stride));                \
    }

LAPAR_LOCAL(lapar_local_sym, 1)
LAPAR_LOCAL(lapar_local, 0)

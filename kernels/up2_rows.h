/*
 * Upsampling of u8 images by 2 on CPU devices, shared by pyrUp
 * (pyramid.cl) and bilinear x2 (resize.cl). Build options: CH (1, 2 or 4).
 *
 * Both are separable with small integer weights that depend only on the
 * parity of the output coordinate. Along an axis, output 2x is
 *   UP2_E0 * p[x - 1] + UP2_E1 * p[x] + UP2_E2 * p[x + 1]
 * and output 2x + 1 is
 *   UP2_O1 * p[x] + UP2_O2 * p[x + 1],
 * neighbours past an edge given by UP2_PREV(x, n) and UP2_NEXT(x, n); the
 * sum S of both axes becomes a pixel by UP2_ROUND(T, S), T its type (uint
 * or ushort16: the sums stay below 2^16). The includer defines
 * these and then expands UP2_ROWS_KERNEL (below) with what the kernel does
 * with the upsampled values.
 *
 * Each work-item makes the output rows 2y and 2y + 1 of `rows` source rows
 * y. Per 16 source elements it loads the three source rows at the element
 * offsets -CH, 0 and +CH, takes the vertical sums, then the horizontal
 * ones, and stores the even and odd outputs interleaved pixel by pixel: 32
 * output elements of each of the two rows. The first pixel and the tail of
 * a row, where the borders apply, go element by element. The host bounds
 * `rows` so that a work-item's loops stay well within the 65535 iterations
 * after which llvmpipe silently ends them. Rows start at 64-bit products
 * (size_t)y * stride; the stores' (size_t)(Y) * stride is the same for a
 * whole row (hoisted out of its loop).
 */
#ifndef CLIK_KERNELS_UP2_ROWS_H
#define CLIK_KERNELS_UP2_ROWS_H

/* Even and odd outputs of three neighbouring values (any integer type). */
#define UP2_EVEN(T, m, c, p) ((T)UP2_E0 * (m) + (T)UP2_E1 * (c) + (T)UP2_E2 * (p))
#define UP2_ODD(T, c, p)     ((T)UP2_O1 * (c) + (T)UP2_O2 * (p))

/* 16 output elements from their sums. */
#define UP2_PIX16(s) convert_uchar16(UP2_ROUND(ushort16, s))

/* The even and odd outputs, 16 elements each, interleaved pixel by pixel:
 * the first and the second 16 output elements. */
#define UP2_LO(e, o) INTERLEAVE_LO(uchar16, e, o)
#define UP2_HI(e, o) INTERLEAVE_HI(uchar16, e, o)

/* Source elements i - CH, i, i + CH of a row as ushort16 each. */
#define UP2_LOAD3(r, i, m, c, p)                                                                   \
    do {                                                                                           \
        m = convert_ushort16(vload16(0, (r) + (i)-CH));                                            \
        c = convert_ushort16(vload16(0, (r) + (i)));                                               \
        p = convert_ushort16(vload16(0, (r) + (i) + CH));                                          \
    } while (0)

/* Element k of the output pixels (2x, 2y), (2x + 1, 2y), (2x, 2y + 1) and
 * (2x + 1, 2y + 1) from source pixel x of the rows a (y - 1), b (y) and c
 * (y + 1): the plain way, for the edges. */
inline uint4 up2_element(__global const uchar *a, __global const uchar *b, __global const uchar *c,
                         int x, int sw, int k)
{
    const int cols[3] = {UP2_PREV(x, sw) * CH + k, x * CH + k, UP2_NEXT(x, sw) * CH + k};
    uint ve[3], vo[3];
    for (int j = 0; j < 3; j++) {
        const uint pa = a[cols[j]], pb = b[cols[j]], pc = c[cols[j]];
        ve[j] = UP2_EVEN(uint, pa, pb, pc);
        vo[j] = UP2_ODD(uint, pb, pc);
    }
    return (uint4)(UP2_ROUND(uint, UP2_EVEN(uint, ve[0], ve[1], ve[2])),
                   UP2_ROUND(uint, UP2_ODD(uint, ve[1], ve[2])),
                   UP2_ROUND(uint, UP2_EVEN(uint, vo[0], vo[1], vo[2])),
                   UP2_ROUND(uint, UP2_ODD(uint, vo[1], vo[2])));
}

/* The outputs of source pixel x of rows a, b, c into output rows Y and Y + 1
 * (odd: 1 when that row lies inside the output) through PUT1. */
#define UP2_PIXEL(PUT1, a, b, c, x, sw, dw, Y, odd)                                                \
    for (int k = 0; k < CH; k++) {                                                                 \
        const uint4 r = up2_element(a, b, c, x, sw, k);                                            \
        const int e = 2 * (x)*CH + k, right = 2 * (x) + 1 < dw;                                    \
        PUT1((uchar)r.s0, Y, e);                                                                   \
        if (right)                                                                                 \
            PUT1((uchar)r.s1, Y, e + CH);                                                          \
        if (odd) {                                                                                 \
            PUT1((uchar)r.s2, Y + 1, e);                                                           \
            if (right)                                                                             \
                PUT1((uchar)r.s3, Y + 1, e + CH);                                                  \
        }                                                                                          \
    }

/*
 * A kernel NAME(src, src_stride, sw, sh, PARAMS, dw, dh, rows) that hands
 * each group of 16 output elements to PUT16(v, Y, E) and each single one to
 * PUT1(v, Y, E): v the uchar16 or uchar upsampled values, Y the output row,
 * E the first output element of the row.
 */
#define UP2_ROWS_KERNEL(NAME, PARAMS, PUT16, PUT1)                                                 \
    __kernel void NAME(__global const uchar *src, int src_stride, int sw, int sh, PARAMS, int dw,  \
                       int dh, int rows)                                                           \
    {                                                                                              \
        const int y0 = get_global_id(0) * rows, y1 = min(sh, y0 + rows);                           \
        /* Vector steps: source elements i .. i + 15 with CH <= i and                              \
         * i + 15 + CH inside the row. */                                                          \
        const int elems = sw * CH, steps = elems >= 16 + 2 * CH ? (elems - 2 * CH) / 16 : 0;       \
        const int i1 = CH + 16 * steps, x1 = steps > 0 ? i1 / CH : 1;                              \
        for (int y = y0; y < y1; y++) {                                                            \
            __global const uchar *a = src + (size_t)UP2_PREV(y, sh) * src_stride;                  \
            __global const uchar *b = src + (size_t)y * src_stride;                                \
            __global const uchar *c = src + (size_t)UP2_NEXT(y, sh) * src_stride;                  \
            const int Y = 2 * y, odd = Y + 1 < dh;                                                 \
            UP2_PIXEL(PUT1, a, b, c, 0, sw, dw, Y, odd);                                           \
            for (int i = CH; i < i1; i += 16) {                                                    \
                ushort16 am, ac, ap, bm, bc, bp, cm, cc, cp;                                       \
                UP2_LOAD3(a, i, am, ac, ap);                                                       \
                UP2_LOAD3(b, i, bm, bc, bp);                                                       \
                UP2_LOAD3(c, i, cm, cc, cp);                                                       \
                const ushort16 em = UP2_EVEN(ushort16, am, bm, cm);                                \
                const ushort16 ec = UP2_EVEN(ushort16, ac, bc, cc);                                \
                const ushort16 ep = UP2_EVEN(ushort16, ap, bp, cp);                                \
                const uchar16 ee = UP2_PIX16(UP2_EVEN(ushort16, em, ec, ep));                      \
                const uchar16 eo = UP2_PIX16(UP2_ODD(ushort16, ec, ep));                           \
                PUT16(UP2_LO(ee, eo), Y, 2 * i);                                                   \
                PUT16(UP2_HI(ee, eo), Y, 2 * i + 16);                                              \
                if (odd) {                                                                         \
                    const ushort16 om = UP2_ODD(ushort16, bm, cm);                                 \
                    const ushort16 oc = UP2_ODD(ushort16, bc, cc);                                 \
                    const ushort16 op = UP2_ODD(ushort16, bp, cp);                                 \
                    const uchar16 oe = UP2_PIX16(UP2_EVEN(ushort16, om, oc, op));                  \
                    const uchar16 oo = UP2_PIX16(UP2_ODD(ushort16, oc, op));                       \
                    PUT16(UP2_LO(oe, oo), Y + 1, 2 * i);                                           \
                    PUT16(UP2_HI(oe, oo), Y + 1, 2 * i + 16);                                      \
                }                                                                                  \
            }                                                                                      \
            for (int x = x1; x < sw; x++)                                                          \
                UP2_PIXEL(PUT1, a, b, c, x, sw, dw, Y, odd);                                       \
        }                                                                                          \
    }

/* The plain upsampling: PARAMS and the stores of a kernel writing dst. */
#define UP2_DST_PARAMS     __global uchar *dst, int dst_stride
#define UP2_DST16(v, Y, E) vstore16((v), 0, dst + (size_t)(Y)*dst_stride + (E))
#define UP2_DST1(v, Y, E)  (dst[(size_t)(Y)*dst_stride + (E)] = (v))

#endif

/*
 * Tile SSIM, shared by the SSIM family (ssim.cl: clik_ssim_tiles) and the
 * fusion upscaler (fusion.cl: its artifact map): the SSIM of a tile of two
 * u8 images with uniform weights, from exact integer sums, then the float
 * formula of the scalar oracle (fallback_cpu/scalar/ssim.c, tile_ssim),
 * operation for operation.
 *
 * With n pixels, ca, cb the sums of c = g - 128, qa, qb of c^2 and p of
 * ca cb (n <= 256 keeps every n * q - c * c term inside int), and the raw
 * sums ga = ca + 128 n, gb = cb + 128 n:
 *
 *   SSIM = ((2 ga gb + C1 n^2)(2 (n p - ca cb) + C2 n^2))
 *        / ((ga^2 + gb^2 + C1 n^2)((n qa - ca^2) + (n qb - cb^2) + C2 n^2))
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_KERNELS_SSIM_TILE_H
#define CLIK_KERNELS_SSIM_TILE_H

/* Elements from a buffer's start to row r of a stride of `stride` elements:
 * a size_t product (buffers may hold more than 2^31 elements). */
#define CLIK_ROW(r, stride) ((size_t)(r) * (size_t)(stride))

#define CLIK_SSIM_C1 6.5025f  /* (0.01 * 255)^2 */
#define CLIK_SSIM_C2 58.5225f /* (0.03 * 255)^2 */

/* The five sums of a tile's centred values. */
typedef struct clik_tile_sums {
    int a, b;       /* sums of ca, cb */
    int aa, bb, ab; /* sums of ca^2, cb^2, ca cb */
} clik_tile_sums;

inline clik_tile_sums clik_tile_sums_zero(void)
{
    clik_tile_sums s = {0, 0, 0, 0, 0};
    return s;
}

/* Adds pixels 0 .. count - 1 of two rows to s. */
inline clik_tile_sums clik_tile_add_row(clik_tile_sums s, __global const uchar *ra,
                                        __global const uchar *rb, int count)
{
    for (int i = 0; i < count; i++) {
        const int va = (int)ra[i] - 128, vb = (int)rb[i] - 128;
        s.a += va;
        s.b += vb;
        s.aa += va * va;
        s.bb += vb * vb;
        s.ab += va * vb;
    }
    return s;
}

/* The sums of the nx x ny pixels from a and b (rows sa and sb bytes apart;
 * the row pointers step, so that no offset is an int product). */
inline clik_tile_sums clik_tile_sums_of(__global const uchar *a, int sa, __global const uchar *b,
                                        int sb, int nx, int ny)
{
    clik_tile_sums s = clik_tile_sums_zero();
    for (int y = 0; y < ny; y++, a += sa, b += sb)
        s = clik_tile_add_row(s, a, b, nx);
    return s;
}

/* SSIM of a tile of n pixels from its sums. The quotient is exactly 1 when
 * the numerator equals the denominator (identical tiles): OpenCL allows
 * float division 2.5 ulp of error, and NVIDIA's gives x / x = 0.99999994
 * for some x. */
inline float clik_tile_ssim(int n, clik_tile_sums s)
{
    const float nn = (float)(n * n);
    const float fa = (float)(s.a + 128 * n), fb = (float)(s.b + 128 * n);
    const float va = (float)(n * s.aa - s.a * s.a), vb = (float)(n * s.bb - s.b * s.b);
    const float cov = (float)(n * s.ab - s.a * s.b);
    const float c1 = CLIK_SSIM_C1 * nn, c2 = CLIK_SSIM_C2 * nn;
    const float num = (2.0f * fa * fb + c1) * (2.0f * cov + c2);
    const float den = (fa * fa + fb * fb + c1) * (va + vb + c2);
    return num == den ? 1.0f : num / den;
}

/* The SSIM of the nx x ny tile at a and b. */
inline float clik_tile_ssim_at(__global const uchar *a, int sa, __global const uchar *b, int sb,
                               int nx, int ny)
{
    return clik_tile_ssim(nx * ny, clik_tile_sums_of(a, sa, b, sb, nx, ny));
}

#endif

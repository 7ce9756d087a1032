/*
 * LAPAR family, scalar: the correctness oracle, written straight from the
 * definitions (Li et al. 2020: the LAPAR filter of a bicubic upsample), in
 * double throughout.
 *
 *   U(X, Y)   bicubic upsample by an integer scale s: along each axis the
 *             source point f = (X + 0.5) / s - 0.5, taps floor(f) - 1 ..
 *             floor(f) + 2 clamped to the image, Keys' weights (A = -0.75)
 *             at the distances t + 1, t, 1 - t, 2 - t (t = f - floor(f));
 *   F(p)[k]   sum over the plan's terms j of phi_{plane[j]}(p) atom[j][k];
 *   out_c(p)  sum over k = 5 r + c of F(p)[k] U_c(x + c - 2, y + r - 2),
 *             indices past the border reflected (reflect-101, folded as
 *             often as a small image needs).
 *
 * A 4-channel image's alpha, in U and in the output, is carried over from
 * the source pixel (x / s, y / s): neither interpolated nor filtered. u8 results are rounded to
 * nearest (halves to even) and saturated, NaN giving 0; f32 results are the
 * double sums rounded once. Nothing here is shared with the kernels
 * (kernels/lapar.cl) or the NEON path, which compute in float, but the
 * exact conversion of f16 phi (fallback_cpu/half.h).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "half.h"

/* The four taps of upsampled coordinate x along an axis of n source pixels. */
static void taps(int x, int scale, int n, int *index, double *weight)
{
    const double f = ((double)x + 0.5) / (double)scale - 0.5, base = floor(f), t = f - base;
    for (int k = 0; k < 4; k++) {
        index[k] = clamp_index((int)base - 1 + k, n);
        weight[k] = keys(t + 1.0 - (double)k);
    }
}

/* U of the whole image, W' x H' x channels doubles; NULL when out of memory. */
static double *upsample_all(const clik_image *lr, int scale)
{
    const int w = lr->width * scale, h = lr->height * scale, ch = lr->channels;
    double *u = malloc((size_t)w * (size_t)h * (size_t)ch * sizeof(double));
    if (!u)
        return NULL;
    for (int y = 0; y < h; y++) {
        int rows[4];
        double wy[4];
        taps(y, scale, lr->height, rows, wy);
        for (int x = 0; x < w; x++) {
            int cols[4];
            double wx[4];
            taps(x, scale, lr->width, cols, wx);
            for (int c = 0; c < ch; c++) {
                double sum = 0.0;
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 4; i++)
                        sum += wy[j] * wx[i] * load(lr, cols[i], rows[j], c);
                u[((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c] =
                    c == 3 ? load(lr, x / scale, y / scale, 3) : sum;
            }
        }
    }
    return u;
}

static void lapar_upsample_scalar(const clik_image *lr, int scale, clik_image *dst)
{
    double *u = upsample_all(lr, scale);
    const int ch = lr->channels;
    for (int y = 0; y < dst->height; y++) {
        float *out = (float *)(void *)((char *)dst->data + (size_t)y * dst->stride);
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < ch; c++) {
                /* Out of memory: each value on its own (the same sums). */
                double v;
                if (u) {
                    v = u[((size_t)y * (size_t)dst->width + (size_t)x) * (size_t)ch + (size_t)c];
                } else {
                    int rows[4], cols[4];
                    double wy[4], wx[4];
                    taps(y, scale, lr->height, rows, wy);
                    taps(x, scale, lr->width, cols, wx);
                    v = 0.0;
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++)
                            v += wy[j] * wx[i] * load(lr, cols[i], rows[j], c);
                    if (c == 3)
                        v = load(lr, x / scale, y / scale, 3);
                }
                out[(size_t)x * (size_t)ch + (size_t)c] = (float)v;
            }
    }
    free(u);
}

static double phi_value(const clik_image *phi, int plane_row, int x)
{
    const char *row = (const char *)phi->data + (size_t)plane_row * phi->stride;
    if (phi->type == CLIK_F16)
        return clik__half_to_float(((const uint16_t *)(const void *)row)[x]);
    return ((const float *)(const void *)row)[x];
}

static int lapar_filter_scalar(const clik_image *lr, const clik_image *phi,
                               const clik_lapar_plan *plan, clik_image *dst)
{
    double *u = upsample_all(lr, plan->scale);
    if (!u)
        return -1;
    const int w = dst->width, h = dst->height, ch = dst->channels;
    const int colours = ch == 4 ? 3 : ch;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double f[CLIK_LAPAR_TAPS] = {0.0};
            for (int j = 0; j < plan->count; j++) {
                const double p = phi_value(phi, plan->plane[j] * h + y, x);
                for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
                    f[k] += p * (double)plan->atom[j][k];
            }
            for (int c = 0; c < colours; c++) {
                double sum = 0.0;
                for (int k = 0; k < CLIK_LAPAR_TAPS; k++) {
                    const int ux = clik__reflect101(x + k % 5 - 2, w);
                    const int uy = clik__reflect101(y + k / 5 - 2, h);
                    sum += f[k] * u[((size_t)uy * (size_t)w + (size_t)ux) * (size_t)ch + (size_t)c];
                }
                store(dst, x, y, c, sum);
            }
            if (ch == 4)
                store(dst, x, y, 3, load(lr, x / plan->scale, y / plan->scale, 3));
        }
    free(u);
    return 0;
}

void clik__lapar_dsp_init_scalar(clik_lapar_dsp *dsp)
{
    dsp->upsample = lapar_upsample_scalar;
    dsp->filter = lapar_filter_scalar;
}

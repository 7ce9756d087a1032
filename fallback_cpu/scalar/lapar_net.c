/*
 * LAPAR network family, scalar: the correctness oracle of one fused
 * convolution (clik_lapar_net_conv in fallback_cpu/cpu.h), written straight
 * from the definition. Each output sums in double, the bias first, then
 * over input channels, kernel rows and kernel columns in that order; taps
 * past the border read zero (padding k / 2, cross-correlation). Then the
 * ReLU when asked, then alpha times the residual when one is given, then
 * one rounding to float at the store, through the pixel shuffle when
 * c->shuffle > 1. Nothing here is shared with the kernels or the NEON path.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stddef.h>

#include "common.h"

/* The sum of output channel co at input pixel (x, y), before the ReLU. */
static double conv_sum(const clik_lapar_net_conv *c, const float *in, size_t in_plane, int co,
                       int x, int y, int width, int height)
{
    const int k = c->k, r = k / 2;
    double sum = (double)c->b[co];
    for (int ci = 0; ci < c->cin; ci++) {
        const float *plane = in + (size_t)ci * in_plane;
        const float *w = c->w + ((size_t)co * (size_t)c->cin + (size_t)ci) * (size_t)(k * k);
        for (int ky = 0; ky < k; ky++) {
            const int sy = y + ky - r;
            if (sy < 0 || sy >= height)
                continue;
            for (int kx = 0; kx < k; kx++) {
                const int sx = x + kx - r;
                if (sx < 0 || sx >= width)
                    continue;
                sum +=
                    (double)w[ky * k + kx] * (double)plane[(size_t)sy * (size_t)width + (size_t)sx];
            }
        }
    }
    return sum;
}

static void conv(const clik_lapar_net_conv *c, const float *in, size_t in_plane, const float *res,
                 size_t res_plane, float *out, size_t out_plane, int width, int height, int y0,
                 int y1)
{
    const int s = c->shuffle;
    const size_t w = (size_t)width, out_width = (size_t)s * w;
    for (int co = 0; co < c->cout; co++) {
        /* Output channel co = ch s^2 + i s + j. */
        const int ch = co / (s * s), i = co / s % s, j = co % s;
        float *plane = out + (size_t)ch * out_plane;
        for (int y = y0; y < y1; y++)
            for (int x = 0; x < width; x++) {
                double v = conv_sum(c, in, in_plane, co, x, y, width, height);
                if (c->relu && v < 0.0)
                    v = 0.0;
                if (res)
                    v += (double)c->alpha *
                         (double)res[(size_t)co * res_plane + (size_t)y * w + (size_t)x];
                const size_t oy = (size_t)s * (size_t)y + (size_t)i;
                const size_t ox = (size_t)s * (size_t)x + (size_t)j;
                plane[oy * out_width + ox] = (float)v;
            }
    }
}

void clik__lapar_net_dsp_init_scalar(clik_lapar_net_dsp *dsp)
{
    dsp->conv = conv;
}

/* Resampling geometry (see resize_geometry.h). SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>

#include "resize_geometry.h"

void clik__cubic_weights(double t, double *w)
{
    const double a = -0.75, u = 1.0 - t, d0 = 1.0 + t, d3 = 2.0 - t;
    w[0] = ((a * d0 - 5.0 * a) * d0 + 8.0 * a) * d0 - 4.0 * a;
    w[1] = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    w[2] = ((a + 2.0) * u - (a + 3.0)) * u * u + 1.0;
    w[3] = ((a * d3 - 5.0 * a) * d3 + 8.0 * a) * d3 - 4.0 * a;
}

double clik__u8_weight(double w)
{
    return rint(w * 2048.0) / 2048.0;
}

/* OpenCV's INTER_NEAREST: floor(x * (1 / (dst / src))) in double, clamped. */
static void nearest_axis(int src, int dst, int32_t *ofs)
{
    const double scale = 1.0 / ((double)dst / (double)src);
    for (int x = 0; x < dst; x++) {
        const int i = (int)floor((double)x * scale);
        ofs[x] = i < src - 1 ? i : src - 1;
    }
}

/* The factor s when output x of this nearest axis is source x / s, else 0. */
static int integer_factor(const int32_t *ofs, int src, int dst)
{
    if (dst % src != 0)
        return 0;
    const int s = dst / src;
    for (int x = 0; x < dst; x++)
        if (ofs[x] != x / s)
            return 0;
    return s;
}

/* Source point (x + 0.5) * src / dst - 0.5 of each output x: its first tap
 * (unclamped) and the taps' weights. Quantized weights make results match
 * INTER_CUBIC's also where the exact value is close to a half. */
static void interp_axis(int src, int dst, int taps, int quantize, int32_t *ofs, float *w)
{
    const double scale = 1.0 / ((double)dst / (double)src);
    for (int x = 0; x < dst; x++) {
        const double f = ((double)x + 0.5) * scale - 0.5, base = floor(f), t = f - base;
        double exact[4] = {1.0 - t, t, 0.0, 0.0};
        ofs[x] = (int32_t)base - (taps == 4 ? 1 : 0);
        if (taps == 4)
            clik__cubic_weights(t, exact);
        for (int k = 0; k < taps; k++)
            w[(size_t)x * (size_t)taps + (size_t)k] =
                (float)(quantize ? clik__u8_weight(exact[k]) : exact[k]);
    }
}

int clik__resize_geometry_make(clik_resize_geometry *g, int sw, int sh, int dw, int dh,
                               clik_interp method, int quantize)
{
    *g = (clik_resize_geometry){0};
    g->taps = method == CLIK_INTERP_BICUBIC ? 4 : method == CLIK_INTERP_BILINEAR ? 2 : 0;
    const size_t weights_at = ((size_t)dw + (size_t)dh + 3) / 4 * 4;
    g->bytes = sizeof(int32_t) * (weights_at + ((size_t)dw + (size_t)dh) * (size_t)g->taps);
    g->table = calloc(1, g->bytes);
    if (!g->table)
        return -1;
    g->xofs = g->table;
    g->yofs = g->table + dw;
    if (g->taps == 0) {
        nearest_axis(sw, dw, g->xofs);
        nearest_axis(sh, dh, g->yofs);
        g->sx = integer_factor(g->xofs, sw, dw);
        g->sy = integer_factor(g->yofs, sh, dh);
        return 0;
    }
    g->xw = (float *)(void *)(g->table + weights_at);
    g->yw = g->xw + (size_t)dw * (size_t)g->taps;
    interp_axis(sw, dw, g->taps, quantize, g->xofs, g->xw);
    interp_axis(sh, dh, g->taps, quantize, g->yofs, g->yw);
    return 0;
}

void clik__resize_geometry_free(clik_resize_geometry *g)
{
    free(g->table);
    *g = (clik_resize_geometry){0};
}

void clik__resize_interior(const clik_resize_geometry *g, int dw, int sw, int *xa, int *xb)
{
    int a = 0, b = dw;
    while (a < dw && g->xofs[a] < 0)
        a++;
    while (b > a && g->xofs[b - 1] + g->taps > sw)
        b--;
    *xa = a;
    *xb = b;
}

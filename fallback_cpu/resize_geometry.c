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

/* OpenCV's INTER_NEAREST: floor(x * (1 / fx)) in double, clamped. */
static void nearest_axis(int src, int dst, double fx, int32_t *ofs)
{
    const double scale = 1.0 / fx;
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

/* Source point (x + 0.5) * (1 / fx) - 0.5 of each output x: its first tap
 * (unclamped) and the taps' weights. Quantized weights make results match
 * INTER_CUBIC's also where the exact value is close to a half. */
static void interp_axis(int dst, double fx, int taps, int quantize, int32_t *ofs, float *w)
{
    const double scale = 1.0 / fx;
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

/* ---- bicubic-aa (MATLAB's imresize, antialiased) ---- */

/* MATLAB's cubic: Keys' kernel with a = -0.5. */
static double cubic_half(double x)
{
    const double d = fabs(x);
    if (d <= 1.0)
        return (1.5 * d - 2.5) * d * d + 1.0;
    if (d < 2.0)
        return ((-0.5 * d + 2.5) * d - 4.0) * d + 2.0;
    return 0.0;
}

/* Index i of the periodic sequence 0 1 .. n-1 n-1 .. 1 0 (half-sample
 * symmetric mirroring). */
static int mirror(long long i, int n)
{
    const long long period = 2LL * n;
    long long m = i % period;
    if (m < 0)
        m += period;
    return (int)(m < n ? m : period - 1 - m);
}

/* The weights of output x of an axis of src -> dst pixels, normalised and
 * folded onto source pixels: acc[lo .. hi] (acc zero on entry; the caller
 * zeroes acc[lo .. hi] again). MATLAB: u = x / s + 0.5 * (1 - 1 / s) in
 * 1-based coordinates, that is (x + 0.5) / s - 0.5 in 0-based ones (s the
 * axis' scale, dst / src unless given); taps
 * floor(u - width / 2) + 0 .. ceil(width) + 1 of the kernel
 * k * cubic(k * d), k = min(s, 1), width 4 / k. */
static void aa_fold(int src, double s, int x, double *acc, int *lo, int *hi)
{
    const double k = s < 1.0 ? s : 1.0;
    const double width = 4.0 / k, u = ((double)x + 0.5) / s - 0.5;
    const long long first = (long long)floor(u - width / 2.0);
    const long long count = (long long)ceil(width) + 2;
    double sum = 0.0;
    int a = src, b = -1;
    for (long long j = first; j < first + count; j++) {
        const double w = k * cubic_half(k * (u - (double)j));
        if (w == 0.0)
            continue;
        const int m = mirror(j, src);
        acc[m] += w;
        sum += w;
        a = m < a ? m : a;
        b = m > b ? m : b;
    }
    for (int i = a; i <= b; i++)
        acc[i] /= sum;
    *lo = a;
    *hi = b;
}

/* The taps of an axis whose widest run of folded taps is n pixels. */
static int aa_taps(int n)
{
    if (n <= 16)
        return (n + 3) / 4 * 4;
    if (n <= 64)
        return (n + 15) / 16 * 16;
    int t = 128;
    while (t < n)
        t *= 2;
    return t;
}

/* The widest run of folded taps of an axis (acc: src zeroed doubles). */
static int aa_width(int src, int dst, double s, double *acc)
{
    int widest = 1;
    for (int x = 0; x < dst; x++) {
        int lo, hi;
        aa_fold(src, s, x, acc, &lo, &hi);
        widest = hi - lo + 1 > widest ? hi - lo + 1 : widest;
        for (int i = lo; i <= hi; i++)
            acc[i] = 0.0;
    }
    return widest;
}

/* First taps and weights of an axis of `taps` taps (w zeroed). */
static void aa_axis(int src, int dst, double s, int taps, double *acc, int32_t *ofs, float *w)
{
    for (int x = 0; x < dst; x++) {
        int lo, hi;
        aa_fold(src, s, x, acc, &lo, &hi);
        int first = src >= taps && lo > src - taps ? src - taps : lo;
        first = src < taps ? 0 : first;
        ofs[x] = first;
        for (int i = lo; i <= hi; i++) {
            w[(size_t)x * (size_t)taps + (size_t)(i - first)] = (float)acc[i];
            acc[i] = 0.0;
        }
    }
}

/* The table of g (xtaps and ytaps set): one zeroed allocation. */
static int table_alloc(clik_resize_geometry *g, int dw, int dh)
{
    const size_t weights_at = ((size_t)dw + (size_t)dh + 3) / 4 * 4;
    g->bytes = sizeof(int32_t) *
               (weights_at + (size_t)dw * (size_t)g->xtaps + (size_t)dh * (size_t)g->ytaps);
    g->table = calloc(1, g->bytes);
    if (!g->table)
        return -1;
    g->xofs = g->table;
    g->yofs = g->table + dw;
    if (g->xtaps > 0) {
        g->xw = (float *)(void *)(g->table + weights_at);
        g->yw = g->xw + (size_t)dw * (size_t)g->xtaps;
    }
    return 0;
}

static int aa_make(clik_resize_geometry *g, int sw, int sh, int dw, int dh, double fx, double fy)
{
    double *acc = calloc((size_t)(sw > sh ? sw : sh), sizeof(double));
    if (!acc)
        return -1;
    g->xtaps = aa_taps(aa_width(sw, dw, fx, acc));
    g->ytaps = aa_taps(aa_width(sh, dh, fy, acc));
    if (table_alloc(g, dw, dh) != 0) {
        free(acc);
        *g = (clik_resize_geometry){0};
        return -1;
    }
    aa_axis(sw, dw, fx, g->xtaps, acc, g->xofs, g->xw);
    aa_axis(sh, dh, fy, g->ytaps, acc, g->yofs, g->yw);
    free(acc);
    return 0;
}

int clik__resize_geometry_make(clik_resize_geometry *g, int sw, int sh, int dw, int dh,
                               const double scale[2], clik_interp method, int quantize)
{
    *g = (clik_resize_geometry){0};
    const double fx = scale ? scale[0] : (double)dw / (double)sw;
    const double fy = scale ? scale[1] : (double)dh / (double)sh;
    if (method == CLIK_INTERP_BICUBIC_AA)
        return aa_make(g, sw, sh, dw, dh, fx, fy);
    const int taps = method == CLIK_INTERP_BICUBIC ? 4 : method == CLIK_INTERP_BILINEAR ? 2 : 0;
    g->xtaps = g->ytaps = taps;
    if (table_alloc(g, dw, dh) != 0) {
        *g = (clik_resize_geometry){0};
        return -1;
    }
    if (taps == 0) {
        nearest_axis(sw, dw, fx, g->xofs);
        nearest_axis(sh, dh, fy, g->yofs);
        g->sx = integer_factor(g->xofs, sw, dw);
        g->sy = integer_factor(g->yofs, sh, dh);
        return 0;
    }
    interp_axis(dw, fx, taps, quantize, g->xofs, g->xw);
    interp_axis(dh, fy, taps, quantize, g->yofs, g->yw);
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
    while (b > a && g->xofs[b - 1] + g->xtaps > sw)
        b--;
    *xa = a;
    *xb = b;
}

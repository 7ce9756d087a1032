/*
 * LAPAR model family, scalar: the correctness oracle of the classification
 * and of the per-bucket filter, written straight from the definition in
 * fallback_cpu/cpu.h (clik_lapar_model_plan). The classification is in
 * float, in the order the definition writes (it is what a device kernel
 * reproduces); the filter sums in double and rounds once. Steps 4 to 6
 * of one pixel are in lapar_model_px.h.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

#include "common.h"
#include "lapar_model_px.h"

static float up_value(const clik_image *up, int x, int y, int c)
{
    const char *row = (const char *)up->data + (size_t)y * up->stride;
    return ((const float *)(const void *)row)[(size_t)x * (size_t)up->channels + (size_t)c];
}

/* Step 1: the luma of a pixel (red in channel 0, or 2 in BGR order). */
static float luma(const clik_image *up, int x, int y)
{
    if (up->channels == 1)
        return up_value(up, x, y, 0);
    const int red = up->order == CLIK_ORDER_BGR ? 2 : 0;
    const float r = up_value(up, x, y, red), g = up_value(up, x, y, 1);
    const float b = up_value(up, x, y, 2 - red);
    return (0.299f * r + 0.587f * g) + 0.114f * b;
}

/* C(n, k) for n <= 8. */
static int binomial(int n, int k)
{
    int v = 1;
    for (int i = 1; i <= k; i++)
        v = v * (n - k + i) / i;
    return v;
}

/* Step 3's row sums of pixel (x, y): ra, rb, rc into t[0..2]. */
static void row_sums(const float *gx, const float *gy, int w, int x, int y, int n,
                     const float *wtab, float *t)
{
    const int r = n / 2;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    for (int i = -r; i <= r; i++) {
        const size_t o = (size_t)y * (size_t)w + (size_t)clik__reflect101(x + i, w);
        const float u = gx[o], v = gy[o];
        a += wtab[i + r] * (u * u);
        b += wtab[i + r] * (u * v);
        c += wtab[i + r] * (v * v);
    }
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

/* Steps 3 (down the column) to 6 for one pixel, given the row sums (three
 * floats per pixel). */
static int bucket_of(const float *rows, int w, int h, int x, int y,
                     const clik_lapar_model_plan *plan, const float *wtab)
{
    const int n = plan->window, r = n / 2;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    for (int j = -r; j <= r; j++) {
        const float *t = rows + 3 * ((size_t)clik__reflect101(y + j, h) * (size_t)w + (size_t)x);
        a += wtab[j + r] * t[0];
        b += wtab[j + r] * t[1];
        c += wtab[j + r] * t[2];
    }
    const float norm = ldexpf(1.0f, -2 * (n - 1));
    return clik__lapar_model_bucket(a * norm, b * norm, c * norm, x, y, plan);
}

static int classify_scalar(const clik_image *up, const clik_lapar_model_plan *plan,
                           clik_image *buckets)
{
    const int w = up->width, h = up->height;
    const size_t n = (size_t)w * (size_t)h;
    float *y = malloc(n * sizeof(float));
    float *gx = malloc(n * sizeof(float));
    float *gy = malloc(n * sizeof(float));
    float *rows = malloc(3 * n * sizeof(float));
    if (!y || !gx || !gy || !rows) {
        free(y);
        free(gx);
        free(gy);
        free(rows);
        return -1;
    }
    float wtab[9];
    const int nw = plan->window;
    for (int i = 0; i < nw; i++)
        wtab[i] = (float)binomial(nw - 1, i);
    for (int r = 0; r < h; r++)
        for (int x = 0; x < w; x++)
            y[(size_t)r * (size_t)w + (size_t)x] = luma(up, x, r);
    /* Step 2. */
    for (int r = 0; r < h; r++)
        for (int x = 0; x < w; x++) {
            const size_t o = (size_t)r * (size_t)w + (size_t)x;
            const size_t row = (size_t)r * (size_t)w;
            const size_t up_row = (size_t)clik__reflect101(r - 1, h) * (size_t)w;
            const size_t down_row = (size_t)clik__reflect101(r + 1, h) * (size_t)w;
            gx[o] = 0.5f * (y[row + (size_t)clik__reflect101(x + 1, w)] -
                            y[row + (size_t)clik__reflect101(x - 1, w)]);
            gy[o] = 0.5f * (y[down_row + (size_t)x] - y[up_row + (size_t)x]);
        }
    for (int r = 0; r < h; r++)
        for (int x = 0; x < w; x++)
            row_sums(gx, gy, w, x, r, nw, wtab, rows + 3 * ((size_t)r * (size_t)w + (size_t)x));
    for (int r = 0; r < h; r++) {
        uint16_t *out = (uint16_t *)(void *)((char *)buckets->data + (size_t)r * buckets->stride);
        for (int x = 0; x < w; x++)
            out[x] = (uint16_t)bucket_of(rows, w, h, x, r, plan, wtab);
    }
    free(y);
    free(gx);
    free(gy);
    free(rows);
    return 0;
}

static int filter_scalar(const clik_image *up, const clik_image *buckets,
                         const clik_lapar_model_plan *plan, clik_image *dst)
{
    const int w = up->width, h = up->height, ch = up->channels;
    const int colours = ch == 4 ? 3 : ch;
    for (int y = 0; y < h; y++) {
        const uint16_t *brow = (const uint16_t *)(const void *)((const char *)buckets->data +
                                                                (size_t)y * buckets->stride);
        for (int x = 0; x < w; x++) {
            const int k = plan->ksize, half = k / 2, taps = k * k;
            const float *f = plan->filters + (size_t)brow[x] * (size_t)taps;
            for (int c = 0; c < colours; c++) {
                double sum = 0.0;
                for (int t = 0; t < taps; t++) {
                    const int ux = clik__reflect101(x + t % k - half, w);
                    const int uy = clik__reflect101(y + t / k - half, h);
                    sum += (double)f[t] * (double)up_value(up, ux, uy, c);
                }
                store(dst, x, y, c, sum);
            }
            if (ch == 4)
                store(dst, x, y, 3, up_value(up, x, y, 3));
        }
    }
    return 0;
}

void clik__lapar_model_dsp_init_scalar(clik_lapar_model_dsp *dsp)
{
    dsp->classify = classify_scalar;
    dsp->filter = filter_scalar;
}

/*
 * SSIM family, scalar: the correctness oracle, written straight from the
 * definitions.
 *
 * clik_ssim (Wang et al. 2004, as scikit-image's structural_similarity with
 * gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 * data_range=255): for every pixel whose 11 x 11 window lies inside the
 * image, the Gaussian-weighted (sigma 1.5, taps x = -5..5, normalized)
 * means, variances and covariance of the window, then
 *
 *   SSIM = ((2 mu_a mu_b + C1)(2 cov + C2)) / ((mu_a^2 + mu_b^2 + C1)(var_a + var_b + C2))
 *
 * with C1 = (0.01 * 255)^2, C2 = (0.03 * 255)^2. Everything in double, of
 * the raw values, the window applied as a 1-D Gaussian along rows and then
 * along columns (as scikit-image's gaussian_filter does), so the result
 * agrees with scikit-image's float64 arithmetic to about 1e-12.
 *
 * clik_ssim_tiles: uniform weights over tile x tile squares (fewer pixels at
 * the right and bottom edges). The five sums are exact integers; with n
 * pixels, G = sum of g, C = sum of c = g - 128, Q = sum of c^2 and P = sum of
 * c_a c_b,
 *
 *   SSIM = ((2 Ga Gb + C1 n^2)(2 (n P - Ca Cb) + C2 n^2))
 *        / ((Ga^2 + Gb^2 + C1 n^2)((n Qa - Ca^2) + (n Qb - Cb^2) + C2 n^2))
 *
 * (n^2 times the moments in the formula above; the n^2 cancels). The integer
 * terms are exact (n Q - C^2 = n^2 var < 2^30 for n <= 256), and then every
 * backend does the same float operations in the same order (ssim_px.h),
 * so their results differ at most by the rounding of the last division.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

#include "cpu.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "ssim_px.h"

#define RADIUS 5
#define TAPS   (2 * RADIUS + 1)

static const double C1 = (0.01 * 255) * (0.01 * 255);
static const double C2 = (0.03 * 255) * (0.03 * 255);

/* The five quantities the window averages, for every pixel of row y:
 * t[m * width + x] for a, b, a^2, b^2, a b. */
static void row_terms(const clik_image *a, const clik_image *b, int y, double *t)
{
    const int width = a->width;
    const char *ra = (const char *)a->data + (size_t)y * a->stride;
    const char *rb = (const char *)b->data + (size_t)y * b->stride;
    for (int x = 0; x < width; x++) {
        const double va =
            a->type == CLIK_U8 ? ((const uint8_t *)ra)[x] : ((const float *)(const void *)ra)[x];
        const double vb =
            b->type == CLIK_U8 ? ((const uint8_t *)rb)[x] : ((const float *)(const void *)rb)[x];
        t[x] = va;
        t[width + x] = vb;
        t[2 * width + x] = va * va;
        t[3 * width + x] = vb * vb;
        t[4 * width + x] = va * vb;
    }
}

int clik__ssim_scalar(const clik_image *a, const clik_image *b, clik_image *map, double *mean)
{
    /* The normalized 1-D Gaussian; the 2-D window is g[j] g[i]. */
    double g[TAPS], total = 0.0;
    for (int i = 0; i < TAPS; i++) {
        g[i] = exp(-(double)((i - RADIUS) * (i - RADIUS)) / (2.0 * 1.5 * 1.5));
        total += g[i];
    }
    for (int i = 0; i < TAPS; i++)
        g[i] /= total;

    const int width = a->width, ow = width - 2 * RADIUS, oh = a->height - 2 * RADIUS;
    /* The window is separable: each input row is summed horizontally once,
     * into a ring holding the last TAPS rows; an output row is the vertical
     * sum of the ring's rows. */
    double *terms = malloc(sizeof(double) * 5 * (size_t)width);
    double *ring = malloc(sizeof(double) * TAPS * 5 * (size_t)ow);
    if (!terms || !ring) {
        free(terms);
        free(ring);
        return -1;
    }
    double sum = 0.0;
    for (int r = 0; r < a->height; r++) {
        row_terms(a, b, r, terms);
        double *hs = ring + (size_t)(r % TAPS) * 5 * (size_t)ow;
        for (int m = 0; m < 5; m++)
            for (int x = 0; x < ow; x++) {
                double s = 0.0;
                for (int i = 0; i < TAPS; i++)
                    s += g[i] * terms[(size_t)m * (size_t)width + (size_t)(x + i)];
                hs[(size_t)m * (size_t)ow + (size_t)x] = s;
            }
        if (r < TAPS - 1)
            continue;
        const int y = r - (TAPS - 1); /* the window covers input rows y .. r */
        float *out = map ? (float *)(void *)((char *)map->data + (size_t)y * map->stride) : NULL;
        for (int x = 0; x < ow; x++) {
            double mo[5] = {0, 0, 0, 0, 0};
            for (int j = 0; j < TAPS; j++) {
                const double *row = ring + (size_t)((y + j) % TAPS) * 5 * (size_t)ow;
                for (int m = 0; m < 5; m++)
                    mo[m] += g[j] * row[(size_t)m * (size_t)ow + (size_t)x];
            }
            const double mu_a = mo[0], mu_b = mo[1];
            const double var_a = mo[2] - mu_a * mu_a, var_b = mo[3] - mu_b * mu_b;
            const double cov = mo[4] - mu_a * mu_b;
            const double s = ((2.0 * mu_a * mu_b + C1) * (2.0 * cov + C2)) /
                             ((mu_a * mu_a + mu_b * mu_b + C1) * (var_a + var_b + C2));
            if (out)
                out[x] = (float)s;
            sum += s;
        }
    }
    free(terms);
    free(ring);
    *mean = sum / ((double)ow * (double)oh);
    return 0;
}

void clik__ssim_tiles_scalar(const clik_image *a, const clik_image *b, int tile, clik_image *map)
{
    for (int ty = 0; ty < map->height; ty++) {
        float *out = (float *)(void *)((char *)map->data + (size_t)ty * map->stride);
        for (int tx = 0; tx < map->width; tx++) {
            const int x0 = tx * tile, y0 = ty * tile;
            const int x1 = x0 + tile < a->width ? x0 + tile : a->width;
            const int y1 = y0 + tile < a->height ? y0 + tile : a->height;
            int64_t ca = 0, cb = 0, qa = 0, qb = 0, p = 0;
            for (int y = y0; y < y1; y++) {
                const uint8_t *ra = (const uint8_t *)a->data + (size_t)y * a->stride;
                const uint8_t *rb = (const uint8_t *)b->data + (size_t)y * b->stride;
                for (int x = x0; x < x1; x++) {
                    const int64_t va = (int64_t)ra[x] - 128, vb = (int64_t)rb[x] - 128;
                    ca += va;
                    cb += vb;
                    qa += va * va;
                    qb += vb * vb;
                    p += va * vb;
                }
            }
            const int64_t n = (int64_t)(x1 - x0) * (y1 - y0);
            out[tx] = clik__ssim_tile(n, ca + 128 * n, cb + 128 * n, ca, cb, qa, qb, p);
        }
    }
}

void clik__ssim_dsp_init_scalar(clik_ssim_dsp *dsp)
{
    dsp->ssim = clik__ssim_scalar;
    dsp->tiles = clik__ssim_tiles_scalar;
}

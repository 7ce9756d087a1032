/*
 * Conformance cases of the ssim family. A case gets one image a; its second
 * image b is derived from a here, in plain C: in bands of 16 rows, a itself
 * (where the map is 1) or a blend of a with a copy shifted two pixels right
 * plus seeded noise of +-8, +-16 or +-24 levels.
 *
 * clik_ssim needs 11 x 11 pixels: a smaller input (the 1x1, 2x3 and 7x7 test
 * sizes) is first repeated periodically to 11 pixels on its short sides, so
 * that every test size runs the operation. Tile SSIM takes any size as it is.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "cases.h"

#define WINDOW CLIK_SSIM_WINDOW

static double pixel(const clik_image *img, int x, int y)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    return img->type == CLIK_U8 ? ((const uint8_t *)row)[x] : ((const float *)(const void *)row)[x];
}

static void set_pixel(clik_image *img, int x, int y, double v)
{
    char *row = (char *)img->data + (size_t)y * img->stride;
    v = v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v;
    if (img->type == CLIK_U8)
        ((uint8_t *)row)[x] = (uint8_t)(v + 0.5);
    else
        ((float *)(void *)row)[x] = (float)v;
}

/* a: in repeated to at least min_side on each side; b derived from a. */
static clik_status make_pair(const clik_image *in, int min_side, clik_image *a, clik_image *b)
{
    const int w = in->width < min_side ? min_side : in->width;
    const int h = in->height < min_side ? min_side : in->height;
    memset(b, 0, sizeof(*b));
    clik_status st = clik_image_alloc(a, w, h, 1, in->type);
    if (st == CLIK_OK)
        st = clik_image_alloc(b, w, h, 1, in->type);
    if (st != CLIK_OK) {
        clik_image_free(a);
        return st;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            set_pixel(a, x, y, pixel(in, x % in->width, y % in->height));
    uint64_t state = 0x55aa1234u;
    for (int y = 0; y < h; y++) {
        const int amplitude = 8 * ((y / 16) % 4);
        for (int x = 0; x < w; x++) {
            const double shifted = pixel(a, x + 2 < w ? x + 2 : w - 1, y);
            const int noise = (int)(sup_rand_next(&state) % (uint64_t)(2 * amplitude + 1));
            const double v = amplitude == 0 ? pixel(a, x, y)
                                            : 0.75 * pixel(a, x, y) + 0.25 * shifted +
                                                  (double)(noise - amplitude);
            set_pixel(b, x, y, v);
        }
    }
    return CLIK_OK;
}

static void free_pair(clik_image *a, clik_image *b)
{
    clik_image_free(a);
    clik_image_free(b);
}

/* The SSIM map, F32 (W - 10) x (H - 10). */
static clik_status run_ssim_map(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_image a, b;
    clik_status st = make_pair(in, WINDOW, &a, &b);
    if (st != CLIK_OK)
        return st;
    st = sup_case_output(out, a.width - (WINDOW - 1), a.height - (WINDOW - 1), 1, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_ssim(ctx, &a, &b, out, NULL);
    free_pair(&a, &b);
    return st;
}

/* The mean alone, as a 1 x 1 F64 image. */
static clik_status run_ssim_mean(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_image a, b;
    clik_status st = make_pair(in, WINDOW, &a, &b);
    if (st != CLIK_OK)
        return st;
    double mean = -2.0;
    st = sup_case_host_output(out, 1, 1, 1, CLIK_F64);
    if (st == CLIK_OK)
        st = clik_ssim(ctx, &a, &b, NULL, &mean);
    if (st == CLIK_OK)
        *(double *)out->data = mean;
    free_pair(&a, &b);
    return st;
}

/* Tile SSIM of tile x tile squares, F32 ceil(W / tile) x ceil(H / tile). */
static clik_status run_tiles(clik_context *ctx, const clik_image *in, int tile, clik_image *out)
{
    clik_image a, b;
    clik_status st = make_pair(in, 1, &a, &b);
    if (st != CLIK_OK)
        return st;
    st = sup_case_output(out, (a.width + tile - 1) / tile, (a.height + tile - 1) / tile, 1,
                         CLIK_F32);
    if (st == CLIK_OK)
        st = clik_ssim_tiles(ctx, &a, &b, tile, out);
    free_pair(&a, &b);
    return st;
}

SUP_CASE_RUN(run_tiles_2, run_tiles(ctx, in, 2, out))
SUP_CASE_RUN(run_tiles_5, run_tiles(ctx, in, 5, out))
SUP_CASE_RUN(run_tiles_8, run_tiles(ctx, in, 8, out))
SUP_CASE_RUN(run_tiles_16, run_tiles(ctx, in, 16, out))

const sup_case sup_cases_ssim[] = {
    {"ssim", "ssim", SUP_TOL_SSIM, SUP_CH1, CLIK_U8, run_ssim_map},
    {"ssim", "ssim-mean", SUP_TOL_F32, SUP_CH1, CLIK_U8, run_ssim_mean},
    {"ssim", "ssim-f32", SUP_TOL_SSIM, SUP_CH1, CLIK_F32, run_ssim_map},
    {"ssim", "ssim_tiles", SUP_TOL_F32, SUP_CH1, CLIK_U8, run_tiles_8},
    {"ssim", "ssim_tiles-2", SUP_TOL_F32, SUP_CH1, CLIK_U8, run_tiles_2},
    {"ssim", "ssim_tiles-5", SUP_TOL_F32, SUP_CH1, CLIK_U8, run_tiles_5},
    {"ssim", "ssim_tiles-16", SUP_TOL_F32, SUP_CH1, CLIK_U8, run_tiles_16},
};
const int sup_cases_ssim_count = (int)(sizeof(sup_cases_ssim) / sizeof(sup_cases_ssim[0]));

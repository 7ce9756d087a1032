/* SSIM family on every backend against the scalar oracle. SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

#define C1 ((0.01 * 255) * (0.01 * 255))
#define C2 ((0.03 * 255) * (0.03 * 255))

static float map_at(const clik_image *map, int x, int y)
{
    return ((const float *)(const void *)((const char *)map->data + (size_t)y * map->stride))[x];
}

/* A backend's map, tiles and mean against the oracle's. */
static void check_results(const clik_image *map, const clik_image *map_want,
                          const clik_image *tiles, const clik_image *tiles_want, double mean,
                          double mean_want)
{
    sup_compare cmp;
    sup_compare_images(map, map_want, SUP_TOL_SSIM, &cmp);
    ck_assert_msg(cmp.pass, "map: %s", cmp.detail);
    sup_compare_images(tiles, tiles_want, SUP_TOL_F32, &cmp);
    ck_assert_msg(cmp.pass, "tiles: %s", cmp.detail);
    ck_assert_msg(fabs(mean - mean_want) <= 1e-4, "%.9g vs %.9g", mean, mean_want);
}

/* SSIM of an image with itself is 1 everywhere, exactly: the formula's
 * numerator and denominator are the same float operations. */
START_TEST(identical_images)
{
    const clik_type types[2] = {CLIK_U8, CLIK_F32};
    for (int t = 0; t < 2; t++) {
        clik_image a, map, tiles;
        ck_assert_int_eq(clik_image_alloc(&a, 67, 45, 1, types[t]), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&map, 57, 35, 1, CLIK_F32), CLIK_OK);
        sup_pattern_fill(&a, SUP_PATTERN_EDGES, 5);
        double mean = 0.0;
        ck_assert_msg(clik_ssim(h_ctx, &a, &a, &map, &mean) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        for (int y = 0; y < map.height; y++)
            for (int x = 0; x < map.width; x++)
                ck_assert_msg(map_at(&map, x, y) == 1.0f, "%s (%d, %d): %.9g on %s",
                              clik_type_name(types[t]), x, y, map_at(&map, x, y), h_backend);
        ck_assert_msg(mean == 1.0, "mean %.17g", mean);
        if (types[t] == CLIK_U8) {
            ck_assert_int_eq(clik_image_alloc(&tiles, 9, 6, 1, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &a, 8, &tiles), CLIK_OK);
            for (int y = 0; y < tiles.height; y++)
                for (int x = 0; x < tiles.width; x++)
                    ck_assert_msg(map_at(&tiles, x, y) == 1.0f, "tile (%d, %d): %.9g", x, y,
                                  map_at(&tiles, x, y));
            clik_image_free(&tiles);
        }
        h_free_images(&a, &map, NULL);
    }
}
END_TEST

/* Two constant images: no variance, so SSIM is the luminance term
 * (2ab + C1) / (a^2 + b^2 + C1) everywhere. The float paths see variances of
 * rounding size (the second moments of x - 128 reach 128^2): 1e-4. */
START_TEST(constant_images)
{
    const int values[][2] = {{100, 50}, {255, 0}, {0, 0}, {200, 201}, {255, 255}};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        const double va = values[i][0], vb = values[i][1];
        const double want = (2 * va * vb + C1) / (va * va + vb * vb + C1);
        uint8_t pa[13 * 12], pb[13 * 12];
        memset(pa, values[i][0], sizeof(pa));
        memset(pb, values[i][1], sizeof(pb));
        float out[3 * 2];
        clik_image a, b, map;
        ck_assert_int_eq(clik_image_wrap(&a, 13, 12, 1, CLIK_U8, pa, 0), CLIK_OK);
        ck_assert_int_eq(clik_image_wrap(&b, 13, 12, 1, CLIK_U8, pb, 0), CLIK_OK);
        ck_assert_int_eq(clik_image_wrap(&map, 3, 2, 1, CLIK_F32, out, 0), CLIK_OK);
        double mean = -1.0;
        ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &map, &mean), CLIK_OK);
        for (int k = 0; k < 6; k++)
            ck_assert_msg(fabs(out[k] - want) <= 1e-4, "%g vs %g: %.9g, want %.9g", va, vb, out[k],
                          want);
        ck_assert_msg(fabs(mean - want) <= 1e-4, "mean %.9g, want %.9g", mean, want);
        /* The same through tile SSIM (no rounding of moments at all). */
        float t[4];
        clik_image tiles;
        ck_assert_int_eq(clik_image_wrap(&tiles, 2, 2, 1, CLIK_F32, t, 0), CLIK_OK);
        ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 7, &tiles), CLIK_OK);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(fabs(t[k] - want) <= 1e-6 * want + 1e-12, "tile %d: %.9g, want %.9g", k,
                          t[k], want);
    }
}
END_TEST

/* Tile SSIM worked by hand: a 3 x 3 image in tiles of 2 has a full tile, two
 * edge tiles of 2 pixels and a corner tile of 1 pixel. */
START_TEST(tiles_by_hand)
{
    uint8_t pa[9] = {10, 20, 7, 30, 40, 9, 100, 0, 50};
    uint8_t pb[9] = {12, 18, 7, 33, 40, 3, 90, 10, 60};
    float out[4];
    clik_image a, b, map;
    ck_assert_int_eq(clik_image_wrap(&a, 3, 3, 1, CLIK_U8, pa, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&b, 3, 3, 1, CLIK_U8, pb, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&map, 2, 2, 1, CLIK_F32, out, 0), CLIK_OK);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 2, &map), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    /* Tile (0, 0): a = 10 20 30 40, b = 12 18 33 40. Means 25 and 25.75;
     * variances 500/4 and 504.75/4; covariance 495/4. */
    double want[4];
    want[0] = ((2 * 25 * 25.75 + C1) * (2 * 123.75 + C2)) /
              ((25.0 * 25 + 25.75 * 25.75 + C1) * (125 + 126.1875 + C2));
    /* Tile (1, 0): a = 7 9, b = 7 3. Means 8 and 5; variances 1 and 4;
     * covariance ((7 - 8)(7 - 5) + (9 - 8)(3 - 5)) / 2 = -2. */
    want[1] = ((2 * 8 * 5 + C1) * (2 * -2.0 + C2)) / ((64 + 25 + C1) * (1 + 4 + C2));
    /* Tile (0, 1): a = 100 0, b = 90 10. Means 50 and 50; variances 2500 and
     * 1600; covariance (50 * 40 + (-50)(-40)) / 2 = 2000. */
    want[2] = ((2 * 50 * 50 + C1) * (2 * 2000 + C2)) / ((2500 + 2500 + C1) * (2500 + 1600 + C2));
    /* Tile (1, 1): the single pixels 50 and 60: no variance. */
    want[3] = (2 * 50 * 60 + C1) / (2500 + 3600 + C1);
    for (int k = 0; k < 4; k++)
        ck_assert_msg(fabs(out[k] - want[k]) <= 1e-6, "tile %d: %.9g, want %.9g", k, out[k],
                      want[k]);
}
END_TEST

/* Images of exactly the window and a few thin shapes, every case (one
 * pattern on slow backends). */
START_TEST(thin_images)
{
    const int patterns = h_small ? 1 : 2;
    const int sizes[][2] = {{11, 11}, {11, 40}, {40, 11}, {12, 11}, {19, 13}, {1, 37}, {37, 1}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int c = 0; c < h_family_case_count("ssim"); c++) {
            const sup_case *k = h_family_case("ssim", c);
            for (int p = 0; p < patterns; p++) {
                h_check_case_at(k, sizes[i][0], sizes[i][1], 1,
                                p ? SUP_PATTERN_EDGES : SUP_PATTERN_NOISE, 7);
            }
        }
}
END_TEST

/* Map and mean in one call equal the two alone and the oracle's. */
START_TEST(map_and_mean)
{
    const int w = 203, h = 77;
    clik_image a, b, m1, m2, want;
    h_alloc_images(w, h, 1, CLIK_U8, &a, &b, NULL);
    h_alloc_images(w - 10, h - 10, 1, CLIK_F32, &m1, &m2, &want, NULL);
    sup_pattern_fill(&a, SUP_PATTERN_SMOOTH, 11);
    sup_pattern_fill(&b, SUP_PATTERN_SMOOTH, 12);
    double both = -1, alone = -2, oracle = -3;
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &m1, &both), CLIK_OK);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &m2, NULL), CLIK_OK);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, NULL, &alone), CLIK_OK);
    ck_assert_int_eq(clik_ssim(h_oracle, &a, &b, &want, &oracle), CLIK_OK);
    ck_assert_mem_eq(m1.data, m2.data, m1.stride * (size_t)m1.height);
    ck_assert_msg(both == alone, "%.17g vs %.17g", both, alone);
    ck_assert_msg(fabs(both - oracle) <= 1e-4, "%.9g vs oracle %.9g", both, oracle);
    sup_compare cmp;
    sup_compare_images(&m1, &want, SUP_TOL_SSIM, &cmp);
    ck_assert_msg(cmp.pass, "%s", cmp.detail);
    h_free_images(&a, &b, &m1, &m2, &want, NULL);
}
END_TEST

/* Rows with padding between them, in the inputs and in the maps. */
START_TEST(strided_rows)
{
    const int w = 45, h = 29;
    static uint8_t pa[64 * 29], pb[80 * 29];
    static float pm[40 * 19], pt[16 * 10];
    clik_image a, b, map, want, tiles, tiles_want;
    ck_assert_int_eq(clik_image_wrap(&a, w, h, 1, CLIK_U8, pa, 64), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&b, w, h, 1, CLIK_U8, pb, 80), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&map, w - 10, h - 10, 1, CLIK_F32, pm, 40 * 4), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&tiles, 15, 10, 1, CLIK_F32, pt, 16 * 4), CLIK_OK);
    sup_pattern_fill(&a, SUP_PATTERN_NOISE, 1);
    sup_pattern_fill(&b, SUP_PATTERN_GRADIENT, 2);
    ck_assert_int_eq(clik_image_alloc(&want, w - 10, h - 10, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&tiles_want, 15, 10, 1, CLIK_F32), CLIK_OK);
    double mean, mean_want;
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &map, &mean), CLIK_OK);
    ck_assert_int_eq(clik_ssim(h_oracle, &a, &b, &want, &mean_want), CLIK_OK);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 3, &tiles), CLIK_OK);
    ck_assert_int_eq(clik_ssim_tiles(h_oracle, &a, &b, 3, &tiles_want), CLIK_OK);
    check_results(&map, &want, &tiles, &tiles_want, mean, mean_want);
    h_free_images(&want, &tiles_want, NULL);
}
END_TEST

/* Inputs and maps as device images. */
START_TEST(device_images)
{
    const int w = h_small ? 97 : 331, h = h_small ? 53 : 173, tile = 8;
    const int tw = (w + tile - 1) / tile, th = (h + tile - 1) / tile;
    clik_image ha, hb, da, db, dmap, dtiles, got, want, tgot, twant;
    h_alloc_images(w, h, 1, CLIK_U8, &ha, &hb, NULL);
    sup_pattern_fill(&ha, SUP_PATTERN_SMOOTH, 21);
    sup_pattern_fill(&hb, SUP_PATTERN_EDGES, 22);
    ck_assert_int_eq(clik_image_create(h_ctx, &da, w, h, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &db, w, h, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &dmap, w - 10, h - 10, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &dtiles, tw, th, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &da, &ha), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &db, &hb), CLIK_OK);
    double mean, mean_want;
    ck_assert_msg(clik_ssim(h_ctx, &da, &db, &dmap, &mean) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_msg(clik_ssim_tiles(h_ctx, &da, &db, tile, &dtiles) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    h_alloc_images(w - 10, h - 10, 1, CLIK_F32, &got, &want, NULL);
    h_alloc_images(tw, th, 1, CLIK_F32, &tgot, &twant, NULL);
    ck_assert_int_eq(clik_image_download(h_ctx, &got, &dmap), CLIK_OK);
    ck_assert_int_eq(clik_image_download(h_ctx, &tgot, &dtiles), CLIK_OK);
    ck_assert_int_eq(clik_ssim(h_oracle, &ha, &hb, &want, &mean_want), CLIK_OK);
    ck_assert_int_eq(clik_ssim_tiles(h_oracle, &ha, &hb, tile, &twant), CLIK_OK);
    check_results(&got, &want, &tgot, &twant, mean, mean_want);
    h_free_images(&ha, &hb, &da, &db, &dmap, &dtiles, &got, &want, &tgot, &twant, NULL);
}
END_TEST

/* The CPU row kernel asked for every row in one band: the host still
 * bounds the rows of a work-item (llvmpipe stops the loops of a work-item
 * after 65535 iterations in all, and the map would be left unwritten). */
START_TEST(long_bands)
{
    if (strcmp(h_device, "none") == 0)
        return; /* the CPU paths have no work-items */
    clik_context *ctx = h_tuned_context("ssim_variant=rows,ssim_band_rows=1048576,poison=1");
    /* Oclgrind (h_small) simulates every work-item: a shorter image. */
    const int w = 43, h = h_small ? 150 : 4500;
    clik_image a, b, map, want;
    h_alloc_images(w, h, 1, CLIK_U8, &a, &b, NULL);
    h_alloc_images(w - 10, h - 10, 1, CLIK_F32, &map, &want, NULL);
    sup_pattern_fill(&a, SUP_PATTERN_SMOOTH, 31);
    sup_pattern_fill(&b, SUP_PATTERN_NOISE, 32);
    double mean = -1.0, mean_want = -2.0;
    ck_assert_msg(clik_ssim(ctx, &a, &b, &map, &mean) == CLIK_OK, "%s", clik_context_message(ctx));
    ck_assert_int_eq(clik_ssim(h_oracle, &a, &b, &want, &mean_want), CLIK_OK);
    sup_compare cmp;
    sup_compare_images(&map, &want, SUP_TOL_SSIM, &cmp);
    ck_assert_msg(cmp.pass, "map on %s: %s", h_backend, cmp.detail);
    ck_assert_msg(fabs(mean - mean_want) <= 1e-4, "%.9g vs %.9g", mean, mean_want);
    h_free_images(&a, &b, &map, &want, NULL);
    h_tuned_context_free(ctx);
}
END_TEST

static clik_image wrap(int w, int h, int ch, clik_type t, void *data)
{
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, t, data, 0), CLIK_OK);
    return img;
}

START_TEST(bad_input)
{
    static uint8_t pa[4 * 20 * 20], pb[20 * 20];
    static float pf[20 * 20], pm[12 * 12];
    clik_image a = wrap(20, 16, 1, CLIK_U8, pa), b = wrap(20, 16, 1, CLIK_U8, pb);
    clik_image map = wrap(10, 6, 1, CLIK_F32, pm), tiles = wrap(3, 2, 1, CLIK_F32, pm);
    for (size_t i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
        pm[i] = 7.0f;
    double mean = -7.0;
    ck_assert_int_eq(clik_ssim(NULL, &a, &b, &map, &mean), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_ssim(h_ctx, NULL, &b, &map, &mean), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, NULL, &map, &mean), CLIK_ERR_NULL);
    /* Nothing asked for. */
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, NULL, NULL), CLIK_ERR_NULL);
    ck_assert_str_ne(clik_context_message(h_ctx), "");
    /* Inputs of different sizes, smaller than the window, or not one channel
     * of one supported type. */
    clik_image other = wrap(20, 15, 1, CLIK_U8, pb);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &other, &map, &mean), CLIK_ERR_SIZE_MISMATCH);
    clik_image narrow = wrap(10, 16, 1, CLIK_U8, pa), narrow_b = wrap(10, 16, 1, CLIK_U8, pb);
    ck_assert_int_eq(clik_ssim(h_ctx, &narrow, &narrow_b, NULL, &mean), CLIK_ERR_INVALID_SIZE);
    clik_image flat = wrap(20, 10, 1, CLIK_U8, pa), flat_b = wrap(20, 10, 1, CLIK_U8, pb);
    ck_assert_int_eq(clik_ssim(h_ctx, &flat, &flat_b, NULL, &mean), CLIK_ERR_INVALID_SIZE);
    clik_image rgba = wrap(20, 16, 4, CLIK_U8, pa), rgba_b = rgba;
    ck_assert_int_eq(clik_ssim(h_ctx, &rgba, &rgba_b, NULL, &mean), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image f = wrap(20, 16, 1, CLIK_F32, pf);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &f, NULL, &mean), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_ssim(h_ctx, &f, &a, NULL, &mean), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image u16 = wrap(10, 16, 1, CLIK_U16, pa), u16_b = u16;
    ck_assert_int_eq(clik_ssim(h_ctx, &u16, &u16_b, NULL, &mean), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image zero = a;
    zero.width = 0;
    ck_assert_int_eq(clik_ssim(h_ctx, &zero, &b, NULL, &mean), CLIK_ERR_INVALID_SIZE);
    /* Maps of the wrong size, type or channel count, or over an input. */
    clik_image big = wrap(11, 6, 1, CLIK_F32, pm);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &big, &mean), CLIK_ERR_SIZE_MISMATCH);
    clik_image u8map = wrap(10, 6, 1, CLIK_U8, pm);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &u8map, &mean), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image two = wrap(10, 6, 2, CLIK_F32, pm);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &two, &mean), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image inside = wrap(10, 6, 1, CLIK_F32, pa + 8);
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &inside, &mean), CLIK_ERR_INVALID_ARG);
    /* Nothing was written by any of them. */
    ck_assert(mean == -7.0);
    for (size_t i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
        ck_assert(pm[i] == 7.0f);

    /* Tile SSIM: tile 2..16, u8 only, a map of ceil(W / tile) x ceil(H / tile). */
    ck_assert_int_eq(clik_ssim_tiles(NULL, &a, &b, 8, &tiles), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 8, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, NULL, 8, &tiles), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 1, &tiles), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 17, &tiles), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 7, &tiles), CLIK_ERR_SIZE_MISMATCH);
    clik_image ff = f;
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &f, &ff, 8, &tiles), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &other, 8, &tiles), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &rgba, &rgba_b, 8, &tiles),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image tiles_u8 = wrap(3, 2, 1, CLIK_U8, pm);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 8, &tiles_u8), CLIK_ERR_UNSUPPORTED_FORMAT);
    for (size_t i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
        ck_assert(pm[i] == 7.0f);

    /* The context still works. */
    ck_assert_int_eq(clik_ssim(h_ctx, &a, &b, &map, &mean), CLIK_OK);
    ck_assert_int_eq(clik_ssim_tiles(h_ctx, &a, &b, 8, &tiles), CLIK_OK);
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each kernel variant forced with
     * poisoned scratch: blocks in local memory with the tile reduction in
     * work-groups; registers only with one tile per work-item; the CPU row
     * kernel 8 wide (the default is 16). Blocks, rows, bands and tiles per
     * group are swept by test_tuning. */
    static const char *const tunings[] = {
        "", "ssim_variant=local,ssim_tiles_variant=group,poison=1",
        "ssim_variant=direct,ssim_tiles_variant=item,poison=1",
        "ssim_variant=rows,ssim_rows_width=8,ssim_tiles_variant=item,poison=1", NULL};
    const h_test tests[] = {
        H_TEST(identical_images), H_TEST(constant_images), H_TEST(tiles_by_hand),
        H_TEST(thin_images),      H_TEST(map_and_mean),    H_TEST(strided_rows),
        H_TEST(device_images),    H_TEST(long_bands),      H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"ssim", "ssim", 0, tests, H_COUNT(tests), tunings, NULL});
}

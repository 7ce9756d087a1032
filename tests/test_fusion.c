/* Fusion upscaler family on every backend against the scalar oracle, and its
 * streaming mode. SPDX-License-Identifier: BSD-2-Clause */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

/* ---- helpers -------------------------------------------------------------------- */

static clik_image alloc_image(int w, int h, int ch)
{
    clik_image img;
    ck_assert_int_eq(clik_image_alloc(&img, w, h, ch, CLIK_U8), CLIK_OK);
    return img;
}

static clik_image pattern_rgba(int w, int h, sup_pattern p, uint64_t seed)
{
    clik_image img = alloc_image(w, h, 4);
    sup_pattern_fill(&img, p, seed);
    return img;
}

static clik_image wrap_u8(int w, int h, int ch, void *data)
{
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, CLIK_U8, data, 0), CLIK_OK);
    return img;
}

static const uint8_t *pixel(const clik_image *img, int x, int y)
{
    return (const uint8_t *)img->data + (size_t)y * img->stride + (size_t)x * img->channels;
}

/* 1 when the pixels (not the row padding) of two host images are the same. */
static int same_pixels(const clik_image *a, const clik_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return 0;
    const size_t row = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++)
        if (memcmp(pixel(a, 0, y), pixel(b, 0, y), row) != 0)
            return 0;
    return 1;
}

/* Fuses src on ctx into new host images dst and (when map is not NULL) map. */
static void fuse(clik_context *ctx, const clik_image *src, int scale,
                 const clik_fusion_options *opt, clik_image *dst, clik_image *map)
{
    *dst = alloc_image(src->width * scale, src->height * scale, 4);
    if (map)
        *map = alloc_image(src->width * scale, src->height * scale, 1);
    clik_status st = clik_upscale_fusion(ctx, src, dst, opt, map);
    ck_assert_msg(st == CLIK_OK, "fusion x%d of %dx%d on %s: %s: %s", scale, src->width,
                  src->height, h_backend, clik_status_str(st), clik_context_message(ctx));
}

static void expect_fusion_tolerance(const clik_image *got, const clik_image *want, const char *what)
{
    sup_compare cmp;
    sup_compare_images(got, want, SUP_TOL_FUSION, &cmp);
    ck_assert_msg(cmp.pass, "%s on %s: %s", what, h_backend, cmp.detail);
}

/* ---- hand-worked values ------------------------------------------------------------ */

/* A constant image: both upscales are the constant (the bicubic weights of
 * each phase sum to 1 within 1/2048, so rounding gives the constant back),
 * so the grey images agree, the artifact is 0 everywhere and every pixel
 * takes IMG2: dst is the constant and the map is all 0. */
START_TEST(constant_image)
{
    static const uint8_t value[4] = {10, 200, 77, 128};
    const int sizes[][2] = {{1, 1}, {5, 3}, {17, 9}};
    for (int i = 0; i < (h_small ? 2 : 3); i++)
        for (int scale = 2; scale <= 8; scale++) {
            const int w = sizes[i][0], h = sizes[i][1];
            clik_image src = alloc_image(w, h, 4), dst, map;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    memcpy((uint8_t *)pixel(&src, x, y), value, 4);
            clik_fusion_options opt;
            clik_fusion_options_init(&opt);
            opt.tile = 2 + scale % 3;
            opt.blur_ksize = 2 * scale + 1;
            opt.threshold = 0.0f; /* B = 0 is not above it */
            fuse(h_ctx, &src, scale, &opt, &dst, &map);
            ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
            for (int y = 0; y < dst.height; y++)
                for (int x = 0; x < dst.width; x++) {
                    ck_assert_msg(memcmp(pixel(&dst, x, y), value, 4) == 0,
                                  "%dx%d x%d: dst(%d, %d) is not the constant", w, h, scale, x, y);
                    ck_assert_int_eq(*pixel(&map, x, y), 0);
                }
            h_free_images(&src, &dst, &map, NULL);
        }
}
END_TEST

/*
 * A 2 x 2 checkerboard of the grey levels a = 40 and b = 200 (every channel
 * the level, alpha too, so the luma is the level) upscaled x2.
 *
 * IMG1 = [a a b b; a a b b; b b a a; b b a a].
 *
 * IMG2: output x = 2q + r samples q - 0.25 (r = 0) or q + 0.25 (r = 1). The
 * Keys weights (A = -0.75) at distances 1.75, 0.75, 0.25, 1.25 are -72, 536,
 * 1800, -216 (/ 2048, exact). With the border replicated a row [p q] gives
 *   ((2264 p - 216 q), (1584 p + 464 q), (464 p + 1584 q), (-216 p + 2264 q)) / 2048,
 * the rows [a b] and [b a] give h = [23.125 67.03 172.97 216.875] and its
 * mirror, and the columns of those, rounded:
 *   IMG2 = [3 67 173 237; 67 96 144 173; 173 144 96 67; 237 173 67 3].
 *
 * One tile (4 x 4 < 8), n = 16: both means are 120 (IMG2 sums to 1920); the
 * variances are 6400 and 79532 / 16 = 4970.75, the covariance 79040 / 16 =
 * 4940, so the SSIM is (2 * 120 * 120 + C1) (2 * 4940 + C2) / ((120^2 +
 * 120^2 + C1) (6400 + 4970.75 + C2)) = 9938.5225 / 11429.2725 = 0.86957.
 * |G1 - G2| = [37 27 27 37; 27 56 56 27; 27 56 56 27; 37 27 27 37], so the
 * artifact is 0.0921 (27), 0.1262 (37, the corners) and 0.1910 (56, the
 * centre).
 *
 * Any blur (positive weights summing to 1) keeps every value >= 0.0921 >
 * 0.05: with the defaults dst is IMG1 and the map all 255. A blur of 1 tap
 * keeps the artifact: threshold 0.15 takes IMG1 at the centre only, 0.1 at
 * the centre and the corners, 0.2 nowhere.
 */
START_TEST(checkerboard)
{
    enum { a = 40, b = 200 };
    static const uint8_t levels[2][2] = {{a, b}, {b, a}};
    static const uint8_t img1[4][4] = {{a, a, b, b}, {a, a, b, b}, {b, b, a, a}, {b, b, a, a}};
    static const uint8_t img2[4][4] = {
        {3, 67, 173, 237}, {67, 96, 144, 173}, {173, 144, 96, 67}, {237, 173, 67, 3}};
    static const struct {
        int ksize;
        float threshold;
        uint8_t take1[4][4];
    } runs[] = {
        {7, 0.05f, {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}},
        {1, 0.15f, {{0, 0, 0, 0}, {0, 1, 1, 0}, {0, 1, 1, 0}, {0, 0, 0, 0}}},
        {1, 0.1f, {{1, 0, 0, 1}, {0, 1, 1, 0}, {0, 1, 1, 0}, {1, 0, 0, 1}}},
        {1, 0.2f, {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}},
    };
    uint8_t in[2][2][4];
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++)
            memset(in[y][x], levels[y][x], 4);
    clik_image src = wrap_u8(2, 2, 4, in);
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        clik_fusion_options opt;
        clik_fusion_options_init(&opt);
        opt.blur_ksize = runs[r].ksize;
        opt.threshold = runs[r].threshold;
        clik_image dst, map;
        fuse(h_ctx, &src, 2, &opt, &dst, &map);
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) {
                const int take1 = runs[r].take1[y][x];
                const uint8_t want = take1 ? img1[y][x] : img2[y][x];
                for (int c = 0; c < 4; c++)
                    ck_assert_msg(pixel(&dst, x, y)[c] == want,
                                  "blur %d threshold %g: dst(%d, %d)[%d] = %d, expected %d on %s",
                                  runs[r].ksize, runs[r].threshold, x, y, c, pixel(&dst, x, y)[c],
                                  want, h_backend);
                ck_assert_int_eq(*pixel(&map, x, y), take1 ? 255 : 0);
            }
        h_free_images(&dst, &map, NULL);
    }
}
END_TEST

/* The map is 255 exactly where dst took IMG1 (clik_resize nearest on the
 * same context) and 0 where it took IMG2 (clik_resize bicubic); both kinds
 * occur. */
START_TEST(map_marks_nearest)
{
    const int w = h_small ? 37 : 97, h = h_small ? 23 : 61;
    for (int scale = 2; scale <= 3; scale++) {
        clik_image src = pattern_rgba(w, h, SUP_PATTERN_EDGES, 5), dst, map;
        clik_image near = alloc_image(w * scale, h * scale, 4);
        clik_image cubic = alloc_image(w * scale, h * scale, 4);
        fuse(h_ctx, &src, scale, NULL, &dst, &map);
        ck_assert_int_eq(clik_resize(h_ctx, &src, &near, CLIK_INTERP_NEAREST), CLIK_OK);
        ck_assert_int_eq(clik_resize(h_ctx, &src, &cubic, CLIK_INTERP_BICUBIC), CLIK_OK);
        long taken[2] = {0, 0};
        for (int y = 0; y < dst.height; y++)
            for (int x = 0; x < dst.width; x++) {
                const uint8_t m = *pixel(&map, x, y);
                ck_assert_msg(m == 0 || m == 255, "map(%d, %d) = %d", x, y, m);
                const clik_image *from = m ? &near : &cubic;
                ck_assert_msg(memcmp(pixel(&dst, x, y), pixel(from, x, y), 4) == 0,
                              "x%d: dst(%d, %d) is not the %s pixel on %s", scale, x, y,
                              m ? "nearest" : "bicubic", h_backend);
                taken[m ? 1 : 0]++;
            }
        ck_assert_msg(taken[0] > 0 && taken[1] > 0, "x%d: %ld bicubic, %ld nearest pixels", scale,
                      taken[0], taken[1]);
        /* The same result without a map. */
        clik_image plain;
        fuse(h_ctx, &src, scale, NULL, &plain, NULL);
        ck_assert(same_pixels(&plain, &dst));
        h_free_images(&src, &dst, &map, &near, &cubic, &plain, NULL);
    }
}
END_TEST

/* A 1 x 1 image at every scale: the pixel everywhere, map 0. Thin images
 * and padded rows against the oracle. */
START_TEST(small_and_thin)
{
    uint8_t one[4] = {250, 3, 128, 77};
    clik_image src = wrap_u8(1, 1, 4, one);
    for (int scale = 2; scale <= 8; scale++) {
        clik_image dst, map;
        fuse(h_ctx, &src, scale, NULL, &dst, &map);
        for (int y = 0; y < scale; y++)
            for (int x = 0; x < scale; x++) {
                ck_assert(memcmp(pixel(&dst, x, y), one, 4) == 0);
                ck_assert_int_eq(*pixel(&map, x, y), 0);
            }
        h_free_images(&dst, &map, NULL);
    }
    const int sizes[][2] = {{1, 19}, {23, 1}, {2, 2}, {3, 1}, {16, 16}, {17, 33}};
    h_check_family_sizes("fusion", sizes, (int)(sizeof(sizes) / sizeof(sizes[0])), 4, 11);
    /* Rows with padding in src, dst and the map. */
    const int w = h_small ? 15 : 45, h = h_small ? 9 : 29, s = 3;
    uint8_t *sbuf = malloc((size_t)(w * 4 + 12) * h);
    uint8_t *dbuf = malloc((size_t)(w * s * 4 + 20) * h * s);
    uint8_t *mbuf = malloc((size_t)(w * s + 7) * h * s);
    ck_assert(sbuf && dbuf && mbuf);
    clik_image packed = pattern_rgba(w, h, SUP_PATTERN_SMOOTH, 4), src2, dst2, map2, dst, map;
    ck_assert_int_eq(clik_image_wrap(&src2, w, h, 4, CLIK_U8, sbuf, (size_t)w * 4 + 12), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&dst2, w * s, h * s, 4, CLIK_U8, dbuf, (size_t)w * s * 4 + 20),
                     CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&map2, w * s, h * s, 1, CLIK_U8, mbuf, (size_t)w * s + 7),
                     CLIK_OK);
    for (int y = 0; y < h; y++)
        memcpy((uint8_t *)pixel(&src2, 0, y), pixel(&packed, 0, y), (size_t)w * 4);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src2, &dst2, NULL, &map2), CLIK_OK);
    fuse(h_ctx, &packed, s, NULL, &dst, &map);
    ck_assert(same_pixels(&dst2, &dst));
    ck_assert(same_pixels(&map2, &map));
    h_free_images(&packed, &dst, &map, NULL);
    free(sbuf);
    free(dbuf);
    free(mbuf);
}
END_TEST

/* Device images in and out: the same bytes as host images on this context. */
START_TEST(device_images)
{
    const int w = h_small ? 37 : 131, h = h_small ? 21 : 77, s = 2;
    clik_image host = pattern_rgba(w, h, SUP_PATTERN_SMOOTH, 8), src, dst, map;
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    opt.threshold = 0.02f;
    ck_assert_int_eq(clik_image_create(h_ctx, &src, w, h, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &dst, w * s, h * s, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &map, w * s, h * s, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &src, &host), CLIK_OK);
    ck_assert_msg(clik_upscale_fusion(h_ctx, &src, &dst, &opt, &map) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    clik_image got = alloc_image(w * s, h * s, 4), got_map = alloc_image(w * s, h * s, 1);
    ck_assert_int_eq(clik_image_download(h_ctx, &got, &dst), CLIK_OK);
    ck_assert_int_eq(clik_image_download(h_ctx, &got_map, &map), CLIK_OK);
    clik_image want, want_map, oracle;
    fuse(h_ctx, &host, s, &opt, &want, &want_map);
    ck_assert(same_pixels(&got, &want));
    ck_assert(same_pixels(&got_map, &want_map));
    fuse(h_oracle, &host, s, &opt, &oracle, NULL);
    expect_fusion_tolerance(&got, &oracle, "device images");
    h_free_images(&host, &src, &dst, &map, &got, &got_map, &want, &want_map, &oracle, NULL);
}
END_TEST

START_TEST(bad_input)
{
    static uint8_t buf[65536];
    /* src 8 x 6 RGBA at 0, dst x2 at 1024, map at 8192. */
    clik_image src = wrap_u8(8, 6, 4, buf), dst = wrap_u8(16, 12, 4, buf + 1024);
    clik_image map = wrap_u8(16, 12, 1, buf + 8192);
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    ck_assert_int_eq(opt.tile, 8);
    ck_assert_int_eq(opt.blur_ksize, 7);
    ck_assert(opt.threshold == 0.05f);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &opt, &map), CLIK_OK);

    ck_assert_int_eq(clik_upscale_fusion(NULL, &src, &dst, NULL, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, NULL, &dst, NULL, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, NULL, NULL, NULL), CLIK_ERR_NULL);

    /* dst not 2..8 times src on both axes. */
    const int bad_sizes[][2] = {{8, 6},   {72, 54}, {16, 18}, {24, 12},
                                {17, 12}, {16, 13}, {4, 3},   {15, 12}};
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
        clik_image d = wrap_u8(bad_sizes[i][0], bad_sizes[i][1], 4, buf + 1024);
        ck_assert_msg(clik_upscale_fusion(h_ctx, &src, &d, NULL, NULL) == CLIK_ERR_SIZE_MISMATCH,
                      "dst %dx%d", bad_sizes[i][0], bad_sizes[i][1]);
        ck_assert_str_ne(clik_context_message(h_ctx), "");
    }

    /* 3 channels one side only. */
    clik_image rgb_src = wrap_u8(8, 6, 3, buf), rgb_dst = wrap_u8(16, 12, 3, buf + 1024);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &rgb_src, &dst, NULL, NULL),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &rgb_dst, NULL, NULL),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &rgb_src, &rgb_dst, NULL, &map), CLIK_OK);

    /* Formats: 1-channel or f32 src, 1-channel dst. */
    clik_image grey = wrap_u8(8, 6, 1, buf);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &grey, &dst, NULL, NULL),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image f32;
    ck_assert_int_eq(clik_image_wrap(&f32, 8, 6, 4, CLIK_F32, buf, 0), CLIK_OK);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &f32, &dst, NULL, NULL),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image grey_dst = wrap_u8(16, 12, 1, buf + 1024);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &grey_dst, NULL, NULL),
                     CLIK_ERR_UNSUPPORTED_FORMAT);

    /* Options. */
    const int tiles[] = {1, 17, 0, -8};
    for (size_t i = 0; i < sizeof(tiles) / sizeof(tiles[0]); i++) {
        clik_fusion_options o = opt;
        o.tile = tiles[i];
        ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &o, NULL), CLIK_ERR_INVALID_ARG);
    }
    const int ksizes[] = {0, 2, 8, 33, -1};
    for (size_t i = 0; i < sizeof(ksizes) / sizeof(ksizes[0]); i++) {
        clik_fusion_options o = opt;
        o.blur_ksize = ksizes[i];
        ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &o, NULL), CLIK_ERR_INVALID_ARG);
    }
    const float thresholds[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++) {
        clik_fusion_options o = opt;
        o.threshold = thresholds[i];
        ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &o, NULL), CLIK_ERR_INVALID_ARG);
    }
    /* The extreme legal options work. */
    clik_fusion_options edge = {2, 1, -1.0f};
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &edge, NULL), CLIK_OK);
    edge = (clik_fusion_options){16, 31, 2.0f};
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &edge, NULL), CLIK_OK);

    /* The artifact map: wrong size, wrong format. */
    clik_image small_map = wrap_u8(16, 11, 1, buf + 8192);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &small_map),
                     CLIK_ERR_SIZE_MISMATCH);
    clik_image src_sized_map = wrap_u8(8, 6, 1, buf + 8192);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &src_sized_map),
                     CLIK_ERR_SIZE_MISMATCH);
    clik_image rgba_map = wrap_u8(16, 12, 4, buf + 8192);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &rgba_map),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image f32_map;
    ck_assert_int_eq(clik_image_wrap(&f32_map, 16, 12, 1, CLIK_F32, buf + 8192, 0), CLIK_OK);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &f32_map),
                     CLIK_ERR_UNSUPPORTED_FORMAT);

    /* Overlaps: src inside dst, dst as src, the map inside dst or src. */
    clik_image inside = wrap_u8(16, 12, 4, buf + 100);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &inside, NULL, NULL), CLIK_ERR_INVALID_ARG);
    clik_image map_in_dst = wrap_u8(16, 12, 1, buf + 1024 + 64);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &map_in_dst),
                     CLIK_ERR_INVALID_ARG);
    clik_image map_on_src = wrap_u8(16, 12, 1, buf + 4);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &map_on_src),
                     CLIK_ERR_INVALID_ARG);

    /* A stride too small, an image with no pixels. */
    clik_image narrow = src;
    narrow.stride = 16;
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &narrow, &dst, NULL, NULL), CLIK_ERR_STRIDE);
    clik_image empty = src;
    empty.width = 0;
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &empty, &dst, NULL, NULL), CLIK_ERR_INVALID_SIZE);

    /* Nothing was written by the failures, and the context still works. */
    uint8_t before[65536];
    memcpy(before, buf, sizeof(before));
    clik_fusion_options o = opt;
    o.tile = 99;
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, &o, &map), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &small_map),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert(memcmp(before, buf, sizeof(before)) == 0);
    ck_assert_int_eq(clik_upscale_fusion(h_ctx, &src, &dst, NULL, &map), CLIK_OK);
}
END_TEST

/* ---- streaming ---------------------------------------------------------------------- */

#define FRAMES 6
/* Frame size (smaller where every kernel is interpreted, CLIK_TEST_SMALL). */
#define SW (h_small ? 21 : 67)
#define SH (h_small ? 13 : 43)

/* The frames of a stream test, their outputs, and the outputs expected
 * (clik_upscale_fusion of each frame on the same context). */
typedef struct stream_set {
    int scale;
    clik_fusion_options opt;
    clik_image src[FRAMES], dst[FRAMES], map[FRAMES], want[FRAMES], want_map[FRAMES];
    uint8_t *dst_rows[FRAMES]; /* padded rows behind dst */
    int has_map[FRAMES];
} stream_set;

static void set_make(stream_set *t, int scale)
{
    memset(t, 0, sizeof(*t));
    t->scale = scale;
    clik_fusion_options_init(&t->opt);
    t->opt.threshold = 0.03f;
    for (int f = 0; f < FRAMES; f++) {
        t->src[f] = pattern_rgba(SW, SH, (sup_pattern)(f % SUP_PATTERN_COUNT), 100u + f);
        t->has_map[f] = f % 3 != 1; /* some frames without a map */
        if (f % 4 == 2)
            t->src[f].order = CLIK_ORDER_BGR; /* some BGRA frames */
        const int dw = SW * scale, dh = SH * scale;
        /* Odd frames write into padded rows. */
        const size_t stride = (size_t)dw * 4 + (f % 2 ? 36 : 0);
        t->dst_rows[f] = malloc(stride * (size_t)dh);
        ck_assert_ptr_nonnull(t->dst_rows[f]);
        memset(t->dst_rows[f], 0xA5, stride * (size_t)dh);
        ck_assert_int_eq(clik_image_wrap(&t->dst[f], dw, dh, 4, CLIK_U8, t->dst_rows[f], stride),
                         CLIK_OK);
        if (t->has_map[f]) {
            t->map[f] = alloc_image(dw, dh, 1);
            memset(t->map[f].data, 0x5A, t->map[f].stride * (size_t)dh);
        }
        fuse(h_ctx, &t->src[f], scale, &t->opt, &t->want[f],
             t->has_map[f] ? &t->want_map[f] : NULL);
    }
}

/* Clears every output, so that a frame not written shows. */
static void set_clear(stream_set *t)
{
    for (int f = 0; f < FRAMES; f++) {
        memset(t->dst_rows[f], 0, t->dst[f].stride * (size_t)t->dst[f].height);
        if (t->has_map[f])
            memset(t->map[f].data, 0x5A, t->map[f].stride * (size_t)t->map[f].height);
    }
}

static void set_check(const stream_set *t, int frame, const char *how)
{
    ck_assert_msg(same_pixels(&t->dst[frame], &t->want[frame]),
                  "%s: frame %d differs from clik_upscale_fusion on %s", how, frame, h_backend);
    if (t->has_map[frame])
        ck_assert_msg(same_pixels(&t->map[frame], &t->want_map[frame]),
                      "%s: the map of frame %d differs on %s", how, frame, h_backend);
}

static void set_free(stream_set *t)
{
    for (int f = 0; f < FRAMES; f++) {
        clik_image_free(&t->src[f]);
        clik_image_free(&t->map[f]);
        clik_image_free(&t->want[f]);
        clik_image_free(&t->want_map[f]);
        free(t->dst_rows[f]);
    }
}

static clik_fusion_stream *stream_open(const stream_set *t, int depth)
{
    clik_fusion_stream *s = NULL;
    clik_status st = clik_fusion_stream_create(h_ctx, SW, SH, t->scale, &t->opt, depth, &s);
    ck_assert_msg(st == CLIK_OK, "stream depth %d on %s: %s: %s", depth, h_backend,
                  clik_status_str(st), clik_context_message(h_ctx));
    ck_assert_ptr_nonnull(s);
    return s;
}

static void submit(clik_fusion_stream *s, stream_set *t, int f, uint64_t want_ticket)
{
    uint64_t ticket = 0;
    clik_status st = clik_fusion_stream_submit(s, &t->src[f], &t->dst[f],
                                               t->has_map[f] ? &t->map[f] : NULL, &ticket);
    ck_assert_msg(st == CLIK_OK, "submit frame %d on %s: %s: %s", f, h_backend, clik_status_str(st),
                  clik_context_message(h_ctx));
    ck_assert_uint_eq(ticket, want_ticket);
}

/* Depths 1, 2, 3 and the default: every frame as clik_upscale_fusion
 * makes it, byte for byte. */
START_TEST(stream_matches_frames)
{
    static const int depths[] = {1, 2, 3, 0};
    const int depth = depths[_i];
    stream_set t;
    set_make(&t, 2 + _i % 2);
    clik_fusion_stream *s = stream_open(&t, depth);
    for (int f = 0; f < FRAMES; f++)
        submit(s, &t, f, (uint64_t)f + 1);
    ck_assert_int_eq(clik_fusion_stream_wait(s, UINT64_MAX), CLIK_OK);
    for (int f = 0; f < FRAMES; f++)
        set_check(&t, f, "in order");
    /* Padding after the rows of dst is left alone. */
    const size_t row = (size_t)t.dst[1].width * 4;
    for (int y = 0; y < t.dst[1].height; y++)
        for (size_t i = row; i < t.dst[1].stride; i++)
            ck_assert_int_eq(t.dst_rows[1][(size_t)y * t.dst[1].stride + i], 0xA5);
    clik_fusion_stream_destroy(s);
    set_free(&t);
}
END_TEST

/* Waits on tickets out of order, on tickets already waited for, past the
 * last one and with UINT64_MAX; frames submitted between waits. */
START_TEST(stream_waits)
{
    stream_set t;
    set_make(&t, 2);
    clik_fusion_stream *s = stream_open(&t, 3);
    ck_assert_int_eq(clik_fusion_stream_wait(s, 0), CLIK_OK); /* nothing yet */
    ck_assert_int_eq(clik_fusion_stream_wait(s, UINT64_MAX), CLIK_OK);
    submit(s, &t, 0, 1);
    submit(s, &t, 1, 2);
    submit(s, &t, 2, 3);
    ck_assert_int_eq(clik_fusion_stream_wait(s, 2), CLIK_OK);
    set_check(&t, 0, "wait 2");
    set_check(&t, 1, "wait 2");
    ck_assert_int_eq(clik_fusion_stream_wait(s, 1), CLIK_OK);
    submit(s, &t, 3, 4);
    submit(s, &t, 4, 5);
    ck_assert_int_eq(clik_fusion_stream_wait(s, 5), CLIK_OK);
    for (int f = 0; f < 5; f++)
        set_check(&t, f, "wait 5");
    submit(s, &t, 5, 6);
    ck_assert_int_eq(clik_fusion_stream_wait(s, 1000), CLIK_OK); /* past the last */
    set_check(&t, 5, "wait 1000");
    ck_assert_int_eq(clik_fusion_stream_wait(s, 3), CLIK_OK);
    ck_assert_int_eq(clik_fusion_stream_wait(s, UINT64_MAX), CLIK_OK);
    /* The same frames again through the same stream: new tickets. */
    set_clear(&t);
    for (int f = FRAMES - 1; f >= 0; f--)
        submit(s, &t, f, (uint64_t)(2 * FRAMES - f));
    ck_assert_int_eq(clik_fusion_stream_wait(s, UINT64_MAX), CLIK_OK);
    for (int f = 0; f < FRAMES; f++)
        set_check(&t, f, "second pass");
    clik_fusion_stream_destroy(s);
    set_free(&t);
}
END_TEST

/* Destroying a stream with frames in flight finishes them first. */
START_TEST(stream_destroy_in_flight)
{
    stream_set t;
    set_make(&t, 3);
    for (int depth = 1; depth <= 3; depth++) {
        set_clear(&t);
        clik_fusion_stream *s = stream_open(&t, depth);
        for (int f = 0; f < FRAMES; f++)
            submit(s, &t, f, (uint64_t)f + 1);
        clik_fusion_stream_destroy(s);
        for (int f = 0; f < FRAMES; f++)
            set_check(&t, f, "destroyed in flight");
    }
    /* A stream that never ran a frame. */
    clik_fusion_stream_destroy(stream_open(&t, 2));
    clik_fusion_stream_destroy(NULL);
    set_free(&t);
}
END_TEST

START_TEST(stream_bad_args)
{
    clik_fusion_stream *s = (clik_fusion_stream *)&s; /* must come back NULL */
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    ck_assert_int_eq(clik_fusion_stream_create(NULL, SW, SH, 2, NULL, 2, &s), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, SH, 2, NULL, 2, NULL), CLIK_ERR_NULL);
    const int scales[] = {1, 9, 0, -2};
    for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
        s = (clik_fusion_stream *)&s;
        ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, SH, scales[i], NULL, 2, &s),
                         CLIK_ERR_INVALID_ARG);
        ck_assert_ptr_null(s);
    }
    const int depths[] = {-1, -100, 1000, INT_MAX};
    for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++)
        ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, SH, 2, NULL, depths[i], &s),
                         CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, 0, SH, 2, NULL, 2, &s),
                     CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, -3, 2, NULL, 2, &s),
                     CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, 1 << 20, 1, 2, NULL, 2, &s),
                     CLIK_ERR_INVALID_SIZE);
    clik_fusion_options bad = opt;
    bad.blur_ksize = 4;
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, SH, 2, &bad, 2, &s),
                     CLIK_ERR_INVALID_ARG);
    bad = opt;
    bad.threshold = NAN;
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, SH, 2, &bad, 2, &s),
                     CLIK_ERR_INVALID_ARG);

    /* A good stream, then bad frames: none takes a ticket. */
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, SW, SH, 2, NULL, 2, &s), CLIK_OK);
    clik_image src = pattern_rgba(SW, SH, SUP_PATTERN_EDGES, 1);
    clik_image dst = alloc_image(2 * SW, 2 * SH, 4), map = alloc_image(2 * SW, 2 * SH, 1);
    clik_image wide = pattern_rgba(SW + 1, SH, SUP_PATTERN_EDGES, 1);
    clik_image wide_dst = alloc_image(2 * SW + 2, 2 * SH, 4);
    clik_image x3 = alloc_image(3 * SW, 3 * SH, 4), small_map = alloc_image(SW, SH, 1);
    uint64_t ticket = 77;
    ck_assert_int_eq(clik_fusion_stream_submit(NULL, &src, &dst, NULL, &ticket), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_fusion_stream_submit(s, NULL, &dst, NULL, &ticket), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, NULL, NULL, &ticket), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &wide, &wide_dst, NULL, &ticket),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, &x3, NULL, &ticket),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, &wide_dst, NULL, &ticket),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, &dst, &small_map, &ticket),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, &src, NULL, &ticket),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert_str_ne(clik_context_message(h_ctx), "");
    /* The stream takes 4-channel frames: 3 channels are refused. */
    clik_image rgb = alloc_image(SW, SH, 3), rgb_dst = alloc_image(2 * SW, 2 * SH, 3);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &rgb, &rgb_dst, NULL, &ticket),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    h_free_images(&rgb, &rgb_dst, NULL);
    /* Frames must be host images. */
    clik_image dev;
    ck_assert_int_eq(clik_image_create(h_ctx, &dev, SW, SH, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &dev, &dst, NULL, &ticket), CLIK_ERR_INVALID_ARG);
    clik_image_free(&dev);
    ck_assert_uint_eq(ticket, 77);
    ck_assert_int_eq(clik_fusion_stream_wait(NULL, 1), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_fusion_stream_wait(s, UINT64_MAX), CLIK_OK);

    /* The stream still works, and numbers its first frame 1; a NULL
     * ticket pointer is allowed. */
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, &dst, &map, &ticket), CLIK_OK);
    ck_assert_uint_eq(ticket, 1);
    ck_assert_int_eq(clik_fusion_stream_submit(s, &src, &dst, &map, NULL), CLIK_OK);
    ck_assert_int_eq(clik_fusion_stream_wait(s, 2), CLIK_OK);
    clik_image want, want_map;
    fuse(h_ctx, &src, 2, NULL, &want, &want_map);
    ck_assert(same_pixels(&dst, &want));
    ck_assert(same_pixels(&map, &want_map));
    clik_fusion_stream_destroy(s);
    h_free_images(&src, &dst, &map, &wide, &wide_dst, &x3, &small_map, &want, &want_map, NULL);
}
END_TEST

/* 3-channel images (through 4-channel copies) give what 4 channels give;
 * BGR(A) pictures give their RGB(A) equivalents' results. */
START_TEST(three_channels)
{
    h_check_colour_orders("fusion", 41, 23, "upscale_fusion", "upscale_fusion-map", NULL);
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each variant with poisoned scratch
     * and new images. Kernel-variant keys go here, one string per forced
     * variant (the first entry stays ""):
     *   fusion_cpu=0|1  the GPU kernels or the row kernels of CPU devices. */
    static const char *const tunings[] = {
        "", "poison=1", "fusion_cpu=0,poison=1", "fusion_cpu=1,poison=1", NULL,
    };
    const h_test tests[] = {H_TEST(constant_image),    H_TEST(checkerboard),
                            H_TEST(map_marks_nearest), H_TEST(small_and_thin),
                            H_TEST(device_images),     H_TEST(bad_input),
                            H_TEST(three_channels),    H_LOOP(stream_matches_frames, 4),
                            H_TEST(stream_waits),      H_TEST(stream_destroy_in_flight),
                            H_TEST(stream_bad_args)};
    return h_suite_main(&(h_suite){"fusion", "fusion", 0, tests, H_COUNT(tests), tunings, NULL});
}

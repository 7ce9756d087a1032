/* Histogram family on every backend against the scalar oracle. SPDX-License-Identifier:
 * BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

/* Every hist-family case at every size, pattern and channel count. */
static void fill(clik_image *img, sup_pattern p, uint64_t seed)
{
    sup_pattern_fill(img, p, seed);
}

static void assert_same_pixels(const clik_image *a, const clik_image *b, const char *what)
{
    sup_compare cmp;
    sup_compare_images(a, b, SUP_TOL_EXACT, &cmp);
    ck_assert_msg(cmp.pass, "%s on %s: %s", what, h_backend, cmp.detail);
}

/* An image-to-image operation of the family. */
typedef clik_status (*hist_op)(clik_context *ctx, const clik_image *src, clik_image *dst);

/* img filled with pattern p (seed), then op in place on the device under
 * test gives what the oracle gives from it into want. */
static void check_in_place(hist_op op, clik_image *img, clik_image *want, sup_pattern p,
                           uint64_t seed, const char *what)
{
    fill(img, p, seed);
    ck_assert_int_eq(op(h_oracle, img, want), CLIK_OK);
    ck_assert_msg(op(h_ctx, img, img) == CLIK_OK, "%s: %s", what, clik_context_message(h_ctx));
    assert_same_pixels(img, want, what);
}

/* A pipeline of device images: upload, equalize device to device, hist of
 * the device result, download. */
START_TEST(device_images)
{
    for (int ch = 1; ch <= 4; ch *= 2) {
        clik_image host, dev_in, dev_out, got, want;
        ck_assert_int_eq(clik_image_alloc(&host, 641, 479, ch, CLIK_U8), CLIK_OK);
        fill(&host, SUP_PATTERN_SMOOTH, 7);
        ck_assert_int_eq(clik_image_create(h_ctx, &dev_in, 641, 479, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_create(h_ctx, &dev_out, 641, 479, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_upload(h_ctx, &dev_in, &host), CLIK_OK);
        ck_assert_msg(clik_hist_equalize(h_ctx, &dev_in, &dev_out) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        uint32_t hist_dev[1024], hist_ref[1024];
        ck_assert_int_eq(clik_hist_compute(h_ctx, &dev_out, hist_dev), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&got, 641, 479, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_download(h_ctx, &got, &dev_out), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&want, 641, 479, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_hist_equalize(h_oracle, &host, &want), CLIK_OK);
        assert_same_pixels(&got, &want, "equalize on device images");
        ck_assert_int_eq(clik_hist_compute(h_oracle, &want, hist_ref), CLIK_OK);
        ck_assert_mem_eq(hist_dev, hist_ref, sizeof(uint32_t) * 256 * (size_t)ch);
        h_free_images(&host, &dev_in, &dev_out, &got, &want, NULL);
    }
}
END_TEST

START_TEST(in_place)
{
    for (int ch = 1; ch <= 4; ch *= 2) {
        clik_image img, want;
        h_alloc_images(333, 97, ch, CLIK_U8, &img, &want, NULL);
        check_in_place(clik_hist_equalize, &img, &want, SUP_PATTERN_EDGES, 3, "equalize in place");

        uint8_t table[256];
        for (int v = 0; v < 256; v++)
            table[v] = (uint8_t)(255 - v);
        ck_assert_int_eq(clik_hist_lut(h_oracle, &want, &want, table, 1), CLIK_OK);
        ck_assert_int_eq(clik_hist_lut(h_ctx, &img, &img, table, 1), CLIK_OK);
        assert_same_pixels(&img, &want, "lut in place");
        h_free_images(&img, &want, NULL);
    }
}
END_TEST

/* Rows with padding: results match and the padding bytes stay untouched. */
START_TEST(strided_rows)
{
    const int w = 203, h = 71, ch = 4;
    const size_t stride = (size_t)w * ch + 37;
    uint8_t *src = malloc(stride * h), *dst = malloc(stride * h);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    memset(src, 0x5a, stride * h);
    memset(dst, 0xa5, stride * h);
    clik_image in, out, want;
    ck_assert_int_eq(clik_image_wrap(&in, w, h, ch, CLIK_U8, src, stride), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&out, w, h, ch, CLIK_U8, dst, stride), CLIK_OK);
    fill(&in, SUP_PATTERN_NOISE, 11);
    ck_assert_int_eq(clik_image_alloc(&want, w, h, ch, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_hist_equalize(h_oracle, &in, &want), CLIK_OK);
    ck_assert_msg(clik_hist_equalize(h_ctx, &in, &out) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    assert_same_pixels(&out, &want, "equalize with padded rows");
    for (int y = 0; y < h; y++)
        for (size_t x = (size_t)w * ch; x < stride; x++)
            ck_assert_msg(dst[(size_t)y * stride + x] == 0xa5, "padding of row %d written", y);
    uint32_t a[1024], b[1024];
    ck_assert_int_eq(clik_hist_compute(h_ctx, &in, a), CLIK_OK);
    ck_assert_int_eq(clik_hist_compute(h_oracle, &in, b), CLIK_OK);
    ck_assert_mem_eq(a, b, sizeof(uint32_t) * 1024);
    clik_image_free(&want);
    free(src);
    free(dst);
}
END_TEST

static void equalize_row(const uint8_t *in, int n, uint8_t *out)
{
    clik_image a, b;
    ck_assert_int_eq(clik_image_wrap(&a, n, 1, 1, CLIK_U8, (void *)in, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&b, n, 1, 1, CLIK_U8, out, 0), CLIK_OK);
    ck_assert_msg(clik_hist_equalize(h_ctx, &a, &b) == CLIK_OK, "%s", clik_context_message(h_ctx));
}

/* OpenCV equalizeHist semantics on hand-worked inputs, on every backend. */
START_TEST(equalize_semantics)
{
    uint8_t out[300];
    /* One value: it maps to itself. */
    uint8_t constant[5] = {77, 77, 77, 77, 77};
    equalize_row(constant, 5, out);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(out[i], 77);
    /* hist[0] = 2 of 4: scale 127.5; 1 * 127.5 rounds half to even: 128. */
    uint8_t small[4] = {0, 0, 1, 2};
    equalize_row(small, 4, out);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 0);
    ck_assert_int_eq(out[2], 128);
    ck_assert_int_eq(out[3], 255);
    /* 103 pixels, hist[0] = 1: scale 255 / 102 = 2.5; 1 * 2.5 rounds to 2. */
    uint8_t half[103];
    half[0] = 10;
    half[1] = 20;
    memset(half + 2, 30, 101);
    equalize_row(half, 103, out);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 2);
    ck_assert_int_eq(out[2], 255);
    /* Every value once: the identity. */
    uint8_t ramp[256];
    for (int i = 0; i < 256; i++)
        ramp[i] = (uint8_t)(255 - i);
    equalize_row(ramp, 256, out);
    for (int i = 0; i < 256; i++)
        ck_assert_int_eq(out[i], 255 - i);
}
END_TEST

/* With 2 or 4 channels the last channel is alpha and is copied unchanged. */
START_TEST(alpha_untouched)
{
    for (int ch = 2; ch <= 4; ch += 2) {
        clik_image in, out;
        h_alloc_images(131, 67, ch, CLIK_U8, &in, &out, NULL);
        fill(&in, SUP_PATTERN_NOISE, 5);
        ck_assert_int_eq(clik_hist_equalize(h_ctx, &in, &out), CLIK_OK);
        const uint8_t *a = in.data, *b = out.data;
        for (size_t i = (size_t)ch - 1; i < (size_t)131 * 67 * ch; i += (size_t)ch)
            ck_assert_int_eq(a[i], b[i]);
        h_free_images(&in, &out, NULL);
    }
}
END_TEST

/* Counts are exact for one value everywhere (worst case for atomics). */
START_TEST(hist_one_value)
{
    const int w = h_small ? 128 : 1921, h = h_small ? 64 : 1081;
    clik_image img;
    ck_assert_int_eq(clik_image_alloc(&img, w, h, 4, CLIK_U8), CLIK_OK);
    memset(img.data, 200, img.stride * (size_t)h);
    uint32_t hist[1024];
    ck_assert_msg(clik_hist_compute(h_ctx, &img, hist) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    for (int c = 0; c < 4; c++)
        for (int v = 0; v < 256; v++)
            ck_assert_uint_eq(hist[c * 256 + v], v == 200 ? (uint32_t)(w * h) : 0u);
    clik_image_free(&img);
}
END_TEST

/* One work-group and one lookup work-item asked for a large image: no
 * work-item may walk it all (llvmpipe silently ends the loops of a
 * work-item after 65535 iterations in all), whatever the tuning says. */
START_TEST(long_runs)
{
    clik_context *ctx = h_tuned_context("hist_groups=1,lut_groups=1");
    const int s = h_size_count() - 1, w = sup_test_sizes[s][0], h = sup_test_sizes[s][1];
    for (int ch = 1; ch <= 4; ch += 3) {
        clik_image in, got, want;
        h_alloc_images(w, h, ch, CLIK_U8, &in, &got, &want, NULL);
        fill(&in, SUP_PATTERN_NOISE, 13);
        ck_assert_msg(clik_hist_equalize(ctx, &in, &got) == CLIK_OK, "%s",
                      clik_context_message(ctx));
        ck_assert_int_eq(clik_hist_equalize(h_oracle, &in, &want), CLIK_OK);
        assert_same_pixels(&got, &want, "equalize with one work-group");
        uint32_t a[1024], b[1024];
        ck_assert_int_eq(clik_hist_compute(ctx, &in, a), CLIK_OK);
        ck_assert_int_eq(clik_hist_compute(h_oracle, &in, b), CLIK_OK);
        ck_assert_mem_eq(a, b, sizeof(uint32_t) * 256 * (size_t)ch);
        h_free_images(&in, &got, &want, NULL);
    }
    h_tuned_context_free(ctx);
}
END_TEST

/* 3-channel images (through 4-channel copies) give what 4 channels give. */
START_TEST(three_channels)
{
    h_check_family_three_channels("hist");
}
END_TEST

START_TEST(bad_input)
{
    uint8_t pixels[64] = {0};
    uint32_t hist[1024];
    uint8_t table[256] = {0};
    clik_image a, b, wide;
    ck_assert_int_eq(clik_image_wrap(&a, 4, 4, 1, CLIK_U8, pixels, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&b, 4, 4, 1, CLIK_U8, pixels + 32, 0), CLIK_OK);

    ck_assert_int_eq(clik_hist_compute(NULL, &a, hist), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_hist_compute(h_ctx, NULL, hist), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_hist_compute(h_ctx, &a, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_hist_equalize(h_ctx, &a, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_hist_lut(h_ctx, &a, &b, NULL, 1), CLIK_ERR_NULL);
    ck_assert_str_ne(clik_context_message(h_ctx), "");

    clik_image bad = a;
    bad.width = 0;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &bad, hist), CLIK_ERR_INVALID_SIZE);
    bad = a;
    bad.height = -3;
    ck_assert_int_eq(clik_hist_equalize(h_ctx, &bad, &b), CLIK_ERR_INVALID_SIZE);
    bad = a;
    bad.channels = 5;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &bad, hist), CLIK_ERR_UNSUPPORTED_FORMAT);
    bad = a;
    bad.type = (clik_type)99;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &bad, hist), CLIK_ERR_UNSUPPORTED_FORMAT);
    bad = a;
    bad.type = CLIK_U16;
    bad.width = 2;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &bad, hist), CLIK_ERR_UNSUPPORTED_FORMAT);
    bad = a;
    bad.stride = 3;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &bad, hist), CLIK_ERR_STRIDE);
    bad = a;
    bad.data = NULL;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &bad, hist), CLIK_ERR_NULL);

    /* Mismatched sizes, partial overlap, wrong table count. */
    clik_image small;
    ck_assert_int_eq(clik_image_wrap(&small, 2, 4, 1, CLIK_U8, pixels + 32, 0), CLIK_OK);
    ck_assert_int_eq(clik_hist_equalize(h_ctx, &a, &small), CLIK_ERR_SIZE_MISMATCH);
    clik_image shifted;
    ck_assert_int_eq(clik_image_wrap(&shifted, 4, 4, 1, CLIK_U8, pixels + 5, 0), CLIK_OK);
    ck_assert_int_eq(clik_hist_equalize(h_ctx, &a, &shifted), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_hist_lut(h_ctx, &a, &b, table, 2), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_hist_lut(h_ctx, &a, &b, table, 0), CLIK_ERR_INVALID_ARG);

    /* More pixels than 32-bit counts hold: refused before any pixel is read. */
    wide = a;
    wide.width = 1 << 20;
    wide.height = 1 << 13;
    wide.stride = (size_t)1 << 20;
    ck_assert_int_eq(clik_hist_compute(h_ctx, &wide, hist), CLIK_ERR_OVERFLOW);

    /* A device image of another context. */
    clik_context *other = h_cpu_context();
    clik_image foreign;
    ck_assert_int_eq(clik_image_create(other, &foreign, 4, 4, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_hist_compute(h_ctx, &foreign, hist), CLIK_ERR_WRONG_CONTEXT);
    clik_image_free(&foreign);
    clik_context_destroy(other);

    /* The context still works after all that. */
    ck_assert_int_eq(clik_hist_equalize(h_ctx, &a, &b), CLIK_OK);
}
END_TEST

/* dst of clik_clahe on a w x h grey image of the given pixels (h_ctx),
 * checked to have run where expected. */
static void clahe_of(const uint8_t *pixels, int w, int h, double clip, int tx, int ty, uint8_t *out)
{
    clik_image src, dst;
    ck_assert_int_eq(clik_image_wrap(&src, w, h, 1, CLIK_U8, (void *)pixels, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&dst, w, h, 1, CLIK_U8, out, 0), CLIK_OK);
    ck_assert_msg(clik_clahe(h_ctx, &src, &dst, clip, tx, ty) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
}

START_TEST(clahe_semantics)
{
    /* One 4x2 tile, clip 40: limit 40 * 8 / 256 = 1.25, truncated to 1. The
     * counts 0: 4, 10: 2, 20: 1, 255: 1 lose 4 to the clip; 4 / 256 = 0 to
     * every bin, then one each to bins 0, 64, 128 and 192 (every 256 / 4-th):
     * cdf 2, 3, 4 at 0, 10, 20 and 8 at 255, times 255 / 8: 63.75, 95.625,
     * 127.5 (half to even: 128), 255. */
    const uint8_t one[8] = {0, 0, 0, 0, 10, 10, 20, 255};
    const uint8_t one_want[8] = {64, 64, 64, 64, 96, 96, 128, 255};
    uint8_t out[8];
    clahe_of(one, 4, 2, 40.0, 1, 1, out);
    ck_assert_mem_eq(out, one_want, 8);
    /* Two 4x1 tiles, no clip (limit 256 * 4 / 256 = 4): tables 255 from 10
     * and from 200 on. Pixel x sits at x / 4 - 0.5 tiles: x = 3 blends 0.75
     * of the left tile's 255 with 0.25 of the right's 0 (10 < 200): 191.25. */
    const uint8_t two[8] = {10, 10, 10, 10, 200, 200, 200, 200};
    const uint8_t two_want[8] = {255, 255, 255, 191, 255, 255, 255, 255};
    clahe_of(two, 8, 1, 256.0, 2, 1, out);
    ck_assert_mem_eq(out, two_want, 8);
    /* 7 columns in a grid of 2: padded to 8 by reflection (column 7 reads
     * column 5), tiles of 4; a constant image stays constant at its table's
     * value: the tile's cdf reaches the area at 77, so 77 maps to 255. */
    uint8_t flat[7 * 3], flat_out[7 * 3];
    memset(flat, 77, sizeof(flat));
    clahe_of(flat, 7, 3, 1000.0, 2, 3, flat_out);
    for (int i = 0; i < 21; i++)
        ck_assert_int_eq(flat_out[i], 255);
}
END_TEST

/* RGBA pixels (200, 30, 60), (10, 250, 90), grey 128 and pure red: luma
 * 84, 160, 128, 76 (Y = (4899 R + 9617 G + 1868 B + 2^13) >> 14), equalized
 * to 85, 255, 170, 0; back with their own Cr, Cb (grey stays grey; red's Cr
 * saturates at 255), alpha kept. */
START_TEST(equalize_luma_semantics)
{
    const uint8_t in[16] = {200, 30, 60, 1, 10, 250, 90, 2, 128, 128, 128, 3, 255, 0, 0, 4};
    const uint8_t want[16] = {201, 31, 60, 1, 105, 255, 186, 2, 170, 170, 170, 3, 178, 0, 0, 4};
    uint8_t out[16];
    clik_image src, dst;
    ck_assert_int_eq(clik_image_wrap(&src, 4, 1, 4, CLIK_U8, (void *)in, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&dst, 4, 1, 4, CLIK_U8, out, 0), CLIK_OK);
    ck_assert_msg(clik_hist_equalize_luma(h_ctx, &src, &dst) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_mem_eq(out, want, 16);
}
END_TEST

/* The pixels of equalize_luma_semantics as BGRA and as packed BGR: the same
 * luma and chroma from the swapped channels, written back swapped (blue
 * first), alpha kept; 3 channels end at blue, green, red. */
START_TEST(equalize_luma_bgr)
{
    const uint8_t in4[16] = {60, 30, 200, 1, 90, 250, 10, 2, 128, 128, 128, 3, 0, 0, 255, 4};
    const uint8_t want4[16] = {60, 31, 201, 1, 186, 255, 105, 2, 170, 170, 170, 3, 0, 0, 178, 4};
    const uint8_t in3[12] = {60, 30, 200, 90, 250, 10, 128, 128, 128, 0, 0, 255};
    const uint8_t want3[12] = {60, 31, 201, 186, 255, 105, 170, 170, 170, 0, 0, 178};
    uint8_t out[16];
    for (int ch = 3; ch <= 4; ch++) {
        clik_image src, dst;
        ck_assert_int_eq(clik_image_wrap(&src, 4, 1, ch, CLIK_U8, (void *)(ch == 4 ? in4 : in3), 0),
                         CLIK_OK);
        ck_assert_int_eq(clik_image_wrap(&dst, 4, 1, ch, CLIK_U8, out, 0), CLIK_OK);
        src.order = CLIK_ORDER_BGR;
        ck_assert_msg(clik_hist_equalize_luma(h_ctx, &src, &dst) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        ck_assert_mem_eq(out, ch == 4 ? want4 : want3, (size_t)ch * 4);
    }
}
END_TEST

/* Swaps channels 0 and 2 of every pixel of a u8 host image. */
static void swap_red_blue(clik_image *img)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
        for (int x = 0; x < img->width; x++) {
            uint8_t *p = row + (size_t)x * (size_t)img->channels;
            const uint8_t t = p[0];
            p[0] = p[2];
            p[2] = t;
        }
    }
}

/* Both luma ops on a BGR(A) image give the RGB(A) image's result with its
 * channels swapped, for 3 and 4 channels (CLAHE also in place). */
START_TEST(luma_order_swap)
{
    for (int ch = 3; ch <= 4; ch++)
        for (int op = 0; op < 2; op++) {
            clik_image rgb, bgr, want;
            h_alloc_images(93, 41, ch, CLIK_U8, &rgb, &bgr, &want, NULL);
            fill(&rgb, SUP_PATTERN_SMOOTH, 11 + (uint64_t)ch);
            memcpy(bgr.data, rgb.data, rgb.stride * (size_t)rgb.height);
            swap_red_blue(&bgr);
            bgr.order = CLIK_ORDER_BGR;
            clik_status st;
            if (op == 0) {
                ck_assert_int_eq(clik_hist_equalize_luma(h_oracle, &rgb, &want), CLIK_OK);
                st = clik_hist_equalize_luma(h_ctx, &bgr, &bgr);
            } else {
                ck_assert_int_eq(clik_clahe(h_oracle, &rgb, &want, 2.5, 5, 3), CLIK_OK);
                st = clik_clahe(h_ctx, &bgr, &bgr, 2.5, 5, 3);
            }
            ck_assert_msg(st == CLIK_OK, "%s", clik_context_message(h_ctx));
            ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
            swap_red_blue(&bgr);
            assert_same_pixels(&bgr, &want, op == 0 ? "equalize luma BGR" : "clahe BGR");
            h_free_images(&rgb, &bgr, &want, NULL);
        }
}
END_TEST

/* Against the oracle on sizes and grids that cover a row's 16-pixel steps
 * and its tail, padded and unpadded grids, tiles of one pixel, one tile,
 * and grey and RGBA. */
START_TEST(clahe_against_oracle)
{
    static const int cases[][5] = {
        /* w, h, tiles_x, tiles_y, channels */
        {333, 190, 8, 5, 1}, {320, 100, 8, 5, 1}, {47, 9, 3, 7, 1},   {17, 5, 17, 1, 1},
        {15, 2, 1, 2, 1},    {1, 40, 1, 4, 1},    {131, 67, 8, 5, 4},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const int *k = cases[c];
        for (int pattern = 0; pattern < 2; pattern++) {
            clik_image src, got, want;
            h_alloc_images(k[0], k[1], k[4], CLIK_U8, &src, &got, &want, NULL);
            fill(&src, pattern ? SUP_PATTERN_EDGES : SUP_PATTERN_NOISE, 11 + c);
            ck_assert_int_eq(clik_clahe(h_oracle, &src, &want, 2.0, k[2], k[3]), CLIK_OK);
            ck_assert_msg(clik_clahe(h_ctx, &src, &got, 2.0, k[2], k[3]) == CLIK_OK, "%s",
                          clik_context_message(h_ctx));
            ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
            assert_same_pixels(&got, &want, "clahe");
            h_free_images(&src, &got, &want, NULL);
        }
    }
}
END_TEST

static clik_status clahe_3_6_4(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    return clik_clahe(ctx, src, dst, 3.0, 6, 4);
}

/* In place, both channel counts, against the oracle into another image. */
START_TEST(clahe_in_place)
{
    for (int ch = 1; ch <= 4; ch += 3) {
        clik_image img, want;
        h_alloc_images(201, 77, ch, CLIK_U8, &img, &want, NULL);
        check_in_place(clahe_3_6_4, &img, &want, SUP_PATTERN_SMOOTH, 5, "clahe in place");
        if (ch == 4)
            check_in_place(clik_hist_equalize_luma, &img, &want, SUP_PATTERN_SMOOTH, 6,
                           "equalize luma in place");
        h_free_images(&img, &want, NULL);
    }
}
END_TEST

START_TEST(clahe_bad_input)
{
    uint8_t pixels[64] = {0}, four[4 * 64] = {0};
    clik_image a, b, rgba, two;
    ck_assert_int_eq(clik_image_wrap(&a, 8, 8, 1, CLIK_U8, pixels, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&b, 8, 8, 1, CLIK_U8, pixels, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&rgba, 8, 8, 4, CLIK_U8, four, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&two, 8, 4, 2, CLIK_U8, four, 0), CLIK_OK);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, 0.0, 2, 2), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, -3.0, 2, 2), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, NAN, 2, 2), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, INFINITY, 2, 2), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, 40.0, 0, 2), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, 40.0, 2, 0), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, 40.0, 9, 2), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, 40.0, 2, 9), CLIK_ERR_INVALID_SIZE);
    ck_assert_ptr_nonnull(strstr(clik_context_message(h_ctx), "9 tiles"));
    ck_assert_int_eq(clik_clahe(h_ctx, &two, &two, 40.0, 2, 2), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &rgba, 40.0, 2, 2), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_hist_equalize_luma(h_ctx, &a, &b), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_hist_equalize_luma(h_ctx, &two, &two), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_ptr_nonnull(strstr(clik_context_message(h_ctx), "3 or 4"));
    /* 3 channels into 4 stay refused. */
    clik_image rgb;
    ck_assert_int_eq(clik_image_wrap(&rgb, 8, 8, 3, CLIK_U8, four, 0), CLIK_OK);
    ck_assert_int_eq(clik_hist_equalize_luma(h_ctx, &rgb, &rgba), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_clahe(h_ctx, &rgb, &rgba, 40.0, 2, 2), CLIK_ERR_UNSUPPORTED_FORMAT);
    /* The largest grid runs: a tile per pixel. */
    ck_assert_int_eq(clik_clahe(h_ctx, &a, &b, 40.0, 8, 8), CLIK_OK);
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each histogram kernel forced
     * whatever the device would pick: local atomics merged in one pass and
     * with the reduction pass (GPUs), global atomics (no local memory), and
     * byte pairs at every size (CPU devices; serial for four channels);
     * the CLAHE blend by rows (CPU devices) and by pixels (GPUs) both ways.
     * The forced runs poison scratch buffers and new device images, so that
     * reading what no kernel wrote fails against the oracle. Group counts
     * and other numbers are swept by test_tuning. */
    static const char *const tunings[] = {
        "",
        "hist_mode=local,clahe_mode=local,luma16=1,clahe_rows=1,poison=1",
        "hist_mode=local,hist_merge=0,poison=1",
        "hist_mode=local,hist_spread=0,poison=1",
        "hist_mode=global,clahe_mode=global,luma16=0,clahe_rows=0,poison=1",
        "hist_mode=pairs,pairs_min_bytes=1,clahe_mode=serial,poison=1",
        NULL};
    const h_test tests[] = {H_TEST(device_images),
                            H_TEST(in_place),
                            H_TEST(strided_rows),
                            H_TEST(equalize_semantics),
                            H_TEST(alpha_untouched),
                            H_TEST(hist_one_value),
                            H_TEST(long_runs),
                            H_TEST(three_channels),
                            H_TEST(bad_input),
                            H_TEST(clahe_semantics),
                            H_TEST(equalize_luma_semantics),
                            H_TEST(equalize_luma_bgr),
                            H_TEST(luma_order_swap),
                            H_TEST(clahe_against_oracle),
                            H_TEST(clahe_in_place),
                            H_TEST(clahe_bad_input)};
    return h_suite_main(&(h_suite){"hist", "hist", 0, tests, H_COUNT(tests), tunings, NULL});
}

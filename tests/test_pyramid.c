/* Pyramid family on every backend against the scalar oracle. SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

static clik_image wrap_u8(int w, int h, int ch, uint8_t *data)
{
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, CLIK_U8, data, 0), CLIK_OK);
    return img;
}

/* Hand-worked values of OpenCV's pyrDown and pyrUp on tiny images. */
START_TEST(small_images)
{
    uint8_t one = 77, out4[4], two[2] = {10, 21}, half = 0, row[6] = {0, 0, 0, 0, 0, 0};
    clik_image a = wrap_u8(1, 1, 1, &one), b = wrap_u8(1, 1, 1, &half);
    /* Every tap of a 1 x 1 image is the pixel: it stays. */
    ck_assert_int_eq(clik_pyr_down(h_ctx, &a, &b), CLIK_OK);
    ck_assert_int_eq(half, 77);
    clik_image up = wrap_u8(2, 2, 1, out4);
    ck_assert_int_eq(clik_pyr_up(h_ctx, &a, &up), CLIK_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(out4[i], 77);
    /* [a b]: the taps are a b a b a, weights 1 4 6 4 1: (8a + 8b) / 16, rounded. */
    clik_image pair = wrap_u8(2, 1, 1, two);
    ck_assert_int_eq(clik_pyr_down(h_ctx, &pair, &b), CLIK_OK);
    ck_assert_int_eq(half, (10 + 21 + 1) / 2);
    /* pyrUp of [a b] along x: 6a + 2b, 4a + 4b, a + 7b, 8b (over 8). */
    clik_image wide = wrap_u8(4, 1, 1, row);
    ck_assert_int_eq(clik_pyr_up(h_ctx, &pair, &wide), CLIK_OK);
    ck_assert_int_eq(row[0], (6 * 10 + 2 * 21 + 4) / 8);
    ck_assert_int_eq(row[1], (4 * 10 + 4 * 21 + 4) / 8);
    ck_assert_int_eq(row[2], (10 + 7 * 21 + 4) / 8);
    ck_assert_int_eq(row[3], 21);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
}
END_TEST

/* 1 x N and N x 1 images through every operation. */
START_TEST(thin_images)
{
    h_check_family_thin("pyramid", 999, 1000, 1, 7);
}
END_TEST

/* Build and collapse give back the u8 image exactly, through s16 and f32
 * bands, with every image on the device. */
START_TEST(laplacian_round_trip_on_device)
{
    const int w = 333, h = 211, ch = 4, n = 5;
    clik_image host, back, src, out, bands[6];
    h_alloc_images(w, h, ch, CLIK_U8, &host, &back, NULL);
    sup_pattern_fill(&host, SUP_PATTERN_EDGES, 9);
    ck_assert_int_eq(clik_image_create(h_ctx, &src, w, h, ch, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &out, w, h, ch, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &src, &host), CLIK_OK);
    for (int t = 0; t < 2; t++) {
        const clik_type band = t ? CLIK_F32 : CLIK_S16;
        for (int i = 0; i <= n; i++) {
            int lw, lh;
            clik_pyr_level_size(w, h, i, &lw, &lh);
            ck_assert_int_eq(clik_image_create(h_ctx, &bands[i], lw, lh, ch, band), CLIK_OK);
        }
        ck_assert_msg(clik_pyr_laplacian(h_ctx, &src, bands, n) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_msg(clik_pyr_collapse(h_ctx, bands, n, &out) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        ck_assert_int_eq(clik_image_download(h_ctx, &back, &out), CLIK_OK);
        ck_assert_mem_eq(back.data, host.data, host.stride * (size_t)h);
        for (int i = 0; i <= n; i++)
            clik_image_free(&bands[i]);
    }
    h_free_images(&src, &out, &host, &back, NULL);
}
END_TEST

/* A Gaussian pyramid of device images equals the oracle's of host images. */
START_TEST(gaussian_on_device)
{
    const int w = 641, h = 479, n = 5;
    clik_image host, src, dev[5], want[5], got;
    ck_assert_int_eq(clik_image_alloc(&host, w, h, 1, CLIK_U8), CLIK_OK);
    sup_pattern_fill(&host, SUP_PATTERN_SMOOTH, 3);
    ck_assert_int_eq(clik_image_create(h_ctx, &src, w, h, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &src, &host), CLIK_OK);
    for (int i = 0; i < n; i++) {
        int lw, lh;
        clik_pyr_level_size(w, h, i + 1, &lw, &lh);
        ck_assert_int_eq(clik_image_create(h_ctx, &dev[i], lw, lh, 1, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&want[i], lw, lh, 1, CLIK_U8), CLIK_OK);
    }
    ck_assert_msg(clik_pyr_gaussian(h_ctx, &src, dev, n) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_pyr_gaussian(h_oracle, &host, want, n), CLIK_OK);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(clik_image_alloc(&got, want[i].width, want[i].height, 1, CLIK_U8),
                         CLIK_OK);
        ck_assert_int_eq(clik_image_download(h_ctx, &got, &dev[i]), CLIK_OK);
        ck_assert_msg(memcmp(got.data, want[i].data, got.stride * (size_t)got.height) == 0,
                      "level %d differs on %s", i + 1, h_backend);
        h_free_images(&got, &dev[i], &want[i], NULL);
    }
    h_free_images(&src, &host, NULL);
}
END_TEST

/* The CPU row kernel asked for one band of every row of a tall image: no
 * work-item may filter so many rows that its loops pass 65535 iterations
 * (llvmpipe then silently ends them), whatever the tuning says. */
START_TEST(long_bands)
{
    int w = 3001, h = 3001;
    clik_context *ctx = h_tuned_context("pyr_rows=1,pyr_band_rows=1048576");
    if (h_small || h_expected != CLIK_BACKEND_OPENCL) {
        /* Simulators and CPU paths: the largest test size does. */
        const int s = h_size_count() - 1;
        w = sup_test_sizes[s][0];
        h = sup_test_sizes[s][1];
    }
    clik_image in, got, want;
    ck_assert_int_eq(clik_image_alloc(&in, w, h, 1, CLIK_U8), CLIK_OK);
    h_alloc_images((w + 1) / 2, (h + 1) / 2, 1, CLIK_U8, &got, &want, NULL);
    sup_pattern_fill(&in, SUP_PATTERN_NOISE, 21);
    ck_assert_msg(clik_pyr_down(ctx, &in, &got) == CLIK_OK, "%s", clik_context_message(ctx));
    ck_assert_int_eq(clik_pyr_down(h_oracle, &in, &want), CLIK_OK);
    for (int y = 0; y < got.height; y++)
        ck_assert_msg(memcmp((const uint8_t *)got.data + (size_t)y * got.stride,
                             (const uint8_t *)want.data + (size_t)y * want.stride,
                             (size_t)got.width) == 0,
                      "pyr_down of %dx%d in one band: row %d differs on %s", w, h, y, h_backend);
    h_free_images(&in, &got, &want, NULL);
    h_tuned_context_free(ctx);
}
END_TEST

/* 3-channel images (through 4-channel copies) give what 4 channels give. */
START_TEST(three_channels)
{
    h_check_family_three_channels("pyramid");
}
END_TEST

START_TEST(bad_input)
{
    static uint8_t buf[4096];
    clik_image src = wrap_u8(8, 6, 1, buf), half = wrap_u8(4, 3, 1, buf + 1024);
    clik_image small = wrap_u8(3, 3, 1, buf + 2048), big = wrap_u8(16, 12, 1, buf + 2048);
    clik_image levels[4];
    ck_assert_int_eq(clik_pyr_down(NULL, &src, &half), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_pyr_down(h_ctx, NULL, &half), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_pyr_down(h_ctx, &src, NULL), CLIK_ERR_NULL);
    /* An output of the wrong size, type or channel count. */
    ck_assert_int_eq(clik_pyr_down(h_ctx, &src, &small), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_pyr_up(h_ctx, &src, &small), CLIK_ERR_SIZE_MISMATCH);
    clik_image up_small = wrap_u8(14, 12, 1, buf + 2048);
    ck_assert_int_eq(clik_pyr_up(h_ctx, &src, &up_small), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_pyr_up(h_ctx, &src, &big), CLIK_OK);
    clik_image rgba = half;
    rgba.channels = 4;
    rgba.stride = 16;
    ck_assert_int_eq(clik_pyr_down(h_ctx, &src, &rgba), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image u16 = src;
    u16.type = CLIK_U16;
    u16.width = 4;
    ck_assert_int_eq(clik_pyr_down(h_ctx, &u16, &half), CLIK_ERR_UNSUPPORTED_FORMAT);
    /* Overlapping source and destination. */
    clik_image inside = wrap_u8(4, 3, 1, buf + 3);
    ck_assert_int_eq(clik_pyr_down(h_ctx, &src, &inside), CLIK_ERR_INVALID_ARG);
    ck_assert_str_ne(clik_context_message(h_ctx), "");

    /* Level counts: an 8 x 6 image has 3 levels below it (4x3, 2x2, 1x1). */
    ck_assert_int_eq(clik_pyr_max_levels(8, 6), 3);
    ck_assert_int_eq(clik_pyr_max_levels(1, 1), 0);
    ck_assert_int_eq(clik_pyr_max_levels(1, 1000), 10);
    levels[0] = wrap_u8(4, 3, 1, buf + 1024);
    levels[1] = wrap_u8(2, 2, 1, buf + 1100);
    levels[2] = wrap_u8(1, 1, 1, buf + 1200);
    levels[3] = wrap_u8(1, 1, 1, buf + 1300);
    ck_assert_int_eq(clik_pyr_gaussian(h_ctx, &src, levels, 3), CLIK_OK);
    ck_assert_int_eq(clik_pyr_gaussian(h_ctx, &src, levels, 4), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_pyr_gaussian(h_ctx, &src, levels, 0), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_pyr_gaussian(h_ctx, &src, NULL, 2), CLIK_ERR_NULL);
    clik_image one = wrap_u8(1, 1, 1, buf);
    ck_assert_int_eq(clik_pyr_gaussian(h_ctx, &one, levels, 1), CLIK_ERR_INVALID_ARG);
    levels[1] = wrap_u8(3, 2, 1, buf + 1100); /* level 2 of the wrong size */
    ck_assert_int_eq(clik_pyr_gaussian(h_ctx, &src, levels, 3), CLIK_ERR_SIZE_MISMATCH);

    /* Laplacian bands: u8 images take s16 or f32 bands, never u8. */
    clik_image bands[2];
    bands[0] = src;
    bands[1] = half;
    ck_assert_int_eq(clik_pyr_laplacian(h_ctx, &src, bands, 1), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_pyr_collapse(h_ctx, bands, 1, &src), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_pyr_collapse(h_ctx, bands, 5, &src), CLIK_ERR_INVALID_ARG);

    /* The context still works. */
    ck_assert_int_eq(clik_pyr_down(h_ctx, &src, &half), CLIK_OK);
}
END_TEST

/* pyr_up of images whose pixels and rows start anywhere (the kernels'
 * unaligned versions), u8 and f32 with 1, 2 and 4 channels, the full and
 * the odd output sizes: the oracle's values. */
START_TEST(unaligned_up)
{
    static uint8_t sbuf[64 * 1024], dbuf[256 * 1024];
    static float fbuf[16 * 1024]; /* finite floats of the pattern */
    const int sw = 37, sh = 9;
    for (size_t i = 0; i < sizeof(sbuf); i++)
        sbuf[i] = (uint8_t)(i * 37u + (i >> 7));
    for (size_t i = 0; i < sizeof(fbuf) / sizeof(fbuf[0]); i++)
        fbuf[i] = (float)(i % 251) * 0.5f;
    static const clik_type types[] = {CLIK_U8, CLIK_F32};
    for (int t = 0; t < 2; t++)
        for (int ch = 1; ch <= 4; ch *= 2)
            for (int odd = 0; odd < 2; odd++) {
                const size_t es = clik_type_size(types[t]);
                const int dw = 2 * sw - odd, dh = 2 * sh - odd;
                clik_image src, dst, want;
                uint8_t *in = types[t] == CLIK_F32 ? (uint8_t *)(void *)fbuf : sbuf;
                ck_assert_int_eq(clik_image_wrap(&src, sw, sh, ch, types[t], in + es,
                                                 ((size_t)sw * ch + 1) * es),
                                 CLIK_OK);
                ck_assert_int_eq(clik_image_wrap(&dst, dw, dh, ch, types[t], dbuf + 3 * es,
                                                 ((size_t)dw * ch + 3) * es),
                                 CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&want, dw, dh, ch, types[t]), CLIK_OK);
                ck_assert_msg(clik_pyr_up(h_ctx, &src, &dst) == CLIK_OK, "%s",
                              clik_context_message(h_ctx));
                ck_assert_int_eq(clik_pyr_up(h_oracle, &src, &want), CLIK_OK);
                const size_t row = (size_t)dw * ch * es;
                for (int y = 0; y < dh; y++)
                    ck_assert_msg(memcmp((uint8_t *)dst.data + (size_t)y * dst.stride,
                                         (uint8_t *)want.data + (size_t)y * want.stride, row) == 0,
                                  "%s %d ch %dx%d on %s: row %d differs from the oracle's",
                                  clik_type_name(types[t]), ch, dw, dh, h_backend, y);
                clik_image_free(&want);
            }
}
END_TEST

/* pyr_down of u8 images 1 to 160 / CH pixels wide with CH = 1, 2 and 4
 * channels, sources at an odd address and rows of an odd stride, outputs
 * whose rows start at every byte offset or at every pixel offset: each
 * width and alignment puts the row kernel's vector steps and edge pixels
 * somewhere else. The oracle's values. */
START_TEST(unaligned_down_widths)
{
    static uint8_t sbuf[8 * 1024], dbuf[4 * 1024];
    for (size_t i = 0; i < sizeof(sbuf); i++)
        sbuf[i] = (uint8_t)(i * 73u + (i >> 5) * 11u);
    const int sh = 5, dh = 3;
    for (int ch = 1; ch <= 4; ch *= 2)
        for (int sw = 1; sw <= 160 / ch; sw++)
            for (int pixels = 0; pixels < 2; pixels++) {
                const int dw = (sw + 1) / 2, skew = pixels ? ch : 1;
                clik_image src, dst, want;
                ck_assert_int_eq(
                    clik_image_wrap(&src, sw, sh, ch, CLIK_U8, sbuf + 1, (size_t)sw * ch + 3),
                    CLIK_OK);
                ck_assert_int_eq(clik_image_wrap(&dst, dw, dh, ch, CLIK_U8, dbuf + skew,
                                                 (size_t)(dw * ch + skew)),
                                 CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&want, dw, dh, ch, CLIK_U8), CLIK_OK);
                ck_assert_msg(clik_pyr_down(h_ctx, &src, &dst) == CLIK_OK, "%s",
                              clik_context_message(h_ctx));
                ck_assert_int_eq(clik_pyr_down(h_oracle, &src, &want), CLIK_OK);
                for (int y = 0; y < dh; y++)
                    ck_assert_msg(memcmp((uint8_t *)dst.data + (size_t)y * dst.stride,
                                         (uint8_t *)want.data + (size_t)y * want.stride,
                                         (size_t)dw * ch) == 0,
                                  "%d ch %dx%d, rows skewed by %d, on %s: row %d differs from "
                                  "the oracle's",
                                  ch, sw, sh, skew, h_backend, y);
                clik_image_free(&want);
            }
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each kind forced whatever the
     * device would pick: GPU kernels without local memory (the 8-wide u8
     * grey one and the plain one), tiles in local memory, the strips (3
     * rows: bands that end inside the image), and the CPU row kernels; the
     * forced runs poison scratch levels and new device images,
     * so that reading what no kernel wrote fails against the oracle. Band
     * heights and other numbers are swept by test_tuning. */
    static const char *const tunings[] = {
        "",
        "pyr_rows=0,pyr_strip=0,pyr_vec=1,poison=1",
        "pyr_rows=0,pyr_strip=0,pyr_vec=0,pyr_local=1,pyr_up_block=0,poison=1",
        "pyr_rows=0,pyr_strip=1,pyr_strip_rows=3,poison=1",
        "pyr_rows=1,poison=1",
        NULL};
    const h_test tests[] = {H_TEST(small_images),
                            H_TEST(thin_images),
                            H_TEST(laplacian_round_trip_on_device),
                            H_TEST(gaussian_on_device),
                            H_TEST(long_bands),
                            H_TEST(three_channels),
                            H_TEST(unaligned_up),
                            H_TEST(unaligned_down_widths),
                            H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"pyramid", "pyramid", 0, tests, H_COUNT(tests), tunings, NULL});
}

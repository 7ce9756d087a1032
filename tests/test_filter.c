/* Filter family (Gaussian blur, RGB(A) -> grey) on every backend against the scalar oracle.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

static clik_image wrap(int w, int h, int ch, clik_type t, void *data)
{
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, t, data, 0), CLIK_OK);
    return img;
}

/* Blurs one input on h_ctx and on the oracle and compares (U8-FLOAT or F32). */
static void check_blur(const clik_image *in, int ksize, double sigma)
{
    clik_image got, want;
    ck_assert_int_eq(clik_image_alloc(&got, in->width, in->height, in->channels, in->type),
                     CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&want, in->width, in->height, in->channels, in->type),
                     CLIK_OK);
    clik_status st = clik_gaussian_blur(h_ctx, in, &got, ksize, sigma);
    ck_assert_msg(st == CLIK_OK, "blur %dx%dx%d k=%d on %s: %s", in->width, in->height,
                  in->channels, ksize, h_backend, clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_int_eq(clik_gaussian_blur(h_oracle, in, &want, ksize, sigma), CLIK_OK);
    sup_compare cmp;
    sup_compare_images(&got, &want, in->type == CLIK_U8 ? SUP_TOL_U8_FLOAT : SUP_TOL_F32, &cmp);
    ck_assert_msg(cmp.pass, "blur %dx%dx%d %s k=%d sigma %g on %s: %s", in->width, in->height,
                  in->channels, clik_type_name(in->type), ksize, sigma, h_backend, cmp.detail);
    h_free_images(&got, &want, NULL);
}

/* ---- weights ---------------------------------------------------------------------- */

START_TEST(weights)
{
    float w[CLIK_BLUR_MAX_KSIZE + 1];
    /* OpenCV's tables for sigma <= 0 (in 256ths), 9 taps included. */
    static const int tables[5][9] = {{256},
                                     {64, 128, 64},
                                     {16, 64, 96, 64, 16},
                                     {8, 28, 56, 72, 56, 28, 8},
                                     {4, 13, 30, 51, 60, 51, 30, 13, 4}};
    for (int r = 0; r < 5; r++) {
        ck_assert_int_eq(clik_gaussian_weights(2 * r + 1, 0.0, w), CLIK_OK);
        for (int i = 0; i <= 2 * r; i++)
            ck_assert_float_eq(w[i], tables[r][i] / 256.0f);
        ck_assert_int_eq(clik_gaussian_weights(2 * r + 1, -3.0, w), CLIK_OK);
        ck_assert_float_eq(w[r], tables[r][r] / 256.0f);
    }
    /* Larger sizes derive sigma: 0.3 * ((11 - 1) / 2 - 1) + 0.8 = 2.0. A
     * given sigma is used as it is, for the table sizes too. */
    const struct {
        int ksize;
        double sigma, used;
    } derived[] = {{11, 0.0, 2.0}, {31, 0.0, 5.0}, {7, 2.0, 2.0}, {3, 0.5, 0.5}, {13, 1e3, 1e3}};
    for (size_t t = 0; t < sizeof(derived) / sizeof(derived[0]); t++) {
        const int k = derived[t].ksize, r = k / 2;
        ck_assert_int_eq(clik_gaussian_weights(k, derived[t].sigma, w), CLIK_OK);
        double g[CLIK_BLUR_MAX_KSIZE], sum = 0.0, s = derived[t].used;
        for (int i = 0; i < k; i++)
            sum += g[i] = exp(-(double)((i - r) * (i - r)) / (2.0 * s * s));
        for (int i = 0; i < k; i++) {
            ck_assert_msg(fabs(w[i] - g[i] / sum) < 1e-7, "k=%d sigma %g tap %d: %.9g, not %.9g", k,
                          derived[t].sigma, i, w[i], g[i] / sum);
            ck_assert_float_eq(w[i], w[k - 1 - i]);
        }
    }
    /* A vanishing sigma leaves the centre tap alone. */
    ck_assert_int_eq(clik_gaussian_weights(5, 1e-200, w), CLIK_OK);
    ck_assert_float_eq(w[2], 1.0f);
    ck_assert_float_eq(w[0], 0.0f);
    /* Bad sizes and sigmas; nothing written. */
    const int bad[] = {0, -1, 2, 8, 32, 33, 1001};
    w[0] = 42.0f;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_int_eq(clik_gaussian_weights(bad[i], 1.0, w), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_gaussian_weights(5, NAN, w), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_gaussian_weights(5, INFINITY, w), CLIK_ERR_INVALID_ARG);
    ck_assert_float_eq(w[0], 42.0f);
    ck_assert_int_eq(clik_gaussian_weights(5, 1.0, NULL), CLIK_ERR_NULL);
}
END_TEST

/* ---- hand-worked values ---------------------------------------------------------- */

START_TEST(small_images)
{
    /* [a b c], k = 3, sigma 0: taps 1/4 1/2 1/4, reflect-101 (b|a b c|b):
     * (a + b) / 2, a / 4 + b / 2 + c / 4, (b + c) / 2; one row: the
     * vertical taps all take that row (weights summing to 1). */
    uint8_t row[3] = {10, 20, 42}, out[3];
    clik_image in = wrap(3, 1, 1, CLIK_U8, row), o = wrap(3, 1, 1, CLIK_U8, out);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &in, &o, 3, 0.0), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_int_eq(out[0], 15);
    ck_assert_int_eq(out[1], 23);
    ck_assert_int_eq(out[2], 31);
    /* The same as a column, and in f32 (these sums are exact). */
    float rowf[3] = {10, 20, 42}, outf[3];
    clik_image inf = wrap(1, 3, 1, CLIK_F32, rowf), of = wrap(1, 3, 1, CLIK_F32, outf);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &inf, &of, 3, 0.0), CLIK_OK);
    ck_assert_float_eq(outf[0], 15.0f);
    ck_assert_float_eq(outf[1], 23.0f);
    ck_assert_float_eq(outf[2], 31.0f);
    /* u8 rounds half up, as OpenCV: [1 0 0] gives 0.5 -> 1, 0.25 -> 0, 0. */
    uint8_t halves[3] = {1, 0, 0};
    in = wrap(3, 1, 1, CLIK_U8, halves);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &in, &o, 3, 0.0), CLIK_OK);
    ck_assert_int_eq(out[0], 1);
    ck_assert_int_eq(out[1], 0);
    ck_assert_int_eq(out[2], 0);
    /* [a b] with k = 5 (1 4 6 4 1): the taps fold to a b a b a and b a b a b:
     * (a + b) / 2 both. */
    uint8_t pair[2] = {10, 30}, pout[2];
    in = wrap(2, 1, 1, CLIK_U8, pair);
    o = wrap(2, 1, 1, CLIK_U8, pout);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &in, &o, 5, 0.0), CLIK_OK);
    ck_assert_int_eq(pout[0], 20);
    ck_assert_int_eq(pout[1], 20);
    /* 1 x 1 with the largest kernel: the pixel. */
    uint8_t one[4] = {77, 0, 255, 1}, oneout[4];
    in = wrap(1, 1, 4, CLIK_U8, one);
    o = wrap(1, 1, 4, CLIK_U8, oneout);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &in, &o, CLIK_BLUR_MAX_KSIZE, 0.0), CLIK_OK);
    ck_assert_mem_eq(oneout, one, 4);

    /* Grey: OpenCV's values, alpha ignored; the last two are triples where
     * the 15-bit weights of OpenCV 4 differ from the older 14-bit ones. */
    uint8_t rgba[8][4] = {{255, 0, 0, 255},   {0, 255, 0, 255},  {0, 0, 255, 255},
                          {255, 255, 255, 0}, {200, 100, 50, 7}, {128, 128, 128, 128},
                          {0, 0, 250, 255},   {0, 4, 168, 0}};
    const uint8_t want[8] = {76, 150, 29, 255, 124, 128, 28, 21};
    uint8_t grey[8];
    clik_image src = wrap(8, 1, 4, CLIK_U8, rgba), dst = wrap(8, 1, 1, CLIK_U8, grey);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &dst), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_mem_eq(grey, want, 8);
    float fp[3][4] = {{1, 0, 0, 9}, {0, 1, 0, 9}, {0, 0, 1, 9}}, fg[3];
    src = wrap(3, 1, 4, CLIK_F32, fp);
    dst = wrap(3, 1, 1, CLIK_F32, fg);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &dst), CLIK_OK);
    ck_assert_float_eq(fg[0], 0.299f);
    ck_assert_float_eq(fg[1], 0.587f);
    ck_assert_float_eq(fg[2], 0.114f);
}
END_TEST

/* ---- in place, thin images, strides ----------------------------------------------- */

START_TEST(in_place)
{
    const struct {
        int w, h, ch, ksize;
        clik_type t;
        double sigma;
    } runs[] = {{333, 211, 4, 7, CLIK_U8, 0.0},
                {97, 61, 1, 11, CLIK_F32, 2.5},
                {40, 3, 2, 31, CLIK_U8, 0.0}};
    /* Small sizes only (Oclgrind): the first image shrinks. */
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        clik_image img, ref;
        const int w = h_small && i == 0 ? 61 : runs[i].w, h = h_small && i == 0 ? 37 : runs[i].h;
        ck_assert_int_eq(clik_image_alloc(&img, w, h, runs[i].ch, runs[i].t), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&ref, w, h, runs[i].ch, runs[i].t), CLIK_OK);
        sup_pattern_fill(&img, SUP_PATTERN_EDGES, 11 + i);
        ck_assert_int_eq(clik_gaussian_blur(h_ctx, &img, &ref, runs[i].ksize, runs[i].sigma),
                         CLIK_OK);
        ck_assert_msg(clik_gaussian_blur(h_ctx, &img, &img, runs[i].ksize, runs[i].sigma) ==
                          CLIK_OK,
                      "%s", clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        ck_assert_msg(memcmp(img.data, ref.data, img.stride * (size_t)img.height) == 0,
                      "in-place blur %zu differs from out-of-place on %s", i, h_backend);
        h_free_images(&img, &ref, NULL);
    }
}
END_TEST

/* 1 x N, N x 1 and images narrower or shorter than the kernel's radius,
 * through every case and through the largest kernel. */
START_TEST(thin_images)
{
    const int sizes[][2] = {{1, 37},  {37, 1}, {1, 2},  {2, 1}, {1, 1000},
                            {999, 1}, {3, 40}, {40, 3}, {5, 5}, {16, 2}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        /* Small sizes only (Oclgrind): the long sides shrink. */
        const int w = h_small && sizes[i][0] > 128 ? 128 : sizes[i][0];
        const int h = h_small && sizes[i][1] > 128 ? 128 : sizes[i][1];
        for (int c = 0; c < h_family_case_count("filter"); c++) {
            const sup_case *k = h_family_case("filter", c);
            for (int ch = 1; ch <= 4; ch *= 2) {
                if (!(k->channels & (1u << ch)))
                    continue;
                h_check_case_at(k, w, h, ch, SUP_PATTERN_NOISE, 7);
            }
        }
        for (int t = 0; t < 2; t++) {
            clik_image in;
            ck_assert_int_eq(clik_image_alloc(&in, w, h, t ? 1 : 4, t ? CLIK_F32 : CLIK_U8),
                             CLIK_OK);
            sup_pattern_fill(&in, SUP_PATTERN_NOISE, 5 + i);
            check_blur(&in, CLIK_BLUR_MAX_KSIZE, 0.0);
            check_blur(&in, 9, 0.0);
            check_blur(&in, 1, 0.0);
            clik_image_free(&in);
        }
    }
}
END_TEST

/* Rows with padding, at odd addresses: no whole-pixel alignment. */
START_TEST(unaligned_rows)
{
    const int w = 77, h = 23;
    const size_t stride = 4 * w + 3;
    uint8_t *buf = malloc(stride * h + 1), *grey = malloc((size_t)(w + 5) * h + 1);
    uint8_t *want = malloc((size_t)w * h);
    ck_assert_ptr_nonnull(buf);
    ck_assert_ptr_nonnull(grey);
    ck_assert_ptr_nonnull(want);
    uint64_t seed = 3;
    for (size_t i = 0; i < stride * h + 1; i++)
        buf[i] = (uint8_t)sup_rand_next(&seed);
    clik_image src, dst, ref;
    ck_assert_int_eq(clik_image_wrap(&src, w, h, 4, CLIK_U8, buf + 1, stride), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&dst, w, h, 1, CLIK_U8, grey + 1, (size_t)w + 5), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&ref, w, h, 1, CLIK_U8, want, 0), CLIK_OK);
    ck_assert_msg(clik_gray(h_ctx, &src, &dst) == CLIK_OK, "%s", clik_context_message(h_ctx));
    ck_assert_int_eq(clik_gray(h_oracle, &src, &ref), CLIK_OK);
    for (int y = 0; y < h; y++)
        ck_assert_mem_eq(grey + 1 + (size_t)y * (w + 5), want + (size_t)y * w, (size_t)w);
    check_blur(&src, 7, 0.0);
    check_blur(&dst, 5, 1.1);
    free(buf);
    free(grey);
    free(want);
}
END_TEST

/* ---- device images ------------------------------------------------------------------- */

/* Grey then blur with every image on the device (the fusion upscaler's
 * chain), and an in-place blur of a device image, against the oracle. */
START_TEST(on_device)
{
    const int w = h_small ? 97 : 641, h = h_small ? 61 : 479;
    clik_image host, grey_want, blur_want, got, d_src, d_grey, d_blur;
    ck_assert_int_eq(clik_image_alloc(&host, w, h, 4, CLIK_U8), CLIK_OK);
    h_alloc_images(w, h, 1, CLIK_U8, &grey_want, &blur_want, &got, NULL);
    sup_pattern_fill(&host, SUP_PATTERN_SMOOTH, 21);
    ck_assert_int_eq(clik_image_create(h_ctx, &d_src, w, h, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &d_grey, w, h, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &d_blur, w, h, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &d_src, &host), CLIK_OK);
    ck_assert_msg(clik_gray(h_ctx, &d_src, &d_grey) == CLIK_OK, "%s", clik_context_message(h_ctx));
    ck_assert_msg(clik_gaussian_blur(h_ctx, &d_grey, &d_blur, 7, 0.0) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    ck_assert_int_eq(clik_gray(h_oracle, &host, &grey_want), CLIK_OK);
    ck_assert_int_eq(clik_gaussian_blur(h_oracle, &grey_want, &blur_want, 7, 0.0), CLIK_OK);
    ck_assert_int_eq(clik_image_download(h_ctx, &got, &d_grey), CLIK_OK);
    ck_assert_mem_eq(got.data, grey_want.data, got.stride * (size_t)h);
    ck_assert_int_eq(clik_image_download(h_ctx, &got, &d_blur), CLIK_OK);
    ck_assert_mem_eq(got.data, blur_want.data, got.stride * (size_t)h);
    /* In place on the device. */
    ck_assert_msg(clik_gaussian_blur(h_ctx, &d_grey, &d_grey, 7, 0.0) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_image_download(h_ctx, &got, &d_grey), CLIK_OK);
    ck_assert_mem_eq(got.data, blur_want.data, got.stride * (size_t)h);
    /* A device image into a host image and back. */
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &d_grey, &got, 3, 0.0), CLIK_OK);
    ck_assert_int_eq(clik_gaussian_blur(h_oracle, &blur_want, &grey_want, 3, 0.0), CLIK_OK);
    ck_assert_mem_eq(got.data, grey_want.data, got.stride * (size_t)h);
    h_free_images(&d_src, &d_grey, &d_blur, &host, &grey_want, &blur_want, &got, NULL);
}
END_TEST

/* ---- 3 channels and colour order -------------------------------------------------- */

/* Each case that takes 3 channels gives on them what it gives on 4. */
START_TEST(three_channels)
{
    h_check_family_three_channels("filter");
}
END_TEST

/* Grey of BGR(A) pixels equals grey of the same pixels with red and blue
 * swapped, read as RGB(A); by hand, pure blue is 29 in BGR order. */
START_TEST(bgr_order)
{
    enum { W = 21, H = 3 };
    for (int ch = 3; ch <= 4; ch++) {
        uint8_t rgb[W * H * 4], bgr[W * H * 4], g_rgb[W * H], g_bgr[W * H];
        for (int i = 0; i < W * H * ch; i++)
            rgb[i] = (uint8_t)(i * 37 + 11);
        for (int p = 0; p < W * H; p++)
            for (int k = 0; k < ch; k++)
                bgr[p * ch + k] = rgb[p * ch + (k < 3 ? 2 - k : k)];
        clik_image a = wrap(W, H, ch, CLIK_U8, rgb), b = wrap(W, H, ch, CLIK_U8, bgr);
        clik_image ga = wrap(W, H, 1, CLIK_U8, g_rgb), gb = wrap(W, H, 1, CLIK_U8, g_bgr);
        b.order = CLIK_ORDER_BGR;
        ck_assert_int_eq(clik_gray(h_ctx, &a, &ga), CLIK_OK);
        ck_assert_int_eq(clik_gray(h_ctx, &b, &gb), CLIK_OK);
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        ck_assert_mem_eq(g_rgb, g_bgr, sizeof(g_rgb));
        /* (3735 * 255 + 16384) >> 15 = 29 for blue; 76 for red. */
        memset(bgr, 0, sizeof(bgr));
        bgr[0] = 255;      /* pixel 0: blue in BGR */
        bgr[ch + 2] = 255; /* pixel 1: red in BGR */
        ck_assert_int_eq(clik_gray(h_ctx, &b, &gb), CLIK_OK);
        ck_assert_int_eq(g_bgr[0], 29);
        ck_assert_int_eq(g_bgr[1], 76);
    }
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------- */

START_TEST(bad_input)
{
    static uint8_t buf[8192];
    static float fbuf[1024];
    clik_image src = wrap(8, 6, 4, CLIK_U8, buf), dst = wrap(8, 6, 4, CLIK_U8, buf + 1024);
    clik_image grey = wrap(8, 6, 1, CLIK_U8, buf + 2048), fgrey = wrap(8, 6, 1, CLIK_F32, fbuf);
    memset(buf + 1024, 0x5a, 1024);
    /* NULL pointers. */
    ck_assert_int_eq(clik_gaussian_blur(NULL, &src, &dst, 3, 0.0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, NULL, &dst, 3, 0.0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, NULL, 3, 0.0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_gray(NULL, &src, &grey), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_gray(h_ctx, NULL, &grey), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_gray(h_ctx, &src, NULL), CLIK_ERR_NULL);
    clik_image nodata = src;
    nodata.data = NULL;
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &nodata, &dst, 3, 0.0), CLIK_ERR_NULL);
    clik_image narrow = src;
    narrow.stride = 16; /* less than a row */
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &narrow, &dst, 3, 0.0), CLIK_ERR_STRIDE);
    ck_assert_int_eq(clik_gray(h_ctx, &narrow, &grey), CLIK_ERR_STRIDE);
    /* Kernel sizes and sigmas. */
    const int bad_k[] = {0, -3, 2, 4, 32, 33};
    for (size_t i = 0; i < sizeof(bad_k) / sizeof(bad_k[0]); i++) {
        ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &dst, bad_k[i], 0.0),
                         CLIK_ERR_INVALID_ARG);
        ck_assert_str_ne(clik_context_message(h_ctx), "");
    }
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &dst, 3, NAN), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &dst, 3, -INFINITY), CLIK_ERR_INVALID_ARG);
    /* Formats: types, channel counts, sizes. */
    clik_image u16 = wrap(4, 6, 4, CLIK_U16, buf);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &u16, &u16, 3, 0.0), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image f32 = wrap(8, 6, 4, CLIK_F32, buf + 4096);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &f32, 3, 0.0), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &grey, 3, 0.0), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image small = wrap(7, 6, 4, CLIK_U8, buf + 1024);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &small, 3, 0.0), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_gray(h_ctx, &grey, &grey), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image two = wrap(8, 6, 2, CLIK_U8, buf + 4096);
    ck_assert_int_eq(clik_gray(h_ctx, &two, &grey), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &dst), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &fgrey), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_gray(h_ctx, &u16, &grey), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image short_grey = wrap(8, 5, 1, CLIK_U8, buf + 2048);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &short_grey), CLIK_ERR_SIZE_MISMATCH);
    /* Overlaps: partial ones are refused (for grey, any overlap is). */
    clik_image shifted = wrap(8, 6, 4, CLIK_U8, buf + 4);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &shifted, 3, 0.0), CLIK_ERR_INVALID_ARG);
    clik_image strided = src;
    strided.stride = 40;
    strided.height = 5;
    clik_image src5 = wrap(8, 5, 4, CLIK_U8, buf);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src5, &strided, 3, 0.0), CLIK_ERR_INVALID_ARG);
    clik_image inside = wrap(8, 6, 1, CLIK_U8, buf + 16);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &inside), CLIK_ERR_INVALID_ARG);
    ck_assert_str_ne(clik_context_message(h_ctx), "");
    /* An order that is not a clik_order. */
    clik_image odd = src;
    odd.order = (clik_order)2;
    ck_assert_int_eq(clik_gray(h_ctx, &odd, &grey), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &odd, &dst, 3, 0.0), CLIK_ERR_INVALID_ARG);
    /* Nothing was written by the failures. */
    for (int i = 1024; i < 2048; i++)
        ck_assert_int_eq(buf[i], 0x5a);
    /* A device image of another context. */
    clik_context *other = h_cpu_context();
    clik_image foreign;
    ck_assert_int_eq(clik_image_create(other, &foreign, 8, 6, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &foreign, &dst, 3, 0.0), CLIK_ERR_WRONG_CONTEXT);
    ck_assert_int_eq(clik_gray(h_ctx, &foreign, &grey), CLIK_ERR_WRONG_CONTEXT);
    clik_image_free(&foreign);
    clik_context_destroy(other);
    /* The context still works. */
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &src, &dst, 3, 0.0), CLIK_OK);
    ck_assert_int_eq(clik_gray(h_ctx, &src, &grey), CLIK_OK);
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each variant forced with poisoned
     * scratch: the two passes with tiles in local memory (also with tiles
     * one row high, smaller than the halos), without local memory, both
     * passes fused through local memory (also with tiles smaller than the
     * halos, several rows per work-item), the fused CPU kernel with short
     * bands; grey one pixel or 16 pixels per work-item. */
    static const char *const tunings[] = {
        "",
        "blur_cpu=0,blur_block=0,blur_fused=0,blur_local=1,gray_rows=0,poison=1",
        "blur_cpu=0,blur_block=0,blur_fused=0,blur_local=1,blur_row_w=16,blur_col_w=4,blur_col_h=1,"
        "gray_rows=1,"
        "poison=1",
        "blur_cpu=0,blur_block=0,blur_fused=0,blur_local=0,gray_rows=1,poison=1",
        "blur_cpu=0,blur_block=1,gray_rows=0,poison=1",
        "blur_cpu=0,blur_block=0,blur_fused=1,gray_rows=0,poison=1",
        "blur_cpu=0,blur_block=0,blur_fused=1,blur_fused_w=4,blur_fused_h=3,blur_fused_rows=5,"
        "gray_rows=1,"
        "poison=1",
        "blur_cpu=1,blur_band_rows=5,gray_rows=0,poison=1",
        NULL};
    const h_test tests[] = {H_TEST(weights),        H_TEST(small_images),   H_TEST(in_place),
                            H_TEST(thin_images),    H_TEST(unaligned_rows), H_TEST(on_device),
                            H_TEST(three_channels), H_TEST(bgr_order),      H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"filter", "filter", 0, tests, H_COUNT(tests), tunings, NULL});
}

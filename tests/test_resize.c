/* Resize family on every backend against the scalar oracle. SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

static clik_image wrap(int w, int h, int ch, clik_type t, void *data)
{
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, t, data, 0), CLIK_OK);
    return img;
}

static void resize_ok(const clik_image *src, clik_image *dst, clik_interp m)
{
    clik_status st = clik_resize(h_ctx, src, dst, m);
    ck_assert_msg(st == CLIK_OK, "%s on %s: %s: %s", clik_interp_name(m), h_backend,
                  clik_status_str(st), clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
}

/*
 * [10 30] to 4 pixels (scale 2). Source points (x + 0.5) / 2 - 0.5:
 * -0.25, 0.25, 0.75, 1.25.
 *  nearest: floor(x / 2) = 0 0 1 1.
 *  bilinear: -0.25 is left of the first centre (replicated: 10); 0.25 gives
 *    0.75 * 10 + 0.25 * 30 = 15; 0.75 gives 25; 1.25 is past the last: 30.
 *  bicubic: Keys (A = -0.75), W(d) = 1.25 d^3 - 2.25 d^2 + 1 (d <= 1),
 *    -0.75 d^3 + 3.75 d^2 - 6 d + 3 (1 < d < 2): W(0.25) = 0.87890625,
 *    W(0.75) = 0.26171875, W(1.25) = -0.10546875, W(1.75) = -0.03515625.
 *    x = 0: t = 0.75 after pixel -1, taps -2 -1 0 1 = 10 10 10 30 with
 *      W(1.75) W(0.75) W(0.25) W(1.25): 10 + 20 * W(1.25) = 7.890625 -> 8;
 *    x = 1: t = 0.25 after pixel 0, taps 10 10 30 30 with W(1.25) W(0.25)
 *      W(0.75) W(1.75): 10 * 0.7734375 + 30 * 0.2265625 = 14.53125 -> 15;
 *    x = 2: t = 0.75: 10 * 0.2265625 + 30 * 0.7734375 = 25.46875 -> 25;
 *    x = 3: t = 0.25 after pixel 1, taps 10 30 30 30: 30 - 20 * W(1.25)
 *      = 32.109375 -> 32 (overshoot past the edge value).
 * The same along y, and in f32 the exact values.
 */
START_TEST(hand_worked)
{
    static const uint8_t want[3][4] = {{10, 10, 30, 30}, {10, 15, 25, 30}, {8, 15, 25, 32}};
    static const float want_f[3][4] = {
        {10, 10, 30, 30}, {10, 15, 25, 30}, {7.890625f, 14.53125f, 25.46875f, 32.109375f}};
    for (int m = 0; m < 3; m++) {
        uint8_t two[2] = {10, 30}, four[4] = {0};
        clik_image a = wrap(2, 1, 1, CLIK_U8, two), b = wrap(4, 1, 1, CLIK_U8, four);
        resize_ok(&a, &b, (clik_interp)m);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(four[i] == want[m][i], "%s x=%d: %d, want %d on %s",
                          clik_interp_name((clik_interp)m), i, four[i], want[m][i], h_backend);
        /* The same along a column, in RGBA: every channel alike. */
        uint8_t col[2 * 4], tall[4 * 4];
        for (int i = 0; i < 8; i++)
            col[i] = two[i / 4];
        a = wrap(1, 2, 4, CLIK_U8, col);
        b = wrap(1, 4, 4, CLIK_U8, tall);
        resize_ok(&a, &b, (clik_interp)m);
        for (int i = 0; i < 16; i++)
            ck_assert_int_eq(tall[i], want[m][i / 4]);
        float twof[2] = {10, 30}, fourf[4];
        a = wrap(2, 1, 1, CLIK_F32, twof);
        b = wrap(4, 1, 1, CLIK_F32, fourf);
        resize_ok(&a, &b, (clik_interp)m);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(fabsf(fourf[i] - want_f[m][i]) <= 1e-4f, "%s f32 x=%d: %g, want %g",
                          clik_interp_name((clik_interp)m), i, fourf[i], want_f[m][i]);
    }
    /* Down by 2: bilinear averages pairs (20, 40); nearest takes the first
     * of each pair. 3 -> 1: the source point 1.0 is the middle pixel's
     * centre (30) for bilinear and bicubic; nearest takes pixel 0. */
    uint8_t row4[4] = {10, 30, 20, 60}, two[2], one;
    clik_image a = wrap(4, 1, 1, CLIK_U8, row4), b = wrap(2, 1, 1, CLIK_U8, two);
    resize_ok(&a, &b, CLIK_INTERP_BILINEAR);
    ck_assert_int_eq(two[0], 20);
    ck_assert_int_eq(two[1], 40);
    resize_ok(&a, &b, CLIK_INTERP_NEAREST);
    ck_assert_int_eq(two[0], 10);
    ck_assert_int_eq(two[1], 20);
    a = wrap(3, 1, 1, CLIK_U8, row4);
    b = wrap(1, 1, 1, CLIK_U8, &one);
    for (int m = 0; m < 3; m++) {
        resize_ok(&a, &b, (clik_interp)m);
        ck_assert_int_eq(one, m == CLIK_INTERP_NEAREST ? 10 : 30);
    }
}
END_TEST

/* OpenCV's INTER_NEAREST offsets: floor(x * (1 / (dw / sw))) in double,
 * which is not always x * sw / dw in integers (7 -> 3 takes 0 2 4; 3 -> 7
 * takes 0 0 0 1 1 2 2). */
START_TEST(nearest_offsets)
{
    uint8_t src[7] = {0, 1, 2, 3, 4, 5, 6}, out[7];
    clik_image a = wrap(7, 1, 1, CLIK_U8, src), b = wrap(3, 1, 1, CLIK_U8, out);
    resize_ok(&a, &b, CLIK_INTERP_NEAREST);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 2);
    ck_assert_int_eq(out[2], 4);
    a = wrap(3, 1, 1, CLIK_U8, src);
    b = wrap(7, 1, 1, CLIK_U8, out);
    resize_ok(&a, &b, CLIK_INTERP_NEAREST);
    static const uint8_t up[7] = {0, 0, 0, 1, 1, 2, 2};
    ck_assert_mem_eq(out, up, 7);
}
END_TEST

/* 1 x N and N x 1 images, and a 1 x 1 image to any size. */
START_TEST(thin_images)
{
    const int sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {1, 2}, {2, 1}, {1, 1000}, {999, 1}};
    /* Oclgrind (h_small) simulates every work-item: the short ones only. */
    const size_t count = sizeof(sizes) / sizeof(sizes[0]) - (h_small ? 2 : 0);
    for (size_t i = 0; i < count; i++)
        for (int c = 0; c < h_family_case_count("resize"); c++)
            for (int ch = 1; ch <= 4; ch += 3) {
                h_check_case_at(h_family_case("resize", c), sizes[i][0], sizes[i][1], ch,
                                SUP_PATTERN_NOISE, 7);
            }
    uint8_t one[4] = {9, 99, 199, 255}, out[5 * 3 * 4];
    clik_image a = wrap(1, 1, 4, CLIK_U8, one), b = wrap(5, 3, 4, CLIK_U8, out);
    for (int m = 0; m < 4; m++) {
        resize_ok(&a, &b, (clik_interp)m);
        for (int i = 0; i < 5 * 3 * 4; i++)
            ck_assert_int_eq(out[i], one[i % 4]);
    }
}
END_TEST

/* Rows with padding, and a source that starts off its natural alignment:
 * the kernels' unaligned variants against the oracle. */
START_TEST(strided_images)
{
    static uint8_t sbuf[64 * 1024], dbuf[256 * 1024], obuf[256 * 1024];
    const int sw = 45, sh = 23;
    for (size_t i = 0; i < sizeof(sbuf); i++)
        sbuf[i] = (uint8_t)(i * 37u + (i >> 7));
    for (int ch = 1; ch <= 4; ch += 3)
        for (int c = 0; c < 6; c++) {
            /* bicubic-aa shrinks (by 1/3 and 10/23); cases 4 and 5 are
             * bilinear and bicubic by exactly 2 (the period-2 kernels). */
            const int m = c < 4 ? c : c - 3;
            const int dw = c == 1 ? 91 : c == 3 ? 15 : 2 * sw;
            const int dh = c == 2 ? 3 * sh : c == 3 ? 10 : 2 * sh;
            clik_image src, dst, want;
            ck_assert_int_eq(
                clik_image_wrap(&src, sw, sh, ch, CLIK_U8, sbuf + 1, (size_t)sw * ch + 5), CLIK_OK);
            ck_assert_int_eq(
                clik_image_wrap(&dst, dw, dh, ch, CLIK_U8, dbuf + 3, (size_t)dw * ch + 7), CLIK_OK);
            ck_assert_int_eq(clik_image_wrap(&want, dw, dh, ch, CLIK_U8, obuf, 0), CLIK_OK);
            resize_ok(&src, &dst, (clik_interp)m);
            ck_assert_int_eq(clik_resize(h_oracle, &src, &want, (clik_interp)m), CLIK_OK);
            clik_image got;
            ck_assert_int_eq(clik_image_alloc(&got, dw, dh, ch, CLIK_U8), CLIK_OK);
            for (int y = 0; y < dh; y++)
                memcpy((uint8_t *)got.data + (size_t)y * got.stride,
                       (uint8_t *)dst.data + (size_t)y * dst.stride, (size_t)dw * ch);
            sup_compare cmp;
            sup_compare_images(&got, &want, m == 0 ? SUP_TOL_EXACT : SUP_TOL_U8_FLOAT, &cmp);
            ck_assert_msg(cmp.pass, "%s %d ch strided on %s: %s", clik_interp_name((clik_interp)m),
                          ch, h_backend, cmp.detail);
            clik_image_free(&got);
        }
}
END_TEST

/* Integer factors past the kernels' unrolled ones (2 to 4), and one past
 * the NEON table path (16), per axis and both. */
START_TEST(large_factors)
{
    const int factors[][2] = {{5, 5}, {8, 8}, {6, 1}, {1, 7}, {17, 2}};
    for (size_t f = 0; f < sizeof(factors) / sizeof(factors[0]); f++)
        for (int ch = 1; ch <= 4; ch += 3)
            for (int m = 0; m < 4; m += m == 0 ? 2 : 1) {
                const int sw = 19, sh = 6, dw = sw * factors[f][0], dh = sh * factors[f][1];
                clik_image src, got, want;
                ck_assert_int_eq(clik_image_alloc(&src, sw, sh, ch, CLIK_U8), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&got, dw, dh, ch, CLIK_U8), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&want, dw, dh, ch, CLIK_U8), CLIK_OK);
                sup_pattern_fill(&src, SUP_PATTERN_NOISE, 11);
                resize_ok(&src, &got, (clik_interp)m);
                ck_assert_int_eq(clik_resize(h_oracle, &src, &want, (clik_interp)m), CLIK_OK);
                sup_compare cmp;
                sup_compare_images(&got, &want, m == 0 ? SUP_TOL_EXACT : SUP_TOL_U8_FLOAT, &cmp);
                ck_assert_msg(cmp.pass, "%s x%d,%d %d ch on %s: %s",
                              clik_interp_name((clik_interp)m), factors[f][0], factors[f][1], ch,
                              h_backend, cmp.detail);
                h_free_images(&src, &got, &want, NULL);
            }
}
END_TEST

/* Device images in and out (and a host source into a device output). */
START_TEST(device_images)
{
    /* Oclgrind (h_small) simulates every work-item: a smaller image. */
    const int sw = h_small ? 61 : 333, sh = h_small ? 23 : 97, dw = 2 * sw, dh = 2 * sh;
    for (int m = 0; m < 4; m++) {
        clik_image host, want, got, src, dst;
        ck_assert_int_eq(clik_image_alloc(&host, sw, sh, 4, CLIK_U8), CLIK_OK);
        sup_pattern_fill(&host, SUP_PATTERN_SMOOTH, 5);
        ck_assert_int_eq(clik_image_alloc(&want, dw, dh, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&got, dw, dh, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_create(h_ctx, &src, sw, sh, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_create(h_ctx, &dst, dw, dh, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_upload(h_ctx, &src, &host), CLIK_OK);
        ck_assert_int_eq(clik_resize(h_oracle, &host, &want, (clik_interp)m), CLIK_OK);
        for (int from_host = 0; from_host < 2; from_host++) {
            resize_ok(from_host ? &host : &src, &dst, (clik_interp)m);
            ck_assert_int_eq(clik_image_download(h_ctx, &got, &dst), CLIK_OK);
            sup_compare cmp;
            sup_compare_images(&got, &want, m == 0 ? SUP_TOL_EXACT : SUP_TOL_U8_FLOAT, &cmp);
            ck_assert_msg(cmp.pass, "%s device on %s: %s", clik_interp_name((clik_interp)m),
                          h_backend, cmp.detail);
        }
        /* Into a device image: the same device image as both is refused. */
        ck_assert_int_eq(clik_resize(h_ctx, &src, &src, (clik_interp)m), CLIK_ERR_INVALID_ARG);
        h_free_images(&src, &dst, &host, &want, &got, NULL);
    }
}
END_TEST

/* The CPU-device kernels with every row in one band, and integer factors
 * too large for the integer kernel's spans: the host still splits the work
 * of a work-item (llvmpipe stops the loops of a work-item after 65535
 * iterations in all, and the results would be left unwritten). */
START_TEST(long_bands)
{
    if (strcmp(h_device, "none") == 0)
        return; /* the CPU paths have no work-items */
    clik_context *ctx = h_tuned_context("resize_cpu=1,resize_band_rows=1048576,poison=1");
    /* Oclgrind (h_small) simulates every work-item: a smaller image. */
    const int shapes[][4] = {{h_small ? 120 : 1001, h_small ? 60 : 541, 2, 2}, {3, 2, 700, 3}};
    for (int s = 0; s < 2; s++)
        for (int ch = 1; ch <= 4; ch += 3)
            for (int m = 0; m < 4; m++) {
                const int sw = shapes[s][0], sh = shapes[s][1];
                const int dw = sw * shapes[s][2], dh = sh * shapes[s][3];
                clik_image src, got, want;
                ck_assert_int_eq(clik_image_alloc(&src, sw, sh, ch, CLIK_U8), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&got, dw, dh, ch, CLIK_U8), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&want, dw, dh, ch, CLIK_U8), CLIK_OK);
                sup_pattern_fill(&src, SUP_PATTERN_EDGES, 13);
                clik_status st = clik_resize(ctx, &src, &got, (clik_interp)m);
                ck_assert_msg(st == CLIK_OK, "%s: %s", clik_status_str(st),
                              clik_context_message(ctx));
                ck_assert_int_eq(clik_resize(h_oracle, &src, &want, (clik_interp)m), CLIK_OK);
                sup_compare cmp;
                sup_compare_images(&got, &want, m == 0 ? SUP_TOL_EXACT : SUP_TOL_U8_FLOAT, &cmp);
                ck_assert_msg(cmp.pass, "%s %dx%d to %dx%d %d ch on %s: %s",
                              clik_interp_name((clik_interp)m), sw, sh, dw, dh, ch, h_backend,
                              cmp.detail);
                h_free_images(&src, &got, &want, NULL);
            }
    h_tuned_context_free(ctx);
}
END_TEST

/*
 * Exactly x2, bilinear and bicubic, u8 and f32, 1, 2 and 4 channels, at
 * widths and heights around the vector steps and the borders: the
 * CPU-device period-2 kernel (resize_period2) and the GPU block kernel
 * (resize_p2_block) give the bytes of the generic row kernel, and all
 * agree with the oracle.
 */
START_TEST(period2_x2)
{
    if (strcmp(h_device, "none") == 0)
        return; /* the CPU paths have no work-items */
    clik_context *p2 = h_tuned_context("resize_cpu=1,resize_up2=0,resize_period2=1,poison=1");
    clik_context *rows = h_tuned_context("resize_cpu=1,resize_up2=0,resize_period2=0,poison=1");
    clik_context *block = h_tuned_context("resize_cpu=0,resize_p2_block=1,poison=1");
    const int shapes[][2] = {{1, 1},  {2, 3},   {3, 2},  {5, 7},  {8, 1},
                             {17, 5}, {18, 33}, {33, 4}, {70, 41}};
    static const clik_type types[] = {CLIK_U8, CLIK_F32};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (int t = 0; t < 2; t++)
            for (int ch = 1; ch <= 4; ch *= 2)
                for (int m = CLIK_INTERP_BILINEAR; m <= CLIK_INTERP_BICUBIC; m++) {
                    const int sw = shapes[s][0], sh = shapes[s][1];
                    clik_image src, got, blk, ref, want;
                    ck_assert_int_eq(clik_image_alloc(&src, sw, sh, ch, types[t]), CLIK_OK);
                    ck_assert_int_eq(clik_image_alloc(&got, 2 * sw, 2 * sh, ch, types[t]), CLIK_OK);
                    ck_assert_int_eq(clik_image_alloc(&blk, 2 * sw, 2 * sh, ch, types[t]), CLIK_OK);
                    ck_assert_int_eq(clik_image_alloc(&ref, 2 * sw, 2 * sh, ch, types[t]), CLIK_OK);
                    ck_assert_int_eq(clik_image_alloc(&want, 2 * sw, 2 * sh, ch, types[t]),
                                     CLIK_OK);
                    sup_pattern_fill(&src, SUP_PATTERN_NOISE, 29 + (int)s);
                    clik_status st = clik_resize(p2, &src, &got, (clik_interp)m);
                    ck_assert_msg(st == CLIK_OK, "%s: %s", clik_status_str(st),
                                  clik_context_message(p2));
                    st = clik_resize(rows, &src, &ref, (clik_interp)m);
                    ck_assert_msg(st == CLIK_OK, "%s: %s", clik_status_str(st),
                                  clik_context_message(rows));
                    st = clik_resize(block, &src, &blk, (clik_interp)m);
                    ck_assert_msg(st == CLIK_OK, "%s: %s", clik_status_str(st),
                                  clik_context_message(block));
                    ck_assert_int_eq(clik_resize(h_oracle, &src, &want, (clik_interp)m), CLIK_OK);
                    const size_t row = (size_t)2 * sw * ch * clik_type_size(types[t]);
                    for (int y = 0; y < 2 * sh; y++) {
                        const uint8_t *r = (uint8_t *)ref.data + (size_t)y * ref.stride;
                        ck_assert_msg(
                            memcmp((uint8_t *)got.data + (size_t)y * got.stride, r, row) == 0 &&
                                memcmp((uint8_t *)blk.data + (size_t)y * blk.stride, r, row) == 0,
                            "%s %s %dx%d x2 %d ch on %s: row %d of the period-2 or the "
                            "block kernel differs from the generic row kernel's",
                            clik_interp_name((clik_interp)m), clik_type_name(types[t]), sw, sh, ch,
                            h_backend, y);
                    }
                    sup_compare cmp;
                    sup_compare_images(&got, &want,
                                       types[t] == CLIK_U8 ? SUP_TOL_U8_FLOAT : SUP_TOL_F32, &cmp);
                    ck_assert_msg(cmp.pass, "%s %s %dx%d x2 %d ch on %s: %s",
                                  clik_interp_name((clik_interp)m), clik_type_name(types[t]), sw,
                                  sh, ch, h_backend, cmp.detail);
                    h_free_images(&src, &got, &blk, &ref, &want, NULL);
                }
    h_tuned_context_free(p2);
    h_tuned_context_free(rows);
    h_tuned_context_free(block);
}
END_TEST

/*
 * bicubic-aa (MATLAB's imresize, antialiased), by hand. MATLAB's cubic
 * (a = -0.5): W(d) = 1.5 d^3 - 2.5 d^2 + 1 (d <= 1), -0.5 d^3 + 2.5 d^2 -
 * 4 d + 2 (1 < d <= 2): W(0.25) = 0.8671875, W(0.75) = 0.2265625,
 * W(1.25) = -0.0703125, W(1.75) = -0.0234375 (sum 1).
 *  [10 30] to 4 (s = 2, the plain cubic): u = (x + 0.5) / 2 - 0.5 =
 *    -0.25, 0.25, 0.75, 1.25. x = 0: taps -2 -1 0 1 at distances 1.75,
 *    0.75, 0.25, 1.25, mirrored (.. 1 0 | 0 1 | 1 0 ..) to pixels 1 0 0 1:
 *    pixel 0 weighs W(0.75) + W(0.25) = 1.09375, pixel 1 -0.09375:
 *    8.125 -> 8. x = 1: taps -1 0 1 2 -> pixels 0 0 1 1 at 1.25, 0.25,
 *    0.75, 1.75: 0.796875 and 0.203125: 14.0625 -> 14. Then 25.9375 -> 26
 *    and 31.875 -> 32 by symmetry. (Replicating the border instead would
 *    give W(1.75) to pixel 0 too: 8.59375 at x = 0.)
 *  2 x 2 to 1 x 1 (s = 1/2): the weights are symmetric about the centre:
 *    each pixel 1/4, the mean. [10 20; 30 40] -> 25.
 *  The ramp [0 40 80 120] to 2 (s = 1/2, h(d) = W(d / 2) / 2, taps
 *    -4 .. 5 around u = 0.5 at distances 4.5 .. -4.5): in 1/512ths the
 *    weights 0 -6 -18 58 222 222 58 -18 -6 0 of pixels 3 2 1 0 0 1 2 3 3 2
 *    (mirrored) fold to 280 204 52 -24: (40 * 204 + 80 * 52 - 120 * 24) /
 *    512 = 18.4375 -> 18 (without the mirror the linear ramp would give
 *    its value at u, 20), and 101.5625 -> 102 by symmetry.
 *  A constant stays constant (the weights sum to 1), also at extreme
 *    factors and on sides shorter than the taps.
 */
START_TEST(aa_hand_worked)
{
    const clik_interp aa = CLIK_INTERP_BICUBIC_AA;
    uint8_t two[2] = {10, 30}, four[4];
    clik_image a = wrap(2, 1, 1, CLIK_U8, two), b = wrap(4, 1, 1, CLIK_U8, four);
    resize_ok(&a, &b, aa);
    static const uint8_t up[4] = {8, 14, 26, 32};
    ck_assert_mem_eq(four, up, 4);
    uint8_t col[2 * 4], tall[4 * 4];
    for (int i = 0; i < 8; i++)
        col[i] = two[i / 4];
    a = wrap(1, 2, 4, CLIK_U8, col);
    b = wrap(1, 4, 4, CLIK_U8, tall);
    resize_ok(&a, &b, aa);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(tall[i], up[i / 4]);
    float twof[2] = {10, 30}, fourf[4];
    static const float upf[4] = {8.125f, 14.0625f, 25.9375f, 31.875f};
    a = wrap(2, 1, 1, CLIK_F32, twof);
    b = wrap(4, 1, 1, CLIK_F32, fourf);
    resize_ok(&a, &b, aa);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(fabsf(fourf[i] - upf[i]) <= 1e-4f, "x=%d: %g, want %g on %s", i, fourf[i],
                      upf[i], h_backend);
    uint8_t square[4] = {10, 20, 30, 40}, one;
    a = wrap(2, 2, 1, CLIK_U8, square);
    b = wrap(1, 1, 1, CLIK_U8, &one);
    resize_ok(&a, &b, aa);
    ck_assert_int_eq(one, 25);
    uint8_t ramp[4] = {0, 40, 80, 120}, half[2];
    a = wrap(4, 1, 1, CLIK_U8, ramp);
    b = wrap(2, 1, 1, CLIK_U8, half);
    resize_ok(&a, &b, aa);
    ck_assert_int_eq(half[0], 18);
    ck_assert_int_eq(half[1], 102);
    float rampf[4] = {0, 40, 80, 120}, halff[2];
    a = wrap(1, 4, 1, CLIK_F32, rampf);
    b = wrap(1, 2, 1, CLIK_F32, halff);
    resize_ok(&a, &b, aa);
    ck_assert_msg(fabsf(halff[0] - 18.4375f) <= 1e-4f && fabsf(halff[1] - 101.5625f) <= 1e-4f,
                  "ramp: %g %g on %s", halff[0], halff[1], h_backend);
    /* Constants: shrinking by 3 and by 1921 / 7, growing, and sides
     * shorter than the taps (5 -> 1: 20 taps over 5 pixels). */
    const int shapes[][4] = {{37, 23, 12, 8}, {1921, 3, 7, 1}, {5, 5, 1, 1}, {3, 2, 11, 7}};
    const int nshapes = h_small ? 3 : 4;
    for (int s = 0; s < nshapes; s++)
        for (int ch = 1; ch <= 4; ch += 3) {
            clik_image src, got, srcf, gotf;
            const int sw = shapes[s][0], sh = shapes[s][1], dw = shapes[s][2], dh = shapes[s][3];
            ck_assert_int_eq(clik_image_alloc(&src, sw, sh, ch, CLIK_U8), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&got, dw, dh, ch, CLIK_U8), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&srcf, sw, sh, ch, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&gotf, dw, dh, ch, CLIK_F32), CLIK_OK);
            for (int y = 0; y < sh; y++)
                for (int i = 0; i < sw * ch; i++) {
                    ((uint8_t *)src.data)[(size_t)y * src.stride + i] = (uint8_t)(200 + i % ch);
                    ((float *)((char *)srcf.data + (size_t)y * srcf.stride))[i] = 0.3f;
                }
            resize_ok(&src, &got, aa);
            resize_ok(&srcf, &gotf, aa);
            for (int y = 0; y < dh; y++)
                for (int i = 0; i < dw * ch; i++) {
                    ck_assert_int_eq(((uint8_t *)got.data)[(size_t)y * got.stride + i],
                                     200 + i % ch);
                    const float v = ((float *)((char *)gotf.data + (size_t)y * gotf.stride))[i];
                    ck_assert_msg(fabsf(v - 0.3f) <= 1e-6f, "%dx%d to %dx%d: %.9g on %s", sw, sh,
                                  dw, dh, v, h_backend);
                }
            h_free_images(&src, &got, &srcf, &gotf, NULL);
        }
}
END_TEST

/* bicubic-aa against the oracle where the taps are many or the sides
 * short: extreme factors (1921 -> 7: about 1100 taps), sides shorter than
 * the taps, one axis up and the other down; on CPU devices also with every
 * row in one band (the row kernel's loop budget, and past it the separable
 * kernels). */
START_TEST(aa_factors)
{
    const int shapes[][4] = {{1921, 5, 7, 3}, {7, 1081, 2, 4}, {2, 3, 1, 1},
                             {5, 7, 3, 2},    {19, 6, 95, 2},  {1, 1, 1, 1},
                             {64, 64, 1, 1},  {9, 300, 4, 99}, {641, 479, 213, 160}};
    const int nshapes = h_small ? 6 : 9;
    clik_context *bands = strcmp(h_device, "none") == 0
                              ? NULL
                              : h_tuned_context("resize_cpu=1,resize_band_rows=1048576,poison=1");
    for (int s = 0; s < nshapes; s++)
        for (int ch = 1; ch <= 4; ch += 3)
            for (int t = 0; t < 2; t++) {
                const clik_type type = t ? CLIK_F32 : CLIK_U8;
                const int sw = shapes[s][0], sh = shapes[s][1], dw = shapes[s][2],
                          dh = shapes[s][3];
                clik_image src, got, want;
                ck_assert_int_eq(clik_image_alloc(&src, sw, sh, ch, type), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&got, dw, dh, ch, type), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&want, dw, dh, ch, type), CLIK_OK);
                sup_pattern_fill(&src, SUP_PATTERN_NOISE, 17);
                ck_assert_int_eq(clik_resize(h_oracle, &src, &want, CLIK_INTERP_BICUBIC_AA),
                                 CLIK_OK);
                for (int c = 0; c < (bands ? 2 : 1); c++) {
                    clik_context *ctx = c ? bands : h_ctx;
                    clik_status st = clik_resize(ctx, &src, &got, CLIK_INTERP_BICUBIC_AA);
                    ck_assert_msg(st == CLIK_OK, "%s: %s", clik_status_str(st),
                                  clik_context_message(ctx));
                    sup_compare cmp;
                    sup_compare_images(&got, &want, t ? SUP_TOL_F32 : SUP_TOL_U8_FLOAT, &cmp);
                    ck_assert_msg(cmp.pass, "%dx%d to %dx%d %d ch %s%s on %s: %s", sw, sh, dw, dh,
                                  ch, t ? "f32" : "u8", c ? " in one band" : "", h_backend,
                                  cmp.detail);
                }
                h_free_images(&src, &got, &want, NULL);
            }
    if (bands)
        h_tuned_context_free(bands);
}
END_TEST

START_TEST(sizes)
{
    int w = -1, h = -1;
    ck_assert_int_eq(clik_resize_size(640, 480, 2.0, 0.5, &w, &h), CLIK_OK);
    ck_assert_int_eq(w, 1280);
    ck_assert_int_eq(h, 240);
    /* Rounded to nearest, halves to even (OpenCV's cvRound): 320.5 -> 320,
     * 321.5 -> 322; 7 * 0.45 = 3.15 -> 3. */
    ck_assert_int_eq(clik_resize_size(641, 643, 0.5, 0.5, &w, &h), CLIK_OK);
    ck_assert_int_eq(w, 320);
    ck_assert_int_eq(h, 322);
    ck_assert_int_eq(clik_resize_size(7, 1, 0.45, 1.0, &w, &h), CLIK_OK);
    ck_assert_int_eq(w, 3);
    ck_assert_int_eq(h, 1);
    ck_assert_int_eq(clik_resize_size(1, 1, 1.0, 1.0, &w, &h), CLIK_OK);
    ck_assert_int_eq(w, 1);
    /* Bad scales leave the outputs alone. */
    w = h = -7;
    ck_assert_int_eq(clik_resize_size(10, 10, 0.0, 1.0, &w, &h), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_size(10, 10, 1.0, -2.0, &w, &h), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_size(10, 10, NAN, 1.0, &w, &h), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_size(10, 10, 1.0, INFINITY, &w, &h), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_size(10, 10, -INFINITY, 1.0, &w, &h), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(w, -7);
    ck_assert_int_eq(h, -7);
    ck_assert_int_eq(clik_resize_size(10, 10, 1.0, 1.0, NULL, &h), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_resize_size(10, 10, 1.0, 1.0, &w, NULL), CLIK_ERR_NULL);
    /* Input sides, output sides of 0 or past 2^20. */
    ck_assert_int_eq(clik_resize_size(0, 10, 1.0, 1.0, &w, &h), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_size(10, -3, 1.0, 1.0, &w, &h), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_size(10, 10, 0.04, 1.0, &w, &h), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_size(1000, 10, 2000.0, 1.0, &w, &h), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_size(1, 10, 1048576.0, 1.0, &w, &h), CLIK_OK);
    ck_assert_int_eq(clik_resize_size(1, 10, 1048577.0, 1.0, &w, &h), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_size(10, 10, 1e300, 1.0, &w, &h), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_size(10, 10, 1.0, 1e-300, &w, &h), CLIK_ERR_INVALID_SIZE);
    /* 2^20 x 2^20 pixels: a size_t of 64 bits holds the count, 32 do not. */
    ck_assert_int_eq(clik_resize_size(1 << 19, 1 << 19, 2.0, 2.0, &w, &h),
                     sizeof(size_t) >= 8 ? CLIK_OK : CLIK_ERR_OVERFLOW);
    ck_assert_str_eq(clik_interp_name(CLIK_INTERP_NEAREST), "nearest");
    ck_assert_str_eq(clik_interp_name(CLIK_INTERP_BILINEAR), "bilinear");
    ck_assert_str_eq(clik_interp_name(CLIK_INTERP_BICUBIC), "bicubic");
    ck_assert_str_eq(clik_interp_name(CLIK_INTERP_BICUBIC_AA), "bicubic-aa");
    ck_assert_str_eq(clik_interp_name((clik_interp)9), "unknown");
}
END_TEST

/*
 * An 11 x 10 ramp, src(x, y) = 10 x, scaled by 0.3 (clik_resize_scaled):
 * 3 x 3 outputs, source x = (x + 0.5) / 0.3 - 0.5 = 7/6, 4.5, 47/6 (the
 * size ratio 11/3 would give 4/3, 5, 26/3: 13 50 87).
 *  nearest: floor(x / 0.3) = 0, 3, 6: 0 30 60.
 *  bilinear: t = 1/6, 1/2, 5/6, weights in steps of 1/2048 (341/2048,
 *    1024/2048, 1707/2048): 10 + 10 * 341/2048 = 11.67 -> 12, 45,
 *    70 + 10 * 1707/2048 = 78.33 -> 78.
 * Rows alike (every row the same ramp). A dst of another size is refused.
 */
START_TEST(scaled_hand_worked)
{
    static const uint8_t want[2][3] = {{0, 30, 60}, {12, 45, 78}};
    uint8_t ramp[11 * 10], out[4 * 3]; /* room for the refused 4 x 3 view below */
    for (int i = 0; i < 11 * 10; i++)
        ramp[i] = (uint8_t)(10 * (i % 11));
    clik_image a = wrap(11, 10, 1, CLIK_U8, ramp), b = wrap(3, 3, 1, CLIK_U8, out);
    for (int m = 0; m < 2; m++) {
        clik_status st = clik_resize_scaled(h_ctx, &a, &b, (clik_interp)m, 0.3, 0.3);
        ck_assert_msg(st == CLIK_OK, "%s on %s: %s", clik_interp_name((clik_interp)m), h_backend,
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        for (int i = 0; i < 9; i++)
            ck_assert_msg(out[i] == want[m][i % 3], "%s (%d, %d): %d, want %d on %s",
                          clik_interp_name((clik_interp)m), i % 3, i / 3, out[i], want[m][i % 3],
                          h_backend);
    }
    clik_image c = wrap(4, 3, 1, CLIK_U8, out);
    ck_assert_int_eq(clik_resize_scaled(h_ctx, &a, &c, CLIK_INTERP_NEAREST, 0.3, 0.3),
                     CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_resize_scaled(h_ctx, &a, &b, CLIK_INTERP_NEAREST, NAN, 0.3),
                     CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_scaled(h_ctx, &a, &b, CLIK_INTERP_NEAREST, 0.3, -1.0),
                     CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_scaled(h_ctx, &a, &b, (clik_interp)4, 0.3, 0.3),
                     CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize_scaled(NULL, &a, &b, CLIK_INTERP_NEAREST, 0.3, 0.3),
                     CLIK_ERR_NULL);
    ck_assert_int_eq(clik_resize_scaled(h_ctx, &a, NULL, CLIK_INTERP_NEAREST, 0.3, 0.3),
                     CLIK_ERR_NULL);
}
END_TEST

/* 3-channel images (through 4-channel copies) give what 4 channels give. */
START_TEST(three_channels)
{
    h_check_family_three_channels("resize");
}
END_TEST

/*
 * A stream of resizes on one context: shapes, methods, types and scales
 * change, come back after being pushed out of the context's kept
 * geometries (four), and share sizes under different methods or scales;
 * every result is the oracle's (a geometry kept under a key that misses
 * one of these gives another shape's or method's table).
 */
START_TEST(kept_geometries)
{
    static const struct {
        int sw, sh, dw, dh, m, f32;
        double scale; /* 0: to the size */
    } steps[] = {{64, 48, 128, 96, 1, 0, 0}, {64, 48, 128, 96, 2, 0, 0}, {64, 48, 128, 96, 2, 1, 0},
                 {64, 48, 128, 96, 0, 0, 0}, {64, 48, 21, 16, 3, 0, 0},  {33, 17, 10, 5, 1, 0, 0.3},
                 {33, 17, 10, 5, 1, 0, 0},   {64, 48, 128, 96, 1, 0, 0}, {64, 48, 128, 96, 2, 0, 0},
                 {33, 17, 10, 5, 2, 0, 0.3}, {48, 64, 96, 128, 1, 0, 0}, {64, 48, 21, 16, 3, 0, 0}};
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
            const clik_type t = steps[i].f32 ? CLIK_F32 : CLIK_U8;
            const clik_interp m = (clik_interp)steps[i].m;
            clik_image src, got, want;
            ck_assert_int_eq(clik_image_alloc(&src, steps[i].sw, steps[i].sh, 1, t), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&got, steps[i].dw, steps[i].dh, 1, t), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&want, steps[i].dw, steps[i].dh, 1, t), CLIK_OK);
            sup_pattern_fill(&src, SUP_PATTERN_NOISE, 40 + i);
            const double sc = steps[i].scale;
            clik_status st = sc > 0 ? clik_resize_scaled(h_oracle, &src, &want, m, sc, sc)
                                    : clik_resize(h_oracle, &src, &want, m);
            ck_assert_int_eq(st, CLIK_OK);
            st = sc > 0 ? clik_resize_scaled(h_ctx, &src, &got, m, sc, sc)
                        : clik_resize(h_ctx, &src, &got, m);
            ck_assert_msg(st == CLIK_OK, "%s", clik_context_message(h_ctx));
            sup_compare cmp;
            sup_compare_images(&got, &want,
                               m == CLIK_INTERP_NEAREST ? SUP_TOL_EXACT
                               : t == CLIK_F32          ? SUP_TOL_F32
                                                        : SUP_TOL_U8_FLOAT,
                               &cmp);
            ck_assert_msg(cmp.pass, "step %zu of round %d (%dx%d to %dx%d, %s%s) on %s: %.300s", i,
                          round, steps[i].sw, steps[i].sh, steps[i].dw, steps[i].dh,
                          clik_interp_name(m), sc > 0 ? ", scaled" : "", h_backend, cmp.detail);
            h_free_images(&src, &got, &want, NULL);
        }
}
END_TEST

START_TEST(bad_input)
{
    static uint8_t buf[8192];
    static float fbuf[1024];
    memset(buf, 0x5a, sizeof(buf));
    clik_image src = wrap(8, 6, 1, CLIK_U8, buf), dst = wrap(16, 12, 1, CLIK_U8, buf + 4096);
    ck_assert_int_eq(clik_resize(NULL, &src, &dst, CLIK_INTERP_BICUBIC), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_resize(h_ctx, NULL, &dst, CLIK_INTERP_BICUBIC), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_resize(h_ctx, &src, NULL, CLIK_INTERP_BICUBIC), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &dst, (clik_interp)4), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &dst, (clik_interp)-1), CLIK_ERR_INVALID_ARG);
    /* Mismatched channels and types. */
    clik_image rgba = wrap(16, 12, 4, CLIK_U8, buf + 4096);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &rgba, CLIK_INTERP_NEAREST),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image f = wrap(16, 12, 1, CLIK_F32, fbuf);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &f, CLIK_INTERP_BILINEAR),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    /* Unsupported types; 2 channels (NV12's chroma) are taken, but not
     * with a dst of another channel count. */
    clik_image u16 = wrap(4, 3, 1, CLIK_U16, buf), two = wrap(4, 3, 2, CLIK_U8, buf);
    clik_image u16d = wrap(8, 6, 1, CLIK_U16, buf + 4096),
               twod = wrap(8, 6, 2, CLIK_U8, buf + 4096),
               threed = wrap(8, 6, 3, CLIK_U8, buf + 4096);
    ck_assert_int_eq(clik_resize(h_ctx, &u16, &u16d, CLIK_INTERP_NEAREST),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_resize(h_ctx, &two, &twod, CLIK_INTERP_NEAREST), CLIK_OK);
    ck_assert_int_eq(clik_resize(h_ctx, &two, &threed, CLIK_INTERP_NEAREST),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    /* Overlap: dst inside src's memory, or src itself; nothing written. */
    clik_image inside = wrap(4, 3, 1, CLIK_U8, buf + 5);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &inside, CLIK_INTERP_NEAREST), CLIK_ERR_INVALID_ARG);
    ck_assert_str_ne(clik_context_message(h_ctx), "");
    ck_assert_int_eq(clik_resize(h_ctx, &src, &src, CLIK_INTERP_BILINEAR), CLIK_ERR_INVALID_ARG);
    for (int i = 0; i < 8 * 6; i++)
        ck_assert_int_eq(buf[i], 0x5a);
    /* A broken image description. */
    clik_image bad = src;
    bad.width = 0;
    ck_assert_int_eq(clik_resize(h_ctx, &bad, &dst, CLIK_INTERP_NEAREST), CLIK_ERR_INVALID_SIZE);
    bad = dst;
    bad.stride = 3;
    ck_assert_int_eq(clik_resize(h_ctx, &src, &bad, CLIK_INTERP_NEAREST), CLIK_ERR_STRIDE);
    bad = dst;
    bad.data = NULL;
    ck_assert_int_eq(clik_resize(h_ctx, &src, &bad, CLIK_INTERP_NEAREST), CLIK_ERR_NULL);
    /* Nothing written on bad input, bicubic-aa too. */
    ck_assert_int_eq(clik_resize(h_ctx, &src, &rgba, CLIK_INTERP_BICUBIC_AA),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &f, CLIK_INTERP_BICUBIC_AA),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &inside, CLIK_INTERP_BICUBIC_AA),
                     CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_resize(h_ctx, &src, &src, CLIK_INTERP_BICUBIC_AA), CLIK_ERR_INVALID_ARG);
    for (int i = 0; i < 8 * 6; i++)
        ck_assert_int_eq(buf[i], 0x5a);
    /* The context still works. */
    for (int m = 0; m < 4; m++)
        resize_ok(&src, &dst, (clik_interp)m);
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each kernel family forced, with
     * poisoned scratch: the GPU kernels (integer nearest, tiles in local
     * memory wherever they fit, also for x2), the generic GPU ones (table
     * nearest, no local memory, the block kernel for x2), and the CPU-device
     * row kernels: with the integer
     * nearest and the period-2 rows for every x2, without them (the
     * generic rows kernel for every x2), and without the period-2 rows
     * only (the integer rows for u8 bilinear x2). Tile sizes and bands are
     * swept by test_tuning. */
    static const char *const tunings[] = {
        "",
        "resize_cpu=0,resize_fast_nearest=1,resize_local=1,resize_p2_block=0,poison=1",
        "resize_cpu=0,resize_fast_nearest=0,resize_local=0,poison=1",
        "resize_cpu=1,resize_fast_nearest=1,poison=1",
        "resize_cpu=1,resize_fast_nearest=0,resize_up2=0,resize_period2=0,poison=1",
        "resize_cpu=1,resize_period2=0,poison=1",
        NULL};
    const h_test tests[] = {
        H_TEST(hand_worked),    H_TEST(nearest_offsets), H_TEST(thin_images),
        H_TEST(strided_images), H_TEST(large_factors),   H_TEST(device_images),
        H_TEST(long_bands),     H_TEST(period2_x2),      H_TEST(aa_hand_worked),
        H_TEST(aa_factors),     H_TEST(sizes),           H_TEST(scaled_hand_worked),
        H_TEST(three_channels), H_TEST(kept_geometries), H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"resize", "resize", 0, tests, H_COUNT(tests), tunings, NULL});
}

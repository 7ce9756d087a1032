/* Integral family on every backend against the scalar oracle. SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

/* [[1 2] [3 4]] by hand, sums and sums of squares. */
START_TEST(hand_worked)
{
    uint8_t px[4] = {1, 2, 3, 4};
    uint32_t sum[9];
    uint64_t sq[9];
    clik_image src, s, q;
    ck_assert_int_eq(clik_image_wrap(&src, 2, 2, 1, CLIK_U8, px, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&s, 3, 3, 1, CLIK_U32, sum, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&q, 3, 3, 1, CLIK_U64, sq, 0), CLIK_OK);
    ck_assert_msg(clik_integral(h_ctx, &src, &s, &q) == CLIK_OK, "%s", clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    const uint32_t want[9] = {0, 0, 0, 0, 1, 3, 0, 4, 10};
    const uint64_t want_sq[9] = {0, 0, 0, 0, 1, 5, 0, 10, 30};
    ck_assert_mem_eq(sum, want, sizeof(want));
    ck_assert_mem_eq(sq, want_sq, sizeof(want_sq));
}
END_TEST

/* The largest u8 sums: every pixel 255, and the padding of the outputs
 * stays untouched. */
START_TEST(saturated_and_padded)
{
    const int w = 301, h = 77;
    uint8_t *px = malloc((size_t)w * h);
    const size_t stride = (size_t)(w + 1) * 4 + 20;
    uint8_t *out = malloc(stride * (size_t)(h + 1));
    ck_assert_ptr_nonnull(px);
    ck_assert_ptr_nonnull(out);
    memset(px, 255, (size_t)w * h);
    memset(out, 0xa5, stride * (size_t)(h + 1));
    clik_image src, sum;
    ck_assert_int_eq(clik_image_wrap(&src, w, h, 1, CLIK_U8, px, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&sum, w + 1, h + 1, 1, CLIK_U32, out, stride), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &sum, NULL), CLIK_OK);
    for (int y = 0; y <= h; y++) {
        const uint32_t *row = (const uint32_t *)(out + (size_t)y * stride);
        for (int x = 0; x <= w; x++)
            ck_assert_uint_eq(row[x], 255u * (uint32_t)x * (uint32_t)y);
        for (size_t b = (size_t)(w + 1) * 4; b < stride; b++)
            ck_assert_int_eq(out[(size_t)y * stride + b], 0xa5);
    }
    free(px);
    free(out);
}
END_TEST

/* 1 x N and N x 1 images. */
START_TEST(thin_images)
{
    h_check_family_thin("integral", 4097, 2000, 1, 5);
}
END_TEST

/* Device images in and out. */
START_TEST(device_images)
{
    /* Oclgrind (h_small) simulates every work-item: rows of a few
     * work-groups there. */
    const int w = h_small ? 301 : 641, h = h_small ? 23 : 479;
    clik_image host, src, dev_sum, dev_sq, got, want, got_sq, want_sq;
    ck_assert_int_eq(clik_image_alloc(&host, w, h, 4, CLIK_U8), CLIK_OK);
    sup_pattern_fill(&host, SUP_PATTERN_NOISE, 4);
    ck_assert_int_eq(clik_image_create(h_ctx, &src, w, h, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_upload(h_ctx, &src, &host), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &dev_sum, w + 1, h + 1, 4, CLIK_U32), CLIK_OK);
    ck_assert_int_eq(clik_image_create(h_ctx, &dev_sq, w + 1, h + 1, 4, CLIK_U64), CLIK_OK);
    ck_assert_msg(clik_integral(h_ctx, &src, &dev_sum, &dev_sq) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    h_alloc_images(w + 1, h + 1, 4, CLIK_U32, &got, &want, NULL);
    h_alloc_images(w + 1, h + 1, 4, CLIK_U64, &got_sq, &want_sq, NULL);
    ck_assert_int_eq(clik_image_download(h_ctx, &got, &dev_sum), CLIK_OK);
    ck_assert_int_eq(clik_image_download(h_ctx, &got_sq, &dev_sq), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_oracle, &host, &want, &want_sq), CLIK_OK);
    ck_assert_mem_eq(got.data, want.data, got.stride * (size_t)got.height);
    ck_assert_mem_eq(got_sq.data, want_sq.data, got_sq.stride * (size_t)got_sq.height);
    h_free_images(&host, &src, &dev_sum, &dev_sq, &got, &want, &got_sq, &want_sq, NULL);
}
END_TEST

/* ---- f64 results from f32 sources --------------------------------------------------- */

/* Device doubles give f64 sums within a few ulps of the oracle's; the
 * float-float sums of devices without them (and of integral_fp64=0) carry
 * about 48 bits: within 2^-30 relative, where float sums would be off by
 * 1e-7 and more. */
#define F64_FROM_F32_TOL 1e-9

typedef struct f64_sums {
    clik_image sum, sq;
} f64_sums;

static clik_status f64_integral(clik_context *ctx, const clik_image *src, clik_type sum_type,
                                f64_sums *out)
{
    memset(out, 0, sizeof(*out));
    clik_status st =
        clik_image_alloc(&out->sum, src->width + 1, src->height + 1, src->channels, sum_type);
    if (st == CLIK_OK)
        st = clik_image_alloc(&out->sq, src->width + 1, src->height + 1, src->channels, CLIK_F64);
    if (st == CLIK_OK)
        st = clik_integral(ctx, src, &out->sum, &out->sq);
    return st;
}

static void f64_sums_free(f64_sums *s)
{
    clik_image_free(&s->sum);
    clik_image_free(&s->sq);
}

static double element(const clik_image *img, size_t i)
{
    return img->type == CLIK_F32 ? ((const float *)img->data)[i] : ((const double *)img->data)[i];
}

/* Largest |got - want| / max(1, |want|) over the packed images. */
static double max_relative_error(const clik_image *got, const clik_image *want)
{
    const size_t n = (size_t)want->width * want->height * want->channels;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double g = element(got, i), w = element(want, i);
        const double e = fabs(g - w) / fmax(1.0, fabs(w));
        if (!(e <= worst)) /* NaN included */
            worst = e;
    }
    return worst;
}

/* Patterns in [0, 255], or shifted to [-127.5, 127.5] (cancelling sums). */
static void fill_f32(clik_image *img, int pattern, int is_signed, uint64_t seed)
{
    sup_pattern_fill(img, (sup_pattern)pattern, seed);
    if (is_signed) {
        float *px = img->data;
        for (size_t i = 0; i < (size_t)img->width * img->height * img->channels; i++)
            px[i] -= 127.5f;
    }
}

/* f32 pixels, f64 sums of squares with f64 or f32 sums, against the
 * oracle's double sums, at every size and channel count: one pattern each
 * (the f32 case of matches_oracle has them all), as it is and shifted to
 * cancelling signs. */
START_TEST(f32_double_sums)
{
    for (int s = 0; s < h_size_count(); s++)
        for (int ch = 1; ch <= 4; ch *= 2)
            for (int is_signed = 0; is_signed <= 1; is_signed++) {
                /* Oclgrind and memcheck (h_small) look for races and bad
                 * accesses, not precision: one sign per size in turn. */
                if (h_small && !h_full && is_signed != (s + ch) % 2)
                    continue;
                const int w = sup_test_sizes[s][0], h = sup_test_sizes[s][1];
                const int p = (ch + s + is_signed) % h_patterns;
                clik_image src;
                ck_assert_int_eq(clik_image_alloc(&src, w, h, ch, CLIK_F32), CLIK_OK);
                fill_f32(&src, p, is_signed, 77u + (uint64_t)s);
                for (int t = 0; t < 2; t++) {
                    const clik_type sum_type = t ? CLIK_F32 : CLIK_F64;
                    f64_sums got, want;
                    clik_status st = f64_integral(h_ctx, &src, sum_type, &got);
                    ck_assert_msg(st == CLIK_OK, "%dx%dx%d on %s: %s", w, h, ch, h_backend,
                                  clik_context_message(h_ctx));
                    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
                    ck_assert_int_eq(f64_integral(h_oracle, &src, sum_type, &want), CLIK_OK);
                    const double e_sum = max_relative_error(&got.sum, &want.sum);
                    const double e_sq = max_relative_error(&got.sq, &want.sq);
                    const double tol_sum = t ? 1e-4 : F64_FROM_F32_TOL;
                    ck_assert_msg(e_sum <= tol_sum && e_sq <= F64_FROM_F32_TOL,
                                  "%s sums of %dx%dx%d %s%s on %s: relative error %.3g, "
                                  "squares %.3g",
                                  clik_type_name(sum_type), w, h, ch, sup_pattern_name(p),
                                  is_signed ? " (signed)" : "", h_backend, e_sum, e_sq);
                    f64_sums_free(&got);
                    f64_sums_free(&want);
                }
                clik_image_free(&src);
            }
}
END_TEST

/* The largest test size this run takes. */
static void largest_size(int *w, int *h)
{
    *w = sup_test_sizes[h_size_count() - 1][0];
    *h = sup_test_sizes[h_size_count() - 1][1];
}

/* f32 pixels on a grid of 1/16 in [-64, 16): every sum and every sum of
 * squares is exact in 48 bits and in double, so whichever way the device
 * adds, its f64 results are the oracle's bit for bit: the conversion of
 * float-float pairs to binary64 is checked exactly, both signs. */
START_TEST(f32_double_sums_exact)
{
    int w, h;
    largest_size(&w, &h);
    for (int ch = 1; ch <= 4; ch *= 2) {
        clik_image src;
        ck_assert_int_eq(clik_image_alloc(&src, w, h, ch, CLIK_F32), CLIK_OK);
        uint64_t state = 91u + (uint64_t)ch;
        float *px = src.data;
        for (size_t i = 0; i < (size_t)w * h * ch; i++) {
            const uint64_t r = sup_rand_next(&state);
            px[i] = (float)(r & 255) / 16.0f - ((r >> 8) & 1 ? 64.0f : 0.0f);
        }
        f64_sums got, want;
        ck_assert_msg(f64_integral(h_ctx, &src, CLIK_F64, &got) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        ck_assert_int_eq(f64_integral(h_oracle, &src, CLIK_F64, &want), CLIK_OK);
        sup_compare cmp;
        sup_compare_images(&got.sum, &want.sum, SUP_TOL_EXACT, &cmp);
        ck_assert_msg(cmp.pass, "sums, %d channels, on %s: %s", ch, h_backend, cmp.detail);
        sup_compare_images(&got.sq, &want.sq, SUP_TOL_EXACT, &cmp);
        ck_assert_msg(cmp.pass, "squares, %d channels, on %s: %s", ch, h_backend, cmp.detail);
        f64_sums_free(&got);
        f64_sums_free(&want);
        clik_image_free(&src);
    }
}
END_TEST

/* u8 pixels all 255: f64 sums 255 x y and squares 65025 x y, exact past
 * 2^32 (the squares reach 1.35e11 at 1921 x 1081). */
START_TEST(u8_double_sums_saturated)
{
    int w, h;
    largest_size(&w, &h);
    clik_image src;
    ck_assert_int_eq(clik_image_alloc(&src, w, h, 1, CLIK_U8), CLIK_OK);
    memset(src.data, 255, (size_t)w * h);
    f64_sums got;
    ck_assert_msg(f64_integral(h_ctx, &src, CLIK_F64, &got) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    for (int y = 0; y <= h; y++)
        for (int x = 0; x <= w; x++) {
            const size_t i = (size_t)y * (w + 1) + x;
            const double n = (double)x * y;
            ck_assert_msg(((const double *)got.sum.data)[i] == 255.0 * n &&
                              ((const double *)got.sq.data)[i] == 65025.0 * n,
                          "(%d, %d) on %s: %.17g, %.17g", x, y, h_backend,
                          ((const double *)got.sum.data)[i], ((const double *)got.sq.data)[i]);
        }
    f64_sums_free(&got);
    clik_image_free(&src);
}
END_TEST

/* s32 sums as OpenCV's CV_32S integral: modulo 2^32, two's complement.
 * 3000 x 2900 pixels of 255 sum to 2.22e9 at the corner, past 2^31 - 1:
 * every element is 255 x y modulo 2^32 read as int32 (negative from
 * 255 x y >= 2^31 on), where u32 sums would hold the same bits. */
START_TEST(s32_wraps)
{
    /* Simulators and memcheck (h_small) take the same kernel at a size that
     * does not wrap: 8.7 million simulated work-items took 6 minutes. */
    const int w = h_small ? 301 : 3000, h = h_small ? 23 : 2900;
    clik_image src, sum;
    ck_assert_int_eq(clik_image_alloc(&src, w, h, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&sum, w + 1, h + 1, 1, CLIK_S32), CLIK_OK);
    memset(src.data, 255, (size_t)w * h);
    ck_assert_msg(clik_integral(h_ctx, &src, &sum, NULL) == CLIK_OK, "%s",
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    long negatives = 0;
    for (int y = 0; y <= h; y++) {
        const int32_t *row = (const int32_t *)((const char *)sum.data + (size_t)y * sum.stride);
        for (int x = 0; x <= w; x++) {
            const int64_t exact = 255LL * x * y;
            const int64_t want = exact >= 2147483648LL ? exact - 4294967296LL : exact;
            negatives += want < 0;
            if (row[x] != want)
                ck_abort_msg("(%d, %d) on %s: %d, want %lld", x, y, h_backend, row[x],
                             (long long)want);
        }
    }
    if (!h_small)
        ck_assert_int_gt(negatives, 0);
    clik_image_free(&sum);
    clik_image_free(&src);
}
END_TEST

/* 3-channel images (through 4-channel copies) give what 4 channels give:
 * u32, u64 squares, f64 and f32 sums. */
START_TEST(three_channels)
{
    h_check_family_three_channels("integral");
}
END_TEST

START_TEST(bad_input)
{
    static uint8_t buf[8192];
    clik_image src, sum, sq, img;
    ck_assert_int_eq(clik_image_wrap(&src, 8, 6, 1, CLIK_U8, buf, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&sum, 9, 7, 1, CLIK_U32, buf + 1024, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&sq, 9, 7, 1, CLIK_U64, buf + 2048, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(NULL, &src, &sum, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_integral(h_ctx, NULL, &sum, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_integral(h_ctx, &src, NULL, &sq), CLIK_ERR_NULL);
    /* Outputs too small, of the wrong type or channel count. */
    ck_assert_int_eq(clik_image_wrap(&img, 8, 6, 1, CLIK_U32, buf + 1024, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &img, NULL), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_image_wrap(&img, 9, 7, 1, CLIK_U16, buf + 1024, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &img, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_image_wrap(&img, 9, 7, 1, CLIK_F32, buf + 1024, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &img, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_image_wrap(&img, 9, 7, 2, CLIK_U32, buf + 1024, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &img, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_image_wrap(&img, 9, 7, 1, CLIK_U32, buf + 3000, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &sum, &img), CLIK_ERR_UNSUPPORTED_FORMAT);
    /* Overlaps: sum over the source, sqsum over sum. */
    ck_assert_int_eq(clik_image_wrap(&img, 9, 7, 1, CLIK_U32, buf + 4, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &img, NULL), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_image_wrap(&img, 9, 7, 1, CLIK_U64, buf + 1030, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &sum, &img), CLIK_ERR_INVALID_ARG);
    /* 255 * W * H past 2^32 - 1 with u32 sums: refused before any pixel is
     * read (65536 x 258; the images only describe memory never touched). */
    clik_image huge, huge_sum;
    ck_assert_int_eq(clik_image_wrap(&huge, 65536, 258, 1, CLIK_U8, buf, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&huge_sum, 65537, 259, 1, CLIK_U32, buf, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &huge, &huge_sum, NULL), CLIK_ERR_OVERFLOW);
    ck_assert_ptr_nonnull(strstr(clik_context_message(h_ctx), "u64"));
    /* s32 sums (which wrap, as OpenCV's) of the wrong size are refused too. */
    ck_assert_int_eq(clik_image_wrap(&img, 8, 7, 1, CLIK_S32, buf + 1024, 0), CLIK_OK);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &img, &sq), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_integral(h_ctx, &src, &sum, &sq), CLIK_OK);
}
END_TEST

int main(void)
{
    /* The work-group kernels and the serial ones on every device, with odd
     * strip heights and group sizes, scratch poisoned; the one-pass
     * look-back kernel on every device where it can run (not llvmpipe:
     * the plan keeps the three kernels there); and both kinds with
     * results made without device doubles, as on devices that lack
     * cl_khr_fp64 (integral_fp64=0: on CPU devices the serial kernels, in
     * 16-byte steps for u8 and one pixel a step for f32). CI runs the
     * work-group kernels beside the device's default, in groups of 32 that
     * stage one pixel of each work-item's at a time (PoCL compiles each
     * forced program for minutes; rusticl, which has no doubles, runs the
     * kernels without them); full runs (CLIK_TEST_FULL=1) every list
     * entry: the look-back kernel, serial kernels with long strips,
     * without vectors and without doubles too. */
    static const char *const short_list[] = {
        "", "integral_serial=0,integral_ls=32,integral_chunk=1,poison=1", NULL};
    static const char *const full_list[] = {
        "",
        "integral_serial=0,poison=1",
        "integral_serial=0,integral_lookback=1,integral_rows=3,poison=1",
        "integral_serial=0,integral_lookback=1,integral_ls=32,integral_rows=1,poison=1",
        "integral_serial=0,integral_ls=32,integral_rows=3,poison=1",
        "integral_serial=0,integral_stage=0,poison=1",
        "integral_serial=0,integral_ls=32,integral_chunk=1,poison=1",
        "integral_serial=0,integral_chunk=4,poison=1",
        "integral_serial=1,integral_rows=300,poison=1",
        "integral_serial=1,integral_vec=0,poison=1",
        "integral_fp64=0,poison=1",
        "integral_fp64=0,integral_serial=0,integral_ls=32,integral_rows=3,poison=1",
        NULL};
    const h_test tests[] = {H_TEST(thin_images),           H_TEST(f32_double_sums),
                            H_TEST(f32_double_sums_exact), H_TEST(u8_double_sums_saturated),
                            H_TEST_ALL(hand_worked),       H_TEST_ALL(saturated_and_padded),
                            H_TEST_ALL(device_images),     H_TEST(s32_wraps),
                            H_TEST(three_channels),        H_TEST_ALL(bad_input)};
    return h_suite_main(
        &(h_suite){"integral", "integral", 0, tests, H_COUNT(tests), short_list, full_list});
}

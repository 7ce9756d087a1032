/*
 * Sizes past 2^31 elements: one test per family (CLIK_TEST_LARGE=FAMILY picks
 * it), on the backend of CLIK_TEST_BACKEND, as tests/meson.build's large-*
 * tests run them (tests/run.sh --full; the NVIDIA run of
 * benchmarks/run-device.sh).
 *
 * Each test gives its operation an image or a buffer of more than 2^31
 * elements whose rows differ along the whole image, so that an offset that
 * wraps at 32 bits reads or writes the wrong rows. It then checks the
 * output rows at both ends (those past 2^31 elements included) against the
 * scalar oracle run on a crop of the input that holds them, or against a
 * result the test computes itself. On an OpenCL device the operation must
 * run there when every buffer it needs fits the device's largest
 * allocation; where one does not, it may instead be refused with
 * CLIK_ERR_DEVICE_LIMITS and a message (strict contexts: CLIK_ERR_FALLBACK
 * with that cause).
 *
 * A test whose memory this machine cannot hold (MemAvailable), or that the
 * device class cannot run in reasonable time, exits 77 (SKIP) with the
 * reason.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "harness.h"

#define GIB ((double)(1u << 30))

/* 46341^2 = 2^31 + 4633: the smallest square grey image past 2^31 elements. */
enum { SIDE = 46341 };

static const char *family;

/* ---- inputs ------------------------------------------------------------------ */

/* Element i of row y of a texture that changes along both axes and between
 * the halves of an image of h rows, cheap to make at gigabytes. */
static inline uint8_t texel(uint32_t i, int y, int h, uint32_t seed)
{
    const uint32_t k = (uint32_t)y * 2654435761u ^ seed, half = y >= h / 2 ? 97u : 0u;
    return (uint8_t)(i * 7u + (k >> 24) + half + (i * k >> 29));
}

static void fill_u8(clik_image *img, uint32_t seed)
{
    const int n = img->width * img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
        for (int i = 0; i < n; i++)
            row[i] = texel((uint32_t)i, y, img->height, seed);
    }
}

static clik_image host_u8(int w, int h, int ch)
{
    clik_image img;
    ck_assert_int_eq(clik_image_alloc(&img, w, h, ch, CLIK_U8), CLIK_OK);
    return img;
}

/* Rows [y0, y1) of img as a view. */
static clik_image rows_of(const clik_image *img, int y0, int y1)
{
    clik_image v;
    ck_assert_int_eq(clik_image_wrap(&v, img->width, y1 - y0, img->channels, img->type,
                                     (uint8_t *)img->data + (size_t)y0 * img->stride, img->stride),
                     CLIK_OK);
    return v;
}

/* ---- outcomes ---------------------------------------------------------------- */

static uint64_t max_alloc(void)
{
    const clik_device_info *d = clik_context_device(h_ctx);
    return h_expected == CLIK_BACKEND_OPENCL && d ? d->max_alloc_size : UINT64_MAX;
}

/* Status st of an operation whose largest buffer takes `largest` bytes: 1
 * when it ran where it should (the caller then checks the output), 0 when
 * it was refused as the device's limit allows; anything else fails. */
static int ran(clik_status st, double largest, const char *what)
{
    if (st == CLIK_OK) {
        ck_assert_msg(clik_context_last_backend(h_ctx) == h_expected, "%s ran on %s, not %s", what,
                      clik_backend_name(clik_context_last_backend(h_ctx)),
                      clik_backend_name(h_expected));
        printf("%s on %s: ran\n", what, h_backend);
        return 1;
    }
    const char *msg = clik_context_message(h_ctx);
    ck_assert_msg(h_expected == CLIK_BACKEND_OPENCL && largest > (double)max_alloc(),
                  "%s on %s: %s (its largest buffer, %.2f GiB, fits the %.2f GiB the device "
                  "allocates)",
                  what, h_backend, msg, largest / GIB, (double)max_alloc() / GIB);
    ck_assert_msg(st == CLIK_ERR_FALLBACK &&
                      clik_context_fallback_cause(h_ctx) == CLIK_ERR_DEVICE_LIMITS && *msg,
                  "%s on %s: %s, where a refusal for the device's limits was expected", what,
                  h_backend, msg);
    printf("%s on %s: refused (%s)\n", what, h_backend, msg);
    return 0;
}

/* Rows [y0, y1) of got against rows [y0 - off, y1 - off) of want, under the
 * family's tolerance. */
static void same_rows(const clik_image *got, const clik_image *want, int off, int y0, int y1,
                      sup_tolerance tol, const char *what)
{
    ck_assert_msg(y0 >= off && y0 < y1 && y1 - off <= want->height && y1 <= got->height,
                  "%s: rows %d..%d of %d against %d of %d", what, y0, y1, got->height, off,
                  want->height);
    clik_image g = rows_of(got, y0, y1), w = rows_of(want, y0 - off, y1 - off);
    sup_compare cmp;
    sup_compare_images(&g, &w, tol, &cmp);
    ck_assert_msg(cmp.pass, "%s on %s, rows %d..%d of %d: %s", what, h_backend, y0, y1, got->height,
                  cmp.detail);
}

/* An operation of one source and one destination, as the oracle runs it. */
typedef clik_status (*op_fn)(clik_context *ctx, const clik_image *src, clik_image *dst,
                             const void *arg);

/* The oracle on source rows [s0, s1), whose output is rows [d0, d1) of the
 * full output, compared with out's rows there, less `margin` rows at each
 * edge of the crop that is not an edge of the image. */
static void check_band(op_fn op, const void *arg, const clik_image *src, const clik_image *out,
                       int s0, int s1, int d0, int d1, int margin, sup_tolerance tol,
                       const char *what)
{
    clik_image in = rows_of(src, s0, s1);
    clik_image want;
    ck_assert_int_eq(clik_image_alloc(&want, out->width, d1 - d0, out->channels, out->type),
                     CLIK_OK);
    ck_assert_msg(op(h_oracle, &in, &want, arg) == CLIK_OK, "oracle: %s",
                  clik_context_message(h_oracle));
    const int first = s0 == 0 ? d0 : d0 + margin, last = s1 == src->height ? d1 : d1 - margin;
    same_rows(out, &want, d0, first, last, tol, what);
    clik_image_free(&want);
}

/* ---- per family -------------------------------------------------------------- */

static clik_status do_pyr_down(clik_context *c, const clik_image *s, clik_image *d, const void *a)
{
    (void)a;
    return clik_pyr_down(c, s, d);
}

static clik_status do_pyr_up(clik_context *c, const clik_image *s, clik_image *d, const void *a)
{
    (void)a;
    return clik_pyr_up(c, s, d);
}

static clik_status do_resize(clik_context *c, const clik_image *s, clik_image *d, const void *a)
{
    return clik_resize(c, s, d, *(const clik_interp *)a);
}

static clik_status do_blur(clik_context *c, const clik_image *s, clik_image *d, const void *a)
{
    (void)a;
    return clik_gaussian_blur(c, s, d, 7, 0.0);
}

static clik_status do_fusion(clik_context *c, const clik_image *s, clik_image *d, const void *a)
{
    (void)a;
    return clik_upscale_fusion(c, s, d, NULL, NULL);
}

static clik_status do_gray(clik_context *c, const clik_image *s, clik_image *d, const void *a)
{
    (void)a;
    return clik_gray(c, s, d);
}

/* hist and LUT: a grey image of 2^31 + 4633 pixels; the histogram against
 * one the test counts, the table applied in place checked at every pixel. */
START_TEST(hist)
{
    clik_image img = host_u8(SIDE, SIDE, 1);
    fill_u8(&img, 1);
    uint64_t want[256] = {0};
    for (int y = 0; y < SIDE; y++) {
        const uint8_t *row = (const uint8_t *)img.data + (size_t)y * img.stride;
        for (int x = 0; x < SIDE; x++)
            want[row[x]]++;
    }
    uint32_t got[256];
    if (ran(clik_hist_compute(h_ctx, &img, got), (double)img.stride * SIDE, "hist"))
        for (int v = 0; v < 256; v++)
            ck_assert_msg(got[v] == want[v], "hist on %s: bin %d holds %u, not %llu", h_backend, v,
                          got[v], (unsigned long long)want[v]);
    uint8_t table[256];
    for (int v = 0; v < 256; v++)
        table[v] = (uint8_t)(v * 37 + 11);
    if (ran(clik_hist_lut(h_ctx, &img, &img, table, 1), (double)img.stride * SIDE, "lut"))
        for (int band = 0; band < 2; band++)
            for (int y = band ? SIDE - 64 : 0; y < (band ? SIDE : 64); y++) {
                const uint8_t *g = (const uint8_t *)img.data + (size_t)y * img.stride;
                for (int x = 0; x < SIDE; x++) {
                    const uint8_t v = table[texel((uint32_t)x, y, SIDE, 1)];
                    ck_assert_msg(g[x] == v, "lut on %s: pixel (%d, %d) is %d, not %d", h_backend,
                                  x, y, g[x], v);
                }
            }
    clik_image_free(&img);
}
END_TEST

/* Bands at both ends of src (rows in steps of `align`), their outputs at
 * `num / den` of their rows. */
static void check_ends(op_fn op, const void *arg, const clik_image *src, const clik_image *out,
                       int rows, int align, int margin, sup_tolerance tol, const char *what)
{
    const int num = out->height, den = src->height;
    check_band(op, arg, src, out, 0, rows, 0, (int)((int64_t)rows * num / den), margin, tol, what);
    const int s0 = (src->height - rows) / align * align;
    check_band(op, arg, src, out, s0, src->height, (int)((int64_t)s0 * num / den), out->height,
               margin, tol, what);
}

/* pyr_down of a grey image of 2^31 + 4633 pixels; pyr_up into one of
 * 46342^2 = 2^31 + 97316. */
START_TEST(pyramid)
{
    clik_image src = host_u8(SIDE, SIDE, 1), down = host_u8((SIDE + 1) / 2, (SIDE + 1) / 2, 1);
    fill_u8(&src, 2);
    if (ran(clik_pyr_down(h_ctx, &src, &down), (double)src.stride * SIDE, "pyr_down")) {
        check_band(do_pyr_down, NULL, &src, &down, 0, 128, 0, 64, 4, SUP_TOL_EXACT, "pyr_down");
        check_band(do_pyr_down, NULL, &src, &down, SIDE - 129, SIDE, (SIDE - 129) / 2, down.height,
                   4, SUP_TOL_EXACT, "pyr_down");
    }
    clik_image_free(&src);
    fill_u8(&down, 3);
    clik_image up = host_u8(2 * down.width, 2 * down.height, 1);
    if (ran(clik_pyr_up(h_ctx, &down, &up), (double)up.stride * up.height, "pyr_up"))
        check_ends(do_pyr_up, NULL, &down, &up, 64, 1, 4, SUP_TOL_EXACT, "pyr_up");
    h_free_images(&down, &up, NULL);
}
END_TEST

/* Bilinear and bicubic halving of 46342 x 46340 = 2^31 + 4632 pixels. */
START_TEST(resize)
{
    clik_image src = host_u8(SIDE + 1, SIDE - 1, 1),
               dst = host_u8((SIDE + 1) / 2, (SIDE - 1) / 2, 1);
    fill_u8(&src, 4);
    static const clik_interp methods[] = {CLIK_INTERP_BILINEAR, CLIK_INTERP_BICUBIC};
    for (int m = 0; m < 2; m++) {
        const char *what = clik_interp_name(methods[m]);
        if (ran(clik_resize(h_ctx, &src, &dst, methods[m]), (double)src.stride * src.height, what))
            check_ends(do_resize, &methods[m], &src, &dst, 128, 2, 4, SUP_TOL_U8_FLOAT, what);
    }
    h_free_images(&src, &dst, NULL);
}
END_TEST

/* A 7 x 7 blur of 2^31 + 4633 grey pixels (its row pass may keep floats of
 * the whole image), and the luma of 23171^2 RGBA pixels (2^31 + 97316
 * elements). */
START_TEST(filter)
{
    clik_image src = host_u8(SIDE, SIDE, 1), dst = host_u8(SIDE, SIDE, 1);
    fill_u8(&src, 5);
    if (ran(clik_gaussian_blur(h_ctx, &src, &dst, 7, 0.0), 4.0 * src.stride * SIDE, "blur"))
        check_ends(do_blur, NULL, &src, &dst, 64, 1, 8, SUP_TOL_U8_FLOAT, "blur");
    h_free_images(&src, &dst, NULL);
    clik_image rgba = host_u8(SIDE / 2 + 1, SIDE / 2 + 1, 4),
               grey = host_u8(rgba.width, rgba.height, 1);
    fill_u8(&rgba, 6);
    if (ran(clik_gray(h_ctx, &rgba, &grey), (double)rgba.stride * rgba.height, "gray"))
        check_ends(do_gray, NULL, &rgba, &grey, 64, 1, 0, SUP_TOL_EXACT, "gray");
    h_free_images(&rgba, &grey, NULL);
}
END_TEST

/* The u64 integral of 2^31 + 4633 grey pixels: 46342^2 sums of 8 bytes. Rows
 * 1 and H of the sums against ones the test adds up. */
START_TEST(integral)
{
    clik_image src = host_u8(SIDE, SIDE, 1), sum;
    fill_u8(&src, 7);
    ck_assert_int_eq(clik_image_alloc(&sum, SIDE + 1, SIDE + 1, 1, CLIK_U64), CLIK_OK);
    if (ran(clik_integral(h_ctx, &src, &sum, NULL), (double)sum.stride * sum.height, "integral")) {
        uint64_t *col = calloc(SIDE, sizeof(uint64_t));
        ck_assert_ptr_nonnull(col);
        for (int y = 0; y < SIDE; y++) {
            const uint8_t *row = (const uint8_t *)src.data + (size_t)y * src.stride;
            for (int x = 0; x < SIDE; x++)
                col[x] += row[x];
            if (y == 0 || y == SIDE / 2 || y == SIDE - 1) {
                const uint64_t *got =
                    (const uint64_t *)((const uint8_t *)sum.data + (size_t)(y + 1) * sum.stride);
                uint64_t acc = 0;
                for (int x = 0; x <= SIDE; x++) {
                    ck_assert_msg(got[x] == acc, "integral on %s: sum(%d, %d) is %llu, not %llu",
                                  h_backend, x, y + 1, (unsigned long long)got[x],
                                  (unsigned long long)acc);
                    if (x < SIDE)
                        acc += col[x];
                }
            }
        }
        free(col);
    }
    h_free_images(&src, &sum, NULL);
}
END_TEST

/* Tile SSIM and the mean SSIM of two grey images of 2^31 + 4633 pixels. */
START_TEST(ssim)
{
    clik_image a = host_u8(SIDE, SIDE, 1), b = host_u8(SIDE, SIDE, 1), map;
    fill_u8(&a, 8);
    fill_u8(&b, 9);
    const int tw = (SIDE + 7) / 8;
    ck_assert_int_eq(clik_image_alloc(&map, tw, tw, 1, CLIK_F32), CLIK_OK);
    if (ran(clik_ssim_tiles(h_ctx, &a, &b, 8, &map), (double)a.stride * SIDE, "ssim_tiles"))
        for (int band = 0; band < 2; band++) {
            const int s0 = band ? (SIDE - 72) / 8 * 8 : 0, s1 = band ? SIDE : 64;
            clik_image ca = rows_of(&a, s0, s1), cb = rows_of(&b, s0, s1), want;
            ck_assert_int_eq(clik_image_alloc(&want, tw, (s1 - s0 + 7) / 8, 1, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_ssim_tiles(h_oracle, &ca, &cb, 8, &want), CLIK_OK);
            same_rows(&map, &want, s0 / 8, s0 / 8, s0 / 8 + want.height, SUP_TOL_SSIM,
                      "ssim_tiles");
            clik_image_free(&want);
        }
    /* The same image twice: SSIM 1 everywhere (a wrong offset reads rows
     * that differ and lowers it). */
    double mean = 0.0;
    if (ran(clik_ssim(h_ctx, &a, &a, NULL, &mean), 4.0 * a.stride * SIDE, "ssim"))
        ck_assert_msg(fabs(mean - 1.0) < 1e-5, "ssim on %s: mean %.9f of an image and itself",
                      h_backend, mean);
    h_free_images(&a, &b, &map, NULL);
}
END_TEST

/* Fusion x2 into 23172^2 RGBA pixels (2^31 + 282688 elements). */
START_TEST(fusion)
{
    clik_image src = host_u8(11586, 11586, 4), dst = host_u8(2 * 11586, 2 * 11586, 4);
    fill_u8(&src, 10);
    if (ran(clik_upscale_fusion(h_ctx, &src, &dst, NULL, NULL), 4.0 * dst.width * dst.height,
            "fusion"))
        check_ends(do_fusion, NULL, &src, &dst, 64, 4, 32, SUP_TOL_FUSION, "fusion");
    h_free_images(&src, &dst, NULL);
}
END_TEST

/* A one-channel F16 image of w x h, every element from a table of 256
 * halves around 1 / 72 indexed by the texture. */
static void fill_phi(clik_image *phi, uint32_t seed)
{
    uint16_t half[256];
    for (int v = 0; v < 256; v++)
        half[v] = clik__float_to_half(1.0f / 72.0f + (float)(v - 128) / 4096.0f);
    for (int y = 0; y < phi->height; y++) {
        uint16_t *row = (uint16_t *)((uint8_t *)phi->data + (size_t)y * phi->stride);
        for (int x = 0; x < phi->width; x++)
            row[x] = half[texel((uint32_t)x, y, phi->height, seed)];
    }
}

/* The LAPAR filter x2 into 5462^2 grey pixels with phi of 72 planes: 72 x
 * 5462^2 = 2^31 + 524320 elements (F16: 4.3 GB). */
START_TEST(lapar)
{
    enum { LR = 2731, S = 2, HR = LR * S };
    float atoms[CLIK_LAPAR_ATOMS * 25];
    ck_assert_int_eq(clik_lapar_dict_default(atoms), CLIK_OK);
    const clik_lapar_dict dict = {CLIK_LAPAR_ATOMS, atoms, NULL};
    clik_image lr = host_u8(LR, LR, 1), dst = host_u8(HR, HR, 1), phi;
    fill_u8(&lr, 13);
    ck_assert_int_eq(clik_image_alloc(&phi, HR, CLIK_LAPAR_ATOMS * HR, 1, CLIK_F16), CLIK_OK);
    fill_phi(&phi, 14);
    if (ran(clik_lapar_filter(h_ctx, &lr, &phi, &dict, S, &dst), (double)phi.stride * phi.height,
            "lapar_filter"))
        for (int band = 0; band < 2; band++) {
            /* The oracle on LR rows [s0, s1) with the planes' rows [S s0, S s1). */
            const int s0 = band ? LR - 32 : 0, s1 = band ? LR : 32, rows = S * (s1 - s0);
            clik_image in = rows_of(&lr, s0, s1), part, want = host_u8(HR, rows, 1);
            ck_assert_int_eq(clik_image_alloc(&part, HR, CLIK_LAPAR_ATOMS * rows, 1, CLIK_F16),
                             CLIK_OK);
            for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
                for (int y = 0; y < rows; y++)
                    memcpy((uint8_t *)part.data + (size_t)(l * rows + y) * part.stride,
                           (uint8_t *)phi.data +
                               ((size_t)l * HR + (size_t)(S * s0 + y)) * phi.stride,
                           (size_t)HR * 2);
            ck_assert_int_eq(clik_lapar_filter(h_oracle, &in, &part, &dict, S, &want), CLIK_OK);
            const int first = band ? S * s0 + 16 : 0, last = band ? HR : rows - 16;
            same_rows(&dst, &want, S * s0, first, last, SUP_TOL_U8_FLOAT, "lapar_filter");
            h_free_images(&part, &want, NULL);
        }
    h_free_images(&lr, &dst, &phi, NULL);
}
END_TEST

static clik_status do_lapar_model(clik_context *c, const clik_image *s, clik_image *d,
                                  const void *a)
{
    (void)a;
    return clik_upscale_lapar(c, s, d, 2, NULL);
}

/* The lapar model x2 of 11586^2 RGBA pixels into 23172^2 (2^31 + 282688
 * elements). */
START_TEST(lapar_model)
{
    clik_image src = host_u8(11586, 11586, 4), dst = host_u8(2 * 11586, 2 * 11586, 4);
    fill_u8(&src, 15);
    /* Its largest buffer is U: 4 floats per output pixel. */
    if (ran(clik_upscale_lapar(h_ctx, &src, &dst, 2, NULL), 16.0 * dst.width * dst.height,
            "upscale_lapar"))
        check_ends(do_lapar_model, NULL, &src, &dst, 64, 1, 32, SUP_TOL_U8_FLOAT, "upscale_lapar");
    h_free_images(&src, &dst, NULL);
}
END_TEST

/* The part [x0, x1) x [y0, y1) of img as a view. */
static clik_image part_of(const clik_image *img, int x0, int x1, int y0, int y1)
{
    clik_image v = rows_of(img, y0, y1);
    v.width = x1 - x0;
    v.data = (uint8_t *)v.data + (size_t)x0 * img->channels * clik_type_size(img->type);
    return v;
}

/* LAPAR-C x2 on 2732^2 grey pixels: phi is 72 x 5464^2 = 2^31 + 1997664
 * floats (8.6 GB). The oracle (slow: double precision) runs on 96 x 96
 * corners of the input; their outputs, less 32 pixels along the cut
 * sides, must match. */
START_TEST(lapar_net)
{
    enum { LR = 2732, C = 96, M = 32 };
    clik_lapar_net *net = NULL;
    ck_assert_int_eq(clik_lapar_net_builtin(h_ctx, "lapar-c", 2, &net), CLIK_OK);
    clik_image src = host_u8(LR, LR, 1), dst = host_u8(2 * LR, 2 * LR, 1),
               want = host_u8(2 * C, 2 * C, 1);
    fill_u8(&src, 16);
    if (ran(clik_lapar_net_run(h_ctx, net, &src, &dst, NULL),
            4.0 * CLIK_LAPAR_ATOMS * dst.width * dst.height, "lapar_net"))
        for (int corner = 0; corner < 2; corner++) {
            const int a = corner ? LR - C : 0;
            clik_image in = part_of(&src, a, a + C, a, a + C);
            ck_assert_int_eq(clik_lapar_net_run(h_oracle, net, &in, &want, NULL), CLIK_OK);
            /* The output pixels that the cut sides do not reach. */
            const int k0 = corner ? 2 * M : 0, k1 = corner ? 2 * C : 2 * (C - M);
            clik_image g = part_of(&dst, 2 * a + k0, 2 * a + k1, 2 * a + k0, 2 * a + k1);
            clik_image w = part_of(&want, k0, k1, k0, k1);
            sup_compare cmp;
            sup_compare_images(&g, &w, SUP_TOL_U8_FLOAT, &cmp);
            ck_assert_msg(cmp.pass, "lapar_net on %s, corner %d: %s", h_backend, corner,
                          cmp.detail);
        }
    h_free_images(&src, &dst, &want, NULL);
}
END_TEST

static clik_flow_options flow_opt;

/* A flow of 2^30 + 32768 pixels: 2^31 + 65536 floats. One scale, one warp,
 * ten iterations, no early stop: every output depends only on nearby
 * pixels, so that crops of the input give the same rows. */
START_TEST(flow)
{
    enum { W = 32768, H = 32769 };
    clik_image i0 = host_u8(W, H, 1), i1 = host_u8(W, H, 1), flow;
    fill_u8(&i0, 17);
    for (int y = 0; y < H; y++) /* I1(x) = I0(x - 1): u near 1 */
        memcpy((uint8_t *)i1.data + (size_t)y * i1.stride + 1,
               (uint8_t *)i0.data + (size_t)y * i0.stride, W - 1),
            ((uint8_t *)i1.data)[(size_t)y * i1.stride] = 0;
    ck_assert_int_eq(clik_image_alloc(&flow, W, H, 2, CLIK_F32), CLIK_OK);
    clik_flow_options_init(&flow_opt);
    flow_opt.scales = 1;
    flow_opt.warps = 1;
    flow_opt.iterations = 10;
    flow_opt.epsilon = 0.0;
    if (ran(clik_flow_tvl1(h_ctx, &i0, &i1, &flow, &flow_opt), (double)flow.stride * H, "flow"))
        for (int band = 0; band < 2; band++) {
            const int s0 = band ? H - 256 : 0, s1 = band ? H : 256;
            clik_image a = rows_of(&i0, s0, s1), b = rows_of(&i1, s0, s1), want;
            ck_assert_int_eq(clik_image_alloc(&want, W, s1 - s0, 2, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_flow_tvl1(h_oracle, &a, &b, &want, &flow_opt), CLIK_OK);
            same_rows(&flow, &want, s0, band ? s0 + 64 : 0, band ? H : 192, SUP_TOL_FLOW, "flow");
            clik_image_free(&want);
        }
    h_free_images(&i0, &i1, &flow, NULL);
}
END_TEST

/* ---- the program ------------------------------------------------------------- */

/* A family's test, the host memory it allocates and the memory its
 * operation works in (on the host for the CPU paths and CPU devices), in
 * GiB (the lapar model's CPU path: U, its buckets and six float planes of
 * the classification, 24 bytes per output pixel); gpu_only: too slow for the
 * CPU paths and CPU devices at this size. */
static const struct large {
    const char *family;
    const TTest *const *test;
    double host_gib, work_gib;
    int gpu_only;
} larges[] = {
    {"hist", &hist, 2.1, 2.1, 0},
    {"pyramid", &pyramid, 2.6, 2.6, 0},
    {"resize", &resize, 2.6, 2.6, 0},
    {"filter", &filter, 4.1, 8.0, 0},
    {"integral", &integral, 19.3, 0.5, 0},
    {"ssim", &ssim, 4.2, 8.0, 0},
    {"fusion", &fusion, 2.6, 10.0, 0},
    {"lapar", &lapar, 4.1, 1.0, 0},
    {"lapar_model", &lapar_model, 2.6, 26.0, 0},
    {"lapar_net", &lapar_net, 0.1, 1.0, 1},
    {"flow", &flow, 10.1, 1.0, 1},
};

static double mem_available_gib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    double kib = -1.0;
    char line[256];
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1.0 : kib / (1024.0 * 1024.0);
}

/* 1 when the first OpenCL device that CLIK_TEST_DEVICE picks is a GPU. */
static int device_is_gpu(void)
{
    clik_device_info *list = NULL;
    int count = 0, gpu = 0;
    const char *only = getenv("CLIK_TEST_DEVICE");
    if (clik_devices_list(&list, &count) != CLIK_OK)
        return 0;
    for (int i = 0; i < count; i++)
        if (!only || !*only || strcasestr(list[i].name, only) ||
            strcasestr(list[i].platform_name, only)) {
            gpu = list[i].type == CLIK_DEVICE_GPU;
            break;
        }
    clik_devices_free(list);
    return gpu;
}

int main(void)
{
    family = getenv("CLIK_TEST_LARGE");
    const struct large *t = NULL;
    for (int i = 0; family && i < H_COUNT(larges); i++)
        if (strcmp(family, larges[i].family) == 0)
            t = &larges[i];
    if (!t) {
        printf("CLIK_TEST_LARGE=%s: expected a family of tests/test_large.c\n",
               family ? family : "(unset)");
        return 2;
    }
    const char *backend = getenv("CLIK_TEST_BACKEND");
    const int gpu = backend && strcmp(backend, "opencl") == 0 && device_is_gpu();
    if (t->gpu_only && !gpu) {
        printf("SKIP: %s past 2^31 elements takes hours on the CPU paths and CPU devices; it "
               "runs on GPUs\n",
               t->family);
        return 77;
    }
    if (t->test == &lapar_net && !clik_lapar_net_builtin_available("lapar-c", 2)) {
        printf("SKIP: this build holds no LAPAR-C x2 network (-Dlapar_weights)\n");
        return 77;
    }
    const double need = t->host_gib + (gpu ? 0.0 : t->work_gib), have = mem_available_gib();
    if (have >= 0.0 && have < need + 1.0) {
        printf("SKIP: %s past 2^31 elements needs about %.1f GiB of memory; %.1f GiB is "
               "available\n",
               t->family, need + 1.0, have);
        return 77;
    }
    const h_test tests[] = {H_TEST(*t->test)};
    const char *const tunings[] = {"", NULL};
    return h_suite_main(&(h_suite){t->family, NULL, 0, tests, 1, tunings, NULL});
}

/*
 * LAPAR network family: the conformance cases on every backend against the
 * scalar oracle, the model file format (round trips, and every kind of bad
 * file refused), the networks built into the library, and bad arguments.
 * The released networks against the official network's golden outputs:
 * tests/lapar_net_golden.py.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Debian's aarch64-linux-gnu-gcc 12 stops with an internal compiler error
 * in the loop vectoriser (vect_transform_reduction) on compress_folds at
 * -O3: these tests do not need it. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__)
#pragma GCC optimize("no-tree-vectorize")
#endif

START_TEST(matches_oracle)
{
    const int sizes = h_size_count() < 5 ? h_size_count() : 5; /* crops of up to 24 x 24 */
    for (int i = 0; i < h_family_case_count("lapar_net"); i++) {
        const sup_case *c = h_family_case("lapar_net", i);
        /* the released network (the costliest): one size and pattern */
        const int released = strstr(c->op, "-c-") != NULL;
        for (int s = released && sizes > 3 ? 3 : 1; s < sizes && (!released || s == 3); s++)
            for (int ch = 1; ch <= 4; ch *= 4)
                for (int p = 0; p < (released ? 1 : h_patterns < 2 ? h_patterns : 2); p++)
                    h_check_case_at(c, sup_test_sizes[s][0], sup_test_sizes[s][1], ch,
                                    (sup_pattern)p, 3000u + s);
    }
}
END_TEST

/* ---- the file format -------------------------------------------------------------------- */

static const sup_test_net_shape shape = {2, 4, 2, 2, 9};

static uint8_t *net_bytes(size_t *n)
{
    uint8_t *b = sup_test_net_bytes(&shape, 11, n);
    ck_assert_ptr_nonnull(b);
    return b;
}

/* The test network read through ctx; its file's bytes in *bytes (to free)
 * and their count in *n. */
static clik_lapar_net *read_net(clik_context *ctx, uint8_t **bytes, size_t *n)
{
    *bytes = net_bytes(n);
    clik_lapar_net *net = NULL;
    ck_assert_int_eq(clik_lapar_net_read(ctx, *bytes, *n, &net), CLIK_OK);
    return net;
}

/* Makes the checksum right again after an edit. */
static void reseal(uint8_t *b, size_t n)
{
    const uint32_t c = sup_crc32(b, n - 4);
    for (int i = 0; i < 4; i++)
        b[n - 4 + i] = (uint8_t)(c >> (8 * i));
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void expect_refused(const uint8_t *b, size_t n, const char *what, const char *words)
{
    clik_lapar_net *net = (clik_lapar_net *)(uintptr_t)1;
    clik_status st = clik_lapar_net_read(h_oracle, b, n, &net);
    ck_assert_msg(st == CLIK_ERR_FILE_FORMAT, "%s: %s", what, clik_status_str(st));
    ck_assert_msg(net == (clik_lapar_net *)(uintptr_t)1, "%s: *net was written", what);
    ck_assert_msg(strstr(clik_context_message(h_oracle), words), "%s: message \"%s\" lacks \"%s\"",
                  what, clik_context_message(h_oracle), words);
}

START_TEST(file_round_trip)
{
    size_t n;
    uint8_t *b;
    clik_lapar_net *net = read_net(h_oracle, &b, &n);
    clik_lapar_net_info info;
    ck_assert_int_eq(clik_lapar_net_describe(net, &info), CLIK_OK);
    ck_assert_int_eq(info.scale, 2);
    ck_assert_int_eq(info.features, 4);
    ck_assert_int_eq(info.blocks, 2);
    ck_assert_int_eq(info.units, 2);
    ck_assert_int_eq(info.atoms, 9);
    ck_assert_int_eq(info.weights, CLIK_F32);
    ck_assert_str_eq(info.name, "test net");
    /* (n - 68) / 4 values: header and checksum aside, all binary32 */
    ck_assert_int_eq(info.parameters, (long)((n - 68) / 4));
    /* The writer gives back the same bytes. */
    size_t m = 0;
    ck_assert_int_eq(clik_lapar_net_write(h_oracle, net, CLIK_F32, NULL, 0, &m), CLIK_OK);
    ck_assert_uint_eq(m, n);
    uint8_t *w = malloc(m);
    ck_assert_int_eq(clik_lapar_net_write(h_oracle, net, CLIK_F32, w, m - 1, &m),
                     CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_lapar_net_write(h_oracle, net, CLIK_F32, w, m, &m), CLIK_OK);
    ck_assert_int_eq(memcmp(w, b, n), 0);
    /* binary16 weights: a smaller file whose weights are the halves of these */
    size_t h = 0;
    ck_assert_int_eq(clik_lapar_net_write(h_oracle, net, CLIK_F16, NULL, 0, &h), CLIK_OK);
    ck_assert_uint_lt(h, n);
    uint8_t *hb = malloc(h);
    ck_assert_int_eq(clik_lapar_net_write(h_oracle, net, CLIK_F16, hb, h, &h), CLIK_OK);
    clik_lapar_net *half = NULL;
    ck_assert_int_eq(clik_lapar_net_read(h_oracle, hb, h, &half), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_describe(half, &info), CLIK_OK);
    ck_assert_int_eq(info.weights, CLIK_F16);
    ck_assert_int_eq(clik_lapar_net_write(h_oracle, net, CLIK_U8, NULL, 0, &h),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    /* Both run, and their phi differ by about the rounding of the weights. */
    clik_image src, p32, p16;
    ck_assert_int_eq(clik_image_alloc(&src, 6, 5, 4, CLIK_U8), CLIK_OK);
    for (int i = 0; i < 6 * 5 * 4; i++)
        ((uint8_t *)src.data)[i] = (uint8_t)(i * 37 % 251);
    h_alloc_images(12, 10 * 9, 1, CLIK_F32, &p32, &p16, NULL);
    ck_assert_int_eq(clik_lapar_net_run(h_oracle, net, &src, NULL, &p32), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_run(h_oracle, half, &src, NULL, &p16), CLIK_OK);
    double worst = 0.0;
    for (int i = 0; i < 12 * 90; i++) {
        const double d = fabs(((float *)p32.data)[i] - ((float *)p16.data)[i]);
        worst = d > worst ? d : worst;
    }
    ck_assert_msg(worst > 0.0 && worst < 2e-2, "f16 weights: phi moved by %g", worst);
    clik_lapar_net_free(net);
    clik_lapar_net_free(half);
    h_free_images(&src, &p32, &p16, NULL);
    free(w);
    free(hb);
    free(b);
}
END_TEST

START_TEST(file_refused)
{
    size_t n;
    uint8_t *b = net_bytes(&n);
    uint8_t *c = malloc(n + 8);
    /* every truncation */
    for (size_t len = 0; len < n; len += len < 80 ? 1 : 97) {
        char what[64];
        snprintf(what, sizeof(what), "%zu of %zu bytes", len, n);
        clik_lapar_net *net = (clik_lapar_net *)(uintptr_t)1;
        ck_assert_int_eq(clik_lapar_net_read(h_oracle, b, len, &net), CLIK_ERR_FILE_FORMAT);
        ck_assert_ptr_eq(net, (clik_lapar_net *)(uintptr_t)1);
    }
    /* a flipped bit anywhere is a checksum mismatch */
    memcpy(c, b, n);
    c[n / 2] ^= 0x10;
    expect_refused(c, n, "flipped bit", "checksum");
    /* trailing bytes: the length field lies */
    memcpy(c, b, n);
    memset(c + n, 0, 8);
    expect_refused(c, n + 8, "trailing bytes", "the header says");
    /* a header whose sizes imply another length (checksum made right) */
    memcpy(c, b, n);
    put_u32(c + 20, 5); /* features */
    reseal(c, n);
    expect_refused(c, n, "features 5", "takes");
    /* each header field just below and just above its range, and at
     * 2^32 - 1 (checksum made right) */
    static const struct {
        int offset;
        uint32_t least, most;
        const char *words;
    } fields[] = {
        {8, 1, 1, "version"},
        {16, 2, 4, "scale"},
        {20, 1, CLIK_LAPAR_NET_MAX_FEATURES, "features"},
        {24, 1, CLIK_LAPAR_NET_MAX_BLOCKS, "blocks"},
        {28, 1, CLIK_LAPAR_NET_MAX_UNITS, "units"},
        {32, 1, CLIK_LAPAR_MAX_ATOMS, "atoms"},
        {36, 0, 1, "weight type"},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const uint32_t refused[] = {fields[i].least - 1, fields[i].most + 1, UINT32_MAX};
        for (int k = 0; k < 3; k++) {
            char what[64];
            snprintf(what, sizeof(what), "%s %u", fields[i].words, refused[k]);
            memcpy(c, b, n);
            put_u32(c + fields[i].offset, refused[k]);
            reseal(c, n);
            expect_refused(c, n, what, fields[i].words);
        }
    }
    /* the name: printable, NUL-terminated; reserved bytes zero */
    memcpy(c, b, n);
    c[41] = 7;
    reseal(c, n);
    expect_refused(c, n, "control character in the name", "name");
    memcpy(c, b, n);
    memset(c + 40, 'x', 24);
    reseal(c, n);
    expect_refused(c, n, "name without NUL", "NUL");
    /* a NaN and an infinite weight */
    for (int k = 0; k < 2; k++) {
        memcpy(c, b, n);
        const float bad = k ? INFINITY : NAN;
        memcpy(c + 64 + 12 + 4 * 5, &bad, 4);
        reseal(c, n);
        expect_refused(c, n, k ? "inf" : "NaN", "not finite");
    }
    /* not a network file */
    expect_refused((const uint8_t *)"CLIKLPM\0\1\0\0\0", 12, "a model file", "magic");
    /* the file reader: the same checks, and missing files */
    clik_lapar_net *net = NULL;
    ck_assert_int_eq(clik_lapar_net_load(h_oracle, "/nonexistent/net.clikn", &net), CLIK_ERR_IO);
    ck_assert_ptr_null(net);
    char *dir = h_tempdir();
    char path[512];
    snprintf(path, sizeof(path), "%s/net.clikn", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, n - 1, f), n - 1);
    fclose(f);
    ck_assert_int_eq(clik_lapar_net_load(h_oracle, path, &net), CLIK_ERR_FILE_FORMAT);
    ck_assert_ptr_null(net);
    f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    fclose(f);
    ck_assert_int_eq(clik_lapar_net_load(h_oracle, path, &net), CLIK_OK);
    clik_lapar_net_free(net);
    h_rmtree(dir);
    free(b);
    free(c);
}
END_TEST

/* ---- the built-in networks ------------------------------------------------------------- */

START_TEST(builtin)
{
    static const struct {
        const char *name;
        int nf, blocks;
    } nets[] = {{"lapar-a", 32, 4}, {"lapar-b", 24, 3}, {"lapar-c", 16, 2}};
    int found = 0;
    for (int i = 0; i < 3; i++)
        for (int s = 2; s <= 4; s += 2) {
            clik_lapar_net *net = NULL;
            clik_status st = clik_lapar_net_builtin(h_oracle, nets[i].name, s, &net);
            if (!clik_lapar_net_builtin_available(nets[i].name, s)) {
                ck_assert_int_eq(st, CLIK_ERR_INVALID_ARG);
                ck_assert_ptr_nonnull(strstr(clik_context_message(h_oracle), "without"));
                continue;
            }
            found++;
            ck_assert_int_eq(st, CLIK_OK);
            clik_lapar_net_info info;
            ck_assert_int_eq(clik_lapar_net_describe(net, &info), CLIK_OK);
            ck_assert_int_eq(info.scale, s);
            ck_assert_int_eq(info.features, nets[i].nf);
            ck_assert_int_eq(info.blocks, nets[i].blocks);
            ck_assert_int_eq(info.units, 4);
            ck_assert_int_eq(info.atoms, 72);
            /* the same network twice; free ignores it */
            clik_lapar_net *again = NULL;
            ck_assert_int_eq(clik_lapar_net_builtin(h_oracle, nets[i].name, s, &again), CLIK_OK);
            ck_assert_ptr_eq(net, again);
            clik_lapar_net_free(net);
            /* its atoms are the default dictionary's, as float32 of the same closed form */
            float d[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
            clik_lapar_dict_default(d);
            const float *a = clik_lapar_net_atoms(net);
            for (int k = 0; k < CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS; k++)
                ck_assert_msg(fabsf(a[k] - d[k]) < 1e-6f, "%s atom tap %d: %g vs %g", nets[i].name,
                              k, a[k], d[k]);
        }
    printf("lapar_net: %d of 6 released networks built in\n", found);
    clik_lapar_net *net = NULL;
    ck_assert_int_eq(clik_lapar_net_builtin(h_oracle, "lapar-a", 3, &net), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clik_context_message(h_oracle), "x2 and x4"));
    ck_assert_int_eq(clik_lapar_net_builtin(h_oracle, "lapar-d", 2, &net), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_lapar_net_builtin(h_oracle, NULL, 2, &net), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_builtin_available(NULL, 2), 0);
}
END_TEST

/* ---- tiles ------------------------------------------------------------------------------- */

/* Rows of two images of one format compare bytewise. */
static void expect_same_bytes(const clik_image *a, const clik_image *b, const char *what)
{
    const size_t row = (size_t)a->width * (size_t)a->channels * clik_type_size(a->type);
    for (int y = 0; y < a->height; y++)
        ck_assert_msg(memcmp((const char *)a->data + (size_t)y * a->stride,
                             (const char *)b->data + (size_t)y * b->stride, row) == 0,
                      "%s on %s: row %d differs from the whole image's", what, h_backend, y);
}

/* The OpenCL path in tiles (lnet_tile) gives the bytes of the whole image:
 * output and phi, F32 and F16, at x2 and x4, tiles that split the halo
 * unevenly at the borders. */
START_TEST(tiles_same_bytes)
{
    if (h_expected != CLIK_BACKEND_OPENCL) {
        printf("lapar_net tiles: skipped on %s (only the OpenCL path runs in tiles)\n", h_backend);
        return;
    }
    const int w = h_small ? 29 : 45, h = h_small ? 19 : 33;
    /* the suite's kernels (Winograd or direct sums round differently) in tiles */
    char tuning[256];
    snprintf(tuning, sizeof(tuning), "%s%slnet_tile=%d", h_tuning, *h_tuning ? "," : "",
             h_small ? 16 : 10);
    clik_context *tiled = h_tuned_context(tuning);
    for (int s = 2; s <= 4; s += 2) {
        const sup_test_net_shape sh = {s, 4, 2, 2, 9};
        size_t n;
        uint8_t *bytes = sup_test_net_bytes(&sh, 21u + (unsigned)s, &n);
        ck_assert_ptr_nonnull(bytes);
        clik_lapar_net *net = NULL;
        ck_assert_int_eq(clik_lapar_net_read(h_oracle, bytes, n, &net), CLIK_OK);
        for (int v = 0; v < 3; v++) {
            /* RGBA u8 with F32 phi; grey f32 with F16 phi; BGR u8 with F32
             * phi (the tiles of its 4-channel copy) */
            const int ch = v == 1 ? 1 : v ? 3 : 4;
            const clik_type t = v == 1 ? CLIK_F32 : CLIK_U8, pt = v == 1 ? CLIK_F16 : CLIK_F32;
            clik_image src, out[2], phi[2];
            ck_assert_int_eq(clik_image_alloc(&src, w, h, ch, t), CLIK_OK);
            sup_pattern_fill(&src, SUP_PATTERN_NOISE, 5u + (unsigned)v);
            src.order = v == 2 ? CLIK_ORDER_BGR : CLIK_ORDER_RGB;
            for (int k = 0; k < 2; k++) {
                ck_assert_int_eq(clik_image_alloc(&out[k], w * s, h * s, ch, t), CLIK_OK);
                ck_assert_int_eq(clik_image_alloc(&phi[k], w * s, h * s * 9, 1, pt), CLIK_OK);
                clik_context *ctx = k ? tiled : h_ctx;
                const clik_status st = clik_lapar_net_run(ctx, net, &src, &out[k], &phi[k]);
                ck_assert_msg(st == CLIK_OK, "x%d %s: %s", s, k ? "tiles" : "whole",
                              clik_context_message(ctx));
            }
            expect_same_bytes(&out[0], &out[1], "output in tiles");
            expect_same_bytes(&phi[0], &phi[1], "phi in tiles");
            h_free_images(&src, &out[0], &out[1], &phi[0], &phi[1], NULL);
        }
        clik_lapar_net_free(net);
        free(bytes);
    }
    h_tuned_context_free(tiled);
}
END_TEST

/* The context keeps the network's tensors for the next run of the same
 * layout: a stream of runs that changes size, network width and activation
 * type gives, at each run, the bytes of a fresh context (new buffers filled
 * with garbage, poison=1: a kept tensor whose border was not cleared, or
 * one kept across a change of layout, shows). */
START_TEST(kept_tensors)
{
    if (h_expected != CLIK_BACKEND_OPENCL) {
        printf("lapar_net kept tensors: skipped on %s (the CPU paths keep none)\n", h_backend);
        return;
    }
    static const struct {
        int w, h, features, half;
    } runs[] = {{13, 7, 4, 0}, {14, 6, 4, 0}, {9, 11, 4, 0}, {13, 7, 4, 0},
                {13, 7, 4, 1}, {13, 7, 6, 1}, {13, 7, 4, 0}, {13, 7, 4, 0}};
    clik_lapar_net *nets[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        const sup_test_net_shape sh = {2, k ? 6 : 4, 2, 2, 9};
        size_t n;
        uint8_t *bytes = sup_test_net_bytes(&sh, 31u + (unsigned)k, &n);
        ck_assert_ptr_nonnull(bytes);
        ck_assert_int_eq(clik_lapar_net_read(h_oracle, bytes, n, &nets[k]), CLIK_OK);
        free(bytes);
    }
    clik_context *stream = h_tuned_context("poison=1");
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        const int w = runs[r].w, h = runs[r].h;
        const clik_lapar_net_options opt = {runs[r].half};
        clik_image src, out[2], phi[2];
        ck_assert_int_eq(clik_image_alloc(&src, w, h, 4, CLIK_U8), CLIK_OK);
        sup_pattern_fill(&src, SUP_PATTERN_NOISE, 40u + (unsigned)r);
        for (int k = 0; k < 2; k++) {
            clik_context *ctx = k ? h_tuned_context("poison=1") : stream;
            ck_assert_int_eq(clik_image_alloc(&out[k], 2 * w, 2 * h, 4, CLIK_U8), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&phi[k], 2 * w, 2 * h * 9, 1, CLIK_F32), CLIK_OK);
            const clik_status st = clik_lapar_net_run_with(ctx, nets[runs[r].features == 6], &src,
                                                           &out[k], &phi[k], &opt);
            ck_assert_msg(st == CLIK_OK, "run %zu: %s", r, clik_context_message(ctx));
            if (k)
                h_tuned_context_free(ctx);
        }
        expect_same_bytes(&out[0], &out[1], "output of a stream");
        expect_same_bytes(&phi[0], &phi[1], "phi of a stream");
        h_free_images(&src, &out[0], &out[1], &phi[0], &phi[1], NULL);
    }
    h_tuned_context_free(stream);
    clik_lapar_net_free(nets[0]);
    clik_lapar_net_free(nets[1]);
}
END_TEST

/* f16 activations (OpenCL) against f32 on the same device: the bound of
 * clik_lapar_net_options, from the golden crops (README: phi within 1e-2,
 * u8 within 1), on a released network where the build has one (a smooth
 * photograph-like field), else the synthetic one. */
START_TEST(f16_activations_bound)
{
    if (h_expected != CLIK_BACKEND_OPENCL) {
        printf("lapar_net f16 activations: skipped on %s (the CPU paths store f32)\n", h_backend);
        return;
    }
    const int released = clik_lapar_net_builtin_available("lapar-c", 2);
    clik_lapar_net *net = NULL;
    uint8_t *bytes = NULL;
    if (released) {
        ck_assert_int_eq(clik_lapar_net_builtin(h_oracle, "lapar-c", 2, &net), CLIK_OK);
    } else {
        size_t n;
        net = read_net(h_oracle, &bytes, &n);
    }
    clik_lapar_net_info info;
    ck_assert_int_eq(clik_lapar_net_describe(net, &info), CLIK_OK);
    const int w = h_small ? 12 : 31, h = h_small ? 10 : 23, s = info.scale;
    clik_image src, out[2], phi[2];
    ck_assert_int_eq(clik_image_alloc(&src, w, h, 4, CLIK_U8), CLIK_OK);
    sup_pattern_fill(&src, SUP_PATTERN_SMOOTH, 17);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(clik_image_alloc(&out[k], w * s, h * s, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&phi[k], w * s, h * s * info.atoms, 1, CLIK_F32),
                         CLIK_OK);
        const clik_lapar_net_options opt = {k};
        ck_assert_msg(clik_lapar_net_run_with(h_ctx, net, &src, &out[k], &phi[k], &opt) == CLIK_OK,
                      "%s", clik_context_message(h_ctx));
    }
    double phi_max = 0.0;
    int out_max = 0;
    long differ = 0;
    for (int y = 0; y < phi[0].height; y++)
        for (int x = 0; x < phi[0].width; x++) {
            const float a = ((const float *)((const char *)phi[0].data + y * phi[0].stride))[x];
            const float b = ((const float *)((const char *)phi[1].data + y * phi[1].stride))[x];
            phi_max = fmax(phi_max, fabs((double)a - b));
        }
    for (int y = 0; y < h * s; y++)
        for (int x = 0; x < w * s * 4; x++) {
            const int a = ((const uint8_t *)out[0].data + y * out[0].stride)[x];
            const int b = ((const uint8_t *)out[1].data + y * out[1].stride)[x];
            out_max = abs(a - b) > out_max ? abs(a - b) : out_max;
            differ += a != b;
        }
    printf("lapar_net f16 activations on %s (%s): phi %.2e, u8 max %d, %.3f %% differ\n", h_backend,
           released ? "LAPAR-C x2" : "synthetic", phi_max, out_max,
           100.0 * (double)differ / ((double)w * s * h * s * 4));
    ck_assert_msg(phi_max <= 1e-2, "phi moves by %g", phi_max);
    ck_assert_msg(out_max <= 1, "u8 moves by %d", out_max);
    /* and it is not the f32 network under another name */
    ck_assert_msg(phi_max > 0.0, "f16 activations give f32's phi");
    h_free_images(&src, &out[0], &out[1], &phi[0], &phi[1], NULL);
    clik_lapar_net_free(net);
    free(bytes);
}
END_TEST

/* ---- bad arguments ----------------------------------------------------------------------- */

START_TEST(bad_input)
{
    clik_context *ctx = h_ctx;
    size_t n;
    uint8_t *b;
    clik_lapar_net *net = read_net(ctx, &b, &n);
    clik_image src, dst, phi, small, grey2, wrong;
    ck_assert_int_eq(clik_image_alloc(&src, 8, 6, 4, CLIK_U8), CLIK_OK);
    memset(src.data, 90, src.stride * 6);
    ck_assert_int_eq(clik_image_alloc(&dst, 16, 12, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&phi, 16, 12 * 9, 1, CLIK_F16), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&small, 1, 6, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&grey2, 8, 6, 2, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&wrong, 16, 12 * 8, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, &dst, &phi), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, &dst, NULL), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, NULL, &phi), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, NULL, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_run(NULL, net, &src, &dst, NULL), CLIK_ERR_NULL);
    /* options: NULL is the default; f16_activations 0 or 1 */
    clik_lapar_net_options opt = {1};
    ck_assert_int_eq(clik_lapar_net_run_with(ctx, net, &src, &dst, &phi, NULL), CLIK_OK);
    ck_assert_int_eq(clik_lapar_net_run_with(ctx, net, &src, &dst, &phi, &opt), CLIK_OK);
    const int bad_flags[] = {2, -1, 1 << 30};
    for (int i = 0; i < 3; i++) {
        opt.f16_activations = bad_flags[i];
        ck_assert_int_eq(clik_lapar_net_run_with(ctx, net, &src, &dst, &phi, &opt),
                         CLIK_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clik_context_message(ctx), "f16_activations"));
    }
    ck_assert_int_eq(clik_lapar_net_run_with(NULL, net, &src, &dst, NULL, &opt), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_run(ctx, NULL, &src, &dst, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, NULL, &dst, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &small, &dst, NULL), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &grey2, &dst, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, &wrong, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, NULL, &wrong), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, NULL, &dst), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, &src, NULL), CLIK_ERR_SIZE_MISMATCH);
    /* 3 channels: dst has src's channels */
    clik_image rgb, rgb_dst;
    ck_assert_int_eq(clik_image_alloc(&rgb, 8, 6, 3, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&rgb_dst, 16, 12, 3, CLIK_U8), CLIK_OK);
    memset(rgb.data, 90, rgb.stride * 6);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &rgb, &dst, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, &rgb_dst, NULL),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &rgb, &rgb_dst, &phi), CLIK_OK);
    h_free_images(&rgb, &rgb_dst, NULL);
    /* the output overlapping phi */
    clik_image part = phi;
    part.width = 16;
    part.height = 12;
    part.channels = 1;
    part.type = CLIK_F16;
    part.owned = 0;
    clik_image alias = dst;
    alias.data = phi.data;
    alias.owned = 0;
    alias.stride = 16 * 4;
    (void)part;
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, &alias, &phi), CLIK_ERR_INVALID_ARG);
    /* the file functions */
    ck_assert_int_eq(clik_lapar_net_read(ctx, NULL, 10, &net), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_read(ctx, b, n, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_load(ctx, NULL, &net), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_write(ctx, NULL, CLIK_F32, NULL, 0, &n), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_describe(NULL, NULL), CLIK_ERR_NULL);
    ck_assert_ptr_null(clik_lapar_net_atoms(NULL));
    clik_lapar_net_free(NULL);
    clik_lapar_net_free(net);
    h_free_images(&src, &dst, &phi, &small, &grey2, &wrong, NULL);
    free(b);
}
END_TEST

/* 3-channel images (through 4-channel copies) give what 4 channels give;
 * BGR(A) pictures give their RGB(A) equivalents' Φ and (red and blue
 * swapped) outputs. */
START_TEST(three_channels)
{
    h_check_colour_orders("lapar_net", 23, 17, "lapar_net_run-x2", "lapar_net_run-phi", NULL);
}
END_TEST

/* ---- a compressed dictionary folded into the network ----------------------------------- */

/* dst of the compressed network against clik_lapar_filter with the full
 * network's phi and the selection: within 1e-4 of the output's range. */
static void expect_close(const clik_image *got, const clik_image *want, const char *what)
{
    const int n = want->width * want->channels;
    double range = 1.0, worst = 0.0;
    for (int y = 0; y < want->height; y++) {
        const float *w = (const float *)((const char *)want->data + (size_t)y * want->stride);
        for (int x = 0; x < n; x++)
            range = fmax(range, fabs(w[x]));
    }
    for (int y = 0; y < want->height; y++) {
        const float *g = (const float *)((const char *)got->data + (size_t)y * got->stride);
        const float *w = (const float *)((const char *)want->data + (size_t)y * want->stride);
        for (int x = 0; x < n; x++)
            worst = fmax(worst, fabs((double)g[x] - w[x]));
    }
    ck_assert_msg(worst <= 1e-4 * range, "%s on %s: max diff %g of %g", what, h_backend, worst,
                  range);
}

START_TEST(compress_folds)
{
    clik_context *ctx = h_ctx;
    size_t n;
    uint8_t *b;
    clik_lapar_net *net = read_net(ctx, &b, &n);
    const int L = shape.atoms, w = 11, h = 7;
    clik_image src, phi, want, got;
    ck_assert_int_eq(clik_image_alloc(&src, w, h, 4, CLIK_F32), CLIK_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < 4 * w; x++)
            ((float *)((char *)src.data + (size_t)y * src.stride))[x] =
                (float)((x * 37 + y * 91) % 256) + 0.25f;
    ck_assert_int_eq(clik_image_alloc(&phi, 2 * w, 2 * h * L, 1, CLIK_F32), CLIK_OK);
    h_alloc_images(2 * w, 2 * h, 4, CLIK_F32, &want, &got, NULL);
    ck_assert_int_eq(clik_lapar_net_run(ctx, net, &src, NULL, &phi), CLIK_OK);
    clik_lapar_selection sel = {L, 3, {1, 4, 7}, {0.8f, 1.3f, -0.5f}, NULL};
    float mix[3 * 9];
    for (int i = 0; i < 3 * L; i++)
        mix[i] = (float)((i * 7) % 11 - 5) / 8.0f;
    const float *atoms = clik_lapar_net_atoms(net);
    for (int m = 0; m < 2; m++) {
        /* gamma, then the re-fit matrix */
        sel.mix = m ? mix : NULL;
        const clik_lapar_dict dict = {L, atoms, &sel};
        ck_assert_int_eq(clik_lapar_filter(ctx, &src, &phi, &dict, 2, &want), CLIK_OK);
        clik_lapar_net *c = NULL;
        ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &sel, sel.mix, &c), CLIK_OK);
        clik_lapar_net_info info;
        ck_assert_int_eq(clik_lapar_net_describe(c, &info), CLIK_OK);
        ck_assert_int_eq(info.atoms, 3);
        ck_assert_int_eq(info.features, shape.features);
        ck_assert_int_eq(info.weights, CLIK_F32);
        ck_assert_str_eq(info.name, "test net k3");
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(memcmp(clik_lapar_net_atoms(c) + i * CLIK_LAPAR_TAPS,
                                    atoms + sel.index[i] * CLIK_LAPAR_TAPS,
                                    CLIK_LAPAR_TAPS * sizeof(float)),
                             0);
        ck_assert_int_eq(clik_lapar_net_run(ctx, c, &src, &got, NULL), CLIK_OK);
        expect_close(&got, &want, m ? "re-fit matrix" : "gamma");
        clik_lapar_net_free(c);
    }
    /* Every atom at weight 1: the same network under its own name. */
    clik_lapar_selection all = {L, L, {0}, {0}, NULL};
    for (int i = 0; i < L; i++) {
        all.index[i] = i;
        all.gamma[i] = 1.0f;
    }
    clik_lapar_net *same = NULL;
    ck_assert_int_eq(clik_lapar_net_compress(NULL, net, &all, NULL, &same), CLIK_OK);
    size_t m = 0;
    ck_assert_int_eq(clik_lapar_net_write(ctx, same, CLIK_F32, NULL, 0, &m), CLIK_OK);
    ck_assert_uint_eq(m, n);
    uint8_t *again = malloc(m);
    ck_assert_int_eq(clik_lapar_net_write(ctx, same, CLIK_F32, again, m, &m), CLIK_OK);
    ck_assert_int_eq(memcmp(again, b, n), 0);
    clik_lapar_net_free(same);
    free(again);
    /* Bad arguments, *out untouched. */
    clik_lapar_net *out = (clik_lapar_net *)(uintptr_t)1;
    sel.mix = NULL;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, NULL, &sel, NULL, &out), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, NULL, NULL, &out), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &sel, NULL, NULL), CLIK_ERR_NULL);
    clik_lapar_selection bad = sel;
    bad.atoms = L - 1;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, NULL, &out), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_ptr_nonnull(strstr(clik_context_message(ctx), "for 8 atoms, the network has 9"));
    bad = sel;
    bad.kept = 0;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, NULL, &out), CLIK_ERR_INVALID_SIZE);
    bad.kept = L + 1;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, NULL, &out), CLIK_ERR_INVALID_SIZE);
    static const int bad_index[][3] = {{1, 1, 7}, {4, 1, 7}, {-1, 4, 7}, {1, 4, 9}};
    for (int i = 0; i < 4; i++) {
        bad = sel;
        memcpy(bad.index, bad_index[i], sizeof(bad_index[i]));
        ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, NULL, &out), CLIK_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clik_context_message(ctx), "not increasing"));
    }
    bad = sel;
    bad.gamma[2] = NAN;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, NULL, &out), CLIK_ERR_INVALID_ARG);
    /* gamma is not read with a matrix */
    clik_lapar_net *c = NULL;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, mix, &c), CLIK_OK);
    clik_lapar_net_free(c);
    mix[3 * L - 1] = INFINITY;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &sel, mix, &out), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clik_context_message(ctx), "re-fit matrix"));
    /* weights scaled past binary32 */
    bad = sel;
    bad.gamma[0] = bad.gamma[1] = bad.gamma[2] = 1e30f;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, net, &bad, NULL, &c), CLIK_OK);
    bad.atoms = 3;
    bad.index[0] = 0;
    bad.index[1] = 1;
    bad.index[2] = 2;
    ck_assert_int_eq(clik_lapar_net_compress(ctx, c, &bad, NULL, &out), CLIK_ERR_OVERFLOW);
    clik_lapar_net_free(c);
    ck_assert_ptr_eq(out, (clik_lapar_net *)(uintptr_t)1);
    clik_lapar_net_free(net);
    h_free_images(&src, &phi, &want, &got, NULL);
    free(b);
}
END_TEST

int main(void)
{
    /* the convolutions as the device has them by default (Winograd on CPU
     * devices), direct through local-memory tiles, and by Winograd with
     * small strips and groups on every device */
    static const char *const tunings[] = {
        "lnet_local=0", "lnet_wino=0,lnet_local=1,lnet_ry=4,poison=1",
        "lnet_wino=1,lnet_local=0,lnet_vw=4,lnet_cob=2,lnet_ry=2", NULL};
    static const char *const full_tunings[] = {"lnet_local=0",
                                               "lnet_wino=0,lnet_local=0",
                                               "lnet_wino=1,lnet_vw=8,lnet_cob=16,poison=1",
                                               "lnet_wino=1,lnet_vw=16,lnet_cob=1",
                                               "lnet_local=1,poison=1",
                                               "lnet_local=1,lnet_ry=4,poison=1",
                                               "lnet_local=1,lnet_ry=8,lnet_cob=16",
                                               "lnet_local=0,lnet_vw=1,lnet_cob=1",
                                               "lnet_local=0,lnet_vw=1,lnet_ry=4",
                                               "lnet_local=0,lnet_vw=2,lnet_cob=4,lnet_ry=8",
                                               "lnet_local=0,lnet_vw=4,lnet_cob=2,lnet_ry=2",
                                               "lnet_local=0,lnet_vw=8,lnet_cob=8",
                                               "lnet_local=0,lnet_vw=16,lnet_cob=16,poison=1",
                                               NULL};
    const h_test tests[] = {
        H_TEST(matches_oracle),   H_TEST(file_round_trip), H_TEST(file_refused),
        H_TEST(builtin),          H_TEST(bad_input),       H_TEST(compress_folds),
        H_TEST(tiles_same_bytes), H_TEST(kept_tensors),    H_TEST(f16_activations_bound),
        H_TEST(three_channels)};
    return h_suite_main(
        &(h_suite){"lapar_net", NULL, 1200, tests, H_COUNT(tests), tunings, full_tunings});
}

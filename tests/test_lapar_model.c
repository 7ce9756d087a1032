/* LAPAR model family (classification, upscale by a model, training, the model file) on every
 * backend against the scalar oracle; the training tests run on a CPU context.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static uint8_t *px8(const clik_image *img, int x, int y)
{
    return (uint8_t *)img->data + (size_t)y * img->stride + (size_t)x * (size_t)img->channels;
}

static float *pxf(const clik_image *img, int x, int y)
{
    return (float *)(void *)((char *)img->data + (size_t)y * img->stride) +
           (size_t)x * (size_t)img->channels;
}

static uint16_t bucket_at(const clik_image *b, int x, int y)
{
    return ((const uint16_t *)(const void *)((const char *)b->data + (size_t)y * b->stride))[x];
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_crc(uint8_t *p, size_t n)
{
    put32(p + n - 4, sup_crc32(p, n - 4));
}

/* A one-entry model file of n bytes (zeroed, malloc'ed): the header of
 * version, then the entry's first count fields f. */
static uint8_t *model_file(uint32_t version, size_t n, const uint32_t *f, int count)
{
    uint8_t *p = calloc(1, n);
    ck_assert_ptr_nonnull(p);
    memcpy(p, "CLIKLPM", 8);
    put32(p + 8, version);
    put32(p + 12, (uint32_t)n);
    put32(p + 16, 1);
    for (int k = 0; k < count; k++)
        put32(p + 24 + 4 * k, f[k]);
    return p;
}

/* A one-entry model file: scale 2, 4 angles, 2 strengths, 2 coherences, no
 * phases, window 3, every atom, f32, every bucket the same coefficients. */
static uint8_t *uniform_model(const float *coef, size_t *n)
{
    const int buckets = 16, atoms = CLIK_LAPAR_ATOMS;
    *n = 24 + 40 + 72 + 4 + 4 + (size_t)buckets * atoms * 4 + 4;
    const uint32_t f[10] = {2, 4, 2, 2, 0, 3, (uint32_t)atoms, 1, (uint32_t)buckets, 0};
    uint8_t *p = model_file(1, *n, f, 10);
    for (int l = 0; l < atoms; l++)
        p[64 + l] = (uint8_t)l;
    const float edges[2] = {4.0f, 0.5f};
    memcpy(p + 136, &edges[0], 4);
    memcpy(p + 140, &edges[1], 4);
    for (int b = 0; b < buckets; b++)
        memcpy(p + 144 + (size_t)b * atoms * 4, coef, (size_t)atoms * 4);
    fix_crc(p, *n);
    return p;
}

/* ---- the conformance cases, with the OpenCL path absent accepted ------------------------ */

/* The model the oracle reads from n bytes at p, which it must accept. */
static clik_lapar_model *oracle_read(const uint8_t *p, size_t n)
{
    clik_lapar_model *m = NULL;
    ck_assert_int_eq(clik_lapar_model_read(h_oracle, p, n, &m), CLIK_OK);
    return m;
}

START_TEST(matches_oracle)
{
    const int sizes = h_size_count() < 5 ? h_size_count() : 5; /* up to 128 x 64 */
    for (int i = 0; i < h_family_case_count("lapar_model"); i++) {
        const sup_case *c = h_family_case("lapar_model", i);
        for (int s = 0; s < sizes; s++)
            for (int ch = 1; ch <= 4; ch *= 4)
                for (int p = 0; p < (h_patterns < 3 ? h_patterns : 3); p++)
                    h_check_case_at(c, sup_test_sizes[s][0], sup_test_sizes[s][1], ch,
                                    (sup_pattern)p, 2000u + s);
    }
}
END_TEST

/* ---- classification, hand-worked ---------------------------------------------------------- */

/* Buckets of a grey F32 upsample made by f(x, y), with the default x2 model
 * (16 angles, 3 strengths, 4 coherences, the phase). */
static void classify(float (*f)(int x, int y), int w, int h, clik_image *b)
{
    clik_image up;
    ck_assert_int_eq(clik_image_alloc(&up, w, h, 1, CLIK_F32), CLIK_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            *pxf(&up, x, y) = f(x, y);
    ck_assert_int_eq(clik_image_alloc(b, w, h, 1, CLIK_U16), CLIK_OK);
    ck_assert_int_eq(clik_lapar_classify(h_ctx, &up, NULL, 2, b), CLIK_OK);
    clik_image_free(&up);
}

static float horizontal_edge(int x, int y)
{
    (void)x;
    return y < 10 ? 20.0f : 200.0f;
}

static float vertical_edge(int x, int y)
{
    (void)y;
    return x < 10 ? 20.0f : 200.0f;
}

static float flat(int x, int y)
{
    (void)x;
    (void)y;
    return 77.0f;
}

static float diagonal(int x, int y)
{
    return x + y < 20 ? 0.0f : 200.0f;
}

START_TEST(classify_hand_worked)
{
    clik_lapar_model_options o;
    ck_assert_int_eq(clik_lapar_model_describe(h_oracle, clik_lapar_model_default(2), 2, &o),
                     CLIK_OK);
    ck_assert_int_eq(o.angles, 16);
    ck_assert_int_eq(o.strengths, 3);
    ck_assert_int_eq(o.coherences, 4);
    ck_assert_int_eq(o.phases, 1);
    const int C = o.coherences, S = o.strengths, A = o.angles;
    clik_image b;
    /* A horizontal edge (rows 9 | 10): the gradient is along y, the angle
     * bin A / 2 = 8; strong (a jump of 180: the strength is far above 10)
     * and coherent (rank one: coherence 1, the top bin). */
    classify(horizontal_edge, 20, 20, &b);
    uint16_t k = bucket_at(&b, 7, 9);
    ck_assert_int_eq(k / (C * S * A), 1 * 2 + 1); /* phase (y mod 2) 2 + (x mod 2) */
    ck_assert_int_eq(k / (C * S) % A, 8);
    ck_assert_int_eq((k / C) % S, S - 1);
    ck_assert_int_eq(k % C, C - 1);
    clik_image_free(&b);
    /* A vertical edge: angle bin 0. */
    classify(vertical_edge, 20, 20, &b);
    k = bucket_at(&b, 9, 7);
    ck_assert_int_eq(k / (C * S) % A, 0);
    ck_assert_int_eq((k / C) % S, S - 1);
    clik_image_free(&b);
    /* A diagonal edge x + y = 20 (y down): the gradient along (1, 1), 2
     * theta = 90 degrees: bin 16 / 4 = 4. */
    classify(diagonal, 20, 20, &b);
    k = bucket_at(&b, 10, 9);
    ck_assert_int_eq(k / (C * S) % A, 4);
    clik_image_free(&b);
    /* Flat: every pixel its phase's bucket 0 (angle 0, the lowest strength
     * and coherence). */
    classify(flat, 13, 7, &b);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 13; x++)
            ck_assert_int_eq(bucket_at(&b, x, y), ((y % 2) * 2 + x % 2) * A * S * C);
    clik_image_free(&b);
    /* One pixel: no gradient. */
    classify(flat, 1, 1, &b);
    ck_assert_int_eq(bucket_at(&b, 0, 0), 0);
    clik_image_free(&b);
}
END_TEST

/* ---- a model of one filter is clik_lapar_filter with constant phi -------------------------- */

static void expect_refused(const uint8_t *p, size_t n, const char *what, const char *words);
static void expect_truncations(const uint8_t *p, size_t n, size_t every_below, size_t step);

START_TEST(uniform_model_is_filter)
{
    float coef[CLIK_LAPAR_ATOMS];
    for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
        coef[l] = (float)((l % 7) - 2.5) / 40.0f + (l == 50 ? 0.9f : 0.0f);
    size_t n;
    uint8_t *bytes = uniform_model(coef, &n);
    clik_lapar_model *m = oracle_read(bytes, n);
    const int w = 27, h = 13;
    for (int ch = 1; ch <= 4; ch *= 4) {
        clik_image lr, phi, want, got;
        ck_assert_int_eq(clik_image_alloc(&lr, w, h, ch, CLIK_U8), CLIK_OK);
        uint64_t st = 99;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w * ch; x++)
                px8(&lr, 0, y)[x] = (uint8_t)(sup_rand_next(&st) >> 56);
        ck_assert_int_eq(clik_image_alloc(&phi, 2 * w, 2 * h * CLIK_LAPAR_ATOMS, 1, CLIK_F32),
                         CLIK_OK);
        for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
            for (int y = 0; y < 2 * h; y++)
                for (int x = 0; x < 2 * w; x++)
                    *pxf(&phi, x, l * 2 * h + y) = coef[l];
        float atoms[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
        clik_lapar_dict_default(atoms);
        const clik_lapar_dict dict = {CLIK_LAPAR_ATOMS, atoms, NULL};
        ck_assert_int_eq(clik_image_alloc(&want, 2 * w, 2 * h, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&got, 2 * w, 2 * h, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_lapar_filter(h_oracle, &lr, &phi, &dict, 2, &want), CLIK_OK);
        ck_assert_int_eq(clik_upscale_lapar(h_ctx, &lr, &got, 2, m), CLIK_OK);
        sup_compare cmp;
        sup_compare_images(&got, &want, SUP_TOL_U8_FLOAT, &cmp);
        ck_assert_msg(cmp.pass, "c%d: %s", ch, cmp.detail);
        h_free_images(&lr, &phi, &want, &got, NULL);
    }
    clik_lapar_model_free(m);
    free(bytes);
    /* Finite coefficients whose filters overflow float are refused. */
    for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
        coef[l] = 3e38f;
    bytes = uniform_model(coef, &n);
    expect_refused(bytes, n, "overflowing filters", "not finite");
    free(bytes);
}
END_TEST

/* ---- training ----------------------------------------------------------------------------- */

/* A synthetic picture: discs, bars and a smooth ramp, RGBA u8. */
static void synthetic(clik_image *img, int w, int h)
{
    ck_assert_int_eq(clik_image_alloc(img, w, h, 4, CLIK_U8), CLIK_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double dx = x - w * 0.4, dy = y - h * 0.55;
            double v = 40.0 + 0.5 * x;
            if (dx * dx + dy * dy < (w * 0.25) * (w * 0.25))
                v = 210.0;
            if ((x / 7) % 2 == 0 && y < h / 4)
                v = 15.0;
            if (x + 2 * y > 2 * h && x + 2 * y < 2 * h + 9)
                v = 230.0;
            uint8_t *p = px8(img, x, y);
            p[0] = (uint8_t)v;
            p[1] = (uint8_t)(255.0 - v * 0.7);
            p[2] = (uint8_t)(v * 0.5 + 60.0);
            p[3] = 255;
        }
}

static double psnr_u8(const clik_image *a, const clik_image *b, int shave)
{
    double se = 0.0;
    long n = 0;
    for (int y = shave; y < a->height - shave; y++)
        for (int x = shave; x < a->width - shave; x++)
            for (int c = 0; c < 3; c++, n++) {
                const double d = (double)px8(a, x, y)[c] - px8(b, x, y)[c];
                se += d * d;
            }
    return 10.0 * log10(255.0 * 255.0 / (se / (double)n + 1e-12));
}

/* The model a trainer with options o solves from hr alone. */
static clik_lapar_model *train(clik_context *ctx, const clik_lapar_model_options *o,
                               const clik_image *hr)
{
    clik_lapar_trainer *t = NULL;
    clik_lapar_model *m = NULL;
    ck_assert_int_eq(clik_lapar_trainer_create(ctx, o, &t), CLIK_OK);
    ck_assert_int_eq(clik_lapar_trainer_add(t, hr), CLIK_OK);
    ck_assert_int_eq(clik_lapar_trainer_solve(t, &m), CLIK_OK);
    clik_lapar_trainer_free(t);
    return m;
}

/* A trained model's test: a CPU context, the synthetic image hr, the model m
 * trained on it, a second model m2, and low and res of expect_beats_bicubic(). */
typedef struct trained {
    clik_context *ctx;
    clik_image hr, low, res;
    clik_lapar_model *m, *m2;
} trained;

static void train_synthetic(trained *tr, const clik_lapar_model_options *o, int w, int h)
{
    *tr = (trained){0};
    tr->ctx = h_cpu_context();
    synthetic(&tr->hr, w, h);
    tr->m = train(tr->ctx, o, &tr->hr);
}

static void trained_free(trained *tr)
{
    clik_lapar_model_free(tr->m);
    clik_lapar_model_free(tr->m2);
    h_free_images(&tr->hr, &tr->low, &tr->res, NULL);
    clik_context_destroy(tr->ctx);
}

/* The file bytes of m (malloc'ed), *n of them. */
static uint8_t *model_bytes(clik_context *ctx, const clik_lapar_model *m, size_t *n)
{
    ck_assert_int_eq(clik_lapar_model_write(ctx, m, NULL, 0, n), CLIK_OK);
    uint8_t *b = malloc(*n);
    ck_assert_int_eq(clik_lapar_model_write(ctx, m, b, *n, n), CLIK_OK);
    return b;
}

/* a and b write the same file bytes. */
static void expect_same_bytes(clik_context *ctx, const clik_lapar_model *a,
                              const clik_lapar_model *b)
{
    size_t na, nb;
    uint8_t *ba = model_bytes(ctx, a, &na), *bb = model_bytes(ctx, b, &nb);
    ck_assert_uint_eq(na, nb);
    ck_assert_mem_eq(ba, bb, na);
    free(ba);
    free(bb);
}

/* Shrinks tr->hr by 2 (bicubic, antialiased) into tr->low, upscales that
 * with m into tr->res and checks that res is closer to hr than bicubic by 1 dB. */
static void expect_beats_bicubic(trained *tr, const clik_lapar_model *m)
{
    clik_context *ctx = tr->ctx;
    const clik_image *hr = &tr->hr;
    clik_image *low = &tr->low, *res = &tr->res;
    const int w = hr->width, h = hr->height;
    clik_image bic;
    ck_assert_int_eq(clik_image_alloc(low, w / 2, h / 2, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(res, w, h, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&bic, w, h, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_resize(ctx, hr, low, CLIK_INTERP_BICUBIC_AA), CLIK_OK);
    ck_assert_int_eq(clik_resize(ctx, low, &bic, CLIK_INTERP_BICUBIC), CLIK_OK);
    ck_assert_int_eq(clik_upscale_lapar(h_ctx, low, res, 2, m), CLIK_OK);
    const double p_model = psnr_u8(res, hr, 2), p_bicubic = psnr_u8(&bic, hr, 2);
    ck_assert_msg(p_model > p_bicubic + 1.0, "trained %.2f dB, bicubic %.2f dB", p_model,
                  p_bicubic);
    clik_image_free(&bic);
}

/* Option mistakes the trainer refuses: 0..3 for any kind, 4..7 for the
 * free-filter kind. */
static void spoil_options(clik_lapar_model_options *bad, int k)
{
    switch (k) {
    case 0: bad->angles = 33; break;
    case 1:
        bad->scale = 4;
        bad->angles = bad->strengths = bad->coherences = 32; /* 16 x 32768 buckets */
        break;
    case 2:
        bad->strength_edges[0] = 5.0f;
        bad->strength_edges[1] = 4.0f;
        break;
    case 3: bad->alpha = NAN; break;
    case 4: bad->kernel = 6; break;
    case 5: bad->symmetry = 3; break;
    case 6: bad->angles = 5; break;
    default: bad->kernel = 0; break;
    }
}

/* o spoilt by each mistake first..last is refused. */
static void expect_bad_options(clik_context *ctx, const clik_lapar_model_options *o, int first,
                               int last)
{
    for (int k = first; k <= last; k++) {
        clik_lapar_model_options bad = *o;
        spoil_options(&bad, k);
        clik_lapar_trainer *t = NULL;
        ck_assert_msg(clik_lapar_trainer_create(ctx, &bad, &t) == CLIK_ERR_INVALID_ARG,
                      "mistake %d accepted", k);
    }
}

START_TEST(trained_beats_bicubic)
{
    clik_lapar_model_options o;
    clik_lapar_model_options_init(&o);
    o.angles = 8;
    trained tr;
    train_synthetic(&tr, &o, 128, 96);
    /* Deterministic: a second trainer, the same bytes. */
    tr.m2 = train(tr.ctx, &o, &tr.hr);
    expect_same_bytes(tr.ctx, tr.m, tr.m2);
    /* The model reproduces its image better than bicubic. */
    expect_beats_bicubic(&tr, tr.m);
    trained_free(&tr);
}
END_TEST

START_TEST(train_small_and_mixed)
{
    clik_context *ctx = h_cpu_context();
    clik_lapar_model_options o;
    clik_lapar_model_options_init(&o);
    o.scale = 3;
    o.phases = 1;
    clik_lapar_trainer *t = NULL;
    ck_assert_int_eq(clik_lapar_trainer_create(ctx, &o, &t), CLIK_OK);
    clik_lapar_model *m = NULL;
    /* Nothing yet: refused. */
    ck_assert_int_eq(clik_lapar_trainer_solve(t, &m), CLIK_ERR_INVALID_ARG);
    /* Smaller than the scale: adds nothing. */
    clik_image tiny;
    ck_assert_int_eq(clik_image_alloc(&tiny, 2, 5, 1, CLIK_U8), CLIK_OK);
    memset(tiny.data, 9, tiny.stride * 5);
    ck_assert_int_eq(clik_lapar_trainer_add(t, &tiny), CLIK_OK);
    uint64_t n = 1;
    ck_assert_int_eq(clik_lapar_trainer_samples(t, &n), CLIK_OK);
    ck_assert_uint_eq(n, 0);
    /* Smaller than the 5 x 5 patch and the window, of mixed sizes, types
     * and channel counts. */
    const struct {
        int w, h, ch;
        clik_type type;
    } imgs[] = {{3, 3, 1, CLIK_U8}, {4, 7, 4, CLIK_U8}, {7, 3, 1, CLIK_F32}, {31, 17, 4, CLIK_F32}};
    uint64_t want = 0;
    for (size_t i = 0; i < sizeof(imgs) / sizeof(imgs[0]); i++) {
        clik_image img;
        ck_assert_int_eq(clik_image_alloc(&img, imgs[i].w, imgs[i].h, imgs[i].ch, imgs[i].type),
                         CLIK_OK);
        uint64_t st = 5 + i;
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width * img.channels; x++) {
                const double v = (double)(sup_rand_next(&st) >> 56);
                if (img.type == CLIK_U8)
                    px8(&img, 0, y)[x] = (uint8_t)v;
                else
                    pxf(&img, 0, y)[x] = (float)v;
            }
        ck_assert_int_eq(clik_lapar_trainer_add(t, &img), CLIK_OK);
        want += (uint64_t)(imgs[i].w / 3 * 3) * (uint64_t)(imgs[i].h / 3 * 3) *
                (uint64_t)(imgs[i].ch == 4 ? 3 : 1);
        clik_image_free(&img);
    }
    ck_assert_int_eq(clik_lapar_trainer_samples(t, &n), CLIK_OK);
    ck_assert_uint_eq(n, want);
    ck_assert_int_eq(clik_lapar_trainer_solve(t, &m), CLIK_OK);
    clik_lapar_model_options d;
    ck_assert_int_eq(clik_lapar_model_describe(ctx, m, 3, &d), CLIK_OK);
    ck_assert_int_eq(d.phases, 1);
    ck_assert_int_eq(clik_lapar_model_describe(ctx, m, 2, &d), CLIK_ERR_INVALID_ARG);
    /* The model upscales. */
    clik_image lr, out;
    ck_assert_int_eq(clik_image_alloc(&lr, 5, 4, 4, CLIK_F32), CLIK_OK);
    memset(lr.data, 0, lr.stride * 4);
    ck_assert_int_eq(clik_image_alloc(&out, 15, 12, 4, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_upscale_lapar(h_ctx, &lr, &out, 3, m), CLIK_OK);
    ck_assert_int_eq(clik_upscale_lapar(h_ctx, &lr, &out, 2, m), CLIK_ERR_INVALID_ARG);
    /* Bad images. */
    clik_image two;
    ck_assert_int_eq(clik_image_alloc(&two, 6, 6, 2, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_lapar_trainer_add(t, &two), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_trainer_add(t, NULL), CLIK_ERR_NULL);
    h_free_images(&tiny, &lr, &out, &two, NULL);
    clik_lapar_model_free(m);
    clik_lapar_trainer_free(t);
    /* Bad options. */
    expect_bad_options(ctx, &o, 0, 3);
    if (ctx != h_ctx)
        clik_context_destroy(ctx);
}
END_TEST

/* ---- the free-filter kind ------------------------------------------------------------------ */

/* A one-entry version-2 model of kind 1: scale 2, 2 angles, 1 strength, 1
 * coherence, no phases, window 3, free 5 x 5 filters (f32), symmetry 1,
 * every filter a delta at tap (row 2, column 3): out(x, y) = U(x + 1, y). */
static uint8_t *shift_model(size_t *n)
{
    const int buckets = 2, taps = 25;
    *n = 24 + 52 + (size_t)buckets * taps * 4 + 4;
    const uint32_t f[13] = {2, 2, 1, 1, 0, 3, (uint32_t)taps, 1, (uint32_t)buckets, 0, 1, 5, 1};
    uint8_t *p = model_file(2, *n, f, 13);
    const float one = 1.0f;
    for (int b = 0; b < buckets; b++)
        memcpy(p + 76 + ((size_t)b * taps + 2 * 5 + 3) * 4, &one, 4);
    fix_crc(p, *n);
    return p;
}

static void flip_x(const clik_image *a, clik_image *b)
{
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            memcpy(px8(b, a->width - 1 - x, y), px8(a, x, y), 4);
}

static void transpose(const clik_image *a, clik_image *b)
{
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            memcpy(px8(b, y, x), px8(a, x, y), 4);
}

/* Mean absolute difference of the colour channels of two RGBA u8 images. */
static double mean_diff(const clik_image *a, const clik_image *b)
{
    double sum = 0.0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 3; c++)
                sum += fabs((double)px8(a, x, y)[c] - px8(b, x, y)[c]);
    return sum / (3.0 * a->width * a->height);
}

START_TEST(free_filter_kind)
{
    /* A hand-built file: the filter is asymmetric and oriented as cpu.h says. */
    size_t n;
    uint8_t *bytes = shift_model(&n);
    clik_lapar_model *m = oracle_read(bytes, n);
    clik_lapar_model_options d;
    ck_assert_int_eq(clik_lapar_model_describe(h_oracle, m, 2, &d), CLIK_OK);
    ck_assert_int_eq(d.kernel, 5);
    ck_assert_int_eq(d.symmetry, 1);
    clik_image lr, up, out;
    ck_assert_int_eq(clik_image_alloc(&lr, 9, 7, 1, CLIK_F32), CLIK_OK);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 9; x++)
            pxf(&lr, x, y)[0] = (float)((x * 37 + y * 11) % 50) * 5.0f;
    ck_assert_int_eq(clik_image_alloc(&up, 18, 14, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&out, 18, 14, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_lapar_upsample(h_oracle, &lr, 2, &up), CLIK_OK);
    ck_assert_int_eq(clik_upscale_lapar(h_ctx, &lr, &out, 2, m), CLIK_OK);
    for (int y = 0; y < 14; y++)
        for (int x = 0; x < 18; x++) {
            const float want = pxf(&up, x + 1 < 18 ? x + 1 : 16, y)[0];
            ck_assert_msg(fabsf(pxf(&out, x, y)[0] - want) <= 1e-4f * (1.0f + fabsf(want)),
                          "(%d, %d): %g, U(x + 1, y) %g", x, y, (double)pxf(&out, x, y)[0],
                          (double)want);
        }
    clik_lapar_model_free(m);
    /* Truncations and a stored-filter count that the bins do not make. */
    expect_truncations(bytes, n, 0, 7);
    put32(bytes + 56, 3);
    fix_crc(bytes, n);
    expect_refused(bytes, n, "kind 1 filters", "filters stored");
    free(bytes);
    h_free_images(&lr, &up, &out, NULL);

    /* Trained with the eight symmetries: beats bicubic, round-trips, and
     * commutes with flips and the transposition. */
    const int w = 96, h = 96;
    clik_lapar_model_options o;
    clik_lapar_model_options_init(&o);
    o.kernel = 5;
    o.phases = 1;
    o.symmetry = 8;
    o.angles = 8;
    trained tr;
    train_synthetic(&tr, &o, w, h);
    size_t n1;
    uint8_t *b1 = model_bytes(tr.ctx, tr.m, &n1);
    /* 4 phases x 8 angles x 9: 288 buckets in 45 orbits (Burnside: (32 + 4 + 4) / 8 of the
     * phase-angle pairs, times 9) of 25 halves, padded to 4 bytes. */
    ck_assert_uint_eq(n1, 24 + 52 + 16 + 2252 + 4);
    ck_assert_int_eq(clik_lapar_model_read(tr.ctx, b1, n1, &tr.m2), CLIK_OK);
    expect_same_bytes(tr.ctx, tr.m, tr.m2);
    ck_assert_int_eq(clik_lapar_model_describe(tr.ctx, tr.m2, 2, &d), CLIK_OK);
    ck_assert_int_eq(d.kernel, 5);
    ck_assert_int_eq(d.symmetry, 8);
    expect_beats_bicubic(&tr, tr.m2);
    for (int g = 0; g < 2; g++) {
        clik_image low_g, res_g, back;
        ck_assert_int_eq(clik_image_alloc(&low_g, w / 2, h / 2, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&res_g, w, h, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&back, w, h, 4, CLIK_U8), CLIK_OK);
        (g ? transpose : flip_x)(&tr.low, &low_g);
        ck_assert_int_eq(clik_upscale_lapar(h_ctx, &low_g, &res_g, 2, tr.m2), CLIK_OK);
        (g ? transpose : flip_x)(&res_g, &back);
        const double diff = mean_diff(&back, &tr.res);
        ck_assert_msg(diff < 0.05, "%s: mean difference %.4f", g ? "transposed" : "flipped", diff);
        h_free_images(&low_g, &res_g, &back, NULL);
    }
    /* Bad options of the kind. */
    expect_bad_options(tr.ctx, &o, 4, 7);
    free(b1);
    trained_free(&tr);
}
END_TEST

/* ---- the file format ------------------------------------------------------------------------ */

/* The first k bytes of the model p (n bytes), for every k below every_below
 * and every step-th above, are refused: as they are (the header's length
 * differs), and with the length and the checksum made to match k, so that
 * the entry reader meets the end of the data. */
static void expect_truncations(const uint8_t *p, size_t n, size_t every_below, size_t step)
{
    uint8_t *c = malloc(n);
    ck_assert_ptr_nonnull(c);
    for (size_t k = 0; k < n; k += (k < every_below ? 1 : step)) {
        char what[96];
        snprintf(what, sizeof(what), "truncated to %zu bytes", k);
        expect_refused(p, k, what, NULL);
        if (k < 28)
            continue;
        memcpy(c, p, k);
        put32(c + 12, (uint32_t)k);
        fix_crc(c, k);
        snprintf(what, sizeof(what), "truncated to %zu bytes, length and checksum fixed", k);
        expect_refused(c, k, what, NULL);
    }
    free(c);
}

static void expect_refused(const uint8_t *p, size_t n, const char *what, const char *words)
{
    clik_lapar_model *m = (clik_lapar_model *)&m;
    const clik_status st = clik_lapar_model_read(h_oracle, p, n, &m);
    ck_assert_msg(st == CLIK_ERR_FILE_FORMAT, "%s: %s", what, clik_status_str(st));
    ck_assert_msg(m == (clik_lapar_model *)&m, "%s: *model written", what);
    const char *msg = clik_context_message(h_oracle);
    ck_assert_msg(!words || strstr(msg, words), "%s: message \"%s\" lacks \"%s\"", what, msg,
                  words);
}

START_TEST(file_format)
{
    size_t n;
    uint8_t *b = h_default_model_bytes(&n);
    /* Round trip: the bytes read write back the same. */
    clik_lapar_model *m = oracle_read(b, n);
    size_t n2;
    ck_assert_int_eq(clik_lapar_model_write(h_oracle, m, NULL, 0, &n2), CLIK_OK);
    ck_assert_uint_eq(n2, n);
    uint8_t *c = malloc(n);
    ck_assert_int_eq(clik_lapar_model_write(h_oracle, m, c, n - 1, &n2), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_lapar_model_write(h_oracle, m, c, n, &n2), CLIK_OK);
    ck_assert_mem_eq(b, c, n);
    for (int s = 2; s <= 4; s++)
        ck_assert_ptr_nonnull(clik_lapar_model_default(s));
    ck_assert_ptr_null(clik_lapar_model_default(5));
    ck_assert_ptr_null(clik_lapar_model_default(1));
    /* Combining needs distinct scales. */
    clik_lapar_model *both = NULL;
    ck_assert_int_eq(clik_lapar_model_combine(h_oracle, m, m, &both), CLIK_ERR_INVALID_ARG);
    clik_lapar_model_free(m);
    /* Every truncation. */
    expect_truncations(b, n, 200, 97);
    /* Flipped bytes: the checksum (or the magic) catches each. */
    for (size_t k = 0; k < n; k += (k < 200 ? 1 : 53)) {
        memcpy(c, b, n);
        c[k] ^= 0x10;
        char what[64];
        snprintf(what, sizeof(what), "byte %zu flipped", k);
        expect_refused(c, n, what, NULL);
    }
    /* Another version, with a correct checksum. */
    memcpy(c, b, n);
    put32(c + 8, 3);
    fix_crc(c, n);
    expect_refused(c, n, "version 3", "version 3");
    /* Absurd counts in the header, with a correct checksum. */
    const struct {
        size_t at;
        uint32_t value;
        const char *words;
    } lies[] = {
        {16, 0, "entries"},        {16, 1000000, "entries"},
        {24, 9, "scale"},          {28, 1000000, "angle"},
        {32, 0, "strength"},       {36, 0x80000000u, "coherence"},
        {44, 4, "window"},         {48, 200, "atoms"},
        {52, 3, "storage"},        {56, 0xffffffffu, "filters stored"},
        {56, 1, "filters stored"}, {60, 1, "reserved"},
        {64, 2, "kind"},           {68, 9, "side"},
        {72, 3, "symmetry"},       {12, (uint32_t)n + 8, "header says"},
    };
    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        memcpy(c, b, n);
        put32(c + lies[i].at, lies[i].value);
        fix_crc(c, n);
        expect_refused(c, n, lies[i].words, lies[i].words);
    }
    /* Not a model at all. */
    expect_refused((const uint8_t *)"P5\n1 1\n255\n", 11, "a PGM", "magic");
    /* The file reader: the same checks, and missing files. */
    clik_lapar_model *f = NULL;
    ck_assert_int_eq(clik_lapar_model_load(h_oracle, "/nonexistent/model.clikm", &f), CLIK_ERR_IO);
    free(b);
    free(c);
}
END_TEST

/* ---- 3 channels and colour order ------------------------------------------------------- */

/* 3-channel images (through 4-channel copies) give what 4 channels give. */
START_TEST(three_channels)
{
    h_check_family_three_channels("lapar_model");
    h_check_bgr_swaps("lapar_classify-x2", 29, 23);
}
END_TEST

/* BGR and RGB inputs of the same picture give the same picture, with red
 * and blue swapped. */
START_TEST(bgr_swaps)
{
    enum { W = 29, H = 23 };
    for (int ch = 3; ch <= 4; ch++) {
        clik_image rgb, bgr, out_rgb, out_bgr;
        ck_assert_int_eq(clik_image_alloc(&rgb, W, H, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&bgr, W, H, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&out_rgb, 2 * W, 2 * H, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&out_bgr, 2 * W, 2 * H, ch, CLIK_U8), CLIK_OK);
        sup_pattern_fill(&rgb, SUP_PATTERN_EDGES, 5);
        for (int y = 0; y < H; y++) {
            const uint8_t *in = (const uint8_t *)rgb.data + (size_t)y * rgb.stride;
            uint8_t *out = (uint8_t *)bgr.data + (size_t)y * bgr.stride;
            for (int i = 0; i < W * ch; i++)
                out[i] = in[i % ch < 3 ? i - i % ch + 2 - i % ch : i];
        }
        bgr.order = CLIK_ORDER_BGR;
        ck_assert_int_eq(clik_upscale_lapar(h_ctx, &rgb, &out_rgb, 2, NULL), CLIK_OK);
        ck_assert_int_eq(clik_upscale_lapar(h_ctx, &bgr, &out_bgr, 2, NULL), CLIK_OK);
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        for (int y = 0; y < 2 * H; y++) {
            const uint8_t *a = (const uint8_t *)out_rgb.data + (size_t)y * out_rgb.stride;
            const uint8_t *b = (const uint8_t *)out_bgr.data + (size_t)y * out_bgr.stride;
            for (int i = 0; i < 2 * W * ch; i++)
                ck_assert_msg(a[i] == b[i % ch < 3 ? i - i % ch + 2 - i % ch : i],
                              "%d channels: element %d of row %d", ch, i, y);
        }
        h_free_images(&rgb, &bgr, &out_rgb, &out_bgr, NULL);
    }
}
END_TEST

/* ---- bad arguments -------------------------------------------------------------------------- */

START_TEST(bad_input)
{
    clik_context *ctx = h_ctx;
    clik_image src, dst, up, bk;
    ck_assert_int_eq(clik_image_alloc(&src, 8, 6, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&dst, 16, 12, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&up, 16, 12, 4, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&bk, 16, 12, 1, CLIK_U16), CLIK_OK);
    memset(src.data, 100, src.stride * 6);
    memset(up.data, 0, up.stride * 12); /* +0.0f: a flat upsample */
    ck_assert_int_eq(clik_upscale_lapar(ctx, &src, &dst, 2, NULL), CLIK_OK);
    ck_assert_int_eq(clik_upscale_lapar(ctx, &src, &dst, 3, NULL), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_upscale_lapar(ctx, &src, &dst, 5, NULL), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_upscale_lapar(ctx, &src, &src, 2, NULL), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_upscale_lapar(NULL, &src, &dst, 2, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_upscale_lapar(ctx, NULL, &dst, 2, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_classify(ctx, &up, NULL, 2, &bk), CLIK_OK);
    ck_assert_int_eq(clik_lapar_classify(ctx, &src, NULL, 2, &bk), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_classify(ctx, &up, NULL, 2, &dst), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_classify(ctx, &up, NULL, 7, &bk), CLIK_ERR_INVALID_ARG);
    /* The file functions. */
    clik_lapar_model *m = NULL;
    ck_assert_int_eq(clik_lapar_model_read(ctx, NULL, 10, &m), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_model_read(NULL, "x", 1, &m), CLIK_ERR_NULL);
    size_t n;
    ck_assert_int_eq(clik_lapar_model_write(ctx, NULL, NULL, 0, &n), CLIK_ERR_NULL);
    clik_lapar_model_free(NULL);
    clik_lapar_model_free((clik_lapar_model *)clik_lapar_model_default(2)); /* ignored */
    ck_assert_ptr_nonnull(clik_lapar_model_default(2));
    h_free_images(&src, &dst, &up, &bk, NULL);
}
END_TEST

int main(void)
{
    /* the pixel kernels with the filter from global memory and, as on GPUs,
     * through local memory; the row kernels (CPU devices) with the upsample
     * by rows and by pixels */
    static const char *const tunings[] = {
        "lmodel_local=0,lmodel_rows=0", "lmodel_local=1,lmodel_rows=0,poison=1",
        "lmodel_rows=1,lapar_up_rows=1,poison=1", "lmodel_rows=1,lapar_up_rows=0", NULL};
    const h_test tests[] = {H_TEST(matches_oracle),
                            H_TEST(classify_hand_worked),
                            H_TEST(uniform_model_is_filter),
                            H_TEST(trained_beats_bicubic),
                            H_TEST(train_small_and_mixed),
                            H_TEST(free_filter_kind),
                            H_TEST(file_format),
                            H_TEST(three_channels),
                            H_TEST(bgr_swaps),
                            H_TEST(bad_input)};
    return h_suite_main(
        &(h_suite){"lapar_model", NULL, 1200, tests, H_COUNT(tests), tunings, NULL});
}

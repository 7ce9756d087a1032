/* LAPAR family (dictionary, upsample, filter, compression, work-group search) on every backend
 * against the scalar oracle. SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dirent.h>

#include "cases.h"
#include "harness.h"

#define TAPS CLIK_LAPAR_TAPS

/* ---- helpers ---------------------------------------------------------------------------- */

static uint64_t rng_state = 0x1234567u;

static double rnd(void)
{
    return (double)(sup_rand_next(&rng_state) >> 11) * (1.0 / 9007199254740992.0);
}

static float *pixel_f32(const clik_image *img, int x, int y)
{
    return (float *)(void *)((char *)img->data + (size_t)y * img->stride) +
           (size_t)x * img->channels;
}

static uint8_t *pixel_u8(const clik_image *img, int x, int y)
{
    return (uint8_t *)img->data + (size_t)y * img->stride + (size_t)x * img->channels;
}

/* An IEEE half of a float (round to nearest even; finite, in range). */
static uint16_t half_of(float f)
{
    if (f == 0.0f)
        return signbit(f) ? 0x8000u : 0;
    const uint16_t sign = f < 0 ? 0x8000u : 0;
    const float a = fabsf(f);
    if (a < 6.103515625e-05f)
        return (uint16_t)(sign | (uint16_t)lrintf(a * 16777216.0f));
    int e;
    long q = lrintf(frexpf(a, &e) * 2048.0f);
    if (q == 2048) {
        q = 1024;
        e++;
    }
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)(q - 1024));
}

/* A random low-resolution image: u8 or f32 values in 0..255. */
static void fill_lr(clik_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                const double v = floor(rnd() * 256.0);
                if (img->type == CLIK_U8)
                    pixel_u8(img, x, y)[c] = (uint8_t)v;
                else
                    pixel_f32(img, x, y)[c] = (float)(v + 0.25 * rnd());
            }
}

/* phi of `planes` planes of w x h, every value v(l, x, y). */
static void fill_phi(clik_image *phi, int h, float (*v)(int l, int x, int y))
{
    for (int y = 0; y < phi->height; y++)
        for (int x = 0; x < phi->width; x++) {
            const float f = v(y / h, x, y % h);
            char *row = (char *)phi->data + (size_t)y * phi->stride;
            if (phi->type == CLIK_F16)
                ((uint16_t *)(void *)row)[x] = half_of(f);
            else
                ((float *)(void *)row)[x] = f;
        }
}

static float phi_random(int l, int x, int y)
{
    (void)l, (void)x, (void)y;
    return (float)((rnd() * 2.0 - 0.4) / 24.0);
}

/* Compares a filter's output with the oracle's: u8 U8-FLOAT; f32 within
 * 1e-4 of the output's largest magnitude (and bit for bit where NaN). */
static void check_output(const clik_image *got, const clik_image *want, const char *what)
{
    const int w = want->width, h = want->height, ch = want->channels;
    sup_compare cmp;
    if (want->type == CLIK_U8) {
        sup_compare_images(got, want, SUP_TOL_U8_FLOAT, &cmp);
        ck_assert_msg(cmp.pass, "%s on %s: %s", what, h_backend, cmp.detail);
    } else {
        double most = 1.0, worst = 0.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w * ch; x++) {
                const double b = pixel_f32(want, 0, y)[x];
                most = isfinite(b) && fabs(b) > most ? fabs(b) : most;
            }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w * ch; x++) {
                const double a = pixel_f32(got, 0, y)[x], b = pixel_f32(want, 0, y)[x];
                ck_assert_msg(isnan(a) == isnan(b), "%s on %s: NaN at %d,%d", what, h_backend, x,
                              y);
                if (!isnan(a))
                    worst = fabs(a - b) > worst ? fabs(a - b) : worst;
            }
        ck_assert_msg(worst <= 1e-4 * most, "%s on %s: |diff| %g, range %g", what, h_backend, worst,
                      most);
    }
}

/* Runs the filter on ctx and on the oracle and compares (check_output). */
static void check_filter_on(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                            const clik_lapar_dict *d, int scale, const char *what)
{
    clik_image got, want;
    const int w = lr->width * scale, h = lr->height * scale;
    ck_assert_int_eq(clik_image_alloc(&got, w, h, lr->channels, lr->type), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&want, w, h, lr->channels, lr->type), CLIK_OK);
    clik_status st = clik_lapar_filter(ctx, lr, phi, d, scale, &got);
    ck_assert_msg(st == CLIK_OK, "%s on %s: %s: %s", what, h_backend, clik_status_str(st),
                  clik_context_message(ctx));
    ck_assert_int_eq(clik_context_last_backend(ctx), h_expected);
    ck_assert_int_eq(clik_lapar_filter(h_oracle, lr, phi, d, scale, &want), CLIK_OK);
    check_output(&got, &want, what);
    h_free_images(&got, &want, NULL);
}

static void check_filter(const clik_image *lr, const clik_image *phi, const clik_lapar_dict *d,
                         int scale, const char *what)
{
    check_filter_on(h_ctx, lr, phi, d, scale, what);
}

/* ---- the conformance cases ---------------------------------------------------------------- */

/* The test sizes up to the first that holds every case's crop (cases_lapar.c:
 * at most 128 x 96); the larger ones repeat its problems. */
static int crop_sizes(void)
{
    int n = 1;
    while (n < sup_test_size_count &&
           (sup_test_sizes[n - 1][0] < 128 || sup_test_sizes[n - 1][1] < 96))
        n++;
    return n;
}

/* Each case against the oracle (h_check_case) at the sizes up to that one;
 * past 128 x 64, which holds all crops but two, one pattern per channel
 * count. Every size and pattern with CLIK_TEST_FULL=1. */
START_TEST(matches_oracle)
{
    const sup_case *c = h_family_case("lapar", _i);
    if (h_full)
        h_check_case(c);
    else
        h_check_case_sizes(c, crop_sizes(), 128 * 64);
}
END_TEST

/* ---- the default dictionary --------------------------------------------------------------- */

/*
 * Reference values from an independent computation of the closed form
 * in NumPy (float64, then float32): the sums over all 1800 weights, plain,
 * of magnitudes and weighted by position (1..1800), and some weights with
 * their float bits. The official dictionary file is not available here; the
 * closed form (Gaussians and differences of Gaussians, Li et al. 2020,
 * as summarised by Zhao et al. 2021, section II-A) is what clik_lapar.h
 * documents.
 */
START_TEST(default_dictionary)
{
    float D[CLIK_LAPAR_ATOMS * TAPS];
    ck_assert_int_eq(clik_lapar_dict_default(NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_dict_default(D), CLIK_OK);
    double sum = 0.0, mag = 0.0, weighted = 0.0;
    for (int i = 0; i < CLIK_LAPAR_ATOMS * TAPS; i++) {
        sum += D[i];
        mag += fabs(D[i]);
        weighted += D[i] * (double)(i + 1);
    }
    ck_assert_msg(fabs(sum - 71.99999987736237) < 1e-9, "sum %.17g", sum);
    ck_assert_msg(fabs(mag - 88.79999992281091) < 1e-9, "magnitudes %.17g", mag);
    ck_assert_msg(fabs(weighted - 64835.99982809404) < 1e-6, "weighted %.17g", weighted);
    static const struct {
        int atom, tap;
        uint32_t bits;
    } ref[] = {{0, 12, 1031891591u},  {0, 0, 1019113512u},   {7, 3, 1016831405u},
               {19, 12, 1047305776u}, {30, 7, 1012491766u},  {31, 12, 1039238206u},
               {44, 2, 944185114u},   {50, 12, 1062752103u}, {50, 7, 1024987240u},
               {51, 12, 3185320027u}, {52, 0, 1026196703u},  {60, 13, 3183739440u},
               {71, 18, 3171853339u}};
    for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
        uint32_t bits;
        memcpy(&bits, &D[ref[i].atom * TAPS + ref[i].tap], sizeof(bits));
        /* The same float, or its neighbour (a last-bit difference of exp). */
        ck_assert_msg(bits == ref[i].bits || bits + 1 == ref[i].bits || bits == ref[i].bits + 1,
                      "atom %d tap %d: %.9g (bits %u, expected %u)", ref[i].atom, ref[i].tap,
                      D[ref[i].atom * TAPS + ref[i].tap], bits, ref[i].bits);
    }
    for (int l = 0; l < CLIK_LAPAR_ATOMS; l++) {
        double s = 0.0, pos = 0.0, neg = 0.0;
        for (int k = 0; k < TAPS; k++) {
            const float v = D[l * TAPS + k];
            /* Exactly centrally symmetric: the kernels use it. */
            ck_assert_msg(v == D[l * TAPS + 24 - k], "atom %d tap %d", l, k);
            s += v;
            pos += v > 0 ? v : 0;
            neg += v < 0 ? v : 0;
        }
        if (l <= 50) {
            ck_assert_msg(fabs(s - 1.0) < 1e-6 && neg == 0.0, "Gaussian %d sums to %g", l, s);
        } else {
            ck_assert_msg(fabs(pos - 1.4) < 1e-6 && fabs(neg + 0.4) < 1e-6, "DoG %d: %g %g", l, pos,
                          neg);
        }
    }
    /* The isotropic atoms peak at the centre; an elongated one at 0 degrees
     * spreads along x (row 2) more than along y (column 2). */
    ck_assert(D[0 * TAPS + 12] > D[0 * TAPS + 11] && D[0 * TAPS + 11] == D[0 * TAPS + 7]);
    ck_assert(D[19 * TAPS + 11] > D[19 * TAPS + 7]);
}
END_TEST

/* ---- hand-worked values --------------------------------------------------------------------- */

/* One atom with weight 1 at tap (r, c). */
static void delta_atom(float *atom, int r, int c)
{
    memset(atom, 0, TAPS * sizeof(float));
    atom[5 * r + c] = 1.0f;
}

static float phi_one(int l, int x, int y)
{
    (void)l, (void)x, (void)y;
    return 1.0f;
}

START_TEST(hand_worked)
{
    /* A row [10, 30], scale 2: U = [7.890625, 14.53125, 25.46875, 32.109375]
     * (Keys' weights -9/256, 67/256, 225/256, -27/256 at the phase 0.75 and
     * their mirror at 0.25, taps clamped), exact in float. */
    float row[2] = {10, 30}, u[4] = {0};
    clik_image lr, out;
    ck_assert_int_eq(clik_image_wrap(&lr, 2, 1, 1, CLIK_F32, row, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&out, 4, 2, 1, CLIK_F32, NULL, 0), CLIK_ERR_NULL);
    float ubuf[8];
    ck_assert_int_eq(clik_image_wrap(&out, 4, 2, 1, CLIK_F32, ubuf, 0), CLIK_OK);
    ck_assert_int_eq(clik_lapar_upsample(h_ctx, &lr, 2, &out), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    memcpy(u, ubuf, sizeof(u));
    const float want_u[4] = {7.890625f, 14.53125f, 25.46875f, 32.109375f};
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq(u[i], want_u[i]);
        ck_assert_float_eq(ubuf[4 + i], want_u[i]); /* the second row: the same source row */
    }
    /* phi = 1 on one atom that takes the tap two to the left (row 2,
     * column 0): out(x) = U(x - 2), reflected: U(2), U(1), U(0), U(1). */
    float atom[TAPS], phi_data[8], res[8];
    delta_atom(atom, 2, 0);
    clik_lapar_dict d = {1, atom, NULL};
    clik_image phi, dst;
    for (int i = 0; i < 8; i++)
        phi_data[i] = 1.0f;
    ck_assert_int_eq(clik_image_wrap(&phi, 4, 2, 1, CLIK_F32, phi_data, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&dst, 4, 2, 1, CLIK_F32, res, 0), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d, 2, &dst), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    const float want[4] = {25.46875f, 14.53125f, 7.890625f, 14.53125f};
    for (int i = 0; i < 4; i++)
        ck_assert_float_eq(res[i], want[i]);
    /* Two planes weighting one atom each: phi 0.5 and 2 on taps (0, 2) and
     * (2, 4): out(x) = 0.5 U(x, y - 2) + 2 U(x + 2, y); one source row, so
     * every row of U is the same. */
    float atoms2[2 * TAPS], phi2[16];
    delta_atom(atoms2, 0, 2);
    delta_atom(atoms2 + TAPS, 2, 4);
    for (int i = 0; i < 8; i++) {
        phi2[i] = 0.5f;
        phi2[8 + i] = 2.0f;
    }
    clik_lapar_dict d2 = {2, atoms2, NULL};
    ck_assert_int_eq(clik_image_wrap(&phi, 4, 4, 1, CLIK_F32, phi2, 0), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d2, 2, &dst), CLIK_OK);
    for (int x = 0; x < 4; x++) {
        const int right = x + 2 < 4 ? x + 2 : 2 * 3 - (x + 2);
        ck_assert_float_eq(res[x], 0.5f * want_u[x] + 2.0f * want_u[right]);
    }
    /* u8: 1 x 1 image, the corner tap: out = phi * 100 everywhere. */
    uint8_t one = 100, ones[16];
    float corner[TAPS], half_phi[16];
    delta_atom(corner, 0, 0);
    for (int i = 0; i < 16; i++)
        half_phi[i] = 0.51171875f; /* 131 / 256 */
    clik_lapar_dict d3 = {1, corner, NULL};
    ck_assert_int_eq(clik_image_wrap(&lr, 1, 1, 1, CLIK_U8, &one, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&phi, 4, 4, 1, CLIK_F32, half_phi, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&dst, 4, 4, 1, CLIK_U8, ones, 0), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d3, 4, &dst), CLIK_OK);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(ones[i], 51); /* 51.171875 */
}
END_TEST

/* phi = 1 on the centred delta: the bicubic upsample itself, bit for bit
 * (the same path), and clik_resize's bicubic of f32 for scales 2 and 4,
 * whose phases are exact in binary, on the float paths (within F32 at 3,
 * and on the scalar path, which sums in double). */
START_TEST(delta_gives_upsample)
{
    for (int s = 2; s <= 4; s++)
        for (int ch = 1; ch <= 4; ch += 3) {
            clik_image lr, u, out, rs, phi;
            const int w = 23 + s, h = 11 + 2 * s;
            ck_assert_int_eq(clik_image_alloc(&lr, w, h, ch, CLIK_F32), CLIK_OK);
            fill_lr(&lr);
            ck_assert_int_eq(clik_image_alloc(&u, w * s, h * s, ch, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&out, w * s, h * s, ch, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&rs, w * s, h * s, ch, CLIK_F32), CLIK_OK);
            ck_assert_int_eq(clik_image_alloc(&phi, w * s, h * s, 1, CLIK_F32), CLIK_OK);
            fill_phi(&phi, h * s, phi_one);
            float atom[TAPS];
            delta_atom(atom, 2, 2);
            clik_lapar_dict d = {1, atom, NULL};
            ck_assert_int_eq(clik_lapar_upsample(h_ctx, &lr, s, &u), CLIK_OK);
            ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d, s, &out), CLIK_OK);
            ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
            ck_assert_int_eq(clik_resize(h_ctx, &lr, &rs, CLIK_INTERP_BICUBIC), CLIK_OK);
            for (int y = 0; y < h * s; y++)
                for (int x = 0; x < w * s; x++)
                    for (int c = 0; c < ch; c++) {
                        const float o = pixel_f32(&out, x, y)[c], uu = pixel_f32(&u, x, y)[c];
                        ck_assert_msg(o == uu, "x%d ch %d (%d,%d): %.9g, U %.9g", s, ch, x, y, o,
                                      uu);
                        if (c == 3) {
                            /* Alpha: the source pixel's own. */
                            ck_assert_float_eq(o, pixel_f32(&lr, x / s, y / s)[3]);
                            continue;
                        }
                        const float r = pixel_f32(&rs, x, y)[c];
                        if (s != 3 && h_expected != CLIK_BACKEND_SCALAR)
                            ck_assert_msg(o == r, "x%d (%d,%d): %.9g, clik_resize %.9g", s, x, y, o,
                                          r);
                        else
                            ck_assert_msg(fabsf(o - r) <= 1e-4f * fmaxf(1.0f, fabsf(r)),
                                          "x%d (%d,%d): %.9g, clik_resize %.9g", s, x, y, o, r);
                    }
            h_free_images(&lr, &u, &out, &rs, &phi, NULL);
        }
}
END_TEST

static float phi_zero(int l, int x, int y)
{
    (void)l, (void)x, (void)y;
    return 0.0f;
}

/* phi = 0: 0 in every colour channel, alpha carried over. */
START_TEST(zero_phi)
{
    float D[CLIK_LAPAR_ATOMS * TAPS];
    clik_lapar_dict_default(D);
    clik_lapar_dict d = {CLIK_LAPAR_ATOMS, D, NULL};
    for (int t = 0; t < 2; t++) {
        const clik_type type = t ? CLIK_F32 : CLIK_U8;
        clik_image lr, phi, out;
        ck_assert_int_eq(clik_image_alloc(&lr, 9, 5, 4, type), CLIK_OK);
        fill_lr(&lr);
        ck_assert_int_eq(clik_image_alloc(&phi, 27, 15 * CLIK_LAPAR_ATOMS, 1, CLIK_F16), CLIK_OK);
        fill_phi(&phi, 15, phi_zero);
        ck_assert_int_eq(clik_image_alloc(&out, 27, 15, 4, type), CLIK_OK);
        ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d, 3, &out), CLIK_OK);
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        for (int y = 0; y < 15; y++)
            for (int x = 0; x < 27; x++)
                for (int c = 0; c < 4; c++) {
                    const double v =
                        type == CLIK_U8 ? pixel_u8(&out, x, y)[c] : pixel_f32(&out, x, y)[c];
                    const double a = type == CLIK_U8 ? pixel_u8(&lr, x / 3, y / 3)[3]
                                                     : pixel_f32(&lr, x / 3, y / 3)[3];
                    ck_assert_msg(v == (c == 3 ? a : 0.0), "(%d,%d,%d): %g", x, y, c, v);
                }
        h_free_images(&lr, &phi, &out, NULL);
    }
}
END_TEST

/* A NaN in a plane the filter reads: that pixel's colour channels NaN (f32)
 * or 0 (u8), alpha and every other pixel as without it; a NaN in a plane a
 * selection skips changes nothing. */
START_TEST(nan_in_phi)
{
    float D[CLIK_LAPAR_ATOMS * TAPS];
    clik_lapar_dict_default(D);
    for (int t = 0; t < 2; t++) {
        const clik_type type = t ? CLIK_F32 : CLIK_U8;
        const int s = 2, w = 7, h = 6, W = w * s, H = h * s;
        clik_image lr, phi, out, ref;
        ck_assert_int_eq(clik_image_alloc(&lr, w, h, 4, type), CLIK_OK);
        fill_lr(&lr);
        ck_assert_int_eq(clik_image_alloc(&phi, W, H * CLIK_LAPAR_ATOMS, 1, CLIK_F32), CLIK_OK);
        fill_phi(&phi, H, phi_random);
        ck_assert_int_eq(clik_image_alloc(&out, W, H, 4, type), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&ref, W, H, 4, type), CLIK_OK);
        clik_lapar_dict d = {CLIK_LAPAR_ATOMS, D, NULL};
        ck_assert_int_eq(clik_lapar_filter(h_oracle, &lr, &phi, &d, s, &ref), CLIK_OK);
        /* Plane 40 at (5, 3). */
        *(float *)(void *)((char *)phi.data + (size_t)(40 * H + 3) * phi.stride + 5 * 4) = NAN;
        ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d, s, &out), CLIK_OK);
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 4; c++) {
                    const int hit = x == 5 && y == 3 && c < 3;
                    if (type == CLIK_F32) {
                        const float v = pixel_f32(&out, x, y)[c], r = pixel_f32(&ref, x, y)[c];
                        ck_assert_msg(hit ? isnan(v) : fabsf(v - r) <= 1e-3f, "(%d,%d,%d) %g", x, y,
                                      c, v);
                    } else {
                        const int v = pixel_u8(&out, x, y)[c], r = pixel_u8(&ref, x, y)[c];
                        ck_assert_msg(hit ? v == 0 : abs(v - r) <= 1, "(%d,%d,%d) %d", x, y, c, v);
                    }
                }
        /* A selection that skips plane 40: nothing changes. */
        clik_lapar_selection sel = {.atoms = CLIK_LAPAR_ATOMS, .kept = 3, .index = {3, 39, 41}};
        sel.gamma[0] = sel.gamma[1] = sel.gamma[2] = 1.0f;
        d.selection = &sel;
        ck_assert_int_eq(clik_lapar_filter(h_ctx, &lr, &phi, &d, s, &out), CLIK_OK);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 3; c++) {
                    const double v =
                        type == CLIK_U8 ? pixel_u8(&out, x, y)[c] : pixel_f32(&out, x, y)[c];
                    ck_assert_msg(!isnan(v), "(%d,%d,%d)", x, y, c);
                }
        h_free_images(&lr, &phi, &out, &ref, NULL);
    }
}
END_TEST

/* Every scale, both formats, channel counts and phi types, small and odd
 * sizes (1 x 1 upwards), symmetric and general dictionaries, selections. */
START_TEST(sizes_and_scales)
{
    static const int sizes[][2] = {{1, 1}, {2, 3}, {3, 1}, {7, 7}, {13, 5}};
    float D[CLIK_LAPAR_ATOMS * TAPS], G[9 * TAPS];
    clik_lapar_dict_default(D);
    for (int i = 0; i < 9 * TAPS; i++)
        G[i] = (float)(rnd() - 0.3);
    clik_lapar_selection sel = {.atoms = CLIK_LAPAR_ATOMS, .kept = 4, .index = {0, 17, 50, 71}};
    for (int i = 0; i < 4; i++)
        sel.gamma[i] = (float)(0.5 + i * 0.25);
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int s = 2; s <= 4; s++)
            for (int v = 0; v < 8; v++) {
                const int w = sizes[z][0], h = sizes[z][1], ch = v & 1 ? 4 : 1;
                const clik_type type = v & 2 ? CLIK_F32 : CLIK_U8;
                const int general = v & 4, compact = !general && (z + (size_t)s) % 2;
                clik_lapar_dict d = {general ? 9 : CLIK_LAPAR_ATOMS, general ? G : D, NULL};
                if (!general && s == 3)
                    d.selection = &sel;
                const int planes = d.selection && compact ? 4 : d.atoms;
                clik_image lr, phi;
                ck_assert_int_eq(clik_image_alloc(&lr, w, h, ch, type), CLIK_OK);
                fill_lr(&lr);
                ck_assert_int_eq(clik_image_alloc(&phi, w * s, h * s * planes, 1,
                                                  (v + s) % 3 ? CLIK_F32 : CLIK_F16),
                                 CLIK_OK);
                fill_phi(&phi, h * s, phi_random);
                char what[96];
                snprintf(what, sizeof(what), "%dx%dx%d %s x%d %s %d planes", w, h, ch,
                         clik_type_name(type), s, clik_type_name(phi.type), planes);
                check_filter(&lr, &phi, &d, s, what);
                h_free_images(&lr, &phi, NULL);
            }
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------------- */

/* 3-channel images (through 4-channel copies) give what 4 channels give. */
START_TEST(three_channels)
{
    h_check_family_three_channels("lapar");
}
END_TEST

START_TEST(bad_input)
{
    float D[CLIK_LAPAR_ATOMS * TAPS];
    clik_lapar_dict_default(D);
    const int s = 2, w = 5, h = 4, L = CLIK_LAPAR_ATOMS;
    clik_image lr, phi, dst, small, wrong;
    ck_assert_int_eq(clik_image_alloc(&lr, w, h, 1, CLIK_U8), CLIK_OK);
    fill_lr(&lr);
    ck_assert_int_eq(clik_image_alloc(&phi, w * s, h * s * L, 1, CLIK_F32), CLIK_OK);
    fill_phi(&phi, h * s, phi_random);
    ck_assert_int_eq(clik_image_alloc(&dst, w * s, h * s, 1, CLIK_U8), CLIK_OK);
    memset(dst.data, 0x5a, dst.stride * (size_t)dst.height);
    clik_lapar_dict d = {L, D, NULL};
    clik_context *c = h_ctx;
    ck_assert_int_eq(clik_lapar_filter(NULL, &lr, &phi, &d, s, &dst), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_filter(c, NULL, &phi, &d, s, &dst), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, NULL, &d, s, &dst), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, NULL, s, &dst), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &d, s, NULL), CLIK_ERR_NULL);
    /* Scales 1 and 5. */
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &d, 1, &dst), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &d, 5, &dst), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_lapar_upsample(c, &lr, 5, &dst), CLIK_ERR_INVALID_ARG);
    /* Dictionaries of the wrong shape. */
    clik_lapar_dict bad = {0, D, NULL};
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    bad.atoms = CLIK_LAPAR_MAX_ATOMS + 1;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    bad.atoms = L;
    bad.data = NULL;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_NULL);
    float nan_dict[CLIK_LAPAR_ATOMS * TAPS];
    memcpy(nan_dict, D, sizeof(D));
    nan_dict[333] = NAN;
    bad.data = nan_dict;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    /* A dictionary of fewer atoms than phi's planes (or more). */
    bad.data = D;
    bad.atoms = L - 1;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_SIZE_MISMATCH);
    /* Selections. */
    clik_lapar_selection sel = {.atoms = L, .kept = 2, .index = {5, 3}, .gamma = {1, 1}};
    bad.atoms = L;
    bad.selection = &sel;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    sel.index[1] = L;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    sel.index[1] = 7;
    sel.kept = 0;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    sel.kept = 2;
    sel.atoms = L - 1;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    sel.atoms = L;
    sel.gamma[1] = INFINITY;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &bad, s, &dst), CLIK_ERR_INVALID_ARG);
    /* phi: wrong width, plane count, type, channels. */
    clik_image p2 = phi;
    p2.width = w * s - 1;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &p2, &d, s, &dst), CLIK_ERR_SIZE_MISMATCH);
    p2 = phi;
    p2.height = h * s * L - 1;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &p2, &d, s, &dst), CLIK_ERR_SIZE_MISMATCH);
    p2.height = h * s * (L - 1);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &p2, &d, s, &dst), CLIK_ERR_SIZE_MISMATCH);
    p2 = phi;
    p2.type = CLIK_U16;
    p2.width = w * s * 2;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &p2, &d, s, &dst), CLIK_ERR_UNSUPPORTED_FORMAT);
    /* dst: wrong size, type, channels; lr: 2 channels, u16. */
    ck_assert_int_eq(clik_image_alloc(&small, w * s - 1, h * s, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &d, s, &small), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_image_alloc(&wrong, w * s, h * s, 1, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &d, s, &wrong), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_upsample(c, &lr, s, &small), CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_image two;
    ck_assert_int_eq(clik_image_alloc(&two, w, h, 2, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(c, &two, &phi, &d, s, &dst), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_lapar_upsample(c, &two, s, &wrong), CLIK_ERR_UNSUPPORTED_FORMAT);
    /* dst over phi's memory. */
    clik_image over = dst;
    over.data = phi.data;
    ck_assert_int_eq(clik_lapar_filter(c, &lr, &phi, &d, s, &over), CLIK_ERR_INVALID_ARG);
    /* Nothing was written. */
    for (size_t i = 0; i < dst.stride * (size_t)dst.height; i++)
        ck_assert_int_eq(((uint8_t *)dst.data)[i], 0x5a);
    /* The tuning calls check the same and need a device. */
    clik_lapar_tuning t;
    ck_assert_int_eq(clik_lapar_tuning_get(c, &lr, &phi, &d, 1, &dst, &t), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_lapar_tuning_get(c, &lr, &phi, &d, s, &dst, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_tune(c, &lr, &p2, &d, s, &dst, &t), CLIK_ERR_UNSUPPORTED_FORMAT);
    if (!clik_context_device(c)) {
        ck_assert_int_eq(clik_lapar_tune(c, &lr, &phi, &d, s, &dst, &t), CLIK_ERR_NO_DEVICE);
        ck_assert_int_eq(clik_lapar_tuning_get(c, &lr, &phi, &d, s, &dst, &t), CLIK_ERR_NO_DEVICE);
    }
    h_free_images(&lr, &phi, &dst, &small, &wrong, &two, NULL);
}
END_TEST

/* ---- the work-group search and the tuning store --------------------------------------------- */

/* A context on the device under test with its own cache folder. */
static clik_context *tuned_context(const char *dir, int local_memory)
{
    clik_context_options o = h_device_options(dir, 1);
    o.local_memory = local_memory;
    return h_context_create(&o);
}

/* The entries of dir/tune, at most max, full paths. */
static int store_entries(const char *dir, char (*names)[1024], int max)
{
    char path[512];
    snprintf(path, sizeof(path), "%.500s/tune", dir);
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max)
        if (strlen(e->d_name) > 4 && strcmp(e->d_name + strlen(e->d_name) - 4, ".bin") == 0)
            snprintf(names[n++], 1024, "%s/%.400s", path, e->d_name);
    if (d)
        closedir(d);
    return n;
}

static void flip_byte(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    const int c = fgetc(f);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ 0x20, f);
    fclose(f);
}

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    ck_assert(a && b);
    int c;
    while ((c = fgetc(a)) != EOF)
        fputc(c, b);
    fclose(a);
    fclose(b);
}

typedef struct problem {
    clik_image lr, phi, dst;
    clik_lapar_dict d;
    int scale;
} problem;

static float dict_default[CLIK_LAPAR_ATOMS * TAPS];

static void problem_make(problem *p, int w, int h, int ch, clik_type type, int scale)
{
    clik_lapar_dict_default(dict_default);
    p->d = (clik_lapar_dict){CLIK_LAPAR_ATOMS, dict_default, NULL};
    p->scale = scale;
    ck_assert_int_eq(clik_image_alloc(&p->lr, w, h, ch, type), CLIK_OK);
    fill_lr(&p->lr);
    ck_assert_int_eq(
        clik_image_alloc(&p->phi, w * scale, h * scale * CLIK_LAPAR_ATOMS, 1, CLIK_F32), CLIK_OK);
    fill_phi(&p->phi, h * scale, phi_random);
    ck_assert_int_eq(clik_image_alloc(&p->dst, w * scale, h * scale, ch, type), CLIK_OK);
}

static void problem_free(problem *p)
{
    clik_image_free(&p->lr);
    clik_image_free(&p->phi);
    clik_image_free(&p->dst);
}

static clik_lapar_tuning get_tuning(clik_context *ctx, problem *p)
{
    clik_lapar_tuning t;
    ck_assert_int_eq(clik_lapar_tuning_get(ctx, &p->lr, &p->phi, &p->d, p->scale, &p->dst, &t),
                     CLIK_OK);
    return t;
}

/* The search stores its result; a new context on the same folder uses it;
 * a corrupt or foreign entry is ignored (the default runs). */
START_TEST(tuning_store)
{
    problem p, other;
    /* f32 and 4 channels: the format of the tuning rows of test_misuse,
     * whose upsampled kernels (the search times them) llvmpipe compiles for
     * minutes, and of the 4-channel symmetric ones of the variants test. */
    problem_make(&p, 12, 8, 4, CLIK_F32, 2);
    problem_make(&other, 12, 8, 4, CLIK_U8, 3);
    clik_lapar_tuning best;
    if (!clik_context_device(h_ctx)) {
        ck_assert_int_eq(clik_lapar_tune(h_ctx, &p.lr, &p.phi, &p.d, 2, &p.dst, &best),
                         CLIK_ERR_NO_DEVICE);
        problem_free(&p);
        problem_free(&other);
        return;
    }
    char *dir = h_tempdir();
    ck_assert_ptr_nonnull(dir);
    clik_context *a = tuned_context(dir, -1);
    const clik_lapar_tuning before = get_tuning(a, &p);
    ck_assert_int_eq(before.stored, 0);
    ck_assert_int_ne(before.variant, CLIK_LAPAR_VARIANT_AUTO);
    clik_status st = clik_lapar_tune(a, &p.lr, &p.phi, &p.d, 2, &p.dst, &best);
    ck_assert_msg(st == CLIK_OK, "%s", clik_context_message(a));
    ck_assert(best.variant >= CLIK_LAPAR_VARIANT_UPSAMPLED &&
              best.variant <= CLIK_LAPAR_VARIANT_DIRECT);
    ck_assert(best.wg_x >= 1 && best.wg_y >= 1 && best.ms > 0.0 && best.stored == 1);
    /* The search's own output is the filter's. */
    clik_image want;
    ck_assert_int_eq(clik_image_alloc(&want, 24, 16, 4, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(h_oracle, &p.lr, &p.phi, &p.d, 2, &want), CLIK_OK);
    check_output(&p.dst, &want, "the search's output");
    clik_context_destroy(a);
    /* A new context on the folder: the stored tuning, and right results. */
    clik_context *b = tuned_context(dir, -1);
    clik_lapar_tuning t = get_tuning(b, &p);
    ck_assert_int_eq(t.stored, 1);
    ck_assert_int_eq(t.variant, best.variant);
    ck_assert_int_eq(t.wg_x, best.wg_x);
    ck_assert_int_eq(t.wg_y, best.wg_y);
    ck_assert(fabs(t.ms - best.ms) <= 1e-8 * best.ms);
    check_filter_on(b, &p.lr, &p.phi, &p.d, 2, "stored tuning");
    /* Another problem class has none. */
    ck_assert_int_eq(get_tuning(b, &other).stored, 0);
    char files[4][1024];
    ck_assert_int_eq(store_entries(dir, files, 4), 1);
    /* A context reads an entry once: the file gone, b still has it. */
    char kept[1040];
    snprintf(kept, sizeof(kept), "%.1000s.kept", files[0]);
    ck_assert_int_eq(rename(files[0], kept), 0);
    ck_assert_int_eq(get_tuning(b, &p).stored, 1);
    clik_context_destroy(b);
    b = tuned_context(dir, -1);
    ck_assert_int_eq(get_tuning(b, &p).stored, 0);
    clik_context_destroy(b);
    ck_assert_int_eq(rename(kept, files[0]), 0);
    /* A flipped byte: ignored, the default runs. */
    flip_byte(files[0], 60);
    clik_context *c = tuned_context(dir, -1);
    t = get_tuning(c, &p);
    ck_assert_int_eq(t.stored, 0);
    ck_assert_int_eq(t.variant, before.variant);
    check_filter_on(c, &p.lr, &p.phi, &p.d, 2, "corrupt tuning");
    /* A foreign entry (another class's, in this one's place): ignored. */
    clik_lapar_tuning set = {CLIK_LAPAR_VARIANT_DIRECT, 4, 2, 0.0, 0};
    ck_assert_int_eq(clik_lapar_tuning_set(c, &other.lr, &other.phi, &other.d, 3, &other.dst, &set),
                     CLIK_OK);
    ck_assert_int_eq(get_tuning(c, &other).stored, 1);
    char now[4][1024];
    const int n = store_entries(dir, now, 4);
    ck_assert_int_eq(n, 2);
    const char *theirs = strcmp(now[0], files[0]) == 0 ? now[1] : now[0];
    copy_file(theirs, files[0]);
    /* (c remembers its answer for p: a new context reads the file) */
    clik_context *f = tuned_context(dir, -1);
    ck_assert_int_eq(get_tuning(f, &p).stored, 0);
    clik_context_destroy(f);
    /* A store replaces the rejected entry. */
    ck_assert_int_eq(clik_lapar_tuning_set(c, &p.lr, &p.phi, &p.d, 2, &p.dst, &set), CLIK_OK);
    t = get_tuning(c, &p);
    ck_assert(t.stored == 1 && t.variant == set.variant && t.wg_x == 4 && t.wg_y == 2);
    /* Shapes the device cannot take, and AUTO, are refused. */
    set.wg_x = 1 << 20;
    ck_assert_int_eq(clik_lapar_tuning_set(c, &p.lr, &p.phi, &p.d, 2, &p.dst, &set),
                     CLIK_ERR_INVALID_ARG);
    set = (clik_lapar_tuning){CLIK_LAPAR_VARIANT_AUTO, 4, 4, 0.0, 0};
    ck_assert_int_eq(clik_lapar_tuning_set(c, &p.lr, &p.phi, &p.d, 2, &p.dst, &set),
                     CLIK_ERR_INVALID_ARG);
    clik_context_destroy(c);
    clik_image_free(&want);
    problem_free(&p);
    problem_free(&other);
    h_rmtree(dir);
}
END_TEST

/* Every variant at several work-group shapes (stored tunings select them),
 * each against the oracle, over scales and small odd sizes. At each shape
 * the symmetric and the general kernel run, each in one format in turn:
 * each kernel takes u8 and f32, f32 and f16 phi, the symmetric one 1 and 4
 * channels (the count changes only the stores, which the two share: a
 * 4-channel upsampled kernel takes llvmpipe minutes to compile, and f32
 * with f32 phi is the one that tuning_store and test_misuse compile too).
 * Every format at every shape with CLIK_TEST_FULL=1. */
START_TEST(variants)
{
    if (!clik_context_device(h_ctx))
        return; /* the CPU paths have no variants: bad_input checks the refusal */
    char *dir = h_tempdir();
    clik_context *ctx = tuned_context(dir, 1);
    static const int shapes[][2] = {{1, 1}, {3, 5}, {16, 4}, {8, 8}, {32, 2}};
    static const int sizes[][2] = {{1, 1}, {5, 3}, {13, 7}, {2, 9}};
    static const clik_lapar_variant kinds[3] = {
        CLIK_LAPAR_VARIANT_UPSAMPLED, CLIK_LAPAR_VARIANT_LOCAL, CLIK_LAPAR_VARIANT_DIRECT};
    /* Formats: bit 0 4 channels, bit 1 f32, bit 2 f16 phi; in turn, by
     * kernel (symmetric, general) and shape. */
    static const int in_turn[2][2] = {{4, 3}, {6, 0}};
    float G[5 * TAPS];
    for (int i = 0; i < 5 * TAPS; i++)
        G[i] = (float)(rnd() - 0.4);
    const int nshapes = h_small ? 2 : 5, nformats = h_full && !h_small ? 8 : 1;
    for (int v = 0; v < 3; v++)
        for (int z = 0; z < nshapes; z++)
            for (int general = 0; general < 2; general++)
                for (int n = 0; n < nformats; n++) {
                    const int f = nformats > 1 ? n : in_turn[general][z % 2];
                    const int i = (z + 2 * general + n) % 4, s = 2 + (z + general + n) % 3;
                    const int w = sizes[i][0], h = sizes[i][1], ch = f & 1 ? 4 : 1;
                    const clik_type type = f & 2 ? CLIK_F32 : CLIK_U8;
                    clik_lapar_dict_default(dict_default);
                    clik_lapar_dict d = {general ? 5 : CLIK_LAPAR_ATOMS, general ? G : dict_default,
                                         NULL};
                    clik_image lr, phi, dst;
                    ck_assert_int_eq(clik_image_alloc(&lr, w, h, ch, type), CLIK_OK);
                    fill_lr(&lr);
                    ck_assert_int_eq(clik_image_alloc(&phi, w * s, h * s * d.atoms, 1,
                                                      f & 4 ? CLIK_F16 : CLIK_F32),
                                     CLIK_OK);
                    fill_phi(&phi, h * s, phi_random);
                    ck_assert_int_eq(clik_image_alloc(&dst, w * s, h * s, ch, type), CLIK_OK);
                    const clik_lapar_tuning t = {kinds[v], shapes[z][0], shapes[z][1], 0.0, 0};
                    clik_status st = clik_lapar_tuning_set(ctx, &lr, &phi, &d, s, &dst, &t);
                    if (st == CLIK_ERR_INVALID_ARG) { /* beyond this device's limits */
                        h_free_images(&lr, &phi, &dst, NULL);
                        continue;
                    }
                    ck_assert_msg(st == CLIK_OK, "%s", clik_context_message(ctx));
                    clik_lapar_tuning got;
                    ck_assert_int_eq(clik_lapar_tuning_get(ctx, &lr, &phi, &d, s, &dst, &got),
                                     CLIK_OK);
                    ck_assert(got.stored && got.variant == t.variant && got.wg_x == t.wg_x &&
                              got.wg_y == t.wg_y);
                    char what[128];
                    snprintf(what, sizeof(what), "variant %d %dx%d: %dx%dx%d %s x%d %s%s", v + 1,
                             t.wg_x, t.wg_y, w, h, ch, clik_type_name(type), s,
                             clik_type_name(phi.type), general ? " general" : "");
                    check_filter_on(ctx, &lr, &phi, &d, s, what);
                    h_free_images(&lr, &phi, &dst, NULL);
                }
    clik_context_destroy(ctx);
    h_rmtree(dir);
}
END_TEST

/* ---- dictionary compression ----------------------------------------------------------------- */

static float phi_positive(int l, int x, int y)
{
    (void)l, (void)x, (void)y;
    return (float)(0.2 + rnd());
}

/* Calibration data whose truth is made by `kept` atoms of the default
 * dictionary with weights w: the filter of that selection on the oracle. */
typedef struct calibration {
    clik_image lr, phi, u, truth;
    clik_lapar_calib c;
} calibration;

static void calibration_make(calibration *cal, int w, int h, int ch, const clik_lapar_dict *truth)
{
    const int s = 2, L = CLIK_LAPAR_ATOMS;
    ck_assert_int_eq(clik_image_alloc(&cal->lr, w, h, ch, CLIK_F32), CLIK_OK);
    fill_lr(&cal->lr);
    ck_assert_int_eq(clik_image_alloc(&cal->phi, w * s, h * s * L, 1, CLIK_F32), CLIK_OK);
    fill_phi(&cal->phi, h * s, phi_positive);
    ck_assert_int_eq(clik_image_alloc(&cal->u, w * s, h * s, ch, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&cal->truth, w * s, h * s, ch, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(clik_lapar_upsample(h_oracle, &cal->lr, s, &cal->u), CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(h_oracle, &cal->lr, &cal->phi, truth, s, &cal->truth),
                     CLIK_OK);
    cal->c = (clik_lapar_calib){&cal->phi, &cal->u, &cal->truth};
}

static void calibration_free(calibration *cal)
{
    clik_image_free(&cal->lr);
    clik_image_free(&cal->phi);
    clik_image_free(&cal->u);
    clik_image_free(&cal->truth);
}

/* Mean squared error of dict's filter against the calibration truth
 * (colour channels). */
static double calibration_mse(const calibration *cal, const clik_lapar_dict *d)
{
    clik_image out;
    ck_assert_int_eq(clik_image_alloc(&out, cal->u.width, cal->u.height, cal->u.channels, CLIK_F32),
                     CLIK_OK);
    ck_assert_int_eq(clik_lapar_filter(h_ctx, &cal->lr, &cal->phi, d, 2, &out), CLIK_OK);
    double se = 0.0;
    long n = 0;
    for (int y = 0; y < out.height; y++)
        for (int x = 0; x < out.width; x++)
            for (int c = 0; c < (out.channels == 4 ? 3 : 1); c++) {
                const double e = pixel_f32(&out, x, y)[c] - pixel_f32(&cal->truth, x, y)[c];
                se += e * e;
                n++;
            }
    clik_image_free(&out);
    return se / (double)n;
}

START_TEST(compress_recovers_subset)
{
    /* The search is host code, the same on every backend (the filters of
     * the selections it makes run on each in the cases lapar-x3-selected
     * and lapar-x4-refit): the scalar suite runs it. */
    if (h_expected != CLIK_BACKEND_SCALAR)
        return;
    const int L = CLIK_LAPAR_ATOMS;
    clik_lapar_dict_default(dict_default);
    static const int subset[5] = {3, 17, 40, 55, 66};
    static const float weights[5] = {0.9f, 0.35f, 1.3f, 0.6f, 0.8f};
    clik_lapar_selection truth_sel = {.atoms = L, .kept = 5};
    for (int i = 0; i < 5; i++) {
        truth_sel.index[i] = subset[i];
        truth_sel.gamma[i] = weights[i];
    }
    const clik_lapar_dict full = {L, dict_default, NULL}, truth = {L, dict_default, &truth_sel};
    calibration cal[2];
    calibration_make(&cal[0], 40, 28, 4, &truth);
    calibration_make(&cal[1], 33, 21, 1, &truth);
    const clik_lapar_calib calib[2] = {cal[0].c, cal[1].c};
    clik_lapar_compress_options opt;
    clik_lapar_compress_options_init(&opt);
    opt.samples = 2048;
    opt.refit_samples = 1024;
    clik_lapar_selection sel, again;
    float *mix = malloc(sizeof(float) * 5 * (size_t)L),
          *mix2 = malloc(sizeof(float) * 5 * (size_t)L);
    ck_assert(mix && mix2);
    /* alpha 5 / 72: the five atoms, their weights. */
    clik_status st = clik_lapar_compress(h_ctx, calib, 2, &full, 5.0 / L, &opt, &sel, mix);
    ck_assert_msg(st == CLIK_OK, "%s", clik_context_message(h_ctx));
    ck_assert_int_eq(sel.atoms, L);
    ck_assert_int_eq(sel.kept, 5);
    ck_assert_ptr_eq(sel.mix, mix);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(sel.index[i], subset[i]);
        ck_assert_msg(fabsf(sel.gamma[i] - weights[i]) <= 1e-3f * weights[i], "gamma %d: %g", i,
                      sel.gamma[i]);
    }
    /* The re-fit maps plane subset[i] to kept atom i with weight w_i, and
     * reproduces the truth as well. */
    for (int i = 0; i < 5; i++)
        for (int l = 0; l < L; l++) {
            const float want = l == subset[i] ? weights[i] : 0.0f;
            ck_assert_msg(fabsf(mix[i * L + l] - want) <= 1e-3f, "mix %d %d: %g", i, l,
                          mix[i * L + l]);
        }
    clik_lapar_selection gamma_only = sel;
    gamma_only.mix = NULL;
    const clik_lapar_dict with_gamma = {L, dict_default, &gamma_only},
                          with_mix = {L, dict_default, &sel};
    ck_assert(calibration_mse(&cal[0], &with_gamma) < 1e-6);
    ck_assert(calibration_mse(&cal[0], &with_mix) < 1e-6);
    /* Deterministic. */
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 2, &full, 5.0 / L, &opt, &again, mix2),
                     CLIK_OK);
    again.mix = sel.mix;
    ck_assert_mem_eq(&again, &sel, sizeof(sel));
    ck_assert_mem_eq(mix, mix2, sizeof(float) * 5 * (size_t)L);
    /* Fewer atoms than the truth has: a subset of it; all of them: alpha 1. */
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 2, &full, 3.0 / L, &opt, &sel, NULL),
                     CLIK_OK);
    ck_assert_int_eq(sel.kept, 3);
    ck_assert_ptr_null(sel.mix);
    for (int i = 0; i < 3; i++) {
        int in_truth = 0;
        for (int j = 0; j < 5; j++)
            in_truth |= sel.index[i] == subset[j];
        ck_assert_msg(in_truth, "kept atom %d is not in the truth's", sel.index[i]);
    }
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 2, &full, 1.0, &opt, &sel, NULL), CLIK_OK);
    ck_assert_int_eq(sel.kept, L);
    for (int i = 0; i < L; i++)
        ck_assert_int_eq(sel.index[i], i);
    /* Bad input: alpha outside (0, 1], counts, images, a selection. */
    const double bad_alpha[] = {0.0, -0.5, 1.0000001, 2.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof(bad_alpha) / sizeof(bad_alpha[0]); i++)
        ck_assert_int_eq(
            clik_lapar_compress(h_ctx, calib, 2, &full, bad_alpha[i], &opt, &sel, NULL),
            CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 0, &full, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_lapar_compress(h_ctx, NULL, 1, &full, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 1, &full, 0.5, &opt, NULL, NULL),
                     CLIK_ERR_NULL);
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 1, &truth, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_INVALID_ARG);
    clik_lapar_calib broken = calib[0];
    clik_image narrow = cal[0].truth;
    narrow.width--;
    broken.truth = &narrow;
    ck_assert_int_eq(clik_lapar_compress(h_ctx, &broken, 1, &full, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_SIZE_MISMATCH);
    broken = calib[0];
    broken.upsampled = &cal[0].lr;
    ck_assert_int_eq(clik_lapar_compress(h_ctx, &broken, 1, &full, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_SIZE_MISMATCH);
    broken = calib[0];
    broken.phi = NULL;
    ck_assert_int_eq(clik_lapar_compress(h_ctx, &broken, 1, &full, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_NULL);
    opt.refit_samples = opt.samples + 1;
    ck_assert_int_eq(clik_lapar_compress(h_ctx, calib, 1, &full, 0.5, &opt, &sel, NULL),
                     CLIK_ERR_INVALID_ARG);
    clik_lapar_compress_options_init(NULL);
    free(mix);
    free(mix2);
    calibration_free(&cal[0]);
    calibration_free(&cal[1]);
}
END_TEST

/* ---- the suite ------------------------------------------------------------------------------ */

/* poison=1, and with CLIK_TEST_FULL=1 each kernel variant (lapar_variant):
 * each a run of the whole suite on each OpenCL device. The variants test
 * runs every variant in CI too, through tunings set for its shapes. */
int main(void)
{
    /* the upsample of the upsampled variant by rows (CPU devices) and by
     * pixels */
    static const char *const short_list[] = {"", "lapar_up_rows=0,poison=1", NULL};
    static const char *const full_list[] = {"",
                                            "lapar_up_rows=0,poison=1",
                                            "lapar_variant=local,poison=1",
                                            "lapar_variant=direct,poison=1",
                                            "lapar_variant=upsampled,lapar_up_rows=1,poison=1",
                                            NULL};
    const h_test tests[] = {H_LOOP(matches_oracle, h_family_case_count("lapar")),
                            H_TEST(default_dictionary),
                            H_TEST(hand_worked),
                            H_TEST(delta_gives_upsample),
                            H_TEST(zero_phi),
                            H_TEST(nan_in_phi),
                            H_TEST(sizes_and_scales),
                            H_TEST(three_channels),
                            H_TEST(bad_input),
                            H_TEST(tuning_store),
                            H_TEST(variants),
                            H_TEST(compress_recovers_subset)};
    return h_suite_main(
        &(h_suite){"lapar", NULL, 1200, tests, H_COUNT(tests), short_list, full_list});
}

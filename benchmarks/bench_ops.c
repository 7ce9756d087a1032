/*
 * The op table of clik-bench: one entry per benchmarked public call. A new
 * family (pyrdown, integral, resize, ...) adds its callbacks and one entry.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "patterns.h"

#define CH_1_4 ((1u << 1) | (1u << 4))

static double pixels(const bench_case *bc)
{
    return (double)bc->width * (double)bc->height * (double)bc->channels;
}

/* ---- hist: clik_hist_compute ------------------------------------------------ */

typedef struct hist_state {
    uint32_t hist[4 * 256];
} hist_state;

static double hist_bytes(const bench_case *bc)
{
    return pixels(bc); /* reads the image once */
}

static clik_status hist_setup(bench_case *bc)
{
    bc->state = calloc(1, sizeof(hist_state));
    return bc->state ? CLIK_OK : CLIK_ERR_NO_MEMORY;
}

static clik_status hist_run(bench_case *bc)
{
    hist_state *s = bc->state;
    return clik_hist_compute(bc->ctx, &bc->src, s->hist);
}

static int hist_check(bench_case *bc)
{
    const hist_state *s = bc->state;
    const uint64_t total = (uint64_t)bc->width * (uint64_t)bc->height;
    for (int c = 0; c < bc->channels; c++) {
        uint64_t sum = 0;
        int used = 0;
        for (int v = 0; v < 256; v++) {
            sum += s->hist[c * 256 + v];
            used += s->hist[c * 256 + v] != 0;
        }
        if (sum != total) {
            snprintf(bc->message, sizeof(bc->message),
                     "channel %d: the bins add up to %llu, not %llu pixels", c,
                     (unsigned long long)sum, (unsigned long long)total);
            return 0;
        }
        if (used < 2 && total >= 1024) { /* a natural image is never flat */
            snprintf(bc->message, sizeof(bc->message), "channel %d: only %d bin(s) used", c, used);
            return 0;
        }
    }
    return 1;
}

static void free_state(bench_case *bc)
{
    free(bc->state);
    bc->state = NULL;
}

/* ---- lut: clik_hist_lut -------------------------------------------------------- */

typedef struct lut_state {
    clik_image dst;
    uint8_t table[256];
} lut_state;

static double read_write_bytes(const bench_case *bc)
{
    return 2.0 * pixels(bc);
}

static clik_status lut_setup(bench_case *bc)
{
    lut_state *s = calloc(1, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    bc->state = s;
    /* A gamma curve (2.2), as tone mapping uses. */
    for (int v = 0; v < 256; v++)
        s->table[v] = (uint8_t)lrint(255.0 * pow(v / 255.0, 1.0 / 2.2));
    return bench_output(bc, bc->width, bc->height, bc->channels, CLIK_U8, &s->dst);
}

static clik_status lut_run(bench_case *bc)
{
    lut_state *s = bc->state;
    return clik_hist_lut(bc->ctx, &bc->src, &s->dst, s->table, 1);
}

static int lut_check(bench_case *bc)
{
    lut_state *s = bc->state;
    clik_image out;
    if (bench_fetch(bc, &s->dst, &out) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "cannot download the result");
        return 0;
    }
    const size_t row = (size_t)bc->width * (size_t)bc->channels;
    for (int y = 0; y < bc->height; y++) {
        const uint8_t *a = (const uint8_t *)bc->src_host.data + (size_t)y * bc->src_host.stride;
        const uint8_t *b = (const uint8_t *)out.data + (size_t)y * out.stride;
        for (size_t x = 0; x < row; x++) {
            if (b[x] != s->table[a[x]]) {
                snprintf(bc->message, sizeof(bc->message),
                         "element %zu of row %d is %u, table[%u] = %u", x, y, b[x], a[x],
                         s->table[a[x]]);
                return 0;
            }
        }
    }
    return 1;
}

/* ---- equalize: clik_hist_equalize ----------------------------------------------- */

typedef struct equalize_state {
    clik_image dst;
} equalize_state;

static double equalize_bytes(const bench_case *bc)
{
    return 3.0 * pixels(bc); /* histogram pass, then read and write */
}

static clik_status equalize_setup(bench_case *bc)
{
    equalize_state *s = calloc(1, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    bc->state = s;
    return bench_output(bc, bc->width, bc->height, bc->channels, CLIK_U8, &s->dst);
}

static clik_status equalize_run(bench_case *bc)
{
    equalize_state *s = bc->state;
    return clik_hist_equalize(bc->ctx, &bc->src, &s->dst);
}

/* The result must be a non-decreasing function of the input per colour
 * channel reaching 255, and the alpha channel (of 2 or 4) unchanged. */
static int equalize_check(bench_case *bc)
{
    equalize_state *s = bc->state;
    clik_image out;
    if (bench_fetch(bc, &s->dst, &out) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "cannot download the result");
        return 0;
    }
    const int ch = bc->channels, colour = ch == 1 ? 1 : ch - 1;
    int map[4][256];
    memset(map, 0xff, sizeof(map));
    for (int y = 0; y < bc->height; y++) {
        const uint8_t *a = (const uint8_t *)bc->src_host.data + (size_t)y * bc->src_host.stride;
        const uint8_t *b = (const uint8_t *)out.data + (size_t)y * out.stride;
        for (size_t x = 0; x < (size_t)bc->width * (size_t)ch; x++) {
            int c = (int)(x % (size_t)ch);
            int *m = &map[c][a[x]];
            if (*m < 0)
                *m = b[x];
            if (*m != b[x] || (c >= colour && b[x] != a[x])) {
                snprintf(bc->message, sizeof(bc->message),
                         "channel %d: input %u gives %u and %u (row %d)", c, a[x], *m, b[x], y);
                return 0;
            }
        }
    }
    for (int c = 0; c < colour; c++) {
        int last = -1, distinct = 0;
        for (int v = 0; v < 256; v++) {
            if (map[c][v] < 0)
                continue;
            distinct++;
            if (map[c][v] < last) {
                snprintf(bc->message, sizeof(bc->message),
                         "channel %d: the mapping decreases at %d", c, v);
                return 0;
            }
            last = map[c][v];
        }
        if (distinct > 1 && last != 255) { /* one value maps to itself */
            snprintf(bc->message, sizeof(bc->message), "channel %d: the largest value maps to %d",
                     c, last);
            return 0;
        }
    }
    return 1;
}

/* ---- pyramid, integral, resize, filter, SSIM, fusion: checked against the scalar oracle -- */

#define MAX_OUTS 6

/* How an output must agree with the scalar oracle (the tolerance classes of
 * the test suites). */
typedef enum tolerance {
    TOL_EXACT,    /* bit-identical */
    TOL_U8_FLOAT, /* max |diff| <= 1 and >= 99.9 % identical */
    TOL_SSIM,     /* f32 maps: |diff| <= 5e-4 */
    TOL_FUSION,   /* >= 99.9 % within +-1 and >= 99 % identical */
} tolerance;

static const char *const tolerance_name[] = {"EXACT", "U8-FLOAT", "SSIM", "FUSION"};

#define SSIM_MAP_TOL  5e-4
#define SSIM_MEAN_TOL 1e-4

/* One public call: src (and src2 for two-input ops) into outs, *value for a
 * scalar result. Called with the timed context and with the oracle's. */
typedef clik_status (*multi_call)(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                  clik_image *outs, double *value);

/* The outputs of one public call, and the call itself for the oracle. */
typedef struct multi_state {
    multi_call call;
    int n;
    clik_image outs[MAX_OUTS];
    tolerance tol[MAX_OUTS];
    clik_image src2, src2_host; /* second input (SSIM; LAPAR's phi), else empty */
    double value;               /* the timed call's scalar result */
    const void *user;           /* the op's own settings (LAPAR) */
} multi_state;

static clik_status multi_setup_tol(bench_case *bc, multi_call call, int n, const int *w,
                                   const int *h, const clik_type *types, const int *channels,
                                   tolerance tol)
{
    multi_state *s = calloc(1, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    bc->state = s;
    s->call = call;
    s->n = n;
    clik_status st = CLIK_OK;
    for (int i = 0; i < n && st == CLIK_OK; i++) {
        s->tol[i] = tol;
        st = bench_output(bc, w[i], h[i], channels ? channels[i] : bc->channels, types[i],
                          &s->outs[i]);
    }
    return st;
}

static clik_status multi_setup(bench_case *bc, multi_call call, int n, const int *w, const int *h,
                               const clik_type *types)
{
    return multi_setup_tol(bc, call, n, w, h, types, NULL, TOL_EXACT);
}

static clik_status multi_run(bench_case *bc)
{
    multi_state *s = bc->state;
    return s->call(bc->ctx, &bc->src, &s->src2, s->outs, &s->value);
}

/* Differences between two host images of one size and format. */
typedef struct diff {
    size_t count;   /* elements compared */
    size_t differ;  /* not identical */
    size_t beyond;  /* u8: |diff| > 1; f32: |diff| > SSIM_MAP_TOL or not a number */
    double max_abs; /* largest |diff| */
    int x, y, c;    /* where it is */
} diff;

static void image_diff(const clik_image *got, const clik_image *want, diff *d)
{
    memset(d, 0, sizeof(*d));
    const int ch = got->channels;
    const size_t row = (size_t)got->width * (size_t)ch;
    for (int y = 0; y < got->height; y++) {
        const char *g = (const char *)got->data + (size_t)y * got->stride;
        const char *w = (const char *)want->data + (size_t)y * want->stride;
        for (size_t i = 0; i < row; i++) {
            double a, b;
            if (got->type == CLIK_F32) {
                float fa, fb;
                memcpy(&fa, g + 4 * i, 4);
                memcpy(&fb, w + 4 * i, 4);
                a = fa;
                b = fb;
            } else {
                a = ((const uint8_t *)g)[i];
                b = ((const uint8_t *)w)[i];
            }
            double e = fabs(a - b);
            int bad = !(e <= (got->type == CLIK_F32 ? SSIM_MAP_TOL : 1.0)); /* NaN is bad */
            d->count++;
            d->differ += a != b;
            d->beyond += bad;
            if (e > d->max_abs || (e != e && d->max_abs == d->max_abs)) { /* NaN wins once */
                d->max_abs = e;
                d->x = (int)(i / (size_t)ch);
                d->y = y;
                d->c = (int)(i % (size_t)ch);
            }
        }
    }
}

static int diff_passes(const diff *d, tolerance tol)
{
    switch (tol) {
    case TOL_EXACT: return d->differ == 0;
    case TOL_U8_FLOAT: return d->beyond == 0 && (double)d->differ <= 0.001 * (double)d->count;
    case TOL_SSIM: return d->beyond == 0;
    case TOL_FUSION:
        return (double)d->beyond <= 0.001 * (double)d->count &&
               (double)d->differ <= 0.01 * (double)d->count;
    }
    return 0;
}

static void diff_describe(const diff *d, tolerance tol, char *buf, size_t size)
{
    double pct = d->count ? 100.0 * (double)d->differ / (double)d->count : 0.0;
    snprintf(buf, size, "%s: %zu of %zu elements differ (%.3g%%), max |diff| %.3g at (%d, %d, %d)",
             tolerance_name[tol], d->differ, d->count, pct, d->max_abs, d->x, d->y, d->c);
}

/* A context on the scalar CPU path: the oracle. */
static clik_context *oracle_context(void)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.cpu_path = CLIK_CPU_SCALAR;
    clik_context *ctx = NULL;
    return clik_context_create(&ctx, &opt) == CLIK_OK ? ctx : NULL;
}

/* Compares got (host or device) with the oracle's host image; appends to
 * bc->detail, or fills bc->message and returns 0. */
static int check_output(bench_case *bc, const clik_image *out, const clik_image *ref, tolerance tol,
                        const char *what)
{
    clik_image got;
    if (bench_fetch(bc, out, &got) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "cannot download %s", what);
        return 0;
    }
    diff d;
    image_diff(&got, ref, &d);
    char text[160];
    diff_describe(&d, tol, text, sizeof(text));
    if (!diff_passes(&d, tol)) {
        snprintf(bc->message, sizeof(bc->message), "%s (%dx%d) against the scalar oracle: %s", what,
                 got.width, got.height, text);
        return 0;
    }
    size_t n = strlen(bc->detail);
    if (n == 0 || d.differ)
        snprintf(bc->detail + n, sizeof(bc->detail) - n, "%s%s", n ? "; " : "",
                 d.differ ? text : tolerance_name[tol]);
    return 1;
}

/* Runs the same call on the scalar CPU path and compares every output. */
static int multi_check(bench_case *bc)
{
    multi_state *s = bc->state;
    clik_context *ref_ctx = oracle_context();
    clik_image ref[MAX_OUTS];
    memset(ref, 0, sizeof(ref));
    double ref_value = 0.0;
    int ok = ref_ctx != NULL;
    for (int i = 0; i < s->n && ok; i++)
        ok = clik_image_alloc(&ref[i], s->outs[i].width, s->outs[i].height, s->outs[i].channels,
                              s->outs[i].type) == CLIK_OK;
    if (!ok || s->call(ref_ctx, &bc->src_host, &s->src2_host, ref, &ref_value) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed");
        ok = 0;
    }
    bc->detail[0] = '\0';
    for (int i = 0; i < s->n && ok; i++) {
        char what[32];
        snprintf(what, sizeof(what), "output %d", i);
        ok = check_output(bc, &s->outs[i], &ref[i], s->tol[i], what);
    }
    if (ok && bc->has_value) {
        bc->value = s->value;
        if (!(fabs(s->value - ref_value) <= SSIM_MEAN_TOL)) {
            snprintf(bc->message, sizeof(bc->message), "the mean is %.6f, the scalar oracle's %.6f",
                     s->value, ref_value);
            ok = 0;
        }
    }
    for (int i = 0; i < MAX_OUTS; i++)
        clik_image_free(&ref[i]);
    clik_context_destroy(ref_ctx);
    return ok;
}

/* Bytes of the outputs of the case (for bytes_moved). */
static double outs_bytes(const bench_case *bc, int levels, int scale_up, size_t esize, int n_out)
{
    double total = 0.0;
    for (int i = 1; i <= levels; i++) {
        int w, h;
        clik_pyr_level_size(bc->width, bc->height, i, &w, &h);
        total += (double)w * (double)h * (double)bc->channels;
    }
    if (scale_up)
        total += 4.0 * pixels(bc);
    if (n_out)
        total += (double)n_out * (double)(bc->width + 1) * (double)(bc->height + 1) *
                 (double)bc->channels * (double)esize;
    return total;
}

/* pyrdown: clik_pyr_down. */
static clik_status call_pyrdown(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_pyr_down(ctx, src, &outs[0]);
}

static double pyrdown_bytes(const bench_case *bc)
{
    return pixels(bc) + outs_bytes(bc, 1, 0, 0, 0);
}

static clik_status pyrdown_setup(bench_case *bc)
{
    int w, h;
    clik_type t = CLIK_U8;
    clik_pyr_level_size(bc->width, bc->height, 1, &w, &h);
    return multi_setup(bc, call_pyrdown, 1, &w, &h, &t);
}

/* pyramid: clik_pyr_gaussian, 5 levels (fewer when the size does not allow them). */
#define PYRAMID_LEVELS 5

static int pyramid_count(int width, int height)
{
    int most = clik_pyr_max_levels(width, height);
    return most < PYRAMID_LEVELS ? most : PYRAMID_LEVELS;
}

static int pyramid_levels(const bench_case *bc)
{
    return pyramid_count(bc->width, bc->height);
}

static clik_status call_pyramid(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_pyr_gaussian(ctx, src, outs, pyramid_count(src->width, src->height));
}

static double pyramid_bytes(const bench_case *bc)
{
    /* Each level reads the one above it and writes itself. */
    double total = pixels(bc);
    for (int i = 1; i <= pyramid_levels(bc); i++) {
        int w, h;
        clik_pyr_level_size(bc->width, bc->height, i, &w, &h);
        total += (i < pyramid_levels(bc) ? 2.0 : 1.0) * (double)w * (double)h * bc->channels;
    }
    return total;
}

static clik_status pyramid_setup(bench_case *bc)
{
    int n = pyramid_levels(bc), w[PYRAMID_LEVELS], h[PYRAMID_LEVELS];
    clik_type t[PYRAMID_LEVELS];
    if (n < 1)
        return CLIK_ERR_INVALID_ARG;
    for (int i = 0; i < n; i++) {
        clik_pyr_level_size(bc->width, bc->height, i + 1, &w[i], &h[i]);
        t[i] = CLIK_U8;
    }
    return multi_setup(bc, call_pyramid, n, w, h, t);
}

/* pyrup: clik_pyr_up. */
static clik_status call_pyrup(clik_context *ctx, const clik_image *src, const clik_image *src2,
                              clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_pyr_up(ctx, src, &outs[0]);
}

static double pyrup_bytes(const bench_case *bc)
{
    return pixels(bc) + outs_bytes(bc, 0, 1, 0, 0);
}

static clik_status pyrup_setup(bench_case *bc)
{
    int w = 2 * bc->width, h = 2 * bc->height;
    clik_type t = CLIK_U8;
    return multi_setup(bc, call_pyrup, 1, &w, &h, &t);
}

/* integral: clik_integral, u32 sums; integral-sq: u32 sums and u64 squares. */
static clik_status call_integral(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                 clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_integral(ctx, src, &outs[0], NULL);
}

static clik_status call_integral_sq(clik_context *ctx, const clik_image *src,
                                    const clik_image *src2, clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_integral(ctx, src, &outs[0], &outs[1]);
}

static double integral_bytes(const bench_case *bc)
{
    return pixels(bc) + outs_bytes(bc, 0, 0, 4, 1);
}

static double integral_sq_bytes(const bench_case *bc)
{
    return pixels(bc) + outs_bytes(bc, 0, 0, 4, 1) + outs_bytes(bc, 0, 0, 8, 1);
}

static clik_status integral_setup(bench_case *bc)
{
    int w[2] = {bc->width + 1, bc->width + 1}, h[2] = {bc->height + 1, bc->height + 1};
    clik_type t[2] = {CLIK_U32, CLIK_U64};
    return multi_setup(bc, call_integral, 1, w, h, t);
}

static clik_status integral_sq_setup(bench_case *bc)
{
    int w[2] = {bc->width + 1, bc->width + 1}, h[2] = {bc->height + 1, bc->height + 1};
    clik_type t[2] = {CLIK_U32, CLIK_U64};
    return multi_setup(bc, call_integral_sq, 2, w, h, t);
}

/* ---- resize family: clik_resize by --scale -------------------------------------------- */

static double out_pixels(const bench_case *bc)
{
    return (double)bc->out_width * (double)bc->out_height * (double)bc->channels;
}

static double resize_bytes(const bench_case *bc)
{
    return pixels(bc) + out_pixels(bc); /* read the input, write the output */
}

static clik_status call_resize_nearest(clik_context *ctx, const clik_image *src,
                                       const clik_image *src2, clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_resize(ctx, src, &outs[0], CLIK_INTERP_NEAREST);
}

static clik_status call_resize_bilinear(clik_context *ctx, const clik_image *src,
                                        const clik_image *src2, clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_resize(ctx, src, &outs[0], CLIK_INTERP_BILINEAR);
}

static clik_status call_resize_bicubic(clik_context *ctx, const clik_image *src,
                                       const clik_image *src2, clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_resize(ctx, src, &outs[0], CLIK_INTERP_BICUBIC);
}

/* The output is as OpenCV's resize(src, Size(), S, S) sizes it. */
static clik_status resize_setup_call(bench_case *bc, multi_call call, tolerance tol)
{
    int w, h;
    clik_status st = clik_resize_size(bc->width, bc->height, bc->scale, bc->scale, &w, &h);
    if (st != CLIK_OK)
        return st;
    bc->out_width = w;
    bc->out_height = h;
    clik_type t = CLIK_U8;
    return multi_setup_tol(bc, call, 1, &w, &h, &t, NULL, tol);
}

static clik_status resize_nearest_setup(bench_case *bc)
{
    return resize_setup_call(bc, call_resize_nearest, TOL_EXACT);
}

static clik_status resize_bilinear_setup(bench_case *bc)
{
    return resize_setup_call(bc, call_resize_bilinear, TOL_U8_FLOAT);
}

static clik_status resize_bicubic_setup(bench_case *bc)
{
    return resize_setup_call(bc, call_resize_bicubic, TOL_U8_FLOAT);
}

/* ---- filter family: clik_gaussian_blur 7x7, sigma from the size -------------------------- */

#define BLUR_KSIZE 7

static clik_status call_blur(clik_context *ctx, const clik_image *src, const clik_image *src2,
                             clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_gaussian_blur(ctx, src, &outs[0], BLUR_KSIZE, 0.0);
}

static clik_status blur_setup(bench_case *bc)
{
    clik_type t = CLIK_U8;
    return multi_setup_tol(bc, call_blur, 1, &bc->width, &bc->height, &t, NULL, TOL_U8_FLOAT);
}

/* ---- SSIM family: clik_ssim, map and mean ------------------------------------------------ */

static int ssim_side(int n)
{
    return n - (CLIK_SSIM_WINDOW - 1);
}

static double ssim_bytes(const bench_case *bc)
{
    /* Two u8 images read, the f32 map written. */
    return 2.0 * pixels(bc) + 4.0 * (double)ssim_side(bc->width) * (double)ssim_side(bc->height);
}

static clik_status call_ssim(clik_context *ctx, const clik_image *src, const clik_image *src2,
                             clik_image *outs, double *value)
{
    return clik_ssim(ctx, src, src2, &outs[0], value);
}

/* The second image: the input with sensor-like noise of about +-10 levels,
 * so that the mean SSIM is neither 0 nor 1 (a distorted copy, as in image
 * quality measurement). */
static void add_noise(const clik_image *src, clik_image *dst, uint64_t seed)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + 0x243f6a8885a308d3ull;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *a = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *b = (uint8_t *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < src->width * src->channels; x++) {
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            int n = (int)((z >> 56) & 0xff) + (int)((z >> 48) & 0xff) - 255;
            int v = a[x] + n * 10 / 255;
            b[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

static clik_status ssim_setup(bench_case *bc)
{
    if (bc->width < CLIK_SSIM_WINDOW || bc->height < CLIK_SSIM_WINDOW)
        return CLIK_ERR_INVALID_SIZE;
    int w = ssim_side(bc->width), h = ssim_side(bc->height), one = 1;
    clik_type t = CLIK_F32;
    clik_status st = multi_setup_tol(bc, call_ssim, 1, &w, &h, &t, &one, TOL_SSIM);
    multi_state *s = bc->state;
    if (st == CLIK_OK)
        st = bench_host(bc, bc->width, bc->height, 1, CLIK_U8, &s->src2_host);
    if (st == CLIK_OK) {
        add_noise(&bc->src_host, &s->src2_host, bc->seed);
        st = bench_upload(bc, &s->src2_host, &s->src2);
    }
    bc->has_value = 1;
    return st;
}

/* ---- fusion family: clik_upscale_fusion and the stream ----------------------------------- */

static double fusion_bytes(const bench_case *bc)
{
    /* What a fully fused pipeline must move: the RGBA input and output. */
    return pixels(bc) + out_pixels(bc);
}

static clik_status call_fusion(clik_context *ctx, const clik_image *src, const clik_image *src2,
                               clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_upscale_fusion(ctx, src, &outs[0], NULL, NULL);
}

static clik_status fusion_setup(bench_case *bc)
{
    int s = (int)bc->scale, w = s * bc->width, h = s * bc->height;
    bc->out_width = w;
    bc->out_height = h;
    clik_type t = CLIK_U8;
    return multi_setup_tol(bc, call_fusion, 1, &w, &h, &t, NULL, TOL_FUSION);
}

#define STREAM_INPUTS  2
#define STREAM_MAX_OUT 17 /* --depth (at most 16) + 1 */

/* Frames cycle through STREAM_INPUTS inputs and depth + 1 outputs: an output
 * is reused only after the wait for the frame that wrote it, as the API asks,
 * while depth frames stay in flight. */
typedef struct stream_state {
    clik_fusion_stream *stream;
    int nout;
    clik_image in[STREAM_INPUTS];
    clik_image out[STREAM_MAX_OUT];
    uint64_t ticket[STREAM_MAX_OUT]; /* the last frame written to out[i], 0: none */
    int input_of[STREAM_MAX_OUT];    /* the input of that frame */
} stream_state;

static clik_status stream_setup(bench_case *bc)
{
    stream_state *s = calloc(1, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    bc->state = s;
    /* The streaming API takes host frames: --resident does not apply. */
    bc->resident = 0;
    const int scale = (int)bc->scale;
    bc->out_width = scale * bc->width;
    bc->out_height = scale * bc->height;
    bc->frames = bc->stream_frames;
    /* The stream's queues are its own, without profiling events: its kernel
     * time is fusion's. */
    bc->no_kernel_time = 1;
    s->nout = bc->stream_depth + 1;
    s->in[0] = bc->src_host;
    clik_status st = bench_input(bc, bc->width, bc->height, 4, 1, &s->in[1], NULL);
    for (int i = 0; i < s->nout && st == CLIK_OK; i++)
        st = bench_output(bc, bc->out_width, bc->out_height, 4, CLIK_U8, &s->out[i]);
    if (st == CLIK_OK)
        st = clik_fusion_stream_create(bc->ctx, bc->width, bc->height, scale, NULL,
                                       bc->stream_depth, &s->stream);
    return st;
}

static clik_status stream_run(bench_case *bc)
{
    stream_state *s = bc->state;
    clik_status st = CLIK_OK;
    for (int f = 0; f < bc->frames && st == CLIK_OK; f++) {
        const int o = f % s->nout, in = f % STREAM_INPUTS;
        if (s->ticket[o])
            st = clik_fusion_stream_wait(s->stream, s->ticket[o]);
        if (st == CLIK_OK)
            st = clik_fusion_stream_submit(s->stream, &s->in[in], &s->out[o], NULL, &s->ticket[o]);
        s->input_of[o] = in;
    }
    clik_status waited = clik_fusion_stream_wait(s->stream, UINT64_MAX);
    return st != CLIK_OK ? st : waited;
}

/* Every output slot against the oracle's fusion of its frame's input. */
static int stream_check(bench_case *bc)
{
    stream_state *s = bc->state;
    clik_context *ref_ctx = oracle_context();
    clik_image ref[STREAM_INPUTS];
    memset(ref, 0, sizeof(ref));
    int ok = ref_ctx != NULL;
    for (int i = 0; i < STREAM_INPUTS && ok; i++)
        ok = clik_image_alloc(&ref[i], bc->out_width, bc->out_height, 4, CLIK_U8) == CLIK_OK &&
             clik_upscale_fusion(ref_ctx, &s->in[i], &ref[i], NULL, NULL) == CLIK_OK;
    if (!ok)
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed");
    bc->detail[0] = '\0';
    for (int o = 0; o < s->nout && ok; o++) {
        if (!s->ticket[o])
            continue;
        char what[48];
        snprintf(what, sizeof(what), "frame %llu", (unsigned long long)s->ticket[o]);
        ok = check_output(bc, &s->out[o], &ref[s->input_of[o]], TOL_FUSION, what);
    }
    for (int i = 0; i < STREAM_INPUTS; i++)
        clik_image_free(&ref[i]);
    clik_context_destroy(ref_ctx);
    return ok;
}

static void stream_teardown(bench_case *bc)
{
    stream_state *s = bc->state;
    if (s)
        clik_fusion_stream_destroy(s->stream);
    free_state(bc);
}

/* ---- LAPAR family: clik_lapar_filter by --scale (2..4), phi of the default dictionary ---- */

/* The terms of each op: every atom of the default dictionary, or a selection
 * of that many (spread evenly, weights 1) whose phi has only their planes. */
typedef struct lapar_bench {
    int terms;
    clik_type phi_type;
} lapar_bench;

static const lapar_bench lapar_full = {CLIK_LAPAR_ATOMS, CLIK_F32};
static const lapar_bench lapar_f16 = {CLIK_LAPAR_ATOMS, CLIK_F16};
static const lapar_bench lapar_half = {CLIK_LAPAR_ATOMS / 2, CLIK_F32};
static const lapar_bench lapar_tenth = {7, CLIK_F32};

static const lapar_bench *lapar_of(const bench_case *bc)
{
    const multi_state *s = bc->state;
    return (const lapar_bench *)s->user;
}

static double lapar_bytes(const bench_case *bc)
{
    /* phi read once, the input read, the output written. */
    const lapar_bench *lb = lapar_of(bc);
    return out_pixels(bc) / bc->channels * lb->terms * (double)clik_type_size(lb->phi_type) +
           pixels(bc) + out_pixels(bc);
}

/* --kernels: the filter kernel moves what the op must (phi, the input, the
 * output); the bicubic upsample has no model here. */
static double lapar_kernel_bytes(const bench_case *bc, const char *kernel)
{
    return strstr(kernel, "upsample") ? 0.0 : lapar_bytes(bc);
}

static clik_status lapar_call(clik_context *ctx, const clik_image *src, const clik_image *phi,
                              clik_image *outs, const lapar_bench *lb)
{
    static float atoms[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
    clik_lapar_dict_default(atoms);
    clik_lapar_selection sel = {.atoms = CLIK_LAPAR_ATOMS, .kept = lb->terms};
    for (int i = 0; i < lb->terms; i++) {
        sel.index[i] = i * CLIK_LAPAR_ATOMS / lb->terms;
        sel.gamma[i] = 1.0f;
    }
    const clik_lapar_dict d = {CLIK_LAPAR_ATOMS, atoms, lb->terms < CLIK_LAPAR_ATOMS ? &sel : NULL};
    return clik_lapar_filter(ctx, src, phi, &d, outs[0].width / src->width, &outs[0]);
}

#define LAPAR_CALL(NAME, CONFIG)                                                                   \
    static clik_status NAME(clik_context *ctx, const clik_image *src, const clik_image *src2,      \
                            clik_image *outs, double *value)                                       \
    {                                                                                              \
        (void)value;                                                                               \
        return lapar_call(ctx, src, src2, outs, &CONFIG);                                          \
    }
LAPAR_CALL(call_lapar, lapar_full)
LAPAR_CALL(call_lapar_f16, lapar_f16)
LAPAR_CALL(call_lapar_half, lapar_half)
LAPAR_CALL(call_lapar_tenth, lapar_tenth)

/* phi: each plane a smooth field around 1 / terms, a natural image's
 * structure (the input's first channel) mixed in per plane. */
static clik_status lapar_setup_as(bench_case *bc, multi_call call, const lapar_bench *lb)
{
    const int s = (int)bc->scale, w = s * bc->width, h = s * bc->height;
    if (s < 2 || s > 4)
        return CLIK_ERR_INVALID_ARG;
    bc->out_width = w;
    bc->out_height = h;
    clik_type t = CLIK_U8;
    clik_status st = multi_setup_tol(bc, call, 1, &w, &h, &t, NULL, TOL_U8_FLOAT);
    multi_state *s_ = bc->state;
    if (st != CLIK_OK)
        return st;
    s_->user = lb;
    st = bench_host(bc, w, h * lb->terms, 1, lb->phi_type, &s_->src2_host);
    if (st != CLIK_OK)
        return st;
    for (int l = 0; l < lb->terms; l++)
        for (int y = 0; y < h; y++) {
            const uint8_t *in =
                (const uint8_t *)bc->src_host.data + (size_t)(y / s) * bc->src_host.stride;
            char *row = (char *)s_->src2_host.data + (size_t)(l * h + y) * s_->src2_host.stride;
            for (int x = 0; x < w; x++) {
                const double v = (1.0 + 0.5 * sin(0.05 * x + 0.3 * l) * cos(0.04 * y - 0.2 * l) +
                                  0.3 * (in[(x / s) * bc->channels] / 255.0 - 0.5)) /
                                 lb->terms;
                if (lb->phi_type == CLIK_F16)
                    ((uint16_t *)(void *)row)[x] = clik_half_from_float((float)v);
                else
                    ((float *)(void *)row)[x] = (float)v;
            }
        }
    return bench_upload(bc, &s_->src2_host, &s_->src2);
}

static clik_status lapar_setup(bench_case *bc)
{
    return lapar_setup_as(bc, call_lapar, &lapar_full);
}

static clik_status lapar_f16_setup(bench_case *bc)
{
    return lapar_setup_as(bc, call_lapar_f16, &lapar_f16);
}

static clik_status lapar_half_setup(bench_case *bc)
{
    return lapar_setup_as(bc, call_lapar_half, &lapar_half);
}

static clik_status lapar_tenth_setup(bench_case *bc)
{
    return lapar_setup_as(bc, call_lapar_tenth, &lapar_tenth);
}

/* ---- flow family: clik_flow_tvl1 -------------------------------------------------------- */

/* The seed's configuration (seed 002: 1 level, 1 warp, 10 iterations) or
 * the defaults (the IPOL reference's), with f32 or f16 storage. */
typedef struct flow_bench {
    int seed;
    clik_flow_storage storage;
} flow_bench;

static const flow_bench flow_seed = {1, CLIK_FLOW_STORAGE_F32};
static const flow_bench flow_seed_f16 = {1, CLIK_FLOW_STORAGE_F16};
static const flow_bench flow_defaults = {0, CLIK_FLOW_STORAGE_F32};
static const flow_bench flow_defaults_f16 = {0, CLIK_FLOW_STORAGE_F16};

static double flow_bytes(const bench_case *bc)
{
    return 2.0 * pixels(bc) + 8.0 * pixels(bc); /* two u8 images read, the flow written */
}

/* --kernels: the bytes a U or P step must move per pixel at one scale (the
 * seed's configuration; with several scales a launch's size varies): the U
 * step reads the warp's three planes (f32), u (2 planes) and p (4) and
 * writes u; the P step reads u and p and writes p. u and p are 4 or 2 bytes
 * an element by storage. */
static double flow_kernel_bytes(const bench_case *bc, const char *kernel)
{
    const multi_state *s = bc->state;
    const flow_bench *fb = s ? s->user : NULL;
    if (!fb || !fb->seed)
        return 0.0;
    const double e = fb->storage == CLIK_FLOW_STORAGE_F16 ? 2.0 : 4.0;
    if (strncmp(kernel, "flow_u", 6) == 0)
        return pixels(bc) * (12.0 + 8.0 * e);
    if (strncmp(kernel, "flow_p", 6) == 0)
        return pixels(bc) * 10.0 * e;
    return 0.0;
}

static clik_status flow_call(clik_context *ctx, const clik_image *src, const clik_image *src2,
                             clik_image *outs, const flow_bench *fb)
{
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.storage = fb->storage;
    if (fb->seed) {
        o.scales = 1;
        o.warps = 1;
        o.iterations = 10;
    }
    return clik_flow_tvl1(ctx, src, src2, &outs[0], &o);
}

#define FLOW_CALL(NAME, CONFIG)                                                                    \
    static clik_status NAME(clik_context *ctx, const clik_image *src, const clik_image *src2,      \
                            clik_image *outs, double *value)                                       \
    {                                                                                              \
        (void)value;                                                                               \
        return flow_call(ctx, src, src2, outs, &CONFIG);                                           \
    }
FLOW_CALL(call_flow_seed, flow_seed)
FLOW_CALL(call_flow_seed_f16, flow_seed_f16)
FLOW_CALL(call_flow_defaults, flow_defaults)
FLOW_CALL(call_flow_defaults_f16, flow_defaults_f16)

/* The second image: the input moved by (1.5, -0.75) pixels, bilinear. */
static void flow_second(const clik_image *src, clik_image *dst)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            double v = 0.0;
            for (int k = 0; k < 4; k++) {
                int sx = x - 2 + (k & 1), sy = y + (k >> 1);
                sx = sx < 0 ? 0 : sx >= src->width ? src->width - 1 : sx;
                sy = sy < 0 ? 0 : sy >= src->height ? src->height - 1 : sy;
                v += 0.5 * ((k >> 1) ? 0.75 : 0.25) *
                     ((const uint8_t *)src->data)[(size_t)sy * src->stride + (size_t)sx];
            }
            ((uint8_t *)dst->data)[(size_t)y * dst->stride + (size_t)x] = (uint8_t)(v + 0.5);
        }
}

static clik_status flow_setup_as(bench_case *bc, multi_call call, const flow_bench *fb)
{
    int two = 2;
    clik_type t = CLIK_F32;
    clik_status st = multi_setup_tol(bc, call, 1, &bc->width, &bc->height, &t, &two, TOL_EXACT);
    multi_state *s = bc->state;
    if (st != CLIK_OK)
        return st;
    s->user = fb;
    st = bench_host(bc, bc->width, bc->height, 1, CLIK_U8, &s->src2_host);
    if (st == CLIK_OK) {
        flow_second(&bc->src_host, &s->src2_host);
        st = bench_upload(bc, &s->src2_host, &s->src2);
    }
    return st;
}

static clik_status flow_seed_setup(bench_case *bc)
{
    return flow_setup_as(bc, call_flow_seed, &flow_seed);
}

static clik_status flow_seed_f16_setup(bench_case *bc)
{
    return flow_setup_as(bc, call_flow_seed_f16, &flow_seed_f16);
}

static clik_status flow_defaults_setup(bench_case *bc)
{
    return flow_setup_as(bc, call_flow_defaults, &flow_defaults);
}

static clik_status flow_defaults_f16_setup(bench_case *bc)
{
    return flow_setup_as(bc, call_flow_defaults_f16, &flow_defaults_f16);
}

/* Against the scalar oracle: the mean end-point difference within the FLOW
 * class (0.01 px) for f32 storage, within 0.01 + 2^-9 x the mean |flow| for
 * f16 (the FLOW-F16 class of the test suites). */
static int flow_check(bench_case *bc)
{
    multi_state *s = bc->state;
    const flow_bench *fb = s->user;
    clik_context *ref_ctx = oracle_context();
    clik_image ref = {0}, got;
    int ok = ref_ctx && clik_image_alloc(&ref, bc->width, bc->height, 2, CLIK_F32) == CLIK_OK &&
             s->call(ref_ctx, &bc->src_host, &s->src2_host, &ref, NULL) == CLIK_OK;
    if (!ok)
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed");
    if (ok && bench_fetch(bc, &s->outs[0], &got) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "cannot download the flow");
        ok = 0;
    }
    if (ok) {
        double sum = 0.0, motion = 0.0;
        for (int y = 0; y < bc->height; y++) {
            const float *a =
                (const float *)(const void *)((const char *)got.data + (size_t)y * got.stride);
            const float *b =
                (const float *)(const void *)((const char *)ref.data + (size_t)y * ref.stride);
            for (int x = 0; x < bc->width; x++) {
                const double e =
                    hypot((double)a[2 * x] - b[2 * x], (double)a[2 * x + 1] - b[2 * x + 1]);
                sum += e == e ? e : 1e9;
                motion += hypot(b[2 * x], b[2 * x + 1]);
            }
        }
        const double n = (double)bc->width * bc->height, epe = sum / n;
        const double limit =
            0.01 + (fb->storage == CLIK_FLOW_STORAGE_F16 ? motion / n / 512.0 : 0.0);
        if (!(epe <= limit)) {
            snprintf(bc->message, sizeof(bc->message),
                     "mean end-point difference %.5f px from the scalar oracle, limit %.4f", epe,
                     limit);
            ok = 0;
        } else {
            snprintf(bc->detail, sizeof(bc->detail), "FLOW: mean EPE %.5f px", epe);
        }
    }
    clik_image_free(&ref);
    clik_context_destroy(ref_ctx);
    return ok;
}

/* ---- the table ------------------------------------------------------------------------ */

const bench_op bench_ops[] = {
    {
        .name = "hist",
        .summary = "clik_hist_compute: 256-bin histogram per channel",
        .channels = CH_1_4,
        .bytes_rule = "W*H*C (read)",
        .bytes_moved = hist_bytes,
        .setup = hist_setup,
        .run = hist_run,
        .check = hist_check,
        .teardown = free_state,
    },
    {
        .name = "equalize",
        .summary = "clik_hist_equalize: histogram equalization (alpha kept)",
        .channels = CH_1_4,
        .bytes_rule = "3*W*H*C (histogram read, lookup read + write)",
        .bytes_moved = equalize_bytes,
        .setup = equalize_setup,
        .run = equalize_run,
        .check = equalize_check,
        .teardown = free_state,
    },
    {
        .name = "lut",
        .summary = "clik_hist_lut: one 256-entry table for every channel",
        .channels = CH_1_4,
        .bytes_rule = "2*W*H*C (read + write)",
        .bytes_moved = read_write_bytes,
        .setup = lut_setup,
        .run = lut_run,
        .check = lut_check,
        .teardown = free_state,
    },
    {
        .name = "pyrdown",
        .summary = "clik_pyr_down: 5x5 Gaussian and decimation (OpenCV pyrDown)",
        .channels = CH_1_4,
        .bytes_rule = "W*H*C + (W+1)/2*(H+1)/2*C (read + write)",
        .bytes_moved = pyrdown_bytes,
        .setup = pyrdown_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "pyramid",
        .summary = "clik_pyr_gaussian: 5 levels in one call",
        .channels = CH_1_4,
        .bytes_rule = "W*H*C + 2*sum(levels 1..4) + level 5 (each level read and written)",
        .bytes_moved = pyramid_bytes,
        .setup = pyramid_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "pyrup",
        .summary = "clik_pyr_up: upsampling by 2 (OpenCV pyrUp)",
        .channels = CH_1_4,
        .bytes_rule = "5*W*H*C (read W*H, write 2W*2H)",
        .bytes_moved = pyrup_bytes,
        .setup = pyrup_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "integral",
        .summary = "clik_integral: u32 sums (OpenCV layout)",
        .channels = CH_1_4,
        .bytes_rule = "W*H*C + 4*(W+1)*(H+1)*C (read + write)",
        .bytes_moved = integral_bytes,
        .setup = integral_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "integral-sq",
        .summary = "clik_integral: u32 sums and u64 sums of squares",
        .channels = CH_1_4,
        .bytes_rule = "W*H*C + 12*(W+1)*(H+1)*C (read + write both)",
        .bytes_moved = integral_sq_bytes,
        .setup = integral_sq_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "resize-nearest",
        .summary = "clik_resize nearest by --scale (OpenCV INTER_NEAREST)",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE,
        .bytes_rule = "W*H*C + W'*H'*C (read + write)",
        .bytes_moved = resize_bytes,
        .setup = resize_nearest_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "resize-bilinear",
        .summary = "clik_resize bilinear by --scale (half-pixel centres)",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE,
        .bytes_rule = "W*H*C + W'*H'*C (read + write)",
        .bytes_moved = resize_bytes,
        .setup = resize_bilinear_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "resize-bicubic",
        .summary = "clik_resize bicubic by --scale (Keys, A = -0.75)",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE,
        .bytes_rule = "W*H*C + W'*H'*C (read + write)",
        .bytes_moved = resize_bytes,
        .setup = resize_bicubic_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "blur",
        .summary = "clik_gaussian_blur 7x7, sigma 0 (OpenCV's), reflect-101",
        .channels = CH_1_4,
        .bytes_rule = "2*W*H*C (read + write)",
        .bytes_moved = read_write_bytes,
        .setup = blur_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "ssim",
        .summary = "clik_ssim: 11x11 Gaussian SSIM map and mean of two images",
        .channels = 1u << 1,
        .channels_hint = "SSIM compares one-channel (grey) images: use --channels 1",
        .bytes_rule = "2*W*H + 4*(W-10)*(H-10) (two reads, f32 map)",
        .bytes_moved = ssim_bytes,
        .setup = ssim_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "fusion",
        .summary = "clik_upscale_fusion by --scale, whole frame, default options",
        .channels = 1u << 4,
        .channels_hint = "the fusion upscaler takes RGBA frames: use --channels 4",
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE | BENCH_FRAMES,
        .bytes_rule = "4*W*H + 4*S*S*W*H (RGBA read + write)",
        .bytes_moved = fusion_bytes,
        .setup = fusion_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
    },
    {
        .name = "fusion-stream",
        .summary = "clik_fusion_stream_*: --frames host frames, --depth in flight",
        .channels = 1u << 4,
        .channels_hint = "the fusion upscaler takes RGBA frames: use --channels 4",
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE | BENCH_FRAMES | BENCH_STREAM,
        .bytes_rule = "4*W*H + 4*S*S*W*H per frame",
        .bytes_moved = fusion_bytes,
        .setup = stream_setup,
        .run = stream_run,
        .check = stream_check,
        .teardown = stream_teardown,
    },
    {
        .name = "lapar",
        .summary = "clik_lapar_filter by --scale (2..4): 72 atoms, f32 phi",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE,
        .bytes_rule = "4*72*S*S*W*H + W*H*C + S*S*W*H*C (phi, input, output)",
        .bytes_moved = lapar_bytes,
        .setup = lapar_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
        .kernel_bytes = lapar_kernel_bytes,
    },
    {
        .name = "lapar-f16",
        .summary = "clik_lapar_filter by --scale: 72 atoms, f16 phi",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE,
        .bytes_rule = "2*72*S*S*W*H + W*H*C + S*S*W*H*C",
        .bytes_moved = lapar_bytes,
        .setup = lapar_f16_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
        .kernel_bytes = lapar_kernel_bytes,
    },
    {
        .name = "lapar-a50",
        .summary = "clik_lapar_filter by --scale: 36 of 72 atoms kept (alpha 0.5), f32 phi",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE,
        .bytes_rule = "4*36*S*S*W*H + W*H*C + S*S*W*H*C",
        .bytes_moved = lapar_bytes,
        .setup = lapar_half_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
        .kernel_bytes = lapar_kernel_bytes,
    },
    {
        .name = "lapar-a10",
        .summary = "clik_lapar_filter by --scale: 7 of 72 atoms kept (alpha 0.1), f32 phi",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE,
        .bytes_rule = "4*7*S*S*W*H + W*H*C + S*S*W*H*C",
        .bytes_moved = lapar_bytes,
        .setup = lapar_tenth_setup,
        .run = multi_run,
        .check = multi_check,
        .teardown = free_state,
        .kernel_bytes = lapar_kernel_bytes,
    },
    {
        .name = "tvl1",
        .summary = "clik_flow_tvl1, the defaults (IPOL's), f32 storage; I1 = I0 moved",
        .channels = 1u << 1,
        .channels_hint = "optical flow takes grey images: use --channels 1",
        .bytes_rule = "2*W*H + 8*W*H (two u8 images read, the flow written)",
        .bytes_moved = flow_bytes,
        .setup = flow_defaults_setup,
        .run = multi_run,
        .check = flow_check,
        .teardown = free_state,
    },
    {
        .name = "tvl1-f16",
        .summary = "clik_flow_tvl1, the defaults, f16 storage of u and p",
        .channels = 1u << 1,
        .channels_hint = "optical flow takes grey images: use --channels 1",
        .bytes_rule = "2*W*H + 8*W*H (two u8 images read, the flow written)",
        .bytes_moved = flow_bytes,
        .setup = flow_defaults_f16_setup,
        .run = multi_run,
        .check = flow_check,
        .teardown = free_state,
    },
    {
        .name = "tvl1-seed",
        .summary = "clik_flow_tvl1, seed 002's configuration: 1 level, 1 warp, 10 iterations, f32",
        .channels = 1u << 1,
        .channels_hint = "optical flow takes grey images: use --channels 1",
        .bytes_rule = "2*W*H + 8*W*H (two u8 images read, the flow written)",
        .bytes_moved = flow_bytes,
        .setup = flow_seed_setup,
        .run = multi_run,
        .check = flow_check,
        .teardown = free_state,
        .kernel_bytes = flow_kernel_bytes,
    },
    {
        .name = "tvl1-seed-f16",
        .summary = "clik_flow_tvl1, seed 002's configuration, f16 storage",
        .channels = 1u << 1,
        .channels_hint = "optical flow takes grey images: use --channels 1",
        .bytes_rule = "2*W*H + 8*W*H (two u8 images read, the flow written)",
        .bytes_moved = flow_bytes,
        .setup = flow_seed_f16_setup,
        .run = multi_run,
        .check = flow_check,
        .teardown = free_state,
        .kernel_bytes = flow_kernel_bytes,
    },
};

const int bench_op_count = (int)(sizeof(bench_ops) / sizeof(bench_ops[0]));

const bench_op *bench_op_find(const char *name)
{
    for (int i = 0; i < bench_op_count; i++)
        if (strcmp(bench_ops[i].name, name) == 0)
            return &bench_ops[i];
    return NULL;
}

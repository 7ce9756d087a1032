/*
 * libFuzzer harness of the options of the flow and LAPAR operations: each
 * input is decoded (layout below) into one call, on a CPU-only context of
 * the scalar or the NEON path, with deterministic synthetic pixels of a
 * small size (1..24 per side), type and channel count, of
 *   - clik_flow_tvl1: every field of clik_flow_options (tau, lambda, theta,
 *     zoom, epsilon and sigma as raw doubles or floats, NaN, infinities,
 *     negative, zero, huge and denormal values, or values on a dial across
 *     their range; scales, warps, iterations, initial_flow and storage as
 *     raw or small integers; a progress callback that stops the run);
 *   - clik_lapar_filter: the scale, the dictionary (atom count, weights,
 *     a selection with gamma or a re-fit matrix, its indices), the type and
 *     plane count of phi and its values;
 *   - clik_upscale_lapar: the scale and the model, the default or one
 *     trained with every field of clik_lapar_model_options (scale, bins,
 *     phases, window, atoms, kernel, symmetry, alpha, min_samples, f16, bin
 *     edges, a progress callback that stops it), described back;
 *   - clik_lapar_compress: alpha, the image count, samples, refit_samples
 *     and seed of clik_lapar_compress_options; the selection it makes
 *     must then be one clik_lapar_filter takes.
 * Every call must return CLIK_OK, or a refusal (CLIK_ERR_INVALID_ARG,
 * CLIK_ERR_INVALID_SIZE, CLIK_ERR_UNSUPPORTED_FORMAT, CLIK_ERR_SIZE_MISMATCH;
 * CLIK_ERR_CANCELLED where the flow's progress callback stopped it, the
 * flow left as it was; CLIK_ERR_OVERFLOW where a trained filter is not
 * finite) with a message in clik_context_message(); anything else (a crash,
 * a sanitizer report, CLIK_ERR_NO_MEMORY for these small images) is a
 * finding and aborts. An output that was written must be a valid image
 * whose every element was written (fuzz_check_image; valgrind checks the
 * latter when the corpus replays under it).
 *
 * The NEON path's flow smoothing once overflowed a 31-tap stack array from
 * sigma 3.2 or zoom 0.186 on; the sigma and zoom dials reach both (corpus
 * seeds flow-neon-sigma4 and flow-neon-zoom0.1).
 *
 * Counts that only cost time are folded into a cheap range where the
 * library would accept them (iterations, warps, LAPAR buckets, image
 * sizes), so that an execution takes milliseconds even under the
 * sanitizers; values the library must refuse reach it unchanged.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* ---- reading the input: bytes past its end read as 0 ------------------------------ */

typedef struct input {
    const uint8_t *p;
    size_t n;
} input;

static void take(input *in, void *out, size_t k)
{
    uint8_t *o = out;
    for (size_t i = 0; i < k; i++) {
        o[i] = in->n ? *in->p : 0;
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
}

static uint8_t byte(input *in)
{
    uint8_t b;
    take(in, &b, 1);
    return b;
}

static const double specials[] = {
    0.0,     -0.0,     NAN,     -NAN,     INFINITY,     -INFINITY,     DBL_MAX, -DBL_MAX,
    DBL_MIN, 4.9e-324, FLT_MAX, FLT_MIN,  1e30,         1.000001e30,   -1.0,    1.0,
    100.0,   100.001,  0.25,    0.250001, 0.9999999,    1e-300,        3.19,    3.2,
    0.186,   0.185,    1e-9,    1e9,      2147483648.0, -2147483649.0, 0.5,     2.0,
};
#define SPECIALS ((int)(sizeof(specials) / sizeof(specials[0])))

/*
 * A real option: a tag byte and 8 bytes, whatever the tag. Tag % 8:
 * 0 the default; 1, 6, 7 a dial: lo + (hi - lo) u / 65535 with u the
 * first two bytes; 2 the 8 bytes as a double; 3 the first 4 as a float;
 * 4 specials[first byte]; 5 the first 4 as an int32.
 */
static double real(input *in, double def, double lo, double hi)
{
    const uint8_t tag = byte(in);
    uint8_t b[8];
    take(in, b, sizeof(b));
    switch (tag % 8) {
    case 0: return def;
    case 2: {
        double d;
        memcpy(&d, b, sizeof(d));
        return d;
    }
    case 3: {
        float f;
        memcpy(&f, b, sizeof(f));
        return f;
    }
    case 4: return specials[b[0] % SPECIALS];
    case 5: {
        int32_t i;
        memcpy(&i, b, sizeof(i));
        return i;
    }
    default: return lo + (hi - lo) * (double)(b[0] | b[1] << 8) / 65535.0;
    }
}

/* A float (weights, pixels): as real() with a float's range. */
static float real_f(input *in, float def, float lo, float hi)
{
    return (float)real(in, def, lo, hi);
}

/*
 * An integer option: a tag byte and 4 bytes. Tag % 4: 0 the default; 1
 * the first byte as a signed small number; 2 the 4 bytes as an int32; 3
 * one of 0, -1, 1, INT_MIN, INT_MAX, limit, limit + 1 (0 for INT_MAX).
 */
static int integer(input *in, int def, int limit)
{
    const uint8_t tag = byte(in);
    uint8_t b[4];
    take(in, b, sizeof(b));
    int32_t i;
    memcpy(&i, b, sizeof(i));
    switch (tag % 4) {
    case 0: return def;
    case 1: return (int8_t)b[0];
    case 2: return i;
    default: {
        const int table[] = {0, -1, 1, INT_MIN, INT_MAX, limit, limit < INT_MAX ? limit + 1 : 0};
        return table[b[0] % 7];
    }
    }
}

/* ---- contexts, checks, images ----------------------------------------------------------- */

static clik_context *contexts[2]; /* the scalar path, the NEON path */

static void done(void)
{
    clik_context_destroy(contexts[0]);
    clik_context_destroy(contexts[1]);
}

static clik_context *context(int neon)
{
    if (!contexts[0]) {
        for (int i = 0; i < 2; i++) {
            clik_context_options o = fuzz_cpu_options();
            o.cpu_path =
                i == 0 || !clik_cpu_path_available(CLIK_CPU_NEON) ? CLIK_CPU_SCALAR : CLIK_CPU_NEON;
            contexts[i] = fuzz_create(&o);
        }
        atexit(done);
    }
    return contexts[neon ? 1 : 0];
}

/* st must be CLIK_OK or, with a message, one of the refusals in ok (ended
 * by CLIK_OK). Returns st == CLIK_OK. */
static int expect(clik_context *ctx, clik_status st, const clik_status *ok)
{
    if (st == CLIK_OK)
        return 1;
    for (; *ok != CLIK_OK; ok++)
        if (st == *ok) {
            if (!*clik_context_message(ctx))
                abort();
            return 0;
        }
    abort();
}

/* expect() of st; the output dst, which a call that succeeded made, is
 * then checked (fuzz_check_image), and freed either way. */
static void expect_output(clik_context *ctx, clik_status st, const clik_status *ok, clik_image *dst)
{
    if (expect(ctx, st, ok))
        fuzz_check_image(dst);
    else
        clik_image_free(dst);
}

static const clik_status refusals[] = {CLIK_ERR_INVALID_ARG, CLIK_ERR_INVALID_SIZE,
                                       CLIK_ERR_UNSUPPORTED_FORMAT, CLIK_ERR_SIZE_MISMATCH,
                                       CLIK_OK};

/* The image format of a byte: mostly what the operations take. */
static clik_type type_of(uint8_t b)
{
    static const clik_type types[8] = {CLIK_U8, CLIK_F32, CLIK_U8,  CLIK_F32,
                                       CLIK_U8, CLIK_F32, CLIK_U16, CLIK_F16};
    return types[b % 8];
}

static float pattern(int x, int y, int c, int seed)
{
    /* Smooth with some texture, 0..255: the flow has gradients to follow. */
    const int v = (x * 23 + y * 11 + c * 50 + seed * 7 + ((x * y + seed) % 5) * 9) % 256;
    return (float)(v < 128 ? 2 * v : 511 - 2 * v);
}

/* Fills img (u8, u16, f32 or f16 storage) from pattern() shifted by dx. */
static void fill(clik_image *img, int dx, int seed)
{
    for (int y = 0; y < img->height; y++) {
        char *row = (char *)img->data + (size_t)y * img->stride;
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
                const float v = pattern(x + dx, y, c, seed);
                switch (img->type) {
                case CLIK_U8: ((uint8_t *)row)[i] = (uint8_t)v; break;
                case CLIK_F32: ((float *)(void *)row)[i] = v; break;
                default: ((uint16_t *)(void *)row)[i] = (uint16_t)(0x3C00 + (int)v); break;
                }
            }
    }
}

/* Fills an f32 or u8 img with hashed values, 0..255: shifted copies of it
 * are nearly uncorrelated. */
static void noise(clik_image *img, unsigned seed)
{
    for (int y = 0; y < img->height; y++) {
        char *row = (char *)img->data + (size_t)y * img->stride;
        for (int x = 0; x < img->width * img->channels; x++) {
            unsigned v = ((unsigned)x * 73856093u) ^ ((unsigned)y * 19349663u) ^ (seed * 83492791u);
            v = (v ^ (v >> 13)) * 0x5bd1e995u;
            if (img->type == CLIK_U8)
                ((uint8_t *)row)[x] = (uint8_t)(v >> 24);
            else if (img->type == CLIK_F32)
                ((float *)(void *)row)[x] = (float)(v >> 24);
        }
    }
}

/* Sets element `at` (mod the count) of a filled f32 image to v. */
static void poke(clik_image *img, unsigned at, float v)
{
    if (img->type != CLIK_F32)
        return;
    const unsigned per_row = (unsigned)(img->width * img->channels);
    at %= per_row * (unsigned)img->height;
    ((float *)(void *)((char *)img->data + (size_t)(at / per_row) * img->stride))[at % per_row] = v;
}

static int alloc(clik_image *img, int w, int h, int ch, clik_type t)
{
    if (clik_image_alloc(img, w, h, ch, t) != CLIK_OK) {
        memset(img, 0, sizeof(*img));
        return 0;
    }
    return 1;
}

/* ---- the flow ---------------------------------------------------------------------------- */

/* Pixel-steps of the flow's iterations per execution at most (about a
 * microsecond each under the sanitizers). */
#define FLOW_BUDGET 8000.0
/* Multiply-adds of the smoothing at most. */
#define SMOOTH_BUDGET 200000.0

typedef struct stopper {
    int calls, stop_at; /* stop at call stop_at (0: never) */
} stopper;

static int flow_progress(void *user, int done, int total, int iteration)
{
    stopper *s = user;
    if (done < 0 || done > total || iteration < 0)
        abort();
    return ++s->calls == s->stop_at;
}

/* The levels clik_flow_tvl1 makes for valid options (its plan_levels):
 * their count, and their pixels into *pixels. */
static int flow_levels(const clik_flow_options *o, int w, int h, double *pixels)
{
    *pixels = (double)w * h;
    if (!(o->zoom > 0.0 && o->zoom < 1.0) || o->scales < 0 || o->scales > CLIK_FLOW_MAX_SCALES)
        return 1;
    int n = o->scales;
    if (n == 0) {
        const double levels = 1.0 + log(hypot(w, h) / 16.0) / log(1.0 / o->zoom);
        n = levels < 1.0 ? 1 : levels >= CLIK_FLOW_MAX_SCALES ? CLIK_FLOW_MAX_SCALES : (int)levels;
    }
    const float zoom = (float)o->zoom;
    int count = 1;
    for (float fw = (float)w, fh = (float)h; count < n; count++) {
        const int nw = (int)(fw * zoom + 0.5f), nh = (int)(fh * zoom + 0.5f);
        if (nw < 1 || nh < 1)
            break;
        fw = (float)nw;
        fh = (float)nh;
        *pixels += (double)nw * nh;
    }
    return count;
}

/* Pixel-steps of the iterations (a warp's setup counted as 4). */
static double flow_cost(const clik_flow_options *o, int w, int h)
{
    double pixels;
    flow_levels(o, w, h, &pixels);
    return pixels * o->warps * (o->iterations + 4.0);
}

/* Halves the larger side of an image of at least CLIK_FLOW_MIN_SIDE on
 * each side, to no less than that; 0 when it is at that size. */
static int flow_shrink(int *w, int *h)
{
    int *side = *w >= *h ? w : h;
    if (*side <= CLIK_FLOW_MIN_SIDE || *w < CLIK_FLOW_MIN_SIDE || *h < CLIK_FLOW_MIN_SIDE)
        return 0;
    *side = *side / 2 > CLIK_FLOW_MIN_SIDE ? *side / 2 : CLIK_FLOW_MIN_SIDE;
    return 1;
}

/* Multiply-adds of a blur of sigma (the flow's taps) on w x h, as the
 * NEON path computes it: the rows past the borders too. */
static double blur_cost(double sigma, int w, int h)
{
    if (!(sigma > 0.0 && sigma <= 100.0))
        return 0.0;
    const double taps = 2.0 * (int)(5.0 * sigma) + 1.0;
    return (h + taps) * w * taps;
}

/* Of the flow's smoothing: both images, then each level but the last
 * (their sizes taken as the first's). */
static double smoothing_cost(const clik_flow_options *o, int w, int h)
{
    double cost = 2.0 * blur_cost(o->sigma, w, h);
    if (o->zoom > 0.0 && o->zoom < 1.0) {
        double pixels;
        cost += (flow_levels(o, w, h, &pixels) - 1) *
                blur_cost(0.6 * sqrt(1.0 / (o->zoom * o->zoom) - 1.0), w, h);
    }
    return cost;
}

static void run_flow(input *in, clik_context *ctx, int w, int h, int ch, clik_type type)
{
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.tau = real(in, o.tau, 0.0, 0.3);
    o.lambda = real(in, o.lambda, 0.0, 1.0);
    o.theta = real(in, o.theta, 0.0, 1.0);
    o.zoom = real(in, o.zoom, 0.0, 1.0);
    o.epsilon = real(in, o.epsilon, 0.0, 0.1);
    o.sigma = real(in, o.sigma, 0.0, 8.0);
    o.scales = integer(in, o.scales, CLIK_FLOW_MAX_SCALES);
    o.warps = integer(in, o.warps, 1000);
    o.iterations = integer(in, o.iterations, INT_MAX);
    o.initial_flow = integer(in, o.initial_flow, 1);
    o.storage = (clik_flow_storage)integer(in, (int)o.storage, CLIK_FLOW_STORAGE_F16);
    const uint8_t stop = byte(in), poison = byte(in);
    const float bad = real_f(in, NAN, -1e6f, 1e6f);
    stopper s = {0, stop & 0x7F};
    if (stop) {
        o.progress = flow_progress;
        o.progress_user = &s;
    }
    /* Wide smoothing (sigma up to 100: 1001 taps) on smaller images, down
     * to 4 x 4; past that, sigma folded below 15. */
    while (smoothing_cost(&o, w, h) > SMOOTH_BUDGET && flow_shrink(&w, &h))
        ;
    if (smoothing_cost(&o, w, h) > SMOOTH_BUDGET)
        o.sigma = fmod(o.sigma, 15.0);
    /* Accepted counts folded to a cheap range, warps 1..3 and iterations
     * 1..50; then, until the iterations fit the budget, fewer iterations
     * down to 10 (a stopping test), one warp, a smaller image, fewer
     * iterations. */
    if (o.warps >= 1 && o.warps <= 1000 && o.iterations >= 1) {
        o.warps = 1 + (o.warps - 1) % 3;
        o.iterations = 1 + (o.iterations - 1) % 50;
        while (flow_cost(&o, w, h) > FLOW_BUDGET) {
            if (o.iterations > 10)
                o.iterations = o.iterations > 20 ? o.iterations - 10 : 10;
            else if (o.warps > 1)
                o.warps--;
            else if (flow_shrink(&w, &h))
                continue;
            else if (o.iterations > 1)
                o.iterations--;
            else
                break;
        }
    }

    clik_image i0, i1, flow;
    if (!alloc(&i0, w, h, ch, type))
        return;
    if (!alloc(&i1, w, h, ch, type) || !alloc(&flow, w, h, 2, CLIK_F32)) {
        clik_image_free(&i0);
        clik_image_free(&i1);
        return;
    }
    fill(&i0, 0, poison);
    fill(&i1, 1 + poison % 3, poison);
    for (int y = 0; y < h; y++) {
        float *row = (float *)(void *)((char *)flow.data + (size_t)y * flow.stride);
        for (int x = 0; x < 2 * w; x++)
            row[x] = 0.25f * (float)((x + y) % 5) - 0.5f;
    }
    /* The poison, a non-finite or wild value, in I0 (f32) or the
     * initial flow. */
    if (poison & 0x80)
        poke(poison & 0x40 ? &flow : &i0, poison, bad);
    /* The initial flow as given, to see that a cancelled run leaves it. */
    const size_t bytes = (size_t)h * flow.stride;
    void *before = malloc(bytes);
    if (before)
        memcpy(before, flow.data, bytes);
    const clik_status st = clik_flow_tvl1(ctx, &i0, &i1, &flow, &o);
    if (st == CLIK_ERR_CANCELLED &&
        (!s.stop_at || s.calls != s.stop_at || (before && memcmp(before, flow.data, bytes) != 0)))
        abort();
    static const clik_status flow_refusals[] = {CLIK_ERR_INVALID_ARG,        CLIK_ERR_INVALID_SIZE,
                                                CLIK_ERR_UNSUPPORTED_FORMAT, CLIK_ERR_SIZE_MISMATCH,
                                                CLIK_ERR_CANCELLED,          CLIK_OK};
    free(before);
    expect_output(ctx, st, flow_refusals, &flow);
    clik_image_free(&i0);
    clik_image_free(&i1);
}

/* ---- the LAPAR filter -------------------------------------------------------------------- */

/* Work of one filter call at most: output pixels times phi planes. */
#define LAPAR_BUDGET 40000

/* A dictionary buffer of every atom a call may name: the default atoms,
 * then the same again, one weight replaced by a value of the input. */
static void make_atoms(float *atoms, input *in)
{
    clik_lapar_dict_default(atoms);
    for (int i = CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS; i < CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_TAPS;
         i++)
        atoms[i] = atoms[i - CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
    const uint8_t at = byte(in);
    const float v = real_f(in, 0.0f, -2.0f, 2.0f);
    if (at & 0x80)
        atoms[(at & 0x7F) * CLIK_LAPAR_TAPS % (CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_TAPS) + at % 25] =
            v;
}

/* Shrinks w x h until w h scale^2 planes fits the budget. */
static void fit_budget(int *w, int *h, int scale, int planes)
{
    while ((long)*w * *h * scale * scale * (planes > 0 ? planes : 1) > LAPAR_BUDGET &&
           (*w > 1 || *h > 1)) {
        if (*w >= *h)
            *w = (*w + 1) / 2;
        else
            *h = (*h + 1) / 2;
    }
}

/* A one-channel phi of `planes` planes of w x h in type t (f32 or f16
 * storage; f32 with 2 channels when `odd`), one value replaced by v. */
static int make_phi(clik_image *phi, int w, int h, int planes, clik_type t, int odd, unsigned at,
                    float v)
{
    if (!alloc(phi, w, h * planes, odd ? 2 : 1, t))
        return 0;
    for (int y = 0; y < phi->height; y++) {
        char *row = (char *)phi->data + (size_t)y * phi->stride;
        for (int x = 0; x < w * phi->channels; x++) {
            /* Hashed, so that the planes differ (the compression's LASSO
             * converges slowly on correlated terms). */
            const int k = (int)((((unsigned)x * 73856093u) ^ ((unsigned)y * 19349663u)) % 9u);
            if (t == CLIK_F16)
                ((uint16_t *)(void *)row)[x] = (uint16_t)(0x2800 + 0x80 * k); /* 0.03 .. 0.11 */
            else
                ((float *)(void *)row)[x] = 0.02f * (float)k - 0.01f;
        }
    }
    if (t == CLIK_F32) {
        poke(phi, at, v);
    } else if (at & 1) {
        /* An infinity or a NaN. */
        ((uint16_t *)phi->data)[0] = (uint16_t)(0x7C00 | ((at >> 1) & 0x3FF));
    }
    return 1;
}

static void run_filter(input *in, clik_context *ctx, int w, int h, int ch, clik_type type)
{
    static float atoms[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_TAPS];
    static float mix[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_MAX_ATOMS];
    const int scale = integer(in, 2, 4);
    make_atoms(atoms, in);
    clik_lapar_dict dict = {integer(in, CLIK_LAPAR_ATOMS, CLIK_LAPAR_MAX_ATOMS), atoms, NULL};
    const int L = dict.atoms >= 1 && dict.atoms <= CLIK_LAPAR_MAX_ATOMS ? dict.atoms : 1;
    clik_lapar_selection sel;
    memset(&sel, 0, sizeof(sel));
    const uint8_t mode = byte(in), phi_mode = byte(in), dst_mode = byte(in), at = byte(in);
    sel.atoms = integer(in, L, CLIK_LAPAR_MAX_ATOMS);
    sel.kept = integer(in, L > 3 ? L / 3 : 1, L);
    const int kept =
        sel.kept >= 1 && sel.kept <= CLIK_LAPAR_MAX_ATOMS ? sel.kept : 1; /* filled entries */
    for (int i = 0; i < kept; i++) {
        sel.index[i] = (int)((long)i * L / kept);
        sel.gamma[i] = 1.0f - 0.01f * (float)i;
    }
    for (int i = 0; i < kept * L; i++)
        mix[i] = (i % (L + 1)) == 0 ? 1.0f : 0.001f * (float)(i % 7);
    const int bad_index = integer(in, 0, L);
    const float v = real_f(in, 0.0f, -4.0f, 4.0f);
    if (mode & 0x10)
        sel.index[(at & 0x7F) % kept] = bad_index;
    if (mode & 0x20)
        sel.gamma[(at & 0x7F) % kept] = v;
    if (mode & 0x40)
        mix[(at & 0x7F) * 131 % (kept * L)] = v;
    if (mode % 3 != 0) {
        sel.mix = mode % 3 == 2 ? mix : NULL;
        dict.selection = &sel;
    }

    /* phi: as many planes as the call reads, or the dictionary's, or one
     * too many; f32, f16, or a format the filter refuses. */
    const int reads = dict.selection && !sel.mix ? kept : L;
    const int planes = phi_mode % 4 == 1 ? L : phi_mode % 4 == 2 ? reads + 1 : reads;
    const clik_type phi_type = (phi_mode >> 2) % 4 == 1   ? CLIK_F16
                               : (phi_mode >> 2) % 4 == 2 ? CLIK_U8
                                                          : CLIK_F32;
    const int s = scale >= 2 && scale <= 4 ? scale : 2; /* of the allocations */
    fit_budget(&w, &h, s, planes);
    clik_image lr, phi, dst;
    if (!alloc(&lr, w, h, ch, type))
        return;
    fill(&lr, 0, at);
    if (phi_type == CLIK_U8 ? !alloc(&phi, w * s, h * s * planes, 1, CLIK_U8)
                            : !make_phi(&phi, w * s, h * s, planes, phi_type, (phi_mode >> 4) == 1,
                                        (unsigned)at * 977u, v)) {
        clik_image_free(&lr);
        return;
    }
    if (phi_type == CLIK_U8)
        memset(phi.data, 1, (size_t)phi.height * phi.stride);
    /* dst: as the filter needs it, one row short, or of another type. */
    const int dh = dst_mode % 4 == 1 ? h * s - 1 : h * s;
    const clik_type dt = dst_mode % 4 == 2 ? (type == CLIK_U8 ? CLIK_F32 : CLIK_U8) : type;
    if (dh < 1 || !alloc(&dst, w * s, dh, ch, dt)) {
        clik_image_free(&lr);
        clik_image_free(&phi);
        return;
    }
    const clik_status st = clik_lapar_filter(ctx, &lr, &phi, &dict, scale, &dst);
    expect_output(ctx, st, refusals, &dst);
    clik_image_free(&lr);
    clik_image_free(&phi);
}

/* ---- the LAPAR model upscaler ------------------------------------------------------------ */

/* Buckets of a trained model at most (the trainer holds 25 or 49 taps'
 * equations per bucket, and solves each). */
#define MODEL_BUCKETS 256
/* Doubles of the buckets' equations moved by the symmetries at most. */
#define MODEL_MOVES 3e5
/* Floating-point operations of the solves of a training at most. */
#define MODEL_FLOPS 3e6

static int lapar_stop(void *user, int stage, long done, long total)
{
    stopper *s = user;
    if ((stage != 0 && stage != 1) || done < 0 || done > total)
        abort();
    return ++s->calls == s->stop_at;
}

/* The options of a trained model; accepted bin counts reduced to
 * MODEL_BUCKETS buckets (angles kept even where they were). */
static void model_options(input *in, clik_lapar_model_options *o, stopper *s)
{
    clik_lapar_model_options_init(o);
    o->scale = integer(in, o->scale, 4);
    o->angles = integer(in, o->angles, CLIK_LAPAR_MODEL_MAX_BINS);
    o->strengths = integer(in, o->strengths, CLIK_LAPAR_MODEL_MAX_BINS);
    o->coherences = integer(in, o->coherences, CLIK_LAPAR_MODEL_MAX_BINS);
    o->phases = integer(in, o->phases, 1);
    o->window = integer(in, o->window, 9);
    o->atoms = integer(in, o->atoms, CLIK_LAPAR_TAPS);
    o->kernel = integer(in, o->kernel, 7);
    o->symmetry = integer(in, o->symmetry, 8);
    o->alpha = real(in, o->alpha, 0.0, 1.0);
    o->min_samples = integer(in, o->min_samples, 64);
    o->f16 = integer(in, o->f16, 1);
    const uint8_t edges = byte(in), stop = byte(in);
    const int ns = (edges & 0x0F) % CLIK_LAPAR_MODEL_MAX_BINS,
              nc = (edges >> 4) % CLIK_LAPAR_MODEL_MAX_BINS;
    for (int k = 0; k < ns; k++)
        o->strength_edges[k] = real_f(in, 1.0f + 2.0f * (float)k, 0.0f, 40.0f);
    for (int k = 0; k < nc; k++)
        o->coherence_edges[k] = real_f(in, 0.1f + 0.05f * (float)k, 0.0f, 1.0f);
    if (stop) {
        s->stop_at = stop;
        o->progress = lapar_stop;
        o->progress_user = s;
    }
    const int *bins[3] = {&o->angles, &o->strengths, &o->coherences};
    int valid = 1;
    for (int i = 0; i < 3; i++)
        valid &= *bins[i] >= 1 && *bins[i] <= CLIK_LAPAR_MODEL_MAX_BINS;
    if (!valid || o->scale < 2 || o->scale > 4 || (o->phases != 0 && o->phases != 1))
        return;
    const long phases = o->phases ? o->scale * o->scale : 1;
    if (phases * o->angles * o->strengths * o->coherences > CLIK_LAPAR_MODEL_MAX_BUCKETS)
        return; /* refused for its count */
    /* Halve the largest count (angles to an even count where they were
     * even, for symmetry 8) until the buckets fit: at most MODEL_BUCKETS,
     * and their equations, moved by each of the symmetries, MODEL_MOVES. */
    const int k = o->kernel == 5 || o->kernel == 7 ? o->kernel : 5;
    const double stride = k * k * (k * k + 1) / 2.0 + k * k,
                 moves = stride * (o->symmetry >= 1 && o->symmetry <= 8 ? o->symmetry + 1 : 1);
    for (;;) {
        const long buckets = phases * o->angles * o->strengths * o->coherences;
        if (buckets <= MODEL_BUCKETS && (double)buckets * moves <= MODEL_MOVES)
            break;
        int *most = &o->angles;
        for (int i = 1; i < 3; i++)
            if (*bins[i] > *most)
                most = (int *)bins[i];
        if (*most <= 2 && (*most == 1 || most == &o->angles))
            break; /* each count at its least */
        if (most == &o->angles && o->angles % 2 == 0)
            o->angles = (o->angles / 2 + 1) / 2 * 2;
        else
            *most = (*most + 1) / 2;
    }
}

/* Floating-point operations of one bucket's solve: a free k x k filter's
 * Cholesky, or the atoms' normal equations and theirs. */
static double solve_flops(const clik_lapar_model_options *o)
{
    if (o->kernel == 5 || o->kernel == 7) {
        const double t = o->kernel * o->kernel;
        return t * t * t / 6.0 + t * t;
    }
    const double l = o->atoms >= 1 && o->atoms <= CLIK_LAPAR_ATOMS ? o->atoms : 13;
    return l * 625.0 + l * l * 25.0 + l * l * l / 6.0;
}

/* A model trained with options of the input on one synthetic image, or
 * NULL where the options or the image are refused. */
static clik_lapar_model *train(input *in, clik_context *ctx, int ch, clik_type type)
{
    clik_lapar_model_options o;
    stopper s = {0, 0};
    model_options(in, &o, &s);
    static const clik_status train_refusals[] = {CLIK_ERR_INVALID_ARG, CLIK_ERR_UNSUPPORTED_FORMAT,
                                                 CLIK_ERR_OVERFLOW, CLIK_OK};
    clik_lapar_trainer *t = NULL;
    if (!expect(ctx, clik_lapar_trainer_create(ctx, &o, &t), train_refusals))
        return NULL;
    clik_image hr;
    clik_lapar_model *m = NULL;
    int hw = 1 + byte(in) % 12, hh = 1 + byte(in) % 12;
    /* Each bucket with samples (at most one per pixel) and each phase is
     * solved: a smaller image where the solves are large. */
    const long phases = o.phases == 1 && o.scale >= 2 && o.scale <= 4 ? o.scale * o.scale : 1;
    while ((double)(hw * hh + phases) * solve_flops(&o) > MODEL_FLOPS && hw * hh > 1) {
        if (hw >= hh)
            hw = (hw + 1) / 2;
        else
            hh = (hh + 1) / 2;
    }
    if (alloc(&hr, hw, hh, ch, type)) {
        fill(&hr, 0, hw);
        if (expect(ctx, clik_lapar_trainer_add(t, &hr), train_refusals) &&
            expect(ctx, clik_lapar_trainer_solve(t, &m), train_refusals)) {
            /* The model describes itself with the options it was made of. */
            clik_lapar_model_options d;
            if (clik_lapar_model_describe(ctx, m, o.scale, &d) != CLIK_OK || d.scale != o.scale ||
                d.angles != o.angles || d.strengths != o.strengths ||
                d.coherences != o.coherences || d.phases != o.phases || d.window != o.window ||
                d.kernel != o.kernel || d.symmetry != o.symmetry || d.f16 != o.f16 ||
                (o.kernel == 0 && d.atoms != o.atoms))
                abort();
        }
        clik_image_free(&hr);
    }
    clik_lapar_trainer_free(t);
    return m;
}

static void run_model(input *in, clik_context *ctx, int w, int h, int ch, clik_type type)
{
    const int scale = integer(in, 2, 4);
    const uint8_t which = byte(in), dst_mode = byte(in);
    clik_lapar_model *trained = NULL;
    const clik_lapar_model *model = NULL;
    if (which % 4 == 1)
        model = clik_lapar_model_default(2 + (which >> 2) % 4); /* NULL for 5 */
    else if (which % 4 >= 2 && !(model = trained = train(in, ctx, ch, type)))
        return;
    const int s = scale >= 2 && scale <= 4 ? scale : 2;
    clik_image src, dst;
    if (!alloc(&src, w, h, ch, type))
        goto out;
    fill(&src, 0, which);
    const int dw = dst_mode % 4 == 1 ? w * s + 1 : w * s;
    const clik_type dt = dst_mode % 4 == 2 ? (type == CLIK_U8 ? CLIK_F32 : CLIK_U8) : type;
    if (!alloc(&dst, dw, h * s, ch, dt)) {
        clik_image_free(&src);
        goto out;
    }
    expect_output(ctx, clik_upscale_lapar(ctx, &src, &dst, scale, model), refusals, &dst);
    clik_image_free(&src);
out:
    clik_lapar_model_free(trained);
}

/* ---- LAPAR dictionary compression -------------------------------------------------------- */

static void run_compress(input *in, clik_context *ctx, int w, int h, int ch, clik_type type)
{
    static float atoms[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_TAPS];
    static float mix[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_MAX_ATOMS];
    /* Independent atoms (a tap each, and a little of another): the LASSO's
     * coordinate descent on the default dictionary's 72 atoms, which span 13
     * dimensions, runs for seconds. Accepted counts folded to 1..8. */
    const uint8_t atom_at = byte(in);
    const float atom_v = real_f(in, 0.0f, -2.0f, 2.0f);
    memset(atoms, 0, sizeof(atoms));
    for (int l = 0; l < CLIK_LAPAR_MAX_ATOMS; l++) {
        atoms[l * CLIK_LAPAR_TAPS + l % CLIK_LAPAR_TAPS] = 1.0f;
        atoms[l * CLIK_LAPAR_TAPS + (l * 7 + 3) % CLIK_LAPAR_TAPS] += 0.125f;
    }
    if (atom_at & 0x80)
        atoms[(atom_at & 0x7F) % (8 * CLIK_LAPAR_TAPS)] = atom_v;
    clik_lapar_dict dict = {integer(in, 8, CLIK_LAPAR_MAX_ATOMS), atoms, NULL};
    if (dict.atoms >= 1 && dict.atoms <= CLIK_LAPAR_MAX_ATOMS)
        dict.atoms = 1 + (dict.atoms - 1) % 8;
    const int L = dict.atoms >= 1 && dict.atoms <= CLIK_LAPAR_MAX_ATOMS ? dict.atoms : 1;
    const double alpha = real(in, 0.25, 0.0, 1.0);
    int count = integer(in, 1, 64);
    if (count >= 1 && count <= 64)
        count = 1 + (count - 1) % 2;
    clik_lapar_compress_options o;
    clik_lapar_compress_options_init(&o);
    o.samples = integer(in, o.samples, 1 << 24);
    o.refit_samples = integer(in, o.refit_samples, o.samples);
    take(in, &o.seed, sizeof(o.seed));
    const uint8_t flags = byte(in), at = byte(in);
    const float v = real_f(in, 0.0f, -4.0f, 4.0f);
    /* Calibration images of U's size w x h, 4..8 on each side (the LASSO
     * converges slowly where few samples leave the terms dependent): phi, U
     * (f32) and the truth (the input's type). */
    w = 4 + (w - 1) % 5;
    h = 4 + (h - 1) % 5;
    clik_image phi[2], up[2], truth[2];
    clik_lapar_calib calib[2];
    int made = 0;
    for (; made < 2; made++) {
        if (!make_phi(&phi[made], w, h, L, flags & 1 ? CLIK_F16 : CLIK_F32, 0, (unsigned)at * 131u,
                      v))
            break;
        if (!alloc(&up[made], w, h, ch, CLIK_F32)) {
            clik_image_free(&phi[made]);
            break;
        }
        if (!alloc(&truth[made], w, h, ch, type)) {
            clik_image_free(&phi[made]);
            clik_image_free(&up[made]);
            break;
        }
        noise(&up[made], made + at);
        noise(&truth[made], made + at + 7u);
        if (flags & 2)
            poke(&up[made], at, v);
        calib[made] = (clik_lapar_calib){&phi[made], &up[made], &truth[made]};
    }
    if (made == 2) {
        clik_lapar_selection sel;
        float *m = flags & 4 ? mix : NULL;
        const clik_status st = clik_lapar_compress(ctx, calib, count, &dict, alpha, &o, &sel, m);
        if (expect(ctx, st, refusals)) {
            /* The selection is one the filter takes (a 2 x 2 lr, phi of
             * every plane). */
            const int k = alpha * L < 1.0 ? 1 : (int)lround(alpha * L);
            if (sel.atoms != L || sel.kept != k || sel.mix != m)
                abort();
            dict.selection = &sel;
            clik_image lr, p, dst;
            if (alloc(&lr, 2, 2, 1, CLIK_F32)) {
                fill(&lr, 0, at);
                if (make_phi(&p, 4, 4, L, CLIK_F32, 0, 0, 0.0f)) {
                    if (alloc(&dst, 4, 4, 1, CLIK_F32)) {
                        if (clik_lapar_filter(ctx, &lr, &p, &dict, 2, &dst) != CLIK_OK)
                            abort();
                        fuzz_check_image(&dst);
                    }
                    clik_image_free(&p);
                }
                clik_image_free(&lr);
            }
        }
    }
    for (int i = 0; i < made; i++) {
        clik_image_free(&phi[i]);
        clik_image_free(&up[i]);
        clik_image_free(&truth[i]);
    }
}

/*
 * The input: byte 0 the operation (% 4: flow, filter, model upscaler,
 * compression); byte 1 the CPU path (bit 0: NEON); bytes 2-4 the width
 * and height (1 + b % 24) and the channels (channels[b % 8]); byte 5 the type
 * (type_of); then the operation's options as its run_ function reads them.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    const uint8_t op = byte(&in), path = byte(&in);
    const int w = 1 + byte(&in) % 24, h = 1 + byte(&in) % 24;
    /* Mostly the channels the operations take (the flow 1, LAPAR 1 or 4). */
    static const int channels[8] = {1, 1, 1, 4, 4, 4, 2, 3};
    const int ch = channels[byte(&in) % 8];
    const clik_type type = type_of(byte(&in));
    clik_context *ctx = context(path & 1);
    switch (op % 4) {
    case 0: run_flow(&in, ctx, w, h, ch == 4 ? 1 : ch, type); break;
    case 1: run_filter(&in, ctx, w, h, ch, type); break;
    case 2: run_model(&in, ctx, w, h, ch, type); break;
    default: run_compress(&in, ctx, w, h, ch, type); break;
    }
    return 0;
}

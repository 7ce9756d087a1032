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

/* ---- pyramid and integral families: outputs checked against the scalar oracle ---------- */

#define MAX_OUTS 6

typedef clik_status (*multi_call)(clik_context *ctx, const clik_image *src, clik_image *outs);

/* The outputs of one public call, and the call itself for the oracle. */
typedef struct multi_state {
    multi_call call;
    int n;
    clik_image outs[MAX_OUTS];
} multi_state;

static clik_status multi_setup(bench_case *bc, multi_call call, int n, const int *w, const int *h,
                               const clik_type *types)
{
    multi_state *s = calloc(1, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    bc->state = s;
    s->call = call;
    s->n = n;
    clik_status st = CLIK_OK;
    for (int i = 0; i < n && st == CLIK_OK; i++)
        st = bench_output(bc, w[i], h[i], bc->channels, types[i], &s->outs[i]);
    return st;
}

static clik_status multi_run(bench_case *bc)
{
    multi_state *s = bc->state;
    return s->call(bc->ctx, &bc->src, s->outs);
}

/* Runs the same call on the scalar CPU path and compares every output byte. */
static int multi_check(bench_case *bc)
{
    multi_state *s = bc->state;
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.cpu_path = CLIK_CPU_SCALAR;
    clik_context *ref_ctx = NULL;
    clik_image ref[MAX_OUTS];
    memset(ref, 0, sizeof(ref));
    int ok = clik_context_create(&ref_ctx, &opt) == CLIK_OK;
    for (int i = 0; i < s->n && ok; i++)
        ok = clik_image_alloc(&ref[i], s->outs[i].width, s->outs[i].height, s->outs[i].channels,
                              s->outs[i].type) == CLIK_OK;
    if (!ok || s->call(ref_ctx, &bc->src_host, ref) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed");
        ok = 0;
    }
    for (int i = 0; i < s->n && ok; i++) {
        clik_image got;
        if (bench_fetch(bc, &s->outs[i], &got) != CLIK_OK) {
            snprintf(bc->message, sizeof(bc->message), "cannot download output %d", i);
            ok = 0;
            break;
        }
        size_t row = (size_t)got.width * (size_t)got.channels * clik_type_size(got.type);
        for (int y = 0; y < got.height && ok; y++) {
            if (memcmp((const char *)got.data + (size_t)y * got.stride,
                       (const char *)ref[i].data + (size_t)y * ref[i].stride, row) != 0) {
                snprintf(bc->message, sizeof(bc->message),
                         "output %d (%dx%d) differs from the scalar oracle in row %d", i, got.width,
                         got.height, y);
                ok = 0;
            }
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
static clik_status call_pyrdown(clik_context *ctx, const clik_image *src, clik_image *outs)
{
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

static clik_status call_pyramid(clik_context *ctx, const clik_image *src, clik_image *outs)
{
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
static clik_status call_pyrup(clik_context *ctx, const clik_image *src, clik_image *outs)
{
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
static clik_status call_integral(clik_context *ctx, const clik_image *src, clik_image *outs)
{
    return clik_integral(ctx, src, &outs[0], NULL);
}

static clik_status call_integral_sq(clik_context *ctx, const clik_image *src, clik_image *outs)
{
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
};

const int bench_op_count = (int)(sizeof(bench_ops) / sizeof(bench_ops[0]));

const bench_op *bench_op_find(const char *name)
{
    for (int i = 0; i < bench_op_count; i++)
        if (strcmp(bench_ops[i].name, name) == 0)
            return &bench_ops[i];
    return NULL;
}

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
};

const int bench_op_count = (int)(sizeof(bench_ops) / sizeof(bench_ops[0]));

const bench_op *bench_op_find(const char *name)
{
    for (int i = 0; i < bench_op_count; i++)
        if (strcmp(bench_ops[i].name, name) == 0)
            return &bench_ops[i];
    return NULL;
}

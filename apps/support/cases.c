/* Conformance cases, one table for every operation family. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"

#include <stdio.h>
#include <string.h>

const int clik_test_sizes[][2] = {{1, 1},    {2, 3},     {7, 7},      {27, 13},
                                  {128, 64}, {641, 479}, {1921, 1081}};
const int clik_test_size_count = (int)(sizeof(clik_test_sizes) / sizeof(clik_test_sizes[0]));

/* ---- histogram family -------------------------------------------------------- */

static clik_status run_hist(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = clik_image_alloc(out, 256 * in->channels, 1, 1, CLIK_U32);
    if (st == CLIK_OK)
        st = clik_hist_compute(ctx, in, out->data);
    return st;
}

static clik_status run_equalize(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = clik_image_alloc(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_equalize(ctx, in, out);
    return st;
}

/* A fixed table per channel: a permutation of 0..255 that differs by channel. */
static void lut_tables(uint8_t *tables, int count)
{
    for (int c = 0; c < count; c++)
        for (int v = 0; v < 256; v++)
            tables[c * 256 + v] = (uint8_t)((v * 167 + 13 + 71 * c) & 255);
}

static clik_status run_lut(clik_context *ctx, const clik_image *in, clik_image *out)
{
    uint8_t tables[4 * 256];
    lut_tables(tables, in->channels);
    clik_status st = clik_image_alloc(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_lut(ctx, in, out, tables, in->channels);
    return st;
}

static clik_status run_lut_shared(clik_context *ctx, const clik_image *in, clik_image *out)
{
    uint8_t table[256];
    lut_tables(table, 1);
    clik_status st = clik_image_alloc(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_lut(ctx, in, out, table, 1);
    return st;
}

#define CH124 (1u << 1 | 1u << 2 | 1u << 4)

const clik_case clik_cases[] = {
    {"hist", "hist", CLIK_TOL_EXACT, CH124, CLIK_U8, run_hist},
    {"hist", "equalize", CLIK_TOL_EXACT, CH124, CLIK_U8, run_equalize},
    {"hist", "lut", CLIK_TOL_EXACT, CH124, CLIK_U8, run_lut},
    {"hist", "lut-shared", CLIK_TOL_EXACT, CH124, CLIK_U8, run_lut_shared},
};
const int clik_case_count = (int)(sizeof(clik_cases) / sizeof(clik_cases[0]));

const clik_case *clik_case_find(const char *op)
{
    for (int i = 0; i < clik_case_count; i++)
        if (strcmp(clik_cases[i].op, op) == 0)
            return &clik_cases[i];
    return NULL;
}

/* ---- running one case ---------------------------------------------------------- */

void clik_case_check(const clik_case *c, clik_context *ctx, clik_context *oracle, int width,
                     int height, int channels, clik_pattern pattern, uint64_t seed,
                     clik_case_result *r)
{
    memset(r, 0, sizeof(*r));
    clik_image in, got = {0}, want = {0};
    r->status = clik_image_alloc(&in, width, height, channels, c->type);
    if (r->status != CLIK_OK) {
        snprintf(r->message, sizeof(r->message), "cannot allocate the input");
        return;
    }
    clik_pattern_fill(&in, pattern, seed);
    r->status = c->run(ctx, &in, &got);
    r->backend = clik_context_last_backend(ctx);
    if (r->status != CLIK_OK)
        snprintf(r->message, sizeof(r->message), "%s", clik_context_message(ctx));
    r->oracle_status = c->run(oracle, &in, &want);
    if (r->oracle_status != CLIK_OK && r->status == CLIK_OK)
        snprintf(r->message, sizeof(r->message), "oracle: %s", clik_context_message(oracle));
    if (r->status == CLIK_OK && r->oracle_status == CLIK_OK)
        clik_compare_images(&got, &want, c->tol, &r->cmp);
    clik_image_free(&in);
    clik_image_free(&got);
    clik_image_free(&want);
}

int clik_case_passed(const clik_case_result *r)
{
    return r->status == CLIK_OK && r->oracle_status == CLIK_OK && r->cmp.pass;
}

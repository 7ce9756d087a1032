/*
 * libFuzzer harness of the LAPAR model reader (lib/ops/lapar_model.c):
 * each input is a model file. A model that reads must write back to the
 * very same bytes (the format has one encoding of each model), must
 * describe each of its scales, and must upscale a small image by each.
 * Anything else must be refused with CLIK_ERR_FILE_FORMAT (or
 * CLIK_ERR_NO_MEMORY), leaving *model untouched. Each input is read twice:
 * as it is, and with the header's length and the checksum made to match
 * its size, so that mutations reach the entries' parser.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "fuzz.h"

static clik_context *ctx;

/* The model written again: the input's bytes when it has the writer's
 * version (2); an older version is written as version 2, which must read
 * back and write again to the same bytes. */
static void check_round_trip(const clik_lapar_model *m, const uint8_t *data, size_t size)
{
    size_t n = 0;
    uint32_t version = 0;
    memcpy(&version, data + 8, sizeof(version)); /* after the magic; read succeeded */
    if (clik_lapar_model_write(ctx, m, NULL, 0, &n) != CLIK_OK || (version == 2 && n != size))
        abort();
    uint8_t *out = malloc(n);
    if (!out)
        return;
    if (clik_lapar_model_write(ctx, m, out, n, &n) != CLIK_OK ||
        (version == 2 && memcmp(out, data, size) != 0))
        abort();
    if (version != 2) {
        clik_lapar_model *again = NULL;
        if (clik_lapar_model_read(ctx, out, n, &again) != CLIK_OK)
            abort();
        check_round_trip(again, out, n);
        clik_lapar_model_free(again);
    }
    free(out);
}

static void check_model(const clik_lapar_model *m, const uint8_t *data, size_t size)
{
    check_round_trip(m, data, size);
    clik_image src, dst;
    if (!fuzz_grey_image(&src, 3, 2))
        return;
    for (int s = 2; s <= 4; s++) {
        clik_lapar_model_options o;
        if (clik_lapar_model_describe(ctx, m, s, &o) != CLIK_OK)
            continue;
        if (o.scale != s || clik_image_alloc(&dst, 3 * s, 2 * s, 4, CLIK_U8) != CLIK_OK)
            abort();
        if (clik_upscale_lapar(ctx, &src, &dst, s, m) != CLIK_OK)
            abort();
        fuzz_check_image(&dst);
    }
    clik_image_free(&src);
}

/* A model that reads must pass check_model, anything else be refused
 * cleanly. */
FUZZ_FRAMED_OBJECT_HARNESS(clik_lapar_model, clik_lapar_model_read, check_model,
                           clik_lapar_model_free, 28)

/*
 * libFuzzer harness for the Middlebury .flo reader: the input is read as a
 * .flo file from memory. A flow that reads must write back to the very same
 * bytes, and must go through the evaluation (its errors against itself are
 * zero) and the colour coding, whatever its values (NaN, infinities, 1e10).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "flow_eval.h"
#include "fuzz.h"
#include "imageio_private.h"

/* The writer must give back what the reader accepted, byte for byte. */
static void check_round_trip(const clik_image *flow, const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    if (!fp)
        abort();
    char err[256];
    clik_status st = clikio__flo_write(fp, "fuzz.flo", flow, 0, err, sizeof(err));
    if (fclose(fp) != 0 || st != CLIK_OK || len != size || memcmp(out, data, size) != 0)
        abort();
    free(out);
}

static void check_evaluation(const clik_image *flow)
{
    double epe, aae;
    long counted;
    if (sup_flow_errors(flow, flow, &epe, &aae, &counted) != CLIK_OK)
        abort();
    if (counted < 0 || (long long)counted > (long long)flow->width * flow->height ||
        (counted > 0 && (epe != 0 || aae != 0)))
        abort();
    clik_image rgba;
    if (clik_image_alloc(&rgba, flow->width, flow->height, 4, CLIK_U8) != CLIK_OK)
        return; /* no memory for a picture of it: nothing to check */
    if (sup_flow_colorize(flow, &rgba, 0) != CLIK_OK ||
        sup_flow_colorize(flow, &rgba, 0.5f) != CLIK_OK)
        abort();
    fuzz_check_image(&rgba);
}

static clik_status read_flo(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    return clikio__flo_read(fp, size, "fuzz.flo", img, err, errlen);
}

static void check_flow(const clik_image *flow, const uint8_t *data, size_t size)
{
    check_round_trip(flow, data, size);
    check_evaluation(flow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read(data, size, read_flo, check_flow);
}

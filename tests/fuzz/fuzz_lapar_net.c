/*
 * libFuzzer harness of the LAPAR network reader (lib/ops/lapar_net_file.c):
 * each input is a network file. A network that reads must write back to
 * the very same bytes (one encoding per network and weight type), must
 * describe itself within the format's limits, and must run on a 2 x 2
 * image. Anything else must be refused with CLIK_ERR_FILE_FORMAT (or
 * CLIK_ERR_NO_MEMORY), leaving *net untouched. Each input is read twice:
 * as it is, and with the header's length and the checksum made to match
 * its size, so that mutations reach the header's fields and the values.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "fuzz.h"

static clik_context *ctx;

static void check_net(const clik_lapar_net *net, const uint8_t *data, size_t size)
{
    clik_lapar_net_info info;
    if (clik_lapar_net_describe(net, &info) != CLIK_OK || info.scale < 2 || info.scale > 4 ||
        info.atoms < 1 || info.atoms > CLIK_LAPAR_MAX_ATOMS || !clik_lapar_net_atoms(net))
        abort();
    size_t n = 0;
    if (clik_lapar_net_write(ctx, net, info.weights, NULL, 0, &n) != CLIK_OK || n != size)
        abort();
    uint8_t *out = malloc(n);
    if (!out)
        return;
    if (clik_lapar_net_write(ctx, net, info.weights, out, n, &n) != CLIK_OK ||
        memcmp(out, data, size) != 0)
        abort();
    free(out);
    /* Small networks only: a large one is valid but slow to run here. */
    if (info.features > 8 || info.blocks > 2 || info.units > 4)
        return;
    clik_image src, dst;
    if (!fuzz_grey_image(&src, 2, 2))
        return;
    if (clik_image_alloc(&dst, 2 * info.scale, 2 * info.scale, 4, CLIK_U8) == CLIK_OK) {
        if (clik_lapar_net_run(ctx, net, &src, &dst, NULL) != CLIK_OK)
            abort();
        fuzz_check_image(&dst);
        clik_image_free(&dst);
    }
    clik_image_free(&src);
}

FUZZ_FRAMED_OBJECT_HARNESS(clik_lapar_net, clik_lapar_net_read, check_net, clik_lapar_net_free, 68)

/*
 * libFuzzer harness for the tuning string ($CLIK_TUNE, the tuning option):
 * a CPU-only context is made with the input as its tuning string. Any
 * input is accepted or refused with CLIK_ERR_INVALID_ARG and a message
 * naming it; an accepted one gives a usable context.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    clik_context_options opt = fuzz_cpu_options();
    opt.tuning = text;
    clik_context *ctx = NULL;
    clik_status st = clik_context_create(&ctx, &opt);
    if (st == CLIK_OK) {
        /* A context the string made still runs an operation. */
        uint8_t px[4] = {9, 1, 200, 7};
        clik_image img;
        if (clik_image_wrap(&img, 2, 2, 1, CLIK_U8, px, 0) != CLIK_OK ||
            clik_hist_equalize(ctx, &img, &img) != CLIK_OK)
            abort();
    } else if (st != CLIK_ERR_INVALID_ARG || !*clik_context_message(NULL)) {
        abort();
    }
    clik_context_destroy(ctx);
    free(text);
    return 0;
}

/*
 * libFuzzer harness of clikio_read's choice of reader: the input is a file
 * with no extension, so its first bytes alone pick PNG, JPEG, PGM/PPM,
 * .npy or .flo (or refuse it), and that reader parses the rest.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "fuzz.h"
#include "imageio_private.h"

static clik_status read_any(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    int had_alpha = 0;
    return clikio__read_stream(fp, size, "fuzz-input", img, &had_alpha, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read(data, size, read_any, NULL);
}

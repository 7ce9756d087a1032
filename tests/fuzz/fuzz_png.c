/*
 * libFuzzer harness for the PNG reader: the input is read as a PNG file
 * from memory, and the image, if any, freed.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "fuzz.h"
#include "imageio_private.h"

static clik_status read_png(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    (void)size; /* the reader takes the stream alone */
    int had_alpha = 0;
    return clikio__png_read(fp, "fuzz.png", img, &had_alpha, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read(data, size, read_png, NULL);
}

/*
 * libFuzzer harness for the JPEG reader: the input is read as a JPEG file
 * from memory, and the image, if any, freed.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "fuzz.h"
#include "imageio_private.h"

static clik_status read_jpeg(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    (void)size; /* the reader takes the stream alone */
    return clikio__jpeg_read(fp, "fuzz.jpg", img, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read(data, size, read_jpeg, NULL);
}

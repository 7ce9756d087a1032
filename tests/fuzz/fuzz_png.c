/*
 * libFuzzer harness for the PNG reader: the input is read as a PNG file
 * from memory, and the image, if any, freed.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "fuzz.h"
#include "imageio_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fuzz_open(data, size);
    if (!fp)
        return 0;
    clik_image img = {0};
    int had_alpha = 0;
    char err[256];
    if (clikio__png_read(fp, "fuzz.png", &img, &had_alpha, err, sizeof(err)) == CLIK_OK)
        fuzz_check_image(&img);
    fclose(fp);
    return 0;
}

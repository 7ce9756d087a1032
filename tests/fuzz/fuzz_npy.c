/*
 * libFuzzer harness for the NumPy .npy reader: the input is read as a .npy
 * file from memory, and the array, if any, freed.
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
    char err[256];
    if (clikio__npy_read(fp, (int64_t)size, "fuzz.npy", &img, err, sizeof(err)) == CLIK_OK)
        fuzz_check_image(&img);
    fclose(fp);
    return 0;
}

/*
 * libFuzzer harness for the NumPy .npy reader: the input is read as a .npy
 * file from memory, as an image and as stacked planes (a 3-D array as one
 * channel of P * H rows), and the arrays, if any, freed.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "fuzz.h"
#include "imageio_private.h"

static clik_status read_npy(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    return clikio__npy_read(fp, size, "fuzz.npy", img, err, errlen);
}

static clik_status read_planes(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    return clikio__npy_read_planes(fp, size, "fuzz.npy", img, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read(data, size, read_planes, NULL);
    return fuzz_read(data, size, read_npy, NULL);
}

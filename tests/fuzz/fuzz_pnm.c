/*
 * libFuzzer harness for the PGM/PPM reader: the input is read as a Netpbm
 * file from memory, and the image, if any, freed.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "fuzz.h"
#include "imageio_private.h"

static clik_status read_pnm(FILE *fp, int64_t size, clik_image *img, char *err, size_t errlen)
{
    return clikio__pnm_read(fp, size, "fuzz.pnm", img, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read(data, size, read_pnm, NULL);
}

/* Placeholder: filled in by the ssim family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_ssim_dsp_init_scalar(clik_ssim_dsp *dsp)
{
    (void)dsp;
}

int clik_ssim_scalar(const clik_image *a, const clik_image *b, clik_image *map, double *mean)
{
    (void)a, (void)b, (void)map, (void)mean;
    return -1;
}

void clik_ssim_tiles_scalar(const clik_image *a, const clik_image *b, int tile, clik_image *map)
{
    (void)a, (void)b, (void)tile, (void)map;
}

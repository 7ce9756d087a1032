/* Placeholder: filled in by the filter family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_filter_dsp_init_scalar(clik_filter_dsp *dsp)
{
    (void)dsp;
}

int clik_blur_scalar(const clik_image *src, clik_image *dst, const float *weights, int ksize)
{
    (void)src, (void)dst, (void)weights, (void)ksize;
    return -1;
}

void clik_gray_scalar(const clik_image *src, clik_image *dst)
{
    (void)src, (void)dst;
}

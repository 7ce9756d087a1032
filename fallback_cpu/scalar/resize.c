/* Placeholder: filled in by the resize family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_resize_dsp_init_scalar(clik_resize_dsp *dsp)
{
    (void)dsp;
}

void clik_resize_scalar(const clik_image *src, clik_image *dst, clik_interp method)
{
    (void)src, (void)dst, (void)method;
}

/* Placeholder: filled in by the ssim family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_ssim_dsp_init_scalar(clik_ssim_dsp *dsp)
{
    (void)dsp;
}

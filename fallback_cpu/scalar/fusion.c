/* Placeholder: filled in by the fusion family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_fusion_dsp_init_scalar(clik_fusion_dsp *dsp)
{
    (void)dsp;
}

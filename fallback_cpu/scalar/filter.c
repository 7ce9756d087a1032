/* Placeholder: filled in by the filter family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_filter_dsp_init_scalar(clik_filter_dsp *dsp)
{
    (void)dsp;
}

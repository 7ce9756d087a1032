/* Placeholder: filled in by the resize family. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

void clik_resize_dsp_init_scalar(clik_resize_dsp *dsp)
{
    (void)dsp;
}

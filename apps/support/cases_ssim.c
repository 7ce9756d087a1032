/* Conformance cases of the ssim family. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"

const clik_case clik_cases_ssim[] = {
    {"ssim", "ssim-placeholder", CLIK_TOL_EXACT, 0, CLIK_U8, NULL},
};
const int clik_cases_ssim_count = 0;

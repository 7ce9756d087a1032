/* Conformance cases of the resize family. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"

const clik_case clik_cases_resize[] = {
    {"resize", "resize-placeholder", CLIK_TOL_EXACT, 0, CLIK_U8, NULL},
};
const int clik_cases_resize_count = 0;

/* Conformance cases of the filter family. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"

const clik_case clik_cases_filter[] = {
    {"filter", "filter-placeholder", CLIK_TOL_EXACT, 0, CLIK_U8, NULL},
};
const int clik_cases_filter_count = 0;

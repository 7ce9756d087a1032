/* filter family on every backend against the scalar oracle. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"
#include "harness.h"

START_TEST(matches_oracle)
{
    h_check_case(h_family_case("filter", _i));
}
END_TEST

static Suite *make(void)
{
    Suite *s = suite_create("filter");
    TCase *tc = tcase_create("filter");
    tcase_set_timeout(tc, 0);
    tcase_add_loop_test(tc, matches_oracle, 0, h_family_case_count("filter"));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_main(make, NULL);
}

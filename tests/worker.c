/*
 * A separate process for the host-library tests: creates a context from its
 * arguments and the environment, equalizes a synthetic image, checks it
 * against the scalar oracle, and prints one line of facts:
 *   status=CLIK_OK backend=opencl match=1 built=1 disk=0 rejected=0 written=1
 * Exit status 0 when the run succeeded and matched.
 * Usage: clik-test-worker [--device SPEC] [--cache DIR] [--strict] [--no-core]
 * --no-core: a crash leaves no core file (for tests where the run may crash
 * in the OpenCL driver).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "cases.h"

int main(int argc, char **argv)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            opt.device = argv[++i];
        else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
            opt.cache_dir = argv[++i];
        else if (strcmp(argv[i], "--strict") == 0)
            opt.strict = 1;
        else if (strcmp(argv[i], "--no-core") == 0) {
            struct rlimit none = {0, 0};
            setrlimit(RLIMIT_CORE, &none);
        } else {
            fprintf(stderr, "usage: %s [--device SPEC] [--cache DIR] [--strict] [--no-core]\n",
                    argv[0]);
            return 2;
        }
    }
    clik_context *ctx, *oracle;
    clik_status st = clik_context_create(&ctx, &opt);
    if (st != CLIK_OK) {
        printf("status=%s message=%s\n", clik_status_str(st), clik_context_message(NULL));
        return 1;
    }
    clik_context_options ref;
    clik_context_options_init(&ref);
    ref.device = "none";
    ref.cpu_path = CLIK_CPU_SCALAR;
    if (clik_context_create(&oracle, &ref) != CLIK_OK) {
        clik_context_destroy(ctx);
        return 1;
    }
    sup_case_result r;
    sup_case_check(sup_case_find("hist_equalize"), ctx, oracle, 257, 131, 1, SUP_PATTERN_SMOOTH, 42,
                   &r);
    clik_context_stats s;
    clik_context_stats_get(ctx, &s);
    int ok = sup_case_passed(&r);
    printf("status=%.*s backend=%s match=%d built=%u disk=%u rejected=%u written=%u\n",
           (int)strcspn(clik_status_str(r.status), ":"), clik_status_str(r.status),
           clik_backend_name(r.backend), ok, s.programs_built, s.programs_from_disk,
           s.cache_rejected, s.cache_written);
    if (!ok)
        printf("message=%s\n", r.message);
    clik_context_destroy(oracle);
    clik_context_destroy(ctx);
    return ok ? 0 : 1;
}

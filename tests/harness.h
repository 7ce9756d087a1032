/*
 * Runs a Check suite once per backend named by CLIK_TEST_BACKEND:
 *   opencl  every OpenCL device present (strict: no silent CPU fallback),
 *           once per tuning string the suite asks for; CLIK_TEST_DEVICE
 *           (a part of a device or platform name) picks devices;
 *   scalar  the scalar CPU path;   neon  the NEON CPU path;
 *   none    no context (tests of code that needs no backend).
 * A backend that is absent makes the program exit 77, which meson reports
 * as SKIP. The oracle (h_oracle) is always the scalar path.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_TEST_HARNESS_H
#define CLIK_TEST_HARNESS_H

#include <check.h>

#include "cases.h"
#include "clik.h"

extern clik_context *h_ctx;     /* the backend under test */
extern clik_context *h_oracle;  /* the scalar oracle */
extern char h_backend[512];     /* its name, for messages */
extern char h_device[32];       /* "P:D" of the OpenCL device under test, else "none" */
extern clik_backend h_expected; /* where operations must run */
extern int h_small;             /* CLIK_TEST_SMALL=1: sizes up to 128x64 only (oclgrind) */
extern int h_patterns;          /* CLIK_TEST_PATTERNS=N: the first N test patterns only */
extern int h_full;              /* CLIK_TEST_FULL=1 */
/* Also read: CLIK_TEST_FULL=1 (tuning variants at every size too, and the
 * scalar backend's cases at every size) and CLIK_TEST_MAX_PIXELS=N (sizes
 * up to N pixels: emulators). */

/* 0 while a forced kernel variant runs outside full runs: suites then add
 * only the tests whose outcome depends on the variant (the case tables,
 * edges, precision), not those of the API around it. */
int h_all_tests(void);

/* Number of leading entries of clik_test_sizes to use. */
int h_size_count(void);

/* The conformance cases of one family (apps/support/cases.c). */
struct clik_case;
const struct clik_case *h_family_case(const char *family, int n);
int h_family_case_count(const char *family);
/* Runs case c at every test size, pattern and channel count on h_ctx and the
 * oracle; fails the running test on the first mismatch or wrong backend. */
void h_check_case(const struct clik_case *c);
/* One input of case c on ctx against the oracle (h_oracle), as
 * clik_case_check(); an OpenCL run computes the oracle's output once for
 * all its passes (tunings and devices). */
void h_case_check(const struct clik_case *c, clik_context *ctx, int width, int height, int channels,
                  clik_pattern pattern, uint64_t seed, struct clik_case_result *r);

/* Runs make() for every backend; returns the process exit status. */
int harness_main(Suite *(*make)(void), const char *const *tunings);
/* The same with the tunings of CI runs and those of full runs (CLIK_TEST_FULL=1). */
int harness_main_full(Suite *(*make)(void), const char *const *tunings,
                      const char *const *full_tunings);

/* A fresh folder under $TMPDIR, removed by h_rmtree(). */
char *h_tempdir(void);
void h_rmtree(const char *path);

#endif

/*
 * Runs a Check suite once per backend named by CLIK_TEST_BACKEND:
 *   opencl  every OpenCL device present (strict: no silent CPU fallback),
 *           once per tuning string the suite asks for;
 *   scalar  the scalar CPU path;   neon  the NEON CPU path;
 *   none    no context (tests of code that needs no backend).
 * A backend that is absent makes the program exit 77, which meson reports
 * as SKIP. The oracle (h_oracle) is always the scalar path.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_TEST_HARNESS_H
#define CLIK_TEST_HARNESS_H

#include <check.h>

#include "clik.h"

extern clik_context *h_ctx;     /* the backend under test */
extern clik_context *h_oracle;  /* the scalar oracle */
extern char h_backend[512];     /* its name, for messages */
extern char h_device[32];       /* "P:D" of the OpenCL device under test, else "none" */
extern clik_backend h_expected; /* where operations must run */
extern int h_small;             /* CLIK_TEST_SMALL=1: sizes up to 128x64 only (oclgrind) */

/* Number of leading entries of clik_test_sizes to use. */
int h_size_count(void);

/* Runs make() for every backend; returns the process exit status. */
int harness_main(Suite *(*make)(void), const char *const *tunings);

/* A fresh folder under $TMPDIR, removed by h_rmtree(). */
char *h_tempdir(void);
void h_rmtree(const char *path);

#endif

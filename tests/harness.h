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
extern const char *h_tuning;    /* the tuning string of h_ctx ("" by default) */
extern char h_device[32];       /* "P:D" of the OpenCL device under test, else "none" */
extern clik_backend h_expected; /* where operations must run */
extern int h_small;             /* CLIK_TEST_SMALL=1: sizes up to 128x64 only (oclgrind) */
extern int h_patterns;          /* CLIK_TEST_PATTERNS=N: the first N test patterns only */
extern int h_full;              /* CLIK_TEST_FULL=1 */
/* 1: the contexts on PoCL keep clik's disk cache, which they leave off
 * otherwise (harness.c says why): for suites that use the tuning store, which
 * lives in its folder (test_misuse). Set before harness_main(). */
extern int h_pocl_disk_cache;
/* Also read: CLIK_TEST_FULL=1 (tuning variants at every size too, and the
 * scalar backend's cases at every size) and CLIK_TEST_MAX_PIXELS=N (sizes
 * up to N pixels: emulators). */

/* 0 while a forced kernel variant runs outside full runs: suites then add
 * only the tests whose outcome depends on the variant (the case tables,
 * edges, precision), not those of the API around it. */
int h_all_tests(void);

/* Number of leading entries of sup_test_sizes to use. */
int h_size_count(void);

/* 0, after printing "SKIP <test>: ...", where tests/run.sh has found that
 * no second thread can start (CLIK_TEST_NO_THREADS: qemu-user here); else 1. */
int h_threads_usable(const char *test);

/* The conformance cases of one family (apps/support/cases.c). */
struct sup_case;
const struct sup_case *h_family_case(const char *family, int n);
int h_family_case_count(const char *family);
/* Runs case c at every test size, pattern and channel count on h_ctx and the
 * oracle (3 channels up to a megapixel outside full runs); fails the running
 * test on the first mismatch or wrong backend. */
void h_check_case(const struct sup_case *c);
/* The same at the first `sizes` test sizes only, and past all_patterns_pixels
 * pixels one pattern per channel count (h_check_case: past a megapixel): for
 * cases that crop their input, where larger sizes repeat the same problem. */
void h_check_case_sizes(const struct sup_case *c, int sizes, long all_patterns_pixels);
/* One input of case c on ctx against the oracle (h_oracle), as
 * sup_case_check(); an OpenCL run computes the oracle's output once for
 * all its passes (tunings and devices). */
void h_case_check(const struct sup_case *c, clik_context *ctx, int width, int height, int channels,
                  sup_pattern pattern, uint64_t seed, struct sup_case_result *r);

/* Case c at one input on h_ctx against the oracle (h_case_check); fails the
 * running test unless it passes. */
void h_check_case_at(const struct sup_case *c, int width, int height, int channels,
                     sup_pattern pattern, uint64_t seed);
/* Every case of family at each of the count sizes ({width, height}), with
 * channels channels and the noise pattern, as h_check_case_at(). */
void h_check_family_sizes(const char *family, const int (*sizes)[2], int count, int channels,
                          uint64_t seed);
/* The same on thin images: 1 x 37, 37 x 1, 1 x 2, 2 x 1, then 1 x
 * long_height and long_width x 1 (sides past the kernels' tiles and bands). */
void h_check_family_thin(const char *family, int long_width, int long_height, int channels,
                         uint64_t seed);

/* Case c (which takes 3 and 4 channels) on h_ctx with a width x height
 * 4-channel noise input of the given colour order and with its first 3
 * channels: the 3-channel output must equal the 4-channel one bit for bit
 * (its first 3 channels where both keep colour; its first entries where
 * both are one row of per-channel entries). */
void h_check_three_channels(const struct sup_case *c, int width, int height, clik_order order);
/* h_check_three_channels() for each case of family that takes 3 channels,
 * at two sizes (one past the CPU kernels' 16-pixel steps), RGB then BGR. */
void h_check_family_three_channels(const char *family);
/* Case id (which reads its input's colour order) with 3 and 4 channels on
 * h_ctx: a noise picture read as RGB(A) and the same picture with red and
 * blue swapped read as BGR(A) must give the same picture, red and blue
 * swapped in colour outputs, bit for bit. */
void h_check_bgr_swaps(const char *id, int width, int height);
/* h_check_family_three_channels(family), then h_check_bgr_swaps() of each
 * case id given, up to a NULL, at width x height. */
void h_check_colour_orders(const char *family, int width, int height, const char *id, ...);
/* A new context without a device (the CPU paths); fails the running test
 * if it cannot be made. */
clik_context *h_cpu_context(void);
/* Context options on the device under test (h_device) with a disk cache
 * folder (NULL: the default) and strict mode; the caller sets the rest. */
clik_context_options h_device_options(const char *cache_dir, int strict);
/* A new context made with opt; fails the running test if it cannot be made,
 * with the create message. */
clik_context *h_context_create(const clik_context_options *opt);
/* The description of u8 host memory at ptr (size bytes) for
 * clik_image_import: w x h pixels of ch channels, stride bytes a row (0:
 * packed). */
clik_import_desc h_host_desc(void *ptr, size_t size, int w, int h, int ch, size_t stride);
/* On an OpenCL device under test, a new strict context on it with tuning
 * and the disk cache of h_ctx (off on PoCL: harness.c says why; the running
 * test fails if it cannot be made); on the CPU backends h_ctx itself. */
clik_context *h_tuned_context(const char *tuning);

/* One row of a test case's table, made by one of the macros below. */
typedef struct h_test {
    const TTest *test;
    int loops;          /* > 0: a loop test, _i from 0 to loops - 1; 0: one run */
    int all_tests_only; /* 1: added only where h_all_tests() */
} h_test;
/* clang-format off */
#define H_TEST(t)     {(t), 0, 0}
#define H_LOOP(t, n)  {(t), (n), 0}
#define H_TEST_ALL(t) {(t), 0, 1}
/* clang-format on */
#define H_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* Adds to s a test case named name with the count tests of the table, in
 * its order; timeout: seconds a test (0: none; negative: Check's default). */
TCase *h_tcase(Suite *s, const char *name, double timeout, const h_test *tests, int count);

/* A suite of one test case, both named name, run by h_suite_main(). */
typedef struct h_suite {
    const char *name;
    /* A family (tests/test_FAMILY.c): its conformance cases run first, a
     * test matches_oracle for each (h_check_case); NULL: none. */
    const char *family;
    double timeout; /* as h_tcase() */
    const h_test *tests;
    int count;
    const char *const *tunings;      /* as harness_main() */
    const char *const *full_tunings; /* in full runs (CLIK_TEST_FULL=1); NULL: tunings */
} h_suite;
/* harness_main_full() with the suite that *suite describes. */
int h_suite_main(const h_suite *suite);

/* Runs make() for every backend; returns the process exit status. */
int harness_main(Suite *(*make)(void), const char *const *tunings);
/* The same with the tunings of CI runs and those of full runs (CLIK_TEST_FULL=1). */
int harness_main_full(Suite *(*make)(void), const char *const *tunings,
                      const char *const *full_tunings);

/* Allocates each image given, up to a NULL, as width x height pixels of
 * channels elements of type (clik_image_alloc); a failure fails the test. */
void h_alloc_images(int width, int height, int channels, clik_type type, clik_image *first, ...);
/* Frees each image given (clik_image_free), up to a NULL. */
void h_free_images(clik_image *first, ...);
/* Destroys a context from h_tuned_context() unless it is h_ctx. */
void h_tuned_context_free(clik_context *ctx);

/* Writes text to the file dir/name; fails the running test if it cannot. */
void h_write_text(const char *dir, const char *name, const char *text);

/* The bytes of the library's default lapar model (its scale-2 entry's
 * model), written by the oracle (malloc'd); *n their count. */
uint8_t *h_default_model_bytes(size_t *n);

/* A fresh folder under $TMPDIR, removed (with all it holds) and freed by
 * h_rmtree(). */
char *h_tempdir(void);
void h_rmtree(char *path);

#endif

/*
 * Conformance cases: every operation, run on a backend and on the scalar
 * oracle with the same synthetic input, compared under the operation's
 * tolerance class. Shared by `clik conformance` and the Check suites.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_CASES_H
#define CLIK_CASES_H

#include "clik.h"
#include "compare.h"
#include "patterns.h"

typedef struct clik_case {
    const char *family; /* kernels/FAMILY.cl */
    const char *op;
    clik_tolerance tol;
    unsigned channels; /* bit mask of supported channel counts: 1, 2, 3, 4 */
    clik_type type;    /* input element type */
    /* Runs the operation on ctx into *out: a zeroed *out is allocated as a
     * host image; a preallocated one (host or device) must have the output's
     * shape and type (clik_case_output). Callers free *out either way. */
    clik_status (*run)(clik_context *ctx, const clik_image *in, clik_image *out);
} clik_case;

/* Every case, base families first: clik_case_at(i) for i < clik_case_count(). */
int clik_case_count(void);
const clik_case *clik_case_at(int i);

/* The tables of the later families (apps/support/cases_FAMILY.c). */
extern const clik_case clik_cases_resize[];
extern const int clik_cases_resize_count;
extern const clik_case clik_cases_filter[];
extern const int clik_cases_filter_count;
extern const clik_case clik_cases_ssim[];
extern const int clik_cases_ssim_count;
extern const clik_case clik_cases_fusion[];
extern const int clik_cases_fusion_count;
extern const clik_case clik_cases_flow[];
extern const int clik_cases_flow_count;
extern const clik_case clik_cases_lapar[];
extern const int clik_cases_lapar_count;
extern const clik_case clik_cases_lapar_model[];
extern const int clik_cases_lapar_model_count;
extern const clik_case clik_cases_lapar_net[];
extern const int clik_cases_lapar_net_count;

/* A LAPAR network of this shape with seeded random weights, in the model
 * file format (written here, apart from the library's writer): malloc'd
 * bytes, *size their count; NULL when out of memory. */
typedef struct clik_test_net_shape {
    int scale, features, blocks, units, atoms;
} clik_test_net_shape;
uint8_t *clik_test_net_bytes(const clik_test_net_shape *shape, uint64_t seed, size_t *size);

/* The case named op, or NULL. */
const clik_case *clik_case_find(const char *op);

/* The final output of a case's run: allocates *out as a host image of
 * (width, height, channels, type) when it is zeroed (no data, no buffer),
 * else accepts the caller's image, host or device, of that size
 * (CLIK_ERR_SIZE_MISMATCH) and format (CLIK_ERR_UNSUPPORTED_FORMAT). */
clik_status clik_case_output(clik_image *out, int width, int height, int channels, clik_type type);
/* The same for an output the case writes on the host: refuses a device
 * image (CLIK_ERR_INVALID_ARG). */
clik_status clik_case_host_output(clik_image *out, int width, int height, int channels,
                                  clik_type type);

/* A context on the scalar CPU path, the oracle; NULL when it cannot be made. */
clik_context *clik_case_oracle_context(void);

/* The sizes of SPEC section 4, none a multiple of a vector width. */
extern const int clik_test_sizes[][2];
extern const int clik_test_size_count;

typedef struct clik_case_result {
    clik_status status; /* of the backend's run */
    clik_status cause;  /* with CLIK_ERR_FALLBACK: clik_context_fallback_cause() */
    clik_status oracle_status;
    clik_backend backend; /* where the backend's run went */
    clik_compare cmp;
    double seconds;    /* the backend's run, wall clock */
    char message[512]; /* the context's message on failure */
} clik_case_result;

/* One input of a case and the oracle's output for it: made once, then
 * compared with any number of backends (clik_case_compare). */
typedef struct clik_case_oracle {
    const clik_case *c;
    clik_image in;   /* the synthetic input */
    clik_image want; /* the oracle's output, when status is CLIK_OK */
    clik_status status;
    double seconds; /* the oracle's run, wall clock */
    char message[512];
} clik_case_oracle;

/* Fills the input of case c from (width, height, channels, pattern, seed)
 * and runs c on the oracle context; returns the oracle's status (also in
 * o->status, with the context's message). o is freed by
 * clik_case_oracle_free() whatever the status. */
clik_status clik_case_oracle_run(const clik_case *c, clik_context *oracle, int width, int height,
                                 int channels, clik_pattern pattern, uint64_t seed,
                                 clik_case_oracle *o);
/* The same for the caller's host image in, which o only borrows. */
clik_status clik_case_oracle_of(const clik_case *c, clik_context *oracle, const clik_image *in,
                                clik_case_oracle *o);
void clik_case_oracle_free(clik_case_oracle *o);

/* Runs o's case on ctx with o's input and compares the output with the
 * oracle's under tol (the case's class, or EXACT to check a path against
 * the oracle bit for bit). */
void clik_case_compare(const clik_case_oracle *o, clik_context *ctx, clik_tolerance tol,
                       clik_case_result *r);

/* Runs case c for one input on ctx and on oracle, and compares. */
void clik_case_check(const clik_case *c, clik_context *ctx, clik_context *oracle, int width,
                     int height, int channels, clik_pattern pattern, uint64_t seed,
                     clik_case_result *r);

/* 1 when r passed: both runs succeeded and the comparison holds. */
int clik_case_passed(const clik_case_result *r);

/* 1 when the backend's run failed because its device cannot run the
 * operation by design: CLIK_ERR_DEVICE_LIMITS, or strict mode's
 * CLIK_ERR_FALLBACK refusing to fall back from it. *reason (may be NULL)
 * then points at the library's explanation inside r->message. */
int clik_case_unsupported(const clik_case_result *r, const char **reason);

#endif

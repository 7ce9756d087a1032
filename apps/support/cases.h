/*
 * Conformance cases: every operation, run on a backend and on the scalar
 * oracle with the same synthetic input, compared under the operation's
 * tolerance class. Shared by `clik conformance` and the Check suites.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef SUP_CASES_H
#define SUP_CASES_H

#include "clik.h"
#include "compare.h"
#include "patterns.h"

typedef struct sup_case {
    const char *family; /* kernels/FAMILY.cl */
    const char *op;
    sup_tolerance tol;
    unsigned channels; /* bit mask of supported channel counts: 1, 2, 3, 4 */
    clik_type type;    /* input element type */
    /* Runs the operation on ctx into *out: a zeroed *out is allocated as a
     * host image; a preallocated one (host or device) must have the output's
     * shape and type (sup_case_output). Callers free *out either way. */
    clik_status (*run)(clik_context *ctx, const clik_image *in, clik_image *out);
} sup_case;

/* Masks of sup_case.channels: SUP_CH(n), the bit of n channels, and the
 * sets the tables use. */
#define SUP_CH(n)  (1u << (n))
#define SUP_CH1    SUP_CH(1)
#define SUP_CH14   (SUP_CH(1) | SUP_CH(4))
#define SUP_CH34   (SUP_CH(3) | SUP_CH(4))
#define SUP_CH124  (SUP_CH14 | SUP_CH(2))
#define SUP_CH134  (SUP_CH14 | SUP_CH(3))
#define SUP_CH1234 (SUP_CH124 | SUP_CH(3))

/* Every case, base families first: sup_case_at(i) for i < sup_case_count(). */
int sup_case_count(void);
const sup_case *sup_case_at(int i);

/* The tables of the later families (apps/support/cases_FAMILY.c). */
extern const sup_case sup_cases_resize[];
extern const int sup_cases_resize_count;
extern const sup_case sup_cases_filter[];
extern const int sup_cases_filter_count;
extern const sup_case sup_cases_ssim[];
extern const int sup_cases_ssim_count;
extern const sup_case sup_cases_fusion[];
extern const int sup_cases_fusion_count;
extern const sup_case sup_cases_flow[];
extern const int sup_cases_flow_count;
extern const sup_case sup_cases_lapar[];
extern const int sup_cases_lapar_count;
extern const sup_case sup_cases_lapar_model[];
extern const int sup_cases_lapar_model_count;
extern const sup_case sup_cases_lapar_net[];
extern const int sup_cases_lapar_net_count;
extern const sup_case sup_cases_yuv[];
extern const int sup_cases_yuv_count;

/* A LAPAR network of this shape with seeded random weights, in the model
 * file format (written here, apart from the library's writer): malloc'd
 * bytes, *size their count; NULL when out of memory. */
typedef struct sup_test_net_shape {
    int scale, features, blocks, units, atoms;
} sup_test_net_shape;
uint8_t *sup_test_net_bytes(const sup_test_net_shape *shape, uint64_t seed, size_t *size);
/* The small network of the LAPAR network family's cases (x2, 8 features,
 * 72 atoms, seeded weights); free with clik_lapar_net_free(). */
clik_status sup_case_small_net(clik_lapar_net **net);
/* The CRC-32 of n bytes (IEEE 802.3, reflected, as zlib and PNG compute
 * it): the checksum of the LAPAR files and of PNG chunks, computed apart
 * from the library for the files the tests make. */
uint32_t sup_crc32(const uint8_t *p, size_t n);

/* run on the same input read as BGR(A) (in's pixels with order
 * CLIK_ORDER_BGR): the run of a case's BGR variant. */
clik_status sup_case_bgr(clik_context *ctx, const clik_image *in, clik_image *out,
                         clik_status (*run)(clik_context *ctx, const clik_image *in,
                                            clik_image *out));

/* The top-left w x h of in (all of it where in is smaller): a view of in's
 * pixels, the input of the cases that bound their cost by a crop. */
clik_image sup_case_crop(const clik_image *in, int w, int h);

/* Defines name, the run of a case that is an expression of its arguments
 * (ctx, in, out): another case's run, or a shared one, with set values,
 * as SUP_CASE_RUN(run_gray_bgr, sup_case_bgr(ctx, in, out, run_gray)). */
#define SUP_CASE_RUN(name, expr)                                                                   \
    static clik_status name(clik_context *ctx, const clik_image *in, clik_image *out)              \
    {                                                                                              \
        return expr;                                                                               \
    }

/* The case named op, or NULL. */
const sup_case *sup_case_find(const char *op);

/* The cases' old names (before the cases took their C function's name) and
 * their new ones: old name i, its new one in *new_name, for i <
 * sup_case_renamed_count(). */
int sup_case_renamed_count(void);
const char *sup_case_renamed_at(int i, const char **new_name);

/* The final output of a case's run: allocates *out as a host image of
 * (width, height, channels, type) when it is zeroed (no data, no buffer),
 * else accepts the caller's image, host or device, of that size
 * (CLIK_ERR_SIZE_MISMATCH) and format (CLIK_ERR_UNSUPPORTED_FORMAT). */
clik_status sup_case_output(clik_image *out, int width, int height, int channels, clik_type type);
/* The same for an output the case writes on the host: refuses a device
 * image (CLIK_ERR_INVALID_ARG). */
clik_status sup_case_host_output(clik_image *out, int width, int height, int channels,
                                 clik_type type);

/* A context on the scalar CPU path, the oracle; NULL when it cannot be made. */
clik_context *sup_case_oracle_context(void);

/* The test sizes (README, "Tests"), none a multiple of a vector width. */
extern const int sup_test_sizes[][2];
extern const int sup_test_size_count;

typedef struct sup_case_result {
    clik_status status; /* of the backend's run */
    clik_status cause;  /* with CLIK_ERR_FALLBACK: clik_context_fallback_cause() */
    clik_status oracle_status;
    clik_backend backend; /* where the backend's run went */
    sup_compare cmp;
    double seconds;    /* the backend's run, wall clock */
    char message[512]; /* the context's message on failure */
} sup_case_result;

/* One input of a case and the oracle's output for it: made once, then
 * compared with any number of backends (sup_case_compare). */
typedef struct sup_case_oracle {
    const sup_case *c;
    clik_image in;   /* the synthetic input */
    clik_image want; /* the oracle's output, when status is CLIK_OK */
    clik_status status;
    double seconds; /* the oracle's run, wall clock */
    char message[512];
} sup_case_oracle;

/* Fills the input of case c from (width, height, channels, pattern, seed)
 * and runs c on the oracle context; returns the oracle's status (also in
 * o->status, with the context's message). o is freed by
 * sup_case_oracle_free() whatever the status. */
clik_status sup_case_oracle_run(const sup_case *c, clik_context *oracle, int width, int height,
                                int channels, sup_pattern pattern, uint64_t seed,
                                sup_case_oracle *o);
/* The same for the caller's host image in, which o only borrows. */
clik_status sup_case_oracle_of(const sup_case *c, clik_context *oracle, const clik_image *in,
                               sup_case_oracle *o);
void sup_case_oracle_free(sup_case_oracle *o);

/* Runs o's case on ctx with o's input and compares the output with the
 * oracle's under tol (the case's class, or EXACT to check a path against
 * the oracle bit for bit). */
void sup_case_compare(const sup_case_oracle *o, clik_context *ctx, sup_tolerance tol,
                      sup_case_result *r);

/* Runs case c for one input on ctx and on oracle, and compares. */
void sup_case_check(const sup_case *c, clik_context *ctx, clik_context *oracle, int width,
                    int height, int channels, sup_pattern pattern, uint64_t seed,
                    sup_case_result *r);

/* 1 when r passed: both runs succeeded and the comparison holds. */
int sup_case_passed(const sup_case_result *r);

/* 1 when the backend's run failed because its device cannot run the
 * operation by design: CLIK_ERR_DEVICE_LIMITS, or strict mode's
 * CLIK_ERR_FALLBACK refusing to fall back from it. *reason (may be NULL)
 * then points at the library's explanation inside r->message. */
int sup_case_unsupported(const sup_case_result *r, const char **reason);

#endif

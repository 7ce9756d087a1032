/*
 * The LAPAR filter inside the library: what lib/ops/lapar.c (the dictionary,
 * the arguments and the plan, the filter's paths) gives the work-group
 * search (lapar_tune.c) and dictionary compression (lapar_compress.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_OPS_LAPAR_H
#define CLIK_OPS_LAPAR_H

#include "internal.h"

/* The arguments of one filter call, checked, with its plan. */
typedef struct lapar_args {
    const clik_image *lr, *phi;
    clik_image *dst;
    int scale;
    clik_lapar_plan plan;
    float wt[16]; /* the bicubic weights of the scale's phases (kernels/lapar.cl) */
    /* OpenCL path */
    clik_lapar_tuning use; /* the variant and work-group shape that run */
    int forced;            /* use was set by the work-group search */
} lapar_args;

/* The tuning store's program and kernel of the filter's tunings. */
#define CLIK_LAPAR_TUNE_PROGRAM "lapar"
#define CLIK_LAPAR_TUNE_KERNEL  "lapar_filter"

/* The bits of the row strides (elements) the LAPAR filter's kernels take:
 * at most 2^28 - 1 (lapar.c says why). */
#define CLIK_LAPAR_STRIDE_BITS 28

/* The n bindings of b (NULL ones passed over) against the row strides of
 * at most 2^bits - 1 elements a family's kernels take: CLIK_OK, or
 * CLIK_ERR_DEVICE_LIMITS (so the CPU path runs; fn names the call). */
clik_status clik__lapar_check_strides(clik_context *ctx, const char *fn,
                                      const clik_binding *const *b, int n, int bits);

/* A dictionary and its selection: CLIK_OK, or the failure (fn names the call). */
clik_status clik__lapar_check_dict(clik_context *ctx, const clik_lapar_dict *dict, const char *fn);

/* Checks every argument of a filter call (fn names it) and fills a. */
clik_status clik__lapar_prepare(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                                const clik_lapar_dict *dict, int scale, const clik_image *dst,
                                const char *fn, lapar_args *a);

/* Runs the filter of a on its images, as clik_lapar_filter does. */
clik_status clik__lapar_run_filter(clik_context *ctx, lapar_args *a);

/* ---- tunings: what the filter's OpenCL path runs ---- */

/* The problem class a tuning is stored for (out: cap bytes). */
void clik__lapar_problem_class(const lapar_args *a, char *out, size_t cap);
/* The device's default variant and work-group shape. */
clik_lapar_tuning clik__lapar_default_tuning(const clik_context *ctx);
/* 1 when this device can run the stored tuning r at all. */
int clik__lapar_tuning_usable(const clik_context *ctx, const clik_tune_record *r);
/* a->use: the registry's keys where set, else the stored tuning of a's
 * problem class, else the default (unless a->forced). */
void clik__lapar_resolve_tuning(clik_context *ctx, lapar_args *a);

/* ---- the kernels, for the search's limits ---- */

/* Launches k on n rows, one work-item each (the CPU-device row kernels of
 * lapar.cl and lapar_model.cl). */
clik_status clik__lapar_launch_rows(clik_context *ctx, clik_kernel_entry *k, int n);

/* 1 when a call's offsets need 64 bits (kernels/lapar.cl's WIDE). */
int clik__lapar_wide_call(const clik_image *lr, const clik_image *phi, const clik_image *dst);
/* The kernel `name` of the program of lr's format and phi's storage. */
clik_status clik__lapar_kernel(clik_context *ctx, const clik_image *lr, int phi_half, int wide,
                               const char *name, clik_kernel_entry **k);
/* Chunks of 16 pixels per work-item of lapar_rows that fit the local
 * memory with `items` work-items to a group; 0 when not even one does. */
int clik__lapar_rows_chunks(const clik_context *ctx, const lapar_args *a, size_t items);
/* Local memory of lapar_local's tiles for a gw x gh work-group (*pitch:
 * the widest block of lr a group reads). */
size_t clik__lapar_local_bytes(const lapar_args *a, size_t gw, size_t gh, int *pitch);

#endif

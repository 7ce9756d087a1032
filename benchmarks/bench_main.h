/*
 * clik-bench's own declarations, shared by its driver (bench.c) and its
 * report (bench_report.c: the table, the JSON lines, the header).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_BENCH_MAIN_H
#define CLIK_BENCH_MAIN_H

#include "bench.h"

#define MAX_SIZES  32
#define MAX_DIM    65536
#define COPY_BYTES ((size_t)64 << 20)
#define COPY_REPS  10
#define MAX_DEPTH  16

typedef struct options {
    const bench_op *ops[64];
    int explicit_op[64]; /* 0: added by --op all */
    int nops;
    int sizes[MAX_SIZES][2];
    int nsizes;
    const char *device;
    int channels;
    int reps;
    int warmup;
    int resident;
    int host_context; /* --host-alloc context: host images from clik_image_alloc_on */
    int json;
    int list; /* --list (with --json: one JSON object per op) */
    int allow_fallback;
    int verbose;
    int no_check;   /* --no-check */
    int kernels;    /* --kernels: device time per kernel */
    int unprofiled; /* the run on the context without profiling (no kernel times to read) */
    clik_cpu_path cpu_path;
    int threads; /* of the CPU path; -1: the library's default */
    uint64_t seed;
    const char *dump_dir;
    double scale;
    int frames;
    int depth;
    unsigned flags; /* the BENCH_* flags of the ops run */
} options;

/* --kernels: each kernel's device time over the timed runs, read from the
 * library's debug log ("clik: kernel NAME: MS ms", one line per launch). */
#define MAX_KERNELS 32
typedef struct kernel_time {
    char name[64];
    long launches;
    double ms;
    double bytes; /* per launch (the op's model), 0: none */
    double flops; /* per run (the op's model), 0: none */
} kernel_time;

typedef struct kernel_table {
    int on; /* collecting */
    int n;
    kernel_time k[MAX_KERNELS];
} kernel_table;

extern kernel_table collected;

/* Pinned transfer bandwidth of the run, each way (GB/s; 0: unknown). */
extern double h2d_gbps, d2h_gbps;
extern double fma_gflops; /* the device's FP32 peak, when an op rates its kernels by it */

typedef struct result {
    const bench_op *op;
    int width, height;
    int out_width, out_height; /* 0: the op has no scaled output */
    int resident;
    int frames; /* frames per timed run (the times below are per frame) */
    clik_backend backend;
    double e2e_ms, e2e_min_ms; /* on a context without profiling events */
    double e2e_profiled_ms;    /* the same calls with profiling (kernel times); < 0: none */
    double cpu_ms;             /* process CPU time per call (or frame) */
    double kernel_ms;          /* < 0: none */
    double bytes;
    double xfer_in, xfer_out; /* bytes of the host inputs and outputs (0 when resident) */
    char detail[160];         /* what the check found */
    double value;
    int has_value;
    kernel_table kernels; /* --kernels */
} result;

extern const char *prog;

/* Milliseconds the op's host images take to travel at the pinned transfer
 * bandwidth (-1 when resident or unknown). */
double transfer_ms(const result *r);

/* bench_report.c */
void json_string(const char *s);
void json_number(double v, int valid);
void print_json(const options *o, clik_context *ctx, const result *r, double copy_gbps,
                double copy_same_gbps);
void print_header(const options *o, clik_context *ctx, double copy_gbps);
void print_row(const options *o, const result *r, double copy_gbps);

#endif

/*
 * clik conformance: the run's data, shared by the command (conformance.c:
 * cases, backends, inputs, the workers) and its report
 * (conformance_report.c: the table, progress, JUnit and text reports).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_APPS_CONFORMANCE_H
#define CLIK_APPS_CONFORMANCE_H

#include <pthread.h>
#include <stdio.h>

#include "cases.h"
#include "cli.h"

#define MAX_BACKENDS 32
#define MAX_JOBS     256
#define MAX_OP_SPECS 64
#define SMALL_W      128 /* inputs up to SMALL_W x SMALL_H: --quick, and the oracle's re-run */
#define SMALL_H      64

typedef struct backend {
    char name[640];  /* for the legend and the reports */
    char label[48];  /* for the table */
    char slug[96];   /* for file names and JUnit class names */
    char device[32]; /* "P:D" or "none" */
    clik_context_options opt;
    clik_backend want; /* where every run must go */
    int oracle_path;   /* the oracle's own path: re-run on small inputs, bit for bit */
    int shared;        /* one context for all workers, used under conformance_run.shared_lock */
    int not_run;       /* its context could not be created */
    char not_run_reason[512];
    FILE *junit; /* its test cases, gathered before the totals are known */
    int runs, passed, failed, unsupported;
    double seconds;
} backend;

enum { OUT_NOT_RUN, OUT_PASS, OUT_FAIL, OUT_UNSUPPORTED };

/* One backend's run of one input. */
typedef struct outcome {
    unsigned char state;
    double max_abs;
    double seconds;
    char *message; /* OUT_FAIL: what went wrong; OUT_UNSUPPORTED: why; else NULL */
} outcome;

typedef struct input {
    int op; /* index into conformance_run.cases */
    int width, height, channels;
    sup_pattern pattern;
    uint64_t seed;
    double weight;    /* a guess of its cost, for the ETA */
    outcome *results; /* one per backend */
} input;

typedef struct column_widths {
    int op, tol, label;
} column_widths;

typedef struct conformance_run {
    const sup_case **cases;
    int ncases;
    backend *backends;
    int nbackends;
    input *inputs; /* by operation, then size, channels, pattern */
    int ninputs;
    int *op_first; /* op k's inputs: op_first[k] .. op_first[k + 1] - 1 */
    int *order;    /* the order inputs are handed out: each op's largest first */
    int *op_left;  /* inputs of op k not yet done */
    column_widths width;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int next; /* into order */
    int done;
    double done_weight, total_weight;
    int failed; /* so far, for the progress line */
    double oracle_seconds;
    int ran; /* the workers ran: there is something to report */
    clik_context *shared_ctx[MAX_BACKENDS];
    pthread_mutex_t shared_lock;
} conformance_run;

/* conformance.c */
double now_seconds(void);
void describe_input(const input *in, char *out, size_t cap);

/* conformance_report.c */
void column_widths_of(conformance_run *r);
void print_header(FILE *f, const conformance_run *r);
void print_legend(FILE *f, const conformance_run *r);
void stream_rows(conformance_run *r, double start);
void print_summary(FILE *f, const conformance_run *r, double wall, int jobs);
int write_junit(const char *path, const conformance_run *r);
int write_reports(const char *dir, const conformance_run *r);

#endif

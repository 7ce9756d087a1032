/*
 * clik-bench: shared declarations of the driver (bench.c), the op table
 * (bench_ops.c) and the synthetic inputs and timing (bench_input.c, which
 * clik-pipeline shares).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_BENCH_H
#define CLIK_BENCH_H

#include <stdint.h>

#include "clik.h"

#define BENCH_MAX_IMAGES 16

/* One measurement: an op on one image size. The driver fills the first
 * block, the op's setup may add images and state, the driver frees them. */
typedef struct bench_op bench_op;

typedef struct bench_case {
    const bench_op *op; /* the op measured */
    clik_context *ctx;
    int width;
    int height;
    int channels;
    int resident;             /* 1: inputs and outputs are device images */
    int host_context;         /* 1: host images from clik_image_alloc_on (--host-alloc context) */
    double xfer_in, xfer_out; /* bytes of host inputs and outputs the calls transfer */
    uint64_t seed;

    clik_image src;      /* the input the timed call reads (host or device) */
    clik_image src_host; /* the same pixels on the host */

    double scale;      /* --scale: resize factor, integer for fusion */
    int stream_frames; /* --frames: frames one timed run of a streaming op pushes */
    int stream_depth;  /* --depth: frames in flight of a streaming op */

    /* Set by the op's setup (untimed). */
    int out_width, out_height; /* the main output's size, when it is not W x H */
    int frames;                /* frames one timed run processes (driver sets 1) */
    int no_kernel_time;        /* 1: the call records no kernel time (its own queues) */

    clik_image owned[BENCH_MAX_IMAGES]; /* freed by the driver */
    int nowned;
    void *state;       /* private to the op; freed by its teardown */
    char message[256]; /* why check() failed */
    char detail[160];  /* what check() found when it passed, e.g. "EXACT" */
    double value;      /* a scalar result (SSIM mean) when has_value */
    int has_value;
} bench_case;

/* bench_op flags */
#define BENCH_USES_SCALE 1u  /* the output size follows --scale */
#define BENCH_INT_SCALE  2u  /* --scale must be an integer from 2 to 8 */
#define BENCH_FRAMES     4u  /* report frames per second */
#define BENCH_STREAM     8u  /* pushes --frames frames through a stream of --depth */
#define BENCH_HOST_OUT   16u /* a case's output the case writes on the host (hist's bins) */

/* One row of the op table. Adding an op family means adding one entry. */
struct bench_op {
    const char *name;    /* a case's op name where case_op is set */
    const char *case_op; /* the conformance case (apps/support/cases.h) the op runs, or NULL */
    const char *summary;
    unsigned channels;         /* bit c set: c channels supported (a case's: the case's) */
    const char *channels_hint; /* why other channel counts are refused; may be NULL */
    unsigned flags;            /* BENCH_* */
    const char *bytes_rule;    /* the bytes_moved formula, for --list */
    double (*bytes_moved)(const bench_case *bc);
    /* Allocates outputs (bench_output) and state; untimed. May be NULL. */
    clik_status (*setup)(bench_case *bc);
    /* The timed public call. */
    clik_status (*run)(bench_case *bc);
    /* Checks the result of the last run (untimed); 0 and bc->message when it
     * is wrong. May be NULL. */
    int (*check)(bench_case *bc);
    /* Frees bc->state. May be NULL. */
    void (*teardown)(bench_case *bc);
    /* --kernels: the bytes one launch of the named kernel must move (its
     * effective bandwidth), 0 when the op has no model for it. May be NULL. */
    double (*kernel_bytes)(const bench_case *bc, const char *kernel);
    /* --kernels: the floating-point operations (a fused multiply-add is 2)
     * all launches of the named kernel do in one run, 0 when the op has no
     * model for it; rated against the device's FMA peak. May be NULL. */
    double (*kernel_flops)(const bench_case *bc, const char *kernel);
};

extern const bench_op bench_ops[];
extern const int bench_op_count;
/* The op of that name (or of an earlier name of it), or NULL. */
const bench_op *bench_op_find(const char *name);
/* The name an op has now, by the name it had before it took its C
 * function's (without clik_), or NULL. */
const char *bench_op_renamed(const char *old);
/* The channel counts op takes (bit c: c channels): its case's when it has one. */
unsigned bench_op_channels(const bench_op *op);

/* An image of the case's kind (device image when resident, else host)
 * owned by the case. Outputs are left uninitialised, inputs hold the
 * synthetic pixels of (seed, salt). */
clik_status bench_output(bench_case *bc, int width, int height, int channels, clik_type type,
                         clik_image *out);
clik_status bench_input(bench_case *bc, int width, int height, int channels, uint64_t salt,
                        clik_image *out, clik_image *host);
/* The pixels of img (host or device) as a host image owned by the case. */
clik_status bench_fetch(bench_case *bc, const clik_image *img, clik_image *host);
/* A host image owned by the case, whatever --resident says (uninitialised). */
clik_status bench_host(bench_case *bc, int width, int height, int channels, clik_type type,
                       clik_image *out);
/* host itself, or (resident) a device copy of it owned by the case. */
clik_status bench_upload(bench_case *bc, const clik_image *host, clik_image *out);

/* Fills a host u8 image with natural-looking pixels: a smooth random field
 * of three octaves plus fine noise, each channel its own field. The same
 * (width, height, channels, seed) always gives the same pixels. */
void bench_fill_natural(clik_image *img, uint64_t seed);
/* Writes a host u8 image of 1 (PGM) or 2..4 channels (PAM); 0 on success. */
int bench_write_pnm(const clik_image *img, const char *path);
/* The exit statuses of the benchmark programs: a failure (a check run's
 * wrong result too), bad usage, and a skip (no device to run on). */
#define EXIT_FAILED 1
#define EXIT_USAGE  2
#define EXIT_SKIP   77

/* "PROG: WHAT: STATUS: message" on stderr (ctx's message, may be NULL,
 * when it has one); returns EXIT_FAILED. */
int bench_failed(const char *prog, clik_context *ctx, clik_status st, const char *what);
/* The context of a check run (clik-pipeline, clik-camera-loop) on device
 * (NULL: auto), strict or not: 0 with *ctx; EXIT_SKIP (a skip rather than
 * a failure) for CLIK_ERR_NO_DEVICE, "PROG: skipped: why" printed; else
 * bench_failed()'s EXIT_FAILED for clik_context_create. */
int bench_open_context(const char *prog, const char *device, int strict, clik_context **ctx);
/* An option's whole number: decimal digits alone (no sign, no space) within
 * [lo, hi]; 1 with *out, else 0 (s NULL or empty too). */
int bench_parse_int(const char *s, int lo, int hi, int *out);
/* --cpu-path: auto, scalar or neon; 1 with *out, else 0. */
int bench_parse_cpu_path(const char *s, clik_cpu_path *out);
/* A command-line flag (an option without a value): its name, and the int
 * field of the options it sets to value. */
typedef struct bench_flag {
    const char *name;
    int *field;
    int value;
} bench_flag;
/* Sets the field of the flag among flags[0..n) named arg: 1 when there is
 * one, else 0. */
int bench_set_flag(const char *arg, const bench_flag *flags, size_t n);
/* "gpu", "cpu", "accelerator" or "other" for d's type; "none" for NULL. */
const char *bench_device_type_name(const clik_device_info *d);

/* Wall clock (CLOCK_MONOTONIC) and CPU time of the whole process (an
 * OpenCL CPU device's threads included), in ms; the median of n values
 * (sorts them). */
double bench_now_ms(void);
double bench_cpu_ms(void);
double bench_median(double *v, int n);

#endif

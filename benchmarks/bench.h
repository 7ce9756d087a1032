/*
 * clik-bench: shared declarations of the driver (bench.c), the op table
 * (bench_ops.c) and the synthetic inputs (bench_input.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_BENCH_H
#define CLIK_BENCH_H

#include <stdint.h>

#include "clik.h"

#define BENCH_MAX_IMAGES 16

/* One measurement: an op on one image size. The driver fills the first
 * block, the op's setup may add images and state, the driver frees them. */
typedef struct bench_case {
    clik_context *ctx;
    int width;
    int height;
    int channels;
    int resident; /* 1: inputs and outputs are device images */
    uint64_t seed;

    clik_image src;      /* the input the timed call reads (host or device) */
    clik_image src_host; /* the same pixels on the host */

    clik_image owned[BENCH_MAX_IMAGES]; /* freed by the driver */
    int nowned;
    void *state;       /* private to the op; freed by its teardown */
    char message[256]; /* why check() failed */
} bench_case;

/* One row of the op table. Adding an op family means adding one entry. */
typedef struct bench_op {
    const char *name;
    const char *summary;
    unsigned channels;      /* bit c set: c channels supported */
    const char *bytes_rule; /* the bytes_moved formula, for --list */
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
} bench_op;

extern const bench_op bench_ops[];
extern const int bench_op_count;
const bench_op *bench_op_find(const char *name);

/* An image of the case's kind (device image when resident, else host)
 * owned by the case. Outputs are left uninitialised, inputs hold the
 * synthetic pixels of (seed, salt). */
clik_status bench_output(bench_case *bc, int width, int height, int channels, clik_type type,
                         clik_image *out);
clik_status bench_input(bench_case *bc, int width, int height, int channels, uint64_t salt,
                        clik_image *out, clik_image *host);
/* The pixels of img (host or device) as a host image owned by the case. */
clik_status bench_fetch(bench_case *bc, const clik_image *img, clik_image *host);

/* Fills a host u8 image with natural-looking pixels: a smooth random field
 * of three octaves plus fine noise, each channel its own field. The same
 * (width, height, channels, seed) always gives the same pixels. */
void bench_fill_natural(clik_image *img, uint64_t seed);
/* Writes a host u8 image of 1 (PGM) or 2..4 channels (PAM); 0 on success. */
int bench_write_pnm(const clik_image *img, const char *path);

#endif

/* clik flow: the pieces the one-pair command (flow.c) and the frame
 * sequence (flow_sequence.c) share (flow_io.c), and the sequence's run.
 * SPDX-License-Identifier: BSD-2-Clause */
#ifndef CLIK_APP_FLOW_H
#define CLIK_APP_FLOW_H

#include "cli.h"

/* The errors of one flow against its ground truth. */
typedef struct flow_errors {
    double epe, aae;
    long counted, total; /* vectors known in both, and all vectors */
} flow_errors;

/* What the command line asks for, parsed. */
typedef struct flow_job {
    const char *in0, *in1;      /* the two images; a frame pattern in in0 for a sequence */
    const char *out, *viz, *gt; /* names, or patterns for a sequence; viz and gt may be NULL */
    clik_flow_options opt;
    int sequence, start; /* start < 0: 0 or 1, whichever exists */
    const char *device;
} flow_job;

/* Reads a flow: a .flo file, or anything clikio_read gives as a 2-channel
 * f32 image (a (H, W, 2) float32 .npy). Prints the reason otherwise. */
int flow_read_file(const char *cmd, const char *path, clik_image *flow);
/* Measures flow against gt; with no vector known in both, says so and fails. */
int flow_measure(const char *cmd, const char *flow_path, const clik_image *flow,
                 const char *gt_path, const clik_image *gt, flow_errors *e);
/* One line on stdout, after label (may be NULL). */
void flow_print_errors(const char *label, const flow_errors *e);
/* The colour picture of flow (Middlebury's wheel, full colour at
 * max_motion; 0: the longest known vector) into rgba, allocated here. */
int flow_colorize(const char *cmd, const char *path, const clik_image *flow, float max_motion,
                  clik_image *rgba);
/* Stages the flow as output out of set, and its picture as output viz
 * (viz < 0: none). */
int flow_stage(cli_outputs *set, const clik_image *flow, int out, int viz, const char *name);
/* The flows along a numbered frame sequence (flow_sequence.c). */
int flow_sequence_run(const flow_job *job);

#endif

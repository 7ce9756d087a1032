/* The pieces of the flow commands (flow.c) and of the frame sequence
 * (flow_sequence.c): flows read, measured, drawn and staged.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>

#include "flow.h"
#include "flow_eval.h"
#include "imageio.h"

/* Reads a flow: a .flo file, or anything clikio_read gives as a 2-channel
 * f32 image (a (H, W, 2) float32 .npy). Prints the reason otherwise. */
int flow_read_file(const char *cmd, const char *path, clik_image *flow)
{
    char err[512];
    clik_status st = clikio_read(path, flow, NULL, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", cmd, err);
        return CLI_FAILED;
    }
    if (flow->channels != 2 || flow->type != CLIK_F32) {
        fprintf(stderr,
                "clik %s: %s: not a flow (%d-channel %s; a flow has 2 f32 channels, as in a "
                ".flo file)\n",
                cmd, path, flow->channels, clik_type_name(flow->type));
        clik_image_free(flow);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Measures flow against gt; with no vector known in both, says so and fails. */
int flow_measure(const char *cmd, const char *flow_path, const clik_image *flow,
                 const char *gt_path, const clik_image *gt, flow_errors *e)
{
    if (flow->width != gt->width || flow->height != gt->height) {
        fprintf(stderr, "clik %s: %s is %dx%d but %s is %dx%d: the flows need one size\n", cmd,
                flow_path, flow->width, flow->height, gt_path, gt->width, gt->height);
        return CLI_FAILED;
    }
    clik_status st = sup_flow_errors(flow, gt, &e->epe, &e->aae, &e->counted);
    if (st != CLIK_OK)
        return cli_error(cmd, NULL, st, gt_path);
    if (e->counted == 0) {
        fprintf(stderr, "clik %s: %s: no vector is known in both flows\n", cmd, gt_path);
        return CLI_FAILED;
    }
    e->total = (long)flow->width * flow->height;
    return CLI_OK;
}

/* One line on stdout, after label (may be NULL). */
void flow_print_errors(const char *label, const flow_errors *e)
{
    printf("%s%sEPE %.6f AAE %.6f (%ld of %ld vectors)\n", label ? label : "", label ? ": " : "",
           e->epe, e->aae, e->counted, e->total);
}

/* The colour picture of flow, as RGBA. */
int flow_colorize(const char *cmd, const char *path, const clik_image *flow, float max_motion,
                  clik_image *rgba)
{
    clik_status st = clik_image_alloc(rgba, flow->width, flow->height, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = sup_flow_colorize(flow, rgba, max_motion);
    if (st != CLIK_OK) {
        clik_image_free(rgba);
        return cli_error(cmd, NULL, st, path);
    }
    return CLI_OK;
}

/* Stages the flow as output out of set, and its picture as output viz
 * (viz < 0: none). */
int flow_stage(cli_outputs *set, const clik_image *flow, int out, int viz, const char *name)
{
    int rc = cli_outputs_stage(set, out, flow, 0);
    if (rc == CLI_OK && viz >= 0) {
        clik_image rgba = {0};
        rc = flow_colorize("flow", name, flow, 0, &rgba);
        if (rc == CLI_OK)
            rc = cli_outputs_stage(set, viz, &rgba, 0);
        clik_image_free(&rgba);
    }
    return rc;
}

/*
 * What the flow family's files share (lib/ops/flow.c, flow_opencl.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_OPS_FLOW_H
#define CLIK_OPS_FLOW_H

#include "internal.h"

typedef struct flow_args {
    clik_flow_plan plan;
    int half; /* the device path's u and p in 16-bit floats */
} flow_args;

/* The OpenCL path of clik_flow_tvl1 (an op's OpenCL callback). */
clik_status clik__flow_opencl(clik_context *ctx, void *p, clik_binding *const *b);
/* The status of a run that the progress callback stopped. */
clik_status clik__flow_cancelled(clik_context *ctx);

#endif

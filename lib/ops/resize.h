/*
 * What the resize family's files share (lib/ops/resize.c, resize_opencl.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_OPS_RESIZE_H
#define CLIK_OPS_RESIZE_H

#include "internal.h"
#include "resize_geometry.h"

typedef struct resize_args {
    clik_interp method;
    int period2;            /* the kept entry's period2 */
    const double *scale;    /* clik_resize_scaled: fx, fy; clik_resize: NULL */
    clik_resize_geometry g; /* OpenCL path: the kept entry's (owned by it) */
    cl_mem geo;             /* the geometry table on the device, or NULL */
    struct geo_entry *kept; /* the entry of the context's geometry cache */
} resize_args;

/* The OpenCL path of clik_resize and clik_resize_scaled (an op's OpenCL
 * callback; b[0] is src, b[1] dst). */
clik_status clik__resize_opencl(clik_context *ctx, void *p, clik_binding *const *b);

#endif

/*
 * Kernel launches under the portable work-group rules: the local size fits
 * the device's total and per-dimension limits and the kernel's own limit;
 * the global size is rounded up to whole work-groups (no non-uniform
 * work-groups), so every kernel checks its bounds.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

clik_status clik__arg(clik_context *ctx, clik_kernel_entry *k, unsigned idx, size_t size,
                      const void *value)
{
    cl_int err = ctx->cl->clSetKernelArg(k->kernel, idx, size, value);
    if (err != CL_SUCCESS) {
        clik__fail_cl(ctx, err, "clSetKernelArg");
        return clik__fail(ctx, CLIK_ERR_OPENCL, "%s: argument %u: %s", k->name, idx,
                          clik__cl_error_name(err));
    }
    return CLIK_OK;
}

clik_status clik__args(clik_context *ctx, clik_kernel_entry *k, unsigned first,
                       const clik_arg_value *args, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        clik_status st = clik__arg(ctx, k, first + i, args[i].size, args[i].value);
        if (st != CLIK_OK)
            return st;
    }
    return CLIK_OK;
}

clik_status clik__collect_events(clik_context *ctx)
{
    if (ctx->nevents == 0)
        return CLIK_OK;
    cl_int err = ctx->cl->clWaitForEvents((cl_uint)ctx->nevents, ctx->events);
    for (int i = 0; i < ctx->nevents; i++) {
        cl_ulong t0 = 0, t1 = 0;
        if (ctx->cl->clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_START, sizeof(t0),
                                             &t0, NULL) == CL_SUCCESS &&
            ctx->cl->clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_END, sizeof(t1),
                                             &t1, NULL) == CL_SUCCESS &&
            t1 > t0) {
            ctx->stats.last_kernel_ms += (double)(t1 - t0) * 1e-6;
            clik__log(ctx, CLIK_LOG_DEBUG, "clik: kernel %s: %.4f ms", ctx->event_kernels[i],
                      (double)(t1 - t0) * 1e-6);
        }
        ctx->cl->clReleaseEvent(ctx->events[i]);
    }
    ctx->nevents = 0;
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, "clWaitForEvents");
}

void clik__track_event(clik_context *ctx, cl_event ev, const char *kernel)
{
    if (!ev)
        return;
    if (ctx->nevents == CLIK_MAX_EVENTS)
        (void)clik__collect_events(ctx); /* keep the sum exact: wait for the oldest now; a
                                          * failure shows again at the operation's end */
    snprintf(ctx->event_kernels[ctx->nevents], sizeof(ctx->event_kernels[0]), "%s", kernel);
    ctx->events[ctx->nevents++] = ev;
}

void clik__fit_local(const clik_context *ctx, const clik_kernel_entry *k, unsigned dims,
                     size_t *local)
{
    size_t limit = k->max_work_group;
    for (unsigned d = 0; d < dims; d++) {
        if (local[d] == 0)
            local[d] = 1;
        if (local[d] > ctx->dev.max_work_item_sizes[d])
            local[d] = ctx->dev.max_work_item_sizes[d];
    }
    for (;;) {
        size_t total = 1;
        unsigned largest = 0;
        for (unsigned d = 0; d < dims; d++) {
            total *= local[d];
            if (local[d] > local[largest])
                largest = d;
        }
        if (total <= limit || local[largest] == 1)
            break;
        local[largest] = (local[largest] + 1) / 2;
    }
}

clik_status clik__launch_exact(clik_context *ctx, clik_kernel_entry *k, unsigned dims,
                               const size_t *global, const size_t *local)
{
    cl_event ev = NULL;
    cl_int err = ctx->cl->clEnqueueNDRangeKernel(ctx->queue, k->kernel, dims, NULL, global, local,
                                                 0, NULL, ctx->profiling ? &ev : NULL);
    if (err != CL_SUCCESS) {
        clik__fail_cl(ctx, err, "clEnqueueNDRangeKernel");
        return clik__fail(ctx, err == CL_OUT_OF_HOST_MEMORY ? CLIK_ERR_NO_MEMORY : CLIK_ERR_OPENCL,
                          "%s: launch failed: %s (%d)", k->name, clik__cl_error_name(err),
                          (int)err);
    }
    clik__track_event(ctx, ev, k->name);
    return CLIK_OK;
}

clik_status clik__launch(clik_context *ctx, clik_kernel_entry *k, unsigned dims,
                         const size_t *items, const size_t *local_wanted)
{
    size_t local[3], global[3];
    for (unsigned d = 0; d < dims; d++) {
        if (items[d] == 0)
            return CLIK_OK;
        local[d] = local_wanted[d];
    }
    clik__fit_local(ctx, k, dims, local);
    for (unsigned d = 0; d < dims; d++) {
        size_t groups = (items[d] + local[d] - 1) / local[d];
        global[d] = groups * local[d];
    }
    return clik__launch_exact(ctx, k, dims, global, local);
}

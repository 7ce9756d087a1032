/*
 * The fallback policy: an operation runs on the context's OpenCL device when
 * its kernels build and the device can run it, else on the CPU path (NEON or
 * scalar), unless strict mode turns the fall back into an error.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "internal.h"

/* Statuses that blame the caller: no other path can do better. */
static int caller_error(clik_status st)
{
    switch (st) {
    case CLIK_ERR_NULL:
    case CLIK_ERR_INVALID_ARG:
    case CLIK_ERR_INVALID_SIZE:
    case CLIK_ERR_SIZE_MISMATCH:
    case CLIK_ERR_STRIDE:
    case CLIK_ERR_OVERFLOW:
    case CLIK_ERR_WRONG_CONTEXT: return 1;
    default: return 0;
    }
}

clik_status clik__run(clik_context *ctx, const char *op, clik_op_fn opencl, clik_op_fn cpu,
                      void *args)
{
    ctx->stats.last_kernel_ms = 0.0;
    if (ctx->has_device) {
        clik_status st;
        if (opencl) {
            ctx->nevents = 0;
            st = opencl(ctx, args);
            if (ctx->host_pending) {
                ctx->cl->clFinish(ctx->queue);
                ctx->host_pending = 0;
            }
            clik__collect_events(ctx);
        } else {
            st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "%s has no OpenCL kernel", op);
        }
        if (st == CLIK_OK) {
            ctx->last_backend = CLIK_BACKEND_OPENCL;
            return CLIK_OK;
        }
        if (caller_error(st))
            return st;
        if (ctx->strict) {
            char reason[1024];
            strncpy(reason, clik_context_message(ctx), sizeof(reason) - 1);
            reason[sizeof(reason) - 1] = '\0';
            if (st == CLIK_ERR_BUILD)
                return st; /* keep the whole build log in the message */
            return clik__fail(ctx, CLIK_ERR_FALLBACK,
                              "%s cannot run on %s (%s) and CLIK_STRICT forbids the CPU "
                              "fallback: %s",
                              op, ctx->dev.name, clik_status_str(st), reason);
        }
        ctx->stats.fallbacks++;
        clik__log(ctx, CLIK_LOG_WARNING, "clik: %s falls back to the %s path: %s", op,
                  clik_backend_name(ctx->cpu_backend), clik_context_message(ctx));
    }
    clik_status st = cpu(ctx, args);
    if (st == CLIK_OK)
        ctx->last_backend = ctx->cpu_backend;
    return st;
}

/*
 * Running an operation: its images are bound once here (for the kernels, or
 * as host views for the CPU path), and the fallback policy applies: the
 * operation runs on the context's OpenCL device when its kernels build and
 * the device can run it, else on the CPU path (NEON or scalar), unless
 * strict mode turns the fall back into an error.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Statuses that blame the caller (or come from its request to stop): no
 * other path can do better. */
static int caller_error(clik_status st)
{
    switch (st) {
    case CLIK_ERR_CANCELLED:
    case CLIK_ERR_READ_ONLY:
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

/* Image i is the same as an earlier image alias[i] (in place), else itself;
 * access[i] is the union of the accesses of an image and its aliases. */
static void find_aliases(const clik_op_image *images, int n, int *alias, int *access)
{
    for (int i = 0; i < n; i++) {
        alias[i] = i;
        access[i] = images[i].access;
        for (int j = 0; j < i; j++) {
            clik_status st;
            if (alias[j] == j && clik__same_image(images[i].image, images[j].image, &st) == 1) {
                alias[i] = j;
                access[j] |= images[i].access;
                break;
            }
        }
    }
}

static clik_status run_opencl(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                              int n, void *args)
{
    clik_binding store[CLIK_OP_MAX_IMAGES];
    clik_binding *b[CLIK_OP_MAX_IMAGES] = {NULL};
    int alias[CLIK_OP_MAX_IMAGES], access[CLIK_OP_MAX_IMAGES];
    find_aliases(images, n, alias, access);
    clik_status st = CLIK_OK;
    int bound = 0;
    for (; bound < n && st == CLIK_OK; bound++) {
        b[bound] = &store[alias[bound]];
        if (alias[bound] == bound)
            st = clik__bind(ctx, images[bound].image, access[bound], b[bound]);
        if (st != CLIK_OK)
            break;
    }
    if (st == CLIK_OK)
        st = op->opencl(ctx, args, b);
    /* Results come back only when everything succeeded. */
    while (bound-- > 0)
        if (alias[bound] == bound) {
            clik_status st2 = clik__unbind(ctx, b[bound], st == CLIK_OK);
            if (st == CLIK_OK)
                st = st2;
        }
    return st;
}

static clik_status run_cpu(clik_context *ctx, const clik_op *op, const clik_op_image *images, int n,
                           void *args)
{
    clik_image store[CLIK_OP_MAX_IMAGES];
    clik_image *v[CLIK_OP_MAX_IMAGES] = {NULL};
    int alias[CLIK_OP_MAX_IMAGES], access[CLIK_OP_MAX_IMAGES];
    find_aliases(images, n, alias, access);
    clik_status st = CLIK_OK;
    int opened = 0;
    for (; opened < n; opened++) {
        v[opened] = &store[alias[opened]];
        if (alias[opened] == opened &&
            (st = clik__host_view(ctx, images[opened].image, access[opened], v[opened])) != CLIK_OK)
            break;
    }
    if (st == CLIK_OK) {
        clik_cpu_pool *outer = clik__cpu_pool_enter(clik__threads_pool(ctx));
        st = op->cpu(ctx, args, v);
        clik__cpu_pool_enter(outer);
    }
    while (opened-- > 0)
        if (alias[opened] == opened) {
            clik_status st2 = clik__host_view_done(ctx, images[opened].image, v[opened],
                                                   access[opened], st == CLIK_OK);
            if (st == CLIK_OK)
                st = st2;
        }
    return st;
}

clik_status clik__run_op(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                         int count, void *args)
{
    ctx->fallback_cause = CLIK_OK;
    if (count < 0 || count > CLIK_OP_MAX_IMAGES)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: %d images, at most %d", op->name, count,
                          CLIK_OP_MAX_IMAGES);
    ctx->stats.last_kernel_ms = 0.0;
    if (ctx->has_device) {
        clik_status st;
        if (op->opencl) {
            ctx->nevents = 0;
            st = run_opencl(ctx, op, images, count, args);
            st = clik__finish_op(ctx, st);
        } else {
            st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "%s has no OpenCL kernel", op->name);
        }
        if (st == CLIK_OK) {
            ctx->last_backend = CLIK_BACKEND_OPENCL;
            return CLIK_OK;
        }
        st = clik__fallback(ctx, op->name, st);
        if (st != CLIK_OK)
            return st;
    }
    clik_status st = run_cpu(ctx, op, images, count, args);
    if (st == CLIK_OK)
        ctx->last_backend = ctx->cpu_backend;
    return st;
}

clik_status clik__finish_op(clik_context *ctx, clik_status st)
{
    if (ctx->host_pending) {
        cl_int err = ctx->cl->clFinish(ctx->queue);
        ctx->host_pending = 0;
        if (err == CL_SUCCESS)
            ctx->param_used = 0; /* the queued parameter copies are done */
        if (err != CL_SUCCESS && st == CLIK_OK)
            st = clik__fail_cl(ctx, err, "clFinish");
    }
    clik_status st2 = clik__collect_events(ctx);
    return st != CLIK_OK ? st : st2;
}

clik_status clik__fallback(clik_context *ctx, const char *op, clik_status st)
{
    if (caller_error(st))
        return st;
    if (ctx->strict) {
        if (st == CLIK_ERR_BUILD)
            return st; /* keep the whole build log in the message */
        char reason[1024];
        snprintf(reason, sizeof(reason), "%s", clik_context_message(ctx));
        ctx->fallback_cause = st;
        return clik__fail(ctx, CLIK_ERR_FALLBACK,
                          "%s cannot run on %s (%s) and CLIK_STRICT forbids the CPU "
                          "fallback: %s",
                          op, ctx->dev.name, clik_status_str(st), reason);
    }
    ctx->stats.fallbacks++;
    clik__log(ctx, CLIK_LOG_WARNING, "clik: %s falls back to the %s path: %s", op,
              clik_backend_name(ctx->cpu_backend), clik_context_message(ctx));
    return CLIK_OK;
}

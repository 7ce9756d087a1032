/*
 * Device buffers: the pool of temporary buffers a context keeps for
 * intermediate results and device copies of host images, the garbage fill
 * of new buffers (tuning poison=1), and the release of a buffer that queued
 * commands may still use.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "internal.h"

/* Releases a buffer that queued commands may still use. OpenCL allows it,
 * but some runtimes free the memory early (seen with Oclgrind): wait first. */
void clik__release_after_queue(clik_context *ctx, cl_mem mem)
{
    ctx->cl->clFinish(ctx->queue);
    ctx->cl->clReleaseMemObject(mem);
}

clik_status clik__poison(clik_context *ctx, cl_mem mem, size_t bytes)
{
    if (!ctx->poison || bytes < 4)
        return CLIK_OK;
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "copy", "", "fill32", &k);
    const uint64_t n = bytes / 4;
    const uint32_t value = 0xa5c3e1f7u;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(mem), CLIK_A(n), CLIK_A(value));
    if (st == CLIK_OK) {
        size_t items = n, local = 64;
        st = clik__launch(ctx, k, 1, &items, &local);
    }
    return st;
}

/* A buffer of at least `bytes` from the pool (at most twice that), else new. */
static clik_status temp_buffer(clik_context *ctx, size_t bytes, cl_mem *mem)
{
    int best = -1;
    for (int i = 0; i < ctx->pool_capacity; i++) {
        size_t have = ctx->pool[i].bytes;
        if (ctx->pool[i].mem && have >= bytes && have / 2 <= bytes &&
            (best < 0 || have < ctx->pool[best].bytes))
            best = i;
    }
    if (best >= 0) {
        *mem = ctx->pool[best].mem;
        ctx->pool[best].mem = NULL;
        ctx->pool[best].bytes = 0;
        return CLIK_OK;
    }
    /* A limit of the device, not a lack of memory: the CPU path may run it. */
    if (bytes > ctx->dev.max_alloc_size)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "a buffer of %zu bytes exceeds the device's largest allocation (%llu "
                          "bytes)",
                          bytes, (unsigned long long)ctx->dev.max_alloc_size);
    cl_int err;
    *mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!*mem || err != CL_SUCCESS) {
        *mem = NULL;
        return clik__fail_cl(ctx, err, "clCreateBuffer");
    }
    return CLIK_OK;
}

clik_status clik__temp_buffer(clik_context *ctx, size_t bytes, cl_mem *mem)
{
    clik_status st = temp_buffer(ctx, bytes, mem);
    if (st == CLIK_OK && (st = clik__poison(ctx, *mem, bytes)) != CLIK_OK) {
        clik__temp_release(ctx, *mem, bytes);
        *mem = NULL;
    }
    return st;
}

void clik__temp_release(clik_context *ctx, cl_mem mem, size_t bytes)
{
    if (!mem)
        return;
    int slot = -1;
    for (int i = 0; i < ctx->pool_capacity; i++) {
        if (!ctx->pool[i].mem) {
            slot = i;
            break;
        }
        if (slot < 0 || ctx->pool[i].bytes < ctx->pool[slot].bytes)
            slot = i; /* else evict the smallest */
    }
    if (ctx->pool[slot].mem) {
        if (ctx->pool[slot].bytes >= bytes) {
            clik__release_after_queue(ctx, mem);
            return;
        }
        clik__release_after_queue(ctx, ctx->pool[slot].mem);
    }
    ctx->pool[slot].mem = mem;
    ctx->pool[slot].bytes = bytes;
}

void clik__pool_release(clik_context *ctx)
{
    for (int i = 0; i < ctx->pool_capacity; i++)
        if (ctx->pool[i].mem)
            ctx->cl->clReleaseMemObject(ctx->pool[i].mem);
}

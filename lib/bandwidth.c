/* Copy bandwidth of the device, the yardstick of the benchmarks. SPDX-License-Identifier:
 * BSD-2-Clause */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Milliseconds of one command: its profile when the queue has one, else the
 * host clock around a finish. */
static double command_ms(clik_context *ctx, cl_event ev, double t_host)
{
    ctx->cl->clWaitForEvents(1, &ev);
    double host = now_ms() - t_host;
    cl_ulong t0 = 0, t1 = 0;
    double ms = host;
    if (ctx->profiling &&
        ctx->cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL) ==
            CL_SUCCESS &&
        ctx->cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL) ==
            CL_SUCCESS &&
        t1 > t0)
        ms = (double)(t1 - t0) * 1e-6;
    ctx->cl->clReleaseEvent(ev);
    return ms;
}

static clik_status device_bandwidth(clik_context *ctx, size_t bytes, int reps, double *best_ms)
{
    cl_int err;
    cl_mem a = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = a ? ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    clik_status st = CLIK_OK;
    unsigned char *pattern = malloc(bytes);
    if (!a || !b || !pattern) {
        st = !pattern ? CLIK_ERR_NO_MEMORY : clik__fail_cl(ctx, err, "clCreateBuffer");
        goto done;
    }
    for (size_t i = 0; i < bytes; i++)
        pattern[i] = (unsigned char)(i * 131u + (i >> 9));
    err = ctx->cl->clEnqueueWriteBuffer(ctx->queue, a, CL_TRUE, 0, bytes, pattern, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        st = clik__fail_cl(ctx, err, "upload");
        goto done;
    }
    clik_kernel_entry *k;
    st = clik__kernel(ctx, "copy", "", "copy16", &k);
    const uint64_t n = bytes / 16; /* copy16 counts in ulong */
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(a), CLIK_A(b), CLIK_A(n));
    *best_ms = 1e30;
    /* The best of the runtime's own copy and a copy kernel; one warm-up each. */
    for (int r = -1; r < reps && st == CLIK_OK; r++) {
        cl_event ev = NULL;
        double t = now_ms();
        err = ctx->cl->clEnqueueCopyBuffer(ctx->queue, a, b, 0, 0, bytes, 0, NULL, &ev);
        if (err != CL_SUCCESS) {
            st = clik__fail_cl(ctx, err, "clEnqueueCopyBuffer");
            break;
        }
        double ms = command_ms(ctx, ev, t);
        if (r >= 0 && ms < *best_ms)
            *best_ms = ms;
        size_t local = k->max_work_group < 256 ? k->max_work_group : 256;
        size_t global = ((size_t)n + local - 1) / local * local;
        t = now_ms();
        err = ctx->cl->clEnqueueNDRangeKernel(ctx->queue, k->kernel, 1, NULL, &global, &local, 0,
                                              NULL, &ev);
        if (err != CL_SUCCESS) {
            st = clik__fail_cl(ctx, err, "copy16");
            break;
        }
        ms = command_ms(ctx, ev, t);
        if (r >= 0 && ms < *best_ms)
            *best_ms = ms;
    }
done:
    free(pattern);
    if (a)
        ctx->cl->clReleaseMemObject(a);
    if (b)
        ctx->cl->clReleaseMemObject(b);
    return st;
}

static clik_status host_bandwidth(size_t bytes, int reps, double *best_ms)
{
    unsigned char *a = clik__aligned_alloc(bytes), *b = clik__aligned_alloc(bytes);
    if (!a || !b) {
        clik__aligned_free(a);
        clik__aligned_free(b);
        return CLIK_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < bytes; i++)
        a[i] = (unsigned char)(i * 131u + (i >> 9));
    memset(b, 1, bytes);
    *best_ms = 1e30;
    for (int r = -1; r < reps; r++) {
        double t = now_ms();
        memcpy(b, a, bytes);
        double ms = now_ms() - t;
        a[(size_t)r % bytes] ^= b[bytes / 2]; /* keep the copy observable */
        if (r >= 0 && ms < *best_ms)
            *best_ms = ms;
    }
    clik__aligned_free(a);
    clik__aligned_free(b);
    return CLIK_OK;
}

clik_status clik_context_copy_bandwidth(clik_context *ctx, size_t bytes, int reps, double *gbps)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!gbps)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_context_copy_bandwidth: gbps is NULL");
    if (bytes < 4096 || bytes > ((size_t)1 << 31) || reps < 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "copy bandwidth: bytes must be 4 KiB to 2 GiB, reps at least 1");
    bytes &= ~(size_t)15;
    double ms = 0.0;
    clik_status st = ctx->has_device ? device_bandwidth(ctx, bytes, reps, &ms)
                                     : host_bandwidth(bytes, reps, &ms);
    if (st != CLIK_OK)
        return st;
    *gbps = 2.0 * (double)bytes / (ms * 1e6);
    return CLIK_OK;
}

/* ---- arithmetic peak --------------------------------------------------------------- */

#define FMA_ITERS 4096 /* at most, x 8 fused multiply-adds per chain of a work-item */

static clik_status device_fma(clik_context *ctx, int reps, double *gflops)
{
    /* CPU devices: a vector of 16 floats per chain (the SIMD lanes of a
     * core, whatever the compiler does across work-items); others one */
    const int lanes = ctx->dev.type == CLIK_DEVICE_CPU ? 16 : 1, chains = lanes > 1 ? 8 : 16;
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "copy", lanes > 1 ? "-DFMA_W=16" : "", "fma_peak", &k);
    if (st != CLIK_OK)
        return st;
    const unsigned cu = ctx->dev.compute_units > 0 ? ctx->dev.compute_units : 1;
    const size_t items = (size_t)cu * 2048,
                 local = k->max_work_group < 128 ? k->max_work_group : 128;
    cl_int err;
    cl_mem out =
        ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, items * sizeof(float), NULL, &err);
    if (!out)
        return clik__fail_cl(ctx, err, "clCreateBuffer");
    const float a = 0.9999f, b = 1e-4f;
    /* a short run first, to size the timed ones at about 10 ms */
    int iters = 16;
    double best = 1e30;
    for (int r = -1; r < reps && st == CLIK_OK; r++) {
        st = CLIK_ARGS(ctx, k, CLIK_A(out), CLIK_A(iters), CLIK_A(a), CLIK_A(b));
        cl_event ev = NULL;
        const double t = now_ms();
        err = st == CLIK_OK ? ctx->cl->clEnqueueNDRangeKernel(ctx->queue, k->kernel, 1, NULL,
                                                              &items, &local, 0, NULL, &ev)
                            : CL_SUCCESS;
        if (err != CL_SUCCESS)
            st = clik__fail_cl(ctx, err, "fma_peak");
        if (st != CLIK_OK)
            break;
        const double ms = command_ms(ctx, ev, t);
        if (r < 0) {
            const double want = 10.0 / (ms > 1e-3 ? ms : 1e-3) * iters;
            iters = want > FMA_ITERS ? FMA_ITERS : want < 16 ? 16 : (int)want;
        } else if (ms < best) {
            best = ms;
        }
    }
    ctx->cl->clReleaseMemObject(out);
    if (st == CLIK_OK)
        *gflops = (double)items * iters * 8.0 * chains * lanes * 2.0 / (best * 1e6);
    return st;
}

/* One thread of the host, the vectors the compiler makes of 16 chains of
 * multiply-adds (the CPU paths' own peak, without FMA instructions where
 * the build does not enable them). */
static double host_fma(int reps)
{
    enum { CHAINS = 16, ITERS = 1 << 16 };
    volatile float seed = 1e-3f;
    float x[CHAINS];
    double best = 1e30, sink = 0.0;
    for (int r = -1; r < reps; r++) {
        for (int j = 0; j < CHAINS; j++)
            x[j] = seed * (float)(j + 1);
        const double t = now_ms();
        for (int n = 0; n < ITERS; n++)
            for (int j = 0; j < CHAINS; j++)
                x[j] = x[j] * 0.9999f + 1e-4f;
        const double ms = now_ms() - t;
        for (int j = 0; j < CHAINS; j++)
            sink += x[j];
        if (r >= 0 && ms < best)
            best = ms;
    }
    seed = (float)sink; /* keep the chains observable */
    return (double)ITERS * CHAINS * 2.0 / ((best > 1e-6 ? best : 1e-6) * 1e6);
}

clik_status clik_context_fma_peak(clik_context *ctx, int reps, double *gflops)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!gflops)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_context_fma_peak: gflops is NULL");
    if (reps < 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_context_fma_peak: reps must be positive");
    if (ctx->has_device)
        return device_fma(ctx, reps, gflops);
    *gflops = host_fma(reps);
    return CLIK_OK;
}

/* Best time of reps blocking transfers between pinned host memory and a
 * device buffer, each way. */
static clik_status pinned_transfers(clik_context *ctx, size_t bytes, int reps, double *up_ms,
                                    double *down_ms)
{
    cl_int err;
    const clik_cl_api *cl = ctx->cl;
    cl_mem dev = cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem pin = dev ? cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                          bytes, NULL, &err)
                     : NULL;
    void *map = pin ? cl->clEnqueueMapBuffer(ctx->queue, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                             0, bytes, 0, NULL, NULL, &err)
                    : NULL;
    clik_status st = CLIK_OK;
    if (!map) {
        st = clik__fail_cl(ctx, err, "pinned buffers");
    } else {
        memset(map, 0x3c, bytes);
        *up_ms = *down_ms = 1e30;
        for (int r = -1; r < reps && st == CLIK_OK; r++) {
            double t = now_ms();
            err = cl->clEnqueueWriteBuffer(ctx->queue, dev, CL_TRUE, 0, bytes, map, 0, NULL, NULL);
            double up = now_ms() - t;
            t = now_ms();
            if (err == CL_SUCCESS)
                err =
                    cl->clEnqueueReadBuffer(ctx->queue, dev, CL_TRUE, 0, bytes, map, 0, NULL, NULL);
            double down = now_ms() - t;
            if (err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "transfer");
            else if (r >= 0) {
                *up_ms = up < *up_ms ? up : *up_ms;
                *down_ms = down < *down_ms ? down : *down_ms;
            }
        }
        cl->clEnqueueUnmapMemObject(ctx->queue, pin, map, 0, NULL, NULL);
        cl->clFinish(ctx->queue);
    }
    if (pin)
        cl->clReleaseMemObject(pin);
    if (dev)
        cl->clReleaseMemObject(dev);
    return st;
}

clik_status clik_context_transfer_bandwidth(clik_context *ctx, size_t bytes, int reps,
                                            double *to_device_gbps, double *to_host_gbps)
{
    if (!ctx || !to_device_gbps || !to_host_gbps)
        return CLIK_ERR_NULL;
    if (bytes == 0 || reps < 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_context_transfer_bandwidth: bytes and reps must be positive");
    double up_ms = 1e30, down_ms = 1e30;
    clik_status st;
    if (ctx->has_device) {
        if (bytes > ctx->dev.max_alloc_size)
            return clik__fail(ctx, CLIK_ERR_NO_MEMORY,
                              "clik_context_transfer_bandwidth: %zu bytes exceed the device's "
                              "largest allocation",
                              bytes);
        st = pinned_transfers(ctx, bytes, reps, &up_ms, &down_ms);
    } else {
        /* No device: host memory is the device's; a copy is the transfer. */
        unsigned char *a = clik__aligned_alloc(bytes), *b = clik__aligned_alloc(bytes);
        st = a && b ? CLIK_OK : clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
        if (st == CLIK_OK) {
            memset(a, 1, bytes);
            memset(b, 2, bytes);
            up_ms = 1e30;
            for (int r = -1; r < reps; r++) {
                double t = now_ms();
                memcpy(r % 2 ? a : b, r % 2 ? b : a, bytes);
                t = now_ms() - t;
                if (r >= 0 && t < up_ms)
                    up_ms = t;
            }
            down_ms = up_ms;
        }
        clik__aligned_free(a);
        clik__aligned_free(b);
    }
    if (st != CLIK_OK)
        return st;
    *to_device_gbps = (double)bytes / (up_ms > 1e-6 ? up_ms : 1e-6) * 1e-6;
    *to_host_gbps = (double)bytes / (down_ms > 1e-6 ? down_ms : 1e-6) * 1e-6;
    return CLIK_OK;
}

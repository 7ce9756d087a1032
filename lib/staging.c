/*
 * Pinned staging: host images of pageable memory travel to and from a
 * discrete GPU in bands through two pinned buffers (tuning key
 * host_transfer=staged), the copy of one band overlapping the device's
 * transfer of the other.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "internal.h"

void clik__staging_release(clik_context *ctx)
{
    for (int i = 0; i < 2; i++) {
        clik_staging *s = &ctx->staging[i];
        if (s->ev) {
            ctx->cl->clWaitForEvents(1, &s->ev);
            ctx->cl->clReleaseEvent(s->ev);
        }
        if (s->mem) {
            ctx->cl->clEnqueueUnmapMemObject(ctx->queue, s->mem, s->map, 0, NULL, NULL);
            clik__release_after_queue(ctx, s->mem);
        }
        memset(s, 0, sizeof(*s));
    }
}

/* Waits until staging buffer i is free again. */
static clik_status staging_wait(clik_context *ctx, int i)
{
    clik_staging *s = &ctx->staging[i];
    if (!s->ev)
        return CLIK_OK;
    cl_int err = ctx->cl->clWaitForEvents(1, &s->ev);
    ctx->cl->clReleaseEvent(s->ev);
    s->ev = NULL;
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, "clWaitForEvents(staging)");
}

/* Makes both staging buffers at least `bytes` big: pinned host memory
 * (CL_MEM_ALLOC_HOST_PTR), mapped once for its life and used only as the
 * host side of transfers, so the driver copies it by DMA. */
static clik_status staging_reserve(clik_context *ctx, size_t bytes)
{
    for (int i = 0; i < 2; i++) {
        clik_staging *s = &ctx->staging[i];
        if (s->mem && s->bytes >= bytes)
            continue;
        clik_status st = staging_wait(ctx, i);
        if (st != CLIK_OK)
            return st;
        if (s->mem) {
            ctx->cl->clEnqueueUnmapMemObject(ctx->queue, s->mem, s->map, 0, NULL, NULL);
            clik__release_after_queue(ctx, s->mem);
            memset(s, 0, sizeof(*s));
        }
        cl_int err;
        s->mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                         bytes, NULL, &err);
        if (!s->mem || err != CL_SUCCESS) {
            s->mem = NULL;
            return clik__fail_cl(ctx, err, "clCreateBuffer(staging)");
        }
        s->map = ctx->cl->clEnqueueMapBuffer(
            ctx->queue, s->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        if (!s->map || err != CL_SUCCESS) {
            ctx->cl->clReleaseMemObject(s->mem);
            memset(s, 0, sizeof(*s));
            return clik__fail_cl(ctx, err, "clEnqueueMapBuffer(staging)");
        }
        s->bytes = bytes;
    }
    return CLIK_OK;
}

/* Rows of `stride` bytes per band of a staged transfer of `height` rows. */
static size_t band_rows(const clik_context *ctx, size_t stride, int height)
{
    size_t bytes = (size_t)clik__tune(ctx, CLIK_TUNE_STAGING_KIB, 1024) * 1024;
    size_t rows = bytes / stride > 0 ? bytes / stride : 1;
    return rows < (size_t)height ? rows : (size_t)height;
}

/* Image rows (row bytes each; `stride` apart in mem, host_stride in host)
 * to or from mem, in bands through the two staging buffers: the copy of one
 * band into or out of staging overlaps the device's transfer of the other. */
clik_status clik__staged_transfer(clik_context *ctx, cl_mem mem, size_t stride, unsigned char *host,
                                  size_t host_stride, size_t row, int height, int upload)
{
    const size_t rows = band_rows(ctx, stride, height);
    clik_status st = staging_reserve(ctx, rows * stride);
    if (st != CLIK_OK)
        return st;
    const size_t nbands = ((size_t)height + rows - 1) / rows;
    clik__log(ctx, CLIK_LOG_DEBUG, "clik: %s of %d rows through pinned staging, %zu band(s)",
              upload ? "upload" : "download", height, nbands);
    /* Band k: rows [k * rows, ...), bytes from k * rows * stride to the end
     * of its last row. */
#define BAND_ROWS(k)  ((k) + 1 < nbands ? rows : (size_t)height - (k)*rows)
#define BAND_BYTES(k) ((BAND_ROWS(k) - 1) * stride + row)
    cl_int err = CL_SUCCESS;
    if (upload) {
        for (size_t k = 0; k < nbands && st == CLIK_OK; k++) {
            clik_staging *s = &ctx->staging[k % 2];
            if ((st = staging_wait(ctx, (int)(k % 2))) != CLIK_OK)
                break;
            const unsigned char *src = host + k * rows * host_stride;
            for (size_t y = 0; y < BAND_ROWS(k); y++)
                memcpy((unsigned char *)s->map + y * stride, src + y * host_stride, row);
            err = ctx->cl->clEnqueueWriteBuffer(ctx->queue, mem, CL_FALSE, k * rows * stride,
                                                BAND_BYTES(k), s->map, 0, NULL, &s->ev);
            if (err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "upload(staging)");
        }
        return st;
    }
    /* Two bands in flight; each is copied out once its read is done. */
    for (size_t k = 0; k < nbands && k < 2 && st == CLIK_OK; k++) {
        clik_staging *s = &ctx->staging[k];
        if ((st = staging_wait(ctx, (int)k)) != CLIK_OK)
            break;
        err = ctx->cl->clEnqueueReadBuffer(ctx->queue, mem, CL_FALSE, k * rows * stride,
                                           BAND_BYTES(k), s->map, 0, NULL, &s->ev);
        if (err != CL_SUCCESS)
            st = clik__fail_cl(ctx, err, "download(staging)");
    }
    for (size_t k = 0; k < nbands && st == CLIK_OK; k++) {
        clik_staging *s = &ctx->staging[k % 2];
        if ((st = staging_wait(ctx, (int)(k % 2))) != CLIK_OK)
            break;
        unsigned char *dst = host + k * rows * host_stride;
        for (size_t y = 0; y < BAND_ROWS(k); y++)
            memcpy(dst + y * host_stride, (unsigned char *)s->map + y * stride, row);
        const size_t next = k + 2;
        if (next < nbands) {
            err = ctx->cl->clEnqueueReadBuffer(ctx->queue, mem, CL_FALSE, next * rows * stride,
                                               BAND_BYTES(next), s->map, 0, NULL, &s->ev);
            if (err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "download(staging)");
        }
    }
#undef BAND_ROWS
#undef BAND_BYTES
    if (st != CLIK_OK) /* leave no read in flight into a staging buffer */
        for (int i = 0; i < 2; i++)
            staging_wait(ctx, i);
    return st;
}

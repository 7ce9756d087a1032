/*
 * Transfers between host memory and the device: clik_image_upload and
 * clik_image_download, the rows of a bound image brought back, and small
 * parameters and results (tables, histograms).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "internal.h"

/* Copies rows between two host images of the same format. */
static void copy_rows(const clik_image *dst, const void *src, size_t src_stride, size_t row)
{
    for (int y = 0; y < dst->height; y++)
        memcpy((char *)dst->data + (size_t)y * dst->stride,
               (const char *)src + (size_t)y * src_stride, row);
}

clik_status clik__transfer_rows(clik_context *ctx, cl_mem mem, size_t mem_stride, void *host,
                                size_t host_stride, size_t row, int height, int write)
{
    cl_int err;
    if (mem_stride == host_stride && mem_stride == row) {
        size_t bytes = row * (size_t)height;
        err = write ? ctx->cl->clEnqueueWriteBuffer(ctx->queue, mem, CL_TRUE, 0, bytes, host, 0,
                                                    NULL, NULL)
                    : ctx->cl->clEnqueueReadBuffer(ctx->queue, mem, CL_TRUE, 0, bytes, host, 0,
                                                   NULL, NULL);
    } else {
        /* The rows but the last as a rectangle, then the last alone: NVIDIA's
         * driver refuses (CL_INVALID_VALUE) a rectangle whose last row pitch
         * runs past the buffer, as with a buffer of exactly its rows (an
         * imported one). The queue is in order: the blocking last copy
         * returns when both are done. */
        const size_t last = (size_t)(height - 1);
        size_t origin[3] = {0, 0, 0}, region[3] = {row, last, 1};
        err = CL_SUCCESS;
        if (last > 0)
            err = write ? ctx->cl->clEnqueueWriteBufferRect(ctx->queue, mem, CL_FALSE, origin,
                                                            origin, region, mem_stride, 0,
                                                            host_stride, 0, host, 0, NULL, NULL)
                        : ctx->cl->clEnqueueReadBufferRect(ctx->queue, mem, CL_FALSE, origin,
                                                           origin, region, mem_stride, 0,
                                                           host_stride, 0, host, 0, NULL, NULL);
        char *end = (char *)host + last * host_stride;
        if (err == CL_SUCCESS)
            err = write ? ctx->cl->clEnqueueWriteBuffer(ctx->queue, mem, CL_TRUE, last * mem_stride,
                                                        row, end, 0, NULL, NULL)
                        : ctx->cl->clEnqueueReadBuffer(ctx->queue, mem, CL_TRUE, last * mem_stride,
                                                       row, end, 0, NULL, NULL);
        if (err != CL_SUCCESS && last > 0)
            (void)ctx->cl->clFinish(ctx->queue); /* the rectangle no longer uses host */
    }
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, write ? "upload" : "download");
}

/* Copies between a device image and a host image of its format. */
static clik_status host_copy(clik_context *ctx, const clik_image *dev, const clik_image *host,
                             int upload, const char *what)
{
    clik_status st = clik__check_transfer(ctx, dev, host, what);
    if (st != CLIK_OK)
        return st;
    if (dev->buffer->import)
        return clik__import_transfer(ctx, dev, host, upload);
    size_t row = (size_t)host->width * (size_t)host->channels * clik_type_size(host->type);
    if (!ctx->has_device) {
        clik_image view = *dev;
        view.data = dev->buffer->host;
        if (upload)
            copy_rows(&view, host->data, host->stride, row);
        else
            copy_rows(host, view.data, view.stride, row);
        return CLIK_OK;
    }
    /* Pageable memory through pinned staging on discrete GPUs; packed device
     * rows only, since a band is written whole, gaps between rows included. */
    if (ctx->transfer == CLIK_XFER_STAGED && dev->stride == row &&
        !clik__host_block_find(ctx, host->data, (size_t)(host->height - 1) * host->stride + row))
        return clik__staged_transfer(ctx, dev->buffer->mem, dev->stride, host->data, host->stride,
                                     row, host->height, upload);
    return clik__transfer_rows(ctx, dev->buffer->mem, dev->stride, host->data, host->stride, row,
                               host->height, upload);
}

clik_status clik_image_upload(clik_context *ctx, clik_image *dst, const clik_image *src)
{
    return host_copy(ctx, dst, src, 1, "clik_image_upload");
}

clik_status clik_image_download(clik_context *ctx, clik_image *dst, const clik_image *src)
{
    return host_copy(ctx, src, dst, 0, "clik_image_download");
}

clik_status clik__read_bytes(clik_context *ctx, cl_mem mem, void *out, size_t bytes)
{
    cl_int err =
        ctx->cl->clEnqueueReadBuffer(ctx->queue, mem, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, "download");
}

clik_status clik__write_bytes(clik_context *ctx, cl_mem mem, const void *in, size_t bytes)
{
    /* A blocking write is a round trip to the device's threads, often
     * longer than a small kernel: small parameters are queued from a copy
     * that stays untouched until the queue has drained (the operation's
     * end, or here when the arena is full). */
    cl_bool blocking = CL_TRUE;
    const void *from = in;
    if (bytes <= CLIK_PARAM_ARENA) {
        if (!ctx->param_arena)
            ctx->param_arena = clik__aligned_alloc(CLIK_PARAM_ARENA);
        size_t at = (ctx->param_used + 63) & ~(size_t)63;
        if (ctx->param_arena && at + bytes > CLIK_PARAM_ARENA &&
            ctx->cl->clFinish(ctx->queue) == CL_SUCCESS)
            ctx->param_used = at = 0;
        if (ctx->param_arena && at + bytes <= CLIK_PARAM_ARENA) {
            memcpy(ctx->param_arena + at, in, bytes);
            from = ctx->param_arena + at;
            ctx->param_used = at + bytes;
            ctx->host_pending = 1;
            blocking = CL_FALSE;
        }
    }
    cl_int err =
        ctx->cl->clEnqueueWriteBuffer(ctx->queue, mem, blocking, 0, bytes, from, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, "upload");
}

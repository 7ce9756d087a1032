/*
 * Transfers between host memory and the device: clik_image_upload and
 * clik_image_download, their asynchronous forms on a queue of their own
 * (ordered against operations through each image's pending event), the
 * rows of a bound image brought back, and small parameters and results
 * (tables, histograms).
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

/* Queues a copy of `height` rows on queue q after the events of `wait`;
 * blocking: returns when it is done; ev (NULL or): the copy's event. */
static cl_int enqueue_rows(clik_context *ctx, cl_command_queue q, cl_mem mem, size_t mem_stride,
                           void *host, size_t host_stride, size_t row, int height, int write,
                           cl_bool blocking, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    const clik_cl_api *cl = ctx->cl;
    if (mem_stride == host_stride && mem_stride == row) {
        size_t bytes = row * (size_t)height;
        return write ? cl->clEnqueueWriteBuffer(q, mem, blocking, 0, bytes, host, nwait, wait, ev)
                     : cl->clEnqueueReadBuffer(q, mem, blocking, 0, bytes, host, nwait, wait, ev);
    }
    /* The rows but the last as a rectangle, then the last alone: NVIDIA's
     * driver refuses (CL_INVALID_VALUE) a rectangle whose last row pitch
     * runs past the buffer, as with a buffer of exactly its rows (an
     * imported one). The queue is in order: the last copy ends after both. */
    const size_t last = (size_t)(height - 1);
    size_t origin[3] = {0, 0, 0}, region[3] = {row, last, 1};
    cl_int err = CL_SUCCESS;
    if (last > 0) {
        err =
            write
                ? cl->clEnqueueWriteBufferRect(q, mem, CL_FALSE, origin, origin, region, mem_stride,
                                               0, host_stride, 0, host, nwait, wait, NULL)
                : cl->clEnqueueReadBufferRect(q, mem, CL_FALSE, origin, origin, region, mem_stride,
                                              0, host_stride, 0, host, nwait, wait, NULL);
        nwait = 0;
        wait = NULL;
    }
    char *end = (char *)host + last * host_stride;
    if (err == CL_SUCCESS)
        err = write ? cl->clEnqueueWriteBuffer(q, mem, blocking, last * mem_stride, row, end, nwait,
                                               wait, ev)
                    : cl->clEnqueueReadBuffer(q, mem, blocking, last * mem_stride, row, end, nwait,
                                              wait, ev);
    if (err != CL_SUCCESS && last > 0)
        (void)cl->clFinish(q); /* the rectangle no longer uses host */
    return err;
}

clik_status clik__transfer_rows(clik_context *ctx, cl_mem mem, size_t mem_stride, void *host,
                                size_t host_stride, size_t row, int height, int write)
{
    cl_int err = enqueue_rows(ctx, ctx->queue, mem, mem_stride, host, host_stride, row, height,
                              write, CL_TRUE, 0, NULL, NULL);
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
    if (ctx->has_device &&
        (st = clik__buffer_settle(ctx, dev->buffer, upload ? CLIK_WRITE : CLIK_READ)) != CLIK_OK)
        return st;
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

/* ---- asynchronous transfers ---------------------------------------------- */

clik_status clik__buffer_settle(clik_context *ctx, struct clik_buffer *b, int access)
{
    if (!b || !b->pending || (b->pending_read && access == CLIK_READ))
        return CLIK_OK; /* nothing in flight, or two reads: no order needed */
    cl_event ev = b->pending;
    b->pending = NULL;
    cl_int err = ctx->cl->clEnqueueBarrierWithWaitList(ctx->queue, 1, &ev, NULL);
    ctx->cl->clReleaseEvent(ev);
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, "clEnqueueBarrierWithWaitList");
}

/* Queues the copy on the transfer queue after everything queued on the
 * context so far; *ev: its event, also kept as the image's pending one. */
static clik_status queue_copy(clik_context *ctx, const clik_image *dev, const clik_image *host,
                              int upload, cl_event *ev)
{
    const clik_cl_api *cl = ctx->cl;
    cl_int err = CL_SUCCESS;
    if (!ctx->xfer_queue) {
        ctx->xfer_queue = cl->clCreateCommandQueue(ctx->clctx, ctx->device, 0, &err);
        if (!ctx->xfer_queue || err != CL_SUCCESS) {
            ctx->xfer_queue = NULL;
            return clik__fail_cl(ctx, err, "clCreateCommandQueue (transfers)");
        }
    }
    cl_event after = NULL;
    err = cl->clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &after);
    if (err != CL_SUCCESS)
        return clik__fail_cl(ctx, err, "clEnqueueMarkerWithWaitList");
    /* The marker must reach the device before another queue waits on it. */
    err = cl->clFlush(ctx->queue);
    size_t row = (size_t)host->width * (size_t)host->channels * clik_type_size(host->type);
    if (err == CL_SUCCESS)
        err = enqueue_rows(ctx, ctx->xfer_queue, dev->buffer->mem, dev->stride, host->data,
                           host->stride, row, host->height, upload, CL_FALSE, 1, &after, ev);
    cl->clReleaseEvent(after);
    if (err == CL_SUCCESS)
        err = cl->clFlush(ctx->xfer_queue);
    if (err != CL_SUCCESS) {
        if (*ev) {
            (void)cl->clWaitForEvents(1, ev);
            cl->clReleaseEvent(*ev);
            *ev = NULL;
        }
        return clik__fail_cl(ctx, err, upload ? "upload" : "download");
    }
    struct clik_buffer *b = dev->buffer;
    if (b->pending)
        cl->clReleaseEvent(b->pending); /* the queue is in order: ev ends after it */
    cl->clRetainEvent(*ev);
    b->pending = *ev;
    b->pending_read = !upload;
    return CLIK_OK;
}

static clik_status async_copy(clik_context *ctx, const clik_image *dev, const clik_image *host,
                              int upload, const char *what, uint64_t *ticket)
{
    if (!ticket)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: ticket is NULL", what);
    *ticket = 0;
    clik_status st = clik__check_transfer(ctx, dev, host, what);
    if (st != CLIK_OK)
        return st;
    if (ctx->xfer_next == 0)
        ctx->xfer_first = ctx->xfer_next = 1;
    if (ctx->xfer_next - ctx->xfer_first >= CLIK_XFER_RING &&
        (st = clik_context_wait(ctx, ctx->xfer_first)) != CLIK_OK)
        return st;
    cl_event ev = NULL;
    /* Without a device, and for imported memory (its own copy path), the
     * copy is done before the call returns. */
    if (!ctx->has_device || dev->buffer->import)
        st = host_copy(ctx, dev, host, upload, what);
    else
        st = queue_copy(ctx, dev, host, upload, &ev);
    if (st != CLIK_OK)
        return st;
    ctx->xfer_ring[ctx->xfer_next % CLIK_XFER_RING] = ev;
    *ticket = ctx->xfer_next++;
    return CLIK_OK;
}

clik_status clik_image_upload_async(clik_context *ctx, clik_image *dst, const clik_image *src,
                                    uint64_t *ticket)
{
    return async_copy(ctx, dst, src, 1, "clik_image_upload_async", ticket);
}

clik_status clik_image_download_async(clik_context *ctx, clik_image *dst, const clik_image *src,
                                      uint64_t *ticket)
{
    return async_copy(ctx, src, dst, 0, "clik_image_download_async", ticket);
}

clik_status clik_context_wait(clik_context *ctx, uint64_t ticket)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (ticket == 0 || ticket >= ctx->xfer_next)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_context_wait: ticket %llu was not given by this context",
                          (unsigned long long)ticket);
    cl_int err = CL_SUCCESS;
    for (; ctx->xfer_first <= ticket; ctx->xfer_first++) {
        cl_event *ev = &ctx->xfer_ring[ctx->xfer_first % CLIK_XFER_RING];
        if (!*ev)
            continue;
        cl_int e = ctx->cl->clWaitForEvents(1, ev);
        if (e != CL_SUCCESS && err == CL_SUCCESS)
            err = e;
        ctx->cl->clReleaseEvent(*ev);
        *ev = NULL;
    }
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, "an asynchronous transfer");
}

clik_status clik__xfer_drain(clik_context *ctx)
{
    clik_status st = CLIK_OK;
    if (ctx->xfer_next > ctx->xfer_first)
        st = clik_context_wait(ctx, ctx->xfer_next - 1);
    return st;
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

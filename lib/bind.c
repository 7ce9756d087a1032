/*
 * Binding images to an operation's paths: for the kernels (device images as
 * they are; host images in place on CPU devices (CL_MEM_USE_HOST_PTR) or
 * through a pooled device copy), and as host views for the CPU path
 * (device images downloaded); results are brought back at the end.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <string.h>

#include "internal.h"

/* A context image used by the kernels in place: the block's buffer is over
 * the image's own memory. The mapping for writing tells the runtime the host
 * may have changed it since the last operation (no copy on unified memory). */
static clik_status bind_zero_copy(clik_context *ctx, clik_host_block *blk, clik_binding *b)
{
    b->mem = blk->mem;
    b->mapped_host = 1;
    b->base_aligned = 1;
    if (b->access & CLIK_READ) {
        cl_int err;
        void *p = ctx->cl->clEnqueueMapBuffer(ctx->queue, blk->mem, CL_FALSE,
                                              CL_MAP_WRITE_INVALIDATE_REGION, 0, b->span, 0, NULL,
                                              NULL, &err);
        if (!p || err != CL_SUCCESS)
            return clik__fail_cl(ctx, err, "clEnqueueMapBuffer");
        ctx->cl->clEnqueueUnmapMemObject(ctx->queue, blk->mem, p, 0, NULL, NULL);
    }
    ctx->host_pending = 1; /* kernels use the caller's memory: the operation waits */
    return CLIK_OK;
}

/* A buffer over the host image's own memory for this call (CPU devices). */
static clik_status bind_wrapped(clik_context *ctx, const clik_image *img, clik_binding *b)
{
    cl_int err = CL_SUCCESS;
    cl_mem_flags flags = CL_MEM_USE_HOST_PTR | (b->access == CLIK_READ    ? CL_MEM_READ_ONLY
                                                : b->access == CLIK_WRITE ? CL_MEM_WRITE_ONLY
                                                                          : CL_MEM_READ_WRITE);
    b->mem = ctx->cl->clCreateBuffer(ctx->clctx, flags, b->span, img->data, &err);
    if (!b->mem || err != CL_SUCCESS) {
        b->mem = NULL;
        return clik__fail_cl(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    }
    b->owned = 1;
    b->mapped_host = 1;
    b->base_aligned = (uintptr_t)img->data % 16 == 0;
    return CLIK_OK;
}

clik_status clik__bind(clik_context *ctx, const clik_image *img, int access, clik_binding *b)
{
    memset(b, 0, sizeof(*b));
    b->image = *img;
    b->access = access;
    b->stride = img->stride;
    clik_status st = clik__image_layout(img->width, img->height, img->channels, img->type,
                                        img->stride, &b->row_bytes, &b->span);
    if (st != CLIK_OK)
        return st;
    b->base_aligned = 1; /* device buffers start at least 128-byte aligned */
    /* Kernels take a row's stride in elements as an int (clik__elems) and
     * form row offsets in 64 bits. */
    if (b->stride / clik_type_size(img->type) > (size_t)INT32_MAX)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "a row stride of %zu bytes is past the kernels' limit of 2^31 - 1 "
                          "elements",
                          b->stride);
    if (img->buffer && img->buffer->import)
        return clik__import_bind(ctx, img, access, b);
    if (img->buffer) {
        b->mem = img->buffer->mem;
        return ctx->has_device ? clik__buffer_settle(ctx, img->buffer, access) : CLIK_OK;
    }
    if (b->stride * (size_t)img->height > ctx->dev.max_alloc_size)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "an image of %zu bytes is larger than the device's largest allocation "
                          "(%llu bytes)",
                          b->stride * (size_t)img->height,
                          (unsigned long long)ctx->dev.max_alloc_size);
    clik_host_block *blk = clik__host_block_find(ctx, img->data, b->span);
    if (blk && blk->zero_copy && (unsigned char *)img->data == blk->data)
        return bind_zero_copy(ctx, blk, b);
    /* Pinned memory (a context image on a discrete GPU) needs no staging. */
    const int mode = blk && !blk->zero_copy ? CLIK_XFER_DIRECT : ctx->transfer;
    if (mode == CLIK_XFER_WRAP)
        return bind_wrapped(ctx, img, b);
    /* Whole rows: drivers check rectangular copies against height * stride. */
    b->alloc = b->stride * (size_t)img->height;
    st = clik__temp_buffer(ctx, b->alloc, &b->mem);
    if (st != CLIK_OK)
        return st;
    b->pooled = 1;
    b->staged = mode == CLIK_XFER_STAGED;
    if (access & CLIK_READ) {
        if (b->staged) {
            st = clik__staged_transfer(ctx, b->mem, b->stride, img->data, img->stride, b->row_bytes,
                                       img->height, 1);
        } else {
            /* The caller's memory stays valid until the operation has
             * waited for its queue (host_pending). */
            cl_int err = ctx->cl->clEnqueueWriteBuffer(ctx->queue, b->mem, CL_FALSE, 0, b->span,
                                                       img->data, 0, NULL, NULL);
            ctx->host_pending = 1;
            if (err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "upload");
        }
        if (st != CLIK_OK) {
            clik__temp_release(ctx, b->mem, b->alloc);
            b->mem = NULL;
            return st;
        }
    }
    return CLIK_OK;
}

clik_status clik__bind_scratch(clik_context *ctx, int width, int height, int channels,
                               clik_type type, clik_binding *b)
{
    memset(b, 0, sizeof(*b));
    size_t row = (size_t)width * (size_t)channels * clik_type_size(type), span;
    clik_status st = clik__image_layout(width, height, channels, type, row, &b->row_bytes, &span);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "scratch image %dx%dx%d: %s", width, height, channels,
                          clik_status_str(st));
    b->image = (clik_image){width, height, channels, type, row, NULL, NULL, 0, CLIK_ORDER_RGB};
    b->access = CLIK_KERNEL_RW;
    b->stride = row;
    b->span = b->alloc = span;
    b->base_aligned = 1;
    b->scratch = 1;
    b->pooled = 1;
    return clik__temp_buffer(ctx, span, &b->mem);
}

int clik__elems(const clik_binding *b)
{
    return (int)(b->stride / clik_type_size(b->image.type));
}

clik_status clik__check_int_strides(clik_context *ctx, clik_binding *const *b, int count,
                                    int in_bytes, const char *fn)
{
    for (int i = 0; i < count; i++) {
        const size_t unit = in_bytes ? 1 : clik_type_size(b[i]->image.type);
        if (b[i]->stride / unit > (size_t)INT_MAX)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "%s: a row stride of %zu %s, past the kernels' int strides "
                              "(2^31 - 1)",
                              fn, b[i]->stride / unit, in_bytes ? "bytes" : "elements");
    }
    return CLIK_OK;
}

int clik__pixel_aligned(const clik_binding *b)
{
    const size_t p = (size_t)b->image.channels * clik_type_size(b->image.type);
    if (b->stride % p != 0)
        return 0;
    return b->base_aligned || (b->mapped_host && (uintptr_t)b->image.data % p == 0);
}

int clik__align_mode(const clik_binding *src, const clik_binding *dst, int reads_chunks)
{
    if (!clik__pixel_aligned(src) || !clik__pixel_aligned(dst))
        return CLIK_ALIGN_NONE;
    const clik_binding *chunks[2] = {dst, src};
    return clik__aligned16(chunks, reads_chunks ? 2 : 1, 0) ? CLIK_ALIGN_16 : CLIK_ALIGN_PIX;
}

int clik__aligned16(const clik_binding *const *b, int count, int contiguous)
{
    for (int i = 0; i < count; i++)
        if (!b[i]->base_aligned || (!contiguous && b[i]->stride % 16 != 0))
            return 0;
    return 1;
}

clik_status clik__unbind(clik_context *ctx, clik_binding *b, int ok)
{
    clik_status st = CLIK_OK;
    if (b->import)
        return clik__import_unbind(ctx, b, ok);
    if (!b->mem)
        return st;
    int host_result = ok && (b->access & CLIK_WRITE) && !b->image.buffer && !b->scratch;
    if (host_result && b->mapped_host) {
        /* Mapping makes the device's writes visible in the host memory. */
        cl_int err;
        void *p = ctx->cl->clEnqueueMapBuffer(ctx->queue, b->mem, CL_FALSE, CL_MAP_READ, 0, b->span,
                                              0, NULL, NULL, &err);
        if (!p || err != CL_SUCCESS)
            st = clik__fail_cl(ctx, err, "clEnqueueMapBuffer");
        else
            ctx->cl->clEnqueueUnmapMemObject(ctx->queue, b->mem, p, 0, NULL, NULL);
    } else if (host_result && b->staged) {
        st = clik__staged_transfer(ctx, b->mem, b->stride, b->image.data, b->image.stride,
                                   b->row_bytes, b->image.height, 0);
    } else if (host_result) {
        st = clik__transfer_rows(ctx, b->mem, b->stride, b->image.data, b->image.stride,
                                 b->row_bytes, b->image.height, 0);
    }
    if (b->owned) {
        /* A buffer over host memory must not outlive the call: the
         * operation waits for the queue before it returns (clik__finish_op:
         * one wait for all of its buffers). */
        ctx->host_pending |= b->mapped_host;
        ctx->cl->clReleaseMemObject(b->mem);
    } else if (b->pooled) {
        clik__temp_release(ctx, b->mem, b->alloc);
    }
    b->mem = NULL;
    return st;
}

clik_status clik__host_view(clik_context *ctx, const clik_image *img, int access, clik_image *view)
{
    *view = *img;
    if (!img->buffer)
        return CLIK_OK;
    if (img->buffer->import)
        return clik__import_view(ctx, img, access, view);
    view->buffer = NULL;
    if (!ctx->has_device) {
        view->data = img->buffer->host;
        return CLIK_OK;
    }
    clik_status st = clik__buffer_settle(ctx, img->buffer, access);
    if (st != CLIK_OK)
        return st;
    view->data = clik__aligned_alloc(img->buffer->bytes);
    if (!view->data)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    if (access & CLIK_READ) {
        cl_int err = ctx->cl->clEnqueueReadBuffer(ctx->queue, img->buffer->mem, CL_TRUE, 0,
                                                  img->buffer->bytes, view->data, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            clik__aligned_free(view->data);
            view->data = NULL;
            return clik__fail_cl(ctx, err, "download");
        }
    }
    return CLIK_OK;
}

clik_status clik__host_view_done(clik_context *ctx, const clik_image *img, clik_image *view,
                                 int access, int ok)
{
    clik_status st = CLIK_OK;
    if (img->buffer && img->buffer->import)
        return clik__import_view_done(ctx, img, view, access, ok);
    if (!img->buffer || !ctx->has_device || !view->data)
        return st;
    if (ok && (access & CLIK_WRITE)) {
        cl_int err = ctx->cl->clEnqueueWriteBuffer(ctx->queue, img->buffer->mem, CL_TRUE, 0,
                                                   img->buffer->bytes, view->data, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            st = clik__fail_cl(ctx, err, "upload");
    }
    clik__aligned_free(view->data);
    view->data = NULL;
    return st;
}

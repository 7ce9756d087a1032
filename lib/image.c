/*
 * Images: descriptors and their validation, and the memory of images from
 * its allocation to clik_image_free(): host images, device images, and the
 * host memory of a context (clik_image_alloc_on).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int channels_valid(int channels)
{
    return channels >= 1 && channels <= 4;
}

clik_status clik__image_layout(int width, int height, int channels, clik_type type, size_t stride,
                               size_t *row_bytes, size_t *span)
{
    size_t esize = clik_type_size(type);
    if (esize == 0 || !channels_valid(channels))
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    if (width <= 0 || height <= 0 || width > CLIK_MAX_DIM || height > CLIK_MAX_DIM)
        return CLIK_ERR_INVALID_SIZE;
    /* width * channels * esize <= 2^20 * 4 * 8: no overflow in size_t. */
    size_t row = (size_t)width * (size_t)channels * esize;
    if (stride < row || stride % esize != 0)
        return CLIK_ERR_STRIDE;
    if ((size_t)(height - 1) > (SIZE_MAX - row) / stride)
        return CLIK_ERR_OVERFLOW;
    if (row_bytes)
        *row_bytes = row;
    if (span)
        *span = (size_t)(height - 1) * stride + row;
    return CLIK_OK;
}

clik_status clik_image_validate(const clik_image *img)
{
    if (!img)
        return CLIK_ERR_NULL;
    if (!img->data && !img->buffer)
        return CLIK_ERR_NULL;
    if (img->data && img->buffer)
        return CLIK_ERR_INVALID_ARG; /* host or device, not both */
    if (img->order != CLIK_ORDER_RGB && img->order != CLIK_ORDER_BGR)
        return CLIK_ERR_INVALID_ARG;
    size_t span;
    clik_status st = clik__image_layout(img->width, img->height, img->channels, img->type,
                                        img->stride, NULL, &span);
    /* A device image may describe less than its buffer, never more. */
    if (st == CLIK_OK && img->buffer && span > img->buffer->bytes)
        return CLIK_ERR_INVALID_ARG;
    return st;
}

clik_status clik_image_wrap(clik_image *img, int width, int height, int channels, clik_type type,
                            void *data, size_t stride)
{
    if (!img || !data)
        return CLIK_ERR_NULL;
    if (stride == 0 && width > 0 && width <= CLIK_MAX_DIM && channels_valid(channels))
        stride = (size_t)width * (size_t)channels * clik_type_size(type);
    clik_status st = clik__image_layout(width, height, channels, type, stride, NULL, NULL);
    if (st != CLIK_OK)
        return st;
    *img = (clik_image){width, height, channels, type, stride, data, NULL, 0, CLIK_ORDER_RGB};
    return CLIK_OK;
}

/* Row bytes and span of a packed image, or why it cannot be one. */
static clik_status packed_layout(int width, int height, int channels, clik_type type, size_t *row,
                                 size_t *span)
{
    *row = *span = 0;
    if (width > 0 && width <= CLIK_MAX_DIM && channels > 0 && channels <= 4)
        *row = (size_t)width * (size_t)channels * clik_type_size(type);
    return clik__image_layout(width, height, channels, type, *row, row, span);
}

clik_status clik_image_alloc(clik_image *img, int width, int height, int channels, clik_type type)
{
    if (!img)
        return CLIK_ERR_NULL;
    memset(img, 0, sizeof(*img));
    size_t row, span;
    clik_status st = packed_layout(width, height, channels, type, &row, &span);
    if (st != CLIK_OK)
        return st;
    void *data = clik__aligned_alloc(span);
    if (!data)
        return CLIK_ERR_NO_MEMORY;
    *img = (clik_image){width, height, channels,        type,          row,
                        data,  NULL,   CLIK_OWNED_HOST, CLIK_ORDER_RGB};
    return CLIK_OK;
}

/* The start of an image of a context (fn): *img cleared, then the packed
 * layout, or why there is none (in ctx's message). */
static clik_status context_layout(clik_context *ctx, clik_image *img, int width, int height,
                                  int channels, clik_type type, const char *fn, size_t *row,
                                  size_t *span)
{
    if (!ctx || !img)
        return CLIK_ERR_NULL;
    memset(img, 0, sizeof(*img));
    clik_status st = packed_layout(width, height, channels, type, row, span);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "%s %dx%dx%d %s: %s", fn, width, height, channels,
                          clik_type_name(type), clik_status_str(st));
    return CLIK_OK;
}

/* ---- YUV 4:2:0 frames (clik_yuv_wrap; the conversions are ops/yuv.c) ----- */

int clik__yuv_format_known(clik_yuv_format f)
{
    return f == CLIK_YUV_NV12 || f == CLIK_YUV_NV21 || f == CLIK_YUV_I420;
}

const char *clik__yuv_format_name(clik_yuv_format f)
{
    return f == CLIK_YUV_NV12 ? "NV12" : f == CLIK_YUV_NV21 ? "NV21" : "I420";
}

static int frame_size_ok(int width, int height)
{
    return width >= 2 && height >= 2 && width % 2 == 0 && height % 2 == 0 &&
           width <= CLIK_MAX_DIM && height <= CLIK_MAX_DIM;
}

size_t clik_yuv_size(int width, int height)
{
    if (!frame_size_ok(width, height))
        return 0;
    const size_t px = (size_t)width * (size_t)height;
    return px > SIZE_MAX / 3 * 2 ? 0 : px / 2 * 3;
}

clik_status clik_yuv_wrap(clik_yuv_image *frame, clik_yuv_format format, int width, int height,
                          void *data, size_t stride)
{
    if (!frame || !data)
        return CLIK_ERR_NULL;
    if (!clik__yuv_format_known(format))
        return CLIK_ERR_INVALID_ARG;
    if (!frame_size_ok(width, height))
        return CLIK_ERR_INVALID_SIZE;
    if (stride == 0)
        stride = (size_t)width;
    if (stride < (size_t)width || (format == CLIK_YUV_I420 && stride % 2 != 0))
        return CLIK_ERR_STRIDE;
    /* The frame's last byte: the chroma rows after the luma rows. */
    if ((size_t)height > SIZE_MAX / 2 / stride)
        return CLIK_ERR_OVERFLOW;
    clik_yuv_image f;
    memset(&f, 0, sizeof(f));
    f.format = format;
    uint8_t *base = data, *chroma = base + (size_t)height * stride;
    clik_status st = clik_image_wrap(&f.y, width, height, 1, CLIK_U8, base, stride);
    if (st == CLIK_OK && format != CLIK_YUV_I420) {
        st = clik_image_wrap(&f.uv, width / 2, height / 2, 2, CLIK_U8, chroma, stride);
    } else if (st == CLIK_OK) {
        const size_t cstride = stride / 2;
        st = clik_image_wrap(&f.u, width / 2, height / 2, 1, CLIK_U8, chroma, cstride);
        if (st == CLIK_OK)
            st = clik_image_wrap(&f.v, width / 2, height / 2, 1, CLIK_U8,
                                 chroma + (size_t)(height / 2) * cstride, cstride);
    }
    if (st == CLIK_OK)
        *frame = f;
    return st;
}

/* ---- device images (clik_image_create) ------------------------------------- */

static void buffer_free(struct clik_buffer *b)
{
    if (!b)
        return;
    if (b->import) {
        clik__import_release(b);
        return;
    }
    if (b->pending)
        b->ctx->cl->clReleaseEvent(b->pending);
    if (b->mem)
        clik__release_after_queue(b->ctx, b->mem);
    clik__aligned_free(b->host);
    free(b);
}

clik_status clik_image_create(clik_context *ctx, clik_image *img, int width, int height,
                              int channels, clik_type type)
{
    size_t row, span;
    clik_status st =
        context_layout(ctx, img, width, height, channels, type, "clik_image_create", &row, &span);
    if (st != CLIK_OK)
        return st;
    if (ctx->has_device && span > ctx->dev.max_alloc_size)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY,
                          "image of %zu bytes exceeds the device's largest allocation", span);
    struct clik_buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    b->ctx = ctx;
    b->bytes = span;
    if (ctx->has_device) {
        cl_int err;
        b->mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, span, NULL, &err);
        if (!b->mem || err != CL_SUCCESS) {
            free(b);
            return clik__fail_cl(ctx, err, "clCreateBuffer");
        }
        st = clik__poison(ctx, b->mem, span);
        if (st != CLIK_OK) {
            buffer_free(b);
            return st;
        }
    } else {
        b->host = clik__aligned_alloc(span);
        if (!b->host) {
            free(b);
            return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
        }
        if (ctx->poison)
            memset(b->host, 0xa5, span);
    }
    *img = (clik_image){width, height, channels, type, row, NULL, b, 0, CLIK_ORDER_RGB};
    return CLIK_OK;
}

/* ---- context host memory (clik_image_alloc_on) ----------------------------- */

/* Just before a block's data: a tag and the block, so that
 * clik_image_free() finds the context of an image. */
#define BLOCK_HEADER 64   /* bytes reserved before data (the tag is in them) */
#define BLOCK_PAGE   4096 /* zero-copy memory starts on a page */
static const uint64_t block_magic = 0x6b696c63686f7374ull;

typedef struct block_tag {
    uint64_t magic;
    clik_host_block *block;
} block_tag;

static block_tag *tag_of(void *data)
{
    return (block_tag *)(void *)((unsigned char *)data - BLOCK_HEADER);
}

clik_host_block *clik__host_block_find(clik_context *ctx, const void *p, size_t span)
{
    const uintptr_t a = (uintptr_t)p;
    for (clik_host_block *b = ctx->blocks; b; b = b->next) {
        const uintptr_t d = (uintptr_t)b->data;
        if (a >= d && a - d <= b->bytes && span <= b->bytes - (a - d))
            return b;
    }
    return NULL;
}

static void block_release(clik_host_block *b)
{
    clik_context *ctx = b->ctx;
    tag_of(b->data)->magic = 0; /* before the memory goes (pinned: with the buffer) */
    if (b->prev)
        b->prev->next = b->next;
    else
        ctx->blocks = b->next;
    if (b->next)
        b->next->prev = b->prev;
    if (b->mem) {
        /* Operations wait for their commands: nothing still uses it. */
        ctx->cl->clFinish(ctx->queue);
        if (b->map)
            ctx->cl->clEnqueueUnmapMemObject(ctx->queue, b->mem, b->map, 0, NULL, NULL);
        clik__release_after_queue(ctx, b->mem);
    }
    free(b->base);
    free(b);
}

void clik__host_blocks_release(clik_context *ctx)
{
    while (ctx->blocks)
        block_release(ctx->blocks);
}

/* Pinned memory: a mapped CL_MEM_ALLOC_HOST_PTR buffer, the tag in its
 * first bytes (the buffer itself never goes to kernels). */
static clik_status block_pinned(clik_context *ctx, clik_host_block *b, size_t bytes)
{
    /* The tag, then data 128-byte aligned wherever the mapping starts. */
    const size_t total = bytes + BLOCK_HEADER + 128;
    if (total > ctx->dev.max_alloc_size)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY,
                          "%zu bytes exceed the device's largest allocation", total);
    cl_int err;
    b->mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, total,
                                     NULL, &err);
    if (!b->mem || err != CL_SUCCESS) {
        b->mem = NULL;
        return clik__fail_cl(ctx, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    }
    b->map = ctx->cl->clEnqueueMapBuffer(ctx->queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         total, 0, NULL, NULL, &err);
    if (!b->map || err != CL_SUCCESS) {
        ctx->cl->clReleaseMemObject(b->mem);
        b->mem = NULL;
        b->map = NULL;
        return clik__fail_cl(ctx, err, "clEnqueueMapBuffer");
    }
    uintptr_t d = ((uintptr_t)b->map + BLOCK_HEADER + 127) & ~(uintptr_t)127;
    b->data = (unsigned char *)d;
    return CLIK_OK;
}

/* Zero-copy memory: page-aligned host memory with a buffer over it made
 * once (CL_MEM_USE_HOST_PTR), which kernels use as it is; without a
 * device, the memory alone. */
static clik_status block_zero_copy(clik_context *ctx, clik_host_block *b, size_t bytes)
{
    const size_t padded = (bytes + 63) & ~(size_t)63; /* whole cache lines */
    if (padded > SIZE_MAX - BLOCK_PAGE || posix_memalign(&b->base, BLOCK_PAGE, BLOCK_PAGE + padded))
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    b->data = (unsigned char *)b->base + BLOCK_PAGE;
    b->zero_copy = 1;
    if (!ctx->has_device)
        return CLIK_OK;
    if (padded > ctx->dev.max_alloc_size)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY,
                          "%zu bytes exceed the device's largest allocation", padded);
    cl_int err;
    b->mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, padded,
                                     b->data, &err);
    if (!b->mem || err != CL_SUCCESS) {
        b->mem = NULL;
        return clik__fail_cl(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    }
    return CLIK_OK;
}

clik_status clik_image_alloc_on(clik_context *ctx, clik_image *img, int width, int height,
                                int channels, clik_type type)
{
    size_t row, span;
    clik_status st =
        context_layout(ctx, img, width, height, channels, type, "clik_image_alloc_on", &row, &span);
    if (st != CLIK_OK)
        return st;
    clik_host_block *b = calloc(1, sizeof(*b));
    if (!b)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    b->ctx = ctx;
    b->bytes = span;
    const int pinned = ctx->has_device && (!ctx->host_unified || ctx->transfer == CLIK_XFER_STAGED);
    st = pinned ? block_pinned(ctx, b, span) : block_zero_copy(ctx, b, span);
    if (st != CLIK_OK) {
        free(b->base);
        free(b);
        return st;
    }
    *tag_of(b->data) = (block_tag){block_magic, b};
    b->next = ctx->blocks;
    if (ctx->blocks)
        ctx->blocks->prev = b;
    ctx->blocks = b;
    *img = (clik_image){width,   height, channels,           type,          row,
                        b->data, NULL,   CLIK_OWNED_CONTEXT, CLIK_ORDER_RGB};
    return CLIK_OK;
}

void clik_image_free(clik_image *img)
{
    if (!img)
        return;
    if (img->buffer) {
        buffer_free(img->buffer);
    } else if (img->data && img->owned == CLIK_OWNED_CONTEXT) {
        block_tag *tag = tag_of(img->data);
        if (tag->magic == block_magic && tag->block->data == (unsigned char *)img->data)
            block_release(tag->block);
    } else if (img->data && img->owned) {
        clik__aligned_free(img->data);
    }
    memset(img, 0, sizeof(*img));
}

void *clik__aligned_alloc(size_t bytes)
{
    if (bytes == 0 || bytes > SIZE_MAX - CLIK_ALIGN)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, CLIK_ALIGN, (bytes + CLIK_ALIGN - 1) & ~(size_t)(CLIK_ALIGN - 1)) != 0)
        return NULL;
    return p;
}

void clik__aligned_free(void *p)
{
    free(p);
}

/*
 * Device images, transfers, and the binding of images to kernels and to the
 * CPU path. On CPU devices host images are used in place
 * (CL_MEM_USE_HOST_PTR); on other devices they travel through pooled
 * device buffers.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- device images ------------------------------------------------------- */

static void release_after_queue(clik_context *ctx, cl_mem mem);
static clik_status staged_transfer(clik_context *ctx, cl_mem mem, size_t stride,
                                   unsigned char *host, size_t host_stride, size_t row, int height,
                                   int upload);

void clik__buffer_free(struct clik_buffer *b)
{
    if (!b)
        return;
    if (b->mem)
        release_after_queue(b->ctx, b->mem);
    clik__aligned_free(b->host);
    free(b);
}

clik_status clik_image_create(clik_context *ctx, clik_image *img, int width, int height,
                              int channels, clik_type type)
{
    if (!ctx || !img)
        return CLIK_ERR_NULL;
    memset(img, 0, sizeof(*img));
    size_t row = (size_t)(width > 0 ? width : 0) * (size_t)(channels > 0 ? channels : 0) *
                 clik_type_size(type);
    size_t span;
    clik_status st = clik__image_layout(width, height, channels, type, row, &row, &span);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_image_create %dx%dx%d %s: %s", width, height, channels,
                          clik_type_name(type), clik_status_str(st));
    struct clik_buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    b->ctx = ctx;
    b->bytes = span;
    if (ctx->has_device) {
        if (span > ctx->dev.max_alloc_size) {
            free(b);
            return clik__fail(ctx, CLIK_ERR_NO_MEMORY,
                              "image of %zu bytes exceeds the device's largest allocation", span);
        }
        cl_int err;
        b->mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, span, NULL, &err);
        if (!b->mem || err != CL_SUCCESS) {
            free(b);
            return clik__fail_cl(ctx, err, "clCreateBuffer");
        }
        st = clik__poison(ctx, b->mem, span);
        if (st != CLIK_OK) {
            clik__buffer_free(b);
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
    *img = (clik_image){width, height, channels, type, row, NULL, b, 0};
    return CLIK_OK;
}

clik_status clik__check_image(clik_context *ctx, const clik_image *img, const char *what)
{
    clik_status st = clik_image_validate(img);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "%s: %s", what, clik_status_str(st));
    if (img->buffer && img->buffer->ctx != ctx)
        return clik__fail(ctx, CLIK_ERR_WRONG_CONTEXT, "%s: a device image of another context",
                          what);
    return CLIK_OK;
}

static int same_format(const clik_image *a, const clik_image *b)
{
    return a->width == b->width && a->height == b->height && a->channels == b->channels &&
           a->type == b->type;
}

/* Copies rows between two host images of the same format. */
static void copy_rows(const clik_image *dst, const void *src, size_t src_stride, size_t row)
{
    for (int y = 0; y < dst->height; y++)
        memcpy((char *)dst->data + (size_t)y * dst->stride,
               (const char *)src + (size_t)y * src_stride, row);
}

/* Transfers between a device buffer and host memory; write = host to device. */
static clik_status transfer(clik_context *ctx, cl_mem mem, size_t mem_stride, void *host,
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
        size_t origin[3] = {0, 0, 0}, region[3] = {row, (size_t)height, 1};
        err = write ? ctx->cl->clEnqueueWriteBufferRect(ctx->queue, mem, CL_TRUE, origin, origin,
                                                        region, mem_stride, 0, host_stride, 0, host,
                                                        0, NULL, NULL)
                    : ctx->cl->clEnqueueReadBufferRect(ctx->queue, mem, CL_TRUE, origin, origin,
                                                       region, mem_stride, 0, host_stride, 0, host,
                                                       0, NULL, NULL);
    }
    return err == CL_SUCCESS ? CLIK_OK : clik__fail_cl(ctx, err, write ? "upload" : "download");
}

static clik_status check_transfer(clik_context *ctx, const clik_image *dev, const clik_image *host,
                                  const char *what)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!dev || !host)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: an image is NULL", what);
    clik_status st = clik__check_image(ctx, dev, what);
    if (st == CLIK_OK)
        st = clik__check_image(ctx, host, what);
    if (st != CLIK_OK)
        return st;
    if (!dev->buffer || !host->data)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: needs a device and a host image", what);
    if (dev->channels != host->channels || dev->type != host->type)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: %d-channel %s and %d-channel %s",
                          what, dev->channels, clik_type_name(dev->type), host->channels,
                          clik_type_name(host->type));
    if (!same_format(dev, host))
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: %dx%d and %dx%d", what, dev->width,
                          dev->height, host->width, host->height);
    return CLIK_OK;
}

/* Copies between a device image and a host image of its format. */
static clik_status host_copy(clik_context *ctx, const clik_image *dev, const clik_image *host,
                             int upload, const char *what)
{
    clik_status st = check_transfer(ctx, dev, host, what);
    if (st != CLIK_OK)
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
        return staged_transfer(ctx, dev->buffer->mem, dev->stride, host->data, host->stride, row,
                               host->height, upload);
    return transfer(ctx, dev->buffer->mem, dev->stride, host->data, host->stride, row, host->height,
                    upload);
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

/* ---- pooled temporary buffers --------------------------------------------- */

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

static clik_status temp_buffer(clik_context *ctx, size_t bytes, cl_mem *mem);

clik_status clik__temp_buffer(clik_context *ctx, size_t bytes, cl_mem *mem)
{
    clik_status st = temp_buffer(ctx, bytes, mem);
    if (st == CLIK_OK && (st = clik__poison(ctx, *mem, bytes)) != CLIK_OK) {
        clik__temp_release(ctx, *mem, bytes);
        *mem = NULL;
    }
    return st;
}

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

/* Releases a buffer that queued commands may still use. OpenCL allows it,
 * but some runtimes free the memory early (seen with Oclgrind): wait first. */
static void release_after_queue(clik_context *ctx, cl_mem mem)
{

    ctx->cl->clFinish(ctx->queue);
    ctx->cl->clReleaseMemObject(mem);
}

void clik__temp_release(clik_context *ctx, cl_mem mem, size_t bytes)
{
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
            release_after_queue(ctx, mem);
            return;
        }
        release_after_queue(ctx, ctx->pool[slot].mem);
    }
    ctx->pool[slot].mem = mem;
    ctx->pool[slot].bytes = bytes;
}

/* ---- bindings -------------------------------------------------------------- */

int clik__same_image(const clik_image *a, const clik_image *b, clik_status *st)
{
    *st = CLIK_OK;
    if (a->buffer || b->buffer) {
        if (a->buffer != b->buffer)
            return 0;
        if (same_format(a, b))
            return 1;
        *st = CLIK_ERR_INVALID_ARG;
        return 0;
    }
    size_t span_a, span_b;
    if (clik__image_layout(a->width, a->height, a->channels, a->type, a->stride, NULL, &span_a) !=
            CLIK_OK ||
        clik__image_layout(b->width, b->height, b->channels, b->type, b->stride, NULL, &span_b) !=
            CLIK_OK)
        return 0;
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    if (a0 + span_a <= b0 || b0 + span_b <= a0)
        return 0;
    if (a0 == b0 && a->stride == b->stride && same_format(a, b))
        return 1;
    *st = CLIK_ERR_INVALID_ARG; /* partial overlap */
    return 0;
}

/* "u8 or f32" for a mask of types or "1, 2 or 4" for one of channels. */
static void mask_words(unsigned mask, int types, char *out, size_t cap)
{
    size_t len = 0;
    int n = 0, total = 0;
    for (unsigned m = mask; m; m &= m - 1)
        total++;
    out[0] = '\0';
    for (int i = 0; i < 32 && len < cap; i++) {
        if (!(mask & (1u << i)))
            continue;
        const char *sep = n == 0 ? "" : n == total - 1 ? " or " : ", ";
        int w = types ? snprintf(out + len, cap - len, "%s%s", sep, clik_type_name((clik_type)i))
                      : snprintf(out + len, cap - len, "%s%d", sep, i);
        len += w > 0 ? (size_t)w : 0;
        n++;
    }
}

clik_status clik__check_format(clik_context *ctx, const clik_image *img, const char *what,
                               unsigned types, unsigned channels, int width, int height)
{
    clik_status st = clik__check_image(ctx, img, what);
    if (st != CLIK_OK)
        return st;
    if (!(types & CLIK_TYPE_BIT(img->type)) ||
        (channels && !(channels & (1u << (unsigned)img->channels)))) {
        char t[64], c[64] = "any number of";
        mask_words(types, 1, t, sizeof(t));
        if (channels)
            mask_words(channels, 0, c, sizeof(c));
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: needs %s channel(s) of %s, not %d of %s", what, c, t, img->channels,
                          clik_type_name(img->type));
    }
    if (width > 0 && (img->width != width || img->height != height))
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: is %dx%d, needs %dx%d", what,
                          img->width, img->height, width, height);
    return CLIK_OK;
}

clik_status clik__check_like(clik_context *ctx, const clik_image *img, const clik_image *ref,
                             const char *what, int width, int height)
{
    return clik__check_format(ctx, img, what, CLIK_TYPE_BIT(ref->type),
                              1u << (unsigned)ref->channels, width, height);
}

clik_status clik__check_apart(clik_context *ctx, const clik_image *a, const clik_image *b,
                              int in_place, const char *what)
{
    clik_status st;
    if ((clik__same_image(a, b, &st) == 1 && !in_place) || st != CLIK_OK)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: overlapping images", what);
    return CLIK_OK;
}

int clik__images_overlap(const clik_image *a, const clik_image *b)
{
    clik_status st;
    return clik__same_image(a, b, &st) == 1 || st != CLIK_OK;
}

/* ---- pinned staging ------------------------------------------------------- */

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
            release_after_queue(ctx, s->mem);
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
            release_after_queue(ctx, s->mem);
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
static clik_status staged_transfer(clik_context *ctx, cl_mem mem, size_t stride,
                                   unsigned char *host, size_t host_stride, size_t row, int height,
                                   int upload)
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

/* ---- binding host images ---------------------------------------------------- */

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
    if (img->buffer) {
        b->mem = img->buffer->mem;
        return CLIK_OK;
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
            st = staged_transfer(ctx, b->mem, b->stride, img->data, img->stride, b->row_bytes,
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
    b->image = (clik_image){width, height, channels, type, row, NULL, NULL, 0};
    b->access = CLIK_KERNEL_RW;
    b->stride = row;
    b->span = b->alloc = span;
    b->base_aligned = 1;
    b->scratch = 1;
    b->pooled = 1;
    return clik__temp_buffer(ctx, span, &b->mem);
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
        st = staged_transfer(ctx, b->mem, b->stride, b->image.data, b->image.stride, b->row_bytes,
                             b->image.height, 0);
    } else if (host_result) {
        st = transfer(ctx, b->mem, b->stride, b->image.data, b->image.stride, b->row_bytes,
                      b->image.height, 0);
    }
    if (b->owned) {
        /* A buffer over host memory must not outlive the call: clik__run()
         * waits for the queue before the operation returns (one wait for
         * all of its buffers). */
        ctx->host_pending |= b->mapped_host;
        ctx->cl->clReleaseMemObject(b->mem);
    } else if (b->pooled) {
        clik__temp_release(ctx, b->mem, b->alloc);
    }
    b->mem = NULL;
    return st;
}

/* ---- host views for the CPU path ------------------------------------------- */

clik_status clik__host_view(clik_context *ctx, const clik_image *img, int access, clik_image *view)
{
    *view = *img;
    if (!img->buffer)
        return CLIK_OK;
    view->buffer = NULL;
    if (!ctx->has_device) {
        view->data = img->buffer->host;
        return CLIK_OK;
    }
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

clik_status clik__cpu_apply(clik_context *ctx, const clik_image *src, clik_image *dst,
                            clik_cpu_body body, void *user, const char *what)
{
    clik_image s, d;
    clik_status st = clik__host_view(ctx, src, CLIK_READ, &s);
    if (st != CLIK_OK)
        return st;
    st = clik__host_view(ctx, dst, CLIK_WRITE, &d);
    if (st == CLIK_OK) {
        const int ok = body(&s, &d, user) == 0;
        st = clik__host_view_done(ctx, dst, &d, CLIK_WRITE, ok);
        if (!ok)
            st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory on the CPU path", what);
    }
    clik__host_view_done(ctx, src, &s, CLIK_READ, 0);
    return st;
}

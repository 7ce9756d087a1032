/*
 * Operations whose kernels and CPU code read 1 or 4 channels take packed
 * 3-channel images (and, where the operation allows them, 2-channel ones:
 * the interleaved chroma of NV12 and NV21 frames) through 4-channel
 * copies: on the device, one kernel widens each such input into a scratch
 * image and one packs each such output back (kernels/copy.cl); on the CPU,
 * host copies. The copies keep their image's colour order; the channels
 * they add (0 for a third, the type's full scale for a fourth) are never
 * read back.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef struct rgba_call {
    const clik_op *op;
    void *args;
    int n;
    int two; /* 2-channel images widened too */
} rgba_call;

/* Binding i's first occurrence among b[0..i] (in place: one binding). */
static int first_of(clik_binding *const *b, int i)
{
    int j = 0;
    while (b[j] != b[i])
        j++;
    return j;
}

/* A packed image the 4-channel copies serve (2 channels where the
 * operation asked for them). */
static int narrow(int channels, int two)
{
    return channels == 3 || (two && channels == 2);
}

/* One conversion kernel between a 2- or 3- and a 4-channel binding. */
static clik_status convert(clik_context *ctx, const char *name, const clik_binding *from,
                           const clik_binding *to)
{
    const clik_image *img = &from->image;
    const size_t esize = clik_type_size(img->type);
    if (from->stride / esize > (size_t)INT_MAX || to->stride / esize > (size_t)INT_MAX)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "%d-channel images: a row stride past INT_MAX elements", img->channels);
    /* Any element type of the images here: the kernels only move elements
     * (the integers and binary64 of sums as bits of their size). */
    const char *t = img->type == CLIK_U8                             ? "uchar"
                    : img->type == CLIK_S16                          ? "short"
                    : img->type == CLIK_F32                          ? "float"
                    : img->type == CLIK_U32 || img->type == CLIK_S32 ? "uint"
                    : img->type == CLIK_U64 || img->type == CLIK_F64 ? "ulong"
                                                                     : NULL;
    if (!t)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%d-channel %s images", img->channels,
                          clik_type_name(img->type));
    char options[64];
    snprintf(options, sizeof(options), "-DT=%s -DT_IS_FLOAT=%d%s -DNARROW=%d", t,
             img->type == CLIK_F32, img->type == CLIK_U8 ? " -DT_IS_UCHAR" : "",
             from->image.channels < 4 ? from->image.channels : to->image.channels);
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "copy", options, name, &k);
    const int w = img->width, h = img->height, fs = clik__elems(from), ts = clik__elems(to);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(from->mem), CLIK_A(fs), CLIK_A(w), CLIK_A(h), CLIK_A(to->mem),
                       CLIK_A(ts));
    size_t items[2] = {(size_t)w, (size_t)h}, lsize[2] = {64, 4};
    return st == CLIK_OK ? clik__launch(ctx, k, 2, items, lsize) : st;
}

static clik_status rgba_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const rgba_call *c = p;
    clik_binding store[CLIK_OP_MAX_IMAGES];
    clik_binding *w[CLIK_OP_MAX_IMAGES];
    int made[CLIK_OP_MAX_IMAGES] = {0};
    clik_status st = CLIK_OK;
    for (int i = 0; i < c->n && st == CLIK_OK; i++) {
        const int j = first_of(b, i);
        w[i] = b[i];
        if (j < i) {
            w[i] = w[j];
        } else if (narrow(b[i]->image.channels, c->two)) {
            const clik_image *img = &b[i]->image;
            st = clik__bind_scratch(ctx, img->width, img->height, 4, img->type, &store[i]);
            if (st != CLIK_OK)
                break;
            made[i] = 1;
            store[i].image.order = img->order;
            w[i] = &store[i];
            if (b[i]->access & CLIK_READ)
                st = convert(ctx, "narrow_to_rgba", b[i], w[i]);
        }
    }
    if (st == CLIK_OK)
        st = c->op->opencl(ctx, c->args, w);
    for (int i = 0; i < c->n; i++) {
        if (!made[i])
            continue;
        if (st == CLIK_OK && (b[i]->access & CLIK_WRITE))
            st = convert(ctx, "rgba_to_narrow", w[i], b[i]);
        clik__unbind(ctx, w[i], 0);
    }
    return st;
}

/* Element copies between a 2- or 3- and a 4-channel host image of one size
 * and type: the narrow image's channels, and in the wide image the
 * channels it adds set as the kernels set them (a third 0, a fourth the
 * full scale of u8 and f32, else 0). */
static void copy_narrow(const clik_image *from, clik_image *to)
{
    const size_t esize = clik_type_size(from->type);
    const size_t fp = (size_t)from->channels * esize, tp = (size_t)to->channels * esize;
    const int n = from->channels < to->channels ? from->channels : to->channels;
    const uint8_t full_u8 = 255, zero[8] = {0};
    const float full_f32 = 1.0f;
    const void *full = from->type == CLIK_U8    ? (const void *)&full_u8
                       : from->type == CLIK_F32 ? (const void *)&full_f32
                                                : (const void *)zero;
    for (int y = 0; y < from->height; y++) {
        const uint8_t *in = (const uint8_t *)from->data + (size_t)y * from->stride;
        uint8_t *out = (uint8_t *)to->data + (size_t)y * to->stride;
        for (int x = 0; x < from->width; x++, in += fp, out += tp) {
            memcpy(out, in, (size_t)n * esize);
            if (to->channels == 4) {
                if (n == 2)
                    memcpy(out + 2 * esize, zero, esize);
                memcpy(out + 3 * esize, full, esize);
            }
        }
    }
}

static clik_status rgba_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const rgba_call *c = p;
    clik_image store[CLIK_OP_MAX_IMAGES];
    clik_image *w[CLIK_OP_MAX_IMAGES];
    int made[CLIK_OP_MAX_IMAGES] = {0};
    clik_status st = CLIK_OK;
    for (int i = 0; i < c->n && st == CLIK_OK; i++) {
        int j = 0;
        while (v[j] != v[i])
            j++;
        w[i] = j < i ? w[j] : v[i];
        if (j < i || !narrow(v[i]->channels, c->two))
            continue;
        st = clik_image_alloc(&store[i], v[i]->width, v[i]->height, 4, v[i]->type);
        if (st != CLIK_OK) {
            st = clik__fail(ctx, st, "%s: out of memory for a 4-channel copy", c->op->name);
            break;
        }
        made[i] = 1;
        store[i].order = v[i]->order;
        w[i] = &store[i];
        copy_narrow(v[i], w[i]); /* written images too: in place they are read */
    }
    if (st == CLIK_OK)
        st = c->op->cpu(ctx, c->args, w);
    for (int i = 0; i < c->n; i++) {
        if (!made[i])
            continue;
        if (st == CLIK_OK)
            copy_narrow(w[i], v[i]);
        clik_image_free(w[i]);
    }
    return st;
}

static clik_status run_widened(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                               int count, void *args, int two)
{
    int any = 0;
    for (int i = 0; i < count; i++)
        any |= narrow(images[i].image->channels, two);
    if (!any || count > CLIK_OP_MAX_IMAGES)
        return clik__run_op(ctx, op, images, count, args);
    rgba_call c = {op, args, count, two};
    const clik_op wrapped = {op->name, op->opencl ? rgba_opencl : NULL, rgba_cpu};
    return clik__run_op(ctx, &wrapped, images, count, &c);
}

clik_status clik__run_op_rgba(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                              int count, void *args)
{
    return run_widened(ctx, op, images, count, args, 0);
}

clik_status clik__run_op_rgba2(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                               int count, void *args)
{
    return run_widened(ctx, op, images, count, args, 1);
}

clik_status clik__run_op_pair(clik_context *ctx, const clik_op *op, const clik_image *src,
                              clik_image *dst, void *args)
{
    const clik_op_image images[] = {{src, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op_rgba(ctx, op, images, 2, args);
}

/*
 * Checks of image arguments: a valid descriptor of this context, a format
 * an operation accepts, images that do not overlap (or are the same, in
 * place), and the two images of an upload or a download.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "internal.h"

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

int clik__images_overlap(const clik_image *a, const clik_image *b)
{
    clik_status st;
    return clik__same_image(a, b, &st) == 1 || st != CLIK_OK;
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

clik_status clik__check_pixels(clik_context *ctx, const clik_image *img, const char *what)
{
    return clik__check_format(ctx, img, what, CLIK_TYPES(CLIK_U8, CLIK_F32),
                              CLIK_CHANNELS(1, 2, 3, 4), 0, 0);
}

clik_status clik__check_apart(clik_context *ctx, const clik_image *a, const clik_image *b,
                              int in_place, const char *what)
{
    clik_status st;
    if ((clik__same_image(a, b, &st) == 1 && !in_place) || st != CLIK_OK)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: overlapping images", what);
    return CLIK_OK;
}

clik_status clik__check_transfer(clik_context *ctx, const clik_image *dev, const clik_image *host,
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

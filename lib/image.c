/* Image descriptors: validation and host allocation. SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int channels_valid(int channels)
{
    return channels == 1 || channels == 2 || channels == 4;
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
    *img = (clik_image){width, height, channels, type, stride, data, NULL, 0};
    return CLIK_OK;
}

clik_status clik_image_alloc(clik_image *img, int width, int height, int channels, clik_type type)
{
    if (!img)
        return CLIK_ERR_NULL;
    memset(img, 0, sizeof(*img));
    size_t row = 0, span = 0;
    if (width > 0 && width <= CLIK_MAX_DIM && channels > 0 && channels <= 4)
        row = (size_t)width * (size_t)channels * clik_type_size(type);
    clik_status st = clik__image_layout(width, height, channels, type, row, &row, &span);
    if (st != CLIK_OK)
        return st;
    void *data = clik__aligned_alloc(span);
    if (!data)
        return CLIK_ERR_NO_MEMORY;
    *img = (clik_image){width, height, channels, type, row, data, NULL, 1};
    return CLIK_OK;
}

void clik_image_free(clik_image *img)
{
    if (!img)
        return;
    if (img->buffer)
        clik__buffer_free(img->buffer);
    else if (img->data && img->owned)
        clik__aligned_free(img->data);
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

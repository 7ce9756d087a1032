/* Shared pieces of the libFuzzer harnesses. SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Under valgrind, a client request reports bytes a reader left unwritten;
 * elsewhere it costs nothing. */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define CHECK_DEFINED(p, n) VALGRIND_CHECK_MEM_IS_DEFINED(p, n)
#endif
#endif
#ifndef CHECK_DEFINED
#define CHECK_DEFINED(p, n) ((void)0)
#endif

/* Where fuzz_check_image() leaves its sum, so that the reads, which let
 * AddressSanitizer check the image's extent, are not optimised away. */
static volatile uint32_t sink;

FILE *fuzz_open(const uint8_t *data, size_t size)
{
    if (size == 0)
        return NULL;
    /* fmemopen() takes a non-const buffer; mode "rb" never writes to it. */
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        abort();
    return fp;
}

void fuzz_check_image(clik_image *img)
{
    if (clik_image_validate(img) != CLIK_OK || !img->data)
        abort();
    size_t row = (size_t)img->width * (size_t)img->channels * clik_type_size(img->type);
    uint32_t sum = 0;
    for (int y = 0; y < img->height; y++) {
        const unsigned char *p = (const unsigned char *)img->data + (size_t)y * img->stride;
        CHECK_DEFINED(p, row);
        for (size_t i = 0; i < row; i++)
            sum = sum * 31u + p[i];
    }
    sink = sum;
    clik_image_free(img);
}

int fuzz_read(const uint8_t *data, size_t size, fuzz_reader read, fuzz_then then)
{
    FILE *fp = fuzz_open(data, size);
    if (!fp)
        return 0;
    clik_image img = {0};
    char err[256];
    clik_status st = read(fp, (int64_t)size, &img, err, sizeof(err));
    fclose(fp);
    if (st != CLIK_OK)
        return 0;
    if (then)
        then(&img, data, size);
    fuzz_check_image(&img);
    return 0;
}

static clik_context *fuzz_ctx;

static void fuzz_context_destroy(void)
{
    clik_context_destroy(fuzz_ctx);
}

clik_context_options fuzz_cpu_options(void)
{
    clik_context_options o;
    clik_context_options_init(&o);
    o.device = "none";
    return o;
}

clik_context *fuzz_create(const clik_context_options *o)
{
    clik_context *ctx = NULL;
    if (clik_context_create(&ctx, o) != CLIK_OK)
        abort();
    return ctx;
}

clik_context *fuzz_context(void)
{
    if (!fuzz_ctx) {
        const clik_context_options o = fuzz_cpu_options();
        fuzz_ctx = fuzz_create(&o);
        atexit(fuzz_context_destroy);
    }
    return fuzz_ctx;
}

int fuzz_read_framed(const uint8_t *data, size_t size, size_t min, fuzz_crc crc,
                     void (*read)(const uint8_t *data, size_t size))
{
    /* data may be NULL when size is 0 */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    read(copy, size);
    if (size >= min) {
        for (int i = 0; i < 4; i++)
            copy[12 + i] = (uint8_t)(size >> (8 * i));
        const uint32_t c = crc(copy, size - 4);
        for (int i = 0; i < 4; i++)
            copy[size - 4 + i] = (uint8_t)(c >> (8 * i));
        read(copy, size);
    }
    free(copy);
    return 0;
}

void fuzz_check_refusal(clik_status st, int untouched)
{
    if ((st != CLIK_ERR_FILE_FORMAT && st != CLIK_ERR_NO_MEMORY) || !untouched)
        abort();
}

int fuzz_grey_image(clik_image *img, int w, int h)
{
    if (clik_image_alloc(img, w, h, 4, CLIK_U8) != CLIK_OK)
        return 0;
    memset(img->data, 0x80, img->stride * (size_t)h);
    return 1;
}

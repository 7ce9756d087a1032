/*
 * Shared pieces of the libFuzzer harnesses (fuzz_NAME.c), which also run
 * under replay.c as ordinary tests.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_FUZZ_H
#define CLIK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clik.h"

/* The entry point every harness defines: it must return 0, and must not
 * crash, leak or read outside data[0, size) whatever the bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A read-only stream over the input, so that readers taking a FILE * parse
 * it without touching the disk; NULL for an empty input (the public readers
 * refuse empty files before any format code runs). */
FILE *fuzz_open(const uint8_t *data, size_t size);

/* What a reader that succeeded must hand back: a valid host image whose every
 * element was written. Reads each byte (so valgrind reports any left
 * uninitialised), aborts on an invalid image, and frees it. */
void fuzz_check_image(clik_image *img);

/* The harness of an image reader taking a FILE * (fuzz_NAME.c gives read, a
 * call of its reader on fp, an input of size bytes). fuzz_read() opens the
 * input (fuzz_open), reads it, closes it, and hands an image that read to
 * then(), if not NULL (further checks on it), then to fuzz_check_image(). */
typedef clik_status (*fuzz_reader)(FILE *fp, int64_t size, clik_image *img, char *err,
                                   size_t errlen);
typedef void (*fuzz_then)(const clik_image *img, const uint8_t *data, size_t size);
int fuzz_read(const uint8_t *data, size_t size, fuzz_reader read, fuzz_then then);

/* Options of a context without a device (the CPU paths). */
clik_context_options fuzz_cpu_options(void);
/* A new context made with o; aborts when it cannot be made. */
clik_context *fuzz_create(const clik_context_options *o);
/* A context without a device (the CPU oracle), made on the first call and
 * destroyed at exit. */
clik_context *fuzz_context(void);

/* The harness of a file whose header holds its length at bytes 12 .. 15
 * (little-endian) and whose last 4 bytes are a CRC-32 of all before them
 * (crc computes it): read() on an exact-size copy of the input, so that a
 * read past the input is a read past the allocation, then, from min bytes
 * on, on the copy with the length and the checksum made to match its size,
 * so that mutations reach the fields behind them. Returns 0. */
typedef uint32_t (*fuzz_crc)(const unsigned char *p, size_t n);
int fuzz_read_framed(const uint8_t *data, size_t size, size_t min, fuzz_crc crc,
                     void (*read)(const uint8_t *data, size_t size));
/* A framed reader's refusal: st must be CLIK_ERR_FILE_FORMAT or
 * CLIK_ERR_NO_MEMORY and the output left as it was (untouched non-zero);
 * aborts otherwise. */
void fuzz_check_refusal(clik_status st, int untouched);

/* The harness of a framed file read into an object of type T (a LAPAR
 * model, a network), its checksum sup_crc32 (cases.h): read(ctx, data,
 * size, &obj) on each copy that fuzz_read_framed() makes, from min bytes
 * on; an object that reads goes to check(obj, data, size), then to
 * release(obj), and a refusal to fuzz_check_refusal() with obj left as it
 * was (it starts as its own address). ctx is the harness's static context,
 * set to fuzz_context(). Defines read_one() and the entry point. */
#define FUZZ_FRAMED_OBJECT_HARNESS(T, read, check, release, min)                                   \
    static void read_one(const uint8_t *data, size_t size)                                         \
    {                                                                                              \
        T *obj = (T *)&obj;                                                                        \
        const clik_status st = read(ctx, data, size, &obj);                                        \
        if (st == CLIK_OK) {                                                                       \
            check(obj, data, size);                                                                \
            release(obj);                                                                          \
        } else {                                                                                   \
            fuzz_check_refusal(st, obj == (T *)&obj);                                              \
        }                                                                                          \
    }                                                                                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        ctx = fuzz_context();                                                                      \
        return fuzz_read_framed(data, size, (min), sup_crc32, read_one);                           \
    }

/* A w x h RGBA u8 host image of mid grey (0x80 in every byte), the input
 * that a model or network read from the fuzzer runs on; 0 when it cannot be
 * allocated. */
int fuzz_grey_image(clik_image *img, int w, int h);

#endif /* CLIK_FUZZ_H */

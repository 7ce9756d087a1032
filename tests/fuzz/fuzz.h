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

#endif /* CLIK_FUZZ_H */

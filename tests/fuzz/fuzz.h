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

#endif /* CLIK_FUZZ_H */

/* Deterministic synthetic test images. SPDX-License-Identifier: BSD-2-Clause */
#ifndef SUP_PATTERNS_H
#define SUP_PATTERNS_H

#include <stdint.h>

#include "clik.h"

typedef enum sup_pattern {
    SUP_PATTERN_NOISE,    /* uniform random values */
    SUP_PATTERN_GRADIENT, /* diagonal ramp */
    SUP_PATTERN_EDGES,    /* random rectangles: step edges in both directions */
    SUP_PATTERN_CHECKER,  /* 8x8 checkerboard of two levels */
    SUP_PATTERN_SMOOTH,   /* smooth random field (bilinear on a coarse random grid) */
    SUP_PATTERN_COUNT
} sup_pattern;

const char *sup_pattern_name(sup_pattern p);

/* Fills every element of a host image from (pattern, seed); the same
 * arguments always give the same pixels. Values span the type's natural
 * range: 0..255 for u8 and floats, 0..65535 for u16, -32768..32767 for s16. */
void sup_pattern_fill(clik_image *img, sup_pattern pattern, uint64_t seed);

/* A 64-bit generator (splitmix64) for tests that need their own values. */
uint64_t sup_rand_next(uint64_t *state);

#endif

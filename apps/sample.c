/*
 * Writes the synthetic sample image of the tool's tests (tests/cli.sh): a
 * low-contrast grey scene (smooth shading, edges, fine texture) squeezed
 * into values 70..150, which equalization spreads over 0..255.
 * Usage: clik-sample OUT.png    SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "imageio.h"
#include "patterns.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.png\n", argv[0]);
        return 2;
    }
    const int w = 640, h = 480, k = 10; /* the smooth field is k times coarser */
    clik_image smooth, edges, ramp, out;
    if (clik_image_alloc(&smooth, w / k + 2, h / k + 2, 1, CLIK_U8) ||
        clik_image_alloc(&edges, w, h, 1, CLIK_U8) || clik_image_alloc(&ramp, w, h, 1, CLIK_U8) ||
        clik_image_alloc(&out, w, h, 1, CLIK_U8)) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    sup_pattern_fill(&smooth, SUP_PATTERN_SMOOTH, 2024);
    sup_pattern_fill(&edges, SUP_PATTERN_EDGES, 7);
    sup_pattern_fill(&ramp, SUP_PATTERN_GRADIENT, 1);
    uint64_t state = 99;
    const uint8_t *sm = smooth.data;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            /* Bilinear sample of the coarse field: broad soft shapes. */
            int gx = x / k, gy = y / k, fx = x % k, fy = y % k, gw = (int)smooth.stride;
            int s =
                (sm[gy * gw + gx] * (k - fx) * (k - fy) + sm[gy * gw + gx + 1] * fx * (k - fy) +
                 sm[(gy + 1) * gw + gx] * (k - fx) * fy + sm[(gy + 1) * gw + gx + 1] * fx * fy) /
                (k * k);
            int i = y * w + x;
            int v = (2 * s + ((uint8_t *)edges.data)[i] + ((uint8_t *)ramp.data)[i]) / 4;
            v = 70 + v * 80 / 255 + (int)(sup_rand_next(&state) % 7) - 3;
            ((uint8_t *)out.data)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    char err[512];
    clik_status st = clikio_write(argv[1], &out, 0, err, sizeof(err));
    if (st != CLIK_OK)
        fprintf(stderr, "%s: %s\n", argv[0], err);
    clik_image_free(&smooth);
    clik_image_free(&edges);
    clik_image_free(&ramp);
    clik_image_free(&out);
    return st == CLIK_OK ? 0 : 1;
}

/*
 * Makes the second frame of the README's optical flow example: the photograph
 * moved by a known smooth affine motion, and that motion as the exact
 * ground-truth flow (a Middlebury .flo; Baker et al. 2011, section 3).
 *
 * The motion takes pixel x of the photograph (pixel centres at integers) to
 * x' = c + M (x - c) + t, with c the image centre, M a zoom by ZOOM times a
 * rotation by ANGLE_DEG degrees and t the translation (TX, TY). In the flow
 * convention of `clik flow` (I0(x) matches I1(x + w(x))) the truth at x is
 * w(x) = x' - x; where x' falls outside the frame, w is unknown (1e10, as
 * Middlebury marks it). The frame is I1(y) = I0(c + M^-1 (y - c - t)), each
 * channel sampled by the Keys (1981) cubic convolution with a = -0.5 (the
 * replicated border past the photograph's edge), rounded to 8 bits.
 *
 * Usage: clik-photo-motion PHOTO MOVED.png TRUTH.flo
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>

#include "imageio.h"

#define TX        2.5
#define TY        (-1.5)
#define ANGLE_DEG 0.75
#define ZOOM      1.01
#define UNKNOWN   1e10f

/* Keys' cubic convolution kernel, a = -0.5, at distance d (|d| < 2). */
static double keys(double d)
{
    d = fabs(d);
    if (d < 1)
        return (1.5 * d - 2.5) * d * d + 1;
    if (d < 2)
        return ((-0.5 * d + 2.5) * d - 4) * d + 2;
    return 0;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Channel ch of src at (sx, sy), by the 4 x 4 cubic convolution. */
static double sample(const clik_image *src, double sx, double sy, int ch)
{
    int x0 = (int)floor(sx), y0 = (int)floor(sy);
    double sum = 0;
    for (int j = -1; j <= 2; j++) {
        double wy = keys(sy - (y0 + j));
        const uint8_t *row =
            (const uint8_t *)src->data + (size_t)clampi(y0 + j, 0, src->height - 1) * src->stride;
        for (int i = -1; i <= 2; i++)
            sum += wy * keys(sx - (x0 + i)) *
                   row[(size_t)clampi(x0 + i, 0, src->width - 1) * src->channels + ch];
    }
    return sum;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s PHOTO MOVED.png TRUTH.flo\n", argv[0]);
        return 2;
    }
    char err[512];
    clik_image src, moved = {0}, truth = {0};
    clik_status st = clikio_read(argv[1], &src, NULL, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 1;
    }
    if (src.type != CLIK_U8 || (src.channels != 1 && src.channels != 4)) {
        fprintf(stderr, "%s: %s: an 8-bit grey or colour image without alpha, please\n", argv[0],
                argv[1]);
        clik_image_free(&src);
        return 1;
    }
    if (clik_image_alloc(&moved, src.width, src.height, src.channels, CLIK_U8) ||
        clik_image_alloc(&truth, src.width, src.height, 2, CLIK_F32)) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        clik_image_free(&src);
        clik_image_free(&moved);
        return 1;
    }
    const double pi = 3.14159265358979323846, a = ANGLE_DEG * pi / 180;
    const double m00 = ZOOM * cos(a), m01 = -ZOOM * sin(a), m10 = ZOOM * sin(a),
                 m11 = ZOOM * cos(a);
    const double det = m00 * m11 - m01 * m10;
    const double cx = (src.width - 1) / 2.0, cy = (src.height - 1) / 2.0;
    for (int y = 0; y < src.height; y++) {
        uint8_t *out = (uint8_t *)moved.data + (size_t)y * moved.stride;
        float *w = (float *)((uint8_t *)truth.data + (size_t)y * truth.stride);
        for (int x = 0; x < src.width; x++) {
            /* The truth at x of I0: where the motion takes it. */
            double dx = x - cx, dy = y - cy;
            double px = cx + m00 * dx + m01 * dy + TX, py = cy + m10 * dx + m11 * dy + TY;
            int inside = px >= 0 && px <= src.width - 1 && py >= 0 && py <= src.height - 1;
            w[2 * x] = inside ? (float)(px - x) : UNKNOWN;
            w[2 * x + 1] = inside ? (float)(py - y) : UNKNOWN;
            /* I1 here: I0 at the point that the motion brings here. */
            double ex = dx - TX, ey = dy - TY;
            double sx = cx + (m11 * ex - m01 * ey) / det, sy = cy + (-m10 * ex + m00 * ey) / det;
            for (int ch = 0; ch < src.channels; ch++) {
                double v = src.channels == 4 && ch == 3 ? 255 : sample(&src, sx, sy, ch);
                out[x * src.channels + ch] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
            }
        }
    }
    st = clikio_write(argv[2], &moved, 0, err, sizeof(err));
    if (st == CLIK_OK)
        st = clikio_write(argv[3], &truth, 0, err, sizeof(err));
    if (st != CLIK_OK)
        fprintf(stderr, "%s: %s\n", argv[0], err);
    clik_image_free(&src);
    clik_image_free(&moved);
    clik_image_free(&truth);
    return st == CLIK_OK ? 0 : 1;
}

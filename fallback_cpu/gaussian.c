/*
 * Gaussian blur weights (gaussian.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "gaussian.h"

#include <math.h>

#include "clik.h"

void clik__gaussian_weights(int ksize, double sigma, float *weights)
{
    /* OpenCV's getGaussianKernel: fixed tables (in 256ths) for the small
     * sizes when sigma is not given; OpenCV 4 has one for 9 taps too. */
    static const double small[5][9] = {
        {256},
        {64, 128, 64},
        {16, 64, 96, 64, 16},
        {8, 28, 56, 72, 56, 28, 8},
        {4, 13, 30, 51, 60, 51, 30, 13, 4},
    };
    double w[CLIK_BLUR_MAX_KSIZE], sum = 0.0;
    const int r = ksize / 2;
    if (sigma <= 0.0 && ksize <= 9) {
        for (int i = 0; i < ksize; i++)
            w[i] = small[r][i];
        sum = 256.0;
    } else {
        const double s = sigma > 0.0 ? sigma : 0.3 * ((ksize - 1) * 0.5 - 1.0) + 0.8;
        for (int i = 0; i < ksize; i++) {
            const double x = i - r;
            /* The centre is 1 even when 2 s^2 underflows to 0. */
            w[i] = x == 0.0 ? 1.0 : exp(-(x * x) / (2.0 * s * s));
            sum += w[i];
        }
    }
    const double scale = 1.0 / sum;
    for (int i = 0; i < ksize; i++)
        weights[i] = (float)(w[i] * scale);
}

/*
 * Gaussian blur weights, a pure helper below the library and the CPU paths:
 * lib/ops/filter.c (clik_gaussian_weights, the blur) and lib/ops/fusion.c
 * (the fusion plan, which carries them to its kernels and its NEON path)
 * compute them here. The scalar oracles compute their own.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_GAUSSIAN_H
#define CLIK_GAUSSIAN_H

/* ksize weights (odd, 1..CLIK_BLUR_MAX_KSIZE) of a Gaussian of sigma,
 * normalised to sum 1, as OpenCV's getGaussianKernel gives them: its fixed
 * tables for 1..9 taps when sigma <= 0, else exp(-x^2 / (2 s^2)) with s =
 * sigma, or 0.3 ((ksize - 1) / 2 - 1) + 0.8 for sigma <= 0. The caller
 * checks the arguments. */
void clik__gaussian_weights(int ksize, double sigma, float *weights);

#endif

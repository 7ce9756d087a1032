/* Placeholder: filter family. SPDX-License-Identifier: BSD-2-Clause */
#include "internal.h"

clik_status clik_gaussian_weights(int ksize, double sigma, float *weights)
{
    (void)ksize, (void)sigma, (void)weights;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_gaussian_blur(clik_context *ctx, const clik_image *src, clik_image *dst, int ksize,
                               double sigma)
{
    (void)ctx, (void)src, (void)dst, (void)ksize, (void)sigma;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_gray(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    (void)ctx, (void)src, (void)dst;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

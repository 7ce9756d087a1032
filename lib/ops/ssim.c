/* Placeholder: SSIM family. SPDX-License-Identifier: BSD-2-Clause */
#include "internal.h"

clik_status clik_ssim(clik_context *ctx, const clik_image *a, const clik_image *b, clik_image *map,
                      double *mean)
{
    (void)ctx, (void)a, (void)b, (void)map, (void)mean;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_ssim_tiles(clik_context *ctx, const clik_image *a, const clik_image *b, int tile,
                            clik_image *map)
{
    (void)ctx, (void)a, (void)b, (void)tile, (void)map;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

/* Placeholder: resize family. SPDX-License-Identifier: BSD-2-Clause */
#include "internal.h"

const char *clik_interp_name(clik_interp method)
{
    (void)method;
    return "unknown";
}

clik_status clik_resize_size(int width, int height, double scale_x, double scale_y, int *out_width,
                             int *out_height)
{
    (void)width, (void)height, (void)scale_x, (void)scale_y, (void)out_width, (void)out_height;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_resize(clik_context *ctx, const clik_image *src, clik_image *dst,
                        clik_interp method)
{
    (void)ctx, (void)src, (void)dst, (void)method;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

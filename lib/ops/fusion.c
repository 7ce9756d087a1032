/* Placeholder: fusion family. SPDX-License-Identifier: BSD-2-Clause */
#include "internal.h"

void clik_fusion_options_init(clik_fusion_options *opt)
{
    (void)opt;
}

clik_status clik_upscale_fusion(clik_context *ctx, const clik_image *src, clik_image *dst,
                                const clik_fusion_options *opt, clik_image *artifact_map)
{
    (void)ctx, (void)src, (void)dst, (void)opt, (void)artifact_map;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_fusion_stream_create(clik_context *ctx, int width, int height, int scale,
                                      const clik_fusion_options *opt, int depth,
                                      clik_fusion_stream **stream)
{
    (void)ctx, (void)width, (void)height, (void)scale, (void)opt, (void)depth, (void)stream;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_fusion_stream_submit(clik_fusion_stream *stream, const clik_image *src,
                                      clik_image *dst, clik_image *artifact_map, uint64_t *ticket)
{
    (void)stream, (void)src, (void)dst, (void)artifact_map, (void)ticket;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

clik_status clik_fusion_stream_wait(clik_fusion_stream *stream, uint64_t ticket)
{
    (void)stream, (void)ticket;
    return CLIK_ERR_UNSUPPORTED_FORMAT;
}

void clik_fusion_stream_destroy(clik_fusion_stream *stream)
{
    (void)stream;
}

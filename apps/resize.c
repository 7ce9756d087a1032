/* clik resize, and the resampling pieces that clik upscale shares.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- shared with filter.c and fusion.c ------------------------------------------------- */

/* A method name of clik_resize; returns 1 on success. */
int resize_parse_method(const char *text, clik_interp *method)
{
    static const clik_interp all[] = {CLIK_INTERP_NEAREST, CLIK_INTERP_BILINEAR,
                                      CLIK_INTERP_BICUBIC};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, clik_interp_name(all[i])) == 0) {
            *method = all[i];
            return 1;
        }
    return 0;
}

/* --scale: a finite number above 0; prints the problem on failure. */
int resize_parse_scale(const char *cmd, const char *text, double *scale)
{
    if (!text) {
        fprintf(stderr, "clik %s: --scale is missing\n", cmd);
        return CLI_USAGE;
    }
    if (!cli_parse_number(text, scale) || *scale <= 0) {
        fprintf(stderr, "clik %s: --scale %s: expected a number above 0\n", cmd, text);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* Grey (1 channel) or grey + alpha (2) as RGBA: (g, g, g, 255 or alpha). */
clik_status rgba_expand(const clik_image *src, clik_image *rgba)
{
    clik_status st = clik_image_alloc(rgba, src->width, src->height, 4, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *out = (uint8_t *)rgba->data + (size_t)y * rgba->stride;
        for (int x = 0; x < src->width; x++, in += src->channels, out += 4) {
            out[0] = out[1] = out[2] = in[0];
            out[3] = src->channels == 2 ? in[1] : 255;
        }
    }
    return CLIK_OK;
}

/* The inverse of rgba_expand() into dst (1 or 2 channels, rgba's size): red is
 * the grey value, as every operation here treats the channels alike. */
void rgba_collapse(const clik_image *rgba, clik_image *dst)
{
    for (int y = 0; y < dst->height; y++) {
        const uint8_t *in = (const uint8_t *)rgba->data + (size_t)y * rgba->stride;
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++, in += 4, out += dst->channels) {
            out[0] = in[0];
            if (dst->channels == 2)
                out[1] = in[3];
        }
    }
}

/* clik_resize for every channel count the image files give: 1 and 4 as they
 * are, grey + alpha through RGBA (the library resamples 1 or 4 channels). */
clik_status resize_any(clik_context *ctx, const clik_image *src, clik_image *dst,
                       clik_interp method)
{
    if (src->channels != 2)
        return clik_resize(ctx, src, dst, method);
    clik_image in = {0}, out = {0};
    clik_status st = rgba_expand(src, &in);
    if (st == CLIK_OK)
        st = clik_image_alloc(&out, dst->width, dst->height, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_resize(ctx, &in, &out, method);
    if (st == CLIK_OK)
        rgba_collapse(&out, dst);
    clik_image_free(&out);
    clik_image_free(&in);
    return st;
}

/* ---- clik resize ------------------------------------------------------------------- */

static const char *const resize_usage =
    "usage: clik resize IN OUT (--scale S | --size WxH) [--method M] [--device SPEC]\n"
    "Resamples IN to S times its size (each side rounded to the nearest integer, as\n"
    "OpenCV's resize with fx = fy = S) or to W x H pixels (sides up to 2^20). M:\n"
    "  nearest   source pixel floor(x * W / W'), exactly OpenCV's INTER_NEAREST\n"
    "  bilinear  pixel centres at half-integers, borders replicated (INTER_LINEAR)\n"
    "  bicubic   the default; Keys' kernel with A = -0.75 (INTER_CUBIC)\n"
    "bilinear and bicubic are within +-1 of OpenCV. Grey stays grey and alpha is\n"
    "resampled with the colours. Files by extension: PNG, JPEG, PGM/PPM, or .npy.\n"
    "OUT may be IN: the result goes to a temporary file that is then renamed over it.\n";

int cmd_resize(int argc, char **argv)
{
    const char *scale_text = NULL, *size_text = NULL, *method_text = "bicubic";
    const cli_option options[] = {{"--scale", &scale_text, NULL},
                                  {"--size", &size_text, NULL},
                                  {"--method", &method_text, NULL},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, resize_usage);
    if (rc != CLI_OK || args.help)
        return rc;
    if (!scale_text == !size_text) {
        fprintf(stderr, "clik resize: give either --scale or --size\n%s", resize_usage);
        return CLI_USAGE;
    }
    clik_interp method;
    double scale = 0;
    int width = 0, height = 0;
    if (!resize_parse_method(method_text, &method)) {
        fprintf(stderr, "clik resize: --method %s: expected nearest, bilinear or bicubic\n",
                method_text);
        return CLI_USAGE;
    }
    if (scale_text && (rc = resize_parse_scale("resize", scale_text, &scale)) != CLI_OK)
        return rc;
    if (size_text && !cli_parse_size(size_text, &width, &height)) {
        fprintf(stderr, "clik resize: --size %s: expected WxH, each side from 1 to %d\n", size_text,
                1 << 20);
        return CLI_USAGE;
    }
    clik_image img, out = {0};
    int had_alpha = 0;
    if (cli_read_u8("resize", args.positional[0], &img, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    clik_status st = CLIK_OK;
    if (scale_text) {
        st = clik_resize_size(img.width, img.height, scale, scale, &width, &height);
        if (st != CLIK_OK)
            fprintf(stderr, "clik resize: %s: a %dx%d image scaled by %g: %s\n", args.positional[0],
                    img.width, img.height, scale, clik_status_str(st));
    }
    if (st == CLIK_OK) {
        st = clik_image_alloc(&out, width, height, img.channels, CLIK_U8);
        if (st != CLIK_OK)
            fprintf(stderr, "clik resize: %s: a %dx%d result: %s\n", args.positional[0], width,
                    height, clik_status_str(st));
    }
    clik_context *ctx = NULL;
    rc = st != CLIK_OK ? CLI_FAILED : cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        st = resize_any(ctx, &img, &out, method);
        rc = st != CLIK_OK ? cli_error("resize", ctx, st, args.positional[0])
                           : cli_write_image("resize", args.positional[1], &out, had_alpha);
    }
    clik_context_destroy(ctx);
    clik_image_free(&out);
    clik_image_free(&img);
    return rc;
}

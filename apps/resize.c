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

/* Grey (1 channel), grey + alpha (2) or RGB (3) as RGBA: (g, g, g, 255),
 * (g, g, g, alpha) or (r, g, b, 255). */
clik_status rgba_expand(const clik_image *src, clik_image *rgba)
{
    clik_status st = clik_image_alloc(rgba, src->width, src->height, 4, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    const int ch = src->channels;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *out = (uint8_t *)rgba->data + (size_t)y * rgba->stride;
        for (int x = 0; x < src->width; x++, in += ch, out += 4) {
            out[0] = in[0];
            out[1] = in[ch == 3 ? 1 : 0];
            out[2] = in[ch == 3 ? 2 : 0];
            out[3] = ch == 2 ? in[1] : 255;
        }
    }
    return CLIK_OK;
}

/* The inverse of rgba_expand() into dst (1, 2 or 3 channels, rgba's size):
 * red is the grey value, as every operation here treats the channels
 * alike. */
void rgba_collapse(const clik_image *rgba, clik_image *dst)
{
    const int ch = dst->channels;
    for (int y = 0; y < dst->height; y++) {
        const uint8_t *in = (const uint8_t *)rgba->data + (size_t)y * rgba->stride;
        uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < dst->width; x++, in += 4, out += ch) {
            out[0] = in[0];
            if (ch == 2)
                out[1] = in[3];
            else if (ch == 3) {
                out[1] = in[1];
                out[2] = in[2];
            }
        }
    }
}

/* rgba_collapse() into a new grey + alpha image *grey; a failure is
 * reported as cmd's about path. */
int rgba_collapse_new(const char *cmd, const clik_image *rgba, clik_image *grey, const char *path)
{
    clik_status st = clik_image_alloc(grey, rgba->width, rgba->height, 2, CLIK_U8);
    if (st != CLIK_OK)
        return cli_error(cmd, NULL, st, path);
    rgba_collapse(rgba, grey);
    return CLI_OK;
}

/* One resize: by the coordinate scale (clik_resize_scaled), or with scale 0
 * to dst's size (clik_resize). */
static clik_status resize_one(clik_context *ctx, const clik_image *src, clik_image *dst,
                              clik_interp method, double scale)
{
    if (scale > 0.0)
        return clik_resize_scaled(ctx, src, dst, method, scale, scale);
    return clik_resize(ctx, src, dst, method);
}

/* clik_resize (scale 0) or clik_resize_scaled for every channel count the
 * image files give: 1 and 4 as they are, grey + alpha through RGBA (the
 * library resamples 1 or 4 channels). */
clik_status resize_any(clik_context *ctx, const clik_image *src, clik_image *dst,
                       clik_interp method, double scale)
{
    if (src->channels != 2)
        return resize_one(ctx, src, dst, method, scale);
    if (src->type != CLIK_U8)
        return CLIK_ERR_UNSUPPORTED_FORMAT; /* grey + alpha: 8-bit only */
    clik_image in = {0}, out = {0};
    clik_status st = rgba_expand(src, &in);
    if (st == CLIK_OK)
        st = clik_image_alloc(&out, dst->width, dst->height, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = resize_one(ctx, &in, &out, method, scale);
    if (st == CLIK_OK)
        rgba_collapse(&out, dst);
    cli_images_free(&out, &in, NULL);
    return st;
}

/* ---- clik resize ------------------------------------------------------------------- */

static const char *const resize_usage =
    "usage: clik resize IN OUT (--scale S | --size WxH) [--method M] [--antialias]\n"
    "                   [--device SPEC]\n"
    "Resamples IN to S times its size or to W x H pixels (sides up to 2^20). With\n"
    "--scale, as OpenCV's resize(IN, None, fx=S, fy=S): each side rounded to the\n"
    "nearest integer, and output x taken from the source at x / S; with --size,\n"
    "as resize(IN, (W, H)): at x * W_in / W. M:\n"
    "  nearest   source pixel floor(x / S) or floor(x * W_in / W), exactly OpenCV's\n"
    "            INTER_NEAREST\n"
    "  bilinear  pixel centres at half-integers, borders replicated (INTER_LINEAR)\n"
    "  bicubic   the default; Keys' kernel with A = -0.75 (INTER_CUBIC)\n"
    "bilinear and bicubic are within +-1 of OpenCV.\n"
    "--antialias (bicubic only): MATLAB's imresize(IN, S or [H W], 'bicubic'), which\n"
    "  antialiases: Keys' kernel with A = -0.5, widened by 1/s on a side that\n"
    "  shrinks by s, weights normalised, borders mirrored (half-sample); within\n"
    "  +-1 of MATLAB's.\n"
    "Grey stays grey and alpha is resampled with the colours. Files:\n"
    "PNG, JPEG, PGM/PPM, or .npy.\n"
    "OUT may be IN: the result goes to a temporary file that is then renamed over it.\n";

typedef struct resize_data {
    const char *scale_text, *size_text, *method_text;
    int antialias;
    clik_interp method;
    double scale;
    int width, height;
} resize_data;

static int resize_check(cli_image_io *io)
{
    resize_data *d = io->data;
    int rc;
    if (!d->scale_text == !d->size_text) {
        fprintf(stderr, "clik resize: give either --scale or --size\n%s", resize_usage);
        return CLI_USAGE;
    }
    if (!resize_parse_method(d->method_text, &d->method)) {
        fprintf(stderr, "clik resize: --method %s: expected nearest, bilinear or bicubic\n",
                d->method_text);
        return CLI_USAGE;
    }
    if (d->antialias && d->method != CLIK_INTERP_BICUBIC) {
        fprintf(stderr,
                "clik resize: --antialias is MATLAB's antialiased bicubic: it goes with "
                "--method bicubic, not %s\n",
                d->method_text);
        return CLI_USAGE;
    }
    if (d->antialias)
        d->method = CLIK_INTERP_BICUBIC_AA;
    if (d->scale_text && (rc = resize_parse_scale("resize", d->scale_text, &d->scale)) != CLI_OK)
        return rc;
    if (d->size_text && !cli_parse_size(d->size_text, &d->width, &d->height)) {
        fprintf(stderr, "clik resize: --size %s: expected WxH, each side from 1 to %d\n",
                d->size_text, 1 << 20);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The result, of the size asked for or of the scaled size. */
static int resize_prepare(cli_image_io *io)
{
    resize_data *d = io->data;
    const clik_image *img = &io->img;
    clik_status st = CLIK_OK;
    if (d->scale_text) {
        st = clik_resize_size(img->width, img->height, d->scale, d->scale, &d->width, &d->height);
        if (st != CLIK_OK)
            fprintf(stderr, "clik resize: %s: a %dx%d image scaled by %g: %s\n", io->in_path,
                    img->width, img->height, d->scale, clik_status_str(st));
    }
    if (st == CLIK_OK) {
        st = clik_image_alloc(&io->out, d->width, d->height, img->channels, img->type);
        if (st != CLIK_OK)
            fprintf(stderr, "clik resize: %s: a %dx%d result: %s\n", io->in_path, d->width,
                    d->height, clik_status_str(st));
    }
    return st != CLIK_OK ? CLI_FAILED : CLI_OK;
}

static clik_status resize_run(clik_context *ctx, cli_image_io *io)
{
    const resize_data *d = io->data;
    return resize_any(ctx, &io->img, &io->out, d->method, d->scale_text ? d->scale : 0.0);
}

int cmd_resize(int argc, char **argv)
{
    static const cli_image_op op = {.usage = resize_usage,
                                    .npositional = 2,
                                    .check = resize_check,
                                    .prepare = resize_prepare,
                                    .run = resize_run,
                                    .takes_f32 = 1};
    resize_data d = {.method_text = "bicubic"};
    const cli_option options[] = {{"--scale", &d.scale_text, NULL},
                                  {"--size", &d.size_text, NULL},
                                  {"--method", &d.method_text, NULL},
                                  {"--antialias", NULL, &d.antialias},
                                  {NULL, NULL, NULL}};
    return cli_image_main(&op, argc, argv, options, &d);
}

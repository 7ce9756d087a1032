/* clik yuv. SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "imageio.h"

static const char *const yuv_usage =
    "usage: clik yuv IN OUT [--size WxH] [--format nv21|nv12|i420]\n"
    "                [--space bt601|bt601-full|bt709|bt709-full] [--frame N]\n"
    "                [--resize WxH [--method nearest|bilinear|bicubic|bicubic-aa]]\n"
    "                [--upscale 2|3|4 [--net lapar-a|lapar-b|lapar-c|FILE.lapar]]\n"
    "                [--device SPEC]\n"
    "A YUV 4:2:0 camera frame to an image, or an image to a frame. A frame is read\n"
    "from IN.yuv (raw frames back to back, each in OpenCV's layout: H rows of Y,\n"
    "then the chroma; --size says how large, --frame N which one, from 0) or from\n"
    "any grey IN (a (H * 3 / 2, W) uint8 .npy as OpenCV stores a frame, or such a\n"
    "PGM or PNG); it is written to OUT as RGB (a .pgm gets its luma). A colour\n"
    "IN becomes a frame: OUT.yuv (raw) or OUT.npy (the array); its width and\n"
    "height must be even. --format: nv21 (Android's camera; the default), nv12\n"
    "(interleaved U V), i420 (U plane, then V plane). --space: bt601, video range\n"
    "(the default: OpenCV's COLOR_YUV2RGB_NV21 and COLOR_RGB2YUV_I420, their\n"
    "bytes), bt601-full (JPEG's), bt709, bt709-full. --resize WxH (even sides)\n"
    "resamples a frame read from IN plane by plane (luma to WxH, chroma to half of\n"
    "it; --method, default bilinear) and writes the frame to OUT.yuv or OUT.npy, or\n"
    "its RGB to any other OUT. --upscale S does the same with the luma upscaled S\n"
    "times by the LAPAR model (as clik upscale --method lapar) and the chroma bicubic;\n"
    "with --net, the luma by a LAPAR network instead: a released one (S 2 or 4) or a\n"
    "network file (as clik upscale --method lapar-net --model).\n";

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* "WxH" into *w, *h. */
static int parse_size(const char *text, int *w, int *h)
{
    char x;
    int n = 0;
    return sscanf(text, "%d%c%d%n", w, &x, h, &n) == 3 && (x == 'x' || x == 'X') && text[n] == '\0';
}

typedef struct yuv_opts {
    clik_yuv_format format;
    clik_yuv_space space;
    int width, height, frame;
    int rw, rh;  /* --resize or --upscale: the frame's new size, or 0 */
    int upscale; /* --upscale S, or 0 */
    clik_interp method;
} yuv_opts;

/* --resize WxH, --method and --upscale S into o. */
static int parse_resize(const char *resize_text, const char *method_text, const char *upscale_text,
                        yuv_opts *o)
{
    o->rw = o->rh = o->upscale = 0;
    o->method = CLIK_INTERP_BILINEAR;
    if (upscale_text) {
        if (resize_text || method_text) {
            fprintf(stderr, "clik yuv: --upscale or --resize (with --method), not both\n");
            return CLI_USAGE;
        }
        if (!cli_parse_count(upscale_text, 2, 4, &o->upscale)) {
            fprintf(stderr, "clik yuv: --upscale %s: expected 2, 3 or 4\n", upscale_text);
            return CLI_USAGE;
        }
        return CLI_OK;
    }
    if (!resize_text) {
        if (!method_text)
            return CLI_OK;
        fprintf(stderr, "clik yuv: --method needs --resize\n");
        return CLI_USAGE;
    }
    if (!parse_size(resize_text, &o->rw, &o->rh) || o->rw < 2 || o->rh < 2 || o->rw % 2 != 0 ||
        o->rh % 2 != 0) {
        fprintf(stderr, "clik yuv: --resize %s: expected WxH with even W and H from 2\n",
                resize_text);
        return CLI_USAGE;
    }
    if (method_text && strcmp(method_text, "bicubic-aa") == 0)
        o->method = CLIK_INTERP_BICUBIC_AA;
    else if (method_text && !resize_parse_method(method_text, &o->method)) {
        fprintf(stderr,
                "clik yuv: --method %s: expected nearest, bilinear, bicubic or bicubic-aa\n",
                method_text);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int parse_opts(const char *size_text, const char *format_text, const char *space_text,
                      const char *frame_text, yuv_opts *o)
{
    static const char *const formats[] = {"nv12", "nv21", "i420"};
    static const char *const spaces[] = {"bt601", "bt601-full", "bt709", "bt709-full"};
    int f = 1, s = 0;
    int rc = cli_parse_choice("yuv", "--format", format_text, formats, 3, &f);
    if (rc == CLI_OK)
        rc = cli_parse_choice("yuv", "--space", space_text, spaces, 4, &s);
    o->format = (clik_yuv_format)(f + 1);
    o->space = (clik_yuv_space)s;
    o->width = o->height = 0;
    if (rc == CLI_OK && size_text && !parse_size(size_text, &o->width, &o->height)) {
        fprintf(stderr, "clik yuv: --size %s: expected WxH, as 1920x1080\n", size_text);
        rc = CLI_USAGE;
    }
    o->frame = 0;
    if (rc == CLI_OK && frame_text && !cli_parse_count(frame_text, 0, 0x7fffffff, &o->frame)) {
        fprintf(stderr, "clik yuv: --frame %s: expected a frame number from 0\n", frame_text);
        rc = CLI_USAGE;
    }
    return rc;
}

/* The frame IN holds, as a (H * 3 / 2) x W grey image. */
static int read_frame(const char *path, const yuv_opts *o, clik_image *img)
{
    if (ends_with(path, ".yuv")) {
        if (o->width == 0) {
            fprintf(stderr, "clik yuv: %s: a raw frame needs --size WxH\n", path);
            return CLI_USAGE;
        }
        char err[512];
        const clik_status st =
            clikio_read_yuv(path, o->width, o->height, o->frame, img, NULL, err, sizeof(err));
        if (st != CLIK_OK) {
            fprintf(stderr, "clik yuv: %s\n", err);
            return st == CLIK_ERR_INVALID_SIZE || st == CLIK_ERR_INVALID_ARG ? CLI_USAGE
                                                                             : CLI_FAILED;
        }
        return CLI_OK;
    }
    return cli_read_u8("yuv", path, img, NULL);
}

int cmd_yuv(int argc, char **argv)
{
    const char *size_text = NULL, *format_text = "nv21", *space_text = "bt601", *frame_text = NULL;
    const char *resize_text = NULL, *method_text = NULL, *upscale_text = NULL, *net_text = NULL;
    const cli_option options[] = {{"--size", &size_text, NULL},
                                  {"--format", &format_text, NULL},
                                  {"--space", &space_text, NULL},
                                  {"--frame", &frame_text, NULL},
                                  {"--resize", &resize_text, NULL},
                                  {"--method", &method_text, NULL},
                                  {"--upscale", &upscale_text, NULL},
                                  {"--net", &net_text, NULL},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, yuv_usage);
    if (rc != CLI_OK)
        return rc;
    yuv_opts o;
    if ((rc = parse_opts(size_text, format_text, space_text, frame_text, &o)) != CLI_OK ||
        (rc = parse_resize(resize_text, method_text, upscale_text, &o)) != CLI_OK)
        return rc;
    if (net_text && !upscale_text) {
        fprintf(stderr, "clik yuv: --net needs --upscale S\n");
        return CLI_USAGE;
    }
    const char *in = args.positional[0], *out = args.positional[1];
    cli_outputs outs;
    cli_outputs_init(&outs, "yuv");
    rc = cli_outputs_plan(&outs, args.positional, 1, &out, 1);
    clik_image src = {0}, dst = {0};
    if (rc == CLI_OK)
        rc = read_frame(in, &o, &src);
    /* A grey input is a frame; a colour one becomes a frame. */
    const int decode = rc == CLI_OK && src.channels == 1;
    if (rc == CLI_OK && !decode && !ends_with(out, ".yuv") && !clikio_writes_npy(out)) {
        fprintf(stderr, "clik yuv: %s: a colour image becomes a frame: OUT must be .yuv or .npy\n",
                out);
        rc = CLI_USAGE;
    }
    if (rc == CLI_OK && decode && (src.height % 3 != 0 || src.width % 2 != 0)) {
        fprintf(stderr,
                "clik yuv: %s: a %dx%d grey array is not a 4:2:0 frame (W even, H * 3 / 2 "
                "rows, H even)\n",
                in, src.width, src.height);
        rc = CLI_USAGE;
    }
    if (rc == CLI_OK && !decode && (o.rw || o.upscale)) {
        fprintf(stderr, "clik yuv: %s: %s takes a frame (a grey IN or a .yuv)\n", in,
                o.upscale ? "--upscale" : "--resize");
        rc = CLI_USAGE;
    }
    const int w = src.width, h = decode ? src.height / 3 * 2 : src.height;
    if (o.upscale) {
        o.rw = w * o.upscale;
        o.rh = h * o.upscale;
    }
    /* --resize: the frame resampled into `sized`, then written or converted */
    const int frame_out = o.rw && (ends_with(out, ".yuv") || clikio_writes_npy(out));
    const int ow = o.rw ? o.rw : w, oh = o.rw ? o.rh : h;
    clik_yuv_image frame, sized;
    clik_image sized_bytes = {0};
    clik_status st = CLIK_OK;
    if (rc == CLI_OK && decode) {
        st = clik_yuv_wrap(&frame, o.format, w, h, src.data, src.stride);
        if (st == CLIK_OK && o.rw)
            st = clik_image_alloc(&sized_bytes, ow, oh / 2 * 3, 1, CLIK_U8);
        if (st == CLIK_OK && o.rw)
            st = clik_yuv_wrap(&sized, o.format, ow, oh, sized_bytes.data, sized_bytes.stride);
        if (st == CLIK_OK && !frame_out)
            st = clik_image_alloc(&dst, ow, oh, ends_with(out, ".pgm") ? 1 : 4, CLIK_U8);
    } else if (rc == CLI_OK) {
        st = clik_image_alloc(&dst, w, h / 2 * 3, 1, CLIK_U8);
        if (st == CLIK_OK)
            st = clik_yuv_wrap(&frame, o.format, w, h, dst.data, dst.stride);
    }
    if (rc == CLI_OK && st != CLIK_OK) {
        fprintf(stderr, "clik yuv: %s: %dx%d: %s%s\n", in, w, h, clik_status_str(st),
                st == CLIK_ERR_INVALID_SIZE ? " (a 4:2:0 frame's width and height are even)" : "");
        rc = st == CLIK_ERR_INVALID_SIZE ? CLI_USAGE : CLI_FAILED;
    }
    clik_context *ctx = NULL;
    clik_lapar_net *net = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK && net_text) {
        const int released = strcmp(net_text, "lapar-a") == 0 || strcmp(net_text, "lapar-b") == 0 ||
                             strcmp(net_text, "lapar-c") == 0;
        rc = cli_load_net(ctx, "yuv", net_text, released ? NULL : net_text, o.upscale, &net);
    }
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        if (decode && net)
            st = clik_yuv_upscale_lapar_net(ctx, &frame, &sized, net);
        else if (decode && o.upscale)
            st = clik_yuv_upscale_lapar(ctx, &frame, &sized, o.upscale, NULL);
        else if (decode && o.rw)
            st = clik_yuv_resize(ctx, &frame, &sized, o.method);
        if (st == CLIK_OK && !frame_out)
            st = decode ? clik_yuv_to_rgb(ctx, o.rw ? &sized : &frame, &dst, o.space)
                        : clik_rgb_to_yuv(ctx, &src, &frame, o.space);
        rc = cli_op_end("yuv", ctx, &clock, st, in);
    }
    /* the frame's bytes: a converted colour image, or a resized frame */
    const clik_image *bytes = frame_out ? &sized_bytes : &dst;
    if (rc == CLI_OK && (!decode || frame_out) && ends_with(out, ".yuv"))
        rc = cli_outputs_stage_bytes(&outs, 0, bytes->data, bytes->stride * (size_t)bytes->height);
    else if (rc == CLI_OK)
        rc = cli_outputs_stage(&outs, 0, bytes, 0);
    clik_lapar_net_free(net);
    return cli_finish(&outs, rc, ctx, &sized_bytes, &dst, &src, NULL);
}

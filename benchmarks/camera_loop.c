/*
 * clik-camera-loop: a camera's frame loop on the device. A sequence of NV21
 * frames (read from a raw .yuv file, or synthesised: a smooth texture that
 * moves by --motion DX,DY pixels a frame) sits in host memory; for each
 * frame, on one context:
 *
 *   upload    the frame's Y and VU planes into a device NV21 frame (two
 *             device frames in turn: this one and the one before it)
 *   flow      TV-L1 (clik_flow_tvl1) from the previous frame's luma to this
 *             frame's, both planes on the device (from the second frame on)
 *   upscale   x2 of the frame as a frame, plane by plane: clik_yuv_resize
 *             bilinear (--upscale resize, the default), the LAPAR model on
 *             the luma (clik_yuv_upscale_lapar, --upscale lapar) or the
 *             LAPAR-A network on the luma (clik_yuv_upscale_lapar_net,
 *             --upscale lapar-a)
 *   convert   the upscaled frame to RGBA (clik_yuv_to_rgb, BT.601)
 *   download  the RGBA frame and the flow
 *
 * Every intermediate stays on the device. The next frame's upload and
 * this frame's downloads are queued (clik_image_upload_async,
 * clik_image_download_async) and run alongside the kernels, into three
 * device frames and two of each output in turn; a frame ends when its
 * downloads' ticket is done. The report gives frames per second over the
 * whole loop and the median time between frames' ends. --serial finishes
 * each step before the next (clik_context_finish) and gives each step's
 * median too.
 *
 * --out DIR writes what benchmarks/camera_loop_check.py checks against
 * OpenCV: each input frame (DIR/frame-NNN.yuv), its upscaled frame
 * (up-NNN.yuv, downloaded for the check only), its RGBA (rgba-NNN.raw) and
 * the flow to it (flow-NNN.flo, Middlebury), and DIR/meta.txt.
 * --inject-mismatch spoils one byte of the last RGBA frame written, to
 * show that the check fails.
 *
 * --conversions times the YUV conversions instead: NV21, NV12 and I420
 * frames to RGBA, RGB and grey, and RGBA to NV21 and I420, at --size on
 * device images (call + clik_context_finish, median of --reps after
 * --warmup; and the process's CPU time a call, every thread's, the mean
 * of the timed runs), one line each.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clik.h"

#define MAX_FRAMES 10000

static const char *prog = "clik-camera-loop";

typedef struct options {
    const char *device;
    const char *input; /* raw NV21 frames; NULL: synthesised */
    const char *out;   /* --out DIR */
    int width, height, frames;
    double dx, dy;
    int lapar;              /* 0 bilinear resize, 1 the LAPAR model, 2 LAPAR-A */
    clik_flow_options flow; /* the library's defaults, or the --flow-* given */
    int inject;
    int conversions;
    int reps, warmup;
    int no_prepare;
    int serial;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --device SPEC       OpenCL device (as CLIK_DEVICE; default auto)\n"
            "  --size WxH          frame size, even (default 1280x720)\n"
            "  --frames N          frames (default 10)\n"
            "  --input FILE.yuv    raw NV21 frames of --size back to back, read into memory\n"
            "                      (default: synthesised, a texture moving by --motion)\n"
            "  --motion DX,DY      pixels a synthesised frame moves (default 1.5,0.75)\n"
            "  --upscale resize|lapar|lapar-a  x2 by bilinear resize (default), the LAPAR\n"
            "                      model or the LAPAR-A network (the luma; chroma bicubic)\n"
            "  --flow-scales N, --flow-warps N, --flow-iterations N  TV-L1 options\n"
            "                      (default the library's: 5 warps, at most 300 iterations)\n"
            "  --out DIR           write frames, upscaled frames, RGBA and flow for\n"
            "                      benchmarks/camera_loop_check.py\n"
            "  --inject-mismatch   spoil one byte of the last RGBA written (with --out)\n"
            "  --serial            each step finished before the next, and timed (default:\n"
            "                      the next frame's upload and this frame's downloads queued\n"
            "                      alongside the kernels)\n"
            "  --no-prepare        do not build the loop's programs before the first frame\n"
            "                      (their first calls then build them, inside the loop's time)\n"
            "  --conversions       time the YUV conversions at --size instead\n"
            "  --reps N, --warmup N  timed and untimed runs of --conversions (20, 3)\n",
            prog);
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){
        .width = 1280, .height = 720, .frames = 10, .dx = 1.5, .dy = 0.75, .reps = 20, .warmup = 3};
    clik_flow_options_init(&o->flow);
    const bench_flag flags[] = {{"--inject-mismatch", &o->inject, 1},
                                {"--no-prepare", &o->no_prepare, 1},
                                {"--serial", &o->serial, 1},
                                {"--conversions", &o->conversions, 1}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (bench_set_flag(a, flags, sizeof(flags) / sizeof(flags[0]))) {
            continue;
        }
        if (!v) {
            fprintf(stderr, "%s: %s needs a value\n", prog, a);
            return EXIT_USAGE;
        }
        i++;
        if (strcmp(a, "--device") == 0)
            o->device = v;
        else if (strcmp(a, "--input") == 0)
            o->input = v;
        else if (strcmp(a, "--out") == 0)
            o->out = v;
        else if (strcmp(a, "--size") == 0)
            bad = sscanf(v, "%dx%d", &o->width, &o->height) != 2 || o->width < 8 || o->height < 8 ||
                  o->width % 2 || o->height % 2 || o->width > 16384 || o->height > 16384;
        else if (strcmp(a, "--frames") == 0)
            bad = !bench_parse_int(v, 1, MAX_FRAMES, &o->frames);
        else if (strcmp(a, "--motion") == 0)
            bad = sscanf(v, "%lf,%lf", &o->dx, &o->dy) != 2 || fabs(o->dx) > 64 || fabs(o->dy) > 64;
        else if (strcmp(a, "--upscale") == 0) {
            bad = strcmp(v, "resize") != 0 && strcmp(v, "lapar") != 0 && strcmp(v, "lapar-a") != 0;
            o->lapar = strcmp(v, "lapar") == 0 ? 1 : strcmp(v, "lapar-a") == 0 ? 2 : 0;
        } else if (strcmp(a, "--flow-scales") == 0)
            bad = !bench_parse_int(v, 1, CLIK_FLOW_MAX_SCALES, &o->flow.scales);
        else if (strcmp(a, "--flow-warps") == 0)
            bad = !bench_parse_int(v, 1, 1000, &o->flow.warps);
        else if (strcmp(a, "--flow-iterations") == 0)
            bad = !bench_parse_int(v, 1, 100000, &o->flow.iterations);
        else if (strcmp(a, "--reps") == 0)
            bad = !bench_parse_int(v, 1, 100000, &o->reps);
        else if (strcmp(a, "--warmup") == 0)
            bad = !bench_parse_int(v, 0, 100000, &o->warmup);
        else {
            fprintf(stderr, "%s: unknown option %s\n", prog, a);
            usage(stderr);
            return EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "%s: bad value for %s: %s\n", prog, a, v);
            return EXIT_USAGE;
        }
    }
    if (o->inject && !o->out) {
        fprintf(stderr, "%s: --inject-mismatch needs --out\n", prog);
        return EXIT_USAGE;
    }
    return 0;
}

/* ---- frames ------------------------------------------------------------------------------- */

/* A smooth texture at (x, y): sums of sines, 0..255. */
static double texture(double x, double y, int c)
{
    const double a = 0.11 + 0.03 * c, b = 0.07 + 0.02 * c;
    return 128.0 + 50.0 * sin(a * x + 0.9 * c) * cos(b * y) + 30.0 * sin(0.031 * x + 0.047 * y) +
           20.0 * cos(0.23 * x - 0.17 * y + c);
}

static uint8_t clamp_u8(double v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
}

/* Frame t of the synthesised sequence, NV21 in OpenCV's layout: the
 * texture moved by t * (dx, dy). */
static void synthesise(uint8_t *f, int w, int h, int t, double dx, double dy)
{
    const double ox = t * dx, oy = t * dy;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            f[(size_t)y * w + x] = clamp_u8(texture(x - ox, y - oy, 0));
    uint8_t *vu = f + (size_t)w * h;
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++) {
            const double sx = 2 * x + 0.5 - ox, sy = 2 * y + 0.5 - oy;
            vu[(size_t)y * w + 2 * x] = clamp_u8(0.5 * texture(sx, sy, 2) + 64.0);
            vu[(size_t)y * w + 2 * x + 1] = clamp_u8(0.5 * texture(sx, sy, 1) + 64.0);
        }
}

/* The frames in memory: read from o->input or synthesised. */
static uint8_t *load_frames(const options *o, size_t frame_bytes)
{
    uint8_t *all = malloc(frame_bytes * (size_t)o->frames);
    if (!all) {
        fprintf(stderr, "%s: out of memory for %d frames\n", prog, o->frames);
        return NULL;
    }
    if (!o->input) {
        for (int t = 0; t < o->frames; t++)
            synthesise(all + frame_bytes * t, o->width, o->height, t, o->dx, o->dy);
        return all;
    }
    FILE *f = fopen(o->input, "rb");
    size_t got = f ? fread(all, frame_bytes, (size_t)o->frames, f) : 0;
    if (f)
        fclose(f);
    if (got != (size_t)o->frames) {
        fprintf(stderr, "%s: %s: cannot read %d frames of %dx%d NV21\n", prog, o->input, o->frames,
                o->width, o->height);
        free(all);
        return NULL;
    }
    return all;
}

static int write_file(const char *dir, const char *name, int t, const void *a, size_t na,
                      const void *b, size_t nb)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s-%03d.%s", dir, name, t,
             strcmp(name, "flow") == 0   ? "flo"
             : strcmp(name, "rgba") == 0 ? "raw"
                                         : "yuv");
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(a, 1, na, f) == na && (!nb || fwrite(b, 1, nb, f) == nb);
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "%s: cannot write %s\n", prog, path);
    return ok;
}

/* A device NV21 frame of w x h. */
static clik_status device_frame(clik_context *ctx, clik_yuv_image *f, int w, int h)
{
    memset(f, 0, sizeof(*f));
    f->format = CLIK_YUV_NV21;
    clik_status st = clik_image_create(ctx, &f->y, w, h, 1, CLIK_U8);
    return st == CLIK_OK ? clik_image_create(ctx, &f->uv, w / 2, h / 2, 2, CLIK_U8) : st;
}

static void frame_free(clik_yuv_image *f)
{
    clik_image_free(&f->y);
    clik_image_free(&f->uv);
    clik_image_free(&f->u);
    clik_image_free(&f->v);
}

/* ---- the loop ----------------------------------------------------------------------------- */

enum { S_UPLOAD, S_FLOW, S_UPSCALE, S_CONVERT, S_DOWNLOAD, S_COUNT };
static const char *const step_names[S_COUNT] = {"upload", "flow", "upscale", "convert", "download"};

/* --serial: the end of a timed step of a frame: its queued work finished
 * (while *st is CLIK_OK), *ms the time since *clock, and *clock now. */
static void step_done(const options *o, clik_context *ctx, clik_status *st, double *clock,
                      double *ms)
{
    if (!o->serial)
        return;
    if (*st == CLIK_OK)
        *st = clik_context_finish(ctx);
    const double now = bench_now_ms();
    *ms = now - *clock;
    *clock = now;
}

/* The loop's images: three device frames in turn (the previous one for
 * the flow, this one, the next one being uploaded), and two of each output
 * (one being written by this frame's kernels, the other being downloaded). */
typedef struct loop_images {
    clik_yuv_image dev[3], up;
    clik_image rgba[2], rgba_host[2], flow[2], flow_host[2];
    uint8_t *up_host[2]; /* --out: the upscaled frames, for the check */
    clik_image src;      /* the frames in memory of the context, when they fit one image */
} loop_images;

static clik_status loop_images_make(clik_context *ctx, const options *o, loop_images *li)
{
    const int w = o->width, h = o->height, W = 2 * w, H = 2 * h;
    clik_status st = CLIK_OK;
    for (int i = 0; i < 3 && st == CLIK_OK; i++)
        st = device_frame(ctx, &li->dev[i], w, h);
    if (st == CLIK_OK)
        st = device_frame(ctx, &li->up, W, H);
    for (int i = 0; i < 2 && st == CLIK_OK; i++) {
        st = clik_image_create(ctx, &li->rgba[i], W, H, 4, CLIK_U8);
        if (st == CLIK_OK) /* pinned on discrete GPUs: copies at the bus's rate */
            st = clik_image_alloc_on(ctx, &li->rgba_host[i], W, H, 4, CLIK_U8);
        if (st == CLIK_OK)
            st = clik_image_create(ctx, &li->flow[i], w, h, 2, CLIK_F32);
        if (st == CLIK_OK)
            st = clik_image_alloc_on(ctx, &li->flow_host[i], w, h, 2, CLIK_F32);
        if (st == CLIK_OK && o->out && !(li->up_host[i] = malloc(clik_yuv_size(W, H))))
            st = CLIK_ERR_NO_MEMORY;
        li->rgba[i].order = li->rgba_host[i].order = CLIK_ORDER_RGB;
    }
    return st;
}

static void loop_images_free(loop_images *li)
{
    for (int i = 0; i < 3; i++)
        frame_free(&li->dev[i]);
    frame_free(&li->up);
    for (int i = 0; i < 2; i++) {
        clik_image_free(&li->rgba[i]);
        clik_image_free(&li->rgba_host[i]);
        clik_image_free(&li->flow[i]);
        clik_image_free(&li->flow_host[i]);
        free(li->up_host[i]);
    }
    clik_image_free(&li->src);
}

/* The frames in memory the device reaches directly (clik_image_alloc_on:
 * pinned on discrete GPUs) when they fit one image, else plain memory. */
static uint8_t *frames_in_context(clik_context *ctx, const options *o, loop_images *li,
                                  uint8_t **plain)
{
    const size_t frame_bytes = clik_yuv_size(o->width, o->height);
    *plain = load_frames(o, frame_bytes);
    if (!*plain)
        return NULL;
    const long rows = (long)o->height * 3 / 2 * o->frames;
    if (rows > (1L << 20) || /* the library's largest side */
        clik_image_alloc_on(ctx, &li->src, o->width, (int)rows, 1, CLIK_U8) != CLIK_OK)
        return *plain;
    uint8_t *f = li->src.data; /* packed: width bytes a row */
    memcpy(f, *plain, frame_bytes * (size_t)o->frames);
    free(*plain);
    *plain = NULL;
    return f;
}

/* Queues the upload of frame t (frames: all of them) into device frame d. */
static clik_status queue_upload(clik_context *ctx, const options *o, const uint8_t *frames, int t,
                                clik_yuv_image *d, uint64_t *ticket)
{
    clik_yuv_image host;
    const size_t frame_bytes = clik_yuv_size(o->width, o->height);
    clik_status st = clik_yuv_wrap(&host, CLIK_YUV_NV21, o->width, o->height,
                                   (uint8_t *)frames + frame_bytes * t, 0);
    if (st == CLIK_OK)
        st = clik_image_upload_async(ctx, &d->y, &host.y, ticket);
    return st == CLIK_OK ? clik_image_upload_async(ctx, &d->uv, &host.uv, ticket) : st;
}

/* Writes what the check reads of frame t (its outputs in slot t % 2). */
static int write_outputs(const options *o, const uint8_t *frames, const loop_images *li, int t)
{
    const int w = o->width, h = o->height, W = 2 * w, H = 2 * h;
    const size_t frame_bytes = clik_yuv_size(w, h);
    const clik_image *rgba = &li->rgba_host[t % 2], *flow = &li->flow_host[t % 2];
    if (o->inject && t == o->frames - 1)
        ((uint8_t *)rgba->data)[(size_t)(H / 2) * rgba->stride + 4 * (W / 3) + 1] ^= 0x40;
    int ok = write_file(o->out, "frame", t, frames + frame_bytes * t, frame_bytes, NULL, 0) &&
             write_file(o->out, "up", t, li->up_host[t % 2], clik_yuv_size(W, H), NULL, 0);
    /* RGBA rows packed. */
    char path[4096];
    snprintf(path, sizeof(path), "%s/rgba-%03d.raw", o->out, t);
    FILE *f = ok ? fopen(path, "wb") : NULL;
    for (int y = 0; f && y < H && ok; y++)
        ok = fwrite((uint8_t *)rgba->data + (size_t)y * rgba->stride, 4, (size_t)W, f) == (size_t)W;
    if (!f || fclose(f) != 0)
        ok = 0;
    if (ok && t > 0) {
        const float magic = 202021.25f;
        const int32_t dims[2] = {w, h};
        snprintf(path, sizeof(path), "%s/flow-%03d.flo", o->out, t);
        f = fopen(path, "wb");
        ok = f && fwrite(&magic, 4, 1, f) == 1 && fwrite(dims, 4, 2, f) == 2;
        for (int y = 0; f && y < h && ok; y++)
            ok = fwrite((uint8_t *)flow->data + (size_t)y * flow->stride, 8, (size_t)w, f) ==
                 (size_t)w;
        if (!f || fclose(f) != 0)
            ok = 0;
    }
    if (!ok)
        fprintf(stderr, "%s: cannot write the outputs of frame %d to %s\n", prog, t, o->out);
    return ok;
}

/* Frame t's outputs are in host memory once its downloads' ticket is done:
 * the time since the last frame's end goes to *gap, then --out writes them. */
static int frame_end(clik_context *ctx, const options *o, const uint8_t *frames,
                     const loop_images *li, int t, uint64_t ticket, double *clock, double *gap)
{
    clik_status st = clik_context_wait(ctx, ticket);
    const double now = bench_now_ms();
    *gap = now - *clock;
    *clock = now;
    if (st != CLIK_OK)
        return bench_failed(prog, ctx, st, "the downloads of a frame");
    return o->out && !write_outputs(o, frames, li, t) ? EXIT_FAILED : 0;
}

static int run_loop(clik_context *ctx, const options *o)
{
    const int w = o->width, h = o->height, W = 2 * w, H = 2 * h;
    loop_images li;
    memset(&li, 0, sizeof(li));
    uint8_t *plain = NULL;
    const uint8_t *frames = frames_in_context(ctx, o, &li, &plain);
    if (!frames)
        return EXIT_FAILED;
    double *ms = calloc((size_t)o->frames * (S_COUNT + 1), sizeof(double));
    double *gaps = ms ? ms + (size_t)o->frames * S_COUNT : NULL;
    uint64_t *done = calloc((size_t)o->frames, sizeof(uint64_t));
    clik_status st = ms && done ? CLIK_OK : CLIK_ERR_NO_MEMORY;
    if (st == CLIK_OK)
        st = loop_images_make(ctx, o, &li);
    int rc = 0;
    if (st != CLIK_OK) {
        rc = bench_failed(prog, ctx, st, "setting up the loop's images");
        goto done;
    }

    /* The loop's programs built before the timed frames, as a camera app
     * builds them at start-up (or loads them from the kernel cache). */
    clik_prepare_options po;
    clik_prepare_options_init(&po);
    static const char *const prepared[] = {"flow_tvl1,resize,yuv_to_rgb",
                                           "flow_tvl1,upscale_lapar,resize,yuv_to_rgb",
                                           "flow_tvl1,lapar_net_run,resize,yuv_to_rgb"};
    po.ops = prepared[o->lapar];
    clik_lapar_net *net = NULL; /* built in: held for the process */
    if (o->lapar == 2 && (st = clik_lapar_net_builtin(ctx, "lapar-a", 2, &net)) != CLIK_OK) {
        rc = bench_failed(prog, ctx, st, "LAPAR-A");
        goto done;
    }
    po.channels = (1u << 1) | (1u << 2) | (1u << 4);
    double t_prep = bench_now_ms();
    st = o->no_prepare ? CLIK_OK : clik_context_prepare(ctx, &po);
    t_prep = bench_now_ms() - t_prep;
    if (st != CLIK_OK) {
        rc = bench_failed(prog, ctx, st, "clik_context_prepare");
        goto done;
    }
    /* Frame t: its upload was queued during frame t - 1 (overlapping that
     * frame's kernels), the next one's is queued now, then its kernels,
     * then its downloads; frame t - 1's outputs are used (written with
     * --out) while frame t's kernels run. --serial: one step at a time. */
    const double t_start = bench_now_ms(), cpu_start = bench_cpu_ms();
    double end_clock = t_start;
    uint64_t ticket = 0;
    st = o->serial ? CLIK_OK : queue_upload(ctx, o, frames, 0, &li.dev[0], &ticket);
    const char *what = "upload";
    for (int t = 0; t < o->frames && rc == 0 && st == CLIK_OK; t++) {
        clik_yuv_image *cur = &li.dev[t % 3], *prev = &li.dev[(t + 2) % 3];
        double *m = ms + (size_t)t * S_COUNT, clock = bench_now_ms();
        what = "upload";
        if (o->serial)
            st = queue_upload(ctx, o, frames, t, cur, &ticket);
        else if (t + 1 < o->frames)
            st = queue_upload(ctx, o, frames, t + 1, &li.dev[(t + 1) % 3], &ticket);
        step_done(o, ctx, &st, &clock, &m[S_UPLOAD]);
        clik_image *rgba = &li.rgba[t % 2], *flow = &li.flow[t % 2];
        if (st == CLIK_OK && t > 0) {
            what = "clik_flow_tvl1";
            st = clik_flow_tvl1(ctx, &prev->y, &cur->y, flow, &o->flow);
        }
        step_done(o, ctx, &st, &clock, &m[S_FLOW]);
        if (st == CLIK_OK) {
            static const char *const names[] = {"clik_yuv_resize", "clik_yuv_upscale_lapar",
                                                "clik_yuv_upscale_lapar_net"};
            what = names[o->lapar];
            st = o->lapar == 2   ? clik_yuv_upscale_lapar_net(ctx, cur, &li.up, net)
                 : o->lapar == 1 ? clik_yuv_upscale_lapar(ctx, cur, &li.up, 2, NULL)
                                 : clik_yuv_resize(ctx, cur, &li.up, CLIK_INTERP_BILINEAR);
        }
        step_done(o, ctx, &st, &clock, &m[S_UPSCALE]);
        if (st == CLIK_OK) {
            what = "clik_yuv_to_rgb";
            st = clik_yuv_to_rgb(ctx, &li.up, rgba, CLIK_YUV_BT601);
        }
        step_done(o, ctx, &st, &clock, &m[S_CONVERT]);
        if (st == CLIK_OK) {
            what = "download";
            st = clik_image_download_async(ctx, &li.rgba_host[t % 2], rgba, &done[t]);
            if (st == CLIK_OK && t > 0)
                st = clik_image_download_async(ctx, &li.flow_host[t % 2], flow, &done[t]);
        }
        step_done(o, ctx, &st, &clock, &m[S_DOWNLOAD]);
        if (st == CLIK_OK && o->out) { /* what the check reads, blocking */
            clik_yuv_image up_view;
            what = "download of the upscaled frame";
            st = clik_yuv_wrap(&up_view, CLIK_YUV_NV21, W, H, li.up_host[t % 2], 0);
            if (st == CLIK_OK)
                st = clik_image_download(ctx, &up_view.y, &li.up.y);
            if (st == CLIK_OK)
                st = clik_image_download(ctx, &up_view.uv, &li.up.uv);
        }
        if (st == CLIK_OK && (o->serial || t > 0)) {
            const int u = o->serial ? t : t - 1;
            rc = frame_end(ctx, o, frames, &li, u, done[u], &end_clock, &gaps[u]);
        }
    }
    if (st == CLIK_OK && rc == 0 && !o->serial)
        rc = frame_end(ctx, o, frames, &li, o->frames - 1, done[o->frames - 1], &end_clock,
                       &gaps[o->frames - 1]);
    if (st != CLIK_OK && rc == 0)
        rc = bench_failed(prog, ctx, st, what);
    (void)clik_context_finish(ctx);
    const double total = bench_now_ms() - t_start, cpu_total = bench_cpu_ms() - cpu_start;
    if (rc == 0 && o->out) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/meta.txt", o->out);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "width %d\nheight %d\nframes %d\nformat nv21\nupscale %s\n", w, h, o->frames,
                    o->lapar == 2 ? "lapar-a"
                    : o->lapar    ? "lapar"
                                  : "resize");
            if (!o->input)
                fprintf(f, "motion %.6f %.6f\n", o->dx, o->dy);
        }
        if (!f || fclose(f) != 0) {
            fprintf(stderr, "%s: cannot write %s\n", prog, path);
            rc = EXIT_FAILED;
        }
    }
    if (rc == 0) {
        const clik_device_info *d = clik_context_device(ctx);
        printf("device   %s\n", d ? d->name : "none (CPU path)");
        if (!o->no_prepare)
            printf("prepare  %.1f ms (the loop's programs built or loaded from the kernel cache "
                   "before the first frame)\n",
                   t_prep);
        printf("frames   %d of %dx%d NV21 (%s, %s memory), x2 by %s to %dx%d RGBA\n", o->frames, w,
               h, o->input ? o->input : "synthesised", plain ? "plain" : "the context's",
               o->lapar == 2 ? "LAPAR-A"
               : o->lapar    ? "the LAPAR model"
                             : "bilinear resize",
               W, H);
        printf("loop     %.1f ms, %.2f frames/s; the process's CPU time %.1f ms a frame (every "
               "thread's)%s\n",
               total, 1000.0 * o->frames / total, cpu_total / o->frames,
               o->out ? "; with --out the files' writing included" : "");
        printf("frame    %.3f ms median between frames' ends (from the second frame)\n",
               o->frames > 1 ? bench_median(gaps + 1, o->frames - 1) : gaps[0]);
        if (o->serial) {
            double col[MAX_FRAMES];
            printf("step     median ms a frame (flow: frames 2 on)\n");
            for (int s = 0; s < S_COUNT; s++) {
                int n = 0;
                for (int t = s == S_FLOW ? 1 : 0; t < o->frames; t++)
                    col[n++] = ms[(size_t)t * S_COUNT + s];
                printf("  %-9s %9.3f\n", step_names[s], n ? bench_median(col, n) : 0.0);
            }
            printf("overlap  none (--serial): each step finished before the next\n");
        } else {
            printf("overlap  the next frame's upload and this frame's downloads queued "
                   "(clik_image_upload_async, clik_image_download_async) alongside the "
                   "kernels\n");
        }
    }
done:
    loop_images_free(&li);
    free(done);
    free(ms);
    free(plain);
    return rc;
}

/* ---- --conversions ------------------------------------------------------------------------ */

typedef struct conversion {
    const char *name;
    clik_yuv_format format;
    int channels; /* of the RGB side */
    int to_rgb;
} conversion;

static int time_conversions(clik_context *ctx, const options *o)
{
    static const conversion list[] = {
        {"nv21-rgba", CLIK_YUV_NV21, 4, 1}, {"nv21-rgb", CLIK_YUV_NV21, 3, 1},
        {"nv21-grey", CLIK_YUV_NV21, 1, 1}, {"nv12-rgba", CLIK_YUV_NV12, 4, 1},
        {"nv12-rgb", CLIK_YUV_NV12, 3, 1},  {"nv12-grey", CLIK_YUV_NV12, 1, 1},
        {"i420-rgba", CLIK_YUV_I420, 4, 1}, {"i420-rgb", CLIK_YUV_I420, 3, 1},
        {"i420-grey", CLIK_YUV_I420, 1, 1}, {"rgba-nv21", CLIK_YUV_NV21, 4, 0},
        {"rgba-i420", CLIK_YUV_I420, 4, 0},
    };
    const int w = o->width, h = o->height;
    const size_t bytes = clik_yuv_size(w, h);
    uint8_t *host = malloc(bytes > (size_t)w * h * 4 ? bytes : (size_t)w * h * 4);
    double *times = malloc(sizeof(double) * (size_t)o->reps);
    if (!host || !times) {
        free(host);
        free(times);
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_FAILED;
    }
    synthesise(host, w, h, 0, 0, 0);
    int rc = 0;
    for (size_t c = 0; c < sizeof(list) / sizeof(list[0]) && rc == 0; c++) {
        const conversion *cv = &list[c];
        clik_yuv_image hf, df;
        clik_image rgb = {0};
        memset(&df, 0, sizeof(df));
        clik_status st = clik_yuv_wrap(&hf, cv->format, w, h, host, 0);
        df.format = cv->format;
        if (st == CLIK_OK)
            st = clik_image_create(ctx, &df.y, w, h, 1, CLIK_U8);
        if (st == CLIK_OK && cv->format == CLIK_YUV_I420) {
            st = clik_image_create(ctx, &df.u, w / 2, h / 2, 1, CLIK_U8);
            if (st == CLIK_OK)
                st = clik_image_create(ctx, &df.v, w / 2, h / 2, 1, CLIK_U8);
            if (st == CLIK_OK)
                st = clik_image_upload(ctx, &df.u, &hf.u);
            if (st == CLIK_OK)
                st = clik_image_upload(ctx, &df.v, &hf.v);
        } else if (st == CLIK_OK) {
            st = clik_image_create(ctx, &df.uv, w / 2, h / 2, 2, CLIK_U8);
            if (st == CLIK_OK)
                st = clik_image_upload(ctx, &df.uv, &hf.uv);
        }
        if (st == CLIK_OK)
            st = clik_image_upload(ctx, &df.y, &hf.y);
        if (st == CLIK_OK)
            st = clik_image_create(ctx, &rgb, w, h, cv->channels, CLIK_U8);
        if (st == CLIK_OK && !cv->to_rgb) {
            /* An RGBA frame to convert back: the frame's own RGBA. */
            st = clik_yuv_to_rgb(ctx, &df, &rgb, CLIK_YUV_BT601);
        }
        double cpu0 = 0.0;
        for (int r = -o->warmup; r < o->reps && st == CLIK_OK; r++) {
            if (r == 0)
                cpu0 = bench_cpu_ms();
            const double t0 = bench_now_ms();
            st = cv->to_rgb ? clik_yuv_to_rgb(ctx, &df, &rgb, CLIK_YUV_BT601)
                            : clik_rgb_to_yuv(ctx, &rgb, &df, CLIK_YUV_BT601);
            if (st == CLIK_OK)
                st = clik_context_finish(ctx);
            if (r >= 0)
                times[r] = bench_now_ms() - t0;
        }
        const double cpu = (bench_cpu_ms() - cpu0) / o->reps;
        if (st == CLIK_OK)
            printf("%-10s %dx%d %9.3f ms %9.3f cpu-ms\n", cv->name, w, h,
                   bench_median(times, o->reps), cpu);
        else
            rc = bench_failed(prog, ctx, st, cv->name);
        frame_free(&df);
        clik_image_free(&rgb);
    }
    free(host);
    free(times);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    clik_context *ctx;
    int rc = parse_options(argc, argv, &o);
    if (rc == 0)
        rc = bench_open_context(prog, o.device, 1, &ctx);
    if (rc == 0) {
        rc = o.conversions ? time_conversions(ctx, &o) : run_loop(ctx, &o);
        clik_context_destroy(ctx);
    }
    return rc;
}

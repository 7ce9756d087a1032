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
 *             bilinear (--upscale resize, the default) or the LAPAR model
 *             on the luma (clik_yuv_upscale_lapar, --upscale lapar)
 *   convert   the upscaled frame to RGBA (clik_yuv_to_rgb, BT.601)
 *   download  the RGBA frame and the flow
 *
 * Every intermediate stays on the device. Each step ends with
 * clik_context_finish, so that its milliseconds are its own; the report
 * gives frames per second over the whole loop and each step's median.
 * Upload and download are not overlapped with the kernels: the API's
 * transfers of device images (clik_image_upload, clik_image_download) are
 * synchronous calls on the context, and a context takes one call at a
 * time (only clik_fusion_stream overlaps frames, inside the library); the
 * report says so.
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
    int lapar;
    int scales, warps, iterations; /* flow options; 0: the library's defaults */
    int inject;
    int conversions;
    int reps, warmup;
    int no_prepare;
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
            "  --upscale resize|lapar  x2 by bilinear resize (default) or the LAPAR model\n"
            "  --flow-scales N, --flow-warps N, --flow-iterations N  TV-L1 options\n"
            "                      (default the library's: 5 warps, at most 300 iterations)\n"
            "  --out DIR           write frames, upscaled frames, RGBA and flow for\n"
            "                      benchmarks/camera_loop_check.py\n"
            "  --inject-mismatch   spoil one byte of the last RGBA written (with --out)\n"
            "  --no-prepare        do not build the loop's programs before the first frame\n"
            "                      (their first calls then build them, inside the loop's time)\n"
            "  --conversions       time the YUV conversions at --size instead\n"
            "  --reps N, --warmup N  timed and untimed runs of --conversions (20, 3)\n",
            prog);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){
        .width = 1280, .height = 720, .frames = 10, .dx = 1.5, .dy = 0.75, .reps = 20, .warmup = 3};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--inject-mismatch") == 0) {
            o->inject = 1;
            continue;
        } else if (strcmp(a, "--no-prepare") == 0) {
            o->no_prepare = 1;
            continue;
        } else if (strcmp(a, "--conversions") == 0) {
            o->conversions = 1;
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
            bad = parse_int(v, 1, MAX_FRAMES, &o->frames);
        else if (strcmp(a, "--motion") == 0)
            bad = sscanf(v, "%lf,%lf", &o->dx, &o->dy) != 2 || fabs(o->dx) > 64 || fabs(o->dy) > 64;
        else if (strcmp(a, "--upscale") == 0) {
            bad = strcmp(v, "resize") != 0 && strcmp(v, "lapar") != 0;
            o->lapar = strcmp(v, "lapar") == 0;
        } else if (strcmp(a, "--flow-scales") == 0)
            bad = parse_int(v, 1, CLIK_FLOW_MAX_SCALES, &o->scales);
        else if (strcmp(a, "--flow-warps") == 0)
            bad = parse_int(v, 1, 1000, &o->warps);
        else if (strcmp(a, "--flow-iterations") == 0)
            bad = parse_int(v, 1, 100000, &o->iterations);
        else if (strcmp(a, "--reps") == 0)
            bad = parse_int(v, 1, 100000, &o->reps);
        else if (strcmp(a, "--warmup") == 0)
            bad = parse_int(v, 0, 100000, &o->warmup);
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

/* The end of a timed step of a frame: its queued work finished (while *st
 * is CLIK_OK), *ms the time since *clock, and *clock now. */
static void step_done(clik_context *ctx, clik_status *st, double *clock, double *ms)
{
    if (*st == CLIK_OK)
        *st = clik_context_finish(ctx);
    const double now = bench_now_ms();
    *ms = now - *clock;
    *clock = now;
}

static int run_loop(clik_context *ctx, const options *o)
{
    const int w = o->width, h = o->height, W = 2 * w, H = 2 * h;
    const size_t frame_bytes = clik_yuv_size(w, h), up_bytes = clik_yuv_size(W, H);
    uint8_t *frames = load_frames(o, frame_bytes);
    if (!frames)
        return EXIT_FAILED;
    double *ms = calloc((size_t)o->frames * S_COUNT, sizeof(double));
    uint8_t *up_host = o->out ? malloc(up_bytes) : NULL;
    clik_yuv_image dev[2], up, up_view;
    clik_image rgba = {0}, rgba_host = {0}, flow = {0}, flow_host = {0};
    memset(dev, 0, sizeof(dev));
    memset(&up, 0, sizeof(up));
    clik_status st = ms && (!o->out || up_host) ? CLIK_OK : CLIK_ERR_NO_MEMORY;
    for (int i = 0; i < 2 && st == CLIK_OK; i++)
        st = device_frame(ctx, &dev[i], w, h);
    if (st == CLIK_OK)
        st = device_frame(ctx, &up, W, H);
    if (st == CLIK_OK)
        st = clik_image_create(ctx, &rgba, W, H, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_image_alloc(&rgba_host, W, H, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_image_create(ctx, &flow, w, h, 2, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_image_alloc(&flow_host, w, h, 2, CLIK_F32);
    if (st == CLIK_OK && o->out)
        st = clik_yuv_wrap(&up_view, CLIK_YUV_NV21, W, H, up_host, 0);
    int rc = 0;
    if (st != CLIK_OK) {
        rc = bench_failed(prog, ctx, st, "setting up the loop's images");
        goto done;
    }
    rgba.order = rgba_host.order = CLIK_ORDER_RGB;
    clik_flow_options fo;
    clik_flow_options_init(&fo);
    if (o->scales)
        fo.scales = o->scales;
    if (o->warps)
        fo.warps = o->warps;
    if (o->iterations)
        fo.iterations = o->iterations;

    /* The loop's programs built before the timed frames, as a camera app
     * builds them at start-up (or loads them from the kernel cache). */
    clik_prepare_options po;
    clik_prepare_options_init(&po);
    po.ops = o->lapar ? "flow_tvl1,upscale_lapar,resize,yuv_to_rgb" : "flow_tvl1,resize,yuv_to_rgb";
    po.channels = (1u << 1) | (1u << 2) | (1u << 4);
    double t_prep = bench_now_ms();
    st = o->no_prepare ? CLIK_OK : clik_context_prepare(ctx, &po);
    t_prep = bench_now_ms() - t_prep;
    if (st != CLIK_OK) {
        rc = bench_failed(prog, ctx, st, "clik_context_prepare");
        goto done;
    }
    const double t_start = bench_now_ms(), cpu_start = bench_cpu_ms();
    for (int t = 0; t < o->frames && rc == 0; t++) {
        clik_yuv_image host, *cur = &dev[t % 2], *prev = &dev[(t + 1) % 2];
        double *m = ms + (size_t)t * S_COUNT, clock = bench_now_ms();
        const char *what = "upload";
        st = clik_yuv_wrap(&host, CLIK_YUV_NV21, w, h, frames + frame_bytes * t, 0);
        if (st == CLIK_OK)
            st = clik_image_upload(ctx, &cur->y, &host.y);
        if (st == CLIK_OK)
            st = clik_image_upload(ctx, &cur->uv, &host.uv);
        step_done(ctx, &st, &clock, &m[S_UPLOAD]);
        if (st == CLIK_OK && t > 0) {
            what = "clik_flow_tvl1";
            st = clik_flow_tvl1(ctx, &prev->y, &cur->y, &flow, &fo);
        }
        step_done(ctx, &st, &clock, &m[S_FLOW]);
        if (st == CLIK_OK) {
            what = o->lapar ? "clik_yuv_upscale_lapar" : "clik_yuv_resize";
            st = o->lapar ? clik_yuv_upscale_lapar(ctx, cur, &up, 2, NULL)
                          : clik_yuv_resize(ctx, cur, &up, CLIK_INTERP_BILINEAR);
        }
        step_done(ctx, &st, &clock, &m[S_UPSCALE]);
        if (st == CLIK_OK) {
            what = "clik_yuv_to_rgb";
            st = clik_yuv_to_rgb(ctx, &up, &rgba, CLIK_YUV_BT601);
        }
        step_done(ctx, &st, &clock, &m[S_CONVERT]);
        if (st == CLIK_OK) {
            what = "download";
            st = clik_image_download(ctx, &rgba_host, &rgba);
            if (st == CLIK_OK && t > 0)
                st = clik_image_download(ctx, &flow_host, &flow);
        }
        step_done(ctx, &st, &clock, &m[S_DOWNLOAD]);
        if (st != CLIK_OK) {
            rc = bench_failed(prog, ctx, st, what);
            break;
        }
        if (!o->out)
            continue;
        /* Outside the timed steps: what the check reads. */
        st = clik_image_download(ctx, &up_view.y, &up.y);
        if (st == CLIK_OK)
            st = clik_image_download(ctx, &up_view.uv, &up.uv);
        if (st != CLIK_OK) {
            rc = bench_failed(prog, ctx, st, "download of the upscaled frame");
            break;
        }
        if (o->inject && t == o->frames - 1)
            ((uint8_t *)rgba_host.data)[(size_t)(H / 2) * rgba_host.stride + 4 * (W / 3) + 1] ^=
                0x40;
        int ok = write_file(o->out, "frame", t, frames + frame_bytes * t, frame_bytes, NULL, 0) &&
                 write_file(o->out, "up", t, up_host, up_bytes, NULL, 0);
        /* RGBA rows packed. */
        char path[4096];
        snprintf(path, sizeof(path), "%s/rgba-%03d.raw", o->out, t);
        FILE *f = ok ? fopen(path, "wb") : NULL;
        for (int y = 0; f && y < H && ok; y++)
            ok = fwrite((uint8_t *)rgba_host.data + (size_t)y * rgba_host.stride, 4, (size_t)W,
                        f) == (size_t)W;
        if (!f || fclose(f) != 0)
            ok = 0;
        if (ok && t > 0) {
            const float magic = 202021.25f;
            const int32_t dims[2] = {w, h};
            snprintf(path, sizeof(path), "%s/flow-%03d.flo", o->out, t);
            f = fopen(path, "wb");
            ok = f && fwrite(&magic, 4, 1, f) == 1 && fwrite(dims, 4, 2, f) == 2;
            for (int y = 0; f && y < h && ok; y++)
                ok = fwrite((uint8_t *)flow_host.data + (size_t)y * flow_host.stride, 8, (size_t)w,
                            f) == (size_t)w;
            if (!f || fclose(f) != 0)
                ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "%s: cannot write the outputs of frame %d to %s\n", prog, t, o->out);
            rc = EXIT_FAILED;
        }
    }
    const double total = bench_now_ms() - t_start, cpu_total = bench_cpu_ms() - cpu_start;
    if (rc == 0 && o->out) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/meta.txt", o->out);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "width %d\nheight %d\nframes %d\nformat nv21\nupscale %s\n", w, h, o->frames,
                    o->lapar ? "lapar" : "resize");
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
        printf("frames   %d of %dx%d NV21 (%s), x2 by %s to %dx%d RGBA\n", o->frames, w, h,
               o->input ? o->input : "synthesised",
               o->lapar ? "the LAPAR model" : "bilinear resize", W, H);
        printf("loop     %.1f ms, %.2f frames/s; the process's CPU time %.1f ms a frame (every "
               "thread's)%s\n",
               total, 1000.0 * o->frames / total, cpu_total / o->frames,
               o->out ? "; with --out the files' writing included" : "");
        double col[MAX_FRAMES];
        printf("step     median ms a frame (flow: frames 2 on)\n");
        for (int s = 0; s < S_COUNT; s++) {
            int n = 0;
            for (int t = s == S_FLOW ? 1 : 0; t < o->frames; t++)
                col[n++] = ms[(size_t)t * S_COUNT + s];
            printf("  %-9s %9.3f\n", step_names[s], n ? bench_median(col, n) : 0.0);
        }
        printf("overlap  none: uploads and downloads of device images are synchronous calls on "
               "the context (one call at a time); steps run one after another\n");
    }
done:
    for (int i = 0; i < 2; i++)
        frame_free(&dev[i]);
    frame_free(&up);
    clik_image_free(&rgba);
    clik_image_free(&rgba_host);
    clik_image_free(&flow);
    clik_image_free(&flow_host);
    free(up_host);
    free(ms);
    free(frames);
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

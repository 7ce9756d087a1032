/*
 * clik-pipeline: a camera-style chain kept on the device, timed against the
 * same calls on host images.
 *
 *   pyramid (default): equalize -> Laplacian pyramid (its Gaussian levels
 *            built on the way) -> collapse
 *   upscale: resize by 1/S (bicubic-aa) -> LAPAR model upscale by S ->
 *            SSIM against the frame
 *   flow:    two noisy frames of a moving scene -> TV-L1 flow between them
 *            -> the second warped onto the first and averaged with it (the
 *            temporal denoising step of a camera pipeline) -> SSIM of the
 *            average against the first frame
 *
 * The chain runs twice on the same context: (a) on device images, with one
 * upload of the frame at the start and one download of the result at the
 * end, every intermediate image staying on the device; (b) on host images,
 * where each call moves its own inputs and outputs. Both must give
 * identical images, the collapse must rebuild the equalized frame exactly
 * (its bands are exact differences), the flow chain's average must be
 * nearer the clean scene than the first frame is (PSNR), and both must
 * match the library's CPU path (the upscale and flow
 * chain: its SSIM within 1e-3, as its float steps round per device); any
 * difference is an error (exit 1). Without an OpenCL device there is nothing to
 * compare: exit 77 (skipped).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "clik.h"

#define MAX_LEVELS 32

/* --chain: the chains. */
#define CHAIN_PYRAMID 0
#define CHAIN_UPSCALE 1
#define CHAIN_FLOW    2
#define CHAINS        3
/* The flow chain's motion from the first frame to the second, and the
 * amplitude of its frames' noise (uniform, in levels). */
#define FLOW_DX    1.5
#define FLOW_DY    (-0.75)
#define FLOW_NOISE 12

static const char *prog = "clik-pipeline";

typedef struct options {
    const char *device;
    int width, height;
    int channels;
    int kind;  /* --chain: CHAIN_* */
    int scale; /* --scale of the upscale chain */
    int levels;
    clik_type band_type;
    int reps, warmup;
    uint64_t seed;
    int allow_fallback;
    int cpu_check;
    int json;
    const char *dump_dir;   /* --dump-input: the frame as DIR/input-WxH-cC.pgm|pam */
    const char *output_dir; /* --dump-output: the result as DIR/output-WxH-cC.pgm|pam */
    int stages;             /* --stages: also time each call of (a) on its own */
    int inject;             /* --inject-mismatch: spoil one pixel of (a) to show the check works */
} options;

/* The images of one run of the chain. */
typedef struct chain {
    clik_image src; /* the frame the chain reads (device: the uploaded copy) */
    clik_image eq;
    clik_image bands[MAX_LEVELS + 1];
    clik_image out; /* the result: the collapse, or the upscaled frame */
    int levels;
    /* the upscale chain: src -> lr -> out, and the SSIM of out against src */
    int kind, scale;
    clik_image lr;
    double ssim;
    /* the flow chain: src and src2 -> flow -> out, the average of src and
     * src2 warped onto it, and the SSIM of out against src */
    clik_image src2, flow;
} chain;

/* ---- small helpers ------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [--chain pyramid|upscale|flow] [--device SPEC] [--size WxH] [--levels N]\n"
            "          [--channels 1|2|4] [--scale 2|3|4]\n"
            "          [--bands s16|f32] [--reps N] [--warmup N] [--seed N] [--json]\n"
            "          [--no-cpu-check] [--allow-fallback] [--stages] [--dump-input DIR]\n"
            "          [--dump-output DIR]\n"
            "          [--inject-mismatch (spoils one pixel of (a): the check must fail)]\n"
            "Times a chain on device images (one upload, one download) and on host images,\n"
            "and checks that both agree. pyramid: equalize -> Laplacian pyramid -> collapse;\n"
            "upscale: resize by 1/S -> LAPAR model upscale by S -> SSIM against the frame;\n"
            "flow: two noisy frames -> TV-L1 flow -> the second warped onto the first and\n"
            "averaged with it (temporal denoising) -> SSIM against the first.\n"
            "Exit status: 0 agreed, 1 a clik failure or a difference, 2 bad arguments,\n"
            "77 no OpenCL device, or none that --device names (skipped).\n",
            prog);
}

static int bad_arg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see --help)\n");
    return EXIT_USAGE;
}

static int parse_size(const char *s, int *w, int *h)
{
    char buf[64];
    const char *x = strchr(s, 'x');
    if (!x || (size_t)(x - s) >= sizeof(buf))
        return 0;
    memcpy(buf, s, (size_t)(x - s));
    buf[x - s] = '\0';
    return bench_parse_int(buf, 1, 1 << 16, w) && bench_parse_int(x + 1, 1, 1 << 16, h);
}

static int takes_value(const char *opt)
{
    static const char *const valued[] = {"--chain",  "--scale",    "--device",     "--size",
                                         "--levels", "--channels", "--bands",      "--reps",
                                         "--warmup", "--seed",     "--dump-input", "--dump-output"};
    for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
        if (!strcmp(opt, valued[i]))
            return 1;
    return 0;
}

/* An option without a value: sets its field and returns 1; 0 for any other. */
static int set_flag(const char *a, options *o)
{
    const bench_flag flags[] = {{"--json", &o->json, 1},
                                {"--no-cpu-check", &o->cpu_check, 0},
                                {"--allow-fallback", &o->allow_fallback, 1},
                                {"--stages", &o->stages, 1},
                                {"--inject-mismatch", &o->inject, 1}};
    return bench_set_flag(a, flags, sizeof(flags) / sizeof(flags[0]));
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.width = 1920,
                   .height = 1080,
                   .channels = 1,
                   .levels = 5,
                   .band_type = CLIK_S16,
                   .reps = 10,
                   .warmup = 2,
                   .seed = 1,
                   .scale = 2,
                   .cpu_check = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int n;
        int takes = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (set_flag(a, o)) {
            takes = 0;
        } else if (!takes_value(a)) {
            return bad_arg("unknown option '%s'", a);
        } else if (!v) {
            return bad_arg("%s needs a value", a);
        } else if (!strcmp(a, "--device")) {
            o->device = v;
        } else if (!strcmp(a, "--chain")) {
            if (strcmp(v, "pyramid") && strcmp(v, "upscale") && strcmp(v, "flow"))
                return bad_arg("--chain '%s': expected pyramid, upscale or flow", v);
            o->kind = !strcmp(v, "upscale") ? CHAIN_UPSCALE
                      : !strcmp(v, "flow")  ? CHAIN_FLOW
                                            : CHAIN_PYRAMID;
        } else if (!strcmp(a, "--scale")) {
            if (!bench_parse_int(v, 2, 4, &o->scale))
                return bad_arg("--scale '%s': expected 2, 3 or 4", v);
        } else if (!strcmp(a, "--size")) {
            if (!parse_size(v, &o->width, &o->height))
                return bad_arg("--size '%s': expected WxH, each side 1 to 65536", v);
        } else if (!strcmp(a, "--levels")) {
            if (!bench_parse_int(v, 1, MAX_LEVELS, &o->levels))
                return bad_arg("--levels '%s': expected 1 to %d", v, MAX_LEVELS);
        } else if (!strcmp(a, "--channels")) {
            if (!bench_parse_int(v, 1, 4, &n) || n == 3)
                return bad_arg("--channels '%s': expected 1, 2 or 4 (u8, the last one of 2 or "
                               "4 is alpha, which equalize copies)",
                               v);
            o->channels = (int)n;
        } else if (!strcmp(a, "--bands")) {
            if (!strcmp(v, "s16"))
                o->band_type = CLIK_S16;
            else if (!strcmp(v, "f32"))
                o->band_type = CLIK_F32;
            else
                return bad_arg("--bands '%s': expected s16 or f32", v);
        } else if (!strcmp(a, "--reps")) {
            if (!bench_parse_int(v, 1, 100000, &o->reps))
                return bad_arg("--reps '%s': expected 1 to 100000", v);
        } else if (!strcmp(a, "--warmup")) {
            if (!bench_parse_int(v, 0, 100000, &o->warmup))
                return bad_arg("--warmup '%s': expected 0 to 100000", v);
        } else if (!strcmp(a, "--seed")) {
            if (!bench_parse_int(v, 0, 2147483647, &n))
                return bad_arg("--seed '%s': expected 0 to 2147483647", v);
            o->seed = (uint64_t)n;
        } else if (!strcmp(a, "--dump-input")) {
            o->dump_dir = v;
        } else if (!strcmp(a, "--dump-output")) {
            o->output_dir = v;
        }
        i += takes;
    }
    if (o->kind == CHAIN_FLOW) {
        if (o->channels != 1)
            return bad_arg("--chain flow takes one channel (SSIM compares grey frames)");
        if (o->width < 16 || o->height < 16)
            return bad_arg("--chain flow: --size %dx%d is too small (at least 16x16)", o->width,
                           o->height);
        return 0;
    }
    if (o->kind == CHAIN_UPSCALE) {
        if (o->channels != 1)
            return bad_arg("--chain upscale takes one channel (SSIM compares grey frames)");
        if (o->width % o->scale || o->height % o->scale)
            return bad_arg("--chain upscale: --size %dx%d is not a multiple of --scale %d",
                           o->width, o->height, o->scale);
        if (o->width < 11 * o->scale || o->height < 11 * o->scale)
            return bad_arg("--chain upscale: --size %dx%d is too small (SSIM needs 11x11; at "
                           "least %dx%d)",
                           o->width, o->height, 11 * o->scale, 11 * o->scale);
        return 0;
    }
    int most = clik_pyr_max_levels(o->width, o->height);
    if (o->levels > most)
        return bad_arg("--levels %d: a %dx%d image has at most %d levels below it", o->levels,
                       o->width, o->height, most);
    return 0;
}

/* ---- the chain ------------------------------------------------------------------ */

static void chain_free(chain *c)
{
    clik_image_free(&c->src);
    clik_image_free(&c->eq);
    for (int i = 0; i <= c->levels; i++)
        clik_image_free(&c->bands[i]);
    clik_image_free(&c->out);
    clik_image_free(&c->lr);
    clik_image_free(&c->src2);
    clik_image_free(&c->flow);
}

/* Makes every image of the chain: device images (device 1) or host ones. */
static clik_status chain_make(clik_context *ctx, chain *c, const options *o, int device)
{
    memset(c, 0, sizeof(*c));
    c->levels = o->kind != CHAIN_PYRAMID ? 0 : o->levels;
    c->kind = o->kind;
    c->scale = o->scale;
    int w = o->width, h = o->height, ch = o->channels;
    clik_status st = CLIK_OK;
#define MAKE(img, ww, hh, type)                                                                    \
    (device ? clik_image_create(ctx, img, ww, hh, ch, type)                                        \
            : clik_image_alloc(img, ww, hh, ch, type))
    st = MAKE(&c->src, w, h, CLIK_U8);
    if (st == CLIK_OK)
        st = MAKE(&c->out, w, h, CLIK_U8);
    if (st == CLIK_OK && c->kind == CHAIN_UPSCALE)
        st = MAKE(&c->lr, w / c->scale, h / c->scale, CLIK_U8);
    if (st == CLIK_OK && c->kind == CHAIN_FLOW)
        st = MAKE(&c->src2, w, h, CLIK_U8);
    if (st == CLIK_OK && c->kind == CHAIN_FLOW)
        st = device ? clik_image_create(ctx, &c->flow, w, h, 2, CLIK_F32)
                    : clik_image_alloc(&c->flow, w, h, 2, CLIK_F32);
    if (st == CLIK_OK && c->kind == CHAIN_PYRAMID)
        st = MAKE(&c->eq, w, h, CLIK_U8);
    for (int i = 0; c->kind == CHAIN_PYRAMID && i <= c->levels && st == CLIK_OK; i++) {
        int lw, lh;
        clik_pyr_level_size(w, h, i, &lw, &lh);
        st = MAKE(&c->bands[i], lw, lh, o->band_type);
    }
#undef MAKE
    if (st != CLIK_OK)
        chain_free(c);
    return st;
}

/* Call `stage` (0, 1 or 2) of the chain on whatever images c holds; *what
 * names it. */
static clik_status chain_call(clik_context *ctx, chain *c, int stage, const char **what)
{
    static const char *const names[CHAINS][3] = {
        {"clik_hist_equalize", "clik_pyr_laplacian", "clik_pyr_collapse"},
        {"clik_resize", "clik_upscale_lapar", "clik_ssim"},
        {"clik_flow_tvl1", "clik_flow_warp_average", "clik_ssim"}};
    *what = names[c->kind][stage];
    if (c->kind == CHAIN_FLOW) {
        switch (stage) {
        case 0: return clik_flow_tvl1(ctx, &c->src, &c->src2, &c->flow, NULL);
        case 1: return clik_flow_warp_average(ctx, &c->src, &c->src2, &c->flow, &c->out);
        default: return clik_ssim(ctx, &c->out, &c->src, NULL, &c->ssim);
        }
    }
    if (c->kind == CHAIN_UPSCALE) {
        switch (stage) {
        case 0: return clik_resize(ctx, &c->src, &c->lr, CLIK_INTERP_BICUBIC_AA);
        case 1: return clik_upscale_lapar(ctx, &c->lr, &c->out, c->scale, NULL);
        default: return clik_ssim(ctx, &c->out, &c->src, NULL, &c->ssim);
        }
    }
    switch (stage) {
    case 0: return clik_hist_equalize(ctx, &c->src, &c->eq);
    case 1: return clik_pyr_laplacian(ctx, &c->eq, c->bands, c->levels);
    default: return clik_pyr_collapse(ctx, c->bands, c->levels, &c->out);
    }
}

/* The three calls of the chain, on whatever images c holds. *what names the
 * call that failed. */
static clik_status chain_run(clik_context *ctx, chain *c, const char **what)
{
    clik_status st = CLIK_OK;
    for (int stage = 0; stage < 3 && st == CLIK_OK; stage++)
        st = chain_call(ctx, c, stage, what);
    return st;
}

/* The upload of the chain's input: the frame, and the flow chain's second. */
static clik_status upload_frames(clik_context *ctx, chain *dev, const clik_image *frame,
                                 const clik_image *frame2)
{
    clik_status st = clik_image_upload(ctx, &dev->src, frame);
    if (st == CLIK_OK && dev->kind == CHAIN_FLOW)
        st = clik_image_upload(ctx, &dev->src2, frame2);
    return st;
}

/* (a): one upload (two for the flow chain), the chain on device images,
 * one download. */
static clik_status device_frame(clik_context *ctx, chain *dev, const clik_image *frame,
                                const clik_image *frame2, clik_image *result, const char **what)
{
    *what = "clik_image_upload";
    clik_status st = upload_frames(ctx, dev, frame, frame2);
    if (st == CLIK_OK)
        st = chain_run(ctx, dev, what);
    if (st == CLIK_OK) {
        *what = "clik_image_download";
        st = clik_image_download(ctx, result, &dev->out);
    }
    return st;
}

/* ---- checks --------------------------------------------------------------------- */

/* Compares two host images of one format element by element; fills why
 * with the first difference. */
static int same_pixels(const clik_image *a, const clik_image *b, char *why, size_t n)
{
    size_t esz = clik_type_size(a->type), row = (size_t)a->width * (size_t)a->channels * esz;
    long differ = 0;
    int fx = -1, fy = -1;
    for (int y = 0; y < a->height; y++) {
        const unsigned char *pa = (const unsigned char *)a->data + (size_t)y * a->stride;
        const unsigned char *pb = (const unsigned char *)b->data + (size_t)y * b->stride;
        if (!memcmp(pa, pb, row))
            continue;
        for (size_t x = 0; x < row; x += esz)
            if (memcmp(pa + x, pb + x, esz)) {
                if (fx < 0) {
                    fx = (int)(x / esz / (size_t)a->channels);
                    fy = y;
                }
                differ++;
            }
    }
    if (differ)
        snprintf(why, n, "%ld elements differ, the first at (%d, %d)", differ, fx, fy);
    return differ == 0;
}

/* The pixels of a device or host image as a new host image. */
static clik_status fetch(clik_context *ctx, const clik_image *img, clik_image *host)
{
    clik_status st = clik_image_alloc(host, img->width, img->height, img->channels, img->type);
    if (st == CLIK_OK && img->buffer)
        st = clik_image_download(ctx, host, img);
    else if (st == CLIK_OK)
        for (int y = 0; y < img->height; y++)
            memcpy((char *)host->data + (size_t)y * host->stride,
                   (const char *)img->data + (size_t)y * img->stride,
                   (size_t)img->width * (size_t)img->channels * clik_type_size(img->type));
    return st;
}

/* Compares every image of two chains (eq, bands, out); 1 when all agree.
 * a's images may be on the device (a_ctx's). */
static int chains_agree(clik_context *a_ctx, const chain *a, const chain *b, const char *label)
{
    const clik_image *ia[MAX_LEVELS + 3], *ib[MAX_LEVELS + 3];
    char names[MAX_LEVELS + 3][32];
    int n = 0;
    if (a->kind == CHAIN_UPSCALE) {
        ia[n] = &a->lr, ib[n] = &b->lr, snprintf(names[n++], sizeof(names[0]), "downscaled frame");
    } else if (a->kind == CHAIN_FLOW) {
        ia[n] = &a->flow, ib[n] = &b->flow, snprintf(names[n++], sizeof(names[0]), "flow");
    } else {
        ia[n] = &a->eq, ib[n] = &b->eq, snprintf(names[n++], sizeof(names[0]), "equalized image");
        for (int i = 0; i <= a->levels; i++)
            ia[n] = &a->bands[i], ib[n] = &b->bands[i],
            snprintf(names[n++], sizeof(names[0]), "band %d", i);
    }
    ia[n] = &a->out, ib[n] = &b->out,
    snprintf(names[n++], sizeof(names[0]),
             a->kind == CHAIN_UPSCALE ? "upscaled frame"
             : a->kind == CHAIN_FLOW  ? "averaged frame"
                                      : "collapse output");
    int ok = 1;
    if (a->kind != CHAIN_PYRAMID && a->ssim != b->ssim) {
        fprintf(stderr, "%s: %s: SSIM differs: %.9f and %.9f\n", prog, label, a->ssim, b->ssim);
        ok = 0;
    }
    for (int i = 0; i < n; i++) {
        clik_image ha = {0}, hb = {0};
        clik_status st = fetch(a_ctx, ia[i], &ha);
        if (st == CLIK_OK)
            st = fetch(a_ctx, ib[i], &hb);
        char why[128] = "";
        if (st != CLIK_OK) {
            bench_failed(prog, a_ctx, st, "reading an image back for the check");
            ok = 0;
        } else if (!same_pixels(&ha, &hb, why, sizeof(why))) {
            fprintf(stderr, "%s: %s: %s differs: %s\n", prog, label, names[i], why);
            ok = 0;
        }
        clik_image_free(&ha);
        clik_image_free(&hb);
    }
    return ok;
}

/* Writes img as DIR/NAME-WxH-cC.pgm (1 channel) or .pam. */
static int dump(const clik_image *img, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s-%dx%d-c%d.%s", dir, name, img->width, img->height,
             img->channels, img->channels == 1 ? "pgm" : "pam");
    if (bench_write_pnm(img, path) == 0)
        return 0;
    fprintf(stderr, "%s: cannot write %s\n", prog, path);
    return EXIT_FAILED;
}

/* ---- the flow chain's frames ---------------------------------------------------- */

/* A uniform integer in [-FLOW_NOISE, FLOW_NOISE] from the state. */
static int noise(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((*state >> 33) % (2 * FLOW_NOISE + 1)) - FLOW_NOISE;
}

static uint8_t clamp_u8(double v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
}

/* The scene is *frame as filled; it becomes *clean, *frame its copy with
 * noise, and *frame2 the scene moved by (FLOW_DX, FLOW_DY) (bilinear,
 * borders replicated) with noise of its own: frame(x) ~ frame2(x + motion). */
static void flow_frames(clik_image *frame, clik_image *clean, clik_image *frame2, uint64_t seed)
{
    const int w = frame->width, h = frame->height;
    for (int y = 0; y < h; y++)
        memcpy((uint8_t *)clean->data + (size_t)y * clean->stride,
               (const uint8_t *)frame->data + (size_t)y * frame->stride, (size_t)w);
    uint64_t state = seed * 2654435761u + 1;
    for (int y = 0; y < h; y++) {
        uint8_t *f0 = (uint8_t *)frame->data + (size_t)y * frame->stride;
        uint8_t *f1 = (uint8_t *)frame2->data + (size_t)y * frame2->stride;
        for (int x = 0; x < w; x++) {
            const double sx = x - FLOW_DX, sy = y - FLOW_DY;
            const int x0 = (int)floor(sx), y0 = (int)floor(sy);
            const double a = sx - x0, b = sy - y0;
            double v = 0;
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 2; i++) {
                    const int xx = x0 + i < 0 ? 0 : x0 + i >= w ? w - 1 : x0 + i;
                    const int yy = y0 + j < 0 ? 0 : y0 + j >= h ? h - 1 : y0 + j;
                    v += (i ? a : 1 - a) * (j ? b : 1 - b) *
                         ((const uint8_t *)clean->data)[(size_t)yy * clean->stride + (size_t)xx];
                }
            f1[x] = clamp_u8(v + noise(&state));
            f0[x] = clamp_u8((double)f0[x] + noise(&state));
        }
    }
}

/* PSNR of a against b (grey u8), 6 pixels in from the borders (where the
 * motion brings in pixels the first frame does not have). */
static double psnr(const clik_image *a, const clik_image *b)
{
    const int m = 6;
    double se = 0;
    long n = 0;
    for (int y = m; y < a->height - m; y++)
        for (int x = m; x < a->width - m; x++) {
            const double d = (double)((const uint8_t *)a->data)[(size_t)y * a->stride + (size_t)x] -
                             ((const uint8_t *)b->data)[(size_t)y * b->stride + (size_t)x];
            se += d * d;
            n++;
        }
    return se > 0 ? 10.0 * log10(255.0 * 255.0 * (double)n / se) : 99.0;
}

/* ---- main ----------------------------------------------------------------------- */

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

typedef struct timing {
    double median_ms, min_ms;
    double cpu_ms; /* median process CPU time, the OpenCL CPU device's threads included */
} timing;

static timing summarize(double *t, int n)
{
    timing r = {0, t[0], 0};
    for (int i = 1; i < n; i++)
        if (t[i] < r.min_ms)
            r.min_ms = t[i];
    r.median_ms = bench_median(t, n);
    return r;
}

#define STAGES 5
static const char *const stage_names[CHAINS][STAGES] = {
    {"upload", "equalize", "laplacian", "collapse", "download"},
    {"upload", "resize", "upscale", "ssim", "download"},
    {"upload", "flow", "warp_average", "ssim", "download"}};

/* Each call of (a) on its own, waited for (clik_context_finish): medians in ms. */
static int time_stages(clik_context *ctx, const options *o, chain *dev, const clik_image *frame,
                       const clik_image *frame2, clik_image *result, double *ms)
{
    double *t = malloc(sizeof(double) * STAGES * (size_t)o->reps);
    if (!t) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_FAILED;
    }
    for (int r = -o->warmup; r < o->reps; r++) {
        for (int s = 0; s < STAGES; s++) {
            double t0 = bench_now_ms();
            clik_status st;
            const char *what = stage_names[dev->kind][s];
            if (s == 0)
                st = upload_frames(ctx, dev, frame, frame2);
            else if (s == STAGES - 1)
                st = clik_image_download(ctx, result, &dev->out);
            else
                st = chain_call(ctx, dev, s - 1, &what);
            if (st == CLIK_OK)
                st = clik_context_finish(ctx);
            if (st != CLIK_OK) {
                free(t);
                return bench_failed(prog, ctx, st, what);
            }
            if (r >= 0)
                t[s * o->reps + r] = bench_now_ms() - t0;
        }
    }
    for (int s = 0; s < STAGES; s++)
        ms[s] = bench_median(t + s * o->reps, o->reps);
    free(t);
    return 0;
}

/* The flow chain's PSNR of its first frame and of its average against the
 * clean scene. */
typedef struct denoise {
    double frame_db, average_db;
} denoise;

static void report(const options *o, const clik_device_info *dev, timing a, timing b,
                   const double *stage_ms, double ssim, const char *cpu_check, denoise dn)
{
    static const char *const chain_json[CHAINS] = {"hist_equalize,pyr_laplacian,pyr_collapse",
                                                   "resize,upscale_lapar,ssim",
                                                   "flow_tvl1,flow_warp_average,ssim"};
    const char *bands = clik_type_name(o->band_type);
    if (o->json) {
        printf("{\"program\":\"clik-pipeline\",\"chain\":\"%s\",", chain_json[o->kind]);
        printf("\"device\":");
        json_string(dev->name);
        printf(",\"platform\":");
        json_string(dev->platform_name);
        printf(",\"device_type\":\"%s\",\"width\":%d,\"height\":%d,\"channels\":%d,",
               bench_device_type_name(dev), o->width, o->height, o->channels);
        if (o->kind == CHAIN_UPSCALE)
            printf("\"scale\":%d,\"ssim\":%.6f,", o->scale, ssim);
        else if (o->kind == CHAIN_FLOW)
            printf("\"ssim\":%.6f,\"frame_psnr_db\":%.3f,\"average_psnr_db\":%.3f,", ssim,
                   dn.frame_db, dn.average_db);
        else
            printf("\"levels\":%d,\"bands\":\"%s\",\"collapse\":\"exact\",", o->levels, bands);
        printf("\"reps\":%d,\"warmup\":%d,", o->reps, o->warmup);
        printf("\"device_ms\":%.4f,\"device_min_ms\":%.4f,\"host_ms\":%.4f,\"host_min_ms\":%.4f,"
               "\"host_over_device\":%.4f,\"device_cpu_ms\":%.4f,\"host_cpu_ms\":%.4f,\"check\":"
               "\"identical\",\"cpu_check\":\"%s\"",
               a.median_ms, a.min_ms, b.median_ms, b.min_ms, b.median_ms / a.median_ms, a.cpu_ms,
               b.cpu_ms, cpu_check);
        if (o->stages) {
            printf(",\"stages_ms\":{");
            for (int s = 0; s < STAGES; s++)
                printf("%s\"%s\":%.4f", s ? "," : "", stage_names[o->kind][s], stage_ms[s]);
            printf("}");
        }
        printf("}\n");
        return;
    }
    if (o->kind == CHAIN_FLOW)
        printf("two noisy frames moved by (%g, %g) -> TV-L1 flow -> warp-compensated average "
               "-> SSIM against the first, %dx%d grey u8\n",
               FLOW_DX, FLOW_DY, o->width, o->height);
    else if (o->kind == CHAIN_UPSCALE)
        printf("resize by 1/%d (bicubic-aa) -> LAPAR model upscale by %d -> SSIM against the "
               "frame, %dx%d grey u8\n",
               o->scale, o->scale, o->width, o->height);
    else
        printf("equalize -> Laplacian pyramid (%d levels, %s bands) -> collapse, %dx%d, %d "
               "channel%s u8\n",
               o->levels, bands, o->width, o->height, o->channels, o->channels > 1 ? "s" : "");
    printf("device: %s (%s, %s); median of %d runs after %d warm-up runs\n\n", dev->name,
           dev->platform_name, bench_device_type_name(dev), o->reps, o->warmup);
    printf("%-44s %10s %10s %10s\n", "chain", "median ms", "min ms", "CPU ms");
    printf("%-44s %10.3f %10.3f %10.3f\n",
           o->kind == CHAIN_FLOW ? "(a) device images: 2 uploads, 1 download"
                                 : "(a) device images: 1 upload, 1 download",
           a.median_ms, a.min_ms, a.cpu_ms);
    printf("%-44s %10.3f %10.3f %10.3f\n", "(b) host images: each call moves its own", b.median_ms,
           b.min_ms, b.cpu_ms);
    printf("%-44s %10.2f %10.2f %10.2f\n\n", "(b) / (a)", b.median_ms / a.median_ms,
           b.min_ms / a.min_ms, b.cpu_ms / a.cpu_ms);
    if (o->stages) {
        printf("(a) call by call, each waited for (median ms):");
        for (int s = 0; s < STAGES; s++)
            printf(" %s %.3f", stage_names[o->kind][s], stage_ms[s]);
        printf("\n\n");
    }
    if (o->kind == CHAIN_FLOW)
        printf("SSIM %.6f; PSNR against the clean scene: first frame %.2f dB, average %.2f dB; "
               "check: (a) and (b) identical (flow, average, SSIM); CPU path: %s\n",
               ssim, dn.frame_db, dn.average_db, cpu_check);
    else if (o->kind == CHAIN_UPSCALE)
        printf("SSIM %.6f; check: (a) and (b) identical (downscaled and upscaled frames, SSIM); "
               "CPU path: %s\n",
               ssim, cpu_check);
    else
        printf("check: (a) and (b) identical (equalized image, %d bands, output); collapse == "
               "equalized image (exact); CPU path: %s\n",
               o->levels + 1, cpu_check);
}

/* Times reps runs of (a) and (b) taking turns, after the warm-up runs. */
static int time_chains(clik_context *ctx, const options *o, chain *dev, chain *host,
                       const clik_image *frame, const clik_image *frame2, clik_image *result,
                       timing *ta, timing *tb)
{
    int n = o->reps;
    double *t = malloc(sizeof(double) * 4 * (size_t)n);
    if (!t) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_FAILED;
    }
    for (int r = -o->warmup; r < n; r++) {
        const char *what;
        double c0 = bench_cpu_ms(), t0 = bench_now_ms();
        clik_status st = device_frame(ctx, dev, frame, frame2, result, &what);
        double c1 = bench_cpu_ms(), t1 = bench_now_ms();
        if (st == CLIK_OK)
            st = chain_run(ctx, host, &what);
        double c2 = bench_cpu_ms(), t2 = bench_now_ms();
        if (st != CLIK_OK) {
            free(t);
            return bench_failed(prog, ctx, st, what);
        }
        if (r >= 0) {
            t[r] = t1 - t0;
            t[n + r] = t2 - t1;
            t[2 * n + r] = c1 - c0;
            t[3 * n + r] = c2 - c1;
        }
    }
    *ta = summarize(t, n);
    *tb = summarize(t + n, n);
    ta->cpu_ms = bench_median(t + 2 * n, n);
    tb->cpu_ms = bench_median(t + 3 * n, n);
    free(t);
    return 0;
}

/* The chain on host images in a context of the CPU path, compared with (b). */
static int cpu_path_check(const options *o, const chain *host, char *verdict, size_t n)
{
    clik_context_options copt;
    clik_context_options_init(&copt);
    copt.device = "none";
    clik_context *cpu = NULL;
    clik_status st = clik_context_create(&cpu, &copt);
    if (st != CLIK_OK)
        return bench_failed(prog, NULL, st, "clik_context_create (CPU path)");
    chain c;
    const char *what = "allocating the CPU-path chain";
    st = chain_make(cpu, &c, o, 0);
    if (st == CLIK_OK) {
        memcpy(c.src.data, host->src.data, c.src.stride * (size_t)c.src.height);
        if (c.kind == CHAIN_FLOW)
            memcpy(c.src2.data, host->src2.data, c.src2.stride * (size_t)c.src2.height);
        st = chain_run(cpu, &c, &what);
    }
    int rc = 0;
    const char *backend = clik_backend_name(clik_context_cpu_backend(cpu));
    if (st != CLIK_OK) {
        rc = bench_failed(prog, cpu, st, what);
    } else if (c.kind != CHAIN_PYRAMID) {
        /* The resize and the upscale round floats, within +-1 per pixel; the
         * flows agree within the flow tolerance, the averages nearly. */
        double d = c.ssim > host->ssim ? c.ssim - host->ssim : host->ssim - c.ssim;
        snprintf(verdict, n, "SSIM %.6f against the device's %.6f (%s)", c.ssim, host->ssim,
                 backend);
        if (!(d <= 1e-3)) {
            fprintf(stderr,
                    "%s: CPU path vs host-image chain: SSIM %.6f and %.6f differ by more "
                    "than 1e-3\n",
                    prog, c.ssim, host->ssim);
            rc = EXIT_FAILED;
        }
    } else if (!chains_agree(cpu, &c, host, "CPU path vs host-image chain")) {
        rc = EXIT_FAILED;
    } else {
        snprintf(verdict, n, "identical (%s)", backend);
    }
    if (st == CLIK_OK)
        chain_free(&c);
    clik_context_destroy(cpu);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;

    clik_context *ctx;
    rc = bench_open_context(prog, o.device, o.allow_fallback ? 0 : 1, &ctx);
    if (rc) /* no device is a skip: nothing to compare */
        return rc;
    const clik_device_info *dev = clik_context_device(ctx);
    if (!dev) {
        fprintf(stderr,
                "%s: skipped: no OpenCL device (--device %s): device images would be host "
                "memory, nothing to compare\n",
                prog, o.device ? o.device : "auto");
        clik_context_destroy(ctx);
        return EXIT_SKIP;
    }

    chain dev_chain, host_chain;
    clik_image frame = {0}, frame2 = {0}, clean = {0}, result = {0};
    int have_dev = 0, have_host = 0;
    clik_status st = clik_image_alloc(&frame, o.width, o.height, o.channels, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_image_alloc(&result, o.width, o.height, o.channels, CLIK_U8);
    if (st == CLIK_OK && (st = chain_make(ctx, &dev_chain, &o, 1)) == CLIK_OK)
        have_dev = 1;
    if (st == CLIK_OK && (st = chain_make(ctx, &host_chain, &o, 0)) == CLIK_OK)
        have_host = 1;
    if (st != CLIK_OK) {
        rc = bench_failed(prog, ctx, st, "allocating the chains' images");
        goto done;
    }
    bench_fill_natural(&frame, o.seed);
    if (o.kind == CHAIN_FLOW) {
        st = clik_image_alloc(&frame2, o.width, o.height, 1, CLIK_U8);
        if (st == CLIK_OK)
            st = clik_image_alloc(&clean, o.width, o.height, 1, CLIK_U8);
        if (st != CLIK_OK) {
            rc = bench_failed(prog, ctx, st, "allocating the frames");
            goto done;
        }
        flow_frames(&frame, &clean, &frame2, o.seed);
        memcpy(host_chain.src2.data, frame2.data, frame2.stride * (size_t)frame2.height);
    }
    memcpy(host_chain.src.data, frame.data, frame.stride * (size_t)frame.height);
    if (o.dump_dir && (rc = dump(&frame, o.dump_dir, "input")) != 0)
        goto done;

    timing ta = {0, 0, 0}, tb = {0, 0, 0};
    rc = time_chains(ctx, &o, &dev_chain, &host_chain, &frame, &frame2, &result, &ta, &tb);
    double stage_ms[STAGES] = {0};
    if (rc == 0 && o.stages)
        rc = time_stages(ctx, &o, &dev_chain, &frame, &frame2, &result, stage_ms);
    if (rc)
        goto done;
    if (clik_context_last_backend(ctx) != CLIK_BACKEND_OPENCL) {
        fprintf(stderr, "%s: the chain ran on %s, not on the device\n", prog,
                clik_backend_name(clik_context_last_backend(ctx)));
        rc = EXIT_FAILED;
        goto done;
    }

    /* (a)'s downloaded result stands for its output. */
    if (o.inject)
        ((unsigned char *)result.data)[0] ^= 1;
    char why[128] = "";
    if (!same_pixels(&result, &host_chain.out, why, sizeof(why))) {
        fprintf(stderr, "%s: device-image and host-image chains differ: output: %s\n", prog, why);
        rc = EXIT_FAILED;
    }
    if (!chains_agree(ctx, &dev_chain, &host_chain, "device-image vs host-image chain"))
        rc = EXIT_FAILED;
    if (o.kind == CHAIN_PYRAMID &&
        !same_pixels(&host_chain.out, &host_chain.eq, why, sizeof(why))) {
        fprintf(stderr, "%s: the collapse does not rebuild the equalized image: %s\n", prog, why);
        rc = EXIT_FAILED;
    }
    /* The average of two aligned noisy frames is nearer the scene than one. */
    denoise dn = {0, 0};
    if (o.kind == CHAIN_FLOW) {
        dn.frame_db = psnr(&frame, &clean);
        dn.average_db = psnr(&result, &clean);
        if (!(dn.average_db > dn.frame_db + 1.0)) {
            fprintf(stderr,
                    "%s: the warp-compensated average is %.2f dB from the clean scene, the first "
                    "frame %.2f dB: not 1 dB nearer\n",
                    prog, dn.average_db, dn.frame_db);
            rc = EXIT_FAILED;
        }
    }
    const char *cpu_verdict = "not checked (--no-cpu-check)";
    char cpu_text[160] = "";
    if (rc == 0 && o.cpu_check) {
        rc = cpu_path_check(&o, &host_chain, cpu_text, sizeof(cpu_text));
        cpu_verdict = cpu_text;
    }
    if (rc == 0 && o.output_dir)
        rc = dump(&result, o.output_dir, "output");
    if (rc == 0)
        report(&o, dev, ta, tb, stage_ms, host_chain.ssim, cpu_verdict, dn);
    else
        fprintf(stderr, "%s: FAILED: the outputs differ or a call failed\n", prog);

done:
    if (have_dev)
        chain_free(&dev_chain);
    if (have_host)
        chain_free(&host_chain);
    clik_image_free(&frame);
    clik_image_free(&frame2);
    clik_image_free(&clean);
    clik_image_free(&result);
    clik_context_destroy(ctx);
    return rc;
}

/*
 * The op table of clik-bench: one entry per benchmarked public call. An op
 * with a conformance case (apps/support/cases_FAMILY.c) has the case's name
 * and runs the case itself: the timed call, its channel counts and its check
 * against the scalar oracle under the case's tolerance class are the case's;
 * the table adds only what is the benchmark's own (summary, bytes model,
 * flags). Ops without a case (a second input made here, --scale, several
 * outputs) keep a call of their own, checked the same way.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_ops.h"
#include "cases.h"

#define CH_1_4 ((1u << 1) | (1u << 4))

double bench_pixels(const bench_case *bc)
{
    return (double)bc->width * (double)bc->height * (double)bc->channels;
}

double bench_out_pixels(const bench_case *bc)
{
    return (double)bc->out_width * (double)bc->out_height * (double)bc->channels;
}

/* bc->state: size zeroed bytes, freed by free_state (NULL: out of memory). */
static void *new_state(bench_case *bc, size_t size)
{
    bc->state = calloc(1, size);
    return bc->state;
}

static void free_state(bench_case *bc)
{
    free(bc->state);
    bc->state = NULL;
}

/* Compares out (host or device) with the oracle's host image ref under tol;
 * appends to bc->detail, or fills bc->message and returns 0. */
static int check_output(bench_case *bc, const clik_image *out, const clik_image *ref,
                        sup_tolerance tol, const char *what)
{
    clik_image got;
    if (bench_fetch(bc, out, &got) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "cannot download %s", what);
        return 0;
    }
    sup_compare cmp;
    sup_compare_images(&got, ref, tol, &cmp);
    if (!cmp.pass) {
        snprintf(bc->message, sizeof(bc->message), "%s (%dx%d) against the scalar oracle: %s: %s",
                 what, got.width, got.height, sup_tolerance_name(tol), cmp.detail);
        return 0;
    }
    size_t n = strlen(bc->detail);
    if (n == 0 || cmp.mismatches)
        snprintf(bc->detail + n, sizeof(bc->detail) - n, "%s%s%s%s", n ? "; " : "",
                 sup_tolerance_name(tol), cmp.mismatches ? ": " : "",
                 cmp.mismatches ? cmp.detail : "");
    return 1;
}

/* ---- ops that run their conformance case -------------------------------------------- */

typedef struct case_state {
    const sup_case *c;
    clik_image out; /* the timed run's output: a device image when --resident */
} case_state;

/* One untimed run of the case gives the output's shape; the output is then
 * allocated as the benchmark's (device image when resident). */
static clik_status case_setup(bench_case *bc)
{
    case_state *s = new_state(bc, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    s->c = sup_case_find(bc->op->case_op);
    if (!s->c)
        return CLIK_ERR_INVALID_ARG;
    clik_image probe = {0};
    clik_status st = s->c->run(bc->ctx, &bc->src, &probe);
    if (st == CLIK_OK && (probe.width != bc->width || probe.height != bc->height)) {
        bc->out_width = probe.width;
        bc->out_height = probe.height;
    }
    if (st == CLIK_OK)
        st = bc->op->flags & BENCH_HOST_OUT
                 ? bench_host(bc, probe.width, probe.height, probe.channels, probe.type, &s->out)
                 : bench_output(bc, probe.width, probe.height, probe.channels, probe.type, &s->out);
    clik_image_free(&probe);
    return st;
}

static clik_status case_run(bench_case *bc)
{
    case_state *s = bc->state;
    return s->c->run(bc->ctx, &bc->src, &s->out);
}

/* The case on the scalar oracle with the same input, compared under its class. */
static int case_check(bench_case *bc)
{
    case_state *s = bc->state;
    clik_context *oracle = sup_case_oracle_context();
    sup_case_oracle o;
    memset(&o, 0, sizeof(o));
    bc->detail[0] = '\0';
    int ok = oracle && sup_case_oracle_of(s->c, oracle, &bc->src_host, &o) == CLIK_OK;
    if (!ok)
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed: %.200s",
                 oracle ? o.message : "no context");
    else
        ok = check_output(bc, &s->out, &o.want, s->c->tol, bc->op->name);
    sup_case_oracle_free(&o);
    clik_context_destroy(oracle);
    return ok;
}

/* The fields of a table entry that runs case NAME. */
#define CASE_OP(NAME)                                                                              \
    .name = NAME, .case_op = NAME, .setup = case_setup, .run = case_run, .check = case_check,      \
    .teardown = free_state

static double read_bytes(const bench_case *bc)
{
    return bench_pixels(bc); /* reads the image once */
}

static double read_write_bytes(const bench_case *bc)
{
    return 2.0 * bench_pixels(bc);
}

static double equalize_bytes(const bench_case *bc)
{
    return 3.0 * bench_pixels(bc); /* histogram pass, then read and write */
}

/* Read the input, write the output. */
static double in_out_bytes(const bench_case *bc)
{
    return bench_pixels(bc) + bench_out_pixels(bc);
}

static double integral_bytes(const bench_case *bc)
{
    return bench_pixels(bc) +
           4.0 * (double)(bc->width + 1) * (double)(bc->height + 1) * bc->channels;
}

/* ---- ops of their own: pyramid, integral-sq, SSIM, fusion, LAPAR, flow -------------------- */

#define SSIM_MEAN_TOL 1e-4

clik_status multi_setup_tol(bench_case *bc, multi_call call, int n, const int *w, const int *h,
                            const clik_type *types, const int *channels, sup_tolerance tol)
{
    multi_state *s = new_state(bc, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    s->call = call;
    s->n = n;
    s->tol = tol;
    clik_status st = CLIK_OK;
    for (int i = 0; i < n && st == CLIK_OK; i++)
        st = bench_output(bc, w[i], h[i], channels ? channels[i] : bc->channels, types[i],
                          &s->outs[i]);
    return st;
}

static clik_status multi_run(bench_case *bc)
{
    multi_state *s = bc->state;
    return s->call(bc->ctx, &bc->src, &s->src2, s->outs, &s->value);
}

/* Runs the same call on the scalar oracle and compares every output. */
/* Checks the outputs against those of ref_ctx (destroyed here). */
int multi_check_on(bench_case *bc, clik_context *ref_ctx)
{
    multi_state *s = bc->state;
    clik_image ref[MAX_OUTS];
    memset(ref, 0, sizeof(ref));
    double ref_value = 0.0;
    int ok = ref_ctx != NULL;
    for (int i = 0; i < s->n && ok; i++)
        ok = clik_image_alloc(&ref[i], s->outs[i].width, s->outs[i].height, s->outs[i].channels,
                              s->outs[i].type) == CLIK_OK;
    if (!ok || s->call(ref_ctx, &bc->src_host, &s->src2_host, ref, &ref_value) != CLIK_OK) {
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed");
        ok = 0;
    }
    bc->detail[0] = '\0';
    for (int i = 0; i < s->n && ok; i++) {
        char what[32];
        snprintf(what, sizeof(what), "output %d", i);
        ok = check_output(bc, &s->outs[i], &ref[i], s->tol, what);
    }
    if (ok && bc->has_value) {
        bc->value = s->value;
        if (!(fabs(s->value - ref_value) <= SSIM_MEAN_TOL)) {
            snprintf(bc->message, sizeof(bc->message), "the mean is %.6f, the scalar oracle's %.6f",
                     s->value, ref_value);
            ok = 0;
        }
    }
    for (int i = 0; i < MAX_OUTS; i++)
        clik_image_free(&ref[i]);
    clik_context_destroy(ref_ctx);
    return ok;
}

static int multi_check(bench_case *bc)
{
    return multi_check_on(bc, sup_case_oracle_context());
}

/* pyramid: clik_pyr_gaussian, 5 levels (fewer when the size does not allow them). */

#define PYRAMID_LEVELS 5

static int pyramid_count(int width, int height)
{
    int most = clik_pyr_max_levels(width, height);
    return most < PYRAMID_LEVELS ? most : PYRAMID_LEVELS;
}

static int pyramid_levels(const bench_case *bc)
{
    return pyramid_count(bc->width, bc->height);
}

static clik_status call_pyramid(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_pyr_gaussian(ctx, src, outs, pyramid_count(src->width, src->height));
}

static double pyramid_bytes(const bench_case *bc)
{
    /* Each level reads the one above it and writes itself. */
    double total = bench_pixels(bc);
    for (int i = 1; i <= pyramid_levels(bc); i++) {
        int w, h;
        clik_pyr_level_size(bc->width, bc->height, i, &w, &h);
        total += (i < pyramid_levels(bc) ? 2.0 : 1.0) * (double)w * (double)h * bc->channels;
    }
    return total;
}

static clik_status pyramid_setup(bench_case *bc)
{
    int n = pyramid_levels(bc), w[PYRAMID_LEVELS], h[PYRAMID_LEVELS];
    clik_type t[PYRAMID_LEVELS];
    if (n < 1)
        return CLIK_ERR_INVALID_ARG;
    for (int i = 0; i < n; i++) {
        clik_pyr_level_size(bc->width, bc->height, i + 1, &w[i], &h[i]);
        t[i] = CLIK_U8;
    }
    return multi_setup_tol(bc, call_pyramid, n, w, h, t, NULL, SUP_TOL_EXACT);
}

/* integral-sq: clik_integral, u32 sums and u64 sums of squares. */
static clik_status call_integral_sq(clik_context *ctx, const clik_image *src,
                                    const clik_image *src2, clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_integral(ctx, src, &outs[0], &outs[1]);
}

static double integral_sq_bytes(const bench_case *bc)
{
    return bench_pixels(bc) +
           12.0 * (double)(bc->width + 1) * (double)(bc->height + 1) * bc->channels;
}

static clik_status integral_sq_setup(bench_case *bc)
{
    int w[2] = {bc->width + 1, bc->width + 1}, h[2] = {bc->height + 1, bc->height + 1};
    clik_type t[2] = {CLIK_U32, CLIK_U64};
    return multi_setup_tol(bc, call_integral_sq, 2, w, h, t, NULL, SUP_TOL_EXACT);
}

/* ---- SSIM family: clik_ssim, map and mean ------------------------------------------------ */

static int ssim_side(int n)
{
    return n - (CLIK_SSIM_WINDOW - 1);
}

static double ssim_bytes(const bench_case *bc)
{
    /* Two u8 images read, the f32 map written. */
    return 2.0 * bench_pixels(bc) +
           4.0 * (double)ssim_side(bc->width) * (double)ssim_side(bc->height);
}

static clik_status call_ssim(clik_context *ctx, const clik_image *src, const clik_image *src2,
                             clik_image *outs, double *value)
{
    return clik_ssim(ctx, src, src2, &outs[0], value);
}

/* The second image: the input with sensor-like noise of about +-10 levels,
 * so that the mean SSIM is neither 0 nor 1 (a distorted copy, as in image
 * quality measurement). */
static void add_noise(const clik_image *src, clik_image *dst, uint64_t seed)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + 0x243f6a8885a308d3ull;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *a = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *b = (uint8_t *)dst->data + (size_t)y * dst->stride;
        for (int x = 0; x < src->width * src->channels; x++) {
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            int n = (int)((z >> 56) & 0xff) + (int)((z >> 48) & 0xff) - 255;
            int v = a[x] + n * 10 / 255;
            b[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

static clik_status ssim_setup(bench_case *bc)
{
    if (bc->width < CLIK_SSIM_WINDOW || bc->height < CLIK_SSIM_WINDOW)
        return CLIK_ERR_INVALID_SIZE;
    int w = ssim_side(bc->width), h = ssim_side(bc->height), one = 1;
    clik_type t = CLIK_F32;
    clik_status st = multi_setup_tol(bc, call_ssim, 1, &w, &h, &t, &one, SUP_TOL_SSIM);
    multi_state *s = bc->state;
    if (st == CLIK_OK)
        st = bench_host(bc, bc->width, bc->height, 1, CLIK_U8, &s->src2_host);
    if (st == CLIK_OK) {
        add_noise(&bc->src_host, &s->src2_host, bc->seed);
        st = bench_upload(bc, &s->src2_host, &s->src2);
    }
    bc->has_value = 1;
    return st;
}

/* ---- flow family: clik_flow_warp along a smooth flow ---------------------------------------- */

static clik_status call_flow_warp(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                  clik_image *outs, double *value)
{
    (void)value;
    return clik_flow_warp(ctx, src, src2, &outs[0]);
}

/* The denoising step's average with the frame itself (ref = src). */
static clik_status call_flow_warp_average(clik_context *ctx, const clik_image *src,
                                          const clik_image *src2, clik_image *outs, double *value)
{
    (void)value;
    return clik_flow_warp_average(ctx, src, src, src2, &outs[0]);
}

static double warp_bytes(const bench_case *bc)
{
    /* The image read once, the flow (8 bytes a pixel) read, dst written. */
    return 2.0 * bench_pixels(bc) + 8.0 * (double)bc->width * (double)bc->height;
}

static double warp_average_bytes(const bench_case *bc)
{
    return warp_bytes(bc) + bench_pixels(bc);
}

/* The flow, a second input: a smooth motion of up to 3 pixels. */
static clik_status warp_setup_call(bench_case *bc, multi_call call)
{
    int w = bc->width, h = bc->height;
    clik_type t = CLIK_U8;
    clik_status st = multi_setup_tol(bc, call, 1, &w, &h, &t, NULL, SUP_TOL_EXACT);
    multi_state *s = bc->state;
    if (st == CLIK_OK)
        st = bench_host(bc, w, h, 2, CLIK_F32, &s->src2_host);
    for (int y = 0; st == CLIK_OK && y < h; y++) {
        float *f = (float *)(void *)((char *)s->src2_host.data + (size_t)y * s->src2_host.stride);
        for (int x = 0; x < w; x++) {
            f[2 * x] = (float)(3.0 * sin(0.01 * x + 0.02 * y));
            f[2 * x + 1] = (float)(2.0 * cos(0.015 * x - 0.01 * y));
        }
    }
    if (st == CLIK_OK)
        st = bench_upload(bc, &s->src2_host, &s->src2);
    return st;
}

static clik_status flow_warp_setup(bench_case *bc)
{
    return warp_setup_call(bc, call_flow_warp);
}

static clik_status flow_warp_average_setup(bench_case *bc)
{
    return warp_setup_call(bc, call_flow_warp_average);
}

/* ---- YUV family: a camera frame to RGBA ---------------------------------------------------- */

/* The input image is the frame's luma; its chroma, a second input, is made
 * here: an NV21 frame of the input's size (even) to RGBA, BT.601 (OpenCV's
 * COLOR_YUV2RGBA_NV21). */
static clik_status call_nv21_rgba(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                  clik_image *outs, double *value)
{
    (void)value;
    const clik_yuv_image f = {.format = CLIK_YUV_NV21, .y = *src, .uv = *src2};
    return clik_yuv_to_rgb(ctx, &f, &outs[0], CLIK_YUV_BT601);
}

static double nv21_bytes(const bench_case *bc)
{
    /* The frame (1.5 bytes a pixel) read, RGBA written. */
    return 5.5 * (double)bc->width * (double)bc->height;
}

static clik_status nv21_setup(bench_case *bc)
{
    if (bc->width % 2 != 0 || bc->height % 2 != 0)
        return CLIK_ERR_INVALID_SIZE;
    int w = bc->width, h = bc->height, four = 4;
    clik_type t = CLIK_U8;
    clik_status st = multi_setup_tol(bc, call_nv21_rgba, 1, &w, &h, &t, &four, SUP_TOL_EXACT);
    multi_state *s = bc->state;
    if (st == CLIK_OK)
        st = bench_host(bc, w / 2, h / 2, 2, CLIK_U8, &s->src2_host);
    if (st == CLIK_OK) {
        for (int y = 0; y < h / 2; y++)
            for (int x = 0; x < w; x++)
                ((uint8_t *)s->src2_host.data)[(size_t)y * s->src2_host.stride + (size_t)x] =
                    (uint8_t)(((unsigned)x * 7u + (unsigned)y * 13u) ^ 0x5a);
        st = bench_upload(bc, &s->src2_host, &s->src2);
    }
    return st;
}

/* An NV21 frame of the input's size (the luma; chroma made as for
 * yuv_to_rgb) resized x2, bilinear, plane by plane: a camera preview's
 * upscale without leaving the frame's format. */
static clik_status call_nv21_resize(clik_context *ctx, const clik_image *src,
                                    const clik_image *src2, clik_image *outs, double *value)
{
    (void)value;
    const clik_yuv_image f = {.format = CLIK_YUV_NV21, .y = *src, .uv = *src2};
    clik_yuv_image g = {.format = CLIK_YUV_NV21, .y = outs[0], .uv = outs[1]};
    return clik_yuv_resize(ctx, &f, &g, CLIK_INTERP_BILINEAR);
}

/* The same frame upscaled x2 by the LAPAR model (luma) and bicubic
 * (chroma). */
static clik_status call_nv21_lapar(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                   clik_image *outs, double *value)
{
    (void)value;
    const clik_yuv_image f = {.format = CLIK_YUV_NV21, .y = *src, .uv = *src2};
    clik_yuv_image g = {.format = CLIK_YUV_NV21, .y = outs[0], .uv = outs[1]};
    return clik_yuv_upscale_lapar(ctx, &f, &g, 2, NULL);
}

/* The same frame upscaled x2 by LAPAR-A (luma) and bicubic (chroma). */
static clik_status call_nv21_lapar_a(clik_context *ctx, const clik_image *src,
                                     const clik_image *src2, clik_image *outs, double *value)
{
    (void)value;
    const clik_yuv_image f = {.format = CLIK_YUV_NV21, .y = *src, .uv = *src2};
    clik_yuv_image g = {.format = CLIK_YUV_NV21, .y = outs[0], .uv = outs[1]};
    clik_lapar_net *net = NULL; /* built in: held for the process */
    clik_status st = clik_lapar_net_builtin(ctx, "lapar-a", 2, &net);
    return st == CLIK_OK ? clik_yuv_upscale_lapar_net(ctx, &f, &g, net) : st;
}

static double nv21_resize_bytes(const bench_case *bc)
{
    /* The frame (1.5 bytes a pixel) read, one of 4 times its pixels written. */
    return 7.5 * (double)bc->width * (double)bc->height;
}

/* An NV21 frame x2 by call, compared under tol. */
static clik_status nv21_x2_setup(bench_case *bc, multi_call call, sup_tolerance tol)
{
    if (bc->width % 2 != 0 || bc->height % 2 != 0)
        return CLIK_ERR_INVALID_SIZE;
    int w[2] = {2 * bc->width, bc->width}, h[2] = {2 * bc->height, bc->height}, ch[2] = {1, 2};
    const clik_type t[2] = {CLIK_U8, CLIK_U8};
    clik_status st = multi_setup_tol(bc, call, 2, w, h, t, ch, tol);
    multi_state *s = bc->state;
    if (st == CLIK_OK)
        st = bench_host(bc, bc->width / 2, bc->height / 2, 2, CLIK_U8, &s->src2_host);
    if (st == CLIK_OK) {
        for (int y = 0; y < bc->height / 2; y++)
            for (int x = 0; x < bc->width; x++)
                ((uint8_t *)s->src2_host.data)[(size_t)y * s->src2_host.stride + (size_t)x] =
                    (uint8_t)(((unsigned)x * 7u + (unsigned)y * 13u) ^ 0x5a);
        st = bench_upload(bc, &s->src2_host, &s->src2);
    }
    return st;
}

static clik_status nv21_resize_setup(bench_case *bc)
{
    return nv21_x2_setup(bc, call_nv21_resize, SUP_TOL_U8_FLOAT);
}

static clik_status nv21_lapar_setup(bench_case *bc)
{
    return nv21_x2_setup(bc, call_nv21_lapar, SUP_TOL_FUSION);
}

static clik_status nv21_lapar_a_setup(bench_case *bc)
{
    return nv21_x2_setup(bc, call_nv21_lapar_a, SUP_TOL_U8_FLOAT);
}

/* ---- fusion family: clik_upscale_fusion and the stream ----------------------------------- */

static clik_status call_fusion(clik_context *ctx, const clik_image *src, const clik_image *src2,
                               clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_upscale_fusion(ctx, src, &outs[0], NULL, NULL);
}

/* An upscaler by --scale: one u8 output of scale times the input's size,
 * compared under FUSION (a pixel may take the other image or bucket). */
static clik_status upscaler_setup(bench_case *bc, multi_call call)
{
    int s = (int)bc->scale, w = s * bc->width, h = s * bc->height;
    bc->out_width = w;
    bc->out_height = h;
    clik_type t = CLIK_U8;
    return multi_setup_tol(bc, call, 1, &w, &h, &t, NULL, SUP_TOL_FUSION);
}

static clik_status fusion_setup(bench_case *bc)
{
    return upscaler_setup(bc, call_fusion);
}

static clik_status call_upscale_lapar(clik_context *ctx, const clik_image *src,
                                      const clik_image *src2, clik_image *outs, double *value)
{
    (void)src2, (void)value;
    return clik_upscale_lapar(ctx, src, &outs[0], outs[0].width / src->width, NULL);
}

static clik_status upscale_lapar_setup(bench_case *bc)
{
    return upscaler_setup(bc, call_upscale_lapar);
}

#define STREAM_INPUTS  2
#define STREAM_MAX_OUT 17 /* --depth (at most 16) + 1 */

/* Frames cycle through STREAM_INPUTS inputs and depth + 1 outputs: an output
 * is reused only after the wait for the frame that wrote it, as the API asks,
 * while depth frames stay in flight. */
typedef struct stream_state {
    clik_fusion_stream *stream;
    int nout;
    clik_image in[STREAM_INPUTS];
    clik_image out[STREAM_MAX_OUT];
    uint64_t ticket[STREAM_MAX_OUT]; /* the last frame written to out[i], 0: none */
    int input_of[STREAM_MAX_OUT];    /* the input of that frame */
} stream_state;

static clik_status stream_setup(bench_case *bc)
{
    stream_state *s = new_state(bc, sizeof(*s));
    if (!s)
        return CLIK_ERR_NO_MEMORY;
    /* The streaming API takes host frames: --resident does not apply. */
    bc->resident = 0;
    const int scale = (int)bc->scale;
    bc->out_width = scale * bc->width;
    bc->out_height = scale * bc->height;
    bc->frames = bc->stream_frames;
    /* The stream's queues are its own, without profiling events: its kernel
     * time is fusion's. */
    bc->no_kernel_time = 1;
    s->nout = bc->stream_depth + 1;
    s->in[0] = bc->src_host;
    clik_status st = bench_input(bc, bc->width, bc->height, 4, 1, &s->in[1], NULL);
    for (int i = 0; i < s->nout && st == CLIK_OK; i++)
        st = bench_output(bc, bc->out_width, bc->out_height, 4, CLIK_U8, &s->out[i]);
    if (st == CLIK_OK)
        st = clik_fusion_stream_create(bc->ctx, bc->width, bc->height, scale, NULL,
                                       bc->stream_depth, &s->stream);
    return st;
}

static clik_status stream_run(bench_case *bc)
{
    stream_state *s = bc->state;
    clik_status st = CLIK_OK;
    for (int f = 0; f < bc->frames && st == CLIK_OK; f++) {
        const int o = f % s->nout, in = f % STREAM_INPUTS;
        if (s->ticket[o])
            st = clik_fusion_stream_wait(s->stream, s->ticket[o]);
        if (st == CLIK_OK)
            st = clik_fusion_stream_submit(s->stream, &s->in[in], &s->out[o], NULL, &s->ticket[o]);
        s->input_of[o] = in;
    }
    clik_status waited = clik_fusion_stream_wait(s->stream, UINT64_MAX);
    return st != CLIK_OK ? st : waited;
}

/* Every output slot against the oracle's fusion of its frame's input. */
static int stream_check(bench_case *bc)
{
    stream_state *s = bc->state;
    clik_context *ref_ctx = sup_case_oracle_context();
    clik_image ref[STREAM_INPUTS];
    memset(ref, 0, sizeof(ref));
    int ok = ref_ctx != NULL;
    for (int i = 0; i < STREAM_INPUTS && ok; i++)
        ok = clik_image_alloc(&ref[i], bc->out_width, bc->out_height, 4, CLIK_U8) == CLIK_OK &&
             clik_upscale_fusion(ref_ctx, &s->in[i], &ref[i], NULL, NULL) == CLIK_OK;
    if (!ok)
        snprintf(bc->message, sizeof(bc->message), "the scalar oracle failed");
    bc->detail[0] = '\0';
    for (int o = 0; o < s->nout && ok; o++) {
        if (!s->ticket[o])
            continue;
        char what[48];
        snprintf(what, sizeof(what), "frame %llu", (unsigned long long)s->ticket[o]);
        ok = check_output(bc, &s->out[o], &ref[s->input_of[o]], SUP_TOL_FUSION, what);
    }
    for (int i = 0; i < STREAM_INPUTS; i++)
        clik_image_free(&ref[i]);
    clik_context_destroy(ref_ctx);
    return ok;
}

static void stream_teardown(bench_case *bc)
{
    stream_state *s = bc->state;
    if (s)
        clik_fusion_stream_destroy(s->stream);
    free_state(bc);
}

/* ---- the table ------------------------------------------------------------------------ */

/* The callbacks of an op of its own checked against the oracle (MULTI). */
#define MULTI .run = multi_run, .check = multi_check, .teardown = free_state

/* An op of its own on grey or RGBA (a warp: along the smooth flow of
 * warp_setup_call), checked against the oracle. */
#define MULTI_OP(NAME, SUMMARY, RULE, BYTES, SETUP)                                                \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .channels = CH_1_4, .bytes_rule = RULE,                  \
        .bytes_moved = BYTES, .setup = SETUP, MULTI,                                               \
    }

/* The fusion upscaler's ops: RGBA frames read and written (in_out_bytes). */
#define FUSION_FRAMES                                                                              \
    .channels = 1u << 4,                                                                           \
    .channels_hint = "the fusion upscaler takes RGBA frames: use --channels 4",                    \
    .bytes_moved = in_out_bytes

/* An op on an NV21 frame whose luma is the input (its chroma made by SETUP). */
#define NV21_OP(NAME, SUMMARY, RULE, BYTES, SETUP)                                                 \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .channels = 1u << 1,                                     \
        .channels_hint = "the frame's luma is the input: use --channels 1", .bytes_rule = RULE,    \
        .bytes_moved = BYTES, .setup = SETUP, MULTI,                                               \
    }

#define LAPAR_OP(NAME, SUMMARY, RULE, SETUP)                                                       \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .channels = CH_1_4,                                      \
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE, .bytes_rule = RULE,                           \
        .bytes_moved = lapar_bytes, .setup = SETUP, MULTI, .kernel_bytes = lapar_kernel_bytes,     \
    }

/* An op that runs its conformance case. */
#define CASE_ROW(NAME, SUMMARY, RULE, BYTES)                                                       \
    {                                                                                              \
        CASE_OP(NAME), .summary = SUMMARY, .bytes_rule = RULE, .bytes_moved = BYTES,               \
    }

/* A released LAPAR network, the network and the filter, checked against the
 * oracle's output. */
#define NET_OP(NAME, SUMMARY, SETUP)                                                               \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .channels = CH_1_4,                                      \
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE,                                               \
        .bytes_rule = "W*H*C + S*S*W*H*C (read + write)", .bytes_moved = in_out_bytes,             \
        .setup = SETUP, .run = multi_run, .check = net_check, .teardown = free_state,              \
        .kernel_flops = net_kernel_flops,                                                          \
    }

#define FLOW_OP(NAME, SUMMARY, SETUP, KERNEL_BYTES)                                                \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .channels = 1u << 1,                                     \
        .channels_hint = "optical flow takes grey images: use --channels 1",                       \
        .bytes_rule = "2*W*H + 8*W*H (two u8 images read, the flow written)",                      \
        .bytes_moved = flow_bytes, .setup = SETUP, MULTI, .kernel_bytes = KERNEL_BYTES,            \
    }

const bench_op bench_ops[] = {
    {
        CASE_OP("hist_compute"),
        .summary = "clik_hist_compute: 256-bin histogram per channel",
        .flags = BENCH_HOST_OUT,
        .bytes_rule = "W*H*C (read)",
        .bytes_moved = read_bytes,
    },
    CASE_ROW("hist_equalize", "clik_hist_equalize: histogram equalization (alpha kept)",
             "3*W*H*C (histogram read, lookup read + write)", equalize_bytes),
    CASE_ROW("hist_equalize_luma",
             "clik_hist_equalize_luma: equalization of the luma (YCrCb) of RGBA",
             "3*W*H*C (luma and histogram read, merge read + write)", equalize_bytes),
    CASE_ROW("clahe", "clik_clahe: CLAHE, clip 2, 8x5 tiles (grey, or the luma of RGBA)",
             "3*W*H*C (tile histograms read, blend read + write)", equalize_bytes),
    CASE_ROW("hist_lut-shared", "clik_hist_lut: one 256-entry table for every channel",
             "2*W*H*C (read + write)", read_write_bytes),
    CASE_ROW("pyr_down", "clik_pyr_down: 5x5 Gaussian and decimation (OpenCV pyrDown)",
             "W*H*C + (W+1)/2*(H+1)/2*C (read + write)", in_out_bytes),
    MULTI_OP("pyr_gaussian", "clik_pyr_gaussian: 5 levels in one call",
             "W*H*C + 2*sum(levels 1..4) + level 5 (each level read and written)", pyramid_bytes,
             pyramid_setup),
    CASE_ROW("pyr_up", "clik_pyr_up: upsampling by 2 (OpenCV pyrUp)",
             "5*W*H*C (read W*H, write 2W*2H)", in_out_bytes),
    CASE_ROW("integral", "clik_integral: u32 sums (OpenCV layout)",
             "W*H*C + 4*(W+1)*(H+1)*C (read + write)", integral_bytes),
    MULTI_OP("integral-sq", "clik_integral: u32 sums and u64 sums of squares",
             "W*H*C + 12*(W+1)*(H+1)*C (read + write both)", integral_sq_bytes, integral_sq_setup),
    CASE_ROW("resize-nearest-x2", "clik_resize nearest x2 (OpenCV INTER_NEAREST)",
             "W*H*C + W'*H'*C (read + write)", in_out_bytes),
    CASE_ROW("resize-bilinear-x2", "clik_resize bilinear x2 (half-pixel centres)",
             "W*H*C + W'*H'*C (read + write)", in_out_bytes),
    CASE_ROW("resize-bicubic-x2", "clik_resize bicubic x2 (Keys, A = -0.75)",
             "W*H*C + W'*H'*C (read + write)", in_out_bytes),
    CASE_ROW("resize-bicubic-aa-d3", "clik_resize bicubic-aa by 1/3 (MATLAB imresize, antialiased)",
             "W*H*C + W'*H'*C (read + write)", in_out_bytes),
    CASE_ROW("gaussian_blur-k7", "clik_gaussian_blur 7x7, sigma 0 (OpenCV's), reflect-101",
             "2*W*H*C (read + write)", read_write_bytes),
    {
        CASE_OP("gray"),
        .summary = "clik_gray: RGB(A) -> BT.601 luma (OpenCV's fixed point)",
        .channels_hint = "grey takes colour: use --channels 3 or 4",
        .bytes_rule = "W*H*C + W*H (read + write)",
        .bytes_moved = in_out_bytes,
    },
    NV21_OP("yuv_to_rgb-nv21",
            "clik_yuv_to_rgb: an NV21 frame to RGBA (OpenCV's COLOR_YUV2RGBA_NV21)",
            "1.5*W*H + 4*W*H (frame read, RGBA written)", nv21_bytes, nv21_setup),
    NV21_OP("yuv_resize-nv21-x2", "clik_yuv_resize: an NV21 frame x2, bilinear, plane by plane",
            "1.5*W*H + 6*W*H (frame read, frame of 4x the pixels written)", nv21_resize_bytes,
            nv21_resize_setup),
    NV21_OP("yuv_upscale_lapar-nv21-x2",
            "clik_yuv_upscale_lapar: an NV21 frame x2, LAPAR model luma, bicubic chroma",
            "1.5*W*H + 6*W*H (frame read, frame of 4x the pixels written)", nv21_resize_bytes,
            nv21_lapar_setup),
    NV21_OP("yuv_upscale_lapar_net-nv21-x2",
            "clik_yuv_upscale_lapar_net: an NV21 frame x2, LAPAR-A luma, bicubic chroma",
            "1.5*W*H + 6*W*H (frame read, frame of 4x the pixels written)", nv21_resize_bytes,
            nv21_lapar_a_setup),
    {
        .name = "ssim",
        .summary = "clik_ssim: 11x11 Gaussian SSIM map and mean of two images",
        .channels = 1u << 1,
        .channels_hint = "SSIM compares one-channel (grey) images: use --channels 1",
        .bytes_rule = "2*W*H + 4*(W-10)*(H-10) (two reads, f32 map)",
        .bytes_moved = ssim_bytes,
        .setup = ssim_setup,
        MULTI,
    },
    {
        .name = "upscale_fusion",
        .summary = "clik_upscale_fusion by --scale, whole frame, default options",
        FUSION_FRAMES,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE | BENCH_FRAMES,
        .bytes_rule = "4*W*H + 4*S*S*W*H (RGBA read + write)",
        .setup = fusion_setup,
        MULTI,
    },
    {
        .name = "fusion_stream_submit",
        .summary = "clik_fusion_stream_*: --frames host frames, --depth in flight",
        FUSION_FRAMES,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE | BENCH_FRAMES | BENCH_STREAM,
        .bytes_rule = "4*W*H + 4*S*S*W*H per frame",
        .setup = stream_setup,
        .run = stream_run,
        .check = stream_check,
        .teardown = stream_teardown,
    },
    {
        .name = "upscale_lapar",
        .summary = "clik_upscale_lapar by --scale (2..4), the default model, whole frame",
        .channels = CH_1_4,
        .flags = BENCH_USES_SCALE | BENCH_INT_SCALE,
        .bytes_rule = "W*H*C + S*S*W*H*C (read + write)",
        .bytes_moved = in_out_bytes,
        .setup = upscale_lapar_setup,
        MULTI,
    },
    NET_OP("lapar_net_run-a",
           "clik_lapar_net_run with LAPAR-A by --scale (2 or 4): the network and the filter",
           call_net_a_setup),
    NET_OP("lapar_net_run-b", "clik_lapar_net_run with LAPAR-B by --scale (2 or 4)",
           call_net_b_setup),
    NET_OP("lapar_net_run-c", "clik_lapar_net_run with LAPAR-C by --scale (2 or 4)",
           call_net_c_setup),
    LAPAR_OP("lapar_filter", "clik_lapar_filter by --scale (2..4): 72 atoms, f32 phi",
             "4*72*S*S*W*H + W*H*C + S*S*W*H*C (phi, input, output)", lapar_setup),
    LAPAR_OP("lapar_filter-f16", "clik_lapar_filter by --scale: 72 atoms, f16 phi",
             "2*72*S*S*W*H + W*H*C + S*S*W*H*C", lapar_f16_setup),
    LAPAR_OP("lapar_filter-a50",
             "clik_lapar_filter by --scale: 36 of 72 atoms kept (alpha 0.5), f32 phi",
             "4*36*S*S*W*H + W*H*C + S*S*W*H*C", lapar_half_setup),
    LAPAR_OP("lapar_filter-a10",
             "clik_lapar_filter by --scale: 7 of 72 atoms kept (alpha 0.1), f32 phi",
             "4*7*S*S*W*H + W*H*C + S*S*W*H*C", lapar_tenth_setup),
    FLOW_OP("flow_tvl1", "clik_flow_tvl1, the defaults (IPOL's), f32 storage; I1 = I0 moved",
            flow_defaults_setup, NULL),
    FLOW_OP("flow_tvl1-f16", "clik_flow_tvl1, the defaults, f16 storage of u and p",
            flow_defaults_f16_setup, NULL),
    FLOW_OP("flow_tvl1-1warp",
            "clik_flow_tvl1, Romera et al.'s configuration: 1 level, 1 warp, 10 iterations, f32",
            flow_one_warp_setup, flow_kernel_bytes),
    FLOW_OP("flow_tvl1-1warp-f16", "clik_flow_tvl1, Romera et al.'s configuration, f16 storage",
            flow_one_warp_f16_setup, flow_kernel_bytes),
    MULTI_OP("flow_warp",
             "clik_flow_warp along a smooth flow of up to 3 pixels (cv2.remap, bilinear)",
             "2*W*H*C + 8*W*H (image and flow read, dst written)", warp_bytes, flow_warp_setup),
    MULTI_OP("flow_warp_average",
             "clik_flow_warp_average of the image with its own warp (ref = src)",
             "3*W*H*C + 8*W*H (image twice and flow read, dst written)", warp_average_bytes,
             flow_warp_average_setup),
};

const int bench_op_count = (int)(sizeof(bench_ops) / sizeof(bench_ops[0]));

/* The names the ops had before each took its C function's name without
 * clik_ (scripts and results of earlier runs use them): refused with the
 * new name, never run under the old one. */
static const char *const renamed[][2] = {
    {"hist", "hist_compute"},
    {"equalize", "hist_equalize"},
    {"lut-shared", "hist_lut-shared"},
    {"pyrdown", "pyr_down"},
    {"pyramid", "pyr_gaussian"},
    {"pyrup", "pyr_up"},
    {"blur-k7", "gaussian_blur-k7"},
    {"fusion", "upscale_fusion"},
    {"fusion-stream", "fusion_stream_submit"},
    {"upscale-lapar", "upscale_lapar"},
    {"lapar-net-a", "lapar_net_run-a"},
    {"lapar-net-b", "lapar_net_run-b"},
    {"lapar-net-c", "lapar_net_run-c"},
    {"lapar", "lapar_filter"},
    {"lapar-f16", "lapar_filter-f16"},
    {"lapar-a50", "lapar_filter-a50"},
    {"lapar-a10", "lapar_filter-a10"},
    {"tvl1", "flow_tvl1"},
    {"tvl1-f16", "flow_tvl1-f16"},
    {"tvl1-seed", "flow_tvl1-1warp"},
    {"tvl1-seed-f16", "flow_tvl1-1warp-f16"},
    {"lut", "hist_lut-shared"},
    {"blur", "gaussian_blur-k7"},
    {"resize-nearest", "resize-nearest-x2"},
    {"resize-bilinear", "resize-bilinear-x2"},
    {"resize-bicubic", "resize-bicubic-x2"},
};

const char *bench_op_renamed(const char *old)
{
    for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
        if (strcmp(renamed[i][0], old) == 0)
            return renamed[i][1];
    return NULL;
}

const bench_op *bench_op_find(const char *name)
{
    for (int i = 0; i < bench_op_count; i++)
        if (strcmp(bench_ops[i].name, name) == 0)
            return &bench_ops[i];
    return NULL;
}

unsigned bench_op_channels(const bench_op *op)
{
    const sup_case *c = op->case_op ? sup_case_find(op->case_op) : NULL;
    return c ? c->channels : op->channels;
}

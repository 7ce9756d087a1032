/*
 * Fusion upscaler family (kernels/fusion.cl, fallback_cpu/{scalar,neon}/
 * fusion.c): whole frames, and a stream of frames whose uploads, kernels and
 * downloads overlap on several command queues (Martinez and Toro,
 * section X).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaussian.h"
#include "internal.h"

#define MIN_SCALE 2
#define MAX_SCALE 8
#define MAX_DEPTH 8
#define DEF_DEPTH 3
/* The floats of the plan's table (plan_table). */
#define TABLE_CAP (4 * MAX_SCALE + CLIK_BLUR_MAX_KSIZE + MAX_SCALE)

void clik_fusion_options_init(clik_fusion_options *opt)
{
    if (!opt)
        return;
    opt->tile = 8;
    opt->blur_ksize = 7;
    opt->threshold = 0.05f;
}

/* ---- validation ------------------------------------------------------------------ */

static clik_status check_options(clik_context *ctx, const clik_fusion_options *o, const char *fn)
{
    if (o->tile < 2 || o->tile > 16)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: tile %d is outside 2..16", fn, o->tile);
    if (o->blur_ksize < 1 || o->blur_ksize > CLIK_BLUR_MAX_KSIZE || o->blur_ksize % 2 == 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: blur size %d is not odd in 1..%d", fn,
                          o->blur_ksize, CLIK_BLUR_MAX_KSIZE);
    if (!isfinite(o->threshold))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: the threshold is not a finite number",
                          fn);
    return CLIK_OK;
}

static clik_status check_rgba(clik_context *ctx, const clik_image *img, const char *fn,
                              const char *what)
{
    char name[96];
    snprintf(name, sizeof(name), "%s: %s", fn, what);
    return clik__check_format(ctx, img, name, CLIK_TYPES(CLIK_U8), CLIK_CHANNELS(3, 4), 0, 0);
}

/* The scale of dst over src: an integer 2..8, the same on both axes. */
static clik_status check_scale(clik_context *ctx, const clik_image *src, const clik_image *dst,
                               const char *fn, int *scale)
{
    const int s = dst->width / src->width;
    if (dst->width % src->width != 0 || s < MIN_SCALE || s > MAX_SCALE ||
        dst->height != s * src->height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          "%s: dst is %dx%d; it must be %dx%d times an integer scale %d..%d", fn,
                          dst->width, dst->height, src->width, src->height, MIN_SCALE, MAX_SCALE);
    *scale = s;
    return CLIK_OK;
}

/* Everything clik_upscale_fusion checks; *o receives the options in use. */
static clik_status check_call(clik_context *ctx, const clik_image *src, const clik_image *dst,
                              const clik_fusion_options *opt, const clik_image *map,
                              clik_fusion_options *o, int *scale, const char *fn)
{
    if (opt)
        *o = *opt;
    else
        clik_fusion_options_init(o);
    clik_status st = check_options(ctx, o, fn);
    if (st == CLIK_OK)
        st = check_rgba(ctx, src, fn, "src");
    if (st == CLIK_OK)
        st = check_rgba(ctx, dst, fn, "dst");
    if (st == CLIK_OK && dst->channels != src->channels)
        st = clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                        "%s: dst has %d channels; it must have src's %d", fn, dst->channels,
                        src->channels);
    if (st == CLIK_OK)
        st = check_scale(ctx, src, dst, fn, scale);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, dst, 0, fn);
    if (st != CLIK_OK || !map)
        return st;
    char name[96];
    snprintf(name, sizeof(name), "%s: artifact map", fn);
    st = clik__check_format(ctx, map, name, CLIK_TYPES(CLIK_U8), CLIK_CHANNELS(1), dst->width,
                            dst->height);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, map, 0, fn);
    return st == CLIK_OK ? clik__check_apart(ctx, dst, map, 0, fn) : st;
}

/* ---- OpenCL path ----------------------------------------------------------------------- */

typedef struct fusion_plan {
    int scale, tile, ksize;
    float threshold;
    int sw, sh, dw, dh, tw, th; /* source, output and tile-map sizes */
    int pix4;                   /* RGBA rows of src and dst are 4-byte aligned */
    int map;                    /* an artifact map is written */
    int bgr;                    /* the luma reads BGR(A) pixels */
    int cpu;                    /* the row-per-work-item kernels of CPU devices */
    clik_kernel_entry *k[5];    /* valid for the context's life */
    char options[64];           /* build options (plan_options) */
    cl_mem table;               /* plan_table on the device */
} fusion_plan;

/* GPUs: upscale, tiles, rows, select. CPU devices: hpass, vpass, tiles,
 * hblur, vselect. */
enum { K_UPSCALE, K_TILES, K_ROWS, K_SELECT };
enum { K_HPASS, K_VPASS, K_CTILES, K_HBLUR, K_VSELECT };
static const char *const gpu_kernels[] = {"fusion_block", "fusion_tiles", "fusion_rows",
                                          "fusion_select"};
static const char *const cpu_kernels[] = {"fusion_hpass", "fusion_vpass", "fusion_tiles",
                                          "fusion_hblur", "fusion_vselect"};

/* The plan's build options, made once per plan: the sizes only. */
static void plan_options(fusion_plan *p)
{
    snprintf(p->options, sizeof(p->options), "-DS=%d -DT=%d -DK=%d -DPIX4=%d -DMAP=%d -DBGR=%d",
             p->scale, p->tile, p->ksize, p->pix4, p->map, p->bgr);
}

/* The table the kernels read as one __constant buffer (kernels/fusion.cl,
 * XW, BW, XOFS): the bicubic weights of each output phase r (4 each, the
 * weights clik_resize gives u8 images), the blur weights bw, then each
 * phase's tap offset; the source point of output s q + r is q + (r + 0.5) /
 * s - 0.5. Returns the count of floats in t. */
static size_t plan_table(const fusion_plan *p, const float *bw, float t[TABLE_CAP])
{
    const int s = p->scale;
    for (int r = 0; r < s; r++) {
        const double f = (r + 0.5) / s - 0.5;
        double w[4];
        clik__cubic_weights(f - floor(f), w);
        for (int i = 0; i < 4; i++)
            t[4 * r + i] = (float)clik__u8_weight(w[i]);
        t[4 * s + p->ksize + r] = (float)floor(f);
    }
    memcpy(t + 4 * s, bw, (size_t)p->ksize * sizeof(float));
    return (size_t)(5 * s + p->ksize);
}

/* The plan's kernels: built once, then found in memory. */
static clik_status plan_kernels(clik_context *ctx, fusion_plan *p)
{
    const int n = p->cpu ? 5 : 4;
    for (int i = 0; i < n; i++) {
        clik_status st = clik__kernel(ctx, "fusion", p->options,
                                      p->cpu ? cpu_kernels[i] : gpu_kernels[i], &p->k[i]);
        if (st != CLIK_OK)
            return st;
    }
    return CLIK_OK;
}

static void plan_sizes(clik_context *ctx, fusion_plan *p, int sw, int sh, int scale,
                       const clik_fusion_options *o)
{
    p->cpu = (int)clik__tune(ctx, CLIK_TUNE_FUSION_CPU, ctx->dev.type == CLIK_DEVICE_CPU);
    p->scale = scale;
    p->tile = o->tile;
    p->ksize = o->blur_ksize;
    p->threshold = o->threshold;
    p->sw = sw;
    p->sh = sh;
    p->dw = sw * scale;
    p->dh = sh * scale;
    p->tw = (p->dw + o->tile - 1) / o->tile;
    p->th = (p->dh + o->tile - 1) / o->tile;
}

/* Device intermediates of one frame; hrow and art only on CPU devices. */
#define NSCRATCH 8
typedef struct fusion_scratch {
    cl_mem img1, img2, g1, g2, tiles, rows, hrow, art;
} fusion_scratch;

/* Bytes of each intermediate (0: not used). */
static void scratch_bytes(const fusion_plan *p, size_t bytes[NSCRATCH])
{
    const size_t px = (size_t)p->dw * (size_t)p->dh;
    bytes[0] = bytes[1] = px * 4;
    bytes[2] = bytes[3] = px;
    bytes[4] = (size_t)p->tw * (size_t)p->th * sizeof(float);
    bytes[5] = px * sizeof(float);
    bytes[6] = p->cpu ? (size_t)p->sh * (size_t)p->dw * 4 * sizeof(float) : 0;
    bytes[7] = p->cpu ? px * sizeof(float) : 0;
}

/* The kernels form row offsets as size_t products: a frame may take any
 * size whose buffers the device allocates. Refuses (CLIK_ERR_DEVICE_LIMITS,
 * so that the CPU path runs) a frame with a buffer over the device's
 * largest allocation, among the intermediates of bytes[] and `extra`. */
static clik_status check_alloc(clik_context *ctx, const size_t bytes[NSCRATCH], size_t extra,
                               const char *what)
{
    size_t most = extra;
    for (int i = 0; i < NSCRATCH; i++)
        most = bytes[i] > most ? bytes[i] : most;
    if (most > ctx->dev.max_alloc_size)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "%s: a buffer of %zu bytes exceeds the device's largest allocation "
                          "(CL_DEVICE_MAX_MEM_ALLOC_SIZE, %zu bytes)",
                          what, most, (size_t)ctx->dev.max_alloc_size);
    return CLIK_OK;
}

static cl_mem *scratch_slot(fusion_scratch *s, int i)
{
    cl_mem *m[NSCRATCH] = {&s->img1,  &s->img2, &s->g1,   &s->g2,
                           &s->tiles, &s->rows, &s->hrow, &s->art};
    return m[i];
}

/* The artifact tiles (fusion_tiles) and the selection (fusion_select,
 * fusion_vselect) take the same arguments on every device. */
static clik_status run_tiles(clik_context *ctx, const fusion_plan *p, clik_kernel_entry *k,
                             const fusion_scratch *s, const size_t *local)
{
    const int gs = p->dw;
    size_t tiles[2] = {(size_t)p->tw, (size_t)p->th};
    clik_status st = CLIK_ARGS(ctx, k, CLIK_A(s->g1), CLIK_A(s->g2), CLIK_A(gs), CLIK_A(p->dw),
                               CLIK_A(p->dh), CLIK_A(s->tiles), CLIK_A(p->tw), CLIK_A(p->th));
    return st == CLIK_OK ? clik__launch(ctx, k, 2, tiles, local) : st;
}

static clik_status select_args(clik_context *ctx, const fusion_plan *p, clik_kernel_entry *k,
                               const fusion_scratch *s, cl_mem dst, int ds, cl_mem map, int ms)
{
    const int is = p->dw * 4;
    cl_mem no_map = map ? map : dst; /* an unused argument still needs a buffer */
    return CLIK_ARGS(ctx, k, CLIK_A(s->rows), CLIK_A(p->dw), CLIK_A(p->dh), CLIK_A(p->threshold),
                     CLIK_A(s->img1), CLIK_A(s->img2), CLIK_A(is), CLIK_A(dst), CLIK_A(ds),
                     CLIK_A(no_map), CLIK_A(ms), CLIK_A(p->table));
}

/* CPU devices: row passes, one work-item per row. Strides in bytes; map may
 * be NULL. */
static clik_status enqueue_cpu(clik_context *ctx, const fusion_plan *p, cl_mem src, int ss,
                               cl_mem dst, int ds, cl_mem map, int ms, const fusion_scratch *s)
{
    const int is = p->dw * 4, gs = p->dw, dw = p->dw, dh = p->dh, tw = p->tw;
    const size_t one[1] = {1}, src_rows[1] = {(size_t)p->sh}, dst_rows[1] = {(size_t)dh};
    const size_t tlocal[2] = {16, 1};
    clik_status st = CLIK_ARGS(ctx, p->k[K_HPASS], CLIK_A(src), CLIK_A(ss), CLIK_A(p->sw),
                               CLIK_A(p->sh), CLIK_A(s->hrow), CLIK_A(dw), CLIK_A(p->table));
    if (st == CLIK_OK)
        st = clik__launch(ctx, p->k[K_HPASS], 1, src_rows, one);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, p->k[K_VPASS], CLIK_A(src), CLIK_A(ss), CLIK_A(p->sh), CLIK_A(s->hrow),
                       CLIK_A(s->img1), CLIK_A(s->img2), CLIK_A(is), CLIK_A(s->g1), CLIK_A(s->g2),
                       CLIK_A(gs), CLIK_A(dw), CLIK_A(dh), CLIK_A(p->table));
    if (st == CLIK_OK)
        st = clik__launch(ctx, p->k[K_VPASS], 1, dst_rows, one);
    if (st == CLIK_OK)
        st = run_tiles(ctx, p, p->k[K_CTILES], s, tlocal);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, p->k[K_HBLUR], CLIK_A(s->g1), CLIK_A(s->g2), CLIK_A(gs), CLIK_A(dw),
                       CLIK_A(dh), CLIK_A(s->tiles), CLIK_A(tw), CLIK_A(s->art), CLIK_A(s->rows),
                       CLIK_A(p->table));
    if (st == CLIK_OK)
        st = clik__launch(ctx, p->k[K_HBLUR], 1, dst_rows, one);
    if (st == CLIK_OK)
        st = select_args(ctx, p, p->k[K_VSELECT], s, dst, ds, map, ms);
    return st == CLIK_OK ? clik__launch(ctx, p->k[K_VSELECT], 1, dst_rows, one) : st;
}

/* Enqueues a frame's kernels on ctx->queue. Strides in bytes; map may be
 * NULL. */
static clik_status enqueue_frame(clik_context *ctx, const fusion_plan *p, cl_mem src, int ss,
                                 cl_mem dst, int ds, cl_mem map, int ms, const fusion_scratch *s)
{
    if (p->cpu)
        return enqueue_cpu(ctx, p, src, ss, dst, ds, map, ms, s);
    const int is = p->dw * 4, gs = p->dw, dw = p->dw, dh = p->dh, tw = p->tw;
    clik_status st = CLIK_ARGS(ctx, p->k[K_UPSCALE], CLIK_A(src), CLIK_A(ss), CLIK_A(p->sw),
                               CLIK_A(p->sh), CLIK_A(s->img1), CLIK_A(s->img2), CLIK_A(is),
                               CLIK_A(s->g1), CLIK_A(s->g2), CLIK_A(gs), CLIK_A(p->table));
    size_t items[2] = {(size_t)dw, (size_t)dh}, local[2] = {32, 8};
    size_t blocks[2] = {(size_t)p->sw, (size_t)p->sh}, runs[2] = {((size_t)dw + 3) / 4, (size_t)dh};
    const size_t tlocal[2] = {32, 4};
    if (st == CLIK_OK)
        st = clik__launch(ctx, p->k[K_UPSCALE], 2, blocks, local);
    if (st == CLIK_OK)
        st = run_tiles(ctx, p, p->k[K_TILES], s, tlocal);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, p->k[K_ROWS], CLIK_A(s->g1), CLIK_A(s->g2), CLIK_A(gs), CLIK_A(dw),
                       CLIK_A(dh), CLIK_A(s->tiles), CLIK_A(tw), CLIK_A(s->rows), CLIK_A(p->table));
    if (st == CLIK_OK)
        st = clik__launch(ctx, p->k[K_ROWS], 2, runs, local);
    if (st == CLIK_OK)
        st = select_args(ctx, p, p->k[K_SELECT], s, dst, ds, map, ms);
    return st == CLIK_OK ? clik__launch(ctx, p->k[K_SELECT], 2, items, local) : st;
}

static int binding_pix4(const clik_binding *b)
{
    return b->stride % 4 == 0 && (!b->mapped_host || (uintptr_t)b->image.data % 4 == 0);
}

typedef struct fusion_args {
    const clik_image *src;
    clik_image *dst;
    clik_image *map;
    clik_fusion_plan plan; /* the options and the blur weights */
    int scale;
} fusion_args;

/* b[0] is the source, b[1] the destination, b[2] the artifact map when
 * one is asked for. */
static clik_status fusion_opencl(clik_context *ctx, void *args, clik_binding *const *b)
{
    fusion_args *a = args;
    fusion_plan p;
    memset(&p, 0, sizeof(p));
    plan_sizes(ctx, &p, a->src->width, a->src->height, a->scale, &a->plan.opt);
    p.map = a->map != NULL;
    p.bgr = b[0]->image.order == CLIK_ORDER_BGR;
    /* Row strides are int kernel arguments (bytes). */
    for (int i = 0; i < (a->map ? 3 : 2); i++)
        if (b[i]->stride > (size_t)INT_MAX)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "fusion: a row stride of %zu bytes exceeds the fusion kernels' "
                              "limit of INT_MAX (%d) bytes",
                              b[i]->stride, INT_MAX);
    p.pix4 = binding_pix4(b[0]) && binding_pix4(b[1]);
    fusion_scratch s;
    memset(&s, 0, sizeof(s));
    size_t bytes[NSCRATCH];
    scratch_bytes(&p, bytes);
    clik_status st = check_alloc(ctx, bytes, 0, "fusion");
    if (st != CLIK_OK)
        return st;
    for (int i = 0; i < NSCRATCH && st == CLIK_OK; i++)
        if (bytes[i])
            st = clik__temp_buffer(ctx, bytes[i], scratch_slot(&s, i));
    float table[TABLE_CAP];
    const size_t tbytes = plan_table(&p, a->plan.blur, table) * sizeof(float);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, tbytes, &p.table);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, p.table, table, tbytes);
    plan_options(&p);
    if (st == CLIK_OK)
        st = plan_kernels(ctx, &p);
    if (st == CLIK_OK)
        st = enqueue_frame(ctx, &p, b[0]->mem, (int)b[0]->stride, b[1]->mem, (int)b[1]->stride,
                           a->map ? b[2]->mem : NULL, a->map ? (int)b[2]->stride : 0, &s);
    /* Back to the pool: later users queue behind these kernels. */
    for (int i = 0; i < NSCRATCH; i++)
        clik__temp_release(ctx, *scratch_slot(&s, i), bytes[i]);
    clik__temp_release(ctx, p.table, tbytes);
    return st;
}

/* ---- CPU path ---------------------------------------------------------------------------- */

static clik_status fusion_cpu(clik_context *ctx, void *args, clik_image *const *v)
{
    fusion_args *a = args;
    if (ctx->dsp.fusion.fusion(v[0], v[1], &a->plan, a->map ? v[2] : NULL) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "fusion: out of memory on the CPU path");
    return CLIK_OK;
}

static const clik_op fusion_op = {"upscale_fusion", fusion_opencl, fusion_cpu};

clik_status clik_upscale_fusion(clik_context *ctx, const clik_image *src, clik_image *dst,
                                const clik_fusion_options *opt, clik_image *artifact_map)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    fusion_args a = {.src = src, .dst = dst, .map = artifact_map};
    clik_status st =
        check_call(ctx, src, dst, opt, artifact_map, &a.plan.opt, &a.scale, "clik_upscale_fusion");
    if (st != CLIK_OK)
        return st;
    clik__gaussian_weights(a.plan.opt.blur_ksize, 0.0, a.plan.blur);
    const clik_op_image images[] = {
        {src, CLIK_READ}, {dst, CLIK_WRITE}, {artifact_map, CLIK_WRITE}};
    /* 3 channels: the 4-channel kernels between two conversions. */
    return clik__run_op_rgba(ctx, &fusion_op, images, artifact_map ? 3 : 2, &a);
}

/* ---- streaming --------------------------------------------------------------------------- */

typedef struct stream_slot {
    cl_command_queue queue;
    cl_mem src, dst, map;
    fusion_scratch scratch;
    cl_event done; /* the frame's last command; NULL when the slot is idle */
    uint64_t ticket;
} stream_slot;

struct clik_fusion_stream {
    clik_context *ctx;
    int width, height, scale, depth;
    clik_fusion_options opt;
    int on_device;       /* 0: frames run synchronously through clik_upscale_fusion */
    fusion_plan plan[4]; /* without and with a map (+ 1), RGBA and BGRA (+ 2) */
    uint64_t submitted;  /* tickets handed out */
    clik_status first_error;
    stream_slot slots[MAX_DEPTH];
};

static void slot_free(clik_context *ctx, stream_slot *sl)
{
    const clik_cl_api *cl = ctx->cl;
    if (sl->done)
        cl->clReleaseEvent(sl->done);
    cl_mem *m[3] = {&sl->src, &sl->dst, &sl->map};
    for (int i = 0; i < 3; i++)
        if (*m[i])
            cl->clReleaseMemObject(*m[i]);
    for (int i = 0; i < NSCRATCH; i++)
        if (*scratch_slot(&sl->scratch, i))
            cl->clReleaseMemObject(*scratch_slot(&sl->scratch, i));
    if (sl->queue)
        cl->clReleaseCommandQueue(sl->queue);
    memset(sl, 0, sizeof(*sl));
}

static clik_status new_buffer(clik_context *ctx, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!*out || err != CL_SUCCESS) {
        *out = NULL;
        clik__fail_cl(ctx, err, "clCreateBuffer");
        return CLIK_ERR_NO_MEMORY;
    }
    clik_status st = clik__poison(ctx, *out, bytes);
    /* The fill runs on the context's queue, the frames on the slots' queues:
     * it must be over before a slot uses the buffer. */
    if (st == CLIK_OK && ctx->poison)
        ctx->cl->clFinish(ctx->queue);
    return st;
}

static clik_status slot_make(clik_context *ctx, const fusion_plan *p, stream_slot *sl)
{
    cl_int err;
    sl->queue = ctx->cl->clCreateCommandQueue(ctx->clctx, ctx->device, 0, &err);
    if (!sl->queue || err != CL_SUCCESS) {
        sl->queue = NULL;
        return clik__fail_cl(ctx, err, "clCreateCommandQueue");
    }
    size_t bytes[NSCRATCH];
    scratch_bytes(p, bytes);
    clik_status st = new_buffer(ctx, (size_t)p->sw * (size_t)p->sh * 4, &sl->src);
    if (st == CLIK_OK)
        st = new_buffer(ctx, bytes[0], &sl->dst);
    for (int i = 0; i < NSCRATCH && st == CLIK_OK; i++)
        if (bytes[i])
            st = new_buffer(ctx, bytes[i], scratch_slot(&sl->scratch, i));
    return st;
}

static void stream_release(clik_fusion_stream *s)
{
    for (int i = 0; i < MAX_DEPTH; i++)
        if (s->slots[i].queue || s->slots[i].src)
            slot_free(s->ctx, &s->slots[i]);
    if (s->plan[0].table)
        s->ctx->cl->clReleaseMemObject(s->plan[0].table);
    for (int m = 0; m < 4; m++)
        s->plan[m].table = NULL;
}

/* The plans' table in a buffer of the stream's own (the plans share it),
 * written before any slot's queue reads it. */
static clik_status stream_table(clik_fusion_stream *s)
{
    clik_context *ctx = s->ctx;
    float bw[CLIK_BLUR_MAX_KSIZE], table[TABLE_CAP];
    clik__gaussian_weights(s->opt.blur_ksize, 0.0, bw);
    const size_t bytes = plan_table(&s->plan[0], bw, table) * sizeof(float);
    clik_status st = new_buffer(ctx, bytes, &s->plan[0].table);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, s->plan[0].table, table, bytes);
    cl_int err = st == CLIK_OK ? ctx->cl->clFinish(ctx->queue) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        st = clik__fail_cl(ctx, err, "clFinish");
    for (int m = 1; m < 4; m++)
        s->plan[m].table = s->plan[0].table;
    return st;
}

/* Builds the kernels and the slots; a failure leaves the stream on the CPU
 * (as the fallback policy allows). */
static clik_status stream_open_device(clik_fusion_stream *s)
{
    clik_context *ctx = s->ctx;
    for (int m = 0; m < 4; m++) {
        fusion_plan *p = &s->plan[m];
        plan_sizes(ctx, p, s->width, s->height, s->scale, &s->opt);
        p->pix4 = 1; /* the slots' buffers are packed */
        p->map = m & 1;
        p->bgr = m >> 1;
        plan_options(p);
    }
    /* The slots' buffers: a refusal here leaves the stream on the CPU. */
    size_t bytes[NSCRATCH];
    scratch_bytes(&s->plan[0], bytes);
    clik_status st =
        check_alloc(ctx, bytes, (size_t)s->width * (size_t)s->height * 4, "fusion stream");
    if (st != CLIK_OK)
        return st;
    st = stream_table(s);
    if (st == CLIK_OK)
        st = plan_kernels(ctx, &s->plan[0]); /* the others at their first frame */
    for (int i = 0; i < s->depth && st == CLIK_OK; i++)
        st = slot_make(ctx, &s->plan[0], &s->slots[i]);
    if (st != CLIK_OK)
        stream_release(s);
    return st;
}

clik_status clik_fusion_stream_create(clik_context *ctx, int width, int height, int scale,
                                      const clik_fusion_options *opt, int depth,
                                      clik_fusion_stream **stream)
{
    static const char fn[] = "clik_fusion_stream_create";
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!stream)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: stream is NULL", fn);
    *stream = NULL;
    clik_fusion_options o;
    if (opt)
        o = *opt;
    else
        clik_fusion_options_init(&o);
    clik_status st = check_options(ctx, &o, fn);
    if (st != CLIK_OK)
        return st;
    if (width < 1 || height < 1 || width > CLIK_MAX_DIM || height > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE, "%s: frame size %dx%d", fn, width, height);
    if (scale < MIN_SCALE || scale > MAX_SCALE)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: scale %d is outside %d..%d", fn, scale,
                          MIN_SCALE, MAX_SCALE);
    if ((long long)width * scale > CLIK_MAX_DIM || (long long)height * scale > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE, "%s: output %lldx%lld is too large", fn,
                          (long long)width * scale, (long long)height * scale);
    if (depth < 0 || depth > MAX_DEPTH)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: depth %d is outside 0..%d", fn, depth,
                          MAX_DEPTH);
    clik_fusion_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
    s->ctx = ctx;
    s->width = width;
    s->height = height;
    s->scale = scale;
    s->depth = depth ? depth : DEF_DEPTH;
    s->opt = o;
    s->first_error = CLIK_OK;
    /* A stream the device cannot run takes the CPU path as an operation
     * does (clik__fallback: refused in strict mode). */
    ctx->fallback_cause = CLIK_OK;
    if (ctx->has_device) {
        st = stream_open_device(s);
        s->on_device = st == CLIK_OK;
        if (st != CLIK_OK && (st = clik__fallback(ctx, "fusion stream", st)) != CLIK_OK) {
            free(s);
            return st;
        }
    }
    *stream = s;
    return CLIK_OK;
}

/* Waits for one slot's frame and records its outcome. */
static clik_status slot_wait(clik_fusion_stream *s, stream_slot *sl)
{
    if (!sl->done)
        return CLIK_OK;
    clik_context *ctx = s->ctx;
    cl_int err = ctx->cl->clWaitForEvents(1, &sl->done);
    ctx->cl->clReleaseEvent(sl->done);
    sl->done = NULL;
    clik_status st = CLIK_OK;
    if (err != CL_SUCCESS) {
        st = clik__fail_cl(ctx, err, "fusion stream: a frame failed");
        if (s->first_error == CLIK_OK)
            s->first_error = st;
    }
    return st;
}

static int host_frame(const clik_image *img)
{
    return img && img->data && !img->buffer;
}

/* Uploads, kernels and downloads of one frame on the slot's queue. */
static clik_status slot_enqueue(clik_fusion_stream *s, stream_slot *sl, const clik_image *src,
                                clik_image *dst, clik_image *map)
{
    clik_context *ctx = s->ctx;
    const clik_cl_api *cl = ctx->cl;
    fusion_plan *p = &s->plan[(map != NULL) + 2 * (src->order == CLIK_ORDER_BGR)];
    clik_status st = CLIK_OK;
    if (map && !sl->map)
        st = new_buffer(ctx, (size_t)p->dw * (size_t)p->dh, &sl->map);
    if (st == CLIK_OK && !p->k[0])
        st = plan_kernels(ctx, p);
    if (st != CLIK_OK)
        return st;
    const size_t origin[3] = {0, 0, 0};
    const size_t src_region[3] = {(size_t)s->width * 4, (size_t)s->height, 1};
    const size_t dst_region[3] = {(size_t)p->dw * 4, (size_t)p->dh, 1};
    const size_t map_region[3] = {(size_t)p->dw, (size_t)p->dh, 1};
    cl_int err =
        cl->clEnqueueWriteBufferRect(sl->queue, sl->src, CL_FALSE, origin, origin, src_region,
                                     src_region[0], 0, src->stride, 0, src->data, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clik__fail_cl(ctx, err, "fusion stream: upload");
    /* The launch helpers enqueue on ctx->queue: point it at the slot's. */
    cl_command_queue saved = ctx->queue;
    const int profiling = ctx->profiling;
    ctx->queue = sl->queue;
    ctx->profiling = 0;
    st = enqueue_frame(ctx, p, sl->src, s->width * 4, sl->dst, p->dw * 4, map ? sl->map : NULL,
                       p->dw, &sl->scratch);
    ctx->queue = saved;
    ctx->profiling = profiling;
    if (st != CLIK_OK)
        return st;
    cl_event ev = NULL;
    err = cl->clEnqueueReadBufferRect(sl->queue, sl->dst, CL_FALSE, origin, origin, dst_region,
                                      dst_region[0], 0, dst->stride, 0, dst->data, 0, NULL,
                                      map ? NULL : &ev);
    if (err == CL_SUCCESS && map)
        err =
            cl->clEnqueueReadBufferRect(sl->queue, sl->map, CL_FALSE, origin, origin, map_region,
                                        map_region[0], 0, map->stride, 0, map->data, 0, NULL, &ev);
    if (err != CL_SUCCESS) {
        /* Nothing may write into the caller's frames after we return. */
        cl->clFinish(sl->queue);
        return clik__fail_cl(ctx, err, "fusion stream: download");
    }
    sl->done = ev;
    cl->clFlush(sl->queue);
    return CLIK_OK;
}

clik_status clik_fusion_stream_submit(clik_fusion_stream *stream, const clik_image *src,
                                      clik_image *dst, clik_image *artifact_map, uint64_t *ticket)
{
    static const char fn[] = "clik_fusion_stream_submit";
    if (!stream)
        return CLIK_ERR_NULL;
    clik_fusion_stream *s = stream;
    clik_context *ctx = s->ctx;
    if (!src || !dst)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: src or dst is NULL", fn);
    clik_status vst = clik_image_validate(src);
    if (vst == CLIK_OK)
        vst = clik_image_validate(dst);
    if (vst == CLIK_OK && artifact_map)
        vst = clik_image_validate(artifact_map);
    if (vst != CLIK_OK)
        return clik__fail(ctx, vst, "%s: a frame is not a valid image (%s)", fn,
                          clik_status_str(vst));
    if (!host_frame(src) || !host_frame(dst) || (artifact_map && !host_frame(artifact_map)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: frames must be host images", fn);
    clik_fusion_options o;
    int scale = 0;
    clik_status st = check_call(ctx, src, dst, &s->opt, artifact_map, &o, &scale, fn);
    if (st != CLIK_OK)
        return st;
    /* The slots' buffers are made for packed 4-channel frames. */
    if (src->channels != 4)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: the stream takes 4-channel frames (RGBA or BGRA); "
                          "clik_upscale_fusion takes 3 channels",
                          fn);
    if (src->width != s->width || src->height != s->height || scale != s->scale)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          "%s: frame %dx%d -> %dx%d, the stream takes %dx%d -> %dx%d", fn,
                          src->width, src->height, dst->width, dst->height, s->width, s->height,
                          s->width * s->scale, s->height * s->scale);
    const uint64_t t = s->submitted + 1;
    if (!s->on_device) {
        st = clik_upscale_fusion(ctx, src, dst, &s->opt, artifact_map);
        if (st != CLIK_OK)
            return st; /* the frame is not counted */
        s->submitted = t;
        if (ticket)
            *ticket = t;
        return CLIK_OK;
    }
    stream_slot *sl = &s->slots[(t - 1) % (uint64_t)s->depth];
    slot_wait(s, sl); /* the frame depth submissions ago */
    st = slot_enqueue(s, sl, src, dst, artifact_map);
    if (st != CLIK_OK)
        return st;
    sl->ticket = t;
    s->submitted = t;
    ctx->last_backend = CLIK_BACKEND_OPENCL;
    if (ticket)
        *ticket = t;
    return CLIK_OK;
}

clik_status clik_fusion_stream_wait(clik_fusion_stream *stream, uint64_t ticket)
{
    if (!stream)
        return CLIK_ERR_NULL;
    clik_fusion_stream *s = stream;
    if (ticket > s->submitted)
        ticket = s->submitted;
    if (s->on_device)
        for (int i = 0; i < s->depth; i++) {
            stream_slot *sl = &s->slots[i];
            if (sl->done && sl->ticket <= ticket)
                slot_wait(s, sl);
        }
    return s->first_error;
}

void clik_fusion_stream_destroy(clik_fusion_stream *stream)
{
    if (!stream)
        return;
    clik_fusion_stream_wait(stream, UINT64_MAX);
    if (stream->on_device)
        stream_release(stream);
    free(stream);
}

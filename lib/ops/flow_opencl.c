/*
 * The OpenCL path of TV-L1 optical flow (lib/ops/flow.c resolves the plan):
 * the whole computation on the device, the joint minimum and maximum, the
 * normalisation, the pyramid (the filter family's blur, clik__blur_plane,
 * with the plan's taps, then the bicubic sampling of kernels/flow.cl), the
 * warps and the iterations; the host reads back one int per
 * CLIK_FLOW_CHECK_EVERY iterations (the stopping test's outcome, one test
 * late, so the queue never runs dry) and the flow at the end.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"

/* ---- the OpenCL path ---------------------------------------------------------------- */

#define MAX_BUFFERS (2 * CLIK_FLOW_MAX_SCALES + 16)

/* The U and P kernels: one pixel per work-item, reading neighbours from
 * global memory (GPUs without local memory); the same with tiles in local
 * memory (where the context uses local memory); bands of rows, 16 pixels
 * per step (CPU devices). */
enum { V_DIRECT, V_LOCAL, V_ROWS };

/* The most loop iterations one work-item of the family's kernels runs (all
 * its loops together): Mesa's llvmpipe silently ends a work-item's loops
 * after 65535 in all, and short work-items balance better anyway. */
#define ITEM_LOOPS 32768

/* One run on the device: its kernels, its buffers, and the host side of the
 * stopping test. */
typedef struct flow_cl {
    clik_context *ctx;
    const clik_flow_plan *plan;
    int half;     /* u and p in 16-bit floats */
    int variant;  /* of the U and P steps: V_DIRECT, V_LOCAL, V_ROWS */
    size_t store; /* bytes of one stored element */

    clik_kernel_entry *zero, *load, *store_k, *min_max, *min_max_final, *normalize, *zoom,
        *zoom_flow, *gradient, *warp, *u, *u_check, *p, *decide, *iterate, *block_k;

    cl_mem made[MAX_BUFFERS];
    size_t made_bytes[MAX_BUFFERS];
    int nmade;

    cl_mem i0s[CLIK_FLOW_MAX_SCALES], i1s[CLIK_FLOW_MAX_SCALES];
    cl_mem tmp, smooth, ring, grad, wd, uf[2], pf, partial, stop, mm, taps_pre, taps_zoom;
    cl_mem marks; /* each warp's stop mark, copied there as its warp ends */
    cl_mem pf2;   /* flow_block's second p */

    int block;     /* iterations per flow_block launch on large levels; 0: U and P steps */
    size_t bwg[2]; /* flow_block's work-group: a tile and its halo of `block` pixels */

    size_t wg[2];  /* work-group of the U and P steps */
    int small_max; /* levels of at most this many pixels run in flow_iterate */
    size_t small_wg[2];

    int done; /* warps finished, for the progress callback */

    int host_stop[2]; /* read back asynchronously */
    cl_event reading[2];
    cl_event used[64]; /* completed reads, released once the queue is idle */
    int nused;
} flow_cl;

static clik_status flow_buffer(flow_cl *f, size_t bytes, cl_mem *mem)
{
    /* A refusal, not a failed allocation: the CPU path runs instead. */
    if (bytes > f->ctx->dev.max_alloc_size)
        return clik__fail(f->ctx, CLIK_ERR_DEVICE_LIMITS,
                          "clik_flow_tvl1: a buffer of %zu bytes exceeds the device's largest "
                          "allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE, %zu bytes)",
                          bytes, (size_t)f->ctx->dev.max_alloc_size);
    if (f->nmade == MAX_BUFFERS)
        return clik__fail(f->ctx, CLIK_ERR_NO_MEMORY, "clik_flow_tvl1: too many buffers");
    clik_status st = clik__temp_buffer(f->ctx, bytes ? bytes : 4, mem);
    if (st == CLIK_OK) {
        f->made[f->nmade] = *mem;
        f->made_bytes[f->nmade++] = bytes ? bytes : 4;
    }
    return st;
}

/* Releases the events of completed reads once the queue is idle: PoCL
 * (3.1) may still touch a command after its event reports completion, and
 * releasing the event then corrupts its heap. */
static void release_used(flow_cl *f)
{
    if (f->nused == 0)
        return;
    f->ctx->cl->clFinish(f->ctx->queue);
    for (int i = 0; i < f->nused; i++)
        f->ctx->cl->clReleaseEvent(f->used[i]);
    f->nused = 0;
}

/* Waits for the read in slot (host_stop[slot] is written by it); *stopped
 * (may be NULL) gets its mark. */
static clik_status wait_stop(flow_cl *f, int slot, int *stopped)
{
    cl_int err = f->ctx->cl->clWaitForEvents(1, &f->reading[slot]);
    if (f->nused == (int)(sizeof(f->used) / sizeof(f->used[0])))
        release_used(f);
    f->used[f->nused++] = f->reading[slot];
    f->reading[slot] = NULL;
    if (err != CL_SUCCESS)
        return clik__fail_cl(f->ctx, err, "clWaitForEvents");
    if (stopped)
        *stopped = f->host_stop[slot];
    return CLIK_OK;
}

/* Waits for the outstanding reads of the stop mark. */
static clik_status settle_reads(flow_cl *f)
{
    clik_status st = CLIK_OK;
    for (int k = 0; k < 2; k++)
        if (f->reading[k]) {
            clik_status st2 = wait_stop(f, k, NULL);
            st = st == CLIK_OK ? st2 : st;
        }
    return st;
}

static void flow_release(flow_cl *f)
{
    settle_reads(f);
    release_used(f);
    for (int i = f->nmade - 1; i >= 0; i--)
        clik__temp_release(f->ctx, f->made[i], f->made_bytes[i]);
    f->nmade = 0;
}

static clik_status get_kernels(flow_cl *f)
{
    clik_context *ctx = f->ctx;
    const int fp16 = f->half && ctx->dev.fp16;
    char options[64];
    snprintf(options, sizeof(options), "-DSTORE_HALF=%d -DCLIK_FP16=%d", f->half, fp16);
    const struct {
        const char *name;
        clik_kernel_entry **k;
    } list[] = {
        {"flow_zero", &f->zero},
        {"flow_load", &f->load},
        {"flow_store", &f->store_k},
        {"flow_min_max", &f->min_max},
        {"flow_min_max_final", &f->min_max_final},
        {"flow_normalize", &f->normalize},
        {"flow_zoom", &f->zoom},
        {"flow_zoom_flow", &f->zoom_flow},
        {"flow_gradient", &f->gradient},
        {"flow_warp", &f->warp},
        {f->variant == V_LOCAL  ? "flow_u_local"
         : f->variant == V_ROWS ? "flow_u_rows"
                                : "flow_u",
         &f->u},
        {f->variant == V_LOCAL  ? "flow_u_local_check"
         : f->variant == V_ROWS ? "flow_u_rows"
                                : "flow_u_check",
         &f->u_check},
        {f->variant == V_LOCAL  ? "flow_p_local"
         : f->variant == V_ROWS ? "flow_p_rows"
                                : "flow_p",
         &f->p},
        {"flow_decide", &f->decide},
        {"flow_iterate", &f->iterate},
        {"flow_block", &f->block_k},
    };
    clik_status st = CLIK_OK;
    for (size_t i = 0; i < sizeof(list) / sizeof(list[0]) && st == CLIK_OK; i++)
        st = clik__kernel(ctx, "flow", options, list[i].name, list[i].k);
    return st;
}

/* 2-D launch over w x h items with work-groups of about 64 x 4. */
static clik_status launch_2d(flow_cl *f, clik_kernel_entry *k, int w, int h)
{
    size_t items[2] = {(size_t)w, (size_t)h}, local[2] = {64, 4};
    return clik__launch(f->ctx, k, 2, items, local);
}

/* The most taps of the device's smoothing: the blur kernels read them as a
 * __constant argument, and 64 KiB is the least constant memory a device
 * offers (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE). */
#define MAX_DEVICE_TAPS (65536 / (int)sizeof(float))

/* The plan's taps into a device buffer (none for ksize 1: no smoothing). */
static clik_status upload_taps(flow_cl *f, const float *taps, int ksize, cl_mem *mem)
{
    const size_t bytes = (size_t)ksize * sizeof(float);
    clik_status st = ksize > 1 ? flow_buffer(f, bytes, mem) : CLIK_OK;
    return st == CLIK_OK && ksize > 1 ? clik__write_bytes(f->ctx, *mem, taps, bytes) : st;
}

/* dst = the blur of src (packed w x h floats; dst is not src): the filter
 * family's, by bands with the ring on CPU devices, else in two passes. */
static clik_status blur(flow_cl *f, cl_mem src, cl_mem dst, int w, int h, cl_mem taps, int ksize)
{
    const int band = f->variant == V_ROWS ? clik__blur_band_rows(f->ctx, w, 1, h, ksize) : 0;
    return clik__blur_plane(f->ctx, src, dst, w, h, taps, ksize, band, f->ring, f->tmp);
}

static clik_status zero_words(flow_cl *f, cl_mem mem, size_t words)
{
    /* CPU devices: a few chunks per compute unit; GPUs: 4 words each, so
     * that neighbouring work-items write neighbouring 16 bytes (16 words
     * each wrote at about a ninth of the copy bandwidth on an H100). */
    size_t chunk = 4;
    if (f->variant == V_ROWS) {
        const size_t parts = (size_t)f->ctx->dev.compute_units * 4;
        chunk = ((words + parts - 1) / parts + 15) / 16 * 16;
        chunk = chunk > 16 * (size_t)ITEM_LOOPS ? 16 * (size_t)ITEM_LOOPS : chunk;
    }
    const cl_ulong n = words;
    const int c = (int)chunk;
    clik_status st = CLIK_ARGS(f->ctx, f->zero, CLIK_A(mem), CLIK_A(n), CLIK_A(c));
    size_t items = (words + chunk - 1) / chunk, local = f->variant == V_ROWS ? 1 : 64;
    return st == CLIK_OK ? clik__launch(f->ctx, f->zero, 1, &items, &local) : st;
}

/* Level 0 of both images: the joint minimum and maximum (per work-group,
 * then one work-group), the normalisation, the pre-smoothing. */
static clik_status cl_normalize(flow_cl *f, const clik_binding *a, const clik_binding *b)
{
    clik_context *ctx = f->ctx;
    const int w = a->image.width, h = a->image.height, is_u8 = a->image.type == CLIK_U8;
    const size_t es = clik_type_size(a->image.type);
    const int as = (int)(a->stride / es), bs = (int)(b->stride / es);
    size_t local = 256;
    clik__fit_local(ctx, f->min_max, 1, &local);
    const size_t pixels = (size_t)w * (size_t)h;
    size_t groups = (pixels + local - 1) / local;
    groups = groups > 256 ? 256 : groups;
    cl_mem partial;
    clik_status st = flow_buffer(f, 2 * groups * sizeof(float), &partial);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, f->min_max, CLIK_A(a->mem), CLIK_A(as), CLIK_A(b->mem), CLIK_A(bs),
                       CLIK_A(w), CLIK_A(h), CLIK_A(is_u8), CLIK_A(partial));
    if (st == CLIK_OK)
        st = clik__arg(ctx, f->min_max, 8, 2 * local * sizeof(float), NULL);
    size_t global = groups * local;
    if (st == CLIK_OK)
        st = clik__launch_exact(ctx, f->min_max, 1, &global, &local);
    const int ngroups = (int)groups;
    size_t flocal = 256;
    clik__fit_local(ctx, f->min_max_final, 1, &flocal);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, f->min_max_final, CLIK_A(partial), CLIK_A(ngroups), CLIK_A(f->mm));
    if (st == CLIK_OK)
        st = clik__arg(ctx, f->min_max_final, 3, 2 * flocal * sizeof(float), NULL);
    if (st == CLIK_OK)
        st = clik__launch_exact(ctx, f->min_max_final, 1, &flocal, &flocal);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, f->normalize, CLIK_A(a->mem), CLIK_A(as), CLIK_A(b->mem), CLIK_A(bs),
                       CLIK_A(w), CLIK_A(h), CLIK_A(is_u8), CLIK_A(f->mm), CLIK_A(f->i0s[0]),
                       CLIK_A(f->i1s[0]));
    if (st == CLIK_OK)
        st = launch_2d(f, f->normalize, w, h);
    /* The smoothed images take the place of the normalised ones. */
    for (int i = 0; i < 2 && st == CLIK_OK && f->plan->ksize_pre > 1; i++) {
        cl_mem *level = i ? &f->i1s[0] : &f->i0s[0], normalised = *level;
        st = blur(f, normalised, f->smooth, w, h, f->taps_pre, f->plan->ksize_pre);
        *level = f->smooth;
        f->smooth = normalised;
    }
    return st;
}

static clik_status cl_zoom(flow_cl *f, cl_mem src, int sw, int sh, cl_mem dst, int dw, int dh,
                           float fx, float fy)
{
    clik_status st = CLIK_ARGS(f->ctx, f->zoom, CLIK_A(src), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst),
                               CLIK_A(dw), CLIK_A(dh), CLIK_A(fx), CLIK_A(fy));
    return st == CLIK_OK ? launch_2d(f, f->zoom, dw, dh) : st;
}

static clik_status cl_zoom_flow(flow_cl *f, cl_mem src, int sw, int sh, cl_mem dst, int dw, int dh,
                                float fx, float fy, float scale)
{
    clik_status st =
        CLIK_ARGS(f->ctx, f->zoom_flow, CLIK_A(src), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst),
                  CLIK_A(dw), CLIK_A(dh), CLIK_A(fx), CLIK_A(fy), CLIK_A(scale));
    return st == CLIK_OK ? launch_2d(f, f->zoom_flow, dw, dh) : st;
}

/* Levels 1.. of both images: each the smoothed level above sampled at
 * (x / zoom, y / zoom). */
static clik_status cl_pyramid(flow_cl *f)
{
    const clik_flow_plan *pl = f->plan;
    clik_status st = CLIK_OK;
    for (int s = 1; s < pl->scales && st == CLIK_OK; s++) {
        const int w = pl->width[s - 1], h = pl->height[s - 1];
        for (int i = 0; i < 2 && st == CLIK_OK; i++) {
            cl_mem above = i ? f->i1s[s - 1] : f->i0s[s - 1], level = i ? f->i1s[s] : f->i0s[s];
            cl_mem from = above;
            if (pl->ksize_zoom > 1) {
                st = blur(f, above, f->smooth, w, h, f->taps_zoom, pl->ksize_zoom);
                from = f->smooth;
            }
            if (st == CLIK_OK)
                st = cl_zoom(f, from, w, h, level, pl->width[s], pl->height[s], pl->zoom, pl->zoom);
        }
    }
    return st;
}

/* The U step's arguments 0..8 for a level, iteration iter. */
static clik_status set_u_args(flow_cl *f, clik_kernel_entry *k, cl_mem u, int w, int h, int iter)
{
    const float theta = f->plan->theta, l_t = f->plan->lambda * f->plan->theta;
    return CLIK_ARGS(f->ctx, k, CLIK_A(f->wd), CLIK_A(u), CLIK_A(f->pf), CLIK_A(w), CLIK_A(h),
                     CLIK_A(theta), CLIK_A(l_t), CLIK_A(iter), CLIK_A(f->stop));
}

/* Bands of rows of the CPU-device kernels on a level of h rows: a few per
 * compute unit. */
static int band_rows(const flow_cl *f, int w, int h)
{
    const int groups = (int)f->ctx->dev.compute_units * 4;
    int rows = (h + groups - 1) / (groups > 0 ? groups : 1);
    /* A row: w / 16 vector steps, at most 15 pixels one by one, the loop. */
    const int most = ITEM_LOOPS / (w / 16 + 17);
    rows = rows > most ? most : rows;
    return rows > 0 ? rows : 1;
}

/* The work-groups of a U or P launch on a w x h level: the partial sums of
 * the stopping test (over 2^31 on levels of over 2^31 pixels and small
 * work-groups). */
static size_t step_groups(const flow_cl *f, int w, int h)
{
    if (f->block) {
        const size_t tw = f->bwg[0] - 2 * (size_t)f->block, th = f->bwg[1] - 2 * (size_t)f->block;
        return ((size_t)w + tw - 1) / tw * (((size_t)h + th - 1) / th);
    }
    if (f->variant == V_ROWS) {
        const int band = band_rows(f, w, h);
        return (size_t)((h + band - 1) / band);
    }
    return ((size_t)w + f->wg[0] - 1) / f->wg[0] * (((size_t)h + f->wg[1] - 1) / f->wg[1]);
}

static clik_status launch_step(flow_cl *f, clik_kernel_entry *k, int w, int h)
{
    if (f->variant == V_ROWS) {
        size_t global = step_groups(f, w, h), one = 1;
        return clik__launch_exact(f->ctx, k, 1, &global, &one);
    }
    size_t global[2] = {((size_t)w + f->wg[0] - 1) / f->wg[0] * f->wg[0],
                        ((size_t)h + f->wg[1] - 1) / f->wg[1] * f->wg[1]};
    return clik__launch_exact(f->ctx, k, 2, global, f->wg);
}

/* The arguments of the U and P kernels after the common ones: the partial
 * sums and the local memory of the stopping test, the tiles, the bands. */
static clik_status set_step_extras(flow_cl *f, int w, int h)
{
    clik_context *ctx = f->ctx;
    const size_t items = f->wg[0] * f->wg[1], tile = (f->wg[0] + 1) * (f->wg[1] + 1);
    if (f->variant == V_ROWS) {
        const int band = band_rows(f, w, h);
        clik_status st = CLIK_ARG(ctx, f->u, 9, band);
        if (st == CLIK_OK)
            st = CLIK_ARG(ctx, f->u, 10, f->partial);
        return st == CLIK_OK ? CLIK_ARG(ctx, f->p, 7, band) : st;
    }
    clik_status st = CLIK_ARG(ctx, f->u_check, 9, f->partial);
    if (st == CLIK_OK)
        st = clik__arg(ctx, f->u_check, 10, items * sizeof(float), NULL);
    if (st == CLIK_OK && f->variant == V_LOCAL) {
        st = clik__arg(ctx, f->u, 9, tile * 4 * sizeof(float), NULL);
        if (st == CLIK_OK)
            st = clik__arg(ctx, f->u_check, 11, tile * 4 * sizeof(float), NULL);
        if (st == CLIK_OK)
            st = clik__arg(ctx, f->p, 7, tile * 2 * sizeof(float), NULL);
    }
    return st;
}

/* The refusal of a run that the progress callback stopped. */
clik_status clik__flow_cancelled(clik_context *ctx)
{
    return clik__fail(ctx, CLIK_ERR_CANCELLED, "clik_flow_tvl1: stopped by the progress callback");
}

/* Calls the progress callback (iteration: those of the warp under way that
 * have completed, 0 after a warp). */
static clik_status cl_progress(flow_cl *f, int iteration)
{
    return clik__flow_stop(f->plan, f->done, iteration) ? clik__flow_cancelled(f->ctx) : CLIK_OK;
}

/* Queues a non-blocking read of the stop mark into host_stop[slot] (after
 * the read it replaces, which an earlier warp may have left, is done). */
static clik_status read_stop(flow_cl *f, int slot)
{
    if (f->reading[slot]) {
        const clik_status st = wait_stop(f, slot, NULL);
        if (st != CLIK_OK)
            return st;
    }
    cl_int err = f->ctx->cl->clEnqueueReadBuffer(f->ctx->queue, f->stop, CL_FALSE, 0, sizeof(int),
                                                 &f->host_stop[slot], 0, NULL, &f->reading[slot]);
    if (err != CL_SUCCESS) {
        f->reading[slot] = NULL;
        return clik__fail_cl(f->ctx, err, "download");
    }
    f->ctx->cl->clFlush(f->ctx->queue);
    return CLIK_OK;
}

/*
 * The iterations of one warp on a small level by flow_iterate, in blocks of
 * whole tests short enough for a work-item's loops (about 2 (H / sy) (W / sx
 * + 1) + 12 per iteration, ITEM_LOOPS in all); after each block but the last
 * the host reads the stop mark, and stops at it.
 */
static clik_status iterate_small(flow_cl *f, cl_mem u, int w, int h)
{
    const clik_flow_plan *pl = f->plan;
    const float theta = pl->theta, l_t = pl->lambda * pl->theta, taut = pl->tau / pl->theta;
    const float eps2 = pl->epsilon * pl->epsilon;
    const int every = CLIK_FLOW_CHECK_EVERY;
    const long sx = (long)f->small_wg[0], sy = (long)f->small_wg[1];
    const long per_iteration = 2 * ((h + sy - 1) / sy * ((w + sx - 1) / sx + 1) + 1) + 12;
    int block = (int)(ITEM_LOOPS / per_iteration) / every * every;
    block = block < every ? every : block;
    clik_status st = CLIK_ARGS(f->ctx, f->iterate, CLIK_A(f->wd), CLIK_A(u), CLIK_A(f->pf),
                               CLIK_A(w), CLIK_A(h), CLIK_A(theta), CLIK_A(l_t), CLIK_A(taut));
    if (st == CLIK_OK)
        st = clik__arg(f->ctx, f->iterate, 10, sizeof(every), &every);
    if (st == CLIK_OK)
        st = clik__arg(f->ctx, f->iterate, 11, sizeof(eps2), &eps2);
    if (st == CLIK_OK)
        st = CLIK_ARG(f->ctx, f->iterate, 12, f->stop);
    if (st == CLIK_OK)
        st = clik__arg(f->ctx, f->iterate, 13, f->small_wg[0] * f->small_wg[1] * sizeof(float),
                       NULL);
    int stopped = INT_MAX;
    for (int first = 1; st == CLIK_OK && first <= pl->iterations && stopped == INT_MAX;
         first += block) {
        const int count = pl->iterations - first + 1 < block ? pl->iterations - first + 1 : block;
        st = CLIK_ARG(f->ctx, f->iterate, 8, first);
        if (st == CLIK_OK)
            st = CLIK_ARG(f->ctx, f->iterate, 9, count);
        if (st == CLIK_OK)
            st = clik__launch_exact(f->ctx, f->iterate, 2, f->small_wg, f->small_wg);
        if (st == CLIK_OK && first + count <= pl->iterations) {
            st = read_stop(f, 0);
            if (st == CLIK_OK)
                st = wait_stop(f, 0, &stopped);
            if (st == CLIK_OK)
                st = cl_progress(f, first + count - 1);
        }
    }
    return st;
}

/* flow_decide's arguments for a level of w x h pixels; its work-group in
 * *dlocal. Its counts are longs: a level may have over 2^31 pixels. */
static clik_status decide_args(flow_cl *f, int w, int h, size_t *dlocal)
{
    clik_context *ctx = f->ctx;
    const float eps2 = f->plan->epsilon * f->plan->epsilon;
    const cl_long groups = (cl_long)step_groups(f, w, h), n = (cl_long)w * (cl_long)h;
    const int it = 0;
    *dlocal = 256;
    clik__fit_local(ctx, f->decide, 1, dlocal);
    clik_status st = CLIK_ARGS(ctx, f->decide, CLIK_A(f->partial), CLIK_A(groups), CLIK_A(n),
                               CLIK_A(eps2), CLIK_A(it), CLIK_A(f->stop));
    if (st == CLIK_OK)
        st = clik__arg(ctx, f->decide, 6, *dlocal * sizeof(float), NULL);
    return st;
}

/* flow_decide on the partial sums of iteration `it`. */
static clik_status launch_decide(flow_cl *f, int it, size_t dlocal)
{
    clik_status st = CLIK_ARG(f->ctx, f->decide, 4, it);
    if (st == CLIK_OK)
        st = clik__launch_exact(f->ctx, f->decide, 1, &dlocal, &dlocal);
    return st;
}

/* After the test of iteration `it`: its outcome is read while the next
 * block runs; the one before is waited for now (*stopped), then the
 * progress callback. */
static clik_status lagged_stop(flow_cl *f, int it, int *test, int *stopped)
{
    clik_status st = read_stop(f, *test % 2);
    if (st == CLIK_OK && *test > 0)
        st = wait_stop(f, (*test - 1) % 2, stopped);
    if (st == CLIK_OK && *test > 0)
        st = cl_progress(f, it - CLIK_FLOW_CHECK_EVERY);
    (*test)++;
    return st;
}

/*
 * The iterations of one warp on a larger level: a U and a P launch each,
 * the stopping test's flow_u_check and flow_decide after every
 * CLIK_FLOW_CHECK_EVERY-th U step. The host reads the stop mark after each
 * test without waiting, and waits for the read of the test before, so one
 * block of iterations is always queued ahead; the launches of a block
 * queued after the warp stopped return at once.
 */
static clik_status iterate_large(flow_cl *f, cl_mem u, int w, int h)
{
    clik_context *ctx = f->ctx;
    const clik_flow_plan *pl = f->plan;
    const float taut = pl->tau / pl->theta;
    int it = 0;
    clik_status st = set_u_args(f, f->u, u, w, h, 1);
    if (st == CLIK_OK && f->u_check != f->u)
        st = set_u_args(f, f->u_check, u, w, h, 1);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, f->p, CLIK_A(u), CLIK_A(f->pf), CLIK_A(w), CLIK_A(h), CLIK_A(taut),
                       CLIK_A(it), CLIK_A(f->stop));
    if (st == CLIK_OK)
        st = set_step_extras(f, w, h);
    size_t dlocal = 256;
    if (st == CLIK_OK)
        st = decide_args(f, w, h, &dlocal);
    int test = 0, stopped = INT_MAX;
    while (st == CLIK_OK && it < pl->iterations && stopped == INT_MAX) {
        it++;
        const int check = it % CLIK_FLOW_CHECK_EVERY == 0;
        clik_kernel_entry *uk = check ? f->u_check : f->u;
        st = CLIK_ARG(ctx, uk, 7, it); /* the iteration number */
        if (st == CLIK_OK)
            st = launch_step(f, uk, w, h);
        if (st == CLIK_OK && check)
            st = launch_decide(f, it, dlocal);
        if (st == CLIK_OK)
            st = CLIK_ARG(ctx, f->p, 5, it);
        if (st == CLIK_OK)
            st = launch_step(f, f->p, w, h);
        if (st == CLIK_OK && check)
            st = lagged_stop(f, it, &test, &stopped);
    }
    return st;
}

/*
 * The iterations of one warp on a larger level by flow_block: blocks of
 * f->block iterations a launch, from (u, pf) to (alt, pf2) and back; a
 * block that ends on a multiple of CLIK_FLOW_CHECK_EVERY (which f->block
 * divides) writes the stopping test's sums and flow_decide follows. The
 * stop mark is read as in iterate_large. An odd number of launches gets
 * one more of no iterations (a copy), so that u and pf hold the result.
 */
static clik_status iterate_block(flow_cl *f, cl_mem u, cl_mem alt, int w, int h)
{
    clik_context *ctx = f->ctx;
    const clik_flow_plan *pl = f->plan;
    const float theta = pl->theta, l_t = pl->lambda * pl->theta, taut = pl->tau / pl->theta;
    const size_t tw = f->bwg[0] - 2 * (size_t)f->block, th = f->bwg[1] - 2 * (size_t)f->block;
    const size_t global[2] = {((size_t)w + tw - 1) / tw * f->bwg[0],
                              ((size_t)h + th - 1) / th * f->bwg[1]};
    const size_t items = f->bwg[0] * f->bwg[1];
    int it = 0, zero = 0;
    size_t dlocal = 256;
    clik_status st = decide_args(f, w, h, &dlocal);
    clik_kernel_entry *k = f->block_k;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(f->wd), CLIK_A(u), CLIK_A(f->pf), CLIK_A(alt), CLIK_A(f->pf2),
                       CLIK_A(w), CLIK_A(h), CLIK_A(theta), CLIK_A(l_t), CLIK_A(taut), CLIK_A(it),
                       CLIK_A(zero), CLIK_A(f->block), CLIK_A(zero), CLIK_A(f->stop),
                       CLIK_A(f->partial));
    if (st == CLIK_OK)
        st = clik__arg(ctx, k, 16, items * sizeof(float), NULL);
    if (st == CLIK_OK)
        st = clik__arg(ctx, k, 17, 6 * items * f->store, NULL);
    int launches = 0, test = 0, stopped = INT_MAX;
    while (st == CLIK_OK && ((it < pl->iterations && stopped == INT_MAX) || launches % 2)) {
        const int more = it < pl->iterations && stopped == INT_MAX;
        const int first = it + 1,
                  count =
                      more ? (pl->iterations - it < f->block ? pl->iterations - it : f->block) : 0;
        const int check = count && (it + count) % CLIK_FLOW_CHECK_EVERY == 0;
        const int odd = launches % 2;
        cl_mem from[2] = {odd ? alt : u, odd ? f->pf2 : f->pf};
        cl_mem to[2] = {odd ? u : alt, odd ? f->pf : f->pf2};
        st =
            CLIK_ARGS_AT(ctx, k, 1, CLIK_A(from[0]), CLIK_A(from[1]), CLIK_A(to[0]), CLIK_A(to[1]));
        if (st == CLIK_OK)
            st = CLIK_ARGS_AT(ctx, k, 10, CLIK_A(first), CLIK_A(count), CLIK_A(f->block),
                              CLIK_A(check));
        if (st == CLIK_OK)
            st = clik__launch_exact(ctx, k, 2, global, f->bwg);
        launches++;
        it += count;
        if (st == CLIK_OK && check)
            st = launch_decide(f, it, dlocal);
        if (st == CLIK_OK && check)
            st = lagged_stop(f, it, &test, &stopped);
    }
    return st;
}

/* The warps of one level on u (its size), p starting at 0; each warp's stop
 * mark goes to f->marks at `mark` + the warp (read once the run is
 * queued: the host does not wait for the device between warps); the
 * progress callback after each warp is queued. */
static clik_status cl_level(flow_cl *f, int s, cl_mem u, cl_mem alt, size_t mark)
{
    clik_context *ctx = f->ctx;
    const clik_flow_plan *pl = f->plan;
    const int w = pl->width[s], h = pl->height[s];
    const size_t n = (size_t)w * (size_t)h;
    const int small = n <= (size_t)f->small_max;
    clik_status st = zero_words(f, f->pf, ((size_t)w + 4 * (size_t)n) * f->store / 4 + 1);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, f->gradient, CLIK_A(f->i1s[s]), CLIK_A(w), CLIK_A(h), CLIK_A(f->grad));
    if (st == CLIK_OK)
        st = launch_2d(f, f->gradient, w, h);
    for (int k = 0; k < pl->warps && st == CLIK_OK; k++) {
        st = CLIK_ARGS(ctx, f->warp, CLIK_A(f->i0s[s]), CLIK_A(f->i1s[s]), CLIK_A(f->grad),
                       CLIK_A(u), CLIK_A(w), CLIK_A(h), CLIK_A(f->wd), CLIK_A(f->stop));
        if (st == CLIK_OK)
            st = launch_2d(f, f->warp, w, h);
        if (st == CLIK_OK)
            st = small      ? iterate_small(f, u, w, h)
                 : f->block ? iterate_block(f, u, alt, w, h)
                            : iterate_large(f, u, w, h);
        /* The warp's last iteration: its stop mark, or INT_MAX. */
        if (st == CLIK_OK) {
            const cl_int err = ctx->cl->clEnqueueCopyBuffer(ctx->queue, f->stop, f->marks, 0,
                                                            (mark + (size_t)k) * sizeof(int),
                                                            sizeof(int), 0, NULL, NULL);
            if (err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "clEnqueueCopyBuffer");
        }
        f->done++;
        if (st == CLIK_OK)
            st = cl_progress(f, 0);
    }
    return st;
}

/* The flow to start from on the coarsest level, in f->uf[*cur]: 0, or the
 * caller's flow brought down the levels (sampled as the images are, without
 * the smoothing, and scaled by zoom at each). */
static clik_status cl_start(flow_cl *f, const clik_binding *flow, int *cur)
{
    clik_context *ctx = f->ctx;
    const clik_flow_plan *pl = f->plan;
    const int last = pl->scales - 1;
    *cur = 0;
    if (!pl->initial)
        return zero_words(
            f, f->uf[0], 2 * (size_t)pl->width[last] * (size_t)pl->height[last] * f->store / 4 + 1);
    const int w = pl->width[0], h = pl->height[0], fs = (int)(flow->stride / sizeof(float));
    clik_status st = CLIK_ARGS(ctx, f->load, CLIK_A(flow->mem), CLIK_A(fs), CLIK_A(w), CLIK_A(h),
                               CLIK_A(f->uf[0]));
    if (st == CLIK_OK)
        st = launch_2d(f, f->load, w, h);
    for (int s = 1; s <= last && st == CLIK_OK; s++) {
        st = cl_zoom_flow(f, f->uf[*cur], pl->width[s - 1], pl->height[s - 1], f->uf[1 - *cur],
                          pl->width[s], pl->height[s], pl->zoom, pl->zoom, pl->zoom);
        *cur = 1 - *cur;
    }
    return st;
}

static clik_status flow_alloc(flow_cl *f)
{
    const clik_flow_plan *pl = f->plan;
    const size_t n0 = (size_t)pl->width[0] * (size_t)pl->height[0], fl = sizeof(float);
    clik_status st = CLIK_OK;
    for (int s = 0; s < pl->scales && st == CLIK_OK; s++) {
        const size_t bytes = (size_t)pl->width[s] * (size_t)pl->height[s] * fl;
        st = flow_buffer(f, bytes, &f->i0s[s]);
        if (st == CLIK_OK)
            st = flow_buffer(f, bytes, &f->i1s[s]);
    }
    size_t groups = 1;
    for (int s = 0; s < pl->scales; s++) {
        const size_t g = step_groups(f, pl->width[s], pl->height[s]);
        groups = g > groups ? g : groups;
    }
    /* u: two planes and a guard of a row and a pixel after them; p: a guard
     * of a row, then four planes (kernels/flow.cl, P_FIELD); whole words. */
    const size_t w0 = (size_t)pl->width[0];
    const size_t ubytes = ((2 * n0 + w0 + 1) * f->store + 7) / 4 * 4;
    const size_t pbytes = ((4 * n0 + w0) * f->store + 7) / 4 * 4;
    const struct {
        cl_mem *mem;
        size_t bytes;
    } list[] = {
        {&f->tmp, n0 * fl},
        {&f->smooth, n0 * fl},
        {&f->grad, 2 * n0 * fl},
        {&f->wd, 3 * n0 * fl},
        {&f->uf[0], ubytes},
        {&f->uf[1], pl->scales > 1 || pl->initial || f->block ? ubytes : 4},
        {&f->pf, pbytes},
        {&f->pf2, f->block ? pbytes : 4},
        {&f->partial, groups * fl},
        {&f->stop, sizeof(int)},
        {&f->mm, 2 * fl},
        {&f->marks, (size_t)pl->scales * (size_t)pl->warps * sizeof(int)},
    };
    for (size_t i = 0; i < sizeof(list) / sizeof(list[0]) && st == CLIK_OK; i++)
        st = flow_buffer(f, list[i].bytes, list[i].mem);
    if (st == CLIK_OK)
        st = upload_taps(f, pl->taps_pre, pl->ksize_pre, &f->taps_pre);
    if (st == CLIK_OK)
        st = upload_taps(f, pl->taps_zoom, pl->ksize_zoom, &f->taps_zoom);
    /* blur_cpu's rings: ksize rows of floats per band, for the largest
     * blur (level 0 pre-smoothed; every level but the last smoothed before
     * the next is sampled from it). */
    size_t ring = 4;
    for (int b = 0; b <= pl->scales - 1 && f->variant == V_ROWS; b++) {
        const int s = b == 0 ? 0 : b - 1, w = pl->width[s], h = pl->height[s];
        const int k = b == 0 ? pl->ksize_pre : pl->ksize_zoom,
                  band = clik__blur_band_rows(f->ctx, w, 1, h, k);
        const size_t bytes =
            band > 0 ? (size_t)((h + band - 1) / band) * (size_t)k * (size_t)w * fl : 4;
        ring = bytes > ring ? bytes : ring;
    }
    if (st == CLIK_OK)
        st = flow_buffer(f, ring, &f->ring);
    return st;
}

/* Work-group shapes: the U and P steps (the tiles of the local variant),
 * and the one work-group of flow_iterate with the largest level it takes. */
static void flow_shapes(flow_cl *f)
{
    f->wg[0] = f->variant == V_LOCAL ? 16 : 64;
    f->wg[1] = f->variant == V_LOCAL ? 16 : 4;
    clik__fit_local(f->ctx, f->u_check, 2, f->wg);
    clik__fit_local(f->ctx, f->p, 2, f->wg);
    clik__fit_local(f->ctx, f->u, 2, f->wg);
    f->small_wg[0] = 16;
    f->small_wg[1] = 16;
    clik__fit_local(f->ctx, f->iterate, 2, f->small_wg);
    f->small_max = (int)(16 * f->small_wg[0] * f->small_wg[1]);
}

/* flow_block on large levels (tuning keys flow_block, flow_block_wg): its
 * iterations per launch and work-group, or none where the tile would be
 * empty or the fields do not fit the local memory. */
static void block_setup(flow_cl *f)
{
    clik_context *ctx = f->ctx;
    static const int counts[] = {0, 1, 2, 5, 10};
    static const size_t shapes[][2] = {{32, 16}, {16, 16}, {32, 8}, {32, 32}, {64, 16}, {8, 8}};
    const int gpu = ctx->dev.type != CLIK_DEVICE_CPU;
    f->block = ctx->local_memory ? counts[clik__tune(ctx, CLIK_TUNE_FLOW_BLOCK, gpu ? 2 : 0)] : 0;
    const long shape = clik__tune(ctx, CLIK_TUNE_FLOW_BLOCK_WG, 0);
    f->bwg[0] = shapes[shape][0];
    f->bwg[1] = shapes[shape][1];
    clik__fit_local(ctx, f->block_k, 2, f->bwg);
    const size_t items = f->bwg[0] * f->bwg[1];
    const size_t bytes = items * (6 * f->store + sizeof(float));
    if (f->block && (f->bwg[0] <= 2 * (size_t)f->block || f->bwg[1] <= 2 * (size_t)f->block ||
                     bytes > ctx->dev.local_mem_size)) {
        clik__log(ctx, CLIK_LOG_DEBUG,
                  "flow: no flow_block (%d iterations on %zux%zu work-items, %zu bytes of local "
                  "memory): the U and P steps",
                  f->block, f->bwg[0], f->bwg[1], bytes);
        f->block = 0;
    }
}

/* The kernels and work shapes of a variant, falling back from tiles that do
 * not fit the local memory to the kernels without it. */
static clik_status flow_setup(flow_cl *f)
{
    clik_context *ctx = f->ctx;
    /* The band kernels take one row at least: rows of over ITEM_LOOPS
     * vector steps go one pixel per work-item. */
    const int rows_fit = f->plan->width[0] / 16 + 17 <= ITEM_LOOPS;
    const int cpu = ctx->dev.type == CLIK_DEVICE_CPU && rows_fit;
    f->variant = ctx->local_memory ? V_LOCAL : cpu ? V_ROWS : V_DIRECT;
    clik_status st = get_kernels(f);
    if (st == CLIK_OK) {
        flow_shapes(f);
        block_setup(f);
    }
    const size_t tile =
        (f->wg[0] + 1) * (f->wg[1] + 1) * 4 * sizeof(float) + f->wg[0] * f->wg[1] * sizeof(float);
    if (st == CLIK_OK && f->variant == V_LOCAL && tile > ctx->dev.local_mem_size) {
        f->variant = cpu ? V_ROWS : V_DIRECT;
        st = get_kernels(f);
        if (st == CLIK_OK)
            flow_shapes(f);
    }
    return st;
}

/* The iterations each warp ran, from the stop marks (INT_MAX: all). */
static clik_status read_marks(flow_cl *f)
{
    const clik_flow_plan *pl = f->plan;
    const size_t n = (size_t)pl->scales * (size_t)pl->warps;
    const cl_int err = f->ctx->cl->clEnqueueReadBuffer(
        f->ctx->queue, f->marks, CL_TRUE, 0, n * sizeof(int), pl->iterations_run, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clik__fail_cl(f->ctx, err, "download");
    for (size_t i = 0; i < n; i++)
        if (pl->iterations_run[i] > pl->iterations || pl->iterations_run[i] < 0)
            pl->iterations_run[i] = pl->iterations;
    return CLIK_OK;
}

/* b[0] is I0, b[1] I1, b[2] the flow. */
clik_status clik__flow_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    flow_args *a = p;
    const clik_flow_plan *pl = &a->plan;
    /* The kernels index the fields (packed planes of any size the device
     * allocates, see flow_buffer) and the images with 64-bit offsets, but
     * take the row strides of I0, I1 (elements) and the flow (floats) as
     * ints. */
    clik_status st = clik__check_int_strides(ctx, b, 3, 0, "clik_flow_tvl1");
    if (st != CLIK_OK)
        return st;
    const int ksize_pre = pl->ksize_pre, ksize_zoom = pl->ksize_zoom;
    if (ksize_pre > MAX_DEVICE_TAPS || ksize_zoom > MAX_DEVICE_TAPS)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "clik_flow_tvl1: the %s takes %d taps, the device's blur at "
                          "most %d (64 KiB of constant memory)",
                          ksize_pre > MAX_DEVICE_TAPS ? "pre-smoothing"
                                                      : "smoothing between levels",
                          ksize_pre > MAX_DEVICE_TAPS ? ksize_pre : ksize_zoom, MAX_DEVICE_TAPS);
    flow_cl f;
    memset(&f, 0, sizeof(f));
    f.ctx = ctx;
    f.plan = pl;
    f.half = a->half;
    f.store = f.half ? 2 : 4;
    st = flow_setup(&f);
    if (st == CLIK_OK)
        st = flow_alloc(&f);
    if (st == CLIK_OK)
        st = cl_normalize(&f, b[0], b[1]);
    if (st == CLIK_OK)
        st = cl_pyramid(&f);
    int cur = 0;
    if (st == CLIK_OK)
        st = cl_start(&f, b[2], &cur);
    for (int s = pl->scales - 1; s >= 0 && st == CLIK_OK; s--) {
        st = cl_level(&f, s, f.uf[cur], f.uf[1 - cur],
                      (size_t)(pl->scales - 1 - s) * (size_t)pl->warps);
        if (st != CLIK_OK || s == 0)
            break;
        /* The flow up one level: sampled at (x / fx, y / fy), scaled by
         * 1 / zoom (the reference's zoom_in). */
        const int w = pl->width[s], h = pl->height[s];
        const int ow = pl->width[s - 1], oh = pl->height[s - 1];
        st = cl_zoom_flow(&f, f.uf[cur], w, h, f.uf[1 - cur], ow, oh, (float)ow / (float)w,
                          (float)oh / (float)h, 1.0f / pl->zoom);
        cur = 1 - cur;
    }
    const int w = pl->width[0], h = pl->height[0], fs = (int)(b[2]->stride / sizeof(float));
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, f.store_k, CLIK_A(f.uf[cur]), CLIK_A(w), CLIK_A(h), CLIK_A(b[2]->mem),
                       CLIK_A(fs));
    if (st == CLIK_OK)
        st = launch_2d(&f, f.store_k, w, h);
    if (st == CLIK_OK)
        st = read_marks(&f);
    if (st != CLIK_OK)
        ctx->cl->clFinish(ctx->queue);
    flow_release(&f);
    return st;
}

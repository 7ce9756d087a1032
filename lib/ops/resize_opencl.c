/*
 * The OpenCL path of the resize family (lib/ops/resize.c checks the
 * arguments): the context's kept geometry tables, the nearest kernels (GPU
 * and CPU-device versions), bilinear and bicubic (per pixel, in local-memory
 * tiles, in bands of rows on CPU devices, the period-2 and integer x2
 * kernels) and bicubic-aa (separable, or in bands of rows on CPU devices),
 * all of kernels/resize.cl.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resize.h"

/*
 * The geometries of the context's last resizes, each made and uploaded
 * once: a stream of frames of one shape costs no host computation, no
 * allocation and no upload per frame (a table over CLIK_PARAM_ARENA bytes
 * was a blocking write, a wait for the device in every call). The least
 * recently used of GEO_KEEP entries makes room; a released table still in
 * use by queued kernels lives until they finish (OpenCL's reference
 * counting).
 */
#define GEO_KEEP 4

typedef struct geo_entry {
    int sw, sh, dw, dh, quantized, scaled;
    clik_interp method;
    double scale[2];
    clik_resize_geometry g;
    int period2; /* bilinear, bicubic: exactly x2, weights of period 2 */
    cl_mem mem;  /* the table on the device, made at first use */
    uint64_t used;
} geo_entry;

struct clik_resize_geo {
    geo_entry e[GEO_KEEP];
    int n;
    uint64_t clock;
};

/* Releases the kept geometries (ctx->resize_geo_release). */
static void geo_release(clik_context *ctx)
{
    struct clik_resize_geo *c = ctx->resize_geo;
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        if (c->e[i].mem)
            ctx->cl->clReleaseMemObject(c->e[i].mem);
        clik__resize_geometry_free(&c->e[i].g);
    }
    free(c);
    ctx->resize_geo = NULL;
}

/* 1 when output x of an axis of n outputs takes its taps from x / 2 - taps
 * / 2 + x % 2 with the weights of output x % 2: exactly x2, the weights of
 * period 2. */
static int period2_axis(const int32_t *ofs, const float *w, int n, int taps)
{
    for (int x = 0; x < n; x++) {
        if (ofs[x] != x / 2 - taps / 2 + x % 2)
            return 0;
        for (int k = 0; k < taps; k++)
            if (w[(size_t)x * taps + k] != w[(x % 2) * taps + k])
                return 0;
    }
    return 1;
}

/* The kept geometry of this resize (made now when missing), or NULL when
 * out of memory. */
static geo_entry *kept_geometry(clik_context *ctx, const resize_args *a, int sw, int sh, int dw,
                                int dh, int quantized)
{
    if (!ctx->resize_geo) {
        if (!(ctx->resize_geo = calloc(1, sizeof(struct clik_resize_geo))))
            return NULL;
        ctx->resize_geo_release = geo_release;
    }
    struct clik_resize_geo *c = ctx->resize_geo;
    const int scaled = a->scale != NULL;
    for (int i = 0; i < c->n; i++) {
        geo_entry *e = &c->e[i];
        if (e->sw == sw && e->sh == sh && e->dw == dw && e->dh == dh && e->method == a->method &&
            e->quantized == quantized && e->scaled == scaled &&
            (!scaled || (e->scale[0] == a->scale[0] && e->scale[1] == a->scale[1]))) {
            e->used = ++c->clock;
            return e;
        }
    }
    if (c->n == GEO_KEEP) {
        int old = 0;
        for (int i = 1; i < GEO_KEEP; i++)
            if (c->e[i].used < c->e[old].used)
                old = i;
        if (c->e[old].mem)
            ctx->cl->clReleaseMemObject(c->e[old].mem);
        clik__resize_geometry_free(&c->e[old].g);
        c->e[old] = c->e[--c->n];
    }
    geo_entry *e = &c->e[c->n];
    memset(e, 0, sizeof(*e));
    if (clik__resize_geometry_make(&e->g, sw, sh, dw, dh, a->scale, a->method, quantized) != 0)
        return NULL;
    e->sw = sw, e->sh = sh, e->dw = dw, e->dh = dh;
    e->period2 = (a->method == CLIK_INTERP_BILINEAR || a->method == CLIK_INTERP_BICUBIC) &&
                 dw == 2 * sw && dh == 2 * sh && period2_axis(e->g.xofs, e->g.xw, dw, e->g.xtaps) &&
                 period2_axis(e->g.yofs, e->g.yw, dh, e->g.ytaps);
    e->method = a->method, e->quantized = quantized, e->scaled = scaled;
    if (scaled)
        e->scale[0] = a->scale[0], e->scale[1] = a->scale[1];
    e->used = ++c->clock;
    c->n++;
    return e;
}

static size_t pixel_bytes(const clik_image *img)
{
    return (size_t)img->channels * clik_type_size(img->type);
}

/* As clik__align_mode, for the kernels without an _a16 version. */
static int pixel_mode(const clik_binding *src, const clik_binding *dst)
{
    return clik__pixel_aligned(src) && clik__pixel_aligned(dst) ? CLIK_ALIGN_PIX : CLIK_ALIGN_NONE;
}

/* The geometry table as a device buffer (a->geo, kept with the geometry
 * for the next resize of this shape), for the kernels that read it. */
static clik_status upload_geo(clik_context *ctx, resize_args *a)
{
    if (a->geo)
        return CLIK_OK;
    cl_int err;
    cl_mem mem = ctx->cl->clCreateBuffer(ctx->clctx, CL_MEM_READ_ONLY, a->g.bytes, NULL, &err);
    if (!mem || err != CL_SUCCESS)
        return clik__fail_cl(ctx, err, "clCreateBuffer");
    err = ctx->cl->clEnqueueWriteBuffer(ctx->queue, mem, CL_TRUE, 0, a->g.bytes, a->g.table, 0,
                                        NULL, NULL);
    if (err != CL_SUCCESS) {
        ctx->cl->clReleaseMemObject(mem);
        return clik__fail_cl(ctx, err, "upload");
    }
    a->geo = a->kept->mem = mem;
    return CLIK_OK;
}

/* ---- CPU-device kernels: work per work-item ---- */

/*
 * The CPU-device kernels give each work-item a span of columns of a band of
 * rows. llvmpipe (Mesa's gallivm) ends the loops of a work-item after 65535
 * iterations in all (LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop of a
 * shader), silently: the rest of its work is simply not done. A work-item's
 * loop iterations, counted generously, are therefore kept within
 * ITEM_LOOPS: whole rows where they fit, else narrower spans (which cost
 * nothing but more work-items), else fewer rows.
 */
#define ITEM_LOOPS 32768

/* Loop iterations of a work-item of `rows` rows and `span` pixels. */
typedef double (*item_cost)(int rows, int span, const void *user);

static int round16(int n)
{
    return (n + 15) / 16 * 16;
}

/* Rows per band: a few bands per compute unit, unless tuned. */
static int band_rows(const clik_context *ctx, int rows)
{
    const long n = clik__band_rows(ctx, CLIK_TUNE_RESIZE_BAND_ROWS, rows);
    return n > rows ? rows : (int)n;
}

/* The most rows, up to `rows`, of a span whose cost fits ITEM_LOOPS (1 fits). */
static int most_rows(item_cost cost, const void *user, int rows, int span)
{
    int lo = 1, hi = rows;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (cost(mid, span, user) <= ITEM_LOOPS)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Cuts *span (from the whole row of width pixels, halved, a multiple of 16)
 * and then *rows (from *rows) until a work-item's cost fits ITEM_LOOPS; 0
 * when not even one row of 16 pixels does. */
static int fit_item(item_cost cost, const void *user, int width, int *rows, int *span)
{
    *span = round16(width);
    while (*span > 16 && cost(*rows, *span, user) > ITEM_LOOPS)
        *span = round16(*span / 2);
    if (cost(1, *span, user) > ITEM_LOOPS)
        return 0;
    *rows = most_rows(cost, user, *rows, *span);
    return 1;
}

/* As fit_item, but the widest span first (for kernels whose work-items
 * share nothing between rows, and redo some of it between spans): cuts
 * *span until one row fits, then *rows. */
static int fit_item_wide(item_cost cost, const void *user, int width, int *rows, int *span)
{
    int one = 1;
    if (!fit_item(cost, user, width, &one, span))
        return 0;
    *rows = most_rows(cost, user, *rows, *span);
    return 1;
}

/* Launches spans x bands work-items, one per work-group, bands [band0,
 * band0 + bands) (the kernels' last argument). */
static clik_status launch_spans(clik_context *ctx, clik_kernel_entry *k, unsigned band0_arg,
                                int spans, int band0, int bands)
{
    clik_status st = CLIK_ARG(ctx, k, band0_arg, band0);
    size_t global[2] = {(size_t)spans, (size_t)bands}, local[2] = {1, 1};
    return st == CLIK_OK ? clik__launch_exact(ctx, k, 2, global, local) : st;
}

/* The scratch of banded launches: batch bands per launch, in mem. */
typedef struct band_scratch {
    int batch;
    cl_mem mem;
    size_t bytes;
} band_scratch;

/* Launches the bands a batch at a time while st is CLIK_OK (band0: the
 * kernel's last argument), then releases the scratch. */
static clik_status end_bands(clik_context *ctx, clik_kernel_entry *k, clik_status st,
                             unsigned band0_arg, int spans, int bands, const band_scratch *b)
{
    for (int band0 = 0; st == CLIK_OK && band0 < bands; band0 += b->batch)
        st = launch_spans(ctx, k, band0_arg, spans, band0,
                          bands - band0 < b->batch ? bands - band0 : b->batch);
    clik__temp_release(ctx, b->mem, b->bytes);
    return st;
}

/* resize_nearest_rows: a gather or a copy of the span per row. */
static double nearest_rows_cost(int rows, int span, const void *user)
{
    (void)user;
    return (double)rows * (span + 18.0);
}

typedef struct int_rows_work {
    int sx, sy, bpp;
} int_rows_work;

/* resize_nearest_int_rows, a span of source pixels per source row: the
 * magnified row (chunk shuffles up to factor 4, else a store per pixel)
 * and sy - 1 copies of it. */
static double nearest_int_rows_cost(int rows, int span, const void *user)
{
    const int_rows_work *c = user;
    const double row =
        c->sx <= 4 ? span / (16.0 / c->bpp) + 16.0 * (c->sx + 1) : (double)span * (c->sx + 1);
    const double copy = (double)span * c->sx * c->bpp / 16.0 + 16.0;
    return rows * (row + (c->sy - 1) * copy + 1.0);
}

/* ---- nearest ---- */

static int use_cpu_kernels(const clik_context *ctx)
{
    return (int)clik__tune(ctx, CLIK_TUNE_RESIZE_CPU, ctx->dev.type == CLIK_DEVICE_CPU);
}

static clik_status launch_2d(clik_context *ctx, clik_kernel_entry *k, size_t nx, size_t ny)
{
    size_t items[2] = {nx, ny};
    /* Rows of 256 work-items: NVIDIA H200, nearest x2 of 1080p RGBA, 13.6 us
     * against 13.8 us for 64 x 4 and 32 x 8. */
    size_t local[2] = {(size_t)clik__tune(ctx, CLIK_TUNE_RESIZE_WG_X, 256),
                       (size_t)clik__tune(ctx, CLIK_TUNE_RESIZE_WG_Y, 1)};
    return clik__launch(ctx, k, 2, items, local);
}

/* 16-byte chunks of a row of `width` pixels of `bpp` bytes (the GPU
 * nearest kernels' work-items). */
static size_t chunks(int width, int bpp)
{
    return ((size_t)width * (size_t)bpp + 15) / 16;
}

/* The name of kernel `base` in its version for the alignment
 * (kernels/resize.cl: NAME_any, NAME_pix, NAME_a16). */
static void aligned_name(char *name, size_t cap, const char *base, int align)
{
    static const char *const suffix[] = {"any", "pix", "a16"};
    snprintf(name, cap, "%s_%s", base, suffix[align]);
}

/* The nearest program of a pixel size (1, 4 or 16 bytes). */
static clik_status nearest_kernel(clik_context *ctx, int bpp, const char *base, int align,
                                  clik_kernel_entry **k)
{
    char options[32], name[64];
    snprintf(options, sizeof(options), "-DBPP=%d", bpp);
    aligned_name(name, sizeof(name), base, align);
    return clik__kernel(ctx, "resize", options, name, k);
}

/* GPUs, integer factors: the source pixels repeated, without the table. */
static clik_status cl_nearest_int(clik_context *ctx, const resize_args *a, const clik_binding *src,
                                  const clik_binding *dst)
{
    const int bpp = (int)pixel_bytes(&src->image);
    clik_kernel_entry *k;
    clik_status st =
        nearest_kernel(ctx, bpp, "resize_nearest_int", clik__align_mode(src, dst, 0), &k);
    const int ss = (int)src->stride, ds = (int)dst->stride;
    const int sw = src->image.width, sh = src->image.height, dw = dst->image.width;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(a->g.sx), CLIK_A(a->g.sy), CLIK_A(dw));
    return st == CLIK_OK ? launch_2d(ctx, k, chunks(dw, bpp), (size_t)sh) : st;
}

/* GPUs, any factors: output (x, y) from source (xofs[x], yofs[y]). */
static clik_status cl_nearest(clik_context *ctx, const resize_args *a, const clik_binding *src,
                              const clik_binding *dst)
{
    const int bpp = (int)pixel_bytes(&src->image);
    clik_kernel_entry *k;
    clik_status st = nearest_kernel(ctx, bpp, "resize_nearest", clik__align_mode(src, dst, 0), &k);
    const int ss = (int)src->stride, ds = (int)dst->stride;
    const int dw = dst->image.width, dh = dst->image.height;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(dst->mem), CLIK_A(ds),
                       CLIK_A(dw), CLIK_A(dh), CLIK_A(a->geo));
    return st == CLIK_OK ? launch_2d(ctx, k, chunks(dw, bpp), (size_t)dh) : st;
}

/* CPU devices, integer factors: each source row's chunks read once and
 * magnified; *done 0 when a work-item cannot stay within ITEM_LOOPS (very
 * large factors: the table kernel then). */
static clik_status cl_nearest_int_rows(clik_context *ctx, const resize_args *a,
                                       const clik_binding *src, const clik_binding *dst, int *done)
{
    const int bpp = (int)pixel_bytes(&src->image);
    const int sw = src->image.width, sh = src->image.height;
    const int_rows_work c = {a->g.sx, a->g.sy, bpp};
    int rows = band_rows(ctx, sh), span;
    *done = fit_item(nearest_int_rows_cost, &c, sw, &rows, &span);
    if (!*done)
        return CLIK_OK;
    clik_kernel_entry *k;
    /* 16-byte chunks read and written: aligned in both images for _a16. */
    clik_status st =
        nearest_kernel(ctx, bpp, "resize_nearest_int_rows", clik__align_mode(src, dst, 1), &k);
    const int ss = (int)src->stride, ds = (int)dst->stride;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(a->g.sx), CLIK_A(a->g.sy), CLIK_A(rows),
                       CLIK_A(span));
    if (st != CLIK_OK)
        return st;
    return launch_spans(ctx, k, 10, (sw + span - 1) / span, 0, (sh + rows - 1) / rows);
}

/* CPU devices, any factors: rows gathered through the table, or copied
 * from the row above when they sample the same source row. */
static clik_status cl_nearest_rows(clik_context *ctx, const resize_args *a, const clik_binding *src,
                                   const clik_binding *dst)
{
    const int bpp = (int)pixel_bytes(&src->image);
    const int dw = dst->image.width, dh = dst->image.height;
    /* A row of 16 pixels always fits. */
    int rows = band_rows(ctx, dh), span;
    fit_item(nearest_rows_cost, NULL, dw, &rows, &span);
    clik_kernel_entry *k;
    clik_status st =
        nearest_kernel(ctx, bpp, "resize_nearest_rows", clik__align_mode(src, dst, 0), &k);
    const int ss = (int)src->stride, ds = (int)dst->stride;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(dst->mem), CLIK_A(ds),
                       CLIK_A(dw), CLIK_A(dh), CLIK_A(a->geo), CLIK_A(rows), CLIK_A(span));
    if (st != CLIK_OK)
        return st;
    return launch_spans(ctx, k, 9, (dw + span - 1) / span, 0, (dh + rows - 1) / rows);
}

/* ---- bilinear and bicubic (xtaps = ytaps) ---- */

/* The interpolation program of a format and a number of taps. */
static clik_status interp_kernel(clik_context *ctx, const clik_image *img, int taps,
                                 const char *base, int align, clik_kernel_entry **k)
{
    char taps_option[16], name[64];
    snprintf(taps_option, sizeof(taps_option), "-DTAPS=%d", taps);
    aligned_name(name, sizeof(name), base, align);
    return clik__pixel_kernel(ctx, "resize", img->type, img->channels, taps_option, name, k);
}

/* Sets the arguments every interpolating kernel starts with. */
static clik_status interp_args(clik_context *ctx, clik_kernel_entry *k, const resize_args *a,
                               const clik_binding *src, const clik_binding *dst)
{
    const size_t esize = clik_type_size(src->image.type);
    const int ss = (int)(src->stride / esize), ds = (int)(dst->stride / esize);
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height;
    return CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst->mem),
                     CLIK_A(ds), CLIK_A(dw), CLIK_A(dh), CLIK_A(a->geo));
}

/* 1 when every tile of `tile` outputs of the axis reaches at most
 * tile + taps source pixels (resize_interp_local's staging area). */
static int tiles_fit(const int32_t *ofs, int n, int tile, int taps)
{
    for (int x0 = 0; x0 < n; x0 += tile) {
        const int xl = (x0 + tile < n ? x0 + tile : n) - 1;
        if (ofs[xl] < ofs[x0] || ofs[xl] - ofs[x0] + taps > tile + taps)
            return 0;
    }
    return 1;
}

/* resize_interp_local with tiles of up to (resize_tile_w, resize_tile_h)
 * that the device and the kernel accept; *done 0 (nothing run) when the
 * tiles do not fit the geometry (downscaling) or the local memory. */
static clik_status cl_interp_local(clik_context *ctx, const resize_args *a, const clik_binding *src,
                                   const clik_binding *dst, int align, int *done)
{
    const clik_resize_geometry *g = &a->g;
    const int dw = dst->image.width, dh = dst->image.height;
    *done = 0;
    clik_kernel_entry *k;
    clik_status st = interp_kernel(ctx, &src->image, g->xtaps, "resize_interp_local", align, &k);
    if (st != CLIK_OK)
        return st;
    /* NVIDIA H200, bicubic x2 of 1080p RGBA: 16 x 16 tiles 80 us, 32 x 8 85 us,
     * 8 x 8 90 us; without local memory 134 us. */
    size_t tile[2] = {(size_t)clik__tune(ctx, CLIK_TUNE_RESIZE_TILE_W, 16),
                      (size_t)clik__tune(ctx, CLIK_TUNE_RESIZE_TILE_H, 16)};
    clik__fit_local(ctx, k, 2, tile);
    const int tw = (int)tile[0], th = (int)tile[1];
    if (!tiles_fit(g->xofs, dw, tw, g->xtaps) || !tiles_fit(g->yofs, dh, th, g->ytaps))
        return CLIK_OK;
    /* Staged pixels and horizontal sums, floats of each channel. */
    const size_t acc = sizeof(float) * (size_t)src->image.channels;
    const size_t pix = (size_t)(th + g->ytaps) * (size_t)(tw + g->xtaps) * acc;
    const size_t hsum = (size_t)(th + g->ytaps) * (size_t)tw * acc;
    if (pix + hsum > ctx->dev.local_mem_size)
        return CLIK_OK;
    st = interp_args(ctx, k, a, src, dst);
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 9, CLIK_LOCAL(pix), CLIK_LOCAL(hsum));
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)dw, (size_t)dh};
    *done = 1;
    return clik__launch(ctx, k, 2, items, tile); /* tile fits */
}

/* Scratch for as many bands (per_band bytes each) as 256 MiB holds, and the
 * kernel's common arguments; end_bands releases it (on failure, nothing to
 * release). */
static clik_status begin_bands(clik_context *ctx, clik_kernel_entry *k, resize_args *a,
                               const clik_binding *src, const clik_binding *dst, size_t per_band,
                               int bands, band_scratch *b)
{
    const size_t most = (size_t)1 << 28;
    const size_t fit = most / per_band;
    b->batch = fit < 1 ? 1 : fit < (size_t)bands ? (int)fit : bands;
    b->bytes = (size_t)b->batch * per_band;
    clik_status st = clik__temp_buffer(ctx, b->bytes, &b->mem);
    if (st != CLIK_OK)
        return st;
    st = interp_args(ctx, k, a, src, dst);
    if (st != CLIK_OK)
        clik__temp_release(ctx, b->mem, b->bytes);
    return st;
}

/* The bytes of a band of spans whose work-items keep rings of ytaps rows of
 * a span of floats. */
static size_t ring_bytes(const clik_resize_geometry *g, int span, int ch, int spans)
{
    const size_t ring = (size_t)g->ytaps * (size_t)span * (size_t)ch * sizeof(float);
    return ring * (size_t)spans;
}

/* The source rows a band of rows reaches: at most (rows - 1) * step + 1 +
 * taps of them, and no more than rows * taps. */
static double band_sources(int rows, double step, int taps)
{
    double sources = (rows - 1) * step + 1.0 + taps;
    if (sources > (double)rows * taps)
        sources = (double)rows * taps;
    return sources;
}

typedef struct interp_rows_work {
    int ch, taps;
    double step; /* source rows per output row */
} interp_rows_work;

/* resize_interp_rows: per row the vertical pass of the span and the ring's
 * bookkeeping, and a horizontal pass of each source row the band reaches,
 * at most (rows - 1) * step + 1 + taps of them. */
static double interp_rows_cost(int rows, int span, const void *user)
{
    const interp_rows_work *c = user;
    return rows * (span * c->ch / 16.0 + 18.0 + c->taps) +
           band_sources(rows, c->step, c->taps) * (span + 3.0);
}

/* CPU devices: spans of bands of rows, each work-item with its ring of
 * horizontal sums in scratch. Launches of as many bands as 256 MiB of
 * scratch holds, one after the other, share it. */
static clik_status cl_interp_rows(clik_context *ctx, resize_args *a, const clik_binding *src,
                                  const clik_binding *dst)
{
    const clik_resize_geometry *g = &a->g;
    /* The vertical pass stores 16 bytes at a time: typed where dst allows. */
    clik_kernel_entry *k;
    clik_status st = interp_kernel(ctx, &src->image, g->xtaps, "resize_interp_rows",
                                   clik__align_mode(src, dst, 0), &k);
    if (st != CLIK_OK)
        return st;
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height, ch = src->image.channels;
    const interp_rows_work c = {ch, g->xtaps, (double)sh / dh};
    /* A row of 16 pixels always fits. */
    int rows = band_rows(ctx, dh), span;
    fit_item(interp_rows_cost, &c, dw, &rows, &span);
    const int spans = (dw + span - 1) / span, bands = (dh + rows - 1) / rows;
    int xa, xb;
    clik__resize_interior(g, dw, sw, &xa, &xb);
    /* Each work-item's ring: taps rows of a span of floats. */
    band_scratch b;
    st = begin_bands(ctx, k, a, src, dst, ring_bytes(g, span, ch, spans), bands, &b);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS_AT(ctx, k, 9, CLIK_A(rows), CLIK_A(xa), CLIK_A(xb), CLIK_A(b.mem), CLIK_A(span));
    return end_bands(ctx, k, st, 14, spans, bands, &b);
}

typedef struct period2_work {
    int ch, taps;
} period2_work;

/* resize_period2_rows, `rows` source rows of a span of `span` source
 * pixels: a horizontal pass of rows + taps source rows (a vector step per
 * 16 elements, up to 2 (taps / 2 + 16) pixels one by one), and the two
 * output rows of each source row (2 span ch elements each, a step per 16,
 * a tail of up to 15). */
static double period2_cost(int rows, int span, const void *user)
{
    const period2_work *c = user;
    const double hpass = span * c->ch / 16.0 + c->taps + 34.0;
    const double vpass = 2.0 * span * c->ch / 16.0 + 16.0;
    return (rows + c->taps) * (hpass + 1.0) + rows * vpass;
}

/* CPU devices, exactly x2 with weights of period 2 (bilinear and bicubic):
 * resize_period2_rows over bands of at most 64 output rows (unless
 * resize_band_rows says otherwise), each work-item with its ring of taps + 1
 * rows of horizontal sums in scratch. */
static clik_status cl_period2_rows(clik_context *ctx, resize_args *a, const clik_binding *src,
                                   const clik_binding *dst)
{
    const clik_resize_geometry *g = &a->g;
    clik_kernel_entry *k;
    clik_status st = interp_kernel(ctx, &src->image, g->xtaps, "resize_period2_rows",
                                   clik__align_mode(src, dst, 0), &k);
    if (st != CLIK_OK)
        return st;
    const int sw = src->image.width, sh = src->image.height, ch = src->image.channels;
    const long groups = (long)ctx->dev.compute_units * 4;
    long def = (2L * sh + groups - 1) / (groups > 0 ? groups : 1);
    def = def < 1 ? 1 : def > 64 ? 64 : def;
    const long out_rows = clik__tune(ctx, CLIK_TUNE_RESIZE_BAND_ROWS, def);
    int rows = (int)((out_rows + 1) / 2 < sh ? (out_rows + 1) / 2 : sh), span;
    const period2_work c = {ch, g->xtaps};
    /* A row of 16 pixels always fits. */
    fit_item(period2_cost, &c, sw, &rows, &span);
    const int spans = (sw + span - 1) / span, bands = (sh + rows - 1) / rows;
    const size_t ring = (size_t)(g->xtaps + 1) * 2 * (size_t)span * (size_t)ch * sizeof(float);
    band_scratch b;
    st = begin_bands(ctx, k, a, src, dst, ring * (size_t)spans, bands, &b);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS_AT(ctx, k, 9, CLIK_A(rows), CLIK_A(span), CLIK_A(b.mem));
    return end_bands(ctx, k, st, 12, spans, bands, &b);
}

/* CPU devices, u8 bilinear by exactly 2 on both axes: a band of source rows
 * per work-item, integer sums (kernels/up2_rows.h); no geometry table. */
static clik_status cl_bilinear_x2_rows(clik_context *ctx, const clik_binding *src,
                                       const clik_binding *dst)
{
    const clik_image *img = &src->image;
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "resize", CLIK_U8, img->channels, "-DTAPS=2",
                                        "resize_bilinear_x2_rows", &k);
    const int ss = (int)src->stride, ds = (int)dst->stride;
    const int sw = img->width, sh = img->height, dw = dst->image.width, dh = dst->image.height;
    if (st != CLIK_OK)
        return st;
    /* A few bands per compute unit; a row costs about W * CH / 16 + 2 * CH
     * + 16 loop iterations, kept within half of llvmpipe's 65535. */
    const long rows = band_rows(ctx, sh);
    const long most = 32768 / ((long)sw * img->channels / 16 + 2L * img->channels + 16);
    const int band = (int)(rows < most ? rows : most > 0 ? most : 1);
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst->mem),
                   CLIK_A(ds), CLIK_A(dw), CLIK_A(dh), CLIK_A(band));
    size_t global[1] = {((size_t)sh + (size_t)band - 1) / (size_t)band}, local[1] = {1};
    return st == CLIK_OK ? clik__launch_exact(ctx, k, 1, global, local) : st;
}

/* GPUs, exactly x2: resize_period2_block, 16 elements of two output rows
 * per work-item from constant weights. */
static clik_status cl_period2_block(clik_context *ctx, const resize_args *a,
                                    const clik_binding *src, const clik_binding *dst)
{
    clik_kernel_entry *k;
    clik_status st = interp_kernel(ctx, &src->image, a->g.xtaps, "resize_period2_block",
                                   clik__align_mode(src, dst, 0), &k);
    if (st == CLIK_OK)
        st = interp_args(ctx, k, a, src, dst);
    if (st != CLIK_OK)
        return st;
    const size_t np = (size_t)(8 / src->image.channels);
    size_t items[2] = {((size_t)src->image.width + np - 1) / np, (size_t)src->image.height};
    size_t local[2] = {32, 8};
    return clik__launch(ctx, k, 2, items, local);
}

static clik_status cl_interp(clik_context *ctx, resize_args *a, const clik_binding *src,
                             const clik_binding *dst)
{
    const clik_image *s = &src->image, *d = &dst->image;
    /* CPU devices, exactly x2: the period-2 kernel, else (resize_period2=0)
     * for u8 bilinear the integer one. PoCL on 2 cores, u8 bilinear x2 of
     * 1920x1080, host to host: grey 2.7 ms against 4.0 ms for the integer
     * kernel, RGBA 9.1 ms against 21.1 ms. */
    const int period2 = use_cpu_kernels(ctx) && a->period2 && s->channels != 3 &&
                        clik__tune(ctx, CLIK_TUNE_RESIZE_PERIOD2, 1);
    if (use_cpu_kernels(ctx) && !period2 && a->method == CLIK_INTERP_BILINEAR &&
        s->type == CLIK_U8 && d->width == 2 * s->width && d->height == 2 * s->height &&
        (!a->scale || (a->scale[0] == 2.0 && a->scale[1] == 2.0)) &&
        clik__tune(ctx, CLIK_TUNE_RESIZE_UP2, 1))
        return cl_bilinear_x2_rows(ctx, src, dst);
    clik_status st = upload_geo(ctx, a);
    if (st != CLIK_OK)
        return st;
    if (period2)
        return cl_period2_rows(ctx, a, src, dst);
    if (use_cpu_kernels(ctx))
        return cl_interp_rows(ctx, a, src, dst);
    /* GPUs, exactly x2: the block kernel. NVIDIA H200, 3840x2160 grey x2,
     * resident: see benchmarks/results/nvidia-h200-resize-x2-block.md. */
    if (a->period2 && s->channels != 3 && clik__tune(ctx, CLIK_TUNE_RESIZE_P2_BLOCK, 1))
        return cl_period2_block(ctx, a, src, dst);
    /* Pixels typed where aligned (16-byte chunks do not matter here). */
    const int align = pixel_mode(src, dst);
    /* Local-memory tiles for bicubic upscaling where local memory is on
     * chip; resize_local=1 forces them wherever the tiles fit. */
    int done = 0;
    if (clik__tune(ctx, CLIK_TUNE_RESIZE_LOCAL,
                   ctx->local_memory && ctx->dev.local_mem_dedicated &&
                       a->method == CLIK_INTERP_BICUBIC))
        st = cl_interp_local(ctx, a, src, dst, align, &done);
    if (st != CLIK_OK || done)
        return st;
    clik_kernel_entry *k;
    st = interp_kernel(ctx, &src->image, a->g.xtaps, "resize_interp", align, &k);
    if (st == CLIK_OK)
        st = interp_args(ctx, k, a, src, dst);
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)dst->image.width, (size_t)dst->image.height}, local[2] = {32, 8};
    return clik__launch(ctx, k, 2, items, local);
}

/* ---- bicubic-aa ---- */

/* The bicubic-aa program of a format and the taps of each axis. */
static clik_status aa_kernel(clik_context *ctx, const clik_resize_geometry *g,
                             const clik_image *img, const char *base, int align,
                             clik_kernel_entry **k)
{
    char options[48], name[64];
    snprintf(options, sizeof(options), "-DAA_TX=%d -DAA_TY=%d", g->xtaps, g->ytaps);
    aligned_name(name, sizeof(name), base, align);
    return clik__pixel_kernel(ctx, "resize", img->type, img->channels, options, name, k);
}

typedef struct aa_rows_work {
    int ch;
    double hloop; /* loop iterations of a horizontal sum */
    int ytaps;
    double step; /* source rows per output row */
} aa_rows_work;

/* resize_aa_rows: per output row the bookkeeping of its ytaps source rows
 * and the vertical pass of the span (ytaps + 1 iterations per 16 elements
 * and per element of the tail), and a horizontal pass of each source row
 * the band reaches, at most (rows - 1) * step + 1 + ytaps of them. */
static double aa_rows_cost(int rows, int span, const void *user)
{
    const aa_rows_work *c = user;
    const double vertical = (span * c->ch / 16.0 + 15.0) * (c->ytaps + 1.0);
    return rows * (c->ytaps + 2.0 + vertical) +
           band_sources(rows, c->step, c->ytaps) * (span * (c->hloop + 1.0) + 3.0);
}

/* CPU devices: spans of bands of rows, as resize_interp_rows, the ring of
 * each work-item ytaps rows of horizontal sums; *done 0 (nothing run) when
 * one row of 16 pixels is past a work-item's loop budget (extreme factors:
 * the separable kernels then). */
static clik_status cl_aa_rows(clik_context *ctx, resize_args *a, const clik_binding *src,
                              const clik_binding *dst, int *done)
{
    const clik_resize_geometry *g = &a->g;
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height, ch = src->image.channels;
    /* Whole groups of 4 taps inside the row, single taps clamped into it. */
    const aa_rows_work c = {ch, sw < g->xtaps ? g->xtaps : g->xtaps / 4.0, g->ytaps,
                            (double)sh / dh};
    int rows = band_rows(ctx, dh), span;
    *done = fit_item(aa_rows_cost, &c, dw, &rows, &span);
    if (!*done)
        return CLIK_OK;
    /* The vertical pass stores 16 bytes at a time: typed where dst allows. */
    clik_kernel_entry *k;
    clik_status st =
        aa_kernel(ctx, g, &src->image, "resize_aa_rows", clik__align_mode(src, dst, 0), &k);
    if (st != CLIK_OK)
        return st;
    const int spans = (dw + span - 1) / span, bands = (dh + rows - 1) / rows;
    band_scratch b;
    st = begin_bands(ctx, k, a, src, dst, ring_bytes(g, span, ch, spans), bands, &b);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS_AT(ctx, k, 9, CLIK_A(rows), CLIK_A(b.mem), CLIK_A(span));
    return end_bands(ctx, k, st, 12, spans, bands, &b);
}

typedef struct aa_vrows_work {
    int ch, xtaps, ytaps, sw;
    double hloop; /* loop iterations of a horizontal sum */
    double step;  /* source columns per output column */
} aa_vrows_work;

/* resize_aa_vrows: per output row the vertical pass over the source
 * columns of the span, at most (span - 1) * step + 1 + xtaps of them
 * (ytaps + 1 iterations per 16 elements and per element of the tail), then
 * the horizontal sums of the span. */
static double aa_vrows_cost(int rows, int span, const void *user)
{
    const aa_vrows_work *c = user;
    double cols = (span - 1) * c->step + 1.0 + c->xtaps;
    cols = cols < c->sw ? cols : c->sw;
    const double vertical = (cols * c->ch / 16.0 + 15.0) * (c->ytaps + 1.0);
    return rows * (vertical + span * (c->hloop + 1.0) + 4.0);
}

/* CPU devices, shrinking vertically: the vertical pass first, per output
 * row, into a line of floats per work-item; *done 0 (nothing run) when one
 * row of 16 pixels is past a work-item's loop budget. */
static clik_status cl_aa_vrows(clik_context *ctx, resize_args *a, const clik_binding *src,
                               const clik_binding *dst, int *done)
{
    const clik_resize_geometry *g = &a->g;
    const int sw = src->image.width;
    const int dw = dst->image.width, dh = dst->image.height, ch = src->image.channels;
    const aa_vrows_work c = {
        ch, g->xtaps, g->ytaps, sw, sw < g->xtaps ? g->xtaps : g->xtaps / 4.0, (double)sw / dw};
    int rows = band_rows(ctx, dh), span;
    *done = fit_item_wide(aa_vrows_cost, &c, dw, &rows, &span);
    if (!*done)
        return CLIK_OK;
    clik_kernel_entry *k;
    const int align = pixel_mode(src, dst);
    clik_status st = aa_kernel(ctx, g, &src->image, "resize_aa_vrows", align, &k);
    if (st != CLIK_OK)
        return st;
    const int spans = (dw + span - 1) / span, bands = (dh + rows - 1) / rows;
    /* The longest line of a span, in elements. */
    int line = 1;
    for (int x0 = 0; x0 < dw; x0 += span) {
        const int x1 = x0 + span < dw ? x0 + span : dw;
        const int end = g->xofs[x1 - 1] + g->xtaps < sw ? g->xofs[x1 - 1] + g->xtaps : sw;
        line = (end - g->xofs[x0]) * ch > line ? (end - g->xofs[x0]) * ch : line;
    }
    band_scratch b;
    st = begin_bands(ctx, k, a, src, dst, sizeof(float) * (size_t)line * (size_t)spans, bands, &b);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS_AT(ctx, k, 9, CLIK_A(rows), CLIK_A(b.mem), CLIK_A(line), CLIK_A(span));
    return end_bands(ctx, k, st, 13, spans, bands, &b);
}

/* Any device: the horizontal sums of every source row into a float image of
 * dw x sh pixels (resize_aa_h), then the vertical ones (resize_aa_v); a
 * work-item's loops run xtaps or ytaps times at most. */
static clik_status cl_aa_separable(clik_context *ctx, resize_args *a, const clik_binding *src,
                                   const clik_binding *dst)
{
    const clik_resize_geometry *g = &a->g;
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height, ch = src->image.channels;
    if (g->xtaps >= ITEM_LOOPS || g->ytaps >= ITEM_LOOPS)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "clik_resize: bicubic-aa of %dx%d to %dx%d takes %d x %d taps per "
                          "output, past the kernels' loop budget",
                          sw, sh, dw, dh, g->xtaps, g->ytaps);
    /* tmp may hold 2^31 elements or more: the kernels index its rows with
     * 64-bit products. */
    const size_t elems = (size_t)sh * (size_t)dw * (size_t)ch;
    const int align = pixel_mode(src, dst);
    clik_kernel_entry *kh, *kv;
    clik_status st = aa_kernel(ctx, g, &src->image, "resize_aa_h", align, &kh);
    if (st == CLIK_OK)
        st = aa_kernel(ctx, g, &src->image, "resize_aa_v", align, &kv);
    if (st != CLIK_OK)
        return st;
    cl_mem tmp;
    const size_t tmp_bytes = elems * sizeof(float);
    st = clik__temp_buffer(ctx, tmp_bytes, &tmp);
    if (st != CLIK_OK)
        return st;
    const size_t esize = clik_type_size(src->image.type);
    const int ss = (int)(src->stride / esize), ds = (int)(dst->stride / esize);
    st = CLIK_ARGS(ctx, kh, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh), CLIK_A(tmp),
                   CLIK_A(dw), CLIK_A(dh), CLIK_A(a->geo));
    const size_t local[2] = {32, 8};
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)dw, (size_t)sh};
        st = clik__launch(ctx, kh, 2, items, local);
    }
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kv, CLIK_A(tmp), CLIK_A(sh), CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(dw),
                       CLIK_A(dh), CLIK_A(a->geo));
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)dw, (size_t)dh};
        st = clik__launch(ctx, kv, 2, items, local);
    }
    clik__temp_release(ctx, tmp, tmp_bytes);
    return st;
}

static clik_status cl_aa(clik_context *ctx, resize_args *a, const clik_binding *src,
                         const clik_binding *dst)
{
    clik_status st = upload_geo(ctx, a);
    int done = 0;
    /* CPU devices: where the image shrinks vertically the vertical pass
     * first (contiguous, and the horizontal sums of dh rows where the ring
     * makes those of all sh source rows). PoCL on 2 cores of a loaded AMD
     * EPYC, 3840x2160 to 1280x720, kernel time: grey 3.5-5.3 ms against
     * 4.6-7.4 ms, RGBA 7.5-8.5 ms against 10.9-12.5 ms. */
    const int vfirst = a->g.yofs && dst->image.height < src->image.height;
    if (st == CLIK_OK && use_cpu_kernels(ctx))
        st = vfirst ? cl_aa_vrows(ctx, a, src, dst, &done) : cl_aa_rows(ctx, a, src, dst, &done);
    if (st != CLIK_OK || done)
        return st;
    return cl_aa_separable(ctx, a, src, dst);
}

/* b[0] is src, b[1] dst. */
clik_status clik__resize_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    resize_args *a = p;
    const clik_binding *src = b[0], *dst = b[1];
    /* The kernels take int strides, in bytes (nearest) or in elements (row
     * starts are 64-bit products of them, kernels/resize.cl): a host
     * image's stride may be longer. */
    clik_status st =
        clik__check_int_strides(ctx, b, 2, a->method == CLIK_INTERP_NEAREST, "clik_resize");
    if (st != CLIK_OK)
        return st;
    a->kept = kept_geometry(ctx, a, src->image.width, src->image.height, dst->image.width,
                            dst->image.height, src->image.type == CLIK_U8);
    if (!a->kept)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_resize: out of memory");
    a->g = a->kept->g;
    a->geo = a->kept->mem;
    a->period2 = a->kept->period2;
    const int cpu = use_cpu_kernels(ctx);
    const int fast = a->method == CLIK_INTERP_NEAREST && a->g.sx > 0 && a->g.sy > 0 &&
                     clik__tune(ctx, CLIK_TUNE_RESIZE_FAST_NEAREST, 1);
    int done = 0;
    if (a->method == CLIK_INTERP_BICUBIC_AA)
        st = cl_aa(ctx, a, src, dst);
    else if (a->method != CLIK_INTERP_NEAREST)
        st = cl_interp(ctx, a, src, dst);
    else if (fast && !cpu)
        st = cl_nearest_int(ctx, a, src, dst);
    else if (fast)
        st = cl_nearest_int_rows(ctx, a, src, dst, &done);
    if (st == CLIK_OK && a->method == CLIK_INTERP_NEAREST && !(fast && (done || !cpu))) {
        st = upload_geo(ctx, a);
        if (st == CLIK_OK)
            st = cpu ? cl_nearest_rows(ctx, a, src, dst) : cl_nearest(ctx, a, src, dst);
    }
    return st;
}

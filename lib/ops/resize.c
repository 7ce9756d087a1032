/*
 * Resize family: nearest, bilinear and bicubic resampling (kernels/resize.cl,
 * fallback_cpu/{scalar,neon}/resize.c).
 *
 * The geometry of a resize is computed here once per call, in double, as
 * OpenCV's resize computes it: per output column and row the first source
 * tap and its weights. The kernels receive it as one small table, so every
 * device uses the same coefficients and no device needs doubles.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *clik_interp_name(clik_interp method)
{
    switch (method) {
    case CLIK_INTERP_NEAREST: return "nearest";
    case CLIK_INTERP_BILINEAR: return "bilinear";
    case CLIK_INTERP_BICUBIC: return "bicubic";
    }
    return "unknown";
}

/* ---- sizes ------------------------------------------------------------------------ */

/* One output side: rounded to nearest, halves to even (OpenCV's cvRound). */
static clik_status scaled_side(int side, double scale, int *out)
{
    const double v = rint((double)side * scale);
    if (!(v >= 1.0) || v > (double)CLIK_MAX_DIM)
        return CLIK_ERR_INVALID_SIZE;
    *out = (int)v;
    return CLIK_OK;
}

clik_status clik_resize_size(int width, int height, double scale_x, double scale_y, int *out_width,
                             int *out_height)
{
    if (!out_width || !out_height)
        return CLIK_ERR_NULL;
    if (!isfinite(scale_x) || !isfinite(scale_y) || !(scale_x > 0.0) || !(scale_y > 0.0))
        return CLIK_ERR_INVALID_ARG;
    if (width <= 0 || height <= 0 || width > CLIK_MAX_DIM || height > CLIK_MAX_DIM)
        return CLIK_ERR_INVALID_SIZE;
    int w, h;
    clik_status st = scaled_side(width, scale_x, &w);
    if (st == CLIK_OK)
        st = scaled_side(height, scale_y, &h);
    if (st != CLIK_OK)
        return st;
    if ((size_t)w > SIZE_MAX / (size_t)h)
        return CLIK_ERR_OVERFLOW;
    *out_width = w;
    *out_height = h;
    return CLIK_OK;
}

/* ---- geometry ------------------------------------------------------------------------ */

static int method_taps(clik_interp method)
{
    return method == CLIK_INTERP_BICUBIC ? 4 : method == CLIK_INTERP_BILINEAR ? 2 : 0;
}

/* OpenCV's INTER_NEAREST: floor(x * (1 / (dst / src))) in double, clamped. */
static void nearest_axis(int src, int dst, int32_t *ofs)
{
    const double scale = 1.0 / ((double)dst / (double)src);
    for (int x = 0; x < dst; x++) {
        const int i = (int)floor((double)x * scale);
        ofs[x] = i < src - 1 ? i : src - 1;
    }
}

void clik__cubic_weights(double t, double *w)
{
    const double a = -0.75, u = 1.0 - t, d0 = 1.0 + t, d3 = 2.0 - t;
    w[0] = ((a * d0 - 5.0 * a) * d0 + 8.0 * a) * d0 - 4.0 * a;
    w[1] = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    w[2] = ((a + 2.0) * u - (a + 3.0)) * u * u + 1.0;
    w[3] = ((a * d3 - 5.0 * a) * d3 + 8.0 * a) * d3 - 4.0 * a;
}

double clik__u8_weight(double w)
{
    return rint(w * 2048.0) / 2048.0;
}

/* Source point (x + 0.5) * src / dst - 0.5 of each output x: its first tap
 * (unclamped: kernels replicate the border) and the taps' weights. u8
 * images take the weights in steps of 1/2048, as OpenCV's fixed-point
 * resize does (its INTER_RESIZE_COEF_BITS): results then match
 * INTER_CUBIC's also where the exact value is close to a half. */
static void interp_axis(int src, int dst, int taps, int quantize, int32_t *ofs, float *w)
{
    const double scale = 1.0 / ((double)dst / (double)src);
    for (int x = 0; x < dst; x++) {
        const double f = ((double)x + 0.5) * scale - 0.5, base = floor(f), t = f - base;
        double exact[4] = {1.0 - t, t, 0.0, 0.0};
        ofs[x] = (int32_t)base - (taps == 4 ? 1 : 0);
        if (taps == 4)
            clik__cubic_weights(t, exact);
        for (int k = 0; k < taps; k++)
            w[(size_t)x * (size_t)taps + (size_t)k] =
                (float)(quantize ? clik__u8_weight(exact[k]) : exact[k]);
    }
}

/* The kernels' table (kernels/resize.cl): xofs[dw], yofs[dh], then the
 * weights xw[dw * taps], yw[dh * taps] as floats. */
typedef struct geometry {
    int32_t *table;
    size_t bytes;
    int taps;
    int sx, sy; /* integer nearest factors, 0 where the axis has none */
} geometry;

/* The factor s when output x of this nearest axis is source x / s, else 0. */
static int integer_factor(const int32_t *ofs, int src, int dst)
{
    if (dst % src != 0)
        return 0;
    const int s = dst / src;
    for (int x = 0; x < dst; x++)
        if (ofs[x] != x / s)
            return 0;
    return s;
}

static clik_status geometry_make(clik_context *ctx, const clik_image *src, int dw, int dh,
                                 clik_interp method, geometry *g)
{
    const int sw = src->width, sh = src->height, quantize = src->type == CLIK_U8;
    memset(g, 0, sizeof(*g));
    g->taps = method_taps(method);
    /* The weights start 16-byte aligned (kernels load them as vectors). */
    const size_t weights_at = ((size_t)dw + (size_t)dh + 3) / 4 * 4;
    g->bytes = sizeof(int32_t) * (weights_at + ((size_t)dw + (size_t)dh) * (size_t)g->taps);
    g->table = calloc(1, g->bytes);
    if (!g->table)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    int32_t *xofs = g->table, *yofs = g->table + dw;
    if (g->taps == 0) {
        nearest_axis(sw, dw, xofs);
        nearest_axis(sh, dh, yofs);
        g->sx = integer_factor(xofs, sw, dw);
        g->sy = integer_factor(yofs, sh, dh);
    } else {
        float *xw = (float *)(void *)(g->table + weights_at), *yw = xw + (size_t)dw * g->taps;
        interp_axis(sw, dw, g->taps, quantize, xofs, xw);
        interp_axis(sh, dh, g->taps, quantize, yofs, yw);
    }
    return CLIK_OK;
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

/* ---- validation ------------------------------------------------------------------------ */

static clik_status check_format(clik_context *ctx, const clik_image *img, const char *what)
{
    clik_status st = clik__check_image(ctx, img, what);
    if (st != CLIK_OK)
        return st;
    if (img->type != CLIK_U8 && img->type != CLIK_F32)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: needs u8 or f32 pixels, not %s",
                          what, clik_type_name(img->type));
    if (img->channels != 1 && img->channels != 4)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: needs 1 or 4 channels, not %d",
                          what, img->channels);
    return CLIK_OK;
}

/* ---- OpenCL path ------------------------------------------------------------------------ */

typedef struct resize_args {
    const clik_image *src;
    clik_image *dst;
    clik_interp method;
} resize_args;

static size_t pixel_bytes(const clik_image *img)
{
    return (size_t)img->channels * clik_type_size(img->type);
}

/* The image and each of its rows start at a multiple of its pixel size. */
static int pixel_aligned(const clik_binding *b)
{
    const size_t p = pixel_bytes(&b->image);
    if (b->stride % p != 0)
        return 0;
    return b->base_aligned || (b->mapped_host && (uintptr_t)b->image.data % p == 0);
}

/* Bands of rows for the CPU-device kernels: a few per compute unit. */
static int band_rows(const clik_context *ctx, int rows)
{
    const long groups = (long)ctx->dev.compute_units * 4;
    long n = clik__tune_int(ctx, "resize_band_rows", (rows + groups - 1) / groups);
    return n < 1 ? 1 : n > rows ? rows : (int)n;
}

static clik_status launch_bands(clik_context *ctx, clik_kernel_entry *k, int rows, int per_band)
{
    size_t global[1] = {(size_t)((rows + per_band - 1) / per_band)}, local[1] = {1};
    return clik__launch_exact(ctx, k, 1, global, local);
}

static clik_status launch_2d(clik_context *ctx, clik_kernel_entry *k, size_t nx, size_t ny)
{
    size_t items[2] = {nx, ny};
    /* Rows of 256 work-items: NVIDIA H200, nearest x2 of 1080p RGBA, 13.6 us
     * against 13.8 us for 64 x 4 and 32 x 8. */
    size_t local[2] = {(size_t)clik__tune_int(ctx, "resize_wg_x", 256),
                       (size_t)clik__tune_int(ctx, "resize_wg_y", 1)};
    return clik__launch(ctx, k, 2, items, local);
}

/* The table as a device buffer (released by the caller). */
static clik_status upload_geometry(clik_context *ctx, const geometry *g, cl_mem *mem)
{
    clik_status st = clik__temp_buffer(ctx, g->bytes, mem);
    if (st != CLIK_OK)
        return st;
    st = clik__write_bytes(ctx, *mem, g->table, g->bytes);
    if (st != CLIK_OK) {
        clik__temp_release(ctx, *mem, g->bytes);
        *mem = NULL;
    }
    return st;
}

/* 16-byte chunks of a row of `width` pixels of `bpp` bytes (the GPU
 * nearest kernels' work-items). */
static size_t chunks(int width, int bpp)
{
    return ((size_t)width * (size_t)bpp + 15) / 16;
}

static clik_status cl_nearest(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                              const geometry *g)
{
    const clik_binding *both[2] = {src, dst};
    const int bpp = (int)pixel_bytes(&src->image);
    const int pix_aligned = pixel_aligned(src) && pixel_aligned(dst);
    const int cpu = clik__tune_flag(ctx, "resize_cpu", ctx->dev.type == CLIK_DEVICE_CPU);
    const int fast = g->sx > 0 && g->sy > 0 && clik__tune_flag(ctx, "resize_fast_nearest", 1);
    /* 16-byte chunks: the CPU integer kernel reads and writes them, the
     * others write them (GPUs) or copy dst rows (CPU). */
    const int aligned = cpu && fast ? clik__aligned16(both, 2, 0) : clik__aligned16(both + 1, 1, 0);
    char options[96];
    snprintf(options, sizeof(options), "-DBPP=%d -DPIX_ALIGNED=%d -DALIGNED=%d", bpp, pix_aligned,
             aligned);
    const char *name = fast ? (cpu ? "resize_nearest_int_rows" : "resize_nearest_int")
                            : (cpu ? "resize_nearest_rows" : "resize_nearest");
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "resize", options, name, &k);
    if (st != CLIK_OK)
        return st;
    const int ss = (int)src->stride, ds = (int)dst->stride;
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height;
    if (fast) {
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(g->sx), CLIK_A(g->sy));
        if (st != CLIK_OK)
            return st;
        if (!cpu) {
            st = CLIK_ARG(ctx, k, 8, dw);
            return st == CLIK_OK ? launch_2d(ctx, k, chunks(dw, bpp), (size_t)sh) : st;
        }
        const int rows = band_rows(ctx, sh);
        st = CLIK_ARG(ctx, k, 8, rows);
        return st == CLIK_OK ? launch_bands(ctx, k, sh, rows) : st;
    }
    cl_mem geo;
    st = upload_geometry(ctx, g, &geo);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(dw),
                   CLIK_A(dh), CLIK_A(geo));
    if (st == CLIK_OK && !cpu) {
        st = launch_2d(ctx, k, chunks(dw, bpp), (size_t)dh);
    } else if (st == CLIK_OK) {
        const int rows = band_rows(ctx, dh);
        st = CLIK_ARG(ctx, k, 7, rows);
        if (st == CLIK_OK)
            st = launch_bands(ctx, k, dh, rows);
    }
    clik__temp_release(ctx, geo, g->bytes);
    return st;
}

/* Interpolation program options; tile_w 0: without resize_interp_local. */
static void interp_options(char *out, size_t cap, const clik_binding *src, int taps,
                           int pix_aligned, int tile_w, int tile_h)
{
    int n = snprintf(out, cap, "-DT=%s -DT_IS_FLOAT=%d -DCH=%d -DTAPS=%d -DPIX_ALIGNED=%d",
                     src->image.type == CLIK_U8 ? "uchar" : "float", src->image.type == CLIK_F32,
                     src->image.channels, taps, pix_aligned);
    if (tile_w > 0 && n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, " -DTILE_W=%d -DTILE_H=%d", tile_w, tile_h);
}

/* resize_interp_local with the largest tile up to (resize_tile_w,
 * resize_tile_h) that the device and the kernel accept; *k NULL when the
 * tiles do not fit the geometry (downscaling) or nothing fits the device. */
static clik_status local_kernel(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                                const geometry *g, int pix_aligned, clik_kernel_entry **k,
                                size_t *tile)
{
    *k = NULL;
    /* NVIDIA H200, bicubic x2 of 1080p RGBA: 16 x 16 tiles 80 us, 32 x 8 85 us,
     * 8 x 8 90 us; without local memory 134 us. */
    int tw = (int)clik__tune_int(ctx, "resize_tile_w", 16);
    int th = (int)clik__tune_int(ctx, "resize_tile_h", 16);
    if (tw < 1 || th < 1)
        return CLIK_OK;
    size_t limit = ctx->dev.max_work_group_size;
    const int dw = dst->image.width, dh = dst->image.height;
    for (;;) {
        while ((size_t)(tw * th) > limit || (size_t)tw > ctx->dev.max_work_item_sizes[0] ||
               (size_t)th > ctx->dev.max_work_item_sizes[1]) {
            if (tw == 1 && th == 1)
                return CLIK_OK;
            /* Keep tiles about four times wider than high. */
            if ((tw >= 4 * th && tw > 1) || th == 1)
                tw = (tw + 1) / 2;
            else
                th = (th + 1) / 2;
        }
        if (!tiles_fit(g->table, dw, tw, g->taps) || !tiles_fit(g->table + dw, dh, th, g->taps))
            return CLIK_OK;
        /* Staged pixels and horizontal sums, floats of each channel. */
        const uint64_t bytes = (uint64_t)(th + g->taps) * (uint64_t)(2 * tw + g->taps) *
                               sizeof(float) * (uint64_t)src->image.channels;
        if (bytes > ctx->dev.local_mem_size)
            return CLIK_OK;
        char options[160];
        interp_options(options, sizeof(options), src, g->taps, pix_aligned, tw, th);
        clik_kernel_entry *e;
        clik_status st = clik__kernel(ctx, "resize", options, "resize_interp_local", &e);
        if (st != CLIK_OK)
            return st;
        if (e->max_work_group >= (size_t)(tw * th)) {
            *k = e;
            tile[0] = (size_t)tw;
            tile[1] = (size_t)th;
            return CLIK_OK;
        }
        if (tw * th == 1)
            return CLIK_OK;
        limit = e->max_work_group; /* rebuild with a tile the kernel accepts */
    }
}

/* The columns [*xa, *xb) whose taps all lie inside the source row. */
static void interior_columns(const int32_t *xofs, int dw, int sw, int taps, int *xa, int *xb)
{
    int a = 0, b = dw;
    while (a < dw && xofs[a] < 0)
        a++;
    while (b > a && xofs[b - 1] + taps > sw)
        b--;
    *xa = a;
    *xb = b;
}

static clik_status cl_interp_rows(clik_context *ctx, const clik_binding *src,
                                  const clik_binding *dst, const geometry *g, int pix_aligned,
                                  cl_mem geo)
{
    /* The vertical pass stores 16 bytes at a time: typed where dst allows. */
    const clik_binding *out[1] = {dst};
    char options[192];
    interp_options(options, sizeof(options), src, g->taps, pix_aligned, 0, 0);
    snprintf(options + strlen(options), sizeof(options) - strlen(options), " -DDST_ALIGNED16=%d",
             clik__aligned16(out, 1, 0));
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "resize", options, "resize_interp_rows", &k);
    if (st != CLIK_OK)
        return st;
    const size_t esize = clik_type_size(src->image.type);
    const int ss = (int)(src->stride / esize), ds = (int)(dst->stride / esize);
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height;
    /* Each band's ring of horizontal sums: taps rows of dw pixels of floats. */
    const size_t ring = (size_t)g->taps * (size_t)dw * (size_t)src->image.channels * sizeof(float);
    int rows = band_rows(ctx, dh);
    int bands = (dh + rows - 1) / rows;
    const size_t most = (size_t)1 << 28; /* scratch bytes */
    if ((size_t)bands * ring > most) {
        bands = most / ring > 1 ? (int)(most / ring) : 1;
        rows = (dh + bands - 1) / bands;
        bands = (dh + rows - 1) / rows;
    }
    int xa, xb;
    interior_columns(g->table, dw, sw, g->taps, &xa, &xb);
    cl_mem scratch;
    const size_t scratch_bytes = (size_t)bands * ring;
    st = clik__temp_buffer(ctx, scratch_bytes, &scratch);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst->mem),
                   CLIK_A(ds), CLIK_A(dw), CLIK_A(dh), CLIK_A(geo), CLIK_A(rows), CLIK_A(xa),
                   CLIK_A(xb), CLIK_A(scratch));
    if (st == CLIK_OK)
        st = launch_bands(ctx, k, dh, rows);
    clik__temp_release(ctx, scratch, scratch_bytes);
    return st;
}

static clik_status cl_interp(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                             const geometry *g, clik_interp method)
{
    const int pix_aligned = pixel_aligned(src) && pixel_aligned(dst);
    cl_mem geo;
    clik_status st = upload_geometry(ctx, g, &geo);
    if (st != CLIK_OK)
        return st;
    if (clik__tune_flag(ctx, "resize_cpu", ctx->dev.type == CLIK_DEVICE_CPU)) {
        st = cl_interp_rows(ctx, src, dst, g, pix_aligned, geo);
        clik__temp_release(ctx, geo, g->bytes);
        return st;
    }
    /* Local-memory tiles for bicubic upscaling where local memory is on
     * chip; resize_local=1 forces them wherever the tiles fit. */
    clik_kernel_entry *k = NULL;
    size_t tile[2] = {0, 0};
    if (clik__tune_flag(ctx, "resize_local",
                        ctx->local_memory && ctx->dev.local_mem_dedicated &&
                            method == CLIK_INTERP_BICUBIC))
        st = local_kernel(ctx, src, dst, g, pix_aligned, &k, tile);
    if (st == CLIK_OK && !k) {
        char options[160];
        interp_options(options, sizeof(options), src, g->taps, pix_aligned, 0, 0);
        st = clik__kernel(ctx, "resize", options, "resize_interp", &k);
    }
    const size_t esize = clik_type_size(src->image.type);
    const int ss = (int)(src->stride / esize), ds = (int)(dst->stride / esize);
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(dw), CLIK_A(dh), CLIK_A(geo));
    if (st == CLIK_OK && tile[0] > 0) {
        size_t global[2] = {((size_t)dw + tile[0] - 1) / tile[0] * tile[0],
                            ((size_t)dh + tile[1] - 1) / tile[1] * tile[1]};
        st = clik__launch_exact(ctx, k, 2, global, tile);
    } else if (st == CLIK_OK) {
        size_t items[2] = {(size_t)dw, (size_t)dh}, local[2] = {32, 8};
        st = clik__launch(ctx, k, 2, items, local);
    }
    clik__temp_release(ctx, geo, g->bytes);
    return st;
}

static clik_status resize_opencl(clik_context *ctx, void *p)
{
    resize_args *a = p;
    clik_binding src, dst;
    clik_status st = clik__bind(ctx, a->src, CLIK_READ, &src);
    if (st != CLIK_OK)
        return st;
    st = clik__bind(ctx, a->dst, CLIK_WRITE, &dst);
    if (st != CLIK_OK) {
        clik__unbind(ctx, &src, 0);
        return st;
    }
    /* The kernels address pixels with int offsets. */
    if (src.span > INT_MAX || dst.span > INT_MAX)
        st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                        "clik_resize: images over 2 GiB are beyond the kernels' offsets");
    geometry g = {0};
    if (st == CLIK_OK)
        st = geometry_make(ctx, a->src, a->dst->width, a->dst->height, a->method, &g);
    if (st == CLIK_OK)
        st = a->method == CLIK_INTERP_NEAREST ? cl_nearest(ctx, &src, &dst, &g)
                                              : cl_interp(ctx, &src, &dst, &g, a->method);
    free(g.table);
    clik_status st2 = clik__unbind(ctx, &dst, st == CLIK_OK);
    if (st == CLIK_OK)
        st = st2;
    clik__unbind(ctx, &src, 0);
    return st;
}

/* ---- CPU path ------------------------------------------------------------------------ */

typedef struct resize_cpu_args {
    const clik_resize_dsp *dsp;
    clik_interp method;
} resize_cpu_args;

static int resize_body(const clik_image *src, clik_image *dst, void *user)
{
    const resize_cpu_args *r = user;
    r->dsp->resize(src, dst, r->method);
    return 0;
}

static clik_status resize_cpu(clik_context *ctx, void *p)
{
    resize_args *a = p;
    resize_cpu_args r = {&ctx->dsp.resize, a->method};
    return clik__cpu_apply(ctx, a->src, a->dst, resize_body, &r, "clik_resize");
}

/* ---- public entry point ---------------------------------------------------------------- */

clik_status clik_resize(clik_context *ctx, const clik_image *src, clik_image *dst,
                        clik_interp method)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (method != CLIK_INTERP_NEAREST && method != CLIK_INTERP_BILINEAR &&
        method != CLIK_INTERP_BICUBIC)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_resize: unknown method %d", (int)method);
    clik_status st = check_format(ctx, src, "clik_resize: src");
    if (st == CLIK_OK)
        st = check_format(ctx, dst, "clik_resize: dst");
    if (st != CLIK_OK)
        return st;
    if (dst->type != src->type || dst->channels != src->channels)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "clik_resize: dst is %d-channel %s, src %d-channel %s", dst->channels,
                          clik_type_name(dst->type), src->channels, clik_type_name(src->type));
    if (clik__same_image(src, dst, &st) || st != CLIK_OK)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_resize: src and dst overlap");
    resize_args a = {src, dst, method};
    return clik__run(ctx, "resize", resize_opencl, resize_cpu, &a);
}

/*
 * SSIM family: the Gaussian SSIM map and mean, and tile SSIM
 * (kernels/ssim.cl, fallback_cpu/{scalar,neon}/ssim.c).
 *
 * Tuning keys: ssim_variant = local | direct | rows (the clik_ssim kernel;
 * by default rows on CPU devices, else local with on-chip local memory, else
 * direct), ssim_tile_w / ssim_tile_h (the local block, default 16 x 16),
 * ssim_direct_rows (default 4), ssim_rows_width = 8 | 16 and ssim_band_rows
 * (default 16 and 64); ssim_tiles_variant = group | item and
 * ssim_tiles_group (tiles per work-group of group).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define HALO (CLIK_SSIM_WINDOW - 1) /* the map is this much narrower and shorter */

typedef struct ssim_args {
    const clik_image *a, *b;
    clik_image *map;
    double *mean;
    int tile;
} ssim_args;

/* ---- validation ------------------------------------------------------------------ */

/* a and b: one channel, one size, one type (u8, or f32 where allowed). */
static clik_status check_inputs(clik_context *ctx, const clik_image *a, const clik_image *b,
                                int allow_f32, const char *op)
{
    clik_status st = clik__check_image(ctx, a, op);
    if (st == CLIK_OK)
        st = clik__check_image(ctx, b, op);
    if (st != CLIK_OK)
        return st;
    const clik_image *img[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (img[i]->channels != 1 ||
            (img[i]->type != CLIK_U8 && !(allow_f32 && img[i]->type == CLIK_F32)))
            return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                              "%s: %s needs one channel of %s, not %d of %s", op, i ? "b" : "a",
                              allow_f32 ? "u8 or f32" : "u8", img[i]->channels,
                              clik_type_name(img[i]->type));
    if (a->type != b->type)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: a is %s but b is %s", op,
                          clik_type_name(a->type), clik_type_name(b->type));
    if (a->width != b->width || a->height != b->height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: a is %dx%d but b is %dx%d", op,
                          a->width, a->height, b->width, b->height);
    return CLIK_OK;
}

/* map: F32, one channel, width x height, apart from a and b. */
static clik_status check_map(clik_context *ctx, const clik_image *map, const clik_image *a,
                             const clik_image *b, int width, int height, const char *op)
{
    clik_status st = clik__check_image(ctx, map, op);
    if (st != CLIK_OK)
        return st;
    if (map->type != CLIK_F32 || map->channels != 1)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: map needs one channel of f32, not %d of %s", op, map->channels,
                          clik_type_name(map->type));
    if (map->width != width || map->height != height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: map is %dx%d, needs %dx%d", op,
                          map->width, map->height, width, height);
    clik_status sa, sb;
    const int same_a = clik__same_image(map, a, &sa), same_b = clik__same_image(map, b, &sb);
    if (same_a || same_b || sa != CLIK_OK || sb != CLIK_OK)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: map overlaps an input", op);
    return CLIK_OK;
}

/* ---- OpenCL path ------------------------------------------------------------------- */

static int elems(const clik_binding *b)
{
    return (int)(b->stride / clik_type_size(b->image.type));
}

static int pow2_floor(long v)
{
    int p = 1;
    while ((long)p * 2 <= v && p < (1 << 20))
        p *= 2;
    return p;
}

typedef enum ssim_variant { V_LOCAL, V_DIRECT, V_ROWS } ssim_variant;

/* Outputs per work-item row of ssim_rows: 8 or 16 (one float vector). */
static int rows_width(const clik_context *ctx)
{
    return clik__tune_int(ctx, "ssim_rows_width", 16) == 8 ? 8 : 16;
}

/* CPU devices: the row kernel (it needs a map one strip wide); GPUs: tiles
 * in local memory where that memory is on chip, else registers only. */
static ssim_variant choose_variant(const clik_context *ctx, int ow)
{
    const char *def = ctx->dev.type == CLIK_DEVICE_CPU ? "rows"
                      : ctx->local_memory              ? "local"
                                                       : "direct";
    const char *v = clik__tune_str(ctx, "ssim_variant", def);
    if (strcmp(v, "local") == 0)
        return V_LOCAL;
    if (strcmp(v, "rows") == 0 && ow >= rows_width(ctx))
        return V_ROWS;
    return V_DIRECT;
}

/* Bytes of local memory ssim_local uses for a tw x th block. */
static size_t local_bytes(int tw, int th)
{
    return sizeof(float) * (size_t)(th + HALO) * (size_t)(2 * (tw + HALO) + 5 * tw);
}

/* Builds ssim_local with the largest power-of-two block (16 x 16 unless
 * tuned) that the device and the kernel accept. */
static clik_status local_kernel(clik_context *ctx, const char *type_opt, clik_kernel_entry **k,
                                int *tw_out, int *th_out)
{
    int tw = pow2_floor(clik__tune_int(ctx, "ssim_tile_w", 16));
    int th = pow2_floor(clik__tune_int(ctx, "ssim_tile_h", 16));
    size_t limit = ctx->dev.max_work_group_size;
    for (;;) {
        while ((size_t)(tw * th) > limit || (size_t)tw > ctx->dev.max_work_item_sizes[0] ||
               (size_t)th > ctx->dev.max_work_item_sizes[1] ||
               local_bytes(tw, th) > ctx->dev.local_mem_size) {
            if (tw * th == 1)
                return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "ssim_local: no block fits");
            if (th >= tw && th > 1)
                th /= 2;
            else
                tw /= 2;
        }
        char options[160];
        snprintf(options, sizeof(options), "%s -DTILE_W=%d -DTILE_H=%d", type_opt, tw, th);
        clik_status st = clik__kernel(ctx, "ssim", options, "ssim_local", k);
        if (st != CLIK_OK)
            return st;
        if ((*k)->max_work_group >= (size_t)(tw * th)) {
            *tw_out = tw;
            *th_out = th;
            return CLIK_OK;
        }
        limit = (*k)->max_work_group; /* rebuild with a block the kernel accepts */
    }
}

/* Runs the chosen kernel; *mean (NULL: not wanted) from its partial sums. */
static clik_status cl_ssim(clik_context *ctx, const clik_binding *a, const clik_binding *b,
                           const clik_binding *map, double *mean)
{
    const int ow = a->image.width - HALO, oh = a->image.height - HALO;
    const ssim_variant variant = choose_variant(ctx, ow);
    const char *type_opt = a->image.type == CLIK_U8 ? "-DT=uchar" : "-DT=float";
    char options[160];
    clik_kernel_entry *k = NULL;
    clik_status st = CLIK_OK;
    size_t global[2], local[2], parts = 0;
    int band = 0, exact = 0;

    if (variant == V_LOCAL) {
        int tw = 1, th = 1;
        st = local_kernel(ctx, type_opt, &k, &tw, &th);
        local[0] = (size_t)tw;
        local[1] = (size_t)th;
        global[0] = ((size_t)ow + tw - 1) / tw * tw;
        global[1] = ((size_t)oh + th - 1) / th * th;
        parts = (global[0] / tw) * (global[1] / th);
        exact = 1;
    } else if (variant == V_DIRECT) {
        const int rows = (int)clik__tune_int(ctx, "ssim_direct_rows", 4);
        const int r = rows > 16 ? 16 : rows;
        snprintf(options, sizeof(options), "%s -DDIRECT_ROWS=%d", type_opt, r);
        st = clik__kernel(ctx, "ssim", options, "ssim_direct", &k);
        global[0] = ((size_t)ow + 3) / 4;
        global[1] = ((size_t)oh + r - 1) / r;
        local[0] = 16;
        local[1] = 8;
        parts = global[0] * global[1];
    } else {
        const int vw = rows_width(ctx);
        band = (int)clik__tune_int(ctx, "ssim_band_rows", 64);
        snprintf(options, sizeof(options), "%s -DSSIM_ROWS=%d", type_opt, vw);
        st = clik__kernel(ctx, "ssim", options, "ssim_rows", &k);
        global[0] = ((size_t)ow + vw - 1) / vw;
        global[1] = ((size_t)oh + band - 1) / band;
        local[0] = 16;
        local[1] = 1;
        parts = global[0] * global[1];
    }
    if (st != CLIK_OK)
        return st;

    cl_mem partial = NULL;
    if (mean && (st = clik__temp_buffer(ctx, parts * sizeof(float), &partial)) != CLIK_OK)
        return st;
    /* An unused buffer argument gets the other buffer: never NULL. */
    cl_mem map_mem = map ? map->mem : partial, part_mem = mean ? partial : map->mem;
    const int write_map = map != NULL, want_mean = mean != NULL;
    const int sa = elems(a), sb = elems(b), sm = map ? elems(map) : 0;
    st = CLIK_ARGS(ctx, k, CLIK_A(a->mem), CLIK_A(sa), CLIK_A(b->mem), CLIK_A(sb), CLIK_A(ow),
                   CLIK_A(oh), CLIK_A(map_mem), CLIK_A(sm), CLIK_A(write_map), CLIK_A(want_mean),
                   CLIK_A(part_mem));
    if (st == CLIK_OK && variant == V_ROWS)
        st = CLIK_ARG(ctx, k, 11, band);
    if (st == CLIK_OK)
        st = exact ? clik__launch_exact(ctx, k, 2, global, local)
                   : clik__launch(ctx, k, 2, global, local);
    float *sums = NULL;
    if (st == CLIK_OK && mean) {
        sums = malloc(parts * sizeof(float));
        st = sums ? clik__read_bytes(ctx, partial, sums, parts * sizeof(float))
                  : clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    }
    if (st == CLIK_OK && mean) {
        double total = 0.0;
        for (size_t i = 0; i < parts; i++)
            total += sums[i];
        *mean = total / ((double)ow * (double)oh);
    }
    free(sums);
    if (partial)
        clik__temp_release(ctx, partial, parts * sizeof(float));
    return st;
}

/* Bindings of a and b (read) and of map when given (write), then body. */
static clik_status with_bindings(clik_context *ctx, ssim_args *args,
                                 clik_status (*body)(clik_context *, ssim_args *,
                                                     const clik_binding *, const clik_binding *,
                                                     const clik_binding *))
{
    clik_binding a, b, map;
    clik_status st = clik__bind(ctx, args->a, CLIK_READ, &a);
    if (st != CLIK_OK)
        return st;
    st = clik__bind(ctx, args->b, CLIK_READ, &b);
    if (st == CLIK_OK) {
        if (args->map)
            st = clik__bind(ctx, args->map, CLIK_WRITE, &map);
        if (st == CLIK_OK) {
            st = body(ctx, args, &a, &b, args->map ? &map : NULL);
            if (args->map) {
                clik_status st2 = clik__unbind(ctx, &map, st == CLIK_OK);
                if (st == CLIK_OK)
                    st = st2;
            }
        }
        clik__unbind(ctx, &b, 0);
    }
    clik__unbind(ctx, &a, 0);
    return st;
}

static clik_status ssim_cl_body(clik_context *ctx, ssim_args *args, const clik_binding *a,
                                const clik_binding *b, const clik_binding *map)
{
    double mean = 0.0;
    clik_status st = cl_ssim(ctx, a, b, map, args->mean ? &mean : NULL);
    if (st == CLIK_OK && args->mean)
        *args->mean = mean;
    return st;
}

static clik_status ssim_opencl(clik_context *ctx, void *p)
{
    return with_bindings(ctx, p, ssim_cl_body);
}

/* Tile SSIM: ssim_tiles_group where local memory is wanted, else one
 * work-item per tile. */
static clik_status cl_tiles(clik_context *ctx, const clik_binding *a, const clik_binding *b,
                            const clik_binding *map, int tile)
{
    const int def_group = ctx->dev.type != CLIK_DEVICE_CPU && ctx->local_memory;
    const char *v = clik__tune_str(ctx, "ssim_tiles_variant", def_group ? "group" : "item");
    int rows = 1; /* work-items per tile: a power of two >= tile */
    while (rows < tile)
        rows *= 2;
    long per_group = clik__tune_int(ctx, "ssim_tiles_group", 256 / rows);
    size_t limit = ctx->dev.max_work_group_size;
    if ((size_t)per_group > ctx->dev.max_work_item_sizes[0])
        per_group = (long)ctx->dev.max_work_item_sizes[0];
    const int sa = elems(a), sb = elems(b), sm = elems(map);
    const int w = a->image.width, h = a->image.height;
    const int mw = map->image.width, mh = map->image.height;
    clik_kernel_entry *k;
    char options[96];
    clik_status st;
    while (strcmp(v, "group") == 0 && (size_t)rows <= ctx->dev.max_work_item_sizes[1]) {
        while (per_group > 1 && (size_t)(per_group * rows) > limit)
            per_group /= 2;
        if ((size_t)(per_group * rows) > limit)
            break; /* not even one tile per group: the item kernel */
        snprintf(options, sizeof(options), "-DTILE=%d -DTILES_P=%d -DTILES_G=%ld", tile, rows,
                 per_group);
        st = clik__kernel(ctx, "ssim", options, "ssim_tiles_group", &k);
        if (st != CLIK_OK)
            return st;
        if (k->max_work_group < (size_t)(per_group * rows)) {
            limit = k->max_work_group;
            continue;
        }
        st = CLIK_ARGS(ctx, k, CLIK_A(a->mem), CLIK_A(sa), CLIK_A(b->mem), CLIK_A(sb), CLIK_A(w),
                       CLIK_A(h), CLIK_A(map->mem), CLIK_A(sm), CLIK_A(mw), CLIK_A(mh));
        if (st != CLIK_OK)
            return st;
        size_t local[2] = {(size_t)per_group, (size_t)rows};
        size_t global[2] = {((size_t)mw + per_group - 1) / per_group * per_group,
                            (size_t)mh * rows};
        return clik__launch_exact(ctx, k, 2, global, local);
    }
    snprintf(options, sizeof(options), "-DTILE=%d", tile);
    st = clik__kernel(ctx, "ssim", options, "ssim_tiles_item", &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(a->mem), CLIK_A(sa), CLIK_A(b->mem), CLIK_A(sb), CLIK_A(w),
                       CLIK_A(h), CLIK_A(map->mem), CLIK_A(sm), CLIK_A(mw), CLIK_A(mh));
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)mw, (size_t)mh}, local[2] = {64, 1};
    return clik__launch(ctx, k, 2, items, local);
}

static clik_status tiles_cl_body(clik_context *ctx, ssim_args *args, const clik_binding *a,
                                 const clik_binding *b, const clik_binding *map)
{
    return cl_tiles(ctx, a, b, map, args->tile);
}

static clik_status tiles_opencl(clik_context *ctx, void *p)
{
    return with_bindings(ctx, p, tiles_cl_body);
}

/* ---- CPU path ------------------------------------------------------------------------ */

/* Host views of a and b (read) and of map when given (write), then body. */
static clik_status with_views(clik_context *ctx, ssim_args *args,
                              clik_status (*body)(clik_context *, ssim_args *, clik_image *,
                                                  clik_image *, clik_image *))
{
    clik_image va, vb, vm;
    clik_status st = clik__host_view(ctx, args->a, CLIK_READ, &va);
    if (st != CLIK_OK)
        return st;
    st = clik__host_view(ctx, args->b, CLIK_READ, &vb);
    if (st == CLIK_OK) {
        if (args->map)
            st = clik__host_view(ctx, args->map, CLIK_WRITE, &vm);
        if (st == CLIK_OK) {
            st = body(ctx, args, &va, &vb, args->map ? &vm : NULL);
            if (args->map) {
                clik_status st2 =
                    clik__host_view_done(ctx, args->map, &vm, CLIK_WRITE, st == CLIK_OK);
                if (st == CLIK_OK)
                    st = st2;
            }
        }
        clik__host_view_done(ctx, args->b, &vb, CLIK_READ, 0);
    }
    clik__host_view_done(ctx, args->a, &va, CLIK_READ, 0);
    return st;
}

static clik_status ssim_body(clik_context *ctx, ssim_args *args, clik_image *a, clik_image *b,
                             clik_image *map)
{
    double mean;
    if (ctx->dsp.ssim.ssim(a, b, map, &mean) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_ssim: out of memory");
    if (args->mean)
        *args->mean = mean;
    return CLIK_OK;
}

static clik_status tiles_body(clik_context *ctx, ssim_args *args, clik_image *a, clik_image *b,
                              clik_image *map)
{
    ctx->dsp.ssim.tiles(a, b, args->tile, map);
    return CLIK_OK;
}

static clik_status ssim_cpu(clik_context *ctx, void *p)
{
    return with_views(ctx, p, ssim_body);
}

static clik_status tiles_cpu(clik_context *ctx, void *p)
{
    return with_views(ctx, p, tiles_body);
}

/* ---- public entry points ----------------------------------------------------------- */

clik_status clik_ssim(clik_context *ctx, const clik_image *a, const clik_image *b, clik_image *map,
                      double *mean)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_inputs(ctx, a, b, 1, "clik_ssim");
    if (st != CLIK_OK)
        return st;
    if (!map && !mean)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_ssim: map and mean are both NULL");
    if (a->width < CLIK_SSIM_WINDOW || a->height < CLIK_SSIM_WINDOW)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_ssim: %dx%d is smaller than the %dx%d window", a->width, a->height,
                          CLIK_SSIM_WINDOW, CLIK_SSIM_WINDOW);
    if (map &&
        (st = check_map(ctx, map, a, b, a->width - HALO, a->height - HALO, "clik_ssim")) != CLIK_OK)
        return st;
    ssim_args args = {.a = a, .b = b, .map = map, .mean = mean};
    return clik__run(ctx, "ssim", ssim_opencl, ssim_cpu, &args);
}

clik_status clik_ssim_tiles(clik_context *ctx, const clik_image *a, const clik_image *b, int tile,
                            clik_image *map)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_inputs(ctx, a, b, 0, "clik_ssim_tiles");
    if (st != CLIK_OK)
        return st;
    if (tile < 2 || tile > 16)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_ssim_tiles: tile %d is not 2..16", tile);
    if (!map)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_ssim_tiles: map is NULL");
    st = check_map(ctx, map, a, b, (a->width + tile - 1) / tile, (a->height + tile - 1) / tile,
                   "clik_ssim_tiles");
    if (st != CLIK_OK)
        return st;
    ssim_args args = {.a = a, .b = b, .map = map, .tile = tile};
    return clik__run(ctx, "ssim_tiles", tiles_opencl, tiles_cpu, &args);
}

/*
 * SSIM family: the Gaussian SSIM map and mean, and tile SSIM
 * (kernels/ssim.cl, fallback_cpu/{scalar,neon}/ssim.c).
 *
 * One program per input type holds every kernel (the u8 one also serves
 * clik_ssim_tiles); blocks, bands and tiles are arguments, local memory is
 * sized at launch.
 *
 * Tuning keys: ssim_variant = local | direct | rows (the clik_ssim kernel;
 * by default rows on CPU devices, else local with on-chip local memory, else
 * direct), ssim_tile_w / ssim_tile_h (the local block, default 16 x 16),
 * ssim_direct_rows (default 4) and ssim_rows_width = 8 | 16 (build options:
 * register blocks and vector widths), ssim_band_rows (default 64);
 * ssim_tiles_variant = group | item and ssim_tiles_group (tiles per
 * work-group of group).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define HALO (CLIK_SSIM_WINDOW - 1) /* the map is this much narrower and shorter */

/* The most rows of a work-item of ssim_rows. llvmpipe (Mesa's gallivm) ends
 * the loops of a work-item after 65535 iterations in all, silently
 * (LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop of a shader); a row of
 * ssim_rows takes at most about 80, and HALO more rows are read. */
#define MOST_BAND_ROWS (32768 / 80 - HALO)

typedef struct ssim_args {
    const clik_image *a, *b;
    clik_image *map;
    double *mean;
    int tile;
} ssim_args;

/* ---- validation ------------------------------------------------------------------ */

/* The arguments both entry points take: a context (CLIK_ERR_NULL without
 * one, as every entry point), a and b of one channel, one size, one type
 * (u8, or f32 where allowed). */
static clik_status check_inputs(clik_context *ctx, const clik_image *a, const clik_image *b,
                                int allow_f32, const char *op)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    char what[64];
    snprintf(what, sizeof(what), "%s: a", op);
    clik_status st = clik__check_format(
        ctx, a, what, CLIK_TYPE_BIT(CLIK_U8) | (allow_f32 ? CLIK_TYPE_BIT(CLIK_F32) : 0),
        CLIK_CHANNELS(1), 0, 0);
    snprintf(what, sizeof(what), "%s: b", op);
    return st == CLIK_OK ? clik__check_like(ctx, b, a, what, a->width, a->height) : st;
}

/* map: F32, one channel, width x height, apart from a and b. */
static clik_status check_map(clik_context *ctx, const clik_image *map, const clik_image *a,
                             const clik_image *b, int width, int height, const char *op)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: map", op);
    clik_status st =
        clik__check_format(ctx, map, what, CLIK_TYPES(CLIK_F32), CLIK_CHANNELS(1), width, height);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, map, a, 0, op);
    return st == CLIK_OK ? clik__check_apart(ctx, map, b, 0, op) : st;
}

/* ---- OpenCL path ------------------------------------------------------------------- */

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
    return clik__tune(ctx, CLIK_TUNE_SSIM_ROWS_WIDTH, 1) == 0 ? 8 : 16; /* choices 8|16 */
}

/* The program of an input type: one for every kernel, size and tile. */
static clik_status ssim_kernel(clik_context *ctx, clik_type type, const char *name,
                               clik_kernel_entry **k)
{
    const long rows = clik__tune(ctx, CLIK_TUNE_SSIM_DIRECT_ROWS, 4);
    char options[96];
    snprintf(options, sizeof(options), "-DT=%s -DDIRECT_ROWS=%ld -DSSIM_ROWS=%d",
             type == CLIK_U8 ? "uchar" : "float", rows > 16 ? 16 : rows, rows_width(ctx));
    return clik__kernel(ctx, "ssim", options, name, k);
}

/* CPU devices: the row kernel (it needs a map one strip wide); GPUs: tiles
 * in local memory where that memory is on chip, else registers only. */
static ssim_variant choose_variant(const clik_context *ctx, int ow)
{
    const ssim_variant def = ctx->dev.type == CLIK_DEVICE_CPU ? V_ROWS
                             : ctx->local_memory              ? V_LOCAL
                                                              : V_DIRECT;
    /* The registry's choices are in the order of ssim_variant. */
    const ssim_variant v = (ssim_variant)clik__tune(ctx, CLIK_TUNE_SSIM_VARIANT, def);
    if (v == V_ROWS && ow < rows_width(ctx))
        return V_DIRECT;
    return v;
}

/* Bytes of local memory ssim_local uses for a tw x th block: la and lb,
 * then hm. */
static size_t inputs_bytes(size_t tw, size_t th)
{
    return sizeof(float) * (th + HALO) * (tw + HALO);
}

static size_t sums_bytes(size_t tw, size_t th)
{
    return sizeof(float) * 5 * (th + HALO) * tw;
}

/* The block of ssim_local: a power of two (the reduction) up to
 * (ssim_tile_w, ssim_tile_h) that the device, the kernel and the local
 * memory accept. */
static clik_status local_block(clik_context *ctx, const clik_kernel_entry *k, size_t *block)
{
    block[0] = (size_t)pow2_floor(clik__tune(ctx, CLIK_TUNE_SSIM_TILE_W, 16));
    block[1] = (size_t)pow2_floor(clik__tune(ctx, CLIK_TUNE_SSIM_TILE_H, 16));
    clik__fit_local(ctx, k, 2, block);
    block[0] = (size_t)pow2_floor((long)block[0]);
    block[1] = (size_t)pow2_floor((long)block[1]);
    while (2 * inputs_bytes(block[0], block[1]) + sums_bytes(block[0], block[1]) >
           ctx->dev.local_mem_size) {
        if (block[0] * block[1] == 1)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "ssim_local: no block fits");
        if (block[1] >= block[0] && block[1] > 1)
            block[1] /= 2;
        else
            block[0] /= 2;
    }
    return CLIK_OK;
}

/* Runs the chosen kernel; *mean (NULL: not wanted) from its partial sums. */
static clik_status cl_ssim(clik_context *ctx, const clik_binding *a, const clik_binding *b,
                           const clik_binding *map, double *mean)
{
    const int ow = a->image.width - HALO, oh = a->image.height - HALO;
    const ssim_variant variant = choose_variant(ctx, ow);
    static const char *const names[] = {"ssim_local", "ssim_direct", "ssim_rows"};
    clik_kernel_entry *k;
    clik_status st = ssim_kernel(ctx, a->image.type, names[variant], &k);
    if (st != CLIK_OK)
        return st;
    size_t global[2], local[2], parts;
    int band = 0;
    if (variant == V_LOCAL) {
        if ((st = local_block(ctx, k, local)) != CLIK_OK)
            return st;
        global[0] = ((size_t)ow + local[0] - 1) / local[0] * local[0];
        global[1] = ((size_t)oh + local[1] - 1) / local[1] * local[1];
        parts = (global[0] / local[0]) * (global[1] / local[1]);
    } else if (variant == V_DIRECT) {
        const long rows = clik__tune(ctx, CLIK_TUNE_SSIM_DIRECT_ROWS, 4);
        global[0] = ((size_t)ow + 3) / 4;
        global[1] = ((size_t)oh + (size_t)rows - 1) / (size_t)(rows > 16 ? 16 : rows);
        local[0] = 16;
        local[1] = 8;
        parts = global[0] * global[1];
    } else {
        const int vw = rows_width(ctx);
        band = (int)clik__tune(ctx, CLIK_TUNE_SSIM_BAND_ROWS, 64);
        band = band < MOST_BAND_ROWS ? band : MOST_BAND_ROWS;
        global[0] = ((size_t)ow + vw - 1) / vw;
        global[1] = ((size_t)oh + band - 1) / band;
        local[0] = 16;
        local[1] = 1;
        parts = global[0] * global[1];
    }

    cl_mem partial = NULL;
    if (mean && (st = clik__temp_buffer(ctx, parts * sizeof(float), &partial)) != CLIK_OK)
        return st;
    /* An unused buffer argument gets the other buffer: never NULL. */
    cl_mem map_mem = map ? map->mem : partial, part_mem = mean ? partial : map->mem;
    const int write_map = map != NULL, want_mean = mean != NULL;
    const int sa = clik__elems(a), sb = clik__elems(b), sm = map ? clik__elems(map) : 0;
    st = CLIK_ARGS(ctx, k, CLIK_A(a->mem), CLIK_A(sa), CLIK_A(b->mem), CLIK_A(sb), CLIK_A(ow),
                   CLIK_A(oh), CLIK_A(map_mem), CLIK_A(sm), CLIK_A(write_map), CLIK_A(want_mean),
                   CLIK_A(part_mem));
    if (st == CLIK_OK && variant == V_ROWS)
        st = CLIK_ARG(ctx, k, 11, band);
    const size_t in = inputs_bytes(local[0], local[1]), hm = sums_bytes(local[0], local[1]);
    if (st == CLIK_OK && variant == V_LOCAL)
        st = CLIK_ARGS_AT(ctx, k, 11, CLIK_LOCAL(in), CLIK_LOCAL(in), CLIK_LOCAL(hm));
    if (st == CLIK_OK) /* local_block's shape fits */
        st = clik__launch(ctx, k, 2, global, local);
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
    clik__temp_release(ctx, partial, parts * sizeof(float));
    return st;
}

/* b[0] is a, b[1] b (the same binding when a is b), b[2] the map if any. */
static clik_status ssim_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    ssim_args *args = p;
    double mean = 0.0;
    clik_status st = clik__check_int_strides(ctx, b, args->map ? 3 : 2, 0, "clik_ssim");
    if (st == CLIK_OK)
        st = cl_ssim(ctx, b[0], b[1], args->map ? b[2] : NULL, args->mean ? &mean : NULL);
    if (st == CLIK_OK && args->mean)
        *args->mean = mean;
    return st;
}

/* ssim_tiles_group's shape: per_group tiles of rows work-items each (rows
 * a power of two >= tile), within the device's, the kernel's and the local
 * memory's limits; 0 when not even one tile fits (the item kernel then). */
static size_t tiles_per_group(const clik_context *ctx, const clik_kernel_entry *k, size_t rows)
{
    size_t limit = ctx->dev.max_work_group_size;
    if (k->max_work_group < limit)
        limit = k->max_work_group;
    size_t g = (size_t)clik__tune(ctx, CLIK_TUNE_SSIM_TILES_GROUP, (long)(256 / rows));
    if (g > ctx->dev.max_work_item_sizes[0])
        g = ctx->dev.max_work_item_sizes[0];
    while (g > 1 && (g * rows > limit || 5 * sizeof(int) * g * rows > ctx->dev.local_mem_size))
        g /= 2;
    if (rows > ctx->dev.max_work_item_sizes[1] || g * rows > limit ||
        5 * sizeof(int) * g * rows > ctx->dev.local_mem_size)
        return 0;
    return g;
}

/* Tile SSIM: ssim_tiles_group where local memory is wanted, else one
 * work-item per tile. */
static clik_status tiles_opencl(clik_context *ctx, void *p, clik_binding *const *bind)
{
    const ssim_args *args = p;
    const clik_binding *a = bind[0], *b = bind[1], *map = bind[2];
    const int tile = args->tile;
    const int def_group = ctx->dev.type != CLIK_DEVICE_CPU && ctx->local_memory;
    const int group = clik__tune(ctx, CLIK_TUNE_SSIM_TILES_VARIANT, def_group ? 0 : 1) == 0;
    size_t rows = 1; /* work-items per tile: a power of two >= tile */
    while (rows < (size_t)tile)
        rows *= 2;
    clik_status st = clik__check_int_strides(ctx, bind, 3, 0, "clik_ssim_tiles");
    if (st != CLIK_OK)
        return st;
    const int sa = clik__elems(a), sb = clik__elems(b), sm = clik__elems(map);
    const int w = a->image.width, h = a->image.height;
    const int mw = map->image.width, mh = map->image.height;
    clik_kernel_entry *k;
    st = ssim_kernel(ctx, CLIK_U8, group ? "ssim_tiles_group" : "ssim_tiles_item", &k);
    const size_t g = st == CLIK_OK && group ? tiles_per_group(ctx, k, rows) : 0;
    if (st == CLIK_OK && group && g == 0)
        st = ssim_kernel(ctx, CLIK_U8, "ssim_tiles_item", &k); /* not one tile fits */
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(a->mem), CLIK_A(sa), CLIK_A(b->mem), CLIK_A(sb), CLIK_A(w),
                       CLIK_A(h), CLIK_A(map->mem), CLIK_A(sm), CLIK_A(mw), CLIK_A(mh),
                       CLIK_A(tile));
    if (st == CLIK_OK && g > 0)
        st = clik__arg(ctx, k, 11, 5 * sizeof(int) * g * rows, NULL);
    if (st != CLIK_OK)
        return st;
    if (g > 0) {
        size_t local[2] = {g, rows};
        size_t global[2] = {((size_t)mw + g - 1) / g * g, (size_t)mh * rows};
        return clik__launch_exact(ctx, k, 2, global, local);
    }
    size_t items[2] = {(size_t)mw, (size_t)mh}, local[2] = {64, 1};
    return clik__launch(ctx, k, 2, items, local);
}

/* ---- CPU path ------------------------------------------------------------------------ */

static clik_status ssim_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    ssim_args *args = p;
    double mean;
    if (ctx->dsp.ssim.ssim(v[0], v[1], args->map ? v[2] : NULL, &mean) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_ssim: out of memory");
    if (args->mean)
        *args->mean = mean;
    return CLIK_OK;
}

static clik_status tiles_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const ssim_args *args = p;
    ctx->dsp.ssim.tiles(v[0], v[1], args->tile, v[2]);
    return CLIK_OK;
}

static const clik_op ssim_op = {"ssim", ssim_opencl, ssim_cpu};
static const clik_op tiles_op = {"ssim_tiles", tiles_opencl, tiles_cpu};

/* Runs op on the images of args: a and b read, the map (where not NULL)
 * written. */
static clik_status run_ssim(clik_context *ctx, const clik_op *op, ssim_args *args)
{
    const clik_op_image images[] = {
        {args->a, CLIK_READ}, {args->b, CLIK_READ}, {args->map, CLIK_WRITE}};
    return clik__run_op(ctx, op, images, args->map ? 3 : 2, args);
}

/* ---- public entry points ----------------------------------------------------------- */

clik_status clik_ssim(clik_context *ctx, const clik_image *a, const clik_image *b, clik_image *map,
                      double *mean)
{
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
    return run_ssim(ctx, &ssim_op, &args);
}

clik_status clik_ssim_tiles(clik_context *ctx, const clik_image *a, const clik_image *b, int tile,
                            clik_image *map)
{
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
    return run_ssim(ctx, &tiles_op, &args);
}

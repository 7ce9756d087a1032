/*
 * Histogram family: hist, equalize, lut (kernels/hist.cl,
 * fallback_cpu/{scalar,neon}/hist.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK 16 /* bytes per kernel step */

typedef struct hist_args {
    const clik_image *src;
    clik_image *dst;
    uint32_t *hist;
    const uint8_t *tables;
    int ntables;
} hist_args;

/* ---- equalization table (OpenCV equalizeHist semantics) -------------------- */

static void equalize_table(const uint32_t *hist, uint32_t total, uint8_t *lut)
{
    int i = 0;
    while (i < 255 && hist[i] == 0)
        i++;
    if (hist[i] == total) {
        memset(lut, i, 256); /* one value: it maps to itself */
        return;
    }
    memset(lut, 0, 256);
    const float scale = 255.0f / (float)(total - hist[i]);
    uint32_t sum = 0;
    for (int j = i + 1; j < 256; j++) {
        sum += hist[j];
        long v = lrintf((float)sum * scale);
        lut[j] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* Tables for equalize: each colour channel from its histogram, the alpha
 * channel (last of 2 or 4) unchanged. */
static void equalize_tables(const uint32_t *hist, const clik_image *src, uint8_t *tables)
{
    uint32_t total = (uint32_t)((uint64_t)src->width * (uint64_t)src->height);
    int colour = src->channels == 1 ? 1 : src->channels - 1;
    for (int c = 0; c < src->channels; c++) {
        if (c < colour) {
            equalize_table(hist + 256 * c, total, tables + 256 * c);
        } else {
            for (int v = 0; v < 256; v++)
                tables[256 * c + v] = (uint8_t)v;
        }
    }
}

/* ---- validation ------------------------------------------------------------ */

static clik_status check_u8(clik_context *ctx, const clik_image *img, const char *what)
{
    clik_status st = clik__check_image(ctx, img, what);
    if (st != CLIK_OK)
        return st;
    if (img->type != CLIK_U8)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: needs u8 pixels, not %s", what,
                          clik_type_name(img->type));
    if ((uint64_t)img->width * (uint64_t)img->height > UINT32_MAX)
        return clik__fail(ctx, CLIK_ERR_OVERFLOW, "%s: more pixels than 32-bit counts hold", what);
    return CLIK_OK;
}

static clik_status check_pair(clik_context *ctx, const clik_image *src, const clik_image *dst,
                              const char *op)
{
    clik_status st = check_u8(ctx, src, op);
    if (st == CLIK_OK)
        st = check_u8(ctx, dst, op);
    if (st != CLIK_OK)
        return st;
    if (src->width != dst->width || src->height != dst->height || src->channels != dst->channels)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: source %dx%dx%d, destination %dx%dx%d",
                          op, src->width, src->height, src->channels, dst->width, dst->height,
                          dst->channels);
    clik__same_image(src, dst, &st);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "%s: source and destination overlap partially", op);
    return CLIK_OK;
}

/* ---- OpenCL path ------------------------------------------------------------ */

typedef enum hist_mode {
    MODE_LOCAL = 0,  /* GPUs: local atomics */
    MODE_SERIAL = 1, /* CPU devices: private counts, one work-item per group */
    MODE_GLOBAL = 2, /* no local memory: global atomics */
    MODE_PAIRS = 3,  /* CPU devices, large images: byte pairs in 65536 bins */
} hist_mode;

/* Pair tables (CPU devices) pay off from about this many bytes. Byte pairs
 * index the tables as 16-bit words: little-endian devices only. */
static int pairs_possible(const clik_context *ctx, size_t bytes)
{
    long min_bytes = clik__tune_int(ctx, "pairs_min_bytes", 1L << 18);
    return ctx->dev.type == CLIK_DEVICE_CPU && ctx->dev.little_endian && bytes >= (size_t)min_bytes;
}

/* The pair histogram keeps 65536 counters in local memory. */
static int pair_hist_fits(const clik_context *ctx, int channels)
{
    return channels <= 2 && ctx->dev.local_mem_size >= 65536 * 4 + 4096;
}

static hist_mode choose_mode(const clik_context *ctx, int channels, size_t bytes)
{
    const char *def;
    if (ctx->dev.type == CLIK_DEVICE_CPU)
        def = pair_hist_fits(ctx, channels) && pairs_possible(ctx, bytes) ? "pairs" : "serial";
    else
        def = ctx->local_memory ? "local" : "global";
    const char *m = clik__tune_str(ctx, "hist_mode", def);
    if (strcmp(m, "local") == 0)
        return MODE_LOCAL;
    if (strcmp(m, "global") == 0)
        return MODE_GLOBAL;
    if (strcmp(m, "pairs") == 0 && pair_hist_fits(ctx, channels) && ctx->dev.little_endian)
        return MODE_PAIRS; /* where the device allows; else serial */
    return MODE_SERIAL;
}

/* A contiguous image is walked as one long row. */
static void walk_shape(const clik_binding *b, uint32_t *stride, uint32_t *row_bytes, uint32_t *rows)
{
    if (b->stride == b->row_bytes) {
        *row_bytes = (uint32_t)(b->row_bytes * (size_t)b->image.height);
        *stride = *row_bytes;
        *rows = 1;
    } else {
        *row_bytes = (uint32_t)b->row_bytes;
        *stride = (uint32_t)b->stride;
        *rows = (uint32_t)b->image.height;
    }
}

/* Work-group size and count of a hist mode. */
static clik_status hist_geometry(clik_context *ctx, hist_mode mode, uint32_t bins, uint64_t chunks,
                                 size_t *local, uint64_t *groups, int *replicas)
{
    *local = 1;
    *replicas = 1;
    if (mode == MODE_LOCAL || mode == MODE_GLOBAL) {
        *local = 256;
        if (*local > ctx->dev.max_work_group_size)
            *local = ctx->dev.max_work_group_size;
        if (*local > ctx->dev.max_work_item_sizes[0])
            *local = ctx->dev.max_work_item_sizes[0];
    }
    if (mode == MODE_LOCAL) {
        uint64_t budget = ctx->dev.local_mem_size / 2;
        uint64_t limit = (uint64_t)clik__tune_int(ctx, "hist_local_bytes", 16384);
        if (budget > limit)
            budget = limit;
        *replicas = (int)(budget / (bins * 4u));
        long cap = clik__tune_int(ctx, "hist_replicas", 8);
        if (*replicas > cap)
            *replicas = (int)cap;
        if (*replicas < 1)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "hist: %u bins do not fit the device's local memory", bins);
    }
    /* CPU devices: a few contiguous runs per core; GPUs: enough groups to fill
     * every compute unit several times. */
    long per_unit = mode == MODE_GLOBAL || mode == MODE_LOCAL ? 2 : 4;
    *groups = (uint64_t)clik__tune_int(ctx, "hist_groups", (long)ctx->dev.compute_units * per_unit);
    uint64_t useful = (chunks + *local - 1) / *local;
    if (*groups > useful)
        *groups = useful;
    if (*groups < 1)
        *groups = 1;
    return CLIK_OK;
}

/* Enqueues the histogram of the bound image into hist_mem (channels * 256 u32). */
static clik_status cl_hist_into(clik_context *ctx, const clik_binding *src, cl_mem hist_mem)
{
    const int ch = src->image.channels;
    const uint32_t bins = (uint32_t)ch * 256;
    uint32_t stride, row_bytes, rows;
    walk_shape(src, &stride, &row_bytes, &rows);
    const uint32_t cpr = (row_bytes + CHUNK - 1) / CHUNK;
    const hist_mode mode = choose_mode(ctx, ch, src->row_bytes * (size_t)src->image.height);
    size_t local = 1;
    uint64_t groups = 1;
    int replicas = 1;
    clik_status st =
        hist_geometry(ctx, mode, bins, (uint64_t)cpr * rows, &local, &groups, &replicas);
    if (st != CLIK_OK)
        return st;

    const clik_binding *bound[] = {src};
    /* GPUs merge each work-group's counts with global atomics: one pass. */
    const int merge = mode == MODE_LOCAL && clik__tune_flag(ctx, "hist_merge", 1);
    char options[128];
    snprintf(options, sizeof(options),
             "-DCH=%d -DHIST_MODE=%d -DREPLICAS=%d -DALIGNED=%d -DHIST_MERGE=%d", ch, (int)mode,
             replicas, clik__aligned16(bound, 1, rows == 1), merge);
    clik_kernel_entry *kpartial, *kreduce = NULL, *kzero = NULL;
    st = clik__kernel(ctx, "hist", options, mode == MODE_PAIRS ? "hist_pairs" : "hist_partial",
                      &kpartial);
    if (st == CLIK_OK && !merge)
        st = clik__kernel(ctx, "hist", options, "hist_reduce", &kreduce);
    if (st == CLIK_OK && (mode == MODE_GLOBAL || merge))
        st = clik__kernel(ctx, "hist", options, "hist_zero", &kzero);
    if (st != CLIK_OK)
        return st;
    if (kpartial->max_work_group < local)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "hist: the kernel allows work-groups of %zu, needs %zu",
                          kpartial->max_work_group, local);

    /* The partial histograms, or with merge the result itself. */
    const size_t partial_bytes = merge ? 0 : (size_t)groups * bins * sizeof(uint32_t);
    cl_mem partial = hist_mem;
    if (!merge && (st = clik__temp_buffer(ctx, partial_bytes, &partial)) != CLIK_OK)
        return st;
    const uint32_t ngroups = (uint32_t)groups, nwords = merge ? bins : ngroups * bins;
    if (kzero) {
        size_t n = nwords, lz = 64;
        st = CLIK_ARGS(ctx, kzero, CLIK_A(partial), CLIK_A(nwords));
        if (st == CLIK_OK)
            st = clik__launch(ctx, kzero, 1, &n, &lz);
    }
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kpartial, CLIK_A(src->mem), CLIK_A(stride), CLIK_A(row_bytes),
                       CLIK_A(cpr), CLIK_A(rows), CLIK_A(partial));
    if (st == CLIK_OK) {
        size_t global = (size_t)groups * local;
        st = clik__launch_exact(ctx, kpartial, 1, &global, &local);
    }
    if (st == CLIK_OK && kreduce)
        st = CLIK_ARGS(ctx, kreduce, CLIK_A(partial), CLIK_A(ngroups), CLIK_A(hist_mem));
    if (st == CLIK_OK && kreduce) {
        size_t n = bins, lr = 256;
        st = clik__launch(ctx, kreduce, 1, &n, &lr);
    }
    if (!merge)
        clik__temp_release(ctx, partial, partial_bytes);
    return st;
}

/* Strides and extent for walking src and dst together. */
static void lut_shape(const clik_binding *src, const clik_binding *dst, uint32_t *sstride,
                      uint32_t *dstride, uint32_t *row_bytes, uint32_t *rows)
{
    walk_shape(src, sstride, row_bytes, rows);
    if ((src->stride == src->row_bytes) != (dst->stride == dst->row_bytes)) {
        /* Only one image is contiguous: walk both row by row. */
        *row_bytes = (uint32_t)src->row_bytes;
        *rows = (uint32_t)src->image.height;
        *sstride = (uint32_t)src->stride;
        *dstride = (uint32_t)dst->stride;
    } else {
        *dstride = *rows == 1 ? *sstride : (uint32_t)dst->stride;
    }
}

/* CPU devices: builds 16-bit pair tables and maps two bytes per lookup. */
static clik_status cl_lut_pairs(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                                cl_mem tables, int ntables, const char *options)
{
    const int ch = src->image.channels;
    const uint32_t pair_tables = ch == 4 ? 2 : 1;
    clik_kernel_entry *kbuild, *kapply;
    clik_status st = clik__kernel(ctx, "hist", options, "lut_pair_tables", &kbuild);
    if (st == CLIK_OK)
        st = clik__kernel(ctx, "hist", options, "lut_apply_pairs", &kapply);
    if (st != CLIK_OK)
        return st;
    (void)ntables;
    const size_t pair_bytes = (size_t)pair_tables * 65536 * sizeof(uint16_t);
    cl_mem pairs;
    st = clik__temp_buffer(ctx, pair_bytes, &pairs);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS(ctx, kbuild, CLIK_A(tables), CLIK_A(pairs));
    if (st == CLIK_OK) {
        size_t n = (size_t)pair_tables * 65536, local = 256;
        st = clik__launch(ctx, kbuild, 1, &n, &local);
    }
    uint32_t sstride, dstride, row_bytes, rows;
    lut_shape(src, dst, &sstride, &dstride, &row_bytes, &rows);
    const uint32_t cpr = (row_bytes + CHUNK - 1) / CHUNK;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kapply, CLIK_A(src->mem), CLIK_A(sstride), CLIK_A(dst->mem),
                       CLIK_A(dstride), CLIK_A(row_bytes), CLIK_A(cpr), CLIK_A(rows), CLIK_A(pairs),
                       CLIK_A(tables));
    if (st == CLIK_OK) {
        uint64_t chunks = (uint64_t)cpr * rows;
        uint64_t groups =
            (uint64_t)clik__tune_int(ctx, "lut_groups", (long)ctx->dev.compute_units * 4);
        size_t global = (size_t)(groups < chunks ? groups : chunks), local = 1;
        st = clik__launch_exact(ctx, kapply, 1, &global, &local);
    }
    clik__temp_release(ctx, pairs, pair_bytes);
    return st;
}

/* Enqueues dst = tables[src] for bound images. */
static clik_status cl_lut(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                          cl_mem tables, int ntables)
{
    const int ch = src->image.channels;
    const int use_local = ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU;
    const int pairs = clik__tune_flag(ctx, "lut_pairs", 1) &&
                      pairs_possible(ctx, src->row_bytes * (size_t)src->image.height);
    uint32_t sstride, dstride, row_bytes, rows;
    lut_shape(src, dst, &sstride, &dstride, &row_bytes, &rows);
    const clik_binding *bound[] = {src, dst};
    char options[128];
    snprintf(options, sizeof(options), "-DCH=%d -DNTAB=%d -DLUT_LOCAL=%d -DALIGNED=%d%s", ch,
             ntables, use_local, clik__aligned16(bound, 2, rows == 1), pairs ? " -DLUT_PAIRS" : "");
    if (pairs)
        return cl_lut_pairs(ctx, src, dst, tables, ntables, options);
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "hist", options, "lut_apply", &k);
    if (st != CLIK_OK)
        return st;
    const uint32_t cpr = (row_bytes + CHUNK - 1) / CHUNK;
    /* Chunks per work-item along a row (grid-stride), fewer work-groups. */
    const uint32_t per_item = (uint32_t)clik__tune_int(ctx, "lut_chunks", 1);
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(sstride), CLIK_A(dst->mem), CLIK_A(dstride),
                   CLIK_A(row_bytes), CLIK_A(cpr), CLIK_A(rows), CLIK_A(tables));
    if (st == CLIK_OK) {
        size_t items[2] = {(cpr + per_item - 1) / per_item, rows};
        size_t local[2] = {rows == 1 ? 256 : 64, rows == 1 ? 1 : 4};
        st = clik__launch(ctx, k, 2, items, local);
    }
    return st;
}

static clik_status hist_opencl(clik_context *ctx, void *p)
{
    hist_args *a = p;
    clik_binding src;
    clik_status st = clik__bind(ctx, a->src, CLIK_READ, &src);
    if (st != CLIK_OK)
        return st;
    size_t bytes = (size_t)a->src->channels * 256 * sizeof(uint32_t);
    cl_mem hist_mem;
    st = clik__temp_buffer(ctx, bytes, &hist_mem);
    if (st == CLIK_OK) {
        st = cl_hist_into(ctx, &src, hist_mem);
        if (st == CLIK_OK)
            st = clik__read_bytes(ctx, hist_mem, a->hist, bytes);
        clik__temp_release(ctx, hist_mem, bytes);
    }
    clik_status st2 = clik__unbind(ctx, &src, st == CLIK_OK);
    return st != CLIK_OK ? st : st2;
}

/* Binds src and dst (once when they are the same image) and runs body. */
static clik_status with_pair(clik_context *ctx, hist_args *a,
                             clik_status (*body)(clik_context *, hist_args *, const clik_binding *,
                                                 const clik_binding *))
{
    clik_status st;
    int same = clik__same_image(a->src, a->dst, &st);
    clik_binding src, dst;
    st = clik__bind(ctx, a->src, same ? CLIK_READ | CLIK_WRITE : CLIK_READ, &src);
    if (st != CLIK_OK)
        return st;
    if (!same) {
        st = clik__bind(ctx, a->dst, CLIK_WRITE, &dst);
        if (st != CLIK_OK) {
            clik__unbind(ctx, &src, 0);
            return st;
        }
    }
    st = body(ctx, a, &src, same ? &src : &dst);
    clik_status st2 = same ? CLIK_OK : clik__unbind(ctx, &dst, st == CLIK_OK);
    clik_status st3 = clik__unbind(ctx, &src, st == CLIK_OK);
    return st != CLIK_OK ? st : st2 != CLIK_OK ? st2 : st3;
}

static clik_status lut_body(clik_context *ctx, hist_args *a, const clik_binding *src,
                            const clik_binding *dst)
{
    size_t bytes = (size_t)a->ntables * 256;
    cl_mem tables;
    clik_status st = clik__temp_buffer(ctx, bytes, &tables);
    if (st != CLIK_OK)
        return st;
    st = clik__write_bytes(ctx, tables, a->tables, bytes);
    if (st == CLIK_OK)
        st = cl_lut(ctx, src, dst, tables, a->ntables);
    clik__temp_release(ctx, tables, bytes);
    return st;
}

static clik_status equalize_body(clik_context *ctx, hist_args *a, const clik_binding *src,
                                 const clik_binding *dst)
{
    const int ch = a->src->channels;
    size_t hist_bytes = (size_t)ch * 256 * sizeof(uint32_t), table_bytes = (size_t)ch * 256;
    uint32_t hist[4 * 256];
    uint8_t tables[4 * 256];
    cl_mem hist_mem, table_mem;
    clik_status st = clik__temp_buffer(ctx, hist_bytes, &hist_mem);
    if (st != CLIK_OK)
        return st;
    st = cl_hist_into(ctx, src, hist_mem);
    if (st == CLIK_OK)
        st = clik__read_bytes(ctx, hist_mem, hist, hist_bytes);
    clik__temp_release(ctx, hist_mem, hist_bytes);
    if (st != CLIK_OK)
        return st;
    equalize_tables(hist, a->src, tables);
    st = clik__temp_buffer(ctx, table_bytes, &table_mem);
    if (st != CLIK_OK)
        return st;
    st = clik__write_bytes(ctx, table_mem, tables, table_bytes);
    if (st == CLIK_OK)
        st = cl_lut(ctx, src, dst, table_mem, ch);
    clik__temp_release(ctx, table_mem, table_bytes);
    return st;
}

static clik_status lut_opencl(clik_context *ctx, void *p)
{
    return with_pair(ctx, p, lut_body);
}

static clik_status equalize_opencl(clik_context *ctx, void *p)
{
    return with_pair(ctx, p, equalize_body);
}

/* ---- CPU path --------------------------------------------------------------- */

static clik_status hist_cpu(clik_context *ctx, void *p)
{
    hist_args *a = p;
    clik_image src;
    clik_status st = clik__host_view(ctx, a->src, CLIK_READ, &src);
    if (st != CLIK_OK)
        return st;
    memset(a->hist, 0, (size_t)src.channels * 256 * sizeof(uint32_t));
    ctx->dsp.hist.hist(src.data, src.stride, src.width, src.height, src.channels, a->hist);
    return clik__host_view_done(ctx, a->src, &src, CLIK_READ, 1);
}

/* Runs the CPU lookup for tables (ntables of them) on host views. */
static clik_status lut_on_views(clik_context *ctx, const hist_args *a, const uint8_t *tables,
                                int ntables)
{
    clik_image src, dst;
    clik_status st = clik__host_view(ctx, a->src, CLIK_READ, &src);
    if (st != CLIK_OK)
        return st;
    st = clik__host_view(ctx, a->dst, CLIK_WRITE, &dst);
    if (st != CLIK_OK) {
        clik__host_view_done(ctx, a->src, &src, CLIK_READ, 0);
        return st;
    }
    ctx->dsp.hist.lut(src.data, src.stride, dst.data, dst.stride, src.width, src.height,
                      src.channels, tables, ntables > 1);
    st = clik__host_view_done(ctx, a->dst, &dst, CLIK_WRITE, 1);
    clik__host_view_done(ctx, a->src, &src, CLIK_READ, 1);
    return st;
}

static clik_status lut_cpu(clik_context *ctx, void *p)
{
    hist_args *a = p;
    return lut_on_views(ctx, a, a->tables, a->ntables);
}

static clik_status equalize_cpu(clik_context *ctx, void *p)
{
    hist_args *a = p;
    uint32_t hist[4 * 256];
    uint8_t tables[4 * 256];
    hist_args h = {.src = a->src, .hist = hist};
    clik_status st = hist_cpu(ctx, &h);
    if (st != CLIK_OK)
        return st;
    equalize_tables(hist, a->src, tables);
    return lut_on_views(ctx, a, tables, a->src->channels);
}

/* ---- public entry points ------------------------------------------------------ */

clik_status clik_hist_compute(clik_context *ctx, const clik_image *src, uint32_t *hist)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_u8(ctx, src, "clik_hist_compute");
    if (st != CLIK_OK)
        return st;
    if (!hist)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_hist_compute: hist is NULL");
    hist_args a = {.src = src, .hist = hist};
    return clik__run(ctx, "hist", hist_opencl, hist_cpu, &a);
}

clik_status clik_hist_equalize(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pair(ctx, src, dst, "clik_hist_equalize");
    if (st != CLIK_OK)
        return st;
    hist_args a = {.src = src, .dst = dst};
    return clik__run(ctx, "equalize", equalize_opencl, equalize_cpu, &a);
}

clik_status clik_hist_lut(clik_context *ctx, const clik_image *src, clik_image *dst,
                          const uint8_t *tables, int ntables)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pair(ctx, src, dst, "clik_hist_lut");
    if (st != CLIK_OK)
        return st;
    if (!tables)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_hist_lut: tables is NULL");
    if (ntables != 1 && ntables != src->channels)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_hist_lut: %d tables for %d channels (give 1 or %d)", ntables,
                          src->channels, src->channels);
    hist_args a = {.src = src, .dst = dst, .tables = tables, .ntables = ntables};
    return clik__run(ctx, "lut", lut_opencl, lut_cpu, &a);
}

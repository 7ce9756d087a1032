/*
 * Histogram family: hist_compute, hist_equalize (per channel),
 * hist_equalize_luma, hist_lut, clahe (kernels/hist.cl,
 * fallback_cpu/{scalar,neon}/hist.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK 16 /* bytes per kernel step */

/* Most chunks one work-item walks, and most partial histograms one sum
 * loops over: Mesa's llvmpipe ends a work-item's loops silently after 65535
 * iterations in all (kernels/hist.cl), whatever the tuning asks. */
#define ITEM_CHUNKS 32768
#define MAX_GROUPS  32768

typedef struct hist_args {
    uint32_t *hist;        /* hist: the counts */
    const uint8_t *tables; /* lut: the tables */
    int ntables;           /* 1 (shared) or one per channel */
    clik_clahe_plan clahe; /* clahe */
} hist_args;

/* Most tiles of CLAHE: 65536 (16 MiB of tables). */
#define CLAHE_MAX_TILES 65536

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

/* A u8 image; with `counted` (a histogram is taken) at most 2^32 - 1 pixels,
 * what the 32-bit counts of clik_hist_compute hold (on every path). */
static clik_status check_u8(clik_context *ctx, const clik_image *img, int counted, const char *what)
{
    clik_status st =
        clik__check_format(ctx, img, what, CLIK_TYPES(CLIK_U8), CLIK_CHANNELS(1, 2, 3, 4), 0, 0);
    const uint64_t pixels = st == CLIK_OK ? (uint64_t)img->width * (uint64_t)img->height : 0;
    if (counted && pixels > UINT32_MAX)
        st = clik__fail(ctx, CLIK_ERR_OVERFLOW,
                        "%s: %llu pixels, more than the 2^32 - 1 that 32-bit histogram counts hold",
                        what, (unsigned long long)pixels);
    return st;
}

/* dst: src's format and size, or src itself. */
static clik_status check_pair(clik_context *ctx, const clik_image *src, const clik_image *dst,
                              int counted, const char *op)
{
    clik_status st = check_u8(ctx, src, counted, op);
    if (st == CLIK_OK)
        st = clik__check_like(ctx, dst, src, op, src->width, src->height);
    return st == CLIK_OK ? clik__check_apart(ctx, src, dst, 1, op) : st;
}

/* ---- OpenCL path ------------------------------------------------------------ */

typedef enum hist_mode {
    MODE_LOCAL = 0,  /* GPUs: local atomics */
    MODE_SERIAL = 1, /* CPU devices: one work-item per group counting alone */
    MODE_GLOBAL = 2, /* no local memory: global atomics */
    MODE_PAIRS = 3,  /* CPU devices, large images: byte pairs in 65536 bins */
} hist_mode;

/* The kernel of each mode, and the sub-histograms of hist_serial. */
static const char *const mode_kernels[] = {"hist_local", "hist_serial", "hist_global",
                                           "hist_pairs"};
#define SERIAL_SUBS(ch) ((ch) == 1 ? 4 : 2)
#define PAIR_WORDS      (65536 + 512) /* the pair counts and two rows of 256 */

/* Pair tables (CPU devices) pay off from about this many bytes. Byte pairs
 * index the tables as 16-bit words: little-endian devices only. */
static int pairs_possible(const clik_context *ctx, size_t bytes)
{
    long min_bytes = clik__tune(ctx, CLIK_TUNE_PAIRS_MIN_BYTES, 1L << 18);
    return ctx->dev.type == CLIK_DEVICE_CPU && ctx->dev.little_endian && bytes >= (size_t)min_bytes;
}

/* The pair histogram keeps its counters in local memory. */
static int pair_hist_fits(const clik_context *ctx, int channels)
{
    return channels <= 2 && ctx->dev.local_mem_size >= PAIR_WORDS * 4;
}

/* The local memory the replicated histograms of local mode may take: half
 * the device's, at most hist_local_bytes. */
static uint64_t local_hist_budget(const clik_context *ctx)
{
    const uint64_t budget = ctx->dev.local_mem_size / 2;
    const uint64_t limit = (uint64_t)clik__tune(ctx, CLIK_TUNE_HIST_LOCAL_BYTES, 16384);
    return budget > limit ? limit : budget;
}

static hist_mode choose_mode(const clik_context *ctx, int channels, size_t bytes)
{
    hist_mode def;
    if (ctx->dev.type == CLIK_DEVICE_CPU)
        def =
            pair_hist_fits(ctx, channels) && pairs_possible(ctx, bytes) ? MODE_PAIRS : MODE_SERIAL;
    else
        def = ctx->local_memory ? MODE_LOCAL : MODE_GLOBAL;
    /* The registry's choices are in the order of hist_mode. */
    hist_mode m = (hist_mode)clik__tune(ctx, CLIK_TUNE_HIST_MODE, def);
    if (m == MODE_PAIRS && !(pair_hist_fits(ctx, channels) && ctx->dev.little_endian))
        return MODE_SERIAL; /* where the device allows pairs; else serial */
    /* Where not one copy of the bins fits, the device's default becomes
     * global atomics; a local mode asked for by hist_mode cannot run. */
    if (m == MODE_LOCAL && !clik__tune_given(ctx, CLIK_TUNE_HIST_MODE) &&
        local_hist_budget(ctx) < (uint64_t)channels * 256 * 4)
        return MODE_GLOBAL;
    return m;
}

/* The family's program for images of ch channels: one for every mode. */
static clik_status hist_kernel(clik_context *ctx, int ch, const char *name, clik_kernel_entry **k)
{
    char options[16];
    snprintf(options, sizeof(options), "-DCH=%d", ch);
    return clik__kernel(ctx, "hist", options, name, k);
}

/* A contiguous image is walked as one long row where its bytes, and a
 * chunk's end past them, stay below 2^32 (the kernels' uint columns). */
static int one_row(const clik_binding *b)
{
    return b->stride == b->row_bytes &&
           b->row_bytes * (size_t)b->image.height <= (size_t)UINT32_MAX - CHUNK;
}

/* The kernels take uint strides (rows are 64-bit products of them). */
static clik_status check_strides(clik_context *ctx, const clik_binding *const *b, int count,
                                 const char *what)
{
    for (int i = 0; i < count; i++)
        if (b[i]->stride > UINT32_MAX)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "%s: a row stride of %zu bytes, past the kernels' 32-bit strides "
                              "(2^32 - 1)",
                              what, b[i]->stride);
    return CLIK_OK;
}

static void walk_shape(const clik_binding *b, uint32_t *stride, uint32_t *row_bytes, uint32_t *rows)
{
    if (one_row(b)) {
        *row_bytes = (uint32_t)(b->row_bytes * (size_t)b->image.height);
        *stride = *row_bytes;
        *rows = 1;
    } else {
        *row_bytes = (uint32_t)b->row_bytes;
        *stride = (uint32_t)b->stride;
        *rows = (uint32_t)b->image.height;
    }
}

/* Work-group size and count of the histogram kernel k, the copies of the
 * histogram per work-group (local mode) and the local memory it takes. */
static clik_status hist_geometry(clik_context *ctx, hist_mode mode, const clik_kernel_entry *k,
                                 uint32_t bins, uint64_t chunks, size_t *local, uint64_t *groups,
                                 uint32_t *replicas, uint32_t *spread, size_t *local_bytes)
{
    *local = 1;
    *replicas = 1;
    *spread = 0;
    if (mode == MODE_LOCAL || mode == MODE_GLOBAL) {
        *local = 256;
        clik__fit_local(ctx, k, 1, local);
    }
    if (mode == MODE_LOCAL) {
        const uint64_t copies = local_hist_budget(ctx) / (bins * 4u);
        long cap = clik__tune(ctx, CLIK_TUNE_HIST_REPLICAS, 8);
        *replicas = (uint32_t)(copies > (uint64_t)cap ? (uint64_t)cap : copies);
        if (*replicas < 1)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "hist: %u bins do not fit the device's local memory", bins);
        /* Interleaved copies: a bin's copies in neighbouring banks; an odd
         * bin stride, where one more word per bin fits, also spreads
         * different bins of one copy over every bank. */
        if (*replicas > 1 && clik__tune(ctx, CLIK_TUNE_HIST_SPREAD, 1))
            *spread = (uint64_t)(*replicas | 1u) <= copies ? *replicas | 1u : *replicas;
    }
    const uint32_t copies_words = *spread ? *spread : *replicas;
    *local_bytes = mode == MODE_LOCAL    ? (size_t)copies_words * bins * 4
                   : mode == MODE_SERIAL ? (size_t)SERIAL_SUBS(bins / 256) * bins * 4
                   : mode == MODE_PAIRS  ? (size_t)PAIR_WORDS * 4
                                         : 0;
    if (*local_bytes > ctx->dev.local_mem_size)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "hist: %s needs %zu bytes of local memory, the device has %llu",
                          mode_kernels[mode], *local_bytes,
                          (unsigned long long)ctx->dev.local_mem_size);
    /* CPU devices: a few contiguous runs per core; GPUs: enough groups to fill
     * every compute unit several times. No work-item walks more than
     * ITEM_CHUNKS, and no more groups than useful or than MAX_GROUPS. */
    long per_unit = mode == MODE_GLOBAL || mode == MODE_LOCAL ? 2 : 4;
    uint64_t g =
        (uint64_t)clik__tune(ctx, CLIK_TUNE_HIST_GROUPS, (long)ctx->dev.compute_units * per_unit);
    const uint64_t least = (chunks + *local * ITEM_CHUNKS - 1) / (*local * ITEM_CHUNKS);
    const uint64_t useful = (chunks + *local - 1) / *local;
    g = g < least ? least : g;
    g = g > useful ? useful : g;
    g = g > MAX_GROUPS ? MAX_GROUPS : g;
    *groups = g < 1 ? 1 : g;
    return CLIK_OK;
}

/* Enqueues the histogram of the bound image into hist_mem (channels * 256 u32). */
static clik_status cl_hist_into(clik_context *ctx, const clik_binding *src, cl_mem hist_mem)
{
    const int ch = src->image.channels;
    const uint32_t bins = (uint32_t)ch * 256;
    clik_status st = check_strides(ctx, &src, 1, "hist");
    if (st != CLIK_OK)
        return st;
    /* At most 2^32 - 1 pixels (check_u8): at most 2^30 + 2^20 chunks. */
    uint32_t stride, row_bytes, rows;
    walk_shape(src, &stride, &row_bytes, &rows);
    const uint32_t cpr = (row_bytes + CHUNK - 1) / CHUNK;
    const hist_mode mode = choose_mode(ctx, ch, src->row_bytes * (size_t)src->image.height);
    /* GPUs merge each work-group's counts with global atomics: one pass. */
    const int merge = mode == MODE_LOCAL && (int)clik__tune(ctx, CLIK_TUNE_HIST_MERGE, 1);
    clik_kernel_entry *kpartial, *kreduce = NULL, *kzero = NULL;
    st = hist_kernel(ctx, ch, mode_kernels[mode], &kpartial);
    if (st == CLIK_OK && !merge)
        st = hist_kernel(ctx, ch, "hist_reduce", &kreduce);
    if (st == CLIK_OK && (mode == MODE_GLOBAL || merge))
        st = hist_kernel(ctx, ch, "hist_zero", &kzero);
    size_t local = 1, local_bytes = 0;
    uint64_t groups = 1;
    uint32_t replicas = 1, spread = 0;
    if (st == CLIK_OK)
        st = hist_geometry(ctx, mode, kpartial, bins, (uint64_t)cpr * rows, &local, &groups,
                           &replicas, &spread, &local_bytes);
    if (st != CLIK_OK)
        return st;

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
    const clik_binding *bound[] = {src};
    const int aligned = clik__aligned16(bound, 1, rows == 1);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kpartial, CLIK_A(src->mem), CLIK_A(stride), CLIK_A(row_bytes),
                       CLIK_A(cpr), CLIK_A(rows), CLIK_A(partial), CLIK_A(aligned));
    /* hist_local: the copies, merge and their layout; then the local memory */
    const unsigned next = mode == MODE_LOCAL ? 10 : 7;
    if (st == CLIK_OK && mode == MODE_LOCAL)
        st = CLIK_ARGS_AT(ctx, kpartial, 7, CLIK_A(replicas), CLIK_A(merge), CLIK_A(spread));
    if (st == CLIK_OK && local_bytes)
        st = clik__arg(ctx, kpartial, next, local_bytes, NULL);
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
    if (one_row(src) != one_row(dst)) {
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
                                cl_mem tables, int aligned)
{
    const int ch = src->image.channels;
    const size_t pair_bytes = (size_t)(ch == 4 ? 2 : 1) * 65536 * sizeof(uint16_t);
    clik_kernel_entry *kbuild, *kapply;
    clik_status st = hist_kernel(ctx, ch, "lut_pair_tables", &kbuild);
    if (st == CLIK_OK)
        st = hist_kernel(ctx, ch, "lut_apply_pairs", &kapply);
    cl_mem pairs;
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, pair_bytes, &pairs);
    if (st != CLIK_OK)
        return st;
    st = CLIK_ARGS(ctx, kbuild, CLIK_A(tables), CLIK_A(pairs));
    if (st == CLIK_OK) {
        size_t n = pair_bytes / sizeof(uint16_t), local = 256;
        st = clik__launch(ctx, kbuild, 1, &n, &local);
    }
    uint32_t sstride, dstride, row_bytes, rows;
    lut_shape(src, dst, &sstride, &dstride, &row_bytes, &rows);
    const uint32_t cpr = (row_bytes + CHUNK - 1) / CHUNK;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kapply, CLIK_A(src->mem), CLIK_A(sstride), CLIK_A(dst->mem),
                       CLIK_A(dstride), CLIK_A(row_bytes), CLIK_A(cpr), CLIK_A(rows), CLIK_A(pairs),
                       CLIK_A(tables), CLIK_A(aligned));
    if (st == CLIK_OK) {
        uint64_t chunks = (uint64_t)cpr * rows;
        uint64_t groups =
            (uint64_t)clik__tune(ctx, CLIK_TUNE_LUT_GROUPS, (long)ctx->dev.compute_units * 4);
        const uint64_t least = (chunks + ITEM_CHUNKS - 1) / ITEM_CHUNKS;
        groups = groups < least ? least : groups;
        size_t global = (size_t)(groups < chunks ? groups : chunks), local = 1;
        st = clik__launch_exact(ctx, kapply, 1, &global, &local);
    }
    clik__temp_release(ctx, pairs, pair_bytes);
    return st;
}

/* Enqueues dst = tables[src] for bound images; tables holds one table per
 * channel. */
static clik_status cl_lut(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                          cl_mem tables)
{
    const int ch = src->image.channels;
    const clik_binding *bound[] = {src, dst};
    clik_status st = check_strides(ctx, bound, 2, "lut");
    if (st != CLIK_OK)
        return st;
    uint32_t sstride, dstride, row_bytes, rows;
    lut_shape(src, dst, &sstride, &dstride, &row_bytes, &rows);
    const int aligned = clik__aligned16(bound, 2, rows == 1);
    /* The pair lookup's work-items divide the chunks in uint: within 2^31
     * of them (32 GiB), else the row kernels (a row's chunks in 2^18). */
    const uint64_t total = (uint64_t)((row_bytes + CHUNK - 1) / CHUNK) * rows;
    if ((int)clik__tune(ctx, CLIK_TUNE_LUT_PAIRS, 1) && total <= INT32_MAX &&
        pairs_possible(ctx, src->row_bytes * (size_t)src->image.height))
        return cl_lut_pairs(ctx, src, dst, tables, aligned);
    const int use_local = ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU;
    clik_kernel_entry *k;
    st = hist_kernel(ctx, ch, use_local ? "lut_apply_local" : "lut_apply", &k);
    const uint32_t cpr = (row_bytes + CHUNK - 1) / CHUNK;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(sstride), CLIK_A(dst->mem), CLIK_A(dstride),
                       CLIK_A(row_bytes), CLIK_A(cpr), CLIK_A(rows), CLIK_A(tables),
                       CLIK_A(aligned));
    if (st == CLIK_OK && use_local)
        st = clik__arg(ctx, k, 9, (size_t)ch * 256, NULL);
    if (st != CLIK_OK)
        return st;
    /* Chunks per work-item along a row (grid-stride), fewer work-groups. */
    const uint32_t per_item = (uint32_t)clik__tune(ctx, CLIK_TUNE_LUT_CHUNKS, 1);
    size_t items[2] = {(cpr + per_item - 1) / per_item, rows};
    size_t local[2] = {rows == 1 ? 256 : 64, rows == 1 ? 1 : 4};
    return clik__launch(ctx, k, 2, items, local);
}

/* The image's histogram into hist (channels * 256 counts). */
static clik_status cl_hist(clik_context *ctx, const clik_binding *src, uint32_t *hist)
{
    const size_t bytes = (size_t)src->image.channels * 256 * sizeof(uint32_t);
    cl_mem mem;
    clik_status st = clik__temp_buffer(ctx, bytes, &mem);
    if (st != CLIK_OK)
        return st;
    st = cl_hist_into(ctx, src, mem);
    if (st == CLIK_OK)
        st = clik__read_bytes(ctx, mem, hist, bytes);
    clik__temp_release(ctx, mem, bytes);
    return st;
}

/* dst = tables[src] with one host table per channel (ch * 256 bytes). */
static clik_status cl_lut_tables(clik_context *ctx, const clik_binding *src,
                                 const clik_binding *dst, const uint8_t *tables)
{
    const size_t bytes = (size_t)src->image.channels * 256;
    cl_mem mem;
    clik_status st = clik__temp_buffer(ctx, bytes, &mem);
    if (st != CLIK_OK)
        return st;
    st = clik__write_bytes(ctx, mem, tables, bytes);
    if (st == CLIK_OK)
        st = cl_lut(ctx, src, dst, mem);
    clik__temp_release(ctx, mem, bytes);
    return st;
}

/* b[0] is the source. */
static clik_status hist_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    return cl_hist(ctx, b[0], ((hist_args *)p)->hist);
}

/* dst = src equalized, each colour channel by its own table: histogram,
 * tables and lookup stay on the device, the host waits for nothing (src
 * and dst may be one binding: the histogram is complete before the lookup
 * writes). */
static clik_status cl_equalize(clik_context *ctx, const clik_binding *src, const clik_binding *dst)
{
    const clik_image *img = &src->image;
    const int ch = img->channels, colour = ch == 1 ? 1 : ch - 1;
    const uint32_t total = (uint32_t)((uint64_t)img->width * (uint64_t)img->height);
    const size_t hbytes = (size_t)ch * 256 * sizeof(uint32_t), tbytes = (size_t)ch * 256;
    cl_mem hist = NULL, tables = NULL;
    clik_kernel_entry *k;
    clik_status st = hist_kernel(ctx, ch, "equalize_tables", &k);
    if (st == CLIK_OK && (st = clik__temp_buffer(ctx, hbytes, &hist)) != CLIK_OK)
        hist = NULL;
    if (st == CLIK_OK && (st = clik__temp_buffer(ctx, tbytes, &tables)) != CLIK_OK)
        tables = NULL;
    if (st == CLIK_OK)
        st = cl_hist_into(ctx, src, hist);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(hist), CLIK_A(total), CLIK_A(colour), CLIK_A(tables));
    size_t items = 4, local = 4;
    if (st == CLIK_OK)
        st = clik__launch(ctx, k, 1, &items, &local);
    if (st == CLIK_OK)
        st = cl_lut(ctx, src, dst, tables);
    clik__temp_release(ctx, tables, tbytes);
    clik__temp_release(ctx, hist, hbytes);
    return st;
}

/* b[0] is the source, b[1] the destination. */
static clik_status equalize_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    (void)p;
    return cl_equalize(ctx, b[0], b[1]);
}

/* The kernels take one table per channel: a shared table is repeated (and
 * the last one where 3 channels run as 4: the fourth is not kept). */
static void channel_tables(const hist_args *a, int channels, uint8_t *out)
{
    for (int c = 0; c < channels; c++) {
        const int t = c < a->ntables ? c : a->ntables - 1;
        memcpy(out + 256 * c, a->tables + 256 * t, 256);
    }
}

static clik_status lut_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    uint8_t tables[4 * 256];
    channel_tables(p, b[0]->image.channels, tables);
    return cl_lut_tables(ctx, b[0], b[1], tables);
}

/* ---- luma (YCrCb) and CLAHE, OpenCL -------------------------------------------- */

/* The luma kernels of a row a work-item, 16 pixels a step (CPU devices by
 * default: PoCL on 2 cores, 1920x1080 RGBA, luma_plane 2.57 ms and
 * luma_merge 7.73 ms a pixel a work-item), else of a pixel. */
static int luma16(clik_context *ctx, int w)
{
    /* A row's loops (w / 16 + 15 iterations) within a loop budget
     * (llvmpipe), whatever the tuning asks. */
    const long budget = clik__loop_budget(ctx);
    return (!budget || (long)w / 16 + 64 < budget / 2) &&
           (int)clik__tune(ctx, CLIK_TUNE_LUMA16, ctx->dev.type == CLIK_DEVICE_CPU);
}

static clik_status launch_luma(clik_context *ctx, clik_kernel_entry *k, int w, int h, int wide)
{
    if (wide) {
        size_t global[1] = {(size_t)h}, local[1] = {1};
        return clik__launch_exact(ctx, k, 1, global, local);
    }
    size_t global[2] = {(size_t)w, (size_t)h}, local[2] = {64, 4};
    return clik__launch(ctx, k, 2, global, local);
}

/* y (a bound packed grey scratch) = the luma of the bound RGBA image (BGRA
 * by its order). */
static clik_status cl_luma(clik_context *ctx, const clik_binding *src, const clik_binding *y)
{
    clik_kernel_entry *k;
    const int wide = luma16(ctx, src->image.width);
    clik_status st = hist_kernel(ctx, 4, wide ? "luma_plane16" : "luma_plane", &k);
    const int w = src->image.width, h = src->image.height;
    const int ss = (int)src->stride, ys = (int)y->stride;
    const int bgr = src->image.order == CLIK_ORDER_BGR;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(y->mem), CLIK_A(ys), CLIK_A(w),
                       CLIK_A(h), CLIK_A(bgr));
    return st == CLIK_OK ? launch_luma(ctx, k, w, h, wide) : st;
}

/* dst = src with its luma replaced by y, in src's colour order. */
static clik_status cl_luma_merge(clik_context *ctx, const clik_binding *src, const clik_binding *y,
                                 const clik_binding *dst)
{
    clik_kernel_entry *k;
    const int wide = luma16(ctx, src->image.width);
    clik_status st = hist_kernel(ctx, 4, wide ? "luma_merge16" : "luma_merge", &k);
    const int w = src->image.width, h = src->image.height;
    const int ss = (int)src->stride, ys = (int)y->stride, ds = (int)dst->stride;
    const int bgr = src->image.order == CLIK_ORDER_BGR;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(y->mem), CLIK_A(ys),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(w), CLIK_A(h), CLIK_A(bgr));
    return st == CLIK_OK ? launch_luma(ctx, k, w, h, wide) : st;
}

/* Runs f(grey src, grey dst) on the bound images: directly for grey, on a
 * luma scratch (then merged back) for RGBA or BGRA (3 channels arrive as 4:
 * clik__run_op_rgba). */
typedef clik_status (*grey_pass)(clik_context *ctx, hist_args *a, const clik_binding *src,
                                 const clik_binding *dst);

static clik_status cl_on_luma(clik_context *ctx, hist_args *a, clik_binding *const *b, grey_pass f)
{
    clik_status st = clik__check_int_strides(ctx, b, 2, 1, "hist");
    if (st != CLIK_OK || b[0]->image.channels == 1)
        return st == CLIK_OK ? f(ctx, a, b[0], b[1]) : st;
    clik_binding y;
    st = clik__bind_scratch(ctx, b[0]->image.width, b[0]->image.height, 1, CLIK_U8, &y);
    if (st != CLIK_OK)
        return st;
    st = cl_luma(ctx, b[0], &y);
    if (st == CLIK_OK)
        st = f(ctx, a, &y, &y);
    if (st == CLIK_OK)
        st = cl_luma_merge(ctx, b[0], &y, b[1]);
    clik__unbind(ctx, &y, 0);
    return st;
}

static clik_status cl_equalize_grey(clik_context *ctx, hist_args *a, const clik_binding *src,
                                    const clik_binding *dst)
{
    (void)a;
    return cl_equalize(ctx, src, dst);
}

static clik_status equalize_luma_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    return cl_on_luma(ctx, p, b, cl_equalize_grey);
}

/* Tile histograms: work-group g counts part g % parts of tile g / parts into
 * the tile's zeroed bins: with local atomics into the group's copy (GPUs),
 * one work-item alone into its copy (CPU devices), or global atomics. */
static clik_status cl_clahe_hist(clik_context *ctx, const clik_clahe_plan *pl,
                                 const clik_binding *src, cl_mem hist)
{
    static const char *const kernels[] = {"clahe_hist_local", "clahe_hist_serial",
                                          "clahe_hist_global"};
    const int tiles = pl->tiles_x * pl->tiles_y;
    /* The registry's choices are in the order of kernels[]. */
    const long def = ctx->dev.type == CLIK_DEVICE_CPU ? 1 : ctx->local_memory ? 0 : 2;
    const int mode = (int)clik__tune(ctx, CLIK_TUNE_CLAHE_MODE, def);
    clik_kernel_entry *kzero, *k;
    clik_status st = hist_kernel(ctx, 1, "hist_zero", &kzero);
    if (st == CLIK_OK)
        st = hist_kernel(ctx, 1, kernels[mode], &k);
    const uint32_t words = (uint32_t)tiles * 256;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kzero, CLIK_A(hist), CLIK_A(words));
    if (st == CLIK_OK) {
        size_t n = words, lz = 64;
        st = clik__launch(ctx, kzero, 1, &n, &lz);
    }
    if (st != CLIK_OK)
        return st;
    size_t local = 1;
    if (mode != 1) {
        local = 256;
        clik__fit_local(ctx, k, 1, &local);
    }
    /* Each work-item counts at most ITEM_CHUNKS pixels (llvmpipe's loop
     * limit), and the groups fill the device a few times over. */
    const uint64_t area = (uint64_t)pl->tile_w * (uint64_t)pl->tile_h;
    const uint64_t least = (area + local * ITEM_CHUNKS - 1) / (local * ITEM_CHUNKS);
    const uint64_t most = (area + local - 1) / local;
    uint64_t parts = ((uint64_t)ctx->dev.compute_units * 4 + (uint64_t)tiles - 1) / (uint64_t)tiles;
    parts = parts > most ? most : parts;
    parts = parts < least ? least : parts;
    const int ss = (int)src->stride, nparts = (int)parts;
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(pl->width), CLIK_A(pl->height),
                   CLIK_A(pl->tile_w), CLIK_A(pl->tile_h), CLIK_A(pl->tiles_x), CLIK_A(nparts),
                   CLIK_A(hist));
    /* Four copies of the bins for the serial kernel, one for local atomics. */
    if (st == CLIK_OK && mode != 2)
        st = clik__arg(ctx, k, 9, (mode == 1 ? 1024 : 256) * sizeof(uint32_t), NULL);
    if (st == CLIK_OK) {
        size_t global = (size_t)tiles * (size_t)parts * local;
        st = clik__launch_exact(ctx, k, 1, &global, &local);
    }
    return st;
}

/* The blend by rows (clahe_rows, CPU devices by default): a row's loops
 * (w / 16 + 15 iterations) within a loop budget (llvmpipe), and the packed
 * tables (a KiB per pair of neighbouring tiles) at most CLAHE_QUAD_BYTES,
 * whatever the tuning asks. PoCL on 2 cores, 1920x1080 grey: the blend
 * 15.9 ms a pixel a work-item, 2.0 to 3.6 ms by rows. */
#define CLAHE_QUAD_BYTES (16u << 20)

static int clahe_rows(clik_context *ctx, const clik_clahe_plan *pl)
{
    const long budget = clik__loop_budget(ctx);
    const size_t pairs = (size_t)(pl->tiles_x + 1) * (size_t)(pl->tiles_y + 1);
    return (!budget || (long)pl->width / 16 + 64 < budget / 2) &&
           pairs * 256 * sizeof(uint32_t) <= CLAHE_QUAD_BYTES &&
           (int)clik__tune(ctx, CLIK_TUNE_CLAHE_ROWS, ctx->dev.type == CLIK_DEVICE_CPU);
}

/* A kernel of the CLAHE blend (`name`) with the arguments both blends
 * start with: src, dst, the image's size and the grid's width. */
static clik_status clahe_blend_kernel(clik_context *ctx, const clik_clahe_plan *pl,
                                      const char *name, const clik_binding *src,
                                      const clik_binding *dst, clik_kernel_entry **k)
{
    clik_status st = hist_kernel(ctx, 1, name, k);
    if (st != CLIK_OK)
        return st;
    const int ss = (int)src->stride, ds = (int)dst->stride;
    return CLIK_ARGS(ctx, *k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(dst->mem), CLIK_A(ds),
                     CLIK_A(pl->width), CLIK_A(pl->height), CLIK_A(pl->tiles_x));
}

/* dst = the blend of the tables `luts` by rows (clahe_rows). */
static clik_status cl_clahe_rows(clik_context *ctx, const clik_clahe_plan *pl,
                                 const clik_binding *src, const clik_binding *dst, cl_mem luts)
{
    const int pairs = (pl->tiles_x + 1) * (pl->tiles_y + 1);
    const size_t quad_bytes = (size_t)pairs * 256 * sizeof(uint32_t);
    cl_mem quads;
    clik_status st = clik__temp_buffer(ctx, quad_bytes, &quads);
    if (st != CLIK_OK)
        return st;
    clik_kernel_entry *kq = NULL, *k = NULL;
    st = hist_kernel(ctx, 1, "clahe_quads", &kq);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kq, CLIK_A(luts), CLIK_A(pl->tiles_x), CLIK_A(pl->tiles_y),
                       CLIK_A(quads));
    if (st == CLIK_OK) {
        size_t n = (size_t)pairs, l = 1;
        st = clik__launch(ctx, kq, 1, &n, &l);
    }
    if (st == CLIK_OK)
        st = clahe_blend_kernel(ctx, pl, "clahe_interp_rows", src, dst, &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 7, CLIK_A(pl->inv_tw), CLIK_A(pl->inv_th), CLIK_A(quads));
    if (st == CLIK_OK) {
        size_t global[1] = {(size_t)pl->height}, local[1] = {1};
        st = clik__launch_exact(ctx, k, 1, global, local);
    }
    clik__temp_release(ctx, quads, quad_bytes);
    return st;
}

/* dst = the blend of the tables `luts`, a pixel a work-item. */
static clik_status cl_clahe_interp(clik_context *ctx, const clik_clahe_plan *pl,
                                   const clik_binding *src, const clik_binding *dst, cl_mem luts)
{
    clik_kernel_entry *k = NULL;
    clik_status st = clahe_blend_kernel(ctx, pl, "clahe_interp", src, dst, &k);
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 7, CLIK_A(pl->tiles_y), CLIK_A(pl->inv_tw), CLIK_A(pl->inv_th),
                          CLIK_A(luts));
    size_t global[2] = {(size_t)pl->width, (size_t)pl->height}, local[2] = {64, 4};
    return st == CLIK_OK ? clik__launch(ctx, k, 2, global, local) : st;
}

static clik_status cl_clahe_grey(clik_context *ctx, hist_args *a, const clik_binding *src,
                                 const clik_binding *dst)
{
    const clik_clahe_plan *pl = &a->clahe;
    const int tiles = pl->tiles_x * pl->tiles_y;
    const size_t hist_bytes = (size_t)tiles * 256 * sizeof(uint32_t),
                 lut_bytes = (size_t)tiles * 256;
    cl_mem hist, luts = NULL;
    clik_status st = clik__temp_buffer(ctx, hist_bytes, &hist);
    if (st != CLIK_OK)
        return st;
    st = clik__temp_buffer(ctx, lut_bytes, &luts);
    if (st == CLIK_OK)
        st = cl_clahe_hist(ctx, pl, src, hist);
    clik_kernel_entry *klut = NULL;
    if (st == CLIK_OK)
        st = hist_kernel(ctx, 1, "clahe_tables", &klut);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, klut, CLIK_A(hist), CLIK_A(tiles), CLIK_A(pl->limit),
                       CLIK_A(pl->lut_scale), CLIK_A(luts));
    if (st == CLIK_OK) {
        size_t n = (size_t)tiles, l = 64;
        st = clik__launch(ctx, klut, 1, &n, &l);
    }
    if (st == CLIK_OK)
        st = clahe_rows(ctx, pl) ? cl_clahe_rows(ctx, pl, src, dst, luts)
                                 : cl_clahe_interp(ctx, pl, src, dst, luts);
    clik__temp_release(ctx, luts, lut_bytes);
    clik__temp_release(ctx, hist, hist_bytes);
    return st;
}

static clik_status clahe_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    return cl_on_luma(ctx, p, b, cl_clahe_grey);
}

/* ---- CPU path --------------------------------------------------------------- */

static clik_status hist_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    uint32_t *hist = ((hist_args *)p)->hist;
    const clik_image *src = v[0];
    memset(hist, 0, (size_t)src->channels * 256 * sizeof(uint32_t));
    ctx->dsp.hist.hist(src->data, src->stride, src->width, src->height, src->channels, hist);
    return CLIK_OK;
}

/* v[1] = tables[v[0]], one table per channel. */
static void lut_views(clik_context *ctx, clik_image *const *v, const uint8_t *tables)
{
    ctx->dsp.hist.lut(v[0]->data, v[0]->stride, v[1]->data, v[1]->stride, v[0]->width, v[0]->height,
                      v[0]->channels, tables, 1);
}

static clik_status equalize_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    (void)p;
    uint32_t hist[4 * 256];
    uint8_t tables[4 * 256];
    hist_args h = {.hist = hist};
    hist_cpu(ctx, &h, v);
    equalize_tables(hist, v[0], tables);
    lut_views(ctx, v, tables);
    return CLIK_OK;
}

static clik_status lut_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    uint8_t tables[4 * 256];
    channel_tables(p, v[0]->channels, tables);
    lut_views(ctx, v, tables);
    return CLIK_OK;
}

/* Runs f(grey src, grey dst) on host views: directly for grey, on a luma
 * plane (then merged back) for RGBA. */
typedef clik_status (*grey_view_pass)(clik_context *ctx, hist_args *a, const clik_image *src,
                                      clik_image *dst);

static clik_status cpu_on_luma(clik_context *ctx, hist_args *a, clik_image *const *v,
                               grey_view_pass f)
{
    if (v[0]->channels == 1)
        return f(ctx, a, v[0], v[1]);
    const int w = v[0]->width, h = v[0]->height;
    uint8_t *plane = malloc((size_t)w * (size_t)h);
    if (!plane)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "hist: no memory for a %dx%d luma plane", w, h);
    clik_image y = {.width = w,
                    .height = h,
                    .channels = 1,
                    .type = CLIK_U8,
                    .stride = (size_t)w,
                    .data = plane};
    const int bgr = v[0]->order == CLIK_ORDER_BGR;
    ctx->dsp.hist.luma(v[0]->data, v[0]->stride, w, h, bgr, plane);
    clik_status st = f(ctx, a, &y, &y);
    if (st == CLIK_OK)
        ctx->dsp.hist.luma_merge(v[0]->data, v[0]->stride, plane, v[1]->data, v[1]->stride, w, h,
                                 bgr);
    free(plane);
    return st;
}

static clik_status equalize_grey_cpu(clik_context *ctx, hist_args *a, const clik_image *src,
                                     clik_image *dst)
{
    (void)a;
    clik_image *views[] = {(clik_image *)src, dst};
    return equalize_cpu(ctx, NULL, views);
}

static clik_status equalize_luma_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    return cpu_on_luma(ctx, p, v, equalize_grey_cpu);
}

static clik_status clahe_grey_cpu(clik_context *ctx, hist_args *a, const clik_image *src,
                                  clik_image *dst)
{
    const clik_clahe_plan *pl = &a->clahe;
    uint8_t *luts = malloc((size_t)pl->tiles_x * (size_t)pl->tiles_y * 256);
    if (!luts)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_clahe: no memory for %dx%d tables",
                          pl->tiles_x, pl->tiles_y);
    ctx->dsp.hist.clahe_luts(src->data, src->stride, pl, luts);
    ctx->dsp.hist.clahe_interp(src->data, src->stride, dst->data, dst->stride, pl, luts);
    free(luts);
    return CLIK_OK;
}

static clik_status clahe_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    return cpu_on_luma(ctx, p, v, clahe_grey_cpu);
}

static const clik_op hist_op = {"hist_compute", hist_opencl, hist_cpu};
static const clik_op equalize_op = {"hist_equalize", equalize_opencl, equalize_cpu};
static const clik_op lut_op = {"hist_lut", lut_opencl, lut_cpu};
static const clik_op equalize_luma_op = {"hist_equalize_luma", equalize_luma_opencl,
                                         equalize_luma_cpu};
static const clik_op clahe_op = {"clahe", clahe_opencl, clahe_cpu};

/* ---- public entry points ------------------------------------------------------ */

clik_status clik_hist_compute(clik_context *ctx, const clik_image *src, uint32_t *hist)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_u8(ctx, src, 1, "clik_hist_compute");
    if (st != CLIK_OK)
        return st;
    if (!hist)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_hist_compute: hist is NULL");
    /* 3 channels run as 4 (clik__run_op_rgba): their histograms come first. */
    uint32_t four[4 * 256];
    hist_args a = {.hist = src->channels == 3 ? four : hist};
    const clik_op_image images[] = {{src, CLIK_READ}};
    st = clik__run_op_rgba(ctx, &hist_op, images, 1, &a);
    if (st == CLIK_OK && src->channels == 3)
        memcpy(hist, four, 3 * 256 * sizeof(uint32_t));
    return st;
}

clik_status clik_hist_equalize(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pair(ctx, src, dst, 1, "clik_hist_equalize");
    return st == CLIK_OK ? clik__run_op_pair(ctx, &equalize_op, src, dst, NULL) : st;
}

clik_status clik_hist_lut(clik_context *ctx, const clik_image *src, clik_image *dst,
                          const uint8_t *tables, int ntables)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pair(ctx, src, dst, 0, "clik_hist_lut");
    if (st != CLIK_OK)
        return st;
    if (!tables)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_hist_lut: tables is NULL");
    if (ntables != 1 && ntables != src->channels)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_hist_lut: %d tables for %d channels (give 1 or %d)", ntables,
                          src->channels, src->channels);
    hist_args a = {.tables = tables, .ntables = ntables};
    return clik__run_op_pair(ctx, &lut_op, src, dst, &a);
}

/* src: RGB(A) or BGR(A) by its order (and with grey 1 channel) u8; dst:
 * src's format, or src. */
static clik_status check_luma_pair(clik_context *ctx, const clik_image *src, const clik_image *dst,
                                   int grey, const char *op)
{
    clik_status st = check_pair(ctx, src, dst, 1, op);
    if (st != CLIK_OK)
        return st;
    if (src->channels == 2 || (!grey && src->channels == 1))
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: src has %d channels; the luma is that of colour (3 or 4 "
                          "channels)%s",
                          op, src->channels, grey ? " or of grey (1 channel)" : "");
    return CLIK_OK;
}

clik_status clik_hist_equalize_luma(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    hist_args a = {0};
    clik_status st = check_luma_pair(ctx, src, dst, 0, "clik_hist_equalize_luma");
    return st == CLIK_OK ? clik__run_op_pair(ctx, &equalize_luma_op, src, dst, &a) : st;
}

/* The CLAHE plan: OpenCV's createCLAHE conventions (an image whose sides are
 * not both multiples of the grid is padded by tiles_x - width % tiles_x
 * columns and tiles_y - height % tiles_y rows, a whole tile on a side that
 * divides; the limit is clip * area / 256 truncated, at least 1). */
static void clahe_plan(const clik_image *src, double clip, int tiles_x, int tiles_y,
                       clik_clahe_plan *p)
{
    const int divides = src->width % tiles_x == 0 && src->height % tiles_y == 0;
    const int pad_w = divides ? src->width : src->width + tiles_x - src->width % tiles_x;
    const int pad_h = divides ? src->height : src->height + tiles_y - src->height % tiles_y;
    p->width = src->width;
    p->height = src->height;
    p->tiles_x = tiles_x;
    p->tiles_y = tiles_y;
    p->tile_w = pad_w / tiles_x;
    p->tile_h = pad_h / tiles_y;
    const double area = (double)p->tile_w * (double)p->tile_h;
    const double limit = floor(clip * area / 256.0);
    /* A limit at or above the area clips nothing: kept there. */
    p->limit = limit < 1.0 ? 1u : limit >= area ? (uint32_t)area : (uint32_t)limit;
    p->lut_scale = 255.0f / (float)area;
    p->inv_tw = 1.0f / (float)p->tile_w;
    p->inv_th = 1.0f / (float)p->tile_h;
}

clik_status clik_clahe(clik_context *ctx, const clik_image *src, clik_image *dst, double clip,
                       int tiles_x, int tiles_y)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_luma_pair(ctx, src, dst, 1, "clik_clahe");
    if (st != CLIK_OK)
        return st;
    if (!(clip > 0.0) || !isfinite(clip))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_clahe: clip %g; give a finite clip limit above 0", clip);
    if (tiles_x < 1 || tiles_y < 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_clahe: a grid of %dx%d tiles; give at least 1x1", tiles_x, tiles_y);
    if (tiles_x > src->width || tiles_y > src->height)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_clahe: a grid of %dx%d tiles on a %dx%d image (at most one tile "
                          "per pixel on each side)",
                          tiles_x, tiles_y, src->width, src->height);
    if ((int64_t)tiles_x * tiles_y > CLAHE_MAX_TILES)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_clahe: a grid of %dx%d tiles, more than %d in all", tiles_x,
                          tiles_y, CLAHE_MAX_TILES);
    hist_args a = {0};
    clahe_plan(src, clip, tiles_x, tiles_y, &a.clahe);
    return clik__run_op_pair(ctx, &clahe_op, src, dst, &a);
}

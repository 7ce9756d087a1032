/*
 * Pyramid family: pyrDown, pyrUp, Gaussian and Laplacian pyramids
 * (kernels/pyramid.cl, fallback_cpu/{scalar,neon}/pyramid.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_LEVELS 32 /* more than any image of CLIK_MAX_DIM has */

/* ---- sizes --------------------------------------------------------------------- */

/* (n + 1) / 2 without the overflow of n + 1 at INT_MAX. */
static int half_up(int n)
{
    return n / 2 + (n & 1);
}

void clik_pyr_level_size(int width, int height, int level, int *level_width, int *level_height)
{
    for (int i = 0; i < level && (width > 1 || height > 1); i++) {
        width = half_up(width);
        height = half_up(height);
    }
    if (level_width)
        *level_width = width;
    if (level_height)
        *level_height = height;
}

int clik_pyr_max_levels(int width, int height)
{
    if (width < 1 || height < 1)
        return 0; /* no such image */
    int n = 0;
    while (width > 1 || height > 1) {
        width = half_up(width);
        height = half_up(height);
        n++;
    }
    return n;
}

/* ---- validation ------------------------------------------------------------------ */

/* pyrUp's output: 2W or 2W - 1 wide, 2H or 2H - 1 high. */
static clik_status check_up_size(clik_context *ctx, const clik_image *src, const clik_image *dst,
                                 const char *what)
{
    if (dst->width != 2 * src->width && dst->width != 2 * src->width - 1)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: width %d, needs %d or %d", what,
                          dst->width, 2 * src->width, 2 * src->width - 1);
    if (dst->height != 2 * src->height && dst->height != 2 * src->height - 1)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: height %d, needs %d or %d", what,
                          dst->height, 2 * src->height, 2 * src->height - 1);
    return CLIK_OK;
}

/* The image a pyramid is built from or rebuilds (the argument `role` of
 * the operation `what`), and a count of levels it has, in a level array
 * that is not NULL. */
static clik_status check_base(clik_context *ctx, const clik_image *img, const char *role, int count,
                              const void *levels, const char *what)
{
    char name[96];
    snprintf(name, sizeof(name), "%s: %s", what, role);
    clik_status st = clik__check_pixels(ctx, img, name);
    if (st != CLIK_OK)
        return st;
    if (!levels)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: the level array is NULL", what);
    int most = clik_pyr_max_levels(img->width, img->height);
    if (count < 1 || count > most)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: %d levels asked, a %dx%d image has 1 to %d", what, count, img->width,
                          img->height, most);
    return CLIK_OK;
}

/* Outputs may share no memory with the inputs nor with each other: a level
 * written over its source, or two levels in one buffer, would give wrong
 * results on every path. */
static clik_status check_disjoint(clik_context *ctx, const clik_image *in, int nin,
                                  const clik_image *out, int nout, const char *what)
{
    for (int o = 0; o < nout; o++) {
        for (int i = 0; i < nin; i++)
            if (clik__images_overlap(&out[o], &in[i]))
                return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                                  "%s: output %d shares memory with input %d", what, o, i);
        for (int j = 0; j < o; j++)
            if (clik__images_overlap(&out[o], &out[j]))
                return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: outputs %d and %d share memory",
                                  what, j, o);
    }
    return CLIK_OK;
}

/* Band type of a Laplacian pyramid of pixels of type t. */
static int band_type_ok(clik_type pixels, clik_type band)
{
    return band == CLIK_F32 || (pixels == CLIK_U8 && band == CLIK_S16);
}

/* ---- OpenCL path ---------------------------------------------------------------------- */

typedef struct pyr_args {
    int count; /* levels of a pyramid */
} pyr_args;

/* The suffix of the Laplacian kernels for bands of type t. */
static const char *band_suffix(clik_type t)
{
    return t == CLIK_S16 ? "s16" : "f32";
}

/* Sets the arguments every resampling kernel starts with: (src, stride,
 * width, height) and (dst, stride, width, height) of two images. */
static clik_status set_down_args(clik_context *ctx, clik_kernel_entry *k, const clik_binding *src,
                                 const clik_binding *dst)
{
    const int ss = clik__elems(src), ds = clik__elems(dst);
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height;
    return CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst->mem),
                     CLIK_A(ds), CLIK_A(dw), CLIK_A(dh));
}

/* u8: pyr_down_rows (CPU devices: a band of rows per work-item, any
 * channels) or pyr_down_vec (GPUs, grey: 8 outputs per work-item). */
static clik_status cl_down_u8(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                              int rows_kernel)
{
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "pyramid", CLIK_U8, src->image.channels, "",
                                        rows_kernel ? "pyr_down_rows" : "pyr_down_vec", &k);
    if (st == CLIK_OK)
        st = set_down_args(ctx, k, src, dst);
    if (st != CLIK_OK)
        return st;
    const int dw = dst->image.width, dh = dst->image.height;
    if (!rows_kernel) {
        size_t items[2] = {((size_t)dw + 7) / 8, (size_t)dh}, local[2] = {32, 8};
        return clik__launch(ctx, k, 2, items, local);
    }
    /* A few bands per compute unit, whatever the tuning asks no more rows
     * than keep a work-item's loops (about dw * CH / 16 + 64 iterations a
     * row) within half of llvmpipe's limit of 65535 (kernels/pyramid.cl). */
    const long rows = clik__band_rows(ctx, CLIK_TUNE_PYR_BAND_ROWS, dh);
    const long most = 32768 / ((long)dw * dst->image.channels / 16 + 64);
    const int band = (int)(rows < most ? rows : most > 0 ? most : 1);
    st = CLIK_ARG(ctx, k, 8, band);
    size_t global[1] = {((size_t)dh + (size_t)band - 1) / (size_t)band}, local[1] = {1};
    return st == CLIK_OK ? clik__launch_exact(ctx, k, 1, global, local) : st;
}

/* GPUs, u8 with 1 or 4 channels: pyr_down_strip, 4 output pixels of
 * pyr_strip_rows output rows per work-item. */
static clik_status cl_down_strip(clik_context *ctx, const clik_binding *src,
                                 const clik_binding *dst)
{
    clik_kernel_entry *k;
    clik_status st =
        clik__pixel_kernel(ctx, "pyramid", CLIK_U8, src->image.channels, "", "pyr_down_strip", &k);
    const int rows = (int)clik__tune(ctx, CLIK_TUNE_PYR_STRIP_ROWS, 2);
    if (st == CLIK_OK)
        st = set_down_args(ctx, k, src, dst);
    if (st == CLIK_OK)
        st = CLIK_ARG(ctx, k, 8, rows);
    if (st != CLIK_OK)
        return st;
    const int dw = dst->image.width, dh = dst->image.height;
    size_t items[2] = {((size_t)dw + 3) / 4, ((size_t)dh + (size_t)rows - 1) / (size_t)rows};
    size_t local[2] = {64, 2};
    return clik__launch(ctx, k, 2, items, local);
}

static clik_status cl_down(clik_context *ctx, const clik_binding *src, const clik_binding *dst)
{
    const clik_image *img = &src->image;
    int local_mem = (int)clik__tune(ctx, CLIK_TUNE_PYR_LOCAL,
                                    ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU);
    /* u8: the CPU row kernel; u8 grey on GPUs: the strips for large
     * outputs; else u8 grey: the tiles in local memory where it is on-chip (NVIDIA
     * H200: 21 us against 25 us for 4K), else the 8-wide kernel. */
    if (img->type == CLIK_U8 &&
        (int)clik__tune(ctx, CLIK_TUNE_PYR_ROWS, ctx->dev.type == CLIK_DEVICE_CPU))
        return cl_down_u8(ctx, src, dst, 1);
    /* The strips by default for u8 grey outputs of 2^19 pixels or more on
     * GPUs (NVIDIA H200, 4K: 15 us against 23 us for the tiles; fewer
     * work-items than that leave it slower). RGBA strips measured 91 us
     * against the tiles' 49 us there: a choice of the tuning only. */
    const int strip_default = ctx->dev.type != CLIK_DEVICE_CPU && img->channels == 1 &&
                              (double)dst->image.width * dst->image.height >= 524288.0;
    if (img->type == CLIK_U8 && (img->channels == 1 || img->channels == 4) &&
        (int)clik__tune(ctx, CLIK_TUNE_PYR_STRIP, strip_default))
        return cl_down_strip(ctx, src, dst);
    if (img->type == CLIK_U8 && img->channels == 1 &&
        (int)clik__tune(ctx, CLIK_TUNE_PYR_VEC, !local_mem))
        return cl_down_u8(ctx, src, dst, 0);
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "pyramid", img->type, img->channels, "",
                                        local_mem ? "pyr_down_local" : "pyr_down", &k);
    if (st == CLIK_OK)
        st = set_down_args(ctx, k, src, dst);
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)dst->image.width, (size_t)dst->image.height};
    if (!local_mem) {
        size_t local[2] = {64, 4};
        return clik__launch(ctx, k, 2, items, local);
    }
    /* A tile of TW x TH outputs keeps TH rows of 2 TW + 3 column sums, each
     * a pixel of 32-bit values. */
    size_t local[2] = {32, 8};
    clik__fit_local(ctx, k, 2, local);
    const size_t bytes = local[1] * (2 * local[0] + 3) * (size_t)img->channels * 4;
    if (bytes > ctx->dev.local_mem_size)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "pyr_down: a tile needs %zu bytes of local memory", bytes);
    st = clik__arg(ctx, k, 8, bytes, NULL);
    return st == CLIK_OK ? clik__launch(ctx, k, 2, items, local) : st; /* local fits */
}

/* pyrUp of coarse into out (other NULL), or the Laplacian step `name`
 * (pyr_up_sub_*, pyr_up_add_*) that combines it with other into out. u8 on
 * CPU devices: the row kernels (name with "_rows" before the band type), a
 * band of source rows per work-item (kernels/up2_rows.h). */
static int up_rows_kernel(clik_context *ctx, const clik_image *img)
{
    return img->type == CLIK_U8 &&
           (int)clik__tune(ctx, CLIK_TUNE_PYR_ROWS, ctx->dev.type == CLIK_DEVICE_CPU);
}

static clik_status cl_up(clik_context *ctx, const char *name, const clik_binding *coarse,
                         const clik_binding *other, const clik_binding *out)
{
    const clik_image *img = &coarse->image;
    const int rows_kernel = up_rows_kernel(ctx, img);
    char rows_name[48];
    if (rows_kernel && other) {
        const char *band = strrchr(name, '_'); /* "_s16" or "_f32" */
        snprintf(rows_name, sizeof(rows_name), "%.*s_rows%s", (int)(band - name), name, band);
    } else if (rows_kernel) {
        snprintf(rows_name, sizeof(rows_name), "%s_rows", name);
    }
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "pyramid", img->type, img->channels, "",
                                        rows_kernel ? rows_name : name, &k);
    const int cs = clik__elems(coarse), sw = img->width, sh = img->height;
    const int os = clik__elems(out), dw = out->image.width, dh = out->image.height;
    if (st == CLIK_OK && !other) {
        st = CLIK_ARGS(ctx, k, CLIK_A(coarse->mem), CLIK_A(cs), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(out->mem), CLIK_A(os), CLIK_A(dw), CLIK_A(dh));
    } else if (st == CLIK_OK) {
        const int xs = clik__elems(other);
        st = CLIK_ARGS(ctx, k, CLIK_A(coarse->mem), CLIK_A(cs), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(other->mem), CLIK_A(xs), CLIK_A(out->mem), CLIK_A(os), CLIK_A(dw),
                       CLIK_A(dh));
    }
    if (st != CLIK_OK)
        return st;
    if (rows_kernel) {
        /* A few bands per compute unit; a row costs about W * CH / 16 + 2 *
         * CH + 16 loop iterations, kept within half of llvmpipe's 65535. */
        const long rows = clik__band_rows(ctx, CLIK_TUNE_PYR_BAND_ROWS, sh);
        const long most = 32768 / ((long)sw * img->channels / 16 + 2L * img->channels + 16);
        const int band = (int)(rows < most ? rows : most > 0 ? most : 1);
        st = CLIK_ARG(ctx, k, other ? 10 : 8, band);
        size_t global[1] = {((size_t)sh + (size_t)band - 1) / (size_t)band}, local[1] = {1};
        return st == CLIK_OK ? clik__launch_exact(ctx, k, 1, global, local) : st;
    }
    size_t items[2] = {(size_t)sw, (size_t)sh}, local[2] = {32, 8};
    return clik__launch(ctx, k, 2, items, local);
}

/* GPUs, pyrUp alone: pyr_up_block, 16 elements of two output rows per
 * work-item. NVIDIA H200, 3840x2160 u8, resident: see
 * benchmarks/results/nvidia-h200-pyr-up-block.md. */
static clik_status cl_up_block(clik_context *ctx, const clik_binding *coarse,
                               const clik_binding *out)
{
    static const char *const names[] = {"pyr_up_block_any", "pyr_up_block_pix", "pyr_up_block_a16"};
    const clik_image *img = &coarse->image;
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "pyramid", img->type, img->channels, "",
                                        names[clik__align_mode(coarse, out, 0)], &k);
    const int cs = clik__elems(coarse), sw = img->width, sh = img->height;
    const int os = clik__elems(out), dw = out->image.width, dh = out->image.height;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(coarse->mem), CLIK_A(cs), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(out->mem), CLIK_A(os), CLIK_A(dw), CLIK_A(dh));
    if (st != CLIK_OK)
        return st;
    const size_t np = (size_t)(8 / img->channels);
    size_t items[2] = {((size_t)sw + np - 1) / np, (size_t)sh}, local[2] = {32, 8};
    return clik__launch(ctx, k, 2, items, local);
}

/* A Laplacian step for bands of type band: "pyr_up_sub" -> "pyr_up_sub_s16". */
static clik_status cl_band_up(clik_context *ctx, const char *step, clik_type band,
                              const clik_binding *coarse, const clik_binding *other,
                              const clik_binding *out)
{
    char name[32];
    snprintf(name, sizeof(name), "%s_%s", step, band_suffix(band));
    return cl_up(ctx, name, coarse, other, out);
}

/* Converts between pixels of type `pixels` and bands (to_band) or back. */
static clik_status cl_convert(clik_context *ctx, const clik_binding *from, const clik_binding *to,
                              int to_band, clik_type pixels, clik_type band)
{
    char name[32];
    snprintf(name, sizeof(name), "%s_%s", to_band ? "pyr_to_band" : "pyr_from_band",
             band_suffix(band));
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "pyramid", pixels, from->image.channels, "", name, &k);
    const int fs = clik__elems(from), ts = clik__elems(to), rows = from->image.height;
    const int row_elems = from->image.width * from->image.channels;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(from->mem), CLIK_A(fs), CLIK_A(row_elems), CLIK_A(rows),
                       CLIK_A(to->mem), CLIK_A(ts));
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)row_elems, (size_t)rows}, local[2] = {64, 4};
    return clik__launch(ctx, k, 2, items, local);
}

/* b[0] is the source, b[1] the destination. */
static clik_status down_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    (void)p;
    clik_status st = clik__check_int_strides(ctx, b, 2, 0, "pyr_down");
    return st == CLIK_OK ? cl_down(ctx, b[0], b[1]) : st;
}

static clik_status up_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    (void)p;
    clik_status st = clik__check_int_strides(ctx, b, 2, 0, "pyr_up");
    if (st != CLIK_OK)
        return st;
    if (!up_rows_kernel(ctx, &b[0]->image) && b[0]->image.channels != 3 &&
        clik__tune(ctx, CLIK_TUNE_PYR_UP_BLOCK, 1))
        return cl_up_block(ctx, b[0], b[1]);
    return cl_up(ctx, "pyr_up", b[0], NULL, b[1]);
}

/* b[0] is the source, b[1 + i] level 1 + i: each level is written by one
 * kernel and read by the next, on the device. */
static clik_status gaussian_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const pyr_args *a = p;
    clik_status st = clik__check_int_strides(ctx, b, a->count + 1, 0, "pyr_gaussian");
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cl_down(ctx, b[i], b[i + 1]);
    return st;
}

/* b[0] is the source, b[1 + i] band i (0..count). The Gaussian levels
 * 1..count are device scratch images. */
static clik_status laplacian_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const pyr_args *a = p;
    const clik_image *src = &b[0]->image;
    const clik_type band = b[1]->image.type;
    clik_binding level[MAX_LEVELS + 1];
    const clik_binding *g[MAX_LEVELS + 1] = {b[0]};
    int made = 0;
    clik_status st = clik__check_int_strides(ctx, b, a->count + 2, 0, "pyr_laplacian");
    for (int i = 1; i <= a->count && st == CLIK_OK; i++) {
        int w, h;
        clik_pyr_level_size(src->width, src->height, i, &w, &h);
        st = clik__bind_scratch(ctx, w, h, src->channels, src->type, &level[i]);
        g[i] = &level[i];
        made += st == CLIK_OK;
    }
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cl_down(ctx, g[i], g[i + 1]);
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cl_band_up(ctx, "pyr_up_sub", band, g[i + 1], g[i], b[1 + i]);
    if (st == CLIK_OK)
        st = cl_convert(ctx, g[a->count], b[1 + a->count], 1, src->type, band);
    for (int i = 1; i <= made; i++)
        clik__unbind(ctx, &level[i], 0);
    return st;
}

/* b[i] is band i (0..count), b[count + 1] the destination. The rebuilt
 * levels 1..count are device scratch images; level 0 goes straight into
 * the destination. */
static clik_status collapse_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const pyr_args *a = p;
    const clik_binding *dst = b[a->count + 1];
    const clik_type band = b[0]->image.type, pixels = dst->image.type;
    clik_binding level[MAX_LEVELS + 1];
    int made = 0;
    clik_status st = clik__check_int_strides(ctx, b, a->count + 2, 0, "pyr_collapse");
    for (int i = 1; i <= a->count && st == CLIK_OK; i++) {
        const clik_image *bi = &b[i]->image;
        st = clik__bind_scratch(ctx, bi->width, bi->height, bi->channels, pixels, &level[i]);
        made += st == CLIK_OK;
    }
    if (st == CLIK_OK)
        st = cl_convert(ctx, b[a->count], &level[a->count], 0, pixels, band);
    for (int i = a->count - 1; i >= 0 && st == CLIK_OK; i--)
        st = cl_band_up(ctx, "pyr_up_add", band, &level[i + 1], b[i], i == 0 ? dst : &level[i]);
    for (int i = 1; i <= made; i++)
        clik__unbind(ctx, &level[i], 0);
    return st;
}

/* ---- CPU path ----------------------------------------------------------------------- */

/* v[0] is the source, v[1] the destination. */
static clik_status down_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    (void)p;
    ctx->dsp.pyramid.down(v[0], v[1]);
    return CLIK_OK;
}

static clik_status up_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    (void)p;
    ctx->dsp.pyramid.up(v[0], v[1]);
    return CLIK_OK;
}

/* v[0] is the source, v[1 + i] level 1 + i. */
static clik_status gaussian_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const pyr_args *a = p;
    for (int i = 0; i < a->count; i++)
        ctx->dsp.pyramid.down(v[i], v[i + 1]);
    return CLIK_OK;
}

/* v[0] is the source, v[1 + i] band i (0..count). */
static clik_status laplacian_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const pyr_args *a = p;
    const clik_image *src = v[0];
    clik_image g[MAX_LEVELS + 1], up = {0};
    memset(g, 0, sizeof(g));
    g[0] = *src;
    clik_status st = CLIK_OK;
    for (int i = 1; i <= a->count && st == CLIK_OK; i++) {
        int w, h;
        clik_pyr_level_size(src->width, src->height, i, &w, &h);
        st = clik_image_alloc(&g[i], w, h, src->channels, src->type);
        if (st == CLIK_OK)
            ctx->dsp.pyramid.down(&g[i - 1], &g[i]);
    }
    for (int i = 0; i < a->count && st == CLIK_OK; i++) {
        st = clik_image_alloc(&up, g[i].width, g[i].height, g[i].channels, g[i].type);
        if (st == CLIK_OK) {
            ctx->dsp.pyramid.up(&g[i + 1], &up);
            ctx->dsp.pyramid.combine(&g[i], &up, -1, v[1 + i]);
        }
        clik_image_free(&up);
    }
    if (st == CLIK_OK)
        ctx->dsp.pyramid.combine(&g[a->count], &g[a->count], 0, v[1 + a->count]);
    for (int i = 1; i <= a->count; i++)
        clik_image_free(&g[i]);
    return st == CLIK_OK ? st : clik__fail(ctx, st, "clik_pyr_laplacian: out of memory");
}

/* v[i] is band i (0..count), v[count + 1] the destination. */
static clik_status collapse_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const pyr_args *a = p;
    clik_image *const out = v[a->count + 1];
    clik_image g[MAX_LEVELS + 1], up = {0};
    memset(g, 0, sizeof(g));
    clik_status st = CLIK_OK;
    for (int i = a->count; i >= 0 && st == CLIK_OK; i--) {
        const clik_image *band = v[i];
        if (i > 0)
            st = clik_image_alloc(&g[i], band->width, band->height, band->channels, out->type);
        else
            g[0] = *out;
        if (st != CLIK_OK)
            break;
        if (i == a->count) {
            ctx->dsp.pyramid.combine(band, band, 0, &g[i]);
            continue;
        }
        st = clik_image_alloc(&up, g[i].width, g[i].height, g[i].channels, out->type);
        if (st == CLIK_OK) {
            ctx->dsp.pyramid.up(&g[i + 1], &up);
            ctx->dsp.pyramid.combine(band, &up, +1, &g[i]);
        }
        clik_image_free(&up);
    }
    for (int i = 1; i <= a->count; i++)
        clik_image_free(&g[i]);
    return st == CLIK_OK ? st : clik__fail(ctx, st, "clik_pyr_collapse: out of memory");
}

static const clik_op down_op = {"pyr_down", down_opencl, down_cpu};
static const clik_op up_op = {"pyr_up", up_opencl, up_cpu};
static const clik_op gaussian_op = {"pyr_gaussian", gaussian_opencl, gaussian_cpu};
static const clik_op laplacian_op = {"pyr_laplacian", laplacian_opencl, laplacian_cpu};
static const clik_op collapse_op = {"pyr_collapse", collapse_opencl, collapse_cpu};

/* ---- public entry points -------------------------------------------------------------- */

/* src and dst of pyr_down (up = 0) or pyr_up (up = 1): dst of src's
 * format and of the size the step gives it. */
static clik_status check_step(clik_context *ctx, const clik_image *src, const clik_image *dst,
                              int up, const char *op)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: src", op);
    clik_status st = clik__check_pixels(ctx, src, what);
    snprintf(what, sizeof(what), "%s: dst", op);
    /* pyr_up's two sizes a side: checked after the format */
    if (st == CLIK_OK)
        st = clik__check_like(ctx, dst, src, what, up ? 0 : half_up(src->width),
                              up ? 0 : half_up(src->height));
    if (st == CLIK_OK && up)
        st = check_up_size(ctx, src, dst, what);
    return st == CLIK_OK ? clik__check_apart(ctx, src, dst, 1, op) : st;
}

clik_status clik_pyr_down(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_step(ctx, src, dst, 0, "clik_pyr_down");
    return st == CLIK_OK ? clik__run_op_pair(ctx, &down_op, src, dst, NULL) : st;
}

clik_status clik_pyr_up(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_step(ctx, src, dst, 1, "clik_pyr_up");
    return st == CLIK_OK ? clik__run_op_pair(ctx, &up_op, src, dst, NULL) : st;
}

/* imgs[i] must be level first + i of a pyramid of ref (i < n), of type t
 * and ref's channels; what names them in messages ("...: level"). */
static clik_status check_levels(clik_context *ctx, const clik_image *imgs, int first, int n,
                                const clik_image *ref, clik_type t, const char *what)
{
    clik_status st = CLIK_OK;
    for (int i = 0; i < n && st == CLIK_OK; i++) {
        int w, h;
        char name[128];
        clik_pyr_level_size(ref->width, ref->height, first + i, &w, &h);
        snprintf(name, sizeof(name), "%s %d", what, first + i);
        st = clik__check_format(ctx, &imgs[i], name, CLIK_TYPE_BIT(t),
                                1u << (unsigned)ref->channels, w, h);
    }
    return st;
}

/* Checks count + 1 band images of the sizes of the levels of ref. */
static clik_status check_bands(clik_context *ctx, const clik_image *bands, int count,
                               const clik_image *ref, clik_type pixels, const char *op)
{
    clik_status st = clik__check_image(ctx, &bands[0], op);
    if (st != CLIK_OK)
        return st;
    if (!band_type_ok(pixels, bands[0].type))
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: bands of %s pixels are s16 or f32 (u8) or f32 (f32), not %s", op,
                          clik_type_name(pixels), clik_type_name(bands[0].type));
    char what[96];
    snprintf(what, sizeof(what), "%s: band", op);
    return check_levels(ctx, bands, 0, count + 1, ref, bands[0].type, what);
}

/* Runs op (`what` in messages) from its inputs to its outputs once they
 * are disjoint (check_disjoint); with chained, every output but the last
 * is read back by the next kernel. */
static clik_status run_levels(clik_context *ctx, const clik_op *op, const clik_image *in, int nin,
                              const clik_image *out, int nout, int chained, int count,
                              const char *what)
{
    clik_status st = check_disjoint(ctx, in, nin, out, nout, what);
    if (st != CLIK_OK)
        return st;
    clik_op_image images[MAX_LEVELS + 2];
    for (int i = 0; i < nin; i++)
        images[i] = (clik_op_image){&in[i], CLIK_READ};
    for (int o = 0; o < nout; o++)
        images[nin + o] =
            (clik_op_image){&out[o], CLIK_WRITE | (chained && o + 1 < nout ? CLIK_KERNEL_RW : 0)};
    pyr_args a = {.count = count};
    return clik__run_op_rgba(ctx, op, images, nin + nout, &a);
}

/* The two pyramids built from src (`what` in messages): count Gaussian
 * levels 1..count (chained: each level is read back for the next), or
 * count + 1 Laplacian bands (bands 0..count). */
static clik_status build_pyramid(clik_context *ctx, const clik_op *op, const clik_image *src,
                                 clik_image *out, int count, int bands, const char *what)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_base(ctx, src, "src", count, out, what);
    if (st == CLIK_OK && bands) {
        st = check_bands(ctx, out, count, src, src->type, what);
    } else if (st == CLIK_OK) {
        char name[96];
        snprintf(name, sizeof(name), "%s: level", what);
        st = check_levels(ctx, out, 1, count, src, src->type, name);
    }
    if (st != CLIK_OK)
        return st;
    return run_levels(ctx, op, src, 1, out, bands ? count + 1 : count, !bands, count, what);
}

clik_status clik_pyr_gaussian(clik_context *ctx, const clik_image *src, clik_image *levels,
                              int count)
{
    return build_pyramid(ctx, &gaussian_op, src, levels, count, 0, "clik_pyr_gaussian");
}

clik_status clik_pyr_laplacian(clik_context *ctx, const clik_image *src, clik_image *bands,
                               int count)
{
    return build_pyramid(ctx, &laplacian_op, src, bands, count, 1, "clik_pyr_laplacian");
}

clik_status clik_pyr_collapse(clik_context *ctx, const clik_image *bands, int count,
                              clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_base(ctx, dst, "dst", count, bands, "clik_pyr_collapse");
    if (st == CLIK_OK && bands[0].type == CLIK_S16 && dst->type != CLIK_U8)
        st = clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                        "clik_pyr_collapse: s16 bands rebuild u8 images, not %s",
                        clik_type_name(dst->type));
    if (st == CLIK_OK)
        st = check_bands(ctx, bands, count, dst, CLIK_U8, "clik_pyr_collapse");
    if (st != CLIK_OK)
        return st;
    return run_levels(ctx, &collapse_op, bands, count + 1, dst, 1, 0, count, "clik_pyr_collapse");
}

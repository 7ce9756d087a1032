/*
 * Pyramid family: pyrDown, pyrUp, Gaussian and Laplacian pyramids
 * (kernels/pyramid.cl, fallback_cpu/{scalar,neon}/pyramid.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_LEVELS 32 /* more than any image of CLIK_MAX_DIM has */

/* ---- sizes --------------------------------------------------------------------- */

void clik_pyr_level_size(int width, int height, int level, int *level_width, int *level_height)
{
    for (int i = 0; i < level && (width > 1 || height > 1); i++) {
        width = (width + 1) / 2;
        height = (height + 1) / 2;
    }
    if (level_width)
        *level_width = width;
    if (level_height)
        *level_height = height;
}

int clik_pyr_max_levels(int width, int height)
{
    int n = 0;
    while (width > 1 || height > 1) {
        width = (width + 1) / 2;
        height = (height + 1) / 2;
        n++;
    }
    return n;
}

/* ---- validation ------------------------------------------------------------------ */

static clik_status check_pixels(clik_context *ctx, const clik_image *img, const char *what)
{
    clik_status st = clik__check_image(ctx, img, what);
    if (st == CLIK_OK && img->type != CLIK_U8 && img->type != CLIK_F32)
        st = clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: needs u8 or f32 pixels, not %s",
                        what, clik_type_name(img->type));
    return st;
}

static clik_status check_like(clik_context *ctx, const clik_image *img, const clik_image *ref,
                              int width, int height, clik_type type, const char *what)
{
    clik_status st = clik__check_image(ctx, img, what);
    if (st != CLIK_OK)
        return st;
    if (img->type != type || img->channels != ref->channels)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: needs %d-channel %s, not %d-channel %s", what, ref->channels,
                          clik_type_name(type), img->channels, clik_type_name(img->type));
    if (img->width != width || img->height != height)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: is %dx%d, needs %dx%d", what,
                          img->width, img->height, width, height);
    return CLIK_OK;
}

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

static clik_status check_count(clik_context *ctx, const clik_image *src, int count,
                               const void *levels, const char *what)
{
    if (!levels)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: the level array is NULL", what);
    int most = clik_pyr_max_levels(src->width, src->height);
    if (count < 1 || count > most)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: %d levels asked, a %dx%d image has 1 to %d", what, count, src->width,
                          src->height, most);
    return CLIK_OK;
}

/* Band type of a Laplacian pyramid of pixels of type t. */
static int band_type_ok(clik_type pixels, clik_type band)
{
    return band == CLIK_F32 || (pixels == CLIK_U8 && band == CLIK_S16);
}

/* ---- OpenCL path ---------------------------------------------------------------------- */

static int elems(const clik_binding *b)
{
    return (int)(b->stride / clik_type_size(b->image.type));
}

static const char *cl_type(clik_type t)
{
    return t == CLIK_U8 ? "uchar" : t == CLIK_S16 ? "short" : "float";
}

/* Options of a pyramid program for pixels of type t (and bands of type band). */
static void pyr_options(char *out, size_t cap, clik_type t, int channels, clik_type band,
                        const char *extra)
{
    snprintf(out, cap, "-DT=%s -DT_IS_FLOAT=%d -DCH=%d -DBAND=%s %s", cl_type(t), t == CLIK_F32,
             channels, cl_type(band), extra);
}

/* u8 grey: pyr_down_rows (CPU devices: a band of rows per work-item) or
 * pyr_down_vec (GPUs: 8 outputs per work-item). */
static clik_status cl_down_u8(clik_context *ctx, const clik_binding *src, const clik_binding *dst,
                              int rows_kernel)
{
    char options[192];
    pyr_options(options, sizeof(options), CLIK_U8, 1, CLIK_U8,
                "-DTILE_W=1 -DTILE_H=1 -DDOWN_LOCAL=0 -DDOWN_U8=1");
    clik_kernel_entry *k;
    clik_status st =
        clik__kernel(ctx, "pyramid", options, rows_kernel ? "pyr_down_rows" : "pyr_down_vec", &k);
    if (st != CLIK_OK)
        return st;
    const int ss = elems(src), ds = elems(dst);
    const int sw = src->image.width, sh = src->image.height;
    const int dw = dst->image.width, dh = dst->image.height;
    if (!rows_kernel) {
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(dw), CLIK_A(dh));
        if (st != CLIK_OK)
            return st;
        size_t items[2] = {((size_t)dw + 7) / 8, (size_t)dh}, local[2] = {32, 8};
        return clik__launch(ctx, k, 2, items, local);
    }
    /* A few bands per compute unit. */
    long groups = (long)ctx->dev.compute_units * 4;
    const int rows = (int)clik__tune_int(ctx, "pyr_band_rows", (dh + groups - 1) / groups);
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh), CLIK_A(dst->mem),
                   CLIK_A(ds), CLIK_A(dw), CLIK_A(dh), CLIK_A(rows));
    if (st != CLIK_OK)
        return st;
    size_t global[1] = {(size_t)(dh + rows - 1) / (size_t)rows}, local[1] = {1};
    return clik__launch_exact(ctx, k, 1, global, local);
}

static clik_status cl_down(clik_context *ctx, const clik_binding *src, const clik_binding *dst)
{
    const int local_mem =
        clik__tune_flag(ctx, "pyr_local", ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU);
    /* u8 grey: the CPU row kernel; on GPUs the tiles in local memory where
     * it is on-chip (NVIDIA H200: 21 us against 25 us for 4K), else the
     * 8-wide kernel. */
    if (src->image.type == CLIK_U8 && src->image.channels == 1) {
        if (clik__tune_flag(ctx, "pyr_rows", ctx->dev.type == CLIK_DEVICE_CPU))
            return cl_down_u8(ctx, src, dst, 1);
        if (clik__tune_flag(ctx, "pyr_vec", !local_mem))
            return cl_down_u8(ctx, src, dst, 0);
    }
    int tw = local_mem ? 32 : 64, th = local_mem ? 8 : 4;
    size_t limit = ctx->dev.max_work_group_size;
    for (;;) {
        while ((size_t)(tw * th) > limit || (size_t)tw > ctx->dev.max_work_item_sizes[0] ||
               (size_t)th > ctx->dev.max_work_item_sizes[1])
            if (th > 1)
                th /= 2;
            else
                tw /= 2;
        char extra[96], options[192];
        snprintf(extra, sizeof(extra), "-DTILE_W=%d -DTILE_H=%d -DDOWN_LOCAL=%d", tw, th,
                 local_mem);
        pyr_options(options, sizeof(options), src->image.type, src->image.channels, src->image.type,
                    extra);
        clik_kernel_entry *k;
        clik_status st = clik__kernel(ctx, "pyramid", options, "pyr_down", &k);
        if (st != CLIK_OK)
            return st;
        if (k->max_work_group < (size_t)(tw * th)) {
            if (tw * th == 1)
                return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "pyr_down: no work-group fits");
            limit = k->max_work_group; /* rebuild with a tile the kernel accepts */
            continue;
        }
        const int ss = elems(src), ds = elems(dst);
        const int sw = src->image.width, sh = src->image.height;
        const int dw = dst->image.width, dh = dst->image.height;
        st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(dst->mem), CLIK_A(ds), CLIK_A(dw), CLIK_A(dh));
        if (st != CLIK_OK)
            return st;
        size_t local[2] = {(size_t)tw, (size_t)th};
        size_t global[2] = {((size_t)dw + tw - 1) / tw * tw, ((size_t)dh + th - 1) / th * th};
        return clik__launch_exact(ctx, k, 2, global, local);
    }
}

typedef enum up_mode { UP_PLAIN = 0, UP_SUB = 1, UP_ADD = 2 } up_mode;

/* pyrUp of coarse, then by mode: into out; out = other - up (band); or
 * out = other (band) + up. Pixels are coarse's type. */
static clik_status cl_up(clik_context *ctx, up_mode mode, const clik_binding *coarse,
                         const clik_binding *other, const clik_binding *out, clik_type band)
{
    char extra[32], options[192];
    snprintf(extra, sizeof(extra), "-DMODE=%d", (int)mode);
    pyr_options(options, sizeof(options), coarse->image.type, coarse->image.channels, band, extra);
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "pyramid", options, "pyr_up", &k);
    if (st != CLIK_OK)
        return st;
    const int cs = elems(coarse), sw = coarse->image.width, sh = coarse->image.height;
    const int os = elems(out), dw = out->image.width, dh = out->image.height;
    if (mode == UP_PLAIN) {
        st = CLIK_ARGS(ctx, k, CLIK_A(coarse->mem), CLIK_A(cs), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(out->mem), CLIK_A(os), CLIK_A(dw), CLIK_A(dh));
    } else {
        const int xs = elems(other);
        st = CLIK_ARGS(ctx, k, CLIK_A(coarse->mem), CLIK_A(cs), CLIK_A(sw), CLIK_A(sh),
                       CLIK_A(other->mem), CLIK_A(xs), CLIK_A(out->mem), CLIK_A(os), CLIK_A(dw),
                       CLIK_A(dh));
    }
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)sw, (size_t)sh}, local[2] = {32, 8};
    return clik__launch(ctx, k, 2, items, local);
}

/* Converts between pixels of type t and bands (to_band) or back. */
static clik_status cl_convert(clik_context *ctx, const clik_binding *from, const clik_binding *to,
                              int to_band, clik_type pixels, clik_type band)
{
    char options[192];
    pyr_options(options, sizeof(options), pixels, from->image.channels, band, "");
    clik_kernel_entry *k;
    clik_status st =
        clik__kernel(ctx, "pyramid", options, to_band ? "pyr_to_band" : "pyr_from_band", &k);
    if (st != CLIK_OK)
        return st;
    const int fs = elems(from), ts = elems(to), rows = from->image.height;
    const int row_elems = from->image.width * from->image.channels;
    st = CLIK_ARGS(ctx, k, CLIK_A(from->mem), CLIK_A(fs), CLIK_A(row_elems), CLIK_A(rows),
                   CLIK_A(to->mem), CLIK_A(ts));
    if (st != CLIK_OK)
        return st;
    size_t items[2] = {(size_t)row_elems, (size_t)rows}, local[2] = {64, 4};
    return clik__launch(ctx, k, 2, items, local);
}

typedef struct pyr_args {
    const clik_image *src;
    clik_image *dst;
    clik_image *levels; /* gaussian levels or Laplacian bands */
    const clik_image *bands;
    int count;
} pyr_args;

/* Binds a and b, runs body, unbinds both. */
static clik_status
with_two(clik_context *ctx, const clik_image *a, int access_a, const clik_image *b, int access_b,
         clik_status (*body)(clik_context *, const clik_binding *, const clik_binding *))
{
    clik_binding ba, bb;
    clik_status st = clik__bind(ctx, a, access_a, &ba);
    if (st != CLIK_OK)
        return st;
    st = clik__bind(ctx, b, access_b, &bb);
    if (st == CLIK_OK) {
        st = body(ctx, &ba, &bb);
        clik_status st2 = clik__unbind(ctx, &bb, st == CLIK_OK);
        if (st == CLIK_OK)
            st = st2;
    }
    clik__unbind(ctx, &ba, st == CLIK_OK);
    return st;
}

static clik_status up_body(clik_context *ctx, const clik_binding *src, const clik_binding *dst)
{
    return cl_up(ctx, UP_PLAIN, src, NULL, dst, src->image.type);
}

static clik_status down_opencl(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    return with_two(ctx, a->src, CLIK_READ, a->dst, CLIK_WRITE, cl_down);
}

static clik_status up_opencl(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    return with_two(ctx, a->src, CLIK_READ, a->dst, CLIK_WRITE, up_body);
}

/* Binds every level (written by one kernel, read by the next), then runs the
 * chain of pyr_down on the device. */
static clik_status gaussian_opencl(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    clik_binding b[MAX_LEVELS + 1];
    clik_status st = clik__bind(ctx, a->src, CLIK_READ, &b[0]);
    int bound = st == CLIK_OK;
    for (int i = 0; i < a->count && st == CLIK_OK; i++) {
        st = clik__bind(ctx, &a->levels[i], CLIK_WRITE | CLIK_KERNEL_RW, &b[i + 1]);
        bound += st == CLIK_OK;
    }
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cl_down(ctx, &b[i], &b[i + 1]);
    for (int i = bound - 1; i >= 0; i--) {
        clik_status st2 = clik__unbind(ctx, &b[i], st == CLIK_OK);
        if (st == CLIK_OK)
            st = st2;
    }
    return st;
}

/* Gaussian levels 1..count as device scratch images; g[0] is src's binding. */
static clik_status scratch_levels(clik_context *ctx, const clik_image *src, int count,
                                  clik_binding *g, int *made)
{
    clik_status st = CLIK_OK;
    *made = 0;
    for (int i = 1; i <= count && st == CLIK_OK; i++) {
        int w, h;
        clik_pyr_level_size(src->width, src->height, i, &w, &h);
        st = clik__bind_scratch(ctx, w, h, src->channels, src->type, &g[i]);
        *made += st == CLIK_OK;
    }
    return st;
}

static clik_status laplacian_opencl(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    const clik_type band = a->levels[0].type, pixels = a->src->type;
    clik_binding g[MAX_LEVELS + 1], out[MAX_LEVELS + 1];
    int made = 0, bound = 0;
    clik_status st = clik__bind(ctx, a->src, CLIK_READ, &g[0]);
    if (st != CLIK_OK)
        return st;
    st = scratch_levels(ctx, a->src, a->count, g, &made);
    for (int i = 0; i <= a->count && st == CLIK_OK; i++) {
        st = clik__bind(ctx, &a->levels[i], CLIK_WRITE, &out[i]);
        bound += st == CLIK_OK;
    }
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cl_down(ctx, &g[i], &g[i + 1]);
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cl_up(ctx, UP_SUB, &g[i + 1], &g[i], &out[i], band);
    if (st == CLIK_OK)
        st = cl_convert(ctx, &g[a->count], &out[a->count], 1, pixels, band);
    for (int i = 0; i < bound; i++) {
        clik_status st2 = clik__unbind(ctx, &out[i], st == CLIK_OK);
        if (st == CLIK_OK)
            st = st2;
    }
    for (int i = 1; i <= made; i++)
        clik__unbind(ctx, &g[i], 0);
    clik__unbind(ctx, &g[0], 0);
    return st;
}

static clik_status collapse_opencl(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    const clik_type band = a->bands[0].type, pixels = a->dst->type;
    clik_binding in[MAX_LEVELS + 1], g[MAX_LEVELS + 1], out;
    int bound = 0, made = 0;
    clik_status st = CLIK_OK;
    for (int i = 0; i <= a->count && st == CLIK_OK; i++) {
        st = clik__bind(ctx, &a->bands[i], CLIK_READ, &in[i]);
        bound += st == CLIK_OK;
    }
    /* Rebuilt levels 1..count on the device; level 0 straight into dst. */
    for (int i = 1; i <= a->count && st == CLIK_OK; i++) {
        st = clik__bind_scratch(ctx, a->bands[i].width, a->bands[i].height, a->bands[i].channels,
                                pixels, &g[i]);
        made += st == CLIK_OK;
    }
    int out_bound = 0;
    if (st == CLIK_OK) {
        st = clik__bind(ctx, a->dst, CLIK_WRITE, &out);
        out_bound = st == CLIK_OK;
    }
    if (st == CLIK_OK)
        st = cl_convert(ctx, &in[a->count], &g[a->count], 0, pixels, band);
    for (int i = a->count - 1; i >= 0 && st == CLIK_OK; i--)
        st = cl_up(ctx, UP_ADD, &g[i + 1], &in[i], i == 0 ? &out : &g[i], band);
    if (out_bound) {
        clik_status st2 = clik__unbind(ctx, &out, st == CLIK_OK);
        if (st == CLIK_OK)
            st = st2;
    }
    for (int i = 1; i <= made; i++)
        clik__unbind(ctx, &g[i], 0);
    for (int i = 0; i < bound; i++)
        clik__unbind(ctx, &in[i], 0);
    return st;
}

/* ---- CPU path ----------------------------------------------------------------------- */

static int down_cpu_body(const clik_image *src, clik_image *dst, void *user)
{
    ((const clik_pyramid_dsp *)user)->down(src, dst);
    return 0;
}

static int up_cpu_body(const clik_image *src, clik_image *dst, void *user)
{
    ((const clik_pyramid_dsp *)user)->up(src, dst);
    return 0;
}

/* Runs a pyramid dsp entry (down or up) from one image to another. */
static clik_status cpu_apply(clik_context *ctx, clik_cpu_body body, const clik_image *src,
                             clik_image *dst)
{
    return clik__cpu_apply(ctx, src, dst, body, &ctx->dsp.pyramid, "pyramid");
}

static clik_status down_cpu(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    return cpu_apply(ctx, down_cpu_body, a->src, a->dst);
}

static clik_status up_cpu(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    return cpu_apply(ctx, up_cpu_body, a->src, a->dst);
}

static clik_status gaussian_cpu(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    clik_status st = CLIK_OK;
    for (int i = 0; i < a->count && st == CLIK_OK; i++)
        st = cpu_apply(ctx, down_cpu_body, i == 0 ? a->src : &a->levels[i - 1], &a->levels[i]);
    return st;
}

static double element(const clik_image *img, int x, int y, int c)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case CLIK_U8: return ((const uint8_t *)row)[i];
    case CLIK_S16: return ((const int16_t *)row)[i];
    default: return ((const float *)row)[i];
    }
}

static void set_element(clik_image *img, int x, int y, int c, double v)
{
    char *row = (char *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case CLIK_U8: ((uint8_t *)row)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5); break;
    case CLIK_S16: ((int16_t *)row)[i] = (int16_t)v; break;
    default: ((float *)row)[i] = (float)v; break;
    }
}

/* out = a - b (sign -1), a + b (sign +1) or a (sign 0), element by element:
 * exact integers for u8 pyramids, single-precision float otherwise (as the
 * kernels compute them). */
static void combine(const clik_image *a, const clik_image *b, int sign, clik_image *out)
{
    int float_math = out->type == CLIK_F32 && (a->type == CLIK_F32 && b->type == CLIK_F32);
    for (int y = 0; y < out->height; y++)
        for (int x = 0; x < out->width; x++)
            for (int c = 0; c < out->channels; c++) {
                double v = element(a, x, y, c);
                if (sign != 0 && float_math) {
                    float fa = (float)v, fb = (float)element(b, x, y, c);
                    v = sign > 0 ? fa + fb : fa - fb;
                } else if (sign != 0) {
                    v += sign * element(b, x, y, c);
                }
                set_element(out, x, y, c, v);
            }
}

/* Host views of count + 1 images (views[i] of imgs[i]). */
static clik_status views_open(clik_context *ctx, const clik_image *imgs, int n, int access,
                              clik_image *views, int *opened)
{
    clik_status st = CLIK_OK;
    *opened = 0;
    for (int i = 0; i < n && st == CLIK_OK; i++) {
        st = clik__host_view(ctx, &imgs[i], access, &views[i]);
        *opened += st == CLIK_OK;
    }
    return st;
}

static clik_status views_close(clik_context *ctx, const clik_image *imgs, int n, int access,
                               clik_image *views, int ok)
{
    clik_status st = CLIK_OK;
    for (int i = 0; i < n; i++) {
        clik_status st2 = clik__host_view_done(ctx, &imgs[i], &views[i], access, ok);
        if (st == CLIK_OK)
            st = st2;
    }
    return st;
}

static clik_status laplacian_cpu(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    clik_image g[MAX_LEVELS + 1], band[MAX_LEVELS + 1], up = {0};
    memset(g, 0, sizeof(g));
    int opened = 0;
    clik_status st = clik__host_view(ctx, a->src, CLIK_READ, &g[0]);
    if (st != CLIK_OK)
        return st;
    st = views_open(ctx, a->levels, a->count + 1, CLIK_WRITE, band, &opened);
    for (int i = 1; i <= a->count && st == CLIK_OK; i++) {
        int w, h;
        clik_pyr_level_size(a->src->width, a->src->height, i, &w, &h);
        st = clik_image_alloc(&g[i], w, h, a->src->channels, a->src->type);
        if (st == CLIK_OK)
            ctx->dsp.pyramid.down(&g[i - 1], &g[i]);
    }
    for (int i = 0; i < a->count && st == CLIK_OK; i++) {
        st = clik_image_alloc(&up, g[i].width, g[i].height, g[i].channels, g[i].type);
        if (st == CLIK_OK) {
            ctx->dsp.pyramid.up(&g[i + 1], &up);
            combine(&g[i], &up, -1, &band[i]);
        }
        clik_image_free(&up);
    }
    if (st == CLIK_OK)
        combine(&g[a->count], &g[a->count], 0, &band[a->count]);
    for (int i = 1; i <= a->count; i++)
        clik_image_free(&g[i]);
    clik_status st2 = views_close(ctx, a->levels, opened, CLIK_WRITE, band, st == CLIK_OK);
    clik__host_view_done(ctx, a->src, &g[0], CLIK_READ, 0);
    if (st == CLIK_ERR_NO_MEMORY)
        clik__fail(ctx, st, "out of memory");
    return st != CLIK_OK ? st : st2;
}

static clik_status collapse_cpu(clik_context *ctx, void *p)
{
    pyr_args *a = p;
    clik_image band[MAX_LEVELS + 1], g[MAX_LEVELS + 1], up = {0}, out;
    memset(g, 0, sizeof(g));
    int opened = 0;
    clik_status st = views_open(ctx, a->bands, a->count + 1, CLIK_READ, band, &opened);
    if (st == CLIK_OK)
        st = clik__host_view(ctx, a->dst, CLIK_WRITE, &out);
    int out_open = st == CLIK_OK;
    const clik_type pixels = a->dst->type;
    for (int i = a->count; i >= 0 && st == CLIK_OK; i--) {
        if (i > 0)
            st = clik_image_alloc(&g[i], band[i].width, band[i].height, band[i].channels, pixels);
        else
            g[0] = out;
        if (st != CLIK_OK)
            break;
        if (i == a->count) {
            combine(&band[i], &band[i], 0, &g[i]);
            continue;
        }
        st = clik_image_alloc(&up, g[i].width, g[i].height, g[i].channels, pixels);
        if (st == CLIK_OK) {
            ctx->dsp.pyramid.up(&g[i + 1], &up);
            combine(&band[i], &up, +1, &g[i]);
        }
        clik_image_free(&up);
    }
    for (int i = 1; i <= a->count; i++)
        clik_image_free(&g[i]);
    clik_status st2 =
        out_open ? clik__host_view_done(ctx, a->dst, &out, CLIK_WRITE, st == CLIK_OK) : CLIK_OK;
    views_close(ctx, a->bands, opened, CLIK_READ, band, 0);
    if (st == CLIK_ERR_NO_MEMORY)
        clik__fail(ctx, st, "out of memory");
    return st != CLIK_OK ? st : st2;
}

/* ---- public entry points -------------------------------------------------------------- */

clik_status clik_pyr_down(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, src, "clik_pyr_down: src");
    if (st == CLIK_OK)
        st = check_like(ctx, dst, src, (src->width + 1) / 2, (src->height + 1) / 2, src->type,
                        "clik_pyr_down: dst");
    if (st == CLIK_OK)
        clik__same_image(src, dst, &st);
    if (st != CLIK_OK)
        return st == CLIK_ERR_INVALID_ARG
                   ? clik__fail(ctx, st, "clik_pyr_down: src and dst overlap")
                   : st;
    pyr_args a = {.src = src, .dst = dst};
    return clik__run(ctx, "pyrdown", down_opencl, down_cpu, &a);
}

clik_status clik_pyr_up(clik_context *ctx, const clik_image *src, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, src, "clik_pyr_up: src");
    if (st == CLIK_OK)
        st = check_pixels(ctx, dst, "clik_pyr_up: dst");
    if (st == CLIK_OK)
        st = check_like(ctx, dst, src, dst->width, dst->height, src->type, "clik_pyr_up: dst");
    if (st == CLIK_OK)
        st = check_up_size(ctx, src, dst, "clik_pyr_up: dst");
    if (st == CLIK_OK && clik__same_image(src, dst, &st) == 0 && st != CLIK_OK)
        return clik__fail(ctx, st, "clik_pyr_up: src and dst overlap");
    if (st != CLIK_OK)
        return st;
    pyr_args a = {.src = src, .dst = dst};
    return clik__run(ctx, "pyrup", up_opencl, up_cpu, &a);
}

/* imgs[i] must be level first + i of a width x height pyramid (i < n), of
 * type t and ref's channels; what names them in messages ("...: level"). */
static clik_status check_levels(clik_context *ctx, const clik_image *imgs, int first, int n,
                                const clik_image *ref, int width, int height, clik_type t,
                                const char *what)
{
    clik_status st = CLIK_OK;
    for (int i = 0; i < n && st == CLIK_OK; i++) {
        int w, h;
        char name[128];
        clik_pyr_level_size(width, height, first + i, &w, &h);
        snprintf(name, sizeof(name), "%s %d", what, first + i);
        st = check_like(ctx, &imgs[i], ref, w, h, t, name);
    }
    return st;
}

clik_status clik_pyr_gaussian(clik_context *ctx, const clik_image *src, clik_image *levels,
                              int count)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, src, "clik_pyr_gaussian: src");
    if (st == CLIK_OK)
        st = check_count(ctx, src, count, levels, "clik_pyr_gaussian");
    if (st == CLIK_OK)
        st = check_levels(ctx, levels, 1, count, src, src->width, src->height, src->type,
                          "clik_pyr_gaussian: level");
    if (st != CLIK_OK)
        return st;
    pyr_args a = {.src = src, .levels = levels, .count = count};
    return clik__run(ctx, "pyramid", gaussian_opencl, gaussian_cpu, &a);
}

/* Checks count + 1 band images of the sizes of the levels of width x height. */
static clik_status check_bands(clik_context *ctx, const clik_image *bands, int count,
                               const clik_image *ref, int width, int height, clik_type pixels,
                               const char *op)
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
    return check_levels(ctx, bands, 0, count + 1, ref, width, height, bands[0].type, what);
}

clik_status clik_pyr_laplacian(clik_context *ctx, const clik_image *src, clik_image *bands,
                               int count)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, src, "clik_pyr_laplacian: src");
    if (st == CLIK_OK)
        st = check_count(ctx, src, count, bands, "clik_pyr_laplacian");
    if (st == CLIK_OK)
        st = check_bands(ctx, bands, count, src, src->width, src->height, src->type,
                         "clik_pyr_laplacian");
    if (st != CLIK_OK)
        return st;
    pyr_args a = {.src = src, .levels = bands, .count = count};
    return clik__run(ctx, "laplacian", laplacian_opencl, laplacian_cpu, &a);
}

clik_status clik_pyr_collapse(clik_context *ctx, const clik_image *bands, int count,
                              clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_pixels(ctx, dst, "clik_pyr_collapse: dst");
    if (st == CLIK_OK)
        st = check_count(ctx, dst, count, bands, "clik_pyr_collapse");
    if (st == CLIK_OK && bands[0].type == CLIK_S16 && dst->type != CLIK_U8)
        st = clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                        "clik_pyr_collapse: s16 bands rebuild u8 images, not %s",
                        clik_type_name(dst->type));
    if (st == CLIK_OK)
        st = check_bands(ctx, bands, count, dst, dst->width, dst->height, CLIK_U8,
                         "clik_pyr_collapse");
    if (st != CLIK_OK)
        return st;
    pyr_args a = {.bands = bands, .dst = dst, .count = count};
    return clik__run(ctx, "collapse", collapse_opencl, collapse_cpu, &a);
}

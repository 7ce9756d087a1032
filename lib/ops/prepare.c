/*
 * Ahead-of-time compilation (clik_context_prepare): each listed operation
 * runs once, on small images of each listed format, so that the programs it
 * builds for them are in the context (and in the kernel cache) before the
 * application's first real call. Running the operations themselves, rather
 * than a list of programs kept beside them, builds exactly what their calls
 * build; an operation that does not take a format is passed over for it.
 *
 * In the background the operations run on a second context of the same
 * device, on a thread of its own (prepare_job.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "clik_lapar.h"
#include "clik_lapar_net.h"

/* The images of one run, freed together. */
typedef struct bag {
    clik_image im[8];
    int n;
} bag;

/* A host image of bag b (NULL when out of memory), filled with a ramp so
 * that the operations see varied values. */
static clik_image *bag_image(bag *b, int w, int h, int ch, clik_type t)
{
    if (b->n == (int)(sizeof(b->im) / sizeof(b->im[0])))
        return NULL;
    clik_image *im = &b->im[b->n];
    memset(im, 0, sizeof(*im));
    if (clik_image_alloc(im, w, h, ch, t) != CLIK_OK)
        return NULL;
    b->n++;
    unsigned char *row = im->data;
    for (int y = 0; y < h; y++, row += im->stride)
        for (size_t i = 0; i < (size_t)w * (size_t)ch; i++) {
            const int v = (int)((i * 7 + (size_t)y * 13) % 251);
            if (t == CLIK_F32)
                ((float *)row)[i] = (float)v;
            else if (t == CLIK_U8)
                row[i] = (unsigned char)v;
            else
                memset(row, 0, (size_t)w * (size_t)ch * clik_type_size(t));
        }
    return im;
}

/* Frees the last n images of b. */
static void bag_drop(bag *b, int n)
{
    for (; n > 0 && b->n > 0; n--)
        clik_image_free(&b->im[--b->n]);
}

static void bag_free(bag *b)
{
    for (int i = 0; i < b->n; i++)
        clik_image_free(&b->im[i]);
    b->n = 0;
}

/* The size of the source images: small, but above every op's minimum
 * (SSIM's 11 x 11 window, two pyramid levels). */
#define PW 48
#define PH 40

typedef clik_status (*prep_fn)(clik_context *ctx, clik_type t, int ch, bag *b);

#define SRC(b, t, ch) bag_image(b, PW, PH, ch, t)
#define NEED(p)                                                                                    \
    do {                                                                                           \
        if (!(p))                                                                                  \
            return CLIK_ERR_NO_MEMORY;                                                             \
    } while (0)

static clik_status p_hist_compute(clik_context *ctx, clik_type t, int ch, bag *b)
{
    uint32_t hist[256 * 4];
    clik_image *s = SRC(b, t, ch);
    NEED(s);
    return clik_hist_compute(ctx, s, hist);
}

static clik_status p_hist_equalize(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *d = SRC(b, t, ch);
    NEED(s && d);
    return clik_hist_equalize(ctx, s, d);
}

static clik_status p_hist_lut(clik_context *ctx, clik_type t, int ch, bag *b)
{
    uint8_t table[256];
    for (int i = 0; i < 256; i++)
        table[i] = (uint8_t)(255 - i);
    clik_image *s = SRC(b, t, ch), *d = SRC(b, t, ch);
    NEED(s && d);
    return clik_hist_lut(ctx, s, d, table, 1);
}

/* The luma of colour (3 or 4 channels, either order: the order is a kernel
 * argument, not a program). */
static clik_status p_hist_equalize_luma(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (ch == 1)
        return CLIK_ERR_UNSUPPORTED_FORMAT; /* grey is hist_equalize */
    clik_image *s = SRC(b, t, ch), *d = SRC(b, t, ch);
    NEED(s && d);
    return clik_hist_equalize_luma(ctx, s, d);
}

/* OpenCV's defaults (clip 40, 8x8 tiles); the grid and the clip are kernel
 * arguments, and every tile-histogram kernel (clahe_mode) is in the one
 * program of grey. */
static clik_status p_clahe(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *d = SRC(b, t, ch);
    NEED(s && d);
    return clik_clahe(ctx, s, d, 40.0, 8, 8);
}

static clik_status p_pyr_down(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *d = bag_image(b, (PW + 1) / 2, (PH + 1) / 2, ch, t);
    NEED(s && d);
    return clik_pyr_down(ctx, s, d);
}

static clik_status p_pyr_up(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *d = bag_image(b, 2 * PW, 2 * PH, ch, t);
    NEED(s && d);
    return clik_pyr_up(ctx, s, d);
}

/* Images of levels from .. to of the pyramid of a PW x PH source (level 0:
 * that size), into b; *first gets the first. */
static clik_status level_images(bag *b, int from, int to, int ch, clik_type t, clik_image **first)
{
    for (int i = from; i <= to; i++) {
        int w, h;
        clik_pyr_level_size(PW, PH, i, &w, &h);
        clik_image *im = bag_image(b, w, h, ch, t);
        NEED(im);
        if (i == from)
            *first = im;
    }
    return CLIK_OK;
}

static clik_status p_pyr_gaussian(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *lv = NULL;
    NEED(s);
    clik_status st = level_images(b, 1, 2, ch, t, &lv);
    return st == CLIK_OK ? clik_pyr_gaussian(ctx, s, lv, 2) : st;
}

static clik_status p_pyr_laplacian(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *bd = NULL;
    NEED(s);
    /* F32 bands: what both u8 and f32 sources can give. */
    clik_status st = level_images(b, 0, 2, ch, CLIK_F32, &bd);
    return st == CLIK_OK ? clik_pyr_laplacian(ctx, s, bd, 2) : st;
}

static clik_status p_pyr_collapse(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *bd = NULL;
    clik_status st = level_images(b, 0, 2, ch, CLIK_F32, &bd);
    clik_image *d = st == CLIK_OK ? SRC(b, t, ch) : NULL;
    if (st == CLIK_OK && !d)
        st = CLIK_ERR_NO_MEMORY;
    return st == CLIK_OK ? clik_pyr_collapse(ctx, bd, 2, d) : st;
}

static clik_status p_integral(clik_context *ctx, clik_type t, int ch, bag *b)
{
    /* Every pairing of sums and sums of squares that a source type takes
     * (each is a program of its own). */
    static const clik_type u8_sums[] = {CLIK_U32, CLIK_U64, CLIK_F64};
    static const clik_type u8_squares[] = {0, CLIK_U64, CLIK_F64};
    static const clik_type f32_sums[] = {CLIK_F32, CLIK_F64};
    static const clik_type f32_squares[] = {0, CLIK_F64};
    const int u8 = t == CLIK_U8;
    const clik_type *sums = u8 ? u8_sums : f32_sums, *squares = u8 ? u8_squares : f32_squares;
    const int nsums = u8 ? 3 : 2, nsquares = u8 ? 3 : 2;
    clik_image *s = SRC(b, t, ch);
    NEED(s);
    clik_status st = CLIK_OK;
    for (int i = 0; i < nsums && st == CLIK_OK; i++)
        for (int j = 0; j < nsquares && st == CLIK_OK; j++) {
            clik_image *sum = bag_image(b, PW + 1, PH + 1, ch, sums[i]);
            clik_image *sq = squares[j] ? bag_image(b, PW + 1, PH + 1, ch, squares[j]) : NULL;
            NEED(sum && (sq || !squares[j]));
            st = clik_integral(ctx, s, sum, sq);
            bag_drop(b, sq ? 2 : 1);
        }
    return st;
}

static clik_status p_resize(clik_context *ctx, clik_type t, int ch, bag *b)
{
    /* Each method enlarging by 2 and reducing by 2 and by 3 (bicubic-aa's
     * taps follow the scale). */
    static const int sizes[3][2] = {{2 * PW, 2 * PH}, {PW / 2, PH / 2}, {PW / 3, PH / 3}};
    clik_image *s = SRC(b, t, ch);
    NEED(s);
    clik_status st = CLIK_OK;
    for (int k = 0; k < 3 && st == CLIK_OK; k++) {
        clik_image *d = bag_image(b, sizes[k][0], sizes[k][1], ch, t);
        NEED(d);
        for (int m = CLIK_INTERP_NEAREST; m <= CLIK_INTERP_BICUBIC_AA && st == CLIK_OK; m++)
            st = clik_resize(ctx, s, d, (clik_interp)m);
    }
    /* Bicubic-aa by exactly 3 on both axes too (PH is no multiple of 3:
     * above, the rows' taps are those of 40 / 13). */
    clik_image *sq = bag_image(b, PW, PW, ch, t), *third = bag_image(b, PW / 3, PW / 3, ch, t);
    NEED(sq && third);
    return st == CLIK_OK ? clik_resize(ctx, sq, third, CLIK_INTERP_BICUBIC_AA) : st;
}

static clik_status p_gaussian_blur(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *s = SRC(b, t, ch), *d = SRC(b, t, ch);
    NEED(s && d);
    return clik_gaussian_blur(ctx, s, d, 7, 0.0);
}

static clik_status p_gray(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (ch == 1)
        return CLIK_ERR_UNSUPPORTED_FORMAT; /* grey is the output, never the input */
    clik_image *s = SRC(b, t, ch), *d = SRC(b, t, 1);
    NEED(s && d);
    return clik_gray(ctx, s, d);
}

static clik_status p_ssim(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *x = SRC(b, t, ch), *y = SRC(b, t, ch);
    clik_image *map =
        bag_image(b, PW - (CLIK_SSIM_WINDOW - 1), PH - (CLIK_SSIM_WINDOW - 1), 1, CLIK_F32);
    NEED(x && y && map);
    double mean;
    return clik_ssim(ctx, x, y, map, &mean);
}

static clik_status p_ssim_tiles(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *x = SRC(b, t, ch), *y = SRC(b, t, ch);
    clik_image *map = bag_image(b, PW / 8, PH / 8, 1, CLIK_F32);
    NEED(x && y && map);
    return clik_ssim_tiles(ctx, x, y, 8, map);
}

/* One scale of an operation that upscales its source s by scale. */
typedef clik_status (*scale_fn)(clik_context *ctx, clik_type t, int ch, bag *b, const clik_image *s,
                                int scale);

/* step at scales 2 to 4 on one source image. */
static clik_status at_each_scale(clik_context *ctx, clik_type t, int ch, bag *b, scale_fn step)
{
    clik_image *s = SRC(b, t, ch);
    NEED(s);
    clik_status st = CLIK_OK;
    for (int scale = 2; scale <= 4 && st == CLIK_OK; scale++)
        st = step(ctx, t, ch, b, s, scale);
    return st;
}

/* With and without the artifact map; colour in both orders (the luma's
 * order is a build option of the fusion program). */
static clik_status upscale_fusion_at(clik_context *ctx, clik_type t, int ch, bag *b,
                                     const clik_image *s, int scale)
{
    clik_image *d = bag_image(b, scale * PW, scale * PH, ch, t);
    clik_image *map = bag_image(b, scale * PW, scale * PH, 1, CLIK_U8);
    NEED(d && map);
    clik_image src = *s, dst = *d;
    clik_status st = CLIK_OK;
    for (int bgr = 0; bgr <= (ch >= 3) && st == CLIK_OK; bgr++) {
        src.order = dst.order = bgr ? CLIK_ORDER_BGR : s->order;
        st = clik_upscale_fusion(ctx, &src, &dst, NULL, NULL);
        if (st == CLIK_OK)
            st = clik_upscale_fusion(ctx, &src, &dst, NULL, map);
    }
    bag_drop(b, 2);
    return st;
}

static clik_status p_upscale_fusion(clik_context *ctx, clik_type t, int ch, bag *b)
{
    return at_each_scale(ctx, t, ch, b, upscale_fusion_at);
}

static clik_status p_flow_tvl1(clik_context *ctx, clik_type t, int ch, bag *b)
{
    clik_image *i0 = SRC(b, t, ch), *i1 = SRC(b, t, ch), *f = bag_image(b, PW, PH, 2, CLIK_F32);
    NEED(i0 && i1 && f);
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.iterations = 2;
    o.warps = 1;
    return clik_flow_tvl1(ctx, i0, i1, f, &o);
}

static clik_status p_flow_warp(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (t != CLIK_U8)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    clik_image *s = SRC(b, t, ch), *f = bag_image(b, PW, PH, 2, CLIK_F32), *d = SRC(b, t, ch);
    NEED(s && f && d);
    return clik_flow_warp(ctx, s, f, d);
}

static clik_status p_flow_warp_average(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (t != CLIK_U8)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    clik_image *r = SRC(b, t, ch), *s = SRC(b, t, ch), *f = bag_image(b, PW, PH, 2, CLIK_F32);
    NEED(r && s && f);
    return clik_flow_warp_average(ctx, r, s, f, r);
}

static clik_status lapar_upsample_at(clik_context *ctx, clik_type t, int ch, bag *b,
                                     const clik_image *s, int scale)
{
    (void)t;
    clik_image *d = bag_image(b, scale * PW, scale * PH, ch, CLIK_F32);
    NEED(d);
    return clik_lapar_upsample(ctx, s, scale, d);
}

static clik_status p_lapar_upsample(clik_context *ctx, clik_type t, int ch, bag *b)
{
    return at_each_scale(ctx, t, ch, b, lapar_upsample_at);
}

static clik_status lapar_filter_at(clik_context *ctx, clik_type t, int ch, bag *b,
                                   const clik_image *s, int scale)
{
    static float atoms[CLIK_LAPAR_ATOMS * 25];
    clik_lapar_dict dict;
    clik_status st = clik_lapar_dict_default(atoms);
    if (st != CLIK_OK)
        return st;
    memset(&dict, 0, sizeof(dict));
    dict.atoms = CLIK_LAPAR_ATOMS;
    dict.data = atoms;
    clik_image *phi = bag_image(b, scale * PW, CLIK_LAPAR_ATOMS * scale * PH, 1, CLIK_F32);
    clik_image *d = bag_image(b, scale * PW, scale * PH, ch, t);
    NEED(phi && d);
    return clik_lapar_filter(ctx, s, phi, &dict, scale, d);
}

static clik_status p_lapar_filter(clik_context *ctx, clik_type t, int ch, bag *b)
{
    return at_each_scale(ctx, t, ch, b, lapar_filter_at);
}

static clik_status upscale_lapar_at(clik_context *ctx, clik_type t, int ch, bag *b,
                                    const clik_image *s, int scale)
{
    clik_image *d = bag_image(b, scale * PW, scale * PH, ch, t);
    NEED(d);
    return clik_upscale_lapar(ctx, s, d, scale, NULL);
}

static clik_status p_upscale_lapar(clik_context *ctx, clik_type t, int ch, bag *b)
{
    return at_each_scale(ctx, t, ch, b, upscale_lapar_at);
}

static clik_status p_lapar_net_run(clik_context *ctx, clik_type t, int ch, bag *b)
{
    /* The built-in LAPAR-A networks (the tool's lapar-a). */
    clik_image *s = SRC(b, t, ch);
    NEED(s);
    clik_status st = CLIK_OK;
    for (int scale = 2; scale <= 4 && st == CLIK_OK; scale += 2) {
        if (!clik_lapar_net_builtin_available("lapar-a", scale))
            continue;
        clik_lapar_net *net = NULL;
        st = clik_lapar_net_builtin(ctx, "lapar-a", scale, &net);
        clik_image *d = st == CLIK_OK ? bag_image(b, scale * PW, scale * PH, ch, t) : NULL;
        if (st == CLIK_OK && !d)
            st = CLIK_ERR_NO_MEMORY;
        if (st == CLIK_OK)
            st = clik_lapar_net_run(ctx, net, s, d, NULL);
        clik_lapar_net_free(net);
    }
    return st;
}

/* Camera frames: a frame of each 4:2:0 layout in one host allocation, as
 * OpenCV stores it (u8 only; the layout is a kernel argument of one
 * program, but each runs, at no cost once built). */
static const clik_yuv_format yuv_formats[] = {CLIK_YUV_NV12, CLIK_YUV_NV21, CLIK_YUV_I420};

static clik_status yuv_frame(bag *b, clik_yuv_format format, clik_yuv_image *f)
{
    clik_image *im = bag_image(b, PW, PH * 3 / 2, 1, CLIK_U8);
    NEED(im);
    return clik_yuv_wrap(f, format, PW, PH, im->data, im->stride);
}

/* Converts between frames of each layout and s (RGB(A) or grey). */
static clik_status yuv_each_layout(clik_context *ctx, clik_image *s, int to_rgb, bag *b)
{
    clik_status st = CLIK_OK;
    for (size_t i = 0; i < sizeof(yuv_formats) / sizeof(yuv_formats[0]) && st == CLIK_OK; i++) {
        clik_yuv_image f;
        st = yuv_frame(b, yuv_formats[i], &f);
        if (st == CLIK_OK)
            st = to_rgb ? clik_yuv_to_rgb(ctx, &f, s, CLIK_YUV_BT601)
                        : clik_rgb_to_yuv(ctx, s, &f, CLIK_YUV_BT601);
        bag_drop(b, 1);
    }
    return st;
}

static clik_status p_yuv_to_rgb(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (t != CLIK_U8 || ch == 2)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    clik_image *d = SRC(b, t, ch);
    NEED(d);
    return yuv_each_layout(ctx, d, 1, b);
}

static clik_status p_rgb_to_yuv(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (t != CLIK_U8 || ch < 3)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    clik_image *s = SRC(b, t, ch);
    NEED(s);
    return yuv_each_layout(ctx, s, 0, b);
}

/* A frame's planes through clik_resize: the luma with 1 channel, the
 * chroma of NV12 and NV21 with 2 (I420's with 1), each as p_resize runs
 * them. Frames are not a channel count: with 1 in the list. */
static clik_status p_yuv_resize(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (t != CLIK_U8 || ch != 1)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    clik_status st = p_resize(ctx, t, 1, b);
    bag_free(b);
    return st == CLIK_OK ? p_resize(ctx, t, 2, b) : st;
}

/* Frames of each layout by 2 to 4 (the luma by the model, the chroma by
 * bicubic resize); with 1 in the list, as p_yuv_resize. */
static clik_status p_yuv_upscale_lapar(clik_context *ctx, clik_type t, int ch, bag *b)
{
    if (t != CLIK_U8 || ch != 1)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    clik_status st = CLIK_OK;
    for (size_t i = 0; i < sizeof(yuv_formats) / sizeof(yuv_formats[0]) && st == CLIK_OK; i++)
        for (int scale = 2; scale <= 4 && st == CLIK_OK; scale++) {
            clik_yuv_image f, g;
            clik_image *big = bag_image(b, scale * PW, scale * PH * 3 / 2, 1, CLIK_U8);
            NEED(big);
            st = yuv_frame(b, yuv_formats[i], &f);
            if (st == CLIK_OK)
                st = clik_yuv_wrap(&g, yuv_formats[i], scale * PW, scale * PH, big->data,
                                   big->stride);
            if (st == CLIK_OK)
                st = clik_yuv_upscale_lapar(ctx, &f, &g, scale, NULL);
            bag_free(b);
        }
    return st;
}

/* Every operation that builds programs, by its name. */
static const struct {
    const char *name;
    prep_fn run;
} ops[] = {
    {"hist_compute", p_hist_compute},
    {"hist_equalize", p_hist_equalize},
    {"hist_lut", p_hist_lut},
    {"hist_equalize_luma", p_hist_equalize_luma},
    {"clahe", p_clahe},
    {"pyr_down", p_pyr_down},
    {"pyr_up", p_pyr_up},
    {"pyr_gaussian", p_pyr_gaussian},
    {"pyr_laplacian", p_pyr_laplacian},
    {"pyr_collapse", p_pyr_collapse},
    {"integral", p_integral},
    {"resize", p_resize},
    {"gaussian_blur", p_gaussian_blur},
    {"gray", p_gray},
    {"ssim", p_ssim},
    {"ssim_tiles", p_ssim_tiles},
    {"upscale_fusion", p_upscale_fusion},
    {"flow_tvl1", p_flow_tvl1},
    {"flow_warp", p_flow_warp},
    {"flow_warp_average", p_flow_warp_average},
    {"lapar_upsample", p_lapar_upsample},
    {"lapar_filter", p_lapar_filter},
    {"upscale_lapar", p_upscale_lapar},
    {"lapar_net_run", p_lapar_net_run},
    {"yuv_to_rgb", p_yuv_to_rgb},
    {"rgb_to_yuv", p_rgb_to_yuv},
    {"yuv_resize", p_yuv_resize},
    {"yuv_upscale_lapar", p_yuv_upscale_lapar},
};
#define NOPS (int)(sizeof(ops) / sizeof(ops[0]))

const char *clik_prepare_op_name(int index)
{
    return index >= 0 && index < NOPS ? ops[index].name : NULL;
}

void clik_prepare_options_init(clik_prepare_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof(*opt));
}

/* The operation named by the len bytes at name, or -1. */
static int find_op(const char *name, size_t len)
{
    for (int i = 0; i < NOPS; i++)
        if (strlen(ops[i].name) == len && memcmp(ops[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Marks in use[] the operations of the comma-separated list (NULL, "" or
 * "all": every one); an unknown name fails with a message naming it. */
static clik_status parse_ops(clik_context *ctx, const char *list, unsigned char *use)
{
    if (!list || !*list || strcmp(list, "all") == 0) {
        memset(use, 1, NOPS);
        return CLIK_OK;
    }
    memset(use, 0, NOPS);
    for (const char *p = list;;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        const int i = find_op(p, len);
        if (i < 0)
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              "clik_context_prepare: no operation '%.*s' builds programs (see "
                              "clik_prepare_op_name)",
                              (int)(len > 64 ? 64 : len), p);
        use[i] = 1;
        if (!end)
            break;
        p = end + 1;
    }
    return CLIK_OK;
}

/* The formats to prepare: types u8 and f32, channels 1..4. */
static clik_status check_formats(clik_context *ctx, const clik_prepare_options *o)
{
    const unsigned types = (1u << CLIK_U8) | (1u << CLIK_F32);
    if (o->types & ~types)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_context_prepare: types takes bits (1 << CLIK_U8) and (1 << "
                          "CLIK_F32) only (0x%x)",
                          o->types);
    if (o->channels & ~0x1eu)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_context_prepare: channels takes bits (1 << 1) to (1 << 4) only "
                          "(0x%x)",
                          o->channels);
    return CLIK_OK;
}

/* Runs the marked operations on ctx (strict: a fall back to the CPU is an
 * answer, not a success). A format an operation does not take, or one the
 * device cannot run by design, is passed over. */
static clik_status run_ops(clik_context *ctx, const unsigned char *use, unsigned types,
                           unsigned channels)
{
    const int strict = ctx->strict;
    ctx->strict = 1;
    clik_status st = CLIK_OK;
    for (int i = 0; i < NOPS && st == CLIK_OK; i++) {
        if (!use[i])
            continue;
        for (int t = CLIK_U8; t <= CLIK_F32 && st == CLIK_OK; t++) {
            if (!(types & (1u << t)))
                continue;
            for (int ch = 1; ch <= 4 && st == CLIK_OK; ch++) {
                if (!(channels & (1u << ch)))
                    continue;
                bag b = {0};
                st = ops[i].run(ctx, (clik_type)t, ch, &b);
                bag_free(&b);
                if (st == CLIK_ERR_UNSUPPORTED_FORMAT ||
                    (st == CLIK_ERR_FALLBACK && ctx->fallback_cause == CLIK_ERR_DEVICE_LIMITS))
                    st = CLIK_OK;
                else if (st != CLIK_OK && st != CLIK_ERR_NO_MEMORY) {
                    char keep[512];
                    snprintf(keep, sizeof(keep), "%s", clik_context_message(ctx));
                    st = clik__fail(ctx, st == CLIK_ERR_FALLBACK ? ctx->fallback_cause : st,
                                    "clik_context_prepare: %s on %s with %d channel%s: %s",
                                    ops[i].name, clik_type_name((clik_type)t), ch,
                                    ch == 1 ? "" : "s", keep);
                }
            }
        }
    }
    ctx->strict = strict;
    return st;
}

/* The operations of a background job and their formats (run_job). */
typedef struct job_ops {
    unsigned char use[NOPS];
    unsigned types, channels;
} job_ops;

static clik_status run_job(clik_context *ctx, void *user)
{
    const job_ops *j = user;
    return run_ops(ctx, j->use, j->types, j->channels);
}

clik_status clik_context_prepare(clik_context *ctx, const clik_prepare_options *opt)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_prepare_options defaults;
    if (!opt) {
        clik_prepare_options_init(&defaults);
        opt = &defaults;
    }
    unsigned char use[NOPS];
    clik_status st = parse_ops(ctx, opt->ops, use);
    if (st == CLIK_OK)
        st = check_formats(ctx, opt);
    if (st != CLIK_OK || !ctx->has_device)
        return st; /* without a device there is nothing to compile */
    const unsigned types = opt->types ? opt->types : 1u << CLIK_U8;
    const unsigned channels = opt->channels ? opt->channels : (1u << 1) | (1u << 4);
    if (ctx->prepare) {
        st = clik_context_prepare_wait(ctx);
        if (st != CLIK_OK)
            return st;
    }
    if (!opt->background || !ctx->cache_dir)
        return run_ops(ctx, use, types, channels);

    job_ops *j = malloc(sizeof(*j));
    if (!j)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    memcpy(j->use, use, sizeof(use));
    j->types = types;
    j->channels = channels;
    return clik__prepare_start(ctx, run_job, j);
}

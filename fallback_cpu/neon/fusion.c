/*
 * Fusion upscaler, NEON: the steps of clik_upscale_fusion's definition
 * through the NEON entries of the other families, with the two steps of its
 * own here.
 *
 *   IMG2 = clik__resize_neon(src, bicubic)        into a scratch image
 *   G2   = clik__gray_neon(IMG2)
 *   G1   = clik__resize_neon(clik__gray_neon(src), nearest): the luma of the
 *          nearest upscale is the nearest upscale of the luma, s^2 times
 *          fewer pixels to convert
 *   tile SSIM = clik__ssim_tiles_neon(G1, G2)
 *   artifact  = t * |G1 - G2| / 255          (here, 16 pixels a step)
 *   B = clik__blur_neon(artifact), in place
 *   dst = B > threshold ? IMG1 : IMG2, map    (here, 16 pixels a step)
 *
 * IMG1 is never stored whole: each source row is expanded once into a row
 * buffer (clik__resize_neon, nearest, of a one-row image) and serves the s
 * output rows that repeat it. dst and the map are written last, so that a
 * failure (no memory) leaves them untouched.
 *
 * The artifact and the threshold take the same float operations as the
 * scalar oracle; the other steps are those of their families.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

/* A packed host image over caller-owned memory, u8 or f32. */
static clik_image packed(int width, int height, int channels, clik_type type, void *data)
{
    const size_t row = (size_t)width * (size_t)channels * (type == CLIK_F32 ? sizeof(float) : 1);
    const clik_image img = {width, height, channels, type, row, data, NULL, 0, CLIK_ORDER_RGB};
    return img;
}

/* One output row of the artifact: t[x] * |g1[x] - g2[x]| / 255. */
static void artifact_row(const uint8_t *g1, const uint8_t *g2, const float *t, float *out, int w)
{
    const float32x4_t k255 = vdupq_n_f32(255.0f);
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        const uint8x16_t d = vabdq_u8(vld1q_u8(g1 + x), vld1q_u8(g2 + x));
        const uint16x8_t lo = vmovl_u8(vget_low_u8(d)), hi = vmovl_u8(vget_high_u8(d));
        const uint32x4_t q[4] = {vmovl_u16(vget_low_u16(lo)), vmovl_u16(vget_high_u16(lo)),
                                 vmovl_u16(vget_low_u16(hi)), vmovl_u16(vget_high_u16(hi))};
        for (int i = 0; i < 4; i++) {
            const float32x4_t prod = vmulq_f32(vld1q_f32(t + x + 4 * i), vcvtq_f32_u32(q[i]));
            vst1q_f32(out + x + 4 * i, div4(prod, k255));
        }
    }
    for (; x < w; x++) {
        const int d = g1[x] > g2[x] ? g1[x] - g2[x] : g2[x] - g1[x];
        out[x] = t[x] * (float)d / 255.0f;
    }
}

/* One output row of dst and the map: where b > threshold the pixel of
 * near (IMG1), else that of cubic (IMG2). map may be NULL. */
static void select_row(const float *b, float threshold, const uint8_t *near, const uint8_t *cubic,
                       uint8_t *out, uint8_t *map, int w)
{
    const float32x4_t thr = vdupq_n_f32(threshold);
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        uint32x4_t m[4];
        for (int i = 0; i < 4; i++) {
            const size_t o = ((size_t)x + 4 * (size_t)i) * 4;
            m[i] = vcgtq_f32(vld1q_f32(b + x + 4 * i), thr);
            const uint32x4_t p1 = vreinterpretq_u32_u8(vld1q_u8(near + o));
            const uint32x4_t p2 = vreinterpretq_u32_u8(vld1q_u8(cubic + o));
            vst1q_u8(out + o, vreinterpretq_u8_u32(vbslq_u32(m[i], p1, p2)));
        }
        if (map) {
            const uint16x8_t lo = vcombine_u16(vmovn_u32(m[0]), vmovn_u32(m[1]));
            const uint16x8_t hi = vcombine_u16(vmovn_u32(m[2]), vmovn_u32(m[3]));
            vst1q_u8(map + x, vcombine_u8(vmovn_u16(lo), vmovn_u16(hi)));
        }
    }
    for (; x < w; x++) {
        const int take1 = b[x] > threshold;
        memcpy(out + (size_t)x * 4, (take1 ? near : cubic) + (size_t)x * 4, 4);
        if (map)
            map[x] = take1 ? 255 : 0;
    }
}

/* The images of one fusion, shared by the bands of its two row passes. */
typedef struct fusion_job {
    const clik_image *src;
    clik_image *dst, *artifact_map;
    const clik_fusion_plan *plan;
    const uint8_t *g1, *g2, *img2;
    const float *tiles;
    float *art;
    int w, h, s, tw;
} fusion_job;

/* The artifact measure of the rows of tile rows [ty0, ty1). */
static int artifact_rows(void *user, int ty0, int ty1)
{
    const fusion_job *j = user;
    const int w = j->w, h = j->h, tile = j->plan->opt.tile;
    float *trow = malloc((size_t)w * sizeof(float));
    if (!trow)
        return -1;
    for (int ty = ty0; ty < ty1; ty++) {
        /* The SSIM of each column's tile in this band of rows. */
        for (int x = 0; x < w; x++)
            trow[x] = j->tiles[(size_t)ty * j->tw + x / tile];
        const int y1 = (ty + 1) * tile < h ? (ty + 1) * tile : h;
        for (int y = ty * tile; y < y1; y++)
            artifact_row(j->g1 + (size_t)y * w, j->g2 + (size_t)y * w, trow, j->art + (size_t)y * w,
                         w);
    }
    free(trow);
    return 0;
}

/* The output rows of source rows [sy0, sy1). */
static int select_rows(void *user, int sy0, int sy1)
{
    const fusion_job *j = user;
    const clik_image *src = j->src;
    const int w = j->w, s = j->s;
    uint8_t *near = malloc((size_t)w * 4);
    if (!near)
        return -1;
    for (int sy = sy0; sy < sy1; sy++) {
        clik_image in_row = *src, near_row = packed(w, 1, 4, CLIK_U8, near);
        in_row.height = 1;
        in_row.data = (uint8_t *)src->data + (size_t)sy * src->stride;
        clik__resize_neon(&in_row, &near_row, CLIK_INTERP_NEAREST, NULL);
        for (int y = sy * s; y < (sy + 1) * s; y++)
            select_row(j->art + (size_t)y * w, j->plan->opt.threshold, near,
                       j->img2 + (size_t)y * w * 4,
                       (uint8_t *)j->dst->data + (size_t)y * j->dst->stride,
                       j->artifact_map
                           ? (uint8_t *)j->artifact_map->data + (size_t)y * j->artifact_map->stride
                           : NULL,
                       w);
    }
    free(near);
    return 0;
}

static int fusion(const clik_image *src, clik_image *dst, const clik_fusion_plan *plan,
                  clik_image *artifact_map)
{
    const clik_fusion_options *opt = &plan->opt;
    const int s = dst->width / src->width, w = dst->width, h = dst->height;
    const int tile = opt->tile, tw = (w + tile - 1) / tile, th = (h + tile - 1) / tile;
    const size_t n = (size_t)w * (size_t)h, nt = (size_t)tw * (size_t)th;
    /* The buffers in one block: the floats (art, tiles), then the bytes
     * (img2, g1, g2, gs). */
    float *art =
        malloc((n + nt) * sizeof(float) + n * 6 + (size_t)src->width * (size_t)src->height);
    if (!art)
        return -1;
    float *tiles = art + n;
    uint8_t *img2 = (uint8_t *)(tiles + nt), *g1 = img2 + n * 4, *g2 = g1 + n, *gs = g2 + n;
    fusion_job j = {src, dst, artifact_map, plan, g1, g2, img2, tiles, art, w, h, s, tw};
    clik_image i2 = packed(w, h, 4, CLIK_U8, img2), G1 = packed(w, h, 1, CLIK_U8, g1);
    clik_image G2 = packed(w, h, 1, CLIK_U8, g2), A = packed(w, h, 1, CLIK_F32, art);
    clik_image Gs = packed(src->width, src->height, 1, CLIK_U8, gs);
    clik_image T = packed(tw, th, 1, CLIK_F32, tiles);
    i2.order = src->order; /* the luma weights its colours */
    clik__resize_neon(src, &i2, CLIK_INTERP_BICUBIC, NULL);
    clik__gray_neon(&i2, &G2);
    clik__gray_neon(src, &Gs);
    clik__resize_neon(&Gs, &G1, CLIK_INTERP_NEAREST, NULL);
    clik__ssim_tiles_neon(&G1, &G2, tile, &T);
    const int ok = clik__cpu_rows(th, (size_t)w * (size_t)tile * 8, artifact_rows, &j) == 0 &&
                   clik__blur_neon(&A, &A, plan->blur, opt->blur_ksize) == 0 &&
                   clik__cpu_rows(src->height, (size_t)w * (size_t)s * 8, select_rows, &j) == 0;
    free(art);
    return ok ? 0 : -1;
}

void clik__fusion_dsp_init_neon(clik_fusion_dsp *dsp)
{
    dsp->fusion = fusion;
}

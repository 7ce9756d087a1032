/*
 * YUV 4:2:0 family, NEON: clik_yuv_to_rgb and clik_rgb_to_yuv in the
 * oracle's 20-bit fixed point (scalar/yuv.c), byte for byte. A step takes
 * 16 pixels of both rows of a block row: 8 U and 8 V (VLD2 from an
 * interleaved NV12/NV21 plane, VLD1 from I420's planes), whose chroma terms
 * are formed once in 32-bit lanes and duplicated to their two columns by a
 * zip; Y's term is max(0, Y - 16) by a saturating subtract, widened and
 * scaled. Results are shifted by 20 and narrowed with saturation (negative
 * sums give 0, as in the oracle). The pixels past the last whole step go
 * one by one (yuv_px.h). Block rows are split among the context's threads.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "cpu.h"
#include "neon.h"
#include "yuv_px.h"

/* 16 lanes of 32-bit sums s[0..3]: s >> 20, saturated to 0..255. */
CLIK_INLINE uint8x16_t narrow20(const int32x4_t *s)
{
    const uint16x8_t lo =
        vcombine_u16(vqmovun_s32(vshrq_n_s32(s[0], 20)), vqmovun_s32(vshrq_n_s32(s[1], 20)));
    const uint16x8_t hi =
        vcombine_u16(vqmovun_s32(vshrq_n_s32(s[2], 20)), vqmovun_s32(vshrq_n_s32(s[3], 20)));
    return vcombine_u8(vqmovn_u16(lo), vqmovn_u16(hi));
}

/* 8 lanes of 32-bit sums: s >> 20, saturated to 0..255. */
CLIK_INLINE uint8x8_t narrow20_8(int32x4_t a, int32x4_t b)
{
    return vqmovn_u16(
        vcombine_u16(vqmovun_s32(vshrq_n_s32(a, 20)), vqmovun_s32(vshrq_n_s32(b, 20))));
}

/* The 16 lanes of v as 32-bit integers. */
CLIK_INLINE void widen16(uint8x16_t v, int32x4_t *out)
{
    const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_u8(vget_high_u8(v));
    out[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)));
    out[1] = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(lo)));
    out[2] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)));
    out[3] = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(hi)));
}

/* The 8 lanes of v as 32-bit integers. */
CLIK_INLINE void widen8(uint8x8_t v, int32x4_t *out)
{
    const uint16x8_t w = vmovl_u8(v);
    out[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(w)));
    out[1] = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(w)));
}

/* 8 chroma samples of a block row from x / 2 on: U and V. */
CLIK_INLINE void load_chroma(const uint8_t *urow, const uint8_t *vrow, int step, int cx,
                             uint8x8_t *u, uint8x8_t *v)
{
    if (step == 1) {
        *u = vld1_u8(urow + cx);
        *v = vld1_u8(vrow + cx);
        return;
    }
    const int u_first = urow < vrow;
    const uint8x8x2_t c = vld2_u8((u_first ? urow : vrow) + 2 * cx);
    *u = u_first ? c.val[0] : c.val[1];
    *v = u_first ? c.val[1] : c.val[0];
}

/* The 16 pixel lanes of a term t of 8 chroma samples (t[0], t[1]): each
 * sample twice. */
CLIK_INLINE void spread(const int32x4_t *t, int32x4_t *out)
{
    const int32x4x2_t a = vzipq_s32(t[0], t[0]), b = vzipq_s32(t[1], t[1]);
    out[0] = a.val[0];
    out[1] = a.val[1];
    out[2] = b.val[0];
    out[3] = b.val[1];
}

typedef struct yuv_job {
    const clik_yuv_planes *planes;
    const clik_image *rgb;
    const clik_yuv_coeffs *k;
} yuv_job;

static int to_rgb_rows(void *user, int b0, int b1)
{
    const yuv_job *j = user;
    const clik_yuv_planes *s = j->planes;
    const clik_yuv_coeffs *k = j->k;
    const clik_image *dst = j->rgb;
    const int ch = dst->channels, bgr = dst->order == CLIK_ORDER_BGR, red = bgr ? 2 : 0;
    const int32x4_t half = vdupq_n_s32(1 << 19);
    const uint8x16_t yoff = vdupq_n_u8((uint8_t)k->y_off), alpha = vdupq_n_u8(255);
    for (int by = b0; by < b1; by++) {
        const uint8_t *urow = s->u + (size_t)by * s->u_stride;
        const uint8_t *vrow = s->v + (size_t)by * s->v_stride;
        if (ch == 1) {
            for (int dy = 0; dy < 2; dy++)
                memcpy((uint8_t *)dst->data + (size_t)(2 * by + dy) * dst->stride,
                       s->y + (size_t)(2 * by + dy) * s->y_stride, (size_t)s->width);
            continue;
        }
        int x = 0;
        for (; x + 16 <= s->width; x += 16) {
            uint8x8_t u8, v8;
            load_chroma(urow, vrow, s->step, x / 2, &u8, &v8);
            const int16x8_t du = vreinterpretq_s16_u16(vsubl_u8(u8, vdup_n_u8(128)));
            const int16x8_t dv = vreinterpretq_s16_u16(vsubl_u8(v8, vdup_n_u8(128)));
            int32x4_t rt[2], gt[2], bt[2];
            for (int h = 0; h < 2; h++) {
                const int32x4_t u32 = vmovl_s16(h ? vget_high_s16(du) : vget_low_s16(du));
                const int32x4_t v32 = vmovl_s16(h ? vget_high_s16(dv) : vget_low_s16(dv));
                rt[h] = vmlaq_n_s32(half, v32, k->cvr);
                gt[h] = vmlaq_n_s32(vmlaq_n_s32(half, v32, k->cvg), u32, k->cug);
                bt[h] = vmlaq_n_s32(half, u32, k->cub);
            }
            int32x4_t r4[4], g4[4], b4[4];
            spread(rt, r4);
            spread(gt, g4);
            spread(bt, b4);
            for (int dy = 0; dy < 2; dy++) {
                const int y = 2 * by + dy;
                int32x4_t yt[4], sum[4];
                widen16(vqsubq_u8(vld1q_u8(s->y + (size_t)y * s->y_stride + x), yoff), yt);
                for (int i = 0; i < 4; i++)
                    yt[i] = vmulq_n_s32(yt[i], k->cy);
                uint8x16_t c[3];
                for (int i = 0; i < 4; i++)
                    sum[i] = vaddq_s32(yt[i], r4[i]);
                c[red] = narrow20(sum);
                for (int i = 0; i < 4; i++)
                    sum[i] = vaddq_s32(yt[i], g4[i]);
                c[1] = narrow20(sum);
                for (int i = 0; i < 4; i++)
                    sum[i] = vaddq_s32(yt[i], b4[i]);
                c[2 - red] = narrow20(sum);
                uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride + (size_t)x * ch;
                if (ch == 4) {
                    const uint8x16x4_t p = {{c[0], c[1], c[2], alpha}};
                    vst4q_u8(out, p);
                } else {
                    const uint8x16x3_t p = {{c[0], c[1], c[2]}};
                    vst3q_u8(out, p);
                }
            }
        }
        for (int dy = 0; dy < 2; dy++)
            clik__yuv_rgb_row(s, k, 2 * by + dy,
                              (uint8_t *)dst->data + (size_t)(2 * by + dy) * dst->stride, ch, red,
                              x, s->width);
    }
    return 0;
}

static void to_rgb_neon(const clik_yuv_planes *src, clik_image *dst, const clik_yuv_coeffs *k)
{
    yuv_job j = {src, dst, k};
    clik__cpu_rows(src->height / 2, (size_t)src->width * 2 * (size_t)dst->channels, to_rgb_rows,
                   &j);
}

/* 16 RGB(A) pixels at in: red, green and blue. */
CLIK_INLINE void load_rgb(const uint8_t *in, int ch, int red, uint8x16_t *r, uint8x16_t *g,
                          uint8x16_t *b)
{
    if (ch == 4) {
        const uint8x16x4_t p = vld4q_u8(in);
        *r = p.val[red];
        *g = p.val[1];
        *b = p.val[2 - red];
    } else {
        const uint8x16x3_t p = vld3q_u8(in);
        *r = p.val[red];
        *g = p.val[1];
        *b = p.val[2 - red];
    }
}

static int from_rgb_rows(void *user, int b0, int b1)
{
    const yuv_job *j = user;
    const clik_yuv_planes *d = j->planes;
    const clik_yuv_coeffs *k = j->k;
    const clik_image *src = j->rgb;
    const int ch = src->channels, red = src->order == CLIK_ORDER_BGR ? 2 : 0;
    const int32x4_t yadd = vdupq_n_s32((k->y_off << 20) + (1 << 19));
    const int32x4_t cadd = vdupq_n_s32((128 << 20) + (1 << 19));
    for (int by = b0; by < b1; by++) {
        uint8_t *urow = d->u + (size_t)by * d->u_stride, *vrow = d->v + (size_t)by * d->v_stride;
        int x = 0;
        for (; x + 16 <= d->width; x += 16) {
            for (int dy = 0; dy < 2; dy++) {
                const int y = 2 * by + dy;
                const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride;
                uint8x16_t r, g, b;
                load_rgb(in + (size_t)x * ch, ch, red, &r, &g, &b);
                int32x4_t r4[4], g4[4], b4[4], sum[4];
                widen16(r, r4);
                widen16(g, g4);
                widen16(b, b4);
                for (int i = 0; i < 4; i++)
                    sum[i] = vmlaq_n_s32(vmlaq_n_s32(vmlaq_n_s32(yadd, r4[i], k->ry), g4[i], k->gy),
                                         b4[i], k->by);
                vst1q_u8(d->y + (size_t)y * d->y_stride + x, narrow20(sum));
                if (dy != 0)
                    continue;
                /* The blocks' top-left pixels: the even lanes. */
                int32x4_t re[2], ge[2], be[2], us[2], vs[2];
                widen8(vget_low_u8(vuzpq_u8(r, r).val[0]), re);
                widen8(vget_low_u8(vuzpq_u8(g, g).val[0]), ge);
                widen8(vget_low_u8(vuzpq_u8(b, b).val[0]), be);
                for (int h = 0; h < 2; h++) {
                    us[h] = vmlaq_n_s32(vmlaq_n_s32(vmlaq_n_s32(cadd, re[h], k->ru), ge[h], k->gu),
                                        be[h], k->bu);
                    vs[h] = vmlaq_n_s32(vmlaq_n_s32(vmlaq_n_s32(cadd, re[h], k->rv), ge[h], k->gv),
                                        be[h], k->bv);
                }
                const uint8x8_t u8 = narrow20_8(us[0], us[1]), v8 = narrow20_8(vs[0], vs[1]);
                const int cx = x / 2;
                if (d->step == 1) {
                    vst1_u8(urow + cx, u8);
                    vst1_u8(vrow + cx, v8);
                } else {
                    const int u_first = urow < vrow;
                    const uint8x8x2_t c = {{u_first ? u8 : v8, u_first ? v8 : u8}};
                    vst2_u8((u_first ? urow : vrow) + 2 * cx, c);
                }
            }
        }
        for (int dy = 0; dy < 2; dy++)
            clik__yuv_from_rgb_row((const uint8_t *)src->data + (size_t)(2 * by + dy) * src->stride,
                                   ch, red, 2 * by + dy, d, k, x, d->width);
    }
    return 0;
}

static void from_rgb_neon(const clik_image *src, const clik_yuv_planes *dst,
                          const clik_yuv_coeffs *k)
{
    yuv_job j = {dst, src, k};
    clik__cpu_rows(dst->height / 2, (size_t)dst->width * 2 * (size_t)src->channels, from_rgb_rows,
                   &j);
}

void clik__yuv_dsp_init_neon(clik_yuv_dsp *dsp)
{
    dsp->to_rgb = to_rgb_neon;
    dsp->from_rgb = from_rgb_neon;
}

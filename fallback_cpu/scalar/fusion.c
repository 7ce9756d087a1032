/*
 * Fusion upscaler, scalar: the correctness oracle of clik_upscale_fusion,
 * written straight from its definition in lib/clik.h. It has its own
 * bicubic, luma, tile SSIM and blur, so that it checks the code of the
 * resize, filter and SSIM families instead of repeating it.
 *
 * The float arithmetic, step by step (kernels/fusion.cl does the same
 * operations, so that the two rarely differ in the last bit):
 *
 *  - bicubic: along each axis output x = s q + r samples source point
 *    (x + 0.5) / s - 0.5 = q + (r + 0.5) / s - 0.5, so there are s phases;
 *    the Keys weights (A = -0.75) of each phase are computed once in double
 *    and rounded to a multiple of 1/2048, as clik_resize does for u8 images
 *    (the steps of OpenCV's fixed-point INTER_CUBIC), which then are exact
 *    floats. A channel is sum_j wy[j] * (sum_i wx[i] * p(i, j))
 *    in float, i and j ascending, every product rounded on its own, taps
 *    outside the image replicating the border; then rounded to the nearest
 *    integer (ties to even, as rint, vcvtnq and convert_uchar_sat_rte) and
 *    saturated to 0..255.
 *  - tile SSIM from exact integer sums of the centred values c = g - 128
 *    over the n pixels of the tile: ma = S(ca) + 128 n, mb likewise (n times
 *    the means), va = n S(ca ca) - S(ca)^2, vb likewise, cab = n S(ca cb) -
 *    S(ca) S(cb) (n^2 times the population (co)variances; all exact in 32-bit
 *    integers), then, in float, with n2 = n * n:
 *      num = (2 ma mb + C1 n2) (2 cab + C2 n2)
 *      den = (ma ma + mb mb + C1 n2) (va + vb + C2 n2),   t = num / den
 *    evaluated left to right (2 ma mb is (2 ma) mb; va + vb adds two floats).
 *  - artifact = t * |G1 - G2| / 255.0f, in that order.
 *  - grey: OpenCV 4's 15-bit fixed point, as clik_gray (see luma()).
 *  - blur: the taps of OpenCV's getGaussianKernel(ksize, 0); rows, then
 *    columns, each sum over the taps in ascending order, border reflect-101.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* Every product is rounded on its own, which the project's ISO C build
 * gives by default; this keeps it so in a GNU C dialect or with
 * -ffp-contract=fast, where GCC would fuse a * b + c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define SSIM_C1 6.5025f  /* (0.01 * 255)^2 */
#define SSIM_C2 58.5225f /* (0.03 * 255)^2 */

/* ---- bicubic -------------------------------------------------------------- */

/* Keys' cubic convolution kernel with A = -0.75 at distance d. */
static double keys(double d)
{
    const double a = -0.75;
    d = fabs(d);
    if (d <= 1.0)
        return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
    if (d < 2.0)
        return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
    return 0.0;
}

/* The four taps of output phase r: source pixels q + first .. q + first + 3. */
typedef struct phase {
    int first;
    float w[4];
} phase;

static void bicubic_phases(int s, phase *ph)
{
    for (int r = 0; r < s; r++) {
        const double t = (r + 0.5) / s - 0.5, base = floor(t), f = t - base;
        ph[r].first = (int)base - 1;
        for (int k = 0; k < 4; k++)
            ph[r].w[k] = (float)(rint(keys(f + 1.0 - k) * 2048.0) / 2048.0);
    }
}

static int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static uint8_t round_u8(float v)
{
    float r = rintf(v);
    return (uint8_t)(r < 0.0f ? 0.0f : r > 255.0f ? 255.0f : r);
}

/*
 * IMG2 into img2 (packed RGBA, s W x s H). The inner sums along x of one
 * source row do not depend on the output row, so they are computed once per
 * source row into hsum (s W x H x 4 floats); the vertical sums then take
 * four of those rows. The operations are those of the nested sum above.
 */
static void bicubic(const clik_image *src, int s, uint8_t *img2, float *hsum)
{
    const int w = src->width, h = src->height, dw = w * s, dh = h * s;
    phase ph[8];
    bicubic_phases(s, ph);
    for (int y = 0; y < h; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride;
        float *out = hsum + (size_t)y * dw * 4;
        for (int x = 0; x < dw; x++) {
            const phase *p = &ph[x % s];
            for (int c = 0; c < 4; c++) {
                float sum = 0.0f;
                for (int i = 0; i < 4; i++) {
                    float term = p->w[i] * in[clamp_index(x / s + p->first + i, w) * 4 + c];
                    sum += term;
                }
                out[x * 4 + c] = sum;
            }
        }
    }
    for (int y = 0; y < dh; y++) {
        const phase *p = &ph[y % s];
        const float *rows[4];
        for (int j = 0; j < 4; j++)
            rows[j] = hsum + (size_t)clamp_index(y / s + p->first + j, h) * dw * 4;
        uint8_t *out = img2 + (size_t)y * dw * 4;
        for (int i = 0; i < dw * 4; i++) {
            float sum = 0.0f;
            for (int j = 0; j < 4; j++) {
                float term = p->w[j] * rows[j][i];
                sum += term;
            }
            out[i] = round_u8(sum);
        }
    }
}

/* ---- luma, tile SSIM, artifact -------------------------------------------- */

/* RGBA (BGRA) -> grey as clik_gray: OpenCV 4's 15-bit fixed point, which equals
 * cvtColor(COLOR_RGBA2GRAY) for every RGB triple (the 14-bit (4899 R +
 * 9617 G + 1868 B + 8192) >> 14 of older releases is off by one for 0.26 %
 * of them). */
static uint8_t luma(const uint8_t *px, clik_order order)
{
    const unsigned r = order == CLIK_ORDER_BGR ? px[2] : px[0];
    const unsigned b = order == CLIK_ORDER_BGR ? px[0] : px[2];
    return (uint8_t)((9798u * r + 19235u * px[1] + 3735u * b + 16384u) >> 15);
}

static float tile_ssim(int n, int32_t sa, int32_t sb, int32_t saa, int32_t sbb, int32_t sab)
{
    const int32_t ma = sa + 128 * n, mb = sb + 128 * n;
    const int32_t va = n * saa - sa * sa, vb = n * sbb - sb * sb, cab = n * sab - sa * sb;
    const float fa = (float)ma, fb = (float)mb, n2 = (float)(n * n);
    const float num = (2.0f * fa * fb + SSIM_C1 * n2) * (2.0f * (float)cab + SSIM_C2 * n2);
    const float den = (fa * fa + fb * fb + SSIM_C1 * n2) * ((float)va + (float)vb + SSIM_C2 * n2);
    return num / den;
}

/* SSIM of every tile x tile square of g1 and g2 (w x h, packed), into
 * map (ceil(w / tile) x ceil(h / tile)). */
static void ssim_tiles(const uint8_t *g1, const uint8_t *g2, int w, int h, int tile, float *map)
{
    const int tw = (w + tile - 1) / tile, th = (h + tile - 1) / tile;
    for (int ty = 0; ty < th; ty++)
        for (int tx = 0; tx < tw; tx++) {
            const int x0 = tx * tile, y0 = ty * tile;
            const int x1 = x0 + tile < w ? x0 + tile : w, y1 = y0 + tile < h ? y0 + tile : h;
            int32_t sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++) {
                    const int32_t a = g1[(size_t)y * w + x] - 128, b = g2[(size_t)y * w + x] - 128;
                    sa += a;
                    sb += b;
                    saa += a * a;
                    sbb += b * b;
                    sab += a * b;
                }
            map[(size_t)ty * (size_t)tw + (size_t)tx] =
                tile_ssim((x1 - x0) * (y1 - y0), sa, sb, saa, sbb, sab);
        }
}

/* ---- blur ------------------------------------------------------------------- */

/* The taps OpenCV's getGaussianKernel(ksize, 0) gives: its fixed tables
 * (in 256ths) up to 9 taps, else sampled with sigma = 0.3 ((ksize - 1) / 2
 * - 1) + 0.8 and normalized. */
static void gaussian_taps(int ksize, float *w)
{
    static const int small[5][9] = {{256},
                                    {64, 128, 64},
                                    {16, 64, 96, 64, 16},
                                    {8, 28, 56, 72, 56, 28, 8},
                                    {4, 13, 30, 51, 60, 51, 30, 13, 4}};
    if (ksize <= 9) {
        for (int i = 0; i < ksize; i++)
            w[i] = (float)small[ksize / 2][i] / 256.0f;
        return;
    }
    const double sigma = 0.3 * ((ksize - 1) * 0.5 - 1.0) + 0.8;
    double v[CLIK_BLUR_MAX_KSIZE], sum = 0.0;
    for (int i = 0; i < ksize; i++) {
        const double d = i - ksize / 2;
        v[i] = exp(-d * d / (2.0 * sigma * sigma));
        sum += v[i];
    }
    for (int i = 0; i < ksize; i++)
        w[i] = (float)(v[i] / sum);
}

/* Separable blur of a w x h float plane, border reflect-101: rows from in
 * into tmp, then columns from tmp into out. pad holds a row with its
 * reflected borders (w + ksize - 1 floats). */
static void blur(const float *in, float *tmp, float *out, float *pad, int w, int h,
                 const float *taps, int ksize)
{
    const int r = ksize / 2;
    for (int y = 0; y < h; y++) {
        const float *row = in + (size_t)y * w;
        for (int i = 0; i < w + 2 * r; i++)
            pad[i] = row[clik__reflect101(i - r, w)];
        for (int x = 0; x < w; x++) {
            float sum = 0.0f;
            for (int k = 0; k < ksize; k++) {
                float term = taps[k] * pad[x + k];
                sum += term;
            }
            tmp[(size_t)y * w + x] = sum;
        }
    }
    for (int y = 0; y < h; y++) {
        const float *rows[CLIK_BLUR_MAX_KSIZE];
        for (int k = 0; k < ksize; k++)
            rows[k] = tmp + (size_t)clik__reflect101(y + k - r, h) * w;
        for (int x = 0; x < w; x++) {
            float sum = 0.0f;
            for (int k = 0; k < ksize; k++) {
                float term = taps[k] * rows[k][x];
                sum += term;
            }
            out[(size_t)y * w + x] = sum;
        }
    }
}

/* ---- the whole upscaler ------------------------------------------------------ */

static int fusion(const clik_image *src, clik_image *dst, const clik_fusion_plan *plan,
                  clik_image *artifact_map)
{
    const clik_fusion_options *opt = &plan->opt; /* the oracle makes its own weights */
    const int s = dst->width / src->width, w = dst->width, h = dst->height;
    const int tile = opt->tile, tw = (w + tile - 1) / tile, th = (h + tile - 1) / tile;
    const size_t n = (size_t)w * (size_t)h;
    /* Everything is allocated first: once the work starts nothing can fail,
     * so dst and the map are either fully written or untouched. */
    uint8_t *img2 = malloc(n * 4);
    uint8_t *g1 = malloc(n), *g2 = malloc(n);
    float *hsum = malloc((size_t)w * (size_t)src->height * 4 * sizeof(float));
    float *art = malloc(n * sizeof(float)), *tmp = malloc(n * sizeof(float));
    float *blurred = malloc(n * sizeof(float));
    float *pad = malloc((size_t)(w + opt->blur_ksize) * sizeof(float));
    float *map = malloc((size_t)tw * (size_t)th * sizeof(float));
    int ok = img2 && g1 && g2 && hsum && art && tmp && blurred && pad && map;
    if (ok) {
        /* IMG2 and the two grey images; IMG1 is src(x / s, y / s). */
        bicubic(src, s, img2, hsum);
        for (int y = 0; y < h; y++) {
            const uint8_t *in = (const uint8_t *)src->data + (size_t)(y / s) * src->stride;
            for (int x = 0; x < w; x++) {
                g1[(size_t)y * w + x] = luma(in + (size_t)(x / s) * 4, src->order);
                g2[(size_t)y * w + x] = luma(img2 + ((size_t)y * w + x) * 4, src->order);
            }
        }

        ssim_tiles(g1, g2, w, h, tile, map);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const size_t i = (size_t)y * w + x;
                const float t = map[(size_t)(y / tile) * (size_t)tw + (size_t)(x / tile)];
                const int d = abs((int)g1[i] - (int)g2[i]);
                art[i] = t * (float)d / 255.0f;
            }

        float taps[CLIK_BLUR_MAX_KSIZE];
        gaussian_taps(opt->blur_ksize, taps);
        blur(art, tmp, blurred, pad, w, h, taps, opt->blur_ksize);

        for (int y = 0; y < h; y++) {
            const uint8_t *in = (const uint8_t *)src->data + (size_t)(y / s) * src->stride;
            uint8_t *out = (uint8_t *)dst->data + (size_t)y * dst->stride;
            uint8_t *a = artifact_map
                             ? (uint8_t *)artifact_map->data + (size_t)y * artifact_map->stride
                             : NULL;
            for (int x = 0; x < w; x++) {
                const int take1 = blurred[(size_t)y * w + x] > opt->threshold;
                const uint8_t *px =
                    take1 ? in + (size_t)(x / s) * 4 : img2 + ((size_t)y * w + x) * 4;
                memcpy(out + (size_t)x * 4, px, 4);
                if (a)
                    a[x] = take1 ? 255 : 0;
            }
        }
    }
    free(img2);
    free(g1);
    free(g2);
    free(hsum);
    free(art);
    free(tmp);
    free(blurred);
    free(pad);
    free(map);
    return ok ? 0 : -1;
}

void clik__fusion_dsp_init_scalar(clik_fusion_dsp *dsp)
{
    dsp->fusion = fusion;
}

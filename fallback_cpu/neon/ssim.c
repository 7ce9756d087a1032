/*
 * SSIM family, NEON.
 *
 * Gaussian SSIM in float, separable, running down the image once: each input
 * row is converted to floats with the products of its centred values
 * (c = x - 128, which leaves variances and covariance unchanged and keeps
 * E[c^2] - E[c]^2 from cancelling as much as with raw values), filtered
 * horizontally into a ring of 11 rows of the five moments (means of the raw
 * values, second moments of c), and each output row is the vertical
 * weighted sum of the ring's rows. Within the SSIM tolerance of the double
 * oracle, not bit-identical with it. Bands of output rows run on the
 * context's threads, each with a ring of its own; each row's sum is kept
 * and the mean adds them in row order, so any split gives the same bytes.
 *
 * Tile SSIM sums exactly in integers, a band of tile rows at a time: column
 * sums over the band's rows for a chunk of columns (c = g ^ 0x80 read as
 * int8, products by VMULL.S8, which cannot overflow 16 bits), then each
 * tile's columns; the final float formula is the oracle's, operation for
 * operation (see scalar/ssim.c).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "ssim_px.h"

#define TAPS 11
#define C1   6.5025f  /* (0.01 * 255)^2 */
#define C2   58.5225f /* (0.03 * 255)^2 */

CLIK_INLINE const uint8_t *row_of(const clik_image *img, int y)
{
    return (const uint8_t *)img->data + (size_t)y * img->stride;
}

/* ---- Gaussian SSIM --------------------------------------------------------------- */

/* The five inputs of the horizontal pass: a, b, ca^2, cb^2, ca cb. */
static void products(const float *a, const float *b, int n, float *qa, float *qb, float *p)
{
    const float32x4_t k128 = vdupq_n_f32(128.0f);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t ca = vsubq_f32(vld1q_f32(a + i), k128);
        const float32x4_t cb = vsubq_f32(vld1q_f32(b + i), k128);
        vst1q_f32(qa + i, vmulq_f32(ca, ca));
        vst1q_f32(qb + i, vmulq_f32(cb, cb));
        vst1q_f32(p + i, vmulq_f32(ca, cb));
    }
    for (; i < n; i++) {
        const float ca = a[i] - 128.0f, cb = b[i] - 128.0f;
        qa[i] = ca * ca;
        qb[i] = cb * cb;
        p[i] = ca * cb;
    }
}

/* out[x] = sum over k of w[k] in[x + k], for x < n (n a multiple of 4). The
 * weights are symmetric: taps k and 10 - k are added before they are
 * weighted. */
static void h_pass(const float *in, int n, const float *w, float *out)
{
    for (int x = 0; x < n; x += 4) {
        const float *p = in + x;
        float32x4_t s = vmulq_n_f32(vld1q_f32(p + 5), w[5]);
        for (int k = 0; k < 5; k++)
            s = vaddq_f32(s, vmulq_n_f32(vaddq_f32(vld1q_f32(p + k), vld1q_f32(p + 10 - k)), w[k]));
        vst1q_f32(out + x, s);
    }
}

CLIK_INLINE float32x4_t ssim4(float32x4_t mu_a, float32x4_t mu_b, float32x4_t qa, float32x4_t qb,
                              float32x4_t p)
{
    const float32x4_t k128 = vdupq_n_f32(128.0f);
    const float32x4_t da = vsubq_f32(mu_a, k128), db = vsubq_f32(mu_b, k128);
    const float32x4_t va = vsubq_f32(qa, vmulq_f32(da, da));
    const float32x4_t vb = vsubq_f32(qb, vmulq_f32(db, db));
    const float32x4_t cov = vsubq_f32(p, vmulq_f32(da, db));
    const float32x4_t l_num = vaddq_f32(vmulq_f32(vmulq_n_f32(mu_a, 2.0f), mu_b), vdupq_n_f32(C1));
    const float32x4_t l_den =
        vaddq_f32(vaddq_f32(vmulq_f32(mu_a, mu_a), vmulq_f32(mu_b, mu_b)), vdupq_n_f32(C1));
    const float32x4_t cs_num = vaddq_f32(vmulq_n_f32(cov, 2.0f), vdupq_n_f32(C2));
    const float32x4_t cs_den = vaddq_f32(vaddq_f32(va, vb), vdupq_n_f32(C2));
    return div4(vmulq_f32(l_num, cs_num), vmulq_f32(l_den, cs_den));
}

typedef struct ssim_job {
    const clik_image *a, *b;
    clik_image *map; /* or NULL */
    float w[TAPS];
    double *row_sum; /* per output row: the sum of its SSIM values */
} ssim_job;

/* Output rows [y0, y1): input rows y0 .. y1 + TAPS - 2 through a ring of
 * its own. */
static int ssim_rows(void *user, int y0, int y1)
{
    const ssim_job *j = user;
    const clik_image *a = j->a, *b = j->b, *map = j->map;
    const float *w = j->w;
    const int width = a->width, ow = width - (TAPS - 1);
    /* Lines of width + 4 floats (zero past the row) let the horizontal pass
     * run in whole vectors up to n4 outputs. */
    const int n4 = (ow + 3) & ~3, line = n4 + TAPS - 1;
    const size_t lines = 5, ring_rows = (size_t)TAPS * 5;
    float *buf = calloc((lines * (size_t)line + ring_rows * (size_t)n4), sizeof(float));
    if (!buf)
        return -1;
    float *in[5];
    for (size_t i = 0; i < lines; i++)
        in[i] = buf + i * (size_t)line;
    float *ring = buf + lines * (size_t)line;
    for (int r = y0; r < y1 + TAPS - 1; r++) {
        clik_neon_load_row_f32(a, r, (size_t)width, in[0]);
        clik_neon_load_row_f32(b, r, (size_t)width, in[1]);
        products(in[0], in[1], width, in[2], in[3], in[4]);
        float *slot = ring + (size_t)(r % TAPS) * 5 * (size_t)n4;
        for (int m = 0; m < 5; m++)
            h_pass(in[m], n4, w, slot + (size_t)m * (size_t)n4);
        if (r < y0 + TAPS - 1)
            continue;
        const int y = r - (TAPS - 1);
        const float *rows[TAPS];
        for (int k = 0; k < TAPS; k++)
            rows[k] = ring + (size_t)((y + k) % TAPS) * 5 * (size_t)n4;
        float *out = map ? (float *)(void *)((char *)map->data + (size_t)y * map->stride) : NULL;
        float32x4_t acc = vdupq_n_f32(0.0f);
        double sum = 0.0;
        for (int x = 0; x < n4; x += 4) {
            float32x4_t v[5];
            for (int m = 0; m < 5; m++) {
                const size_t o = (size_t)m * (size_t)n4 + (size_t)x;
                v[m] = vmulq_n_f32(vld1q_f32(rows[5] + o), w[5]);
                for (int k = 0; k < 5; k++)
                    v[m] = vaddq_f32(v[m], vmulq_n_f32(vaddq_f32(vld1q_f32(rows[k] + o),
                                                                 vld1q_f32(rows[10 - k] + o)),
                                                       w[k]));
            }
            float32x4_t s = ssim4(v[0], v[1], v[2], v[3], v[4]);
            if (x + 4 <= ow) {
                if (out)
                    vst1q_f32(out + x, s);
            } else {
                float lanes[4];
                vst1q_f32(lanes, s);
                for (int i = 0; i < 4; i++)
                    lanes[i] = x + i < ow ? lanes[i] : 0.0f;
                if (out)
                    for (int i = 0; x + i < ow; i++)
                        out[x + i] = lanes[i];
                s = vld1q_f32(lanes);
            }
            acc = vaddq_f32(acc, s);
            /* Few terms per float lane, then into the double sum. */
            if ((x & 127) == 124 || x + 4 >= n4) {
                sum += (double)vgetq_lane_f32(acc, 0) + (double)vgetq_lane_f32(acc, 1) +
                       (double)vgetq_lane_f32(acc, 2) + (double)vgetq_lane_f32(acc, 3);
                acc = vdupq_n_f32(0.0f);
            }
        }
        j->row_sum[y] = sum;
    }
    free(buf);
    return 0;
}

/* The mean is the row sums added in row order, whatever the bands. */
static int clik_ssim_neon(const clik_image *a, const clik_image *b, clik_image *map, double *mean)
{
    ssim_job j = {a, b, map, {0}, NULL};
    double total = 0.0;
    for (int i = 0; i < TAPS; i++)
        total += exp(-(double)((i - 5) * (i - 5)) / 4.5);
    for (int i = 0; i < TAPS; i++)
        j.w[i] = (float)(exp(-(double)((i - 5) * (i - 5)) / 4.5) / total);
    const int ow = a->width - (TAPS - 1), oh = a->height - (TAPS - 1);
    j.row_sum = malloc((size_t)oh * sizeof(double));
    if (!j.row_sum)
        return -1;
    if (clik__cpu_rows(oh, (size_t)a->width * 5 * TAPS, ssim_rows, &j) != 0) {
        free(j.row_sum);
        return -1;
    }
    double sum = 0.0;
    for (int y = 0; y < oh; y++)
        sum += j.row_sum[y];
    free(j.row_sum);
    *mean = sum / ((double)ow * (double)oh);
    return 0;
}

/* ---- tile SSIM ------------------------------------------------------------------- */

#define CHUNK 256 /* columns summed at a time (a multiple of the tile is used) */

/* Column sums, over rows y0 .. y0 + ny - 1, of columns x0 .. x0 + n - 1. */
static void column_sums(const clik_image *a, const clik_image *b, int y0, int ny, int x0, int n,
                        int32_t sums[5][CHUNK])
{
    memset(sums, 0, sizeof(int32_t) * 5 * CHUNK);
    const int8x8_t flip = vdup_n_s8(-128);
    for (int y = y0; y < y0 + ny; y++) {
        const uint8_t *ra = row_of(a, y) + x0, *rb = row_of(b, y) + x0;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            /* g ^ 0x80 as int8 is g - 128. */
            const int8x8_t ca = veor_s8(vreinterpret_s8_u8(vld1_u8(ra + i)), flip);
            const int8x8_t cb = veor_s8(vreinterpret_s8_u8(vld1_u8(rb + i)), flip);
            const int16x8_t c16[2] = {vmovl_s8(ca), vmovl_s8(cb)};
            const int16x8_t prod[3] = {vmull_s8(ca, ca), vmull_s8(cb, cb), vmull_s8(ca, cb)};
            for (int m = 0; m < 5; m++) {
                const int16x8_t v = m < 2 ? c16[m] : prod[m - 2];
                int32_t *s = sums[m] + i;
                vst1q_s32(s, vaddw_s16(vld1q_s32(s), vget_low_s16(v)));
                vst1q_s32(s + 4, vaddw_s16(vld1q_s32(s + 4), vget_high_s16(v)));
            }
        }
        for (; i < n; i++) {
            const int32_t ca = (int32_t)ra[i] - 128, cb = (int32_t)rb[i] - 128;
            sums[0][i] += ca;
            sums[1][i] += cb;
            sums[2][i] += ca * ca;
            sums[3][i] += cb * cb;
            sums[4][i] += ca * cb;
        }
    }
}

typedef struct tiles_job {
    const clik_image *a, *b;
    int tile;
    clik_image *map;
} tiles_job;

/* Tile rows [t0, t1) of the map. */
static int tile_rows(void *user, int ty0, int ty1)
{
    const tiles_job *j = user;
    const clik_image *a = j->a, *b = j->b;
    const int tile = j->tile;
    int32_t sums[5][CHUNK];
    const int chunk = CHUNK / tile * tile;
    for (int ty = ty0; ty < ty1; ty++) {
        const int y0 = ty * tile, ny = a->height - y0 < tile ? a->height - y0 : tile;
        float *out = (float *)(void *)((char *)j->map->data + (size_t)ty * j->map->stride);
        for (int cx = 0; cx < a->width; cx += chunk) {
            const int n = a->width - cx < chunk ? a->width - cx : chunk;
            column_sums(a, b, y0, ny, cx, n, sums);
            for (int t0 = 0; t0 < n; t0 += tile) {
                const int nx = n - t0 < tile ? n - t0 : tile;
                int32_t s[5] = {0, 0, 0, 0, 0};
                for (int m = 0; m < 5; m++)
                    for (int i = t0; i < t0 + nx; i++)
                        s[m] += sums[m][i];
                const int32_t count = nx * ny;
                out[(cx + t0) / tile] = clik__ssim_tile(
                    count, s[0] + 128 * count, s[1] + 128 * count, s[0], s[1], s[2], s[3], s[4]);
            }
        }
    }
    return 0;
}

void clik__ssim_tiles_neon(const clik_image *a, const clik_image *b, int tile, clik_image *map)
{
    tiles_job j = {a, b, tile, map};
    clik__cpu_rows(map->height, (size_t)a->width * (size_t)tile, tile_rows, &j);
}

void clik__ssim_dsp_init_neon(clik_ssim_dsp *dsp)
{
    dsp->ssim = clik_ssim_neon;
    dsp->tiles = clik__ssim_tiles_neon;
}

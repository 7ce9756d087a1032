/*
 * LAPAR network family, NEON: one fused convolution (clik_lapar_net_conv in
 * fallback_cpu/cpu.h) summed in float; the scalar oracle sums in double.
 *
 * A row is cut into chunks of XC pixels and those into tiles of PX = 8
 * pixels (two vectors along x). A tile of CO output channels (8 on
 * AArch64, whose 32 registers hold the 16 accumulators, 4 through SIMDe)
 * stays in registers while the input channels go by: at each tap two
 * unaligned loads of input, reused by every channel of the tile, against
 * one vector of CO / 4 channels' weights taken lane by lane. The weights of
 * the CO channels are repacked on the stack, tap-major with the channels
 * contiguous, a run of input channels at a time (at most WPACK floats);
 * when the input channels take several runs, the tile's sums wait in a
 * chunk-sized stack buffer between them. Tiles whose taps would leave the
 * row (the borders, the tail of a row) read a zero-padded copy of their
 * rows instead; kernel rows past the top or the bottom are skipped. The
 * ReLU, the residual and the store (through the pixel shuffle: vst2 or vst4
 * for s = 2 or 4, lane by lane otherwise) follow the last run.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stddef.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#define CO 8
#else
#define CO 4
#endif
#define PX    8        /* pixels of a tile */
#define XC    256      /* pixels of a chunk of a row: a multiple of PX */
#define WPACK 4096     /* floats of repacked weights */
#define PADW  (PX + 8) /* a row of a tile's padded copy: PX + k - 1 floats, k <= 5 */

/* The accumulators are named variables, a<q>0 and a<q>1 for pixels 0..3
 * and 4..7 of channel q, so that compilers keep them in registers (an
 * array of vectors goes through the stack). EACH(M) applies M to every
 * channel of a tile. */
#if CO == 8
#define EACH(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#else
#define EACH(M) M(0) M(1) M(2) M(3)
#endif
#define DECLARE(q) float32x4_t a##q##0, a##q##1;
#define LOAD(q)                                                                                    \
    a##q##0 = vld1q_f32(init + (q)*is);                                                            \
    a##q##1 = vld1q_f32(init + (q)*is + 4);
#define SAVE(q)                                                                                    \
    vst1q_f32(dst + (q)*ds, a##q##0);                                                              \
    vst1q_f32(dst + (q)*ds + 4, a##q##1);
/* Channel q's weight of the tap is lane q % 4 of weight vector q / 4. */
#define STEP(q)                                                                                    \
    a##q##0 = vfmaq_laneq_f32(a##q##0, i0, (q) < 4 ? w0 : w1, (q) % 4);                            \
    a##q##1 = vfmaq_laneq_f32(a##q##1, i1, (q) < 4 ? w0 : w1, (q) % 4);

/* Where a tile's sums go and what finishes them. */
typedef struct conv_job {
    const clik_lapar_net_conv *c;
    const float *in, *res;
    size_t in_plane, res_plane, out_plane;
    float *out;
    int width, height, y;
    int kylo, kyhi; /* the kernel rows inside the image at row y */
} conv_job;

/* The ReLU, the residual and the store of output channels co0 .. co0 + CO
 * - 1 (those below cout) at pixels x .. x + n - 1 of row j->y, from their
 * sums t. */
static void finish(const conv_job *j, const float t[CO][PX], int co0, int x, int n)
{
    float32x4_t a[CO][2];
    const clik_lapar_net_conv *c = j->c;
    const int s = c->shuffle, cout = c->cout;
    const size_t w = (size_t)j->width, y = (size_t)j->y;
    const float32x4_t zero = vdupq_n_f32(0.0f), alpha = vdupq_n_f32(c->alpha);
    for (int q = 0; q < CO && co0 + q < cout; q++)
        for (int h = 0; h < 2; h++) {
            float32x4_t v = vld1q_f32(t[q] + 4 * h);
            if (c->relu)
                v = vmaxq_f32(v, zero);
            if (j->res) {
                const float *r = j->res + (size_t)(co0 + q) * j->res_plane + y * w + (size_t)x;
                float32x4_t rv;
                if (n == PX) {
                    rv = vld1q_f32(r + 4 * h);
                } else {
                    float part[PX] = {0.0f};
                    memcpy(part, r, (size_t)n * sizeof(float));
                    rv = vld1q_f32(part + 4 * h);
                }
                v = vfmaq_f32(v, rv, alpha);
            }
            a[q][h] = v;
        }
    if (s == 1) {
        for (int q = 0; q < CO && co0 + q < cout; q++) {
            float *o = j->out + (size_t)(co0 + q) * j->out_plane + y * w + (size_t)x;
            if (n == PX) {
                vst1q_f32(o, a[q][0]);
                vst1q_f32(o + 4, a[q][1]);
            } else {
                float lanes[PX];
                vst1q_f32(lanes, a[q][0]);
                vst1q_f32(lanes + 4, a[q][1]);
                memcpy(o, lanes, (size_t)n * sizeof(float));
            }
        }
        return;
    }
    /* Output channel co = ch s^2 + i s + j lands at (s y + i, s x + j) of
     * plane ch: s channels of the same ch and i fill s consecutive
     * elements per pixel. co0 is a multiple of CO, and CO of 2 and 4. */
    const size_t ow = (size_t)s * w;
    for (int q = 0; q < CO && co0 + q < cout; q += (s == 2 || s == 4) ? s : 1) {
        const int co = co0 + q, ch = co / (s * s), i = co / s % s, jj = co % s;
        float *o = j->out + (size_t)ch * j->out_plane + ((size_t)s * y + (size_t)i) * ow +
                   (size_t)s * (size_t)x;
        if (n == PX && s == 2 && co + 1 < cout) {
            const float32x4x2_t lo = {{a[q][0], a[q + 1][0]}}, hi = {{a[q][1], a[q + 1][1]}};
            vst2q_f32(o, lo);
            vst2q_f32(o + 8, hi);
            continue;
        }
        if (n == PX && s == 4 && co + 3 < cout) {
            const float32x4x4_t lo = {{a[q][0], a[q + 1][0], a[q + 2][0], a[q + 3][0]}};
            const float32x4x4_t hi = {{a[q][1], a[q + 1][1], a[q + 2][1], a[q + 3][1]}};
            vst4q_f32(o, lo);
            vst4q_f32(o + 16, hi);
            continue;
        }
        /* Lane by lane: s = 3, a short tile, or a channel count that is
         * not a multiple of s (not produced by the library). */
        const int m = (s == 2 || s == 4) ? s : 1;
        for (int e = 0; e < m && co + e < cout; e++) {
            float lanes[PX];
            vst1q_f32(lanes, a[q + e][0]);
            vst1q_f32(lanes + 4, a[q + e][1]);
            for (int p = 0; p < n; p++)
                o[(size_t)s * (size_t)p + (size_t)(jj + e)] = lanes[p];
        }
    }
}

/* One tile: the CO channels of the weights at wp at pixels x .. x + PX - 1
 * of row j->y, over input channels ci0 .. ci0 + cn - 1, from the sums at
 * init (channels is floats apart) to dst (channels ds floats apart). k is
 * a constant at each call. */
CLIK_INLINE void tile(const conv_job *j, const float *wp, int ci0, int cn, int x, int k,
                      const float *init, size_t is, float *dst, size_t ds)
{
    const int r = k / 2, width = j->width, kk = k * k, kylo = j->kylo, kyhi = j->kyhi;
    const size_t w = (size_t)width;
    /* Row kylo of the kernel in channel ci0, at the tile's first tap. */
    const float *base = j->in + (size_t)ci0 * j->in_plane + (size_t)(j->y + kylo - r) * w;
    const int inside = x - r >= 0 && x + PX + r <= width;
    /* Else columns lo .. hi - 1 of a zero-padded copy are inside the row. */
    const int lo = x - r < 0 ? r - x : 0;
    const int hi = x + PX + r > width ? width - x + r : PX + 2 * r;
    float pad[5][PADW];
    if (!inside)
        memset(pad, 0, sizeof(pad));
    EACH(DECLARE)
    EACH(LOAD)
    for (int ci = 0; ci < cn; ci++) {
        const float *src = base + (size_t)ci * j->in_plane;
        size_t stride = w;
        if (inside) {
            src += x - r;
        } else {
            for (int ky = kylo; ky < kyhi; ky++, src += w)
                memcpy(&pad[ky][lo], src + (x - r + lo), (size_t)(hi - lo) * sizeof(float));
            src = pad[kylo];
            stride = PADW;
        }
        const float *wk = wp + (size_t)(ci * kk + kylo * k) * CO;
        for (int ky = kylo; ky < kyhi; ky++, src += stride)
            for (int kx = 0; kx < k; kx++, wk += CO) {
                const float32x4_t i0 = vld1q_f32(src + kx), i1 = vld1q_f32(src + kx + 4);
                const float32x4_t w0 = vld1q_f32(wk);
#if CO == 8
                const float32x4_t w1 = vld1q_f32(wk + 4);
#else
                const float32x4_t w1 = w0;
#endif
                EACH(STEP)
            }
    }
    EACH(SAVE)
}

/* Output channels co0 .. co0 + CO - 1 of the chunk of row j->y at pixels
 * x0 .. x0 + xn - 1, input channels ci0 .. ci0 + cn - 1 whose weights are
 * at wp; part holds the sums of the earlier input channels when ci0 > 0,
 * and takes them when channels remain after these. */
CLIK_INLINE void chunk(const conv_job *j, const float *wp, float *part, int co0, int ci0, int cn,
                       int x0, int xn, int k)
{
    const clik_lapar_net_conv *c = j->c;
    const int first = ci0 == 0, last = ci0 + cn == c->cin;
    float bias[CO][PX], t[CO][PX];
    if (first)
        for (int q = 0; q < CO; q++)
            for (int e = 0; e < PX; e++)
                bias[q][e] = co0 + q < c->cout ? c->b[co0 + q] : 0.0f;
    for (int x = x0; x < x0 + xn; x += PX) {
        float *pt = part + (x - x0);
        const float *init = first ? bias[0] : pt;
        float *dst = last ? t[0] : pt;
        tile(j, wp, ci0, cn, x, k, init, first ? PX : XC, dst, last ? PX : XC);
        if (last)
            finish(j, t, co0, x, x0 + xn - x < PX ? x0 + xn - x : PX);
    }
}

static void conv_k(const conv_job *jb, int y0, int y1, int k)
{
    const clik_lapar_net_conv *c = jb->c;
    const int r = k / 2, kk = k * k, cin = c->cin, cout = c->cout, width = jb->width;
    const int run = WPACK / (kk * CO); /* input channels per run of weights */
    float wp[WPACK];
    float part[CO * XC];
    conv_job j = *jb;
    for (int y = y0; y < y1; y++) {
        j.y = y;
        j.kylo = y < r ? r - y : 0;
        j.kyhi = y + r >= j.height ? j.height - y + r : k;
        for (int x0 = 0; x0 < width; x0 += XC) {
            const int xn = width - x0 < XC ? width - x0 : XC;
            for (int co0 = 0; co0 < cout; co0 += CO)
                for (int ci0 = 0; ci0 < cin; ci0 += run) {
                    const int cn = cin - ci0 < run ? cin - ci0 : run;
                    for (int q = 0; q < CO; q++) {
                        /* Channels past cout weigh zero (w stays in the array). */
                        const size_t co = (size_t)(co0 + q < cout ? co0 + q : 0);
                        const float *w = c->w + (co * (size_t)cin + (size_t)ci0) * (size_t)kk;
                        for (int t = 0; t < cn * kk; t++)
                            wp[t * CO + q] = co0 + q < cout ? w[t] : 0.0f;
                    }
                    if (k == 3)
                        chunk(&j, wp, part, co0, ci0, cn, x0, xn, 3);
                    else
                        chunk(&j, wp, part, co0, ci0, cn, x0, xn, 5);
                }
        }
    }
}

static void conv(const clik_lapar_net_conv *c, const float *in, size_t in_plane, const float *res,
                 size_t res_plane, float *out, size_t out_plane, int width, int height, int y0,
                 int y1)
{
    const conv_job j = {c, in, res, in_plane, res_plane, out_plane, out, width, height, y0, 0, 0};
    conv_k(&j, y0, y1, c->k == 5 ? 5 : 3);
}

void clik__lapar_net_dsp_init_neon(clik_lapar_net_dsp *dsp)
{
    dsp->conv = conv;
}

/*
 * CPU implementations: one function table per operation family. The scalar
 * entries are filled first and are the correctness oracle; NEON entries
 * replace them where the build has NEON (natively on Arm, through SIMDe on
 * x86). SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_CPU_H
#define CLIK_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "clik.h"
#include "threads.h"

/* CLAHE (Zuiderveld 1994, with OpenCV's createCLAHE conventions), resolved
 * once by lib/ops/hist.c: the image is padded at its right and bottom by
 * reflection (..., n - 2, n - 1, n - 2, ...) to pad_w x pad_h, tiles_x x
 * tiles_y tiles of tile_w x tile_h; each tile's histogram is clipped at
 * `limit` counts, the excess spread over the bins, and its table is
 * round(cdf * lut_scale); pixels blend the tables of the four tiles whose
 * centres surround them, at x * inv_tw - 0.5 tiles (float arithmetic). */
typedef struct clik_clahe_plan {
    int width, height; /* the image */
    int tiles_x, tiles_y;
    int tile_w, tile_h;
    uint32_t limit;  /* clip limit, counts (at least 1) */
    float lut_scale; /* 255 / (tile_w * tile_h) */
    float inv_tw;    /* 1 / tile_w */
    float inv_th;    /* 1 / tile_h */
} clik_clahe_plan;

typedef struct clik_hist_dsp {
    /* Adds the counts of every channel of a u8 image to hist[c * 256 + v]. */
    void (*hist)(const uint8_t *src, size_t stride, int width, int height, int channels,
                 uint32_t *hist);
    /* dst = tables[c * 256 + src] for channel c when per_channel, else
     * tables[src]. src and dst may be the same memory. */
    void (*lut)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width,
                int height, int channels, const uint8_t *tables, int per_channel);
    /* y = the luma of YCrCb (8-bit, 14-bit fixed point as OpenCV's
     * COLOR_RGB2YCrCb) of an RGBA image, BGRA where bgr; y is packed (width
     * bytes a row). */
    void (*luma)(const uint8_t *src, size_t stride, int width, int height, int bgr, uint8_t *y);
    /* dst = RGBA (BGRA where bgr) of (y, Cr and Cb of src), alpha of src:
     * src's luma replaced by y (packed). src and dst may be the same memory. */
    void (*luma_merge)(const uint8_t *src, size_t src_stride, const uint8_t *y, uint8_t *dst,
                       size_t dst_stride, int width, int height, int bgr);
    /* CLAHE: the clipped, equalized table of every tile of a u8 grey image
     * (luts[(ty * tiles_x + tx) * 256 + v]). */
    void (*clahe_luts)(const uint8_t *src, size_t stride, const clik_clahe_plan *plan,
                       uint8_t *luts);
    /* CLAHE: dst = the bilinear blend of the four nearest tiles' tables at
     * src. src and dst may be the same memory. */
    void (*clahe_interp)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                         const clik_clahe_plan *plan, const uint8_t *luts);
} clik_hist_dsp;

/* The arguments of a lut entry, for the entries that run it in bands of
 * rows (clik__cpu_rows). */
typedef struct clik_lut_job {
    const uint8_t *src;
    size_t src_stride;
    uint8_t *dst;
    size_t dst_stride;
    int width, channels;
    const uint8_t *tables;
    int per_channel;
} clik_lut_job;

/* The arguments of these entries are host images already checked by
 * lib/ops: formats, sizes and strides are valid for the operation. */
typedef struct clik_pyramid_dsp {
    /* OpenCV pyrDown, u8 or f32, 1, 2 or 4 channels, into dst of
     * ((W + 1) / 2, (H + 1) / 2). */
    void (*down)(const clik_image *src, clik_image *dst);
    /* OpenCV pyrUp, u8 or f32, into dst of 2W or 2W - 1 by 2H or 2H - 1 (the
     * 2W x 2H result, cropped). */
    void (*up)(const clik_image *src, clik_image *dst);
    /* out = a - b (sign -1), a + b (sign +1) or a (sign 0), element by
     * element, images of one size (u8, s16 or f32, any mix): exact integers
     * for u8 pyramids, single-precision float otherwise (as the kernels
     * compute them); u8 results rounded and saturated. */
    void (*combine)(const clik_image *a, const clik_image *b, int sign, clik_image *out);
} clik_pyramid_dsp;

typedef struct clik_integral_dsp {
    /* OpenCV integral of src into sum ((W + 1) x (H + 1)) and, when not NULL,
     * sqsum. Types: u8 -> sum u32, s32, u64 or f64, sqsum u64 or f64; f32 ->
     * sum f32 or f64, sqsum f64. u32 sums wrap (the caller refused overflow);
     * s32 sums wrap modulo 2^32, two's complement, as OpenCV's CV_32S. */
    void (*integral)(const clik_image *src, clik_image *sum, clik_image *sqsum);
} clik_integral_dsp;

typedef struct clik_resize_dsp {
    /* clik_resize: src into dst, u8 or f32, 1 or 4 channels; source
     * coordinates from destination ones by 1 / scale[0] across, 1 / scale[1]
     * down (clik_resize_scaled), or with scale NULL by src's size over dst's
     * (clik_resize). */
    void (*resize)(const clik_image *src, clik_image *dst, clik_interp method, const double *scale);
} clik_resize_dsp;

typedef struct clik_filter_dsp {
    /* Separable blur with ksize normalized taps (weights[ksize], any odd
     * count: the flow's smoothing takes more than CLIK_BLUR_MAX_KSIZE), border
     * reflect-101; u8 or f32, 1, 2, 3 or 4 channels; dst may be src. Returns 0,
     * or -1 when out of memory (dst then untouched). */
    int (*blur)(const clik_image *src, clik_image *dst, const float *weights, int ksize);
    /* clik_gray: 3- or 4-channel src (src->order) to 1-channel dst, u8 or
     * f32. */
    void (*gray)(const clik_image *src, clik_image *dst);
} clik_filter_dsp;

typedef struct clik_ssim_dsp {
    /* clik_ssim: map (may be NULL) and *mean. Returns 0, or -1 when out of
     * memory. */
    int (*ssim)(const clik_image *a, const clik_image *b, clik_image *map, double *mean);
    /* clik_ssim_tiles: u8 a, b; F32 map of ceil(W / tile) x ceil(H / tile). */
    void (*tiles)(const clik_image *a, const clik_image *b, int tile, clik_image *map);
} clik_ssim_dsp;

/* One clik_upscale_fusion call with its options checked and resolved by
 * lib/ops/fusion.c: the options, and the blur's Gaussian weights. */
typedef struct clik_fusion_plan {
    clik_fusion_options opt;
    float blur[CLIK_BLUR_MAX_KSIZE]; /* opt.blur_ksize weights (clik_gaussian_weights, sigma 0) */
} clik_fusion_plan;

typedef struct clik_fusion_dsp {
    /* clik_upscale_fusion with validated arguments (scale = dst->width /
     * src->width); artifact_map may be NULL. The scalar oracle takes only
     * plan->opt (it computes its own weights). Returns 0, or -1 when out of
     * memory. */
    int (*fusion)(const clik_image *src, clik_image *dst, const clik_fusion_plan *plan,
                  clik_image *artifact_map);
} clik_fusion_dsp;

/* One clik_flow_tvl1 run with its options checked and resolved by lib/ops/flow.c:
 * the parameters as the floats of the scheme, the pyramid's level sizes. */
typedef struct clik_flow_plan {
    float tau, lambda, theta, epsilon, zoom, sigma;
    int warps, iterations;
    int scales;                      /* levels, 1..CLIK_FLOW_MAX_SCALES */
    int width[CLIK_FLOW_MAX_SCALES]; /* level s: width[s] x height[s]; 0 is the image */
    int height[CLIK_FLOW_MAX_SCALES];
    int initial;                    /* flow holds the initial estimate */
    int f16;                        /* the CPU path's u and p in 16 bits (NEON) */
    int *iterations_run;            /* scales * warps entries, coarsest level first:
                                       the iterations each warp ran */
    clik_flow_progress_fn progress; /* NULL: none (see clik_flow_options) */
    void *progress_user;
    /* The Gaussian taps of the reference (radius (int)(5 sigma), normalised
     * to sum 1): the pre-smoothing of level 0 (sigma) and the smoothing of a
     * level before the next is sampled from it (sigma 0.6 sqrt(1 / zoom^2 -
     * 1), rounded to float as the reference's zoom_out does); ksize 1: none. */
    const float *taps_pre, *taps_zoom;
    int ksize_pre, ksize_zoom;
} clik_flow_plan;

/* A packed w x h plane of floats as a one-channel f32 image (the flow's
 * smoothing runs the blur on such planes). */
static inline clik_image clik__f32_plane(float *data, int w, int h)
{
    const clik_image v = {w,    h,    1, CLIK_F32,      (size_t)w * sizeof(float),
                          data, NULL, 0, CLIK_ORDER_RGB};
    return v;
}

/* The progress callback of plan between steps (clik_flow_progress_fn): done
 * warps finished, iteration those of the warp under way; 1 to stop. */
static inline int clik__flow_stop(const clik_flow_plan *plan, int done, int iteration)
{
    return plan->progress &&
           plan->progress(plan->progress_user, done, plan->scales * plan->warps, iteration) != 0;
}

typedef struct clik_flow_dsp {
    /* clik_flow_tvl1 on host images: I0, I1 one channel of one type (u8 or
     * f32), flow 2-channel f32 of their size (read first when plan->initial).
     * plan->progress is called after each stopping test and each warp.
     * Returns 0, -1 when out of memory, or -2 when the progress callback
     * stopped the run (flow then untouched). */
    int (*tvl1)(const clik_image *i0, const clik_image *i1, clik_image *flow,
                const clik_flow_plan *plan);
    /* clik_flow_warp (ref NULL) and clik_flow_warp_average on host images
     * checked by lib/ops/flow.c: src u8 of 1 to 4 channels, flow 2-channel
     * f32, ref (or NULL) and dst src's format; all one size. */
    void (*warp)(const clik_image *src, const clik_image *flow, const clik_image *ref,
                 clik_image *dst);
} clik_flow_dsp;

/* One clik_lapar_filter run, resolved by lib/ops/lapar.c: the planes of phi
 * it reads and the atom each one weights (the dictionary's atom, scaled by
 * a selection's gamma or folded through its re-fit matrix). */
typedef struct clik_lapar_plan {
    int scale;                                         /* 2..4 */
    int count;                                         /* terms, 1..CLIK_LAPAR_MAX_ATOMS */
    int plane[CLIK_LAPAR_MAX_ATOMS];                   /* the plane of phi of term j */
    float atom[CLIK_LAPAR_MAX_ATOMS][CLIK_LAPAR_TAPS]; /* its 5 x 5 atom, row-major */
    int symmetric; /* 1: every atom centrally symmetric (tap k = tap 24 - k) */
} clik_lapar_plan;

typedef struct clik_lapar_dsp {
    /* clik_lapar_upsample: lr (u8 or f32, 1 or 4 channels) into F32 dst of
     * scale times its size. */
    void (*upsample)(const clik_image *lr, int scale, clik_image *dst);
    /* clik_lapar_filter: out(p) = sum_j phi_{plane[j]}(p) (atom[j] * U)(p);
     * phi F32 or F16. Returns 0, or -1 when out of memory (dst untouched). */
    int (*filter)(const clik_image *lr, const clik_image *phi, const clik_lapar_plan *plan,
                  clik_image *dst);
} clik_lapar_dsp;

/*
 * LAPAR model (clik_upscale_lapar, clik_lapar_classify; lib/ops/lapar_model.c).
 *
 * CLASSIFICATION, the definition every path follows. Input: U, the upsample
 * of clik_lapar_upsample (F32, W x H, 1 or 4 channels, a 0..255 scale).
 * All arithmetic in IEEE single precision (float), each expression
 * evaluated in the order written (no reassociation; a device may contract
 * a * b + c into fma: see "flips" below).
 *  1. Luma, per pixel: 4 channels: Y = (0.299f * R + 0.587f * G) + 0.114f * B;
 *     1 channel: Y = U.
 *  2. Gradient, per pixel, central differences with reflect-101 indices
 *     (clik__reflect101: a side of 1 gives 0):
 *       gx(x, y) = 0.5f * (Y(x + 1, y) - Y(x - 1, y)),
 *       gy(x, y) = 0.5f * (Y(x, y + 1) - Y(x, y - 1)); y grows downwards.
 *  3. Structure tensor over an n x n window (n = plan->window: 3, 5, 7 or 9,
 *     r = n / 2), separable, window positions reflect-101 into the image
 *     (the gradient of the reflected pixel), binomial weights w(i) =
 *     (float)C(n - 1, i + r), i = -r..r (1 2 1; 1 4 6 4 1; ...), exact in
 *     float. First the row sums of every pixel, i = -r..r in order, each
 *     from 0.0f, gx, gy at (x + i, y) reflected:
 *       ra += w(i) * (gx * gx);  rb += w(i) * (gx * gy);  rc += w(i) * (gy * gy);
 *     then down the column, j = -r..r in order, from 0.0f, the row sums of
 *     (x, y + j) reflected:
 *       a += w(j) * ra;  b += w(j) * rb;  c += w(j) * rc;
 *     and a *= norm; b *= norm; c *= norm;  norm = 2^-(2 (n - 1)) (exact).
 *  4. Eigen-analysis:
 *       t = a + c;  d = a - c;  e = sqrtf(d * d + 4.0f * (b * b));
 *       l1 = 0.5f * (t + e);  l2 = 0.5f * (t - e);  l2 = l2 > 0.0f ? l2 : 0.0f;
 *       s1 = sqrtf(l1 > 0.0f ? l1 : 0.0f);  s2 = sqrtf(l2);
 *       strength = s1;
 *       flat = !(s1 >= 1e-3f)   (also for NaN: the float rounding of U alone
 *               gives gradients near 1e-5, whose angle is noise);
 *       coherence = flat ? 0.0f : (s1 - s2) / (s1 + s2);
 *       the orientation (u, v) = (d, 2.0f * b) (its angle twice the angle of
 *       the dominant gradient direction), as a pseudo-angle in [0, 4)
 *       growing with the angle (one quarter per quadrant):
 *         v >= 0: u >= 0 ? v / (u + v) : 1.0f + (-u) / (v - u)
 *         v < 0:  u < 0 ? 2.0f + (-v) / (-u - v) : 3.0f + u / (u - v)
 *       P = flat ? 0.0f : that (u = v = 0 gives NaN).
 *  5. Bins (A, S, C bins; the edges are the model's, ascending floats):
 *       angle: the count a of m < A with angle_edges[m] <= P, and a = 0
 *              when a == A; angle_edges[m] is the pseudo-angle of the
 *              direction (2 m + 1) pi / A, from its cosine and sine in
 *              double, rounded to float. Bins are centred: bin 0 holds
 *              gradients along x (a vertical edge), bin A / 2 (A even)
 *              gradients along y (a horizontal edge).
 *       strength: the count of k < S - 1 with strength_edges[k] <= strength
 *       coherence: the count of k < C - 1 with coherence_edges[k] <= coherence
 *              (a value equal to an edge goes to the upper bin; NaN to bin 0).
 *  6. Bucket = ((phase * A + angle) * S + strength) * C + coherence, phase =
 *     (y mod scale) * scale + (x mod scale) when plan->phases, else 0.
 * Flips: a device that contracts to fma, or whose sqrtf or division differ
 * from the host's by an ulp or so (OpenCL allows 3 and 2.5 ulp), may put a
 * pixel whose value lies within a few ulp of a bin edge (angle, strength,
 * coherence) into the neighbouring bin; so the conformance tolerance
 * allows a tiny fraction of pixels another bucket, with the output then of
 * a neighbouring filter.
 *
 * FILTER: with k = plan->ksize (5 or 7), h = k / 2 and b = bucket(p),
 *   out_c(p) = sum over t = k r + c (r, c = 0..k-1) of
 *              F_b[t] U_c(x + c - h, y + r - h),
 * indices reflect-101, F_b = plan->filters + k k b: row-major k x k, row r
 * the offset r - h in y (downwards), column c the offset c - h in x; the
 * filter is a general (asymmetric) k x k cross-correlation. Per bucket the
 * model gives F_b either as sum_l phi_{b,l} D_l over the 5 x 5 dictionary
 * (kind 0, k = 5) or directly (kind 1, a free linear map); lib/ops expands
 * either into this table once, in double, stored as float (a model stored
 * with symmetry holds one filter per orbit of buckets and lib/ops writes
 * the others as the orbit's transforms: the table always has every bucket).
 * So a path needs only the lookup and one k x k dot product per channel.
 * alpha (4 channels) is U's alpha (the source pixel's); u8 rounded to
 * nearest (even), saturated, NaN giving 0.
 */
typedef struct clik_lapar_model_plan {
    int scale; /* 2..4 */
    int angles, strengths, coherences;
    int phases; /* 0 or 1 */
    int window; /* 3, 5, 7 or 9 */
    int buckets;
    int ksize;                                    /* filter side: 5 or 7 */
    float angle_edges[CLIK_LAPAR_MODEL_MAX_BINS]; /* pseudo-angles, see step 5 */
    float strength_edges[CLIK_LAPAR_MODEL_MAX_BINS - 1];
    float coherence_edges[CLIK_LAPAR_MODEL_MAX_BINS - 1];
    const float *filters; /* buckets x ksize^2, each row-major ksize x ksize */
} clik_lapar_model_plan;

typedef struct clik_lapar_model_dsp {
    /* The buckets of up (F32, 1 or 4 channels) into U16 buckets of its size.
     * Returns 0, or -1 when out of memory (buckets untouched). */
    int (*classify)(const clik_image *up, const clik_lapar_model_plan *plan, clik_image *buckets);
    /* The filter: up and buckets as above, dst (u8 or f32, up's channels and
     * size). Returns 0, or -1 when out of memory. */
    int (*filter)(const clik_image *up, const clik_image *buckets,
                  const clik_lapar_model_plan *plan, clik_image *dst);
} clik_lapar_model_dsp;

/* One fused convolution of a LAPAR network, resolved by lib/ops/lapar_net.c
 * (weight norm, residual scales and the tail's two branches folded in). */
typedef struct clik_lapar_net_conv {
    int cin, cout;  /* input and output channels */
    int k;          /* kernel side: 3 or 5 (zero padding k / 2, cross-correlation) */
    const float *w; /* cout x cin x k x k, PyTorch's order */
    const float *b; /* cout */
    int relu;       /* max(0, .) after the bias */
    float alpha;    /* weight of the residual, when one is given */
    int shuffle;    /* 1, or s: pixel shuffle of the output (cout = c s^2) */
} clik_lapar_net_conv;

typedef struct clik_lapar_net_dsp {
    /* One convolution on planar f32 tensors of width x height (rows width
     * apart): in has c->cin planes, in_plane elements apart; res is NULL or
     * c->cout planes like in (res_plane apart), added as alpha * res after
     * the activation. out: c->cout planes of width x height (out_plane
     * apart) or, with shuffle s, c->cout / s^2 planes of s width x s height
     * where output channel c s^2 + i s + j of input pixel (y, x) lands at
     * (s y + i, s x + j). Only input rows [y0, y1) are computed (all of the
     * input is read). out overlaps neither in nor res. */
    void (*conv)(const clik_lapar_net_conv *c, const float *in, size_t in_plane, const float *res,
                 size_t res_plane, float *out, size_t out_plane, int width, int height, int y0,
                 int y1);
} clik_lapar_net_dsp;

/* Every family's table. */
/* A YUV 4:2:0 conversion's colour space resolved by lib/ops/yuv.c: 20-bit
 * fixed-point coefficients (clik_yuv_to_rgb, clik_rgb_to_yuv). */
typedef struct clik_yuv_coeffs {
    int32_t y_off;                  /* 16 (video range) or 0 (full range) */
    int32_t cy, cvr, cvg, cug, cub; /* YUV -> RGB */
    int32_t ry, gy, by;             /* RGB -> Y */
    int32_t ru, gu, bu, rv, gv, bv; /* RGB -> U, V */
} clik_yuv_coeffs;

/* A frame's planes on the host (lib/ops/yuv.c makes them from the views
 * of the planes): chroma sample i of chroma row j of U at
 * u[j * u_stride + i * step], of V likewise (step 2 for NV12 and NV21,
 * whose u and v point into one interleaved plane; 1 for I420). */
typedef struct clik_yuv_planes {
    int width, height; /* the frame's: even, at least 2 */
    uint8_t *y;
    size_t y_stride;
    uint8_t *u, *v;
    size_t u_stride, v_stride;
    int step;
} clik_yuv_planes;

typedef struct clik_yuv_dsp {
    /* dst (u8, 1, 3 or 4 channels, dst->order) = the RGB of frame src
     * (clik_yuv_to_rgb); 1 channel copies Y. */
    void (*to_rgb)(const clik_yuv_planes *src, clik_image *dst, const clik_yuv_coeffs *k);
    /* frame dst = the YUV of src (u8, 3 or 4 channels, src->order) */
    void (*from_rgb)(const clik_image *src, const clik_yuv_planes *dst, const clik_yuv_coeffs *k);
} clik_yuv_dsp;

typedef struct clik_cpu_dsp {
    clik_hist_dsp hist;
    clik_pyramid_dsp pyramid;
    clik_integral_dsp integral;
    clik_resize_dsp resize;
    clik_filter_dsp filter;
    clik_ssim_dsp ssim;
    clik_fusion_dsp fusion;
    clik_flow_dsp flow;
    clik_lapar_dsp lapar;
    clik_lapar_model_dsp lapar_model;
    clik_lapar_net_dsp lapar_net;
    clik_yuv_dsp yuv;
} clik_cpu_dsp;

/* 1 when this build has the NEON path (natively or through SIMDe). */
int clik__cpu_have_neon(void);
/* Fills dsp with the scalar entries, then the NEON ones when neon is set. */
void clik__cpu_dsp_init(clik_cpu_dsp *dsp, int neon);

void clik__hist_dsp_init_scalar(clik_hist_dsp *dsp);
void clik__hist_dsp_init_neon(clik_hist_dsp *dsp);
void clik__pyramid_dsp_init_scalar(clik_pyramid_dsp *dsp);
void clik__pyramid_dsp_init_neon(clik_pyramid_dsp *dsp);
void clik__integral_dsp_init_scalar(clik_integral_dsp *dsp);
void clik__integral_dsp_init_neon(clik_integral_dsp *dsp);
void clik__resize_dsp_init_scalar(clik_resize_dsp *dsp);
void clik__resize_dsp_init_neon(clik_resize_dsp *dsp);
void clik__filter_dsp_init_scalar(clik_filter_dsp *dsp);
void clik__filter_dsp_init_neon(clik_filter_dsp *dsp);
void clik__ssim_dsp_init_scalar(clik_ssim_dsp *dsp);
void clik__ssim_dsp_init_neon(clik_ssim_dsp *dsp);
void clik__fusion_dsp_init_scalar(clik_fusion_dsp *dsp);
void clik__fusion_dsp_init_neon(clik_fusion_dsp *dsp);
void clik__flow_dsp_init_scalar(clik_flow_dsp *dsp);
void clik__flow_dsp_init_neon(clik_flow_dsp *dsp);
void clik__lapar_dsp_init_scalar(clik_lapar_dsp *dsp);
void clik__lapar_dsp_init_neon(clik_lapar_dsp *dsp);
void clik__lapar_model_dsp_init_scalar(clik_lapar_model_dsp *dsp);
void clik__lapar_model_dsp_init_neon(clik_lapar_model_dsp *dsp);
void clik__lapar_net_dsp_init_scalar(clik_lapar_net_dsp *dsp);
void clik__lapar_net_dsp_init_neon(clik_lapar_net_dsp *dsp);
void clik__yuv_dsp_init_scalar(clik_yuv_dsp *dsp);
void clik__yuv_dsp_init_neon(clik_yuv_dsp *dsp);

/* The scalar entries, for NEON entries to hand formats they do not cover. */
void clik__pyramid_down_scalar(const clik_image *src, clik_image *dst);
void clik__pyramid_up_scalar(const clik_image *src, clik_image *dst);
void clik__pyramid_combine_scalar(const clik_image *a, const clik_image *b, int sign,
                                  clik_image *out);
void clik__integral_scalar(const clik_image *src, clik_image *sum, clik_image *sqsum);
/* CLAHE: a tile's table from its histogram (clipped and redistributed in
 * place, then the scaled cumulative counts). */
void clik__clahe_lut_of(uint32_t *hist, const clik_clahe_plan *p, uint8_t *lut);
void clik__resize_scalar(const clik_image *src, clik_image *dst, clik_interp method,
                         const double *scale);
int clik__blur_scalar(const clik_image *src, clik_image *dst, const float *weights, int ksize);
void clik__gray_scalar(const clik_image *src, clik_image *dst);
int clik__ssim_scalar(const clik_image *a, const clik_image *b, clik_image *map, double *mean);
void clik__ssim_tiles_scalar(const clik_image *a, const clik_image *b, int tile, clik_image *map);
/* Pixel (x, y) of clik_flow_warp (f: the flow there) into out, averaged
 * with ref (NULL: not) as clik_flow_warp_average. */
void clik__flow_warp_pixel(const clik_image *src, const float *f, int x, int y, const uint8_t *ref,
                           uint8_t *out);
/* Entries the NEON fusion path builds on (the NEON resize, blur, gray and
 * tile SSIM). */
void clik__resize_neon(const clik_image *src, clik_image *dst, clik_interp method,
                       const double *scale);
int clik__blur_neon(const clik_image *src, clik_image *dst, const float *weights, int ksize);
void clik__gray_neon(const clik_image *src, clik_image *dst);
void clik__ssim_tiles_neon(const clik_image *a, const clik_image *b, int tile, clik_image *map);

/* reflect-101 border index: ...|c b|a b c d|c b|... Repeats the fold until
 * p is in range, because with n = 2 or 3 one fold of a far index can
 * overshoot the other edge. n = 1 gives 0. */
static inline int clik__reflect101(int p, int n)
{
    if (n == 1)
        return 0;
    while (p < 0 || p >= n)
        p = p < 0 ? -p : 2 * (n - 1) - p;
    return p;
}

#endif

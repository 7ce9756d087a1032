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

typedef struct clik_hist_dsp {
    /* Adds the counts of every channel of a u8 image to hist[c * 256 + v]. */
    void (*hist)(const uint8_t *src, size_t stride, int width, int height, int channels,
                 uint32_t *hist);
    /* dst = tables[c * 256 + src] for channel c when per_channel, else
     * tables[src]. src and dst may be the same memory. */
    void (*lut)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width,
                int height, int channels, const uint8_t *tables, int per_channel);
} clik_hist_dsp;

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
     * sqsum. Types: u8 -> sum u32, u64 or f64, sqsum u64 or f64; f32 -> sum
     * f32 or f64, sqsum f64. u32 sums wrap (the caller refused overflow). */
    void (*integral)(const clik_image *src, clik_image *sum, clik_image *sqsum);
} clik_integral_dsp;

typedef struct clik_resize_dsp {
    /* clik_resize: src into dst (the scale is dst's size over src's), u8 or
     * f32, 1 or 4 channels. */
    void (*resize)(const clik_image *src, clik_image *dst, clik_interp method);
} clik_resize_dsp;

typedef struct clik_filter_dsp {
    /* Separable blur with ksize normalized taps (weights[ksize]), border
     * reflect-101; u8 or f32, 1, 2 or 4 channels; dst may be src. Returns 0,
     * or -1 when out of memory (dst then untouched). */
    int (*blur)(const clik_image *src, clik_image *dst, const float *weights, int ksize);
    /* clik_gray: 4-channel src to 1-channel dst, u8 or f32. */
    void (*gray)(const clik_image *src, clik_image *dst);
} clik_filter_dsp;

typedef struct clik_ssim_dsp {
    /* clik_ssim: map (may be NULL) and *mean. Returns 0, or -1 when out of
     * memory. */
    int (*ssim)(const clik_image *a, const clik_image *b, clik_image *map, double *mean);
    /* clik_ssim_tiles: u8 a, b; F32 map of ceil(W / tile) x ceil(H / tile). */
    void (*tiles)(const clik_image *a, const clik_image *b, int tile, clik_image *map);
} clik_ssim_dsp;

typedef struct clik_fusion_dsp {
    /* clik_upscale_fusion with validated arguments (opt filled, scale =
     * dst->width / src->width); artifact_map may be NULL. Returns 0, or -1
     * when out of memory. */
    int (*fusion)(const clik_image *src, clik_image *dst, const clik_fusion_options *opt,
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
    int initial;         /* flow holds the initial estimate */
    int f16;             /* 16-bit storage of u and p (NEON) */
    int *iterations_run; /* scales * warps entries, coarsest level first:
                            the iterations each warp ran */
} clik_flow_plan;

typedef struct clik_flow_dsp {
    /* clik_flow_tvl1 on host images: I0, I1 one channel of one type (u8 or
     * f32), flow 2-channel f32 of their size (read first when plan->initial).
     * Returns 0, or -1 when out of memory (flow then untouched). */
    int (*tvl1)(const clik_image *i0, const clik_image *i1, clik_image *flow,
                const clik_flow_plan *plan);
} clik_flow_dsp;

/* One clik_lapar_filter run, resolved by lib/ops/lapar.c: the planes of phi
 * it reads and the atom each one weights (the dictionary's atom, scaled by
 * a selection's gamma or folded through its re-fit matrix). */
typedef struct clik_lapar_plan {
    int scale;                                         /* 2..4 */
    int count;                                         /* terms, 1..CLIK_LAPAR_MAX_ATOMS */
    int plane[CLIK_LAPAR_MAX_ATOMS];                   /* the plane of phi of term j */
    float atom[CLIK_LAPAR_MAX_ATOMS][CLIK_LAPAR_TAPS]; /* its 5 x 5 atom, row-major */
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

/* Every family's table. */
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
} clik_cpu_dsp;

/* 1 when this build has the NEON path (natively or through SIMDe). */
int clik__cpu_have_neon(void);
/* 1 when the NEON path runs as native NEON: only then is it the default. */
int clik__cpu_neon_native(void);
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

/* The scalar entries, for NEON entries to hand formats they do not cover. */
void clik__pyramid_down_scalar(const clik_image *src, clik_image *dst);
void clik__pyramid_up_scalar(const clik_image *src, clik_image *dst);
void clik__pyramid_combine_scalar(const clik_image *a, const clik_image *b, int sign,
                                  clik_image *out);
void clik__integral_scalar(const clik_image *src, clik_image *sum, clik_image *sqsum);
void clik__resize_scalar(const clik_image *src, clik_image *dst, clik_interp method);
int clik__blur_scalar(const clik_image *src, clik_image *dst, const float *weights, int ksize);
void clik__gray_scalar(const clik_image *src, clik_image *dst);
int clik__ssim_scalar(const clik_image *a, const clik_image *b, clik_image *map, double *mean);
void clik__ssim_tiles_scalar(const clik_image *a, const clik_image *b, int tile, clik_image *map);
/* Entries the NEON fusion path builds on (the NEON resize, blur, gray and
 * tile SSIM). */
void clik__resize_neon(const clik_image *src, clik_image *dst, clik_interp method);
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

/* clik-bench's flow family: clik_flow_tvl1 on a pair of synthetic images.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "bench_ops.h"

/* Romera et al.'s configuration (section III-A: 1 level, 1 warp, 10 iterations) or
 * the defaults (the IPOL reference's), with f32 or f16 storage. */
typedef struct flow_bench {
    int one_warp;
    clik_flow_storage storage;
} flow_bench;

static const flow_bench flow_one_warp = {1, CLIK_FLOW_STORAGE_F32};
static const flow_bench flow_one_warp_f16 = {1, CLIK_FLOW_STORAGE_F16};
static const flow_bench flow_defaults = {0, CLIK_FLOW_STORAGE_F32};
static const flow_bench flow_defaults_f16 = {0, CLIK_FLOW_STORAGE_F16};

/* Two u8 images read, the flow written. */
double flow_bytes(const bench_case *bc)
{
    return 2.0 * bench_pixels(bc) + 8.0 * bench_pixels(bc);
}

/* --kernels: the bytes a U or P step must move per pixel at one scale (the
 * 1-warp configuration; with several scales a launch's size varies): the U
 * step reads the warp's three planes (f32), u (2 planes) and p (4) and
 * writes u; the P step reads u and p and writes p. u and p are 4 or 2 bytes
 * an element by storage. */
double flow_kernel_bytes(const bench_case *bc, const char *kernel)
{
    const multi_state *s = bc->state;
    const flow_bench *fb = s ? s->user : NULL;
    if (!fb || !fb->one_warp)
        return 0.0;
    const double e = fb->storage == CLIK_FLOW_STORAGE_F16 ? 2.0 : 4.0;
    if (strncmp(kernel, "flow_u", 6) == 0)
        return bench_pixels(bc) * (12.0 + 8.0 * e);
    if (strncmp(kernel, "flow_p", 6) == 0)
        return bench_pixels(bc) * 10.0 * e;
    return 0.0;
}

static clik_status flow_call(clik_context *ctx, const clik_image *src, const clik_image *src2,
                             clik_image *outs, const flow_bench *fb)
{
    clik_flow_options o;
    clik_flow_options_init(&o);
    o.storage = fb->storage;
    if (fb->one_warp) {
        o.scales = 1;
        o.warps = 1;
        o.iterations = 10;
    }
    return clik_flow_tvl1(ctx, src, src2, &outs[0], &o);
}

/* The second image: the input moved by (1.5, -0.75) pixels, bilinear. */
static void flow_second(const clik_image *src, clik_image *dst)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            double v = 0.0;
            for (int k = 0; k < 4; k++) {
                int sx = x - 2 + (k & 1), sy = y + (k >> 1);
                sx = sx < 0 ? 0 : sx >= src->width ? src->width - 1 : sx;
                sy = sy < 0 ? 0 : sy >= src->height ? src->height - 1 : sy;
                v += 0.5 * ((k >> 1) ? 0.75 : 0.25) *
                     ((const uint8_t *)src->data)[(size_t)sy * src->stride + (size_t)sx];
            }
            ((uint8_t *)dst->data)[(size_t)y * dst->stride + (size_t)x] = (uint8_t)(v + 0.5);
        }
}

static clik_status flow_setup_as(bench_case *bc, multi_call call, const flow_bench *fb)
{
    int two = 2;
    clik_type t = CLIK_F32;
    clik_status st =
        multi_setup_tol(bc, call, 1, &bc->width, &bc->height, &t, &two,
                        fb->storage == CLIK_FLOW_STORAGE_F16 ? SUP_TOL_FLOW_F16 : SUP_TOL_FLOW);
    multi_state *s = bc->state;
    if (st != CLIK_OK)
        return st;
    s->user = fb;
    st = bench_host(bc, bc->width, bc->height, 1, CLIK_U8, &s->src2_host);
    if (st == CLIK_OK) {
        flow_second(&bc->src_host, &s->src2_host);
        st = bench_upload(bc, &s->src2_host, &s->src2);
    }
    return st;
}

MULTI_CONFIG_OP(flow_one_warp_setup, flow_call, flow_one_warp, flow_setup_as)
MULTI_CONFIG_OP(flow_one_warp_f16_setup, flow_call, flow_one_warp_f16, flow_setup_as)
MULTI_CONFIG_OP(flow_defaults_setup, flow_call, flow_defaults, flow_setup_as)
MULTI_CONFIG_OP(flow_defaults_f16_setup, flow_call, flow_defaults_f16, flow_setup_as)

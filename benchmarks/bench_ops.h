/*
 * What the op files of clik-bench share: the state of an op that times one
 * public call and checks its outputs against the scalar oracle's (the
 * "multi" ops), and the entries of the op table of the flow and LAPAR
 * families (bench_ops_flow.c, bench_ops_lapar.c). SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_BENCH_OPS_H
#define CLIK_BENCH_OPS_H

#include "bench.h"
#include "compare.h"

#define MAX_OUTS 6

/* One public call: src (and src2 for two-input ops) into outs, *value for a
 * scalar result. Called with the timed context and with the oracle's. */
typedef clik_status (*multi_call)(clik_context *ctx, const clik_image *src, const clik_image *src2,
                                  clik_image *outs, double *value);

/* The outputs of one public call, and the call itself for the oracle. */
typedef struct multi_state {
    multi_call call;
    int n;
    clik_image outs[MAX_OUTS];
    sup_tolerance tol;
    clik_image src2, src2_host; /* second input (SSIM; LAPAR's phi), else empty */
    double value;               /* the timed call's scalar result */
    const void *user;           /* the op's own settings (LAPAR, flow) */
} multi_state;

/* An op of a family whose ops differ only in a settings struct (LAPAR,
 * flow): a multi_call that runs FN(ctx, src, src2, outs, &CONFIG), and the
 * op's setup SETUP(bc), SETUP_AS(bc, that call, &CONFIG). A macro: a
 * multi_call takes no settings. */
#define MULTI_CONFIG_OP(SETUP, FN, CONFIG, SETUP_AS)                                               \
    static clik_status SETUP##_call(clik_context *ctx, const clik_image *src,                      \
                                    const clik_image *src2, clik_image *outs, double *value)       \
    {                                                                                              \
        (void)value;                                                                               \
        return FN(ctx, src, src2, outs, &CONFIG);                                                  \
    }                                                                                              \
    clik_status SETUP(bench_case *bc)                                                              \
    {                                                                                              \
        return SETUP_AS(bc, SETUP##_call, &CONFIG);                                                \
    }

/* Input elements: width x height x channels. */
double bench_pixels(const bench_case *bc);
/* Output elements: out_width x out_height x channels. */
double bench_out_pixels(const bench_case *bc);

/* A multi op's state (bc->state) with n outputs of the given sizes, types and
 * channel counts (NULL: the input's), compared under tol. */
clik_status multi_setup_tol(bench_case *bc, multi_call call, int n, const int *w, const int *h,
                            const clik_type *types, const int *channels, sup_tolerance tol);

/* The outputs of a multi op against those of its call on ref_ctx (the
 * oracle's context, or another CPU path's); 1 when they agree. */
int multi_check_on(bench_case *bc, clik_context *ref_ctx);

/* The LAPAR family (bench_ops_lapar.c): the filter's bytes and setups by
 * phi (72 atoms f32 or f16, 36 or 7 kept), the released networks' setups,
 * their check and their kernels' flops. */
double lapar_bytes(const bench_case *bc);
double lapar_kernel_bytes(const bench_case *bc, const char *kernel);
clik_status lapar_setup(bench_case *bc);
clik_status lapar_f16_setup(bench_case *bc);
clik_status lapar_half_setup(bench_case *bc);
clik_status lapar_tenth_setup(bench_case *bc);
clik_status call_net_a_setup(bench_case *bc);
clik_status call_net_b_setup(bench_case *bc);
clik_status call_net_c_setup(bench_case *bc);
int net_check(bench_case *bc);
double net_kernel_flops(const bench_case *bc, const char *kernel);

/* The flow family (bench_ops_flow.c): bytes moved, per-kernel bytes and the
 * setups of its four ops. */
double flow_bytes(const bench_case *bc);
double flow_kernel_bytes(const bench_case *bc, const char *kernel);
clik_status flow_one_warp_setup(bench_case *bc);
clik_status flow_one_warp_f16_setup(bench_case *bc);
clik_status flow_defaults_setup(bench_case *bc);
clik_status flow_defaults_f16_setup(bench_case *bc);

#endif

/* clik-bench's LAPAR family: clik_lapar_filter on a synthetic phi, and the
 * released LAPAR networks (clik_lapar_net_run) checked against the CPU path.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "half.h"
#include "bench_ops.h"

/* ---- LAPAR family: clik_lapar_filter by --scale (2..4), phi of the default dictionary ---- */

/* The terms of each op: every atom of the default dictionary, or a selection
 * of that many (spread evenly, weights 1) whose phi has only their planes. */
typedef struct lapar_bench {
    int terms;
    clik_type phi_type;
} lapar_bench;

static const lapar_bench lapar_full = {CLIK_LAPAR_ATOMS, CLIK_F32};
static const lapar_bench lapar_f16 = {CLIK_LAPAR_ATOMS, CLIK_F16};
static const lapar_bench lapar_half = {CLIK_LAPAR_ATOMS / 2, CLIK_F32};
static const lapar_bench lapar_tenth = {7, CLIK_F32};

static const lapar_bench *lapar_of(const bench_case *bc)
{
    const multi_state *s = bc->state;
    return (const lapar_bench *)s->user;
}

double lapar_bytes(const bench_case *bc)
{
    /* phi read once, the input read, the output written. */
    const lapar_bench *lb = lapar_of(bc);
    return bench_out_pixels(bc) / bc->channels * lb->terms * (double)clik_type_size(lb->phi_type) +
           bench_pixels(bc) + bench_out_pixels(bc);
}

/* --kernels: the filter kernel moves what the op must (phi, the input, the
 * output); the bicubic upsample has no model here. */
double lapar_kernel_bytes(const bench_case *bc, const char *kernel)
{
    return strstr(kernel, "upsample") ? 0.0 : lapar_bytes(bc);
}

static clik_status lapar_call(clik_context *ctx, const clik_image *src, const clik_image *phi,
                              clik_image *outs, const lapar_bench *lb)
{
    static float atoms[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
    clik_lapar_dict_default(atoms);
    clik_lapar_selection sel = {.atoms = CLIK_LAPAR_ATOMS, .kept = lb->terms};
    for (int i = 0; i < lb->terms; i++) {
        sel.index[i] = i * CLIK_LAPAR_ATOMS / lb->terms;
        sel.gamma[i] = 1.0f;
    }
    const clik_lapar_dict d = {CLIK_LAPAR_ATOMS, atoms, lb->terms < CLIK_LAPAR_ATOMS ? &sel : NULL};
    return clik_lapar_filter(ctx, src, phi, &d, outs[0].width / src->width, &outs[0]);
}

/* phi: each plane a smooth field around 1 / terms, a natural image's
 * structure (the input's first channel) mixed in per plane. */
static clik_status lapar_setup_as(bench_case *bc, multi_call call, const lapar_bench *lb)
{
    const int s = (int)bc->scale, w = s * bc->width, h = s * bc->height;
    if (s < 2 || s > 4)
        return CLIK_ERR_INVALID_ARG;
    bc->out_width = w;
    bc->out_height = h;
    clik_type t = CLIK_U8;
    clik_status st = multi_setup_tol(bc, call, 1, &w, &h, &t, NULL, SUP_TOL_U8_FLOAT);
    multi_state *s_ = bc->state;
    if (st != CLIK_OK)
        return st;
    s_->user = lb;
    st = bench_host(bc, w, h * lb->terms, 1, lb->phi_type, &s_->src2_host);
    if (st != CLIK_OK)
        return st;
    for (int l = 0; l < lb->terms; l++)
        for (int y = 0; y < h; y++) {
            const uint8_t *in =
                (const uint8_t *)bc->src_host.data + (size_t)(y / s) * bc->src_host.stride;
            char *row = (char *)s_->src2_host.data + (size_t)(l * h + y) * s_->src2_host.stride;
            for (int x = 0; x < w; x++) {
                const double v = (1.0 + 0.5 * sin(0.05 * x + 0.3 * l) * cos(0.04 * y - 0.2 * l) +
                                  0.3 * (in[(x / s) * bc->channels] / 255.0 - 0.5)) /
                                 lb->terms;
                if (lb->phi_type == CLIK_F16)
                    ((uint16_t *)(void *)row)[x] = clik__float_to_half((float)v);
                else
                    ((float *)(void *)row)[x] = (float)v;
            }
        }
    return bench_upload(bc, &s_->src2_host, &s_->src2);
}

MULTI_CONFIG_OP(lapar_setup, lapar_call, lapar_full, lapar_setup_as)
MULTI_CONFIG_OP(lapar_f16_setup, lapar_call, lapar_f16, lapar_setup_as)
MULTI_CONFIG_OP(lapar_half_setup, lapar_call, lapar_half, lapar_setup_as)
MULTI_CONFIG_OP(lapar_tenth_setup, lapar_call, lapar_tenth, lapar_setup_as)

/* The released LAPAR networks, built into the library (SKIP-like failure
 * with a message when this build holds none). */
static clik_status call_net(clik_context *ctx, const clik_image *src, clik_image *outs,
                            const char *name)
{
    clik_lapar_net *net = NULL;
    clik_status st = clik_lapar_net_builtin(ctx, name, outs[0].width / src->width, &net);
    return st == CLIK_OK ? clik_lapar_net_run(ctx, net, src, &outs[0], NULL) : st;
}

#define NET_CALL(NAME, NET)                                                                        \
    static clik_status NAME(clik_context *ctx, const clik_image *src, const clik_image *src2,      \
                            clik_image *outs, double *value)                                       \
    {                                                                                              \
        (void)src2, (void)value;                                                                   \
        return call_net(ctx, src, outs, NET);                                                      \
    }                                                                                              \
    clik_status NAME##_setup(bench_case *bc)                                                       \
    {                                                                                              \
        int s = (int)bc->scale, w = s * bc->width, h = s * bc->height;                             \
        bc->out_width = w;                                                                         \
        bc->out_height = h;                                                                        \
        clik_type t = CLIK_U8;                                                                     \
        return multi_setup_tol(bc, NAME, 1, &w, &h, &t, NULL, SUP_TOL_U8_FLOAT);                   \
    }
/* --kernels: the floating-point operations of the network's 3 x 3 and 5 x 5
 * convolutions in one run (the library names their launches by kernel
 * size), from the network's shape: with P input pixels, nf features, B
 * blocks of U units, L atoms, scale s, per pixel
 *   3 x 3: head 3 nf, units 2 B U nf^2, reductions B U nf^2, up nf^2 s^2,
 *          fuse nf^2 s^2, last nf L s^2   (taps 9, 2 flops each)
 *   5 x 5: the folded tail nf^2 s^2       (taps 25). */
double net_kernel_flops(const bench_case *bc, const char *kernel)
{
    /* the op's name ends in the variant's letter: lapar_net_run-a, -b, -c */
    const size_t n = strlen(bc->op->name);
    const char v = n > 0 ? bc->op->name[n - 1] : '?';
    const char *name = v == 'a' ? "lapar-a" : v == 'b' ? "lapar-b" : v == 'c' ? "lapar-c" : NULL;
    clik_lapar_net *net = NULL;
    clik_lapar_net_info i;
    if (!name || clik_lapar_net_builtin(bc->ctx, name, (int)bc->scale, &net) != CLIK_OK ||
        clik_lapar_net_describe(net, &i) != CLIK_OK) {
        clik_lapar_net_free(net);
        return 0.0;
    }
    clik_lapar_net_free(net);
    const double p = (double)bc->width * bc->height, nf = i.features, s2 = i.scale * i.scale;
    if (strcmp(kernel, "lapar_net_conv3x3") == 0)
        return 2.0 * 9.0 * p *
               (3.0 * nf + 3.0 * i.blocks * i.units * nf * nf + nf * nf * s2 + nf * nf * s2 +
                nf * i.atoms * s2);
    if (strcmp(kernel, "lapar_net_conv5x5") == 0)
        return 2.0 * 25.0 * p * nf * nf * s2;
    return 0.0;
}

NET_CALL(call_net_a, "lapar-a")
NET_CALL(call_net_b, "lapar-b")
NET_CALL(call_net_c, "lapar-c")

/* The LAPAR networks against the NEON path where the build has it (the
 * scalar oracle computes in double: minutes at the benchmark sizes; the
 * NEON path agrees with it under the conformance cases). */
int net_check(bench_case *bc)
{
    clik_context_options o;
    clik_context_options_init(&o);
    o.device = "none";
    o.cpu_path = clik_cpu_path_available(CLIK_CPU_NEON) ? CLIK_CPU_NEON : CLIK_CPU_SCALAR;
    clik_context *ctx = NULL;
    return multi_check_on(bc, clik_context_create(&ctx, &o) == CLIK_OK ? ctx : NULL);
}

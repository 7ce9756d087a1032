/*
 * LAPAR network family: the work-item shape of the network's convolutions
 * (lnet_local, lnet_vw, lnet_ry, lnet_cob) per device and problem, searched
 * by timing whole runs (clik_lapar_net_tune) and kept in the tuning store
 * (lib/tune_store.c) beside the LAPAR filter's work-group searches: a record
 * of kernel lapar_net_conv whose variant is lnet_local and whose "work-group"
 * is (pixels, rows, output channels) per work-item. A problem is the
 * network's shape, the input's size class (the power of two of its pixel
 * count) and the activations' type.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_net.h"

static void tuning_of(const net_conv_shape *sh, double ms, int stored, clik_lapar_net_tuning *t)
{
    t->local = sh->local;
    t->vw = sh->vw;
    t->ry = sh->ry;
    t->cob = sh->cob;
    t->ms = ms;
    t->stored = stored;
}

static clik_status check_args(clik_context *ctx, const char *fn, const clik_lapar_net *net, int w,
                              int h, const clik_lapar_net_options *opt, const void *out)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!net || !out)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: %s is NULL", fn, net ? "the result" : "net");
    if (w < 2 || h < 2 || (long)w * net->info.scale > CLIK_MAX_DIM ||
        (long)h * net->info.scale > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "%s: an input of %dx%d (at least 2x2, at most %d / scale a side)", fn, w,
                          h, CLIK_MAX_DIM);
    if (opt && (opt->f16_activations < 0 || opt->f16_activations > 1))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: f16_activations is %d; 0 or 1", fn,
                          opt->f16_activations);
    if (!ctx->has_device)
        return clik__fail(ctx, CLIK_ERR_NO_DEVICE,
                          "%s: no OpenCL device (the CPU paths have no "
                          "work-item shape)",
                          fn);
    return CLIK_OK;
}

clik_status clik_lapar_net_tuning_get(clik_context *ctx, const clik_lapar_net *net, int width,
                                      int height, const clik_lapar_net_options *opt,
                                      clik_lapar_net_tuning *out)
{
    clik_status st = check_args(ctx, "clik_lapar_net_tuning_get", net, width, height, opt, out);
    if (st != CLIK_OK)
        return st;
    net_conv_shape sh;
    const int stored =
        clik__lapar_net_shape(ctx, net, width, height, opt ? opt->f16_activations : 0, &sh);
    tuning_of(&sh, 0.0, stored, out);
    return CLIK_OK;
}

/* One timed run of the search. */
typedef struct search_run {
    const clik_lapar_net *net;
    const clik_image *src;
    clik_image *dst;
    const clik_lapar_net_options *opt;
    const net_conv_shape *shape;
} search_run;

static clik_status run_once(clik_context *ctx, void *user)
{
    const search_run *r = user;
    return clik__lapar_net_run_shaped(ctx, r->net, r->src, r->dst, NULL, r->opt, r->shape);
}

clik_status clik_lapar_net_tune(clik_context *ctx, const clik_lapar_net *net, int width, int height,
                                const clik_lapar_net_options *opt, clik_lapar_net_tuning *best)
{
    clik_status st = check_args(ctx, "clik_lapar_net_tune", net, width, height, opt, best);
    if (st != CLIK_OK)
        return st;
    const int s = net->info.scale, cpu = ctx->dev.type == CLIK_DEVICE_CPU;
    clik_image src = {0}, dst = {0};
    st = clik_image_alloc(&src, width, height, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_image_alloc(&dst, width * s, height * s, 4, CLIK_U8);
    if (st != CLIK_OK) {
        clik_image_free(&src);
        return clik__fail(ctx, st, "clik_lapar_net_tune: out of memory for a %dx%d input", width,
                          height);
    }
    /* a smooth field: the network's time does not depend on the pixels */
    for (int y = 0; y < height; y++) {
        uint8_t *row = (uint8_t *)src.data + (size_t)y * src.stride;
        for (int x = 0; x < 4 * width; x++)
            row[x] = (uint8_t)(128.0 + 100.0 * sin(0.05 * x + 0.07 * y + (x & 3)));
    }
    /* The candidates: on CPU devices vectors along a row; elsewhere one
     * pixel, rows and channels per work-item, with and without local tiles. */
    static const int cpu_vw[] = {4, 8, 16}, cpu_ry[] = {1, 2}, cpu_cob[] = {8, 16};
    static const int gpu_ry[] = {1, 2, 4, 8}, gpu_cob[] = {4, 8, 16};
    net_conv_shape cand[64];
    int n = 0;
    if (cpu) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 2; k++)
                    cand[n++] = (net_conv_shape){0, cpu_vw[i], cpu_ry[j], cpu_cob[k], 3, 0};
    } else {
        for (int l = 0; l < 2; l++)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 3; k++)
                    cand[n++] = (net_conv_shape){l, 1, gpu_ry[j], gpu_cob[k], 3, 0};
        cand[n++] = (net_conv_shape){0, 2, 2, 8, 3, 0};
        cand[n++] = (net_conv_shape){0, 4, 1, 8, 3, 0};
    }
    /* the Winograd layers as the key or the device's default has them */
    for (int i = 0; i < n; i++)
        cand[i].wino = (int)clik__tune(ctx, CLIK_TUNE_LNET_WINO,
                                       cpu && ctx->dev.local_mem_size >= 65536 ? 1 : 0);
    double best_ms = INFINITY;
    int best_i = -1;
    for (int i = 0; i < n; i++) {
        search_run r = {net, &src, &dst, opt, &cand[i]};
        double ms = INFINITY;
        st = clik__tune_time(ctx, run_once, &r, 2, &ms);
        if (st == CLIK_ERR_DEVICE_LIMITS) {
            st = CLIK_OK; /* a shape this device cannot run (local memory, work-group size) */
            continue;
        }
        if (st != CLIK_OK)
            break;
        clik__log(ctx, CLIK_LOG_DEBUG, "clik_lapar_net_tune: local %d vw %d ry %d cob %d: %.3f ms",
                  cand[i].local, cand[i].vw, cand[i].ry, cand[i].cob, ms);
        if (ms < best_ms) {
            best_ms = ms;
            best_i = i;
        }
    }
    clik_image_free(&src);
    clik_image_free(&dst);
    if (st != CLIK_OK)
        return st;
    if (best_i < 0)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "clik_lapar_net_tune: no candidate shape runs on this device");
    const clik_tune_record rec = {
        cand[best_i].local, {cand[best_i].vw, cand[best_i].ry, cand[best_i].cob}, best_ms};
    char problem[128];
    clik__lapar_net_problem(net, width, height, opt ? opt->f16_activations : 0, problem,
                            sizeof(problem));
    const clik_status stored = clik__tune_store(ctx, "lapar_net", "lapar_net_conv", problem, &rec);
    tuning_of(&cand[best_i], best_ms, stored == CLIK_OK, best);
    return stored;
}

/*
 * LAPAR network family: the work-item shape a run of the network's
 * convolutions takes (lnet_local, lnet_vw, lnet_ry, lnet_cob): the tuning
 * keys where given, else the tuning store's record of the problem (what
 * clik_lapar_net_tune, lapar_net_tune.c, stored: kernel lapar_net_conv,
 * variant lnet_local, "work-group" (pixels, rows, output channels) per
 * work-item), else the device's defaults. A problem is the network's shape,
 * the input's size class (the power of two of its pixel count) and the
 * activations' type.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "lapar_net.h"

void clik__lapar_net_problem(const clik_lapar_net *net, int w, int h, int act_half, char *out,
                             size_t cap)
{
    const clik_lapar_net_info *i = &net->info;
    int px = 0;
    for (double n = (double)w * h; n >= 2.0; n /= 2.0)
        px++;
    snprintf(out, cap, "nf %d blocks %d units %d atoms %d scale %d pixels 2^%d %s", i->features,
             i->blocks, i->units, i->atoms, i->scale, px, act_half ? "f16" : "f32");
}

/* A record this library could have written: each member a choice of its key. */
static int shape_valid(const clik_tune_record *r)
{
    const int vw = r->wg[0], ry = r->wg[1], cob = r->wg[2];
    return (r->variant == 0 || (r->variant == 1 && vw == 1)) && vw >= 1 && vw <= 16 &&
           !(vw & (vw - 1)) && ry >= 1 && ry <= 8 && !(ry & (ry - 1)) && cob >= 1 && cob <= 16 &&
           !(cob & (cob - 1));
}

int clik__lapar_net_shape(clik_context *ctx, const clik_lapar_net *net, int w, int h, int act_half,
                          net_conv_shape *sh)
{
    const int cpu = ctx->dev.type == CLIK_DEVICE_CPU;
    /* choices 1|2|4|8|16: the index is the power of two */
    sh->local = (int)clik__tune(ctx, CLIK_TUNE_LNET_LOCAL, 0);
    sh->vw = 1 << clik__tune(ctx, CLIK_TUNE_LNET_VW, cpu ? 4 : 0);
    sh->ry = 1 << clik__tune(ctx, CLIK_TUNE_LNET_RY, cpu ? 0 : 3);
    sh->cob = 1 << clik__tune(ctx, CLIK_TUNE_LNET_COB, cpu ? 3 : 2);
    /* Winograd where 16-tile strips fit (PoCL: 1 MiB of local memory) */
    sh->wino =
        (int)clik__tune(ctx, CLIK_TUNE_LNET_WINO, cpu && ctx->dev.local_mem_size >= 65536 ? 1 : 0);
    sh->fixed = (clik__tune_given(ctx, CLIK_TUNE_LNET_RY) ? 1 : 0) |
                (clik__tune_given(ctx, CLIK_TUNE_LNET_COB) ? 2 : 0);
    if (clik__tune_given(ctx, CLIK_TUNE_LNET_LOCAL) || clik__tune_given(ctx, CLIK_TUNE_LNET_VW) ||
        clik__tune_given(ctx, CLIK_TUNE_LNET_RY) || clik__tune_given(ctx, CLIK_TUNE_LNET_COB))
        return 0; /* keys given: the caller's choice, not the store's */
    char problem[128];
    clik__lapar_net_problem(net, w, h, act_half, problem, sizeof(problem));
    clik_tune_record rec;
    if (clik__tune_load(ctx, "lapar_net", "lapar_net_conv", problem, &rec) != CLIK_OK ||
        !shape_valid(&rec))
        return 0;
    sh->local = rec.variant;
    sh->vw = rec.wg[0];
    sh->ry = rec.wg[1];
    sh->cob = rec.wg[2];
    sh->fixed = 3;
    return 1;
}

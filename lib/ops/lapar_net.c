/*
 * LAPAR network family: LaparNet's coefficients phi and the LAPAR filter of
 * the image with them (Li, Zhou, Qi, Jiang, Lu and Jia, "LAPAR", NeurIPS
 * 2020, sections 3.2-3.3; the layers as the authors' released code
 * defines them).
 *
 * The network, with nf features, B blocks of U units and scale s, on the
 * RGB input x in [0, 1] minus the training mean:
 *   head   h = ReLU(conv3(x))                                    nf channels
 *   unit   u(t) = rs conv3'(ReLU(conv3(t))) + xs t
 *   block  b(x) = rs conv3(concat(x0, .., x_{U-1})) + xs x, x0 = u0(x),
 *          x_j = u_j(x_{j-1}), the concatenation in that order
 *   up     ReLU(conv3(.)) to nf s^2 channels, pixel shuffle by s (channel
 *          c s^2 + i s + j of (y, x) to channel c of (s y + i, s x + j))
 *   tail   t = sk3 conv3(.) + sk5 conv5(.) on the same input, then
 *          ReLU(conv3(t)), then conv3 to the L planes of phi
 * (every convolution with a bias and zero padding, as cross-correlation).
 * Folded once when a network is read (clik__lapar_net_fold): each residual
 * scale rs into its convolution's weights and bias, the tail's two
 * branches into one 5 x 5 convolution (the 3 x 3 weights at its centre:
 * zero padding of 1 and 2 read the same pixels). What is left is a list of
 * steps, each one fused convolution: bias, taps, ReLU, plus xs times the
 * residual, stored plain or shuffled; the concatenation is the planes of
 * one tensor, which each unit writes in place. The OpenCL path runs each
 * step as a kernel (kernels/lapar_net.cl) on device buffers, then the LAPAR
 * filter's kernels (lib/ops/lapar.c) on the same buffers, a large image in
 * tiles (lib/ops/lapar_net_tile.c); the CPU path runs
 * the steps through the CPU table (scalar oracle or NEON), then the CPU
 * filter. The public entry points check their arguments and choose the
 * path in lib/ops/lapar_net_run.c.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_net.h"

/* ---- folding ------------------------------------------------------------------------ */

static size_t conv_weights(const clik_lapar_net_conv *c)
{
    return (size_t)c->cout * (size_t)c->cin * (size_t)c->k * (size_t)c->k;
}

/* Copies raw layer r into the folded store at *pos, its weights and bias
 * times `scale`; returns the step's convolution. */
static clik_lapar_net_conv copy_conv(const net_raw_conv *r, float scale, float *store, size_t *pos)
{
    clik_lapar_net_conv c = {r->cin, r->cout, r->k, NULL, NULL, 0, 0.0f, 1};
    float *w = store + *pos;
    const size_t n = conv_weights(&c);
    for (size_t i = 0; i < n; i++)
        w[i] = scale * r->w[i];
    float *b = w + n;
    for (int i = 0; i < r->cout; i++)
        b[i] = scale * r->b[i];
    *pos += n + (size_t)r->cout;
    c.w = w;
    c.b = b;
    return c;
}

static net_step step_of(clik_lapar_net_conv c, int in, int in_off, int out, int out_off)
{
    net_step s = {c, in, in_off, out, out_off, -1, 0, 0};
    return s;
}

int clik__lapar_net_fold(clik_lapar_net *net)
{
    const int nf = net->info.features, blocks = net->info.blocks, units = net->info.units;
    const int s = net->info.scale;
    size_t total = 25 * (size_t)nf * (size_t)nf + (size_t)nf;
    for (int i = 0; i < net->nraw; i++)
        total += (size_t)net->raw[i].cout * (size_t)net->raw[i].cin * (size_t)net->raw[i].k *
                     (size_t)net->raw[i].k +
                 (size_t)net->raw[i].cout;
    const int nsteps = 1 + blocks * (2 * units + 1) + 4;
    net->folded = malloc(total * sizeof(float));
    net->steps = calloc((size_t)nsteps, sizeof(net_step));
    if (!net->folded || !net->steps)
        return -1;
    size_t pos = 0;
    int n = 0;
    const net_raw_conv *r = net->raw;
    net_step *st = net->steps;
    /* head */
    st[n] = step_of(copy_conv(r++, 1.0f, net->folded, &pos), NET_IN, 0, NET_X0, 0);
    st[n++].conv.relu = 1;
    for (int b = 0; b < blocks; b++) {
        const int xa = b % 2 ? NET_X1 : NET_X0, xb = b % 2 ? NET_X0 : NET_X1;
        for (int u = 0; u < units; u++) {
            const int src = u ? NET_CAT : xa, src_off = u ? (u - 1) * nf : 0;
            st[n] = step_of(copy_conv(r++, 1.0f, net->folded, &pos), src, src_off, NET_TMP, 0);
            st[n++].conv.relu = 1;
            st[n] =
                step_of(copy_conv(r, r->scale[0], net->folded, &pos), NET_TMP, 0, NET_CAT, u * nf);
            st[n].conv.alpha = r->scale[1];
            st[n].res = src;
            st[n++].res_off = src_off;
            r++;
        }
        st[n] = step_of(copy_conv(r, r->scale[0], net->folded, &pos), NET_CAT, 0, xb, 0);
        st[n].conv.alpha = r->scale[1];
        st[n].res = xa;
        st[n++].res_off = 0;
        r++;
    }
    /* up, with the pixel shuffle */
    st[n] = step_of(copy_conv(r++, 1.0f, net->folded, &pos), blocks % 2 ? NET_X1 : NET_X0, 0,
                    NET_H0, 0);
    st[n].conv.relu = 1;
    st[n++].conv.shuffle = s;
    /* tail: sk3 conv3 + sk5 conv5 as one 5 x 5 convolution (the file keeps
     * sk3, sk5 after conv5) */
    const net_raw_conv *k3 = r++, *k5 = r++;
    clik_lapar_net_conv t = copy_conv(k5, k5->scale[1], net->folded, &pos);
    float *tw = net->folded + (pos - (size_t)nf - 25 * (size_t)nf * (size_t)nf);
    float *tb = tw + 25 * (size_t)nf * (size_t)nf;
    for (int o = 0; o < nf; o++) {
        for (int i = 0; i < nf; i++)
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++)
                    tw[(((size_t)o * nf + i) * 5 + y + 1) * 5 + x + 1] +=
                        k5->scale[0] * k3->w[(((size_t)o * nf + i) * 3 + y) * 3 + x];
        tb[o] += k5->scale[0] * k3->b[o];
    }
    st[n] = step_of(t, NET_H0, 0, NET_H1, 0);
    st[n++].hr = 1;
    /* fuse, last */
    st[n] = step_of(copy_conv(r++, 1.0f, net->folded, &pos), NET_H1, 0, NET_H0, 0);
    st[n].conv.relu = 1;
    st[n++].hr = 1;
    st[n] = step_of(copy_conv(r++, 1.0f, net->folded, &pos), NET_H0, 0, NET_PHI, 0);
    st[n++].hr = 1;
    net->nsteps = n;
    return 0;
}

/* ---- one run ------------------------------------------------------------------------ */

/* Elements of a plane of tensor t. */
static size_t plane_of(const net_args *a, int t)
{
    const size_t lr = (size_t)a->w * (size_t)a->h;
    return t >= NET_H0 ? lr * (size_t)a->s * (size_t)a->s : lr;
}

/* ---- OpenCL path -------------------------------------------------------------------- */

/* The device tensors have a zero border of HALO pixels (kernels/lapar_net.cl). */
#define HALO 2

typedef struct net_buffers {
    cl_mem t[NET_TENSORS];
    size_t bytes[NET_TENSORS];
    cl_mem weights;      /* the context's (ctx->lnet) */
    const size_t *w_off; /* per step: its weights and its biases in `weights` */
    const size_t *b_off;
} net_buffers;

/* Output channels per work-item: a power of two up to cob_max; a layer
 * whose count it does not divide computes (and never stores) the channels
 * up to the next multiple (7 planes of a compressed phi: one group of 8,
 * not seven of 1). The least cost, each group charged two channels for
 * its loads; the larger on ties. */
static int channels_per_item(int n, int cob_max)
{
    int best = 1;
    long best_cost = (long)n * 3;
    for (int c = 2; c <= cob_max; c *= 2) {
        const long cost = (long)((n + c - 1) / c) * (c + 2);
        if (cost <= best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

/* Channels of a layer's output rounded up to its groups. */
static size_t padded(int n, int cob)
{
    return (size_t)((n + cob - 1) / cob) * (size_t)cob;
}

/* Whether step c runs as lapar_net_wino (kernels/lapar_net.cl): a 3 x 3
 * convolution without a shuffle, lnet_wino on, and the strip's transformed
 * input (cin x 16 vectors) and one channel group's sums (cob x 16) in the
 * device's local memory. The tiles per work-item: lnet_vw within 4 .. 16,
 * halved until they fit; 0: the direct kernel. */
static int wino_tiles(const clik_context *ctx, const net_layout *lay, const clik_lapar_net_conv *c)
{
    if (!lay->wino || c->k != 3 || c->shuffle != 1)
        return 0;
    const size_t cob = (size_t)channels_per_item(c->cout, lay->cob_max);
    int vw = lay->vw < 4 ? 4 : lay->vw > 16 ? 16 : lay->vw;
    for (; vw >= 4; vw /= 2)
        if (((size_t)c->cin + cob) * 16 * (size_t)vw * sizeof(float) <= ctx->dev.local_mem_size)
            return vw;
    return 0;
}

/* Winograd's F(2 x 2, 3 x 3) weights of a 3 x 3 filter g (row-major): G g
 * G^T, 16 values, with G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
 * (Lavin and Gray, CVPR 2016, section 4.1), in double, rounded once. */
static void wino_weights(const float *g, float u[16])
{
    double h[4][3];
    for (int j = 0; j < 3; j++) {
        h[0][j] = g[j];
        h[1][j] = 0.5 * ((double)g[j] + g[3 + j] + g[6 + j]);
        h[2][j] = 0.5 * ((double)g[j] - g[3 + j] + g[6 + j]);
        h[3][j] = g[6 + j];
    }
    for (int r = 0; r < 4; r++) {
        u[r * 4] = (float)h[r][0];
        u[r * 4 + 1] = (float)(0.5 * (h[r][0] + h[r][1] + h[r][2]));
        u[r * 4 + 2] = (float)(0.5 * (h[r][0] - h[r][1] + h[r][2]));
        u[r * 4 + 3] = (float)h[r][2];
    }
}

/* The context's kept tensors back to the pool. */
static void workspace_release(clik_context *ctx)
{
    for (int t = 0; t < 8; t++)
        clik__temp_release(ctx, ctx->lnet_ws.t[t], ctx->lnet_ws.bytes[t]);
    memset(&ctx->lnet_ws, 0, sizeof(ctx->lnet_ws));
}

static clik_status zero_buffer(clik_context *ctx, cl_mem mem, size_t bytes)
{
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "lapar_net", "", "lapar_net_zero", &k);
    const cl_ulong n = bytes / 16;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(mem), CLIK_A(n));
    const size_t items = (size_t)n, local = 64;
    return st == CLIK_OK ? clik__launch(ctx, k, 1, &items, &local) : st;
}

/* The weights of every step in the kernels' layout (per group of cob
 * output channels: [cin][K K][cob]), then the biases; each step's 64-byte
 * aligned. Kept on the device for the next run of the same network (the
 * context's lnet), so a stream of frames uploads them once. */
static clik_status upload_weights(clik_context *ctx, const net_args *a, const net_layout *lay,
                                  net_buffers *nb)
{
    const clik_lapar_net *net = a->net;
    const int wino_key = lay->wino ? lay->vw : 0;
    if (ctx->lnet.mem && ctx->lnet.serial == net->serial && ctx->lnet.cob == lay->cob_max &&
        ctx->lnet.wino == wino_key) {
        nb->weights = ctx->lnet.mem;
        nb->w_off = ctx->lnet.off;
        nb->b_off = ctx->lnet.off + net->nsteps;
        return CLIK_OK;
    }
    clik__temp_release(ctx, ctx->lnet.mem, ctx->lnet.bytes);
    free(ctx->lnet.off);
    memset(&ctx->lnet, 0, sizeof(ctx->lnet));
    size_t *off = malloc(2 * (size_t)net->nsteps * sizeof(size_t)), total = 0;
    if (!off)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_net_run: out of memory");
    for (int i = 0; i < net->nsteps; i++) {
        const clik_lapar_net_conv *c = &net->steps[i].conv;
        const size_t cout = padded(c->cout, channels_per_item(c->cout, lay->cob_max));
        const size_t taps = wino_tiles(ctx, lay, c) ? 16 : (size_t)c->k * (size_t)c->k;
        off[i] = total;
        total += (cout * (size_t)c->cin * taps + 15) / 16 * 16;
        off[net->nsteps + i] = total;
        total += (cout + 15) / 16 * 16;
    }
    float *host = calloc(total, sizeof(float));
    if (!host) {
        free(off);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_net_run: out of memory");
    }
    for (int i = 0; i < net->nsteps; i++) {
        const clik_lapar_net_conv *c = &net->steps[i].conv;
        const size_t cob = (size_t)channels_per_item(c->cout, lay->cob_max), cin = (size_t)c->cin;
        const size_t kk = (size_t)c->k * (size_t)c->k;
        float *w = host + off[i];
        if (wino_tiles(ctx, lay, c)) {
            /* [16][cin][cout rounded up to cob] */
            const size_t cpad = padded(c->cout, (int)cob);
            for (size_t co = 0; co < (size_t)c->cout; co++)
                for (size_t ci = 0; ci < cin; ci++) {
                    float u[16];
                    wino_weights(c->w + (co * cin + ci) * 9, u);
                    for (size_t t = 0; t < 16; t++)
                        w[(t * cin + ci) * cpad + co] = u[t];
                }
        } else {
            for (size_t co = 0; co < (size_t)c->cout; co++)
                for (size_t ci = 0; ci < cin; ci++)
                    for (size_t t = 0; t < kk; t++)
                        w[((co / cob * cin + ci) * kk + t) * cob + co % cob] =
                            c->w[(co * cin + ci) * kk + t];
        }
        memcpy(host + off[net->nsteps + i], c->b, (size_t)c->cout * sizeof(float));
    }
    const size_t bytes = total * sizeof(float);
    cl_mem mem = NULL;
    clik_status st = clik__temp_buffer(ctx, bytes, &mem);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, mem, host, bytes);
    free(host);
    if (st != CLIK_OK) {
        clik__temp_release(ctx, mem, bytes);
        free(off);
        return st;
    }
    ctx->lnet.serial = net->serial;
    ctx->lnet.cob = lay->cob_max;
    ctx->lnet.wino = wino_key;
    ctx->lnet.mem = mem;
    ctx->lnet.bytes = bytes;
    ctx->lnet.off = off;
    nb->weights = mem;
    nb->w_off = off;
    nb->b_off = off + net->nsteps;
    return CLIK_OK;
}

/* The tensors but phi, zero-bordered, and the weights. The tensors are the
 * context's (ctx->lnet_ws): made and cleared for a layout, then kept, since
 * the kernels write only inside the borders (and pitch and row slack): a
 * stream of frames of one size neither allocates nor clears them again. */
static clik_status buffers_make(clik_context *ctx, const net_args *a, const net_layout *lay,
                                net_buffers *nb)
{
    memset(nb, 0, sizeof(*nb));
    _Static_assert(NET_PHI <= 8, "lnet_ws holds the tensors but phi");
    size_t key[16] = {(size_t)lay->pitch[0], (size_t)lay->pitch[1], lay->plane[0], lay->plane[1],
                      net_act_size(a),       (size_t)a->w,          (size_t)a->h,  (size_t)a->s};
    /* (the size too: pixels of a larger image's interior inside the same
     * pitch and rows are a smaller image's border) */
    for (int t = 0; t < NET_PHI; t++)
        key[8 + t] = a->planes[t];
    if (ctx->lnet_ws.t[0] && memcmp(key, ctx->lnet_ws.key, sizeof(key)) == 0) {
        for (int t = 0; t < NET_PHI; t++) {
            nb->t[t] = ctx->lnet_ws.t[t];
            nb->bytes[t] = ctx->lnet_ws.bytes[t];
        }
        return upload_weights(ctx, a, lay, nb);
    }
    workspace_release(ctx);
    clik_status st = CLIK_OK;
    for (int t = 0; t < NET_PHI && st == CLIK_OK; t++) {
        const size_t plane = lay->plane[t >= NET_H0];
        /* slack past the last plane for the vector loads of the last row */
        const size_t n = a->planes[t] * plane + 64;
        if (n > ctx->dev.max_alloc_size / net_act_size(a)) {
            st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                            "clik_lapar_net_run: a tensor of %zu elements is larger than the "
                            "device's largest allocation (%llu bytes)",
                            n, (unsigned long long)ctx->dev.max_alloc_size);
            break;
        }
        nb->bytes[t] = (n * net_act_size(a) + 15) / 16 * 16;
        st = clik__temp_buffer(ctx, nb->bytes[t], &nb->t[t]);
        if (st == CLIK_OK) {
            ctx->lnet_ws.t[t] = nb->t[t];
            ctx->lnet_ws.bytes[t] = nb->bytes[t];
            st = zero_buffer(ctx, nb->t[t], nb->bytes[t]);
        }
    }
    if (st != CLIK_OK) {
        workspace_release(ctx);
        return st;
    }
    memcpy(ctx->lnet_ws.key, key, sizeof(key));
    return upload_weights(ctx, a, lay, nb);
}

static clik_status run_input(clik_context *ctx, const net_args *a, const net_layout *lay,
                             const clik_binding *src, const net_buffers *nb)
{
    clik_kernel_entry *k;
    clik_status st = clik__pixel_kernel(ctx, "lapar_net", a->src->type, a->src->channels,
                                        a->act_half ? "-DACT_HALF=1" : "", "lapar_net_input", &k);
    if (st != CLIK_OK)
        return st;
    const int stride = clik__elems(src), w = a->w, h = a->h, pitch = lay->pitch[0];
    const cl_ulong plane = lay->plane[0];
    const float *m = a->net->mean;
    const int red = a->bgr ? 2 : 0;
    st = CLIK_ARGS(ctx, k, CLIK_A(src->mem), CLIK_A(stride), CLIK_A(w), CLIK_A(h),
                   CLIK_A(nb->t[NET_IN]), CLIK_A(plane), CLIK_A(pitch), CLIK_A(m[0]), CLIK_A(m[1]),
                   CLIK_A(m[2]), CLIK_A(red));
    if (st != CLIK_OK)
        return st;
    const size_t items[2] = {(size_t)w, (size_t)h}, local[2] = {32, 4};
    return clik__launch(ctx, k, 2, items, local);
}

/* The profile names a convolution's launch by its kernel size
 * (lapar_net_conv3x3, lapar_net_conv5x5): clik-bench --kernels rates each
 * kind against the device's FMA peak. */
static void name_conv_event(clik_context *ctx, int k, clik_status launched)
{
    if (launched == CLIK_OK && ctx->profiling && ctx->nevents > 0)
        snprintf(ctx->event_kernels[ctx->nevents - 1], sizeof(ctx->event_kernels[0]),
                 "lapar_net_conv%dx%d", k, k);
}

/* One step as a kernel. Planes inside a tensor (the concatenation) and the
 * layer's weights inside the network's go in as element offsets: a
 * sub-buffer's origin would have to be aligned. */
static clik_status run_step(clik_context *ctx, const net_args *a, const net_layout *lay, int i,
                            const net_buffers *nb, const clik_binding *phi)
{
    const net_step *sp = &a->net->steps[i];
    const clik_lapar_net_conv *c = &sp->conv;
    const int last = sp->out == NET_PHI;
    const int half = last ? phi->image.type == CLIK_F16 : a->act_half; /* the output's */
    const int wcob = channels_per_item(c->cout, lay->cob_max);         /* the weights' layout */
    int cob = wcob, ry = lay->ry;
    const int wv = wino_tiles(ctx, lay, c); /* tiles per work-item of lapar_net_wino, or 0 */
    const int vw = wv ? wv : lay->local ? 1 : lay->vw;
    const int hr = sp->hr, w = hr ? a->w * a->s : a->w, h = hr ? a->h * a->s : a->h;
    /* Small layers on GPUs: fewer channels and fewer rows per work-item, in
     * turn, until the device has 256 work-items per compute unit (unless a
     * tuning fixed them). More work-items than that, each with less work,
     * lose: each loads its inputs and weights again (NVIDIA H200, LAPAR-A x2
     * at 320x180, before the weights' vector loads: 4.1 ms at 8 rows x 4
     * channels, 7.3 ms shrunk to 2,048 work-items per compute unit). Taking
     * channels and rows in turn, not all rows first, keeps a work-item's rows
     * sharing their weights: at 128x128, 1.53 against 2.10 ms (x2), 2.39
     * against 2.96 (x4), the same at 320x180 and up. */
    if (wv)
        ry = 1;
    else if (ctx->dev.type != CLIK_DEVICE_CPU) {
        const double want =
            256.0 * (double)(ctx->dev.compute_units > 0 ? ctx->dev.compute_units : 1);
        const int ry_free = !(lay->fixed & 1), cob_free = !(lay->fixed & 2);
        for (int turn = 0; (double)w * h / ry * (double)(padded(c->cout, cob) / (size_t)cob) < want;
             turn++) {
            const int can_cob = cob_free && cob > 2, can_ry = ry_free && ry > 1;
            if (can_cob && (turn % 2 == 0 || !can_ry))
                cob /= 2;
            else if (can_ry)
                ry /= 2;
            else
                break;
        }
    }
    /* the direct kernel without local memory, at one row and at most two
     * channels per work-item (small layers on GPUs): the channel loop two
     * at a time, for twice the loads in flight (H200, LAPAR-A x2 64x64:
     * 0.94 against 1.03 ms) */
    const int ci2 = !wv && !lay->local && ry == 1 && cob <= 2;
    char options[192];
    snprintf(options, sizeof(options),
             "-DK=%d -DCOB=%d -DWCOB=%d -DCOUT=%d -DVW=%d -DRY=%d -DSHUFFLE=%d -DOUT_HALF=%d "
             "-DLOCAL=%d -DACT_HALF=%d -DWINO=%d -DCI2=%d",
             c->k, cob, wcob, c->cout, vw, ry, c->shuffle, half, wv ? 0 : lay->local, a->act_half,
             wv ? 1 : 0, ci2);
    clik_kernel_entry *k;
    clik_status st =
        clik__kernel(ctx, "lapar_net", options, wv ? "lapar_net_wino" : "lapar_net_conv", &k);
    if (st != CLIK_OK)
        return st;
    const int pitch = lay->pitch[hr];
    const cl_ulong in_plane = lay->plane[hr], res_plane = lay->plane[hr];
    const int cin = c->cin, has_res = sp->res >= 0, relu = c->relu;
    const float alpha = c->alpha;
    /* the output: a bordered tensor (at the high resolution after a shuffle) or phi */
    const int out_hr = hr || c->shuffle > 1;
    cl_ulong out_plane = lay->plane[out_hr];
    int out_pitch = lay->pitch[out_hr], out_halo = HALO;
    cl_mem out = last ? phi->mem : nb->t[sp->out];
    if (last) {
        out_pitch = clik__elems(phi);
        out_plane = (cl_ulong)out_pitch * (cl_ulong)h;
        out_halo = 0;
    }
    const cl_ulong in_off = (cl_ulong)sp->in_off * in_plane,
                   out_off = (cl_ulong)sp->out_off * out_plane,
                   res_off = (cl_ulong)sp->res_off * res_plane;
    const cl_ulong w_off = nb->w_off[i], b_off = nb->b_off[i];
    cl_mem res = has_res ? nb->t[sp->res] : nb->t[sp->in];
    st = CLIK_ARGS(ctx, k, CLIK_A(nb->t[sp->in]), CLIK_A(in_off), CLIK_A(in_plane), CLIK_A(cin),
                   CLIK_A(pitch), CLIK_A(out), CLIK_A(out_off), CLIK_A(out_plane),
                   CLIK_A(out_pitch), CLIK_A(out_halo), CLIK_A(res), CLIK_A(res_off),
                   CLIK_A(res_plane), CLIK_A(alpha), CLIK_A(has_res), CLIK_A(nb->weights),
                   CLIK_A(w_off), CLIK_A(b_off), CLIK_A(w), CLIK_A(h), CLIK_A(relu));
    if (st != CLIK_OK)
        return st;
    if (wv) {
        /* a strip of wv tiles (2 wv pixels, 2 rows) per work-group of one */
        const size_t strips[2] = {(size_t)((w + 2 * wv - 1) / (2 * wv)), (size_t)((h + 1) / 2)};
        const size_t one[2] = {1, 1};
        const size_t bytes = ((size_t)cin + (size_t)cob) * 16 * (size_t)wv * sizeof(float);
        st = CLIK_ARGS_AT(ctx, k, 21, CLIK_LOCAL(bytes));
        if (st == CLIK_OK)
            st = clik__launch_exact(ctx, k, 2, strips, one);
        name_conv_event(ctx, c->k, st);
        return st;
    }
    size_t items[3] = {(size_t)((w + vw - 1) / vw), (size_t)((h + ry - 1) / ry),
                       padded(c->cout, cob) / (size_t)cob};
    if (!lay->local) {
        size_t local[3] = {vw > 1 ? 4 : 32, vw > 1 ? 1 : 4, 1};
        st = clik__launch(ctx, k, 3, items, local);
        name_conv_event(ctx, c->k, st);
        return st;
    }
    size_t local[3] = {16, 8, 1};
    clik__fit_local(ctx, k, 3, local);
    const size_t tile = (local[0] + (size_t)c->k - 1) * (local[1] * (size_t)ry + (size_t)c->k - 1);
    if (tile * sizeof(float) > ctx->dev.local_mem_size)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "lapar_net_conv: the tile does not fit");
    st = CLIK_ARGS_AT(ctx, k, 21, CLIK_LOCAL(tile * sizeof(float)));
    if (st != CLIK_OK)
        return st;
    for (int d = 0; d < 3; d++)
        items[d] = (items[d] + local[d] - 1) / local[d] * local[d];
    st = clik__launch_exact(ctx, k, 3, items, local);
    name_conv_event(ctx, c->k, st);
    return st;
}

void clik__lapar_net_layout(clik_context *ctx, const net_args *a, net_layout *lay)
{
    (void)ctx;
    lay->local = a->shape.local;
    lay->vw = a->shape.vw;
    lay->cob_max = a->shape.cob;
    lay->ry = a->shape.ry;
    lay->fixed = a->shape.fixed;
    lay->wino = a->shape.wino;
    for (int r = 0; r < 2; r++) {
        const int w = r ? a->w * a->s : a->w, h = r ? a->h * a->s : a->h;
        lay->pitch[r] = (w + 2 * HALO + 3) / 4 * 4;
        /* rows to a multiple of 8: the last work-items' rows past the image
         * read inside the plane */
        lay->plane[r] = (size_t)lay->pitch[r] * (size_t)((h + 7) / 8 * 8 + 2 * HALO);
    }
}

/* phi as device scratch, packed F32 or F16: W x H L, where H L may pass an
 * image's CLIK_MAX_DIM rows (H up to 2^20, L up to 128 planes), so the
 * binding is made here rather than by clik__bind_scratch. */
clik_status clik__lapar_net_bind_phi(clik_context *ctx, const net_args *a, clik_type type,
                                     clik_binding *b)
{
    const int w = a->w * a->s, rows = a->h * a->s * a->net->info.atoms;
    const size_t row = (size_t)w * clik_type_size(type);
    memset(b, 0, sizeof(*b));
    b->image = (clik_image){w, rows, 1, type, row, NULL, NULL, 0, CLIK_ORDER_RGB};
    b->access = CLIK_KERNEL_RW;
    b->stride = b->row_bytes = row;
    b->span = b->alloc = row * (size_t)rows;
    b->base_aligned = 1;
    b->scratch = 1;
    b->pooled = 1;
    clik_status st = clik__temp_buffer(ctx, b->alloc, &b->mem);
    if (st != CLIK_OK)
        b->mem = NULL;
    return st;
}

/* The network and the filter on bound images: phi the caller's or NULL
 * (scratch), dst NULL when not asked. */
clik_status clik__lapar_net_whole(clik_context *ctx, const net_args *a, const clik_binding *src,
                                  const clik_binding *dst, const clik_binding *phi_user)
{
    clik_binding phi_scratch;
    const clik_binding *phi = phi_user;
    int scratch = 0;
    net_layout lay;
    clik__lapar_net_layout(ctx, a, &lay);
    net_buffers nb;
    clik_status st = buffers_make(ctx, a, &lay, &nb);
    if (st == CLIK_OK && !phi) {
        st = clik__lapar_net_bind_phi(ctx, a, CLIK_F32, &phi_scratch);
        scratch = st == CLIK_OK;
        phi = &phi_scratch;
    }
    if (st == CLIK_OK)
        st = run_input(ctx, a, &lay, src, &nb);
    for (int i = 0; i < a->net->nsteps && st == CLIK_OK; i++)
        st = run_step(ctx, a, &lay, i, &nb, phi);
    if (st == CLIK_OK && dst) {
        clik_binding *fb[3] = {(clik_binding *)src, (clik_binding *)phi, (clik_binding *)dst};
        st = clik__lapar_filter_bound(ctx, &a->dict, a->s, fb);
    }
    if (scratch)
        clik__unbind(ctx, &phi_scratch, 0);
    return st;
}

/* ---- CPU path ----------------------------------------------------------------------- */

/* The input as 3 planes of floats minus the mean, red first
 * (lapar_net_input). */
static void input_planes(const net_args *a, const clik_image *src, float *dst)
{
    const size_t plane = plane_of(a, NET_IN);
    const float *m = a->net->mean;
    for (int y = 0; y < a->h; y++) {
        const unsigned char *row = (const unsigned char *)src->data + (size_t)y * src->stride;
        for (int x = 0; x < a->w; x++) {
            float v[3];
            for (int c = 0; c < 3; c++) {
                const int ch = src->channels == 1 ? 0 : a->bgr ? 2 - c : c;
                const float e = src->type == CLIK_U8
                                    ? (float)row[(size_t)x * src->channels + ch]
                                    : ((const float *)row)[(size_t)x * src->channels + ch];
                v[c] = e * (1.0f / 255.0f);
            }
            const size_t o = (size_t)y * (size_t)a->w + (size_t)x;
            for (int c = 0; c < 3; c++)
                dst[(size_t)c * plane + o] = v[c] - m[c];
        }
    }
}

/* One convolution of the CPU path, its output rows in bands on the
 * context's threads (each row is computed alone: any split gives the same
 * bytes). */
typedef struct conv_job {
    void (*conv)(const clik_lapar_net_conv *c, const float *in, size_t in_plane, const float *res,
                 size_t res_plane, float *out, size_t out_plane, int width, int height, int y0,
                 int y1);
    const clik_lapar_net_conv *c;
    const float *in;
    size_t in_plane;
    const float *res;
    size_t res_plane;
    float *out;
    size_t out_plane;
    int width, height;
} conv_job;

static int conv_rows(void *user, int y0, int y1)
{
    const conv_job *j = user;
    j->conv(j->c, j->in, j->in_plane, j->res, j->res_plane, j->out, j->out_plane, j->width,
            j->height, y0, y1);
    return 0;
}

clik_status clik__lapar_net_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    net_args *a = p;
    const clik_image *src = v[0];
    clik_image *dst = a->dst ? v[1] : NULL, *phi_user = a->phi ? v[a->dst ? 2 : 1] : NULL;
    /* Every tensor in one block; phi there too unless the caller's is a
     * packed F32 image to write into. */
    const int direct = phi_user && phi_user->type == CLIK_F32 &&
                       phi_user->stride == (size_t)phi_user->width * sizeof(float);
    size_t offset[NET_TENSORS + 1], total = 0;
    for (int t = 0; t < NET_TENSORS; t++) {
        offset[t] = total;
        const size_t n = t == NET_PHI && direct ? 0 : a->planes[t] * plane_of(a, t);
        if (n > (SIZE_MAX / sizeof(float) - total) / 2)
            return clik__fail(ctx, CLIK_ERR_OVERFLOW, "clik_lapar_net_run: the tensors overflow");
        total += n;
    }
    float *mem = malloc(total * sizeof(float));
    if (!mem)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY,
                          "clik_lapar_net_run: out of memory (%zu MiB of activations)",
                          total * sizeof(float) >> 20);
    float *tensor[NET_TENSORS];
    for (int t = 0; t < NET_TENSORS; t++)
        tensor[t] = mem + offset[t];
    if (direct)
        tensor[NET_PHI] = phi_user->data;
    input_planes(a, src, tensor[NET_IN]);
    for (int i = 0; i < a->net->nsteps; i++) {
        const net_step *sp = &a->net->steps[i];
        const size_t in_plane = plane_of(a, sp->in), out_plane = plane_of(a, sp->out);
        const float *res = NULL;
        size_t res_plane = 0;
        if (sp->res >= 0) {
            res_plane = plane_of(a, sp->res);
            res = tensor[sp->res] + (size_t)sp->res_off * res_plane;
        }
        const int w = sp->hr ? a->w * a->s : a->w, h = sp->hr ? a->h * a->s : a->h;
        conv_job j = {ctx->dsp.lapar_net.conv,
                      &sp->conv,
                      tensor[sp->in] + (size_t)sp->in_off * in_plane,
                      in_plane,
                      res,
                      res_plane,
                      tensor[sp->out] + (size_t)sp->out_off * out_plane,
                      out_plane,
                      w,
                      h};
        const size_t taps =
            (size_t)sp->conv.cin * (size_t)sp->conv.cout * (size_t)sp->conv.k * (size_t)sp->conv.k;
        clik__cpu_rows(h, (size_t)w * taps, conv_rows, &j);
    }
    clik_image phi;
    if (direct) {
        phi = *phi_user;
    } else {
        /* Not clik_image_wrap, which refuses more than CLIK_MAX_DIM rows
         * (H L may pass it: phi was then left unset); the CPU filter takes
         * any number of rows. */
        const int pw = a->w * a->s, rows = a->h * a->s * a->net->info.atoms;
        phi = (clik_image){
            pw, rows,          1, CLIK_F32, (size_t)pw * sizeof(float), tensor[NET_PHI], NULL,
            0,  CLIK_ORDER_RGB};
        if (phi_user) {
            /* The caller's layout: its stride, F32 or F16. */
            for (int y = 0; y < phi_user->height; y++) {
                const float *from = tensor[NET_PHI] + (size_t)y * (size_t)phi_user->width;
                unsigned char *to = (unsigned char *)phi_user->data + (size_t)y * phi_user->stride;
                if (phi_user->type == CLIK_F32) {
                    memcpy(to, from, (size_t)phi_user->width * sizeof(float));
                } else {
                    uint16_t *h16 = (uint16_t *)(void *)to;
                    for (int x = 0; x < phi_user->width; x++)
                        h16[x] = clik__float_to_half(from[x]);
                }
            }
            /* The filter reads what the caller gets: halves when F16. */
            phi = *phi_user;
        }
    }
    clik_status st = CLIK_OK;
    if (dst)
        st = clik__lapar_filter_host(ctx, &a->dict, a->s, src, &phi, dst);
    free(mem);
    return st;
}

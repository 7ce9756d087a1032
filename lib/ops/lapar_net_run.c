/*
 * LAPAR network family: clik_lapar_net_run, its arguments checked and the
 * tensors' planes set, then the OpenCL path (the whole image, or in tiles
 * where it does not fit: lib/ops/lapar_net_tile.c) or the CPU path
 * (lib/ops/lapar_net.c).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "lapar_net.h"

/* The planes (channels) of each tensor of the run. */
static void tensor_planes(net_args *a)
{
    const clik_lapar_net_info *i = &a->net->info;
    a->planes[NET_IN] = 3;
    a->planes[NET_X0] = a->planes[NET_X1] = a->planes[NET_TMP] = (size_t)i->features;
    a->planes[NET_CAT] = (size_t)i->units * (size_t)i->features;
    a->planes[NET_H0] = a->planes[NET_H1] = (size_t)i->features;
    a->planes[NET_PHI] = (size_t)i->atoms;
}

/* The run on the bound images (the 4-channel copies of 3-channel ones). */
static clik_status net_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    net_args t = *(net_args *)p;
    t.src = &b[0]->image;
    t.dst = t.dst ? &b[1]->image : NULL;
    return clik__lapar_net_bound(ctx, &t, b);
}

static const clik_op net_op = {"lapar_net_run", net_opencl, clik__lapar_net_cpu};

clik_status clik_lapar_net_run(clik_context *ctx, const clik_lapar_net *net, const clik_image *src,
                               clik_image *dst, clik_image *phi)
{
    return clik_lapar_net_run_with(ctx, net, src, dst, phi, NULL);
}

clik_status clik_lapar_net_run_with(clik_context *ctx, const clik_lapar_net *net,
                                    const clik_image *src, clik_image *dst, clik_image *phi,
                                    const clik_lapar_net_options *opt)
{
    return clik__lapar_net_run_shaped(ctx, net, src, dst, phi, opt, NULL);
}

clik_status clik__lapar_net_run_shaped(clik_context *ctx, const clik_lapar_net *net,
                                       const clik_image *src, clik_image *dst, clik_image *phi,
                                       const clik_lapar_net_options *opt,
                                       const net_conv_shape *shape)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (opt && (opt->f16_activations < 0 || opt->f16_activations > 1))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_net_run: f16_activations is %d; 0 or 1",
                          opt->f16_activations);
    if (!net)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_net_run: net is NULL");
    if (!dst && !phi)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_net_run: neither dst nor phi is given");
    clik_status st =
        clik__check_format(ctx, src, "clik_lapar_net_run: src", CLIK_TYPES(CLIK_U8, CLIK_F32),
                           CLIK_CHANNELS(1, 3, 4), 0, 0);
    if (st != CLIK_OK)
        return st;
    const int s = net->info.scale, L = net->info.atoms;
    if (src->width < 2 || src->height < 2)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_lapar_net_run: src is %dx%d; the network needs at least 2x2",
                          src->width, src->height);
    if ((long)src->width * s > CLIK_MAX_DIM || (long)src->height * s > CLIK_MAX_DIM ||
        (long)src->height * s * L > CLIK_MAX_DIM * 128L)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_lapar_net_run: %dx%d times %d is too large", src->width,
                          src->height, s);
    const int W = src->width * s, H = src->height * s;
    if (dst) {
        st = clik__check_like(ctx, dst, src, "clik_lapar_net_run: dst", W, H);
        if (st == CLIK_OK)
            st = clik__check_apart(ctx, src, dst, 0, "clik_lapar_net_run: src and dst");
    }
    if (st == CLIK_OK && phi) {
        st = clik__check_format(ctx, phi, "clik_lapar_net_run: phi", CLIK_TYPES(CLIK_F32, CLIK_F16),
                                CLIK_CHANNELS(1), W, H * L);
        if (st == CLIK_OK)
            st = clik__check_apart(ctx, src, phi, 0, "clik_lapar_net_run: src and phi");
        if (st == CLIK_OK && dst)
            st = clik__check_apart(ctx, dst, phi, 0, "clik_lapar_net_run: dst and phi");
    }
    if (st != CLIK_OK)
        return st;
    net_args a = {net,
                  src,
                  dst,
                  phi,
                  src->width,
                  src->height,
                  s,
                  {0},
                  {L, net->atoms, NULL},
                  opt ? opt->f16_activations : 0,
                  {0, 1, 1, 1, 0, 0},
                  src->channels > 1 && src->order == CLIK_ORDER_BGR};
    tensor_planes(&a);
    if (shape)
        a.shape = *shape;
    else if (ctx->has_device)
        clik__lapar_net_shape(ctx, net, a.w, a.h, a.act_half, &a.shape);
    clik_op_image images[3] = {{src, CLIK_READ}};
    int n = 1;
    if (dst)
        images[n++] = (clik_op_image){dst, CLIK_WRITE};
    if (phi)
        images[n++] = (clik_op_image){phi, CLIK_WRITE | (dst ? CLIK_KERNEL_RW : 0)};
    /* 3 channels: the 4-channel kernels between two conversions. */
    return clik__run_op_rgba(ctx, &net_op, images, n, &a);
}

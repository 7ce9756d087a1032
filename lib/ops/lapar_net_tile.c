/*
 * LAPAR network family: the run of a large image in tiles on the OpenCL
 * path. The network reads a neighbourhood of each pixel (its receptive
 * field), so an image that does not fit the device runs as tiles of input
 * pixels, each with a halo that covers the field: the inner part of a
 * tile's outputs is the same bytes as the whole image's. The whole image
 * at once while it fits (lib/ops/lapar_net.c runs it), else in tiles of
 * the lnet_tile side or the largest that fits.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "lapar.h"
#include "lapar_net.h"

/* The input pixels around a tile that its inner pixels' outputs depend on:
 * the receptive field of the convolutions (those at the output's
 * resolution count 1 / s per pixel, rounded up), at least the bicubic
 * up-sample's reach under the filter's 5 x 5 window (3 input pixels). A
 * layer that may run by Winograd's F(2 x 2, 3 x 3) counts 2, not 1: an
 * output's rounding depends on its whole 4 x 4 input tile, which reaches 2
 * pixels to one side. Even, and tiles start at even pixels (run_tile), so
 * that every Winograd tile is the whole image's: the same bytes. */
static int net_halo(const clik_lapar_net *net)
{
    int lr = 0, hr = 0;
    for (int i = 0; i < net->nsteps; i++) {
        const clik_lapar_net_conv *c = &net->steps[i].conv;
        *(net->steps[i].hr ? &hr : &lr) += c->k / 2 + (c->k == 3 && c->shuffle == 1);
    }
    const int s = net->info.scale, h = lr + (hr + s - 1) / s;
    return h > 3 ? (h + 1) / 2 * 2 : 4;
}

/* Whether a run on a's input fits the device: each buffer within the
 * largest allocation, all of them within three quarters of its memory
 * (the tensors, phi when it is scratch, and in tiles the tile's input
 * and output). Counted in doubles: no overflow on any host. */
static int net_fits(clik_context *ctx, const net_args *a, int phi_scratch, int tiled)
{
    net_layout lay;
    clik__lapar_net_layout(ctx, a, &lay);
    const double px = (double)a->w * a->h, hr = px * a->s * a->s;
    const double pixel = (double)a->src->channels * clik_type_size(a->src->type);
    double sizes[NET_TENSORS + 2], total = 0.0;
    int n = 0;
    for (int t = 0; t < NET_PHI; t++)
        sizes[n++] = ((double)a->planes[t] * (double)lay.plane[t >= NET_H0] + 64.0) *
                     (double)net_act_size(a);
    if (phi_scratch)
        sizes[n++] = hr * a->net->info.atoms * 4.0;
    if (tiled) {
        sizes[n++] = px * pixel;
        if (a->dst)
            sizes[n++] = hr * pixel;
    }
    for (int i = 0; i < n; i++) {
        if (sizes[i] > (double)ctx->dev.max_alloc_size)
            return 0;
        total += sizes[i];
    }
    return total <= 0.75 * (double)ctx->dev.global_mem_size;
}

/* A tile's arguments: a with the input's size w x h. */
static net_args tile_args(const net_args *a, int w, int h)
{
    net_args t = *a;
    t.w = w;
    t.h = h;
    return t;
}

/* The largest tile side (input pixels, inner part) whose run with its halo
 * fits the device, or 0. */
static int auto_tile(clik_context *ctx, const net_args *a, int halo)
{
    int side = a->w > a->h ? a->w : a->h;
    while (side > 0) {
        const int w = side + 2 * halo < a->w ? side + 2 * halo : a->w;
        const int h = side + 2 * halo < a->h ? side + 2 * halo : a->h;
        const net_args t = tile_args(a, w, h);
        if (net_fits(ctx, &t, 1, 1))
            return side;
        side = side > 8 ? side * 3 / 4 : side - 1;
    }
    return 0;
}

/* Copies a box of `bytes` x rows x slices between two buffers. */
static clik_status copy_box(clik_context *ctx, cl_mem from, const size_t at[3], size_t pitch,
                            size_t slice, cl_mem to, const size_t to_at[3], size_t to_pitch,
                            size_t to_slice, const size_t box[3])
{
    cl_event ev = NULL;
    const cl_int err =
        ctx->cl->clEnqueueCopyBufferRect(ctx->queue, from, to, at, to_at, box, pitch, slice,
                                         to_pitch, to_slice, 0, NULL, ctx->profiling ? &ev : NULL);
    if (err != CL_SUCCESS)
        return clik__fail_cl(ctx, err, "clik_lapar_net_run: clEnqueueCopyBufferRect");
    clik__track_event(ctx, ev, "lapar_net_tile_copy");
    return CLIK_OK;
}

/* One tile: the inner box [x0, x1) x [y0, y1) of the input with its halo
 * copied to scratch, the network and the filter run on it, the inner part
 * of its outputs copied into dst and phi. The halo covers the receptive
 * field, so the inner part is the same bytes as the whole image's. */
static clik_status run_tile(clik_context *ctx, const net_args *a, int halo, const int box[4],
                            const clik_binding *src, const clik_binding *dst,
                            const clik_binding *phi)
{
    const int s = a->s, L = a->net->info.atoms;
    /* at even pixels: the Winograd tiles of the whole image (net_halo) */
    const int ex0 = box[0] - halo > 0 ? (box[0] - halo) / 2 * 2 : 0,
              ey0 = box[1] - halo > 0 ? (box[1] - halo) / 2 * 2 : 0;
    const int ex1 = box[2] + halo < a->w ? box[2] + halo : a->w;
    const int ey1 = box[3] + halo < a->h ? box[3] + halo : a->h;
    const size_t pixel = (size_t)a->src->channels * clik_type_size(a->src->type);
    net_args t = tile_args(a, ex1 - ex0, ey1 - ey0);
    clik_binding ts, td, tp;
    int have_s = 0, have_d = 0, have_p = 0;
    clik_status st = clik__bind_scratch(ctx, t.w, t.h, a->src->channels, a->src->type, &ts);
    have_s = st == CLIK_OK;
    if (st == CLIK_OK && dst) {
        st = clik__bind_scratch(ctx, t.w * s, t.h * s, a->src->channels, a->src->type, &td);
        have_d = st == CLIK_OK;
    }
    if (st == CLIK_OK) {
        st = clik__lapar_net_bind_phi(ctx, &t, phi ? phi->image.type : CLIK_F32, &tp);
        have_p = st == CLIK_OK;
    }
    if (st == CLIK_OK) {
        const size_t at[3] = {(size_t)ex0 * pixel, (size_t)ey0, 0}, zero[3] = {0, 0, 0};
        const size_t all[3] = {(size_t)t.w * pixel, (size_t)t.h, 1};
        st = copy_box(ctx, src->mem, at, src->stride, 0, ts.mem, zero, ts.stride, 0, all);
    }
    if (st == CLIK_OK) {
        t.src = &ts.image;
        t.dst = dst ? &td.image : NULL;
        t.phi = &tp.image;
        st = clik__lapar_net_whole(ctx, &t, &ts, dst ? &td : NULL, &tp);
    }
    /* the inner part, from (box - e0) s in the tile to box s in the image */
    const size_t iw = (size_t)(box[2] - box[0]) * (size_t)s,
                 ih = (size_t)(box[3] - box[1]) * (size_t)s;
    const size_t ix = (size_t)(box[0] - ex0) * (size_t)s, iy = (size_t)(box[1] - ey0) * (size_t)s;
    if (st == CLIK_OK && dst) {
        const size_t at[3] = {ix * pixel, iy, 0},
                     to[3] = {(size_t)box[0] * s * pixel, (size_t)box[1] * s, 0};
        const size_t part[3] = {iw * pixel, ih, 1};
        st = copy_box(ctx, td.mem, at, td.stride, 0, dst->mem, to, dst->stride, 0, part);
    }
    if (st == CLIK_OK && phi) {
        /* L planes stacked down the rows: slices of H s rows */
        const size_t ps = clik_type_size(phi->image.type);
        const size_t at[3] = {ix * ps, iy, 0},
                     to[3] = {(size_t)box[0] * s * ps, (size_t)box[1] * s, 0};
        const size_t part[3] = {iw * ps, ih, (size_t)L};
        st = copy_box(ctx, tp.mem, at, tp.stride, tp.stride * (size_t)t.h * s, phi->mem, to,
                      phi->stride, phi->stride * (size_t)a->h * s, part);
    }
    if (have_p)
        clik__unbind(ctx, &tp, 0);
    if (have_d)
        clik__unbind(ctx, &td, 0);
    if (have_s)
        clik__unbind(ctx, &ts, 0);
    return st;
}

/* b: src, then dst when asked, then phi when asked. The whole image at
 * once while it fits the device (or lnet_tile says otherwise), else in
 * tiles. */
clik_status clik__lapar_net_bound(clik_context *ctx, net_args *a, clik_binding *const *b)
{
    const clik_binding *src = b[0], *dst = a->dst ? b[1] : NULL;
    const clik_binding *phi = a->phi ? b[a->dst ? 2 : 1] : NULL;
    /* The kernels take row strides as int elements (offsets past a row are
     * 64-bit), the filter's at most 2^28 - 1 (lib/ops/lapar.c): a stride
     * past that is refused before any layer runs, for the CPU path. */
    const clik_binding *user[3] = {src, dst, phi};
    clik_status st =
        clik__lapar_check_strides(ctx, "lapar_net_run", user, 3, CLIK_LAPAR_STRIDE_BITS);
    if (st != CLIK_OK)
        return st;
    const int halo = net_halo(a->net);
    int side = (int)clik__tune(ctx, CLIK_TUNE_LNET_TILE, 0);
    if (side == 0) {
        if (net_fits(ctx, a, !phi, 0))
            return clik__lapar_net_whole(ctx, a, src, dst, phi);
        side = auto_tile(ctx, a, halo);
        if (side == 0)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "clik_lapar_net_run: not even a tile of 1x1 input pixels with its "
                              "halo of %d fits the device (largest allocation %llu bytes, memory "
                              "%llu bytes)",
                              halo, (unsigned long long)ctx->dev.max_alloc_size,
                              (unsigned long long)ctx->dev.global_mem_size);
        clik__log(ctx, CLIK_LOG_DEBUG,
                  "clik_lapar_net_run: %dx%d in tiles of %dx%d input pixels with a halo of %d",
                  a->w, a->h, side, side, halo);
    }
    if (side >= a->w && side >= a->h)
        return clik__lapar_net_whole(ctx, a, src, dst, phi);
    for (int y = 0; y < a->h && st == CLIK_OK; y += side)
        for (int x = 0; x < a->w && st == CLIK_OK; x += side) {
            const int box[4] = {x, y, x + side < a->w ? x + side : a->w,
                                y + side < a->h ? y + side : a->h};
            st = run_tile(ctx, a, halo, box, src, dst, phi);
        }
    return st;
}

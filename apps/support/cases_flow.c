/*
 * Conformance cases of the optical flow family. A case gets one image I0
 * (grey, or colour compared on its luma) and makes I1 from it here, in
 * plain C, each channel alike: I0 moved by (1.3, -0.6) pixels
 * (bilinear, borders replicated, u8 rounded), so that I0(x, y) =
 * I1(x + 1.3, y - 0.6) away from the borders. Its output is the flow, a
 * 2-channel f32 image of I0's size, compared under FLOW (f32 storage) or
 * FLOW-F16 (16-bit storage).
 *
 * The flow needs CLIK_FLOW_MIN_SIDE pixels on each side: a smaller input
 * (the 1x1 and 2x3 test sizes, thin ones) is first repeated periodically to
 * that many on its short sides, so that every test size runs the operation.
 *
 * The options keep CI time small (a run is heavy; the oracle in double and
 * llvmpipe are the slow parts): the default scales, zoom, tau, lambda, theta
 * and epsilon; up to 128 x 64 pixels (the sizes of every backend) 2 warps
 * of at most 20 iterations, two stopping tests (10 and 20), above 1 warp of
 * at most 10.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "cases.h"

#define SHIFT_X 1.3
#define SHIFT_Y (-0.6)

/* Element c of pixel (x, y), the border replicated. */
static double sample(const clik_image *img, int x, int y, int c)
{
    x = x < 0 ? 0 : x >= img->width ? img->width - 1 : x;
    y = y < 0 ? 0 : y >= img->height ? img->height - 1 : y;
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    return img->type == CLIK_U8 ? ((const uint8_t *)row)[i] : ((const float *)(const void *)row)[i];
}

/* *out = in moved by (dx, dy): out(x, y) = in(x - dx, y - dy), bilinear,
 * each channel alike; out keeps in's colour order. */
static clik_status shifted(const clik_image *in, double dx, double dy, clik_image *out)
{
    clik_status st = clik_image_alloc(out, in->width, in->height, in->channels, in->type);
    if (st != CLIK_OK)
        return st;
    out->order = in->order;
    for (int y = 0; y < in->height; y++) {
        char *row = (char *)out->data + (size_t)y * out->stride;
        for (int x = 0; x < in->width * in->channels; x++) {
            const int c = x % in->channels, px = x / in->channels;
            const double sx = px - dx, sy = y - dy, fx = floor(sx), fy = floor(sy);
            const double tx = sx - fx, ty = sy - fy;
            const int x0 = (int)fx, y0 = (int)fy;
            const double v =
                (1 - ty) * ((1 - tx) * sample(in, x0, y0, c) + tx * sample(in, x0 + 1, y0, c)) +
                ty * ((1 - tx) * sample(in, x0, y0 + 1, c) + tx * sample(in, x0 + 1, y0 + 1, c));
            if (in->type == CLIK_U8)
                ((uint8_t *)row)[x] = (uint8_t)(v + 0.5);
            else
                ((float *)(void *)row)[x] = (float)v;
        }
    }
    return CLIK_OK;
}

/* *out = in repeated to at least CLIK_FLOW_MIN_SIDE on each side. */
static clik_status grown(const clik_image *in, clik_image *out)
{
    const int w = in->width < CLIK_FLOW_MIN_SIDE ? CLIK_FLOW_MIN_SIDE : in->width;
    const int h = in->height < CLIK_FLOW_MIN_SIDE ? CLIK_FLOW_MIN_SIDE : in->height;
    clik_status st = clik_image_alloc(out, w, h, in->channels, in->type);
    if (st != CLIK_OK)
        return st;
    out->order = in->order;
    const size_t es = (size_t)in->channels * clik_type_size(in->type);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            memcpy((char *)out->data + (size_t)y * out->stride + (size_t)x * es,
                   (const char *)in->data + (size_t)(y % in->height) * in->stride +
                       (size_t)(x % in->width) * es,
                   es);
    return CLIK_OK;
}

static clik_status run_flow(clik_context *ctx, const clik_image *given, clik_flow_storage storage,
                            clik_image *out)
{
    clik_image big = {0};
    const clik_image *in = given;
    if (given->width < CLIK_FLOW_MIN_SIDE || given->height < CLIK_FLOW_MIN_SIDE) {
        clik_status st = grown(given, &big);
        if (st != CLIK_OK)
            return st;
        in = &big;
    }
    const long pixels = (long)in->width * in->height;
    clik_flow_options opt;
    clik_flow_options_init(&opt);
    opt.warps = pixels <= 128 * 64 ? 2 : 1;
    opt.iterations = pixels <= 128 * 64 ? 20 : 10;
    opt.storage = storage;
    clik_image i1;
    clik_status st = shifted(in, SHIFT_X, SHIFT_Y, &i1);
    if (st == CLIK_OK) {
        st = sup_case_output(out, in->width, in->height, 2, CLIK_F32);
        if (st == CLIK_OK)
            st = clik_flow_tvl1(ctx, in, &i1, out, &opt);
        clik_image_free(&i1);
    }
    clik_image_free(&big);
    return st;
}

SUP_CASE_RUN(run_tvl1, run_flow(ctx, in, CLIK_FLOW_STORAGE_F32, out))
SUP_CASE_RUN(run_tvl1_f16, run_flow(ctx, in, CLIK_FLOW_STORAGE_F16, out))

/* The same input read as BGR(A): the luma weighs blue as red. */
SUP_CASE_RUN(run_tvl1_bgr, sup_case_bgr(ctx, in, out, run_tvl1))

/* A flow for the warps of an image of w x h: smooth motions of a few
 * pixels on the 1/32 grid and off it, whole and half pixels (ties of the
 * rounding), positions far outside the image on either side, a NaN and an
 * infinity. */
static clik_status warp_flow(int w, int h, clik_image *flow)
{
    clik_status st = clik_image_alloc(flow, w, h, 2, CLIK_F32);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < h; y++) {
        float *f = (float *)(void *)((char *)flow->data + (size_t)y * flow->stride);
        for (int x = 0; x < w; x++) {
            double u = 2.5 * sin(0.19 * x + 0.11 * y) + 0.03125 * ((x * 7 + y * 13) % 16);
            double v = 1.75 * cos(0.07 * x - 0.23 * y) - 0.5;
            if (x % 5 == 0)
                u = floor(u);
            if (y % 4 == 0)
                v = floor(v) + 0.5;
            if ((x + y) % 23 == 0)
                u = 1e9;
            if ((3 * x + y) % 29 == 0)
                v = -1e9;
            f[2 * x] = (float)u;
            f[2 * x + 1] = (float)v;
        }
    }
    float *f = flow->data;
    if (w * h > 3) {
        f[2 * (w * h / 2)] = NAN;
        f[2 * (w * h / 3) + 1] = INFINITY;
    }
    return CLIK_OK;
}

/* clik_flow_warp of the input by warp_flow; with average, the average with
 * the input mirrored left to right (in_place: that mirror made in out, which
 * is then ref and dst at once, as the API allows). */
static clik_status run_warp_any(clik_context *ctx, const clik_image *in, int average, int in_place,
                                clik_image *out)
{
    clik_image flow = {0}, ref = {0};
    clik_status st = warp_flow(in->width, in->height, &flow);
    if (st == CLIK_OK && average)
        st = clik_image_alloc(&ref, in->width, in->height, in->channels, CLIK_U8);
    for (int y = 0; st == CLIK_OK && average && y < in->height; y++) {
        const uint8_t *row = (const uint8_t *)in->data + (size_t)y * in->stride;
        uint8_t *mirror = (uint8_t *)ref.data + (size_t)y * ref.stride;
        for (int x = 0; x < in->width; x++)
            memcpy(mirror + (size_t)x * (size_t)in->channels,
                   row + (size_t)(in->width - 1 - x) * (size_t)in->channels, (size_t)in->channels);
    }
    if (st == CLIK_OK)
        st = sup_case_output(out, in->width, in->height, in->channels, CLIK_U8);
    if (st == CLIK_OK && in_place && out->buffer)
        st = clik_image_upload(ctx, out, &ref); /* a device image */
    for (int y = 0; st == CLIK_OK && in_place && !out->buffer && y < in->height; y++)
        memcpy((uint8_t *)out->data + (size_t)y * out->stride,
               (const uint8_t *)ref.data + (size_t)y * ref.stride,
               (size_t)in->width * (size_t)in->channels);
    if (st == CLIK_OK)
        st = average ? clik_flow_warp_average(ctx, in_place ? out : &ref, in, &flow, out)
                     : clik_flow_warp(ctx, in, &flow, out);
    clik_image_free(&ref);
    clik_image_free(&flow);
    return st;
}

SUP_CASE_RUN(run_warp, run_warp_any(ctx, in, 0, 0, out))
SUP_CASE_RUN(run_warp_average, run_warp_any(ctx, in, 1, 0, out))
SUP_CASE_RUN(run_warp_average_in_place, run_warp_any(ctx, in, 1, 1, out))

/* Colour: 3 channels in one case, 4 in the other (a flow run is heavy). */
const sup_case sup_cases_flow[] = {
    {"flow", "flow_tvl1", SUP_TOL_FLOW, SUP_CH1, CLIK_U8, run_tvl1},
    {"flow", "flow_tvl1-f32", SUP_TOL_FLOW, SUP_CH1, CLIK_F32, run_tvl1},
    {"flow", "flow_tvl1-f16", SUP_TOL_FLOW_F16, SUP_CH1, CLIK_U8, run_tvl1_f16},
    {"flow", "flow_tvl1-colour", SUP_TOL_FLOW, SUP_CH(3), CLIK_U8, run_tvl1},
    {"flow", "flow_tvl1-colour-bgr", SUP_TOL_FLOW, SUP_CH(4), CLIK_U8, run_tvl1_bgr},
    {"flow", "flow_warp", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_warp},
    {"flow", "flow_warp_average", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_warp_average},
    {"flow", "flow_warp_average-in-place", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8,
     run_warp_average_in_place},
};
const int sup_cases_flow_count = (int)(sizeof(sup_cases_flow) / sizeof(sup_cases_flow[0]));

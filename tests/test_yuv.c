/* YUV 4:2:0 family (NV12, NV21, I420 <-> RGB(A), grey) on every backend
 * against the scalar oracle, with hand-worked values (OpenCV 5's cvtColor
 * gives the same bytes) and bad input. SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"

/* ---- hand-worked values -------------------------------------------------------------- */

/* Y, U, V and the RGB that COLOR_YUV2RGB_NV21 gives for them (BT.601,
 * video range), worked from the fixed-point definition. */
static const uint8_t yuv_rgb[][6] = {
    {16, 128, 128, 0, 0, 0},        {235, 128, 128, 255, 255, 255}, {81, 90, 240, 254, 0, 0},
    {145, 54, 34, 0, 255, 1},       {41, 240, 110, 0, 0, 255},      {0, 0, 0, 0, 154, 0},
    {255, 255, 255, 255, 125, 255}, {128, 200, 60, 22, 157, 255},
};

/* RGB and the Y, U, V of COLOR_RGB2YUV_I420 for it. */
static const uint8_t rgb_yuv[][6] = {
    {0, 0, 0, 16, 128, 128},  {255, 255, 255, 235, 128, 128}, {255, 0, 0, 82, 90, 240},
    {0, 255, 0, 145, 54, 34}, {0, 0, 255, 41, 240, 110},      {200, 100, 50, 123, 91, 175},
};

#define NROWS(a) (int)(sizeof(a) / sizeof(a[0]))

/* A frame of one 2 x 2 block per row of yuv_rgb, side by side, in format
 * f: each block's luma one value. */
START_TEST(hand_worked)
{
    static const clik_yuv_format formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};
    const int n = NROWS(yuv_rgb), w = 2 * n, h = 2;
    for (int fi = 0; fi < 3; fi++) {
        uint8_t bytes[3 * 2 * NROWS(yuv_rgb)];
        clik_yuv_image f;
        ck_assert_int_eq(clik_yuv_wrap(&f, formats[fi], w, h, bytes, 0), CLIK_OK);
        for (int i = 0; i < n; i++) {
            for (int y = 0; y < 2; y++)
                for (int x = 0; x < 2; x++)
                    ((uint8_t *)f.y.data)[y * f.y.stride + 2 * i + x] = yuv_rgb[i][0];
            if (formats[fi] == CLIK_YUV_I420) {
                ((uint8_t *)f.u.data)[i] = yuv_rgb[i][1];
                ((uint8_t *)f.v.data)[i] = yuv_rgb[i][2];
            } else {
                uint8_t *c = (uint8_t *)f.uv.data + 2 * i;
                c[formats[fi] == CLIK_YUV_NV21] = yuv_rgb[i][1];
                c[formats[fi] != CLIK_YUV_NV21] = yuv_rgb[i][2];
            }
        }
        for (int ch = 3; ch <= 4; ch++)
            for (int order = 0; order < 2; order++) {
                clik_image rgb;
                ck_assert_int_eq(clik_image_alloc(&rgb, w, h, ch, CLIK_U8), CLIK_OK);
                rgb.order = order ? CLIK_ORDER_BGR : CLIK_ORDER_RGB;
                ck_assert_msg(clik_yuv_to_rgb(h_ctx, &f, &rgb, CLIK_YUV_BT601) == CLIK_OK, "%s",
                              clik_context_message(h_ctx));
                ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
                for (int i = 0; i < n; i++)
                    for (int y = 0; y < 2; y++)
                        for (int x = 0; x < 2; x++) {
                            const uint8_t *p =
                                (const uint8_t *)rgb.data + y * rgb.stride + (2 * i + x) * ch;
                            for (int c = 0; c < 3; c++)
                                ck_assert_msg(p[order ? 2 - c : c] == yuv_rgb[i][3 + c],
                                              "format %d block %d channel %d: %d, not %d", fi, i, c,
                                              p[order ? 2 - c : c], yuv_rgb[i][3 + c]);
                            if (ch == 4)
                                ck_assert_int_eq(p[3], 255);
                        }
                clik_image_free(&rgb);
            }
    }
    /* RGB to I420, NV12 and NV21: each block one colour. */
    const int m = NROWS(rgb_yuv), mw = 2 * m;
    clik_image rgb;
    ck_assert_int_eq(clik_image_alloc(&rgb, mw, 2, 3, CLIK_U8), CLIK_OK);
    for (int i = 0; i < m; i++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++)
                memcpy((uint8_t *)rgb.data + y * rgb.stride + (2 * i + x) * 3, rgb_yuv[i], 3);
    for (int fi = 0; fi < 3; fi++) {
        uint8_t bytes[3 * 2 * NROWS(rgb_yuv)];
        clik_yuv_image f;
        ck_assert_int_eq(clik_yuv_wrap(&f, formats[fi], mw, 2, bytes, 0), CLIK_OK);
        ck_assert_msg(clik_rgb_to_yuv(h_ctx, &rgb, &f, CLIK_YUV_BT601) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        for (int i = 0; i < m; i++) {
            for (int y = 0; y < 2; y++)
                for (int x = 0; x < 2; x++)
                    ck_assert_int_eq(((uint8_t *)f.y.data)[y * f.y.stride + 2 * i + x],
                                     rgb_yuv[i][3]);
            uint8_t u, v;
            if (formats[fi] == CLIK_YUV_I420) {
                u = ((uint8_t *)f.u.data)[i];
                v = ((uint8_t *)f.v.data)[i];
            } else {
                const uint8_t *c = (const uint8_t *)f.uv.data + 2 * i;
                u = c[formats[fi] == CLIK_YUV_NV21];
                v = c[formats[fi] != CLIK_YUV_NV21];
            }
            ck_assert_int_eq(u, rgb_yuv[i][4]);
            ck_assert_int_eq(v, rgb_yuv[i][5]);
        }
    }
    clik_image_free(&rgb);
}
END_TEST

/* ---- layout ------------------------------------------------------------------------- */

/* clik_yuv_wrap's planes sit where OpenCV's layout puts them. */
START_TEST(wrap_layout)
{
    static uint8_t buf[64 * 48 * 2];
    clik_yuv_image f;
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV21, 40, 30, buf, 64), CLIK_OK);
    ck_assert_ptr_eq(f.y.data, buf);
    ck_assert_ptr_eq(f.uv.data, buf + 30 * 64);
    ck_assert_int_eq(f.uv.width, 20);
    ck_assert_int_eq(f.uv.height, 15);
    ck_assert_int_eq(f.uv.channels, 2);
    ck_assert_uint_eq(f.uv.stride, 64);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_I420, 40, 30, buf, 0), CLIK_OK);
    ck_assert_ptr_eq(f.u.data, buf + 40 * 30);
    ck_assert_ptr_eq(f.v.data, buf + 40 * 30 + 20 * 15);
    ck_assert_uint_eq(f.u.stride, 20);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_I420, 40, 30, buf, 64), CLIK_OK);
    ck_assert_ptr_eq(f.v.data, buf + 64 * 30 + 32 * 15);
    ck_assert_uint_eq(clik_yuv_size(40, 30), 1800);
    /* Refused: *frame stays as it was. */
    clik_yuv_image before = f;
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, 41, 30, buf, 0), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, 40, 31, buf, 0), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, 0, 2, buf, 0), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, -2, 2, buf, 0), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, 40, 30, buf, 39), CLIK_ERR_STRIDE);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_I420, 40, 30, buf, 41), CLIK_ERR_STRIDE);
    ck_assert_int_eq(clik_yuv_wrap(&f, (clik_yuv_format)0, 40, 30, buf, 0), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_yuv_wrap(&f, (clik_yuv_format)4, 40, 30, buf, 0), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, 40, 30, NULL, 0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_wrap(NULL, CLIK_YUV_NV12, 40, 30, buf, 0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV12, 2, 1 << 20, buf, SIZE_MAX / 4),
                     CLIK_ERR_OVERFLOW);
    ck_assert_mem_eq(&f, &before, sizeof(f));
    ck_assert_uint_eq(clik_yuv_size(3, 2), 0);
    ck_assert_uint_eq(clik_yuv_size(2, 0), 0);
}
END_TEST

/* ---- planes apart, on the device ------------------------------------------------------ */

/* A frame whose planes are images of their own: padded rows, separate
 * allocations, device images; both directions give the bytes of the same
 * frame in one packed allocation. */
START_TEST(separate_planes)
{
    const int w = h_small ? 98 : 642, h = h_small ? 62 : 480;
    clik_image src, want_rgb, got_rgb;
    ck_assert_int_eq(clik_image_alloc(&src, w, h, 4, CLIK_U8), CLIK_OK);
    sup_pattern_fill(&src, SUP_PATTERN_SMOOTH, 37);
    ck_assert_int_eq(clik_image_alloc(&want_rgb, w, h, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&got_rgb, w, h, 4, CLIK_U8), CLIK_OK);
    static const clik_yuv_format formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};
    for (int fi = 0; fi < 3; fi++) {
        const clik_yuv_format fmt = formats[fi];
        const size_t n = clik_yuv_size(w, h);
        uint8_t *packed = malloc(n);
        ck_assert_ptr_nonnull(packed);
        clik_yuv_image want;
        ck_assert_int_eq(clik_yuv_wrap(&want, fmt, w, h, packed, 0), CLIK_OK);
        ck_assert_int_eq(clik_rgb_to_yuv(h_oracle, &src, &want, CLIK_YUV_BT601), CLIK_OK);
        ck_assert_int_eq(clik_yuv_to_rgb(h_oracle, &want, &want_rgb, CLIK_YUV_BT601), CLIK_OK);
        /* Host planes with padded rows, each its own allocation. */
        clik_yuv_image f = {.format = fmt};
        const int cw = w / 2, ch = h / 2, nc = fmt == CLIK_YUV_I420 ? 1 : 2;
        uint8_t *ybuf = calloc((size_t)(w + 13) * h, 1);
        uint8_t *c0 = calloc((size_t)(cw * nc + 7) * ch, 1), *c1 = calloc((size_t)(cw + 5) * ch, 1);
        ck_assert(ybuf && c0 && c1);
        ck_assert_int_eq(clik_image_wrap(&f.y, w, h, 1, CLIK_U8, ybuf, (size_t)w + 13), CLIK_OK);
        if (nc == 2) {
            ck_assert_int_eq(clik_image_wrap(&f.uv, cw, ch, 2, CLIK_U8, c0, (size_t)cw * 2 + 7),
                             CLIK_OK);
        } else {
            ck_assert_int_eq(clik_image_wrap(&f.u, cw, ch, 1, CLIK_U8, c0, (size_t)cw + 7),
                             CLIK_OK);
            ck_assert_int_eq(clik_image_wrap(&f.v, cw, ch, 1, CLIK_U8, c1, (size_t)cw + 5),
                             CLIK_OK);
        }
        ck_assert_msg(clik_rgb_to_yuv(h_ctx, &src, &f, CLIK_YUV_BT601) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        for (int y = 0; y < h; y++)
            ck_assert_mem_eq(ybuf + (size_t)y * (w + 13), packed + (size_t)y * w, (size_t)w);
        for (int y = 0; y < ch; y++) {
            const uint8_t *pc = packed + (size_t)w * h;
            if (nc == 2) {
                ck_assert_mem_eq(c0 + (size_t)y * (cw * 2 + 7), pc + (size_t)y * w, (size_t)w);
            } else {
                ck_assert_mem_eq(c0 + (size_t)y * (cw + 7), pc + (size_t)y * cw, (size_t)cw);
                ck_assert_mem_eq(c1 + (size_t)y * (cw + 5), pc + (size_t)(ch + y) * cw, (size_t)cw);
            }
        }
        ck_assert_msg(clik_yuv_to_rgb(h_ctx, &f, &got_rgb, CLIK_YUV_BT601) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        ck_assert_mem_eq(got_rgb.data, want_rgb.data, got_rgb.stride * (size_t)h);
        /* The same frame on the device: planes uploaded, RGB downloaded. */
        clik_yuv_image d = {.format = fmt};
        ck_assert_int_eq(clik_image_create(h_ctx, &d.y, w, h, 1, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_upload(h_ctx, &d.y, &want.y), CLIK_OK);
        if (nc == 2) {
            ck_assert_int_eq(clik_image_create(h_ctx, &d.uv, cw, ch, 2, CLIK_U8), CLIK_OK);
            ck_assert_int_eq(clik_image_upload(h_ctx, &d.uv, &want.uv), CLIK_OK);
        } else {
            ck_assert_int_eq(clik_image_create(h_ctx, &d.u, cw, ch, 1, CLIK_U8), CLIK_OK);
            ck_assert_int_eq(clik_image_create(h_ctx, &d.v, cw, ch, 1, CLIK_U8), CLIK_OK);
            ck_assert_int_eq(clik_image_upload(h_ctx, &d.u, &want.u), CLIK_OK);
            ck_assert_int_eq(clik_image_upload(h_ctx, &d.v, &want.v), CLIK_OK);
        }
        clik_image d_rgb;
        ck_assert_int_eq(clik_image_create(h_ctx, &d_rgb, w, h, 4, CLIK_U8), CLIK_OK);
        ck_assert_msg(clik_yuv_to_rgb(h_ctx, &d, &d_rgb, CLIK_YUV_BT601) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        memset(got_rgb.data, 0, got_rgb.stride * (size_t)h);
        ck_assert_int_eq(clik_image_download(h_ctx, &got_rgb, &d_rgb), CLIK_OK);
        ck_assert_mem_eq(got_rgb.data, want_rgb.data, got_rgb.stride * (size_t)h);
        /* And back into the device frame, compared through the host. */
        ck_assert_msg(clik_rgb_to_yuv(h_ctx, &d_rgb, &d, CLIK_YUV_BT601) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        clik_image back;
        ck_assert_int_eq(clik_image_alloc(&back, w, h, 1, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_download(h_ctx, &back, &d.y), CLIK_OK);
        clik_image oracle_y;
        ck_assert_int_eq(clik_image_alloc(&oracle_y, w, h, 1, CLIK_U8), CLIK_OK);
        clik_yuv_image again = want;
        again.y = oracle_y;
        ck_assert_int_eq(clik_rgb_to_yuv(h_oracle, &want_rgb, &again, CLIK_YUV_BT601), CLIK_OK);
        ck_assert_mem_eq(back.data, oracle_y.data, back.stride * (size_t)h);
        h_free_images(&d.y, &d.uv, &d.u, &d.v, &d_rgb, &back, &oracle_y, NULL);
        free(ybuf);
        free(c0);
        free(c1);
        free(packed);
    }
    h_free_images(&src, &want_rgb, &got_rgb, NULL);
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------- */

/* ---- resize ------------------------------------------------------------------------- */

/* Channel c of a 2-channel plane as a grey image. */
static void channel_of(const clik_image *uv, int c, clik_image *out)
{
    ck_assert_int_eq(clik_image_alloc(out, uv->width, uv->height, 1, CLIK_U8), CLIK_OK);
    for (int y = 0; y < uv->height; y++)
        for (int x = 0; x < uv->width; x++)
            ((uint8_t *)out->data)[(size_t)y * out->stride + (size_t)x] =
                ((const uint8_t *)uv->data)[(size_t)y * uv->stride + 2 * (size_t)x + (size_t)c];
}

/* want = clik_resize of plane `in` to got's size; got's bytes (channel c
 * of 2 when interleaved, else the plane) equal want's. */
static void plane_matches(const clik_image *in, const clik_image *got, int c, clik_interp m,
                          const char *what)
{
    clik_image src = *in, want;
    int own = 0;
    if (in->channels == 2) {
        channel_of(in, c, &src);
        own = 1;
    }
    ck_assert_int_eq(clik_image_alloc(&want, got->width, got->height, 1, CLIK_U8), CLIK_OK);
    ck_assert_msg(clik_resize(h_ctx, &src, &want, m) == CLIK_OK, "%s", clik_context_message(h_ctx));
    for (int y = 0; y < got->height; y++)
        for (int x = 0; x < got->width; x++) {
            const uint8_t g = ((const uint8_t *)
                                   got->data)[(size_t)y * got->stride +
                                              (size_t)x * (size_t)got->channels + (size_t)c],
                          w = ((const uint8_t *)want.data)[(size_t)y * want.stride + (size_t)x];
            ck_assert_msg(g == w, "%s %s (%d, %d): %d, resized alone %d", what, clik_interp_name(m),
                          x, y, g, w);
        }
    clik_image_free(&want);
    if (own)
        clik_image_free(&src);
}

/* A frame resized is each plane resized on its own: the interleaved
 * chroma's two channels as two grey images (the 2-channel path against
 * the 1-channel one), up and down, every method and format. */
START_TEST(resize_planes)
{
    static const clik_yuv_format formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};
    static const int sizes[][2] = {{76, 52}, {14, 10}, {30, 40}};
    const int w = 38, h = 26;
    uint8_t *src = malloc(clik_yuv_size(w, h));
    ck_assert_ptr_nonnull(src);
    unsigned r = 12345;
    for (size_t i = 0; i < clik_yuv_size(w, h); i++) {
        r = r * 1103515245u + 12345u;
        src[i] = (uint8_t)(r >> 16);
    }
    for (int fi = 0; fi < 3; fi++)
        for (int si = 0; si < 3; si++)
            for (int m = CLIK_INTERP_NEAREST; m <= CLIK_INTERP_BICUBIC_AA; m++) {
                const int ow = sizes[si][0], oh = sizes[si][1];
                uint8_t *dst = malloc(clik_yuv_size(ow, oh));
                ck_assert_ptr_nonnull(dst);
                clik_yuv_image f, g;
                ck_assert_int_eq(clik_yuv_wrap(&f, formats[fi], w, h, src, 0), CLIK_OK);
                ck_assert_int_eq(clik_yuv_wrap(&g, formats[fi], ow, oh, dst, 0), CLIK_OK);
                ck_assert_msg(clik_yuv_resize(h_ctx, &f, &g, (clik_interp)m) == CLIK_OK, "%s",
                              clik_context_message(h_ctx));
                ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
                plane_matches(&f.y, &g.y, 0, (clik_interp)m, "y");
                if (formats[fi] == CLIK_YUV_I420) {
                    plane_matches(&f.u, &g.u, 0, (clik_interp)m, "u");
                    plane_matches(&f.v, &g.v, 0, (clik_interp)m, "v");
                } else {
                    plane_matches(&f.uv, &g.uv, 0, (clik_interp)m, "uv[0]");
                    plane_matches(&f.uv, &g.uv, 1, (clik_interp)m, "uv[1]");
                }
                free(dst);
            }
    free(src);
}
END_TEST

/* st must be want, with a message in h_ctx that holds words. */
static void expect_refused(clik_status st, clik_status want, const char *words)
{
    ck_assert_int_eq(st, want);
    ck_assert_ptr_nonnull(strstr(clik_context_message(h_ctx), words));
}

/* A frame upscaled by the LAPAR model (net NULL) or a network: luma as
 * clik_upscale_lapar (clik_lapar_net_run) of the luma plane alone, chroma
 * as clik_resize bicubic of each chroma plane, byte for byte. */
static void frame_upscale_matches(const uint8_t *src, int w, int h, clik_yuv_format format,
                                  int scale, const clik_lapar_net *net)
{
    uint8_t *dst = malloc(clik_yuv_size(w * scale, h * scale));
    ck_assert_ptr_nonnull(dst);
    clik_yuv_image f, g;
    ck_assert_int_eq(clik_yuv_wrap(&f, format, w, h, (uint8_t *)src, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_wrap(&g, format, w * scale, h * scale, dst, 0), CLIK_OK);
    clik_status st = net ? clik_yuv_upscale_lapar_net(h_ctx, &f, &g, net)
                         : clik_yuv_upscale_lapar(h_ctx, &f, &g, scale, NULL);
    ck_assert_msg(st == CLIK_OK, "%s", clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    clik_image want;
    ck_assert_int_eq(clik_image_alloc(&want, w * scale, h * scale, 1, CLIK_U8), CLIK_OK);
    st = net ? clik_lapar_net_run(h_ctx, net, &f.y, &want, NULL)
             : clik_upscale_lapar(h_ctx, &f.y, &want, scale, NULL);
    ck_assert_int_eq(st, CLIK_OK);
    for (int y = 0; y < h * scale; y++)
        ck_assert_mem_eq((const uint8_t *)g.y.data + (size_t)y * g.y.stride,
                         (const uint8_t *)want.data + (size_t)y * want.stride, (size_t)(w * scale));
    clik_image_free(&want);
    if (format == CLIK_YUV_I420) {
        plane_matches(&f.u, &g.u, 0, CLIK_INTERP_BICUBIC, "u");
        plane_matches(&f.v, &g.v, 0, CLIK_INTERP_BICUBIC, "v");
    } else {
        plane_matches(&f.uv, &g.uv, 0, CLIK_INTERP_BICUBIC, "uv[0]");
        plane_matches(&f.uv, &g.uv, 1, CLIK_INTERP_BICUBIC, "uv[1]");
    }
    free(dst);
}

static uint8_t *test_frame(int w, int h)
{
    uint8_t *src = malloc(clik_yuv_size(w, h));
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < clik_yuv_size(w, h); i++)
        src[i] = (uint8_t)((i * 37u + (i >> 5) * 11u) & 0xff);
    return src;
}

static const clik_yuv_format all_formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};

START_TEST(upscale_planes)
{
    const int w = 30, h = 22;
    uint8_t *src = test_frame(w, h);
    for (int fi = 0; fi < 3; fi++)
        for (int scale = 2; scale <= 3; scale++)
            frame_upscale_matches(src, w, h, all_formats[fi], scale, NULL);
    /* a dst not scale times src, a scale the model lacks */
    static uint8_t out[64 * 48 * 3 / 2];
    clik_yuv_image f, g;
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV21, w, h, src, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_wrap(&g, CLIK_YUV_NV21, 64, 48, out, 0), CLIK_OK);
    expect_refused(clik_yuv_upscale_lapar(h_ctx, &f, &g, 2, NULL), CLIK_ERR_SIZE_MISMATCH,
                   "upscaled by 2");
    ck_assert_int_eq(clik_yuv_upscale_lapar(h_ctx, &f, &g, 5, NULL), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_yuv_upscale_lapar(h_ctx, &f, &g, 1, NULL), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_yuv_upscale_lapar(h_ctx, NULL, &g, 2, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_upscale_lapar(NULL, &f, &g, 2, NULL), CLIK_ERR_NULL);
    free(src);
}
END_TEST

/* The same with a network (the small one of the conformance cases); under
 * Oclgrind (small sizes) one format, whose kernels the conformance case
 * checks there too. */
START_TEST(upscale_planes_net)
{
    const int w = 18, h = 14;
    uint8_t *src = test_frame(w, h);
    clik_lapar_net *net = NULL;
    ck_assert_int_eq(sup_case_small_net(&net), CLIK_OK);
    for (int fi = h_small ? 2 : 0; fi < 3; fi++)
        frame_upscale_matches(src, w, h, all_formats[fi], 2, net);
    /* a dst not twice src, no network, a frame NULL */
    static uint8_t out[40 * 28 * 3 / 2];
    clik_yuv_image f, g;
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV21, w, h, src, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_wrap(&g, CLIK_YUV_NV21, 40, 28, out, 0), CLIK_OK);
    expect_refused(clik_yuv_upscale_lapar_net(h_ctx, &f, &g, net), CLIK_ERR_SIZE_MISMATCH,
                   "upscaled by 2");
    ck_assert_int_eq(clik_yuv_wrap(&g, CLIK_YUV_NV21, 2 * w, 2 * h, out, 0), CLIK_OK);
    expect_refused(clik_yuv_upscale_lapar_net(h_ctx, &f, &g, NULL), CLIK_ERR_NULL, "net is NULL");
    ck_assert_int_eq(clik_yuv_upscale_lapar_net(h_ctx, NULL, &g, net), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_upscale_lapar_net(NULL, &f, &g, net), CLIK_ERR_NULL);
    clik_lapar_net_free(net);
    free(src);
}
END_TEST

START_TEST(bad_input)
{
    static uint8_t buf[16 * 12 * 3 / 2], rgbbuf[16 * 12 * 4];
    clik_yuv_image f;
    ck_assert_int_eq(clik_yuv_wrap(&f, CLIK_YUV_NV21, 16, 12, buf, 0), CLIK_OK);
    clik_image rgb, small, grey16;
    ck_assert_int_eq(clik_image_wrap(&rgb, 16, 12, 4, CLIK_U8, rgbbuf, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&small, 14, 12, 4, CLIK_U8, rgbbuf, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&grey16, 16, 12, 2, CLIK_U8, rgbbuf, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_to_rgb(NULL, &f, &rgb, CLIK_YUV_BT601), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, NULL, &rgb, CLIK_YUV_BT601), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, &f, NULL, CLIK_YUV_BT601), CLIK_ERR_NULL);
    expect_refused(clik_yuv_to_rgb(h_ctx, &f, &rgb, (clik_yuv_space)4), CLIK_ERR_INVALID_ARG,
                   "colour space");
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, &f, &small, CLIK_YUV_BT601), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, &f, &grey16, CLIK_YUV_BT601),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_rgb_to_yuv(h_ctx, &grey16, &f, CLIK_YUV_BT601),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    clik_yuv_image bad = f;
    bad.format = CLIK_YUV_I420; /* u and v unset */
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, &bad, &rgb, CLIK_YUV_BT601), CLIK_ERR_NULL);
    bad = f;
    bad.format = (clik_yuv_format)9;
    expect_refused(clik_yuv_to_rgb(h_ctx, &bad, &rgb, CLIK_YUV_BT601), CLIK_ERR_INVALID_ARG,
                   "format");
    /* An odd luma plane, a chroma plane of the wrong size or channels. */
    bad = f;
    bad.y.width = 15;
    expect_refused(clik_yuv_to_rgb(h_ctx, &bad, &small, CLIK_YUV_BT601), CLIK_ERR_INVALID_SIZE,
                   "even");
    bad = f;
    bad.uv.height = 5;
    expect_refused(clik_yuv_to_rgb(h_ctx, &bad, &rgb, CLIK_YUV_BT601), CLIK_ERR_SIZE_MISMATCH,
                   "src.uv");
    bad = f;
    bad.uv.channels = 1;
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, &bad, &rgb, CLIK_YUV_BT601),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    /* dst over the frame's own memory; two planes sharing memory. */
    clik_image over;
    ck_assert_int_eq(clik_image_wrap(&over, 16, 12, 1, CLIK_U8, buf, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_to_rgb(h_ctx, &f, &over, CLIK_YUV_BT601), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_rgb_to_yuv(h_ctx, &rgb, &f, CLIK_YUV_BT601), CLIK_OK);
    bad = f;
    bad.uv.data = buf + 16 * 4;
    expect_refused(clik_rgb_to_yuv(h_ctx, &rgb, &bad, CLIK_YUV_BT601), CLIK_ERR_INVALID_ARG,
                   "overlapping");
    /* resize: NULLs, an unknown method, formats that differ, an odd dst,
     * dst over src */
    static uint8_t big[32 * 24 * 3 / 2];
    clik_yuv_image g, gi;
    ck_assert_int_eq(clik_yuv_wrap(&g, CLIK_YUV_NV21, 32, 24, big, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_wrap(&gi, CLIK_YUV_I420, 32, 24, big, 0), CLIK_OK);
    ck_assert_int_eq(clik_yuv_resize(NULL, &f, &g, CLIK_INTERP_BILINEAR), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_resize(h_ctx, NULL, &g, CLIK_INTERP_BILINEAR), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_resize(h_ctx, &f, NULL, CLIK_INTERP_BILINEAR), CLIK_ERR_NULL);
    expect_refused(clik_yuv_resize(h_ctx, &f, &g, (clik_interp)7), CLIK_ERR_INVALID_ARG, "method");
    expect_refused(clik_yuv_resize(h_ctx, &f, &gi, CLIK_INTERP_BILINEAR), CLIK_ERR_INVALID_ARG,
                   "keeps the format");
    bad = g;
    bad.y.width = 31;
    ck_assert_int_eq(clik_yuv_resize(h_ctx, &f, &bad, CLIK_INTERP_BILINEAR), CLIK_ERR_INVALID_SIZE);
    bad = g;
    bad.uv.width = 15;
    ck_assert_int_eq(clik_yuv_resize(h_ctx, &f, &bad, CLIK_INTERP_BILINEAR),
                     CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_yuv_resize(h_ctx, &f, &f, CLIK_INTERP_BILINEAR), CLIK_ERR_INVALID_ARG);
    bad = g;
    bad.uv = f.uv; /* half the size: refused before the overlap */
    ck_assert_int_eq(clik_yuv_resize(h_ctx, &f, &bad, CLIK_INTERP_NEAREST), CLIK_ERR_SIZE_MISMATCH);
    clik_yuv_image same;
    ck_assert_int_eq(clik_yuv_wrap(&same, CLIK_YUV_NV21, 16, 12, big, 0), CLIK_OK);
    same.uv = g.uv; /* a dst chroma plane over... */
    same.uv.width = 8;
    same.uv.height = 6;
    same.y.data = g.uv.data; /* ...its own luma */
    expect_refused(clik_yuv_resize(h_ctx, &f, &same, CLIK_INTERP_NEAREST), CLIK_ERR_INVALID_ARG,
                   "overlapping");
}
END_TEST

int main(void)
{
    /* The device's default kernels, then each kind forced: the block
     * kernels, the vector kernels in bands of whole rows (CPU devices; 3
     * block rows a band: bands that end inside the frame) and in 3 steps
     * of a row a work-item (GPUs take 1: 3 ends rows inside a work-item's
     * share), on poisoned new images. Band heights are swept by
     * test_tuning. */
    static const char *const tunings[] = {"", "yuv_rows=0,poison=1",
                                          "yuv_rows=1,yuv_row_steps=0,yuv_band_rows=3,poison=1",
                                          "yuv_rows=1,yuv_row_steps=3,poison=1", NULL};
    const h_test tests[] = {H_TEST(hand_worked),     H_TEST(wrap_layout),
                            H_TEST(separate_planes), H_TEST(resize_planes),
                            H_TEST(upscale_planes),  H_TEST(upscale_planes_net),
                            H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"yuv", "yuv", 0, tests, H_COUNT(tests), tunings, NULL});
}

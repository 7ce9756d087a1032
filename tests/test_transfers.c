/*
 * Host images on the device path: malloc'd, context-allocated
 * (clik_image_alloc_on: zero-copy or pinned) and device images give the same
 * results, through every transfer path (host_transfer=wrap|direct|staged,
 * staging in bands of one row); views into context images; freeing; the
 * queued copies (clik_image_upload_async, clik_image_download_async) in a
 * frame loop, ordered against the operations around them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { W = 203, H = 77 };

static void fill(clik_image *img, unsigned seed)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
        for (size_t x = 0; x < (size_t)img->width * (size_t)img->channels; x++)
            row[x] = (uint8_t)((x * 7u + (size_t)y * 13u + seed * 31u) ^ (x >> 3));
    }
}

static int same_pixels(const clik_image *a, const clik_image *b)
{
    const size_t row = (size_t)a->width * (size_t)a->channels * clik_type_size(a->type);
    for (int y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row) != 0)
            return 0;
    return 1;
}

/* Runs lut, pyr_down and integral on src into host images of `kind`
 * (0 malloc, 1 context, 2 device, downloaded) and leaves the results in
 * out[0..2] (host images the caller frees). */
static void run_ops(clik_context *ctx, int kind, const clik_image *src_host, clik_image *out)
{
    uint8_t table[256];
    for (int i = 0; i < 256; i++)
        table[i] = (uint8_t)(255 - i / 2);
    const int ch = src_host->channels;
    clik_image src, lut, pyr, sum;
    const int dw = (W + 1) / 2, dh = (H + 1) / 2;
    if (kind == 0) {
        h_alloc_images(W, H, ch, CLIK_U8, &src, &lut, NULL);
        ck_assert_int_eq(clik_image_alloc(&pyr, dw, dh, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&sum, W + 1, H + 1, ch, CLIK_F64), CLIK_OK);
    } else {
        clik_status (*make)(clik_context *, clik_image *, int, int, int, clik_type) =
            kind == 1 ? clik_image_alloc_on : clik_image_create;
        ck_assert_msg(make(ctx, &src, W, H, ch, CLIK_U8) == CLIK_OK, "%s",
                      clik_context_message(ctx));
        ck_assert_int_eq(make(ctx, &lut, W, H, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(make(ctx, &pyr, dw, dh, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(make(ctx, &sum, W + 1, H + 1, ch, CLIK_F64), CLIK_OK);
    }
    if (kind == 2)
        ck_assert_int_eq(clik_image_upload(ctx, &src, src_host), CLIK_OK);
    else
        memcpy(src.data, src_host->data, src_host->stride * (size_t)H);
    ck_assert_msg(clik_hist_lut(ctx, &src, &lut, table, 1) == CLIK_OK, "%s",
                  clik_context_message(ctx));
    ck_assert_msg(clik_pyr_down(ctx, &src, &pyr) == CLIK_OK, "%s", clik_context_message(ctx));
    ck_assert_msg(clik_integral(ctx, &src, &sum, NULL) == CLIK_OK, "%s", clik_context_message(ctx));
    clik_image *got[3] = {&lut, &pyr, &sum};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(clik_image_alloc(&out[i], got[i]->width, got[i]->height, ch, got[i]->type),
                         CLIK_OK);
        if (kind == 2)
            ck_assert_int_eq(clik_image_download(ctx, &out[i], got[i]), CLIK_OK);
        else
            memcpy(out[i].data, got[i]->data, got[i]->stride * (size_t)got[i]->height);
    }
    h_free_images(&src, &lut, &pyr, &sum, NULL);
}

static void same_through(clik_context *ctx)
{
    for (int ch = 1; ch <= 4; ch *= 4) {
        clik_image src;
        ck_assert_int_eq(clik_image_alloc(&src, W, H, ch, CLIK_U8), CLIK_OK);
        fill(&src, (unsigned)ch);
        clik_image want[3], got[3];
        run_ops(h_oracle, 0, &src, want);
        for (int kind = 0; kind < 3; kind++) {
            run_ops(ctx, kind, &src, got);
            for (int i = 0; i < 3; i++) {
                ck_assert_msg(same_pixels(&want[i], &got[i]), "%s: op %d, image kind %d, %d ch",
                              h_backend, i, kind, ch);
                clik_image_free(&got[i]);
            }
        }
        for (int i = 0; i < 3; i++)
            clik_image_free(&want[i]);
        clik_image_free(&src);
    }
}

START_TEST(same_results_every_image_kind)
{
    same_through(h_ctx);
}
END_TEST

/* The staging path in bands of one row (many bands, both buffers), and the
 * plain copies, whatever the device would pick. */
START_TEST(same_results_forced_paths)
{
    static const char *const forced[] = {"host_transfer=staged,staging_kib=4,poison=1",
                                         "host_transfer=staged", "host_transfer=direct,poison=1"};
    for (int i = 0; i < 3; i++) {
        clik_context *ctx = h_tuned_context(forced[i]);
        same_through(ctx);
        h_tuned_context_free(ctx);
    }
}
END_TEST

/* A view of the inner part of a context image, as source and destination. */
START_TEST(views_into_context_images)
{
    const char *const tunings[] = {"", "host_transfer=staged,staging_kib=4"};
    for (int t = 0; t < 2; t++) {
        clik_context *ctx = t ? h_tuned_context(tunings[t]) : h_ctx;
        clik_image big, out, view, oview, ref_src, ref_out;
        ck_assert_int_eq(clik_image_alloc_on(ctx, &big, W, H, 1, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc_on(ctx, &out, W, H, 1, CLIK_U8), CLIK_OK);
        fill(&big, 5);
        memset(out.data, 0x5a, out.stride * (size_t)H);
        const int x0 = 3, y0 = 5, vw = 150, vh = 60;
        ck_assert_int_eq(clik_image_wrap(&view, vw, vh, 1, CLIK_U8,
                                         (uint8_t *)big.data + (size_t)y0 * big.stride + x0,
                                         big.stride),
                         CLIK_OK);
        ck_assert_int_eq(clik_image_wrap(&oview, vw, vh, 1, CLIK_U8,
                                         (uint8_t *)out.data + (size_t)y0 * out.stride + x0,
                                         out.stride),
                         CLIK_OK);
        uint8_t table[256];
        for (int i = 0; i < 256; i++)
            table[i] = (uint8_t)(i * 3);
        ck_assert_msg(clik_hist_lut(ctx, &view, &oview, table, 1) == CLIK_OK, "%s",
                      clik_context_message(ctx));
        h_alloc_images(vw, vh, 1, CLIK_U8, &ref_src, &ref_out, NULL);
        for (int y = 0; y < vh; y++)
            memcpy((uint8_t *)ref_src.data + (size_t)y * ref_src.stride,
                   (uint8_t *)view.data + (size_t)y * view.stride, (size_t)vw);
        ck_assert_int_eq(clik_hist_lut(h_oracle, &ref_src, &ref_out, table, 1), CLIK_OK);
        ck_assert_msg(same_pixels(&ref_out, &oview), "%s: view", h_backend);
        /* Pixels outside the view are untouched. */
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (y < y0 || y >= y0 + vh || x < x0 || x >= x0 + vw)
                    ck_assert_int_eq(((uint8_t *)out.data)[(size_t)y * out.stride + (size_t)x],
                                     0x5a);
        /* In place, on the whole context image. */
        ck_assert_int_eq(clik_hist_lut(ctx, &big, &big, table, 1), CLIK_OK);
        ck_assert_int_eq(((uint8_t *)big.data)[(size_t)y0 * big.stride + x0],
                         ((uint8_t *)ref_out.data)[0]);
        h_free_images(&big, &out, &ref_src, &ref_out, NULL);
        if (t)
            h_tuned_context_free(ctx);
    }
}
END_TEST

/* Contexts without a device hand out plain memory that works the same. */
START_TEST(cpu_context_images)
{
    clik_context *cpu = h_cpu_context();
    same_through(cpu);
    clik_context_destroy(cpu);
}
END_TEST

START_TEST(alloc_and_free)
{
    clik_image img;
    ck_assert_int_eq(clik_image_alloc_on(NULL, &img, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_alloc_on(h_ctx, NULL, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_alloc_on(h_ctx, &img, 0, 4, 1, CLIK_U8), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_image_alloc_on(h_ctx, &img, 4, 4, 5, CLIK_U8),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_image_alloc_on(h_ctx, &img, 5, 3, 2, CLIK_F32), CLIK_OK);
    ck_assert_int_eq(img.owned, CLIK_OWNED_CONTEXT);
    ck_assert_ptr_null(img.buffer);
    ck_assert_int_eq(clik_image_validate(&img), CLIK_OK);
    ck_assert_int_eq((uintptr_t)img.data % 64, 0);
    memset(img.data, 1, img.stride * 3);
    /* A copy that is a view (owned 0) leaves the memory alone. */
    clik_image view = img;
    view.owned = 0;
    clik_image_free(&view);
    ck_assert_ptr_null(view.data);
    clik_image_free(&img);
    ck_assert_ptr_null(img.data);
    clik_image_free(&img); /* cleared: ignored */
    clik_image_free(NULL);
    /* Images left at the context's end are released with it. */
    clik_context *cpu = h_cpu_context();
    ck_assert_int_eq(clik_image_alloc_on(cpu, &img, 8, 8, 4, CLIK_U8), CLIK_OK);
    clik_context_destroy(cpu);
}
END_TEST

/* table t: v -> v * 3 + t * 17 (mod 256), a different one per frame. */
static void frame_table(uint8_t *table, int t)
{
    for (int v = 0; v < 256; v++)
        table[v] = (uint8_t)(v * 3 + t * 17);
}

/* 1 when img (host) is the table of frame t applied to src. */
static int is_lut_of(const clik_image *img, const clik_image *src, int t)
{
    uint8_t table[256];
    frame_table(table, t);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *a = (const uint8_t *)img->data + (size_t)y * img->stride;
        const uint8_t *b = (const uint8_t *)src->data + (size_t)y * src->stride;
        for (int x = 0; x < img->width; x++)
            if (a[x] != table[b[x]])
                return 0;
    }
    return 1;
}

/* A camera's loop: frame i uploaded (queued) into device image i % 2, a
 * table applied into another, downloaded (queued) into host image i % 2,
 * which is checked two frames later, after its ticket. On a device the
 * frames are of 8 MiB, large enough that a copy left unordered races the
 * kernels (on PoCL, without the order of an operation after an upload,
 * the loop failed 2 runs in 3); small without one, or under Oclgrind. Then the
 * orders one at a time: a write queued behind a download of the image it
 * writes, a blocking download behind a queued upload, and 70 copies in
 * flight (the 65th waits for the oldest). */
static void queued_copies(clik_context *ctx)
{
    enum { FRAMES = 8 };
    const int big = clik_context_device(ctx) && !h_small;
    const int FW = big ? 4096 : 128, FH = big ? 2048 : 64;
    clik_image in[FRAMES], dsrc[2], ddst[2], out[2];
    uint64_t up[FRAMES], down[FRAMES];
    uint8_t table[256];
    for (int i = 0; i < FRAMES; i++) {
        ck_assert_int_eq(clik_image_alloc_on(ctx, &in[i], FW, FH, 1, CLIK_U8), CLIK_OK);
        fill(&in[i], (unsigned)i + 1);
    }
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(clik_image_create(ctx, &dsrc[k], FW, FH, 1, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_create(ctx, &ddst[k], FW, FH, 1, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc_on(ctx, &out[k], FW, FH, 1, CLIK_U8), CLIK_OK);
    }
    for (int i = 0; i < FRAMES; i++) {
        const int k = i % 2;
        if (i >= 2) { /* out[k] holds frame i - 2 */
            ck_assert_int_eq(clik_context_wait(ctx, down[i - 2]), CLIK_OK);
            ck_assert_msg(is_lut_of(&out[k], &in[i - 2], i - 2), "%s: frame %d", h_backend, i - 2);
        }
        ck_assert_int_eq(clik_image_upload_async(ctx, &dsrc[k], &in[i], &up[i]), CLIK_OK);
        ck_assert_uint_eq(up[i], i == 0 ? up[0] : up[i - 1] + 2);
        frame_table(table, i);
        ck_assert_msg(clik_hist_lut(ctx, &dsrc[k], &ddst[k], table, 1) == CLIK_OK, "%s",
                      clik_context_message(ctx));
        ck_assert_int_eq(clik_image_download_async(ctx, &out[k], &ddst[k], &down[i]), CLIK_OK);
        ck_assert_uint_eq(down[i], up[i] + 1);
    }
    ck_assert_int_eq(clik_context_finish(ctx), CLIK_OK);
    for (int i = FRAMES - 2; i < FRAMES; i++) {
        ck_assert_msg(is_lut_of(&out[i % 2], &in[i], i), "%s: frame %d", h_backend, i);
        ck_assert_int_eq(clik_context_wait(ctx, down[i]), CLIK_OK); /* waited: at once */
    }

    /* A download queued, then a kernel that writes its image: the download
     * keeps the bytes from before. */
    uint64_t t;
    ck_assert_int_eq(clik_image_download_async(ctx, &out[0], &ddst[1], &t), CLIK_OK);
    frame_table(table, 40);
    ck_assert_int_eq(clik_hist_lut(ctx, &dsrc[1], &ddst[1], table, 1), CLIK_OK);
    ck_assert_int_eq(clik_context_wait(ctx, t), CLIK_OK);
    ck_assert_msg(is_lut_of(&out[0], &in[FRAMES - 1], FRAMES - 1), "%s: write after read",
                  h_backend);
    ck_assert_int_eq(clik_image_download(ctx, &out[1], &ddst[1]), CLIK_OK);
    ck_assert_msg(is_lut_of(&out[1], &in[FRAMES - 1], 40), "%s: the kernel after", h_backend);

    /* An upload queued, then a blocking download of that image. */
    ck_assert_int_eq(clik_image_upload_async(ctx, &dsrc[0], &in[2], &t), CLIK_OK);
    ck_assert_int_eq(clik_image_download(ctx, &out[0], &dsrc[0]), CLIK_OK);
    ck_assert_msg(same_pixels(&out[0], &in[2]), "%s: read after the upload", h_backend);

    /* More copies in flight than the ring holds, small ones. */
    clik_image small_dev, small_host[70];
    ck_assert_int_eq(clik_image_create(ctx, &small_dev, 17, 3, 1, CLIK_U8), CLIK_OK);
    uint64_t last = 0;
    for (int i = 0; i < 70; i++) {
        ck_assert_int_eq(clik_image_alloc(&small_host[i], 17, 3, 1, CLIK_U8), CLIK_OK);
        fill(&small_host[i], 100 + (unsigned)i);
        ck_assert_int_eq(clik_image_upload_async(ctx, &small_dev, &small_host[i], &last), CLIK_OK);
    }
    ck_assert_int_eq(clik_context_wait(ctx, last), CLIK_OK);
    clik_image small_out;
    ck_assert_int_eq(clik_image_alloc(&small_out, 17, 3, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_download(ctx, &small_out, &small_dev), CLIK_OK);
    ck_assert_msg(same_pixels(&small_out, &small_host[69]), "%s: the last of 70 uploads",
                  h_backend);
    for (int i = 0; i < 70; i++)
        clik_image_free(&small_host[i]);
    h_free_images(&small_out, &small_dev, NULL);
    for (int i = 0; i < FRAMES; i++)
        clik_image_free(&in[i]);
    h_free_images(&dsrc[0], &dsrc[1], &ddst[0], &ddst[1], &out[0], &out[1], NULL);
}

START_TEST(queued_copies_in_a_frame_loop)
{
    queued_copies(h_ctx);
}
END_TEST

/* The same without a device: each copy done when the call returns. */
START_TEST(queued_copies_cpu_context)
{
    clik_context *cpu = h_cpu_context();
    queued_copies(cpu);
    clik_context_destroy(cpu);
}
END_TEST

int main(void)
{
    static const char *const tunings[] = {"", "host_transfer=staged,staging_kib=4", NULL};
    const h_test tests[] = {H_TEST(same_results_every_image_kind),
                            H_TEST(same_results_forced_paths),
                            H_TEST(views_into_context_images),
                            H_TEST(cpu_context_images),
                            H_TEST(alloc_and_free),
                            H_TEST(queued_copies_in_a_frame_loop),
                            H_TEST(queued_copies_cpu_context)};
    return h_suite_main(&(h_suite){"transfers", NULL, 0, tests, H_COUNT(tests), tunings, NULL});
}

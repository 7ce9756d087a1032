/* clik ssim. SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const ssim_usage =
    "usage: clik ssim A B [--map OUT] [--device SPEC]\n"
    "Prints the mean SSIM of A and B (Wang et al. 2004: 11x11 Gaussian window with\n"
    "sigma 1.5, population moments, C1 = (0.01 * 255)^2, C2 = (0.03 * 255)^2, over the\n"
    "'valid' region), as scikit-image's structural_similarity(a, b,\n"
    "gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255).\n"
    "Colour images are compared on their luma (BT.601, OpenCV's COLOR_RGBA2GRAY);\n"
    "alpha is ignored. A and B need one size, at least 11x11.\n"
    "--map writes the SSIM map, (W - 10) x (H - 10): .npy as float32, image formats\n"
    "as SSIM * 255 rounded and clamped to 0..255 (SSIM can be negative); OUT may not\n"
    "be A or B.\n";

/* The one channel that SSIM compares: grey as it is, the grey of grey + alpha,
 * the luma of colour. *luma is img itself (and nothing allocated) for grey. */
static clik_status luma_of(clik_context *ctx, const clik_image *img, clik_image *luma)
{
    if (img->channels == 1) {
        *luma = *img;
        return CLIK_OK;
    }
    return cli_luma(ctx, img, luma);
}

static int has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    return dot && strcmp(dot, ext) == 0;
}

/* SSIM * 255, rounded and clamped, for viewing. */
static clik_status map_for_viewing(const clik_image *map, clik_image *view)
{
    clik_status st = clik_image_alloc(view, map->width, map->height, 1, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < map->height; y++) {
        const float *in = (const float *)((const char *)map->data + (size_t)y * map->stride);
        uint8_t *out = (uint8_t *)view->data + (size_t)y * view->stride;
        for (int x = 0; x < map->width; x++) {
            float v = roundf(in[x] * 255.0f);
            out[x] = (uint8_t)(v > 0 ? (v < 255 ? v : 255) : 0); /* NaN gives 0 */
        }
    }
    return CLIK_OK;
}

/* Writes the map through set, whose one output it is. */
static int write_map(cli_outputs *set, const char *path, const clik_image *map)
{
    clik_image view = {0};
    const clik_image *out = map;
    if (!has_extension(path, ".npy")) {
        clik_status st = map_for_viewing(map, &view);
        if (st != CLIK_OK) {
            fprintf(stderr, "clik ssim: %s: %s\n", path, clik_status_str(st));
            return CLI_FAILED;
        }
        out = &view;
    }
    int rc = cli_outputs_stage(set, 0, out, 0);
    if (rc == CLI_OK)
        rc = cli_outputs_commit(set);
    clik_image_free(&view);
    return rc;
}

/* Checks what clik_ssim would refuse, to say it in the tool's words. */
static int check_sizes(const char *path_a, const clik_image *a, const char *path_b,
                       const clik_image *b)
{
    if (a->width != b->width || a->height != b->height) {
        fprintf(stderr, "clik ssim: %s is %dx%d but %s is %dx%d: SSIM needs one size\n", path_a,
                a->width, a->height, path_b, b->width, b->height);
        return CLI_FAILED;
    }
    if (a->width < CLIK_SSIM_WINDOW || a->height < CLIK_SSIM_WINDOW) {
        fprintf(stderr, "clik ssim: %s: %dx%d is smaller than the %dx%d SSIM window\n", path_a,
                a->width, a->height, CLIK_SSIM_WINDOW, CLIK_SSIM_WINDOW);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cmd_ssim(int argc, char **argv)
{
    const char *map_path = NULL;
    const cli_option options[] = {{"--map", &map_path, NULL}, {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, ssim_usage);
    if (rc != CLI_OK)
        return rc;
    const char *path_a = args.positional[0], *path_b = args.positional[1];
    /* The map must not replace either image it is made from. */
    cli_outputs outs;
    cli_outputs_init(&outs, "ssim");
    if (map_path)
        rc = cli_outputs_plan(&outs, args.positional, 2, &map_path, 1);
    clik_image a = {0}, b = {0}, luma_a = {0}, luma_b = {0}, map = {0};
    if ((rc = cli_outputs_read(&outs, rc, path_a, &a, NULL)) != CLI_OK)
        return rc;
    rc = cli_read_u8("ssim", path_b, &b, NULL);
    if (rc == CLI_OK)
        rc = check_sizes(path_a, &a, path_b, &b);
    clik_status st = CLIK_OK;
    if (rc == CLI_OK && map_path) {
        st = clik_image_alloc(&map, a.width - (CLIK_SSIM_WINDOW - 1),
                              a.height - (CLIK_SSIM_WINDOW - 1), 1, CLIK_F32);
        if (st != CLIK_OK) {
            fprintf(stderr, "clik ssim: %s: %s\n", path_a, clik_status_str(st));
            rc = CLI_FAILED;
        }
    }
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        double mean = 0;
        const char *failed = path_a;
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        st = luma_of(ctx, &a, &luma_a);
        if (st == CLIK_OK) {
            failed = path_b;
            st = luma_of(ctx, &b, &luma_b);
        }
        if (st == CLIK_OK) {
            failed = path_a;
            st = clik_ssim(ctx, &luma_a, &luma_b, map_path ? &map : NULL, &mean);
        }
        cli_op_done("ssim", ctx, &clock, path_a);
        if (st != CLIK_OK)
            rc = cli_error("ssim", ctx, st, failed);
        if (rc == CLI_OK && map_path)
            rc = write_map(&outs, map_path, &map);
        if (rc == CLI_OK)
            printf("%.6f\n", mean);
    }
    if (luma_a.data != a.data)
        clik_image_free(&luma_a);
    if (luma_b.data != b.data)
        clik_image_free(&luma_b);
    cli_outputs_free(&outs);
    clik_context_destroy(ctx);
    cli_images_free(&map, &b, &a, NULL);
    return rc;
}

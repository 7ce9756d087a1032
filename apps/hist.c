/* clik hist, clik equalize, clik lut. SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "imageio.h"

/* ---- clik hist ---------------------------------------------------------------- */

static const char *const hist_usage =
    "usage: clik hist IN [--csv] [--device SPEC]\n"
    "Prints the 256-bin histogram of each channel of IN (PNG, JPEG, PGM/PPM).\n"
    "Default output: the non-empty bins, one row per value; --csv: all 256 rows\n"
    "with a header (value,gray | value,r,g,b[,a]).\n";

static const char *channel_name(int channels, int c)
{
    static const char *const grey[] = {"gray", "alpha"};
    static const char *const rgba[] = {"r", "g", "b", "a"};
    return channels <= 2 ? grey[c] : rgba[c];
}

int cmd_hist(int argc, char **argv)
{
    int csv = 0;
    const cli_option options[] = {{"--csv", NULL, &csv}, {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 1, 1, &args, hist_usage);
    if (rc != CLI_OK || args.help)
        return rc;
    clik_image img;
    int had_alpha = 0;
    if (cli_read_u8("hist", args.positional[0], &img, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    clik_context *ctx;
    if (cli_context(args.device, &ctx) != CLI_OK) {
        clik_image_free(&img);
        return CLI_FAILED;
    }
    uint32_t hist[4 * 256];
    clik_status st = clik_hist_compute(ctx, &img, hist);
    if (st != CLIK_OK) {
        rc = cli_error("hist", ctx, st, args.positional[0]);
    } else {
        /* RGB files read as RGBA with an opaque alpha: leave it out. */
        int shown = img.channels == 4 && !had_alpha ? 3 : img.channels;
        printf("value");
        for (int c = 0; c < shown; c++)
            printf(csv ? ",%s" : "\t%s", channel_name(img.channels, c));
        printf("\n");
        for (int v = 0; v < 256; v++) {
            int any = 0;
            for (int c = 0; c < shown; c++)
                any |= hist[c * 256 + v] != 0;
            if (!csv && !any)
                continue;
            printf("%d", v);
            for (int c = 0; c < shown; c++)
                printf(csv ? ",%u" : "\t%u", hist[c * 256 + v]);
            printf("\n");
        }
    }
    clik_context_destroy(ctx);
    clik_image_free(&img);
    return rc;
}

/* ---- clik equalize ---------------------------------------------------------------- */

static const char *const equalize_usage =
    "usage: clik equalize IN OUT [--device SPEC]\n"
    "Histogram equalization with OpenCV equalizeHist semantics, per colour channel;\n"
    "alpha is kept. Files by extension: PNG, JPEG, PGM/PPM. OUT may be IN: the\n"
    "result goes to a temporary file that is then renamed over it.\n";

int cmd_equalize(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(argc, argv, NULL, 2, 2, &args, equalize_usage);
    if (rc != CLI_OK || args.help)
        return rc;
    clik_image img;
    int had_alpha = 0;
    if (cli_read_u8("equalize", args.positional[0], &img, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    clik_context *ctx;
    if (cli_context(args.device, &ctx) != CLI_OK) {
        clik_image_free(&img);
        return CLI_FAILED;
    }
    clik_status st = clik_hist_equalize(ctx, &img, &img);
    if (st != CLIK_OK)
        rc = cli_error("equalize", ctx, st, args.positional[0]);
    else
        rc = cli_write_image("equalize", args.positional[1], &img, had_alpha);
    clik_context_destroy(ctx);
    clik_image_free(&img);
    return rc;
}

/* ---- clik lut ------------------------------------------------------------------------ */

static const char *const lut_usage =
    "usage: clik lut IN OUT (--table T.npy | --gamma G | --invert) [--device SPEC]\n"
    "Maps every pixel through a table. T.npy holds u8 values of shape (1, 256) (one\n"
    "table for all channels) or (C, 256) (one per channel); --gamma G builds\n"
    "255 * (v / 255)^G; --invert builds 255 - v. Alpha is kept unless T.npy has a\n"
    "table for it. OUT may be IN: the result goes to a temporary file that is then\n"
    "renamed over it.\n";

static int table_from_npy(const char *path, int channels, uint8_t *tables, int *ntables)
{
    clik_image t;
    char err[512];
    clik_status st = clikio_read_npy(path, &t, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik lut: %s\n", err);
        return CLI_FAILED;
    }
    int ok = t.type == CLIK_U8 && t.channels == 1 && t.width == 256 &&
             (t.height == 1 || t.height == channels);
    if (ok) {
        for (int r = 0; r < t.height; r++)
            memcpy(tables + 256 * r, (const uint8_t *)t.data + (size_t)r * t.stride, 256);
        *ntables = t.height;
    } else {
        fprintf(stderr, "clik lut: %s: expected u8 of shape (1, 256) or (%d, 256)\n", path,
                channels);
    }
    clik_image_free(&t);
    return ok ? CLI_OK : CLI_FAILED;
}

int cmd_lut(int argc, char **argv)
{
    const char *table = NULL, *gamma = NULL;
    int invert = 0;
    const cli_option options[] = {{"--table", &table, NULL},
                                  {"--gamma", &gamma, NULL},
                                  {"--invert", NULL, &invert},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, lut_usage);
    if (rc != CLI_OK || args.help)
        return rc;
    if ((table != NULL) + (gamma != NULL) + invert != 1) {
        fprintf(stderr, "clik lut: give exactly one of --table, --gamma, --invert\n%s", lut_usage);
        return CLI_USAGE;
    }
    double g = 1.0;
    if (gamma) {
        char *end;
        g = strtod(gamma, &end);
        if (end == gamma || *end || !(g > 0.0) || g > 100.0) {
            fprintf(stderr, "clik lut: --gamma %s: expected a number in (0, 100]\n", gamma);
            return CLI_USAGE;
        }
    }
    clik_image img;
    int had_alpha = 0;
    if (cli_read_u8("lut", args.positional[0], &img, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    uint8_t tables[4 * 256];
    int ntables = 1;
    if (table) {
        rc = table_from_npy(table, img.channels, tables, &ntables);
    } else {
        for (int v = 0; v < 256; v++)
            tables[v] = invert ? (uint8_t)(255 - v) : (uint8_t)lrint(255.0 * pow(v / 255.0, g));
        if (img.channels > 1) { /* colour channels only; alpha keeps its values */
            ntables = img.channels;
            for (int c = 1; c < img.channels; c++)
                memcpy(tables + 256 * c, tables, 256);
            for (int v = 0; v < 256; v++)
                tables[256 * (img.channels - 1) + v] = (uint8_t)v;
        }
    }
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        clik_status st = clik_hist_lut(ctx, &img, &img, tables, ntables);
        rc = st != CLIK_OK ? cli_error("lut", ctx, st, args.positional[0])
                           : cli_write_image("lut", args.positional[1], &img, had_alpha);
    }
    clik_context_destroy(ctx);
    clik_image_free(&img);
    return rc;
}

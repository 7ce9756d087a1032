/* clik hist, clik equalize, clik clahe, clik lut. SPDX-License-Identifier: BSD-2-Clause */
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

typedef struct hist_data {
    int csv;
} hist_data;

/* Computes the histogram and prints it. */
static clik_status hist_run(clik_context *ctx, cli_image_io *io)
{
    const hist_data *d = io->data;
    const clik_image *img = &io->img;
    uint32_t hist[4 * 256];
    clik_status st = clik_hist_compute(ctx, img, hist);
    if (st != CLIK_OK)
        return st;
    /* RGB files read as RGBA with an opaque alpha: leave it out. */
    int shown = img->channels == 4 && !io->had_alpha ? 3 : img->channels;
    printf("value");
    for (int c = 0; c < shown; c++)
        printf(d->csv ? ",%s" : "\t%s", channel_name(img->channels, c));
    printf("\n");
    for (int v = 0; v < 256; v++) {
        int any = 0;
        for (int c = 0; c < shown; c++)
            any |= hist[c * 256 + v] != 0;
        if (!d->csv && !any)
            continue;
        printf("%d", v);
        for (int c = 0; c < shown; c++)
            printf(d->csv ? ",%u" : "\t%u", hist[c * 256 + v]);
        printf("\n");
    }
    return CLIK_OK;
}

int cmd_hist(int argc, char **argv)
{
    static const cli_image_op op = {.usage = hist_usage, .npositional = 1, .run = hist_run};
    hist_data d = {0};
    const cli_option options[] = {{"--csv", NULL, &d.csv}, {NULL, NULL, NULL}};
    return cli_image_main(&op, argc, argv, options, &d);
}

/* ---- clik equalize ---------------------------------------------------------------- */

static const char *const equalize_usage =
    "usage: clik equalize IN OUT [--luma] [--device SPEC]\n"
    "Histogram equalization with OpenCV equalizeHist semantics, per colour channel;\n"
    "alpha is kept. --luma: of colour images, the luma alone (Y of YCrCb, as\n"
    "OpenCV's COLOR_RGB2YCrCb, equalizeHist of Y, COLOR_YCrCb2RGB): the hues\n"
    "stay. Files: PNG, JPEG, PGM/PPM. OUT may be IN: the result goes to a\n"
    "temporary file that is then renamed over it.\n";

typedef struct equalize_data {
    int luma;
} equalize_data;

static clik_status equalize_run(clik_context *ctx, cli_image_io *io)
{
    const equalize_data *d = io->data;
    /* The luma of grey is the grey itself. */
    if (d->luma && io->img.channels == 4)
        return clik_hist_equalize_luma(ctx, &io->img, &io->img);
    return clik_hist_equalize(ctx, &io->img, &io->img);
}

int cmd_equalize(int argc, char **argv)
{
    static const cli_image_op op = {.usage = equalize_usage, .npositional = 2, .run = equalize_run};
    equalize_data d = {0};
    const cli_option options[] = {{"--luma", NULL, &d.luma}, {NULL, NULL, NULL}};
    return cli_image_main(&op, argc, argv, options, &d);
}

/* ---- clik clahe ------------------------------------------------------------------------ */

static const char *const clahe_usage =
    "usage: clik clahe IN OUT [--clip C] [--grid WxH] [--device SPEC]\n"
    "Contrast-limited adaptive histogram equalization, bytes as OpenCV's\n"
    "createCLAHE(clipLimit=C, tileGridSize=(W, H)).apply: of grey images, and of\n"
    "the luma of colour ones (Y of YCrCb as equalize --luma; alpha kept).\n"
    "  --clip C    the clip limit, in multiples of a tile's mean count (default 40)\n"
    "  --grid WxH  tiles across and down, at most the image's size (default 8x8)\n"
    "Files: PNG, JPEG, PGM/PPM (grey with alpha is refused). OUT may be IN.\n";

typedef struct clahe_data {
    const char *clip_arg, *grid_arg;
    double clip;
    int tiles_x, tiles_y;
} clahe_data;

static int clahe_check(cli_image_io *io)
{
    clahe_data *d = io->data;
    d->clip = 40.0;
    d->tiles_x = d->tiles_y = 8;
    if (d->clip_arg) {
        char *end;
        d->clip = strtod(d->clip_arg, &end);
        if (end == d->clip_arg || *end || !(d->clip > 0.0) || !isfinite(d->clip)) {
            fprintf(stderr, "clik clahe: --clip %s: expected a number above 0\n", d->clip_arg);
            return CLI_USAGE;
        }
    }
    if (d->grid_arg) {
        char tail;
        if (sscanf(d->grid_arg, "%dx%d%c", &d->tiles_x, &d->tiles_y, &tail) != 2 ||
            d->tiles_x < 1 || d->tiles_y < 1) {
            fprintf(stderr, "clik clahe: --grid %s: expected WxH, both at least 1 (8x8)\n",
                    d->grid_arg);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static clik_status clahe_run(clik_context *ctx, cli_image_io *io)
{
    const clahe_data *d = io->data;
    return clik_clahe(ctx, &io->img, &io->img, d->clip, d->tiles_x, d->tiles_y);
}

int cmd_clahe(int argc, char **argv)
{
    static const cli_image_op op = {
        .usage = clahe_usage, .npositional = 2, .check = clahe_check, .run = clahe_run};
    clahe_data d = {.clip_arg = NULL};
    const cli_option options[] = {
        {"--clip", &d.clip_arg, NULL}, {"--grid", &d.grid_arg, NULL}, {NULL, NULL, NULL}};
    return cli_image_main(&op, argc, argv, options, &d);
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

typedef struct lut_data {
    const char *table, *gamma;
    int invert;
    double g;
    uint8_t tables[4 * 256];
    int ntables;
} lut_data;

static int lut_check(cli_image_io *io)
{
    lut_data *d = io->data;
    if ((d->table != NULL) + (d->gamma != NULL) + d->invert != 1) {
        fprintf(stderr, "clik lut: give exactly one of --table, --gamma, --invert\n%s", lut_usage);
        return CLI_USAGE;
    }
    d->g = 1.0;
    if (d->gamma) {
        char *end;
        d->g = strtod(d->gamma, &end);
        if (end == d->gamma || *end || !(d->g > 0.0) || d->g > 100.0) {
            fprintf(stderr, "clik lut: --gamma %s: expected a number in (0, 100]\n", d->gamma);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

/* The tables for the image read: from T.npy, or built. */
static int lut_prepare(cli_image_io *io)
{
    lut_data *d = io->data;
    int channels = io->img.channels;
    d->ntables = 1;
    if (d->table)
        return table_from_npy(d->table, channels, d->tables, &d->ntables);
    for (int v = 0; v < 256; v++)
        d->tables[v] =
            d->invert ? (uint8_t)(255 - v) : (uint8_t)lrint(255.0 * pow(v / 255.0, d->g));
    if (channels > 1) { /* colour channels only; alpha keeps its values */
        d->ntables = channels;
        for (int c = 1; c < channels; c++)
            memcpy(d->tables + 256 * c, d->tables, 256);
        for (int v = 0; v < 256; v++)
            d->tables[256 * (channels - 1) + v] = (uint8_t)v;
    }
    return CLI_OK;
}

static clik_status lut_run(clik_context *ctx, cli_image_io *io)
{
    const lut_data *d = io->data;
    return clik_hist_lut(ctx, &io->img, &io->img, d->tables, d->ntables);
}

int cmd_lut(int argc, char **argv)
{
    static const cli_image_op op = {.usage = lut_usage,
                                    .npositional = 2,
                                    .check = lut_check,
                                    .prepare = lut_prepare,
                                    .run = lut_run};
    lut_data d = {.table = NULL};
    const cli_option options[] = {{"--table", &d.table, NULL},
                                  {"--gamma", &d.gamma, NULL},
                                  {"--invert", NULL, &d.invert},
                                  {NULL, NULL, NULL}};
    return cli_image_main(&op, argc, argv, options, &d);
}

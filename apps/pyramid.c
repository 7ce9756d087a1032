/* clik pyramid, clik pyrup, clik laplacian. SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "imageio.h"

#define MAX_FILES 32 /* a 2^31 x 1 image has 31 levels below it */

/* Parses --levels: 1 .. the most the image allows. */
static int parse_levels(const char *cmd, const char *text, int *levels)
{
    if (!cli_parse_count(text, 1, MAX_FILES - 1, levels)) {
        fprintf(stderr, "clik %s: --levels needs a count from 1 to %d\n", cmd, MAX_FILES - 1);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int check_pattern(const char *cmd, const char *pattern)
{
    char name[4096];
    if (!cli_numbered_path(pattern, 0, name, sizeof(name))) {
        fprintf(stderr, "clik %s: %s: the output name needs one %%d (or %%0Nd) for the level\n",
                cmd, pattern);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int check_level_count(const char *cmd, const clik_image *img, int levels, const char *path)
{
    int most = clik_pyr_max_levels(img->width, img->height);
    if (levels > most) {
        fprintf(stderr, "clik %s: %s: a %dx%d image has at most %d level%s below it, not %d\n", cmd,
                path, img->width, img->height, most, most == 1 ? "" : "s", levels);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Names IN as the input of set and the pattern's files first .. first + n - 1
 * as its outputs, and checks them before anything runs: no level may
 * replace IN or another level. */
static int plan_numbered(const char *cmd, cli_outputs *set, const char *in, const char *pattern,
                         int first, int n)
{
    char name[4096];
    int rc = cli_outputs_input(set, in);
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        if (!cli_numbered_path(pattern, first + i, name, sizeof(name))) {
            fprintf(stderr, "clik %s: %s: the output names are too long\n", cmd, pattern);
            return CLI_USAGE;
        }
        rc = cli_outputs_add(set, name);
    }
    return rc == CLI_OK ? cli_outputs_check(set) : rc;
}

/* Writes images[i] to output i of set, for every output: all of them, or
 * on a failure none. */
static int write_all(cli_outputs *set, const clik_image *images, int keep_alpha)
{
    for (int i = 0; i < set->noutputs; i++)
        if (cli_outputs_stage(set, i, &images[i], keep_alpha) != CLI_OK)
            return CLI_FAILED;
    return cli_outputs_commit(set);
}

static void free_all(clik_image *images, int n)
{
    for (int i = 0; i < n; i++)
        clik_image_free(&images[i]);
}

/* Allocates level i + 1 of img for i < n, of img's type or of `type`. */
static int alloc_levels(const char *cmd, const clik_image *img, clik_image *levels, int n,
                        int first, clik_type type)
{
    memset(levels, 0, sizeof(*levels) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int w, h;
        clik_pyr_level_size(img->width, img->height, first + i, &w, &h);
        clik_status st = clik_image_alloc(&levels[i], w, h, img->channels, type);
        if (st != CLIK_OK) {
            free_all(levels, i);
            fprintf(stderr, "clik %s: %s\n", cmd, clik_status_str(st));
            return CLI_FAILED;
        }
    }
    return CLI_OK;
}

/* What clik pyramid and clik laplacian share: IN, the output pattern and
 * --levels N; the files first .. N planned as outputs, IN read, and its
 * levels first .. N allocated. */
typedef struct levels_job {
    const char *cmd;
    cli_args args;
    int n; /* --levels */
    cli_outputs outs;
    clik_image img;
    int had_alpha;
} levels_job;

/* Parses, plans, reads and allocates; on a failure (or CLI_HELP) everything
 * is freed and the status returned. Otherwise levels_end() frees it all. */
static int levels_begin(levels_job *job, int argc, char **argv, const char *usage, int first,
                        clik_type type, clik_image *levels)
{
    const char *levels_text = NULL;
    const cli_option options[] = {{"--levels", &levels_text, NULL}, {NULL, NULL, NULL}};
    int rc = cli_parse(argc, argv, options, 2, 2, &job->args, usage);
    if (rc != CLI_OK)
        return rc;
    const char *in = job->args.positional[0], *pattern = job->args.positional[1];
    if ((rc = parse_levels(job->cmd, levels_text, &job->n)) != CLI_OK ||
        (rc = check_pattern(job->cmd, pattern)) != CLI_OK)
        return rc;
    cli_outputs_init(&job->outs, job->cmd);
    job->had_alpha = 0;
    rc = plan_numbered(job->cmd, &job->outs, in, pattern, first, job->n + 1 - first);
    if ((rc = cli_outputs_read(&job->outs, rc, in, &job->img, &job->had_alpha)) != CLI_OK)
        return rc;
    rc = check_level_count(job->cmd, &job->img, job->n, in);
    if (rc == CLI_OK)
        rc = alloc_levels(job->cmd, &job->img, levels, job->n + 1 - first, first, type);
    if (rc != CLI_OK) {
        cli_outputs_free(&job->outs);
        clik_image_free(&job->img);
    }
    return rc;
}

static void levels_end(levels_job *job, clik_image *levels, int first, clik_context *ctx)
{
    free_all(levels, job->n + 1 - first);
    cli_outputs_free(&job->outs);
    clik_context_destroy(ctx);
    clik_image_free(&job->img);
}

/* ---- clik pyramid --------------------------------------------------------------------- */

static const char *const pyramid_usage =
    "usage: clik pyramid IN OUT%d.png --levels N [--device SPEC]\n"
    "Writes levels 1..N of the Gaussian pyramid of IN (OpenCV pyrDown: each level\n"
    "5x5-filtered and halved, sizes rounded up) to OUT1.png .. OUTN.png; %d, %Nd or\n"
    "%0Nd in OUT takes the level number. Any image format, or .npy.\n"
    "Every level is written, or none; no level may be IN.\n";

int cmd_pyramid(int argc, char **argv)
{
    levels_job job = {.cmd = "pyramid"};
    clik_image levels[MAX_FILES];
    int rc = levels_begin(&job, argc, argv, pyramid_usage, 1, CLIK_U8, levels);
    if (rc != CLI_OK)
        return rc;
    clik_context *ctx = NULL;
    rc = cli_context(job.args.device, &ctx);
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        clik_status st = clik_pyr_gaussian(ctx, &job.img, levels, job.n);
        rc = cli_op_end("pyramid", ctx, &clock, st, job.args.positional[0]);
        if (rc == CLI_OK)
            rc = write_all(&job.outs, levels, job.had_alpha);
    }
    levels_end(&job, levels, 1, ctx);
    return rc;
}

/* ---- clik pyrup --------------------------------------------------------------------- */

static const char *const pyrup_usage =
    "usage: clik pyrup IN OUT [--device SPEC]\n"
    "Doubles the width and height of IN (OpenCV pyrUp: zero-insertion and the 5x5\n"
    "Gaussian times 4). Files: PNG, JPEG, PGM/PPM, or .npy. OUT may be\n"
    "IN: the result goes to a temporary file that is then renamed over it.\n";

/* The doubled image, where its sides fit in an int. */
static int pyrup_prepare(cli_image_io *io)
{
    const clik_image *img = &io->img;
    clik_status st = CLIK_ERR_OVERFLOW;
    if (img->width <= (1 << 30) && img->height <= (1 << 30))
        st = clik_image_alloc(&io->out, 2 * img->width, 2 * img->height, img->channels, img->type);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik pyrup: %s: %s for a %ldx%ld result\n", io->in_path,
                clik_status_str(st), 2 * (long)img->width, 2 * (long)img->height);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cmd_pyrup(int argc, char **argv)
{
    static const cli_image_op op = {.usage = pyrup_usage,
                                    .npositional = 2,
                                    .prepare = pyrup_prepare,
                                    .apply = clik_pyr_up,
                                    .takes_f32 = 1};
    return cli_image_main(&op, argc, argv, NULL, NULL);
}

/* ---- clik laplacian ----------------------------------------------------------------- */

static const char *const laplacian_usage =
    "usage: clik laplacian IN OUT%d.npy --levels N [--device SPEC]\n"
    "Writes the Laplacian pyramid of IN: bands 0..N-1 (level i minus pyrUp of level\n"
    "i + 1, int16) and the residual, Gaussian level N, to OUT0 .. OUTN. With .npy the\n"
    "bands are exact; image formats show band + 128, clamped to 0..255, for viewing.\n"
    "The bands are collapsed again and checked to give back IN exactly. Every file\n"
    "is written, or none; none may be IN.\n";

/* Band + offset, clamped, as an 8-bit image for viewing. */
static clik_status band_for_viewing(const clik_image *band, int offset, clik_image *view)
{
    clik_status st = clik_image_alloc(view, band->width, band->height, band->channels, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < band->height; y++) {
        const int16_t *in = (const int16_t *)((const char *)band->data + (size_t)y * band->stride);
        uint8_t *out = (uint8_t *)view->data + (size_t)y * view->stride;
        for (int i = 0; i < band->width * band->channels; i++) {
            int v = in[i] + offset;
            out[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    return CLIK_OK;
}

/* 1 when a and b (same size and format) hold the same pixels. */
static int same_pixels(const clik_image *a, const clik_image *b)
{
    size_t row = (size_t)a->width * (size_t)a->channels * clik_type_size(a->type);
    for (int y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row) != 0)
            return 0;
    return 1;
}

static int write_bands(cli_outputs *set, const char *pattern, clik_image *bands, int n,
                       int keep_alpha)
{
    char name[4096];
    cli_numbered_path(pattern, 0, name, sizeof(name));
    const char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".npy") == 0)
        return write_all(set, bands, keep_alpha);
    clik_image views[MAX_FILES + 1];
    int made = 0, rc = CLI_OK;
    for (; made <= n; made++) {
        clik_status st = band_for_viewing(&bands[made], made < n ? 128 : 0, &views[made]);
        if (st != CLIK_OK) {
            fprintf(stderr, "clik laplacian: %s\n", clik_status_str(st));
            rc = CLI_FAILED;
            break;
        }
    }
    if (rc == CLI_OK)
        rc = write_all(set, views, keep_alpha);
    free_all(views, made);
    return rc;
}

int cmd_laplacian(int argc, char **argv)
{
    levels_job job = {.cmd = "laplacian"};
    clik_image bands[MAX_FILES + 1], back = {0};
    int rc = levels_begin(&job, argc, argv, laplacian_usage, 0, CLIK_S16, bands);
    if (rc != CLI_OK)
        return rc;
    const char *in = job.args.positional[0];
    int n = job.n;
    clik_context *ctx = NULL;
    clik_status st =
        clik_image_alloc(&back, job.img.width, job.img.height, job.img.channels, CLIK_U8);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik laplacian: %s\n", clik_status_str(st));
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK)
        rc = cli_context(job.args.device, &ctx);
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        st = clik_pyr_laplacian(ctx, &job.img, bands, n);
        if (st == CLIK_OK)
            st = clik_pyr_collapse(ctx, bands, n, &back);
        rc = cli_op_end("laplacian", ctx, &clock, st, in);
        if (rc == CLI_OK && !same_pixels(&job.img, &back)) {
            fprintf(stderr, "clik laplacian: %s: the bands do not collapse to the input\n", in);
            rc = CLI_FAILED;
        } else if (rc == CLI_OK) {
            rc = write_bands(&job.outs, job.args.positional[1], bands, n, job.had_alpha);
        }
    }
    clik_image_free(&back);
    levels_end(&job, bands, 0, ctx);
    return rc;
}

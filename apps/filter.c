/* clik blur. SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>

#include "cli.h"

/* A Gaussian kernel size: odd, 1..CLIK_BLUR_MAX_KSIZE; prints the problem on
 * failure. Shared with clik upscale's --blur. */
int blur_parse_ksize(const char *cmd, const char *option, const char *text, int *ksize)
{
    if (!text) {
        fprintf(stderr, "clik %s: %s is missing\n", cmd, option);
        return CLI_USAGE;
    }
    if (!cli_parse_count(text, 1, CLIK_BLUR_MAX_KSIZE, ksize) || *ksize % 2 == 0) {
        fprintf(stderr, "clik %s: %s %s: expected an odd size from 1 to %d\n", cmd, option, text,
                CLIK_BLUR_MAX_KSIZE);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static const char *const blur_usage =
    "usage: clik blur IN OUT --ksize K [--sigma S] [--device SPEC]\n"
    "Gaussian blur of K x K taps (K odd, 1 to 31), separable, borders reflected\n"
    "without repeating the edge (gfedcb|abcdefgh|gfedcba): OpenCV's GaussianBlur with\n"
    "BORDER_REFLECT_101. S is the standard deviation; without it (or with 0) it\n"
    "comes from K as OpenCV's getGaussianKernel chooses it. Every channel is blurred,\n"
    "alpha too. Files: PNG, JPEG, PGM/PPM, or .npy. OUT may be IN: the\n"
    "result goes to a temporary file that is then renamed over it.\n";

typedef struct blur_data {
    const char *ksize_text, *sigma_text;
    int ksize;
    double sigma;
} blur_data;

static int blur_check(cli_image_io *io)
{
    blur_data *d = io->data;
    int rc = blur_parse_ksize("blur", "--ksize", d->ksize_text, &d->ksize);
    if (rc == CLI_OK && d->sigma_text &&
        (!cli_parse_number(d->sigma_text, &d->sigma) || d->sigma < 0)) {
        fprintf(stderr, "clik blur: --sigma %s: expected a number, 0 or above\n", d->sigma_text);
        rc = CLI_USAGE;
    }
    return rc;
}

static clik_status blur_run(clik_context *ctx, cli_image_io *io)
{
    const blur_data *d = io->data;
    return clik_gaussian_blur(ctx, &io->img, &io->img, d->ksize, d->sigma);
}

int cmd_blur(int argc, char **argv)
{
    static const cli_image_op op = {.usage = blur_usage,
                                    .npositional = 2,
                                    .check = blur_check,
                                    .run = blur_run,
                                    .takes_f32 = 1};
    blur_data d = {NULL, NULL, 0, 0};
    const cli_option options[] = {
        {"--ksize", &d.ksize_text, NULL}, {"--sigma", &d.sigma_text, NULL}, {NULL, NULL, NULL}};
    return cli_image_main(&op, argc, argv, options, &d);
}

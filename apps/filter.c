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
    "alpha too. Files by extension: PNG, JPEG, PGM/PPM, or .npy. OUT may be IN: the\n"
    "result goes to a temporary file that is then renamed over it.\n";

int cmd_blur(int argc, char **argv)
{
    const char *ksize_text = NULL, *sigma_text = NULL;
    const cli_option options[] = {
        {"--ksize", &ksize_text, NULL}, {"--sigma", &sigma_text, NULL}, {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, blur_usage);
    if (rc != CLI_OK || args.help)
        return rc;
    int ksize;
    double sigma = 0;
    if ((rc = blur_parse_ksize("blur", "--ksize", ksize_text, &ksize)) != CLI_OK)
        return rc;
    if (sigma_text && (!cli_parse_number(sigma_text, &sigma) || sigma < 0)) {
        fprintf(stderr, "clik blur: --sigma %s: expected a number, 0 or above\n", sigma_text);
        return CLI_USAGE;
    }
    clik_image img;
    int had_alpha = 0;
    if (cli_read_u8("blur", args.positional[0], &img, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    clik_context *ctx = NULL;
    rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        clik_status st = clik_gaussian_blur(ctx, &img, &img, ksize, sigma);
        rc = st != CLIK_OK ? cli_error("blur", ctx, st, args.positional[0])
                           : cli_write_image("blur", args.positional[1], &img, had_alpha);
    }
    clik_context_destroy(ctx);
    clik_image_free(&img);
    return rc;
}

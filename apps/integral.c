/* clik integral. SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>

#include "cli.h"

static const char *const integral_usage =
    "usage: clik integral IN OUT.npy [--type u32|s32|u64|f64] [--squared OUT2.npy]\n"
    "                     [--sqtype u64|f64] [--device SPEC]\n"
    "Writes the integral image of IN in OpenCV's layout: (H + 1) x (W + 1), a zero\n"
    "first row and column, C order, one channel per colour channel. --type picks the\n"
    "sums (default u32, the bits of OpenCV's int32; refused when 255 * W * H could\n"
    "pass 2^32 - 1); s32 is OpenCV's int32 (CV_32S) itself, the sums modulo 2^32\n"
    "in two's complement: past 2^31 - 1 they wrap to negative values, as\n"
    "OpenCV's do. --squared also writes the sums of squares (default f64, as\n"
    "OpenCV's integral2; u64 is exact for every size). Both files are written, or\n"
    "neither; neither may be IN.\n";

int cmd_integral(int argc, char **argv)
{
    const char *type_text = "u32", *sq_path = NULL, *sq_text = "f64";
    const cli_option options[] = {{"--type", &type_text, NULL},
                                  {"--squared", &sq_path, NULL},
                                  {"--sqtype", &sq_text, NULL},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, integral_usage);
    if (rc != CLI_OK)
        return rc;
    /* The squares take the last two. */
    static const char *const sum_names[] = {"u32", "s32", "u64", "f64"};
    static const clik_type sum_types[] = {CLIK_U32, CLIK_S32, CLIK_U64, CLIK_F64};
    int sum_i = 0, sq_i = 0;
    if ((rc = cli_parse_choice("integral", "--type", type_text, sum_names, 4, &sum_i)) != CLI_OK ||
        (rc = cli_parse_choice("integral", "--sqtype", sq_text, sum_names + 2, 2, &sq_i)) != CLI_OK)
        return rc;
    const clik_type sum_type = sum_types[sum_i], sq_type = sum_types[2 + sq_i];
    /* The sums and the squares go in place together or not at all, and
     * neither may replace the input. */
    const char *const outputs[] = {args.positional[1], sq_path};
    cli_outputs outs;
    cli_outputs_init(&outs, "integral");
    rc = cli_outputs_plan(&outs, args.positional, 1, outputs, 2);
    clik_image img = {0}, sum = {0}, sq = {0};
    int had_alpha = 0;
    if ((rc = cli_outputs_read(&outs, rc, args.positional[0], &img, &had_alpha)) != CLI_OK)
        return rc;
    clik_context *ctx = NULL;
    /* One more row and column than the image; the library checks the rest. */
    clik_status st = clik_image_alloc(&sum, img.width + 1, img.height + 1, img.channels, sum_type);
    if (st == CLIK_OK && sq_path)
        st = clik_image_alloc(&sq, img.width + 1, img.height + 1, img.channels, sq_type);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik integral: %s: %s\n", args.positional[0], clik_status_str(st));
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        st = clik_integral(ctx, &img, &sum, sq_path ? &sq : NULL);
        rc = cli_op_end("integral", ctx, &clock, st, args.positional[0]);
    }
    /* RGB files (4 channels, opaque alpha) give 3 channels, as OpenCV would. */
    if (rc == CLI_OK)
        rc = cli_outputs_stage(&outs, 0, &sum, had_alpha);
    if (rc == CLI_OK && sq_path)
        rc = cli_outputs_stage(&outs, 1, &sq, had_alpha);
    return cli_finish(&outs, rc, ctx, &sq, &sum, &img, NULL);
}

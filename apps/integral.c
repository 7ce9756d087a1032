/* clik integral. SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <string.h>

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

static int parse_type(const char *text, const char *const *names, const clik_type *types, int n,
                      clik_type *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = types[i];
            return 1;
        }
    return 0;
}

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
    static const char *const sum_names[] = {"s32", "u32", "u64", "f64"};
    static const clik_type sum_types[] = {CLIK_S32, CLIK_U32, CLIK_U64, CLIK_F64};
    clik_type sum_type, sq_type;
    if (!parse_type(type_text, sum_names, sum_types, 4, &sum_type)) {
        fprintf(stderr, "clik integral: --type %s: expected u32, s32, u64 or f64\n", type_text);
        return CLI_USAGE;
    }
    if (!parse_type(sq_text, sum_names + 2, sum_types + 2, 2, &sq_type)) {
        fprintf(stderr, "clik integral: --sqtype %s: expected u64 or f64\n", sq_text);
        return CLI_USAGE;
    }
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

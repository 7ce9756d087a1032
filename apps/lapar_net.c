/* clik lapar-net: the coefficients of a LAPAR network (and optionally its
 * upscale). SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "imageio.h"

static const char *const lapar_net_usage =
    "usage: clik lapar-net IN PHI.npy --scale S [--net N | --model FILE] [--out OUT]\n"
    "                      [--storage f32|f16] [--activations f32|f16] [--device SPEC]\n"
    "Runs a LAPAR network (Li et al. 2020: LaparNet predicts, for every pixel of the\n"
    "S times larger output, the coefficients of the dictionary's atoms) on IN and\n"
    "writes those coefficients to PHI.npy as clik lapar and lapar-compress take them:\n"
    "float32 (or float16 with --storage f16), shape (L * S*H, S*W), plane l in rows\n"
    "l*S*H .. (l+1)*S*H - 1. With --out, also the upscaled image (clik upscale\n"
    "--method lapar-a and friends write the same without PHI).\n"
    "  IN      an image file (8-bit grey, grey + alpha or colour: the network sees\n"
    "          R, G, B; grey as R = G = B) or a .npy of uint8 or float32 on 0..255,\n"
    "          (H, W) or (H, W, 4)\n"
    "  --net N        lapar-a (default), lapar-b or lapar-c: a network built into the\n"
    "                 library, released for S = 2 and 4\n"
    "  --model FILE   a network file (.clikn) instead; S must be its scale\n"
    "  --activations f16  the layers' outputs stored as 16-bit floats on an OpenCL\n"
    "                 device (half their memory and traffic; the error bound is in\n"
    "                 README.md); the CPU path computes in f32 whatever is asked\n";

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "clik lapar-net: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return CLI_FAILED;
}

/* The options both commands take: --scale S, --net N or --model FILE, and
 * --activations f32|f16. */
typedef struct net_args {
    const char *scale_text, *name, *model, *activations;
    int scale;                  /* --scale, checked */
    clik_lapar_net_options opt; /* --activations */
} net_args;

/* Parses argv with the command's own options (own, at most 3, up to its
 * end) and the shared ones into n, then checks the shared ones; n->name is the released
 * network to use unless n->model names a file. CLI_OK, or the exit status
 * (CLI_HELP for --help) with a message that names clik CMD. */
static int parse_net_args(int argc, char **argv, const char *cmd, const cli_option *own,
                          int npositional, const char *usage, cli_args *args, net_args *n)
{
    *n = (net_args){.activations = "f32"};
    const cli_option shared[] = {{"--scale", &n->scale_text, NULL},
                                 {"--net", &n->name, NULL},
                                 {"--model", &n->model, NULL},
                                 {"--activations", &n->activations, NULL},
                                 {NULL, NULL, NULL}};
    cli_option options[8];
    const int most =
        (int)(sizeof(options) / sizeof(options[0]) - sizeof(shared) / sizeof(shared[0]));
    int k = 0;
    for (; own[k].name; k++) {
        if (k == most) {
            fprintf(stderr, "clik %s: more than %d options of its own\n", cmd, most);
            return CLI_FAILED;
        }
        options[k] = own[k];
    }
    memcpy(options + k, shared, sizeof(shared));
    int rc = cli_parse(argc, argv, options, npositional, npositional, args, usage);
    if (rc != CLI_OK)
        return rc;
    if (!n->scale_text || !cli_parse_count(n->scale_text, 2, 4, &n->scale)) {
        fprintf(stderr, "clik %s: --scale needs 2, 3 or 4\n", cmd);
        return CLI_USAGE;
    }
    if (n->name && n->model) {
        fprintf(stderr, "clik %s: --net and --model exclude each other\n", cmd);
        return CLI_USAGE;
    }
    if (strcmp(n->activations, "f32") != 0 && strcmp(n->activations, "f16") != 0) {
        fprintf(stderr, "clik %s: --activations needs f32 or f16, not %s\n", cmd, n->activations);
        return CLI_USAGE;
    }
    if (!n->name)
        n->name = "lapar-a";
    n->opt.f16_activations = strcmp(n->activations, "f16") == 0;
    return CLI_OK;
}

int cmd_lapar_net(int argc, char **argv)
{
    const char *out_path = NULL, *storage = "f32";
    const cli_option options[] = {
        {"--out", &out_path, NULL}, {"--storage", &storage, NULL}, {NULL, NULL, NULL}};
    cli_args args;
    net_args n;
    int rc = parse_net_args(argc, argv, "lapar-net", options, 2, lapar_net_usage, &args, &n);
    if (rc != CLI_OK)
        return rc;
    const int scale = n.scale;
    if (strcmp(storage, "f32") != 0 && strcmp(storage, "f16") != 0) {
        fprintf(stderr, "clik lapar-net: --storage needs f32 or f16, not %s\n", storage);
        return CLI_USAGE;
    }
    const char *in_path = args.positional[0];
    const char *const outputs[] = {args.positional[1], out_path};
    cli_outputs outs;
    cli_outputs_init(&outs, "lapar-net");
    const char *const inputs[] = {in_path, n.model};
    rc = cli_outputs_plan(&outs, inputs, 2, outputs, out_path ? 2 : 1);
    if (rc == CLI_OK && !clikio_writes_npy(args.positional[1]))
        rc = fail("%s: PHI is written as .npy%s", args.positional[1], "");
    clik_image src = {0}, rgba = {0}, dst = {0}, grey = {0}, phi = {0};
    int had_alpha = 0, grey_alpha = 0;
    if (rc == CLI_OK) {
        char err[512];
        clik_status st = clikio_read(in_path, &src, &had_alpha, err, sizeof(err));
        if (st != CLIK_OK)
            rc = fail("%s%s", err, "");
        else if (src.type != CLIK_U8 && src.type != CLIK_F32)
            rc = fail("%s: needs 8-bit or float32 pixels, not %s", in_path,
                      clik_type_name(src.type));
        else if (src.channels == 2 && src.type != CLIK_U8)
            rc = fail("%s: %s", in_path, "a float32 input has 1 or 4 channels");
    }
    if (rc == CLI_OK && src.channels == 2) {
        clik_status st = rgba_expand(&src, &rgba);
        if (st != CLIK_OK)
            rc = cli_error("lapar-net", NULL, st, in_path);
        clik_image_free(&src);
        src = rgba;
        grey_alpha = 1;
    }
    clik_context *ctx = NULL;
    clik_lapar_net *net = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK)
        rc = cli_load_net(ctx, "lapar-net", n.name, n.model, scale, &net);
    if (rc == CLI_OK) {
        clik_lapar_net_info info;
        clik_lapar_net_describe(net, &info);
        const int w = src.width * scale, h = src.height * scale;
        clik_status st = (long)h * info.atoms > (1L << 30)
                             ? CLIK_ERR_INVALID_SIZE
                             : clik_image_alloc(&phi, w, h * info.atoms, 1,
                                                strcmp(storage, "f16") == 0 ? CLIK_F16 : CLIK_F32);
        if (st == CLIK_OK && out_path)
            st = clik_image_alloc(&dst, w, h, src.channels, src.type);
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        if (st == CLIK_OK)
            st = clik_lapar_net_run_with(ctx, net, &src, out_path ? &dst : NULL, &phi, &n.opt);
        rc = cli_op_end("lapar-net", ctx, &clock, st, in_path);
    }
    if (rc == CLI_OK)
        rc = cli_outputs_stage(&outs, 0, &phi, 0);
    if (rc == CLI_OK && out_path) {
        const clik_image *out = &dst;
        if (grey_alpha) {
            rc = rgba_collapse_new("lapar-net", &dst, &grey, out_path);
            out = &grey;
        }
        if (rc == CLI_OK)
            rc = cli_outputs_stage(&outs, 1, out, had_alpha);
    }
    clik_lapar_net_free(net);
    return cli_finish(&outs, rc, ctx, &src, &dst, &grey, &phi, NULL);
}

static const char *const tune_net_usage =
    "usage: clik tune lapar-net --scale S --size WxH [--net N | --model FILE]\n"
    "                 [--activations f32|f16] [--show] [--device SPEC]\n"
    "Searches the work-item shapes of a LAPAR network's convolutions (the tuning\n"
    "keys lnet_local, lnet_vw, lnet_ry, lnet_cob) on the device for a WxH input,\n"
    "timing whole runs, and stores the fastest beside the kernel cache, per device,\n"
    "network shape, input size class (the power of two of its pixels) and\n"
    "activations' type; later runs of that class on the device use it. A search\n"
    "whose result cannot be stored (no cache folder: CLIK_CACHE=off; a folder that\n"
    "cannot be written) fails. --show prints what is stored (or the default)\n"
    "without searching. (clik tune lapar ... searches the LAPAR filter's.)\n";

static void print_net_tuning(const char *what, const clik_lapar_net_tuning *t, const char *unstored)
{
    printf("%s: lnet_local=%d lnet_vw=%d lnet_ry=%d lnet_cob=%d", what, t->local, t->vw, t->ry,
           t->cob);
    if (t->ms > 0)
        printf(" (%.3f ms)", t->ms);
    printf(", %s\n", t->stored ? "stored" : unstored);
}

static int cmd_tune_net(int argc, char **argv)
{
    const char *size_text = NULL;
    int show = 0, w = 0, h = 0;
    const cli_option options[] = {
        {"--size", &size_text, NULL}, {"--show", NULL, &show}, {NULL, NULL, NULL}};
    cli_args args;
    net_args n;
    int rc = parse_net_args(argc, argv, "tune", options, 1, tune_net_usage, &args, &n);
    if (rc != CLI_OK)
        return rc;
    if (!size_text || !cli_parse_size(size_text, &w, &h) || w < 2 || h < 2) {
        fprintf(stderr, "clik tune: --size needs WxH, at least 2x2\n");
        return CLI_USAGE;
    }
    clik_context *ctx = NULL;
    clik_lapar_net *net = NULL;
    rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK)
        rc = cli_load_net(ctx, "tune", n.name, n.model, n.scale, &net);
    if (rc == CLI_OK) {
        const clik_device_info *dev = clik_context_device(ctx);
        clik_lapar_net_tuning before, best;
        clik_status st = dev ? clik_lapar_net_tuning_get(ctx, net, w, h, &n.opt, &before)
                             : CLIK_ERR_NO_DEVICE; /* the search times OpenCL kernels */
        if (st == CLIK_OK) {
            printf("device: %s\n", dev->name);
            print_net_tuning("before", &before, "the device's default");
        }
        if (st == CLIK_OK && !show) {
            st = clik_lapar_net_tune(ctx, net, w, h, &n.opt, &best);
            if (st == CLIK_OK || st == CLIK_ERR_IO)
                print_net_tuning("searched", &best, "not stored");
            if (st == CLIK_ERR_IO) {
                fprintf(stderr,
                        "clik tune: lapar-net: the result was not stored, so later runs will "
                        "not use it: %s\n",
                        clik_context_message(ctx));
                rc = CLI_FAILED;
                st = CLIK_OK;
            }
        }
        if (st != CLIK_OK)
            rc = cli_error("tune", ctx, st, "lapar-net");
    }
    clik_lapar_net_free(net);
    clik_context_destroy(ctx);
    return rc;
}

/* clik tune: the network's search for `tune lapar-net`, the filter's
 * (apps/lapar.c) otherwise. */
int cmd_tune_any(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            return strcmp(argv[i], "lapar-net") == 0 ? cmd_tune_net(argc, argv)
                                                     : cmd_tune(argc, argv);
    return cmd_tune(argc, argv);
}

/* clik flow, flowviz and flowcmp: TV-L1 optical flow between two images or
 * along a frame sequence, and flows drawn and compared.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "flow.h"
#include "flow_eval.h"
#include "imageio.h"

/* ---- clik warp -------------------------------------------------------------------- */

static const char *const warp_usage =
    "usage: clik warp IN FLOW OUT [--average REF]\n"
    "Moves IN back along FLOW: OUT(x, y) = IN sampled bilinearly at (x + u, y + v),\n"
    "(u, v) = FLOW(x, y), the border replicated; the bytes of OpenCV 5's\n"
    "cv2.remap(IN, x + u, y + v, INTER_LINEAR, borderMode=BORDER_REPLICATE). The\n"
    "flow of `clik flow I0 I1 FLOW` warps I1 onto I0.\n"
    "  --average REF  OUT = (REF + the warped IN + 1) / 2, rounded down: the\n"
    "                 temporal average of a denoising step (REF is I0)\n"
    "IN (and REF, of IN's size and channels): 8-bit images, 1 to 4 channels;\n"
    "FLOW: a .flo file or a (H, W, 2) float32 .npy of IN's size.\n";

int cmd_warp(int argc, char **argv)
{
    const char *ref_path = NULL;
    const cli_option options[] = {{"--average", &ref_path, NULL}, {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 3, 3, &args, warp_usage);
    if (rc != CLI_OK)
        return rc;
    const char *in = args.positional[0], *flow_path = args.positional[1];
    cli_outputs outs;
    cli_outputs_init(&outs, "warp");
    const char *const inputs[] = {in, flow_path, ref_path}, *const outputs[] = {args.positional[2]};
    rc = cli_outputs_plan(&outs, inputs, 3, outputs, 1);
    clik_image img = {0}, flow = {0}, ref = {0}, out = {0};
    int had_alpha = 0;
    if (rc == CLI_OK)
        rc = cli_read_u8("warp", in, &img, &had_alpha);
    if (rc == CLI_OK)
        rc = flow_read_file("warp", flow_path, &flow);
    if (rc == CLI_OK && (flow.width != img.width || flow.height != img.height)) {
        fprintf(stderr, "clik warp: %s is %dx%d but %s is %dx%d: the flow needs the image's size\n",
                flow_path, flow.width, flow.height, in, img.width, img.height);
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK && ref_path)
        rc = cli_read_u8("warp", ref_path, &ref, NULL);
    if (rc == CLI_OK && ref_path &&
        (ref.width != img.width || ref.height != img.height || ref.channels != img.channels)) {
        fprintf(stderr,
                "clik warp: %s is %dx%d of %d channels but %s is %dx%d of %d: --average needs "
                "one size and channel count\n",
                ref_path, ref.width, ref.height, ref.channels, in, img.width, img.height,
                img.channels);
        rc = CLI_FAILED;
    }
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        clik_status st = clik_image_alloc(&out, img.width, img.height, img.channels, CLIK_U8);
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        if (st == CLIK_OK)
            st = ref_path ? clik_flow_warp_average(ctx, &ref, &img, &flow, &out)
                          : clik_flow_warp(ctx, &img, &flow, &out);
        rc = cli_op_end("warp", ctx, &clock, st, in);
    }
    if (rc == CLI_OK)
        rc = cli_outputs_stage(&outs, 0, &out, had_alpha);
    return cli_finish(&outs, rc, ctx, &out, &ref, &flow, &img, NULL);
}

/* ---- clik flowviz ------------------------------------------------------------------ */

static const char *const flowviz_usage =
    "usage: clik flowviz IN.flo OUT.png [--max M]\n"
    "Draws a flow with the Middlebury colour wheel: the hue gives the direction\n"
    "(right red, down yellow, left cyan, up violet), the saturation the length,\n"
    "white for no motion and full colour at M pixels; longer vectors are drawn\n"
    "darker, unknown vectors (|u| or |v| above 1e9, or NaN) black.\n"
    "  --max M  the length drawn at full colour, in pixels (default: the longest\n"
    "           known vector)\n"
    "IN is a .flo file or a (H, W, 2) float32 .npy; OUT any image format (RGB).\n";

int cmd_flowviz(int argc, char **argv)
{
    const char *max_text = NULL;
    const cli_option options[] = {{"--max", &max_text, NULL}, {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, flowviz_usage);
    if (rc != CLI_OK)
        return rc;
    double max_motion = 0;
    if (max_text && (!cli_parse_number(max_text, &max_motion) || max_motion <= 0 ||
                     max_motion > SUP_FLOW_UNKNOWN)) {
        fprintf(stderr,
                "clik flowviz: --max %s: expected a length in pixels, above 0 and at most 1e9\n",
                max_text);
        return CLI_USAGE;
    }
    /* The drawing takes a float, where 0 means the longest vector: a length
     * too small for a float would be that, silently. */
    if (max_text && !((float)max_motion > 0.0f)) {
        fprintf(stderr,
                "clik flowviz: --max %s: too small (below the smallest float, about 1.4e-45); "
                "expected a length in pixels, above 0 and at most 1e9\n",
                max_text);
        return CLI_USAGE;
    }
    clik_image flow = {0}, rgba = {0};
    rc = flow_read_file("flowviz", args.positional[0], &flow);
    if (rc == CLI_OK)
        rc = flow_colorize("flowviz", args.positional[0], &flow, (float)max_motion, &rgba);
    if (rc == CLI_OK)
        rc = cli_write_image("flowviz", args.positional[1], &rgba, 0);
    cli_images_free(&rgba, &flow, NULL);
    return rc;
}

/* ---- clik flowcmp ------------------------------------------------------------------ */

static const char *const flowcmp_usage =
    "usage: clik flowcmp A.flo B.flo\n"
    "Prints the mean end-point error (EPE, in pixels) and the mean angular error\n"
    "(AAE, in degrees, between the space-time directions (u, v, 1)) of flow A\n"
    "against flow B, over the vectors known in both (|u| and |v| at most 1e9, not\n"
    "NaN), as the Middlebury benchmark measures them:\n"
    "  EPE 0.123456 AAE 1.234567 (N of W*H vectors)\n"
    "Both measures are symmetric. The flows (.flo files or (H, W, 2) float32 .npy)\n"
    "need one size. The exit status is 0 whatever the errors are.\n";

int cmd_flowcmp(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(argc, argv, NULL, 2, 2, &args, flowcmp_usage);
    if (rc != CLI_OK)
        return rc;
    clik_image a = {0}, b = {0};
    rc = flow_read_file("flowcmp", args.positional[0], &a);
    if (rc == CLI_OK)
        rc = flow_read_file("flowcmp", args.positional[1], &b);
    flow_errors errors;
    if (rc == CLI_OK)
        rc = flow_measure("flowcmp", args.positional[0], &a, args.positional[1], &b, &errors);
    if (rc == CLI_OK)
        flow_print_errors(NULL, &errors);
    cli_images_free(&b, &a, NULL);
    return rc;
}

/* ---- clik flow --------------------------------------------------------------------- */

static const char *const flow_usage =
    "usage: clik flow I0 I1 OUT.flo [--viz VIZ.png] [--gt GT.flo] [OPTIONS] [--device SPEC]\n"
    "       clik flow 'IN%04d.png' 'OUT%04d.flo' [--viz 'VIZ%04d.png'] [--gt 'GT%04d.flo']\n"
    "                 [--start N] [OPTIONS] [--device SPEC]\n"
    "TV-L1 optical flow (Zach, Pock and Bischof, with the scheme and defaults of the\n"
    "IPOL reference by Sanchez Perez, Meinhardt-Llopis and Facciolo) from I0 to I1:\n"
    "OUT gets (u, v) for every pixel, such that I0(x, y) matches I1(x + u, y + v),\n"
    "as a Middlebury .flo file (or a (H, W, 2) float32 .npy). VIZ gets the flow\n"
    "drawn as clik flowviz draws it; with GT, the end-point and angular errors\n"
    "against it are printed as clik flowcmp prints them. Colour images are\n"
    "compared on their luma (BT.601, as clik_gray); alpha is ignored. I0 and I1\n"
    "need one size, at least 4 x 4 pixels: the warp samples with 4 x 4 bicubic\n"
    "taps, which fit no smaller image (such images are refused).\n"
    "  --scales N      pyramid levels, 1 to 100; 0 (the default): until the\n"
    "                  coarsest is about 16 pixels\n"
    "  --zoom Z        size ratio of a level to the one above, 0 < Z < 1 (0.5)\n"
    "  --warps N       warps of I1 per level, 1 or more (5)\n"
    "  --iterations N  most iterations per warp, 1 or more (300)\n"
    "  --epsilon E     stop a warp when the mean squared change of the flow is at\n"
    "                  most E^2, checked every 10 iterations; 0 or more (0.01)\n"
    "  --tau T         time step, 0 < T <= 0.25 (0.25)\n"
    "  --lambda L      weight of the data term, above 0 (0.15)\n"
    "  --theta T       coupling of the two steps, above 0 (0.3)\n"
    "  --sigma S       Gaussian smoothing of both images first, 0 to 100; 0: none\n"
    "                  (0.8)\n"
    "  --storage M     f32, f16 (half the memory traffic) or auto: f16 on GPUs\n"
    "                  that have it, else f32 (auto)\n"
    "With %d, %Nd or %0Nd in IN (and then in OUT, VIZ and GT), the frames IN(n)\n"
    "from --start (default: 0 if that file exists, else 1) up to the first missing\n"
    "number give one flow per pair of neighbours: OUT(n) from IN(n) to IN(n + 1),\n"
    "checked against GT(n); the errors of each pair are printed, then their mean\n"
    "over every vector. All frames need one size. Every output is written or, on a\n"
    "failure, none; no output may be an input or another output.\n";

static int flow_usage_error(const char *option, const char *text, const char *expected)
{
    fprintf(stderr, "clik flow: %s %s: expected %s\n", option, text, expected);
    return CLI_USAGE;
}

/* A number option from lo to hi, each end included when its flag says so;
 * *value is left alone when the option was not given. */
static int parse_real(const char *option, const char *text, double lo, int lo_in, double hi,
                      int hi_in, const char *expected, double *value)
{
    double v;
    if (!text)
        return CLI_OK;
    if (!cli_parse_number(text, &v) || v < lo || (v == lo && !lo_in) || v > hi ||
        (v == hi && !hi_in))
        return flow_usage_error(option, text, expected);
    *value = v;
    return CLI_OK;
}

static int parse_storage(const char *text, clik_flow_storage *storage)
{
    static const struct {
        const char *name;
        clik_flow_storage storage;
    } names[] = {{"auto", CLIK_FLOW_STORAGE_AUTO},
                 {"f32", CLIK_FLOW_STORAGE_F32},
                 {"f16", CLIK_FLOW_STORAGE_F16}};
    if (!text)
        return CLI_OK;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(text, names[i].name) == 0) {
            *storage = names[i].storage;
            return CLI_OK;
        }
    return flow_usage_error("--storage", text, "f32, f16 or auto");
}

/* The TV-L1 options, each checked against the range lib/clik.h gives for
 * it, so that a value out of range is a usage error before any file is
 * read; what the library refuses beyond that fails the command. */
typedef struct flow_option_text {
    const char *scales, *zoom, *warps, *iterations, *epsilon, *tau, *lambda, *theta, *sigma,
        *storage;
} flow_option_text;

static int parse_flow_options(const flow_option_text *t, clik_flow_options *opt)
{
    clik_flow_options_init(opt);
    if (t->scales && !cli_parse_count(t->scales, 0, CLIK_FLOW_MAX_SCALES, &opt->scales))
        return flow_usage_error("--scales", t->scales, "a count from 0 (automatic) to 100");
    if (t->warps && !cli_parse_count(t->warps, 1, INT_MAX, &opt->warps))
        return flow_usage_error("--warps", t->warps, "a count of 1 or more");
    if (t->iterations && !cli_parse_count(t->iterations, 1, INT_MAX, &opt->iterations))
        return flow_usage_error("--iterations", t->iterations, "a count of 1 or more");
    int rc = parse_real("--zoom", t->zoom, 0, 0, 1, 0, "a number between 0 and 1", &opt->zoom);
    if (rc == CLI_OK)
        rc = parse_real("--epsilon", t->epsilon, 0, 1, HUGE_VAL, 0, "a number, 0 or more",
                        &opt->epsilon);
    if (rc == CLI_OK)
        rc =
            parse_real("--tau", t->tau, 0, 0, 0.25, 1, "a number above 0, at most 0.25", &opt->tau);
    if (rc == CLI_OK)
        rc = parse_real("--lambda", t->lambda, 0, 0, HUGE_VAL, 0, "a number above 0", &opt->lambda);
    if (rc == CLI_OK)
        rc = parse_real("--theta", t->theta, 0, 0, HUGE_VAL, 0, "a number above 0", &opt->theta);
    if (rc == CLI_OK)
        rc = parse_real("--sigma", t->sigma, 0, 1, 100, 1, "a number from 0 to 100", &opt->sigma);
    if (rc == CLI_OK)
        rc = parse_storage(t->storage, &opt->storage);
    return rc;
}

/* 1 when path names a file a flow can be written to (.flo or .npy). */
static int flow_file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot && (strcasecmp(dot, ".flo") == 0 || strcasecmp(dot, ".npy") == 0);
}

/* Checks the names: a sequence has patterns everywhere, one pair nowhere. */
static int check_flow_names(flow_job *job, int nargs, int start_given)
{
    job->sequence = nargs == 2;
    if (job->sequence && !cli_is_pattern(job->in0)) {
        fprintf(stderr, "clik flow: give I0 I1 OUT, or a frame pattern (with %%d) and an output "
                        "pattern\n");
        return CLI_USAGE;
    }
    const char *names[3] = {job->out, job->viz, job->gt};
    for (int i = 0; i < 3; i++)
        if (names[i] && cli_is_pattern(names[i]) != job->sequence) {
            fprintf(stderr, "clik flow: %s: %s\n", names[i],
                    job->sequence ? "IN is a frame pattern: OUT, --viz and --gt need %d too"
                                  : "for one pair of images, OUT, --viz and --gt are file names, "
                                    "not patterns");
            return CLI_USAGE;
        }
    if (!job->sequence && (cli_is_pattern(job->in0) || cli_is_pattern(job->in1))) {
        fprintf(stderr, "clik flow: for a frame sequence give the pattern and the output "
                        "pattern only\n");
        return CLI_USAGE;
    }
    if (!job->sequence && start_given) {
        fprintf(stderr, "clik flow: --start is for frame sequences (%%d in IN)\n");
        return CLI_USAGE;
    }
    if (!flow_file_name(job->out)) {
        fprintf(stderr, "clik flow: %s: a flow is written as .flo (or .npy)\n", job->out);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int parse_flow_job(int argc, char **argv, flow_job *job)
{
    flow_option_text t = {0};
    const char *start = NULL;
    memset(job, 0, sizeof(*job));
    const cli_option options[] = {{"--viz", &job->viz, NULL},
                                  {"--gt", &job->gt, NULL},
                                  {"--start", &start, NULL},
                                  {"--scales", &t.scales, NULL},
                                  {"--zoom", &t.zoom, NULL},
                                  {"--warps", &t.warps, NULL},
                                  {"--iterations", &t.iterations, NULL},
                                  {"--epsilon", &t.epsilon, NULL},
                                  {"--tau", &t.tau, NULL},
                                  {"--lambda", &t.lambda, NULL},
                                  {"--theta", &t.theta, NULL},
                                  {"--sigma", &t.sigma, NULL},
                                  {"--storage", &t.storage, NULL},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 3, &args, flow_usage);
    if (rc != CLI_OK)
        return rc;
    job->device = args.device;
    job->in0 = args.positional[0];
    job->in1 = args.npositional == 3 ? args.positional[1] : NULL;
    job->out = args.positional[args.npositional - 1];
    if ((rc = parse_flow_options(&t, &job->opt)) != CLI_OK)
        return rc;
    job->start = -1;
    if (start && !cli_parse_count(start, 0, 1L << 30, &job->start))
        return flow_usage_error("--start", start, "a frame number from 0 to 2^30");
    return check_flow_names(job, args.npositional, start != NULL);
}

/* Takes the image read from path as the grey frame the flow is computed on:
 * grey as it is, the grey of grey + alpha, the luma of colour (as
 * clik_gray). *img is cleared either way. */
static int grey_frame(clik_context *ctx, const char *path, clik_image *img, clik_image *grey)
{
    if (img->channels == 1) {
        *grey = *img;
        *img = (clik_image){0};
        return CLI_OK;
    }
    clik_status st = cli_luma(ctx, img, grey);
    clik_image_free(img);
    if (st != CLIK_OK) {
        clik_image_free(grey);
        return cli_error("flow", ctx, st, path);
    }
    return CLI_OK;
}

static int same_size(const char *path_a, const clik_image *a, const char *path_b,
                     const clik_image *b, const char *what)
{
    if (a->width == b->width && a->height == b->height)
        return CLI_OK;
    fprintf(stderr, "clik flow: %s is %dx%d but %s is %dx%d: %s\n", path_b, b->width, b->height,
            path_a, a->width, a->height, what);
    return CLI_FAILED;
}

/* The flow from i0 to i1 (grey frames) into flow, allocated here. */
static int compute_flow(clik_context *ctx, const flow_job *job, const clik_image *i0,
                        const clik_image *i1, clik_image *flow, const char *name)
{
    clik_status st = clik_image_alloc(flow, i0->width, i0->height, 2, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_flow_tvl1(ctx, i0, i1, flow, &job->opt);
    if (st != CLIK_OK) {
        clik_image_free(flow);
        return cli_error("flow", ctx, st, name);
    }
    return CLI_OK;
}

/* One pair of images: OUT is output 0, VIZ output 1. */
static int flow_pair(const flow_job *job)
{
    cli_outputs outs;
    cli_outputs_init(&outs, "flow");
    const char *const inputs[] = {job->in0, job->in1, job->gt}, *const outputs[] = {job->out,
                                                                                    job->viz};
    int rc = cli_outputs_plan(&outs, inputs, 3, outputs, 2);
    clik_image img0 = {0}, img1 = {0}, gt = {0}, i0 = {0}, i1 = {0}, flow = {0};
    if (rc == CLI_OK)
        rc = cli_read_u8("flow", job->in0, &img0, NULL);
    if (rc == CLI_OK)
        rc = cli_read_u8("flow", job->in1, &img1, NULL);
    if (rc == CLI_OK)
        rc = same_size(job->in0, &img0, job->in1, &img1, "the two images need one size");
    if (rc == CLI_OK && job->gt)
        rc = flow_read_file("flow", job->gt, &gt);
    if (rc == CLI_OK && job->gt)
        rc = same_size(job->in0, &img0, job->gt, &gt, "the ground truth needs the images' size");
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(job->device, &ctx);
    cli_op_clock clock = {0};
    if (rc == CLI_OK)
        cli_op_start(ctx, &clock);
    if (rc == CLI_OK)
        rc = grey_frame(ctx, job->in0, &img0, &i0);
    if (rc == CLI_OK)
        rc = grey_frame(ctx, job->in1, &img1, &i1);
    if (rc == CLI_OK)
        rc = compute_flow(ctx, job, &i0, &i1, &flow, job->in0);
    if (ctx)
        cli_op_done("flow", ctx, &clock, job->in0);
    flow_errors errors;
    if (rc == CLI_OK && job->gt)
        rc = flow_measure("flow", job->out, &flow, job->gt, &gt, &errors);
    if (rc == CLI_OK)
        rc = flow_stage(&outs, &flow, 0, job->viz ? 1 : -1, job->out);
    rc = cli_finish(&outs, rc, ctx, &flow, &i1, &i0, &gt, &img1, &img0, NULL);
    if (rc == CLI_OK && job->gt)
        flow_print_errors(NULL, &errors);
    return rc;
}

int cmd_flow(int argc, char **argv)
{
    flow_job job;
    int rc = parse_flow_job(argc, argv, &job);
    if (rc != CLI_OK)
        return rc;
    return job.sequence ? flow_sequence_run(&job) : flow_pair(&job);
}

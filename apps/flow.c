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
#include "flow_eval.h"
#include "imageio.h"

/* ---- pieces the flow commands share ------------------------------------------------ */

/* Reads a flow: a .flo file, or anything clikio_read gives as a 2-channel
 * f32 image (a (H, W, 2) float32 .npy). Prints the reason otherwise. */
static int read_flow(const char *cmd, const char *path, clik_image *flow)
{
    char err[512];
    clik_status st = clikio_read(path, flow, NULL, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", cmd, err);
        return CLI_FAILED;
    }
    if (flow->channels != 2 || flow->type != CLIK_F32) {
        fprintf(stderr,
                "clik %s: %s: not a flow (%d-channel %s; a flow has 2 f32 channels, as in a "
                ".flo file)\n",
                cmd, path, flow->channels, clik_type_name(flow->type));
        clik_image_free(flow);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* The errors of one flow against its ground truth. */
typedef struct flow_errors {
    double epe, aae;
    long counted, total; /* vectors known in both, and all vectors */
} flow_errors;

/* Measures flow against gt; with no vector known in both, says so and fails. */
static int measure(const char *cmd, const char *flow_path, const clik_image *flow,
                   const char *gt_path, const clik_image *gt, flow_errors *e)
{
    if (flow->width != gt->width || flow->height != gt->height) {
        fprintf(stderr, "clik %s: %s is %dx%d but %s is %dx%d: the flows need one size\n", cmd,
                flow_path, flow->width, flow->height, gt_path, gt->width, gt->height);
        return CLI_FAILED;
    }
    clik_status st = sup_flow_errors(flow, gt, &e->epe, &e->aae, &e->counted);
    if (st != CLIK_OK)
        return cli_error(cmd, NULL, st, gt_path);
    if (e->counted == 0) {
        fprintf(stderr, "clik %s: %s: no vector is known in both flows\n", cmd, gt_path);
        return CLI_FAILED;
    }
    e->total = (long)flow->width * flow->height;
    return CLI_OK;
}

/* One line on stdout, after label (may be NULL). */
static void print_errors(const char *label, const flow_errors *e)
{
    printf("%s%sEPE %.6f AAE %.6f (%ld of %ld vectors)\n", label ? label : "", label ? ": " : "",
           e->epe, e->aae, e->counted, e->total);
}

/* The colour picture of flow, as RGBA. */
static int colorize(const char *cmd, const char *path, const clik_image *flow, float max_motion,
                    clik_image *rgba)
{
    clik_status st = clik_image_alloc(rgba, flow->width, flow->height, 4, CLIK_U8);
    if (st == CLIK_OK)
        st = sup_flow_colorize(flow, rgba, max_motion);
    if (st != CLIK_OK) {
        clik_image_free(rgba);
        return cli_error(cmd, NULL, st, path);
    }
    return CLI_OK;
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
    if (rc != CLI_OK || args.help)
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
    rc = read_flow("flowviz", args.positional[0], &flow);
    if (rc == CLI_OK)
        rc = colorize("flowviz", args.positional[0], &flow, (float)max_motion, &rgba);
    if (rc == CLI_OK)
        rc = cli_write_image("flowviz", args.positional[1], &rgba, 0);
    clik_image_free(&rgba);
    clik_image_free(&flow);
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
    if (rc != CLI_OK || args.help)
        return rc;
    clik_image a = {0}, b = {0};
    rc = read_flow("flowcmp", args.positional[0], &a);
    if (rc == CLI_OK)
        rc = read_flow("flowcmp", args.positional[1], &b);
    flow_errors errors;
    if (rc == CLI_OK)
        rc = measure("flowcmp", args.positional[0], &a, args.positional[1], &b, &errors);
    if (rc == CLI_OK)
        print_errors(NULL, &errors);
    clik_image_free(&b);
    clik_image_free(&a);
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

/* What the command line asks for, parsed. */
typedef struct flow_job {
    const char *in0, *in1;      /* the two images; a frame pattern in in0 for a sequence */
    const char *out, *viz, *gt; /* names, or patterns for a sequence; viz and gt may be NULL */
    clik_flow_options opt;
    int sequence, start; /* start < 0: 0 or 1, whichever exists */
    const char *device;
} flow_job;

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

static int parse_flow_job(int argc, char **argv, flow_job *job, int *help)
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
    *help = args.help;
    if (rc != CLI_OK || args.help)
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

/* Stages the flow as output out of set, and its picture as output viz
 * (viz < 0: none). */
static int stage_flow(cli_outputs *set, const clik_image *flow, int out, int viz, const char *name)
{
    int rc = cli_outputs_stage(set, out, flow, 0);
    if (rc == CLI_OK && viz >= 0) {
        clik_image rgba = {0};
        rc = colorize("flow", name, flow, 0, &rgba);
        if (rc == CLI_OK)
            rc = cli_outputs_stage(set, viz, &rgba, 0);
        clik_image_free(&rgba);
    }
    return rc;
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
        rc = read_flow("flow", job->gt, &gt);
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
        rc = measure("flow", job->out, &flow, job->gt, &gt, &errors);
    if (rc == CLI_OK)
        rc = stage_flow(&outs, &flow, 0, job->viz ? 1 : -1, job->out);
    if (rc == CLI_OK)
        rc = cli_outputs_commit(&outs);
    if (rc == CLI_OK && job->gt)
        print_errors(NULL, &errors);
    cli_outputs_free(&outs);
    clik_context_destroy(ctx);
    clik_image_free(&flow);
    clik_image_free(&i1);
    clik_image_free(&i0);
    clik_image_free(&gt);
    clik_image_free(&img1);
    clik_image_free(&img0);
    return rc;
}

/* ---- frame sequences ---------------------------------------------------------------- */

typedef struct flow_sequence {
    const flow_job *job;
    int first, count;    /* frames first .. first + count - 1, flows one fewer */
    int width, height;   /* of every frame */
    cli_outputs outs;    /* flow i is output i, its picture output count - 1 + i */
    flow_errors *errors; /* of each flow, with --gt */
} flow_sequence;

/* Finds the first frame and counts the frames up to the first missing
 * number: at least two, for one flow. */
static int count_frames(const flow_job *job, flow_sequence *seq)
{
    char name[CLI_NAME_CAP];
    cli_count_frames(job->in0, job->start, &seq->first, &seq->count);
    cli_numbered_path(job->in0, seq->first + seq->count, name, sizeof(name));
    if (seq->count < 2) {
        fprintf(stderr, "clik flow: %s: no such frame%s; a flow needs two frames\n", name,
                seq->count == 0 && job->start < 0 ? " (nor frame 0)" : "");
        return CLI_FAILED;
    }
    /* Every name must fit, or a late flow would fail. */
    const char *patterns[3] = {job->out, job->viz, job->gt};
    for (int k = 0; k < 3; k++)
        if (patterns[k] &&
            !cli_numbered_path(patterns[k], seq->first + seq->count - 2, name, sizeof(name))) {
            fprintf(stderr, "clik flow: %s: the names are too long\n", patterns[k]);
            return CLI_FAILED;
        }
    return CLI_OK;
}

/* Names every frame, ground truth, flow and picture of the sequence in its
 * output set and checks them before anything runs. */
static int plan_flow_outputs(const flow_job *job, flow_sequence *seq)
{
    char name[CLI_NAME_CAP];
    int rc = CLI_OK;
    cli_outputs_init(&seq->outs, "flow");
    for (int i = 0; i < seq->count && rc == CLI_OK; i++) {
        cli_numbered_path(job->in0, seq->first + i, name, sizeof(name));
        rc = cli_outputs_input(&seq->outs, name);
    }
    for (int i = 0; job->gt && i < seq->count - 1 && rc == CLI_OK; i++) {
        cli_numbered_path(job->gt, seq->first + i, name, sizeof(name));
        rc = cli_outputs_input(&seq->outs, name);
    }
    const char *patterns[2] = {job->out, job->viz};
    for (int k = 0; k < 2; k++)
        for (int i = 0; patterns[k] && i < seq->count - 1 && rc == CLI_OK; i++) {
            cli_numbered_path(patterns[k], seq->first + i, name, sizeof(name));
            rc = cli_outputs_add(&seq->outs, name);
        }
    return rc == CLI_OK ? cli_outputs_check(&seq->outs) : rc;
}

/* Reads frame i of the sequence as a grey frame, checking its size. */
static int read_sequence_frame(flow_sequence *seq, clik_context *ctx, int i, clik_image *grey)
{
    char name[CLI_NAME_CAP];
    clik_image img = {0};
    cli_numbered_path(seq->job->in0, seq->first + i, name, sizeof(name));
    int rc = cli_read_u8("flow", name, &img, NULL);
    if (rc == CLI_OK && i == 0) {
        seq->width = img.width;
        seq->height = img.height;
    } else if (rc == CLI_OK && (img.width != seq->width || img.height != seq->height)) {
        fprintf(stderr,
                "clik flow: %s is %dx%d, the frames before it %dx%d: all frames need one size\n",
                name, img.width, img.height, seq->width, seq->height);
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK)
        rc = grey_frame(ctx, name, &img, grey);
    clik_image_free(&img);
    return rc;
}

/* Measures flow i against its ground truth. */
static int measure_sequence_flow(flow_sequence *seq, int i, const clik_image *flow)
{
    char gt_name[CLI_NAME_CAP], out_name[CLI_NAME_CAP];
    cli_numbered_path(seq->job->gt, seq->first + i, gt_name, sizeof(gt_name));
    cli_numbered_path(seq->job->out, seq->first + i, out_name, sizeof(out_name));
    clik_image gt = {0};
    int rc = read_flow("flow", gt_name, &gt);
    if (rc == CLI_OK)
        rc = measure("flow", out_name, flow, gt_name, &gt, &seq->errors[i]);
    clik_image_free(&gt);
    return rc;
}

/* Computes and stages every flow, frame i - 1 to frame i. */
static int run_flows(flow_sequence *seq, clik_context *ctx)
{
    const flow_job *job = seq->job;
    int flows = seq->count - 1;
    clik_image prev = {0}, cur = {0}, flow = {0};
    int rc = read_sequence_frame(seq, ctx, 0, &prev);
    for (int i = 0; i < flows && rc == CLI_OK; i++) {
        char name[CLI_NAME_CAP];
        cli_numbered_path(job->in0, seq->first + i, name, sizeof(name));
        rc = read_sequence_frame(seq, ctx, i + 1, &cur);
        if (rc == CLI_OK)
            rc = compute_flow(ctx, job, &prev, &cur, &flow, name);
        if (rc == CLI_OK && job->gt)
            rc = measure_sequence_flow(seq, i, &flow);
        if (rc == CLI_OK)
            rc = stage_flow(&seq->outs, &flow, i, job->viz ? flows + i : -1, name);
        clik_image_free(&flow);
        clik_image_free(&prev);
        prev = cur;
        cur = (clik_image){0};
        if (rc == CLI_OK)
            cli_progress("clik flow: %d of %d flows", i + 1, flows);
    }
    clik_image_free(&prev);
    cli_progress_done();
    return rc;
}

/* The errors of each flow, then their mean over every vector counted. */
static void print_sequence_errors(const flow_sequence *seq)
{
    flow_errors all = {0, 0, 0, 0};
    for (int i = 0; i < seq->count - 1; i++) {
        const flow_errors *e = &seq->errors[i];
        char name[CLI_NAME_CAP];
        cli_numbered_path(seq->job->out, seq->first + i, name, sizeof(name));
        print_errors(name, e);
        all.epe += e->epe * (double)e->counted;
        all.aae += e->aae * (double)e->counted;
        all.counted += e->counted;
        all.total += e->total;
    }
    all.epe /= (double)all.counted;
    all.aae /= (double)all.counted;
    print_errors("mean", &all);
}

static int flow_sequence_run(const flow_job *job)
{
    flow_sequence seq = {0};
    seq.job = job;
    int rc = count_frames(job, &seq);
    if (rc == CLI_OK)
        rc = plan_flow_outputs(job, &seq);
    if (rc == CLI_OK && job->gt &&
        !(seq.errors = calloc((size_t)seq.count - 1, sizeof(*seq.errors)))) {
        fprintf(stderr, "clik flow: out of memory\n");
        rc = CLI_FAILED;
    }
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(job->device, &ctx);
    double t0 = cli_seconds();
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        rc = run_flows(&seq, ctx);
        cli_op_done("flow", ctx, &clock, job->in0);
    }
    /* Every flow is staged: put them all in place, or on a failure none. */
    if (rc == CLI_OK)
        rc = cli_outputs_commit(&seq.outs);
    if (rc == CLI_OK) {
        double seconds = cli_seconds() - t0;
        fprintf(stderr, "clik flow: %d flows of %dx%d in %.3f s (%.3f s each)\n", seq.count - 1,
                seq.width, seq.height, seconds, seconds / (seq.count - 1));
        if (job->gt)
            print_sequence_errors(&seq);
    }
    cli_outputs_free(&seq.outs);
    clik_context_destroy(ctx);
    free(seq.errors);
    return rc;
}

int cmd_flow(int argc, char **argv)
{
    flow_job job;
    int help = 0;
    int rc = parse_flow_job(argc, argv, &job, &help);
    if (rc != CLI_OK || help)
        return rc;
    return job.sequence ? flow_sequence_run(&job) : flow_pair(&job);
}

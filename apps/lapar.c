/* clik lapar, lapar-compress and tune. SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "cli.h"
#include "imageio.h"
#include "patterns.h"

static const char *const lapar_usage =
    "usage: clik lapar LR PHI.npy OUT --scale S [--dict D.npy] [--atoms SEL.npy [--mix]]\n"
    "                  [--storage f32|f16] [--device SPEC]\n"
    "LAPAR filtering (Li et al. 2020): LR upsampled by S (2..4) with bicubic, as\n"
    "PyTorch's interpolate(mode='bicubic', align_corners=False), then each output\n"
    "pixel p filtered with F(p) = sum_l PHI_l(p) D_l, the D_l the dictionary's 5x5\n"
    "atoms (default: LAPAR's 72), borders reflect-101; no clamp but for 8-bit output.\n"
    "  LR       an image file (8-bit grey, grey + alpha or colour; alpha is carried\n"
    "           over, not filtered) or a .npy of uint8 or float32, (H, W) or (H, W, 4)\n"
    "  PHI.npy  float32 or float16: the L coefficient planes of the output's size\n"
    "           stacked, shape (L * S*H, S*W), plane l in rows l*S*H .. (l+1)*S*H - 1,\n"
    "           or a network's (L, S*H, S*W) output as it is\n"
    "  OUT      LR's type: an image file for 8-bit LR, or .npy\n"
    "--dict D.npy     another dictionary: (L, 25) float32, L <= 128, atom l row-major\n"
    "--atoms SEL.npy  a compressed dictionary from clik lapar-compress: PHI holds every\n"
    "                 plane or only the kept ones, each weighted by its gamma\n"
    "--mix            with --atoms: the re-fit matrix of SEL.npy maps every plane of\n"
    "                 PHI to the kept atoms instead of gamma\n"
    "--storage f16    PHI rounded to float16 first (a float16 PHI is used as it is)\n";

static const char *const compress_usage =
    "usage: clik lapar-compress LR PHI.npy HR [LR PHI.npy HR ...] OUT.npy --alpha A\n"
    "                           --scale S [--dict D.npy] [--samples N] [--seed N]\n"
    "                           [--device SPEC]\n"
    "       clik lapar-compress (--net N | --model FILE) HR [HR ...] OUT.npy --alpha A\n"
    "                           --scale S [--target net|hr] [--save-net NET.clikn]\n"
    "                           [--samples N] [--seed N] [--device SPEC]\n"
    "Dictionary compression (Zhao et al. 2021, Algorithm 1): keeps round(A * L)\n"
    "atoms, A in (0, 1], chosen by the LASSO on calibration data, and re-weights\n"
    "them by least squares. Each calibration image is three files (up to 64 images):\n"
    "  LR       the low-resolution input (8-bit image file)\n"
    "  PHI.npy  the coefficients a network gave for it, every plane, as clik lapar\n"
    "           takes them: (L * S*H, S*W) or (L, S*H, S*W), float32 or float16\n"
    "  HR       the true high-resolution image: S times LR's size, LR's colours\n"
    "or, with a LAPAR network, one: HR (8-bit image file), cropped at its right and\n"
    "bottom to a multiple of S; its LR the downscale by S (bicubic-aa, as clik\n"
    "resize), its PHI the network's coefficients for that LR; the dictionary is the\n"
    "network's.\n"
    "  --net N          lapar-a, lapar-b or lapar-c: a network built into the\n"
    "                   library, released for S = 2 and 4\n"
    "  --model FILE     a network file (.clikn) instead; S must be its scale\n"
    "  --target net     (default) the atoms are chosen and re-fitted to reproduce the\n"
    "                   network's own output for LR (its upscale, unrounded), not\n"
    "                   HR: without retraining, the compressed network keeps the\n"
    "                   quality of the full one best by matching it\n"
    "  --target hr      fits to HR, the ground truth, instead\n"
    "  --save-net NET   writes the compressed network: the re-fit matrix folded\n"
    "                   into its last layer, which then emits the k kept planes,\n"
    "                   and the kept atoms as its dictionary (clik upscale --method\n"
    "                   lapar-net --model NET runs it)\n"
    "OUT.npy: float32 (k, 2 + L); row i is kept atom i: its index, its weight gamma,\n"
    "then its row of the re-fit matrix (the L coefficients mixed into it). Prints\n"
    "the kept atoms and the PSNR on the calibration images with every atom, with\n"
    "gamma and with the re-fit matrix, against HR (with --target net, also the\n"
    "kept atoms' against the network's output). --samples: pixels sampled per\n"
    "image (default 65536); --seed: of the sampling (default 1).\n";

static const char *const tune_usage =
    "usage: clik tune lapar LR PHI.npy --scale S [--dict D.npy] [--atoms SEL.npy [--mix]]\n"
    "                 [--storage f32|f16] [--show] [--device SPEC]\n"
    "Searches the work-group shapes and kernel variants of clik lapar with these\n"
    "arguments (as clik lapar takes them) on the device, and stores the fastest\n"
    "beside the kernel cache, per device and problem class (types, channels,\n"
    "scale, planes, size); later clik lapar runs on the device use it. A search\n"
    "whose result cannot be stored (no cache folder: CLIK_CACHE=off; a folder\n"
    "that cannot be written) fails. --show prints what is stored (or the\n"
    "default) without searching. Only the lapar family has a search.\n";

/* What the three commands read: the input, its coefficients and the
 * dictionary, with an optional selection. */
typedef struct lapar_job {
    const char *cmd;
    int scale;
    clik_image lr;     /* 1 or 4 channels, u8 or f32 */
    int lr_grey_alpha; /* LR was grey + alpha, expanded to RGBA */
    int had_alpha;
    clik_image phi; /* F32 or F16, one channel */
    float *atoms;   /* NULL: the default dictionary */
    float default_atoms[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
    int natoms;
    clik_lapar_selection sel;
    int use_sel;
    float *mix; /* the selection's re-fit matrix, k x L */
    clik_lapar_dict dict;
} lapar_job;

static void job_free(lapar_job *job)
{
    clik_image_free(&job->lr);
    clik_image_free(&job->phi);
    free(job->atoms);
    free(job->mix);
    memset(job, 0, sizeof(*job));
}

static int fail(const lapar_job *job, const char *fmt, const char *path, const char *detail)
{
    fprintf(stderr, "clik %s: %s: ", job->cmd, path);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return CLI_FAILED;
}

/* A .npy read as one-channel floats (float64 narrowed to float32). */
/* A float .npy: 2-D, or with planes also 3-D (P, H, W) read as (P * H, W). */
static int read_float_npy(const lapar_job *job, const char *path, clik_image *img, int keep_f16,
                          int planes)
{
    char err[512];
    clik_status st = planes ? clikio_read_npy_planes(path, img, err, sizeof(err))
                            : clikio_read_npy(path, img, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", job->cmd, err);
        return CLI_FAILED;
    }
    if (img->channels != 1) {
        clik_image_free(img);
        return fail(job, "%s", path, planes ? "needs a 2-D or 3-D array" : "needs a 2-D array");
    }
    if (img->type == CLIK_F32 || (img->type == CLIK_F16 && keep_f16))
        return CLI_OK;
    if (img->type != CLIK_F64) {
        const char *name = clik_type_name(img->type);
        clik_image_free(img);
        return fail(job, keep_f16 ? "needs float32 or float16, not %s" : "needs float32, not %s",
                    path, name);
    }
    clik_image f32 = {0};
    st = clik_image_alloc(&f32, img->width, img->height, 1, CLIK_F32);
    if (st != CLIK_OK) {
        clik_image_free(img);
        return fail(job, "%s", path, clik_status_str(st));
    }
    for (int y = 0; y < img->height; y++) {
        const double *in = (const double *)((const char *)img->data + (size_t)y * img->stride);
        float *out = (float *)((char *)f32.data + (size_t)y * f32.stride);
        for (int x = 0; x < img->width; x++)
            out[x] = (float)in[x];
    }
    clik_image_free(img);
    *img = f32;
    return CLI_OK;
}

static int load_dict(lapar_job *job, const char *path)
{
    if (!path) {
        clik_lapar_dict_default(job->default_atoms);
        job->natoms = CLIK_LAPAR_ATOMS;
        job->dict.data = job->default_atoms;
        job->dict.atoms = CLIK_LAPAR_ATOMS;
        return CLI_OK;
    }
    clik_image d = {0};
    if (read_float_npy(job, path, &d, 0, 0) != CLI_OK)
        return CLI_FAILED;
    if (d.width != CLIK_LAPAR_TAPS || d.height > CLIK_LAPAR_MAX_ATOMS) {
        clik_image_free(&d);
        return fail(job, "%s", path, "a dictionary is (L, 25) with L <= 128");
    }
    job->natoms = d.height;
    job->atoms = malloc((size_t)d.height * CLIK_LAPAR_TAPS * sizeof(float));
    if (!job->atoms) {
        clik_image_free(&d);
        return fail(job, "%s", path, "out of memory");
    }
    for (int l = 0; l < d.height; l++)
        memcpy(job->atoms + (size_t)l * CLIK_LAPAR_TAPS,
               (const char *)d.data + (size_t)l * d.stride, CLIK_LAPAR_TAPS * sizeof(float));
    clik_image_free(&d);
    job->dict.data = job->atoms;
    job->dict.atoms = job->natoms;
    return CLI_OK;
}

/* SEL.npy: (k, 2 + L) float32, rows [index, gamma, mix row]. */
static int load_selection(lapar_job *job, const char *path, int use_mix)
{
    clik_image s = {0};
    if (read_float_npy(job, path, &s, 0, 0) != CLI_OK)
        return CLI_FAILED;
    const int L = job->natoms;
    char detail[160];
    snprintf(detail, sizeof(detail),
             "a selection of this %d-atom dictionary is (k, %d) with 1 <= k <= %d", L, L + 2, L);
    if (s.width != L + 2 || s.height > L) {
        clik_image_free(&s);
        return fail(job, "%s", path, detail);
    }
    clik_lapar_selection *sel = &job->sel;
    memset(sel, 0, sizeof(*sel));
    sel->atoms = L;
    sel->kept = s.height;
    if (use_mix) {
        job->mix = malloc((size_t)s.height * (size_t)L * sizeof(float));
        if (!job->mix) {
            clik_image_free(&s);
            return fail(job, "%s", path, "out of memory");
        }
    }
    for (int i = 0; i < s.height; i++) {
        const float *row = (const float *)((const char *)s.data + (size_t)i * s.stride);
        const float index = row[0];
        if (!(index >= 0 && index < (float)L && index == floorf(index)) ||
            (i > 0 && (int)index <= sel->index[i - 1])) {
            clik_image_free(&s);
            return fail(job, "%s", path,
                        "column 0 must hold increasing atom indices of the dictionary");
        }
        sel->index[i] = (int)index;
        sel->gamma[i] = row[1];
        if (use_mix)
            memcpy(job->mix + (size_t)i * L, row + 2, (size_t)L * sizeof(float));
    }
    clik_image_free(&s);
    sel->mix = job->mix;
    job->use_sel = 1;
    job->dict.selection = sel;
    return CLI_OK;
}

/* The low-resolution input: an 8-bit image file, or a .npy of uint8 or
 * float32 with 1 or 4 channels; grey + alpha goes through RGBA. */
static int load_lr(lapar_job *job, const char *path)
{
    char err[512];
    clik_status st = clikio_read(path, &job->lr, &job->had_alpha, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", job->cmd, err);
        return CLI_FAILED;
    }
    if (job->lr.type != CLIK_U8 && job->lr.type != CLIK_F32)
        return fail(job, "needs 8-bit or float32 pixels, not %s", path,
                    clik_type_name(job->lr.type));
    if (job->lr.channels == 2) {
        if (job->lr.type != CLIK_U8)
            return fail(job, "%s", path, "a float32 input has 1 or 4 channels");
        clik_image rgba = {0};
        st = rgba_expand(&job->lr, &rgba);
        if (st != CLIK_OK)
            return fail(job, "%s", path, clik_status_str(st));
        clik_image_free(&job->lr);
        job->lr = rgba;
        job->lr_grey_alpha = 1;
    }
    return CLI_OK;
}

/* PHI.npy: its shape checked against LR, the scale and the dictionary here,
 * to say what was expected in the tool's words. */
static int load_phi(lapar_job *job, const char *path, const char *storage)
{
    if (read_float_npy(job, path, &job->phi, 1, 1) != CLI_OK)
        return CLI_FAILED;
    const int s = job->scale, w = s * job->lr.width, h = s * job->lr.height;
    const int full = job->natoms;
    const int kept = job->use_sel ? job->sel.kept : full;
    const int ok_full = job->phi.width == w && job->phi.height == (long)full * h;
    const int ok_kept =
        job->use_sel && !job->mix && job->phi.width == w && job->phi.height == (long)kept * h;
    if (!ok_full && !ok_kept) {
        fprintf(
            stderr,
            "clik %s: %s: planes of (%d, %d) in all, but %dx%d at scale %d needs (%d * %d, %d) = "
            "(%ld, %d), or (%d, %d, %d)",
            job->cmd, path, job->phi.height, job->phi.width, job->lr.width, job->lr.height, s, full,
            h, w, (long)full * h, w, full, h, w);
        if (job->use_sel && !job->mix && kept != full)
            fprintf(stderr, " or, the kept planes only, (%ld, %d)", (long)kept * h, w);
        fputc('\n', stderr);
        return CLI_FAILED;
    }
    if (strcmp(storage, "f16") != 0 || job->phi.type == CLIK_F16)
        return CLI_OK;
    clik_image half = {0};
    clik_status st = clik_image_alloc(&half, job->phi.width, job->phi.height, 1, CLIK_F16);
    if (st != CLIK_OK)
        return fail(job, "%s", path, clik_status_str(st));
    for (int y = 0; y < half.height; y++) {
        const float *in =
            (const float *)((const char *)job->phi.data + (size_t)y * job->phi.stride);
        uint16_t *out = (uint16_t *)((char *)half.data + (size_t)y * half.stride);
        for (int x = 0; x < half.width; x++)
            out[x] = clik__float_to_half(in[x]);
    }
    clik_image_free(&job->phi);
    job->phi = half;
    return CLI_OK;
}

static int parse_scale(const char *cmd, const char *text, int *scale)
{
    if (!text) {
        fprintf(stderr, "clik %s: --scale is required (2, 3 or 4)\n", cmd);
        return CLI_USAGE;
    }
    if (!cli_parse_count(text, 2, 4, scale)) {
        fprintf(stderr, "clik %s: --scale %s: expected 2, 3 or 4\n", cmd, text);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int parse_storage(const char *cmd, const char *text)
{
    if (strcmp(text, "f32") != 0 && strcmp(text, "f16") != 0) {
        fprintf(stderr, "clik %s: --storage %s: expected f32 or f16\n", cmd, text);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The options clik lapar and clik tune lapar share. */
typedef struct job_options {
    const char *scale, *dict, *atoms, *storage;
    int mix;
} job_options;

static int job_load(lapar_job *job, const char *cmd, const job_options *o, const char *lr_path,
                    const char *phi_path)
{
    memset(job, 0, sizeof(*job));
    job->cmd = cmd;
    int rc = parse_scale(cmd, o->scale, &job->scale);
    if (rc == CLI_OK)
        rc = parse_storage(cmd, o->storage);
    if (rc == CLI_OK && o->mix && !o->atoms) {
        fprintf(stderr, "clik %s: --mix needs --atoms\n", cmd);
        rc = CLI_USAGE;
    }
    if (rc == CLI_OK)
        rc = load_dict(job, o->dict);
    if (rc == CLI_OK && o->atoms)
        rc = load_selection(job, o->atoms, o->mix);
    if (rc == CLI_OK)
        rc = load_lr(job, lr_path);
    if (rc == CLI_OK)
        rc = load_phi(job, phi_path, o->storage);
    return rc;
}

/* dst of the filter's output for job (LR's type and channels). */
static clik_status alloc_output(const lapar_job *job, clik_image *dst)
{
    return clik_image_alloc(dst, job->scale * job->lr.width, job->scale * job->lr.height,
                            job->lr.channels, job->lr.type);
}

int cmd_lapar(int argc, char **argv)
{
    job_options o = {NULL, NULL, NULL, "f32", 0};
    const cli_option options[] = {{"--scale", &o.scale, NULL},     {"--dict", &o.dict, NULL},
                                  {"--atoms", &o.atoms, NULL},     {"--mix", NULL, &o.mix},
                                  {"--storage", &o.storage, NULL}, {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 3, 3, &args, lapar_usage);
    if (rc != CLI_OK)
        return rc;
    const char *out_path = args.positional[2];
    /* OUT may not replace a file it is made from. */
    cli_outputs outs;
    cli_outputs_init(&outs, "lapar");
    const char *const inputs[] = {args.positional[0], args.positional[1], o.dict, o.atoms};
    rc = cli_outputs_plan(&outs, inputs, 4, &out_path, 1);
    lapar_job job;
    memset(&job, 0, sizeof(job));
    if (rc == CLI_OK)
        rc = job_load(&job, "lapar", &o, args.positional[0], args.positional[1]);
    clik_context *ctx = NULL;
    clik_image dst = {0}, grey = {0};
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        clik_status st = alloc_output(&job, &dst);
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        if (st == CLIK_OK)
            st = clik_lapar_filter(ctx, &job.lr, &job.phi, &job.dict, job.scale, &dst);
        cli_op_done("lapar", ctx, &clock, args.positional[0]);
        if (st != CLIK_OK)
            rc = cli_error("lapar", ctx, st, "filter");
    }
    const clik_image *out = &dst;
    if (rc == CLI_OK && job.lr_grey_alpha) {
        rc = rgba_collapse_new("lapar", &dst, &grey, out_path);
        out = &grey;
    }
    if (rc == CLI_OK)
        rc = cli_outputs_stage(&outs, 0, out, job.had_alpha);
    job_free(&job);
    return cli_finish(&outs, rc, ctx, &grey, &dst, NULL);
}

/* ---- clik lapar-compress ----------------------------------------------------------- */

#define MAX_CALIB 64

typedef struct calib_image {
    lapar_job job; /* lr and every plane of phi */
    clik_image upsampled, truth;
    clik_image target; /* with a network: its output for lr (F32), or empty */
} calib_image;

/* Squared errors of the colour channels of a (u8, lr's channels) against
 * ref (u8 or F32, a's size and channels), summed into *sse and counted
 * into *n. */
static void add_errors(const clik_image *a, const clik_image *ref, double *sse, double *n)
{
    const int colours = a->channels == 4 ? 3 : a->channels;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *p = (const uint8_t *)a->data + (size_t)y * a->stride;
        const char *q = (const char *)ref->data + (size_t)y * ref->stride;
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < colours; c++) {
                const size_t i = (size_t)x * (size_t)a->channels + (size_t)c;
                const double r = ref->type == CLIK_F32 ? ((const float *)(const void *)q)[i]
                                                       : ((const uint8_t *)q)[i];
                const double d = (double)p[i] - r;
                *sse += d * d;
                *n += 1;
            }
    }
}

static double psnr(double sse, double n)
{
    return sse > 0 ? 10.0 * log10(255.0 * 255.0 * n / sse) : INFINITY;
}

/* PSNR of the filter with dict over every calibration image, against the
 * truth, or against the network's output (to_net). */
static clik_status calib_psnr(clik_context *ctx, calib_image *im, int count,
                              const clik_lapar_dict *dict, int to_net, double *out)
{
    double sse = 0, n = 0;
    for (int i = 0; i < count; i++) {
        clik_image dst = {0};
        clik_status st = alloc_output(&im[i].job, &dst);
        if (st == CLIK_OK)
            st = clik_lapar_filter(ctx, &im[i].job.lr, &im[i].job.phi, dict, im[i].job.scale, &dst);
        if (st == CLIK_OK)
            add_errors(&dst, to_net ? &im[i].target : &im[i].truth, &sse, &n);
        clik_image_free(&dst);
        if (st != CLIK_OK)
            return st;
    }
    *out = psnr(sse, n);
    return CLIK_OK;
}

/* Reads calibration image i: LR, PHI (every plane), HR of the upsample's
 * size and LR's colours; computes the upsample. */
static int calib_load(clik_context *ctx, calib_image *im, const job_options *o,
                      const char *const *paths)
{
    int rc = job_load(&im->job, "lapar-compress", o, paths[0], paths[1]);
    if (rc != CLI_OK)
        return rc;
    lapar_job *job = &im->job;
    if (job->lr.type != CLIK_U8)
        return fail(job, "%s", paths[0], "calibration inputs are 8-bit images");
    int had_alpha = 0;
    if (cli_read_u8("lapar-compress", paths[2], &im->truth, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    if (im->truth.channels == 2 || (im->truth.channels == 1) != (job->lr.channels == 1) ||
        job->lr_grey_alpha) {
        return fail(job, "%s", paths[2],
                    "LR and HR need the same colours: both grey, or both colour");
    }
    if (im->truth.width != job->scale * job->lr.width ||
        im->truth.height != job->scale * job->lr.height) {
        char detail[96];
        snprintf(detail, sizeof(detail), "is %dx%d; HR is the scale times LR's size, %dx%d",
                 im->truth.width, im->truth.height, job->scale * job->lr.width,
                 job->scale * job->lr.height);
        return fail(job, "%s", paths[2], detail);
    }
    clik_status st = clik_image_alloc(&im->upsampled, im->truth.width, im->truth.height,
                                      job->lr.channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_lapar_upsample(ctx, &job->lr, job->scale, &im->upsampled);
    return st == CLIK_OK ? CLI_OK : cli_error("lapar-compress", ctx, st, paths[0]);
}

static void calib_free(calib_image *im)
{
    job_free(&im->job);
    cli_images_free(&im->upsampled, &im->truth, &im->target, NULL);
}

/* Calibration image i made with a network: HR cropped at its right and
 * bottom to a multiple of the scale (the truth), its bicubic-aa downscale
 * by the scale (LR), the network's phi for LR (every plane) and the
 * upsample of LR; the dictionary is the network's. With to_net, also the
 * network's output for LR as F32 (im->target), from the same run as phi:
 * LR as F32 gives the same phi as LR as u8, and an output not rounded. */
static int calib_from_net(clik_context *ctx, calib_image *im, const clik_lapar_net *net, int scale,
                          int to_net, const char *path)
{
    lapar_job *job = &im->job;
    job->cmd = "lapar-compress";
    job->scale = scale;
    clik_lapar_net_info info;
    clik_lapar_net_describe(net, &info);
    job->natoms = info.atoms;
    job->dict = (clik_lapar_dict){info.atoms, clik_lapar_net_atoms(net), NULL};
    clik_image hr = {0};
    if (cli_read_u8(job->cmd, path, &hr, NULL) != CLI_OK)
        return CLI_FAILED;
    clik_status st = CLIK_OK;
    if (hr.channels == 2) {
        /* grey + alpha: the network sees grey as R = G = B */
        clik_image rgba = {0};
        st = rgba_expand(&hr, &rgba);
        clik_image_free(&hr);
        hr = rgba;
    }
    const int w = hr.width / scale * scale, h = hr.height / scale * scale;
    if (st == CLIK_OK && (w < 2 * scale || h < 2 * scale)) {
        char detail[96];
        snprintf(detail, sizeof(detail), "is %dx%d; the network needs at least %dx%d", hr.width,
                 hr.height, 2 * scale, 2 * scale);
        clik_image_free(&hr);
        return fail(job, "%s", path, detail);
    }
    if (st == CLIK_OK)
        st = clik_image_alloc(&im->truth, w, h, hr.channels, CLIK_U8);
    for (int y = 0; st == CLIK_OK && y < h; y++)
        memcpy((char *)im->truth.data + (size_t)y * im->truth.stride,
               (const char *)hr.data + (size_t)y * hr.stride, (size_t)w * (size_t)hr.channels);
    clik_image_free(&hr);
    if (st == CLIK_OK && (long)h * info.atoms > (1L << 30))
        st = CLIK_ERR_INVALID_SIZE;
    if (st == CLIK_OK)
        st = clik_image_alloc(&job->lr, w / scale, h / scale, im->truth.channels, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_image_alloc(&job->phi, w, h * info.atoms, 1, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_image_alloc(&im->upsampled, w, h, im->truth.channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_resize(ctx, &im->truth, &job->lr, CLIK_INTERP_BICUBIC_AA);
    clik_image lr_f32 = {0};
    if (st == CLIK_OK && to_net)
        st = clik_image_alloc(&lr_f32, job->lr.width, job->lr.height, job->lr.channels, CLIK_F32);
    if (st == CLIK_OK && to_net)
        st = clik_image_alloc(&im->target, w, h, im->truth.channels, CLIK_F32);
    for (int y = 0; st == CLIK_OK && to_net && y < job->lr.height; y++) {
        const uint8_t *in = (const uint8_t *)job->lr.data + (size_t)y * job->lr.stride;
        float *out = (float *)(void *)((char *)lr_f32.data + (size_t)y * lr_f32.stride);
        for (int x = 0; x < job->lr.width * job->lr.channels; x++)
            out[x] = (float)in[x];
    }
    if (st == CLIK_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        st = to_net ? clik_lapar_net_run(ctx, net, &lr_f32, &im->target, &job->phi)
                    : clik_lapar_net_run(ctx, net, &job->lr, NULL, &job->phi);
        cli_op_done("lapar-compress", ctx, &clock, path);
    }
    clik_image_free(&lr_f32);
    if (st == CLIK_OK)
        st = clik_lapar_upsample(ctx, &job->lr, scale, &im->upsampled);
    return st == CLIK_OK ? CLI_OK : cli_error("lapar-compress", ctx, st, path);
}

/* The compressed network (the re-fit matrix folded into its last layer) as
 * output 1 of outs. */
static int stage_net(clik_context *ctx, const clik_lapar_net *net, const clik_lapar_selection *sel,
                     const float *mix, cli_outputs *outs, const char *path)
{
    clik_lapar_net *small = NULL;
    size_t size = 0;
    uint8_t *bytes = NULL;
    clik_status st = clik_lapar_net_compress(ctx, net, sel, mix, &small);
    if (st == CLIK_OK)
        st = clik_lapar_net_write(ctx, small, CLIK_F32, NULL, 0, &size);
    if (st == CLIK_OK && !(bytes = malloc(size)))
        st = CLIK_ERR_NO_MEMORY;
    if (st == CLIK_OK)
        st = clik_lapar_net_write(ctx, small, CLIK_F32, bytes, size, &size);
    int rc = st == CLIK_OK ? cli_outputs_stage_bytes(outs, 1, bytes, size)
                           : cli_error("lapar-compress", ctx, st, path);
    free(bytes);
    clik_lapar_net_free(small);
    return rc;
}

/* The selection and its matrix as OUT.npy's (k, 2 + L) rows. */
static clik_status selection_rows(const clik_lapar_selection *sel, const float *mix,
                                  clik_image *rows)
{
    const int L = sel->atoms;
    clik_status st = clik_image_alloc(rows, L + 2, sel->kept, 1, CLIK_F32);
    if (st != CLIK_OK)
        return st;
    for (int i = 0; i < sel->kept; i++) {
        float *row = (float *)((char *)rows->data + (size_t)i * rows->stride);
        row[0] = (float)sel->index[i];
        row[1] = sel->gamma[i];
        memcpy(row + 2, mix + (size_t)i * L, (size_t)L * sizeof(float));
    }
    return CLIK_OK;
}

int cmd_lapar_compress(int argc, char **argv)
{
    job_options o = {NULL, NULL, NULL, "f32", 0};
    const char *alpha_text = NULL, *samples_text = NULL, *seed_text = NULL;
    const char *net_name = NULL, *model = NULL, *save_net = NULL, *target = NULL;
    const cli_option options[] = {
        {"--scale", &o.scale, NULL},    {"--dict", &o.dict, NULL},
        {"--alpha", &alpha_text, NULL}, {"--samples", &samples_text, NULL},
        {"--seed", &seed_text, NULL},   {"--net", &net_name, NULL},
        {"--model", &model, NULL},      {"--save-net", &save_net, NULL},
        {"--target", &target, NULL},    {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 3 * MAX_CALIB + 1, &args, compress_usage);
    if (rc != CLI_OK)
        return rc;
    const int use_net = net_name || model;
    const char *conflict = NULL;
    if (net_name && model)
        conflict = "--net and --model exclude each other";
    else if (use_net && o.dict)
        conflict = "--dict does not go with a network: its dictionary is the network's";
    else if (save_net && !use_net)
        conflict = "--save-net needs --net or --model";
    else if (target && !use_net)
        conflict = "--target needs --net or --model: calibration triples bring their HR";
    else if (target && strcmp(target, "net") != 0 && strcmp(target, "hr") != 0)
        conflict = "--target: expected net or hr";
    if (conflict) {
        fprintf(stderr, "clik lapar-compress: %s\n", conflict);
        return CLI_USAGE;
    }
    if (use_net ? args.npositional - 1 > MAX_CALIB : (args.npositional - 1) % 3 != 0) {
        fprintf(stderr, "clik lapar-compress: expected %s, then OUT.npy\n%s",
                use_net ? "1 to 64 HR images" : "LR PHI.npy HR triples", compress_usage);
        return CLI_USAGE;
    }
    int scale = 0;
    if (use_net && (rc = parse_scale("lapar-compress", o.scale, &scale)) != CLI_OK)
        return rc;
    /* With a network, the default target is its own output. */
    const int to_net = use_net && (!target || strcmp(target, "net") == 0);
    double alpha = 0;
    if (!alpha_text || !cli_parse_number(alpha_text, &alpha) || !(alpha > 0 && alpha <= 1)) {
        fprintf(stderr, "clik lapar-compress: --alpha: a number in (0, 1] is required\n");
        return CLI_USAGE;
    }
    clik_lapar_compress_options copt;
    clik_lapar_compress_options_init(&copt);
    int seed = 1;
    if ((samples_text && !cli_parse_count(samples_text, 1, 1 << 24, &copt.samples)) ||
        (seed_text && !cli_parse_count(seed_text, 0, 2147483647, &seed))) {
        fprintf(stderr, "clik lapar-compress: --samples 1..16777216, --seed 0..2147483647\n");
        return CLI_USAGE;
    }
    copt.seed = (uint64_t)seed;
    if (copt.refit_samples > copt.samples)
        copt.refit_samples = copt.samples;
    const int count = use_net ? args.npositional - 1 : (args.npositional - 1) / 3;
    const char *const outputs[] = {args.positional[args.npositional - 1], save_net};
    const char *out_path = outputs[0];
    cli_outputs outs;
    cli_outputs_init(&outs, "lapar-compress");
    /* The images and the dictionary or network they are fitted with. */
    args.positional[args.npositional - 1] = use_net ? model : o.dict;
    rc = cli_outputs_plan(&outs, args.positional, args.npositional, outputs, save_net ? 2 : 1);
    clik_context *ctx = NULL;
    clik_lapar_net *net = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK && use_net)
        rc = cli_load_net(ctx, "lapar-compress", net_name ? net_name : "lapar-a", model, scale,
                          &net);
    calib_image *im = rc == CLI_OK ? calloc((size_t)count, sizeof(*im)) : NULL;
    if (rc == CLI_OK && !im) {
        fprintf(stderr, "clik lapar-compress: out of memory\n");
        rc = CLI_FAILED;
    }
    for (int i = 0; rc == CLI_OK && i < count; i++)
        rc = use_net ? calib_from_net(ctx, &im[i], net, scale, to_net, args.positional[i])
                     : calib_load(ctx, &im[i], &o, args.positional + 3 * i);
    clik_lapar_calib calib[MAX_CALIB];
    for (int i = 0; rc == CLI_OK && i < count; i++) {
        calib[i].phi = &im[i].job.phi;
        calib[i].upsampled = &im[i].upsampled;
        calib[i].truth = to_net ? &im[i].target : &im[i].truth;
    }
    clik_lapar_selection sel;
    float *mix = NULL;
    if (rc == CLI_OK) {
        const int L = im[0].job.natoms;
        mix = malloc((size_t)L * (size_t)L * sizeof(float));
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        clik_status st =
            mix ? clik_lapar_compress(ctx, calib, count, &im[0].job.dict, alpha, &copt, &sel, mix)
                : CLIK_ERR_NO_MEMORY;
        rc = cli_op_end("lapar-compress", ctx, &clock, st, "compress");
    }
    double p_full = 0, p_gamma = 0, p_mix = 0, n_gamma = 0, n_mix = 0;
    if (rc == CLI_OK) {
        const clik_lapar_dict full = im[0].job.dict;
        clik_lapar_dict with_gamma = full, with_mix = full;
        clik_lapar_selection gamma_sel = sel;
        gamma_sel.mix = NULL;
        with_gamma.selection = &gamma_sel;
        with_mix.selection = &sel;
        clik_status st = calib_psnr(ctx, im, count, &full, 0, &p_full);
        if (st == CLIK_OK)
            st = calib_psnr(ctx, im, count, &with_gamma, 0, &p_gamma);
        if (st == CLIK_OK)
            st = calib_psnr(ctx, im, count, &with_mix, 0, &p_mix);
        if (st == CLIK_OK && to_net)
            st = calib_psnr(ctx, im, count, &with_gamma, 1, &n_gamma);
        if (st == CLIK_OK && to_net)
            st = calib_psnr(ctx, im, count, &with_mix, 1, &n_mix);
        if (st != CLIK_OK)
            rc = cli_error("lapar-compress", ctx, st, "PSNR of the kept atoms");
    }
    clik_image rows = {0};
    if (rc == CLI_OK) {
        clik_status st = selection_rows(&sel, mix, &rows);
        rc = st == CLIK_OK ? cli_outputs_stage(&outs, 0, &rows, 0)
                           : cli_error("lapar-compress", NULL, st, out_path);
    }
    if (rc == CLI_OK && save_net)
        rc = stage_net(ctx, net, &sel, mix, &outs, save_net);
    if (rc == CLI_OK)
        rc = cli_outputs_commit(&outs);
    if (rc == CLI_OK) {
        printf("kept %d of %d atoms:", sel.kept, sel.atoms);
        for (int i = 0; i < sel.kept; i++)
            printf(" %d", sel.index[i]);
        printf("\nPSNR on %d calibration image%s: every atom %.2f dB, kept with gamma %.2f dB, "
               "kept with the re-fit matrix %.2f dB\n",
               count, count == 1 ? "" : "s", p_full, p_gamma, p_mix);
        if (to_net)
            printf("PSNR against the network's output: kept with gamma %.2f dB, kept with the "
                   "re-fit matrix %.2f dB\n",
                   n_gamma, n_mix);
    }
    clik_image_free(&rows);
    free(mix);
    for (int i = 0; im && i < count; i++)
        calib_free(&im[i]);
    free(im);
    cli_outputs_free(&outs);
    clik_lapar_net_free(net);
    clik_context_destroy(ctx);
    return rc;
}

/* ---- clik tune --------------------------------------------------------------------- */

static const char *variant_name(clik_lapar_variant v)
{
    switch (v) {
    case CLIK_LAPAR_VARIANT_UPSAMPLED: return "upsampled";
    case CLIK_LAPAR_VARIANT_LOCAL: return "local";
    case CLIK_LAPAR_VARIANT_DIRECT: return "direct";
    default: return "auto";
    }
}

/* A tuning on stdout; unstored says what one not from the store is. */
static void print_tuning(const char *what, const clik_lapar_tuning *t, const char *unstored)
{
    printf("%s: lapar_variant=%s lapar_wg_x=%d lapar_wg_y=%d", what, variant_name(t->variant),
           t->wg_x, t->wg_y);
    if (t->ms > 0)
        printf(" (%.3f ms)", t->ms);
    printf(", %s\n", t->stored ? "stored" : unstored);
}

static int tune_not_stored(clik_context *ctx, clik_status st)
{
    fprintf(stderr,
            "clik tune: lapar: the result was not stored, so later runs will not use it: %s: "
            "%s\n",
            clik_status_str(st), clik_context_message(ctx));
    return CLI_FAILED;
}

int cmd_tune(int argc, char **argv)
{
    job_options o = {NULL, NULL, NULL, "f32", 0};
    int show = 0;
    const cli_option options[] = {
        {"--scale", &o.scale, NULL}, {"--dict", &o.dict, NULL},       {"--atoms", &o.atoms, NULL},
        {"--mix", NULL, &o.mix},     {"--storage", &o.storage, NULL}, {"--show", NULL, &show},
        {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 1, 3, &args, tune_usage);
    if (rc != CLI_OK)
        return rc;
    if (strcmp(args.positional[0], "lapar") != 0) {
        fprintf(stderr, "clik tune: %s: only the lapar family has a search\n", args.positional[0]);
        return CLI_USAGE;
    }
    if (args.npositional != 3) {
        fprintf(stderr, "clik tune: missing arguments\n%s", tune_usage);
        return CLI_USAGE;
    }
    lapar_job job;
    rc = job_load(&job, "tune", &o, args.positional[1], args.positional[2]);
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    clik_image dst = {0};
    if (rc == CLI_OK) {
        clik_lapar_tuning before, best;
        clik_status st = alloc_output(&job, &dst);
        if (st == CLIK_OK)
            st = clik_lapar_tuning_get(ctx, &job.lr, &job.phi, &job.dict, job.scale, &dst, &before);
        const clik_device_info *dev = clik_context_device(ctx);
        if (st == CLIK_OK && !dev)
            st = CLIK_ERR_NO_DEVICE; /* the search times OpenCL kernels */
        if (st == CLIK_OK) {
            printf("device: %s\n", dev->name);
            print_tuning("before", &before, "the device's default");
        }
        if (st == CLIK_OK && !show) {
            st = clik_lapar_tune(ctx, &job.lr, &job.phi, &job.dict, job.scale, &dst, &best);
            /* A search whose result is not in the store has failed: storing
             * it once more says why (no cache folder, a folder that cannot
             * be written, a full disk). */
            clik_status stored = CLIK_OK;
            if (st == CLIK_OK && !best.stored)
                stored = clik_lapar_tuning_set(ctx, &job.lr, &job.phi, &job.dict, job.scale, &dst,
                                               &best);
            best.stored = st == CLIK_OK && stored == CLIK_OK;
            if (st == CLIK_OK)
                print_tuning("searched", &best, "not stored");
            if (stored != CLIK_OK)
                rc = tune_not_stored(ctx, stored);
        }
        if (st != CLIK_OK)
            rc = cli_error("tune", ctx, st, "lapar");
    }
    clik_image_free(&dst);
    job_free(&job);
    clik_context_destroy(ctx);
    return rc;
}

/* clik lapar-train: trains a LAPAR coefficient model (the upscaler without a network,
 * lib/ops/lapar_train.c). SPDX-License-Identifier: BSD-2-Clause */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"

static const char *const train_usage =
    "usage: clik lapar-train HR_DIR|HR... MODEL --scale S[,S...] [--buckets A,S,C]\n"
    "                        [--phases 0|1] [--alpha A] [--window N] [--atoms N]\n"
    "                        [--kernel 0|5|7] [--symmetry 1|2|4|8] [--min-samples N]\n"
    "                        [--storage f32|f16] [--device SPEC]\n"
    "Trains the coefficient model of clik upscale --method lapar: for each\n"
    "high-resolution image (the image files of HR_DIR in name order, or the files\n"
    "given), cropped to a multiple of S, its low-resolution input is made by the\n"
    "antialiased bicubic downscale (MATLAB imresize), upsampled by S (bicubic), and\n"
    "every pixel classified by the structure tensor of the upsample's luma into a\n"
    "bucket (angle, strength, coherence, and with --phases 1 the pixel's phase); per\n"
    "bucket the LAPAR coefficients are the ridge least-squares fit of the 5x5\n"
    "patches to the original pixels. Deterministic: the same images, options and\n"
    "device give the same MODEL, byte for byte (devices may round the downscale and\n"
    "the bucket edges differently; --device none is the scalar or NEON path).\n"
    "Several scales (--scale 2,3,4) go into one file. In HR_DIR, names like images\n"
    "that are not regular files (a pipe, a folder) are skipped with a note.\n"
    "  --buckets A,S,C   angle, strength and coherence bins (default 16,3,3)\n"
    "  --phases 0|1      the output pixel's phase in the bucket (default 0)\n"
    "  --alpha A         ridge weight, relative (default 1e-5)\n"
    "  --window N        structure-tensor window, 3, 5, 7 or 9 (default 5)\n"
    "  --atoms N         dictionary atoms used: 72 (all) or 1..25 (default 13: the\n"
    "                    72 span 13 dimensions)\n"
    "  --kernel K        0: per bucket the coefficients of --atoms dictionary atoms;\n"
    "                    5 or 7: per bucket a free KxK filter (default 0)\n"
    "  --symmetry N      free filters: buckets that the 180-degree rotation (2),\n"
    "                    with the flips (4), with the transposition (8; even\n"
    "                    angle count) map onto each other share one filter,\n"
    "                    trained as on every transformed image (default 1)\n"
    "  --min-samples N   fewer samples: the bucket takes its phase's pooled fit\n"
    "                    (default 64)\n"
    "  --storage f32     coefficients stored as 32-bit floats (default f16)\n";

#define MAX_FILES 4096

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    static const char *const ext[] = {".png", ".jpg", ".jpeg", ".ppm", ".pgm", ".pnm"};
    for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
        if (strcasecmp(dot, ext[i]) == 0)
            return 1;
    return 0;
}

/* The image files of folder dir, sorted by name, appended to files. */
static int list_folder(const char *dir, char **files, int *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "clik lapar-train: %s: cannot open the folder\n", dir);
        return CLI_FAILED;
    }
    const int first = *n;
    struct dirent *ent;
    int rc = CLI_OK;
    while ((ent = readdir(d)) && rc == CLI_OK) {
        if (ent->d_name[0] == '.' || !image_name(ent->d_name))
            continue;
        if (*n == MAX_FILES) {
            fprintf(stderr, "clik lapar-train: more than %d images\n", MAX_FILES);
            rc = CLI_FAILED;
            break;
        }
        const size_t len = strlen(dir) + strlen(ent->d_name) + 2;
        if (!(files[*n] = malloc(len))) {
            fprintf(stderr, "clik lapar-train: out of memory\n");
            rc = CLI_FAILED;
            break;
        }
        snprintf(files[*n], len, "%s/%s", dir, ent->d_name);
        /* Only regular files (or links to them): opening a pipe named like an
         * image would wait for a writer for ever, and a folder or a device is
         * no image either. stat() itself opens nothing. */
        struct stat sb;
        if (stat(files[*n], &sb) != 0 || !S_ISREG(sb.st_mode)) {
            fprintf(stderr, "clik lapar-train: %s: not a regular file; skipped\n", files[*n]);
            free(files[*n]);
            files[*n] = NULL;
            continue;
        }
        (*n)++;
    }
    closedir(d);
    qsort(files + first, (size_t)(*n - first), sizeof(char *), compare_names);
    if (rc == CLI_OK && *n == first) {
        fprintf(stderr, "clik lapar-train: %s: no image files (.png, .jpg, .ppm, .pgm)\n", dir);
        rc = CLI_FAILED;
    }
    return rc;
}

typedef struct progress_state {
    int scale, image, images;
    const char *name;
} progress_state;

static int on_progress(void *user, int stage, long done, long total)
{
    const progress_state *p = user;
    if (stage == 0)
        cli_progress("clik lapar-train: x%d: image %d of %d (%s): row %ld of %ld", p->scale,
                     p->image, p->images, p->name, done, total);
    else
        cli_progress("clik lapar-train: x%d: solving: bucket %ld of %ld", p->scale, done, total);
    return 0;
}

/* Parses "a,b,c" into up to n integers in lo..hi; returns the count, 0 on error. */
static int parse_list(const char *text, int *out, int n, long lo, long hi)
{
    int count = 0;
    const char *p = text;
    while (count < n) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || v < lo || v > hi)
            return 0;
        out[count++] = (int)v;
        if (*end == '\0')
            return count;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}

static int usage(const char *message)
{
    fprintf(stderr, "clik lapar-train: %s\n", message);
    return CLI_USAGE;
}

/* Reads one training image as 1 or 4 channels. */
static int read_training(const char *path, clik_image *img)
{
    clik_image raw;
    if (cli_read_u8("lapar-train", path, &raw, NULL) != CLI_OK)
        return CLI_FAILED;
    if (raw.channels != 2) {
        *img = raw;
        return CLI_OK;
    }
    clik_status st = rgba_expand(&raw, img);
    clik_image_free(&raw);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik lapar-train: %s: %s\n", path, clik_status_str(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

static int train_scale(clik_context *ctx, const clik_lapar_model_options *base, int scale,
                       char **files, int nfiles, clik_lapar_model **model)
{
    clik_lapar_model_options opt = *base;
    opt.scale = scale;
    progress_state ps = {scale, 0, nfiles, ""};
    opt.progress = on_progress;
    opt.progress_user = &ps;
    clik_lapar_trainer *t = NULL;
    clik_status st = clik_lapar_trainer_create(ctx, &opt, &t);
    if (st != CLIK_OK)
        return cli_error("lapar-train", ctx, st, "the options");
    int rc = CLI_OK;
    for (int i = 0; i < nfiles && rc == CLI_OK; i++) {
        clik_image img;
        ps.image = i + 1;
        ps.name = files[i];
        if ((rc = read_training(files[i], &img)) != CLI_OK)
            break;
        st = clik_lapar_trainer_add(t, &img);
        clik_image_free(&img);
        if (st != CLIK_OK)
            rc = cli_error("lapar-train", ctx, st, files[i]);
    }
    uint64_t samples = 0;
    clik_lapar_trainer_samples(t, &samples);
    if (rc == CLI_OK) {
        st = clik_lapar_trainer_solve(t, model);
        if (st != CLIK_OK)
            rc = cli_error("lapar-train", ctx, st, "solving");
    }
    cli_progress_done();
    if (rc == CLI_OK)
        fprintf(stderr, "clik lapar-train: x%d: %llu samples from %d images\n", scale,
                (unsigned long long)samples, nfiles);
    clik_lapar_trainer_free(t);
    return rc;
}

int cmd_lapar_train(int argc, char **argv)
{
    const char *scale_text = NULL, *buckets = NULL, *phases = NULL, *alpha = NULL, *window = NULL,
               *atoms = NULL, *min_samples = NULL, *storage = NULL, *kernel = NULL,
               *symmetry = NULL;
    const cli_option options[] = {{"--scale", &scale_text, NULL},
                                  {"--buckets", &buckets, NULL},
                                  {"--phases", &phases, NULL},
                                  {"--alpha", &alpha, NULL},
                                  {"--window", &window, NULL},
                                  {"--atoms", &atoms, NULL},
                                  {"--min-samples", &min_samples, NULL},
                                  {"--storage", &storage, NULL},
                                  {"--kernel", &kernel, NULL},
                                  {"--symmetry", &symmetry, NULL},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 200, &args, train_usage);
    if (rc != CLI_OK)
        return rc;
    clik_lapar_model_options opt;
    clik_lapar_model_options_init(&opt);
    int scales[3], nscales = 0;
    if (!scale_text || !(nscales = parse_list(scale_text, scales, 3, 2, 4)))
        return usage("--scale needs 2, 3 or 4, or a list of them (2,3,4)");
    for (int i = 0; i < nscales; i++)
        for (int j = 0; j < i; j++)
            if (scales[i] == scales[j])
                return usage("--scale lists a scale twice");
    int bins[3];
    if (buckets) {
        if (parse_list(buckets, bins, 3, 1, CLIK_LAPAR_MODEL_MAX_BINS) != 3)
            return usage("--buckets needs three counts A,S,C, each 1 to 32");
        opt.angles = bins[0];
        opt.strengths = bins[1];
        opt.coherences = bins[2];
    }
    if (phases && !cli_parse_count(phases, 0, 1, &opt.phases))
        return usage("--phases needs 0 or 1");
    if (alpha && (!cli_parse_number(alpha, &opt.alpha) || opt.alpha < 0))
        return usage("--alpha needs a number >= 0");
    if (window && (!cli_parse_count(window, 3, 9, &opt.window) || opt.window % 2 == 0))
        return usage("--window needs 3, 5, 7 or 9");
    if (atoms && (!cli_parse_count(atoms, 1, CLIK_LAPAR_ATOMS, &opt.atoms) ||
                  (opt.atoms > CLIK_LAPAR_TAPS && opt.atoms != CLIK_LAPAR_ATOMS)))
        return usage("--atoms needs 72 or 1 to 25");
    if (kernel && (!cli_parse_count(kernel, 0, 7, &opt.kernel) ||
                   (opt.kernel != 0 && opt.kernel != 5 && opt.kernel != 7)))
        return usage("--kernel needs 0, 5 or 7");
    if (symmetry && (!cli_parse_count(symmetry, 1, 8, &opt.symmetry) ||
                     (opt.symmetry & (opt.symmetry - 1)) != 0))
        return usage("--symmetry needs 1, 2, 4 or 8");
    if (min_samples && !cli_parse_count(min_samples, 0, 1L << 30, &opt.min_samples))
        return usage("--min-samples needs a count");
    if (storage) {
        if (strcmp(storage, "f16") != 0 && strcmp(storage, "f32") != 0)
            return usage("--storage needs f32 or f16");
        opt.f16 = strcmp(storage, "f16") == 0;
    }
    const char *model_path = args.positional[args.npositional - 1];
    char **files = calloc(MAX_FILES, sizeof(char *));
    if (!files) {
        fprintf(stderr, "clik lapar-train: out of memory\n");
        return CLI_FAILED;
    }
    int nfiles = 0;
    for (int i = 0; i < args.npositional - 1 && rc == CLI_OK; i++) {
        struct stat sb;
        if (stat(args.positional[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            rc = list_folder(args.positional[i], files, &nfiles);
        } else if (nfiles == MAX_FILES) {
            fprintf(stderr, "clik lapar-train: more than %d images\n", MAX_FILES);
            rc = CLI_FAILED;
        } else if (!(files[nfiles++] = strdup(args.positional[i]))) {
            fprintf(stderr, "clik lapar-train: out of memory\n");
            rc = CLI_FAILED;
        }
    }
    cli_outputs outs;
    cli_outputs_init(&outs, "lapar-train");
    if (rc == CLI_OK)
        rc = cli_outputs_plan(&outs, (const char *const *)files, nfiles, &model_path, 1);
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(args.device, &ctx);
    clik_lapar_model *model = NULL;
    double t0 = cli_seconds();
    for (int i = 0; i < nscales && rc == CLI_OK; i++) {
        clik_lapar_model *one = NULL;
        rc = train_scale(ctx, &opt, scales[i], files, nfiles, &one);
        if (rc == CLI_OK && model) {
            clik_lapar_model *both = NULL;
            clik_status st = clik_lapar_model_combine(ctx, model, one, &both);
            clik_lapar_model_free(one);
            if (st != CLIK_OK)
                rc = cli_error("lapar-train", ctx, st, "combining the scales");
            clik_lapar_model_free(model);
            model = both;
        } else if (rc == CLI_OK) {
            model = one;
        }
    }
    void *bytes = NULL;
    size_t size = 0;
    if (rc == CLI_OK) {
        clik_status st = clik_lapar_model_write(ctx, model, NULL, 0, &size);
        if (st == CLIK_OK && !(bytes = malloc(size)))
            st = CLIK_ERR_NO_MEMORY;
        if (st == CLIK_OK)
            st = clik_lapar_model_write(ctx, model, bytes, size, &size);
        rc = st != CLIK_OK ? cli_error("lapar-train", ctx, st, model_path)
                           : cli_outputs_stage_bytes(&outs, 0, bytes, size);
    }
    if (rc == CLI_OK)
        rc = cli_outputs_commit(&outs);
    if (rc == CLI_OK)
        fprintf(stderr, "clik lapar-train: wrote %s (%zu bytes) in %.1f s\n", model_path, size,
                cli_seconds() - t0);
    free(bytes);
    clik_lapar_model_free(model);
    cli_outputs_free(&outs);
    clik_context_destroy(ctx);
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    return rc;
}

/* Shared pieces of the clik subcommands. SPDX-License-Identifier: BSD-2-Clause */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "imageio.h"

int cli_parse(int argc, char **argv, const cli_option *options, int min_pos, int max_pos,
              cli_args *args, const char *usage)
{
    memset(args, 0, sizeof(*args));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            args->help = 1;
            printf("%s", usage);
            return CLI_OK;
        }
        if (strcmp(a, "--device") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "clik %s: --device needs a value\n%s", argv[0], usage);
                return CLI_USAGE;
            }
            args->device = argv[++i];
            continue;
        }
        if (strncmp(a, "--", 2) == 0 && a[2] != '\0') {
            const cli_option *o = options;
            while (o && o->name && strcmp(o->name, a) != 0)
                o++;
            if (!o || !o->name) {
                fprintf(stderr, "clik %s: unknown option %s\n%s", argv[0], a, usage);
                return CLI_USAGE;
            }
            if (o->flag) {
                *o->flag = 1;
            } else {
                if (i + 1 >= argc) {
                    fprintf(stderr, "clik %s: %s needs a value\n%s", argv[0], a, usage);
                    return CLI_USAGE;
                }
                *o->value = argv[++i];
            }
            continue;
        }
        if (args->npositional == (int)(sizeof(args->positional) / sizeof(args->positional[0])) ||
            args->npositional == max_pos) {
            fprintf(stderr, "clik %s: unexpected argument %s\n%s", argv[0], a, usage);
            return CLI_USAGE;
        }
        args->positional[args->npositional++] = a;
    }
    if (args->npositional < min_pos) {
        fprintf(stderr, "clik %s: missing arguments\n%s", argv[0], usage);
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_context(const char *device, clik_context **ctx)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = device;
    clik_status st = clik_context_create(ctx, &opt);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik: cannot open device: %s: %s\n", clik_status_str(st),
                clik_context_message(NULL));
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_error(const char *cmd, clik_context *ctx, clik_status st, const char *what)
{
    const char *detail = ctx ? clik_context_message(ctx) : "";
    fprintf(stderr, "clik %s: %s: %s%s%s\n", cmd, what, clik_status_str(st), *detail ? ": " : "",
            detail);
    return CLI_FAILED;
}

static int progress_shown;

void cli_progress(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
    progress_shown = 1;
}

void cli_progress_done(void)
{
    if (progress_shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        progress_shown = 0;
    }
}

int cli_parse_size(const char *text, int *width, int *height)
{
    char *end;
    long w = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X'))
        return 0;
    const char *h_text = end + 1;
    long h = strtol(h_text, &end, 10);
    if (end == h_text || *end != '\0' || w <= 0 || h <= 0 || w > (1 << 20) || h > (1 << 20))
        return 0;
    *width = (int)w;
    *height = (int)h;
    return 1;
}

/* A whole argument read as a finite number; returns 1 on success. */
int cli_parse_number(const char *text, double *value)
{
    char *end;
    double v = text ? strtod(text, &end) : 0;
    if (!text || end == text || *end || !isfinite(v))
        return 0;
    *value = v;
    return 1;
}

/* A whole argument read as an integer in lo..hi; returns 1 on success. */
int cli_parse_count(const char *text, long lo, long hi, int *value)
{
    char *end;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || end == text || *end || v < lo || v > hi)
        return 0;
    *value = (int)v;
    return 1;
}

int cli_read_u8(const char *cmd, const char *path, clik_image *img, int *had_alpha)
{
    char err[512];
    clik_status st = clikio_read(path, img, had_alpha, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", cmd, err);
        return CLI_FAILED;
    }
    if (img->type != CLIK_U8) {
        fprintf(stderr, "clik %s: %s: needs 8-bit pixels, not %s\n", cmd, path,
                clik_type_name(img->type));
        clik_image_free(img);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_write_image(const char *cmd, const char *path, const clik_image *img, int keep_alpha)
{
    char err[512];
    clik_status st = clikio_write(path, img, keep_alpha, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", cmd, err);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* ---- output sets ------------------------------------------------------------------ */

/* One file of a set and its identity on disk. A file that exists is its
 * device and inode, so that links and spellings such as "x", "./x" and
 * "d/../x" of one file compare equal; a name with no file yet is its folder's
 * device and inode and the name in that folder, which is what rename() will
 * fill. */
struct cli_file {
    char *path;
    int output;
    int known;        /* 0: neither the file nor its folder was found */
    int folder;       /* the path names an existing folder */
    dev_t dev;        /* of the file, or of its folder */
    ino_t ino;        /* likewise */
    const char *name; /* NULL for an existing file, else its name in the folder */
    clikio_staged staged;
    int existed; /* outputs: something was at path just before the commit */
};

static void identify(struct cli_file *f)
{
    struct stat st;
    f->known = stat(f->path, &st) == 0;
    if (f->known) {
        f->folder = S_ISDIR(st.st_mode);
    } else if (errno == ENOENT) {
        const char *slash = strrchr(f->path, '/');
        char *dir = slash ? strndup(f->path, (size_t)(slash - f->path) + 1) : NULL;
        f->name = slash ? slash + 1 : f->path;
        f->known = *f->name && (dir || !slash) && stat(dir ? dir : ".", &st) == 0;
        free(dir);
    }
    /* Unknown files take part in no check: reading or writing them fails
     * later with its own message (a folder that does not exist, say). */
    if (f->known) {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
    }
}

void cli_outputs_init(cli_outputs *set, const char *cmd)
{
    memset(set, 0, sizeof(*set));
    set->cmd = cmd;
}

static int add_file(cli_outputs *set, const char *path, int output)
{
    struct cli_file **list = output ? &set->outputs : &set->inputs;
    int *n = output ? &set->noutputs : &set->ninputs;
    int *cap = output ? &set->output_cap : &set->input_cap;
    if (*n == *cap) {
        struct cli_file *more = NULL;
        if (*cap < INT_MAX / 2)
            more = realloc(*list, sizeof(**list) * (size_t)(*cap ? 2 * *cap : 8));
        if (!more) {
            fprintf(stderr, "clik %s: out of memory\n", set->cmd);
            return CLI_FAILED;
        }
        *list = more;
        *cap = *cap ? 2 * *cap : 8;
    }
    struct cli_file *f = &(*list)[*n];
    memset(f, 0, sizeof(*f));
    if (!(f->path = strdup(path))) {
        fprintf(stderr, "clik %s: out of memory\n", set->cmd);
        return CLI_FAILED;
    }
    f->output = output;
    identify(f);
    (*n)++;
    return CLI_OK;
}

int cli_outputs_input(cli_outputs *set, const char *path)
{
    return add_file(set, path, 0);
}

int cli_outputs_add(cli_outputs *set, const char *path)
{
    return add_file(set, path, 1);
}

static int compare_files(const void *a, const void *b)
{
    const struct cli_file *x = *(const struct cli_file *const *)a;
    const struct cli_file *y = *(const struct cli_file *const *)b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    if (!x->name || !y->name)
        return (x->name != NULL) - (y->name != NULL);
    return strcmp(x->name, y->name);
}

int cli_outputs_check(const cli_outputs *set)
{
    size_t total = (size_t)set->ninputs + (size_t)set->noutputs, n = 0;
    const struct cli_file **all = malloc(sizeof(*all) * (total ? total : 1));
    if (!all) {
        fprintf(stderr, "clik %s: out of memory\n", set->cmd);
        return CLI_FAILED;
    }
    for (int i = 0; i < set->ninputs; i++)
        if (set->inputs[i].known)
            all[n++] = &set->inputs[i];
    for (int i = 0; i < set->noutputs; i++)
        if (set->outputs[i].known)
            all[n++] = &set->outputs[i];
    /* Sorting puts one file's entries next to each other; in a run of them
     * that holds an output, that output is next to another of the run, so
     * comparing neighbours finds every clash. Inputs may repeat. */
    qsort(all, n, sizeof(*all), compare_files);
    int rc = CLI_OK;
    for (size_t k = 1; k < n && rc == CLI_OK; k++) {
        const struct cli_file *a = all[k - 1], *b = all[k];
        if ((!a->output && !b->output) || compare_files(&all[k - 1], &all[k]) != 0)
            continue;
        if (a->output && b->output)
            fprintf(stderr, "clik %s: the outputs %s and %s are one file; each needs its own\n",
                    set->cmd, a->path, b->path);
        else
            fprintf(stderr, "clik %s: the output %s is the input %s; name another output\n",
                    set->cmd, a->output ? a->path : b->path, a->output ? b->path : a->path);
        rc = CLI_USAGE;
    }
    free(all);
    /* A folder cannot be replaced by a file: found now, it fails the
     * command before the work rather than at the last rename. */
    for (int i = 0; i < set->noutputs && rc == CLI_OK; i++)
        if (set->outputs[i].folder) {
            fprintf(stderr, "clik %s: %s is a folder; the output needs a file name\n", set->cmd,
                    set->outputs[i].path);
            rc = CLI_FAILED;
        }
    return rc;
}

int cli_outputs_stage(cli_outputs *set, int index, const clik_image *img, int keep_alpha)
{
    struct cli_file *f = &set->outputs[index];
    char err[512];
    clikio_discard(&f->staged); /* a second stage of one output replaces the first */
    if (clikio_stage(f->path, img, keep_alpha, &f->staged, err, sizeof(err)) != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", set->cmd, err);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_outputs_stage_bytes(cli_outputs *set, int index, const void *data, size_t size)
{
    struct cli_file *f = &set->outputs[index];
    char err[512];
    clikio_discard(&f->staged);
    if (clikio_stage_bytes(f->path, data, size, &f->staged, err, sizeof(err)) != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", set->cmd, err);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_outputs_commit(cli_outputs *set)
{
    char err[512];
    int done = 0;
    for (; done < set->noutputs; done++) {
        struct cli_file *f = &set->outputs[done];
        struct stat st;
        /* What is at the name now is the user's, so a failure further on
         * may remove only what this loop put where nothing was. */
        f->existed = lstat(f->path, &st) == 0;
        if (clikio_commit(&f->staged, err, sizeof(err)) != CLIK_OK) {
            fprintf(stderr, "clik %s: %s\n", set->cmd, err);
            break;
        }
    }
    if (done == set->noutputs)
        return CLI_OK;
    while (done-- > 0)
        if (!set->outputs[done].existed)
            unlink(set->outputs[done].path);
    return CLI_FAILED;
}

void cli_outputs_free(cli_outputs *set)
{
    for (int i = 0; i < set->noutputs; i++) {
        clikio_discard(&set->outputs[i].staged);
        free(set->outputs[i].path);
    }
    for (int i = 0; i < set->ninputs; i++)
        free(set->inputs[i].path);
    free(set->outputs);
    free(set->inputs);
    cli_outputs_init(set, set->cmd);
}

int cli_outputs_plan(cli_outputs *set, const char *const *inputs, int ninputs,
                     const char *const *outputs, int noutputs)
{
    int rc = CLI_OK;
    for (int i = 0; i < ninputs && rc == CLI_OK; i++)
        if (inputs[i])
            rc = cli_outputs_input(set, inputs[i]);
    for (int i = 0; i < noutputs && rc == CLI_OK; i++)
        if (outputs[i])
            rc = cli_outputs_add(set, outputs[i]);
    return rc == CLI_OK ? cli_outputs_check(set) : rc;
}

int cli_outputs_read(cli_outputs *set, int rc, const char *path, clik_image *img, int *had_alpha)
{
    if (rc == CLI_OK)
        rc = cli_read_u8(set->cmd, path, img, had_alpha);
    if (rc != CLI_OK)
        cli_outputs_free(set);
    return rc;
}

clik_status cli_luma(clik_context *ctx, const clik_image *img, clik_image *luma)
{
    clik_status st = clik_image_alloc(luma, img->width, img->height, 1, CLIK_U8);
    if (st != CLIK_OK || img->channels == 4)
        return st != CLIK_OK ? st : clik_gray(ctx, img, luma);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *in = (const uint8_t *)img->data + (size_t)y * img->stride;
        uint8_t *out = (uint8_t *)luma->data + (size_t)y * luma->stride;
        for (int x = 0; x < img->width; x++)
            out[x] = in[(size_t)x * (size_t)img->channels];
    }
    return CLIK_OK;
}

/* ---- one image in, one image out ------------------------------------------------------- */

/* The steps after IN is read; frees the images. */
static int run_image_op(const cli_image_op *op, cli_image_io *io)
{
    int rc = op->prepare ? op->prepare(io) : CLI_OK;
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(io->device, &ctx);
    if (rc == CLI_OK) {
        clik_image *result = io->out.data ? &io->out : &io->img;
        clik_status st = op->run ? op->run(ctx, io) : op->apply(ctx, &io->img, result);
        if (st != CLIK_OK)
            rc = cli_error(op->cmd, ctx, st, io->in_path);
        else if (io->out_path)
            rc = cli_write_image(op->cmd, io->out_path, result, io->had_alpha);
    }
    clik_context_destroy(ctx);
    clik_image_free(&io->out);
    clik_image_free(&io->img);
    return rc;
}

int cli_image_main(const cli_image_op *op, int argc, char **argv, const cli_option *options,
                   void *data)
{
    cli_args args;
    int rc = cli_parse(argc, argv, options, op->npositional, op->npositional, &args, op->usage);
    if (rc != CLI_OK || args.help)
        return rc;
    cli_image_io io = {.device = args.device,
                       .in_path = args.positional[0],
                       .out_path = op->npositional > 1 ? args.positional[1] : NULL,
                       .data = data};
    if (op->check && (rc = op->check(&io)) != CLI_OK)
        return rc;
    if (cli_read_u8(op->cmd, io.in_path, &io.img, &io.had_alpha) != CLI_OK)
        return CLI_FAILED;
    return run_image_op(op, &io);
}

/* ---- numbered frame sequences ---------------------------------------------------------- */

int cli_is_pattern(const char *name)
{
    char out[CLI_NAME_CAP];
    return name && cli_numbered_path(name, 0, out, sizeof(out));
}

static int frame_exists(const char *pattern, int index)
{
    char name[CLI_NAME_CAP];
    return cli_numbered_path(pattern, index, name, sizeof(name)) && access(name, F_OK) == 0;
}

void cli_count_frames(const char *pattern, int start, int *first, int *count)
{
    *first = start >= 0 ? start : frame_exists(pattern, 0) ? 0 : 1;
    *count = 0;
    while (*count < INT_MAX - *first && frame_exists(pattern, *first + *count))
        (*count)++;
}

double cli_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int cli_numbered_path(const char *pattern, int index, char *out, size_t cap)
{
    size_t n = 0;
    int conversions = 0;
    if (index < 0 || cap == 0)
        return 0;
    for (const char *p = pattern; *p; p++) {
        char piece[16];
        size_t len = 1;
        piece[0] = *p;
        if (*p == '%') {
            if (p[1] == '%') {
                p++;
            } else {
                /* %d, %Nd or %0Nd: the pattern is read here, never passed to printf. */
                const char *q = p + 1;
                int zero = *q == '0';
                q += zero;
                int width = 0;
                if (*q >= '1' && *q <= '9')
                    width = *q++ - '0';
                if (*q != 'd' || conversions++)
                    return 0;
                char digits[16];
                int nd = 0;
                unsigned v = (unsigned)index;
                do {
                    digits[nd++] = (char)('0' + v % 10);
                    v /= 10;
                } while (v);
                len = 0;
                for (int pad = nd; pad < width; pad++)
                    piece[len++] = zero ? '0' : ' ';
                while (nd)
                    piece[len++] = digits[--nd];
                p = q;
            }
        }
        if (n + len >= cap)
            return 0;
        memcpy(out + n, piece, len);
        n += len;
    }
    out[n] = '\0';
    return conversions == 1;
}

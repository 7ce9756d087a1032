/* Shared pieces of the clik subcommands. SPDX-License-Identifier: BSD-2-Clause */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "imageio.h"

/* ---- options ---------------------------------------------------------------------- */

/* The tool's options that every command takes, before or after its name. */
static struct {
    const char *device; /* --device: NULL for $CLIK_DEVICE, else auto */
    int verbose;        /* -v, --verbose */
} globals;

/* 1 when arg is the option name, alone or as "name=value" (*inline_value
 * then points past the '='; else NULL). */
static int option_is(const char *arg, const char *name, const char **inline_value)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
        return 0;
    *inline_value = arg[n] == '=' ? arg + n + 1 : NULL;
    return 1;
}

/* The value of the option at argv[*i]: the part after its '=', else the next
 * argument (*i moves past it). Prints the problem and returns CLI_USAGE when
 * there is none. */
static int option_value(int argc, char **argv, int *i, const char *inline_value, const char *who,
                        const char *name, const char *usage, const char **value)
{
    if (inline_value) {
        *value = inline_value;
        return CLI_OK;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n%s", who, name, usage);
        return CLI_USAGE;
    }
    *value = argv[++*i];
    return CLI_OK;
}

int cli_global_option(int argc, char **argv, int *i, const char *who, const char *usage)
{
    const char *a = argv[*i], *inline_value = NULL, *value = NULL;
    if (strcmp(a, "-v") == 0 || option_is(a, "--verbose", &inline_value)) {
        if (a[1] == '-' && inline_value) {
            fprintf(stderr, "%s: --verbose takes no value\n%s", who, usage);
            return CLI_USAGE;
        }
        globals.verbose = 1;
        return CLI_OK;
    }
    if (option_is(a, "--device", &inline_value))
        return option_value(argc, argv, i, inline_value, who, "--device", usage, &globals.device);
    if (option_is(a, "--raw-orientation", &inline_value)) {
        if (inline_value) {
            fprintf(stderr, "%s: --raw-orientation takes no value\n%s", who, usage);
            return CLI_USAGE;
        }
        clikio_set_jpeg_orientation(0);
        return CLI_OK;
    }
    if (option_is(a, "--order", &inline_value)) {
        int rc = option_value(argc, argv, i, inline_value, who, "--order", usage, &value);
        if (rc != CLI_OK)
            return rc;
        if (strcmp(value, "rgb") == 0 || strcmp(value, "bgr") == 0) {
            clikio_set_npy_order(value[0] == 'b' ? CLIK_ORDER_BGR : CLIK_ORDER_RGB);
            return CLI_OK;
        }
        fprintf(stderr, "%s: --order %s: expected rgb or bgr (the colour order of .npy arrays)\n%s",
                who, value, usage);
        return CLI_USAGE;
    }
    if (option_is(a, "--png-level", &inline_value)) {
        int rc = option_value(argc, argv, i, inline_value, who, "--png-level", usage, &value);
        int level;
        if (rc == CLI_OK && !cli_parse_count(value, 0, 9, &level)) {
            fprintf(stderr,
                    "%s: --png-level %s: expected a whole number in 0..9 (0: no compression, "
                    "9: the smallest files)\n%s",
                    who, value, usage);
            rc = CLI_USAGE;
        }
        if (rc == CLI_OK)
            clikio_set_png_level(level);
        return rc;
    }
    return -1;
}

int cli_option_takes_value(const cli_option *options, const char *arg)
{
    const char *inline_value = NULL;
    if (option_is(arg, "--device", &inline_value) || option_is(arg, "--png-level", &inline_value) ||
        option_is(arg, "--order", &inline_value))
        return !inline_value;
    for (const cli_option *o = options; o && o->name; o++)
        if (o->value && option_is(arg, o->name, &inline_value))
            return !inline_value;
    return 0;
}

const char cli_global_help[] =
    "Options of every command, before or after its name (--option=value works too):\n"
    "  --device SPEC    auto (default: $CLIK_DEVICE, else a GPU, else a CPU device), gpu,\n"
    "                   cpu, none (the C path), P:D (platform:device) or part of a name;\n"
    "                   clik devices lists them\n"
    "  --png-level N    PNG compression, 0 (none) to 9 (smallest, slowest); 1 (default)\n"
    "                   is as fast as OpenCV's imwrite, 6 is libpng's default\n"
    "  --raw-orientation  JPEG input as stored, not turned upright by its EXIF\n"
    "                   Orientation (phone photos)\n"
    "  --order rgb|bgr  the colour order of 3- and 4-channel .npy arrays, in and out: rgb\n"
    "                   (default, as image files) or bgr (OpenCV's arrays); image files\n"
    "                   are RGB(A)\n"
    "  -v, --verbose    after each operation, the device, the backend that ran, the kernel\n"
    "                   programs compiled and the time it took\n"
    "Images in are read by their first bytes (the extension where those name no format;\n"
    "- is standard input); images out are written by extension (- is PNG on standard\n"
    "output, EXT:- another format: pgm:-, ppm:-, jpg:-, npy:-).\n";

int cli_parse(int argc, char **argv, const cli_option *options, int min_pos, int max_pos,
              cli_args *args, const char *usage)
{
    char who[64];
    snprintf(who, sizeof(who), "clik %s", argv[0]);
    memset(args, 0, sizeof(*args));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *inline_value = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("%s\n%s", usage, cli_global_help);
            return CLI_HELP;
        }
        int rc = cli_global_option(argc, argv, &i, who, usage);
        if (rc >= 0) {
            if (rc != CLI_OK)
                return rc;
            continue;
        }
        if (strncmp(a, "--", 2) == 0 && a[2] != '\0') {
            const cli_option *o = options;
            while (o && o->name && !option_is(a, o->name, &inline_value))
                o++;
            if (!o || !o->name) {
                fprintf(stderr, "%s: unknown option %s\n%s", who, a, usage);
                return CLI_USAGE;
            }
            if (o->flag) {
                if (inline_value) {
                    fprintf(stderr, "%s: %s takes no value\n%s", who, o->name, usage);
                    return CLI_USAGE;
                }
                *o->flag = 1;
            } else if ((rc = option_value(argc, argv, &i, inline_value, who, o->name, usage,
                                          o->value)) != CLI_OK) {
                return rc;
            }
            continue;
        }
        if (args->npositional == (int)(sizeof(args->positional) / sizeof(args->positional[0])) ||
            args->npositional == max_pos) {
            fprintf(stderr, "%s: unexpected argument %s\n%s", who, a, usage);
            return CLI_USAGE;
        }
        args->positional[args->npositional++] = a;
    }
    if (args->npositional < min_pos) {
        fprintf(stderr, "%s: missing arguments\n%s", who, usage);
        return CLI_USAGE;
    }
    args->device = globals.device;
    return CLI_OK;
}

/* ---- devices and contexts ------------------------------------------------------------ */

static const char *device_type_name(clik_device_type t)
{
    switch (t) {
    case CLIK_DEVICE_GPU: return "GPU";
    case CLIK_DEVICE_CPU: return "CPU";
    case CLIK_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

void cli_print_device(FILE *out, const clik_device_info *d)
{
    fprintf(out, "  %d:%d  %s  [%s]\n", d->platform_index, d->device_index, d->name,
            device_type_name(d->type));
}

/* After a selection that matched nothing: the devices there are. */
static void list_devices_instead(void)
{
    clik_device_info *list = NULL;
    int count = 0;
    if (clik_devices_list(&list, &count) != CLIK_OK)
        count = 0;
    if (count > 0) {
        fprintf(stderr, "clik: the OpenCL devices here (--device P:D, or part of a name):\n");
        for (int i = 0; i < count; i++)
            cli_print_device(stderr, &list[i]);
    } else {
        fprintf(stderr, "clik: there is no OpenCL device here\n");
    }
    fprintf(stderr, "clik: `clik devices` tells more; --device none runs on the CPU\n");
    clik_devices_free(list);
}

void cli_device_not_found(clik_status st)
{
    if (st == CLIK_ERR_NO_DEVICE)
        list_devices_instead();
}

/* Before the first compile of the run, on a terminal: what the wait is. */
static void compile_notice(void *user, const char *program, const char *device)
{
    static int shown;
    (void)user;
    if (shown || globals.verbose || !isatty(STDERR_FILENO))
        return;
    shown = 1;
    cli_progress_done();
    fprintf(stderr,
            "clik: compiling OpenCL programs for %s (first use: seconds; the kernel cache keeps "
            "them, and `clik warmup` compiles ahead) [%s]\n",
            device, program);
}

int cli_context(const char *device, clik_context **ctx)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = device;
    opt.compile = compile_notice;
    clik_status st = clik_context_create(ctx, &opt);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik: cannot open device: %s: %s\n", clik_status_str(st),
                clik_context_message(NULL));
        cli_device_not_found(st);
        return CLI_FAILED;
    }
    return CLI_OK;
}

void cli_op_start(clik_context *ctx, cli_op_clock *clock)
{
    clik_context_stats_get(ctx, &clock->stats);
    clock->start = cli_seconds();
}

void cli_op_done(const char *cmd, clik_context *ctx, const cli_op_clock *clock, const char *what)
{
    static int noted; /* the terminal note is shown once */
    double ms = 1e3 * (cli_seconds() - clock->start);
    clik_context_stats now;
    clik_context_stats_get(ctx, &now);
    const clik_device_info *d = clik_context_device(ctx);
    unsigned built = now.programs_built - clock->stats.programs_built;
    char device[320];
    if (d)
        snprintf(device, sizeof(device), "%d:%d %s", d->platform_index, d->device_index, d->name);
    else
        snprintf(device, sizeof(device), "the CPU");
    if (globals.verbose) {
        cli_progress_done();
        fprintf(stderr,
                "clik %s: %s: %s backend on %s; programs %u compiled, %u from the disk cache, "
                "%u reused%s; %.1f ms\n",
                cmd, what, clik_backend_name(clik_context_last_backend(ctx)), device, built,
                now.programs_from_disk - clock->stats.programs_from_disk,
                now.programs_reused - clock->stats.programs_reused,
                now.fallbacks != clock->stats.fallbacks ? "; fell back to the CPU" : "", ms);
    } else if (built > 0 && !noted && isatty(STDERR_FILENO)) {
        noted = 1;
        cli_progress_done();
        fprintf(stderr, "clik: compiled %u OpenCL program%s for %s (the operation took %.2f s)%s\n",
                built, built == 1 ? "" : "s", device, ms / 1e3,
                now.cache_written != clock->stats.cache_written
                    ? "; the kernel cache keeps them for later runs"
                    : "");
    }
}

int cli_error(const char *cmd, clik_context *ctx, clik_status st, const char *what)
{
    const char *detail = ctx ? clik_context_message(ctx) : "";
    fprintf(stderr, "clik %s: %s: %s%s%s\n", cmd, what, clik_status_str(st), *detail ? ": " : "",
            detail);
    return CLI_FAILED;
}

int cli_op_end(const char *cmd, clik_context *ctx, const cli_op_clock *clock, clik_status st,
               const char *what)
{
    cli_op_done(cmd, ctx, clock, what);
    return st == CLIK_OK ? CLI_OK : cli_error(cmd, ctx, st, what);
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

int cli_parse_choice(const char *cmd, const char *option, const char *text,
                     const char *const *names, int n, int *index)
{
    for (int i = 0; i < n; i++)
        if (strcmp(text, names[i]) == 0) {
            *index = i;
            return CLI_OK;
        }
    fprintf(stderr, "clik %s: %s %s: expected", cmd, option, text);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i == 0 ? "" : i == n - 1 ? " or" : ",", names[i]);
    fprintf(stderr, "\n");
    return CLI_USAGE;
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
};

static void identify(struct cli_file *f)
{
    struct stat st;
    if (strcmp(f->path, "-") == 0 || (f->output && clikio_is_stdout(f->path)))
        return; /* standard input or output: no file to compare */
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
    int to_stdout = 0;
    for (int i = 0; i < set->noutputs; i++)
        to_stdout += clikio_is_stdout(set->outputs[i].path);
    if (rc == CLI_OK && to_stdout > 1) {
        fprintf(stderr, "clik %s: only one output can go to standard output (-)\n", set->cmd);
        rc = CLI_USAGE;
    }
    /* A folder cannot be replaced by a file, nor another user's file in a
     * sticky folder: found now, they fail the command before the work
     * rather than at a rename. */
    for (int i = 0; i < set->noutputs && rc == CLI_OK; i++) {
        char err[512];
        if (set->outputs[i].folder) {
            fprintf(stderr, "clik %s: %s is a folder; the output needs a file name\n", set->cmd,
                    set->outputs[i].path);
            rc = CLI_FAILED;
        } else if (clikio_check_replaceable(set->outputs[i].path, err, sizeof(err)) != CLIK_OK) {
            fprintf(stderr, "clik %s: %s; nothing was written\n", set->cmd, err);
            rc = CLI_FAILED;
        }
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
    char err[1024];
    clikio_staged **staged = malloc(sizeof(*staged) * (size_t)(set->noutputs ? set->noutputs : 1));
    if (!staged) {
        fprintf(stderr, "clik %s: out of memory\n", set->cmd);
        return CLI_FAILED;
    }
    for (int i = 0; i < set->noutputs; i++)
        staged[i] = &set->outputs[i].staged;
    clik_status st = clikio_commit_all(staged, (size_t)set->noutputs, err, sizeof(err));
    free(staged);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", set->cmd, err);
        return CLI_FAILED;
    }
    return CLI_OK;
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

int cli_outputs_finish(cli_outputs *set, int rc)
{
    if (rc == CLI_OK)
        rc = cli_outputs_commit(set);
    cli_outputs_free(set);
    return rc;
}

/* Frees img and each image ap lists after it, up to a NULL. */
static void free_image_list(clik_image *img, va_list ap)
{
    for (; img; img = va_arg(ap, clik_image *))
        clik_image_free(img);
}

clik_status cli_image_ensure(clik_context *ctx, clik_image *img, int width, int height,
                             int channels, clik_type type)
{
    if ((img->data || img->buffer) && img->width == width && img->height == height &&
        img->channels == channels && img->type == type)
        return CLIK_OK;
    clik_image_free(img);
    return ctx ? clik_image_create(ctx, img, width, height, channels, type)
               : clik_image_alloc(img, width, height, channels, type);
}

void cli_images_free(clik_image *img, ...)
{
    va_list ap;
    va_start(ap, img);
    free_image_list(img, ap);
    va_end(ap);
}

int cli_finish(cli_outputs *set, int rc, clik_context *ctx, ...)
{
    rc = cli_outputs_finish(set, rc);
    clik_context_destroy(ctx);
    va_list ap;
    va_start(ap, ctx);
    free_image_list(va_arg(ap, clik_image *), ap);
    va_end(ap);
    return rc;
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
    if (st != CLIK_OK || img->channels >= 3)
        return st != CLIK_OK ? st : clik_gray(ctx, img, luma);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *in = (const uint8_t *)img->data + (size_t)y * img->stride;
        uint8_t *out = (uint8_t *)luma->data + (size_t)y * luma->stride;
        for (int x = 0; x < img->width; x++)
            out[x] = in[(size_t)x * (size_t)img->channels];
    }
    return CLIK_OK;
}

int cli_load_net(clik_context *ctx, const char *cmd, const char *name, const char *model, int scale,
                 clik_lapar_net **net)
{
    clik_status st = model ? clik_lapar_net_load(ctx, model, net)
                           : clik_lapar_net_builtin(ctx, name, scale, net);
    if (st != CLIK_OK)
        return cli_error(cmd, ctx, st, model ? model : name);
    clik_lapar_net_info info;
    clik_lapar_net_describe(*net, &info);
    if (info.scale != scale) {
        fprintf(stderr, "clik %s: %s is a x%d network, not x%d\n", cmd, model ? model : name,
                info.scale, scale);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* ---- one image in, one image out ------------------------------------------------------- */

/* The steps after IN is read; frees the images. */
/* IN for an operation that takes f32: u8 as it is, u16 as f32 / 257, f32
 * as it is; anything else refused. */
static int read_u8_or_f32(cli_image_io *io)
{
    const char *cmd = io->cmd;
    char err[512];
    clik_image *img = &io->img;
    clik_status st = clikio_read(io->in_path, img, &io->had_alpha, err, sizeof(err));
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", cmd, err);
        return CLI_FAILED;
    }
    if (img->type == CLIK_U8 || img->type == CLIK_F32)
        return CLI_OK;
    clik_image f;
    if (img->type != CLIK_U16 ||
        (st = clik_image_alloc(&f, img->width, img->height, img->channels, CLIK_F32)) != CLIK_OK) {
        fprintf(stderr, "clik %s: %s: %s\n", cmd, io->in_path,
                img->type != CLIK_U16 ? "needs 8- or 16-bit samples or f32" : clik_status_str(st));
        clik_image_free(img);
        return CLI_FAILED;
    }
    const size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        const uint16_t *in =
            (const uint16_t *)(const void *)((const char *)img->data + (size_t)y * img->stride);
        float *out = (float *)(void *)((char *)f.data + (size_t)y * f.stride);
        for (size_t i = 0; i < n; i++)
            out[i] = (float)in[i] / 257.0f;
    }
    clik_image_free(img);
    *img = f;
    io->wide = 1;
    return CLI_OK;
}

/* An f32 result for an image file: u16 (x 257) after a 16-bit IN, else u8,
 * rounded and clamped; *use is result itself where it needs nothing. */
static int image_of_result(const char *cmd, const cli_image_io *io, const clik_image *result,
                           clik_image *tmp, const clik_image **use)
{
    *use = result;
    if (result->type != CLIK_F32 || clikio_writes_npy(io->out_path)) /* .npy: f32 */
        return CLI_OK;
    const clik_type t = io->wide ? CLIK_U16 : CLIK_U8;
    const float scale = io->wide ? 257.0f : 1.0f, top = io->wide ? 65535.0f : 255.0f;
    clik_status st = clik_image_alloc(tmp, result->width, result->height, result->channels, t);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik %s: %s: %s\n", cmd, io->out_path, clik_status_str(st));
        return CLI_FAILED;
    }
    const size_t n = (size_t)result->width * (size_t)result->channels;
    for (int y = 0; y < result->height; y++) {
        const float *in =
            (const float *)(const void *)((const char *)result->data + (size_t)y * result->stride);
        char *row = (char *)tmp->data + (size_t)y * tmp->stride;
        for (size_t i = 0; i < n; i++) {
            float v = nearbyintf(in[i] * scale);
            v = v > 0.0f ? (v < top ? v : top) : 0.0f; /* NaN: 0 */
            if (io->wide)
                ((uint16_t *)(void *)row)[i] = (uint16_t)v;
            else
                ((uint8_t *)row)[i] = (uint8_t)v;
        }
    }
    *use = tmp;
    return CLI_OK;
}

static int run_image_op(const cli_image_op *op, cli_image_io *io)
{
    int rc = op->prepare ? op->prepare(io) : CLI_OK;
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(io->device, &ctx);
    if (rc == CLI_OK) {
        clik_image *result = io->out.data ? &io->out : &io->img;
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        clik_status st = op->run ? op->run(ctx, io) : op->apply(ctx, &io->img, result);
        rc = cli_op_end(io->cmd, ctx, &clock, st, io->in_path);
        if (rc == CLI_OK && io->out_path) {
            clik_image tmp = {0};
            const clik_image *use;
            rc = image_of_result(io->cmd, io, result, &tmp, &use);
            if (rc == CLI_OK)
                rc = cli_write_image(io->cmd, io->out_path, use, io->had_alpha);
            clik_image_free(&tmp);
        }
    }
    clik_context_destroy(ctx);
    cli_images_free(&io->out, &io->img, NULL);
    return rc;
}

int cli_image_main(const cli_image_op *op, int argc, char **argv, const cli_option *options,
                   void *data)
{
    cli_args args;
    int rc = cli_parse(argc, argv, options, op->npositional, op->npositional, &args, op->usage);
    if (rc != CLI_OK)
        return rc;
    cli_image_io io = {.cmd = argv[0],
                       .device = args.device,
                       .in_path = args.positional[0],
                       .out_path = op->npositional > 1 ? args.positional[1] : NULL,
                       .data = data};
    if (op->check && (rc = op->check(&io)) != CLI_OK)
        return rc;
    if ((op->takes_f32 ? read_u8_or_f32(&io)
                       : cli_read_u8(io.cmd, io.in_path, &io.img, &io.had_alpha)) != CLI_OK)
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

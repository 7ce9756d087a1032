/* Shared pieces of the clik subcommands. SPDX-License-Identifier: BSD-2-Clause */
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

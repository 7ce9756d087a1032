/* Shared pieces of the clik subcommands. SPDX-License-Identifier: BSD-2-Clause */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

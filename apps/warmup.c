/* clik warmup: compiles ahead of time the OpenCL programs of the listed
 * operations (clik_context_prepare), into the kernel cache that later runs
 * load them from. SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const usage =
    "usage: clik warmup [--op NAME[,NAME...]] [--type u8|f32|u8,f32] [--channels 1,4]\n"
    "                   [--device SPEC] [--list]\n"
    "Compiles the OpenCL programs that the operations use, for images of the given\n"
    "types and channel counts, into the kernel cache ($CLIK_CACHE_DIR), so that\n"
    "later runs and applications on this device start without waiting for the\n"
    "compiler. Each operation runs once on small images: the programs of its\n"
    "common settings are built (resize: every method at x2, /2, /3; fusion and\n"
    "LAPAR: scales 2 to 4; lapar_net_run: the built-in LAPAR-A networks).\n"
    "  --op NAMES       operations, as the library's functions without clik_\n"
    "                   (default: every one; --list names them)\n"
    "  --type T         u8, f32 or both (default u8)\n"
    "  --channels C     channel counts, 1 to 4 (default 1,4)\n"
    "  --list           print the operation names and stop\n";

/* Bits of a comma-separated list of channel counts 1..4, or 0 when bad. */
static unsigned channel_bits(const char *text)
{
    unsigned bits = 0;
    for (const char *p = text;;) {
        if (p[0] < '1' || p[0] > '4' || (p[1] != ',' && p[1] != '\0'))
            return 0;
        bits |= 1u << (p[0] - '0');
        if (p[1] == '\0')
            return bits;
        p += 2;
    }
}

static unsigned type_bits(const char *text)
{
    if (strcmp(text, "u8") == 0)
        return 1u << CLIK_U8;
    if (strcmp(text, "f32") == 0)
        return 1u << CLIK_F32;
    if (strcmp(text, "u8,f32") == 0 || strcmp(text, "f32,u8") == 0)
        return (1u << CLIK_U8) | (1u << CLIK_F32);
    return 0;
}

int cmd_warmup(int argc, char **argv)
{
    const char *ops = NULL, *type = NULL, *channels = NULL;
    int list = 0;
    const cli_option options[] = {{"--op", &ops, NULL},
                                  {"--type", &type, NULL},
                                  {"--channels", &channels, NULL},
                                  {"--list", NULL, &list},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 0, 0, &args, usage);
    if (rc != CLI_OK)
        return rc;
    if (list) {
        for (int i = 0; clik_prepare_op_name(i); i++)
            printf("%s\n", clik_prepare_op_name(i));
        return CLI_OK;
    }
    clik_prepare_options o;
    clik_prepare_options_init(&o);
    o.ops = ops;
    if (type && !(o.types = type_bits(type))) {
        fprintf(stderr, "clik warmup: --type takes u8, f32 or u8,f32 (got '%s')\n%s", type, usage);
        return CLI_USAGE;
    }
    if (channels && !(o.channels = channel_bits(channels))) {
        fprintf(stderr,
                "clik warmup: --channels takes counts 1 to 4 separated by commas (got "
                "'%s')\n%s",
                channels, usage);
        return CLI_USAGE;
    }
    clik_context *ctx;
    rc = cli_context(args.device, &ctx);
    if (rc != CLI_OK)
        return rc;
    const clik_device_info *d = clik_context_device(ctx);
    cli_op_clock clock;
    cli_op_start(ctx, &clock);
    /* Without a device it checks the list and compiles nothing. */
    clik_status st = clik_context_prepare(ctx, &o);
    cli_op_done("warmup", ctx, &clock, "programs");
    if (st != CLIK_OK) {
        rc = cli_error("warmup", ctx, st, ops ? ops : "every operation");
    } else if (!d) {
        printf("no OpenCL device selected: nothing to compile\n");
    } else {
        clik_context_stats s;
        clik_context_stats_get(ctx, &s);
        printf("%d:%d %s: %u programs compiled, %u already in the kernel cache, in %.2f s\n",
               d->platform_index, d->device_index, d->name, s.programs_built, s.programs_from_disk,
               cli_seconds() - clock.start);
    }
    clik_context_destroy(ctx);
    return rc;
}

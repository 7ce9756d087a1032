/*
 * clik-bench: times clik's public calls on synthetic images and reports
 * medians next to the device's copy bandwidth.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define MAX_SIZES   32
#define MAX_DIM     65536
#define COPY_BYTES  ((size_t)64 << 20)
#define COPY_REPS   10
#define EXIT_USAGE  2
#define EXIT_FAILED 1
#define MAX_DEPTH   16

typedef struct options {
    const bench_op *ops[64];
    int explicit_op[64]; /* 0: added by --op all */
    int nops;
    int sizes[MAX_SIZES][2];
    int nsizes;
    const char *device;
    int channels;
    int reps;
    int warmup;
    int resident;
    int host_context; /* --host-alloc context: host images from clik_image_alloc_on */
    int json;
    int list; /* --list (with --json: one JSON object per op) */
    int allow_fallback;
    int verbose;
    int no_check; /* --no-check */
    int kernels;  /* --kernels: device time per kernel */
    clik_cpu_path cpu_path;
    uint64_t seed;
    const char *dump_dir;
    double scale;
    int frames;
    int depth;
    unsigned flags; /* the BENCH_* flags of the ops run */
} options;

/* --kernels: each kernel's device time over the timed runs, read from the
 * library's debug log ("clik: kernel NAME: MS ms", one line per launch). */
#define MAX_KERNELS 32
typedef struct kernel_time {
    char name[64];
    long launches;
    double ms;
    double bytes; /* per launch (the op's model), 0: none */
    double flops; /* per run (the op's model), 0: none */
} kernel_time;

typedef struct kernel_table {
    int on; /* collecting */
    int n;
    kernel_time k[MAX_KERNELS];
} kernel_table;

static kernel_table collected;

/* Pinned transfer bandwidth of the run, each way (GB/s; 0: unknown). */
static double h2d_gbps, d2h_gbps;
static double fma_gflops; /* the device's FP32 peak, when an op rates its kernels by it */

typedef struct result {
    const bench_op *op;
    int width, height;
    int out_width, out_height; /* 0: the op has no scaled output */
    int resident;
    int frames; /* frames per timed run (the times below are per frame) */
    clik_backend backend;
    double e2e_ms, e2e_min_ms;
    double cpu_ms;    /* process CPU time per call (or frame) */
    double kernel_ms; /* < 0: none */
    double bytes;
    double xfer_in, xfer_out; /* bytes of the host inputs and outputs (0 when resident) */
    char detail[160];         /* what the check found */
    double value;
    int has_value;
    kernel_table kernels; /* --kernels */
} result;

static const char *prog = "clik-bench";

/* Milliseconds the op's host images take to travel at the pinned transfer
 * bandwidth: what a discrete GPU adds to the kernels (-1 when resident or
 * unknown). */
static double transfer_ms(const result *r)
{
    if (r->resident || h2d_gbps <= 0.0 || d2h_gbps <= 0.0)
        return -1.0;
    return r->xfer_in / (h2d_gbps * 1e6) + r->xfer_out / (d2h_gbps * 1e6);
}

/* ---- small helpers ------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s --op NAME [--op NAME ...] --size WxH [--size WxH ...] [options]\n"
            "       %s --list [--json] | --help\n"
            "\n"
            "  --op NAME        operation to time (see --list; 'all' for every one)\n"
            "  --size WxH       image size, e.g. 1920x1080 (also vga, 720p, 1080p, 4k)\n"
            "  --device SPEC    auto | gpu | cpu | none | P:D | name substring\n"
            "                   (as CLIK_DEVICE; default: CLIK_DEVICE, else auto)\n"
            "  --channels 1|4   interleaved channels per pixel (default 1)\n"
            "  --scale S        factor of the fusion and LAPAR ops (default 2; an integer\n"
            "                   from 2 to 8; LAPAR: 2 to 4; resize is the x2 cases)\n"
            "  --frames N       frames per timed run of fusion-stream (default 12)\n"
            "  --depth N        frames in flight in fusion-stream (default 3)\n"
            "  --reps N         timed runs; the medians are reported (default 20)\n"
            "  --warmup N       untimed runs first (default 3)\n"
            "  --resident       device images made beforehand; time call + finish\n"
            "                   (default: host images, host-to-host time)\n"
            "  --json           one JSON object per line per (op, size)\n"
            "  --cpu-path P     auto | scalar | neon: the CPU path (default auto)\n"
            "  --allow-fallback let an op fall back to the CPU (default: fail)\n"
            "  --seed N         seed of the synthetic input (default 1)\n"
            "  --dump-input DIR write each input as DIR/input-WxH-cC.pgm|pam\n"
            "  --host-alloc A   malloc | context: host images from clik_image_alloc\n"
            "                   or from clik_image_alloc_on (zero-copy or pinned)\n"
            "  --verbose        print clik's diagnostics on stderr\n"
            "  --no-check       skip the check of each result against the CPU (sweeps of\n"
            "                   shapes whose default was checked)\n"
            "  --kernels        each kernel's device time per call (and GB/s where the\n"
            "                   op has a byte model for it)\n"
            "  --list           list the operations and the conformance case each runs\n"
            "                   (with --json: one JSON object per op)\n"
            "  --help           this text\n",
            prog, prog);
}

static int bad_usage(const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(try %s --help)\n", prog);
    return EXIT_USAGE;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return 0;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_size(const char *s, int *w, int *h)
{
    static const struct {
        const char *name;
        int w, h;
    } named[] = {{"vga", 640, 480},
                 {"720p", 1280, 720},
                 {"1080p", 1920, 1080},
                 {"4k", 3840, 2160},
                 {"2160p", 3840, 2160}};
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        if (strcmp(s, named[i].name) == 0) {
            *w = named[i].w;
            *h = named[i].h;
            return 1;
        }
    }
    const char *x = strchr(s, 'x');
    if (!x)
        x = strchr(s, 'X');
    if (!x || x == s || strlen(x + 1) == 0 || x - s > 15)
        return 0;
    char left[16];
    memcpy(left, s, (size_t)(x - s));
    left[x - s] = '\0';
    long lw, lh;
    if (!parse_int(left, 1, MAX_DIM, &lw) || !parse_int(x + 1, 1, MAX_DIM, &lh))
        return 0;
    *w = (int)lw;
    *h = (int)lh;
    return 1;
}

static void json_string(const char *s);

/* --list: each op with its channel counts and its case ("-": none); with
 * --json one object per line. */
static void list_ops(int json)
{
    if (!json)
        printf("%-18s %-9s %-18s %-46s %s\n", "op", "channels", "case", "bytes moved", "call");
    for (int i = 0; i < bench_op_count; i++) {
        const bench_op *op = &bench_ops[i];
        char ch[32] = "";
        for (int c = 1; c <= 4; c++) {
            if (bench_op_channels(op) & (1u << c)) {
                size_t n = strlen(ch);
                snprintf(ch + n, sizeof(ch) - n, "%s%d", n ? "," : "", c);
            }
        }
        if (!json) {
            printf("%-18s %-9s %-18s %-46s %s\n", op->name, ch, op->case_op ? op->case_op : "-",
                   op->bytes_rule, op->summary);
            continue;
        }
        printf("{\"op\":");
        json_string(op->name);
        printf(",\"case\":");
        if (op->case_op)
            json_string(op->case_op);
        else
            printf("null");
        printf(",\"channels\":[%s],\"scale\":%s,\"bytes_rule\":", ch,
               op->flags & BENCH_USES_SCALE ? "true" : "false");
        json_string(op->bytes_rule);
        printf(",\"summary\":");
        json_string(op->summary);
        printf("}\n");
    }
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof(*o));
    o->channels = 1;
    o->reps = 20;
    o->warmup = 3;
    o->seed = 1;
    o->cpu_path = CLIK_CPU_AUTO;
    o->scale = 2.0;
    o->frames = 12;
    o->depth = 3;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        const char *val = NULL;
        char name[32];
        /* --name=value or --name value */
        const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
        if (eq && (size_t)(eq - arg) < sizeof(name)) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof(name), "%s", arg);
        }
        static const char *const with_value[] = {
            "--op",     "--size",     "--device",    "--channels",   "--reps",
            "--warmup", "--cpu-path", "--seed",      "--dump-input", "--scale",
            "--frames", "--depth",    "--host-alloc"};
        int takes = 0;
        for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
            takes |= strcmp(name, with_value[k]) == 0;
        if (takes && !val) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a value", name);
            val = argv[++i];
        } else if (!takes && val) {
            return bad_usage("%s takes no value", name);
        }
        long n;
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(name, "--list") == 0) {
            o->list = 1;
        } else if (strcmp(name, "--op") == 0) {
            int all = strcmp(val, "all") == 0;
            const bench_op *op = all ? NULL : bench_op_find(val);
            if (!all && !op)
                return bad_usage("unknown op '%s' (see --list)", val);
            for (int k = 0; k < bench_op_count; k++) {
                const bench_op *add = all ? &bench_ops[k] : op;
                int dup = 0;
                for (int j = 0; j < o->nops; j++) {
                    if (o->ops[j] == add) {
                        dup = 1;
                        o->explicit_op[j] |= !all;
                    }
                }
                if (!dup && o->nops < (int)(sizeof(o->ops) / sizeof(o->ops[0]))) {
                    o->explicit_op[o->nops] = !all;
                    o->ops[o->nops++] = add;
                }
                if (!all)
                    break;
            }
        } else if (strcmp(name, "--size") == 0) {
            if (o->nsizes == MAX_SIZES)
                return bad_usage("too many sizes (at most %s)", "32");
            if (!parse_size(val, &o->sizes[o->nsizes][0], &o->sizes[o->nsizes][1]))
                return bad_usage("bad size '%s': expected WxH with W and H from 1 to 65536", val);
            o->nsizes++;
        } else if (strcmp(name, "--device") == 0) {
            o->device = val;
        } else if (strcmp(name, "--channels") == 0) {
            if (!parse_int(val, 1, 4, &n) || (n != 1 && n != 4))
                return bad_usage("bad channel count '%s': expected 1 or 4", val);
            o->channels = (int)n;
        } else if (strcmp(name, "--scale") == 0) {
            char *end;
            errno = 0;
            double v = strtod(val, &end);
            if (errno || end == val || *end || !(v > 0.0) || v > 64.0)
                return bad_usage("bad --scale '%s': expected a number above 0, at most 64", val);
            o->scale = v;
        } else if (strcmp(name, "--frames") == 0) {
            if (!parse_int(val, 1, 100000, &n))
                return bad_usage("bad --frames '%s': expected a whole number from 1", val);
            o->frames = (int)n;
        } else if (strcmp(name, "--depth") == 0) {
            if (!parse_int(val, 1, MAX_DEPTH, &n))
                return bad_usage("bad --depth '%s': expected a whole number from 1 to 16", val);
            o->depth = (int)n;
        } else if (strcmp(name, "--reps") == 0) {
            if (!parse_int(val, 1, 1000000, &n))
                return bad_usage("bad --reps '%s': expected a whole number from 1", val);
            o->reps = (int)n;
        } else if (strcmp(name, "--warmup") == 0) {
            if (!parse_int(val, 0, 1000000, &n))
                return bad_usage("bad --warmup '%s': expected a whole number from 0", val);
            o->warmup = (int)n;
        } else if (strcmp(name, "--seed") == 0) {
            if (!parse_int(val, 0, 2147483647L, &n))
                return bad_usage("bad --seed '%s'", val);
            o->seed = (uint64_t)n;
        } else if (strcmp(name, "--cpu-path") == 0) {
            if (strcmp(val, "auto") == 0)
                o->cpu_path = CLIK_CPU_AUTO;
            else if (strcmp(val, "scalar") == 0)
                o->cpu_path = CLIK_CPU_SCALAR;
            else if (strcmp(val, "neon") == 0)
                o->cpu_path = CLIK_CPU_NEON;
            else
                return bad_usage("bad --cpu-path '%s': expected auto, scalar or neon", val);
        } else if (strcmp(name, "--dump-input") == 0) {
            o->dump_dir = val;
        } else if (strcmp(name, "--resident") == 0) {
            o->resident = 1;
        } else if (strcmp(name, "--host-alloc") == 0) {
            if (strcmp(val, "malloc") != 0 && strcmp(val, "context") != 0)
                return bad_usage("bad --host-alloc '%s': expected malloc or context", val);
            o->host_context = strcmp(val, "context") == 0;
        } else if (strcmp(name, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(name, "--allow-fallback") == 0) {
            o->allow_fallback = 1;
        } else if (strcmp(name, "--verbose") == 0) {
            o->verbose = 1;
        } else if (strcmp(name, "--no-check") == 0) {
            o->no_check = 1;
        } else if (strcmp(name, "--kernels") == 0) {
            o->kernels = 1;
        } else {
            return bad_usage("unknown argument '%s'", arg);
        }
    }
    if (o->list) {
        list_ops(o->json);
        return 0;
    }
    if (o->nops == 0)
        return bad_usage("no operation given%s: use --op NAME (see --list)", "");
    if (o->nsizes == 0)
        return bad_usage("no size given%s: use --size WxH", "");
    /* --op all keeps the ops that take the channel count and the scale; a
     * named op must take them. */
    const int whole_scale = o->scale == floor(o->scale) && o->scale >= 2.0 && o->scale <= 8.0;
    int kept = 0;
    for (int i = 0; i < o->nops; i++) {
        const bench_op *op = o->ops[i];
        const int channels_ok = (bench_op_channels(op) & (1u << o->channels)) != 0;
        const int scale_ok = !(op->flags & BENCH_INT_SCALE) || whole_scale;
        if (!channels_ok || !scale_ok) {
            if (!o->explicit_op[i])
                continue;
            if (!channels_ok)
                fprintf(stderr, "%s: op '%s' does not support %d channel(s)%s%s\n", prog, op->name,
                        o->channels, op->channels_hint ? ": " : "",
                        op->channels_hint ? op->channels_hint : "");
            else
                fprintf(stderr,
                        "%s: op '%s' upscales by a whole factor: --scale must be 2 to 8, "
                        "not %g\n",
                        prog, op->name, o->scale);
            return EXIT_USAGE;
        }
        o->explicit_op[kept] = o->explicit_op[i];
        o->ops[kept++] = op;
        o->flags |= op->flags;
    }
    o->nops = kept;
    if (o->nops == 0)
        return bad_usage("no operation of --op all takes these options%s", "");
    return -1;
}

/* ---- images of a case ------------------------------------------------------------- */

static clik_status own(bench_case *bc, clik_image **slot)
{
    if (bc->nowned == BENCH_MAX_IMAGES)
        return CLIK_ERR_NO_MEMORY;
    *slot = &bc->owned[bc->nowned++];
    return CLIK_OK;
}

/* A host image as --host-alloc says. */
static clik_status host_alloc(bench_case *bc, clik_image *img, int width, int height, int channels,
                              clik_type type)
{
    return bc->host_context ? clik_image_alloc_on(bc->ctx, img, width, height, channels, type)
                            : clik_image_alloc(img, width, height, channels, type);
}

static double image_bytes(const clik_image *img)
{
    return (double)img->width * (double)img->height * (double)img->channels *
           (double)clik_type_size(img->type);
}

clik_status bench_output(bench_case *bc, int width, int height, int channels, clik_type type,
                         clik_image *out)
{
    clik_image *img;
    clik_status st = own(bc, &img);
    if (st != CLIK_OK)
        return st;
    st = bc->resident ? clik_image_create(bc->ctx, img, width, height, channels, type)
                      : host_alloc(bc, img, width, height, channels, type);
    if (st == CLIK_OK && !bc->resident)
        bc->xfer_out += image_bytes(img);
    if (st == CLIK_OK)
        *out = *img;
    return st;
}

clik_status bench_input(bench_case *bc, int width, int height, int channels, uint64_t salt,
                        clik_image *out, clik_image *host)
{
    clik_image *h;
    clik_status st = own(bc, &h);
    if (st == CLIK_OK)
        st = host_alloc(bc, h, width, height, channels, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    bench_fill_natural(h, bc->seed * 1000003u + salt);
    if (host)
        *host = *h;
    if (!bc->resident) {
        bc->xfer_in += image_bytes(h);
        *out = *h;
        return CLIK_OK;
    }
    st = bench_output(bc, width, height, channels, CLIK_U8, out);
    if (st == CLIK_OK)
        st = clik_image_upload(bc->ctx, out, h);
    return st;
}

clik_status bench_host(bench_case *bc, int width, int height, int channels, clik_type type,
                       clik_image *out)
{
    clik_image *img;
    clik_status st = own(bc, &img);
    if (st == CLIK_OK)
        st = host_alloc(bc, img, width, height, channels, type);
    if (st == CLIK_OK)
        *out = *img;
    return st;
}

clik_status bench_upload(bench_case *bc, const clik_image *host, clik_image *out)
{
    if (!bc->resident) {
        bc->xfer_in += image_bytes(host);
        *out = *host;
        return CLIK_OK;
    }
    clik_image *img;
    clik_status st = own(bc, &img);
    if (st == CLIK_OK)
        st = clik_image_create(bc->ctx, img, host->width, host->height, host->channels, host->type);
    if (st == CLIK_OK)
        st = clik_image_upload(bc->ctx, img, host);
    if (st == CLIK_OK)
        *out = *img;
    return st;
}

clik_status bench_fetch(bench_case *bc, const clik_image *img, clik_image *host)
{
    if (img->data) {
        *host = *img;
        return CLIK_OK;
    }
    clik_image *h;
    clik_status st = own(bc, &h);
    if (st == CLIK_OK)
        st = clik_image_alloc(h, img->width, img->height, img->channels, img->type);
    if (st == CLIK_OK)
        st = clik_image_download(bc->ctx, h, img);
    if (st == CLIK_OK)
        *host = *h;
    return st;
}

/* ---- one measurement ------------------------------------------------------------------ */

static int clik_failed(clik_context *ctx, clik_status st, const bench_op *op, int w, int h,
                       const char *what)
{
    fprintf(stderr, "%s: %s %dx%d: %s failed: %s\n", prog, op->name, w, h, what,
            clik_status_str(st));
    const char *msg = clik_context_message(ctx);
    if (msg && *msg)
        fprintf(stderr, "  %s\n", msg);
    return EXIT_FAILED;
}

/* Runs one op once and checks where it ran. */
static clik_status run_once(const bench_op *op, bench_case *bc, clik_backend *got)
{
    clik_status st = op->run(bc);
    if (st == CLIK_OK && bc->resident)
        st = clik_context_finish(bc->ctx);
    *got = clik_context_last_backend(bc->ctx);
    return st;
}

static int measure(const options *o, clik_context *ctx, const bench_op *op, int w, int h,
                   result *res)
{
    bench_case bc;
    memset(&bc, 0, sizeof(bc));
    bc.op = op;
    bc.ctx = ctx;
    bc.width = w;
    bc.height = h;
    bc.channels = o->channels;
    bc.resident = o->resident;
    bc.host_context = o->host_context;
    bc.seed = o->seed;
    bc.scale = o->scale;
    bc.stream_frames = o->frames;
    bc.stream_depth = o->depth;
    bc.frames = 1;
    const clik_backend expect =
        clik_context_device(ctx) ? CLIK_BACKEND_OPENCL : clik_context_cpu_backend(ctx);
    double *e2e = malloc((size_t)o->reps * sizeof(double));
    double *kern = malloc((size_t)o->reps * sizeof(double));
    double *cpu = malloc((size_t)o->reps * sizeof(double));
    int rc = 0;
    int set_up = 0;
    clik_status st = e2e && kern && cpu ? CLIK_OK : CLIK_ERR_NO_MEMORY;
    if (st == CLIK_OK)
        st = bench_input(&bc, w, h, o->channels, 0, &bc.src, &bc.src_host);
    if (st != CLIK_OK) {
        rc = clik_failed(ctx, st, op, w, h, "preparing the input");
        goto done;
    }
    if (o->dump_dir) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/input-%dx%d-c%d.%s", o->dump_dir, w, h, o->channels,
                 o->channels == 1 ? "pgm" : "pam");
        if (bench_write_pnm(&bc.src_host, path) != 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
            rc = EXIT_FAILED;
            goto done;
        }
    }
    set_up = 1;
    st = op->setup ? op->setup(&bc) : CLIK_OK;
    if (st != CLIK_OK) {
        rc = clik_failed(ctx, st, op, w, h, "setting up");
        goto done;
    }

    clik_backend got = CLIK_BACKEND_NONE;
    for (int r = 0; r < o->warmup; r++) {
        st = run_once(op, &bc, &got);
        if (st != CLIK_OK) {
            rc = clik_failed(ctx, st, op, w, h, "a warm-up run");
            goto done;
        }
    }
    int kernel_times = 0, wrong_backend = 0;
    memset(&collected, 0, sizeof(collected));
    collected.on = o->kernels;
    for (int r = 0; r < o->reps; r++) {
        double c0 = bench_cpu_ms(), t0 = bench_now_ms();
        st = run_once(op, &bc, &got);
        double t1 = bench_now_ms(), c1 = bench_cpu_ms();
        if (st != CLIK_OK) {
            rc = clik_failed(ctx, st, op, w, h, "a timed run");
            goto done;
        }
        clik_context_stats s;
        clik_context_stats_get(ctx, &s);
        /* Per frame: a streaming run pushes bc.frames frames. */
        e2e[r] = (t1 - t0) / bc.frames;
        cpu[r] = (c1 - c0) / bc.frames;
        kern[r] = s.last_kernel_ms;
        kernel_times += got == CLIK_BACKEND_OPENCL && s.last_kernel_ms > 0.0;
        wrong_backend += got != expect;
    }
    collected.on = 0;
    res->kernels = collected;
    for (int k = 0; k < res->kernels.n; k++) {
        res->kernels.k[k].bytes =
            op->kernel_bytes ? op->kernel_bytes(&bc, res->kernels.k[k].name) : 0.0;
        res->kernels.k[k].flops =
            op->kernel_flops ? op->kernel_flops(&bc, res->kernels.k[k].name) : 0.0;
    }
    if (op->check && !o->no_check && !op->check(&bc)) {
        fprintf(stderr, "%s: %s %dx%d: wrong result on %s: %s\n", prog, op->name, w, h,
                clik_backend_name(got), bc.message);
        rc = EXIT_FAILED;
        goto done;
    }
    if (wrong_backend) {
        fprintf(stderr, "%s: warning: %s %dx%d ran %d of %d times on %s, not %s\n", prog, op->name,
                w, h, wrong_backend, o->reps, clik_backend_name(got), clik_backend_name(expect));
    }
    res->op = op;
    res->width = w;
    res->height = h;
    res->out_width = bc.out_width;
    res->out_height = bc.out_height;
    res->resident = bc.resident;
    res->frames = bc.frames;
    res->backend = got;
    snprintf(res->detail, sizeof(res->detail), "%s", bc.detail);
    res->value = bc.value;
    res->has_value = bc.has_value;
    res->bytes = op->bytes_moved(&bc);
    res->xfer_in = bc.xfer_in;
    res->xfer_out = bc.xfer_out;
    res->kernel_ms = -1.0;
    if (got == CLIK_BACKEND_OPENCL && !bc.no_kernel_time) {
        if (kernel_times == o->reps)
            res->kernel_ms = bench_median(kern, o->reps);
        else
            fprintf(stderr, "%s: warning: %s %dx%d: %d of %d runs gave no kernel time\n", prog,
                    op->name, w, h, o->reps - kernel_times, o->reps);
    }
    res->e2e_ms = bench_median(e2e, o->reps);
    res->e2e_min_ms = e2e[0]; /* sorted by bench_median() */
    res->cpu_ms = bench_median(cpu, o->reps);

done:
    if (set_up && op->teardown)
        op->teardown(&bc);
    for (int i = 0; i < bc.nowned; i++)
        clik_image_free(&bc.owned[i]);
    free(e2e);
    free(kern);
    free(cpu);
    return rc;
}

/* ---- output ----------------------------------------------------------------------------- */

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_number(double v, int valid)
{
    if (valid && v == v && v < 1e300 && v > -1e300)
        printf("%.6g", v);
    else
        printf("null");
}

static const char *device_type_name(const clik_device_info *d)
{
    if (!d)
        return "none";
    switch (d->type) {
    case CLIK_DEVICE_GPU: return "gpu";
    case CLIK_DEVICE_CPU: return "cpu";
    case CLIK_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

typedef struct derived {
    double ns_per_pixel, gbps, copy_ratio;
    double fps, fps_kernel; /* frames per second, end to end and kernels only */
    int have_gbps;
    const char *basis;
} derived;

static derived derive(const result *r, double copy_gbps)
{
    derived d;
    d.ns_per_pixel = r->e2e_ms * 1e6 / ((double)r->width * (double)r->height);
    double ms = r->kernel_ms >= 0.0 ? r->kernel_ms : r->e2e_ms;
    d.basis = r->kernel_ms >= 0.0 ? "kernel" : "end_to_end";
    d.have_gbps = ms > 0.0;
    d.gbps = d.have_gbps ? r->bytes / (ms * 1e6) : 0.0;
    d.copy_ratio = d.have_gbps && copy_gbps > 0.0 ? d.gbps / copy_gbps : 0.0;
    d.fps = r->e2e_ms > 0.0 ? 1e3 / r->e2e_ms : 0.0;
    d.fps_kernel = r->kernel_ms > 0.0 ? 1e3 / r->kernel_ms : 0.0;
    return d;
}

/* One kernel of --kernels: launches and milliseconds per timed call, and
 * the GB/s of its byte model (0: none). */
static void kernel_figures(const options *o, const kernel_time *k, double *launches, double *ms,
                           double *gbps)
{
    *launches = (double)k->launches / o->reps;
    *ms = k->ms / o->reps;
    *gbps = k->bytes > 0.0 && k->ms > 0.0 ? k->bytes * (double)k->launches / (k->ms * 1e6) : 0.0;
}

static void print_json(const options *o, clik_context *ctx, const result *r, double copy_gbps,
                       double copy_same_gbps)
{
    const clik_device_info *dev = clik_context_device(ctx);
    derived d = derive(r, copy_gbps);
    const unsigned flags = r->op->flags;
    printf("{\"op\":");
    json_string(r->op->name);
    printf(",\"size\":\"%dx%d\",\"width\":%d,\"height\":%d,\"channels\":%d", r->width, r->height,
           r->width, r->height, o->channels);
    if (flags & BENCH_USES_SCALE) {
        printf(",\"scale\":");
        json_number(o->scale, 1);
        printf(",\"out_width\":%d,\"out_height\":%d", r->out_width, r->out_height);
    }
    printf(",\"device\":");
    json_string(dev ? dev->name : "cpu");
    printf(",\"device_type\":\"%s\",\"platform\":", device_type_name(dev));
    json_string(dev ? dev->platform_name : "");
    printf(",\"backend\":\"%s\",\"resident\":%s,\"reps\":%d,\"warmup\":%d",
           clik_backend_name(r->backend), r->resident ? "true" : "false", o->reps, o->warmup);
    printf(",\"host_alloc\":\"%s\"", o->host_context ? "context" : "malloc");
    if (flags & BENCH_STREAM)
        printf(",\"frames_per_run\":%d,\"depth\":%d", r->frames, o->depth);
    printf(",\"kernel_ms\":");
    json_number(r->kernel_ms, r->kernel_ms >= 0.0);
    printf(",\"end_to_end_ms\":");
    json_number(r->e2e_ms, 1);
    printf(",\"end_to_end_min_ms\":");
    json_number(r->e2e_min_ms, 1);
    /* On a CPU device or the CPU path, the work in CPU time: what a busy
     * shared machine does not take away. */
    printf(",\"cpu_ms\":");
    json_number(r->cpu_ms, 1);
    if (flags & BENCH_FRAMES) {
        printf(",\"fps_end_to_end\":");
        json_number(d.fps, d.fps > 0.0);
        printf(",\"fps_kernel\":");
        json_number(d.fps_kernel, d.fps_kernel > 0.0);
    }
    printf(",\"ns_per_pixel\":");
    json_number(d.ns_per_pixel, 1);
    printf(",\"bytes\":%.0f,\"gbps\":", r->bytes);
    json_number(d.gbps, d.have_gbps);
    printf(",\"gbps_basis\":\"%s\",\"copy_gbps\":", d.basis);
    json_number(copy_gbps, copy_gbps > 0.0);
    printf(",\"copy_ratio\":");
    json_number(d.copy_ratio, d.have_gbps && copy_gbps > 0.0);
    printf(",\"fma_gflops\":");
    json_number(fma_gflops, fma_gflops > 0.0);
    /* The copy of one image's bytes: what a kernel of this size can reach. */
    printf(",\"copy_same_size_gbps\":");
    json_number(copy_same_gbps, copy_same_gbps > 0.0);
    /* Pinned transfers of the run, and the op's host images at that rate. */
    printf(",\"h2d_gbps\":");
    json_number(h2d_gbps, h2d_gbps > 0.0);
    printf(",\"d2h_gbps\":");
    json_number(d2h_gbps, d2h_gbps > 0.0);
    const double xms = transfer_ms(r);
    printf(",\"transfer_bytes_in\":%.0f,\"transfer_bytes_out\":%.0f,\"transfer_ms\":",
           r->resident ? 0.0 : r->xfer_in, r->resident ? 0.0 : r->xfer_out);
    json_number(xms, xms >= 0.0);
    if (r->has_value) {
        printf(",\"value\":");
        json_number(r->value, 1);
    }
    if (r->detail[0]) {
        printf(",\"check\":");
        json_string(r->detail);
    }
    if (o->kernels) {
        printf(",\"kernels\":[");
        for (int i = 0; i < r->kernels.n; i++) {
            double launches, ms, gbps;
            kernel_figures(o, &r->kernels.k[i], &launches, &ms, &gbps);
            printf("%s{\"name\":", i ? "," : "");
            json_string(r->kernels.k[i].name);
            printf(",\"launches\":");
            json_number(launches, 1);
            printf(",\"ms\":");
            json_number(ms, 1);
            printf(",\"gbps\":");
            json_number(gbps, gbps > 0.0);
            printf(",\"copy_ratio\":");
            json_number(gbps / copy_gbps, gbps > 0.0 && copy_gbps > 0.0);
            const double gflops =
                r->kernels.k[i].flops > 0.0 && ms > 0.0 ? r->kernels.k[i].flops / (ms * 1e6) : 0.0;
            printf(",\"gflops\":");
            json_number(gflops, gflops > 0.0);
            printf(",\"fma_peak_ratio\":");
            json_number(gflops / fma_gflops, gflops > 0.0 && fma_gflops > 0.0);
            printf("}");
        }
        printf("]");
    }
    printf("}\n");
    fflush(stdout);
}

static void print_header(const options *o, clik_context *ctx, double copy_gbps)
{
    const clik_device_info *dev = clik_context_device(ctx);
    if (dev)
        printf("device   %s (%s, %s, %u compute units)\n", dev->name, dev->platform_name,
               device_type_name(dev), dev->compute_units);
    else
        printf("device   none: the CPU path (%s)\n",
               clik_backend_name(clik_context_cpu_backend(ctx)));
    printf("copy     %.2f GB/s (%s, read + write)\n", copy_gbps,
           dev ? "device buffer copy" : "host memcpy");
    printf("transfer %.2f GB/s host to device, %.2f GB/s device to host (%s)\n", h2d_gbps, d2h_gbps,
           dev ? "pinned host memory" : "host memcpy");
    if (fma_gflops > 0.0)
        printf("fma      %.1f GFLOP/s FP32 (%s)\n", fma_gflops,
               dev ? "fused multiply-add chains on every compute unit" : "one host thread");
    if (!o->resident)
        printf("host     %s\n", o->host_context ? "clik_image_alloc_on (zero-copy or pinned)"
                                                : "clik_image_alloc (malloc)");
    printf("images   %d channel(s), %s; median of %d runs after %d warm-up\n", o->channels,
           o->resident ? "resident on the device (call + finish)"
                       : "on the host (host-to-host, transfers included)",
           o->reps, o->warmup);
    if (o->flags & BENCH_USES_SCALE)
        printf("scale    %g (fusion and LAPAR ops; size is the input's)\n", o->scale);
    if (o->flags & BENCH_STREAM)
        printf("stream   %d frames per timed run, %d in flight, host frames; times per frame\n",
               o->frames, o->depth);
    printf("\n%-18s %-11s %-8s %10s %10s %8s %8s %7s %8s %8s", "op", "size", "backend", "e2e ms",
           "kernel ms", "ns/px", "GB/s", "copy%", "xfer MB", "xfer ms");
    if (o->flags & BENCH_FRAMES)
        printf(" %9s %9s", "fps e2e", "fps kern");
    printf("\n");
    fflush(stdout);
}

static void print_kernel_rows(const options *o, const result *r, double copy_gbps)
{
    for (int i = 0; i < r->kernels.n; i++) {
        double launches, ms, gbps;
        kernel_figures(o, &r->kernels.k[i], &launches, &ms, &gbps);
        printf("  kernel %-24s %7.1f launches %10.4f ms %10.4f ms each", r->kernels.k[i].name,
               launches, ms, launches > 0.0 ? ms / launches : 0.0);
        if (gbps > 0.0)
            printf(" %8.2f GB/s %4.0f%%", gbps, copy_gbps > 0.0 ? 100.0 * gbps / copy_gbps : 0.0);
        if (r->kernels.k[i].flops > 0.0 && ms > 0.0) {
            const double gflops = r->kernels.k[i].flops / (ms * 1e6);
            printf(" %9.1f GFLOP/s %4.0f%% of FMA peak", gflops,
                   fma_gflops > 0.0 ? 100.0 * gflops / fma_gflops : 0.0);
        }
        printf("\n");
    }
}

static void print_row(const options *o, const result *r, double copy_gbps)
{
    derived d = derive(r, copy_gbps);
    char size[32], e2e[32], kernel[32], gbps[32], ratio[32];
    snprintf(size, sizeof(size), "%dx%d", r->width, r->height);
    snprintf(e2e, sizeof(e2e), r->e2e_ms < 0.1 ? "%.4f" : "%.3f", r->e2e_ms);
    if (r->kernel_ms >= 0.0)
        snprintf(kernel, sizeof(kernel), r->kernel_ms < 0.1 ? "%.4f" : "%.3f", r->kernel_ms);
    else
        snprintf(kernel, sizeof(kernel), "-");
    snprintf(gbps, sizeof(gbps), d.have_gbps ? "%.2f%s" : "-", d.gbps,
             r->kernel_ms >= 0.0 ? "" : "*");
    if (d.have_gbps && copy_gbps > 0.0)
        snprintf(ratio, sizeof(ratio), "%.0f%%", 100.0 * d.copy_ratio);
    else
        snprintf(ratio, sizeof(ratio), "-");
    char xmb[32] = "-", xms[32] = "-";
    if (transfer_ms(r) >= 0.0) {
        snprintf(xmb, sizeof(xmb), "%.2f", (r->xfer_in + r->xfer_out) * 1e-6);
        snprintf(xms, sizeof(xms), "%.3f", transfer_ms(r));
    }
    printf("%-18s %-11s %-8s %10s %10s %8.3f %8s %7s %8s %8s", r->op->name, size,
           clik_backend_name(r->backend), e2e, kernel, d.ns_per_pixel, gbps, ratio, xmb, xms);
    if (o->flags & BENCH_FRAMES) {
        char fps[32] = "-", fps_kernel[32] = "-";
        if ((r->op->flags & BENCH_FRAMES) && d.fps > 0.0)
            snprintf(fps, sizeof(fps), "%.1f", d.fps);
        if ((r->op->flags & BENCH_FRAMES) && d.fps_kernel > 0.0)
            snprintf(fps_kernel, sizeof(fps_kernel), "%.1f", d.fps_kernel);
        printf(" %9s %9s", fps, fps_kernel);
    }
    printf("\n");
    print_kernel_rows(o, r, copy_gbps);
    fflush(stdout);
}

/* The context's log: kernel times into the table while collecting, and
 * everything on stderr with --verbose. */
static void bench_log(void *user, clik_log_level level, const char *message)
{
    const options *o = user;
    char name[64];
    double ms;
    if (collected.on && level == CLIK_LOG_DEBUG &&
        sscanf(message, "clik: kernel %63[^:]: %lf ms", name, &ms) == 2) {
        int k = 0;
        while (k < collected.n && strcmp(collected.k[k].name, name) != 0)
            k++;
        if (k == collected.n && collected.n < MAX_KERNELS)
            snprintf(collected.k[collected.n++].name, sizeof(collected.k[0].name), "%s", name);
        if (k < collected.n) {
            collected.k[k].launches++;
            collected.k[k].ms += ms;
        }
    }
    if (o->verbose)
        fprintf(stderr, "%s\n", message);
}

/* ---- main --------------------------------------------------------------------------------------
 */

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;

    clik_context_options copt;
    clik_context_options_init(&copt);
    copt.device = o.device;
    copt.profiling = 1;
    copt.strict = o.allow_fallback ? 0 : 1;
    copt.cpu_path = o.cpu_path;
    if (o.verbose || o.kernels) {
        copt.log = bench_log;
        copt.log_user = &o;
    }
    clik_context *ctx = NULL;
    clik_status st = clik_context_create(&ctx, &copt);
    if (st != CLIK_OK) {
        fprintf(stderr, "%s: cannot create a context on device '%s': %s\n", prog,
                o.device                ? o.device
                : getenv("CLIK_DEVICE") ? getenv("CLIK_DEVICE")
                                        : "auto",
                clik_status_str(st));
        const char *msg = clik_context_message(NULL);
        if (*msg)
            fprintf(stderr, "  %s\n", msg);
        return EXIT_FAILED;
    }

    double copy_gbps = 0.0;
    st = clik_context_copy_bandwidth(ctx, COPY_BYTES, COPY_REPS, &copy_gbps);
    if (st != CLIK_OK) {
        fprintf(stderr, "%s: measuring the copy bandwidth failed: %s\n  %s\n", prog,
                clik_status_str(st), clik_context_message(ctx));
        clik_context_destroy(ctx);
        return EXIT_FAILED;
    }
    st = clik_context_transfer_bandwidth(ctx, COPY_BYTES, COPY_REPS, &h2d_gbps, &d2h_gbps);
    if (st != CLIK_OK) {
        fprintf(stderr, "%s: measuring the transfer bandwidth failed: %s\n  %s\n", prog,
                clik_status_str(st), clik_context_message(ctx));
        clik_context_destroy(ctx);
        return EXIT_FAILED;
    }
    for (int i = 0; i < o.nops && o.kernels && fma_gflops == 0.0; i++)
        if (o.ops[i]->kernel_flops &&
            clik_context_fma_peak(ctx, COPY_REPS, &fma_gflops) != CLIK_OK) {
            fprintf(stderr, "%s: measuring the FMA peak failed: %s\n", prog,
                    clik_context_message(ctx));
            clik_context_destroy(ctx);
            return EXIT_FAILED;
        }
    if (!o.json)
        print_header(&o, ctx, copy_gbps);

    rc = 0;
    for (int i = 0; i < o.nops && rc == 0; i++) {
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            result r;
            memset(&r, 0, sizeof(r));
            rc = measure(&o, ctx, o.ops[i], o.sizes[s][0], o.sizes[s][1], &r);
            if (rc != 0)
                break;
            double same = 0.0;
            size_t image_bytes = (size_t)r.width * (size_t)r.height * (size_t)o.channels;
            if (o.json && clik_context_copy_bandwidth(ctx, image_bytes < 4096 ? 4096 : image_bytes,
                                                      COPY_REPS, &same) != CLIK_OK)
                same = 0.0;
            if (o.json)
                print_json(&o, ctx, &r, copy_gbps, same);
            else
                print_row(&o, &r, copy_gbps);
        }
    }
    if (!o.json && rc == 0) {
        printf("\nGB/s: bytes the op must move / kernel time (* : / end-to-end time, no kernel "
               "time); copy%%: GB/s as a share of the copy bandwidth\n");
        printf("xfer: the host images' bytes in and out, and their time at the pinned transfer "
               "bandwidth (what a discrete GPU adds)\n");
        if (o.flags & BENCH_FRAMES)
            printf("fps: frames per second, end to end (host to host) and kernels only\n");
    }
    clik_context_destroy(ctx);
    return rc;
}

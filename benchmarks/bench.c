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
#include "bench_main.h"

kernel_table collected;
double h2d_gbps, d2h_gbps;
double fma_gflops;

const char *prog = "clik-bench";

/* Milliseconds the op's host images take to travel at the pinned transfer
 * bandwidth: what a discrete GPU adds to the kernels (-1 when resident or
 * unknown). */
double transfer_ms(const result *r)
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
            "  --channels 1|3|4 interleaved channels per pixel (default 1)\n"
            "  --scale S        factor of the fusion and LAPAR ops (default 2; an integer\n"
            "                   from 2 to 8; LAPAR: 2 to 4; resize is the x2 cases)\n"
            "  --frames N       frames per timed run of fusion_stream_submit (default 12)\n"
            "  --depth N        frames in flight in fusion_stream_submit (default 3)\n"
            "  --reps N         timed runs; the medians are reported (default 20)\n"
            "  --warmup N       untimed runs first (default 3)\n"
            "  --resident       device images made beforehand; time call + finish\n"
            "                   (default: host images, host-to-host time)\n"
            "  --json           one JSON object per line per (op, size)\n"
            "  --cpu-path P     auto | scalar | neon: the CPU path (default auto)\n"
            "  --threads N      threads of the CPU path (default $CLIK_THREADS, else the cores)\n"
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
    return bench_parse_int(left, 1, MAX_DIM, w) && bench_parse_int(x + 1, 1, MAX_DIM, h);
}

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
    *o = (options){.channels = 1,
                   .reps = 20,
                   .warmup = 3,
                   .seed = 1,
                   .cpu_path = CLIK_CPU_AUTO,
                   .threads = -1,
                   .scale = 2.0,
                   .frames = 12,
                   .depth = 3};
    const bench_flag flags[] = {
        {"--list", &o->list, 1},       {"--resident", &o->resident, 1},
        {"--json", &o->json, 1},       {"--allow-fallback", &o->allow_fallback, 1},
        {"--verbose", &o->verbose, 1}, {"--no-check", &o->no_check, 1},
        {"--kernels", &o->kernels, 1}};
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
            "--op",     "--size",     "--device",     "--channels",   "--reps",
            "--warmup", "--cpu-path", "--seed",       "--dump-input", "--scale",
            "--frames", "--depth",    "--host-alloc", "--threads"};
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
        int n;
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(name, "--op") == 0) {
            int all = strcmp(val, "all") == 0;
            const bench_op *op = all ? NULL : bench_op_find(val);
            if (!all && !op && bench_op_renamed(val)) {
                fprintf(stderr, "%s: op '%s' is named '%s' now\n", prog, val,
                        bench_op_renamed(val));
                return EXIT_USAGE;
            }
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
            if (!bench_parse_int(val, 1, 4, &n) || n == 2)
                return bad_usage("bad channel count '%s': expected 1, 3 or 4", val);
            o->channels = (int)n;
        } else if (strcmp(name, "--scale") == 0) {
            char *end;
            errno = 0;
            double v = strtod(val, &end);
            if (errno || end == val || *end || !(v > 0.0) || v > 64.0)
                return bad_usage("bad --scale '%s': expected a number above 0, at most 64", val);
            o->scale = v;
        } else if (strcmp(name, "--frames") == 0) {
            if (!bench_parse_int(val, 1, 100000, &o->frames))
                return bad_usage("bad --frames '%s': expected a whole number from 1", val);
        } else if (strcmp(name, "--depth") == 0) {
            if (!bench_parse_int(val, 1, MAX_DEPTH, &o->depth))
                return bad_usage("bad --depth '%s': expected a whole number from 1 to 16", val);
        } else if (strcmp(name, "--reps") == 0) {
            if (!bench_parse_int(val, 1, 1000000, &o->reps))
                return bad_usage("bad --reps '%s': expected a whole number from 1", val);
        } else if (strcmp(name, "--warmup") == 0) {
            if (!bench_parse_int(val, 0, 1000000, &o->warmup))
                return bad_usage("bad --warmup '%s': expected a whole number from 0", val);
        } else if (strcmp(name, "--seed") == 0) {
            if (!bench_parse_int(val, 0, 2147483647, &n))
                return bad_usage("bad --seed '%s'", val);
            o->seed = (uint64_t)n;
        } else if (strcmp(name, "--cpu-path") == 0) {
            if (!bench_parse_cpu_path(val, &o->cpu_path))
                return bad_usage("bad --cpu-path '%s': expected auto, scalar or neon", val);
        } else if (strcmp(name, "--threads") == 0) {
            if (!bench_parse_int(val, 1, 256, &o->threads))
                return bad_usage("bad --threads '%s': expected a whole number from 1 to 256", val);
        } else if (strcmp(name, "--dump-input") == 0) {
            o->dump_dir = val;
        } else if (strcmp(name, "--host-alloc") == 0) {
            if (strcmp(val, "malloc") != 0 && strcmp(val, "context") != 0)
                return bad_usage("bad --host-alloc '%s': expected malloc or context", val);
            o->host_context = strcmp(val, "context") == 0;
        } else if (!bench_set_flag(name, flags, sizeof(flags) / sizeof(flags[0]))) {
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
    bench_case bc = {.op = op,
                     .ctx = ctx,
                     .width = w,
                     .height = h,
                     .channels = o->channels,
                     .resident = o->resident,
                     .host_context = o->host_context,
                     .seed = o->seed,
                     .scale = o->scale,
                     .stream_frames = o->frames,
                     .stream_depth = o->depth,
                     .frames = 1};
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
    if (got == CLIK_BACKEND_OPENCL && !bc.no_kernel_time && !o->unprofiled) {
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
    copt.threads = o.threads;
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
    /* On a device, the end-to-end times come from a context without
     * profiling: an event per kernel, and their reading after each call,
     * cost the host time of their own (thousands of launches in a TV-L1
     * call). The profiled context gives the kernel times. */
    clik_context *plain = NULL;
    if (clik_context_device(ctx)) {
        copt.profiling = 0;
        copt.log = NULL;
        if (clik_context_create(&plain, &copt) != CLIK_OK) {
            fprintf(stderr, "%s: cannot create a second context: %s\n", prog,
                    clik_context_message(NULL));
            clik_context_destroy(ctx);
            return EXIT_FAILED;
        }
    }
    for (int i = 0; i < o.nops && rc == 0; i++) {
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            result r, unprofiled;
            memset(&r, 0, sizeof(r));
            rc = measure(&o, ctx, o.ops[i], o.sizes[s][0], o.sizes[s][1], &r);
            r.e2e_profiled_ms = -1.0;
            if (rc == 0 && plain) {
                memset(&unprofiled, 0, sizeof(unprofiled));
                const int kernels = o.kernels;
                o.kernels = 0;
                o.unprofiled = 1;
                rc = measure(&o, plain, o.ops[i], o.sizes[s][0], o.sizes[s][1], &unprofiled);
                o.kernels = kernels;
                o.unprofiled = 0;
                r.e2e_profiled_ms = r.e2e_ms;
                r.e2e_ms = unprofiled.e2e_ms;
                r.e2e_min_ms = unprofiled.e2e_min_ms;
                r.cpu_ms = unprofiled.cpu_ms;
            }
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
    clik_context_destroy(plain);
    clik_context_destroy(ctx);
    return rc;
}

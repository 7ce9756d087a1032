/*
 * call-overhead: the cost of one call of a few public functions on tiny
 * images, where the work is nothing and the call is everything, and of
 * equalize on a 1920x1080 frame for scale. benchmarks/py_overhead.py
 * compares these figures with the same calls through the Python package.
 *
 * Usage: call-overhead [--device SPEC] [--cpu-path auto|scalar|neon]
 *                      [--calls N] [--big-calls N] [--rounds R]
 * Prints one JSON object: the device and backend, and per op the median
 * over R rounds of the nanoseconds per call (each round times N calls in a
 * row, after one untimed call that builds the kernels), with every round's
 * figure. Images are caller memory described with clik_image_wrap(), as
 * the package describes NumPy arrays. --calls defaults to 200000 on the
 * CPU path (device "none") and 2000 on an OpenCL device.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "clik.h"

#define MAX_ROUNDS 101

typedef struct call_op {
    const char *name; /* the package's method name */
    int width, height, out_width, out_height;
    int big; /* timed with --big-calls */
} call_op;

static const call_op ops[] = {
    {"hist_equalize", 1, 1, 1, 1, 0},
    {"pyr_down", 1, 1, 1, 1, 0},
    {"gaussian_blur", 1, 1, 1, 1, 0}, /* ksize 3, sigma from ksize */
    {"resize", 1, 1, 2, 2, 0},        /* nearest */
    {"hist_equalize", 1920, 1080, 1920, 1080, 1},
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static clik_status call(clik_context *ctx, int index, const clik_image *src, clik_image *dst)
{
    switch (index) {
    case 0:
    case 4: return clik_hist_equalize(ctx, src, dst);
    case 1: return clik_pyr_down(ctx, src, dst);
    case 2: return clik_gaussian_blur(ctx, src, dst, 3, 0.0);
    default: return clik_resize(ctx, src, dst, CLIK_INTERP_NEAREST);
    }
}

/* text as a JSON string, quotes included. */
static void put_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}

static void usage(FILE *f)
{
    fprintf(f, "usage: call-overhead [--device SPEC] [--cpu-path auto|scalar|neon] [--calls N]\n"
               "                     [--big-calls N] [--rounds R]\n");
}

int main(int argc, char **argv)
{
    const char *device = "none", *cpu_path = NULL;
    int calls = 0, big_calls = 20, rounds = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--device") && v)
            device = v;
        else if (!strcmp(a, "--cpu-path") && v)
            cpu_path = v;
        else if (!strcmp(a, "--calls"))
            ok = bench_parse_int(v, 1, 100000000, &calls);
        else if (!strcmp(a, "--big-calls"))
            ok = bench_parse_int(v, 1, 100000, &big_calls);
        else if (!strcmp(a, "--rounds"))
            ok = bench_parse_int(v, 1, MAX_ROUNDS, &rounds);
        else
            ok = 0;
        if (!ok) {
            fprintf(stderr, "call-overhead: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        i++;
    }

    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = device;
    if (cpu_path && !bench_parse_cpu_path(cpu_path, &opt.cpu_path)) {
        fprintf(stderr, "call-overhead: --cpu-path %s: expected auto, scalar or neon\n", cpu_path);
        return 2;
    }
    clik_context *ctx;
    clik_status st = clik_context_create(&ctx, &opt);
    if (st != CLIK_OK) {
        fprintf(stderr, "call-overhead: device '%s': %s: %s\n", device, clik_status_str(st),
                clik_context_message(NULL));
        return 1;
    }
    const clik_device_info *info = clik_context_device(ctx);
    if (!calls)
        calls = info ? 2000 : 200000;

    /* The largest image's bytes, shared: noise, so that equalize has work. */
    const size_t big = (size_t)1920 * 1080;
    uint8_t *in = malloc(big), *out = malloc(big);
    if (!in || !out) {
        fprintf(stderr, "call-overhead: out of memory\n");
        return 1;
    }
    uint32_t seed = 12345;
    for (size_t i = 0; i < big; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (uint8_t)(seed >> 24);
    }

    printf("{\"device\": ");
    put_json_string(device);
    printf(", \"device_name\": ");
    put_json_string(info ? info->name : "none");
    printf(", \"calls\": %d, \"big_calls\": %d, \"rounds\": %d, \"ops\": [", calls, big_calls,
           rounds);
    const int nops = (int)(sizeof(ops) / sizeof(ops[0]));
    for (int k = 0; k < nops; k++) {
        const call_op *op = &ops[k];
        clik_image src, dst;
        st = clik_image_wrap(&src, op->width, op->height, 1, CLIK_U8, in, 0);
        if (st == CLIK_OK)
            st = clik_image_wrap(&dst, op->out_width, op->out_height, 1, CLIK_U8, out, 0);
        if (st == CLIK_OK)
            st = call(ctx, k, &src, &dst); /* builds the kernels */
        const int n = op->big ? big_calls : calls;
        double per_call[MAX_ROUNDS];
        for (int r = 0; r < rounds && st == CLIK_OK; r++) {
            double t0 = now_ns();
            for (int i = 0; i < n && st == CLIK_OK; i++)
                st = call(ctx, k, &src, &dst);
            per_call[r] = (now_ns() - t0) / n;
        }
        if (st != CLIK_OK) {
            fprintf(stderr, "\ncall-overhead: %s %dx%d: %s: %s\n", op->name, op->width, op->height,
                    clik_status_str(st), clik_context_message(ctx));
            return 1;
        }
        printf("%s\n  {\"op\": \"%s\", \"size\": \"%dx%d\", \"out_size\": \"%dx%d\", "
               "\"calls\": %d, \"backend\": \"%s\", \"ns_per_call\": %.1f, \"rounds_ns\": [",
               k ? "," : "", op->name, op->width, op->height, op->out_width, op->out_height, n,
               clik_backend_name(clik_context_last_backend(ctx)), median(per_call, rounds));
        for (int r = 0; r < rounds; r++)
            printf("%s%.1f", r ? ", " : "", per_call[r]);
        printf("]}");
    }
    printf("\n]}\n");
    free(in);
    free(out);
    clik_context_destroy(ctx);
    return 0;
}

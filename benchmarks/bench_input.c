/*
 * Deterministic natural-looking inputs for clik-bench: value noise of three
 * octaves (smooth regions, soft edges, texture) plus fine sensor-like noise.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "bench.h"

#define OCTAVES 3

/* Cell size (pixels between lattice points) and weight of each octave. The
 * sizes are not powers of two so that octaves never line up. */
static const int cell_size[OCTAVES] = {283, 61, 11};
static const float octave_weight[OCTAVES] = {0.62f, 0.26f, 0.12f};

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value in [0, 1) for lattice point (ix, iy) of one octave and channel. */
static float lattice(uint64_t key, int ix, int iy)
{
    uint64_t h = mix64(key ^ mix64(((uint64_t)(uint32_t)ix << 32) | (uint32_t)iy));
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

static float smooth(float t)
{
    return t * t * (3.0f - 2.0f * t);
}

typedef struct octave {
    int cell;
    int offset_x, offset_y; /* shifts the lattice off the image origin */
    int *cell_x;            /* lattice column left of each pixel */
    float *weight_x;        /* smoothed fraction towards the next column */
    int grid_w, grid_h;
    float *grid; /* (grid_h) x (grid_w) lattice values */
} octave;

static int octave_init(octave *o, int width, int height, int cell, uint64_t key)
{
    memset(o, 0, sizeof(*o));
    o->cell = cell;
    o->offset_x = (int)(mix64(key + 1) % (uint64_t)cell);
    o->offset_y = (int)(mix64(key + 2) % (uint64_t)cell);
    o->grid_w = (width + o->offset_x) / cell + 2;
    o->grid_h = (height + o->offset_y) / cell + 2;
    o->cell_x = malloc((size_t)width * sizeof(int));
    o->weight_x = malloc((size_t)width * sizeof(float));
    o->grid = malloc((size_t)o->grid_w * (size_t)o->grid_h * sizeof(float));
    if (!o->cell_x || !o->weight_x || !o->grid)
        return 0;
    for (int x = 0; x < width; x++) {
        int px = x + o->offset_x;
        o->cell_x[x] = px / cell;
        o->weight_x[x] = smooth((float)(px % cell) / (float)cell);
    }
    for (int gy = 0; gy < o->grid_h; gy++)
        for (int gx = 0; gx < o->grid_w; gx++)
            o->grid[(size_t)gy * (size_t)o->grid_w + (size_t)gx] = lattice(key, gx, gy);
    return 1;
}

static void octave_free(octave *o)
{
    free(o->cell_x);
    free(o->weight_x);
    free(o->grid);
}

/* Adds weight * field(x, y) to acc[x] for one row. */
static void octave_row(const octave *o, int y, int width, float weight, float *acc)
{
    int py = y + o->offset_y;
    int gy = py / o->cell;
    float wy = smooth((float)(py % o->cell) / (float)o->cell);
    const float *r0 = o->grid + (size_t)gy * (size_t)o->grid_w;
    const float *r1 = r0 + o->grid_w;
    for (int x = 0; x < width; x++) {
        int gx = o->cell_x[x];
        float wx = o->weight_x[x];
        float top = r0[gx] + (r0[gx + 1] - r0[gx]) * wx;
        float bottom = r1[gx] + (r1[gx + 1] - r1[gx]) * wx;
        acc[x] += weight * (top + (bottom - top) * wy);
    }
}

void bench_fill_natural(clik_image *img, uint64_t seed)
{
    const int w = img->width, h = img->height, ch = img->channels;
    octave oct[4][OCTAVES];
    float *acc = malloc((size_t)w * sizeof(float));
    int ok = acc != NULL;
    int built = 0;
    for (int c = 0; c < ch && ok; c++) {
        for (int i = 0; i < OCTAVES && ok; i++) {
            uint64_t key = mix64(seed * 0x9e3779b97f4a7c15ull + (uint64_t)(c * OCTAVES + i) + 1);
            ok = octave_init(&oct[c][i], w, h, cell_size[i], key);
            built++;
        }
    }
    uint64_t noise = mix64(seed ^ 0x6a09e667f3bcc909ull);
    for (int y = 0; y < h && ok; y++) {
        uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
        for (int c = 0; c < ch; c++) {
            memset(acc, 0, (size_t)w * sizeof(float));
            for (int i = 0; i < OCTAVES; i++)
                octave_row(&oct[c][i], y, w, octave_weight[i], acc);
            /* Each channel its own brightness and contrast, as in photographs. */
            const float gain = 380.0f + 40.0f * (float)c;
            const float bias = 128.0f - 12.0f * (float)c;
            for (int x = 0; x < w; x++) {
                noise = noise * 6364136223846793005ull + 1442695040888963407ull;
                /* Triangular noise of about +-6 levels from two bytes. */
                int n = (int)((noise >> 56) & 0xff) + (int)((noise >> 48) & 0xff) - 255;
                float v = bias + gain * (acc[x] - 0.5f) + (float)n * (6.0f / 255.0f);
                int q = (int)(v + 0.5f);
                row[(size_t)x * (size_t)ch + (size_t)c] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            }
        }
    }
    int k = 0;
    for (int c = 0; c < ch; c++)
        for (int i = 0; i < OCTAVES; i++)
            if (k++ < built)
                octave_free(&oct[c][i]);
    free(acc);
    if (!ok) {
        /* Out of memory for the lattices: still deterministic, never constant. */
        for (int y = 0; y < h; y++)
            for (size_t x = 0; x < (size_t)w * (size_t)ch; x++)
                ((uint8_t *)img->data)[(size_t)y * img->stride + x] =
                    (uint8_t)(mix64(seed + (uint64_t)y * 65537u + x) >> 56);
    }
}

int bench_write_pnm(const clik_image *img, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    static const char *const tuple[5] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    if (img->channels == 1)
        fprintf(f, "P5\n%d %d\n255\n", img->width, img->height);
    else
        fprintf(f, "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL 255\nTUPLTYPE %s\nENDHDR\n",
                img->width, img->height, img->channels, tuple[img->channels]);
    size_t row = (size_t)img->width * (size_t)img->channels;
    int err = 0;
    for (int y = 0; y < img->height && !err; y++)
        err = fwrite((const uint8_t *)img->data + (size_t)y * img->stride, 1, row, f) != row;
    if (fclose(f) != 0)
        err = 1;
    return err ? -1 : 0;
}

/* ---- timing ------------------------------------------------------------------- */

int bench_failed(const char *prog, clik_context *ctx, clik_status st, const char *what)
{
    const char *msg = clik_context_message(ctx);
    fprintf(stderr, "%s: %s: %s%s%s\n", prog, what, clik_status_str(st), *msg ? ": " : "", msg);
    return EXIT_FAILED;
}

int bench_open_context(const char *prog, const char *device, int strict, clik_context **ctx)
{
    clik_context_options copt;
    clik_context_options_init(&copt);
    copt.device = device;
    copt.strict = strict;
    *ctx = NULL;
    clik_status st = clik_context_create(ctx, &copt);
    if (st == CLIK_ERR_NO_DEVICE) {
        fprintf(stderr, "%s: skipped: %s\n", prog, clik_context_message(NULL));
        return EXIT_SKIP;
    }
    return st == CLIK_OK ? 0 : bench_failed(prog, NULL, st, "clik_context_create");
}

int bench_parse_int(const char *s, int lo, int hi, int *out)
{
    if (!s || !*s || s[strspn(s, "0123456789")] != '\0')
        return 0;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

int bench_set_flag(const char *arg, const bench_flag *flags, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(arg, flags[i].name) == 0) {
            *flags[i].field = flags[i].value;
            return 1;
        }
    return 0;
}

int bench_parse_cpu_path(const char *s, clik_cpu_path *out)
{
    static const char *const names[] = {
        [CLIK_CPU_AUTO] = "auto", [CLIK_CPU_SCALAR] = "scalar", [CLIK_CPU_NEON] = "neon"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (clik_cpu_path)i;
            return 1;
        }
    return 0;
}

const char *bench_device_type_name(const clik_device_info *d)
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

double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double bench_cpu_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

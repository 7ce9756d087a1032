/* Deterministic synthetic test images. SPDX-License-Identifier: BSD-2-Clause */
#include "patterns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t sup_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *state)
{
    return (double)(sup_rand_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

const char *sup_pattern_name(sup_pattern p)
{
    static const char *const names[] = {"noise", "gradient", "edges", "checker", "smooth"};
    return p < SUP_PATTERN_COUNT ? names[p] : "unknown";
}

/* The state of one fill: values in [0, 1] by pattern, made a row at a time. */
typedef struct field {
    sup_pattern pattern;
    uint64_t state;
    int width, height, channels;
    /* edges: rectangles x0, y0, x1, y1, level */
    int rects[12][5];
    /* smooth: coarse grid */
    double *grid;
    int gw, gh, cell;
} field;

/* Pixels x0..x1-1 of row y of the smooth pattern: bilinear between the
 * values of a coarse grid, one grid per channel. */
static void smooth_run(const field *f, int y, int x0, int x1, double *v)
{
    const double gy = (double)y / f->cell;
    const int gy0 = (int)gy;
    const double fy = gy - gy0;
    const size_t plane = (size_t)f->gw * (size_t)f->gh;
    for (int x = x0; x < x1; x++) {
        const double gx = (double)x / f->cell;
        const int gx0 = (int)gx;
        const double fx = gx - gx0;
        for (int c = 0; c < f->channels; c++) {
            const double *g = f->grid + (size_t)c * plane;
            double a = g[gy0 * f->gw + gx0], b = g[gy0 * f->gw + gx0 + 1];
            double d = g[(gy0 + 1) * f->gw + gx0], e = g[(gy0 + 1) * f->gw + gx0 + 1];
            *v++ = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy;
        }
    }
}

/* Pixels x0..x1-1 of row y of the edges pattern: the last rectangle holding
 * a pixel sets it. */
static void edges_run(const field *f, int y, int x0, int x1, double *v)
{
    int active[12], n = 0;
    for (int i = 0; i < 12; i++)
        if (y >= f->rects[i][1] && y < f->rects[i][3])
            active[n++] = i;
    for (int x = x0; x < x1; x++) {
        int last = -1;
        for (int k = 0; k < n; k++)
            if (x >= f->rects[active[k]][0] && x < f->rects[active[k]][2])
                last = active[k];
        for (int c = 0; c < f->channels; c++)
            *v++ = last >= 0 ? f->rects[last][4] / 255.0 : 0.15 + 0.1 * c;
    }
}

/* The values of pixels x0..x1-1 of row y, channels interleaved: filled in
 * memory order, so that the noise pattern draws its numbers in that order. */
static void pattern_run(field *f, int y, int x0, int x1, double *v)
{
    const int ch = f->channels;
    switch (f->pattern) {
    case SUP_PATTERN_NOISE:
        for (int i = 0; i < (x1 - x0) * ch; i++)
            v[i] = unit(&f->state);
        return;
    case SUP_PATTERN_GRADIENT: {
        double span = (double)(f->width + f->height - 1);
        for (int x = x0; x < x1; x++) {
            double g = span > 1 ? (double)(x + y) / (span - 1) : 0.5;
            for (int c = 0; c < ch; c++)
                *v++ = c % 2 ? 1.0 - g : g;
        }
        return;
    }
    case SUP_PATTERN_EDGES: edges_run(f, y, x0, x1, v); return;
    case SUP_PATTERN_CHECKER:
        for (int x = x0; x < x1; x++)
            for (int c = 0; c < ch; c++)
                *v++ = ((x / 8 + y / 8 + c) & 1) ? 0.86 : 0.12;
        return;
    case SUP_PATTERN_SMOOTH: smooth_run(f, y, x0, x1, v); return;
    default:
        for (int i = 0; i < (x1 - x0) * ch; i++)
            v[i] = 0.0;
    }
}

/* Stores n values of [0, 1] as elements of type t, scaled to its range. */
static void store_run(void *row, clik_type t, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case CLIK_U8: ((uint8_t *)row)[i] = (uint8_t)lrint(v[i] * 255.0); break;
        case CLIK_U16: ((uint16_t *)row)[i] = (uint16_t)lrint(v[i] * 65535.0); break;
        case CLIK_S16: ((int16_t *)row)[i] = (int16_t)lrint(v[i] * 65535.0 - 32768.0); break;
        case CLIK_S32: ((int32_t *)row)[i] = (int32_t)lrint(v[i] * 255.0); break;
        case CLIK_U32: ((uint32_t *)row)[i] = (uint32_t)lrint(v[i] * 255.0); break;
        case CLIK_U64: ((uint64_t *)row)[i] = (uint64_t)lrint(v[i] * 255.0); break;
        case CLIK_F32: ((float *)row)[i] = (float)(v[i] * 255.0); break;
        case CLIK_F64: ((double *)row)[i] = v[i] * 255.0; break;
        case CLIK_F16: ((uint16_t *)row)[i] = 0; break; /* not generated */
        }
    }
}

void sup_pattern_fill(clik_image *img, sup_pattern pattern, uint64_t seed)
{
    field f = {.pattern = pattern,
               .state = seed * 0x2545f4914f6cdd1dull + (uint64_t)pattern,
               .width = img->width,
               .height = img->height,
               .channels = img->channels};
    if (pattern == SUP_PATTERN_EDGES) {
        for (int i = 0; i < 12; i++) {
            int x0 = (int)(unit(&f.state) * img->width), y0 = (int)(unit(&f.state) * img->height);
            f.rects[i][0] = x0;
            f.rects[i][1] = y0;
            f.rects[i][2] = x0 + 1 + (int)(unit(&f.state) * img->width / 2);
            f.rects[i][3] = y0 + 1 + (int)(unit(&f.state) * img->height / 2);
            f.rects[i][4] = (int)(unit(&f.state) * 256) & 255;
        }
    }
    if (pattern == SUP_PATTERN_SMOOTH) {
        f.cell = 16;
        f.gw = img->width / f.cell + 2;
        f.gh = img->height / f.cell + 2;
        f.grid = malloc(sizeof(double) * (size_t)f.gw * (size_t)f.gh * (size_t)img->channels);
        if (!f.grid) {
            f.pattern = SUP_PATTERN_GRADIENT; /* still deterministic */
        } else {
            for (size_t i = 0; i < (size_t)f.gw * (size_t)f.gh * (size_t)img->channels; i++)
                f.grid[i] = unit(&f.state);
        }
    }
    double values[1024]; /* a run of pixels at a time */
    const int run =
        (int)(sizeof(values) / sizeof(values[0])) / (img->channels > 0 ? img->channels : 1);
    const size_t es = clik_type_size(img->type);
    for (int y = 0; y < img->height; y++) {
        char *row = (char *)img->data + (size_t)y * img->stride;
        for (int x0 = 0; x0 < img->width; x0 += run) {
            const int x1 = img->width - x0 < run ? img->width : x0 + run;
            const size_t first = (size_t)x0 * (size_t)img->channels;
            pattern_run(&f, y, x0, x1, values);
            store_run(row + first * es, img->type, values,
                      (size_t)(x1 - x0) * (size_t)img->channels);
        }
    }
    free(f.grid);
}

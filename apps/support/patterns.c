/* Deterministic synthetic test images. SPDX-License-Identifier: BSD-2-Clause */
#include "patterns.h"

#include <math.h>
#include <stdlib.h>

uint64_t clik_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *state)
{
    return (double)(clik_rand_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

const char *clik_pattern_name(clik_pattern p)
{
    static const char *const names[] = {"noise", "gradient", "edges", "checker", "smooth"};
    return p < CLIK_PATTERN_COUNT ? names[p] : "unknown";
}

/* Value in [0, 1] of pattern p at (x, y, c). */
typedef struct field {
    clik_pattern pattern;
    uint64_t state;
    int width, height;
    /* edges: rectangles */
    int rects[12][5];
    /* smooth: coarse grid */
    double *grid;
    int gw, gh, cell;
} field;

static double smooth_at(const field *f, int x, int y, int c)
{
    double gx = (double)x / f->cell, gy = (double)y / f->cell;
    int x0 = (int)gx, y0 = (int)gy;
    double fx = gx - x0, fy = gy - y0;
    const double *g = f->grid + (size_t)c * f->gw * f->gh;
    double a = g[y0 * f->gw + x0], b = g[y0 * f->gw + x0 + 1];
    double d = g[(y0 + 1) * f->gw + x0], e = g[(y0 + 1) * f->gw + x0 + 1];
    return (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy;
}

static double value_at(field *f, int x, int y, int c)
{
    switch (f->pattern) {
    case CLIK_PATTERN_NOISE: return unit(&f->state);
    case CLIK_PATTERN_GRADIENT: {
        double span = (double)(f->width + f->height - 1);
        double v = span > 1 ? (double)(x + y) / (span - 1) : 0.5;
        return c % 2 ? 1.0 - v : v;
    }
    case CLIK_PATTERN_EDGES: {
        double v = 0.15 + 0.1 * c;
        for (int i = 0; i < 12; i++) {
            const int *r = f->rects[i];
            if (x >= r[0] && x < r[2] && y >= r[1] && y < r[3])
                v = r[4] / 255.0;
        }
        return v;
    }
    case CLIK_PATTERN_CHECKER: return ((x / 8 + y / 8 + c) & 1) ? 0.86 : 0.12;
    case CLIK_PATTERN_SMOOTH: return smooth_at(f, x, y, c);
    default: return 0.0;
    }
}

static void store(clik_image *img, int x, int y, int c, double v)
{
    char *row = (char *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case CLIK_U8: ((uint8_t *)row)[i] = (uint8_t)lrint(v * 255.0); break;
    case CLIK_U16: ((uint16_t *)row)[i] = (uint16_t)lrint(v * 65535.0); break;
    case CLIK_S16: ((int16_t *)row)[i] = (int16_t)lrint(v * 65535.0 - 32768.0); break;
    case CLIK_S32: ((int32_t *)row)[i] = (int32_t)lrint(v * 255.0); break;
    case CLIK_U32: ((uint32_t *)row)[i] = (uint32_t)lrint(v * 255.0); break;
    case CLIK_U64: ((uint64_t *)row)[i] = (uint64_t)lrint(v * 255.0); break;
    case CLIK_F32: ((float *)row)[i] = (float)(v * 255.0); break;
    case CLIK_F64: ((double *)row)[i] = v * 255.0; break;
    case CLIK_F16: ((uint16_t *)row)[i] = 0; break; /* not generated */
    }
}

void clik_pattern_fill(clik_image *img, clik_pattern pattern, uint64_t seed)
{
    field f = {.pattern = pattern,
               .state = seed * 0x2545f4914f6cdd1dull + (uint64_t)pattern,
               .width = img->width,
               .height = img->height};
    if (pattern == CLIK_PATTERN_EDGES) {
        for (int i = 0; i < 12; i++) {
            int x0 = (int)(unit(&f.state) * img->width), y0 = (int)(unit(&f.state) * img->height);
            f.rects[i][0] = x0;
            f.rects[i][1] = y0;
            f.rects[i][2] = x0 + 1 + (int)(unit(&f.state) * img->width / 2);
            f.rects[i][3] = y0 + 1 + (int)(unit(&f.state) * img->height / 2);
            f.rects[i][4] = (int)(unit(&f.state) * 256) & 255;
        }
    }
    if (pattern == CLIK_PATTERN_SMOOTH) {
        f.cell = 16;
        f.gw = img->width / f.cell + 2;
        f.gh = img->height / f.cell + 2;
        f.grid = malloc(sizeof(double) * (size_t)f.gw * (size_t)f.gh * (size_t)img->channels);
        if (!f.grid) {
            f.pattern = CLIK_PATTERN_GRADIENT; /* still deterministic */
        } else {
            for (size_t i = 0; i < (size_t)f.gw * (size_t)f.gh * (size_t)img->channels; i++)
                f.grid[i] = unit(&f.state);
        }
    }
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++)
                store(img, x, y, c, value_at(&f, x, y, c));
    free(f.grid);
}

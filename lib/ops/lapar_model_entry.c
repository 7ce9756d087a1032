/*
 * LAPAR model family: a model in memory. Its entries (one per scale), the
 * buckets of an entry, the transform group of symmetric models, and the
 * table of every bucket's filter that classification and the upscale read;
 * combining and describing models. The file format is lapar_model_file.c,
 * classification and the upscale lapar_model.c, training lapar_train.c.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_model_entry.h"

/* ---- an entry's options (the trainer's defaults)
 * ---------------------------------------------------------------------------- */

void clik_lapar_model_options_init(clik_lapar_model_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof(*opt));
    opt->scale = 2;
    opt->angles = 16;
    opt->strengths = 3;
    opt->coherences = 3;
    opt->phases = 0;
    opt->window = 5;
    opt->atoms = 13;
    opt->kernel = 0;
    opt->symmetry = 1;
    opt->alpha = 1e-5;
    opt->min_samples = 64;
    opt->f16 = 1;
}

/* ---- small helpers ------------------------------------------------------------------- */

int clik__lmodel_valid_window(int n)
{
    return n == 3 || n == 5 || n == 7 || n == 9;
}

long clik__lmodel_bucket_count(int scale, int angles, int strengths, int coherences, int phases)
{
    return (long)(phases ? scale * scale : 1) * angles * strengths * coherences;
}

/* Every atom of the default dictionary, as doubles. */
void clik__lmodel_dictionary(double *d)
{
    float f[CLIK_LAPAR_ATOMS * TAPS];
    clik_lapar_dict_default(f);
    for (int i = 0; i < CLIK_LAPAR_ATOMS * TAPS; i++)
        d[i] = f[i];
}

/* ---- the transform group of symmetric models ------------------------------------------ */

/* Group elements are 3 bits: 1 transposes (x <-> y), then 2 flips x, then 4
 * flips y. The subgroup of order n: 1 {id}; 2 {id, rotation by 180
 * degrees}; 4 {id, flip x, flip y, rotation}; 8 all. On a filter tap at
 * offset (dx, dy); on a phase (px, py) = (x mod s, y mod s); on an angle
 * bin a of A (theta, twice the gradient's angle: transposition gives pi -
 * theta, a flip -theta; the bins are centred, so a -> A/2 - a (A even) and a
 * -> -a, mod A); strength and coherence are invariant. The image transformed
 * by g has U, its structure tensor and its buckets transformed by g (the
 * antialiased downscale, the bicubic upsample, the gradient and the
 * binomial window are symmetric, and so are reflect-101 borders): so the
 * filter of bucket g(b) is F_b with its taps moved by g. */
int clik__lmodel_group_element(int symmetry, int i)
{
    static const int two[2] = {0, 6}, four[4] = {0, 2, 4, 6};
    return symmetry == 2 ? two[i] : symmetry == 4 ? four[i] : i;
}

static void move_offset(int g, int *dx, int *dy)
{
    if (g & 1) {
        const int t = *dx;
        *dx = *dy;
        *dy = t;
    }
    if (g & 2)
        *dx = -*dx;
    if (g & 4)
        *dy = -*dy;
}

/* The tap t of a k x k filter moved by g. */
int clik__lmodel_group_tap(int k, int g, int t)
{
    const int h = k / 2;
    int dx = t % k - h, dy = t / k - h;
    move_offset(g, &dx, &dy);
    return (dy + h) * k + (dx + h);
}

/* Bucket b of e moved by g. */
int clik__lmodel_group_bucket(const model_entry *e, int g, int b)
{
    const int C = e->coherences, S = e->strengths, A = e->angles, s = e->scale;
    const int cb = b % C, sb = b / C % S, ang = b / (C * S) % A, phase = b / (C * S * A);
    int px = phase % s, py = phase / s;
    if (e->phases) {
        /* (x mod s) of the moved pixel: a transposition swaps, a flip maps x
         * to W - 1 - x with W a multiple of s. */
        if (g & 1) {
            const int t = px;
            px = py;
            py = t;
        }
        if (g & 2)
            px = s - 1 - px;
        if (g & 4)
            py = s - 1 - py;
    }
    int a = ang;
    if (g & 1)
        a = A / 2 - a;
    if (g & 2)
        a = -a;
    if (g & 4)
        a = -a;
    a = ((a % A) + A) % A;
    const int ph = e->phases ? py * s + px : 0;
    return ((ph * A + a) * S + sb) * C + cb;
}

/* The least bucket of b's orbit, and into *via the first element taking b
 * there. */
int clik__lmodel_group_canonical(const model_entry *e, int b, int *via)
{
    int best = b, g_best = 0;
    for (int i = 1; i < e->symmetry; i++) {
        const int g = clik__lmodel_group_element(e->symmetry, i),
                  m = clik__lmodel_group_bucket(e, g, b);
        if (m < best) {
            best = m;
            g_best = g;
        }
    }
    if (via)
        *via = g_best;
    return best;
}

int clik__lmodel_stored_count(const model_entry *e)
{
    int n = 0;
    for (int b = 0; b < e->buckets; b++)
        n += clik__lmodel_group_canonical(e, b, NULL) == b;
    return n;
}

/* The filter table of e (both layouts; see model_entry), uninitialised. */
float *clik__lmodel_alloc_filters(const model_entry *e)
{
    return malloc(2 * sizeof(float) * (size_t)e->buckets * (size_t)e->ksize * (size_t)e->ksize);
}

static int filters_finite(const model_entry *e)
{
    const size_t n = (size_t)e->buckets * (size_t)e->ksize * (size_t)e->ksize;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(e->filters[i]))
            return 0;
    return 1;
}

/* The table of every bucket's k x k filter from the coefficients: 0, -1
 * when out of memory, -2 when a dictionary model's filter overflows float. */
int clik__lmodel_make_filters(model_entry *e)
{
    const int taps = e->ksize * e->ksize;
    if (e->kind == 1) {
        int *row = malloc(sizeof(int) * (size_t)e->buckets);
        if (!row)
            return -1;
        for (int b = 0, n = 0; b < e->buckets; b++) {
            int g;
            const int c = clik__lmodel_group_canonical(e, b, &g);
            row[b] = c == b ? n++ : row[c];
            /* F_b = F_c with its taps moved by g^-1: F_b[t] = F_c[g(t)]. */
            const float *fc = e->coef + (size_t)row[b] * (size_t)taps;
            for (int t = 0; t < taps; t++)
                e->filters[(size_t)b * (size_t)taps + (size_t)t] =
                    fc[clik__lmodel_group_tap(e->ksize, g, t)];
        }
        free(row);
    } else {
        double d[CLIK_LAPAR_ATOMS * TAPS];
        clik__lmodel_dictionary(d);
        for (int b = 0; b < e->buckets; b++)
            for (int k = 0; k < TAPS; k++) {
                double s = 0.0;
                for (int l = 0; l < e->atoms; l++)
                    s += (double)e->coef[(size_t)b * (size_t)e->atoms + (size_t)l] *
                         d[e->index[l] * TAPS + k];
                e->filters[(size_t)b * TAPS + (size_t)k] = (float)s;
            }
        if (!filters_finite(e))
            return -2;
    }
    const size_t nb = (size_t)e->buckets, nt = (size_t)taps;
    float *by_tap = e->filters + nb * nt;
    for (size_t b = 0; b < nb; b++)
        for (size_t t = 0; t < nt; t++)
            by_tap[t * nb + b] = e->filters[b * nt + t];
    return 0;
}

void clik__lmodel_entry_free(model_entry *e)
{
    free(e->coef);
    free(e->filters);
    e->coef = e->filters = NULL;
}

clik_lapar_model *clik__lmodel_model_new(void)
{
    return calloc(1, sizeof(clik_lapar_model));
}

void clik_lapar_model_free(clik_lapar_model *model)
{
    if (!model || model->is_default)
        return;
    for (int i = 0; i < model->count; i++)
        clik__lmodel_entry_free(&model->e[i]);
    free(model);
}

const model_entry *clik__lmodel_entry_for(const clik_lapar_model *m, int scale)
{
    for (int i = 0; m && i < m->count; i++)
        if (m->e[i].scale == scale)
            return &m->e[i];
    return NULL;
}

/* ---- combining and describing ---------------------------------------------------------- */

static clik_status entry_copy(const model_entry *from, model_entry *to)
{
    *to = *from;
    const size_t values = (size_t)from->stored * (size_t)from->atoms;
    const size_t taps = (size_t)from->buckets * (size_t)from->ksize * (size_t)from->ksize;
    to->coef = malloc(values * sizeof(float));
    to->filters = clik__lmodel_alloc_filters(from);
    if (!to->coef || !to->filters) {
        clik__lmodel_entry_free(to);
        return CLIK_ERR_NO_MEMORY;
    }
    memcpy(to->coef, from->coef, values * sizeof(float));
    memcpy(to->filters, from->filters, 2 * taps * sizeof(float));
    return CLIK_OK;
}

clik_status clik_lapar_model_combine(clik_context *ctx, const clik_lapar_model *a,
                                     const clik_lapar_model *b, clik_lapar_model **out)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!a || !b || !out)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_combine: %s is NULL",
                          !a   ? "a"
                          : !b ? "b"
                               : "out");
    if (a->count + b->count > MAX_ENTRIES)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_model_combine: %d entries in all (at most %d)",
                          a->count + b->count, MAX_ENTRIES);
    for (int i = 0; i < b->count; i++)
        if (clik__lmodel_entry_for(a, b->e[i].scale))
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              "clik_lapar_model_combine: both models have scale %d", b->e[i].scale);
    clik_lapar_model *m = clik__lmodel_model_new();
    if (!m)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_model_combine: out of memory");
    for (int i = 0; i < a->count + b->count; i++) {
        const model_entry *from = i < a->count ? &a->e[i] : &b->e[i - a->count];
        if (entry_copy(from, &m->e[i]) != CLIK_OK) {
            clik_lapar_model_free(m);
            return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_model_combine: out of memory");
        }
        m->count = i + 1;
    }
    *out = m;
    return CLIK_OK;
}

/* ---- options ---------------------------------------------------------------------------- */
clik_status clik_lapar_model_describe(clik_context *ctx, const clik_lapar_model *model, int scale,
                                      clik_lapar_model_options *opt)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!model || !opt)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_describe: %s is NULL",
                          !model ? "model" : "opt");
    const model_entry *e = clik__lmodel_entry_for(model, scale);
    if (!e)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_model_describe: the model has no entry for scale %d", scale);
    clik_lapar_model_options_init(opt);
    COPY_GRID(opt, e);
    if (e->kind == 0)
        opt->atoms = e->atoms;
    opt->kernel = e->kind == 0 ? 0 : e->ksize;
    opt->symmetry = e->symmetry;
    opt->f16 = e->f16;
    COPY_EDGES(opt, e);
    return CLIK_OK;
}

/* ---- the embedded default --------------------------------------------------------------- */

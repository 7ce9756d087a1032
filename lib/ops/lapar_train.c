/*
 * LAPAR model family: training (clik_lapar_trainer: ridge least squares per
 * bucket, in closed form, of the patches of U against the high-resolution
 * image) and the options it takes (clik_lapar_model_options).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_model_entry.h"

/* The default edges for a bin count: strength geometric from 2.5 to 10 (S -
 * 1 edges; one edge: 5), coherence uniform in (0, 1): k / C. */
static void default_edges(int strengths, int coherences, float *se, float *ce)
{
    for (int k = 0; k < strengths - 1; k++)
        se[k] =
            strengths == 2 ? 5.0f : (float)(2.5 * pow(4.0, (double)k / (double)(strengths - 2)));
    for (int k = 0; k < coherences - 1; k++)
        ce[k] = (float)((double)(k + 1) / (double)coherences);
}

static int edges_unset(const float *e, int n)
{
    for (int k = 0; k < n; k++)
        if (e[k] != 0.0f)
            return 0;
    return 1;
}

static clik_status check_edges(clik_context *ctx, const float *e, int n, const char *what)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(e[k]) || (k > 0 && !(e[k] > e[k - 1])))
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              "clik_lapar_trainer_create: %s edge %d (%g) is not finite and "
                              "increasing",
                              what, k, (double)e[k]);
    return CLIK_OK;
}

/* Checks opt and fills an entry's parameters from it (no coefficients). */
static clik_status entry_from_options(clik_context *ctx, const clik_lapar_model_options *o,
                                      model_entry *e)
{
    const char *fn = "clik_lapar_trainer_create";
    if (o->scale < 2 || o->scale > 4)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: scale %d is not 2, 3 or 4", fn, o->scale);
    if (o->angles < 1 || o->angles > NBINS || o->strengths < 1 || o->strengths > NBINS ||
        o->coherences < 1 || o->coherences > NBINS)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: bins %d, %d, %d (angle, strength, coherence: each 1..%d)", fn,
                          o->angles, o->strengths, o->coherences, NBINS);
    if (o->phases != 0 && o->phases != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: phases %d is not 0 or 1", fn, o->phases);
    if (!clik__lmodel_valid_window(o->window))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: window %d is not 3, 5, 7 or 9", fn,
                          o->window);
    if (o->kernel != 0 && o->kernel != 5 && o->kernel != 7)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: kernel %d is not 0, 5 or 7", fn,
                          o->kernel);
    if (o->symmetry != 1 &&
        (o->kernel == 0 || (o->symmetry != 2 && o->symmetry != 4 && o->symmetry != 8)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: symmetry %d is not 1%s", fn, o->symmetry,
                          o->kernel == 0 ? " (kernel 0)" : ", 2, 4 or 8");
    if (o->symmetry == 8 && o->angles % 2 != 0 && o->angles != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: symmetry 8 needs an even angle count, not %d", fn, o->angles);
    if (o->kernel == 0 && o->atoms != CLIK_LAPAR_ATOMS && (o->atoms < 1 || o->atoms > TAPS))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: atoms %d is not %d nor 1..%d", fn,
                          o->atoms, CLIK_LAPAR_ATOMS, TAPS);
    if (!(o->alpha >= 0.0) || !isfinite(o->alpha))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: alpha %g is not finite and >= 0", fn,
                          o->alpha);
    if (o->min_samples < 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: min_samples %d is negative", fn,
                          o->min_samples);
    if (o->f16 != 0 && o->f16 != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: f16 %d is not 0 or 1", fn, o->f16);
    const long buckets =
        clik__lmodel_bucket_count(o->scale, o->angles, o->strengths, o->coherences, o->phases);
    if (buckets > CLIK_LAPAR_MODEL_MAX_BUCKETS)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: %ld buckets (at most %d)", fn, buckets,
                          CLIK_LAPAR_MODEL_MAX_BUCKETS);
    memset(e, 0, sizeof(*e));
    COPY_GRID(e, o);
    e->kind = o->kernel != 0;
    e->ksize = o->kernel != 0 ? o->kernel : 5;
    e->symmetry = o->symmetry;
    e->atoms = o->kernel != 0 ? o->kernel * o->kernel : o->atoms;
    e->f16 = o->f16;
    e->buckets = (int)buckets;
    e->stored = e->symmetry == 1 ? e->buckets : clik__lmodel_stored_count(e);
    float se[NBINS - 1], ce[NBINS - 1];
    default_edges(o->strengths, o->coherences, se, ce);
    if (!edges_unset(o->strength_edges, o->strengths - 1))
        memcpy(se, o->strength_edges, sizeof(se));
    if (!edges_unset(o->coherence_edges, o->coherences - 1))
        memcpy(ce, o->coherence_edges, sizeof(ce));
    clik_status st = check_edges(ctx, se, o->strengths - 1, "strength");
    if (st == CLIK_OK)
        st = check_edges(ctx, ce, o->coherences - 1, "coherence");
    memcpy(e->strength_edges, se, sizeof(se));
    memcpy(e->coherence_edges, ce, sizeof(ce));
    return st;
}

/* ---- training ----------------------------------------------------------------------------- */

/* Per bucket the normal equations of the patch (T = k k taps) against the
 * HR value: sum z z^T (upper triangle, row by row, T (T + 1) / 2), then sum
 * z y (T): `stride` doubles; and the sample count. */
struct clik_lapar_trainer {
    clik_context *ctx;
    clik_lapar_model_options opt;
    model_entry e; /* parameters; no coefficients */
    int taps;      /* T */
    size_t stride; /* T (T + 1) / 2 + T */
    double *acc;   /* e.buckets x stride */
    uint64_t *n;   /* e.buckets */
    uint64_t samples;
};

/* Pivoted Gram-Schmidt on the dictionary: k atoms, each the one whose part
 * orthogonal to those before is largest (ties: the lower index); returned
 * in increasing order. */
static void choose_atoms(int k, int *index)
{
    double d[CLIK_LAPAR_ATOMS * TAPS];
    clik__lmodel_dictionary(d);
    int taken[CLIK_LAPAR_ATOMS] = {0};
    double basis[TAPS][TAPS];
    for (int j = 0; j < k; j++) {
        int best = -1;
        double best_norm = -1.0, best_r[TAPS];
        for (int l = 0; l < CLIK_LAPAR_ATOMS; l++) {
            if (taken[l])
                continue;
            double r[TAPS];
            memcpy(r, d + l * TAPS, sizeof(r));
            for (int i = 0; i < j; i++) {
                double dot = 0.0;
                for (int t = 0; t < TAPS; t++)
                    dot += r[t] * basis[i][t];
                for (int t = 0; t < TAPS; t++)
                    r[t] -= dot * basis[i][t];
            }
            double norm = 0.0;
            for (int t = 0; t < TAPS; t++)
                norm += r[t] * r[t];
            if (norm > best_norm) {
                best_norm = norm;
                best = l;
                memcpy(best_r, r, sizeof(r));
            }
        }
        taken[best] = 1;
        const double s = best_norm > 0.0 ? 1.0 / sqrt(best_norm) : 0.0;
        for (int t = 0; t < TAPS; t++)
            basis[j][t] = best_r[t] * s;
    }
    for (int l = 0, j = 0; l < CLIK_LAPAR_ATOMS; l++)
        if (taken[l])
            index[j++] = l;
}

clik_status clik_lapar_trainer_create(clik_context *ctx, const clik_lapar_model_options *opt,
                                      clik_lapar_trainer **trainer)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!trainer)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_trainer_create: trainer is NULL");
    clik_lapar_model_options o;
    if (opt)
        o = *opt;
    else
        clik_lapar_model_options_init(&o);
    model_entry e;
    clik_status st = entry_from_options(ctx, &o, &e);
    if (st != CLIK_OK)
        return st;
    if (e.kind == 1)
        ; /* no atoms */
    else if (e.atoms == CLIK_LAPAR_ATOMS)
        for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
            e.index[l] = l;
    else
        choose_atoms(e.atoms, e.index);
    const int taps = e.ksize * e.ksize;
    const size_t stride = (size_t)(taps * (taps + 1) / 2 + taps);
    clik_lapar_trainer *t = calloc(1, sizeof(*t));
    if (t) {
        t->acc = calloc((size_t)e.buckets * stride, sizeof(double));
        t->n = calloc((size_t)e.buckets, sizeof(uint64_t));
    }
    if (!t || !t->acc || !t->n) {
        if (t) {
            free(t->acc);
            free(t->n);
        }
        free(t);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_trainer_create: out of memory");
    }
    t->taps = taps;
    t->stride = stride;
    t->ctx = ctx;
    t->opt = o;
    t->e = e;
    *trainer = t;
    return CLIK_OK;
}

void clik_lapar_trainer_free(clik_lapar_trainer *trainer)
{
    if (!trainer)
        return;
    free(trainer->acc);
    free(trainer->n);
    free(trainer);
}

clik_status clik_lapar_trainer_samples(const clik_lapar_trainer *trainer, uint64_t *samples)
{
    if (!trainer || !samples)
        return CLIK_ERR_NULL;
    *samples = trainer->samples;
    return CLIK_OK;
}

static double host_value(const clik_image *img, int x, int y, int c)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == CLIK_U8)
        return ((const uint8_t *)row)[i];
    return ((const float *)(const void *)row)[i];
}

static int report(const clik_lapar_trainer *t, int stage, long done, long total)
{
    return t->opt.progress ? t->opt.progress(t->opt.progress_user, stage, done, total) : 0;
}

/* Adds the samples of one image: hr (cropped, host), U and its buckets. */
static clik_status accumulate(clik_lapar_trainer *t, const clik_image *hr, const clik_image *up,
                              const clik_image *buckets)
{
    const int w = up->width, h = up->height, ch = up->channels;
    const int colours = ch == 4 ? 3 : ch;
    const int k = t->e.ksize, half = k / 2, taps = t->taps;
    const size_t pt = (size_t)(taps * (taps + 1) / 2);
    for (int y = 0; y < h; y++) {
        const uint16_t *brow = (const uint16_t *)(const void *)((const char *)buckets->data +
                                                                (size_t)y * buckets->stride);
        const float *urows[7];
        for (int r = 0; r < k; r++)
            urows[r] = (const float *)(const void *)((const char *)up->data +
                                                     (size_t)clik__reflect101(y + r - half, h) *
                                                         up->stride);
        for (int x = 0; x < w; x++) {
            double *a = t->acc + (size_t)brow[x] * t->stride;
            int cols[7];
            for (int c = 0; c < k; c++)
                cols[c] = clik__reflect101(x + c - half, w);
            for (int c = 0; c < colours; c++) {
                double z[MAX_TAPS];
                for (int r = 0; r < k; r++)
                    for (int q = 0; q < k; q++)
                        z[k * r + q] = urows[r][(size_t)cols[q] * (size_t)ch + (size_t)c];
                const double target = host_value(hr, x, y, c);
                double *p = a, *rhs = a + pt;
                for (int i = 0; i < taps; i++) {
                    const double zi = z[i];
                    for (int j = i; j < taps; j++)
                        *p++ += zi * z[j];
                    rhs[i] += zi * target;
                }
            }
            t->n[brow[x]] += (uint64_t)colours;
        }
        t->samples += (uint64_t)w * (uint64_t)colours;
        if ((y & 31) == 31 || y == h - 1)
            if (report(t, 0, y + 1, h) != 0)
                return clik__fail(t->ctx, CLIK_ERR_INVALID_ARG,
                                  "clik_lapar_trainer_add: stopped by the progress callback");
    }
    return CLIK_OK;
}

clik_status clik_lapar_trainer_add(clik_lapar_trainer *trainer, const clik_image *hr)
{
    if (!trainer)
        return CLIK_ERR_NULL;
    clik_context *ctx = trainer->ctx;
    const char *fn = "clik_lapar_trainer_add";
    clik_status st = clik__check_format(ctx, hr, "clik_lapar_trainer_add: hr",
                                        CLIK_TYPES(CLIK_U8, CLIK_F32), CLIK_CHANNELS(1, 4), 0, 0);
    if (st != CLIK_OK)
        return st;
    if (!hr->data)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: hr must be a host image", fn);
    const int s = trainer->e.scale;
    clik_image crop = *hr;
    crop.width -= crop.width % s;
    crop.height -= crop.height % s;
    crop.owned = 0;
    if (crop.width == 0 || crop.height == 0)
        return CLIK_OK; /* smaller than the scale: no low-resolution pixel */
    clik_image lr = {0}, up = {0}, buckets = {0};
    st = clik_image_alloc(&lr, crop.width / s, crop.height / s, hr->channels, hr->type);
    if (st == CLIK_OK)
        st = clik_image_alloc(&up, crop.width, crop.height, hr->channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_image_alloc(&buckets, crop.width, crop.height, 1, CLIK_U16);
    if (st != CLIK_OK) {
        st = clik__fail(ctx, st, "%s: out of memory", fn);
    } else {
        st = clik_resize(ctx, &crop, &lr, CLIK_INTERP_BICUBIC_AA);
        if (st == CLIK_OK)
            st = clik_lapar_upsample(ctx, &lr, s, &up);
        if (st == CLIK_OK)
            st = clik__lmodel_classify(ctx, &trainer->e, &up, &buckets);
        if (st == CLIK_OK)
            st = accumulate(trainer, &crop, &up, &buckets);
    }
    clik_image_free(&lr);
    clik_image_free(&up);
    clik_image_free(&buckets);
    return st;
}

/* Cholesky solve of (g + lambda I) x = rhs, g n x n; 0 on success. */
static int solve_ridge(const double *g, int n, double lambda, const double *rhs, double *x)
{
    double *l = malloc(sizeof(double) * (size_t)n * (size_t)n);
    if (!l)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = g[i * n + j] + (i == j ? lambda : 0.0);
            for (int k = 0; k < j; k++)
                s -= l[i * n + k] * l[j * n + k];
            if (i == j) {
                if (!(s > 0.0) || !isfinite(s)) {
                    free(l);
                    return -1;
                }
                l[i * n + i] = sqrt(s);
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    for (int i = 0; i < n; i++) {
        double s = rhs[i];
        for (int k = 0; k < i; k++)
            s -= l[i * n + k] * x[k];
        x[i] = s / l[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int k = i + 1; k < n; k++)
            s -= l[k * n + i] * x[k];
        x[i] = s / l[i * n + i];
    }
    free(l);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -1;
    return 0;
}

/* Index of (i, j), i <= j, in the upper triangle of a T x T matrix stored
 * row by row. */
static size_t tri(int T, int i, int j)
{
    return (size_t)i * (size_t)T - (size_t)i * (size_t)(i - 1) / 2 + (size_t)(j - i);
}

/* The full T x T matrix of accumulated equations a (upper triangle). */
static void full_matrix(const double *a, int T, double *full)
{
    const double *p = a;
    for (int i = 0; i < T; i++)
        for (int j = i; j < T; j++)
            full[i * T + j] = full[j * T + i] = *p++;
}

/* c = x y, c rows x cols (row by row), the TAPS terms of each element summed
 * in order: x[i][k] at x[i * xr + k * xk], y[k][j] at y[k * yk + j * yc]. */
static void product(const double *x, int xr, int xk, const double *y, int yk, int yc, int rows,
                    int cols, double *c)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double s = 0.0;
            for (int k = 0; k < TAPS; k++)
                s += x[i * xr + k * xk] * y[k * yk + j * yc];
            c[i * cols + j] = s;
        }
}

/* The atoms' normal equations of accumulated patch equations a (25 taps):
 * g = D P D^T, r = D q (d: the model's atoms, L x 25). */
static void atom_equations(const double *a, const double *d, int L, double *g, double *r)
{
    double full[TAPS * TAPS];
    full_matrix(a, TAPS, full);
    const double *q = a + TAPS * (TAPS + 1) / 2;
    product(d, TAPS, 1, q, 1, 0, L, 1, r);
    double m[CLIK_LAPAR_ATOMS * TAPS];
    product(d, TAPS, 1, full, TAPS, 1, L, TAPS, m);
    product(m, TAPS, 1, d, 1, TAPS, L, L, g);
}

/* Ridge solution of the equations a (stride doubles) toward prior (NULL: 0);
 * d NULL: a free filter (the unknowns are the L = T taps), else L atoms of
 * d. 0 on success. */
static int fit(const double *a, int T, const double *d, int L, double alpha, const double *prior,
               double *g, double *r, double *x)
{
    if (d) {
        atom_equations(a, d, L, g, r);
    } else {
        full_matrix(a, T, g);
        memcpy(r, a + T * (T + 1) / 2, sizeof(double) * (size_t)T);
    }
    double trace = 0.0;
    for (int i = 0; i < L; i++)
        trace += g[i * L + i];
    const double lambda = (alpha > 1e-9 ? alpha : 1e-9) * (trace > 0.0 ? trace / L : 1.0);
    for (int i = 0; i < L; i++)
        r[i] += lambda * (prior ? prior[i] : 0.0);
    return solve_ridge(g, L, lambda, r, x);
}

static void accum_add(double *to, const double *a, size_t stride)
{
    for (size_t i = 0; i < stride; i++)
        to[i] += a[i];
}

/* The equations of every bucket moved by every element of the model's group
 * into the bucket it lands in (the equations of training on every
 * transformed image): into aug (buckets x stride) and its counts. */
static void augment(const clik_lapar_trainer *t, double *aug, uint64_t *n)
{
    const model_entry *e = &t->e;
    const int T = t->taps, k = e->ksize;
    int move[MAX_TAPS];
    for (int gi = 0; gi < e->symmetry; gi++) {
        const int g = clik__lmodel_group_element(e->symmetry, gi);
        for (int i = 0; i < T; i++)
            move[i] = clik__lmodel_group_tap(k, g, i);
        for (int b = 0; b < e->buckets; b++) {
            const int to = clik__lmodel_group_bucket(e, g, b);
            const double *a = t->acc + (size_t)b * t->stride;
            double *o = aug + (size_t)to * t->stride;
            const double *p = a;
            for (int i = 0; i < T; i++)
                for (int j = i; j < T; j++) {
                    const int mi = move[i], mj = move[j];
                    o[mi <= mj ? tri(T, mi, mj) : tri(T, mj, mi)] += *p++;
                }
            const size_t pt = (size_t)(T * (T + 1) / 2);
            for (int i = 0; i < T; i++)
                o[pt + (size_t)move[i]] += a[pt + (size_t)i];
            n[to] += t->n[b];
        }
    }
}

clik_status clik_lapar_trainer_solve(clik_lapar_trainer *trainer, clik_lapar_model **model)
{
    if (!trainer)
        return CLIK_ERR_NULL;
    clik_context *ctx = trainer->ctx;
    const char *fn = "clik_lapar_trainer_solve";
    if (!model)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: model is NULL", fn);
    if (trainer->samples == 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: no samples (add images of at least the scale on each side)", fn);
    const model_entry *pe = &trainer->e;
    const int T = trainer->taps, B = pe->buckets;
    const int L = pe->kind == 1 ? T : pe->atoms;
    const size_t stride = trainer->stride;
    const int phases = pe->phases ? pe->scale * pe->scale : 1, per_phase = B / phases;
    double d[CLIK_LAPAR_ATOMS * TAPS], all_d[CLIK_LAPAR_ATOMS * TAPS];
    const double *dp = NULL;
    if (pe->kind == 0) {
        clik__lmodel_dictionary(all_d);
        for (int l = 0; l < L; l++)
            memcpy(d + l * TAPS, all_d + pe->index[l] * TAPS, sizeof(double) * TAPS);
        dp = d;
    }
    clik_lapar_model *m = clik__lmodel_model_new();
    double *g = malloc(sizeof(double) * (size_t)L * (size_t)L);
    double *r = malloc(sizeof(double) * (size_t)L);
    double *global = malloc(sizeof(double) * (size_t)L);
    double *prior = malloc(sizeof(double) * (size_t)L * (size_t)phases);
    double *x = malloc(sizeof(double) * (size_t)L);
    double *pool = malloc(sizeof(double) * stride);
    double *aug = NULL;
    uint64_t *aug_n = NULL;
    const double *acc = trainer->acc;
    const uint64_t *acc_n = trainer->n;
    clik_status st = CLIK_OK;
    if (!m || !g || !r || !global || !prior || !x || !pool) {
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    if (pe->symmetry > 1) {
        aug = calloc((size_t)B * stride, sizeof(double));
        aug_n = calloc((size_t)B, sizeof(uint64_t));
        if (!aug || !aug_n) {
            st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
            goto done;
        }
        augment(trainer, aug, aug_n);
        acc = aug;
        acc_n = aug_n;
    }
    m->count = 1;
    m->e[0] = *pe;
    model_entry *e = &m->e[0];
    e->coef = malloc(sizeof(float) * (size_t)e->stored * (size_t)L);
    e->filters = clik__lmodel_alloc_filters(e);
    if (!e->coef || !e->filters) {
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    /* The whole model's pooled solution, then each phase's toward it. */
    uint64_t pool_n = 0;
    memset(pool, 0, sizeof(double) * stride);
    for (int b = 0; b < B; b++)
        accum_add(pool, acc + (size_t)b * stride, stride);
    if (fit(pool, T, dp, L, trainer->opt.alpha, NULL, g, r, global) != 0) {
        st = clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                        "%s: the pooled equations are singular (no usable samples)", fn);
        goto done;
    }
    for (int ph = 0; ph < phases; ph++) {
        memset(pool, 0, sizeof(double) * stride);
        pool_n = 0;
        for (int b = ph * per_phase; b < (ph + 1) * per_phase; b++) {
            accum_add(pool, acc + (size_t)b * stride, stride);
            pool_n += acc_n[b];
        }
        double *pp = prior + (size_t)ph * (size_t)L;
        if (pool_n == 0 || fit(pool, T, dp, L, trainer->opt.alpha, global, g, r, pp) != 0)
            memcpy(pp, global, sizeof(double) * (size_t)L);
    }
    /* Each stored bucket (the least of its orbit) toward its phase's. */
    for (int b = 0, row = 0; b < B; b++) {
        if ((b & 63) == 63 || b == B - 1)
            if (report(trainer, 1, b + 1, B) != 0) {
                st = clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: stopped by the progress callback",
                                fn);
                goto done;
            }
        if (e->symmetry > 1 && clik__lmodel_group_canonical(e, b, NULL) != b)
            continue;
        const double *pp = prior + (size_t)(b / per_phase) * (size_t)L;
        if (acc_n[b] < (uint64_t)trainer->opt.min_samples || acc_n[b] == 0 ||
            fit(acc + (size_t)b * stride, T, dp, L, trainer->opt.alpha, pp, g, r, x) != 0)
            memcpy(x, pp, sizeof(double) * (size_t)L);
        for (int l = 0; l < L; l++) {
            float c = (float)x[l];
            if (e->f16)
                c = clik__half_to_float(clik__float_to_half(c));
            e->coef[(size_t)row * (size_t)L + (size_t)l] = isfinite(c) ? c : 0.0f;
        }
        row++;
    }
    const int made = clik__lmodel_make_filters(e);
    if (made != 0) {
        st = made == -2 ? clik__fail(ctx, CLIK_ERR_OVERFLOW, "%s: a filter is not finite", fn)
                        : clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    *model = m;
    m = NULL;
done:
    clik_lapar_model_free(m);
    free(g);
    free(r);
    free(global);
    free(prior);
    free(x);
    free(pool);
    free(aug);
    free(aug_n);
    return st;
}

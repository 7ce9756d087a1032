/*
 * LAPAR family: dictionary compression (Zhao et al. 2021, section III-A and
 * its Algorithm 1, without retraining the network): the LASSO selection of
 * alpha L atoms by a search on lambda, the least-squares re-weighting gamma
 * of the kept atoms and, optionally, the k x L re-fit matrix, all from
 * calibration data (phi, U and the ground truth) sampled on the host.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar.h"

#define COMPRESS_MAX_IMAGES 64
#define CD_MAX_SWEEPS       20000 /* coordinate-descent sweeps per lambda */
#define BISECT_MAX          200

void clik_lapar_compress_options_init(clik_lapar_compress_options *opt)
{
    if (!opt)
        return;
    opt->samples = 65536;
    opt->refit_samples = 16384;
    opt->seed = 1;
}

/* One calibration image as host views. */
typedef struct calib_view {
    clik_image phi, u, truth;
    int opened; /* views open: 0..3 */
} calib_view;

static double image_value(const clik_image *img, int row, int x)
{
    const char *p = (const char *)img->data + (size_t)row * img->stride;
    switch (img->type) {
    case CLIK_U8: return ((const uint8_t *)p)[x];
    case CLIK_F32: return ((const float *)(const void *)p)[x];
    default: return clik__half_to_float(((const uint16_t *)(const void *)p)[x]);
    }
}

static clik_status check_calib(clik_context *ctx, const clik_lapar_calib *c, int i, int L)
{
    char what[64];
    snprintf(what, sizeof(what), "clik_lapar_compress: calib[%d]", i);
    if (!c->phi || !c->upsampled || !c->truth)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: an image is NULL", what);
    clik_status st = clik__check_image(ctx, c->phi, what);
    if (st == CLIK_OK)
        st = clik__check_image(ctx, c->upsampled, what);
    if (st == CLIK_OK)
        st = clik__check_image(ctx, c->truth, what);
    if (st != CLIK_OK)
        return st;
    const clik_image *u = c->upsampled, *t = c->truth, *p = c->phi;
    if (u->type != CLIK_F32 || (u->channels != 1 && u->channels != 4) ||
        (t->type != CLIK_U8 && t->type != CLIK_F32) || t->channels != u->channels ||
        (p->type != CLIK_F32 && p->type != CLIK_F16) || p->channels != 1)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: needs phi one-channel f32 or f16, upsampled f32 with 1 or 4 "
                          "channels, truth u8 or f32 with upsampled's channels",
                          what);
    if (t->width != u->width || t->height != u->height || p->width != u->width ||
        p->height != u->height * L || (long)u->height * L > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          "%s: upsampled %dx%d, truth %dx%d, phi %dx%d: needs one size, phi of "
                          "%d planes",
                          what, u->width, u->height, t->width, t->height, p->width, p->height, L);
    return CLIK_OK;
}

/* Sampled pixel positions of an image: all of them in order when there are
 * at most n, else n drawn from seeded splitmix64. */
static int sample_count(const clik_image *u, int n)
{
    const long px = (long)u->width * u->height;
    return px <= n ? (int)px : n;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void sample_at(const clik_image *u, int n, int i, uint64_t *state, int *x, int *y)
{
    const long px = (long)u->width * u->height;
    const long k = px <= n ? i : (long)(splitmix(state) % (uint64_t)px);
    *x = (int)(k % u->width);
    *y = (int)(k / u->width);
}

/* (atom * U_c)(x, y) for `count` atoms of 25 doubles: out[j]. */
static void correlate(const clik_image *u, int c, int x, int y, const double *atoms, int count,
                      double *out)
{
    double patch[CLIK_LAPAR_TAPS];
    for (int k = 0; k < CLIK_LAPAR_TAPS; k++) {
        const int px = clik__reflect101(x + k % 5 - 2, u->width);
        const int py = clik__reflect101(y + k / 5 - 2, u->height);
        patch[k] = image_value(u, py, px * u->channels + c);
    }
    for (int j = 0; j < count; j++) {
        double s = 0.0;
        for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
            s += atoms[j * CLIK_LAPAR_TAPS + k] * patch[k];
        out[j] = s;
    }
}

/* Normal equations of a least-squares fit: g (n x n, upper triangle
 * accumulated), b, and the sample count. */
typedef struct normal_eq {
    int n;
    double *g, *b;
    double rows, yy;
} normal_eq;

static int normal_init(normal_eq *e, int n)
{
    memset(e, 0, sizeof(*e));
    e->n = n;
    e->g = calloc((size_t)n * (size_t)n, sizeof(double));
    e->b = calloc((size_t)n, sizeof(double));
    return e->g && e->b ? 0 : -1;
}

static void normal_free(normal_eq *e)
{
    free(e->g);
    free(e->b);
}

static void normal_add(normal_eq *e, const double *z, double y)
{
    const int n = e->n;
    for (int i = 0; i < n; i++) {
        const double zi = z[i];
        if (zi == 0.0)
            continue;
        double *gi = e->g + (size_t)i * (size_t)n;
        for (int j = i; j < n; j++)
            gi[j] += zi * z[j];
        e->b[i] += zi * y;
    }
    e->rows += 1.0;
    e->yy += y * y;
}

/* Mirrors the upper triangle into the lower one. */
static void normal_finish(normal_eq *e)
{
    for (int i = 0; i < e->n; i++)
        for (int j = 0; j < i; j++)
            e->g[(size_t)i * (size_t)e->n + (size_t)j] = e->g[(size_t)j * (size_t)e->n + (size_t)i];
}

/*
 * Solves the n x n system of rows `idx` (n of them) of the symmetric g with
 * b by Cholesky, with a ridge of 1e-10 of the mean diagonal so that
 * features that never vary (or repeat one another) get weight 0 rather than
 * no solution. x receives n values. -1 when out of memory.
 */
static int solve_spd(const double *g, const double *b, int dim, const int *idx, int n, double *x)
{
    double *a = malloc((size_t)n * (size_t)n * sizeof(double));
    if (!a)
        return -1;
    double mean = 0.0;
    for (int i = 0; i < n; i++)
        mean += g[(size_t)idx[i] * (size_t)dim + (size_t)idx[i]];
    const double ridge = 1e-10 * (mean > 0.0 ? mean / n : 1.0);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            a[(size_t)i * (size_t)n + (size_t)j] = g[(size_t)idx[i] * (size_t)dim + (size_t)idx[j]];
        a[(size_t)i * (size_t)n + (size_t)i] += ridge;
        x[i] = b[idx[i]];
    }
    for (int j = 0; j < n; j++) {
        double d = a[(size_t)j * (size_t)n + (size_t)j];
        for (int k = 0; k < j; k++)
            d -= a[(size_t)j * (size_t)n + (size_t)k] * a[(size_t)j * (size_t)n + (size_t)k];
        d = d > ridge * 1e-6 ? sqrt(d) : sqrt(ridge);
        a[(size_t)j * (size_t)n + (size_t)j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = a[(size_t)i * (size_t)n + (size_t)j];
            for (int k = 0; k < j; k++)
                s -= a[(size_t)i * (size_t)n + (size_t)k] * a[(size_t)j * (size_t)n + (size_t)k];
            a[(size_t)i * (size_t)n + (size_t)j] = s / d;
        }
    }
    for (int i = 0; i < n; i++) {
        double s = x[i];
        for (int k = 0; k < i; k++)
            s -= a[(size_t)i * (size_t)n + (size_t)k] * x[k];
        x[i] = s / a[(size_t)i * (size_t)n + (size_t)i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int k = i + 1; k < n; k++)
            s -= a[(size_t)k * (size_t)n + (size_t)i] * x[k];
        x[i] = s / a[(size_t)i * (size_t)n + (size_t)i];
    }
    free(a);
    return 0;
}

/* The LASSO on standardised terms: min 1/2 b^T G b - c^T b + lambda |b|_1
 * with unit diagonal, by cyclic coordinate descent from beta (warm start);
 * q = G beta is kept up to date. Returns the atoms left non-zero. */
static int lasso(const double *G, const double *c, const int *usable, int L, double lambda,
                 double *beta, double *q)
{
    for (int sweep = 0; sweep < CD_MAX_SWEEPS; sweep++) {
        double moved = 0.0;
        for (int l = 0; l < L; l++) {
            if (!usable[l])
                continue;
            const double r = c[l] - q[l] + beta[l];
            const double nb = r > lambda ? r - lambda : r < -lambda ? r + lambda : 0.0;
            const double delta = nb - beta[l];
            if (delta != 0.0) {
                for (int m = 0; m < L; m++)
                    q[m] += G[(size_t)m * (size_t)L + (size_t)l] * delta;
                beta[l] = nb;
                moved = fabs(delta) > moved ? fabs(delta) : moved;
            }
        }
        if (moved < 1e-12)
            break;
    }
    int count = 0;
    for (int l = 0; l < L; l++)
        count += beta[l] != 0.0;
    return count;
}

/* The k atoms of the lambda search (see clik_lapar.h) into keep[] (increasing):
 * exactly k whatever the data (where even the smallest lambda leaves fewer,
 * the largest of its weights, then the lowest indices). */
static void select_atoms(const normal_eq *e, int k, int *keep)
{
    const int L = e->n;
    double G[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_MAX_ATOMS], c[CLIK_LAPAR_MAX_ATOMS];
    double scale[CLIK_LAPAR_MAX_ATOMS], beta[CLIK_LAPAR_MAX_ATOMS] = {0},
                                        q[CLIK_LAPAR_MAX_ATOMS] = {0};
    int usable[CLIK_LAPAR_MAX_ATOMS];
    double cmax = 0.0;
    for (int l = 0; l < L; l++) {
        const double d = e->g[(size_t)l * (size_t)L + (size_t)l] / e->rows;
        scale[l] = d > 0.0 ? sqrt(d) : 0.0;
        usable[l] = scale[l] > 0.0;
    }
    for (int l = 0; l < L; l++) {
        c[l] = usable[l] ? e->b[l] / e->rows / scale[l] : 0.0;
        cmax = fabs(c[l]) > cmax ? fabs(c[l]) : cmax;
        for (int m = 0; m < L; m++)
            G[(size_t)l * (size_t)L + (size_t)m] =
                usable[l] && usable[m]
                    ? e->g[(size_t)l * (size_t)L + (size_t)m] / e->rows / (scale[l] * scale[m])
                    : 0.0;
    }
    /* A tiny lambda, doubled until at most k atoms survive. */
    double lambda = 1e-6 * (cmax > 0.0 ? cmax : 1.0);
    int count = lasso(G, c, usable, L, lambda, beta, q);
    double larger_lambda = lambda, larger_beta[CLIK_LAPAR_MAX_ATOMS];
    memcpy(larger_beta, beta, sizeof(larger_beta));
    int larger_count = count; /* the last solution with more than k */
    while (count > k) {
        larger_lambda = lambda;
        memcpy(larger_beta, beta, sizeof(larger_beta));
        larger_count = count;
        lambda *= 2.0;
        count = lasso(G, c, usable, L, lambda, beta, q);
    }
    /* Bisection within the last step: too few survive, lambda decreases;
     * too many, it increases. */
    double lo = larger_count > k ? larger_lambda : lambda, hi = lambda;
    for (int i = 0; i < BISECT_MAX && count != k && larger_count > k && hi - lo > 1e-15 * hi; i++) {
        const double mid = 0.5 * (lo + hi);
        count = lasso(G, c, usable, L, mid, beta, q);
        if (count < k) {
            hi = mid;
        } else if (count > k) {
            lo = mid;
            memcpy(larger_beta, beta, sizeof(larger_beta));
            larger_count = count;
        }
    }
    /* Exactly k: those. Else the k largest |beta| of the smallest larger
     * set found (lower index first among equals), or every usable atom. */
    const double *from = count != k && larger_count > k ? larger_beta : beta;
    int taken[CLIK_LAPAR_MAX_ATOMS] = {0};
    for (int n = 0; n < k; n++) {
        int best = -1;
        for (int l = 0; l < L; l++)
            if (!taken[l] && (best < 0 || fabs(from[l]) > fabs(from[best])))
                best = l;
        if (best < 0)
            break;
        taken[best] = 1;
    }
    int n = 0;
    for (int l = 0; l < L && n < k; l++)
        if (taken[l])
            keep[n++] = l;
}

/* Opens the host views of the calibration images (closed by calib_close). */
static clik_status calib_open(clik_context *ctx, const clik_lapar_calib *calib, int count,
                              calib_view *v)
{
    for (int i = 0; i < count; i++) {
        const clik_image *img[3] = {calib[i].phi, calib[i].upsampled, calib[i].truth};
        clik_image *view[3] = {&v[i].phi, &v[i].u, &v[i].truth};
        for (int j = 0; j < 3; j++) {
            clik_status st = clik__host_view(ctx, img[j], CLIK_READ, view[j]);
            if (st != CLIK_OK)
                return st;
            v[i].opened = j + 1;
        }
    }
    return CLIK_OK;
}

static void calib_close(clik_context *ctx, const clik_lapar_calib *calib, int count, calib_view *v)
{
    for (int i = 0; i < count; i++) {
        const clik_image *img[3] = {calib[i].phi, calib[i].upsampled, calib[i].truth};
        clik_image *view[3] = {&v[i].phi, &v[i].u, &v[i].truth};
        for (int j = 0; j < v[i].opened; j++)
            clik__host_view_done(ctx, img[j], view[j], CLIK_READ, 1);
    }
}

/*
 * Adds to e, for the first samples pixels of each image (every colour
 * channel), the equation of the truth in the unknowns z: with h_j the
 * correlation of U_c with filter j (nf filters of 25 taps), z_l = phi_l h_l
 * (diagonal: nf = L) or z_{l nf + j} = phi_l h_j. Non-finite rows are left
 * out. z: room for the unknowns.
 */
static void add_samples(const calib_view *v, int count, int samples, uint64_t seed, int L,
                        const double *filters, int nf, int diagonal, double *z, normal_eq *e)
{
    double h[CLIK_LAPAR_MAX_ATOMS > CLIK_LAPAR_TAPS ? CLIK_LAPAR_MAX_ATOMS : CLIK_LAPAR_TAPS];
    for (int i = 0; i < count; i++) {
        const clik_image *u = &v[i].u;
        const int n = sample_count(u, samples), colours = u->channels == 4 ? 3 : 1;
        uint64_t state = seed ^ (0x51ed27u * (uint64_t)(i + 1));
        for (int s = 0; s < n; s++) {
            int x, y;
            sample_at(u, samples, s, &state, &x, &y);
            double phi[CLIK_LAPAR_MAX_ATOMS];
            for (int l = 0; l < L; l++)
                phi[l] = image_value(&v[i].phi, l * u->height + y, x);
            for (int c = 0; c < colours; c++) {
                correlate(u, c, x, y, filters, nf, h);
                int finite = 1;
                for (int l = 0; l < L; l++)
                    for (int j = diagonal ? l : 0; j < (diagonal ? l + 1 : nf); j++) {
                        const int o = diagonal ? l : l * nf + j;
                        z[o] = phi[l] * h[j];
                        finite &= isfinite(z[o]);
                    }
                const double t = image_value(&v[i].truth, y, x * u->channels + c);
                if (finite && isfinite(t))
                    normal_add(e, z, t);
            }
        }
    }
}

/* The normal equations of y = sum_l beta_l phi_l (D_l * U_c) over the
 * samples (every colour channel of each sampled pixel). */
static int fit_terms(const calib_view *v, int count, const clik_lapar_dict *dict, int samples,
                     uint64_t seed, normal_eq *e)
{
    const int L = dict->atoms;
    if (normal_init(e, L) != 0)
        return -1;
    double atoms[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_TAPS];
    double z[CLIK_LAPAR_MAX_ATOMS];
    for (int i = 0; i < L * CLIK_LAPAR_TAPS; i++)
        atoms[i] = dict->data[i];
    add_samples(v, count, samples, seed, L, atoms, L, 1, z, e);
    normal_finish(e);
    return 0;
}

/* An orthonormal basis (Gram-Schmidt, in double) of the kept atoms' span:
 * basis r x 25, r returned; t[i * 25 + j] the coordinate of kept atom i on
 * basis vector j. */
static int kept_basis(const clik_lapar_dict *dict, const int *keep, int k, double *basis, double *t)
{
    int r = 0;
    for (int i = 0; i < k && r < CLIK_LAPAR_TAPS; i++) {
        double v[CLIK_LAPAR_TAPS], norm0 = 0.0, norm = 0.0;
        for (int q = 0; q < CLIK_LAPAR_TAPS; q++) {
            v[q] = dict->data[keep[i] * CLIK_LAPAR_TAPS + q];
            norm0 += v[q] * v[q];
        }
        for (int pass = 0; pass < 2; pass++) /* twice: orthogonal to rounding */
            for (int j = 0; j < r; j++) {
                double d = 0.0;
                for (int q = 0; q < CLIK_LAPAR_TAPS; q++)
                    d += v[q] * basis[j * CLIK_LAPAR_TAPS + q];
                for (int q = 0; q < CLIK_LAPAR_TAPS; q++)
                    v[q] -= d * basis[j * CLIK_LAPAR_TAPS + q];
            }
        for (int q = 0; q < CLIK_LAPAR_TAPS; q++)
            norm += v[q] * v[q];
        if (norm > 1e-18 * norm0 && norm > 0.0) {
            for (int q = 0; q < CLIK_LAPAR_TAPS; q++)
                basis[r * CLIK_LAPAR_TAPS + q] = v[q] / sqrt(norm);
            r++;
        }
    }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < CLIK_LAPAR_TAPS; j++) {
            double d = 0.0;
            if (j < r)
                for (int q = 0; q < CLIK_LAPAR_TAPS; q++)
                    d += dict->data[keep[i] * CLIK_LAPAR_TAPS + q] * basis[j * CLIK_LAPAR_TAPS + q];
            t[i * CLIK_LAPAR_TAPS + j] = d;
        }
    return r;
}

/*
 * The re-fit matrix: y = sum_l phi_l (E_l * U_c) with every E_l in the span
 * of the kept atoms, E_l = sum_j a_lj B_j (B the orthonormal basis), fitted
 * by least squares over the first refit samples of each image; then mix =
 * T (T^T T)^-1 a^T, so that sum_i mix_il D_keep[i] = E_l. -1 when out of
 * memory.
 */
static int refit_matrix(const calib_view *v, int count, const clik_lapar_dict *dict,
                        const int *keep, int k, int samples, uint64_t seed, float *mix)
{
    const int L = dict->atoms;
    double basis[CLIK_LAPAR_TAPS * CLIK_LAPAR_TAPS];
    double *t = malloc(sizeof(double) * (size_t)k * CLIK_LAPAR_TAPS);
    if (!t)
        return -1;
    const int r = kept_basis(dict, keep, k, basis, t);
    const int n = L * r;
    normal_eq e = {0};
    double *z = malloc(sizeof(double) * (size_t)n);
    double *a = malloc(sizeof(double) * (size_t)n);
    int *idx = malloc(sizeof(int) * (size_t)n);
    if (!z || !a || !idx || normal_init(&e, n) != 0) {
        free(t);
        free(z);
        free(a);
        free(idx);
        normal_free(&e);
        return -1;
    }
    add_samples(v, count, samples, seed, L, basis, r, 0, z, &e);
    normal_finish(&e);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    int bad = solve_spd(e.g, e.b, n, idx, n, a);
    /* (T^T T)^-1 (r x r), then mix[i][l] = sum_j (T (T^T T)^-1)_ij a_lj. */
    double tt[CLIK_LAPAR_TAPS * CLIK_LAPAR_TAPS], inv[CLIK_LAPAR_TAPS * CLIK_LAPAR_TAPS];
    for (int p = 0; p < r; p++)
        for (int q = 0; q < r; q++) {
            double s = 0.0;
            for (int i = 0; i < k; i++)
                s += t[i * CLIK_LAPAR_TAPS + p] * t[i * CLIK_LAPAR_TAPS + q];
            tt[p * r + q] = s;
        }
    int ridx[CLIK_LAPAR_TAPS];
    for (int p = 0; p < r; p++)
        ridx[p] = p;
    for (int q = 0; q < r && !bad; q++) {
        double unit_col[CLIK_LAPAR_TAPS] = {0}, col[CLIK_LAPAR_TAPS];
        unit_col[q] = 1.0;
        bad = solve_spd(tt, unit_col, r, ridx, r, col);
        for (int p = 0; p < r; p++)
            inv[p * r + q] = col[p];
    }
    for (int i = 0; i < k && !bad; i++)
        for (int l = 0; l < L; l++) {
            double s = 0.0;
            for (int j = 0; j < r; j++) {
                double tij = 0.0;
                for (int p = 0; p < r; p++)
                    tij += t[i * CLIK_LAPAR_TAPS + p] * inv[p * r + j];
                s += tij * a[l * r + j];
            }
            mix[(size_t)i * (size_t)L + (size_t)l] = (float)s;
        }
    free(t);
    free(z);
    free(a);
    free(idx);
    normal_free(&e);
    return bad;
}

clik_status clik_lapar_compress(clik_context *ctx, const clik_lapar_calib *calib, int count,
                                const clik_lapar_dict *dict, double alpha,
                                const clik_lapar_compress_options *opt, clik_lapar_selection *sel,
                                float *mix)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!calib || !sel)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_compress: calib or sel is NULL");
    clik_status st = clik__lapar_check_dict(ctx, dict, "clik_lapar_compress");
    if (st != CLIK_OK)
        return st;
    if (dict->selection)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_compress: the dictionary is already a selection");
    if (!(alpha > 0.0 && alpha <= 1.0))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_compress: alpha %g is not within (0, 1]", alpha);
    if (count < 1 || count > COMPRESS_MAX_IMAGES)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_compress: %d calibration images (1..%d)", count,
                          COMPRESS_MAX_IMAGES);
    clik_lapar_compress_options o;
    clik_lapar_compress_options_init(&o);
    if (opt)
        o = *opt;
    if (o.samples < 1 || o.samples > (1 << 24) || o.refit_samples < 1 ||
        o.refit_samples > o.samples)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_compress: samples %d, refit_samples %d (1..2^24, at most "
                          "samples)",
                          o.samples, o.refit_samples);
    const int L = dict->atoms;
    for (int i = 0; i < count && st == CLIK_OK; i++)
        st = check_calib(ctx, &calib[i], i, L);
    if (st != CLIK_OK)
        return st;
    const int k = alpha * L < 1.0 ? 1 : (int)lround(alpha * L);
    calib_view *v = calloc((size_t)count, sizeof(*v));
    if (!v)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_compress: out of memory");
    st = calib_open(ctx, calib, count, v);
    normal_eq e = {0};
    int keep[CLIK_LAPAR_MAX_ATOMS];
    double gamma[CLIK_LAPAR_MAX_ATOMS];
    if (st == CLIK_OK && fit_terms(v, count, dict, o.samples, o.seed, &e) != 0)
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_compress: out of memory");
    if (st == CLIK_OK && e.rows < 1.0)
        st = clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                        "clik_lapar_compress: no sample with finite values");
    if (st == CLIK_OK) {
        select_atoms(&e, k, keep);
        /* gamma: least squares over the kept terms. */
        if (solve_spd(e.g, e.b, L, keep, k, gamma) != 0)
            st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_compress: out of memory");
    }
    if (st == CLIK_OK && mix &&
        refit_matrix(v, count, dict, keep, k, o.refit_samples, o.seed, mix) != 0)
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_compress: out of memory");
    if (st == CLIK_OK) {
        memset(sel, 0, sizeof(*sel));
        sel->atoms = L;
        sel->kept = k;
        for (int i = 0; i < k; i++) {
            sel->index[i] = keep[i];
            sel->gamma[i] = (float)gamma[i];
        }
        sel->mix = mix;
    }
    normal_free(&e);
    calib_close(ctx, calib, count, v);
    free(v);
    return st;
}

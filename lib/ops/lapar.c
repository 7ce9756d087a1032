/*
 * LAPAR family: the default dictionary, the upsample U and the LAPAR filter
 * (Li et al. 2020; kernels/lapar.cl, fallback_cpu/{scalar,neon}/lapar.c).
 * The work-group search is lapar_tune.c, dictionary compression
 * lapar_compress.c; what they share with this file is in lapar.h.
 *
 * A filter call is resolved here into a plan (fallback_cpu/cpu.h): the
 * planes of phi it reads and the atom each one weights, with a selection's
 * gamma or re-fit matrix folded into the atoms (sum_i m_il D_i is one atom
 * per plane l), and whether every atom is centrally symmetric, so that
 * every path runs the same plain sum of terms.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar.h"

/* ---- the default dictionary ------------------------------------------------------ */

/* A Gaussian atom of LAPAR's dictionary (Li et al. 2020; the parameters of
 * its official code): exp(-d^T S^-1 d / 2) over x = c - 2, y = 2 - r,
 * normalised to sum 1. The quadratic form is written so that d and -d give
 * the same bits: the atoms are exactly centrally symmetric. */
static void gaussian_atom(double s1, double s2, double degrees, double *g)
{
    const double th = degrees * (3.14159265358979323846 / 180.0);
    const double c = cos(th), s = sin(th);
    /* S^-1 = R diag(1 / s1^2, 1 / s2^2) R^T. */
    const double i1 = 1.0 / (s1 * s1), i2 = 1.0 / (s2 * s2);
    const double a = c * c * i1 + s * s * i2, b = c * s * (i1 - i2), d = s * s * i1 + c * c * i2;
    double sum = 0.0;
    for (int r = 0; r < 5; r++)
        for (int col = 0; col < 5; col++) {
            const double x = col - 2, y = 2 - r;
            g[5 * r + col] = exp(-0.5 * (a * x * x + 2.0 * b * (x * y) + d * y * y));
            sum += g[5 * r + col];
        }
    for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
        g[k] /= sum;
}

/* A difference of Gaussians: the positive part scaled to sum 1.4, the
 * negative part to -0.4. */
static void dog_atom(const double *ga, const double *gb, double *e)
{
    double pos = 0.0, neg = 0.0;
    for (int k = 0; k < CLIK_LAPAR_TAPS; k++) {
        e[k] = ga[k] - gb[k];
        if (e[k] > 0.0)
            pos += e[k];
        else
            neg -= e[k];
    }
    for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
        e[k] = e[k] > 0.0 ? e[k] * (1.4 / pos) : neg > 0.0 ? e[k] * (0.4 / neg) : 0.0;
}

clik_status clik_lapar_dict_default(float *atoms)
{
    if (!atoms)
        return CLIK_ERR_NULL;
    double g[CLIK_LAPAR_ATOMS][CLIK_LAPAR_TAPS];
    int n = 0;
    /* Two families of Gaussians: isotropic, then ratios 0.8, 0.6, 0.4 at
     * six angles and (sigma1 = 2 only) 0.2 at twelve. */
    static const double sigma1[2] = {2.0, 1.2};
    static const double ratios[3] = {0.8, 0.6, 0.4};
    for (int f = 0; f < 2; f++) {
        gaussian_atom(sigma1[f], sigma1[f], 0.0, g[n++]);
        for (int q = 0; q < 3; q++)
            for (int k = 0; k < 6; k++)
                gaussian_atom(sigma1[f], sigma1[f] * ratios[q], 30.0 * k, g[n++]);
        if (f == 0)
            for (int k = 0; k < 12; k++)
                gaussian_atom(sigma1[f], sigma1[f] * 0.2, 15.0 * k, g[n++]);
    }
    gaussian_atom(0.4, 0.4, 0.0, g[n++]); /* atom 50 */
    dog_atom(g[0], g[31], g[n++]);
    dog_atom(g[0], g[50], g[n++]);
    dog_atom(g[31], g[50], g[n++]);
    for (int i = 0; i < 18; i++)
        dog_atom(g[1 + i], g[32 + i], g[n++]);
    for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
        for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
            atoms[l * CLIK_LAPAR_TAPS + k] = (float)g[l][k];
    return CLIK_OK;
}

/* ---- arguments and the plan ---------------------------------------------------- */

static clik_status check_lr(clik_context *ctx, const clik_image *lr, const char *what)
{
    return clik__check_format(ctx, lr, what, CLIK_TYPES(CLIK_U8, CLIK_F32), CLIK_CHANNELS(1, 3, 4),
                              0, 0);
}

static clik_status check_scale(clik_context *ctx, const clik_image *lr, int scale, const char *fn)
{
    if (scale < 2 || scale > 4)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: scale %d is not 2, 3 or 4", fn, scale);
    if ((long)lr->width * scale > CLIK_MAX_DIM || (long)lr->height * scale > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE, "%s: %dx%d times %d is larger than %d", fn,
                          lr->width, lr->height, scale, CLIK_MAX_DIM);
    return CLIK_OK;
}

/* dst: scale times lr's size, of the given type and lr's channels. */
static clik_status check_output(clik_context *ctx, const clik_image *lr, int scale,
                                const clik_image *dst, clik_type type, const char *what)
{
    clik_status st = clik__check_image(ctx, dst, what);
    if (st != CLIK_OK)
        return st;
    if (dst->type != type || dst->channels != lr->channels)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: needs %d-channel %s, not %d-channel %s", what, lr->channels,
                          clik_type_name(type), dst->channels, clik_type_name(dst->type));
    if (dst->width != lr->width * scale || dst->height != lr->height * scale)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH, "%s: is %dx%d, needs %dx%d", what,
                          dst->width, dst->height, lr->width * scale, lr->height * scale);
    if (clik__images_overlap(dst, lr))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: overlaps the input", what);
    return CLIK_OK;
}

static int all_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* A dictionary and its selection. */
clik_status clik__lapar_check_dict(clik_context *ctx, const clik_lapar_dict *dict, const char *fn)
{
    if (!dict || !dict->data)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: no dictionary", fn);
    const int L = dict->atoms;
    if (L < 1 || L > CLIK_LAPAR_MAX_ATOMS)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: a dictionary of %d atoms (1..%d)", fn, L,
                          CLIK_LAPAR_MAX_ATOMS);
    if (!all_finite(dict->data, (size_t)L * CLIK_LAPAR_TAPS))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: the dictionary has non-finite weights",
                          fn);
    const clik_lapar_selection *sel = dict->selection;
    if (!sel)
        return CLIK_OK;
    if (sel->atoms != L)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: the selection is for %d atoms, the dictionary has %d", fn,
                          sel->atoms, L);
    if (sel->kept < 1 || sel->kept > L)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: the selection keeps %d of %d atoms", fn,
                          sel->kept, L);
    for (int i = 0; i < sel->kept; i++)
        if (sel->index[i] < 0 || sel->index[i] >= L ||
            (i > 0 && sel->index[i] <= sel->index[i - 1]))
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              "%s: selection index %d (%d) is not increasing within 0..%d", fn, i,
                              sel->index[i], L - 1);
    if (sel->mix ? !all_finite(sel->mix, (size_t)sel->kept * (size_t)L)
                 : !all_finite(sel->gamma, (size_t)sel->kept))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: the selection has non-finite weights",
                          fn);
    return CLIK_OK;
}

/* Fills the terms of the plan from dict for a phi of `planes` planes. */
static void plan_terms(const clik_lapar_dict *dict, int planes, clik_lapar_plan *plan)
{
    const clik_lapar_selection *sel = dict->selection;
    const int L = dict->atoms;
    const float *D = dict->data;
    if (!sel) {
        plan->count = L;
        for (int l = 0; l < L; l++) {
            plan->plane[l] = l;
            memcpy(plan->atom[l], D + l * CLIK_LAPAR_TAPS, sizeof(plan->atom[l]));
        }
    } else if (!sel->mix) {
        plan->count = sel->kept;
        for (int i = 0; i < sel->kept; i++) {
            plan->plane[i] = planes == L ? sel->index[i] : i;
            for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
                plan->atom[i][k] =
                    (float)((double)sel->gamma[i] * D[sel->index[i] * CLIK_LAPAR_TAPS + k]);
        }
    } else {
        /* Coefficient of kept atom i: sum_l mix[i][l] phi_l; so plane l
         * weights sum_i mix[i][l] D_{index[i]}. */
        plan->count = L;
        for (int l = 0; l < L; l++) {
            plan->plane[l] = l;
            for (int k = 0; k < CLIK_LAPAR_TAPS; k++) {
                double s = 0.0;
                for (int i = 0; i < sel->kept; i++)
                    s += (double)sel->mix[(size_t)i * (size_t)L + (size_t)l] *
                         D[sel->index[i] * CLIK_LAPAR_TAPS + k];
                plan->atom[l][k] = (float)s;
            }
        }
    }
}

/* 1 when every atom of the plan is centrally symmetric (tap k = tap 24 - k):
 * the paths then weight the 12 pairs of taps and the centre. */
static int plan_symmetric(const clik_lapar_plan *plan)
{
    for (int j = 0; j < plan->count; j++)
        for (int k = 0; k < 12; k++)
            if (plan->atom[j][k] != plan->atom[j][24 - k])
                return 0;
    return 1;
}

/* The weights of the s phases of an integer upscale, as clik_resize's
 * geometry computes them for output x = r (kernels/lapar.cl). */
static void phase_weights(int s, float *wt)
{
    const double step = 1.0 / ((double)s / 1.0);
    for (int r = 0; r < s; r++) {
        const double f = ((double)r + 0.5) * step - 0.5, t = f - floor(f);
        double w[4];
        clik__cubic_weights(t, w);
        for (int k = 0; k < 4; k++)
            wt[4 * r + k] = (float)w[k];
    }
}

/* The arguments of a call on checked images, its plan resolved once. */
static void fill_args(const clik_lapar_dict *dict, int planes, int scale, const clik_image *lr,
                      const clik_image *phi, clik_image *dst, lapar_args *a)
{
    memset(a, 0, sizeof(*a));
    a->lr = lr;
    a->phi = phi;
    a->dst = dst;
    a->scale = scale;
    a->plan.scale = scale;
    plan_terms(dict, planes, &a->plan);
    a->plan.symmetric = plan_symmetric(&a->plan);
    phase_weights(scale, a->wt);
}

/* Checks every argument of a filter call and fills a. */
clik_status clik__lapar_prepare(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                                const clik_lapar_dict *dict, int scale, const clik_image *dst,
                                const char *fn, lapar_args *a)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: lr", fn);
    clik_status st = check_lr(ctx, lr, what);
    if (st == CLIK_OK)
        st = check_scale(ctx, lr, scale, fn);
    if (st == CLIK_OK)
        st = clik__lapar_check_dict(ctx, dict, fn);
    snprintf(what, sizeof(what), "%s: dst", fn);
    if (st == CLIK_OK)
        st = check_output(ctx, lr, scale, dst, lr->type, what);
    snprintf(what, sizeof(what), "%s: phi", fn);
    if (st == CLIK_OK)
        st = clik__check_image(ctx, phi, what);
    if (st != CLIK_OK)
        return st;
    if ((phi->type != CLIK_F32 && phi->type != CLIK_F16) || phi->channels != 1)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: phi must be one-channel f32 or f16, not %d-channel %s", fn,
                          phi->channels, clik_type_name(phi->type));
    const int w = dst->width, h = dst->height;
    const clik_lapar_selection *sel = dict->selection;
    const int L = dict->atoms, k = sel && !sel->mix ? sel->kept : L;
    const int planes = phi->height % h == 0 ? phi->height / h : -1;
    if (phi->width != w || (planes != L && planes != k)) {
        if (k != L)
            return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                              "%s: phi is %dx%d, needs %d columns and %d or %d planes of %d rows",
                              fn, phi->width, phi->height, w, L, k, h);
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          "%s: phi is %dx%d, needs %d columns and %d planes of %d rows (%ld)", fn,
                          phi->width, phi->height, w, L, h, (long)L * h);
    }
    if (clik__images_overlap(dst, phi))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: dst overlaps phi", fn);
    fill_args(dict, planes, scale, lr, phi, (clik_image *)dst, a);
    return CLIK_OK;
}

/* ---- tuning: the variant and the work-group shape ------------------------------ */

/* The problem class a tuning is stored for: formats, scale, the atoms'
 * form, the terms and the output's size to the power of two below. */
void clik__lapar_problem_class(const lapar_args *a, char *out, size_t cap)
{
    const double px = (double)a->dst->width * (double)a->dst->height;
    snprintf(out, cap, "%s c%d phi-%s x%d %s terms %d px 2^%d", clik_type_name(a->lr->type),
             a->lr->channels, clik_type_name(a->phi->type), a->scale,
             a->plan.symmetric ? "sym" : "any", a->plan.count, (int)floor(log2(px)));
}

/* The device's default: the CPU-device kernels there, the local-memory
 * kernel where local memory is in use, else the one without. */
clik_lapar_tuning clik__lapar_default_tuning(const clik_context *ctx)
{
    clik_lapar_tuning t = {CLIK_LAPAR_VARIANT_DIRECT, 16, 8, 0.0, 0};
    if (ctx->dev.type == CLIK_DEVICE_CPU) {
        t.variant = CLIK_LAPAR_VARIANT_UPSAMPLED;
        t.wg_x = 64;
        t.wg_y = 1;
    } else if (ctx->local_memory) {
        t.variant = CLIK_LAPAR_VARIANT_LOCAL;
    }
    return t;
}

/* A stored tuning that this device can run at all. */
int clik__lapar_tuning_usable(const clik_context *ctx, const clik_tune_record *r)
{
    return r->variant >= CLIK_LAPAR_VARIANT_UPSAMPLED && r->variant <= CLIK_LAPAR_VARIANT_DIRECT &&
           (r->variant != CLIK_LAPAR_VARIANT_LOCAL || ctx->local_memory) && r->wg[0] >= 1 &&
           r->wg[1] >= 1 && (size_t)r->wg[0] <= ctx->dev.max_work_item_sizes[0] &&
           (size_t)r->wg[1] <= ctx->dev.max_work_item_sizes[1] &&
           (size_t)r->wg[0] * (size_t)r->wg[1] <= ctx->dev.max_work_group_size;
}

/* What runs: the registry's keys where set, else the stored tuning of the
 * problem class, else the default. */
void clik__lapar_resolve_tuning(clik_context *ctx, lapar_args *a)
{
    if (a->forced)
        return;
    clik_lapar_tuning t = clik__lapar_default_tuning(ctx);
    char problem[128];
    clik__lapar_problem_class(a, problem, sizeof(problem));
    clik_tune_record rec;
    if (clik__tune_load(ctx, CLIK_LAPAR_TUNE_PROGRAM, CLIK_LAPAR_TUNE_KERNEL, problem, &rec) ==
            CLIK_OK &&
        clik__lapar_tuning_usable(ctx, &rec)) {
        t.variant = (clik_lapar_variant)rec.variant;
        t.wg_x = rec.wg[0];
        t.wg_y = rec.wg[1];
        t.ms = rec.ms;
        t.stored = 1;
    }
    /* Choice index 0..2 is UPSAMPLED..DIRECT. */
    const long v = clik__tune(ctx, CLIK_TUNE_LAPAR_VARIANT, -1);
    if (v >= 0)
        t.variant = (clik_lapar_variant)(v + CLIK_LAPAR_VARIANT_UPSAMPLED);
    t.wg_x = (int)clik__tune(ctx, CLIK_TUNE_LAPAR_WG_X, t.wg_x);
    t.wg_y = (int)clik__tune(ctx, CLIK_TUNE_LAPAR_WG_Y, t.wg_y);
    a->use = t;
}

/* ---- OpenCL path ------------------------------------------------------------------ */

/* Row strides go to the kernels as int elements (kernels/lapar.cl), and
 * with WIDE the upsample reads its source rows as int offsets of up to 8
 * strides from one 64-bit row pointer: the filter refuses
 * (CLIK_ERR_DEVICE_LIMITS, so the CPU path runs) a binding whose stride
 * passes INT_MAX / 8 elements, 2^28 - 1 (rows have at most 2^22).
 * Otherwise images, U and phi may hold more than 2^31 elements (WIDE:
 * 64-bit row offsets; phi's plane offsets always). */
clik_status clik__lapar_check_strides(clik_context *ctx, const char *fn,
                                      const clik_binding *const *b, int n, int bits)
{
    const size_t most = ((size_t)1 << bits) - 1;
    for (int i = 0; i < n; i++) {
        if (!b[i])
            continue;
        const size_t e = b[i]->stride / clik_type_size(b[i]->image.type);
        if (e > most)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "%s: a row stride of %zu elements; the kernels take strides of at "
                              "most 2^%d - 1 elements",
                              fn, e, bits);
    }
    return CLIK_OK;
}

/* Elements from an image's first to its last (rows of stride elements). */
static size_t span_elems(const clik_image *img)
{
    const size_t e = clik_type_size(img->type);
    return ((size_t)(img->height - 1) * img->stride +
            (size_t)img->width * (size_t)img->channels * e) /
           e;
}

/* WIDE for the kernels (kernels/lapar.cl): 1 when an offset within lr,
 * dst, U (w x h x colours floats) or one plane of phi (h rows) can pass
 * INT_MAX; their int offsets otherwise, which need fewer registers. Plane
 * offsets in phi are 64-bit either way. phi and dst may be NULL (the
 * upsample alone: dst is U). */
int clik__lapar_wide_call(const clik_image *lr, const clik_image *phi, const clik_image *dst)
{
    size_t most = span_elems(lr);
    if (dst) {
        const size_t d = span_elems(dst);
        const size_t u = (size_t)dst->width * (size_t)dst->height * (dst->channels == 4 ? 3u : 1u);
        most = d > most ? d : most;
        most = u > most ? u : most;
    }
    if (phi && dst) {
        const size_t p = (size_t)dst->height * (phi->stride / clik_type_size(phi->type));
        most = p > most ? p : most;
    }
    return most > (size_t)INT_MAX;
}

/* The program of a call's formats; wide: wide_call. */
clik_status clik__lapar_kernel(clik_context *ctx, const clik_image *lr, int phi_half, int wide,
                               const char *name, clik_kernel_entry **k)
{
    char options[112];
    snprintf(options, sizeof(options), "-DT=%s -DT_IS_FLOAT=%d -DCH=%d -DPHI_HALF=%d -DWIDE=%d",
             lr->type == CLIK_U8 ? "uchar" : "float", lr->type == CLIK_F32, lr->channels, phi_half,
             wide);
    return clik__kernel(ctx, "lapar", options, name, k);
}

/* Device copies of the call's tables. */
typedef struct lapar_tables {
    cl_mem wt, planes, atoms;
    size_t atoms_bytes, planes_bytes;
} lapar_tables;

static void tables_release(clik_context *ctx, lapar_tables *t)
{
    clik__temp_release(ctx, t->wt, sizeof(float) * 16);
    clik__temp_release(ctx, t->planes, t->planes_bytes);
    clik__temp_release(ctx, t->atoms, t->atoms_bytes);
    memset(t, 0, sizeof(*t));
}

static clik_status upload(clik_context *ctx, const void *data, size_t bytes, cl_mem *mem)
{
    clik_status st = clik__temp_buffer(ctx, bytes, mem);
    if (st != CLIK_OK) {
        *mem = NULL;
        return st;
    }
    return clik__write_bytes(ctx, *mem, data, bytes);
}

/* The phase weights, each term's plane offset in phi (elements, 64-bit: a
 * phi of 72 planes of 7680 x 4320 has 2.39e9 elements) and its atom in the
 * layout of the kernels (16 floats symmetric, 32 otherwise). */
static clik_status tables_make(clik_context *ctx, const lapar_args *a, const clik_binding *phi,
                               lapar_tables *t)
{
    memset(t, 0, sizeof(*t));
    const clik_lapar_plan *plan = &a->plan;
    const int per = a->plan.symmetric ? 16 : 32, h = a->dst->height, ps = clik__elems(phi);
    cl_long planes[CLIK_LAPAR_MAX_ATOMS];
    float atoms[CLIK_LAPAR_MAX_ATOMS * 32];
    memset(atoms, 0, sizeof(atoms));
    for (int j = 0; j < plan->count; j++) {
        planes[j] = (cl_long)plan->plane[j] * (cl_long)h * (cl_long)ps;
        float *at = atoms + j * per;
        if (a->plan.symmetric) {
            memcpy(at, plan->atom[j], 12 * sizeof(float)); /* taps k < 12, as (k, 24 - k) */
            at[12] = plan->atom[j][12];
        } else {
            memcpy(at, plan->atom[j], CLIK_LAPAR_TAPS * sizeof(float));
        }
    }
    t->planes_bytes = sizeof(cl_long) * (size_t)plan->count;
    t->atoms_bytes = sizeof(float) * (size_t)per * (size_t)plan->count;
    clik_status st = upload(ctx, a->wt, sizeof(float) * 16, &t->wt);
    if (st == CLIK_OK)
        st = upload(ctx, planes, t->planes_bytes, &t->planes);
    if (st == CLIK_OK)
        st = upload(ctx, atoms, t->atoms_bytes, &t->atoms);
    if (st != CLIK_OK)
        tables_release(ctx, t);
    return st;
}

/* Sets the arguments the filter kernels share from index idx: phi, its
 * stride, the tables, dst and its size. */
static clik_status phi_args(clik_context *ctx, clik_kernel_entry *k, unsigned idx,
                            const lapar_args *a, const lapar_tables *t, const clik_binding *phi,
                            const clik_binding *dst)
{
    const int ps = clik__elems(phi), ds = clik__elems(dst), count = a->plan.count;
    const int w = dst->image.width, h = dst->image.height;
    const clik_arg_value v[] = {CLIK_A(phi->mem), CLIK_A(ps),    CLIK_A(t->planes),
                                CLIK_A(t->atoms), CLIK_A(count), CLIK_A(dst->mem),
                                CLIK_A(ds),       CLIK_A(w),     CLIK_A(h)};
    for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        clik_status st = clik__arg(ctx, k, idx + i, v[i].size, v[i].value);
        if (st != CLIK_OK)
            return st;
    }
    return CLIK_OK;
}

/* Sets the low-resolution arguments of the one-kernel variants (0..5). */
static clik_status lr_args(clik_context *ctx, clik_kernel_entry *k, const lapar_args *a,
                           const lapar_tables *t, const clik_binding *lr)
{
    const int ls = clik__elems(lr), lw = lr->image.width, lh = lr->image.height, s = a->scale;
    return CLIK_ARGS(ctx, k, CLIK_A(lr->mem), CLIK_A(ls), CLIK_A(lw), CLIK_A(lh), CLIK_A(s),
                     CLIK_A(t->wt));
}

/* Launches k over nx x ny work-items in work-groups of the tuning's shape:
 * exactly that shape when the search forces it (CLIK_ERR_DEVICE_LIMITS
 * when the device or the kernel cannot take it), else shrunk to fit. */
static clik_status launch_shape(clik_context *ctx, clik_kernel_entry *k, const lapar_args *a,
                                size_t nx, size_t ny)
{
    size_t local[2] = {(size_t)a->use.wg_x, (size_t)a->use.wg_y};
    const size_t want[2] = {local[0], local[1]};
    clik__fit_local(ctx, k, 2, local);
    if (a->forced && (local[0] != want[0] || local[1] != want[1]))
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "%s: work-group %zux%zu is beyond the device's or the kernel's limits",
                          k->name, want[0], want[1]);
    size_t global[2] = {(nx + local[0] - 1) / local[0] * local[0],
                        (ny + local[1] - 1) / local[1] * local[1]};
    return clik__launch_exact(ctx, k, 2, global, local);
}

/* lapar_rows: local memory of F for one work-item of `chunks` chunks. */
static size_t rows_bytes(const lapar_args *a, int chunks)
{
    return (size_t)(a->plan.symmetric ? 13 : 25) * (size_t)chunks * 16 * sizeof(float);
}

/* Chunks of 16 pixels per work-item of lapar_rows: 16 (a run of 256 pixels
 * of each plane of phi), fewer where `items` work-items' F do not fit the
 * local memory; 0 when not even one chunk does. */
int clik__lapar_rows_chunks(const clik_context *ctx, const lapar_args *a, size_t items)
{
    int chunks = 16;
    while (chunks > 0 && rows_bytes(a, chunks) * items > ctx->dev.local_mem_size)
        chunks /= 2;
    return chunks;
}

/* U into scratch, one plane per colour channel, then lapar_rows: runs of
 * 16-pixel chunks per work-item. */
static clik_status run_upsampled(clik_context *ctx, const lapar_args *a, const lapar_tables *t,
                                 const clik_binding *lr, const clik_binding *phi,
                                 const clik_binding *dst)
{
    const clik_image *img = &lr->image;
    const int phi_half = a->phi->type == CLIK_F16;
    clik_kernel_entry *kf;
    const int wide = clik__lapar_wide_call(a->lr, a->phi, a->dst);
    clik_status st = clik__lapar_kernel(ctx, img, phi_half, wide,
                                        a->plan.symmetric ? "lapar_rows_sym" : "lapar_rows", &kf);
    if (st != CLIK_OK)
        return st;
    /* U: `colours` packed planes of w x h floats; a plane may hold more
     * than 2^31 elements, and the planes more rows than an image. */
    const int w = a->dst->width, h = a->dst->height, colours = img->channels == 4 ? 3 : 1;
    const cl_long plane = (cl_long)w * (cl_long)h;
    const size_t u_bytes = (size_t)plane * (size_t)colours * sizeof(float);
    cl_mem u;
    st = clik__temp_buffer(ctx, u_bytes, &u);
    if (st != CLIK_OK)
        return st;
    const int us = w, ls = clik__elems(lr), s = a->scale;
    st = clik__lapar_upsample_planes_cl(ctx, lr, s, a->phi, u);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kf, CLIK_A(u), CLIK_A(us), CLIK_A(plane));
    if (st == CLIK_OK)
        st = phi_args(ctx, kf, 3, a, t, phi, dst);
    if (st == CLIK_OK)
        st = CLIK_ARG(ctx, kf, 12, lr->mem);
    if (st == CLIK_OK)
        st = CLIK_ARG(ctx, kf, 13, ls);
    if (st == CLIK_OK)
        st = CLIK_ARG(ctx, kf, 14, s);
    const int chunks = clik__lapar_rows_chunks(ctx, a, (size_t)a->use.wg_x * (size_t)a->use.wg_y);
    if (st == CLIK_OK && chunks == 0)
        st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                        "lapar_rows: a work-group of %dx%d needs more local memory than %s has",
                        a->use.wg_x, a->use.wg_y, ctx->dev.name);
    if (st == CLIK_OK)
        st = CLIK_ARG(ctx, kf, 15, chunks);
    if (st == CLIK_OK)
        st = clik__arg(ctx, kf, 16,
                       rows_bytes(a, chunks) * (size_t)a->use.wg_x * (size_t)a->use.wg_y, NULL);
    if (st == CLIK_OK)
        st = launch_shape(ctx, kf, a, ((size_t)w + 16 * (size_t)chunks - 1) / (16 * (size_t)chunks),
                          (size_t)h);
    clik__temp_release(ctx, u, u_bytes);
    return st;
}

static clik_status run_direct(clik_context *ctx, const lapar_args *a, const lapar_tables *t,
                              const clik_binding *lr, const clik_binding *phi,
                              const clik_binding *dst)
{
    clik_kernel_entry *k;
    clik_status st = clik__lapar_kernel(
        ctx, &lr->image, a->phi->type == CLIK_F16, clik__lapar_wide_call(a->lr, a->phi, a->dst),
        a->plan.symmetric ? "lapar_direct_sym" : "lapar_direct", &k);
    if (st == CLIK_OK)
        st = lr_args(ctx, k, a, t, lr);
    if (st == CLIK_OK)
        st = phi_args(ctx, k, 6, a, t, phi, dst);
    if (st != CLIK_OK)
        return st;
    return launch_shape(ctx, k, a, (size_t)a->dst->width, (size_t)a->dst->height);
}

/* Local memory of the tiles of lapar_local for a gw x gh work-group:
 * *pitch is the widest block of lr a group reads (kernels/lapar.cl). */
size_t clik__lapar_local_bytes(const lapar_args *a, size_t gw, size_t gh, int *pitch)
{
    const size_t s = (size_t)a->scale, acc = sizeof(float) * (size_t)a->lr->channels;
    const size_t tw = (gw + 3) / s + 5, th = (gh + 3) / s + 5;
    *pitch = (int)tw;
    return (tw * th + (gw + 4) * (gh + 4)) * acc;
}

/* The local-memory kernel; *done 0 (nothing run) when its tiles do not fit
 * the local memory and the shape was not forced. */
static clik_status run_local(clik_context *ctx, const lapar_args *a, const lapar_tables *t,
                             const clik_binding *lr, const clik_binding *phi,
                             const clik_binding *dst, int *done)
{
    *done = 0;
    clik_kernel_entry *k;
    clik_status st = clik__lapar_kernel(ctx, &lr->image, a->phi->type == CLIK_F16,
                                        clik__lapar_wide_call(a->lr, a->phi, a->dst),
                                        a->plan.symmetric ? "lapar_local_sym" : "lapar_local", &k);
    if (st != CLIK_OK)
        return st;
    size_t local[2] = {(size_t)a->use.wg_x, (size_t)a->use.wg_y};
    const size_t want[2] = {local[0], local[1]};
    clik__fit_local(ctx, k, 2, local);
    int pitch;
    const size_t acc = sizeof(float) * (size_t)a->lr->channels;
    const size_t bytes = clik__lapar_local_bytes(a, local[0], local[1], &pitch);
    const size_t src_bytes = bytes - (local[0] + 4) * (local[1] + 4) * acc;
    if (bytes > ctx->dev.local_mem_size ||
        (a->forced && (local[0] != want[0] || local[1] != want[1])))
        return a->forced ? clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                                      "lapar_local: work-group %zux%zu does not fit the device",
                                      want[0], want[1])
                         : CLIK_OK;
    st = lr_args(ctx, k, a, t, lr);
    if (st == CLIK_OK)
        st = phi_args(ctx, k, 6, a, t, phi, dst);
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 15, CLIK_LOCAL(src_bytes), CLIK_A(pitch),
                          CLIK_LOCAL(bytes - src_bytes));
    if (st != CLIK_OK)
        return st;
    *done = 1;
    const size_t w = (size_t)a->dst->width, h = (size_t)a->dst->height;
    size_t global[2] = {(w + local[0] - 1) / local[0] * local[0],
                        (h + local[1] - 1) / local[1] * local[1]};
    return clik__launch_exact(ctx, k, 2, global, local);
}

static clik_status filter_bound(clik_context *ctx, lapar_args *a, clik_binding *const *b);

/* b[0] is lr, b[1] phi, b[2] dst: for the call, a->lr and a->dst describe
 * the bound images (the 4-channel copies of 3-channel ones). */
static clik_status filter_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    lapar_args *a = p;
    const clik_image *lr = a->lr;
    clik_image *dst = a->dst;
    a->lr = &b[0]->image;
    a->dst = &b[2]->image;
    clik_status st = filter_bound(ctx, a, b);
    a->lr = lr;
    a->dst = dst;
    return st;
}

static clik_status filter_bound(clik_context *ctx, lapar_args *a, clik_binding *const *b)
{
    clik_status st = clik__lapar_check_strides(ctx, "lapar_filter", (const clik_binding *const *)b,
                                               3, CLIK_LAPAR_STRIDE_BITS);
    if (st != CLIK_OK)
        return st;
    clik__lapar_resolve_tuning(ctx, a);
    lapar_tables t;
    st = tables_make(ctx, a, b[1], &t);
    if (st != CLIK_OK)
        return st;
    int done = 0;
    switch (a->use.variant) {
    case CLIK_LAPAR_VARIANT_LOCAL:
        st = run_local(ctx, a, &t, b[0], b[1], b[2], &done);
        if (st != CLIK_OK || done)
            break;
        /* The tiles do not fit: the kernel without local memory. */
        st = run_direct(ctx, a, &t, b[0], b[1], b[2]);
        break;
    case CLIK_LAPAR_VARIANT_UPSAMPLED:
        /* Where the local memory cannot hold one chunk of rows per
         * work-item (llvmpipe: 32 KiB), the kernel without it, as for
         * tiles that do not fit; a forced shape fails instead. */
        if (a->forced ||
            clik__lapar_rows_chunks(ctx, a, (size_t)a->use.wg_x * (size_t)a->use.wg_y) > 0) {
            st = run_upsampled(ctx, a, &t, b[0], b[1], b[2]);
            break;
        }
        st = run_direct(ctx, a, &t, b[0], b[1], b[2]);
        break;
    default: st = run_direct(ctx, a, &t, b[0], b[1], b[2]); break;
    }
    tables_release(ctx, &t);
    return st;
}

/* ---- CPU path ------------------------------------------------------------------------ */

static clik_status filter_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const lapar_args *a = p;
    if (ctx->dsp.lapar.filter(v[0], v[1], &a->plan, v[2]) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_filter: out of memory");
    return CLIK_OK;
}

static const clik_op filter_op = {"lapar_filter", filter_opencl, filter_cpu};

clik_status clik_lapar_filter(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                              const clik_lapar_dict *dict, int scale, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    lapar_args a;
    clik_status st = clik__lapar_prepare(ctx, lr, phi, dict, scale, dst, "clik_lapar_filter", &a);
    if (st != CLIK_OK)
        return st;
    return clik__lapar_run_filter(ctx, &a);
}

clik_status clik__lapar_run_filter(clik_context *ctx, lapar_args *a)
{
    const clik_op_image images[] = {{a->lr, CLIK_READ}, {a->phi, CLIK_READ}, {a->dst, CLIK_WRITE}};
    return clik__run_op_rgba(ctx, &filter_op, images, 3, a);
}

/* ---- the filter inside the LAPAR network's operation --------------------------------- */

clik_status clik__lapar_filter_bound(clik_context *ctx, const clik_lapar_dict *dict, int scale,
                                     clik_binding *const *b)
{
    lapar_args a;
    fill_args(dict, dict->atoms, scale, &b[0]->image, &b[1]->image, &b[2]->image, &a);
    return filter_opencl(ctx, &a, b);
}

clik_status clik__lapar_filter_host(clik_context *ctx, const clik_lapar_dict *dict, int scale,
                                    const clik_image *lr, const clik_image *phi, clik_image *dst)
{
    lapar_args a;
    fill_args(dict, dict->atoms, scale, lr, phi, dst, &a);
    clik_image *const v[3] = {(clik_image *)lr, (clik_image *)phi, dst};
    return filter_cpu(ctx, &a, v);
}

/* ---- the upsample on its own ------------------------------------------------------- */

typedef struct upsample_args {
    int scale;
} upsample_args;

/* Enqueues lapar_upsample of the bound lr by scale into u (w x h, u_stride
 * elements a row; plane > 0: one plane per colour, plane elements apart),
 * in the program of phi_half and wide. */
static clik_status enqueue_upsample(clik_context *ctx, const clik_binding *lr, int scale,
                                    const clik_image *shape, cl_mem u, int u_stride, cl_long plane,
                                    int phi_half, int wide)
{
    float weights[16];
    phase_weights(scale, weights);
    clik_kernel_entry *k;
    clik_status st = clik__lapar_kernel(ctx, &lr->image, phi_half, wide, "lapar_upsample", &k);
    cl_mem wt = NULL;
    if (st == CLIK_OK)
        st = upload(ctx, weights, sizeof(weights), &wt);
    const int ls = clik__elems(lr), lw = lr->image.width, lh = lr->image.height;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(lr->mem), CLIK_A(ls), CLIK_A(lw), CLIK_A(lh), CLIK_A(scale),
                       CLIK_A(wt), CLIK_A(u), CLIK_A(u_stride), CLIK_A(plane));
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)shape->width, (size_t)shape->height};
        size_t local[2] = {64, 4};
        st = clik__launch(ctx, k, 2, items, local);
    }
    clik__temp_release(ctx, wt, sizeof(weights));
    return st;
}

clik_status clik__lapar_upsample_cl(clik_context *ctx, const clik_binding *lr, int scale,
                                    const clik_binding *up)
{
    const clik_binding *const both[2] = {lr, up};
    clik_status st =
        clik__lapar_check_strides(ctx, "lapar_upsample", both, 2, CLIK_LAPAR_STRIDE_BITS);
    if (st != CLIK_OK)
        return st;
    return enqueue_upsample(ctx, lr, scale, &up->image, up->mem, clik__elems(up), 0, 0,
                            clik__lapar_wide_call(&lr->image, NULL, &up->image));
}

/* The two-pass upsample by rows (lapar_up_rows: CPU devices by default,
 * within the loop budget: a source row's horizontal pass runs up to ow
 * iterations a colour). */
static int up_rows(clik_context *ctx, int ow, int colours)
{
    const long budget = clik__loop_budget(ctx);
    return (!budget || (long)ow * colours < budget / 2) &&
           (int)clik__tune(ctx, CLIK_TUNE_LAPAR_UP_ROWS, ctx->dev.type == CLIK_DEVICE_CPU);
}

clik_status clik__lapar_launch_rows(clik_context *ctx, clik_kernel_entry *k, int n)
{
    size_t global[1] = {(size_t)n}, local[1] = {1};
    return clik__launch_exact(ctx, k, 1, global, local);
}

/* lapar_src_planes, lapar_hpass_rows and lapar_vpass_rows (in the program
 * of phi_half and wide) into u: the source's colour planes and the
 * horizontal pass in scratch of their own. */
static clik_status upsample_rows(clik_context *ctx, const clik_binding *lr, int scale,
                                 const clik_image *shape, cl_mem u, cl_long plane,
                                 const float *weights, int phi_half, int wide)
{
    const clik_image *img = &lr->image;
    const int lw = img->width, lh = img->height, ow = shape->width, oh = shape->height;
    const int colours = img->channels == 4 ? 3 : 1;
    const cl_long sp_plane = (cl_long)lw * lh, h_plane = (cl_long)ow * lh;
    const size_t sp_bytes = (size_t)sp_plane * (size_t)colours * sizeof(float);
    const size_t h_bytes = (size_t)h_plane * (size_t)colours * sizeof(float);
    cl_mem sp = NULL, hp = NULL, wt = NULL;
    clik_kernel_entry *ks, *kh, *kv;
    clik_status st = clik__lapar_kernel(ctx, img, phi_half, wide, "lapar_src_planes", &ks);
    if (st == CLIK_OK)
        st = clik__lapar_kernel(ctx, img, phi_half, wide, "lapar_hpass_rows", &kh);
    if (st == CLIK_OK)
        st = clik__lapar_kernel(ctx, img, phi_half, wide, "lapar_vpass_rows", &kv);
    if (st == CLIK_OK)
        st = upload(ctx, weights, 16 * sizeof(float), &wt);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, sp_bytes, &sp);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, h_bytes, &hp);
    const int ls = clik__elems(lr);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, ks, CLIK_A(lr->mem), CLIK_A(ls), CLIK_A(lw), CLIK_A(lh), CLIK_A(sp),
                       CLIK_A(lw), CLIK_A(sp_plane));
    if (st == CLIK_OK)
        st = clik__lapar_launch_rows(ctx, ks, lh);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kh, CLIK_A(sp), CLIK_A(lw), CLIK_A(sp_plane), CLIK_A(lw), CLIK_A(lh),
                       CLIK_A(scale), CLIK_A(wt), CLIK_A(hp), CLIK_A(ow), CLIK_A(h_plane));
    if (st == CLIK_OK)
        st = clik__lapar_launch_rows(ctx, kh, lh);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kv, CLIK_A(hp), CLIK_A(ow), CLIK_A(h_plane), CLIK_A(lh), CLIK_A(oh),
                       CLIK_A(scale), CLIK_A(wt), CLIK_A(u), CLIK_A(ow), CLIK_A(plane));
    if (st == CLIK_OK)
        st = clik__lapar_launch_rows(ctx, kv, oh);
    clik__temp_release(ctx, sp, sp_bytes);
    clik__temp_release(ctx, hp, h_bytes);
    clik__temp_release(ctx, wt, 16 * sizeof(float));
    return st;
}

clik_status clik__lapar_upsample_planes_cl(clik_context *ctx, const clik_binding *lr, int scale,
                                           const clik_image *phi, cl_mem u)
{
    clik_status st =
        clik__lapar_check_strides(ctx, "lapar_upsample", &lr, 1, CLIK_LAPAR_STRIDE_BITS);
    if (st != CLIK_OK)
        return st;
    clik_image shape = lr->image;
    shape.width *= scale;
    shape.height *= scale;
    shape.stride = (size_t)shape.width * (size_t)shape.channels * sizeof(float);
    shape.type = CLIK_F32;
    const cl_long plane = (cl_long)shape.width * (cl_long)shape.height;
    const int phi_half = phi && phi->type == CLIK_F16;
    const int wide = clik__lapar_wide_call(&lr->image, phi, &shape);
    if (up_rows(ctx, shape.width, shape.channels == 4 ? 3 : 1)) {
        float weights[16];
        phase_weights(scale, weights);
        return upsample_rows(ctx, lr, scale, &shape, u, plane, weights, phi_half, wide);
    }
    return enqueue_upsample(ctx, lr, scale, &shape, u, shape.width, shape.channels == 4 ? plane : 0,
                            phi_half, wide);
}

/* b[0] is lr, b[1] dst. */
static clik_status upsample_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    return clik__lapar_upsample_cl(ctx, b[0], ((const upsample_args *)p)->scale, b[1]);
}

static clik_status upsample_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const upsample_args *a = p;
    ctx->dsp.lapar.upsample(v[0], a->scale, v[1]);
    return CLIK_OK;
}

static const clik_op upsample_op = {"lapar_upsample", upsample_opencl, upsample_cpu};

clik_status clik_lapar_upsample(clik_context *ctx, const clik_image *lr, int scale, clik_image *dst)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    clik_status st = check_lr(ctx, lr, "clik_lapar_upsample: lr");
    if (st == CLIK_OK)
        st = check_scale(ctx, lr, scale, "clik_lapar_upsample");
    if (st == CLIK_OK)
        st = check_output(ctx, lr, scale, dst, CLIK_F32, "clik_lapar_upsample: dst");
    if (st != CLIK_OK)
        return st;
    upsample_args a = {.scale = scale};
    const clik_op_image images[] = {{lr, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op_rgba(ctx, &upsample_op, images, 2, &a);
}

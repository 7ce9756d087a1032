/*
 * LAPAR family: the default dictionary, the upsample U, the LAPAR filter,
 * its work-group search, and dictionary compression (kernels/lapar.cl,
 * fallback_cpu/{scalar,neon}/lapar.c, SPEC 4.7, seed 000).
 *
 * A filter call is resolved here into a plan (fallback_cpu/cpu.h): the
 * planes of phi it reads and the atom each one weights, with a selection's
 * gamma or re-fit matrix folded into the atoms (sum_i m_il D_i is one atom
 * per plane l), so that every path runs the same plain sum of terms.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- the default dictionary ------------------------------------------------------ */

/* The Gaussian atom of SPEC 4.7: exp(-d^T S^-1 d / 2) over x = c - 2, y =
 * 2 - r, normalised to sum 1. The quadratic form is written so that d and -d
 * give the same bits: the atoms are exactly centrally symmetric. */
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

typedef struct lapar_args {
    const clik_image *lr, *phi;
    clik_image *dst;
    int scale;
    clik_lapar_plan plan;
    float wt[16]; /* the bicubic weights of the scale's phases (kernels/lapar.cl) */
    /* OpenCL path */
    clik_lapar_tuning use; /* the variant and work-group shape that run */
    int forced;            /* use was set by the work-group search */
} lapar_args;

static clik_status check_lr(clik_context *ctx, const clik_image *lr, const char *what)
{
    return clik__check_format(ctx, lr, what, CLIK_TYPES(CLIK_U8, CLIK_F32), CLIK_CHANNELS(1, 4), 0,
                              0);
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
static clik_status check_dict(clik_context *ctx, const clik_lapar_dict *dict, const char *fn)
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

/* Fills the plan from dict for a phi of `planes` planes. */
static void make_plan(const clik_lapar_dict *dict, int planes, clik_lapar_plan *plan)
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

/* Checks every argument of a filter call and fills a. */
static clik_status prepare(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                           const clik_lapar_dict *dict, int scale, const clik_image *dst,
                           const char *fn, lapar_args *a)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: lr", fn);
    clik_status st = check_lr(ctx, lr, what);
    if (st == CLIK_OK)
        st = check_scale(ctx, lr, scale, fn);
    if (st == CLIK_OK)
        st = check_dict(ctx, dict, fn);
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
    memset(a, 0, sizeof(*a));
    a->lr = lr;
    a->phi = phi;
    a->dst = (clik_image *)dst;
    a->scale = scale;
    a->plan.scale = scale;
    make_plan(dict, planes, &a->plan);
    a->plan.symmetric = plan_symmetric(&a->plan);
    phase_weights(scale, a->wt);
    return CLIK_OK;
}

/* ---- tuning: the variant and the work-group shape ------------------------------ */

#define TUNE_PROGRAM "lapar"
#define TUNE_KERNEL  "lapar_filter"

/* The problem class a tuning is stored for: formats, scale, the atoms'
 * form, the terms and the output's size to the power of two below. */
static void problem_class(const lapar_args *a, char *out, size_t cap)
{
    const double px = (double)a->dst->width * (double)a->dst->height;
    snprintf(out, cap, "%s c%d phi-%s x%d %s terms %d px 2^%d", clik_type_name(a->lr->type),
             a->lr->channels, clik_type_name(a->phi->type), a->scale,
             a->plan.symmetric ? "sym" : "any", a->plan.count, (int)floor(log2(px)));
}

/* The device's default: the CPU-device kernels there, the local-memory
 * kernel where local memory is in use, else the one without. */
static clik_lapar_tuning default_tuning(const clik_context *ctx)
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
static int tuning_usable(const clik_context *ctx, const clik_tune_record *r)
{
    return r->variant >= CLIK_LAPAR_VARIANT_UPSAMPLED && r->variant <= CLIK_LAPAR_VARIANT_DIRECT &&
           (r->variant != CLIK_LAPAR_VARIANT_LOCAL || ctx->local_memory) && r->wg[0] >= 1 &&
           r->wg[1] >= 1 && (size_t)r->wg[0] <= ctx->dev.max_work_item_sizes[0] &&
           (size_t)r->wg[1] <= ctx->dev.max_work_item_sizes[1] &&
           (size_t)r->wg[0] * (size_t)r->wg[1] <= ctx->dev.max_work_group_size;
}

/* What runs: the registry's keys where set, else the stored tuning of the
 * problem class, else the default. */
static void resolve_tuning(clik_context *ctx, lapar_args *a)
{
    if (a->forced)
        return;
    clik_lapar_tuning t = default_tuning(ctx);
    char problem[128];
    problem_class(a, problem, sizeof(problem));
    clik_tune_record rec;
    if (clik__tune_load(ctx, TUNE_PROGRAM, TUNE_KERNEL, problem, &rec) == CLIK_OK &&
        tuning_usable(ctx, &rec)) {
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
 * strides from one 64-bit row pointer: fn refuses (CLIK_ERR_DEVICE_LIMITS,
 * so the CPU path runs) a binding whose stride passes INT_MAX / 8 elements
 * (rows have at most 2^22). Otherwise images, U and phi may hold more than
 * 2^31 elements (WIDE: 64-bit row offsets; phi's plane offsets always). */
static clik_status check_strides(clik_context *ctx, const char *fn, const clik_binding *const *b,
                                 int n)
{
    for (int i = 0; i < n; i++) {
        const size_t e = b[i]->stride / clik_type_size(b[i]->image.type);
        if (e > (size_t)INT_MAX / 8)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "%s: a row stride of %zu elements; the kernels take strides of at "
                              "most 2^28 - 1 elements",
                              fn, e);
    }
    return CLIK_OK;
}

static int elems(const clik_binding *b)
{
    return (int)(b->stride / clik_type_size(b->image.type));
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
static int wide_call(const clik_image *lr, const clik_image *phi, const clik_image *dst)
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
static clik_status lapar_kernel(clik_context *ctx, const clik_image *lr, int phi_half, int wide,
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
    if (t->wt)
        clik__temp_release(ctx, t->wt, sizeof(float) * 16);
    if (t->planes)
        clik__temp_release(ctx, t->planes, t->planes_bytes);
    if (t->atoms)
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
    const int per = a->plan.symmetric ? 16 : 32, h = a->dst->height, ps = elems(phi);
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
    const int ps = elems(phi), ds = elems(dst), count = a->plan.count;
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
    const int ls = elems(lr), lw = lr->image.width, lh = lr->image.height, s = a->scale;
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
static int rows_chunks(const clik_context *ctx, const lapar_args *a, size_t items)
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
    clik_kernel_entry *ku, *kf;
    const int wide = wide_call(a->lr, a->phi, a->dst);
    clik_status st = lapar_kernel(ctx, img, phi_half, wide, "lapar_upsample", &ku);
    if (st == CLIK_OK)
        st = lapar_kernel(ctx, img, phi_half, wide,
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
    const int us = w, ls = elems(lr), s = a->scale;
    st = CLIK_ARGS(ctx, ku, CLIK_A(lr->mem), CLIK_A(ls), CLIK_A(img->width), CLIK_A(img->height),
                   CLIK_A(s), CLIK_A(t->wt), CLIK_A(u), CLIK_A(us), CLIK_A(plane));
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)w, (size_t)h}, local[2] = {64, 4};
        st = clik__launch(ctx, ku, 2, items, local);
    }
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
    const int chunks = rows_chunks(ctx, a, (size_t)a->use.wg_x * (size_t)a->use.wg_y);
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
    clik_status st =
        lapar_kernel(ctx, &lr->image, a->phi->type == CLIK_F16, wide_call(a->lr, a->phi, a->dst),
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
static size_t local_bytes(const lapar_args *a, size_t gw, size_t gh, int *pitch)
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
    clik_status st =
        lapar_kernel(ctx, &lr->image, a->phi->type == CLIK_F16, wide_call(a->lr, a->phi, a->dst),
                     a->plan.symmetric ? "lapar_local_sym" : "lapar_local", &k);
    if (st != CLIK_OK)
        return st;
    size_t local[2] = {(size_t)a->use.wg_x, (size_t)a->use.wg_y};
    const size_t want[2] = {local[0], local[1]};
    clik__fit_local(ctx, k, 2, local);
    int pitch;
    const size_t acc = sizeof(float) * (size_t)a->lr->channels;
    const size_t bytes = local_bytes(a, local[0], local[1], &pitch);
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

/* b[0] is lr, b[1] phi, b[2] dst. */
static clik_status filter_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    lapar_args *a = p;
    clik_status st = check_strides(ctx, "lapar_filter", (const clik_binding *const *)b, 3);
    if (st != CLIK_OK)
        return st;
    resolve_tuning(ctx, a);
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
        if (a->forced || rows_chunks(ctx, a, (size_t)a->use.wg_x * (size_t)a->use.wg_y) > 0) {
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
    clik_status st = prepare(ctx, lr, phi, dict, scale, dst, "clik_lapar_filter", &a);
    if (st != CLIK_OK)
        return st;
    const clik_op_image images[] = {{lr, CLIK_READ}, {phi, CLIK_READ}, {dst, CLIK_WRITE}};
    return clik__run_op(ctx, &filter_op, images, 3, &a);
}

/* ---- the filter inside the LAPAR network's operation --------------------------------- */

/* The filter's arguments for images already checked by the caller. */
static void bound_args(const clik_lapar_dict *dict, int scale, const clik_image *lr,
                       const clik_image *phi, clik_image *dst, lapar_args *a)
{
    memset(a, 0, sizeof(*a));
    a->lr = lr;
    a->phi = phi;
    a->dst = dst;
    a->scale = scale;
    a->plan.scale = scale;
    make_plan(dict, dict->atoms, &a->plan);
    a->plan.symmetric = plan_symmetric(&a->plan);
    phase_weights(scale, a->wt);
}

clik_status clik__lapar_filter_bound(clik_context *ctx, const clik_lapar_dict *dict, int scale,
                                     clik_binding *const *b)
{
    lapar_args a;
    bound_args(dict, scale, &b[0]->image, &b[1]->image, &b[2]->image, &a);
    return filter_opencl(ctx, &a, b);
}

clik_status clik__lapar_filter_host(clik_context *ctx, const clik_lapar_dict *dict, int scale,
                                    const clik_image *lr, const clik_image *phi, clik_image *dst)
{
    lapar_args a;
    bound_args(dict, scale, lr, phi, dst, &a);
    clik_image *const v[3] = {(clik_image *)lr, (clik_image *)phi, dst};
    return filter_cpu(ctx, &a, v);
}

/* ---- the upsample on its own ------------------------------------------------------- */

typedef struct upsample_args {
    int scale;
} upsample_args;

clik_status clik__lapar_upsample_cl(clik_context *ctx, const clik_binding *lr, int scale,
                                    const clik_binding *up)
{
    float weights[16];
    phase_weights(scale, weights);
    const clik_binding *const both[2] = {lr, up};
    clik_status st = check_strides(ctx, "lapar_upsample", both, 2);
    if (st != CLIK_OK)
        return st;
    clik_kernel_entry *k;
    st = lapar_kernel(ctx, &lr->image, 0, wide_call(&lr->image, NULL, &up->image), "lapar_upsample",
                      &k);
    cl_mem wt = NULL;
    if (st == CLIK_OK)
        st = upload(ctx, weights, sizeof(weights), &wt);
    const int ls = elems(lr), lw = lr->image.width, lh = lr->image.height;
    const int us = elems(up);
    const cl_long interleaved = 0;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(lr->mem), CLIK_A(ls), CLIK_A(lw), CLIK_A(lh), CLIK_A(scale),
                       CLIK_A(wt), CLIK_A(up->mem), CLIK_A(us), CLIK_A(interleaved));
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)up->image.width, (size_t)up->image.height};
        size_t local[2] = {64, 4};
        st = clik__launch(ctx, k, 2, items, local);
    }
    if (wt)
        clik__temp_release(ctx, wt, sizeof(weights));
    return st;
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
    return clik__run_op(ctx, &upsample_op, images, 2, &a);
}

/* ---- the work-group search (seed 000, section III-B) ---------------------------------- */

#define TUNE_REPS           2  /* timed runs of each shape, after one untimed */
#define TUNE_MAX_EXHAUSTIVE 24 /* feasible shapes of a variant timed all; more: a greedy walk */

typedef struct tune_call {
    lapar_args *a;
    const clik_image *lr, *phi;
    clik_image *dst;
} tune_call;

static clik_status tune_run(clik_context *ctx, void *user)
{
    tune_call *c = user;
    const clik_op_image images[] = {{c->lr, CLIK_READ}, {c->phi, CLIK_READ}, {c->dst, CLIK_WRITE}};
    return clik__run_op(ctx, &filter_op, images, 3, c->a);
}

static const char *variant_kernel(clik_lapar_variant v, int sym)
{
    switch (v) {
    case CLIK_LAPAR_VARIANT_UPSAMPLED: return sym ? "lapar_rows_sym" : "lapar_rows";
    case CLIK_LAPAR_VARIANT_LOCAL: return sym ? "lapar_local_sym" : "lapar_local";
    default: return sym ? "lapar_direct_sym" : "lapar_direct";
    }
}

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n && p < ((size_t)1 << 20))
        p <<= 1;
    return p;
}

/*
 * The constraints of a gw x gh work-group for variant v: the device's
 * per-dimension and total limits and the kernel's own (threads per group);
 * its tiles within the local memory (the local-memory kernel); no side
 * longer than the output's rounded up to a power of two, and enough groups
 * to give every compute unit one (the data size).
 */
static int shape_feasible(const clik_context *ctx, const lapar_args *a, clik_lapar_variant v,
                          const clik_kernel_entry *k, size_t gw, size_t gh)
{
    /* The CPU-device variant's work-items each take runs of 16-pixel chunks
     * of a row, their F in local memory. */
    const int chunks = v == CLIK_LAPAR_VARIANT_UPSAMPLED ? rows_chunks(ctx, a, gw * gh) : 1;
    if (chunks == 0)
        return 0;
    const size_t w = v == CLIK_LAPAR_VARIANT_UPSAMPLED
                         ? ((size_t)a->dst->width + 16 * (size_t)chunks - 1) / (16 * (size_t)chunks)
                         : (size_t)a->dst->width;
    const size_t h = (size_t)a->dst->height;
    if (gw > ctx->dev.max_work_item_sizes[0] || gh > ctx->dev.max_work_item_sizes[1] ||
        gw * gh > k->max_work_group || gw > pow2_at_least(w) || gh > pow2_at_least(h))
        return 0;
    const size_t groups = ((w + gw - 1) / gw) * ((h + gh - 1) / gh);
    const size_t units = ctx->dev.compute_units ? ctx->dev.compute_units : 1;
    if (gw * gh > 1 && groups < units && groups < w * h)
        return 0;
    int pitch;
    return v != CLIK_LAPAR_VARIANT_LOCAL ||
           local_bytes(a, gw, gh, &pitch) <= ctx->dev.local_mem_size;
}

typedef struct tune_best {
    clik_lapar_tuning t;
    int found;
} tune_best;

/* Times one shape; a shape the device refuses is skipped. */
static clik_status time_shape(clik_context *ctx, tune_call *c, clik_lapar_variant v, int gw, int gh,
                              double *ms, tune_best *best)
{
    c->a->use = (clik_lapar_tuning){v, gw, gh, 0.0, 0};
    clik_status st = clik__tune_time(ctx, tune_run, c, TUNE_REPS, ms);
    if (st == CLIK_ERR_FALLBACK || st == CLIK_ERR_DEVICE_LIMITS) {
        *ms = INFINITY;
        return CLIK_OK;
    }
    if (st == CLIK_OK && (!best->found || *ms < best->t.ms)) {
        best->t = (clik_lapar_tuning){v, gw, gh, *ms, 0};
        best->found = 1;
    }
    return st;
}

/* Every feasible shape of variant v (powers of two), or, with more than
 * TUNE_MAX_EXHAUSTIVE of them, a greedy walk from the default shape: to the
 * fastest of the feasible neighbours (each side doubled or halved, or one
 * doubled and the other halved) while it is faster. */
static clik_status search_variant(clik_context *ctx, tune_call *c, clik_lapar_variant v,
                                  tune_best *best)
{
    clik_kernel_entry *k;
    clik_status st =
        lapar_kernel(ctx, c->lr, c->phi->type == CLIK_F16, wide_call(c->lr, c->phi, c->dst),
                     variant_kernel(v, c->a->plan.symmetric), &k);
    if (st != CLIK_OK)
        return st;
    int xs[32], ys[32], n = 0;
    for (size_t gw = 1; gw <= 1024; gw *= 2)
        for (size_t gh = 1; gw * gh <= 1024; gh *= 2)
            if (shape_feasible(ctx, c->a, v, k, gw, gh) && n < 32) {
                xs[n] = (int)gw;
                ys[n++] = (int)gh;
            }
    double ms;
    if (n <= TUNE_MAX_EXHAUSTIVE) {
        for (int i = 0; i < n && st == CLIK_OK; i++)
            st = time_shape(ctx, c, v, xs[i], ys[i], &ms, best);
        return st;
    }
    const clik_lapar_tuning d = default_tuning(ctx);
    int gw = d.variant == v ? d.wg_x : 16, gh = d.variant == v ? d.wg_y : 8;
    while (!shape_feasible(ctx, c->a, v, k, (size_t)gw, (size_t)gh) && gw * gh > 1)
        gw > gh ? (gw /= 2) : (gh /= 2);
    double here;
    st = time_shape(ctx, c, v, gw, gh, &here, best);
    static const int step[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
    for (int moves = 0; st == CLIK_OK && moves < 16; moves++) {
        int next_w = 0, next_h = 0;
        double next_ms = here;
        for (int i = 0; i < 6 && st == CLIK_OK; i++) {
            const int nw = step[i][0] > 0 ? gw * 2 : step[i][0] < 0 ? gw / 2 : gw;
            const int nh = step[i][1] > 0 ? gh * 2 : step[i][1] < 0 ? gh / 2 : gh;
            if (nw < 1 || nh < 1 || !shape_feasible(ctx, c->a, v, k, (size_t)nw, (size_t)nh))
                continue;
            st = time_shape(ctx, c, v, nw, nh, &ms, best);
            if (st == CLIK_OK && ms < next_ms) {
                next_ms = ms;
                next_w = nw;
                next_h = nh;
            }
        }
        if (!next_w)
            break;
        gw = next_w;
        gh = next_h;
        here = next_ms;
    }
    return st;
}

static clik_status no_device(clik_context *ctx, const char *fn)
{
    return clik__fail(ctx, CLIK_ERR_NO_DEVICE, "%s: the context has no OpenCL device", fn);
}

/* The common start of the tuning calls: ctx, the result (out, named name)
 * not NULL, the arguments into a and, with device, an OpenCL device. */
static clik_status prepare_tuning(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                                  const clik_lapar_dict *dict, int scale, const clik_image *dst,
                                  const void *out, const char *name, const char *fn, int device,
                                  lapar_args *a)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!out)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: %s is NULL", fn, name);
    clik_status st = prepare(ctx, lr, phi, dict, scale, dst, fn, a);
    if (st == CLIK_OK && device && !ctx->has_device)
        st = no_device(ctx, fn);
    return st;
}

clik_status clik_lapar_tune(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                            const clik_lapar_dict *dict, int scale, clik_image *dst,
                            clik_lapar_tuning *best)
{
    lapar_args a;
    clik_status st =
        prepare_tuning(ctx, lr, phi, dict, scale, dst, best, "best", "clik_lapar_tune", 1, &a);
    if (st != CLIK_OK)
        return st;
    /* Every run on the device: a shape it refuses fails instead of falling back. */
    const int strict = ctx->strict;
    ctx->strict = 1;
    a.forced = 1;
    tune_call c = {&a, lr, phi, dst};
    tune_best found = {{CLIK_LAPAR_VARIANT_AUTO, 0, 0, 0.0, 0}, 0};
    static const clik_lapar_variant variants[3] = {
        CLIK_LAPAR_VARIANT_UPSAMPLED, CLIK_LAPAR_VARIANT_LOCAL, CLIK_LAPAR_VARIANT_DIRECT};
    for (int i = 0; i < 3 && st == CLIK_OK; i++)
        if (variants[i] != CLIK_LAPAR_VARIANT_LOCAL || ctx->local_memory)
            st = search_variant(ctx, &c, variants[i], &found);
    if (st == CLIK_OK && !found.found)
        st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "clik_lapar_tune: no work-group shape runs");
    /* dst from the best shape; then the store. */
    if (st == CLIK_OK) {
        a.use = found.t;
        st = tune_run(ctx, &c);
    }
    ctx->strict = strict;
    if (st != CLIK_OK)
        return st;
    *best = found.t;
    char problem[128];
    problem_class(&a, problem, sizeof(problem));
    const clik_tune_record rec = {
        (int)found.t.variant, {found.t.wg_x, found.t.wg_y, 1}, found.t.ms};
    if (ctx->cache_dir &&
        clik__tune_store(ctx, TUNE_PROGRAM, TUNE_KERNEL, problem, &rec) == CLIK_OK)
        best->stored = 1;
    return CLIK_OK;
}

clik_status clik_lapar_tuning_get(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                                  const clik_lapar_dict *dict, int scale, const clik_image *dst,
                                  clik_lapar_tuning *out)
{
    lapar_args a;
    clik_status st =
        prepare_tuning(ctx, lr, phi, dict, scale, dst, out, "out", "clik_lapar_tuning_get", 1, &a);
    if (st == CLIK_OK) {
        resolve_tuning(ctx, &a);
        *out = a.use;
    }
    return st;
}

clik_status clik_lapar_tuning_set(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                                  const clik_lapar_dict *dict, int scale, const clik_image *dst,
                                  const clik_lapar_tuning *t)
{
    lapar_args a;
    clik_status st =
        prepare_tuning(ctx, lr, phi, dict, scale, dst, t, "t", "clik_lapar_tuning_set", 0, &a);
    if (st != CLIK_OK)
        return st;
    /* No device runs these: a bad argument with or without one. */
    if (t->variant < CLIK_LAPAR_VARIANT_UPSAMPLED || t->variant > CLIK_LAPAR_VARIANT_DIRECT ||
        t->wg_x < 1 || t->wg_y < 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_tuning_set: variant %d with work-group %dx%d is no tuning "
                          "(variant UPSAMPLED, LOCAL or DIRECT, sides of at least 1)",
                          (int)t->variant, t->wg_x, t->wg_y);
    if (!ctx->has_device)
        return no_device(ctx, "clik_lapar_tuning_set");
    const clik_tune_record rec = {(int)t->variant,
                                  {t->wg_x, t->wg_y, 1},
                                  isfinite(t->ms) && t->ms >= 0.0 && t->ms <= 1e9 ? t->ms : 0.0};
    if (!tuning_usable(ctx, &rec))
        return clik__fail(
            ctx, CLIK_ERR_INVALID_ARG,
            "clik_lapar_tuning_set: variant %d with work-group %dx%d cannot run on %s",
            (int)t->variant, t->wg_x, t->wg_y, ctx->dev.name);
    char problem[128];
    problem_class(&a, problem, sizeof(problem));
    return clik__tune_store(ctx, TUNE_PROGRAM, TUNE_KERNEL, problem, &rec);
}

/* ---- dictionary compression (seed 000, section III-A) ----------------------------------- */

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
    default: {
        const uint16_t hv = ((const uint16_t *)(const void *)p)[x];
        const int e = (hv >> 10) & 0x1f, m = hv & 0x3ff;
        const double v = e == 0    ? ldexp(m, -24)
                         : e == 31 ? (m ? NAN : INFINITY)
                                   : ldexp(m | 0x400, e - 25);
        return (hv >> 15) ? -v : v;
    }
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

/* The k atoms of the lambda search (see clik.h) into keep[] (increasing):
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
    clik_status st = check_dict(ctx, dict, "clik_lapar_compress");
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

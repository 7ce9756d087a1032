/*
 * LAPAR family: the work-group search of the filter (Zhao et al. 2021,
 * section III-B: every variant and work-group shape within the device's
 * and the kernel's limits timed, the fastest kept) and the tuning store's
 * entries for it: clik_lapar_tune, clik_lapar_tuning_get and _set. What the
 * filter runs from the store is resolved in lapar.c.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stddef.h>

#include "lapar.h"

#define TUNE_REPS           2  /* timed runs of each shape, after one untimed */
#define TUNE_MAX_EXHAUSTIVE 24 /* feasible shapes of a variant timed all; more: a greedy walk */

static clik_status tune_run(clik_context *ctx, void *a)
{
    return clik__lapar_run_filter(ctx, a);
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
    const int chunks =
        v == CLIK_LAPAR_VARIANT_UPSAMPLED ? clik__lapar_rows_chunks(ctx, a, gw * gh) : 1;
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
           clik__lapar_local_bytes(a, gw, gh, &pitch) <= ctx->dev.local_mem_size;
}

typedef struct tune_best {
    clik_lapar_tuning t;
    int found;
} tune_best;

/* Times one shape; a shape the device refuses is skipped. */
static clik_status time_shape(clik_context *ctx, lapar_args *a, clik_lapar_variant v, int gw,
                              int gh, double *ms, tune_best *best)
{
    a->use = (clik_lapar_tuning){v, gw, gh, 0.0, 0};
    clik_status st = clik__tune_time(ctx, tune_run, a, TUNE_REPS, ms);
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
static clik_status search_variant(clik_context *ctx, lapar_args *a, clik_lapar_variant v,
                                  tune_best *best)
{
    clik_kernel_entry *k;
    clik_status st = clik__lapar_kernel(ctx, a->lr, a->phi->type == CLIK_F16,
                                        clik__lapar_wide_call(a->lr, a->phi, a->dst),
                                        variant_kernel(v, a->plan.symmetric), &k);
    if (st != CLIK_OK)
        return st;
    int xs[32], ys[32], n = 0;
    for (size_t gw = 1; gw <= 1024; gw *= 2)
        for (size_t gh = 1; gw * gh <= 1024; gh *= 2)
            if (shape_feasible(ctx, a, v, k, gw, gh) && n < 32) {
                xs[n] = (int)gw;
                ys[n++] = (int)gh;
            }
    double ms;
    if (n <= TUNE_MAX_EXHAUSTIVE) {
        for (int i = 0; i < n && st == CLIK_OK; i++)
            st = time_shape(ctx, a, v, xs[i], ys[i], &ms, best);
        return st;
    }
    const clik_lapar_tuning d = clik__lapar_default_tuning(ctx);
    int gw = d.variant == v ? d.wg_x : 16, gh = d.variant == v ? d.wg_y : 8;
    while (!shape_feasible(ctx, a, v, k, (size_t)gw, (size_t)gh) && gw * gh > 1)
        gw > gh ? (gw /= 2) : (gh /= 2);
    double here;
    st = time_shape(ctx, a, v, gw, gh, &here, best);
    static const int step[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
    for (int moves = 0; st == CLIK_OK && moves < 16; moves++) {
        int next_w = 0, next_h = 0;
        double next_ms = here;
        for (int i = 0; i < 6 && st == CLIK_OK; i++) {
            const int nw = step[i][0] > 0 ? gw * 2 : step[i][0] < 0 ? gw / 2 : gw;
            const int nh = step[i][1] > 0 ? gh * 2 : step[i][1] < 0 ? gh / 2 : gh;
            if (nw < 1 || nh < 1 || !shape_feasible(ctx, a, v, k, (size_t)nw, (size_t)nh))
                continue;
            st = time_shape(ctx, a, v, nw, nh, &ms, best);
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
    clik_status st = clik__lapar_prepare(ctx, lr, phi, dict, scale, dst, fn, a);
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
    tune_best found = {{CLIK_LAPAR_VARIANT_AUTO, 0, 0, 0.0, 0}, 0};
    static const clik_lapar_variant variants[3] = {
        CLIK_LAPAR_VARIANT_UPSAMPLED, CLIK_LAPAR_VARIANT_LOCAL, CLIK_LAPAR_VARIANT_DIRECT};
    for (int i = 0; i < 3 && st == CLIK_OK; i++)
        if (variants[i] != CLIK_LAPAR_VARIANT_LOCAL || ctx->local_memory)
            st = search_variant(ctx, &a, variants[i], &found);
    if (st == CLIK_OK && !found.found)
        st = clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "clik_lapar_tune: no work-group shape runs");
    /* dst from the best shape; then the store. */
    if (st == CLIK_OK) {
        a.use = found.t;
        st = clik__lapar_run_filter(ctx, &a);
    }
    ctx->strict = strict;
    if (st != CLIK_OK)
        return st;
    *best = found.t;
    char problem[128];
    clik__lapar_problem_class(&a, problem, sizeof(problem));
    const clik_tune_record rec = {
        (int)found.t.variant, {found.t.wg_x, found.t.wg_y, 1}, found.t.ms};
    if (ctx->cache_dir && clik__tune_store(ctx, CLIK_LAPAR_TUNE_PROGRAM, CLIK_LAPAR_TUNE_KERNEL,
                                           problem, &rec) == CLIK_OK)
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
        clik__lapar_resolve_tuning(ctx, &a);
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
    if (!clik__lapar_tuning_usable(ctx, &rec))
        return clik__fail(
            ctx, CLIK_ERR_INVALID_ARG,
            "clik_lapar_tuning_set: variant %d with work-group %dx%d cannot run on %s",
            (int)t->variant, t->wg_x, t->wg_y, ctx->dev.name);
    char problem[128];
    clik__lapar_problem_class(&a, problem, sizeof(problem));
    return clik__tune_store(ctx, CLIK_LAPAR_TUNE_PROGRAM, CLIK_LAPAR_TUNE_KERNEL, problem, &rec);
}

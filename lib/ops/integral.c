/*
 * Integral family: OpenCV integral and sums of squares (kernels/integral.cl,
 * fallback_cpu/{scalar,neon}/integral.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MAX_K       32  /* pixels per work-item in the work-group kernels */
#define OPTIONS_MAX 400 /* bytes of a program's build options */

typedef struct integral_args {
    const clik_image *src;
    clik_image *sum;
    clik_image *sqsum;
} integral_args;

/* ---- validation -------------------------------------------------------------------- */

static int sum_type_ok(clik_type src, clik_type sum)
{
    if (src == CLIK_U8)
        return sum == CLIK_U32 || sum == CLIK_S32 || sum == CLIK_U64 || sum == CLIK_F64;
    return sum == CLIK_F32 || sum == CLIK_F64;
}

static int sq_type_ok(clik_type src, clik_type sq)
{
    return sq == CLIK_F64 || (src == CLIK_U8 && sq == CLIK_U64);
}

/* out: src's channels, one more row and column, apart from src. */
static clik_status check_output(clik_context *ctx, const clik_image *src, const clik_image *out,
                                const char *what)
{
    clik_status st = clik__check_image(ctx, out, what); /* before reading its type */
    if (st == CLIK_OK)
        st = clik__check_format(ctx, out, what, CLIK_TYPE_BIT(out->type),
                                1u << (unsigned)src->channels, src->width + 1, src->height + 1);
    return st == CLIK_OK ? clik__check_apart(ctx, src, out, 0, what) : st;
}

static clik_status check_args(clik_context *ctx, const integral_args *a)
{
    const char *op = "clik_integral";
    clik_status st = clik__check_pixels(ctx, a->src, op);
    if (st != CLIK_OK)
        return st;
    if (!a->sum)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: sum is NULL", op);
    /* The descriptor first: a cleared one is NULL, not a wrong type. */
    st = clik__check_image(ctx, a->sum, "clik_integral: sum");
    if (st != CLIK_OK)
        return st;
    if (!sum_type_ok(a->src->type, a->sum->type))
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "%s: %s sums of %s pixels (u8: u32, s32, u64, f64; f32: f32, f64)", op,
                          clik_type_name(a->sum->type), clik_type_name(a->src->type));
    if (a->src->type == CLIK_U8 && a->sum->type == CLIK_U32 &&
        255.0 * a->src->width * a->src->height > 4294967295.0)
        return clik__fail(ctx, CLIK_ERR_OVERFLOW,
                          "%s: a %dx%d u8 image can sum past 2^32 - 1: ask for u64 or f64 sums", op,
                          a->src->width, a->src->height);
    st = check_output(ctx, a->src, a->sum, "clik_integral: sum");
    if (st != CLIK_OK)
        return st;
    if (a->sqsum) {
        st = check_output(ctx, a->src, a->sqsum, "clik_integral: sqsum");
        if (st != CLIK_OK)
            return st;
        if (!sq_type_ok(a->src->type, a->sqsum->type))
            return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                              "%s: %s sums of squares of %s pixels (u8: u64, f64; f32: f64)", op,
                              clik_type_name(a->sqsum->type), clik_type_name(a->src->type));
        return clik__check_apart(ctx, a->sum, a->sqsum, 0, op);
    }
    return CLIK_OK;
}

/* ---- OpenCL path --------------------------------------------------------------------- */

static const char *cl_name(clik_type t)
{
    switch (t) {
    case CLIK_U8: return "uchar";
    /* s32: the sums modulo 2^32, whose bits are those of u32 sums (two's
     * complement), so they are added and stored as uint. */
    case CLIK_U32:
    case CLIK_S32: return "uint";
    case CLIK_U64: return "ulong";
    case CLIK_F32: return "float";
    default: return "double";
    }
}

/* OpenCL C types of one result (the sums, or the sums of squares): the
 * accumulation and stored types, and how they are made without device
 * doubles. */
typedef struct result_types {
    const char *acc, *out;
    int ff;   /* float-float accumulation */
    int bits; /* stored as binary64 bit patterns in ulong */
} result_types;

static result_types types_of(clik_type src, clik_type out, int fp64)
{
    result_types t = {cl_name(out), cl_name(out), 0, 0};
    /* f32 pixels add in double, as the oracle, or else in float-float pairs
     * (about 48 significant bits: float sums lose the F32 class where
     * positive and negative pixels cancel). */
    if (src == CLIK_F32) {
        t.acc = fp64 ? "double" : "float2";
        t.ff = !fp64;
    }
    /* Without doubles, an f64 result is written as the bits of the nearest
     * binary64, made with integer operations; u8 sums are exact in ulong. */
    if (out == CLIK_F64 && !fp64) {
        t.out = "ulong";
        t.bits = 1;
        if (src == CLIK_U8)
            t.acc = "ulong";
    }
    return t;
}

typedef struct integral_plan {
    clik_type acc;    /* accumulation type of the sums, or one of its size (types_of) */
    int fp64;         /* device doubles are used */
    int serial;       /* CPU devices: one work-item per strip */
    int lookback;     /* one pass: bands in ticket order, carries by look-back */
    int vec;          /* serial u8 kernels in 16-element steps */
    int ls, k;        /* work-group size and pixels per work-item */
    int kc;           /* pixels per work-item staged at a time, 0: not staged */
    int rows, strips; /* rows per strip, strip count */
} integral_plan;

/* The most rows per strip whose loop iterations a + b * rows, per work-item
 * of each kernel, stay within budget; 0 when not even one row does. The
 * bounds count every loop's iterations plus one (llvmpipe counts the exit
 * test too). */
static long most_rows(const integral_plan *p, long w, long ch, long budget)
{
    long a[2], b[2]; /* integral_strips, integral_rows */
    if (p->serial && p->vec) {
        const long n = w * ch; /* 64-column blocks, then 16-element steps */
        a[0] = n * 9 / 64 + n / 16 + 100;
        b[0] = n / 64 + n / 8192 + 66;
        a[1] = n / 16 + 40;
        b[1] = n / 16 + 24;
    } else if (p->serial) {
        a[0] = a[1] = 2 * (w + 2);
        b[0] = b[1] = w + 2;
    } else {
        long log_ls = 0;
        while ((1L << log_ls) < p->ls)
            log_ls++;
        /* Staged a chunk at a time: a few more steps per chunk. */
        const long chunks = p->kc ? p->k / p->kc : 1;
        b[0] = b[1] = 5L * p->k * ch + 2 * log_ls + 4 * chunks + 16;
        a[0] = a[1] = 2 * b[0];
    }
    long most = -1;
    for (int i = 0; i < 2; i++) {
        long r = budget > a[i] ? (budget - a[i]) / b[i] : 0;
        if (most < 0 || r < most)
            most = r;
    }
    return most;
}

/* max_ls: the most work-items per group the kernels take, 0 if unknown. */
static clik_status plan(clik_context *ctx, const integral_args *a, size_t max_ls, integral_plan *p)
{
    const int w = a->src->width, h = a->src->height;
    memset(p, 0, sizeof(*p));
    /* Without device doubles (or with integral_fp64=0), results are built
     * from integer or float-float sums (types_of). */
    p->fp64 = ctx->dev.fp64 && clik__tune(ctx, CLIK_TUNE_INTEGRAL_FP64, 1);
    p->acc = a->src->type == CLIK_F32 ? CLIK_F64 : a->sum->type;
    p->serial = (int)clik__tune(ctx, CLIK_TUNE_INTEGRAL_SERIAL, ctx->dev.type == CLIK_DEVICE_CPU);
    if (!p->serial) {
        /* Work-items own K pixels; the work-group covers the row. */
        long want = clik__tune(ctx, CLIK_TUNE_INTEGRAL_LS, 256);
        size_t most = ctx->dev.max_work_group_size;
        if (ctx->dev.max_work_item_sizes[0] < most)
            most = ctx->dev.max_work_item_sizes[0];
        if (max_ls && max_ls < most)
            most = max_ls;
        int ls = 1;
        while ((size_t)ls * 2 <= (size_t)want && (size_t)ls * 2 <= most)
            ls *= 2;
        int k = 1;
        while (k * ls < w && k < MAX_K)
            k *= 2;
        /* Images of 32 pixels or fewer a row: groups of 32 (two group
         * sizes in all, so fewer programs). */
        if (ls > 32 && 32 * k >= w)
            ls = 32;
        if (k * ls < w)
            p->serial = 1; /* wider than MAX_K * ls: one work-item per strip */
        p->ls = ls;
        p->k = k;
    }
    /* One pass only where asked: it needs groups that have started to keep
     * running while others wait for them (desktop GPUs; not Mali, Adreno),
     * loops that are not cut short (llvmpipe's limiter would end the
     * look-back's waits), and exact or double sums. Measured slower than the
     * three kernels where it may run: NVIDIA H200, 3840x2160 grey, 0.32 ms
     * at best (integral_rows=40; 0.83 ms by default) against 0.11 ms; RGBA
     * 1.8 ms against 0.80 ms. */
    if (!p->serial)
        p->lookback = (int)clik__tune(ctx, CLIK_TUNE_INTEGRAL_LOOKBACK, 0) &&
                      !clik__loop_budget(ctx) && (a->src->type == CLIK_U8 || p->fp64);
    p->vec =
        p->serial && a->src->type == CLIK_U8 && (int)clik__tune(ctx, CLIK_TUNE_INTEGRAL_VEC, 1);
    /* Rows staged in local memory, KC of each work-item's K pixels at a
     * time (or integral_chunk at the most): the most whose tiles, the
     * sums', the squares' and the source's (the outputs take the sums'
     * places), take at most 30 % of the local memory, so that several
     * work-groups share a compute unit, and 2 or more (fewer barriers)
     * where they fit; else 1. NVIDIA H200, 3840x2160 (48 KiB): grey 0.112 ms
     * staging the whole row (K 16, 20 KiB), 0.101 by 8 pixels (10 KiB);
     * RGBA 0.80 ms unstaged (80 KiB do not fit), 0.59 by 8 (40 KiB), 0.37
     * by 2 (10 KiB); with squares, grey 0.41 unstaged, 0.36 by 2, 0.29 by
     * 4 (13 KiB); RGBA 2.22, 1.74 by 1, 1.41 by 2 (27 KiB). */
    const int sq_ff = a->sqsum && types_of(a->src->type, a->sqsum->type, p->fp64).ff;
    if (!p->serial && !sq_ff && !types_of(a->src->type, a->sum->type, p->fp64).ff &&
        clik__tune(ctx, CLIK_TUNE_INTEGRAL_STAGE, 1)) {
        /* Bytes of the sums (and squares) an element keeps. */
        const size_t ch = (size_t)a->src->channels, local = ctx->dev.local_mem_size;
        const size_t sums = clik_type_size(p->acc) + (a->sqsum ? 8 : 0);
        const size_t scan = (size_t)p->ls * sums * ch + 256;
        const long most = clik__tune(ctx, CLIK_TUNE_INTEGRAL_CHUNK, 0);
        /* Pass 0: within 30 % and 2 or more; pass 1: 2 or more; pass 2: any. */
        for (int pass = 0; pass < 3 && !p->kc; pass++)
            for (int kc = p->k; kc >= 1 && !p->kc; kc /= 2) {
                const size_t tiles =
                    (size_t)p->ls * (size_t)kc * ch * (sums + clik_type_size(a->src->type));
                const int wanted = most ? kc <= most
                                        : (pass == 2 || kc >= 2 || p->k == 1) &&
                                              (pass > 0 || tiles * 10 <= local * 3);
                if (tiles + scan <= local && wanted)
                    p->kc = kc;
            }
    }
    /* Strips: a few per compute unit (work-groups on a GPU, threads on a CPU). */
    long rows = clik__band_rows(ctx, CLIK_TUNE_INTEGRAL_ROWS, h);
    /* One pass: bands twice as tall (each band's published rows cost
     * traffic; two bands per compute unit still run at once). */
    if (p->lookback)
        rows = clik__tune(ctx, CLIK_TUNE_INTEGRAL_ROWS, rows * 2);
    const long budget = clik__loop_budget(ctx); /* strips short enough */
    if (budget) {
        /* The carry kernel walks down every strip, twice with squares. */
        const long most = most_rows(p, w, a->src->channels, budget);
        const long fewest = ((long)h * 2 + budget - 17) / (budget - 16);
        if (most < fewest)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "integral: a %dx%d image takes more loop steps per work-item than "
                              "%s runs (%ld)",
                              w, h, ctx->dev.name, budget);
        if (rows > most)
            rows = most;
        if (rows < fewest)
            rows = fewest;
    }
    p->rows = (int)rows;
    p->strips = (h + p->rows - 1) / p->rows;
    return CLIK_OK;
}

static void build_options(char *out, size_t cap, const integral_args *a, const integral_plan *p,
                          int with_sq)
{
    const clik_type st = a->src->type;
    const result_types sum = types_of(st, a->sum->type, p->fp64);
    /* Without sums of squares, SQ only names a type the program never uses. */
    const result_types sq =
        with_sq ? types_of(st, a->sqsum->type, p->fp64) : types_of(CLIK_U8, CLIK_U64, 1);
    const int need_fp64 = p->fp64 && (p->acc == CLIK_F64 || a->sum->type == CLIK_F64 ||
                                      (with_sq && a->sqsum->type == CLIK_F64));
    char shape[96];
    if (p->serial)
        snprintf(shape, sizeof(shape), "-DCPU_SERIAL=1 -DK=1 -DLS=1 -DVEC_ROWS=%d", p->vec);
    else {
        snprintf(shape, sizeof(shape), "-DK=%d -DKC=%d -DLS=%d -DSTAGE=%d -DLOOKBACK=%d -DACC_W=%d",
                 p->k, p->kc ? p->kc : p->k, p->ls, p->kc > 0, p->lookback,
                 (int)(clik_type_size(p->acc) / 4));
    }
    snprintf(out, cap,
             "-DST=%s -DACC=%s -DSUM=%s -DSQ=%s -DSQO=%s -DSQSUM=%d -DCH=%d -DNEED_FP64=%d "
             "-DACC_FF=%d -DSUM_BITS=%d -DSQ_FF=%d -DSQ_BITS=%d %s",
             cl_name(st), sum.acc, sum.out, sq.acc, sq.out, with_sq, a->src->channels, need_fp64,
             sum.ff, sum.bits, sq.ff, sq.bits, shape);
}

/* The largest work-group that the plan's scan kernels take: their
 * registers and local memory may allow fewer than the device's maximum
 * (llvmpipe: 32). */
static clik_status group_limit(clik_context *ctx, const integral_args *a, const integral_plan *p,
                               size_t *limit)
{
    char opts[OPTIONS_MAX];
    build_options(opts, sizeof(opts), a, p, a->sqsum != NULL);
    clik_kernel_entry *k;
    clik_status st = clik__kernel(ctx, "integral", opts, "integral_strips", &k);
    if (st != CLIK_OK)
        return st;
    *limit = k->max_work_group;
    st = clik__kernel(ctx, "integral", opts, "integral_rows", &k);
    if (st == CLIK_OK && k->max_work_group < *limit)
        *limit = k->max_work_group;
    if (st == CLIK_OK && p->lookback)
        st = clik__kernel(ctx, "integral", opts, "integral_lookback", &k);
    if (st == CLIK_OK && p->lookback && k->max_work_group < *limit)
        *limit = k->max_work_group;
    return st;
}

/* The plan, with work-groups the compiled kernels take. */
static clik_status plan_for_kernels(clik_context *ctx, const integral_args *a, integral_plan *p)
{
    clik_status st = plan(ctx, a, 0, p);
    size_t limit = 0;
    if (st == CLIK_OK && !p->serial)
        st = group_limit(ctx, a, p, &limit);
    if (st != CLIK_OK || p->serial || limit >= (size_t)p->ls)
        return st;
    st = plan(ctx, a, limit, p);
    if (st == CLIK_OK && !p->serial)
        st = group_limit(ctx, a, p, &limit);
    if (st == CLIK_OK && !p->serial && limit < (size_t)p->ls)
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "integral: the kernels allow work-groups of %zu, need %d", limit, p->ls);
    return st;
}

/* The sums of squares' arguments follow each kernel's others. */
static clik_status run_kernels(clik_context *ctx, const integral_args *a, const integral_plan *p,
                               const clik_binding *src, const clik_binding *sum,
                               const clik_binding *sq, cl_mem strips, cl_mem sqstrips)
{
    char opts[OPTIONS_MAX];
    build_options(opts, sizeof(opts), a, p, sq != NULL);
    clik_kernel_entry *kstrips, *kcarry, *krows;
    clik_status st = clik__kernel(ctx, "integral", opts, "integral_strips", &kstrips);
    if (st == CLIK_OK)
        st = clik__kernel(ctx, "integral", opts, "integral_carry", &kcarry);
    if (st == CLIK_OK)
        st = clik__kernel(ctx, "integral", opts, "integral_rows", &krows);
    const int w = a->src->width, h = a->src->height, rows = p->rows, nstrips = p->strips;
    const int ss = clik__elems(src), sums = clik__elems(sum), n = (w + 1) * a->src->channels;
    const int sqs = sq ? clik__elems(sq) : 0;
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kstrips, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h),
                       CLIK_A(rows), CLIK_A(strips));
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kcarry, CLIK_A(strips), CLIK_A(n), CLIK_A(nstrips));
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, krows, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(rows),
                       CLIK_A(strips), CLIK_A(sum->mem), CLIK_A(sums));
    if (st == CLIK_OK && sq)
        st = CLIK_ARG(ctx, kstrips, 6, sqstrips);
    if (st == CLIK_OK && sq)
        st = CLIK_ARG(ctx, kcarry, 3, sqstrips);
    if (st == CLIK_OK && sq)
        st = CLIK_ARGS_AT(ctx, krows, 8, CLIK_A(sqstrips), CLIK_A(sq->mem), CLIK_A(sqs));
    if (st != CLIK_OK)
        return st;
    /* Serial: one work-item per strip; else a work-group per strip. */
    const unsigned dims = p->serial ? 1 : 2;
    size_t global[2] = {p->serial ? (size_t)nstrips : (size_t)p->ls, (size_t)nstrips};
    size_t local[2] = {p->serial ? 1 : (size_t)p->ls, 1};
    /* The last strip's contribution reaches no strip below it. */
    size_t strips_global[2] = {global[0], global[1]};
    strips_global[p->serial ? 0 : 1] = (size_t)nstrips - 1;
    if (nstrips > 1)
        st = clik__launch_exact(ctx, kstrips, dims, strips_global, local);
    size_t items = (size_t)n, lc = 64;
    if (st == CLIK_OK)
        st = clik__launch(ctx, kcarry, 1, &items, &lc);
    return st == CLIK_OK ? clik__launch_exact(ctx, krows, dims, global, local) : st;
}

/* One pass: state (a ticket and a flag per band, zeroed first), then the
 * bands' published rows (agg, inc; with squares sqagg, sqinc). */
static clik_status run_lookback(clik_context *ctx, const integral_args *a, const integral_plan *p,
                                const clik_binding *src, const clik_binding *sum,
                                const clik_binding *sq, cl_mem const *bufs)
{
    char opts[OPTIONS_MAX];
    build_options(opts, sizeof(opts), a, p, sq != NULL);
    clik_kernel_entry *kzero, *kband;
    clik_status st = clik__kernel(ctx, "integral", opts, "integral_zero", &kzero);
    if (st == CLIK_OK)
        st = clik__kernel(ctx, "integral", opts, "integral_lookback", &kband);
    const int w = a->src->width, h = a->src->height, rows = p->rows, nstate = p->strips + 1;
    const int ss = clik__elems(src), sums = clik__elems(sum);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kzero, CLIK_A(bufs[0]), CLIK_A(nstate));
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kband, CLIK_A(src->mem), CLIK_A(ss), CLIK_A(w), CLIK_A(h), CLIK_A(rows),
                       CLIK_A(bufs[0]), CLIK_A(bufs[1]), CLIK_A(bufs[2]), CLIK_A(sum->mem),
                       CLIK_A(sums));
    if (st == CLIK_OK && sq) {
        const int sqs = clik__elems(sq);
        st = CLIK_ARGS_AT(ctx, kband, 10, CLIK_A(bufs[3]), CLIK_A(bufs[4]), CLIK_A(sq->mem),
                          CLIK_A(sqs));
    }
    size_t items = (size_t)nstate, lz = 64;
    if (st == CLIK_OK)
        st = clik__launch(ctx, kzero, 1, &items, &lz);
    size_t global = (size_t)p->ls * (size_t)p->strips, local = (size_t)p->ls;
    return st == CLIK_OK ? clik__launch_exact(ctx, kband, 1, &global, &local) : st;
}

static clik_status integral_lookback(clik_context *ctx, const integral_args *a,
                                     const integral_plan *p, clik_binding *const *b)
{
    const size_t n = (size_t)a->src->width * (size_t)a->src->channels * (size_t)p->strips;
    const size_t bytes[5] = {((size_t)p->strips + 1) * 4, n * clik_type_size(p->acc),
                             n * clik_type_size(p->acc), a->sqsum ? n * 8 : 0,
                             a->sqsum ? n * 8 : 0};
    cl_mem bufs[5] = {NULL, NULL, NULL, NULL, NULL};
    clik_status st = CLIK_OK;
    for (int i = 0; i < 5 && st == CLIK_OK; i++)
        if (bytes[i])
            st = clik__temp_buffer(ctx, bytes[i], &bufs[i]);
    if (st == CLIK_OK)
        st = run_lookback(ctx, a, p, b[0], b[1], a->sqsum ? b[2] : NULL, bufs);
    for (int i = 0; i < 5; i++)
        clik__temp_release(ctx, bufs[i], bytes[i]);
    return st;
}

/* b[0] is the source, b[1] the sums, b[2] (when asked) the sums of squares. */
static clik_status integral_bound(clik_context *ctx, integral_args *a, clik_binding *const *b);

/* The run on the bound images (the 4-channel copies of 3-channel ones). */
static clik_status integral_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    integral_args t = *(integral_args *)p;
    t.src = &b[0]->image;
    t.sum = &b[1]->image;
    t.sqsum = t.sqsum ? &b[2]->image : NULL;
    return integral_bound(ctx, &t, b);
}

static clik_status integral_bound(clik_context *ctx, integral_args *a, clik_binding *const *b)
{
    integral_plan pl;
    clik_status st = clik__check_int_strides(ctx, b, a->sqsum ? 3 : 2, 0, "integral");
    if (st == CLIK_OK)
        st = plan_for_kernels(ctx, a, &pl);
    if (st != CLIK_OK)
        return st;
    if (pl.lookback)
        return integral_lookback(ctx, a, &pl, b);
    const size_t n = (size_t)(a->src->width + 1) * (size_t)a->src->channels * (size_t)pl.strips;
    const size_t strip_bytes = n * clik_type_size(pl.acc);
    const size_t sq_bytes = a->sqsum ? n * clik_type_size(a->sqsum->type) : 0;
    cl_mem strips = NULL, sqstrips = NULL;
    st = clik__temp_buffer(ctx, strip_bytes, &strips);
    if (st == CLIK_OK && a->sqsum)
        st = clik__temp_buffer(ctx, sq_bytes, &sqstrips);
    if (st == CLIK_OK)
        st = run_kernels(ctx, a, &pl, b[0], b[1], a->sqsum ? b[2] : NULL, strips, sqstrips);
    clik__temp_release(ctx, strips, strip_bytes);
    clik__temp_release(ctx, sqstrips, sq_bytes);
    return st;
}

/* ---- CPU path ---------------------------------------------------------------------------- */

static clik_status integral_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    ctx->dsp.integral.integral(v[0], v[1], ((integral_args *)p)->sqsum ? v[2] : NULL);
    return CLIK_OK;
}

static const clik_op integral_op = {"integral", integral_opencl, integral_cpu};

clik_status clik_integral(clik_context *ctx, const clik_image *src, clik_image *sum,
                          clik_image *sqsum)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    integral_args a = {.src = src, .sum = sum, .sqsum = sqsum};
    clik_status st = check_args(ctx, &a);
    if (st != CLIK_OK)
        return st;
    const clik_op_image images[] = {{src, CLIK_READ}, {sum, CLIK_WRITE}, {sqsum, CLIK_WRITE}};
    /* 3 channels: the 4-channel kernels between two conversions. */
    return clik__run_op_rgba(ctx, &integral_op, images, sqsum ? 3 : 2, &a);
}

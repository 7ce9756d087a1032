/* Conformance cases, one table for every operation family. SPDX-License-Identifier: BSD-2-Clause */
#include "cases.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const int sup_test_sizes[][2] = {{1, 1},    {2, 3},     {7, 7},      {27, 13},
                                 {128, 64}, {641, 479}, {1921, 1081}};
const int sup_test_size_count = (int)(sizeof(sup_test_sizes) / sizeof(sup_test_sizes[0]));

/* ---- histogram family -------------------------------------------------------- */

static clik_status run_hist(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = sup_case_host_output(out, 256 * in->channels, 1, 1, CLIK_U32);
    if (st == CLIK_OK)
        st = clik_hist_compute(ctx, in, out->data);
    return st;
}

static clik_status run_equalize(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_equalize(ctx, in, out);
    return st;
}

static clik_status run_equalize_luma(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_equalize_luma(ctx, in, out);
    return st;
}

/* A low clip limit (clipping and the excess's spread at work) and a grid
 * that divides few of the sizes (the padding at work). */
static clik_status run_clahe(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_clahe(ctx, in, out, 2.0, in->width < 8 ? in->width : 8,
                        in->height < 5 ? in->height : 5);
    return st;
}

/* The same input read as BGR(A): luma and chroma from the swapped channels. */
SUP_CASE_RUN(run_equalize_luma_bgr, sup_case_bgr(ctx, in, out, run_equalize_luma))
SUP_CASE_RUN(run_clahe_bgr, sup_case_bgr(ctx, in, out, run_clahe))

/* A fixed table per channel: a permutation of 0..255 that differs by channel. */
static void lut_tables(uint8_t *tables, int count)
{
    for (int c = 0; c < count; c++)
        for (int v = 0; v < 256; v++)
            tables[c * 256 + v] = (uint8_t)((v * 167 + 13 + 71 * c) & 255);
}

static clik_status run_lut(clik_context *ctx, const clik_image *in, clik_image *out)
{
    uint8_t tables[4 * 256];
    lut_tables(tables, in->channels);
    clik_status st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_lut(ctx, in, out, tables, in->channels);
    return st;
}

static clik_status run_lut_shared(clik_context *ctx, const clik_image *in, clik_image *out)
{
    uint8_t table[256];
    lut_tables(table, 1);
    clik_status st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_hist_lut(ctx, in, out, table, 1);
    return st;
}

/* ---- pyramid family -------------------------------------------------------- */

static clik_status run_pyrdown(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st =
        sup_case_output(out, (in->width + 1) / 2, (in->height + 1) / 2, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_pyr_down(ctx, in, out);
    return st;
}

static clik_status run_pyrup(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st = sup_case_output(out, 2 * in->width, 2 * in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_pyr_up(ctx, in, out);
    return st;
}

/* pyrUp into an odd size: the same values, cropped. */
static clik_status run_pyrup_odd(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_status st =
        sup_case_output(out, 2 * in->width - 1, 2 * in->height - 1, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_pyr_up(ctx, in, out);
    return st;
}

/* Copies src into the mosaic at row y0 (same type and channels). */
static void mosaic_put(clik_image *mosaic, const clik_image *src, int y0)
{
    size_t row = (size_t)src->width * (size_t)src->channels * clik_type_size(src->type);
    for (int y = 0; y < src->height; y++)
        memcpy((char *)mosaic->data + (size_t)(y0 + y) * mosaic->stride,
               (const char *)src->data + (size_t)y * src->stride, row);
}

/* count + 1 images of the level sizes of in (level first..first+count),
 * allocated host images of type t. */
static clik_status alloc_levels(const clik_image *in, int first, int count, clik_type t,
                                clik_image *levels)
{
    clik_status st = CLIK_OK;
    memset(levels, 0, sizeof(clik_image) * (size_t)count);
    for (int i = 0; i < count && st == CLIK_OK; i++) {
        int w, h;
        clik_pyr_level_size(in->width, in->height, first + i, &w, &h);
        st = clik_image_alloc(&levels[i], w, h, in->channels, t);
    }
    return st;
}

/* Every level stacked in one image, zero where no level is. */
static clik_status make_mosaic(const clik_image *levels, int count, clik_image *out)
{
    int h = 0;
    for (int i = 0; i < count; i++)
        h += levels[i].height;
    clik_status st =
        sup_case_host_output(out, levels[0].width, h, levels[0].channels, levels[0].type);
    if (st != CLIK_OK)
        return st;
    memset(out->data, 0, out->stride * (size_t)out->height);
    for (int i = 0, y = 0; i < count; y += levels[i].height, i++)
        mosaic_put(out, &levels[i], y);
    return CLIK_OK;
}

static void free_levels(clik_image *levels, int count)
{
    for (int i = 0; i < count; i++)
        clik_image_free(&levels[i]);
}

/* Pyramids of up to 5 levels. A 1 x 1 image has none: its cases compare
 * pyrDown of it instead, so that every case runs an operation on ctx. */
static int case_levels(const clik_image *in)
{
    int most = clik_pyr_max_levels(in->width, in->height);
    return most < 5 ? most : 5;
}

SUP_CASE_RUN(no_levels, run_pyrdown(ctx, in, out))

static clik_status run_gaussian(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const int n = case_levels(in);
    if (n == 0)
        return no_levels(ctx, in, out);
    clik_image levels[5];
    clik_status st = alloc_levels(in, 1, n, in->type, levels);
    if (st == CLIK_OK)
        st = clik_pyr_gaussian(ctx, in, levels, n);
    if (st == CLIK_OK)
        st = make_mosaic(levels, n, out);
    free_levels(levels, n);
    return st;
}

static clik_status laplacian_bands(clik_context *ctx, const clik_image *in, clik_type band,
                                   clik_image *out)
{
    const int n = case_levels(in);
    if (n == 0)
        return no_levels(ctx, in, out);
    clik_image bands[6];
    clik_status st = alloc_levels(in, 0, n + 1, band, bands);
    if (st == CLIK_OK)
        st = clik_pyr_laplacian(ctx, in, bands, n);
    if (st == CLIK_OK)
        st = make_mosaic(bands, n + 1, out);
    free_levels(bands, n + 1);
    return st;
}

SUP_CASE_RUN(run_laplacian_s16, laplacian_bands(ctx, in, CLIK_S16, out))
SUP_CASE_RUN(run_laplacian_f32, laplacian_bands(ctx, in, CLIK_F32, out))

/* Build and collapse on ctx: gives back in (exactly, for u8). */
static clik_status run_collapse(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const int n = case_levels(in);
    if (n == 0)
        return no_levels(ctx, in, out);
    clik_image bands[6];
    const clik_type band = in->type == CLIK_U8 ? CLIK_S16 : CLIK_F32;
    clik_status st = alloc_levels(in, 0, n + 1, band, bands);
    if (st == CLIK_OK)
        st = clik_pyr_laplacian(ctx, in, bands, n);
    if (st == CLIK_OK)
        st = sup_case_output(out, in->width, in->height, in->channels, in->type);
    if (st == CLIK_OK)
        st = clik_pyr_collapse(ctx, bands, n, out);
    free_levels(bands, n + 1);
    return st;
}

/* ---- integral family ---------------------------------------------------------- */

static clik_status integral_as(clik_context *ctx, const clik_image *in, clik_type sum_type,
                               clik_type sq_type, int want_sq, clik_image *out)
{
    const int w = in->width + 1, h = in->height + 1;
    clik_image sum = {0}; /* a temporary when the output is the squares */
    clik_status st = want_sq ? clik_image_alloc(&sum, w, h, in->channels, sum_type)
                             : sup_case_output(out, w, h, in->channels, sum_type);
    if (st == CLIK_OK && want_sq)
        st = sup_case_output(out, w, h, in->channels, sq_type);
    if (st == CLIK_OK)
        st = clik_integral(ctx, in, want_sq ? &sum : out, want_sq ? out : NULL);
    clik_image_free(&sum);
    return st;
}

SUP_CASE_RUN(run_integral_u32, integral_as(ctx, in, CLIK_U32, CLIK_U64, 0, out))
SUP_CASE_RUN(run_integral_s32, integral_as(ctx, in, CLIK_S32, CLIK_U64, 0, out))
SUP_CASE_RUN(run_integral_u64, integral_as(ctx, in, CLIK_U64, CLIK_U64, 0, out))
SUP_CASE_RUN(run_integral_sq, integral_as(ctx, in, CLIK_U32, CLIK_U64, 1, out))
SUP_CASE_RUN(run_integral_f64, integral_as(ctx, in, CLIK_F64, CLIK_F64, 0, out))
SUP_CASE_RUN(run_integral_sq_f64, integral_as(ctx, in, CLIK_F64, CLIK_F64, 1, out))
SUP_CASE_RUN(run_integral_f32, integral_as(ctx, in, CLIK_F32, CLIK_F64, 0, out))

/* 3 channels run the 4-channel kernels between two conversions: pyr_down,
 * pyr_up, pyr_laplacian (s16 bands) and pyr_collapse, the CPU suites'
 * slowest cases left at 1, 2 and 4 (SUP_CH124); luma ops take colour alone
 * (SUP_CH34). */
static const sup_case base_cases[] = {
    {"hist", "hist_compute", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_hist},
    {"hist", "hist_equalize", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_equalize},
    {"hist", "hist_equalize_luma", SUP_TOL_EXACT, SUP_CH34, CLIK_U8, run_equalize_luma},
    {"hist", "hist_equalize_luma-bgr", SUP_TOL_EXACT, 1u << 4, CLIK_U8, run_equalize_luma_bgr},
    {"hist", "clahe", SUP_TOL_EXACT, 1u << 1 | SUP_CH34, CLIK_U8, run_clahe},
    {"hist", "clahe-bgr", SUP_TOL_EXACT, 1u << 4, CLIK_U8, run_clahe_bgr},
    {"hist", "hist_lut", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_lut},
    {"hist", "hist_lut-shared", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_lut_shared},
    {"pyramid", "pyr_down", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_pyrdown},
    {"pyramid", "pyr_down-f32", SUP_TOL_F32, SUP_CH124, CLIK_F32, run_pyrdown},
    {"pyramid", "pyr_up", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_pyrup},
    {"pyramid", "pyr_up-odd", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_pyrup_odd},
    {"pyramid", "pyr_up-f32", SUP_TOL_F32, SUP_CH1234, CLIK_F32, run_pyrup},
    {"pyramid", "pyr_gaussian", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_gaussian},
    {"pyramid", "pyr_laplacian", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_laplacian_s16},
    {"pyramid", "pyr_laplacian-f32", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_laplacian_f32},
    {"pyramid", "pyr_laplacian-of-f32", SUP_TOL_F32, SUP_CH124, CLIK_F32, run_laplacian_f32},
    {"pyramid", "pyr_collapse", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_collapse},
    {"integral", "integral", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_integral_u32},
    {"integral", "integral-s32", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_integral_s32},
    {"integral", "integral-u64", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_integral_u64},
    {"integral", "integral-sq", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_integral_sq},
    {"integral", "integral-f64", SUP_TOL_EXACT, SUP_CH1234, CLIK_U8, run_integral_f64},
    {"integral", "integral-sq-f64", SUP_TOL_EXACT, SUP_CH124, CLIK_U8, run_integral_sq_f64},
    {"integral", "integral-f32", SUP_TOL_F32, SUP_CH1234, CLIK_F32, run_integral_f32},
};

/* Each family's table, in order. */
static const struct {
    const sup_case *cases;
    const int *count;
} tables[] = {
    {base_cases, NULL},
    {sup_cases_resize, &sup_cases_resize_count},
    {sup_cases_filter, &sup_cases_filter_count},
    {sup_cases_ssim, &sup_cases_ssim_count},
    {sup_cases_fusion, &sup_cases_fusion_count},
    {sup_cases_flow, &sup_cases_flow_count},
    {sup_cases_lapar, &sup_cases_lapar_count},
    {sup_cases_lapar_model, &sup_cases_lapar_model_count},
    {sup_cases_lapar_net, &sup_cases_lapar_net_count},
    {sup_cases_yuv, &sup_cases_yuv_count},
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* Cases in table t. */
static int table_count(size_t t)
{
    return tables[t].count ? *tables[t].count : (int)(sizeof(base_cases) / sizeof(base_cases[0]));
}

int sup_case_count(void)
{
    int n = 0;
    for (size_t t = 0; t < NTABLES; t++)
        n += table_count(t);
    return n;
}

const sup_case *sup_case_at(int i)
{
    for (size_t t = 0; t < NTABLES && i >= 0; t++) {
        if (i < table_count(t))
            return &tables[t].cases[i];
        i -= table_count(t);
    }
    return NULL;
}

clik_status sup_case_bgr(clik_context *ctx, const clik_image *in, clik_image *out,
                         clik_status (*run)(clik_context *ctx, const clik_image *in,
                                            clik_image *out))
{
    clik_image bgr = *in;
    bgr.order = CLIK_ORDER_BGR;
    return run(ctx, &bgr, out);
}

clik_image sup_case_crop(const clik_image *in, int w, int h)
{
    clik_image c = *in;
    c.width = in->width < w ? in->width : w;
    c.height = in->height < h ? in->height : h;
    c.owned = 0;
    return c;
}

const sup_case *sup_case_find(const char *op)
{
    for (int i = 0; i < sup_case_count(); i++)
        if (strcmp(sup_case_at(i)->op, op) == 0)
            return sup_case_at(i);
    return NULL;
}

/* The names the cases had before each took its C function's name without
 * clik_ (pyrdown: pyr_down, for clik_pyr_down): asked for by an old name, a
 * tool answers with the new one rather than running anything. */
static const char *const renamed[][2] = {
    {"hist", "hist_compute"},
    {"equalize", "hist_equalize"},
    {"lut", "hist_lut"},
    {"lut-shared", "hist_lut-shared"},
    {"pyrdown", "pyr_down"},
    {"pyrdown-f32", "pyr_down-f32"},
    {"pyrup", "pyr_up"},
    {"pyrup-odd", "pyr_up-odd"},
    {"pyrup-f32", "pyr_up-f32"},
    {"pyramid", "pyr_gaussian"},
    {"laplacian", "pyr_laplacian"},
    {"laplacian-f32", "pyr_laplacian-f32"},
    {"laplacian-of-f32", "pyr_laplacian-of-f32"},
    {"collapse", "pyr_collapse"},
    {"blur-k3", "gaussian_blur-k3"},
    {"blur-k7", "gaussian_blur-k7"},
    {"blur-k11-s2.5", "gaussian_blur-k11-s2.5"},
    {"blur-f32", "gaussian_blur-f32"},
    {"tvl1", "flow_tvl1"},
    {"tvl1-f32", "flow_tvl1-f32"},
    {"tvl1-f16", "flow_tvl1-f16"},
    {"fusion", "upscale_fusion"},
    {"fusion-x3", "upscale_fusion-x3"},
    {"fusion-x4-tile4", "upscale_fusion-x4-tile4"},
    {"fusion-blur5-t0.02", "upscale_fusion-blur5-t0.02"},
    {"fusion-map", "upscale_fusion-map"},
    {"lapar-x2", "lapar_filter-x2"},
    {"lapar-x3-f32", "lapar_filter-x3-f32"},
    {"lapar-x4-f16phi", "lapar_filter-x4-f16phi"},
    {"lapar-x2-f16phi-f32", "lapar_filter-x2-f16phi-f32"},
    {"lapar-x3-selected", "lapar_filter-x3-selected"},
    {"lapar-x2-compact", "lapar_filter-x2-compact"},
    {"lapar-x4-refit", "lapar_filter-x4-refit"},
    {"lapar-x3-any", "lapar_filter-x3-any"},
    {"lapar-x2-any-f16phi", "lapar_filter-x2-any-f16phi"},
    {"lapar-x4-f16phi-f32", "lapar_filter-x4-f16phi-f32"},
    {"lapar-upsample-x3", "lapar_upsample-x3"},
    {"upscale-lapar-x2", "upscale_lapar-x2"},
    {"upscale-lapar-x3-f32", "upscale_lapar-x3-f32"},
    {"lapar-classify-x2", "lapar_classify-x2"},
    {"lapar-net-phi", "lapar_net_run-phi"},
    {"lapar-net-x2", "lapar_net_run-x2"},
    {"lapar-net-x2-f32", "lapar_net_run-x2-f32"},
    {"lapar-net-c-x2", "lapar_net_run-c-x2"},
    {"ssim-tiles", "ssim_tiles"},
    {"ssim-tiles-2", "ssim_tiles-2"},
    {"ssim-tiles-5", "ssim_tiles-5"},
    {"ssim-tiles-16", "ssim_tiles-16"},
};

int sup_case_renamed_count(void)
{
    return (int)(sizeof(renamed) / sizeof(renamed[0]));
}

const char *sup_case_renamed_at(int i, const char **new_name)
{
    *new_name = renamed[i][1];
    return renamed[i][0];
}

clik_status sup_case_output(clik_image *out, int width, int height, int channels, clik_type type)
{
    if (!out->data && !out->buffer)
        return clik_image_alloc(out, width, height, channels, type);
    if (out->width != width || out->height != height)
        return CLIK_ERR_SIZE_MISMATCH;
    if (out->channels != channels || out->type != type)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    return CLIK_OK;
}

clik_status sup_case_host_output(clik_image *out, int width, int height, int channels,
                                 clik_type type)
{
    if (out->buffer)
        return CLIK_ERR_INVALID_ARG;
    return sup_case_output(out, width, height, channels, type);
}

clik_context *sup_case_oracle_context(void)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.cpu_path = CLIK_CPU_SCALAR;
    clik_context *ctx = NULL;
    return clik_context_create(&ctx, &opt) == CLIK_OK ? ctx : NULL;
}

/* ---- running one case ---------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs o's case on the oracle with o->in into o->want. */
static clik_status oracle_want(clik_context *oracle, sup_case_oracle *o)
{
    const double t0 = now_seconds();
    o->status = o->c->run(oracle, &o->in, &o->want);
    o->seconds = now_seconds() - t0;
    if (o->status != CLIK_OK)
        snprintf(o->message, sizeof(o->message), "%s", clik_context_message(oracle));
    return o->status;
}

clik_status sup_case_oracle_run(const sup_case *c, clik_context *oracle, int width, int height,
                                int channels, sup_pattern pattern, uint64_t seed,
                                sup_case_oracle *o)
{
    memset(o, 0, sizeof(*o));
    o->c = c;
    o->status = clik_image_alloc(&o->in, width, height, channels, c->type);
    if (o->status != CLIK_OK) {
        snprintf(o->message, sizeof(o->message), "cannot allocate the input");
        return o->status;
    }
    sup_pattern_fill(&o->in, pattern, seed);
    return oracle_want(oracle, o);
}

clik_status sup_case_oracle_of(const sup_case *c, clik_context *oracle, const clik_image *in,
                               sup_case_oracle *o)
{
    memset(o, 0, sizeof(*o));
    o->c = c;
    o->in = *in;
    o->in.owned = 0; /* the caller's: sup_case_oracle_free() leaves it alone */
    return oracle_want(oracle, o);
}

void sup_case_oracle_free(sup_case_oracle *o)
{
    clik_image_free(&o->in);
    clik_image_free(&o->want);
}

void sup_case_compare(const sup_case_oracle *o, clik_context *ctx, sup_tolerance tol,
                      sup_case_result *r)
{
    memset(r, 0, sizeof(*r));
    r->oracle_status = o->status;
    if (!o->in.data) {
        r->status = o->status;
        snprintf(r->message, sizeof(r->message), "%s", o->message);
        return;
    }
    clik_image got = {0};
    const double t0 = now_seconds();
    r->status = o->c->run(ctx, &o->in, &got);
    r->seconds = now_seconds() - t0;
    r->backend = clik_context_last_backend(ctx);
    r->cause = clik_context_fallback_cause(ctx);
    if (r->status != CLIK_OK)
        snprintf(r->message, sizeof(r->message), "%s", clik_context_message(ctx));
    else if (o->status != CLIK_OK)
        snprintf(r->message, sizeof(r->message), "oracle: %.500s", o->message);
    else
        sup_compare_images(&got, &o->want, tol, &r->cmp);
    clik_image_free(&got);
}

void sup_case_check(const sup_case *c, clik_context *ctx, clik_context *oracle, int width,
                    int height, int channels, sup_pattern pattern, uint64_t seed,
                    sup_case_result *r)
{
    sup_case_oracle o;
    sup_case_oracle_run(c, oracle, width, height, channels, pattern, seed, &o);
    sup_case_compare(&o, ctx, c->tol, r);
    sup_case_oracle_free(&o);
}

int sup_case_passed(const sup_case_result *r)
{
    return r->status == CLIK_OK && r->oracle_status == CLIK_OK && r->cmp.pass;
}

/* Strict mode turns a refused fall back into CLIK_ERR_FALLBACK and keeps the
 * OpenCL path's status only as text: "... (STATUS) and CLIK_STRICT forbids
 * the CPU fallback: DETAIL". */
int sup_case_unsupported(const sup_case_result *r, const char **reason)
{
    const char *why = r->message;
    if (r->status == CLIK_ERR_FALLBACK && r->cause == CLIK_ERR_DEVICE_LIMITS) {
        const char *detail = strstr(r->message, "fallback: ");
        if (detail)
            why = detail + strlen("fallback: ");
    } else if (r->status != CLIK_ERR_DEVICE_LIMITS) {
        return 0;
    }
    if (reason)
        *reason = why;
    return 1;
}

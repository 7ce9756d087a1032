/*
 * Conformance cases of the LAPAR family. A case gets one low-resolution
 * image; it crops it to at most CROP_W x CROP_H of its own (the top-left
 * corner: the oracle takes about 25 L multiply-adds in double per output
 * pixel), and makes phi here, in plain C, from the cropped size and a fixed
 * seed: every plane a smooth random field (a coarse grid of values in
 * [-0.5, 1.5] / P, interpolated) plus fine noise of +-0.1 / P, P the planes.
 * The terms then add up to an image-like output with signed coefficients.
 *
 * Tolerances: u8 outputs U8-FLOAT. f32 outputs are compared under F32
 * relative to the output's range, as the sums of float products the paths
 * take allow: the case returns dst / R, R = 400 * max over pixels of
 * sum_j |phi_j| |A_j|_1 (A_j the atom phi_j weights; 400 bounds the
 * upsample of values in 0..255), so that F32's |a - b| <= 1e-4 * max(1, |b|)
 * reads |a - b| <= 1e-4 R on the output. F16 phi is read by every path as
 * the same halves: the same classes hold (measured: no larger differences
 * than with F32 phi).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "cases.h"

typedef struct lapar_case {
    int scale;
    int crop_w, crop_h;
    clik_type phi_type;
    int atoms;     /* L: 72 is the default dictionary, else a seeded one */
    int symmetric; /* a seeded dictionary centrally symmetric */
    int kept;      /* 0: every atom; else a selection of kept atoms */
    int compact;   /* the selection's phi has kept planes, not L */
    int mix;       /* the selection carries a re-fit matrix */
} lapar_case;

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value in [0, 1) from a key. */
static double unit(uint64_t key)
{
    return (double)(mix64(key) >> 11) * (1.0 / 9007199254740992.0);
}

/* The case's dictionary into d (L x 25). */
static void make_dict(const lapar_case *lc, float *d)
{
    if (lc->atoms == CLIK_LAPAR_ATOMS) {
        clik_lapar_dict_default(d);
        return;
    }
    for (int l = 0; l < lc->atoms; l++)
        for (int k = 0; k < CLIK_LAPAR_TAPS; k++) {
            const int kk = lc->symmetric && k > 12 ? 24 - k : k;
            d[l * CLIK_LAPAR_TAPS + k] = (float)(unit(0x5eedu + (uint64_t)(l * 32 + kk)) - 0.3);
        }
}

/* A selection of `kept` atoms, spread over the dictionary, with weights
 * near 1 and (mix) a re-fit matrix near the kept rows of the identity. */
static void make_selection(const lapar_case *lc, clik_lapar_selection *sel, float *m)
{
    memset(sel, 0, sizeof(*sel));
    sel->atoms = lc->atoms;
    sel->kept = lc->kept;
    for (int i = 0; i < lc->kept; i++) {
        sel->index[i] = i * lc->atoms / lc->kept + 1 < lc->atoms ? i * lc->atoms / lc->kept + 1
                                                                 : i * lc->atoms / lc->kept;
        sel->gamma[i] = (float)(0.6 + unit(0x9a33u + (uint64_t)i));
    }
    if (!lc->mix)
        return;
    for (int i = 0; i < lc->kept; i++)
        for (int l = 0; l < lc->atoms; l++)
            m[i * lc->atoms + l] = (float)((l == sel->index[i]) +
                                           0.2 * (unit(0x3131u + (uint64_t)(i * 1000 + l)) - 0.5));
    sel->mix = m;
}

/* The coarse grid of plane l at cell (cx, cy): a value in [-0.5, 1.5). */
static double grid_value(int l, int cx, int cy)
{
    return unit(((uint64_t)l << 40) ^ ((uint64_t)cy << 20) ^ (uint64_t)cx) * 2.0 - 0.5;
}

/* Plane l of phi at (x, y): the coarse grid of 8-pixel cells, interpolated
 * between rows g0 (cell row y / 8) and g1 (the next), plus fine noise. */
static float phi_value(int l, int planes, const double *g0, const double *g1, int x, int y)
{
    const int cx = x / 8;
    const double fx = (x % 8) / 8.0, fy = (y % 8) / 8.0;
    const double smooth = (g0[cx] * (1 - fx) + g0[cx + 1] * fx) * (1 - fy) +
                          (g1[cx] * (1 - fx) + g1[cx + 1] * fx) * fy;
    const double noise =
        0.2 * (unit(0xf1e1du ^ ((uint64_t)l << 44) ^ ((uint64_t)y << 22) ^ (uint64_t)x) - 0.5);
    return (float)((smooth + noise) / planes);
}

static clik_status make_phi(int w, int h, int planes, clik_type type, clik_image *phi)
{
    const int cells = w / 8 + 2;
    double *g = malloc(sizeof(double) * 2 * (size_t)cells);
    if (!g)
        return CLIK_ERR_NO_MEMORY;
    clik_status st = clik_image_alloc(phi, w, h * planes, 1, type);
    for (int l = 0; st == CLIK_OK && l < planes; l++)
        for (int y = 0; y < h; y++) {
            if (y % 8 == 0) /* the grid rows of this cell row, once */
                for (int cx = 0; cx < cells; cx++) {
                    g[cx] = grid_value(l, cx, y / 8);
                    g[cells + cx] = grid_value(l, cx, y / 8 + 1);
                }
            char *row = (char *)phi->data + (size_t)(l * h + y) * phi->stride;
            for (int x = 0; x < w; x++) {
                const float v = phi_value(l, planes, g, g + cells, x, y);
                if (type == CLIK_F16)
                    ((uint16_t *)(void *)row)[x] = clik__float_to_half(v);
                else
                    ((float *)(void *)row)[x] = v;
            }
        }
    free(g);
    return st;
}

/* phi as floats (F16 decoded), for the range bound. */
static double phi_at(const clik_image *phi, int row, int x)
{
    const char *p = (const char *)phi->data + (size_t)row * phi->stride;
    if (phi->type == CLIK_F32)
        return ((const float *)(const void *)p)[x];
    const uint16_t hv = ((const uint16_t *)(const void *)p)[x];
    const int e = (hv >> 10) & 0x1f, m = hv & 0x3ff;
    const double v = e == 0 ? ldexp(m, -24) : ldexp(m | 0x400, e - 25);
    return (hv >> 15) ? -v : v;
}

/* R of the header: 400 max_p sum_j |phi_j(p)| |A_j|_1, with |A_j|_1 bounded
 * through the selection's weights. */
static double output_range(const lapar_case *lc, const float *d, const clik_lapar_selection *sel,
                           const clik_image *phi, int w, int h)
{
    const int planes = phi->height / h;
    double norm[CLIK_LAPAR_MAX_ATOMS];
    for (int j = 0; j < planes; j++) {
        double n = 0.0;
        if (!lc->kept) {
            for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
                n += fabs(d[j * CLIK_LAPAR_TAPS + k]);
        } else {
            for (int i = 0; i < sel->kept; i++) {
                const double c = sel->mix ? fabs(sel->mix[i * lc->atoms + j])
                                 : (lc->compact ? j == i : sel->index[i] == j) ? fabs(sel->gamma[i])
                                                                               : 0.0;
                for (int k = 0; k < CLIK_LAPAR_TAPS; k++)
                    n += c * fabs(d[sel->index[i] * CLIK_LAPAR_TAPS + k]);
            }
        }
        norm[j] = n;
    }
    double most = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0.0;
            for (int j = 0; j < planes; j++)
                s += fabs(phi_at(phi, j * h + y, x)) * norm[j];
            most = s > most ? s : most;
        }
    return 400.0 * (most > 0.0 ? most : 1.0);
}

/* Divides every element of the f32 host image img by r. */
static void scale_rows(clik_image *img, float r)
{
    for (int y = 0; y < img->height; y++) {
        float *row = (float *)(void *)((char *)img->data + (size_t)y * img->stride);
        for (int x = 0; x < img->width * img->channels; x++)
            row[x] /= r;
    }
}

static clik_status run_lapar(clik_context *ctx, const clik_image *in, const lapar_case *lc,
                             clik_image *out)
{
    const clik_image lr = sup_case_crop(in, lc->crop_w, lc->crop_h);
    const int s = lc->scale, w = lr.width * s, h = lr.height * s;
    float d[CLIK_LAPAR_MAX_ATOMS * CLIK_LAPAR_TAPS];
    float *m = lc->mix ? malloc(sizeof(float) * (size_t)lc->kept * (size_t)lc->atoms) : NULL;
    if (lc->mix && !m)
        return CLIK_ERR_NO_MEMORY;
    clik_lapar_selection sel;
    make_dict(lc, d);
    make_selection(lc, &sel, m);
    const clik_lapar_dict dict = {lc->atoms, d, lc->kept ? &sel : NULL};
    const int planes = lc->kept && lc->compact ? lc->kept : lc->atoms;
    clik_image phi = {0};
    clik_status st = make_phi(w, h, planes, lc->phi_type, &phi);
    if (st == CLIK_OK)
        st = lr.type == CLIK_F32 ? sup_case_host_output(out, w, h, lr.channels, lr.type)
                                 : sup_case_output(out, w, h, lr.channels, lr.type);
    if (st == CLIK_OK)
        st = clik_lapar_filter(ctx, &lr, &phi, &dict, s, out);
    if (st == CLIK_OK && lr.type == CLIK_F32)
        scale_rows(out, (float)output_range(lc, d, &sel, &phi, w, h));
    clik_image_free(&phi);
    free(m);
    return st;
}

#define LAPAR_CASE(NAME, ...)                                                                      \
    static clik_status NAME(clik_context *ctx, const clik_image *in, clik_image *out)              \
    {                                                                                              \
        static const lapar_case lc = {__VA_ARGS__};                                                \
        return run_lapar(ctx, in, &lc, out);                                                       \
    }

/* scale, crop, phi type, atoms, symmetric, kept, compact, mix */
LAPAR_CASE(x2, 2, 48, 32, CLIK_F32, CLIK_LAPAR_ATOMS, 1, 0, 0, 0)
LAPAR_CASE(x3_f32, 3, 40, 24, CLIK_F32, CLIK_LAPAR_ATOMS, 1, 0, 0, 0)
LAPAR_CASE(x4_f16, 4, 32, 24, CLIK_F16, CLIK_LAPAR_ATOMS, 1, 0, 0, 0)
LAPAR_CASE(x2_f16_f32, 2, 48, 32, CLIK_F16, CLIK_LAPAR_ATOMS, 1, 0, 0, 0)
LAPAR_CASE(x3_selected, 3, 96, 64, CLIK_F32, CLIK_LAPAR_ATOMS, 1, 9, 0, 0)
LAPAR_CASE(x2_compact, 2, 128, 96, CLIK_F32, CLIK_LAPAR_ATOMS, 1, 7, 1, 0)
LAPAR_CASE(x4_refit, 4, 24, 16, CLIK_F32, CLIK_LAPAR_ATOMS, 1, 5, 0, 1)
LAPAR_CASE(x3_any, 3, 64, 48, CLIK_F32, 20, 0, 0, 0, 0)
LAPAR_CASE(x2_any_f16, 2, 96, 64, CLIK_F16, 24, 0, 0, 0, 0)
LAPAR_CASE(x4_sym_small, 4, 64, 48, CLIK_F16, 6, 1, 0, 0, 0)

/* U alone, in F32 relative to its range (400). */
static clik_status upsample_x3(clik_context *ctx, const clik_image *in, clik_image *out)
{
    const clik_image lr = sup_case_crop(in, 128, 96);
    clik_status st = sup_case_host_output(out, lr.width * 3, lr.height * 3, lr.channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_lapar_upsample(ctx, &lr, 3, out);
    if (st == CLIK_OK)
        scale_rows(out, 400.0f);
    return st;
}

/* 3 channels run the 4-channel kernels between two conversions: one case
 * per type of lr and of phi, and the upsample (SUP_CH134). */
const sup_case sup_cases_lapar[] = {
    {"lapar", "lapar_filter-x2", SUP_TOL_U8_FLOAT, SUP_CH134, CLIK_U8, x2},
    {"lapar", "lapar_filter-x3-f32", SUP_TOL_F32, SUP_CH134, CLIK_F32, x3_f32},
    {"lapar", "lapar_filter-x4-f16phi", SUP_TOL_U8_FLOAT, SUP_CH134, CLIK_U8, x4_f16},
    {"lapar", "lapar_filter-x2-f16phi-f32", SUP_TOL_F32, SUP_CH14, CLIK_F32, x2_f16_f32},
    {"lapar", "lapar_filter-x3-selected", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, x3_selected},
    {"lapar", "lapar_filter-x2-compact", SUP_TOL_F32, SUP_CH14, CLIK_F32, x2_compact},
    {"lapar", "lapar_filter-x4-refit", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, x4_refit},
    {"lapar", "lapar_filter-x3-any", SUP_TOL_F32, SUP_CH14, CLIK_F32, x3_any},
    {"lapar", "lapar_filter-x2-any-f16phi", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, x2_any_f16},
    {"lapar", "lapar_filter-x4-f16phi-f32", SUP_TOL_F32, SUP_CH14, CLIK_F32, x4_sym_small},
    {"lapar", "lapar_upsample-x3", SUP_TOL_F32, SUP_CH134, CLIK_U8, upsample_x3},
};
const int sup_cases_lapar_count = (int)(sizeof(sup_cases_lapar) / sizeof(sup_cases_lapar[0]));

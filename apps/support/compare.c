/* Comparison by tolerance class (the classes: compare.h). SPDX-License-Identifier: BSD-2-Clause */
#include "compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *sup_tolerance_name(sup_tolerance t)
{
    switch (t) {
    case SUP_TOL_EXACT: return "EXACT";
    case SUP_TOL_U8_FLOAT: return "U8-FLOAT";
    case SUP_TOL_F32: return "F32";
    case SUP_TOL_FLOW: return "FLOW";
    case SUP_TOL_FLOW_F16: return "FLOW-F16";
    case SUP_TOL_SSIM: return "SSIM";
    case SUP_TOL_FUSION: return "FUSION";
    case SUP_TOL_BUCKETS: return "BUCKETS";
    case SUP_TOL_MODEL_F32: return "MODEL-F32";
    }
    return "unknown";
}

static double element(const clik_image *img, int x, int y, int c)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case CLIK_U8: return ((const uint8_t *)row)[i];
    case CLIK_S16: return ((const int16_t *)row)[i];
    case CLIK_U16:
    case CLIK_F16: return ((const uint16_t *)row)[i];
    case CLIK_S32: return ((const int32_t *)row)[i];
    case CLIK_U32: return ((const uint32_t *)row)[i];
    case CLIK_U64: return (double)((const uint64_t *)row)[i];
    case CLIK_F32: return ((const float *)row)[i];
    case CLIK_F64: return ((const double *)row)[i];
    }
    return 0.0;
}

static int bits_equal(const clik_image *a, const clik_image *b, int x, int y, int c)
{
    size_t es = clik_type_size(a->type);
    size_t off = ((size_t)x * (size_t)a->channels + (size_t)c) * es;
    return memcmp((const char *)a->data + (size_t)y * a->stride + off,
                  (const char *)b->data + (size_t)y * b->stride + off, es) == 0;
}

/* FLOW: limit; FLOW-F16 (per_motion > 0): limit + per_motion x the mean
 * length of want's finite vectors. */
static void compare_flow(const clik_image *got, const clik_image *want, double limit,
                         double per_motion, sup_compare *r)
{
    double sum = 0.0, motion = 0.0;
    for (int y = 0; y < got->height; y++)
        for (int x = 0; x < got->width; x++) {
            double du = element(got, x, y, 0) - element(want, x, y, 0);
            double dv = element(got, x, y, 1) - element(want, x, y, 1);
            double e = sqrt(du * du + dv * dv);
            sum += isnan(e) ? 1e9 : e;
            const double m = hypot(element(want, x, y, 0), element(want, x, y, 1));
            motion += isfinite(m) ? m : 0.0;
        }
    const double pixels = (double)got->width * got->height;
    limit += per_motion * motion / pixels;
    r->mean_epe = sum / pixels;
    r->pass = r->mean_epe <= limit;
    snprintf(r->detail, sizeof(r->detail), "mean EPE %.5f px (limit %.4g), max |diff| %.4g",
             r->mean_epe, limit, r->max_abs);
}

void sup_compare_images(const clik_image *got, const clik_image *want, sup_tolerance tol,
                        sup_compare *r)
{
    memset(r, 0, sizeof(*r));
    if (got->width != want->width || got->height != want->height ||
        got->channels != want->channels || got->type != want->type) {
        snprintf(r->detail, sizeof(r->detail), "shape %dx%dx%d %s, expected %dx%dx%d %s",
                 got->width, got->height, got->channels, clik_type_name(got->type), want->width,
                 want->height, want->channels, clik_type_name(want->type));
        return;
    }
    size_t over_limit = 0;
    const size_t row_elements = (size_t)got->width * (size_t)got->channels;
    const size_t row_bytes = row_elements * clik_type_size(got->type);
    for (int y = 0; y < got->height; y++) {
        /* Most rows match bit for bit: one memcmp clears them. */
        if (memcmp((const char *)got->data + (size_t)y * got->stride,
                   (const char *)want->data + (size_t)y * want->stride, row_bytes) == 0) {
            r->count += row_elements;
            continue;
        }
        for (int x = 0; x < got->width; x++)
            for (int c = 0; c < got->channels; c++) {
                r->count++;
                if (bits_equal(got, want, x, y, c))
                    continue;
                r->mismatches++;
                double a = element(got, x, y, c), b = element(want, x, y, c);
                double d = fabs(a - b);
                if (isnan(a) != isnan(b))
                    d = INFINITY;
                else if (isnan(a))
                    d = 0.0;
                if (d > r->max_abs || r->mismatches == 1) {
                    r->max_abs = d;
                    r->worst_x = x;
                    r->worst_y = y;
                    r->worst_c = c;
                }
                if (((tol == SUP_TOL_F32 || tol == SUP_TOL_MODEL_F32) &&
                     d > 1e-4 * fmax(1.0, fabs(b))) ||
                    (tol == SUP_TOL_SSIM && d > 5e-4) || (tol == SUP_TOL_FUSION && d > 1.0))
                    over_limit++;
            }
    }
    switch (tol) {
    case SUP_TOL_EXACT: r->pass = r->mismatches == 0; break;
    case SUP_TOL_U8_FLOAT:
        r->pass = r->max_abs <= 1.0 && (double)r->mismatches <= 0.001 * (double)r->count;
        break;
    case SUP_TOL_F32:
    case SUP_TOL_SSIM: r->pass = over_limit == 0; break;
    case SUP_TOL_BUCKETS: r->pass = (double)r->mismatches <= 0.001 * (double)r->count; break;
    case SUP_TOL_MODEL_F32: r->pass = (double)over_limit <= 0.001 * (double)r->count; break;
    case SUP_TOL_FUSION:
        r->pass = (double)over_limit <= 0.001 * (double)r->count &&
                  (double)r->mismatches <= 0.01 * (double)r->count;
        break;
    case SUP_TOL_FLOW: compare_flow(got, want, 0.01, 0.0, r); return;
    case SUP_TOL_FLOW_F16: compare_flow(got, want, 0.01, 1.0 / 512.0, r); return;
    }
    if (r->mismatches == 0)
        snprintf(r->detail, sizeof(r->detail), "identical (%zu elements)", r->count);
    else
        snprintf(r->detail, sizeof(r->detail),
                 "%zu of %zu elements differ, max |diff| %.6g at (%d,%d) channel %d", r->mismatches,
                 r->count, r->max_abs, r->worst_x, r->worst_y, r->worst_c);
}

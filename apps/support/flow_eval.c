/*
 * Optical flow errors and colour coding (see flow_eval.h).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "flow_eval.h"

#include <math.h>
#include <stdint.h>

/* Largest |u| or |v| a known vector may have. */
#define UNKNOWN_LIMIT ((float)SUP_FLOW_UNKNOWN)
/* M_PI is not in C11 or POSIX. */
#define PI 3.14159265358979323846

int sup_flow_known(float u, float v)
{
    /* NaN fails both comparisons, so it counts as unknown. */
    return fabsf(u) <= UNKNOWN_LIMIT && fabsf(v) <= UNKNOWN_LIMIT;
}

/* A 2-channel f32 host image, or the status that says why not. */
static clik_status check_flow(const clik_image *img)
{
    if (!img)
        return CLIK_ERR_NULL;
    clik_status st = clik_image_validate(img);
    if (st != CLIK_OK)
        return st;
    if (!img->data)
        return CLIK_ERR_INVALID_ARG; /* a device image: download it first */
    if (img->channels != 2 || img->type != CLIK_F32)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    return CLIK_OK;
}

static const float *flow_row(const clik_image *flow, int y)
{
    return (const float *)((const char *)flow->data + (size_t)y * flow->stride);
}

/* The angle between (u, v, 1) and (p, q, 1) in radians. atan2 of the
 * cross and dot products keeps small angles accurate, where acos of their
 * cosine loses half the digits. */
static double space_time_angle(double u, double v, double p, double q)
{
    double cx = v - q, cy = p - u, cz = u * q - v * p;
    double cross = sqrt(cx * cx + cy * cy + cz * cz);
    double dot = u * p + v * q + 1.0;
    return atan2(cross, dot);
}

clik_status sup_flow_errors(const clik_image *flow, const clik_image *gt, double *epe, double *aae,
                            long *counted)
{
    if (epe)
        *epe = NAN;
    if (aae)
        *aae = NAN;
    if (counted)
        *counted = 0;
    clik_status st = check_flow(flow);
    if (st == CLIK_OK)
        st = check_flow(gt);
    if (st != CLIK_OK)
        return st;
    if (flow->width != gt->width || flow->height != gt->height)
        return CLIK_ERR_SIZE_MISMATCH;
    double sum_epe = 0, sum_angle = 0;
    long n = 0;
    for (int y = 0; y < flow->height; y++) {
        const float *f = flow_row(flow, y), *g = flow_row(gt, y);
        for (int x = 0; x < flow->width; x++) {
            float u = f[2 * x], v = f[2 * x + 1], p = g[2 * x], q = g[2 * x + 1];
            if (!sup_flow_known(u, v) || !sup_flow_known(p, q))
                continue;
            sum_epe += hypot((double)u - p, (double)v - q);
            sum_angle += space_time_angle(u, v, p, q);
            n++;
        }
    }
    if (n > 0) {
        if (epe)
            *epe = sum_epe / (double)n;
        if (aae)
            *aae = sum_angle / (double)n * (180.0 / PI);
    }
    if (counted)
        *counted = n;
    return CLIK_OK;
}

double sup_flow_max_motion(const clik_image *flow)
{
    if (check_flow(flow) != CLIK_OK)
        return 0;
    double longest = 0;
    for (int y = 0; y < flow->height; y++) {
        const float *f = flow_row(flow, y);
        for (int x = 0; x < flow->width; x++) {
            if (!sup_flow_known(f[2 * x], f[2 * x + 1]))
                continue;
            double r = hypot(f[2 * x], f[2 * x + 1]);
            if (r > longest)
                longest = r;
        }
    }
    return longest;
}

/* ---- the colour wheel --------------------------------------------------------------- */

/* The Middlebury wheel: six primaries around the circle, each joined to the
 * next by a linear ramp of this many hues (55 in all), more of them where
 * the eye tells neighbouring hues apart more easily. */
enum { WHEEL_HUES = 55 };
static const struct {
    float rgb[3]; /* the primary the ramp starts from */
    int steps;    /* hues from it to the next primary */
} wheel_ramps[6] = {
    {{1, 0, 0}, 15}, /* red to yellow */
    {{1, 1, 0}, 6},  /* yellow to green */
    {{0, 1, 0}, 4},  /* green to cyan */
    {{0, 1, 1}, 11}, /* cyan to blue */
    {{0, 0, 1}, 13}, /* blue to magenta */
    {{1, 0, 1}, 6},  /* magenta back to red */
};

static void wheel_hue(int k, float rgb[3])
{
    int r = 0;
    while (k >= wheel_ramps[r].steps) {
        k -= wheel_ramps[r].steps;
        r++;
    }
    const float *from = wheel_ramps[r].rgb, *to = wheel_ramps[(r + 1) % 6].rgb;
    float t = (float)k / (float)wheel_ramps[r].steps;
    for (int c = 0; c < 3; c++)
        rgb[c] = from[c] + t * (to[c] - from[c]);
}

/* The colour of (u, v) scaled by 1 / max_motion, in 0..1. The hue goes once
 * round the wheel with the direction, starting at red for motion to the
 * right (+u) and going through yellow for motion down (+v, rows grow
 * downwards), between the wheel's hues by linear interpolation. */
static void vector_colour(const float wheel[WHEEL_HUES][3], double u, double v, double max_motion,
                          float rgb[3])
{
    double position = (atan2(-v, -u) / PI + 1.0) * 0.5 * WHEEL_HUES; /* 0..55 */
    int k0 = (int)floor(position);
    double f = position - k0;
    k0 %= WHEEL_HUES;
    int k1 = (k0 + 1) % WHEEL_HUES;
    double radius = hypot(u, v) / max_motion;
    for (int c = 0; c < 3; c++) {
        double col = (1.0 - f) * wheel[k0][c] + f * wheel[k1][c];
        /* Short vectors fade to white; those past max_motion are darkened
         * so that the clipping shows. */
        col = radius <= 1.0 ? 1.0 - radius * (1.0 - col) : 0.75 * col;
        rgb[c] = (float)col;
    }
}

clik_status sup_flow_colorize(const clik_image *flow, clik_image *rgba, float max_motion)
{
    clik_status st = check_flow(flow);
    if (st != CLIK_OK)
        return st;
    if (!rgba)
        return CLIK_ERR_NULL;
    if ((st = clik_image_validate(rgba)) != CLIK_OK)
        return st;
    if (!rgba->data)
        return CLIK_ERR_INVALID_ARG;
    if (rgba->channels != 4 || rgba->type != CLIK_U8)
        return CLIK_ERR_UNSUPPORTED_FORMAT;
    if (rgba->width != flow->width || rgba->height != flow->height)
        return CLIK_ERR_SIZE_MISMATCH;
    if (!isfinite(max_motion))
        return CLIK_ERR_INVALID_ARG;
    double scale = max_motion > 0 ? max_motion : sup_flow_max_motion(flow);
    if (!(scale > 0))
        scale = 1; /* no motion anywhere: every known vector is white */
    float wheel[WHEEL_HUES][3];
    for (int k = 0; k < WHEEL_HUES; k++)
        wheel_hue(k, wheel[k]);
    for (int y = 0; y < flow->height; y++) {
        const float *f = flow_row(flow, y);
        uint8_t *out = (uint8_t *)rgba->data + (size_t)y * rgba->stride;
        for (int x = 0; x < flow->width; x++, out += 4) {
            float rgb[3] = {0, 0, 0};
            if (sup_flow_known(f[2 * x], f[2 * x + 1]))
                vector_colour(wheel, f[2 * x], f[2 * x + 1], scale, rgb);
            for (int c = 0; c < 3; c++)
                out[c] = (uint8_t)lrintf(255.0f * rgb[c]);
            out[3] = 255;
        }
    }
    return CLIK_OK;
}

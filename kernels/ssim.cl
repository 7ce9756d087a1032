/*
 * SSIM family (Wang et al. 2004): the Gaussian SSIM map and its mean, and
 * the tile SSIM of the fusion upscaler. The definitions are written out in
 * fallback_cpu/scalar/ssim.c.
 *
 * Gaussian SSIM, build option T (uchar or float) and one of:
 *   TILE_W, TILE_H  ssim_local: a TILE_W x TILE_H block of outputs per
 *                   work-group, its (TILE_W + 10) x (TILE_H + 10) inputs
 *                   staged in local memory, separable passes through local
 *                   memory, a tree reduction of the group's map values;
 *   DIRECT_ROWS     ssim_direct: no local memory; a work-item makes 4 x
 *                   DIRECT_ROWS outputs from registers;
 *   SSIM_ROWS       ssim_rows (CPU devices): a work-item makes a strip
 *                   SSIM_ROWS (8 or 16) outputs wide and `band` rows high,
 *                   keeping the horizontal sums of the last 11 rows in a
 *                   ring.
 * Each writes the 'valid' map (ow x oh = (W - 10) x (H - 10)) when
 * write_map, and when want_mean one partial sum of map values per
 * work-group (ssim_local) or work-item (the others); the host adds the
 * partial sums in double.
 *
 * Precision: the moments are float. The means are taken of the raw values;
 * the second moments of c = x - 128, which leaves variances and covariance
 * unchanged and keeps |c| <= 128, so that E[c^2] - E[c]^2 cancels less.
 * Taps k and 10 - k of the symmetric window are added before they are
 * weighted (fewer operations, and fewer roundings).
 *
 * Tile SSIM, build option TILE (2..16) and TILES_P (a power of two >=
 * TILE), TILES_G (tiles per work-group): exact integer sums, then the float
 * formula of tile_ssim() in the oracle's order.
 *   ssim_tiles_group: TILES_G tiles of one tile row per work-group, one
 *                     work-item per tile row, the sums reduced over the
 *                     rows in local memory;
 *   ssim_tiles_item:  one work-item per tile (CPU devices, no local memory).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

#define SSIM_C1 6.5025f  /* (0.01 * 255)^2 */
#define SSIM_C2 58.5225f /* (0.03 * 255)^2 */

#ifdef T

/* The normalized Gaussian of sigma 1.5 at x = -5..5 (exp(-x^2 / 4.5) / sum),
 * rounded to float. */
__constant float ssim_w[11] = {1.028380124e-03f, 7.598758209e-03f, 3.600077331e-02f,
                               1.093606874e-01f, 2.130055428e-01f, 2.660117149e-01f,
                               2.130055428e-01f, 1.093606874e-01f, 3.600077331e-02f,
                               7.598758209e-03f, 1.028380124e-03f};

/* n / d, and exactly 1 when n == d: OpenCL allows float division 2.5 ulp
 * of error (NVIDIA's gives x / x = 0.99999994 for some x). */
#define SSIM_DIV(F)                                                                                \
    inline F ssim_div_##F(F n, F d)                                                                \
    {                                                                                              \
        return select(n / d, (F)1.0f, n == d);                                                     \
    }

/* SSIM from the window's raw means and the second moments of the centred
 * values (E[ca^2], E[cb^2], E[ca cb]). Written so that identical images give
 * numerator == denominator, hence exactly 1. */
#define SSIM_VALUE(F)                                                                              \
    inline F ssim_value_##F(F mu_a, F mu_b, F qa, F qb, F p)                                       \
    {                                                                                              \
        const F da = mu_a - 128.0f, db = mu_b - 128.0f;                                            \
        const F va = qa - da * da, vb = qb - db * db, cov = p - da * db;                           \
        const F num = (2.0f * mu_a * mu_b + SSIM_C1) * (2.0f * cov + SSIM_C2);                     \
        const F den = (mu_a * mu_a + mu_b * mu_b + SSIM_C1) * (va + vb + SSIM_C2);                 \
        return ssim_div_##F(num, den);                                                             \
    }
SSIM_DIV(float)
SSIM_DIV(float4)
SSIM_DIV(float8)
SSIM_VALUE(float)
SSIM_VALUE(float4)
SSIM_VALUE(float8)

/* ---- ssim_local ----------------------------------------------------------------- */

#ifdef TILE_W
#define IN_W  (TILE_W + 10)
#define IN_H  (TILE_H + 10)
#define ITEMS (TILE_W * TILE_H)

__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1))) void
ssim_local(__global const T *a, int sa, __global const T *b, int sb, int ow, int oh,
           __global float *map, int sm, int write_map, int want_mean, __global float *partial)
{
    __local float la[IN_H * IN_W], lb[IN_H * IN_W]; /* row r at r * IN_W */
    /* Horizontal sums of the tile's input rows: mu_a, mu_b, aa, bb, ab. */
    __local float hm[5][IN_H][TILE_W];
    const int lx = get_local_id(0), ly = get_local_id(1), lid = ly * TILE_W + lx;
    const int x0 = get_group_id(0) * TILE_W, y0 = get_group_id(1) * TILE_H;
    const int w = ow + 10, h = oh + 10;

    /* Inputs past the image feed only outputs past the map: clamp them. */
    for (int i = lid; i < IN_W * IN_H; i += ITEMS) {
        const int r = i / IN_W, c = i - r * IN_W;
        const int x = min(x0 + c, w - 1), y = min(y0 + r, h - 1);
        la[i] = convert_float(a[y * sa + x]);
        lb[i] = convert_float(b[y * sb + x]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i = lid; i < IN_H * TILE_W; i += ITEMS) {
        const int r = i / TILE_W, c = i - r * TILE_W, o = r * IN_W + c;
        const float va = la[o + 5], vb = lb[o + 5], ca = va - 128.0f, cb = vb - 128.0f;
        const float w5 = ssim_w[5];
        float ma = w5 * va, mb = w5 * vb, qa = w5 * (ca * ca), qb = w5 * (cb * cb);
        float p = w5 * (ca * cb);
        for (int k = 0; k < 5; k++) {
            const float wk = ssim_w[k];
            const float va0 = la[o + k], vb0 = lb[o + k], va1 = la[o + 10 - k];
            const float vb1 = lb[o + 10 - k];
            const float ca0 = va0 - 128.0f, cb0 = vb0 - 128.0f;
            const float ca1 = va1 - 128.0f, cb1 = vb1 - 128.0f;
            ma += wk * (va0 + va1);
            mb += wk * (vb0 + vb1);
            qa += wk * (ca0 * ca0 + ca1 * ca1);
            qb += wk * (cb0 * cb0 + cb1 * cb1);
            p += wk * (ca0 * cb0 + ca1 * cb1);
        }
        hm[0][r][c] = ma;
        hm[1][r][c] = mb;
        hm[2][r][c] = qa;
        hm[3][r][c] = qb;
        hm[4][r][c] = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float s = 0.0f;
    const int x = x0 + lx, y = y0 + ly;
    if (x < ow && y < oh) {
        float v[5];
        for (int m = 0; m < 5; m++)
            v[m] = ssim_w[5] * hm[m][ly + 5][lx];
        for (int k = 0; k < 5; k++) {
            const float wk = ssim_w[k];
            for (int m = 0; m < 5; m++)
                v[m] += wk * (hm[m][ly + k][lx] + hm[m][ly + 10 - k][lx]);
        }
        const float ma = v[0], mb = v[1], qa = v[2], qb = v[3], p = v[4];
        s = ssim_value_float(ma, mb, qa, qb, p);
        if (write_map)
            map[y * sm + x] = s;
    }
    if (!want_mean) /* the same for the whole work-group */
        return;
    /* Tree reduction in la, which no work-item reads any more. */
    __local float *sum = la;
    sum[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = ITEMS / 2; n > 0; n >>= 1) {
        if (lid < n)
            sum[lid] += sum[lid + n];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = sum[0];
}
#endif

/* ---- ssim_direct ---------------------------------------------------------------- */

#ifdef DIRECT_ROWS
__kernel void ssim_direct(__global const T *a, int sa, __global const T *b, int sb, int ow, int oh,
                          __global float *map, int sm, int write_map, int want_mean,
                          __global float *partial)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    const int x0 = gx * 4, y0 = gy * DIRECT_ROWS;
    if (x0 >= ow || y0 >= oh)
        return;
    const int w = ow + 10, h = oh + 10;
    float4 acc[DIRECT_ROWS][5];
    for (int j = 0; j < DIRECT_ROWS; j++)
        for (int m = 0; m < 5; m++)
            acc[j][m] = (float4)0.0f;
    for (int r = 0; r < DIRECT_ROWS + 10; r++) {
        /* Rows and columns past the image feed only outputs past the map. */
        const int y = min(y0 + r, h - 1);
        float pa[14], pb[14];
        for (int i = 0; i < 14; i++) {
            const int x = min(x0 + i, w - 1);
            pa[i] = convert_float(a[y * sa + x]);
            pb[i] = convert_float(b[y * sb + x]);
        }
        /* Horizontal sums. */
        float4 m[5];
        {
            const float4 va = (float4)(pa[5], pa[6], pa[7], pa[8]);
            const float4 vb = (float4)(pb[5], pb[6], pb[7], pb[8]);
            const float4 ca = va - 128.0f, cb = vb - 128.0f, w5 = (float4)ssim_w[5];
            m[0] = w5 * va;
            m[1] = w5 * vb;
            m[2] = w5 * (ca * ca);
            m[3] = w5 * (cb * cb);
            m[4] = w5 * (ca * cb);
        }
        for (int k = 0; k < 5; k++) {
            const float wk = ssim_w[k];
            const float4 va0 = (float4)(pa[k], pa[k + 1], pa[k + 2], pa[k + 3]);
            const float4 vb0 = (float4)(pb[k], pb[k + 1], pb[k + 2], pb[k + 3]);
            const float4 va1 = (float4)(pa[10 - k], pa[11 - k], pa[12 - k], pa[13 - k]);
            const float4 vb1 = (float4)(pb[10 - k], pb[11 - k], pb[12 - k], pb[13 - k]);
            const float4 ca0 = va0 - 128.0f, cb0 = vb0 - 128.0f;
            const float4 ca1 = va1 - 128.0f, cb1 = vb1 - 128.0f;
            m[0] += wk * (va0 + va1);
            m[1] += wk * (vb0 + vb1);
            m[2] += wk * (ca0 * ca0 + ca1 * ca1);
            m[3] += wk * (cb0 * cb0 + cb1 * cb1);
            m[4] += wk * (ca0 * cb0 + ca1 * cb1);
        }
        /* Input row r is tap r - j of output row j. */
        for (int j = 0; j < DIRECT_ROWS; j++) {
            const int k = r - j;
            if (k >= 0 && k < 11) {
                const float wk = ssim_w[k];
                for (int i = 0; i < 5; i++)
                    acc[j][i] += wk * m[i];
            }
        }
    }
    float sum = 0.0f;
    for (int j = 0; j < DIRECT_ROWS; j++) {
        if (y0 + j >= oh)
            break;
        const float4 s = ssim_value_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3], acc[j][4]);
        const float v[4] = {s.s0, s.s1, s.s2, s.s3};
        for (int i = 0; i < 4 && x0 + i < ow; i++) {
            if (write_map)
                map[(y0 + j) * sm + x0 + i] = v[i];
            sum += v[i];
        }
    }
    if (want_mean)
        partial[gy * ((ow + 3) / 4) + gx] = sum;
}
#endif

/* ---- ssim_rows ------------------------------------------------------------------ */

#ifdef SSIM_ROWS
/* SSIM_ROWS is the strip width: 8 or 16 outputs, one float vector. */
#define VW     SSIM_ROWS
#define floatV CONCAT(float, VW)
#define VLOADV CONCAT(vload, VW)
SSIM_DIV(float16)
SSIM_VALUE(float16)

/* Horizontal sums of VW neighbouring outputs over one input row (columns
 * 0 .. VW + 9 of ra and rb): mu_a, mu_b, aa, bb, ab. */
inline void rows_hsum(__global const T *ra, __global const T *rb, floatV *m)
{
    const floatV va = CONVERT(floatV, VLOADV(0, ra + 5)), vb = CONVERT(floatV, VLOADV(0, rb + 5));
    const floatV ca = va - 128.0f, cb = vb - 128.0f, w5 = (floatV)ssim_w[5];
    floatV ma = w5 * va, mb = w5 * vb, qa = w5 * (ca * ca), qb = w5 * (cb * cb);
    floatV p = w5 * (ca * cb);
    for (int k = 0; k < 5; k++) {
        const float wk = ssim_w[k];
        const floatV va0 = CONVERT(floatV, VLOADV(0, ra + k));
        const floatV vb0 = CONVERT(floatV, VLOADV(0, rb + k));
        const floatV va1 = CONVERT(floatV, VLOADV(0, ra + 10 - k));
        const floatV vb1 = CONVERT(floatV, VLOADV(0, rb + 10 - k));
        const floatV ca0 = va0 - 128.0f, cb0 = vb0 - 128.0f;
        const floatV ca1 = va1 - 128.0f, cb1 = vb1 - 128.0f;
        ma += wk * (va0 + va1);
        mb += wk * (vb0 + vb1);
        qa += wk * (ca0 * ca0 + ca1 * ca1);
        qb += wk * (cb0 * cb0 + cb1 * cb1);
        p += wk * (ca0 * cb0 + ca1 * cb1);
    }
    m[0] = ma;
    m[1] = mb;
    m[2] = qa;
    m[3] = qb;
    m[4] = p;
}

/* Needs ow >= VW. The last strip is moved left to end at the map's edge;
 * its lanes that the previous strip owns are computed but not written. */
__kernel void ssim_rows(__global const T *a, int sa, __global const T *b, int sb, int ow, int oh,
                        __global float *map, int sm, int write_map, int want_mean,
                        __global float *partial, int band)
{
    const int strip = get_global_id(0), g = get_global_id(1);
    const int strips = (ow + VW - 1) / VW, y0 = g * band;
    if (strip >= strips || y0 >= oh)
        return;
    const int y1 = min(oh, y0 + band);
    const int x0 = min(strip * VW, ow - VW), skip = strip * VW - x0;
    floatV ring[11][5];
    float sum = 0.0f;
    for (int r = y0; r < y1 + 10; r++) {
        rows_hsum(a + r * sa + x0, b + r * sb + x0, ring[(r - y0) % 11]);
        if (r - y0 < 10)
            continue;
        /* Output row y from ring slots (y - y0 + k) % 11. */
        const int y = r - 10, first = (y - y0) % 11;
        const int mid = first + 5 < 11 ? first + 5 : first - 6;
        floatV v[5];
        for (int i = 0; i < 5; i++)
            v[i] = ssim_w[5] * ring[mid][i];
        for (int k = 0; k < 5; k++) {
            const float wk = ssim_w[k];
            const int s0 = first + k < 11 ? first + k : first + k - 11;
            const int s1 = first + 10 - k < 11 ? first + 10 - k : first - 1 - k;
            for (int i = 0; i < 5; i++)
                v[i] += wk * (ring[s0][i] + ring[s1][i]);
        }
        const floatV s = CONCAT(ssim_value_, floatV)(v[0], v[1], v[2], v[3], v[4]);
        float lanes[VW];
        CONCAT(vstore, VW)(s, 0, lanes);
        if (write_map) {
            if (skip == 0)
                CONCAT(vstore, VW)(s, 0, map + y * sm + x0);
            else
                for (int i = skip; i < VW; i++)
                    map[y * sm + x0 + i] = lanes[i];
        }
        float row = 0.0f; /* the row's lanes first: fewer terms in each float sum */
        for (int i = skip; i < VW; i++)
            row += lanes[i];
        sum += row;
    }
    if (want_mean)
        partial[g * strips + strip] = sum;
}
#endif

#endif /* T */

/* ---- tile SSIM ------------------------------------------------------------------ */

#ifdef TILE
/* The oracle's float formula (fallback_cpu/scalar/ssim.c), operation for
 * operation, from exact integer sums of the n pixels: ga, gb of the values,
 * ca, cb of c = g - 128, qa, qb of c^2, p of ca cb. */
inline float tile_ssim(int n, int ga, int gb, int ca, int cb, int qa, int qb, int p)
{
    const float nn = (float)(n * n);
    const float fa = (float)ga, fb = (float)gb;
    const float va = (float)(n * qa - ca * ca), vb = (float)(n * qb - cb * cb);
    const float cov = (float)(n * p - ca * cb);
    const float c1 = SSIM_C1 * nn, c2 = SSIM_C2 * nn;
    const float num = (2.0f * fa * fb + c1) * (2.0f * cov + c2);
    const float den = (fa * fa + fb * fb + c1) * (va + vb + c2);
    return num == den ? 1.0f : num / den; /* see SSIM_DIV */
}

/* Adds the centred values of pixels x .. x + count - 1 of two rows. */
#define TILE_ROW_SUMS(ra, rb, count, s)                                                            \
    for (int i_ = 0; i_ < (count); i_++) {                                                         \
        const int va_ = (int)(ra)[i_] - 128, vb_ = (int)(rb)[i_] - 128;                            \
        s[0] += va_;                                                                               \
        s[1] += vb_;                                                                               \
        s[2] += va_ * va_;                                                                         \
        s[3] += vb_ * vb_;                                                                         \
        s[4] += va_ * vb_;                                                                         \
    }

#ifdef TILES_G
__kernel __attribute__((reqd_work_group_size(TILES_G, TILES_P, 1))) void
ssim_tiles_group(__global const uchar *a, int sa, __global const uchar *b, int sb, int w, int h,
                 __global float *map, int sm, int mw, int mh)
{
    __local int red[5][TILES_P][TILES_G];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int tx = get_group_id(0) * TILES_G + lx, ty = get_group_id(1);
    const int x0 = tx * TILE, y = ty * TILE + ly;
    const int nx = min(TILE, w - x0), ny = min(TILE, h - ty * TILE);
    int s[5] = {0, 0, 0, 0, 0};
    if (tx < mw && ly < ny) {
        __global const uchar *ra = a + y * sa + x0, *rb = b + y * sb + x0;
        if (nx == TILE) {
            TILE_ROW_SUMS(ra, rb, TILE, s)
        } else {
            TILE_ROW_SUMS(ra, rb, nx, s)
        }
    }
    for (int m = 0; m < 5; m++)
        red[m][ly][lx] = s[m];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = TILES_P / 2; n > 0; n >>= 1) {
        if (ly < n)
            for (int m = 0; m < 5; m++)
                red[m][ly][lx] += red[m][ly + n][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly == 0 && tx < mw && ty < mh) {
        const int n = nx * ny;
        map[ty * sm + tx] =
            tile_ssim(n, red[0][0][lx] + 128 * n, red[1][0][lx] + 128 * n, red[0][0][lx],
                      red[1][0][lx], red[2][0][lx], red[3][0][lx], red[4][0][lx]);
    }
}
#endif

__kernel void ssim_tiles_item(__global const uchar *a, int sa, __global const uchar *b, int sb,
                              int w, int h, __global float *map, int sm, int mw, int mh)
{
    const int tx = get_global_id(0), ty = get_global_id(1);
    if (tx >= mw || ty >= mh)
        return;
    const int x0 = tx * TILE, y0 = ty * TILE;
    const int nx = min(TILE, w - x0), ny = min(TILE, h - y0);
    int s[5] = {0, 0, 0, 0, 0};
#if TILE % 8 == 0
    /* Whole tiles 8 or 16 wide: the sums in 8 lanes, added up at the end
     * (integers: exact in any order). */
    if (nx == TILE) {
        int8 v[5] = {(int8)0, (int8)0, (int8)0, (int8)0, (int8)0};
        for (int y = 0; y < ny; y++) {
            __global const uchar *ra = a + (y0 + y) * sa + x0, *rb = b + (y0 + y) * sb + x0;
            for (int i = 0; i < TILE; i += 8) {
                const int8 ca = convert_int8(vload8(0, ra + i)) - 128;
                const int8 cb = convert_int8(vload8(0, rb + i)) - 128;
                v[0] += ca;
                v[1] += cb;
                v[2] += ca * ca;
                v[3] += cb * cb;
                v[4] += ca * cb;
            }
        }
        for (int m = 0; m < 5; m++) {
            const int4 q = v[m].lo + v[m].hi;
            s[m] = (q.s0 + q.s1) + (q.s2 + q.s3);
        }
    } else
#endif
        for (int y = 0; y < ny; y++) {
            __global const uchar *ra = a + (y0 + y) * sa + x0, *rb = b + (y0 + y) * sb + x0;
            if (nx == TILE) {
                TILE_ROW_SUMS(ra, rb, TILE, s)
            } else {
                TILE_ROW_SUMS(ra, rb, nx, s)
            }
        }
    const int n = nx * ny;
    map[ty * sm + tx] = tile_ssim(n, s[0] + 128 * n, s[1] + 128 * n, s[0], s[1], s[2], s[3], s[4]);
}
#endif

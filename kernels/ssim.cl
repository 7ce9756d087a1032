/*
 * SSIM family (Wang et al. 2004): the Gaussian SSIM map and its mean, and
 * the tile SSIM of the fusion upscaler. The definitions are written out in
 * fallback_cpu/scalar/ssim.c.
 *
 * Build options, one program per input type:
 *   T            uchar or float (the tile kernels take u8 whatever T is);
 *   DIRECT_ROWS  ssim_direct's outputs per work-item down a column (its
 *                register block: private accumulators, unrolled);
 *   SSIM_ROWS    ssim_rows' strip width, 8 or 16 (one float vector).
 * Gaussian SSIM kernels:
 *   ssim_local   a block of outputs per work-group (its shape is the
 *                work-group's), its (w + 10) x (h + 10) inputs staged in
 *                local memory, separable passes through local memory, a
 *                tree reduction of the group's map values;
 *   ssim_direct  no local memory; a work-item makes 4 x DIRECT_ROWS outputs
 *                from registers;
 *   ssim_rows    (CPU devices) a work-item makes a strip SSIM_ROWS outputs
 *                wide and `band` rows high, keeping the horizontal sums of
 *                the last 11 rows in a ring.
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
 * Tile SSIM (ssim_tile.h: exact integer sums, then the oracle's float
 * formula), tiles of `tile` (2..16) pixels a side:
 *   ssim_tiles_group  a work-group of G x P work-items makes G tiles of one
 *                     tile row, one work-item per pixel row (P a power of
 *                     two >= tile), the sums reduced over the rows in local
 *                     memory;
 *   ssim_tiles_item   one work-item per tile (CPU devices, no local memory).
 *
 * Strides are int arguments (the host checks them), in elements; images and
 * maps may hold more than 2^31 elements: row offsets are size_t products
 * (CLIK_ROW), the index within a row stays int.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"
#include "ssim_tile.h"

#define SSIM_C1 CLIK_SSIM_C1
#define SSIM_C2 CLIK_SSIM_C2

#ifdef T

#ifndef DIRECT_ROWS
#define DIRECT_ROWS 4
#endif
#ifndef SSIM_ROWS
#define SSIM_ROWS 16
#endif

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

/* The horizontal sums of one input row over the window's 11 taps (taps k
 * and 10 - k added before their common weight): mu_a, mu_b, aa, bb, ab
 * (the squares and products of values centred at 128) into OUT[0 .. 4]. V
 * is the type of a value, A(k) and B(k) tap k of the two inputs as a V. */
#define SSIM_HSUM(V, A, B, OUT)                                                                    \
    do {                                                                                           \
        const V va = A(5), vb = B(5), ca = va - 128.0f, cb = vb - 128.0f;                          \
        const float w5 = ssim_w[5];                                                                \
        V ma = w5 * va, mb = w5 * vb, qa = w5 * (ca * ca), qb = w5 * (cb * cb);                    \
        V p = w5 * (ca * cb);                                                                      \
        for (int k = 0; k < 5; k++) {                                                              \
            const float wk = ssim_w[k];                                                            \
            const V va0 = A(k), vb0 = B(k), va1 = A(10 - k), vb1 = B(10 - k);                      \
            const V ca0 = va0 - 128.0f, cb0 = vb0 - 128.0f;                                        \
            const V ca1 = va1 - 128.0f, cb1 = vb1 - 128.0f;                                        \
            ma += wk * (va0 + va1);                                                                \
            mb += wk * (vb0 + vb1);                                                                \
            qa += wk * (ca0 * ca0 + ca1 * ca1);                                                    \
            qb += wk * (cb0 * cb0 + cb1 * cb1);                                                    \
            p += wk * (ca0 * cb0 + ca1 * cb1);                                                     \
        }                                                                                          \
        (OUT)[0] = ma;                                                                             \
        (OUT)[1] = mb;                                                                             \
        (OUT)[2] = qa;                                                                             \
        (OUT)[3] = qb;                                                                             \
        (OUT)[4] = p;                                                                              \
    } while (0)

/* ---- ssim_local ----------------------------------------------------------------- */

/*
 * A block of tw x th outputs per work-group of that shape. The host sizes
 * la and lb for the block's (tw + 10) x (th + 10) inputs (row r at
 * r * (tw + 10)) and hm for the horizontal sums of its input rows, the five
 * (mu_a, mu_b, aa, bb, ab) of row r, column c at (c * (th + 10) + r) * 5:
 * a column's window is then one run, read at constant offsets from one
 * address (the block's shape is only known at run time). tw * th is a
 * power of two (the reduction).
 */
__kernel void ssim_local(__global const T *a, int sa, __global const T *b, int sb, int ow, int oh,
                         __global float *map, int sm, int write_map, int want_mean,
                         __global float *partial, __local float *la, __local float *lb,
                         __local float *hm)
{
    const int tw = get_local_size(0), th = get_local_size(1), items = tw * th;
    const int in_w = tw + 10, in_h = th + 10;
    const int lx = get_local_id(0), ly = get_local_id(1), lid = ly * tw + lx;
    const int x0 = get_group_id(0) * tw, y0 = get_group_id(1) * th;
    const int w = ow + 10, h = oh + 10;

    /* Inputs past the image feed only outputs past the map: clamp them.
     * Rows and columns stepped by the block's shape: no division by it. */
    for (int r = ly; r < in_h; r += th) {
        const int y = min(y0 + r, h - 1);
        __global const T *ra = a + CLIK_ROW(y, sa), *rb = b + CLIK_ROW(y, sb);
        for (int c = lx; c < in_w; c += tw) {
            const int x = min(x0 + c, w - 1);
            la[r * in_w + c] = convert_float(ra[x]);
            lb[r * in_w + c] = convert_float(rb[x]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int r = ly; r < in_h; r += th) {
        const int c = lx, o = r * in_w + c;
        __local float *out = hm + (c * in_h + r) * 5;
#define TILE_A(k) la[o + (k)]
#define TILE_B(k) lb[o + (k)]
        SSIM_HSUM(float, TILE_A, TILE_B, out);
#undef TILE_A
#undef TILE_B
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float s = 0.0f;
    const int x = x0 + lx, y = y0 + ly;
    if (x < ow && y < oh) {
        /* Sum m of the horizontal sums at window row k of this output. */
        __local const float *col = hm + (lx * in_h + ly) * 5;
#define HM(m, k) col[(k)*5 + (m)]
        float ma = ssim_w[5] * HM(0, 5), mb = ssim_w[5] * HM(1, 5);
        float qa = ssim_w[5] * HM(2, 5), qb = ssim_w[5] * HM(3, 5);
        float p = ssim_w[5] * HM(4, 5);
        for (int k = 0; k < 5; k++) {
            const float wk = ssim_w[k];
            ma += wk * (HM(0, k) + HM(0, 10 - k));
            mb += wk * (HM(1, k) + HM(1, 10 - k));
            qa += wk * (HM(2, k) + HM(2, 10 - k));
            qb += wk * (HM(3, k) + HM(3, 10 - k));
            p += wk * (HM(4, k) + HM(4, 10 - k));
        }
#undef HM
        s = ssim_value_float(ma, mb, qa, qb, p);
        if (write_map)
            map[CLIK_ROW(y, sm) + x] = s;
    }
    if (!want_mean) /* the same for the whole work-group */
        return;
    /* Tree reduction in la, which no work-item reads any more. */
    __local float *sum = la;
    sum[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = items / 2; n > 0; n >>= 1) {
        if (lid < n)
            sum[lid] += sum[lid + n];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = sum[0];
}

/* ---- ssim_direct ---------------------------------------------------------------- */

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
        __global const T *ra = a + CLIK_ROW(y, sa), *rb = b + CLIK_ROW(y, sb);
        float pa[14], pb[14];
        for (int i = 0; i < 14; i++) {
            const int x = min(x0 + i, w - 1);
            pa[i] = convert_float(ra[x]);
            pb[i] = convert_float(rb[x]);
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
    __global float *mrow = map + CLIK_ROW(y0, sm) + x0;
    for (int j = 0; j < DIRECT_ROWS; j++) {
        if (y0 + j >= oh)
            break;
        const float4 s = ssim_value_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3], acc[j][4]);
        const float v[4] = {s.s0, s.s1, s.s2, s.s3};
        for (int i = 0; i < 4 && x0 + i < ow; i++) {
            if (write_map)
                mrow[i] = v[i];
            sum += v[i];
        }
        mrow += sm;
    }
    if (want_mean)
        partial[(size_t)gy * (size_t)((ow + 3) / 4) + (size_t)gx] = sum;
}

/* ---- ssim_rows ------------------------------------------------------------------ */

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
#define ROW_A(k) CONVERT(floatV, VLOADV(0, ra + (k)))
#define ROW_B(k) CONVERT(floatV, VLOADV(0, rb + (k)))
    SSIM_HSUM(floatV, ROW_A, ROW_B, m);
#undef ROW_A
#undef ROW_B
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
        rows_hsum(a + CLIK_ROW(r, sa) + x0, b + CLIK_ROW(r, sb) + x0, ring[(r - y0) % 11]);
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
            __global float *mrow = map + CLIK_ROW(y, sm) + x0;
            if (skip == 0)
                CONCAT(vstore, VW)(s, 0, mrow);
            else
                for (int i = skip; i < VW; i++)
                    mrow[i] = lanes[i];
        }
        float row = 0.0f; /* the row's lanes first: fewer terms in each float sum */
        for (int i = skip; i < VW; i++)
            row += lanes[i];
        sum += row;
    }
    if (want_mean)
        partial[(size_t)g * (size_t)strips + (size_t)strip] = sum;
}

#endif /* T */

/* ---- tile SSIM ------------------------------------------------------------------ */

/*
 * A work-group of G x P work-items (its shape; P a power of two >= tile)
 * makes G tiles of tile row get_group_id(1): work-item (lx, ly) sums pixel
 * row ly of tile lx, then the rows' sums are added in `red` (five planes of
 * P x G ints, sized by the host).
 */
__kernel void ssim_tiles_group(__global const uchar *a, int sa, __global const uchar *b, int sb,
                               int w, int h, __global float *map, int sm, int mw, int mh, int tile,
                               __local int *red)
{
    const int g = get_local_size(0), rows = get_local_size(1), plane = rows * g;
    const int lx = get_local_id(0), ly = get_local_id(1), i = ly * g + lx;
    const int tx = get_group_id(0) * g + lx, ty = get_group_id(1);
    const int x0 = tx * tile, y = ty * tile + ly;
    const int nx = min(tile, w - x0), ny = min(tile, h - ty * tile);
    clik_tile_sums s = clik_tile_sums_zero();
    if (tx < mw && ly < ny)
        s = clik_tile_add_row(s, a + CLIK_ROW(y, sa) + x0, b + CLIK_ROW(y, sb) + x0, nx);
    red[i] = s.a;
    red[plane + i] = s.b;
    red[2 * plane + i] = s.aa;
    red[3 * plane + i] = s.bb;
    red[4 * plane + i] = s.ab;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = rows / 2; n > 0; n >>= 1) {
        if (ly < n)
            for (int m = 0; m < 5; m++)
                red[m * plane + i] += red[m * plane + i + n * g];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly == 0 && tx < mw && ty < mh) {
        const clik_tile_sums t = {red[lx], red[plane + lx], red[2 * plane + lx],
                                  red[3 * plane + lx], red[4 * plane + lx]};
        map[CLIK_ROW(ty, sm) + tx] = clik_tile_ssim(nx * ny, t);
    }
}

/* Whole rows of tiles 8 or 16 wide: the sums in 8 lanes, added up at the
 * end (integers: exact in any order). */
inline clik_tile_sums tile_sums8(__global const uchar *a, int sa, __global const uchar *b, int sb,
                                 int tile, int ny)
{
    int8 sum_a = (int8)0, sum_b = (int8)0, sum_aa = (int8)0, sum_bb = (int8)0, sum_ab = (int8)0;
    for (int y = 0; y < ny; y++, a += sa, b += sb)
        for (int i = 0; i < tile; i += 8) {
            const int8 ca = convert_int8(vload8(0, a + i)) - 128;
            const int8 cb = convert_int8(vload8(0, b + i)) - 128;
            sum_a += ca;
            sum_b += cb;
            sum_aa += ca * ca;
            sum_bb += cb * cb;
            sum_ab += ca * cb;
        }
#define LANES(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7)
    const clik_tile_sums s = {LANES(sum_a), LANES(sum_b), LANES(sum_aa), LANES(sum_bb),
                              LANES(sum_ab)};
#undef LANES
    return s;
}

__kernel void ssim_tiles_item(__global const uchar *a, int sa, __global const uchar *b, int sb,
                              int w, int h, __global float *map, int sm, int mw, int mh, int tile)
{
    const int tx = get_global_id(0), ty = get_global_id(1);
    if (tx >= mw || ty >= mh)
        return;
    const int x0 = tx * tile, y0 = ty * tile;
    const int nx = min(tile, w - x0), ny = min(tile, h - y0);
    __global const uchar *ta = a + CLIK_ROW(y0, sa) + x0, *tb = b + CLIK_ROW(y0, sb) + x0;
    const clik_tile_sums s = tile % 8 == 0 && nx == tile
                                 ? tile_sums8(ta, sa, tb, sb, tile, ny)
                                 : clik_tile_sums_of(ta, sa, tb, sb, nx, ny);
    map[CLIK_ROW(ty, sm) + tx] = clik_tile_ssim(nx * ny, s);
}

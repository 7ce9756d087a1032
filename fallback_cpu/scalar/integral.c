/*
 * Integral images, scalar: the correctness oracle.
 *
 * Every output row is built from the one above it:
 *     sum(X, y + 1) = sum(X, y) + rowsum(X, y),  rowsum(X, y) = src(0, y) + ... + src(X - 1, y)
 * per channel, with row 0 and column 0 zero. Only the (W + 1) x (H + 1)
 * elements are written; row padding is left alone.
 *
 * u8 sources are added in integers: uint64_t running sums, stored as u32
 * (the value modulo 2^32, which is also what the wrapping uint32_t sum of
 * the values would give), u64, or f64 (exact while below 2^53: any image of
 * fewer than 1.3e11 pixels). Reading the row above back from the output is
 * then exact for all three types, so no scratch memory is needed.
 *
 * f32 sources are added in double, in this order: the row's running sum
 * starts at 0.0 and adds (double)src(x, y) for x = 0, 1, ...; each output is
 * then (the double of the row above) + (that running sum). An f32 sum is
 * the float rounding of that double, rounded once; its double row above is
 * kept in a scratch row because the stored floats have lost bits. sqsum
 * (f64) follows the same order with (double)v * (double)v.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

static void *row_at(const clik_image *img, int y)
{
    return (uint8_t *)img->data + (size_t)y * img->stride;
}

static uint64_t load_int(const void *row, clik_type type, size_t i)
{
    switch (type) {
    case CLIK_U32: return ((const uint32_t *)row)[i];
    case CLIK_S32: return (uint32_t)((const int32_t *)row)[i]; /* the sum modulo 2^32 */
    case CLIK_U64: return ((const uint64_t *)row)[i];
    default: return (uint64_t)((const double *)row)[i];
    }
}

static void store_int(void *row, clik_type type, size_t i, uint64_t v)
{
    switch (type) {
    case CLIK_U32: ((uint32_t *)row)[i] = (uint32_t)v; break; /* modulo 2^32 */
    case CLIK_S32: {
        /* OpenCV's CV_32S integral: v modulo 2^32 in two's complement. */
        const uint32_t m = (uint32_t)v;
        const int32_t s = m <= INT32_MAX ? (int32_t)m : (int32_t)(m - 2147483648u) - INT32_MAX - 1;
        ((int32_t *)row)[i] = s;
        break;
    }
    case CLIK_U64: ((uint64_t *)row)[i] = v; break;
    default: ((double *)row)[i] = (double)v; break;
    }
}

static void store_real(void *row, clik_type type, size_t i, double v)
{
    if (type == CLIK_F32)
        ((float *)row)[i] = (float)v;
    else
        ((double *)row)[i] = v;
}

/* Row 0 of an integral: (W + 1) * C zeros. */
static void zero_first_row(clik_image *img)
{
    /* sums are U32, S32 or F32 (4 bytes an element), U64 or F64 (8) */
    const size_t elem = img->type == CLIK_U64 || img->type == CLIK_F64 ? 8 : 4;
    memset(img->data, 0, (size_t)img->width * (size_t)img->channels * elem);
}

static void integral_u8(const clik_image *src, clik_image *sum, clik_image *sqsum)
{
    const int ch = src->channels;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = row_at(src, y);
        const void *sum_up = row_at(sum, y);
        void *sum_out = row_at(sum, y + 1);
        const void *sq_up = sqsum ? row_at(sqsum, y) : NULL;
        void *sq_out = sqsum ? row_at(sqsum, y + 1) : NULL;
        uint64_t run[4] = {0}, run_sq[4] = {0}; /* per channel */
        for (int c = 0; c < ch; c++) {
            store_int(sum_out, sum->type, (size_t)c, 0);
            if (sqsum)
                store_int(sq_out, sqsum->type, (size_t)c, 0);
        }
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < ch; c++) {
                uint64_t v = in[(size_t)x * ch + c];
                size_t o = (size_t)(x + 1) * ch + c; /* output column x + 1 */
                run[c] += v;
                store_int(sum_out, sum->type, o, load_int(sum_up, sum->type, o) + run[c]);
                if (sqsum) {
                    run_sq[c] += v * v;
                    store_int(sq_out, sqsum->type, o, load_int(sq_up, sqsum->type, o) + run_sq[c]);
                }
            }
        }
    }
}

/*
 * f32 source, output columns [x0, x1) of every row. When the sum is f32, up
 * holds the double values of the previous sum row for those columns (it is
 * updated in place); f64 sums and sqsums are read back from the output.
 */
static void integral_f32_columns(const clik_image *src, clik_image *sum, clik_image *sqsum, int x0,
                                 int x1, double *up)
{
    const int ch = src->channels;
    const int sum_f32 = sum->type == CLIK_F32;
    if (sum_f32)
        for (size_t i = 0; i < (size_t)(x1 - x0) * ch; i++)
            up[i] = 0.0;
    for (int y = 0; y < src->height; y++) {
        const float *in = row_at(src, y);
        const double *sum_up = sum_f32 ? NULL : row_at(sum, y);
        void *sum_out = row_at(sum, y + 1);
        const double *sq_up = sqsum ? row_at(sqsum, y) : NULL;
        double *sq_out = sqsum ? row_at(sqsum, y + 1) : NULL;
        double run[4] = {0}, run_sq[4] = {0}; /* per channel */
        /* The running sums over the columns left of x0, so that every
         * output gets the same additions in the same order whatever x0 is. */
        for (int x = 0; x < x0 - 1; x++)
            for (int c = 0; c < ch; c++) {
                double v = in[(size_t)x * ch + c];
                run[c] += v;
                run_sq[c] += v * v;
            }
        for (int X = x0; X < x1; X++)
            for (int c = 0; c < ch; c++) {
                size_t o = (size_t)X * ch + c;
                if (X == 0) {
                    store_real(sum_out, sum->type, o, 0.0);
                    if (sqsum)
                        sq_out[o] = 0.0;
                    continue; /* up[] stays 0.0 there */
                }
                double v = in[(size_t)(X - 1) * ch + c];
                run[c] += v;
                run_sq[c] += v * v;
                double s;
                if (sum_f32) {
                    double *u = &up[(size_t)(X - x0) * ch + c];
                    s = *u + run[c];
                    *u = s;
                } else {
                    s = sum_up[o] + run[c];
                }
                store_real(sum_out, sum->type, o, s);
                if (sqsum)
                    sq_out[o] = sq_up[o] + run_sq[c];
            }
    }
}

/* Columns per pass when the scratch row cannot be allocated. */
#define FALLBACK_COLUMNS 128

static void integral_f32(const clik_image *src, clik_image *sum, clik_image *sqsum)
{
    const int cols = src->width + 1;
    double *up = NULL;
    if (sum->type == CLIK_F32) {
        up = malloc((size_t)cols * (size_t)src->channels * sizeof(double));
        if (!up) {
            /* The operation cannot fail here, so go without the heap: strips
             * of columns with a stack row, each restarting its rows' running
             * sums from column 0 (slower, same results). */
            double strip[FALLBACK_COLUMNS * 4];
            for (int x0 = 0; x0 < cols; x0 += FALLBACK_COLUMNS) {
                int x1 = cols - x0 < FALLBACK_COLUMNS ? cols : x0 + FALLBACK_COLUMNS;
                integral_f32_columns(src, sum, sqsum, x0, x1, strip);
            }
            return;
        }
    }
    integral_f32_columns(src, sum, sqsum, 0, cols, up);
    free(up);
}

void clik__integral_scalar(const clik_image *src, clik_image *sum, clik_image *sqsum)
{
    zero_first_row(sum);
    if (sqsum)
        zero_first_row(sqsum);
    if (src->type == CLIK_U8)
        integral_u8(src, sum, sqsum);
    else
        integral_f32(src, sum, sqsum);
}

void clik__integral_dsp_init_scalar(clik_integral_dsp *dsp)
{
    dsp->integral = clik__integral_scalar;
}

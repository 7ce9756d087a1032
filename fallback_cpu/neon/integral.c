/*
 * Integral images, NEON: u8 sources with a u32 or u64 sum and an optional
 * u64 sqsum, 1, 2 or 4 channels. Everything else goes to the scalar code.
 *
 * Each output row is the row above plus the running sum of the source row.
 * The running sum is serial along the row, so it is built 16 bytes at a
 * time in registers: the bytes are widened to u16 and given an in-register
 * prefix by adding copies shifted by 1, 2 and 4 pixels (VEXT against zero;
 * one pixel is `ch` lanes, so the interleaved channels never mix), and the
 * sum carried from the previous 16 bytes (the last pixel, broadcast) is
 * added as they are widened to u32. The vertical add is then plain lane
 * by lane. 16 u8 values total at most 4080, so the u16 prefix cannot wrap.
 *
 * The running row sums are kept in u32. For a u32 sum that is the same
 * arithmetic modulo 2^32 as the scalar code; for a u64 sum the row's total,
 * at most 255 * 2^20, fits. Squares (at most 65025) are prefixed in u32 and
 * a row of squares fits in u32 only while W <= SQ_MAX_WIDTH, so wider
 * images with a sqsum use the scalar code. The results are bit-identical
 * with clik__integral_scalar.
 *
 * Threads take column bands: a first pass sums each row of every band but
 * the last (by channel, and the squares), then each band runs the rows
 * above with its running sums starting from the sums of the bands to its
 * left. Integer sums modulo 2^32: the same bits for any band count.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "neon.h"

/* The widest row whose sum of squares of u8 values fits in u32. */
#define SQ_MAX_WIDTH 66051 /* (2^32 - 1) / 255^2, rounded down */

/* In-register running sum of 8 u16 lanes holding 8 / ch pixels. */
CLIK_INLINE uint16x8_t prefix_u16(uint16x8_t v, const int ch)
{
    const uint16x8_t z = vdupq_n_u16(0);
    if (ch == 1) {
        v = vaddq_u16(v, vextq_u16(z, v, 7));
        v = vaddq_u16(v, vextq_u16(z, v, 6));
        v = vaddq_u16(v, vextq_u16(z, v, 4));
    } else if (ch == 2) {
        v = vaddq_u16(v, vextq_u16(z, v, 6));
        v = vaddq_u16(v, vextq_u16(z, v, 4));
    } else {
        v = vaddq_u16(v, vextq_u16(z, v, 4));
    }
    return v;
}

/* The same for 4 u32 lanes. */
CLIK_INLINE uint32x4_t prefix_u32(uint32x4_t v, const int ch)
{
    const uint32x4_t z = vdupq_n_u32(0);
    if (ch == 1) {
        v = vaddq_u32(v, vextq_u32(z, v, 3));
        v = vaddq_u32(v, vextq_u32(z, v, 2));
    } else if (ch == 2) {
        v = vaddq_u32(v, vextq_u32(z, v, 2));
    }
    return v;
}

/* The last pixel of v repeated across the vector: the carry to the next. */
CLIK_INLINE uint16x8_t last_pixel_u16(uint16x8_t v, const int ch)
{
    if (ch == 1)
        return vdupq_laneq_u16(v, 7);
    if (ch == 2)
        return vreinterpretq_u16_u32(vdupq_laneq_u32(vreinterpretq_u32_u16(v), 3));
    return vreinterpretq_u16_u64(vdupq_laneq_u64(vreinterpretq_u64_u16(v), 1));
}

CLIK_INLINE uint32x4_t last_pixel_u32(uint32x4_t v, const int ch)
{
    if (ch == 1)
        return vdupq_laneq_u32(v, 3);
    if (ch == 2)
        return vreinterpretq_u32_u64(vdupq_laneq_u64(vreinterpretq_u64_u32(v), 1));
    return v;
}

/* up + r into out, 4 lanes, for a u32 or u64 integral row. */
CLIK_INLINE void add_store(void *out, const void *up, size_t i, uint32x4_t r, const int wide)
{
    if (wide) {
        const uint64_t *u = (const uint64_t *)up + i;
        uint64_t *o = (uint64_t *)out + i;
        vst1q_u64(o, vaddw_u32(vld1q_u64(u), vget_low_u32(r)));
        vst1q_u64(o + 2, vaddw_high_u32(vld1q_u64(u + 2), r));
    } else {
        vst1q_u32((uint32_t *)out + i, vaddq_u32(vld1q_u32((const uint32_t *)up + i), r));
    }
}

/* A job's column bands: band b covers source pixels [b * band_px,
 * min(w, (b + 1) * band_px)); part holds, for every band but the last,
 * each row's sums of the band's elements by channel (and of their squares
 * in part_sq): part[(b * h + y) * 4 + c]. */
typedef struct integral_job {
    const clik_image *src;
    clik_image *sum, *sqsum;
    int sum64, sq, bands, band_px;
    uint32_t *part, *part_sq;
} integral_job;

/* The sums by channel of the elements in[0..n) (n a multiple of ch) into
 * s[0..ch), and of their squares into q when sq: 16 lanes, lane l holding
 * channel l % ch, counted in u16 for at most 256 steps, then added to u32. */
CLIK_INLINE void row_totals(const uint8_t *in, size_t n, const int ch, const int sq, uint32_t *s,
                            uint32_t *q)
{
    uint32x4_t acc[4], acc_sq[4];
    for (int k = 0; k < 4; k++)
        acc[k] = acc_sq[k] = vdupq_n_u32(0);
    size_t i = 0;
    while (i + 16 <= n) {
        const size_t end = n - i > 16 * 256 ? i + 16 * 256 : n;
        uint16x8_t lo = vdupq_n_u16(0), hi = lo;
        for (; i + 16 <= end; i += 16) {
            const uint8x16_t v = vld1q_u8(in + i);
            lo = vaddw_u8(lo, vget_low_u8(v));
            hi = vaddw_high_u8(hi, v);
            if (sq) {
                const uint16x8_t q_lo = vmull_u8(vget_low_u8(v), vget_low_u8(v));
                const uint16x8_t q_hi = vmull_high_u8(v, v);
                acc_sq[0] = vaddw_u16(acc_sq[0], vget_low_u16(q_lo));
                acc_sq[1] = vaddw_high_u16(acc_sq[1], q_lo);
                acc_sq[2] = vaddw_u16(acc_sq[2], vget_low_u16(q_hi));
                acc_sq[3] = vaddw_high_u16(acc_sq[3], q_hi);
            }
        }
        acc[0] = vaddw_u16(acc[0], vget_low_u16(lo));
        acc[1] = vaddw_high_u16(acc[1], lo);
        acc[2] = vaddw_u16(acc[2], vget_low_u16(hi));
        acc[3] = vaddw_high_u16(acc[3], hi);
    }
    uint32_t lanes[16], lanes_sq[16];
    for (int k = 0; k < 4; k++) {
        vst1q_u32(lanes + 4 * k, acc[k]);
        vst1q_u32(lanes_sq + 4 * k, acc_sq[k]);
    }
    for (int c = 0; c < ch; c++)
        s[c] = q[c] = 0;
    for (int l = 0; l < 16; l++) {
        s[l % ch] += lanes[l];
        q[l % ch] += lanes_sq[l];
    }
    for (; i < n; i++) {
        s[i % (size_t)ch] += in[i];
        q[i % (size_t)ch] += (uint32_t)in[i] * in[i];
    }
}

/* The carries into band b's row y (the sums of the bands before it), as
 * four lanes: lane l holds channel l % ch, as the running sums do. */
CLIK_INLINE void band_carry(const integral_job *j, int b, int y, const int ch, uint32x4_t *carry,
                            uint32x4_t *carry_sq)
{
    uint32_t s[4] = {0}, q[4] = {0}, ls[4], lq[4];
    const size_t h = (size_t)j->src->height;
    for (int k = 0; k < b; k++)
        for (int c = 0; c < ch; c++) {
            s[c] += j->part[((size_t)k * h + (size_t)y) * 4 + (size_t)c];
            if (j->sq)
                q[c] += j->part_sq[((size_t)k * h + (size_t)y) * 4 + (size_t)c];
        }
    for (int l = 0; l < 4; l++) {
        ls[l] = s[l % ch];
        lq[l] = q[l % ch];
    }
    *carry = vld1q_u32(ls);
    *carry_sq = vld1q_u32(lq);
}

/*
 * Rows 1..H of the integrals in column band b. ch, sum64 (the sum is u64,
 * else u32) and sq (a u64 sqsum is wanted) are constants in every caller,
 * so each combination compiles to its own loop without branches.
 */
CLIK_INLINE void integral_rows(const integral_job *j, int b, const int ch, const int sum64,
                               const int sq)
{
    const clik_image *src = j->src, *sum = j->sum, *sqsum = j->sqsum;
    const int px0 = b * j->band_px;
    const int px1 = px0 + j->band_px < src->width ? px0 + j->band_px : src->width;
    const size_t e0 = (size_t)px0 * (size_t)ch;        /* the band's first element */
    const size_t n = (size_t)(px1 - px0) * (size_t)ch; /* source elements per row */
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride + e0;
        const uint8_t *sum_up = (const uint8_t *)sum->data + (size_t)y * sum->stride;
        uint8_t *sum_out = (uint8_t *)sum->data + (size_t)(y + 1) * sum->stride;
        const uint64_t *sq_up = NULL;
        uint64_t *sq_out = NULL;
        if (sq) {
            sq_up = (const uint64_t *)((const uint8_t *)sqsum->data + (size_t)y * sqsum->stride);
            sq_out = (uint64_t *)((uint8_t *)sqsum->data + (size_t)(y + 1) * sqsum->stride);
        }
        /* Column 0 is zero; every later output element i of the row sits
         * at ch + i, one pixel after the source element i it ends with. */
        if (b == 0) {
            memset(sum_out, 0, (size_t)ch * (sum64 ? 8 : 4));
            if (sq)
                memset(sq_out, 0, (size_t)ch * 8);
        }
        const void *up = sum_up + ((size_t)ch + e0) * (sum64 ? 8 : 4);
        void *out = sum_out + ((size_t)ch + e0) * (sum64 ? 8 : 4);
        if (sq) {
            sq_up += e0;
            sq_out += e0;
        }

        uint32x4_t carry, carry_sq;
        band_carry(j, b, y, ch, &carry, &carry_sq);
        size_t i = 0;
        for (; i + 16 <= n; i += 16) {
            uint8x16_t v = vld1q_u8(in + i);
            uint16x8_t lo = prefix_u16(vmovl_u8(vget_low_u8(v)), ch);
            uint16x8_t hi = prefix_u16(vmovl_high_u8(v), ch);
            hi = vaddq_u16(hi, last_pixel_u16(lo, ch));
            uint32x4_t r0 = vaddw_u16(carry, vget_low_u16(lo));
            uint32x4_t r1 = vaddw_high_u16(carry, lo);
            uint32x4_t r2 = vaddw_u16(carry, vget_low_u16(hi));
            uint32x4_t r3 = vaddw_high_u16(carry, hi);
            carry = last_pixel_u32(r3, ch);
            add_store(out, up, i, r0, sum64);
            add_store(out, up, i + 4, r1, sum64);
            add_store(out, up, i + 8, r2, sum64);
            add_store(out, up, i + 12, r3, sum64);

            if (sq) {
                /* Squares fit u16 but their sums do not: prefix in u32,
                 * joining the four vectors as a tree, then the carry. */
                uint16x8_t s_lo = vmull_u8(vget_low_u8(v), vget_low_u8(v));
                uint16x8_t s_hi = vmull_high_u8(v, v);
                uint32x4_t q0 = prefix_u32(vmovl_u16(vget_low_u16(s_lo)), ch);
                uint32x4_t q1 = prefix_u32(vmovl_high_u16(s_lo), ch);
                uint32x4_t q2 = prefix_u32(vmovl_u16(vget_low_u16(s_hi)), ch);
                uint32x4_t q3 = prefix_u32(vmovl_high_u16(s_hi), ch);
                q1 = vaddq_u32(q1, last_pixel_u32(q0, ch));
                q3 = vaddq_u32(q3, last_pixel_u32(q2, ch));
                uint32x4_t half = last_pixel_u32(q1, ch);
                q2 = vaddq_u32(q2, half);
                q3 = vaddq_u32(q3, half);
                q0 = vaddq_u32(q0, carry_sq);
                q1 = vaddq_u32(q1, carry_sq);
                q2 = vaddq_u32(q2, carry_sq);
                q3 = vaddq_u32(q3, carry_sq);
                carry_sq = last_pixel_u32(q3, ch);
                add_store(sq_out + ch, sq_up + ch, i, q0, 1);
                add_store(sq_out + ch, sq_up + ch, i + 4, q1, 1);
                add_store(sq_out + ch, sq_up + ch, i + 8, q2, 1);
                add_store(sq_out + ch, sq_up + ch, i + 12, q3, 1);
            }
        }

        /* The last n % 16 elements one by one. i is a multiple of 16, so
         * element i belongs to channel i % ch; lane c of the carries holds
         * channel c's running sum (the last pixel is repeated). */
        uint32_t run[4], run_sq[4];
        vst1q_u32(run, carry);
        vst1q_u32(run_sq, carry_sq);
        for (; i < n; i++) {
            const size_t c = i % (size_t)ch;
            const uint32_t v = in[i];
            run[c] += v;
            if (sum64)
                ((uint64_t *)out)[i] = ((const uint64_t *)up)[i] + run[c];
            else
                ((uint32_t *)out)[i] = ((const uint32_t *)up)[i] + run[c];
            if (sq) {
                run_sq[c] += v * v;
                sq_out[ch + i] = sq_up[ch + i] + run_sq[c];
            }
        }
    }
}

/* Phase 1: the row sums of bands [b0, b1) (the last band's are not needed). */
static int band_totals(void *user, int b0, int b1)
{
    const integral_job *j = user;
    const clik_image *src = j->src;
    const int ch = src->channels;
    for (int b = b0; b < b1 && b < j->bands - 1; b++) {
        const size_t e0 = (size_t)b * (size_t)j->band_px * (size_t)ch;
        const size_t n = (size_t)j->band_px * (size_t)ch;
        for (int y = 0; y < src->height; y++) {
            const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride + e0;
            const size_t at = ((size_t)b * (size_t)src->height + (size_t)y) * 4;
            uint32_t q[4];
            if (ch == 1)
                row_totals(in, n, 1, j->sq, j->part + at, j->sq ? j->part_sq + at : q);
            else if (ch == 2)
                row_totals(in, n, 2, j->sq, j->part + at, j->sq ? j->part_sq + at : q);
            else
                row_totals(in, n, 4, j->sq, j->part + at, j->sq ? j->part_sq + at : q);
        }
    }
    return 0;
}

/* Phase 2: the integrals of bands [b0, b1). */
static int band_rows(void *user, int b0, int b1)
{
    const integral_job *j = user;
    const int ch = j->src->channels, sum64 = j->sum64, sq = j->sq;
    for (int b = b0; b < b1; b++) {
        /* One constant-folded loop per (channels, sum type, sqsum) combination. */
        switch ((ch == 1 ? 0 : ch == 2 ? 4 : 8) + sum64 * 2 + sq) {
        case 0: integral_rows(j, b, 1, 0, 0); break;
        case 1: integral_rows(j, b, 1, 0, 1); break;
        case 2: integral_rows(j, b, 1, 1, 0); break;
        case 3: integral_rows(j, b, 1, 1, 1); break;
        case 4: integral_rows(j, b, 2, 0, 0); break;
        case 5: integral_rows(j, b, 2, 0, 1); break;
        case 6: integral_rows(j, b, 2, 1, 0); break;
        case 7: integral_rows(j, b, 2, 1, 1); break;
        case 8: integral_rows(j, b, 4, 0, 0); break;
        case 9: integral_rows(j, b, 4, 0, 1); break;
        case 10: integral_rows(j, b, 4, 1, 0); break;
        default: integral_rows(j, b, 4, 1, 1); break;
        }
    }
    return 0;
}

/* Pixels of a column band at the least: the band sums' extra reading
 * stays small beside the band's integral. */
#define BAND_MIN_PX 64

static void integral_neon(const clik_image *src, clik_image *sum, clik_image *sqsum)
{
    /* s32 sums are the u32 ones modulo 2^32, the same bits. */
    const int covered = src->type == CLIK_U8 &&
                        (sum->type == CLIK_U32 || sum->type == CLIK_S32 || sum->type == CLIK_U64) &&
                        (!sqsum || (sqsum->type == CLIK_U64 && src->width <= SQ_MAX_WIDTH));
    if (!covered) {
        clik__integral_scalar(src, sum, sqsum);
        return;
    }
    integral_job j = {src,        sum,  sqsum, sum->type == CLIK_U64, sqsum != NULL, 1,
                      src->width, NULL, NULL};
    const size_t row0 = (size_t)sum->width * (size_t)sum->channels;
    memset(sum->data, 0, row0 * (j.sum64 ? 8 : 4));
    if (j.sq)
        memset(sqsum->data, 0, row0 * 8);

    /* Column bands, one per thread (two on one thread, so that the bands'
     * code runs everywhere): each row's running sum starts in a band from
     * the sums of the bands left of it (phase 1), so every band runs at
     * once (phase 2); integer sums, the same bits in any order. Without the
     * memory for the sums, one band. */
    const int threads = clik__cpu_threads();
    int bands = threads > 2 ? threads : 2;
    if (bands > src->width / BAND_MIN_PX)
        bands = src->width / BAND_MIN_PX;
    if (bands > 1) {
        const int px = (src->width + bands - 1) / bands;
        j.band_px = (px + 15) / 16 * 16;
        j.bands = (src->width + j.band_px - 1) / j.band_px;
        const size_t words = (size_t)(j.bands - 1) * (size_t)src->height * 4;
        j.part = malloc(words * sizeof(uint32_t) * (j.sq ? 2 : 1));
        j.part_sq = j.part && j.sq ? j.part + words : NULL;
        if (!j.part) {
            j.bands = 1;
            j.band_px = src->width;
        }
    }
    const size_t work = (size_t)src->height * (size_t)j.band_px * (size_t)src->channels;
    if (j.bands > 1)
        clik__cpu_rows(j.bands, work / 4, band_totals, &j);
    clik__cpu_rows(j.bands, work, band_rows, &j);
    free(j.part);
}

void clik__integral_dsp_init_neon(clik_integral_dsp *dsp)
{
    dsp->integral = integral_neon;
}

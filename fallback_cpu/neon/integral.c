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
 * SPDX-License-Identifier: BSD-2-Clause
 */
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

/*
 * Rows 1..H of the integrals. ch, sum64 (the sum is u64, else u32) and sq
 * (a u64 sqsum is wanted) are constants in every caller, so each
 * combination compiles to its own loop without branches.
 */
CLIK_INLINE void integral_rows(const clik_image *src, clik_image *sum, clik_image *sqsum,
                               const int ch, const int sum64, const int sq)
{
    const size_t n = (size_t)src->width * (size_t)ch; /* source elements per row */
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (size_t)y * src->stride;
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
        memset(sum_out, 0, (size_t)ch * (sum64 ? 8 : 4));
        if (sq)
            memset(sq_out, 0, (size_t)ch * 8);
        const void *up = sum_up + (size_t)ch * (sum64 ? 8 : 4);
        void *out = sum_out + (size_t)ch * (sum64 ? 8 : 4);

        uint32x4_t carry = vdupq_n_u32(0), carry_sq = vdupq_n_u32(0);
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
    const int sum64 = sum->type == CLIK_U64, sq = sqsum != NULL;
    const size_t row0 = (size_t)sum->width * (size_t)sum->channels;
    memset(sum->data, 0, row0 * (sum64 ? 8 : 4));
    if (sq)
        memset(sqsum->data, 0, row0 * 8);

    /* One constant-folded loop per (channels, sum type, sqsum) combination. */
    switch ((src->channels == 1 ? 0 : src->channels == 2 ? 4 : 8) + sum64 * 2 + sq) {
    case 0: integral_rows(src, sum, sqsum, 1, 0, 0); break;
    case 1: integral_rows(src, sum, sqsum, 1, 0, 1); break;
    case 2: integral_rows(src, sum, sqsum, 1, 1, 0); break;
    case 3: integral_rows(src, sum, sqsum, 1, 1, 1); break;
    case 4: integral_rows(src, sum, sqsum, 2, 0, 0); break;
    case 5: integral_rows(src, sum, sqsum, 2, 0, 1); break;
    case 6: integral_rows(src, sum, sqsum, 2, 1, 0); break;
    case 7: integral_rows(src, sum, sqsum, 2, 1, 1); break;
    case 8: integral_rows(src, sum, sqsum, 4, 0, 0); break;
    case 9: integral_rows(src, sum, sqsum, 4, 0, 1); break;
    case 10: integral_rows(src, sum, sqsum, 4, 1, 0); break;
    default: integral_rows(src, sum, sqsum, 4, 1, 1); break;
    }
}

void clik__integral_dsp_init_neon(clik_integral_dsp *dsp)
{
    dsp->integral = integral_neon;
}

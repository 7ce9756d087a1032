/*
 * CPU implementations: one function table per operation family. The scalar
 * entries are filled first and are the correctness oracle; NEON entries
 * replace them where the build has NEON (natively on Arm, through SIMDe on
 * x86). SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_CPU_H
#define CLIK_CPU_H

#include <stddef.h>
#include <stdint.h>

typedef struct clik_hist_dsp {
    /* Adds the counts of every channel of a u8 image to hist[c * 256 + v]. */
    void (*hist)(const uint8_t *src, size_t stride, int width, int height, int channels,
                 uint32_t *hist);
    /* dst = tables[c * 256 + src] for channel c when per_channel, else
     * tables[src]. src and dst may be the same memory. */
    void (*lut)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width,
                int height, int channels, const uint8_t *tables, int per_channel);
} clik_hist_dsp;

/* Every family's table. */
typedef struct clik_cpu_dsp {
    clik_hist_dsp hist;
} clik_cpu_dsp;

/* 1 when this build has the NEON path (natively or through SIMDe). */
int clik_cpu_have_neon(void);
/* 1 when the NEON path runs as native NEON: only then is it the default. */
int clik_cpu_neon_native(void);
/* Fills dsp with the scalar entries, then the NEON ones when neon is set. */
void clik_cpu_dsp_init(clik_cpu_dsp *dsp, int neon);

void clik_hist_dsp_init_scalar(clik_hist_dsp *dsp);
void clik_hist_dsp_init_neon(clik_hist_dsp *dsp);

#endif

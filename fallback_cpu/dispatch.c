/* Chooses between the scalar and the NEON entries. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

int clik_cpu_have_neon(void)
{
#ifdef CLIK_HAVE_NEON
    return 1; /* AArch64 always has Advanced SIMD; x86 builds use SIMDe */
#else
    return 0;
#endif
}

int clik_cpu_neon_native(void)
{
#if defined(CLIK_HAVE_NEON) && defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

void clik_cpu_dsp_init(clik_cpu_dsp *dsp, int neon)
{
    clik_hist_dsp_init_scalar(&dsp->hist);
    clik_pyramid_dsp_init_scalar(&dsp->pyramid);
    clik_integral_dsp_init_scalar(&dsp->integral);
    clik_resize_dsp_init_scalar(&dsp->resize);
    clik_filter_dsp_init_scalar(&dsp->filter);
    clik_ssim_dsp_init_scalar(&dsp->ssim);
    clik_fusion_dsp_init_scalar(&dsp->fusion);
#ifdef CLIK_HAVE_NEON
    if (neon) {
        clik_hist_dsp_init_neon(&dsp->hist);
        clik_pyramid_dsp_init_neon(&dsp->pyramid);
        clik_integral_dsp_init_neon(&dsp->integral);
        clik_resize_dsp_init_neon(&dsp->resize);
        clik_filter_dsp_init_neon(&dsp->filter);
        clik_ssim_dsp_init_neon(&dsp->ssim);
        clik_fusion_dsp_init_neon(&dsp->fusion);
    }
#else
    (void)neon;
#endif
}

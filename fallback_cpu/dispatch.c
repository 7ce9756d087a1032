/* Chooses between the scalar and the NEON entries. SPDX-License-Identifier: BSD-2-Clause */
#include "cpu.h"

int clik__cpu_have_neon(void)
{
#ifdef CLIK_HAVE_NEON
    return 1; /* AArch64 always has Advanced SIMD; x86 builds use SIMDe */
#else
    return 0;
#endif
}

void clik__cpu_dsp_init(clik_cpu_dsp *dsp, int neon)
{
    clik__hist_dsp_init_scalar(&dsp->hist);
    clik__pyramid_dsp_init_scalar(&dsp->pyramid);
    clik__integral_dsp_init_scalar(&dsp->integral);
    clik__resize_dsp_init_scalar(&dsp->resize);
    clik__filter_dsp_init_scalar(&dsp->filter);
    clik__ssim_dsp_init_scalar(&dsp->ssim);
    clik__fusion_dsp_init_scalar(&dsp->fusion);
    clik__flow_dsp_init_scalar(&dsp->flow);
    clik__lapar_dsp_init_scalar(&dsp->lapar);
    clik__lapar_model_dsp_init_scalar(&dsp->lapar_model);
    clik__lapar_net_dsp_init_scalar(&dsp->lapar_net);
    clik__yuv_dsp_init_scalar(&dsp->yuv);
#ifdef CLIK_HAVE_NEON
    if (neon) {
        clik__hist_dsp_init_neon(&dsp->hist);
        clik__pyramid_dsp_init_neon(&dsp->pyramid);
        clik__integral_dsp_init_neon(&dsp->integral);
        clik__resize_dsp_init_neon(&dsp->resize);
        clik__filter_dsp_init_neon(&dsp->filter);
        clik__ssim_dsp_init_neon(&dsp->ssim);
        clik__fusion_dsp_init_neon(&dsp->fusion);
        clik__flow_dsp_init_neon(&dsp->flow);
        clik__lapar_dsp_init_neon(&dsp->lapar);
        clik__lapar_model_dsp_init_neon(&dsp->lapar_model);
        clik__lapar_net_dsp_init_neon(&dsp->lapar_net);
        clik__yuv_dsp_init_neon(&dsp->yuv);
    }
#else
    (void)neon;
#endif
}

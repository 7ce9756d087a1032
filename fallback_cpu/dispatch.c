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

int clik__cpu_neon_native(void)
{
#if defined(CLIK_HAVE_NEON) && defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

#ifdef CLIK_HAVE_NEON
/* The scalar table lookup of the histogram family in bands of rows (each
 * element is looked up alone: any split gives the same bytes). */
static int lut_rows(void *user, int y0, int y1)
{
    const clik_lut_job *j = user;
    clik_hist_dsp scalar;
    clik__hist_dsp_init_scalar(&scalar);
    scalar.lut(j->src + (size_t)y0 * j->src_stride, j->src_stride,
               j->dst + (size_t)y0 * j->dst_stride, j->dst_stride, j->width, y1 - y0, j->channels,
               j->tables, j->per_channel);
    return 0;
}

static void lut_scalar_bands(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                             int width, int height, int channels, const uint8_t *tables,
                             int per_channel)
{
    clik_lut_job j = {src, src_stride, dst, dst_stride, width, channels, tables, per_channel};
    clik__cpu_rows(height, (size_t)width * (size_t)channels, lut_rows, &j);
}
#endif

void clik__cpu_dsp_init(clik_cpu_dsp *dsp, int neon, int fastest)
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
    /* Through SIMDe, the NEON table lookup (TBL, emulated) costs 2 to 3
     * times the scalar code's CPU time (1920 x 1080 and 3840 x 2160 grey,
     * 2 AVX-512 cores): the fastest path keeps the scalar lookup, in bands. */
    if (neon && fastest && !clik__cpu_neon_native()) {
        dsp->hist.lut = lut_scalar_bands;
    }
#else
    (void)neon;
    (void)fastest;
#endif
}

/*
 * Pyramid family, scalar: the correctness oracle, written straight from the
 * definitions of OpenCV's pyrDown and pyrUp.
 *
 * Both use the 5-tap binomial w = {1, 4, 6, 4, 1} in x and in y and reflect
 * borders without repeating the edge pixel (reflect-101). u8 sums are exact
 * integers. f32 sums are rounded, so their order is part of the definition
 * (the NEON code and kernels/pyramid.cl follow it to give the same bits):
 *
 *   v_i = sum over j ascending of w[j] * in(col_i, row_j)   (vertical first)
 *   out = (sum over i ascending of w[i] * v_i) / scale       (then horizontal)
 *
 * with every product rounded before it is added: no fused multiply-add
 * (kernels/common.h turns contraction off too). The pragma below holds GCC
 * to that whatever the C dialect, and each product here is a statement of
 * its own because clang contracts within one expression. For pyrUp the terms that meet the inserted
 * zeros are left out rather than added as 0: they add nothing, and leaving them out keeps a -0.0
 * input -0.0. A sum starts at -0.0f, the one value that leaves every first term unchanged (0.0f
 * would turn -0.0 into +0.0).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "common.h"

/* The f32 sums round every product on its own, which the project's ISO C
 * build gives by default; this keeps it so in a GNU C dialect or with
 * -ffp-contract=fast, where GCC would fuse a * b + c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static const int taps[5] = {1, 4, 6, 4, 1};

/* Element c of pixel (x, y) of img stored from v (u8 rounded to nearest,
 * halves up, and saturated); load() (common.h) reads one. */
static void set_element(clik_image *img, int x, int y, int c, double v)
{
    char *row = (char *)img->data + (size_t)y * img->stride;
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case CLIK_U8: ((uint8_t *)row)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5); break;
    case CLIK_S16: ((int16_t *)row)[i] = (int16_t)v; break;
    default: ((float *)row)[i] = (float)v; break;
    }
}

/*
 * pyrDown samples the source at 2 o + i - 2 for tap i of output index o.
 * pyrUp spreads the source onto a grid U of twice its size with zeros
 * between (U(2x, 2y) = src(x, y)) and filters U with 4 times the kernel of
 * pyrDown (sum / 64 instead of sum / 256), tap i of output index o at
 * o + i - 2. Reflect-101 on the even length 2n keeps the parity of an
 * index, so such a tap lands on a source pixel exactly when its reflected
 * index is even; tap_source() tells, and gives the source index (of a side
 * of n pixels).
 */
static int tap_source(int up, int o, int i, int n, int *s)
{
    if (!up) {
        *s = clik__reflect101(2 * o + i - 2, n);
        return 1;
    }
    const int r = clik__reflect101(o + i - 2, 2 * n);
    *s = r / 2;
    return (r & 1) == 0;
}

/*
 * pyrDown (up 0) or pyrUp of src into dst, u8 and f32 alike: every partial
 * sum of u8 values is an integer below 2^24, exact in float, and the sum
 * divided by the scale (a power of 2) is exact too, so set_element's
 * rounding of a u8 output is the integer (sum + scale / 2) / scale.
 */
static void filter(const clik_image *src, clik_image *dst, int up)
{
    const float scale = up ? 64.0f : 256.0f;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < src->channels; c++) {
                float h = -0.0f;
                for (int i = 0; i < 5; i++) {
                    int sx;
                    if (!tap_source(up, x, i, src->width, &sx))
                        continue;
                    float v = -0.0f;
                    for (int j = 0; j < 5; j++) {
                        int sy;
                        if (!tap_source(up, y, j, src->height, &sy))
                            continue;
                        float p = (float)taps[j] * (float)load(src, sx, sy, c);
                        v += p;
                    }
                    float q = (float)taps[i] * v;
                    h += q;
                }
                set_element(dst, x, y, c, h / scale);
            }
}

void clik__pyramid_down_scalar(const clik_image *src, clik_image *dst)
{
    if (src->type == CLIK_U8 || src->type == CLIK_F32)
        filter(src, dst, 0);
}

void clik__pyramid_up_scalar(const clik_image *src, clik_image *dst)
{
    if (src->type == CLIK_U8 || src->type == CLIK_F32)
        filter(src, dst, 1);
}

/* The Laplacian's element arithmetic (cpu.h). */
void clik__pyramid_combine_scalar(const clik_image *a, const clik_image *b, int sign,
                                  clik_image *out)
{
    int float_math = out->type == CLIK_F32 && (a->type == CLIK_F32 && b->type == CLIK_F32);
    for (int y = 0; y < out->height; y++)
        for (int x = 0; x < out->width; x++)
            for (int c = 0; c < out->channels; c++) {
                double v = load(a, x, y, c);
                if (sign != 0 && float_math) {
                    float fa = (float)v, fb = (float)load(b, x, y, c);
                    v = sign > 0 ? fa + fb : fa - fb;
                } else if (sign != 0) {
                    v += sign * load(b, x, y, c);
                }
                set_element(out, x, y, c, v);
            }
}

void clik__pyramid_dsp_init_scalar(clik_pyramid_dsp *dsp)
{
    dsp->down = clik__pyramid_down_scalar;
    dsp->up = clik__pyramid_up_scalar;
    dsp->combine = clik__pyramid_combine_scalar;
}

/*
 * A LAPAR network with a compressed dictionary (Zhao et al. 2021, section III-A):
 * the selection of clik_lapar_compress folded into the network's last
 * convolution, which is linear (no activation after it), so that the
 * network emits the k kept planes and its dictionary is the k kept atoms.
 *
 * Built as a model file (lib/ops/lapar_net_file.c): the network written
 * with binary32 weights, everything before the last convolution kept as it
 * is, the last convolution (L <- nf, 3) and the L atoms replaced by the k
 * folded planes and the k kept atoms, the header's atom count and length
 * and the checksum made anew; then read back, so that the new network is
 * checked and folded as any file is.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_net.h"

#define FN         "clik_lapar_net_compress"
#define TAPS       CLIK_LAPAR_TAPS
#define AT_LENGTH  12 /* header fields of the file format */
#define AT_ATOMS   32
#define AT_NAME    40
#define NAME_BYTES 24

static int all_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static clik_status check_selection(clik_context *ctx, const clik_lapar_net *net,
                                   const clik_lapar_selection *sel, const float *mix)
{
    const int L = net->info.atoms;
    if (sel->atoms != L)
        return clik__fail(ctx, CLIK_ERR_SIZE_MISMATCH,
                          FN ": the selection is for %d atoms, the network has %d", sel->atoms, L);
    if (sel->kept < 1 || sel->kept > L)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE, FN ": the selection keeps %d of %d atoms",
                          sel->kept, L);
    for (int i = 0; i < sel->kept; i++)
        if (sel->index[i] < 0 || sel->index[i] >= L ||
            (i > 0 && sel->index[i] <= sel->index[i - 1]))
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              FN ": selection index %d (%d) is not increasing within 0..%d", i,
                              sel->index[i], L - 1);
    if (mix && !all_finite(mix, (size_t)sel->kept * (size_t)L))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          FN ": the re-fit matrix has non-finite values");
    if (!mix && !all_finite(sel->gamma, (size_t)sel->kept))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, FN ": the selection has non-finite weights");
    return CLIK_OK;
}

/* Output plane i of the folded last convolution: its nf x 3 x 3 weights
 * and then its bias into out (binary32, little-endian). 0, or -1 when a
 * value overflows binary32. */
static int fold_plane(const net_raw_conv *last, const clik_lapar_selection *sel, const float *mix,
                      int i, uint8_t *w_out, uint8_t *b_out)
{
    const int L = last->cout;
    const size_t per = (size_t)last->cin * (size_t)last->k * (size_t)last->k;
    for (size_t j = 0; j <= per; j++) {
        /* j == per: the bias */
        double s = 0.0;
        if (mix) {
            for (int l = 0; l < L; l++)
                s += (double)mix[(size_t)i * (size_t)L + (size_t)l] *
                     (j < per ? last->w[(size_t)l * per + j] : last->b[l]);
        } else {
            const int l = sel->index[i];
            s = (double)sel->gamma[i] * (j < per ? last->w[(size_t)l * per + j] : last->b[l]);
        }
        const float f = (float)s;
        if (!isfinite(f))
            return -1;
        clik__put_f32(j < per ? w_out + 4 * j : b_out, f);
    }
    return 0;
}

clik_status clik_lapar_net_compress(clik_context *ctx, const clik_lapar_net *net,
                                    const clik_lapar_selection *sel, const float *mix,
                                    clik_lapar_net **out)
{
    if (!net || !sel || !out)
        return clik__fail(ctx, CLIK_ERR_NULL, FN ": %s is NULL",
                          !net ? "net" : (!sel ? "sel" : "out"));
    clik_status st = check_selection(ctx, net, sel, mix);
    if (st != CLIK_OK)
        return st;
    const net_raw_conv *last = &net->raw[net->nraw - 1];
    const int L = net->info.atoms, k = sel->kept;
    const size_t per = (size_t)last->cin * (size_t)last->k * (size_t)last->k;
    /* The file ends with the last convolution, the atoms and the checksum. */
    const size_t old_tail = ((size_t)L * (per + 1 + TAPS)) * 4 + 4;
    const size_t new_tail = ((size_t)k * (per + 1 + TAPS)) * 4 + 4;
    size_t size = 0;
    st = clik_lapar_net_write(ctx, net, CLIK_F32, NULL, 0, &size);
    if (st != CLIK_OK)
        return st;
    const size_t prefix = size - old_tail, new_size = prefix + new_tail;
    uint8_t *old = malloc(size), *b = malloc(new_size);
    if (!old || !b) {
        free(old);
        free(b);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, FN ": out of memory");
    }
    st = clik_lapar_net_write(ctx, net, CLIK_F32, old, size, &size);
    if (st == CLIK_OK) {
        memcpy(b, old, prefix);
        uint8_t *w = b + prefix, *bias = w + (size_t)k * per * 4, *atoms = bias + (size_t)k * 4;
        for (int i = 0; i < k && st == CLIK_OK; i++) {
            if (fold_plane(last, sel, mix, i, w + (size_t)i * per * 4, bias + (size_t)i * 4) != 0)
                st = clik__fail(ctx, CLIK_ERR_OVERFLOW,
                                FN ": plane %d of the folded last convolution overflows binary32",
                                i);
            for (int t = 0; t < TAPS; t++)
                clik__put_f32(atoms + ((size_t)i * TAPS + t) * 4,
                              net->atoms[(size_t)sel->index[i] * TAPS + (size_t)t]);
        }
    }
    if (st == CLIK_OK) {
        clik__put_u32(b + AT_LENGTH, (uint32_t)new_size);
        clik__put_u32(b + AT_ATOMS, (uint32_t)k);
        /* The name says how many atoms are kept, where there is room. */
        char name[NAME_BYTES + 16];
        const int n = snprintf(name, sizeof(name), "%s k%d", net->info.name, k);
        if (k != L && n > 0 && n < NAME_BYTES) {
            memset(b + AT_NAME, 0, NAME_BYTES);
            memcpy(b + AT_NAME, name, (size_t)n);
        }
        clik__put_u32(b + new_size - 4, clik__crc32(b, new_size - 4));
        clik_lapar_net *made = NULL;
        st = clik_lapar_net_read(ctx, b, new_size, &made);
        if (st == CLIK_OK)
            *out = made;
    }
    free(old);
    free(b);
    return st;
}

/*
 * Conformance cases of the LAPAR network family: clik_lapar_net_run's phi
 * and output, on a small network with seeded random weights written in the
 * model file format here (so that the cases need no released weights), and
 * on the released LAPAR-C x2 (crops of 12 x 12) when the library holds it.
 *
 * Tolerances. Each layer sums up to 9 nf (5 x 5 tail: 25 nf) products in
 * float on the devices and NEON, in double in the oracle; the network
 * chains 2 + B (2 U + 1) + 3 such layers, each adding a relative error of a
 * few ulp of its largest partial sum, and the released networks' phi lies
 * within +-1.3: measured differences stay below 2e-6 (LAPAR-C) -- F32
 * (1e-4 max(1, |b|)) for phi holds with a margin of 50. The outputs are the
 * LAPAR filter of that phi: U8-FLOAT for u8 (a sum within 1e-4 of a
 * rounding tie may round the other way), F32 for f32 on 0..255 divided by
 * 255 (the network's own scale).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define CROP          24
#define CROP_RELEASED 12 /* LAPAR-C: 150 k multiply-adds per input pixel */

/* ---- a synthetic network in the model file format ---------------------------------- */

static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-a, a]. */
static float uniform(uint64_t *s, double a)
{
    return (float)(((double)(next_random(s) >> 11) / 9007199254740992.0 * 2.0 - 1.0) * a);
}

typedef struct out_bytes {
    uint8_t *p;
    size_t n;
} out_bytes;

static void put32(out_bytes *o, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        o->p[o->n++] = (uint8_t)(v >> (8 * i));
}

static void put_float(out_bytes *o, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    put32(o, u);
}

/* A convolution of He-like random weights, so activations keep their scale. */
static void put_conv(out_bytes *o, uint64_t *s, int cout, int cin, int k)
{
    const double a = sqrt(3.0 / (double)(cin * k * k));
    for (long i = 0; i < (long)cout * cin * k * k; i++)
        put_float(o, uniform(s, a));
    for (int i = 0; i < cout; i++)
        put_float(o, uniform(s, 0.05));
}

uint32_t sup_crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1u ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

uint8_t *sup_test_net_bytes(const sup_test_net_shape *shape, uint64_t seed, size_t *size)
{
    const int nf = shape->features, B = shape->blocks, U = shape->units, L = shape->atoms,
              s = shape->scale;
    size_t weights = (size_t)nf * 27 + (size_t)B * ((size_t)U * 2 + (size_t)U) * nf * nf * 9 +
                     (size_t)nf * nf * 9 * ((size_t)s * s + 2) + (size_t)nf * nf * 25 +
                     (size_t)L * nf * 9;
    size_t floats = 3 + (size_t)nf * (4 + (size_t)s * s) +
                    (size_t)B * ((size_t)U * (2 * nf + 2) + (size_t)nf + 2) + 2 + (size_t)L +
                    (size_t)L * 25 + (size_t)nf;
    const size_t cap = 64 + 4 * (weights + floats) + 4;
    out_bytes o = {calloc(1, cap), 0};
    if (!o.p)
        return NULL;
    memcpy(o.p, "CLIKLPN", 8);
    o.n = 8;
    put32(&o, 1);
    put32(&o, 0); /* the length, below */
    const uint32_t f[6] = {(uint32_t)s, (uint32_t)nf, (uint32_t)B, (uint32_t)U, (uint32_t)L, 0};
    for (int i = 0; i < 6; i++)
        put32(&o, f[i]);
    memcpy(o.p + 40, "test net", 8);
    o.n = 64;
    uint64_t st = seed;
    put_float(&o, 0.4488f);
    put_float(&o, 0.4371f);
    put_float(&o, 0.4040f);
    put_conv(&o, &st, nf, 3, 3);
    for (int b = 0; b < B; b++) {
        for (int u = 0; u < U; u++) {
            put_conv(&o, &st, nf, nf, 3);
            put_conv(&o, &st, nf, nf, 3);
            put_float(&o, 1.0f + uniform(&st, 0.5));
            put_float(&o, 1.0f + uniform(&st, 0.5));
        }
        put_conv(&o, &st, nf, U * nf, 3);
        put_float(&o, 1.0f + uniform(&st, 0.5));
        put_float(&o, 0.5f + uniform(&st, 0.3));
    }
    put_conv(&o, &st, nf * s * s, nf, 3);
    put_conv(&o, &st, nf, nf, 3);
    put_conv(&o, &st, nf, nf, 5);
    put_float(&o, 0.4f);
    put_float(&o, 0.6f);
    put_conv(&o, &st, nf, nf, 3);
    put_conv(&o, &st, L, nf, 3);
    float atoms[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
    clik_lapar_dict_default(atoms);
    for (int l = 0; l < L; l++)
        for (int t = 0; t < CLIK_LAPAR_TAPS; t++)
            put_float(&o, atoms[(l % CLIK_LAPAR_ATOMS) * CLIK_LAPAR_TAPS + t]);
    const size_t length = o.n + 4;
    for (int i = 0; i < 4; i++)
        o.p[12 + i] = (uint8_t)(length >> (8 * i));
    put32(&o, sup_crc32(o.p, o.n));
    *size = o.n;
    return o.p;
}

/* ---- the cases ------------------------------------------------------------------------ */

static const sup_test_net_shape small_shape = {2, 8, 1, 2, 72};

clik_status sup_case_small_net(clik_lapar_net **net)
{
    size_t n;
    uint8_t *bytes = sup_test_net_bytes(&small_shape, 7, &n);
    if (!bytes)
        return CLIK_ERR_NO_MEMORY;
    clik_status st = clik_lapar_net_read(NULL, bytes, n, net);
    free(bytes);
    return st;
}

/* The network a case runs: the small one, or LAPAR-C x2 (held for the
 * process: built-in networks are never freed). */
static clik_status case_net(int released, clik_lapar_net **net)
{
    return released ? clik_lapar_net_builtin(NULL, "lapar-c", 2, net) : sup_case_small_net(net);
}

/* in cropped to side x side; an input under the network's 2 x 2 is
 * widened to it by repeating its last column and row (into *grown, which
 * the caller frees). */
static clik_status crop(const clik_image *in, int side, clik_image *grown, clik_image *c)
{
    *c = sup_case_crop(in, side, side);
    if (c->width >= 2 && c->height >= 2)
        return CLIK_OK;
    const int w = c->width < 2 ? 2 : c->width, h = c->height < 2 ? 2 : c->height;
    const size_t px = (size_t)in->channels * clik_type_size(in->type);
    clik_status st = clik_image_alloc(grown, w, h, in->channels, in->type);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int sx = x < c->width ? x : c->width - 1, sy = y < c->height ? y : c->height - 1;
            memcpy((char *)grown->data + (size_t)y * grown->stride + (size_t)x * px,
                   (const char *)in->data + (size_t)sy * in->stride + (size_t)sx * px, px);
        }
    grown->order = in->order;
    *c = *grown;
    c->owned = 0;
    return CLIK_OK;
}

static clik_status run_phi(clik_context *ctx, const clik_image *in, clik_image *out)
{
    clik_image grown = {0}, src;
    clik_lapar_net *net = NULL;
    clik_status st = crop(in, CROP, &grown, &src);
    if (st == CLIK_OK)
        st = case_net(0, &net);
    if (st == CLIK_OK)
        st = sup_case_output(out, src.width * 2, src.height * 2 * small_shape.atoms, 1, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_lapar_net_run(ctx, net, &src, NULL, out);
    clik_lapar_net_free(net);
    clik_image_free(&grown);
    return st;
}

static clik_status run_upscale(clik_context *ctx, const clik_image *in, int released,
                               clik_image *out)
{
    clik_image grown = {0}, src;
    clik_lapar_net *net = NULL;
    clik_status st = crop(in, released ? CROP_RELEASED : CROP, &grown, &src);
    if (st == CLIK_OK)
        st = case_net(released && clik_lapar_net_builtin_available("lapar-c", 2), &net);
    if (st == CLIK_OK)
        st = src.type == CLIK_F32
                 ? sup_case_host_output(out, src.width * 2, src.height * 2, src.channels, src.type)
                 : sup_case_output(out, src.width * 2, src.height * 2, src.channels, src.type);
    if (st == CLIK_OK)
        st = clik_lapar_net_run(ctx, net, &src, out, NULL);
    clik_lapar_net_free(net);
    clik_image_free(&grown);
    if (st == CLIK_OK && src.type == CLIK_F32)
        for (int y = 0; y < out->height; y++) {
            float *row = (float *)(void *)((char *)out->data + (size_t)y * out->stride);
            for (int x = 0; x < out->width * out->channels; x++)
                row[x] /= 255.0f;
        }
    return st;
}

SUP_CASE_RUN(upscale_small, run_upscale(ctx, in, 0, out))
SUP_CASE_RUN(upscale_released, run_upscale(ctx, in, 1, out))

/* The same input read as BGR(A): the network reads red first. */
SUP_CASE_RUN(phi_bgr, sup_case_bgr(ctx, in, out, run_phi))

/* Grey and RGBA; 3 channels (through 4-channel copies) on two cases. */
#define NET_CASE(name, tol, channels, type, fn)                                                    \
    {                                                                                              \
        "lapar_net", name, tol, channels, type, fn                                                 \
    }

const sup_case sup_cases_lapar_net[] = {
    NET_CASE("lapar_net_run-phi", SUP_TOL_F32, SUP_CH14, CLIK_U8, run_phi),
    NET_CASE("lapar_net_run-phi-bgr", SUP_TOL_F32, SUP_CH34, CLIK_U8, phi_bgr),
    NET_CASE("lapar_net_run-x2", SUP_TOL_U8_FLOAT, SUP_CH134, CLIK_U8, upscale_small),
    NET_CASE("lapar_net_run-x2-f32", SUP_TOL_F32, SUP_CH14, CLIK_F32, upscale_small),
    NET_CASE("lapar_net_run-c-x2", SUP_TOL_U8_FLOAT, SUP_CH14, CLIK_U8, upscale_released),
};
const int sup_cases_lapar_net_count =
    (int)(sizeof(sup_cases_lapar_net) / sizeof(sup_cases_lapar_net[0]));

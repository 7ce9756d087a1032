/*
 * The LAPAR network model file (.clikn), its reader and writer, and the
 * networks built into the library.
 *
 * File format, version 1 (integers little-endian u32, floats IEEE binary32
 * little-endian, half floats IEEE binary16 little-endian):
 *   0   "CLIKLPN\0"   magic, 8 bytes
 *   8   version       1
 *   12  length        bytes of the whole file, checksum included
 *   16  scale         2, 3 or 4
 *   20  features      nf, 1..CLIK_LAPAR_NET_MAX_FEATURES
 *   24  blocks        local fusion blocks, 1..CLIK_LAPAR_NET_MAX_BLOCKS
 *   28  units         residual units per block, 1..CLIK_LAPAR_NET_MAX_UNITS
 *   32  atoms         planes of phi and atoms of the dictionary, 1..CLIK_LAPAR_MAX_ATOMS
 *   36  weights       0: convolution weights in binary32, 1: in binary16
 *   40  name          24 bytes of printable ASCII, NUL-padded, at least one NUL
 *   64  payload       the tensors below, in this order
 *   length - 4        CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of
 *                     every byte before it
 * A convolution "o <- i, k" is o x i x k x k weights (PyTorch's order:
 * output, input, row, column) in the weights' type, then o biases in
 * binary32. Scalars and vectors are binary32. With s the scale, nf the
 * features, B blocks, U units and L atoms:
 *   the input mean (3); the head (nf <- 3, 3);
 *   per block: per unit: conv1 (nf <- nf, 3), conv2 (nf <- nf, 3), the
 *     unit's residual and input scales (2); the reduction (nf <- U nf, 3),
 *     the block's residual and input scales (2);
 *   up (nf s^2 <- nf, 3); tail k3 (nf <- nf, 3); tail k5 (nf <- nf, 5);
 *   the tail's scales of k3 and k5 (2); fuse (nf <- nf, 3);
 *   the last convolution (L <- nf, 3); the atoms (L x 25, row-major 5 x 5).
 * The header fixes every size: a file of any other length is refused
 * before anything is allocated, as are non-finite values. The layers and
 * what the network computes with them: lib/ops/lapar_net.c.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_net.h"

#define MAGIC      "CLIKLPN"
#define VERSION    1
#define HEADER     64
#define NAME_BYTES 24
#define TAPS       CLIK_LAPAR_TAPS
#define NET_LAYERS (1 + 5) /* head, then up, tail k3, tail k5, fuse, last */

/* ---- the layout a header implies ------------------------------------------------ */

typedef struct net_shape {
    int scale, nf, blocks, units, atoms, f16;
} net_shape;

/* Counts of one convolution: weights and biases. */
static void conv_count(int cout, int cin, int k, size_t *weights, size_t *floats)
{
    *weights += (size_t)cout * (size_t)cin * (size_t)k * (size_t)k;
    *floats += (size_t)cout;
}

/* Weights (in the file's weight type) and binary32 values of a shape; the
 * sizes are bounded by the header's ranges, far from overflowing. */
static void shape_counts(const net_shape *s, size_t *weights, size_t *floats)
{
    *weights = 0;
    *floats = 3;
    conv_count(s->nf, 3, 3, weights, floats);
    for (int b = 0; b < s->blocks; b++) {
        for (int u = 0; u < s->units; u++) {
            conv_count(s->nf, s->nf, 3, weights, floats);
            conv_count(s->nf, s->nf, 3, weights, floats);
            *floats += 2;
        }
        conv_count(s->nf, s->units * s->nf, 3, weights, floats);
        *floats += 2;
    }
    conv_count(s->nf * s->scale * s->scale, s->nf, 3, weights, floats);
    conv_count(s->nf, s->nf, 3, weights, floats);
    conv_count(s->nf, s->nf, 5, weights, floats);
    *floats += 2;
    conv_count(s->nf, s->nf, 3, weights, floats);
    conv_count(s->atoms, s->nf, 3, weights, floats);
    *floats += (size_t)s->atoms * TAPS;
}

static size_t file_length(const net_shape *s)
{
    size_t weights, floats;
    shape_counts(s, &weights, &floats);
    return HEADER + weights * (s->f16 ? 2 : 4) + floats * 4 + 4;
}

/* ---- reading ----------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t pos;
    int f16;
    float *out; /* the network's params, filled in file order */
    size_t n;
    char *err;
    size_t errlen;
} reader;

static clik_status bad(char *err, size_t errlen, const char *fmt, ...) CLIK_PRINTF(3, 4);
static clik_status bad(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char text[300];
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "LAPAR network: %s", text);
    return CLIK_ERR_FILE_FORMAT;
}

/* count values of the given width (2: binary16, 4: binary32) into params. */
static const float *take(reader *r, size_t count, int half)
{
    float *dst = r->out + r->n;
    for (size_t i = 0; i < count; i++) {
        if (half) {
            const uint8_t *q = r->p + r->pos;
            dst[i] = clik__half_to_float((uint16_t)(q[0] | q[1] << 8));
            r->pos += 2;
        } else {
            dst[i] = clik__get_f32(r->p + r->pos);
            r->pos += 4;
        }
    }
    r->n += count;
    return dst;
}

static void take_conv(reader *r, net_raw_conv *c, int cout, int cin, int k)
{
    c->cout = cout;
    c->cin = cin;
    c->k = k;
    c->w = take(r, (size_t)cout * (size_t)cin * (size_t)k * (size_t)k, r->f16);
    c->b = take(r, (size_t)cout, 0);
}

static clik_status check_header(const uint8_t *p, size_t size, net_shape *s, char *err,
                                size_t errlen)
{
    if (size < HEADER + 4 || memcmp(p, MAGIC, 8) != 0)
        return bad(err, errlen, "not a clik network file (no \"" MAGIC "\" magic; %zu bytes)",
                   size);
    const uint32_t version = clik__get_u32(p + 8), length = clik__get_u32(p + 12);
    if (version != VERSION)
        return bad(err, errlen, "version %u; this library reads version %d", version, VERSION);
    if (length != size)
        return bad(err, errlen, "the header says %u bytes, the file has %zu (truncated?)", length,
                   size);
    const uint32_t stored = clik__get_u32(p + size - 4), computed = clik__crc32(p, size - 4);
    if (stored != computed)
        return bad(err, errlen, "checksum %08x does not match the content (%08x): corrupt", stored,
                   computed);
    const uint32_t f[6] = {clik__get_u32(p + 16), clik__get_u32(p + 20), clik__get_u32(p + 24),
                           clik__get_u32(p + 28), clik__get_u32(p + 32), clik__get_u32(p + 36)};
    if (f[0] < 2 || f[0] > 4)
        return bad(err, errlen, "scale %u is not 2, 3 or 4", f[0]);
    if (f[1] < 1 || f[1] > CLIK_LAPAR_NET_MAX_FEATURES)
        return bad(err, errlen, "%u features (1..%d)", f[1], CLIK_LAPAR_NET_MAX_FEATURES);
    if (f[2] < 1 || f[2] > CLIK_LAPAR_NET_MAX_BLOCKS)
        return bad(err, errlen, "%u blocks (1..%d)", f[2], CLIK_LAPAR_NET_MAX_BLOCKS);
    if (f[3] < 1 || f[3] > CLIK_LAPAR_NET_MAX_UNITS)
        return bad(err, errlen, "%u units per block (1..%d)", f[3], CLIK_LAPAR_NET_MAX_UNITS);
    if (f[4] < 1 || f[4] > CLIK_LAPAR_MAX_ATOMS)
        return bad(err, errlen, "%u atoms (1..%d)", f[4], CLIK_LAPAR_MAX_ATOMS);
    if (f[5] > 1)
        return bad(err, errlen, "weight type %u (0: binary32, 1: binary16)", f[5]);
    const uint8_t *name = p + 40;
    int nul = 0;
    for (int i = 0; i < NAME_BYTES; i++) {
        if (name[i] == 0)
            nul = 1;
        else if (nul || name[i] < 32 || name[i] > 126)
            return bad(err, errlen, "the name is not NUL-padded printable ASCII");
    }
    if (!nul)
        return bad(err, errlen, "the name has no terminating NUL");
    for (int i = 64 - 40 - NAME_BYTES; i > 0; i--)
        if (p[64 - i] != 0)
            return bad(err, errlen, "reserved header bytes are not zero");
    *s = (net_shape){(int)f[0], (int)f[1], (int)f[2], (int)f[3], (int)f[4], (int)f[5]};
    const size_t want = file_length(s);
    if (want != size)
        return bad(err, errlen,
                   "a x%d network of %d features, %d blocks of %d units and %d atoms "
                   "(%s weights) takes %zu bytes, the file has %zu",
                   s->scale, s->nf, s->blocks, s->units, s->atoms, s->f16 ? "binary16" : "binary32",
                   want, size);
    return CLIK_OK;
}

void clik_lapar_net_free(clik_lapar_net *net)
{
    if (!net || net->builtin)
        return;
    free(net->params);
    free(net->raw);
    free(net->steps);
    free(net->folded);
    free(net);
}

static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;

static clik_status parse(const uint8_t *p, size_t size, clik_lapar_net **out, char *err,
                         size_t errlen)
{
    net_shape s = {0, 0, 0, 0, 0, 0};
    clik_status st = check_header(p, size, &s, err, errlen);
    if (st != CLIK_OK)
        return st;
    size_t weights, floats;
    shape_counts(&s, &weights, &floats);
    clik_lapar_net *net = calloc(1, sizeof(*net));
    const int nraw = NET_LAYERS + s.blocks * (2 * s.units + 1);
    if (net) {
        net->params = malloc((weights + floats) * sizeof(float));
        net->raw = calloc((size_t)nraw, sizeof(*net->raw));
    }
    if (!net || !net->params || !net->raw) {
        clik_lapar_net_free(net);
        snprintf(err, errlen, "LAPAR network: out of memory");
        return CLIK_ERR_NO_MEMORY;
    }
    reader r = {p, HEADER, s.f16, net->params, 0, err, errlen};
    net->nraw = nraw;
    net_raw_conv *c = net->raw;
    net->mean = take(&r, 3, 0);
    take_conv(&r, c++, s.nf, 3, 3);
    for (int b = 0; b < s.blocks; b++) {
        for (int u = 0; u < s.units; u++) {
            take_conv(&r, c++, s.nf, s.nf, 3);
            take_conv(&r, c, s.nf, s.nf, 3);
            (c++)->scale = take(&r, 2, 0);
        }
        take_conv(&r, c, s.nf, s.units * s.nf, 3);
        (c++)->scale = take(&r, 2, 0);
    }
    take_conv(&r, c++, s.nf * s.scale * s.scale, s.nf, 3);
    take_conv(&r, c++, s.nf, s.nf, 3);
    take_conv(&r, c, s.nf, s.nf, 5);
    (c++)->scale = take(&r, 2, 0);
    take_conv(&r, c++, s.nf, s.nf, 3);
    take_conv(&r, c++, s.atoms, s.nf, 3);
    net->atoms = take(&r, (size_t)s.atoms * TAPS, 0);
    net->nparams = r.n;
    st = CLIK_OK;
    for (size_t i = 0; i < r.n && st == CLIK_OK; i++)
        if (!isfinite(net->params[i]))
            st = bad(err, errlen, "parameter %zu of %zu is not finite", i, r.n);
    net->info.scale = s.scale;
    net->info.features = s.nf;
    net->info.blocks = s.blocks;
    net->info.units = s.units;
    net->info.atoms = s.atoms;
    net->info.weights = s.f16 ? CLIK_F16 : CLIK_F32;
    net->info.parameters = (long)r.n;
    memcpy(net->info.name, p + 40, NAME_BYTES);
    net->info.name[NAME_BYTES - 1] = 0;
    if (st == CLIK_OK) {
        static uint64_t serials;
        pthread_mutex_lock(&serial_lock);
        net->serial = ++serials;
        pthread_mutex_unlock(&serial_lock);
    }
    if (st == CLIK_OK && clik__lapar_net_fold(net) != 0) {
        snprintf(err, errlen, "LAPAR network: out of memory");
        st = CLIK_ERR_NO_MEMORY;
    }
    if (st != CLIK_OK) {
        clik_lapar_net_free(net);
        return st;
    }
    *out = net;
    return CLIK_OK;
}

clik_status clik_lapar_net_read(clik_context *ctx, const void *data, size_t size,
                                clik_lapar_net **net)
{
    if (!data || !net)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_net_read: %s is NULL",
                          !data ? "data" : "net");
    if (size > CLIK_LAPAR_NET_MAX_BYTES)
        return clik__fail(ctx, CLIK_ERR_FILE_FORMAT,
                          "clik_lapar_net_read: %zu bytes, a network file has at most %zu", size,
                          CLIK_LAPAR_NET_MAX_BYTES);
    char err[400];
    clik_status st = parse(data, size, net, err, sizeof(err));
    return st == CLIK_OK ? CLIK_OK : clik__fail(ctx, st, "clik_lapar_net_read: %s", err);
}

clik_status clik_lapar_net_load(clik_context *ctx, const char *path, clik_lapar_net **net)
{
    if (!path || !net)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_net_load: %s is NULL",
                          !path ? "path" : "net");
    char *data;
    size_t len;
    clik_status st = clik__read_file(path, &data, &len);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_lapar_net_load: cannot read %s: %s", path,
                          st == CLIK_ERR_NO_MEMORY ? "out of memory" : strerror(errno));
    char err[400];
    st = len > CLIK_LAPAR_NET_MAX_BYTES
             ? bad(err, sizeof(err), "%zu bytes, a network file has at most %zu", len,
                   CLIK_LAPAR_NET_MAX_BYTES)
             : parse((const uint8_t *)data, len, net, err, sizeof(err));
    free(data);
    return st == CLIK_OK ? CLIK_OK : clik__fail(ctx, st, "clik_lapar_net_load: %s: %s", path, err);
}

/* ---- writing ------------------------------------------------------------------------ */

typedef struct writer {
    uint8_t *p; /* NULL: count only */
    size_t pos;
    int f16;
} writer;

static void put_values(writer *w, const float *v, size_t n, int half)
{
    for (size_t i = 0; i < n; i++) {
        if (w->p && half) {
            const uint16_t h = clik__float_to_half(v[i]);
            w->p[w->pos] = (uint8_t)h;
            w->p[w->pos + 1] = (uint8_t)(h >> 8);
        } else if (w->p) {
            clik__put_f32(w->p + w->pos, v[i]);
        }
        w->pos += half ? 2 : 4;
    }
}

static void put_conv(writer *w, const net_raw_conv *c)
{
    put_values(w, c->w, (size_t)c->cout * (size_t)c->cin * (size_t)c->k * (size_t)c->k, w->f16);
    put_values(w, c->b, (size_t)c->cout, 0);
    if (c->scale)
        put_values(w, c->scale, 2, 0);
}

clik_status clik_lapar_net_write(clik_context *ctx, const clik_lapar_net *net, clik_type weights,
                                 void *buf, size_t cap, size_t *size)
{
    if (!net || !size)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_net_write: %s is NULL",
                          !net ? "net" : "size");
    if (weights != CLIK_F32 && weights != CLIK_F16)
        return clik__fail(ctx, CLIK_ERR_UNSUPPORTED_FORMAT,
                          "clik_lapar_net_write: weights are stored as f32 or f16, not %s",
                          clik_type_name(weights));
    const clik_lapar_net_info *in = &net->info;
    const net_shape s = {in->scale, in->features, in->blocks,
                         in->units, in->atoms,    weights == CLIK_F16};
    const size_t length = file_length(&s);
    *size = length;
    if (!buf)
        return CLIK_OK;
    if (cap < length)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_lapar_net_write: the file takes %zu bytes, the buffer has %zu",
                          length, cap);
    uint8_t *p = buf;
    memset(p, 0, HEADER);
    memcpy(p, MAGIC, 8);
    const uint32_t f[8] = {VERSION,           (uint32_t)length,   (uint32_t)s.scale,
                           (uint32_t)s.nf,    (uint32_t)s.blocks, (uint32_t)s.units,
                           (uint32_t)s.atoms, (uint32_t)s.f16};
    for (int i = 0; i < 8; i++)
        clik__put_u32(p + 8 + 4 * i, f[i]);
    memcpy(p + 40, in->name, strnlen(in->name, NAME_BYTES - 1));
    writer w = {p, HEADER, s.f16};
    put_values(&w, net->mean, 3, 0);
    for (int i = 0; i < net->nraw; i++)
        put_conv(&w, &net->raw[i]);
    put_values(&w, net->atoms, (size_t)s.atoms * TAPS, 0);
    clik__put_u32(p + w.pos, clik__crc32(p, w.pos));
    return CLIK_OK;
}

/* ---- the networks built into the library ------------------------------------------- */

static int builtin_index(const char *name, int scale)
{
    for (int i = 0; i < clik__lapar_net_blob_count; i++)
        if (clik__lapar_net_blobs[i].scale == scale &&
            clik__strcasestr(clik__lapar_net_blobs[i].name, name) &&
            strlen(clik__lapar_net_blobs[i].name) == strlen(name))
            return i;
    return -1;
}

int clik_lapar_net_builtin_available(const char *name, int scale)
{
    return name && builtin_index(name, scale) >= 0;
}

/* Each built-in network is parsed once, on its first use, and kept. */
static clik_lapar_net *builtin_cache[16];
static pthread_mutex_t builtin_lock = PTHREAD_MUTEX_INITIALIZER;

clik_status clik_lapar_net_builtin(clik_context *ctx, const char *name, int scale,
                                   clik_lapar_net **net)
{
    if (!name || !net)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_net_builtin: %s is NULL",
                          !name ? "name" : "net");
    static const char *const known[] = {"lapar-a", "lapar-b", "lapar-c"};
    int found = 0;
    for (int i = 0; i < 3; i++)
        found |= clik__strcasestr(known[i], name) && strlen(known[i]) == strlen(name);
    if (!found)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_net_builtin: no network \"%s\" (lapar-a, lapar-b, lapar-c)",
                          name);
    if (scale != 2 && scale != 4)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_net_builtin: the LAPAR networks were released for x2 and "
                          "x4, not x%d",
                          scale);
    const int i = builtin_index(name, scale);
    if (i < 0 || i >= (int)(sizeof(builtin_cache) / sizeof(builtin_cache[0])))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_net_builtin: this build holds no %s x%d network (it was "
                          "built without the LAPAR weights; see README.md)",
                          name, scale);
    pthread_mutex_lock(&builtin_lock);
    clik_status st = CLIK_OK;
    if (!builtin_cache[i]) {
        char err[400];
        clik_lapar_net *n = NULL;
        st = parse(clik__lapar_net_blobs[i].data, clik__lapar_net_blobs[i].size, &n, err,
                   sizeof(err));
        if (st == CLIK_OK) {
            n->builtin = 1;
            builtin_cache[i] = n;
        } else {
            clik__fail(ctx, st, "clik_lapar_net_builtin: %s", err);
        }
    }
    if (st == CLIK_OK)
        *net = builtin_cache[i];
    pthread_mutex_unlock(&builtin_lock);
    return st;
}

clik_status clik_lapar_net_describe(const clik_lapar_net *net, clik_lapar_net_info *info)
{
    if (!net || !info)
        return CLIK_ERR_NULL;
    *info = net->info;
    return CLIK_OK;
}

const float *clik_lapar_net_atoms(const clik_lapar_net *net)
{
    return net ? net->atoms : NULL;
}

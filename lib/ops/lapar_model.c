/*
 * LAPAR model family: the LAPAR upscaler without a network (SPEC 4.8).
 * Coefficient models (their file format, the embedded default), the
 * classification of an upsample into buckets, the upscale by a model, and
 * training by ridge least squares per bucket. The classification and the
 * filter follow the definition in fallback_cpu/cpu.h: on a device the
 * kernels of kernels/lapar_model.cl, on the CPU ctx->dsp.lapar_model.
 *
 * Model kinds: 0, per bucket the coefficients of `atoms` atoms of the 5 x 5
 * dictionary (F_b = sum_l phi_{b,l} D_l); 1, per bucket a free k x k filter
 * (k = 5 or 7, row-major, the linear map of the patch of U to the output).
 * A kind-1 model may be stored with symmetry: the group of 2 (the
 * 180-degree rotation), 4 (with the horizontal and vertical flips) or 8
 * (with the transposition) image transforms acts on buckets (phase, angle;
 * strength and coherence are invariant) and on filter taps; the buckets of
 * one orbit share one stored filter (that of the orbit's least bucket
 * index), the others are its transforms (see group_* below).
 *
 * File format, version 2 (all integers little-endian u32, floats IEEE
 * binary32 little-endian; version 1, still read, is version 2 with the
 * entry header's last three fields absent: kind 0, k 5, symmetry 1):
 *   0   "CLIKLPM\0"           magic, 8 bytes
 *   8   version               2
 *   12  length                of the whole file, bytes
 *   16  count                 entries, 1..3 (distinct scales)
 *   20  reserved              0
 *   24  entries, each:
 *       scale angles strengths coherences phases window atoms storage
 *       filters reserved kind k symmetry
 *                             13 u32 (storage 1: f32, 2: f16; reserved 0;
 *                             kind 0 or 1; k 5 (kind 0) or 5, 7 (kind 1);
 *                             atoms: kind 1, k * k; symmetry 1 (kind 0),
 *                             1, 2, 4 or 8 (8: angles even or 1); filters:
 *                             the buckets (kind 0, symmetry 1) or orbits)
 *       index[atoms]          kind 0 only: u8 atom indices of the default
 *                             dictionary, increasing; zero-padded to a
 *                             multiple of 4
 *       strength_edges[strengths - 1], coherence_edges[coherences - 1]
 *                             f32, finite, strictly increasing
 *       coef[filters][atoms]  f32 or f16 (IEEE half), finite; zero-padded to
 *                             a multiple of 4 bytes; the rows in increasing
 *                             order of their orbit's least bucket
 *   length - 4: CRC-32        (IEEE 802.3, reflected, as zlib's crc32) of
 *                             bytes 0 .. length - 5
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* lib/models/lapar_default.clikm, embedded by lib/embed.c (--blob). */
extern const unsigned char clik__lapar_model_blob[];
extern const size_t clik__lapar_model_blob_size;

#define MAGIC          "CLIKLPM"
#define VERSION        2u
#define HEADER_BYTES   24u
#define ENTRY_FIELDS   13
#define ENTRY_BYTES    (4u * ENTRY_FIELDS)
#define ENTRY_FIELDS_1 10 /* version 1 */
#define MAX_TAPS       49 /* 7 x 7 */
#define MAX_ENTRIES    3
#define MAX_FILE_BYTES (64u << 20)
#define TAPS           CLIK_LAPAR_TAPS
#define NBINS          CLIK_LAPAR_MODEL_MAX_BINS

typedef struct model_entry {
    int scale, angles, strengths, coherences, phases, window, atoms, f16;
    int buckets;
    int kind;     /* 0: dictionary coefficients; 1: free k x k filters */
    int ksize;    /* k: 5 (kind 0) or 5, 7 */
    int symmetry; /* 1, 2, 4 or 8: the order of the transform group */
    int stored;   /* rows of coef: buckets, or the orbits under the group */
    int index[CLIK_LAPAR_ATOMS];
    float strength_edges[NBINS - 1], coherence_edges[NBINS - 1];
    float *coef;    /* stored x atoms (kind 1: atoms = k k taps) */
    float *filters; /* buckets x k k: kind 0 sum_l coef[b][l] D_{index[l]}; kind 1 the rows,
                       expanded over the orbits; then the same table tap-major (tap t of
                       bucket b at t buckets + b), as the GPU kernel reads it */
} model_entry;

/* The bucket grid, and the bin edges, from one description (an entry, the
 * options, a plan) to another. */
#define COPY_GRID(to, from)                                                                        \
    ((to)->scale = (from)->scale, (to)->angles = (from)->angles,                                   \
     (to)->strengths = (from)->strengths, (to)->coherences = (from)->coherences,                   \
     (to)->phases = (from)->phases, (to)->window = (from)->window)
#define COPY_EDGES(to, from)                                                                       \
    (memcpy((to)->strength_edges, (from)->strength_edges, sizeof((to)->strength_edges)),           \
     memcpy((to)->coherence_edges, (from)->coherence_edges, sizeof((to)->coherence_edges)))

struct clik_lapar_model {
    int count;
    int is_default;
    model_entry e[MAX_ENTRIES];
};

/* ---- small helpers ------------------------------------------------------------------- */

static int valid_window(int n)
{
    return n == 3 || n == 5 || n == 7 || n == 9;
}

static long bucket_count(int scale, int angles, int strengths, int coherences, int phases)
{
    return (long)(phases ? scale * scale : 1) * angles * strengths * coherences;
}

/* Every atom of the default dictionary, as doubles. */
static void dictionary(double *d)
{
    float f[CLIK_LAPAR_ATOMS * TAPS];
    clik_lapar_dict_default(f);
    for (int i = 0; i < CLIK_LAPAR_ATOMS * TAPS; i++)
        d[i] = f[i];
}

/* ---- the transform group of symmetric models ------------------------------------------ */

/* Group elements are 3 bits: 1 transposes (x <-> y), then 2 flips x, then 4
 * flips y. The subgroup of order n: 1 {id}; 2 {id, rotation by 180
 * degrees}; 4 {id, flip x, flip y, rotation}; 8 all. On a filter tap at
 * offset (dx, dy); on a phase (px, py) = (x mod s, y mod s); on an angle
 * bin a of A (theta, twice the gradient's angle: transposition gives pi -
 * theta, a flip -theta; the bins are centred, so a -> A/2 - a (A even) and a
 * -> -a, mod A); strength and coherence are invariant. The image transformed
 * by g has U, its structure tensor and its buckets transformed by g (the
 * antialiased downscale, the bicubic upsample, the gradient and the
 * binomial window are symmetric, and so are reflect-101 borders): so the
 * filter of bucket g(b) is F_b with its taps moved by g. */
static int group_element(int symmetry, int i)
{
    static const int two[2] = {0, 6}, four[4] = {0, 2, 4, 6};
    return symmetry == 2 ? two[i] : symmetry == 4 ? four[i] : i;
}

static void move_offset(int g, int *dx, int *dy)
{
    if (g & 1) {
        const int t = *dx;
        *dx = *dy;
        *dy = t;
    }
    if (g & 2)
        *dx = -*dx;
    if (g & 4)
        *dy = -*dy;
}

/* The tap t of a k x k filter moved by g. */
static int group_tap(int k, int g, int t)
{
    const int h = k / 2;
    int dx = t % k - h, dy = t / k - h;
    move_offset(g, &dx, &dy);
    return (dy + h) * k + (dx + h);
}

/* Bucket b of e moved by g. */
static int group_bucket(const model_entry *e, int g, int b)
{
    const int C = e->coherences, S = e->strengths, A = e->angles, s = e->scale;
    const int cb = b % C, sb = b / C % S, ang = b / (C * S) % A, phase = b / (C * S * A);
    int px = phase % s, py = phase / s;
    if (e->phases) {
        /* (x mod s) of the moved pixel: a transposition swaps, a flip maps x
         * to W - 1 - x with W a multiple of s. */
        if (g & 1) {
            const int t = px;
            px = py;
            py = t;
        }
        if (g & 2)
            px = s - 1 - px;
        if (g & 4)
            py = s - 1 - py;
    }
    int a = ang;
    if (g & 1)
        a = A / 2 - a;
    if (g & 2)
        a = -a;
    if (g & 4)
        a = -a;
    a = ((a % A) + A) % A;
    const int ph = e->phases ? py * s + px : 0;
    return ((ph * A + a) * S + sb) * C + cb;
}

/* The least bucket of b's orbit, and into *via the first element taking b
 * there. */
static int group_canonical(const model_entry *e, int b, int *via)
{
    int best = b, g_best = 0;
    for (int i = 1; i < e->symmetry; i++) {
        const int g = group_element(e->symmetry, i), m = group_bucket(e, g, b);
        if (m < best) {
            best = m;
            g_best = g;
        }
    }
    if (via)
        *via = g_best;
    return best;
}

static int stored_count(const model_entry *e)
{
    int n = 0;
    for (int b = 0; b < e->buckets; b++)
        n += group_canonical(e, b, NULL) == b;
    return n;
}

/* F_b for every bucket of e, from its coefficients; 0, or -1 when out of memory. */
/* The filter table of e (both layouts; see model_entry), uninitialised. */
static float *alloc_filters(const model_entry *e)
{
    return malloc(2 * sizeof(float) * (size_t)e->buckets * (size_t)e->ksize * (size_t)e->ksize);
}

static int filters_finite(const model_entry *e)
{
    const size_t n = (size_t)e->buckets * (size_t)e->ksize * (size_t)e->ksize;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(e->filters[i]))
            return 0;
    return 1;
}

/* The table of every bucket's k x k filter from the coefficients: 0, -1
 * when out of memory, -2 when a dictionary model's filter overflows float. */
static int make_filters(model_entry *e)
{
    const int taps = e->ksize * e->ksize;
    if (e->kind == 1) {
        int *row = malloc(sizeof(int) * (size_t)e->buckets);
        if (!row)
            return -1;
        for (int b = 0, n = 0; b < e->buckets; b++) {
            int g;
            const int c = group_canonical(e, b, &g);
            row[b] = c == b ? n++ : row[c];
            /* F_b = F_c with its taps moved by g^-1: F_b[t] = F_c[g(t)]. */
            const float *fc = e->coef + (size_t)row[b] * (size_t)taps;
            for (int t = 0; t < taps; t++)
                e->filters[(size_t)b * (size_t)taps + (size_t)t] = fc[group_tap(e->ksize, g, t)];
        }
        free(row);
    } else {
        double d[CLIK_LAPAR_ATOMS * TAPS];
        dictionary(d);
        for (int b = 0; b < e->buckets; b++)
            for (int k = 0; k < TAPS; k++) {
                double s = 0.0;
                for (int l = 0; l < e->atoms; l++)
                    s += (double)e->coef[(size_t)b * (size_t)e->atoms + (size_t)l] *
                         d[e->index[l] * TAPS + k];
                e->filters[(size_t)b * TAPS + (size_t)k] = (float)s;
            }
        if (!filters_finite(e))
            return -2;
    }
    const size_t nb = (size_t)e->buckets, nt = (size_t)taps;
    float *by_tap = e->filters + nb * nt;
    for (size_t b = 0; b < nb; b++)
        for (size_t t = 0; t < nt; t++)
            by_tap[t * nb + b] = e->filters[b * nt + t];
    return 0;
}

static void entry_free(model_entry *e)
{
    free(e->coef);
    free(e->filters);
    e->coef = e->filters = NULL;
}

static clik_lapar_model *model_new(void)
{
    return calloc(1, sizeof(clik_lapar_model));
}

void clik_lapar_model_free(clik_lapar_model *model)
{
    if (!model || model->is_default)
        return;
    for (int i = 0; i < model->count; i++)
        entry_free(&model->e[i]);
    free(model);
}

static const model_entry *entry_for(const clik_lapar_model *m, int scale)
{
    for (int i = 0; m && i < m->count; i++)
        if (m->e[i].scale == scale)
            return &m->e[i];
    return NULL;
}

/* ---- reading -------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t size, pos;
    char *err;
    size_t errlen;
} reader;

static clik_status bad(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char text[400];
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "LAPAR model: %s", text);
    return CLIK_ERR_FILE_FORMAT;
}

/* n more bytes are there (before the checksum). */
static int have(const reader *r, size_t n)
{
    return r->pos <= r->size - 4 && n <= r->size - 4 - r->pos;
}

static clik_status read_entry(reader *r, int i, int version, model_entry *e)
{
    const int fields = version == 1 ? ENTRY_FIELDS_1 : ENTRY_FIELDS;
    if (!have(r, 4 * (size_t)fields))
        return bad(r, "entry %d: truncated header at byte %zu", i, r->pos);
    uint32_t f[ENTRY_FIELDS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1}; /* version 1: kind 0 */
    for (int k = 0; k < fields; k++)
        f[k] = clik__get_u32(r->p + r->pos + 4 * (size_t)k);
    r->pos += 4 * (size_t)fields;
    if (f[0] < 2 || f[0] > 4)
        return bad(r, "entry %d: scale %u is not 2, 3 or 4", i, f[0]);
    for (int k = 1; k <= 3; k++)
        if (f[k] < 1 || f[k] > NBINS)
            return bad(r, "entry %d: %s bins %u (1..%d)", i,
                       k == 1   ? "angle"
                       : k == 2 ? "strength"
                                : "coherence",
                       f[k], NBINS);
    if (f[4] > 1)
        return bad(r, "entry %d: phases %u is not 0 or 1", i, f[4]);
    if (f[5] > 9 || !valid_window((int)f[5]))
        return bad(r, "entry %d: window %u is not 3, 5, 7 or 9", i, f[5]);
    if (f[10] > 1)
        return bad(r, "entry %d: kind %u is not 0 (dictionary) or 1 (free filter)", i, f[10]);
    if (f[10] == 0 && f[11] != 5)
        return bad(r, "entry %d: filter side %u of a dictionary model is not 5", i, f[11]);
    if (f[10] == 1 && f[11] != 5 && f[11] != 7)
        return bad(r, "entry %d: filter side %u is not 5 or 7", i, f[11]);
    if (f[12] != 1 && (f[10] == 0 || (f[12] != 2 && f[12] != 4 && f[12] != 8)))
        return bad(r, "entry %d: symmetry %u is not 1%s", i, f[12],
                   f[10] == 0 ? " (a dictionary model)" : ", 2, 4 or 8");
    if (f[12] == 8 && f[1] % 2 != 0 && f[1] != 1)
        return bad(r, "entry %d: symmetry 8 needs an even angle count, not %u", i, f[1]);
    if (f[10] == 0 && (f[6] < 1 || f[6] > CLIK_LAPAR_ATOMS))
        return bad(r, "entry %d: %u atoms (1..%d)", i, f[6], CLIK_LAPAR_ATOMS);
    if (f[10] == 1 && f[6] != f[11] * f[11])
        return bad(r, "entry %d: %u atoms; a free %ux%u filter has %u taps", i, f[6], f[11], f[11],
                   f[11] * f[11]);
    if (f[7] != 1 && f[7] != 2)
        return bad(r, "entry %d: coefficient storage %u is not 1 (f32) or 2 (f16)", i, f[7]);
    const long buckets = bucket_count((int)f[0], (int)f[1], (int)f[2], (int)f[3], (int)f[4]);
    if (buckets > CLIK_LAPAR_MODEL_MAX_BUCKETS)
        return bad(r, "entry %d: %ld buckets (at most %d)", i, buckets,
                   CLIK_LAPAR_MODEL_MAX_BUCKETS);
    if (f[9] != 0)
        return bad(r, "entry %d: reserved field is %u, not 0", i, f[9]);
    e->scale = (int)f[0];
    e->angles = (int)f[1];
    e->strengths = (int)f[2];
    e->coherences = (int)f[3];
    e->phases = (int)f[4];
    e->window = (int)f[5];
    e->atoms = (int)f[6];
    e->f16 = f[7] == 2;
    e->buckets = (int)buckets;
    e->kind = (int)f[10];
    e->ksize = (int)f[11];
    e->symmetry = (int)f[12];
    e->stored = e->symmetry == 1 ? e->buckets : stored_count(e);
    if (f[8] != (uint32_t)e->stored)
        return bad(r, "entry %d: %u filters stored, the bins and symmetry make %d", i, f[8],
                   e->stored);
    const size_t index_bytes = e->kind == 0 ? ((size_t)e->atoms + 3) / 4 * 4 : 0;
    if (!have(r, index_bytes))
        return bad(r, "entry %d: truncated in the atom indices", i);
    for (int l = 0; e->kind == 0 && l < e->atoms; l++) {
        e->index[l] = r->p[r->pos + (size_t)l];
        if (e->index[l] >= CLIK_LAPAR_ATOMS || (l > 0 && e->index[l] <= e->index[l - 1]))
            return bad(r, "entry %d: atom index %d (%d) is not increasing within 0..%d", i, l,
                       e->index[l], CLIK_LAPAR_ATOMS - 1);
    }
    for (size_t k = (size_t)e->atoms; k < index_bytes; k++)
        if (r->p[r->pos + k] != 0)
            return bad(r, "entry %d: padding after the atom indices is not zero", i);
    r->pos += index_bytes;
    const size_t edges = (size_t)(e->strengths - 1 + e->coherences - 1);
    if (!have(r, 4 * edges))
        return bad(r, "entry %d: truncated in the bin edges", i);
    for (int n = 0; n < 2; n++) {
        float *edge = n == 0 ? e->strength_edges : e->coherence_edges;
        for (int k = 0; k < (n == 0 ? e->strengths : e->coherences) - 1; k++) {
            edge[k] = clik__get_f32(r->p + r->pos);
            r->pos += 4;
            if (!isfinite(edge[k]) || (k > 0 && !(edge[k] > edge[k - 1])))
                return bad(r, "entry %d: %s edge %d is not finite and increasing", i,
                           n == 0 ? "strength" : "coherence", k);
        }
    }
    const size_t values = (size_t)e->stored * (size_t)e->atoms;
    const size_t coef_bytes = (values * (e->f16 ? 2 : 4) + 3) / 4 * 4;
    if (!have(r, coef_bytes))
        return bad(r, "entry %d: truncated in the coefficients (%zu bytes needed, %zu left)", i,
                   coef_bytes, r->size - 4 - r->pos);
    /* Sizes hold: now the allocations. */
    e->coef = malloc(values * sizeof(float));
    e->filters = alloc_filters(e);
    if (!e->coef || !e->filters) {
        snprintf(r->err, r->errlen, "LAPAR model: out of memory");
        return CLIK_ERR_NO_MEMORY;
    }
    const uint8_t *c = r->p + r->pos;
    for (size_t v = 0; v < values; v++) {
        e->coef[v] = e->f16 ? clik__half_to_float((uint16_t)(c[2 * v] | c[2 * v + 1] << 8))
                            : clik__get_f32(c + 4 * v);
        if (!isfinite(e->coef[v]))
            return bad(r, "entry %d: coefficient %zu is not finite", i, v);
    }
    for (size_t k = values * (e->f16 ? 2 : 4); k < coef_bytes; k++)
        if (c[k] != 0)
            return bad(r, "entry %d: padding after the coefficients is not zero", i);
    r->pos += coef_bytes;
    const int made = make_filters(e);
    if (made == -2)
        return bad(r, "entry %d: a filter of the coefficients is not finite", i);
    if (made != 0) {
        snprintf(r->err, r->errlen, "LAPAR model: out of memory");
        return CLIK_ERR_NO_MEMORY;
    }
    return CLIK_OK;
}

static clik_status parse(const void *data, size_t size, clik_lapar_model **out, char *err,
                         size_t errlen)
{
    reader r = {data, size, 0, err, errlen};
    const uint8_t *p = data;
    if (size < 8 || memcmp(p, MAGIC, 8) != 0)
        return bad(&r, "not a clik LAPAR model (no \"CLIKLPM\" magic; %zu bytes)", size);
    if (size < HEADER_BYTES + 4)
        return bad(&r, "truncated: %zu bytes, a header needs %u", size, HEADER_BYTES + 4);
    const uint32_t version = clik__get_u32(p + 8), length = clik__get_u32(p + 12),
                   count = clik__get_u32(p + 16);
    if (version != 1 && version != VERSION)
        return bad(&r, "version %u; this library reads versions 1 and %u", version, VERSION);
    if (length != size)
        return bad(&r, "%s: the header says %u bytes, the data has %zu",
                   length > size ? "truncated" : "trailing bytes", length, size);
    const uint32_t stored = clik__get_u32(p + size - 4), computed = clik__crc32(p, size - 4);
    if (stored != computed)
        return bad(&r, "checksum mismatch (stored %08x, computed %08x): the file is corrupt",
                   stored, computed);
    if (count < 1 || count > MAX_ENTRIES)
        return bad(&r, "%u entries (1..%d)", count, MAX_ENTRIES);
    if (clik__get_u32(p + 20) != 0)
        return bad(&r, "reserved header field is not 0");
    clik_lapar_model *m = model_new();
    if (!m) {
        snprintf(err, errlen, "LAPAR model: out of memory");
        return CLIK_ERR_NO_MEMORY;
    }
    r.pos = HEADER_BYTES;
    clik_status st = CLIK_OK;
    for (int i = 0; i < (int)count && st == CLIK_OK; i++) {
        st = read_entry(&r, i, (int)version, &m->e[i]);
        m->count = i + 1;
        for (int j = 0; j < i && st == CLIK_OK; j++)
            if (m->e[j].scale == m->e[i].scale)
                st = bad(&r, "entries %d and %d are both for scale %d", j, i, m->e[i].scale);
    }
    if (st == CLIK_OK && r.pos != size - 4)
        st = bad(&r, "%zu bytes after the last entry", size - 4 - r.pos);
    if (st != CLIK_OK) {
        clik_lapar_model_free(m);
        return st;
    }
    *out = m;
    return CLIK_OK;
}

clik_status clik_lapar_model_read(clik_context *ctx, const void *data, size_t size,
                                  clik_lapar_model **model)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!data || !model)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_read: %s is NULL",
                          !data ? "data" : "model");
    char err[512] = "";
    clik_status st = parse(data, size, model, err, sizeof(err));
    return st == CLIK_OK ? CLIK_OK : clik__fail(ctx, st, "clik_lapar_model_read: %s", err);
}

clik_status clik_lapar_model_load(clik_context *ctx, const char *path, clik_lapar_model **model)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!path || !model)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_load: %s is NULL",
                          !path ? "path" : "model");
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return clik__fail(ctx, CLIK_ERR_IO, "clik_lapar_model_load: %s: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    clik_status st = CLIK_OK;
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_FILE_BYTES) {
                /* exactly the limit is fine: look for one more byte */
                if (fread(buf + n, 1, 1, fp) == 0 && !ferror(fp))
                    break;
                st = clik__fail(ctx, CLIK_ERR_FILE_FORMAT,
                                "clik_lapar_model_load: %s: larger than %u bytes", path,
                                MAX_FILE_BYTES);
                break;
            }
            cap = cap ? 2 * cap : 65536;
            uint8_t *more = realloc(buf, cap + 1);
            if (!more) {
                st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_model_load: out of memory");
                break;
            }
            buf = more;
        }
        const size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (ferror(fp))
                st = clik__fail(ctx, CLIK_ERR_IO, "clik_lapar_model_load: %s: read error", path);
            break;
        }
    }
    fclose(fp);
    if (st == CLIK_OK) {
        char err[512] = "";
        st = parse(buf ? buf : (const uint8_t *)"", n, model, err, sizeof(err));
        if (st != CLIK_OK)
            clik__fail(ctx, st, "clik_lapar_model_load: %s: %s", path, err);
    }
    free(buf);
    return st;
}

/* ---- writing -------------------------------------------------------------------------- */

static size_t entry_bytes(const model_entry *e)
{
    const size_t values = (size_t)e->stored * (size_t)e->atoms;
    return ENTRY_BYTES + (e->kind == 0 ? ((size_t)e->atoms + 3) / 4 * 4 : 0) +
           4 * (size_t)(e->strengths - 1 + e->coherences - 1) +
           (values * (e->f16 ? 2 : 4) + 3) / 4 * 4;
}

clik_status clik_lapar_model_write(clik_context *ctx, const clik_lapar_model *model, void *buf,
                                   size_t cap, size_t *size)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!model || !size)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_write: %s is NULL",
                          !model ? "model" : "size");
    size_t total = HEADER_BYTES + 4;
    for (int i = 0; i < model->count; i++)
        total += entry_bytes(&model->e[i]);
    *size = total;
    if (!buf)
        return CLIK_OK;
    if (cap < total)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE,
                          "clik_lapar_model_write: the model needs %zu bytes, the buffer has %zu",
                          total, cap);
    uint8_t *p = buf;
    memset(p, 0, total);
    memcpy(p, MAGIC, 8);
    clik__put_u32(p + 8, VERSION);
    clik__put_u32(p + 12, (uint32_t)total);
    clik__put_u32(p + 16, (uint32_t)model->count);
    size_t pos = HEADER_BYTES;
    for (int i = 0; i < model->count; i++) {
        const model_entry *e = &model->e[i];
        const uint32_t f[ENTRY_FIELDS] = {(uint32_t)e->scale,     (uint32_t)e->angles,
                                          (uint32_t)e->strengths, (uint32_t)e->coherences,
                                          (uint32_t)e->phases,    (uint32_t)e->window,
                                          (uint32_t)e->atoms,     e->f16 ? 2u : 1u,
                                          (uint32_t)e->stored,    0u,
                                          (uint32_t)e->kind,      (uint32_t)e->ksize,
                                          (uint32_t)e->symmetry};
        for (int k = 0; k < ENTRY_FIELDS; k++)
            clik__put_u32(p + pos + 4 * (size_t)k, f[k]);
        pos += ENTRY_BYTES;
        if (e->kind == 0) {
            for (int l = 0; l < e->atoms; l++)
                p[pos + (size_t)l] = (uint8_t)e->index[l];
            pos += ((size_t)e->atoms + 3) / 4 * 4;
        }
        for (int k = 0; k < e->strengths - 1; k++, pos += 4)
            clik__put_f32(p + pos, e->strength_edges[k]);
        for (int k = 0; k < e->coherences - 1; k++, pos += 4)
            clik__put_f32(p + pos, e->coherence_edges[k]);
        const size_t values = (size_t)e->stored * (size_t)e->atoms;
        for (size_t v = 0; v < values; v++) {
            if (e->f16) {
                const uint16_t h = clik__float_to_half(e->coef[v]);
                p[pos + 2 * v] = (uint8_t)h;
                p[pos + 2 * v + 1] = (uint8_t)(h >> 8);
            } else {
                clik__put_f32(p + pos + 4 * v, e->coef[v]);
            }
        }
        pos += (values * (e->f16 ? 2 : 4) + 3) / 4 * 4;
    }
    clik__put_u32(p + pos, clik__crc32(p, pos));
    return CLIK_OK;
}

static clik_status entry_copy(const model_entry *from, model_entry *to)
{
    *to = *from;
    const size_t values = (size_t)from->stored * (size_t)from->atoms;
    const size_t taps = (size_t)from->buckets * (size_t)from->ksize * (size_t)from->ksize;
    to->coef = malloc(values * sizeof(float));
    to->filters = alloc_filters(from);
    if (!to->coef || !to->filters) {
        entry_free(to);
        return CLIK_ERR_NO_MEMORY;
    }
    memcpy(to->coef, from->coef, values * sizeof(float));
    memcpy(to->filters, from->filters, 2 * taps * sizeof(float));
    return CLIK_OK;
}

clik_status clik_lapar_model_combine(clik_context *ctx, const clik_lapar_model *a,
                                     const clik_lapar_model *b, clik_lapar_model **out)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!a || !b || !out)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_combine: %s is NULL",
                          !a   ? "a"
                          : !b ? "b"
                               : "out");
    if (a->count + b->count > MAX_ENTRIES)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_model_combine: %d entries in all (at most %d)",
                          a->count + b->count, MAX_ENTRIES);
    for (int i = 0; i < b->count; i++)
        if (entry_for(a, b->e[i].scale))
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              "clik_lapar_model_combine: both models have scale %d", b->e[i].scale);
    clik_lapar_model *m = model_new();
    if (!m)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_model_combine: out of memory");
    for (int i = 0; i < a->count + b->count; i++) {
        const model_entry *from = i < a->count ? &a->e[i] : &b->e[i - a->count];
        if (entry_copy(from, &m->e[i]) != CLIK_OK) {
            clik_lapar_model_free(m);
            return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_model_combine: out of memory");
        }
        m->count = i + 1;
    }
    *out = m;
    return CLIK_OK;
}

/* ---- options ---------------------------------------------------------------------------- */

void clik_lapar_model_options_init(clik_lapar_model_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof(*opt));
    opt->scale = 2;
    opt->angles = 16;
    opt->strengths = 3;
    opt->coherences = 3;
    opt->phases = 0;
    opt->window = 5;
    opt->atoms = 13;
    opt->kernel = 0;
    opt->symmetry = 1;
    opt->alpha = 1e-5;
    opt->min_samples = 64;
    opt->f16 = 1;
}

/* The default edges for a bin count: strength geometric from 2.5 to 10 (S -
 * 1 edges; one edge: 5), coherence uniform in (0, 1): k / C. */
static void default_edges(int strengths, int coherences, float *se, float *ce)
{
    for (int k = 0; k < strengths - 1; k++)
        se[k] =
            strengths == 2 ? 5.0f : (float)(2.5 * pow(4.0, (double)k / (double)(strengths - 2)));
    for (int k = 0; k < coherences - 1; k++)
        ce[k] = (float)((double)(k + 1) / (double)coherences);
}

static int edges_unset(const float *e, int n)
{
    for (int k = 0; k < n; k++)
        if (e[k] != 0.0f)
            return 0;
    return 1;
}

static clik_status check_edges(clik_context *ctx, const float *e, int n, const char *what)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(e[k]) || (k > 0 && !(e[k] > e[k - 1])))
            return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                              "clik_lapar_trainer_create: %s edge %d (%g) is not finite and "
                              "increasing",
                              what, k, (double)e[k]);
    return CLIK_OK;
}

/* Checks opt and fills an entry's parameters from it (no coefficients). */
static clik_status entry_from_options(clik_context *ctx, const clik_lapar_model_options *o,
                                      model_entry *e)
{
    const char *fn = "clik_lapar_trainer_create";
    if (o->scale < 2 || o->scale > 4)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: scale %d is not 2, 3 or 4", fn, o->scale);
    if (o->angles < 1 || o->angles > NBINS || o->strengths < 1 || o->strengths > NBINS ||
        o->coherences < 1 || o->coherences > NBINS)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: bins %d, %d, %d (angle, strength, coherence: each 1..%d)", fn,
                          o->angles, o->strengths, o->coherences, NBINS);
    if (o->phases != 0 && o->phases != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: phases %d is not 0 or 1", fn, o->phases);
    if (!valid_window(o->window))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: window %d is not 3, 5, 7 or 9", fn,
                          o->window);
    if (o->kernel != 0 && o->kernel != 5 && o->kernel != 7)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: kernel %d is not 0, 5 or 7", fn,
                          o->kernel);
    if (o->symmetry != 1 &&
        (o->kernel == 0 || (o->symmetry != 2 && o->symmetry != 4 && o->symmetry != 8)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: symmetry %d is not 1%s", fn, o->symmetry,
                          o->kernel == 0 ? " (kernel 0)" : ", 2, 4 or 8");
    if (o->symmetry == 8 && o->angles % 2 != 0 && o->angles != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: symmetry 8 needs an even angle count, not %d", fn, o->angles);
    if (o->kernel == 0 && o->atoms != CLIK_LAPAR_ATOMS && (o->atoms < 1 || o->atoms > TAPS))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: atoms %d is not %d nor 1..%d", fn,
                          o->atoms, CLIK_LAPAR_ATOMS, TAPS);
    if (!(o->alpha >= 0.0) || !isfinite(o->alpha))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: alpha %g is not finite and >= 0", fn,
                          o->alpha);
    if (o->min_samples < 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: min_samples %d is negative", fn,
                          o->min_samples);
    if (o->f16 != 0 && o->f16 != 1)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: f16 %d is not 0 or 1", fn, o->f16);
    const long buckets = bucket_count(o->scale, o->angles, o->strengths, o->coherences, o->phases);
    if (buckets > CLIK_LAPAR_MODEL_MAX_BUCKETS)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: %ld buckets (at most %d)", fn, buckets,
                          CLIK_LAPAR_MODEL_MAX_BUCKETS);
    memset(e, 0, sizeof(*e));
    COPY_GRID(e, o);
    e->kind = o->kernel != 0;
    e->ksize = o->kernel != 0 ? o->kernel : 5;
    e->symmetry = o->symmetry;
    e->atoms = o->kernel != 0 ? o->kernel * o->kernel : o->atoms;
    e->f16 = o->f16;
    e->buckets = (int)buckets;
    e->stored = e->symmetry == 1 ? e->buckets : stored_count(e);
    float se[NBINS - 1], ce[NBINS - 1];
    default_edges(o->strengths, o->coherences, se, ce);
    if (!edges_unset(o->strength_edges, o->strengths - 1))
        memcpy(se, o->strength_edges, sizeof(se));
    if (!edges_unset(o->coherence_edges, o->coherences - 1))
        memcpy(ce, o->coherence_edges, sizeof(ce));
    clik_status st = check_edges(ctx, se, o->strengths - 1, "strength");
    if (st == CLIK_OK)
        st = check_edges(ctx, ce, o->coherences - 1, "coherence");
    memcpy(e->strength_edges, se, sizeof(se));
    memcpy(e->coherence_edges, ce, sizeof(ce));
    return st;
}

clik_status clik_lapar_model_describe(clik_context *ctx, const clik_lapar_model *model, int scale,
                                      clik_lapar_model_options *opt)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!model || !opt)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_model_describe: %s is NULL",
                          !model ? "model" : "opt");
    const model_entry *e = entry_for(model, scale);
    if (!e)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_lapar_model_describe: the model has no entry for scale %d", scale);
    clik_lapar_model_options_init(opt);
    COPY_GRID(opt, e);
    if (e->kind == 0)
        opt->atoms = e->atoms;
    opt->kernel = e->kind == 0 ? 0 : e->ksize;
    opt->symmetry = e->symmetry;
    opt->f16 = e->f16;
    COPY_EDGES(opt, e);
    return CLIK_OK;
}

/* ---- the embedded default --------------------------------------------------------------- */

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static clik_lapar_model *default_model;

static void load_default(void)
{
    char err[256];
    clik_lapar_model *m = NULL;
    if (parse(clik__lapar_model_blob, clik__lapar_model_blob_size, &m, err, sizeof(err)) ==
        CLIK_OK) {
        m->is_default = 1;
        default_model = m;
    }
}

const clik_lapar_model *clik_lapar_model_default(int scale)
{
    pthread_once(&default_once, load_default);
    return entry_for(default_model, scale) ? default_model : NULL;
}

/* ---- the plan, classification and the upscale ------------------------------------------ */

static void plan_of(const model_entry *e, const float *filters, clik_lapar_model_plan *p)
{
    memset(p, 0, sizeof(*p));
    COPY_GRID(p, e);
    p->buckets = e->buckets;
    p->ksize = e->ksize;
    for (int m = 0; m < e->angles; m++) {
        const double phi = (2 * m + 1) * 3.14159265358979323846 / e->angles;
        const double u = cos(phi), v = sin(phi);
        const double q = v >= 0 ? (u >= 0 ? v / (u + v) : 1.0 - u / (v - u))
                                : (u < 0 ? 2.0 - v / (-u - v) : 3.0 + u / (u - v));
        p->angle_edges[m] = (float)q;
    }
    COPY_EDGES(p, e);
    p->filters = filters;
}

/* The model's entry for scale (model NULL: the default's). */
static clik_status find_entry(clik_context *ctx, const clik_lapar_model *model, int scale,
                              const char *fn, const model_entry **e)
{
    if (scale < 2 || scale > 4)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: scale %d is not 2, 3 or 4", fn, scale);
    if (!model && !(model = clik_lapar_model_default(scale)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: the library's default model has no entry for scale %d", fn, scale);
    if (!(*e = entry_for(model, scale)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: the model has no entry for scale %d", fn,
                          scale);
    return CLIK_OK;
}

/* The arguments of classification and upscaling: the plan of an entry. */
typedef struct plan_args {
    clik_lapar_model_plan plan;
    const float *filters_by_tap; /* the entry's table tap-major (NULL with no filters) */
} plan_args;

static clik_status classify_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const plan_args *a = p;
    if (ctx->dsp.lapar_model.classify(v[0], &a->plan, v[1]) != 0)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_classify: out of memory");
    return CLIK_OK;
}

/* ---- OpenCL path (kernels/lapar_model.cl) ---- */

#define STR_(x)       #x
#define STR(x)        STR_(x)
#define MODEL_OPTIONS "-DMAX_BINS=" STR(CLIK_LAPAR_MODEL_MAX_BINS)

/* C(n, k), n <= 8: the window's weights. */
static int binomial_of(int n, int k)
{
    int v = 1;
    for (int i = 1; i <= k; i++)
        v = v * (n - k + i) / i;
    return v;
}

/* The classification's arguments from index 3 of lmodel_classify on: the
 * window, its weights and the bins (constant buffers made here, released by
 * the caller through *wt and *params). */
static clik_status classify_args_cl(clik_context *ctx, clik_kernel_entry *k,
                                    const clik_lapar_model_plan *p, cl_mem *wt, cl_mem *params)
{
    float w[9] = {0}, q[3 * CLIK_LAPAR_MODEL_MAX_BINS] = {0};
    const int n = p->window;
    for (int i = 0; i < n; i++)
        w[i] = (float)binomial_of(n - 1, i);
    for (int i = 0; i < CLIK_LAPAR_MODEL_MAX_BINS - 1; i++) {
        q[1 + i] = p->strength_edges[i];
        q[CLIK_LAPAR_MODEL_MAX_BINS + i] = p->coherence_edges[i];
    }
    for (int i = 0; i < p->angles; i++)
        q[2 * CLIK_LAPAR_MODEL_MAX_BINS + i] = p->angle_edges[i];
    clik_status st = clik__temp_buffer(ctx, sizeof(w), wt);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, *wt, w, sizeof(w));
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, sizeof(q), params);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, *params, q, sizeof(q));
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, k, 3, CLIK_A(n), CLIK_A(*wt), CLIK_A(*params), CLIK_A(p->angles),
                          CLIK_A(p->strengths), CLIK_A(p->coherences), CLIK_A(p->scale),
                          CLIK_A(p->phases));
    return st;
}

/* Enqueues the buckets of the bound U (F32) into the bound buckets (U16),
 * with the program of output type t (one program serves an upscale). */
static clik_status cl_classify(clik_context *ctx, const clik_lapar_model_plan *p,
                               const clik_binding *up, const clik_binding *buckets, clik_type t)
{
    const int w = up->image.width, h = up->image.height, us = clik__elems(up);
    const int bs = clik__elems(buckets);
    const size_t grad_bytes = (size_t)w * (size_t)h * 2 * sizeof(float);
    const size_t rows_bytes = 2 * grad_bytes;
    clik_kernel_entry *kg, *kr, *kc;
    cl_mem grad = NULL, rows = NULL, wt = NULL, params = NULL;
    const int ch = up->image.channels, n = p->window;
    clik_status st =
        clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_gradient", &kg);
    if (st == CLIK_OK)
        st =
            clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_tensor_rows", &kr);
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", t, ch, MODEL_OPTIONS, "lmodel_classify", &kc);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, grad_bytes, &grad);
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, rows_bytes, &rows);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kg, CLIK_A(up->mem), CLIK_A(us), CLIK_A(w), CLIK_A(h), CLIK_A(grad));
    size_t items[2] = {(size_t)w, (size_t)h}, local[2] = {32, 8};
    if (st == CLIK_OK)
        st = clik__launch(ctx, kg, 2, items, local);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kc, CLIK_A(rows), CLIK_A(w), CLIK_A(h));
    if (st == CLIK_OK)
        st = classify_args_cl(ctx, kc, p, &wt, &params);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, kr, CLIK_A(grad), CLIK_A(w), CLIK_A(h), CLIK_A(n), CLIK_A(wt),
                       CLIK_A(rows));
    if (st == CLIK_OK)
        st = clik__launch(ctx, kr, 2, items, local);
    if (st == CLIK_OK)
        st = CLIK_ARGS_AT(ctx, kc, 11, CLIK_A(buckets->mem), CLIK_A(bs));
    if (st == CLIK_OK)
        st = clik__launch(ctx, kc, 2, items, local);
    if (grad)
        clik__temp_release(ctx, grad, grad_bytes);
    if (rows)
        clik__temp_release(ctx, rows, rows_bytes);
    if (wt)
        clik__temp_release(ctx, wt, 9 * sizeof(float));
    if (params)
        clik__temp_release(ctx, params, 3 * CLIK_LAPAR_MODEL_MAX_BINS * sizeof(float));
    return st;
}

/* The kernels (kernels/lapar_model.cl) take row strides as int elements
 * and form every offset past a row in 64 bits: fn refuses a binding whose
 * stride does not fit an int (CLIK_ERR_DEVICE_LIMITS, so the CPU path
 * runs); any number of elements is fine otherwise. */
static clik_status check_strides(clik_context *ctx, const char *fn, const clik_binding *const *b,
                                 int n)
{
    for (int i = 0; i < n; i++) {
        const size_t e = b[i]->stride / clik_type_size(b[i]->image.type);
        if (e > (size_t)INT32_MAX)
            return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                              "%s: a row stride of %zu elements; the kernels' strides are int "
                              "(at most 2^31 - 1 elements)",
                              fn, e);
    }
    return CLIK_OK;
}

/* b[0] is up, b[1] the buckets. */
static clik_status classify_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    clik_status st = check_strides(ctx, "lapar_classify", (const clik_binding *const *)b, 2);
    if (st != CLIK_OK)
        return st;
    return cl_classify(ctx, &((const plan_args *)p)->plan, b[0], b[1], CLIK_F32);
}

static const clik_op classify_op = {"lapar_classify", classify_opencl, classify_cpu};

/* Runs op on in and out with the plan of entry e (filters: its filters). */
static clik_status run_planned(clik_context *ctx, const clik_op *op, const model_entry *e,
                               const float *filters, const clik_image *in, clik_image *out)
{
    plan_args a;
    plan_of(e, filters, &a.plan);
    a.filters_by_tap =
        filters ? filters + (size_t)e->buckets * (size_t)e->ksize * (size_t)e->ksize : NULL;
    const clik_op_image images[] = {{in, CLIK_READ}, {out, CLIK_WRITE}};
    return clik__run_op(ctx, op, images, 2, &a);
}

static clik_status check_up(clik_context *ctx, const clik_image *up, const clik_image *buckets,
                            const char *fn)
{
    char what[64];
    snprintf(what, sizeof(what), "%s: up", fn);
    clik_status st =
        clik__check_format(ctx, up, what, CLIK_TYPES(CLIK_F32), CLIK_CHANNELS(1, 4), 0, 0);
    snprintf(what, sizeof(what), "%s: buckets", fn);
    if (st == CLIK_OK)
        st = clik__check_format(ctx, buckets, what, CLIK_TYPES(CLIK_U16), CLIK_CHANNELS(1),
                                up->width, up->height);
    if (st == CLIK_OK && clik__images_overlap(up, buckets))
        st = clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: buckets overlaps up", fn);
    return st;
}

clik_status clik_lapar_classify(clik_context *ctx, const clik_image *up,
                                const clik_lapar_model *model, int scale, clik_image *buckets)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    const char *fn = "clik_lapar_classify";
    const model_entry *e = NULL;
    clik_status st = check_up(ctx, up, buckets, fn);
    if (st == CLIK_OK)
        st = find_entry(ctx, model, scale, fn, &e);
    if (st != CLIK_OK)
        return st;
    return run_planned(ctx, &classify_op, e, e->filters, up, buckets);
}

/* U, its buckets and the filter, on host views: v[0] src, v[1] dst. */
static clik_status upscale_cpu(clik_context *ctx, void *p, clik_image *const *v)
{
    const plan_args *a = p;
    clik_image up = {0}, buckets = {0};
    clik_status st = clik_image_alloc(&up, v[1]->width, v[1]->height, v[0]->channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_image_alloc(&buckets, v[1]->width, v[1]->height, 1, CLIK_U16);
    if (st == CLIK_OK) {
        ctx->dsp.lapar.upsample(v[0], a->plan.scale, &up);
        if (ctx->dsp.lapar_model.classify(&up, &a->plan, &buckets) != 0 ||
            ctx->dsp.lapar_model.filter(&up, &buckets, &a->plan, v[1]) != 0)
            st = CLIK_ERR_NO_MEMORY;
    }
    clik_image_free(&up);
    clik_image_free(&buckets);
    return st == CLIK_OK ? CLIK_OK
                         : clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_upscale_lapar: out of memory");
}

/* b[0] is src, b[1] dst: U and the buckets are device scratch, the filters
 * a buffer of the entry's table (tap-major on GPUs). */
static clik_status upscale_opencl(clik_context *ctx, void *p, clik_binding *const *b)
{
    const plan_args *args = p;
    const clik_lapar_model_plan *plan = &args->plan;
    const clik_image *dst = &b[1]->image;
    const int w = dst->width, h = dst->height, ch = dst->channels, taps = plan->ksize * plan->ksize;
    /* src's stride is checked by the upsample (clik__lapar_upsample_cl). */
    clik_status st = check_strides(ctx, "upscale_lapar", (const clik_binding *const *)b + 1, 1);
    if (st != CLIK_OK)
        return st;
    /* The filter: on GPUs U through a local-memory tile (lmodel_filter_local:
     * work-groups of at most 32 x 8) and the table tap-major; else U from
     * global memory and the table bucket-major (a work-item's taps in a row). */
    const int local = (int)clik__tune(ctx, CLIK_TUNE_LMODEL_LOCAL,
                                      ctx->local_memory && ctx->dev.type != CLIK_DEVICE_CPU);
    const int bstride = local ? 1 : taps, tstride = local ? plan->buckets : 1;
    const size_t filter_bytes = (size_t)plan->buckets * (size_t)taps * sizeof(float);
    clik_binding up, buckets;
    cl_mem filters = NULL;
    int have_up = 0, have_buckets = 0;
    st = clik__bind_scratch(ctx, w, h, ch, CLIK_F32, &up);
    have_up = st == CLIK_OK;
    if (st == CLIK_OK)
        st = clik__bind_scratch(ctx, w, h, 1, CLIK_U16, &buckets);
    have_buckets = have_up && st == CLIK_OK;
    if (st == CLIK_OK)
        st = clik__temp_buffer(ctx, filter_bytes, &filters);
    if (st == CLIK_OK)
        st = clik__write_bytes(ctx, filters, local ? args->filters_by_tap : plan->filters,
                               filter_bytes);
    if (st == CLIK_OK)
        st = clik__lapar_upsample_cl(ctx, b[0], plan->scale, &up);
    if (st == CLIK_OK)
        st = cl_classify(ctx, plan, &up, &buckets, dst->type);
    clik_kernel_entry *k;
    if (st == CLIK_OK)
        st = clik__pixel_kernel(ctx, "lapar_model", dst->type, ch, MODEL_OPTIONS,
                                local ? "lmodel_filter_local" : "lmodel_filter", &k);
    const int us = clik__elems(&up), bs = clik__elems(&buckets), ds = clik__elems(b[1]);
    if (st == CLIK_OK)
        st = CLIK_ARGS(ctx, k, CLIK_A(up.mem), CLIK_A(us), CLIK_A(w), CLIK_A(h),
                       CLIK_A(buckets.mem), CLIK_A(bs), CLIK_A(filters), CLIK_A(bstride),
                       CLIK_A(tstride), CLIK_A(plan->ksize), CLIK_A(b[1]->mem), CLIK_A(ds));
    if (st == CLIK_OK) {
        size_t items[2] = {(size_t)w, (size_t)h}, group[2] = {32, 8};
        st = clik__launch(ctx, k, 2, items, group);
    }
    if (filters)
        clik__temp_release(ctx, filters, filter_bytes);
    if (have_buckets)
        clik__unbind(ctx, &buckets, 0);
    if (have_up)
        clik__unbind(ctx, &up, 0);
    return st;
}

static const clik_op upscale_op = {"upscale_lapar", upscale_opencl, upscale_cpu};

clik_status clik_upscale_lapar(clik_context *ctx, const clik_image *src, clik_image *dst, int scale,
                               const clik_lapar_model *model)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    const char *fn = "clik_upscale_lapar";
    clik_status st = clik__check_format(ctx, src, "clik_upscale_lapar: src",
                                        CLIK_TYPES(CLIK_U8, CLIK_F32), CLIK_CHANNELS(1, 4), 0, 0);
    const model_entry *e = NULL;
    if (st == CLIK_OK)
        st = find_entry(ctx, model, scale, fn, &e);
    if (st != CLIK_OK)
        return st;
    if ((long)src->width * scale > CLIK_MAX_DIM || (long)src->height * scale > CLIK_MAX_DIM)
        return clik__fail(ctx, CLIK_ERR_INVALID_SIZE, "%s: %dx%d times %d is larger than %d", fn,
                          src->width, src->height, scale, CLIK_MAX_DIM);
    st = clik__check_like(ctx, dst, src, "clik_upscale_lapar: dst", src->width * scale,
                          src->height * scale);
    if (st == CLIK_OK)
        st = clik__check_apart(ctx, src, dst, 0, fn);
    if (st != CLIK_OK)
        return st;
    return run_planned(ctx, &upscale_op, e, e->filters, src, dst);
}

/* ---- training ----------------------------------------------------------------------------- */

/* Per bucket the normal equations of the patch (T = k k taps) against the
 * HR value: sum z z^T (upper triangle, row by row, T (T + 1) / 2), then sum
 * z y (T): `stride` doubles; and the sample count. */
struct clik_lapar_trainer {
    clik_context *ctx;
    clik_lapar_model_options opt;
    model_entry e; /* parameters; no coefficients */
    int taps;      /* T */
    size_t stride; /* T (T + 1) / 2 + T */
    double *acc;   /* e.buckets x stride */
    uint64_t *n;   /* e.buckets */
    uint64_t samples;
};

/* Pivoted Gram-Schmidt on the dictionary: k atoms, each the one whose part
 * orthogonal to those before is largest (ties: the lower index); returned
 * in increasing order. */
static void choose_atoms(int k, int *index)
{
    double d[CLIK_LAPAR_ATOMS * TAPS];
    dictionary(d);
    int taken[CLIK_LAPAR_ATOMS] = {0};
    double basis[TAPS][TAPS];
    for (int j = 0; j < k; j++) {
        int best = -1;
        double best_norm = -1.0, best_r[TAPS];
        for (int l = 0; l < CLIK_LAPAR_ATOMS; l++) {
            if (taken[l])
                continue;
            double r[TAPS];
            memcpy(r, d + l * TAPS, sizeof(r));
            for (int i = 0; i < j; i++) {
                double dot = 0.0;
                for (int t = 0; t < TAPS; t++)
                    dot += r[t] * basis[i][t];
                for (int t = 0; t < TAPS; t++)
                    r[t] -= dot * basis[i][t];
            }
            double norm = 0.0;
            for (int t = 0; t < TAPS; t++)
                norm += r[t] * r[t];
            if (norm > best_norm) {
                best_norm = norm;
                best = l;
                memcpy(best_r, r, sizeof(r));
            }
        }
        taken[best] = 1;
        const double s = best_norm > 0.0 ? 1.0 / sqrt(best_norm) : 0.0;
        for (int t = 0; t < TAPS; t++)
            basis[j][t] = best_r[t] * s;
    }
    for (int l = 0, j = 0; l < CLIK_LAPAR_ATOMS; l++)
        if (taken[l])
            index[j++] = l;
}

clik_status clik_lapar_trainer_create(clik_context *ctx, const clik_lapar_model_options *opt,
                                      clik_lapar_trainer **trainer)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!trainer)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_lapar_trainer_create: trainer is NULL");
    clik_lapar_model_options o;
    if (opt)
        o = *opt;
    else
        clik_lapar_model_options_init(&o);
    model_entry e;
    clik_status st = entry_from_options(ctx, &o, &e);
    if (st != CLIK_OK)
        return st;
    if (e.kind == 1)
        ; /* no atoms */
    else if (e.atoms == CLIK_LAPAR_ATOMS)
        for (int l = 0; l < CLIK_LAPAR_ATOMS; l++)
            e.index[l] = l;
    else
        choose_atoms(e.atoms, e.index);
    const int taps = e.ksize * e.ksize;
    const size_t stride = (size_t)(taps * (taps + 1) / 2 + taps);
    clik_lapar_trainer *t = calloc(1, sizeof(*t));
    if (t) {
        t->acc = calloc((size_t)e.buckets * stride, sizeof(double));
        t->n = calloc((size_t)e.buckets, sizeof(uint64_t));
    }
    if (!t || !t->acc || !t->n) {
        if (t) {
            free(t->acc);
            free(t->n);
        }
        free(t);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_lapar_trainer_create: out of memory");
    }
    t->taps = taps;
    t->stride = stride;
    t->ctx = ctx;
    t->opt = o;
    t->e = e;
    *trainer = t;
    return CLIK_OK;
}

void clik_lapar_trainer_free(clik_lapar_trainer *trainer)
{
    if (!trainer)
        return;
    free(trainer->acc);
    free(trainer->n);
    free(trainer);
}

clik_status clik_lapar_trainer_samples(const clik_lapar_trainer *trainer, uint64_t *samples)
{
    if (!trainer || !samples)
        return CLIK_ERR_NULL;
    *samples = trainer->samples;
    return CLIK_OK;
}

static double host_value(const clik_image *img, int x, int y, int c)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == CLIK_U8)
        return ((const uint8_t *)row)[i];
    return ((const float *)(const void *)row)[i];
}

static int report(const clik_lapar_trainer *t, int stage, long done, long total)
{
    return t->opt.progress ? t->opt.progress(t->opt.progress_user, stage, done, total) : 0;
}

/* Adds the samples of one image: hr (cropped, host), U and its buckets. */
static clik_status accumulate(clik_lapar_trainer *t, const clik_image *hr, const clik_image *up,
                              const clik_image *buckets)
{
    const int w = up->width, h = up->height, ch = up->channels;
    const int colours = ch == 4 ? 3 : ch;
    const int k = t->e.ksize, half = k / 2, taps = t->taps;
    const size_t pt = (size_t)(taps * (taps + 1) / 2);
    for (int y = 0; y < h; y++) {
        const uint16_t *brow = (const uint16_t *)(const void *)((const char *)buckets->data +
                                                                (size_t)y * buckets->stride);
        const float *urows[7];
        for (int r = 0; r < k; r++)
            urows[r] = (const float *)(const void *)((const char *)up->data +
                                                     (size_t)clik__reflect101(y + r - half, h) *
                                                         up->stride);
        for (int x = 0; x < w; x++) {
            double *a = t->acc + (size_t)brow[x] * t->stride;
            int cols[7];
            for (int c = 0; c < k; c++)
                cols[c] = clik__reflect101(x + c - half, w);
            for (int c = 0; c < colours; c++) {
                double z[MAX_TAPS];
                for (int r = 0; r < k; r++)
                    for (int q = 0; q < k; q++)
                        z[k * r + q] = urows[r][(size_t)cols[q] * (size_t)ch + (size_t)c];
                const double target = host_value(hr, x, y, c);
                double *p = a, *rhs = a + pt;
                for (int i = 0; i < taps; i++) {
                    const double zi = z[i];
                    for (int j = i; j < taps; j++)
                        *p++ += zi * z[j];
                    rhs[i] += zi * target;
                }
            }
            t->n[brow[x]] += (uint64_t)colours;
        }
        t->samples += (uint64_t)w * (uint64_t)colours;
        if ((y & 31) == 31 || y == h - 1)
            if (report(t, 0, y + 1, h) != 0)
                return clik__fail(t->ctx, CLIK_ERR_INVALID_ARG,
                                  "clik_lapar_trainer_add: stopped by the progress callback");
    }
    return CLIK_OK;
}

clik_status clik_lapar_trainer_add(clik_lapar_trainer *trainer, const clik_image *hr)
{
    if (!trainer)
        return CLIK_ERR_NULL;
    clik_context *ctx = trainer->ctx;
    const char *fn = "clik_lapar_trainer_add";
    clik_status st = clik__check_format(ctx, hr, "clik_lapar_trainer_add: hr",
                                        CLIK_TYPES(CLIK_U8, CLIK_F32), CLIK_CHANNELS(1, 4), 0, 0);
    if (st != CLIK_OK)
        return st;
    if (!hr->data)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: hr must be a host image", fn);
    const int s = trainer->e.scale;
    clik_image crop = *hr;
    crop.width -= crop.width % s;
    crop.height -= crop.height % s;
    crop.owned = 0;
    if (crop.width == 0 || crop.height == 0)
        return CLIK_OK; /* smaller than the scale: no low-resolution pixel */
    clik_image lr = {0}, up = {0}, buckets = {0};
    st = clik_image_alloc(&lr, crop.width / s, crop.height / s, hr->channels, hr->type);
    if (st == CLIK_OK)
        st = clik_image_alloc(&up, crop.width, crop.height, hr->channels, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_image_alloc(&buckets, crop.width, crop.height, 1, CLIK_U16);
    if (st != CLIK_OK) {
        st = clik__fail(ctx, st, "%s: out of memory", fn);
    } else {
        st = clik_resize(ctx, &crop, &lr, CLIK_INTERP_BICUBIC_AA);
        if (st == CLIK_OK)
            st = clik_lapar_upsample(ctx, &lr, s, &up);
        if (st == CLIK_OK)
            st = run_planned(ctx, &classify_op, &trainer->e, NULL, &up, &buckets);
        if (st == CLIK_OK)
            st = accumulate(trainer, &crop, &up, &buckets);
    }
    clik_image_free(&lr);
    clik_image_free(&up);
    clik_image_free(&buckets);
    return st;
}

/* Cholesky solve of (g + lambda I) x = rhs, g n x n; 0 on success. */
static int solve_ridge(const double *g, int n, double lambda, const double *rhs, double *x)
{
    double *l = malloc(sizeof(double) * (size_t)n * (size_t)n);
    if (!l)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = g[i * n + j] + (i == j ? lambda : 0.0);
            for (int k = 0; k < j; k++)
                s -= l[i * n + k] * l[j * n + k];
            if (i == j) {
                if (!(s > 0.0) || !isfinite(s)) {
                    free(l);
                    return -1;
                }
                l[i * n + i] = sqrt(s);
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    for (int i = 0; i < n; i++) {
        double s = rhs[i];
        for (int k = 0; k < i; k++)
            s -= l[i * n + k] * x[k];
        x[i] = s / l[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int k = i + 1; k < n; k++)
            s -= l[k * n + i] * x[k];
        x[i] = s / l[i * n + i];
    }
    free(l);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -1;
    return 0;
}

/* Index of (i, j), i <= j, in the upper triangle of a T x T matrix stored
 * row by row. */
static size_t tri(int T, int i, int j)
{
    return (size_t)i * (size_t)T - (size_t)i * (size_t)(i - 1) / 2 + (size_t)(j - i);
}

/* The full T x T matrix of accumulated equations a (upper triangle). */
static void full_matrix(const double *a, int T, double *full)
{
    const double *p = a;
    for (int i = 0; i < T; i++)
        for (int j = i; j < T; j++)
            full[i * T + j] = full[j * T + i] = *p++;
}

/* c = x y, c rows x cols (row by row), the TAPS terms of each element summed
 * in order: x[i][k] at x[i * xr + k * xk], y[k][j] at y[k * yk + j * yc]. */
static void product(const double *x, int xr, int xk, const double *y, int yk, int yc, int rows,
                    int cols, double *c)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double s = 0.0;
            for (int k = 0; k < TAPS; k++)
                s += x[i * xr + k * xk] * y[k * yk + j * yc];
            c[i * cols + j] = s;
        }
}

/* The atoms' normal equations of accumulated patch equations a (25 taps):
 * g = D P D^T, r = D q (d: the model's atoms, L x 25). */
static void atom_equations(const double *a, const double *d, int L, double *g, double *r)
{
    double full[TAPS * TAPS];
    full_matrix(a, TAPS, full);
    const double *q = a + TAPS * (TAPS + 1) / 2;
    product(d, TAPS, 1, q, 1, 0, L, 1, r);
    double m[CLIK_LAPAR_ATOMS * TAPS];
    product(d, TAPS, 1, full, TAPS, 1, L, TAPS, m);
    product(m, TAPS, 1, d, 1, TAPS, L, L, g);
}

/* Ridge solution of the equations a (stride doubles) toward prior (NULL: 0);
 * d NULL: a free filter (the unknowns are the L = T taps), else L atoms of
 * d. 0 on success. */
static int fit(const double *a, int T, const double *d, int L, double alpha, const double *prior,
               double *g, double *r, double *x)
{
    if (d) {
        atom_equations(a, d, L, g, r);
    } else {
        full_matrix(a, T, g);
        memcpy(r, a + T * (T + 1) / 2, sizeof(double) * (size_t)T);
    }
    double trace = 0.0;
    for (int i = 0; i < L; i++)
        trace += g[i * L + i];
    const double lambda = (alpha > 1e-9 ? alpha : 1e-9) * (trace > 0.0 ? trace / L : 1.0);
    for (int i = 0; i < L; i++)
        r[i] += lambda * (prior ? prior[i] : 0.0);
    return solve_ridge(g, L, lambda, r, x);
}

static void accum_add(double *to, const double *a, size_t stride)
{
    for (size_t i = 0; i < stride; i++)
        to[i] += a[i];
}

/* The equations of every bucket moved by every element of the model's group
 * into the bucket it lands in (the equations of training on every
 * transformed image): into aug (buckets x stride) and its counts. */
static void augment(const clik_lapar_trainer *t, double *aug, uint64_t *n)
{
    const model_entry *e = &t->e;
    const int T = t->taps, k = e->ksize;
    int move[MAX_TAPS];
    for (int gi = 0; gi < e->symmetry; gi++) {
        const int g = group_element(e->symmetry, gi);
        for (int i = 0; i < T; i++)
            move[i] = group_tap(k, g, i);
        for (int b = 0; b < e->buckets; b++) {
            const int to = group_bucket(e, g, b);
            const double *a = t->acc + (size_t)b * t->stride;
            double *o = aug + (size_t)to * t->stride;
            const double *p = a;
            for (int i = 0; i < T; i++)
                for (int j = i; j < T; j++) {
                    const int mi = move[i], mj = move[j];
                    o[mi <= mj ? tri(T, mi, mj) : tri(T, mj, mi)] += *p++;
                }
            const size_t pt = (size_t)(T * (T + 1) / 2);
            for (int i = 0; i < T; i++)
                o[pt + (size_t)move[i]] += a[pt + (size_t)i];
            n[to] += t->n[b];
        }
    }
}

clik_status clik_lapar_trainer_solve(clik_lapar_trainer *trainer, clik_lapar_model **model)
{
    if (!trainer)
        return CLIK_ERR_NULL;
    clik_context *ctx = trainer->ctx;
    const char *fn = "clik_lapar_trainer_solve";
    if (!model)
        return clik__fail(ctx, CLIK_ERR_NULL, "%s: model is NULL", fn);
    if (trainer->samples == 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "%s: no samples (add images of at least the scale on each side)", fn);
    const model_entry *pe = &trainer->e;
    const int T = trainer->taps, B = pe->buckets;
    const int L = pe->kind == 1 ? T : pe->atoms;
    const size_t stride = trainer->stride;
    const int phases = pe->phases ? pe->scale * pe->scale : 1, per_phase = B / phases;
    double d[CLIK_LAPAR_ATOMS * TAPS], all_d[CLIK_LAPAR_ATOMS * TAPS];
    const double *dp = NULL;
    if (pe->kind == 0) {
        dictionary(all_d);
        for (int l = 0; l < L; l++)
            memcpy(d + l * TAPS, all_d + pe->index[l] * TAPS, sizeof(double) * TAPS);
        dp = d;
    }
    clik_lapar_model *m = model_new();
    double *g = malloc(sizeof(double) * (size_t)L * (size_t)L);
    double *r = malloc(sizeof(double) * (size_t)L);
    double *global = malloc(sizeof(double) * (size_t)L);
    double *prior = malloc(sizeof(double) * (size_t)L * (size_t)phases);
    double *x = malloc(sizeof(double) * (size_t)L);
    double *pool = malloc(sizeof(double) * stride);
    double *aug = NULL;
    uint64_t *aug_n = NULL;
    const double *acc = trainer->acc;
    const uint64_t *acc_n = trainer->n;
    clik_status st = CLIK_OK;
    if (!m || !g || !r || !global || !prior || !x || !pool) {
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    if (pe->symmetry > 1) {
        aug = calloc((size_t)B * stride, sizeof(double));
        aug_n = calloc((size_t)B, sizeof(uint64_t));
        if (!aug || !aug_n) {
            st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
            goto done;
        }
        augment(trainer, aug, aug_n);
        acc = aug;
        acc_n = aug_n;
    }
    m->count = 1;
    m->e[0] = *pe;
    model_entry *e = &m->e[0];
    e->coef = malloc(sizeof(float) * (size_t)e->stored * (size_t)L);
    e->filters = alloc_filters(e);
    if (!e->coef || !e->filters) {
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    /* The whole model's pooled solution, then each phase's toward it. */
    uint64_t pool_n = 0;
    memset(pool, 0, sizeof(double) * stride);
    for (int b = 0; b < B; b++)
        accum_add(pool, acc + (size_t)b * stride, stride);
    if (fit(pool, T, dp, L, trainer->opt.alpha, NULL, g, r, global) != 0) {
        st = clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                        "%s: the pooled equations are singular (no usable samples)", fn);
        goto done;
    }
    for (int ph = 0; ph < phases; ph++) {
        memset(pool, 0, sizeof(double) * stride);
        pool_n = 0;
        for (int b = ph * per_phase; b < (ph + 1) * per_phase; b++) {
            accum_add(pool, acc + (size_t)b * stride, stride);
            pool_n += acc_n[b];
        }
        double *pp = prior + (size_t)ph * (size_t)L;
        if (pool_n == 0 || fit(pool, T, dp, L, trainer->opt.alpha, global, g, r, pp) != 0)
            memcpy(pp, global, sizeof(double) * (size_t)L);
    }
    /* Each stored bucket (the least of its orbit) toward its phase's. */
    for (int b = 0, row = 0; b < B; b++) {
        if ((b & 63) == 63 || b == B - 1)
            if (report(trainer, 1, b + 1, B) != 0) {
                st = clik__fail(ctx, CLIK_ERR_INVALID_ARG, "%s: stopped by the progress callback",
                                fn);
                goto done;
            }
        if (e->symmetry > 1 && group_canonical(e, b, NULL) != b)
            continue;
        const double *pp = prior + (size_t)(b / per_phase) * (size_t)L;
        if (acc_n[b] < (uint64_t)trainer->opt.min_samples || acc_n[b] == 0 ||
            fit(acc + (size_t)b * stride, T, dp, L, trainer->opt.alpha, pp, g, r, x) != 0)
            memcpy(x, pp, sizeof(double) * (size_t)L);
        for (int l = 0; l < L; l++) {
            float c = (float)x[l];
            if (e->f16)
                c = clik__half_to_float(clik__float_to_half(c));
            e->coef[(size_t)row * (size_t)L + (size_t)l] = isfinite(c) ? c : 0.0f;
        }
        row++;
    }
    const int made = make_filters(e);
    if (made != 0) {
        st = made == -2 ? clik__fail(ctx, CLIK_ERR_OVERFLOW, "%s: a filter is not finite", fn)
                        : clik__fail(ctx, CLIK_ERR_NO_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    *model = m;
    m = NULL;
done:
    clik_lapar_model_free(m);
    free(g);
    free(r);
    free(global);
    free(prior);
    free(x);
    free(pool);
    free(aug);
    free(aug_n);
    return st;
}

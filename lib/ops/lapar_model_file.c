/*
 * LAPAR model family: the model file (clik_lapar_model_read, _load,
 * _write) and the model embedded in the library (clik_lapar_model_default).
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
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapar_model_entry.h"

/* lib/models/lapar_default.clikm, embedded by lib/embed.c (--blob). */
extern const unsigned char clik__lapar_model_blob[];
extern const size_t clik__lapar_model_blob_size;

#define MAGIC          "CLIKLPM"
#define VERSION        2u
#define HEADER_BYTES   24u
#define ENTRY_FIELDS   13
#define ENTRY_BYTES    (4u * ENTRY_FIELDS)
#define ENTRY_FIELDS_1 10 /* version 1 */
#define MAX_FILE_BYTES (64u << 20)

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
    if (f[5] > 9 || !clik__lmodel_valid_window((int)f[5]))
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
    const long buckets =
        clik__lmodel_bucket_count((int)f[0], (int)f[1], (int)f[2], (int)f[3], (int)f[4]);
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
    e->stored = e->symmetry == 1 ? e->buckets : clik__lmodel_stored_count(e);
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
    e->filters = clik__lmodel_alloc_filters(e);
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
    const int made = clik__lmodel_make_filters(e);
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
    clik_lapar_model *m = clik__lmodel_model_new();
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
    return clik__lmodel_entry_for(default_model, scale) ? default_model : NULL;
}

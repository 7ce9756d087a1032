/*
 * NumPy .npy arrays: "\x93NUMPY", a version, a header length, then a Python
 * dict literal such as {'descr': '<u2', 'fortran_order': False, 'shape': (4, 6, 2), }
 * and the raw elements. Only the subset numpy writes for plain arrays is
 * understood: the parser accepts literal strings, True/False and tuples of
 * integers, and nothing else.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "imageio_private.h"

/* numpy itself refuses headers above 10000 bytes by default; this leaves
 * room for hand-made files while bounding what a corrupt length allocates. */
#define NPY_MAX_HEADER 100000
#define NPY_ALIGN      64 /* numpy pads the header so that data starts aligned */
#define NPY_MAX_NDIM   64

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static const struct {
    clik_type type;
    char kind; /* numpy's kind letter: 'u', 'i' or 'f' */
    unsigned size;
} dtypes[] = {
    {CLIK_U8, 'u', 1},  {CLIK_S16, 'i', 2}, {CLIK_U16, 'u', 2},
    {CLIK_S32, 'i', 4}, {CLIK_U32, 'u', 4}, {CLIK_U64, 'u', 8},
    {CLIK_F16, 'f', 2}, {CLIK_F32, 'f', 4}, {CLIK_F64, 'f', 8},
};

/* Reverses the bytes of each element (for big-endian hosts). */
static void swap_elements(unsigned char *data, size_t count, size_t size)
{
    for (size_t i = 0; i < count; i++, data += size) {
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = data[a];
            data[a] = data[b];
            data[b] = t;
        }
    }
}

/* ---- writing --------------------------------------------------------------- */

static int dtype_index(clik_type type)
{
    for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
        if (dtypes[i].type == type)
            return (int)i;
    }
    return -1;
}

static clik_status write_header(FILE *fp, const char *path, const clik_image *img, int channels,
                                char *err, size_t errlen)
{
    int d = dtype_index(img->type);
    if (d < 0)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: no .npy dtype for %s",
                            path, clik_type_name(img->type));
    char descr[8];
    snprintf(descr, sizeof(descr), "%c%c%u", dtypes[d].size == 1 ? '|' : '<', dtypes[d].kind,
             dtypes[d].size);
    char shape[64];
    if (channels == 1)
        snprintf(shape, sizeof(shape), "(%d, %d)", img->height, img->width);
    else
        snprintf(shape, sizeof(shape), "(%d, %d, %d)", img->height, img->width, channels);

    /* 10 bytes of preamble, the dict, spaces, then '\n' ending on a multiple
     * of NPY_ALIGN, as numpy writes it. */
    char header[NPY_ALIGN * 3];
    int len = snprintf(header + 10, sizeof(header) - 10,
                       "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    size_t total = ((size_t)len + 10 + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    memcpy(header, npy_magic, sizeof(npy_magic));
    header[6] = 1; /* version 1.0 */
    header[7] = 0;
    header[8] = (char)((total - 10) & 0xFF);
    header[9] = (char)((total - 10) >> 8);
    memset(header + 10 + len, ' ', total - 10 - (size_t)len - 1);
    header[total - 1] = '\n';
    if (fwrite(header, 1, total, fp) != total)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write error", path);
    return CLIK_OK;
}

clik_status clikio__npy_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen)
{
    /* Without keep_alpha a 4-channel image is written as (H, W, 3), as the
     * image formats write RGB. */
    int channels = img->channels == 4 && !keep_alpha ? 3 : img->channels;
    clik_status st = write_header(fp, path, img, channels, err, errlen);
    if (st != CLIK_OK)
        return st;
    size_t esize = clik_type_size(img->type);
    size_t count = (size_t)img->width * (size_t)channels;
    size_t row_bytes = count * esize;
    unsigned char *packed = NULL;
    if (channels != img->channels || (esize > 1 && !clikio__host_is_little_endian())) {
        packed = malloc(row_bytes);
        if (!packed)
            return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    size_t pixel = esize * (size_t)img->channels, kept = esize * (size_t)channels;
    for (int y = 0; y < img->height && st == CLIK_OK; y++) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * img->stride;
        if (packed) {
            for (int x = 0; x < img->width; x++)
                memcpy(packed + (size_t)x * kept, row + (size_t)x * pixel, kept);
            if (!clikio__host_is_little_endian())
                swap_elements(packed, count, esize);
            row = packed;
        }
        if (fwrite(row, 1, row_bytes, fp) != row_bytes)
            st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write error", path);
    }
    free(packed);
    return st;
}

/* ---- header parsing ---------------------------------------------------------- */

typedef struct cursor {
    const char *p;
    const char *end;
} cursor;

typedef struct npy_header {
    char descr[32];
    int descr_seen;
    int structured; /* descr is a list of fields, not a string */
    int fortran;
    int fortran_seen;
    int ndim; /* -1 until the shape is seen */
    uint64_t dims[3];
} npy_header;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Consumes ch (after spaces) if it comes next. */
static int accept(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

static int next_is_quote(cursor *c)
{
    skip_space(c);
    return c->p < c->end && (*c->p == '\'' || *c->p == '"');
}

/* A quoted string without escapes, at most cap - 1 characters. */
static int parse_string(cursor *c, char *out, size_t cap)
{
    if (!next_is_quote(c))
        return 0;
    char quote = *c->p++;
    size_t n = 0;
    for (; c->p < c->end && *c->p != quote; c->p++) {
        if (*c->p == '\\' || n + 1 >= cap)
            return 0;
        out[n++] = *c->p;
    }
    if (c->p == c->end)
        return 0;
    c->p++;
    out[n] = '\0';
    return 1;
}

static int parse_bool(cursor *c, int *value)
{
    skip_space(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
        c->p += 4;
        *value = 1;
        return 1;
    }
    if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
        c->p += 5;
        *value = 0;
        return 1;
    }
    return 0;
}

/* A non-negative integer; an 'L' suffix (Python 2 longs) is allowed. */
static int parse_dim(cursor *c, uint64_t *value)
{
    skip_space(c);
    if (c->p == c->end || *c->p < '0' || *c->p > '9')
        return 0;
    uint64_t v = 0;
    for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
        unsigned digit = (unsigned)(*c->p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return 0;
        v = v * 10 + digit;
    }
    if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
        c->p++;
    *value = v;
    return 1;
}

/* "(a, b, c)", "(a,)" or "()". */
static int parse_shape(cursor *c, npy_header *h)
{
    if (!accept(c, '('))
        return 0;
    h->ndim = 0;
    if (accept(c, ')'))
        return 1;
    for (;;) {
        uint64_t dim;
        if (!parse_dim(c, &dim) || h->ndim >= NPY_MAX_NDIM)
            return 0;
        if (h->ndim < 3)
            h->dims[h->ndim] = dim;
        h->ndim++;
        if (accept(c, ')'))
            return 1;
        if (!accept(c, ','))
            return 0;
        if (accept(c, ')'))
            return 1;
    }
}

/* One "'key': value" entry. Returns 0 on a syntax error or a repeated or
 * unknown key. */
static int parse_entry(cursor *c, npy_header *h)
{
    char key[32];
    if (!parse_string(c, key, sizeof(key)) || !accept(c, ':'))
        return 0;
    if (strcmp(key, "descr") == 0 && !h->descr_seen) {
        h->descr_seen = 1;
        if (!next_is_quote(c)) {
            h->structured = 1; /* a list of fields: no image, stop here */
            return 1;
        }
        return parse_string(c, h->descr, sizeof(h->descr));
    }
    if (strcmp(key, "fortran_order") == 0 && !h->fortran_seen) {
        h->fortran_seen = 1;
        return parse_bool(c, &h->fortran);
    }
    if (strcmp(key, "shape") == 0 && h->ndim < 0)
        return parse_shape(c, h);
    return 0;
}

/* Parses the dict literal of a header. Returns 0 when it is malformed. */
static int parse_header(const char *text, size_t len, npy_header *h)
{
    memset(h, 0, sizeof(*h));
    h->ndim = -1;
    cursor c = {text, text + len};
    if (!accept(&c, '{'))
        return 0;
    while (!accept(&c, '}')) {
        if (!parse_entry(&c, h))
            return 0;
        if (h->structured)
            return 1;
        if (!accept(&c, ',')) {
            if (!accept(&c, '}'))
                return 0;
            break;
        }
    }
    skip_space(&c);
    return c.p == c.end && h->descr_seen && h->fortran_seen && h->ndim >= 0;
}

/* ---- reading --------------------------------------------------------------- */

static clik_status truncated(FILE *fp, const char *path, const char *what, char *err, size_t errlen)
{
    if (ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: .npy %s is truncated", path, what);
}

/* Reads the magic, the version and the header text (malloc'ed into *text). */
static clik_status read_header_text(FILE *fp, int64_t size, const char *path, char **text,
                                    size_t *len, char *err, size_t errlen)
{
    unsigned char pre[12];
    size_t n = fread(pre, 1, 8, fp);
    if (n < 8 && ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    if (memcmp(pre, npy_magic, n < 6 ? n : 6) != 0)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s is not a .npy file", path);
    if (n < 8)
        return truncated(fp, path, "header", err, errlen);
    int major = pre[6], minor = pre[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: unknown .npy format version %d.%d", path, major, minor);
    /* Version 1.0 has a 16-bit header length, later versions 32 bits. */
    size_t width = major == 1 ? 2 : 4;
    if (fread(pre + 8, 1, width, fp) != width)
        return truncated(fp, path, "header", err, errlen);
    uint32_t hlen = pre[8] | (uint32_t)pre[9] << 8;
    if (width == 4)
        hlen |= (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    if (hlen > NPY_MAX_HEADER)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: .npy header of %lu bytes is too long", path, (unsigned long)hlen);
    int64_t left = clikio__bytes_left(fp, size);
    if (left >= 0 && left < (int64_t)hlen)
        return truncated(fp, path, "header", err, errlen);
    char *buf = malloc((size_t)hlen + 1);
    if (!buf)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    if (fread(buf, 1, hlen, fp) != hlen) {
        free(buf);
        return truncated(fp, path, "header", err, errlen);
    }
    buf[hlen] = '\0';
    *text = buf;
    *len = hlen;
    return CLIK_OK;
}

/* Maps a descr string, a byte order, a kind letter and a size ("<f4"), to a
 * clik type, or explains why it has none. */
static clik_status type_of_descr(const char *descr, const char *path, clik_type *type, char *err,
                                 size_t errlen)
{
    int found = -1;
    if (strlen(descr) == 3 && strchr("<>|=", descr[0]) && descr[2] >= '1' && descr[2] <= '9') {
        for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
            if (dtypes[i].kind == descr[1] && dtypes[i].size == (unsigned)(descr[2] - '0'))
                found = (int)i;
        }
    }
    if (found < 0)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: .npy dtype '%s' is not supported", path, descr);
    char order = descr[0];
    int host_le = clikio__host_is_little_endian();
    /* Byte order means nothing for one byte (numpy writes '|' then). */
    if (dtypes[found].size > 1) {
        if (order == '>' || (order == '=' && !host_le))
            return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                                "%s: big-endian .npy data ('%s') is not supported", path, descr);
        if (order == '|')
            return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                                "%s: .npy dtype '%s' has no byte order", path, descr);
    }
    *type = dtypes[found].type;
    return CLIK_OK;
}

/* Turns a parsed header into the image layout, checking everything: its
 * type, channels and the size of the image (rows, cols). planes: a 3-D
 * array (P, H, W) is P planes stacked, one channel of P * H rows. */
static clik_status layout_of(const npy_header *h, const char *path, int planes, clik_type *type,
                             int *channels, uint64_t *rows, uint64_t *cols, char *err,
                             size_t errlen)
{
    if (h->structured)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: structured .npy dtypes are not supported", path);
    clik_status st = type_of_descr(h->descr, path, type, err, errlen);
    if (st != CLIK_OK)
        return st;
    if (h->fortran)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: Fortran-order .npy arrays are not supported", path);
    if (h->ndim != 2 && h->ndim != 3)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: a %d-D .npy array is not an image, which is (H, W) or (H, W, C)",
                            path, h->ndim);
    *rows = h->dims[0];
    *cols = h->dims[1];
    if (planes && h->ndim == 3) {
        if (h->dims[0] == 0 || h->dims[1] == 0 || h->dims[2] == 0)
            return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: .npy array is empty",
                                path);
        /* Each factor is checked first, so the product cannot wrap. */
        if (h->dims[0] > CLIKIO_MAX_DIM || h->dims[1] > CLIKIO_MAX_DIM)
            return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                "%s: .npy planes (%llu, %llu, ...) are past %d rows", path,
                                (unsigned long long)h->dims[0], (unsigned long long)h->dims[1],
                                CLIKIO_MAX_DIM);
        *rows = h->dims[0] * h->dims[1];
        *cols = h->dims[2];
        *channels = 1;
        return clikio__check_dims(path, ".npy", *cols, *rows, err, errlen);
    }
    uint64_t c = h->ndim == 3 ? h->dims[2] : 1;
    if (c < 1 || c > 4)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: .npy array has %llu channels; images have 1, 2, 3 or 4", path,
                            (unsigned long long)c);
    if (h->dims[0] == 0 || h->dims[1] == 0)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT, "%s: .npy array is empty",
                            path);
    *channels = (int)c;
    return clikio__check_dims(path, ".npy", h->dims[1], h->dims[0], err, errlen);
}

static clik_status read_elements(FILE *fp, const char *path, clik_image *img, char *err,
                                 size_t errlen)
{
    size_t esize = clik_type_size(img->type);
    size_t bytes = (size_t)img->height * img->stride; /* packed: stride is the row size */
    if (fread(img->data, 1, bytes, fp) != bytes)
        return truncated(fp, path, "data", err, errlen);
    if (esize > 1 && !clikio__host_is_little_endian())
        swap_elements(img->data, bytes / esize, esize);
    return CLIK_OK;
}

static clik_status npy_read(FILE *fp, int64_t size, const char *path, int planes, clik_image *img,
                            char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    clik_status st = read_header_text(fp, size, path, &text, &len, err, errlen);
    if (st != CLIK_OK)
        return st;
    npy_header h;
    int parsed = parse_header(text, len, &h);
    free(text);
    if (!parsed)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: malformed .npy header", path);
    clik_type type = CLIK_U8;
    int channels = 1;
    uint64_t rows = 0, cols = 0;
    st = layout_of(&h, path, planes, &type, &channels, &rows, &cols, err, errlen);
    if (st != CLIK_OK)
        return st;

    /* Checked before allocating, so a short file cannot claim gigabytes. */
    uint64_t need = rows * cols * (uint64_t)channels * clik_type_size(type);
    int64_t left = clikio__bytes_left(fp, size);
    if (left >= 0 && (uint64_t)left < need)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: .npy data is truncated (%lld bytes where %llu are needed)", path,
                            (long long)left, (unsigned long long)need);
    st = clik_image_alloc(img, (int)cols, (int)rows, channels, type);
    if (st != CLIK_OK)
        return clikio__fail(err, errlen, st, "%s: cannot allocate the image (%s)", path,
                            clik_status_str(st));
    st = read_elements(fp, path, img, err, errlen);
    if (st != CLIK_OK)
        clik_image_free(img);
    return st;
}

clik_status clikio__npy_read(FILE *fp, int64_t size, const char *path, clik_image *img, char *err,
                             size_t errlen)
{
    return npy_read(fp, size, path, 0, img, err, errlen);
}

clik_status clikio__npy_read_planes(FILE *fp, int64_t size, const char *path, clik_image *img,
                                    char *err, size_t errlen)
{
    return npy_read(fp, size, path, 1, img, err, errlen);
}

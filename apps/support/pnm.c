/*
 * Netpbm grey and colour maps: binary P5/P6 and plain (ASCII) P2/P3, with
 * maxval 1..65535. Samples are scaled from 0..maxval to the full range of
 * the image type (u8 up to maxval 255, u16 above), since maxval says what
 * "full intensity" is; files written here use maxval 255 or 65535, so they
 * round-trip exactly.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "imageio_private.h"

typedef struct pnm_header {
    int plain;   /* ASCII samples (P2, P3) */
    int samples; /* per pixel: 1 for grey, 3 for RGB */
    unsigned long width;
    unsigned long height;
    unsigned maxval;
} pnm_header;

/* Outcomes of read_number(). */
enum { NUMBER_OK, NUMBER_EOF, NUMBER_BAD, NUMBER_RANGE };

/* ---- reading --------------------------------------------------------------- */

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Skips whitespace and '#' comments; returns the next character, consumed. */
static int skip_blanks(FILE *fp)
{
    for (;;) {
        int c = getc(fp);
        if (c == '#') {
            do
                c = getc(fp);
            while (c != EOF && c != '\n' && c != '\r');
            continue;
        }
        if (!is_space(c))
            return c;
    }
}

/* Reads a decimal number after any blanks. The character after the digits
 * must be whitespace, which is consumed (it is the single separator before
 * binary data), or '#' or the end of file, which are left; *after gets it. */
static int read_number(FILE *fp, unsigned long limit, unsigned long *value, int *after)
{
    int c = skip_blanks(fp);
    if (c == EOF)
        return NUMBER_EOF;
    if (c < '0' || c > '9')
        return NUMBER_BAD;
    unsigned long v = 0;
    int too_big = 0;
    for (; c >= '0' && c <= '9'; c = getc(fp)) {
        unsigned digit = (unsigned)(c - '0');
        if (v > (limit - digit) / 10)
            too_big = 1;
        else
            v = v * 10 + digit;
    }
    if (after)
        *after = c;
    if (c == '#')
        ungetc(c, fp);
    else if (c != EOF && !is_space(c))
        return NUMBER_BAD;
    if (too_big)
        return NUMBER_RANGE;
    *value = v;
    return NUMBER_OK;
}

static clik_status header_problem(FILE *fp, const char *path, int outcome, const char *field,
                                  char *err, size_t errlen)
{
    if (ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    switch (outcome) {
    case NUMBER_EOF:
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: PNM header is truncated", path);
    case NUMBER_RANGE:
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: PNM %s is out of range", path,
                            field);
    default:
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: malformed PNM header (bad %s)",
                            path, field);
    }
}

static clik_status read_magic(FILE *fp, const char *path, pnm_header *h, char *err, size_t errlen)
{
    int p = getc(fp);
    int kind = getc(fp);
    if (p != 'P' || (kind != EOF && (kind < '1' || kind > '7')))
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s is not a PGM/PPM file", path);
    switch (kind) {
    case '2': *h = (pnm_header){.plain = 1, .samples = 1}; break;
    case '3': *h = (pnm_header){.plain = 1, .samples = 3}; break;
    case '5': *h = (pnm_header){.plain = 0, .samples = 1}; break;
    case '6': *h = (pnm_header){.plain = 0, .samples = 3}; break;
    case '1':
    case '4':
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: 1-bit PBM files are not supported", path);
    case '7':
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: PAM files are not supported",
                            path);
    default: return header_problem(fp, path, NUMBER_EOF, "magic", err, errlen);
    }
    int c = getc(fp);
    if (c == EOF)
        return header_problem(fp, path, NUMBER_EOF, "magic", err, errlen);
    if (!is_space(c) && c != '#')
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s is not a PGM/PPM file", path);
    ungetc(c, fp);
    return CLIK_OK;
}

static clik_status read_header(FILE *fp, const char *path, pnm_header *h, char *err, size_t errlen)
{
    clik_status st = read_magic(fp, path, h, err, errlen);
    if (st != CLIK_OK)
        return st;
    unsigned long maxval = 0;
    int after = 0;
    int outcome = read_number(fp, 0xFFFFFFFFul, &h->width, NULL);
    if (outcome != NUMBER_OK)
        return header_problem(fp, path, outcome, "width", err, errlen);
    outcome = read_number(fp, 0xFFFFFFFFul, &h->height, NULL);
    if (outcome != NUMBER_OK)
        return header_problem(fp, path, outcome, "height", err, errlen);
    st = clikio__check_dims(path, "PNM", h->width, h->height, err, errlen);
    if (st != CLIK_OK)
        return st;
    outcome = read_number(fp, 65535, &maxval, &after);
    if (outcome == NUMBER_OK && maxval == 0)
        outcome = NUMBER_RANGE;
    if (outcome != NUMBER_OK)
        return header_problem(fp, path, outcome, "maxval", err, errlen);
    /* Binary data starts right after one whitespace character. */
    if (!h->plain && !is_space(after))
        return header_problem(fp, path, after == EOF ? NUMBER_EOF : NUMBER_BAD, "maxval", err,
                              errlen);
    h->maxval = (unsigned)maxval;
    return CLIK_OK;
}

/* Refuses, before the image is allocated, a file too short to hold the
 * samples its header announces. */
static clik_status check_data_size(FILE *fp, int64_t size, const char *path, const pnm_header *h,
                                   char *err, size_t errlen)
{
    int64_t left = clikio__bytes_left(fp, size);
    uint64_t count = (uint64_t)h->width * h->height * (uint64_t)h->samples;
    /* A plain sample takes at least a digit and a separator (bar the last). */
    uint64_t need = h->plain ? 2 * count - 1 : count * (h->maxval > 255 ? 2u : 1u);
    if (left >= 0 && (uint64_t)left < need)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: pixel data is truncated (%lld bytes where %llu are needed)", path,
                            (long long)left, (unsigned long long)need);
    return CLIK_OK;
}

static clik_status truncated_data(FILE *fp, const char *path, char *err, size_t errlen)
{
    if (ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: pixel data is truncated", path);
}

static clik_status read_row_binary(FILE *fp, const char *path, const pnm_header *h,
                                   unsigned char *bytes, uint16_t *samples, char *err,
                                   size_t errlen)
{
    size_t count = (size_t)h->width * (size_t)h->samples;
    size_t size = h->maxval > 255 ? 2 : 1;
    if (fread(bytes, size, count, fp) != count)
        return truncated_data(fp, path, err, errlen);
    for (size_t i = 0; i < count; i++)
        samples[i] = size == 2 ? (uint16_t)(bytes[2 * i] << 8 | bytes[2 * i + 1]) : bytes[i];
    return CLIK_OK;
}

static clik_status read_row_plain(FILE *fp, const char *path, const pnm_header *h,
                                  uint16_t *samples, char *err, size_t errlen)
{
    size_t count = (size_t)h->width * (size_t)h->samples;
    for (size_t i = 0; i < count; i++) {
        unsigned long v = 0;
        int outcome = read_number(fp, 65535, &v, NULL);
        if (outcome == NUMBER_EOF)
            return truncated_data(fp, path, err, errlen);
        if (outcome == NUMBER_BAD)
            return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                "%s: malformed sample in plain PNM data", path);
        if (outcome == NUMBER_RANGE || v > h->maxval)
            return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                "%s: a sample is above maxval %u", path, h->maxval);
        samples[i] = (uint16_t)v;
    }
    return CLIK_OK;
}

/* Checks, scales and stores one row of samples into row y of img. */
static clik_status store_row(const char *path, const pnm_header *h, const uint16_t *samples,
                             clik_image *img, int y, char *err, size_t errlen)
{
    uint32_t top = img->type == CLIK_U16 ? 65535u : 255u;
    uint32_t maxval = h->maxval;
    unsigned char *row = (unsigned char *)img->data + (size_t)y * img->stride;
    for (int x = 0; x < img->width; x++) {
        for (int c = 0; c < img->channels; c++) {
            uint32_t v = top; /* alpha of a widened RGB pixel */
            if (c < h->samples) {
                v = samples[(size_t)x * (size_t)h->samples + (size_t)c];
                if (v > maxval)
                    return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                        "%s: sample %u is above maxval %u", path, (unsigned)v,
                                        (unsigned)maxval);
                /* Rounded; at most 65535 * 65535 + 32767, which fits 32 bits. */
                if (maxval != top)
                    v = (v * top + maxval / 2) / maxval;
            }
            size_t at = (size_t)x * (size_t)img->channels + (size_t)c;
            if (img->type == CLIK_U16) {
                uint16_t s = (uint16_t)v;
                memcpy(row + 2 * at, &s, 2);
            } else {
                row[at] = (unsigned char)v;
            }
        }
    }
    return CLIK_OK;
}

static clik_status read_pixels(FILE *fp, const char *path, const pnm_header *h, clik_image *img,
                               char *err, size_t errlen)
{
    size_t count = (size_t)h->width * (size_t)h->samples;
    uint16_t *samples = malloc(count * sizeof(*samples));
    unsigned char *bytes = h->plain ? NULL : malloc(count * 2);
    clik_status st = CLIK_OK;
    if (!samples || (!h->plain && !bytes))
        st = clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    for (int y = 0; st == CLIK_OK && y < img->height; y++) {
        if (h->plain)
            st = read_row_plain(fp, path, h, samples, err, errlen);
        else
            st = read_row_binary(fp, path, h, bytes, samples, err, errlen);
        if (st == CLIK_OK)
            st = store_row(path, h, samples, img, y, err, errlen);
    }
    free(bytes);
    free(samples);
    return st;
}

clik_status clikio__pnm_read(FILE *fp, int64_t size, const char *path, clik_image *img, char *err,
                             size_t errlen)
{
    pnm_header h;
    clik_status st = read_header(fp, path, &h, err, errlen);
    if (st == CLIK_OK)
        st = check_data_size(fp, size, path, &h, err, errlen);
    if (st != CLIK_OK)
        return st;
    st = clik_image_alloc(img, (int)h.width, (int)h.height, h.samples == 3 ? 4 : 1,
                          h.maxval > 255 ? CLIK_U16 : CLIK_U8);
    if (st != CLIK_OK)
        return clikio__fail(err, errlen, st, "%s: cannot allocate the image (%s)", path,
                            clik_status_str(st));
    st = read_pixels(fp, path, &h, img, err, errlen);
    if (st != CLIK_OK)
        clik_image_free(img);
    return st;
}

/* ---- writing --------------------------------------------------------------- */

/* Writes the rows of img as `samples` samples per pixel (1 grey, 3 RGB),
 * big-endian when 16-bit. Grey becomes RGB by repetition; alpha is dropped. */
static clik_status write_pixels(FILE *fp, const char *path, const clik_image *img, int samples,
                                char *err, size_t errlen)
{
    int wide = img->type == CLIK_U16;
    size_t size = wide ? 2 : 1;
    unsigned char *out = malloc((size_t)img->width * (size_t)samples * size);
    if (!out)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    clik_status st = CLIK_OK;
    for (int y = 0; y < img->height && st == CLIK_OK; y++) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * img->stride;
        size_t n = 0;
        for (int x = 0; x < img->width; x++) {
            for (int s = 0; s < samples; s++) {
                size_t c = img->channels == 4 ? (size_t)s : 0;
                size_t at = (size_t)x * (size_t)img->channels + c;
                if (wide) {
                    uint16_t v;
                    memcpy(&v, row + 2 * at, 2);
                    out[n++] = (unsigned char)(v >> 8);
                    out[n++] = (unsigned char)(v & 0xFF);
                } else {
                    out[n++] = row[at];
                }
            }
        }
        if (fwrite(out, 1, n, fp) != n)
            st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write error", path);
    }
    free(out);
    return st;
}

static clik_status write_pnm(FILE *fp, const char *path, const clik_image *img, int samples,
                             char *err, size_t errlen)
{
    if (fprintf(fp, "P%c\n%d %d\n%u\n", samples == 3 ? '6' : '5', img->width, img->height,
                img->type == CLIK_U16 ? 65535u : 255u) < 0)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write error", path);
    return write_pixels(fp, path, img, samples, err, errlen);
}

clik_status clikio__pgm_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen)
{
    (void)keep_alpha; /* PGM has no alpha */
    return write_pnm(fp, path, img, 1, err, errlen);
}

clik_status clikio__ppm_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen)
{
    (void)keep_alpha; /* PPM has no alpha */
    return write_pnm(fp, path, img, 3, err, errlen);
}

/*
 * Middlebury .flo optical flow files: the tag "PIEH" (the float 202021.25
 * stored little-endian, so that a reader can tell a file of the other byte
 * order), the width and the height as little-endian int32, then the rows,
 * top first, of width (u, v) pairs of little-endian float32. Nothing follows.
 * Unknown vectors are stored as they are (1e10 by convention, or NaN): the
 * reader keeps every value, the evaluation skips them (flow_eval.h).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "imageio_private.h"

static const unsigned char flo_tag[4] = {'P', 'I', 'E', 'H'};

#define FLO_HEADER 12

static int32_t get_le32(const unsigned char *p)
{
    uint32_t v = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    int32_t s;
    memcpy(&s, &v, sizeof(s));
    return s;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Reverses the bytes of each 4-byte word (for big-endian hosts). */
static void swap_words(unsigned char *data, size_t count)
{
    for (size_t i = 0; i < count; i++, data += 4) {
        unsigned char t = data[0];
        data[0] = data[3];
        data[3] = t;
        t = data[1];
        data[1] = data[2];
        data[2] = t;
    }
}

/* ---- writing --------------------------------------------------------------- */

clik_status clikio__flo_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen)
{
    (void)keep_alpha;
    unsigned char head[FLO_HEADER];
    memcpy(head, flo_tag, sizeof(flo_tag));
    put_le32(head + 4, (uint32_t)img->width);
    put_le32(head + 8, (uint32_t)img->height);
    if (fwrite(head, 1, sizeof(head), fp) != sizeof(head))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write error", path);
    size_t row_bytes = (size_t)img->width * 2 * sizeof(float);
    unsigned char *swapped = NULL;
    if (!clikio__host_is_little_endian() && !(swapped = malloc(row_bytes)))
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    clik_status st = CLIK_OK;
    for (int y = 0; y < img->height && st == CLIK_OK; y++) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * img->stride;
        if (swapped) {
            memcpy(swapped, row, row_bytes);
            swap_words(swapped, row_bytes / 4);
            row = swapped;
        }
        if (fwrite(row, 1, row_bytes, fp) != row_bytes)
            st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write error", path);
    }
    free(swapped);
    return st;
}

/* ---- reading --------------------------------------------------------------- */

static clik_status truncated(FILE *fp, const char *path, const char *what, char *err, size_t errlen)
{
    if (ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: .flo %s is truncated", path, what);
}

/* Reads and checks the tag and the size, leaving fp at the data. */
static clik_status read_header(FILE *fp, const char *path, int *width, int *height, char *err,
                               size_t errlen)
{
    unsigned char head[FLO_HEADER];
    size_t n = fread(head, 1, sizeof(head), fp);
    if (n < sizeof(head) && ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    if (memcmp(head, flo_tag, n < sizeof(flo_tag) ? n : sizeof(flo_tag)) != 0) {
        /* The tag read as a big-endian float: a file of the other byte order. */
        static const unsigned char swapped_tag[4] = {'H', 'E', 'I', 'P'};
        if (n >= 4 && memcmp(head, swapped_tag, 4) == 0)
            return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                                "%s: big-endian .flo files are not supported", path);
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s is not a .flo file (it does not start with the tag PIEH)", path);
    }
    if (n < sizeof(head))
        return truncated(fp, path, "header", err, errlen);
    int32_t w = get_le32(head + 4), h = get_le32(head + 8);
    if (w < 0 || h < 0)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: .flo header gives a negative size (%ldx%ld)", path, (long)w,
                            (long)h);
    clik_status st = clikio__check_dims(path, ".flo", (uint64_t)w, (uint64_t)h, err, errlen);
    if (st != CLIK_OK)
        return st;
    *width = (int)w;
    *height = (int)h;
    return CLIK_OK;
}

clik_status clikio__flo_read(FILE *fp, int64_t size, const char *path, clik_image *img, char *err,
                             size_t errlen)
{
    int width = 0, height = 0;
    clik_status st = read_header(fp, path, &width, &height, err, errlen);
    if (st != CLIK_OK)
        return st;
    /* Checked before allocating, so that a short file cannot claim gigabytes,
     * and a long one is not taken for a flow with something else after it. */
    uint64_t need = (uint64_t)width * (uint64_t)height * 2 * sizeof(float);
    int64_t left = clikio__bytes_left(fp, size);
    if (left >= 0 && (uint64_t)left < need)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: .flo data is truncated (%lld bytes where %llu are needed for "
                            "%dx%d vectors)",
                            path, (long long)left, (unsigned long long)need, width, height);
    if (left >= 0 && (uint64_t)left > need)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: .flo file is %llu bytes longer than its %dx%d vectors", path,
                            (unsigned long long)((uint64_t)left - need), width, height);
    st = clik_image_alloc(img, width, height, 2, CLIK_F32);
    if (st != CLIK_OK)
        return clikio__fail(err, errlen, st, "%s: cannot allocate the flow (%s)", path,
                            clik_status_str(st));
    size_t bytes = (size_t)height * img->stride; /* packed: stride is the row size */
    if (fread(img->data, 1, bytes, fp) != bytes)
        st = truncated(fp, path, "data", err, errlen);
    else if (left < 0 && fgetc(fp) != EOF) /* a pipe: the size is known only now */
        st = clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                          "%s: .flo file is longer than its %dx%d vectors", path, width, height);
    else if (ferror(fp))
        st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    if (st != CLIK_OK) {
        clik_image_free(img);
        return st;
    }
    if (!clikio__host_is_little_endian())
        swap_words(img->data, bytes / 4);
    return CLIK_OK;
}

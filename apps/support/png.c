/*
 * PNG through libpng.
 *
 * libpng reports errors by calling our error callback, which must not return:
 * it longjmp()s back to the setjmp() in png_decode() or png_encode(). To keep
 * that safe, everything those functions allocate or change lives in a struct
 * owned by their caller (never in their own locals, which a longjmp may
 * clobber), and the caller releases it whichever way the function ended.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "imageio_private.h"

/* What the callbacks record; libpng hands it back as the error and I/O pointer. */
typedef struct png_report {
    FILE *fp;
    char message[200]; /* libpng's first error message */
    int io_error;      /* the file could not be read or written, the data may be fine */
    int truncated;     /* the file ended early */
} png_report;

static _Noreturn void on_png_error(png_structp png, png_const_charp msg)
{
    png_report *rep = png_get_error_ptr(png);
    if (rep->message[0] == '\0')
        snprintf(rep->message, sizeof(rep->message), "%s", msg ? msg : "unknown error");
    png_longjmp(png, 1);
}

/* Warnings are about ancillary data libpng already skipped (a bad colour
 * profile, a damaged text chunk); the pixels are fine, so they are dropped
 * instead of being printed. */
static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void read_from_file(png_structp png, png_bytep data, size_t length)
{
    png_report *rep = png_get_io_ptr(png);
    if (fread(data, 1, length, rep->fp) == length)
        return;
    if (ferror(rep->fp)) {
        rep->io_error = 1;
        png_error(png, "read error");
    }
    rep->truncated = 1;
    png_error(png, "unexpected end of file");
}

static void write_to_file(png_structp png, png_bytep data, size_t length)
{
    png_report *rep = png_get_io_ptr(png);
    if (fwrite(data, 1, length, rep->fp) != length) {
        rep->io_error = 1;
        png_error(png, "write error");
    }
}

static void flush_file(png_structp png)
{
    png_report *rep = png_get_io_ptr(png);
    if (fflush(rep->fp) != 0) {
        rep->io_error = 1;
        png_error(png, "write error");
    }
}

/* ---- reading --------------------------------------------------------------- */

typedef struct png_reader {
    png_report report; /* first: libpng's error pointer */
    const char *path;
    png_structp png;
    png_infop info;
    clik_image *img;
    png_bytep *rows;
    int had_alpha;
    char *err;
    size_t errlen;
} png_reader;

/* The signature is checked by hand so that a file of another kind gets a
 * clear "is not a PNG file" rather than libpng's wording. */
static clik_status check_signature(FILE *fp, const char *path, char *err, size_t errlen)
{
    unsigned char sig[8];
    size_t n = fread(sig, 1, sizeof(sig), fp);
    if (n < sizeof(sig) && ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    if (n == 0 || png_sig_cmp(sig, 0, n) != 0)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s is not a PNG file", path);
    if (n < sizeof(sig))
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: PNG file is truncated", path);
    return CLIK_OK;
}

/* Asks libpng for 8 or 16-bit grey, grey+alpha or RGBA, whatever is stored. */
static void request_layout(png_reader *r, int depth, int color)
{
    int has_trns = png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0;
    r->had_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(r->png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(r->png);
    if (has_trns)
        png_set_tRNS_to_alpha(r->png);
    /* PNG stores 16-bit samples big-endian; images hold them in host order. */
    if (depth == 16 && clikio__host_is_little_endian())
        png_set_swap(r->png);
    int colour = (color & PNG_COLOR_MASK_COLOR) != 0;
    if (colour && !r->had_alpha)
        png_set_filler(r->png, depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(r->png);
}

static clik_status decode_failed(png_reader *r)
{
    if (r->report.io_error)
        return clikio__fail(r->err, r->errlen, CLIK_ERR_IO, "%s: %s", r->path, r->report.message);
    return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT, "%s: corrupt PNG file (%s)",
                        r->path, r->report.message);
}

static clik_status png_decode(png_reader *r)
{
    if (setjmp(png_jmpbuf(r->png)))
        return decode_failed(r);

    png_set_sig_bytes(r->png, 8);
    /* libpng refuses larger sides in IHDR itself; the pixel count is ours. */
    png_set_user_limits(r->png, CLIKIO_MAX_DIM, CLIKIO_MAX_DIM);
    png_read_info(r->png, r->info);
    png_uint_32 width, height;
    int depth, color;
    png_get_IHDR(r->png, r->info, &width, &height, &depth, &color, NULL, NULL, NULL);
    clik_status st = clikio__check_dims(r->path, "PNG", width, height, r->err, r->errlen);
    if (st != CLIK_OK)
        return st;

    request_layout(r, depth, color);
    png_read_update_info(r->png, r->info);
    int channels = png_get_channels(r->png, r->info);
    int out_depth = png_get_bit_depth(r->png, r->info);
    if ((channels != 1 && channels != 2 && channels != 4) || (out_depth != 8 && out_depth != 16))
        return clikio__fail(r->err, r->errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: unexpected PNG layout (%d channels of %d bits)", r->path, channels,
                            out_depth);

    clik_type type = out_depth == 16 ? CLIK_U16 : CLIK_U8;
    st = clik_image_alloc(r->img, (int)width, (int)height, channels, type);
    if (st != CLIK_OK)
        return clikio__fail(r->err, r->errlen, st, "%s: cannot allocate a %ux%u image (%s)",
                            r->path, (unsigned)width, (unsigned)height, clik_status_str(st));
    if (png_get_rowbytes(r->png, r->info) != r->img->stride)
        return clikio__fail(r->err, r->errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: unexpected PNG row size", r->path);
    r->rows = malloc((size_t)height * sizeof(*r->rows));
    if (!r->rows)
        return clikio__fail(r->err, r->errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", r->path);
    for (png_uint_32 y = 0; y < height; y++)
        r->rows[y] = (png_bytep)r->img->data + (size_t)y * r->img->stride;
    png_read_image(r->png, r->rows);
    /* Reads the chunks after the pixels too, so a file cut after its
     * last IDAT is reported rather than silently accepted. */
    png_read_end(r->png, NULL);
    return CLIK_OK;
}

clik_status clikio__png_read(FILE *fp, const char *path, clik_image *img, int *had_alpha, char *err,
                             size_t errlen)
{
    clik_status st = check_signature(fp, path, err, errlen);
    if (st != CLIK_OK)
        return st;
    png_reader r = {.report = {.fp = fp}, .path = path, .img = img, .err = err, .errlen = errlen};
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.report, on_png_error, on_png_warning);
    if (r.png)
        r.info = png_create_info_struct(r.png);
    if (!r.png || !r.info) {
        png_destroy_read_struct(r.png ? &r.png : NULL, NULL, NULL);
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    png_set_read_fn(r.png, &r.report, read_from_file);
    st = png_decode(&r);
    png_destroy_read_struct(&r.png, &r.info, NULL);
    free(r.rows);
    if (st != CLIK_OK)
        clik_image_free(img);
    else
        *had_alpha = r.had_alpha;
    return st;
}

/* ---- writing --------------------------------------------------------------- */

/* The compression of every write; see clikio_set_png_level(). */
static int png_level = CLIKIO_PNG_LEVEL_DEFAULT;

clik_status clikio_set_png_level(int level)
{
    if (level < 0 || level > 9)
        return CLIK_ERR_INVALID_ARG;
    png_level = level;
    return CLIK_OK;
}

int clikio_png_level(void)
{
    return png_level;
}

/* Level 0 stores the rows as they are. Level 1 is what OpenCV's imwrite
 * does by default (zlib's run-length strategy, one fixed row filter, no
 * search), with the Average filter where OpenCV has Sub: as fast, and 3 to
 * 7 percent smaller on photographs. Levels 2 to 9 are zlib's levels with
 * libpng's own choice of filter for each row (6: libpng's defaults). */
static void set_compression(png_structp png, int level)
{
    png_set_compression_level(png, level);
    if (level == 0) {
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    } else if (level == 1) {
        png_set_compression_strategy(png, Z_RLE);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_AVG);
    }
}

typedef struct png_writer {
    png_report report; /* first: libpng's error pointer */
    const char *path;
    png_structp png;
    png_infop info;
    const clik_image *img;
    int keep_alpha;
} png_writer;

static int color_type_for(const clik_image *img, int keep_alpha)
{
    switch (img->channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    default: return keep_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    }
}

static int png_encode(png_writer *w)
{
    if (setjmp(png_jmpbuf(w->png)))
        return 0;
    const clik_image *img = w->img;
    int depth = img->type == CLIK_U16 ? 16 : 8;
    int color = color_type_for(img, w->keep_alpha);
    png_set_write_fn(w->png, &w->report, write_to_file, flush_file);
    png_set_IHDR(w->png, w->info, (png_uint_32)img->width, (png_uint_32)img->height, depth, color,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    set_compression(w->png, png_level);
    png_write_info(w->png, w->info);
    if (depth == 16 && clikio__host_is_little_endian())
        png_set_swap(w->png);
    /* An RGB file from 4 channels: libpng drops the fourth sample of each pixel. */
    if (img->channels == 4 && color == PNG_COLOR_TYPE_RGB)
        png_set_filler(w->png, 0, PNG_FILLER_AFTER);
    for (int y = 0; y < img->height; y++)
        png_write_row(w->png, (png_const_bytep)img->data + (size_t)y * img->stride);
    png_write_end(w->png, NULL);
    return 1;
}

clik_status clikio__png_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen)
{
    png_writer w = {.report = {.fp = fp}, .path = path, .img = img, .keep_alpha = keep_alpha};
    w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w.report, on_png_error, on_png_warning);
    if (w.png)
        w.info = png_create_info_struct(w.png);
    if (!w.png || !w.info) {
        png_destroy_write_struct(w.png ? &w.png : NULL, NULL);
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    int ok = png_encode(&w);
    png_destroy_write_struct(&w.png, &w.info);
    if (!ok)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot write PNG: %s", path,
                            w.report.message);
    return CLIK_OK;
}

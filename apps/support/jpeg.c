/*
 * JPEG through libjpeg(-turbo).
 *
 * libjpeg reports fatal errors through error_exit, which must not return: ours
 * longjmp()s back to the setjmp() in jpeg_decode() or jpeg_encode(). As in
 * png.c, everything those functions touch lives in a struct of their caller,
 * so nothing depends on locals a longjmp may clobber.
 *
 * A truncated or damaged JPEG is not fatal to libjpeg: it warns ("premature
 * end of data"), fills the rest with grey and carries on. A reader must not
 * hand such an image on as good, so any warning fails the read.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "imageio_private.h"

#define JPEG_QUALITY 95

/* libjpeg's error manager plus what our callbacks record. */
typedef struct jpeg_report {
    struct jpeg_error_mgr mgr; /* first: libjpeg sees only this part */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX]; /* the first error or warning */
    int warned;
} jpeg_report;

static void record_message(j_common_ptr cinfo)
{
    jpeg_report *rep = (jpeg_report *)cinfo->err;
    if (rep->message[0] == '\0')
        cinfo->err->format_message(cinfo, rep->message);
}

static _Noreturn void on_jpeg_error(j_common_ptr cinfo)
{
    record_message(cinfo);
    longjmp(((jpeg_report *)cinfo->err)->jump, 1);
}

/* libjpeg would print this to stderr. */
static void on_jpeg_output(j_common_ptr cinfo)
{
    record_message(cinfo);
}

/* Level -1 is a warning (corrupt data); higher levels are trace messages. */
static void on_jpeg_emit(j_common_ptr cinfo, int level)
{
    if (level >= 0)
        return;
    jpeg_report *rep = (jpeg_report *)cinfo->err;
    rep->warned = 1;
    cinfo->err->num_warnings++;
    record_message(cinfo);
}

static struct jpeg_error_mgr *report_init(jpeg_report *rep)
{
    jpeg_std_error(&rep->mgr);
    rep->mgr.error_exit = on_jpeg_error;
    rep->mgr.output_message = on_jpeg_output;
    rep->mgr.emit_message = on_jpeg_emit;
    return &rep->mgr;
}

/* ---- reading --------------------------------------------------------------- */

typedef struct jpeg_reader {
    jpeg_report report;
    struct jpeg_decompress_struct cinfo;
    FILE *fp;
    const char *path;
    clik_image *img;
    char *err;
    size_t errlen;
} jpeg_reader;

static clik_status check_magic(FILE *fp, const char *path, char *err, size_t errlen)
{
    static const unsigned char soi[3] = {0xFF, 0xD8, 0xFF};
    unsigned char head[3];
    size_t n = fread(head, 1, sizeof(head), fp);
    if (n < sizeof(head) && ferror(fp))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    if (n == 0 || memcmp(head, soi, n) != 0)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s is not a JPEG file", path);
    if (n < sizeof(head))
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: JPEG file is truncated", path);
    if (fseek(fp, 0, SEEK_SET) != 0)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot seek in the file", path);
    return CLIK_OK;
}

static clik_status decode_failed(jpeg_reader *r)
{
    clik_status st = CLIK_ERR_FILE_FORMAT;
    const char *what = "corrupt JPEG file";
    if (ferror(r->fp) || r->report.mgr.msg_code == JERR_FILE_READ) {
        st = CLIK_ERR_IO;
        what = "read error";
    } else if (r->report.mgr.msg_code == JERR_OUT_OF_MEMORY) {
        st = CLIK_ERR_NO_MEMORY;
        what = "out of memory";
    }
    return clikio__fail(r->err, r->errlen, st, "%s: %s (%s)", r->path, what, r->report.message);
}

/* Chooses the output colour space: grey stays grey, YCbCr and RGB become RGB
 * (widened to RGBA later), anything else is refused. Returns the channel
 * count of the image, or 0. */
static int choose_output(jpeg_reader *r)
{
    switch (r->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: r->cinfo.out_color_space = JCS_GRAYSCALE; return 1;
    case JCS_YCbCr:
    case JCS_RGB: r->cinfo.out_color_space = JCS_RGB; return 4;
    default: return 0;
    }
}

/* Widens a row of RGB, decoded into the start of its RGBA row, in place:
 * back to front, so that no pixel is overwritten before it has moved. */
static void rgb_to_rgba(unsigned char *row, int width)
{
    for (int x = width - 1; x >= 0; x--) {
        row[4 * x + 3] = 0xFF;
        row[4 * x + 2] = row[3 * x + 2];
        row[4 * x + 1] = row[3 * x + 1];
        row[4 * x + 0] = row[3 * x + 0];
    }
}

static clik_status jpeg_decode(jpeg_reader *r)
{
    if (setjmp(r->report.jump))
        return decode_failed(r);
    jpeg_create_decompress(&r->cinfo);
    jpeg_stdio_src(&r->cinfo, r->fp);
    jpeg_read_header(&r->cinfo, TRUE);
    if (r->report.warned)
        return decode_failed(r);
    /* Checked before jpeg_start_decompress(), which allocates per pixel. */
    clik_status st = clikio__check_dims(r->path, "JPEG", r->cinfo.image_width,
                                        r->cinfo.image_height, r->err, r->errlen);
    if (st != CLIK_OK)
        return st;
    int channels = choose_output(r);
    if (channels == 0) {
        int cmyk = r->cinfo.jpeg_color_space == JCS_CMYK || r->cinfo.jpeg_color_space == JCS_YCCK;
        return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: %s JPEG files are not supported", r->path,
                            cmyk ? "CMYK" : "this colour space of");
    }

    jpeg_start_decompress(&r->cinfo);
    int width = (int)r->cinfo.output_width;
    st = clik_image_alloc(r->img, width, (int)r->cinfo.output_height, channels, CLIK_U8);
    if (st != CLIK_OK)
        return clikio__fail(r->err, r->errlen, st, "%s: cannot allocate the image (%s)", r->path,
                            clik_status_str(st));
    while (r->cinfo.output_scanline < r->cinfo.output_height) {
        JSAMPROW row = (JSAMPROW)r->img->data + (size_t)r->cinfo.output_scanline * r->img->stride;
        if (jpeg_read_scanlines(&r->cinfo, &row, 1) != 1)
            return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT,
                                "%s: JPEG decoder stopped early", r->path);
        if (channels == 4)
            rgb_to_rgba(row, width);
    }
    jpeg_finish_decompress(&r->cinfo);
    if (r->report.warned)
        return decode_failed(r);
    return CLIK_OK;
}

clik_status clikio__jpeg_read(FILE *fp, const char *path, clik_image *img, char *err, size_t errlen)
{
    clik_status st = check_magic(fp, path, err, errlen);
    if (st != CLIK_OK)
        return st;
    jpeg_reader r;
    memset(&r, 0, sizeof(r));
    r.fp = fp;
    r.path = path;
    r.img = img;
    r.err = err;
    r.errlen = errlen;
    r.cinfo.err = report_init(&r.report);
    st = jpeg_decode(&r);
    /* Safe on a half-created decompressor: it frees only what exists. */
    jpeg_destroy_decompress(&r.cinfo);
    if (st != CLIK_OK)
        clik_image_free(img);
    return st;
}

/* ---- writing --------------------------------------------------------------- */

typedef struct jpeg_writer {
    jpeg_report report;
    struct jpeg_compress_struct cinfo;
    FILE *fp;
    const clik_image *img;
} jpeg_writer;

/* Packs one image row as grey or RGB, dropping alpha. */
static void pack_row(const clik_image *img, int y, JSAMPLE *out)
{
    const unsigned char *in = (const unsigned char *)img->data + (size_t)y * img->stride;
    int step = img->channels;
    int keep = img->channels == 4 ? 3 : 1;
    for (int x = 0; x < img->width; x++) {
        for (int c = 0; c < keep; c++)
            out[x * keep + c] = in[x * step + c];
    }
}

static int jpeg_encode(jpeg_writer *w)
{
    if (setjmp(w->report.jump))
        return 0;
    const clik_image *img = w->img;
    int colour = img->channels == 4;
    jpeg_create_compress(&w->cinfo);
    jpeg_stdio_dest(&w->cinfo, w->fp);
    w->cinfo.image_width = (JDIMENSION)img->width;
    w->cinfo.image_height = (JDIMENSION)img->height;
    w->cinfo.input_components = colour ? 3 : 1;
    w->cinfo.in_color_space = colour ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&w->cinfo);
    jpeg_set_quality(&w->cinfo, JPEG_QUALITY, TRUE);
    /* Full-resolution chroma (4:4:4): these files feed image processing,
     * where colour detail matters more than a smaller file. */
    if (colour) {
        w->cinfo.comp_info[0].h_samp_factor = 1;
        w->cinfo.comp_info[0].v_samp_factor = 1;
    }
    jpeg_start_compress(&w->cinfo, TRUE);
    /* From libjpeg's pool, so jpeg_destroy_compress() frees it on any path. */
    JSAMPARRAY row = w->cinfo.mem->alloc_sarray((j_common_ptr)&w->cinfo, JPOOL_IMAGE,
                                                (JDIMENSION)img->width * 3u, 1);
    for (int y = 0; y < img->height; y++) {
        pack_row(img, y, row[0]);
        jpeg_write_scanlines(&w->cinfo, row, 1);
    }
    jpeg_finish_compress(&w->cinfo);
    return 1;
}

clik_status clikio__jpeg_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                               char *err, size_t errlen)
{
    (void)keep_alpha; /* JPEG has no alpha */
    jpeg_writer w;
    memset(&w, 0, sizeof(w));
    w.fp = fp;
    w.img = img;
    w.cinfo.err = report_init(&w.report);
    int ok = jpeg_encode(&w);
    jpeg_destroy_compress(&w.cinfo);
    if (!ok)
        return clikio__fail(err, errlen,
                            w.report.mgr.msg_code == JERR_OUT_OF_MEMORY ? CLIK_ERR_NO_MEMORY
                                                                        : CLIK_ERR_IO,
                            "%s: cannot write JPEG (%s)", path, w.report.message);
    return CLIK_OK;
}

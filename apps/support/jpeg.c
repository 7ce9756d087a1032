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
 * hand such an image on as good, so a warning fails the read, and at once:
 * carrying on would decode the whole of whatever size the header claims.
 *
 * A JPEG header can claim a large image from a few hundred bytes, and libjpeg
 * would allocate and decode all of it before finding the data missing. So
 * before libjpeg allocates anything for the pixels, the reader checks what
 * the file asks for against the coded data it holds (see check_plausible()),
 * and refuses a file whose scans hold none.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "imageio_private.h"

#define JPEG_QUALITY 95

/* The most scans a file may hold. Encoders write one scan (sequential) or
 * about ten (libjpeg's progressive script: 10 for colour, 6 for grey), but
 * libjpeg takes any number, and each one is a pass over all the blocks of its
 * components: 3000 repeated scans in 130 KB keep a 4096x4096 decode busy for
 * 17 s. */
#define JPEG_MAX_SCANS 256

/* Arithmetic coding has no floor on the size of an image: a flat grey
 * 16384x16384 image codes in 125 bytes, as small as a file with no scan data
 * at all, which libjpeg decodes without a word. So these files are held to a
 * cost instead: beyond JPEG_ARITH_FREE_BLOCKS blocks (8 MiB of coefficients,
 * decoded in milliseconds), at most JPEG_ARITH_BLOCKS_PER_BYTE blocks for each
 * byte of coded data (comments and other segments, of any length, do not
 * count; a file with no coded byte at all is refused at any size). Measured
 * at 4096x4096 colour, where the headers are a few hundred bytes: smooth
 * random fields take 0.4 to 2.5 blocks per byte at quality 50 to 1, ramps
 * and step edges 15 to 210. Refused: near-flat images of more than 4 million
 * pixels, such as a flat grey 16384x16384 (33554 blocks per byte) or ramps
 * at quality 1 and that size (290 to 860). Huffman-coded files never exceed
 * 8 blocks per byte (see check_plausible()). */
#define JPEG_ARITH_BLOCKS_PER_BYTE 256
#define JPEG_ARITH_FREE_BLOCKS     ((uint64_t)1 << 16)

/* libjpeg's memory besides the coefficients of a multi-scan image (row
 * buffers, tables): under 4 MiB measured for a progressive colour image as
 * wide as libjpeg allows (65500 pixels). */
#define JPEG_WORK_MEMORY ((uint64_t)64 << 20)

/* libjpeg's error manager plus what our callbacks record. */
typedef struct jpeg_report {
    struct jpeg_error_mgr mgr; /* first: libjpeg sees only this part */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX]; /* the first error or warning */
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

/* Level -1 is a warning (corrupt or missing data), which ends the read as an
 * error does; higher levels are trace messages. */
static void on_jpeg_emit(j_common_ptr cinfo, int level)
{
    if (level >= 0)
        return;
    cinfo->err->num_warnings++;
    on_jpeg_error(cinfo);
}

static struct jpeg_error_mgr *report_init(jpeg_report *rep)
{
    jpeg_std_error(&rep->mgr);
    rep->mgr.error_exit = on_jpeg_error;
    rep->mgr.output_message = on_jpeg_output;
    rep->mgr.emit_message = on_jpeg_emit;
    return &rep->mgr;
}

/* ---- the first pass -------------------------------------------------------- */

/* What a walk over the markers of the file found before libjpeg reads it. */
typedef struct jpeg_survey {
    uint64_t bytes; /* up to the end of EOI, or of the file when there is none */
    uint64_t coded; /* of entropy-coded data in the scans (a stuffed FF 00 as one) */
    unsigned scans; /* SOS markers before EOI, counted up to JPEG_MAX_SCANS + 1 */
} jpeg_survey;

typedef enum survey_state {
    BETWEEN_SEGMENTS, /* expecting FF */
    MARKER,           /* after FF: fill bytes, then the marker code */
    LENGTH_HIGH,      /* the two length bytes of a segment */
    LENGTH_LOW,
    SEGMENT,       /* the rest of a segment, skipped */
    ENTROPY,       /* coded data after SOS */
    ENTROPY_AT_FF, /* FF in coded data: stuffing, a restart or the next marker */
} survey_state;

typedef struct survey_walk {
    survey_state state;
    int marker;    /* the segment being skipped */
    uint32_t left; /* bytes of it still to skip */
    int ended;     /* EOI, or too many scans */
} survey_walk;

/* After FF and the code of a marker: SOI, EOI, RSTn and TEM stand alone,
 * every other marker starts a segment with a length. */
static void survey_marker(survey_walk *w, int code)
{
    if (code == 0xD9)
        w->ended = 1;
    else if (code == 0xD8 || code == 0x01 || (code >= 0xD0 && code <= 0xD7))
        w->state = BETWEEN_SEGMENTS;
    else {
        w->marker = code;
        w->state = LENGTH_HIGH;
    }
}

static void survey_segment_end(survey_walk *w, jpeg_survey *s)
{
    if (w->marker != 0xDA) {
        w->state = BETWEEN_SEGMENTS;
        return;
    }
    w->state = ENTROPY;
    if (++s->scans > JPEG_MAX_SCANS)
        w->ended = 1;
}

/* Walks n bytes of the file; returns how many it used, fewer than n only
 * when the walk ended inside them. Bytes libjpeg would skip with a warning
 * are skipped here too: the warning fails the read anyway. */
static size_t survey_chunk(survey_walk *w, jpeg_survey *s, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && !w->ended) {
        int b = p[i];
        switch (w->state) {
        case BETWEEN_SEGMENTS:
            if (b == 0xFF)
                w->state = MARKER;
            i++;
            break;
        case MARKER:
        case ENTROPY_AT_FF:
            i++;
            if (b == 0xFF)
                break; /* a fill byte */
            if (w->state == ENTROPY_AT_FF && (b == 0x00 || (b >= 0xD0 && b <= 0xD7))) {
                w->state = ENTROPY; /* a stuffed FF or a restart marker */
                s->coded += b == 0x00;
            } else if (b == 0x00)
                w->state = BETWEEN_SEGMENTS;
            else
                survey_marker(w, b);
            break;
        case LENGTH_HIGH:
            w->left = (uint32_t)b << 8;
            w->state = LENGTH_LOW;
            i++;
            break;
        case LENGTH_LOW:
            /* The length counts its own two bytes. libjpeg fails on a length
             * below 2 only in the segments it reads (tables, frame, scan)
             * and skips nothing more in the others, so the walk does too. */
            w->left |= (uint32_t)b;
            w->left = w->left < 2 ? 0 : w->left - 2;
            w->state = SEGMENT;
            i++;
            break;
        case SEGMENT: {
            size_t take = n - i < w->left ? n - i : w->left;
            i += take;
            w->left -= (uint32_t)take;
            if (w->left == 0)
                survey_segment_end(w, s);
            break;
        }
        case ENTROPY: {
            const unsigned char *ff = memchr(p + i, 0xFF, n - i);
            const size_t end = ff ? (size_t)(ff - p) : n;
            s->coded += end - i;
            i = ff ? end + 1 : n;
            if (ff)
                w->state = ENTROPY_AT_FF;
            break;
        }
        }
    }
    return i;
}

/* ---- reading --------------------------------------------------------------- */

typedef struct jpeg_reader {
    jpeg_report report;
    struct jpeg_decompress_struct cinfo;
    FILE *fp;
    const char *path;
    clik_image *img;
    jpeg_survey survey;
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

/* Walks the whole file once, counting its bytes and scans, and comes back to
 * its start: what libjpeg would do with it is then known before it starts. */
static clik_status survey_file(jpeg_reader *r)
{
    unsigned char chunk[16384];
    survey_walk walk = {.state = BETWEEN_SEGMENTS};
    size_t n;
    while (!walk.ended && (n = fread(chunk, 1, sizeof(chunk), r->fp)) > 0)
        r->survey.bytes += survey_chunk(&walk, &r->survey, chunk, n);
    if (ferror(r->fp))
        return clikio__fail(r->err, r->errlen, CLIK_ERR_IO, "%s: read error", r->path);
    if (fseek(r->fp, 0, SEEK_SET) != 0)
        return clikio__fail(r->err, r->errlen, CLIK_ERR_IO, "%s: cannot seek in the file", r->path);
    if (r->survey.scans > JPEG_MAX_SCANS)
        return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: JPEG file has more than %d scans", r->path, JPEG_MAX_SCANS);
    return CLIK_OK;
}

static clik_status decode_failed(jpeg_reader *r)
{
    clik_status st = CLIK_ERR_FILE_FORMAT;
    const char *what = "corrupt JPEG file";
    int code = r->report.mgr.msg_code;
    if (ferror(r->fp) || code == JERR_FILE_READ) {
        st = CLIK_ERR_IO;
        what = "read error";
    } else if (code == JERR_OUT_OF_MEMORY) {
        st = CLIK_ERR_NO_MEMORY;
        what = "out of memory";
    } else if (code == JERR_NO_BACKING_STORE) {
        what = "JPEG decoder memory limit reached";
    } else if (code == JWRN_JPEG_EOF) {
        what = "JPEG file is truncated";
    }
    return clikio__fail(r->err, r->errlen, st, "%s: %s (%s)", r->path, what, r->report.message);
}

/* 8x8 blocks of coefficients in the image, over all its components. */
static uint64_t frame_blocks(const struct jpeg_decompress_struct *c)
{
    uint64_t blocks = 0;
    for (int i = 0; i < c->num_components; i++)
        blocks += (uint64_t)c->comp_info[i].width_in_blocks * c->comp_info[i].height_in_blocks;
    return blocks;
}

/* Refuses, before anything is allocated for the pixels, a file whose scans
 * hold no coded data at all (libjpeg decodes an arithmetic-coded one without
 * a warning: zeros in, a plausible image out), and one whose coded data is
 * too short for the image its header describes. Huffman codes are at least
 * one bit long, and every block of every component has a DC code, and in
 * sequential scans an end-of-block code too: no valid scan data is shorter.
 * For arithmetic coding the bound is the cost described at
 * JPEG_ARITH_BLOCKS_PER_BYTE. Only the coded data counts: comments and other
 * segments can make a file of any size. */
static clik_status check_plausible(jpeg_reader *r)
{
    const struct jpeg_decompress_struct *c = &r->cinfo;
    if (r->survey.coded == 0)
        return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: JPEG file has no scan data (%ux%u pixels claimed, not one byte "
                            "of coded data after the scan headers)",
                            r->path, (unsigned)c->image_width, (unsigned)c->image_height);
    uint64_t blocks = frame_blocks(c), least;
    if (!c->arith_code)
        least = blocks * (c->progressive_mode ? 1u : 2u) / 8u;
    else if (blocks > JPEG_ARITH_FREE_BLOCKS)
        least = blocks / JPEG_ARITH_BLOCKS_PER_BYTE;
    else
        least = 0;
    if (r->survey.coded >= least)
        return CLIK_OK;
    return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT,
                        "%s: JPEG file is truncated or its header lies: %llu bytes of scan data "
                        "are too few for %ux%u pixels (%s coding needs at least %llu)",
                        r->path, (unsigned long long)r->survey.coded, (unsigned)c->image_width,
                        (unsigned)c->image_height, c->arith_code ? "arithmetic" : "Huffman",
                        (unsigned long long)least);
}

/* libjpeg's memory limit: the coefficients of a multi-scan image, laid out as
 * libjpeg lays them (rows and columns of blocks rounded up to the sampling
 * factors), plus JPEG_WORK_MEMORY. check_plausible() has tied the blocks to
 * the bytes of the file; the limit holds libjpeg to what was checked. */
static long memory_limit(j_decompress_ptr c)
{
    uint64_t bytes = JPEG_WORK_MEMORY;
    if (jpeg_has_multiple_scans(c)) {
        for (int i = 0; i < c->num_components; i++) {
            const jpeg_component_info *comp = &c->comp_info[i];
            uint64_t h = (uint64_t)comp->h_samp_factor, v = (uint64_t)comp->v_samp_factor;
            uint64_t cols = (comp->width_in_blocks + h - 1) / h * h;
            uint64_t rows = (comp->height_in_blocks + v - 1) / v * v;
            bytes += cols * rows * sizeof(JBLOCK);
        }
    }
    return bytes > (uint64_t)LONG_MAX ? LONG_MAX : (long)bytes;
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

/* The header's checks, all before jpeg_start_decompress(), which allocates
 * per pixel. */
static clik_status check_header(jpeg_reader *r, int *channels)
{
    clik_status st = clikio__check_dims(r->path, "JPEG", r->cinfo.image_width,
                                        r->cinfo.image_height, r->err, r->errlen);
    if (st != CLIK_OK)
        return st;
    *channels = choose_output(r);
    if (*channels == 0) {
        int cmyk = r->cinfo.jpeg_color_space == JCS_CMYK || r->cinfo.jpeg_color_space == JCS_YCCK;
        return clikio__fail(r->err, r->errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: %s JPEG files are not supported", r->path,
                            cmyk ? "CMYK" : "this colour space of");
    }
    return check_plausible(r);
}

/* ---- EXIF orientation ------------------------------------------------------ */

static int apply_orientation = 1; /* see clikio_set_jpeg_orientation() */

void clikio_set_jpeg_orientation(int apply)
{
    apply_orientation = apply != 0;
}

static uint32_t exif_u16(const unsigned char *p, int big)
{
    return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static uint32_t exif_u32(const unsigned char *p, int big)
{
    return big ? exif_u16(p, 1) << 16 | exif_u16(p + 2, 1)
               : exif_u16(p + 2, 0) << 16 | exif_u16(p, 0);
}

/* The Orientation (tag 0x0112, a SHORT in IFD0) of an APP1 "Exif" segment
 * of n bytes: 1..8, or 1 where there is none or the segment is malformed. */
static int exif_orientation(const unsigned char *d, size_t n)
{
    if (n < 14 || memcmp(d, "Exif\0\0", 6) != 0)
        return 1;
    const unsigned char *t = d + 6; /* the TIFF header */
    const size_t tn = n - 6;
    int big;
    if (t[0] == 'I' && t[1] == 'I')
        big = 0;
    else if (t[0] == 'M' && t[1] == 'M')
        big = 1;
    else
        return 1;
    if (exif_u16(t + 2, big) != 42)
        return 1;
    const uint32_t ifd = exif_u32(t + 4, big);
    if (ifd > tn - 2 || ifd < 8)
        return 1;
    const uint32_t count = exif_u16(t + ifd, big);
    for (uint32_t i = 0; i < count; i++) {
        const size_t e = (size_t)ifd + 2 + 12 * (size_t)i;
        if (e + 12 > tn)
            return 1;
        if (exif_u16(t + e, big) != 0x0112)
            continue;
        const uint32_t v = exif_u16(t + e + 8, big); /* SHORT, count 1: in place */
        return exif_u16(t + e + 2, big) == 3 && exif_u32(t + e + 4, big) == 1 && v >= 1 && v <= 8
                   ? (int)v
                   : 1;
    }
    return 1;
}

/* The orientation the file's first Exif segment gives (libjpeg kept APP1). */
static int file_orientation(const struct jpeg_decompress_struct *c)
{
    for (jpeg_saved_marker_ptr m = c->marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif", 4) == 0)
            return exif_orientation(m->data, m->data_length);
    return 1;
}

/* img turned upright for EXIF orientation o (2..8: mirrored, rotated by
 * 180, mirrored vertically, transposed, rotated by 90 clockwise,
 * transversed, rotated by 90 anticlockwise), in a new image. */
static clik_status orient(clik_image *img, int o)
{
    const int w = img->width, h = img->height, ch = img->channels, swap = o >= 5;
    clik_image out;
    clik_status st = clik_image_alloc(&out, swap ? h : w, swap ? w : h, ch, CLIK_U8);
    if (st != CLIK_OK)
        return st;
    for (int y = 0; y < out.height; y++) {
        unsigned char *dst = (unsigned char *)out.data + (size_t)y * out.stride;
        for (int x = 0; x < out.width; x++) {
            int sx, sy; /* the stored pixel shown at (x, y) */
            switch (o) {
            case 2: sx = w - 1 - x, sy = y; break;
            case 3: sx = w - 1 - x, sy = h - 1 - y; break;
            case 4: sx = x, sy = h - 1 - y; break;
            case 5: sx = y, sy = x; break;
            case 6: sx = y, sy = h - 1 - x; break;
            case 7: sx = w - 1 - y, sy = h - 1 - x; break;
            default: sx = w - 1 - y, sy = x; break; /* 8 */
            }
            memcpy(dst + (size_t)x * ch,
                   (const unsigned char *)img->data + (size_t)sy * img->stride + (size_t)sx * ch,
                   (size_t)ch);
        }
    }
    clik_image_free(img);
    *img = out;
    return CLIK_OK;
}

static clik_status jpeg_decode(jpeg_reader *r)
{
    if (setjmp(r->report.jump))
        return decode_failed(r);
    jpeg_create_decompress(&r->cinfo);
    jpeg_stdio_src(&r->cinfo, r->fp);
    if (apply_orientation)
        jpeg_save_markers(&r->cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&r->cinfo, TRUE);
    /* before jpeg_finish_decompress(), which frees the saved markers */
    const int o = apply_orientation ? file_orientation(&r->cinfo) : 1;
    int channels = 0;
    clik_status st = check_header(r, &channels);
    if (st != CLIK_OK)
        return st;
    r->cinfo.mem->max_memory_to_use = memory_limit(&r->cinfo);

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
    if (o != 1 && (st = orient(r->img, o)) != CLIK_OK)
        return clikio__fail(r->err, r->errlen, st, "%s: cannot allocate the image (%s)", r->path,
                            clik_status_str(st));
    return CLIK_OK;
}

clik_status clikio__jpeg_read(FILE *fp, const char *path, clik_image *img, char *err, size_t errlen)
{
    clik_status st = check_magic(fp, path, err, errlen);
    if (st != CLIK_OK)
        return st;
    jpeg_reader r = {.fp = fp, .path = path, .img = img, .err = err, .errlen = errlen};
    st = survey_file(&r);
    if (st != CLIK_OK)
        return st;
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

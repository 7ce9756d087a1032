/* Pieces of crafted image files (crafted.h). SPDX-License-Identifier: BSD-2-Clause */
#include "crafted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "cases.h"

const unsigned char crafted_png_signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

void crafted_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

size_t crafted_png_chunk(unsigned char *out, const char *type, const unsigned char *data,
                         uint32_t len)
{
    crafted_be32(out, len);
    memcpy(out + 4, type, 4);
    if (len)
        memcpy(out + 8, data, len);
    crafted_be32(out + 8 + len, sup_crc32(out + 4, len + 4));
    return 12 + len;
}

unsigned char *crafted_npy(int major, const char *dict, const void *data, size_t len, size_t *size)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t total = (pre + strlen(dict) + 1 + 63) / 64 * 64;
    size_t hlen = total - pre;
    unsigned char *buf = malloc(total + len);
    if (!buf)
        return NULL;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        buf[8 + i] = (unsigned char)(hlen >> (8 * i));
    memset(buf + pre, ' ', hlen);
    memcpy(buf + pre, dict, strlen(dict));
    buf[total - 1] = '\n';
    if (len)
        memcpy(buf + total, data, len);
    *size = total + len;
    return buf;
}

const crafted_npy_header crafted_npy_unsupported[] = {
    {"fortran.npy", "{'descr': '<u2', 'fortran_order': True, 'shape': (2, 2), }"},
    {"big_endian.npy", "{'descr': '>u2', 'fortran_order': False, 'shape': (2, 2), }"},
    {"four_d.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 2, 1), }"},
    {"one_d.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (8,), }"},
    {"scalar.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (), }"},
    {"five_ch.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 5), }"},
    {"complex.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 2), }"},
    {"int8.npy", "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 2), }"},
    {"int64.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }"},
    {"empty.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4), }"},
    {"struct.npy", "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2, 2), }"},
};
const int crafted_npy_unsupported_count =
    (int)(sizeof(crafted_npy_unsupported) / sizeof(crafted_npy_unsupported[0]));

const crafted_npy_header crafted_npy_corrupt[] = {
    {"no_brace.npy", "'descr': '<u2', 'fortran_order': False, 'shape': (2, 2)"},
    {"missing_key.npy", "{'descr': '<u2', 'shape': (2, 2), }"},
    {"extra_key.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2), 'x': 1}"},
    {"twice.npy", "{'descr': '<u2', 'descr': '<u2', 'fortran_order': False, 'shape': (2,2)}"},
    {"bad_bool.npy", "{'descr': '<u2', 'fortran_order': Maybe, 'shape': (2, 2), }"},
    {"bad_shape.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, -2), }"},
    {"open_shape.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2, }"},
    {"junk_after.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2), } x"},
    {"open_string.npy", "{'descr': '<u2, 'fortran_order': False, 'shape': (2, 2), }"},
    {"overflow.npy", "{'descr': '|u1', 'fortran_order': False, "
                     "'shape': (99999999999999999999999, 2), }"},
    {"huge.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (100000, 100000), }"},
    {"wide.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2000000), }"},
    /* 64 bytes: enough for 2 x 2 of anything, not for 8 x 8 u2. */
    {"short_data.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (8, 8), }"},
};
const int crafted_npy_corrupt_count =
    (int)(sizeof(crafted_npy_corrupt) / sizeof(crafted_npy_corrupt[0]));

unsigned char *crafted_jpeg_encode(const crafted_jpeg *s,
                                   void (*fill)(unsigned char *row, size_t len, unsigned y),
                                   size_t *len)
{
    size_t row_len = (size_t)s->width * (size_t)s->components;
    unsigned char *row = malloc(row_len);
    if (!row)
        return NULL;
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    unsigned char *out = NULL;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &out, &size);
    cinfo.image_width = (JDIMENSION)s->width;
    cinfo.image_height = (JDIMENSION)s->height;
    cinfo.input_components = s->components;
    cinfo.in_color_space = s->components == 1   ? JCS_GRAYSCALE
                           : s->components == 3 ? JCS_RGB
                                                : JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, s->quality, TRUE);
    if (s->components == 3 && !s->subsample) {
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }
    cinfo.restart_in_rows = s->restart;
    cinfo.optimize_coding = s->coding == CODING_OPTIMIZED || s->coding == CODING_TWO_SCANS;
    cinfo.arith_code = s->coding == CODING_ARITH || s->coding == CODING_ARITH_PROGRESSIVE;
    if (s->coding == CODING_PROGRESSIVE || s->coding == CODING_ARITH_PROGRESSIVE)
        jpeg_simple_progression(&cinfo);
    static const jpeg_scan_info two_scans[2] = {{1, {0}, 0, 0, 0, 0}, {1, {0}, 1, 63, 0, 0}};
    if (s->coding == CODING_TWO_SCANS) {
        cinfo.scan_info = two_scans;
        cinfo.num_scans = 2;
    }
    jpeg_start_compress(&cinfo, TRUE);
    JSAMPROW rows[1] = {row};
    while (cinfo.next_scanline < cinfo.image_height) {
        fill(row, row_len, cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(row);
    *len = size;
    return out;
}

/* v at p in the byte order of an Exif block. */
static void exif_put(unsigned char *p, uint32_t v, int bytes, int big)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * (big ? bytes - 1 - i : i)));
}

unsigned char *crafted_jpeg_exif(const unsigned char *jpeg, size_t len, int orientation,
                                 int big_endian, int entries, int claim_entries, size_t *out_len)
{
    if (entries < 1)
        entries = 1;
    const size_t tiff = 8 + 2 + 12 * (size_t)entries + 4,
                 seg = 2 + 6 + tiff;            /* the length field's */
    unsigned char *out = malloc(len + 2 + seg); /* FF E1, then seg bytes */
    if (!out)
        return NULL;
    memcpy(out, jpeg, 2); /* SOI */
    unsigned char *a = out + 2;
    a[0] = 0xFF;
    a[1] = 0xE1;
    a[2] = (unsigned char)(seg >> 8);
    a[3] = (unsigned char)seg;
    memcpy(a + 4, "Exif\0\0", 6);
    unsigned char *t = a + 10;
    memset(t, 0, tiff);
    t[0] = t[1] = big_endian ? 'M' : 'I';
    exif_put(t + 2, 42, 2, big_endian);
    exif_put(t + 4, 8, 4, big_endian);
    exif_put(t + 8, (uint32_t)(claim_entries > 0 ? claim_entries : entries), 2, big_endian);
    for (int i = 0; i < entries; i++) {
        unsigned char *e = t + 10 + 12 * i;
        const int last = i == entries - 1 && orientation != 0;
        exif_put(e, last ? 0x0112 : 0x010F + (uint32_t)i, 2, big_endian); /* Make, ... */
        exif_put(e + 2, 3, 2, big_endian);                                /* SHORT */
        exif_put(e + 4, 1, 4, big_endian);
        exif_put(e + 8, last ? (uint32_t)orientation : 7, 2, big_endian);
    }
    memcpy(out + 4 + seg, jpeg + 2, len - 2);
    *out_len = len + 2 + seg;
    return out;
}

/* Comment segments holding pad bytes in all at out (NULL: only counted);
 * returns their size. */
static size_t put_comments(unsigned char *out, size_t pad)
{
    size_t n = 0;
    while (pad > 0) {
        const size_t take = pad < 65533 ? pad : 65533;
        if (out) {
            out[n] = 0xFF;
            out[n + 1] = 0xFE;
            out[n + 2] = (unsigned char)((take + 2) >> 8);
            out[n + 3] = (unsigned char)(take + 2);
            memset(out + n + 4, 'C', take);
        }
        n += 4 + take;
        pad -= take;
    }
    return n;
}

unsigned char *crafted_jpeg_pad(const unsigned char *jpeg, size_t len, size_t pad, size_t *out_len)
{
    const size_t comments = put_comments(NULL, pad);
    unsigned char *out = malloc(len + comments);
    if (!out)
        return NULL;
    memcpy(out, jpeg, 2); /* SOI */
    put_comments(out + 2, pad);
    memcpy(out + 2 + comments, jpeg + 2, len - 2);
    *out_len = len + comments;
    return out;
}

unsigned char *crafted_jpeg_arith_empty(unsigned side, int colour, size_t pad, size_t *len)
{
    const unsigned nc = colour ? 3 : 1;
    unsigned char file[2 + 69 + 19 + 14 + 2];
    size_t n = 0;
    file[n++] = 0xFF; /* SOI */
    file[n++] = 0xD8;
    static const unsigned char dqt[5] = {0xFF, 0xDB, 0x00, 0x43, 0x00};
    memcpy(file + n, dqt, sizeof(dqt));
    n += sizeof(dqt);
    memset(file + n, 1, 64);
    n += 64;
    const size_t tables = n;
    const unsigned char sof[10] = {0xFF,
                                   0xC9,
                                   0,
                                   (unsigned char)(8 + 3 * nc),
                                   8,
                                   (unsigned char)(side >> 8),
                                   (unsigned char)side,
                                   (unsigned char)(side >> 8),
                                   (unsigned char)side,
                                   (unsigned char)nc};
    memcpy(file + n, sof, sizeof(sof));
    n += sizeof(sof);
    for (unsigned c = 1; c <= nc; c++) {
        file[n++] = (unsigned char)c; /* id, 1x1 sampling, table 0 */
        file[n++] = 0x11;
        file[n++] = 0;
    }
    const unsigned char sos[5] = {0xFF, 0xDA, 0, (unsigned char)(6 + 2 * nc), (unsigned char)nc};
    memcpy(file + n, sos, sizeof(sos));
    n += sizeof(sos);
    for (unsigned c = 1; c <= nc; c++) {
        file[n++] = (unsigned char)c; /* id, conditioning tables 0 */
        file[n++] = 0;
    }
    file[n++] = 0; /* Ss, Se, Ah/Al: sequential */
    file[n++] = 63;
    file[n++] = 0;
    file[n++] = 0xFF; /* EOI */
    file[n++] = 0xD9;
    const size_t comments = put_comments(NULL, pad);
    unsigned char *out = malloc(n + comments);
    if (!out)
        return NULL;
    memcpy(out, file, tables);
    put_comments(out + tables, pad);
    memcpy(out + tables + comments, file + tables, n - tables);
    *len = n + comments;
    return out;
}

/*
 * Pieces of crafted image files, shared by the image I/O suite
 * (test_imageio.c) and the fuzz seed corpus (fuzz/make_corpus.c): PNG
 * chunks, hand-made .npy files and their refused headers, and JPEG files
 * encoded with libjpeg in every coding the reader takes.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_TEST_CRAFTED_H
#define CLIK_TEST_CRAFTED_H

#include <stddef.h>
#include <stdint.h>

/* ---- PNG ---- */

extern const unsigned char crafted_png_signature[8];
/* v, big-endian, at p[0..3]. */
void crafted_be32(unsigned char *p, uint32_t v);
/* Writes a chunk with a correct CRC at out; returns its size (12 + len). */
size_t crafted_png_chunk(unsigned char *out, const char *type, const unsigned char *data,
                         uint32_t len);

/* ---- NumPy ---- */

/* A .npy made by hand: version major.0, the dict padded as numpy pads it,
 * then len bytes of data; malloc'ed (NULL without memory), *size bytes. */
unsigned char *crafted_npy(int major, const char *dict, const void *data, size_t len, size_t *size);

/* Headers the reader refuses, each with 64 zero bytes of data after it:
 * layouts it does not take (CLIK_ERR_UNSUPPORTED_FORMAT), and corrupt or
 * lying ones (CLIK_ERR_FILE_FORMAT). */
typedef struct crafted_npy_header {
    const char *name;
    const char *dict;
} crafted_npy_header;
extern const crafted_npy_header crafted_npy_unsupported[];
extern const int crafted_npy_unsupported_count;
extern const crafted_npy_header crafted_npy_corrupt[];
extern const int crafted_npy_corrupt_count;

/* ---- JPEG ---- */

typedef enum crafted_jpeg_coding {
    CODING_BASELINE,    /* standard Huffman tables */
    CODING_OPTIMIZED,   /* Huffman tables fitted to the image: the smallest files */
    CODING_PROGRESSIVE, /* libjpeg's progressive script, fitted tables */
    CODING_ARITH,       /* arithmetic coding, sequential */
    CODING_ARITH_PROGRESSIVE,
    CODING_TWO_SCANS, /* grey: all DC, then all AC with no successive approximation */
} crafted_jpeg_coding;

typedef struct crafted_jpeg {
    int width, height, components; /* 1 grey, 3 RGB, 4 CMYK */
    crafted_jpeg_coding coding;
    int quality;
    int subsample; /* 4:2:0 chroma, else 4:4:4 */
    int restart;   /* restart interval in MCU rows, or 0 */
} crafted_jpeg;

/* The image that spec describes, its row y (len bytes: width x components)
 * as fill() writes it, encoded with libjpeg into malloc'ed memory (*len
 * bytes); NULL without memory. */
unsigned char *crafted_jpeg_encode(const crafted_jpeg *spec,
                                   void (*fill)(unsigned char *row, size_t len, unsigned y),
                                   size_t *len);

/* jpeg (len bytes, starting with SOI) with an APP1 Exif segment after SOI
 * whose IFD0 holds the Orientation tag with value orientation (0: no such
 * tag), written
 * little-endian ("II") or, with big_endian, "MM"; entries > 1 adds that
 * many entries before it, and claim_entries > 0 makes the IFD claim that
 * count instead (a lie). malloc'ed, *out_len bytes; NULL without memory. */
unsigned char *crafted_jpeg_exif(const unsigned char *jpeg, size_t len, int orientation,
                                 int big_endian, int entries, int claim_entries, size_t *out_len);

/* An arithmetic-coded (SOF9) side x side frame, grey or (colour) three
 * components, whose one scan holds no coded byte at all: SOI, a quantisation
 * table of ones, comment segments of pad bytes in all, SOF9, SOS, EOI.
 * libjpeg decodes such a file without a warning (zeros in, an image out).
 * malloc'ed, *len bytes; NULL without memory. */
unsigned char *crafted_jpeg_arith_empty(unsigned side, int colour, size_t pad, size_t *len);

/* jpeg (len bytes, starting with SOI) with comment segments of pad bytes in
 * all after SOI. malloc'ed, *out_len bytes; NULL without memory. */
unsigned char *crafted_jpeg_pad(const unsigned char *jpeg, size_t len, size_t pad, size_t *out_len);

#endif

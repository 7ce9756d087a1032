/*
 * Writes the seed corpora of the image-file harnesses: make-corpus DIR fills
 * DIR/png, DIR/jpeg, DIR/pnm, DIR/npy and DIR/flo (which must exist) with
 * small valid files of every layout the readers take, and with the broken and
 * lying files of tests/test_imageio.c (for .flo, of each check the reader
 * makes). The output is the same on every run, so `make-corpus
 * tests/fuzz/corpus` rewrites the committed corpus unchanged unless this file
 * changed. (corpus/image, the seeds of the harness of the choice of reader
 * by content, holds copies of a few of these files, valid and broken, named
 * FORMAT-NAME, and zeros, which no format starts like.)
 *
 * Valid files come from the project's writers, or from libpng and libjpeg
 * directly for layouts those never write (palettes, low bit depths,
 * interlacing, progressive and arithmetic JPEG).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

#include "crafted.h"
#include "imageio.h"
#include "patterns.h"

static const char *root;

static _Noreturn void die(const char *what, const char *detail)
{
    fprintf(stderr, "make-corpus: %s: %s\n", what, detail);
    exit(EXIT_FAILURE);
}

static void join(char *out, size_t cap, const char *format, const char *name)
{
    snprintf(out, cap, "%s/%s/%s", root, format, name);
}

static void put(const char *format, const char *name, const void *data, size_t len)
{
    char path[4096];
    join(path, sizeof(path), format, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
        die(path, strerror(errno));
}

/* A file cut short: the first keep bytes of an input, as name. */
typedef struct cut {
    const char *name;
    size_t keep;
} cut;

static void put_cuts(const char *format, const unsigned char *data, const cut *cuts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(format, cuts[i].name, data, cuts[i].keep);
}

static unsigned char *get(const char *format, const char *name, size_t *len)
{
    char path[4096];
    join(path, sizeof(path), format, name);
    FILE *fp = fopen(path, "rb");
    if (!fp || fseek(fp, 0, SEEK_END) != 0)
        die(path, strerror(errno));
    long size = ftell(fp);
    unsigned char *data = size > 0 ? malloc((size_t)size) : NULL;
    if (!data || fseek(fp, 0, SEEK_SET) != 0 || fread(data, 1, (size_t)size, fp) != (size_t)size)
        die(path, "cannot read back");
    fclose(fp);
    *len = (size_t)size;
    return data;
}

/* Writes a pattern image through clikio_write(). */
static void put_image(const char *format, const char *name, int w, int h, int channels,
                      clik_type type, clik_pattern pattern, int keep_alpha)
{
    clik_image img;
    if (clik_image_alloc(&img, w, h, channels, type) != CLIK_OK)
        die(name, "cannot allocate");
    clik_pattern_fill(&img, pattern, 7);
    char path[4096], err[512];
    join(path, sizeof(path), format, name);
    if (clikio_write(path, &img, keep_alpha, err, sizeof(err)) != CLIK_OK)
        die(path, err);
    clik_image_free(&img);
}

static size_t find_marker(const unsigned char *data, size_t len, unsigned char marker)
{
    for (size_t i = 2; i + 1 < len; i++) {
        if (data[i] == 0xFF && data[i + 1] == marker)
            return i;
    }
    return 0;
}

/* ---- PNG ------------------------------------------------------------------ */

typedef struct growing {
    unsigned char *data;
    size_t len, cap;
} growing;

static void append(png_structp png, png_bytep data, size_t len)
{
    growing *g = png_get_io_ptr(png);
    if (g->len + len > g->cap) {
        g->cap = (g->len + len) * 2;
        g->data = realloc(g->data, g->cap);
        if (!g->data)
            die("png", "out of memory");
    }
    memcpy(g->data + g->len, data, len);
    g->len += len;
}

static void flush_nothing(png_structp png)
{
    (void)png;
}

/* A w x h PNG written by libpng itself; rows of packed samples from a counter. */
static void put_raw_png(const char *name, int w, int h, int depth, int color, int interlace)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info)
        die(name, "libpng");
    growing out = {0};
    if (setjmp(png_jmpbuf(png)))
        die(name, "libpng failed");
    png_set_write_fn(png, &out, append, flush_nothing);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, color, interlace,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_color palette[16];
        png_byte alpha[16];
        for (int i = 0; i < 16; i++) {
            palette[i] =
                (png_color){(png_byte)(i * 16), (png_byte)(255 - i * 16), (png_byte)(i * 5)};
            alpha[i] = (png_byte)(255 - i * 8);
        }
        int entries = depth < 4 ? 1 << depth : 16;
        png_set_PLTE(png, info, palette, entries);
        png_set_tRNS(png, info, alpha, entries / 2, NULL);
    } else if (color == PNG_COLOR_TYPE_GRAY) {
        png_color_16 key = {.gray = 1};
        png_set_tRNS(png, info, NULL, 0, &key);
    }
    png_write_info(png, info);
    int channels = color == PNG_COLOR_TYPE_RGB ? 3 : 1;
    size_t row_bytes = ((size_t)w * (size_t)channels * (size_t)depth + 7) / 8;
    unsigned char **rows = malloc((size_t)h * sizeof(*rows));
    unsigned char *pixels = malloc((size_t)h * row_bytes);
    if (!rows || !pixels)
        die(name, "out of memory");
    for (size_t i = 0; i < (size_t)h * row_bytes; i++)
        pixels[i] = (unsigned char)(i * 37 + i / row_bytes);
    if (color == PNG_COLOR_TYPE_PALETTE && depth == 8) {
        for (size_t i = 0; i < (size_t)h * row_bytes; i++)
            pixels[i] &= 15; /* within the palette */
    }
    for (int y = 0; y < h; y++)
        rows[y] = pixels + (size_t)y * row_bytes;
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    put("png", name, out.data, out.len);
    free(out.data);
    free(rows);
    free(pixels);
}

/* Signature, an IHDR claiming w x h grey, a two-byte IDAT and IEND. */
static void put_png_claiming(const char *name, uint32_t w, uint32_t h)
{
    unsigned char buf[128], ihdr[13] = {0};
    memcpy(buf, crafted_png_signature, 8);
    size_t n = 8;
    crafted_be32(ihdr, w);
    crafted_be32(ihdr + 4, h);
    ihdr[8] = 8;
    n += crafted_png_chunk(buf + n, "IHDR", ihdr, 13);
    const unsigned char idat[2] = {0x78, 0x9C};
    n += crafted_png_chunk(buf + n, "IDAT", idat, 2);
    n += crafted_png_chunk(buf + n, "IEND", NULL, 0);
    put("png", name, buf, n);
}

static void make_png(void)
{
    put_image("png", "grey.png", 16, 12, 1, CLIK_U8, CLIK_PATTERN_GRADIENT, 1);
    put_image("png", "grey_alpha.png", 12, 10, 2, CLIK_U8, CLIK_PATTERN_EDGES, 1);
    put_image("png", "rgb.png", 16, 12, 4, CLIK_U8, CLIK_PATTERN_SMOOTH, 0);
    put_image("png", "rgba.png", 12, 12, 4, CLIK_U8, CLIK_PATTERN_CHECKER, 1);
    put_image("png", "grey16.png", 12, 8, 1, CLIK_U16, CLIK_PATTERN_GRADIENT, 1);
    put_image("png", "rgba16.png", 8, 8, 4, CLIK_U16, CLIK_PATTERN_SMOOTH, 1);
    put_image("png", "noise.png", 16, 16, 4, CLIK_U8, CLIK_PATTERN_NOISE, 0);
    put_raw_png("palette8.png", 13, 7, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE);
    put_raw_png("palette2.png", 11, 5, 2, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE);
    put_raw_png("grey1.png", 17, 3, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE);
    put_raw_png("grey4_trns.png", 9, 6, 4, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE);
    put_raw_png("interlaced_rgb16.png", 7, 5, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_ADAM7);
    put_raw_png("interlaced_palette.png", 9, 9, 4, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_ADAM7);

    /* As in test_png_truncated: inside the signature, after it, inside IHDR,
     * after it, inside IDAT, without IEND, one byte short. */
    size_t len;
    unsigned char *noise = get("png", "noise.png", &len);
    const size_t cuts[] = {4, 8, 20, 33, 45, len / 2, len - 12, len - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char name[32];
        snprintf(name, sizeof(name), "cut%zu.png", i);
        put("png", name, noise, cuts[i]);
    }
    noise[29] ^= 0x01; /* the IHDR CRC */
    put("png", "bad_ihdr_crc.png", noise, len);
    noise[29] ^= 0x01;
    noise[41 + 100] ^= 0x40; /* compressed data: the IDAT CRC no longer matches */
    put("png", "bad_idat.png", noise, len);
    free(noise);
    put_png_claiming("huge.png", 100000, 100000);
    put_png_claiming("wide.png", (1u << 20) + 1, 1);
    put_png_claiming("lie16384.png", 16384, 16384);
    put_png_claiming("small_claim.png", 2, 2);
}

/* ---- JPEG ------------------------------------------------------------------ */

static void fill_rows(unsigned char *row, size_t len, unsigned y)
{
    for (size_t i = 0; i < len; i++)
        row[i] = (unsigned char)(i * 7 + y * 5 + (i % 5) * 31);
}

static unsigned char *encode_jpeg(const crafted_jpeg *s, size_t *len)
{
    unsigned char *out = crafted_jpeg_encode(s, fill_rows, len);
    if (!out)
        die("jpeg", "out of memory");
    return out;
}

static void put_jpeg(const char *name, crafted_jpeg spec)
{
    size_t len;
    unsigned char *data = encode_jpeg(&spec, &len);
    put("jpeg", name, data, len);
    free(data);
}

/* A small RGB file with an Exif segment (crafted_jpeg_exif's arguments). */
static void put_jpeg_exif(const char *name, int orientation, int big, int entries, int claim)
{
    size_t len, n;
    unsigned char *data = encode_jpeg(&(crafted_jpeg){24, 16, 3, CODING_BASELINE, 75, 1, 0}, &len);
    unsigned char *e = crafted_jpeg_exif(data, len, orientation, big, entries, claim, &n);
    if (!e)
        die("jpeg", "out of memory");
    put("jpeg", name, e, n);
    free(e);
    free(data);
}

/* Makes the frame header claim w x h. */
static void claim_size(unsigned char *data, size_t len, unsigned w, unsigned h)
{
    static const unsigned char frames[] = {0xC0, 0xC1, 0xC2, 0xC9, 0xCA};
    for (size_t i = 0; i < sizeof(frames); i++) {
        size_t sof = find_marker(data, len, frames[i]);
        if (sof) {
            data[sof + 5] = (unsigned char)(h >> 8);
            data[sof + 6] = (unsigned char)h;
            data[sof + 7] = (unsigned char)(w >> 8);
            data[sof + 8] = (unsigned char)w;
            return;
        }
    }
    die("jpeg", "no frame header");
}

/* The file of spec with its header claiming w x h, cut to keep bytes (all
 * when 0) and, when eoi, ended with EOI. */
static void put_jpeg_lie(const char *name, crafted_jpeg spec, unsigned w, unsigned h, size_t keep,
                         int eoi)
{
    size_t len;
    unsigned char *data = encode_jpeg(&spec, &len);
    if (keep == 0 || keep > len - 2)
        keep = len - 2;
    claim_size(data, len, w, h);
    if (eoi) {
        data[keep] = 0xFF;
        data[keep + 1] = 0xD9;
        keep += 2;
    }
    put("jpeg", name, data, keep);
    free(data);
}

/* A progressive grey file of `scans` scans: DC, then the AC scan repeated;
 * with comment, after a comment segment of length 0 (which libjpeg skips). */
static void put_jpeg_scans(const char *name, int scans, int comment)
{
    size_t len;
    crafted_jpeg spec = {8, 8, 1, CODING_TWO_SCANS, 1, 0, 0};
    unsigned char *two = encode_jpeg(&spec, &len);
    size_t first = find_marker(two, len, 0xDA);
    size_t second = first + 2 + find_marker(two + first + 2, len - first - 2, 0xDA);
    size_t eoi = len - 2, repeat = eoi - second;
    size_t total = eoi + (size_t)(scans - 2) * repeat + 2;
    unsigned char *out = malloc(total);
    if (!out)
        die(name, "out of memory");
    memcpy(out, two, eoi);
    for (size_t k = 0; k < (size_t)(scans - 2); k++)
        memcpy(out + eoi + k * repeat, two + second, repeat);
    out[total - 2] = 0xFF;
    out[total - 1] = 0xD9;
    if (comment) {
        static const unsigned char empty_comment[4] = {0xFF, 0xFE, 0x00, 0x00};
        unsigned char *more = malloc(total + 4);
        if (!more)
            die(name, "out of memory");
        memcpy(more, out, 2);
        memcpy(more + 2, empty_comment, 4);
        memcpy(more + 6, out + 2, total - 2);
        free(out);
        out = more;
        total += 4;
    }
    put("jpeg", name, out, total);
    free(out);
    free(two);
}

/* The 96 bytes of an arithmetic-coded 16384 x 16384 grey file with no scan
 * data: SOI, a table of ones, SOF9, SOS, EOI. */
static void put_jpeg_arith_empty(void)
{
    unsigned char file[96] = {0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00};
    static const unsigned char tail[] = {
        0xFF, 0xC9, 0x00, 0x0B, 8, 0x40, 0x00, 0x40, 0x00, 1, 1,    0x11, 0,
        0xFF, 0xDA, 0x00, 0x08, 1, 1,    0x00, 0,    63,   0, 0xFF, 0xD9,
    };
    memset(file + 7, 1, 64);
    memcpy(file + 71, tail, sizeof(tail));
    put("jpeg", "lie_arith_empty.jpg", file, sizeof(file));
}

/* crafted_jpeg_arith_empty()'s file as name. */
static void put_jpeg_arith_empty_of(const char *name, unsigned side, int colour, size_t pad)
{
    size_t len;
    unsigned char *data = crafted_jpeg_arith_empty(side, colour, pad, &len);
    if (!data)
        die(name, "out of memory");
    put("jpeg", name, data, len);
    free(data);
}

/* A baseline file whose scan header is followed by EOI at once. */
static void put_jpeg_huffman_empty(void)
{
    size_t len;
    unsigned char *data = encode_jpeg(&(crafted_jpeg){16, 16, 3, CODING_BASELINE, 75, 1, 0}, &len);
    size_t sos = find_marker(data, len, 0xDA);
    if (sos == 0)
        die("huffman_empty.jpg", "no scan header");
    size_t end = sos + 2 + ((size_t)data[sos + 2] << 8 | data[sos + 3]);
    data[end] = 0xFF;
    data[end + 1] = 0xD9;
    put("jpeg", "huffman_empty.jpg", data, end + 2);
    free(data);
}

/* An arithmetic-coded file cut inside its data, claiming 16384 x 16384,
 * with 16.5 KB of comments. */
static void put_jpeg_lie_padded(void)
{
    size_t len, padded_len;
    unsigned char *data = encode_jpeg(&(crafted_jpeg){32, 32, 1, CODING_ARITH, 90, 1, 0}, &len);
    size_t sos = find_marker(data, len, 0xDA), keep = sos + 10 + 100;
    if (sos == 0 || keep + 2 > len)
        die("lie_arith_padded.jpg", "too short");
    data[keep] = 0xFF;
    data[keep + 1] = 0xD9;
    claim_size(data, keep + 2, 16384, 16384);
    unsigned char *padded = crafted_jpeg_pad(data, keep + 2, 16500, &padded_len);
    if (!padded)
        die("lie_arith_padded.jpg", "out of memory");
    put("jpeg", "lie_arith_padded.jpg", padded, padded_len);
    free(padded);
    free(data);
}

static void make_jpeg(void)
{
    put_image("jpeg", "grey.jpg", 16, 16, 1, CLIK_U8, CLIK_PATTERN_GRADIENT, 0);
    put_image("jpeg", "rgb444.jpg", 16, 16, 4, CLIK_U8, CLIK_PATTERN_SMOOTH, 0);
    put_image("jpeg", "odd_size.jpg", 13, 7, 4, CLIK_U8, CLIK_PATTERN_EDGES, 0);
    put_jpeg("rgb420.jpg", (crafted_jpeg){24, 16, 3, CODING_BASELINE, 75, 1, 0});
    put_jpeg_exif("exif6.jpg", 6, 0, 1, 0);
    put_jpeg_exif("exif8_mm.jpg", 8, 1, 3, 0);
    put_jpeg_exif("exif_lie.jpg", 0, 0, 3, 4000);
    put_jpeg("optimized.jpg", (crafted_jpeg){16, 16, 3, CODING_OPTIMIZED, 50, 1, 0});
    put_jpeg("restarts.jpg", (crafted_jpeg){16, 32, 3, CODING_BASELINE, 60, 1, 1});
    put_jpeg("progressive.jpg", (crafted_jpeg){16, 16, 3, CODING_PROGRESSIVE, 80, 1, 0});
    put_jpeg("progressive_grey.jpg", (crafted_jpeg){16, 16, 1, CODING_PROGRESSIVE, 80, 0, 0});
    put_jpeg("arith.jpg", (crafted_jpeg){16, 16, 3, CODING_ARITH, 80, 1, 0});
    put_jpeg("arith_grey_restarts.jpg", (crafted_jpeg){16, 24, 1, CODING_ARITH, 80, 0, 1});
    put_jpeg("arith_progressive.jpg",
             (crafted_jpeg){16, 16, 3, CODING_ARITH_PROGRESSIVE, 80, 1, 0});
    put_jpeg("cmyk.jpg", (crafted_jpeg){8, 8, 4, CODING_BASELINE, 75, 0, 0});
    put_jpeg_scans("scans256.jpg", 256, 0);
    put_jpeg_scans("scans257.jpg", 257, 0);
    put_jpeg_scans("scans257_comment.jpg", 257, 1);

    /* As in test_jpeg_truncated: inside SOI, in the tables, at SOS, inside
     * the data, one EOI byte short. */
    size_t len;
    unsigned char *noisy = get("jpeg", "rgb420.jpg", &len);
    size_t sos = find_marker(noisy, len, 0xDA);
    const size_t cuts[] = {2, 20, sos, sos + 20, len / 2, len - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char name[32];
        snprintf(name, sizeof(name), "cut%zu.jpg", i);
        put("jpeg", name, noisy, cuts[i]);
    }
    claim_size(noisy, len, 65535, 65535);
    put("jpeg", "huge.jpg", noisy, len);
    claim_size(noisy, len, 60000, 60000);
    put("jpeg", "big.jpg", noisy, len);
    free(noisy);

    /* The lying files of test_imageio.c: headers claiming 16384 x 16384. */
    put_jpeg_arith_empty();
    put_jpeg_lie("lie_arith_cut.jpg", (crafted_jpeg){64, 16, 3, CODING_ARITH, 90, 0, 0}, 16384,
                 16384, 0, 1);
    put_jpeg_lie("lie_baseline.jpg", (crafted_jpeg){16, 16, 3, CODING_BASELINE, 95, 0, 0}, 16384,
                 16384, 0, 0);
    put_jpeg_lie("lie_progressive.jpg", (crafted_jpeg){16, 16, 3, CODING_PROGRESSIVE, 95, 0, 0},
                 16384, 16384, 0, 1);
    put_jpeg_lie("lie_grey_cut.jpg", (crafted_jpeg){32, 32, 1, CODING_OPTIMIZED, 90, 0, 0}, 16384,
                 16384, 200, 0);

    /* Of test_jpeg_no_scan_data and test_jpeg_padding_does_not_count:
     * scans without a coded byte, arithmetic- and Huffman-coded, and files
     * whose comments would pay for a lying header. */
    put_jpeg_arith_empty_of("arith_empty64.jpg", 64, 0, 0);
    put_jpeg_arith_empty_of("arith_empty256_rgb.jpg", 256, 1, 0);
    put_jpeg_arith_empty_of("arith_empty2048.jpg", 2048, 0, 0);
    put_jpeg_arith_empty_of("arith_empty_padded.jpg", 16384, 0, 16500);
    put_jpeg_huffman_empty();
    put_jpeg_lie_padded();
}

/* ---- PGM/PPM --------------------------------------------------------------- */

static void put_text(const char *name, const char *bytes, size_t len)
{
    put("pnm", name, bytes, len);
}

#define PUT_TEXT(name, bytes) put_text(name, bytes, sizeof(bytes) - 1)

static void make_pnm(void)
{
    put_image("pnm", "grey.pgm", 16, 12, 1, CLIK_U8, CLIK_PATTERN_GRADIENT, 0);
    put_image("pnm", "grey16.pgm", 8, 8, 1, CLIK_U16, CLIK_PATTERN_SMOOTH, 0);
    put_image("pnm", "rgb.ppm", 12, 8, 4, CLIK_U8, CLIK_PATTERN_EDGES, 0);
    put_image("pnm", "rgb16.ppm", 6, 6, 4, CLIK_U16, CLIK_PATTERN_NOISE, 0);
    PUT_TEXT("plain.pgm", "P2\n# a comment\n3 2 # width and height\n#another\n15\n"
                          "0 1 2\n15 14 13\n");
    PUT_TEXT("plain16.ppm", "P3 2 1 1000\n0 500 1000 999 1 2\n");
    PUT_TEXT("scaled16.pgm", "P5\n2 1\n1000\n\x01\xF4\x03\xE8");
    PUT_TEXT("maxval1.pgm", "P5 3 1 1\n\x00\x01\x00");

    /* As in test_pnm_bad and test_pnm_huge_header. */
    PUT_TEXT("p1.pgm", "P1\n2 2\n0 1 1 0\n");
    PUT_TEXT("p4.pgm", "P4\n8 1\n\x55");
    PUT_TEXT("p7.pgm", "P7\nWIDTH 1\n");
    PUT_TEXT("garbage.pgm", "hello world\n");
    PUT_TEXT("magic_only.pgm", "P5");
    PUT_TEXT("magic_glued.pgm", "P53 1 255\n");
    PUT_TEXT("no_maxval.pgm", "P5\n3 1\n");
    PUT_TEXT("bad_width.pgm", "P5\n3x 1\n255\n");
    PUT_TEXT("zero_width.pgm", "P5\n0 1\n255\n");
    PUT_TEXT("maxval0.pgm", "P5\n1 1\n0\n\x00");
    PUT_TEXT("maxval_big.pgm", "P5\n1 1\n70000\n\x00\x00");
    PUT_TEXT("huge_number.pgm", "P5\n99999999999999999999 1\n255\n");
    PUT_TEXT("maxval_comment.pgm", "P5\n1 1\n255#c\n\x00");
    PUT_TEXT("short_binary.pgm", "P5\n4 4\n255\nabc");
    PUT_TEXT("short_binary16.ppm", "P6\n1 1\n65535\n\x01\x02\x03\x04\x05");
    PUT_TEXT("short_plain.pgm", "P2\n3 1\n255\n1 2\n");
    PUT_TEXT("plain_over_maxval.pgm", "P2\n2 1\n10\n5 11\n");
    PUT_TEXT("plain_letters.pgm", "P2\n2 1\n10\n5 x\n");
    PUT_TEXT("binary_over_maxval.pgm", "P5\n1 1\n1000\n\x07\xD0");
    PUT_TEXT("binary8_over_maxval.pgm", "P5\n2 1\n100\n\x10\xC8");
    PUT_TEXT("huge.pgm", "P5\n100000 100000\n255\n\x01\x02\x03");
    PUT_TEXT("wide.ppm", "P6 2000000 1 255\n\x01\x02\x03");
    PUT_TEXT("huge_plain.pgm", "P2 10000 10000 255 1 2 3\n");
    PUT_TEXT("lie16384.ppm", "P6\n16384 16384\n255\n\x01\x02\x03");
}

/* ---- NumPy ------------------------------------------------------------------ */

/* A .npy made by hand: version major.0, the dict padded as numpy pads it,
 * then len bytes of data. */
static void put_npy(const char *name, int major, const char *dict, const void *data, size_t len)
{
    size_t size;
    unsigned char *buf = crafted_npy(major, dict, data, len, &size);
    if (!buf)
        die(name, "out of memory");
    put("npy", name, buf, size);
    free(buf);
}

static void make_npy(void)
{
    static const struct {
        clik_type type;
        const char *name;
    } types[] = {
        {CLIK_U8, "u8"},   {CLIK_S16, "s16"}, {CLIK_U16, "u16"},
        {CLIK_S32, "s32"}, {CLIK_U32, "u32"}, {CLIK_U64, "u64"},
        {CLIK_F16, "f16"}, {CLIK_F32, "f32"}, {CLIK_F64, "f64"},
    };
    static const int channel_counts[3] = {1, 2, 4};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        int channels = channel_counts[i % 3];
        char name[32], path[4096], err[512];
        snprintf(name, sizeof(name), "%s_%dch.npy", types[i].name, channels);
        join(path, sizeof(path), "npy", name);
        clik_image img;
        if (clik_image_alloc(&img, 5, 3, channels, types[i].type) != CLIK_OK)
            die(name, "cannot allocate");
        clik_pattern_fill(&img, CLIK_PATTERN_NOISE, i);
        if (clikio_write_npy(path, &img, err, sizeof(err)) != CLIK_OK)
            die(path, err);
        clik_image_free(&img);
    }

    unsigned char zeros[64] = {0};
    put_npy("v2.npy", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 1), }", zeros,
            24);
    put_npy("v3.npy", 3, "{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (2, 2, 2)}",
            zeros, 16);
    put_npy("py2.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 3L), }", "abcdef",
            6);

    /* Those of test_npy_unsupported and test_npy_corrupt, and a lie. */
    for (int i = 0; i < crafted_npy_unsupported_count; i++)
        put_npy(crafted_npy_unsupported[i].name, 1, crafted_npy_unsupported[i].dict, zeros,
                sizeof(zeros));
    for (int i = 0; i < crafted_npy_corrupt_count; i++)
        put_npy(crafted_npy_corrupt[i].name, 1, crafted_npy_corrupt[i].dict, zeros, sizeof(zeros));
    put_npy("lie16384.npy", 1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 16384), }", zeros,
            sizeof(zeros));

    /* As in test_npy_bad_files: cuts, bad magic, version, header length. */
    size_t len;
    unsigned char *data = get("npy", "u16_4ch.npy", &len);
    const cut npy_cuts[] = {{"cut_magic.npy", 3},
                            {"cut_version.npy", 8},
                            {"cut_header.npy", 40},
                            {"cut_data.npy", len - 1}};
    put_cuts("npy", data, npy_cuts, sizeof(npy_cuts) / sizeof(npy_cuts[0]));
    data[1] = 'n';
    put("npy", "bad_magic.npy", data, len);
    data[1] = 'N';
    data[6] = 9;
    put("npy", "version9.npy", data, len);
    data[6] = 2; /* version 2 reads a 4-byte length: about 4 GB here */
    data[10] = 0xFF;
    data[11] = 0xFF;
    put("npy", "long_header.npy", data, len);
    free(data);
}

/* ---- Middlebury .flo ------------------------------------------------------------- */

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A .flo made by hand: tag, the size it claims, then len bytes of data. */
static void put_flo(const char *name, const char *tag, uint32_t w, uint32_t h, const void *data,
                    size_t len)
{
    unsigned char *buf = malloc(12 + len);
    if (!buf)
        die(name, "out of memory");
    memcpy(buf, tag, 4);
    put_le32(buf + 4, w);
    put_le32(buf + 8, h);
    if (len)
        memcpy(buf + 12, data, len);
    put("flo", name, buf, 12 + len);
    free(buf);
}

static void make_flo(void)
{
    /* Valid flows from the writer: smooth motion, one vector, and unknown
     * vectors of every kind (1e10 by convention, NaN, infinities, and the
     * largest known value) between known ones. */
    static const struct {
        const char *name;
        int w, h;
    } valid[] = {{"valid.flo", 7, 5}, {"one.flo", 1, 1}, {"unknown.flo", 4, 2}};
    for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
        clik_image flow;
        if (clik_image_alloc(&flow, valid[i].w, valid[i].h, 2, CLIK_F32) != CLIK_OK)
            die(valid[i].name, "cannot allocate");
        for (int y = 0; y < flow.height; y++) {
            float *row = (float *)((char *)flow.data + (size_t)y * flow.stride);
            for (int x = 0; x < flow.width; x++) {
                row[2 * x] = 0.25f * (float)x - 1.5f;
                row[2 * x + 1] = 0.5f * (float)y - 0.75f * (float)x;
            }
        }
        if (i == 2) {
            float *v = flow.data;
            v[0] = 1e10f;
            v[3] = NAN;
            v[4] = INFINITY;
            v[7] = -INFINITY;
            v[8] = 1e9f;
            v[11] = -1e9f;
            v[12] = 1.000001e9f;
        }
        char path[4096], err[512];
        join(path, sizeof(path), "flo", valid[i].name);
        if (clikio_write(path, &flow, 0, err, sizeof(err)) != CLIK_OK)
            die(path, err);
        clik_image_free(&flow);
    }

    /* As the reader's checks go: cuts, lies, wrong tags, trailing bytes. */
    size_t len;
    unsigned char *data = get("flo", "valid.flo", &len);
    const cut flo_cuts[] = {{"cut_tag.flo", 2},
                            {"cut_header.flo", 8},
                            {"header_only.flo", 12},
                            {"cut_data.flo", len - 1}};
    put_cuts("flo", data, flo_cuts, sizeof(flo_cuts) / sizeof(flo_cuts[0]));
    unsigned char *longer = malloc(len + 1);
    if (!longer)
        die("trailing.flo", "out of memory");
    memcpy(longer, data, len);
    longer[len] = 0;
    put("flo", "trailing.flo", longer, len + 1);
    free(longer);
    memcpy(data, "PIEG", 4);
    put("flo", "wrong_tag.flo", data, len);
    memcpy(data, "HEIP", 4);
    put("flo", "big_endian.flo", data, len);
    free(data);

    unsigned char zeros[64] = {0};
    put_flo("lie16384.flo", "PIEH", 16384, 16384, zeros, sizeof(zeros));
    put_flo("huge.flo", "PIEH", 100000, 100000, zeros, sizeof(zeros));
    put_flo("wide.flo", "PIEH", 2000000, 1, zeros, sizeof(zeros));
    put_flo("overflow.flo", "PIEH", 0x7FFFFFFF, 0x7FFFFFFF, zeros, sizeof(zeros));
    put_flo("negative.flo", "PIEH", 0xFFFFFFFF, 2, zeros, sizeof(zeros));
    put_flo("zero_height.flo", "PIEH", 4, 0, NULL, 0);
    put_flo("short_by_4.flo", "PIEH", 2, 4, zeros, 2 * 4 * 8 - 4);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR (holding png/, jpeg/, pnm/, npy/ and flo/)\n",
                argv[0]);
        return EXIT_FAILURE;
    }
    root = argv[1];
    make_png();
    make_jpeg();
    make_pnm();
    make_npy();
    make_flo();
    return EXIT_SUCCESS;
}

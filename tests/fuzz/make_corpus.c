/*
 * Writes the seed corpora of the image-file harnesses: make-corpus DIR fills
 * DIR/png, DIR/jpeg, DIR/pnm, DIR/npy, DIR/flo and DIR/yuv (which must exist) with
 * small valid files of every layout the readers take, and with the broken and
 * lying files of tests/test_imageio.c (for .flo, of each check the reader
 * makes). It also fills DIR/options, the inputs of the harness of the
 * flow's and the LAPAR operations' options (fuzz_options.c): the defaults,
 * the repros of the NEON flow's smoothing overflow (sigma 4, zoom 0.1) and
 * the edges of that overflow, valid calls of each operation, and refused
 * options of every kind. The output is the same on every run, so
 * `make-corpus tests/fuzz/corpus` rewrites the committed corpus unchanged
 * unless this file changed. (corpus/image, the seeds of the harness of the
 * choice of reader by content, holds copies of a few of these files, valid
 * and broken, named FORMAT-NAME, and zeros, which no format starts like.)
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
                      clik_type type, sup_pattern pattern, int keep_alpha)
{
    clik_image img;
    if (clik_image_alloc(&img, w, h, channels, type) != CLIK_OK)
        die(name, "cannot allocate");
    sup_pattern_fill(&img, pattern, 7);
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
    put_image("png", "grey.png", 16, 12, 1, CLIK_U8, SUP_PATTERN_GRADIENT, 1);
    put_image("png", "grey_alpha.png", 12, 10, 2, CLIK_U8, SUP_PATTERN_EDGES, 1);
    put_image("png", "rgb.png", 16, 12, 4, CLIK_U8, SUP_PATTERN_SMOOTH, 0);
    put_image("png", "rgba.png", 12, 12, 4, CLIK_U8, SUP_PATTERN_CHECKER, 1);
    put_image("png", "grey16.png", 12, 8, 1, CLIK_U16, SUP_PATTERN_GRADIENT, 1);
    put_image("png", "rgba16.png", 8, 8, 4, CLIK_U16, SUP_PATTERN_SMOOTH, 1);
    put_image("png", "noise.png", 16, 16, 4, CLIK_U8, SUP_PATTERN_NOISE, 0);
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
    put_image("jpeg", "grey.jpg", 16, 16, 1, CLIK_U8, SUP_PATTERN_GRADIENT, 0);
    put_image("jpeg", "rgb444.jpg", 16, 16, 4, CLIK_U8, SUP_PATTERN_SMOOTH, 0);
    put_image("jpeg", "odd_size.jpg", 13, 7, 4, CLIK_U8, SUP_PATTERN_EDGES, 0);
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
    put_image("pnm", "grey.pgm", 16, 12, 1, CLIK_U8, SUP_PATTERN_GRADIENT, 0);
    put_image("pnm", "grey16.pgm", 8, 8, 1, CLIK_U16, SUP_PATTERN_SMOOTH, 0);
    put_image("pnm", "rgb.ppm", 12, 8, 4, CLIK_U8, SUP_PATTERN_EDGES, 0);
    put_image("pnm", "rgb16.ppm", 6, 6, 4, CLIK_U16, SUP_PATTERN_NOISE, 0);
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
        sup_pattern_fill(&img, SUP_PATTERN_NOISE, i);
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

/* ---- options of the flow and LAPAR operations (fuzz_options.c) -------------------------- */

/* An input of fuzz_options.c, written field by field in the order the
 * harness reads them: a real is a tag and 8 bytes (tag 0: the default; 2:
 * the double), an integer a tag and 4 bytes (0: the default; 2: the
 * int32). A field left out of a seed's initialiser (set 0) is the default. */
typedef struct seed_buf {
    unsigned char b[1024];
    size_t n;
} seed_buf;

typedef struct opt_real {
    int set;
    double v;
} opt_real;

typedef struct opt_int {
    int set, v;
} opt_int;

#define R(x) ((opt_real){1, (x)})
#define I(x) ((opt_int){1, (x)})

static void sb_bytes(seed_buf *s, const void *data, size_t len)
{
    if (s->n + len > sizeof(s->b))
        die("options", "seed too long");
    memcpy(s->b + s->n, data, len);
    s->n += len;
}

static void sb_byte(seed_buf *s, int v)
{
    const unsigned char b = (unsigned char)v;
    sb_bytes(s, &b, 1);
}

static void sb_real(seed_buf *s, opt_real r)
{
    unsigned char b[8] = {0};
    sb_byte(s, r.set ? 2 : 0);
    if (r.set)
        memcpy(b, &r.v, sizeof(b)); /* host order, as the harness reads it */
    sb_bytes(s, b, sizeof(b));
}

static void sb_int(seed_buf *s, opt_int i)
{
    const int32_t v = i.set ? i.v : 0;
    sb_byte(s, i.set ? 2 : 0);
    sb_bytes(s, &v, sizeof(v));
}

/* The operations and the header every input starts with: the operation,
 * the CPU path, width and height, channels (index: 0 one, 3 four, 6 two)
 * and type (index: 0 u8, 1 f32, 6 u16). */
enum { OP_FLOW, OP_FILTER, OP_MODEL, OP_COMPRESS };
enum { CH1 = 0, CH4 = 3, CH2 = 6 };
enum { T_U8 = 0, T_F32 = 1, T_U16 = 6 };

typedef struct seed_head {
    int neon, w, h, ch, type;
} seed_head;

static void sb_head(seed_buf *s, int op, seed_head h)
{
    sb_byte(s, op);
    sb_byte(s, h.neon);
    sb_byte(s, (h.w ? h.w : 16) - 1);
    sb_byte(s, (h.h ? h.h : 12) - 1);
    sb_byte(s, h.ch);
    sb_byte(s, h.type);
}

typedef struct flow_seed {
    const char *name;
    seed_head head;
    opt_real tau, lambda, theta, zoom, epsilon, sigma;
    opt_int scales, warps, iterations, initial_flow, storage;
    int stop, poison; /* the progress callback's call to stop at; the poisoned element */
    opt_real bad;     /* its value */
} flow_seed;

static void put_flow_seed(const flow_seed *f)
{
    seed_buf s = {0};
    sb_head(&s, OP_FLOW, f->head);
    const opt_real reals[] = {f->tau, f->lambda, f->theta, f->zoom, f->epsilon, f->sigma};
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
        sb_real(&s, reals[i]);
    const opt_int ints[] = {f->scales, f->warps, f->iterations, f->initial_flow, f->storage};
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        sb_int(&s, ints[i]);
    sb_byte(&s, f->stop);
    sb_byte(&s, f->poison);
    sb_real(&s, f->bad);
    put("options", f->name, s.b, s.n);
}

typedef struct filter_seed {
    const char *name;
    seed_head head;
    opt_int scale;
    int atom_at; /* with 0x80: the dictionary weight replaced by atom_v */
    opt_real atom_v;
    opt_int atoms; /* of the dictionary */
    int mode;     /* % 3: no selection, gamma, mix; 0x10 bad_index, 0x20 gamma, 0x40 mix poisoned */
    int phi_mode; /* % 4: planes read, the dictionary's, one more; >> 2: f32, f16, u8 */
    int dst_mode; /* % 4: right, a row short, another type */
    int at;
    opt_int sel_atoms, kept, bad_index;
    opt_real v;
} filter_seed;

static void put_filter_seed(const filter_seed *f)
{
    seed_buf s = {0};
    sb_head(&s, OP_FILTER, f->head);
    sb_int(&s, f->scale);
    sb_byte(&s, f->atom_at);
    sb_real(&s, f->atom_v);
    sb_int(&s, f->atoms);
    sb_byte(&s, f->mode);
    sb_byte(&s, f->phi_mode);
    sb_byte(&s, f->dst_mode);
    sb_byte(&s, f->at);
    sb_int(&s, f->sel_atoms);
    sb_int(&s, f->kept);
    sb_int(&s, f->bad_index);
    sb_real(&s, f->v);
    put("options", f->name, s.b, s.n);
}

typedef struct model_seed {
    const char *name;
    seed_head head;
    opt_int scale;
    int which;    /* % 4: NULL, clik_lapar_model_default(2 + (which >> 2) % 4), trained */
    int dst_mode; /* % 4: right, a column more, another type */
    /* clik_lapar_model_options of a trained model */
    opt_int m_scale, angles, strengths, coherences, phases, window, atoms, kernel, symmetry;
    opt_real alpha;
    opt_int min_samples, f16;
    int stop;       /* the training's progress call to stop at (0: none) */
    int hr_w, hr_h; /* the training image (0: 12) */
} model_seed;

static void put_model_seed(const model_seed *m)
{
    seed_buf s = {0};
    sb_head(&s, OP_MODEL, m->head);
    sb_int(&s, m->scale);
    sb_byte(&s, m->which);
    sb_byte(&s, m->dst_mode);
    if (m->which % 4 >= 2) {
        const opt_int a[] = {m->m_scale, m->angles, m->strengths, m->coherences, m->phases,
                             m->window,  m->atoms,  m->kernel,    m->symmetry};
        for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
            sb_int(&s, a[i]);
        sb_real(&s, m->alpha);
        sb_int(&s, m->min_samples);
        sb_int(&s, m->f16);
        sb_byte(&s, 0); /* no bin edges: the defaults */
        sb_byte(&s, m->stop);
        sb_byte(&s, (m->hr_w ? m->hr_w : 12) - 1);
        sb_byte(&s, (m->hr_h ? m->hr_h : 12) - 1);
    }
    put("options", m->name, s.b, s.n);
}

typedef struct compress_seed {
    const char *name;
    seed_head head;
    opt_int atoms;
    opt_real alpha;
    opt_int count, samples, refit_samples;
    int flags; /* 1: phi f16; 2: U poisoned with v; 4: the re-fit matrix */
    opt_real v;
} compress_seed;

static void put_compress_seed(const compress_seed *c)
{
    seed_buf s = {0};
    sb_head(&s, OP_COMPRESS, c->head);
    sb_byte(&s, 0); /* the dictionary as it is */
    sb_real(&s, (opt_real){0, 0.0});
    sb_int(&s, c->atoms);
    sb_real(&s, c->alpha);
    sb_int(&s, c->count);
    sb_int(&s, c->samples);
    sb_int(&s, c->refit_samples);
    const uint64_t seed = 1;
    sb_bytes(&s, &seed, sizeof(seed));
    sb_byte(&s, c->flags);
    sb_byte(&s, 17);
    sb_real(&s, c->v);
    put("options", c->name, s.b, s.n);
}

static void make_options(void)
{
    /* The flow: the defaults, the crashes of defect 1 (the NEON path's
     * smoothing of more than 31 taps: sigma 4, 41 taps; zoom 0.1 between
     * two levels, 59 taps) and its edges (sigma 3.19 and zoom 0.185, 31
     * taps; sigma 3.2 and zoom 0.184, 33), the widest smoothing, each
     * range's edges and what lies just past them, and the callback. */
    const flow_seed flows[] = {
        {"flow-defaults-scalar", .head = {0, 24, 20, CH1, T_U8}},
        {"flow-defaults-neon", .head = {1, 24, 20, CH1, T_F32}},
        {"flow-neon-sigma4", .head = {1, 24, 20, CH1, T_U8}, .sigma = R(4.0)},
        {"flow-neon-zoom0.1", .head = {1, 24, 20, CH1, T_U8}, .zoom = R(0.1), .scales = I(2)},
        {"flow-neon-sigma4-zoom0.1", .head = {1, 24, 24, CH1, T_F32}, .sigma = R(4.0),
         .zoom = R(0.1), .scales = I(3)},
        {"flow-neon-sigma3.19", .head = {1, 16, 16, CH1, T_U8}, .sigma = R(3.19)},
        {"flow-neon-sigma3.2", .head = {1, 16, 16, CH1, T_U8}, .sigma = R(3.2)},
        {"flow-neon-zoom0.185", .head = {1, 16, 16, CH1, T_U8}, .zoom = R(0.185), .scales = I(2)},
        {"flow-neon-zoom0.184", .head = {1, 16, 16, CH1, T_U8}, .zoom = R(0.184), .scales = I(2)},
        {"flow-scalar-sigma100", .head = {0, 12, 10, CH1, T_F32}, .sigma = R(100.0),
         .iterations = I(10)},
        {"flow-neon-sigma100", .head = {1, 12, 10, CH1, T_F32}, .sigma = R(100.0),
         .iterations = I(10)},
        {"flow-neon-f16", .head = {1, 20, 16, CH1, T_F32}, .storage = I(2)},
        {"flow-neon-zoom0.99", .head = {1, 16, 16, CH1, T_U8}, .zoom = R(0.99), .iterations = I(1),
         .warps = I(1)},
        {"flow-epsilon0", .head = {0, 8, 8, CH1, T_U8}, .epsilon = R(0.0), .iterations = I(30)},
        {"flow-huge-lambda-theta", .head = {1, 8, 8, CH1, T_F32}, .lambda = R(1e30),
         .theta = R(1e30)},
        {"flow-initial-nan", .head = {1, 8, 8, CH1, T_F32}, .initial_flow = I(1), .poison = 0xC5,
         .bad = R(NAN)},
        {"flow-pixel-inf", .head = {0, 8, 8, CH1, T_F32}, .poison = 0x83, .bad = R(INFINITY)},
        {"flow-cancel", .head = {1, 12, 12, CH1, T_U8}, .stop = 2},
        {"flow-min-side", .head = {0, 4, 4, CH1, T_U8}},
        /* Refused */
        {"flow-nan-sigma", .head = {1, 16, 16, CH1, T_U8}, .sigma = R(NAN)},
        {"flow-sigma100.001", .head = {1, 16, 16, CH1, T_U8}, .sigma = R(100.001)},
        {"flow-negative-sigma", .head = {0, 16, 16, CH1, T_U8}, .sigma = R(-1.0)},
        {"flow-zoom0", .head = {1, 16, 16, CH1, T_U8}, .zoom = R(0.0)},
        {"flow-zoom1", .head = {1, 16, 16, CH1, T_U8}, .zoom = R(1.0)},
        {"flow-inf-zoom", .head = {0, 16, 16, CH1, T_U8}, .zoom = R(INFINITY)},
        {"flow-tau0", .head = {0, 16, 16, CH1, T_U8}, .tau = R(0.0)},
        {"flow-tau0.26", .head = {0, 16, 16, CH1, T_U8}, .tau = R(0.26)},
        {"flow-lambda-inf", .head = {0, 16, 16, CH1, T_U8}, .lambda = R(INFINITY)},
        {"flow-theta-negative", .head = {0, 16, 16, CH1, T_U8}, .theta = R(-0.3)},
        {"flow-epsilon-nan", .head = {0, 16, 16, CH1, T_U8}, .epsilon = R(NAN)},
        {"flow-scales-negative", .head = {1, 16, 16, CH1, T_U8}, .scales = I(-1)},
        {"flow-scales101", .head = {1, 16, 16, CH1, T_U8}, .scales = I(101)},
        {"flow-warps0", .head = {0, 16, 16, CH1, T_U8}, .warps = I(0)},
        {"flow-warps1001", .head = {0, 16, 16, CH1, T_U8}, .warps = I(1001)},
        {"flow-iterations0", .head = {0, 16, 16, CH1, T_U8}, .iterations = I(0)},
        {"flow-initial2", .head = {0, 16, 16, CH1, T_U8}, .initial_flow = I(2)},
        {"flow-storage3", .head = {0, 16, 16, CH1, T_U8}, .storage = I(3)},
        {"flow-3x3", .head = {0, 3, 3, CH1, T_U8}},
        {"flow-2ch", .head = {0, 16, 16, CH2, T_U8}},
        {"flow-u16", .head = {1, 16, 16, CH1, T_U16}},
    };
    for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
        put_flow_seed(&flows[i]);

    /* The LAPAR filter: each scale, phi f32 and f16, selections with
     * gamma and with a re-fit matrix; refused scales, weights, indices,
     * plane counts and formats. */
    const filter_seed filters[] = {
        {"filter-x2-u8", .head = {0, 8, 6, CH1, T_U8}},
        {"filter-x3-rgba-f16", .head = {1, 6, 5, CH4, T_U8}, .scale = I(3), .phi_mode = 4},
        {"filter-x4-f32", .head = {1, 4, 4, CH1, T_F32}, .scale = I(4)},
        {"filter-gamma", .head = {0, 6, 6, CH4, T_F32}, .mode = 1, .kept = I(7)},
        {"filter-gamma-all-planes", .head = {1, 6, 6, CH1, T_U8}, .mode = 1, .kept = I(5),
         .phi_mode = 1},
        {"filter-mix", .head = {1, 5, 5, CH1, T_F32}, .mode = 2, .kept = I(9), .atoms = I(24)},
        {"filter-128-atoms", .head = {0, 4, 3, CH1, T_U8}, .atoms = I(128)},
        {"filter-one-atom", .head = {1, 8, 8, CH4, T_U8}, .atoms = I(1), .scale = I(4)},
        {"filter-phi-inf", .head = {1, 6, 6, CH1, T_U8}, .phi_mode = 0, .at = 3, .v = R(INFINITY)},
        /* Refused */
        {"filter-scale1", .head = {0, 8, 8, CH1, T_U8}, .scale = I(1)},
        {"filter-scale5", .head = {1, 8, 8, CH1, T_U8}, .scale = I(5)},
        {"filter-atoms0", .head = {0, 8, 8, CH1, T_U8}, .atoms = I(0)},
        {"filter-atoms129", .head = {0, 8, 8, CH1, T_U8}, .atoms = I(129)},
        {"filter-nan-atom", .head = {1, 8, 8, CH1, T_U8}, .atom_at = 0x85, .atom_v = R(NAN)},
        {"filter-bad-index", .head = {0, 8, 8, CH1, T_U8}, .mode = 0x11, .kept = I(4), .at = 2,
         .bad_index = I(72)},
        {"filter-gamma-nan", .head = {0, 8, 8, CH1, T_U8}, .mode = 0x21, .kept = I(4), .v = R(NAN)},
        {"filter-mix-inf", .head = {1, 8, 8, CH1, T_F32}, .mode = 0x42, .kept = I(4),
         .v = R(INFINITY)},
        {"filter-kept0", .head = {0, 8, 8, CH1, T_U8}, .mode = 1, .kept = I(0)},
        {"filter-sel-atoms", .head = {0, 8, 8, CH1, T_U8}, .mode = 1, .sel_atoms = I(71)},
        {"filter-phi-extra-plane", .head = {0, 8, 8, CH1, T_U8}, .phi_mode = 2},
        {"filter-phi-u8", .head = {1, 8, 8, CH1, T_U8}, .phi_mode = 8},
        {"filter-dst-short", .head = {0, 8, 8, CH1, T_U8}, .dst_mode = 1},
        {"filter-2ch", .head = {0, 8, 8, CH2, T_U8}},
    };
    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
        put_filter_seed(&filters[i]);

    /* The model upscaler: the default model at each scale, models trained
     * with each kind of filter and symmetry; refused scales, entries and
     * options. */
    const model_seed models[] = {
        {"model-default-x2", .head = {0, 12, 10, CH1, T_U8}},
        {"model-default-x3-rgba", .head = {1, 10, 8, CH4, T_U8}, .scale = I(3),
         .which = 1 | 1 << 2},
        {"model-default-x4-f32", .head = {1, 8, 8, CH1, T_F32}, .scale = I(4)},
        {"model-trained", .head = {0, 8, 8, CH1, T_U8}, .which = 2, .min_samples = I(4)},
        {"model-trained-x3-phases", .head = {1, 8, 8, CH4, T_U8}, .scale = I(3), .which = 2,
         .m_scale = I(3), .phases = I(1), .angles = I(4), .min_samples = I(1)},
        {"model-trained-kernel7-sym8", .head = {1, 8, 8, CH1, T_F32}, .which = 3, .kernel = I(7),
         .symmetry = I(8), .angles = I(8), .window = I(9), .min_samples = I(1), .f16 = I(0)},
        {"model-trained-kernel5-sym4", .head = {0, 8, 8, CH4, T_F32}, .scale = I(4), .which = 2,
         .m_scale = I(4), .kernel = I(5), .symmetry = I(4), .window = I(3)},
        {"model-trained-72-atoms", .head = {0, 6, 6, CH1, T_U8}, .which = 2, .atoms = I(72),
         .alpha = R(0.0), .min_samples = I(0)},
        {"model-trained-stopped", .head = {1, 8, 8, CH1, T_U8}, .which = 2, .stop = 1},
        /* Refused */
        {"model-scale5", .head = {0, 8, 8, CH1, T_U8}, .scale = I(5)},
        {"model-no-entry", .head = {0, 8, 8, CH1, T_U8}, .scale = I(4), .which = 2},
        {"model-too-many-buckets", .head = {0, 8, 8, CH1, T_U8}, .which = 2, .angles = I(32),
         .strengths = I(32), .coherences = I(32)},
        {"model-nan-alpha", .head = {0, 8, 8, CH1, T_U8}, .which = 2, .alpha = R(NAN)},
        {"model-kernel6", .head = {0, 8, 8, CH1, T_U8}, .which = 2, .kernel = I(6)},
        {"model-sym8-odd-angles", .head = {0, 8, 8, CH1, T_U8}, .which = 2, .kernel = I(5),
         .symmetry = I(8), .angles = I(5)},
        {"model-no-samples", .head = {0, 8, 8, CH1, T_U8}, .which = 2, .hr_w = 1, .hr_h = 1},
        {"model-dst-wide", .head = {0, 8, 8, CH1, T_U8}, .dst_mode = 1},
        {"model-2ch", .head = {0, 8, 8, CH2, T_U8}},
    };
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
        put_model_seed(&models[i]);

    /* Dictionary compression. */
    const compress_seed compressions[] = {
        {"compress-default", .head = {0, 6, 6, CH1, T_U8}},
        {"compress-mix-f16-rgba", .head = {1, 5, 5, CH4, T_F32}, .flags = 5, .alpha = R(0.1),
         .count = I(2)},
        {"compress-all", .head = {0, 4, 4, CH1, T_F32}, .alpha = R(1.0), .atoms = I(6)},
        {"compress-nan-u", .head = {1, 4, 4, CH1, T_F32}, .flags = 2, .v = R(NAN)},
        /* Refused */
        {"compress-alpha0", .head = {0, 6, 6, CH1, T_U8}, .alpha = R(0.0)},
        {"compress-alpha-nan", .head = {0, 6, 6, CH1, T_U8}, .alpha = R(NAN)},
        {"compress-count0", .head = {0, 6, 6, CH1, T_U8}, .count = I(0)},
        {"compress-samples0", .head = {0, 6, 6, CH1, T_U8}, .samples = I(0)},
        {"compress-refit-over", .head = {0, 6, 6, CH1, T_U8}, .samples = I(10),
         .refit_samples = I(11)},
    };
    for (size_t i = 0; i < sizeof(compressions) / sizeof(compressions[0]); i++)
        put_compress_seed(&compressions[i]);
}

/* ---- raw YUV 4:2:0 ------------------------------------------------------------- */

/* fuzz_yuv.c's inputs: three bytes (width, height, frame: sizes 2 + 2 * (b %
 * 32)), then the file: whole frames, one or three, frames asked for inside
 * and past the end, a file one byte short and one byte long, an empty one. */
static void make_yuv(void)
{
    static const struct {
        const char *name;
        uint8_t w, h, index;
        int frames, extra; /* bytes past the frames: -1 cuts the last one short */
    } seeds[] = {
        {"one-4x2.yuv", 1, 0, 0, 1, 0},       {"three-6x4-second.yuv", 2, 1, 1, 3, 0},
        {"past-end.yuv", 0, 0, 2, 2, 0},      {"short.yuv", 3, 2, 0, 1, -1},
        {"long.yuv", 3, 2, 0, 2, 1},          {"empty.yuv", 5, 5, 0, 0, 0},
        {"large-64x64.yuv", 31, 31, 0, 1, 0},
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        const size_t frame = (size_t)(2 + 2 * seeds[i].w) * (size_t)(2 + 2 * seeds[i].h) / 2 * 3;
        const size_t n = 3 + frame * (size_t)seeds[i].frames + (size_t)(seeds[i].extra + 1) - 1;
        unsigned char *buf = malloc(n);
        if (!buf)
            die("make_yuv", "out of memory");
        buf[0] = seeds[i].w;
        buf[1] = seeds[i].h;
        buf[2] = seeds[i].index;
        for (size_t k = 3; k < n; k++)
            buf[k] = (unsigned char)(k * 2654435761u >> 13);
        put("yuv", seeds[i].name, buf, n);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr,
                "usage: %s CORPUS_DIR (holding png/, jpeg/, pnm/, npy/, flo/, options/ and yuv/)\n",
                argv[0]);
        return EXIT_FAILURE;
    }
    root = argv[1];
    make_png();
    make_jpeg();
    make_pnm();
    make_npy();
    make_flo();
    make_options();
    make_yuv();
    return EXIT_SUCCESS;
}

/*
 * Tests of apps/support/imageio: round trips through every format, hostile
 * and broken files, and the all-or-nothing write rule.
 *
 * Every file lives under a fresh mkdtemp() folder that main() removes.
 * Hostile files are crafted byte by byte here, so nothing depends on
 * outside data. Runs forked or, with CK_FORK=no, in one process (valgrind).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "crafted.h"
#include "harness.h"
#include "imageio.h"

#define ERRLEN 512

static char *root;            /* a folder of h_tempdir() */
static char last_err[ERRLEN]; /* message of the last *_FAILS check */

/* ---- paths and files ----------------------------------------------------- */

#define TMP_PATH(var, name)                                                                        \
    char var[2048];                                                                                \
    snprintf(var, sizeof(var), "%s/%s", root, name)
/* The same, and the folder made there. */
#define TMP_FOLDER(var, name)                                                                      \
    TMP_PATH(var, name);                                                                           \
    ck_assert_int_eq(mkdir(var, 0700), 0)

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_msg(fp != NULL, "cannot create %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
    ck_assert_int_eq(fclose(fp), 0);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    unsigned char *data = malloc(cap);
    ck_assert_ptr_nonnull(data);
    size_t got;
    while ((got = fread(data + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap);
            ck_assert_ptr_nonnull(data);
        }
    }
    fclose(fp);
    *len = n;
    return data;
}

static int exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    }
    closedir(d);
    return n;
}

/* ---- test images ------------------------------------------------------------ */

/* A host image in malloc'ed memory, rows `pad` elements longer than needed,
 * the padding filled with 0xCD so that a writer that reads it shows up. */
/* A file of a table of cases and the format of the image written to it. */
typedef struct named_format {
    const char *name;
    int channels;
    clik_type type;
} named_format;

static clik_image new_image(int w, int h, int ch, clik_type type, size_t pad)
{
    size_t esize = clik_type_size(type);
    size_t stride = ((size_t)w * (size_t)ch + pad) * esize;
    void *data = malloc(stride * (size_t)h);
    ck_assert_ptr_nonnull(data);
    memset(data, 0xCD, stride * (size_t)h);
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, type, data, stride), CLIK_OK);
    return img;
}

static void drop_image(clik_image *img)
{
    free(img->data);
    memset(img, 0, sizeof(*img));
}

static unsigned char *element(const clik_image *img, int x, int y, int c)
{
    size_t esize = clik_type_size(img->type);
    return (unsigned char *)img->data + (size_t)y * img->stride +
           ((size_t)x * (size_t)img->channels + (size_t)c) * esize;
}

static unsigned get(const clik_image *img, int x, int y, int c)
{
    if (img->type == CLIK_U16) {
        uint16_t v;
        memcpy(&v, element(img, x, y, c), 2);
        return v;
    }
    return *element(img, x, y, c);
}

static void set(clik_image *img, int x, int y, int c, unsigned v)
{
    if (img->type == CLIK_U16) {
        uint16_t s = (uint16_t)v;
        memcpy(element(img, x, y, c), &s, 2);
    } else {
        *element(img, x, y, c) = (unsigned char)v;
    }
}

/* A hash of a: the support generator's first value from state a. */
static uint32_t mix(uint32_t a)
{
    uint64_t state = a;
    return (uint32_t)sup_rand_next(&state);
}

/* Deterministic noise in every byte of every element. */
static void fill_noise(clik_image *img, uint32_t seed)
{
    size_t esize = clik_type_size(img->type);
    for (int y = 0; y < img->height; y++) {
        for (int x = 0; x < img->width; x++) {
            for (int c = 0; c < img->channels; c++) {
                unsigned char *e = element(img, x, y, c);
                for (size_t b = 0; b < esize; b++)
                    e[b] = (unsigned char)mix(seed * 7919u +
                                              (uint32_t)(y * 4099 + x * 31 + c) * 8u + (uint32_t)b);
            }
        }
    }
}

/* new_image() filled by fill_noise(). */
static clik_image noisy_image(int w, int h, int ch, clik_type type, size_t pad, uint32_t seed)
{
    clik_image img = new_image(w, h, ch, type, pad);
    fill_noise(&img, seed);
    return img;
}

/* Smooth u8 gradients with a varied alpha, which JPEG keeps well. */
static void fill_smooth(clik_image *img)
{
    for (int y = 0; y < img->height; y++) {
        for (int x = 0; x < img->width; x++) {
            unsigned v[4] = {(unsigned)(x * 255 / (img->width - 1)),
                             (unsigned)(y * 255 / (img->height - 1)),
                             (unsigned)((x + y) * 255 / (img->width + img->height - 2)),
                             (unsigned)(x * 7 + y) % 256};
            if (img->channels == 1 || img->channels == 2)
                v[1] = v[3]; /* grey+alpha: the alpha is the second channel */
            for (int c = 0; c < img->channels; c++)
                set(img, x, y, c, v[c]);
        }
    }
}

/* Same size, format and pixels (the padding of either is ignored). */
static int same_pixels(const clik_image *a, const clik_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->type != b->type)
        return 0;
    size_t row = (size_t)a->width * (size_t)a->channels * clik_type_size(a->type);
    for (int y = 0; y < a->height; y++) {
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row) != 0)
            return 0;
    }
    return 1;
}

/* Mean absolute difference over the first `channels` channels of two u8 images. */
static double mean_abs_error(const clik_image *a, const clik_image *b, int channels)
{
    double sum = 0;
    for (int y = 0; y < a->height; y++) {
        for (int x = 0; x < a->width; x++) {
            for (int c = 0; c < channels; c++) {
                int d = (int)get(a, x, y, c) - (int)get(b, x, y, c);
                sum += d < 0 ? -d : d;
            }
        }
    }
    return sum / ((double)a->width * a->height * channels);
}

/* ---- checks ------------------------------------------------------------------ */

static void expect_message(const char *err, const char *path, int line)
{
    ck_assert_msg(err[0] != '\0', "line %d: empty message", line);
    ck_assert_msg(strstr(err, path) != NULL, "line %d: message '%s' does not name %s", line, err,
                  path);
    ck_assert_msg(strchr(err, '\n') == NULL, "line %d: message is not one line", line);
}

/* Reading path (with the NumPy reader where npy) gives want, a one-line
 * message that names path (and has words in it, where not NULL), and
 * leaves the image cleared. */
static void check_read_fails(const char *path, int npy, clik_status want, const char *words,
                             int line)
{
    clik_image img;
    memset(&img, 0x5A, sizeof(img));
    int had_alpha = 7;
    char err[ERRLEN];
    clik_status st = npy ? clikio_read_npy(path, &img, err, sizeof(err))
                         : clikio_read(path, &img, &had_alpha, err, sizeof(err));
    ck_assert_msg(st == want, "line %d: reading %s gave %s, want %s (%s)", line, path,
                  clik_status_str(st), clik_status_str(want), err);
    expect_message(err, path, line);
    ck_assert_msg(img.data == NULL && img.buffer == NULL && img.width == 0 && img.height == 0,
                  "line %d: image not cleared", line);
    if (words)
        ck_assert_msg(strstr(err, words) != NULL, "line %d: message '%s' does not say '%s'", line,
                      err, words);
    if (!npy)
        ck_assert_int_eq(had_alpha, 0);
    snprintf(last_err, sizeof(last_err), "%s", err);
}

#define READ_FAILS(path, want)     check_read_fails(path, 0, want, NULL, __LINE__)
#define NPY_READ_FAILS(path, want) check_read_fails(path, 1, want, NULL, __LINE__)
/* READ_FAILS, the message saying words. */
#define READ_FAILS_SAYING(path, want, words) check_read_fails(path, 0, want, words, __LINE__)

/* data[0, len) written to path is refused as CLIK_ERR_FILE_FORMAT (by the
 * NumPy reader where npy), the message saying words where not NULL. */
static void check_bytes_fail(const char *path, const void *data, size_t len, int npy,
                             const char *words, int line)
{
    write_file(path, data, len);
    check_read_fails(path, npy, CLIK_ERR_FILE_FORMAT, words, line);
}

#define BYTES_FAIL(path, data, len, words) check_bytes_fail(path, data, len, 0, words, __LINE__)
#define NPY_BYTES_FAIL(path, data, len)    check_bytes_fail(path, data, len, 1, NULL, __LINE__)

/* The first cuts[i] bytes of data, each written to cutI.EXT, are refused as
 * CLIK_ERR_FILE_FORMAT (an .npy one by the NumPy reader). */
static void check_cuts_fail(const unsigned char *data, const size_t *cuts, size_t count,
                            const char *ext, int line)
{
    for (size_t i = 0; i < count; i++) {
        char name[64];
        snprintf(name, sizeof(name), "cut%zu.%s", i, ext);
        TMP_PATH(path, name);
        check_bytes_fail(path, data, cuts[i], strcmp(ext, "npy") == 0, NULL, line);
    }
}

#define CUTS_FAIL(data, cuts, ext)                                                                 \
    check_cuts_fail(data, cuts, sizeof(cuts) / sizeof(cuts[0]), ext, __LINE__)

static void check_write_fails(clik_status st, clik_status want, const char *err, const char *path,
                              int line)
{
    ck_assert_msg(st == want, "line %d: writing %s gave %s, want %s (%s)", line, path,
                  clik_status_str(st), clik_status_str(want), err);
    expect_message(err, path, line);
}

#define WRITE_FAILS(call, want, path)                                                              \
    do {                                                                                           \
        char err_[ERRLEN] = "";                                                                    \
        clik_status st_ = (call);                                                                  \
        check_write_fails(st_, want, err_, path, __LINE__);                                        \
    } while (0)

/* Writes img to path, reads it back and returns it (clik_image_free it). */
static clik_image round_trip(const char *path, const clik_image *img, int keep_alpha,
                             int *had_alpha)
{
    char err[ERRLEN] = "";
    clik_status st = clikio_write(path, img, keep_alpha, err, sizeof(err));
    ck_assert_msg(st == CLIK_OK, "writing %s: %s (%s)", path, clik_status_str(st), err);
    clik_image back;
    st = clikio_read(path, &back, had_alpha, err, sizeof(err));
    ck_assert_msg(st == CLIK_OK, "reading %s: %s (%s)", path, clik_status_str(st), err);
    return back;
}

/* back, read from an RGB file written from the 4-channel img: img's colour,
 * alpha opaque (at its maximum). */
static void same_colour_opaque(const clik_image *back, const clik_image *img, unsigned opaque)
{
    for (int y = 0; y < img->height; y++) {
        for (int x = 0; x < img->width; x++) {
            for (int c = 0; c < 3; c++)
                ck_assert_uint_eq(get(back, x, y, c), get(img, x, y, c));
            ck_assert_uint_eq(get(back, x, y, 3), opaque);
        }
    }
}

/* The 4-channel img written to path without alpha and read back: the file
 * had no alpha, and the image comes back of img's type with img's colour
 * and alpha opaque. */
static void written_opaque(const char *path, const clik_image *img, unsigned opaque)
{
    int had_alpha = 7; /* a value the reader must overwrite */
    clik_image back = round_trip(path, img, 0, &had_alpha);
    ck_assert_int_eq(had_alpha, 0);
    ck_assert_int_eq(back.channels, 4);
    ck_assert_int_eq(back.type, img->type);
    same_colour_opaque(&back, img, opaque);
    clik_image_free(&back);
}

/* img written to path and read back has the same pixels, and the reader
 * says the file had alpha as want_alpha (-1: not asked). */
static void same_after_round_trip(const char *path, const clik_image *img, int keep_alpha,
                                  int want_alpha)
{
    int had_alpha = want_alpha ? 0 : 7; /* a value the reader must overwrite */
    clik_image back = round_trip(path, img, keep_alpha, want_alpha < 0 ? NULL : &had_alpha);
    ck_assert_msg(same_pixels(img, &back), "%s differs", path);
    if (want_alpha >= 0)
        ck_assert_int_eq(had_alpha, want_alpha);
    clik_image_free(&back);
}

/* same_after_round_trip() of img, which is then dropped. */
static void round_trip_and_drop(const char *path, clik_image img, int keep_alpha, int want_alpha)
{
    same_after_round_trip(path, &img, keep_alpha, want_alpha);
    drop_image(&img);
}

static void write_ok(const char *path, const clik_image *img, int keep_alpha)
{
    char err[ERRLEN] = "";
    clik_status st = clikio_write(path, img, keep_alpha, err, sizeof(err));
    ck_assert_msg(st == CLIK_OK, "writing %s: %s (%s)", path, clik_status_str(st), err);
}

/* ---- crafted PNG pieces ------------------------------------------------------- */

/* A well-formed PNG start whose IHDR claims w x h grey pixels. */
static void write_png_claiming(const char *path, uint32_t w, uint32_t h)
{
    unsigned char buf[128];
    size_t n = 0;
    memcpy(buf, crafted_png_signature, 8);
    n += 8;
    unsigned char ihdr[13] = {0};
    crafted_be32(ihdr, w);
    crafted_be32(ihdr + 4, h);
    ihdr[8] = 8; /* bit depth; colour type 0 (grey) */
    n += crafted_png_chunk(buf + n, "IHDR", ihdr, 13);
    const unsigned char idat[2] = {0x78, 0x9C};
    n += crafted_png_chunk(buf + n, "IDAT", idat, 2);
    n += crafted_png_chunk(buf + n, "IEND", NULL, 0);
    write_file(path, buf, n);
}

/* A PNG written by libpng directly, for layouts our writer never makes. */
typedef struct raw_png {
    int width, height, depth, color, interlace;
    const png_color *palette;
    int palette_size;
    const unsigned char *trns;
    int trns_size;
    png_color_16 *trans_color;
    unsigned char **rows; /* in file order: packed, big-endian */
} raw_png;

static void write_raw_png(const char *path, const raw_png *spec)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    ck_assert_ptr_nonnull(png);
    png_infop info = png_create_info_struct(png);
    ck_assert_ptr_nonnull(info);
    if (setjmp(png_jmpbuf(png)))
        ck_abort_msg("libpng could not write the test file %s", path);
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)spec->width, (png_uint_32)spec->height, spec->depth,
                 spec->color, spec->interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (spec->palette)
        png_set_PLTE(png, info, spec->palette, spec->palette_size);
    if (spec->trns || spec->trans_color)
        png_set_tRNS(png, info, spec->trns, spec->trns_size, spec->trans_color);
    png_write_info(png, info);
    png_write_image(png, spec->rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    ck_assert_int_eq(fclose(fp), 0);
}

/* ---- PNG round trips ------------------------------------------------------------ */

/* u8 images that come back as they were: the file name, the size and
 * channels, the noise's seed, keep_alpha and want_alpha as
 * same_after_round_trip() takes them. */
typedef struct png_round_trip {
    const char *name;
    int w, h, channels;
    uint32_t seed;
    int keep_alpha, want_alpha;
} png_round_trip;

static const png_round_trip png_round_trips[] = {
    {"grey.png", 17, 9, 1, 1, 1, 0},
    {"grey_alpha.png", 13, 6, 2, 2, 0, 1},
    {"rgba.png", 11, 7, 4, 4, 1, 1},
    {"UPPER.PnG", 3, 3, 1, 9, 0, -1}, /* the extension in any case */
};

START_TEST(test_png_round_trip)
{
    const png_round_trip *t = &png_round_trips[_i];
    TMP_PATH(path, t->name);
    round_trip_and_drop(path, noisy_image(t->w, t->h, t->channels, CLIK_U8, 0, t->seed),
                        t->keep_alpha, t->want_alpha);
}
END_TEST

START_TEST(test_png_rgb_from_four_channels)
{
    TMP_PATH(path, "rgb.png");
    clik_image img = noisy_image(11, 7, 4, CLIK_U8, 0, 3);
    written_opaque(path, &img, 255);
    drop_image(&img);
}
END_TEST

START_TEST(test_png_u16_grey)
{
    TMP_PATH(path, "grey16.png");
    clik_image img = noisy_image(9, 8, 1, CLIK_U16, 0, 5);
    set(&img, 0, 0, 0, 0x1234); /* byte order shows in a known value too */
    clik_image back = round_trip(path, &img, 1, NULL);
    ck_assert_int_eq(back.type, CLIK_U16);
    ck_assert(same_pixels(&img, &back));
    ck_assert_uint_eq(get(&back, 0, 0, 0), 0x1234);
    clik_image_free(&back);
    drop_image(&img);
}
END_TEST

START_TEST(test_png_u16_rgba)
{
    TMP_PATH(path, "rgba16.png");
    TMP_PATH(path_rgb, "rgb16.png");
    clik_image img = noisy_image(6, 5, 4, CLIK_U16, 0, 6);
    int had_alpha = 0;
    clik_image back = round_trip(path, &img, 1, &had_alpha);
    ck_assert_int_eq(had_alpha, 1);
    ck_assert(same_pixels(&img, &back));
    clik_image_free(&back);

    /* Without alpha the file is 16-bit RGB and alpha comes back as 65535. */
    written_opaque(path_rgb, &img, 65535);
    drop_image(&img);
}
END_TEST

START_TEST(test_png_padded_stride)
{
    TMP_PATH(path8, "padded8.png");
    TMP_PATH(path16, "padded16.png");
    clik_image img = noisy_image(10, 4, 4, CLIK_U8, 5, 7);
    clik_image back = round_trip(path8, &img, 1, NULL);
    ck_assert_uint_eq(back.stride, 40);
    ck_assert(same_pixels(&img, &back));
    clik_image_free(&back);
    drop_image(&img);

    round_trip_and_drop(path16, noisy_image(10, 4, 2, CLIK_U16, 3, 8), 1, -1);
}
END_TEST

/* The PNG that spec describes, written to path and read back: the reader
 * says it had alpha as want_alpha, of channels channels. */
static clik_image raw_png_read(const char *path, const raw_png *spec, int want_alpha, int channels)
{
    write_raw_png(path, spec);
    clik_image img;
    int had_alpha = want_alpha ? 0 : 7; /* a value the reader must overwrite */
    char err[ERRLEN];
    ck_assert_int_eq(clikio_read(path, &img, &had_alpha, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(had_alpha, want_alpha);
    ck_assert_int_eq(img.channels, channels);
    return img;
}

/* A 2-bit palette image with tRNS: expanded to RGBA, tRNS as alpha. */
START_TEST(test_png_palette)
{
    TMP_PATH(path, "palette.png");
    TMP_PATH(path_opaque, "palette_opaque.png");
    const png_color palette[4] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {10, 20, 30}};
    const unsigned char trns[3] = {0, 128, 255}; /* index 3 is implicitly opaque */
    unsigned char data[3][2] = {{0}};
    unsigned char *rows[3] = {data[0], data[1], data[2]};
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 5; x++)
            data[y][x / 4] |= (unsigned char)(((x + y) % 4) << (6 - 2 * (x % 4)));
    }
    raw_png spec = {.width = 5,
                    .height = 3,
                    .depth = 2,
                    .color = PNG_COLOR_TYPE_PALETTE,
                    .palette = palette,
                    .palette_size = 4,
                    .trns = trns,
                    .trns_size = 3,
                    .rows = rows};
    clik_image img = raw_png_read(path, &spec, 1, 4);
    ck_assert_int_eq(img.width, 5);
    ck_assert_int_eq(img.height, 3);
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 5; x++) {
            int i = (x + y) % 4;
            ck_assert_uint_eq(get(&img, x, y, 0), palette[i].red);
            ck_assert_uint_eq(get(&img, x, y, 1), palette[i].green);
            ck_assert_uint_eq(get(&img, x, y, 2), palette[i].blue);
            ck_assert_uint_eq(get(&img, x, y, 3), i < 3 ? trns[i] : 255);
        }
    }
    clik_image_free(&img);

    spec.trns = NULL;
    spec.trns_size = 0;
    img = raw_png_read(path_opaque, &spec, 0, 4);
    ck_assert_uint_eq(get(&img, 4, 2, 0), palette[2].red);
    ck_assert_uint_eq(get(&img, 4, 2, 3), 255);
    clik_image_free(&img);
}
END_TEST

/* 4-bit grey is scaled to 8 bits; grey with a tRNS colour gains alpha. */
START_TEST(test_png_grey_variants)
{
    TMP_PATH(path4, "grey4.png");
    TMP_PATH(path_trns, "grey_trns.png");
    unsigned char data4[2][2] = {{0x01, 0x20}, {0xF7, 0x80}};
    unsigned char *rows4[2] = {data4[0], data4[1]};
    raw_png spec4 = {
        .width = 3, .height = 2, .depth = 4, .color = PNG_COLOR_TYPE_GRAY, .rows = rows4};
    clik_image img = raw_png_read(path4, &spec4, 0, 1);
    const unsigned want[2][3] = {{0, 17, 34}, {255, 119, 136}};
    for (int y = 0; y < 2; y++) {
        for (int x = 0; x < 3; x++)
            ck_assert_uint_eq(get(&img, x, y, 0), want[y][x]);
    }
    clik_image_free(&img);

    unsigned char data8[2][3] = {{7, 8, 7}, {1, 7, 2}};
    unsigned char *rows8[2] = {data8[0], data8[1]};
    png_color_16 transparent = {.gray = 7};
    raw_png spec8 = {.width = 3,
                     .height = 2,
                     .depth = 8,
                     .color = PNG_COLOR_TYPE_GRAY,
                     .trans_color = &transparent,
                     .rows = rows8};
    img = raw_png_read(path_trns, &spec8, 1, 2);
    for (int y = 0; y < 2; y++) {
        for (int x = 0; x < 3; x++) {
            ck_assert_uint_eq(get(&img, x, y, 0), data8[y][x]);
            ck_assert_uint_eq(get(&img, x, y, 1), data8[y][x] == 7 ? 0 : 255);
        }
    }
    clik_image_free(&img);
}
END_TEST

/* Adam7-interlaced 16-bit RGB: all passes, byte order, alpha filler. */
START_TEST(test_png_interlaced_u16)
{
    TMP_PATH(path, "interlaced.png");
    enum { W = 7, H = 5 };
    unsigned char data[H][W * 6];
    unsigned char *rows[H];
    for (int y = 0; y < H; y++) {
        rows[y] = data[y];
        for (int x = 0; x < W; x++) {
            for (int c = 0; c < 3; c++) {
                unsigned v = (unsigned)(x * 9000 + y * 300 + c * 7 + 1);
                data[y][x * 6 + c * 2] = (unsigned char)(v >> 8);
                data[y][x * 6 + c * 2 + 1] = (unsigned char)v;
            }
        }
    }
    raw_png spec = {.width = W,
                    .height = H,
                    .depth = 16,
                    .color = PNG_COLOR_TYPE_RGB,
                    .interlace = PNG_INTERLACE_ADAM7,
                    .rows = rows};
    write_raw_png(path, &spec);
    clik_image img;
    char err[ERRLEN];
    ck_assert_int_eq(clikio_read(path, &img, NULL, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(img.type, CLIK_U16);
    ck_assert_int_eq(img.channels, 4);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            for (int c = 0; c < 3; c++)
                ck_assert_uint_eq(get(&img, x, y, c), (unsigned)(x * 9000 + y * 300 + c * 7 + 1));
            ck_assert_uint_eq(get(&img, x, y, 3), 65535);
        }
    }
    clik_image_free(&img);
}
END_TEST

/* ---- PGM / PPM ------------------------------------------------------------------ */

static const named_format pnm_round_trips[] = {
    {"g8.pgm", 1, CLIK_U8},   {"g16.pgm", 1, CLIK_U16}, {"c8.ppm", 4, CLIK_U8},
    {"c16.ppm", 4, CLIK_U16}, {"g8.pnm", 1, CLIK_U8},   {"c16.pnm", 4, CLIK_U16},
    {"G8.PGM", 1, CLIK_U8},
};

/* Each of pnm_round_trips, padded on every other. */
START_TEST(test_pnm_round_trip)
{
    const named_format *f = &pnm_round_trips[_i];
    TMP_PATH(path, f->name);
    clik_image img = noisy_image(12, 5, f->channels, f->type, _i % 2 ? 3 : 0, 20 + (uint32_t)_i);
    unsigned top = f->type == CLIK_U16 ? 65535 : 255;
    if (f->channels == 4) { /* PPM has no alpha: expect it at the top */
        for (int y = 0; y < img.height; y++) {
            for (int x = 0; x < img.width; x++)
                set(&img, x, y, 3, top);
        }
    }
    int had_alpha = 7;
    clik_image back = round_trip(path, &img, 1, &had_alpha);
    ck_assert_msg(same_pixels(&img, &back), "%s differs", f->name);
    ck_assert_int_eq(had_alpha, 0);
    clik_image_free(&back);
    drop_image(&img);
}
END_TEST

START_TEST(test_pnm_written_bytes)
{
    TMP_PATH(pgm, "bytes.pgm");
    TMP_PATH(ppm, "bytes.ppm");
    TMP_PATH(pnm, "bytes.pnm");
    clik_image img = new_image(2, 1, 2, CLIK_U16, 0); /* grey+alpha: alpha dropped */
    set(&img, 0, 0, 0, 0x1234);
    set(&img, 0, 0, 1, 0xAAAA);
    set(&img, 1, 0, 0, 0xFF01);
    set(&img, 1, 0, 1, 0xBBBB);
    write_ok(pgm, &img, 1);
    size_t len;
    unsigned char *data = read_file(pgm, &len);
    const char want_pgm[] = "P5\n2 1\n65535\n\x12\x34\xFF\x01";
    ck_assert_uint_eq(len, sizeof(want_pgm) - 1);
    ck_assert_mem_eq(data, want_pgm, len);
    free(data);

    /* Grey to .ppm: the grey value in R, G and B. */
    write_ok(ppm, &img, 1);
    clik_image back;
    char err[ERRLEN];
    ck_assert_int_eq(clikio_read(ppm, &back, NULL, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(back.channels, 4);
    ck_assert_uint_eq(get(&back, 1, 0, 0), 0xFF01);
    ck_assert_uint_eq(get(&back, 1, 0, 1), 0xFF01);
    ck_assert_uint_eq(get(&back, 1, 0, 2), 0xFF01);
    ck_assert_uint_eq(get(&back, 1, 0, 3), 65535);
    clik_image_free(&back);
    drop_image(&img);

    /* .pnm picks P6 for 4 channels. */
    img = new_image(1, 1, 4, CLIK_U8, 0);
    set(&img, 0, 0, 0, 1);
    set(&img, 0, 0, 1, 2);
    set(&img, 0, 0, 2, 3);
    set(&img, 0, 0, 3, 4);
    write_ok(pnm, &img, 1);
    data = read_file(pnm, &len);
    const char want_pnm[] = "P6\n1 1\n255\n\x01\x02\x03";
    ck_assert_uint_eq(len, sizeof(want_pnm) - 1);
    ck_assert_mem_eq(data, want_pnm, len);
    free(data);
    drop_image(&img);
}
END_TEST

START_TEST(test_pgm_plain_with_comments)
{
    TMP_PATH(path, "plain.pgm");
    const char text[] = "P2\n# a comment\n3 2 # width and height\n#another\n15\n"
                        "0 1 2\n# in the raster too\n3\t4 15\n";
    write_file(path, text, sizeof(text) - 1);
    clik_image img;
    int had_alpha = 7;
    char err[ERRLEN];
    ck_assert_int_eq(clikio_read(path, &img, &had_alpha, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(had_alpha, 0);
    ck_assert_int_eq(img.type, CLIK_U8);
    ck_assert_int_eq(img.channels, 1);
    ck_assert_int_eq(img.width, 3);
    ck_assert_int_eq(img.height, 2);
    /* maxval 15 scales by 17 */
    const unsigned want[6] = {0, 17, 34, 51, 68, 255};
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(get(&img, i % 3, i / 3, 0), want[i]);
    clik_image_free(&img);
}
END_TEST

START_TEST(test_ppm_plain_and_scaled_16bit)
{
    TMP_PATH(plain, "plain16.ppm");
    TMP_PATH(binary, "scaled16.pgm");
    const char text[] = "P3 2 1 65535 1 2 3 65535 0 4660\n";
    write_file(plain, text, sizeof(text) - 1);
    clik_image img;
    char err[ERRLEN];
    ck_assert_int_eq(clikio_read(plain, &img, NULL, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(img.type, CLIK_U16);
    ck_assert_int_eq(img.channels, 4);
    const unsigned want[8] = {1, 2, 3, 65535, 65535, 0, 4660, 65535};
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(get(&img, i / 4, 0, i % 4), want[i]);
    clik_image_free(&img);

    /* maxval 1023 (above 255: 16-bit), big-endian samples scaled to 0..65535 */
    const char bin[] = "P5\n3 1\n1023\n\x00\x00\x02\x00\x03\xFF";
    write_file(binary, bin, sizeof(bin) - 1);
    ck_assert_int_eq(clikio_read(binary, &img, NULL, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(img.type, CLIK_U16);
    ck_assert_uint_eq(get(&img, 0, 0, 0), 0);
    ck_assert_uint_eq(get(&img, 1, 0, 0), (512u * 65535u + 511u) / 1023u);
    ck_assert_uint_eq(get(&img, 2, 0, 0), 65535);
    clik_image_free(&img);
}
END_TEST

START_TEST(test_pnm_bad)
{
    /* sizeof, not strlen: several of these hold NUL bytes */
#define PNM_CASE(name, bytes)                                                                      \
    {                                                                                              \
        name, bytes, sizeof(bytes) - 1                                                             \
    }
    static const struct {
        const char *name;
        const char *bytes;
        size_t len;
    } cases[] = {
        PNM_CASE("p1.pgm", "P1\n2 2\n0 1 1 0\n"),
        PNM_CASE("p4.pgm", "P4\n8 1\n\x55"),
        PNM_CASE("p7.pgm", "P7\nWIDTH 1\n"),
        PNM_CASE("garbage.pgm", "hello world\n"),
        PNM_CASE("magic_only.pgm", "P5"),
        PNM_CASE("magic_glued.pgm", "P53 1 255\n"),
        PNM_CASE("no_maxval.pgm", "P5\n3 1\n"),
        PNM_CASE("bad_width.pgm", "P5\n3x 1\n255\n"),
        PNM_CASE("zero_width.pgm", "P5\n0 1\n255\n"),
        PNM_CASE("maxval0.pgm", "P5\n1 1\n0\n\x00"),
        PNM_CASE("maxval_big.pgm", "P5\n1 1\n70000\n\x00\x00"),
        PNM_CASE("huge_number.pgm", "P5\n99999999999999999999 1\n255\n"),
        PNM_CASE("maxval_comment.pgm", "P5\n1 1\n255#c\n\x00"),
        PNM_CASE("short_binary.pgm", "P5\n4 4\n255\nabc"),
        PNM_CASE("short_binary16.ppm", "P6\n1 1\n65535\n\x01\x02\x03\x04\x05"),
        PNM_CASE("short_plain.pgm", "P2\n3 1\n255\n1 2\n"),
        PNM_CASE("plain_over_maxval.pgm", "P2\n2 1\n10\n5 11\n"),
        PNM_CASE("plain_letters.pgm", "P2\n2 1\n10\n5 x\n"),
        PNM_CASE("binary_over_maxval.pgm", "P5\n1 1\n1000\n\x07\xD0"),
        PNM_CASE("binary8_over_maxval.pgm", "P5\n2 1\n100\n\x10\xC8"),
    };
#undef PNM_CASE
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TMP_PATH(path, cases[i].name);
        BYTES_FAIL(path, cases[i].bytes, cases[i].len, NULL);
    }
}
END_TEST

START_TEST(test_pnm_huge_header)
{
    TMP_PATH(square, "huge.pgm");
    TMP_PATH(wide, "wide.ppm");
    TMP_PATH(plain, "huge_plain.pgm");
    const char big[] = "P5\n100000 100000\n255\n\x01\x02\x03";
    BYTES_FAIL(square, big, sizeof(big) - 1, "100000x100000");
    const char w[] = "P6 2000000 1 255\n\x01\x02\x03";
    BYTES_FAIL(wide, w, sizeof(w) - 1, "limit");
    /* Within the limits, but far more samples than the file could hold. */
    const char p[] = "P2 10000 10000 255 1 2 3\n";
    BYTES_FAIL(plain, p, sizeof(p) - 1, "truncated");
}
END_TEST

/* ---- JPEG ------------------------------------------------------------------------ */

/* img, filled smooth, written to the JPEG path and read back: without
 * alpha, img's size, channels channels. Returns it (clik_image_free it). */
static clik_image jpeg_round_trip(const char *path, clik_image *img, int channels)
{
    fill_smooth(img);
    int had_alpha = 7;
    clik_image back = round_trip(path, img, 1, &had_alpha);
    ck_assert_int_eq(had_alpha, 0);
    ck_assert_int_eq(back.width, img->width);
    ck_assert_int_eq(back.height, img->height);
    ck_assert_int_eq(back.channels, channels);
    return back;
}

START_TEST(test_jpeg_grey)
{
    TMP_PATH(path, "grey.jpg");
    clik_image img = new_image(64, 48, 1, CLIK_U8, 0);
    clik_image back = jpeg_round_trip(path, &img, 1);
    ck_assert_int_eq(back.type, CLIK_U8);
    double mae = mean_abs_error(&img, &back, 1);
    ck_assert_msg(mae < 3.0, "mean abs error %.3f", mae);
    clik_image_free(&back);
    drop_image(&img);
}
END_TEST

START_TEST(test_jpeg_colour)
{
    TMP_PATH(path, "colour.jpeg");
    clik_image img = new_image(50, 30, 4, CLIK_U8, 7); /* padded rows too */
    clik_image back = jpeg_round_trip(path, &img, 4);
    double mae = mean_abs_error(&img, &back, 3);
    ck_assert_msg(mae < 3.0, "mean abs error %.3f", mae);
    for (int y = 0; y < back.height; y++) {
        for (int x = 0; x < back.width; x++)
            ck_assert_uint_eq(get(&back, x, y, 3), 255);
    }
    clik_image_free(&back);
    drop_image(&img);
}
END_TEST

START_TEST(test_jpeg_grey_alpha_drops_alpha)
{
    TMP_PATH(path, "grey_alpha.JPG");
    clik_image img = new_image(32, 16, 2, CLIK_U8, 0);
    fill_smooth(&img);
    clik_image back = round_trip(path, &img, 1, NULL);
    ck_assert_int_eq(back.channels, 1);
    double mae = mean_abs_error(&img, &back, 1);
    ck_assert_msg(mae < 3.0, "mean abs error %.3f", mae);
    clik_image_free(&back);
    drop_image(&img);
}
END_TEST

/* Writes a noisy 64 x 64 colour image (so the file's data is long) to path,
 * in the format of its extension, and returns the file's bytes (*len of
 * them); keep_alpha and seed as clikio_write() and noisy_image() take them. */
static unsigned char *noisy_file(const char *path, int keep_alpha, uint32_t seed, size_t *len)
{
    clik_image img = noisy_image(64, 64, 4, CLIK_U8, 0, seed);
    write_ok(path, &img, keep_alpha);
    drop_image(&img);
    return read_file(path, len);
}

/* Offset of the first marker FF xx at or after `from`, or 0. */
static size_t find_marker(const unsigned char *data, size_t len, unsigned char marker)
{
    for (size_t i = 2; i + 1 < len; i++) {
        if (data[i] == 0xFF && data[i + 1] == marker)
            return i;
    }
    return 0;
}

/* find_marker() of a marker that data must hold: the test fails where it
 * does not. */
static size_t marker_at(const unsigned char *data, size_t len, unsigned char marker)
{
    size_t at = find_marker(data, len, marker);
    ck_assert_msg(at > 0, "no marker FF %02X", marker);
    return at;
}

START_TEST(test_jpeg_truncated)
{
    TMP_PATH(full, "full.jpg");
    size_t len;
    unsigned char *data = noisy_file(full, 0, 40, &len);
    size_t sos = marker_at(data, len, 0xDA);
    const size_t cuts[] = {2, 20, sos, sos + 20, len / 2, len - 2};
    CUTS_FAIL(data, cuts, "jpg");
    free(data);
}
END_TEST

START_TEST(test_jpeg_huge_header)
{
    TMP_PATH(full, "small.jpg");
    TMP_PATH(max, "max.jpg");
    TMP_PATH(big, "big.jpg");
    size_t len;
    unsigned char *data = noisy_file(full, 0, 40, &len);
    size_t sof = marker_at(data, len, 0xC0);
    /* SOF0: FF C0, length (2), precision (1), height (2), width (2) */
    for (int i = 0; i < 4; i++)
        data[sof + 5 + i] = 0xFF;
    BYTES_FAIL(max, data, len, NULL);     /* 65535 x 65535 */
    data[sof + 5] = data[sof + 7] = 0xEA; /* 60000 x 60000: within libjpeg's own limit */
    data[sof + 6] = data[sof + 8] = 0x60;
    BYTES_FAIL(big, data, len, "60000x60000");
    free(data);
}
END_TEST

START_TEST(test_jpeg_cmyk)
{
    TMP_PATH(path, "cmyk.jpg");
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, fp);
    cinfo.image_width = 8;
    cinfo.image_height = 8;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    unsigned char row[32];
    memset(row, 100, sizeof(row));
    JSAMPROW rows[1] = {row};
    while (cinfo.next_scanline < cinfo.image_height)
        jpeg_write_scanlines(&cinfo, rows, 1);
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    ck_assert_int_eq(fclose(fp), 0);
    READ_FAILS_SAYING(path, CLIK_ERR_FILE_FORMAT, "CMYK");
}
END_TEST

/* ---- lying and costly JPEG files ------------------------------------------------ */

static void jpeg_noise_row(unsigned char *row, size_t len, unsigned y)
{
    for (size_t i = 0; i < len; i++)
        row[i] = (unsigned char)mix(y * 65537u + (uint32_t)i);
}

static void jpeg_grey_row(unsigned char *row, size_t len, unsigned y)
{
    (void)y;
    memset(row, 128, len);
}

/* Encodes a w x h image (1 or 3 components; RGB at 4:2:0) with libjpeg into
 * malloc'ed memory: noise when noisy, else flat mid-grey, the smallest a JPEG
 * of that size gets. */
static unsigned char *encode_jpeg(int w, int h, int components, crafted_jpeg_coding coding,
                                  int quality, int noisy, size_t *len)
{
    if (coding == CODING_TWO_SCANS)
        ck_assert_int_eq(components, 1);
    const crafted_jpeg spec = {w, h, components, coding, quality, 1, 0};
    unsigned char *out = crafted_jpeg_encode(&spec, noisy ? jpeg_noise_row : jpeg_grey_row, len);
    ck_assert_ptr_nonnull(out);
    return out;
}

/* Makes the frame header (SOF0, SOF2 or SOF9) claim w x h. */
static void claim_size(unsigned char *data, size_t len, unsigned w, unsigned h)
{
    size_t sof = find_marker(data, len, 0xC0);
    if (sof == 0)
        sof = find_marker(data, len, 0xC2);
    if (sof == 0)
        sof = find_marker(data, len, 0xC9);
    ck_assert_uint_gt(sof, 0);
    data[sof + 5] = (unsigned char)(h >> 8);
    data[sof + 6] = (unsigned char)h;
    data[sof + 7] = (unsigned char)(w >> 8);
    data[sof + 8] = (unsigned char)w;
}

/* A real 64 x 64 arithmetic-coded image of components components, cut
 * after_sos bytes past its start of scan, the EOI put back and its header
 * made to claim 16384 x 16384; *len: the bytes kept. */
static unsigned char *arith_jpeg_cut(int components, size_t after_sos, size_t *len)
{
    size_t full;
    unsigned char *data = encode_jpeg(64, 64, components, CODING_ARITH, 90, 1, &full);
    size_t sos = marker_at(data, full, 0xDA);
    size_t keep = sos + after_sos;
    ck_assert_uint_lt(keep + 2, full);
    data[keep] = 0xFF;
    data[keep + 1] = 0xD9;
    *len = keep + 2;
    claim_size(data, *len, 16384, 16384);
    return data;
}

static void read_ok(const char *path, int w, int h)
{
    clik_image img;
    char err[ERRLEN] = "";
    clik_status st = clikio_read(path, &img, NULL, err, sizeof(err));
    ck_assert_msg(st == CLIK_OK, "reading %s: %s (%s)", path, clik_status_str(st), err);
    ck_assert_int_eq(img.width, w);
    ck_assert_int_eq(img.height, h);
    clik_image_free(&img);
}

/* An arithmetic-coded file with no scan data at all, claiming 16384 x 16384
 * grey: 96 bytes that libjpeg decodes (zeros in, a plausible image out) to a
 * 256 MB image. */
START_TEST(test_jpeg_arith_without_data)
{
    static const unsigned char head[] = {
        0xFF, 0xD8,                   /* SOI */
        0xFF, 0xDB, 0x00, 0x43, 0x00, /* DQT, table 0... */
    };
    static const unsigned char tail[] = {
        0xFF, 0xC9, 0x00, 0x0B, 8, 0x40, 0x00, 0x40, 0x00, 1, 1, 0x11, 0, /* SOF9 16384^2 */
        0xFF, 0xDA, 0x00, 0x08, 1, 1,    0x00, 0,    63,   0,             /* SOS */
        0xFF, 0xD9,                                                       /* EOI */
    };
    unsigned char file[96];
    memcpy(file, head, sizeof(head));
    memset(file + sizeof(head), 1, 64); /* ...of 64 ones */
    memcpy(file + sizeof(head) + 64, tail, sizeof(tail));
    ck_assert_uint_eq(sizeof(head) + 64 + sizeof(tail), sizeof(file));
    TMP_PATH(path, "arith_empty.jpg");
    BYTES_FAIL(path, file, sizeof(file), "no scan data");

    /* A real arithmetic-coded image, cut after the start of its data, the
     * EOI put back, and its header made to claim 16384 x 16384. */
    TMP_PATH(cut, "arith_cut.jpg");
    size_t len;
    unsigned char *data = arith_jpeg_cut(3, 14 + 40, &len);
    BYTES_FAIL(cut, data, len, "too few");
    free(data);
}
END_TEST

/* Files whose scans hold no coded byte: arithmetic-coded ones of every size,
 * which libjpeg decodes without a word (zeros in, an image out), and a
 * Huffman-coded one; and a file cut before its first scan. */
START_TEST(test_jpeg_no_scan_data)
{
    static const struct {
        unsigned side;
        int colour;
    } arith[] = {{64, 0}, {256, 1}, {2048, 0}, {2048, 1}, {16384, 0}};
    for (size_t i = 0; i < sizeof(arith) / sizeof(arith[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "arith_empty%u_%d.jpg", arith[i].side, arith[i].colour);
        TMP_PATH(path, name);
        size_t len;
        unsigned char *data = crafted_jpeg_arith_empty(arith[i].side, arith[i].colour, 0, &len);
        ck_assert_ptr_nonnull(data);
        write_file(path, data, len);
        free(data);
        READ_FAILS_SAYING(path, CLIK_ERR_FILE_FORMAT, "no scan data");
    }

    /* Baseline, the scan's data taken out: SOS, then EOI at once. */
    TMP_PATH(huffman, "huffman_empty.jpg");
    size_t len;
    unsigned char *data = encode_jpeg(64, 64, 3, CODING_BASELINE, 90, 1, &len);
    size_t sos = marker_at(data, len, 0xDA);
    size_t end = sos + 2 + ((size_t)data[sos + 2] << 8 | data[sos + 3]);
    data[end] = 0xFF;
    data[end + 1] = 0xD9;
    BYTES_FAIL(huffman, data, end + 2, "no scan data");

    /* Cut before its first scan: the tables and the frame, no SOS, no EOI. */
    TMP_PATH(cut, "cut_before_scan.jpg");
    BYTES_FAIL(cut, data, sos, "truncated");
    free(data);
}
END_TEST

/* Comments do not pay for a lying header: a real arithmetic-coded image cut
 * short and claiming 16384 x 16384 is refused with 16.5 KB of comments in
 * it, which the bound of 1 byte per 256 blocks would otherwise let through
 * (and libjpeg would decode 256 MB of garbage). So is the empty file. */
START_TEST(test_jpeg_padding_does_not_count)
{
    TMP_PATH(cut, "arith_cut_padded.jpg");
    size_t len, padded_len;
    unsigned char *data = arith_jpeg_cut(1, 10 + 200, &len);
    unsigned char *padded = crafted_jpeg_pad(data, len, 16500, &padded_len);
    ck_assert_ptr_nonnull(padded);
    ck_assert_uint_gt(padded_len, 16384 + 200);
    BYTES_FAIL(cut, padded, padded_len, "too few");
    free(padded);
    free(data);

    TMP_PATH(empty, "arith_empty_padded.jpg");
    data = crafted_jpeg_arith_empty(16384, 0, 16500, &len);
    ck_assert_ptr_nonnull(data);
    write_file(empty, data, len);
    free(data);
    READ_FAILS_SAYING(empty, CLIK_ERR_FILE_FORMAT, "no scan data");

    /* The same comments in a real image change nothing. */
    TMP_PATH(fine, "arith_padded.jpg");
    data = encode_jpeg(64, 64, 3, CODING_ARITH, 90, 1, &len);
    padded = crafted_jpeg_pad(data, len, 16500, &padded_len);
    ck_assert_ptr_nonnull(padded);
    write_file(fine, padded, padded_len);
    read_ok(fine, 64, 64);
    free(padded);
    free(data);
}
END_TEST

/* Small files whose header claims 16384 x 16384: refused from their size,
 * before libjpeg allocates the image (the data would run out only after a
 * gigabyte of grey fill). */
START_TEST(test_jpeg_lying_header)
{
    static const struct {
        const char *name;
        crafted_jpeg_coding coding;
        int components;
    } cases[] = {
        {"lie_baseline.jpg", CODING_BASELINE, 3},
        {"lie_progressive.jpg", CODING_PROGRESSIVE, 3},
        {"lie_grey.jpg", CODING_OPTIMIZED, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TMP_PATH(path, cases[i].name);
        size_t len;
        unsigned char *data =
            encode_jpeg(16, 16, cases[i].components, cases[i].coding, 95, 1, &len);
        claim_size(data, len, 16384, 16384);
        BYTES_FAIL(path, data, len - 2, "too few"); /* no EOI */
        BYTES_FAIL(path, data, len, "too few");     /* with EOI: the scan ends early instead */
        free(data);
    }
}
END_TEST

/* The check on the size must pass the smallest real files: flat grey or
 * colour at quality 1 with fitted Huffman tables code one or two bits per
 * block, hardly more than the bound; arithmetic-coded ones code almost
 * nothing, which is allowed at this size. */
START_TEST(test_jpeg_flat_images_pass)
{
    static const struct {
        crafted_jpeg_coding coding;
        int components;
    } cases[] = {
        {CODING_BASELINE, 1},    {CODING_OPTIMIZED, 1}, {CODING_OPTIMIZED, 3},
        {CODING_PROGRESSIVE, 1}, {CODING_TWO_SCANS, 1}, {CODING_PROGRESSIVE, 3},
        {CODING_ARITH, 1},       {CODING_ARITH, 3},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "flat%zu.jpg", i);
        TMP_PATH(path, name);
        size_t len;
        unsigned char *data =
            encode_jpeg(1024, 768, cases[i].components, cases[i].coding, 1, 0, &len);
        write_file(path, data, len);
        read_ok(path, 1024, 768);
        free(data);
    }
}
END_TEST

/* A progressive grey image of `scans` scans: its DC scan, then its AC scan
 * over and over. Repeating a first scan with no successive approximation is
 * valid, and each repeat is a pass over every block. */
static unsigned char *jpeg_with_scans(int side, int scans, size_t *len)
{
    size_t two_len;
    unsigned char *two = encode_jpeg(side, side, 1, CODING_TWO_SCANS, 75, 0, &two_len);
    size_t first = find_marker(two, two_len, 0xDA);
    size_t second = first ? find_marker(two + first + 2, two_len - first - 2, 0xDA) : 0;
    ck_assert_uint_gt(second, 0);
    second += first + 2;
    size_t eoi = two_len - 2, repeat = eoi - second;
    size_t total = eoi + (size_t)(scans - 2) * repeat + 2;
    unsigned char *out = malloc(total);
    ck_assert_ptr_nonnull(out);
    memcpy(out, two, eoi);
    for (size_t k = 0, at = eoi; k < (size_t)(scans - 2); k++, at += repeat)
        memcpy(out + at, two + second, repeat);
    memcpy(out + total - 2, two + eoi, 2);
    free(two);
    *len = total;
    return out;
}

START_TEST(test_jpeg_too_many_scans)
{
    TMP_PATH(most, "scans256.jpg");
    TMP_PATH(over, "scans257.jpg");
    TMP_PATH(many, "scans3000.jpg");
    size_t len;
    unsigned char *data = jpeg_with_scans(64, 256, &len);
    write_file(most, data, len);
    free(data);
    read_ok(most, 64, 64);
    data = jpeg_with_scans(64, 257, &len);
    write_file(over, data, len);
    free(data);
    READ_FAILS_SAYING(over, CLIK_ERR_FILE_FORMAT, "scans");
    data = jpeg_with_scans(1024, 3000, &len);
    BYTES_FAIL(many, data, len, "more than 256 scans");
    free(data);

    /* A comment segment of length 0 first: libjpeg skips just its two
     * length bytes and goes on, and so must the count of scans. */
    TMP_PATH(hidden, "scans257_comment.jpg");
    data = jpeg_with_scans(64, 257, &len);
    unsigned char *more = malloc(len + 4);
    ck_assert_ptr_nonnull(more);
    static const unsigned char empty_comment[4] = {0xFF, 0xFE, 0x00, 0x00};
    memcpy(more, data, 2);
    memcpy(more + 2, empty_comment, 4);
    memcpy(more + 6, data + 2, len - 2);
    BYTES_FAIL(hidden, more, len + 4, "more than 256 scans");
    free(more);
    free(data);
}
END_TEST

/* A file cut inside its data is reported as truncated: libjpeg's warning
 * ends the read where it comes. */
START_TEST(test_jpeg_cut_says_truncated)
{
    TMP_PATH(path, "cut_data.jpg");
    size_t len;
    unsigned char *data = encode_jpeg(64, 64, 3, CODING_BASELINE, 95, 1, &len);
    BYTES_FAIL(path, data, len / 2, "truncated");
    free(data);
}
END_TEST

/* ---- broken and mislabelled PNG ---------------------------------------------------- */

START_TEST(test_png_truncated)
{
    TMP_PATH(full, "full.png");
    size_t len;
    unsigned char *data = noisy_file(full, 1, 41, &len);
    /* partial signature, signature only, inside IHDR, after IHDR, inside
     * IDAT, without IEND, one byte short */
    const size_t cuts[] = {4, 8, 20, 33, 45, len / 2, len - 12, len - 1};
    CUTS_FAIL(data, cuts, "png");
    free(data);
}
END_TEST

START_TEST(test_png_bad_crc)
{
    TMP_PATH(full, "crc.png");
    TMP_PATH(bad_ihdr, "bad_ihdr_crc.png");
    TMP_PATH(bad_idat, "bad_idat.png");
    size_t len;
    unsigned char *data = noisy_file(full, 1, 41, &len);
    data[29] ^= 0x01; /* first byte of the IHDR CRC (at 8 + 4 + 4 + 13) */
    BYTES_FAIL(bad_ihdr, data, len, "CRC");
    data[29] ^= 0x01;
    ck_assert_mem_eq(data + 37, "IDAT", 4);
    data[41 + 100] ^= 0x40; /* a byte of compressed data: the CRC no longer matches */
    BYTES_FAIL(bad_idat, data, len, NULL);
    free(data);
}
END_TEST

START_TEST(test_png_huge_header)
{
    TMP_PATH(square, "huge.png");
    TMP_PATH(wide, "wide.png");
    write_png_claiming(square, 100000, 100000);
    READ_FAILS_SAYING(square, CLIK_ERR_FILE_FORMAT, "100000x100000"); /* our check, not libpng's */
    write_png_claiming(wide, (1u << 20) + 1, 1);
    READ_FAILS(wide, CLIK_ERR_FILE_FORMAT);
    /* Sanity check of the crafting: a small claim gets past the header. */
    TMP_PATH(small, "small_claim.png");
    write_png_claiming(small, 2, 2);
    READ_FAILS(small, CLIK_ERR_FILE_FORMAT);
    ck_assert_ptr_null(strstr(last_err, "limit"));
}
END_TEST

/* ---- PNG compression levels ------------------------------------------------------ */

static long file_size(const char *path)
{
    struct stat info;
    ck_assert_msg(stat(path, &info) == 0, "cannot stat %s: %s", path, strerror(errno));
    return (long)info.st_size;
}

/* img written at level and read back unchanged; returns the file's size. */
static long size_at_level(const char *path, const clik_image *img, int level)
{
    ck_assert_int_eq(clikio_set_png_level(level), CLIK_OK);
    ck_assert_int_eq(clikio_png_level(), level);
    same_after_round_trip(path, img, 1, -1);
    return file_size(path);
}

START_TEST(test_png_level_setting)
{
    ck_assert_int_eq(CLIKIO_PNG_LEVEL_DEFAULT, 1);
    ck_assert_int_eq(clikio_png_level(), CLIKIO_PNG_LEVEL_DEFAULT);
    const int bad[] = {-1, 10, 100, -2147483647 - 1};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(clikio_set_png_level(bad[i]), CLIK_ERR_INVALID_ARG);
        ck_assert_int_eq(clikio_png_level(), CLIKIO_PNG_LEVEL_DEFAULT); /* unchanged */
    }
    for (int level = 0; level <= 9; level++) {
        ck_assert_int_eq(clikio_set_png_level(level), CLIK_OK);
        ck_assert_int_eq(clikio_png_level(), level);
    }
    ck_assert_int_eq(clikio_set_png_level(CLIKIO_PNG_LEVEL_DEFAULT), CLIK_OK);
}
END_TEST

/* Every level gives back the pixels; 0 stores them, 1 compresses a smooth
 * image, and 9 finds the repeats that 1 (run lengths only) cannot. */
START_TEST(test_png_levels)
{
    TMP_PATH(path, "level.png");
    const int w = 96, h = 64;
    clik_image smooth = new_image(w, h, 4, CLIK_U8, 3);
    fill_smooth(&smooth);
    clik_image u16 = noisy_image(9, 7, 2, CLIK_U16, 1, 21);
    /* Rows of one 61-byte stretch of noise over and over: no runs, many repeats. */
    clik_image repeats = new_image(4 * 61, 32, 1, CLIK_U8, 0);
    for (int y = 0; y < repeats.height; y++)
        for (int x = 0; x < repeats.width; x++)
            set(&repeats, x, y, 0, mix((uint32_t)(x % 61)) & 255);

    long smooth_size[10], repeats_size[10];
    for (int level = 0; level <= 9; level++) {
        smooth_size[level] = size_at_level(path, &smooth, level);
        repeats_size[level] = size_at_level(path, &repeats, level);
        size_at_level(path, &u16, level);
    }
    const long raw = (long)h * (1 + 4 * w); /* a filter byte, then RGBA */
    ck_assert_int_ge(smooth_size[0], raw);
    ck_assert_int_lt(smooth_size[1], smooth_size[0] / 4);
    ck_assert_int_lt(2 * repeats_size[9], repeats_size[1]);
    ck_assert_int_lt(2 * repeats_size[6], repeats_size[1]);
    /* The default is level 1. */
    ck_assert_int_eq(clikio_set_png_level(CLIKIO_PNG_LEVEL_DEFAULT), CLIK_OK);
    same_after_round_trip(path, &smooth, 1, -1);
    ck_assert_int_eq(file_size(path), smooth_size[1]);
    drop_image(&repeats);
    drop_image(&u16);
    drop_image(&smooth);
}
END_TEST

/* Level 6 writes what libpng writes with its own defaults (what every write
 * was before there were levels). */
START_TEST(test_png_level_6_is_libpng_default)
{
    TMP_PATH(ours, "level6.png");
    TMP_PATH(theirs, "libpng_default.png");
    clik_image img = new_image(40, 30, 1, CLIK_U8, 0);
    fill_smooth(&img);
    unsigned char *rows[30];
    for (int y = 0; y < img.height; y++)
        rows[y] = (unsigned char *)img.data + (size_t)y * img.stride;
    raw_png spec = {.width = img.width,
                    .height = img.height,
                    .depth = 8,
                    .color = PNG_COLOR_TYPE_GRAY,
                    .interlace = PNG_INTERLACE_NONE,
                    .rows = rows};
    write_raw_png(theirs, &spec);
    ck_assert_int_eq(clikio_set_png_level(6), CLIK_OK);
    write_ok(ours, &img, 0);
    ck_assert_int_eq(clikio_set_png_level(CLIKIO_PNG_LEVEL_DEFAULT), CLIK_OK);
    size_t n_ours, n_theirs;
    unsigned char *a = read_file(ours, &n_ours), *b = read_file(theirs, &n_theirs);
    ck_assert_msg(n_ours == n_theirs && memcmp(a, b, n_ours) == 0,
                  "level 6: %zu bytes, libpng's defaults: %zu bytes, not the same file", n_ours,
                  n_theirs);
    free(a);
    free(b);
    drop_image(&img);
}
END_TEST

/* EXIF Orientation: the image comes upright (each of the 8, either byte
 * order), as stored with clikio_set_jpeg_orientation(0), and as stored
 * where the Exif block lies about its entries. */
START_TEST(test_jpeg_exif_orientation)
{
    TMP_PATH(plain, "plain.jpg");
    TMP_PATH(tagged, "tagged.jpg");
    clik_image src = noisy_image(24, 16, 4, CLIK_U8, 0, 77);
    write_ok(plain, &src, 0);
    drop_image(&src);
    size_t len;
    unsigned char *jpeg = read_file(plain, &len);
    char err[ERRLEN];
    clik_image raw;
    ck_assert_int_eq(clikio_read(plain, &raw, NULL, err, sizeof(err)), CLIK_OK);
    const int w = raw.width, h = raw.height;
    for (int o = 1; o <= 8; o++)
        for (int big = 0; big <= 1; big++) {
            size_t n;
            unsigned char *e = crafted_jpeg_exif(jpeg, len, o, big, 1 + 2 * big, 0, &n);
            ck_assert_ptr_nonnull(e);
            write_file(tagged, e, n);
            free(e);
            clik_image up, as_stored;
            ck_assert_msg(clikio_read(tagged, &up, NULL, err, sizeof(err)) == CLIK_OK, "%s", err);
            clikio_set_jpeg_orientation(0);
            ck_assert_int_eq(clikio_read(tagged, &as_stored, NULL, err, sizeof(err)), CLIK_OK);
            clikio_set_jpeg_orientation(1);
            ck_assert_int_eq(as_stored.width, w);
            ck_assert_int_eq(up.width, o >= 5 ? h : w);
            ck_assert_int_eq(up.height, o >= 5 ? w : h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    /* where stored pixel (x, y) shows: mirror, then turn */
                    const int mx = (o == 2 || o == 3 || o == 7 || o == 8) ? w - 1 - x : x;
                    const int my = (o == 3 || o == 4 || o == 7 || o == 6) ? h - 1 - y : y;
                    const int ux = o >= 5 ? my : mx, uy = o >= 5 ? mx : my;
                    const unsigned char *a =
                        (const unsigned char *)raw.data + (size_t)y * raw.stride + (size_t)x * 4;
                    const unsigned char *b =
                        (const unsigned char *)up.data + (size_t)uy * up.stride + (size_t)ux * 4;
                    const unsigned char *c = (const unsigned char *)as_stored.data +
                                             (size_t)y * as_stored.stride + (size_t)x * 4;
                    ck_assert_msg(memcmp(a, b, 4) == 0 && memcmp(a, c, 4) == 0,
                                  "orientation %d (%s) at (%d, %d)", o, big ? "MM" : "II", x, y);
                }
            drop_image(&up);
            drop_image(&as_stored);
        }
    /* As stored: an IFD claiming 4000 entries in a block of 3 and no
     * Orientation, and an Orientation of 9. */
    const int lies[][4] = {{0, 0, 3, 4000}, {0, 1, 3, 4000}, {9, 0, 1, 0}, {9, 1, 2, 0}};
    for (int i = 0; i < 4; i++) {
        size_t n;
        unsigned char *e =
            crafted_jpeg_exif(jpeg, len, lies[i][0], lies[i][1], lies[i][2], lies[i][3], &n);
        ck_assert_ptr_nonnull(e);
        write_file(tagged, e, n);
        free(e);
        clik_image lie;
        ck_assert_int_eq(clikio_read(tagged, &lie, NULL, err, sizeof(err)), CLIK_OK);
        ck_assert_int_eq(lie.width, w);
        ck_assert_int_eq(memcmp(lie.data, raw.data, (size_t)w * 4), 0);
        drop_image(&lie);
    }
    drop_image(&raw);
    free(jpeg);
}
END_TEST

START_TEST(test_wrong_content)
{
    TMP_PATH(text, "text.png");
    TMP_PATH(jpeg, "photo.jpg");
    TMP_PATH(jpeg_as_png, "photo_really_jpeg.png");
    TMP_PATH(png, "image.png");
    TMP_PATH(png_as_jpg, "image_really_png.jpg");
    TMP_PATH(png_as_pgm, "image_really_png.pgm");
    BYTES_FAIL(text, "hello, I am text\n", 17, "is not a PNG file");

    clik_image img = new_image(8, 8, 1, CLIK_U8, 0);
    fill_smooth(&img);
    write_ok(jpeg, &img, 0);
    write_ok(png, &img, 0);
    drop_image(&img);
    size_t len;
    unsigned char *data = read_file(jpeg, &len);
    write_file(jpeg_as_png, data, len);
    free(data);
    /* The content decides where it names a format; the extension is a hint. */
    const char *const as_other[][2] = {{jpeg_as_png, jpeg}, {png_as_jpg, png}, {png_as_pgm, png}};
    data = read_file(png, &len);
    write_file(png_as_jpg, data, len);
    write_file(png_as_pgm, data, len);
    free(data);
    for (int i = 0; i < 3; i++) {
        clik_image a, b;
        char err[ERRLEN];
        ck_assert_int_eq(clikio_read(as_other[i][0], &a, NULL, err, sizeof(err)), CLIK_OK);
        ck_assert_int_eq(clikio_read(as_other[i][1], &b, NULL, err, sizeof(err)), CLIK_OK);
        ck_assert_int_eq(a.width, b.width);
        ck_assert_int_eq(a.height, b.height);
        ck_assert_int_eq(a.channels, b.channels);
        for (int y = 0; y < a.height; y++)
            ck_assert_mem_eq((char *)a.data + (size_t)y * a.stride,
                             (char *)b.data + (size_t)y * b.stride, (size_t)a.width * a.channels);
        drop_image(&a);
        drop_image(&b);
    }
}
END_TEST

START_TEST(test_read_directory_empty_missing)
{
    TMP_FOLDER(dir, "folder.png");
    TMP_FOLDER(dir_npy, "folder.npy");
    READ_FAILS(dir, CLIK_ERR_IO);
    NPY_READ_FAILS(dir_npy, CLIK_ERR_IO);

    const char *const empties[] = {"empty.png", "empty.jpg", "empty.pgm", "empty.npy"};
    for (size_t i = 0; i < 4; i++) {
        TMP_PATH(path, empties[i]);
        write_file(path, "", 0);
        if (i == 3)
            NPY_READ_FAILS(path, CLIK_ERR_FILE_FORMAT);
        else
            READ_FAILS(path, CLIK_ERR_FILE_FORMAT);
    }

    TMP_PATH(missing, "missing.png");
    TMP_PATH(missing_npy, "missing.npy");
    READ_FAILS(missing, CLIK_ERR_IO);
    NPY_READ_FAILS(missing_npy, CLIK_ERR_IO);
}
END_TEST

START_TEST(test_unknown_extension)
{
    const char *const names[] = {"image.bmp", "noextension", "trailing.", "image.png.txt",
                                 "image.npy.bmp"};
    clik_image img = noisy_image(2, 2, 1, CLIK_U8, 0, 50);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        TMP_PATH(path, names[i]);
        /* no format by content or by name */
        BYTES_FAIL(path, "data", 4, "neither its first bytes nor its extension");
        unlink(path);
        WRITE_FAILS(clikio_write(path, &img, 0, err_, sizeof(err_)), CLIK_ERR_INVALID_ARG, path);
        ck_assert(!exists(path));
    }
    drop_image(&img);
}
END_TEST

START_TEST(test_null_arguments)
{
    TMP_PATH(path, "null.png");
    clik_image img = noisy_image(2, 2, 1, CLIK_U8, 0, 51);
    clik_image out;
    char err[ERRLEN];

    ck_assert_int_eq(clikio_read(NULL, &out, NULL, err, sizeof(err)), CLIK_ERR_NULL);
    ck_assert(err[0] != '\0');
    ck_assert_ptr_null(out.data);
    ck_assert_int_eq(clikio_read(path, NULL, NULL, err, sizeof(err)), CLIK_ERR_NULL);
    expect_message(err, path, __LINE__);
    ck_assert_int_eq(clikio_read_npy(NULL, &out, err, sizeof(err)), CLIK_ERR_NULL);
    ck_assert(err[0] != '\0');
    ck_assert_int_eq(clikio_read_npy(path, NULL, err, sizeof(err)), CLIK_ERR_NULL);
    expect_message(err, path, __LINE__);
    ck_assert_int_eq(clikio_write(NULL, &img, 0, err, sizeof(err)), CLIK_ERR_NULL);
    ck_assert(err[0] != '\0');
    ck_assert_int_eq(clikio_write(path, NULL, 0, err, sizeof(err)), CLIK_ERR_NULL);
    expect_message(err, path, __LINE__);
    ck_assert_int_eq(clikio_write_npy(NULL, &img, err, sizeof(err)), CLIK_ERR_NULL);
    ck_assert(err[0] != '\0');
    ck_assert_int_eq(clikio_write_npy(path, NULL, err, sizeof(err)), CLIK_ERR_NULL);
    expect_message(err, path, __LINE__);
    ck_assert(!exists(path));

    /* No message buffer at all, and one too small for the message. */
    TMP_PATH(missing, "no_such_file.png");
    ck_assert_int_eq(clikio_read(missing, &out, NULL, NULL, 0), CLIK_ERR_IO);
    ck_assert_int_eq(clikio_read(missing, &out, NULL, NULL, 100), CLIK_ERR_IO);
    char small[8];
    memset(small, 'x', sizeof(small));
    ck_assert_int_eq(clikio_read(missing, &out, NULL, small, sizeof(small)), CLIK_ERR_IO);
    ck_assert_uint_eq(strlen(small), 7);
    char one = 'x';
    ck_assert_int_eq(clikio_read(missing, &out, NULL, &one, 1), CLIK_ERR_IO);
    ck_assert_int_eq(one, '\0');
    drop_image(&img);
}
END_TEST

/* ---- writing: unsupported images and the atomic rule ------------------------------------ */

START_TEST(test_write_unsupported)
{
    static const named_format cases[] = {
        {"f32.png", 1, CLIK_F32}, {"u16.jpg", 1, CLIK_U16}, {"s16.pgm", 1, CLIK_S16},
        {"rgba.pgm", 4, CLIK_U8}, {"u32.ppm", 4, CLIK_U32}, {"f64.jpeg", 4, CLIK_F64},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TMP_PATH(path, cases[i].name);
        clik_image img = noisy_image(3, 2, cases[i].channels, cases[i].type, 0, 60);
        WRITE_FAILS(clikio_write(path, &img, 1, err_, sizeof(err_)), CLIK_ERR_UNSUPPORTED_FORMAT,
                    path);
        ck_assert(!exists(path));
        drop_image(&img);
    }
}
END_TEST

/* 3 channels and BGR(A) to image files: RGB(A) on disk; .npy in and out in
 * the order clikio_set_npy_order() sets. */
START_TEST(test_colour_order)
{
    enum { W = 5, H = 3 };
    char err[ERRLEN] = "";
    clik_image rgb, bgra, got;
    ck_assert_int_eq(clik_image_alloc(&rgb, W, H, 3, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&bgra, W, H, 4, CLIK_U8), CLIK_OK);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                const uint8_t v = (uint8_t)(40 * c + 7 * x + 3 * y);
                if (c < 3)
                    ((uint8_t *)rgb.data)[(size_t)y * rgb.stride + (size_t)x * 3 + (size_t)c] = v;
                ((uint8_t *)bgra
                     .data)[(size_t)y * bgra.stride + (size_t)x * 4 + (size_t)(c < 3 ? 2 - c : c)] =
                    v;
            }
    bgra.order = CLIK_ORDER_BGR;
    TMP_PATH(png3, "rgb3.png");
    TMP_PATH(png4, "bgra.png");
    TMP_PATH(npy, "bgr.npy");
    ck_assert_msg(clikio_write(png3, &rgb, 0, err, sizeof(err)) == CLIK_OK, "%s", err);
    ck_assert_msg(clikio_write(png4, &bgra, 1, err, sizeof(err)) == CLIK_OK, "%s", err);
    for (int f = 0; f < 2; f++) {
        ck_assert_msg(clikio_read(f ? png4 : png3, &got, NULL, err, sizeof(err)) == CLIK_OK, "%s",
                      err);
        ck_assert_int_eq(got.order, CLIK_ORDER_RGB);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 3; c++)
                    ck_assert_uint_eq(get(&got, x, y, c), (uint8_t)(40 * c + 7 * x + 3 * y));
        clik_image_free(&got);
    }
    /* --order bgr: the RGB image goes out as BGR and comes back as RGB. */
    clikio_set_npy_order(CLIK_ORDER_BGR);
    ck_assert_msg(clikio_write(npy, &rgb, 0, err, sizeof(err)) == CLIK_OK, "%s", err);
    clikio_set_npy_order(CLIK_ORDER_RGB);
    ck_assert_msg(clikio_read(npy, &got, NULL, err, sizeof(err)) == CLIK_OK, "%s", err);
    ck_assert_int_eq(got.channels, 3);
    ck_assert_uint_eq(get(&got, 1, 2, 0), (uint8_t)(40 * 2 + 7 + 6)); /* blue first on disk */
    clik_image_free(&got);
    clikio_set_npy_order(CLIK_ORDER_BGR);
    ck_assert_msg(clikio_read(npy, &got, NULL, err, sizeof(err)) == CLIK_OK, "%s", err);
    clikio_set_npy_order(CLIK_ORDER_RGB);
    ck_assert_uint_eq(get(&got, 1, 2, 0), (uint8_t)(7 + 6)); /* swapped back into RGB */
    clik_image_free(&got);
    clik_image_free(&rgb);
    clik_image_free(&bgra);
}
END_TEST

START_TEST(test_write_invalid_image)
{
    TMP_PATH(path, "invalid.png");
    unsigned char pixels[64] = {0};
    clik_image img = {4,      2,    1, CLIK_U8,       2,
                      pixels, NULL, 0, CLIK_ORDER_RGB}; /* stride below the row size */
    WRITE_FAILS(clikio_write(path, &img, 0, err_, sizeof(err_)), CLIK_ERR_STRIDE, path);
    WRITE_FAILS(clikio_write_npy(path, &img, err_, sizeof(err_)), CLIK_ERR_STRIDE, path);
    img.stride = 20;
    img.channels = 5;
    WRITE_FAILS(clikio_write(path, &img, 0, err_, sizeof(err_)), CLIK_ERR_UNSUPPORTED_FORMAT, path);
    img.channels = 1;
    img.width = 0;
    WRITE_FAILS(clikio_write(path, &img, 0, err_, sizeof(err_)), CLIK_ERR_INVALID_SIZE, path);
    /* A device image (only its descriptor: the buffer is never touched). */
    img.width = 4;
    img.data = NULL;
    img.buffer = (struct clik_buffer *)pixels;
    WRITE_FAILS(clikio_write(path, &img, 0, err_, sizeof(err_)), CLIK_ERR_INVALID_ARG, path);
    ck_assert(!exists(path));
}
END_TEST

START_TEST(test_write_missing_folder)
{
    TMP_PATH(folder, "no_such_folder");
    TMP_PATH(path, "no_such_folder/image.png");
    TMP_PATH(npy, "no_such_folder/array.npy");
    clik_image img = noisy_image(4, 4, 1, CLIK_U8, 0, 70);
    WRITE_FAILS(clikio_write(path, &img, 0, err_, sizeof(err_)), CLIK_ERR_IO, path);
    WRITE_FAILS(clikio_write_npy(npy, &img, err_, sizeof(err_)), CLIK_ERR_IO, npy);
    ck_assert(!exists(folder));
    drop_image(&img);
}
END_TEST

START_TEST(test_write_failure_keeps_existing)
{
    TMP_FOLDER(dir, "atomic");
    TMP_PATH(keep, "atomic/keep.png");
    TMP_PATH(keep_jpg, "atomic/keep.jpg");
    TMP_PATH(target_dir, "atomic/adir.png");
    clik_image img = noisy_image(5, 5, 4, CLIK_U8, 0, 80);
    write_ok(keep, &img, 1);
    write_ok(keep_jpg, &img, 1);
    size_t len, len_jpg;
    unsigned char *before = read_file(keep, &len);
    unsigned char *before_jpg = read_file(keep_jpg, &len_jpg);

    clik_image f32 = noisy_image(5, 5, 1, CLIK_F32, 0, 81);
    WRITE_FAILS(clikio_write(keep, &f32, 1, err_, sizeof(err_)), CLIK_ERR_UNSUPPORTED_FORMAT, keep);
    clik_image u16 = noisy_image(5, 5, 1, CLIK_U16, 0, 82);
    WRITE_FAILS(clikio_write(keep_jpg, &u16, 1, err_, sizeof(err_)), CLIK_ERR_UNSUPPORTED_FORMAT,
                keep_jpg);

    /* A failure after the temporary file exists: the rename onto a folder. */
    ck_assert_int_eq(mkdir(target_dir, 0700), 0);
    WRITE_FAILS(clikio_write(target_dir, &img, 1, err_, sizeof(err_)), CLIK_ERR_IO, target_dir);
    WRITE_FAILS(clikio_write_npy(target_dir, &img, err_, sizeof(err_)), CLIK_ERR_IO, target_dir);

    size_t after_len;
    unsigned char *after = read_file(keep, &after_len);
    ck_assert_uint_eq(after_len, len);
    ck_assert_mem_eq(after, before, len);
    free(after);
    after = read_file(keep_jpg, &after_len);
    ck_assert_uint_eq(after_len, len_jpg);
    ck_assert_mem_eq(after, before_jpg, len_jpg);
    free(after);
    ck_assert_int_eq(count_entries(dir), 3); /* keep.png, keep.jpg, adir.png: no temporary */
    ck_assert_int_eq(count_entries(target_dir), 0);

    free(before);
    free(before_jpg);
    drop_image(&u16);
    drop_image(&f32);
    drop_image(&img);
}
END_TEST

/* A file that a write replaces keeps its permission bits; a new one gets
 * 0666 less the umask. */
START_TEST(test_write_keeps_mode)
{
    TMP_FOLDER(dir, "modes");
    TMP_PATH(kept, "modes/kept.png");
    TMP_PATH(staged, "modes/staged.npy");
    TMP_PATH(fresh, "modes/fresh.pgm");
    clik_image img = noisy_image(4, 3, 1, CLIK_U8, 0, 91);
    write_file(kept, "old", 3);
    ck_assert_int_eq(chmod(kept, 0600), 0);
    write_ok(kept, &img, 0);
    struct stat info;
    ck_assert_int_eq(stat(kept, &info), 0);
    ck_assert_uint_eq(info.st_mode & 0777, 0600);

    write_file(staged, "old", 3);
    ck_assert_int_eq(chmod(staged, 0751), 0);
    clikio_staged st = {0};
    char err[ERRLEN] = "";
    ck_assert_int_eq(clikio_stage(staged, &img, 0, &st, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(clikio_commit(&st, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(stat(staged, &info), 0);
    ck_assert_uint_eq(info.st_mode & 0777, 0751);

    const mode_t old_mask = umask(027);
    write_ok(fresh, &img, 0);
    umask(old_mask);
    ck_assert_int_eq(stat(fresh, &info), 0);
    ck_assert_uint_eq(info.st_mode & 0777, 0640);
    ck_assert_int_eq(count_entries(dir), 3);
    drop_image(&img);
}
END_TEST

/* The bytes of path are text. */
static void holds(const char *path, const char *text)
{
    size_t len;
    unsigned char *data = read_file(path, &len);
    ck_assert_msg(len == strlen(text) && memcmp(data, text, len) == 0, "%s does not hold '%s'",
                  path, text);
    free(data);
}

static void stage_ok(const char *path, const clik_image *img, clikio_staged *staged)
{
    char err[ERRLEN] = "";
    clik_status st = clikio_stage(path, img, 0, staged, err, sizeof(err));
    ck_assert_msg(st == CLIK_OK, "staging %s: %s (%s)", path, clik_status_str(st), err);
}

/* Several files all in place, or none: what the names held before comes
 * back after a failure at a later name, whether the failure is found before
 * anything moves (a folder at the name) or at the rename itself. */
START_TEST(test_commit_all_or_none)
{
    TMP_FOLDER(dir, "all");
    TMP_PATH(a, "all/a.pgm");
    TMP_PATH(b, "all/b.pgm");
    TMP_PATH(c, "all/c.pgm");
    write_file(a, "a before", 8);
    ck_assert_int_eq(chmod(a, 0640), 0);
    clik_image img = noisy_image(4, 3, 1, CLIK_U8, 0, 92);
    clikio_staged sa, sb, sc;
    clikio_staged *const set[3] = {&sa, &sb, &sc};
    char err[ERRLEN] = "";

    /* A folder at the third name: refused before anything is replaced. */
    stage_ok(a, &img, &sa);
    stage_ok(b, &img, &sb);
    stage_ok(c, &img, &sc);
    ck_assert_int_eq(mkdir(c, 0700), 0);
    ck_assert_int_eq(clikio_commit_all(set, 3, err, sizeof(err)), CLIK_ERR_IO);
    ck_assert_msg(strstr(err, "c.pgm: cannot replace") != NULL, "%s", err);
    holds(a, "a before");
    ck_assert(!exists(b));
    ck_assert_int_eq(count_entries(dir), 2); /* a.pgm and the folder c.pgm */
    ck_assert_ptr_null(sa.tmp_path);
    ck_assert_int_eq(rmdir(c), 0);

    /* The second rename fails (its staged file is gone): a is put back, the
     * new c removed, b as it was. */
    write_file(b, "b before", 8);
    stage_ok(a, &img, &sa);
    stage_ok(c, &img, &sc);
    stage_ok(b, &img, &sb);
    clikio_staged *const order[3] = {&sa, &sc, &sb};
    ck_assert_int_eq(unlink(sb.tmp_path), 0);
    ck_assert_int_eq(clikio_commit_all(order, 3, err, sizeof(err)), CLIK_ERR_IO);
    ck_assert_msg(strstr(err, "b.pgm: cannot replace") != NULL, "%s", err);
    holds(a, "a before");
    holds(b, "b before");
    ck_assert(!exists(c));
    ck_assert_int_eq(count_entries(dir), 2); /* no temporary, no kept file */
    struct stat info;
    ck_assert_int_eq(stat(a, &info), 0);
    ck_assert_uint_eq(info.st_mode & 0777, 0640);

    /* Nothing in the way: every file in place, the old ones gone. */
    stage_ok(a, &img, &sa);
    stage_ok(b, &img, &sb);
    stage_ok(c, &img, &sc);
    ck_assert_int_eq(clikio_commit_all(set, 3, err, sizeof(err)), CLIK_OK);
    ck_assert_int_eq(count_entries(dir), 3);
    clik_image back;
    const char *paths[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(clikio_read(paths[i], &back, NULL, err, sizeof(err)), CLIK_OK);
        ck_assert(same_pixels(&img, &back));
        clik_image_free(&back);
    }
    ck_assert_int_eq(stat(a, &info), 0);
    ck_assert_uint_eq(info.st_mode & 0777, 0640);

    /* Two entries for standard output: refused, nothing written. */
    clikio_staged o1, o2;
    clikio_staged *const outs[2] = {&o1, &o2};
    stage_ok("-", &img, &o1);
    stage_ok("pgm:-", &img, &o2);
    ck_assert_int_eq(clikio_commit_all(outs, 2, err, sizeof(err)), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_null(o1.tmp_path);
    ck_assert_ptr_null(o2.tmp_path);
    drop_image(&img);
}
END_TEST

START_TEST(test_write_replaces_existing)
{
    TMP_FOLDER(dir, "replace");
    TMP_PATH(path, "replace/image.pgm");
    write_file(path, "old contents", 12);
    clik_image img = noisy_image(4, 3, 1, CLIK_U8, 0, 90);
    same_after_round_trip(path, &img, 0, -1);
    ck_assert_int_eq(count_entries(dir), 1);
    drop_image(&img);
}
END_TEST

/* ---- NPY --------------------------------------------------------------------------- */

static const clik_type npy_types[] = {CLIK_U8,  CLIK_S16, CLIK_U16, CLIK_S32, CLIK_U32,
                                      CLIK_U64, CLIK_F16, CLIK_F32, CLIK_F64};
static const char *const npy_descrs[] = {"|u1", "<i2", "<u2", "<i4", "<u4",
                                         "<u8", "<f2", "<f4", "<f8"};

/* Checks the header of a .npy we wrote; returns where the data starts. */
static size_t check_npy_header(const unsigned char *data, size_t len, const char *descr,
                               const char *shape)
{
    ck_assert_uint_gt(len, 10);
    ck_assert_mem_eq(data, "\x93NUMPY\x01\x00", 8);
    size_t hlen = data[8] | (size_t)data[9] << 8;
    ck_assert_uint_eq((10 + hlen) % 64, 0);
    ck_assert_uint_le(10 + hlen, len);
    ck_assert_int_eq(data[10 + hlen - 1], '\n');
    char want[160];
    snprintf(want, sizeof(want), "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
             shape);
    ck_assert_mem_eq(data + 10, want, strlen(want));
    for (size_t i = 10 + strlen(want); i < 10 + hlen - 1; i++)
        ck_assert_int_eq(data[i], ' ');
    return 10 + hlen;
}

/* .npy through the extension-driven calls: 4 channels without keep_alpha
 * are written as (H, W, 3), with it as (H, W, 4); any dtype; "data" in a
 * file named .npy is a format error, not an unknown extension. */
START_TEST(test_npy_by_extension)
{
    TMP_PATH(path, "by-extension.npy");
    clik_image img = new_image(5, 3, 4, CLIK_U32, 8);
    for (int y = 0; y < 3; y++)
        for (int i = 0; i < 20; i++)
            ((uint32_t *)((uint8_t *)img.data + (size_t)y * img.stride))[i] =
                (uint32_t)(y * 1000 + i) * 65537u;
    char err[ERRLEN];
    ck_assert_msg(clikio_write(path, &img, 0, err, sizeof(err)) == CLIK_OK, "%s", err);
    size_t len;
    unsigned char *data = read_file(path, &len);
    size_t start = check_npy_header(data, len, "<u4", "(3, 5, 3)");
    ck_assert_uint_eq(len - start, 3 * 5 * 3 * 4);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++)
            for (int c = 0; c < 3; c++) {
                uint32_t v;
                memcpy(&v, data + start + 4 * (size_t)((y * 5 + x) * 3 + c), 4);
                ck_assert_uint_eq(v, (uint32_t)(y * 1000 + x * 4 + c) * 65537u);
            }
    free(data);
    ck_assert_msg(clikio_write(path, &img, 1, err, sizeof(err)) == CLIK_OK, "%s", err);
    clik_image back;
    int alpha = 0;
    ck_assert_msg(clikio_read(path, &back, &alpha, err, sizeof(err)) == CLIK_OK, "%s", err);
    ck_assert_int_eq(alpha, 1);
    ck_assert_int_eq(back.channels, 4);
    ck_assert_int_eq(back.type, CLIK_U32);
    for (int y = 0; y < 3; y++)
        ck_assert_mem_eq((uint8_t *)back.data + (size_t)y * back.stride,
                         (uint8_t *)img.data + (size_t)y * img.stride, 5 * 4 * 4);
    clik_image_free(&back);
    BYTES_FAIL(path, "data", 4, NULL);
    unlink(path);
    drop_image(&img);
}
END_TEST

START_TEST(test_npy_round_trip)
{
    clik_type type = npy_types[_i];
    const int channel_counts[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        int ch = channel_counts[k];
        char name[64];
        snprintf(name, sizeof(name), "array_%s_%d.npy", clik_type_name(type), ch);
        TMP_PATH(path, name);
        clik_image img = noisy_image(7, 5, ch, type, k == 1 ? 0 : 3, 100 + (uint32_t)(_i * 3 + k));
        char err[ERRLEN] = "";
        ck_assert_msg(clikio_write_npy(path, &img, err, sizeof(err)) == CLIK_OK, "%s", err);

        size_t len;
        unsigned char *data = read_file(path, &len);
        char shape[32];
        if (ch == 1)
            snprintf(shape, sizeof(shape), "(5, 7)");
        else
            snprintf(shape, sizeof(shape), "(5, 7, %d)", ch);
        size_t start = check_npy_header(data, len, npy_descrs[_i], shape);
        size_t row = (size_t)7 * (size_t)ch * clik_type_size(type);
        ck_assert_uint_eq(len, start + 5 * row);
        /* Little-endian elements: compare the bytes against the image on such hosts. */
        const uint16_t probe = 1;
        if (*(const unsigned char *)&probe == 1) {
            for (int y = 0; y < 5; y++)
                ck_assert_mem_eq(data + start + (size_t)y * row,
                                 (unsigned char *)img.data + (size_t)y * img.stride, row);
        }
        free(data);

        clik_image back;
        ck_assert_msg(clikio_read_npy(path, &back, err, sizeof(err)) == CLIK_OK, "%s", err);
        ck_assert_msg(same_pixels(&img, &back), "%s differs", name);
        clik_image_free(&back);
        drop_image(&img);
    }
}
END_TEST

/* A .npy made by hand (crafted_npy) at path. */
static void write_npy_raw(const char *path, int major, const char *dict, const void *data,
                          size_t len)
{
    size_t size;
    unsigned char *buf = crafted_npy(major, dict, data, len, &size);
    ck_assert_ptr_nonnull(buf);
    write_file(path, buf, size);
    free(buf);
}

START_TEST(test_npy_versions)
{
    TMP_PATH(v1, "v1.npy");
    TMP_PATH(v2, "v2.npy");
    TMP_PATH(v3, "v3.npy");
    TMP_PATH(py2, "py2.npy");
    /* float32 0.0 .. 5.0, little-endian */
    unsigned char f32[24];
    for (int i = 0; i < 6; i++) {
        float f = (float)i;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        for (int b = 0; b < 4; b++)
            f32[i * 4 + b] = (unsigned char)(bits >> (8 * b));
    }
    write_npy_raw(v1, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f32, 24);
    write_npy_raw(v2, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 1), }", f32, 24);
    const unsigned char u16[16] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0x80};
    write_npy_raw(v3, 3, "{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (2, 2, 2)}",
                  u16, 16);
    write_npy_raw(py2, 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 3L), }", "abcdef",
                  6);

    clik_image img;
    char err[ERRLEN];
    const char *const f32_paths[2] = {v1, v2};
    for (int k = 0; k < 2; k++) {
        ck_assert_msg(clikio_read_npy(f32_paths[k], &img, err, sizeof(err)) == CLIK_OK, "%s", err);
        ck_assert_int_eq(img.type, CLIK_F32);
        ck_assert_int_eq(img.width, 3);
        ck_assert_int_eq(img.height, 2);
        ck_assert_int_eq(img.channels, 1);
        for (int y = 0; y < 2; y++) {
            for (int x = 0; x < 3; x++) {
                float f;
                memcpy(&f, (char *)img.data + (size_t)y * img.stride + (size_t)x * 4, 4);
                ck_assert(f == (float)(y * 3 + x));
            }
        }
        clik_image_free(&img);
    }

    ck_assert_msg(clikio_read_npy(v3, &img, err, sizeof(err)) == CLIK_OK, "%s", err);
    ck_assert_int_eq(img.type, CLIK_U16);
    ck_assert_int_eq(img.channels, 2);
    ck_assert_int_eq(img.width, 2);
    ck_assert_uint_eq(get(&img, 1, 1, 1), 0x8008);
    ck_assert_uint_eq(get(&img, 0, 1, 0), 5);
    clik_image_free(&img);

    ck_assert_msg(clikio_read_npy(py2, &img, err, sizeof(err)) == CLIK_OK, "%s", err);
    ck_assert_int_eq(img.type, CLIK_U8);
    ck_assert_uint_eq(get(&img, 2, 1, 0), 'f');
    clik_image_free(&img);
}
END_TEST

/* Each crafted header, over 64 zero bytes of data, is refused as want. */
static void check_npy_headers_fail(const crafted_npy_header *cases, int count, clik_status want)
{
    unsigned char zeros[64] = {0};
    for (int i = 0; i < count; i++) {
        TMP_PATH(path, cases[i].name);
        write_npy_raw(path, 1, cases[i].dict, zeros, sizeof(zeros));
        NPY_READ_FAILS(path, want);
    }
}

START_TEST(test_npy_unsupported)
{
    check_npy_headers_fail(crafted_npy_unsupported, crafted_npy_unsupported_count,
                           CLIK_ERR_UNSUPPORTED_FORMAT);
}
END_TEST

START_TEST(test_npy_corrupt)
{
    check_npy_headers_fail(crafted_npy_corrupt, crafted_npy_corrupt_count, CLIK_ERR_FILE_FORMAT);
}
END_TEST

START_TEST(test_npy_bad_files)
{
    TMP_PATH(good, "good.npy");
    clik_image img = noisy_image(6, 4, 2, CLIK_U16, 0, 110);
    char err[ERRLEN];
    ck_assert_int_eq(clikio_write_npy(good, &img, err, sizeof(err)), CLIK_OK);
    drop_image(&img);
    size_t len;
    unsigned char *data = read_file(good, &len);

    /* partial magic, magic only, inside the header, one data byte short */
    const size_t cuts[] = {3, 8, 40, len - 1};
    CUTS_FAIL(data, cuts, "npy");

    TMP_PATH(magic, "bad_magic.npy");
    data[1] = 'n';
    NPY_BYTES_FAIL(magic, data, len);
    data[1] = 'N';

    TMP_PATH(version, "version9.npy");
    data[6] = 9;
    NPY_BYTES_FAIL(version, data, len);
    data[6] = 1;

    TMP_PATH(long_header, "long_header.npy");
    data[6] = 2; /* version 2 reads a 4-byte length: about 4 GB here */
    data[10] = 0xFF;
    data[11] = 0xFF;
    NPY_BYTES_FAIL(long_header, data, len);
    free(data);

    TMP_PATH(text, "text.npy");
    NPY_BYTES_FAIL(text, "just some text", 14);
}
END_TEST

/* ---- runner -------------------------------------------------------------------------- */

static Suite *imageio_suite(void)
{
    const h_test png[] = {H_LOOP(test_png_round_trip, H_COUNT(png_round_trips)),
                          H_TEST(test_png_rgb_from_four_channels),
                          H_TEST(test_png_u16_grey),
                          H_TEST(test_png_u16_rgba),
                          H_TEST(test_png_padded_stride),
                          H_TEST(test_png_palette),
                          H_TEST(test_png_grey_variants),
                          H_TEST(test_png_interlaced_u16),
                          H_TEST(test_png_truncated),
                          H_TEST(test_png_bad_crc),
                          H_TEST(test_png_huge_header),
                          H_TEST(test_png_level_setting),
                          H_TEST(test_png_levels),
                          H_TEST(test_png_level_6_is_libpng_default)};
    const h_test pnm[] = {H_LOOP(test_pnm_round_trip, H_COUNT(pnm_round_trips)),
                          H_TEST(test_pnm_written_bytes),
                          H_TEST(test_pgm_plain_with_comments),
                          H_TEST(test_ppm_plain_and_scaled_16bit),
                          H_TEST(test_pnm_bad),
                          H_TEST(test_pnm_huge_header)};
    const h_test jpeg[] = {H_TEST(test_jpeg_grey),
                           H_TEST(test_jpeg_colour),
                           H_TEST(test_jpeg_grey_alpha_drops_alpha),
                           H_TEST(test_jpeg_truncated),
                           H_TEST(test_jpeg_huge_header),
                           H_TEST(test_jpeg_cmyk),
                           H_TEST(test_jpeg_arith_without_data),
                           H_TEST(test_jpeg_no_scan_data),
                           H_TEST(test_jpeg_padding_does_not_count),
                           H_TEST(test_jpeg_lying_header),
                           H_TEST(test_jpeg_flat_images_pass),
                           H_TEST(test_jpeg_too_many_scans),
                           H_TEST(test_jpeg_cut_says_truncated),
                           H_TEST(test_jpeg_exif_orientation)};
    const h_test npy[] = {
        H_LOOP(test_npy_round_trip, (int)(sizeof(npy_types) / sizeof(npy_types[0]))),
        H_TEST(test_npy_versions), H_TEST(test_npy_unsupported), H_TEST(test_npy_corrupt),
        H_TEST(test_npy_bad_files)};
    const h_test files[] = {
        H_TEST(test_wrong_content),           H_TEST(test_read_directory_empty_missing),
        H_TEST(test_unknown_extension),       H_TEST(test_npy_by_extension),
        H_TEST(test_null_arguments),          H_TEST(test_write_unsupported),
        H_TEST(test_write_invalid_image),     H_TEST(test_colour_order),
        H_TEST(test_write_missing_folder),    H_TEST(test_write_failure_keeps_existing),
        H_TEST(test_write_replaces_existing), H_TEST(test_write_keeps_mode),
        H_TEST(test_commit_all_or_none)};
    Suite *s = suite_create("imageio");
    /* Generous timeouts: valgrind and sanitizers slow everything down. */
    h_tcase(s, "png", 120, png, H_COUNT(png));
    h_tcase(s, "pnm", 120, pnm, H_COUNT(pnm));
    h_tcase(s, "jpeg", 120, jpeg, H_COUNT(jpeg));
    h_tcase(s, "npy", 120, npy, H_COUNT(npy));
    h_tcase(s, "files", 120, files, H_COUNT(files));
    return s;
}

int main(void)
{
    root = h_tempdir();
    if (!root) {
        const char *tmp = getenv("TMPDIR");
        fprintf(stderr, "test_imageio: cannot create a folder under %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return EXIT_FAILURE;
    }
    /* The fork mode comes from CK_FORK (default: fork), so valgrind can run
     * everything in one process with CK_FORK=no. */
    SRunner *runner = srunner_create(imageio_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    h_rmtree(root);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

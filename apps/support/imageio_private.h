/* Shared pieces of the image file readers and writers. SPDX-License-Identifier: BSD-2-Clause */
#ifndef SUP_IMAGEIO_PRIVATE_H
#define SUP_IMAGEIO_PRIVATE_H

#include <stdint.h>
#include <stdio.h>

#include "imageio.h"

/* Largest image a reader accepts. Headers are checked against these before
 * any pixel memory is allocated, so that a tiny file cannot claim gigabytes. */
#define CLIKIO_MAX_DIM    (1 << 20)
#define CLIKIO_MAX_PIXELS ((uint64_t)1 << 28)

/* The most read from a stream that cannot seek (standard input, a pipe),
 * which is read whole before a reader sees it: the largest image the tool
 * takes at 8 bytes a pixel (16-bit RGBA, a 2-channel f32 flow: 2 GiB), and
 * 64 MiB for headers and a PNG's or JPEG's overhead. */
#define CLIKIO_MAX_STREAM (CLIKIO_MAX_PIXELS * 8 + ((uint64_t)64 << 20))

#if defined(__GNUC__)
#define CLIKIO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLIKIO_PRINTF(f, a)
#endif

/* Formats err (when there is room) and returns st, so that failures read
 * `return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: ...", path);`. */
clik_status clikio__fail(char *err, size_t errlen, clik_status st, const char *fmt, ...)
    CLIKIO_PRINTF(4, 5);

/* CLIK_ERR_FILE_FORMAT unless 0 < width, height <= CLIKIO_MAX_DIM and
 * width * height <= CLIKIO_MAX_PIXELS. kind names the format in the message. */
clik_status clikio__check_dims(const char *path, const char *kind, uint64_t width, uint64_t height,
                               char *err, size_t errlen);

int clikio__host_is_little_endian(void);

/* Opens path for reading. Directories and unreadable files give CLIK_ERR_IO,
 * an empty regular file CLIK_ERR_FILE_FORMAT. *size is the file size, or -1
 * when the file is not a regular file (a pipe). */
clik_status clikio__open_read(const char *path, FILE **fp, int64_t *size, char *err, size_t errlen);
/* clikio_read's body on an open, seekable stream of size bytes (-1:
 * unknown): the format by the first bytes, else by path's extension. */
clik_status clikio__read_stream(FILE *fp, int64_t size, const char *path, clik_image *img,
                                int *had_alpha, char *err, size_t errlen);

/* Bytes between the read position of fp and its end, or -1 when unknown. */
int64_t clikio__bytes_left(FILE *fp, int64_t size);

/* A format writer: writes img into fp, which the caller opened and will
 * close. Failures set err and return a status; the caller removes the file. */
typedef clik_status clikio_write_fn(FILE *fp, const char *path, const clik_image *img,
                                    int keep_alpha, char *err, size_t errlen);
typedef clikio_write_fn *clikio_writer;

/* The format readers get an open file positioned at its start; the caller
 * closes it and has cleared *img. They free *img themselves on failure. */
clik_status clikio__png_read(FILE *fp, const char *path, clik_image *img, int *had_alpha, char *err,
                             size_t errlen);
clik_status clikio__jpeg_read(FILE *fp, const char *path, clik_image *img, char *err,
                              size_t errlen);
/* The readers that also get the file size (-1 when unknown). */
typedef clik_status clikio_sized_read_fn(FILE *fp, int64_t size, const char *path, clik_image *img,
                                         char *err, size_t errlen);
clikio_sized_read_fn clikio__pnm_read;
clikio_sized_read_fn clikio__npy_read;
/* A 2-D .npy as clikio__npy_read reads it, a 3-D (P, H, W) as one channel of
 * P * H rows (its planes stacked). */
clikio_sized_read_fn clikio__npy_read_planes;
/* A .flo flow into a 2-channel f32 image; the size comes from the file, and
 * bytes after the vectors make it invalid. */
clikio_sized_read_fn clikio__flo_read;

/* clikio_read_yuv's body on an open stream of size bytes (-1: unknown). */
clik_status clikio__yuv_read(FILE *fp, int64_t size, const char *path, int width, int height,
                             int index, clik_image *img, int *frames, char *err, size_t errlen);
/* Format writers. The caller has checked that the type and channel count
 * suit the format. */
clikio_write_fn clikio__png_write;
clikio_write_fn clikio__jpeg_write;
/* P5 from 1 or 2 channels. */
clikio_write_fn clikio__pgm_write;
/* P6 from any channel count (grey is repeated into R, G and B). */
clikio_write_fn clikio__ppm_write;
clikio_write_fn clikio__npy_write;
/* From a 2-channel f32 image. */
clikio_write_fn clikio__flo_write;

#endif /* SUP_IMAGEIO_PRIVATE_H */

/* Shared pieces of the image file readers and writers. SPDX-License-Identifier: BSD-2-Clause */
#ifndef CLIK_IMAGEIO_PRIVATE_H
#define CLIK_IMAGEIO_PRIVATE_H

#include <stdint.h>
#include <stdio.h>

#include "imageio.h"

/* Largest image a reader accepts. Headers are checked against these before
 * any pixel memory is allocated, so that a tiny file cannot claim gigabytes. */
#define CLIKIO_MAX_DIM    (1 << 20)
#define CLIKIO_MAX_PIXELS ((uint64_t)1 << 28)

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

/* Bytes between the read position of fp and its end, or -1 when unknown. */
int64_t clikio__bytes_left(FILE *fp, int64_t size);

/* A format writer: writes img into fp, which the caller opened and will
 * close. Failures set err and return a status; the caller removes the file. */
typedef clik_status (*clikio_writer)(FILE *fp, const char *path, const clik_image *img,
                                     int keep_alpha, char *err, size_t errlen);

/* The format readers get an open file positioned at its start; the caller
 * closes it and has cleared *img. They free *img themselves on failure. */
clik_status clikio__png_read(FILE *fp, const char *path, clik_image *img, int *had_alpha, char *err,
                             size_t errlen);
clik_status clikio__jpeg_read(FILE *fp, const char *path, clik_image *img, char *err,
                              size_t errlen);
clik_status clikio__pnm_read(FILE *fp, int64_t size, const char *path, clik_image *img, char *err,
                             size_t errlen);
clik_status clikio__npy_read(FILE *fp, int64_t size, const char *path, clik_image *img, char *err,
                             size_t errlen);
/* A .flo flow into a 2-channel f32 image; the size comes from the file, and
 * bytes after the vectors make it invalid. */
clik_status clikio__flo_read(FILE *fp, int64_t size, const char *path, clik_image *img, char *err,
                             size_t errlen);

/* Format writers. The caller has checked that the type and channel count
 * suit the format. */
clik_status clikio__png_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen);
clik_status clikio__jpeg_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                               char *err, size_t errlen);
/* P5 from 1 or 2 channels. */
clik_status clikio__pgm_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen);
/* P6 from any channel count (grey is repeated into R, G and B). */
clik_status clikio__ppm_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen);
clik_status clikio__npy_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen);
/* From a 2-channel f32 image. */
clik_status clikio__flo_write(FILE *fp, const char *path, const clik_image *img, int keep_alpha,
                              char *err, size_t errlen);

#endif /* CLIK_IMAGEIO_PRIVATE_H */

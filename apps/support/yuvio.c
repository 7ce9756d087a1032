/*
 * Raw YUV 4:2:0 files (.yuv): frames of width * height * 3 / 2 bytes back
 * to back, each in OpenCV's layout (height rows of Y, then the chroma rows:
 * interleaved for NV12/NV21, a U plane and a V plane for I420). The file
 * says nothing of its size or format: the caller does. A file that is not a
 * whole number of frames (cut short) is refused.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _FILE_OFFSET_BITS 64
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "imageio_private.h"

/* Reads every frame of a stream that cannot seek, keeping frame `index`
 * in img; *frames counts them. */
static clik_status read_stream(FILE *fp, const char *path, size_t frame_bytes, int index,
                               clik_image *img, long long *frames, char *err, size_t errlen)
{
    uint8_t *skip = malloc(frame_bytes);
    if (!skip)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    long long n = 0;
    clik_status st = CLIK_OK;
    for (;;) {
        uint8_t *into = n == index ? img->data : skip;
        const size_t got = fread(into, 1, frame_bytes, fp);
        if (got == 0 && !ferror(fp))
            break;
        if (got < frame_bytes) {
            st = ferror(fp) ? clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path)
                            : clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                           "%s: frame %lld is cut short: %zu of its %zu bytes",
                                           path, n, got, frame_bytes);
            break;
        }
        n++;
    }
    free(skip);
    *frames = n;
    return st;
}

clik_status clikio__yuv_read(FILE *fp, int64_t size, const char *path, int width, int height,
                             int index, clik_image *img, int *frames, char *err, size_t errlen)
{
    memset(img, 0, sizeof(*img));
    const size_t frame_bytes = clik_yuv_size(width, height);
    if (frame_bytes == 0 || width > CLIKIO_MAX_DIM || height > CLIKIO_MAX_DIM ||
        (uint64_t)width * (uint64_t)height > CLIKIO_MAX_PIXELS)
        return clikio__fail(err, errlen, CLIK_ERR_INVALID_SIZE,
                            "%s: a 4:2:0 frame of %dx%d: width and height must be even, from 2 "
                            "to %d, and %llu pixels at most",
                            path, width, height, CLIKIO_MAX_DIM,
                            (unsigned long long)CLIKIO_MAX_PIXELS);
    if (index < 0)
        return clikio__fail(err, errlen, CLIK_ERR_INVALID_ARG, "%s: frame %d: frames count from 0",
                            path, index);
    long long n = -1;
    if (size >= 0) {
        if (size == 0 || (uint64_t)size % frame_bytes != 0)
            return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                "%s: %lld bytes are not a whole number of %dx%d 4:2:0 frames "
                                "(%zu bytes each): a wrong --size, or the file is cut short",
                                path, (long long)size, width, height, frame_bytes);
        n = (long long)((uint64_t)size / frame_bytes);
        if (index >= n)
            return clikio__fail(err, errlen, CLIK_ERR_INVALID_ARG,
                                "%s: frame %d asked for; the file holds %lld", path, index, n);
    }
    clik_status st = clik_image_alloc(img, width, height / 2 * 3, 1, CLIK_U8);
    if (st != CLIK_OK)
        return clikio__fail(err, errlen, st, "%s: out of memory for a %dx%d frame", path, width,
                            height);
    if (size >= 0) {
        if (fseeko(fp, (off_t)((uint64_t)index * frame_bytes), SEEK_SET) != 0 ||
            fread(img->data, 1, frame_bytes, fp) != frame_bytes)
            st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path);
    } else {
        st = read_stream(fp, path, frame_bytes, index, img, &n, err, errlen);
        if (st == CLIK_OK && index >= n)
            st = clikio__fail(err, errlen, n == 0 ? CLIK_ERR_FILE_FORMAT : CLIK_ERR_INVALID_ARG,
                              "%s: frame %d asked for; the stream holds %lld", path, index, n);
    }
    if (st != CLIK_OK) {
        clik_image_free(img);
        return st;
    }
    if (frames)
        *frames = n > 0x7fffffff ? 0x7fffffff : (int)n;
    return CLIK_OK;
}

clik_status clikio_read_yuv(const char *path, int width, int height, int index, clik_image *img,
                            int *frames, char *err, size_t errlen)
{
    if (!path || !img)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "clikio_read_yuv: NULL argument");
    memset(img, 0, sizeof(*img));
    FILE *fp;
    int64_t size;
    clik_status st = clikio__open_read(path, &fp, &size, err, errlen);
    if (st != CLIK_OK)
        return st;
    st = clikio__yuv_read(fp, size, path, width, height, index, img, frames, err, errlen);
    fclose(fp);
    return st;
}

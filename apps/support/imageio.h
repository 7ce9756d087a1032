/*
 * Image file input and output for the clik command-line tool and tests:
 * PNG, JPEG, PGM/PPM, NumPy .npy and Middlebury .flo optical flows.
 *
 * Every function returns a clik_status and, on failure, writes a one-line
 * message that names the file into err (when errlen > 0). Nothing is printed.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef SUP_IMAGEIO_H
#define SUP_IMAGEIO_H

#include <stddef.h>

#include "clik.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads PNG, JPEG or PGM/PPM chosen by the file extension (case-insensitive:
 * .png, .jpg, .jpeg, .pgm, .ppm, .pnm), a .npy as clikio_read_npy() reads it
 * (*had_alpha set for 2 and 4 channels), or a Middlebury .flo flow (tag
 * "PIEH", int32 width and height, then (u, v) float32 pairs, all little-endian)
 * as a 2-channel f32 image; its values are kept as they are, unknown vectors
 * (1e10 or NaN) too, and a .flo with bytes after its vectors is refused.
 * Grey -> 1 channel, grey+alpha -> 2 channels, RGB -> 4 channels with alpha at
 * the maximum (*had_alpha = 0), RGBA -> 4 channels (*had_alpha = 1).
 * 8-bit data -> CLIK_U8; 16-bit PNG and PGM/PPM with maxval > 255 -> CLIK_U16
 * in host byte order. PGM/PPM samples are scaled from 0..maxval to the full
 * range of the type. Palette PNGs are expanded; tRNS becomes alpha.
 * Headers are checked against the file before any pixel memory is taken:
 * JPEGs whose scans hold no coded data, whose coded data is too short for
 * the size they claim (comments and other segments do not count), with more
 * than 256 scans, or (arithmetic-coded, past about 4 megapixels) cheaper
 * than 1 byte of coded data per 256 8x8 blocks are refused, as are JPEG
 * warnings (a cut file, say). A stream that cannot seek ("-", standard
 * input, or a pipe) is read whole first: it is refused from its first bytes
 * when they name no format and path's extension names none, and as soon as
 * it passes 2 GiB and 64 MiB.
 * The image comes from clik_image_alloc(); free it with clik_image_free().
 * had_alpha may be NULL. On failure *img is cleared. */
clik_status clikio_read(const char *path, clik_image *img, int *had_alpha, char *err,
                        size_t errlen);

/* Frame `index` (from 0) of a raw YUV 4:2:0 file (.yuv): frames of
 * width x height pixels (both even) back to back, each in OpenCV's layout,
 * into a (height * 3 / 2) x width u8 image (clik_yuv_wrap() describes it
 * as a frame); *frames (may be NULL) gets their count. A file that is not
 * a whole number of frames is CLIK_ERR_FILE_FORMAT (cut short, or a wrong
 * size); a frame past the last CLIK_ERR_INVALID_ARG; sizes that are odd,
 * below 2 or past the readers' limits CLIK_ERR_INVALID_SIZE. A stream that
 * cannot seek is read to its end. On failure *img is cleared. */
clik_status clikio_read_yuv(const char *path, int width, int height, int index, clik_image *img,
                            int *frames, char *err, size_t errlen);
/* Writes by extension: u8 to every format, u16 to PNG and PGM/PPM, any type
 * to .npy (as clikio_write_npy(), but 4 channels without keep_alpha are
 * written as (H, W, 3)), 2-channel f32 (a flow) and nothing else to .flo.
 * 1 channel -> grey; 2 channels -> grey+alpha (PNG only; other formats drop
 * alpha); 4 channels -> RGBA when keep_alpha and the format is PNG, else RGB.
 * .pgm takes 1 or 2 channels only, .ppm writes grey as RGB, .pnm picks by the
 * channel count. JPEG quality is 95 with full-resolution chroma.
 * The file is written under a temporary name in the same folder and renamed:
 * on failure nothing is left at path and an existing file there is untouched.
 * So path may name the file img was read from. A file that path names keeps
 * its permission bits (read, write and execute of owner, group and others);
 * a new file gets 0666 less the umask. This is clikio_stage() and
 * clikio_commit() in one call.
 * img must be a host image; any valid stride is accepted. */
clik_status clikio_write(const char *path, const clik_image *img, int keep_alpha, char *err,
                         size_t errlen);

/* The PNG compression of every later write, 0..9, process-wide: set it
 * before writing, not while another thread writes. 0 stores the pixels
 * uncompressed (fastest, largest); 1, the default, is as fast as OpenCV's
 * cv2.imwrite (zlib's run-length strategy and the Average row filter);
 * 2..9 are zlib's levels with libpng's adaptive row filters, each slower
 * than the one before (6 is libpng's default, 5 to 10 times slower than 1),
 * smaller on drawings and synthetic images, not always on noisy photographs.
 * Another level gives CLIK_ERR_INVALID_ARG and changes nothing. */
#define CLIKIO_PNG_LEVEL_DEFAULT 1
clik_status clikio_set_png_level(int level);
int clikio_png_level(void);

/* Whether JPEG reads turn the image upright by its EXIF Orientation (1, the
 * default: as viewers show it; 0: the pixels as stored), process-wide, as
 * clikio_set_png_level(). */
void clikio_set_jpeg_orientation(int apply);

/* The colour order of the 3- and 4-channel arrays of later .npy reads and
 * writes (an array declares none): CLIK_ORDER_RGB, the default (the order
 * of image files), or CLIK_ORDER_BGR (arrays saved from OpenCV), which
 * reads swap into RGB(A) images and writes swap back; process-wide, as
 * clikio_set_png_level(). PNG, JPEG and PPM reads are RGB(A). Writes to
 * image files turn BGR(A) images into RGB(A) and write 3 channels as RGB;
 * .npy writes turn an image of the other order into this one. */
void clikio_set_npy_order(clik_order order);

/* 1 where path names standard output: "-" (PNG), or "EXT:-" with EXT one
 * of the extensions (png:-, ppm:-, pgm:-, jpg:-, npy:-, ...). Such an
 * output is written in full to a temporary file first and copied to
 * standard output by clikio_commit(), so a failure writes nothing there. */
int clikio_is_stdout(const char *path);

/* 1 where clikio_write() writes path as a NumPy .npy (".npy", "npy:-"). */
int clikio_writes_npy(const char *path);

/* A file written in full under a temporary name in the folder of its final
 * path, waiting there for clikio_commit() or clikio_discard(). Staging several
 * files first lets a caller put all of them in place, or none. */
typedef struct clikio_staged {
    char *path;     /* the final name */
    char *tmp_path; /* the complete file; NULL when nothing is staged */
} clikio_staged;

/* Writes img as clikio_write() does, but stops before the rename: the file is
 * complete and flushed to disk under its temporary name, and path itself is
 * not touched. On failure *staged is cleared and nothing is left. */
clik_status clikio_stage(const char *path, const clik_image *img, int keep_alpha,
                         clikio_staged *staged, char *err, size_t errlen);

/* Stages size bytes at data as the file path, as clikio_stage() stages an
 * image (a model file, say). */
clik_status clikio_stage_bytes(const char *path, const void *data, size_t size,
                               clikio_staged *staged, char *err, size_t errlen);

/* Renames the staged file to its path, replacing a file there. *staged is
 * cleared either way; on failure its temporary file is removed. */
clik_status clikio_commit(clikio_staged *staged, char *err, size_t errlen);

/* Removes the staged temporary file, if any, and clears *staged. Does nothing
 * for a cleared (never staged, committed or discarded) *staged. */
void clikio_discard(clikio_staged *staged);

/* Puts every staged file of staged[0..n) in place, or none. First every name
 * is checked as clikio_check_replaceable() checks it; then each file that a
 * name holds is kept under a hidden name in its folder (a second link where
 * the folder takes one, so that the name holds a file throughout) while the
 * staged file takes its place, and only once every file is in place are the
 * kept ones removed. On a failure each name gets back what it held (nothing,
 * where it held nothing), and err says where a kept file stays if one cannot
 * be put back. At most one entry may be for standard output; it is copied
 * there after every file is in place (what it writes cannot be taken back;
 * a failure there puts the files back). Every entry is cleared either way,
 * its temporary file removed. */
clik_status clikio_commit_all(clikio_staged *const *staged, size_t n, char *err, size_t errlen);

/* CLIK_OK unless path names something that a file written there could not
 * replace: a folder, or in a sticky folder (such as /tmp) a file that
 * belongs to another user, the folder too, and the process is not root's.
 * A name that holds nothing, and standard output, pass. */
clik_status clikio_check_replaceable(const char *path, char *err, size_t errlen);

/* Writes a NumPy .npy (format 1.0, C order, little-endian): shape (H, W) for
 * 1 channel, (H, W, C) otherwise. dtypes: u8 '|u1', s16 '<i2', u16 '<u2',
 * s32 '<i4', u32 '<u4', u64 '<u8', f16 '<f2', f32 '<f4', f64 '<f8'.
 * Same atomic write rule as clikio_write(). The extension is not checked. */
clik_status clikio_write_npy(const char *path, const clik_image *img, char *err, size_t errlen);

/* Reads a .npy (header versions 1.0, 2.0 and 3.0) of one of the dtypes above,
 * little-endian or '|', C order, shape (H, W) or (H, W, C) with C in {1, 2, 4}.
 * fortran_order, big-endian and other dtypes or shapes give
 * CLIK_ERR_UNSUPPORTED_FORMAT. The extension is not checked. */
clik_status clikio_read_npy(const char *path, clik_image *img, char *err, size_t errlen);

/* As clikio_read_npy, but a 3-D array (P, H, W) is read as P planes stacked:
 * one channel, P * H rows of W (the same bytes, C order), as a network's
 * (L, S*H, S*W) coefficients. 2-D arrays as clikio_read_npy. */
clik_status clikio_read_npy_planes(const char *path, clik_image *img, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* SUP_IMAGEIO_H */

/*
 * clik: camera frames in YUV 4:2:0 (NV12, NV21, I420) and their conversions
 * to and from RGB(A) and grey, with OpenCV's coefficients and rounding.
 * Included by clik.h. SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_YUV_H
#define CLIK_YUV_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* YUV family (kernels/yuv.cl)                                               */

/* The layout of a 4:2:0 frame: a full-size luma plane Y and chroma at half
 * the width and half the height, one U and one V sample per 2 x 2 pixels. */
typedef enum clik_yuv_format {
    CLIK_YUV_NV12 = 1, /* Y, then interleaved U V (most ISPs, video decoders) */
    CLIK_YUV_NV21 = 2, /* Y, then interleaved V U (Android's camera API) */
    CLIK_YUV_I420 = 3, /* Y, then a U plane, then a V plane (software codecs) */
} clik_yuv_format;

/*
 * A YUV 4:2:0 frame of width x height pixels (both even, at least 2): its
 * planes as images, each a host or a device image of its own (any strides,
 * any offsets inside one allocation or separate ones):
 *   y    width x height, 1 channel, u8;
 *   uv   NV12 and NV21: width / 2 x height / 2, 2 channels, u8 (U then V
 *        in NV12, V then U in NV21);
 *   u, v I420: width / 2 x height / 2, 1 channel, u8 each.
 * The planes a format does not use are ignored. The luma plane is a grey
 * image: every operation on grey images works on `y` in place of a copy
 * (clik_hist_equalize(ctx, &f.y, &f.y) equalizes a frame's brightness and
 * leaves its chroma as it is).
 */
typedef struct clik_yuv_image {
    clik_yuv_format format;
    clik_image y;
    clik_image uv;
    clik_image u, v;
} clik_yuv_image;

/*
 * Describes caller memory in OpenCV's layout of a 4:2:0 frame (a
 * (height * 3 / 2) x width u8 array): `height` rows of Y, `stride` bytes
 * apart (0: width), then for NV12 and NV21 height / 2 rows of interleaved
 * chroma at the same stride; for I420 a U plane then a V plane of
 * height / 2 rows of width / 2 bytes each, stride / 2 bytes apart (stride
 * even). CLIK_ERR_NULL for a NULL frame or data; CLIK_ERR_INVALID_ARG for an
 * unknown format; CLIK_ERR_INVALID_SIZE for a width or height that is odd,
 * below 2 or past the library's image limits; CLIK_ERR_STRIDE for a stride
 * below width (or odd, for I420); CLIK_ERR_OVERFLOW when the frame's bytes
 * do not fit a size_t. On failure *frame is untouched.
 */
CLIK_API clik_status clik_yuv_wrap(clik_yuv_image *frame, clik_yuv_format format, int width,
                                   int height, void *data, size_t stride);

/* Bytes of a frame in clik_yuv_wrap's layout with packed rows (stride =
 * width): width * height * 3 / 2; 0 for sizes clik_yuv_wrap refuses. */
CLIK_API size_t clik_yuv_size(int width, int height);

/* The colour space of the Y, U and V values. */
typedef enum clik_yuv_space {
    /* BT.601, video range (Y 16..235, U and V 16..240): OpenCV's
     * COLOR_YUV2RGB_NV21 and friends, and what Android cameras deliver. */
    CLIK_YUV_BT601 = 0,
    CLIK_YUV_BT601_FULL = 1, /* BT.601, full range (JPEG's YCbCr: Y, U, V 0..255) */
    CLIK_YUV_BT709 = 2,      /* BT.709 (HD video), video range */
    CLIK_YUV_BT709_FULL = 3, /* BT.709, full range */
} clik_yuv_space;

/*
 * dst = the RGB of frame src: dst u8 of the frame's size, 1 channel (the
 * luma plane itself, as OpenCV's COLOR_YUV2GRAY_420), 3 or 4 (RGB(A) or
 * BGR(A) as dst->order says; alpha 255). Each pixel takes the U and V of
 * its 2 x 2 block and, in 20-bit fixed point (coefficients c scaled by 2^20
 * and rounded),
 *   y' = max(0, Y - 16) * cy      (video range; full range: Y * 2^20)
 *   R = (y' + cvr (V - 128) + 2^19) >> 20
 *   G = (y' + cvg (V - 128) + cug (U - 128) + 2^19) >> 20
 *   B = (y' + cub (U - 128) + 2^19) >> 20
 * saturated to 0..255. CLIK_YUV_BT601 takes OpenCV's constants (1.164,
 * 1.596, -0.813, -0.391, 2.018) and gives cvtColor's bytes; the other
 * spaces their exact matrices. Status as any operation: CLIK_ERR_INVALID_ARG
 * for an unknown format or space, CLIK_ERR_INVALID_SIZE for an odd frame,
 * CLIK_ERR_SIZE_MISMATCH for planes or dst not of the frame's sizes,
 * CLIK_ERR_UNSUPPORTED_FORMAT for a plane or dst of another type or channel
 * count, CLIK_ERR_INVALID_ARG for dst sharing memory with a plane.
 */
CLIK_API clik_status clik_yuv_to_rgb(clik_context *ctx, const clik_yuv_image *src, clik_image *dst,
                                     clik_yuv_space space);

/*
 * Frame dst = the YUV of src (u8, 3 or 4 channels, src->order; alpha
 * ignored) of the frame's size: per pixel
 *   Y = (ry R + gy G + by B + 2^20 * 16 + 2^19) >> 20   (video range)
 * and per 2 x 2 block, from its top-left pixel as OpenCV's
 * COLOR_RGB2YUV_I420,
 *   U = (ru R + gu G + bu B + 2^20 * 128 + 2^19) >> 20
 *   V = (rv R + gv G + bv B + 2^20 * 128 + 2^19) >> 20
 * saturated to 0..255 (full range: no 16 and the full-range matrix).
 * CLIK_YUV_BT601 takes OpenCV's constants (0.257, 0.504, 0.098; -0.148,
 * -0.291, 0.439; 0.439, -0.368, -0.071) and gives cvtColor's bytes for
 * I420. Status as clik_yuv_to_rgb; planes that share memory with src or
 * with each other are refused (CLIK_ERR_INVALID_ARG).
 */
CLIK_API clik_status clik_rgb_to_yuv(clik_context *ctx, const clik_image *src, clik_yuv_image *dst,
                                     clik_yuv_space space);

/*
 * Frame dst = frame src resampled, plane by plane: the luma plane to dst's
 * size and each chroma plane to half of it, each by clik_resize with method
 * (interleaved U V planes resample both channels alike), so a plane's bytes
 * are those of clik_resize on it alone. src and dst of one format, any
 * sizes (even, at least 2); frames on the host or the device, or one of
 * each. Status as clik_yuv_to_rgb, and CLIK_ERR_INVALID_ARG for an unknown
 * method, frames of different formats, or a dst plane sharing memory with
 * any other plane. When a plane's resize fails, the planes before it are
 * already written.
 */
CLIK_API clik_status clik_yuv_resize(clik_context *ctx, const clik_yuv_image *src,
                                     clik_yuv_image *dst, clik_interp method);

/*
 * Frame dst = frame src upscaled by the LAPAR model: the luma plane by
 * clik_upscale_lapar (grey; model NULL: the default), each chroma plane by
 * clik_resize bicubic to scale times its size (the eye resolves chroma at
 * a fraction of luma's detail, and the model is trained on luma). dst of
 * src's format and scale times its size; scale 2 to 4, an entry of the
 * model. Status as clik_yuv_resize, and as clik_upscale_lapar for the scale
 * and the model.
 */
CLIK_API clik_status clik_yuv_upscale_lapar(clik_context *ctx, const clik_yuv_image *src,
                                            clik_yuv_image *dst, int scale,
                                            const clik_lapar_model *model);

/*
 * Frame dst = frame src upscaled by a LAPAR network: the luma plane by
 * clik_lapar_net_run as a grey image (the network sees it as R = G = B),
 * each chroma plane by clik_resize bicubic, as clik_yuv_upscale_lapar does
 * with the model; no RGB image is made. dst of src's format and the
 * network's scale times src's size (at least 2 x 2). Status as
 * clik_yuv_upscale_lapar, and CLIK_ERR_NULL for net NULL.
 */
CLIK_API clik_status clik_yuv_upscale_lapar_net(clik_context *ctx, const clik_yuv_image *src,
                                                clik_yuv_image *dst, const clik_lapar_net *net);

#ifdef __cplusplus
}
#endif
#endif /* CLIK_YUV_H */

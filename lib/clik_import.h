/*
 * clik: camera and decoder buffers wrapped as images without a copy where
 * the device allows it (host memory, dma-buf and ION file descriptors).
 * Included by clik.h. SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_IMPORT_H
#define CLIK_IMPORT_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Import of external memory (lib/import.c)                                  */

/* What a clik_import_desc describes. */
typedef enum clik_import_kind {
    CLIK_IMPORT_HOST = 1,   /* host memory at `ptr` */
    CLIK_IMPORT_DMABUF = 2, /* a dma-buf file descriptor (any fd that mmap accepts, such as a
                               memfd, is taken alike) */
    CLIK_IMPORT_ION = 3,    /* an ION buffer's file descriptor */
} clik_import_kind;

/* How the kernels reach an imported image. */
typedef enum clik_import_path {
    CLIK_IMPORT_PATH_NONE = 0,     /* not an imported image */
    CLIK_IMPORT_PATH_HOST_VIEW,    /* a context without a device: the memory is the image */
    CLIK_IMPORT_PATH_ARM,          /* cl_arm_import_memory (clImportMemoryARM), no copy */
    CLIK_IMPORT_PATH_QCOM,         /* cl_qcom_ext_host_ptr with cl_qcom_ion_host_ptr or
                                      cl_qcom_dmabuf_host_ptr, no copy */
    CLIK_IMPORT_PATH_USE_HOST_PTR, /* a buffer made once with CL_MEM_USE_HOST_PTR */
    CLIK_IMPORT_PATH_COPY,         /* a device copy made and brought back by each operation
                                      (named in the log at the debug level) */
} clik_import_path;

#define CLIK_IMPORT_READ_ONLY 1u /* clik_import_desc.flags: operations only read the image */

/*
 * External memory holding an image of width x height pixels of `channels`
 * (1..4) elements of `type`, rows `stride` bytes apart (0: packed). The
 * image's first byte is at `ptr` (CLIK_IMPORT_HOST) or `offset` bytes into
 * the buffer of `fd` (CLIK_IMPORT_DMABUF, CLIK_IMPORT_ION); `size` is the
 * bytes available from there (HOST) or in the whole buffer from its start
 * (fd kinds), at least the image's last byte.
 */
typedef struct clik_import_desc {
    clik_import_kind kind;
    void *ptr;     /* HOST: the first pixel */
    int fd;        /* DMABUF, ION: the buffer (the library keeps a duplicate of its own) */
    size_t offset; /* DMABUF, ION: bytes from the buffer's start to the first pixel */
    size_t size;   /* see above */
    int width, height, channels;
    clik_type type;
    size_t stride;  /* bytes between rows; 0: width * channels * element size */
    unsigned flags; /* CLIK_IMPORT_READ_ONLY or 0 */
} clik_import_desc;

/* Fills *desc with zeros and fd -1. */
CLIK_API void clik_import_desc_init(clik_import_desc *desc);

/*
 * Wraps the memory that desc describes as an image of ctx, without a copy
 * where the device allows it; operations take it as they take a device
 * image of ctx, and write their results into that memory. The path is
 * chosen in this order:
 *   - without a device: the memory itself (CLIK_IMPORT_PATH_HOST_VIEW;
 *     file descriptors mapped);
 *   - a dma-buf or ION fd with offset 0: clImportMemoryARM of the fd where
 *     the device lists cl_arm_import_memory_dma_buf; else on a device that
 *     lists cl_qcom_ext_host_ptr and cl_qcom_dmabuf_host_ptr (dma-buf) or
 *     cl_qcom_ion_host_ptr (ION), a buffer over the fd and its mapping;
 *   - host memory (or an fd's mapping) whose first pixel and stride are
 *     multiples of the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN:
 *     clImportMemoryARM where cl_arm_import_memory_host is listed, else a
 *     CL_MEM_USE_HOST_PTR buffer;
 *   - otherwise a copy per operation (CLIK_IMPORT_PATH_COPY).
 * Where an extension's call fails, the next path is taken (logged).
 * File descriptors are mapped (read-only with CLIK_IMPORT_READ_ONLY) and
 * each operation's use of the mapping is bracketed by DMA_BUF_IOCTL_SYNC
 * start and end (an fd that is not a dma-buf, such as a memfd, skips them).
 * The caller keeps its fd and memory; the memory must outlive the image.
 * Free the image with clik_image_free() before destroying ctx: it unmaps
 * and releases what the import made; the memory itself is left as it is.
 * Images imported twice over the same memory are not seen as overlapping
 * by the operations' checks.
 * Status: CLIK_ERR_NULL for a NULL ctx, desc or out, or a NULL ptr;
 * CLIK_ERR_INVALID_ARG for an unknown kind, fd < 0, unknown flags, a first
 * pixel (ptr, or offset) that is not a multiple of the element size, or
 * memory too small for the image (size below offset + its last byte);
 * CLIK_ERR_INVALID_SIZE, CLIK_ERR_UNSUPPORTED_FORMAT, CLIK_ERR_STRIDE and
 * CLIK_ERR_OVERFLOW as clik_image_wrap; CLIK_ERR_IO when the fd cannot be
 * duplicated or mapped. On failure *out is cleared.
 * An operation that would write a read-only import fails with
 * CLIK_ERR_READ_ONLY.
 */
CLIK_API clik_status clik_image_import(clik_context *ctx, const clik_import_desc *desc,
                                       clik_image *out);

/*
 * A YUV 4:2:0 frame in clik_yuv_wrap's layout (OpenCV's: Y rows, then the
 * chroma rows at the same stride, or for I420 the U then the V plane at
 * half the stride) imported as clik_image_import imports an image: desc
 * gives the memory, width, height and stride of the frame (channels and
 * type 0, or 1 and CLIK_U8), and each plane is imported on its own, so
 * each takes the path its own start allows (an fd's chroma planes, which
 * start past offset 0, never take the fd extensions). Free each plane the
 * format uses with clik_image_free(). Status as clik_image_import and
 * clik_yuv_wrap (CLIK_ERR_INVALID_ARG for channels or type not those of a
 * frame); on failure nothing is left imported and *frame is cleared.
 */
CLIK_API clik_status clik_yuv_import(clik_context *ctx, const clik_import_desc *desc,
                                     clik_yuv_format format, clik_yuv_image *frame);

/* The path an image from clik_image_import or clik_yuv_import took;
 * CLIK_IMPORT_PATH_NONE for NULL and for every other image. */
CLIK_API clik_import_path clik_image_import_path(const clik_image *img);

/* "host-view", "arm", "qcom", "use-host-ptr", "copy", "none" for
 * CLIK_IMPORT_PATH_NONE, and "unknown" for other values. */
CLIK_API const char *clik_import_path_name(clik_import_path path);

#ifdef __cplusplus
}
#endif
#endif /* CLIK_IMPORT_H */

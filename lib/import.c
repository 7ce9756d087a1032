/*
 * Imported memory (clik_image_import, clik_yuv_import): host memory and
 * dma-buf or ION file descriptors wrapped as images of a context, through
 * cl_arm_import_memory, cl_qcom_ext_host_ptr, CL_MEM_USE_HOST_PTR or a copy
 * per operation; without a device the memory itself. Each operation's use
 * of an fd's mapping is bracketed by DMA_BUF_IOCTL_SYNC.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* ---- the extensions' definitions, from their specifications ------------------ */

/* cl_arm_import_memory (OpenCL extension #38) and its type strings
 * cl_arm_import_memory_host and cl_arm_import_memory_dma_buf. */
typedef intptr_t clik_import_properties_arm;
typedef cl_mem(CL_API_CALL *clik_import_memory_arm_fn)(cl_context context, cl_mem_flags flags,
                                                       const clik_import_properties_arm *properties,
                                                       void *memory, size_t size,
                                                       cl_int *errcode_ret);
#define CLIK_CL_IMPORT_TYPE_ARM         0x40B2
#define CLIK_CL_IMPORT_TYPE_HOST_ARM    0x40B3
#define CLIK_CL_IMPORT_TYPE_DMA_BUF_ARM 0x40B4

/* cl_qcom_ext_host_ptr with cl_qcom_ion_host_ptr, cl_qcom_dmabuf_host_ptr
 * and cl_qcom_ext_host_ptr_iocoherent. */
#define CLIK_CL_MEM_EXT_HOST_PTR_QCOM       (1u << 29)
#define CLIK_CL_DEVICE_EXT_MEM_PADDING_QCOM 0x40A0
#define CLIK_CL_DEVICE_PAGE_SIZE_QCOM       0x40A1
#define CLIK_CL_MEM_HOST_UNCACHED_QCOM      0x40A4
#define CLIK_CL_MEM_ION_HOST_PTR_QCOM       0x40A8
#define CLIK_CL_MEM_HOST_IOCOHERENT_QCOM    0x40A9
#define CLIK_CL_MEM_DMABUF_HOST_PTR_QCOM    0x411D
typedef struct clik_qcom_ext_host_ptr {
    cl_uint allocation_type;
    cl_uint host_cache_policy;
} clik_qcom_ext_host_ptr;
/* cl_mem_ion_host_ptr and cl_mem_dmabuf_host_ptr have this one layout. */
typedef struct clik_qcom_fd_host_ptr {
    clik_qcom_ext_host_ptr ext_host_ptr;
    int filedesc;
    void *hostptr;
} clik_qcom_fd_host_ptr;

/* DMA_BUF_IOCTL_SYNC of <linux/dma-buf.h>. */
struct clik_dma_buf_sync {
    uint64_t flags;
};
#define CLIK_DMA_BUF_SYNC_READ  1u
#define CLIK_DMA_BUF_SYNC_WRITE 2u
#define CLIK_DMA_BUF_SYNC_END   4u
#define CLIK_DMA_BUF_IOCTL_SYNC _IOW('b', 0, struct clik_dma_buf_sync)
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/dma-buf.h>)
#include <linux/dma-buf.h>
_Static_assert(CLIK_DMA_BUF_IOCTL_SYNC == DMA_BUF_IOCTL_SYNC &&
                   CLIK_DMA_BUF_SYNC_READ == DMA_BUF_SYNC_READ &&
                   CLIK_DMA_BUF_SYNC_WRITE == DMA_BUF_SYNC_WRITE &&
                   CLIK_DMA_BUF_SYNC_END == DMA_BUF_SYNC_END,
               "DMA_BUF_IOCTL_SYNC as <linux/dma-buf.h> defines it");
#endif
#endif

/* ---- the choice of a path ------------------------------------------------------ */

int clik__has_extension(const char *extensions, const char *name)
{
    const size_t n = strlen(name);
    if (!extensions || n == 0)
        return 0;
    for (const char *p = extensions; (p = strstr(p, name)) != NULL; p += n) {
        const int starts = p == extensions || p[-1] == ' ';
        const int ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends)
            return 1;
    }
    return 0;
}

clik_import_path clik__import_select(const char *extensions, size_t base_align,
                                     clik_import_kind kind, uintptr_t address, size_t pitch,
                                     size_t offset, int read_only)
{
    (void)read_only; /* the buffer's flags, not the path */
    if (!extensions)
        return CLIK_IMPORT_PATH_HOST_VIEW;
    const size_t a = base_align ? base_align : 1;
    const int aligned = address % a == 0 && pitch % a == 0;
    const int fd = kind == CLIK_IMPORT_DMABUF || kind == CLIK_IMPORT_ION;
    const int arm = clik__has_extension(extensions, "cl_arm_import_memory");
    if (fd && offset == 0) {
        if (arm && clik__has_extension(extensions, "cl_arm_import_memory_dma_buf"))
            return CLIK_IMPORT_PATH_ARM;
        const char *qcom_type =
            kind == CLIK_IMPORT_ION ? "cl_qcom_ion_host_ptr" : "cl_qcom_dmabuf_host_ptr";
        if (clik__has_extension(extensions, "cl_qcom_ext_host_ptr") &&
            clik__has_extension(extensions, qcom_type))
            return CLIK_IMPORT_PATH_QCOM;
    }
    if (!aligned)
        return CLIK_IMPORT_PATH_COPY;
    if (arm && clik__has_extension(extensions, "cl_arm_import_memory_host"))
        return CLIK_IMPORT_PATH_ARM;
    return CLIK_IMPORT_PATH_USE_HOST_PTR;
}

const char *clik_import_path_name(clik_import_path path)
{
    switch (path) {
    case CLIK_IMPORT_PATH_NONE: return "none";
    case CLIK_IMPORT_PATH_HOST_VIEW: return "host-view";
    case CLIK_IMPORT_PATH_ARM: return "arm";
    case CLIK_IMPORT_PATH_QCOM: return "qcom";
    case CLIK_IMPORT_PATH_USE_HOST_PTR: return "use-host-ptr";
    case CLIK_IMPORT_PATH_COPY: return "copy";
    }
    return "unknown";
}

clik_import_path clik_image_import_path(const clik_image *img)
{
    if (!img || !img->buffer || !img->buffer->import)
        return CLIK_IMPORT_PATH_NONE;
    return img->buffer->import->path;
}

void clik_import_desc_init(clik_import_desc *desc)
{
    if (!desc)
        return;
    memset(desc, 0, sizeof(*desc));
    desc->fd = -1;
}

/* ---- DMA_BUF_IOCTL_SYNC brackets --------------------------------------------- */

static uint64_t sync_flags(int access)
{
    uint64_t f = 0;
    if (access & CLIK_READ)
        f |= CLIK_DMA_BUF_SYNC_READ;
    if (access & (CLIK_WRITE | CLIK_KERNEL_RW))
        f |= CLIK_DMA_BUF_SYNC_WRITE;
    return f ? f : CLIK_DMA_BUF_SYNC_READ;
}

/* Starts (end 0) or ends a use of an fd's mapping. An fd that is not a
 * dma-buf (ENOTTY), or a system that does not pass the ioctl on (ENOSYS:
 * qemu-user, say), is not asked again. */
static clik_status dma_sync(clik_context *ctx, clik_import *im, int access, int end)
{
    if (!im->sync)
        return CLIK_OK;
    struct clik_dma_buf_sync s = {sync_flags(access) | (end ? CLIK_DMA_BUF_SYNC_END : 0)};
    int r;
    do
        r = ioctl(im->fd, CLIK_DMA_BUF_IOCTL_SYNC, &s);
    while (r != 0 && (errno == EINTR || errno == EAGAIN));
    if (r == 0)
        return CLIK_OK;
    if (errno == ENOTTY || errno == ENOSYS) {
        im->sync = 0;
        return CLIK_OK;
    }
    return clik__fail(ctx, CLIK_ERR_IO, "DMA_BUF_IOCTL_SYNC %s: %s", end ? "end" : "start",
                      strerror(errno));
}

static clik_status refuse_write(clik_context *ctx, const clik_image *img)
{
    return clik__fail(ctx, CLIK_ERR_READ_ONLY,
                      "an image imported read-only (%dx%d, %s path) cannot be written", img->width,
                      img->height, clik_import_path_name(img->buffer->import->path));
}

/* ---- making the buffer of a path ------------------------------------------------ */

static char *device_extensions(clik_context *ctx)
{
    size_t need = 0;
    if (ctx->cl->clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &need) != CL_SUCCESS)
        need = 0;
    char *ext = calloc(need + 1, 1);
    if (ext && need > 0 &&
        ctx->cl->clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, need, ext, NULL) != CL_SUCCESS)
        ext[0] = '\0';
    return ext;
}

static size_t device_base_align(clik_context *ctx)
{
    cl_uint bits = 0;
    if (ctx->cl->clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(bits), &bits,
                                 NULL) != CL_SUCCESS)
        bits = 0;
    return bits >= 8 ? bits / 8 : 1;
}

static size_t device_size_info(clik_context *ctx, cl_uint param)
{
    size_t v = 0;
    if (ctx->cl->clGetDeviceInfo(ctx->device, param, sizeof(v), &v, NULL) != CL_SUCCESS)
        return 0;
    return v;
}

static cl_mem_flags access_flags(const clik_import *im)
{
    return im->read_only ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
}

/* clImportMemoryARM of the fd (offset 0) or of the host memory. */
static cl_mem make_arm(clik_context *ctx, clik_import *im, size_t span, const char **why)
{
    void *fn = NULL;
    if (ctx->cl->clGetExtensionFunctionAddressForPlatform)
        fn = ctx->cl->clGetExtensionFunctionAddressForPlatform(ctx->platform, "clImportMemoryARM");
    if (!fn) {
        *why = "clImportMemoryARM is not found";
        return NULL;
    }
    clik_import_memory_arm_fn import;
    memcpy(&import, &fn, sizeof(fn));
    const int fd = im->kind != CLIK_IMPORT_HOST;
    const clik_import_properties_arm props[] = {
        CLIK_CL_IMPORT_TYPE_ARM,
        fd ? CLIK_CL_IMPORT_TYPE_DMA_BUF_ARM : CLIK_CL_IMPORT_TYPE_HOST_ARM, 0};
    cl_int err = CL_SUCCESS;
    /* A dma-buf is named by a pointer to its fd; host memory by itself. */
    cl_mem mem = import(ctx->clctx, access_flags(im), props, fd ? (void *)&im->fd : im->host,
                        fd ? im->map_bytes : span, &err);
    if (!mem || err != CL_SUCCESS) {
        *why = clik__cl_error_name(err);
        return NULL;
    }
    return mem;
}

/* A buffer over the fd and its mapping (cl_qcom_ion_host_ptr or
 * cl_qcom_dmabuf_host_ptr), when the mapping starts on the device's page
 * and holds the padding the device asks past the image. */
static cl_mem make_qcom(clik_context *ctx, clik_import *im, const char *ext, size_t span,
                        const char **why)
{
    const size_t page = device_size_info(ctx, CLIK_CL_DEVICE_PAGE_SIZE_QCOM);
    const size_t pad = device_size_info(ctx, CLIK_CL_DEVICE_EXT_MEM_PADDING_QCOM);
    if (page > 1 && (uintptr_t)im->map % page != 0) {
        *why = "the mapping is not on the device's page";
        return NULL;
    }
    if (pad > im->map_bytes || span > im->map_bytes - pad) {
        *why = "the buffer lacks the device's padding";
        return NULL;
    }
    clik_qcom_fd_host_ptr p;
    memset(&p, 0, sizeof(p));
    p.ext_host_ptr.allocation_type = im->kind == CLIK_IMPORT_ION ? CLIK_CL_MEM_ION_HOST_PTR_QCOM
                                                                 : CLIK_CL_MEM_DMABUF_HOST_PTR_QCOM;
    p.ext_host_ptr.host_cache_policy = clik__has_extension(ext, "cl_qcom_ext_host_ptr_iocoherent")
                                           ? CLIK_CL_MEM_HOST_IOCOHERENT_QCOM
                                           : CLIK_CL_MEM_HOST_UNCACHED_QCOM;
    p.filedesc = im->fd;
    p.hostptr = im->map;
    cl_int err = CL_SUCCESS;
    cl_mem mem = ctx->cl->clCreateBuffer(
        ctx->clctx, access_flags(im) | CL_MEM_USE_HOST_PTR | CLIK_CL_MEM_EXT_HOST_PTR_QCOM, span,
        &p, &err);
    if (!mem || err != CL_SUCCESS) {
        *why = clik__cl_error_name(err);
        return NULL;
    }
    return mem;
}

static cl_mem make_use_host_ptr(clik_context *ctx, clik_import *im, size_t span, const char **why)
{
    cl_int err = CL_SUCCESS;
    cl_mem mem = ctx->cl->clCreateBuffer(ctx->clctx, access_flags(im) | CL_MEM_USE_HOST_PTR, span,
                                         im->host, &err);
    if (!mem || err != CL_SUCCESS) {
        *why = clik__cl_error_name(err);
        return NULL;
    }
    return mem;
}

/* Chooses the path on ctx's device and makes its buffer; a path whose call
 * fails gives way to the next (logged). */
static clik_status choose_path(clik_context *ctx, clik_import *im, const clik_image *img,
                               size_t span, size_t offset, cl_mem *mem)
{
    *mem = NULL;
    if (!ctx->has_device) {
        im->path = CLIK_IMPORT_PATH_HOST_VIEW;
        return CLIK_OK;
    }
    char *ext = device_extensions(ctx);
    if (!ext)
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    const size_t align = device_base_align(ctx);
    im->path = clik__import_select(ext, align, im->kind, (uintptr_t)im->host, img->stride, offset,
                                   im->read_only);
    const int aligned = (uintptr_t)im->host % align == 0 && img->stride % align == 0;
    while (im->path != CLIK_IMPORT_PATH_COPY) {
        const char *why = "";
        if (span > ctx->dev.max_alloc_size)
            why = "the image is larger than the device's largest allocation";
        else if (im->path == CLIK_IMPORT_PATH_ARM)
            *mem = make_arm(ctx, im, span, &why);
        else if (im->path == CLIK_IMPORT_PATH_QCOM)
            *mem = make_qcom(ctx, im, ext, span, &why);
        else
            *mem = make_use_host_ptr(ctx, im, span, &why);
        if (*mem)
            break;
        clik__log(ctx, CLIK_LOG_DEBUG, "clik: import through %s failed (%s)",
                  clik_import_path_name(im->path), why);
        im->path = im->path != CLIK_IMPORT_PATH_USE_HOST_PTR && aligned
                       ? CLIK_IMPORT_PATH_USE_HOST_PTR
                       : CLIK_IMPORT_PATH_COPY;
    }
    free(ext);
    if (im->path == CLIK_IMPORT_PATH_COPY)
        clik__log(ctx, CLIK_LOG_DEBUG,
                  "clik: imported image %dx%d at %p (stride %zu) is copied for each operation: "
                  "no path without a copy (device alignment %zu bytes)",
                  img->width, img->height, (void *)im->host, img->stride, align);
    return CLIK_OK;
}

/* ---- clik_image_import ------------------------------------------------------------ */

static void import_free(clik_import *im)
{
    if (im->map)
        munmap(im->map, im->map_bytes);
    if (im->fd >= 0)
        close(im->fd);
    free(im);
}

void clik__import_release(struct clik_buffer *b)
{
    if (b->mem)
        clik__release_after_queue(b->ctx, b->mem);
    import_free(b->import);
    free(b);
}

static const char *kind_name(clik_import_kind kind)
{
    return kind == CLIK_IMPORT_HOST ? "host" : kind == CLIK_IMPORT_DMABUF ? "dma-buf" : "ION";
}

clik_status clik_image_import(clik_context *ctx, const clik_import_desc *desc, clik_image *out)
{
    if (out)
        memset(out, 0, sizeof(*out));
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!desc || !out)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_image_import: desc or out is NULL");
    const clik_import_kind kind = desc->kind;
    if (kind != CLIK_IMPORT_HOST && kind != CLIK_IMPORT_DMABUF && kind != CLIK_IMPORT_ION)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_image_import: unknown kind %d",
                          (int)kind);
    if (desc->flags & ~CLIK_IMPORT_READ_ONLY)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_image_import: unknown flags 0x%x",
                          desc->flags);
    if (kind == CLIK_IMPORT_HOST && !desc->ptr)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_image_import: host memory at NULL");
    if (kind != CLIK_IMPORT_HOST && desc->fd < 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "clik_image_import: %s fd %d", kind_name(kind),
                          desc->fd);
    size_t stride = desc->stride, row, span;
    if (stride == 0 && desc->width > 0 && desc->width <= CLIK_MAX_DIM && desc->channels >= 1 &&
        desc->channels <= 4)
        stride = (size_t)desc->width * (size_t)desc->channels * clik_type_size(desc->type);
    clik_status st = clik__image_layout(desc->width, desc->height, desc->channels, desc->type,
                                        stride, &row, &span);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_image_import: %dx%dx%d %s, stride %zu: %s", desc->width,
                          desc->height, desc->channels, clik_type_name(desc->type), stride,
                          clik_status_str(st));
    const size_t offset = kind == CLIK_IMPORT_HOST ? 0 : desc->offset;
    const uintptr_t first = kind == CLIK_IMPORT_HOST ? (uintptr_t)desc->ptr : offset;
    if (first % clik_type_size(desc->type) != 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_image_import: the first pixel (%s %#zx) is not a multiple of the "
                          "%s element size",
                          kind == CLIK_IMPORT_HOST ? "address" : "offset", (size_t)first,
                          clik_type_name(desc->type));
    if (offset > desc->size || desc->size - offset < span)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_image_import: %zu bytes of %s memory%s, the image needs %zu%s",
                          desc->size, kind_name(kind), kind == CLIK_IMPORT_HOST ? "" : " in all",
                          span, kind == CLIK_IMPORT_HOST ? "" : " past its offset");

    clik_import *im = calloc(1, sizeof(*im));
    struct clik_buffer *b = calloc(1, sizeof(*b));
    if (!im || !b) {
        free(im);
        free(b);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    }
    im->kind = kind;
    im->read_only = (desc->flags & CLIK_IMPORT_READ_ONLY) != 0;
    im->fd = -1;
    if (kind == CLIK_IMPORT_HOST) {
        im->host = desc->ptr;
    } else {
        im->fd = fcntl(desc->fd, F_DUPFD_CLOEXEC, 0);
        if (im->fd < 0) {
            st = clik__fail(ctx, CLIK_ERR_IO, "clik_image_import: fd %d: %s", desc->fd,
                            strerror(errno));
            goto fail;
        }
        const int prot = im->read_only ? PROT_READ : PROT_READ | PROT_WRITE;
        void *map = mmap(NULL, desc->size, prot, MAP_SHARED, im->fd, 0);
        if (map == MAP_FAILED) {
            st = clik__fail(ctx, CLIK_ERR_IO, "clik_image_import: mmap of %s fd %d (%zu bytes): %s",
                            kind_name(kind), desc->fd, desc->size, strerror(errno));
            goto fail;
        }
        im->map = map;
        im->map_bytes = desc->size;
        im->host = (unsigned char *)map + offset;
        im->sync = 1;
    }
    clik_image img = {desc->width, desc->height,  desc->channels, desc->type, stride, NULL, NULL,
                      0,           CLIK_ORDER_RGB};
    cl_mem mem = NULL;
    st = choose_path(ctx, im, &img, span, offset, &mem);
    if (st != CLIK_OK)
        goto fail;
    b->ctx = ctx;
    b->mem = mem;
    b->host = im->host;
    b->bytes = span;
    b->import = im;
    img.buffer = b;
    *out = img;
    clik__log(ctx, CLIK_LOG_DEBUG, "clik: imported %s memory %dx%dx%d %s through %s",
              kind_name(kind), img.width, img.height, img.channels, clik_type_name(img.type),
              clik_import_path_name(im->path));
    (void)row;
    return CLIK_OK;
fail:
    import_free(im);
    free(b);
    return st;
}

/* ---- clik_yuv_import ------------------------------------------------------------- */

clik_status clik_yuv_import(clik_context *ctx, const clik_import_desc *desc, clik_yuv_format format,
                            clik_yuv_image *frame)
{
    if (frame)
        memset(frame, 0, sizeof(*frame));
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!desc || !frame)
        return clik__fail(ctx, CLIK_ERR_NULL, "clik_yuv_import: desc or frame is NULL");
    if (!((desc->channels == 0 && desc->type == 0) ||
          (desc->channels == 1 && desc->type == CLIK_U8)))
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG,
                          "clik_yuv_import: a frame is 1 channel of u8 (or 0 and 0), not %d of %s",
                          desc->channels, clik_type_name(desc->type));
    /* The planes' layout as clik_yuv_wrap makes it, as offsets. */
    const char *name = format == CLIK_YUV_NV12   ? "NV12"
                       : format == CLIK_YUV_NV21 ? "NV21"
                       : format == CLIK_YUV_I420 ? "I420"
                                                 : NULL;
    const int w = desc->width, h = desc->height;
    const size_t stride = desc->stride ? desc->stride : (size_t)(w > 0 ? w : 0);
    clik_status st = CLIK_OK;
    if (!name)
        st = CLIK_ERR_INVALID_ARG;
    else if (clik_yuv_size(w, h) == 0)
        st = CLIK_ERR_INVALID_SIZE;
    else if (stride < (size_t)w || (format == CLIK_YUV_I420 && stride % 2 != 0))
        st = CLIK_ERR_STRIDE;
    else if ((size_t)h > SIZE_MAX / 2 / stride)
        st = CLIK_ERR_OVERFLOW;
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_yuv_import: %s frame %dx%d, stride %zu: %s",
                          name ? name : "unknown format", w, h, desc->stride, clik_status_str(st));
    const size_t chroma = (size_t)h * stride, cstride = stride / 2;
    const int i420 = format == CLIK_YUV_I420;
    /* width, height, channels, stride, offset of each plane */
    const struct {
        int w, h, ch;
        size_t stride, off;
    } planes[3] = {
        {w, h, 1, stride, 0},
        {w / 2, h / 2, i420 ? 1 : 2, i420 ? cstride : stride, chroma},
        {w / 2, h / 2, 1, cstride, chroma + (size_t)(h / 2) * cstride},
    };
    clik_yuv_image got;
    memset(&got, 0, sizeof(got));
    got.format = format;
    clik_image *dst[3] = {&got.y, i420 ? &got.u : &got.uv, &got.v};
    for (int i = 0; i < (i420 ? 3 : 2); i++) {
        const size_t off = planes[i].off;
        clik_import_desc d = *desc;
        d.width = planes[i].w;
        d.height = planes[i].h;
        d.channels = planes[i].ch;
        d.type = CLIK_U8;
        d.stride = planes[i].stride;
        if (desc->kind == CLIK_IMPORT_HOST) {
            d.ptr = desc->ptr ? (unsigned char *)desc->ptr + off : NULL;
            d.size = desc->size > off ? desc->size - off : 0;
        } else {
            d.offset = desc->offset > SIZE_MAX - off ? SIZE_MAX : desc->offset + off;
        }
        st = clik_image_import(ctx, &d, dst[i]);
        if (st != CLIK_OK) {
            for (int j = 0; j < i; j++)
                clik_image_free(dst[j]);
            return st;
        }
    }
    *frame = got;
    return CLIK_OK;
}

/* ---- operations on imported images ------------------------------------------------- */

clik_status clik__import_bind(clik_context *ctx, const clik_image *img, int access, clik_binding *b)
{
    clik_import *im = img->buffer->import;
    if (im->read_only && (access & (CLIK_WRITE | CLIK_KERNEL_RW)))
        return refuse_write(ctx, img);
    /* clik__bind has laid out b and checked the stride. */
    b->base_aligned = 0;
    clik_status st = dma_sync(ctx, im, access, 0);
    if (st != CLIK_OK)
        return st;
    b->import = im;
    if (img->buffer->mem) {
        b->mem = img->buffer->mem;
        b->mapped_host = 1;
        b->base_aligned = im->path == CLIK_IMPORT_PATH_ARM && im->kind != CLIK_IMPORT_HOST
                              ? 1
                              : (uintptr_t)im->host % 16 == 0;
        if (access & CLIK_READ) {
            /* The host may have written the memory since the last use. */
            cl_int err;
            void *p = ctx->cl->clEnqueueMapBuffer(ctx->queue, b->mem, CL_FALSE,
                                                  CL_MAP_WRITE_INVALIDATE_REGION, 0, b->span, 0,
                                                  NULL, NULL, &err);
            if (!p || err != CL_SUCCESS) {
                st = clik__fail_cl(ctx, err, "clEnqueueMapBuffer");
                dma_sync(ctx, im, access, 1);
                b->mem = NULL;
                return st;
            }
            ctx->cl->clEnqueueUnmapMemObject(ctx->queue, b->mem, p, 0, NULL, NULL);
        }
        ctx->host_pending = 1;
        return CLIK_OK;
    }
    /* The copy path: a device copy for this operation. */
    b->alloc = b->stride * (size_t)img->height;
    if (b->alloc > ctx->dev.max_alloc_size) {
        dma_sync(ctx, im, access, 1);
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS,
                          "an image of %zu bytes is larger than the device's largest allocation "
                          "(%llu bytes)",
                          b->alloc, (unsigned long long)ctx->dev.max_alloc_size);
    }
    st = clik__temp_buffer(ctx, b->alloc, &b->mem);
    if (st == CLIK_OK) {
        b->pooled = 1;
        if (access & CLIK_READ)
            st = clik__transfer_rows(ctx, b->mem, b->stride, im->host, img->stride, b->row_bytes,
                                     img->height, 1);
        if (st != CLIK_OK) {
            clik__temp_release(ctx, b->mem, b->alloc);
            b->mem = NULL;
        }
    }
    if (st != CLIK_OK) {
        dma_sync(ctx, im, access, 1);
        return st;
    }
    clik__log(ctx, CLIK_LOG_DEBUG, "clik: imported image %dx%d copied to the device (%zu bytes)%s",
              img->width, img->height, access & CLIK_READ ? b->span : (size_t)0,
              access & CLIK_READ ? "" : ": not read");
    return CLIK_OK;
}

clik_status clik__import_unbind(clik_context *ctx, clik_binding *b, int ok)
{
    clik_import *im = b->import;
    clik_status st = CLIK_OK;
    if (!b->mem)
        return st;
    const int result = ok && (b->access & CLIK_WRITE);
    if (b->pooled) {
        if (result) {
            st = clik__transfer_rows(ctx, b->mem, b->stride, im->host, b->image.stride,
                                     b->row_bytes, b->image.height, 0);
            clik__log(ctx, CLIK_LOG_DEBUG, "clik: imported image %dx%d copied back (%zu bytes)",
                      b->image.width, b->image.height, b->span);
        }
        clik__temp_release(ctx, b->mem, b->alloc);
    } else {
        if (result) {
            /* Mapping makes the device's writes visible in the memory. */
            cl_int err;
            void *p = ctx->cl->clEnqueueMapBuffer(ctx->queue, b->mem, CL_FALSE, CL_MAP_READ, 0,
                                                  b->span, 0, NULL, NULL, &err);
            if (!p || err != CL_SUCCESS)
                st = clik__fail_cl(ctx, err, "clEnqueueMapBuffer");
            else
                ctx->cl->clEnqueueUnmapMemObject(ctx->queue, b->mem, p, 0, NULL, NULL);
        }
        ctx->host_pending = 1;
        /* The kernels use the mapping until the queue is done. */
        if (im->sync) {
            cl_int err = ctx->cl->clFinish(ctx->queue);
            if (err != CL_SUCCESS && st == CLIK_OK)
                st = clik__fail_cl(ctx, err, "clFinish");
        }
    }
    clik_status st2 = dma_sync(ctx, im, b->access, 1);
    b->mem = NULL;
    return st != CLIK_OK ? st : st2;
}

clik_status clik__import_view(clik_context *ctx, const clik_image *img, int access,
                              clik_image *view)
{
    clik_import *im = img->buffer->import;
    if (im->read_only && (access & (CLIK_WRITE | CLIK_KERNEL_RW)))
        return refuse_write(ctx, img);
    clik_status st = dma_sync(ctx, im, access, 0);
    if (st != CLIK_OK)
        return st;
    *view = *img;
    view->buffer = NULL;
    cl_mem mem = img->buffer->mem;
    if (!mem) {
        view->data = im->host;
        return CLIK_OK;
    }
    cl_int err;
    cl_map_flags flags = (access & CLIK_READ ? CL_MAP_READ : 0) |
                         (access & (CLIK_WRITE | CLIK_KERNEL_RW) ? CL_MAP_WRITE : 0);
    void *p = ctx->cl->clEnqueueMapBuffer(ctx->queue, mem, CL_TRUE, flags ? flags : CL_MAP_READ, 0,
                                          img->buffer->bytes, 0, NULL, NULL, &err);
    if (!p || err != CL_SUCCESS) {
        view->data = NULL;
        st = clik__fail_cl(ctx, err, "clEnqueueMapBuffer");
        dma_sync(ctx, im, access, 1);
        return st;
    }
    view->data = p;
    return CLIK_OK;
}

clik_status clik__import_view_done(clik_context *ctx, const clik_image *img, clik_image *view,
                                   int access, int ok)
{
    (void)ok; /* the CPU path wrote the memory itself */
    clik_import *im = img->buffer->import;
    clik_status st = CLIK_OK;
    cl_mem mem = img->buffer->mem;
    if (mem && view->data) {
        cl_int err = ctx->cl->clEnqueueUnmapMemObject(ctx->queue, mem, view->data, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = ctx->cl->clFinish(ctx->queue);
        if (err != CL_SUCCESS)
            st = clik__fail_cl(ctx, err, "clEnqueueUnmapMemObject");
    }
    view->data = NULL;
    clik_status st2 = dma_sync(ctx, im, access, 1);
    return st != CLIK_OK ? st : st2;
}

clik_status clik__import_transfer(clik_context *ctx, const clik_image *dev, const clik_image *host,
                                  int upload)
{
    clik_import *im = dev->buffer->import;
    if (upload && im->read_only)
        return refuse_write(ctx, dev);
    const int access = upload ? CLIK_WRITE : CLIK_READ;
    clik_status st = dma_sync(ctx, im, access, 0);
    if (st != CLIK_OK)
        return st;
    /* The memory is the image: operations leave their results in it (their
     * end maps the buffer) and read it afresh (their start maps it for
     * writing), so a transfer copies rows to or from the memory itself. A
     * copy through the buffer would miss, on devices that keep their own
     * copy of CL_MEM_USE_HOST_PTR memory (discrete GPUs), what the caller
     * wrote into the memory, and leave the memory without what it uploads. */
    const size_t row = (size_t)host->width * (size_t)host->channels * clik_type_size(host->type);
    for (int y = 0; y < host->height; y++) {
        unsigned char *d = im->host + (size_t)y * dev->stride;
        unsigned char *h = (unsigned char *)host->data + (size_t)y * host->stride;
        memcpy(upload ? d : h, upload ? h : d, row);
    }
    clik_status st2 = dma_sync(ctx, im, access, 1);
    return st != CLIK_OK ? st : st2;
}

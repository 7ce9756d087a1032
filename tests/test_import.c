/* Imported memory (clik_image_import, clik_yuv_import) on every backend:
 * the choice of a path on fake extension lists (Mali-like, Adreno-like,
 * plain), host memory and memfds (standing in for dma-bufs) through the
 * paths the devices here take, operations on them against the same
 * operations on plain images byte for byte, and bad input.
 * SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/udmabuf.h>)
#include <linux/udmabuf.h>
#define HAVE_UDMABUF_H 1
#endif
#endif

#include "harness.h"
#include "internal.h"

/* ---- the choice of a path ---------------------------------------------------------- */

static const char mali[] = "cl_khr_global_int32_base_atomics cl_khr_fp16 cl_arm_core_id "
                           "cl_arm_import_memory cl_arm_import_memory_dma_buf cl_arm_printf";
static const char mali_host[] = "cl_khr_fp16 cl_arm_import_memory cl_arm_import_memory_host "
                                "cl_arm_import_memory_dma_buf";
static const char adreno[] = "cl_khr_fp16 cl_qcom_ext_host_ptr cl_qcom_ion_host_ptr "
                             "cl_qcom_dmabuf_host_ptr cl_qcom_ext_host_ptr_iocoherent "
                             "cl_qcom_android_native_buffer_host_ptr";
static const char adreno_ion[] = "cl_qcom_ext_host_ptr cl_qcom_ion_host_ptr";
static const char plain[] = "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_icd";
/* Names that only share a prefix with the extensions. */
static const char lookalike[] = "cl_arm_import_memory_dma_buf_v2 cl_arm_import_memoryx "
                                "cl_qcom_ext_host_ptr_iocoherent cl_qcom_dmabuf_host_ptr";

#define SEL(ext, kind, addr, pitch, off)                                                           \
    clik__import_select((ext), 128, (kind), (uintptr_t)(addr), (pitch), (off), 0)

START_TEST(select_paths)
{
    const clik_import_kind fd_kinds[] = {CLIK_IMPORT_DMABUF, CLIK_IMPORT_ION};
    for (int ro = 0; ro < 2; ro++) {
        /* No device: the memory is the image, whatever it is. */
        for (int k = CLIK_IMPORT_HOST; k <= CLIK_IMPORT_ION; k++)
            ck_assert_int_eq(clik__import_select(NULL, 128, (clik_import_kind)k, 3, 7, 5, ro),
                             CLIK_IMPORT_PATH_HOST_VIEW);
        for (int i = 0; i < 2; i++) {
            const clik_import_kind k = fd_kinds[i];
            /* Mali: the fd itself at offset 0. */
            ck_assert_int_eq(clik__import_select(mali, 128, k, 0x10000, 640, 0, ro),
                             CLIK_IMPORT_PATH_ARM);
            ck_assert_int_eq(clik__import_select(mali, 128, k, 0x10000, 643, 0, ro),
                             CLIK_IMPORT_PATH_ARM);
            /* Past offset 0, the mapping as host memory. */
            ck_assert_int_eq(clik__import_select(mali, 128, k, 0x11000, 640, 4096, ro),
                             CLIK_IMPORT_PATH_USE_HOST_PTR);
            ck_assert_int_eq(clik__import_select(mali, 128, k, 0x11003, 640, 4099, ro),
                             CLIK_IMPORT_PATH_COPY);
            ck_assert_int_eq(clik__import_select(mali_host, 128, k, 0x11000, 640, 4096, ro),
                             CLIK_IMPORT_PATH_ARM);
            /* Adreno: ION and dma-buf where each is listed. */
            ck_assert_int_eq(clik__import_select(adreno, 128, k, 0x10000, 640, 0, ro),
                             CLIK_IMPORT_PATH_QCOM);
            ck_assert_int_eq(clik__import_select(adreno, 128, k, 0x10000, 650, 4096, ro),
                             CLIK_IMPORT_PATH_COPY);
            ck_assert_int_eq(clik__import_select(adreno, 128, k, 0x10000, 640, 4096, ro),
                             CLIK_IMPORT_PATH_USE_HOST_PTR);
            /* A plain device: alignment alone decides. */
            ck_assert_int_eq(clik__import_select(plain, 128, k, 0x10000, 640, 0, ro),
                             CLIK_IMPORT_PATH_USE_HOST_PTR);
            ck_assert_int_eq(clik__import_select(plain, 128, k, 0x10000, 600, 0, ro),
                             CLIK_IMPORT_PATH_COPY);
            ck_assert_int_eq(clik__import_select(lookalike, 128, k, 0x10040, 640, 0, ro),
                             CLIK_IMPORT_PATH_COPY);
        }
        ck_assert_int_eq(clik__import_select(adreno_ion, 128, CLIK_IMPORT_ION, 0x10000, 640, 0, ro),
                         CLIK_IMPORT_PATH_QCOM);
        ck_assert_int_eq(
            clik__import_select(adreno_ion, 128, CLIK_IMPORT_DMABUF, 0x10000, 640, 0, ro),
            CLIK_IMPORT_PATH_USE_HOST_PTR);
        ck_assert_int_eq(
            clik__import_select(adreno_ion, 128, CLIK_IMPORT_DMABUF, 0x10001, 640, 0, ro),
            CLIK_IMPORT_PATH_COPY);
        /* Host memory: cl_arm_import_memory_host, else alignment. */
        const clik_import_kind h = CLIK_IMPORT_HOST;
        ck_assert_int_eq(clik__import_select(mali, 128, h, 0x10000, 640, 0, ro),
                         CLIK_IMPORT_PATH_USE_HOST_PTR);
        ck_assert_int_eq(clik__import_select(mali_host, 128, h, 0x10000, 640, 0, ro),
                         CLIK_IMPORT_PATH_ARM);
        ck_assert_int_eq(clik__import_select(mali_host, 128, h, 0x10040, 640, 0, ro),
                         CLIK_IMPORT_PATH_COPY);
        ck_assert_int_eq(clik__import_select(mali_host, 128, h, 0x10000, 641, 0, ro),
                         CLIK_IMPORT_PATH_COPY);
        ck_assert_int_eq(clik__import_select(adreno, 128, h, 0x10000, 640, 0, ro),
                         CLIK_IMPORT_PATH_USE_HOST_PTR);
        ck_assert_int_eq(clik__import_select(adreno, 128, h, 0x10010, 640, 0, ro),
                         CLIK_IMPORT_PATH_COPY);
        ck_assert_int_eq(clik__import_select(plain, 128, h, 0x10000, 640, 0, ro),
                         CLIK_IMPORT_PATH_USE_HOST_PTR);
        ck_assert_int_eq(clik__import_select(plain, 128, h, 0x10001, 640, 0, ro),
                         CLIK_IMPORT_PATH_COPY);
        ck_assert_int_eq(clik__import_select("", 128, h, 0x10000, 640, 0, ro),
                         CLIK_IMPORT_PATH_USE_HOST_PTR);
        /* An alignment of 0 (or 1): every pointer and pitch meets it. */
        ck_assert_int_eq(clik__import_select(plain, 0, h, 0x10001, 641, 0, ro),
                         CLIK_IMPORT_PATH_USE_HOST_PTR);
        ck_assert_int_eq(clik__import_select(plain, 1, h, 0x10001, 641, 0, ro),
                         CLIK_IMPORT_PATH_USE_HOST_PTR);
    }
    ck_assert_int_eq(SEL(plain, CLIK_IMPORT_HOST, 0x1000, 4096, 0), CLIK_IMPORT_PATH_USE_HOST_PTR);
    /* Whole words only. */
    ck_assert(clik__has_extension(mali, "cl_arm_import_memory"));
    ck_assert(clik__has_extension(mali, "cl_arm_printf"));
    ck_assert(clik__has_extension(mali, "cl_khr_global_int32_base_atomics"));
    ck_assert(!clik__has_extension(mali, "cl_arm_import_memory_host"));
    ck_assert(!clik__has_extension(lookalike, "cl_arm_import_memory"));
    ck_assert(!clik__has_extension(lookalike, "cl_arm_import_memory_dma_buf"));
    ck_assert(!clik__has_extension(lookalike, "cl_qcom_ext_host_ptr"));
    ck_assert(!clik__has_extension(NULL, "cl_arm_printf"));
    ck_assert(!clik__has_extension(mali, ""));
    ck_assert(!clik__has_extension(mali, "cl_arm"));
    /* The names. */
    ck_assert_str_eq(clik_import_path_name(CLIK_IMPORT_PATH_NONE), "none");
    ck_assert_str_eq(clik_import_path_name(CLIK_IMPORT_PATH_HOST_VIEW), "host-view");
    ck_assert_str_eq(clik_import_path_name(CLIK_IMPORT_PATH_ARM), "arm");
    ck_assert_str_eq(clik_import_path_name(CLIK_IMPORT_PATH_QCOM), "qcom");
    ck_assert_str_eq(clik_import_path_name(CLIK_IMPORT_PATH_USE_HOST_PTR), "use-host-ptr");
    ck_assert_str_eq(clik_import_path_name(CLIK_IMPORT_PATH_COPY), "copy");
    ck_assert_str_eq(clik_import_path_name((clik_import_path)99), "unknown");
    ck_assert_str_eq(clik_import_path_name((clik_import_path)-1), "unknown");
}
END_TEST

/* ---- helpers ----------------------------------------------------------------------- */

#define PAGE 4096

/* Fills w x h x ch u8 pixels, stride apart, with a seeded pattern. */
static void fill(uint8_t *p, int w, int h, int ch, size_t stride, unsigned seed)
{
    uint32_t s = seed * 2654435761u + 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * ch; x++) {
            s = s * 1664525u + 1013904223u;
            /* A gradient with noise: a histogram with gaps and peaks. */
            p[(size_t)y * stride + (size_t)x] = (uint8_t)((x / ch + 2 * y) / 3 + (s >> 28));
        }
}

static void *page_alloc(size_t bytes)
{
    void *p = NULL;
    ck_assert_int_eq(posix_memalign(&p, PAGE, bytes), 0);
    memset(p, 0, bytes);
    return p;
}

/* The rows of two images of one format are equal. */
static void expect_rows(const clik_image *a, const uint8_t *b, size_t b_stride, const char *what)
{
    const size_t row = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++)
        ck_assert_msg(memcmp((const uint8_t *)a->data + (size_t)y * a->stride,
                             b + (size_t)y * b_stride, row) == 0,
                      "%s on %s: row %d differs", what, h_backend, y);
}

static clik_import_desc fd_desc(clik_import_kind kind, int fd, size_t offset, size_t size, int w,
                                int h, int ch, size_t stride)
{
    clik_import_desc d = h_host_desc(NULL, size, w, h, ch, stride);
    d.kind = kind;
    d.fd = fd;
    d.offset = offset;
    return d;
}

static clik_status import_ok(const clik_import_desc *d, clik_image *out)
{
    clik_status st = clik_image_import(h_ctx, d, out);
    ck_assert_msg(st == CLIK_OK, "import on %s: %s (%s)", h_backend, clik_status_str(st),
                  clik_context_message(h_ctx));
    return st;
}

/* The paths the devices here take for memory that is (1) or is not (0)
 * aligned: no device here lists the Arm or Qualcomm extensions. */
static void expect_path(const clik_image *img, int aligned)
{
    const clik_import_path want = h_expected != CLIK_BACKEND_OPENCL ? CLIK_IMPORT_PATH_HOST_VIEW
                                  : aligned                         ? CLIK_IMPORT_PATH_USE_HOST_PTR
                                                                    : CLIK_IMPORT_PATH_COPY;
    ck_assert_msg(clik_image_import_path(img) == want, "%s: path %s, not %s", h_backend,
                  clik_import_path_name(clik_image_import_path(img)), clik_import_path_name(want));
}

/* Equalize (3 channels through 4-channel copies) and a 5 x 5 blur of src
 * (w x h x ch, stride) into dst through imported images, against the same
 * operations on plain images. */
static void ops_against_plain(const clik_image *src_imp, const uint8_t *src, size_t stride,
                              clik_image *dst_imp, const uint8_t *dst, size_t dst_stride)
{
    const int w = src_imp->width, h = src_imp->height, ch = src_imp->channels;
    clik_image plain_src, want;
    ck_assert_int_eq(clik_image_wrap(&plain_src, w, h, ch, CLIK_U8, (void *)src, stride), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&want, w, h, ch, CLIK_U8), CLIK_OK);
    {
        ck_assert_int_eq(clik_hist_equalize(h_ctx, &plain_src, &want), CLIK_OK);
        clik_status st = clik_hist_equalize(h_ctx, src_imp, dst_imp);
        ck_assert_msg(st == CLIK_OK, "equalize on %s: %s", h_backend, clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        expect_rows(&want, dst, dst_stride, "equalize");
    }
    ck_assert_int_eq(clik_gaussian_blur(h_ctx, &plain_src, &want, 5, 0.0), CLIK_OK);
    clik_status st = clik_gaussian_blur(h_ctx, src_imp, dst_imp, 5, 0.0);
    ck_assert_msg(st == CLIK_OK, "blur on %s: %s", h_backend, clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    expect_rows(&want, dst, dst_stride, "blur");
    clik_image_free(&want);
}

/* ---- host memory --------------------------------------------------------------------- */

/* Page-aligned memory with page-multiple rows: CL_MEM_USE_HOST_PTR on the
 * devices here; in place too; the memory is the caller's. */
START_TEST(host_aligned)
{
    const int w = 150, h = 40;
    const size_t stride = PAGE;
    for (int ch = 1; ch <= 4; ch++) {
        uint8_t *a = page_alloc(stride * h), *b = page_alloc(stride * h);
        fill(a, w, h, ch, stride, 7 + (unsigned)ch);
        clik_image src, dst;
        clik_import_desc ds = h_host_desc(a, stride * h, w, h, ch, stride);
        clik_import_desc dd = h_host_desc(b, stride * h, w, h, ch, stride);
        import_ok(&ds, &src);
        import_ok(&dd, &dst);
        expect_path(&src, 1);
        expect_path(&dst, 1);
        ck_assert_ptr_null(src.data);
        ck_assert_ptr_nonnull(src.buffer);
        ck_assert_int_eq(clik_image_validate(&src), CLIK_OK);
        ops_against_plain(&src, a, stride, &dst, b, stride);
        /* In place: the blur of the memory, into itself. */
        uint8_t *copy = malloc(stride * h);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, a, stride * h);
        clik_image plain_src, want;
        ck_assert_int_eq(clik_image_wrap(&plain_src, w, h, ch, CLIK_U8, copy, stride), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&want, w, h, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_gaussian_blur(h_oracle, &plain_src, &want, 3, 0.0), CLIK_OK);
        ck_assert_msg(clik_gaussian_blur(h_ctx, &src, &src, 3, 0.0) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        expect_rows(&want, a, stride, "blur in place");
        /* Upload and download through the imported image. */
        clik_image back;
        ck_assert_int_eq(clik_image_alloc(&back, w, h, ch, CLIK_U8), CLIK_OK);
        ck_assert_msg(clik_image_download(h_ctx, &back, &src) == CLIK_OK, "download: %s",
                      clik_context_message(h_ctx));
        expect_rows(&back, a, stride, "download");
        ck_assert_int_eq(clik_image_upload(h_ctx, &dst, &want), CLIK_OK);
        expect_rows(&want, b, stride, "upload");
        h_free_images(&src, &dst, &want, &back, NULL);
        ck_assert_ptr_null(src.buffer);
        ck_assert_int_eq(clik_image_import_path(&src), CLIK_IMPORT_PATH_NONE);
        /* The memory stays the caller's. */
        expect_rows(&plain_src, copy, stride, "memory after free");
        free(copy);
        free(a);
        free(b);
    }
}
END_TEST

/* The CPU path's views of imports (what an operation that falls back to the
 * CPU on a device context gets): the memory's content after a device
 * operation wrote it, and the view's writes in the memory afterwards; a
 * read-only import refused for writing. Aligned and misaligned memory. */
START_TEST(cpu_views)
{
    const int w = 64, h = 8;
    const size_t stride = PAGE;
    for (int misaligned = 0; misaligned < 2; misaligned++) {
        uint8_t *a = page_alloc(PAGE + stride * h), *b = page_alloc(PAGE + stride * h);
        uint8_t *pa = a + misaligned, *pb = b + misaligned;
        fill(pa, w, h, 1, stride, 23);
        clik_image src, dst;
        clik_import_desc ds = h_host_desc(pa, stride * h, w, h, 1, stride);
        clik_import_desc dd = h_host_desc(pb, stride * h, w, h, 1, stride);
        import_ok(&ds, &src);
        import_ok(&dd, &dst);
        expect_path(&src, !misaligned);
        ck_assert_msg(clik_gaussian_blur(h_ctx, &src, &dst, 3, 0.0) == CLIK_OK, "%s",
                      clik_context_message(h_ctx));
        clik_image view;
        ck_assert_int_eq(clik__host_view(h_ctx, &dst, CLIK_READ | CLIK_WRITE, &view), CLIK_OK);
        ck_assert_ptr_null(view.buffer);
        ck_assert_ptr_nonnull(view.data);
        expect_rows(&view, pb, stride, "view of a device result");
        for (int y = 0; y < h; y++)
            memset((uint8_t *)view.data + (size_t)y * view.stride, y + 1, (size_t)w);
        ck_assert_int_eq(clik__host_view_done(h_ctx, &dst, &view, CLIK_READ | CLIK_WRITE, 1),
                         CLIK_OK);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                ck_assert_int_eq(pb[(size_t)y * stride + (size_t)x], y + 1);
        /* And the device sees what the view wrote. */
        clik_image back;
        ck_assert_int_eq(clik_image_alloc(&back, w, h, 1, CLIK_U8), CLIK_OK);
        ck_assert_msg(clik_image_download(h_ctx, &back, &dst) == CLIK_OK, "download: %s",
                      clik_context_message(h_ctx));
        expect_rows(&back, pb, stride, "download after a view");
        h_free_images(&src, &dst, &back, NULL);
        /* Read-only: a view for reading only. */
        ds.flags = CLIK_IMPORT_READ_ONLY;
        import_ok(&ds, &src);
        ck_assert_int_eq(clik__host_view(h_ctx, &src, CLIK_WRITE, &view), CLIK_ERR_READ_ONLY);
        ck_assert_int_eq(clik__host_view(h_ctx, &src, CLIK_READ, &view), CLIK_OK);
        expect_rows(&view, pa, stride, "view of a read-only import");
        ck_assert_int_eq(clik__host_view_done(h_ctx, &src, &view, CLIK_READ, 1), CLIK_OK);
        clik_image_free(&src);
        free(a);
        free(b);
    }
}
END_TEST

struct logged {
    char text[8192];
    size_t len;
};

static void log_to(void *user, clik_log_level level, const char *message)
{
    struct logged *l = user;
    (void)level;
    size_t n = strlen(message);
    if (l->len + n + 2 < sizeof(l->text)) {
        memcpy(l->text + l->len, message, n);
        l->len += n;
        l->text[l->len++] = '\n';
        l->text[l->len] = '\0';
    }
}

/* A pointer one byte past a page: the copy path on the devices here, named
 * in the debug log at each operation. */
START_TEST(host_misaligned)
{
    const int w = 97, h = 33, ch = 1;
    const size_t stride = 101;
    uint8_t *a = page_alloc(PAGE + stride * h), *b = page_alloc(PAGE + stride * h);
    fill(a + 1, w, h, ch, stride, 3);
    struct logged log = {{0}, 0};
    clik_context *ctx = h_ctx;
    if (h_expected == CLIK_BACKEND_OPENCL) {
        clik_context_options opt;
        clik_context_options_init(&opt);
        opt.device = h_device;
        opt.strict = 1;
        opt.cache = 0;
        opt.log = log_to;
        opt.log_user = &log;
        ck_assert_msg(clik_context_create(&ctx, &opt) == CLIK_OK, "%s", clik_context_message(NULL));
    }
    clik_context *saved = h_ctx;
    h_ctx = ctx;
    clik_image src, dst;
    clik_import_desc ds = h_host_desc(a + 1, stride * h, w, h, ch, stride);
    clik_import_desc dd = h_host_desc(b + 1, stride * h, w, h, ch, stride);
    import_ok(&ds, &src);
    import_ok(&dd, &dst);
    expect_path(&src, 0);
    expect_path(&dst, 0);
    ops_against_plain(&src, a + 1, stride, &dst, b + 1, stride);
    if (h_expected == CLIK_BACKEND_OPENCL) {
        ck_assert_msg(strstr(log.text, "is copied for each operation"), "log: %s", log.text);
        ck_assert_msg(strstr(log.text, "copied to the device"), "log: %s", log.text);
        ck_assert_msg(strstr(log.text, "copied back"), "log: %s", log.text);
    }
    h_free_images(&src, &dst, NULL);
    h_ctx = saved;
    if (ctx != h_ctx)
        clik_context_destroy(ctx);
    free(a);
    free(b);
}
END_TEST

/* ---- file descriptors ---------------------------------------------------------------- */

static int make_memfd(size_t bytes)
{
    int fd = memfd_create("clik-test-import", MFD_CLOEXEC);
    ck_assert_msg(fd >= 0, "memfd_create: %s", strerror(errno));
    ck_assert_int_eq(ftruncate(fd, (off_t)bytes), 0);
    return fd;
}

/* A memfd stands in for a dma-buf (DMA_BUF_IOCTL_SYNC says ENOTTY, which
 * the library takes as "not a dma-buf"): source at offset 0, results past
 * a page, the caller's fd closed after the import; ION alike. */
START_TEST(memfd_buffers)
{
    const int w = 120, h = 30, ch = 4;
    const size_t stride = 512, span = stride * h, out_off = 4 * PAGE; /* past the source */
    const size_t total = out_off + span;
    const clik_import_kind kinds[] = {CLIK_IMPORT_DMABUF, CLIK_IMPORT_ION};
    for (int k = 0; k < 2; k++) {
        int fd = make_memfd(total);
        uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ck_assert(m != MAP_FAILED);
        fill(m, w, h, ch, stride, 11);
        clik_image src, dst;
        clik_import_desc ds = fd_desc(kinds[k], fd, 0, total, w, h, ch, stride);
        ds.flags = CLIK_IMPORT_READ_ONLY;
        clik_import_desc dd = fd_desc(kinds[k], fd, out_off, total, w, h, ch, stride);
        import_ok(&ds, &src);
        import_ok(&dd, &dst);
        ck_assert_int_eq(close(fd), 0); /* the library holds its own */
        expect_path(&src, 1);
        expect_path(&dst, 1);
        ops_against_plain(&src, m, stride, &dst, m + out_off, stride);
        /* Read-only: refused as an output, by operations and uploads. */
        clik_status st = clik_gaussian_blur(h_ctx, &dst, &src, 3, 0.0);
        ck_assert_int_eq(st, CLIK_ERR_READ_ONLY);
        ck_assert_ptr_nonnull(strstr(clik_context_message(h_ctx), "read-only"));
        st = clik_hist_equalize(h_ctx, &src, &src);
        ck_assert_int_eq(st, CLIK_ERR_READ_ONLY);
        clik_image host;
        ck_assert_int_eq(clik_image_alloc(&host, w, h, ch, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_upload(h_ctx, &src, &host), CLIK_ERR_READ_ONLY);
        ck_assert_msg(clik_image_download(h_ctx, &host, &src) == CLIK_OK, "download: %s",
                      clik_context_message(h_ctx));
        expect_rows(&host, m, stride, "download of a read-only import");
        /* The memory was left as it was. */
        uint8_t *again = malloc(span);
        ck_assert_ptr_nonnull(again);
        fill(again, w, h, ch, stride, 11);
        expect_rows(&host, again, stride, "read-only memory");
        free(again);
        h_free_images(&src, &dst, &host, NULL);
        ck_assert_int_eq(munmap(m, total), 0);
    }
}
END_TEST

/* A real dma-buf where the kernel offers /dev/udmabuf (a memfd's pages as
 * a dma-buf, whose DMA_BUF_IOCTL_SYNC answers): the same operations as on
 * memfds. Skipped, with a line saying so, where there is none. */
START_TEST(udmabuf_buffers)
{
#ifdef HAVE_UDMABUF_H
    int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
    if (dev < 0) {
        printf("SKIP udmabuf_buffers: /dev/udmabuf: %s\n", strerror(errno));
        return;
    }
    const int w = 64, h = 32, ch = 1;
    const size_t stride = 512, total = 8 * PAGE, out_off = 4 * PAGE;
    int mfd = memfd_create("clik-test-udmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    ck_assert_int_ge(mfd, 0);
    ck_assert_int_eq(ftruncate(mfd, (off_t)total), 0);
    ck_assert_int_eq(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    struct udmabuf_create c = {(__u32)mfd, UDMABUF_FLAGS_CLOEXEC, 0, total};
    int buf = ioctl(dev, UDMABUF_CREATE, &c);
    ck_assert_msg(buf >= 0, "UDMABUF_CREATE: %s", strerror(errno));
    uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    ck_assert(m != MAP_FAILED);
    fill(m, w, h, ch, stride, 19);
    clik_image src, dst;
    clik_import_desc ds = fd_desc(CLIK_IMPORT_DMABUF, buf, 0, total, w, h, ch, stride);
    clik_import_desc dd = fd_desc(CLIK_IMPORT_DMABUF, buf, out_off, total, w, h, ch, stride);
    import_ok(&ds, &src);
    import_ok(&dd, &dst);
    expect_path(&src, 1);
    ops_against_plain(&src, m, stride, &dst, m + out_off, stride);
    h_free_images(&src, &dst, NULL);
    ck_assert_int_eq(munmap(m, total), 0);
    close(buf);
    close(mfd);
    close(dev);
#else
    printf("SKIP udmabuf_buffers: built without <linux/udmabuf.h>\n");
#endif
}
END_TEST

/* ---- YUV frames --------------------------------------------------------------------------- */

/* A frame in OpenCV's layout, imported from host memory and from a memfd:
 * its RGB as that of the same frame wrapped, and its luma equalized in
 * place as the wrapped frame's. */
START_TEST(yuv_frames)
{
    /* Rows of 512 bytes: a multiple of the devices' base alignment (PoCL
     * 128 bytes, rusticl's llvmpipe 512). */
    const int w = 512, h = 48;
    const size_t n = clik_yuv_size(w, h);
    static const clik_yuv_format formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};
    clik_image rgba, want, got;
    ck_assert_int_eq(clik_image_alloc(&rgba, w, h, 4, CLIK_U8), CLIK_OK);
    sup_pattern_fill(&rgba, SUP_PATTERN_SMOOTH, 5);
    h_alloc_images(w, h, 4, CLIK_U8, &want, &got, NULL);
    for (int fi = 0; fi < 3; fi++) {
        for (int from_fd = 0; from_fd < 2; from_fd++) {
            uint8_t *ref = malloc(n);
            ck_assert_ptr_nonnull(ref);
            clik_yuv_image wrapped;
            ck_assert_int_eq(clik_yuv_wrap(&wrapped, formats[fi], w, h, ref, 0), CLIK_OK);
            ck_assert_int_eq(clik_rgb_to_yuv(h_oracle, &rgba, &wrapped, CLIK_YUV_BT601), CLIK_OK);
            uint8_t *mem;
            int fd = -1;
            clik_import_desc d;
            if (from_fd) {
                fd = make_memfd(n);
                mem = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                ck_assert(mem != MAP_FAILED);
                d = fd_desc(CLIK_IMPORT_DMABUF, fd, 0, n, w, h, 0, 0);
                d.type = 0;
            } else {
                mem = page_alloc(n);
                d = h_host_desc(mem, n, w, h, 1, 0);
            }
            memcpy(mem, ref, n);
            clik_yuv_image f;
            clik_status st = clik_yuv_import(h_ctx, &d, formats[fi], &f);
            ck_assert_msg(st == CLIK_OK, "%s: %s", h_backend, clik_context_message(h_ctx));
            ck_assert_int_eq(f.format, formats[fi]);
            expect_path(&f.y, 1);
            ck_assert_int_ne(clik_image_import_path(formats[fi] == CLIK_YUV_I420 ? &f.v : &f.uv),
                             CLIK_IMPORT_PATH_NONE);
            ck_assert_int_eq(clik_yuv_to_rgb(h_oracle, &wrapped, &want, CLIK_YUV_BT601), CLIK_OK);
            st = clik_yuv_to_rgb(h_ctx, &f, &got, CLIK_YUV_BT601);
            ck_assert_msg(st == CLIK_OK, "%s: %s", h_backend, clik_context_message(h_ctx));
            ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
            ck_assert_mem_eq(got.data, want.data, got.stride * (size_t)h);
            /* Luma equalized in place; chroma untouched. */
            ck_assert_int_eq(clik_hist_equalize(h_oracle, &wrapped.y, &wrapped.y), CLIK_OK);
            st = clik_hist_equalize(h_ctx, &f.y, &f.y);
            ck_assert_msg(st == CLIK_OK, "%s: %s", h_backend, clik_context_message(h_ctx));
            ck_assert_mem_eq(mem, ref, n);
            h_free_images(&f.y, &f.uv, &f.u, &f.v, NULL);
            if (from_fd) {
                ck_assert_int_eq(munmap(mem, n), 0);
                ck_assert_int_eq(close(fd), 0);
            } else {
                free(mem);
            }
            free(ref);
        }
    }
    h_free_images(&rgba, &want, &got, NULL);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------ */

static void expect_refused(const clik_import_desc *d, clik_status want, const char *words)
{
    clik_image out;
    memset(&out, 0x5a, sizeof(out));
    clik_status st = clik_image_import(h_ctx, d, &out);
    ck_assert_msg(st == want, "%s: %s, not %s (%s)", words, clik_status_str(st),
                  clik_status_str(want), clik_context_message(h_ctx));
    ck_assert_msg(strstr(clik_context_message(h_ctx), words), "'%s' not in '%s'", words,
                  clik_context_message(h_ctx));
    ck_assert_ptr_null(out.buffer);
    ck_assert_ptr_null(out.data);
    ck_assert_int_eq(out.width, 0);
}

/* good with one field set to value is refused with status and a message
 * that holds words. */
#define REFUSED_WITH(field, value, status, words)                                                  \
    do {                                                                                           \
        clik_import_desc bad_ = good;                                                              \
        bad_.field = value;                                                                        \
        expect_refused(&bad_, status, words);                                                      \
    } while (0)

START_TEST(bad_input)
{
    static uint8_t mem[64 * 16 + 8];
    const clik_import_desc good = h_host_desc(mem, sizeof(mem), 64, 16, 1, 0);
    clik_image out;
    clik_yuv_image f;
    ck_assert_int_eq(clik_image_import(NULL, &good, &out), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_import(h_ctx, NULL, &out), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_import(h_ctx, &good, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_import(NULL, &good, CLIK_YUV_NV21, &f), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_import(h_ctx, NULL, CLIK_YUV_NV21, &f), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_yuv_import(h_ctx, &good, CLIK_YUV_NV21, NULL), CLIK_ERR_NULL);
    REFUSED_WITH(ptr, NULL, CLIK_ERR_NULL, "NULL");
    REFUSED_WITH(kind, (clik_import_kind)0, CLIK_ERR_INVALID_ARG, "unknown kind");
    REFUSED_WITH(kind, (clik_import_kind)9, CLIK_ERR_INVALID_ARG, "unknown kind");
    REFUSED_WITH(flags, 6, CLIK_ERR_INVALID_ARG, "unknown flags");
    REFUSED_WITH(width, 0, CLIK_ERR_INVALID_SIZE, "CLIK_ERR_INVALID_SIZE");
    REFUSED_WITH(height, -3, CLIK_ERR_INVALID_SIZE, "CLIK_ERR_INVALID_SIZE");
    REFUSED_WITH(channels, 5, CLIK_ERR_UNSUPPORTED_FORMAT, "CLIK_ERR_UNSUPPORTED_FORMAT");
    REFUSED_WITH(type, (clik_type)0, CLIK_ERR_UNSUPPORTED_FORMAT, "CLIK_ERR_UNSUPPORTED_FORMAT");
    REFUSED_WITH(stride, 63, CLIK_ERR_STRIDE, "CLIK_ERR_STRIDE");
    REFUSED_WITH(stride, SIZE_MAX / 2, CLIK_ERR_OVERFLOW, "CLIK_ERR_OVERFLOW");
    REFUSED_WITH(size, 64 * 16 - 1, CLIK_ERR_INVALID_ARG, "the image needs 1024");
    REFUSED_WITH(size, 0, CLIK_ERR_INVALID_ARG, "the image needs 1024");
    clik_import_desc d = good;
    d.type = CLIK_F32;
    d.width = 16;
    d.ptr = mem + 2;
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "element size");
    /* File descriptors. */
    d = fd_desc(CLIK_IMPORT_DMABUF, -1, 0, 4096, 64, 16, 1, 0);
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "fd -1");
    d.kind = CLIK_IMPORT_ION;
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "ION fd -1");
    int fd = make_memfd(4096);
    d = fd_desc(CLIK_IMPORT_DMABUF, fd, 4000, 4096, 64, 16, 1, 0);
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "past its offset");
    d.offset = 5000;
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "past its offset");
    d.offset = SIZE_MAX;
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "past its offset");
    d = fd_desc(CLIK_IMPORT_DMABUF, fd, 1, 4096, 16, 16, 1, 0);
    d.type = CLIK_U16;
    expect_refused(&d, CLIK_ERR_INVALID_ARG, "element size");
    /* An fd that cannot be mapped (a pipe), one that is closed. */
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    d = fd_desc(CLIK_IMPORT_DMABUF, pipefd[0], 0, 4096, 64, 16, 1, 0);
    expect_refused(&d, CLIK_ERR_IO, "mmap");
    ck_assert_int_eq(close(pipefd[0]), 0);
    ck_assert_int_eq(close(pipefd[1]), 0);
    d.fd = pipefd[0];
    expect_refused(&d, CLIK_ERR_IO, "fd");
    /* A frame: refused formats, sizes, and memory short of its chroma. */
    d = good;
    d.channels = 0;
    d.type = (clik_type)0;
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, (clik_yuv_format)7, &f), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clik_context_message(h_ctx), "unknown format"));
    d.channels = 3;
    d.type = CLIK_U8;
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, CLIK_YUV_NV21, &f), CLIK_ERR_INVALID_ARG);
    d = good;
    d.width = 63;
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, CLIK_YUV_NV21, &f), CLIK_ERR_INVALID_SIZE);
    d = good;
    d.stride = 65;
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, CLIK_YUV_I420, &f), CLIK_ERR_STRIDE);
    d = good; /* 64 x 16 luma fits, its chroma does not */
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, CLIK_YUV_NV21, &f), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_null(f.y.buffer);
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, CLIK_YUV_I420, &f), CLIK_ERR_INVALID_ARG);
    d = fd_desc(CLIK_IMPORT_DMABUF, fd, 0, 4096, 64, 60, 0, 0);
    d.type = 0;
    ck_assert_int_eq(clik_yuv_import(h_ctx, &d, CLIK_YUV_I420, &f), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_null(f.y.buffer);
    ck_assert_int_eq(close(fd), 0);
    /* Not imported: path none. */
    clik_image plain;
    ck_assert_int_eq(clik_image_wrap(&plain, 64, 16, 1, CLIK_U8, mem, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_import_path(&plain), CLIK_IMPORT_PATH_NONE);
    ck_assert_int_eq(clik_image_import_path(NULL), CLIK_IMPORT_PATH_NONE);
    clik_import_desc_init(NULL);
    clik_import_desc_init(&d);
    ck_assert_int_eq(d.fd, -1);
    ck_assert_int_eq(d.kind, 0);
    /* An import of another context is refused by operations. */
    clik_context *other = h_cpu_context();
    clik_image imp, dst;
    ck_assert_int_eq(clik_image_import(other, &good, &imp), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&dst, 64, 16, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_hist_equalize(h_ctx, &imp, &dst), CLIK_ERR_WRONG_CONTEXT);
    h_free_images(&imp, &dst, NULL);
    clik_context_destroy(other);
}
END_TEST

int main(void)
{
    const h_test tests[] = {H_TEST(select_paths), H_TEST(host_aligned),  H_TEST(host_misaligned),
                            H_TEST(cpu_views),    H_TEST(memfd_buffers), H_TEST(udmabuf_buffers),
                            H_TEST(yuv_frames),   H_TEST(bad_input)};
    return h_suite_main(&(h_suite){"import", NULL, 0, tests, H_COUNT(tests), NULL, NULL});
}

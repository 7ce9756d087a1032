/*
 * clik: portable OpenCL C image kernels with a CPU fallback.
 *
 * Every function returns a clik_status; clik_status_str() names it and
 * clik_context_message() holds the detail of the last failure in a context.
 * The library never aborts, exits or prints.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_H
#define CLIK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(CLIK_BUILDING_DLL)
#define CLIK_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CLIK_API __attribute__((visibility("default")))
#else
#define CLIK_API
#endif

#define CLIK_VERSION_MAJOR 0
#define CLIK_VERSION_MINOR 1
#define CLIK_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH". */
CLIK_API const char *clik_version(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */

typedef enum clik_status {
    CLIK_OK = 0,
    CLIK_ERR_NULL,               /* a required pointer is NULL */
    CLIK_ERR_INVALID_ARG,        /* an argument is out of its range */
    CLIK_ERR_INVALID_SIZE,       /* a width, height or count is zero, negative or too large */
    CLIK_ERR_SIZE_MISMATCH,      /* two images that must agree in size do not */
    CLIK_ERR_UNSUPPORTED_FORMAT, /* element type or channel count not supported here */
    CLIK_ERR_STRIDE,             /* row stride too small or not a multiple of the element size */
    CLIK_ERR_OVERFLOW,           /* a byte count or a result does not fit its type */
    CLIK_ERR_NO_MEMORY,          /* host or device allocation failed */
    CLIK_ERR_DEVICE_SPEC,        /* a device selection string is malformed */
    CLIK_ERR_NO_DEVICE,          /* no OpenCL device matches the selection */
    CLIK_ERR_OPENCL,             /* an OpenCL call failed */
    CLIK_ERR_BUILD,              /* a kernel failed to build; the message holds the log */
    CLIK_ERR_DEVICE_LIMITS,      /* the device cannot run this operation */
    CLIK_ERR_FALLBACK,           /* strict mode forbade a fall back to the CPU */
    CLIK_ERR_NO_NEON,            /* the NEON path was asked for but is not built in */
    CLIK_ERR_WRONG_CONTEXT,      /* a device image belongs to another context */
    CLIK_ERR_IO,                 /* a file could not be read or written */
    CLIK_ERR_FILE_FORMAT,        /* a file is truncated, corrupt or not of its claimed format */
    CLIK_STATUS_COUNT
} clik_status;

/* A short constant name for a status ("CLIK_ERR_STRIDE: ..."); never NULL. */
CLIK_API const char *clik_status_str(clik_status status);

/* ------------------------------------------------------------------------ */
/* Element types and images                                                  */

typedef enum clik_type {
    CLIK_U8 = 1,
    CLIK_S16,
    CLIK_U16,
    CLIK_S32,
    CLIK_U32,
    CLIK_U64,
    CLIK_F16,
    CLIK_F32,
    CLIK_F64,
} clik_type;

/* Size in bytes of one element of type t, or 0 for an unknown type. */
CLIK_API size_t clik_type_size(clik_type t);
/* Lower-case name of t ("u8", "f32", ...), or "unknown". */
CLIK_API const char *clik_type_name(clik_type t);

struct clik_buffer; /* device storage owned by the library */

/*
 * An image: width x height pixels of `channels` interleaved elements of
 * `type`, rows `stride` bytes apart. A host image has `data` set and
 * `buffer` NULL (memory the caller owns, or from clik_image_alloc()); a
 * device image has `buffer` set and `data` NULL (from clik_image_create()).
 * Operations accept either, so that pipelines stay on the device.
 */
typedef struct clik_image {
    int width;
    int height;
    int channels; /* 1, 2 or 4 */
    clik_type type;
    size_t stride; /* bytes from one row to the next */
    void *data;
    struct clik_buffer *buffer;
} clik_image;

/* Describes caller memory as a host image. stride 0 means packed rows. */
CLIK_API clik_status clik_image_wrap(clik_image *img, int width, int height, int channels,
                                     clik_type type, void *data, size_t stride);
/* Allocates a packed host image (64-byte aligned); free with clik_image_free(). */
CLIK_API clik_status clik_image_alloc(clik_image *img, int width, int height, int channels,
                                      clik_type type);
/* Frees a host image from clik_image_alloc() or a device image from
 * clik_image_create(), and clears *img. NULL and cleared images are ignored. */
CLIK_API void clik_image_free(clik_image *img);
/* Checks that img describes a valid image (sizes, type, channels, stride). */
CLIK_API clik_status clik_image_validate(const clik_image *img);

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */

typedef enum clik_device_type {
    CLIK_DEVICE_OTHER = 0,
    CLIK_DEVICE_GPU,
    CLIK_DEVICE_CPU,
    CLIK_DEVICE_ACCELERATOR,
} clik_device_type;

typedef struct clik_device_info {
    int platform_index;
    int device_index;
    char platform_name[128];
    char platform_vendor[128];
    char platform_version[128];
    char name[128];
    char vendor[128];
    char driver_version[128];
    char device_version[128];
    char opencl_c_version[128];
    clik_device_type type;
    unsigned compute_units;
    unsigned max_clock_mhz;
    uint64_t global_mem_size;
    uint64_t max_alloc_size;
    uint64_t local_mem_size;
    int local_mem_dedicated; /* 1: on-chip local memory; 0: emulated in global memory */
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    int image_support;
    int fp16;
    int fp64;
    int non_uniform_work_groups;
    int little_endian;
    int opencl_c_major; /* OpenCL C version the device compiles, e.g. 1 and 2 */
    int opencl_c_minor;
} clik_device_info;

/* Lists every OpenCL device of every platform. With no OpenCL library or no
 * platform the list is empty and the status CLIK_OK. Free with
 * clik_devices_free(). */
CLIK_API clik_status clik_devices_list(clik_device_info **list, int *count);
CLIK_API void clik_devices_free(clik_device_info *list);

/* Resolves a selection string against a device list: *index is the chosen
 * entry, or -1 for the C fallback ("none", or "auto" with no device).
 * Syntax: auto | gpu | cpu | none | P:D | a case-insensitive substring of a
 * platform or device name. */
CLIK_API clik_status clik_device_select(const clik_device_info *list, int count, const char *spec,
                                        int *index);

/* Path of the OpenCL library that was loaded, or NULL with none; after a
 * failure, *why (if not NULL) tells what was tried. */
CLIK_API const char *clik_opencl_library(const char **why);

/* ------------------------------------------------------------------------ */
/* Contexts                                                                  */

typedef enum clik_cpu_path {
    CLIK_CPU_AUTO = 0, /* NEON on Arm, else scalar ($CLIK_CPU_PATH) */
    CLIK_CPU_SCALAR,
    CLIK_CPU_NEON,
} clik_cpu_path;

/* 1 when this build has the CPU path (CLIK_CPU_AUTO: always 1). */
CLIK_API int clik_cpu_path_available(clik_cpu_path path);

typedef enum clik_backend {
    CLIK_BACKEND_NONE = 0, /* no operation has run yet */
    CLIK_BACKEND_OPENCL,
    CLIK_BACKEND_NEON,
    CLIK_BACKEND_SCALAR,
} clik_backend;

typedef enum clik_log_level {
    CLIK_LOG_DEBUG,
    CLIK_LOG_INFO,
    CLIK_LOG_WARNING,
    CLIK_LOG_ERROR
} clik_log_level;

typedef void (*clik_log_fn)(void *user, clik_log_level level, const char *message);

/* Use -1 (or NULL) for "not set": the environment variable, then the
 * built-in default, applies. See README for the variables. */
typedef struct clik_context_options {
    const char *device;     /* selection string ($CLIK_DEVICE, default "auto") */
    const char *cache_dir;  /* kernel binary cache folder ($CLIK_CACHE_DIR, ...) */
    int cache;              /* 0 disables the disk cache ($CLIK_CACHE=off) */
    int strict;             /* 1: fall back to the CPU never, fail instead ($CLIK_STRICT) */
    clik_cpu_path cpu_path; /* CPU implementation ($CLIK_CPU_PATH) */
    int local_memory;       /* 0: kernels without local memory; 1: with ($CLIK_LOCAL_MEM) */
    int profiling;          /* 1: time kernels with events ($CLIK_PROFILE) */
    const char *kernel_dir; /* load .cl files from here ($CLIK_KERNEL_DIR) */
    const char *tuning;     /* "key=value,..." overrides of the tuning table ($CLIK_TUNE) */
    clik_log_fn log;        /* receives diagnostics; NULL: silent */
    void *log_user;
} clik_context_options;

typedef struct clik_context clik_context;

typedef struct clik_context_stats {
    unsigned programs_built;     /* compiled from source */
    unsigned programs_from_disk; /* loaded from the disk cache */
    unsigned programs_reused;    /* served from the in-memory cache */
    unsigned cache_rejected;     /* disk entries ignored as corrupt or stale */
    unsigned cache_written;      /* disk entries written */
    unsigned fallbacks;          /* operations that fell back to the CPU */
    double last_kernel_ms;       /* device time of the last operation's kernels (profiling) */
} clik_context_stats;

/* Fills *opt with "not set" everywhere. */
CLIK_API void clik_context_options_init(clik_context_options *opt);

/* Creates a context on the selected device (or the CPU fallback). opt may be
 * NULL. On failure *ctx is NULL; a message for the failure is returned by
 * clik_context_message(NULL) from the same thread. */
CLIK_API clik_status clik_context_create(clik_context **ctx, const clik_context_options *opt);
CLIK_API void clik_context_destroy(clik_context *ctx);

/* Detail of the last failure in ctx (or of the last failed
 * clik_context_create() of this thread when ctx is NULL); "" if none. */
CLIK_API const char *clik_context_message(const clik_context *ctx);

/* The OpenCL device in use, or NULL when the context runs on the CPU only. */
CLIK_API const clik_device_info *clik_context_device(const clik_context *ctx);
/* Where the last operation ran. */
CLIK_API clik_backend clik_context_last_backend(const clik_context *ctx);
CLIK_API const char *clik_backend_name(clik_backend backend);
/* The CPU path this context uses when it runs on the CPU. */
CLIK_API clik_backend clik_context_cpu_backend(const clik_context *ctx);
CLIK_API void clik_context_stats_get(const clik_context *ctx, clik_context_stats *stats);
/* Waits for all queued device work. */
CLIK_API clik_status clik_context_finish(clik_context *ctx);

/* Device copy bandwidth in GB/s (bytes read plus bytes written per second),
 * the best of `reps` copies of `bytes` within device memory (memcpy on the
 * CPU fallback). For benchmarks. */
CLIK_API clik_status clik_context_copy_bandwidth(clik_context *ctx, size_t bytes, int reps,
                                                 double *gbps);

/* A device image of the context (host memory when the context has no
 * device). Free with clik_image_free(); the context must outlive it. */
CLIK_API clik_status clik_image_create(clik_context *ctx, clik_image *img, int width, int height,
                                       int channels, clik_type type);
/* Copies a host image into a device image of the same size and format. */
CLIK_API clik_status clik_image_upload(clik_context *ctx, clik_image *dst, const clik_image *src);
/* Copies a device image into a host image of the same size and format. */
CLIK_API clik_status clik_image_download(clik_context *ctx, clik_image *dst, const clik_image *src);

/* ------------------------------------------------------------------------ */
/* Histogram family (kernels/hist.cl)                                        */

/* 256-bin histogram of each channel of a u8 image: hist[c * 256 + v]. */
CLIK_API clik_status clik_hist_compute(clik_context *ctx, const clik_image *src, uint32_t *hist);

/* Histogram equalization with OpenCV equalizeHist semantics, per channel;
 * with 2 or 4 channels the last one (alpha) is copied unchanged. src and dst
 * may be the same image. */
CLIK_API clik_status clik_hist_equalize(clik_context *ctx, const clik_image *src, clik_image *dst);

/* dst = table[src] for a u8 image. ntables is 1 (one table for every
 * channel) or the channel count (tables[c * 256 + v] for channel c). */
CLIK_API clik_status clik_hist_lut(clik_context *ctx, const clik_image *src, clik_image *dst,
                                   const uint8_t *tables, int ntables);

/* ------------------------------------------------------------------------ */
/* Pyramid family (kernels/pyramid.cl)                                       */

/* Size of level `level` of a Gaussian pyramid of a width x height image
 * (level 0 is the image; each level is ((w + 1) / 2, (h + 1) / 2)). */
CLIK_API void clik_pyr_level_size(int width, int height, int level, int *level_width,
                                  int *level_height);
/* The most levels below the image that a width x height pyramid can have:
 * halvings until 1 x 1 (0 for a 1 x 1 image). */
CLIK_API int clik_pyr_max_levels(int width, int height);

/* OpenCV pyrDown: the 5 x 5 kernel [1 4 6 4 1]^T [1 4 6 4 1] / 256 centred on
 * (2x, 2y), borders reflected (reflect-101); dst is ((W + 1) / 2, (H + 1) / 2).
 * u8 ((sum + 128) >> 8) or f32 (sum / 256); 1, 2 or 4 channels. */
CLIK_API clik_status clik_pyr_down(clik_context *ctx, const clik_image *src, clik_image *dst);

/* OpenCV pyrUp: dst is (2W, 2H), u8 ((sum + 32) >> 6) or f32 (sum / 64). A
 * dst one pixel narrower or shorter gets the same values, cropped. */
CLIK_API clik_status clik_pyr_up(clik_context *ctx, const clik_image *src, clik_image *dst);

/* Gaussian pyramid: levels[i] is level i + 1 of src (levels[0] half the size
 * of src), for i < count, each of the size clik_pyr_level_size() gives and of
 * src's type and channels. With device images the pyramid stays on the
 * device. count may not exceed clik_pyr_max_levels(). */
CLIK_API clik_status clik_pyr_gaussian(clik_context *ctx, const clik_image *src, clik_image *levels,
                                       int count);

/* Laplacian pyramid of count levels: bands[i] = G_i - pyrUp(G_{i+1}) for
 * i < count, and bands[count] = G_count (count + 1 images, band i of the size
 * of level i). G_0 is src. u8 src gives S16 or F32 bands, f32 src F32 bands. */
CLIK_API clik_status clik_pyr_laplacian(clik_context *ctx, const clik_image *src, clik_image *bands,
                                        int count);

/* Rebuilds G_0 from count + 1 bands of clik_pyr_laplacian(): G_i =
 * bands[i] + pyrUp(G_{i+1}). dst u8 (exact for bands of a u8 image) or f32. */
CLIK_API clik_status clik_pyr_collapse(clik_context *ctx, const clik_image *bands, int count,
                                       clik_image *dst);

/* ------------------------------------------------------------------------ */
/* Integral family (kernels/integral.cl)                                     */

/* OpenCV integral: sum is (W + 1) x (H + 1) with a zero first row and column
 * and sum(X, Y) = the sum of src(x, y) over x < X, y < Y, per channel. u8 src:
 * sum u32 (CLIK_ERR_OVERFLOW when 255 * W * H > 2^32 - 1: ask for u64), u64
 * or f64; f32 src: f32 or f64. sqsum (NULL: not computed) holds the sums of
 * squares: u64 or f64 for u8, f64 for f32. */
CLIK_API clik_status clik_integral(clik_context *ctx, const clik_image *src, clik_image *sum,
                                   clik_image *sqsum);

#ifdef __cplusplus
}
#endif
#endif /* CLIK_H */

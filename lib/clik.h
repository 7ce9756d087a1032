/*
 * clik: portable OpenCL C image kernels with a CPU fallback.
 *
 * Every function returns a clik_status; clik_status_str() names it and
 * clik_context_message() holds the detail of the last failure in a context.
 * The library never aborts, exits or prints.
 *
 * Threads: a context is used by one thread at a time. Calls on one context
 * must not overlap, and calls on what belongs to it count as calls on it:
 * its device images (clik_image_create), its host memory
 * (clik_image_alloc_on; clik_image_free() of either is a call on the
 * context), its fusion streams and its LAPAR trainers. Separate contexts may
 * be used by separate threads at the same time, on one device or on several;
 * they share the disk cache safely, as separate processes do. Functions
 * without a context (or given a NULL one) may run in any thread at any time,
 * and read-only objects (a LAPAR model or network) may be used by several
 * contexts at once. The message of a failed clik_context_create() is the
 * calling thread's own (clik_context_message(NULL)). Within a call, the CPU
 * path may run parts of the operation on helper threads that the context
 * owns (clik_context_options.threads); callbacks (clik_flow_options'
 * progress, the log) are called from the calling thread only.
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
    CLIK_ERR_CANCELLED,          /* a progress callback asked the operation to stop */
    CLIK_ERR_READ_ONLY,          /* an operation would write an image imported read-only */
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

/* The order of the colour channels of a 3- or 4-channel image, read by the
 * operations that weight colours (clik_gray, the upscalers' luma): RGB(A),
 * the order of PNG and JPEG files, or BGR(A), the order of OpenCV's arrays.
 * Operations that treat channels alike ignore it, and a colour result keeps
 * its source's order. */
typedef enum clik_order {
    CLIK_ORDER_RGB = 0, /* the default of a zeroed or wrapped image */
    CLIK_ORDER_BGR = 1,
} clik_order;

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
    int channels; /* 1, 2, 3 (packed RGB or BGR) or 4 */
    clik_type type;
    size_t stride; /* bytes from one row to the next */
    void *data;
    struct clik_buffer *buffer;
    int owned;        /* who frees data in clik_image_free(): 0 the caller, 1 (CLIK_OWNED_HOST)
                       * clik_image_alloc()'s memory, 2 (CLIK_OWNED_CONTEXT)
                       * clik_image_alloc_on()'s; views keep 0 */
    clik_order order; /* colour order of 3 or 4 channels; set it after
                       * clik_image_wrap() and the allocators, which set RGB */
} clik_image;

#define CLIK_OWNED_HOST    1
#define CLIK_OWNED_CONTEXT 2

/* Describes caller memory as a host image. stride 0 means packed rows. */
CLIK_API clik_status clik_image_wrap(clik_image *img, int width, int height, int channels,
                                     clik_type type, void *data, size_t stride);
/* Allocates a packed host image (128-byte aligned); free with clik_image_free(). */
CLIK_API clik_status clik_image_alloc(clik_image *img, int width, int height, int channels,
                                      clik_type type);
/* Frees a host image from clik_image_alloc() or clik_image_alloc_on(), or
 * a device image from clik_image_create(), and clears *img. Memory the library does not own
 * (clik_image_wrap()) is left alone: only *img is cleared. NULL and cleared
 * images are ignored. */
CLIK_API void clik_image_free(clik_image *img);
/* Checks that img describes a valid image (sizes, type, channels, stride):
 * CLIK_ERR_NULL without memory, CLIK_ERR_INVALID_ARG with both host memory
 * and a device buffer, for a device image whose rows reach past its buffer,
 * and for an order that is not a clik_order. */
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
 * entry, or -1 for the C fallback ("none", or "auto" with no device); it is
 * written only on success. A negative count is CLIK_ERR_INVALID_SIZE.
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
    CLIK_CPU_AUTO =
        0, /* NEON where built (native, or SIMDe on x86), else scalar ($CLIK_CPU_PATH) */
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

/* Called before the context compiles an OpenCL program from source (a build
 * that may take seconds; not called for programs found in the kernel cache),
 * with the program's name and the device's, on the thread that compiles. */
typedef void (*clik_compile_fn)(void *user, const char *program, const char *device);

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
    int threads;            /* threads of the CPU path, 1..256 ($CLIK_THREADS; 0 or -1: the
                               usable cores) */
    clik_log_fn log;        /* receives diagnostics; NULL: silent */
    void *log_user;
    clik_compile_fn compile; /* told before each compile from source; NULL: none */
    void *compile_user;
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
/* Why the OpenCL path failed when strict mode refused the fall back: after
 * an operation that returned CLIK_ERR_FALLBACK, the status of the OpenCL
 * attempt (CLIK_ERR_DEVICE_LIMITS: the device cannot run the operation by
 * design, such as doubles on a device without cl_khr_fp64); else CLIK_OK. */
CLIK_API clik_status clik_context_fallback_cause(const clik_context *ctx);
/* The CPU path this context uses when it runs on the CPU. */
CLIK_API clik_backend clik_context_cpu_backend(const clik_context *ctx);
CLIK_API void clik_context_stats_get(const clik_context *ctx, clik_context_stats *stats);
/* Waits for all queued device work, the asynchronous copies included. */
CLIK_API clik_status clik_context_finish(clik_context *ctx);

/* Ahead-of-time compilation: what clik_context_prepare builds. */
typedef struct clik_prepare_options {
    const char *ops;   /* comma-separated operation names, as the functions without
                        * "clik_" ("resize,pyr_down"; see clik_prepare_op_name);
                        * NULL, "" or "all": every operation */
    unsigned types;    /* bits (1 << CLIK_U8) and (1 << CLIK_F32); 0: u8 */
    unsigned channels; /* bits (1 << 1) to (1 << 4); 0: 1 and 4 channels */
    int background;    /* 1: build in a thread of the library (see below) */
} clik_prepare_options;

/* Fills *opt with the defaults (every operation, u8, 1 and 4 channels, now). */
CLIK_API void clik_prepare_options_init(clik_prepare_options *opt);

/*
 * Builds the OpenCL programs that the listed operations use for images of
 * the listed formats, so that their first calls do not wait for the
 * compiler (seconds per program on some drivers); with the disk cache on,
 * later processes load them from it. Each operation runs once on small
 * images of each format (an operation passes over a format it does not
 * take): the programs built are those its calls at the common settings
 * build (resize: each method enlarging by 2 and reducing by 2 and 3;
 * fusion, LAPAR filter, upsample and model: scales 2 to 4; lapar_net_run:
 * the built-in LAPAR-A networks); settings beyond these compile at their
 * first use. Without a device: nothing to do, CLIK_OK.
 *
 * background 1 (with the disk cache on; without it the build happens now):
 * returns at once and builds on a second context of the same device in a
 * thread of its own, into the disk cache; when ctx is about to compile a
 * program while that thread runs, it waits for the thread and then loads
 * the program from the cache. clik_context_prepare_wait() waits for the
 * thread and returns its status; clik_context_destroy() waits for it too.
 * An unknown operation name: CLIK_ERR_INVALID_ARG, the message naming it.
 */
CLIK_API clik_status clik_context_prepare(clik_context *ctx, const clik_prepare_options *opt);
CLIK_API clik_status clik_context_prepare_wait(clik_context *ctx);
/* The name of operation `index` (0, 1, ...) that clik_context_prepare
 * knows, or NULL past the last. */
CLIK_API const char *clik_prepare_op_name(int index);

/* Device copy bandwidth in GB/s (bytes read plus bytes written per second),
 * the best of `reps` copies of `bytes` within device memory (memcpy on the
 * CPU fallback). For benchmarks. */
CLIK_API clik_status clik_context_copy_bandwidth(clik_context *ctx, size_t bytes, int reps,
                                                 double *gbps);
/* FP32 arithmetic rate in GFLOP/s (a fused multiply-add counts 2), the best
 * of `reps` runs of a kernel of independent fused multiply-add chains over
 * every compute unit (one host thread without a device). For benchmarks:
 * the yardstick of compute-bound kernels. */
CLIK_API clik_status clik_context_fma_peak(clik_context *ctx, int reps, double *gflops);
/* Transfer bandwidth (GB/s) between pinned host memory and the device, the
 * best of `reps` blocking transfers of `bytes` each way (memcpy on the CPU
 * fallback). For benchmarks. */
CLIK_API clik_status clik_context_transfer_bandwidth(clik_context *ctx, size_t bytes, int reps,
                                                     double *to_device_gbps, double *to_host_gbps);

/*
 * Allocates a packed host image in memory the context's device reaches
 * directly: zero-copy on unified-memory devices (CPU devices, Mali, Adreno:
 * kernels use the image's memory itself, no buffer is made per call) and
 * pinned memory on discrete GPUs (transfers at the bus's rate); plain
 * memory without a device. It is a host image (data set, buffer NULL,
 * owned CLIK_OWNED_CONTEXT) that every operation and context accepts, and
 * views into it (clik_image_wrap() of a part) work too. Free it with
 * clik_image_free() before destroying ctx: the context must outlive it.
 */
CLIK_API clik_status clik_image_alloc_on(clik_context *ctx, clik_image *img, int width, int height,
                                         int channels, clik_type type);
/* A device image of the context (host memory when the context has no
 * device). Free with clik_image_free(); the context must outlive it. */
CLIK_API clik_status clik_image_create(clik_context *ctx, clik_image *img, int width, int height,
                                       int channels, clik_type type);
/* Copies a host image into a device image of the same size and format. */
CLIK_API clik_status clik_image_upload(clik_context *ctx, clik_image *dst, const clik_image *src);
/* Copies a device image into a host image of the same size and format. */
CLIK_API clik_status clik_image_download(clik_context *ctx, clik_image *dst, const clik_image *src);
/*
 * The same copies, queued: they return at once with a ticket (1, 2, ... in
 * order of the calls) and run on a transfer queue of the context after
 * every operation called before them, alongside the operations called
 * after them, so that a frame's upload or download overlaps the kernels of
 * another (with host images of clik_image_alloc_on, the copies run at the
 * bus's rate). The library orders an operation after a queued copy of an
 * image it uses (after an upload to read or write it, after a download to
 * write it), and clik_image_upload/_download after it too. The host image
 * is the caller's to keep: src of an upload unchanged and dst of a download
 * unread until clik_context_wait() of the ticket (or a later one) returns.
 * Without a device, and for imported images, the copy is done when the
 * call returns (the ticket is still given). At most 64 copies are in
 * flight: the 65th waits for the oldest. Status as clik_image_upload, and
 * CLIK_ERR_NULL for a NULL ticket (set to 0 on failure); a copy that fails
 * on the device is reported by the wait.
 */
CLIK_API clik_status clik_image_upload_async(clik_context *ctx, clik_image *dst,
                                             const clik_image *src, uint64_t *ticket);
CLIK_API clik_status clik_image_download_async(clik_context *ctx, clik_image *dst,
                                               const clik_image *src, uint64_t *ticket);
/* Waits until the queued copy of ticket, and every one before it, is done;
 * clik_context_finish() waits for all of them. CLIK_ERR_INVALID_ARG for a
 * ticket this context did not give; one already waited for returns at once. */
CLIK_API clik_status clik_context_wait(clik_context *ctx, uint64_t ticket);

/* ------------------------------------------------------------------------ */
/* Histogram family (kernels/hist.cl)                                        */

/* 256-bin histogram of each channel of a u8 image: hist[c * 256 + v]. */
CLIK_API clik_status clik_hist_compute(clik_context *ctx, const clik_image *src, uint32_t *hist);

/* Histogram equalization with OpenCV equalizeHist semantics, per channel;
 * with 2 or 4 channels the last one (alpha) is copied unchanged, 3 are all
 * equalized. src and dst may be the same image. The family takes 1 to 4
 * channels (3 through 4-channel copies made on the device). */
CLIK_API clik_status clik_hist_equalize(clik_context *ctx, const clik_image *src, clik_image *dst);

/* Histogram equalization of the luma alone (OpenCV's COLOR_RGB2YCrCb, Y
 * through equalizeHist, COLOR_YCrCb2RGB: 8-bit fixed point both ways; the
 * BGR conversions where src->order is CLIK_ORDER_BGR), the chroma kept, of a
 * u8 image of 3 or 4 channels (alpha copied), written in src's order. src
 * and dst may be the same image. Other channel counts:
 * CLIK_ERR_UNSUPPORTED_FORMAT. */
CLIK_API clik_status clik_hist_equalize_luma(clik_context *ctx, const clik_image *src,
                                             clik_image *dst);

/* Contrast-limited adaptive histogram equalization with OpenCV's
 * createCLAHE(clip, (tiles_x, tiles_y)) semantics, bytes as OpenCV's, of a
 * u8 grey image, or of the luma of a u8 image of 3 or 4 channels (in its
 * order) as clik_hist_equalize_luma. clip: finite, above 0 (OpenCV's 40 by default);
 * the grid: at least 1x1, at most the image's size, 65536 tiles in all
 * (else CLIK_ERR_INVALID_ARG or CLIK_ERR_INVALID_SIZE). src and dst may be
 * the same image. */
CLIK_API clik_status clik_clahe(clik_context *ctx, const clik_image *src, clik_image *dst,
                                double clip, int tiles_x, int tiles_y);

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
 * u8 ((sum + 128) >> 8) or f32 (sum / 256); 1, 2, 3 or 4 channels (every
 * pyramid function: 3 through 4-channel copies made on the device). */
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
 * sum u32 (CLIK_ERR_OVERFLOW when 255 * W * H > 2^32 - 1: ask for u64), s32
 * (OpenCV's CV_32S: the sum modulo 2^32 in two's complement, wrapping past
 * 2^31 - 1 as OpenCV's does, never refused), u64 or f64; f32 src: f32 or f64. sqsum (NULL: not
 * computed) holds the sums of squares: u64 or f64 for u8, f64 for f32. src
 * has 1 to 4 channels (3 through 4-channel copies on the device), sum and
 * sqsum src's. */
CLIK_API clik_status clik_integral(clik_context *ctx, const clik_image *src, clik_image *sum,
                                   clik_image *sqsum);

/* ------------------------------------------------------------------------ */
/* Resize family (kernels/resize.cl)                                         */

typedef enum clik_interp {
    CLIK_INTERP_NEAREST = 0,
    CLIK_INTERP_BILINEAR,
    CLIK_INTERP_BICUBIC,
    /* MATLAB's imresize(..., 'bicubic') with antialiasing (see clik_resize). */
    CLIK_INTERP_BICUBIC_AA,
} clik_interp;

/* Name of a method ("nearest", "bilinear", "bicubic", "bicubic-aa"), or
 * "unknown". */
CLIK_API const char *clik_interp_name(clik_interp method);

/* Output size of a resize of a width x height image by scale_x, scale_y:
 * each side rounded to the nearest integer, as OpenCV does for resize(src,
 * Size(), fx, fy). CLIK_ERR_INVALID_ARG when a scale is not finite or not
 * positive; CLIK_ERR_INVALID_SIZE when an input side is not positive or an
 * output side would be 0 or larger than 2^20; CLIK_ERR_OVERFLOW when the
 * output's pixel count does not fit a size_t. */
CLIK_API clik_status clik_resize_size(int width, int height, double scale_x, double scale_y,
                                      int *out_width, int *out_height);

/* Resamples src into dst; the scale of each axis is dst's side over src's
 * (OpenCV's resize(src, dst, dst.size())). u8 or f32, 1 to 4 channels (2
 * and 3 through 4-channel copies made on the device; every channel
 * resampled alike), the same in src and dst;
 * src and dst may not overlap.
 *  - nearest: dst(x, y) = src(floor(x * W / W'), floor(y * H / H')), the
 *    offsets computed in double as OpenCV's INTER_NEAREST computes them;
 *    EXACT against it.
 *  - bilinear, bicubic: source point (x + 0.5) * W / W' - 0.5 (pixel centres
 *    at half-integers), bicubic with Keys' kernel (A = -0.75), out-of-image
 *    taps replicate the border; u8 rounded to nearest and saturated. Within
 *    +-1 of OpenCV's INTER_LINEAR / INTER_CUBIC.
 *  - bicubic-aa: MATLAB's imresize(src, [H' W'], 'bicubic') (antialiasing
 *    on), each axis on its own with its scale s = W' / W (H' / H): Keys'
 *    cubic with a = -0.5 (MATLAB's); where a side shrinks (s < 1) the kernel
 *    is widened to h(d) = s * cubic(s * d), support 4 / s, else it is the
 *    cubic itself (4 taps). Output x takes the source point
 *    u = x / s + 0.5 * (1 - 1 / s) in MATLAB's 1-based coordinates (pixel
 *    centres at half-integers), the taps floor(u - 2 / min(s, 1)) + 0, 1, ..
 *    ceil(4 / min(s, 1)) + 1, their weights normalised to sum 1, and taps
 *    off the image mirrored symmetrically (half-sample: ..c b a|a b c..c b
 *    a|a b..). Sums in float (weights computed in double); u8 rounded to
 *    nearest, halves up as MATLAB's, and saturated at the end, a value
 *    less than 2^-10 below a half counting as the half (float sums are off
 *    by far less, so exact halves round alike on every path); MATLAB also
 *    rounds between the two axes: results within +-1 of it. f32 unclamped. */
CLIK_API clik_status clik_resize(clik_context *ctx, const clik_image *src, clik_image *dst,
                                 clik_interp method);

/* clik_resize with the coordinate scale given, as OpenCV's resize(src,
 * dst, Size(), fx, fy): dst must be clik_resize_size(W, H, scale_x,
 * scale_y) (CLIK_ERR_INVALID_SIZE otherwise; CLIK_ERR_INVALID_ARG for a
 * scale that is not finite and positive), and every method maps output x to
 * the source by 1 / scale_x instead of W / W' (nearest: floor(x * (1 /
 * scale_x)); bilinear, bicubic: (x + 0.5) * (1 / scale_x) - 0.5; bicubic-aa:
 * MATLAB's imresize(src, scale) kernel and mapping with s = scale_x), and
 * alike down. Where W * scale_x is not an integer this differs from
 * clik_resize of the rounded size by up to 1/2 pixel at the far edge. */
CLIK_API clik_status clik_resize_scaled(clik_context *ctx, const clik_image *src, clik_image *dst,
                                        clik_interp method, double scale_x, double scale_y);

/* ------------------------------------------------------------------------ */
/* Filter family (kernels/filter.cl)                                         */

/* The normalized 1-D Gaussian of ksize taps (odd, 1..CLIK_BLUR_MAX_KSIZE)
 * that clik_gaussian_blur uses: sigma > 0 as given; sigma <= 0 as OpenCV's
 * getGaussianKernel chooses: its fixed tables for ksize 1, 3, 5, 7 and 9, else
 * sigma = 0.3 * ((ksize - 1) * 0.5 - 1) + 0.8. */
#define CLIK_BLUR_MAX_KSIZE 31
CLIK_API clik_status clik_gaussian_weights(int ksize, double sigma, float *weights);

/* Separable Gaussian blur with ksize x ksize taps (weights from
 * clik_gaussian_weights), border reflect-101 (gfedcb|abcdefgh|gfedcba). u8
 * (rounded, saturated) or f32, 1, 2, 3 or 4 channels; dst of src's size and
 * format. dst may be src (in place); partial overlaps are refused. */
CLIK_API clik_status clik_gaussian_blur(clik_context *ctx, const clik_image *src, clik_image *dst,
                                        int ksize, double sigma);

/* RGB(A) -> luma with BT.601 weights, as OpenCV's COLOR_RGBA2GRAY (or
 * COLOR_BGR(A)2GRAY when src->order is CLIK_ORDER_BGR): u8 with OpenCV's
 * fixed point ((9798 R + 19235 G + 3735 B + 16384) >> 15, EXACT), f32 as
 * 0.299 R + 0.587 G + 0.114 B. src has 3 or 4 channels, dst 1, same type. */
CLIK_API clik_status clik_gray(clik_context *ctx, const clik_image *src, clik_image *dst);

/* ------------------------------------------------------------------------ */
/* SSIM family (kernels/ssim.cl)                                             */

#define CLIK_SSIM_WINDOW 11 /* the Gaussian window of clik_ssim (sigma 1.5) */

/* SSIM of Wang et al. (2004) between two one-channel images of one size
 * (u8, or f32 on a 0..255 scale), at least 11 x 11: Gaussian 11 x 11 window
 * with sigma 1.5, population moments, C1 = (0.01 * 255)^2, C2 = (0.03 *
 * 255)^2. map (NULL: not written) is F32, one channel, (W - 10) x (H - 10):
 * the 'valid' region. *mean (NULL: not written) is the mean of that map, as
 * scikit-image's structural_similarity(a, b, gaussian_weights=True,
 * sigma=1.5, use_sample_covariance=False, data_range=255) reports it.
 * Images smaller than the window: CLIK_ERR_INVALID_SIZE. */
CLIK_API clik_status clik_ssim(clik_context *ctx, const clik_image *a, const clik_image *b,
                               clik_image *map, double *mean);

/* Tile SSIM: the image is cut into tile x tile squares from (0, 0) (those at
 * the right and bottom edges keep the pixels they have); map(i, j) is the
 * SSIM of tile (i, j) of a and b with uniform weights and population
 * moments, same C1 and C2. a and b u8, one channel, one size; tile 2..16;
 * map F32, ceil(W / tile) x ceil(H / tile). */
CLIK_API clik_status clik_ssim_tiles(clik_context *ctx, const clik_image *a, const clik_image *b,
                                     int tile, clik_image *map);

/* ------------------------------------------------------------------------ */
/* Fusion upscaler family (kernels/fusion.cl)                                */

typedef struct clik_fusion_options {
    int tile;        /* SSIM tile side, 2..16 (default 8) */
    int blur_ksize;  /* artifact-map Gaussian blur, odd, 1..31 (default 7; sigma as OpenCV's 0) */
    float threshold; /* blurred artifact above it takes the nearest image (default 0.05) */
} clik_fusion_options;

/* Fills *opt with the defaults. */
CLIK_API void clik_fusion_options_init(clik_fusion_options *opt);

/*
 * Fusion upscaling of a 3- or 4-channel u8 image by an integer scale
 * s = 2..8 (dst is s W x s H with src's channels):
 *   IMG1 = nearest upscale, IMG2 = bicubic upscale (as clik_resize);
 *   G1, G2 = their luma (as clik_gray, in src->order);
 *   artifact(x, y) = tile SSIM of G1, G2 over the tile holding (x, y)
 *                    * |G1(x, y) - G2(x, y)| / 255;
 *   B = Gaussian blur of artifact (blur_ksize, reflect-101);
 *   A = B > threshold;  dst = A ? IMG1 : IMG2.
 * artifact_map (NULL: not written) receives A as a u8 one-channel image of
 * dst's size: 255 where IMG1 was taken, else 0. opt NULL: the defaults.
 */
CLIK_API clik_status clik_upscale_fusion(clik_context *ctx, const clik_image *src, clik_image *dst,
                                         const clik_fusion_options *opt, clik_image *artifact_map);

/*
 * Streaming fusion for a sequence of frames of one size. Up to `depth`
 * frames (0: 3) are in flight, each slot with its own command queue, so that
 * the upload, kernels and download of consecutive frames overlap. A frame's
 * output is identical to clik_upscale_fusion's. Without a device (or when the
 * device cannot run it and the context allows a fallback) frames run on the
 * CPU, synchronously. The stream uses ctx; ctx must outlive it and is not
 * used for anything else while frames are in flight.
 */
typedef struct clik_fusion_stream clik_fusion_stream;

CLIK_API clik_status clik_fusion_stream_create(clik_context *ctx, int width, int height, int scale,
                                               const clik_fusion_options *opt, int depth,
                                               clik_fusion_stream **stream);
/* Queues one frame: src (host, RGBA or BGRA u8 of the stream's size; 3
 * channels are refused) is read and dst (host, 4-channel u8, scaled) and
 * artifact_map (NULL or host u8 one channel) are written asynchronously.
 * All three must stay valid and untouched until the frame completes: until
 * clik_fusion_stream_wait() returns for its ticket or a later one. Blocks
 * while `depth` frames are in flight. *ticket (may be NULL) numbers the
 * frame: 1, 2, ... */
CLIK_API clik_status clik_fusion_stream_submit(clik_fusion_stream *stream, const clik_image *src,
                                               clik_image *dst, clik_image *artifact_map,
                                               uint64_t *ticket);
/* Waits until every frame up to ticket (UINT64_MAX: all) has completed;
 * returns the first failure among them. */
CLIK_API clik_status clik_fusion_stream_wait(clik_fusion_stream *stream, uint64_t ticket);
/* Waits for the frames in flight and frees the stream. NULL is ignored. */
CLIK_API void clik_fusion_stream_destroy(clik_fusion_stream *stream);

/* ------------------------------------------------------------------------ */
/* Optical flow family (kernels/flow.cl)                                     */

/* How the iterated fields (the flow u and the dual variable p) are stored
 * between the steps of clik_flow_tvl1. */
typedef enum clik_flow_storage {
    CLIK_FLOW_STORAGE_AUTO = 0, /* f16 on OpenCL GPUs that report cl_khr_fp16, else f32 */
    CLIK_FLOW_STORAGE_F32,      /* 32-bit floats */
    CLIK_FLOW_STORAGE_F16,      /* 16-bit floats (half the memory traffic; arithmetic in f32,
                                   the dual update in f16 where the device has cl_khr_fp16;
                                   the scalar path stores f32 whatever is asked) */
} clik_flow_storage;

/* The stopping test runs after every CLIK_FLOW_CHECK_EVERY-th iteration of
 * a warp (10, 20, ...), on every path, so that the device and the oracle
 * stop at the same iteration. */
#define CLIK_FLOW_CHECK_EVERY 10
#define CLIK_FLOW_MAX_SCALES  100 /* most pyramid levels */
/* The smallest side of the images: the warp samples I1 with 4 x 4 bicubic
 * taps and takes no data term where they leave the image, so a smaller
 * image could only give a flow of 0 (it is refused instead). */
#define CLIK_FLOW_MIN_SIDE 4

/* Progress of clik_flow_tvl1, called from the calling thread between its
 * steps: after each stopping test (every CLIK_FLOW_CHECK_EVERY iterations
 * of a warp) and after each warp. done: the warps finished, of total (the
 * levels times the warps per level, the coarsest level first); iteration:
 * the iterations the warp under way has run (0 after a warp has ended).
 * Return 0 to go on, non-zero to stop: the call then fails with
 * CLIK_ERR_CANCELLED, the flow left as it was. */
typedef int (*clik_flow_progress_fn)(void *user, int done, int total, int iteration);

typedef struct clik_flow_options {
    double tau;       /* time step of the dual update, 0 < tau <= 0.25 (default 0.25) */
    double lambda;    /* weight of the data term, > 0 (default 0.15) */
    double theta;     /* coupling of u and v, > 0 (default 0.3) */
    int scales;       /* pyramid levels, 1..CLIK_FLOW_MAX_SCALES; 0: until the coarsest
                         is about 16 px, 1 + log(hypot(W, H) / 16) / log(1 / zoom) levels
                         (default 0). Levels stop early where a side would round to 0 */
    double zoom;      /* size ratio of a level to the one above, 0 < zoom < 1 (default 0.5) */
    int warps;        /* warps per level, >= 1 (default 5) */
    double epsilon;   /* stop when the mean squared change of (u, v) at a check is at most
                         epsilon^2, >= 0 (default 0.01) */
    int iterations;   /* most iterations per warp, >= 1 (default 300) */
    double sigma;     /* Gaussian pre-smoothing of both images, 0..100; 0: none (default 0.8) */
    int initial_flow; /* 1: flow holds an initial estimate on input (default 0) */
    clik_flow_storage storage;      /* default CLIK_FLOW_STORAGE_AUTO */
    clik_flow_progress_fn progress; /* NULL: none (the default) */
    void *progress_user;
} clik_flow_options;

/* Fills *opt with the defaults (those of the IPOL reference). */
CLIK_API void clik_flow_options_init(clik_flow_options *opt);

/*
 * TV-L1 optical flow (Zach, Pock, Bischof 2007) with the numerical scheme of
 * the IPOL reference (Sanchez Perez, Meinhardt-Llopis, Facciolo 2013): flow
 * such that I0(x, y) ~ I1(x + u, y + v).
 *   - I0 and I1 are normalised jointly to [0, 255], smoothed (sigma), and
 *     reduced level by level: Gaussian smoothing of sigma
 *     0.6 sqrt(1 / zoom^2 - 1), then bicubic sampling at (x / zoom, y / zoom);
 *     a level is (int)(side * zoom + 0.5) on each side.
 *   - From the coarsest level (flow 0, or the initial flow resampled to it
 *     and scaled by zoom per level), each level runs `warps` warps: I1 and
 *     its centred gradient sampled bicubically at (x + u, y + v) (0 where the
 *     4 x 4 taps leave the image), then at most `iterations` iterations of
 *     the thresholding step, the divergence and the update of u, and the
 *     dual update of p with the forward gradient of u (p starts at 0 on each
 *     level); the flow is then resampled bicubically to the next level and
 *     scaled by 1 / zoom.
 * The Gaussians are the library's blur (border reflect-101) with IPOL's taps
 * (radius (int)(5 sigma): as many taps as sigma and zoom ask, past
 * CLIK_BLUR_MAX_KSIZE too; an OpenCL device takes at most 16384, the 64 KiB
 * of constant memory every device has, and beyond that the call falls back
 * to the CPU or, in strict mode, fails with CLIK_ERR_FALLBACK). I0 and I1:
 * grey, or colour (3 or 4 channels, RGB(A) or BGR(A) as each image's order
 * says; alpha ignored) compared on its luma as clik_gray makes it (into
 * device images where the context has a device), of one format: u8 or f32,
 * 1, 3 or 4 channels; one size, at least
 * CLIK_FLOW_MIN_SIDE on each side (else CLIK_ERR_INVALID_SIZE) (non-finite
 * f32 pixels give non-finite flow where they reach).
 * flow: 2-channel f32 of that size, u and v interleaved (the .flo layout),
 * read first when opt->initial_flow is set; it may not share memory with I0
 * or I1. opt NULL: the defaults. Out-of-range options: CLIK_ERR_INVALID_ARG.
 * opt->progress may stop the run between steps (CLIK_ERR_CANCELLED).
 */
CLIK_API clik_status clik_flow_tvl1(clik_context *ctx, const clik_image *I0, const clik_image *I1,
                                    clik_image *flow, const clik_flow_options *opt);

/*
 * An image moved back along a flow: dst(x, y) = src sampled at (x + u, y + v),
 * (u, v) = flow(x, y) (a flow from clik_flow_tvl1(I0, I1) warps I1 onto I0).
 * Bytes identical to OpenCV 5's cv2.remap(src, x + u, y + v, INTER_LINEAR,
 * borderMode=BORDER_REPLICATE) with float maps (and its WARP_RELATIVE_MAP):
 * in f32, sx = x + u clamped to [-1, w] (fmin/fmax, so NaN gives -1), sy
 * likewise; a = sx - floor(sx), b = sy - floor(sy); the taps p00, p01, p10,
 * p11 at (floor(sx) + {0, 1}, floor(sy) + {0, 1}), each clamped into the
 * image; t0 = fma(a, p01 - p00, p00), t1 = fma(a, p11 - p10, p10), the pixel
 * fma(b, t1 - t0, t0) rounded half to even. Every channel alike.
 * src: u8, 1 to 4 channels; flow: 2-channel f32 of src's size; dst: src's
 * format and size. dst may not share memory with src or flow.
 */
CLIK_API clik_status clik_flow_warp(clik_context *ctx, const clik_image *src,
                                    const clik_image *flow, clik_image *dst);

/*
 * The temporal average of a camera pipeline's denoising step, in one pass:
 * dst = (ref + w + 1) >> 1 per channel, w the pixel of clik_flow_warp(src,
 * flow) (with a flow from clik_flow_tvl1(ref, src), src's content moved onto
 * ref's). ref: src's format and size; dst may be ref itself, and may not
 * otherwise share memory with ref, src or flow.
 */
CLIK_API clik_status clik_flow_warp_average(clik_context *ctx, const clik_image *ref,
                                            const clik_image *src, const clik_image *flow,
                                            clik_image *dst);

#ifdef __cplusplus
}
#endif

#include "clik_lapar.h"
#include "clik_lapar_net.h"
#include "clik_yuv.h"
#include "clik_import.h"

#endif /* CLIK_H */

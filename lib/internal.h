/* Internal interfaces of the host library. SPDX-License-Identifier: BSD-2-Clause */
#ifndef CLIK_INTERNAL_H
#define CLIK_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "clik.h"
#include "cpu.h"
#include "half.h"
#include "opencl.h"
#include "resize_geometry.h" /* Keys' cubic weights, for the resize, fusion and LAPAR families */

#define CLIK_MAX_DIM (1 << 20) /* largest width or height */
#define CLIK_ALIGN   128       /* alignment of library-allocated host memory */

#if defined(__GNUC__)
#define CLIK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLIK_PRINTF(f, a)
#endif

/* ---- small utilities (util.c) ------------------------------------------ */

typedef struct clik_strbuf {
    char *data;
    size_t len;
    size_t cap;
    int failed; /* an allocation failed; data holds what fitted */
} clik_strbuf;

void clik__sb_append(clik_strbuf *sb, const char *text, size_t len);
void clik__sb_vprintf(clik_strbuf *sb, const char *fmt, va_list ap);
void clik__sb_printf(clik_strbuf *sb, const char *fmt, ...) CLIK_PRINTF(2, 3);
void clik__sb_free(clik_strbuf *sb);
char *clik__strdup(const char *s);
int clik__strcasestr(const char *haystack, const char *needle);
/* Reads a whole file; NUL-terminates the result. */
clik_status clik__read_file(const char *path, char **data, size_t *len);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of n bytes. */
uint32_t clik__crc32(const uint8_t *p, size_t n);
/* Little-endian u32 and IEEE binary32 at p. */
uint32_t clik__get_u32(const uint8_t *p);
void clik__put_u32(uint8_t *p, uint32_t v);
float clik__get_f32(const uint8_t *p);
void clik__put_f32(uint8_t *p, float f);
/* IEEE binary16: clik__half_to_float, clik__float_to_half (fallback_cpu/half.h). */

/* 128-bit non-cryptographic hash as 32 hex digits plus NUL. */
void clik__hash_hex(const void *data, size_t len, char out[33]);

/* ---- images (image.c) ---------------------------------------------------- */

clik_status clik__image_layout(int width, int height, int channels, clik_type type, size_t stride,
                               size_t *row_bytes, size_t *span);
void *clik__aligned_alloc(size_t bytes);
void clik__aligned_free(void *p);

struct clik_buffer {
    clik_context *ctx;
    cl_mem mem; /* device memory (contexts with a device) */
    void *host; /* host memory (contexts without a device) */
    size_t bytes;
    struct clik_import *import; /* clik_image_import's record, else NULL */
    /* The last asynchronous transfer of the image (clik_image_upload_async,
     * clik_image_download_async) until an operation orders itself after it
     * (clik__buffer_settle), else NULL; pending_read: it reads the image. */
    cl_event pending;
    int pending_read;
};

/* Host memory of a context (clik_image_alloc_on): zero-copy, wrapped once in
 * a buffer over its own memory, on unified-memory devices; pinned (a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer) on discrete GPUs; plain memory without a
 * device. The context lists its blocks; a header just before data points
 * back to the block. */
typedef struct clik_host_block {
    clik_context *ctx;
    struct clik_host_block *prev, *next;
    unsigned char *data; /* what the image's data points to */
    size_t bytes;
    void *base;    /* the host allocation (zero-copy, no device), else NULL */
    cl_mem mem;    /* the buffer over data (zero-copy) or the pinned buffer */
    void *map;     /* pinned: the mapping, data lies inside it */
    int zero_copy; /* kernels use mem itself */
} clik_host_block;

/* The block of ctx that holds the span bytes at p, else NULL. */
clik_host_block *clik__host_block_find(clik_context *ctx, const void *p, size_t span);
/* A YUV frame format this library knows (NV12, NV21, I420), and its name
 * for messages (image.c). */
int clik__yuv_format_known(clik_yuv_format f);
const char *clik__yuv_format_name(clik_yuv_format f);
/* Releases every block left in ctx (clik_context_destroy). */
void clik__host_blocks_release(clik_context *ctx);

/* How host images reach the kernels (tuning key host_transfer). */
enum { CLIK_XFER_WRAP = 1, CLIK_XFER_DIRECT = 2, CLIK_XFER_STAGED = 3 };

/* A pinned staging buffer, mapped for its life; ev is its last transfer. */
typedef struct clik_staging {
    cl_mem mem;
    void *map;
    size_t bytes;
    cl_event ev;
} clik_staging;

#define CLIK_PARAM_ARENA (64 * 1024) /* host copies of small parameter uploads */

/* ---- imported memory (import.c) ------------------------------------------ */

/* What clik_image_import made for one image: a device buffer over the
 * memory (buffer->mem) on the paths without a copy, none on the copy path
 * and without a device; the memory as the host sees it in `host`. */
typedef struct clik_import {
    clik_import_kind kind;
    clik_import_path path;
    int read_only;
    int fd;              /* the library's duplicate of the caller's fd, else -1 */
    int sync;            /* 1: uses bracketed by DMA_BUF_IOCTL_SYNC (0 once ENOTTY said no) */
    void *map;           /* the fd's mapping (from its byte 0), else NULL */
    size_t map_bytes;    /* its length */
    unsigned char *host; /* the first pixel in host memory */
} clik_import;

/* The path for memory of `kind` whose first pixel is at `address` (host
 * memory, or an fd's mapping) `offset` bytes into an fd's buffer, rows
 * `pitch` bytes apart, on a device whose CL_DEVICE_EXTENSIONS are
 * `extensions` (NULL: no device) and whose CL_DEVICE_MEM_BASE_ADDR_ALIGN is
 * base_align bytes (0 read as 1). A pure function (clik_image_import's
 * order); read_only changes the flags of the buffer made, not the path. */
clik_import_path clik__import_select(const char *extensions, size_t base_align,
                                     clik_import_kind kind, uintptr_t address, size_t pitch,
                                     size_t offset, int read_only);
/* 1 when the space-separated list `extensions` holds `name` as a whole word. */
int clik__has_extension(const char *extensions, const char *name);
/* Binding and host views of an imported image (clik__bind, clik__unbind,
 * clik__host_view and clik__host_view_done call them; clik__import_bind
 * completes a binding whose layout clik__bind has filled and checked). */
struct clik_binding;
clik_status clik__import_bind(clik_context *ctx, const clik_image *img, int access,
                              struct clik_binding *b);
clik_status clik__import_unbind(clik_context *ctx, struct clik_binding *b, int ok);
clik_status clik__import_view(clik_context *ctx, const clik_image *img, int access,
                              clik_image *view);
clik_status clik__import_view_done(clik_context *ctx, const clik_image *img, clik_image *view,
                                   int access, int ok);
/* Upload (1) or download (0) between an imported image and host memory of
 * its format (clik_image_upload, clik_image_download). */
clik_status clik__import_transfer(clik_context *ctx, const clik_image *dev, const clik_image *host,
                                  int upload);
/* Releases what the import of b made, and b (clik_image_free). */
void clik__import_release(struct clik_buffer *b);

/* ---- kernel sources (kernel_source.c, generated kernels.c) -------------- */

typedef struct clik_embedded_kernel {
    const char *name;
    const char *source;
    size_t length;
} clik_embedded_kernel;

extern const clik_embedded_kernel clik__embedded_kernels[];
extern const size_t clik__embedded_kernel_count;

/* Loads dir/NAME.cl with every `#include "x.h"` line replaced by dir/x.h
 * (each header once). On failure writes a reason into err. */
clik_status clik__kernel_source_load(const char *dir, const char *name, clik_strbuf *out, char *err,
                                     size_t errlen);

/* ---- disk cache (cache.c) ----------------------------------------------- */

/* Returns CLIK_OK with the binary, CLIK_ERR_IO when there is no entry, and
 * CLIK_ERR_FILE_FORMAT when the entry exists but is corrupt or stale. */
clik_status clik__cache_load(const char *dir, const char *key, unsigned char **binary,
                             size_t *length);
/* Brackets handing a cached binary to the driver. guard_begin returns 1
 * when an earlier process died while the driver took this entry: the entry
 * is then removed and must be rebuilt; else it marks the load in progress
 * (*token) until guard_end. */
int clik__cache_guard_begin(const char *dir, const char *key, int *token);
void clik__cache_guard_end(const char *dir, const char *key, int token);
/* Writes an entry through a temporary file and a rename, after removing
 * the temporaries that killed writers left behind. CLIK_ERR_INVALID_ARG for
 * an empty binary or one over 64 MiB. */
clik_status clik__cache_store(const char *dir, const char *key, const unsigned char *binary,
                              size_t length);
/* Resolves the cache folder: option, $CLIK_CACHE_DIR, $XDG_CACHE_HOME/clik,
 * $HOME/.cache/clik. NULL when none applies or the cache is off. */
char *clik__cache_dir(const char *option, int enabled);

/* ---- the tuning registry (tuning_keys.h) ---------------------------------- */

typedef enum clik_tune_id {
#define CLIK_TUNE_KEY(id, ...) CLIK_TUNE_##id,
#include "tuning_keys.h"
#undef CLIK_TUNE_KEY
    CLIK_TUNE_COUNT
} clik_tune_id;

typedef enum clik_tune_kind {
    CLIK_TUNE_KIND_FLAG,
    CLIK_TUNE_KIND_INT,
    CLIK_TUNE_KIND_CHOICE
} clik_tune_kind;

typedef struct clik_tune_key {
    const char *name;
    const char *family; /* whose kernels read it; "*" for all */
    clik_tune_kind kind;
    long min, max;       /* INT: the range; FLAG 0..1; CHOICE 0..choices - 1 */
    const char *choices; /* CHOICE: "a|b|c" */
    const char *def;     /* how the default is chosen */
    const char *doc;
} clik_tune_key;

/* ---- contexts ------------------------------------------------------------ */

#define CLIK_MAX_KERNELS                                                                           \
    32 /* a program's kernels a context keeps: the flow family uses 17 on GPUs */
#define CLIK_MAX_EVENTS 32
#define CLIK_XFER_RING  64 /* asynchronous transfers in flight (transfer.c) */
#define CLIK_POOL_MAX   64 /* most temporary device buffers a context keeps */

typedef struct clik_kernel_entry {
    char name[64];
    cl_kernel kernel;
    size_t max_work_group; /* CL_KERNEL_WORK_GROUP_SIZE */
} clik_kernel_entry;

typedef struct clik_program_entry {
    char *name;
    char *options;
    cl_program program; /* NULL when the build failed */
    clik_status status; /* the build's outcome, kept so a broken kernel is built once */
    char *log;          /* the build log of a failed build */
    clik_kernel_entry kernels[CLIK_MAX_KERNELS];
    int nkernels;
} clik_program_entry;

typedef struct clik_pooled_buffer {
    cl_mem mem;
    size_t bytes;
} clik_pooled_buffer;

struct clik_context {
    /* settings */
    int strict;
    int local_memory;
    int profiling;
    clik_backend cpu_backend;
    char *cache_dir; /* NULL: no disk cache */
    char *kernel_dir;
    long tune[CLIK_TUNE_COUNT];              /* tuning values that were set */
    unsigned char tune_set[CLIK_TUNE_COUNT]; /* 1 where tune[] holds a value */
    clik_log_fn log;
    void *log_user;
    clik_compile_fn compile_fn;
    void *compile_user;
    struct clik_prepare_job *prepare; /* a background prepare running (prepare_job.c) */

    /* device; has_device 0 means CPU only */
    int has_device;
    clik_device_info dev;
    long loop_budget; /* see clik__loop_budget */
    const clik_cl_api *cl;
    cl_platform_id platform;
    cl_device_id device;
    cl_context clctx;
    cl_command_queue queue;
    /* Asynchronous transfers: their queue (made at the first), and the
     * events of tickets xfer_first .. xfer_next - 1 (NULL: done when queued),
     * at xfer_ring[ticket % CLIK_XFER_RING]. */
    cl_command_queue xfer_queue;
    cl_event xfer_ring[CLIK_XFER_RING];
    uint64_t xfer_first, xfer_next;
    char base_options[32]; /* -cl-std for every program */

    clik_program_entry **programs; /* each allocated once: kernel handles never move */
    int nprograms;
    int programs_cap;
    clik_pooled_buffer pool[CLIK_POOL_MAX];
    int pool_capacity; /* tuning pool_buffers, default 6 */
    int poison;        /* tuning poison=1: fill scratch and new images with garbage */

    /* events of the running operation, for profiling */
    cl_event events[CLIK_MAX_EVENTS];
    char event_kernels[CLIK_MAX_EVENTS][64]; /* the kernel of each event (a copy) */
    int nevents;
    int host_pending; /* buffers over host memory released with commands queued */

    int host_unified;        /* CL_DEVICE_HOST_UNIFIED_MEMORY, or a CPU device */
    int transfer;            /* CLIK_XFER_*: the path of host images */
    clik_host_block *blocks; /* clik_image_alloc_on's live blocks */
    clik_staging staging[2];
    unsigned char *param_arena; /* see clik__write_bytes */
    size_t param_used;

    /* The LAPAR network weights of the last run, kept on the device for the
     * next (ops/lapar_net.c); released with the context. */
    struct {
        uint64_t serial; /* the network's (0: none) */
        int cob;         /* the layout's channel groups */
        int wino;        /* the layout's Winograd steps (lnet_wino) */
        cl_mem mem;
        size_t bytes;
        size_t *off; /* per step: weights, then biases (2 nsteps) */
    } lnet;
    /* The LAPAR network's tensors of the last run, zero-bordered, kept for
     * the next run of the same layout (no allocation, no clearing, no wait
     * for a full pool); released with the context or by a run of another
     * layout. */
    struct {
        cl_mem t[8];
        size_t bytes[8];
        size_t key[16]; /* the layout they were made for */
    } lnet_ws;

    /* The geometry tables of the last resizes (ops/resize_opencl.c), and
     * their release, which the resize family sets with the tables and
     * context destroy calls. */
    struct clik_resize_geo *resize_geo;
    void (*resize_geo_release)(clik_context *ctx);

    /* The tuning store's answers this context has read (tune_store.c). */
    struct clik_tune_memo *tune_memo;
    int tune_memo_n;

    clik_cpu_dsp dsp;
    int threads;                 /* of the CPU path, the calling thread's included */
    clik_cpu_pool *threads_pool; /* made at the first CPU operation when threads > 1 */
    long threads_pid;            /* the process that made threads_pool */
    clik_backend last_backend;
    clik_status fallback_cause; /* see clik_context_fallback_cause() */
    clik_context_stats stats;
    clik_strbuf message;
};

/* ---- messages (status.c) ------------------------------------------------- */

/* Records a failure in ctx's message (at most 1023 bytes) and returns
 * status. ctx may be NULL: this thread's message of clik_context_create. */
clik_status clik__fail(clik_context *ctx, clik_status status, const char *fmt, ...)
    CLIK_PRINTF(3, 4);
/* The same for an OpenCL error code: "what: CL_OUT_OF_RESOURCES (-5)". */
clik_status clik__fail_cl(clik_context *ctx, cl_int err, const char *what);
/* The same without a length limit, `log` (a build log) after the text; the
 * arguments must not point into ctx's message. */
clik_status clik__fail_log(clik_context *ctx, clik_status status, const char *log, const char *fmt,
                           ...) CLIK_PRINTF(4, 5);
/* Empties this thread's message of clik_context_create. */
void clik__create_message_clear(void);
/* Hands a diagnostic to the context's log callback, if any. */
void clik__log(clik_context *ctx, clik_log_level level, const char *fmt, ...) CLIK_PRINTF(3, 4);

/* The most loop iterations, all loops together, that one work-item of the
 * device may run; 0 for no limit. Mesa's llvmpipe ends every loop of a
 * work-item once they have run 65535 iterations in all (gallivm's loop
 * limiter) and goes on silently with wrong results; kernels whose
 * work-items walk whole rows or strips size them to stay within this
 * budget (with a margin below the limit). */
#define CLIK_LLVMPIPE_LOOP_BUDGET 60000L
static inline long clik__loop_budget(const clik_context *ctx)
{
    return ctx->loop_budget;
}

/* Rows per work-item of the filter family's blur_cpu for w x h images of
 * ch channels and ksize taps: a few bands per compute unit, fewer rows
 * where the loop budget asks; 0 when not even one row fits the budget (then
 * the two passes). With h <= 0, the budget's bound alone (0: none). */
int clik__blur_band_rows(const clik_context *ctx, int w, int ch, int h, int ksize);

/* The filter family's blur of a packed w x h f32 plane on the device (dst
 * is not src) with ksize weights in the buffer taps: blur_cpu with its ring
 * where band_rows > 0 (clik__blur_band_rows), else a row pass into tmp (a
 * plane of that size) and a column pass. For other families (the flow). */
clik_status clik__blur_plane(clik_context *ctx, cl_mem src, cl_mem dst, int w, int h, cl_mem taps,
                             int ksize, int band_rows, cl_mem ring, cl_mem tmp);

/* Rows per band of the CPU-device kernels that give a work-item a band of
 * `rows` rows: the value of tuning key id where set, else a few bands per
 * compute unit; at least 1. */
long clik__band_rows(const clik_context *ctx, int id, long rows);

/* ---- tuning (tuning.c, tuning_keys.h) ------------------------------------ */

/* The value of a key when $CLIK_TUNE or the tuning option set it (checked
 * against the registry's range when the context was made), else def. FLAG
 * keys are 0 or 1; CHOICE keys the index of the choice. */
long clik__tune(const clik_context *ctx, clik_tune_id id, long def);
/* 1 when the key has a value of its own (as clik__tune returns it). */
int clik__tune_given(const clik_context *ctx, clik_tune_id id);
/* Parses "key=value,..." into ctx's tuning values; source names the string
 * in messages ("CLIK_TUNE"). Unknown keys and values out of range fail with
 * CLIK_ERR_INVALID_ARG and the create message of this thread. */
clik_status clik__tune_parse(clik_context *ctx, const char *text, const char *source);
/* Registry entry id (0 .. CLIK_TUNE_COUNT - 1), else NULL. */
const clik_tune_key *clik__tune_key(int id);
/* The values a key takes, as the README writes them ("0|1", "1..1024"). */
void clik__tune_values(const clik_tune_key *k, char *out, size_t cap);

/* ---- the tuning store (tune_store.c) ---------------------------------------- */

/* The result of a work-group search for one (device, kernel, problem class). */
typedef struct clik_tune_record {
    int variant; /* the family's kernel variant, 0..255 */
    int wg[3];   /* work-group shape, each 1..65536 */
    double ms;   /* its kernel time, finite, 0..1e9 */
} clik_tune_record;

#define CLIK_TUNE_RECORD_MAX 512 /* bytes of a record's text */

/* The record of (ctx's device, kernel `kernel` of program `program`,
 * problem) in the tuning store, the folder "tune" in ctx's kernel cache
 * folder: CLIK_OK with *rec; CLIK_ERR_IO when there is none (or no cache
 * folder); CLIK_ERR_FILE_FORMAT when the entry is corrupt, foreign or of
 * another format (ignored; a store replaces it). Entries of another library
 * version, driver or kernel source have other keys: they are never read.
 * A context reads an entry once and answers later loads from memory (its
 * own stores update that answer; another process's are seen by new
 * contexts), so a stream of calls does not hash sources and open files. */
clik_status clik__tune_load(clik_context *ctx, const char *program, const char *kernel,
                            const char *problem, clik_tune_record *rec);
/* Stores a record, atomically (a cache entry: a temporary file renamed).
 * CLIK_ERR_IO without a cache folder or when the file cannot be written. */
clik_status clik__tune_store(clik_context *ctx, const char *program, const char *kernel,
                             const char *problem, const clik_tune_record *rec);
/* Forgets the answers clik__tune_load remembered (at context destroy). */
void clik__tune_memo_free(clik_context *ctx);

/* ---- ahead-of-time compilation (prepare_job.c; the operations: ops/prepare.c) */

/* Starts run(second, user) on a thread of its own, where second is a new
 * context of ctx's device with ctx's settings and kernel cache folder
 * (destroyed when run returns); ctx keeps the job until
 * clik_context_prepare_wait, which returns run's status. user is the
 * caller's malloc'd block, the job's from now on (freed with it, or here
 * on failure). */
clik_status clik__prepare_start(clik_context *ctx,
                                clik_status (*run)(clik_context *ctx, void *user), void *user);
/* Waits for ctx's background prepare, if one runs, keeping its status for
 * clik_context_prepare_wait; 1 when there was one to wait for. */
int clik__prepare_join(clik_context *ctx);
/* The key of that entry (clik__cache_load's), in *key; 0 on success. */
int clik__tune_entry_key(clik_context *ctx, const char *program, const char *kernel,
                         const char *problem, clik_strbuf *key);
/* A record's text, NUL-terminated, and its parser, which accepts exactly
 * the text clik__tune_record_format writes for kernel and problem (1), and
 * nothing else (0). Problems and kernels are printable, without newlines. */
size_t clik__tune_record_format(const char *kernel, const char *problem,
                                const clik_tune_record *rec, char *out, size_t cap);
int clik__tune_record_parse(const char *text, size_t len, const char *kernel, const char *problem,
                            clik_tune_record *rec);
/* Runs run(ctx, user) once, then reps times more, on a profiling queue of
 * ctx's device (a queue of its own when ctx does not profile); *ms is the
 * least device time of the kernels of one of the timed runs (the
 * operation's clik_context_stats.last_kernel_ms). A failure of run is
 * returned as it is. */
clik_status clik__tune_time(clik_context *ctx, clik_status (*run)(clik_context *ctx, void *user),
                            void *user, int reps, double *ms);

/* ---- devices (device.c) -------------------------------------------------- */

/* Like clik_devices_list(), also returning the OpenCL handles. */
clik_status clik__devices_query(clik_device_info **list, cl_platform_id **platforms,
                                cl_device_id **devices, int *count);

/* ---- programs (program.c) ------------------------------------------------ */

/* The kernel `kernel` of program `program` (kernels/PROGRAM.cl) built with
 * the device's base options plus `options`; built or loaded once. The entry
 * stays valid for the life of the context. A failure to build is
 * CLIK_ERR_BUILD (the message holds the log), never a caller error. */
clik_status clik__kernel(clik_context *ctx, const char *program, const char *options,
                         const char *kernel, clik_kernel_entry **out);
void clik__programs_release(clik_context *ctx);
/* Kernel `kernel` of a program built for pixels of type t (u8 or f32) with
 * ch channels (-DT, -DT_IS_FLOAT, -DCH), and `extra` options ("" for none). */
clik_status clik__pixel_kernel(clik_context *ctx, const char *program, clik_type t, int ch,
                               const char *extra, const char *kernel, clik_kernel_entry **out);

/* ---- launching (launch.c) ------------------------------------------------ */

/* Sets kernel argument idx; on failure records it and returns the status. */
clik_status clik__arg(clik_context *ctx, clik_kernel_entry *k, unsigned idx, size_t size,
                      const void *value);
#define CLIK_ARG(ctx, k, idx, value) clik__arg((ctx), (k), (idx), sizeof(value), &(value))

/* All arguments of a kernel at once: CLIK_ARGS(ctx, k, CLIK_A(x), CLIK_A(y)). */
typedef struct clik_arg_value {
    size_t size;
    const void *value;
} clik_arg_value;
#define CLIK_A(v)                                                                                  \
    {                                                                                              \
        sizeof(v), &(v)                                                                            \
    }
clik_status clik__args(clik_context *ctx, clik_kernel_entry *k, unsigned first,
                       const clik_arg_value *args, unsigned count);
/* The same from argument `first` on: CLIK_ARGS_AT(ctx, k, 9, CLIK_A(x)). */
#define CLIK_ARGS_AT(ctx, k, first, ...)                                                           \
    clik__args((ctx), (k), (first), (const clik_arg_value[]){__VA_ARGS__},                         \
               (unsigned)(sizeof((const clik_arg_value[]){__VA_ARGS__}) / sizeof(clik_arg_value)))
#define CLIK_ARGS(ctx, k, ...) CLIK_ARGS_AT(ctx, k, 0, __VA_ARGS__)
/* A __local argument of `bytes` in CLIK_ARGS. */
#define CLIK_LOCAL(bytes)                                                                          \
    {                                                                                              \
        (bytes), NULL                                                                              \
    }

/* Enqueues k over `items` work-items per dimension with work-groups of at
 * most `local` (shrunk to the device's and kernel's limits); the global size
 * is rounded up to whole work-groups, so kernels bound-check. */
clik_status clik__launch(clik_context *ctx, clik_kernel_entry *k, unsigned dims,
                         const size_t *items, const size_t *local);
/* Shrinks a work-group shape (dims sizes, 0 read as 1) to the device's
 * per-dimension and total limits and the kernel's own, halving the largest
 * side first. */
void clik__fit_local(const clik_context *ctx, const clik_kernel_entry *k, unsigned dims,
                     size_t *local);
/* Like clik__launch with an exact local size; fails if the device refuses it. */
clik_status clik__launch_exact(clik_context *ctx, clik_kernel_entry *k, unsigned dims,
                               const size_t *global, const size_t *local);
/* Adds the event of an enqueued command to the operation's profile. */
void clik__track_event(clik_context *ctx, cl_event ev, const char *kernel);
/* Waits for the tracked events, adds their device time to the context's
 * stats and logs each kernel's time (debug level); forgets them. A failed
 * wait is CLIK_ERR_OPENCL with a message. */
clik_status clik__collect_events(clik_context *ctx);

/* ---- device buffers (pool.c) --------------------------------------------- */

/* A device buffer of `bytes` from the pool, or new (poisoned if asked). */
clik_status clik__temp_buffer(clik_context *ctx, size_t bytes, cl_mem *mem);
/* Gives a buffer of clik__temp_buffer back to the pool (NULL: nothing). */
void clik__temp_release(clik_context *ctx, cl_mem mem, size_t bytes);
/* Releases the buffers the pool keeps (clik_context_destroy). */
void clik__pool_release(clik_context *ctx);
/* The CPU path's thread pool (context.c): NULL with one thread. */
clik_cpu_pool *clik__threads_pool(clik_context *ctx);
/* Fills a buffer with garbage when the context poisons (tuning poison=1), so
 * that a kernel reading what nothing wrote fails its comparison. */
clik_status clik__poison(clik_context *ctx, cl_mem mem, size_t bytes);
/* Releases a buffer that queued commands may still use, after the queue. */
void clik__release_after_queue(clik_context *ctx, cl_mem mem);

/* ---- pinned staging (staging.c) ------------------------------------------ */

/* Image rows (row bytes each; `stride` apart in mem, host_stride in host)
 * to (upload) or from mem in bands through the two staging buffers. */
clik_status clik__staged_transfer(clik_context *ctx, cl_mem mem, size_t stride, unsigned char *host,
                                  size_t host_stride, size_t row, int height, int upload);
/* Releases the staging buffers (clik_context_destroy). */
void clik__staging_release(clik_context *ctx);

/* ---- transfers (transfer.c) ---------------------------------------------- */

/* Blocking copy of `height` rows of `row` bytes between mem (rows
 * mem_stride apart) and host memory (host_stride apart); write: to mem. */
clik_status clik__transfer_rows(clik_context *ctx, cl_mem mem, size_t mem_stride, void *host,
                                size_t host_stride, size_t row, int height, int write);
/* Orders the context's queue after b's asynchronous transfer in flight
 * before an operation uses b with `access` (CLIK_READ, CLIK_WRITE or both;
 * reading an image that a download reads needs no order). */
clik_status clik__buffer_settle(clik_context *ctx, struct clik_buffer *b, int access);
/* Waits for every asynchronous transfer of the context (its tickets). */
clik_status clik__xfer_drain(clik_context *ctx);
/* Copies of small results and parameters (tables, histograms). A read
 * waits; a write of up to CLIK_PARAM_ARENA bytes is queued from a copy in
 * the context (the caller's memory may be reused at once), larger ones wait. */
clik_status clik__read_bytes(clik_context *ctx, cl_mem mem, void *out, size_t bytes);
clik_status clik__write_bytes(clik_context *ctx, cl_mem mem, const void *in, size_t bytes);

/* ---- binding images to kernels and to the CPU path (bind.c) -------------- */

/* CLIK_KERNEL_RW: kernels write the image and later kernels read it back
 * (a level of a pyramid); its host content is neither uploaded nor needed. */
enum { CLIK_READ = 1, CLIK_WRITE = 2, CLIK_KERNEL_RW = 4 };

typedef struct clik_binding {
    cl_mem mem;
    size_t stride; /* bytes between rows in mem */
    size_t span;   /* bytes the image covers */
    size_t alloc;  /* bytes of mem when it was made for this binding */
    size_t row_bytes;
    int access;
    int owned;        /* mem was made for this binding */
    int pooled;       /* mem goes back to the pool */
    int mapped_host;  /* mem uses the host image's memory */
    int base_aligned; /* the image starts 16-byte aligned in mem */
    int scratch;      /* a device-only intermediate: nothing to bring back */
    int staged;       /* results come back through the pinned staging buffers */
    clik_image image;
    clik_import *import; /* an imported image's record (import.c) */
} clik_binding;

/* Makes an image usable by a kernel: device images as they are; context
 * images (clik_image_alloc_on) through their zero-copy buffer; other host
 * images as ctx->transfer says: wrapped in place (CPU devices), or through
 * a device copy, directly or in bands through pinned staging buffers. */
clik_status clik__bind(clik_context *ctx, const clik_image *img, int access, clik_binding *b);
/* A packed device-only image from the pool, for intermediate results. */
clik_status clik__bind_scratch(clik_context *ctx, int width, int height, int channels,
                               clik_type type, clik_binding *b);
/* 1 when every 16-byte chunk of the bound images walked with the given row
 * strides starts 16-byte aligned (the ALIGNED kernel variants). */
int clik__aligned16(const clik_binding *const *b, int count, int contiguous);
/* The version of a kernel that two images allow (its `align` argument, the
 * NAME_any, NAME_pix and NAME_a16 kernels of kernels/resize.cl and
 * kernels/pyramid.cl): CLIK_ALIGN_16 where every pixel starts at a multiple
 * of its size (images and rows: clik__pixel_aligned) and so do the 16-byte
 * chunks the kernel writes in dst (and, with reads_chunks, those it reads in
 * src), CLIK_ALIGN_PIX where only the pixels do. */
enum { CLIK_ALIGN_NONE = 0, CLIK_ALIGN_PIX = 1, CLIK_ALIGN_16 = 2 };
int clik__pixel_aligned(const clik_binding *b);
int clik__align_mode(const clik_binding *src, const clik_binding *dst, int reads_chunks);
/* Brings results back to host images (if ok) and releases the binding. */
clik_status clik__unbind(clik_context *ctx, clik_binding *b, int ok);
/* Elements (not bytes) between rows of a binding, as kernels index them. */
int clik__elems(const clik_binding *b);
/* CLIK_ERR_DEVICE_LIMITS (fn names the caller in the message) unless the
 * row strides of b[0 .. count) fit the kernels' int stride arguments, in
 * elements or, with in_bytes, in bytes: a host image's stride may be
 * longer. */
clik_status clik__check_int_strides(clik_context *ctx, clik_binding *const *b, int count,
                                    int in_bytes, const char *fn);

/* Host views of images for the CPU path: device images are downloaded. */
clik_status clik__host_view(clik_context *ctx, const clik_image *img, int access, clik_image *view);
/* Uploads a written view of a device image and frees the view. */
clik_status clik__host_view_done(clik_context *ctx, const clik_image *img, clik_image *view,
                                 int access, int ok);

/* ---- checks of image arguments (check.c) --------------------------------- */

/* 1 if a and b are the same pixels (in-place operation), 0 if disjoint;
 * CLIK_ERR_INVALID_ARG is returned through *st for a partial overlap. */
int clik__same_image(const clik_image *a, const clik_image *b, clik_status *st);
/* 1 if a and b share any memory (the same image included), else 0. */
int clik__images_overlap(const clik_image *a, const clik_image *b);
/* Checks an image argument of an operation and that a device image belongs
 * to ctx. */
clik_status clik__check_image(clik_context *ctx, const clik_image *img, const char *what);

/* Format masks for clik__check_format: element types (CLIK_TYPES(CLIK_U8,
 * CLIK_F32)) and channel counts (CLIK_CHANNELS(1, 4)). */
#define CLIK_TYPE_BIT(t) (1u << (unsigned)(t))
#define CLIK_TYPES(...)  clik__mask((const int[]){__VA_ARGS__, -1})
#define CLIK_CHANNELS    CLIK_TYPES
#define CLIK_ANY         0u
static inline unsigned clik__mask(const int *list)
{
    unsigned m = 0;
    for (; *list >= 0; list++)
        m |= 1u << (unsigned)*list;
    return m;
}
/* Checks an image argument (clik__check_image), then its format: a type
 * of the mask `types`, a channel count of `channels` (CLIK_ANY: any), and
 * a size of width x height when width > 0. `what` names the argument in
 * messages ("clik_pyr_down: dst"). */
clik_status clik__check_format(clik_context *ctx, const clik_image *img, const char *what,
                               unsigned types, unsigned channels, int width, int height);
/* The same, for an image of ref's type and channel count. */
clik_status clik__check_like(clik_context *ctx, const clik_image *img, const clik_image *ref,
                             const char *what, int width, int height);
/* The source of a pixel operation (filters, pyramids, resize, integral):
 * u8 or f32 with 1 to 4 channels, of any size. */
clik_status clik__check_pixels(clik_context *ctx, const clik_image *img, const char *what);
/* Fails with CLIK_ERR_INVALID_ARG ("WHAT: overlapping images") when a and b share
 * memory; with in_place, the same image twice is allowed. */
clik_status clik__check_apart(clik_context *ctx, const clik_image *a, const clik_image *b,
                              int in_place, const char *what);
/* The images of an upload or download (`what`): a device image and a host
 * image of one format. */
clik_status clik__check_transfer(clik_context *ctx, const clik_image *dev, const clik_image *host,
                                 const char *what);

/* ---- the LAPAR upsample (ops/lapar.c), shared with the LAPAR model ---------- */

/* Enqueues U = the upsample of the bound image lr by scale into up (F32,
 * lr's channels, scale times its size), as clik_lapar_upsample. */
clik_status clik__lapar_upsample_cl(clik_context *ctx, const clik_binding *lr, int scale,
                                    const clik_binding *up);
/* The same into u, a buffer of U's colour planes (w x h floats each, rows
 * w apart: one plane for 1 channel, three for 4, alpha left out); phi
 * (NULL or the call's coefficients) picks the programs' options. */
clik_status clik__lapar_upsample_planes_cl(clik_context *ctx, const clik_binding *lr, int scale,
                                           const clik_image *phi, cl_mem u);

/* ---- the LAPAR networks built into the library (lib/models/meson.build) ---- */

typedef struct clik_net_blob {
    const char *name; /* "lapar-a", "lapar-b", "lapar-c" */
    int scale;
    const unsigned char *data; /* a .clikn model file */
    size_t size;
} clik_net_blob;
extern const clik_net_blob clik__lapar_net_blobs[];
extern const int clik__lapar_net_blob_count;

/* The LAPAR filter (ops/lapar.c) on images checked by the caller, with phi
 * of dict->atoms planes: on bindings b[0] lr, b[1] phi, b[2] dst (enqueued
 * on ctx's device), or on host images. */
clik_status clik__lapar_filter_bound(clik_context *ctx, const clik_lapar_dict *dict, int scale,
                                     clik_binding *const *b);
clik_status clik__lapar_filter_host(clik_context *ctx, const clik_lapar_dict *dict, int scale,
                                    const clik_image *lr, const clik_image *phi, clik_image *dst);

/* ---- running operations (dispatch.c) ------------------------------------- */

/* An image argument of an operation, and how the operation uses it:
 * CLIK_READ, CLIK_WRITE, both (in place), with CLIK_KERNEL_RW for images
 * that kernels write and later kernels read back. */
typedef struct clik_op_image {
    const clik_image *image;
    int access;
} clik_op_image;

#define CLIK_OP_MAX_IMAGES 40 /* a pyramid of 32 levels and its source, with room */

/*
 * An operation's two paths. clik__run_op binds its images once: the OpenCL
 * path gets b[i], image i bound for kernels (device images as they are,
 * host images in place on CPU devices or through a device copy), and the
 * CPU path v[i], a host view of image i (device images downloaded). An
 * image given twice (in place) has one binding or view, with both accesses.
 * Written images are brought back only when the path succeeded.
 */
typedef struct clik_op {
    const char *name; /* in messages and logs */
    clik_status (*opencl)(clik_context *ctx, void *args, clik_binding *const *b); /* or NULL */
    clik_status (*cpu)(clik_context *ctx, void *args, clik_image *const *v);
} clik_op;

/* clik__run_op for an operation whose paths read 1 or 4 channels: each
 * 3-channel image is given to them as a 4-channel copy, widened on the
 * device by a kernel (on the CPU path, on the host) where it is read and
 * packed back where it is written (lib/rgba.c). */
clik_status clik__run_op_rgba(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                              int count, void *args);
/* clik__run_op_rgba of an operation from one source to one destination. */
clik_status clik__run_op_pair(clik_context *ctx, const clik_op *op, const clik_image *src,
                              clik_image *dst, void *args);
/* clik__run_op_rgba with 2-channel images widened too (the interleaved
 * chroma of NV12 and NV21), for operations that treat channels alike. */
clik_status clik__run_op_rgba2(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                               int count, void *args);

/* Runs op on its images (count of them) with the fallback policy, and
 * records where it ran. */
clik_status clik__run_op(clik_context *ctx, const clik_op *op, const clik_op_image *images,
                         int count, void *args);

/* The end of an operation's OpenCL path that returned st: waits for
 * buffers over host memory and for the profiled events; a failed wait
 * fails an operation that had succeeded. */
clik_status clik__finish_op(clik_context *ctx, clik_status st);

/* After the OpenCL path of op failed with st: CLIK_OK when the CPU path
 * may run (the fall back is logged and counted), else the status to
 * return (a caller error as it is; under strict mode CLIK_ERR_FALLBACK,
 * or CLIK_ERR_BUILD with the build log). */
clik_status clik__fallback(clik_context *ctx, const char *op, clik_status st);

#endif

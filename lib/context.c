/* Contexts: options and settings, device set-up, accessors. SPDX-License-Identifier: BSD-2-Clause
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void clik_context_options_init(clik_context_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof(*opt));
    opt->cache = -1;
    opt->strict = -1;
    opt->cpu_path = CLIK_CPU_AUTO;
    opt->local_memory = -1;
    opt->profiling = -1;
    opt->threads = -1;
}

/* ---- settings ------------------------------------------------------------- */

/* Parses an on/off value; returns -1 when the text is neither. */
static int parse_bool(const char *v)
{
    static const char *const on[] = {"1", "on", "yes", "true"};
    static const char *const off[] = {"0", "off", "no", "false"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, on[i]) == 0)
            return 1;
        if (strcasecmp(v, off[i]) == 0)
            return 0;
    }
    return -1;
}

/* An on/off setting: the option if set, else the variable, else def. With
 * allow_auto, "auto" in the variable gives def. */
static clik_status resolve_bool(int option, const char *var, int def, int allow_auto, int *out)
{
    if (option >= 0) {
        *out = option != 0;
        return CLIK_OK;
    }
    const char *v = getenv(var);
    if (!v || !*v || (allow_auto && strcasecmp(v, "auto") == 0)) {
        *out = def;
        return CLIK_OK;
    }
    int b = parse_bool(v);
    if (b < 0)
        return clik__fail(NULL, CLIK_ERR_INVALID_ARG, "%s=%s: expected on or off%s", var, v,
                          allow_auto ? " or auto" : "");
    *out = b;
    return CLIK_OK;
}

int clik_cpu_path_available(clik_cpu_path path)
{
    return path == CLIK_CPU_NEON ? clik__cpu_have_neon()
                                 : path == CLIK_CPU_SCALAR || path == CLIK_CPU_AUTO;
}

/* *out: the CPU path; *automatic: 1 when neither the option nor the
 * variable chose it. */
static clik_status resolve_cpu_path(clik_cpu_path option, clik_backend *out)
{
    clik_cpu_path path = option;
    if (path == CLIK_CPU_AUTO) {
        const char *v = getenv("CLIK_CPU_PATH");
        if (v && *v && strcasecmp(v, "auto") != 0) {
            if (strcasecmp(v, "scalar") == 0)
                path = CLIK_CPU_SCALAR;
            else if (strcasecmp(v, "neon") == 0)
                path = CLIK_CPU_NEON;
            else
                return clik__fail(NULL, CLIK_ERR_INVALID_ARG,
                                  "CLIK_CPU_PATH=%s: expected scalar, neon or auto", v);
        }
    } else if (path != CLIK_CPU_SCALAR && path != CLIK_CPU_NEON) {
        return clik__fail(NULL, CLIK_ERR_INVALID_ARG, "unknown cpu_path %d", (int)path);
    }
    if (path == CLIK_CPU_NEON && !clik__cpu_have_neon())
        return clik__fail(NULL, CLIK_ERR_NO_NEON,
                          "the NEON path was asked for, but this build "
                          "of clik has no NEON code");
    /* The NEON path wherever it is built: through SIMDe on x86 it is still
     * several times faster than the scalar oracle (1920 x 1080 RGB 7 x 7
     * blur: 28 against 206 ms on one core), which stays selectable. */
    if (path == CLIK_CPU_AUTO)
        path = clik__cpu_have_neon() ? CLIK_CPU_NEON : CLIK_CPU_SCALAR;
    *out = path == CLIK_CPU_NEON ? CLIK_BACKEND_NEON : CLIK_BACKEND_SCALAR;
    return CLIK_OK;
}

/* The CPU path's threads: the option if set, else $CLIK_THREADS, else the
 * usable cores. A bad option is refused; a bad variable is ignored with a
 * logged reason (the process environment is not the caller's argument). */
static clik_status resolve_threads(clik_context *ctx, int option)
{
    if (option > 0 && option <= CLIK_MAX_THREADS) {
        ctx->threads = option;
        return CLIK_OK;
    }
    if (option != 0 && option != -1)
        return clik__fail(NULL, CLIK_ERR_INVALID_ARG, "threads %d: expected 1..%d, or -1 for auto",
                          option, CLIK_MAX_THREADS);
    ctx->threads = clik__cpu_usable_cores();
    const char *v = getenv("CLIK_THREADS");
    if (!v || !*v || strcasecmp(v, "auto") == 0)
        return CLIK_OK;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end == '\0' && end != v && n >= 1 && n <= CLIK_MAX_THREADS)
        ctx->threads = (int)n;
    else
        clik__log(ctx, CLIK_LOG_WARNING,
                  "clik: CLIK_THREADS=%s ignored: expected 1..%d or auto; using %d threads", v,
                  CLIK_MAX_THREADS, ctx->threads);
    return CLIK_OK;
}

/* The pool of the CPU path, started at its first operation. */
clik_cpu_pool *clik__threads_pool(clik_context *ctx)
{
    if (ctx->threads <= 1)
        return NULL;
    /* After a fork the child has none of the pool's helpers: it starts its
     * own, leaving the parent's pool (whose lock a helper may have held at
     * the fork) untouched. */
    if (ctx->threads_pool && ctx->threads_pid != getpid()) {
        clik__cpu_pool_forget(ctx->threads_pool);
        ctx->threads_pool = NULL;
    }
    if (!ctx->threads_pool) {
        ctx->threads_pid = getpid();
        ctx->threads_pool = clik__cpu_pool_new(ctx->threads);
        const int running = ctx->threads_pool ? clik__cpu_pool_start(ctx->threads_pool) : 1;
        if (running < ctx->threads)
            clik__log(ctx, CLIK_LOG_DEBUG,
                      "clik: the CPU path runs on %d thread(s) of the %d asked for: %s", running,
                      ctx->threads,
                      ctx->threads_pool ? "a thread could not be created" : "out of memory");
        if (running <= 1) {
            clik__cpu_pool_free(ctx->threads_pool);
            ctx->threads_pool = NULL;
            ctx->threads = 1;
        }
    }
    return ctx->threads_pool;
}

/* ---- device set-up ------------------------------------------------------- */

/* "none", whatever its case and spaces: the CPU, without loading OpenCL. */
static int spec_is_none(const char *spec)
{
    while (isspace((unsigned char)*spec))
        spec++;
    size_t n = strlen(spec);
    while (n > 0 && isspace((unsigned char)spec[n - 1]))
        n--;
    return n == 4 && strncasecmp(spec, "none", 4) == 0;
}

static clik_status open_device(clik_context *ctx, const char *spec)
{
    if (spec_is_none(spec))
        return CLIK_OK;
    clik_device_info *list;
    cl_platform_id *platforms;
    cl_device_id *devices;
    int count, index;
    clik_status st = clik__devices_query(&list, &platforms, &devices, &count);
    if (st != CLIK_OK)
        return clik__fail(NULL, st, "listing OpenCL devices failed");
    st = clik_device_select(list, count, spec, &index);
    if (st != CLIK_OK) {
        const char *why = "";
        const char *lib = clik_opencl_library(&why);
        if (st == CLIK_ERR_DEVICE_SPEC)
            clik__fail(NULL, st,
                       "device '%s': expected auto, gpu, cpu, none, P:D or a name substring", spec);
        else if (!lib)
            clik__fail(NULL, st, "device '%s': no OpenCL library could be loaded (%s)", spec, why);
        else
            clik__fail(NULL, st, "device '%s': none of the %d OpenCL device(s) matches", spec,
                       count);
    } else if (index >= 0) {
        ctx->cl = clik__cl();
        ctx->dev = list[index];
        ctx->loop_budget =
            clik__strcasestr(ctx->dev.name, "llvmpipe") ? CLIK_LLVMPIPE_LOOP_BUDGET : 0;
        ctx->platform = platforms[index];
        ctx->device = devices[index];
    }
    free(list);
    free(platforms);
    free(devices);
    if (st != CLIK_OK || index < 0)
        return st;

    const clik_cl_api *cl = ctx->cl;
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform, 0};
    ctx->clctx = cl->clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    if (!ctx->clctx || err != CL_SUCCESS) {
        ctx->clctx = NULL;
        clik__fail_cl(ctx, err, "clCreateContext");
        return clik__fail(NULL, CLIK_ERR_OPENCL, "%s on %s", clik_context_message(ctx),
                          ctx->dev.name);
    }
    cl_command_queue_properties qprops = ctx->profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    ctx->queue = cl->clCreateCommandQueue(ctx->clctx, ctx->device, qprops, &err);
    if (!ctx->queue || err != CL_SUCCESS) {
        ctx->queue = NULL;
        clik__fail_cl(ctx, err, "clCreateCommandQueue");
        return clik__fail(NULL, CLIK_ERR_OPENCL, "%s on %s", clik_context_message(ctx),
                          ctx->dev.name);
    }
    ctx->has_device = 1;
    return CLIK_OK;
}

/* Host images go in place on CPU devices (the same memory) and by the
 * driver's copies elsewhere, unless tuning key host_transfer says: on a
 * discrete GPU (NVIDIA H200, 2026-11-26) the driver's copies of pageable
 * memory measured faster than our pinned staging in bands (pyrdown of a 4K
 * frame host to host: 0.75 ms against 0.99-1.15 ms; integral 3.0 against
 * 3.6-4.0 ms). Pinned transfers come from images of clik_image_alloc_on()
 * (0.24 ms for the same pyrdown). */
static void choose_transfer(clik_context *ctx)
{
    ctx->host_unified = 0;
    if (ctx->has_device) {
        cl_bool unified = CL_FALSE;
        if (ctx->cl->clGetDeviceInfo(ctx->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified),
                                     &unified, NULL) != CL_SUCCESS)
            unified = CL_FALSE;
        ctx->host_unified = unified != CL_FALSE || ctx->dev.type == CLIK_DEVICE_CPU;
    }
    const int automatic = ctx->dev.type == CLIK_DEVICE_CPU ? CLIK_XFER_WRAP : CLIK_XFER_DIRECT;
    const long v = clik__tune(ctx, CLIK_TUNE_HOST_TRANSFER, 0);
    ctx->transfer = v == 0 ? automatic : (int)v;
}

/* Options of every program: only what the device compiles (OpenCL C 1.2
 * where it has it). Anything else that a kernel reads is set by its family,
 * so that one program serves every call that does not change its code. */
static void compose_base_options(clik_context *ctx)
{
    const clik_device_info *d = &ctx->dev;
    int cl12 = d->opencl_c_major > 1 || (d->opencl_c_major == 1 && d->opencl_c_minor >= 2);
    snprintf(ctx->base_options, sizeof(ctx->base_options), "%s", cl12 ? "-cl-std=CL1.2" : "");
}

clik_status clik_context_create(clik_context **out, const clik_context_options *opt)
{
    clik__create_message_clear();
    if (!out)
        return clik__fail(NULL, CLIK_ERR_NULL, "clik_context_create: ctx is NULL");
    *out = NULL;
    clik_context_options defaults;
    if (!opt) {
        clik_context_options_init(&defaults);
        opt = &defaults;
    }
    clik_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return clik__fail(NULL, CLIK_ERR_NO_MEMORY, "out of memory");
    ctx->log = opt->log;
    ctx->log_user = opt->log_user;
    ctx->compile_fn = opt->compile;
    ctx->compile_user = opt->compile_user;

    int cache_on = 1, local_auto = -1;
    clik_status st = resolve_bool(opt->strict, "CLIK_STRICT", 0, 0, &ctx->strict);
    if (st == CLIK_OK)
        st = resolve_bool(opt->cache, "CLIK_CACHE", 1, 0, &cache_on);
    if (st == CLIK_OK)
        st = resolve_bool(opt->profiling, "CLIK_PROFILE", 0, 0, &ctx->profiling);
    if (st == CLIK_OK)
        st = resolve_bool(opt->local_memory, "CLIK_LOCAL_MEM", -1, 1, &local_auto);
    if (st == CLIK_OK)
        st = resolve_cpu_path(opt->cpu_path, &ctx->cpu_backend);
    if (st == CLIK_OK)
        st = resolve_threads(ctx, opt->threads);
    /* Tuning: the variable's pairs, then the option's, which win key by key. */
    const char *tuning_env = getenv("CLIK_TUNE");
    if (st == CLIK_OK && tuning_env)
        st = clik__tune_parse(ctx, tuning_env, "CLIK_TUNE");
    if (st == CLIK_OK && opt->tuning)
        st = clik__tune_parse(ctx, opt->tuning, "tuning");
    const char *kdir = opt->kernel_dir ? opt->kernel_dir : getenv("CLIK_KERNEL_DIR");
    if (st == CLIK_OK && kdir && *kdir && !(ctx->kernel_dir = clik__strdup(kdir)))
        st = clik__fail(NULL, CLIK_ERR_NO_MEMORY, "out of memory");
    if (st == CLIK_OK) {
        ctx->cache_dir = clik__cache_dir(opt->cache_dir, cache_on);
        clik__cpu_dsp_init(&ctx->dsp, ctx->cpu_backend == CLIK_BACKEND_NEON);
        const char *spec = opt->device ? opt->device : getenv("CLIK_DEVICE");
        st = open_device(ctx, spec && *spec ? spec : "auto");
    }
    if (st != CLIK_OK) {
        char keep[1024];
        snprintf(keep, sizeof(keep), "%s", clik_context_message(NULL));
        clik_context_destroy(ctx);
        return clik__fail(NULL, st, "%s", keep);
    }
    ctx->pool_capacity = (int)clik__tune(ctx, CLIK_TUNE_POOL_BUFFERS, 6);
    ctx->poison = (int)clik__tune(ctx, CLIK_TUNE_POISON, 0);
    choose_transfer(ctx);
    ctx->local_memory =
        local_auto >= 0 ? local_auto : (ctx->has_device && ctx->dev.local_mem_dedicated);
    if (ctx->has_device) {
        compose_base_options(ctx);
        clik__log(ctx, CLIK_LOG_INFO, "clik: device %s (%s), cache %s", ctx->dev.name,
                  ctx->dev.platform_name, ctx->cache_dir ? ctx->cache_dir : "off");
    }
    *out = ctx;
    return CLIK_OK;
}

void clik_context_destroy(clik_context *ctx)
{
    if (!ctx)
        return;
    clik_context_prepare_wait(ctx);
    if (ctx->has_device) {
        ctx->cl->clFinish(ctx->queue);
        (void)clik__xfer_drain(ctx);
    }
    clik__host_blocks_release(ctx);
    clik__staging_release(ctx);
    clik__aligned_free(ctx->param_arena);
    for (int i = 0; i < ctx->nevents; i++)
        ctx->cl->clReleaseEvent(ctx->events[i]);
    clik__programs_release(ctx);
    if (ctx->lnet.mem)
        ctx->cl->clReleaseMemObject(ctx->lnet.mem);
    free(ctx->lnet.off);
    for (int i = 0; i < 8; i++)
        if (ctx->lnet_ws.t[i])
            ctx->cl->clReleaseMemObject(ctx->lnet_ws.t[i]);
    clik__tune_memo_free(ctx);
    if (ctx->resize_geo_release)
        ctx->resize_geo_release(ctx);
    clik__pool_release(ctx);
    if (ctx->threads_pid == getpid())
        clik__cpu_pool_free(ctx->threads_pool);
    else
        clik__cpu_pool_forget(ctx->threads_pool);
    if (ctx->queue)
        ctx->cl->clReleaseCommandQueue(ctx->queue);
    if (ctx->xfer_queue)
        ctx->cl->clReleaseCommandQueue(ctx->xfer_queue);
    if (ctx->clctx)
        ctx->cl->clReleaseContext(ctx->clctx);
    free(ctx->cache_dir);
    free(ctx->kernel_dir);
    clik__sb_free(&ctx->message);
    free(ctx);
}

const clik_device_info *clik_context_device(const clik_context *ctx)
{
    return ctx && ctx->has_device ? &ctx->dev : NULL;
}

clik_backend clik_context_last_backend(const clik_context *ctx)
{
    return ctx ? ctx->last_backend : CLIK_BACKEND_NONE;
}

clik_status clik_context_fallback_cause(const clik_context *ctx)
{
    return ctx ? ctx->fallback_cause : CLIK_OK;
}

clik_backend clik_context_cpu_backend(const clik_context *ctx)
{
    return ctx ? ctx->cpu_backend : CLIK_BACKEND_NONE;
}

void clik_context_stats_get(const clik_context *ctx, clik_context_stats *stats)
{
    if (!stats)
        return;
    if (!ctx)
        memset(stats, 0, sizeof(*stats));
    else
        *stats = ctx->stats;
}

clik_status clik_context_finish(clik_context *ctx)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    if (!ctx->has_device)
        return CLIK_OK;
    cl_int err = ctx->cl->clFinish(ctx->queue);
    if (err == CL_SUCCESS)
        ctx->param_used = 0;
    clik_status st = clik__xfer_drain(ctx);
    return err != CL_SUCCESS ? clik__fail_cl(ctx, err, "clFinish") : st;
}

/*
 * Programs: built once per (program, options) in a context, loaded from or
 * stored to the disk cache, with failures remembered so that a broken
 * kernel is not rebuilt on every call.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static clik_program_entry *find_program(clik_context *ctx, const char *name, const char *options)
{
    for (int i = 0; i < ctx->nprograms; i++) {
        clik_program_entry *e = ctx->programs[i];
        if (strcmp(e->name, name) == 0 && strcmp(e->options, options) == 0)
            return e;
    }
    return NULL;
}

/* Entries are allocated one by one and never move: the kernel handles that
 * operations hold stay valid for the life of the context. */
static clik_program_entry *add_program(clik_context *ctx, const char *name, const char *options)
{
    if (ctx->nprograms == ctx->programs_cap) {
        int cap = ctx->programs_cap ? ctx->programs_cap * 2 : 16;
        clik_program_entry **grown = realloc(ctx->programs, (size_t)cap * sizeof(*grown));
        if (!grown)
            return NULL;
        ctx->programs = grown;
        ctx->programs_cap = cap;
    }
    clik_program_entry *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->name = clik__strdup(name);
    e->options = clik__strdup(options);
    if (!e->name || !e->options) {
        free(e->name);
        free(e->options);
        free(e);
        return NULL;
    }
    ctx->programs[ctx->nprograms++] = e;
    return e;
}

void clik__programs_release(clik_context *ctx)
{
    for (int i = 0; i < ctx->nprograms; i++) {
        clik_program_entry *e = ctx->programs[i];
        for (int k = 0; k < e->nkernels; k++)
            ctx->cl->clReleaseKernel(e->kernels[k].kernel);
        if (e->program)
            ctx->cl->clReleaseProgram(e->program);
        free(e->name);
        free(e->options);
        free(e->log);
        free(e);
    }
    free(ctx->programs);
    ctx->programs = NULL;
    ctx->nprograms = ctx->programs_cap = 0;
}

/* The program's source: from CLIK_KERNEL_DIR, else the embedded copy. */
static clik_status program_source(clik_context *ctx, const char *name, clik_strbuf *src)
{
    if (ctx->kernel_dir) {
        char err[512];
        clik_status st = clik__kernel_source_load(ctx->kernel_dir, name, src, err, sizeof(err));
        if (st != CLIK_OK)
            return clik__fail(ctx, st, "kernel source (CLIK_KERNEL_DIR=%s): %s", ctx->kernel_dir,
                              err);
        return CLIK_OK;
    }
    for (size_t i = 0; i < clik__embedded_kernel_count; i++)
        if (strcmp(clik__embedded_kernels[i].name, name) == 0) {
            clik__sb_append(src, clik__embedded_kernels[i].source,
                            clik__embedded_kernels[i].length);
            return src->failed ? CLIK_ERR_NO_MEMORY : CLIK_OK;
        }
    return clik__fail(ctx, CLIK_ERR_BUILD, "no kernel program named %s", name);
}

static char *build_log(clik_context *ctx, cl_program program)
{
    size_t size = 0;
    if (ctx->cl->clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                                       &size) != CL_SUCCESS ||
        size == 0)
        return clik__strdup("(no build log)");
    char *log = malloc(size + 1);
    if (!log)
        return NULL;
    if (ctx->cl->clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log,
                                       NULL) != CL_SUCCESS)
        log[0] = '\0';
    log[size] = '\0';
    return log;
}

/* Sets ctx's message to the failure of e, build log included. */
static clik_status report_build_failure(clik_context *ctx, const clik_program_entry *e)
{
    return clik__fail_log(
        ctx, CLIK_ERR_BUILD, e->log ? e->log : "(none)",
        "kernel program '%s' failed to build on %s with options \"%s\"; build log:\n", e->name,
        ctx->dev.name, e->options);
}

static cl_program from_binary(clik_context *ctx, const unsigned char *bin, size_t len,
                              const char *options)
{
    cl_int err, bin_status;
    cl_program p = ctx->cl->clCreateProgramWithBinary(ctx->clctx, 1, &ctx->device, &len, &bin,
                                                      &bin_status, &err);
    if (!p || err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (p)
            ctx->cl->clReleaseProgram(p);
        return NULL;
    }
    if (ctx->cl->clBuildProgram(p, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        ctx->cl->clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static void store_binary(clik_context *ctx, cl_program p, const char *key)
{
    size_t size = 0;
    if (ctx->cl->clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL) !=
            CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    if (!bin)
        return;
    unsigned char *bins[1] = {bin};
    if (ctx->cl->clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL) == CL_SUCCESS) {
        clik_status st = clik__cache_store(ctx->cache_dir, key, bin, size);
        if (st == CLIK_OK)
            ctx->stats.cache_written++;
        else
            clik__log(ctx, CLIK_LOG_WARNING, "clik: cannot write the kernel cache in %s: %s",
                      ctx->cache_dir, clik_status_str(st));
    }
    free(bin);
}

/* Loads e's program from the disk cache under key where it is there and
 * sound (a rejected or crashing entry is counted and passed over). */
static void load_cached(clik_context *ctx, clik_program_entry *e, const char *key)
{
    unsigned char *bin;
    size_t len;
    clik_status cst = clik__cache_load(ctx->cache_dir, key, &bin, &len);
    if (cst == CLIK_OK) {
        int token;
        if (clik__cache_guard_begin(ctx->cache_dir, key, &token)) {
            clik__log(ctx, CLIK_LOG_WARNING,
                      "clik: the cached binary of %s crashed an earlier run; rebuilding", e->name);
            cst = CLIK_ERR_FILE_FORMAT;
        } else {
            e->program = from_binary(ctx, bin, len, e->options);
            clik__cache_guard_end(ctx->cache_dir, key, token);
            if (!e->program)
                cst = CLIK_ERR_FILE_FORMAT;
        }
        free(bin);
    }
    if (cst == CLIK_OK) {
        ctx->stats.programs_from_disk++;
        clik__log(ctx, CLIK_LOG_DEBUG, "clik: %s loaded from the cache", e->name);
    } else if (cst == CLIK_ERR_FILE_FORMAT) {
        ctx->stats.cache_rejected++;
        clik__log(ctx, CLIK_LOG_WARNING, "clik: cache entry for %s rejected; rebuilding", e->name);
    }
}

static clik_status build_program(clik_context *ctx, clik_program_entry *e)
{
    clik_strbuf src = {0};
    clik_status st = program_source(ctx, e->name, &src);
    if (st != CLIK_OK) {
        clik__sb_free(&src);
        return st;
    }
    char source_hash[33];
    clik__hash_hex(src.data, src.len, source_hash);
    clik_strbuf key = {0};
    clik__sb_printf(&key,
                    "clik %s\nprogram %s\nsource %s\noptions %s\nplatform %s | %s\n"
                    "device %s | %s | wg %zu | local %llu\ndriver %s\n",
                    clik_version(), e->name, source_hash, e->options, ctx->dev.platform_name,
                    ctx->dev.platform_version, ctx->dev.name, ctx->dev.vendor,
                    ctx->dev.max_work_group_size, (unsigned long long)ctx->dev.local_mem_size,
                    ctx->dev.driver_version);
    if (key.failed) {
        clik__sb_free(&src);
        clik__sb_free(&key);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    }

    if (ctx->cache_dir)
        load_cached(ctx, e, key.data);
    /* A background prepare may be building it into the cache right now. */
    if (!e->program && ctx->cache_dir && clik__prepare_join(ctx))
        load_cached(ctx, e, key.data);
    if (!e->program) {
        cl_int err;
        const char *text = src.data;
        if (ctx->compile_fn)
            ctx->compile_fn(ctx->compile_user, e->name, ctx->dev.name);
        e->program = ctx->cl->clCreateProgramWithSource(ctx->clctx, 1, &text, &src.len, &err);
        if (!e->program || err != CL_SUCCESS) {
            e->program = NULL;
            st = clik__fail_cl(ctx, err, "clCreateProgramWithSource");
        } else {
            err = ctx->cl->clBuildProgram(e->program, 1, &ctx->device, e->options, NULL, NULL);
            if (err != CL_SUCCESS) {
                e->log = build_log(ctx, e->program);
                ctx->cl->clReleaseProgram(e->program);
                e->program = NULL;
                st = CLIK_ERR_BUILD;
            } else {
                ctx->stats.programs_built++;
                clik__log(ctx, CLIK_LOG_DEBUG, "clik: %s built from source", e->name);
                if (ctx->cache_dir)
                    store_binary(ctx, e->program, key.data);
            }
        }
    }
    clik__sb_free(&src);
    clik__sb_free(&key);
    return st;
}

static clik_status get_kernel(clik_context *ctx, clik_program_entry *e, const char *name,
                              clik_kernel_entry **out)
{
    for (int i = 0; i < e->nkernels; i++)
        if (strcmp(e->kernels[i].name, name) == 0) {
            *out = &e->kernels[i];
            return CLIK_OK;
        }
    /* Limits of the library, not of the caller: the operation falls back. */
    if (e->nkernels == CLIK_MAX_KERNELS || strlen(name) >= sizeof(e->kernels[0].name))
        return clik__fail(ctx, CLIK_ERR_DEVICE_LIMITS, "kernel %s: more than %d kernels in %s",
                          name, CLIK_MAX_KERNELS, e->name);
    cl_int err;
    cl_kernel k = ctx->cl->clCreateKernel(e->program, name, &err);
    if (!k || err != CL_SUCCESS)
        return clik__fail_cl(ctx, err, name);
    clik_kernel_entry *ke = &e->kernels[e->nkernels++];
    snprintf(ke->name, sizeof(ke->name), "%s", name);
    ke->kernel = k;
    size_t wg = 0;
    if (ctx->cl->clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
                                          &wg, NULL) != CL_SUCCESS ||
        wg == 0)
        wg = ctx->dev.max_work_group_size;
    ke->max_work_group = wg < ctx->dev.max_work_group_size ? wg : ctx->dev.max_work_group_size;
    *out = ke;
    return CLIK_OK;
}

clik_status clik__kernel(clik_context *ctx, const char *program, const char *options,
                         const char *kernel, clik_kernel_entry **out)
{
    if (!ctx->has_device)
        return clik__fail(ctx, CLIK_ERR_NO_DEVICE, "no OpenCL device");
    clik_strbuf full = {0};
    clik__sb_printf(&full, "%s %s", ctx->base_options, options ? options : "");
    if (full.failed) {
        clik__sb_free(&full);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    }
    clik_program_entry *e = find_program(ctx, program, full.data);
    clik_status st = CLIK_OK;
    if (e) {
        if (e->status != CLIK_OK)
            st = e->status == CLIK_ERR_BUILD ? report_build_failure(ctx, e) : e->status;
        else
            ctx->stats.programs_reused++;
    } else if (!(e = add_program(ctx, program, full.data))) {
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    } else {
        e->status = build_program(ctx, e);
        st = e->status == CLIK_ERR_BUILD ? report_build_failure(ctx, e) : e->status;
    }
    clik__sb_free(&full);
    return st == CLIK_OK ? get_kernel(ctx, e, kernel, out) : st;
}

clik_status clik__pixel_kernel(clik_context *ctx, const char *program, clik_type t, int ch,
                               const char *extra, const char *kernel, clik_kernel_entry **out)
{
    char options[160];
    snprintf(options, sizeof(options), "-DT=%s -DT_IS_FLOAT=%d -DCH=%d%s%s",
             t == CLIK_U8 ? "uchar" : "float", t == CLIK_F32, ch, *extra ? " " : "", extra);
    return clik__kernel(ctx, program, options, kernel, out);
}

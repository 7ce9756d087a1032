/*
 * The tuning store: the results of work-group searches (clik_lapar_tune),
 * one small file per (device, kernel, problem class) in the folder "tune" of
 * the kernel cache folder, so that later runs on the same device use them.
 *
 * An entry is a cache entry (lib/cache.c: written to a locked temporary and
 * renamed; hashed over key and content; opened without following links or
 * blocking) whose key names the library version, the kernel, the hash of
 * its program's source, the problem class and the device as the program
 * cache does (platform, device, work-group and local-memory limits,
 * driver). A store of another version, driver or kernel source therefore
 * has another key and is never read; a file that is cut, flipped, from
 * another key or another format is rejected and ignored. Its content is a
 * short text record, accepted only as clik__tune_record_format writes it:
 *
 *   clik-tune-record 1
 *   kernel NAME
 *   problem CLASS
 *   variant V          0..255
 *   wg X Y Z           each 1..65536
 *   ms T               finite, 0..1e9, printed with %.9g
 *   end
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define RECORD_MAGIC "clik-tune-record 1\n"
#define KEY_FORMAT   1

/* ---- records ------------------------------------------------------------------- */

static int printable_line(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return 0;
    return 1;
}

static int record_valid(const clik_tune_record *r)
{
    if (r->variant < 0 || r->variant > 255 || !isfinite(r->ms) || r->ms < 0.0 || r->ms > 1e9)
        return 0;
    for (int i = 0; i < 3; i++)
        if (r->wg[i] < 1 || r->wg[i] > 65536)
            return 0;
    return 1;
}

size_t clik__tune_record_format(const char *kernel, const char *problem,
                                const clik_tune_record *rec, char *out, size_t cap)
{
    if (!printable_line(kernel) || !printable_line(problem) || !record_valid(rec) || cap == 0)
        return 0;
    const int n = snprintf(
        out, cap, RECORD_MAGIC "kernel %s\nproblem %s\nvariant %d\nwg %d %d %d\nms %.9g\nend\n",
        kernel, problem, rec->variant, rec->wg[0], rec->wg[1], rec->wg[2], rec->ms);
    if (n < 0 || (size_t)n >= cap || (size_t)n > CLIK_TUNE_RECORD_MAX) {
        out[0] = '\0';
        return 0;
    }
    return (size_t)n;
}

/* A whole decimal integer at *p within [lo, hi], followed by `end`. */
static int take_int(const char **p, const char *limit, long lo, long hi, char end, long *v)
{
    const char *s = *p;
    long x = 0;
    int digits = 0;
    while (s < limit && *s >= '0' && *s <= '9' && digits < 6) {
        x = x * 10 + (*s - '0');
        s++;
        digits++;
    }
    if (digits == 0 || s >= limit || *s != end || x < lo || x > hi)
        return 0;
    *v = x;
    *p = s + 1;
    return 1;
}

/* The text of `prefix` at *p. */
static int take(const char **p, const char *limit, const char *prefix)
{
    const size_t n = strlen(prefix);
    if ((size_t)(limit - *p) < n || memcmp(*p, prefix, n) != 0)
        return 0;
    *p += n;
    return 1;
}

int clik__tune_record_parse(const char *text, size_t len, const char *kernel, const char *problem,
                            clik_tune_record *rec)
{
    if (!text || len == 0 || len > CLIK_TUNE_RECORD_MAX || memchr(text, '\0', len))
        return 0;
    const char *p = text, *limit = text + len;
    clik_tune_record r;
    long v, wg[3];
    if (!take(&p, limit, RECORD_MAGIC) || !take(&p, limit, "kernel ") || !take(&p, limit, kernel) ||
        !take(&p, limit, "\nproblem ") || !take(&p, limit, problem) ||
        !take(&p, limit, "\nvariant ") || !take_int(&p, limit, 0, 255, '\n', &v) ||
        !take(&p, limit, "wg ") || !take_int(&p, limit, 1, 65536, ' ', &wg[0]) ||
        !take_int(&p, limit, 1, 65536, ' ', &wg[1]) ||
        !take_int(&p, limit, 1, 65536, '\n', &wg[2]) || !take(&p, limit, "ms "))
        return 0;
    /* The time: a bounded copy for strtod, then the canonical text checked
     * as a whole below. */
    char num[40];
    const char *nl = memchr(p, '\n', (size_t)(limit - p));
    if (!nl || nl == p || (size_t)(nl - p) >= sizeof(num))
        return 0;
    memcpy(num, p, (size_t)(nl - p));
    num[nl - p] = '\0';
    char *end;
    r.ms = strtod(num, &end);
    if (*end != '\0')
        return 0;
    r.variant = (int)v;
    for (int i = 0; i < 3; i++)
        r.wg[i] = (int)wg[i];
    /* Only the exact text a store writes: one form for every record. */
    char again[CLIK_TUNE_RECORD_MAX + 1];
    const size_t n = clik__tune_record_format(kernel, problem, &r, again, sizeof(again));
    if (n != len || memcmp(again, text, len) != 0)
        return 0;
    *rec = r;
    return 1;
}

/* ---- entries ------------------------------------------------------------------- */

/* The hash of a program's source: CLIK_KERNEL_DIR's file, else the
 * embedded copy. 0 on success. */
static int source_hash(const clik_context *ctx, const char *program, char out[33])
{
    if (ctx->kernel_dir) {
        clik_strbuf src = {0};
        char err[256];
        clik_status st = clik__kernel_source_load(ctx->kernel_dir, program, &src, err, sizeof(err));
        if (st == CLIK_OK && !src.failed)
            clik__hash_hex(src.data, src.len, out);
        clik__sb_free(&src);
        return st == CLIK_OK ? 0 : -1;
    }
    for (size_t i = 0; i < clik__embedded_kernel_count; i++)
        if (strcmp(clik__embedded_kernels[i].name, program) == 0) {
            clik__hash_hex(clik__embedded_kernels[i].source, clik__embedded_kernels[i].length, out);
            return 0;
        }
    return -1;
}

int clik__tune_entry_key(clik_context *ctx, const char *program, const char *kernel,
                         const char *problem, clik_strbuf *key)
{
    char hash[33];
    if (!printable_line(program) || !printable_line(kernel) || !printable_line(problem) ||
        source_hash(ctx, program, hash) != 0)
        return -1;
    const clik_device_info *d = &ctx->dev;
    clik__sb_printf(key,
                    "clik-tune %d\nclik %s\nprogram %s\nsource %s\nkernel %s\nproblem %s\n"
                    "platform %s | %s\ndevice %s | %s | wg %zu | local %llu\ndriver %s\n",
                    KEY_FORMAT, clik_version(), program, hash, kernel, problem, d->platform_name,
                    d->platform_version, d->name, d->vendor, d->max_work_group_size,
                    (unsigned long long)d->local_mem_size, d->driver_version);
    return key->failed ? -1 : 0;
}

/* ctx's tuning folder, or NULL (no cache folder, or out of memory). */
static char *store_dir(const clik_context *ctx)
{
    if (!ctx->cache_dir)
        return NULL;
    clik_strbuf sb = {0};
    clik__sb_printf(&sb, "%s/tune", ctx->cache_dir);
    if (sb.failed) {
        clik__sb_free(&sb);
        return NULL;
    }
    return sb.data;
}

/* ---- the context's memory of answers ---------------------------------------- */

#define MEMO_MAX 32 /* answers a context keeps; the oldest goes first */

typedef struct clik_tune_memo {
    char *what; /* program, kernel and problem, each ending in a newline */
    clik_status status;
    clik_tune_record rec;
} clik_tune_memo;

static char *memo_what(const char *program, const char *kernel, const char *problem)
{
    clik_strbuf sb = {0};
    clik__sb_printf(&sb, "%s\n%s\n%s\n", program, kernel, problem);
    if (sb.failed) {
        clik__sb_free(&sb);
        return NULL;
    }
    return sb.data;
}

static clik_tune_memo *memo_find(clik_context *ctx, const char *what)
{
    for (int i = 0; i < ctx->tune_memo_n; i++)
        if (strcmp(ctx->tune_memo[i].what, what) == 0)
            return &ctx->tune_memo[i];
    return NULL;
}

/* Remembers an answer; takes `what` (freed when it cannot be kept). */
static void memo_put(clik_context *ctx, char *what, clik_status status, const clik_tune_record *rec)
{
    clik_tune_memo *m = memo_find(ctx, what);
    if (!m) {
        if (!ctx->tune_memo) {
            ctx->tune_memo = calloc(MEMO_MAX, sizeof(*ctx->tune_memo));
            if (!ctx->tune_memo) {
                free(what);
                return;
            }
        }
        if (ctx->tune_memo_n == MEMO_MAX) {
            free(ctx->tune_memo[0].what);
            memmove(ctx->tune_memo, ctx->tune_memo + 1, (MEMO_MAX - 1) * sizeof(*ctx->tune_memo));
            ctx->tune_memo_n--;
        }
        m = &ctx->tune_memo[ctx->tune_memo_n++];
        m->what = what;
    } else {
        free(what);
    }
    m->status = status;
    if (rec)
        m->rec = *rec;
}

void clik__tune_memo_free(clik_context *ctx)
{
    for (int i = 0; i < ctx->tune_memo_n; i++)
        free(ctx->tune_memo[i].what);
    free(ctx->tune_memo);
    ctx->tune_memo = NULL;
    ctx->tune_memo_n = 0;
}

/* ---- load and store ---------------------------------------------------------------- */

static clik_status store_read(clik_context *ctx, const char *program, const char *kernel,
                              const char *problem, clik_tune_record *rec)
{
    char *dir = store_dir(ctx);
    if (!dir)
        return CLIK_ERR_IO;
    clik_strbuf key = {0};
    clik_status st = CLIK_ERR_IO;
    unsigned char *data = NULL;
    size_t len = 0;
    if (clik__tune_entry_key(ctx, program, kernel, problem, &key) == 0)
        st = clik__cache_load(dir, key.data, &data, &len);
    if (st == CLIK_OK && !clik__tune_record_parse((const char *)data, len, kernel, problem, rec))
        st = CLIK_ERR_FILE_FORMAT;
    if (st == CLIK_ERR_FILE_FORMAT)
        clik__log(ctx, CLIK_LOG_WARNING, "clik: tuning of %s (%s) in %s rejected; ignored", kernel,
                  problem, dir);
    free(data);
    clik__sb_free(&key);
    free(dir);
    return st == CLIK_OK || st == CLIK_ERR_FILE_FORMAT ? st : CLIK_ERR_IO;
}

clik_status clik__tune_load(clik_context *ctx, const char *program, const char *kernel,
                            const char *problem, clik_tune_record *rec)
{
    char *what = memo_what(program, kernel, problem);
    const clik_tune_memo *m = what ? memo_find(ctx, what) : NULL;
    if (m) {
        free(what);
        if (m->status == CLIK_OK)
            *rec = m->rec;
        return m->status;
    }
    const clik_status st = store_read(ctx, program, kernel, problem, rec);
    if (what)
        memo_put(ctx, what, st, st == CLIK_OK ? rec : NULL);
    return st;
}

clik_status clik__tune_store(clik_context *ctx, const char *program, const char *kernel,
                             const char *problem, const clik_tune_record *rec)
{
    char text[CLIK_TUNE_RECORD_MAX + 1];
    const size_t n = clik__tune_record_format(kernel, problem, rec, text, sizeof(text));
    if (n == 0)
        return clik__fail(ctx, CLIK_ERR_INVALID_ARG, "tuning of %s: not a storable record", kernel);
    char *dir = store_dir(ctx);
    if (!dir)
        return clik__fail(ctx, CLIK_ERR_IO, "tuning of %s: no cache folder (CLIK_CACHE=off?)",
                          kernel);
    clik_strbuf key = {0};
    clik_status st = clik__tune_entry_key(ctx, program, kernel, problem, &key) == 0
                         ? clik__cache_store(dir, key.data, (const unsigned char *)text, n)
                         : CLIK_ERR_NO_MEMORY;
    if (st != CLIK_OK)
        st = clik__fail(ctx, st == CLIK_ERR_NO_MEMORY ? st : CLIK_ERR_IO,
                        "tuning of %s: cannot write the store in %s", kernel, dir);
    char *what = st == CLIK_OK ? memo_what(program, kernel, problem) : NULL;
    if (what)
        memo_put(ctx, what, CLIK_OK, rec);
    clik__sb_free(&key);
    free(dir);
    return st;
}

/* ---- timing ---------------------------------------------------------------------- */

clik_status clik__tune_time(clik_context *ctx, clik_status (*run)(clik_context *ctx, void *user),
                            void *user, int reps, double *ms)
{
    *ms = INFINITY;
    if (!ctx->has_device)
        return clik__fail(ctx, CLIK_ERR_NO_DEVICE, "no OpenCL device to time on");
    /* Without profiling, the runs go to a profiling queue of their own:
     * every command of the operation, its transfers included, is then on
     * it, in order, and the context's queue is idle meanwhile. */
    cl_command_queue saved = ctx->queue, own = NULL;
    const int saved_profiling = ctx->profiling;
    if (!ctx->profiling) {
        cl_int err = ctx->cl->clFinish(saved);
        if (err == CL_SUCCESS)
            own = ctx->cl->clCreateCommandQueue(ctx->clctx, ctx->device, CL_QUEUE_PROFILING_ENABLE,
                                                &err);
        if (!own || err != CL_SUCCESS)
            return clik__fail_cl(ctx, err, "clCreateCommandQueue (profiling)");
        ctx->queue = own;
        ctx->profiling = 1;
    }
    clik_status st = CLIK_OK;
    for (int i = 0; i <= reps && st == CLIK_OK; i++) {
        st = run(ctx, user);
        if (st == CLIK_OK && i > 0 && ctx->stats.last_kernel_ms < *ms)
            *ms = ctx->stats.last_kernel_ms;
    }
    if (own) {
        ctx->cl->clFinish(own);
        ctx->queue = saved;
        ctx->profiling = saved_profiling;
        ctx->cl->clReleaseCommandQueue(own);
    }
    return st;
}

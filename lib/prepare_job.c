/*
 * The background of ahead-of-time compilation (clik_context_prepare with
 * background set; the operations it runs are ops/prepare.c's): a second
 * context of the caller's device, sharing its kernel cache folder, runs
 * them on a thread of its own. The caller's context, when it is about to
 * compile a program from source while that thread runs, waits for the
 * thread first and then finds the program in the cache (program.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The background job: a second context of the same device. */
struct clik_prepare_job {
    pthread_t thread;
    clik_context *ctx;
    clik_status (*run)(clik_context *ctx, void *user);
    void *user;
    int joined;
    clik_status status;
    char message[512];
};

static void *job_main(void *arg)
{
    struct clik_prepare_job *job = arg;
    job->status = job->run(job->ctx, job->user);
    if (job->status != CLIK_OK)
        snprintf(job->message, sizeof(job->message), "%s", clik_context_message(job->ctx));
    clik_context_destroy(job->ctx);
    job->ctx = NULL;
    return NULL;
}

/* A context of ctx's device with ctx's settings, the disk cache included. */
static clik_status second_context(clik_context *ctx, clik_context **out)
{
    char spec[32];
    snprintf(spec, sizeof(spec), "%d:%d", ctx->dev.platform_index, ctx->dev.device_index);
    clik_context_options o;
    clik_context_options_init(&o);
    o.device = spec;
    o.cache_dir = ctx->cache_dir;
    o.cache = 1;
    o.strict = 1;
    o.local_memory = ctx->local_memory;
    o.kernel_dir = ctx->kernel_dir;
    o.cpu_path = CLIK_CPU_SCALAR;
    clik_status st = clik_context_create(out, &o);
    if (st != CLIK_OK)
        return clik__fail(ctx, st, "clik_context_prepare: a second context of %s: %s", spec,
                          clik_context_message(NULL));
    /* The tuning values set on ctx (variables and options alike). */
    memcpy((*out)->tune, ctx->tune, sizeof(ctx->tune));
    memcpy((*out)->tune_set, ctx->tune_set, sizeof(ctx->tune_set));
    (*out)->compile_fn = ctx->compile_fn;
    (*out)->compile_user = ctx->compile_user;
    return CLIK_OK;
}

clik_status clik__prepare_start(clik_context *ctx, clik_status (*run)(clik_context *, void *),
                                void *user)
{
    struct clik_prepare_job *job = calloc(1, sizeof(*job));
    if (!job) {
        free(user);
        return clik__fail(ctx, CLIK_ERR_NO_MEMORY, "out of memory");
    }
    job->run = run;
    job->user = user;
    clik_status st = second_context(ctx, &job->ctx);
    if (st == CLIK_OK && pthread_create(&job->thread, NULL, job_main, job) != 0) {
        clik_context_destroy(job->ctx);
        st = clik__fail(ctx, CLIK_ERR_NO_MEMORY, "clik_context_prepare: cannot start a thread");
    }
    if (st != CLIK_OK) {
        free(job->user);
        free(job);
        return st;
    }
    ctx->prepare = job;
    return CLIK_OK;
}

int clik__prepare_join(clik_context *ctx)
{
    struct clik_prepare_job *job = ctx->prepare;
    if (!job || job->joined)
        return 0;
    pthread_join(job->thread, NULL);
    job->joined = 1;
    return 1;
}

clik_status clik_context_prepare_wait(clik_context *ctx)
{
    if (!ctx)
        return CLIK_ERR_NULL;
    struct clik_prepare_job *job = ctx->prepare;
    if (!job)
        return CLIK_OK;
    clik__prepare_join(ctx);
    ctx->prepare = NULL;
    const clik_status st = job->status;
    if (st != CLIK_OK)
        clik__fail(ctx, st, "%s", job->message);
    free(job->user);
    free(job);
    return st;
}

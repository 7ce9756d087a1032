/*
 * The CPU paths' thread pool (see threads.h): helper threads that wait for
 * a job, take its bands one at a time beside the calling thread, and go
 * back to waiting when every band is done.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "threads.h"

/* Below this many elements a band is not worth a thread's wake-up (about
 * 10 us for each). */
#define MIN_BAND_ELEMS 16384

struct clik_cpu_pool {
    int threads; /* asked for, the caller's included */
    int running; /* started helpers + 1 */
    int started; /* clik__cpu_pool_start has run */
    int busy;    /* a job is under way (nested calls run as one) */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    unsigned generation; /* counts jobs: helpers wait for a new one */
    int stop;
    /* the job */
    clik_rows_fn fn;
    void *user;
    int rows, bands;
    int next;    /* the next band to take */
    int pending; /* bands not finished */
    int failed;
    pthread_t tid[];
};

static _Thread_local clik_cpu_pool *current;

/* Band b of n over rows: the bounds depend on rows, n and b only. */
static void band_bounds(int rows, int n, int b, int *y0, int *y1)
{
    *y0 = (int)((long long)rows * b / n);
    *y1 = (int)((long long)rows * (b + 1) / n);
}

/* Takes and runs bands of the job until none is left; called with mu held,
 * returns with it held. */
static void run_bands(clik_cpu_pool *p)
{
    while (p->next < p->bands) {
        const int b = p->next++;
        int y0, y1;
        band_bounds(p->rows, p->bands, b, &y0, &y1);
        pthread_mutex_unlock(&p->mu);
        const int rc = p->fn(p->user, y0, y1);
        pthread_mutex_lock(&p->mu);
        if (rc != 0)
            p->failed = 1;
        if (--p->pending == 0)
            pthread_cond_broadcast(&p->done);
    }
}

static void *helper(void *arg)
{
    clik_cpu_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    unsigned seen = p->generation;
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->stop)
            break;
        seen = p->generation;
        run_bands(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

clik_cpu_pool *clik__cpu_pool_new(int threads)
{
    if (threads < 1 || threads > CLIK_MAX_THREADS)
        return NULL;
    clik_cpu_pool *p = calloc(1, sizeof(*p) + (size_t)threads * sizeof(pthread_t));
    if (!p)
        return NULL;
    p->threads = threads;
    p->running = 1;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

int clik__cpu_pool_start(clik_cpu_pool *p)
{
    if (!p->started) {
        p->started = 1;
        while (p->running < p->threads &&
               pthread_create(&p->tid[p->running - 1], NULL, helper, p) == 0)
            p->running++;
    }
    return p->running;
}

void clik__cpu_pool_free(clik_cpu_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->running - 1; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void clik__cpu_pool_forget(clik_cpu_pool *p)
{
    free(p); /* a fork's copy: no helper runs here; its lock is not touched */
}

clik_cpu_pool *clik__cpu_pool_enter(clik_cpu_pool *pool)
{
    clik_cpu_pool *old = current;
    current = pool;
    return old;
}

int clik__cpu_threads(void)
{
    return current ? current->running : 1;
}

int clik__cpu_rows(int rows, size_t row_elems, clik_rows_fn fn, void *user)
{
    clik_cpu_pool *p = current;
    if (rows <= 0)
        return 0;
    long long bands = p && !p->busy ? p->running : 1;
    const long long worth = (long long)rows * (long long)row_elems / MIN_BAND_ELEMS;
    if (bands > worth)
        bands = worth;
    if (bands > rows)
        bands = rows;
    if (bands <= 1)
        return fn(user, 0, rows);
    pthread_mutex_lock(&p->mu);
    p->busy = 1;
    p->fn = fn;
    p->user = user;
    p->rows = rows;
    p->bands = (int)bands;
    p->next = 0;
    p->pending = (int)bands;
    p->failed = 0;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    run_bands(p);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->mu);
    const int failed = p->failed;
    p->busy = 0;
    pthread_mutex_unlock(&p->mu);
    return failed ? -1 : 0;
}

int clik__cpu_usable_cores(void)
{
    int n = 0;
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
#endif
#ifdef _SC_NPROCESSORS_ONLN
    if (n < 1)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return n < 1 ? 1 : n > CLIK_MAX_THREADS ? CLIK_MAX_THREADS : n;
}

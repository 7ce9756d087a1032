/*
 * The CPU paths' thread pool: a context owns one (lib/context.c), makes it
 * current for the thread that runs an operation's CPU path (lib/dispatch.c),
 * and the NEON entries split their rows through clik__cpu_rows. Rows are cut
 * into bands whose bounds depend only on the row count and the number of
 * bands, and each output row is computed by the same code whatever band it
 * falls in, so any thread count gives the bytes of one thread.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_CPU_THREADS_H
#define CLIK_CPU_THREADS_H

#include <stddef.h>

/* Rows [y0, y1) of a job; returns 0, or -1 (out of memory): the job then
 * fails as a whole. */
typedef int (*clik_rows_fn)(void *user, int y0, int y1);

typedef struct clik_cpu_pool clik_cpu_pool;

#define CLIK_MAX_THREADS 256

/* A pool for `threads` threads, the caller's included (1..CLIK_MAX_THREADS);
 * no thread starts until clik__cpu_pool_start. NULL when out of memory. */
clik_cpu_pool *clik__cpu_pool_new(int threads);
/* Starts the pool's helper threads the first time; returns how many threads
 * run the pool's jobs (the caller's included), fewer than asked when a
 * thread could not be created, 1 at the least. */
int clik__cpu_pool_start(clik_cpu_pool *pool);
/* Joins the helper threads and frees the pool; NULL is allowed. */
void clik__cpu_pool_free(clik_cpu_pool *pool);
/* Frees the memory of a pool that a fork copied into this process (its
 * helpers stayed in the parent): no join, no lock. */
void clik__cpu_pool_forget(clik_cpu_pool *pool);

/* Makes pool (NULL: none) the current pool of the calling thread; returns
 * the one it replaces. */
clik_cpu_pool *clik__cpu_pool_enter(clik_cpu_pool *pool);

/* Runs fn over rows [0, rows), each row `row_elems` elements of work: in
 * bands on the current pool's threads when the work is worth it, else as
 * one call. Returns 0, or -1 when a band returned -1. A call from inside a
 * band (or with no current pool) runs as one call. */
int clik__cpu_rows(int rows, size_t row_elems, clik_rows_fn fn, void *user);

/* The threads of the current pool (1 without one): for entries that keep
 * per-thread partial results (at most this many bands). */
int clik__cpu_threads(void);

/* The cores this process may run on (sched_getaffinity where there is
 * one), 1..CLIK_MAX_THREADS. */
int clik__cpu_usable_cores(void);

#endif

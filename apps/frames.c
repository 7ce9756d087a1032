/* Frame sequences at the rate of video: frames read ahead and results
 * written behind on threads of the host, so that decoding the next frames
 * and encoding the last results overlap the device's work on this one.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "imageio.h"

#define MAX_THREADS (CLI_MAX_SLOTS - 2) /* readers, and writers */
#define READ_AHEAD  (MAX_THREADS + 2)   /* frames read, or being read, ahead of the one taken */

typedef struct frame_slot {
    int frame; /* the frame held (0 for the first of the sequence), -1: none */
    int had_alpha;
    clik_status status;
    char err[512];
    clik_image img;
} frame_slot;

/* Frame i is read into slots[i % READ_AHEAD] once frame i - READ_AHEAD,
 * the slot's last, has been taken. */
struct cli_frames {
    const char *pattern;
    int first, count;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    frame_slot slots[READ_AHEAD];
    int next;  /* the next frame a decoder takes on */
    int taken; /* frames taken */
    int stop;
    pthread_t threads[MAX_THREADS];
    int nthreads;  /* 0: each frame is read when taken */
    double wait_s; /* time spent in cli_frames_take */
};

/* The threads of the readers, and of the writers: one fewer than the
 * processors online, 1 to MAX_THREADS. */
static int host_threads(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 2 ? (int)(cpus - 1 < MAX_THREADS ? cpus - 1 : MAX_THREADS) : 1;
}

/* Sets *flag under lock, wakes every thread waiting on changed and joins
 * the n threads. */
static void stop_threads(pthread_mutex_t *lock, pthread_cond_t *changed, int *flag,
                         const pthread_t *threads, int n)
{
    pthread_mutex_lock(lock);
    *flag = 1;
    pthread_cond_broadcast(changed);
    pthread_mutex_unlock(lock);
    for (int k = 0; k < n; k++)
        pthread_join(threads[k], NULL);
}

static void read_slot(const cli_frames *r, int i, frame_slot *s)
{
    char name[CLI_NAME_CAP];
    cli_numbered_path(r->pattern, r->first + i, name, sizeof(name));
    s->img = (clik_image){0};
    s->err[0] = '\0';
    s->had_alpha = 0;
    s->status = clikio_read(name, &s->img, &s->had_alpha, s->err, sizeof(s->err));
    s->frame = i;
}

static void *decode_frames(void *arg)
{
    cli_frames *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->stop && r->next < r->count) {
        if (r->next >= r->taken + READ_AHEAD) {
            pthread_cond_wait(&r->changed, &r->lock);
            continue;
        }
        const int i = r->next++;
        frame_slot s;
        pthread_mutex_unlock(&r->lock);
        read_slot(r, i, &s);
        pthread_mutex_lock(&r->lock);
        r->slots[i % READ_AHEAD] = s;
        pthread_cond_broadcast(&r->changed);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

cli_frames *cli_frames_start(const char *pattern, int first, int count)
{
    cli_frames *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->pattern = pattern;
    r->first = first;
    r->count = count;
    for (int k = 0; k < READ_AHEAD; k++)
        r->slots[k].frame = -1;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->changed, NULL);
    const int want = host_threads();
    for (int k = 0; k < want && k < count; k++) {
        if (pthread_create(&r->threads[r->nthreads], NULL, decode_frames, r) != 0)
            break;
        r->nthreads++;
    }
    return r;
}

int cli_frames_take(cli_frames *r, const char *cmd, int i, clik_image *img, int *had_alpha)
{
    frame_slot s;
    const double t0 = cli_seconds();
    if (r->nthreads == 0) {
        read_slot(r, i, &s);
    } else {
        pthread_mutex_lock(&r->lock);
        frame_slot *held = &r->slots[i % READ_AHEAD];
        while (held->frame != i)
            pthread_cond_wait(&r->changed, &r->lock);
        s = *held;
        held->frame = -1;
        held->img = (clik_image){0};
        r->taken = i + 1;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
    }
    r->wait_s += cli_seconds() - t0;
    *img = s.img;
    if (had_alpha)
        *had_alpha = s.had_alpha;
    if (s.status != CLIK_OK) {
        fprintf(stderr, "clik %s: %s\n", cmd, s.err);
        return CLI_FAILED;
    }
    if (img->type != CLIK_U8) {
        char name[CLI_NAME_CAP];
        cli_numbered_path(r->pattern, r->first + i, name, sizeof(name));
        fprintf(stderr, "clik %s: %s: needs 8-bit pixels, not %s\n", cmd, name,
                clik_type_name(img->type));
        clik_image_free(img);
        return CLI_FAILED;
    }
    return CLI_OK;
}

double cli_frames_wait_s(const cli_frames *r)
{
    return r ? r->wait_s : 0;
}

void cli_frames_stop(cli_frames *r)
{
    if (!r)
        return;
    stop_threads(&r->lock, &r->changed, &r->stop, r->threads, r->nthreads);
    for (int k = 0; k < READ_AHEAD; k++)
        clik_image_free(&r->slots[k].img);
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* ---- results written behind -------------------------------------------------------- */

/* Item i is written from slot i % nslots; writers take the items in order,
 * several at a time, and free the slot when done. */
struct cli_writers {
    cli_write_fn fn;
    void *user;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned char *busy; /* of each slot: its item is not yet written */
    int nslots;
    int queued;  /* items handed over */
    int taken;   /* items a writer has taken on */
    int closing; /* no more items come */
    int rc;      /* the first failure */
    pthread_t threads[MAX_THREADS];
    int nthreads;  /* 0: each item is written when handed over */
    double wait_s; /* time spent in cli_writers_slot and cli_writers_finish */
};

static void *write_items(void *arg)
{
    cli_writers *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->taken == w->queued && !w->closing)
            pthread_cond_wait(&w->changed, &w->lock);
        if (w->taken == w->queued)
            break;
        const int i = w->taken++;
        const int failed = w->rc != CLI_OK;
        pthread_mutex_unlock(&w->lock);
        const int rc = failed ? CLI_OK : w->fn(w->user, i, i % w->nslots);
        pthread_mutex_lock(&w->lock);
        if (rc != CLI_OK && w->rc == CLI_OK)
            w->rc = rc;
        w->busy[i % w->nslots] = 0;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int cli_writers_slots(void)
{
    return host_threads() + 2;
}

cli_writers *cli_writers_start(int items, int slots, cli_write_fn fn, void *user)
{
    cli_writers *w = calloc(1, sizeof(*w));
    if (!w || !(w->busy = calloc((size_t)slots, 1))) {
        free(w);
        return NULL;
    }
    w->fn = fn;
    w->user = user;
    w->nslots = slots;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    for (int k = 0; k < host_threads() && k < items; k++) {
        if (pthread_create(&w->threads[w->nthreads], NULL, write_items, w) != 0)
            break;
        w->nthreads++;
    }
    return w;
}

int cli_writers_slot(cli_writers *w, int i)
{
    const double t0 = cli_seconds();
    pthread_mutex_lock(&w->lock);
    while (w->busy[i % w->nslots] && w->rc == CLI_OK)
        pthread_cond_wait(&w->changed, &w->lock);
    const int rc = w->rc;
    pthread_mutex_unlock(&w->lock);
    w->wait_s += cli_seconds() - t0;
    return rc;
}

void cli_writers_queue(cli_writers *w, int i)
{
    if (w->nthreads == 0) {
        if (w->rc == CLI_OK)
            w->rc = w->fn(w->user, i, i % w->nslots);
        w->queued = w->taken = i + 1;
        return;
    }
    pthread_mutex_lock(&w->lock);
    w->busy[i % w->nslots] = 1;
    w->queued = i + 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

int cli_writers_finish(cli_writers *w, double *wait_s)
{
    const double t0 = cli_seconds();
    stop_threads(&w->lock, &w->changed, &w->closing, w->threads, w->nthreads);
    w->wait_s += cli_seconds() - t0;
    if (wait_s)
        *wait_s = w->wait_s;
    const int rc = w->rc;
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    free(w->busy);
    free(w);
    return rc;
}

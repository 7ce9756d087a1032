/* Frames of a numbered sequence read ahead on threads of the host, so that
 * decoding the next frames overlaps the device's work on this one.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "imageio.h"

#define MAX_DECODERS 4
#define READ_AHEAD   (MAX_DECODERS + 2) /* frames read, or being read, ahead of the one taken */

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
    pthread_t threads[MAX_DECODERS];
    int nthreads;  /* 0: each frame is read when taken */
    double wait_s; /* time spent in cli_frames_take */
};

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
    /* One decoder fewer than the processors online, 1 to MAX_DECODERS. */
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const int want = cpus > 2 ? (int)(cpus - 1 < MAX_DECODERS ? cpus - 1 : MAX_DECODERS) : 1;
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
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    for (int k = 0; k < r->nthreads; k++)
        pthread_join(r->threads[k], NULL);
    for (int k = 0; k < READ_AHEAD; k++)
        clik_image_free(&r->slots[k].img);
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

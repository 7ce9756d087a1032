/*
 * The LAPAR model family inside the library: a model's entries and what
 * lapar_model_entry.c (the buckets, the transform group, the filter table)
 * gives the model file (lapar_model_file.c), classification and the upscale
 * (lapar_model.c) and training (lapar_train.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_OPS_LAPAR_MODEL_ENTRY_H
#define CLIK_OPS_LAPAR_MODEL_ENTRY_H

#include <string.h>

#include "internal.h"

#define MAX_TAPS    49 /* 7 x 7 */
#define MAX_ENTRIES 3
#define TAPS        CLIK_LAPAR_TAPS
#define NBINS       CLIK_LAPAR_MODEL_MAX_BINS

/* One scale of a model. */
typedef struct model_entry {
    int scale, angles, strengths, coherences, phases, window, atoms, f16;
    int buckets;
    int kind;     /* 0: dictionary coefficients; 1: free k x k filters */
    int ksize;    /* k: 5 (kind 0) or 5, 7 */
    int symmetry; /* 1, 2, 4 or 8: the order of the transform group */
    int stored;   /* rows of coef: buckets, or the orbits under the group */
    int index[CLIK_LAPAR_ATOMS];
    float strength_edges[NBINS - 1], coherence_edges[NBINS - 1];
    float *coef;    /* stored x atoms (kind 1: atoms = k k taps) */
    float *filters; /* buckets x k k: kind 0 sum_l coef[b][l] D_{index[l]}; kind 1 the rows,
                       expanded over the orbits; then the same table tap-major (tap t of
                       bucket b at t buckets + b), as the GPU kernel reads it */
} model_entry;

/* The bucket grid, and the bin edges, from one description (an entry, the
 * options, a plan) to another. */
#define COPY_GRID(to, from)                                                                        \
    ((to)->scale = (from)->scale, (to)->angles = (from)->angles,                                   \
     (to)->strengths = (from)->strengths, (to)->coherences = (from)->coherences,                   \
     (to)->phases = (from)->phases, (to)->window = (from)->window)
#define COPY_EDGES(to, from)                                                                       \
    (memcpy((to)->strength_edges, (from)->strength_edges, sizeof((to)->strength_edges)),           \
     memcpy((to)->coherence_edges, (from)->coherence_edges, sizeof((to)->coherence_edges)))

struct clik_lapar_model {
    int count;
    int is_default;
    model_entry e[MAX_ENTRIES];
};

/* A window side of the structure tensor: 3, 5, 7 or 9. */
int clik__lmodel_valid_window(int n);
/* The buckets of a grid. */
long clik__lmodel_bucket_count(int scale, int angles, int strengths, int coherences, int phases);
/* Every atom of the default dictionary, as doubles (CLIK_LAPAR_ATOMS x 25). */
void clik__lmodel_dictionary(double *d);

/* ---- the transform group of symmetric models (see lapar_model_entry.c) ---- */

/* Element i of the subgroup of order `symmetry`. */
int clik__lmodel_group_element(int symmetry, int i);
/* The tap t of a k x k filter moved by g. */
int clik__lmodel_group_tap(int k, int g, int t);
/* Bucket b of e moved by g. */
int clik__lmodel_group_bucket(const model_entry *e, int g, int b);
/* The least bucket of b's orbit, and into *via (unless NULL) the first
 * element taking b there. */
int clik__lmodel_group_canonical(const model_entry *e, int b, int *via);
/* The rows of coef: the orbits of e's buckets. */
int clik__lmodel_stored_count(const model_entry *e);

/* ---- entries and models ---- */

/* The filter table of e (both layouts; see model_entry), uninitialised. */
float *clik__lmodel_alloc_filters(const model_entry *e);
/* The table of every bucket's k x k filter from the coefficients: 0, -1
 * when out of memory, -2 when a dictionary model's filter overflows float. */
int clik__lmodel_make_filters(model_entry *e);
void clik__lmodel_entry_free(model_entry *e);
/* An empty model; NULL when out of memory. */
clik_lapar_model *clik__lmodel_model_new(void);
/* m's entry for scale; NULL when it has none (or m is NULL). */
const model_entry *clik__lmodel_entry_for(const clik_lapar_model *m, int scale);

/* The buckets of the bound or host up by entry e, as clik_lapar_classify
 * (for training, which has no filters yet). */
clik_status clik__lmodel_classify(clik_context *ctx, const model_entry *e, const clik_image *up,
                                  clik_image *buckets);

#endif

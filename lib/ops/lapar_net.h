/*
 * The LAPAR network inside the library: what lib/ops/lapar_net_file.c reads
 * and lib/ops/lapar_net.c runs. SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_OPS_LAPAR_NET_H
#define CLIK_OPS_LAPAR_NET_H

#include "internal.h"

/* A convolution as the file stores it: weights cout x cin x k x k, biases. */
typedef struct net_raw_conv {
    int cin, cout, k;
    const float *w, *b;
    const float *scale; /* the two scales the file stores after it, or NULL: a
                         * unit's conv2 and a block's reduction: residual and
                         * input scales; the tail's k5: the scales of k3, k5 */
} net_raw_conv;

/* The tensors of one run, planar f32 (see lapar_net.c). */
enum {
    NET_IN, /* 3 planes, the input minus the mean, low resolution */
    NET_X0, /* features, low resolution (the blocks' input and output, in turn) */
    NET_X1,
    NET_TMP, /* a unit's first convolution */
    NET_CAT, /* units x features: the outputs of a block's units, concatenated */
    NET_H0,  /* features at the output's resolution */
    NET_H1,
    NET_PHI, /* atoms planes at the output's resolution */
    NET_TENSORS
};

/* One fused convolution of the folded network, on tensors of a run. */
typedef struct net_step {
    clik_lapar_net_conv conv; /* w and b point into the network's folded weights */
    int in, in_off;           /* tensor and first plane read */
    int out, out_off;         /* tensor and first plane written */
    int res, res_off;         /* tensor added alpha times, or -1 */
    int hr;                   /* the input is at the output's resolution */
} net_step;

struct clik_lapar_net {
    clik_lapar_net_info info;
    int builtin;     /* from clik_lapar_net_builtin: never freed */
    uint64_t serial; /* unique per network read in this process (device caches) */
    float *params;   /* every parameter in file order, as floats */
    size_t nparams;
    const float *mean;  /* 3 */
    const float *atoms; /* atoms x 25 */
    /* the raw layers: head, per block (per unit conv1, conv2), reduction,
     * then up, tail k3, tail k5, fuse, last */
    net_raw_conv *raw;
    int nraw;
    /* the folded network */
    net_step *steps;
    int nsteps;
    float *folded; /* the steps' weights and biases */
};

/* The work-item shape of the network's convolutions (the lnet_* tuning
 * keys): local tiles, pixels, rows and output channels per work-item;
 * fixed: rows and channels stay as given on small layers; wino: lnet_wino. */
typedef struct net_conv_shape {
    int local, vw, ry, cob;
    int fixed;
    int wino; /* 3 x 3 layers by Winograd's F(2 x 2, 3 x 3) where they can */
} net_conv_shape;

/* clik_lapar_net_run_with; shape NULL: the tuning keys where given, else
 * the tuning store's record for the problem, else the defaults. */
clik_status clik__lapar_net_run_shaped(clik_context *ctx, const clik_lapar_net *net,
                                       const clik_image *src, clik_image *dst, clik_image *phi,
                                       const clik_lapar_net_options *opt,
                                       const net_conv_shape *shape);
/* The tuning store's problem class of a run of net on a w x h input. */
void clik__lapar_net_problem(const clik_lapar_net *net, int w, int h, int act_half, char *out,
                             size_t cap);
/* The shape a run of net on a w x h input uses on ctx's device, and whether
 * it is the tuning store's (lapar_net_shape.c). */
int clik__lapar_net_shape(clik_context *ctx, const clik_lapar_net *net, int w, int h, int act_half,
                          net_conv_shape *shape);

/* Builds the folded steps of a network whose raw layers are read (residual
 * scales into the convolutions, the tail's two branches into one 5 x 5
 * convolution). 0, or -1 when out of memory. */
int clik__lapar_net_fold(clik_lapar_net *net);

/* ---- one run (lapar_net.c, lapar_net_tile.c) ---- */

typedef struct net_args {
    const clik_lapar_net *net;
    const clik_image *src;
    clik_image *dst, *phi;      /* either may be NULL, not both */
    int w, h, s;                /* the input's size, the scale */
    size_t planes[NET_TENSORS]; /* channels of each tensor */
    clik_lapar_dict dict;
    int act_half; /* the device tensors are binary16 */
    net_conv_shape shape;
    int bgr; /* the input is BGR(A): the network reads red first */
} net_args;

/* The layout of a step's tensors on the device, and its kernel's shape. */
typedef struct net_layout {
    int vw, ry, cob_max, local; /* pixels, rows, channels per work-item; local tiles */
    int fixed;                  /* rows and channels as given on small layers */
    int wino;                   /* 3 x 3 layers by Winograd where they can (lnet_wino) */
    int pitch[2];               /* row pitch at low and high resolution (floats) */
    size_t plane[2];            /* plane size at low and high resolution */
} net_layout;

/* Bytes of an element of the device tensors. */
static inline size_t net_act_size(const net_args *a)
{
    return a->act_half ? 2 : sizeof(float);
}

/* The layout of a's tensors on ctx's device (lapar_net.c). */
void clik__lapar_net_layout(clik_context *ctx, const net_args *a, net_layout *lay);
/* phi as device scratch of type F32 or F16 (lapar_net.c). */
clik_status clik__lapar_net_bind_phi(clik_context *ctx, const net_args *a, clik_type type,
                                     clik_binding *b);
/* The network and the filter on bound images, the whole image at once:
 * phi the caller's or NULL (scratch), dst NULL when not asked
 * (lapar_net.c). */
clik_status clik__lapar_net_whole(clik_context *ctx, const net_args *a, const clik_binding *src,
                                  const clik_binding *dst, const clik_binding *phi_user);
/* The run on bound images b (src, then dst when asked, then phi when
 * asked): whole while it fits the device, else in tiles
 * (lapar_net_tile.c). */
clik_status clik__lapar_net_bound(clik_context *ctx, net_args *a, clik_binding *const *b);
/* The CPU path of a run (lapar_net.c): the steps through the CPU table,
 * then the CPU filter; p is the run's net_args, v its images. */
clik_status clik__lapar_net_cpu(clik_context *ctx, void *p, clik_image *const *v);

#endif

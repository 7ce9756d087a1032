/*
 * clik: the LAPAR networks (Li, Zhou, Qi, Jiang, Lu and Jia, "LAPAR:
 * Linearly-Assembled Pixel-Adaptive Regression Network for Single Image
 * Super-Resolution and Beyond", NeurIPS 2020): LaparNet predicts the
 * coefficients phi of clik_lapar_filter from the image itself. Included by
 * clik.h. SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_LAPAR_NET_H
#define CLIK_LAPAR_NET_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A LAPAR network: the weights of LaparNet (a 3 x 3 head, `blocks` local
 * fusion blocks of `units` weighted residual units, a 3 x 3 up-sampling
 * convolution with pixel shuffle, a 3 x 3 / 5 x 5 tail with learned weights
 * and the 3 x 3 convolution that emits phi) and its dictionary of 5 x 5
 * atoms. Read from a model file (.clikn: versioned, CRC-checked, every size
 * and count checked before allocation; see lib/ops/lapar_net_file.c), or
 * one of the released LAPAR-A, -B, -C networks at x2 and x4 built into the
 * library (clik_lapar_net_builtin). Opaque; one network may be used by any
 * number of contexts and threads at once (it is never modified).
 */
typedef struct clik_lapar_net clik_lapar_net;

#define CLIK_LAPAR_NET_MAX_FEATURES 256 /* most channels of the network's convolutions */
#define CLIK_LAPAR_NET_MAX_BLOCKS   32
#define CLIK_LAPAR_NET_MAX_UNITS    16
#define CLIK_LAPAR_NET_MAX_BYTES    ((size_t)256 << 20) /* largest model file */

typedef struct clik_lapar_net_info {
    char name[24];     /* "LAPAR-A x2", or as the file names it */
    int scale;         /* 2, 3 or 4 */
    int features;      /* channels of the body (LAPAR-A 32, B 24, C 16) */
    int blocks;        /* local fusion blocks (A 4, B 3, C 2) */
    int units;         /* residual units per block (4) */
    int atoms;         /* planes of phi: the dictionary's atoms (72; fewer compressed) */
    clik_type weights; /* storage of the convolution weights in the file: F32 or F16 */
    long parameters;   /* weights, biases and scalars */
} clik_lapar_net_info;

/* A network from a model file's bytes (size of them); free with
 * clik_lapar_net_free(). Truncated, corrupt or inconsistent data and
 * non-finite values fail with CLIK_ERR_FILE_FORMAT and a message; on
 * failure *net is untouched. ctx may be NULL (no message then). */
CLIK_API clik_status clik_lapar_net_read(clik_context *ctx, const void *data, size_t size,
                                         clik_lapar_net **net);
/* clik_lapar_net_read() of a file (CLIK_ERR_IO when it cannot be read). */
CLIK_API clik_status clik_lapar_net_load(clik_context *ctx, const char *path, clik_lapar_net **net);
/* A released network built into the library: name "lapar-a", "lapar-b" or
 * "lapar-c" (case-insensitive), scale 2 or 4. CLIK_ERR_INVALID_ARG with a
 * message for an unknown name or scale (no x3 network was released) and
 * when this build holds no such network (built without the weights: see
 * README.md). Built-in networks are never freed (free ignores them). */
CLIK_API clik_status clik_lapar_net_builtin(clik_context *ctx, const char *name, int scale,
                                            clik_lapar_net **net);
/* 1 when clik_lapar_net_builtin(name, scale) would find the network. */
CLIK_API int clik_lapar_net_builtin_available(const char *name, int scale);
/* Writes net in the model file format (version 1, f32 or f16 weights as
 * `weights` says) into buf (cap bytes; buf NULL: nothing written) and its
 * length into *size; CLIK_ERR_INVALID_SIZE when cap is too small. */
CLIK_API clik_status clik_lapar_net_write(clik_context *ctx, const clik_lapar_net *net,
                                          clik_type weights, void *buf, size_t cap, size_t *size);
CLIK_API clik_status clik_lapar_net_describe(const clik_lapar_net *net, clik_lapar_net_info *info);
/* The network's dictionary: info.atoms x CLIK_LAPAR_TAPS floats, valid for
 * the network's life. NULL for a NULL network. */
CLIK_API const float *clik_lapar_net_atoms(const clik_lapar_net *net);
/* NULL is ignored. */
CLIK_API void clik_lapar_net_free(clik_lapar_net *net);

/*
 * LAPAR inference: phi = LaparNet(src) and dst = clik_lapar_filter(src,
 * phi, the network's atoms, scale). src: u8 or f32 (on 0..255), RGB(A) or
 * BGR(A) as src->order says (the network sees R, G, B: a BGR picture gives
 * its RGB equivalent's phi; alpha carried over as clik_lapar_filter does;
 * 3 channels through 4-channel copies) or grey (the network sees it as
 * R = G = B); at least 2 x 2. dst: src's type
 * and channels, scale times its size (u8 rounded to nearest and
 * saturated). phi: NULL, or a one-channel F32 or F16 image of dst's width
 * and atoms times its height (plane l in rows l H .. l H + H - 1, as
 * clik_lapar_filter reads it), written with the network's output. dst
 * NULL with phi given computes phi alone. On an OpenCL device every layer,
 * the upsample and the filter run there, with no host round trip between
 * them; the CPU path runs the same steps on the host.
 */
CLIK_API clik_status clik_lapar_net_run(clik_context *ctx, const clik_lapar_net *net,
                                        const clik_image *src, clik_image *dst, clik_image *phi);

/* Options of clik_lapar_net_run_with; all zero (or NULL) is what
 * clik_lapar_net_run does. */
typedef struct clik_lapar_net_options {
    /* 1: on an OpenCL device the layers' outputs (the activations) are
     * stored as IEEE binary16 (vstore_half, round to nearest even) and read
     * back as floats, all arithmetic staying float: half the activations'
     * memory and traffic. Its error against the f32 network is bounded in
     * README.md (measured on the golden crops of the released networks);
     * the CPU paths store f32 whatever is asked. */
    int f16_activations;
} clik_lapar_net_options;

/* clik_lapar_net_run with options (opt NULL: the defaults); a member out
 * of its range is CLIK_ERR_INVALID_ARG with a message. */
CLIK_API clik_status clik_lapar_net_run_with(clik_context *ctx, const clik_lapar_net *net,
                                             const clik_image *src, clik_image *dst,
                                             clik_image *phi, const clik_lapar_net_options *opt);

/* The work-item shape of the network's convolutions on a device (the
 * tuning keys lnet_local, lnet_vw, lnet_ry, lnet_cob). */
typedef struct clik_lapar_net_tuning {
    int local;  /* 1: input tiles in local memory */
    int vw, ry; /* pixels along a row, rows, per work-item */
    int cob;    /* output channels per work-item (at most) */
    double ms;  /* the kernels' time of one run when searched; 0 otherwise */
    int stored; /* 1: from (or written to) the tuning store */
} clik_lapar_net_tuning;

/*
 * Work-item shape search for net on a width x height input (RGBA u8, the
 * whole run timed with profiling events, each candidate the best of 2
 * runs): the fastest is kept in *best and stored in the tuning store of
 * the context's cache folder (beside clik_lapar_tune's), one entry per
 * (device, network shape, input size class: the power of two of its
 * pixels, activations' type), which later runs of that class on this
 * device, in any process, use unless the lnet_* tuning keys are given.
 * CLIK_ERR_NO_DEVICE without an OpenCL device; CLIK_ERR_IO when the result
 * could not be stored (*best is filled, stored 0).
 */
CLIK_API clik_status clik_lapar_net_tune(clik_context *ctx, const clik_lapar_net *net, int width,
                                         int height, const clik_lapar_net_options *opt,
                                         clik_lapar_net_tuning *best);
/* The shape a run of net on a width x height input uses on the context's
 * device: the tuning keys where given, else the stored search, else the
 * defaults (stored 0). */
CLIK_API clik_status clik_lapar_net_tuning_get(clik_context *ctx, const clik_lapar_net *net,
                                               int width, int height,
                                               const clik_lapar_net_options *opt,
                                               clik_lapar_net_tuning *out);

/*
 * A network with a compressed dictionary (clik_lapar_compress's selection,
 * Zhao et al. 2021, section III-A), folded into the last convolution, which is
 * linear: a new network (free with clik_lapar_net_free) whose last
 * convolution emits sel->kept planes and whose dictionary is the kept
 * atoms, atom i = D_{index[i]}. Plane i's weights and bias are
 *   - mix NULL: gamma[i] times those of plane index[i];
 *   - mix set (kept x atoms floats, row i for kept atom i, as
 *     clik_lapar_compress fills it): sum_l mix[i * atoms + l] times those
 *     of plane l;
 * so that running it gives what clik_lapar_filter gives with the original
 * network's phi and the dictionary with that selection (sel->mix is not
 * read: pass the matrix as mix). Weights stored as binary32 (info.weights
 * F32), the name followed by " kK" where it fits. CLIK_ERR_NULL for a NULL
 * net, sel or out; CLIK_ERR_SIZE_MISMATCH for a selection of another atom
 * count; CLIK_ERR_INVALID_SIZE for a kept count outside 1..atoms;
 * CLIK_ERR_INVALID_ARG for indices not increasing within 0..atoms - 1 and
 * for non-finite gamma (mix NULL) or mix; CLIK_ERR_OVERFLOW when a folded
 * weight overflows binary32. On failure *out is untouched. ctx may be NULL
 * (no message then).
 */
CLIK_API clik_status clik_lapar_net_compress(clik_context *ctx, const clik_lapar_net *net,
                                             const clik_lapar_selection *sel, const float *mix,
                                             clik_lapar_net **out);

#ifdef __cplusplus
}
#endif
#endif /* CLIK_LAPAR_NET_H */

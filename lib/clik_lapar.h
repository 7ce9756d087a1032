/*
 * clik: the LAPAR filter and its dictionary (Li, Zhou, Qi, Jiang, Lu and
 * Jia, "LAPAR: Linearly-Assembled Pixel-Adaptive Regression Network for
 * Single Image Super-Resolution and Beyond", NeurIPS 2020), its work-group
 * search and dictionary compression (Zhao, Sun, Bai, Li, Zheng, Yu and
 * Wong, "A High-Performance Accelerator for Super-Resolution Processing on
 * Embedded GPU", 2021), and the LAPAR upscaler without a network: its
 * models, their file and their training. Included by clik.h.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_LAPAR_H
#define CLIK_LAPAR_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* LAPAR family (kernels/lapar.cl)                                           */

#define CLIK_LAPAR_TAPS      25  /* an atom: 5 x 5 weights, row r, column c at [5 r + c] */
#define CLIK_LAPAR_ATOMS     72  /* atoms of the default dictionary */
#define CLIK_LAPAR_MAX_ATOMS 128 /* most atoms of any dictionary */

/* Writes the default LAPAR dictionary (Li et al. 2020), CLIK_LAPAR_ATOMS x 25
 * floats, from its closed form: Gaussians exp(-d^T S^-1 d / 2) normalised to
 * sum 1 (x = c - 2, y = 2 - r; S = R(theta) diag(s1^2, s2^2) R(theta)^T),
 * atoms 0-30 with s1 = 2, 31-49 with s1 = 1.2, 50 with s1 = s2 = 0.4, and
 * 51-71 differences of them scaled to +1.4 / -0.4. Every atom is centrally
 * symmetric. */
CLIK_API clik_status clik_lapar_dict_default(float *atoms);

/*
 * A compressed dictionary (clik_lapar_compress): the filter uses `kept`
 * atoms of an `atoms`-atom dictionary, index[i] increasing, with the
 * coefficient of kept atom i
 *   - mix NULL: gamma[i] * phi_{index[i]}, read from plane index[i] of a
 *     phi of `atoms` planes, or from plane i of a phi of `kept` planes (what
 *     a network with its last layer pruned and scaled gives);
 *   - mix set (k x atoms floats, row i for kept atom i): sum_l mix[i * atoms
 *     + l] * phi_l over every plane of a phi of `atoms` planes (the re-fit a
 *     network's last linear layer can absorb); gamma is not used.
 */
typedef struct clik_lapar_selection {
    int atoms; /* L of the dictionary it selects from */
    int kept;  /* k, 1..atoms */
    int index[CLIK_LAPAR_MAX_ATOMS];
    float gamma[CLIK_LAPAR_MAX_ATOMS];
    const float *mix;
} clik_lapar_selection;

/* A dictionary: `atoms` (1..CLIK_LAPAR_MAX_ATOMS) atoms of 25 finite floats,
 * atom l at data[25 l]; selection NULL for every atom at weight 1. */
typedef struct clik_lapar_dict {
    int atoms;
    const float *data;
    const clik_lapar_selection *selection;
} clik_lapar_dict;

/* U, the bicubic upsample that LAPAR filters: lr (u8 or f32, 1, 3 or 4
 * channels) by an integer scale 2..4 into dst (F32, lr's channels, scale W x
 * scale H), as PyTorch's interpolate(mode='bicubic', align_corners=False):
 * source point (x + 0.5) / scale - 0.5, Keys' kernel with A = -0.75, taps
 * past the border clamped to it; no rounding or clamping of the result.
 * Alpha (4 channels) is carried over from the source pixel (x / scale, y /
 * scale), not interpolated. */
CLIK_API clik_status clik_lapar_upsample(clik_context *ctx, const clik_image *lr, int scale,
                                         clik_image *dst);

/*
 * LAPAR filtering (Li et al. 2020): for every pixel p of dst
 * (scale W x scale H, lr's type and channels),
 *   out_c(p) = sum_l phi_l(p) (D_l * U_c)(p) = <F(p), patch(U_c, p)>,
 *   F(p) = sum_l phi_l(p) D_l,
 * with U = clik_lapar_upsample(lr), patch the 5 x 5 neighbourhood of p in U
 * (reflect-101 past the border, folded as often as small images need) and *
 * cross-correlation (PyTorch's conv2d): out(x, y) = sum over r, c of
 * F[5 r + c] U(x + c - 2, y + r - 2). The same phi for every colour channel;
 * a 4-channel image is RGBA: alpha is carried over from the source pixel, as
 * in U, not filtered.
 *   - lr: u8 or f32, 1, 3 (through 4-channel copies made on the device) or
 *     4 channels; scale 2..4; dst of lr's type and
 *     channels, u8 rounded to nearest and saturated, f32 as it comes: no
 *     normalisation of phi, no clamp.
 *   - phi: the coefficients as one F32 or F16 one-channel image of scale W
 *     columns and P * scale H rows: plane l is rows [l scale H, (l + 1) scale
 *     H). P is dict->atoms, or the kept count of a selection without mix (see
 *     clik_lapar_selection).
 *   - A NaN in a plane the filter reads makes that pixel's colour channels
 *     NaN (f32) or 0 (u8).
 * dst may not overlap lr or phi.
 */
CLIK_API clik_status clik_lapar_filter(clik_context *ctx, const clik_image *lr,
                                       const clik_image *phi, const clik_lapar_dict *dict,
                                       int scale, clik_image *dst);

/* Calibration data of clik_lapar_compress, per image: phi (every plane of
 * the dictionary, F32 or F16, as clik_lapar_filter takes it), the upsample U
 * of the low-resolution input (F32, clik_lapar_upsample's, 1 or 4 channels:
 * the colour channels are used) and the ground truth (U's size and channels,
 * u8 or f32 on U's scale). */
typedef struct clik_lapar_calib {
    const clik_image *phi;
    const clik_image *upsampled;
    const clik_image *truth;
} clik_lapar_calib;

typedef struct clik_lapar_compress_options {
    int samples;       /* pixels sampled from each image, 1..2^24 (default 65536; all when fewer) */
    int refit_samples; /* of those, the first used by the matrix re-fit (default 16384) */
    uint64_t seed;     /* of the sampling (default 1) */
} clik_lapar_compress_options;

/* Fills *opt with the defaults. */
CLIK_API void clik_lapar_compress_options_init(clik_lapar_compress_options *opt);

/*
 * Dictionary compression (Zhao et al. 2021, Algorithm 1, without retraining):
 * keeps k = max(1, round(alpha * L)) atoms of dict (which may not have a
 * selection), alpha in (0, 1]. The terms x_l = phi_l (D_l * U_c) of sampled
 * pixels are fitted to the truth by the LASSO (coordinate descent on the
 * terms scaled to unit norm) with lambda grown from a tiny value by doubling
 * until at most k atoms survive, then bisected (fewer than k survive: lambda
 * decreases; more: it increases) until exactly k do; where no lambda leaves
 * exactly k, the k largest of the smallest larger set are kept. The kept
 * atoms are then re-weighted by least squares (gamma). With mix not NULL
 * (k x L floats), the re-fit matrix is also fitted by least squares and
 * sel->mix points at it. Deterministic. count calibration images (1..64).
 */
CLIK_API clik_status clik_lapar_compress(clik_context *ctx, const clik_lapar_calib *calib,
                                         int count, const clik_lapar_dict *dict, double alpha,
                                         const clik_lapar_compress_options *opt,
                                         clik_lapar_selection *sel, float *mix);

/* The kernels of clik_lapar_filter on an OpenCL device. */
typedef enum clik_lapar_variant {
    CLIK_LAPAR_VARIANT_AUTO = 0,  /* the device's default */
    CLIK_LAPAR_VARIANT_UPSAMPLED, /* U written once, then the fused filter (CPU devices) */
    CLIK_LAPAR_VARIANT_LOCAL,     /* one kernel: U from a local-memory tile of lr */
    CLIK_LAPAR_VARIANT_DIRECT,    /* one kernel: U from lr in global memory, no local memory */
} clik_lapar_variant;

typedef struct clik_lapar_tuning {
    clik_lapar_variant variant;
    int wg_x, wg_y; /* work-group shape of the filter kernel */
    double ms;      /* its kernel time when searched; 0 for a default */
    int stored;     /* 1: from the tuning store of the context's cache folder */
} clik_lapar_tuning;

/*
 * Work-group search (Zhao et al. 2021, section III-B) for clik_lapar_filter with
 * these arguments on the context's device: every variant and shape within
 * the device's and the kernel's limits (threads per group, local memory for
 * the tiles, no side past the output's) is timed with profiling events,
 * the best kept in *best and stored in the tuning store beside the kernel
 * cache, one entry per (device, kernel, problem class: types, channels,
 * scale, planes, size), which later filter calls on this device, in any
 * process, use. dst is written. CLIK_ERR_NO_DEVICE without an OpenCL device.
 */
CLIK_API clik_status clik_lapar_tune(clik_context *ctx, const clik_image *lr, const clik_image *phi,
                                     const clik_lapar_dict *dict, int scale, clik_image *dst,
                                     clik_lapar_tuning *best);

/* Stores t (a variant other than AUTO and a work-group shape within the
 * device's limits) as the tuning of the problem class of these arguments,
 * as clik_lapar_tune stores what it finds. CLIK_ERR_IO without a cache
 * folder; CLIK_ERR_NO_DEVICE without an OpenCL device. */
CLIK_API clik_status clik_lapar_tuning_set(clik_context *ctx, const clik_image *lr,
                                           const clik_image *phi, const clik_lapar_dict *dict,
                                           int scale, const clik_image *dst,
                                           const clik_lapar_tuning *t);

/* What clik_lapar_filter with these arguments runs on the context's device:
 * the stored tuning of their problem class, else the default (stored 0). */
CLIK_API clik_status clik_lapar_tuning_get(clik_context *ctx, const clik_image *lr,
                                           const clik_image *phi, const clik_lapar_dict *dict,
                                           int scale, const clik_image *dst,
                                           clik_lapar_tuning *out);

/* ------------------------------------------------------------------------ */
/* LAPAR model family: the upscaler without a network                      */

/*
 * A LAPAR coefficient model: per scale (2, 3 or 4) and per bucket of the
 * local structure of the upsample U, the coefficients phi of `atoms` atoms
 * of the default dictionary (CLIK_LAPAR_ATOMS; a model may use a subset),
 * or (kind 1, options.kernel 5 or 7) a free k x k filter.
 * A pixel's bucket comes from the structure tensor of U's luma: its angle,
 * strength and coherence, each quantised by edges the model stores, and
 * optionally the pixel's phase (x mod scale, y mod scale); the exact
 * definition is in fallback_cpu/cpu.h (clik_lapar_model_dsp). Trained by
 * ridge least squares in closed form (clik_lapar_trainer). Opaque; one
 * model may hold entries for several scales. Read-only once made: a model
 * may be shared by threads.
 */
typedef struct clik_lapar_model clik_lapar_model;

#define CLIK_LAPAR_MODEL_MAX_BINS    32    /* most bins of angle, strength or coherence */
#define CLIK_LAPAR_MODEL_MAX_BUCKETS 65535 /* most buckets of one scale (u16 bucket indices) */

/* Training progress: `done` of `total` steps of the current stage
 * (stage 0: accumulating an image, row by row; 1: solving, bucket by
 * bucket). Return 0 to go on, non-zero to stop (the call then fails with
 * CLIK_ERR_INVALID_ARG, "stopped"). */
typedef int (*clik_lapar_progress_fn)(void *user, int stage, long done, long total);

typedef struct clik_lapar_model_options {
    int scale;       /* 2, 3 or 4 (default 2) */
    int angles;      /* angle bins, 1..CLIK_LAPAR_MODEL_MAX_BINS (default 16) */
    int strengths;   /* strength bins, 1..CLIK_LAPAR_MODEL_MAX_BINS (default 3) */
    int coherences;  /* coherence bins, 1..CLIK_LAPAR_MODEL_MAX_BINS (default 3) */
    int phases;      /* 1: the output pixel's phase is part of the bucket (default 0) */
    int window;      /* structure-tensor window side: 3, 5, 7 or 9 (default 5) */
    int atoms;       /* atoms used: CLIK_LAPAR_ATOMS (every one), or 1..25: that many chosen
                        by pivoted Gram-Schmidt on the dictionary, largest residual first
                        (default 13: every atom is centrally symmetric, so the 72 span only
                        13 dimensions, which the 13 chosen span too) */
    int kernel;      /* 0: per bucket the coefficients of `atoms` dictionary atoms (a 5 x 5
                        centrally symmetric filter); 5 or 7: per bucket a free k x k filter (a
                        general linear map of the patch of U; `atoms` ignored) (default 0) */
    int symmetry;    /* kernel 5 or 7: 1 (none), 2 (the 180-degree rotation), 4 (and the
                        horizontal and vertical flips) or 8 (and the transposition; angles even):
                        buckets that these image transforms map onto each other share one stored
                        filter, moved by the transform; trained as on every transformed image
                        (default 1) */
    double alpha;    /* ridge weight, >= 0 and finite (below 1e-9: 1e-9), relative to the
                        mean diagonal of a bucket's normal equations (default 1e-5) */
    int min_samples; /* a bucket with fewer samples takes the fallback (default 64) */
    int f16;         /* 1: coefficients rounded to IEEE halves (and so stored) (default 1) */
    /* Bin edges, ascending: a value v falls in bin k when edge[k - 1] <= v <
     * edge[k]. Edges past the bin count are ignored; all 0 (the init's
     * value): the defaults below for the bin count given. */
    float strength_edges[CLIK_LAPAR_MODEL_MAX_BINS - 1];
    float coherence_edges[CLIK_LAPAR_MODEL_MAX_BINS - 1];
    clik_lapar_progress_fn progress; /* NULL: none */
    void *progress_user;
} clik_lapar_model_options;

/* Fills *opt with the defaults (edges 0: chosen by bin count, see
 * clik_lapar_trainer_create). */
CLIK_API void clik_lapar_model_options_init(clik_lapar_model_options *opt);

/*
 * Reads a model from its file format (size bytes at data): little-endian,
 * "CLIKLPM" magic, a version (2; 1 is still read), the file's length, the count of entries
 * (1..3, distinct scales), each entry's parameters, atom indices, bin edges
 * and coefficients (f32 or f16), and a CRC-32 of everything before it. The
 * header fields are checked before any allocation and every size against
 * the data's length: truncated, corrupt, lying or wrong-version input is
 * CLIK_ERR_FILE_FORMAT with a message saying what is wrong. Free *model
 * with clik_lapar_model_free(); on failure *model is untouched.
 */
CLIK_API clik_status clik_lapar_model_read(clik_context *ctx, const void *data, size_t size,
                                           clik_lapar_model **model);
/* clik_lapar_model_read() of a file's bytes; CLIK_ERR_IO when it cannot be
 * read (models are at most 64 MiB). */
CLIK_API clik_status clik_lapar_model_load(clik_context *ctx, const char *path,
                                           clik_lapar_model **model);
/* Writes model in the file format into buf (cap bytes; buf NULL: nothing
 * written) and its length into *size; CLIK_ERR_INVALID_SIZE when cap is
 * too small (with *size set). Deterministic: one model, one file. */
CLIK_API clik_status clik_lapar_model_write(clik_context *ctx, const clik_lapar_model *model,
                                            void *buf, size_t cap, size_t *size);
/* A new model holding the entries of a and b (scales must differ). */
CLIK_API clik_status clik_lapar_model_combine(clik_context *ctx, const clik_lapar_model *a,
                                              const clik_lapar_model *b, clik_lapar_model **out);
/* The parameters of model's entry for scale into *opt (edges as stored,
 * alpha, min_samples and progress as the init's): CLIK_ERR_INVALID_ARG
 * when the model has no entry for scale. */
CLIK_API clik_status clik_lapar_model_describe(clik_context *ctx, const clik_lapar_model *model,
                                               int scale, clik_lapar_model_options *opt);
/* The model embedded in the library (lib/models/lapar_default.clikm,
 * trained by `clik lapar-train` as README.md says), which has entries for
 * scales 2, 3 and 4; NULL for another scale. Not to be freed (free ignores
 * it). */
CLIK_API const clik_lapar_model *clik_lapar_model_default(int scale);
/* Frees a model; NULL and the default model are ignored. */
CLIK_API void clik_lapar_model_free(clik_lapar_model *model);

/*
 * Bucket indices of an upsample: up is clik_lapar_upsample's output (F32, 1,
 * 3 or 4 channels, on a 0..255 scale; colour weighed in up->order) for
 * `scale`, buckets a U16 one-channel
 * image of its size, written with each pixel's bucket in model's entry for
 * scale (model NULL: the default): ((phase A + angle) S + strength) C +
 * coherence, phase (y mod scale) scale + (x mod scale) with phases, else 0.
 */
CLIK_API clik_status clik_lapar_classify(clik_context *ctx, const clik_image *up,
                                         const clik_lapar_model *model, int scale,
                                         clik_image *buckets);

/*
 * LAPAR upscaling by a model: U = clik_lapar_upsample(src, scale), each
 * pixel p classified (clik_lapar_classify) into bucket b, and
 *   out_c(p) = <F_b, patch(U_c, p)>,  F_b = sum_l phi_{b,l} D_l (a dictionary
 * model; a free-filter model stores F_b, k x k, itself), the patch and
 * cross-correlation as clik_lapar_filter's (reflect-101): for a dictionary
 * model clik_lapar_filter with phi(p) = phi_{b(p)}, F_b computed once per bucket.
 * src: u8 or f32 (0..255), 1 channel, RGB or RGBA (alpha carried over from
 * the source pixel, as clik_lapar_filter does; 3 channels through 4-channel
 * copies made on the device), its luma from src->order (BGR(A) or RGB(A));
 * dst of src's type and channels, scale times its size, u8 rounded to
 * nearest and saturated. model NULL: the default. scale 2..4, an entry of
 * the model.
 */
CLIK_API clik_status clik_upscale_lapar(clik_context *ctx, const clik_image *src, clik_image *dst,
                                        int scale, const clik_lapar_model *model);

/*
 * Training (ridge least squares per bucket, in closed form). Each image
 * added (HR: u8 or f32 on 0..255, 1 or 4 channels; any size from 1 x 1;
 * images of different sizes and formats may be mixed) is cropped at its
 * right and bottom to a multiple of the scale; its low-resolution input is
 * clik_resize(..., CLIK_INTERP_BICUBIC_AA) by 1 / scale; U its
 * clik_lapar_upsample, classified as inference does. Every colour channel
 * of every pixel of U is a sample (luma drives the classification): the
 * bucket's normal equations of the 25 patch values against the HR value
 * are accumulated in double, in raster order (deterministic on one
 * device: the downscale, upsample and classification run on the context's
 * device, and devices may round them differently, within each op's
 * tolerance). Images
 * smaller than the scale on a side add nothing (CLIK_OK). Solve: per
 * bucket, the atoms' normal equations G = D P D^T, r = D q, and
 *   (G + lambda I) phi = r + lambda phi0,  lambda = alpha trace(G) / L,
 * by Cholesky in double; phi0 the fallback: the solution of the pooled
 * equations of every bucket of the same phase (ridge toward 0). A bucket
 * with fewer than min_samples samples takes phi0 itself; with no sample at
 * all in the phase, the pooled solution of the whole model.
 * clik_lapar_trainer_solve fails (CLIK_ERR_INVALID_ARG) with no sample.
 */
typedef struct clik_lapar_trainer clik_lapar_trainer;

/* opt NULL: the defaults. Edges left 0: strength S - 1 edges geometric from
 * 2.5 to 10 (S = 3: 2.5, 10; S = 2: 5), coherence k / C (C = 3: 1/3, 2/3). */
CLIK_API clik_status clik_lapar_trainer_create(clik_context *ctx,
                                               const clik_lapar_model_options *opt,
                                               clik_lapar_trainer **trainer);
CLIK_API clik_status clik_lapar_trainer_add(clik_lapar_trainer *trainer, const clik_image *hr);
/* The samples so far (colour channels times pixels). */
CLIK_API clik_status clik_lapar_trainer_samples(const clik_lapar_trainer *trainer,
                                                uint64_t *samples);
CLIK_API clik_status clik_lapar_trainer_solve(clik_lapar_trainer *trainer,
                                              clik_lapar_model **model);
/* NULL is ignored. */
CLIK_API void clik_lapar_trainer_free(clik_lapar_trainer *trainer);

#ifdef __cplusplus
}
#endif

#endif /* CLIK_LAPAR_H */

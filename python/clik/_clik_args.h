/*
 * clik._clik: what the files of the extension share. The context, device
 * image and argument types, the call under the context's lock (CALL), and
 * the argument-conversion layer of _clik_args.c through which every family
 * file (_clik_hist.c, _clik_pyramid.c, _clik_ssim.c, _clik_flow.c,
 * _clik_lapar.c, _clik_lapar_model.c, _clik_yuv.c) takes its images and arguments.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_PY_ARGS_H
#define CLIK_PY_ARGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <time.h>

#include "_clik_doc.h"
#include "clik.h"

/* ------------------------------------------------------------------------ */
/* Module globals (_clik_args.c): exceptions, NumPy callables, dtypes       */

extern PyObject *Error, *FormatError, *ArgumentError, *OutOfMemory, *FileError;
extern PyObject *np_empty, *np_asarray, *np_dtype_fn;
extern PyObject *np_dtypes[CLIK_F64 + 1];
extern const char *const type_names[CLIK_F64 + 1];
extern const char *const type_formats[CLIK_F64 + 1];

/* ------------------------------------------------------------------------ */
/* Contexts                                                                  */

typedef struct {
    PyObject ob_base;
    clik_context *ctx;
    PyThread_type_lock lock;
    unsigned long holder; /* the thread in a library call, 0 for none */
    PyObject *log;
    int closed;
    int device; /* has an OpenCL device */
    long deps;  /* images, memory, trainers and streams that need ctx */
    PyObject *weakrefs;
} CtxObject;

/* A library call under the context's lock with the GIL released. A call
 * from a log or progress callback of a call in progress on this context
 * (the same thread) would wait for its own lock: it fails instead, as does
 * a call on a context with a device in a fork() child. */
#define REENTERED CLIK_STATUS_COUNT
#define FORKED    (CLIK_STATUS_COUNT + 1)
#define CALL(c, st, expr)                                                                          \
    do {                                                                                           \
        if ((c)->holder == PyThread_get_thread_ident()) {                                          \
            (st) = REENTERED;                                                                      \
            break;                                                                                 \
        }                                                                                          \
        if (ctx_forked(c)) {                                                                       \
            (st) = FORKED;                                                                         \
            break;                                                                                 \
        }                                                                                          \
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock((c)->lock, WAIT_LOCK);                        \
        (c)->holder = PyThread_get_thread_ident();                                                 \
        (st) = (expr);                                                                             \
        (c)->holder = 0;                                                                           \
        PyThread_release_lock((c)->lock);                                                          \
        Py_END_ALLOW_THREADS                                                                       \
    } while (0)

/* The head of a PyTypeObject: its name, object size and the default flags. */
#define TYPE_HEAD(name, type)                                                                      \
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = name, .tp_basicsize = sizeof(type),                   \
                                .tp_flags = Py_TPFLAGS_DEFAULT

/* A method of METH_VARARGS | METH_KEYWORDS in a PyMethodDef table, its
 * docstring DOC_fn of _clik_doc.h. */
#define KW(name, fn)                                                                               \
    {                                                                                              \
        name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS, DOC_##fn              \
    }

extern PyTypeObject CtxType;

void after_fork_child(void);
int opencl_refuse(const char *what);
void opencl_mark(void);
int ctx_forked(const CtxObject *c);
int ctx_open(CtxObject *c);
PyObject *ctx_fail(CtxObject *c, clik_status st);
/* None when st is CLIK_OK, else ctx_fail(c, st). */
PyObject *ctx_none(CtxObject *c, clik_status st);
int lock_ctx(CtxObject *c);
int in_callback(const CtxObject *c);
void ctx_release(CtxObject *c);
PyObject *ctx_adopt(CtxObject *c, clik_status st, PyObject *obj, CtxObject **owner);
int refuse_in_callback(const char *what, const char *advice);

/* ------------------------------------------------------------------------ */
/* Errors and scalar arguments                                               */

/* Raises the exception of status st: "CLIK_ERR_X: message" with the
 * attributes status, code and message. Returns NULL. */
PyObject *raise_status(clik_status st, const char *message);
/* A status's name ("CLIK_ERR_BUILD") as a str. */
PyObject *status_name(clik_status st);
/* Raises clik.ArgumentError (a ValueError), as the library's
 * CLIK_ERR_INVALID_ARG, with a message made as PyUnicode_FromFormat does.
 * Returns NULL. */
PyObject *arg_error(const char *format, ...);
/* A new C-contiguous array (rows x cols; rows 0: a vector) of type t and
 * its writable view (to release), or NULL. */
PyObject *array_new(int rows, int cols, clik_type t, Py_buffer *view);
PyObject *f32_array(const float *v, int rows, int cols);
clik_type type_of_format(const char *f, Py_ssize_t itemsize);
int type_of_dtype(PyObject *o, const char *name, clik_type *t);
int int_value(PyObject *o, const char *name, int *out);
int u64_value(PyObject *o, const char *name, unsigned long long *out);
int path_arg(PyObject *o, const char *name, PyObject **bytes);
/* The colour order argument: "bgr" (the default, also for None or NULL:
 * OpenCV's arrays) or "rgb"; -1 with ArgumentError otherwise. */
int order_arg(PyObject *o, clik_order *order);
int scale_range(int scale, int lo, int hi);
int scale_ok(int scale, int lo, int hi, int w, int h);

/* ------------------------------------------------------------------------ */
/* Long calls: signals between steps                                         */

/* What a long call's progress callback watches: the caller's progress
 * callable (may be NULL) and the signals that arrive meanwhile (Ctrl-C's
 * KeyboardInterrupt), whose exception stops the call and is raised when it
 * returns. */
typedef struct {
    PyObject *progress;
    PyObject *exc_type, *exc_value, *exc_tb; /* raised by progress or a signal handler */
    struct timespec checked;                 /* when the signals were last checked */
} watch;

int watch_step(watch *w, const char *format, ...);
void watch_init(watch *w, PyObject *progress);
int watch_raise(watch *w);
void watch_clear(watch *w);

/* ------------------------------------------------------------------------ */
/* Device images and image arguments (_clik_image.c)                         */

typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_image img;
    int ndim3; /* shape (H, W, C) rather than (H, W) */
    PyObject *weakrefs;
} ImgObject;

extern PyTypeObject ImgType, MemType;
PyObject *img_new(CtxObject *c, int w, int h, int ch, clik_type t, int ndim3);

/* An image argument: a clik.Image of the context, or an array taken
 * through the buffer protocol (its view held until imarg_put). */
typedef struct {
    clik_image img;
    Py_buffer view;
    int has_view;
    int ndim3;
    int device; /* a clik.Image */
} imarg;

int imarg_get(CtxObject *c, PyObject *o, const char *name, int writable, imarg *a);
void imarg_put(imarg *a);
int imarg_pair(CtxObject *c, PyObject *ao, const char *an, PyObject *bo, const char *bn, imarg *a,
               imarg *b);
PyObject *out_new(CtxObject *c, const imarg *like, int w, int h, int ch, clik_type t, int ndim3,
                  imarg *out);
PyObject *out_get(CtxObject *c, PyObject *given, const imarg *like, int w, int h, int ch,
                  clik_type t, int ndim3, imarg *out);
PyObject *out_second(CtxObject *c, PyObject **r, imarg *o, imarg *a, int w, int h, int ch,
                     clik_type t, int ndim3, imarg *out);
PyObject *done_pair(CtxObject *c, clik_status st, PyObject *r, PyObject *r2, imarg *a, imarg *o,
                    imarg *o2);
PyObject *done(CtxObject *c, clik_status st, PyObject *result, imarg *a, imarg *b, imarg *d);

/* An op of one input image and one output whose size and format follow
 * the input's: the output made (or out= taken), the call run. */
typedef struct {
    int num, den;   /* output sides: ceil(side * num / den); num 0: w and h */
    int w, h;       /* the output's size when num is 0 */
    int channels;   /* 0: the input's */
    clik_type type; /* 0: the input's */
    int flat;       /* 1: shape (H, W) whatever the input's */
    int check_out;  /* 1: an out= must have the output's size (else the library checks) */
    /* The output's size from the input's, when not num/den or w and h:
     * -1 with an exception set when there is none. */
    int (*size)(const clik_image *src, const void *arg, int *w, int *h);
    clik_status (*fn)(clik_context *, const clik_image *, clik_image *, const void *);
    const void *arg;
    const clik_order *order; /* the input's colour order (NULL: as it is) */
} unary_op;

PyObject *unary(CtxObject *c, PyObject *src, const char *name, PyObject *out, const unary_op *u);
/* A method (src, out=None) of a unary op. */
PyObject *unary_method(CtxObject *c, PyObject *args, PyObject *kw, const unary_op *u);
/* A method (src, out=None, *, order='bgr') of a unary colour op (u's order
 * set from order=). */
PyObject *unary_order_method(CtxObject *c, PyObject *args, PyObject *kw, const unary_op *u);
/* The adapter of a library call (ctx, src, dst) to a unary_op's fn. */
#define UNARY_FN(name, call)                                                                       \
    static clik_status name(clik_context *x, const clik_image *a, clik_image *b, const void *p)    \
    {                                                                                              \
        (void)p;                                                                                   \
        return call(x, a, b);                                                                      \
    }

/* ------------------------------------------------------------------------ */
/* The families' methods of clik.Context and their types                     */

PyObject *ctx_empty(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_image(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_upload(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_download(CtxObject *c, PyObject *args, PyObject *kw);

PyObject *ctx_hist_compute(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_hist_equalize(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_hist_equalize_luma(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_clahe(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_hist_lut(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_integral(CtxObject *c, PyObject *args, PyObject *kw);

PyObject *ctx_pyr_down(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_pyr_up(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_pyr_gaussian(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_pyr_laplacian(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_pyr_collapse(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_resize(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_gaussian_blur(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_gray(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_yuv_to_rgb(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_rgb_to_yuv(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_yuv_resize(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_yuv_upscale_lapar(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_yuv_upscale_lapar_net(CtxObject *c, PyObject *args, PyObject *kw);

/* A clik.LaparModel or None (NULL: the default) into *m; -1 with TypeError
 * otherwise (_clik_lapar_model.c). */
int model_arg(PyObject *o, const char *name, const clik_lapar_model **m);
/* A LAPAR network argument (NULL: LAPAR-A; 'lapar-a', 'lapar-b', 'lapar-c'
 * or a network file's path) of `scale` into *net, *owned 1 when the caller
 * frees it; 0, or -1 with the error set (_clik_lapar_model.c). */
int net_arg(CtxObject *c, PyObject *o, int scale, clik_lapar_net **net, int *owned);

/* The arguments of a LAPAR model call beside its images (upscale_lapar,
 * lapar_classify, yuv_upscale_lapar): the scale and the model. */
typedef struct {
    int scale;
    const clik_lapar_model *model;
} model_call;

/* A resize method's name ('nearest', 'bilinear', 'bicubic', 'bicubic-aa')
 * into *m; -1 with ArgumentError otherwise (_clik_pyramid.c). */
int interp_of(const char *s, clik_interp *m);

PyObject *ctx_ssim(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_ssim_tiles(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_upscale_fusion(CtxObject *c, PyObject *args, PyObject *kw);
extern PyTypeObject StreamType;

PyObject *ctx_flow_tvl1(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_flow_warp(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_flow_warp_average(CtxObject *c, PyObject *args, PyObject *kw);

PyObject *ctx_lapar_upsample(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_filter(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_tune(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_tuning_get(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_tuning_set(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_compress(CtxObject *c, PyObject *args, PyObject *kw);
/* The default dictionary (filled at import) and clik.lapar_dict_default. */
extern float default_dict[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
PyObject *mod_lapar_dict_default(PyObject *self, PyObject *unused);

PyObject *ctx_lapar_model_read(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_model_load(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_model_write(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_model_combine(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_model_describe(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_classify(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_upscale_lapar(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_net_run(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_net_phi(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_net_tune(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_net_tuning_get(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *ctx_lapar_trainer(CtxObject *c, PyObject *args, PyObject *kw);
PyObject *mod_lapar_model_default(PyObject *self, PyObject *unused);
extern PyTypeObject ModelType, TrainerType;

#endif

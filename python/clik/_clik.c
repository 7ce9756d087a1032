/*
 * clik._clik: the CPython extension under the clik package. Images are
 * taken through the buffer protocol (NumPy arrays without copies: packed
 * pixels, rows at any stride), outputs made with numpy.empty, and every
 * library call runs with the GIL released and the context's lock held.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "clik.h"

/* ------------------------------------------------------------------------ */
/* Module globals: exceptions, NumPy callables, dtypes                       */

static PyObject *Error, *FormatError, *ArgumentError, *OutOfMemory, *FileError;
static PyObject *np_empty, *np_asarray, *np_dtype_fn;
static PyObject *np_dtypes[CLIK_F64 + 1];
static const char *const type_names[CLIK_F64 + 1] = {
    [CLIK_U8] = "uint8",    [CLIK_S16] = "int16",   [CLIK_U16] = "uint16",
    [CLIK_S32] = "int32",   [CLIK_U32] = "uint32",  [CLIK_U64] = "uint64",
    [CLIK_F16] = "float16", [CLIK_F32] = "float32", [CLIK_F64] = "float64",
};
static const char *const type_formats[CLIK_F64 + 1] = {
    [CLIK_U8] = "B",  [CLIK_S16] = "h", [CLIK_U16] = "H", [CLIK_S32] = "i", [CLIK_U32] = "I",
    [CLIK_U64] = "Q", [CLIK_F16] = "e", [CLIK_F32] = "f", [CLIK_F64] = "d",
};
static float default_dict[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];

/* Raises the exception of status st: "CLIK_ERR_X: message" with the
 * attributes status, code and message. */
static PyObject *raise_status(clik_status st, const char *message)
{
    const char *full = clik_status_str(st);
    const char *colon = strchr(full, ':');
    size_t n = colon ? (size_t)(colon - full) : strlen(full);
    PyObject *cls = Error;
    switch (st) {
    case CLIK_ERR_UNSUPPORTED_FORMAT: cls = FormatError; break;
    case CLIK_ERR_NULL:
    case CLIK_ERR_INVALID_ARG:
    case CLIK_ERR_INVALID_SIZE:
    case CLIK_ERR_SIZE_MISMATCH:
    case CLIK_ERR_STRIDE: cls = ArgumentError; break;
    case CLIK_ERR_NO_MEMORY: cls = OutOfMemory; break;
    case CLIK_ERR_IO: cls = FileError; break;
    default: break;
    }
    if (!message || !*message)
        message = colon ? colon + 2 : "";
    PyObject *status = PyUnicode_FromStringAndSize(full, (Py_ssize_t)n);
    PyObject *text = status ? PyUnicode_FromFormat("%U: %s", status, message) : NULL;
    PyObject *msg = PyUnicode_FromString(message);
    PyObject *code = PyLong_FromLong((long)st);
    PyObject *exc = text ? PyObject_CallOneArg(cls, text) : NULL;
    if (exc && status && msg && code && PyObject_SetAttrString(exc, "status", status) == 0 &&
        PyObject_SetAttrString(exc, "code", code) == 0 &&
        PyObject_SetAttrString(exc, "message", msg) == 0)
        PyErr_SetObject(cls, exc);
    Py_XDECREF(exc);
    Py_XDECREF(text);
    Py_XDECREF(status);
    Py_XDECREF(msg);
    Py_XDECREF(code);
    return NULL;
}

/* A new float32 array (rows x cols; rows 0: a vector) holding a copy of v. */
static PyObject *f32_array(const float *v, int rows, int cols)
{
    PyObject *shape = rows ? Py_BuildValue("(ii)", rows, cols) : Py_BuildValue("(i)", cols);
    PyObject *a =
        shape ? PyObject_CallFunctionObjArgs(np_empty, shape, np_dtypes[CLIK_F32], NULL) : NULL;
    Py_XDECREF(shape);
    Py_buffer b;
    if (!a || PyObject_GetBuffer(a, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_XDECREF(a);
        return NULL;
    }
    memcpy(b.buf, v, (size_t)b.len);
    PyBuffer_Release(&b);
    return a;
}

static clik_type type_of_format(const char *f, Py_ssize_t itemsize)
{
    if (!f)
        return CLIK_U8; /* plain bytes */
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    else if (*f == '>' || *f == '!')
        return 0;
    if (!f[0] || f[1])
        return 0;
    clik_type t = 0;
    switch (*f) {
    case 'B': t = CLIK_U8; break;
    case 'h': t = CLIK_S16; break;
    case 'H': t = CLIK_U16; break;
    case 'i': t = CLIK_S32; break;
    case 'I': t = CLIK_U32; break;
    case 'L':
    case 'Q': t = CLIK_U64; break;
    case 'e': t = CLIK_F16; break;
    case 'f': t = CLIK_F32; break;
    case 'd': t = CLIK_F64; break;
    default: return 0;
    }
    return (size_t)itemsize == clik_type_size(t) ? t : 0;
}

/* A dtype argument (anything numpy.dtype() takes) as a clik type. */
static int type_of_dtype(PyObject *o, const char *name, clik_type *t)
{
    PyObject *d = PyObject_CallOneArg(np_dtype_fn, o);
    if (!d)
        return -1;
    for (int i = CLIK_U8; i <= CLIK_F64; i++) {
        int eq = PyObject_RichCompareBool(d, np_dtypes[i], Py_EQ);
        if (eq < 0) {
            Py_DECREF(d);
            return -1;
        }
        if (eq) {
            Py_DECREF(d);
            *t = (clik_type)i;
            return 0;
        }
    }
    PyErr_Format(PyExc_TypeError, "argument '%s': dtype %R is not one of clik's", name, d);
    Py_DECREF(d);
    return -1;
}

/* An integer argument that must fit a C int: refused (OverflowError) rather
 * than truncated. */
static int int_value(PyObject *o, const char *name, int *out)
{
    int overflow = 0;
    const long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < INT_MIN || v > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "argument '%s': %R is out of range (%d to %d)", name, o,
                     INT_MIN, INT_MAX);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* An integer argument that must fit 64 bits without sign: refused
 * (OverflowError) rather than wrapped. */
static int u64_value(PyObject *o, const char *name, unsigned long long *out)
{
    PyObject *i = PyNumber_Index(o);
    if (!i)
        return -1;
    const unsigned long long v = PyLong_AsUnsignedLongLong(i);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "argument '%s': %R is out of range (0 to 2**64 - 1)",
                         name, i);
        }
        Py_DECREF(i);
        return -1;
    }
    Py_DECREF(i);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* fork(): OpenCL implementations (PoCL among them) keep threads and locks
 * that a fork() child does not get, so every OpenCL call of a child hangs.
 * A pthread_atfork handler marks a child of a process that had used OpenCL;
 * there contexts with a device are refused (new ones) or fail (inherited
 * ones), and what they hold is left to the process's exit. */

static int opencl_used;   /* this process has called into OpenCL */
static int opencl_forked; /* a fork() child of a process that had */

static void after_fork_child(void)
{
    if (opencl_used)
        opencl_forked = 1;
}

#define FORK_ADVICE                                                                                \
    "this process is a fork() child of a process that had used OpenCL, and OpenCL does not "       \
    "survive fork() (its threads stay behind in the parent: every call would hang); start "        \
    "worker processes with the 'spawn' start method (multiprocessing.get_context('spawn'), or "    \
    "concurrent.futures.ProcessPoolExecutor(mp_context=...)), or use device='none' in the child"

/* Before a call that may use OpenCL: in a forked child, raises the
 * refusal and returns -1. */
static int opencl_refuse(const char *what)
{
    if (!opencl_forked)
        return 0;
    PyErr_Format(PyExc_RuntimeError, "%s: %s", what, FORK_ADVICE);
    return -1;
}

/* After such a call: this process uses OpenCL if the library was loaded
 * (without one, nothing of OpenCL is left to a child). */
static void opencl_mark(void)
{
    if (clik_opencl_library(NULL))
        opencl_used = 1;
}

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

static PyTypeObject CtxType;

/* A context with a device inherited by a fork() child: its OpenCL
 * objects cannot be used (see above), not even to release them. */
static int ctx_forked(const CtxObject *c)
{
    return c->device && opencl_forked;
}

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

static int ctx_open(CtxObject *c)
{
    if (!c->ctx || c->closed) {
        PyErr_SetString(PyExc_ValueError, "the clik.Context is closed");
        return -1;
    }
    return 0;
}

static PyObject *ctx_fail(CtxObject *c, clik_status st)
{
    if (st == REENTERED) {
        PyErr_SetString(PyExc_RuntimeError, "a clik.Context was called from a log or progress "
                                            "callback of its own call in progress");
        return NULL;
    }
    if (st == FORKED) {
        PyErr_Format(PyExc_RuntimeError, "a clik.Context on an OpenCL device: %s", FORK_ADVICE);
        return NULL;
    }
    return raise_status(st, clik_context_message(c->ctx));
}

/* Takes the context's lock from code that holds the GIL (deallocators),
 * letting go of the GIL while waiting: a call in progress may need it for
 * a log or progress callback. */
static int lock_ctx(CtxObject *c)
{
    if (c->holder == PyThread_get_thread_ident())
        return 0; /* in a callback of this thread's call: the lock is held */
    if (!PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(c->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    return 1;
}

/* 1 inside a log or progress callback of a call in progress on c. */
static int in_callback(const CtxObject *c)
{
    return c->holder == PyThread_get_thread_ident();
}

/* Drops a dependent of c; the last one of a closed context destroys it,
 * unless a call on it is in progress (from one of its callbacks: then the
 * context's deallocation does) or it is inherited by a fork() child. */
static void ctx_release(CtxObject *c)
{
    if (--c->deps == 0 && c->closed && c->ctx && !in_callback(c) && !ctx_forked(c)) {
        clik_context_destroy(c->ctx);
        c->ctx = NULL;
    }
}

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

/* The most time between two checks of the signals while nothing else needs
 * the GIL: each check takes it, which a busy Python thread may hold for a
 * switch interval. */
#define SIGNAL_CHECK_NS 20000000L

/* Between two steps of a long call, without the GIL: the signal handlers
 * (at most every SIGNAL_CHECK_NS) and the progress callable (every time,
 * with args built from "format"). 1 to stop the call: the handler or the
 * callable raised (the exception is kept), or the callable returned False. */
static int watch_step(watch *w, const char *format, ...)
{
    if (w->exc_type)
        return 1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long elapsed =
        (long)(now.tv_sec - w->checked.tv_sec) * 1000000000L + (now.tv_nsec - w->checked.tv_nsec);
    if (!w->progress && elapsed >= 0 && elapsed < SIGNAL_CHECK_NS)
        return 0;
    w->checked = now;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0;
    if (!stop && w->progress) {
        va_list ap;
        va_start(ap, format);
        PyObject *args = Py_VaBuildValue(format, ap);
        va_end(ap);
        PyObject *r = args ? PyObject_CallObject(w->progress, args) : NULL;
        Py_XDECREF(args);
        stop = !r || r == Py_False;
        Py_XDECREF(r);
    }
    if (PyErr_Occurred())
        PyErr_Fetch(&w->exc_type, &w->exc_value, &w->exc_tb);
    PyGILState_Release(g);
    return stop;
}

static void watch_init(watch *w, PyObject *progress)
{
    memset(w, 0, sizeof(*w));
    w->progress = progress;
    clock_gettime(CLOCK_MONOTONIC, &w->checked);
}

/* After the call: the exception of a signal handler or the progress
 * callable, raised (-1), if there was one. */
static int watch_raise(watch *w)
{
    if (!w->exc_type)
        return 0;
    PyErr_Restore(w->exc_type, w->exc_value, w->exc_tb);
    w->exc_type = w->exc_value = w->exc_tb = NULL;
    return -1;
}

static void watch_clear(watch *w)
{
    Py_CLEAR(w->exc_type);
    Py_CLEAR(w->exc_value);
    Py_CLEAR(w->exc_tb);
}

/* ------------------------------------------------------------------------ */
/* Device images                                                             */

typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_image img;
    int ndim3; /* shape (H, W, C) rather than (H, W) */
    PyObject *weakrefs;
} ImgObject;

static PyTypeObject ImgType;

static void img_release(ImgObject *im)
{
    if (im->owner) {
        if ((im->img.buffer || im->img.data) && ctx_forked(im->owner)) {
            memset(&im->img, 0, sizeof(im->img)); /* left to the process's exit */
        } else if (im->img.buffer || im->img.data) {
            int locked = lock_ctx(im->owner);
            clik_image_free(&im->img);
            if (locked)
                PyThread_release_lock(im->owner->lock);
        }
        ctx_release(im->owner);
        Py_CLEAR(im->owner);
    }
}

static void img_dealloc(ImgObject *im)
{
    if (im->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)im);
    img_release(im);
    Py_TYPE(im)->tp_free((PyObject *)im);
}

static PyObject *img_new(CtxObject *c, int w, int h, int ch, clik_type t, int ndim3)
{
    ImgObject *im = PyObject_New(ImgObject, &ImgType);
    if (!im)
        return NULL;
    memset(&im->img, 0, sizeof(im->img));
    im->owner = NULL;
    im->weakrefs = NULL;
    im->ndim3 = ndim3 || ch > 1;
    clik_status st;
    CALL(c, st, clik_image_create(c->ctx, &im->img, w, h, ch, t));
    if (st != CLIK_OK) {
        Py_DECREF(im);
        return ctx_fail(c, st);
    }
    Py_INCREF(c);
    im->owner = c;
    c->deps++;
    return (PyObject *)im;
}

/* ------------------------------------------------------------------------ */
/* Image arguments                                                           */

typedef struct {
    clik_image img;
    Py_buffer view;
    int has_view;
    int ndim3;
    int device; /* a clik.Image */
} imarg;

static void imarg_put(imarg *a)
{
    if (a->has_view) {
        PyBuffer_Release(&a->view);
        a->has_view = 0;
    }
}

static int imarg_get(CtxObject *c, PyObject *o, const char *name, int writable, imarg *a)
{
    memset(a, 0, sizeof(*a));
    if (PyObject_TypeCheck(o, &ImgType)) {
        ImgObject *im = (ImgObject *)o;
        if (!im->img.buffer && !im->img.data) {
            PyErr_Format(PyExc_ValueError, "argument '%s': the clik.Image was freed", name);
            return -1;
        }
        if (im->owner != c) {
            PyErr_Format(PyExc_ValueError, "argument '%s': a clik.Image of another context", name);
            return -1;
        }
        a->img = im->img;
        a->ndim3 = im->ndim3;
        a->device = 1;
        return 0;
    }
    if (!PyObject_CheckBuffer(o)) {
        PyErr_Format(PyExc_TypeError,
                     "argument '%s': expected a NumPy array or a clik.Image, not %.100s", name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(o, &a->view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) < 0) {
        if (!writable)
            return -1;
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "argument '%s': the array is not writable", name);
        return -1;
    }
    a->has_view = 1;
    Py_buffer *v = &a->view;
    clik_type t = type_of_format(v->format, v->itemsize);
    if (!t) {
        PyErr_Format(PyExc_TypeError,
                     "argument '%s': element format '%s' is not supported (uint8, int16, "
                     "uint16, int32, uint32, uint64, float16, float32 or float64)",
                     name, v->format ? v->format : "B");
        goto fail;
    }
    if (v->ndim != 2 && v->ndim != 3) {
        PyErr_Format(PyExc_ValueError,
                     "argument '%s': expected shape (H, W) or (H, W, C), got %d dimensions", name,
                     v->ndim);
        goto fail;
    }
    Py_ssize_t h = v->shape[0], w = v->shape[1], ch = v->ndim == 3 ? v->shape[2] : 1;
    if (ch != 1 && ch != 2 && ch != 4) {
        PyErr_Format(PyExc_ValueError,
                     "argument '%s': %zd channels; clik images have 1, 2 or 4 (add an alpha "
                     "channel to RGB)",
                     name, ch);
        goto fail;
    }
    if (h <= 0 || w <= 0 || h > INT_MAX || w > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "argument '%s': a %zd x %zd image", name, w, h);
        goto fail;
    }
    Py_ssize_t isz = v->itemsize, pix = ch * isz;
    if ((v->ndim == 3 && ch > 1 && v->strides[2] != isz) || (w > 1 && v->strides[1] != pix)) {
        PyErr_Format(PyExc_ValueError,
                     "argument '%s': pixels are not packed (element strides %zd, %zd); pass "
                     "numpy.ascontiguousarray() of it",
                     name, v->strides[1], v->ndim == 3 ? v->strides[2] : isz);
        goto fail;
    }
    Py_ssize_t row = h == 1 ? w * pix : v->strides[0];
    if (row < w * pix || row % isz) {
        PyErr_Format(PyExc_ValueError,
                     "argument '%s': row stride %zd (rows of %zd bytes) is not supported; pass "
                     "numpy.ascontiguousarray() of it",
                     name, row, w * pix);
        goto fail;
    }
    clik_status st = clik_image_wrap(&a->img, (int)w, (int)h, (int)ch, t, v->buf, (size_t)row);
    if (st != CLIK_OK) {
        raise_status(st, name);
        goto fail;
    }
    a->ndim3 = v->ndim == 3;
    return 0;
fail:
    imarg_put(a);
    return -1;
}

/* A new output of the kind of like (a clik.Image when like is one, else a
 * NumPy array), taken as argument out. */
static PyObject *out_new(CtxObject *c, const imarg *like, int w, int h, int ch, clik_type t,
                         int ndim3, imarg *out)
{
    PyObject *r;
    if (like && like->device) {
        r = img_new(c, w, h, ch, t, ndim3);
    } else {
        PyObject *shape =
            (ndim3 || ch > 1) ? Py_BuildValue("(iii)", h, w, ch) : Py_BuildValue("(ii)", h, w);
        if (!shape)
            return NULL;
        r = PyObject_CallFunctionObjArgs(np_empty, shape, np_dtypes[t], NULL);
        Py_DECREF(shape);
    }
    if (r && imarg_get(c, r, "out", 1, out) < 0)
        Py_CLEAR(r);
    return r;
}

/* out given (not None): taken as it is; else a new one like out_new. */
static PyObject *out_get(CtxObject *c, PyObject *given, const imarg *like, int w, int h, int ch,
                         clik_type t, int ndim3, imarg *out)
{
    if (given && given != Py_None) {
        if (imarg_get(c, given, "out", 1, out) < 0)
            return NULL;
        Py_INCREF(given);
        return given;
    }
    return out_new(c, like, w, h, ch, t, ndim3, out);
}

/* The end of an op: views released, the result or the exception. */
static PyObject *done(CtxObject *c, clik_status st, PyObject *result, imarg *a, imarg *b, imarg *d)
{
    if (a)
        imarg_put(a);
    if (b)
        imarg_put(b);
    if (d)
        imarg_put(d);
    if (st != CLIK_OK) {
        Py_XDECREF(result);
        return ctx_fail(c, st);
    }
    return result;
}

/* ------------------------------------------------------------------------ */
/* Context: creation, properties                                             */

static const char *const level_names[] = {"debug", "info", "warning", "error"};

static void log_cb(void *user, clik_log_level level, const char *message)
{
    CtxObject *c = user;
    PyGILState_STATE g = PyGILState_Ensure();
    if (c->log) {
        PyObject *r = PyObject_CallFunction(
            c->log, "ss", (unsigned)level < 4 ? level_names[level] : "info", message);
        if (!r)
            PyErr_WriteUnraisable(c->log);
        Py_XDECREF(r);
    }
    PyGILState_Release(g);
}

static int opt_bool(PyObject *o, int *v)
{
    if (o == Py_None)
        return 0;
    int b = PyObject_IsTrue(o);
    if (b < 0)
        return -1;
    *v = b;
    return 0;
}

static int cpu_path_of(PyObject *o, clik_cpu_path *p)
{
    if (o == Py_None)
        return 0;
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if (s && !strcmp(s, "auto"))
        *p = CLIK_CPU_AUTO;
    else if (s && !strcmp(s, "scalar"))
        *p = CLIK_CPU_SCALAR;
    else if (s && !strcmp(s, "neon"))
        *p = CLIK_CPU_NEON;
    else {
        PyErr_SetString(PyExc_ValueError, "argument 'cpu_path': 'auto', 'scalar' or 'neon'");
        return -1;
    }
    return 0;
}

static int path_arg(PyObject *o, const char *name, PyObject **bytes)
{
    *bytes = NULL;
    if (o == Py_None)
        return 0;
    if (!PyUnicode_FSConverter(o, bytes)) {
        PyErr_Format(PyExc_TypeError, "argument '%s': a path", name);
        return -1;
    }
    return 0;
}

/* "none", whatever its case and spaces (as the library reads it). */
static int spec_is_none(const char *spec)
{
    while (*spec == ' ' || *spec == '\t')
        spec++;
    size_t n = strlen(spec);
    while (n > 0 && (spec[n - 1] == ' ' || spec[n - 1] == '\t'))
        n--;
    return n == 4 && strncasecmp(spec, "none", 4) == 0;
}

static int ctx_init(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"device",    "strict",       "cpu_path",  "cache",
                             "cache_dir", "local_memory", "profiling", "kernel_dir",
                             "tuning",    "log",          NULL};
    const char *device = NULL, *tuning = NULL;
    PyObject *strict = Py_None, *cpu_path = Py_None, *cache = Py_None, *cache_dir = Py_None,
             *local = Py_None, *prof = Py_None, *kdir = Py_None, *log = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z$OOOOOOOzO", kwlist, &device, &strict, &cpu_path,
                                     &cache, &cache_dir, &local, &prof, &kdir, &tuning, &log))
        return -1;
    if (c->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "clik.Context is already initialised");
        return -1;
    }
    /* The selection as the library resolves it: anything but "none" may
     * call into OpenCL. */
    const char *spec = device ? device : getenv("CLIK_DEVICE");
    const int may_use_opencl = !spec_is_none(spec && *spec ? spec : "auto");
    if (may_use_opencl && opencl_refuse("clik.Context with a device other than 'none'") < 0)
        return -1;
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = device;
    opt.tuning = tuning;
    PyObject *cache_b = NULL, *kdir_b = NULL;
    if (opt_bool(strict, &opt.strict) < 0 || opt_bool(cache, &opt.cache) < 0 ||
        opt_bool(local, &opt.local_memory) < 0 || opt_bool(prof, &opt.profiling) < 0 ||
        cpu_path_of(cpu_path, &opt.cpu_path) < 0 ||
        path_arg(cache_dir, "cache_dir", &cache_b) < 0 ||
        path_arg(kdir, "kernel_dir", &kdir_b) < 0) {
        Py_XDECREF(cache_b);
        return -1;
    }
    opt.cache_dir = cache_b ? PyBytes_AS_STRING(cache_b) : NULL;
    opt.kernel_dir = kdir_b ? PyBytes_AS_STRING(kdir_b) : NULL;
    if (log != Py_None) {
        if (!PyCallable_Check(log)) {
            PyErr_SetString(PyExc_TypeError, "argument 'log': a callable (level, message)");
            Py_XDECREF(cache_b);
            Py_XDECREF(kdir_b);
            return -1;
        }
        Py_INCREF(log);
        Py_XSETREF(c->log, log);
        opt.log = log_cb;
        opt.log_user = c;
    }
    clik_status st;
    clik_context *ctx = NULL;
    char message[2048] = "";
    Py_BEGIN_ALLOW_THREADS st = clik_context_create(&ctx, &opt);
    if (st != CLIK_OK)
        snprintf(message, sizeof(message), "%s", clik_context_message(NULL));
    Py_END_ALLOW_THREADS Py_XDECREF(cache_b);
    if (may_use_opencl)
        opencl_mark();
    Py_XDECREF(kdir_b);
    if (st != CLIK_OK) {
        raise_status(st, message);
        return -1;
    }
    c->ctx = ctx;
    c->device = clik_context_device(ctx) != NULL;
    return 0;
}

static PyObject *ctx_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw;
    CtxObject *c = (CtxObject *)type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    c->lock = PyThread_allocate_lock();
    if (!c->lock) {
        Py_DECREF(c);
        return PyErr_NoMemory();
    }
    return (PyObject *)c;
}

static void ctx_dealloc(CtxObject *c)
{
    PyObject_GC_UnTrack(c);
    if (c->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)c);
    if (c->ctx && !ctx_forked(c))
        clik_context_destroy(c->ctx);
    if (c->lock)
        PyThread_free_lock(c->lock);
    Py_CLEAR(c->log);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int ctx_traverse(CtxObject *c, visitproc visit, void *arg)
{
    Py_VISIT(c->log);
    return 0;
}

static int ctx_clear(CtxObject *c)
{
    Py_CLEAR(c->log);
    return 0;
}

static PyObject *ctx_close(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (in_callback(c)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "clik.Context.close() from a log or progress callback of a call in "
                        "progress on that context: close it after the call");
        return NULL;
    }
    if (!c->closed && c->ctx) {
        c->closed = 1;
        if (c->deps == 0 && !ctx_forked(c)) {
            Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(c->lock, WAIT_LOCK);
            clik_context_destroy(c->ctx);
            PyThread_release_lock(c->lock);
            Py_END_ALLOW_THREADS c->ctx = NULL;
        }
    }
    c->closed = 1;
    Py_RETURN_NONE;
}

static PyObject *device_dict(const clik_device_info *d)
{
    static const char *const kinds[] = {"other", "gpu", "cpu", "accelerator"};
    return Py_BuildValue(
        "{s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:K,s:K,s:K,s:O,s:n,s:(nnn),"
        "s:O,s:O,s:O,s:O,s:(ii),s:N}",
        "platform_index", d->platform_index, "device_index", d->device_index, "platform",
        d->platform_name, "platform_vendor", d->platform_vendor, "platform_version",
        d->platform_version, "name", d->name, "vendor", d->vendor, "driver_version",
        d->driver_version, "device_version", d->device_version, "opencl_c_version",
        d->opencl_c_version, "type", (unsigned)d->type < 4 ? kinds[d->type] : "other",
        "compute_units", d->compute_units, "max_clock_mhz", d->max_clock_mhz, "global_mem_size",
        (unsigned long long)d->global_mem_size, "max_alloc_size",
        (unsigned long long)d->max_alloc_size, "local_mem_size",
        (unsigned long long)d->local_mem_size, "local_mem_dedicated",
        d->local_mem_dedicated ? Py_True : Py_False, "max_work_group_size",
        (Py_ssize_t)d->max_work_group_size, "max_work_item_sizes",
        (Py_ssize_t)d->max_work_item_sizes[0], (Py_ssize_t)d->max_work_item_sizes[1],
        (Py_ssize_t)d->max_work_item_sizes[2], "image_support",
        d->image_support ? Py_True : Py_False, "fp16", d->fp16 ? Py_True : Py_False, "fp64",
        d->fp64 ? Py_True : Py_False, "non_uniform_work_groups",
        d->non_uniform_work_groups ? Py_True : Py_False, "opencl_c", d->opencl_c_major,
        d->opencl_c_minor, "spec",
        PyUnicode_FromFormat("%d:%d", d->platform_index, d->device_index));
}

static PyObject *ctx_get_device(CtxObject *c, void *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    const clik_device_info *d = clik_context_device(c->ctx);
    if (!d)
        Py_RETURN_NONE;
    return device_dict(d);
}

static PyObject *backend_str(clik_backend b)
{
    return PyUnicode_FromString(clik_backend_name(b));
}

static PyObject *ctx_get_last_backend(CtxObject *c, void *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    return backend_str(clik_context_last_backend(c->ctx));
}

static PyObject *ctx_get_cpu_backend(CtxObject *c, void *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    return backend_str(clik_context_cpu_backend(c->ctx));
}

static PyObject *ctx_get_fallback_cause(CtxObject *c, void *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    clik_status st = clik_context_fallback_cause(c->ctx);
    if (st == CLIK_OK)
        Py_RETURN_NONE;
    const char *full = clik_status_str(st);
    const char *colon = strchr(full, ':');
    return PyUnicode_FromStringAndSize(full, colon ? colon - full : (Py_ssize_t)strlen(full));
}

static PyObject *ctx_get_message(CtxObject *c, void *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    return PyUnicode_FromString(clik_context_message(c->ctx));
}

static PyObject *ctx_get_closed(CtxObject *c, void *unused)
{
    (void)unused;
    return PyBool_FromLong(c->closed || !c->ctx);
}

static PyObject *ctx_stats(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    clik_context_stats s;
    clik_context_stats_get(c->ctx, &s);
    return Py_BuildValue("{s:I,s:I,s:I,s:I,s:I,s:I,s:d}", "programs_built", s.programs_built,
                         "programs_from_disk", s.programs_from_disk, "programs_reused",
                         s.programs_reused, "cache_rejected", s.cache_rejected, "cache_written",
                         s.cache_written, "fallbacks", s.fallbacks, "last_kernel_ms",
                         s.last_kernel_ms);
}

static PyObject *ctx_finish(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (ctx_open(c) < 0)
        return NULL;
    clik_status st;
    CALL(c, st, clik_context_finish(c->ctx));
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    Py_RETURN_NONE;
}

static PyObject *ctx_copy_bandwidth(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"nbytes", "reps", NULL};
    Py_ssize_t bytes = 64 << 20;
    int reps = 5;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ni", kwlist, &bytes, &reps) || ctx_open(c) < 0)
        return NULL;
    if (bytes <= 0 || reps <= 0) {
        PyErr_SetString(PyExc_ValueError, "arguments 'nbytes' and 'reps' must be positive");
        return NULL;
    }
    double gbps = 0;
    clik_status st;
    CALL(c, st, clik_context_copy_bandwidth(c->ctx, (size_t)bytes, reps, &gbps));
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return PyFloat_FromDouble(gbps);
}

static PyObject *ctx_transfer_bandwidth(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"nbytes", "reps", NULL};
    Py_ssize_t bytes = 64 << 20;
    int reps = 5;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ni", kwlist, &bytes, &reps) || ctx_open(c) < 0)
        return NULL;
    if (bytes <= 0 || reps <= 0) {
        PyErr_SetString(PyExc_ValueError, "arguments 'nbytes' and 'reps' must be positive");
        return NULL;
    }
    double to_dev = 0, to_host = 0;
    clik_status st;
    CALL(c, st, clik_context_transfer_bandwidth(c->ctx, (size_t)bytes, reps, &to_dev, &to_host));
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return Py_BuildValue("(dd)", to_dev, to_host);
}

/* ------------------------------------------------------------------------ */
/* Memory: context host memory, device images, transfers                     */

/* Parses a shape (H, W) or (H, W, C) and a dtype. */
static int shape_dtype(PyObject *shape, PyObject *dtype, int *w, int *h, int *ch, int *ndim3,
                       clik_type *t)
{
    Py_ssize_t n = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
    if (n != 2 && n != 3) {
        PyErr_SetString(PyExc_ValueError, "argument 'shape': a tuple (H, W) or (H, W, C)");
        return -1;
    }
    long v[3] = {0, 0, 1};
    for (Py_ssize_t i = 0; i < n; i++) {
        v[i] = PyLong_AsLong(PyTuple_GET_ITEM(shape, i));
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
        if (v[i] <= 0 || v[i] > INT_MAX) {
            PyErr_SetString(PyExc_ValueError, "argument 'shape': sides must be positive");
            return -1;
        }
    }
    if (v[2] != 1 && v[2] != 2 && v[2] != 4) {
        PyErr_SetString(PyExc_ValueError, "argument 'shape': 1, 2 or 4 channels");
        return -1;
    }
    *h = (int)v[0];
    *w = (int)v[1];
    *ch = (int)v[2];
    *ndim3 = n == 3;
    return type_of_dtype(dtype, "dtype", t);
}

/* Host memory from clik_image_alloc_on, exported through the buffer
 * protocol (ctx.empty() wraps it in a NumPy array). */
typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_image img;
    Py_ssize_t shape[3], strides[3];
    int ndim;
} MemObject;

static PyTypeObject MemType;

static void mem_dealloc(MemObject *m)
{
    if (m->owner && !ctx_forked(m->owner)) {
        int locked = lock_ctx(m->owner);
        clik_image_free(&m->img);
        if (locked)
            PyThread_release_lock(m->owner->lock);
    }
    if (m->owner) {
        ctx_release(m->owner);
        Py_CLEAR(m->owner);
    }
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static int mem_getbuffer(MemObject *m, Py_buffer *view, int flags)
{
    (void)flags;
    view->buf = m->img.data;
    view->obj = (PyObject *)m;
    Py_INCREF(m);
    view->itemsize = (Py_ssize_t)clik_type_size(m->img.type);
    view->len = (Py_ssize_t)m->img.stride * m->img.height;
    view->readonly = 0;
    view->format = (char *)type_formats[m->img.type];
    view->ndim = m->ndim;
    view->shape = m->shape;
    view->strides = m->strides;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs mem_as_buffer = {(getbufferproc)mem_getbuffer, NULL};

static PyObject *ctx_empty(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"shape", "dtype", NULL};
    PyObject *shape, *dtype = np_dtypes[CLIK_U8];
    int w, h, ch, ndim3;
    clik_type t;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &shape, &dtype) || ctx_open(c) < 0 ||
        shape_dtype(shape, dtype, &w, &h, &ch, &ndim3, &t) < 0)
        return NULL;
    MemObject *m = PyObject_New(MemObject, &MemType);
    if (!m)
        return NULL;
    m->owner = NULL;
    memset(&m->img, 0, sizeof(m->img));
    clik_status st;
    CALL(c, st, clik_image_alloc_on(c->ctx, &m->img, w, h, ch, t));
    if (st != CLIK_OK) {
        Py_DECREF(m);
        return ctx_fail(c, st);
    }
    Py_INCREF(c);
    m->owner = c;
    c->deps++;
    Py_ssize_t isz = (Py_ssize_t)clik_type_size(t);
    m->ndim = ndim3 ? 3 : 2;
    m->shape[0] = h;
    m->shape[1] = w;
    m->shape[2] = ch;
    m->strides[0] = (Py_ssize_t)m->img.stride;
    m->strides[1] = ch * isz;
    m->strides[2] = isz;
    PyObject *arr = PyObject_CallOneArg(np_asarray, (PyObject *)m);
    Py_DECREF(m);
    return arr;
}

static PyObject *ctx_image(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"shape", "dtype", NULL};
    PyObject *shape, *dtype = np_dtypes[CLIK_U8];
    int w, h, ch, ndim3;
    clik_type t;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &shape, &dtype) || ctx_open(c) < 0 ||
        shape_dtype(shape, dtype, &w, &h, &ch, &ndim3, &t) < 0)
        return NULL;
    return img_new(c, w, h, ch, t, ndim3);
}

static PyObject *ctx_upload(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", NULL};
    PyObject *src;
    imarg a, d;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &src) || ctx_open(c) < 0 ||
        imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    if (a.device) {
        PyErr_SetString(PyExc_TypeError, "argument 'src': a host array (it is a clik.Image)");
        return NULL;
    }
    PyObject *r = img_new(c, a.img.width, a.img.height, a.img.channels, a.img.type, a.ndim3);
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    d.img = ((ImgObject *)r)->img;
    clik_status st;
    CALL(c, st, clik_image_upload(c->ctx, &d.img, &a.img));
    return done(c, st, r, &a, NULL, NULL);
}

static PyObject *download(CtxObject *c, PyObject *src, PyObject *out)
{
    imarg a, o;
    if (ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    if (!a.device) {
        PyErr_SetString(PyExc_TypeError, "argument 'src': a clik.Image");
        return NULL;
    }
    o.device = 0;
    PyObject *r =
        out_get(c, out, NULL, a.img.width, a.img.height, a.img.channels, a.img.type, a.ndim3, &o);
    if (!r)
        return NULL;
    clik_status st;
    CALL(c, st, clik_image_download(c->ctx, &o.img, &a.img));
    return done(c, st, r, &a, &o, NULL);
}

static PyObject *ctx_download(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "out", NULL};
    PyObject *src, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &src, &out))
        return NULL;
    return download(c, src, out);
}

static PyObject *img_download(ImgObject *im, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"out", NULL};
    PyObject *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &out))
        return NULL;
    if (!im->owner) {
        PyErr_SetString(PyExc_ValueError, "the clik.Image was freed");
        return NULL;
    }
    return download(im->owner, (PyObject *)im, out);
}

static PyObject *img_upload(ImgObject *im, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", NULL};
    PyObject *src;
    imarg a;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &src))
        return NULL;
    if (!im->owner) {
        PyErr_SetString(PyExc_ValueError, "the clik.Image was freed");
        return NULL;
    }
    CtxObject *c = im->owner;
    if (ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    clik_status st;
    CALL(c, st, clik_image_upload(c->ctx, &im->img, &a.img));
    imarg_put(&a);
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    Py_RETURN_NONE;
}

static PyObject *img_free(ImgObject *im, PyObject *unused)
{
    (void)unused;
    if (im->owner && in_callback(im->owner)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "clik.Image.free() from a log or progress callback of a call in progress "
                        "on its context, which may be using the image: free it after the call");
        return NULL;
    }
    img_release(im);
    Py_RETURN_NONE;
}

static PyObject *img_get_context(ImgObject *im, void *u)
{
    (void)u;
    if (!im->owner)
        Py_RETURN_NONE;
    Py_INCREF(im->owner);
    return (PyObject *)im->owner;
}
static PyObject *img_get_width(ImgObject *im, void *u)
{
    (void)u;
    return PyLong_FromLong(im->img.width);
}
static PyObject *img_get_height(ImgObject *im, void *u)
{
    (void)u;
    return PyLong_FromLong(im->img.height);
}
static PyObject *img_get_channels(ImgObject *im, void *u)
{
    (void)u;
    return PyLong_FromLong(im->img.channels);
}
static PyObject *img_get_dtype(ImgObject *im, void *u)
{
    (void)u;
    if (im->img.type < CLIK_U8 || im->img.type > CLIK_F64)
        Py_RETURN_NONE;
    Py_INCREF(np_dtypes[im->img.type]);
    return np_dtypes[im->img.type];
}
static PyObject *img_get_shape(ImgObject *im, void *u)
{
    (void)u;
    if (im->ndim3)
        return Py_BuildValue("(iii)", im->img.height, im->img.width, im->img.channels);
    return Py_BuildValue("(ii)", im->img.height, im->img.width);
}
static PyObject *img_repr(ImgObject *im)
{
    if (!im->owner)
        return PyUnicode_FromString("<clik.Image (freed)>");
    return PyUnicode_FromFormat("<clik.Image %dx%d, %d channel(s), %s>", im->img.width,
                                im->img.height, im->img.channels, clik_type_name(im->img.type));
}

/* ------------------------------------------------------------------------ */
/* Histogram family                                                          */

static PyObject *ctx_hist(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", NULL};
    PyObject *src;
    imarg a;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &src) || ctx_open(c) < 0 ||
        imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    PyObject *shape = Py_BuildValue("(ii)", a.img.channels, 256);
    PyObject *r =
        shape ? PyObject_CallFunctionObjArgs(np_empty, shape, np_dtypes[CLIK_U32], NULL) : NULL;
    Py_XDECREF(shape);
    Py_buffer hv;
    if (!r || PyObject_GetBuffer(r, &hv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_XDECREF(r);
        imarg_put(&a);
        return NULL;
    }
    clik_status st;
    CALL(c, st, clik_hist_compute(c->ctx, &a.img, (uint32_t *)hv.buf));
    PyBuffer_Release(&hv);
    return done(c, st, r, &a, NULL, NULL);
}

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
} unary_op;

static PyObject *unary(CtxObject *c, PyObject *src, const char *name, PyObject *out,
                       const unary_op *u)
{
    imarg a, o;
    if (ctx_open(c) < 0 || imarg_get(c, src, name, 0, &a) < 0)
        return NULL;
    long long w = u->w, h = u->h;
    if (u->size) {
        int sw = 0, sh = 0;
        if (u->size(&a.img, u->arg, &sw, &sh) < 0) {
            imarg_put(&a);
            return NULL;
        }
        w = sw;
        h = sh;
    } else if (u->num) {
        w = ((long long)a.img.width * u->num + u->den - 1) / u->den;
        h = ((long long)a.img.height * u->num + u->den - 1) / u->den;
    }
    if (w > INT_MAX || h > INT_MAX) {
        imarg_put(&a);
        PyErr_Format(PyExc_ValueError, "argument '%s': too large for the output", name);
        return NULL;
    }
    PyObject *r = out_get(c, out, &a, (int)w, (int)h, u->channels ? u->channels : a.img.channels,
                          u->type ? u->type : a.img.type, u->flat ? 0 : a.ndim3, &o);
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    if (u->check_out && (o.img.width != w || o.img.height != h)) {
        PyErr_Format(PyExc_ValueError, "argument 'out': %d x %d, the output is %lld x %lld",
                     o.img.width, o.img.height, w, h);
        imarg_put(&o);
        imarg_put(&a);
        Py_DECREF(r);
        return NULL;
    }
    clik_status st;
    CALL(c, st, u->fn(c->ctx, &a.img, &o.img, u->arg));
    return done(c, st, r, &a, &o, NULL);
}

static int scale_range(int scale, int lo, int hi)
{
    if (scale < lo || scale > hi) {
        PyErr_Format(PyExc_ValueError, "argument 'scale': %d..%d", lo, hi);
        return -1;
    }
    return 0;
}

static clik_status do_equalize(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    (void)p;
    return clik_hist_equalize(x, a, b);
}

static PyObject *ctx_equalize(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "out", NULL};
    PyObject *src, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &src, &out))
        return NULL;
    return unary(c, src, "src", out, &(unary_op){.num = 1, .den = 1, .fn = do_equalize});
}

static clik_status do_lut(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const Py_buffer *t = p;
    return clik_hist_lut(x, a, b, t->buf, (int)(t->len / 256));
}

static PyObject *ctx_lut(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "tables", "out", NULL};
    PyObject *src, *tables, *out = Py_None;
    Py_buffer tv;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O", kwlist, &src, &tables, &out))
        return NULL;
    if (PyObject_GetBuffer(tables, &tv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        tv.obj = NULL;
    }
    if (!tv.obj || type_of_format(tv.format, tv.itemsize) != CLIK_U8 || tv.len % 256 ||
        tv.len == 0) {
        if (tv.obj)
            PyBuffer_Release(&tv);
        PyErr_SetString(PyExc_TypeError,
                        "argument 'tables': a C-contiguous uint8 array of 256 or C x 256");
        return NULL;
    }
    PyObject *r =
        unary(c, src, "src", out, &(unary_op){.num = 1, .den = 1, .fn = do_lut, .arg = &tv});
    PyBuffer_Release(&tv);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Pyramid family                                                            */

static clik_status do_pyr_down(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    (void)p;
    return clik_pyr_down(x, a, b);
}

static clik_status do_pyr_up(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    (void)p;
    return clik_pyr_up(x, a, b);
}

/* pyr_down and pyr_up: the output's sides halved or doubled. */
static PyObject *pyr_step(CtxObject *c, PyObject *args, PyObject *kw, const unary_op *u)
{
    static char *kwlist[] = {"src", "out", NULL};
    PyObject *src, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &src, &out))
        return NULL;
    return unary(c, src, "src", out, u);
}

static PyObject *ctx_pyr_down(CtxObject *c, PyObject *args, PyObject *kw)
{
    return pyr_step(c, args, kw, &(unary_op){.num = 1, .den = 2, .fn = do_pyr_down});
}

static PyObject *ctx_pyr_up(CtxObject *c, PyObject *args, PyObject *kw)
{
    return pyr_step(c, args, kw, &(unary_op){.num = 2, .den = 1, .fn = do_pyr_up});
}

#define MAX_LEVELS 64

/* count + extra images of type t of the pyramid of a (levels from 1, or
 * with extra from 0), as a list; img[] receives their images. */
static PyObject *pyramid_list(CtxObject *c, const imarg *a, int count, int extra, clik_type t,
                              clik_image *img, imarg *views)
{
    PyObject *list = PyList_New(count + extra);
    if (!list)
        return NULL;
    int first = extra ? 0 : 1; /* a Laplacian list starts at level 0 */
    for (int i = 0; i < count + extra; i++) {
        int lw, lh;
        clik_pyr_level_size(a->img.width, a->img.height, i + first, &lw, &lh);
        PyObject *o = out_new(c, a, lw, lh, a->img.channels, t, a->ndim3, &views[i]);
        if (!o) {
            for (int j = 0; j < i; j++)
                imarg_put(&views[j]);
            Py_DECREF(list);
            return NULL;
        }
        img[i] = views[i].img;
        PyList_SET_ITEM(list, i, o);
    }
    return list;
}

static int levels_arg(const imarg *a, int levels)
{
    int most = clik_pyr_max_levels(a->img.width, a->img.height);
    if (levels < 0 || levels > most || levels >= MAX_LEVELS) {
        PyErr_Format(PyExc_ValueError, "argument 'levels': 0..%d for a %d x %d image",
                     most < MAX_LEVELS - 1 ? most : MAX_LEVELS - 1, a->img.width, a->img.height);
        return -1;
    }
    return 0;
}

static PyObject *ctx_gaussian_pyramid(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "levels", NULL};
    PyObject *src;
    int levels;
    imarg a, views[MAX_LEVELS];
    clik_image img[MAX_LEVELS];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi", kwlist, &src, &levels) || ctx_open(c) < 0 ||
        imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    if (levels_arg(&a, levels) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *list = pyramid_list(c, &a, levels, 0, a.img.type, img, views);
    clik_status st = CLIK_OK;
    if (list && levels > 0)
        CALL(c, st, clik_pyr_gaussian(c->ctx, &a.img, img, levels));
    for (int i = 0; list && i < levels; i++)
        imarg_put(&views[i]);
    if (!list) {
        imarg_put(&a);
        return NULL;
    }
    return done(c, st, list, &a, NULL, NULL);
}

static PyObject *ctx_laplacian_pyramid(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "levels", "dtype", NULL};
    PyObject *src, *dtype = Py_None;
    int levels;
    imarg a, views[MAX_LEVELS];
    clik_image img[MAX_LEVELS];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|O", kwlist, &src, &levels, &dtype) ||
        ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    clik_type t = a.img.type == CLIK_U8 ? CLIK_S16 : CLIK_F32;
    if ((dtype != Py_None && type_of_dtype(dtype, "dtype", &t) < 0) || levels_arg(&a, levels) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *list = pyramid_list(c, &a, levels, 1, t, img, views);
    clik_status st = CLIK_OK;
    if (list)
        CALL(c, st, clik_pyr_laplacian(c->ctx, &a.img, img, levels));
    for (int i = 0; list && i <= levels; i++)
        imarg_put(&views[i]);
    if (!list) {
        imarg_put(&a);
        return NULL;
    }
    return done(c, st, list, &a, NULL, NULL);
}

static PyObject *ctx_collapse(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"bands", "out", "dtype", NULL};
    PyObject *bands, *out = Py_None, *dtype = Py_None;
    imarg views[MAX_LEVELS], o;
    clik_image img[MAX_LEVELS];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO", kwlist, &bands, &out, &dtype) ||
        ctx_open(c) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(bands, "argument 'bands': a list of arrays");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > MAX_LEVELS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "argument 'bands': 1..%d bands", MAX_LEVELS);
        return NULL;
    }
    Py_ssize_t got = 0;
    PyObject *r = NULL;
    clik_status st = CLIK_OK;
    for (; got < n; got++) {
        if (imarg_get(c, PySequence_Fast_GET_ITEM(seq, got), "bands", 0, &views[got]) < 0)
            goto out;
        img[got] = views[got].img;
    }
    clik_type t = views[0].img.type == CLIK_S16 ? CLIK_U8 : CLIK_F32;
    if (dtype != Py_None && type_of_dtype(dtype, "dtype", &t) < 0)
        goto out;
    r = out_get(c, out, &views[0], views[0].img.width, views[0].img.height, views[0].img.channels,
                t, views[0].ndim3, &o);
    if (!r)
        goto out;
    CALL(c, st, clik_pyr_collapse(c->ctx, img, (int)n - 1, &o.img));
    imarg_put(&o);
out:
    for (Py_ssize_t i = 0; i < got; i++)
        imarg_put(&views[i]);
    Py_DECREF(seq);
    if (!r)
        return NULL;
    return done(c, st, r, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------------ */
/* Integral family                                                           */

static PyObject *ctx_integral(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "dtype", "sqsum", NULL};
    PyObject *src, *dtype = Py_None, *sq = Py_None;
    imarg a, s, q;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$O", kwlist, &src, &dtype, &sq) ||
        ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    int w = a.img.width, h = a.img.height, ch = a.img.channels;
    clik_type t, qt = CLIK_F64;
    if (a.img.type == CLIK_U8)
        t = 255.0 * w * h > 4294967295.0 ? CLIK_U64 : CLIK_U32;
    else
        t = CLIK_F64;
    int with_sq = sq != Py_None && sq != Py_False;
    if ((dtype != Py_None && type_of_dtype(dtype, "dtype", &t) < 0) ||
        (with_sq && sq != Py_True && type_of_dtype(sq, "sqsum", &qt) < 0)) {
        imarg_put(&a);
        return NULL;
    }
    if (w == INT_MAX || h == INT_MAX) {
        imarg_put(&a);
        return raise_status(CLIK_ERR_OVERFLOW, "src: too large");
    }
    PyObject *r = out_new(c, &a, w + 1, h + 1, ch, t, a.ndim3, &s);
    PyObject *r2 = NULL;
    if (r && with_sq)
        r2 = out_new(c, &a, w + 1, h + 1, ch, qt, a.ndim3, &q);
    if (!r || (with_sq && !r2)) {
        if (r)
            imarg_put(&s);
        Py_XDECREF(r);
        imarg_put(&a);
        return NULL;
    }
    clik_status st;
    CALL(c, st, clik_integral(c->ctx, &a.img, &s.img, with_sq ? &q.img : NULL));
    if (with_sq) {
        imarg_put(&q);
        if (st != CLIK_OK)
            Py_DECREF(r2);
        else
            r = Py_BuildValue("(NN)", r, r2);
    }
    return done(c, st, r, &a, &s, NULL);
}

/* ------------------------------------------------------------------------ */
/* Resize and filter families                                                */

static int interp_of(const char *s, clik_interp *m)
{
    for (int i = CLIK_INTERP_NEAREST; i <= CLIK_INTERP_BICUBIC_AA; i++)
        if (!strcmp(s, clik_interp_name((clik_interp)i))) {
            *m = (clik_interp)i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "argument 'method': 'nearest', 'bilinear', 'bicubic' or 'bicubic-aa', not '%s'",
                 s);
    return -1;
}

typedef struct {
    clik_interp method;
    double sx, sy;
} resize_arg;

static clik_status do_resize(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    return clik_resize(x, a, b, ((const resize_arg *)p)->method);
}

/* The output size of a resize by scales, as OpenCV rounds it. */
static int resize_scaled(const clik_image *src, const void *p, int *w, int *h)
{
    const resize_arg *r = p;
    clik_status st = clik_resize_size(src->width, src->height, r->sx, r->sy, w, h);
    return st == CLIK_OK ? 0 : (raise_status(st, "argument 'scale'"), -1);
}

/* resize(src, size=(w, h)), resize(src, scale=s or (sx, sy)), or
 * resize(src, out=...) at out's size. */
static PyObject *ctx_resize(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "size", "scale", "method", "out", NULL};
    PyObject *src, *size = Py_None, *scale = Py_None, *out = Py_None;
    const char *method = "bilinear";
    resize_arg r;
    unary_op u = {.w = 1, .h = 1, .fn = do_resize, .arg = &r};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OsO", kwlist, &src, &size, &scale, &method,
                                     &out) ||
        interp_of(method, &r.method) < 0)
        return NULL;
    if (size != Py_None && scale != Py_None) {
        PyErr_SetString(PyExc_TypeError, "resize: give size or scale, not both");
        return NULL;
    }
    if (size != Py_None) {
        if (!PyArg_ParseTuple(size, "ii;argument 'size': (width, height)", &u.w, &u.h))
            return NULL;
        if (u.w <= 0 || u.h <= 0) {
            PyErr_SetString(PyExc_ValueError, "argument 'size': sides must be positive");
            return NULL;
        }
        u.check_out = 1;
    } else if (scale != Py_None) {
        if (PyTuple_Check(scale)) {
            if (!PyArg_ParseTuple(scale, "dd;argument 'scale': s or (sx, sy)", &r.sx, &r.sy))
                return NULL;
        } else {
            r.sx = r.sy = PyFloat_AsDouble(scale);
            if (r.sx == -1.0 && PyErr_Occurred())
                return NULL;
        }
        u.size = resize_scaled;
        u.check_out = 1;
    } else if (out == Py_None) {
        PyErr_SetString(PyExc_TypeError, "resize: give size, scale or out");
        return NULL;
    }
    return unary(c, src, "src", out, &u);
}

typedef struct {
    int ksize;
    double sigma;
} blur_arg;

static clik_status do_blur(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const blur_arg *k = p;
    return clik_gaussian_blur(x, a, b, k->ksize, k->sigma);
}

static PyObject *ctx_gaussian_blur(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "ksize", "sigma", "out", NULL};
    PyObject *src, *out = Py_None;
    blur_arg k = {0, 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|dO", kwlist, &src, &k.ksize, &k.sigma, &out))
        return NULL;
    return unary(c, src, "src", out, &(unary_op){.num = 1, .den = 1, .fn = do_blur, .arg = &k});
}

static clik_status do_gray(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    (void)p;
    return clik_gray(x, a, b);
}

static PyObject *ctx_gray(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "out", NULL};
    PyObject *src, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &src, &out))
        return NULL;
    return unary(c, src, "src", out,
                 &(unary_op){.num = 1, .den = 1, .channels = 1, .flat = 1, .fn = do_gray});
}

/* ------------------------------------------------------------------------ */
/* SSIM and fusion families                                                  */

static PyObject *ctx_ssim(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "full", NULL};
    PyObject *ao, *bo;
    int full = 0;
    imarg a, b, m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$p", kwlist, &ao, &bo, &full) ||
        ctx_open(c) < 0 || imarg_get(c, ao, "a", 0, &a) < 0)
        return NULL;
    if (imarg_get(c, bo, "b", 0, &b) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *r = NULL;
    if (full) {
        int mw = a.img.width - (CLIK_SSIM_WINDOW - 1), mh = a.img.height - (CLIK_SSIM_WINDOW - 1);
        if (mw < 1 || mh < 1) {
            imarg_put(&a);
            imarg_put(&b);
            return raise_status(CLIK_ERR_INVALID_SIZE, "ssim: images smaller than the window");
        }
        r = out_new(c, &a, mw, mh, 1, CLIK_F32, 0, &m);
        if (!r) {
            imarg_put(&a);
            imarg_put(&b);
            return NULL;
        }
    }
    double mean = 0;
    clik_status st;
    CALL(c, st, clik_ssim(c->ctx, &a.img, &b.img, full ? &m.img : NULL, &mean));
    if (full)
        imarg_put(&m);
    if (st == CLIK_OK)
        r = full ? Py_BuildValue("(dN)", mean, r) : PyFloat_FromDouble(mean);
    return done(c, st, r, &a, &b, NULL);
}

static PyObject *ctx_ssim_tiles(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "tile", NULL};
    PyObject *ao, *bo;
    int tile = 8;
    imarg a, b, m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|i", kwlist, &ao, &bo, &tile) || ctx_open(c) < 0)
        return NULL;
    if (tile < 2 || tile > 16) {
        PyErr_SetString(PyExc_ValueError, "argument 'tile': 2..16");
        return NULL;
    }
    if (imarg_get(c, ao, "a", 0, &a) < 0)
        return NULL;
    if (imarg_get(c, bo, "b", 0, &b) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *r = out_new(c, &a, (a.img.width + tile - 1) / tile, (a.img.height + tile - 1) / tile,
                          1, CLIK_F32, 0, &m);
    if (!r) {
        imarg_put(&a);
        imarg_put(&b);
        return NULL;
    }
    clik_status st;
    CALL(c, st, clik_ssim_tiles(c->ctx, &a.img, &b.img, tile, &m.img));
    return done(c, st, r, &a, &b, &m);
}

static int scale_ok(int scale, int lo, int hi, int w, int h)
{
    if (scale < lo || scale > hi) {
        PyErr_Format(PyExc_ValueError, "argument 'scale': %d..%d", lo, hi);
        return -1;
    }
    if (w > INT_MAX / scale || h > INT_MAX / scale) {
        raise_status(CLIK_ERR_OVERFLOW, "src: too large for the scale");
        return -1;
    }
    return 0;
}

static PyObject *ctx_upscale_fusion(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src",       "scale",        "tile", "blur_ksize",
                             "threshold", "artifact_map", "out",  NULL};
    PyObject *src, *out = Py_None;
    int scale = 2, want_map = 0;
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    imarg a, o, m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|i$iifpO", kwlist, &src, &scale, &opt.tile,
                                     &opt.blur_ksize, &opt.threshold, &want_map, &out) ||
        ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    if (scale_ok(scale, 2, 8, a.img.width, a.img.height) < 0) {
        imarg_put(&a);
        return NULL;
    }
    int w = a.img.width * scale, h = a.img.height * scale;
    PyObject *r = out_get(c, out, &a, w, h, a.img.channels, a.img.type, a.ndim3, &o), *rm = NULL;
    if (r && want_map)
        rm = out_new(c, &a, w, h, 1, CLIK_U8, 0, &m);
    if (!r || (want_map && !rm)) {
        if (r)
            imarg_put(&o);
        Py_XDECREF(r);
        imarg_put(&a);
        return NULL;
    }
    clik_status st;
    CALL(c, st, clik_upscale_fusion(c->ctx, &a.img, &o.img, &opt, want_map ? &m.img : NULL));
    if (want_map) {
        imarg_put(&m);
        if (st != CLIK_OK)
            Py_DECREF(rm);
        else
            r = Py_BuildValue("(NN)", r, rm);
    }
    return done(c, st, r, &a, &o, NULL);
}

/* The fusion stream: frames in flight keep their views until waited. */
typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_fusion_stream *s;
    PyObject *pending; /* list of (ticket, capsule of 3 views) */
    int depth;
} StreamObject;

static PyTypeObject StreamType;

typedef struct {
    imarg v[3];
} frame_views;

static void frame_views_free(PyObject *cap)
{
    frame_views *f = PyCapsule_GetPointer(cap, "clik.frame");
    if (f) {
        for (int i = 0; i < 3; i++)
            imarg_put(&f->v[i]);
        PyMem_Free(f);
    }
}

static void stream_close(StreamObject *s)
{
    if (s->s && ctx_forked(s->owner)) {
        s->s = NULL; /* left to the process's exit */
    } else if (s->s) {
        /* Waits for the frames in flight: without the GIL. */
        CtxObject *c = s->owner;
        if (c->holder == PyThread_get_thread_ident()) {
            clik_fusion_stream_destroy(s->s);
        } else {
            Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(c->lock, WAIT_LOCK);
            clik_fusion_stream_destroy(s->s);
            PyThread_release_lock(c->lock);
            Py_END_ALLOW_THREADS
        }
        s->s = NULL;
    }
    Py_CLEAR(s->pending); /* the frames are complete: views released */
    if (s->owner) {
        ctx_release(s->owner);
        Py_CLEAR(s->owner);
    }
}

static void stream_dealloc(StreamObject *s)
{
    stream_close(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"context", "width",      "height",    "scale", "depth",
                             "tile",    "blur_ksize", "threshold", NULL};
    CtxObject *c;
    int w, h, scale, depth = 0;
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!iii|iiif", kwlist, &CtxType, &c, &w, &h, &scale,
                                     &depth, &opt.tile, &opt.blur_ksize, &opt.threshold) ||
        ctx_open(c) < 0)
        return NULL;
    StreamObject *s = (StreamObject *)type->tp_alloc(type, 0);
    if (!s)
        return NULL;
    s->pending = PyList_New(0);
    if (!s->pending) {
        Py_DECREF(s);
        return NULL;
    }
    clik_status st;
    CALL(c, st, clik_fusion_stream_create(c->ctx, w, h, scale, &opt, depth, &s->s));
    if (st != CLIK_OK) {
        Py_DECREF(s);
        return ctx_fail(c, st);
    }
    Py_INCREF(c);
    s->owner = c;
    c->deps++;
    s->depth = depth > 0 ? depth : 3;
    return (PyObject *)s;
}

static PyObject *stream_submit(StreamObject *s, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "out", "artifact_map", NULL};
    PyObject *src, *out, *map = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O", kwlist, &src, &out, &map))
        return NULL;
    if (!s->s) {
        PyErr_SetString(PyExc_ValueError, "the fusion stream is closed");
        return NULL;
    }
    CtxObject *c = s->owner;
    frame_views *f = PyMem_Calloc(1, sizeof(*f));
    if (!f)
        return PyErr_NoMemory();
    PyObject *cap = PyCapsule_New(f, "clik.frame", frame_views_free);
    if (!cap) {
        PyMem_Free(f);
        return NULL;
    }
    if (imarg_get(c, src, "src", 0, &f->v[0]) < 0 || imarg_get(c, out, "out", 1, &f->v[1]) < 0 ||
        (map != Py_None && imarg_get(c, map, "artifact_map", 1, &f->v[2]) < 0)) {
        Py_DECREF(cap);
        return NULL;
    }
    uint64_t ticket = 0;
    clik_status st;
    CALL(c, st,
         clik_fusion_stream_submit(s->s, &f->v[0].img, &f->v[1].img,
                                   map != Py_None ? &f->v[2].img : NULL, &ticket));
    if (st != CLIK_OK) {
        /* A refused frame was not queued; wait for the others before its
         * views go. */
        Py_DECREF(cap);
        return ctx_fail(c, st);
    }
    PyObject *item = Py_BuildValue("(KN)", (unsigned long long)ticket, cap);
    if (!item || PyList_Append(s->pending, item) < 0) {
        Py_XDECREF(item);
        return NULL;
    }
    Py_DECREF(item);
    return PyLong_FromUnsignedLongLong(ticket);
}

static PyObject *stream_wait(StreamObject *s, PyObject *args)
{
    unsigned long long ticket = UINT64_MAX;
    PyObject *ticket_arg = NULL;
    if (!PyArg_ParseTuple(args, "|O", &ticket_arg) ||
        (ticket_arg && u64_value(ticket_arg, "ticket", &ticket) < 0))
        return NULL;
    if (!s->s) {
        PyErr_SetString(PyExc_ValueError, "the fusion stream is closed");
        return NULL;
    }
    CtxObject *c = s->owner;
    clik_status st;
    CALL(c, st, clik_fusion_stream_wait(s->s, (uint64_t)ticket));
    /* Frames up to ticket are done (or failed): their views go. */
    Py_ssize_t n = PyList_GET_SIZE(s->pending), keep = 0;
    for (; keep < n; keep++) {
        PyObject *t = PyTuple_GET_ITEM(PyList_GET_ITEM(s->pending, keep), 0);
        if (PyLong_AsUnsignedLongLong(t) > ticket)
            break;
    }
    if (PyList_SetSlice(s->pending, 0, keep, NULL) < 0)
        return NULL;
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    Py_RETURN_NONE;
}

static PyObject *stream_close_m(StreamObject *s, PyObject *unused)
{
    (void)unused;
    if (s->owner && s->s && in_callback(s->owner)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "FusionStream.close() from a log or progress callback of a call in "
                        "progress on its context: close it after the call");
        return NULL;
    }
    stream_close(s);
    Py_RETURN_NONE;
}

static PyObject *stream_get_depth(StreamObject *s, void *u)
{
    (void)u;
    return PyLong_FromLong(s->depth);
}

/* ------------------------------------------------------------------------ */
/* Optical flow                                                              */

static int storage_of(const char *s, clik_flow_storage *v)
{
    if (!strcmp(s, "auto"))
        *v = CLIK_FLOW_STORAGE_AUTO;
    else if (!strcmp(s, "f32"))
        *v = CLIK_FLOW_STORAGE_F32;
    else if (!strcmp(s, "f16"))
        *v = CLIK_FLOW_STORAGE_F16;
    else {
        PyErr_SetString(PyExc_ValueError, "argument 'storage': 'auto', 'f32' or 'f16'");
        return -1;
    }
    return 0;
}

/* The flow's progress: the signals, and the caller's progress(done, total,
 * iteration). */
static int flow_progress(void *user, int done_warps, int total, int iteration)
{
    return watch_step(user, "(iii)", done_warps, total, iteration);
}

static PyObject *ctx_flow_tvl1(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"i0",      "i1",   "initial",  "tau",     "lambda_",    "theta",
                             "scales",  "zoom", "warps",    "epsilon", "iterations", "sigma",
                             "storage", "out",  "progress", NULL};
    PyObject *i0, *i1, *initial = Py_None, *out = Py_None, *progress = Py_None;
    const char *storage = "auto";
    clik_flow_options opt;
    clik_flow_options_init(&opt);
    imarg a, b, o;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OdddidididsOO", kwlist, &i0, &i1, &initial,
                                     &opt.tau, &opt.lambda, &opt.theta, &opt.scales, &opt.zoom,
                                     &opt.warps, &opt.epsilon, &opt.iterations, &opt.sigma,
                                     &storage, &out, &progress) ||
        ctx_open(c) < 0 || storage_of(storage, &opt.storage) < 0)
        return NULL;
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError,
                        "argument 'progress': a callable (done, total, iteration)");
        return NULL;
    }
    if (initial != Py_None && out != Py_None) {
        PyErr_SetString(PyExc_TypeError, "flow_tvl1: give initial or out, not both");
        return NULL;
    }
    if (imarg_get(c, i0, "i0", 0, &a) < 0)
        return NULL;
    if (imarg_get(c, i1, "i1", 0, &b) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *r = out_get(c, out, &a, a.img.width, a.img.height, 2, CLIK_F32, 1, &o);
    if (!r) {
        imarg_put(&a);
        imarg_put(&b);
        return NULL;
    }
    if (initial != Py_None) {
        /* The initial flow is copied into the new output, which is then
         * read and written in place. */
        imarg ini;
        if (imarg_get(c, initial, "initial", 0, &ini) < 0) {
            Py_DECREF(r);
            imarg_put(&a);
            imarg_put(&b);
            imarg_put(&o);
            return NULL;
        }
        if (ini.device || o.device || ini.img.width != o.img.width ||
            ini.img.height != o.img.height || ini.img.channels != 2 || ini.img.type != CLIK_F32) {
            imarg_put(&ini);
            Py_DECREF(r);
            imarg_put(&a);
            imarg_put(&b);
            imarg_put(&o);
            PyErr_SetString(PyExc_ValueError,
                            "argument 'initial': a float32 (H, W, 2) array of i0's size");
            return NULL;
        }
        size_t row = (size_t)o.img.width * 2 * sizeof(float);
        for (int y = 0; y < o.img.height; y++)
            memcpy((char *)o.img.data + y * o.img.stride,
                   (const char *)ini.img.data + y * ini.img.stride, row);
        imarg_put(&ini);
        opt.initial_flow = 1;
    }
    /* Between its steps the flow checks the signals (Ctrl-C stops it). */
    watch w;
    watch_init(&w, progress != Py_None ? progress : NULL);
    opt.progress = flow_progress;
    opt.progress_user = &w;
    clik_status st;
    CALL(c, st, clik_flow_tvl1(c->ctx, &a.img, &b.img, &o.img, &opt));
    if (w.exc_type) {
        done(c, CLIK_OK, NULL, &a, &b, &o);
        Py_DECREF(r);
        watch_raise(&w);
        return NULL;
    }
    return done(c, st, r, &a, &b, &o);
}

/* ------------------------------------------------------------------------ */
/* LAPAR                                                                     */

/* A dictionary argument: None (the default) or a float32 (L, 25) array,
 * and a selection tuple (atoms, index list, gamma list, mix or None). */
typedef struct {
    clik_lapar_dict dict;
    clik_lapar_selection sel;
    Py_buffer dv, mv;
    int has_dv, has_mv;
    PyObject *tuple; /* a selection object's fields */
} dictarg;

static void dictarg_put(dictarg *d)
{
    if (d->has_dv)
        PyBuffer_Release(&d->dv);
    if (d->has_mv)
        PyBuffer_Release(&d->mv);
    d->has_dv = d->has_mv = 0;
    Py_CLEAR(d->tuple);
}

static int f32_buffer(PyObject *o, const char *name, Py_buffer *v)
{
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "argument '%s': a C-contiguous float32 array", name);
        return -1;
    }
    if (type_of_format(v->format, v->itemsize) != CLIK_F32) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_TypeError, "argument '%s': a C-contiguous float32 array", name);
        return -1;
    }
    return 0;
}

static int dictarg_get(PyObject *dict, PyObject *sel, dictarg *d)
{
    memset(d, 0, sizeof(*d));
    if (dict == Py_None) {
        d->dict.atoms = CLIK_LAPAR_ATOMS;
        d->dict.data = default_dict;
    } else {
        if (f32_buffer(dict, "dictionary", &d->dv) < 0)
            return -1;
        d->has_dv = 1;
        Py_ssize_t n = d->dv.len / (Py_ssize_t)sizeof(float);
        if (n % CLIK_LAPAR_TAPS || n == 0 || n / CLIK_LAPAR_TAPS > CLIK_LAPAR_MAX_ATOMS) {
            dictarg_put(d);
            PyErr_SetString(PyExc_ValueError, "argument 'dictionary': shape (L, 25), L 1..128");
            return -1;
        }
        d->dict.atoms = (int)(n / CLIK_LAPAR_TAPS);
        d->dict.data = d->dv.buf;
    }
    if (sel == Py_None)
        return 0;
    PyObject *index, *gamma, *mix;
    if (!PyTuple_Check(sel)) {
        /* A clik.LaparSelection: its attributes. */
        d->tuple = PyObject_CallMethod(sel, "_as_tuple", NULL);
        if (!d->tuple) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "argument 'selection': a clik.LaparSelection");
            dictarg_put(d);
            return -1;
        }
        sel = d->tuple;
    }
    int ok = PyArg_ParseTuple(sel, "iOOO;argument 'selection': a clik.LaparSelection",
                              &d->sel.atoms, &index, &gamma, &mix);
    if (!ok) {
        dictarg_put(d);
        return -1;
    }
    PyObject *is = PySequence_Fast(index, "selection.index: a list of ints");
    PyObject *gs = is ? PySequence_Fast(gamma, "selection.gamma: a list of floats") : NULL;
    if (!gs) {
        Py_XDECREF(is);
        dictarg_put(d);
        return -1;
    }
    Py_ssize_t k = PySequence_Fast_GET_SIZE(is);
    int bad = k < 1 || k > CLIK_LAPAR_MAX_ATOMS || PySequence_Fast_GET_SIZE(gs) != k;
    for (Py_ssize_t i = 0; !bad && i < k; i++) {
        bad = int_value(PySequence_Fast_GET_ITEM(is, i), "selection.index", &d->sel.index[i]) < 0;
        if (!bad)
            d->sel.gamma[i] = (float)PyFloat_AsDouble(PySequence_Fast_GET_ITEM(gs, i));
        bad = bad || PyErr_Occurred() != NULL;
    }
    Py_DECREF(is);
    Py_DECREF(gs);
    if (bad) {
        dictarg_put(d);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError,
                            "argument 'selection': 1..128 indices, as many gammas");
        return -1;
    }
    d->sel.kept = (int)k;
    if (mix != Py_None) {
        if (f32_buffer(mix, "selection.mix", &d->mv) < 0) {
            dictarg_put(d);
            return -1;
        }
        d->has_mv = 1;
        if (d->mv.len != (Py_ssize_t)sizeof(float) * k * d->sel.atoms) {
            dictarg_put(d);
            PyErr_SetString(PyExc_ValueError, "argument 'selection': mix of shape (kept, atoms)");
            return -1;
        }
        d->sel.mix = d->mv.buf;
    }
    d->dict.selection = &d->sel;
    return 0;
}

static clik_status do_upsample(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    return clik_lapar_upsample(x, a, *(const int *)p, b);
}

static PyObject *ctx_lapar_upsample(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"lr", "scale", "out", NULL};
    PyObject *src, *out = Py_None;
    int scale;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|O", kwlist, &src, &scale, &out) ||
        scale_range(scale, 2, 4) < 0)
        return NULL;
    return unary(
        c, src, "lr", out,
        &(unary_op){.num = scale, .den = 1, .type = CLIK_F32, .fn = do_upsample, .arg = &scale});
}

/* The arguments lr, phi, scale, dictionary, selection (and out) of the
 * filter, tune and tuning calls. */
typedef struct {
    imarg lr, phi, out;
    dictarg d;
    int scale;
    PyObject *result;
} filter_args;

static void filter_args_put(filter_args *f)
{
    imarg_put(&f->lr);
    imarg_put(&f->phi);
    imarg_put(&f->out);
    dictarg_put(&f->d);
}

static int filter_args_get(CtxObject *c, PyObject *lr, PyObject *phi, PyObject *dict, PyObject *sel,
                           PyObject *out, int scale, filter_args *f)
{
    memset(f, 0, sizeof(*f));
    f->scale = scale;
    if (ctx_open(c) < 0 || imarg_get(c, lr, "lr", 0, &f->lr) < 0)
        return -1;
    if (imarg_get(c, phi, "phi", 0, &f->phi) < 0 || dictarg_get(dict, sel, &f->d) < 0 ||
        scale_ok(f->scale, 2, 4, f->lr.img.width, f->lr.img.height) < 0) {
        filter_args_put(f);
        return -1;
    }
    {
        f->result = out_get(c, out, &f->lr, f->lr.img.width * f->scale, f->lr.img.height * f->scale,
                            f->lr.img.channels, f->lr.img.type, f->lr.ndim3, &f->out);
        if (!f->result) {
            filter_args_put(f);
            return -1;
        }
    }
    return 0;
}

static PyObject *ctx_lapar_filter(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"lr", "phi", "scale", "dictionary", "selection", "out", NULL};
    PyObject *lr, *phi, *dict = Py_None, *sel = Py_None, *out = Py_None;
    filter_args f;
    int scale;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|$OOO", kwlist, &lr, &phi, &scale, &dict, &sel,
                                     &out))
        return NULL;
    if (filter_args_get(c, lr, phi, dict, sel, out, scale, &f) < 0)
        return NULL;
    clik_status st;
    CALL(c, st, clik_lapar_filter(c->ctx, &f.lr.img, &f.phi.img, &f.d.dict, scale, &f.out.img));
    filter_args_put(&f);
    return done(c, st, f.result, NULL, NULL, NULL);
}

static const char *const variant_names[] = {"auto", "upsampled", "local", "direct"};

static PyObject *tuning_dict(const clik_lapar_tuning *t)
{
    return Py_BuildValue("{s:s,s:i,s:i,s:d,s:O}", "variant",
                         (unsigned)t->variant < 4 ? variant_names[t->variant] : "auto", "wg_x",
                         t->wg_x, "wg_y", t->wg_y, "ms", t->ms, "stored",
                         t->stored ? Py_True : Py_False);
}

/* lapar_tune (search = 1: times the variants, stores and returns the best,
 * writes out) and lapar_tuning_get (what the filter would run). */
static PyObject *lapar_tuning(CtxObject *c, PyObject *args, PyObject *kw, int search)
{
    static char *kwlist[] = {"lr", "phi", "scale", "dictionary", "selection", "out", NULL};
    PyObject *lr, *phi, *dict = Py_None, *sel = Py_None, *out = Py_None;
    int scale;
    filter_args f;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|$OOO", kwlist, &lr, &phi, &scale, &dict, &sel,
                                     &out) ||
        filter_args_get(c, lr, phi, dict, sel, out, scale, &f) < 0)
        return NULL;
    clik_lapar_tuning t;
    memset(&t, 0, sizeof(t));
    clik_status st;
    if (search)
        CALL(c, st,
             clik_lapar_tune(c->ctx, &f.lr.img, &f.phi.img, &f.d.dict, scale, &f.out.img, &t));
    else
        CALL(
            c, st,
            clik_lapar_tuning_get(c->ctx, &f.lr.img, &f.phi.img, &f.d.dict, scale, &f.out.img, &t));
    filter_args_put(&f);
    Py_DECREF(f.result);
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return tuning_dict(&t);
}

static PyObject *ctx_lapar_tune(CtxObject *c, PyObject *args, PyObject *kw)
{
    return lapar_tuning(c, args, kw, 1);
}

static PyObject *ctx_lapar_tuning_get(CtxObject *c, PyObject *args, PyObject *kw)
{
    return lapar_tuning(c, args, kw, 0);
}

static PyObject *ctx_lapar_tuning_set(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"lr", "phi", "scale", "tuning", "dictionary", "selection", NULL};
    PyObject *lr, *phi, *tuning, *dict = Py_None, *sel = Py_None;
    int scale;
    filter_args f;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOiO!|$OO", kwlist, &lr, &phi, &scale, &PyDict_Type,
                                     &tuning, &dict, &sel))
        return NULL;
    clik_lapar_tuning t;
    memset(&t, 0, sizeof(t));
    PyObject *v = PyDict_GetItemString(tuning, "variant");
    PyObject *x = PyDict_GetItemString(tuning, "wg_x"), *y = PyDict_GetItemString(tuning, "wg_y");
    const char *vs = v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    int found = 0;
    for (int i = 0; vs && i < 4; i++)
        if (!strcmp(vs, variant_names[i])) {
            t.variant = (clik_lapar_variant)i;
            found = 1;
        }
    if (!found || !x || !y) {
        PyErr_SetString(PyExc_ValueError,
                        "argument 'tuning': a dict with variant ('upsampled', 'local' or "
                        "'direct'), wg_x and wg_y");
        return NULL;
    }
    if (int_value(x, "tuning['wg_x']", &t.wg_x) < 0 || int_value(y, "tuning['wg_y']", &t.wg_y) < 0)
        return NULL;
    if (filter_args_get(c, lr, phi, dict, sel, Py_None, scale, &f) < 0)
        return NULL;
    clik_status st;
    CALL(c, st,
         clik_lapar_tuning_set(c->ctx, &f.lr.img, &f.phi.img, &f.d.dict, scale, &f.out.img, &t));
    filter_args_put(&f);
    Py_DECREF(f.result);
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    Py_RETURN_NONE;
}

static PyObject *ctx_lapar_compress(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"calib",         "alpha", "dictionary", "samples",
                             "refit_samples", "seed",  "mix",        NULL};
    PyObject *calib, *dict = Py_None, *seed_arg = NULL;
    double alpha;
    int want_mix = 0;
    unsigned long long seed;
    clik_lapar_compress_options opt;
    clik_lapar_compress_options_init(&opt);
    seed = opt.seed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Od|$OiiOp", kwlist, &calib, &alpha, &dict,
                                     &opt.samples, &opt.refit_samples, &seed_arg, &want_mix) ||
        (seed_arg && u64_value(seed_arg, "seed", &seed) < 0) || ctx_open(c) < 0)
        return NULL;
    opt.seed = seed;
    PyObject *seq = PySequence_Fast(calib, "argument 'calib': a list of (phi, upsampled, truth)");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 64) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "argument 'calib': 1..64 images");
        return NULL;
    }
    imarg *v = PyMem_Calloc((size_t)n * 3, sizeof(imarg));
    clik_lapar_calib *cal = PyMem_Calloc((size_t)n, sizeof(*cal));
    dictarg d;
    int got = 0, have_dict = 0;
    PyObject *r = NULL, *mix = NULL;
    if (!v || !cal) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p, *u, *t;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i),
                              "OOO;argument 'calib': (phi, upsampled, truth) tuples", &p, &u, &t))
            goto out;
        if (imarg_get(c, p, "phi", 0, &v[got]) < 0)
            goto out;
        got++;
        if (imarg_get(c, u, "upsampled", 0, &v[got]) < 0)
            goto out;
        got++;
        if (imarg_get(c, t, "truth", 0, &v[got]) < 0)
            goto out;
        got++;
        cal[i].phi = &v[3 * i].img;
        cal[i].upsampled = &v[3 * i + 1].img;
        cal[i].truth = &v[3 * i + 2].img;
    }
    if (dictarg_get(dict, Py_None, &d) < 0)
        goto out;
    have_dict = 1;
    clik_lapar_selection sel;
    memset(&sel, 0, sizeof(sel));
    float *mixbuf = NULL;
    if (want_mix) {
        mixbuf = PyMem_Calloc((size_t)d.dict.atoms * d.dict.atoms, sizeof(float));
        if (!mixbuf) {
            PyErr_NoMemory();
            goto out;
        }
    }
    clik_status st;
    CALL(c, st, clik_lapar_compress(c->ctx, cal, (int)n, &d.dict, alpha, &opt, &sel, mixbuf));
    if (st != CLIK_OK) {
        PyMem_Free(mixbuf);
        ctx_fail(c, st);
        goto out;
    }
    if (mixbuf) {
        mix = f32_array(mixbuf, sel.kept, sel.atoms);
        PyMem_Free(mixbuf);
        if (!mix)
            goto out;
    }
    PyObject *index = PyList_New(sel.kept), *gamma = PyList_New(sel.kept);
    for (int i = 0; index && gamma && i < sel.kept; i++) {
        PyList_SET_ITEM(index, i, PyLong_FromLong(sel.index[i]));
        PyList_SET_ITEM(gamma, i, PyFloat_FromDouble(sel.gamma[i]));
    }
    if (index && gamma)
        r = Py_BuildValue("(iNNO)", sel.atoms, index, gamma, mix ? mix : Py_None);
    else {
        Py_XDECREF(index);
        Py_XDECREF(gamma);
    }
out:
    Py_XDECREF(mix);
    if (have_dict)
        dictarg_put(&d);
    for (int i = 0; i < got; i++)
        imarg_put(&v[i]);
    PyMem_Free(v);
    PyMem_Free(cal);
    Py_DECREF(seq);
    return r;
}

/* LAPAR models */

typedef struct {
    PyObject ob_base;
    clik_lapar_model *m;
    int borrowed; /* the library's default model */
} ModelObject;

static PyTypeObject ModelType;

static void model_dealloc(ModelObject *m)
{
    if (!m->borrowed)
        clik_lapar_model_free(m->m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *model_wrap(clik_lapar_model *p, int borrowed)
{
    ModelObject *m = PyObject_New(ModelObject, &ModelType);
    if (!m) {
        if (!borrowed)
            clik_lapar_model_free(p);
        return NULL;
    }
    m->m = p;
    m->borrowed = borrowed;
    return (PyObject *)m;
}

static PyObject *mod_lapar_model_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return model_wrap((clik_lapar_model *)clik_lapar_model_default(2), 1);
}

static int model_arg(PyObject *o, const char *name, const clik_lapar_model **m)
{
    if (o == Py_None) {
        *m = NULL;
        return 0;
    }
    if (!PyObject_TypeCheck(o, &ModelType)) {
        PyErr_Format(PyExc_TypeError, "argument '%s': a clik.LaparModel or None", name);
        return -1;
    }
    *m = ((ModelObject *)o)->m;
    return 0;
}

static PyObject *ctx_lapar_model_read(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"data", NULL};
    Py_buffer data;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*", kwlist, &data))
        return NULL;
    if (ctx_open(c) < 0) {
        PyBuffer_Release(&data);
        return NULL;
    }
    clik_lapar_model *m = NULL;
    clik_status st;
    CALL(c, st, clik_lapar_model_read(c->ctx, data.buf, (size_t)data.len, &m));
    PyBuffer_Release(&data);
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return model_wrap(m, 0);
}

static PyObject *ctx_lapar_model_load(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, PyUnicode_FSConverter, &path))
        return NULL;
    if (ctx_open(c) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    clik_lapar_model *m = NULL;
    clik_status st;
    CALL(c, st, clik_lapar_model_load(c->ctx, PyBytes_AS_STRING(path), &m));
    Py_DECREF(path);
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return model_wrap(m, 0);
}

static PyObject *ctx_lapar_model_write(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"model", NULL};
    PyObject *mo;
    const clik_lapar_model *m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &mo) || ctx_open(c) < 0 ||
        model_arg(mo, "model", &m) < 0)
        return NULL;
    if (!m)
        m = clik_lapar_model_default(2);
    size_t size = 0;
    clik_status st;
    CALL(c, st, clik_lapar_model_write(c->ctx, m, NULL, 0, &size));
    if (st != CLIK_OK && st != CLIK_ERR_INVALID_SIZE)
        return ctx_fail(c, st);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!b)
        return NULL;
    CALL(c, st, clik_lapar_model_write(c->ctx, m, PyBytes_AS_STRING(b), size, &size));
    if (st != CLIK_OK) {
        Py_DECREF(b);
        return ctx_fail(c, st);
    }
    return b;
}

static PyObject *ctx_lapar_model_combine(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", NULL};
    PyObject *ao, *bo;
    const clik_lapar_model *a, *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO", kwlist, &ao, &bo) || ctx_open(c) < 0 ||
        model_arg(ao, "a", &a) < 0 || model_arg(bo, "b", &b) < 0)
        return NULL;
    clik_lapar_model *m = NULL;
    clik_status st;
    CALL(c, st, clik_lapar_model_combine(c->ctx, a, b, &m));
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return model_wrap(m, 0);
}

static PyObject *float_list(const float *v, int n)
{
    PyObject *l = PyList_New(n < 0 ? 0 : n);
    for (int i = 0; l && i < n; i++)
        PyList_SET_ITEM(l, i, PyFloat_FromDouble(v[i]));
    return l;
}

static PyObject *ctx_lapar_model_describe(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"model", "scale", NULL};
    PyObject *mo;
    int scale;
    const clik_lapar_model *m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi", kwlist, &mo, &scale) || ctx_open(c) < 0 ||
        model_arg(mo, "model", &m) < 0)
        return NULL;
    if (!m)
        m = clik_lapar_model_default(2);
    clik_lapar_model_options o;
    clik_status st;
    CALL(c, st, clik_lapar_model_describe(c->ctx, m, scale, &o));
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:O,s:i,s:i,s:i,s:i,s:d,s:i,s:O,s:N,s:N}", "scale",
                         o.scale, "angles", o.angles, "strengths", o.strengths, "coherences",
                         o.coherences, "phases", o.phases ? Py_True : Py_False, "window", o.window,
                         "atoms", o.atoms, "kernel", o.kernel, "symmetry", o.symmetry, "alpha",
                         o.alpha, "min_samples", o.min_samples, "f16", o.f16 ? Py_True : Py_False,
                         "strength_edges", float_list(o.strength_edges, o.strengths - 1),
                         "coherence_edges", float_list(o.coherence_edges, o.coherences - 1));
}

typedef struct {
    int scale;
    const clik_lapar_model *model;
} model_call;

static clik_status do_classify(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const model_call *m = p;
    return clik_lapar_classify(x, a, m->model, m->scale, b);
}

static clik_status do_upscale_lapar(clik_context *x, const clik_image *a, clik_image *b,
                                    const void *p)
{
    const model_call *m = p;
    return clik_upscale_lapar(x, a, b, m->scale, m->model);
}

static PyObject *ctx_lapar_classify(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"up", "scale", "model", "out", NULL};
    PyObject *up, *mo = Py_None, *out = Py_None;
    model_call m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|OO", kwlist, &up, &m.scale, &mo, &out) ||
        model_arg(mo, "model", &m.model) < 0)
        return NULL;
    return unary(c, up, "up", out,
                 &(unary_op){.num = 1,
                             .den = 1,
                             .channels = 1,
                             .type = CLIK_U16,
                             .flat = 1,
                             .fn = do_classify,
                             .arg = &m});
}

static PyObject *ctx_upscale_lapar(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "scale", "model", "out", NULL};
    PyObject *src, *mo = Py_None, *out = Py_None;
    model_call m = {2, NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOO", kwlist, &src, &m.scale, &mo, &out) ||
        model_arg(mo, "model", &m.model) < 0 || scale_range(m.scale, 2, 4) < 0)
        return NULL;
    return unary(c, src, "src", out,
                 &(unary_op){.num = m.scale, .den = 1, .fn = do_upscale_lapar, .arg = &m});
}

/* LAPAR networks: net is "lapar-a", "lapar-b", "lapar-c" (built in) or the
 * path of a network file. */

typedef struct {
    const clik_lapar_net *net;
} net_call;

static int net_arg(CtxObject *c, PyObject *o, int scale, clik_lapar_net **net, int *owned)
{
    *net = NULL;
    *owned = 0;
    if (!o) {
        clik_status st;
        CALL(c, st, clik_lapar_net_builtin(c->ctx, "lapar-a", scale, net));
        if (st != CLIK_OK) {
            ctx_fail(c, st);
            return -1;
        }
        return 0;
    }
    if (!PyUnicode_Check(o) && !PyBytes_Check(o) && !PyObject_HasAttrString(o, "__fspath__")) {
        PyErr_SetString(PyExc_TypeError,
                        "argument 'net': 'lapar-a', 'lapar-b', 'lapar-c' or a network file path");
        return -1;
    }
    const char *name = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if (PyUnicode_Check(o) && !name)
        return -1;
    clik_status st;
    if (name && (strcmp(name, "lapar-a") == 0 || strcmp(name, "lapar-b") == 0 ||
                 strcmp(name, "lapar-c") == 0)) {
        CALL(c, st, clik_lapar_net_builtin(c->ctx, name, scale, net));
    } else {
        PyObject *bytes;
        if (path_arg(o, "net", &bytes) < 0)
            return -1;
        CALL(c, st, clik_lapar_net_load(c->ctx, PyBytes_AS_STRING(bytes), net));
        Py_DECREF(bytes);
        *owned = st == CLIK_OK;
        if (st == CLIK_OK) {
            clik_lapar_net_info info;
            clik_lapar_net_describe(*net, &info);
            if (info.scale != scale) {
                clik_lapar_net_free(*net);
                *net = NULL;
                PyErr_Format(PyExc_ValueError, "argument 'scale': %d, the network file is for x%d",
                             scale, info.scale);
                return -1;
            }
        }
    }
    if (st != CLIK_OK) {
        ctx_fail(c, st);
        return -1;
    }
    return 0;
}

static clik_status do_lapar_net(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    return clik_lapar_net_run(x, ((const net_call *)p)->net, a, b, NULL);
}

static PyObject *ctx_lapar_net(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "net", "scale", "out", NULL};
    PyObject *src, *no = NULL, *out = Py_None;
    int scale = 2, owned = 0;
    clik_lapar_net *net = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OiO", kwlist, &src, &no, &scale, &out) ||
        ctx_open(c) < 0 || scale_range(scale, 2, 4) < 0)
        return NULL;
    if (net_arg(c, no, scale, &net, &owned) < 0)
        return NULL;
    net_call m = {net};
    PyObject *r = unary(c, src, "src", out,
                        &(unary_op){.num = scale, .den = 1, .fn = do_lapar_net, .arg = &m});
    if (owned)
        clik_lapar_net_free(net);
    return r;
}

static clik_status do_lapar_net_phi(clik_context *x, const clik_image *a, clik_image *b,
                                    const void *p)
{
    return clik_lapar_net_run(x, ((const net_call *)p)->net, a, NULL, b);
}

static int net_phi_size(const clik_image *src, const void *p, int *w, int *h)
{
    clik_lapar_net_info info;
    clik_lapar_net_describe(((const net_call *)p)->net, &info);
    const long long hh = (long long)src->height * info.scale * info.atoms;
    if (hh > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "argument 'src': too large for phi");
        return -1;
    }
    *w = src->width * info.scale;
    *h = (int)hh;
    return 0;
}

static PyObject *ctx_lapar_net_phi(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "net", "scale", "dtype", NULL};
    PyObject *src, *no = NULL, *dtype = Py_None;
    int scale = 2, owned = 0;
    clik_lapar_net *net = NULL;
    clik_type t = CLIK_F32;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OiO", kwlist, &src, &no, &scale, &dtype) ||
        ctx_open(c) < 0 || scale_range(scale, 2, 4) < 0 ||
        (dtype != Py_None && type_of_dtype(dtype, "dtype", &t) < 0))
        return NULL;
    if (t != CLIK_F32 && t != CLIK_F16) {
        PyErr_SetString(PyExc_ValueError, "argument 'dtype': float32 or float16");
        return NULL;
    }
    if (net_arg(c, no, scale, &net, &owned) < 0)
        return NULL;
    net_call m = {net};
    PyObject *r = unary(c, src, "src", Py_None,
                        &(unary_op){.size = net_phi_size,
                                    .channels = 1,
                                    .type = t,
                                    .flat = 1,
                                    .fn = do_lapar_net_phi,
                                    .arg = &m});
    /* (atoms, S*H, S*W): the planes as a network returns them */
    if (r && PyObject_HasAttrString(r, "reshape")) {
        clik_lapar_net_info info;
        clik_lapar_net_describe(net, &info);
        PyObject *shape = PyObject_GetAttrString(r, "shape");
        long w = shape ? PyLong_AsLong(PyTuple_GetItem(shape, 1)) : -1;
        Py_XDECREF(shape);
        PyObject *v = w > 0 ? PyObject_CallMethod(r, "reshape", "(iil)", info.atoms,
                                                  (int)(PyObject_Length(r) / info.atoms), w)
                            : NULL;
        Py_DECREF(r);
        r = v;
    }
    if (owned)
        clik_lapar_net_free(net);
    return r;
}

/* LAPAR trainers */

typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_lapar_trainer *t;
    watch w; /* the progress callable (a reference) and the signals */
} TrainerObject;

static PyTypeObject TrainerType;

/* The trainer's progress: the signals, and the caller's progress(stage,
 * done, total). */
static int progress_cb(void *user, int stage, long done_steps, long total)
{
    TrainerObject *t = user;
    return watch_step(&t->w, "(ill)", stage, done_steps, total);
}

static void trainer_dealloc(TrainerObject *t)
{
    if (t->owner && !ctx_forked(t->owner)) {
        int locked = lock_ctx(t->owner);
        clik_lapar_trainer_free(t->t);
        if (locked)
            PyThread_release_lock(t->owner->lock);
    }
    if (t->owner) {
        ctx_release(t->owner);
        Py_CLEAR(t->owner);
    }
    Py_CLEAR(t->w.progress);
    watch_clear(&t->w);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int float_edges(PyObject *o, const char *name, float *edges)
{
    if (o == Py_None)
        return 0;
    PyObject *s = PySequence_Fast(o, name);
    if (!s)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(s);
    if (n > CLIK_LAPAR_MODEL_MAX_BINS - 1) {
        Py_DECREF(s);
        PyErr_Format(PyExc_ValueError, "argument '%s': at most %d edges", name,
                     CLIK_LAPAR_MODEL_MAX_BINS - 1);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        edges[i] = (float)PyFloat_AsDouble(PySequence_Fast_GET_ITEM(s, i));
    Py_DECREF(s);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *ctx_lapar_trainer(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"scale",          "angles",          "strengths",   "coherences",
                             "phases",         "window",          "atoms",       "kernel",
                             "symmetry",       "alpha",           "min_samples", "f16",
                             "strength_edges", "coherence_edges", "progress",    NULL};
    clik_lapar_model_options o;
    clik_lapar_model_options_init(&o);
    PyObject *se = Py_None, *ce = Py_None, *progress = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$iiiipiiiidipOOO", kwlist, &o.scale, &o.angles,
                                     &o.strengths, &o.coherences, &o.phases, &o.window, &o.atoms,
                                     &o.kernel, &o.symmetry, &o.alpha, &o.min_samples, &o.f16, &se,
                                     &ce, &progress) ||
        ctx_open(c) < 0 || float_edges(se, "strength_edges", o.strength_edges) < 0 ||
        float_edges(ce, "coherence_edges", o.coherence_edges) < 0)
        return NULL;
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError, "argument 'progress': a callable (stage, done, total)");
        return NULL;
    }
    TrainerObject *t = PyObject_New(TrainerObject, &TrainerType);
    if (!t)
        return NULL;
    t->owner = NULL;
    t->t = NULL;
    watch_init(&t->w, progress != Py_None ? progress : NULL);
    Py_XINCREF(t->w.progress);
    /* Also without a progress callable: the signals (Ctrl-C stops it). */
    o.progress = progress_cb;
    o.progress_user = t;
    clik_status st;
    CALL(c, st, clik_lapar_trainer_create(c->ctx, &o, &t->t));
    if (st != CLIK_OK) {
        Py_DECREF(t);
        return ctx_fail(c, st);
    }
    Py_INCREF(c);
    t->owner = c;
    c->deps++;
    return (PyObject *)t;
}

/* After a trainer call: the progress callback's exception, if any. */
static int trainer_done(TrainerObject *t, clik_status st)
{
    if (watch_raise(&t->w) < 0)
        return -1;
    if (st != CLIK_OK) {
        ctx_fail(t->owner, st);
        return -1;
    }
    return 0;
}

static int trainer_open(TrainerObject *t)
{
    if (!t->owner || !t->t) {
        PyErr_SetString(PyExc_ValueError, "the trainer is freed");
        return -1;
    }
    return ctx_open(t->owner);
}

static PyObject *trainer_add(TrainerObject *t, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hr", NULL};
    PyObject *hr;
    imarg a;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &hr) || trainer_open(t) < 0 ||
        imarg_get(t->owner, hr, "hr", 0, &a) < 0)
        return NULL;
    clik_status st;
    CALL(t->owner, st, clik_lapar_trainer_add(t->t, &a.img));
    imarg_put(&a);
    if (trainer_done(t, st) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *trainer_get_samples(TrainerObject *t, void *u)
{
    (void)u;
    if (trainer_open(t) < 0)
        return NULL;
    uint64_t n = 0;
    clik_status st = clik_lapar_trainer_samples(t->t, &n);
    if (st != CLIK_OK)
        return ctx_fail(t->owner, st);
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *trainer_solve(TrainerObject *t, PyObject *unused)
{
    (void)unused;
    if (trainer_open(t) < 0)
        return NULL;
    clik_lapar_model *m = NULL;
    clik_status st;
    CALL(t->owner, st, clik_lapar_trainer_solve(t->t, &m));
    if (trainer_done(t, st) < 0) {
        clik_lapar_model_free(m);
        return NULL;
    }
    return model_wrap(m, 0);
}

/* ------------------------------------------------------------------------ */
/* Module functions                                                          */

static PyObject *mod_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(clik_version());
}

static PyObject *mod_devices(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    clik_device_info *list = NULL;
    int n = 0;
    clik_status st;
    if (opencl_refuse("clik.devices()") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS st = clik_devices_list(&list, &n);
    Py_END_ALLOW_THREADS opencl_mark();
    if (st != CLIK_OK)
        return raise_status(st, "clik_devices_list");
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) {
        PyObject *d = device_dict(&list[i]);
        if (!d) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, d);
    }
    clik_devices_free(list);
    return l;
}

static PyObject *mod_select_device(PyObject *self, PyObject *args)
{
    (void)self;
    const char *spec;
    if (!PyArg_ParseTuple(args, "s", &spec) || opencl_refuse("clik.select_device()") < 0)
        return NULL;
    clik_device_info *list = NULL;
    int n = 0, index = -1;
    clik_status st;
    Py_BEGIN_ALLOW_THREADS st = clik_devices_list(&list, &n);
    if (st == CLIK_OK)
        st = clik_device_select(list, n, spec, &index);
    Py_END_ALLOW_THREADS clik_devices_free(list);
    opencl_mark();
    if (st != CLIK_OK)
        return raise_status(st, spec);
    if (index < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(index);
}

static PyObject *mod_opencl_library(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *p = clik_opencl_library(NULL);
    if (!p)
        Py_RETURN_NONE;
    return PyUnicode_FromString(p);
}

static PyObject *mod_cpu_path_available(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o;
    clik_cpu_path p = CLIK_CPU_AUTO;
    if (!PyArg_ParseTuple(args, "O", &o) || cpu_path_of(o, &p) < 0)
        return NULL;
    return PyBool_FromLong(clik_cpu_path_available(p));
}

static PyObject *mod_lapar_net_available(PyObject *self, PyObject *args)
{
    (void)self;
    const char *name;
    int scale;
    if (!PyArg_ParseTuple(args, "si", &name, &scale))
        return NULL;
    return PyBool_FromLong(clik_lapar_net_builtin_available(name, scale));
}

static PyObject *mod_pyr_level_size(PyObject *self, PyObject *args)
{
    (void)self;
    int w, h, level, lw = 0, lh = 0;
    if (!PyArg_ParseTuple(args, "iii", &w, &h, &level))
        return NULL;
    if (w <= 0 || h <= 0 || level < 0) {
        PyErr_SetString(PyExc_ValueError, "pyr_level_size: positive sides, level >= 0");
        return NULL;
    }
    clik_pyr_level_size(w, h, level, &lw, &lh);
    return Py_BuildValue("(ii)", lw, lh);
}

static PyObject *mod_pyr_max_levels(PyObject *self, PyObject *args)
{
    (void)self;
    int w, h;
    if (!PyArg_ParseTuple(args, "ii", &w, &h))
        return NULL;
    if (w <= 0 || h <= 0) {
        PyErr_SetString(PyExc_ValueError, "pyr_max_levels: positive sides");
        return NULL;
    }
    return PyLong_FromLong(clik_pyr_max_levels(w, h));
}

static PyObject *mod_resize_size(PyObject *self, PyObject *args)
{
    (void)self;
    int w, h, ow = 0, oh = 0;
    double sx, sy;
    if (!PyArg_ParseTuple(args, "iidd", &w, &h, &sx, &sy))
        return NULL;
    clik_status st = clik_resize_size(w, h, sx, sy, &ow, &oh);
    if (st != CLIK_OK)
        return raise_status(st, "resize_size");
    return Py_BuildValue("(ii)", ow, oh);
}

static PyObject *mod_gaussian_weights(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"ksize", "sigma", NULL};
    int ksize;
    double sigma = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|d", kwlist, &ksize, &sigma))
        return NULL;
    float w[CLIK_BLUR_MAX_KSIZE];
    clik_status st = clik_gaussian_weights(ksize, sigma, w);
    if (st != CLIK_OK)
        return raise_status(st, "argument 'ksize': odd, 1..31");
    return f32_array(w, 0, ksize);
}

static PyObject *mod_lapar_dict_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return f32_array(default_dict, CLIK_LAPAR_ATOMS, CLIK_LAPAR_TAPS);
}

/* ------------------------------------------------------------------------ */
/* Types and module                                                          */

#define KW(name, fn, doc)                                                                          \
    {                                                                                              \
        name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS, doc                   \
    }

static PyMethodDef ctx_methods[] = {
    {"close", (PyCFunction)ctx_close, METH_NOARGS,
     "Frees the context (once its images, trainers and streams are gone)."},
    {"stats", (PyCFunction)ctx_stats, METH_NOARGS, "Kernel cache and fallback counters."},
    {"finish", (PyCFunction)ctx_finish, METH_NOARGS, "Waits for queued device work."},
    KW("copy_bandwidth", ctx_copy_bandwidth, "Device copy bandwidth, GB/s."),
    KW("transfer_bandwidth", ctx_transfer_bandwidth,
       "Pinned host <-> device bandwidth (to device, to host), GB/s."),
    KW("empty", ctx_empty, "A NumPy array in memory the device reaches directly."),
    KW("image", ctx_image, "A new device image of shape (H, W[, C]) and dtype."),
    KW("upload", ctx_upload, "A device image holding a copy of an array."),
    KW("download", ctx_download, "A device image's pixels as an array."),
    KW("hist", ctx_hist, "256-bin histogram per channel of a uint8 image: (C, 256) uint32."),
    KW("equalize", ctx_equalize, "Histogram equalization (OpenCV equalizeHist), per channel."),
    KW("lut", ctx_lut, "out = tables[src]: one table (256) or one per channel (C, 256)."),
    KW("pyr_down", ctx_pyr_down, "OpenCV pyrDown."),
    KW("pyr_up", ctx_pyr_up, "OpenCV pyrUp."),
    KW("gaussian_pyramid", ctx_gaussian_pyramid, "Levels 1..levels of a Gaussian pyramid."),
    KW("laplacian_pyramid", ctx_laplacian_pyramid,
       "Laplacian pyramid: levels bands and the coarsest level."),
    KW("collapse", ctx_collapse, "Rebuilds an image from a Laplacian pyramid."),
    KW("integral", ctx_integral, "OpenCV integral (and sums of squares with sqsum=)."),
    KW("resize", ctx_resize, "Resize by size=(W, H) or scale=."),
    KW("gaussian_blur", ctx_gaussian_blur, "Separable Gaussian blur, border reflect-101."),
    KW("gray", ctx_gray, "RGBA -> luma (OpenCV COLOR_RGBA2GRAY)."),
    KW("ssim", ctx_ssim, "Mean SSIM (and the map with full=True)."),
    KW("ssim_tiles", ctx_ssim_tiles, "SSIM per tile x tile square."),
    KW("upscale_fusion", ctx_upscale_fusion, "Fusion upscaling of an RGBA uint8 image."),
    KW("flow_tvl1", ctx_flow_tvl1, "TV-L1 optical flow: (H, W, 2) float32."),
    KW("lapar_upsample", ctx_lapar_upsample, "The bicubic upsample U that LAPAR filters."),
    KW("lapar_filter", ctx_lapar_filter, "LAPAR filtering with coefficients phi."),
    KW("lapar_tune", ctx_lapar_tune, "Searches and stores the filter's work-group shape."),
    KW("lapar_tuning_get", ctx_lapar_tuning_get, "The filter's tuning for these arguments."),
    KW("lapar_tuning_set", ctx_lapar_tuning_set, "Stores a tuning for these arguments."),
    KW("_lapar_compress", ctx_lapar_compress, NULL),
    KW("lapar_model_read", ctx_lapar_model_read, "A LAPAR model from its file's bytes."),
    KW("lapar_model_load", ctx_lapar_model_load, "A LAPAR model from a file."),
    KW("lapar_model_write", ctx_lapar_model_write, "A LAPAR model's file bytes."),
    KW("lapar_model_combine", ctx_lapar_model_combine, "A model with the entries of a and b."),
    KW("lapar_model_describe", ctx_lapar_model_describe, "A model entry's parameters."),
    KW("lapar_classify", ctx_lapar_classify, "Bucket indices (uint16) of an upsample."),
    KW("upscale_lapar", ctx_upscale_lapar, "LAPAR upscaling by a model (None: the default)."),
    KW("lapar_net", ctx_lapar_net,
       "LAPAR upscaling by a network: 'lapar-a' (default), 'lapar-b', 'lapar-c' or a file."),
    KW("lapar_net_phi", ctx_lapar_net_phi,
       "A LAPAR network's coefficients phi: (atoms, S*H, S*W), float32 or float16."),
    KW("lapar_trainer", ctx_lapar_trainer, "A LAPAR model trainer."),
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ctx_getset[] = {
    {"device", (getter)ctx_get_device, NULL, "The OpenCL device (a dict), or None.", NULL},
    {"last_backend", (getter)ctx_get_last_backend, NULL, "Where the last op ran.", NULL},
    {"cpu_backend", (getter)ctx_get_cpu_backend, NULL, "The CPU path of this context.", NULL},
    {"fallback_cause", (getter)ctx_get_fallback_cause, NULL,
     "Why strict mode refused the fallback (a status name), or None.", NULL},
    {"message", (getter)ctx_get_message, NULL, "Detail of the last failure.", NULL},
    {"closed", (getter)ctx_get_closed, NULL, "True once closed.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CtxType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik._clik._Context",
    .tp_basicsize = sizeof(CtxObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A clik context (see clik.Context).",
    .tp_new = ctx_tp_new,
    .tp_init = (initproc)ctx_init,
    .tp_dealloc = (destructor)ctx_dealloc,
    .tp_traverse = (traverseproc)ctx_traverse,
    .tp_clear = (inquiry)ctx_clear,
    .tp_methods = ctx_methods,
    .tp_getset = ctx_getset,
    .tp_weaklistoffset = offsetof(CtxObject, weakrefs),
};

static PyMethodDef img_methods[] = {
    KW("download", img_download, "The pixels as an array (into out= when given)."),
    KW("upload", img_upload, "Copies an array of the image's shape and dtype in."),
    {"free", (PyCFunction)img_free, METH_NOARGS, "Frees the device memory now."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef img_getset[] = {
    {"context", (getter)img_get_context, NULL, NULL, NULL},
    {"width", (getter)img_get_width, NULL, NULL, NULL},
    {"height", (getter)img_get_height, NULL, NULL, NULL},
    {"channels", (getter)img_get_channels, NULL, NULL, NULL},
    {"dtype", (getter)img_get_dtype, NULL, NULL, NULL},
    {"shape", (getter)img_get_shape, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ImgType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik.Image",
    .tp_basicsize = sizeof(ImgObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An image in a context's device memory; made by Context.image or "
              "Context.upload.",
    .tp_dealloc = (destructor)img_dealloc,
    .tp_methods = img_methods,
    .tp_getset = img_getset,
    .tp_repr = (reprfunc)img_repr,
    .tp_weaklistoffset = offsetof(ImgObject, weakrefs),
};

static PyTypeObject MemType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik._clik._Memory",
    .tp_basicsize = sizeof(MemObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)mem_dealloc,
    .tp_as_buffer = &mem_as_buffer,
};

static PyMethodDef stream_methods[] = {
    KW("submit", stream_submit, "Queues a frame; returns its ticket."),
    {"wait", (PyCFunction)stream_wait, METH_VARARGS, "Waits for frames up to a ticket."},
    {"close", (PyCFunction)stream_close_m, METH_NOARGS, "Waits for all frames, frees."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"depth", (getter)stream_get_depth, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StreamType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik._clik.FusionStream",
    .tp_basicsize = sizeof(StreamObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = stream_new,
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik.LaparModel",
    .tp_basicsize = sizeof(ModelObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A LAPAR coefficient model (Context.lapar_model_load, read, a trainer's solve, "
              "or clik.lapar_model_default()).",
    .tp_dealloc = (destructor)model_dealloc,
};

static PyMethodDef trainer_methods[] = {
    KW("add", trainer_add, "Adds a high-resolution training image."),
    {"solve", (PyCFunction)trainer_solve, METH_NOARGS, "Solves: a new LaparModel."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef trainer_getset[] = {
    {"samples", (getter)trainer_get_samples, NULL, "Samples so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TrainerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik.LaparTrainer",
    .tp_basicsize = sizeof(TrainerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Trains a LAPAR model (Context.lapar_trainer).",
    .tp_dealloc = (destructor)trainer_dealloc,
    .tp_methods = trainer_methods,
    .tp_getset = trainer_getset,
};

static PyMethodDef mod_methods[] = {
    {"version", mod_version, METH_NOARGS, "The C library's version."},
    {"devices", mod_devices, METH_NOARGS, "Every OpenCL device of every platform (dicts)."},
    {"select_device", mod_select_device, METH_VARARGS,
     "Index in devices() that a selection string picks, or None for the CPU."},
    {"opencl_library", mod_opencl_library, METH_NOARGS, "Path of the OpenCL library loaded."},
    {"cpu_path_available", mod_cpu_path_available, METH_VARARGS,
     "Whether this build has the CPU path ('auto', 'scalar', 'neon')."},
    {"lapar_net_available", mod_lapar_net_available, METH_VARARGS,
     "Whether this build holds the released network ('lapar-a', 'lapar-b', 'lapar-c') for a "
     "scale."},
    {"pyr_level_size", mod_pyr_level_size, METH_VARARGS, "(w, h) of a pyramid level."},
    {"pyr_max_levels", mod_pyr_max_levels, METH_VARARGS, "Most levels below an image."},
    {"resize_size", mod_resize_size, METH_VARARGS, "(w, h) of a resize by scales."},
    KW("gaussian_weights", mod_gaussian_weights, "The blur's 1-D Gaussian taps."),
    {"lapar_dict_default", mod_lapar_dict_default, METH_NOARGS,
     "The default LAPAR dictionary, (72, 25) float32."},
    {"lapar_model_default", mod_lapar_model_default, METH_NOARGS,
     "The library's embedded LAPAR model (scales 2, 3, 4)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "clik._clik",
    "The C extension of the clik package.",
    -1,
    mod_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

static PyObject *new_error(PyObject *m, const char *name, PyObject *base2)
{
    char full[64];
    snprintf(full, sizeof(full), "clik.%s", name);
    PyObject *bases = base2 ? PyTuple_Pack(2, Error, base2) : NULL;
    PyObject *e = PyErr_NewException(full, bases ? bases : PyExc_Exception, NULL);
    Py_XDECREF(bases);
    if (e && PyModule_AddObjectRef(m, name, e) < 0)
        Py_CLEAR(e);
    return e;
}

PyMODINIT_FUNC PyInit__clik(void)
{
    static int atfork_set;
    if (!atfork_set && pthread_atfork(NULL, NULL, after_fork_child) == 0)
        atfork_set = 1;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np)
        goto fail;
    np_empty = PyObject_GetAttrString(np, "empty");
    np_asarray = PyObject_GetAttrString(np, "asarray");
    np_dtype_fn = PyObject_GetAttrString(np, "dtype");
    Py_DECREF(np);
    if (!np_empty || !np_asarray || !np_dtype_fn)
        goto fail;
    for (int i = CLIK_U8; i <= CLIK_F64; i++) {
        np_dtypes[i] = PyObject_CallFunction(np_dtype_fn, "s", type_names[i]);
        if (!np_dtypes[i])
            goto fail;
    }
    if (clik_lapar_dict_default(default_dict) != CLIK_OK) {
        PyErr_SetString(PyExc_ImportError, "clik: the default LAPAR dictionary failed");
        goto fail;
    }
    Error = new_error(m, "Error", NULL);
    if (!Error || !(FormatError = new_error(m, "FormatError", PyExc_TypeError)) ||
        !(ArgumentError = new_error(m, "ArgumentError", PyExc_ValueError)) ||
        !(OutOfMemory = new_error(m, "OutOfMemoryError", PyExc_MemoryError)) ||
        !(FileError = new_error(m, "FileError", PyExc_OSError)))
        goto fail;
    PyTypeObject *types[] = {&CtxType, &ImgType, &MemType, &StreamType, &ModelType, &TrainerType};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (PyType_Ready(types[i]) < 0)
            goto fail;
    if (PyModule_AddObjectRef(m, "_Context", (PyObject *)&CtxType) < 0 ||
        PyModule_AddObjectRef(m, "Image", (PyObject *)&ImgType) < 0 ||
        PyModule_AddObjectRef(m, "FusionStream", (PyObject *)&StreamType) < 0 ||
        PyModule_AddObjectRef(m, "LaparModel", (PyObject *)&ModelType) < 0 ||
        PyModule_AddObjectRef(m, "LaparTrainer", (PyObject *)&TrainerType) < 0 ||
        PyModule_AddIntConstant(m, "LAPAR_TAPS", CLIK_LAPAR_TAPS) < 0 ||
        PyModule_AddIntConstant(m, "LAPAR_ATOMS", CLIK_LAPAR_ATOMS) < 0 ||
        PyModule_AddIntConstant(m, "BLUR_MAX_KSIZE", CLIK_BLUR_MAX_KSIZE) < 0 ||
        PyModule_AddIntConstant(m, "SSIM_WINDOW", CLIK_SSIM_WINDOW) < 0 ||
        PyModule_AddIntConstant(m, "FLOW_MAX_SCALES", CLIK_FLOW_MAX_SCALES) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}

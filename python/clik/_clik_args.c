/*
 * clik._clik: the argument-conversion layer. Exceptions of a status, scalar
 * and dtype arguments, range checks, the context's lock and the fork()
 * guard around library calls, and the signals and progress of long calls.
 * Image arguments (NumPy arrays without copies, or clik.Image) are
 * _clik_image.c's, beside the image type they take.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Module globals: exceptions, NumPy callables, dtypes                       */

PyObject *Error, *FormatError, *ArgumentError, *OutOfMemory, *FileError;
PyObject *np_empty, *np_asarray, *np_dtype_fn;
PyObject *np_dtypes[CLIK_F64 + 1];
const char *const type_names[CLIK_F64 + 1] = {
    [CLIK_U8] = "uint8",    [CLIK_S16] = "int16",   [CLIK_U16] = "uint16",
    [CLIK_S32] = "int32",   [CLIK_U32] = "uint32",  [CLIK_U64] = "uint64",
    [CLIK_F16] = "float16", [CLIK_F32] = "float32", [CLIK_F64] = "float64",
};
const char *const type_formats[CLIK_F64 + 1] = {
    [CLIK_U8] = "B",  [CLIK_S16] = "h", [CLIK_U16] = "H", [CLIK_S32] = "i", [CLIK_U32] = "I",
    [CLIK_U64] = "Q", [CLIK_F16] = "e", [CLIK_F32] = "f", [CLIK_F64] = "d",
};

PyObject *status_name(clik_status st)
{
    const char *full = clik_status_str(st);
    const char *colon = strchr(full, ':');
    return PyUnicode_FromStringAndSize(full, colon ? colon - full : (Py_ssize_t)strlen(full));
}

PyObject *raise_status(clik_status st, const char *message)
{
    const char *full = clik_status_str(st);
    const char *colon = strchr(full, ':');
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
    PyObject *status = status_name(st);
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

PyObject *arg_error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    PyObject *text = PyUnicode_FromFormatV(format, ap);
    va_end(ap);
    const char *message = text ? PyUnicode_AsUTF8(text) : NULL;
    if (message)
        raise_status(CLIK_ERR_INVALID_ARG, message);
    Py_XDECREF(text);
    return NULL;
}

PyObject *array_new(int rows, int cols, clik_type t, Py_buffer *view)
{
    PyObject *shape = rows ? Py_BuildValue("(ii)", rows, cols) : Py_BuildValue("(i)", cols);
    PyObject *a = shape ? PyObject_CallFunctionObjArgs(np_empty, shape, np_dtypes[t], NULL) : NULL;
    Py_XDECREF(shape);
    if (a && PyObject_GetBuffer(a, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        Py_CLEAR(a);
    return a;
}

/* A new float32 array (rows x cols; rows 0: a vector) holding a copy of v. */
PyObject *f32_array(const float *v, int rows, int cols)
{
    Py_buffer b;
    PyObject *a = array_new(rows, cols, CLIK_F32, &b);
    if (!a)
        return NULL;
    memcpy(b.buf, v, (size_t)b.len);
    PyBuffer_Release(&b);
    return a;
}

clik_type type_of_format(const char *f, Py_ssize_t itemsize)
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
int type_of_dtype(PyObject *o, const char *name, clik_type *t)
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
int int_value(PyObject *o, const char *name, int *out)
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
int u64_value(PyObject *o, const char *name, unsigned long long *out)
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

void after_fork_child(void)
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
int opencl_refuse(const char *what)
{
    if (!opencl_forked)
        return 0;
    PyErr_Format(PyExc_RuntimeError, "%s: %s", what, FORK_ADVICE);
    return -1;
}

/* After such a call: this process uses OpenCL if the library was loaded
 * (without one, nothing of OpenCL is left to a child). */
void opencl_mark(void)
{
    if (clik_opencl_library(NULL))
        opencl_used = 1;
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                  */

/* A context with a device inherited by a fork() child: its OpenCL
 * objects cannot be used (see above), not even to release them. */
int ctx_forked(const CtxObject *c)
{
    return c->device && opencl_forked;
}

int ctx_open(CtxObject *c)
{
    if (!c->ctx || c->closed) {
        arg_error("the clik.Context is closed");
        return -1;
    }
    return 0;
}

PyObject *ctx_fail(CtxObject *c, clik_status st)
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

PyObject *ctx_none(CtxObject *c, clik_status st)
{
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    Py_RETURN_NONE;
}

/* Takes the context's lock from code that holds the GIL (deallocators),
 * letting go of the GIL while waiting: a call in progress may need it for
 * a log or progress callback. */
int lock_ctx(CtxObject *c)
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
int in_callback(const CtxObject *c)
{
    return c->holder == PyThread_get_thread_ident();
}

/* After the call that made obj, a dependent of c (an image, memory, a
 * stream, a trainer): on success c is held in *owner and obj returned; on
 * failure obj is dropped and the exception raised (NULL). */
PyObject *ctx_adopt(CtxObject *c, clik_status st, PyObject *obj, CtxObject **owner)
{
    if (st != CLIK_OK) {
        Py_DECREF(obj);
        return ctx_fail(c, st);
    }
    Py_INCREF(c);
    *owner = c;
    c->deps++;
    return obj;
}

/* Raises the RuntimeError of "what" (a close or free) called from a log or
 * progress callback of a call in progress on the context; -1. */
int refuse_in_callback(const char *what, const char *advice)
{
    PyErr_Format(PyExc_RuntimeError,
                 "%s from a log or progress callback of a call in progress on its context%s", what,
                 advice);
    return -1;
}

/* Drops a dependent of c; the last one of a closed context destroys it,
 * unless a call on it is in progress (from one of its callbacks: then the
 * context's deallocation does) or it is inherited by a fork() child. */
void ctx_release(CtxObject *c)
{
    if (--c->deps == 0 && c->closed && c->ctx && !in_callback(c) && !ctx_forked(c)) {
        clik_context_destroy(c->ctx);
        c->ctx = NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* Long calls: signals between steps                                         */

/* The most time between two checks of the signals while nothing else needs
 * the GIL: each check takes it, which a busy Python thread may hold for a
 * switch interval. */
#define SIGNAL_CHECK_NS 20000000L

/* Between two steps of a long call, without the GIL: the signal handlers
 * (at most every SIGNAL_CHECK_NS) and the progress callable (every time,
 * with args built from "format"). 1 to stop the call: the handler or the
 * callable raised (the exception is kept), or the callable returned False. */
int watch_step(watch *w, const char *format, ...)
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

void watch_init(watch *w, PyObject *progress)
{
    memset(w, 0, sizeof(*w));
    w->progress = progress;
    clock_gettime(CLOCK_MONOTONIC, &w->checked);
}

/* After the call: the exception of a signal handler or the progress
 * callable, raised (-1), if there was one. */
int watch_raise(watch *w)
{
    if (!w->exc_type)
        return 0;
    PyErr_Restore(w->exc_type, w->exc_value, w->exc_tb);
    w->exc_type = w->exc_value = w->exc_tb = NULL;
    return -1;
}

void watch_clear(watch *w)
{
    Py_CLEAR(w->exc_type);
    Py_CLEAR(w->exc_value);
    Py_CLEAR(w->exc_tb);
}

/* ------------------------------------------------------------------------ */
/* Range checks                                                              */

/* A scale argument in lo..hi. */
int scale_range(int scale, int lo, int hi)
{
    if (scale < lo || scale > hi) {
        arg_error("argument 'scale': %d..%d", lo, hi);
        return -1;
    }
    return 0;
}

/* A scale argument in lo..hi by which a w x h image stays in range. */
int scale_ok(int scale, int lo, int hi, int w, int h)
{
    if (scale_range(scale, lo, hi) < 0)
        return -1;
    if (w > INT_MAX / scale || h > INT_MAX / scale) {
        raise_status(CLIK_ERR_OVERFLOW, "src: too large for the scale");
        return -1;
    }
    return 0;
}

/* A path argument (str, bytes or os.PathLike) as bytes, or NULL for None. */
int path_arg(PyObject *o, const char *name, PyObject **bytes)
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

/* The colour order argument: "bgr" (also the default, for None) or "rgb". */
int order_arg(PyObject *o, clik_order *order)
{
    *order = CLIK_ORDER_BGR;
    if (o == NULL || o == Py_None)
        return 0;
    const char *text = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if (text && strcmp(text, "rgb") == 0)
        *order = CLIK_ORDER_RGB;
    else if (!text || strcmp(text, "bgr") != 0) {
        PyErr_Clear();
        arg_error("argument 'order': 'bgr' (OpenCV's arrays) or 'rgb'");
        return -1;
    }
    return 0;
}

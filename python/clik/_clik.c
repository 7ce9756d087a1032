/*
 * clik._clik: the CPython extension under the clik package. This file: the
 * module, its functions, and clik.Context (creation, properties, method
 * table); the argument layer is _clik_args.c, the families' methods are in
 * _clik_<family>.c. Every library call runs with the GIL released and the
 * context's lock held (CALL).
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

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

/* threads: None leaves the library's default ($CLIK_THREADS, else the usable
 * cores); an integer outside int's range is passed as one the library
 * refuses with its own message. */
static int opt_threads(PyObject *o, int *v)
{
    if (o == Py_None)
        return 0;
    int overflow = 0;
    long n = PyLong_AsLongAndOverflow(o, &overflow);
    if (n == -1 && PyErr_Occurred())
        return -1;
    *v = overflow > 0 || n > INT_MAX ? INT_MAX : overflow < 0 || n < INT_MIN ? INT_MIN : (int)n;
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
        arg_error("argument 'cpu_path': 'auto', 'scalar' or 'neon'");
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
                             "tuning",    "log",          "threads",   NULL};
    const char *device = NULL, *tuning = NULL;
    PyObject *strict = Py_None, *cpu_path = Py_None, *cache = Py_None, *cache_dir = Py_None,
             *local = Py_None, *prof = Py_None, *kdir = Py_None, *log = Py_None, *threads = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z$OOOOOOOzOO", kwlist, &device, &strict, &cpu_path,
                                     &cache, &cache_dir, &local, &prof, &kdir, &tuning, &log,
                                     &threads))
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
    if (opt_threads(threads, &opt.threads) < 0 || opt_bool(strict, &opt.strict) < 0 ||
        opt_bool(cache, &opt.cache) < 0 || opt_bool(local, &opt.local_memory) < 0 ||
        opt_bool(prof, &opt.profiling) < 0 || cpu_path_of(cpu_path, &opt.cpu_path) < 0 ||
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

/* The properties of an open context, by the closure of their PyGetSetDef. */
enum { GET_DEVICE, GET_LAST_BACKEND, GET_CPU_BACKEND, GET_FALLBACK_CAUSE, GET_MESSAGE };

static PyObject *ctx_get(CtxObject *c, void *which)
{
    if (ctx_open(c) < 0)
        return NULL;
    const clik_device_info *d = NULL;
    clik_status st = CLIK_OK;
    switch ((int)(intptr_t)which) {
    case GET_DEVICE:
        d = clik_context_device(c->ctx);
        if (!d)
            Py_RETURN_NONE;
        return device_dict(d);
    case GET_LAST_BACKEND:
        return PyUnicode_FromString(clik_backend_name(clik_context_last_backend(c->ctx)));
    case GET_CPU_BACKEND:
        return PyUnicode_FromString(clik_backend_name(clik_context_cpu_backend(c->ctx)));
    case GET_FALLBACK_CAUSE:
        st = clik_context_fallback_cause(c->ctx);
        if (st == CLIK_OK)
            Py_RETURN_NONE;
        return status_name(st);
    default: return PyUnicode_FromString(clik_context_message(c->ctx));
    }
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

/* A method without arguments that runs fn on the context (as CALL) and
 * returns None. */
static PyObject *ctx_run_none(CtxObject *c, clik_status (*fn)(clik_context *ctx))
{
    if (ctx_open(c) < 0)
        return NULL;
    clik_status st;
    CALL(c, st, fn(c->ctx));
    return ctx_none(c, st);
}

static PyObject *ctx_finish(CtxObject *c, PyObject *unused)
{
    (void)unused;
    return ctx_run_none(c, clik_context_finish);
}

/* copy_bandwidth (GB/s) and, transfer 1, transfer_bandwidth ((to device,
 * to host) GB/s). */
static PyObject *bandwidth(CtxObject *c, PyObject *args, PyObject *kw, int transfer)
{
    static char *kwlist[] = {"nbytes", "reps", NULL};
    Py_ssize_t bytes = 64 << 20;
    int reps = 5;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ni", kwlist, &bytes, &reps) || ctx_open(c) < 0)
        return NULL;
    if (bytes <= 0 || reps <= 0)
        return arg_error("arguments 'nbytes' and 'reps' must be positive");
    double to_dev = 0, to_host = 0;
    clik_status st;
    if (transfer)
        CALL(c, st,
             clik_context_transfer_bandwidth(c->ctx, (size_t)bytes, reps, &to_dev, &to_host));
    else
        CALL(c, st, clik_context_copy_bandwidth(c->ctx, (size_t)bytes, reps, &to_dev));
    if (st != CLIK_OK)
        return ctx_fail(c, st);
    return transfer ? Py_BuildValue("(dd)", to_dev, to_host) : PyFloat_FromDouble(to_dev);
}

static PyObject *ctx_copy_bandwidth(CtxObject *c, PyObject *args, PyObject *kw)
{
    return bandwidth(c, args, kw, 0);
}

static PyObject *ctx_transfer_bandwidth(CtxObject *c, PyObject *args, PyObject *kw)
{
    return bandwidth(c, args, kw, 1);
}

static PyObject *ctx_fma_peak(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"reps", NULL};
    int reps = 3;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwlist, &reps) || ctx_open(c) < 0)
        return NULL;
    if (reps < 1) {
        arg_error("argument 'reps': positive");
        return NULL;
    }
    double gflops = 0.0;
    clik_status st;
    CALL(c, st, clik_context_fma_peak(c->ctx, reps, &gflops));
    return st == CLIK_OK ? PyFloat_FromDouble(gflops) : ctx_fail(c, st);
}

/* A str, or a sequence of str, joined with commas into out (cap bytes). */
static int op_list(PyObject *ops, char *out, size_t cap)
{
    out[0] = '\0';
    if (ops == NULL || ops == Py_None)
        return 0;
    if (PyUnicode_Check(ops)) {
        const char *s = PyUnicode_AsUTF8(ops);
        if (!s)
            return -1;
        if (strlen(s) >= cap) {
            arg_error("argument 'ops': too long");
            return -1;
        }
        snprintf(out, cap, "%s", s);
        return 0;
    }
    PyObject *seq = PySequence_Fast(ops, "argument 'ops': a str or a sequence of str");
    if (!seq)
        return -1;
    size_t used = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        if (!s) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                arg_error("argument 'ops': a str or a sequence of str");
            return -1;
        }
        const size_t n = strlen(s);
        if (used + n + 2 > cap) {
            Py_DECREF(seq);
            arg_error("argument 'ops': too long");
            return -1;
        }
        if (used)
            out[used++] = ',';
        memcpy(out + used, s, n + 1);
        used += n;
    }
    Py_DECREF(seq);
    return 0;
}

/* Bits of a sequence of ints (lo..hi) or of dtype names. */
static int bits_of(PyObject *seq_in, const char *what, int names, unsigned *bits)
{
    *bits = 0;
    if (seq_in == NULL || seq_in == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(seq_in, "a sequence");
    if (!seq)
        return -1;
    int ok = 1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && ok; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (names) {
            const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
            if (s && strcmp(s, "uint8") == 0)
                *bits |= 1u << CLIK_U8;
            else if (s && strcmp(s, "float32") == 0)
                *bits |= 1u << CLIK_F32;
            else
                ok = 0;
        } else {
            const long v = PyLong_Check(item) ? PyLong_AsLong(item) : 0;
            if (v >= 1 && v <= 4)
                *bits |= 1u << v;
            else
                ok = 0;
        }
    }
    Py_DECREF(seq);
    if (!ok || !*bits) {
        PyErr_Clear();
        arg_error(names ? "argument 'dtypes': a non-empty sequence of 'uint8' and 'float32'"
                        : "argument 'channels': a non-empty sequence of counts 1 to 4");
        (void)what;
        return -1;
    }
    return 0;
}

static PyObject *ctx_prepare(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ops", "dtypes", "channels", "background", NULL};
    PyObject *ops = NULL, *dtypes = NULL, *channels = NULL;
    int background = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOp", kwlist, &ops, &dtypes, &channels,
                                     &background) ||
        ctx_open(c) < 0)
        return NULL;
    char list[1024];
    clik_prepare_options o;
    clik_prepare_options_init(&o);
    if (op_list(ops, list, sizeof(list)) < 0 || bits_of(dtypes, "dtypes", 1, &o.types) < 0 ||
        bits_of(channels, "channels", 0, &o.channels) < 0)
        return NULL;
    o.ops = list[0] ? list : NULL;
    o.background = background;
    clik_status st;
    CALL(c, st, clik_context_prepare(c->ctx, &o));
    return ctx_none(c, st);
}

static PyObject *ctx_prepare_wait(CtxObject *c, PyObject *unused)
{
    (void)unused;
    return ctx_run_none(c, clik_context_prepare_wait);
}

/* ------------------------------------------------------------------------ */
/* Module functions                                                          */

static PyObject *mod_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(clik_version());
}

static PyObject *mod_prepare_op_names(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    int n = 0;
    while (clik_prepare_op_name(n))
        n++;
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *name = PyUnicode_FromString(clik_prepare_op_name(i));
        if (!name) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, name);
    }
    return t;
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
        arg_error("pyr_level_size: positive sides, level >= 0");
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
        arg_error("pyr_max_levels: positive sides");
        return NULL;
    }
    return PyLong_FromLong(clik_pyr_max_levels(w, h));
}

/* _raise_argument_error(message): the package's own argument errors
 * (clik.ArgumentError, as the binding's). */
static PyObject *mod_raise_argument_error(PyObject *self, PyObject *message)
{
    (void)self;
    return arg_error("%S", message);
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

/* ------------------------------------------------------------------------ */
/* Types and module                                                         */

static PyMethodDef ctx_methods[] = {
    {"close", (PyCFunction)ctx_close, METH_NOARGS, DOC_ctx_close},
    {"stats", (PyCFunction)ctx_stats, METH_NOARGS, DOC_ctx_stats},
    {"finish", (PyCFunction)ctx_finish, METH_NOARGS, DOC_ctx_finish},
    KW("copy_bandwidth", ctx_copy_bandwidth),
    KW("transfer_bandwidth", ctx_transfer_bandwidth),
    KW("fma_peak", ctx_fma_peak),
    KW("prepare", ctx_prepare),
    {"prepare_wait", (PyCFunction)ctx_prepare_wait, METH_NOARGS, DOC_ctx_prepare_wait},
    KW("empty", ctx_empty),
    KW("image", ctx_image),
    KW("upload", ctx_upload),
    KW("download", ctx_download),
    KW("hist_compute", ctx_hist_compute),
    KW("hist_equalize", ctx_hist_equalize),
    KW("hist_equalize_luma", ctx_hist_equalize_luma),
    KW("clahe", ctx_clahe),
    KW("hist_lut", ctx_hist_lut),
    KW("pyr_down", ctx_pyr_down),
    KW("pyr_up", ctx_pyr_up),
    KW("pyr_gaussian", ctx_pyr_gaussian),
    KW("pyr_laplacian", ctx_pyr_laplacian),
    KW("pyr_collapse", ctx_pyr_collapse),
    KW("integral", ctx_integral),
    KW("resize", ctx_resize),
    KW("gaussian_blur", ctx_gaussian_blur),
    KW("gray", ctx_gray),
    KW("yuv_to_rgb", ctx_yuv_to_rgb),
    KW("rgb_to_yuv", ctx_rgb_to_yuv),
    KW("yuv_resize", ctx_yuv_resize),
    KW("yuv_upscale_lapar", ctx_yuv_upscale_lapar),
    KW("yuv_upscale_lapar_net", ctx_yuv_upscale_lapar_net),
    KW("ssim", ctx_ssim),
    KW("ssim_tiles", ctx_ssim_tiles),
    KW("upscale_fusion", ctx_upscale_fusion),
    KW("flow_tvl1", ctx_flow_tvl1),
    KW("flow_warp", ctx_flow_warp),
    KW("flow_warp_average", ctx_flow_warp_average),
    KW("lapar_upsample", ctx_lapar_upsample),
    KW("lapar_filter", ctx_lapar_filter),
    KW("lapar_tune", ctx_lapar_tune),
    KW("lapar_tuning_get", ctx_lapar_tuning_get),
    KW("lapar_tuning_set", ctx_lapar_tuning_set),
    KW("_lapar_compress", ctx_lapar_compress),
    KW("lapar_model_read", ctx_lapar_model_read),
    KW("lapar_model_load", ctx_lapar_model_load),
    KW("lapar_model_write", ctx_lapar_model_write),
    KW("lapar_model_combine", ctx_lapar_model_combine),
    KW("lapar_model_describe", ctx_lapar_model_describe),
    KW("lapar_classify", ctx_lapar_classify),
    KW("upscale_lapar", ctx_upscale_lapar),
    KW("lapar_net_run", ctx_lapar_net_run),
    KW("lapar_net_phi", ctx_lapar_net_phi),
    KW("lapar_net_tune", ctx_lapar_net_tune),
    KW("lapar_net_tuning_get", ctx_lapar_net_tuning_get),
    KW("lapar_trainer", ctx_lapar_trainer),
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ctx_getset[] = {
    {"device", (getter)ctx_get, NULL, "The OpenCL device (a dict), or None.",
     (void *)(intptr_t)GET_DEVICE},
    {"last_backend", (getter)ctx_get, NULL, "Where the last op ran.",
     (void *)(intptr_t)GET_LAST_BACKEND},
    {"cpu_backend", (getter)ctx_get, NULL, "The CPU path of this context.",
     (void *)(intptr_t)GET_CPU_BACKEND},
    {"fallback_cause", (getter)ctx_get, NULL,
     "Why strict mode refused the fallback (a status name), or None.",
     (void *)(intptr_t)GET_FALLBACK_CAUSE},
    {"message", (getter)ctx_get, NULL, "Detail of the last failure.",
     (void *)(intptr_t)GET_MESSAGE},
    {"closed", (getter)ctx_get_closed, NULL, "True once closed.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject CtxType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clik._clik._Context",
    .tp_basicsize = sizeof(CtxObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = DOC_ctx_type,
    .tp_new = ctx_tp_new,
    .tp_init = (initproc)ctx_init,
    .tp_dealloc = (destructor)ctx_dealloc,
    .tp_traverse = (traverseproc)ctx_traverse,
    .tp_clear = (inquiry)ctx_clear,
    .tp_methods = ctx_methods,
    .tp_getset = ctx_getset,
    .tp_weaklistoffset = offsetof(CtxObject, weakrefs),
};

static PyMethodDef mod_methods[] = {
    {"version", mod_version, METH_NOARGS, DOC_mod_version},
    {"devices", mod_devices, METH_NOARGS, DOC_mod_devices},
    {"prepare_op_names", mod_prepare_op_names, METH_NOARGS, DOC_mod_prepare_op_names},
    {"select_device", mod_select_device, METH_VARARGS, DOC_mod_select_device},
    {"opencl_library", mod_opencl_library, METH_NOARGS, DOC_mod_opencl_library},
    {"cpu_path_available", mod_cpu_path_available, METH_VARARGS, DOC_mod_cpu_path_available},
    {"lapar_net_available", mod_lapar_net_available, METH_VARARGS, DOC_mod_lapar_net_available},
    {"pyr_level_size", mod_pyr_level_size, METH_VARARGS, DOC_mod_pyr_level_size},
    {"pyr_max_levels", mod_pyr_max_levels, METH_VARARGS, DOC_mod_pyr_max_levels},
    {"resize_size", mod_resize_size, METH_VARARGS, DOC_mod_resize_size},
    KW("gaussian_weights", mod_gaussian_weights),
    {"lapar_dict_default", mod_lapar_dict_default, METH_NOARGS, DOC_mod_lapar_dict_default},
    {"lapar_model_default", mod_lapar_model_default, METH_NOARGS, DOC_mod_lapar_model_default},
    {"_raise_argument_error", mod_raise_argument_error, METH_O, DOC_mod_raise_argument_error},
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

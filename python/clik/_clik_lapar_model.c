/*
 * clik._clik: LAPAR models and networks: model files, classification, upscaling by a
 * model or a network, the network's coefficients, training.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <string.h>

typedef struct {
    PyObject ob_base;
    clik_lapar_model *m;
    int borrowed; /* the library's default model */
} ModelObject;

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

PyObject *mod_lapar_model_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return model_wrap((clik_lapar_model *)clik_lapar_model_default(2), 1);
}

int model_arg(PyObject *o, const char *name, const clik_lapar_model **m)
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

/* A model from a file's bytes (data) or from a file (path, when not NULL). */
static PyObject *model_from(CtxObject *c, const Py_buffer *data, PyObject *path)
{
    clik_lapar_model *m = NULL;
    clik_status st;
    if (path)
        CALL(c, st, clik_lapar_model_load(c->ctx, PyBytes_AS_STRING(path), &m));
    else
        CALL(c, st, clik_lapar_model_read(c->ctx, data->buf, (size_t)data->len, &m));
    return st == CLIK_OK ? model_wrap(m, 0) : ctx_fail(c, st);
}

PyObject *ctx_lapar_model_read(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"data", NULL};
    Py_buffer data;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*", kwlist, &data))
        return NULL;
    PyObject *r = ctx_open(c) < 0 ? NULL : model_from(c, &data, NULL);
    PyBuffer_Release(&data);
    return r;
}

PyObject *ctx_lapar_model_load(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, PyUnicode_FSConverter, &path))
        return NULL;
    PyObject *r = ctx_open(c) < 0 ? NULL : model_from(c, NULL, path);
    Py_DECREF(path);
    return r;
}

PyObject *ctx_lapar_model_write(CtxObject *c, PyObject *args, PyObject *kw)
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

PyObject *ctx_lapar_model_combine(CtxObject *c, PyObject *args, PyObject *kw)
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

PyObject *ctx_lapar_model_describe(CtxObject *c, PyObject *args, PyObject *kw)
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

/* unary() of an op whose output is one channel of type t, shaped (H, W)
 * whatever the input's: the class map, the network's planes. */
static PyObject *unary_plane(CtxObject *c, PyObject *src, const char *name, PyObject *out,
                             clik_type t, unary_op u)
{
    u.channels = 1;
    u.type = t;
    u.flat = 1;
    return unary(c, src, name, out, &u);
}

PyObject *ctx_lapar_classify(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"up", "scale", "model", "out", "order", NULL};
    PyObject *up, *mo = Py_None, *out = Py_None, *order_o = Py_None;
    model_call m;
    clik_order order;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|OO$O", kwlist, &up, &m.scale, &mo, &out,
                                     &order_o) ||
        model_arg(mo, "model", &m.model) < 0 || order_arg(order_o, &order) < 0)
        return NULL;
    return unary_plane(
        c, up, "up", out, CLIK_U16,
        (unary_op){.num = 1, .den = 1, .fn = do_classify, .arg = &m, .order = &order});
}

PyObject *ctx_upscale_lapar(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "scale", "model", "out", "order", NULL};
    PyObject *src, *mo = Py_None, *out = Py_None, *order_o = Py_None;
    model_call m = {2, NULL};
    clik_order order;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOO$O", kwlist, &src, &m.scale, &mo, &out,
                                     &order_o) ||
        model_arg(mo, "model", &m.model) < 0 || scale_range(m.scale, 2, 4) < 0 ||
        order_arg(order_o, &order) < 0)
        return NULL;
    return unary(
        c, src, "src", out,
        &(unary_op){.num = m.scale, .den = 1, .fn = do_upscale_lapar, .arg = &m, .order = &order});
}

/* LAPAR networks: net is "lapar-a", "lapar-b", "lapar-c" (built in) or the
 * path of a network file. */

typedef struct {
    const clik_lapar_net *net;
    clik_lapar_net_options opt;
} net_call;

/* activations: "f32" (the default) or "f16"; 0 or -1 with the error set. */
static int activations_arg(const char *text, clik_lapar_net_options *opt)
{
    opt->f16_activations = text && strcmp(text, "f16") == 0;
    if (text && !opt->f16_activations && strcmp(text, "f32") != 0) {
        arg_error("argument 'activations': 'f32' or 'f16', not '%s'", text);
        return -1;
    }
    return 0;
}

int net_arg(CtxObject *c, PyObject *o, int scale, clik_lapar_net **net, int *owned)
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
                arg_error("argument 'scale': %d, the network file is for x%d", scale, info.scale);
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

/* The arguments lapar_net_run and lapar_net_phi share, as kwlist names
 * them: src, net, scale, a fourth (out or dtype, left as given),
 * activations and order. 0, or -1 with the error set. */
static int net_call_args(CtxObject *c, PyObject *args, PyObject *kw, char **kwlist, PyObject **src,
                         PyObject **no, int *scale, PyObject **fourth, net_call *m,
                         clik_order *order)
{
    PyObject *order_o = Py_None;
    const char *act = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OiOs$O", kwlist, src, no, scale, fourth, &act,
                                     &order_o) ||
        ctx_open(c) < 0 || scale_range(*scale, 2, 4) < 0 || activations_arg(act, &m->opt) < 0 ||
        order_arg(order_o, order) < 0)
        return -1;
    return 0;
}

static clik_status do_lapar_net(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const net_call *m = p;
    return clik_lapar_net_run_with(x, m->net, a, b, NULL, &m->opt);
}

PyObject *ctx_lapar_net_run(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "net", "scale", "out", "activations", "order", NULL};
    PyObject *src, *no = NULL, *out = Py_None;
    int scale = 2, owned = 0;
    clik_lapar_net *net = NULL;
    net_call m = {NULL, {0}};
    clik_order order;
    if (net_call_args(c, args, kw, kwlist, &src, &no, &scale, &out, &m, &order) < 0)
        return NULL;
    if (net_arg(c, no, scale, &net, &owned) < 0)
        return NULL;
    m.net = net;
    PyObject *r =
        unary(c, src, "src", out,
              &(unary_op){.num = scale, .den = 1, .fn = do_lapar_net, .arg = &m, .order = &order});
    if (owned)
        clik_lapar_net_free(net);
    return r;
}

static clik_status do_lapar_net_phi(clik_context *x, const clik_image *a, clik_image *b,
                                    const void *p)
{
    const net_call *m = p;
    return clik_lapar_net_run_with(x, m->net, a, NULL, b, &m->opt);
}

static int net_phi_size(const clik_image *src, const void *p, int *w, int *h)
{
    clik_lapar_net_info info;
    clik_lapar_net_describe(((const net_call *)p)->net, &info);
    const long long hh = (long long)src->height * info.scale * info.atoms;
    if (hh > INT_MAX) {
        arg_error("argument 'src': too large for phi");
        return -1;
    }
    *w = src->width * info.scale;
    *h = (int)hh;
    return 0;
}

PyObject *ctx_lapar_net_phi(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "net", "scale", "dtype", "activations", "order", NULL};
    PyObject *src, *no = NULL, *dtype = Py_None;
    int scale = 2, owned = 0;
    clik_lapar_net *net = NULL;
    clik_type t = CLIK_F32;
    net_call m = {NULL, {0}};
    clik_order order;
    if (net_call_args(c, args, kw, kwlist, &src, &no, &scale, &dtype, &m, &order) < 0 ||
        (dtype != Py_None && type_of_dtype(dtype, "dtype", &t) < 0))
        return NULL;
    if (t != CLIK_F32 && t != CLIK_F16) {
        arg_error("argument 'dtype': float32 or float16");
        return NULL;
    }
    if (net_arg(c, no, scale, &net, &owned) < 0)
        return NULL;
    m.net = net;
    PyObject *r = unary_plane(
        c, src, "src", Py_None, t,
        (unary_op){.size = net_phi_size, .fn = do_lapar_net_phi, .arg = &m, .order = &order});
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

/* The work-item shape of a network's run: a dict as clik_lapar_net_tuning. */
static PyObject *net_tuning_dict(const clik_lapar_net_tuning *t)
{
    return Py_BuildValue("{s:O,s:i,s:i,s:i,s:d,s:O}", "local", t->local ? Py_True : Py_False, "vw",
                         t->vw, "ry", t->ry, "cob", t->cob, "ms", t->ms, "stored",
                         t->stored ? Py_True : Py_False);
}

/* lapar_net_tune (search 1) and lapar_net_tuning_get (0): the same arguments. */
static PyObject *net_tuning(CtxObject *c, PyObject *args, PyObject *kw, int search)
{
    static char *kwlist[] = {"width", "height", "net", "scale", "activations", NULL};
    PyObject *no = NULL;
    const char *act = NULL;
    int width, height, scale = 2, owned = 0;
    clik_lapar_net_options opt = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ii|Ois", kwlist, &width, &height, &no, &scale,
                                     &act) ||
        ctx_open(c) < 0 || scale_range(scale, 2, 4) < 0 || activations_arg(act, &opt) < 0)
        return NULL;
    clik_lapar_net *net = NULL;
    if (net_arg(c, no, scale, &net, &owned) < 0)
        return NULL;
    clik_lapar_net_tuning t;
    clik_status st;
    if (search)
        CALL(c, st, clik_lapar_net_tune(c->ctx, net, width, height, &opt, &t));
    else
        CALL(c, st, clik_lapar_net_tuning_get(c->ctx, net, width, height, &opt, &t));
    if (owned)
        clik_lapar_net_free(net);
    return st == CLIK_OK ? net_tuning_dict(&t) : ctx_fail(c, st);
}

PyObject *ctx_lapar_net_tune(CtxObject *c, PyObject *args, PyObject *kw)
{
    return net_tuning(c, args, kw, 1);
}

PyObject *ctx_lapar_net_tuning_get(CtxObject *c, PyObject *args, PyObject *kw)
{
    return net_tuning(c, args, kw, 0);
}

/* LAPAR trainers */

typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_lapar_trainer *t;
    watch w; /* the progress callable (a reference) and the signals */
} TrainerObject;

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
        arg_error("argument '%s': at most %d edges", name, CLIK_LAPAR_MODEL_MAX_BINS - 1);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        edges[i] = (float)PyFloat_AsDouble(PySequence_Fast_GET_ITEM(s, i));
    Py_DECREF(s);
    return PyErr_Occurred() ? -1 : 0;
}

PyObject *ctx_lapar_trainer(CtxObject *c, PyObject *args, PyObject *kw)
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
    if (!ctx_adopt(c, st, (PyObject *)t, &t->owner))
        return NULL;
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
        arg_error("the trainer is freed");
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
/* Types                                                                    */

PyTypeObject ModelType = {
    TYPE_HEAD("clik.LaparModel", ModelObject),
    .tp_doc = "A LAPAR coefficient model (Context.lapar_model_load, read, a trainer's solve, "
              "or clik.lapar_model_default()).",
    .tp_dealloc = (destructor)model_dealloc,
};

static PyMethodDef trainer_methods[] = {
    KW("add", trainer_add),
    {"solve", (PyCFunction)trainer_solve, METH_NOARGS, DOC_trainer_solve},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef trainer_getset[] = {
    {"samples", (getter)trainer_get_samples, NULL, "Samples so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject TrainerType = {
    TYPE_HEAD("clik.LaparTrainer", TrainerObject),
    .tp_doc = "Trains a LAPAR model (Context.lapar_trainer).",
    .tp_dealloc = (destructor)trainer_dealloc,
    .tp_methods = trainer_methods,
    .tp_getset = trainer_getset,
};

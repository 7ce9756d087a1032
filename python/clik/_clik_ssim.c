/*
 * clik._clik: the SSIM and fusion families: ssim, ssim_tiles, upscale_fusion and the
 * fusion stream.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <string.h>

/* SSIM and fusion families                                                  */

PyObject *ctx_ssim(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "full", NULL};
    PyObject *ao, *bo;
    int full = 0;
    imarg a, b, m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$p", kwlist, &ao, &bo, &full) ||
        ctx_open(c) < 0 || imarg_pair(c, ao, "a", bo, "b", &a, &b) < 0)
        return NULL;
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

PyObject *ctx_ssim_tiles(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "tile", NULL};
    PyObject *ao, *bo;
    int tile = 8;
    imarg a, b, m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|i", kwlist, &ao, &bo, &tile) || ctx_open(c) < 0)
        return NULL;
    if (tile < 2 || tile > 16) {
        arg_error("argument 'tile': 2..16");
        return NULL;
    }
    if (imarg_pair(c, ao, "a", bo, "b", &a, &b) < 0)
        return NULL;
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

PyObject *ctx_upscale_fusion(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src",          "scale", "tile",  "blur_ksize", "threshold",
                             "artifact_map", "out",   "order", NULL};
    PyObject *src, *out = Py_None, *order_o = Py_None;
    int scale = 2, want_map = 0;
    clik_fusion_options opt;
    clik_fusion_options_init(&opt);
    clik_order order;
    imarg a, o, m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|i$iifpOO", kwlist, &src, &scale, &opt.tile,
                                     &opt.blur_ksize, &opt.threshold, &want_map, &out, &order_o) ||
        order_arg(order_o, &order) < 0 || ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    a.img.order = order; /* the luma weights its colours */
    if (scale_ok(scale, 2, 8, a.img.width, a.img.height) < 0) {
        imarg_put(&a);
        return NULL;
    }
    int w = a.img.width * scale, h = a.img.height * scale;
    PyObject *r = out_get(c, out, &a, w, h, a.img.channels, a.img.type, a.ndim3, &o), *rm = NULL;
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    if (want_map && !(rm = out_second(c, &r, &o, &a, w, h, 1, CLIK_U8, 0, &m)))
        return NULL;
    clik_status st;
    CALL(c, st, clik_upscale_fusion(c->ctx, &a.img, &o.img, &opt, want_map ? &m.img : NULL));
    return done_pair(c, st, r, rm, &a, &o, &m);
}

/* The fusion stream: frames in flight keep their views until waited. */
typedef struct {
    PyObject ob_base;
    CtxObject *owner;
    clik_fusion_stream *s;
    PyObject *pending; /* list of (ticket, capsule of 3 views) */
    int depth;
} StreamObject;

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
    if (!ctx_adopt(c, st, (PyObject *)s, &s->owner))
        return NULL;
    s->depth = depth > 0 ? depth : 3;
    return (PyObject *)s;
}

static PyObject *stream_submit(StreamObject *s, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "out", "artifact_map", "order", NULL};
    PyObject *src, *out, *map = Py_None, *order_o = Py_None;
    clik_order order;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O$O", kwlist, &src, &out, &map, &order_o) ||
        order_arg(order_o, &order) < 0)
        return NULL;
    if (!s->s) {
        arg_error("the fusion stream is closed");
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
    f->v[0].img.order = order; /* the luma weights its colours */
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
        (ticket_arg && ticket_arg != Py_None && u64_value(ticket_arg, "ticket", &ticket) < 0))
        return NULL;
    if (!s->s) {
        arg_error("the fusion stream is closed");
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
    return ctx_none(c, st);
}

static PyObject *stream_close_m(StreamObject *s, PyObject *unused)
{
    (void)unused;
    if (s->owner && s->s && in_callback(s->owner) &&
        refuse_in_callback("FusionStream.close()", ": close it after the call") < 0)
        return NULL;
    stream_close(s);
    Py_RETURN_NONE;
}

static PyObject *stream_get_depth(StreamObject *s, void *u)
{
    (void)u;
    return PyLong_FromLong(s->depth);
}

/* ------------------------------------------------------------------------ */
/* Types                                                                    */

static PyMethodDef stream_methods[] = {
    KW("submit", stream_submit),
    {"wait", (PyCFunction)stream_wait, METH_VARARGS, DOC_stream_wait},
    {"close", (PyCFunction)stream_close_m, METH_NOARGS, DOC_stream_close},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"depth", (getter)stream_get_depth, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject StreamType = {
    TYPE_HEAD("clik._clik.FusionStream", StreamObject),
    .tp_doc = DOC_stream_type,
    .tp_new = stream_new,
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
};

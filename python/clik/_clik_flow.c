/*
 * clik._clik: the optical flow family: flow_tvl1, flow_warp, flow_warp_average.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <string.h>

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
        arg_error("argument 'storage': 'auto', 'f32' or 'f16'");
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

PyObject *ctx_flow_tvl1(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"i0",      "i1",   "initial",  "tau",     "lambda_",    "theta",
                             "scales",  "zoom", "warps",    "epsilon", "iterations", "sigma",
                             "storage", "out",  "progress", "order",   NULL};
    PyObject *i0, *i1, *initial = Py_None, *out = Py_None, *progress = Py_None;
    PyObject *order_o = Py_None;
    const char *storage = "auto";
    clik_flow_options opt;
    clik_flow_options_init(&opt);
    clik_order order;
    imarg a, b, o;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OdddidididsOOO", kwlist, &i0, &i1, &initial,
                                     &opt.tau, &opt.lambda, &opt.theta, &opt.scales, &opt.zoom,
                                     &opt.warps, &opt.epsilon, &opt.iterations, &opt.sigma,
                                     &storage, &out, &progress, &order_o) ||
        ctx_open(c) < 0 || storage_of(storage, &opt.storage) < 0 || order_arg(order_o, &order) < 0)
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
    if (imarg_pair(c, i0, "i0", i1, "i1", &a, &b) < 0)
        return NULL;
    a.img.order = b.img.order = order; /* colour is compared on its luma */
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
            arg_error("argument 'initial': a float32 (H, W, 2) array of i0's size");
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

/* flow_warp(src, flow, out=None) and flow_warp_average(ref, src, flow,
 * out=None): ref is NULL for the first. */
static PyObject *warp_call(CtxObject *c, PyObject *ref_o, PyObject *src_o, PyObject *flow_o,
                           PyObject *out)
{
    imarg r = {0}, s, f, o;
    if (imarg_get(c, src_o, "src", 0, &s) < 0)
        return NULL;
    if (imarg_get(c, flow_o, "flow", 0, &f) < 0) {
        imarg_put(&s);
        return NULL;
    }
    if (ref_o && imarg_get(c, ref_o, "ref", 0, &r) < 0) {
        imarg_put(&s);
        imarg_put(&f);
        return NULL;
    }
    PyObject *res =
        out_get(c, out, &s, s.img.width, s.img.height, s.img.channels, s.img.type, s.ndim3, &o);
    if (!res) {
        imarg_put(&s);
        imarg_put(&f);
        if (ref_o)
            imarg_put(&r);
        return NULL;
    }
    clik_status st;
    if (ref_o)
        CALL(c, st, clik_flow_warp_average(c->ctx, &r.img, &s.img, &f.img, &o.img));
    else
        CALL(c, st, clik_flow_warp(c->ctx, &s.img, &f.img, &o.img));
    if (ref_o)
        imarg_put(&r);
    return done(c, st, res, &s, &f, &o);
}

PyObject *ctx_flow_warp(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "flow", "out", NULL};
    PyObject *src, *flow, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O", kwlist, &src, &flow, &out) ||
        ctx_open(c) < 0)
        return NULL;
    return warp_call(c, NULL, src, flow, out);
}

PyObject *ctx_flow_warp_average(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ref", "src", "flow", "out", NULL};
    PyObject *ref, *src, *flow, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O", kwlist, &ref, &src, &flow, &out) ||
        ctx_open(c) < 0)
        return NULL;
    return warp_call(c, ref, src, flow, out);
}

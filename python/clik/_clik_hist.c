/*
 * clik._clik: the histogram and integral families: hist_compute, hist_equalize,
 * hist_equalize_luma, clahe, hist_lut, integral.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>

/* Histogram family                                                          */

PyObject *ctx_hist_compute(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", NULL};
    PyObject *src;
    imarg a;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &src) || ctx_open(c) < 0 ||
        imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    Py_buffer hv;
    PyObject *r = array_new(a.img.channels, 256, CLIK_U32, &hv);
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    clik_status st;
    CALL(c, st, clik_hist_compute(c->ctx, &a.img, (uint32_t *)hv.buf));
    PyBuffer_Release(&hv);
    return done(c, st, r, &a, NULL, NULL);
}

UNARY_FN(do_equalize, clik_hist_equalize)

PyObject *ctx_hist_equalize(CtxObject *c, PyObject *args, PyObject *kw)
{
    return unary_method(c, args, kw, &(unary_op){.num = 1, .den = 1, .fn = do_equalize});
}

UNARY_FN(do_equalize_luma, clik_hist_equalize_luma)

PyObject *ctx_hist_equalize_luma(CtxObject *c, PyObject *args, PyObject *kw)
{
    return unary_order_method(c, args, kw, &(unary_op){.num = 1, .den = 1, .fn = do_equalize_luma});
}

typedef struct clahe_arg {
    double clip;
    int tiles_x, tiles_y;
} clahe_arg;

static clik_status do_clahe(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const clahe_arg *g = p;
    return clik_clahe(x, a, b, g->clip, g->tiles_x, g->tiles_y);
}

PyObject *ctx_clahe(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "clip", "grid", "out", "order", NULL};
    PyObject *src, *out = Py_None, *order_o = Py_None;
    clahe_arg g = {40.0, 8, 8};
    clik_order order;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|d(ii)O$O", kwlist, &src, &g.clip, &g.tiles_x,
                                     &g.tiles_y, &out, &order_o) ||
        order_arg(order_o, &order) < 0)
        return NULL;
    return unary(c, src, "src", out,
                 &(unary_op){.num = 1, .den = 1, .fn = do_clahe, .arg = &g, .order = &order});
}

static clik_status do_lut(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const Py_buffer *t = p;
    return clik_hist_lut(x, a, b, t->buf, (int)(t->len / 256));
}

PyObject *ctx_hist_lut(CtxObject *c, PyObject *args, PyObject *kw)
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
/* Integral family                                                           */

PyObject *ctx_integral(CtxObject *c, PyObject *args, PyObject *kw)
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
    PyObject *r = out_new(c, &a, w + 1, h + 1, ch, t, a.ndim3, &s), *r2 = NULL;
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    if (with_sq && !(r2 = out_second(c, &r, &s, &a, w + 1, h + 1, ch, qt, a.ndim3, &q)))
        return NULL;
    clik_status st;
    CALL(c, st, clik_integral(c->ctx, &a.img, &s.img, with_sq ? &q.img : NULL));
    return done_pair(c, st, r, r2, &a, &s, &q);
}

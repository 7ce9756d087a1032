/*
 * clik._clik: the pyramid, resize and filter families: pyr_down, pyr_up, the Gaussian
 * and Laplacian pyramids, collapse, resize, gaussian_blur, gray.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <string.h>

/* Pyramid family                                                            */

UNARY_FN(do_pyr_down, clik_pyr_down)
UNARY_FN(do_pyr_up, clik_pyr_up)

/* pyr_down and pyr_up: the output's sides halved or doubled. */
PyObject *ctx_pyr_down(CtxObject *c, PyObject *args, PyObject *kw)
{
    return unary_method(c, args, kw, &(unary_op){.num = 1, .den = 2, .fn = do_pyr_down});
}

PyObject *ctx_pyr_up(CtxObject *c, PyObject *args, PyObject *kw)
{
    return unary_method(c, args, kw, &(unary_op){.num = 2, .den = 1, .fn = do_pyr_up});
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
        arg_error("argument 'levels': 0..%d for a %d x %d image",
                  most < MAX_LEVELS - 1 ? most : MAX_LEVELS - 1, a->img.width, a->img.height);
        return -1;
    }
    return 0;
}

/* The end of a call that made a pyramid list: its n views released, then
 * done(); NULL (a released) when the list could not be made. */
static PyObject *pyramid_done(CtxObject *c, clik_status st, PyObject *list, imarg *a, imarg *views,
                              int n)
{
    if (!list) {
        imarg_put(a);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        imarg_put(&views[i]);
    return done(c, st, list, a, NULL, NULL);
}

PyObject *ctx_pyr_gaussian(CtxObject *c, PyObject *args, PyObject *kw)
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
    return pyramid_done(c, st, list, &a, views, levels);
}

PyObject *ctx_pyr_laplacian(CtxObject *c, PyObject *args, PyObject *kw)
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
    return pyramid_done(c, st, list, &a, views, levels + 1);
}

PyObject *ctx_pyr_collapse(CtxObject *c, PyObject *args, PyObject *kw)
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
        arg_error("argument 'bands': 1..%d bands", MAX_LEVELS);
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
/* Resize and filter families                                                */

int interp_of(const char *s, clik_interp *m)
{
    for (int i = CLIK_INTERP_NEAREST; i <= CLIK_INTERP_BICUBIC_AA; i++)
        if (!strcmp(s, clik_interp_name((clik_interp)i))) {
            *m = (clik_interp)i;
            return 0;
        }
    arg_error("argument 'method': 'nearest', 'bilinear', 'bicubic' or 'bicubic-aa', not '%s'", s);
    return -1;
}

typedef struct {
    clik_interp method;
    int scaled; /* scale= given: clik_resize_scaled (OpenCV's fx, fy) */
    double sx, sy;
} resize_arg;

static clik_status do_resize(clik_context *x, const clik_image *a, clik_image *b, const void *p)
{
    const resize_arg *r = p;
    if (r->scaled)
        return clik_resize_scaled(x, a, b, r->method, r->sx, r->sy);
    return clik_resize(x, a, b, r->method);
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
PyObject *ctx_resize(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "size", "scale", "method", "out", NULL};
    PyObject *src, *size = Py_None, *scale = Py_None, *out = Py_None;
    const char *method = "bicubic"; /* clik resize's default */
    resize_arg r = {0};
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
            arg_error("argument 'size': sides must be positive");
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
        r.scaled = 1;
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

PyObject *ctx_gaussian_blur(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "ksize", "sigma", "out", NULL};
    PyObject *src, *out = Py_None;
    blur_arg k = {0, 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|dO", kwlist, &src, &k.ksize, &k.sigma, &out))
        return NULL;
    return unary(c, src, "src", out, &(unary_op){.num = 1, .den = 1, .fn = do_blur, .arg = &k});
}

UNARY_FN(do_gray, clik_gray)

PyObject *ctx_gray(CtxObject *c, PyObject *args, PyObject *kw)
{
    const unary_op u = {.num = 1, .den = 1, .channels = 1, .flat = 1, .fn = do_gray};
    return unary_order_method(c, args, kw, &u);
}

/*
 * clik._clik: Device images and context memory: clik.Image, Context.empty, image, upload
 * and download; and the image arguments of every op (a clik.Image or an array through the
 * buffer protocol), their outputs and the end of a call.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <string.h>

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

PyObject *img_new(CtxObject *c, int w, int h, int ch, clik_type t, int ndim3)
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
    if (!ctx_adopt(c, st, (PyObject *)im, &im->owner))
        return NULL;
    return (PyObject *)im;
}

/* Memory: context host memory, device images, transfers                     */

/* Parses a shape (H, W) or (H, W, C) and a dtype. */
static int shape_dtype(PyObject *shape, PyObject *dtype, int *w, int *h, int *ch, int *ndim3,
                       clik_type *t)
{
    Py_ssize_t n = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
    if (n != 2 && n != 3) {
        arg_error("argument 'shape': a tuple (H, W) or (H, W, C)");
        return -1;
    }
    long v[3] = {0, 0, 1};
    for (Py_ssize_t i = 0; i < n; i++) {
        v[i] = PyLong_AsLong(PyTuple_GET_ITEM(shape, i));
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
        if (v[i] <= 0 || v[i] > INT_MAX) {
            arg_error("argument 'shape': sides must be positive");
            return -1;
        }
    }
    if (v[2] < 1 || v[2] > 4) {
        arg_error("argument 'shape': 1, 2, 3 or 4 channels");
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

/* The arguments (shape, dtype=uint8) of empty and image. */
static int shape_args(CtxObject *c, PyObject *args, PyObject *kw, int *w, int *h, int *ch,
                      int *ndim3, clik_type *t)
{
    static char *kwlist[] = {"shape", "dtype", NULL};
    PyObject *shape, *dtype = np_dtypes[CLIK_U8];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &shape, &dtype) || ctx_open(c) < 0)
        return -1;
    return shape_dtype(shape, dtype, w, h, ch, ndim3, t);
}

PyObject *ctx_empty(CtxObject *c, PyObject *args, PyObject *kw)
{
    int w, h, ch, ndim3;
    clik_type t;
    if (shape_args(c, args, kw, &w, &h, &ch, &ndim3, &t) < 0)
        return NULL;
    MemObject *m = PyObject_New(MemObject, &MemType);
    if (!m)
        return NULL;
    m->owner = NULL;
    memset(&m->img, 0, sizeof(m->img));
    clik_status st;
    CALL(c, st, clik_image_alloc_on(c->ctx, &m->img, w, h, ch, t));
    if (!ctx_adopt(c, st, (PyObject *)m, &m->owner))
        return NULL;
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

PyObject *ctx_image(CtxObject *c, PyObject *args, PyObject *kw)
{
    int w, h, ch, ndim3;
    clik_type t;
    if (shape_args(c, args, kw, &w, &h, &ch, &ndim3, &t) < 0)
        return NULL;
    return img_new(c, w, h, ch, t, ndim3);
}

PyObject *ctx_upload(CtxObject *c, PyObject *args, PyObject *kw)
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

PyObject *download(CtxObject *c, PyObject *src, PyObject *out)
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

PyObject *ctx_download(CtxObject *c, PyObject *args, PyObject *kw)
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
        arg_error("the clik.Image was freed");
        return NULL;
    }
    return download(im->owner, (PyObject *)im, out);
}

/* np.asarray(image): the pixels downloaded, as dtype when given; copy=False
 * is refused, as device memory is no array's buffer. */
static PyObject *img_array(ImgObject *im, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &dtype, &copy))
        return NULL;
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError,
                        "a clik.Image is in device memory: it cannot be viewed without a copy "
                        "(use image.download() or np.asarray(image))");
        return NULL;
    }
    if (!im->owner) {
        arg_error("the clik.Image was freed");
        return NULL;
    }
    PyObject *r = download(im->owner, (PyObject *)im, Py_None);
    if (!r || dtype == Py_None)
        return r;
    PyObject *cast = PyObject_CallMethod(r, "astype", "O", dtype);
    Py_DECREF(r);
    return cast;
}

static PyObject *img_upload(ImgObject *im, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", NULL};
    PyObject *src;
    imarg a;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &src))
        return NULL;
    if (!im->owner) {
        arg_error("the clik.Image was freed");
        return NULL;
    }
    CtxObject *c = im->owner;
    if (ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    clik_status st;
    CALL(c, st, clik_image_upload(c->ctx, &im->img, &a.img));
    imarg_put(&a);
    return ctx_none(c, st);
}

static PyObject *img_free(ImgObject *im, PyObject *unused)
{
    (void)unused;
    if (im->owner && in_callback(im->owner) &&
        refuse_in_callback("clik.Image.free()",
                           ", which may be using the image: free it after the call") < 0)
        return NULL;
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
/* Types                                                                    */

static PyMethodDef img_methods[] = {
    KW("download", img_download), KW("upload", img_upload),
    KW("__array__", img_array),   {"free", (PyCFunction)img_free, METH_NOARGS, DOC_img_free},
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

PyTypeObject ImgType = {
    TYPE_HEAD("clik.Image", ImgObject),
    .tp_doc = "An image in a context's device memory; made by Context.image or "
              "Context.upload.",
    .tp_dealloc = (destructor)img_dealloc,
    .tp_methods = img_methods,
    .tp_getset = img_getset,
    .tp_repr = (reprfunc)img_repr,
    .tp_weaklistoffset = offsetof(ImgObject, weakrefs),
};

PyTypeObject MemType = {
    TYPE_HEAD("clik._clik._Memory", MemObject),
    .tp_dealloc = (destructor)mem_dealloc,
    .tp_as_buffer = &mem_as_buffer,
};

/* ------------------------------------------------------------------------ */
/* Image arguments                                                           */

void imarg_put(imarg *a)
{
    if (a->has_view) {
        PyBuffer_Release(&a->view);
        a->has_view = 0;
    }
}

int imarg_get(CtxObject *c, PyObject *o, const char *name, int writable, imarg *a)
{
    memset(a, 0, sizeof(*a));
    if (PyObject_TypeCheck(o, &ImgType)) {
        ImgObject *im = (ImgObject *)o;
        if (!im->img.buffer && !im->img.data) {
            arg_error("argument '%s': the clik.Image was freed", name);
            return -1;
        }
        if (im->owner != c) {
            arg_error("argument '%s': a clik.Image of another context", name);
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
        arg_error("argument '%s': the array is not writable", name);
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
        arg_error("argument '%s': expected shape (H, W) or (H, W, C), got %d dimensions", name,
                  v->ndim);
        goto fail;
    }
    Py_ssize_t h = v->shape[0], w = v->shape[1], ch = v->ndim == 3 ? v->shape[2] : 1;
    if (ch < 1 || ch > 4) {
        arg_error("argument '%s': %zd channels; clik images have 1, 2, 3 or 4", name, ch);
        goto fail;
    }
    if (h <= 0 || w <= 0 || h > INT_MAX || w > INT_MAX) {
        arg_error("argument '%s': a %zd x %zd image", name, w, h);
        goto fail;
    }
    Py_ssize_t isz = v->itemsize, pix = ch * isz;
    if ((v->ndim == 3 && ch > 1 && v->strides[2] != isz) || (w > 1 && v->strides[1] != pix)) {
        arg_error("argument '%s': pixels are not packed (element strides %zd, %zd); pass "
                  "numpy.ascontiguousarray() of it",
                  name, v->strides[1], v->ndim == 3 ? v->strides[2] : isz);
        goto fail;
    }
    Py_ssize_t row = h == 1 ? w * pix : v->strides[0];
    if (row < w * pix || row % isz) {
        arg_error("argument '%s': row stride %zd (rows of %zd bytes) is not supported; pass "
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

/* Two image arguments (read): both taken, or neither (-1). */
int imarg_pair(CtxObject *c, PyObject *ao, const char *an, PyObject *bo, const char *bn, imarg *a,
               imarg *b)
{
    if (imarg_get(c, ao, an, 0, a) < 0)
        return -1;
    if (imarg_get(c, bo, bn, 0, b) < 0) {
        imarg_put(a);
        return -1;
    }
    return 0;
}

/* A new output of the kind of like (a clik.Image when like is one, else a
 * NumPy array), taken as argument out. */
PyObject *out_new(CtxObject *c, const imarg *like, int w, int h, int ch, clik_type t, int ndim3,
                  imarg *out)
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
PyObject *out_get(CtxObject *c, PyObject *given, const imarg *like, int w, int h, int ch,
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

/* A second output (out_new) beside r, the output of view o, of the op
 * of input a: on failure r, o and a are let go and NULL returned. */
PyObject *out_second(CtxObject *c, PyObject **r, imarg *o, imarg *a, int w, int h, int ch,
                     clik_type t, int ndim3, imarg *out)
{
    PyObject *r2 = out_new(c, a, w, h, ch, t, ndim3, out);
    if (!r2) {
        imarg_put(o);
        Py_CLEAR(*r);
        imarg_put(a);
    }
    return r2;
}

/* The end of an op of two outputs, r and r2 (r2 NULL: r alone) of views o
 * and o2: views released, (r, r2), r or the exception. */
PyObject *done_pair(CtxObject *c, clik_status st, PyObject *r, PyObject *r2, imarg *a, imarg *o,
                    imarg *o2)
{
    if (r2) {
        imarg_put(o2);
        if (st != CLIK_OK)
            Py_DECREF(r2);
        else
            r = Py_BuildValue("(NN)", r, r2);
    }
    return done(c, st, r, a, o, NULL);
}

/* The end of an op: views released, the result or the exception. */
PyObject *done(CtxObject *c, clik_status st, PyObject *result, imarg *a, imarg *b, imarg *d)
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

PyObject *unary(CtxObject *c, PyObject *src, const char *name, PyObject *out, const unary_op *u)
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
        arg_error("argument '%s': too large for the output", name);
        return NULL;
    }
    PyObject *r = out_get(c, out, &a, (int)w, (int)h, u->channels ? u->channels : a.img.channels,
                          u->type ? u->type : a.img.type, u->flat ? 0 : a.ndim3, &o);
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    if (u->check_out && (o.img.width != w || o.img.height != h)) {
        arg_error("argument 'out': %d x %d, the output is %lld x %lld", o.img.width, o.img.height,
                  w, h);
        imarg_put(&o);
        imarg_put(&a);
        Py_DECREF(r);
        return NULL;
    }
    if (u->order)
        a.img.order = *u->order;
    clik_status st;
    CALL(c, st, u->fn(c->ctx, &a.img, &o.img, u->arg));
    return done(c, st, r, &a, &o, NULL);
}

/* A method (src, out=None) of a unary op. */
PyObject *unary_method(CtxObject *c, PyObject *args, PyObject *kw, const unary_op *u)
{
    static char *kwlist[] = {"src", "out", NULL};
    PyObject *src, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &src, &out))
        return NULL;
    return unary(c, src, "src", out, u);
}

/* A method (src, out=None, *, order='bgr') of a unary colour op. */
PyObject *unary_order_method(CtxObject *c, PyObject *args, PyObject *kw, const unary_op *u)
{
    static char *kwlist[] = {"src", "out", "order", NULL};
    PyObject *src, *out = Py_None, *order_o = Py_None;
    clik_order order;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$O", kwlist, &src, &out, &order_o) ||
        order_arg(order_o, &order) < 0)
        return NULL;
    unary_op with = *u;
    with.order = &order;
    return unary(c, src, "src", out, &with);
}

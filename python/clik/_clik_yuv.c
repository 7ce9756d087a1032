/*
 * clik._clik: the YUV 4:2:0 family. Frames are (H * 3 / 2, W) uint8 arrays
 * as OpenCV stores them (cv2.cvtColor's COLOR_YUV2BGR_NV21 input and
 * COLOR_BGR2YUV_I420 output): Context.yuv_to_rgb, Context.rgb_to_yuv,
 * Context.yuv_resize, Context.yuv_upscale_lapar and Context.yuv_upscale_lapar_net.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "_clik_args.h"

/* A choice among names (the first when o is None or NULL): its index, or
 * -1 with ArgumentError. */
static int choice_arg(PyObject *o, const char *name, const char *const *names, int n)
{
    if (o == NULL || o == Py_None)
        return 0;
    const char *text = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    for (int i = 0; text && i < n; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    PyErr_Clear();
    arg_error("argument '%s': one of %s", name,
              n == 3 ? "'nv21', 'nv12', 'i420'"
                     : "'bt601', 'bt601-full', 'bt709', "
                       "'bt709-full'");
    return -1;
}

static int format_arg(PyObject *o, clik_yuv_format *f)
{
    static const char *const names[] = {"nv21", "nv12", "i420"};
    static const clik_yuv_format formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};
    const int i = choice_arg(o, "format", names, 3);
    if (i < 0)
        return -1;
    *f = formats[i];
    return 0;
}

static int space_arg(PyObject *o, clik_yuv_space *s)
{
    static const char *const names[] = {"bt601", "bt601-full", "bt709", "bt709-full"};
    const int i = choice_arg(o, "space", names, 4);
    if (i < 0)
        return -1;
    *s = (clik_yuv_space)i;
    return 0;
}

/* The frame of a (H * 3 / 2, W) uint8 host array a; -1 with an exception
 * set when a is not one. */
static int frame_of(const imarg *a, const char *name, clik_yuv_format format, clik_yuv_image *f)
{
    const clik_image *img = &a->img;
    if (a->device) {
        arg_error("argument '%s': a host array (a frame's planes on the device are clik.Image "
                  "planes of the C API's clik_yuv_image)",
                  name);
        return -1;
    }
    if (img->type != CLIK_U8 || img->channels != 1 || a->ndim3) {
        raise_status(CLIK_ERR_UNSUPPORTED_FORMAT, "a 4:2:0 frame is a 2-D uint8 array");
        return -1;
    }
    if (img->height % 3 != 0 || img->width % 2 != 0) {
        PyErr_Format(ArgumentError,
                     "argument '%s': a (H * 3 / 2, W) array with H and W even, not (%d, %d)", name,
                     img->height, img->width);
        return -1;
    }
    const clik_status st =
        clik_yuv_wrap(f, format, img->width, img->height / 3 * 2, img->data, img->stride);
    if (st != CLIK_OK) {
        raise_status(st, "the array is not a 4:2:0 frame of this format (stride)");
        return -1;
    }
    return 0;
}

/* The output frame of w x h pixels for a call on a: out (or a new array)
 * in o and its planes in g; NULL with an exception set, and a and o put
 * back, when out is not such a frame. */
static PyObject *out_frame(CtxObject *c, PyObject *out, imarg *a, int w, int h,
                           clik_yuv_format format, imarg *o, clik_yuv_image *g)
{
    PyObject *r = out_get(c, out, a, w, h / 2 * 3, 1, CLIK_U8, 0, o);
    if (!r) {
        imarg_put(a);
        return NULL;
    }
    if (frame_of(o, "out", format, g) < 0) {
        imarg_put(o);
        imarg_put(a);
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

PyObject *ctx_yuv_to_rgb(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"frame", "format", "out", "channels", "order", "space", NULL};
    PyObject *src, *format_o = Py_None, *out = Py_None, *order_o = Py_None, *space_o = Py_None;
    int channels = 3;
    clik_yuv_format format;
    clik_order order;
    clik_yuv_space space;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO$iOO", kwlist, &src, &format_o, &out, &channels,
                                     &order_o, &space_o) ||
        format_arg(format_o, &format) < 0 || order_arg(order_o, &order) < 0 ||
        space_arg(space_o, &space) < 0)
        return NULL;
    if (channels != 1 && channels != 3 && channels != 4)
        return arg_error("argument 'channels': 1, 3 or 4");
    imarg a, o;
    if (ctx_open(c) < 0 || imarg_get(c, src, "frame", 0, &a) < 0)
        return NULL;
    clik_yuv_image f;
    if (frame_of(&a, "frame", format, &f) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *r = out_get(c, out, &a, f.y.width, f.y.height, channels, CLIK_U8, channels > 1, &o);
    if (!r) {
        imarg_put(&a);
        return NULL;
    }
    o.img.order = order;
    clik_status st;
    CALL(c, st, clik_yuv_to_rgb(c->ctx, &f, &o.img, space));
    return done(c, st, r, &a, &o, NULL);
}

PyObject *ctx_rgb_to_yuv(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "format", "out", "order", "space", NULL};
    PyObject *src, *format_o = Py_None, *out = Py_None, *order_o = Py_None, *space_o = Py_None;
    clik_yuv_format format;
    clik_order order;
    clik_yuv_space space;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO$OO", kwlist, &src, &format_o, &out, &order_o,
                                     &space_o) ||
        format_arg(format_o, &format) < 0 || order_arg(order_o, &order) < 0 ||
        space_arg(space_o, &space) < 0)
        return NULL;
    imarg a, o;
    if (ctx_open(c) < 0 || imarg_get(c, src, "src", 0, &a) < 0)
        return NULL;
    const int w = a.img.width, h = a.img.height;
    if (w % 2 != 0 || h % 2 != 0) {
        imarg_put(&a);
        return raise_status(CLIK_ERR_INVALID_SIZE,
                            "src: a 4:2:0 frame's width and height are even");
    }
    clik_yuv_image f;
    PyObject *r = out_frame(c, out, &a, w, h, format, &o, &f);
    if (!r)
        return NULL;
    a.img.order = order;
    clik_status st;
    CALL(c, st, clik_rgb_to_yuv(c->ctx, &a.img, &f, space));
    return done(c, st, r, &a, &o, NULL);
}

/* A frame-to-frame call: frame src (a host array of format) into out (or
 * a new array) of w x h, by fn. */
typedef clik_status (*frame_fn)(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                const void *arg);

static PyObject *frame_to_frame(CtxObject *c, PyObject *src, PyObject *out, clik_yuv_format format,
                                int w, int h, frame_fn fn, const void *arg)
{
    if (w < 2 || h < 2 || w % 2 != 0 || h % 2 != 0)
        return raise_status(CLIK_ERR_INVALID_SIZE,
                            "a 4:2:0 frame's width and height are even, from 2");
    imarg a, o;
    if (ctx_open(c) < 0 || imarg_get(c, src, "frame", 0, &a) < 0)
        return NULL;
    clik_yuv_image f, g;
    if (frame_of(&a, "frame", format, &f) < 0) {
        imarg_put(&a);
        return NULL;
    }
    PyObject *r = out_frame(c, out, &a, w, h, format, &o, &g);
    if (!r)
        return NULL;
    clik_status st;
    CALL(c, st, fn(c->ctx, &f, &g, arg));
    return done(c, st, r, &a, &o, NULL);
}

static clik_status do_yuv_resize(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                 const void *arg)
{
    return clik_yuv_resize(ctx, f, g, *(const clik_interp *)arg);
}

PyObject *ctx_yuv_resize(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"frame", "size", "format", "method", "out", NULL};
    PyObject *src, *size, *format_o = Py_None, *out = Py_None;
    const char *method = "bilinear";
    clik_yuv_format format;
    clik_interp m;
    int w, h;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O$sO", kwlist, &src, &size, &format_o, &method,
                                     &out) ||
        format_arg(format_o, &format) < 0 || interp_of(method, &m) < 0 ||
        !PyArg_ParseTuple(size, "ii;argument 'size': (width, height)", &w, &h))
        return NULL;
    return frame_to_frame(c, src, out, format, w, h, do_yuv_resize, &m);
}

/* The rows and columns of a frame array (H * 3 / 2, W); 0, or -1 with
 * the error set. */
static int frame_shape(PyObject *src, int *rows, int *cols)
{
    PyObject *shape = PyObject_GetAttrString(src, "shape");
    if (!shape || !PyArg_ParseTuple(shape, "ii", rows, cols)) {
        Py_XDECREF(shape);
        PyErr_Clear();
        arg_error("argument 'frame': a (H * 3 / 2, W) uint8 array");
        return -1;
    }
    Py_DECREF(shape);
    return 0;
}

static clik_status do_yuv_upscale(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                  const void *arg)
{
    const model_call *m = arg;
    return clik_yuv_upscale_lapar(ctx, f, g, m->scale, m->model);
}

PyObject *ctx_yuv_upscale_lapar(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"frame", "scale", "format", "model", "out", NULL};
    PyObject *src, *format_o = Py_None, *model_o = Py_None, *out = Py_None;
    model_call u = {2, NULL};
    clik_yuv_format format;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iO$OO", kwlist, &src, &u.scale, &format_o,
                                     &model_o, &out) ||
        format_arg(format_o, &format) < 0 || model_arg(model_o, "model", &u.model) < 0 ||
        scale_range(u.scale, 2, 4) < 0)
        return NULL;
    int rows = 0, cols = 0;
    if (frame_shape(src, &rows, &cols) < 0)
        return NULL;
    return frame_to_frame(c, src, out, format, cols * u.scale, rows / 3 * 2 * u.scale,
                          do_yuv_upscale, &u);
}

static clik_status do_yuv_upscale_net(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                      const void *arg)
{
    return clik_yuv_upscale_lapar_net(ctx, f, g, arg);
}

PyObject *ctx_yuv_upscale_lapar_net(CtxObject *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"frame", "net", "scale", "format", "out", NULL};
    PyObject *src, *no = NULL, *format_o = Py_None, *out = Py_None;
    int scale = 2, owned = 0, rows = 0, cols = 0;
    clik_yuv_format format;
    clik_lapar_net *net = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OiO$O", kwlist, &src, &no, &scale, &format_o,
                                     &out) ||
        ctx_open(c) < 0 || format_arg(format_o, &format) < 0 || scale_range(scale, 2, 4) < 0 ||
        frame_shape(src, &rows, &cols) < 0 || net_arg(c, no, scale, &net, &owned) < 0)
        return NULL;
    PyObject *r = frame_to_frame(c, src, out, format, cols * scale, rows / 3 * 2 * scale,
                                 do_yuv_upscale_net, net);
    if (owned)
        clik_lapar_net_free(net);
    return r;
}

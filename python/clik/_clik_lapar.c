/*
 * clik._clik: LAPAR filtering: the upsample, the filter by a dictionary, its work-group
 * tuning and the dictionary's compression.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "_clik_args.h"

#include <limits.h>
#include <string.h>

float default_dict[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];

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
            arg_error("argument 'dictionary': shape (L, 25), L 1..128");
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
            arg_error("argument 'selection': 1..128 indices, as many gammas");
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
            arg_error("argument 'selection': mix of shape (kept, atoms)");
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

PyObject *ctx_lapar_upsample(CtxObject *c, PyObject *args, PyObject *kw)
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

PyObject *ctx_lapar_filter(CtxObject *c, PyObject *args, PyObject *kw)
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

PyObject *ctx_lapar_tune(CtxObject *c, PyObject *args, PyObject *kw)
{
    return lapar_tuning(c, args, kw, 1);
}

PyObject *ctx_lapar_tuning_get(CtxObject *c, PyObject *args, PyObject *kw)
{
    return lapar_tuning(c, args, kw, 0);
}

PyObject *ctx_lapar_tuning_set(CtxObject *c, PyObject *args, PyObject *kw)
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
        arg_error("argument 'tuning': a dict with variant ('upsampled', 'local' or "
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
    return ctx_none(c, st);
}

PyObject *ctx_lapar_compress(CtxObject *c, PyObject *args, PyObject *kw)
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
        arg_error("argument 'calib': 1..64 images");
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

/* clik.lapar_dict_default(). */
PyObject *mod_lapar_dict_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return f32_array(default_dict, CLIK_LAPAR_ATOMS, CLIK_LAPAR_TAPS);
}

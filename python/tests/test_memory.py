"""Reference counts and memory: many calls leave the reference counts of
their arguments as they were, and neither Python's traced memory nor the
process's resident size grows past a small bound after a warm-up; failing
calls leak nothing either; Images, models, trainers, streams and contexts
are freed when dropped. (Speed is never asserted here.)"""
import gc
import os
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import clik
from conftest import edges, noise, selected_backends, smooth

FULL = os.environ.get("CLIK_TEST_FULL") == "1"
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss():
    """The process's resident size in bytes (/proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


# Most tests here run on the scalar context whatever backends are chosen:
# they run where the scalar backend is selected (the CPU backends' suite),
# not once more per OpenCL device; test_op_loop_on_every_backend and
# test_images_freed run on each selected backend.
SCALAR_REASON = "runs on the scalar context: with CLIK_PY_BACKEND including scalar"
scalar_context = pytest.mark.skipif("scalar" not in selected_backends(), reason=SCALAR_REASON)


@pytest.fixture(scope="module")
def ctx():
    if "scalar" not in selected_backends():
        pytest.skip(SCALAR_REASON)
    c = clik.Context(device="none", cpu_path="scalar")
    yield c
    c.close()


def growth(fn, n, warm=200):
    """Runs fn warm times, then n times; returns (Python memory still
    traced after the n calls, growth of the resident size) in bytes."""
    for _ in range(warm):
        fn()
    gc.collect()
    r0 = rss()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            fn()
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return traced, rss() - r0


def refcounts(objs):
    return [sys.getrefcount(o) for o in objs]


def test_equalize_loop_no_growth(ctx):
    """10^4 equalizations of a 16x16 image on the scalar context."""
    src = noise((16, 16), seed=1)
    out = np.empty_like(src)
    u8 = np.dtype(np.uint8)
    counts = refcounts([src, out, ctx, u8])

    def call():
        ctx.hist_equalize(src)
        ctx.hist_equalize(src, out=out)

    traced, grown = growth(call, 10_000 // 2)
    assert refcounts([src, out, ctx]) == counts[:3]
    assert abs(sys.getrefcount(u8) - counts[3]) < 50, "a reference to the dtype per call"
    assert traced < 64 * 1024, f"{traced} bytes of Python memory kept by 10^4 calls"
    assert grown < 2 << 20, f"resident size grew by {grown} bytes"
    r = ctx.hist_equalize(src)
    assert sys.getrefcount(r) == 2, "the package keeps a reference to its result"


def test_bigger_outputs_loop_no_growth(ctx):
    """Allocated 128x128 results, dropped: a leak of each would be 16 KiB."""
    src = noise((128, 128), seed=2)
    traced, grown = growth(lambda: ctx.gaussian_blur(src, 3), 3000, warm=100)
    assert traced < 64 * 1024, traced
    assert grown < 8 << 20, f"resident size grew by {grown} bytes"


def test_op_loop_on_every_backend(be):
    """An op on each backend, many times: no growth."""
    n = 10_000 if FULL else (2000 if not be.opencl else 1000)
    src = edges((16, 16, 4), seed=3)
    out = np.empty((8, 8, 4), np.uint8)
    counts = refcounts([src, out, be.ctx])

    def call():
        be.ctx.pyr_down(src, out=out)

    traced, grown = growth(call, n)
    assert be.ctx.last_backend == be.name
    assert refcounts([src, out, be.ctx]) == counts
    assert traced < 64 * 1024, traced
    assert grown < 4 << 20, f"resident size grew by {grown} bytes on {be.name}"
    img = be.upload(src)
    dst = be.image((8, 8, 4))
    counts = refcounts([img, dst])
    traced, grown = growth(lambda: be.ctx.pyr_down(img, out=dst), n // 2)
    assert refcounts([img, dst]) == counts
    assert traced < 64 * 1024, traced
    assert grown < 4 << 20, f"resident size grew by {grown} bytes with Images on {be.name}"


def _ref_cases():
    """(name, method, args, kwargs) of calls whose arguments' reference
    counts are checked."""
    rgba = edges((20, 24, 4), seed=4)
    grey = smooth((20, 24), seed=5)
    grey2 = smooth((20, 24), seed=6)
    lut = np.arange(256, dtype=np.uint8)[::-1].copy()
    tables = np.zeros((4, 256), np.uint8)
    lr = smooth((6, 7, 4), np.float32, seed=7)
    phi = np.ones((72 * 12, 14), np.float32) / 72
    d = clik.lapar_dict_default()
    sel = clik.LaparSelection(72, [1, 5, 9], [1.0, 0.5, 0.25])
    kept = np.ones((3 * 12, 14), np.float32)
    up = smooth((12, 14), np.float32, seed=8)
    model = clik.lapar_model_default()
    bands_src = edges((20, 24), seed=9)
    i0 = smooth((20, 24), seed=10)
    flow0 = np.zeros((20, 24, 2), np.float32)
    calib = [(np.ones((72 * 12, 14), np.float32), up, up.copy())]
    frames = [rgba, rgba.copy()]
    return [
        ("hist_compute", "hist_compute", (rgba,), {}),
        ("hist_equalize", "hist_equalize", (rgba,), {"out": rgba.copy()}),
        ("hist_lut", "hist_lut", (rgba, lut), {}),
        ("lut-tables", "hist_lut", (rgba, tables), {}),
        ("pyr_down", "pyr_down", (rgba,), {}),
        ("pyr_up", "pyr_up", (rgba,), {}),
        ("pyr_gaussian", "pyr_gaussian", (rgba, 2), {}),
        ("pyr_laplacian", "pyr_laplacian", (bands_src, 2), {"dtype": np.float32}),
        ("integral", "integral", (grey, np.uint64), {"sqsum": True}),
        ("resize", "resize", (rgba, (30, 11)), {"method": "bicubic"}),
        ("resize-scale", "resize", (rgba,), {"scale": (1.5, 0.5)}),
        ("blur", "gaussian_blur", (rgba, 5), {}),
        ("gray", "gray", (rgba,), {}),
        ("ssim", "ssim", (grey, grey2), {"full": True}),
        ("ssim_tiles", "ssim_tiles", (grey, grey2, 4), {}),
        ("fusion", "upscale_fusion", (rgba, 2), {"artifact_map": True}),
        ("flow", "flow_tvl1", (i0, grey),
         {"initial": flow0, "scales": 1, "warps": 1, "iterations": 10}),
        ("lapar_upsample", "lapar_upsample", (lr, 2), {}),
        ("lapar_filter", "lapar_filter", (lr, phi, 2), {"dictionary": d}),
        ("lapar_filter-sel", "lapar_filter", (lr, kept, 2), {"selection": sel}),
        ("lapar_classify", "lapar_classify", (up, 2), {"model": model}),
        ("upscale_lapar", "upscale_lapar", (rgba, 2, model), {}),
        ("lapar_compress", "lapar_compress", (calib, 0.05), {"samples": 64, "refit_samples": 32}),
        ("model_write", "lapar_model_write", (model,), {}),
        ("model_describe", "lapar_model_describe", (model, 3), {}),
        ("fusion_stream", "fusion_stream", (frames, 2), {}),
    ]


REF_CASES = _ref_cases()


@pytest.mark.parametrize("name,method,args,kwargs", REF_CASES, ids=[c[0] for c in REF_CASES])
def test_argument_reference_counts(ctx, name, method, args, kwargs):
    """Each op, 20 times: its arguments' reference counts are unchanged
    (also of the objects inside list arguments), and its results are not
    held by the package."""
    f = getattr(ctx, method)
    objs = [o for o in list(args) + list(kwargs.values()) if not isinstance(o, (int, float, str))]
    for o in list(objs):
        if isinstance(o, list):
            for item in o:
                objs.extend(item if isinstance(item, tuple) else [item])
    result = f(*args, **kwargs)
    if method == "fusion_stream":
        result = list(result)
    del result
    gc.collect()
    counts = refcounts(objs)
    for _ in range(3 if method == "lapar_compress" else 20):
        r = f(*args, **kwargs)
        if method == "fusion_stream":
            r = list(r)
        del r
    gc.collect()
    assert refcounts(objs) == counts, f"{name}: reference counts {counts} -> {refcounts(objs)}"
    r = f(*args, **kwargs)
    if isinstance(r, np.ndarray) and "out" not in kwargs:
        assert sys.getrefcount(r) == 2, f"{name}: the result has another reference"


def test_failing_calls_leak_nothing(ctx):
    """Calls that fail (library errors, bad types, bad shapes), 10^4 in all."""
    src = noise((16, 16), seed=11)
    wrong = np.empty((16, 15), np.uint8)
    i8 = np.zeros((16, 16), np.int8)
    five = np.zeros((16, 16, 5), np.uint8)
    garbage = b"not a model" * 10
    counts = refcounts([src, wrong, i8, five, garbage, ctx])

    def call():
        for f, args, kw, exc in (
            (ctx.hist_equalize, (src,), {"out": wrong}, clik.Error),
            (ctx.hist_equalize, (i8,), {}, TypeError),
            (ctx.hist_equalize, (five,), {}, ValueError),
            (ctx.gaussian_blur, (src, 4), {}, clik.Error),
            (ctx.lapar_model_read, (garbage,), {}, clik.Error),
        ):
            try:
                f(*args, **kw)
            except exc:
                pass
            else:
                raise AssertionError(f"{f.__name__} did not fail")

    traced, grown = growth(call, (10_000 if FULL else 4000) // 5)
    assert refcounts([src, wrong, i8, five, garbage, ctx]) == counts
    assert traced < 64 * 1024, traced
    assert grown < 2 << 20, f"resident size grew by {grown} bytes"


def test_images_freed(be):
    """Images of 1 MiB made and dropped (or freed) many times."""
    src = noise((512, 512, 4), seed=12)

    def drop():
        be.upload(src)

    def free():
        img = be.image((512, 512, 4))
        img.upload(src)
        img.free()

    for fn in (drop, free):
        traced, grown = growth(fn, 100, warm=10)
        assert grown < 24 << 20, f"{fn.__name__}: resident size grew by {grown} bytes"
    img = be.upload(src)
    ref = weakref.ref(img)
    del img
    gc.collect()
    assert ref() is None, "an Image outlives its last reference"


@scalar_context
def test_images_outlive_context_safely():
    """An Image keeps what it needs: dropping the context first is safe."""
    c = clik.Context(device="none", cpu_path="scalar")
    img = c.upload(noise((64, 64), seed=13))
    del c
    gc.collect()
    try:
        img.download()
    except Exception:
        pass  # raising is allowed; crashing is not
    del img
    gc.collect()


@scalar_context
def test_empty_arrays_outlive_their_context():
    """Context memory (ctx.empty()) stays valid after the context is closed
    and dropped: the array keeps what it needs."""
    c = clik.Context(device="none", cpu_path="scalar")
    a = c.empty((64, 64, 4))
    a[...] = 7
    c.close()
    a[...] += 2
    del c
    gc.collect()
    assert np.all(a == 9)
    a[...] = 3
    assert int(a.sum()) == 3 * a.size


def test_models_and_trainers_freed(ctx):
    data = ctx.lapar_model_write(clik.lapar_model_default())
    traced, grown = growth(lambda: ctx.lapar_model_read(data), 300, warm=20)
    assert traced < 64 * 1024, traced
    assert grown < 8 << 20, f"models: resident size grew by {grown} bytes ({len(data)}-byte model)"
    # a trainer holds the normal equations of every bucket (hundreds of KiB)
    traced, grown = growth(lambda: ctx.lapar_trainer(), 200, warm=5)
    assert grown < 16 << 20, f"trainers: resident size grew by {grown} bytes"
    hr = smooth((24, 24), seed=14)

    def trained():
        t = ctx.lapar_trainer(angles=2, strengths=1, coherences=1, min_samples=4)
        t.add(hr)
        t.solve()

    traced, grown = growth(trained, 100, warm=5)
    assert traced < 64 * 1024, traced
    assert grown < 8 << 20, f"trained models: resident size grew by {grown} bytes"


def test_streams_freed(ctx):
    """fusion_stream generators run to the end or abandoned midway."""
    frames = [edges((16, 16, 4), seed=15 + i) for i in range(4)]
    counts = refcounts(frames)

    def whole():
        for _ in ctx.fusion_stream(frames, 2):
            pass

    def abandoned():
        g = ctx.fusion_stream(iter(frames), 2, depth=2)
        next(g)
        del g

    for fn in (whole, abandoned):
        traced, grown = growth(fn, 300, warm=10)
        assert traced < 64 * 1024, f"{fn.__name__}: {traced}"
        assert grown < 4 << 20, f"{fn.__name__}: resident size grew by {grown} bytes"
    gc.collect()
    assert refcounts(frames) == counts
    # the context works after an abandoned stream
    assert ctx.hist_equalize(noise((4, 4))).shape == (4, 4)


@scalar_context
def test_contexts_freed():
    def closed():
        with clik.Context(device="none", cpu_path="scalar") as c:
            c.hist_equalize(noise((8, 8)))

    def dropped():
        c = clik.Context(device="none", cpu_path="scalar")
        c.hist_equalize(noise((8, 8)))

    for fn in (closed, dropped):
        traced, grown = growth(fn, 300, warm=10)
        assert traced < 64 * 1024, f"{fn.__name__}: {traced}"
        assert grown < 4 << 20, f"{fn.__name__}: resident size grew by {grown} bytes"

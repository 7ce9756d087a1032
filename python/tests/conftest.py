"""Shared fixtures and helpers of the clik package's tests.

Backends: "opencl" (the default OpenCL device, or the one CLIK_PY_DEVICE
(else CLIK_TEST_DEVICE) names, in a strict context so that nothing falls back silently), "scalar"
and "neon" (the CPU paths, without a device). CLIK_PY_BACKEND (a comma
list) restricts the backends run. The oracle is the scalar path through the
package: Context(device="none", cpu_path="scalar").

Tests marked `slow` run only with CLIK_TEST_FULL=1.
"""
import os

import numpy as np
import pytest

import clik

BACKENDS = ("opencl", "scalar", "neon")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running; runs only with CLIK_TEST_FULL=1")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("CLIK_TEST_FULL") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set CLIK_TEST_FULL=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def selected_backends():
    """The backends CLIK_PY_BACKEND allows (all when unset)."""
    env = os.environ.get("CLIK_PY_BACKEND", "").strip()
    if not env:
        return set(BACKENDS)
    chosen = {b.strip() for b in env.split(",") if b.strip()}
    unknown = chosen - set(BACKENDS)
    if unknown:
        raise pytest.UsageError(f"CLIK_PY_BACKEND: unknown backend(s) {sorted(unknown)}; "
                                f"known: {', '.join(BACKENDS)}")
    return chosen


def opencl_device_spec():
    """CLIK_PY_DEVICE, else CLIK_TEST_DEVICE (the C suites' variable), else
    None: the default device."""
    return os.environ.get("CLIK_PY_DEVICE") or os.environ.get("CLIK_TEST_DEVICE") or None


def skip_reason(backend):
    """Why a backend cannot run here, or None when it can."""
    if backend not in selected_backends():
        return f"backend {backend} not selected by CLIK_PY_BACKEND"
    if backend == "opencl":
        if not clik.devices():
            return "no OpenCL device"
        spec = opencl_device_spec()
        if spec is not None:
            try:
                if clik.select_device(spec) is None:
                    return f"CLIK_PY_DEVICE={spec} selects no OpenCL device"
            except clik.Error as e:
                return f"CLIK_PY_DEVICE={spec}: {e}"
    if backend == "neon" and not clik.cpu_path_available("neon"):
        return "the NEON path is not built in"
    return None


def make_context(backend, **options):
    """A new context of the backend (the caller closes it)."""
    if backend == "opencl":
        return clik.Context(opencl_device_spec(), strict=True, **options)
    return clik.Context(device="none", cpu_path=backend, **options)


class Backend:
    """A context of one backend. Attribute access gives the context's
    methods; those that run an operation check afterwards that it ran on
    this backend (ctx.last_backend)."""

    # Methods that run an operation (and so set last_backend).
    OPS = frozenset("""hist_compute hist_equalize hist_equalize_luma clahe hist_lut pyr_down pyr_up
        pyr_gaussian pyr_laplacian pyr_collapse integral resize gaussian_blur gray ssim ssim_tiles
        upscale_fusion flow_tvl1 lapar_upsample lapar_filter lapar_classify upscale_lapar
        upscale yuv_to_rgb rgb_to_yuv yuv_resize yuv_upscale_lapar yuv_upscale_lapar_net""".split())

    def __init__(self, name, ctx):
        self.name = name
        self.ctx = ctx

    def __repr__(self):
        return f"Backend({self.name})"

    @property
    def opencl(self):
        return self.name == "opencl"

    def __getattr__(self, attr):
        value = getattr(self.ctx, attr)
        if attr not in self.OPS:
            return value

        def op(*args, **kwargs):
            result = value(*args, **kwargs)
            assert self.ctx.last_backend == self.name, (
                f"{attr} ran on {self.ctx.last_backend}, not on {self.name}")
            return result

        return op


_contexts = {}


@pytest.fixture(scope="session", params=BACKENDS)
def be(request):
    """Each backend present, as a Backend (one context per session)."""
    name = request.param
    why = skip_reason(name)
    if why:
        pytest.skip(why)
    if name not in _contexts:
        _contexts[name] = make_context(name)
    return Backend(name, _contexts[name])


@pytest.fixture(scope="session")
def oracle():
    """The scalar oracle, through the package."""
    ctx = clik.Context(device="none", cpu_path="scalar")
    yield ctx
    ctx.close()


def pytest_sessionfinish(session, exitstatus):
    for ctx in _contexts.values():
        ctx.close()
    _contexts.clear()


# ---- images ---------------------------------------------------------------------------------


def shape_of(h, w, ch):
    """(H, W) for one channel, else (H, W, C)."""
    return (h, w) if ch == 1 else (h, w, ch)


def noise(shape, dtype=np.uint8, seed=0):
    """Seeded noise: u8 over 0..255, floats over [0, 255)."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return (rng.random(shape) * 255.0).astype(dtype)


def smooth(shape, dtype=np.uint8, seed=0):
    """A smooth random field on 0..255 (bilinear interpolation of a coarse
    random grid): the kind of content where interpolations differ little."""
    rng = np.random.default_rng(seed)
    h, w = shape[:2]
    ch = shape[2] if len(shape) == 3 else 1
    cell = 8
    grid = rng.random((h // cell + 2, w // cell + 2, ch))
    ys = np.arange(h) / cell
    xs = np.arange(w) / cell
    y0 = np.floor(ys).astype(int)
    x0 = np.floor(xs).astype(int)
    fy = (ys - y0)[:, None, None]
    fx = (xs - x0)[None, :, None]
    g = (grid[y0][:, x0] * (1 - fy) * (1 - fx) + grid[y0 + 1][:, x0] * fy * (1 - fx)
         + grid[y0][:, x0 + 1] * (1 - fy) * fx + grid[y0 + 1][:, x0 + 1] * fy * fx)
    g = g * 255.0
    if len(shape) == 2:
        g = g[:, :, 0]
    if np.dtype(dtype) == np.uint8:
        return np.ascontiguousarray(np.clip(np.rint(g), 0, 255).astype(np.uint8))
    return np.ascontiguousarray(g.astype(dtype))


def edges(shape, dtype=np.uint8, seed=0):
    """Rectangles of random values over a random background: sharp edges."""
    rng = np.random.default_rng(seed)
    h, w = shape[:2]
    ch = shape[2] if len(shape) == 3 else 1
    img = np.empty((h, w, ch))
    img[:] = rng.random(ch)
    for _ in range(12):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        x1 = x0 + 1 + rng.integers(0, max(1, w // 2))
        y1 = y0 + 1 + rng.integers(0, max(1, h // 2))
        img[y0:y1, x0:x1] = rng.random(ch)
    img *= 255.0
    if len(shape) == 2:
        img = img[:, :, 0]
    if np.dtype(dtype) == np.uint8:
        return np.ascontiguousarray(np.rint(img).astype(np.uint8))
    return np.ascontiguousarray(img.astype(dtype))


def strided_copy(a, pad=5):
    """a's values in a view whose rows are padded (row-strided, pixels packed)."""
    big = np.zeros((a.shape[0], a.shape[1] + pad) + a.shape[2:], a.dtype)
    big[:, pad:] = a
    view = big[:, pad:]
    assert not view.flags.c_contiguous or a.shape[0] == 1
    return view


# ---- tolerance classes (apps/support/compare.h) ----------------------------------------------------


def _same_layout(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape}, expected {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype}, expected {want.dtype}"
    return got, want


def _where(mask):
    idx = np.argwhere(mask)
    return tuple(idx[0]) if len(idx) else None


def assert_exact(got, want, what=""):
    """EXACT: bit-identical."""
    got, want = _same_layout(got, want)
    if got.dtype.kind == "f":
        same = (got == want) | (np.isnan(got) & np.isnan(want))
    else:
        same = got == want
    if not same.all():
        at = _where(~same)
        raise AssertionError(f"{what}: {np.count_nonzero(~same)} of {got.size} elements differ, "
                             f"first at {at}: {got[at]} vs {want[at]}")


def assert_u8_float(got, want, what=""):
    """U8-FLOAT: max |diff| <= 1 and at least 99.9 % identical."""
    got, want = _same_layout(got, want)
    d = np.abs(got.astype(np.int64) - want.astype(np.int64))
    differ = np.count_nonzero(d)
    assert d.max(initial=0) <= 1, f"{what}: max |diff| {d.max()} at {_where(d > 1)}"
    assert differ <= 0.001 * d.size, f"{what}: {differ} of {d.size} elements differ"


def f32_excess(got, want, rel=1e-4):
    """Elements beyond |a - b| <= rel * max(1, |b|) (NaN only against NaN)."""
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.abs(got - want)
        bad = d > rel * np.maximum(1.0, np.abs(want))
    bad |= np.isnan(got) != np.isnan(want)
    bad &= ~(np.isnan(got) & np.isnan(want))
    return bad


def assert_f32(got, want, what="", rel=1e-4):
    """F32: |a - b| <= 1e-4 * max(1, |b|) per element."""
    got, want = _same_layout(got, want)
    bad = f32_excess(got, want, rel)
    if bad.any():
        at = _where(bad)
        raise AssertionError(f"{what}: {np.count_nonzero(bad)} of {got.size} elements beyond "
                             f"F32, first at {at}: {got[at]!r} vs {want[at]!r}")


def assert_ssim_map(got, want, what=""):
    """SSIM maps: |a - b| <= 5e-4 per element."""
    got, want = _same_layout(got, want)
    d = np.abs(got.astype(np.float64) - want)
    assert d.max(initial=0) <= 5e-4, f"{what}: max |diff| {d.max()} at {_where(d > 5e-4)}"


def assert_fusion(got, want, what=""):
    """FUSION: >= 99.9 % of elements within +-1, >= 99 % identical."""
    got, want = _same_layout(got, want)
    d = np.abs(got.astype(np.int64) - want.astype(np.int64))
    over = np.count_nonzero(d > 1)
    differ = np.count_nonzero(d)
    assert over <= 0.001 * d.size, f"{what}: {over} of {d.size} elements beyond +-1"
    assert differ <= 0.01 * d.size, f"{what}: {differ} of {d.size} elements differ"


def assert_buckets(got, want, what=""):
    """BUCKETS: >= 99.9 % identical."""
    got, want = _same_layout(got, want)
    differ = np.count_nonzero(got != want)
    assert differ <= 0.001 * got.size, f"{what}: {differ} of {got.size} buckets differ"


def assert_model_f32(got, want, what=""):
    """MODEL-F32: >= 99.9 % of elements within F32's bound."""
    got, want = _same_layout(got, want)
    bad = np.count_nonzero(f32_excess(got, want))
    assert bad <= 0.001 * got.size, f"{what}: {bad} of {got.size} elements beyond F32"


def mean_epe(a, b):
    d = a.astype(np.float64) - b.astype(np.float64)
    return float(np.mean(np.hypot(d[..., 0], d[..., 1])))


def assert_flow(got, want, what="", f16=False):
    """FLOW: mean end-point difference <= 0.01 px (FLOW-F16: plus 2^-9 of
    the oracle's mean motion)."""
    got, want = _same_layout(got, want)
    limit = 0.01
    if f16:
        limit += float(np.mean(np.hypot(want[..., 0], want[..., 1]))) / 512.0
    e = mean_epe(got, want)
    assert e <= limit, f"{what}: mean EPE {e:.5f} px against the oracle, limit {limit:.4g}"


def assert_tol(got, want, tol, what=""):
    """Compares by tolerance class name."""
    {
        "EXACT": assert_exact,
        "U8-FLOAT": assert_u8_float,
        "F32": assert_f32,
        "SSIM": assert_ssim_map,
        "FUSION": assert_fusion,
        "BUCKETS": assert_buckets,
        "MODEL-F32": assert_model_f32,
        "FLOW": assert_flow,
    }[tol](got, want, what)


def float_tol(dtype, u8="U8-FLOAT"):
    """The class of an op of float arithmetic: u8 given, F32 for floats."""
    return u8 if np.dtype(dtype) == np.uint8 else "F32"

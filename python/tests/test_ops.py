"""Every public function and method of the clik package, on every backend
present (OpenCL strict, scalar, NEON), against the scalar oracle through
the package, under each op's tolerance class (apps/support/compare.h):
EXACT for the integer ops (hist, equalize, lut, u8 pyramids, integral,
nearest resize, u8 gray), U8-FLOAT for float arithmetic rounded to u8
(blur, bilinear and bicubic resize, LAPAR filter), F32 for float outputs,
SSIM (5e-4) for SSIM maps, FUSION for the fusion upscaler and the LAPAR
model's u8 upscale, BUCKETS for its classification, FLOW for TV-L1.
"""
import os
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import clik
from conftest import (
    assert_buckets,
    assert_exact,
    assert_f32,
    assert_flow,
    assert_fusion,
    assert_model_f32,
    assert_ssim_map,
    assert_tol,
    assert_u8_float,
    edges,
    float_tol,
    make_context,
    noise,
    opencl_device_spec,
    shape_of,
    smooth,
    strided_copy,
)

H, W = 23, 37  # an odd size, a multiple of no vector width
CH124 = (1, 2, 4)
CH14 = (1, 4)


def channels_of(a):
    return 1 if a.ndim == 2 else a.shape[2]


# ---- module functions --------------------------------------------------------------------------


def test_version():
    v = clik.version()
    assert isinstance(v, str)
    parts = v.split(".")
    assert len(parts) == 3 and all(p.isdigit() for p in parts), v
    assert isinstance(clik.__version__, str) and clik.__version__


def test_constants():
    assert clik.LAPAR_TAPS == 25
    assert clik.LAPAR_ATOMS == 72
    assert clik.BLUR_MAX_KSIZE == 31
    assert clik.SSIM_WINDOW == 11
    assert clik.FLOW_MAX_SCALES == 100


def test_devices_and_selection():
    devs = clik.devices()
    assert isinstance(devs, list)
    for d in devs:
        assert isinstance(d, dict)
        assert isinstance(d["name"], str) and d["name"]
        assert isinstance(d["platform"], str)
    assert clik.select_device("none") is None
    auto = clik.select_device("auto")
    if devs:
        assert isinstance(auto, int) and 0 <= auto < len(devs)
        assert clik.select_device("0:0") == 0
        # a device's own name selects it (the first device of that name)
        name = devs[-1]["name"]
        idx = clik.select_device(name)
        assert devs[idx]["name"].lower().find(name.lower()) >= 0 or \
            devs[idx]["platform"].lower().find(name.lower()) >= 0
    else:
        assert auto is None
    with pytest.raises(clik.Error) as e:
        clik.select_device("no-such-device-anywhere")
    assert e.value.status == "CLIK_ERR_NO_DEVICE"


def test_opencl_library():
    lib = clik.opencl_library()
    assert lib is None or (isinstance(lib, str) and lib)
    if clik.devices():
        assert lib, "devices are listed, but no OpenCL library is named"


def test_cpu_path_available():
    assert clik.cpu_path_available("scalar") is True
    assert clik.cpu_path_available("auto") is True
    assert clik.cpu_path_available("neon") in (True, False)


def test_devices_printed_names_pocl():
    """`python3 -c "import clik; print(clik.devices())"` names PoCL where
    PoCL is installed."""
    vendors = "/etc/OpenCL/vendors"
    icds = os.listdir(vendors) if os.path.isdir(vendors) else []
    if not any("pocl" in f.lower() for f in icds):
        pytest.skip("PoCL is not installed (no pocl ICD in /etc/OpenCL/vendors)")
    run = subprocess.run([sys.executable, "-c", "import clik; print(clik.devices())"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "pocl" in run.stdout.lower(), run.stdout


def level_sizes(w, h, n):
    out = [(w, h)]
    for _ in range(n):
        w, h = (w + 1) // 2, (h + 1) // 2
        out.append((w, h))
    return out


def test_pyr_level_size_and_max_levels():
    for w, h in [(1, 1), (2, 3), (37, 23), (640, 480), (1921, 1081)]:
        sizes = level_sizes(w, h, 12)
        for level in range(6):
            assert clik.pyr_level_size(w, h, level) == sizes[level]
        n = 0
        while sizes[n] != (1, 1):
            n += 1
        assert clik.pyr_max_levels(w, h) == n


def test_resize_size():
    assert clik.resize_size(37, 23, 2.0, 2.0) == (74, 46)
    assert clik.resize_size(37, 23, 1.7, 0.4) == (63, 9)
    assert clik.resize_size(640, 480, 0.37, 0.37) == (237, 178)
    with pytest.raises(clik.Error) as e:
        clik.resize_size(37, 23, 0.0, 1.0)
    assert e.value.status == "CLIK_ERR_INVALID_ARG"
    assert isinstance(e.value, ValueError)
    with pytest.raises(clik.Error) as e:
        clik.resize_size(0, 23, 1.0, 1.0)
    assert e.value.status == "CLIK_ERR_INVALID_SIZE"


def test_gaussian_weights():
    # OpenCV's fixed tables for the small sizes (sigma <= 0)
    tables = {
        1: [1.0],
        3: [0.25, 0.5, 0.25],
        5: [0.0625, 0.25, 0.375, 0.25, 0.0625],
        7: [0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125],
    }
    for k, want in tables.items():
        got = clik.gaussian_weights(k)
        assert got.dtype == np.float32 and got.shape == (k,)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-7)
    for k, sigma in [(11, 0.0), (9, 2.5), (31, 0.0), (5, 1e-3)]:
        s = sigma if sigma > 0 else 0.3 * ((k - 1) * 0.5 - 1) + 0.8
        x = np.arange(k) - (k - 1) / 2
        g = np.exp(-x * x / (2 * s * s))
        got = clik.gaussian_weights(k, sigma)
        np.testing.assert_allclose(got, g / g.sum(), rtol=0, atol=1e-6)
    for bad in (0, 2, 33):
        with pytest.raises(clik.Error) as e:
            clik.gaussian_weights(bad)
        assert isinstance(e.value, ValueError)


def test_lapar_dict_default():
    d = clik.lapar_dict_default()
    assert d.dtype == np.float32 and d.shape == (72, 25)
    atoms = d.reshape(72, 5, 5).astype(np.float64)
    # every atom centrally symmetric, exactly
    assert np.array_equal(atoms, atoms[:, ::-1, ::-1])
    for l in range(51):
        assert abs(atoms[l].sum() - 1.0) < 1e-6 and atoms[l].min() >= 0, l
    for l in range(51, 72):
        pos = atoms[l][atoms[l] > 0].sum()
        neg = atoms[l][atoms[l] < 0].sum()
        assert abs(pos - 1.4) < 1e-6 and abs(neg + 0.4) < 1e-6, l
    # the sum of every weight (an independent computation of the closed form)
    assert abs(atoms.sum() - 71.99999987736237) < 1e-5
    # atom 0: the isotropic Gaussian of sigma 2
    y, x = np.mgrid[2:-3:-1, -2:3]
    g = np.exp(-(x * x + y * y) / 8.0)
    np.testing.assert_allclose(atoms[0], g / g.sum(), atol=1e-6)
    assert np.array_equal(d, clik.lapar_dict_default())


# ---- contexts ----------------------------------------------------------------------------------


def test_context_properties(be):
    ctx = be.ctx
    assert ctx.cpu_backend in ("scalar", "neon")
    if be.opencl:
        dev = ctx.device
        assert isinstance(dev, dict) and dev["name"]
        spec = opencl_device_spec()
        if spec:  # the device asked for
            assert dev == clik.devices()[clik.select_device(spec)]
    else:
        assert ctx.device is None
        assert ctx.cpu_backend == be.name
    assert isinstance(ctx.message, str)
    be.hist_equalize(noise((5, 7)))
    stats = ctx.stats()
    assert isinstance(stats, dict)
    for key in ("programs_built", "programs_from_disk", "programs_reused", "cache_rejected",
                "cache_written", "fallbacks", "last_kernel_ms"):
        assert key in stats, key
    assert stats["fallbacks"] == 0
    if be.opencl:
        assert stats["programs_built"] + stats["programs_from_disk"] + stats["programs_reused"] > 0
    assert ctx.fallback_cause is None
    assert ctx.finish() is None


def test_fresh_context_last_backend(be):
    with make_context(be.name) as ctx:
        assert ctx.last_backend == "none"
        ctx.hist_compute(noise((3, 4)))
        assert ctx.last_backend == be.name


def test_bandwidths(be):
    gbps = be.copy_bandwidth(1 << 16, 2)
    assert isinstance(gbps, float) and gbps > 0
    up, down = be.transfer_bandwidth(1 << 16, 2)
    assert up > 0 and down > 0


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_empty_arrays_as_inputs_and_outputs(be, oracle, dtype):
    src = be.empty((H, W, 4), dtype)
    assert isinstance(src, np.ndarray) and src.shape == (H, W, 4) and src.dtype == dtype
    src[...] = noise((H, W, 4), dtype, seed=3)
    out = be.empty((H * 2, W * 2, 4), dtype)
    r = be.pyr_up(src, out=out)
    assert r is out
    assert_tol(out, oracle.pyr_up(np.array(src)), float_tol(dtype, "EXACT"), "pyr_up")
    grey = be.empty((H, W))
    assert grey.shape == (H, W) and grey.dtype == np.uint8
    grey[...] = noise((H, W), seed=4)
    res = be.hist_equalize(grey)
    assert_exact(res, oracle.hist_equalize(np.array(grey)), "equalize of an empty() array")
    # 3 channels (packed BGR), as empty() arrays and device images
    bgr = be.empty((H, W, 3), dtype)
    assert bgr.shape == (H, W, 3)
    bgr[...] = noise((H, W, 3), dtype, seed=5)
    dev = be.image((2 * H, 2 * W, 3), dtype)
    assert dev.channels == 3
    be.pyr_up(bgr, out=dev)
    assert_tol(be.download(dev), oracle.pyr_up(np.array(bgr)), float_tol(dtype, "EXACT"),
               "pyr_up of 3 channels into a device image")
    with pytest.raises(clik.ArgumentError):
        be.empty((H, W, 5), dtype)


def test_context_manager_closes():
    with clik.Context(device="none", cpu_path="scalar") as ctx:
        assert ctx.hist_equalize(noise((4, 4))).shape == (4, 4)
    with pytest.raises(Exception):
        ctx.hist_equalize(noise((4, 4)))
    ctx.close()  # a second close is harmless


def test_log_callback_and_options(tmp_path):
    seen = []
    with clik.Context(device="none", cpu_path="scalar", cache=False, cache_dir=str(tmp_path),
                      local_memory=False, profiling=True,
                      log=lambda level, msg: seen.append((level, msg))) as ctx:
        assert ctx.last_backend == "none"
        ctx.gaussian_blur(noise((9, 9)), 3)
        assert ctx.last_backend == "scalar"
    for level, msg in seen:
        assert isinstance(level, str) and isinstance(msg, str)


# ---- histogram ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ch", CH124)
def test_hist(be, oracle, ch):
    a = noise(shape_of(H, W, ch), seed=ch)
    got = be.hist_compute(a)
    assert got.dtype == np.uint32 and got.shape == (ch, 256)
    planes = a.reshape(H, W, ch)
    want = np.stack([np.bincount(planes[..., c].ravel(), minlength=256) for c in range(ch)])
    assert_exact(got, want.astype(np.uint32), "hist")
    assert_exact(got, oracle.hist_compute(a), "hist against the oracle")


@pytest.mark.parametrize("ch", CH124)
def test_equalize(be, oracle, ch):
    a = smooth(shape_of(H, W, ch), seed=ch)
    got = be.hist_equalize(a)
    assert got.shape == a.shape and got.dtype == np.uint8
    assert_exact(got, oracle.hist_equalize(a), "equalize")
    if ch > 1:
        assert_exact(got[..., -1], a[..., -1], "equalize's alpha")
    # constant image: the value everywhere
    assert_exact(be.hist_equalize(np.full((7, 7), 77, np.uint8)), np.full((7, 7), 77, np.uint8))


@pytest.mark.parametrize("ch", (1, 4))
def test_clahe_and_luma(be, oracle, ch):
    a = smooth(shape_of(H, W, ch), seed=ch + 3)
    got = be.clahe(a, clip=3.0, grid=(5, 3))
    assert got.shape == a.shape and got.dtype == np.uint8
    assert_exact(got, oracle.clahe(a, clip=3.0, grid=(5, 3)), "clahe")
    assert_exact(be.clahe(a), oracle.clahe(a, 40.0, (8, 8)), "clahe's defaults")
    if ch == 4:
        assert_exact(got[..., 3], a[..., 3], "clahe's alpha")
        lum = be.hist_equalize_luma(a)
        assert_exact(lum, oracle.hist_equalize_luma(a), "hist_equalize_luma")
        assert not np.array_equal(lum, be.hist_equalize(a)), "the luma's is not per channel"
    for clip in (0.0, -1.0, float("nan")):
        with pytest.raises(clik.ArgumentError, match="clip"):
            be.clahe(a, clip=clip)
    with pytest.raises(clik.ArgumentError, match="grid"):
        be.clahe(a, grid=(0, 8))
    with pytest.raises(clik.Error, match="tiles on a"):
        be.clahe(a, grid=(W + 1, 2))


def test_equalize_luma_refuses_grey(be):
    with pytest.raises(clik.FormatError, match="3 or 4"):
        be.hist_equalize_luma(noise((5, 7)))
    with pytest.raises(clik.ArgumentError, match="order"):
        be.clahe(noise((5, 7, 3)), order="grb")


@pytest.mark.parametrize("ch", [3, 4])
def test_luma_order(be, oracle, ch):
    """hist_equalize_luma and clahe: a BGR array gives the RGB array's result
    with red and blue swapped (order="bgr", the default); 3 channels give
    what 4 give."""
    rgb = smooth((H, W, ch), seed=17)
    swap = [2, 1, 0, 3][:ch]
    bgr = np.ascontiguousarray(rgb[..., swap])
    for op, kw in (("hist_equalize_luma", {}), ("clahe", {"clip": 3.0, "grid": (5, 3)})):
        got_rgb = getattr(be, op)(rgb, order="rgb", **kw)
        assert_exact(got_rgb, getattr(oracle, op)(rgb, order="rgb", **kw), f"{op} of RGB")
        got_bgr = getattr(be, op)(bgr, **kw)
        assert_exact(got_bgr[..., swap], got_rgb, f"{op} of BGR")
        assert not np.array_equal(getattr(be, op)(bgr, order="rgb", **kw), got_bgr)
        if ch == 3:
            a4 = np.concatenate([rgb, np.full((H, W, 1), 255, np.uint8)], axis=2)
            assert_exact(got_rgb, getattr(be, op)(a4, order="rgb", **kw)[..., :3], f"{op} of 3")


def test_equalize_in_place(be, oracle):
    a = noise((H, W), seed=11)
    want = oracle.hist_equalize(a.copy())
    r = be.hist_equalize(a, out=a)
    assert r is a
    assert_exact(a, want, "equalize in place")


@pytest.mark.parametrize("ch", CH124)
def test_lut(be, oracle, ch):
    rng = np.random.default_rng(ch)
    a = noise(shape_of(H, W, ch), seed=ch + 10)
    one = rng.integers(0, 256, 256, dtype=np.uint8)
    got = be.hist_lut(a, one)
    assert_exact(got, one[a], "lut, one table")
    assert_exact(got, oracle.hist_lut(a, one), "lut, one table, oracle")
    tables = rng.integers(0, 256, (ch, 256), dtype=np.uint8)
    got = be.hist_lut(a, tables)
    planes = a.reshape(H, W, ch)
    want = np.stack([tables[c][planes[..., c]] for c in range(ch)], axis=-1).reshape(a.shape)
    assert_exact(got, want, "lut, per-channel tables")
    assert_exact(got, oracle.hist_lut(a, tables), "lut, per-channel tables, oracle")
    out = np.empty_like(a)
    assert be.hist_lut(a, tables, out=out) is out
    assert_exact(out, want)


# ---- pyramids ----------------------------------------------------------------------------------


def pyr_down_reference(a):
    """OpenCV's pyrDown in numpy: 5x5 binomial, reflect-101, decimation."""
    k = np.array([1, 4, 6, 4, 1], np.int64)
    x = a.astype(np.int64) if a.dtype == np.uint8 else a.astype(np.float64)
    x = x.reshape(a.shape[0], a.shape[1], -1)
    h, w = x.shape[:2]
    p = np.pad(x, ((2, 2), (2, 2), (0, 0)), mode="reflect")  # reflect-101
    rows = sum(k[i] * p[i:i + h] for i in range(5))
    s = sum(k[i] * rows[:, i:i + w] for i in range(5))
    s = s[::2, ::2]
    if a.dtype == np.uint8:
        s = ((s + 128) >> 8).astype(np.uint8)
    else:
        s = (s / 256.0).astype(np.float32)
    return s.reshape(((h + 1) // 2, (w + 1) // 2) + a.shape[2:])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH124)
def test_pyr_down(be, oracle, dtype, ch):
    a = noise(shape_of(H, W, ch), dtype, seed=ch)
    got = be.pyr_down(a)
    assert got.shape == shape_of(12, 19, ch) and got.dtype == dtype
    tol = float_tol(dtype, "EXACT")
    assert_tol(got, oracle.pyr_down(a), tol, "pyr_down")
    assert_tol(got, pyr_down_reference(a), tol, "pyr_down against numpy")


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH124)
def test_pyr_up(be, oracle, dtype, ch):
    a = noise(shape_of(H, W, ch), dtype, seed=ch)
    got = be.pyr_up(a)
    assert got.shape == shape_of(2 * H, 2 * W, ch) and got.dtype == dtype
    tol = float_tol(dtype, "EXACT")
    assert_tol(got, oracle.pyr_up(a), tol, "pyr_up")
    # an output one pixel narrower and shorter: the same values, cropped
    out = np.empty(shape_of(2 * H - 1, 2 * W - 1, ch), dtype)
    assert be.pyr_up(a, out=out) is out
    assert_exact(out, got[: 2 * H - 1, : 2 * W - 1], "pyr_up cropped")


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH124)
def test_gaussian_pyramid(be, oracle, dtype, ch):
    a = noise(shape_of(H, W, ch), dtype, seed=ch + 1)
    levels = be.pyr_gaussian(a, 3)
    assert isinstance(levels, list) and len(levels) == 3
    want = oracle.pyr_gaussian(a, 3)
    g = a
    for i, (lv, (w, h)) in enumerate(zip(levels, level_sizes(W, H, 3)[1:])):
        assert lv.shape == shape_of(h, w, ch) and lv.dtype == dtype
        assert_tol(lv, want[i], float_tol(dtype, "EXACT"), f"level {i + 1}")
        g = oracle.pyr_down(g)
        assert_tol(lv, g, float_tol(dtype, "EXACT"), f"level {i + 1} against chained pyr_down")
    n = clik.pyr_max_levels(W, H)
    assert len(be.pyr_gaussian(a, n)) == n
    with pytest.raises((clik.Error, ValueError)):
        be.ctx.pyr_gaussian(a, n + 1)


@pytest.mark.parametrize("ch", CH124)
def test_laplacian_pyramid_u8_round_trip(be, oracle, ch):
    a = noise(shape_of(H, W, ch), seed=ch + 2)
    bands = be.pyr_laplacian(a, 3)
    assert len(bands) == 4
    want = oracle.pyr_laplacian(a, 3)
    for i, (b, (w, h)) in enumerate(zip(bands, level_sizes(W, H, 3))):
        assert b.dtype == np.int16 and b.shape == shape_of(h, w, ch), (i, b.dtype, b.shape)
        assert_exact(b, want[i], f"band {i}")
    # the last band is the coarsest Gaussian level
    assert_exact(bands[3], oracle.pyr_gaussian(a, 3)[2].astype(np.int16), "last band")
    back = be.pyr_collapse(bands)
    assert back.dtype == np.uint8
    assert_exact(back, a, "collapse of a u8 pyramid")
    out = np.empty_like(a)
    assert be.pyr_collapse(bands, out=out) is out
    assert_exact(out, a)
    # float bands of a u8 image collapse exactly too
    fb = be.pyr_laplacian(a, 2, dtype=np.float32)
    assert [b.dtype for b in fb] == [np.float32] * 3
    for i, b in enumerate(oracle.pyr_laplacian(a, 2, dtype=np.float32)):
        assert_exact(fb[i], b, f"float band {i} of a u8 image")
    assert_exact(be.pyr_collapse(fb, dtype=np.uint8), a, "collapse of float bands to u8")


@pytest.mark.parametrize("ch", CH124)
def test_laplacian_pyramid_f32(be, oracle, ch):
    a = smooth(shape_of(H, W, ch), np.float32, seed=ch + 3)
    bands = be.pyr_laplacian(a, 2)
    assert [b.dtype for b in bands] == [np.float32] * 3
    for i, b in enumerate(oracle.pyr_laplacian(a, 2)):
        assert_f32(bands[i], b, f"band {i}")
    back = be.pyr_collapse(bands)
    assert back.dtype == np.float32
    assert_f32(back, a, "collapse of f32 bands")


# ---- integral ----------------------------------------------------------------------------------


def integral_reference(a, dtype, square=False):
    x = a.astype(np.float64 if np.dtype(dtype).kind == "f" else np.uint64)
    if square:
        x = x * x
    x = x.reshape(a.shape[0], a.shape[1], -1)
    s = np.zeros((a.shape[0] + 1, a.shape[1] + 1, x.shape[2]), x.dtype)
    s[1:, 1:] = x.cumsum(0).cumsum(1)
    return s.reshape(s.shape[:2] + a.shape[2:]).astype(dtype)


@pytest.mark.parametrize("ch", (1, 2, 3, 4))
def test_integral_u8(be, oracle, ch):
    a = noise(shape_of(H, W, ch), seed=ch + 4)
    s = be.integral(a)
    assert s.dtype == np.uint32 and s.shape == shape_of(H + 1, W + 1, ch)
    assert_exact(s, integral_reference(a, np.uint32), "integral u32")
    assert_exact(s, oracle.integral(a), "integral u32, oracle")
    for dtype in (np.uint64, np.float64):
        s = be.integral(a, dtype)
        assert s.dtype == dtype
        assert_exact(s, integral_reference(a, dtype), f"integral {np.dtype(dtype)}")
    s = be.integral(a, np.int32)  # OpenCV's CV_32S: the u32 sums' bits
    assert s.dtype == np.int32
    assert_exact(s, integral_reference(a, np.uint32).view(np.int32), "integral int32")
    assert_exact(s, oracle.integral(a, np.int32), "integral int32, oracle")
    s, q = be.integral(a, sqsum=True)
    assert s.dtype == np.uint32 and q.dtype == np.float64 and q.shape == s.shape
    assert_exact(q, integral_reference(a, np.float64, square=True), "sqsum f64")
    s, q = be.integral(a, np.uint64, sqsum=np.uint64)
    assert s.dtype == np.uint64 and q.dtype == np.uint64
    assert_exact(s, integral_reference(a, np.uint64), "integral u64")
    assert_exact(q, integral_reference(a, np.uint64, square=True), "sqsum u64")


@pytest.mark.parametrize("ch", (1, 2, 3, 4))
def test_integral_f32(be, oracle, ch):
    a = smooth(shape_of(H, W, ch), np.float32, seed=ch + 5)
    s = be.integral(a)
    assert s.dtype == np.float64 and s.shape == shape_of(H + 1, W + 1, ch)
    np.testing.assert_allclose(s, integral_reference(a, np.float64), rtol=1e-6, atol=1e-6)
    assert_f32(s, oracle.integral(a), "integral f64 of f32")
    s32 = be.integral(a, np.float32)
    assert s32.dtype == np.float32
    assert_f32(s32, oracle.integral(a, np.float32), "integral f32")
    s, q = be.integral(a, sqsum=True)
    assert q.dtype == np.float64
    np.testing.assert_allclose(q, integral_reference(a, np.float64, True), rtol=1e-6)


@pytest.mark.slow
def test_integral_u32_overflow_needs_u64(be):
    """255 W H past 2^32 - 1: the default becomes u64, u32 is refused."""
    a = np.full((4200, 4100), 255, np.uint8)
    s = be.integral(a)
    assert s.dtype == np.uint64 and int(s[-1, -1]) == 255 * 4200 * 4100
    with pytest.raises(clik.Error) as e:
        be.ctx.integral(a, np.uint32)
    assert e.value.status == "CLIK_ERR_OVERFLOW"


# ---- resize, blur, gray ------------------------------------------------------------------------

METHODS = ("nearest", "bilinear", "bicubic", "bicubic-aa")


def resize_tol(method, dtype):
    if method == "nearest":
        return "EXACT"
    return float_tol(dtype)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH14)
def test_resize(be, oracle, method, dtype, ch):
    a = smooth(shape_of(H, W, ch), dtype, seed=ch + 6)
    for size in [(2 * W, 2 * H), (51, 17), (13, 8)]:
        got = be.resize(a, size, method=method)
        assert got.shape == shape_of(size[1], size[0], ch) and got.dtype == dtype
        assert_tol(got, oracle.resize(a, size, method=method), resize_tol(method, dtype),
                   f"{method} to {size}")
    got = be.resize(a, scale=1.7, method=method)
    assert got.shape[:2] == clik.resize_size(W, H, 1.7, 1.7)[::-1]
    assert_tol(got, oracle.resize(a, scale=1.7, method=method), resize_tol(method, dtype),
               f"{method} by 1.7")
    got = be.resize(a, scale=(0.5, 1.5), method=method)
    assert got.shape[:2] == clik.resize_size(W, H, 0.5, 1.5)[::-1]
    out = np.empty(shape_of(30, 40, ch), dtype)
    assert be.resize(a, method=method, out=out) is out
    assert_tol(out, oracle.resize(a, (40, 30), method=method), resize_tol(method, dtype),
               f"{method} into out")


def test_resize_nearest_integer_scale(be):
    a = noise((H, W, 4), seed=7)
    got = be.resize(a, scale=3, method="nearest")
    assert_exact(got, np.repeat(np.repeat(a, 3, axis=0), 3, axis=1), "nearest x3")


def test_resize_default_method_is_bicubic(be, oracle):
    """As clik resize's: bicubic."""
    a = smooth((H, W), seed=8)
    assert_exact(be.resize(a, (50, 30)), be.resize(a, (50, 30), method="bicubic"))


@pytest.mark.parametrize("method", METHODS)
def test_resize_three_channels(be, method):
    """A packed 3-channel array resizes as its 4-channel version does."""
    a4 = smooth((H, W, 4), seed=13)
    a3 = np.ascontiguousarray(a4[..., :3])
    got = be.resize(a3, (51, 17), method=method)
    assert got.shape == (17, 51, 3)
    assert_exact(got, be.resize(a4, (51, 17), method=method)[..., :3], f"{method} of 3 channels")


@pytest.mark.parametrize("ksize,sigma", [(3, 0.0), (7, 0.0), (11, 2.5)])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH124)
def test_gaussian_blur(be, oracle, ksize, sigma, dtype, ch):
    a = noise(shape_of(H, W, ch), dtype, seed=ch + ksize)
    got = be.gaussian_blur(a, ksize, sigma)
    assert got.shape == a.shape and got.dtype == dtype
    assert_tol(got, oracle.gaussian_blur(a, ksize, sigma), float_tol(dtype), f"blur {ksize}")
    # in place gives the same as into another array
    b = a.copy()
    assert be.gaussian_blur(b, ksize, sigma, out=b) is b
    assert_exact(b, got, "blur in place")


def test_gaussian_blur_constant(be):
    a = np.full((H, W, 4), 93, np.uint8)
    assert_exact(be.gaussian_blur(a, 9), a, "blur of a constant")


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_gray(be, oracle, dtype):
    a = noise((H, W, 4), dtype, seed=9)
    got = be.gray(a, order="rgb")
    assert got.dtype == dtype and got.shape[:2] == (H, W) and got.size == H * W
    if dtype == np.uint8:
        r, g, b = (a[..., i].astype(np.int64) for i in range(3))
        want = ((9798 * r + 19235 * g + 3735 * b + 16384) >> 15).astype(np.uint8)
        assert_exact(got.reshape(H, W), want, "gray u8")
    else:
        r, g, b = (a[..., i].astype(np.float64) for i in range(3))
        want = (0.299 * r + 0.587 * g + 0.114 * b).astype(np.float32)
        assert_f32(got.reshape(H, W), want, "gray f32")
    assert_tol(got, oracle.gray(a, order="rgb"), float_tol(dtype, "EXACT"),
               "gray against the oracle")
    out = np.empty_like(got)
    assert be.gray(a, out=out) is out
    # The default order is BGR: the same pixels with red and blue swapped.
    assert_exact(be.gray(np.ascontiguousarray(a[..., [2, 1, 0, 3]])), got, "gray of BGRA")


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("order", ["bgr", "rgb"])
def test_three_channels(be, dtype, order):
    """Packed 3-channel arrays give what their 4-channel versions give."""
    a4 = noise((H, W, 4), dtype, seed=12)
    a3 = np.ascontiguousarray(a4[..., :3])
    assert_exact(be.gray(a3, order=order), be.gray(a4, order=order), "gray of 3 channels")
    blur3 = be.gaussian_blur(a3, 7)
    assert blur3.shape == (H, W, 3)
    assert_exact(blur3, be.gaussian_blur(a4, 7)[..., :3], "blur of 3 channels")


def test_pyramid_three_channels(be):
    """The pyramid operations give on 3 channels what they give on 4."""
    a4 = noise((H, W, 4), seed=14)
    a3 = np.ascontiguousarray(a4[..., :3])
    assert_exact(be.pyr_down(a3), be.pyr_down(a4)[..., :3], "pyr_down of 3 channels")
    assert_exact(be.pyr_up(a3), be.pyr_up(a4)[..., :3], "pyr_up of 3 channels")
    for got, want in zip(be.pyr_gaussian(a3, 3), be.pyr_gaussian(a4, 3)):
        assert_exact(got, want[..., :3], "pyr_gaussian of 3 channels")
    bands3, bands4 = be.pyr_laplacian(a3, 3), be.pyr_laplacian(a4, 3)
    for got, want in zip(bands3, bands4):
        assert_exact(got, want[..., :3], "pyr_laplacian of 3 channels")
    assert_exact(be.pyr_collapse(bands3), a3, "pyr_collapse of 3 channels")


def test_hist_three_channels(be):
    """hist_compute, hist_equalize and hist_lut give on 3 channels what they
    give on 4."""
    a4 = noise((H, W, 4), seed=15)
    a3 = np.ascontiguousarray(a4[..., :3])
    h3, h4 = be.hist_compute(a3), be.hist_compute(a4)
    assert_exact(np.asarray(h3).reshape(-1), np.asarray(h4).reshape(-1)[:3 * 256], "hist_compute")
    eq3 = be.hist_equalize(a3)
    assert_exact(eq3, be.hist_equalize(a4)[..., :3], "hist_equalize of 3 channels")
    table = (np.arange(256) * 7 % 256).astype(np.uint8)
    assert_exact(be.hist_lut(a3, table), be.hist_lut(a4, table)[..., :3], "hist_lut of 3 channels")


@pytest.mark.parametrize("ch", [3, 4])
def test_upscale_lapar_order(be, ch):
    """BGR and RGB arrays of one picture give the same picture with red and
    blue swapped; 3 channels give what 4 give."""
    rgb = smooth((H, W, ch), seed=16)
    swap = [2, 1, 0, 3][:ch]
    got_rgb = be.upscale_lapar(rgb, 2, order="rgb")
    got_bgr = be.upscale_lapar(np.ascontiguousarray(rgb[..., swap]), 2)
    assert_exact(got_bgr[..., swap], got_rgb, "upscale_lapar of BGR")
    if ch == 3:
        a4 = np.concatenate([rgb, np.full((H, W, 1), 255, np.uint8)], axis=2)
        assert_exact(got_rgb, be.upscale_lapar(a4, 2, order="rgb")[..., :3],
                     "upscale_lapar of 3 channels")


def test_order_argument(oracle):
    with pytest.raises(clik.ArgumentError):
        oracle.gray(noise((8, 8, 3)), order="BGRA")
    with pytest.raises(clik.ArgumentError):
        oracle.gray(noise((8, 8, 3)), order=1)


# ---- SSIM --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_ssim(be, oracle, dtype):
    a = smooth((H + 10, W), dtype, seed=10)
    b = np.clip(a.astype(np.float64) + noise(a.shape, np.float32, seed=11) * 0.1 - 12, 0, 255)
    b = b.astype(dtype)
    got = be.ssim(a, b)
    assert isinstance(got, float) and -1.0 <= got <= 1.0
    want = oracle.ssim(a, b)
    assert abs(got - want) <= 1e-4 * max(1.0, abs(want)), (got, want)
    mean, smap = be.ssim(a, b, full=True)
    assert smap.dtype == np.float32 and smap.shape == (H, W - 10)
    assert mean == pytest.approx(got, abs=1e-6)
    assert abs(float(np.mean(smap, dtype=np.float64)) - mean) <= 1e-5
    _, wmap = oracle.ssim(a, b, full=True)
    assert_ssim_map(smap, wmap, "ssim map")
    # an image against itself: 1, exactly
    same, smap = be.ssim(a, a, full=True)
    assert same == 1.0 and np.all(smap == 1.0)


def ssim_tiles_reference(a, b, tile):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    h, w = a.shape
    out = np.empty((-(-h // tile), -(-w // tile)))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            x = a[i * tile:(i + 1) * tile, j * tile:(j + 1) * tile]
            y = b[i * tile:(i + 1) * tile, j * tile:(j + 1) * tile]
            mx, my = x.mean(), y.mean()
            vx, vy = ((x - mx) ** 2).mean(), ((y - my) ** 2).mean()
            cov = ((x - mx) * (y - my)).mean()
            out[i, j] = ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1)
                                                                  * (vx + vy + c2))
    return out


@pytest.mark.parametrize("tile", [2, 5, 8, 16])
def test_ssim_tiles(be, oracle, tile):
    a = smooth((H, W), seed=12)
    b = np.clip(a.astype(np.int64) + noise((H, W), seed=13) // 8 - 16, 0, 255).astype(np.uint8)
    got = be.ssim_tiles(a, b, tile)
    assert got.dtype == np.float32
    assert got.shape == (-(-H // tile), -(-W // tile))
    assert_f32(got, oracle.ssim_tiles(a, b, tile), f"tile {tile}")
    np.testing.assert_allclose(got, ssim_tiles_reference(a, b, tile), rtol=1e-4, atol=1e-5)
    if tile == 8:
        assert_exact(be.ssim_tiles(a, b), got, "the default tile is 8")


# ---- fusion ------------------------------------------------------------------------------------


def rgba_edges(h, w, seed):
    a = edges((h, w, 4), seed=seed)
    a[..., 3] = 255
    return a


@pytest.mark.parametrize("scale", [2, 3])
def test_upscale_fusion(be, oracle, scale):
    a = rgba_edges(H, W, seed=scale)
    got = be.upscale_fusion(a, scale)
    assert got.shape == (scale * H, scale * W, 4) and got.dtype == np.uint8
    assert_fusion(got, oracle.upscale_fusion(a, scale), f"fusion x{scale}")
    out, amap = be.upscale_fusion(a, scale, artifact_map=True)
    assert amap.dtype == np.uint8 and amap.shape == (scale * H, scale * W)
    assert_exact(out, got, "fusion with and without a map")
    assert set(np.unique(amap)) <= {0, 255}
    # the map marks where the nearest image was taken, else the bicubic one
    near = be.resize(a, scale=scale, method="nearest")
    cubic = be.resize(a, scale=scale, method="bicubic")
    taken = amap == 255
    assert taken.any() and (~taken).any(), "both images should be taken on an image of edges"
    assert_exact(out[taken], near[taken], "pixels of the nearest image")
    assert_exact(out[~taken], cubic[~taken], "pixels of the bicubic image")
    o = np.empty_like(got)
    r = be.upscale_fusion(a, scale, artifact_map=True, out=o)
    assert r[0] is o
    assert_exact(o, got)
    assert_exact(r[1], amap)


@pytest.mark.parametrize("ch", [3, 4])
def test_upscale_fusion_order(be, oracle, ch):
    """A BGR array (cv2.imread's) gives its RGB equivalent's result, red and
    blue swapped, map and all; 3 channels give what 4 give."""
    rgb = np.ascontiguousarray(rgba_edges(H, W, seed=8)[..., :ch])
    swap = [2, 1, 0, 3][:ch]
    got_rgb, map_rgb = be.upscale_fusion(rgb, 2, artifact_map=True, order="rgb")
    got_bgr, map_bgr = be.upscale_fusion(np.ascontiguousarray(rgb[..., swap]), 2,
                                         artifact_map=True)
    assert got_bgr.shape == (2 * H, 2 * W, ch)
    assert_exact(got_bgr[..., swap], got_rgb, "upscale_fusion of BGR")
    assert_exact(map_bgr, map_rgb, "the map of BGR")
    assert_fusion(got_rgb, oracle.upscale_fusion(rgb, 2, order="rgb"), "fusion on the oracle")
    if ch == 3:
        a4 = np.concatenate([rgb, np.full((H, W, 1), 255, np.uint8)], axis=2)
        assert_exact(got_rgb, be.upscale_fusion(a4, 2, order="rgb")[..., :3],
                     "upscale_fusion of 3 channels")


def test_upscale_fusion_options(be, oracle):
    a = rgba_edges(H, W, seed=5)
    kw = dict(tile=4, blur_ksize=5, threshold=0.02)
    got, amap = be.upscale_fusion(a, 4, artifact_map=True, **kw)
    want, wmap = oracle.upscale_fusion(a, 4, artifact_map=True, **kw)
    assert_fusion(got, want, "fusion x4 tile 4")
    # a constant image takes the bicubic image everywhere
    c = np.empty((9, 5, 4), np.uint8)
    c[...] = (10, 200, 77, 128)
    out, cmap = be.upscale_fusion(c, 3, artifact_map=True, threshold=0.0)
    assert np.all(out == c[0, 0]) and not cmap.any()


def test_fusion_stream(be):
    frames = [rgba_edges(H, W, seed=20 + i) for i in range(5)]
    want = [be.upscale_fusion(f, 2) for f in frames]
    for i, w in enumerate(be.fusion_stream(frames[:2], 2, order="rgb")):
        assert_exact(w, be.upscale_fusion(frames[i], 2, order="rgb"), f"RGBA stream frame {i}")
    got = list(be.fusion_stream(frames, 2))
    assert len(got) == len(frames)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_exact(g, w, f"stream frame {i}")
    assert be.ctx.last_backend == be.name

    def generate():
        for f in frames:
            yield f.copy()

    got = list(be.fusion_stream(generate(), 2, depth=2, artifact_map=True))
    assert len(got) == len(frames)
    for i, (g, f) in enumerate(zip(got, frames)):
        out, amap = g
        w, wmap = be.upscale_fusion(f, 2, artifact_map=True)
        assert_exact(out, w, f"stream frame {i} with map")
        assert_exact(amap, wmap, f"stream map {i}")
    kw = dict(tile=4, blur_ksize=5, threshold=0.02)
    got = list(be.fusion_stream(iter(frames[:2]), 3, **kw))
    for f, g in zip(frames[:2], got):
        assert_exact(g, be.upscale_fusion(f, 3, **kw), "stream with options")
    assert list(be.fusion_stream([], 2)) == []
    # the context used for other ops while later frames are in flight
    for i, out in enumerate(be.fusion_stream(frames, 2, depth=3)):
        assert_exact(be.hist_equalize(out), be.hist_equalize(want[i]), f"equalize between frames {i}")
        assert_exact(out, want[i], f"stream frame {i} with ops between frames")


# ---- optical flow ------------------------------------------------------------------------------

FH, FW = 40, 48


def texture(x, y):
    return (128 + 50 * np.sin(0.35 * x + 0.1 * y) + 40 * np.cos(0.3 * y - 0.17 * x)
            + 20 * np.sin(0.13 * (x + y) + 1.0))


def shifted_pair(du, dv, dtype=np.uint8, h=FH, w=FW):
    """I0(x, y) = T(x, y), I1(x, y) = T(x - du, y - dv): I0(p) = I1(p + (du, dv))."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    i0, i1 = texture(x, y), texture(x - du, y - dv)
    if np.dtype(dtype) == np.uint8:
        return np.rint(i0).astype(np.uint8), np.rint(i1).astype(np.uint8)
    return i0.astype(dtype), i1.astype(dtype)


def interior_epe(flow, du, dv, margin=4):
    f = flow[margin:-margin, margin:-margin].astype(np.float64)
    return float(np.mean(np.hypot(f[..., 0] - du, f[..., 1] - dv)))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_flow_tvl1(be, oracle, dtype):
    du, dv = 1.25, -0.75
    i0, i1 = shifted_pair(du, dv, dtype)
    got = be.flow_tvl1(i0, i1, storage="f32")
    assert got.dtype == np.float32 and got.shape == (FH, FW, 2)
    want = oracle.flow_tvl1(i0, i1, storage="f32")
    assert_flow(got, want, "flow f32 storage")
    assert interior_epe(want, du, dv) < 0.1, interior_epe(want, du, dv)
    assert interior_epe(got, du, dv) < 0.1
    auto = be.flow_tvl1(i0, i1)
    assert_flow(auto, want, "flow, storage auto", f16=True)
    out = np.empty((FH, FW, 2), np.float32)
    assert be.flow_tvl1(i0, i1, storage="f32", out=out) is out
    assert_flow(out, want, "flow into out")


@pytest.mark.parametrize("ch", [3, 4])
def test_flow_tvl1_colour(be, ch):
    """Colour frames (cv2.imread's BGR, or RGB with order='rgb') give the
    flow of their luma, as clik flow computes it."""
    a = smooth((24, 31, ch), np.uint8, seed=31)
    b = np.roll(a, 1, axis=1)
    kw = dict(warps=1, iterations=10, storage="f32")
    got = be.flow_tvl1(a, b, **kw)
    assert got.shape == (24, 31, 2)
    assert_exact(got, be.flow_tvl1(be.gray(a), be.gray(b), **kw), "the flow of BGR's luma")
    rgb = be.flow_tvl1(a, b, order="rgb", **kw)
    assert_exact(rgb, be.flow_tvl1(be.gray(a, order="rgb"), be.gray(b, order="rgb"), **kw),
                 "the flow of RGB's luma")


def test_flow_tvl1_initial(be, oracle):
    du, dv = 2.5, -1.5
    i0, i1 = shifted_pair(du, dv)
    kw = dict(scales=1, warps=1, iterations=10, storage="f32")
    truth = np.empty((FH, FW, 2), np.float32)
    truth[..., 0], truth[..., 1] = du, dv
    start = truth.copy()
    got = be.flow_tvl1(i0, i1, initial=start, **kw)
    assert np.array_equal(start, truth), "the initial flow was modified"
    assert_flow(got, oracle.flow_tvl1(i0, i1, initial=truth, **kw), "flow from an initial flow")
    cold = be.flow_tvl1(i0, i1, **kw)
    assert interior_epe(got, du, dv) < 0.2, interior_epe(got, du, dv)
    assert interior_epe(cold, du, dv) > 0.5, interior_epe(cold, du, dv)


def test_flow_tvl1_options(be, oracle):
    i0, i1 = shifted_pair(0.5, 0.25, np.float32)
    kw = dict(tau=0.2, lambda_=0.2, theta=0.25, scales=2, zoom=0.6, warps=2, epsilon=0.0,
              iterations=20, sigma=0.0, storage="f32")
    assert_flow(be.flow_tvl1(i0, i1, **kw), oracle.flow_tvl1(i0, i1, **kw), "flow options")
    zero = be.flow_tvl1(i0, i0, scales=1, warps=1, iterations=10)
    assert np.abs(zero).max() < 1e-3


# ---- LAPAR -------------------------------------------------------------------------------------


def lapar_reference(up, phi_planes, dictionary):
    """out_c(p) = <sum_l phi_l(p) D_l, patch(U_c, p)>, reflect-101, taps as
    PyTorch's conv2d (cross-correlation); alpha carried over."""
    F = np.einsum("lhw,lt->hwt", phi_planes.astype(np.float64), dictionary.astype(np.float64))
    u = up.astype(np.float64)
    u3 = u.reshape(u.shape[0], u.shape[1], -1)
    pad = np.pad(u3, ((2, 2), (2, 2), (0, 0)), mode="reflect")
    sh, sw = u3.shape[:2]
    out = np.zeros_like(u3)
    for r in range(5):
        for c in range(5):
            out += F[..., 5 * r + c, None] * pad[r:r + sh, c:c + sw]
    if u3.shape[2] == 4:
        out[..., 3] = u3[..., 3]
    return out.reshape(up.shape)


def phi_of(planes):
    """Stacks (P, sH, sW) planes into the (P * sH, sW) layout."""
    return np.ascontiguousarray(planes.reshape(-1, planes.shape[2]))


def random_planes(p, sh, sw, seed, lo=-0.2, hi=0.8):
    rng = np.random.default_rng(seed)
    return (lo + (hi - lo) * rng.random((p, sh, sw))).astype(np.float32)


def assert_lapar_f32(got, want, what):
    """f32 LAPAR outputs: within 1e-4 of the largest magnitude."""
    scale = max(1.0, float(np.nanmax(np.abs(want))))
    d = np.abs(got.astype(np.float64) - want)
    assert d.max() <= 1e-4 * scale, f"{what}: max |diff| {d.max()}, range {scale}"


@pytest.mark.parametrize("scale", [2, 3])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH14)
def test_lapar_upsample(be, oracle, scale, dtype, ch):
    lr = smooth(shape_of(11, 13, ch), dtype, seed=scale + ch)
    got = be.lapar_upsample(lr, scale)
    assert got.dtype == np.float32 and got.shape == shape_of(11 * scale, 13 * scale, ch)
    assert_f32(got, oracle.lapar_upsample(lr, scale), f"upsample x{scale}")
    if ch == 4:
        alpha = np.repeat(np.repeat(lr[..., 3], scale, 0), scale, 1).astype(np.float32)
        assert_exact(got[..., 3], alpha, "alpha carried over")
    out = np.empty_like(got)
    assert be.lapar_upsample(lr, scale, out=out) is out
    assert_exact(out, got)


@pytest.mark.parametrize("scale", [2, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH14)
def test_lapar_filter_default_dictionary(be, oracle, scale, dtype, ch):
    lr = smooth(shape_of(9, 12, ch), dtype, seed=scale * ch)
    sh, sw = 9 * scale, 12 * scale
    planes = random_planes(72, sh, sw, seed=scale) / 12
    phi = phi_of(planes)
    assert phi.shape == (72 * sh, sw)
    got = be.lapar_filter(lr, phi, scale)
    assert got.dtype == dtype and got.shape == shape_of(sh, sw, ch)
    want = oracle.lapar_filter(lr, phi, scale)
    assert_tol(got, want, float_tol(dtype), "lapar filter")
    ref = lapar_reference(oracle.lapar_upsample(lr, scale), planes, clik.lapar_dict_default())
    if dtype == np.float32:
        assert_lapar_f32(got, ref, "lapar filter against numpy")
    else:
        d = np.abs(got.astype(np.float64) - np.clip(ref, 0, 255))
        assert d.max() <= 0.5 + 1e-3, d.max()
    # the dictionary given explicitly, and half-float phi
    d72 = clik.lapar_dict_default()
    assert_exact(be.lapar_filter(lr, phi, scale, dictionary=d72), got, "explicit dictionary")
    phi16 = phi.astype(np.float16)
    got16 = be.lapar_filter(lr, phi16, scale)
    assert_tol(got16, oracle.lapar_filter(lr, phi16.astype(np.float32), scale), float_tol(dtype),
               "f16 phi")
    out = np.empty_like(got)
    assert be.lapar_filter(lr, phi, scale, out=out) is out
    assert_exact(out, got)


def test_lapar_filter_custom_dictionary(be, oracle):
    rng = np.random.default_rng(5)
    d = rng.normal(0, 0.2, (10, 25)).astype(np.float32)
    lr = smooth((10, 11, 4), np.float32, seed=6)
    planes = random_planes(10, 30, 33, seed=7)
    phi = phi_of(planes)
    got = be.lapar_filter(lr, phi, 3, dictionary=d)
    assert_f32(got, oracle.lapar_filter(lr, phi, 3, dictionary=d), "custom dictionary")
    assert_lapar_f32(got, lapar_reference(oracle.lapar_upsample(lr, 3), planes, d),
                     "custom dictionary against numpy")


def test_lapar_filter_selection(be, oracle):
    L, s = 72, 2
    index = [3, 17, 40, 55, 66]
    gamma = [0.9, 0.35, 1.3, 0.6, 0.8]
    d = clik.lapar_dict_default()
    lr = smooth((8, 10, 4), np.float32, seed=8)
    up = oracle.lapar_upsample(lr, s)
    full = random_planes(L, 16, 20, seed=9)
    sel = clik.LaparSelection(L, index, gamma)
    assert sel.atoms == L and sel.kept == 5 and list(sel.index) == index
    np.testing.assert_allclose(sel.gamma, gamma, rtol=1e-6)
    assert sel.mix is None
    # phi of every plane: plane index[i] weighted by gamma[i], the rest unused
    eff = np.zeros_like(full)
    for i, g in zip(index, gamma):
        eff[i] = full[i] * np.float32(g)
    got = be.lapar_filter(lr, phi_of(full), s, selection=sel)
    assert_f32(got, oracle.lapar_filter(lr, phi_of(full), s, selection=sel), "selection")
    assert_lapar_f32(got, lapar_reference(up, eff, d), "selection against numpy")
    # phi of the kept planes only
    kept = np.ascontiguousarray(full[index])
    got_k = be.lapar_filter(lr, phi_of(kept), s, selection=sel)
    assert_lapar_f32(got_k, lapar_reference(up, eff, d), "kept planes against numpy")
    # a re-fit matrix: kept atom i takes sum_l mix[i, l] phi_l
    rng = np.random.default_rng(10)
    mix = rng.normal(0, 0.3, (5, L)).astype(np.float32)
    msel = clik.LaparSelection(L, index, mix=mix)
    assert msel.mix.shape == (5, L)
    eff = np.zeros_like(full)
    eff[index] = np.einsum("il,lhw->ihw", mix.astype(np.float64), full.astype(np.float64))
    got_m = be.lapar_filter(lr, phi_of(full), s, selection=msel)
    assert_f32(got_m, oracle.lapar_filter(lr, phi_of(full), s, selection=msel), "mix")
    assert_lapar_f32(got_m, lapar_reference(up, eff, d), "mix against numpy")
    # u8 with a selection
    lr8 = smooth((8, 10), seed=11)
    assert_u8_float(be.lapar_filter(lr8, phi_of(kept), s, selection=sel),
                    oracle.lapar_filter(lr8, phi_of(kept), s, selection=sel), "u8 selection")


def test_lapar_compress(be, oracle):
    """Calibration data made by five atoms: compression keeps those five and
    finds their weights."""
    L, s = 72, 2
    index = [3, 17, 40, 55, 66]
    weights = [0.9, 0.35, 1.3, 0.6, 0.8]
    truth_sel = clik.LaparSelection(L, index, weights)
    calib = []
    for (h, w, ch), seed in [((28, 40, 4), 1), ((21, 33, 1), 2)]:
        lr = noise(shape_of(h, w, ch), np.float32, seed=seed)
        phi = phi_of(random_planes(L, s * h, s * w, seed=seed, lo=0.2, hi=1.2))
        up = oracle.lapar_upsample(lr, s)
        truth = oracle.lapar_filter(lr, phi, s, selection=truth_sel)
        calib.append((phi, up, truth))
    sel = be.lapar_compress(calib, 5 / L, samples=2048, refit_samples=1024, mix=True)
    assert isinstance(sel, clik.LaparSelection)
    assert sel.atoms == L and sel.kept == 5
    assert list(sel.index) == index
    np.testing.assert_allclose(sel.gamma, weights, rtol=1e-3)
    assert sel.mix is not None and sel.mix.shape == (5, L)
    want_mix = np.zeros((5, L), np.float32)
    want_mix[np.arange(5), index] = weights
    np.testing.assert_allclose(sel.mix, want_mix, atol=1e-3)
    # deterministic, and the same on every context
    again = oracle.lapar_compress(iter(calib), 5 / L, samples=2048, refit_samples=1024, mix=True)
    assert list(again.index) == list(sel.index)
    assert np.array_equal(np.asarray(again.gamma), np.asarray(sel.gamma))
    assert np.array_equal(again.mix, sel.mix)
    plain = be.lapar_compress(calib, 5 / L, samples=2048, refit_samples=1024)
    assert plain.mix is None and list(plain.index) == index
    np.testing.assert_allclose(plain.gamma, weights, rtol=1e-3)


def lapar_problem():
    lr = smooth((12, 16, 4), seed=12)
    phi = phi_of(random_planes(72, 24, 32, seed=13) / 12)
    return lr, phi


def test_lapar_tuning_without_device(be):
    if be.opencl:
        pytest.skip("checks the refusal of a context without an OpenCL device")
    lr, phi = lapar_problem()
    with pytest.raises(clik.Error) as e:
        be.lapar_tuning_get(lr, phi, 2)
    assert e.value.status == "CLIK_ERR_NO_DEVICE"
    with pytest.raises(clik.Error) as e:
        be.lapar_tune(lr, phi, 2)
    assert e.value.status == "CLIK_ERR_NO_DEVICE"


def test_lapar_tuning_get(be):
    if not be.opencl:
        pytest.skip("LAPAR tuning needs an OpenCL device")
    lr, phi = lapar_problem()
    t = be.lapar_tuning_get(lr, phi, 2)
    assert isinstance(t, dict)
    for key in ("variant", "wg_x", "wg_y", "ms", "stored"):
        assert key in t, key
    assert t["wg_x"] >= 1 and t["wg_y"] >= 1


def test_lapar_tune_and_set(be, oracle, tmp_path):
    """The search on a context of its own (its own tuning store)."""
    if not be.opencl:
        pytest.skip("LAPAR tuning needs an OpenCL device")
    lr, phi = lapar_problem()
    with make_context("opencl", cache_dir=str(tmp_path)) as ctx:
        out = np.zeros((24, 32, 4), np.uint8)
        best = ctx.lapar_tune(lr, phi, 2, out=out)
        for key in ("variant", "wg_x", "wg_y", "ms", "stored"):
            assert key in best, key
        assert best["ms"] > 0
        assert_u8_float(out, oracle.lapar_filter(lr, phi, 2), "the tuned run's output")
        got = ctx.lapar_tuning_get(lr, phi, 2)
        assert got["stored"] and got["variant"] == best["variant"]
        assert (got["wg_x"], got["wg_y"]) == (best["wg_x"], best["wg_y"])
        chosen = dict(got, wg_x=1, wg_y=1)
        ctx.lapar_tuning_set(lr, phi, 2, chosen)
        got = ctx.lapar_tuning_get(lr, phi, 2)
        assert got["stored"] and (got["wg_x"], got["wg_y"]) == (1, 1)
        assert_u8_float(ctx.lapar_filter(lr, phi, 2), oracle.lapar_filter(lr, phi, 2),
                        "filter with a stored tuning")
        assert ctx.last_backend == "opencl"


# ---- LAPAR model -------------------------------------------------------------------------------


def test_lapar_model_default_round_trip(be, tmp_path):
    m = clik.lapar_model_default()
    assert isinstance(m, clik.LaparModel)
    data = be.lapar_model_write(m)
    assert isinstance(data, bytes) and data[:7] == b"CLIKLPM"
    m2 = be.lapar_model_read(data)
    assert be.lapar_model_write(m2) == data
    path = tmp_path / "default.clikm"
    path.write_bytes(data)
    for p in (path, str(path)):
        assert be.lapar_model_write(be.lapar_model_load(p)) == data
    for scale in (2, 3, 4):
        d = be.lapar_model_describe(m, scale)
        assert isinstance(d, dict) and d["scale"] == scale
    with pytest.raises(clik.Error) as e:
        be.lapar_model_describe(m, 5)
    assert e.value.status == "CLIK_ERR_INVALID_ARG"
    with pytest.raises(clik.Error) as e:  # the default's scales overlap themselves
        be.lapar_model_combine(m, m2)
    assert e.value.status == "CLIK_ERR_INVALID_ARG"


def train(ctx, images, **options):
    t = ctx.lapar_trainer(**options)
    for img in images:
        t.add(img)
    return t, t.solve()


def training_images():
    return [smooth((40, 48), seed=30), edges((31, 21, 4), np.float32, seed=31)]


def test_lapar_trainer(be):
    opts = dict(scale=2, angles=4, strengths=2, coherences=2, min_samples=8)
    t = be.lapar_trainer(**opts)
    assert t.samples == 0
    with pytest.raises(clik.Error) as e:
        t.solve()  # nothing added yet
    assert e.value.status == "CLIK_ERR_INVALID_ARG"
    a, b = training_images()
    t.add(a)
    assert be.ctx.last_backend == be.name
    assert t.samples == 40 * 48
    t.add(b)
    assert t.samples == 40 * 48 + 30 * 20 * 3  # cropped to even sides, colour channels
    t.add(np.zeros((1, 1), np.uint8))  # smaller than the scale: adds nothing
    assert t.samples == 40 * 48 + 30 * 20 * 3
    m = t.solve()
    d = be.lapar_model_describe(m, 2)
    assert (d["scale"], d["angles"], d["strengths"], d["coherences"]) == (2, 4, 2, 2)
    # deterministic on one context
    _, m2 = train(be.ctx, [a, b], **opts)
    assert be.lapar_model_write(m2) == be.lapar_model_write(m)
    # the model upscales
    lr = smooth((10, 12, 4), seed=32)
    up = be.upscale_lapar(lr, 2, m)
    assert up.shape == (20, 24, 4) and up.dtype == np.uint8
    with pytest.raises(clik.Error) as e:
        be.ctx.upscale_lapar(lr, 3, m)
    assert e.value.status == "CLIK_ERR_INVALID_ARG"


def test_lapar_trainer_options_and_progress(be):
    calls = []

    def progress(stage, done, total):
        calls.append((stage, done, total))

    t = be.lapar_trainer(scale=3, angles=2, strengths=2, coherences=1, phases=True, window=3,
                         atoms=72, kernel=0, symmetry=1, alpha=1e-4, min_samples=4, f16=False,
                         strength_edges=[4.0], coherence_edges=[], progress=progress)
    t.add(smooth((30, 27), seed=33))
    m = t.solve()
    assert calls and all(0 <= done <= total for _, done, total in calls)
    assert {stage for stage, _, _ in calls} == {0, 1}
    d = be.lapar_model_describe(m, 3)
    assert d["phases"] and d["window"] == 3 and d["atoms"] == 72 and not d["f16"]
    np.testing.assert_allclose(list(d["strength_edges"])[:1], [4.0])
    # a free 5 x 5 filter model
    t = be.lapar_trainer(scale=2, angles=2, strengths=1, coherences=1, kernel=5, symmetry=2,
                         min_samples=4)
    t.add(smooth((24, 24), seed=34))
    assert be.lapar_model_describe(t.solve(), 2)["kernel"] == 5
    # progress asking to stop (False), or raising
    t = be.lapar_trainer(progress=lambda stage, done, total: False)
    with pytest.raises(clik.Error) as e:
        t.add(smooth((24, 24), seed=35))
    assert e.value.status == "CLIK_ERR_INVALID_ARG"

    def fails(stage, done, total):
        raise KeyError("from progress")

    t = be.lapar_trainer(progress=fails)
    with pytest.raises(KeyError):
        t.add(smooth((24, 24), seed=35))


def test_lapar_model_combine(be):
    _, m2 = train(be.ctx, [smooth((24, 32), seed=36)], scale=2, angles=2, strengths=1,
                  coherences=1, min_samples=4)
    _, m3 = train(be.ctx, [smooth((24, 33), seed=37)], scale=3, angles=2, strengths=1,
                  coherences=1, min_samples=4)
    both = be.lapar_model_combine(m2, m3)
    assert be.lapar_model_describe(both, 2)["scale"] == 2
    assert be.lapar_model_describe(both, 3)["scale"] == 3
    with pytest.raises(clik.Error):
        be.lapar_model_describe(both, 4)
    data = be.lapar_model_write(both)
    assert be.lapar_model_write(be.lapar_model_read(data)) == data
    lr = smooth((8, 9), seed=38)
    assert_exact(be.upscale_lapar(lr, 2, both), be.upscale_lapar(lr, 2, m2), "combined x2")
    assert_exact(be.upscale_lapar(lr, 3, both), be.upscale_lapar(lr, 3, m3), "combined x3")
    with pytest.raises(clik.Error) as e:
        be.lapar_model_combine(m2, m2)
    assert e.value.status == "CLIK_ERR_INVALID_ARG"


@pytest.mark.parametrize("scale", [2, 3])
@pytest.mark.parametrize("ch", CH14)
def test_lapar_classify(be, oracle, scale, ch):
    lr = edges(shape_of(14, 17, ch), np.float32, seed=scale)
    up = be.lapar_upsample(lr, scale)
    got = be.lapar_classify(up, scale)
    assert got.dtype == np.uint16 and got.shape == (14 * scale, 17 * scale)
    want = oracle.lapar_classify(oracle.lapar_upsample(lr, scale), scale)
    assert_buckets(got, want, f"buckets x{scale}")
    m = clik.lapar_model_default()
    assert_exact(be.lapar_classify(up, scale, m), got, "the default model given")
    out = np.empty_like(got)
    assert be.lapar_classify(up, scale, out=out) is out
    assert_exact(out, got)
    if ch == 4:  # BGR (the default) is RGB's picture swapped; 3 channels as 4
        rgb = be.lapar_classify(up, scale, order="rgb")
        assert_exact(be.lapar_classify(np.ascontiguousarray(up[..., [2, 1, 0, 3]]), scale), rgb,
                     "buckets of BGR")
        assert_exact(be.lapar_classify(np.ascontiguousarray(up[..., :3]), scale), got,
                     "buckets of 3 channels")


@pytest.mark.parametrize("scale", [2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH14)
def test_upscale_lapar(be, oracle, scale, dtype, ch):
    src = edges(shape_of(13, 15, ch), dtype, seed=scale + ch)
    got = be.upscale_lapar(src, scale)
    assert got.dtype == dtype and got.shape == shape_of(13 * scale, 15 * scale, ch)
    want = oracle.upscale_lapar(src, scale)
    if dtype == np.uint8:
        assert_fusion(got, want, f"upscale_lapar x{scale}")
    else:
        assert_model_f32(got, want, f"upscale_lapar x{scale}")
    if ch == 4:
        alpha = np.repeat(np.repeat(src[..., 3], scale, 0), scale, 1)
        assert_exact(got[..., 3], alpha, "alpha carried over")
    assert_exact(be.upscale_lapar(src, scale, clik.lapar_model_default()), got, "default model")
    out = np.empty_like(got)
    assert be.upscale_lapar(src, scale, out=out) is out
    assert_exact(out, got)


def test_upscale_lapar_default_scale(be):
    src = smooth((9, 10), seed=40)
    assert_exact(be.upscale_lapar(src), be.upscale_lapar(src, 2), "default scale 2")


def test_resize_scale_maps_as_opencv_fx(be):
    """scale=0.3 of an 11-wide ramp (10 x): 3 columns, source points
    (x + 0.5) / 0.3 - 0.5 = 7/6, 4.5, 47/6 (cv2.resize's fx), not the
    sizes' ratio 11/3 (13, 50, 87)."""
    ramp = np.tile((np.arange(11) * 10).astype(np.uint8), (10, 1))
    assert_exact(be.resize(ramp, scale=0.3, method="nearest"), np.tile(np.uint8([0, 30, 60]), (3, 1)))
    assert_exact(be.resize(ramp, scale=0.3, method="bilinear"), np.tile(np.uint8([12, 45, 78]), (3, 1)))
    assert be.resize(ramp, (3, 3), method="bilinear")[0].tolist() == [13, 50, 87]


def test_upscale_default_is_lapar(be):
    """ctx.upscale defaults to the LAPAR model upscaler, as `clik upscale`."""
    src = edges(shape_of(13, 15, 4), np.uint8, seed=41)
    got = be.upscale(src, 2)
    assert_exact(got, be.upscale_lapar(src, 2), "upscale's default")
    assert_exact(be.upscale(src, 3, method="fusion"), be.upscale_fusion(src, 3), "fusion")
    assert_exact(be.upscale(src, 1.37, method="bicubic"),
                 be.resize(src, scale=1.37, method="bicubic"), "bicubic")
    with pytest.raises(clik.ArgumentError, match="method"):
        be.upscale(src, 2, method="lanczos")
    with pytest.raises(clik.ArgumentError, match="model"):
        be.upscale(src, 2, method="fusion", model=clik.lapar_model_default())


TINY_OPS = [
    ("hist_compute", lambda c, a: c.hist_compute(a), "EXACT"),
    ("hist_equalize", lambda c, a: c.hist_equalize(a), "EXACT"),
    ("pyr_down", lambda c, a: c.pyr_down(a), "EXACT"),
    ("pyr_up", lambda c, a: c.pyr_up(a), "EXACT"),
    ("laplacian", lambda c, a: c.pyr_laplacian(a, clik.pyr_max_levels(a.shape[1],
                                                                          a.shape[0])), "EXACT"),
    ("integral", lambda c, a: c.integral(a), "EXACT"),
    ("resize", lambda c, a: c.resize(a, (5, 3), method="bicubic"), "U8-FLOAT"),
    ("resize-aa", lambda c, a: c.resize(a, (1, 2), method="bicubic-aa"), "U8-FLOAT"),
    ("blur", lambda c, a: c.gaussian_blur(a, 7), "U8-FLOAT"),
    ("gray", lambda c, a: c.gray(a), "EXACT"),
    ("fusion", lambda c, a: c.upscale_fusion(a, 3), "FUSION"),
    ("lapar_upsample", lambda c, a: c.lapar_upsample(a, 2), "F32"),
    ("upscale_lapar", lambda c, a: c.upscale_lapar(a, 2), "FUSION"),
]


@pytest.mark.parametrize("h,w", [(1, 1), (3, 2), (1, 9), (7, 7)])
@pytest.mark.parametrize("name,call,tol", TINY_OPS, ids=[t[0] for t in TINY_OPS])
def test_tiny_sizes(be, oracle, name, call, tol, h, w):
    """The small test sizes (1x1, 2x3, thin, 7x7) against the oracle."""
    a = noise((h, w, 4), seed=h * 10 + w)
    if name == "laplacian" and (h, w) == (1, 1):
        with pytest.raises((clik.Error, ValueError)):  # no level below a 1x1 image
            be.ctx.pyr_laplacian(a, 1)
        return
    got, want = call(be, a), call(oracle, a)
    if isinstance(got, list):
        assert len(got) == len(want)
        for i, (g, x) in enumerate(zip(got, want)):
            assert_tol(g, x, tol, f"{name} {w}x{h} [{i}]")
    else:
        assert_tol(got, want, tol, f"{name} {w}x{h}")


def test_threads_share_a_context(be, oracle):
    """Calls from several threads on one context are serialised: each
    thread gets its own result."""
    import threading

    imgs = [noise((H, W, 4), seed=80 + i) for i in range(4)]
    want = [oracle.gaussian_blur(oracle.hist_equalize(a), 5) for a in imgs]
    errors = []

    def work(i):
        try:
            for _ in range(10):
                got = be.ctx.gaussian_blur(be.ctx.hist_equalize(imgs[i]), 5)
                assert_u8_float(got, want[i], f"thread {i}")
        except Exception as e:  # reported below, in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


# ---- layouts: strided views, (H, W, 1), out= ---------------------------------------------------

# (name, call): each call takes the backend and one image (u8 RGBA unless said).
VIEW_OPS = [
    ("hist_compute", lambda be, a: be.hist_compute(a)),
    ("hist_equalize", lambda be, a: be.hist_equalize(a)),
    ("hist_lut", lambda be, a: be.hist_lut(a, np.arange(255, -1, -1, dtype=np.uint8))),
    ("pyr_down", lambda be, a: be.pyr_down(a)),
    ("pyr_up", lambda be, a: be.pyr_up(a)),
    ("pyr_gaussian", lambda be, a: be.pyr_gaussian(a, 2)),
    ("pyr_laplacian", lambda be, a: be.pyr_laplacian(a, 2)),
    ("integral", lambda be, a: be.integral(a)),
    ("resize", lambda be, a: be.resize(a, (29, 41), method="bicubic")),
    ("gaussian_blur", lambda be, a: be.gaussian_blur(a, 5)),
    ("gray", lambda be, a: be.gray(a)),
    ("upscale_fusion", lambda be, a: be.upscale_fusion(a, 2)),
    ("lapar_upsample", lambda be, a: be.lapar_upsample(a, 2)),
    ("upscale_lapar", lambda be, a: be.upscale_lapar(a, 2)),
    # one-channel ops: the view against its mirror image
    ("ssim", lambda be, a: be.ssim(a, a[::-1].copy())),
    ("ssim_tiles", lambda be, a: be.ssim_tiles(a, a[::-1].copy(), 4)),
    ("flow_tvl1", lambda be, a: be.flow_tvl1(a, a[::-1].copy(), scales=1, warps=1,
                                             iterations=10, storage="f32")),
]
ONE_CHANNEL = ("ssim", "ssim_tiles", "flow_tvl1")


def same_results(x, y, what):
    if isinstance(x, (list, tuple)):
        assert len(x) == len(y)
        for i, (p, q) in enumerate(zip(x, y)):
            same_results(p, q, f"{what}[{i}]")
    elif isinstance(x, float):
        assert x == y, what
    else:
        assert_exact(x, y, what)


@pytest.mark.parametrize("name,call", VIEW_OPS, ids=[n for n, _ in VIEW_OPS])
def test_strided_views_give_the_copy_result(be, name, call):
    """Crops with strided rows (a[:, 3:40], a[::2]) are read where they are
    and give what their copies give."""
    if name in ONE_CHANNEL:
        base = edges((46, 45), seed=50)
    else:
        base = edges((46, 45, 4), seed=50)
        base[..., 3] = noise((46, 45), seed=51)
    for view in (base[:, 3:40], base[::2], base[1:40:3, 2:41]):
        assert not view.flags.c_contiguous
        copy = np.ascontiguousarray(view)
        same_results(call(be, view), call(be, copy), f"{name} of a view")
    # padded rows on a fresh buffer (the layout the package describes by its stride)
    copy = np.ascontiguousarray(base[:, 3:40])
    same_results(call(be, strided_copy(copy)), call(be, copy), f"{name} of padded rows")


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_strided_two_d_views(be, dtype):
    base = noise((40, 50), dtype, seed=52)
    view = base[2:35, 7:44]
    copy = np.ascontiguousarray(view)
    assert_exact(be.pyr_down(view), be.pyr_down(copy), "pyr_down of a 2-D view")
    assert_exact(be.gaussian_blur(view, 7), be.gaussian_blur(copy, 7), "blur of a 2-D view")
    assert_exact(be.resize(view, (20, 60)), be.resize(copy, (20, 60)), "resize of a 2-D view")
    assert_exact(be.integral(view), be.integral(copy), "integral of a 2-D view")


def test_one_channel_three_d(be, oracle):
    """(H, W, 1) inputs give (H, W, 1) outputs of the (H, W) values."""
    a = noise((H, W), seed=53)
    a3 = a[:, :, None]
    for name, f in [("hist_equalize", lambda x: be.hist_equalize(x)), ("pyr_down", lambda x: be.pyr_down(x)),
                    ("blur", lambda x: be.gaussian_blur(x, 3)),
                    ("resize", lambda x: be.resize(x, (20, 10)))]:
        r3, r2 = f(a3), f(a)
        assert r3.ndim == 3 and r3.shape[2] == 1, (name, r3.shape)
        assert_exact(r3[..., 0], r2, name)
    assert be.hist_compute(a3).shape == (1, 256)
    assert be.integral(a3).shape == (H + 1, W + 1, 1)


OUT_OPS = [
    ("hist_equalize", lambda be, a, **k: be.hist_equalize(a, **k)),
    ("hist_lut", lambda be, a, **k: be.hist_lut(a, np.arange(256, dtype=np.uint8)[::-1].copy(), **k)),
    ("pyr_down", lambda be, a, **k: be.pyr_down(a, **k)),
    ("pyr_up", lambda be, a, **k: be.pyr_up(a, **k)),
    ("resize", lambda be, a, **k: be.resize(a, (17, 29), method="bilinear", **k)),
    ("gaussian_blur", lambda be, a, **k: be.gaussian_blur(a, 3, **k)),
    ("gray", lambda be, a, **k: be.gray(a, **k)),
    ("upscale_fusion", lambda be, a, **k: be.upscale_fusion(a, 2, **k)),
    ("lapar_upsample", lambda be, a, **k: be.lapar_upsample(a, 2, **k)),
    ("upscale_lapar", lambda be, a, **k: be.upscale_lapar(a, 2, **k)),
    ("pyr_collapse", lambda be, a, **k: be.pyr_collapse(be.pyr_laplacian(a, 2), **k)),
]


@pytest.mark.parametrize("name,call", OUT_OPS, ids=[n for n, _ in OUT_OPS])
def test_out_view_written_in_place(be, name, call):
    """out= a view of a bigger array: written where it is, nothing else
    touched, returned as the result."""
    a = edges((21, 26, 4), seed=54)
    want = call(be, a)
    big = np.full((want.shape[0] + 7, want.shape[1] + 9) + want.shape[2:], 123, want.dtype)
    view = big[3:3 + want.shape[0], 4:4 + want.shape[1]]
    r = call(be, a, out=view)
    assert r is view
    assert np.shares_memory(r, big)
    assert_exact(view, want, f"{name} into a view")
    mask = np.ones(big.shape[:2], bool)
    mask[3:3 + want.shape[0], 4:4 + want.shape[1]] = False
    assert np.all(big[mask] == 123), "written outside the out view"


def test_flow_out_view(be):
    i0, i1 = shifted_pair(0.5, 0.5)
    kw = dict(scales=1, warps=1, iterations=10, storage="f32")
    want = be.flow_tvl1(i0, i1, **kw)
    big = np.zeros((FH + 4, FW + 6, 2), np.float32)
    view = big[2:2 + FH, 3:3 + FW]
    assert be.flow_tvl1(i0, i1, out=view, **kw) is view
    assert_exact(view, want, "flow into a view")
    assert not big[:2].any() and not big[:, :3].any()


def test_no_copy_of_a_big_input():
    """A big row-strided input with out= given: no allocation of the
    input's size (the package reads the caller's memory)."""
    ctx = clik.Context(device="none", cpu_path="scalar")
    base = noise((1100, 1040), seed=55)
    src = base[:, 20:1020]  # 1.1 MB, rows strided
    out = np.empty((1100, 1000), np.uint8)
    lut = np.arange(256, dtype=np.uint8)[::-1].copy()
    ctx.hist_lut(src, lut, out=out)  # warm-up
    ctx.hist_equalize(src, out=out)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        ctx.hist_lut(src, lut, out=out)
        ctx.hist_equalize(src, out=out)
        ctx.gaussian_blur(src, 3, out=out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        ctx.close()
    assert peak < src.size // 4, f"{peak} bytes allocated during calls on a {src.size}-byte input"


# ---- device images -----------------------------------------------------------------------------


def test_image_object(be):
    a = noise((H, W, 4), seed=60)
    img = be.upload(a)
    assert isinstance(img, clik.Image)
    assert img.context is be.ctx
    assert (img.width, img.height, img.channels) == (W, H, 4)
    assert img.dtype == np.uint8 and img.shape == (H, W, 4)
    assert_exact(img.download(), a, "download")
    assert_exact(be.download(img), a, "ctx.download")
    out = np.zeros_like(a)
    assert img.download(out=out) is out
    assert_exact(out, a)
    b = noise((H, W, 4), seed=61)
    img.upload(b)
    assert_exact(img.download(), b, "upload into an Image")
    grey = be.image((5, 6), np.float32)
    assert grey.shape == (5, 6) and grey.channels == 1 and grey.dtype == np.float32
    grey.upload(np.ones((5, 6), np.float32))
    assert np.all(grey.download() == 1)
    view = strided_copy(noise((H, W, 4), seed=62))
    img.upload(view)
    assert_exact(img.download(), np.ascontiguousarray(view), "upload of a strided view")
    dst = np.zeros((H + 3, W + 5, 4), np.uint8)[1:1 + H, 2:2 + W]
    assert be.download(img, out=dst) is dst
    assert_exact(dst, np.ascontiguousarray(view), "download into a strided view")
    img.free()
    grey.free()


def dl(x):
    """Downloads Images (also inside lists and tuples)."""
    if isinstance(x, clik.Image):
        return x.download()
    if isinstance(x, (list, tuple)):
        return type(x)(dl(v) for v in x)
    return x


def assert_images(x, what):
    if isinstance(x, (list, tuple)):
        for v in x:
            assert_images(v, what)
    else:
        assert isinstance(x, clik.Image), f"{what} returned {type(x).__name__}, not an Image"


# (name, call taking the backend and the inputs (arrays or Images), returns Images?)
def _device_cases():
    rgba = edges((H, W, 4), seed=63)
    grey = smooth((H, W), seed=64)
    grey2 = np.clip(grey.astype(np.int64) + 9, 0, 255).astype(np.uint8)
    f32 = smooth((H, W, 4), np.float32, seed=65)
    lr = smooth((9, 12, 4), np.float32, seed=66)
    phi = phi_of(random_planes(72, 18, 24, seed=67) / 12)
    up = smooth((18, 24), np.float32, seed=68)
    i0, i1 = shifted_pair(0.75, 0.5)
    fkw = dict(scales=1, warps=1, iterations=10, storage="f32")
    return [
        ("hist_equalize", (rgba,), lambda be, a: be.hist_equalize(a), True),
        ("hist_lut", (rgba,), lambda be, a: be.hist_lut(a, np.arange(256, dtype=np.uint8) // 2), True),
        ("pyr_down", (f32,), lambda be, a: be.pyr_down(a), True),
        ("pyr_up", (rgba,), lambda be, a: be.pyr_up(a), True),
        ("pyr_gaussian", (rgba,), lambda be, a: be.pyr_gaussian(a, 3), True),
        ("pyr_laplacian", (rgba,), lambda be, a: be.pyr_laplacian(a, 3), True),
        ("pyr_collapse", (rgba,), lambda be, a: be.pyr_collapse(be.pyr_laplacian(a, 3)), True),
        ("integral", (grey,), lambda be, a: be.integral(a), True),
        ("integral-sq", (grey,), lambda be, a: be.integral(a, sqsum=True), True),
        ("resize", (rgba,), lambda be, a: be.resize(a, (50, 20), method="bicubic-aa"), True),
        ("blur", (f32,), lambda be, a: be.gaussian_blur(a, 5), True),
        ("gray", (rgba,), lambda be, a: be.gray(a), True),
        ("ssim", (grey, grey2), lambda be, a, b: be.ssim(a, b), False),
        ("ssim-full", (grey, grey2), lambda be, a, b: be.ssim(a, b, full=True)[1], True),
        ("ssim_tiles", (grey, grey2), lambda be, a, b: be.ssim_tiles(a, b), True),
        ("hist_compute", (rgba,), lambda be, a: be.hist_compute(a), False),
        ("fusion", (rgba,), lambda be, a: be.upscale_fusion(a, 2, artifact_map=True), True),
        ("flow", (i0, i1), lambda be, a, b: be.flow_tvl1(a, b, **fkw), True),
        ("lapar_upsample", (lr,), lambda be, a: be.lapar_upsample(a, 3), True),
        ("lapar_filter", (lr, phi), lambda be, a, p: be.lapar_filter(a, p, 2), True),
        ("lapar_classify", (up,), lambda be, u: be.lapar_classify(u, 2), True),
        ("upscale_lapar", (rgba,), lambda be, a: be.upscale_lapar(a, 2), True),
    ]


DEVICE_CASES = _device_cases()


@pytest.mark.parametrize("name,inputs,call,images", DEVICE_CASES,
                         ids=[c[0] for c in DEVICE_CASES])
def test_device_images(be, name, inputs, call, images):
    """upload -> op -> download gives the host arrays' result; ops given
    Images return Images (of the same context)."""
    host = call(be, *inputs)
    imgs = [be.upload(x) for x in inputs]
    dev = call(be, *imgs)
    if images:
        assert_images(dev, name)
        for x in (dev if isinstance(dev, (list, tuple)) else [dev]):
            assert x.context is be.ctx
    else:
        assert not isinstance(dev, clik.Image)
    same_results(dl(dev), host, f"{name} on Images")
    for x, img in zip(inputs, imgs):  # the inputs are unchanged
        assert_exact(img.download(), x, f"{name}'s input Image")
        img.free()


def test_device_pipeline(be, oracle):
    """A chain that stays on the device, with Images given as out=."""
    a = edges((H, W, 4), seed=70)
    img = be.upload(a)
    eq = be.hist_equalize(img)
    small = be.image((12, 19, 4))
    assert be.pyr_down(eq, out=small) is small
    blurred = be.gaussian_blur(small, 3)
    back = be.resize(blurred, (W, H), method="nearest")
    host = be.resize(be.gaussian_blur(be.pyr_down(be.hist_equalize(a)), 3), (W, H), method="nearest")
    assert_exact(back.download(), host, "device pipeline")
    want = oracle.resize(oracle.gaussian_blur(oracle.pyr_down(oracle.hist_equalize(a)), 3), (W, H),
                         method="nearest")
    assert_u8_float(back.download(), want, "device pipeline against the oracle")
    # an Image in place
    assert be.hist_equalize(img, out=img) is img
    assert_exact(img.download(), oracle.hist_equalize(a), "equalize of an Image in place")
    # host input, Image output; Image input, host output
    h2i = be.image((H, W, 4))
    assert be.hist_equalize(a, out=h2i) is h2i
    assert_exact(h2i.download(), oracle.hist_equalize(a))
    i2h = np.empty_like(a)
    assert be.hist_equalize(be.upload(a), out=i2h) is i2h
    assert_exact(i2h, oracle.hist_equalize(a))


# ---- LAPAR networks ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ch", CH14)
def test_lapar_net(be, oracle, dtype, ch):
    if not clik.lapar_net_available("lapar-c", 2):
        pytest.skip("this build holds no LAPAR-C x2 network")
    lr = smooth(shape_of(10, 13, ch), dtype, seed=ch)
    got = be.lapar_net_run(lr, "lapar-c", 2)
    assert got.dtype == dtype and got.shape == shape_of(20, 26, ch)
    want = oracle.lapar_net_run(lr, net="lapar-c", scale=2)
    if dtype == np.uint8:
        assert_u8_float(got, want, "lapar-c x2")
    else:
        assert_f32(got / 255, want / 255, "lapar-c x2 f32")
    phi = be.lapar_net_phi(lr, "lapar-c", 2)
    assert phi.dtype == np.float32 and phi.shape == (72, 20, 26)
    assert_f32(phi, oracle.lapar_net_phi(lr, "lapar-c", 2), "phi")
    half = be.lapar_net_phi(lr, "lapar-c", 2, dtype=np.float16)
    assert half.dtype == np.float16 and np.abs(half.astype(np.float32) - phi).max() < 2e-3


@pytest.mark.parametrize("ch", [3, 4])
def test_lapar_net_order(be, ch):
    """The network reads RGB: a BGR array (cv2.imread's) gives its RGB
    equivalent's phi and output (red and blue swapped); 3 channels give
    what 4 give."""
    if not clik.lapar_net_available("lapar-c", 2):
        pytest.skip("this build holds no LAPAR-C x2 network")
    rgb = smooth((10, 13, ch), np.uint8, seed=11)
    swap = [2, 1, 0, 3][:ch]
    bgr = np.ascontiguousarray(rgb[..., swap])
    got_rgb = be.lapar_net_run(rgb, "lapar-c", 2, order="rgb")
    assert got_rgb.shape == (20, 26, ch)
    assert_exact(be.lapar_net_run(bgr, "lapar-c", 2)[..., swap], got_rgb, "lapar_net_run of BGR")
    assert_exact(be.lapar_net_phi(bgr, "lapar-c", 2), be.lapar_net_phi(rgb, "lapar-c", 2,
                                                                       order="rgb"), "phi of BGR")
    if ch == 3:
        a4 = np.concatenate([rgb, np.full((10, 13, 1), 255, np.uint8)], axis=2)
        assert_exact(got_rgb, be.lapar_net_run(a4, "lapar-c", 2, order="rgb")[..., :3],
                     "lapar_net_run of 3 channels")


def test_lapar_net_f16_activations(be):
    if not clik.lapar_net_available("lapar-c", 2):
        pytest.skip("this build holds no LAPAR-C x2 network")
    lr = smooth((12, 15, 4), np.uint8, seed=3)
    full = be.lapar_net_run(lr, "lapar-c", 2)
    half = be.lapar_net_run(lr, "lapar-c", 2, activations="f16")
    assert half.shape == full.shape and np.abs(half.astype(int) - full.astype(int)).max() <= 1
    phi = be.lapar_net_phi(lr, "lapar-c", 2)
    phi16 = be.lapar_net_phi(lr, "lapar-c", 2, activations="f16")
    assert np.abs(phi16 - phi).max() <= 1e-2  # the bound clik_lapar_net_options states
    with pytest.raises(clik.ArgumentError):
        be.lapar_net_run(lr, "lapar-c", 2, activations="f64")


def test_lapar_net_tuning(be):
    """The work-item shape of a run: a device's defaults as documented (the
    tuning keys' table), refused without a device; the search itself runs in
    tests/cli.sh's --full part (minutes on a CPU device)."""
    if not clik.lapar_net_available("lapar-c", 2):
        pytest.skip("this build holds no LAPAR-C x2 network")
    device = be.ctx.device
    if device is None:
        with pytest.raises(clik.Error):
            be.lapar_net_tuning_get(64, 64, "lapar-c", 2)
        with pytest.raises(clik.Error):
            be.lapar_net_tune(64, 64, "lapar-c", 2)
        return
    t = be.lapar_net_tuning_get(64, 48, "lapar-c", 2, activations="f16")
    assert set(t) == {"local", "vw", "ry", "cob", "ms", "stored"}
    for k in ("vw", "ry", "cob"):
        assert t[k] >= 1 and t[k] & (t[k] - 1) == 0, t
    if not t["stored"] and not os.environ.get("CLIK_TUNE"):
        cpu = device["type"] == "cpu"
        want = (16, 1, 8) if cpu else (1, 8, 4)
        assert (t["vw"], t["ry"], t["cob"]) == want and t["ms"] == 0.0, t
    with pytest.raises(clik.ArgumentError):
        be.lapar_net_tuning_get(64, 48, "lapar-c", 3)


def test_fma_peak(be):
    g = be.fma_peak(reps=1)
    assert isinstance(g, float) and g > 0.0
    with pytest.raises(clik.ArgumentError):
        be.fma_peak(reps=0)


def test_prepare(be, tmp_path):
    names = clik.prepare_op_names()
    assert "resize" in names and "lapar_net_run" in names and len(set(names)) == len(names)
    ctx = make_context(be.name, cache_dir=str(tmp_path))
    try:
        ctx.prepare(ops=["hist_equalize", "pyr_down"], channels=(1,))
        built = ctx.stats()["programs_built"]
        assert built >= (2 if be.name == "opencl" else 0)
        ctx.hist_equalize(np.arange(96 * 70, dtype=np.uint8).reshape(70, 96) % 251)
        assert ctx.stats()["programs_built"] == built  # nothing left to compile
        ctx.prepare(ops="pyr_up", dtypes=("uint8", "float32"), channels=[4], background=True)
        ctx.prepare_wait()
        ctx.prepare_wait()
        with pytest.raises(clik.ArgumentError, match="'bogus'"):
            ctx.prepare(ops="pyr_down,bogus")
        with pytest.raises(clik.ArgumentError, match="channels"):
            ctx.prepare(channels=(5,))
        with pytest.raises(clik.ArgumentError, match="dtypes"):
            ctx.prepare(dtypes=("int16",))
        with pytest.raises(clik.ArgumentError, match="ops"):
            ctx.prepare(ops=[1])
    finally:
        ctx.close()


def test_lapar_net_bad_arguments(be):
    lr = np.zeros((6, 7, 4), np.uint8)
    with pytest.raises(clik.ArgumentError):
        be.lapar_net_run(lr, "lapar-a", 3)
    with pytest.raises(clik.FileError):
        be.lapar_net_run(lr, "/nonexistent/net.clikn")
    with pytest.raises(TypeError):
        be.lapar_net_run(lr, 5)
    with pytest.raises(clik.ArgumentError):
        be.lapar_net_run(np.zeros((1, 7, 4), np.uint8), "lapar-c")

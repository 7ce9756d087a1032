"""Bad input: the exception, its class and the argument it names; the
status of a library failure; nothing written, no crash."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import clik
from conftest import make_context, noise, opencl_device_spec, skip_reason

# Status codes of lib/clik.h (clik_status).
CODES = {
    "CLIK_ERR_NULL": 1,
    "CLIK_ERR_INVALID_ARG": 2,
    "CLIK_ERR_INVALID_SIZE": 3,
    "CLIK_ERR_SIZE_MISMATCH": 4,
    "CLIK_ERR_UNSUPPORTED_FORMAT": 5,
    "CLIK_ERR_STRIDE": 6,
    "CLIK_ERR_OVERFLOW": 7,
    "CLIK_ERR_NO_MEMORY": 8,
    "CLIK_ERR_DEVICE_SPEC": 9,
    "CLIK_ERR_NO_DEVICE": 10,
    "CLIK_ERR_OPENCL": 11,
    "CLIK_ERR_BUILD": 12,
    "CLIK_ERR_DEVICE_LIMITS": 13,
    "CLIK_ERR_FALLBACK": 14,
    "CLIK_ERR_NO_NEON": 15,
    "CLIK_ERR_WRONG_CONTEXT": 16,
    "CLIK_ERR_IO": 17,
    "CLIK_ERR_FILE_FORMAT": 18,
}


@pytest.fixture(scope="module")
def ctx():
    c = clik.Context(device="none", cpu_path="scalar")
    yield c
    c.close()


def expect_error(status, call, *args, **kwargs):
    """Runs call, which must raise clik.Error of this status; returns it."""
    with pytest.raises(clik.Error) as e:
        call(*args, **kwargs)
    err = e.value
    assert err.status == status, f"{err.status}: {err.message}"
    assert err.code == CODES[status]
    assert isinstance(err.message, str)
    assert status in str(err)
    return err


def expect_naming(kind, name, call, *args, **kwargs):
    """Runs call, which must raise kind with a message that names argument name."""
    with pytest.raises(kind) as e:
        call(*args, **kwargs)
    text = str(e.value)
    assert f"'{name}'" in text or f"{name}:" in text or f" {name} " in text, text


# ---- the Error class ---------------------------------------------------------------------------


def test_error_class():
    assert issubclass(clik.Error, Exception)
    err = expect_error("CLIK_ERR_NO_DEVICE", clik.Context, device="no-such-device")
    assert err.message, "the message should say what was asked for"
    assert isinstance(err.code, int)


def test_binding_argument_errors_are_argument_errors(ctx):
    """Arguments the package refuses (before the library sees them) raise
    clik.ArgumentError as the library's refusals do: a clik.Error of status
    CLIK_ERR_INVALID_ARG that is also a ValueError."""
    calls = [
        (ctx.hist_equalize, (np.zeros((4, 4, 5), np.uint8),), {}),  # 5 channels
        (ctx.resize, (noise((8, 8)),), {"size": (0, 4)}),
        (ctx.pyr_gaussian, (noise((8, 8)), 9), {}),
        (ctx.upscale_fusion, (noise((8, 8, 4)), 9), {}),
        (ctx.ssim_tiles, (noise((16, 16)), noise((16, 16))), {"tile": 1}),
        (lambda: list(ctx.fusion_stream([noise((8, 8))])), (), {}),
    ]
    for call, args, kwargs in calls:
        err = expect_error("CLIK_ERR_INVALID_ARG", call, *args, **kwargs)
        assert isinstance(err, clik.ArgumentError) and isinstance(err, ValueError)
    closed = clik.Context(device="none")
    closed.close()
    assert isinstance(expect_error("CLIK_ERR_INVALID_ARG", closed.hist_compute, noise((4, 4))),
                      clik.ArgumentError)


def test_no_such_device():
    err = expect_error("CLIK_ERR_NO_DEVICE", clik.Context, "no-such-device")
    assert "no-such-device" in err.message or "no-such-device" in str(err)


def test_status_subclasses(ctx):
    a = noise((9, 9))
    # UNSUPPORTED_FORMAT is also a TypeError (a dtype the op does not take)
    err = expect_error("CLIK_ERR_UNSUPPORTED_FORMAT", ctx.hist_equalize, a.astype(np.float32))
    assert isinstance(err, TypeError)
    # INVALID_ARG is also a ValueError
    err = expect_error("CLIK_ERR_INVALID_ARG", ctx.gaussian_blur, a, 4)
    assert isinstance(err, ValueError)
    # SIZE_MISMATCH is also a ValueError
    err = expect_error("CLIK_ERR_SIZE_MISMATCH", ctx.hist_equalize, a, out=np.empty((9, 8), np.uint8))
    assert isinstance(err, ValueError)
    # INVALID_SIZE is also a ValueError: SSIM of images smaller than its window
    err = expect_error("CLIK_ERR_INVALID_SIZE", ctx.ssim, noise((10, 10)), noise((10, 10)))
    assert isinstance(err, ValueError)
    # IO is also an OSError
    err = expect_error("CLIK_ERR_IO", ctx.lapar_model_load, "/nonexistent/folder/model.clikm")
    assert isinstance(err, OSError)


# ---- argument types ----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [
    np.zeros((8, 8), np.int8),
    np.zeros((8, 8), np.complex64),
    np.zeros((8, 8), np.int64),
    np.zeros((8, 8), bool),
    np.zeros((8, 8), object),
    [[1, 2], [3, 4]],
    "an image",
    None,
    3.5,
], ids=["int8", "complex64", "int64", "bool", "object", "list", "str", "None", "float"])
def test_wrong_type_names_argument(ctx, bad):
    expect_naming(TypeError, "src", ctx.hist_equalize, bad)


def test_wrong_type_of_other_arguments(ctx):
    a = noise((16, 16))
    expect_naming(TypeError, "out", ctx.hist_equalize, a, out=np.zeros((16, 16), np.int8))
    expect_naming(TypeError, "b", ctx.ssim, a, np.zeros((16, 16), np.complex128))
    expect_naming(TypeError, "phi", ctx.lapar_filter, noise((4, 4)),
                  np.zeros((72 * 8, 8), object), 2)
    with pytest.raises(TypeError):
        ctx.hist_equalize(a, bogus_keyword=1)


@pytest.mark.parametrize("shape", [(8,), (2, 3, 4, 1), (4, 4, 5), (4, 4, 0)],
                         ids=["1-D", "4-D", "5 channels", "0 channels"])
def test_wrong_shape_names_argument(ctx, shape):
    expect_naming(ValueError, "src", ctx.hist_equalize, np.zeros(shape, np.uint8))


def test_unpacked_pixels_names_argument(ctx):
    a = noise((8, 16))
    expect_naming(ValueError, "src", ctx.hist_equalize, a[:, ::2])
    rgba = noise((8, 8, 4))
    for bad in (rgba[:, :, ::2], rgba[:, :, :2][:, ::-1], a.T, a[:, ::-1]):
        expect_naming(ValueError, "src", ctx.pyr_down, bad)
    out = np.zeros((8, 32), np.uint8)[:, ::2]
    expect_naming(ValueError, "out", ctx.hist_equalize, a, out=out)


@pytest.mark.parametrize("bad", [
    np.zeros((0, 8), np.uint8),
    np.zeros((8, 0), np.uint8),
    np.zeros((8, 8, 4), np.uint8)[::-1],
    np.asfortranarray(np.zeros((6, 8), np.uint8)),
    np.array(5, np.uint8),
], ids=["no rows", "no columns", "negative row stride", "Fortran order", "0-d"])
def test_unusable_layouts_name_argument(ctx, bad):
    expect_naming(ValueError, "src", ctx.pyr_down, bad)


def test_size_mismatch(ctx):
    a = noise((16, 16))
    out = np.full((16, 15), 7, np.uint8)
    expect_error("CLIK_ERR_SIZE_MISMATCH", ctx.hist_equalize, a, out=out)
    assert np.all(out == 7), "written on failure"
    expect_error("CLIK_ERR_SIZE_MISMATCH", ctx.ssim, noise((16, 16)), noise((16, 17)))
    expect_error("CLIK_ERR_SIZE_MISMATCH", ctx.flow_tvl1, noise((16, 16)), noise((17, 16)))
    with pytest.raises(ValueError):
        ctx.pyr_down(a, out=np.empty((9, 8), np.uint8))


def test_channel_and_dtype_mismatch(ctx):
    a = noise((16, 16, 4))
    with pytest.raises((clik.Error, ValueError, TypeError)):
        ctx.hist_equalize(a, out=np.empty((16, 16), np.uint8))
    with pytest.raises((clik.Error, ValueError, TypeError)):
        ctx.hist_equalize(a, out=np.empty((16, 16, 4), np.float32))
    with pytest.raises((clik.Error, ValueError)):
        ctx.gray(noise((16, 16)))  # gray needs colour


def test_bad_options(ctx):
    a = noise((32, 32))
    expect_error("CLIK_ERR_INVALID_ARG", ctx.flow_tvl1, a, a, tau=0.5)
    expect_error("CLIK_ERR_INVALID_ARG", ctx.flow_tvl1, a, a, zoom=1.0)
    with pytest.raises(ValueError):  # clik.Error INVALID_ARG is a ValueError too
        ctx.upscale_lapar(a, 5)
    with pytest.raises(ValueError):
        ctx.upscale_fusion(noise((8, 8, 4)), 9)
    with pytest.raises(ValueError):
        ctx.resize(a, method="lanczos", size=(8, 8))
    with pytest.raises((ValueError, TypeError)):
        ctx.resize(a)  # neither a size nor a scale nor out
    with pytest.raises(ValueError):
        ctx.flow_tvl1(a, a, storage="f8")
    with pytest.raises((ValueError, TypeError)):
        ctx.hist_lut(a, np.zeros(255, np.uint8))  # not 256 entries
    with pytest.raises((ValueError, TypeError, clik.Error)):
        ctx.hist_lut(a, np.zeros((3, 256), np.uint8))  # 3 tables for one channel
    with pytest.raises((ValueError, clik.Error)):
        ctx.flow_tvl1(a, a, initial=np.zeros((32, 31, 2), np.float32))
    expect_error("CLIK_ERR_INVALID_ARG", ctx.lapar_compress,
                 [(np.zeros((72 * 8, 8), np.float32), np.zeros((8, 8), np.float32),
                   np.zeros((8, 8), np.float32))], 0.0)


def test_resize_size_and_scale_contradict(ctx):
    """A size and a scale together: refused, not one of them ignored."""
    a = noise((32, 32))
    with pytest.raises((ValueError, TypeError)):
        ctx.resize(a, (8, 8), scale=2.0)
    with pytest.raises((ValueError, clik.Error)):
        ctx.resize(a, (8, 8), out=np.empty((9, 8), np.uint8))


def test_bad_context_options():
    with pytest.raises((ValueError, TypeError)):
        clik.Context(device="none", cpu_path="avx")
    if not clik.cpu_path_available("neon"):
        expect_error("CLIK_ERR_NO_NEON", clik.Context, device="none", cpu_path="neon")
    with pytest.raises(TypeError):
        clik.Context("none", no_such_option=1)


def test_lapar_bad_phi_and_selection(ctx):
    lr = noise((4, 5))
    expect_error("CLIK_ERR_SIZE_MISMATCH", ctx.lapar_filter, lr, np.zeros((72 * 8, 9), np.float32),
                 2)
    with pytest.raises((clik.Error, ValueError)):
        ctx.lapar_filter(lr, np.zeros((71 * 8, 10), np.float32), 2)
    with pytest.raises((clik.Error, ValueError)):
        ctx.lapar_filter(lr, np.zeros((72 * 8, 10), np.uint8), 2)
    with pytest.raises((clik.Error, ValueError)):  # an index past the dictionary
        sel = clik.LaparSelection(72, [3, 80], [1.0, 1.0])
        ctx.lapar_filter(lr, np.zeros((2 * 8, 10), np.float32), 2, selection=sel)
    with pytest.raises((clik.Error, ValueError)):  # indices not increasing
        sel = clik.LaparSelection(72, [5, 3], [1.0, 1.0])
        ctx.lapar_filter(lr, np.zeros((2 * 8, 10), np.float32), 2, selection=sel)
    with pytest.raises((clik.Error, ValueError)):  # a dictionary not of 25 taps
        ctx.lapar_filter(lr, np.zeros((3 * 8, 10), np.float32), 2,
                         dictionary=np.zeros((3, 24), np.float32))


# ---- files, contexts, Images -------------------------------------------------------------------


def test_model_read_garbage(ctx):
    expect_error("CLIK_ERR_FILE_FORMAT", ctx.lapar_model_read, b"garbage, not a model at all")
    expect_error("CLIK_ERR_FILE_FORMAT", ctx.lapar_model_read, b"")
    data = ctx.lapar_model_write(clik.lapar_model_default())
    expect_error("CLIK_ERR_FILE_FORMAT", ctx.lapar_model_read, data[: len(data) // 2])
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    expect_error("CLIK_ERR_FILE_FORMAT", ctx.lapar_model_read, bytes(flipped))
    # a bytes-like object other than bytes reads too
    assert ctx.lapar_model_write(ctx.lapar_model_read(bytearray(data))) == data


def test_model_load_garbage(ctx, tmp_path):
    p = tmp_path / "bad.clikm"
    p.write_bytes(b"CLIKLPM\0" + bytes(40))
    expect_error("CLIK_ERR_FILE_FORMAT", ctx.lapar_model_load, p)


def test_closed_context_raises():
    c = clik.Context(device="none", cpu_path="scalar")
    img = c.upload(noise((8, 8)))
    c.close()
    a = noise((8, 8))
    for call in (lambda: c.hist_equalize(a), lambda: c.hist_compute(a), lambda: c.upload(a),
                 lambda: c.stats(), lambda: c.lapar_trainer(),
                 lambda: c.lapar_model_write(clik.lapar_model_default())):
        with pytest.raises(Exception):
            call()
    with pytest.raises(Exception):
        img.download()
    c.close()


def test_image_after_free_raises(ctx):
    img = ctx.upload(noise((8, 8)))
    img.free()
    with pytest.raises(Exception):
        img.download()
    with pytest.raises(Exception):
        ctx.hist_equalize(img)
    with pytest.raises(Exception):
        img.upload(noise((8, 8)))
    img.free()  # a second free is harmless


def test_image_of_another_context():
    with clik.Context(device="none", cpu_path="scalar") as a, \
            clik.Context(device="none", cpu_path="scalar") as b:
        img = a.upload(noise((8, 8)))
        with pytest.raises((clik.Error, ValueError)):
            b.hist_equalize(img)
        with pytest.raises((clik.Error, ValueError)):
            b.download(img)
        img.free()


def test_image_upload_mismatch(ctx):
    img = ctx.image((8, 8))
    with pytest.raises((clik.Error, ValueError)):
        img.upload(noise((8, 9)))
    with pytest.raises((clik.Error, ValueError, TypeError)):
        img.upload(noise((8, 8), np.float32))
    with pytest.raises((clik.Error, ValueError)):
        img.download(out=np.empty((9, 8), np.uint8))
    img.free()


def test_read_only_out(ctx):
    a = noise((8, 8))
    out = np.full((8, 8), 5, np.uint8)
    out.flags.writeable = False
    expect_naming((ValueError, TypeError, BufferError), "out", ctx.hist_equalize, a, out=out)
    assert np.all(out == 5)
    # a read-only input is fine
    a.flags.writeable = False
    assert ctx.hist_equalize(a).shape == (8, 8)


def test_fusion_stream_frame_of_another_size(ctx):
    frames = [noise((8, 8, 4), seed=1), noise((8, 9, 4), seed=2)]
    with pytest.raises((clik.Error, ValueError)):
        list(ctx.fusion_stream(frames, 2))
    with pytest.raises((clik.Error, ValueError)):
        list(ctx.fusion_stream([noise((8, 8))], 2))  # not RGBA


def test_trainer_bad_image(ctx):
    t = ctx.lapar_trainer()
    with pytest.raises((clik.Error, ValueError)) as e:
        t.add(noise((8, 8, 2)))
    if isinstance(e.value, clik.Error):
        assert e.value.status == "CLIK_ERR_UNSUPPORTED_FORMAT"
    expect_error("CLIK_ERR_INVALID_ARG", ctx.lapar_trainer, window=4)


# ---- strict contexts ---------------------------------------------------------------------------


def test_strict_context_refuses_fallback(tmp_path):
    """A device that cannot run an op (its kernel folder lacks the kernels):
    a strict context fails with CLIK_ERR_FALLBACK, a lax one falls back."""
    why = skip_reason("opencl")
    if why:
        pytest.skip(why)
    (tmp_path / "hist.cl").write_text("__kernel void unrelated(__global int *p) { p[0] = 1; }\n")
    a = noise((16, 16))
    with make_context("opencl", kernel_dir=str(tmp_path), cache=False) as strict:
        err = expect_error("CLIK_ERR_FALLBACK", strict.hist_equalize, a)
        assert "STRICT" in err.message
        assert strict.fallback_cause is not None
        assert strict.stats()["fallbacks"] == 0
    warnings = []
    with clik.Context(opencl_device_spec(), strict=False, kernel_dir=str(tmp_path), cache=False,
                      log=lambda level, msg: warnings.append((level, msg))) as lax:
        with clik.Context(device="none", cpu_path="scalar") as oracle:
            assert np.array_equal(lax.hist_equalize(a), oracle.hist_equalize(a))
        assert lax.last_backend in ("scalar", "neon")
        assert lax.stats()["fallbacks"] == 1
    assert warnings, "the fall back should be logged"


def test_overlapping_outputs_refused(ctx):
    a = noise((20, 24, 4), seed=3)
    before = a.copy()
    expect_error("CLIK_ERR_INVALID_ARG", ctx.pyr_down, a, out=a[:10, :12])
    expect_error("CLIK_ERR_INVALID_ARG", ctx.gaussian_blur, a[:, :20], 3, out=a[:, 4:24])
    assert np.array_equal(a, before), "written on failure"


REENTRY = {
    "progress": """
        import numpy as np, clik
        c = clik.Context(device="none", cpu_path="scalar")
        def progress(stage, done, total):
            c.hist_equalize(np.zeros((4, 4), np.uint8))
        t = c.lapar_trainer(progress=progress)
        try:
            t.add(np.random.default_rng(0).integers(0, 256, (24, 24), dtype=np.uint8))
        except Exception as e:
            print("raised", type(e).__name__)
        else:
            print("returned")
    """,
    "log": """
        import numpy as np, clik, sys
        calls = []
        def log(level, message):
            if ctx:
                calls.append(ctx[0].hist_compute(np.zeros((4, 4), np.uint8)))
        ctx = []
        c = clik.Context(sys.argv[1], strict=False, kernel_dir=sys.argv[2], cache=False, log=log)
        ctx.append(c)
        c.hist_equalize(np.zeros((8, 8), np.uint8))  # falls back, and logs that
        print("returned")
    """,
}


@pytest.mark.parametrize("callback", sorted(REENTRY))
def test_callback_calling_its_own_context_does_not_hang(callback, tmp_path):
    """An op on a context from inside that context's own callback (log,
    trainer progress) fails or runs, but does not wait for itself forever."""
    args = []
    if callback == "log":
        why = skip_reason("opencl")
        if why:
            pytest.skip(why)
        (tmp_path / "hist.cl").write_text("__kernel void unrelated(__global int *p) { p[0] = 1; }\n")
        args = [opencl_device_spec() or "auto", str(tmp_path)]
    try:
        run = subprocess.run([sys.executable, "-c", textwrap.dedent(REENTRY[callback])] + args,
                             capture_output=True, text=True, timeout=15)
    except subprocess.TimeoutExpired:
        run = None
    assert run is not None, f"an op called from the {callback} callback on its own context hangs"
    assert run.returncode == 0, run.stderr
    assert "raised" in run.stdout or "returned" in run.stdout, run.stdout


# ---- the CPU path's threads ---------------------------------------------------------------------


def test_threads_refused():
    expect_error("CLIK_ERR_INVALID_ARG", clik.Context, device="none", threads=-5)
    expect_error("CLIK_ERR_INVALID_ARG", clik.Context, device="none", threads=257)


@pytest.mark.skipif(not clik.cpu_path_available("neon"), reason="no NEON path in this build")
def test_threads_agree():
    a = noise((301, 167, 4))
    one = clik.Context(device="none", cpu_path="neon", threads=1)
    three = clik.Context(device="none", cpu_path="neon", threads=3)
    try:
        assert np.array_equal(one.gaussian_blur(a, 7), three.gaussian_blur(a, 7))
    finally:
        one.close()
        three.close()

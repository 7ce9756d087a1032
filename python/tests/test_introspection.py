"""The package introspects: inspect.signature works for every public
function, method and class (the extension's docstrings carry text
signatures), each docstring has a line per parameter ("name: ..."), which
help() shows, mypy.stubtest finds __init__.pyi true to the module, and a
device image converts with np.asarray by downloading."""
import inspect
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import clik


def public_callables():
    """(label, object) of every public function, class and method."""
    for name in sorted(clik.__all__):
        obj = getattr(clik, name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            yield name, obj
            for member in sorted(dir(obj)):
                attr = inspect.getattr_static(obj, member)
                if (not member.startswith("_") or member == "__array__") and callable(
                        getattr(obj, member)) and not isinstance(attr, property):
                    yield f"{name}.{member}", getattr(obj, member)
        elif callable(obj) and not inspect.isclass(obj):
            yield name, obj
    yield "FusionStream", clik.FusionStream
    for member in ("submit", "wait", "close"):
        yield f"FusionStream.{member}", getattr(clik.FusionStream, member)


CALLABLES = list(public_callables())


def documented(obj):
    """The docstring that describes obj's parameters (a class: its own, or
    that of the extension type whose constructor it inherits)."""
    if inspect.isclass(obj):
        return "\n".join(c.__doc__ or "" for c in obj.__mro__ if c is not object)
    return obj.__doc__ or ""


@pytest.mark.parametrize("label,obj", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_signature_and_a_line_per_parameter(label, obj):
    sig = inspect.signature(obj)
    doc = documented(obj)
    lines = {m.group(1) for m in re.finditer(r"^\s*(\w+): ", doc, re.M)}
    missing = [p for p in sig.parameters if p not in ("self", "cls") and p not in lines]
    assert not missing, f"{label}{sig}: no line on {missing} in its docstring"


def test_enough_is_checked():
    assert len(CALLABLES) >= 65
    assert str(inspect.signature(clik.Context.resize)) == (
        "(self, /, src, size=None, *, scale=None, method='bilinear', out=None)")


def test_help_shows_the_arguments():
    text = clik.Context.gaussian_blur.__doc__
    import pydoc
    shown = pydoc.render_doc(clik.Context.gaussian_blur, renderer=pydoc.plaintext)
    assert "gaussian_blur(self, /, src, ksize, sigma=0.0, out=None)" in shown
    for line in text.splitlines()[1:]:
        assert line.strip() in shown


@pytest.mark.parametrize("device", ["none", "opencl"])
def test_asarray_downloads(device):
    if device == "opencl":
        if not clik.devices():
            pytest.skip("no OpenCL device")
        ctx = clik.Context(strict=True)
        if ctx.device is None:
            ctx.close()
            pytest.skip("no OpenCL device selected")
    else:
        ctx = clik.Context("none", cpu_path="scalar")
    with ctx:
        a = (np.arange(7 * 5 * 4) % 251).astype(np.uint8).reshape(7, 5, 4)
        img = ctx.upload(a)
        got = np.asarray(img)
        assert got.dtype == np.uint8 and got.shape == (7, 5, 4)
        assert np.array_equal(got, a)
        assert np.array_equal(np.asarray(img, dtype=np.float32), a.astype(np.float32))
        # an op's device result
        eq = ctx.hist_equalize(img)
        assert isinstance(eq, clik.Image)
        assert np.array_equal(np.asarray(eq), ctx.hist_equalize(a))
        with pytest.raises(ValueError, match="download"):
            img.__array__(copy=False)
        img.free()
        with pytest.raises(clik.ArgumentError, match="freed"):
            np.asarray(img)


# ---- mypy.stubtest ------------------------------------------------------------------------------

ALLOWLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubtest_allowlist.txt")


def mypy_path():
    """A folder holding mypy (CLIK_PY_DEPS, else one under the temporary
    folder, filled by pip when mypy is missing), or None with the reason."""
    try:
        import mypy.stubtest  # noqa: F401
        return "", None
    except ImportError:
        pass
    deps = os.environ.get("CLIK_PY_DEPS") or os.path.join(
        tempfile.gettempdir(), f"clik-py-deps-{sys.version_info[0]}.{sys.version_info[1]}")
    if not os.path.isdir(os.path.join(deps, "mypy")):
        r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                            "--disable-pip-version-check", "--target", deps, "mypy"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            return None, f"mypy is not installed and pip could not install it: {r.stderr[-300:]}"
    return deps, None


def test_stubtest():
    if "scalar" not in os.environ.get("CLIK_PY_BACKEND", "scalar"):
        pytest.skip("stubtest runs once, with the CPU backends' suite")
    deps, why = mypy_path()
    if why:
        pytest.skip(why)
    package = os.path.dirname(os.path.dirname(os.path.abspath(clik.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, deps, env.get("PYTHONPATH")) if p)
    cache = os.path.join(deps or tempfile.gettempdir(), "mypy-cache")
    os.makedirs(cache, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--concise",
                        "--ignore-disjoint-bases", "--allowlist", ALLOWLIST, "clik"],
                       capture_output=True, text=True, env=env, cwd=cache, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr

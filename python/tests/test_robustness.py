"""What callbacks, fork() and signals may do to a call in progress: refused
with a clear exception, never a crash or a hang; integers out of range
refused rather than truncated. Anything that could hang runs in a
subprocess with a timeout."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import clik
from conftest import make_context, noise, opencl_device_spec, selected_backends, skip_reason


def run_script(script, *args, timeout=60):
    """Runs a Python script in a new interpreter; None when it hung past
    timeout."""
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(script)] + list(args),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def cpu_or_skip():
    """The CPU-only tests run with the scalar backend (python-cpu), once."""
    if "scalar" not in selected_backends():
        pytest.skip("the CPU path is not selected by CLIK_PY_BACKEND")


def opencl_spec_or_skip():
    why = skip_reason("opencl")
    if why:
        pytest.skip(why)
    return opencl_device_spec() or "auto"


# ---- integers out of range ---------------------------------------------------------------------


def lapar_problem():
    lr = noise((12, 16, 4), seed=12)
    phi = np.ascontiguousarray(
        np.random.default_rng(13).random((72 * 24, 32), dtype=np.float32) / 12)
    return lr, phi


@pytest.mark.parametrize("key", ["wg_x", "wg_y"])
@pytest.mark.parametrize("value", [2**32 + 64, 2**31, -2**31 - 1, 2**64 + 1])
def test_lapar_tuning_set_refuses_what_int_cannot_hold(key, value, tmp_path):
    """wg_x = 2**32 + 64 was stored as 64: now OverflowError, nothing stored
    (on a context without a device the check comes first all the same)."""
    lr, phi = lapar_problem()
    backends = ["none"] if skip_reason("opencl") else ["none", "opencl"]
    for backend in backends:
        if backend == "none":
            ctx = clik.Context(device="none", cpu_path="scalar")
        else:
            ctx = make_context("opencl", cache_dir=str(tmp_path))
        with ctx:
            tuning = {"variant": "direct", "wg_x": 8, "wg_y": 8, key: value}
            with pytest.raises(OverflowError) as e:
                ctx.lapar_tuning_set(lr, phi, 2, tuning)
            assert key in str(e.value) and str(value) in str(e.value), str(e.value)
            if backend == "opencl":
                assert not ctx.lapar_tuning_get(lr, phi, 2)["stored"]


def test_int_fields_in_range_still_taken(tmp_path):
    """The largest int passes the binding (the library judges it)."""
    lr, phi = lapar_problem()
    with clik.Context(device="none") as ctx:
        with pytest.raises(clik.Error) as e:
            ctx.lapar_tuning_set(lr, phi, 2, {"variant": "direct", "wg_x": 2**31 - 1, "wg_y": 1})
        assert e.value.status == "CLIK_ERR_NO_DEVICE"


def test_selection_index_out_of_range_refused():
    """An index of 2**32 + 3 was taken as 3."""
    lr, phi = lapar_problem()
    with clik.Context(device="none", cpu_path="scalar") as ctx:
        sel = clik.LaparSelection(72, [2**32 + 3])
        with pytest.raises(OverflowError) as e:
            ctx.lapar_filter(lr, phi[:24], 2, selection=sel)
        assert "selection.index" in str(e.value)


@pytest.mark.parametrize("seed", [-1, 2**64, 2**64 + 1])
def test_compress_seed_out_of_range_refused(seed):
    """A seed past 64 bits (or negative) was wrapped."""
    rng = np.random.default_rng(3)
    phi = np.ascontiguousarray(rng.random((72 * 16, 16), dtype=np.float32))
    up = np.ascontiguousarray(rng.random((16, 16), dtype=np.float32) * 255)
    with clik.Context(device="none", cpu_path="scalar") as ctx:
        with pytest.raises(OverflowError) as e:
            ctx.lapar_compress([(phi, up, up)], 0.1, samples=64, seed=seed)
        assert "seed" in str(e.value)


def test_stream_wait_ticket_out_of_range_refused():
    with clik.Context(device="none") as ctx:
        stream = clik.FusionStream(ctx, 8, 8, 2)
        try:
            for ticket in (-1, 2**64):
                with pytest.raises(OverflowError) as e:
                    stream.wait(ticket)
                assert "ticket" in str(e.value)
            stream.wait(2**64 - 1)
        finally:
            stream.close()


# ---- callbacks that free or close what is in use -------------------------------------------------

# The log callback of a context without a device: the flow's debug line,
# written while the call holds the context.
FLOW_LOG = """
    import numpy as np, clik, sys
    caught = []
    def log(level, message):
        if "flow_tvl1" in message and target:
            try:
                target[0]()
            except RuntimeError as e:
                caught.append(str(e))
    target = []
    c = clik.Context(device="none", cpu_path="scalar", log=log)
    a = np.random.default_rng(1).integers(0, 256, (24, 32), dtype=np.uint8)
    # An image for free() to take; none for close(), which then has nothing
    # to wait for and would destroy the context at once.
    img = c.upload(a) if "{what}" == "img.free" else a
    target.append({what})
    flow = c.flow_tvl1(img, np.roll(a, 1, axis=1), iterations=10, warps=1)
    print("caught:", caught)
    c.flow_tvl1(img, np.roll(a, 1, axis=1), iterations=10, warps=1)  # both still usable
    print("usable")
"""


@pytest.mark.parametrize("what", ["img.free", "c.close"])
def test_log_callback_cannot_free_or_close_in_use(what):
    """Context.close() from a log callback hung for ever; Image.free()
    freed an image an op was using. Both raise RuntimeError now."""
    cpu_or_skip()
    run = run_script(FLOW_LOG.replace("{what}", what), timeout=60)
    assert run is not None, f"{what}() from a log callback hangs"
    assert run.returncode == 0, run.stderr
    assert "caught: ['" in run.stdout and "callback" in run.stdout, run.stdout + run.stderr
    assert "usable" in run.stdout


# The same on an OpenCL device: a kernel folder whose hist.cl does not hold
# the kernels makes equalize fall back to the CPU and log a warning while
# the device image is bound.
CL_LOG = """
    import numpy as np, clik, sys
    caught = []
    def log(level, message):
        if level == "warning" and target:
            try:
                target[0]()
            except RuntimeError as e:
                caught.append(str(e))
    target = []
    c = clik.Context(sys.argv[1], strict=False, kernel_dir=sys.argv[2], cache=False, log=log)
    img = c.upload(np.arange(64, dtype=np.uint8).reshape(8, 8))
    target.append({what})
    out = c.hist_equalize(img)
    print("caught:", caught)
    print("result", c.download(out).shape)
"""


@pytest.mark.parametrize("what", ["img.free", "c.close"])
def test_log_callback_cannot_free_or_close_on_device(what, tmp_path):
    """On PoCL freeing the image aborted the interpreter ("PTHREAD ERROR")."""
    spec = opencl_spec_or_skip()
    (tmp_path / "hist.cl").write_text("__kernel void unrelated(__global int *p) { p[0] = 1; }\n")
    run = run_script(CL_LOG.replace("{what}", what), spec, str(tmp_path), timeout=60)
    assert run is not None, f"{what}() from a log callback hangs"
    assert run.returncode == 0, run.stderr
    assert "caught: ['" in run.stdout, run.stdout + run.stderr
    assert "result (8, 8)" in run.stdout


def test_image_free_outside_callbacks_still_works():
    with clik.Context(device="none") as ctx:
        img = ctx.upload(np.zeros((4, 4), np.uint8))
        img.free()
        with pytest.raises(ValueError):
            ctx.hist_equalize(img)


# ---- fork() ------------------------------------------------------------------------------------

FORK = """
    import os, sys, numpy as np, clik
    os.environ.pop("CLIK_DEVICE", None)  # Context() is "auto"
    spec = sys.argv[1]
    a = np.random.default_rng(2).integers(0, 256, (32, 40), dtype=np.uint8)
    parent = clik.Context(spec, strict=True)
    dev_img = parent.upload(a)
    parent.hist_equalize(a)
    pid = os.fork()
    if pid == 0:
        lines = []
        def attempt(name, call):
            try:
                call()
                lines.append(name + ": ran")
            except RuntimeError as e:
                lines.append(name + ": RuntimeError " + str(e))
        attempt("new context", lambda: clik.Context(spec))
        attempt("auto context", lambda: clik.Context())
        attempt("inherited context", lambda: parent.hist_equalize(a))
        attempt("devices", clik.devices)
        with clik.Context("none") as cpu:
            lines.append("none: " + str(cpu.hist_equalize(a).shape))
            lines.append("none flow: " + str(cpu.flow_tvl1(a, a, iterations=10).shape))
        del dev_img, parent  # their OpenCL objects are left alone
        with open(sys.argv[2], "w") as f:
            f.write("\\n".join(lines) + "\\n")
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child status", status)
    print("parent still runs", parent.hist_equalize(a).shape)
"""


def test_forked_child_refuses_opencl_with_advice(tmp_path):
    """After fork() every OpenCL call of the child hung (PoCL), even with a
    new Context: now a RuntimeError naming the fix; device 'none' runs."""
    spec = opencl_spec_or_skip()
    report = tmp_path / "child.txt"
    run = run_script(FORK, spec, str(report), timeout=90)
    assert run is not None, "the forked child (or its parent) hangs"
    assert run.returncode == 0, run.stderr
    assert "child status 0" in run.stdout, run.stdout + run.stderr
    assert "parent still runs (32, 40)" in run.stdout
    lines = report.read_text().splitlines()
    for name in ("new context", "auto context", "inherited context", "devices"):
        line = next((l for l in lines if l.startswith(name + ":")), "")
        assert "RuntimeError" in line and "'spawn'" in line and "device='none'" in line, lines
    assert "none: (32, 40)" in lines
    assert "none flow: (32, 40, 2)" in lines


SPAWN = """
    import multiprocessing as mp, sys, numpy as np, clik

    def work(spec):
        with clik.Context(spec) as c:
            return c.hist_equalize(np.arange(16, dtype=np.uint8).reshape(4, 4)).shape

    if __name__ == "__main__":
        spec = sys.argv[1]
        with clik.Context(spec) as c:
            c.hist_equalize(np.zeros((4, 4), np.uint8))
        with mp.get_context("spawn").Pool(1) as pool:
            print("spawned", pool.apply(work, (spec,)))
"""


def test_spawned_workers_use_opencl(tmp_path):
    """The advice holds: a 'spawn' worker of a process that used OpenCL
    runs on the device."""
    spec = opencl_spec_or_skip()
    script = tmp_path / "spawn_main.py"
    script.write_text(textwrap.dedent(SPAWN))
    try:
        run = subprocess.run([sys.executable, str(script), spec], capture_output=True, text=True,
                             timeout=120, env=dict(os.environ))
    except subprocess.TimeoutExpired:
        run = None
    assert run is not None, "a spawned worker hangs"
    assert run.returncode == 0, run.stderr
    assert "spawned (4, 4)" in run.stdout


def test_fork_without_opencl_is_unaffected():
    """A process that never loaded OpenCL (device 'none', or no OpenCL
    library: CLIK_OPENCL_LIBRARY=none) forks children that may make any
    context."""
    cpu_or_skip()
    script = """
        import os, sys, numpy as np, clik
        os.environ["CLIK_OPENCL_LIBRARY"] = "none"
        os.environ.pop("CLIK_DEVICE", None)
        c = clik.Context("none")
        c.hist_equalize(np.zeros((4, 4), np.uint8))
        auto = clik.Context()  # no OpenCL library: the CPU
        print("devices", clik.devices(), auto.device)
        pid = os.fork()
        if pid == 0:
            ok = c.hist_equalize(np.zeros((4, 4), np.uint8)).shape == (4, 4)
            ok = ok and clik.Context().hist_equalize(np.zeros((4, 4), np.uint8)).shape == (4, 4)
            ok = ok and clik.devices() == []
            os._exit(0 if ok else 3)
        print("child", os.waitpid(pid, 0)[1])
    """
    run = run_script(script, timeout=60)
    assert run is not None and run.returncode == 0, run and run.stderr
    assert "devices [] None" in run.stdout and "child 0" in run.stdout, run.stdout


# ---- signals during long calls -----------------------------------------------------------------

SIGNAL = """
    import os, signal, sys, threading, time, numpy as np, clik
    spec = sys.argv[1]
    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, (int(sys.argv[2]), int(sys.argv[3])), dtype=np.uint8)
    b = np.roll(a, 2, axis=1)
    c = clik.Context(spec, cpu_path="scalar") if spec == "none" else clik.Context(spec, strict=True)
    c.flow_tvl1(a[:16, :16], b[:16, :16], iterations=10)  # kernels built before the clock runs
    sent = []
    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(1.0, interrupt).start()
    start = time.monotonic()
    try:
        c.flow_tvl1(a, b, epsilon=0.0, iterations=1000, warps=10)
        print("finished after %.2f s" % (time.monotonic() - start))
    except KeyboardInterrupt:
        print("interrupted %.2f s after the signal" % (time.monotonic() - sent[0]))
    print("usable", c.flow_tvl1(a[:16, :16], b[:16, :16], iterations=10).shape)
"""


@pytest.mark.parametrize("backend", ["cpu", "opencl"])
def test_ctrl_c_stops_a_long_flow(backend):
    """flow_tvl1 ignored Ctrl-C until it finished (216 s on the CPU path):
    a SIGINT during the flow now raises KeyboardInterrupt within a bounded
    time (a step: 10 iterations), and the context goes on working."""
    if backend == "cpu":
        cpu_or_skip()
        spec = "none"
    else:
        spec = opencl_spec_or_skip()
    # Sizes that run for a minute or more when not interrupted (2 cores).
    h, w = (320, 400) if backend == "cpu" else (720, 960)
    run = run_script(SIGNAL, spec, str(h), str(w), timeout=240)
    assert run is not None, "the flow hangs"
    assert run.returncode == 0, run.stderr
    assert "interrupted" in run.stdout, run.stdout
    after = float(run.stdout.split("interrupted ")[1].split(" s")[0])
    assert after < 3.0, run.stdout
    assert "usable (16, 16, 2)" in run.stdout


TRAIN_SIGNAL = """
    import os, signal, threading, time, numpy as np, clik
    c = clik.Context("none", cpu_path="scalar")
    t = c.lapar_trainer()
    hr = np.random.default_rng(6).integers(0, 256, (3072, 3072), dtype=np.uint8)
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        t.add(hr)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
    print("samples", t.samples)
"""


def test_ctrl_c_stops_a_trainer_without_progress():
    """A LAPAR trainer without a progress callable checks the signals too,
    between the rows it accumulates: the image (seconds of work) is not
    added to the end."""
    cpu_or_skip()
    run = run_script(TRAIN_SIGNAL, timeout=120)
    assert run is not None, "the trainer hangs"
    assert run.returncode == 0, run.stderr
    assert "interrupted" in run.stdout, run.stdout
    samples = int(run.stdout.split("samples ")[1])
    assert samples < 3072 * 3072, run.stdout


def test_flow_progress_callable():
    """progress(done, total, iteration): called between the steps; False
    stops the flow (clik.Error CLIK_ERR_CANCELLED); an exception it raises
    comes out of flow_tvl1."""
    a = noise((40, 48), seed=9)
    b = np.roll(a, 1, axis=1)
    with clik.Context(device="none", cpu_path="scalar") as ctx:
        calls = []
        plain = ctx.flow_tvl1(a, b, warps=2, iterations=20, epsilon=0.0)
        got = ctx.flow_tvl1(a, b, warps=2, iterations=20, epsilon=0.0,
                            progress=lambda *args: calls.append(args))
        assert np.array_equal(got, plain)
        total = calls[-1][1]
        assert calls[-1] == (total, total, 0) and total % 2 == 0
        assert [c for c in calls if c[2] == 0] == [(k, total, 0) for k in range(1, total + 1)]
        assert all(c[2] % 10 == 0 for c in calls)
        with pytest.raises(clik.Error) as e:
            ctx.flow_tvl1(a, b, progress=lambda *args: False)
        assert e.value.status == "CLIK_ERR_CANCELLED"

        def boom(*args):
            raise ValueError("stop here")
        with pytest.raises(ValueError, match="stop here"):
            ctx.flow_tvl1(a, b, progress=boom)
        with pytest.raises(TypeError):
            ctx.flow_tvl1(a, b, progress=3)

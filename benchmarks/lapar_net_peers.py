#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The released LAPAR networks through clik against their peers, on the same
input and the same cores, in one run.

The peers run an ONNX graph of the network that this script builds from the
released weights (weights/LAPAR_<V>_x<S>.npz of the shared LAPAR material,
--lapar; the layers as its README sections 3 and 6 describe them) with the
`onnx` package: RGB float input 1x3xHxW on [0, 1]; WeightNet (mean
subtraction, head, the LFBs with their AWRUs and learned scales, up
convolution, ReLU and PixelShuffle as DepthToSpace mode CRD, the 3x3 / 5x5
tail with its scales, fuse, the last convolution: phi); the bicubic upsample
as an edge pad of 2, a grouped 5x5 convolution with the phase weights and
the same DepthToSpace; the filter as a reflect-101 pad of 2, a grouped
convolution with the 72 atoms per colour (216 responses), times phi three
times over, summed per colour by a 1x1 convolution of 0/1 weights. Output
1x3xsHxsW, unclamped. Static input shape, one graph per size.

Before any timing the graph is checked: onnxruntime (and OpenCV DNN) on the
golden cases (max |out - golden out| and |phi - golden phi| must be at
most 1e-5) and against the shared ONNX file of LAPAR-A on the timed input.

Timed, each runtime in its own process, pinned to the same --cores and
limited to --threads threads, the processes taking turns for --rounds
rounds (one warm-up call in each process, then --reps timed calls; the
table shows the median and the fastest of all timed calls):
  - onnxruntime, CPU execution provider, intra_op_num_threads = --threads;
  - OpenCV DNN (cv2.dnn.readNetFromONNX of the graph, DNN_TARGET_CPU,
    cv2.setNumThreads); with --opencl also DNN_TARGET_OPENCL on the PoCL
    CPU device (OPENCV_OPENCL_DEVICE=:CPU:, OPENCV_DNN_OPENCL_ALLOW_ALL_DEVICES=1;
    its kernel builds take minutes, so it runs in the first round only);
  - PyTorch on the CPU (torch.set_num_threads), when /usr/bin/python3 can
    import torch: the network written with torch.nn.functional;
  - clik through its Python package (--python: a build's python/ folder)
    on PoCL (POCL_MAX_PTHREAD_COUNT = --threads) and on the CPU path (one
    thread; --none-reps calls, one a round, no warm-up: the scalar path
    takes a minute per call at 320x180). clik gets the same pixels as RGB u8
    HxWx3: the copy into RGBA and out of it is in its time, as a user pays
    it. --clik-f32 adds clik on float32 RGBA (0..255) from the float tensor.
The peers are timed from the float tensor (the graph's input); turning an
RGB u8 image into it and back costs well under 1 % of these times.

onnx, onnxruntime and opencv-contrib-python-headless 5.x come from PyPI in
a virtual environment (--venv DIR: made when missing, with
`/usr/bin/python3 -m venv --system-site-packages`, then pip install; reused
when present). The input is clik-bench's natural-looking RGBA field
(--dump-input; its RGB channels). Each output is compared with
onnxruntime's: max |diff| on the [0, 1] scale, and for u8 outputs the
samples that differ by more than 1 from onnxruntime's output rounded as
Simple-SR's tensor2img does.

Example (the issue's case, LAPAR-A x2 at 320x180, 2 cores):
    /usr/bin/python3 benchmarks/lapar_net_peers.py --python build/python \\
        --bench build/benchmarks/clik-bench --venv /tmp/lapar-peers-venv \\
        --models A --scales 2 --sizes 320x180 --rounds 5 --reps 1 \\
        --out benchmarks/results/lapar-net-peers-2core.md
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

from lapar_net_onnx import IR_VERSION, OPSET, lapar_graph, weights_path

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_LAPAR = os.path.join(os.path.dirname(REPO), "shared", "lapar-a")
SYSTEM_PYTHON = "/usr/bin/python3"
VENV_PACKAGES = ["onnx", "onnxruntime", "opencv-contrib-python-headless>=5,<6"]
GOLDEN_TOL = 1e-5
# The targets of the issue, clik PoCL (u8) against each peer's median
TARGETS = {"ort": 1.0, "cv_cpu": 0.6}

RUNTIMES = {
    # key: (label, python: "venv" or "system")
    "ort": ("onnxruntime (CPU EP)", "venv"),
    "cv_cpu": ("OpenCV DNN, CPU", "venv"),
    "cv_ocl": ("OpenCV DNN, OpenCL (PoCL CPU)", "venv"),
    "torch": ("PyTorch, CPU", "system"),
    "clik_pocl": ("clik, PoCL, RGB u8", "system"),
    "clik_pocl_f32": ("clik, PoCL, float32", "system"),
    "clik_none": ("clik, CPU path, RGB u8", "system"),
}


def fail(msg):
    print(f"lapar_net_peers: {msg}", file=sys.stderr)
    sys.exit(1)


def log(msg):
    print(f"lapar_net_peers: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Workers: one process per job (python lapar_net_peers.py --worker JOB.json)
# --------------------------------------------------------------------------


def limit_threads(job):
    """Pin this process to the job's cores before any runtime is imported."""
    cores = job.get("cores")
    if cores:
        os.sched_setaffinity(0, cores)


def cv_net(cv2, path, engine, target):
    """(net, engine used): readNetFromONNX with the engine asked for; 'auto'
    tries the new engine and falls back to the classic one (OpenCV's own
    ENGINE_AUTO rule, made visible)."""
    order = {"auto": ["new", "classic"], "new": ["new"], "classic": ["classic"]}[engine]
    if target == "opencl":
        order = ["classic"]  # the new engine runs on the CPU only
    err = None
    for name in order:
        try:
            net = cv2.dnn.readNetFromONNX(path, {"new": cv2.dnn.ENGINE_NEW,
                                                 "classic": cv2.dnn.ENGINE_CLASSIC}[name])
            net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
            net.setPreferableTarget(cv2.dnn.DNN_TARGET_OPENCL if target == "opencl"
                                    else cv2.dnn.DNN_TARGET_CPU)
            return net, name
        except cv2.error as e:
            err = e
    raise err


def worker_versions(job):
    import numpy
    out = {"numpy": numpy.__version__, "python": platform.python_version()}
    for mod, attr in (("onnx", "__version__"), ("onnxruntime", "__version__"),
                      ("cv2", "__version__")):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, attr)
        except ImportError as e:
            out[mod] = None
            out[mod + "_error"] = str(e)
    return out


def worker_build(job):
    import onnx
    for m in job["graphs"]:
        model = lapar_graph(m["weights"], m["scale"], m["h"], m["w"], m.get("with_phi", False))
        onnx.save(model, m["path"])
    return {"built": len(job["graphs"])}


def worker_check(job):
    """The graph against the golden files and the shared ONNX file."""
    import numpy as np
    import onnxruntime as ort
    import cv2
    so = ort.SessionOptions()
    so.intra_op_num_threads = job["threads"]
    cv2.setNumThreads(job["threads"])
    res = {"golden": [], "shared": []}
    for g in job["golden"]:
        z = np.load(g["golden"])
        x = z["input"][None].astype(np.float32)
        sess = ort.InferenceSession(g["path"], so, providers=["CPUExecutionProvider"])
        out, phi = sess.run(["output", "phi"], {"input": x})
        row = {"case": os.path.basename(g["golden"])[:-4],
               "ort_out": float(np.abs(out[0] - z["out"]).max()),
               "ort_phi": float(np.abs(phi[0] - z["phi"]).max())}
        try:
            net, engine = cv_net(cv2, g["path"], job["cv_engine"], "cpu")
            net.setInput(x)
            cvo = net.forward("output")
            row["cv_out"] = float(np.abs(cvo[0] - z["out"]).max())
            row["cv_engine"] = engine
        except cv2.error as e:
            row["cv_error"] = str(e).strip().splitlines()[-1]
        res["golden"].append(row)
    for s in job["shared"]:
        x = np.load(s["input"]).astype(np.float32)
        a = ort.InferenceSession(s["path"], so, providers=["CPUExecutionProvider"])
        b = ort.InferenceSession(s["shared"], so, providers=["CPUExecutionProvider"])
        oa = a.run(["output"], {"input": x})[0]
        ob = b.run(None, {b.get_inputs()[0].name: x})[0]
        res["shared"].append({"case": s["case"], "shared": os.path.basename(s["shared"]),
                              "max_abs": float(np.abs(oa - ob).max())})
    return res


def torch_lapar(torch, z, x, s):
    """LAPAR with torch.nn.functional, from the npz weights."""
    F = torch.nn.functional
    W = {k: torch.from_numpy(z[k]) for k in z.files}

    def conv(t, p):
        w = W[p + ".weight"]
        return F.conv2d(t, w, W[p + ".bias"], padding=w.shape[-1] // 2)

    blocks = sum(1 for k in z.files if k.startswith("w_conv.body.") and
                 k.endswith(".reduction.weight"))
    units = sum(1 for k in z.files if k.startswith("w_conv.body.0.b") and
                k.endswith(".body.0.weight"))
    t = F.relu(conv(x - W["w_conv.rgb_mean"], "w_conv.head.0"))
    for k in range(blocks):
        kept, u = [], t
        for j in range(units):
            p = f"w_conv.body.{k}.b{j}"
            u = (W[p + ".res_scale.scale"] * conv(F.relu(conv(u, p + ".body.0")), p + ".body.2")
                 + W[p + ".x_scale.scale"] * u)
            kept.append(u)
        p = f"w_conv.body.{k}"
        t = (W[p + ".res_scale.scale"] * conv(torch.cat(kept, 1), p + ".reduction")
             + W[p + ".x_scale.scale"] * t)
    t = F.pixel_shuffle(F.relu(conv(t, "w_conv.up.0")), s)
    t = (W["w_conv.tail.scale_k3.scale"] * conv(t, "w_conv.tail.tail_k3")
         + W["w_conv.tail.scale_k5.scale"] * conv(t, "w_conv.tail.tail_k5"))
    phi = conv(F.relu(conv(t, "w_conv.tail.fuse")), "w_conv.tail.w_conv")
    up = F.interpolate(x, scale_factor=s, mode="bicubic", align_corners=False)
    p = F.pad(up, (2, 2, 2, 2), mode="reflect")
    _, c, hh, ww = p.shape
    r = F.conv2d(p.reshape(c, 1, hh, ww), W["decom_conv.weight"])  # (3, 72, sH, sW)
    return (r * phi).sum(1, keepdim=True).reshape(1, c, hh - 4, ww - 4)


def loaded_clik():
    """The clik shared objects this process loaded, with their modification
    times (a library rebuilt during a run shows up as a second value)."""
    seen = {}
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            base = os.path.basename(path)
            if base.startswith(("libclik", "_clik")) and path not in seen:
                seen[path] = datetime.datetime.fromtimestamp(
                    os.stat(path).st_mtime).astimezone().isoformat(timespec="seconds")
    return seen


def worker_time(job):
    """Load the runtime, one warm-up call (untimed), then job['reps'] timed
    calls; the output of the last call is saved to job['save'] if given."""
    import numpy as np
    rt, threads = job["runtime"], job["threads"]
    info = {"runtime": rt}
    if rt in ("ort", "cv_cpu", "cv_ocl", "torch", "clik_pocl_f32"):
        x = np.load(job["input_f32"])
    if rt == "ort":
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        sess = ort.InferenceSession(job["graph"], so, providers=["CPUExecutionProvider"])
        info["version"] = f"onnxruntime {ort.__version__}"
        info["detail"] = f"{sess.get_providers()[0]}, intra_op {threads}"

        def call():
            return sess.run(["output"], {"input": x})[0]
    elif rt in ("cv_cpu", "cv_ocl"):
        import cv2
        cv2.setNumThreads(threads)
        target = "opencl" if rt == "cv_ocl" else "cpu"
        if target == "opencl":
            cv2.ocl.setUseOpenCL(True)
        net, engine = cv_net(cv2, job["graph"], job["cv_engine"], target)
        info["version"] = f"OpenCV {cv2.__version__}"
        info["detail"] = f"engine {engine}, {cv2.getNumThreads()} threads"
        if target == "opencl":
            dev = cv2.ocl.Device.getDefault()
            info["detail"] += f", OpenCL device {dev.name() if cv2.ocl.useOpenCL() else 'none'}"

        def call():
            net.setInput(x)
            return net.forward("output")
    elif rt == "torch":
        import torch
        torch.set_num_threads(threads)
        torch.set_num_interop_threads(1)
        z = np.load(job["weights"])
        xt = torch.from_numpy(x)
        info["version"] = f"PyTorch {torch.__version__}"
        info["detail"] = f"{torch.get_num_threads()} threads"

        def call():
            with torch.inference_mode():
                return torch_lapar(torch, z, xt, job["scale"]).numpy()
    else:
        import clik
        device = "none" if rt == "clik_none" else "pocl"
        ctx = clik.Context(device, strict=True)
        net, s = "lapar-" + job["model"].lower(), job["scale"]
        dev = ctx.device
        info["version"] = f"clik {clik.__version__}"
        info["detail"] = (f"{dev['name']}, {dev['compute_units']} compute units, "
                          f"{dev['driver_version']}" if dev else "CPU path, one thread")
        if rt == "clik_pocl_f32":
            _, _, h, w = x.shape

            def call():
                rgba = np.empty((h, w, 4), np.float32)
                np.multiply(x[0].transpose(1, 2, 0), np.float32(255), out=rgba[..., :3])
                rgba[..., 3] = 255
                out = ctx.lapar_net_run(rgba, net, s, order="rgb")
                return (out[..., :3].transpose(2, 0, 1) / np.float32(255))[None].copy()
        else:
            rgb = np.load(job["input_u8"])
            h, w, _ = rgb.shape

            def call():
                rgba = np.empty((h, w, 4), np.uint8)
                rgba[..., :3] = rgb
                rgba[..., 3] = 255
                out = ctx.lapar_net_run(rgba, net, s, order="rgb")
                return np.ascontiguousarray(out[..., :3])

    def timed():
        c0, t0 = time.process_time(), time.perf_counter()
        out = call()
        return out, (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3

    wall, cpu, first = [], [], []
    out = None
    for _ in range(job["warmup"]):
        out, ms, _ = timed()
        first.append(ms)
    for _ in range(job["reps"]):
        out, ms, cms = timed()
        wall.append(ms)
        cpu.append(cms)
    if rt.startswith("clik"):
        info["library"] = loaded_clik()
        want = "scalar" if rt == "clik_none" else "opencl"
        info["backend"] = ctx.last_backend
        if not (ctx.last_backend == want or (want == "scalar" and ctx.last_backend == "neon")):
            raise RuntimeError(f"clik ran on {ctx.last_backend}, not {want}")
    if job.get("save") and out is not None:
        np.save(job["save"], out)
    info.update(wall_ms=wall, cpu_ms=cpu, warmup_ms=first)
    return info


def worker_main(path):
    with open(path) as f:
        job = json.load(f)
    limit_threads(job)
    fn = {"versions": worker_versions, "build": worker_build, "check": worker_check,
          "time": worker_time}[job["kind"]]
    res = fn(job)
    print("RESULT " + json.dumps(res), flush=True)


# --------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------


class Env:
    """How to start a worker for each kind of python."""

    def __init__(self, args, tmpdir):
        self.args = args
        self.tmp = tmpdir
        self.venv_python = os.path.join(args.venv, "bin", "python")
        self.jobs = 0

    def run(self, job, python="venv", extra_env=None, timeout=None):
        self.jobs += 1
        jpath = os.path.join(self.tmp, f"job{self.jobs}.json")
        job = dict(job, cores=self.args.cores)
        with open(jpath, "w") as f:
            json.dump(job, f)
        env = dict(os.environ)
        n = str(self.args.threads)
        env.update(OMP_NUM_THREADS=n, OPENBLAS_NUM_THREADS=n, MKL_NUM_THREADS=n,
                   POCL_MAX_PTHREAD_COUNT=n)
        if python == "system":
            exe = self.args.system_python
            env["PYTHONPATH"] = os.pathsep.join(
                [self.args.python] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        else:
            exe = self.venv_python
            env.pop("PYTHONPATH", None)
        env.update(extra_env or {})
        proc = subprocess.run([exe, os.path.abspath(__file__), "--worker", jpath], env=env,
                              capture_output=True, text=True, timeout=timeout or self.args.timeout)
        for line in proc.stdout.splitlines():
            if line.startswith("RESULT "):
                return json.loads(line[7:]), proc.stderr
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
        return None, tail


def ensure_venv(args):
    py = os.path.join(args.venv, "bin", "python")
    if not os.path.exists(py):
        log(f"making the virtual environment {args.venv}")
        subprocess.run([args.system_python, "-m", "venv", "--system-site-packages", args.venv],
                       check=True)
    probe = subprocess.run([py, "-c", "import onnx, onnxruntime, cv2; "
                            "assert cv2.__version__.startswith('5.')"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        log(f"pip install {' '.join(VENV_PACKAGES)} into {args.venv}")
        subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check"] +
                       VENV_PACKAGES, check=True)


def read_pam(path, np):
    """A PAM (P7) or PPM/PGM written by clik-bench --dump-input."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"P7":
        head, _, body = data.partition(b"ENDHDR\n")
        fields = dict(ln.split(None, 1) for ln in head.decode().splitlines()[1:] if ln.strip())
        w, h, d = int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"])
        return np.frombuffer(body[:w * h * d], np.uint8).reshape(h, w, d)
    fail(f"{path}: not a PAM file")


def make_input(args, np, w, h, tmp):
    """clik-bench's RGBA field (its RGB channels) as u8 HxWx3 and as the
    float tensor 1x3xHxW on [0, 1]."""
    if args.bench and os.access(args.bench, os.X_OK):
        d = os.path.join(tmp, f"in-{w}x{h}")
        os.makedirs(d, exist_ok=True)
        subprocess.run([args.bench, "--op", "hist_compute", "--device", "none", "--channels", "4",
                        "--reps", "1", "--warmup", "0", "--seed", str(args.seed),
                        "--size", f"{w}x{h}", "--dump-input", d, "--json"],
                       check=True, capture_output=True)
        rgb = np.ascontiguousarray(read_pam(os.path.join(d, f"input-{w}x{h}-c4.pam"), np)
                                   [..., :3])
        src = f"clik-bench --dump-input --seed {args.seed} (RGB of its RGBA field)"
    else:
        rng = np.random.default_rng(args.seed)
        rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        src = f"uniform noise, seed {args.seed} (no clik-bench)"
    x = (rgb.astype(np.float32) / np.float32(255)).transpose(2, 0, 1)[None].copy()
    pu8, pf = os.path.join(tmp, f"rgb-{w}x{h}.npy"), os.path.join(tmp, f"x-{w}x{h}.npy")
    np.save(pu8, rgb)
    np.save(pf, x)
    return pu8, pf, src


def tensor2img(np, out):
    """Simple-SR's tensor2img of a 1x3xHxW float output: clamp to [0, 1],
    times 255 in float32, round half to even, u8; HxWx3."""
    v = np.clip(out[0], 0, 1).astype(np.float32) * np.float32(255)
    return np.round(v).astype(np.uint8).transpose(1, 2, 0)


def agreement(np, ref, out):
    """(max |diff| on [0, 1], samples more than 1 level off, the most levels
    off); a u8 output is compared with the reference clamped to [0, 1]."""
    if out.dtype == np.uint8:
        ref8 = tensor2img(np, ref)
        d = np.abs(out.astype(np.int16) - ref8.astype(np.int16))
        diff = float(np.abs(out.astype(np.float64) / 255 -
                            np.clip(ref[0].transpose(1, 2, 0), 0, 1)).max())
        return diff, int((d > 1).sum()), int(d.max())
    return float(np.abs(out - ref).max()), None, None


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def fmt(v, nd=1):
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    return f"{v:.{nd}f}"


def fmt_diff(v):
    return "–" if v is None else f"{v:.1e}"


def parse_size(text):
    try:
        w, h = text.lower().split("x")
        return int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r}: WxH")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venv", default=os.path.join(tempfile.gettempdir(), "clik-lapar-peers-venv"),
                    help="virtual environment with onnx, onnxruntime and OpenCV 5 (made when "
                    "missing; default %(default)s)")
    ap.add_argument("--python", default=os.path.join(REPO, "build", "python"),
                    help="a build's python/ folder holding the clik package (default %(default)s)")
    ap.add_argument("--clik-source", help="what the clik build was made from, for the report "
                    "(default: git describe of the tree holding --python, if any)")
    ap.add_argument("--bench", help="clik-bench, for its input field (default: beside --python)")
    ap.add_argument("--system-python", default=SYSTEM_PYTHON,
                    help="python with numpy for clik and PyTorch (default %(default)s)")
    ap.add_argument("--lapar", default=DEFAULT_LAPAR,
                    help="the shared LAPAR material: weights/, golden/, onnx/ "
                    "(default %(default)s)")
    ap.add_argument("--models", default="A", help="comma-separated: A, B, C (default A)")
    ap.add_argument("--scales", default="2", help="comma-separated: 2, 4 (default 2)")
    ap.add_argument("--sizes", default="320x180", help="comma-separated input sizes WxH "
                    "(default 320x180)")
    ap.add_argument("--threads", type=int, default=2, help="threads of every runtime (default 2)")
    ap.add_argument("--cores", help="comma-separated cores every process is pinned to "
                    "(default: the first --threads cores this process may use)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of turns (default 5)")
    ap.add_argument("--reps", type=int, default=1, help="timed calls per process and round, "
                    "after one warm-up call (default 1)")
    ap.add_argument("--none-reps", type=int, default=2,
                    help="timed calls of clik's CPU path: one in each of the first N rounds, "
                    "no warm-up; 0 leaves it out (default 2)")
    ap.add_argument("--opencl", action="store_true",
                    help="also OpenCV DNN on OpenCL (PoCL), first round only (minutes)")
    ap.add_argument("--opencl-reps", type=int, default=2,
                    help="timed calls of OpenCV's OpenCL target (default 2)")
    ap.add_argument("--clik-f32", action="store_true", help="also clik on float32 RGBA")
    ap.add_argument("--cv-engine", choices=("auto", "new", "classic"), default="auto",
                    help="OpenCV 5's DNN engine for the CPU (auto: new, else classic)")
    ap.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    ap.add_argument("--seed", type=int, default=1, help="seed of the input (default 1)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per process")
    ap.add_argument("--out", help="write the results as Markdown to this file")
    ap.add_argument("--json", help="write every number as JSON to this file")
    ap.add_argument("--keep", help="keep the ONNX graphs and outputs in this folder")
    ap.add_argument("--check-only", action="store_true", help="build and check the graphs, "
                    "time nothing")
    args = ap.parse_args()

    import numpy as np

    models = [m.strip().upper() for m in args.models.split(",") if m.strip()]
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    if any(m not in "ABC" or len(m) != 1 for m in models):
        ap.error("--models: A, B, C")
    if any(s not in (2, 4) for s in scales):
        ap.error("--scales: 2 or 4 (the released networks)")
    if args.rounds < 1 or args.reps < 1 or args.threads < 1:
        ap.error("--rounds, --reps and --threads must be at least 1")
    allowed = sorted(os.sched_getaffinity(0))
    if args.cores:
        args.cores = [int(c) for c in args.cores.split(",")]
    else:
        args.cores = allowed[:args.threads]
    if len(args.cores) < args.threads:
        log(f"warning: {args.threads} threads on {len(args.cores)} core(s)")
    args.python = os.path.abspath(args.python)
    if not os.path.isdir(os.path.join(args.python, "clik")):
        fail(f"{args.python} holds no clik package (pass --python BUILD/python)")
    if not args.bench:
        cand = os.path.join(os.path.dirname(args.python), "benchmarks", "clik-bench")
        args.bench = cand if os.access(cand, os.X_OK) else None
    for m in models:
        for s in scales:
            if not os.path.exists(weights_path(args.lapar, m, s)):
                fail(f"no weights {weights_path(args.lapar, m, s)}")

    source = args.clik_source
    if not source:
        git = subprocess.run(["git", "-C", args.python, "describe", "--always", "--dirty"],
                             capture_output=True, text=True)
        source = (f"the work tree at {git.stdout.strip()} when the run started"
                  if git.returncode == 0 else None)
    ensure_venv(args)
    tmp_obj = None
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        tmp = args.keep
    else:
        tmp_obj = tempfile.TemporaryDirectory(prefix="clik-lapar-peers-")
        tmp = tmp_obj.name
    env = Env(args, tmp)

    versions, err = env.run({"kind": "versions"})
    if versions is None:
        fail(f"the virtual environment does not run:\n{err}")
    log(f"venv: onnx {versions['onnx']}, onnxruntime {versions['onnxruntime']}, "
        f"OpenCV {versions['cv2']} (opencv-contrib-python-headless), numpy {versions['numpy']}")
    sysv, err = env.run({"kind": "versions"}, python="system")
    probe = subprocess.run([args.system_python, "-c", "import torch; print(torch.__version__)"],
                           capture_output=True, text=True)
    torch_version = probe.stdout.strip() if probe.returncode == 0 else None
    torch_why = None
    if args.no_torch:
        torch_why = "left out (--no-torch)"
    elif torch_version is None:
        torch_why = (f"absent: {args.system_python} cannot import torch "
                     f"({(probe.stderr.strip().splitlines() or ['?'])[-1]})")
    log(f"PyTorch: {torch_version or torch_why}")
    clikv = subprocess.run([args.system_python, "-c", "import clik; print(clik.__version__)"],
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=args.python))
    if clikv.returncode != 0:
        fail(f"cannot import clik from {args.python}:\n{clikv.stderr}")

    # ---- inputs and graphs ----
    inputs = {}
    for w, h in sizes:
        inputs[(w, h)] = make_input(args, np, w, h, tmp)
    cases = [(m, s, w, h) for m in models for s in scales for (w, h) in sizes]
    graphs = {}
    build = []
    for m, s, w, h in cases:
        p = os.path.join(tmp, f"LAPAR_{m}_x{s}_{w}x{h}.onnx")
        graphs[(m, s, w, h)] = p
        build.append({"weights": weights_path(args.lapar, m, s), "scale": s, "h": h, "w": w,
                      "path": p})
    golden_dir = os.path.join(args.lapar, "golden")
    goldens = sorted(f for f in os.listdir(golden_dir) if f.endswith(".npz")) \
        if os.path.isdir(golden_dir) else []
    golden_jobs = []
    for f in goldens:
        parts = f[:-4].split("_")  # LAPAR_A_x2_chelsea_27x35
        gm, gs = parts[1], int(parts[2][1:])
        gh, gw = (int(v) for v in parts[4].split("x"))
        p = os.path.join(tmp, f"check_{f[:-4]}.onnx")
        build.append({"weights": weights_path(args.lapar, gm, gs), "scale": gs, "h": gh,
                      "w": gw, "path": p, "with_phi": True})
        golden_jobs.append({"golden": os.path.join(golden_dir, f), "path": p})
    t0 = time.perf_counter()
    res, err = env.run({"kind": "build", "graphs": build})
    if res is None:
        fail(f"building the ONNX graphs failed:\n{err}")
    log(f"built {res['built']} ONNX graphs in {time.perf_counter() - t0:.1f} s "
        f"(opset {OPSET}, IR {IR_VERSION})")

    # ---- checks ----
    shared = []
    for m, s, w, h in cases:
        sp = os.path.join(args.lapar, "onnx", f"LAPAR_{m}_x{s}.onnx")
        if os.path.exists(sp):
            shared.append({"case": f"LAPAR-{m} x{s} {w}x{h}", "path": graphs[(m, s, w, h)],
                           "shared": sp, "input": inputs[(w, h)][1]})
    checks, err = env.run({"kind": "check", "golden": golden_jobs, "shared": shared,
                           "threads": args.threads, "cv_engine": args.cv_engine})
    if checks is None:
        fail(f"the checks failed to run:\n{err}")
    bad = False
    print(f"\nONNX graph checks (golden: max |diff| against {golden_dir}, gate {GOLDEN_TOL:g}):")
    print(f"{'case':<30} {'ORT out':>9} {'ORT phi':>9} {'OpenCV out':>11}")
    for r in checks["golden"]:
        ok = r["ort_out"] <= GOLDEN_TOL and r["ort_phi"] <= GOLDEN_TOL
        cvd = fmt_diff(r.get("cv_out")) if "cv_out" in r else "error"
        if "cv_out" in r and r["cv_out"] > GOLDEN_TOL:
            ok = False
        bad |= not ok
        print(f"{r['case']:<30} {r['ort_out']:9.1e} {r['ort_phi']:9.1e} {cvd:>11}"
              f"{'' if ok else '  FAILED'}")
        if "cv_error" in r:
            print(f"  OpenCV: {r['cv_error']}")
    for r in checks["shared"]:
        ok = r["max_abs"] <= GOLDEN_TOL
        bad |= not ok
        print(f"against {r['shared']} (onnxruntime, same input) {r['case']}: max |diff| "
              f"{r['max_abs']:.1e}{'' if ok else '  FAILED'}")
    if bad:
        fail("the ONNX graph does not match; nothing timed")
    if args.check_only:
        if tmp_obj:
            tmp_obj.cleanup()
        return 0

    # ---- timing ----
    load_start = list(os.getloadavg())
    order = ["ort", "cv_cpu"]
    if torch_version and not args.no_torch:
        order.append("torch")
    order.append("clik_pocl")
    if args.clik_f32:
        order.append("clik_pocl_f32")
    if args.none_reps > 0:
        order.append("clik_none")
    if args.opencl:
        order.append("cv_ocl")
    results = {}
    libraries = set()
    for m, s, w, h in cases:
        key = (m, s, w, h)
        name = f"LAPAR-{m} x{s} {w}x{h}"
        pu8, pf, _ = inputs[(w, h)]
        runs = {rt: [] for rt in order}
        loads = []
        for rnd in range(args.rounds):
            loads.append(os.getloadavg()[0])
            turn = order[rnd % len(order):] + order[:rnd % len(order)]
            for rt in turn:
                warmup, reps = 1, args.reps
                extra = {}
                if rt == "clik_none":
                    if rnd >= args.none_reps:
                        continue
                    warmup, reps = 0, 1
                if rt == "cv_ocl":
                    if rnd > 0:
                        continue
                    reps = args.opencl_reps
                    extra = {"OPENCV_OPENCL_DEVICE": ":CPU:",
                             "OPENCV_DNN_OPENCL_ALLOW_ALL_DEVICES": "1"}
                save = os.path.join(tmp, f"out_{rt}_{m}_x{s}_{w}x{h}.npy") if rnd == 0 else None
                job = {"kind": "time", "runtime": rt, "threads": args.threads, "warmup": warmup,
                       "reps": reps, "graph": graphs[key], "input_f32": pf, "input_u8": pu8,
                       "weights": weights_path(args.lapar, m, s), "model": m, "scale": s,
                       "cv_engine": args.cv_engine, "save": save}
                python = RUNTIMES[rt][1]
                t0 = time.perf_counter()
                r, err = env.run(job, python=python, extra_env=extra)
                if r is None:
                    log(f"{name} round {rnd + 1} {rt}: failed\n{err}")
                    runs[rt].append({"error": err})
                    continue
                log(f"{name} round {rnd + 1}/{args.rounds} {rt}: "
                    f"{', '.join(f'{v:.0f}' for v in r['wall_ms'])} ms "
                    f"(process {time.perf_counter() - t0:.1f} s, load {os.getloadavg()[0]:.2f})")
                r["round"] = rnd
                runs[rt].append(r)
        ref_path = os.path.join(tmp, f"out_ort_{m}_x{s}_{w}x{h}.npy")
        ref = np.load(ref_path) if os.path.exists(ref_path) else None
        rows = []
        for rt in order:
            ok = [r for r in runs[rt] if "wall_ms" in r]
            row = {"runtime": rt, "label": RUNTIMES[rt][0], "calls": 0}
            if not ok:
                row["error"] = (runs[rt][0].get("error") if runs[rt] else "not run")
                rows.append(row)
                continue
            for r in ok:
                if r.get("library"):
                    libraries.add(json.dumps(r["library"], sort_keys=True))
            wall = [v for r in ok for v in r["wall_ms"]]
            cpu = [v for r in ok for v in r["cpu_ms"]]
            row.update(version=ok[0]["version"], detail=ok[0]["detail"], calls=len(wall),
                       median_ms=statistics.median(wall), min_ms=min(wall),
                       cpu_ms=statistics.median(cpu),
                       warmup_ms=[v for r in ok for v in r["warmup_ms"]],
                       round_ms={r["round"]: statistics.median(r["wall_ms"]) for r in ok})
            outp = os.path.join(tmp, f"out_{rt}_{m}_x{s}_{w}x{h}.npy")
            if ref is not None and os.path.exists(outp):
                diff, off, maxlev = agreement(np, ref, np.load(outp))
                row.update(max_diff=diff, u8_off=off, u8_max_levels=maxlev)
            rows.append(row)
        main = next((r for r in rows if r["runtime"] == "clik_pocl" and "median_ms" in r), None)
        ortrow = next((r for r in rows if r["runtime"] == "ort" and "median_ms" in r), None)
        for row in rows:
            if ortrow and "median_ms" in row:
                row["vs_ort"] = row["median_ms"] / ortrow["median_ms"]
            if row["runtime"].startswith("clik"):
                continue
            if main and "median_ms" in row and row["runtime"] != "clik_pocl":
                row["ratio"] = main["median_ms"] / row["median_ms"]
                row["ratio_cpu"] = main["cpu_ms"] / row["cpu_ms"]
                per = [main["round_ms"][k] / v for k, v in row["round_ms"].items()
                       if k in main["round_ms"]]
                if per:
                    row["ratio_rounds"] = (min(per), max(per))
        results[key] = {"name": name, "rows": rows, "loads": loads}
    load_end = list(os.getloadavg())
    if len(libraries) > 1:
        log("warning: the clik library changed during the run (rebuilt?): " +
            " / ".join(sorted(libraries)))

    meta = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(), "cpu": cpu_model(), "nproc": os.cpu_count(),
        "cores": args.cores, "threads": args.threads,
        "loadavg_start": load_start, "loadavg_end": load_end,
        "versions": {"onnx": versions["onnx"], "onnxruntime": versions["onnxruntime"],
                     "opencv": versions["cv2"], "numpy_venv": versions["numpy"],
                     "numpy_system": sysv["numpy"] if sysv else None,
                     "python": versions["python"], "torch": torch_version,
                     "clik": clikv.stdout.strip()},
        "torch_why": torch_why, "rounds": args.rounds, "reps": args.reps,
        "none_reps": args.none_reps, "input": inputs[sizes[0]][2],
        "checks": checks, "opencl": args.opencl, "cv_engine": args.cv_engine,
        "clik_libraries": [json.loads(v) for v in sorted(libraries)],
        "source": source,
        "command": " ".join(
            ["benchmarks/lapar_net_peers.py", "--models", ",".join(models), "--scales",
             ",".join(map(str, scales)), "--sizes", ",".join(f"{w}x{h}" for w, h in sizes),
             "--threads", str(args.threads), "--rounds", str(args.rounds), "--reps",
             str(args.reps), "--none-reps", str(args.none_reps)] +
            (["--clik-f32"] if args.clik_f32 else []) + (["--opencl"] if args.opencl else []) +
            (["--no-torch"] if args.no_torch else []) +
            (["--cv-engine", args.cv_engine] if args.cv_engine != "auto" else [])),
    }
    text = report(meta, results)
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        log(f"wrote {args.out}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "cases": [
                {"case": v["name"], "loads": v["loads"], "rows": v["rows"]}
                for v in results.values()]}, f, indent=1, default=str)
            f.write("\n")
    if tmp_obj:
        tmp_obj.cleanup()
    return 0


def report(meta, results):
    """The Markdown report: machine, versions, checks, one table per case."""
    v = meta["versions"]
    la, lb = meta["loadavg_start"], meta["loadavg_end"]
    L = [f"# LAPAR networks against their peers ({meta['threads']} cores)", ""]
    L.append(f"{meta['date']}; {meta['cpu']}, {meta['nproc']} cores online, every process "
             f"pinned to core(s) {','.join(map(str, meta['cores']))} with "
             f"{meta['threads']} threads (PoCL: POCL_MAX_PTHREAD_COUNT={meta['threads']}; "
             "clik's CPU path runs one thread); the machine is shared with other work. "
             f"Load average (1, 5, 15 min) {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f} before the "
             f"timing, {lb[0]:.2f} / {lb[1]:.2f} / {lb[2]:.2f} after.")
    L.append("")
    libs = meta["clik_libraries"]
    built = ", ".join(f"{os.path.basename(p)} {t}" for p, t in libs[0].items()) if libs else "?"
    L.append(f"clik: built from {meta['source'] or '?'}; " + (
        f"the build of {built}" if len(libs) == 1 else
        f"**the library changed during the run** ({len(libs)} builds: the numbers mix them)"))
    L.append("")
    L.append(f"Versions: clik {v['clik']}; onnxruntime {v['onnxruntime']}, onnx {v['onnx']}, "
             f"OpenCV {v['opencv']} (opencv-contrib-python-headless), numpy {v['numpy_venv']} "
             f"(PyPI, Python {v['python']}); numpy {v['numpy_system']} (Debian) for clik; "
             f"PyTorch: {v['torch'] or meta['torch_why']}.")
    L.append("")
    L.append(f"Each runtime in its own process, the processes taking turns for "
             f"{meta['rounds']} rounds: one warm-up call, then {meta['reps']} timed call(s) "
             f"per round; clik's CPU path {meta['none_reps']} call(s) in all, one a round, "
             "without warm-up. Input: " + meta["input"] + "; the peers get it as the float "
             "tensor 1x3xHxW on [0, 1], clik as RGB u8 HxWx3, copied into RGBA and the "
             "result out of it inside the timed call. `÷ onnxruntime` = the row's median / "
             "onnxruntime's; `clik/peer` = clik on PoCL (u8) / the row (medians; in brackets "
             "the range of the per-round ratios); cpu ms = process CPU "
             "time per call (all its threads; onnxruntime's spinning worker threads count "
             "too), which other load on the machine changes less than the wall clock, and "
             "`clik/peer cpu` the same ratio of it. `max diff` = max |output − onnxruntime's| on "
             "the [0, 1] scale; `u8 off` = samples more than 1 level from onnxruntime's "
             "output rounded as tensor2img.")
    L.append("")
    if not meta["opencl"]:
        L.append("OpenCV DNN on OpenCL (PoCL) not timed: without --opencl (its kernel builds "
                 "take minutes).")
        L.append("")
    L.append(f"`{meta['command']}`")
    L.append("")
    for key, res in results.items():
        L.append(f"## {res['name']}")
        L.append("")
        L.append(f"Load average (1 min) at the start of each round: "
                 f"{', '.join(f'{x:.2f}' for x in res['loads'])}.")
        L.append("")
        L.append("| runtime | version | detail | calls | median ms | min ms | cpu ms | "
                 "÷ onnxruntime | clik/peer | clik/peer cpu | max diff | u8 off |")
        L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in res["rows"]:
            if "median_ms" not in r:
                why = (r.get("error") or "").strip().splitlines()
                L.append(f"| {r['label']} | – | failed: {why[-1] if why else '?'} | 0 "
                         "| | | | | | | | |")
                continue
            ratio = ""
            if "ratio" in r:
                ratio = f"{r['ratio']:.2f}"
                if "ratio_rounds" in r and r["calls"] > 1:
                    ratio += f" ({r['ratio_rounds'][0]:.2f}–{r['ratio_rounds'][1]:.2f})"
            off = ""
            if r.get("u8_off") is not None:
                off = f"{r['u8_off']} (max {r['u8_max_levels']})"
            L.append(f"| {r['label']} | {r['version']} | {r['detail']} | {r['calls']} | "
                     f"{r['median_ms']:.0f} | {r['min_ms']:.0f} | {r['cpu_ms']:.0f} | "
                     f"{fmt(r.get('vs_ort'), 2)} | {ratio} | {fmt(r.get('ratio_cpu'), 2)} | "
                     f"{fmt_diff(r.get('max_diff'))} | {off} |")
        L.append("")
        main = next((r for r in res["rows"] if r["runtime"] == "clik_pocl" and "median_ms" in r),
                    None)
        for rt, target in TARGETS.items():
            peer = next((r for r in res["rows"] if r["runtime"] == rt and "ratio" in r), None)
            if main and peer:
                met = "met" if peer["ratio"] <= target else "not met"
                L.append(f"- target clik ≤ {target:.1f}× {peer['label']}: "
                         f"{peer['ratio']:.2f}× — {met}"
                         f" (process CPU time: {peer['ratio_cpu']:.2f}×)")
        warm = [f"{r['label']} {', '.join(f'{x:.0f}' for x in r['warmup_ms'])}"
                for r in res["rows"] if r.get("warmup_ms")]
        if warm:
            L.append(f"- warm-up calls (ms): {'; '.join(warm)}")
        L.append("")
    c = meta["checks"]
    L.append("## The ONNX graph, checked before the timing")
    L.append("")
    L.append(f"Built by this script from the npz weights (opset {OPSET}), max |diff| against "
             f"the golden files (gate {GOLDEN_TOL:g}):")
    L.append("")
    L.append("| case | onnxruntime out | onnxruntime phi | OpenCV DNN out |")
    L.append("|---|---:|---:|---:|")
    for r in c["golden"]:
        L.append(f"| {r['case']} | {fmt_diff(r['ort_out'])} | {fmt_diff(r['ort_phi'])} | "
                 f"{fmt_diff(r.get('cv_out')) if 'cv_out' in r else 'error'} |")
    L.append("")
    for r in c["shared"]:
        L.append(f"Against the shared `{r['shared']}` on the timed input ({r['case']}, both "
                 f"through onnxruntime): max |diff| {r['max_abs']:.1e}"
                 f"{' (bit-identical outputs)' if r['max_abs'] == 0 else ''}.")
    L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(main())

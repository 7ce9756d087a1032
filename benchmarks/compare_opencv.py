#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare clik with OpenCV on the same synthetic input, in one run.

For each op it runs `clik-bench --json` and times OpenCV twice on the very
pixels clik-bench used (clik-bench --dump-input writes them): on the CPU,
and through the OpenCL T-API (cv2.UMat) on the OpenCL device clik used,
host to host (upload + call + download). Each time is a median of --reps
runs after --warmup untimed runs; clik and OpenCV take turns for --rounds
rounds (a machine whose speed drifts then drifts for both), and the table
shows the median over rounds with the range of the clik/CPU ratio.

The ops and their names are clik-bench's (`clik-bench --list --json`: each
op named as its conformance case); this file holds only the OpenCV side of
each, and names the ops that have none. Resize rows are the x2 cases;
fusion rows scale by --scale (default 2); OpenCV gets the
output size clik used (its resize(src, dst, dst.size()) semantics). SSIM
has no OpenCV call: the row times the usual OpenCV recipe (cv2.GaussianBlur
11x11, sigma 1.5, on float32 images, map and mean). OpenCV has no fusion
upscaler: the fusion rows time cv2.resize's nearest and cubic upscales, the
two images fusion starts from, as the cheapest OpenCV equivalent.

The TV-L1 optical flow rows (flow_tvl1-1warp: 2048x2048, 1 scale, 1 warp, 10
iterations; flow_tvl1: 640x480, the defaults) have their own sizes and call
clik_flow_tvl1 through the clik Python package (ctx.flow_tvl1; --python: a
build's python/ folder) beside cv2.optflow's DualTVL1 on 2 threads; they
need the contrib optflow module (Debian's python3-opencv has it). Only the
TV-L1 rows: --op flow_tvl1-1warp --op flow_tvl1.

OpenCV is the one a user installs today: by default the script runs itself
in a virtual environment with opencv-contrib-python-headless 5.x from PyPI,
~/.cache/clik/opencv5-venv ($XDG_CACHE_HOME/clik/...), made with
`python3 -m venv` and pip when missing; --opencv-python PY (or
$CLIK_OPENCV_PYTHON) names another interpreter, --system-opencv keeps the
running one's cv2. The table names the OpenCV version. A row whose OpenCV
module is missing (a cv2 without optflow) reports "n/a" and the others run.

Beside the device's rows, clik's CPU paths (--device none) run each op:
the scalar oracle and NEON (SIMDe on x86) on 1 thread, and NEON on
--cpu-threads threads (default the CPUs); --no-cpu-paths leaves them out.

Needs numpy and cv2; matplotlib for --plot.
Example:
    /usr/bin/python3 benchmarks/compare_opencv.py \\
        --bench build/benchmarks/clik-bench --device pocl --size 3840x2160
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from compare_opencv_report import (
    COLUMNS,
    CPU_PATHS,
    FLOW_CV_THREADS,
    cpu_key,
    plot,
    print_cputime,
    print_table,
)

# --------------------------------------------------------------------------
# The op table. A new op is one more CompareOp entry. The OpenCV module is
# passed in as `cv` because cv2 can only be imported once the OpenCL device
# has been chosen (OPENCV_OPENCL_DEVICE is read at import).
# --------------------------------------------------------------------------


def gamma_table(np):
    """A gamma 2.2 table (clik-bench's hist_lut-shared runs its case's table: a LUT's time
    does not depend on the values)."""
    v = np.arange(256, dtype=np.float64) / 255.0
    return np.rint(255.0 * v ** (1.0 / 2.2)).astype(np.uint8)


def scaled_size(img, scale):
    """(W', H') as clik_resize_size and OpenCV's resize(src, Size(), S, S)
    give them: each side rounded to nearest (ties to even, as cvRound)."""
    h, w = img.shape[:2]
    return max(1, int(round(w * scale))), max(1, int(round(h * scale)))


def noisy_copy(np, img, seed=1):
    """A distorted copy for the SSIM row (clik-bench adds noise of about +-10
    levels too; the times do not depend on the pixels)."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(-10, 11, img.shape, dtype=np.int16)
    return np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)


SSIM_C1 = (0.01 * 255) ** 2
SSIM_C2 = (0.03 * 255) ** 2


def ssim_opencv(cv, a, b):
    """The usual OpenCV SSIM recipe (OpenCV has no SSIM call): float32
    images, Gaussian 11x11 windows with sigma 1.5 by cv2.GaussianBlur
    (its default border, reflect-101, so the map covers the whole image),
    then the map and its mean. Works on numpy arrays and on cv2.UMat."""
    def blur(m):
        return cv.GaussianBlur(m, (11, 11), 1.5)
    x = cv.addWeighted(a, 1.0, a, 0.0, 0.0, dtype=cv.CV_32F)
    y = cv.addWeighted(b, 1.0, b, 0.0, 0.0, dtype=cv.CV_32F)
    mx, my = blur(x), blur(y)
    mxx, myy, mxy = cv.multiply(mx, mx), cv.multiply(my, my), cv.multiply(mx, my)
    sxx = cv.subtract(blur(cv.multiply(x, x)), mxx)
    syy = cv.subtract(blur(cv.multiply(y, y)), myy)
    sxy = cv.subtract(blur(cv.multiply(x, y)), mxy)
    num = cv.multiply(cv.addWeighted(mxy, 2.0, mxy, 0.0, SSIM_C1),
                      cv.addWeighted(sxy, 2.0, sxy, 0.0, SSIM_C2))
    den = cv.multiply(cv.add(cv.add(mxx, myy), SSIM_C1), cv.add(cv.add(sxx, syy), SSIM_C2))
    smap = cv.divide(num, den)
    return [smap, cv.mean(smap)[0]]


def resize_pair(cv, img, size):
    """The two upscales fusion starts from, as OpenCV computes them."""
    return [cv.resize(img, size, interpolation=cv.INTER_NEAREST),
            cv.resize(img, size, interpolation=cv.INTER_CUBIC)]


def luma_equalize(cv, img, equalize=None):
    """OpenCV's luma equalization of an RGBA image (a UMat on the T-API), by
    equalizeHist or by equalize(y)."""
    ycc = cv.cvtColor(cv.cvtColor(img, cv.COLOR_RGBA2RGB), cv.COLOR_RGB2YCrCb)
    y, cr, cb = cv.split(ycc)
    y = equalize(y) if equalize else cv.equalizeHist(y)
    return cv.cvtColor(cv.merge([y, cr, cb]), cv.COLOR_YCrCb2RGB)


def clahe_any(cv, img, state):
    """CLAHE of a grey image, or of the luma of an RGBA one (as clik_clahe);
    state: the CLAHE object and whether the image has colour."""
    clahe, colour = state
    return luma_equalize(cv, img, clahe.apply) if colour else clahe.apply(img)


def same_op(name, channels, call, note, **extra):
    """An op whose T-API call is its CPU call, given the UMat for the image."""
    return CompareOp(name=name, channels=channels, cpu=call, tapi=call, note=note, **extra)


def resize_op(method, flag):
    return same_op(
        f"resize-{method}-x2", (1, 4),
        lambda cv, np, img, st: cv.resize(img, st, interpolation=getattr(cv, flag)),
        f"cv2.resize {flag}, dsize = the size clik used (x2)",
        setup=lambda cv, np, img, args: scaled_size(img, 2.0),
    )


def fusion_op(name, note):
    """upscale_fusion and fusion_stream_submit: OpenCV's side is the pair of upscales fusion starts from."""
    return same_op(
        name, (4,), lambda cv, np, img, st: resize_pair(cv, img, st), note,
        setup=lambda cv, np, img, args: scaled_size(img, args.scale),
        scaled=True,
        integer_scale=True,
    )


@dataclass
class CompareOp:
    name: str  # the clik-bench op (its conformance case's name), also the row label
    channels: Tuple[int, ...]  # channel counts OpenCV's call takes
    # cpu(cv, np, img, state) and tapi(cv, np, umat, state) run the call; the
    # T-API result (a UMat, or a list/tuple of them) is downloaded by the timer.
    cpu: Callable
    tapi: Callable
    setup: Optional[Callable] = None  # setup(cv, np, img, args) -> state, untimed
    note: str = ""
    scaled: bool = False  # follows --scale
    integer_scale: bool = False  # needs an integer --scale (fusion)


# The OpenCV side of each clik-bench op that has a peer, by op name; the ops
# themselves come from `clik-bench --list --json`.
OPENCV_OPS = [
    same_op("hist_compute", (1,), lambda cv, np, img, st: cv.calcHist([img], [0], None, [256], [0, 256]),
            "cv2.calcHist 256 bins"),
    same_op("hist_equalize", (1,), lambda cv, np, img, st: cv.equalizeHist(img), "cv2.equalizeHist"),
    same_op("hist_equalize_luma", (4,), lambda cv, np, img, st: luma_equalize(cv, img),
            "cv2.cvtColor RGBA2RGB, RGB2YCrCb, cv2.equalizeHist of Y, YCrCb2RGB (no alpha)"),
    same_op("clahe", (1, 4), lambda cv, np, img, st: clahe_any(cv, img, st),
            "cv2.createCLAHE(2.0, (8, 5)).apply (the case's clip and grid); RGBA: on the Y of "
            "YCrCb as for hist_equalize_luma",
            setup=lambda cv, np, img, args: (cv.createCLAHE(2.0, (8, 5)), img.ndim == 3)),
    same_op("hist_lut-shared", (1, 4), lambda cv, np, img, st: cv.LUT(img, st), "cv2.LUT, one table",
            setup=lambda cv, np, img, args: gamma_table(np)),
    same_op("pyr_down", (1, 4), lambda cv, np, img, st: cv.pyrDown(img), "cv2.pyrDown"),
    same_op("pyr_gaussian", (1, 4), lambda cv, np, img, st: pyr_chain(cv, img, 5),
            "5 chained cv2.pyrDown (cv2.buildPyramid keeps level 0 too)"),
    same_op("pyr_up", (1, 4), lambda cv, np, img, st: cv.pyrUp(img), "cv2.pyrUp"),
    same_op("integral", (1, 4), lambda cv, np, img, st: cv.integral(img),
            "cv2.integral, int32 sums"),
    same_op("integral-sq", (1, 4), lambda cv, np, img, st: list(cv.integral2(img)),
            "cv2.integral2: int32 sums, float64 squares (clik: u64 squares)"),
    resize_op("nearest", "INTER_NEAREST"),
    resize_op("bilinear", "INTER_LINEAR"),
    resize_op("bicubic", "INTER_CUBIC"),
    same_op("gaussian_blur-k7", (1, 3, 4),
            lambda cv, np, img, st: cv.GaussianBlur(img, (7, 7), 0,
                                                    borderType=cv.BORDER_REFLECT_101),
            "cv2.GaussianBlur 7x7, sigma 0, BORDER_REFLECT_101"),
    same_op("gray", (3, 4), lambda cv, np, img, st: cv.cvtColor(img, st),
            "cv2.cvtColor RGB(A)2GRAY",
            setup=lambda cv, np, img, args: (cv.COLOR_RGB2GRAY if img.shape[-1] == 3
                                             else cv.COLOR_RGBA2GRAY)),
    same_op("flow_warp", (1, 4), lambda cv, np, img, st: cv.remap(img, st[0], st[1],
                                                                    cv.INTER_LINEAR,
                                                                    borderMode=cv.BORDER_REPLICATE),
            "cv2.remap INTER_LINEAR, BORDER_REPLICATE, float maps x + u, y + v",
            setup=lambda cv, np, img, args: warp_maps(np, img)),
    CompareOp(
        name="ssim",
        channels=(1,),
        setup=lambda cv, np, img, args: noisy_copy(np, img),
        cpu=lambda cv, np, img, st: ssim_opencv(cv, img, st),
        tapi=lambda cv, np, u, st: ssim_opencv(cv, u, cv.UMat(st)),
        note="no SSIM call in OpenCV: the usual recipe, cv2.GaussianBlur 11x11 sigma 1.5 on "
             "float32, map + mean (T-API: both images uploaded)",
    ),
    same_op("upscale_lapar", (1, 4),
            lambda cv, np, img, st: cv.resize(img, st, interpolation=cv.INTER_CUBIC),
            "no LAPAR model in OpenCV: cv2.resize INTER_CUBIC to the size clik used (x --scale), "
            "the bicubic upsample the model's filter starts from",
            setup=lambda cv, np, img, args: scaled_size(img, args.scale), scaled=True,
            integer_scale=True),
    fusion_op("upscale_fusion",
              "no fusion upscaler in OpenCV: cv2.resize INTER_NEAREST + INTER_CUBIC, the two "
              "upscales fusion starts from (clik also does SSIM, blur and the blend)"),
    fusion_op("fusion_stream_submit",
              "clik: per frame of clik_fusion_stream_* (--frames frames, 3 in flight); OpenCV: "
              "the nearest + cubic pair of one frame, as for fusion"),
]


def warp_maps(np, img):
    """The maps x + u, y + v of clik-bench's flow_warp flow."""
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u = (3.0 * np.sin(0.01 * x + 0.02 * y)).astype(np.float32)
    v = (2.0 * np.cos(0.015 * x - 0.01 * y)).astype(np.float32)
    return ((x.astype(np.float32) + u).astype(np.float32),
            (y.astype(np.float32) + v).astype(np.float32))


def pyr_chain(cv, img, levels):
    """levels chained cv2.pyrDown calls, every level kept (as clik's pyramid)."""
    out = []
    for _ in range(levels):
        img = cv.pyrDown(img)
        out.append(img)
    return out


# --------------------------------------------------------------------------
# TV-L1 rows. These rows call clik_flow_tvl1 in this process through the
# clik Python package (ctx.flow_tvl1 into a preallocated array; its per-call
# cost is microseconds against the milliseconds of a flow), on host images
# as the clik tool calls it (host to host), and OpenCV's
# cv2.optflow.DualTVL1OpticalFlow on the very same frames: a band-limited
# texture and the same texture moved by (1.5, 0.75) px (computed, not
# interpolated; benchmarks/flow_accuracy.py makes it). OpenCV runs on
# FLOW_CV_THREADS threads (cv2.setNumThreads) for these rows; each time is a
# median of --flow-reps runs after --flow-warmup, the two taking turns for
# --rounds rounds. Both EPEs against the true motion are printed, so that a
# row that did no work shows.
# --------------------------------------------------------------------------

FLOW_MOTION = (1.5, 0.75)


@dataclass
class FlowRow:
    name: str
    size: Tuple[int, int]
    clik: dict  # clik_flow_options fields (the rest: clik's defaults)
    cv: dict  # DualTVL1OpticalFlow setters, without "set"
    note: str


def flow_rows():
    # clik's automatic level count for 640x480, given to OpenCV too (its
    # default of 5 would be a different amount of work).
    scales = int(1 + math.log(math.hypot(640, 480) / 16) / math.log(2))
    matched = dict(Tau=0.25, Lambda=0.15, Theta=0.3, Gamma=0.0, MedianFiltering=1,
                   UseInitialFlow=False)
    return [
        FlowRow("flow_tvl1-1warp", (2048, 2048),
                clik=dict(scales=1, warps=1, iterations=10, epsilon=0.0),
                cv=dict(matched, ScalesNumber=1, WarpingsNumber=1, InnerIterations=10,
                        OuterIterations=1, Epsilon=0.0, ScaleStep=0.5),
                note="Romera et al.'s configuration, 1 scale, 1 warp, 10 iterations (epsilon 0: "
                     "all 10 run in both); cv2.optflow.DualTVL1 inner 10 x outer 1, "
                     f"{FLOW_CV_THREADS} threads"),
        FlowRow("flow_tvl1", (640, 480),
                clik=dict(scales=scales),
                cv=dict(matched, ScalesNumber=scales, WarpingsNumber=5, InnerIterations=30,
                        OuterIterations=10, Epsilon=0.01, ScaleStep=0.5),
                note=f"the defaults (IPOL's): {scales} scales, zoom 0.5, 5 warps, epsilon 0.01, "
                     "at most 300 iterations (OpenCV: inner 30 x outer 10), median filtering "
                     f"off, gamma 0; OpenCV has no pre-smoothing (clik: sigma 0.8); "
                     f"{FLOW_CV_THREADS} threads"),
    ]


class ClikFlow:
    """The clik package's context for the TV-L1 rows."""

    def __init__(self, clik, device, cpu_path):
        self.ctx = clik.Context(device, cpu_path=cpu_path)

    def close(self):
        self.ctx.close()

    @staticmethod
    def options(fields):
        """flow_tvl1's keyword arguments of a row's clik_flow_options fields."""
        return {("lambda_" if key == "lambda" else key): value for key, value in fields.items()}

    def tvl1(self, i0, i1, flow, opt):
        self.ctx.flow_tvl1(i0, i1, out=flow, **opt)

    def where(self):
        """(device name, backend name) of the last operation."""
        dev = self.ctx.device
        return (dev["name"] if dev else "C fallback"), self.ctx.last_backend


def clik_package(python_dir):
    """The clik package, imported from python_dir (put first on the path)
    where it is given; ImportError where it cannot be imported."""
    if python_dir:
        sys.path.insert(0, os.path.abspath(python_dir))
    import clik
    return clik


def import_clik(python_dir):
    """The clik package, from python_dir where it is given."""
    try:
        return clik_package(python_dir)
    except ImportError as e:
        fail(f"cannot import the clik package for the TV-L1 rows ({e}): build it with meson "
             "and pass --python with the build's python/ folder")


def flow_frames(np, w, h):
    """I0 and I1 = I0 moved by FLOW_MOTION, as u8 arrays."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from flow_accuracy import texture
    t = texture(w, h, seed=11)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    i0 = np.clip(np.rint(t(x, y)), 0, 255).astype(np.uint8)
    i1 = np.clip(np.rint(t(x - FLOW_MOTION[0], y - FLOW_MOTION[1])), 0, 255).astype(np.uint8)
    return i0, i1


def motion_epe(np, flow):
    """Mean end-point error against FLOW_MOTION, 8 pixels in from the border."""
    inner = flow[8:-8, 8:-8].astype(np.float64)
    return float(np.hypot(inner[..., 0] - FLOW_MOTION[0], inner[..., 1] - FLOW_MOTION[1]).mean())


def run_flow_rows(selected, args, cv, np, tapi_device=""):
    """The TV-L1 rows, as rows of the table (and the device clik ran on).
    With a T-API device, OpenCV's DualTVL1 also runs on UMat images there
    (host to host: upload, calc, download)."""
    clik = import_clik(args.python)
    try:
        lib = ClikFlow(clik, args.device, args.cpu_path)
    except clik.Error as e:
        fail(f"cannot create a clik context on '{args.device or 'auto'}': {e.status}: "
             f"{e.message}")
    threads = cv.getNumThreads()
    cv.setNumThreads(FLOW_CV_THREADS)
    rows, where = [], None
    try:
        for fr in selected:
            w, h = fr.size
            print(f"compare_opencv: TV-L1 {fr.name} {w}x{h} ...", file=sys.stderr)
            i0, i1 = flow_frames(np, w, h)
            out = np.zeros((h, w, 2), np.float32)
            images = (i0, i1, out)
            opt = lib.options(fr.clik)
            tvl1 = cv.optflow.DualTVL1OpticalFlow_create()
            for key, value in fr.cv.items():
                getattr(tvl1, "set" + key)(value)
            clik_ms, cv_ms, clik_cpu, cv_cpu = [], [], [], []
            for _ in range(args.rounds):
                wall, cpu = median_ms(lambda: lib.tvl1(*images, opt), args.flow_reps,
                                      args.flow_warmup)
                clik_ms.append(wall)
                clik_cpu.append(cpu)
                wall, cpu = median_ms(lambda: tvl1.calc(i0, i1, None), args.flow_reps,
                                      args.flow_warmup)
                cv_ms.append(wall)
                cv_cpu.append(cpu)
            tapi_ms = []
            if tapi_device:
                def tapi_once():
                    return tvl1.calc(cv.UMat(i0), cv.UMat(i1), None).get()
                try:
                    for _ in range(args.rounds):
                        tapi_ms.append(median_ms(tapi_once, args.flow_reps, args.flow_warmup)[0])
                except cv.error as e:
                    print(f"compare_opencv: T-API TV-L1 failed: {e}", file=sys.stderr)
                    tapi_ms = []
            where = lib.where()
            cv_flow = tvl1.calc(i0, i1, None)
            row = {k: None for k in COLUMNS}
            row.update(op=fr.name, size=f"{w}x{h}", channels=1, rounds=args.rounds,
                       clik_backend=where[1], clik_e2e_ms=round(statistics.median(clik_ms), 4),
                       cv_cpu_ms=round(statistics.median(cv_ms), 4),
                       clik_cputime_ms=round(statistics.median(clik_cpu), 4),
                       cv_cpu_cputime_ms=round(statistics.median(cv_cpu), 4),
                       clik_check=f"EPE {motion_epe(np, out):.3f} px, OpenCV "
                                  f"{motion_epe(np, cv_flow):.3f} px")
            row["ratio_cpu"] = round(row["clik_e2e_ms"] / row["cv_cpu_ms"], 3)
            if tapi_ms:
                row["cv_tapi_ms"] = round(statistics.median(tapi_ms), 4)
                row["ratio_tapi"] = round(row["clik_e2e_ms"] / row["cv_tapi_ms"], 3)
            row["ratio_cputime"] = round(row["clik_cputime_ms"] / row["cv_cpu_cputime_ms"], 3)
            per_round = [c / o for c, o in zip(clik_ms, cv_ms) if o > 0]
            row["ratio_cpu_min"], row["ratio_cpu_max"] = round(min(per_round), 3), \
                round(max(per_round), 3)
            rows.append(row)
    finally:
        cv.setNumThreads(threads)
        lib.close()
    return rows, where


def opencv_venv():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "clik", "opencv5-venv")


def opencv_python(args):
    """The interpreter whose cv2 the comparison uses (None: this one), making
    the default virtual environment when it is missing."""
    if args.system_opencv:
        return None
    py = args.opencv_python or os.environ.get("CLIK_OPENCV_PYTHON")
    if py:
        if not os.access(py, os.X_OK):
            fail(f"{py} is not an executable Python (--opencv-python, CLIK_OPENCV_PYTHON)")
        return py
    venv = opencv_venv()
    py = os.path.join(venv, "bin", "python")
    if not os.access(py, os.X_OK):
        print(f"compare_opencv: making {venv} with opencv-contrib-python-headless 5.x ...",
              file=sys.stderr)
        made = subprocess.run([sys.executable, "-m", "venv", venv])
        if made.returncode != 0 or not os.access(py, os.X_OK):
            fail(f"python3 -m venv {venv} failed (Debian: apt install python3-venv), or pass "
                 "--opencv-python or --system-opencv")
        pip = subprocess.run([py, "-m", "pip", "install", "--quiet",
                              "opencv-contrib-python-headless>=5,<6", "numpy"])
        if pip.returncode != 0:
            fail(f"pip could not install OpenCV 5 into {venv} (remove it to try again)")
    return py


def run_in_opencv_python(args):
    """Runs this script again under the chosen interpreter, once."""
    py = opencv_python(args)
    if py is None or os.environ.get("CLIK_COMPARE_PYTHON") == py:
        return
    os.environ["CLIK_COMPARE_PYTHON"] = py
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def fail(msg):
    print(f"compare_opencv: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_size(text):
    named = {"vga": (640, 480), "720p": (1280, 720), "1080p": (1920, 1080),
             "4k": (3840, 2160), "2160p": (3840, 2160)}
    if text in named:
        return named[text]
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"bad size '{text}': expected WxH")
    w, h = int(parts[0]), int(parts[1])
    if not (1 <= w <= 65536 and 1 <= h <= 65536):
        raise argparse.ArgumentTypeError(f"bad size '{text}': W and H from 1 to 65536")
    return w, h


def run_bench(bench, args, check=True):
    cmd = [bench] + args
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and proc.returncode != 0:
        fail(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.strip()}")
    return proc


def clik_ops(bench):
    """Op names and channel counts clik-bench knows, in its order (--list --json)."""
    ops = {}
    for line in run_bench(bench, ["--list", "--json"]).stdout.splitlines():
        row = json.loads(line)
        ops[row["op"]] = set(row["channels"])
    return ops


def known_cpu_paths(bench):
    """The CPU paths of clik-bench's build: scalar, and neon where built."""
    proc = run_bench(bench, ["--op", "hist_compute", "--size", "16x16", "--device", "none",
                             "--cpu-path", "neon", "--reps", "1", "--warmup", "0", "--json"],
                     check=False)
    return ("scalar", "neon") if proc.returncode == 0 else ("scalar",)


def read_pnm(path, np):
    """Reads the P5 (PGM) or P7 (PAM) file clik-bench --dump-input writes."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"P5"):
        tokens, pos = [], 2
        while len(tokens) < 3:
            while data[pos:pos + 1].isspace():
                pos += 1
            start = pos
            while not data[pos:pos + 1].isspace():
                pos += 1
            tokens.append(int(data[start:pos]))
        pos += 1  # one whitespace byte before the pixels
        w, h, _ = tokens
        return np.frombuffer(data, np.uint8, w * h, pos).reshape(h, w).copy()
    if data.startswith(b"P7"):
        end = data.index(b"ENDHDR\n") + len(b"ENDHDR\n")
        fields = {}
        for line in data[:end].decode("ascii").splitlines()[1:]:
            key, _, value = line.partition(" ")
            fields[key] = value
        w, h, d = int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"])
        return np.frombuffer(data, np.uint8, w * h * d, end).reshape(h, w, d).copy()
    fail(f"{path}: not a PGM or PAM file")


def median_ms(fn, reps, warmup):
    """Medians of the wall-clock and the process CPU time of fn, in ms."""
    for _ in range(warmup):
        fn()
    times, cpu = [], []
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return statistics.median(times), statistics.median(cpu)


def download(cv, result):
    """Brings a T-API result to the host (and so waits for it)."""
    if isinstance(result, cv.UMat):
        return result.get()
    if isinstance(result, (list, tuple)):
        return [download(cv, r) for r in result]
    return result


def same_result(np, a, b):
    """Integers must be equal; floats within 1e-3 (float32 SSIM moments cancel)."""
    if isinstance(a, list) or isinstance(b, list):
        a = a if isinstance(a, list) else [a]
        b = b if isinstance(b, list) else [b]
        return len(a) == len(b) and all(same_result(np, x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape:
            return False
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            return bool(np.allclose(a, b, rtol=1e-3, atol=1e-3))
        return bool(np.array_equal(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-3)
    return a == b


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def opencv_device_filter(args, clik_row):
    """The OPENCV_OPENCL_DEVICE value that picks clik's device, or None."""
    if args.ocl_device is not None:
        return args.ocl_device
    if os.environ.get("OPENCV_OPENCL_DEVICE"):
        return os.environ["OPENCV_OPENCL_DEVICE"]
    if not clik_row or clik_row.get("device_type") in (None, "none"):
        return None
    kind = {"cpu": "CPU", "gpu": "GPU", "accelerator": "ACCELERATOR"}.get(clik_row["device_type"], "")
    plat = clik_row.get("platform", "")
    if ":" in plat:
        plat = ""
    return f"{plat}:{kind}:"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="build/benchmarks/clik-bench", help="clik-bench executable")
    ap.add_argument("--device", default=None, help="clik device selection (as CLIK_DEVICE)")
    ap.add_argument("--size", action="append", type=parse_size, help="WxH (repeatable)")
    ap.add_argument("--op", action="append",
                    help="op of the table, or flow_tvl1-1warp and flow_tvl1 (repeatable; default all)")
    ap.add_argument("--python", default=None, metavar="DIR",
                    help="the build's python/ folder, whose clik package runs the TV-L1 rows "
                         "(default: python/ of --bench's build where it exists)")
    ap.add_argument("--flow-reps", type=int, default=3, help="timed runs of a TV-L1 row")
    ap.add_argument("--flow-warmup", type=int, default=1,
                    help="untimed runs of a TV-L1 row first (1 builds the kernels)")
    ap.add_argument("--channels", type=int, default=1, choices=(1, 3, 4))
    ap.add_argument("--scale", type=float, default=2.0,
                    help="factor of the resize and fusion rows (default 2; fusion: 2 to 8)")
    ap.add_argument("--frames", type=int, default=None,
                    help="frames per timed run of fusion_stream_submit (clik-bench's --frames)")
    ap.add_argument("--cpu-path", choices=("auto", "scalar", "neon"),
                    help="clik's CPU path (for --device none)")
    ap.add_argument("--host-alloc", choices=("malloc", "context"), default=None,
                    help="clik-bench's --host-alloc: clik's host images from malloc (its default) "
                         "or from clik_image_alloc_on (pinned or zero-copy)")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3,
                    help="clik and OpenCV take turns this many times (medians over rounds)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--ocl-device", default=None,
                    help="OPENCV_OPENCL_DEVICE for the T-API (default: clik's platform and "
                         "device type, e.g. 'Portable Computing Language:CPU:'; "
                         "'disabled' skips the T-API)")
    ap.add_argument("--csv", metavar="FILE", help="save the rows as CSV")
    ap.add_argument("--json", metavar="FILE", help="save the rows and the run's details as JSON")
    ap.add_argument("--plot", metavar="FILE.png", help="grouped bar chart of the times")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--opencv-python", metavar="PY",
                    help="the Python whose cv2 is compared (default $CLIK_OPENCV_PYTHON, else "
                         f"{opencv_venv()}, made with OpenCV 5 when missing)")
    ap.add_argument("--system-opencv", action="store_true",
                    help="use the cv2 of the Python running this script")
    ap.add_argument("--no-cpu-paths", action="store_true",
                    help="leave out the rows of clik's CPU paths (--device none)")
    ap.add_argument("--cpu-threads", type=int, default=os.cpu_count() or 1,
                    help="threads of the NEON row of N threads (default the CPUs)")
    args = ap.parse_args()
    run_in_opencv_python(args)
    if args.reps < 1 or args.warmup < 0 or args.rounds < 1:
        ap.error("--reps and --rounds must be at least 1, --warmup at least 0")
    if args.flow_reps < 1 or args.flow_warmup < 0:
        ap.error("--flow-reps must be at least 1, --flow-warmup at least 0")
    sizes = args.size or [(3840, 2160)]
    if not os.access(args.bench, os.X_OK):
        fail(f"{args.bench} is not an executable (build with meson and pass --bench)")
    known = clik_ops(args.bench)
    peers = {op.name: op for op in OPENCV_OPS}
    stale = [n for n in peers if n not in known]
    if stale:
        fail(f"OpenCV rows for ops clik-bench does not know: {', '.join(stale)}")
    by_name = {n: peers[n] for n in known if n in peers}
    flow_by_name = {fr.name: fr for fr in flow_rows()}
    no_peer = [n for n in known if n not in by_name and n not in flow_by_name]
    for name in args.op or []:
        if name in no_peer:
            ap.error(f"op '{name}' has no OpenCV peer (no row of this table)")
        if name not in by_name and name not in flow_by_name:
            ap.error(f"unknown op '{name}' (table: {', '.join(list(by_name) + list(flow_by_name))})")
    if no_peer and not args.op:
        print(f"compare_opencv: no OpenCV peer, not compared: {', '.join(no_peer)}",
              file=sys.stderr)
    if not 0.0 < args.scale <= 64.0:
        ap.error("--scale must be above 0 and at most 64")
    int_scale = args.scale == int(args.scale) and 2 <= args.scale <= 8
    if args.op:
        ops = [by_name[n] for n in dict.fromkeys(args.op) if n in by_name]
        flows = [flow_by_name[n] for n in dict.fromkeys(args.op) if n in flow_by_name]
        if flows and args.channels != 1:
            ap.error("the TV-L1 rows take one channel (grey): use --channels 1")
        for op in ops:
            if args.channels not in op.channels:
                ap.error(f"op '{op.name}' takes {' or '.join(map(str, op.channels))} channel(s)")
            if op.integer_scale and not int_scale:
                ap.error(f"op '{op.name}' needs an integer --scale from 2 to 8")
    else:  # every op that takes the channel count and the scale
        ops = [op for op in by_name.values() if args.channels in op.channels
               and (int_scale or not op.integer_scale)]
        flows = list(flow_by_name.values()) if args.channels == 1 else []
    flow_lib = None
    if flows:
        if args.python is None:
            build_python = os.path.join(os.path.dirname(os.path.dirname(
                os.path.abspath(args.bench))), "python")
            if os.path.isdir(os.path.join(build_python, "clik")):
                args.python = build_python
        clik_package = import_clik(args.python)
        flow_lib = (f"the clik package {clik_package.__version__} "
                    f"({os.path.dirname(os.path.abspath(clik_package.__file__))})")

    common = ["--channels", str(args.channels), "--reps", str(args.reps),
              "--warmup", str(args.warmup), "--scale", repr(args.scale)]
    if args.frames:
        common += ["--frames", str(args.frames)]
    common_cpu = list(common)  # the CPU-path runs: --device none, their own path and threads
    if args.device:
        common += ["--device", args.device]
    if args.cpu_path:
        common += ["--cpu-path", args.cpu_path]
    if args.host_alloc:
        common += ["--host-alloc", args.host_alloc]
    size_args = [a for w, h in sizes for a in ("--size", f"{w}x{h}")]

    load_start = list(os.getloadavg())
    tmp = tempfile.TemporaryDirectory(prefix="clik-compare-")
    # The input pixels: one cheap CPU run of any op that takes the channel count.
    dump_op = next((n for n, ch in known.items() if args.channels in ch), None)
    if ops and dump_op is None:
        fail(f"clik-bench knows no op for {args.channels} channel(s)")
    if ops:
        run_bench(args.bench, ["--op", dump_op, "--device", "none", "--reps", "1", "--warmup",
                               "0", "--channels", str(args.channels), "--dump-input", tmp.name,
                               "--json"] + size_args)

    def run_clik(clik_runs, clik_errors):
        for op in ops:
            if op.name not in known:
                clik_errors[op.name] = "not in clik-bench"
                continue
            if args.channels not in known[op.name]:
                clik_errors[op.name] = f"clik-bench's {op.name} takes no {args.channels} channel(s)"
                continue
            print(f"compare_opencv: clik-bench --op {op.name} ...", file=sys.stderr)
            proc = run_bench(args.bench, ["--json", "--op", op.name] + common + size_args,
                             check=False)
            if proc.returncode != 0:
                clik_errors[op.name] = proc.stderr.strip()
                print(f"compare_opencv: clik-bench --op {op.name} failed:\n{proc.stderr.strip()}",
                      file=sys.stderr)
            for line in proc.stdout.splitlines():
                row = json.loads(line)
                clik_runs.setdefault((op.name, row["size"]), []).append(row)
            for path, threads in cpu_paths:
                extra = ["--device", "none", "--cpu-path", path, "--threads",
                         str(threads or args.cpu_threads)]
                print(f"compare_opencv: clik-bench --op {op.name} {' '.join(extra)} ...",
                      file=sys.stderr)
                proc = run_bench(args.bench, ["--json", "--op", op.name] + common_cpu + extra
                                 + size_args, check=False)
                if proc.returncode != 0:
                    clik_errors[f"{op.name} {path} {threads}"] = proc.stderr.strip()
                for line in proc.stdout.splitlines():
                    row = json.loads(line)
                    cpu_runs.setdefault((op.name, row["size"], cpu_key(path, threads)),
                                        []).append(row["end_to_end_ms"])

    # clik first: cv2 may only be imported once the T-API device is known.
    cpu_paths = []
    if ops and not args.no_cpu_paths and not args.cpu_path:
        built = known_cpu_paths(args.bench)
        cpu_paths = [(p, t) for p, t in CPU_PATHS if p in built]
    clik_runs, clik_errors, cpu_runs = {}, {}, {}
    run_clik(clik_runs, clik_errors)
    first = next((v[0] for v in clik_runs.values()), None)

    ocl_filter = opencv_device_filter(args, first)
    tapi_why = ""
    if ocl_filter is None:
        os.environ["OPENCV_OPENCL_DEVICE"] = "disabled"
        tapi_why = "clik ran without an OpenCL device; pass --ocl-device to force one"
    else:
        os.environ["OPENCV_OPENCL_DEVICE"] = ocl_filter
    import numpy as np
    import cv2 as cv

    tapi_device = ""
    if ocl_filter is not None:
        if not cv.ocl.haveOpenCL():
            tapi_why = "OpenCV has no OpenCL"
        else:
            cv.ocl.setUseOpenCL(True)
            name = cv.ocl.Device.getDefault().name() if cv.ocl.useOpenCL() else ""
            if not name:
                tapi_why = f"no OpenCL device matches OPENCV_OPENCL_DEVICE={ocl_filter!r}"
            else:
                tapi_device = name
    if not tapi_device:
        print(f"compare_opencv: OpenCV T-API unavailable: {tapi_why}", file=sys.stderr)
    elif first and first.get("device") != tapi_device:
        print(f"compare_opencv: warning: the T-API runs on '{tapi_device}', clik on "
              f"'{first.get('device')}'", file=sys.stderr)

    images = {}
    for w, h in (sizes if ops else []):
        size = f"{w}x{h}"
        images[size] = read_pnm(os.path.join(tmp.name, f"input-{size}-c{args.channels}."
                                             f"{'pgm' if args.channels == 1 else 'pam'}"), np)

    def run_opencv(cv_runs, tapi_checks):
        for op in ops:
            if args.channels not in op.channels:
                continue
            for size, img in images.items():
                print(f"compare_opencv: OpenCV {op.name} {size} ...", file=sys.stderr)
                st = op.setup(cv, np, img, args) if op.setup else None
                times = cv_runs.setdefault((op.name, size),
                                           {"cpu": [], "tapi": [], "cpu_cputime": []})
                wall, cputime = median_ms(lambda: op.cpu(cv, np, img, st), args.reps, args.warmup)
                times["cpu"].append(wall)
                times["cpu_cputime"].append(cputime)
                if not tapi_device:
                    continue

                def tapi_once():
                    return download(cv, op.tapi(cv, np, cv.UMat(img), st))
                try:
                    times["tapi"].append(median_ms(tapi_once, args.reps, args.warmup)[0])
                    if (op.name, size) not in tapi_checks:
                        tapi_checks[(op.name, size)] = same_result(np, tapi_once(),
                                                                   op.cpu(cv, np, img, st))
                except cv.error as e:
                    print(f"compare_opencv: T-API {op.name} failed: {e}", file=sys.stderr)

    cv_runs, tapi_checks = {}, {}
    run_opencv(cv_runs, tapi_checks)
    for _ in range(args.rounds - 1):
        run_clik(clik_runs, clik_errors)
        run_opencv(cv_runs, tapi_checks)

    def med(values):
        values = [v for v in values if isinstance(v, (int, float))]
        return round(statistics.median(values), 4) if values else None

    rows = []
    for op in ops:
        for w, h in sizes:
            size = f"{w}x{h}"
            runs = clik_runs.get((op.name, size), [])
            cvt = cv_runs.get((op.name, size), {"cpu": [], "tapi": [], "cpu_cputime": []})
            row = {k: None for k in COLUMNS}
            row.update(op=op.name, size=size, channels=args.channels, rounds=len(runs))
            if op.scaled:
                row["scale"] = args.scale
                ow, oh = scaled_size(images[size], args.scale) if size in images else (0, 0)
                row["out_size"] = f"{ow}x{oh}"
            if runs:
                if runs[0].get("out_width"):
                    clik_out = f"{runs[0]['out_width']}x{runs[0]['out_height']}"
                    if clik_out != row["out_size"]:
                        print(f"compare_opencv: warning: {op.name} {size}: clik made {clik_out}, "
                              f"OpenCV {row['out_size']}", file=sys.stderr)
                    row["out_size"] = clik_out
                row.update(clik_fps_end_to_end=med([r.get("fps_end_to_end") for r in runs]),
                           clik_fps_kernel=med([r.get("fps_kernel") for r in runs]),
                           clik_check=runs[-1].get("check"),
                           clik_cputime_ms=med([r.get("cpu_ms") for r in runs]))
                row.update(clik_backend=runs[0]["backend"],
                           clik_e2e_ms=med([r["end_to_end_ms"] for r in runs]),
                           clik_kernel_ms=med([r["kernel_ms"] for r in runs]),
                           clik_gbps=med([r["gbps"] for r in runs]),
                           copy_gbps=med([r["copy_gbps"] for r in runs]))
            row["cv_cpu_ms"] = med(cvt["cpu"])
            row["cv_cpu_cputime_ms"] = med(cvt["cpu_cputime"])
            if row["clik_cputime_ms"] and row["cv_cpu_cputime_ms"]:
                row["ratio_cputime"] = round(row["clik_cputime_ms"] / row["cv_cpu_cputime_ms"], 3)
            row["cv_tapi_ms"] = med(cvt["tapi"])
            row["tapi_matches_cpu"] = tapi_checks.get((op.name, size))
            e2e = row["clik_e2e_ms"]
            for key, other in (("ratio_cpu", "cv_cpu_ms"), ("ratio_tapi", "cv_tapi_ms")):
                if isinstance(e2e, float) and isinstance(row[other], float) and row[other] > 0:
                    row[key] = round(e2e / row[other], 3)
            for path, threads in cpu_paths:
                key = cpu_key(path, threads)
                row[key] = med(cpu_runs.get((op.name, size, key), []))
            key = cpu_key("neon", 0)
            if isinstance(row.get(key), float) and isinstance(row["cv_cpu_ms"], float):
                row["ratio_cpu_neon_n"] = round(row[key] / row["cv_cpu_ms"], 3)
            per_round = [r["end_to_end_ms"] / c for r, c in zip(runs, cvt["cpu"]) if c > 0]
            if per_round:
                row["ratio_cpu_min"] = round(min(per_round), 3)
                row["ratio_cpu_max"] = round(max(per_round), 3)
            rows.append(row)

    flow_where = None
    if flows and not hasattr(cv, "optflow"):
        print(f"compare_opencv: OpenCV {cv.__version__} has no optflow module (opencv-contrib): "
              "the TV-L1 rows are n/a", file=sys.stderr)
        flow_lib = None
        for fr in flows:
            row = {k: None for k in COLUMNS}
            row.update(op=fr.name, size=f"{fr.size[0]}x{fr.size[1]}", channels=1,
                       clik_backend="n/a: no optflow")
            rows.append(row)
    elif flows:
        flow_table, flow_where = run_flow_rows(flows, args, cv, np, tapi_device)
        rows += flow_table
    meta = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "loadavg_start": load_start,
        "loadavg_end": list(os.getloadavg()),
        "host": platform.node(),
        "cpu": cpu_model(),
        "nproc": os.cpu_count(),
        "cv2_version": cv.__version__,
        "cv_threads": cv.getNumThreads(),
        "tapi_device": tapi_device,
        "tapi_why": tapi_why,
        "opencv_opencl_device": os.environ.get("OPENCV_OPENCL_DEVICE"),
        "clik_device": first["device"] if first else flow_where[0] if flow_where
        else "(no clik result)",
        "clik_backend": first["backend"] if first else flow_where[1] if flow_where else "-",
        "copy_gbps": statistics.median(r["copy_gbps"] for v in clik_runs.values() for r in v)
        if clik_runs else None,
        "channels": args.channels,
        "host_alloc": {"malloc": "malloc", "context": "clik_image_alloc_on"}.get(args.host_alloc),
        "reps": args.reps,
        "warmup": args.warmup,
        "rounds": args.rounds,
        "scale": args.scale,
        "scaled": any(op.scaled for op in ops),
        "no_opencv_peer": no_peer,
        "cputime_table": (bool(first) and first.get("device_type") in ("cpu", "none")) or
        (not first and bool(flow_where)),
        "notes": {**{op.name: op.note for op in ops}, **{fr.name: fr.note for fr in flows}},
        "clik_errors": clik_errors,
        "flow_lib": flow_lib if flows else None,
        "flow_reps": args.flow_reps,
        "flow_warmup": args.flow_warmup,
        "cpu_paths": [cpu_key(p, t) for p, t in cpu_paths],
        "cpu_threads": args.cpu_threads,
        "python": sys.executable,
    }
    for r in rows:
        if r["op"] in meta["notes"] and r.get("clik_check") and r["op"] in flow_by_name:
            meta["notes"][r["op"]] += f"; mean EPE of the {r['size']} flows: {r['clik_check']}"
    print_table(rows, meta, args.markdown)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=COLUMNS)
            wr.writeheader()
            for r in rows:
                wr.writerow({k: "" if r[k] is None else r[k] for k in COLUMNS})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
            f.write("\n")
    if args.plot:
        plot(rows, meta, args.plot)
    tmp.cleanup()
    return 1 if clik_errors and not clik_runs else 0


if __name__ == "__main__":
    sys.exit(main())

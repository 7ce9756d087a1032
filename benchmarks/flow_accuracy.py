#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Accuracy of clik's TV-L1 optical flow on pairs with exact ground truth,
beside OpenCV's DualTVL1 with the same parameters.

Each case is a first image I0 and a motion; the second image is I0 moved:
I1(X) = I0(B(X)) with B the inverse of the motion, so that the ground-truth
flow at x is F(x) - x, F the motion. Vectors whose pixel leaves the frame
are marked unknown (1e10) in the ground truth, as the Middlebury files do,
and so left out of the errors.

- Synthetic cases: I0 is a band-limited texture (a sum of random sinusoids
  with wavelengths from 6 to 80 pixels, plus a few soft-edged discs), known
  at any point, so that I1 is computed exactly, not interpolated; both are
  rounded to 8 bits as a camera would.
- Photographs: scikit-image's sample images, from Debian's python3-skimage,
  all CC0 or public domain (see PHOTOS); I0 is the photograph in grey,
  resized to --size, and I1 is I0 sampled bicubically (cv2.remap,
  INTER_CUBIC) at B(X), so I1 carries the small error of the interpolation
  while the motion stays exact.

Every pair goes through `clik flow I0 I1 OUT.flo --gt GT.flo` on each device
of --devices (default: PoCL and the C fallback) and through OpenCV's
cv2.optflow.DualTVL1OpticalFlow with matched parameters: tau, lambda, theta,
the number of scales (clik's automatic count, given to both), warps,
epsilon, scaleStep = zoom, innerIterations x outerIterations = 30 x 10 (clik's
cap of 300 iterations per warp), median filtering off, gamma 0. OpenCV has
no pre-smoothing (clik's sigma 0.8) and builds its pyramid with resize alone;
both stop on the mean squared change of the flow (OpenCV at every
iteration, clik every 10). OpenCV's flow is written to .flo and measured by
`clik flowcmp` against the same ground truth, so that one implementation of
the errors serves both: mean end-point error (EPE, px) and mean angular error
(AAE, degrees).

Needs numpy and cv2 with the contrib optflow module (Debian: python3-opencv),
and python3-skimage for the photographs. Example:
    /usr/bin/python3 benchmarks/flow_accuracy.py --clik build/apps/clik --markdown
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

UNKNOWN = 1e10

# Photographs from scikit-image's data folder, with their licences as its
# documentation states them.
PHOTOS = {
    "camera": "camera.png, Lav Varshney, CC0",
    "coffee": "coffee.png, Rachel Michetti, CC0",
    "chelsea": "chelsea.png, Stefan van der Walt, CC0",
    "gravel": "gravel.png, cc0textures.com, CC0",
}


# ---- motions --------------------------------------------------------------------------
# A motion maps points of I0 to where they are in I1 (forward) and back
# (backward). Both take and return arrays of x and y.

@dataclass
class Motion:
    label: str
    forward: Callable
    backward: Callable


def translation(dx, dy):
    return Motion(f"translation ({dx:g}, {dy:g})",
                  lambda x, y: (x + dx, y + dy),
                  lambda x, y: (x - dx, y - dy))


def rotation(degrees, w, h):
    """Rotation about the centre of the frame (clockwise on screen for
    positive angles: rows grow downwards)."""
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    cx, cy = (w - 1) / 2, (h - 1) / 2

    def turn(x, y, s):
        return cx + c * (x - cx) - s * (y - cy), cy + s * (x - cx) + c * (y - cy)
    return Motion(f"rotation {degrees:g} deg", lambda x, y: turn(x, y, s),
                  lambda x, y: turn(x, y, -s))


def zoom(factor, w, h):
    cx, cy = (w - 1) / 2, (h - 1) / 2
    return Motion(f"zoom x{factor:g}",
                  lambda x, y: (cx + factor * (x - cx), cy + factor * (y - cy)),
                  lambda x, y: (cx + (x - cx) / factor, cy + (y - cy) / factor))


def smooth_warp(amplitude, w, h, seed):
    """A smooth random displacement: the backward map is X - d(X), with d a
    sum of a few long sinusoids (wavelengths of half the frame and more);
    the forward map solves x + u = X with u = d(x + u), by fixed-point
    iteration (d changes by far less than a pixel per pixel, so it
    converges)."""
    rng = np.random.default_rng(seed)
    waves = []
    for _ in range(4):
        length = rng.uniform(0.5, 1.5) * max(w, h)
        angle = rng.uniform(0, 2 * math.pi)
        waves.append((2 * math.pi * math.cos(angle) / length, 2 * math.pi * math.sin(angle) / length,
                      rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi)))

    def d(x, y):
        dx = sum(math.cos(p) * np.sin(fx * x + fy * y + p) for fx, fy, p, _ in waves)
        dy = sum(math.sin(q) * np.cos(fx * x - fy * y + q) for fx, fy, _, q in waves)
        return amplitude * dx / len(waves), amplitude * dy / len(waves)

    def forward(x, y):
        ux, uy = d(x, y)
        for _ in range(30):
            ux, uy = d(x + ux, y + uy)
        return x + ux, y + uy

    def backward(x, y):
        dx, dy = d(x, y)
        return x - dx, y - dy
    return Motion(f"smooth warp (up to {amplitude:g} px)", forward, backward)


# ---- images ---------------------------------------------------------------------------

def texture(w, h, seed):
    """A function T(x, y) of a band-limited texture in about 20..235: random
    sinusoids of wavelengths 6..80 px (amplitude growing with the
    wavelength, as in natural images) and soft discs for a few edges."""
    rng = np.random.default_rng(seed)
    waves = []
    for _ in range(48):
        length = math.exp(rng.uniform(math.log(6), math.log(80)))
        angle = rng.uniform(0, math.pi)
        waves.append((2 * math.pi * math.cos(angle) / length, 2 * math.pi * math.sin(angle) / length,
                      rng.uniform(0, 2 * math.pi), length ** 0.5))
    norm = math.sqrt(sum(a * a for *_, a in waves) / 2)  # the sum's standard deviation
    discs = [(rng.uniform(0, w), rng.uniform(0, h), rng.uniform(8, 0.2 * min(w, h)),
              rng.uniform(-50, 50)) for _ in range(6)]

    def at(x, y):
        v = sum(a * np.sin(fx * x + fy * y + p) for fx, fy, p, a in waves) * (32.0 / norm)
        for cx, cy, r, level in discs:
            edge = np.hypot(x - cx, y - cy) - r
            v = v + level / (1.0 + np.exp(np.clip(edge / 0.8, -50, 50)))
        return np.clip(128.0 + v, 0, 255)
    return at


def to_u8(img):
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def photo(cv, name, w, h):
    """A scikit-image sample as a grey float image of w x h (the middle of
    it at the aspect ratio of w x h, then resized with INTER_AREA)."""
    import skimage.data
    img = getattr(skimage.data, name)()
    if img.ndim == 3:
        img = cv.cvtColor(img[..., :3], cv.COLOR_RGB2GRAY)
    ih, iw = img.shape
    if iw * h > ih * w:  # too wide: keep the middle columns
        cw = ih * w // h
        img = img[:, (iw - cw) // 2:(iw - cw) // 2 + cw]
    else:
        ch = iw * h // w
        img = img[(ih - ch) // 2:(ih - ch) // 2 + ch, :]
    return cv.resize(img, (w, h), interpolation=cv.INTER_AREA).astype(np.float64)


def ground_truth(motion, w, h):
    """The forward flow of motion over the frame, unknown where the pixel
    leaves it, as an (h, w, 2) float32 array."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    fx, fy = motion.forward(x, y)
    gt = np.dstack([fx - x, fy - y]).astype(np.float32)
    outside = (fx < 0) | (fx > w - 1) | (fy < 0) | (fy > h - 1)
    gt[outside] = UNKNOWN
    return gt


def make_pair(cv, source, motion, w, h, seed):
    """(I0, I1) as u8 arrays: exact for the texture, bicubic for photographs."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    bx, by = motion.backward(x, y)
    if source == "texture":
        t = texture(w, h, seed)
        return to_u8(t(x, y)), to_u8(t(bx, by))
    i0 = photo(cv, source, w, h).astype(np.float32)
    i1 = cv.remap(i0, bx.astype(np.float32), by.astype(np.float32), cv.INTER_CUBIC,
                  borderMode=cv.BORDER_REFLECT)
    return to_u8(i0), to_u8(i1)


# ---- the cases ------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    source: str  # "texture" or a PHOTOS key
    motion: Callable  # motion(w, h) -> Motion
    seed: int = 1


CASES = [
    Case("zero", "texture", lambda w, h: translation(0, 0)),
    Case("subpixel", "texture", lambda w, h: translation(0.5, 0.25)),
    Case("subpixel-2", "texture", lambda w, h: translation(-0.3, 0.7), seed=2),
    Case("shift", "texture", lambda w, h: translation(2.3, -1.7)),
    Case("large", "texture", lambda w, h: translation(12.6, -7.4), seed=3),
    Case("rotate", "texture", lambda w, h: rotation(3, w, h), seed=4),
    Case("zoom", "texture", lambda w, h: zoom(1.04, w, h), seed=5),
    Case("warp", "texture", lambda w, h: smooth_warp(3.0, w, h, 6), seed=6),
    Case("camera-shift", "camera", lambda w, h: translation(1.5, -0.75)),
    Case("camera-rotate", "camera", lambda w, h: rotation(2, w, h)),
    Case("coffee-warp", "coffee", lambda w, h: smooth_warp(3.0, w, h, 7)),
    Case("chelsea-large", "chelsea", lambda w, h: translation(-9.5, 6.25)),
    Case("gravel-zoom", "gravel", lambda w, h: zoom(0.97, w, h)),
]


# ---- running ----------------------------------------------------------------------------

ERRORS = re.compile(r"EPE (\S+) AAE (\S+) \((\d+) of (\d+) vectors\)")


def parse_errors(text, what):
    m = ERRORS.search(text)
    if not m:
        raise RuntimeError(f"{what}: no errors in the output:\n{text}")
    return float(m.group(1)), float(m.group(2))


def run(cmd, what):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{what}: {' '.join(cmd)} failed ({proc.returncode}):\n"
                           f"{proc.stderr.strip()}")
    return proc, seconds


def auto_scales(w, h, zoom_factor, coarsest=16):
    """clik's automatic level count (1 + log(hypot(W, H) / 16) / log(1 / zoom)),
    given to both so that they agree."""
    return max(1, int(1 + math.log(math.hypot(w, h) / coarsest) / math.log(1 / zoom_factor)))


def opencv_tvl1(cv, args, scales):
    tvl1 = cv.optflow.DualTVL1OpticalFlow_create()
    tvl1.setTau(args.tau)
    tvl1.setLambda(args.lam)
    tvl1.setTheta(args.theta)
    tvl1.setScalesNumber(scales)
    tvl1.setWarpingsNumber(args.warps)
    tvl1.setEpsilon(args.epsilon)
    tvl1.setInnerIterations(30)
    tvl1.setOuterIterations(10)
    tvl1.setScaleStep(args.zoom)
    tvl1.setGamma(0.0)
    tvl1.setMedianFiltering(1)  # 1: no median filter
    tvl1.setUseInitialFlow(False)
    return tvl1


def numpy_errors(flow, gt):
    """The errors as flow_eval.c defines them, for one cross-check of
    clik flowcmp."""
    known = (np.abs(flow) <= 1e9).all(-1) & (np.abs(gt) <= 1e9).all(-1)
    a, b = flow[known].astype(np.float64), gt[known].astype(np.float64)
    epe = np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1]).mean()
    dot = (a * b).sum(1) + 1.0
    norms = np.sqrt(((a * a).sum(1) + 1.0) * ((b * b).sum(1) + 1.0))
    aae = np.degrees(np.arccos(np.clip(dot / norms, -1.0, 1.0))).mean()
    return epe, aae


def run_case(cv, args, case, work, scales, checked):
    w, h = args.size
    motion = case.motion(w, h)
    i0, i1 = make_pair(cv, case.source, motion, w, h, case.seed)
    gt = ground_truth(motion, w, h)
    base = os.path.join(work, case.name)
    paths = {k: f"{base}-{k}" for k in ("i0.png", "i1.png", "gt.flo")}
    cv.imwrite(paths["i0.png"], i0)
    cv.imwrite(paths["i1.png"], i1)
    cv.writeOpticalFlow(paths["gt.flo"], gt)
    known = (np.abs(gt) <= 1e9).all(-1)
    row = {"case": case.name, "source": PHOTOS.get(case.source, "texture").split(",")[0],
           "motion": motion.label,
           "max": float(np.hypot(gt[known][:, 0], gt[known][:, 1]).max()) if known.any() else 0.0,
           "known": f"{100.0 * known.mean():.1f}%"}
    options = ["--scales", str(scales), "--zoom", repr(args.zoom), "--warps", str(args.warps),
               "--epsilon", repr(args.epsilon), "--tau", repr(args.tau), "--lambda",
               repr(args.lam), "--theta", repr(args.theta)]
    for device in args.devices:
        out = f"{base}-clik-{device}.flo"
        proc, seconds = run([args.clik, "flow", paths["i0.png"], paths["i1.png"], out, "--gt",
                             paths["gt.flo"], "--device", device] + options,
                            f"{case.name} on {device}")
        row[device] = parse_errors(proc.stdout, f"clik flow on {device}") + (seconds,)
    if cv is not None and not args.no_opencv:
        tvl1 = opencv_tvl1(cv, args, scales)
        t0 = time.perf_counter()
        flow = tvl1.calc(i0, i1, None)
        seconds = time.perf_counter() - t0
        out = f"{base}-opencv.flo"
        cv.writeOpticalFlow(out, flow)
        proc, _ = run([args.clik, "flowcmp", out, paths["gt.flo"]], "flowcmp")
        row["opencv"] = parse_errors(proc.stdout, "clik flowcmp") + (seconds,)
        if not checked:
            epe, aae = numpy_errors(flow, gt)
            if abs(epe - row["opencv"][0]) > 1e-4 or abs(aae - row["opencv"][1]) > 1e-3:
                raise RuntimeError(f"clik flowcmp gives EPE {row['opencv'][0]} AAE "
                                   f"{row['opencv'][1]}, numpy EPE {epe} AAE {aae}")
    return row


def print_table(rows, columns, args, scales, markdown):
    heads = ["case", "image", "motion", "max px", "known"]
    for label, _ in columns:
        heads += [f"{label} EPE", f"{label} AAE"]
    lines = []
    for r in rows:
        cells = [r["case"], r["source"], r["motion"], f"{r['max']:.2f}", r["known"]]
        for _, key in columns:
            cells += [f"{r[key][0]:.3f}", f"{r[key][1]:.2f}"] if key in r else ["", ""]
        lines.append(cells)
    means = ["mean", "", "", "", ""]
    for _, key in columns:
        vals = [r[key] for r in rows if key in r]
        means += ([f"{sum(v[0] for v in vals) / len(vals):.3f}",
                   f"{sum(v[1] for v in vals) / len(vals):.2f}"] if vals else ["", ""])
    lines.append(means)
    w, h = args.size
    print(f"{w}x{h}, {scales} scales, zoom {args.zoom:g}, {args.warps} warps, epsilon "
          f"{args.epsilon:g}, tau {args.tau:g}, lambda {args.lam:g}, theta {args.theta:g}; "
          f"EPE in pixels, AAE in degrees, over the known vectors")
    print()
    if markdown:
        print("| " + " | ".join(heads) + " |")
        print("|" + "|".join(["---"] * 3 + ["---:"] * (len(heads) - 3)) + "|")
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
    else:
        widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(heads)]
        print("  ".join(h.ljust(wd) if i < 3 else h.rjust(wd)
                        for i, (h, wd) in enumerate(zip(heads, widths))))
        for cells in lines:
            print("  ".join(c.ljust(wd) if i < 3 else c.rjust(wd)
                            for i, (c, wd) in enumerate(zip(cells, widths))))
    print()
    times = []
    for label, key in columns:
        vals = [r[key][2] for r in rows if key in r]
        if vals:
            times.append(f"{label} {sum(vals) / len(vals):.2f} s")
    print("mean wall time per pair (clik: the whole command, files and device start "
          "included; OpenCV: calc() alone): " + ", ".join(times))


def parse_size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or not (16 <= int(m.group(1)) <= 8192 and 16 <= int(m.group(2)) <= 8192):
        raise argparse.ArgumentTypeError(f"bad size '{text}': expected WxH, 16 to 8192 each")
    return int(m.group(1)), int(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clik", default="build/apps/clik", help="the clik tool")
    ap.add_argument("--devices", default="pocl,none",
                    help="comma-separated --device values for clik (default pocl,none)")
    ap.add_argument("--size", type=parse_size, default=(320, 240), help="WxH (default 320x240)")
    ap.add_argument("--case", action="append", help="case of the table (repeatable; default all)")
    ap.add_argument("--no-opencv", action="store_true", help="clik only")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--keep", metavar="DIR", help="write the pairs and flows here and keep them")
    ap.add_argument("--zoom", type=float, default=0.5)
    ap.add_argument("--warps", type=int, default=5)
    ap.add_argument("--epsilon", type=float, default=0.01)
    ap.add_argument("--tau", type=float, default=0.25)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.15)
    ap.add_argument("--theta", type=float, default=0.3)
    ap.add_argument("--scales", type=int, default=0, help="0: clik's automatic count")
    args = ap.parse_args()
    args.devices = [d for d in args.devices.split(",") if d]
    by_name = {c.name: c for c in CASES}
    for name in args.case or []:
        if name not in by_name:
            ap.error(f"unknown case '{name}' (table: {', '.join(by_name)})")
    cases = [by_name[n] for n in dict.fromkeys(args.case)] if args.case else CASES
    if not os.access(args.clik, os.X_OK):
        print(f"flow_accuracy: {args.clik} is not an executable (pass --clik)", file=sys.stderr)
        return 1
    import cv2 as cv
    if not args.no_opencv and not hasattr(cv, "optflow"):
        print("flow_accuracy: this cv2 has no optflow module (opencv-contrib); OpenCV column "
              "left out", file=sys.stderr)
        args.no_opencv = True
    scales = args.scales or auto_scales(*args.size, args.zoom)
    columns = [(f"clik {d}", d) for d in args.devices]
    if not args.no_opencv:
        columns.append((f"OpenCV {cv.__version__}", "opencv"))
    work = args.keep or tempfile.mkdtemp(prefix="clik-flow-")
    os.makedirs(work, exist_ok=True)
    rows = []
    try:
        for case in cases:
            print(f"flow_accuracy: {case.name} ...", file=sys.stderr)
            rows.append(run_case(cv, args, case, work, scales, checked=bool(rows)))
    finally:
        if not args.keep:
            for name in os.listdir(work):
                os.remove(os.path.join(work, name))
            os.rmdir(work)
    print_table(rows, columns, args, scales, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""LAPAR filtering against a NumPy reference (Li et al. 2020).

The reference is written from the documented semantics alone: the 72-atom dictionary from its
closed form, PyTorch's bicubic upsample (interpolate(mode='bicubic',
align_corners=False): A = -0.75, half-pixel centres, taps clamped at the
border), reflect-101 padding of 2, the 72 filtered images by
cross-correlation (conv2d), and their sum weighted by phi (einsum).

  accuracy  `clik lapar` on crops of scikit-image's photographs (colour and
            grey, scales 2, 3 and 4, random phi, float32 input and output)
            against the reference: the largest difference relative to the
            reference's range, which must stay under 1e-4;
  speed     the reference timed at the benchmark sizes, beside `clik-bench
            --op lapar_filter` on the same sizes in the same run (kernel time and
            end to end, device images resident), and the ratio.

usage: benchmarks/lapar_reference.py --clik BUILD/apps/clik
           --bench BUILD/benchmarks/clik-bench [--device pocl] [--size WxH:S ...]
           [--reps N] [--skip-speed]
Exit status 1 when an accuracy row fails.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

TAPS = 5


def gaussian(s1, s2, theta):
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    cov = rot @ np.diag([s1 * s1, s2 * s2]) @ rot.T
    inv = np.linalg.inv(cov)
    atom = np.empty((TAPS, TAPS))
    for r in range(TAPS):
        for col in range(TAPS):
            d = np.array([col - 2.0, 2.0 - r])
            atom[r, col] = math.exp(-0.5 * d @ inv @ d)
    return atom / atom.sum()


def dictionary():
    """The 72 atoms of the closed form (clik_lapar.h), (72, 5, 5)."""
    atoms = []
    for s1, fine in ((2.0, True), (1.2, False)):
        atoms.append(gaussian(s1, s1, 0.0))
        for ratio in (0.8, 0.6, 0.4):
            atoms += [gaussian(s1, ratio * s1, math.radians(30 * k)) for k in range(6)]
        if fine:
            atoms += [gaussian(s1, 0.2 * s1, math.radians(15 * k)) for k in range(12)]
    atoms.append(gaussian(0.4, 0.4, 0.0))
    assert len(atoms) == 51

    def dog(a, b):
        e = atoms[a] - atoms[b]
        pos, neg = e > 0, e < 0
        e[pos] *= 1.4 / e[pos].sum()
        e[neg] *= -0.4 / e[neg].sum()
        return e

    pairs = [(0, 31), (0, 50), (31, 50)] + [(1 + i, 32 + i) for i in range(18)]
    atoms += [dog(a, b) for a, b in pairs]
    return np.array(atoms)


def cubic_weights(t):
    """Keys' kernel, A = -0.75, at distances 1 + t, t, 1 - t, 2 - t."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return np.stack([far(1 + t), near(t), near(1 - t), far(2 - t)], axis=-1)


def upsample_axis(img, scale, axis):
    n = img.shape[axis]
    src = (np.arange(n * scale) + 0.5) / scale - 0.5
    x0 = np.floor(src).astype(np.int64)
    w = cubic_weights(src - x0)
    out = 0
    for k in range(4):
        idx = np.clip(x0 - 1 + k, 0, n - 1)
        shape = [1] * img.ndim
        shape[axis] = -1
        out = out + np.take(img, idx, axis=axis) * w[:, k].reshape(shape)
    return out


def upsample(img, scale):
    """PyTorch's bicubic interpolate, (H, W, C) float64."""
    return upsample_axis(upsample_axis(img, scale, 0), scale, 1)


def reference(lr, phi, atoms, scale):
    """out_c = sum_l phi_l (D_l cross-correlated with U_c); lr (H, W, C)
    float, phi (L, sH, sW); returns (sH, sW, C) float64."""
    u = upsample(lr.astype(np.float64), scale)
    pad = np.pad(u, ((2, 2), (2, 2), (0, 0)), mode="reflect")  # reflect-101
    h, w = u.shape[:2]
    filtered = np.zeros((atoms.shape[0],) + u.shape)
    for r in range(TAPS):
        for c in range(TAPS):
            window = pad[r:r + h, c:c + w]
            filtered += atoms[:, r, c, None, None, None] * window[None]
    return np.einsum("lhw,lhwc->hwc", phi.astype(np.float64), filtered)


def photographs():
    for folder in ("/usr/lib/python3/dist-packages/skimage/data",):
        if os.path.isdir(folder):
            return folder
    import skimage  # noqa: F401  (PyPI's scikit-image)

    return os.path.join(os.path.dirname(skimage.__file__), "data")


def read_png(path):
    import cv2

    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit("cannot read %s" % path)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def accuracy(args, work):
    folder = photographs()
    atoms = dictionary()
    rng = np.random.default_rng(7)
    rows, failed = [], 0
    crops = [("astronaut.png", 120, 160, 48, 64), ("coffee.png", 200, 250, 37, 53),
             ("chelsea.png", 90, 200, 40, 40)]
    for name, y, x, h, w in crops:
        photo = read_png(os.path.join(folder, name))[y:y + h, x:x + w].astype(np.float32) / 255
        for colour in (True, False):
            if colour:
                lr = np.concatenate([photo, np.ones((h, w, 1), np.float32)], axis=2)
            else:
                lr = (photo @ np.array([0.299, 0.587, 0.114], np.float32))[..., None]
            for scale in (2, 3, 4):
                phi = rng.standard_normal((72, scale * h, scale * w)).astype(np.float32) / 8
                lr_path = os.path.join(work, "lr.npy")
                phi_path = os.path.join(work, "phi.npy")
                out_path = os.path.join(work, "out.npy")
                np.save(lr_path, lr if colour else lr[..., 0])
                np.save(phi_path, phi.reshape(72 * scale * h, scale * w))
                cmd = [args.clik, "lapar", lr_path, phi_path, out_path, "--scale", str(scale),
                       "--device", args.device]
                run = subprocess.run(cmd, capture_output=True, text=True)
                if run.returncode != 0:
                    print("%s: %s" % (" ".join(cmd), run.stderr.strip()))
                    failed += 1
                    continue
                got = np.load(out_path)
                if got.ndim == 2:
                    got = got[..., None]
                colours = 3 if colour else 1
                want = reference(lr[..., :colours], phi, atoms, scale)
                span = float(want.max() - want.min())
                err = float(np.abs(got[..., :colours] - want).max()) / span
                ok = err <= 1e-4
                failed += not ok
                rows.append((name, "colour" if colour else "grey", scale,
                             "%dx%d" % (w, h), err, "ok" if ok else "FAILED"))
    print("clik lapar (%s) against the NumPy reference, random phi:" % args.device)
    print("%-14s %-7s %5s %8s %22s  %s" % ("photograph", "", "scale", "input",
                                          "max |diff| / range", ""))
    for r in rows:
        print("%-14s %-7s %5d %8s %22.2e  %s" % r)
    return failed


def bench(args, width, height, scale):
    cmd = [args.bench, "--op", "lapar_filter", "--size", "%dx%d" % (width, height), "--scale",
           str(scale), "--channels", "4", "--resident", "--json", "--reps", str(args.reps),
           "--device", args.device]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit("%s: %s" % (" ".join(cmd), run.stderr.strip()))
    return json.loads(run.stdout.strip().splitlines()[-1])


def speed(args):
    atoms = dictionary()
    rng = np.random.default_rng(3)
    print("\nLAPAR filter, 72 atoms, f32 phi, RGB (+ alpha): NumPy reference and clik-bench")
    print("%-12s %5s %12s %12s %14s %10s %10s" % ("input", "scale", "NumPy ms", "clik ms",
                                                  "clik e2e ms", "speed-up", "copy ratio"))
    for spec in args.size:
        size, scale = spec.split(":")
        width, height = (int(v) for v in size.split("x"))
        scale = int(scale)
        lr = rng.random((height, width, 3), dtype=np.float32)
        phi = rng.standard_normal((72, scale * height, scale * width)).astype(np.float32)
        times = []
        for _ in range(max(1, min(args.reps, 3))):
            t0 = time.perf_counter()
            reference(lr, phi, atoms, scale)
            times.append((time.perf_counter() - t0) * 1e3)
        numpy_ms = sorted(times)[len(times) // 2]
        b = bench(args, width, height, scale)
        print("%-12s %5d %12.1f %12.2f %14.2f %9.1fx %10.2f" % (
            size, scale, numpy_ms, b["kernel_ms"], b["end_to_end_ms"],
            numpy_ms / b["end_to_end_ms"], b["copy_ratio"]))
    print("(speed-up: NumPy against clik end to end; copy ratio: the kernel's bytes per second "
          "against the device's copy bandwidth, measured by clik-bench)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clik", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--size", action="append", metavar="WxH:S",
                    help="benchmark input size and scale (default 320x180:4)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--skip-speed", action="store_true")
    args = ap.parse_args()
    args.size = args.size or ["320x180:4"]
    with tempfile.TemporaryDirectory() as work:
        failed = accuracy(args, work)
    if not args.skip_speed:
        speed(args)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

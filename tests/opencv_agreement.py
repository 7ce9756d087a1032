#!/usr/bin/env python3
"""Acceptance: the clik tool gives exactly OpenCV's results for 8-bit grey
images, on each device asked for:
  clik equalize              == cv2.equalizeHist
  clik pyramid --levels N    == N chained cv2.pyrDown
  clik pyrup                 == cv2.pyrUp
  clik integral (u32)        == cv2.integral (int32, compared bit for bit)
  clik integral --squared    == cv2.integral2 (sums int32, squares float64)
  clik integral --type f64   == cv2.integral(..., sdepth=CV_64F)
  clik laplacian             == G_i - cv2.pyrUp(G_i+1) cropped, G_N last
Usage: opencv_agreement.py CLIK_BINARY DEVICE [DEVICE ...]
Exit 77 (skip) when cv2 is not importable."""
import os
import subprocess
import sys
import tempfile

try:
    import cv2
    import numpy as np
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)


def images():
    """Grey images that reach the corners of the operations: odd sizes,
    one row or column, 1x1, constant, extremes."""
    rng = np.random.default_rng(12345)
    yield "noise-641x479", rng.integers(0, 256, (479, 641), dtype=np.uint8)
    yield "lowcontrast-333x97", rng.integers(90, 140, (97, 333), dtype=np.uint8)
    yy, xx = np.mgrid[0:257, 0:131]
    yield "gradient-131x257", ((xx + 3 * yy) % 256).astype(np.uint8)
    yield "constant-7x7", np.full((7, 7), 77, np.uint8)
    yield "one-pixel", np.array([[200]], np.uint8)
    yield "two-levels-27x13", np.where(rng.random((13, 27)) < 0.3, 10, 240).astype(np.uint8)
    yield "sparse-1921x1081", (rng.integers(0, 8, (1081, 1921)) * 31).astype(np.uint8)
    skew = np.clip(rng.normal(60, 12, (480, 640)), 0, 255).astype(np.uint8)
    yield "skewed-640x480", skew
    # scale 255 / 102 = 2.5 exactly: rounding of x.5 values matters
    yield "half-103x1", np.array([[0, 1] + [2] * 101], np.uint8)
    yield "column-1x77", rng.integers(0, 256, (77, 1), dtype=np.uint8)
    yield "white-255x3", np.full((3, 255), 255, np.uint8)
    yield "checker-64x64", ((np.indices((64, 64)).sum(axis=0) % 2) * 255).astype(np.uint8)


def max_levels(shape):
    h, w = shape
    n = 0
    while w > 1 or h > 1:
        w, h, n = (w + 1) // 2, (h + 1) // 2, n + 1
    return n


def expectations(img):
    """(command arguments, {output suffix: expected array}) per check; the
    arguments use {src} and {out} for file names."""
    yield ["equalize", "{src}", "{out}.png"], {".png": cv2.equalizeHist(img)}
    n = min(4, max_levels(img.shape))
    if n > 0:
        levels, g = {}, img
        for i in range(1, n + 1):
            g = cv2.pyrDown(g)
            levels[f"{i}.png"] = g
        yield ["pyramid", "{src}", "{out}%d.png", "--levels", str(n)], levels
        bands, g = {}, img
        for i in range(n):
            down = cv2.pyrDown(g)
            up = cv2.pyrUp(down)[: g.shape[0], : g.shape[1]]
            bands[f"{i}.npy"] = g.astype(np.int16) - up.astype(np.int16)
            g = down
        bands[f"{n}.npy"] = g.astype(np.int16)
        yield ["laplacian", "{src}", "{out}%d.npy", "--levels", str(n)], bands
    yield ["pyrup", "{src}", "{out}.png"], {".png": cv2.pyrUp(img)}
    yield ["integral", "{src}", "{out}.npy"], {".npy": cv2.integral(img).view(np.uint32)}
    s, q = cv2.integral2(img)
    yield (["integral", "{src}", "{out}.npy", "--squared", "{out}-sq.npy"],
           {".npy": s.view(np.uint32), "-sq.npy": q})
    yield (["integral", "{src}", "{out}.npy", "--type", "f64"],
           {".npy": cv2.integral(img, sdepth=cv2.CV_64F)})


def load(path):
    if path.endswith(".npy"):
        return np.load(path)
    return cv2.imread(path, cv2.IMREAD_UNCHANGED)


def compare(got, want):
    """None when equal, else a description of the first difference."""
    if got is None:
        return "no output"
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"output {got.dtype}{got.shape}, OpenCV {want.dtype}{want.shape}"
    if np.array_equal(got, want):
        return None
    diff = np.argwhere(got != want)
    y, x = diff[0][:2]
    return f"{len(diff)} values differ, first at ({x},{y}): clik {got[y, x]}, OpenCV {want[y, x]}"


def main():
    clik, devices = sys.argv[1], sys.argv[2:]
    failures = checks = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, img in images():
            src = os.path.join(tmp, name + ".png")
            assert cv2.imwrite(src, img)
            for args, outputs in expectations(img):
                for dev in devices:
                    out = os.path.join(tmp, f"{name}-{args[0]}-{dev}")
                    cmd = [clik] + [a.format(src=src, out=out) for a in args] + ["--device", dev]
                    what = f"{args[0]} {' '.join(args[3:])} {name} on {dev}".replace("  ", " ")
                    checks += 1
                    run = subprocess.run(cmd, capture_output=True, text=True)
                    if run.returncode != 0:
                        print(f"FAIL {what}: exit {run.returncode}: {run.stderr.strip()}")
                        failures += 1
                        continue
                    problems = [f"{suffix}: {p}" for suffix, want in outputs.items()
                                if (p := compare(load(out + suffix), want))]
                    if problems:
                        print(f"FAIL {what}: {'; '.join(problems)}")
                        failures += 1
                    else:
                        print(f"ok   {what}")
    print(f"OpenCV {cv2.__version__}; {checks} checks, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

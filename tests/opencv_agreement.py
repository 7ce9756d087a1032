#!/usr/bin/env python3
"""Acceptance: `clik equalize IN.png OUT.png` gives exactly the pixels of
OpenCV's cv2.equalizeHist for 8-bit grey PNGs, on each device asked for.
Usage: opencv_equalize.py CLIK_BINARY DEVICE [DEVICE ...]
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
    """Grey images that reach the corners of equalizeHist."""
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


def main():
    clik, devices = sys.argv[1], sys.argv[2:]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, img in images():
            src = os.path.join(tmp, name + ".png")
            assert cv2.imwrite(src, img)
            want = cv2.equalizeHist(img)
            for dev in devices:
                out = os.path.join(tmp, f"{name}-{dev}.png")
                run = subprocess.run([clik, "equalize", src, out, "--device", dev],
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    print(f"FAIL {name} on {dev}: exit {run.returncode}: {run.stderr.strip()}")
                    failures += 1
                    continue
                got = cv2.imread(out, cv2.IMREAD_UNCHANGED)
                if got is None or got.shape != want.shape or got.dtype != want.dtype:
                    print(f"FAIL {name} on {dev}: output shape {None if got is None else got.shape}")
                    failures += 1
                elif not np.array_equal(got, want):
                    diff = np.argwhere(got != want)
                    y, x = diff[0]
                    print(f"FAIL {name} on {dev}: {len(diff)} pixels differ, first at ({x},{y}):"
                          f" clik {got[y, x]}, OpenCV {want[y, x]}")
                    failures += 1
                else:
                    print(f"ok   {name} on {dev}: identical to cv2.equalizeHist")
    print(f"OpenCV {cv2.__version__}; {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

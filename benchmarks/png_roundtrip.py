#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A 4K PNG through the tool against the same in Python with OpenCV.

Times, in one run and taking turns, `clik equalize IN.png OUT.png` (the
process end to end: start, PNG read, equalization, PNG write) against a
Python process that does cv2.imread, cv2.equalizeHist per channel and
cv2.imwrite (also end to end, interpreter start and `import cv2`
included), and against the same three calls timed inside Python (no
process start). The input: scikit-image's astronaut, resized to
3840x2160 with cv2.INTER_CUBIC, RGB.

    benchmarks/png_roundtrip.py [--clik build/apps/clik] [--device none] [--reps 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np
from skimage import data

PY_SCRIPT = """
import sys, cv2
img = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
out = cv2.merge([cv2.equalizeHist(c) for c in cv2.split(img)])
cv2.imwrite(sys.argv[2], out)
"""


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clik", default="build/apps/clik")
    ap.add_argument("--device", default="none", help="clik's --device (default: none)")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.png")
        img = cv2.resize(cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2BGR), (3840, 2160),
                         interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(src, img)
        out_clik, out_py = os.path.join(d, "clik.png"), os.path.join(d, "py.png")
        clik_cmd = [args.clik, "equalize", src, out_clik, "--device", args.device]
        py_cmd = [sys.executable, "-c", PY_SCRIPT, src, out_py]
        timed(clik_cmd)  # kernels compiled and cached, files in the page cache
        timed(py_cmd)
        t_clik, t_py, t_in = [], [], []
        for _ in range(args.reps):
            t_clik.append(timed(clik_cmd))
            t_py.append(timed(py_cmd))
            t = time.perf_counter()
            a = cv2.imread(src, cv2.IMREAD_COLOR)
            cv2.imwrite(out_py, cv2.merge([cv2.equalizeHist(c) for c in cv2.split(a)]))
            t_in.append(time.perf_counter() - t)
        same = np.array_equal(cv2.imread(out_clik), cv2.imread(out_py))
        sizes = os.path.getsize(out_clik), os.path.getsize(out_py)
    med = statistics.median
    print(f"3840x2160 RGB PNG -> equalize -> PNG, median of {args.reps}, taking turns")
    print(f"  clik equalize (process, --device {args.device}): {med(t_clik) * 1e3:8.1f} ms"
          f"  ({sizes[0]} bytes)")
    print(f"  python3 + cv2 (process):                 {med(t_py) * 1e3:8.1f} ms"
          f"  ({sizes[1]} bytes)")
    print(f"  cv2 calls inside Python (no start):      {med(t_in) * 1e3:8.1f} ms")
    print(f"  clik / python process: {med(t_clik) / med(t_py):.2f}; "
          f"clik / cv2 calls: {med(t_clik) / med(t_in):.2f}; outputs identical: {same}")
    print(f"  OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads")


if __name__ == "__main__":
    main()

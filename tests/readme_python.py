# SPDX-License-Identifier: BSD-2-Clause
"""The README's Python example, its first ```python block (tests/api_example.py
whole, which CI also runs from a pip install), run through the build tree's
package on the photograph the build makes, beside it as the README has it
(build/apps/); then its results are checked: photo-x2.png holds the upscale,
the upscale of the BGR array as it is equals the upscale of the same pixels
in RGB order with the channels swapped back, and the flow is within 0.1 px
of the truth (TV-L1 gives 0.045 px; a truth a quarter pixel off, 0.26 px).
Exit 77 (SKIP) without OpenCV's cv2.
Usage: readme_python.py README.md API_EXAMPLE.py BUILD_APPS_DIR"""
import contextlib
import io
import os
import re
import sys
import tempfile

# This script's folder must not hide the build tree's package.
del sys.path[0]
try:
    import cv2
except ImportError as e:
    print(f"SKIP: {e} (Debian: python3-opencv)")
    sys.exit(77)
import numpy as np

import clik

readme, example, apps = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
failures = []


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


text = open(readme, encoding="utf-8").read()
begin = text.index("```python\n") + len("```python\n")
code = text[begin:text.index("```\n", begin)]
check("README.md's first Python block is tests/api_example.py",
      code == open(example, encoding="utf-8").read())
check("the Python example is on the README's first screen (before its first section)",
      begin < text.index("\n## "))

with tempfile.TemporaryDirectory() as folder:
    os.mkdir(os.path.join(folder, "build"))
    os.symlink(apps, os.path.join(folder, "build", "apps"))
    os.chdir(folder)
    printed = io.StringIO()
    names = {}
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md's Python example", "exec"), names)
    line = printed.getvalue()
    print("the example printed: " + line.strip())
    check("it prints the backend, the upscale's shape and the EPE",
          re.fullmatch(r"(opencl|neon|scalar) \(1024, 1024, 3\) EPE \d+\.\d{3} px\n", line) is not None)

    bgr, up, flow = names["bgr"], names["up"], names["flow"]
    check("the photograph: (512, 512, 3) uint8", bgr.shape == (512, 512, 3) and bgr.dtype == np.uint8)
    check("the upscale: (1024, 1024, 3) uint8", up.shape == (1024, 1024, 3) and up.dtype == np.uint8)
    written = cv2.imread("build/photo-x2.png", cv2.IMREAD_UNCHANGED)
    check("photo-x2.png holds the upscale", written is not None and np.array_equal(written, up))
    rgb = names["ctx"].upscale_lapar(np.ascontiguousarray(bgr[..., ::-1]), 2, order="rgb")
    check("the BGR upscale is the RGB one with the channels swapped",
          np.array_equal(up, rgb[..., ::-1]))

    # The truth read on its own: "PIEH", width, height, then (u, v) pairs.
    raw = open("build/apps/photo-truth.flo", "rb").read()
    check("the truth's header", raw[:4] == b"PIEH" and
          tuple(np.frombuffer(raw[4:12], "<i4")) == (512, 512))
    truth = np.frombuffer(raw[12:], "<f4").reshape(512, 512, 2)
    known = (np.abs(truth) < 1e9).all(axis=2)
    check("the truth marks some pixels unknown (moved out of the frame), none in the middle",
          0.95 < known.mean() < 1 and known[200:300, 200:300].all())
    check("the flow: (512, 512, 2) float32", flow.shape == (512, 512, 2) and flow.dtype == np.float32)
    epe = float(np.sqrt(((flow.astype(np.float64) - truth) ** 2).sum(axis=2))[known].mean())
    check(f"the flow's mean end-point error {epe:.4f} px is below 0.1 px and the example's",
          epe < 0.1 and abs(epe - names["epe"]) < 1e-4)
    os.chdir("/")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)

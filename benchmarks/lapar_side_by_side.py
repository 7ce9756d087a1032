#!/usr/bin/env python3
"""The LAPAR model upscaler beside bicubic on a photograph it was not trained
on: the photograph is shrunk by the scale with `clik resize --antialias`,
enlarged again with `clik resize` (bicubic) and `clik upscale --method
lapar`, and the crop where the two differ most (summed |difference|) is written as
bicubic | lapar | original, each shown 3x (nearest).

Usage: lapar_side_by_side.py CLIK OUT.png [--image chelsea] [--scale 2]
       [--size 80] [--device none]
Needs numpy, OpenCV (cv2) and scikit-image (the photograph).
SPDX-License-Identifier: BSD-2-Clause
"""
import argparse
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
from skimage import data

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality import best_crop, side_by_side  # noqa: E402


def run(*cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"lapar_side_by_side: {' '.join(cmd)}: {done.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clik", help="the clik tool")
    ap.add_argument("out", help="the PNG to write")
    ap.add_argument("--image", default="chelsea", help="a scikit-image photograph (held out)")
    ap.add_argument("--scale", type=int, default=2)
    ap.add_argument("--size", type=int, default=80, help="side of the crop")
    ap.add_argument("--device", default="none")
    args = ap.parse_args()
    ref = getattr(data, args.image)()
    if ref.ndim == 2:
        ref = np.dstack([ref] * 3)
    s = args.scale
    ref = ref[: ref.shape[0] // s * s, : ref.shape[1] // s * s]
    with tempfile.TemporaryDirectory() as tmp:
        hr, lr = os.path.join(tmp, "hr.png"), os.path.join(tmp, "lr.png")
        cv2.imwrite(hr, cv2.cvtColor(ref, cv2.COLOR_RGB2BGR))
        dev = ["--device", args.device]
        run(args.clik, "resize", hr, lr, "--size",
            f"{ref.shape[1] // s}x{ref.shape[0] // s}", "--antialias", *dev)
        ups = {}
        for name, cmd in (("bicubic", ["resize", lr, "{}", "--size",
                                       f"{ref.shape[1]}x{ref.shape[0]}"]),
                          ("lapar", ["upscale", lr, "{}", "--scale", str(s), "--method",
                                     "lapar"])):
            out = os.path.join(tmp, name + ".png")
            run(args.clik, *[out if c == "{}" else c for c in cmd], *dev)
            ups[name] = cv2.cvtColor(cv2.imread(out, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    # Where lapar moves furthest from bicubic (edges and texture).
    differ = np.abs(ups["lapar"].astype(np.int64) - ups["bicubic"]).sum(axis=2)
    crop = best_crop(differ, args.size)
    png = side_by_side([("bicubic", ups["bicubic"]), ("lapar", ups["lapar"]),
                        ("original", ref)], crop, 3)
    with open(args.out, "wb") as f:
        f.write(png)
    y, x, size = crop
    print(f"{args.out}: {args.image} x{s}, the {size}x{size} crop at ({x}, {y})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The YUV conversions of clik against cv2.cvtColor, in one run.

Runs `clik-camera-loop --conversions` (device images, call + finish, median
of --reps) and times cv2.cvtColor on the same conversions and size
(cv2.setNumThreads(--cv-threads), median of --reps, dst preallocated),
taking turns for --rounds rounds (a machine whose load drifts then drifts
for both); prints each conversion's medians over rounds and the range of the
clik / OpenCV ratio (< 1: clik faster), for the wall-clock time and for the
process's CPU time a call (every thread's: steadier on a loaded machine). --tune adds a run of clik per
tuning string (CLIK_TUNE), e.g. --tune yuv_rows=0 for the block kernels.
PoCL's compute units: set POCL_CPU_MAX_CU_COUNT (benchmarks/compare_opencv.py
does the same).
Example:
    POCL_CPU_MAX_CU_COUNT=2 python benchmarks/yuv_conversions_opencv.py \\
        --loop build/benchmarks/clik-camera-loop --device pocl --size 1920x1080
"""
import argparse
import os
import statistics
import subprocess
import time

import cv2
import numpy as np

CV = {
    "nv21-rgba": cv2.COLOR_YUV2RGBA_NV21, "nv21-rgb": cv2.COLOR_YUV2RGB_NV21,
    "nv21-grey": cv2.COLOR_YUV2GRAY_420, "nv12-rgba": cv2.COLOR_YUV2RGBA_NV12,
    "nv12-rgb": cv2.COLOR_YUV2RGB_NV12, "nv12-grey": cv2.COLOR_YUV2GRAY_420,
    "i420-rgba": cv2.COLOR_YUV2RGBA_I420, "i420-rgb": cv2.COLOR_YUV2RGB_I420,
    "i420-grey": cv2.COLOR_YUV2GRAY_420, "rgba-nv21": None, "rgba-i420": cv2.COLOR_RGBA2YUV_I420,
}


def time_cv(name, w, h, reps, rng):
    if name.startswith("rgba-"):
        src = rng.integers(0, 256, (h, w, 4), np.uint8)
        code = cv2.COLOR_RGBA2YUV_YV12 if name == "rgba-nv21" else CV[name]
    else:
        src = rng.integers(0, 256, (h * 3 // 2, w), np.uint8)
        code = CV[name]
    dst = cv2.cvtColor(src, code)
    for _ in range(3):
        cv2.cvtColor(src, code, dst=dst)
    ts = []
    c0 = time.process_time()
    for _ in range(reps):
        t = time.perf_counter()
        cv2.cvtColor(src, code, dst=dst)
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts), (time.process_time() - c0) * 1e3 / reps


def time_clik(args, tune):
    env = dict(os.environ)
    if tune:
        env["CLIK_TUNE"] = tune
    out = subprocess.run([args.loop, "--conversions", "--device", args.device, "--size", args.size,
                          "--reps", str(args.reps)], env=env, capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[0]: (float(line.split()[2]), float(line.split()[4]))
            for line in out.splitlines() if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loop", required=True, help="the clik-camera-loop binary")
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cv-threads", type=int, default=2)
    ap.add_argument("--tune", action="append", default=[])
    args = ap.parse_args()
    w, h = map(int, args.size.split("x"))
    cv2.setNumThreads(args.cv_threads)
    rng = np.random.default_rng(1)
    tunes = [""] + args.tune
    clik = {t: [] for t in tunes}
    cv = {n: [] for n in CV}
    for _ in range(args.rounds):
        for t in tunes:
            clik[t].append(time_clik(args, t))
        for n in CV:
            cv[n].append(time_cv(n, w, h, args.reps, rng))
    print(f"{args.size}, {args.device}, OpenCV {cv2.__version__} on {args.cv_threads} threads, "
          f"{args.rounds} rounds of {args.reps} runs; wall: medians, ratio clik / OpenCV with its "
          "range over rounds; cpu: the process's CPU time a call (all threads), mean")
    for k, what in ((0, "wall ms"), (1, "cpu ms")):
        head = f"{what:<10} {'OpenCV':>8}"
        for t in tunes:
            head += f" | {'clik ' + (t or 'default'):>18} {'ratio':>17}"
        print(head)
        for n in CV:
            o = [r[k] for r in cv[n]]
            row = f"{n:<10} {statistics.median(o):8.3f}"
            for t in tunes:
                c = [r[n][k] for r in clik[t]]
                ratios = [a / b for a, b in zip(c, o)]
                row += (f" | {statistics.median(c):18.3f} {statistics.median(ratios):5.2f} "
                        f"({min(ratios):.2f}-{max(ratios):.2f})")
            print(row)
    print("rgba-nv21's OpenCV row is COLOR_RGBA2YUV_YV12 (OpenCV has no RGB to NV21; the same work).")


if __name__ == "__main__":
    main()

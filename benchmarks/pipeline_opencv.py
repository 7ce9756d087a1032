#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Time clik-pipeline's chain against the same chain in OpenCV, in one run.

The chain: histogram equalization -> Gaussian pyramid (pyrDown) -> Laplacian bands
(a level minus the pyrUp of the next, int16) -> collapse (each band plus the
pyrUp of the level rebuilt below it). clik-pipeline times it on device
images (one upload, one download) and on host images, and writes its input
and output (--dump-input, --dump-output); this script times OpenCV on the
very same pixels: on the CPU (cv2.setNumThreads(--threads)) and through
the OpenCL T-API (cv2.UMat kept on the device from the upload to the
download of the result) on clik's OpenCL device. clik and OpenCV take turns
for --rounds rounds; each time is a median of --reps runs after --warmup
untimed ones, and the table shows the median over rounds.

OpenCV's result must equal clik's (the collapse rebuilds the equalized
frame exactly in both, and equalizeHist and clik_hist_equalize agree
exactly), else the script fails.

--chain upscale times clik-pipeline's second chain (resize by 1/S with
clik's bicubic-aa, LAPAR model upscale by S, SSIM against the frame).
OpenCV has no LAPAR upscaler: its row is the cheapest OpenCV equivalent,
cv2.resize INTER_AREA down, INTER_CUBIC up, and the usual SSIM recipe
(compare_opencv.ssim_opencv, the map over the whole frame); the two SSIM
values are printed, not compared.

Needs numpy and cv2 (Debian: python3-opencv). Example:
    /usr/bin/python3 benchmarks/pipeline_opencv.py \\
        --pipeline build-rel/benchmarks/clik-pipeline --device pocl \\
        --size 1920x1080 --size 3840x2160
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_opencv import (cpu_model, median_ms, opencv_device_filter,  # noqa: E402
                            parse_size, read_pnm, ssim_opencv)


def fail(msg):
    print(f"pipeline_opencv: {msg}", file=sys.stderr)
    sys.exit(1)


def level_sizes(w, h, levels):
    """(W, H) of levels 0..levels, as clik_pyr_level_size and pyrDown give them:
    level i is W / 2^i x H / 2^i rounded up (halving i times, each rounding up)."""
    return [(-(-w >> i), -(-h >> i)) for i in range(levels + 1)]


def equalize(cv, img, channels):
    """equalizeHist per colour channel; a 4th channel (alpha) is copied, as clik does."""
    if channels == 1:
        return cv.equalizeHist(img)
    planes = list(cv.split(img))
    return cv.merge([cv.equalizeHist(p) for p in planes[:3]] + planes[3:])


def opencv_chain(cv, img, channels, sizes):
    """The chain on a numpy array or a cv2.UMat; returns the rebuilt frame."""
    levels = len(sizes) - 1
    eq = equalize(cv, img, channels)
    g = [eq]  # cv2.buildPyramid is not in the Python bindings: its pyrDown loop
    for i in range(levels):
        g.append(cv.pyrDown(g[i], dstsize=sizes[i + 1]))
    bands = [cv.subtract(g[i], cv.pyrUp(g[i + 1], dstsize=sizes[i]), dtype=cv.CV_16S)
             for i in range(levels)]
    out = g[levels]
    for i in reversed(range(levels)):
        out = cv.add(bands[i], cv.pyrUp(out, dstsize=sizes[i]), dtype=cv.CV_8U)
    return out


def opencv_upscale_chain(cv, img, size, scale):
    """Down by 1/scale, up by scale, SSIM against img (w x h); returns the SSIM mean."""
    w, h = size
    lr = cv.resize(img, (w // scale, h // scale), interpolation=cv.INTER_AREA)
    up = cv.resize(lr, (w, h), interpolation=cv.INTER_CUBIC)
    return ssim_opencv(cv, up, img)[1]


def run_pipeline(args, size, tmp, first):
    w, h = size
    cmd = [args.pipeline, "--size", f"{w}x{h}", "--levels", str(args.levels), "--channels",
           str(args.channels), "--reps", str(args.reps), "--warmup", str(args.warmup), "--json",
           "--chain", args.chain, "--scale", str(args.scale)]
    if args.device:
        cmd += ["--device", args.device]
    if first:  # the pixels for OpenCV, and the CPU-path check once
        cmd += ["--dump-input", tmp, "--dump-output", tmp]
    else:
        cmd += ["--no-cpu-check"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode == 77:
        fail(f"skipped: {proc.stderr.strip()}")
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.strip()}")
    return json.loads(proc.stdout.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pipeline", default="build-rel/benchmarks/clik-pipeline",
                    help="clik-pipeline executable")
    ap.add_argument("--device", default=None, help="clik device selection (as CLIK_DEVICE)")
    ap.add_argument("--size", action="append", type=parse_size, help="WxH (repeatable)")
    ap.add_argument("--chain", choices=("pyramid", "upscale"), default="pyramid")
    ap.add_argument("--scale", type=int, default=2, choices=(2, 3, 4),
                    help="the upscale chain's factor")
    ap.add_argument("--levels", type=int, default=5)
    ap.add_argument("--channels", type=int, default=1, choices=(1, 4))
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3,
                    help="clik and OpenCV take turns this many times (medians over rounds)")
    ap.add_argument("--threads", type=int, default=2, help="cv2.setNumThreads (default 2)")
    ap.add_argument("--ocl-device", default=None,
                    help="OPENCV_OPENCL_DEVICE for the T-API (default: clik's platform and "
                         "device type); 'disabled' skips the T-API")
    ap.add_argument("--json", metavar="FILE", help="save the rows as JSON")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0 or args.rounds < 1 or args.threads < 1:
        ap.error("--reps, --rounds and --threads must be at least 1, --warmup at least 0")
    if not 1 <= args.levels <= 32:
        ap.error("--levels must be 1 to 32")
    if args.chain == "upscale" and args.channels != 1:
        ap.error("--chain upscale takes one channel")
    if not os.access(args.pipeline, os.X_OK):
        fail(f"{args.pipeline} is not an executable (build with meson and pass --pipeline)")
    sizes = args.size or [(1920, 1080)]
    load_start = os.getloadavg()

    tmp = tempfile.TemporaryDirectory(prefix="clik-pipeline-")
    clik_rows = {s: [run_pipeline(args, s, tmp.name, True)] for s in sizes}
    first = next(iter(clik_rows.values()))[0]
    # cv2 reads OPENCV_OPENCL_DEVICE at import: clik's device is known now.
    ocl = opencv_device_filter(args, first)
    os.environ["OPENCV_OPENCL_DEVICE"] = ocl if ocl is not None else "disabled"
    import numpy as np
    import cv2 as cv

    cv.setNumThreads(args.threads)
    tapi = ""
    if ocl not in (None, "disabled") and cv.ocl.haveOpenCL():
        cv.ocl.setUseOpenCL(True)
        tapi = cv.ocl.Device.getDefault().name() if cv.ocl.useOpenCL() else ""
    if not tapi:
        print("pipeline_opencv: OpenCV T-API not used (disabled or no OpenCL device)",
              file=sys.stderr)

    ext = "pgm" if args.channels == 1 else "pam"
    rows = []
    for size in sizes:
        w, h = size
        name = f"{w}x{h}-c{args.channels}.{ext}"
        img = read_pnm(os.path.join(tmp.name, f"input-{name}"), np)
        want = read_pnm(os.path.join(tmp.name, f"output-{name}"), np)
        lsizes = level_sizes(w, h, args.levels)
        if args.chain == "upscale":
            def cpu_once():
                return opencv_upscale_chain(cv, img, size, args.scale)

            def tapi_once():
                return opencv_upscale_chain(cv, cv.UMat(img), size, args.scale)
            cv_ssim = cpu_once()
        else:
            def cpu_once():
                return opencv_chain(cv, img, args.channels, lsizes)

            def tapi_once():
                return opencv_chain(cv, cv.UMat(img), args.channels, lsizes).get()
            cv_ssim = None
            if not np.array_equal(cpu_once(), want):
                fail(f"{w}x{h}: OpenCV's result differs from clik's in "
                     f"{int(np.count_nonzero(cpu_once() != want))} elements")
            if tapi and not np.array_equal(tapi_once(), want):
                fail(f"{w}x{h}: OpenCV T-API's result differs from clik's")
        cv_cpu, cv_cputime, cv_tapi = [], [], []
        for r in range(args.rounds):
            if r:
                clik_rows[size].append(run_pipeline(args, size, tmp.name, False))
            wall, cputime = median_ms(cpu_once, args.reps, args.warmup)
            cv_cpu.append(wall)
            cv_cputime.append(cputime)
            if tapi:
                cv_tapi.append(median_ms(tapi_once, args.reps, args.warmup)[0])
        med = statistics.median
        dev = med(r["device_ms"] for r in clik_rows[size])
        host = med(r["host_ms"] for r in clik_rows[size])
        cpu = med(cv_cpu)
        row = {"size": f"{w}x{h}", "chain": args.chain, "channels": args.channels,
               "levels": args.levels, "scale": args.scale,
               "clik_ssim": clik_rows[size][0].get("ssim"), "opencv_ssim": cv_ssim,
               "clik_device_ms": dev, "clik_host_ms": host, "opencv_ms": cpu,
               "opencv_tapi_ms": med(cv_tapi) if cv_tapi else None,
               "host_over_device": host / dev, "opencv_over_device": cpu / dev,
               "opencv_over_host": cpu / host,
               "opencv_tapi_over_device": med(cv_tapi) / dev if cv_tapi else None,
               "clik_device_cputime_ms": med(r["device_cpu_ms"] for r in clik_rows[size]),
               "clik_host_cputime_ms": med(r["host_cpu_ms"] for r in clik_rows[size]),
               "opencv_cputime_ms": med(cv_cputime),
               "rounds_device_ms": [r["device_ms"] for r in clik_rows[size]],
               "rounds_host_ms": [r["host_ms"] for r in clik_rows[size]],
               "rounds_opencv_ms": cv_cpu}
        rows.append(row)

    meta = {"chain": first["chain"], "clik_device": first["device"], "clik_platform": first["platform"],
            "cpu": cpu_model(), "cv2_version": cv.__version__, "cv_threads": cv.getNumThreads(),
            "tapi_device": tapi, "reps": args.reps, "warmup": args.warmup,
            "rounds": args.rounds, "load_start": load_start, "load_end": os.getloadavg()}
    print_table(rows, meta, args.markdown)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


def print_table(rows, meta, markdown):
    def ms(v):
        return f"{v:.2f}" if v is not None else "-"

    def ratio(v):
        return f"{v:.2f}" if v is not None else "-"

    head = ["size", "clik device ms", "clik host ms", f"OpenCV {meta['cv_threads']}t ms",
            "OpenCV T-API ms", "host/device", "OpenCV/device", "OpenCV/host", "T-API/device"]
    body = [[r["size"], ms(r["clik_device_ms"]), ms(r["clik_host_ms"]), ms(r["opencv_ms"]),
             ms(r["opencv_tapi_ms"]), ratio(r["host_over_device"]),
             ratio(r["opencv_over_device"]), ratio(r["opencv_over_host"]),
             ratio(r["opencv_tapi_over_device"])] for r in rows]
    print(f"chain {meta['chain']}; clik on {meta['clik_device']} ({meta['clik_platform']}); CPU {meta['cpu']}; "
          f"OpenCV {meta['cv2_version']} ({meta['cv_threads']} threads), T-API device: "
          f"{meta['tapi_device'] or 'none'}")
    print(f"median of {meta['reps']} runs after {meta['warmup']}, median over "
          f"{meta['rounds']} rounds; load {meta['load_start'][0]:.2f} -> "
          f"{meta['load_end'][0]:.2f}; ratios above 1: clik's chain is faster")
    show(head, body, markdown)
    for r in rows:
        if r["clik_ssim"] is not None:
            print(f"{r['size']}: SSIM clik (LAPAR model x{r['scale']}) {r['clik_ssim']:.4f}, "
                  f"OpenCV (area down, cubic up) {r['opencv_ssim']:.4f}")
    print("Process CPU time per chain (ms, medians; PoCL's worker threads included), less "
          "sensitive to other load than the wall clock:")
    show(["size", "clik device", "clik host", "OpenCV", "OpenCV/device"],
         [[r["size"], ms(r["clik_device_cputime_ms"]), ms(r["clik_host_cputime_ms"]),
           ms(r["opencv_cputime_ms"]),
           ratio(r["opencv_cputime_ms"] / r["clik_device_cputime_ms"])] for r in rows], markdown)


def show(head, body, markdown):
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for b in body:
            print("| " + " | ".join(b) + " |")
        return
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    for line in [head] + body:
        print("  ".join(x.rjust(wd) for x, wd in zip(line, widths)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Upscaling quality of the released LAPAR networks beside bicubic and the lapar model.

The protocol of benchmarks/quality.py (results/quality-lapar.md), on the
photographs it holds out from the default LAPAR model's training (camera,
chelsea, rocket, hubble_deep_field; license-clear, shipped by Debian's
python3-skimage): each photograph is cropped at the top left so that S
divides its sides (as quality.py does; --crop N: a centred window of at most
N x N pixels instead, the same at every scale), the crop is downscaled by S
(2 and 4) with clik's antialiased bicubic (resize method
"bicubic-aa": MATLAB imresize), upscaled back by S with clik -- bicubic, the
`lapar` model (clik_upscale_lapar, the library's default model), LAPAR-C,
LAPAR-B and LAPAR-A (clik_lapar_net, the released networks) -- and compared
with the crop on BT.601 luma (Y = 0.299 R + 0.587 G + 0.114 B, full range,
float64), a border of S pixels shaved: PSNR (peak 255) and SSIM
(scikit-image structural_similarity, gaussian_weights=True, sigma=1.5,
use_sample_covariance=False, data_range=255).

chelsea is also the photograph of one of the networks' golden crops
(../shared/lapar-a/golden) and of benchmarks/lapar_compress_report.py's
calibration crops: it is listed per image and left out of the main mean;
the mean over all four (quality.py's held-out set) is given as well.

Writes OUT/quality-lapar-net.md and OUT/lapar-net-side-by-side.png (one
crop of --side-image at x--side-scale where LAPAR-A departs most from
bicubic: bicubic | lapar | LAPAR-A | original, shown 3x, nearest).

clik is driven through its Python package, one context for the whole run;
--python names a build's python/ folder to import it from.

Needs numpy, cv2 and skimage (Debian: python3-opencv, python3-skimage).
Example:
    /usr/bin/python3 benchmarks/lapar_net_quality.py --python build/python --device pocl
"""

import datetime
import os
import subprocess
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality import (IMAGES, Clik, common_arguments, fail, fmt_pair, section,  # noqa: E402
                     load_rgb, luma, measure, rgba_of, side_by_side_fitting, write_report)

# quality.py's held-out photographs (benchmarks/lapar_model_data.py HELD_OUT).
HELD_OUT = ["camera", "chelsea", "rocket", "hubble_deep_field"]
# Photographs of the networks' golden crops or of lapar_compress_report.py's calibration crops.
GOLDEN_OR_CALIBRATION = {"chelsea"}
SCALES = [2, 4]
NETWORKS = ["lapar-c", "lapar-b", "lapar-a"]
METHODS = ["bicubic", "lapar"] + NETWORKS
LABELS = {"bicubic": "bicubic", "lapar": "lapar", "lapar-c": "LAPAR-C", "lapar-b": "LAPAR-B",
          "lapar-a": "LAPAR-A"}


def centre_crop(rgb, size, scale_lcm):
    h, w = rgb.shape[:2]
    ch = min(size, h) // scale_lcm * scale_lcm
    cw = min(size, w) // scale_lcm * scale_lcm
    y0, x0 = (h - ch) // 2, (w - cw) // 2
    return np.ascontiguousarray(rgb[y0:y0 + ch, x0:x0 + cw]), (x0, y0, cw, ch)


def upscale(clik, rgba, scale, method):
    h, w = rgba.shape[:2]
    if method == "bicubic":
        return clik.run(f"bicubic x{scale}",
                        lambda: clik.ctx.resize(rgba, (w * scale, h * scale), method="bicubic"))
    if method == "lapar":
        return clik.run(f"lapar x{scale}",
                        lambda: clik.ctx.upscale_lapar(rgba, scale, order="rgb"))
    return clik.run(f"{method} x{scale}",
                    lambda: clik.ctx.lapar_net_run(rgba, method, scale, order="rgb"))


def source_revision():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no",
                                "--", "lib", "kernels", "fallback_cpu", "python", "meson.build"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev + (" (with uncommitted library changes)" if dirty else "")


def main():
    ap = common_arguments(__doc__.splitlines()[0],
                          "quality-lapar-net.md and lapar-net-side-by-side.png")
    ap.add_argument("--crop", type=int, default=0,
                    help="side of a centred crop of each photograph (default 0: the whole "
                         "photograph, cropped at the top left to a multiple of the scale)")
    ap.add_argument("--image", action="append", choices=HELD_OUT,
                    help="only these images (repeatable; default all held-out ones)")
    ap.add_argument("--side-image", default="rocket", choices=HELD_OUT,
                    help="photograph of the side-by-side picture (default rocket)")
    ap.add_argument("--side-scale", type=int, default=4, choices=SCALES,
                    help="scale of the side-by-side picture (default 4)")
    ap.add_argument("--side-size", type=int, default=96,
                    help="side of its crop in original pixels (default 96, shown 3x)")
    args = ap.parse_args()
    names = [n for n in HELD_OUT if not args.image or n in args.image]
    files = {n: (f, lic) for n, f, lic in IMAGES}
    os.makedirs(args.out, exist_ok=True)

    t_start = time.perf_counter()
    clik = Clik.of_arguments(args)

    # Warm-up: every kernel built once, outside the timed calls.
    tiny = rgba_of(np.full((16, 16, 3), 128, np.uint8))
    for s in SCALES:
        for m in METHODS:
            upscale(clik, tiny, s, m)

    results = {}  # (image, scale, method) -> (psnr, ssim)
    seconds = {}  # (scale, method) -> seconds over the images
    lr_pixels = {s: 0 for s in SCALES}
    crops = {}
    picture = None
    for name in names:
        rgb = load_rgb(os.path.join(args.data, files[name][0]))
        full = f"{rgb.shape[1]}x{rgb.shape[0]}"
        if args.crop > 0:
            centred = centre_crop(rgb, args.crop, 4)
        for s in SCALES:
            if args.crop > 0:
                ref, box = centred
            else:
                h, w = rgb.shape[0] - rgb.shape[0] % s, rgb.shape[1] - rgb.shape[1] % s
                ref, box = np.ascontiguousarray(rgb[:h, :w]), (0, 0, w, h)
            crops[(name, s)] = (full, box)
            h, w = ref.shape[:2]
            low = clik.downscale(rgba_of(ref), s)
            lr_pixels[s] += low.shape[0] * low.shape[1]
            ups = {}
            for m in METHODS:
                t = time.perf_counter()
                up = upscale(clik, low, s, m)
                seconds[(s, m)] = seconds.get((s, m), 0.0) + time.perf_counter() - t
                if up.shape[:2] != (h, w):
                    fail(f"{m} x{s} on {name}: {up.shape[1]}x{up.shape[0]}, expected {w}x{h}")
                ups[m] = up[:, :, :3]
                results[(name, s, m)] = measure(ups[m], ref, s)
            if name == args.side_image and s == args.side_scale:
                picture = (ref, ups)
        print(f"lapar_net_quality: {name} done", file=sys.stderr)
    backends = sorted(clik.backends)
    units = clik.ctx.device["compute_units"] if clik.ctx.device else None
    clik.close()

    # The side-by-side picture: where LAPAR-A moves furthest from bicubic.
    pic_note = ""
    if picture:
        ref, ups = picture
        differ = np.abs(luma(ups["lapar-a"]) - luma(ups["bicubic"]))
        s = args.side_scale
        differ[:s], differ[-s:], differ[:, :s], differ[:, -s:] = 0, 0, 0, 0
        size = args.side_size
        panels = [("bicubic", ups["bicubic"]), ("lapar", ups["lapar"]),
                  ("LAPAR-A", ups["lapar-a"]), ("original", ref)]
        png, crop = side_by_side_fitting(panels, differ, size, 3)
        with open(os.path.join(args.out, "lapar-net-side-by-side.png"), "wb") as f:
            f.write(png)
        y, x, size = crop
        x0, y0 = crops[(args.side_image, s)][1][:2]
        pic_note = (f"`lapar-net-side-by-side.png`: {args.side_image}, x{s}, the {size}x{size} "
                    f"region at ({x0 + x}, {y0 + y}) of the photograph "
                    "where LAPAR-A departs most from bicubic (summed |Y difference|), shown 3x "
                    "(nearest): " + " | ".join(p[0] for p in panels) + ".")

    def mean_row(s, subset):
        cells = []
        for m in METHODS:
            vals = [results[(n, s, m)] for n in subset]
            cells.append(fmt_pair(np.mean([v[0] for v in vals]), np.mean([v[1] for v in vals])))
        gain = np.mean([results[(n, s, "lapar-a")][0] - results[(n, s, "bicubic")][0]
                        for n in subset])
        return f"| {s} | " + " | ".join(cells) + f" | {gain:+.2f} dB |"

    main_set = [n for n in names if n not in GOLDEN_OR_CALIBRATION] or names
    rev = source_revision()
    crop_words = (f"a centred crop of at most {args.crop}x{args.crop} pixels (sides multiples "
                  "of 4; the same crop at x2 and x4)" if args.crop > 0 else
                  "the whole photograph, cropped at the top left so that the scale divides its "
                  "sides")
    lines = ["# Upscaling quality: the released LAPAR networks beside bicubic and lapar", ""]
    lines += [
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- clik: {clik.how}" + (f", source {rev}" if rev else "")
        + f", device {clik.device}"
        + (f" ({units} compute units)" if units else "")
        + (f", backend {', '.join(backends)}" if backends else ""),
        f"- OpenCV {cv2.__version__}; scikit-image structural_similarity",
        f"- protocol of `benchmarks/quality.py` (`quality-lapar.md`): each photograph is taken as "
        f"{crop_words}, downscaled by the "
        "scale with clik's antialiased bicubic (MATLAB imresize, `bicubic-aa`), and upscaled "
        "back; PSNR (dB) / SSIM on BT.601 luma (Y = 0.299 R + 0.587 G + 0.114 B, full range, "
        "float) against the crop, a border of `scale` pixels shaved; SSIM with "
        "gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255",
        "- bicubic: clik resize `bicubic`; lapar: clik_upscale_lapar with the library's default "
        "model (trained on astronaut, coffee, coins, ihc and three CC0 textures); LAPAR-C / B / "
        "A: clik_lapar_net with the released weights (`../shared/lapar-a/weights`), float32, "
        "the output rounded to 8 bits",
        "- photographs: quality.py's held-out set; chelsea is also the photograph of a golden "
        "crop of the networks and of lapar_compress_report.py's calibration crops, so it is "
        "listed per image and left out of the main mean",
    ]
    mean_head = (["scale"] + [f"{LABELS[m]} PSNR / SSIM" for m in METHODS]
                 + ["LAPAR-A - bicubic"])
    lines += section("Mean over camera, rocket, hubble_deep_field", mean_head)
    lines += [mean_row(s, main_set) for s in SCALES]
    if main_set != names:
        lines += section("Mean over quality.py's four held-out photographs (chelsea included)",
                         mean_head)
        lines += [mean_row(s, names) for s in SCALES]
    lines += section("Per image (PSNR dB / SSIM)",
                     ["image", "photograph", "crop (x, y, w x h)", "scale"]
                     + [LABELS[m] for m in METHODS], left=3)
    for n in names:
        for s in SCALES:
            full, (x0, y0, cw, ch) = crops[(n, s)]
            cells = [fmt_pair(*results[(n, s, m)]) for m in METHODS]
            tag = " (golden / calibration photograph)" if n in GOLDEN_OR_CALIBRATION else ""
            lines.append(f"| {n}{tag} | {full} | {x0}, {y0}, {cw}x{ch} | {s} | "
                         + " | ".join(cells) + " |")
    below = [(n, s, LABELS[m], results[(n, s, m)][0] - results[(n, s, "bicubic")][0])
             for n in names for s in SCALES for m in NETWORKS
             if results[(n, s, m)][0] < results[(n, s, "bicubic")][0]]
    lines += [""]
    if below:
        lines += ["Networks below bicubic in PSNR: " + "; ".join(
            f"{lab} x{s} on {n} ({d:+.2f} dB)" for n, s, lab, d in below) + "."]
    else:
        lines += ["Every network is above bicubic in PSNR on every crop and scale."]
    lines += section("Time", ["scale"] + [LABELS[m] for m in METHODS],
                     note="Seconds over the images (the call, host to host, kernels built "
                     f"beforehand); LR pixels in all: {lr_pixels[2]} at x2, {lr_pixels[4]} at x4.")
    for s in SCALES:
        lines.append(f"| {s} | " + " | ".join(f"{seconds[(s, m)]:.2f}" for m in METHODS) + " |")
    write_report(lines, [(n, *files[n]) for n in names], pic_note, "lapar_net_quality.py",
                 t_start, os.path.join(args.out, "quality-lapar-net.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Upscaling quality of clik's nearest, bicubic, fusion and lapar upscalers.

For each photograph (license-clear images that Debian's python3-skimage
ships), and each scale S of --scales (default 2, 3, 4): crop the image so
that S divides both sides, downscale it by S with clik's antialiased bicubic
(resize method "bicubic-aa": MATLAB imresize; --degrade area: cv2.INTER_AREA),
upscale the result back by S with clik (nearest, bicubic, fusion, lapar --
the LAPAR model upscaler with the library's default model, S 2..4; OpenCV's
INTER_CUBIC as a reference), and compare with the cropped original on the
luma channel: Y = 0.299 R + 0.587 G + 0.114 B (BT.601, full range, in
float64, not rounded), a border of S pixels shaved, PSNR (peak 255) and
SSIM (scikit-image structural_similarity, gaussian_weights=True,
sigma=1.5, use_sample_covariance=False, data_range=255). The means are over
the photographs held out from the default LAPAR model's training
(benchmarks/lapar_model_data.py): the training ones (astronaut, coffee) are
listed per image but left out of the means.

Writes OUT/quality.md (the tables, per image and the mean per scale and
method) and OUT/fusion-side-by-side.png (a crop: nearest | bicubic | fusion
| original | the artifact map, the crop where fusion departs most from the
bicubic image).

clik is driven through its Python package (`import clik`), one context
for the whole run (kernels built once); --python names a build's python/
folder to import it from (default build/python where it exists, else the
package Python finds).

Needs numpy, cv2 and skimage (Debian: python3-opencv, python3-skimage).
Example:
    /usr/bin/python3 benchmarks/quality.py --python build/python --device pocl
"""

import argparse
import datetime
import os
import sys
import time

import cv2
import numpy as np
from skimage.metrics import structural_similarity

from compare_opencv import clik_package

DEFAULT_DATA = "/usr/lib/python3/dist-packages/skimage/data"

# (name, file, license as scikit-image's data module states it). Only images
# whose license allows any use are listed; scikit-image's own data files
# state each one in skimage/data/_fetchers.py.
IMAGES = [
    ("astronaut", "astronaut.png",
     "public domain: NASA photograph, no known copyright restrictions"),
    ("camera", "camera.png", "CC0 (photographer Lav Varshney); grey"),
    ("chelsea", "chelsea.png", "CC0 (photographer Stefan van der Walt)"),
    ("coffee", "coffee.png", "CC0 (photographer Rachel Michetti)"),
    ("rocket", "rocket.jpg", "public domain: SpaceX photograph (released into the public domain)"),
    ("hubble_deep_field", "hubble_deep_field.jpg",
     "public domain: NASA photograph (may be freely used)"),
]

# The upscalers compared; opencv-cubic is a reference, not clik.
METHODS = ["nearest", "bicubic", "fusion", "lapar", "opencv-cubic"]
# Images the default LAPAR model was trained on (benchmarks/lapar_model_data.py).
TRAINED = {"astronaut", "coffee"}

SIDE_BY_SIDE_MAX_BYTES = 300 * 1024


def fail(msg):
    print(f"quality: {msg}", file=sys.stderr)
    sys.exit(1)


# --------------------------------------------------------------------------
# clik through its Python package
# --------------------------------------------------------------------------

class Clik:
    """One clik context; upscale() and downscale() take and return RGBA u8
    arrays."""

    @classmethod
    def of_arguments(cls, args):
        """The context of common_arguments' --python (default build/python
        where it is built) and --device."""
        python_dir = args.python
        if python_dir is None and os.path.isdir(os.path.join("build", "python", "clik")):
            python_dir = os.path.join("build", "python")
        return cls(python_dir, args.device)

    def __init__(self, python_dir, device):
        try:
            clik = clik_package(python_dir)
        except ImportError as e:
            fail(f"cannot import the clik package ({e}): build it (meson) and pass --python "
                 "with the build's python/ folder")
        self.clik = clik
        try:
            self.ctx = clik.Context(device)
        except clik.Error as e:
            fail(f"cannot create a clik context on '{device or 'auto'}': {e.status}: {e.message}")
        dev = self.ctx.device
        self.device = dev["name"] if dev else "none (CPU path)"
        self.how = f"the clik package {clik.__version__} ({os.path.dirname(clik.__file__)})"
        self.backends = set()

    def run(self, what, call):
        try:
            out = call()
        except self.clik.Error as e:
            fail(f"clik {what} failed: {e.status}: {e.message}")
        self.backends.add(self.ctx.last_backend)
        return out

    def upscale(self, rgba, scale, method, want_map=False):
        h, w = rgba.shape[:2]
        if method == "lapar":
            return self.run(f"lapar x{scale}", lambda: self.ctx.upscale_lapar(rgba, scale, order="rgb")), None
        if method == "fusion":
            out = self.run(f"fusion x{scale}",
                           lambda: self.ctx.upscale_fusion(rgba, scale, artifact_map=want_map,
                                                           order="rgb"))
            return out if want_map else (out, None)
        return self.run(f"{method} x{scale}",
                        lambda: self.ctx.resize(rgba, (w * scale, h * scale), method=method)), None

    def downscale(self, rgba, scale):
        """The antialiased bicubic downscale (MATLAB imresize) by 1 / scale."""
        h, w = rgba.shape[:2]
        return self.run("antialiased downscale",
                        lambda: self.ctx.resize(rgba, (w // scale, h // scale),
                                                method="bicubic-aa"))

    def close(self):
        self.ctx.close()


# --------------------------------------------------------------------------
# metrics
# --------------------------------------------------------------------------

def luma(rgb):
    """BT.601 luma, full range, float64."""
    rgb = rgb.astype(np.float64)
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def psnr(a, b):
    mse = np.mean((a - b) ** 2)
    return float("inf") if mse == 0 else 10.0 * np.log10(255.0 ** 2 / mse)


def ssim(a, b):
    return structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=255)


def measure(up_rgb, ref_rgb, shave):
    ya = luma(up_rgb)[shave:-shave, shave:-shave]
    yb = luma(ref_rgb)[shave:-shave, shave:-shave]
    return psnr(ya, yb), ssim(ya, yb)


def load_rgb(path):
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)  # grey images come back as three equal channels
    if bgr is None:
        fail(f"cannot read {path}")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def rgba_of(rgb):
    return np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])


# --------------------------------------------------------------------------
# the side-by-side picture
# --------------------------------------------------------------------------

def best_crop(differ, size):
    """Top-left corner of the size x size window where the most pixels differ."""
    h, w = differ.shape
    size = min(size, h, w)
    ii = np.pad(np.cumsum(np.cumsum(differ.astype(np.int64), 0), 1), ((1, 0), (1, 0)))
    sums = ii[size:, size:] - ii[:-size, size:] - ii[size:, :-size] + ii[:-size, :-size]
    y, x = np.unravel_index(np.argmax(sums), sums.shape)
    return int(y), int(x), size


def side_by_side(panels, crop, zoom):
    """panels: (label, RGB image of the original's size); crop: (y, x, size)."""
    y, x, size = crop
    label_h, gap = 22, 4
    pw = size * zoom
    canvas = np.full((label_h + pw, len(panels) * (pw + gap) - gap, 3), 255, np.uint8)
    for i, (label, img) in enumerate(panels):
        tile = img[y:y + size, x:x + size]
        tile = cv2.resize(tile, (pw, pw), interpolation=cv2.INTER_NEAREST)
        x0 = i * (pw + gap)
        canvas[label_h:, x0:x0 + pw] = tile
        cv2.putText(canvas, label, (x0 + 4, label_h - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (0, 0, 0), 1, cv2.LINE_AA)
    ok, png = cv2.imencode(".png", cv2.cvtColor(canvas, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        fail("cannot encode the side-by-side PNG")
    return png.tobytes()


def side_by_side_fitting(panels, differ, size, zoom):
    """side_by_side() of the size x size crop where the most pixels differ,
    the side shrunk by 15 % until the PNG fits SIDE_BY_SIDE_MAX_BYTES (or
    is 32 or less): (png, crop)."""
    while True:
        crop = best_crop(differ, size)
        png = side_by_side(panels, crop, zoom)
        if len(png) <= SIDE_BY_SIDE_MAX_BYTES or size <= 32:
            return png, crop
        size = int(size * 0.85)


# --------------------------------------------------------------------------

def fmt_pair(p, s):
    return f"{p:.2f} / {s:.4f}"


def section(title, head, left=0, note=None):
    """A report's section: its title, a note where given, and the head of a
    Markdown table of the columns in head, the first `left` aligned left and
    the others right."""
    return (["", f"## {title}", ""] + ([note, ""] if note else [])
            + ["| " + " | ".join(head) + " |", "|" + "---|" * left + "---:|" * (len(head) - left)])


def write_report(lines, images, pic_note, script, t_start, path):
    """Ends a report's lines with its images (name, file, license), the
    side-by-side note and the run's seconds, writes it to path and prints it."""
    lines += ["", "## Images", "",
              "From Debian's python3-skimage (`skimage/data/`); licenses as scikit-image's data "
              "module states them.", "", "| image | file | license |", "|---|---|---|"]
    for n, f, lic in images:
        lines.append(f"| {n} | {f} | {lic} |")
    if pic_note:
        lines += ["", pic_note]
    lines += ["", f"Run: `benchmarks/{script}` in {time.perf_counter() - t_start:.1f} s."]
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    print(text)


def common_arguments(description, outputs):
    """The parser with the options the quality scripts share: --python,
    --device, --out (the folder of `outputs`), --data."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--python", default=None, metavar="DIR",
                    help="a build's python/ folder to import clik from (default build/python "
                         "where it exists, else the clik package Python finds)")
    ap.add_argument("--device", default=None, help="clik device selection (as CLIK_DEVICE)")
    ap.add_argument("--out", default="benchmarks/results", help=f"folder of {outputs}")
    ap.add_argument("--data", default=DEFAULT_DATA, help="scikit-image's data folder")
    return ap


def main():
    ap = common_arguments(__doc__.splitlines()[0], "quality.md and fusion-side-by-side.png")
    ap.add_argument("--scales", default="2,3,4", help="comma-separated integer scales (2..8)")
    ap.add_argument("--degrade", choices=["antialias", "area"], default="antialias",
                    help="how the low-resolution input is made (default antialias: MATLAB "
                         "imresize bicubic, as super-resolution benchmarks do)")
    ap.add_argument("--image", action="append", choices=[n for n, _, _ in IMAGES],
                    help="only these images (repeatable; default all)")
    ap.add_argument("--crop-image", default="astronaut",
                    help="image of the side-by-side picture (default astronaut)")
    ap.add_argument("--crop-scale", type=int, default=4,
                    help="scale of the side-by-side picture (default 4)")
    ap.add_argument("--crop-size", type=int, default=128,
                    help="side of the crop in original pixels (default 128, shown 2x)")
    args = ap.parse_args()
    try:
        scales = [int(v) for v in args.scales.split(",")]
    except ValueError:
        ap.error(f"bad --scales '{args.scales}'")
    if not scales or any(not 2 <= s <= 8 for s in scales):
        ap.error("--scales must be integers from 2 to 8")
    if not 2 <= args.crop_scale <= 8 or args.crop_size < 16:
        ap.error("--crop-scale must be 2 to 8, --crop-size at least 16")
    images = [im for im in IMAGES if not args.image or im[0] in args.image]
    os.makedirs(args.out, exist_ok=True)

    t_start = time.perf_counter()
    clik = Clik.of_arguments(args)
    results = {}  # (image, scale, method) -> (psnr, ssim)
    nearest_share = {}  # (image, scale) -> share of pixels fusion took from the nearest image
    sizes = {}
    picture = None
    fusion_map = None
    for name, filename, _ in images:
        rgb = load_rgb(os.path.join(args.data, filename))
        sizes[name] = f"{rgb.shape[1]}x{rgb.shape[0]}"
        for s in scales:
            h, w = rgb.shape[0] - rgb.shape[0] % s, rgb.shape[1] - rgb.shape[1] % s
            ref = rgb[:h, :w]
            if args.degrade == "area":
                low = cv2.resize(ref, (w // s, h // s), interpolation=cv2.INTER_AREA)
            else:
                low = clik.downscale(rgba_of(np.ascontiguousarray(ref)), s)[:, :, :3]
            ups = {}
            for method in METHODS:
                if method == "lapar" and s > 4:
                    results[(name, s, method)] = (float("nan"), float("nan"))
                    continue
                if method == "opencv-cubic":
                    up = cv2.resize(low, (w, h), interpolation=cv2.INTER_CUBIC)
                    amap = None
                else:
                    up, amap = clik.upscale(rgba_of(low), s, method, want_map=method == "fusion")
                    up = up[:, :, :3]
                ups[method] = up
                results[(name, s, method)] = measure(up, ref, s)
                if method == "fusion" and amap is not None:
                    nearest_share[(name, s)] = float(np.mean(amap > 127))
                    fusion_map = amap
            if name == args.crop_image and s == args.crop_scale:
                picture = (ref, ups, fusion_map if (name, s) in nearest_share else None)
        print(f"quality: {name} done", file=sys.stderr)
    backends = sorted(clik.backends)
    clik.close()

    # The side-by-side picture: where fusion differs most from bicubic.
    pic_note = ""
    if picture:
        ref, ups, amap = picture
        differ = np.any(ups["fusion"] != ups["bicubic"], axis=2)
        size = args.crop_size
        panels = [("nearest", ups["nearest"]), ("bicubic", ups["bicubic"]),
                  ("fusion", ups["fusion"]), ("original", ref)]
        if amap is not None:
            panels.append(("artifact map", np.dstack([amap] * 3)))
        png, crop = side_by_side_fitting(panels, differ, size, 2)
        with open(os.path.join(args.out, "fusion-side-by-side.png"), "wb") as f:
            f.write(png)
        y, x, size = crop
        pic_note = (f"`fusion-side-by-side.png`: {args.crop_image}, x{args.crop_scale}, the "
                    f"{size}x{size} crop at ({x}, {y}) of the original where fusion differs most "
                    f"from bicubic, shown 2x (nearest): "
                    + " | ".join(p[0] for p in panels)
                    + " (artifact map: white where fusion took the nearest image).")

    # The report.
    lines = ["# Upscaling quality: clik nearest, bicubic, fusion and lapar", ""]
    lines += [
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- clik: {clik.how}, device {clik.device}"
        + (f", backend {', '.join(backends)}" if backends else ""),
        f"- OpenCV {cv2.__version__}; scikit-image structural_similarity",
        "- each image is cropped at the top left so that the scale divides its sides, "
        + ("downscaled by the scale with cv2.INTER_AREA" if args.degrade == "area" else
           "downscaled by the scale with clik's antialiased bicubic (MATLAB imresize)")
        + ", and upscaled back; PSNR (dB) / SSIM on "
        "BT.601 luma (Y = 0.299 R + 0.587 G + 0.114 B, full range, float) against the cropped "
        "original, a border of `scale` pixels shaved; SSIM with gaussian_weights=True, "
        "sigma=1.5, use_sample_covariance=False, data_range=255",
        "- fusion: clik_upscale_fusion with the default options (8x8 tile SSIM, 7x7 blur, "
        "threshold 0.05); `opencv-cubic` is cv2.resize INTER_CUBIC, for reference",
        "",
        "- lapar: clik_upscale_lapar with the library's default model (free 7x7 filter per "
        "bucket of 16 angles, 3 strengths, 4 coherences and the output phase, stored once per "
        "orbit of the 8 flips and rotations; trained on "
        + ", ".join(sorted(TRAINED)) + ", coins, ihc and three CC0 textures; "
        + " and ".join(sorted(TRAINED)) + " are left out of the means)",
    ]
    lines += section("Mean over the held-out images",
                     ["scale"] + [f"{m} PSNR / SSIM" for m in METHODS]
                     + ["lapar - bicubic", "fusion: pixels from nearest"])
    held = [im for im in images if im[0] not in TRAINED] or images
    for s in scales:
        cells = []
        for m in METHODS:
            vals = [results[(n, s, m)] for n, _, _ in held]
            cells.append(fmt_pair(np.mean([v[0] for v in vals]), np.mean([v[1] for v in vals])))
        gain = np.mean([results[(n, s, "lapar")][0] - results[(n, s, "bicubic")][0]
                        for n, _, _ in held])
        shares = [nearest_share[(n, s)] for n, _, _ in held if (n, s) in nearest_share]
        share = f"{100 * np.mean(shares):.1f} %" if shares else "-"
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {gain:+.2f} dB | {share} |")
    lines += section("Per image", ["image", "size", "scale", *METHODS, "from nearest"], left=2)
    for n, _, _ in images:
        for s in scales:
            cells = [fmt_pair(*results[(n, s, m)]) for m in METHODS]
            share = nearest_share.get((n, s))
            lines.append(f"| {n}{' (trained)' if n in TRAINED else ''} | {sizes[n]} | {s} | "
                         + " | ".join(cells)
                         + f" | {'-' if share is None else f'{100 * share:.1f} %'} |")
    write_report(lines, images, pic_note, "quality.py", t_start,
                 os.path.join(args.out, "quality.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Acceptance: ctx.resize(method="bicubic-aa") of the clik package gives
MATLAB's imresize(..., 'bicubic')
(antialiased) within +-1 on u8, checked against the NumPy reference of
benchmarks/resize_reference.py (written from MATLAB's published definition),
on each device asked for (one clik.Context per device string; "none" is
the CPU path), for grey and RGBA images (synthetic, and
photographs from scikit-image's data where it is installed) at factors down
to 1/4, non-integer ones, one axis up and the other down, an extreme one
(1921 -> 7) and images of one pixel.
Usage: resize_aa_agreement.py DEVICE [DEVICE ...]   (the clik package on
PYTHONPATH, e.g. the build's python/ folder)
Exit 77 (skip) when numpy is not importable; a clik package that does not
import is a failure."""
import os
import sys

from agreement_skip import import_clik, open_contexts, require

(np,) = require("numpy")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
from resize_reference import imresize_bicubic_aa  # noqa: E402

clik = import_clik()


def images():
    rng = np.random.default_rng(2024)
    yield "noise-641x479", rng.integers(0, 256, (479, 641), dtype=np.uint8)
    yy, xx = np.mgrid[0:257, 0:131]
    yield "gradient-131x257", ((xx + 3 * yy) % 256).astype(np.uint8)
    yield "edges-100x90", (((xx[:90, :100] // 7 + yy[:90, :100] // 5) % 2) * 255).astype(np.uint8)
    yield "rgba-noise-97x61", rng.integers(0, 256, (61, 97, 4), dtype=np.uint8)
    yield "one-1x1", np.full((1, 1), 200, np.uint8)
    yield "row-1921x3", rng.integers(0, 256, (3, 1921), dtype=np.uint8)
    try:
        from skimage import data
    except ImportError as e:
        print(f"SKIP photographs: {e}")
        return
    yield "camera", data.camera()[::2, ::2].copy()
    rgb = data.astronaut()[100:400, 50:450]
    alpha = np.full(rgb.shape[:2] + (1,), 255, np.uint8)
    yield "astronaut-rgba", np.concatenate([rgb, alpha], axis=2)


FACTORS = [(1, 2, 1, 2), (1, 3, 1, 3), (1, 4, 1, 4), (3, 7, 2, 5), (5, 3, 3, 7), (2, 1, 2, 1)]


def sizes(h, w):
    seen = set()
    for ny, dy, nx, dx in FACTORS:
        size = (max(1, round(h * ny / dy)), max(1, round(w * nx / dx)))
        if size not in seen:
            seen.add(size)
            yield size
    if w > 1000:
        yield (max(1, h // 2), 7)


def main():
    devices = sys.argv[1:]
    if not devices:
        print("usage: resize_aa_agreement.py DEVICE [DEVICE ...]", file=sys.stderr)
        return 2
    contexts = open_contexts(clik, devices)
    checks = failures = 0
    for name, img in images():
        for oh, ow in sizes(*img.shape[:2]):
            want = imresize_bicubic_aa(img, oh, ow)
            for dev, ctx in contexts.items():
                checks += 1
                what = f"{name} -> {ow}x{oh} on {dev}"
                if isinstance(ctx, str):
                    print(f"FAIL {what}: {ctx}")
                    failures += 1
                    continue
                try:
                    got = ctx.resize(img, (ow, oh), method="bicubic-aa")
                except Exception as e:  # clik.Error, or a refused argument
                    print(f"FAIL {what}: {type(e).__name__}: {e}")
                    failures += 1
                    continue
                what += f" ({ctx.last_backend})"
                if got.shape != want.shape or got.dtype != want.dtype:
                    print(f"FAIL {what}: {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
                    failures += 1
                    continue
                diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
                status = "ok" if diff.max() <= 1 else "FAIL"
                failures += status == "FAIL"
                print(f"{status} {what}: largest difference {int(diff.max())}, "
                      f"{100 * np.mean(diff == 0):.2f} % identical")
    for ctx in contexts.values():
        if not isinstance(ctx, str):
            ctx.close()
    print(f"{checks} checks, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A NumPy reference of MATLAB's imresize(img, [out_h out_w], 'bicubic') with
antialiasing on (MATLAB's default), written from its published definition
(imresize.m, "contributions"), not from clik's code:

  per axis, scale s = out / in; kernel cubic(x) = Keys' with a = -0.5:
      1.5|x|^3 - 2.5|x|^2 + 1            |x| <= 1
      -0.5|x|^3 + 2.5|x|^2 - 4|x| + 2    1 < |x| <= 2
  when s < 1 (shrinking, antialiasing) h(x) = s * cubic(s * x) and the
  kernel width is 4 / s, else h = cubic and the width 4;
  output x = 1 .. out (1-based) takes u = x / s + 0.5 * (1 - 1 / s),
  left = floor(u - width / 2), the P = ceil(width) + 2 taps left + 0 .. P - 1,
  weights h(u - tap) normalised to sum 1, taps outside 1 .. in mirrored
  through aux = [1:in, in:-1:1], aux(mod(tap - 1, 2 in) + 1).

imresize_bicubic_aa(img, out_h, out_w) resamples the first two axes of a
2-D (grey) or 3-D (H x W x C) array in float64 and returns float64 for a
float input, or uint8 rounded to nearest and saturated for a uint8 input.
MATLAB itself rounds uint8 images to uint8 after each of its two passes
(the axis of the smaller scale first): round_between=True does that too.

Run as a script it compares the reference with `clik resize --antialias`
on photographs from skimage.data at several factors, and prints the largest
difference of each:
    resize_reference.py [CLIK_BINARY] [--device SPEC]
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np


def cubic(x):
    """MATLAB's cubic kernel (Keys, a = -0.5), elementwise."""
    ax = np.abs(x)
    ax2, ax3 = ax * ax, ax * ax * ax
    inner = (ax <= 1) * (1.5 * ax3 - 2.5 * ax2 + 1)
    outer = ((ax > 1) & (ax <= 2)) * (-0.5 * ax3 + 2.5 * ax2 - 4 * ax + 2)
    return inner + outer


def contributions(in_len, out_len):
    """(weights, indices) of shape (out_len, P): 0-based source indices,
    mirrored, and normalised weights, as MATLAB's contributions()."""
    scale = out_len / in_len
    k = min(scale, 1.0)
    width = 4.0 / k
    x = np.arange(1, out_len + 1, dtype=np.float64)
    u = x / scale + 0.5 * (1 - 1 / scale)
    left = np.floor(u - width / 2)
    p = int(math.ceil(width)) + 2
    taps = left[:, None] + np.arange(p)[None, :]  # 1-based
    weights = k * cubic(k * (u[:, None] - taps))
    weights = weights / weights.sum(axis=1, keepdims=True)
    aux = np.concatenate([np.arange(in_len), np.arange(in_len - 1, -1, -1)])
    indices = aux[np.mod(taps.astype(np.int64) - 1, 2 * in_len)]
    return weights, indices


def resize_axis(img, out_len, axis):
    """img (float64) resampled along axis to out_len."""
    weights, indices = contributions(img.shape[axis], out_len)
    moved = np.moveaxis(img, axis, 0)
    out = np.zeros((out_len,) + moved.shape[1:], np.float64)
    for j in range(weights.shape[1]):
        w = weights[:, j].reshape((out_len,) + (1,) * (moved.ndim - 1))
        out += w * moved[indices[:, j]]
    return np.moveaxis(out, 0, axis)


def to_u8(a):
    """MATLAB's uint8(): to nearest, halves away from zero, saturated."""
    return np.clip(np.floor(a + 0.5), 0, 255).astype(np.uint8)


def imresize_bicubic_aa(img, out_h, out_w, round_between=False):
    """MATLAB's imresize(img, [out_h out_w], 'bicubic'), antialiased."""
    img = np.asarray(img)
    is_u8 = img.dtype == np.uint8
    out = img.astype(np.float64)
    sizes = {0: out_h, 1: out_w}
    scales = {0: out_h / img.shape[0], 1: out_w / img.shape[1]}
    # MATLAB resizes along the axis of the smaller scale first.
    order = sorted((0, 1), key=lambda a: scales[a])
    for i, axis in enumerate(order):
        out = resize_axis(out, sizes[axis], axis)
        if is_u8 and round_between and i == 0:
            out = to_u8(out).astype(np.float64)
    return to_u8(out) if is_u8 else out


# ---- comparison with clik ---------------------------------------------------------------

def clik_resize(clik, img, out_h, out_w, device, tmp):
    """`clik resize --antialias` of a uint8 image (H x W or H x W x C)."""
    src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
    np.save(src, img)
    cmd = [clik, "resize", src, dst, "--size", f"{out_w}x{out_h}", "--antialias"]
    if device:
        cmd += ["--device", device]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()}")
    return np.load(dst)


def photographs():
    from skimage import data
    for name in ("camera", "astronaut", "coffee", "chelsea"):
        img = getattr(data, name)()
        if img.ndim == 3 and img.shape[2] == 3:  # clik resamples 1 or 4 channels
            img = np.concatenate([img, np.full(img.shape[:2] + (1,), 255, np.uint8)], axis=2)
        yield name, img


def main(argv):
    clik, device = None, None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--device":
            device = args.pop(0)
        else:
            clik = a
    if clik is None:
        here = os.path.dirname(os.path.abspath(__file__))
        clik = os.path.join(here, "..", "build", "apps", "clik")
    factors = [(1, 2), (1, 3), (1, 4), (3, 7), (2, 5), (5, 3)]
    worst = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, img in photographs():
            for num, den in factors:
                h, w = img.shape[:2]
                oh, ow = max(1, round(h * num / den)), max(1, round(w * num / den))
                want = imresize_bicubic_aa(img, oh, ow)
                got = clik_resize(clik, img, oh, ow, device, tmp)
                diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
                print(f"{name} {w}x{h} -> {ow}x{oh} ({num}/{den}): largest difference "
                      f"{int(diff.max())}, {100 * np.mean(diff == 0):.3f} % identical")
                worst = max(worst, int(diff.max()))
    print(f"largest difference overall: {worst}")
    return 0 if worst <= 1 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

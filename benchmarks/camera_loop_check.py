#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Checks what `clik-camera-loop --out DIR` wrote against OpenCV.

For each frame (DIR/frame-NNN.yuv, NV21 in OpenCV's layout):
  - the upscaled frame (up-NNN.yuv): with `upscale resize`, each plane
    against cv2.resize(INTER_LINEAR) of the input's plane (Y, and the VU
    plane as 2 channels), every byte within 1 (clik_yuv_resize's bilinear
    and OpenCV's fixed point round apart by at most 1); with `upscale lapar`
    or `lapar-a` (the model or the network on the luma),
    the chroma against cv2.resize(INTER_CUBIC) within 1 and the luma against
    INTER_CUBIC at 28 dB PSNR or more;
  - the RGBA frame (rgba-NNN.raw) equal, byte for byte, to
    cv2.cvtColor(up, COLOR_YUV2RGBA_NV21) of the upscaled frame;
  - the flow to it (flow-NNN.flo, frames 2 on), loosely: its mean endpoint
    error (EPE) away from a border of 8 pixels at most 0.5 px against the
    motion the frames were synthesised with (meta.txt's `motion`), and at
    most 1.0 px against cv2.optflow's DualTVL1 (default parameters, 2
    threads) where the contrib module is there.
Prints a line per frame; exit 1 on any failure, 77 (skip) without numpy
and cv2. When cv2 is not importable and $CLIK_OPENCV_PYTHON names another
interpreter (one with opencv-contrib-python-headless), the script runs
itself there.
Usage: camera_loop_check.py DIR
"""
import os
import sys

try:
    import cv2
    import numpy as np
except ImportError as e:
    other = os.environ.get("CLIK_OPENCV_PYTHON")
    if other and not os.environ.get("CLIK_CAMERA_CHECK_REEXEC"):
        os.environ["CLIK_CAMERA_CHECK_REEXEC"] = "1"
        os.execv(other, [other, os.path.abspath(__file__)] + sys.argv[1:])
    print(f"SKIP: {e}")
    sys.exit(77)

BORDER = 8
EPE_TRUTH = 0.5
EPE_OPENCV = 1.0


def read_meta(d):
    meta = {}
    with open(os.path.join(d, "meta.txt")) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            meta[k] = v
    return meta


def read_flo(path):
    raw = np.fromfile(path, np.uint8)
    if raw.size < 12 or np.frombuffer(raw[:4].tobytes(), "<f4")[0] != 202021.25:
        raise ValueError(f"{path}: not a .flo file")
    w, h = np.frombuffer(raw[4:12].tobytes(), "<i4")
    return np.frombuffer(raw[12:].tobytes(), "<f4").reshape(h, w, 2)


def planes(frame, w, h):
    return frame[:h], frame[h:].reshape(h // 2, w // 2, 2)


def epe(a, b):
    d = (a - b)[BORDER:-BORDER, BORDER:-BORDER]
    return float(np.sqrt((d ** 2).sum(-1)).mean())


def psnr(a, b):
    mse = float(((a.astype(np.float64) - b) ** 2).mean())
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: camera_loop_check.py DIR")
    d = sys.argv[1]
    meta = read_meta(d)
    w, h, n = int(meta["width"]), int(meta["height"]), int(meta["frames"])
    W, H = 2 * w, 2 * h
    lapar = meta["upscale"] in ("lapar", "lapar-a")
    motion = [float(v) for v in meta["motion"].split()] if "motion" in meta else None
    cv2.setNumThreads(2)
    tvl1 = cv2.optflow.DualTVL1OpticalFlow_create() if hasattr(cv2, "optflow") else None
    fails = 0
    prev = None
    for t in range(n):
        frame = np.fromfile(os.path.join(d, f"frame-{t:03d}.yuv"), np.uint8).reshape(h * 3 // 2, w)
        up = np.fromfile(os.path.join(d, f"up-{t:03d}.yuv"), np.uint8).reshape(H * 3 // 2, W)
        rgba = np.fromfile(os.path.join(d, f"rgba-{t:03d}.raw"), np.uint8).reshape(H, W, 4)
        y, vu = planes(frame, w, h)
        uy, uvu = planes(up, W, H)
        notes = []
        c_interp = cv2.INTER_CUBIC if lapar else cv2.INTER_LINEAR
        want_vu = cv2.resize(vu, (W // 2, H // 2), interpolation=c_interp)
        dvu = int(np.abs(uvu.astype(int) - want_vu).max())
        if dvu > 1:
            notes.append(f"chroma differs from cv2.resize by up to {dvu}")
        if lapar:
            p = psnr(uy, cv2.resize(y, (W, H), interpolation=cv2.INTER_CUBIC))
            if p < 28.0:
                notes.append(f"luma {p:.1f} dB from bicubic")
            dy_txt = f"luma {p:.1f} dB from bicubic"
        else:
            dy = int(np.abs(uy.astype(int) - cv2.resize(y, (W, H), interpolation=cv2.INTER_LINEAR)).max())
            if dy > 1:
                notes.append(f"luma differs from cv2.resize by up to {dy}")
            dy_txt = f"luma within {dy}"
        want = cv2.cvtColor(up, cv2.COLOR_YUV2RGBA_NV21)
        bad = np.argwhere(want != rgba)
        if bad.size:
            yy, xx, cc = bad[0]
            notes.append(f"RGBA differs from cvtColor at {len(bad)} bytes, first ({xx}, {yy}) "
                         f"channel {cc}: {rgba[yy, xx, cc]} against {want[yy, xx, cc]}")
        line = f"frame {t}: upscale {dy_txt}, chroma within {dvu}; RGBA {'equal' if not bad.size else 'DIFFERS'}"
        if t > 0:
            flow = read_flo(os.path.join(d, f"flow-{t:03d}.flo"))
            if flow.shape != (h, w, 2) or not np.isfinite(flow).all():
                notes.append("the flow is not finite or not of the frame's size")
            else:
                if motion:
                    e = epe(flow, np.array(motion, np.float32))
                    line += f"; flow EPE {e:.3f} px against the motion"
                    if e > EPE_TRUTH:
                        notes.append(f"flow EPE {e:.3f} > {EPE_TRUTH} against the motion")
                if tvl1 is not None:
                    ref = tvl1.calc(prev, y, None)
                    e = epe(flow, ref)
                    line += f", {e:.3f} px against cv2 DualTVL1"
                    if e > EPE_OPENCV:
                        notes.append(f"flow EPE {e:.3f} > {EPE_OPENCV} against cv2 DualTVL1")
        print(line)
        for m in notes:
            print(f"  FAIL: {m}")
        fails += len(notes)
        prev = y
    print(f"OpenCV {cv2.__version__}: {'FAIL' if fails else 'ok'} ({n} frames of {w}x{h})")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()

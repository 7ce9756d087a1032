#!/usr/bin/env python3
"""Acceptance: the tool's YUV 4:2:0 conversions give OpenCV's cvtColor bytes
on a photograph: NV21, NV12 and I420 frames to RGB (COLOR_YUV2RGB_NV21,
_NV12, _I420) and RGB to I420 (COLOR_RGB2YUV_I420), on each device asked
for ("none" is the CPU path), at the photograph's size and cropped to
odd-looking even sizes (a width that is not a multiple of 4, 8 or 16).
Usage: yuv_agreement.py CLIK PHOTO DEVICE [DEVICE ...]
Exit 77 (skip) when numpy or cv2 is not importable."""
import os
import subprocess
import sys
import tempfile

from agreement_skip import require

np, cv2 = require("numpy", "cv2")


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")


def frame_of(i420, fmt, h, w):
    """An I420 frame of OpenCV's layout rearranged as fmt."""
    if fmt == "i420":
        return i420
    flat, c = i420.reshape(-1), (h // 2) * (w // 2)
    y = i420[:h]
    u = flat[h * w:h * w + c].reshape(h // 2, w // 2)
    v = flat[h * w + c:].reshape(h // 2, w // 2)
    pair = [v, u] if fmt == "nv21" else [u, v]
    return np.vstack([y, np.stack(pair, -1).reshape(h // 2, w)])


def main():
    clik, photo, devices = sys.argv[1], sys.argv[2], sys.argv[3:]
    bgr = cv2.imread(photo)
    if bgr is None:
        raise SystemExit(f"FAIL: cannot read {photo}")
    codes = {"nv21": cv2.COLOR_YUV2RGB_NV21, "nv12": cv2.COLOR_YUV2RGB_NV12,
             "i420": cv2.COLOR_YUV2RGB_I420}
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for h, w in [(bgr.shape[0] & ~1, bgr.shape[1] & ~1), (358, 390), (2, 34)]:
            rgb = np.ascontiguousarray(bgr[:h, :w, ::-1])
            src = os.path.join(tmp, "src.png")
            cv2.imwrite(src, rgb[..., ::-1])
            i420 = cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420)
            for dev in devices:
                enc = os.path.join(tmp, "enc.yuv")
                run([clik, "yuv", src, enc, "--format", "i420", "--device", dev])
                got = np.fromfile(enc, np.uint8).reshape(h * 3 // 2, w)
                if not np.array_equal(got, i420):
                    raise SystemExit(f"FAIL: RGB to I420 {w}x{h} on {dev}: "
                                     f"{int((got != i420).sum())} bytes differ from OpenCV's")
                checked += 1
                for fmt, code in codes.items():
                    frame = frame_of(i420, fmt, h, w)
                    path = os.path.join(tmp, "frame.yuv")
                    frame.tofile(path)
                    out = os.path.join(tmp, "out.png")
                    run([clik, "yuv", path, out, "--size", f"{w}x{h}", "--format", fmt,
                         "--device", dev])
                    got = cv2.imread(out)[..., ::-1]
                    want = cv2.cvtColor(frame, code)
                    if not np.array_equal(got, want):
                        raise SystemExit(f"FAIL: {fmt} to RGB {w}x{h} on {dev}: "
                                         f"{int((got != want).sum())} bytes differ from OpenCV's")
                    checked += 1
    print(f"ok: {checked} conversions identical to OpenCV {cv2.__version__}'s cvtColor")


main()

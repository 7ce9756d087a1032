#!/usr/bin/env python3
"""A YUV 4:2:0 frame upscaled x2 four ways, against the original frame:
each plane bicubic (yuv_resize), the LAPAR model on the luma
(yuv_upscale_lapar), LAPAR-A on the luma (yuv_upscale_lapar_net) and
LAPAR-A on the frame's RGB (yuv_to_rgb, lapar_net_run, rgb_to_yuv: the
network as trained, two conversions more). The low-resolution frame is the
photograph reduced by cv2.INTER_AREA to half, as I420; the reference is the
photograph itself as I420 (COLOR_BGR2YUV_I420, BT.601 video range). Prints
the PSNR of the luma and of the chroma planes (dB; a 4-pixel border left
out) and each way's time on the device (median of --reps calls).

Usage: yuv_upscale_quality.py [--device SPEC] [--reps N] PHOTO [PHOTO ...]
('camera', 'rocket' and 'hubble' name scikit-image's photographs).
Needs the clik package (PYTHONPATH=BUILD/python), numpy and cv2."""
import argparse
import time

import cv2
import numpy as np

import clik


def photograph(name):
    if name in ("camera", "rocket", "hubble"):
        from skimage import data
        img = {"camera": data.camera, "rocket": data.rocket,
               "hubble": data.hubble_deep_field}[name]()
        img = img if img.ndim == 3 else np.stack([img] * 3, -1)
        return cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    bgr = cv2.imread(name)
    if bgr is None:
        raise SystemExit(f"{name}: cannot read")
    return bgr


def planes(frame, h, w):
    flat = frame.reshape(-1)
    c = (h // 2) * (w // 2)
    return (frame[:h], flat[h * w:h * w + c].reshape(h // 2, w // 2),
            flat[h * w + c:].reshape(h // 2, w // 2))


def psnr(a, b, border):
    a = a[border:-border, border:-border].astype(np.float64)
    b = b[border:-border, border:-border].astype(np.float64)
    mse = np.mean((a - b) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse) if mse > 0 else float("inf")


def timed(fn, reps):
    out, times = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, 1000 * float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default=None)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("photos", nargs="+")
    args = ap.parse_args()
    ctx = clik.Context(args.device)
    print(f"{ctx!r}; cv2 {cv2.__version__}; median of {args.reps} calls")
    print("| photograph | way | luma dB | chroma dB (U, V) | ms |")
    print("|---|---|---|---|---|")
    for name in args.photos:
        bgr = photograph(name)
        h, w = bgr.shape[0] // 4 * 4, bgr.shape[1] // 4 * 4
        bgr = np.ascontiguousarray(bgr[:h, :w])
        ref = planes(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420), h, w)
        lr_bgr = cv2.resize(bgr, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        lr = cv2.cvtColor(lr_bgr, cv2.COLOR_BGR2YUV_I420)
        ways = {
            "bicubic (yuv_resize)":
                lambda: ctx.yuv_resize(lr, (w, h), "i420", method="bicubic"),
            "LAPAR model, luma (yuv_upscale_lapar)":
                lambda: ctx.yuv_upscale_lapar(lr, 2, "i420"),
            "LAPAR-A, luma (yuv_upscale_lapar_net)":
                lambda: ctx.yuv_upscale_lapar_net(lr, "lapar-a", 2, "i420"),
            "LAPAR-A on RGB (to RGB, network, to YUV)":
                lambda: ctx.rgb_to_yuv(ctx.lapar_net_run(ctx.yuv_to_rgb(lr, "i420"), "lapar-a",
                                                         2), "i420"),
        }
        for way, fn in ways.items():
            out, ms = timed(fn, args.reps)
            got = planes(out, h, w)
            label = name.rsplit("/", 1)[-1]
            print(f"| {label} {w}x{h} | {way} | {psnr(got[0], ref[0], 4):.2f} | "
                  f"{psnr(got[1], ref[1], 2):.2f}, {psnr(got[2], ref[2], 2):.2f} | {ms:.1f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The released LAPAR networks in clik against the official network's outputs.

For every golden file (LAPAR_<V>_x<S>_<image>_<h>x<w>.npz: an LR crop of a
scikit-image photograph with the official network's phi, float output and
u8 output, made by the authors' code), runs `clik lapar-net` with the
built-in network of that name on the crop, as u8 and as float32 (0..255),
and checks:
  phi (float32 input path)   max |phi - golden phi| <= 1e-4
  out (float32)              max |out / 255 - golden out| <= 1e-4
  out_u8                     within +-1 of golden out_u8, >= 99.9 % identical
Networks this build does not hold are reported skipped; with none at all,
or without the golden folder, the script exits 77 (skipped).

usage: tests/lapar_net_golden.py CLIK GOLDEN_DIR [--device SPEC] [--f16]
  CLIK        the clik tool
  GOLDEN_DIR  the folder of golden .npz files
  --device    as the tool's --device (CLIK_CPU_PATH picks scalar or neon
              with --device none)
  --f16       phi stored as float16 (and filtered from it): phi within
              2e-3 of the golden one, the outputs within 2e-3 / +-1
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clik")
    ap.add_argument("golden")
    ap.add_argument("--device", default=None)
    ap.add_argument("--f16", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.golden):
        print("SKIP: no golden folder at %s" % args.golden)
        return 77
    files = sorted(f for f in os.listdir(args.golden) if f.endswith(".npz"))
    dev = ["--device", args.device] if args.device else []
    phi_tol = 2e-3 if args.f16 else 1e-4
    out_tol = 2e-3 if args.f16 else 1e-4
    storage = ["--storage", "f16"] if args.f16 else []
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            m = re.match(r"LAPAR_([ABC])_x(\d)_", name)
            if not m:
                continue
            net, scale = "lapar-" + m.group(1).lower(), m.group(2)
            g = np.load(os.path.join(args.golden, name))
            rgb = g["input_u8"]
            h, w = rgb.shape[:2]
            rgba = np.concatenate([rgb, np.full((h, w, 1), 255, np.uint8)], axis=2)
            u8_in = os.path.join(tmp, "in_u8.npy")
            f32_in = os.path.join(tmp, "in_f32.npy")
            np.save(u8_in, rgba)
            np.save(f32_in, rgba.astype(np.float32))
            base = [args.clik, "lapar-net"]
            tail = ["--scale", scale, "--net", net] + dev + storage
            rc, text = run(base + [f32_in, os.path.join(tmp, "phi.npy"), "--out",
                                   os.path.join(tmp, "out_f32.npy")] + tail)
            if rc != 0 and "without the LAPAR weights" in text:
                print("%-40s SKIP (%s x%s not built in)" % (name, net, scale))
                skipped += 1
                continue
            if rc != 0:
                print("%-40s FAIL: clik exited %d: %s" % (name, rc, text.strip()))
                failed += 1
                continue
            rc, text = run(base + [u8_in, os.path.join(tmp, "phi_u8.npy"), "--out",
                                   os.path.join(tmp, "out_u8.npy")] + tail)
            if rc != 0:
                print("%-40s FAIL: clik (u8) exited %d: %s" % (name, rc, text.strip()))
                failed += 1
                continue
            L = g["phi"].shape[0]
            phi = np.load(os.path.join(tmp, "phi.npy")).astype(np.float64)
            phi = phi.reshape(L, g["phi"].shape[1], g["phi"].shape[2])
            dphi = np.abs(phi - g["phi"]).max()
            out = np.load(os.path.join(tmp, "out_f32.npy")).astype(np.float64)[..., :3] / 255.0
            dout = np.abs(out - g["out"].transpose(1, 2, 0)).max()
            u8 = np.load(os.path.join(tmp, "out_u8.npy"))[..., :3]
            want = g["out_u8"].astype(np.int32)
            du8 = np.abs(u8.astype(np.int32) - want)
            same = float((du8 == 0).mean())
            ok = dphi <= phi_tol and dout <= out_tol and du8.max() <= 1 and same >= 0.999
            print("%-40s %s phi %.2e  out %.2e  u8 max %d, %.3f %% identical" %
                  (name, "ok  " if ok else "FAIL", dphi, dout, du8.max(), 100 * same))
            passed += ok
            failed += not ok
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    if failed:
        return 1
    return 0 if passed else 77


if __name__ == "__main__":
    sys.exit(main())

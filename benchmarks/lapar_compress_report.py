#!/usr/bin/python3
"""PSNR of LAPAR dictionary compression against alpha, on calibration data
made here (no network needed).

Calibration data is (LR, phi, HR) per image. Without LAPAR's network, phi
comes from the best coefficients a network could give: for every pixel p,
the ridge least-squares fit of HR over a 7x7 window around p (all colour
channels) by the 72 filtered images of the bicubic upsample,

    phi(p) = argmin  sum_{q in W(p), c} (sum_l phi_l T_l(q, c) - HR(q, c))^2
                     + lambda |phi|^2,      T_l = D_l (x) U,

a smooth, image-dependent field, like a network's. HR are crops of
scikit-image's sample photographs, LR their area downscale by 2 (OpenCV's
INTER_AREA). `clik lapar-compress` then keeps round(alpha * 72) atoms on the
calibration crops; the table gives its calibration PSNR with every atom,
with gamma and with the re-fit matrix, and the PSNR of `clik lapar` with the
same selection on held-out crops.

usage: benchmarks/lapar_compress_report.py --clik BUILD/apps/clik [--device SPEC]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lapar_reference as ref  # noqa: E402

SCALE = 2
SIZE = 64  # HR crops of SIZE x SIZE
WINDOW = 7
CALIB = [("astronaut.png", 30, 180), ("coffee.png", 150, 300), ("chelsea.png", 60, 150),
         ("motorcycle_left.png", 200, 300)]
HELD_OUT = [("astronaut.png", 250, 300), ("coffee.png", 280, 60), ("chelsea.png", 200, 300)]


def terms(u, atoms):
    """T_l(q, c) = (D_l cross-correlated with U_c)(q): (L, H, W, C)."""
    h, w = u.shape[:2]
    pad = np.pad(u, ((2, 2), (2, 2), (0, 0)), mode="reflect")
    t = np.zeros((atoms.shape[0],) + u.shape)
    for r in range(ref.TAPS):
        for c in range(ref.TAPS):
            t += atoms[:, r, c, None, None, None] * pad[None, r:r + h, c:c + w]
    return t


def box(a, k):
    """Sum over k x k windows centred on each pixel (axes 0 and 1), edges cut."""
    r = k // 2
    out = np.zeros_like(a)
    for dy in range(-r, r + 1):
        ys = slice(max(0, dy), a.shape[0] + min(0, dy))
        yd = slice(max(0, -dy), a.shape[0] + min(0, -dy))
        for dx in range(-r, r + 1):
            xs = slice(max(0, dx), a.shape[1] + min(0, dx))
            xd = slice(max(0, -dx), a.shape[1] + min(0, -dx))
            out[yd, xd] += a[ys, xs]
    return out


def oracle_phi(lr, hr, atoms):
    u = ref.upsample(lr.astype(np.float64), SCALE)
    t = terms(u, atoms)  # (L, H, W, C)
    gram = box(np.einsum("lhwc,mhwc->hwlm", t, t), WINDOW)
    rhs = box(np.einsum("lhwc,hwc->hwl", t, hr.astype(np.float64)), WINDOW)
    lam = 1e-3 * np.trace(gram, axis1=2, axis2=3) / atoms.shape[0] + 1e-9
    gram += lam[..., None, None] * np.eye(atoms.shape[0])
    phi = np.linalg.solve(gram, rhs[..., None])[..., 0]  # (H, W, L)
    return np.ascontiguousarray(phi.transpose(2, 0, 1)).astype(np.float32)


def crops(spec):
    import cv2

    folder = ref.photographs()
    out = []
    for name, y, x in spec:
        photo = ref.read_png(os.path.join(folder, name))
        hr = photo[y:y + SIZE, x:x + SIZE]
        lr = cv2.resize(hr, (SIZE // SCALE, SIZE // SCALE), interpolation=cv2.INTER_AREA)
        out.append((name, lr, hr))
    return out


def save_triple(work, tag, lr, hr, atoms):
    import cv2

    phi = oracle_phi(lr, hr, atoms)
    paths = [os.path.join(work, "%s-%s" % (tag, n)) for n in ("lr.png", "phi.npy", "hr.png")]
    cv2.imwrite(paths[0], cv2.cvtColor(lr, cv2.COLOR_RGB2BGR))
    np.save(paths[1], phi.reshape(-1, phi.shape[2]))
    cv2.imwrite(paths[2], cv2.cvtColor(hr, cv2.COLOR_RGB2BGR))
    return paths


def psnr_files(a, b):
    import cv2

    x = cv2.imread(a).astype(np.float64)
    y = cv2.imread(b).astype(np.float64)
    return np.mean((x - y) ** 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clik", required=True)
    ap.add_argument("--device", default="pocl")
    args = ap.parse_args()
    atoms = ref.dictionary()
    with tempfile.TemporaryDirectory() as work:
        calib = [save_triple(work, "c%d" % i, lr, hr, atoms)
                 for i, (_, lr, hr) in enumerate(crops(CALIB))]
        held = [save_triple(work, "h%d" % i, lr, hr, atoms)
                for i, (_, lr, hr) in enumerate(crops(HELD_OUT))]
        print("LAPAR dictionary compression, x%d, %d calibration and %d held-out crops of "
              "%dx%d (%s)" % (SCALE, len(calib), len(held), SIZE, SIZE, args.device))
        print("%6s %5s %14s %14s %14s %18s %18s" % (
            "alpha", "kept", "calib, all dB", "calib, gamma", "calib, matrix",
            "held-out, gamma", "held-out, matrix"))
        for alpha in (1.0, 0.5, 0.25, 0.1):
            sel = os.path.join(work, "sel.npy")
            cmd = [args.clik, "lapar-compress"] + [p for t in calib for p in t] + [
                sel, "--alpha", str(alpha), "--scale", str(SCALE), "--device", args.device]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit("%s\n%s" % (" ".join(cmd), run.stderr))
            kept = re.search(r"kept (\d+) of", run.stdout).group(1)
            p = [float(v) for v in re.findall(r"([0-9.]+) dB", run.stdout)]
            held_db = []
            for mix in (False, True):
                sse = 0.0
                for lr, phi, hr in held:
                    out = os.path.join(work, "out.png")
                    c = [args.clik, "lapar", lr, phi, out, "--scale", str(SCALE), "--atoms", sel,
                         "--device", args.device] + (["--mix"] if mix else [])
                    r = subprocess.run(c, capture_output=True, text=True)
                    if r.returncode != 0:
                        sys.exit("%s\n%s" % (" ".join(c), r.stderr))
                    sse += psnr_files(out, hr)
                held_db.append(10 * np.log10(255.0 ** 2 / (sse / len(held))))
            print("%6.2f %5s %14.2f %14.2f %14.2f %18.2f %18.2f" % (
                alpha, kept, p[0], p[1], p[2], held_db[0], held_db[1]))
        full = 0.0
        for lr, phi, hr in held:
            out = os.path.join(work, "out.png")
            subprocess.run([args.clik, "lapar", lr, phi, out, "--scale", str(SCALE), "--device",
                            args.device], check=True, capture_output=True)
            full += psnr_files(out, hr)
        print("held-out, every atom: %.2f dB" % (10 * np.log10(255.0 ** 2 / (full / len(held)))))


if __name__ == "__main__":
    main()

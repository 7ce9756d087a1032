#!/usr/bin/env python3
"""Acceptance: the clik tool gives OpenCV's results for 8-bit grey images,
on each device asked for:
  clik equalize              == cv2.equalizeHist
  clik pyramid --levels N    == N chained cv2.pyrDown
  clik pyrup                 == cv2.pyrUp
  clik integral (u32)        == cv2.integral (int32, compared bit for bit)
  clik integral --squared    == cv2.integral2 (sums int32, squares float64)
  clik integral --type f64   == cv2.integral(..., sdepth=CV_64F)
  clik laplacian             == G_i - cv2.pyrUp(G_i+1) cropped, G_N last
and, on those images and on grey and colour crops of photographs from
scikit-image's data (skipped with a message where it is not installed):
  clik resize --method nearest   == cv2.resize INTER_NEAREST
  clik resize --method bilinear  within +-1 of INTER_LINEAR
  clik resize --method bicubic   within +-1 of INTER_CUBIC, >= 99 % of the
                                 pixels identical when upscaling
  clik blur                      within +-1 of cv2.GaussianBlur, BORDER_REFLECT_101
                                 (of the float image where OpenCV's u8 weights
                                 move its result by 2)
  clik ssim                      within 1e-4 of skimage.metrics.structural_similarity
                                 (gaussian_weights, sigma 1.5, population
                                 moments, data_range 255) of the luma
Usage: opencv_agreement.py CLIK_BINARY DEVICE [DEVICE ...]
Exit 77 (skip) when cv2 is not importable."""
import os
import subprocess
import sys
import tempfile

from agreement_skip import require

cv2, np = require("cv2", "numpy")
try:
    from skimage.metrics import structural_similarity
except ImportError as e:
    print(f"SKIP ssim checks: {e}")
    structural_similarity = None


def images():
    """Grey images that reach the corners of the operations: odd sizes,
    one row or column, 1x1, constant, extremes."""
    rng = np.random.default_rng(12345)
    yield "noise-641x479", rng.integers(0, 256, (479, 641), dtype=np.uint8)
    yield "lowcontrast-333x97", rng.integers(90, 140, (97, 333), dtype=np.uint8)
    yy, xx = np.mgrid[0:257, 0:131]
    yield "gradient-131x257", ((xx + 3 * yy) % 256).astype(np.uint8)
    yield "constant-7x7", np.full((7, 7), 77, np.uint8)
    yield "one-pixel", np.array([[200]], np.uint8)
    yield "two-levels-27x13", np.where(rng.random((13, 27)) < 0.3, 10, 240).astype(np.uint8)
    yield "sparse-1921x1081", (rng.integers(0, 8, (1081, 1921)) * 31).astype(np.uint8)
    skew = np.clip(rng.normal(60, 12, (480, 640)), 0, 255).astype(np.uint8)
    yield "skewed-640x480", skew
    # scale 255 / 102 = 2.5 exactly: rounding of x.5 values matters
    yield "half-103x1", np.array([[0, 1] + [2] * 101], np.uint8)
    yield "column-1x77", rng.integers(0, 256, (77, 1), dtype=np.uint8)
    yield "white-255x3", np.full((3, 255), 255, np.uint8)
    yield "checker-64x64", ((np.indices((64, 64)).sum(axis=0) % 2) * 255).astype(np.uint8)


def photo_folder():
    """scikit-image's sample photographs: Debian's python3-skimage, else the
    data folder of the scikit-image that Python imports."""
    folders = ["/usr/lib/python3/dist-packages/skimage/data"]
    try:
        import skimage
        folders.append(os.path.join(os.path.dirname(skimage.__file__), "data"))
    except ImportError:
        pass
    for folder in folders:
        if os.path.exists(os.path.join(folder, "astronaut.png")):
            return folder
    return folders[0]


def photographs():
    """Grey and colour crops of photographs (BGR as cv2 reads them), or none
    with a message when scikit-image's data is not installed."""
    photos = photo_folder()
    crops = [  # name, file, rows, columns, grey
        ("astronaut-256x256", "astronaut.png", (30, 286), (140, 396), False),
        ("coffee-320x240", "coffee.png", (80, 320), (150, 470), False),
        ("chelsea-grey-384x256", "chelsea.png", (20, 276), (30, 414), True),
        ("camera-grey-320x256", "camera.png", (40, 296), (100, 420), True),
    ]
    for name, file, (y0, y1), (x0, x1), grey in crops:
        path = os.path.join(photos, file)
        if not os.path.exists(path):
            print(f"SKIP photographs: {path} not found (Debian's python3-skimage installs it)")
            return
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        img = np.ascontiguousarray(img[y0:y1, x0:x1])
        yield name, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if grey else img


def luma(img):
    """clik compares colour on its luma: OpenCV's BT.601 fixed point."""
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def within(want, tol, min_identical=None):
    """A check of an image: same shape, |clik - OpenCV| <= tol, and (when
    given) at least min_identical % of the values identical."""
    def check(got):
        if got is None:
            return "no output", None
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"output {got.dtype}{got.shape}, OpenCV {want.dtype}{want.shape}", None
        diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
        same = 100.0 * np.count_nonzero(diff == 0) / diff.size
        note = f"max |diff| {diff.max()}, {same:.3f} % identical"
        if diff.max() > tol:
            y, x = np.argwhere(diff > tol)[0][:2]
            return f"{note}; first beyond {tol} at ({x},{y}): clik {got[y, x]}, OpenCV {want[y, x]}", None
        if min_identical is not None and same < min_identical:
            return f"{note}, fewer than {min_identical} %", None
        return None, note
    return check


def mean_ssim(want):
    """A check of clik ssim's output: one number within 1e-4 of want."""
    def check(text):
        try:
            got = float(text.strip())
        except ValueError:
            return f"printed {text.strip()!r}, not a number", None
        note = f"clik {got:.6f}, scikit-image {want:.6f}"
        return (None if abs(got - want) <= 1e-4 else note), note
    return check


def degraded(img, seed):
    """Versions of img for SSIM: JPEG at quality 30, blurred, noisy."""
    ok, jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 30])
    yield "jpeg", cv2.imdecode(jpeg, cv2.IMREAD_UNCHANGED)
    yield "blurred", cv2.GaussianBlur(img, (5, 5), 0, borderType=cv2.BORDER_REFLECT_101)
    noise = np.random.default_rng(seed).normal(0, 12, img.shape)
    yield "noisy", np.clip(img + noise, 0, 255).round().astype(np.uint8)


def cv_size(img, scale):
    """The output size of a resize by scale, rounded as OpenCV's cvRound."""
    h, w = img.shape[:2]
    return int(np.rint(w * scale)), int(np.rint(h * scale))


def resampling(img, photo, tmp, name):
    """Checks of resize, blur and ssim, as expectations() gives them."""
    h, w = img.shape[:2]
    pixels = w * h
    methods = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR,
               "bicubic": cv2.INTER_CUBIC}
    # Large images only shrink: enlarging them adds run time, no new case;
    # for the same reason the synthetic images see fewer scales.
    scales = ([2, 3, 1.7] if pixels <= 400_000 else []) + [0.37]
    synthetic = {"nearest": scales, "bilinear": (1.7, 0.37), "bicubic": (2, 0.37)}
    for scale in scales:
        ow, oh = cv_size(img, scale)
        if ow < 1 or oh < 1:
            continue
        for method, interp in methods.items():
            if not photo and scale not in synthetic[method]:
                continue
            want = cv2.resize(img, (ow, oh), interpolation=interp)
            if method == "nearest":
                check = want
            elif method == "bicubic" and scale > 1:
                check = within(want, 1, 99.0)
            else:
                check = within(want, 1)
            yield (["resize", "{src}", "{out}.png", "--scale", str(scale), "--method", method],
                   {".png": check})
    if pixels <= 400_000:  # a size of each side's own scale
        ow, oh = max(1, w // 2 + 3), 2 * h + 1
        want = cv2.resize(img, (ow, oh), interpolation=cv2.INTER_NEAREST)
        yield (["resize", "{src}", "{out}.png", "--size", f"{ow}x{oh}", "--method", "nearest"],
               {".png": want})
    # OpenCV blurs u8 with 16-bit fixed-point weights; where their rounding
    # moves its own result by 2 (9 taps, sigma 2.5) its float path is the one
    # to compare with.
    blurs = [(3, 0, True), (7, 0, True), (9, 2.5, False)]
    for ksize, sigma, u8 in blurs + ([(5, 1.2, True), (31, 0, True)] if photo else []):
        src = img if u8 else img.astype(np.float32)
        want = cv2.GaussianBlur(src, (ksize, ksize), sigma, borderType=cv2.BORDER_REFLECT_101)
        want = np.clip(np.rint(want), 0, 255).astype(np.uint8)
        args = ["blur", "{src}", "{out}.png", "--ksize", str(ksize)]
        yield args + (["--sigma", str(sigma)] if sigma else []), {".png": within(want, 1)}
    if min(h, w) >= 11 and structural_similarity:
        for kind, other in degraded(img, pixels):
            path = os.path.join(tmp, f"{name}-{kind}.png")
            assert cv2.imwrite(path, other)
            want = structural_similarity(luma(img), luma(other), gaussian_weights=True, sigma=1.5,
                                         use_sample_covariance=False, data_range=255)
            yield ["ssim", "{src}", path], {"stdout": mean_ssim(want)}


def max_levels(shape):
    h, w = shape
    n = 0
    while w > 1 or h > 1:
        w, h, n = (w + 1) // 2, (h + 1) // 2, n + 1
    return n


def expectations(img):
    """(command arguments, {output suffix: expected array}) per check; the
    arguments use {src} and {out} for file names."""
    yield ["equalize", "{src}", "{out}.png"], {".png": cv2.equalizeHist(img)}
    n = min(4, max_levels(img.shape))
    if n > 0:
        levels, g = {}, img
        for i in range(1, n + 1):
            g = cv2.pyrDown(g)
            levels[f"{i}.png"] = g
        yield ["pyramid", "{src}", "{out}%d.png", "--levels", str(n)], levels
        bands, g = {}, img
        for i in range(n):
            down = cv2.pyrDown(g)
            up = cv2.pyrUp(down)[: g.shape[0], : g.shape[1]]
            bands[f"{i}.npy"] = g.astype(np.int16) - up.astype(np.int16)
            g = down
        bands[f"{n}.npy"] = g.astype(np.int16)
        yield ["laplacian", "{src}", "{out}%d.npy", "--levels", str(n)], bands
    yield ["pyrup", "{src}", "{out}.png"], {".png": cv2.pyrUp(img)}
    yield ["integral", "{src}", "{out}.npy"], {".npy": cv2.integral(img).view(np.uint32)}
    s, q = cv2.integral2(img)
    yield (["integral", "{src}", "{out}.npy", "--squared", "{out}-sq.npy"],
           {".npy": s.view(np.uint32), "-sq.npy": q})
    yield (["integral", "{src}", "{out}.npy", "--type", "f64"],
           {".npy": cv2.integral(img, sdepth=cv2.CV_64F)})


def load(path):
    if path.endswith(".npy"):
        return np.load(path)
    return cv2.imread(path, cv2.IMREAD_UNCHANGED)


def compare(got, want):
    """None when equal, else a description of the first difference."""
    if got is None:
        return "no output"
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"output {got.dtype}{got.shape}, OpenCV {want.dtype}{want.shape}"
    if np.array_equal(got, want):
        return None
    diff = np.argwhere(got != want)
    y, x = diff[0][:2]
    return f"{len(diff)} values differ, first at ({x},{y}): clik {got[y, x]}, OpenCV {want[y, x]}"


def verdict(check, got):
    """(problem or None, note or None) of one output: an array must be equal,
    a function judges for itself."""
    return check(got) if callable(check) else (compare(got, check), None)


def run_checks(clik, devices, src, name, checks):
    """Runs each (args, outputs) on each device; returns (checks, failures)."""
    count = failures = 0
    for args, outputs in checks:
        for dev in devices:
            out = os.path.join(os.path.dirname(src), f"{name}-{args[0]}-{dev}")
            cmd = [clik] + [a.format(src=src, out=out) for a in args] + ["--device", dev]
            shown = [os.path.basename(a) for a in args[2:] if "{" not in a]
            what = f"{' '.join([args[0]] + shown)} {name} on {dev}"
            count += 1
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {what}: exit {run.returncode}: {run.stderr.strip()}")
                failures += 1
                continue
            problems, notes = [], []
            for suffix, check in outputs.items():
                got = run.stdout if suffix == "stdout" else load(out + suffix)
                problem, note = verdict(check, got)
                if problem:
                    problems.append(f"{suffix}: {problem}")
                if note:
                    notes.append(note)
            if problems:
                print(f"FAIL {what}: {'; '.join(problems)}")
                failures += 1
            else:
                print(f"ok   {what}" + (f" ({'; '.join(notes)})" if notes else ""))
    return count, failures


def main():
    clik, devices = sys.argv[1], sys.argv[2:]
    failures = checks = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, img in images():
            src = os.path.join(tmp, name + ".png")
            assert cv2.imwrite(src, img)
            for found in (expectations(img), resampling(img, False, tmp, name)):
                n, f = run_checks(clik, devices, src, name, found)
                checks, failures = checks + n, failures + f
        for name, img in photographs():
            src = os.path.join(tmp, name + ".png")
            assert cv2.imwrite(src, img)
            n, f = run_checks(clik, devices, src, name, resampling(img, True, tmp, name))
            checks, failures = checks + n, failures + f
    print(f"OpenCV {cv2.__version__}; {checks} checks, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

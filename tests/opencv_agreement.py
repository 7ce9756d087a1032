#!/usr/bin/env python3
"""Acceptance: the clik package gives OpenCV's results for 8-bit grey images,
on each device asked for (one clik.Context per device string; "none" is the
CPU path):
  ctx.equalize                == cv2.equalizeHist
  ctx.gaussian_pyramid(N)     == N chained cv2.pyrDown
  ctx.pyr_up                  == cv2.pyrUp
  ctx.integral (uint32)       == cv2.integral (int32, compared bit for bit)
  ctx.integral, sqsum float64 == cv2.integral2 (sums int32, squares float64)
  ctx.integral (float64)      == cv2.integral(..., sdepth=CV_64F)
  ctx.laplacian_pyramid(N)    == G_i - cv2.pyrUp(G_i+1) cropped, G_N last;
                                 ctx.collapse of the bands == the image
and, on those images and on grey and colour crops of photographs from
scikit-image's data (skipped with a message where it is not installed;
colour goes to clik as RGBA with an opaque alpha, as the clik tool reads
an RGB file):
  ctx.resize nearest   == cv2.resize INTER_NEAREST
  ctx.resize bilinear  within +-1 of INTER_LINEAR
  ctx.resize bicubic   within +-1 of INTER_CUBIC, >= 99 % of the pixels
                       identical when upscaling (against OpenCV 4)
  ctx.gaussian_blur    within +-1 of cv2.GaussianBlur, BORDER_REFLECT_101
                       (of the float image where OpenCV's u8 weights move
                       its result by 2)
  ctx.ssim             within 1e-4 of skimage.metrics.structural_similarity
                       (gaussian_weights, sigma 1.5, population moments,
                       data_range 255) of the luma (ctx.gray of colour)
Usage: opencv_agreement.py DEVICE [DEVICE ...]   (the clik package on
PYTHONPATH, e.g. the build's python/ folder)
Exit 77 (skip) when cv2 is not importable; a clik package that does not
import is a failure."""
import os
import sys
import time

from agreement_skip import import_clik, open_contexts, require

cv2, np = require("cv2", "numpy")
# clik's bicubic u8 weights are OpenCV 4's (1/2048 steps): enlargements are
# >= 99 % identical to its INTER_CUBIC. OpenCV 5 rounds them otherwise
# (measured: 95-99 % identical at x1.7, still within +-1), so with it only
# the +-1 bound is checked.
CUBIC_SHARE = 99.0 if cv2.__version__.startswith("4.") else None
try:
    from skimage.metrics import structural_similarity
except ImportError as e:
    print(f"SKIP ssim checks: {e}")
    structural_similarity = None
clik = import_clik()


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


def to_clik(img):
    """What clik is given: grey as it is, BGR as BGRA with an opaque alpha
    (the library resamples and blurs 1 or 4 channels alike)."""
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)


def from_clik(out, like):
    """clik's result in the shape of OpenCV's: alpha dropped from colour."""
    return out if like.ndim == 2 else np.ascontiguousarray(out[..., :3])


def clik_luma(ctx, img):
    """The one channel clik's SSIM compares: grey as it is, ctx.gray of
    colour (RGBA, BT.601 as OpenCV's COLOR_RGBA2GRAY)."""
    if img.ndim == 2:
        return img
    g = ctx.gray(cv2.cvtColor(img, cv2.COLOR_BGR2RGBA))
    return g.reshape(g.shape[:2])


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
    """A check of ctx.ssim's result: one number within 1e-4 of want."""
    def check(got):
        if not isinstance(got, float):
            return f"returned {got!r}, not a float", None
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


# A check is (label, run, {output: expected}): run(ctx) gives {output: value}
# and each value is compared with its expectation (an array must be equal, a
# function judges for itself).

def resampling(img, photo):
    """Checks of resize, blur and ssim."""
    h, w = img.shape[:2]
    pixels = w * h
    src = to_clik(img)
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
                check = within(want, 1, CUBIC_SHARE)
            else:
                check = within(want, 1)
            yield (f"resize --scale {scale} --method {method}",
                   lambda ctx, s=scale, m=method: {
                       "out": from_clik(ctx.resize(src, scale=s, method=m), img)},
                   {"out": check})
    if pixels <= 400_000:  # a size of each side's own scale
        ow, oh = max(1, w // 2 + 3), 2 * h + 1
        want = cv2.resize(img, (ow, oh), interpolation=cv2.INTER_NEAREST)
        yield (f"resize --size {ow}x{oh} --method nearest",
               lambda ctx, size=(ow, oh): {
                   "out": from_clik(ctx.resize(src, size, method="nearest"), img)},
               {"out": want})
    # OpenCV blurs u8 with 16-bit fixed-point weights; where their rounding
    # moves its own result by 2 (9 taps, sigma 2.5) its float path is the one
    # to compare with. clik blurs the u8 image in every case.
    blurs = [(3, 0, True), (7, 0, True), (9, 2.5, False)]
    for ksize, sigma, u8 in blurs + ([(5, 1.2, True), (31, 0, True)] if photo else []):
        cv_src = img if u8 else img.astype(np.float32)
        want = cv2.GaussianBlur(cv_src, (ksize, ksize), sigma, borderType=cv2.BORDER_REFLECT_101)
        want = np.clip(np.rint(want), 0, 255).astype(np.uint8)
        yield (f"blur --ksize {ksize}" + (f" --sigma {sigma}" if sigma else ""),
               lambda ctx, k=ksize, s=sigma: {
                   "out": from_clik(ctx.gaussian_blur(src, k, s), img)},
               {"out": within(want, 1)})
    if min(h, w) >= 11 and structural_similarity:
        for kind, other in degraded(img, pixels):
            want = structural_similarity(luma(img), luma(other), gaussian_weights=True, sigma=1.5,
                                         use_sample_covariance=False, data_range=255)
            yield (f"ssim {kind}",
                   lambda ctx, b=other: {
                       "mean": ctx.ssim(clik_luma(ctx, img), clik_luma(ctx, b))},
                   {"mean": mean_ssim(want)})


def max_levels(shape):
    h, w = shape
    n = 0
    while w > 1 or h > 1:
        w, h, n = (w + 1) // 2, (h + 1) // 2, n + 1
    return n


def numbered(arrays, first=0):
    return {f"{first + i}": a for i, a in enumerate(arrays)}


def laplacian_run(ctx, img, n):
    bands = ctx.laplacian_pyramid(img, n)
    got = numbered(bands)
    got["collapse"] = ctx.collapse(bands)
    return got


def expectations(img):
    """Checks of equalize, the pyramids, pyr_up and integral."""
    yield "equalize", lambda ctx: {"out": ctx.equalize(img)}, {"out": cv2.equalizeHist(img)}
    n = min(4, max_levels(img.shape))
    if n > 0:
        levels, g = {}, img
        for i in range(1, n + 1):
            g = cv2.pyrDown(g)
            levels[f"{i}"] = g
        yield (f"pyramid --levels {n}",
               lambda ctx: numbered(ctx.gaussian_pyramid(img, n), 1), levels)
        bands, g = {}, img
        for i in range(n):
            down = cv2.pyrDown(g)
            up = cv2.pyrUp(down)[: g.shape[0], : g.shape[1]]
            bands[f"{i}"] = g.astype(np.int16) - up.astype(np.int16)
            g = down
        bands[f"{n}"] = g.astype(np.int16)
        bands["collapse"] = img
        yield f"laplacian --levels {n}", lambda ctx: laplacian_run(ctx, img, n), bands
    yield "pyrup", lambda ctx: {"out": ctx.pyr_up(img)}, {"out": cv2.pyrUp(img)}
    yield ("integral", lambda ctx: {"sum": ctx.integral(img, np.uint32)},
           {"sum": cv2.integral(img).view(np.uint32)})
    s, q = cv2.integral2(img)

    def squared(ctx):
        got_s, got_q = ctx.integral(img, np.uint32, sqsum=np.float64)
        return {"sum": got_s, "sqsum": got_q}
    yield "integral --squared", squared, {"sum": s.view(np.uint32), "sqsum": q}
    yield ("integral --type f64", lambda ctx: {"sum": ctx.integral(img, np.float64)},
           {"sum": cv2.integral(img, sdepth=cv2.CV_64F)})


def compare(got, want):
    """None when equal, else a description of the first difference."""
    if got is None:
        return "no output"
    if not isinstance(got, np.ndarray):
        return f"returned {type(got).__name__}, not an array"
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


def run_checks(contexts, name, checks):
    """Runs each (label, run, outputs) on each device; returns (checks, failures)."""
    count = failures = 0
    for label, run, outputs in checks:
        for dev, ctx in contexts.items():
            what = f"{label} {name} on {dev}"
            count += 1
            if isinstance(ctx, str):  # the context could not be made
                print(f"FAIL {what}: {ctx}")
                failures += 1
                continue
            try:
                got = run(ctx)
            except Exception as e:  # clik.Error, or a refused argument
                print(f"FAIL {what}: {type(e).__name__}: {e}")
                failures += 1
                continue
            what += f" ({ctx.last_backend})"
            problems, notes = [], []
            for key, check in outputs.items():
                problem, note = verdict(check, got.get(key))
                if problem:
                    problems.append(f"{key}: {problem}")
                if note:
                    notes.append(note)
            extra = sorted(set(got) - set(outputs))
            if extra:
                problems.append(f"unexpected outputs {', '.join(extra)}")
            if problems:
                print(f"FAIL {what}: {'; '.join(problems)}")
                failures += 1
            else:
                print(f"ok   {what}" + (f" ({'; '.join(notes)})" if notes else ""))
    return count, failures


def main():
    devices = sys.argv[1:]
    if not devices:
        print("usage: opencv_agreement.py DEVICE [DEVICE ...]", file=sys.stderr)
        return 2
    start = time.perf_counter()
    contexts = open_contexts(clik, devices)
    failures = checks = 0
    for name, img in images():
        for found in (expectations(img), resampling(img, False)):
            n, f = run_checks(contexts, name, found)
            checks, failures = checks + n, failures + f
    for name, img in photographs():
        n, f = run_checks(contexts, name, resampling(img, True))
        checks, failures = checks + n, failures + f
    for ctx in contexts.values():
        if not isinstance(ctx, str):
            ctx.close()
    print(f"OpenCV {cv2.__version__}, clik {clik.__version__}; {checks} checks, "
          f"{failures} failure(s) in {time.perf_counter() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

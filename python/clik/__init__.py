# SPDX-License-Identifier: BSD-2-Clause
"""clik: OpenCL C image kernels with a CPU fallback, on NumPy arrays.

    import clik
    ctx = clik.Context()              # the default device ("auto"), else the CPU
    eq = ctx.hist_equalize(img)            # img: a uint8 array (H, W) or (H, W, C)

Images are NumPy arrays of shape (H, W) or (H, W, C) with C in 1, 2, 3, 4
(3 and 4: BGR(A) as OpenCV lays them out, or RGB(A) with order='rgb' where
an operation weights colours), taken without copies (packed pixels; rows may be strided). Device
images (clik.Image, from Context.upload or Context.image) keep pipelines on
the device: operations given one return them. Library failures raise
clik.Error with the status name and the context's message; arguments that
are refused raise clik.ArgumentError (a ValueError too), whether the library
or the package refuses them.
"""
from collections import deque as _deque

import numpy as _np

from ._clik import (
    BLUR_MAX_KSIZE,
    FLOW_MAX_SCALES,
    LAPAR_ATOMS,
    LAPAR_TAPS,
    SSIM_WINDOW,
    ArgumentError,
    Error,
    FileError,
    FormatError,
    FusionStream,
    Image,
    LaparModel,
    LaparTrainer,
    OutOfMemoryError,
    _Context,
    _raise_argument_error,
    cpu_path_available,
    devices,
    gaussian_weights,
    lapar_dict_default,
    lapar_model_default,
    lapar_net_available,
    opencl_library,
    prepare_op_names,
    pyr_level_size,
    pyr_max_levels,
    resize_size,
    select_device,
    version,
)

__version__ = version()

__all__ = [
    "BLUR_MAX_KSIZE", "FLOW_MAX_SCALES", "LAPAR_ATOMS", "LAPAR_TAPS", "SSIM_WINDOW",
    "ArgumentError", "Context", "Error", "FileError", "FormatError", "Image",
    "LaparModel", "LaparSelection", "LaparTrainer", "OutOfMemoryError",
    "cpu_path_available", "devices", "gaussian_weights", "lapar_dict_default",
    "lapar_model_default", "lapar_net_available", "opencl_library", "prepare_op_names",
    "pyr_level_size", "pyr_max_levels", "resize_size", "select_device", "version",
]


class LaparSelection:
    """The atoms a compressed LAPAR dictionary keeps (Context.lapar_compress).

    atoms: the atom count of the dictionary it selects from.
    index: the kept atoms' indices, increasing.
    gamma: their weights (None: 1 each).
    mix: the re-fit matrix, (kept, atoms) float32, or None.
    """

    __slots__ = ("atoms", "index", "gamma", "mix")

    def __init__(self, atoms, index, gamma=None, mix=None):
        self.atoms = int(atoms)
        self.index = [int(i) for i in index]
        self.gamma = [1.0] * len(self.index) if gamma is None else [float(g) for g in gamma]
        self.mix = None if mix is None else _np.ascontiguousarray(mix, dtype=_np.float32)

    @property
    def kept(self):
        return len(self.index)

    def _as_tuple(self):
        return (self.atoms, self.index, self.gamma, self.mix)

    def __repr__(self):
        return (f"LaparSelection(atoms={self.atoms}, index={self.index}, "
                f"gamma={self.gamma}, mix={'None' if self.mix is None else 'array'})")


class Context(_Context):
    """A device (or the CPU path) and its compiled kernels.

    Context(device=None, *, strict=None, cpu_path=None, cache=None,
            cache_dir=None, local_memory=None, profiling=None,
            kernel_dir=None, tuning=None, log=None, threads=None)

    device: "auto" (default: $CLIK_DEVICE, else the first GPU, else any
        device, else the CPU), "gpu", "cpu", "none" (the CPU path), "P:D" or
        a part of a platform or device name ("pocl", "llvmpipe", "nvidia").
    strict: True: fail rather than fall back to the CPU.
    cpu_path: "auto", "scalar" (the correctness oracle) or "neon".
    cache: whether compiled kernels are cached on disk.
    cache_dir: the kernel cache's folder.
    local_memory: force the kernels with (True) or without (False) local memory.
    profiling: time each kernel (Context.stats).
    kernel_dir: read the kernels' sources from this folder.
    tuning: tuning keys, "key=value,...".
    log: a callable (level, message) receiving the library's diagnostics.
    threads: threads of the CPU path, 1 to 256 (-1 or 0: the usable cores).

    Options left None take the environment variables, then the defaults
    (README.md).

    Calls on one context are serialised; the GIL is released while the
    library works, so threads with their own contexts run in parallel.
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self.closed:
            return "<clik.Context (closed)>"
        dev = self.device
        where = dev["name"] if dev else f"CPU ({self.cpu_backend})"
        return f"<clik.Context on {where}>"

    def lapar_compress(self, calib, alpha, *, dictionary=None, samples=65536,
                       refit_samples=None, seed=1, mix=False):
        """Dictionary compression: the atoms to keep (a LaparSelection).

        calib: (phi, upsampled, truth) triples of calibration images.
        alpha: the fraction of the atoms kept, (0, 1].
        dictionary: the atoms, (atoms, 25) float32 (None: the default).
        samples: the pixels sampled for the selection.
        refit_samples: the pixels sampled for the re-weighting (None:
            min(16384, samples)).
        seed: the sampling's seed.
        mix: True: the re-fit matrix as well.
        """
        if refit_samples is None:
            refit_samples = min(16384, samples)
        atoms, index, gamma, m = self._lapar_compress(
            list(calib), alpha, dictionary=dictionary, samples=samples,
            refit_samples=refit_samples, seed=seed, mix=mix)
        return LaparSelection(atoms, index, gamma, m)

    def upscale(self, src, scale=2, *, method="lapar", model=None, out=None, order="bgr"):
        """Upscaling as `clik upscale` does it.

        src: the image (as the method takes it).
        scale: the factor (lapar: 2, 3 or 4; fusion: an integer 2 to 8).
        method: "lapar" (the default: the LAPAR model upscaler, sharper than
            bicubic on photographs), "fusion" (for graphics, text and pixel
            art, where it keeps edges hard), or "nearest", "bilinear",
            "bicubic" (resize(src, scale=scale)).
        model: the LAPAR model for method="lapar" (None: the built-in one).
        out: the output, written in place and returned (None: a new one).
        order: the colour order of a 3- or 4-channel src, 'bgr' (OpenCV's
            arrays) or 'rgb'; lapar and fusion weigh the colours.
        """
        if model is not None and method != "lapar":
            _raise_argument_error("argument 'model': a LAPAR model, for method='lapar'")
        if method == "lapar":
            return self.upscale_lapar(src, scale, model, out, order=order)
        if method == "fusion":
            return self.upscale_fusion(src, scale, out=out, order=order)
        if method in ("nearest", "bilinear", "bicubic"):
            return self.resize(src, scale=scale, method=method, out=out)
        _raise_argument_error(f"argument 'method': 'lapar', 'fusion', 'nearest', 'bilinear' "
                              f"or 'bicubic', not {method!r}")

    def fusion_stream(self, frames, scale=2, *, depth=0, tile=8, blur_ksize=7,
                      threshold=0.05, artifact_map=False, order="bgr"):
        """Fusion upscaling of a sequence of BGRA or RGBA uint8 frames of one size,
        several in flight: yields each frame's output (with
        artifact_map=True, (output, map)) in order, identical to
        upscale_fusion's.

        frames: an iterable of 4-channel uint8 frames of one size.
        scale: the integer factor, 2..8.
        depth: frames in flight at most (0: 3).
        tile: the SSIM tile of the artifact measure.
        blur_ksize: the artifact map's Gaussian blur size.
        threshold: the blurred artifact above which nearest is taken.
        artifact_map: True: yield (output, map) pairs.
        order: the frames' colour order, 'bgr' (OpenCV's arrays) or 'rgb'.
        """
        it = iter(frames)
        for first in it:
            break
        else:
            return
        shape = _np.shape(first)
        if len(shape) != 3 or shape[2] != 4:
            _raise_argument_error("argument 'frames': BGRA or RGBA uint8 frames of shape "
                                  "(H, W, 4)")
        h, w = shape[0], shape[1]
        stream = FusionStream(self, w, h, scale, depth, tile, blur_ksize, threshold)
        pending = _deque()
        try:
            frame = first
            while True:
                if _np.shape(frame) != shape:
                    _raise_argument_error(f"argument 'frames': a frame of shape "
                                          f"{_np.shape(frame)}, the first was {shape}")
                out = _np.empty((h * scale, w * scale, 4), _np.uint8)
                amap = _np.empty((h * scale, w * scale), _np.uint8) if artifact_map else None
                pending.append((stream.submit(frame, out, amap, order=order), out, amap))
                if len(pending) >= stream.depth:
                    yield self._stream_take(stream, pending, artifact_map)
                frame = next(it, None)
                if frame is None:
                    break
            while pending:
                yield self._stream_take(stream, pending, artifact_map)
        finally:
            stream.close()

    @staticmethod
    def _stream_take(stream, pending, artifact_map):
        ticket, out, amap = pending.popleft()
        stream.wait(ticket)
        return (out, amap) if artifact_map else out

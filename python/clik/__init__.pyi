# Type stubs of the clik package (the NumPy interface of the C library).
from os import PathLike
from typing import Any, Callable, Iterable, Iterator, Literal, Sequence, final, overload

import numpy as np
import numpy.typing as npt

__version__: str

LAPAR_TAPS: int  # 25
LAPAR_ATOMS: int  # 72
BLUR_MAX_KSIZE: int  # 31
SSIM_WINDOW: int  # 11
FLOW_MAX_SCALES: int  # 100

Array = npt.NDArray[Any]
# An image argument: a NumPy array (or any object with the buffer protocol)
# of shape (H, W) or (H, W, C), C in 1, 2, 3, 4; rows may be strided (a crop),
# pixels must be packed. Or a device Image of the same context.
ImageLike = Array | "Image"
# Colour order of 3- and 4-channel arrays: "bgr" as OpenCV lays them out.
Order = Literal["bgr", "rgb"]
YuvFormat = Literal["nv21", "nv12", "i420"]
YuvSpace = Literal["bt601", "bt601-full", "bt709", "bt709-full"]
DTypeLike = npt.DTypeLike

class Error(Exception):
    """A failed library call: status is the status's name ("CLIK_ERR_BUILD"),
    code its number, message the context's detail (build logs included)."""

    status: str
    code: int
    message: str

class FormatError(Error, TypeError):
    """CLIK_ERR_UNSUPPORTED_FORMAT: an image type or channel count the
    operation does not take."""

class ArgumentError(Error, ValueError):
    """A refused argument (CLIK_ERR_INVALID_ARG, _NULL, _INVALID_SIZE,
    _SIZE_MISMATCH, _STRIDE), whether the library or the package refuses it."""

class OutOfMemoryError(Error, MemoryError):
    """CLIK_ERR_NO_MEMORY."""

class FileError(Error, OSError):
    """CLIK_ERR_IO: a file that cannot be read or written."""

def version() -> str: ...
def devices() -> list[dict[str, Any]]: ...
def prepare_op_names() -> tuple[str, ...]: ...
def select_device(spec: str, /) -> int | None: ...
def opencl_library() -> str | None: ...
def cpu_path_available(path: Literal["auto", "scalar", "neon"], /) -> bool: ...
def lapar_net_available(name: Literal["lapar-a", "lapar-b", "lapar-c"], scale: int, /) -> bool: ...
def pyr_level_size(width: int, height: int, level: int, /) -> tuple[int, int]: ...
def pyr_max_levels(width: int, height: int, /) -> int: ...
def resize_size(width: int, height: int, scale_x: float, scale_y: float, /) -> tuple[int, int]: ...
def gaussian_weights(ksize: int, sigma: float = 0.0) -> npt.NDArray[np.float32]: ...
def lapar_dict_default() -> npt.NDArray[np.float32]: ...  # (72, 25)

@final
class Image:
    """An image in a context's device memory (host memory on a CPU-only
    context). Operations given Images return Images of the same context."""

    context: Context
    width: int
    height: int
    channels: int
    dtype: np.dtype[Any]
    shape: tuple[int, int] | tuple[int, int, int]  # (H, W) when made from a 2-D array
    def download(self, out: Array | None = None) -> Array: ...
    def upload(self, src: Array) -> None: ...
    def free(self) -> None: ...
    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> Array: ...  # downloads

@final
class LaparModel:
    """A LAPAR coefficient model (opaque)."""

class LaparSelection:
    atoms: int
    @property
    def kept(self) -> int: ...
    index: list[int]
    gamma: list[float]
    mix: npt.NDArray[np.float32] | None  # (kept, atoms) or None
    def __init__(
        self,
        atoms: int,
        index: Iterable[int],
        gamma: Iterable[float] | None = None,
        mix: Array | None = None,
    ) -> None: ...

@final
class LaparTrainer:
    def add(self, hr: ImageLike) -> None: ...
    @property
    def samples(self) -> int: ...
    def solve(self) -> LaparModel: ...

def lapar_model_default() -> LaparModel: ...

@final
class FusionStream:
    """Fusion upscaling of BGRA or RGBA uint8 frames of one size, up to depth frames
    in flight (Context.fusion_stream drives one)."""

    def __new__(
        cls,
        context: Context,
        width: int,
        height: int,
        scale: int,
        depth: int = 0,
        tile: int = 8,
        blur_ksize: int = 7,
        threshold: float = 0.05,
    ) -> FusionStream: ...
    @property
    def depth(self) -> int: ...  # frames in flight at most
    def submit(
        self, src: Array, out: Array, artifact_map: Array | None = None, *, order: Order = "bgr"
    ) -> int: ...  # a ticket
    def wait(self, ticket: int | None = None, /) -> None: ...  # frames up to ticket (None: all)
    def close(self) -> None: ...

class Context:
    def __init__(
        self,
        device: str | None = None,
        *,
        strict: bool | None = None,
        cpu_path: Literal["auto", "scalar", "neon"] | None = None,
        cache: bool | None = None,
        cache_dir: str | PathLike[str] | None = None,
        local_memory: bool | None = None,
        profiling: bool | None = None,
        kernel_dir: str | PathLike[str] | None = None,
        tuning: str | None = None,
        log: Callable[[str, str], None] | None = None,
        threads: int | None = None,
    ) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Context: ...
    def __exit__(self, *exc: object) -> None: ...
    @property
    def device(self) -> dict[str, Any] | None: ...
    @property
    def last_backend(self) -> Literal["none", "opencl", "neon", "scalar"]: ...
    @property
    def cpu_backend(self) -> Literal["neon", "scalar"]: ...
    @property
    def fallback_cause(self) -> str | None: ...
    @property
    def message(self) -> str: ...
    def stats(self) -> dict[str, float]: ...
    def finish(self) -> None: ...
    def copy_bandwidth(self, nbytes: int = 64 << 20, reps: int = 5) -> float: ...
    def transfer_bandwidth(self, nbytes: int = 64 << 20, reps: int = 5) -> tuple[float, float]: ...
    def fma_peak(self, reps: int = 3) -> float: ...
    def prepare(
        self,
        ops: str | Sequence[str] | None = None,
        dtypes: Sequence[Literal["uint8", "float32"]] | None = None,
        channels: Sequence[int] | None = None,
        background: bool = False,
    ) -> None: ...
    def prepare_wait(self) -> None: ...
    # memory
    def empty(self, shape: tuple[int, ...], dtype: DTypeLike = "uint8") -> Array: ...
    def image(self, shape: tuple[int, ...], dtype: DTypeLike = "uint8") -> Image: ...
    def upload(self, src: Array) -> Image: ...
    def download(self, src: Image, out: Array | None = None) -> Array: ...
    # histogram
    def hist_compute(self, src: ImageLike) -> npt.NDArray[np.uint32]: ...  # (C, 256)
    def hist_equalize(self, src: ImageLike, out: ImageLike | None = None) -> ImageLike: ...
    def hist_equalize_luma(
        self, src: ImageLike, out: ImageLike | None = None, *, order: Order = "bgr"
    ) -> ImageLike: ...
    def clahe(
        self,
        src: ImageLike,
        clip: float = 40.0,
        grid: tuple[int, int] = (8, 8),
        out: ImageLike | None = None,
        *,
        order: Order = "bgr",
    ) -> ImageLike: ...
    def hist_lut(self, src: ImageLike, tables: Array, out: ImageLike | None = None) -> ImageLike: ...
    # pyramid
    def pyr_down(self, src: ImageLike, out: ImageLike | None = None) -> ImageLike: ...
    def pyr_up(self, src: ImageLike, out: ImageLike | None = None) -> ImageLike: ...
    def pyr_gaussian(self, src: ImageLike, levels: int) -> list[ImageLike]: ...
    def pyr_laplacian(
        self, src: ImageLike, levels: int, dtype: DTypeLike | None = None
    ) -> list[ImageLike]: ...
    def pyr_collapse(
        self, bands: list[ImageLike], out: ImageLike | None = None, dtype: DTypeLike | None = None
    ) -> ImageLike: ...
    # integral
    @overload
    def integral(self, src: ImageLike, dtype: DTypeLike | None = None) -> ImageLike: ...
    @overload
    def integral(
        self, src: ImageLike, dtype: DTypeLike | None = None, *, sqsum: DTypeLike | Literal[True]
    ) -> tuple[ImageLike, ImageLike]: ...
    # resize and filter
    def resize(
        self,
        src: ImageLike,
        size: tuple[int, int] | None = None,
        *,
        scale: float | tuple[float, float] | None = None,
        method: Literal["nearest", "bilinear", "bicubic", "bicubic-aa"] = "bicubic",
        out: ImageLike | None = None,
    ) -> ImageLike: ...
    def gaussian_blur(
        self, src: ImageLike, ksize: int, sigma: float = 0.0, out: ImageLike | None = None
    ) -> ImageLike: ...
    def gray(
        self, src: ImageLike, out: ImageLike | None = None, *, order: Order = "bgr"
    ) -> ImageLike: ...
    # YUV 4:2:0 camera frames, (H * 3 / 2, W) uint8 arrays as OpenCV stores them
    def yuv_to_rgb(
        self,
        frame: ImageLike,
        format: YuvFormat = "nv21",
        out: ImageLike | None = None,
        *,
        channels: int = 3,
        order: Order = "bgr",
        space: YuvSpace = "bt601",
    ) -> ImageLike: ...
    def rgb_to_yuv(
        self,
        src: ImageLike,
        format: YuvFormat = "nv21",
        out: ImageLike | None = None,
        *,
        order: Order = "bgr",
        space: YuvSpace = "bt601",
    ) -> ImageLike: ...
    def yuv_resize(
        self,
        frame: ImageLike,
        size: tuple[int, int],
        format: YuvFormat = "nv21",
        *,
        method: Literal["nearest", "bilinear", "bicubic", "bicubic-aa"] = "bilinear",
        out: ImageLike | None = None,
    ) -> ImageLike: ...
    def yuv_upscale_lapar(
        self,
        frame: ImageLike,
        scale: int = 2,
        format: YuvFormat = "nv21",
        *,
        model: LaparModel | None = None,
        out: ImageLike | None = None,
    ) -> ImageLike: ...
    def yuv_upscale_lapar_net(
        self,
        frame: ImageLike,
        net: str | PathLike[str] = "lapar-a",
        scale: int = 2,
        format: YuvFormat = "nv21",
        *,
        out: ImageLike | None = None,
    ) -> ImageLike: ...
    # SSIM
    @overload
    def ssim(self, a: ImageLike, b: ImageLike, *, full: Literal[False] = False) -> float: ...
    @overload
    def ssim(self, a: ImageLike, b: ImageLike, *, full: Literal[True]) -> tuple[float, ImageLike]: ...
    def ssim_tiles(self, a: ImageLike, b: ImageLike, tile: int = 8) -> ImageLike: ...
    # upscaling as the tool's `clik upscale` (lapar by default)
    def upscale(
        self,
        src: ImageLike,
        scale: float = 2,
        *,
        method: Literal["lapar", "fusion", "nearest", "bilinear", "bicubic"] = "lapar",
        model: LaparModel | None = None,
        out: ImageLike | None = None,
        order: Order = "bgr",
    ) -> ImageLike: ...
    # fusion upscaling
    def upscale_fusion(
        self,
        src: ImageLike,
        scale: int = 2,
        *,
        tile: int = 8,
        blur_ksize: int = 7,
        threshold: float = 0.05,
        artifact_map: bool = False,
        out: ImageLike | None = None,
        order: Order = "bgr",
    ) -> ImageLike | tuple[ImageLike, ImageLike]: ...
    def fusion_stream(
        self,
        frames: Iterable[Array],
        scale: int = 2,
        *,
        depth: int = 0,
        tile: int = 8,
        blur_ksize: int = 7,
        threshold: float = 0.05,
        artifact_map: bool = False,
        order: Order = "bgr",
    ) -> Iterator[Array | tuple[Array, Array]]: ...
    # optical flow
    def flow_tvl1(
        self,
        i0: ImageLike,
        i1: ImageLike,
        *,
        initial: Array | None = None,
        tau: float = 0.25,
        lambda_: float = 0.15,
        theta: float = 0.3,
        scales: int = 0,
        zoom: float = 0.5,
        warps: int = 5,
        epsilon: float = 0.01,
        iterations: int = 300,
        sigma: float = 0.8,
        storage: Literal["auto", "f32", "f16"] = "auto",
        out: ImageLike | None = None,
        progress: Callable[[int, int, int], bool | None] | None = None,
        order: Order = "bgr",
    ) -> ImageLike: ...  # (H, W, 2) float32, u and v; progress(done, total, iteration): False stops
    def flow_warp(self, src: ImageLike, flow: ImageLike, out: ImageLike | None = None) -> ImageLike: ...
    def flow_warp_average(
        self, ref: ImageLike, src: ImageLike, flow: ImageLike, out: ImageLike | None = None
    ) -> ImageLike: ...
    # LAPAR
    def lapar_upsample(self, lr: ImageLike, scale: int, out: ImageLike | None = None) -> ImageLike: ...
    def lapar_filter(
        self,
        lr: ImageLike,
        phi: ImageLike,
        scale: int,
        *,
        dictionary: Array | None = None,
        selection: LaparSelection | None = None,
        out: ImageLike | None = None,
    ) -> ImageLike: ...
    def lapar_compress(
        self,
        calib: Iterable[tuple[Array, Array, Array]],  # (phi, upsampled, truth) per image
        alpha: float,
        *,
        dictionary: Array | None = None,
        samples: int = 65536,
        refit_samples: int | None = None,  # min(16384, samples)
        seed: int = 1,
        mix: bool = False,
    ) -> LaparSelection: ...
    def lapar_tune(
        self,
        lr: ImageLike,
        phi: ImageLike,
        scale: int,
        *,
        dictionary: Array | None = None,
        selection: LaparSelection | None = None,
        out: ImageLike | None = None,
    ) -> dict[str, Any]: ...  # variant, wg_x, wg_y, ms, stored
    def lapar_tuning_get(
        self,
        lr: ImageLike,
        phi: ImageLike,
        scale: int,
        *,
        dictionary: Array | None = None,
        selection: LaparSelection | None = None,
        out: ImageLike | None = None,
    ) -> dict[str, Any]: ...
    def lapar_tuning_set(
        self,
        lr: ImageLike,
        phi: ImageLike,
        scale: int,
        tuning: dict[str, Any],
        *,
        dictionary: Array | None = None,
        selection: LaparSelection | None = None,
    ) -> None: ...
    def lapar_model_read(self, data: bytes) -> LaparModel: ...
    def lapar_model_load(self, path: str | PathLike[str]) -> LaparModel: ...
    def lapar_model_write(self, model: LaparModel) -> bytes: ...
    def lapar_model_combine(self, a: LaparModel, b: LaparModel) -> LaparModel: ...
    def lapar_model_describe(self, model: LaparModel, scale: int) -> dict[str, Any]: ...
    def lapar_classify(
        self,
        up: ImageLike,
        scale: int,
        model: LaparModel | None = None,
        out: ImageLike | None = None,
        *,
        order: Order = "bgr",
    ) -> ImageLike: ...  # uint16 buckets
    def upscale_lapar(
        self,
        src: ImageLike,
        scale: int = 2,
        model: LaparModel | None = None,
        out: ImageLike | None = None,
        *,
        order: Order = "bgr",
    ) -> ImageLike: ...
    def lapar_net_run(
        self,
        src: ImageLike,
        net: str | PathLike[str] = "lapar-a",
        scale: int = 2,
        out: ImageLike | None = None,
        activations: Literal["f32", "f16"] = "f32",
        *,
        order: Order = "bgr",
    ) -> ImageLike: ...
    def lapar_net_phi(
        self,
        src: ImageLike,
        net: str | PathLike[str] = "lapar-a",
        scale: int = 2,
        dtype: DTypeLike | None = None,
        activations: Literal["f32", "f16"] = "f32",
        *,
        order: Order = "bgr",
    ) -> ImageLike: ...
    def lapar_net_tune(
        self,
        width: int,
        height: int,
        net: str | PathLike[str] = "lapar-a",
        scale: int = 2,
        activations: Literal["f32", "f16"] = "f32",
    ) -> dict[str, Any]: ...  # local, vw, ry, cob, ms, stored
    def lapar_net_tuning_get(
        self,
        width: int,
        height: int,
        net: str | PathLike[str] = "lapar-a",
        scale: int = 2,
        activations: Literal["f32", "f16"] = "f32",
    ) -> dict[str, Any]: ...
    def lapar_trainer(
        self,
        *,
        scale: int = 2,
        angles: int = 16,
        strengths: int = 3,
        coherences: int = 3,
        phases: bool = False,
        window: int = 5,
        atoms: int = 13,
        kernel: int = 0,
        symmetry: int = 1,
        alpha: float = 1e-5,
        min_samples: int = 64,
        f16: bool = True,
        strength_edges: Iterable[float] | None = None,
        coherence_edges: Iterable[float] | None = None,
        progress: Callable[[int, int, int], bool | None] | None = None,  # (stage, done, total); False stops
    ) -> LaparTrainer: ...

/*
 * The docstrings of the extension's functions, methods and types: each
 * starts with its text signature ("name($self, /, ...)" then "--" and a
 * blank line), which CPython turns into __text_signature__, so that
 * inspect.signature and help() show the parameters; one line per
 * parameter follows the summary. The names and defaults are those of the
 * kwlist and format of the function's PyArg_ParseTupleAndKeywords call;
 * python/tests/test_stubs.py checks them against the sources and
 * mypy.stubtest checks __init__.pyi against them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_PY_DOC_H
#define CLIK_PY_DOC_H

#define SIG(s) s "\n--\n\n"

/* Lines shared by many methods. */
#define ARG_SRC     "src: the input image (NumPy array or clik.Image of this context).\n"
#define ARG_OUT     "out: the output, written in place and returned (None: a new one).\n"
#define ARG_SCALE_I "scale: the integer upscaling factor.\n"
#define ARG_ORDER                                                                                  \
    "order: the colour order of a 3- or 4-channel src, 'bgr' (OpenCV's arrays) or 'rgb'.\n"
#define ARG_LAPAR_FILTER                                                                           \
    "lr: the low-resolution image, uint8 or float32, 1, 3 or 4 channels.\n"                        \
    "phi: the coefficients, (atoms, scale*H, scale*W) float32 or float16 planes.\n"                \
    "scale: the upscaling factor, 2..4.\n"                                                         \
    "dictionary: the atoms, (atoms, 25) float32 (None: lapar_dict_default()).\n"                   \
    "selection: a LaparSelection of the dictionary's atoms (None: every atom).\n"
#define ARG_BANDWIDTH                                                                              \
    "nbytes: bytes per transfer.\n"                                                                \
    "reps: repetitions; the best is kept.\n"

/* ---- the context ----------------------------------------------------------------------------- */

#define DOC_ctx_type                                                                               \
    SIG("_Context(device=None, *, strict=None, cpu_path=None, cache=None, cache_dir=None, "        \
        "local_memory=None, profiling=None, kernel_dir=None, tuning=None, log=None, "              \
        "threads=None)")                                                                           \
    "A clik context (see clik.Context).\n\n"                                                       \
    "device: 'auto', 'gpu', 'cpu', 'none' (the CPU path), 'P:D' or part of a device name.\n"       \
    "strict: True: fail rather than fall back to the CPU path.\n"                                  \
    "cpu_path: 'auto', 'scalar' (the oracle) or 'neon'.\n"                                         \
    "cache: whether compiled kernels are cached on disk.\n"                                        \
    "cache_dir: the kernel cache's folder.\n"                                                      \
    "local_memory: force the kernels with (True) or without (False) local memory.\n"               \
    "profiling: time each kernel (Context.stats).\n"                                               \
    "kernel_dir: read the kernels' sources from this folder.\n"                                    \
    "tuning: tuning keys, 'key=value,...'.\n"                                                      \
    "log: a callable (level, message) receiving the library's diagnostics.\n"                      \
    "threads: threads of the CPU path, 1 to 256 (-1 or 0: the usable cores).\n"                    \
    "Options left None take the environment variables, then the defaults.\n"

#define DOC_ctx_close                                                                              \
    SIG("close($self, /)") "Frees the context (once its images, trainers and streams are gone).\n"
#define DOC_ctx_stats  SIG("stats($self, /)") "Kernel cache and fallback counters.\n"
#define DOC_ctx_finish SIG("finish($self, /)") "Waits for queued device work.\n"
#define DOC_ctx_copy_bandwidth                                                                     \
    SIG("copy_bandwidth($self, /, nbytes=67108864, reps=5)")                                       \
    "Device copy bandwidth, GB/s.\n\n" ARG_BANDWIDTH
#define DOC_ctx_transfer_bandwidth                                                                 \
    SIG("transfer_bandwidth($self, /, nbytes=67108864, reps=5)")                                   \
    "Pinned host <-> device bandwidth (to device, to host), GB/s.\n\n" ARG_BANDWIDTH
#define DOC_ctx_fma_peak                                                                           \
    SIG("fma_peak($self, /, reps=3)")                                                              \
    "The device's FP32 peak by a small kernel of independent FMA chains on every\n"                \
    "compute unit, GFLOP/s (the host's on a context without a device).\n\n"                        \
    "reps: repetitions; the best is kept.\n"
#define DOC_ctx_prepare                                                                            \
    SIG("prepare($self, /, ops=None, dtypes=None, channels=None, background=False)")               \
    "Compiles the OpenCL programs of operations ahead of time (and into the\n"                     \
    "kernel cache), so that their first calls do not wait for the compiler.\n\n"                   \
    "ops: names as the methods' ('resize', 'pyr_down'), a str or a sequence; None: every\n"        \
    "operation (clik.prepare_op_names() lists them).\n"                                            \
    "dtypes: 'uint8' and/or 'float32' (None: uint8).\n"                                            \
    "channels: channel counts 1 to 4 (None: 1 and 4).\n"                                           \
    "background: build in a thread of the library on a second context sharing the\n"               \
    "kernel cache, and return at once (a call that needs a program meanwhile waits\n"              \
    "for it); prepare_wait() waits and raises its error.\n"
#define DOC_ctx_prepare_wait                                                                       \
    SIG("prepare_wait($self, /)") "Waits for a background prepare; raises what it failed with.\n"
#define DOC_ctx_empty                                                                              \
    SIG("empty($self, /, shape, dtype='uint8')")                                                   \
    "A NumPy array in memory the device reaches directly.\n\n"                                     \
    "shape: (H, W) or (H, W, C), C 1, 2, 3 or 4.\n"                                                \
    "dtype: the element type.\n"
#define DOC_ctx_image                                                                              \
    SIG("image($self, /, shape, dtype='uint8')")                                                   \
    "A new device image of shape (H, W[, C]) and dtype (contents undefined).\n\n"                  \
    "shape: (H, W) or (H, W, C), C 1, 2, 3 or 4.\n"                                                \
    "dtype: the element type.\n"
#define DOC_ctx_upload                                                                             \
    SIG("upload($self, /, src)")                                                                   \
    "A device image holding a copy of an array.\n\n"                                               \
    "src: the array, (H, W) or (H, W, C).\n"
#define DOC_ctx_download                                                                           \
    SIG("download($self, /, src, out=None)")                                                       \
    "A device image's pixels as an array.\n\n"                                                     \
    "src: a clik.Image of this context.\n"                                                         \
    "out: an array of its shape and dtype to fill (None: a new one).\n"

/* ---- histogram, pyramid, integral, resize, filter ----------------------------------------------
 */

#define DOC_ctx_hist_compute                                                                       \
    SIG("hist_compute($self, /, src)")                                                             \
    "256-bin histogram per channel of a uint8 image: (C, 256) uint32.\n\n" ARG_SRC
#define DOC_ctx_hist_equalize                                                                      \
    SIG("hist_equalize($self, /, src, out=None)")                                                  \
    "Histogram equalization (OpenCV equalizeHist), per channel.\n\n" ARG_SRC ARG_OUT
#define DOC_ctx_hist_equalize_luma                                                                 \
    SIG("hist_equalize_luma($self, /, src, out=None, *, order='bgr')")                             \
    "Histogram equalization of the luma (Y of YCrCb) of a uint8 image of 3 or 4 channels, the\n"   \
    "chroma and alpha kept (OpenCV: BGR2YCrCb, equalizeHist of Y, YCrCb2BGR; RGB with\n"           \
    "order='rgb').\n\n" ARG_SRC ARG_OUT ARG_ORDER
#define DOC_ctx_clahe                                                                              \
    SIG("clahe($self, /, src, clip=40.0, grid=(8, 8), out=None, *, order='bgr')")                  \
    "CLAHE as OpenCV's createCLAHE(clip, grid).apply: of uint8 grey, or of the luma of 3 or 4\n"   \
    "channels as hist_equalize_luma.\n\n" ARG_SRC                                                  \
    "clip: the clip limit, in multiples of a tile's mean count; finite, above 0.\n"                \
    "grid: (tiles across, tiles down), each at least 1 and at most the image's side.\n" ARG_OUT    \
        ARG_ORDER
#define DOC_ctx_hist_lut                                                                           \
    SIG("hist_lut($self, /, src, tables, out=None)")                                               \
    "out = tables[src] for a uint8 image.\n\n" ARG_SRC                                             \
    "tables: one table (256) or one per channel (C, 256), uint8.\n" ARG_OUT
#define DOC_ctx_pyr_down                                                                           \
    SIG("pyr_down($self, /, src, out=None)")                                                       \
    "OpenCV pyrDown: 5x5 Gaussian, then every second row and column.\n\n" ARG_SRC ARG_OUT
#define DOC_ctx_pyr_up                                                                             \
    SIG("pyr_up($self, /, src, out=None)")                                                         \
    "OpenCV pyrUp: twice the size, 5x5 Gaussian interpolation.\n\n" ARG_SRC ARG_OUT
#define DOC_ctx_pyr_gaussian                                                                       \
    SIG("pyr_gaussian($self, /, src, levels)")                                                     \
    "Levels 1..levels of a Gaussian pyramid (chained pyr_down).\n\n" ARG_SRC                       \
    "levels: how many levels below src (pyr_max_levels at most).\n"
#define DOC_ctx_pyr_laplacian                                                                      \
    SIG("pyr_laplacian($self, /, src, levels, dtype=None)")                                        \
    "Laplacian pyramid: levels bands and the coarsest level.\n\n" ARG_SRC                          \
    "levels: how many bands.\n"                                                                    \
    "dtype: the bands' type, int16 or float32 (None: int16 for uint8, else float32).\n"
#define DOC_ctx_pyr_collapse                                                                       \
    SIG("pyr_collapse($self, /, bands, out=None, dtype=None)")                                     \
    "Rebuilds an image from a Laplacian pyramid (exactly, for uint8).\n\n"                         \
    "bands: the list pyr_laplacian returns.\n" ARG_OUT                                             \
    "dtype: the output's type (None: uint8 for int16 bands, else float32).\n"
#define DOC_ctx_integral                                                                           \
    SIG("integral($self, /, src, dtype=None, *, sqsum=None)")                                      \
    "OpenCV integral, (H+1, W+1); with sqsum, (sums, sums of squares).\n\n" ARG_SRC                \
    "dtype: the sums' type (None: uint32 for uint8 where it fits, else uint64 or float64;\n"       \
    "    int32: modulo 2^32, as OpenCV's CV_32S).\n"                                               \
    "sqsum: True or the type of the sums of squares (uint64 or float64); None: none.\n"
#define DOC_ctx_resize                                                                             \
    SIG("resize($self, /, src, size=None, *, scale=None, method='bicubic', out=None)")             \
    "Resize by size=(W, H) or scale= (one of the two, or out=).\n\n" ARG_SRC                       \
    "size: (W, H) of the output, as cv2.resize(src, (W, H)).\n"                                    \
    "scale: one factor, or (x, y) factors, as cv2.resize(src, None, fx=x, fy=y): coordinates\n"    \
    "    mapped by 1 / scale (clik_resize_scaled).\n"                                              \
    "method: 'nearest', 'bilinear', 'bicubic' (clik resize's default) or 'bicubic-aa'.\n" ARG_OUT
#define DOC_ctx_gaussian_blur                                                                      \
    SIG("gaussian_blur($self, /, src, ksize, sigma=0.0, out=None)")                                \
    "Separable Gaussian blur, border reflect-101 (in place with out=src).\n\n" ARG_SRC             \
    "ksize: odd kernel size, 1..31.\n"                                                             \
    "sigma: the standard deviation (0: OpenCV's choice for ksize).\n" ARG_OUT
#define DOC_ctx_gray                                                                               \
    SIG("gray($self, /, src, out=None, *, order='bgr')")                                           \
    "BGR(A) or RGB(A) -> luma (OpenCV COLOR_BGR2GRAY, order='bgr'; COLOR_RGB2GRAY, "               \
    "order='rgb').\n\n"                                                                            \
    "src: the 3- or 4-channel image, uint8 or float32.\n" ARG_OUT ARG_ORDER

/* ---- YUV 4:2:0 frames ---------------------------------------------------------------------- */
#define ARG_YUV_FORMAT                                                                             \
    "format: 'nv21' (Android's camera; the default), 'nv12' (interleaved U V) or 'i420' (a U "     \
    "plane, then a V plane).\n"
#define ARG_YUV_SPACE                                                                              \
    "space: 'bt601' (video range: OpenCV's cvtColor, its bytes; the default), 'bt601-full', "      \
    "'bt709' or 'bt709-full'.\n"
#define DOC_ctx_yuv_to_rgb                                                                         \
    SIG("yuv_to_rgb($self, /, frame, format='nv21', out=None, *, channels=3, order='bgr', "        \
        "space='bt601')")                                                                          \
    "A YUV 4:2:0 camera frame -> BGR (cv2.cvtColor(frame, COLOR_YUV2BGR_NV21) and friends, "       \
    "byte for byte).\n\n"                                                                          \
    "frame: the (H * 3 / 2, W) uint8 array, H and W even, as OpenCV stores a "                     \
    "frame.\n" ARG_YUV_FORMAT ARG_OUT                                                              \
    "channels: 3 (BGR or RGB), 4 (alpha 255) or 1 (the luma: a copy of the Y plane).\n"            \
    "order: the colour order of the result, 'bgr' or 'rgb'.\n" ARG_YUV_SPACE
#define DOC_ctx_rgb_to_yuv                                                                         \
    SIG("rgb_to_yuv($self, /, src, format='nv21', out=None, *, order='bgr', space='bt601')")       \
    "BGR(A) or RGB(A) -> a YUV 4:2:0 frame, a (H * 3 / 2, W) uint8 array (for 'i420' "             \
    "cv2.cvtColor(src, COLOR_BGR2YUV_I420), byte for byte: each 2 x 2 block's chroma from its "    \
    "top-left pixel).\n\n"                                                                         \
    "src: the 3- or 4-channel uint8 image, width and height even.\n" ARG_YUV_FORMAT ARG_OUT        \
        ARG_ORDER ARG_YUV_SPACE

#define DOC_ctx_yuv_resize                                                                         \
    SIG("yuv_resize($self, /, frame, size, format='nv21', *, method='bilinear', out=None)")        \
    "A YUV 4:2:0 frame resampled plane by plane: the luma to size, each chroma plane to half of "  \
    "it, each as resize() resamples an image (interleaved chroma: both channels alike).\n\n"       \
    "frame: the (H * 3 / 2, W) uint8 array, H and W even.\n"                                       \
    "size: (width, height) of the result, both even.\n" ARG_YUV_FORMAT                             \
    "method: 'nearest', 'bilinear' (the default), 'bicubic' or 'bicubic-aa'.\n" ARG_OUT

#define DOC_ctx_yuv_upscale_lapar                                                                  \
    SIG("yuv_upscale_lapar($self, /, frame, scale=2, format='nv21', *, model=None, out=None)")     \
    "A YUV 4:2:0 frame upscaled: the luma by the LAPAR model (upscale_lapar()), each chroma "      \
    "plane bicubic (resize()).\n\n"                                                                \
    "frame: the (H * 3 / 2, W) uint8 array, H and W even.\n"                                       \
    "scale: 2, 3 or 4.\n" ARG_YUV_FORMAT                                                           \
    "model: a clik.LaparModel, or None for the default.\n" ARG_OUT

#define DOC_ctx_yuv_upscale_lapar_net                                                              \
    SIG("yuv_upscale_lapar_net($self, /, frame, net='lapar-a', scale=2, format='nv21', *, "        \
        "out=None)")                                                                               \
    "A YUV 4:2:0 frame upscaled: the luma by a LAPAR network as a grey image (lapar_net_run()), "  \
    "each chroma plane bicubic (resize()); no RGB image is made.\n\n"                              \
    "frame: the (H * 3 / 2, W) uint8 array, H and W even.\n"                                       \
    "net: 'lapar-a' (the default), 'lapar-b', 'lapar-c' or a network file's path.\n"               \
    "scale: the network's scale (2 or 4 for the released networks).\n" ARG_YUV_FORMAT ARG_OUT

/* ---- SSIM, fusion, flow ------------------------------------------------------------------------
 */

#define ARG_AB                                                                                     \
    "a: the first grey image, uint8 or float32.\n"                                                 \
    "b: the second, of a's size and type.\n"
#define DOC_ctx_ssim                                                                               \
    SIG("ssim($self, /, a, b, *, full=False)")                                                     \
    "Mean SSIM (11x11 Gaussian window, sigma 1.5).\n\n" ARG_AB                                     \
    "full: True: (mean, the (H-10, W-10) float32 map).\n"
#define DOC_ctx_ssim_tiles                                                                         \
    SIG("ssim_tiles($self, /, a, b, tile=8)")                                                      \
    "SSIM per tile x tile square of uint8 grey images.\n\n" ARG_AB                                 \
    "tile: the square's side, 2..16.\n"
#define DOC_ctx_upscale_fusion                                                                     \
    SIG("upscale_fusion($self, /, src, scale=2, *, tile=8, blur_ksize=7, threshold=0.05, "         \
        "artifact_map=False, out=None, order='bgr')")                                              \
    "Fusion upscaling of a colour uint8 image (nearest where bicubic rings).\n\n"                  \
    "src: the 3- or 4-channel uint8 image.\n"                                                      \
    "scale: the integer factor, 2..8.\n"                                                           \
    "tile: the SSIM tile of the artifact measure.\n"                                               \
    "blur_ksize: the artifact map's Gaussian blur size.\n"                                         \
    "threshold: the blurred artifact above which nearest is taken.\n"                              \
    "artifact_map: True: (output, the uint8 artifact map).\n" ARG_OUT ARG_ORDER
#define DOC_stream_type                                                                            \
    SIG("FusionStream(context, width, height, scale, depth=0, tile=8, blur_ksize=7, "              \
        "threshold=0.05)")                                                                         \
    "Fusion upscaling of BGRA or RGBA uint8 frames of one size, several in flight.\n\n"            \
    "context: the clik.Context.\n"                                                                 \
    "width: the frames' width.\n"                                                                  \
    "height: the frames' height.\n"                                                                \
    "scale: the integer factor, 2..8.\n"                                                           \
    "depth: frames in flight at most (0: 3).\n"                                                    \
    "tile: as upscale_fusion's.\n"                                                                 \
    "blur_ksize: as upscale_fusion's.\n"                                                           \
    "threshold: as upscale_fusion's.\n"
#define DOC_stream_submit                                                                          \
    SIG("submit($self, /, src, out, artifact_map=None, *, order='bgr')")                           \
    "Queues a frame; returns its ticket.\n\n"                                                      \
    "src: the BGRA or RGBA uint8 frame (kept until its ticket is waited for).\n"                   \
    "out: the upscaled frame's array.\n"                                                           \
    "artifact_map: the artifact map's array (None: none).\n"                                       \
    "order: the frame's colour order, 'bgr' (OpenCV's arrays) or 'rgb'.\n"
#define DOC_stream_wait                                                                            \
    SIG("wait($self, ticket=None, /)")                                                             \
    "Waits for the frames up to a ticket.\n\n"                                                     \
    "ticket: a ticket of submit (None: every frame).\n"
#define DOC_stream_close SIG("close($self, /)") "Waits for all frames, frees the stream.\n"
#define DOC_ctx_flow_tvl1                                                                          \
    SIG("flow_tvl1($self, /, i0, i1, *, initial=None, tau=0.25, lambda_=0.15, theta=0.3, "         \
        "scales=0, zoom=0.5, warps=5, epsilon=0.01, iterations=300, sigma=0.8, "                   \
        "storage='auto', out=None, progress=None, order='bgr')")                                   \
    "TV-L1 optical flow from i0 to i1: (H, W, 2) float32, u and v.\n\n"                            \
    "i0: the first image, uint8 or float32, grey or colour (3 or 4 channels, compared\n"           \
    "    on its luma as gray makes it; alpha ignored).\n"                                          \
    "i1: the second, of i0's size, type and channels.\n"                                           \
    "initial: a starting flow, (H, W, 2) float32 (None: zero).\n"                                  \
    "tau: the time step.\n"                                                                        \
    "lambda_: the data term's weight.\n"                                                           \
    "theta: the coupling of u and v.\n"                                                            \
    "scales: pyramid levels (0: down to about 16 pixels).\n"                                       \
    "zoom: the pyramid's factor between levels.\n"                                                 \
    "warps: warps per level.\n"                                                                    \
    "epsilon: the stopping threshold of a warp's iterations.\n"                                    \
    "iterations: iterations per warp at most.\n"                                                   \
    "sigma: the pre-smoothing Gaussian's sigma.\n"                                                 \
    "storage: 'auto', 'f32' or 'f16' for u and p.\n" ARG_OUT                                       \
    "progress: f(done, total, iteration), called between steps; False stops.\n" ARG_ORDER
#define DOC_ctx_flow_warp                                                                          \
    SIG("flow_warp($self, /, src, flow, out=None)")                                                \
    "src moved back along a flow: out[y, x] = src sampled at (x + u, y + v), bytes as\n"           \
    "cv2.remap(src, x + u, y + v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).\n\n"         \
    "src: uint8, 1 to 4 channels.\n"                                                               \
    "flow: (H, W, 2) float32 of src's size (flow_tvl1(i0, i1) warps i1 onto i0).\n" ARG_OUT
#define DOC_ctx_flow_warp_average                                                                  \
    SIG("flow_warp_average($self, /, ref, src, flow, out=None)")                                   \
    "(ref + flow_warp(src, flow) + 1) >> 1 in one pass: the temporal average of a\n"               \
    "denoising step.\n\n"                                                                          \
    "ref: uint8, 1 to 4 channels; out may be ref.\n"                                               \
    "src: ref's shape and type.\n"                                                                 \
    "flow: (H, W, 2) float32 of their size (flow_tvl1(ref, src)).\n" ARG_OUT

/* ---- LAPAR
 * --------------------------------------------------------------------------------------- */

#define DOC_ctx_lapar_upsample                                                                     \
    SIG("lapar_upsample($self, /, lr, scale, out=None)")                                           \
    "The bicubic upsample U that LAPAR filters (PyTorch's bicubic).\n\n"                           \
    "lr: the low-resolution image, uint8 or float32, 1, 3 or 4 channels.\n"                        \
    "scale: the upscaling factor, 2..4.\n" ARG_OUT
#define DOC_ctx_lapar_filter                                                                       \
    SIG("lapar_filter($self, /, lr, phi, scale, *, dictionary=None, selection=None, out=None)")    \
    "LAPAR filtering of the upsample of lr with coefficients phi.\n\n" ARG_LAPAR_FILTER ARG_OUT
#define DOC_ctx_lapar_tune                                                                         \
    SIG("lapar_tune($self, /, lr, phi, scale, *, dictionary=None, selection=None, out=None)")      \
    "Searches and stores the filter's work-group shape for these arguments.\n\n" ARG_LAPAR_FILTER  \
        ARG_OUT
#define DOC_ctx_lapar_tuning_get                                                                   \
    SIG("lapar_tuning_get($self, /, lr, phi, scale, *, dictionary=None, selection=None, "          \
        "out=None)")                                                                               \
    "The filter's tuning for these arguments (a dict).\n\n" ARG_LAPAR_FILTER ARG_OUT
#define DOC_ctx_lapar_tuning_set                                                                   \
    SIG("lapar_tuning_set($self, /, lr, phi, scale, tuning, *, dictionary=None, "                  \
        "selection=None)")                                                                         \
    "Stores a tuning for these arguments.\n\n" ARG_LAPAR_FILTER                                    \
    "tuning: a dict as lapar_tuning_get returns.\n"
#define DOC_ctx_lapar_compress                                                                     \
    SIG("_lapar_compress($self, /, calib, alpha, *, dictionary=None, samples=65536, "              \
        "refit_samples=16384, seed=1, mix=False)")                                                 \
    "The call under Context.lapar_compress.\n\n"                                                   \
    "calib: a list of (phi, upsampled, truth) triples.\n"                                          \
    "alpha: the fraction of the atoms kept, (0, 1].\n"                                             \
    "dictionary: the atoms (None: the default dictionary).\n"                                      \
    "samples: the pixels sampled for the selection.\n"                                             \
    "refit_samples: the pixels sampled for the re-weighting.\n"                                    \
    "seed: the sampling's seed.\n"                                                                 \
    "mix: True: the re-fit matrix as well.\n"
#define DOC_ctx_lapar_model_read                                                                   \
    SIG("lapar_model_read($self, /, data)")                                                        \
    "A LAPAR model from its file's bytes.\n\n"                                                     \
    "data: the bytes of a .clikm file.\n"
#define DOC_ctx_lapar_model_load                                                                   \
    SIG("lapar_model_load($self, /, path)")                                                        \
    "A LAPAR model from a file.\n\n"                                                               \
    "path: the .clikm file's path.\n"
#define DOC_ctx_lapar_model_write                                                                  \
    SIG("lapar_model_write($self, /, model)")                                                      \
    "A LAPAR model's file bytes.\n\n"                                                              \
    "model: the LaparModel.\n"
#define DOC_ctx_lapar_model_combine                                                                \
    SIG("lapar_model_combine($self, /, a, b)")                                                     \
    "A model with the entries of a and b (scales distinct).\n\n"                                   \
    "a: a LaparModel.\n"                                                                           \
    "b: another.\n"
#define DOC_ctx_lapar_model_describe                                                               \
    SIG("lapar_model_describe($self, /, model, scale)")                                            \
    "A model entry's parameters (a dict of the trainer's options).\n\n"                            \
    "model: the LaparModel.\n"                                                                     \
    "scale: the entry's scale.\n"
#define ARG_MODEL "model: a LaparModel (None: the library's default model).\n"
#define DOC_ctx_lapar_classify                                                                     \
    SIG("lapar_classify($self, /, up, scale, model=None, out=None, *, order='bgr')")               \
    "Bucket indices (uint16) of an upsample's pixels.\n\n"                                         \
    "up: the bicubic upsample (lapar_upsample's output), 1, 3 or 4 channels.\n"                    \
    "scale: the upscaling factor it was made with.\n" ARG_MODEL ARG_OUT ARG_ORDER
#define DOC_ctx_upscale_lapar                                                                      \
    SIG("upscale_lapar($self, /, src, scale=2, model=None, out=None, *, order='bgr')")             \
    "LAPAR upscaling by a bucket model (None: the default); 1, 3 or 4 channels.\n\n" ARG_SRC       \
        ARG_SCALE_I ARG_MODEL ARG_OUT ARG_ORDER
#define ARG_NET                                                                                    \
    "net: 'lapar-a', 'lapar-b', 'lapar-c' or a .clikn file's path.\n"                              \
    "scale: the network's factor, 2 or 4.\n"
#define ARG_ACTIVATIONS "activations: 'f32' or 'f16' storage between the layers.\n"
#define DOC_ctx_lapar_net_run                                                                      \
    SIG("lapar_net_run($self, /, src, net='lapar-a', scale=2, out=None, activations='f32', *, "    \
        "order='bgr')")                                                                            \
    "LAPAR upscaling by a network (which reads RGB: BGR input is read as its RGB\n"                \
    "equivalent); 1, 3 or 4 channels.\n\n" ARG_SRC ARG_NET ARG_OUT ARG_ACTIVATIONS ARG_ORDER
#define DOC_ctx_lapar_net_phi                                                                      \
    SIG("lapar_net_phi($self, /, src, net='lapar-a', scale=2, dtype=None, activations='f32', *, "  \
        "order='bgr')")                                                                            \
    "A LAPAR network's coefficients phi: (atoms, S*H, S*W).\n\n" ARG_SRC ARG_NET                   \
    "dtype: float32 or float16 (None: float32).\n" ARG_ACTIVATIONS ARG_ORDER
#define ARG_NET_TUNING                                                                             \
    "width: the input's width.\n"                                                                  \
    "height: the input's height.\n" ARG_NET ARG_ACTIVATIONS
#define DOC_ctx_lapar_net_tune                                                                     \
    SIG("lapar_net_tune($self, /, width, height, net='lapar-a', scale=2, activations='f32')")      \
    "Searches the work-item shape of a network's convolutions on this device for a\n"              \
    "width x height input (every candidate compiled and timed; minutes on a CPU\n"                 \
    "device) and keeps the fastest in the tuning store: a dict local, vw, ry, cob,\n"              \
    "ms, stored.\n\n" ARG_NET_TUNING
#define DOC_ctx_lapar_net_tuning_get                                                               \
    SIG("lapar_net_tuning_get($self, /, width, height, net='lapar-a', scale=2, "                   \
        "activations='f32')")                                                                      \
    "The work-item shape a run of a network on a width x height input uses on this\n"              \
    "device (tuning keys, else the stored search, else the defaults): a dict local,\n"             \
    "vw, ry, cob, ms, stored.\n\n" ARG_NET_TUNING
#define DOC_ctx_lapar_trainer                                                                      \
    SIG("lapar_trainer($self, /, *, scale=2, angles=16, strengths=3, coherences=3, "               \
        "phases=False, window=5, atoms=13, kernel=0, symmetry=1, alpha=1e-05, min_samples=64, "    \
        "f16=True, strength_edges=None, coherence_edges=None, progress=None)")                     \
    "A LAPAR model trainer (ridge least squares per bucket).\n\n"                                  \
    "scale: the upscaling factor, 2..4.\n"                                                         \
    "angles: angle bins.\n"                                                                        \
    "strengths: strength bins.\n"                                                                  \
    "coherences: coherence bins.\n"                                                                \
    "phases: True: the output pixel's phase is part of the bucket.\n"                              \
    "window: the structure tensor's window side, 3, 5, 7 or 9.\n"                                  \
    "atoms: dictionary atoms used: 72 (every one) or 1..25.\n"                                     \
    "kernel: 0: dictionary coefficients; 5 or 7: a free k x k filter per bucket.\n"                \
    "symmetry: for a free filter: 1, 2, 4 or 8 symmetries imposed.\n"                              \
    "alpha: the ridge weight.\n"                                                                   \
    "min_samples: a bucket with fewer samples takes the fallback.\n"                               \
    "f16: True: coefficients rounded to halves.\n"                                                 \
    "strength_edges: the strength bins' edges (None: by bin count).\n"                             \
    "coherence_edges: the coherence bins' edges (None: by bin count).\n"                           \
    "progress: f(stage, done, total), called between steps; False stops.\n"
#define DOC_trainer_add                                                                            \
    SIG("add($self, /, hr)")                                                                       \
    "Adds a high-resolution training image.\n\n"                                                   \
    "hr: the image, uint8 or float32.\n"
#define DOC_trainer_solve SIG("solve($self, /)") "Solves: a new LaparModel.\n"

/* ---- device images --------------------------------------------------------------------------- */

#define DOC_img_download                                                                           \
    SIG("download($self, /, out=None)")                                                            \
    "The pixels as an array.\n\n"                                                                  \
    "out: an array of the image's shape and dtype to fill (None: a new one).\n"
#define DOC_img_upload                                                                             \
    SIG("upload($self, /, src)")                                                                   \
    "Copies an array of the image's shape and dtype in.\n\n"                                       \
    "src: the array.\n"
#define DOC_img_free SIG("free($self, /)") "Frees the device memory now.\n"
#define DOC_img_array                                                                              \
    SIG("__array__($self, /, dtype=None, copy=None)")                                              \
    "The pixels as a new array (np.asarray(image) downloads).\n\n"                                 \
    "dtype: a type to convert them to (None: the image's).\n"                                      \
    "copy: False is refused (the pixels are in device memory); None or True: a copy.\n"

/* ---- module functions --------------------------------------------------------------------------
 */

#define DOC_mod_version SIG("version($module, /)") "The C library's version.\n"
#define DOC_mod_prepare_op_names                                                                   \
    SIG("prepare_op_names($module, /)")                                                            \
    "The operations that Context.prepare compiles (a tuple).\n"
#define DOC_mod_devices                                                                            \
    SIG("devices($module, /)") "Every OpenCL device of every platform (dicts).\n"
#define DOC_mod_select_device                                                                      \
    SIG("select_device($module, spec, /)")                                                         \
    "Index in devices() that a selection string picks, or None for the CPU.\n\n"                   \
    "spec: 'auto', 'gpu', 'cpu', 'none', 'P:D' or part of a device name.\n"
#define DOC_mod_opencl_library                                                                     \
    SIG("opencl_library($module, /)") "Path of the OpenCL library loaded, or None.\n"
#define DOC_mod_cpu_path_available                                                                 \
    SIG("cpu_path_available($module, path, /)")                                                    \
    "Whether this build has a CPU path.\n\n"                                                       \
    "path: 'auto', 'scalar' or 'neon'.\n"
#define DOC_mod_lapar_net_available                                                                \
    SIG("lapar_net_available($module, name, scale, /)")                                            \
    "Whether this build holds a released network for a scale.\n\n"                                 \
    "name: 'lapar-a', 'lapar-b' or 'lapar-c'.\n"                                                   \
    "scale: 2 or 4.\n"
#define ARG_WH                                                                                     \
    "width: the image's width.\n"                                                                  \
    "height: the image's height.\n"
#define DOC_mod_pyr_level_size                                                                     \
    SIG("pyr_level_size($module, width, height, level, /)")                                        \
    "(w, h) of a pyramid level.\n\n" ARG_WH "level: the level (0: the image).\n"
#define DOC_mod_pyr_max_levels                                                                     \
    SIG("pyr_max_levels($module, width, height, /)") "Most levels below an image.\n\n" ARG_WH
#define DOC_mod_resize_size                                                                        \
    SIG("resize_size($module, width, height, scale_x, scale_y, /)")                                \
    "(w, h) of a resize by scales.\n\n" ARG_WH "scale_x: the horizontal factor.\n"                 \
    "scale_y: the vertical factor.\n"
#define DOC_mod_gaussian_weights                                                                   \
    SIG("gaussian_weights($module, /, ksize, sigma=0.0)")                                          \
    "The blur's 1-D Gaussian taps, float32.\n\n"                                                   \
    "ksize: odd kernel size, 1..31.\n"                                                             \
    "sigma: the standard deviation (0: OpenCV's choice for ksize).\n"
#define DOC_mod_raise_argument_error                                                               \
    SIG("_raise_argument_error($module, message, /)")                                              \
    "Raises clik.ArgumentError with the message (for the package's Python code).\n"
#define DOC_mod_lapar_dict_default                                                                 \
    SIG("lapar_dict_default($module, /)") "The default LAPAR dictionary, (72, 25) float32.\n"
#define DOC_mod_lapar_model_default                                                                \
    SIG("lapar_model_default($module, /)")                                                         \
    "The library's embedded LAPAR model (scales 2, 3, 4).\n"

#endif

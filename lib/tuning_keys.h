/*
 * The tuning registry: every key that $CLIK_TUNE and the `tuning` context
 * option accept, with its type, range, default and one line of
 * documentation. The README's tuning table is checked against this list by
 * tests/test_tuning.c; a key read by the library is read through its id
 * (clik__tune), so a key cannot be used without being listed here.
 *
 * CLIK_TUNE_KEY(ID, name, family, kind, min, max, choices, default, doc)
 *   family  the operation family whose kernels read it ("*": every family)
 *   kind    FLAG (0 or 1), INT (min..max) or CHOICE (one of choices, read
 *           as its index)
 *   default how the library chooses when the key is not set
 *
 * Every value in range gives correct results; the ranges bound what a
 * kernel launch or an allocation can take, not what is fast.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* clang-format off */
CLIK_TUNE_KEY(HIST_MODE, "hist_mode", "hist", CHOICE, 0, 3, "local|serial|global|pairs",
    "device", "histogram kernel: local atomics, one work-item per group (CPU devices), global atomics, byte-pair tables (CPU devices, large images)")
CLIK_TUNE_KEY(HIST_GROUPS, "hist_groups", "hist", INT, 1, 65536, NULL,
    "compute units x 2 (x 4 on CPU devices)", "work-groups of the histogram")
CLIK_TUNE_KEY(HIST_LOCAL_BYTES, "hist_local_bytes", "hist", INT, 1024, 1048576, NULL,
    "16384", "local memory the replicated local histograms may use (bytes, at most half the device's; where one copy of the bins does not fit, the default mode becomes global atomics, and `hist_mode=local` cannot run)")
CLIK_TUNE_KEY(HIST_REPLICAS, "hist_replicas", "hist", INT, 1, 64, NULL,
    "8", "most copies of the local histogram per work-group")
CLIK_TUNE_KEY(HIST_SPREAD, "hist_spread", "hist", FLAG, 0, 1, NULL,
    "1", "local histogram copies interleaved bin by bin (the copies of a bin in neighbouring banks); 0: one copy after another")
CLIK_TUNE_KEY(HIST_MERGE, "hist_merge", "hist", FLAG, 0, 1, NULL,
    "1", "merge work-group histograms with global atomics in the same pass")
CLIK_TUNE_KEY(PAIRS_MIN_BYTES, "pairs_min_bytes", "hist", INT, 0, 2147483647, NULL,
    "262144", "smallest image (bytes) for the byte-pair histogram and lookup")
CLIK_TUNE_KEY(LUMA16, "luma16", "hist", FLAG, 0, 1, NULL,
    "CPU devices", "the luma split and merge of RGBA (hist_equalize_luma, CLAHE of RGBA) by 16 pixels a work-item")
CLIK_TUNE_KEY(LUT_PAIRS, "lut_pairs", "hist", FLAG, 0, 1, NULL,
    "1", "table lookup through 65536-entry byte-pair tables on CPU devices")
CLIK_TUNE_KEY(LUT_GROUPS, "lut_groups", "hist", INT, 1, 65536, NULL,
    "compute units x 4", "work-items of the byte-pair lookup")
CLIK_TUNE_KEY(LUT_CHUNKS, "lut_chunks", "hist", INT, 1, 1024, NULL,
    "1", "16-byte chunks per work-item along a row of the lookup")
CLIK_TUNE_KEY(CLAHE_MODE, "clahe_mode", "hist", CHOICE, 0, 2, "local|serial|global",
    "device", "CLAHE tile histograms: local atomics (GPUs), one work-item per group (CPU devices), global atomics (no local memory)")
CLIK_TUNE_KEY(CLAHE_ROWS, "clahe_rows", "hist", FLAG, 0, 1, NULL,
    "CPU devices", "the CLAHE blend by a row a work-item, 16 pixels a step, the four tables around a pixel packed in one word")
CLIK_TUNE_KEY(PYR_LOCAL, "pyr_local", "pyramid", FLAG, 0, 1, NULL,
    "GPUs with local memory", "pyr_down tiles in local memory")
CLIK_TUNE_KEY(PYR_ROWS, "pyr_rows", "pyramid", FLAG, 0, 1, NULL,
    "CPU devices", "the CPU row kernels for u8 pyr_down, pyr_up and the Laplacian steps")
CLIK_TUNE_KEY(PYR_VEC, "pyr_vec", "pyramid", FLAG, 0, 1, NULL,
    "without local memory", "the 8-wide kernel without local memory for u8 grey pyr_down")
CLIK_TUNE_KEY(PYR_STRIP, "pyr_strip", "pyramid", FLAG, 0, 1, NULL,
    "GPUs, u8 grey outputs of 2^19 pixels or more", "pyr_down by strips of 4 output pixels, u8 with 1 or 4 channels")
CLIK_TUNE_KEY(PYR_UP_BLOCK, "pyr_up_block", "pyramid", FLAG, 0, 1, NULL,
    "1", "without pyr_rows, pyr_up by blocks: 16 elements of two output rows per work-item")
CLIK_TUNE_KEY(PYR_STRIP_ROWS, "pyr_strip_rows", "pyramid", INT, 1, 1024, NULL,
    "2", "output rows per work-item of pyr_down's strips")
CLIK_TUNE_KEY(PYR_BAND_ROWS, "pyr_band_rows", "pyramid", INT, 1, 1048576, NULL,
    "rows / (compute units x 4)", "output rows per work-item of the CPU row kernel")
CLIK_TUNE_KEY(INTEGRAL_SERIAL, "integral_serial", "integral", FLAG, 0, 1, NULL,
    "CPU devices", "one work-item per strip of rows (the CPU kernels)")
CLIK_TUNE_KEY(INTEGRAL_VEC, "integral_vec", "integral", FLAG, 0, 1, NULL,
    "1", "u8 rows read 16 bytes at a time by the CPU kernels")
CLIK_TUNE_KEY(INTEGRAL_STAGE, "integral_stage", "integral", FLAG, 0, 1, NULL,
    "1", "rows staged in local memory by the scan kernels")
CLIK_TUNE_KEY(INTEGRAL_CHUNK, "integral_chunk", "integral", INT, 0, 32, NULL,
    "0: the most whose tiles take at most 30 % of the device's local memory, 2 or more where they fit", "most pixels per work-item that the scan kernels stage in local memory at a time (a power of two: the tiles hold work-group size x this many pixels, so that wide RGBA rows stage where the whole row would not fit)")
CLIK_TUNE_KEY(INTEGRAL_LS, "integral_ls", "integral", INT, 1, 1024, NULL,
    "256", "work-group size of the row scan (rounded down to a power of two)")
CLIK_TUNE_KEY(INTEGRAL_ROWS, "integral_rows", "integral", INT, 1, 1048576, NULL,
    "rows / (compute units x 4), twice that with integral_lookback", "rows per strip (band of the one-pass kernel)")
CLIK_TUNE_KEY(INTEGRAL_LOOKBACK, "integral_lookback", "integral", FLAG, 0, 1, NULL,
    "0", "one pass over the work-group kernels' bands: an atomic ticket orders them, each adds the earlier bands' published sums (decoupled look-back); only on GPUs whose started work-groups keep running (not Mali, Adreno), never with a loop budget (llvmpipe) nor for f32 sums without doubles; slower than the three kernels on an NVIDIA H200")
CLIK_TUNE_KEY(INTEGRAL_FP64, "integral_fp64", "integral", FLAG, 0, 1, NULL,
    "devices with cl_khr_fp64", "f64 sums in device doubles; 0: from integer (u8) or float-float (f32) sums, as on devices without doubles")
CLIK_TUNE_KEY(RESIZE_CPU, "resize_cpu", "resize", FLAG, 0, 1, NULL,
    "CPU devices", "the CPU-device row kernels")
CLIK_TUNE_KEY(RESIZE_UP2, "resize_up2", "resize", FLAG, 0, 1, NULL,
    "1", "with resize_cpu and resize_period2=0, the integer row kernel for u8 bilinear by exactly 2")
CLIK_TUNE_KEY(RESIZE_PERIOD2, "resize_period2", "resize", FLAG, 0, 1, NULL,
    "1", "with resize_cpu, the row kernel for bilinear and bicubic by exactly 2: weights of period 2, a pair of outputs per set of source loads")
CLIK_TUNE_KEY(RESIZE_FAST_NEAREST, "resize_fast_nearest", "resize", FLAG, 0, 1, NULL,
    "1", "integer-scale nearest writes whole blocks")
CLIK_TUNE_KEY(RESIZE_P2_BLOCK, "resize_p2_block", "resize", FLAG, 0, 1, NULL,
    "1", "without resize_cpu, the block kernel for bilinear and bicubic by exactly 2: 16 elements of two output rows per work-item, constant weights")
CLIK_TUNE_KEY(RESIZE_LOCAL, "resize_local", "resize", FLAG, 0, 1, NULL,
    "GPUs with on-chip local memory, bicubic", "the local-memory tiled bicubic")
CLIK_TUNE_KEY(RESIZE_TILE_W, "resize_tile_w", "resize", INT, 1, 256, NULL,
    "16", "tile width of the local-memory bicubic")
CLIK_TUNE_KEY(RESIZE_TILE_H, "resize_tile_h", "resize", INT, 1, 256, NULL,
    "16", "tile height of the local-memory bicubic")
CLIK_TUNE_KEY(RESIZE_WG_X, "resize_wg_x", "resize", INT, 1, 1024, NULL,
    "256", "work-group width of the generic resize kernels")
CLIK_TUNE_KEY(RESIZE_WG_Y, "resize_wg_y", "resize", INT, 1, 1024, NULL,
    "1", "work-group height of the generic resize kernels")
CLIK_TUNE_KEY(RESIZE_BAND_ROWS, "resize_band_rows", "resize", INT, 1, 1048576, NULL,
    "rows / (compute units x 4), at most 64 for resize_period2", "output rows per work-item of the CPU row kernels")
CLIK_TUNE_KEY(BLUR_CPU, "blur_cpu", "filter", FLAG, 0, 1, NULL,
    "CPU devices", "the CPU-device band kernel")
CLIK_TUNE_KEY(BLUR_LOCAL, "blur_local", "filter", FLAG, 0, 1, NULL,
    "GPUs with local memory", "row and column tiles with halos in local memory")
CLIK_TUNE_KEY(BLUR_BLOCK, "blur_block", "filter", FLAG, 0, 1, NULL,
    "GPUs, grey images of 1024 x 32 pixels a compute unit or more", "blurs of at most 9 taps: both passes in registers, 16 elements of two output rows per work-item (not in place: there another kernel runs)")
CLIK_TUNE_KEY(BLUR_FUSED, "blur_fused", "filter", FLAG, 0, 1, NULL,
    "GPUs with local memory", "both passes in one kernel, the row pass's output in local memory (not in place: there the two passes run)")
CLIK_TUNE_KEY(BLUR_FUSED_W, "blur_fused_w", "filter", INT, 1, 1024, NULL,
    "32", "work-group width of the fused kernel")
CLIK_TUNE_KEY(BLUR_FUSED_H, "blur_fused_h", "filter", INT, 1, 1024, NULL,
    "8", "work-group height of the fused kernel")
CLIK_TUNE_KEY(BLUR_FUSED_ROWS, "blur_fused_rows", "filter", INT, 1, 64, NULL,
    "4", "output rows per work-item of the fused kernel (halved until the tiles fit the local memory)")
CLIK_TUNE_KEY(BLUR_ROW_W, "blur_row_w", "filter", INT, 1, 1024, NULL,
    "256", "row tile width")
CLIK_TUNE_KEY(BLUR_COL_W, "blur_col_w", "filter", INT, 1, 1024, NULL,
    "8", "column tile width")
CLIK_TUNE_KEY(BLUR_COL_H, "blur_col_h", "filter", INT, 1, 1024, NULL,
    "32", "column tile height")
CLIK_TUNE_KEY(BLUR_BAND_ROWS, "blur_band_rows", "filter", INT, 1, 1048576, NULL,
    "rows / (compute units x 4), at least 2 x ksize", "rows per work-item of the CPU band kernel")
CLIK_TUNE_KEY(GRAY_ROWS, "gray_rows", "filter", FLAG, 0, 1, NULL,
    "CPU devices", "bands of rows per work-item")
CLIK_TUNE_KEY(GRAY_BAND_ROWS, "gray_band_rows", "filter", INT, 1, 1048576, NULL,
    "rows / (compute units x 4)", "rows per work-item of the band kernel")
CLIK_TUNE_KEY(SSIM_VARIANT, "ssim_variant", "ssim", CHOICE, 0, 2, "local|direct|rows",
    "rows on CPU devices, local with local memory, else direct", "SSIM kernel: blocks in local memory, registers only, the CPU row kernel")
CLIK_TUNE_KEY(SSIM_TILE_W, "ssim_tile_w", "ssim", INT, 1, 64, NULL,
    "16", "local block width (rounded down to a power of two)")
CLIK_TUNE_KEY(SSIM_TILE_H, "ssim_tile_h", "ssim", INT, 1, 64, NULL,
    "16", "local block height (rounded down to a power of two)")
CLIK_TUNE_KEY(SSIM_DIRECT_ROWS, "ssim_direct_rows", "ssim", INT, 1, 16, NULL,
    "4", "output rows per work-item of the register kernel")
CLIK_TUNE_KEY(SSIM_ROWS_WIDTH, "ssim_rows_width", "ssim", CHOICE, 0, 1, "8|16",
    "16", "outputs per work-item of the row kernel")
CLIK_TUNE_KEY(SSIM_BAND_ROWS, "ssim_band_rows", "ssim", INT, 1, 1048576, NULL,
    "64", "rows per work-item of the row kernel")
CLIK_TUNE_KEY(SSIM_TILES_VARIANT, "ssim_tiles_variant", "ssim", CHOICE, 0, 1, "group|item",
    "group on GPUs with local memory", "tile SSIM: work-group reduction or one tile per work-item")
CLIK_TUNE_KEY(SSIM_TILES_GROUP, "ssim_tiles_group", "ssim", INT, 1, 1024, NULL,
    "256 / tile rows", "tiles per work-group of the reduction kernel")
CLIK_TUNE_KEY(FUSION_CPU, "fusion_cpu", "fusion", FLAG, 0, 1, NULL,
    "CPU devices", "the fusion's row-per-work-item kernels")
CLIK_TUNE_KEY(LAPAR_VARIANT, "lapar_variant", "lapar", CHOICE, 0, 2, "upsampled|local|direct",
    "the stored tuning, else upsampled on CPU devices, local with local memory, else direct", "LAPAR filter kernel: U written once then the row kernel, U from a local-memory tile of the input, or U from global memory")
CLIK_TUNE_KEY(LAPAR_UP_ROWS, "lapar_up_rows", "lapar", FLAG, 0, 1, NULL,
    "CPU devices", "the LAPAR upsample into planes in two passes by rows (the source's horizontal sums once a row)")
CLIK_TUNE_KEY(LAPAR_WG_X, "lapar_wg_x", "lapar", INT, 1, 1024, NULL,
    "the stored tuning, else 64 on CPU devices, else 16", "work-group width of the LAPAR filter (shrunk to what the device takes)")
CLIK_TUNE_KEY(LAPAR_WG_Y, "lapar_wg_y", "lapar", INT, 1, 1024, NULL,
    "the stored tuning, else 1 on CPU devices, else 8", "work-group height of the LAPAR filter (shrunk to what the device takes)")
CLIK_TUNE_KEY(LMODEL_LOCAL, "lmodel_local", "lapar_model", FLAG, 0, 1, NULL,
    "GPUs with local memory", "the LAPAR model's filter reads U from a local-memory tile")
CLIK_TUNE_KEY(LMODEL_ROWS, "lmodel_rows", "lapar_model", FLAG, 0, 1, NULL,
    "CPU devices", "the LAPAR model's upscale by a row a work-item, 16 pixels a step, U and the structure tensor as planes")
CLIK_TUNE_KEY(LNET_LOCAL, "lnet_local", "lapar_net", FLAG, 0, 1, NULL,
    "0 (on an NVIDIA H100 the caches beat the tiles: 26.7 against 16.1 ms for LAPAR-A x2 at 640x360)", "the LAPAR network's convolutions read their input from a local-memory tile")
CLIK_TUNE_KEY(LNET_VW, "lnet_vw", "lapar_net", CHOICE, 0, 4, "1|2|4|8|16",
    "16 on CPU devices (PoCL, 2 AVX-512 cores, LAPAR-A x2 at 320x180: 651 against 860 ms with 8), else 1", "pixels per work-item of the LAPAR network's convolutions (vectors along a row; 1 with lnet_local)")
CLIK_TUNE_KEY(LNET_COB, "lnet_cob", "lapar_net", CHOICE, 0, 4, "1|2|4|8|16",
    "8 on CPU devices, else 4", "output channels per work-item of the LAPAR network's convolutions (at most: the most that divides the layer's)")
CLIK_TUNE_KEY(LNET_RY, "lnet_ry", "lapar_net", CHOICE, 0, 3, "1|2|4|8",
    "1 on CPU devices, else 8", "rows per work-item of the LAPAR network's convolutions (each weight and input row loaded once for them)")
CLIK_TUNE_KEY(LNET_WINO, "lnet_wino", "lapar_net", FLAG, 0, 1, NULL,
    "CPU devices with 64 KiB of local memory or more (PoCL, 2 AVX-512 cores, LAPAR-A x2 at 320x180: 402 against 651 ms direct)", "the LAPAR network's 3x3 convolutions (but the pixel-shuffled one) by Winograd's F(2x2, 3x3), a strip of lnet_vw tiles (4 to 16) per work-item, where the strip's transformed input fits the device's local memory")
CLIK_TUNE_KEY(LNET_TILE, "lnet_tile", "lapar_net", INT, 0, 1048576, NULL,
    "0: the whole image while its activations fit the device's largest allocation and three quarters of its memory, else the largest square tile that does", "side of the square input tiles the LAPAR network runs on, each with its receptive field's halo; the output is the same bytes as the whole image's (0: automatic)")
CLIK_TUNE_KEY(WARP_ROWS, "warp_rows", "flow", FLAG, 0, 1, NULL,
    "CPU devices", "clik_flow_warp by a row a work-item, 16 pixels a step")
CLIK_TUNE_KEY(FLOW_BLOCK, "flow_block", "flow", CHOICE, 0, 4, "0|1|2|5|10",
    "2 on GPUs with local memory, else 0", "TV-L1 iterations per launch on levels past flow_iterate's, on tiles with a halo of as many pixels in local memory (flow_block); 0: a U and a P launch per iteration")
CLIK_TUNE_KEY(FLOW_BLOCK_WG, "flow_block_wg", "flow", CHOICE, 0, 5, "32x16|16x16|32x8|32x32|64x16|8x8",
    "32x16", "work-group of flow_block: its tile and halo, a pixel per work-item (shrunk to the device's limits)")
CLIK_TUNE_KEY(YUV_ROWS, "yuv_rows", "yuv", FLAG, 0, 1, NULL,
    "1", "the vector kernels of the YUV conversions, 16 pixels a step with 16-byte accesses (yuv_row_steps steps of a block row, or whole rows in bands of yuv_band_rows, per work-item); 0: a work-item per 2 x 2 block")
CLIK_TUNE_KEY(YUV_ROW_STEPS, "yuv_row_steps", "yuv", INT, 0, 65536, NULL,
    "0 on CPU devices, else 1", "16-pixel steps of one block row per work-item of the vector kernels (yuv_rows); 0: whole rows, in bands of yuv_band_rows")
CLIK_TUNE_KEY(YUV_BAND_ROWS, "yuv_band_rows", "yuv", INT, 1, 1048576, NULL,
    "block rows / (compute units x 4)", "2 x 2 block rows (pixel row pairs) per work-item of the CPU-device kernels")
CLIK_TUNE_KEY(POOL_BUFFERS, "pool_buffers", "*", INT, 0, 64, NULL,
    "6", "temporary device buffers kept for reuse")
CLIK_TUNE_KEY(POISON, "poison", "*", FLAG, 0, 1, NULL,
    "0", "fill scratch buffers and new device images with garbage, to catch reads of unwritten memory")
CLIK_TUNE_KEY(HOST_TRANSFER, "host_transfer", "*", CHOICE, 0, 3, "auto|wrap|direct|staged",
    "auto", "how host images reach kernels: wrapped in place (auto on CPU devices), copied to a device buffer by the driver (auto elsewhere: on an NVIDIA H200 faster than staging), or through pinned staging buffers in bands (`staged`, also for clik_image_upload and clik_image_download of packed device images; it also makes context images pinned rather than zero-copy on unified-memory devices)")
CLIK_TUNE_KEY(STAGING_KIB, "staging_kib", "*", INT, 4, 1048576, NULL,
    "1024", "size of each of the two pinned staging buffers (KiB, at least one row); transfers go in bands of this size")
/* clang-format on */

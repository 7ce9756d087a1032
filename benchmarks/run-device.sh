#!/bin/bash
# One pass on a machine with a GPU: build, every test, clik conformance,
# clik-bench and the OpenCV comparison on each OpenCL device, logs into
# the folder given (default ./device-run). Used for the NVIDIA figures in
# the README; needs meson, ninja, Check, libpng, libjpeg, python3 with cv2.
# Usage: run-device.sh [OUT] [PHASE...]; phases: build tests conformance
# bench bench_upscale compare compare_upscale flow lapar lapar_net large (default:
# all of them, in that order). lapar_net needs the build configured with
# -Dlapar_weights (CLIK_LAPAR_GOLDEN: the golden folder). bench_upscale and compare_upscale time the resize,
# blur, SSIM and fusion ops; flow and lapar the TV-L1 and LAPAR families,
# kernel by kernel, and flow beside OpenCV's DualTVL1 (CPU and T-API). Each phase fits in a few minutes, so a machine with a time
# limit per command can run them one call at a time.
set -uo pipefail
out=${1:-device-run}
shift || true
phases=${*:-build tests conformance bench bench_upscale compare compare_upscale flow lapar}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
build=${CLIK_BUILD_DIR:-build-device}
bench="$build/benchmarks/clik-bench"
export CLIK_CACHE_DIR="$PWD/$build/kernel-cache"
log() { printf '\n=== %s ===\n' "$*"; }

phase_build() {
    uname -a; nproc; nvidia-smi -L 2>/dev/null; clinfo -l 2>/dev/null
    [ -d "$build" ] || meson setup "$build" --buildtype=release | tail -n 12
    meson compile -C "$build" >/dev/null && echo built || return 1
    "$build/apps/clik" devices
}

phase_tests() {
    meson test -C "$build" --print-errorlogs --num-processes 4 2>&1 | tail -24
    cp "$build/meson-logs/testlog.txt" "$out/testlog.txt" 2>/dev/null
}

phase_conformance() {
    # OpenCV agreement on the GPU, PoCL and the CPU paths (scalar, NEON)
    for run in "nvidia opencl,scalar,neon" "pocl opencl"; do
        set -- $run
        CLIK_PY_DEVICE=$1 CLIK_PY_BACKEND=$2 PYTHONPATH="$build/python" python3 python/run_tests.py \
            python/tests/test_agreement.py 2>&1 | tee -a "$out/opencv.log" | tail -3
    done
    "$build/apps/clik" conformance --junit "$out/conformance.xml" 2>&1 \
        | tee "$out/conformance-full.log" | grep -E "^[0-9]|^cpu|PASS|FAIL|runs" | tail -80
}

phase_bench() {
    local ops="--op hist_compute --op hist_lut-shared --op hist_equalize --op pyr_down --op pyr_gaussian --op pyr_up"
    ops="$ops --op integral --op integral-sq"
    for dev in nvidia pocl; do
        for ch in 1 4; do
            "$bench" $ops --size 1920x1080 --size 3840x2160 --device "$dev" --channels "$ch" \
                --reps 50 --json
            "$bench" $ops --size 3840x2160 --device "$dev" --channels "$ch" --reps 50 --resident \
                --json
        done
    done 2>&1 | tee "$out/bench.jsonl" | cut -c1-200
    for t in integral_ls=64 integral_ls=128 integral_ls=512 integral_ls=1024 integral_rows=4 \
        integral_rows=8 integral_rows=16 integral_rows=32 pyr_local=0 pyr_local=1; do
        CLIK_TUNE=$t "$bench" --op pyr_down --op pyr_gaussian --op integral --size 3840x2160 \
            --device nvidia --reps 50 --resident --json | sed "s/^{/{\"tuning\":\"$t\",/"
    done 2>&1 | tee "$out/bench-tuning.jsonl" | cut -c1-200
}

# Resize (x2), blur, SSIM, fusion and the fusion stream. The issue's targets
# are read from these rows: fusion 1920x1080 RGBA x2 kernel-only frames/s
# (--resident) and fusion-stream end-to-end frames/s, resize-nearest x2
# copy%.
phase_bench_upscale() {
    local grey="--op resize-nearest-x2 --op resize-bilinear-x2 --op resize-bicubic-x2 --op gaussian_blur-k7 --op ssim"
    local rgba="--op resize-nearest-x2 --op resize-bilinear-x2 --op resize-bicubic-x2 --op gaussian_blur-k7"
    for dev in nvidia pocl; do
        local reps=50
        [ "$dev" = pocl ] && reps=10
        "$bench" $grey --size 1920x1080 --size 3840x2160 --device "$dev" --channels 1 \
            --reps "$reps" --json
        "$bench" $rgba --op upscale_fusion --op fusion_stream_submit --size 1920x1080 --device "$dev" \
            --channels 4 --frames 24 --reps "$reps" --json
        "$bench" $rgba --op upscale_fusion --size 1920x1080 --device "$dev" --channels 4 \
            --reps "$reps" --resident --json
    done 2>&1 | tee "$out/bench-upscale.jsonl" | cut -c1-200
    # Fusion by scale (Martinez and Toro's 1280x720 input) and stream depth.
    for s in 2 3 4; do
        "$bench" --op upscale_fusion --size 1280x720 --scale "$s" --device nvidia --channels 4 \
            --reps 50 --resident --json
    done 2>&1 | tee "$out/bench-fusion-scales.jsonl" | cut -c1-200
    for d in 1 2 3 4 6; do
        "$bench" --op fusion_stream_submit --size 1920x1080 --depth "$d" --frames 24 --device nvidia \
            --channels 4 --reps 20 --json
    done 2>&1 | tee "$out/bench-fusion-depth.jsonl" | cut -c1-200
}

phase_compare() {
    python3 benchmarks/compare_opencv.py --bench "$bench" --device nvidia --size 1920x1080 \
        --size 3840x2160 --reps 50 --markdown --json "$out/compare-nvidia.json" \
        --plot "$out/compare-nvidia.png" 2>"$out/compare-nvidia.err" | tee "$out/compare-nvidia.md"
    python3 benchmarks/compare_opencv.py --bench "$bench" --device pocl --size 3840x2160 \
        --reps 30 --markdown --json "$out/compare-pocl.json" 2>"$out/compare-pocl.err" \
        | tee "$out/compare-pocl.md"
}

# The same comparison for the resize, blur, SSIM and fusion rows: grey (SSIM
# among them) and RGBA (fusion among them), scale 2.
phase_compare_upscale() {
    local ops="--op resize-nearest-x2 --op resize-bilinear-x2 --op resize-bicubic-x2 --op gaussian_blur-k7"
    python3 benchmarks/compare_opencv.py --bench "$bench" --device nvidia --size 1920x1080 \
        --size 3840x2160 --reps 50 $ops --op ssim --markdown \
        --json "$out/compare-upscale-nvidia-c1.json" 2>"$out/compare-upscale-nvidia-c1.err" \
        | tee "$out/compare-upscale-nvidia-c1.md"
    python3 benchmarks/compare_opencv.py --bench "$bench" --device nvidia --size 1920x1080 \
        --channels 4 --reps 50 $ops --op upscale_fusion --op fusion_stream_submit --markdown \
        --json "$out/compare-upscale-nvidia-c4.json" --plot "$out/compare-upscale-nvidia-c4.png" \
        2>"$out/compare-upscale-nvidia-c4.err" | tee "$out/compare-upscale-nvidia-c4.md"
    python3 benchmarks/compare_opencv.py --bench "$bench" --device pocl --size 1920x1080 \
        --channels 4 --reps 10 $ops --op upscale_fusion --op fusion_stream_submit --markdown \
        --json "$out/compare-upscale-pocl-c4.json" 2>"$out/compare-upscale-pocl-c4.err" \
        | tee "$out/compare-upscale-pocl-c4.md"
}

# TV-L1: Romera et al.'s configuration (section III-A) at 2048x2048 and the defaults at 640x480,
# f32 and f16 storage, kernels only (--resident) with each kernel's time
# (the U and P steps' GB/s against the copy bandwidth); then OpenCV's
# DualTVL1 with matched parameters on the CPU and through the T-API.
phase_flow() {
    "$bench" --op flow_tvl1-1warp --op flow_tvl1-1warp-f16 --size 2048x2048 --device nvidia --resident \
        --kernels --reps 20 --json 2>&1 | tee "$out/bench-flow.jsonl" | cut -c1-300
    "$bench" --op flow_tvl1 --op flow_tvl1-f16 --size 640x480 --size 2048x2048 --device nvidia --resident \
        --kernels --reps 5 --json 2>&1 | tee -a "$out/bench-flow.jsonl" | cut -c1-300
    python3 benchmarks/compare_opencv.py --bench "$bench" --python "$build/python" \
        --device nvidia --op flow_tvl1-1warp --op flow_tvl1 --markdown --json "$out/compare-flow-nvidia.json" \
        2>"$out/compare-flow-nvidia.err" | tee "$out/compare-flow-nvidia.md"
}

# LAPAR: 640x360 x4 (the 360x640 of the issue's target), L = 72 in f32 and
# f16, and compressed dictionaries (half the atoms; 7, alpha = 0.1), the
# filter kernel's GB/s against the copy bandwidth.
phase_lapar() {
    for dev in nvidia pocl; do
        "$bench" --op lapar_filter --op lapar_filter-f16 --op lapar_filter-a50 --op lapar_filter-a10 --size 640x360 \
            --scale 4 --device "$dev" --channels 1 --resident --kernels \
            --reps 20 --json
        "$bench" --op lapar_filter --op lapar_filter-a10 --size 640x360 --scale 2 --device "$dev" \
            --channels 4 --resident --kernels --reps 20 --json
    done 2>&1 | tee "$out/bench-lapar.jsonl" | cut -c1-300
}

# The LAPAR networks: the suite and the golden outputs on the GPU, then
# every network at Zhao et al. 2021's Table I sizes (64x64, 128x128, 320x180,
# 640x360 in, x2 and x4), resident, kernel by kernel; then the work-group
# shapes of LAPAR-A x2 at 640x360.
phase_lapar_net() {
    CLIK_TEST_BACKEND=opencl CLIK_TEST_DEVICE=nvidia "$build/tests/test_lapar_net" 2>&1 | tail -12
    CLIK_STRICT=1 CLIK_DEVICE=nvidia python3 tests/lapar_net_golden.py "$build/apps/clik" \
        "${CLIK_LAPAR_GOLDEN:-../shared/lapar-a/golden}" 2>&1 | tail -14
    # checked against the NEON path at two sizes (minutes each at the larger ones)
    "$bench" --op lapar_net_run-a --size 128x128 --scale 4 --device nvidia --channels 4 --resident \
        --reps 3 --json 2>&1 | cut -c1-300
    "$bench" --op lapar_net_run-a --size 320x180 --scale 2 --device nvidia --channels 4 --resident \
        --reps 3 --json 2>&1 | cut -c1-300
    for net in a b c; do
        for s in 2 4; do
            "$bench" --op lapar_net_run-$net --size 64x64 --size 128x128 --size 320x180 --size 640x360 \
                --scale $s --device nvidia --channels 4 --resident --kernels --reps 10 --json \
                --no-check
        done
    done 2>&1 | tee "$out/bench-lapar-net.jsonl" | cut -c1-300
    for t in lnet_local=0,lnet_ry=1 lnet_local=0,lnet_ry=4 lnet_local=0,lnet_ry=8 \
        lnet_local=1,lnet_ry=1 lnet_local=1,lnet_ry=2 lnet_local=1,lnet_ry=4 lnet_local=1,lnet_ry=8 \
        lnet_local=1,lnet_ry=4,lnet_cob=16 lnet_local=0,lnet_ry=4,lnet_cob=16; do
        CLIK_TUNE=$t "$bench" --op lapar_net_run-a --size 640x360 --scale 2 --device nvidia \
            --channels 4 --resident --kernels --reps 10 --json --no-check |
            sed "s/^{/{\"tuning\":\"$t\",/"
    done 2>&1 | tee "$out/bench-lapar-net-tuning.jsonl" | cut -c1-300
}

# Every family past 2^31 elements on the GPU (tests/test_large.c, one at a
# time), then the LAPAR filter's 4K x2 resident run that once faulted there
# (phi of 72 x 7680 x 4320 floats).
phase_large() {
    CLIK_TEST_DEVICE=${CLIK_TEST_DEVICE:-NVIDIA} meson test -C "$build" --setup large \
        --print-errorlogs \
        $(for f in hist pyramid resize filter integral ssim fusion lapar lapar_model lapar_net flow; do
            printf 'large-%s-opencl ' "$f"
        done) 2>&1 | tail -40
    cp "$build/meson-logs/testlog-large.txt" "$out/testlog-large.txt" 2>/dev/null
    "$bench" --op lapar_filter --size 3840x2160 --scale 2 --device nvidia --channels 1 --resident \
        --reps 3 --json 2>&1 | cut -c1-300
}

for p in $phases; do
    log "$p"
    "phase_$p" 2>&1 | tee "$out/$p.log"
done
exit 0

#!/bin/bash
# One pass on a machine with a GPU: build, every test, clik conformance,
# clik-bench and the OpenCV comparison on each OpenCL device, logs into
# the folder given (default ./device-run). Used for the NVIDIA figures in
# the README; needs meson, ninja, Check, libpng, libjpeg, python3 with cv2.
# Usage: run-device.sh [OUT] [PHASE...]; phases: build tests conformance
# bench compare (default: all of them, in that order). Each phase fits in
# a few minutes, so a machine with a time limit per command can run them
# one call at a time.
set -uo pipefail
out=${1:-device-run}
shift || true
phases=${*:-build tests conformance bench compare}
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
    python3 tests/opencv_agreement.py "$build/apps/clik" nvidia pocl none 2>&1 \
        | tee "$out/opencv.log" | tail -3
    "$build/apps/clik" conformance --junit "$out/conformance.xml" 2>&1 \
        | tee "$out/conformance-full.log" | grep -E "^[0-9]|^cpu|PASS|FAIL|runs" | tail -80
}

phase_bench() {
    local ops="--op hist --op lut --op equalize --op pyrdown --op pyramid --op pyrup"
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
        CLIK_TUNE=$t "$bench" --op pyrdown --op pyramid --op integral --size 3840x2160 \
            --device nvidia --reps 50 --resident --json | sed "s/^{/{\"tuning\":\"$t\",/"
    done 2>&1 | tee "$out/bench-tuning.jsonl" | cut -c1-200
}

phase_compare() {
    python3 benchmarks/compare_opencv.py --bench "$bench" --device nvidia --size 1920x1080 \
        --size 3840x2160 --reps 50 --markdown --json "$out/compare-nvidia.json" \
        --plot "$out/compare-nvidia.png" 2>"$out/compare-nvidia.err" | tee "$out/compare-nvidia.md"
    python3 benchmarks/compare_opencv.py --bench "$bench" --device pocl --size 3840x2160 \
        --reps 30 --markdown --json "$out/compare-pocl.json" 2>"$out/compare-pocl.err" \
        | tee "$out/compare-pocl.md"
}

for p in $phases; do
    log "$p"
    "phase_$p" 2>&1 | tee "$out/$p.log"
done
exit 0

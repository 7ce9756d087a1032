#!/bin/bash
# One pass on a machine with a GPU: build, every test, clik conformance,
# clik-bench and the OpenCV comparison on each OpenCL device, logs into
# the folder given (default ./device-run). Used for the NVIDIA figures in
# the README; needs meson, ninja, Check, libpng, libjpeg, python3 with cv2.
set -uo pipefail
out=${1:-device-run}
mkdir -p "$out"
cd "$(dirname "$0")/.."
build=${CLIK_BUILD_DIR:-/tmp/clik-device-build}
log() { printf '\n=== %s ===\n' "$*"; }
{
    log "machine"
    uname -a; nproc; nvidia-smi -L 2>/dev/null; clinfo -l 2>/dev/null
    log "build"
    meson setup "$build" --buildtype=release | tail -n 12 && meson compile -C "$build" >/dev/null \
        && echo built || exit 1
    "$build/apps/clik" devices
} 2>&1 | tee "$out/setup.log"

export CLIK_CACHE_DIR="$build/kernel-cache"
log "tests"
meson test -C "$build" --print-errorlogs --num-processes 4 2>&1 | tee "$out/tests.log" | tail -20
cp "$build/meson-logs/testlog.txt" "$out/testlog.txt" 2>/dev/null

log "equalize against cv2.equalizeHist on every device"
python3 tests/opencv_equalize.py "$build/apps/clik" nvidia pocl none 2>&1 | tee "$out/opencv.log" | tail -3

log "conformance"
"$build/apps/clik" conformance --junit "$out/conformance.xml" 2>&1 | tee "$out/conformance.log" \
    | grep -E "^[0-9]|^cpu|PASS|FAIL|runs" | tail -40

log "benchmarks"
bench="$build/benchmarks/clik-bench"
for dev in nvidia pocl; do
    for ch in 1 4; do
        "$bench" --op hist --op lut --op equalize --size 1920x1080 --size 3840x2160 --device "$dev" \
            --channels "$ch" --reps 50 --json
        "$bench" --op hist --op lut --op equalize --size 3840x2160 --device "$dev" --channels "$ch" \
            --reps 50 --resident --json
    done
done 2>&1 | tee "$out/bench.jsonl" | cut -c1-220
for t in hist_groups=132 hist_groups=264 hist_groups=528 hist_groups=1056 hist_groups=2112 \
    hist_merge=0 hist_mode=global; do
    CLIK_TUNE=$t "$bench" --op hist --op equalize --size 3840x2160 --device nvidia --reps 50 --json \
        | sed "s/^{/{\"tuning\":\"$t\",/"
done 2>&1 | tee "$out/bench-tuning.jsonl" | cut -c1-220

log "OpenCV comparison"
python3 benchmarks/compare_opencv.py --bench "$bench" --device nvidia --size 1920x1080 \
    --size 3840x2160 --reps 50 --markdown --json "$out/compare-nvidia.json" \
    --plot "$out/compare-nvidia.png" 2>&1 | tee "$out/compare-nvidia.md"
python3 benchmarks/compare_opencv.py --bench "$bench" --device pocl --size 3840x2160 --reps 30 \
    --markdown --json "$out/compare-pocl.json" 2>&1 | tee "$out/compare-pocl.md"
exit 0

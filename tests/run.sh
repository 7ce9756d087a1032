#!/bin/bash
# Builds clik and runs every test on every backend this machine offers:
#   default   PoCL, the scalar path, NEON through SIMDe, the host library,
#             image I/O, the tool, API misuse, the tuning registry, fuzz
#             corpora, OpenCV agreement, and the README's C example built
#             against the installed library;
#   large     with --full: each family past 2^31 elements (PoCL, scalar,
#             NEON), where the machine's memory holds it;
#   mobile    PoCL with mobile-like limits (64 work-items, 32 KiB local
#             memory) and the local-memory kernels: the operation suites
#             (every OpenCL suite with --full);
#   rusticl   Mesa's rusticl on llvmpipe: an independent compiler, no fp64
#             (the operation suites; every OpenCL suite and conformance
#             with --full);
#   oclgrind  small sizes, the device's own kernels (every variant with
#             --full); any race, out-of-bounds access or API misuse fails;
#   valgrind  the image I/O, host-library and CPU suites (the NEON suites,
#             which run the oracle too; the scalar ones with --full);
#   sanitize  clang with AddressSanitizer and UBSan: CPU (the NEON suites,
#             which run the oracle too; the scalar ones with --full), I/O,
#             host, tool, misuse and fuzz-corpus suites, then each fuzzer
#             for 2000 runs (50000 with --full);
#   aarch64   NEON cross-built for AArch64 and run under qemu-aarch64 (up
#             to 641 x 479, one pattern, the NEON suites, which run the
#             oracle too; every pattern and the scalar suites with --full);
# and the source format. A backend that is absent is reported SKIP.
#
#   tests/run.sh           the CI run
#   CLIK_STEPS="oclgrind valgrind" tests/run.sh   only those steps (keys:
#                          format build default large install mobile rusticl
#                          oclgrind valgrind sanitize aarch64)
#   tests/run.sh --full    also the full-size sweeps: every tuning variant at
#                          every size and pattern, each key's extremes at
#                          every size, and full conformance runs on PoCL and
#                          rusticl (run it before closing work on kernels)
#
# The table at the end gives each step's and each suite's seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
case "${1:-}" in
--full) full=1 ;;
"") ;;
*)
    echo "usage: tests/run.sh [--full]" >&2
    exit 2
    ;;
esac
native=${CLIK_BUILD_DIR:-build-test}
cross=${CLIK_CROSS_BUILD_DIR:-build-aarch64}
asan=${CLIK_ASAN_BUILD_DIR:-build-asan}
fuzz_runs=${CLIK_FUZZ_RUNS:-2000}
[ "$full" = 1 ] && export CLIK_TEST_FULL=1 && fuzz_runs=${CLIK_FUZZ_RUNS:-50000}
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
start=$(date +%s)

# A step: its key, its name, then the command. Its seconds and outcome go
# to the table. CLIK_STEPS="key ..." runs only those steps (for a rerun of
# the later steps on a build that the earlier ones made).
step() {
    local key=$1 name=$2 t0 rc=0
    shift 2
    if [ -n "${CLIK_STEPS:-}" ] && [[ " $CLIK_STEPS " != *" $key "* ]]; then
        return 0
    fi
    printf '\n=== %s (%ds) ===\n' "$name" $(($(date +%s) - start))
    t0=$(date +%s)
    "$@" || rc=$?
    printf 'step\t%s\t%d\t%s\n' "$name" $(($(date +%s) - t0)) "$([ $rc -eq 0 ] && echo ok || echo FAILED)" >>"$timing"
    if [ $rc -ne 0 ]; then
        report
        exit $rc
    fi
}

# meson test, then each test's seconds from its log into the table.
mtest() {
    local dir=$1 label=$2 log rc=0
    shift 2
    meson test -C "$dir" --print-errorlogs "$@" || rc=$?
    log=$dir/meson-logs/testlog.json
    for a in "$@"; do
        case $a in --setup=*) log=$dir/meson-logs/testlog-${a#--setup=}.json ;; esac
    done
    local prev=""
    for a in "$@"; do
        [ "$prev" = --setup ] && log=$dir/meson-logs/testlog-$a.json
        prev=$a
    done
    [ -f "$log" ] && python3 - "$log" "$label" >>"$timing" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    print("suite\t%s: %s\t%.0f\t%s" % (sys.argv[2], t["name"], t["duration"], t["result"]))
PY
    return $rc
}

report() {
    python3 - "$timing" $(($(date +%s) - start)) <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
total = int(sys.argv[2])
print("\n%-58s %8s  %s" % ("step", "seconds", "result"))
for kind, name, secs, res in rows:
    if kind == "step":
        print("%-58s %8s  %s" % (name, secs, res))
print("%-58s %8d" % ("total", total))
suites = sorted((r for r in rows if r[0] == "suite"), key=lambda r: -float(r[2]))
print("\n%-58s %8s  %s" % ("suite (slowest first)", "seconds", "result"))
for kind, name, secs, res in suites[:40]:
    print("%-58s %8s  %s" % (name, secs, res))
PY
}

format_check() {
    local files
    files=$(git ls-files '*.c' '*.h' '*.cl' 2>/dev/null ||
        find lib kernels fallback_cpu apps tests benchmarks -name '*.[ch]' -o -name '*.cl')
    clang-format --dry-run --Werror $files
}

native_build() {
    if [ -d "$native" ]; then meson setup --reconfigure "$native" -Dwerror=true >/dev/null
    else meson setup "$native" --buildtype=debugoptimized -Dwerror=true >/dev/null; fi
    meson compile -C "$native"
}

install_and_example() {
    local dest pc libdir
    # The README shows tests/api_example.c whole.
    python3 - <<'PY' || return 1
import sys
r = open("README.md").read()
b = r.index("```c\n", r.index("## The C API")) + 5
if r[b:r.index("```\n", b)] != open("tests/api_example.c").read():
    sys.exit("README.md's C example is not tests/api_example.c")
PY
    case $native in
    /*) dest="$native/install-test" ;;
    *) dest="$PWD/$native/install-test" ;;
    esac
    rm -rf "$dest"
    DESTDIR="$dest" meson install -C "$native" --quiet
    pc=$(dirname "$(find "$dest" -name clik.pc | head -n 1)")
    libdir=$(dirname "$(find "$dest" -name libclik.so | head -n 1)")
    PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$pc" \
        cc -std=c11 -Wall -Wextra -Werror tests/api_example.c \
        $(PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs clik) \
        -Wl,-rpath,"$libdir" -o "$native/api-example"
    # Its own cache folder: the example runs as a user would, from nothing.
    CLIK_CACHE_DIR="$native/api-example-cache" "$native/api-example"
    CLIK_DEVICE=none "$native/api-example" && python_install
}

# pip builds and installs the package (meson-python from PyPI, the library
# linked in) into a virtual environment that sees Debian's NumPy and OpenCV;
# the README's Python example then runs as written, on the build's photograph,
# and the package lists PoCL.
python_install() {
    python3 - <<'PY' || return 1
import sys
r = open("README.md").read()
b = r.index("```python\n") + 10
if r[b:r.index("```\n", b)] != open("tests/api_example.py").read():
    sys.exit("README.md's Python example is not tests/api_example.py")
PY
    # Debian's Python (the one meson builds the package for), where there is one.
    local py=python3 env="$dest/venv" cache out
    cache="$(cd "$native" && pwd)/test-cache"
    [ -x /usr/bin/python3 ] && py=/usr/bin/python3
    if ! "$py" -c "import venv, ensurepip, cv2" 2>/dev/null; then
        echo "SKIP: the Python package's install check needs python3-venv and python3-opencv"
        return 0
    fi
    "$py" -m venv --system-site-packages "$env" || return 1
    "$env/bin/python" -m pip install --quiet --disable-pip-version-check . || return 1
    # The example reads the photograph and its moved frame from build/apps.
    mkdir -p "$dest/build" && ln -sfn "$(cd "$native/apps" && pwd)" "$dest/build/apps" || return 1
    (
        cd "$dest" || exit 1
        CLIK_CACHE_DIR="$cache/clik" POCL_CACHE_DIR="$cache/pocl" \
            "$env/bin/python" "$OLDPWD/tests/api_example.py" &&
            test -s build/photo-x2.png
    ) || return 1
    # Installed under its distribution name (PyPI's `clik` is another project).
    "$env/bin/python" -m pip show --quiet --disable-pip-version-check clik-opencl >/dev/null ||
        { echo "the package is not installed as clik-opencl"; return 1; }
    out=$(cd "$dest" && "$env/bin/python" -m clik) || return 1
    if ! pocl_present; then
        echo "no PoCL here: python -m clik gave $out"
    elif [[ $out != *"Portable Computing Language"* ]]; then
        echo "python -m clik does not list PoCL: $out"
        return 1
    fi
}

pocl_present() {
    "$native/apps/clik" devices 2>/dev/null | grep -q "Portable Computing Language"
}

rusticl() {
    if ! RUSTICL_ENABLE=llvmpipe "$native/apps/clik" devices 2>/dev/null | grep -q llvmpipe; then
        echo "SKIP: no rusticl llvmpipe device (Debian's mesa-opencl-icd)"
        return 0
    fi
    # The device's own kernels in every OpenCL suite (the forced variants
    # run on PoCL, mobile PoCL and Oclgrind; all of them here with --full),
    # and conformance with and without local memory. Each tuning key's
    # extremes (a program build per value: 10 minutes on llvmpipe) run on
    # PoCL in CI, here too with --full.
    # In CI the operation suites (every family's cases, edges and precision
    # on the device's own kernels); with --full also the host, tool, Python
    # and golden suites and the conformance tool (the same case tables).
    # Sizes up to 641 x 479 (llvmpipe's compiler is the point here; the
    # megapixel sizes run on PoCL and mobile PoCL, and here with --full).
    if [ "$full" != 1 ]; then
        RUSTICL_ENABLE=llvmpipe CLIK_TEST_DEVICE=llvmpipe CLIK_TEST_TUNINGS=default \
            CLIK_TEST_MAX_PIXELS=310000 mtest "$native" rusticl --suite opencl-ops
        return
    fi
    RUSTICL_ENABLE=llvmpipe CLIK_TEST_DEVICE=llvmpipe CLIK_PY_DEVICE=llvmpipe CLIK_TEST_TUNINGS=all \
        mtest "$native" rusticl --suite opencl &&
        RUSTICL_ENABLE=llvmpipe CLIK_CACHE_DIR="$native/test-cache/clik" \
            "$native/apps/clik" conformance --device llvmpipe
}

# PoCL with a mobile GPU's limits: the operation suites (every family's
# kernels, whose work-group sizes and local-memory tiles the limits change);
# with --full every OpenCL suite (the host, cache, misuse, Python and tool
# suites run the same kernels through other doors).
mobile_step() {
    if [ "$full" = 1 ]; then
        mtest "$native" mobile --setup mobile --suite opencl --no-suite tuning-sweep --no-suite golden
        return
    fi
    mtest "$native" mobile --setup mobile --suite opencl-ops
}

# Oclgrind simulates every work-item: the device's own kernels (local
# memory, work-group kernels: Oclgrind is a GPU) at small sizes in CI, every
# forced variant with --full.
oclgrind_step() {
    if [ "$full" = 1 ]; then
        CLIK_TEST_TUNINGS=all mtest "$native" oclgrind --setup oclgrind --suite opencl-ops
        return
    fi
    # TV-L1 and LAPAR run hundreds of iterations or 72-term sums per pixel:
    # simulated, each takes longer than the rest of the step together, so
    # they run under Oclgrind with --full (and on every other backend here);
    # the yuv suite runs the LAPAR upsampling kernel of its upscale.
    # The yuv suite three times: Oclgrind is a GPU (the vector kernels a
    # 16-pixel step a work-item by default), then the block kernels forced
    # (yuv_rows=0), then the CPU-device bands of whole rows (bands of 3
    # block rows that end inside the frame).
    # The filter suite again with blur_block forced (a GPU's default for
    # large grey images only, larger than the suite's).
    # Fusion (its kernels, then the resize, SSIM and blur ones, whose own
    # suites run here) with --full.
    CLIK_TEST_TUNINGS=default mtest "$native" oclgrind --setup oclgrind \
        hist-opencl integral-opencl pyramid-opencl resize-opencl filter-opencl ssim-opencl \
        yuv-opencl import-opencl &&
        CLIK_TUNE=yuv_rows=0 CLIK_TEST_TUNINGS=default \
            mtest "$native" oclgrind-yuv-blocks --setup oclgrind yuv-opencl &&
        CLIK_TUNE=yuv_row_steps=0,yuv_band_rows=3 CLIK_TEST_TUNINGS=default \
            mtest "$native" oclgrind-yuv-rows --setup oclgrind yuv-opencl &&
        CLIK_TUNE=blur_block=1 CLIK_TEST_TUNINGS=default \
            mtest "$native" oclgrind-blur-block --setup oclgrind filter-opencl
}

# Memcheck over the CPU suites. Where the build has the NEON path, its
# suites run the scalar oracle on every input they check, under memcheck
# too: the scalar suites (suite oracle: the oracle against itself, and its
# hand-worked cases, which the default and sanitize steps run) stay out
# but with --full.
valgrind_step() {
    local skip=()
    if [ "$full" != 1 ] && CLIK_OPENCL_LIBRARY=none "$native/apps/clik" devices 2>/dev/null |
        grep -q "CPU paths: scalar, neon"; then
        skip=(--no-suite oracle)
    fi
    mtest "$native" valgrind --setup valgrind --suite memcheck "${skip[@]}"
}

# Each family past 2^31 elements (tests/test_large.c): tens of gigabytes
# and minutes on two cores, one test at a time; with --full.
large_step() {
    if [ "$full" != 1 ]; then
        echo "SKIP: the sizes past 2^31 elements run with --full"
        return 0
    fi
    mtest "$native" large --setup large --suite large
}

sanitize() {
    if ! command -v clang >/dev/null; then
        echo "SKIP: clang not found; the sanitizer build needs it"
        return 0
    fi
    # The fuzzers' build: clang, ASan and UBSan, coverage for libFuzzer.
    CLIK_FUZZ_BUILD_DIR=$asan tests/fuzz/run.sh --runs 0 >/dev/null
    # PoCL and the ICD loader leak at exit and LLVM's JIT trips ASan's
    # checks: the OpenCL suites stay out (see README, Tests).
    # Sizes up to 641 x 479 (every vector tail and strip is reached there;
    # the default step runs every size unsanitized).
    # The scalar suites (suite oracle) with --full: the NEON suites run the
    # oracle on every input they check, sanitized too, and the default step
    # runs the oracle's hand-worked cases.
    local skip=(--no-suite oracle)
    [ "$full" = 1 ] && skip=()
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        CLIK_OPENCL_LIBRARY=none CLIK_TEST_MAX_PIXELS=310000 mtest "$asan" asan \
        --suite cpu --suite io --suite host --suite cli --suite misuse --suite fuzz \
        --no-suite opencl --no-suite golden "${skip[@]}" &&
        CLIK_FUZZ_BUILD_DIR=$asan tests/fuzz/run.sh --runs "$fuzz_runs"
}

aarch64() {
    if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null ||
        ! dpkg -s libpng-dev:arm64 check:arm64 >/dev/null 2>&1; then
        echo "SKIP: no AArch64 cross toolchain and libraries (.ci/install-deps --cross)"
        return 0
    fi
    if [ -d "$cross" ]; then meson setup --reconfigure "$cross" >/dev/null
    else meson setup "$cross" --cross-file .ci/aarch64-linux-gnu.ini -Dwerror=true >/dev/null; fi
    meson compile -C "$cross"
    # Some qemu-user builds hang in the first pthread_create of a guest (a
    # four-line program shows it): there the suites run the CPU path on one
    # thread and say so; the pool is tested on the native build.
    local probe=$cross/thread-probe
    printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; if (pthread_create(&t, 0, f, 0)) return 1; return pthread_join(t, 0); }\n' |
        aarch64-linux-gnu-gcc -x c -pthread -o "$probe" - &&
        if ! timeout 20 qemu-aarch64 -L /usr/aarch64-linux-gnu "$probe"; then
            echo "NOTE: qemu-aarch64 cannot start a thread here: the AArch64 suites run on one thread"
            export CLIK_THREADS=1 CLIK_TEST_NO_THREADS="qemu-aarch64 cannot start a thread"
        fi
    # Under qemu the native NEON code runs at sizes up to 641 x 479, where
    # every vector tail and strip is reached (SIMDe runs every size and
    # pattern in the default step), on one pattern (noise, which reaches
    # both ends of the range), every pattern with --full.
    # The scalar suites (the oracle against itself and its hand-worked
    # cases) with --full: the NEON suites run the oracle on every input.
    local patterns=1 skip=(--no-suite oracle)
    [ "$full" = 1 ] && patterns= && skip=()
    CLIK_TEST_MAX_PIXELS=310000 CLIK_TEST_PATTERNS=$patterns mtest "$cross" aarch64 "${skip[@]}"
}

step format "format (clang-format)" format_check
step build "native build" native_build
step default "PoCL, scalar, NEON (SIMDe), host, I/O, tool, misuse, tuning, fuzz corpora, OpenCV" \
    mtest "$native" default
step large "sizes past 2^31 elements on PoCL, scalar and NEON (with --full)" large_step
step install "meson install + the C example; pip install + the Python example" \
    install_and_example
step mobile "PoCL with mobile limits (64 work-items, 32 KiB local memory)" mobile_step
step rusticl "rusticl on llvmpipe (the operation suites; every OpenCL suite and conformance with --full)" rusticl
step oclgrind "Oclgrind (small sizes, the device's own kernels; every variant with --full)" \
    oclgrind_step
step valgrind "valgrind: image I/O, host library, CPU paths" valgrind_step
step sanitize "AddressSanitizer + UBSan, and $fuzz_runs runs of each fuzzer" sanitize
step aarch64 "AArch64 cross build, NEON under qemu-aarch64" aarch64
report

#!/bin/bash
# Builds the libFuzzer harnesses with clang, AddressSanitizer and UBSan, and
# runs each on a copy of its seed corpus.
#
#   tests/fuzz/run.sh [SECONDS | --runs N] [NAME...]
#
# SECONDS (default 60) or N executions per harness; NAMEs pick harnesses
# (default: every one tests/fuzz/meson.build lists). The build lives in
# $CLIK_FUZZ_BUILD_DIR (default: build-fuzz at the top of the repository),
# and each harness works in BUILD/fuzz-work/NAME/: corpus/ starts as a copy of
# tests/fuzz/corpus/NAME/ and keeps what the fuzzer adds, across runs; the
# committed corpus is never written. A crashing, leaking or timing-out input
# is saved under BUILD/fuzz-work/NAME/ and its path printed; the script then
# exits non-zero. Without clang or libFuzzer it prints SKIP and exits 0.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${CLIK_FUZZ_BUILD_DIR:-$top/build-fuzz}

mode=(-max_total_time=60)
if [[ $# -gt 0 && $1 == --runs ]]; then
    [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || { echo "run.sh: --runs takes a count" >&2; exit 2; }
    mode=(-runs="$2")
    shift 2
elif [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    mode=(-max_total_time="$1")
    shift
fi

names=("$@")

if ! command -v clang > /dev/null; then
    echo "SKIP: clang not found; the libFuzzer harnesses need clang"
    exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe/probe.c"
if ! clang -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" 2> /dev/null; then
    echo "SKIP: $(command -v clang) cannot build libFuzzer programs (-fsanitize=fuzzer)"
    exit 0
fi

# Every object of the build gets libFuzzer's coverage instrumentation, so
# that the fuzzer sees inside the parsers and not only the harnesses.
if [[ ! -f $build/build.ninja ]]; then
    CC=clang meson setup "$build" --buildtype=debugoptimized \
        -Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=false \
        -Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined' \
        -Dc_link_args='-fsanitize=fuzzer-no-link'
fi
# The harnesses are the libFuzzer programs tests/fuzz/meson.build defines
# (the build files are brought up to date first).
ninja -C "$build" build.ninja > /dev/null
mapfile -t known < <(meson introspect --targets "$build" |
    grep -o '"name": "fuzz-[A-Za-z0-9_]*"' | sed 's/.*"fuzz-//; s/"$//' | sort -u)
[[ ${#known[@]} -gt 0 ]] || { echo "run.sh: $build defines no libFuzzer programs" >&2; exit 1; }
if [[ ${#names[@]} -eq 0 ]]; then
    names=("${known[@]}")
fi
targets=()
for name in "${names[@]}"; do
    [[ " ${known[*]} " == *" $name "* ]] ||
        { echo "run.sh: no harness '$name' (known: ${known[*]})" >&2; exit 2; }
    targets+=("fuzz-$name")
done
meson compile -C "$build" "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=()
for name in "${names[@]}"; do
    work=$build/fuzz-work/$name
    mkdir -p "$work/corpus"
    cp -n "$here/corpus/$name"/* "$work/corpus/" 2> /dev/null || true
    echo "== fuzz-$name: ${mode[*]}, corpus $work/corpus"
    # -rss_limit_mb: the readers may allocate an image of up to 1 GiB.
    status=0
    "$build/tests/fuzz/fuzz-$name" "${mode[@]}" -timeout=30 -rss_limit_mb=3072 \
        -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" > "$work/last.log" 2>&1 ||
        status=$?
    grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::new_units_added)' \
        "$work/last.log" || true
    if [[ $status -ne 0 ]]; then
        failed+=("$name")
        echo "fuzz-$name FAILED (status $status):"
        grep -E '^(==[0-9]+==ERROR|SUMMARY)|Test unit written to' "$work/last.log" || true
        echo "  log: $work/last.log"
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzzing found problems in: ${failed[*]}"
    exit 1
fi
echo "fuzzing passed: ${names[*]}"

#!/bin/bash
# Builds clik and runs every test on every backend this machine offers:
# PoCL; PoCL with mobile-like limits; Oclgrind (small sizes, any race,
# out-of-bounds or uninitialised access fails); the scalar path; NEON
# through SIMDe; NEON cross-built for AArch64 and run under qemu-aarch64;
# the I/O, host-library and CPU tests under valgrind; OpenCV agreement;
# and the source format. A backend that is absent is reported SKIP.
set -euo pipefail
cd "$(dirname "$0")/.."
native=${CLIK_BUILD_DIR:-build-test}
cross=${CLIK_CROSS_BUILD_DIR:-build-aarch64}
start=$(date +%s)
step() { printf '\n=== %s (%ds) ===\n' "$*" $(($(date +%s) - start)); }
summary=()
record() { summary+=("$1: $2"); }

step "format (clang-format)"
files=$(git ls-files '*.c' '*.h' '*.cl' 2>/dev/null || find lib kernels fallback_cpu apps tests benchmarks -name '*.[ch]' -o -name '*.cl')
clang-format --dry-run --Werror $files
record format ok

step "native build"
if [ -d "$native" ]; then meson setup --reconfigure "$native" -Dwerror=true >/dev/null
else meson setup "$native" --buildtype=debugoptimized -Dwerror=true >/dev/null; fi
meson compile -C "$native"

step "PoCL, scalar, NEON (SIMDe), host library, OpenCV agreement"
meson test -C "$native" --print-errorlogs
record "default" ok

step "meson install, and the README's C example built against it with pkg-config"
case $native in
/*) dest="$native/install-test" ;;
*) dest="$PWD/$native/install-test" ;;
esac
rm -rf "$dest"
DESTDIR="$dest" meson install -C "$native" --quiet
pc=$(dirname "$(find "$dest" -name clik.pc | head -n 1)")
export PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$pc"
libdir=$(dirname "$(find "$dest" -name libclik.so | head -n 1)")
cc -std=c11 -Wall -Wextra -Werror tests/api_example.c $(pkg-config --cflags --libs clik) \
    -Wl,-rpath,"$libdir" -o "$native/api-example"
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
"$native/api-example"
CLIK_DEVICE=none "$native/api-example"
record install ok

step "PoCL with mobile limits (64 work-items, 32 KiB local memory, local-memory kernels)"
meson test -C "$native" --setup mobile --suite opencl --print-errorlogs
record mobile ok

step "Oclgrind (small sizes)"
meson test -C "$native" --setup oclgrind --suite opencl-ops --print-errorlogs
record oclgrind ok

step "valgrind: image I/O, host library, CPU paths"
meson test -C "$native" --setup valgrind --suite memcheck --print-errorlogs
record valgrind ok

step "AArch64 cross build, NEON under qemu-aarch64"
if [ -d "$cross" ]; then meson setup --reconfigure "$cross" >/dev/null
else meson setup "$cross" --cross-file .ci/aarch64-linux-gnu.ini -Dwerror=true >/dev/null; fi
meson compile -C "$cross"
meson test -C "$cross" --print-errorlogs
record aarch64 ok

step "done"
printf '%s\n' "${summary[@]}"

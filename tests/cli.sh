#!/bin/bash
# The clik tool's behaviour at its edges: exit statuses (0 ok, 1 failure,
# 2 usage), a message on stderr for every failure, and no output file left
# behind when a command fails. Usage: cli.sh CLIK_BINARY SAMPLE.png
set -u
clik=$1
sample=$2
# An emulator for the tool, if one is needed (e.g. qemu-aarch64 -L ...).
run=${CLIK_EXE_WRAPPER:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect STATUS DESCRIPTION -- COMMAND...: checks the exit status, that a
# failure printed something on stderr, and that $tmp/out.* does not exist
# after a failure.
expect() {
    local want=$1 what=$2
    shift 3
    rm -f "$tmp"/out.*
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    local got=$?
    local bad=""
    [ "$got" -eq "$want" ] || bad="exit $got, expected $want"
    if [ "$want" -ne 0 ] && [ ! -s "$tmp/stderr" ]; then bad="$bad; no message on stderr"; fi
    if [ "$want" -ne 0 ] && ls "$tmp"/out.* >/dev/null 2>&1; then bad="$bad; left an output file"; fi
    if [ -n "$bad" ]; then
        echo "FAIL $what: $bad"
        sed 's/^/    /' "$tmp/stderr" | head -5
        failures=$((failures + 1))
    else
        echo "ok   $what"
    fi
}

printf 'not an image' >"$tmp/text.png"
head -c 300 "$sample" >"$tmp/truncated.png"
: >"$tmp/empty.pgm"
mkdir "$tmp/dir.png"

expect 0 "equalize a PNG" -- $run "$clik" equalize "$sample" "$tmp/out.png"
expect 0 "equalize on the CPU path" -- $run "$clik" equalize "$sample" "$tmp/out.pgm" --device none
expect 0 "hist as CSV" -- $run "$clik" hist "$sample" --csv
expect 0 "lut --invert" -- $run "$clik" lut "$sample" "$tmp/out.jpg" --invert
expect 0 "devices" -- $run "$clik" devices
expect 0 "help" -- $run "$clik" --help
expect 0 "subcommand help" -- $run "$clik" equalize --help
expect 2 "no command" -- $run "$clik"
expect 2 "unknown command" -- $run "$clik" frobnicate
expect 2 "missing argument" -- $run "$clik" equalize "$sample"
expect 2 "unknown option" -- $run "$clik" hist "$sample" --bogus
expect 2 "option without value" -- $run "$clik" hist "$sample" --device
expect 2 "lut without a table" -- $run "$clik" lut "$sample" "$tmp/out.png"
expect 2 "lut with a bad gamma" -- $run "$clik" lut "$sample" "$tmp/out.png" --gamma -1
expect 1 "missing input" -- $run "$clik" equalize "$tmp/missing.png" "$tmp/out.png"
expect 1 "text named .png" -- $run "$clik" equalize "$tmp/text.png" "$tmp/out.png"
expect 1 "truncated PNG" -- $run "$clik" hist "$tmp/truncated.png"
expect 1 "empty PGM" -- $run "$clik" hist "$tmp/empty.pgm"
expect 1 "a directory" -- $run "$clik" hist "$tmp/dir.png"
expect 1 "unknown output extension" -- $run "$clik" equalize "$sample" "$tmp/out.xyz"
expect 1 "output folder missing" -- $run "$clik" equalize "$sample" "$tmp/nowhere/out.png"
expect 1 "malformed device" -- $run "$clik" equalize "$sample" "$tmp/out.png" --device 1:x
expect 1 "device that does not exist" -- $run "$clik" equalize "$sample" "$tmp/out.png" --device 99:99
expect 0 "pyramid of 3 levels" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels 3
expect 0 "pyramid on the CPU path, as .npy" -- $run "$clik" pyramid "$sample" "$tmp/out.%02d.npy" --levels 2 --device none
expect 0 "pyrup" -- $run "$clik" pyrup "$sample" "$tmp/out.png"
expect 0 "laplacian as .npy" -- $run "$clik" laplacian "$sample" "$tmp/out.%d.npy" --levels 2
expect 0 "laplacian for viewing" -- $run "$clik" laplacian "$sample" "$tmp/out.%d.png" --levels 1 --device none
expect 0 "integral with squares" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/out.sq.npy" --sqtype u64
expect 0 "integral as f64" -- $run "$clik" integral "$sample" "$tmp/out.npy" --type f64 --device none
expect 2 "pyramid without --levels" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png"
expect 2 "pyramid --levels 0" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels 0
expect 2 "pyramid --levels text" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels two
expect 2 "pyramid name without %d" -- $run "$clik" pyramid "$sample" "$tmp/out.png" --levels 2
expect 2 "pyramid name with two %d" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.%d.png" --levels 2
expect 2 "pyramid name with %s" -- $run "$clik" pyramid "$sample" "$tmp/out.%s%d.png" --levels 2
expect 1 "pyramid of more levels than the size allows" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels 30
expect 1 "pyramid into a missing folder" -- $run "$clik" pyramid "$sample" "$tmp/nowhere/out.%d.png" --levels 2
expect 1 "pyramid to an unknown extension" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.xyz" --levels 2
expect 1 "laplacian of more levels than the size allows" -- $run "$clik" laplacian "$sample" "$tmp/out.%d.npy" --levels 30
expect 1 "pyrup of a missing file" -- $run "$clik" pyrup "$tmp/missing.png" "$tmp/out.png"
expect 2 "integral --type u16" -- $run "$clik" integral "$sample" "$tmp/out.npy" --type u16
expect 2 "integral --sqtype u32" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/out.sq.npy" --sqtype u32
expect 2 "integral sums and squares to one file" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/out.npy"
expect 1 "integral as PNG (u32 has no PNG form)" -- $run "$clik" integral "$sample" "$tmp/out.png"
expect 1 "integral squares into a missing folder (sums removed)" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/nowhere/out.sq.npy"
# 4200 x 4100 pixels: 255 * W * H passes 2^32 - 1, so u32 sums are refused.
{ printf 'P5\n4200 4100\n255\n'; head -c $((4200 * 4100)) /dev/zero; } >"$tmp/big.pgm"
expect 1 "integral u32 of an image that can overflow" -- $run "$clik" integral "$tmp/big.pgm" "$tmp/out.npy" --device none
grep -q "u64" "$tmp/stderr" || { echo "FAIL overflow message does not name u64"; failures=$((failures + 1)); }
expect 0 "integral u64 of the same image" -- $run "$clik" integral "$tmp/big.pgm" "$tmp/out.npy" --type u64 --device none
rm -f "$tmp/big.pgm"
expect 2 "conformance of an unknown op" -- $run "$clik" conformance --op nothing --device none
echo "$failures failure(s)"
[ "$failures" -eq 0 ]

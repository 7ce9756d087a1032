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
expect 2 "conformance of an unknown op" -- $run "$clik" conformance --op nothing --device none
echo "$failures failure(s)"
[ "$failures" -eq 0 ]

# Sourced by the clik tool's test scripts (cli.sh, conformance.sh) after
# `set -u`: $run, an emulator for the tool if one is needed (e.g.
# qemu-aarch64 -L ...); $tmp, a scratch folder removed on exit; and the
# count of failed checks, with the lines that report each check.
run=${CLIK_EXE_WRAPPER:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

# fail WHAT...: a check failed.
fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}

# ok WHAT...: a check passed.
ok() {
    echo "ok   $*"
}

# expect STATUS DESCRIPTION -- COMMAND...: checks the exit status, that a
# failure printed something on stderr (the command's output is left in
# $tmp/stdout and $tmp/stderr), and that $tmp/out.* does not exist after a
# failure.
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
        fail "$what: $bad"
        sed 's/^/    /' "$tmp/stderr" | head -5
    else
        ok "$what"
    fi
}

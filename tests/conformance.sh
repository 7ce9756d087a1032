#!/bin/bash
# clik conformance's own options: --list, --op (names, commas, repeats,
# globs), --jobs, the streamed table (in order whatever the jobs, flushed
# row by row), --junit and --report-dir, and "unsupported" results.
# Usage: conformance.sh CLIK_BINARY cpu|opencl
#   cpu     the options and a run on the CPU paths (always possible)
#   opencl  unsupported results on the first OpenCL device (exit 77 without one)
set -u
clik=$1
mode=$2
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# The operations --list prints, one per line, in order.
listed_ops() {
    sed -n '/^operations/,/^backends/p' "$1" | sed '1,2d;$d' | awk '{print $1}'
}

# The table's rows without their seconds column (the ninth field when the
# backend's label is one word, as on the CPU paths).
rows_without_time() {
    awk 'NF >= 10 && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ {$9 = ""; print}' "$1"
}

cpu_checks() {
    expect 0 "--list" -- $run "$clik" conformance --list
    cp "$tmp/stdout" "$tmp/all.txt"
    local total
    total=$(listed_ops "$tmp/all.txt" | wc -l)
    if [ "$total" -lt 10 ] || ! grep -q "^operations ($total):" "$tmp/all.txt"; then
        fail "--list: $total operations listed"
    fi
    grep -q '^  scalar ' "$tmp/all.txt" || fail "--list: no scalar backend"
    grep -q 'runs:' "$tmp/all.txt" && fail "--list ran something"

    expect 0 "--list --op with a glob" -- $run "$clik" conformance --list --device none --op 'resize-*'
    listed_ops "$tmp/stdout" >"$tmp/glob.txt"
    listed_ops "$tmp/all.txt" | grep '^resize-' >"$tmp/want.txt"
    if [ ! -s "$tmp/want.txt" ] || ! cmp -s "$tmp/glob.txt" "$tmp/want.txt"; then
        fail "--op 'resize-*' selected: $(tr '\n' ' ' <"$tmp/glob.txt")"
    fi

    expect 0 "--op with commas and repeats" -- \
        $run "$clik" conformance --list --device none --op pyr_up-f32,hist_compute --op 'pyr_up*' --op hist_compute
    listed_ops "$tmp/stdout" | tr '\n' ' ' >"$tmp/sel.txt"
    [ "$(cat "$tmp/sel.txt")" = "hist_compute pyr_up pyr_up-odd pyr_up-f32 " ] ||
        fail "--op selected '$(cat "$tmp/sel.txt")', expected the case table's order, once each"

    expect 2 "--op with an unknown name" -- $run "$clik" conformance --op hist_compute,bogus
    grep -q 'known operations:.* hist_compute ' "$tmp/stderr" || fail "--op bogus: the known names are not listed"
    expect 2 "--op with an old name" -- $run "$clik" conformance --list --op pyrdown
    grep -q "'pyrdown' is named 'pyr_down' now" "$tmp/stderr" || fail "--op pyrdown: the new name is not given"
    expect 2 "--op with a glob that matches nothing" -- $run "$clik" conformance --op 'nothing-*'
    expect 2 "--op with an empty name" -- $run "$clik" conformance --op 'hist_compute,'
    expect 2 "--op without a value" -- $run "$clik" conformance --op
    expect 2 "--jobs 0" -- $run "$clik" conformance --jobs 0 --op hist_compute
    expect 2 "--jobs not a number" -- $run "$clik" conformance --jobs many --op hist_compute
    expect 2 "--jobs too many" -- $run "$clik" conformance --jobs 100000 --op hist_compute
    # The value of another option is never taken for --op.
    expect 1 "--junit into a missing folder" -- \
        $run "$clik" conformance --device none --quick --op hist_lut --junit "$tmp/no/such/--op"

    local ops=hist_lut-shared,gray,pyr_down
    expect 0 "a CPU run with 3 jobs" -- $run "$clik" conformance --device none --quick --op $ops \
        --jobs 3 --junit "$tmp/run.xml" --report-dir "$tmp/reports"
    cp "$tmp/stdout" "$tmp/jobs3.txt"
    expect 0 "the same run with 1 job" -- $run "$clik" conformance --device none --quick --op $ops \
        --jobs 1
    cp "$tmp/stdout" "$tmp/jobs1.txt"
    rows_without_time "$tmp/jobs3.txt" >"$tmp/rows3.txt"
    rows_without_time "$tmp/jobs1.txt" >"$tmp/rows1.txt"
    local backends
    backends=$($run "$clik" conformance --list --device none | sed -n '/^backends/,$p' | sed 1d | wc -l)
    [ "$(wc -l <"$tmp/rows3.txt")" -eq $((3 * backends)) ] ||
        fail "3 jobs: $(wc -l <"$tmp/rows3.txt") rows, expected $((3 * backends))"
    cmp -s "$tmp/rows1.txt" "$tmp/rows3.txt" || fail "rows differ between 1 and 3 jobs"
    [ "$(awk '{print $1}' "$tmp/rows3.txt" | uniq | tr '\n' ' ')" = "hist_lut-shared pyr_down gray " ] ||
        fail "rows are not in the case table's order"
    grep -q ' PASS$' "$tmp/rows3.txt" && ! grep -q 'FAIL' "$tmp/rows3.txt" ||
        fail "the CPU run did not pass"
    # The scalar path is the oracle's own: compared bit for bit, and said so.
    awk '$3 == "scalar" {n++; if ($2 != "EXACT") bad = 1} END {exit bad || !n}' "$tmp/rows3.txt" &&
        grep -q '^  scalar .*bit for bit' "$tmp/jobs3.txt" ||
        fail "the scalar rows are not EXACT or not explained as the oracle's own path"
    grep -q '^time: ' "$tmp/jobs3.txt" || fail "no total time"
    grep -q '^oracle ' "$tmp/jobs3.txt" || fail "no oracle time"
    [ -s "$tmp/reports/cpu-scalar.txt" ] || fail "--report-dir: no cpu-scalar.txt"
    ls "$tmp/reports" | grep -q 'tmp' && fail "--report-dir: a temporary file is left"
    local runs
    runs=$(awk '{s += $4} END {print s}' "$tmp/rows3.txt")
    grep -q "<testsuites name=\"clik conformance\" tests=\"$runs\" failures=\"0\" skipped=\"0\">" \
        "$tmp/run.xml" || fail "--junit: totals are not $runs tests, none failed"
    [ "$(grep -c '<testcase ' "$tmp/run.xml")" -eq "$runs" ] || fail "--junit: not $runs test cases"
    if command -v python3 >/dev/null; then
        python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/run.xml" ||
            fail "--junit: not well-formed XML"
    fi

    # Rows are flushed as they are known: a run killed after its first
    # operation keeps that operation's rows.
    : >"$tmp/killed.txt"
    $run "$clik" conformance --device none --op hist_lut,upscale_fusion-x3 --jobs 1 >>"$tmp/killed.txt" 2>/dev/null &
    local pid=$! waited=0
    while [ $waited -lt 600 ] && ! grep -q '^hist_lut .*scalar' "$tmp/killed.txt"; do
        kill -0 $pid 2>/dev/null || break
        sleep 0.5
        waited=$((waited + 1))
    done
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    grep -q '^hist_lut .*scalar .* PASS$' "$tmp/killed.txt" && ok "rows survive a killed run" ||
        fail "a killed run lost its rows"
}

opencl_checks() {
    $run "$clik" conformance --list >"$tmp/all.txt" 2>&1 || {
        fail "--list"
        return
    }
    local dev
    dev=$(sed -n '/^backends/,$p' "$tmp/all.txt" | awk '$2 == "local" {print $1; exit}')
    if [ -z "$dev" ]; then
        echo "SKIP: no OpenCL device"
        exit 77
    fi
    # Too little local memory for the histograms of 2 and 4 channels: the
    # library says CLIK_ERR_DEVICE_LIMITS, which is neither a pass nor a failure.
    CLIK_TUNE=hist_mode=local,hist_local_bytes=1024 expect 0 "unsupported is not a failure" -- \
        $run "$clik" conformance --device "$dev" --quick --op hist_compute --junit "$tmp/unsup.xml"
    # hist_compute TOLERANCE P:D local runs passed failed unsup max|diff| seconds result
    awk -v d="$dev" '$1 == "hist_compute" && $3 == d && $4 == "local"' "$tmp/stdout" >"$tmp/row.txt"
    awk '$6 > 0 && $7 == 0 && $8 > 0 && $11 == "PASS" {found = 1} END {exit !found}' "$tmp/row.txt" ||
        fail "the local-memory row: '$(cat "$tmp/row.txt")', expected passes, unsupported, no failure"
    grep -q "^    unsupported ([1-9][0-9]* of [0-9]*), first .*: hist: .*local memory" "$tmp/stdout" ||
        fail "no unsupported line with the library's reason"
    grep -q ' [1-9][0-9]* failed' "$tmp/stdout" && fail "unsupported runs counted as failures"
    grep -q '<skipped message="unsupported: hist: ' "$tmp/unsup.xml" ||
        fail "--junit: unsupported runs are not skipped with their reason"
    grep -q '<failure' "$tmp/unsup.xml" && fail "--junit: unsupported runs marked as failures"
}

case "$mode" in
cpu) cpu_checks ;;
opencl) opencl_checks ;;
*)
    echo "usage: conformance.sh CLIK_BINARY cpu|opencl"
    exit 2
    ;;
esac
[ "$failures" -eq 0 ] || exit 1

#!/bin/bash
# Runs a test with Oclgrind as the OpenCL implementation (through
# CLIK_OPENCL_LIBRARY) and fails on any diagnostic Oclgrind logs: data
# races, out-of-bounds accesses, API misuse.
#
# Oclgrind 21.10's uninitialised-value plugin is not enabled: once device
# buffers are released and new ones created, it reports kernel-written data
# as uninitialised (results checked against the oracle stay exact, and the
# reports vanish when any one buffer size is never released). Uninitialised
# reads of device memory are caught instead by the suites' poison=1 runs,
# which fill scratch buffers and new images with garbage on every device.
rt=
for f in /usr/lib/oclgrind/liboclgrind-rt.so /usr/lib/x86_64-linux-gnu/liboclgrind-rt.so \
         /usr/local/lib/liboclgrind-rt.so; do
    [ -f "$f" ] && rt=$f && break
done
if [ -z "$rt" ]; then
    echo "SKIP: Oclgrind is not installed"
    exit 77
fi
log=$(mktemp) || exit 1
# Oclgrind reopens (and truncates) its log for every OpenCL context, so the
# log is a pipe held open here whose reader appends to the file.
exec 3> >(cat >>"$log")
reader=$!
CLIK_OPENCL_LIBRARY=$rt CLIK_DEVICE=oclgrind OCLGRIND_LOG=/dev/fd/3 OCLGRIND_CHECK_API=1 \
    OCLGRIND_DATA_RACES=1 "$@"
rc=$?
exec 3>&-
wait "$reader"
if [ -s "$log" ]; then
    echo "Oclgrind reported:"
    head -c 20000 "$log"
    [ "$rc" -eq 0 ] && rc=1
fi
rm -f "$log"
exit "$rc"

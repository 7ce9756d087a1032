#!/bin/sh
# Runs a test with Oclgrind as the OpenCL implementation (through
# CLIK_OPENCL_LIBRARY) and fails on any diagnostic Oclgrind logs: data
# races, out-of-bounds accesses, uninitialised reads, API misuse.
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
CLIK_OPENCL_LIBRARY=$rt CLIK_DEVICE=oclgrind OCLGRIND_LOG=$log OCLGRIND_CHECK_API=1 \
    OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1 "$@"
rc=$?
if [ -s "$log" ]; then
    echo "Oclgrind reported:"
    head -c 20000 "$log"
    [ "$rc" -eq 0 ] && rc=1
fi
rm -f "$log"
exit "$rc"

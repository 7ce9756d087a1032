#!/bin/sh
# The rate of `clik flow` along a frame sequence, end to end: PNG frames in
# the page cache are decoded on the host's threads, the flows computed on the
# device and written as .flo files; a first run (which also fills the kernel
# cache) measures them against the known motion. The frames: PHOTO resized
# to WxH, then each frame moved from the one before by clik-photo-motion's
# affine motion (its exact flow is the ground truth).
#
# usage: flow_sequence.sh CLIK PHOTO_MOTION PHOTO [WxH] [FRAMES] [clik flow options...]
#   e.g. benchmarks/flow_sequence.sh build-rel/apps/clik build-rel/apps/clik-photo-motion \
#        build-rel/apps/photo.jpg 1920x1080 17 --device gpu
# SPDX-License-Identifier: BSD-2-Clause
set -eu
if [ $# -lt 3 ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
clik=$1 motion=$2 photo=$3
size=${4:-1920x1080}
frames=${5:-17}
shift 3
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/clik-flow-seq.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$clik" resize "$photo" "$dir/f0.png" --size "$size" --device none
i=0
while [ $((i + 1)) -lt "$frames" ]; do
    "$motion" "$dir/f$i.png" "$dir/f$((i + 1)).png" "$dir/t$i.flo"
    i=$((i + 1))
done
cat "$dir"/f*.png >/dev/null # in the page cache
echo "clik flow, $((frames - 1)) pairs of $size PNG frames (options: ${*:-none})"
echo "with --gt (each flow read back against the truth: end-point and angular errors):"
"$clik" flow "$dir/f%d.png" "$dir/o%d.flo" --gt "$dir/t%d.flo" "$@" 2>&1 | grep '^clik flow: [0-9]* flows\|^mean' || true
echo "timed (the flows written, no --gt):"
"$clik" flow "$dir/f%d.png" "$dir/o%d.flo" "$@" 2>&1 | grep '^clik flow: [0-9]* flows' || true

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Host-to-host time against the transfer bound, from clik-bench JSON lines.

For each op of `clik-bench --json` output (host images, not --resident),
prints the end-to-end time beside its bound: the op's host transfer bytes
at the pinned bandwidth clik-bench measured in the same run (transfer_ms),
times the slack (default 1.25), plus the op's kernel time. An op is within
the target when end_to_end_ms <= slack * transfer_ms + kernel_ms.

Example:
    build/benchmarks/clik-bench --op all --size 3840x2160 --device gpu \\
        --host-alloc context --json > h2h.jsonl
    python3 benchmarks/transfer_target.py h2h.jsonl
"""

import argparse
import json
import sys


def rows_of(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                yield json.loads(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="clik-bench --json output")
    ap.add_argument("--slack", type=float, default=1.25,
                    help="factor on the transfer time (default 1.25)")
    args = ap.parse_args()
    print("| op | size | ch | host images | e2e ms | transfer ms (pinned) | kernel ms "
          "| bound ms | e2e / bound |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    within = total = 0
    for path in args.files:
        for r in rows_of(path):
            if r.get("resident") or r.get("transfer_ms") is None or r.get("kernel_ms") is None:
                continue
            bound = args.slack * r["transfer_ms"] + r["kernel_ms"]
            ratio = r["end_to_end_ms"] / bound
            total += 1
            within += ratio <= 1.0
            print(f"| {r['op']} | {r['size']} | {r['channels']} | {r.get('host_alloc', '-')} "
                  f"| {r['end_to_end_ms']:.3f} | {r['transfer_ms']:.3f} | {r['kernel_ms']:.3f} "
                  f"| {bound:.3f} | {ratio:.2f} |")
    if total:
        first = next(rows_of(args.files[0]))
        print(f"\n{within} of {total} within {args.slack:g} x transfer + kernel; pinned "
              f"bandwidth {first.get('h2d_gbps', 0):.1f} GB/s to the device, "
              f"{first.get('d2h_gbps', 0):.1f} GB/s back ({first.get('device', '?')})")
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main())

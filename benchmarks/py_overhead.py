#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Per-call overhead of the clik Python package over the C library.

The same calls as call-overhead (benchmarks/call_overhead.c) through the
package: equalize, pyr_down, gaussian_blur (ksize 3) and resize (nearest,
1x1 to 2x2) on a 1x1 uint8 image, and equalize on a 1920x1080 one for
scale, on the CPU path (device "none"), each with out= preallocated and
allocating its result. The target: at most 5000 ns per call above the C
function on the 1x1 images, CPU path. The same calls on an OpenCL device
(--opencl, default "pocl"; "" leaves them out) are shown for information.

Each figure is the median over --rounds rounds of the nanoseconds per call
of N calls in a row (the loop's own cost included, as in user code); the C
program and Python take turns, one round each (a machine whose speed
drifts then drifts for both). The C figures come from running the
call-overhead program given as the first argument.

Needs numpy and the clik package (--python: a build's python/ folder).
Example:
    PYTHONPATH=build/python /usr/bin/python3 benchmarks/py_overhead.py \\
        build/benchmarks/call-overhead
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

TARGET_NS = 5000

# (op, input (width, height), output (width, height), call with out=,
# allocating call): the order and sizes of call_overhead.c's ops.
OPS = [
    ("hist_equalize", (1, 1), (1, 1), "ctx.hist_equalize(src, out=out)", "ctx.hist_equalize(src)"),
    ("pyr_down", (1, 1), (1, 1), "ctx.pyr_down(src, out=out)", "ctx.pyr_down(src)"),
    ("gaussian_blur", (1, 1), (1, 1), "ctx.gaussian_blur(src, 3, out=out)",
     "ctx.gaussian_blur(src, 3)"),
    ("resize", (1, 1), (2, 2), "ctx.resize(src, (2, 2), method='nearest', out=out)",
     "ctx.resize(src, (2, 2), method='nearest')"),
    ("hist_equalize", (1920, 1080), (1920, 1080), "ctx.hist_equalize(src, out=out)",
     "ctx.hist_equalize(src)"),
]

LOOP = """
def loop(ctx, src, out, n, clock):
    t0 = clock()
    for _ in range(n):
        {call}
    return clock() - t0
"""


def fail(msg):
    print(f"py_overhead: {msg}", file=sys.stderr)
    sys.exit(1)


def make_loop(call):
    """A function that makes n calls of `call` in a row and returns the ns."""
    scope = {}
    exec(LOOP.format(call=call), scope)  # noqa: S102 - our own constant text
    return scope["loop"]


def c_round(program, device, calls, big_calls):
    """One round of the C program: {(op, size): ns per call}, and its JSON."""
    cmd = [program, "--device", device, "--rounds", "1", "--calls", str(calls),
           "--big-calls", str(big_calls)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    data = json.loads(proc.stdout)
    return {(r["op"], r["size"]): r["ns_per_call"] for r in data["ops"]}, data


class PyCase:
    """One op through the package: its images and both loops."""

    def __init__(self, np, ctx, op, size, out_size, with_out, allocating):
        rng = np.random.default_rng(12345)
        (w, h), (ow, oh) = size, out_size
        self.op, self.size = op, f"{w}x{h}"
        self.src = rng.integers(0, 256, (h, w), dtype=np.uint8)
        self.out = np.empty((oh, ow), np.uint8)
        self.calls = {"out=": with_out, "allocating": allocating}
        self.loops = {k: make_loop(c) for k, c in self.calls.items()}
        self.ctx = ctx
        for loop in self.loops.values():  # builds the kernels, checks the calls work
            loop(ctx, self.src, self.out, 1, time.perf_counter_ns)
        self.backend = ctx.last_backend

    def round(self, variant, n):
        return self.loops[variant](self.ctx, self.src, self.out, n, time.perf_counter_ns) / n


def measure(np, clik, program, device, calls, big_calls, rounds):
    """Rows of one device: C and Python per op and variant, the medians."""
    try:
        ctx = clik.Context(device)
    except clik.Error as e:
        return None, f"no clik context on '{device}': {e.status}: {e.message}"
    cases = [PyCase(np, ctx, *op) for op in OPS]
    c_ns = {}
    py_ns = {(c.op, c.size, v): [] for c in cases for v in c.calls}
    info = None
    for r in range(rounds):
        print(f"py_overhead: {device}: round {r + 1} of {rounds} ...", file=sys.stderr)
        figures, info = c_round(program, device, calls, big_calls)
        for key, ns in figures.items():
            c_ns.setdefault(key, []).append(ns)
        for case in cases:
            n = big_calls if case.size != "1x1" else calls
            for variant in case.calls:
                py_ns[(case.op, case.size, variant)].append(case.round(variant, n))
    ctx.close()
    rows = []
    for case in cases:
        c_med = statistics.median(c_ns[(case.op, case.size)])
        for variant, call in case.calls.items():
            py_med = statistics.median(py_ns[(case.op, case.size, variant)])
            target = device == "none" and case.size == "1x1"
            overhead = py_med - c_med
            rows.append({
                "op": case.op, "size": case.size, "device": device,
                "device_name": info["device_name"], "backend": case.backend,
                "variant": variant, "call": call,
                "calls": big_calls if case.size != "1x1" else calls,
                "c_ns": round(c_med, 1), "py_ns": round(py_med, 1),
                "overhead_ns": round(overhead, 1),
                "target_met": (overhead <= TARGET_NS) if target else None,
                "c_rounds_ns": c_ns[(case.op, case.size)],
                "py_rounds_ns": [round(v, 1) for v in py_ns[(case.op, case.size, variant)]],
            })
    return rows, None


def fmt_ns(v):
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"


def table(rows):
    lines = ["| op | size | device (backend) | Python call | C ns/call | Python ns/call | "
             f"overhead ns | ≤ {TARGET_NS} ns |",
             "|---|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        met = {True: "met", False: "**not met**", None: "(information)"}[r["target_met"]]
        lines.append(f"| {r['op']} | {r['size']} | {r['device']} ({r['backend']}) | "
                     f"`{r['call']}` | {fmt_ns(r['c_ns'])} | {fmt_ns(r['py_ns'])} | "
                     f"{fmt_ns(r['overhead_ns'])} | {met} |")
    return lines


def empty_loop_ns(n):
    """The cost of the timing loop itself per iteration (included in every
    Python figure, as in user code)."""
    loop = make_loop("pass")
    return statistics.median(loop(None, None, None, n, time.perf_counter_ns) / n
                             for _ in range(5))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program", help="the call-overhead program (benchmarks/call_overhead.c)")
    ap.add_argument("--python", metavar="DIR", default=None,
                    help="a build's python/ folder to import clik from (default: PYTHONPATH)")
    ap.add_argument("--calls", type=int, default=200000,
                    help="calls per round on the 1x1 images, CPU path (default 200000)")
    ap.add_argument("--big-calls", type=int, default=20,
                    help="calls per round on 1920x1080 (default 20)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds, medians over them (default 5)")
    ap.add_argument("--opencl", default="pocl", metavar="DEVICE",
                    help="device of the information rows (default pocl; '' for none)")
    ap.add_argument("--opencl-calls", type=int, default=2000,
                    help="calls per round on the 1x1 images on --opencl (default 2000)")
    ap.add_argument("--json", metavar="FILE", help="save the rows and the run's details")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when the target is not met")
    args = ap.parse_args()
    if min(args.calls, args.big_calls, args.rounds, args.opencl_calls) < 1:
        ap.error("--calls, --big-calls, --rounds and --opencl-calls must be at least 1")
    if not os.access(args.program, os.X_OK):
        fail(f"{args.program} is not an executable (build benchmarks/call_overhead.c)")
    if args.python:
        sys.path.insert(0, os.path.abspath(args.python))
    import numpy as np
    try:
        import clik
    except ImportError as e:
        fail(f"cannot import the clik package ({e}): pass --python with a build's python/ folder")

    load_start = os.getloadavg()[0]
    rows, notes = [], []
    runs = [("none", args.calls)] + ([(args.opencl, args.opencl_calls)] if args.opencl else [])
    for device, calls in runs:
        got, why = measure(np, clik, args.program, device, calls, args.big_calls, args.rounds)
        if got is None:
            notes.append(why)
            print(f"py_overhead: {why}", file=sys.stderr)
        else:
            rows += got
    loop_ns = empty_loop_ns(args.calls)
    meta = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "machine": platform.machine(),
        "nproc": os.cpu_count(),
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg()[0],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "clik": clik.__version__,
        "program": args.program,
        "rounds": args.rounds,
        "empty_loop_ns": round(loop_ns, 1),
        "notes": notes,
    }
    lines = [
        "# Per-call overhead of the Python package",
        "",
        f"- date: {meta['date']}; host {meta['host']} ({meta['machine']}, {meta['nproc']} CPUs), "
        f"load average {load_start:.1f} at the start, {meta['loadavg_end']:.1f} at the end",
        f"- Python {meta['python']}, NumPy {meta['numpy']}, clik {meta['clik']}; C figures from "
        f"`{os.path.basename(args.program)}` (clik_image_wrap of caller memory)",
        f"- median of {args.rounds} rounds of N calls in a row (N: {args.calls} on 1x1 on the CPU "
        f"path, {args.opencl_calls} on 1x1 on OpenCL, {args.big_calls} on 1920x1080), the C "
        "program and Python taking turns; uint8, one channel",
        f"- overhead = Python - C; the target (≤ {TARGET_NS} ns) is for the 1x1 images on the "
        f"CPU path; the Python figures include the loop's own {loop_ns:.0f} ns per iteration",
        "",
    ] + table(rows) + [f"\n{n}" for n in notes]
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
            f.write("\n")
    missed = [r for r in rows if r["target_met"] is False]
    if missed:
        print(f"py_overhead: target missed by {', '.join(r['op'] + ' ' + r['variant'] for r in missed)}",
              file=sys.stderr)
    return 1 if args.check and (missed or not rows) else 0


if __name__ == "__main__":
    sys.exit(main())

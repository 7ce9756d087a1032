# SPDX-License-Identifier: BSD-2-Clause
"""The tables and the plot of compare_opencv.py: its columns, the CPU-path
columns' names, and the printing of a run's rows (Markdown or plain text)."""

FLOW_CV_THREADS = 2  # OpenCV's threads in the TV-L1 rows (cv2.setNumThreads)

COLUMNS = [
    "op",
    "size",
    "rounds",
    "ratio_cpu_min",
    "ratio_cpu_max",
    "channels",
    "clik_backend",
    "clik_e2e_ms",
    "clik_kernel_ms",
    "cv_cpu_ms",
    "cv_tapi_ms",
    "ratio_cpu",
    "ratio_tapi",
    "tapi_matches_cpu",
    "clik_gbps",
    "copy_gbps",
    "scale",
    "out_size",
    "clik_fps_end_to_end",
    "clik_fps_kernel",
    "clik_check",
    "clik_cputime_ms",
    "cv_cpu_cputime_ms",
    "ratio_cputime",
]

# --------------------------------------------------------------------------


CPU_PATHS = (("scalar", 1), ("neon", 1), ("neon", 0))  # 0: --cpu-threads


def cpu_key(path, threads):
    """The column of a CPU-path run: cpu_scalar_1_ms, cpu_neon_1_ms, cpu_neon_n_ms."""
    return f"cpu_{path}_{threads or 'n'}_ms"


COLUMNS += [cpu_key(p, t) for p, t in CPU_PATHS] + ["ratio_cpu_neon_n"]


def fmt(v, digits=3):
    if v is None or v == "":
        return ""
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def op_notes(meta):
    return [f"{name}: {note}" for name, note in meta.get("notes", {}).items() if note]


def print_cputime(rows, meta, markdown):
    """On a CPU device, the process CPU time of clik's call and of OpenCV's CPU
    call: the work done, which other load on a shared machine does not change
    as much as it changes the wall-clock time."""
    if not meta.get("cputime_table"):
        return
    rows = [r for r in rows if r.get("clik_cputime_ms") and r.get("cv_cpu_cputime_ms")]
    if not rows:
        return
    print()
    if markdown:
        print("Process CPU time per call (ms, medians; clik's OpenCL CPU-device threads "
              "included):")
        print()
        print("| op | size | clik | OpenCV CPU | clik/CPU |")
        print("|---|---|---:|---:|---:|")
        for r in rows:
            print(f"| {r['op']} | {r['size']} | {r['clik_cputime_ms']:.3f} | "
                  f"{r['cv_cpu_cputime_ms']:.3f} | {r['ratio_cputime']:.2f} |")
        return
    print("process CPU time per call, ms (clik / OpenCV CPU):")
    for r in rows:
        print(f"  {r['op']:<16} {r['size']:<10} {r['clik_cputime_ms']:10.3f} "
              f"{r['cv_cpu_cputime_ms']:10.3f} {r['ratio_cputime']:6.2f}")


def print_table(rows, meta, markdown):
    heads = ["op", "size", "clik e2e ms", "clik kernel ms", "OpenCV CPU ms", "OpenCV T-API ms",
             "clik/CPU", "clik/T-API"]
    keys = ["op", "size", "clik_e2e_ms", "clik_kernel_ms", "cv_cpu_ms", "cv_tapi_ms",
            "ratio_cpu", "ratio_tapi"]
    n = meta.get("cpu_threads")
    names = {cpu_key("scalar", 1): "scalar 1t ms", cpu_key("neon", 1): "NEON 1t ms",
             cpu_key("neon", 0): f"NEON {n}t ms"}
    for key in meta.get("cpu_paths", []):
        heads.append(names[key])
        keys.append(key)
    if cpu_key("neon", 0) in meta.get("cpu_paths", []):
        heads.append(f"NEON {n}t/CPU")
        keys.append("ratio_cpu_neon_n")
    def cell(r, k):
        if k == "clik_e2e_ms" and str(r.get("clik_backend") or "").startswith("n/a"):
            return r["clik_backend"]
        text = fmt(r.get(k), 2 if k.startswith("ratio") else 3)
        if k == "ratio_cpu" and r.get("ratio_cpu_min") is not None and (r.get("rounds") or 0) > 1:
            text += f" ({r['ratio_cpu_min']:.2f}–{r['ratio_cpu_max']:.2f})"
        return text
    cells = [[cell(r, k) for k in keys] for r in rows]
    if markdown:
        for line in meta_lines(meta):
            print(f"- {line}")
        print()
        print("| " + " | ".join(heads) + " |")
        print("|" + "|".join(["---"] * 2 + ["---:"] * (len(heads) - 2)) + "|")
        for c in cells:
            print("| " + " | ".join(c) + " |")
        print()
        print("Times are medians in milliseconds, host to host, over the rounds; clik/X = clik "
              "end-to-end / X (≤ 1.0: clik is faster), with the range over rounds in brackets.")
        print_cputime(rows, meta, True)
        notes = op_notes(meta)
        if notes:
            print()
            print("What OpenCV runs:")
            print()
            for line in notes:
                print(f"- {line}")
        return
    for line in meta_lines(meta):
        print(line)
    print()
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(heads)]
    print("  ".join(h.ljust(w) if i < 2 else h.rjust(w) for i, (h, w) in enumerate(zip(heads, widths))))
    for c in cells:
        print("  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(c, widths))))
    print()
    print("medians in ms, host to host; clik/X = clik end-to-end / X (<= 1.0: clik is faster)")
    print_cputime(rows, meta, False)
    for line in op_notes(meta):
        print(f"  {line}")
    for r in rows:
        if r.get("tapi_matches_cpu") is False:
            print(f"warning: {r['op']} {r['size']}: the T-API result differs from the CPU result")


def meta_lines(meta):
    tapi = meta["tapi_device"] or f"unavailable ({meta['tapi_why']})"
    scale = (f", scale {meta['scale']:g} (resize and fusion rows; size is the input's)"
             if meta.get("scaled") else "")
    load = ""
    if meta.get("loadavg_start"):
        load = (f", load average {meta['loadavg_start'][0]:.1f} at the start, "
                f"{meta['loadavg_end'][0]:.1f} at the end")
    return [
        f"date: {meta['date']}",
        f"host: {meta['host']}, {meta['cpu']}, {meta['nproc']} CPUs{load}",
        f"clik device: {meta['clik_device']} (backend {meta['clik_backend']})"
        + (f", copy bandwidth {fmt(meta['copy_gbps'], 1)} GB/s" if meta.get("copy_gbps") else ""),
        f"OpenCV {meta['cv2_version']} ({meta['cv_threads']} threads, {meta.get('python')}), "
        f"T-API device: {tapi}",
        f"{meta['channels']} channel(s), median of {meta['reps']} runs after {meta['warmup']} "
        f"warm-up, clik and OpenCV taking turns {meta['rounds']} time(s){scale}"
        + (f"; clik's host images from {meta['host_alloc']}" if meta.get("host_alloc") else ""),
    ] + ([f"clik's CPU paths (--device none): {', '.join(meta['cpu_paths'])}, the NEON path "
          "through SIMDe on x86"] if meta.get("cpu_paths") else []) + ([f"TV-L1 rows: clik_flow_tvl1 through {meta['flow_lib']}, median of "
          f"{meta['flow_reps']} runs after {meta['flow_warmup']} warm-up, OpenCV on "
          f"{FLOW_CV_THREADS} threads"] if meta.get("flow_lib") else [])


def plot(rows, meta, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [("clik end-to-end", "clik_e2e_ms"), ("clik kernel", "clik_kernel_ms"),
              ("OpenCV CPU", "cv_cpu_ms"), ("OpenCV T-API", "cv_tapi_ms")]
    series = [s for s in series if any(isinstance(r[s[1]], float) for r in rows)]
    labels = [f"{r['op']}\n{r['size']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(rows) + 2), 4.8))
    width = 0.8 / max(1, len(series))
    values = [v for r in rows for _, k in series for v in [r[k]] if isinstance(v, float) and v > 0]
    for i, (label, key) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(rows))]
        ys = [r[key] if isinstance(r[key], float) else 0.0 for r in rows]
        bars = ax.bar(xs, ys, width, label=label)
        ax.bar_label(bars, labels=[f"{y:.2f}" if y else "" for y in ys], fontsize=7, rotation=90,
                     padding=2)
    if values and max(values) / min(values) > 30:
        ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("median time, ms (lower is better)")
    ax.margins(y=0.2)
    ax.set_title(f"clik on {meta['clik_device']} vs OpenCV {meta['cv2_version']} "
                 f"({meta['host']})", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

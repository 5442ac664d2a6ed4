#!/usr/bin/env python3
"""Turns Sweep benchmark JSON (Google Benchmark format) into PNG figures.

Rows are named <suite>/<impl>/<field>.../<x>: one figure per JSON file, one
panel per distinct <field>... combination, one line per <impl>, the last
field on the x axis and a counter (default bytes_per_second, in GB/s) on y.
A suite run at a single size (every x the same) is drawn as bars instead:
one panel per second-to-last field (the type), one bar per
<impl>/<field>... row (Sweep blue, peers orange), and rows whose fields are
`none/any` (copy, copy_streaming, the plain scan) as vertical reference
lines. Copy rows are black (`copy` dashed, `copy_streaming` dash-dotted):
the ceiling at a size is the higher of the two.

bench_bitmask, bench_ocean, bench_galaxy and bench_raytrace have their own
figures (plot_bitmask.py, plot_ocean.py, plot_galaxy.py, plot_raytrace.py).

usage: plot.py RESULT.json [...] [--counter NAME] [--out DIR]
"""
import argparse
import collections
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_common import run_title  # noqa: E402


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = []
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        rows.append(b)
    return data.get("context", {}), rows


def row_name(b):
    name = b.get("run_name", b["name"])
    # Settings Google Benchmark writes into a row's name ("min_time:0.010").
    name = "/".join(part for part in name.split("/") if ":" not in part)
    for suffix in ("/manual_time", "/real_time"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def single_size(rows):
    xs = {row_name(b).split("/")[-1] for b in rows}
    return len(xs) == 1


def bars(path, context, rows, counter, out_dir):
    panels = collections.defaultdict(list)
    scale = 1e-9 if counter.endswith("per_second") else 1.0
    for b in rows:
        parts = row_name(b).split("/")
        if len(parts) < 4 or counter not in b:
            continue
        panels[parts[-2]].append(("/".join(parts[1:-2]), b[counter] * scale))
    if not panels:
        return None
    n = len(panels)
    height = max(len(v) for v in panels.values()) * 0.28 + 1.5
    fig, axes = plt.subplots(1, n, figsize=(7.5 * n, height), squeeze=False)
    for ax, (panel, items) in zip(axes[0], sorted(panels.items())):
        refs = [(label, v) for label, v in items if label.endswith("/none/any")]
        bars_ = [(label, v) for label, v in items if not label.endswith("/none/any")]
        labels = [label for label, _ in bars_]
        colours = ["tab:blue" if label.startswith("sweep") else "tab:orange" for label, _ in bars_]
        ax.barh(range(len(bars_)), [v for _, v in bars_], color=colours)
        ax.set_yticks(range(len(bars_)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        for k, (label, v) in enumerate(refs):
            ax.axvline(v, color=["black", "tab:red", "tab:green"][k % 3], linestyle="--",
                       label=f"{label.split('/')[0]} {v:.1f}")
        ax.set_title(f"{panel} (2^{row_name(rows[0]).split('/')[-1]})")
        ax.set_xlabel(counter.replace("bytes_per_second", "GB/s").replace("_per_second", " (1e9/s)"))
        ax.grid(alpha=0.3, axis="x")
        if refs:
            ax.legend(fontsize=7)
    return fig


# Suites with figures of their own: row prefix -> module.
OWN_FIGURES = {"bitmask": "plot_bitmask", "ocean": "plot_ocean", "galaxy": "plot_galaxy", "raytrace": "plot_raytrace"}


def figure(path, counter, out_dir):
    context, rows = load(path)
    suite = row_name(rows[0]).split("/")[0] if rows else ""
    if suite in OWN_FIGURES:
        import importlib  # this suite has its own figures

        module = importlib.import_module(OWN_FIGURES[suite])
        target = path if not out_dir else os.path.join(out_dir, os.path.basename(path))
        outs = module.figures(rows, row_name, os.path.splitext(target)[0], run_title(target, context))
        return "\n".join(outs) or None
    if rows and single_size(rows):
        fig = bars(path, context, rows, counter, out_dir)
        if fig is None:
            print(f"{path}: no rows with counter {counter}", file=sys.stderr)
            return None
        return save(fig, path, context, out_dir)
    panels = collections.defaultdict(lambda: collections.defaultdict(list))
    for b in rows:
        parts = row_name(b).split("/")
        if len(parts) < 3 or counter not in b:
            continue
        impl, panel, x = parts[1], "/".join(parts[2:-1]) or parts[0], parts[-1]
        try:
            x = float(x)
        except ValueError:
            continue
        scale = 1e-9 if counter.endswith("per_second") else 1.0
        panels[panel][impl].append((x, b[counter] * scale))
    if not panels:
        print(f"{path}: no rows with counter {counter}", file=sys.stderr)
        return None
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(6.5 * n, 4.5), squeeze=False)
    for ax, (panel, impls) in zip(axes[0], sorted(panels.items())):
        colours = plt.get_cmap("tab20").colors
        for k, (impl, pts) in enumerate(sorted(impls.items())):
            pts.sort()
            copy = impl.startswith("copy")
            style = {"copy": "--", "copy_streaming": "-."}.get(impl, "-" if impl.startswith("sweep") else ":")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, label=impl,
                    color="black" if copy else colours[k % len(colours)])
        ax.set_title(panel)
        ax.set_xlabel("log2 n" if all(p[0] < 64 for v in impls.values() for p in v) else "x")
        ax.set_ylabel(counter.replace("bytes_per_second", "GB/s").replace("_per_second", " (1e9/s)"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return save(fig, path, context, out_dir)


def save(fig, path, context, out_dir):
    fig.suptitle(run_title(path, context))
    fig.tight_layout()
    out = os.path.join(out_dir or os.path.dirname(path), os.path.splitext(os.path.basename(path))[0] + ".png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--counter", default="bytes_per_second")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    for path in args.json:
        out = figure(path, args.counter, args.out)
        if out:
            print(out)


if __name__ == "__main__":
    main()

"""Figures of bench_ocean (rows ocean/<kernel>/<layout>/<n>).

Writes next to the JSON:
  <name>_bandwidth.png  GB/s on each row's traffic model vs n: the sweeps,
                        Jacobi, the residual and a V-cycle in both layouts,
                        the two copy rows, the ceiling (the faster of them
                        at each n) and Kokkos Kernels' CRS Gauss-Seidel;
                        beside it each kernel's fraction of the ceiling
  <name>_solve.png      time of one V-cycle and of a full solve to 1e-7 vs n
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_common import ceiling, ms, parse_rows, save  # noqa: E402

KERNELS = ("rb_sweep", "rb_sweep_phased", "jacobi", "residual", "v_cycle")
COLOURS = {"rb_sweep": "tab:blue", "rb_sweep_phased": "tab:cyan", "jacobi": "tab:green",
           "residual": "tab:purple", "v_cycle": "tab:red", "solve": "tab:red"}


def parse(rows, row_name):
    return parse_rows(rows, row_name, "ocean")


def gbs(b):
    return b.get("bytes_per_second", 0) / 1e9


def bandwidth_figure(rs, base, title):
    fig, (ax, axr) = plt.subplots(1, 2, figsize=(13, 5))
    plain, streaming = rs.get(("copy", "grid"), {}), rs.get(("copy_streaming", "grid"), {})
    copy = ceiling(gbs, plain, streaming)
    for kernel in KERNELS:
        for layout, ls in (("row_major", "-"), ("block_major", "--")):
            series = rs.get((kernel, layout))
            if not series:
                continue
            ns = sorted(series)
            ax.plot(ns, [gbs(series[n]) for n in ns], ls, marker="o", color=COLOURS[kernel],
                    label=f"{kernel} {layout}")
            both = [n for n in ns if n in copy and copy[n] > 0]
            axr.plot(both, [gbs(series[n]) / copy[n] for n in both], ls, marker="o", color=COLOURS[kernel],
                     label=f"{kernel} {layout}")
    if copy:
        ns = sorted(copy)
        ax.plot(ns, [copy[n] for n in ns], "k-", lw=2.5, label="ceiling (faster copy)")
        for rows_, ls, label in ((plain, ":", "copy"), (streaming, "-.", "copy_streaming")):
            if rows_:
                xs = sorted(rows_)
                ax.plot(xs, [gbs(rows_[n]) for n in xs], "k" + ls, lw=1, label=label)
    kk = rs.get(("kokkos_sparse_gs", "crs"), {})
    if kk:
        ns = sorted(kk)
        ax.plot(ns, [gbs(kk[n]) for n in ns], "-", marker="s", color="tab:orange",
                label="KokkosSparse Gauss-Seidel (CRS)")
        both = [n for n in ns if n in copy]
        axr.plot(both, [gbs(kk[n]) / copy[n] for n in both], "-", marker="s", color="tab:orange",
                 label="KokkosSparse Gauss-Seidel (CRS)")
    axr.axhline(0.8, color="grey", lw=1, ls=":")
    for a in (ax, axr):
        a.set_xscale("log", base=2)
        a.set_xlabel("n (grid points per side)")
        a.grid(alpha=0.3)
    ax.set_ylabel("GB/s (24 B per point per sweep; copy 16 B)")
    axr.set_ylabel("fraction of the ceiling (faster copy)")
    ax.legend(fontsize=7)
    axr.legend(fontsize=7)
    return save(fig, base, "bandwidth", title, fontsize=9)


def solve_figure(rs, base, title):
    fig, ax = plt.subplots(figsize=(7, 5))
    for kernel, marker in (("v_cycle", "o"), ("solve", "s")):
        for layout, ls in (("row_major", "-"), ("block_major", "--")):
            series = rs.get((kernel, layout))
            if not series:
                continue
            ns = sorted(series)
            label = f"{kernel} {layout}"
            if kernel == "solve":
                cycles = [series[n].get("cycles") for n in ns]
                label += " (V-cycles: " + ", ".join(str(int(c)) for c in cycles if c is not None) + ")"
            ax.plot(ns, [ms(series[n]) for n in ns], ls, marker=marker, color=COLOURS[kernel], label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (grid points per side)")
    ax.set_ylabel("ms")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    return save(fig, base, "solve")


def figures(rows, row_name, base, title):
    rs = parse(rows, row_name)
    if not rs:
        return []
    return [bandwidth_figure(rs, base, title), solve_figure(rs, base, title)]

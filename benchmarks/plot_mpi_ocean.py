#!/usr/bin/env python3
"""Table and figure of bench_mpi_ocean rows (one JSON object per line, as
benchmarks/run_mpi.sh collects them): the lecture's partitioning
question, strips against blocks, with measured data.

Writes next to the rows:
  <name>.md   per n and rank count: each process grid (P x 1 row strips,
              1 x P column strips, MPI_Dims_create's blocks), the bytes the
              busiest rank sends per sweep, time per sweep (each exchange
              schedule: blocking, overlapped, fused), the exchange's time alone and its share
              of the blocking sweep, one multigrid V-cycle (and how many
              of its levels are spread over the ranks), and the
              single-process sweep and V-cycle for reference
  <name>_partitions.png  bytes per sweep and time per sweep against n, one line per
              (ranks, grid)

usage: plot_mpi_ocean.py ROWS.jsonl
"""
import collections

from plot_common import jsonl_main, plt, save


def shape(row):
    """strips or blocks, from the process grid."""
    if row["grid"] == "single-process":
        return "single process"
    a, b = (int(v) for v in row["grid"].split("x"))
    if a == 1 and b == 1:
        return "one rank"
    return "row strips" if b == 1 else ("column strips" if a == 1 else "blocks")


def table(rows):
    lines = ["| n | ranks | grid | shape | threads/rank | bytes sent per sweep (busiest rank) | blocking sweep ms | "
             "overlapped sweep ms | fused sweep ms | exchange ms | exchange share | V-cycle ms | levels spread | Gpoints/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: (r["n"], r["ranks"], r["grid"] != "single-process", r["grid"])):
        lines.append("| {} | {} | {} | {} | {} | {} | {:.3f} | {} | {} | {} | {} | {} | {} | {:.3f} |".format(
            r["n"], r["ranks"], r["grid"], shape(r), r["threads"],
            r.get("bytes_per_sweep_max_rank", "-"), r["sweep_ms"],
            f"{r['overlapped_sweep_ms']:.3f}" if "overlapped_sweep_ms" in r else "-",
            f"{r['fused_sweep_ms']:.3f}" if "fused_sweep_ms" in r else "-",
            f"{r['exchange_ms']:.3f}" if "exchange_ms" in r else "-",
            f"{r['exchange_share']:.3f}" if "exchange_share" in r else "-",
            f"{r['vcycle_ms']:.3f}" if "vcycle_ms" in r else "-",
            f"{r['distributed_levels']} of {r['levels']}" if "levels" in r else "-", r["gpoints_per_s"]))
    return "\n".join(lines) + "\n"


def figure(rows, base, title):
    series = collections.defaultdict(list)
    for r in rows:
        series[(r["ranks"], r["grid"], shape(r))].append(r)
    fig, (axb, axt) = plt.subplots(1, 2, figsize=(13, 5))
    for (ranks, grid, kind), rs in sorted(series.items()):
        rs.sort(key=lambda r: r["n"])
        ls = {"row strips": "-", "column strips": "--", "blocks": "-."}.get(kind, ":")
        label = f"{ranks} rank(s), {grid} ({kind})"
        if any("bytes_per_sweep_max_rank" in r for r in rs) and ranks > 1:
            axb.plot([r["n"] for r in rs], [r["bytes_per_sweep_max_rank"] / 1e3 for r in rs], ls, marker="o",
                     label=label)
        axt.plot([r["n"] for r in rs], [r.get("fused_sweep_ms", r["sweep_ms"]) for r in rs], ls, marker="o",
                 label=label)
    for ax, ylabel in ((axb, "kB sent per sweep by the busiest rank"), (axt, "ms per red-black sweep (fused schedule)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (grid points per side)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    return save(fig, base, "partitions", title, fontsize=9)


def main():
    jsonl_main(__doc__, table, figure, "the ocean's red-black sweep across ranks")


if __name__ == "__main__":
    main()

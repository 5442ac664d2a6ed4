#!/usr/bin/env python3
"""Tables, a scaling model and a figure of bench_mpi rows (one JSON object
per line, as benchmarks/run_mpi.sh collects them).

Writes next to the rows:
  <name>.md   measured: the distributed scan and sort per size, mode (weak,
              strong) and rank count, against the rank-local work and the
              copy in the same run; the MPI part's share; ping-pong latency
              and bandwidth. Modelled: weak scaling at 2^24 elements per
              rank to 64..4096 ranks from the measured per-rank times and
              the measured (loopback) latency and bandwidth, and again with
              a stated network's latency and bandwidth.
  <name>_scaling.png  weak-scaling efficiency and strong-scaling speedup of
              the scan and the sort against the 1-rank run

usage: plot_mpi.py ROWS.jsonl
"""
import math

from plot_common import jsonl_main, plt, save

# The network the second model column assumes (not measured here): a
# 200 Gb/s InfiniBand-class link, about 1.5 us latency, 20 GB/s per rank.
NETWORK_LATENCY_US = 1.5
NETWORK_GB_PER_S = 20.0


def key(r):
    return (r["bench"], r["mode"], r["log2n"])


def baseline(rows, r):
    """The 1-rank row of r's benchmark, mode and size."""
    for b in rows:
        if key(b) == key(r) and b["ranks"] == 1:
            return b
    return None


def time_of(r):
    return r["mpi_scan_ms"] if r["bench"] == "scan" else r["mpi_sort_ms"]


def scaling(rows, r):
    """Weak: t(1) / t(P) (efficiency). Strong: t(1) / t(P) (speedup)."""
    b = baseline(rows, r)
    return None if b is None else time_of(b) / time_of(r)


def fmt(v, digits=3):
    return "-" if v is None or v < 0 else f"{v:.{digits}f}"


def tables(rows):
    out = ["### Scan (int32, inclusive)", "",
           "| log2 n | mode | ranks | threads/rank | n per rank (max) | copy ms | local scan ms | "
           "distributed scan ms | MPI part ms | MPI part / local scan | copy / distributed | "
           "efficiency (weak) or speedup (strong) vs 1 rank |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted((r for r in rows if r["bench"] == "scan"), key=lambda r: (r["log2n"], r["mode"], r["ranks"])):
        out.append(f"| {r['log2n']} | {r['mode']} | {r['ranks']} | {r['threads']} | {r['n_per_rank_max']} | "
                   f"{fmt(r['copy_ms'])} | {fmt(r['local_scan_ms'])} | {fmt(r['mpi_scan_ms'])} | "
                   f"{fmt(r['mpi_part_ms'], 4)} | {fmt(r['mpi_part_share'], 4)} | {fmt(r['scan_vs_copy'])} | "
                   f"{fmt(scaling(rows, r))} |")
    out += ["", "### Sort (uint32 keys, uint32 values, uniform)", "",
            "| log2 n | mode | ranks | threads/rank | n per rank (max) | local sort ms | distributed sort ms | "
            "exchange alone ms | exchange share | bytes sent (busiest rank) | "
            "efficiency (weak) or speedup (strong) vs 1 rank |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted((r for r in rows if r["bench"] == "sort"), key=lambda r: (r["log2n"], r["mode"], r["ranks"])):
        out.append(f"| {r['log2n']} | {r['mode']} | {r['ranks']} | {r['threads']} | {r['n_per_rank_max']} | "
                   f"{fmt(r['local_sort_ms'])} | {fmt(r['mpi_sort_ms'])} | {fmt(r['alltoallv_ms'])} | "
                   f"{fmt(r['alltoallv_share'])} | {r['bytes_sent_max_rank']} | {fmt(scaling(rows, r))} |")
    pings = sorted((r for r in rows if r["bench"] == "pingpong"), key=lambda r: (r["ranks"], r["bytes"]))
    if pings:
        out += ["", "### Ping-pong between ranks 0 and 1 (loopback, shared memory)", "",
                "| ranks in the run | bytes | one-way us | GB/s |", "| --- | --- | --- | --- |"]
        out += [f"| {r['ranks']} | {r['bytes']} | {r['one_way_us']:.3f} | {r['gb_per_s']:.3f} |" for r in pings]
    return out


def model(rows):
    """Weak scaling at the largest measured size per rank, extrapolated."""
    pings = [r for r in rows if r["bench"] == "pingpong" and r["ranks"] == 2]
    weak = [r for r in rows if r["bench"] in ("scan", "sort") and r["mode"] == "weak" and r["ranks"] == 2]
    if not pings or not weak:
        return ["(no 2-rank weak rows or ping-pong rows: no model)"]
    alpha = min(pings, key=lambda r: r["bytes"])["one_way_us"] * 1e-6
    beta = max(pings, key=lambda r: r["bytes"])["gb_per_s"] * 1e9
    log2n = max(r["log2n"] for r in weak)
    scan = next(r for r in weak if r["bench"] == "scan" and r["log2n"] == log2n)
    sort = next(r for r in weak if r["bench"] == "sort" and r["log2n"] == log2n)
    n = scan["n_per_rank_max"]
    # Per-rank compute measured at 2 ranks: the distributed time less its
    # MPI part (scan: the two collectives; sort: the exchange alone).
    scan_compute = (scan["mpi_scan_ms"] - scan["mpi_part_ms"]) * 1e-3
    sort_compute = (sort["mpi_sort_ms"] - sort["alltoallv_ms"]) * 1e-3
    samples = 128  # sweep::mpi::sort_options' default sample per rank, 16 bytes each

    def scan_time(p, a, b):
        # MPI_Exscan and MPI_Bcast of one value: ceil(log2 P) latency-bound stages each.
        return scan_compute + 2 * math.ceil(math.log2(p)) * a

    def sort_time(p, a, b):
        # Sample allgather (P * samples * 16 bytes to every rank), counts
        # all-to-all, then keys and values: each rank sends (P-1)/P of its
        # 8n bytes in P-1 messages.
        gather = math.ceil(math.log2(p)) * a + p * samples * 16 / b
        counts = (p - 1) * a
        exchange = (p - 1) * a + 8 * n * (p - 1) / p / b
        return sort_compute + gather + counts + exchange

    def eff(f, p, a, b):
        return f(1, a, b) / f(p, a, b) if p > 1 else 1.0

    out = ["### Scaling model (weak scaling, 2^%d elements per rank)" % log2n, "",
           f"Measured inputs: per-rank compute at 2 ranks (scan {scan_compute * 1e3:.3f} ms, sort "
           f"{sort_compute * 1e3:.3f} ms: the distributed time less its MPI part), loopback latency "
           f"{alpha * 1e6:.3f} us and bandwidth {beta * 1e-9:.2f} GB/s (ping-pong, 8 bytes and 4 MiB). "
           f"Modelled: the scan's two one-value collectives as ceil(log2 P) latency-bound stages each; the "
           f"sort's sample allgather (P x {samples} samples of 16 bytes to every rank), its counts all-to-all "
           f"(P - 1 messages) and its keys-and-values all-to-all (P - 1 messages, (P-1)/P of 8n bytes), with "
           f"no contention. The network columns assume {NETWORK_LATENCY_US} us and {NETWORK_GB_PER_S:.0f} GB/s "
           f"per rank (an InfiniBand-class link; assumed, not measured).", "",
           "| ranks | scan ms (loopback) | scan efficiency | scan ms (network) | scan efficiency | "
           "sort ms (loopback) | sort efficiency | sort ms (network) | sort efficiency |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    na, nb = NETWORK_LATENCY_US * 1e-6, NETWORK_GB_PER_S * 1e9
    for p in (64, 256, 1024, 4096):
        out.append(f"| {p} | {scan_time(p, alpha, beta) * 1e3:.3f} | {eff(scan_time, p, alpha, beta):.3f} | "
                   f"{scan_time(p, na, nb) * 1e3:.3f} | {eff(scan_time, p, na, nb):.3f} | "
                   f"{sort_time(p, alpha, beta) * 1e3:.3f} | {eff(sort_time, p, alpha, beta):.3f} | "
                   f"{sort_time(p, na, nb) * 1e3:.3f} | {eff(sort_time, p, na, nb):.3f} |")
    out += ["", "Efficiency here is the modelled 1-rank time (compute only) over the modelled P-rank time."]
    return out


def figure(rows, base, title):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, mode, ylabel in ((axes[0], "weak", "efficiency t(1) / t(P)"),
                             (axes[1], "strong", "speedup t(1) / t(P)")):
        for bench in ("scan", "sort"):
            for log2n in sorted({r["log2n"] for r in rows if r.get("mode") == mode}):
                rs = sorted((r for r in rows if r.get("bench") == bench and r.get("mode") == mode
                             and r["log2n"] == log2n), key=lambda r: r["ranks"])
                pts = [(r["ranks"], scaling(rows, r)) for r in rs if scaling(rows, r) is not None]
                if pts:
                    ax.plot(*zip(*pts), marker="o", ls="-" if bench == "scan" else "--",
                            label=f"{bench}, 2^{log2n} {'per rank' if mode == 'weak' else 'in all'}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("ranks (1 rank: every core; more: 1 thread each)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{mode} scaling")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    return save(fig, base, "scaling", title, fontsize=10)


def main():
    jsonl_main(__doc__, lambda rows: "\n".join(tables(rows) + [""] + model(rows)) + "\n", figure,
               "Sweep's distributed scan and sort")


if __name__ == "__main__":
    main()

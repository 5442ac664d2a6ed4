#!/usr/bin/env python3
"""Tables, a scaling model and a figure of bench_mpi_galaxy rows (one JSON
object per line, as benchmarks/run_mpi.sh collects them).

Writes next to the rows:
  <name>.md   measured: per n, rank count and scheme, the slowest rank's
              step, the essential-tree exchange's share of it, the work
              imbalance over ranks and the bytes exchanged, with the
              parallel efficiency against the 1-rank run (both cores used
              in both: 1 rank x 2 threads, 2 ranks x 1 thread); per rank,
              the mean seconds of every phase, its bodies, work and bytes;
              the lecture's question (work balance against locality) per
              scheme. Modelled: strong scaling of the largest n to 1024
              ranks from the measured per-rank force rate, interactions,
              essential-tree volumes and phase costs, with the loopback
              latency and bandwidth bench_mpi measured (when its rows are
              in the same folder) and with a stated network's.
  <name>_phases.png   per scheme and rank count: each phase's seconds on
              every rank (the largest n), and imbalance against exchanged
              bytes
usage: plot_mpi_galaxy.py ROWS.jsonl
"""
import collections
import math
import os
import statistics

from plot_common import jsonl_main, load_jsonl, plt, save

# The network the second model column assumes (not measured here): a
# 200 Gb/s InfiniBand-class link, about 1.5 us latency, 20 GB/s per rank.
NETWORK_LATENCY_US = 1.5
NETWORK_GB_PER_S = 20.0
PHASES = ("decompose", "migrate", "build", "exchange", "force", "integrate")
SCHEMES = ("costzones", "orb", "static")


def steps(rows):
    return {(r["n"], r["ranks"], r["scheme"]): r for r in rows if r["kind"] == "step"}


def per_rank(rows):
    """(n, ranks, scheme, rank) -> mean of every numeric field over the timed steps."""
    groups = collections.defaultdict(list)
    for r in rows:
        if r["kind"] == "rank":
            groups[(r["n"], r["ranks"], r["scheme"], r["rank"])].append(r)
    out = {}
    for k, rs in groups.items():
        out[k] = {f: statistics.mean(r[f] for r in rs) for f in rs[0] if isinstance(rs[0][f], (int, float))}
    return out


def summary(rows):
    st = steps(rows)
    single = {r["n"]: r for r in rows if r["kind"] == "single-process"}
    lines = ["### Measured: one step (the slowest rank), median over the timed steps", "",
             "Efficiency: the 1-rank step (2 threads) over the P-rank step (1 thread per rank), both using "
             "both cores at 2 ranks; at 4 ranks the cores are shared 2:1, so that column measures sharing.", "",
             "| n | ranks | scheme | step s | efficiency vs 1 rank | vs one process | essential-tree exchange share | "
             "imbalance (max/mean work) | essential-tree MB (all ranks) | migration kB (all ranks) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (n, ranks, scheme), r in sorted(st.items()):
        one = st.get((n, 1, scheme))
        proc = single.get(n)
        eff = f"{one['step_s'] / r['step_s']:.2f}" if one and ranks > 1 else "-"
        vs = f"{proc['step_s'] / r['step_s']:.2f}" if proc else "-"
        lines.append(f"| {n} | {ranks} | {scheme} | {r['step_s']:.3f} | {eff} | {vs} | "
                     f"{100 * r['exchange_share']:.2f}% | {r['imbalance']:.4f} | {r['let_bytes'] / 1e6:.2f} | "
                     f"{r['migration_bytes'] / 1e3:.1f} |")
    for n, p in sorted(single.items()):
        lines.append(f"| {n} | 1 | one process ({p['threads']} threads, {p['scheme']}) | {p['step_s']:.3f} | - | 1.00 | "
                     f"- | - | - | - |")
    return lines


def rank_table(rows):
    pr = per_rank(rows)
    lines = ["### Measured: per rank, mean over the timed steps", "",
             "| n | ranks | scheme | rank | bodies | work (interactions) | " + " | ".join(f"{p} s" for p in PHASES) +
             " | step s | essential-tree kB sent | kB received | bodies migrated away |",
             "| --- | --- | --- | --- | --- | --- | " + " | ".join("---" for _ in PHASES) + " | --- | --- | --- | --- |"]
    for (n, ranks, scheme, rank), r in sorted(pr.items()):
        lines.append(f"| {n} | {ranks} | {scheme} | {rank} | {r['bodies']:.0f} | {r['work']:.3g} | " +
                     " | ".join(f"{r[p + '_s']:.4f}" for p in PHASES) +
                     f" | {r['step_s']:.4f} | {r['let_bytes_sent'] / 1e3:.1f} | {r['let_bytes_received'] / 1e3:.1f} | "
                     f"{r['migrated_bodies']:.0f} |")
    return lines


def balance_table(rows):
    st = steps(rows)
    n = max(k[0] for k in st)
    ranks = max(k[1] for k in st)
    lines = [f"### Work balance against locality ({n} bodies, {ranks} ranks)", "",
             "Imbalance is the busiest rank's work over the mean; the essential trees are the locality cost "
             "(what each domain must see of the others), the migration what moved between steps.", "",
             "| scheme | imbalance | essential-tree MB per step | migration kB per step | step s |",
             "| --- | --- | --- | --- | --- |"]
    for s in SCHEMES:
        r = st.get((n, ranks, s))
        if r:
            lines.append(f"| {s} | {r['imbalance']:.4f} | {r['let_bytes'] / 1e6:.2f} | {r['migration_bytes'] / 1e3:.1f} "
                         f"| {r['step_s']:.3f} |")
    return lines


def loopback(path):
    """Ping-pong latency and bandwidth from bench_mpi.jsonl next to `path`."""
    other = os.path.join(os.path.dirname(path) or ".", "bench_mpi.jsonl")
    if not os.path.exists(other):
        return None
    pings = [r for r in load_jsonl(other) if r.get("bench") == "pingpong" and r.get("ranks") == 2]
    if not pings:
        return None
    return (min(pings, key=lambda r: r["bytes"])["one_way_us"] * 1e-6,
            max(pings, key=lambda r: r["bytes"])["gb_per_s"] * 1e9)


def model(rows, path):
    st = steps(rows)
    pr = per_rank(rows)
    n = max(k[0] for k in st)
    scheme = "costzones"
    two = [pr[k] for k in pr if k[0] == n and k[1] == 2 and k[2] == scheme]
    four = [pr[k] for k in pr if k[0] == n and k[1] == 4 and k[2] == scheme]
    if not two or not four:
        return ["(no 2- and 4-rank rows at the largest n: no model)"]
    # Measured per-rank inputs (2 ranks, 1 thread each).
    rate = statistics.mean(r["work"] / r["force_s"] for r in two)  # interactions per second per rank
    w2 = sum(r["work"] for r in two)
    w4 = sum(r["work"] for r in four)
    # Total interactions grow with P as each rank's tree is cut off from the
    # others' (nodes that one tree would merge stay apart): fitted as
    # W(P) = W(2) (1 + g log2(P / 2)) from the 2- and 4-rank runs.
    g = (w4 / w2 - 1)
    recv2 = statistics.mean(r["let_bytes_received"] for r in two)
    recv4 = statistics.mean(r["let_bytes_received"] for r in four)
    # Essential-tree bytes a rank receives: a surface term of its domain,
    # a (N/P)^(2/3), a term for the far domains, b log2 P (each doubling of
    # distance adds about as many accepted nodes), and at least one node
    # (112 B) from every other rank; a and b solved from the 2- and 4-rank
    # means (at 4 ranks every domain still borders the others, so the far
    # term is an extrapolation).
    node = 112.0
    s2, s4 = (n / 2) ** (2 / 3), (n / 4) ** (2 / 3)
    y2, y4 = recv2 - node, recv4 - 3 * node
    # y = a s + b log2 P at P = 2 (log 1) and 4 (log 2)
    det = s2 * 2 - s4 * 1
    a = (y2 * 2 - y4 * 1) / det
    b = (s2 * y4 - s4 * y2) / det
    if b < 0:
        a, b = y4 / s4, 0.0
    # The other phases per body, from the 2-rank run (local passes).
    local = statistics.mean((r["decompose_s"] + r["migrate_s"] + r["build_s"] + r["integrate_s"]) / r["bodies"]
                            for r in two)
    lb = loopback(path)

    def step(p, lat, bw):
        work = w2 * (1 + g * math.log2(max(p, 2) / 2)) / p if p > 1 else w2 / (1 + g)
        force = work / rate
        recv = a * (n / p) ** (2 / 3) + b * math.log2(p) + node * (p - 1) if p > 1 else 0.0
        # The exchange: sizes all-to-all and two all-to-alls of P - 1 messages;
        # the decomposition's 8 all-reduces of 256 (P - 1) counts (a tree of
        # ceil(log2 P) stages); the domains' all-gather.
        stages = math.ceil(math.log2(p)) if p > 1 else 0
        comm = 3 * (p - 1) * lat + recv / bw + 8 * stages * (lat + 256 * 8 * (p - 1) / bw) + stages * lat + 48 * p / bw
        return force + local * n / p + comm, recv

    t1 = w2 / (1 + g) / rate + local * n  # one rank, one thread, no communication
    out = [f"### Scaling model (strong scaling, {n} bodies, cost zones; a model, not a measurement)", "",
           f"Measured inputs (2 and 4 ranks, 1 thread each): force rate {rate / 1e6:.1f} M interactions/s per rank; "
           f"interactions over all ranks {w2 / 1e9:.3f} G at 2 ranks and {w4 / 1e9:.3f} G at 4 (growth g = {g:.4f} "
           f"per doubling, modelled as 1 + g log2(P / 2)); essential-tree bytes received per rank "
           f"{recv2 / 1e6:.2f} MB at 2 and {recv4 / 1e6:.2f} MB at 4, fitted as a (N/P)^(2/3) + b log2 P + "
           f"112 B (P - 1) with a = {a:.1f} B, b = {b / 1e3:.1f} kB (the domain's surface, the far field, and at "
           f"least one node from every other rank; at 4 ranks every domain borders the others, so the far-field "
           f"term is an extrapolation); "
           f"decomposition, migration, build and integration {local * 1e9:.0f} ns per body. Modelled: the "
           f"exchange as three all-to-alls of P - 1 messages plus the bytes, the decomposition's 8 all-reduces "
           f"of 256 (P - 1) counts as ceil(log2 P) stages, no contention or overlap."
           + (f" Loopback latency {lb[0] * 1e6:.2f} us and bandwidth {lb[1] / 1e9:.2f} GB/s from bench_mpi's "
              f"ping-pong." if lb else " (bench_mpi's ping-pong rows are not in this folder: no loopback column.)")
           + f" The network columns assume {NETWORK_LATENCY_US} us and {NETWORK_GB_PER_S:.0f} GB/s per rank "
             f"(an InfiniBand-class link; assumed, not measured).", "",
           "| ranks | bodies per rank | essential MB received per rank | step s (network) | efficiency (network) | "
           "exchange share (network) |" + (" step s (loopback) | efficiency (loopback) |" if lb else ""),
           "| --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if lb else "")]
    na, nb = NETWORK_LATENCY_US * 1e-6, NETWORK_GB_PER_S * 1e9
    for p in (2, 4, 16, 64, 256, 1024):
        t, recv = step(p, na, nb)
        share = (recv / nb + 3 * (p - 1) * na) / t
        line = (f"| {p} | {n // p} | {recv / 1e6:.2f} | {t:.4f} | {t1 / (p * t):.2f} | {100 * share:.1f}% |")
        if lb:
            tl, _ = step(p, lb[0], lb[1])
            line += f" {tl:.4f} | {t1 / (p * tl):.2f} |"
        out.append(line)
    out += ["", "Efficiency here is the modelled 1-rank step (1 thread, compute only) over P times the modelled "
            "P-rank step. The all-to-all latencies, the one node from every rank and the fixed far-field term "
            "are what end the scaling at "
            f"{n} bodies: at 1024 ranks a rank holds ~{n // 1024} bodies."]
    return out


def text_of(path):
    def text(rows):
        return "\n".join(summary(rows) + [""] + balance_table(rows) + [""] + rank_table(rows) + [""] +
                         model(rows, path)) + "\n"
    return text


def figure(rows, base, title):
    pr = per_rank(rows)
    st = steps(rows)
    n = max(k[0] for k in st)
    fig, (axp, axb) = plt.subplots(1, 2, figsize=(14, 5))
    labels, bottoms = [], None
    keys = sorted({(k[1], k[2], k[3]) for k in pr if k[0] == n}, key=lambda k: (k[0], SCHEMES.index(k[1]), k[2]))
    x = list(range(len(keys)))
    bottoms = [0.0] * len(keys)
    for p in PHASES:
        vals = [pr[(n, ranks, s, q)][p + "_s"] for ranks, s, q in keys]
        axp.bar(x, vals, bottom=bottoms, label=p)
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    labels = [f"{ranks}r {s} #{q}" for ranks, s, q in keys]
    axp.set_xticks(x)
    axp.set_xticklabels(labels, rotation=70, fontsize=7)
    axp.set_ylabel("seconds per step (mean over the timed steps)")
    axp.set_title(f"{n} bodies: each rank's phases")
    axp.legend(fontsize=8)
    for s, marker in zip(SCHEMES, "osd"):
        pts = [(r["let_bytes"] / 1e6, r["imbalance"], r["ranks"]) for k, r in st.items()
               if k[2] == s and k[1] > 1 and k[0] == n]
        axb.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=60, label=s)
        for b, i, ranks in pts:
            axb.annotate(f"{ranks} ranks", (b, i), fontsize=7, xytext=(4, 4), textcoords="offset points")
    axb.set_xlabel("essential-tree MB exchanged per step (all ranks)")
    axb.set_ylabel("imbalance (max / mean work over ranks)")
    axb.set_title(f"{n} bodies: work balance against locality")
    axb.grid(alpha=0.3)
    axb.legend(fontsize=8)
    return save(fig, base, "phases", title, fontsize=9)


def main():
    import sys
    path = sys.argv[1] if len(sys.argv) == 2 else ""
    jsonl_main(__doc__, text_of(path), figure, "Barnes-Hut across ranks")


if __name__ == "__main__":
    main()

"""Figures of bench_galaxy (rows galaxy/<phase>/<scheme>/<N>).

Writes next to the JSON:
  <name>_phases.png   time of each phase of a step vs N (cost zones), the
                      direct O(N^2) force beside the tree force
  <name>_balance.png  work balance vs locality at the largest N: imbalance
                      (max / mean work) at the partitions that ran and at
                      16 and 64, Morton runs per partition, force and step
                      time per scheme
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_common import ms, parse_rows, save  # noqa: E402

PHASES = ("bbox", "build", "summarize", "partition", "force", "integrate", "step")
SCHEMES = ("costzones", "orb", "static", "random")
COLOURS = {"costzones": "tab:blue", "orb": "tab:green", "static": "tab:orange", "random": "tab:red"}


def parse(rows, row_name):
    return parse_rows(rows, row_name, "galaxy")


def phases_figure(rs, base, title):
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for phase in PHASES:
        series = rs.get((phase, "costzones")) or rs.get((phase, "none"))
        if not series:
            continue
        ns = sorted(series)
        style = dict(lw=2.5, color="black") if phase == "step" else {}
        ax.plot(ns, [ms(series[n]) for n in ns], marker="o", label=phase, **style)
    direct = rs.get(("force", "direct"))
    if direct:
        ns = sorted(direct)
        ax.plot(ns, [ms(direct[n]) for n in ns], "--", marker="s", color="tab:gray", label="force, direct O(N^2)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (Plummer sphere, theta = 0.5, quadrupole)")
    ax.set_ylabel("ms per call")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    return save(fig, base, "phases")


def balance_figure(rs, base, title):
    force = {s: rs.get(("force", s), {}) for s in SCHEMES}
    sizes = sorted(set.intersection(*[set(v) for v in force.values() if v] or [set()]))
    if not sizes:
        return None
    n = sizes[-1]
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(15, 4.8))
    width = 0.25
    parts = int(force["costzones"][n].get("partitions", 0))
    for k, (counter, label) in enumerate((("imbalance", f"P = {parts} (ran)"), ("imbalance_p16", "P = 16"),
                                         ("imbalance_p64", "P = 64"))):
        vals = [force[s][n].get(counter, float("nan")) for s in SCHEMES]
        a1.bar([i + (k - 1) * width for i in range(len(SCHEMES))], vals, width, label=label)
    a1.axhline(1.0, color="black", lw=0.8)
    a1.set_xticks(range(len(SCHEMES)))
    a1.set_xticklabels(SCHEMES)
    a1.set_ylabel("work imbalance (max / mean interactions)")
    a1.set_ylim(0.95, None)
    a1.legend(fontsize=8)
    a1.set_title("work balance")
    runs = [force[s][n].get("runs", float("nan")) for s in SCHEMES]
    a2.bar(range(len(SCHEMES)), runs, color=[COLOURS[s] for s in SCHEMES])
    a2.set_yscale("log")
    a2.set_xticks(range(len(SCHEMES)))
    a2.set_xticklabels(SCHEMES)
    a2.set_ylabel(f"runs of consecutive tree slots per partition (N/P = {n // max(parts, 1)})")
    a2.set_title("locality (fewer runs = more compact)")
    step = rs.get(("step", "costzones"), {})
    for i, s in enumerate(SCHEMES):
        a3.bar(i - 0.2, ms(force[s][n]), 0.4, color=COLOURS[s], label="force" if i == 0 else None)
        st = rs.get(("step", s), {}).get(n)
        if st:
            a3.bar(i + 0.2, ms(st), 0.4, color=COLOURS[s], alpha=0.45, hatch="//", label="step" if i == 0 else None)
    a3.set_xticks(range(len(SCHEMES)))
    a3.set_xticklabels(SCHEMES)
    a3.set_ylabel("ms")
    a3.set_title("time (force walk solid, whole step hatched)")
    a3.legend(fontsize=8)
    for a in (a1, a2, a3):
        a.grid(alpha=0.3, axis="y")
    return save(fig, base, "balance", f"{title}: N = {n}" + ("" if step else ""), fontsize=9)


def figures(rows, row_name, base, title):
    rs = parse(rows, row_name)
    if not rs:
        return []
    return [f for f in (phases_figure(rs, base, title), balance_figure(rs, base, title)) if f]

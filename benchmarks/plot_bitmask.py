"""Figures of bench_bitmask (rows bitmask/<op>/<encoding>/<permille>/<log2n>[/w<k>]).

Writes next to the JSON:
  <name>_size.png      setup and apply bandwidth vs size at 50% density
  <name>_density.png   pack/unpack bandwidth on the line-granular model
                       against the ceiling (the faster copy row), random
                       select/rank throughput and time vs density at the
                       main size
  <name>_work_item.png pack/unpack bandwidth vs the work item
  <name>_layers.png    heatmaps of pack bandwidth over the fixed trees' S1 x S2
  <name>_memory.png    index bytes as a share of the mask vs size and density
"""
import collections

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_common import ceiling, save  # noqa: E402

MAIN = ("rank_select", "full_permutation", "fixed_inclusive_128_256", "fixed_exclusive_256_256",
        "dynamic_exclusive")
PEERS = ("std_copy_if", "sdsl_rank_v5", "sdsl_select_mcl")


def parse(rows, row_name):
    out = []
    for b in rows:
        p = row_name(b).split("/")
        if len(p) < 5 or p[0] != "bitmask":
            continue
        work = int(p[5][1:]) if len(p) > 5 and p[5].startswith("w") else None
        density = None if p[3] == "any" else int(p[3])
        out.append(dict(op=p[1], enc=p[2], d=density, n=int(p[4]), w=work, b=b))
    return out


def style(enc):
    if enc == "rank_select":
        return dict(color="tab:blue", lw=2.2, marker="o")
    if enc in PEERS:
        return dict(color={"std_copy_if": "tab:orange", "sdsl_rank_v5": "tab:orange",
                           "sdsl_select_mcl": "gold"}[enc], ls=":", marker="s")
    colours = {"full_permutation": "tab:green", "fixed_inclusive_128_256": "tab:purple",
               "fixed_exclusive_256_256": "tab:red", "dynamic_exclusive": "tab:brown"}
    return dict(marker=".", ls="-", color=colours.get(enc, "tab:gray"))


def gbs(b, counter):
    return b.get(counter, 0.0) * 1e-9


def main_size(rs):
    sizes = collections.Counter(r["n"] for r in rs if r["d"] is not None and r["w"] is None)
    return sizes.most_common(1)[0][0] if sizes else None


def finish(ax, xlabel, ylabel, title, logx=True, fontsize=7, ncol=1):
    """Log axes (x optional), labels, grid and legend."""
    if logx:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=fontsize, ncol=ncol)


def size_figure(rs, base, title):
    fig, axes = plt.subplots(1, 3, figsize=(18, 4.8))
    for ax, op in zip(axes, ("setup", "pack", "unpack")):
        for enc in MAIN:
            pts = sorted((r["n"], gbs(r["b"], "bytes_per_second")) for r in rs
                         if r["op"] == op and r["enc"] == enc and r["d"] == 500 and r["w"] is None)
            if pts:
                ax.plot(*zip(*pts), label=enc, **style(enc))
        if op != "setup":
            for copy_op, ls in (("copy", "k--"), ("copy_streaming", "k-.")):
                copy = sorted((r["n"], gbs(r["b"], "bytes_per_second")) for r in rs if r["op"] == copy_op)
                if copy:
                    ax.plot(*zip(*copy), ls, label=f"{copy_op} (read+write)")
        unit = "mask bytes" if op == "setup" else "expanded int32 bytes"
        finish(ax, "log2 bits", f"GB/s ({unit})", f"{op}, 50% density", logx=False)
    return save(fig, base, "size", title)


def density_figure(rs, base, title, n):
    fig, axes = plt.subplots(2, 2, figsize=(14, 9))
    copies = {op: {r["n"]: r["b"] for r in rs if r["op"] == op} for op in ("copy", "copy_streaming")}
    best = ceiling(lambda b: gbs(b, "bytes_per_second"), copies["copy"], copies["copy_streaming"]).get(n)
    best_ms = min((c[n]["real_time"] for c in copies.values() if n in c), default=None)
    for ax, op in zip(axes[0], ("pack", "unpack")):
        for enc in MAIN + PEERS:
            pts = sorted((r["d"] / 10.0, gbs(r["b"], "line_bytes_per_second")) for r in rs
                         if r["op"] == op and r["enc"] == enc and r["n"] == n and r["w"] is None and r["d"] > 0)
            if pts:
                ax.plot(*zip(*pts), label=enc, **style(enc))
        if best:
            ax.axhline(best, color="k", ls="--", label="ceiling (faster copy)")
            ax.axhline(0.8 * best, color="k", ls=":", lw=0.8, label="0.8 x ceiling")
        finish(ax, "density (%)", "GB/s (mask + 64 B per touched line + 4 B per set bit)",
               f"{op}, 2^{n} bits, int32")
    ax = axes[1][0]
    for op, marker in (("select_random", "o"), ("rank_random", "^")):
        for enc in MAIN + PEERS:
            pts = sorted((r["d"] / 10.0, r["b"].get("items_per_second", 0) * 1e-6) for r in rs
                         if r["op"] == op and r["enc"] == enc and r["n"] == n and r["d"])
            if pts:
                st = style(enc)
                st["marker"] = marker
                ax.plot(*zip(*pts), label=f"{op.split('_')[0]} {enc}", **st)
    finish(ax, "density (%)", "million queries/s", "random select (o) and rank (^), batches of 2^22", fontsize=6,
           ncol=2)
    ax = axes[1][1]
    for enc in MAIN + ("std_copy_if",):
        pts = sorted((r["d"] / 10.0, r["b"]["real_time"]) for r in rs
                     if r["op"] == "pack" and r["enc"] == enc and r["n"] == n and r["w"] is None and r["d"] > 0)
        if pts:
            ax.plot(*zip(*pts), label=enc, **style(enc))
    if best_ms is not None:
        ax.axhline(best_ms, color="k", ls="--", label="ceiling (faster copy)")
    finish(ax, "density (%)", "pack time (ms)", "pack time")
    for ax in axes.flat:  # a JSON of some of the rows (only the queries, say) leaves panels empty
        if not ax.lines:
            ax.set_visible(False)
    return save(fig, base, "density", title)


def work_item_figure(rs, base, title):
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for ax, op in zip(axes, ("pack", "unpack")):
        for enc in MAIN:
            pts = sorted((r["w"], gbs(r["b"], "bytes_per_second")) for r in rs
                         if r["op"] == op and r["enc"] == enc and r["w"] is not None)
            if pts:
                ax.plot(*zip(*pts), label=enc, **style(enc))
        finish(ax, "work item (rank_select: mask bits per task; others: packed elements per chunk)",
               "GB/s (expanded int32 bytes)", f"{op}, 50% density")
    return save(fig, base, "work_item", title)


def layers_figure(rs, base, title, n):
    cells = collections.defaultdict(dict)
    for r in rs:
        if r["op"] != "pack" or r["n"] != n or r["w"] is not None:
            continue
        for kind in ("fixed_inclusive", "fixed_exclusive"):
            if r["enc"].startswith(kind + "_"):
                s1, s2 = (int(v) for v in r["enc"][len(kind) + 1:].split("_"))
                cells[(kind, r["d"])][(s1, s2)] = (gbs(r["b"], "bytes_per_second"), r["b"].get("index_bytes", 0))
    panels = sorted(k for k in cells if len(cells[k]) > 1)
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.6), squeeze=False)
    mask_bytes = 2.0 ** n / 8
    for ax, key in zip(axes[0], panels):
        grid = cells[key]
        s1s = sorted({k[0] for k in grid})
        s2s = sorted({k[1] for k in grid})
        z = [[grid.get((a, b), (float("nan"), 0))[0] for b in s2s] for a in s1s]
        im = ax.imshow(z, cmap="viridis", origin="lower", aspect="auto")
        for i, a in enumerate(s1s):
            for j, b in enumerate(s2s):
                if (a, b) in grid:
                    v, ib = grid[(a, b)]
                    ax.text(j, i, f"{v:.2f}\n{100 * ib / mask_bytes:.1f}%", ha="center", va="center", fontsize=7,
                            color="w")
        ax.set_xticks(range(len(s2s)), [str(b) for b in s2s])
        ax.set_yticks(range(len(s1s)), [str(a) for a in s1s])
        ax.set_xlabel("S2 (layer-1 entries per layer-2 entry)")
        ax.set_ylabel("S1 (bits per layer-1 entry)")
        ax.set_title(f"{key[0]} pack, {key[1] / 10:g}% density\nGB/s and index % of mask")
        fig.colorbar(im, ax=ax, shrink=0.8)
    return save(fig, base, "layers", title)


def memory_figure(rs, base, title, n):
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    ax = axes[0]
    for enc in MAIN:
        pts = sorted((r["n"], 100.0 * r["b"].get("index_bytes", 0) / (2.0 ** r["n"] / 8)) for r in rs
                     if r["op"] == "setup" and r["enc"] == enc and r["d"] == 500)
        if pts:
            ax.plot(*zip(*pts), label=enc, **style(enc))
    finish(ax, "log2 bits", "index bytes (% of the mask)", "index size vs size, 50% density", logx=False)
    ax = axes[1]
    for enc in MAIN + ("sdsl_rank_v5", "sdsl_select_mcl"):
        pts = sorted((r["d"] / 10.0, 100.0 * r["b"].get("index_bytes", 0) / (2.0 ** n / 8)) for r in rs
                     if r["op"] == "setup" and r["enc"] == enc and r["n"] == n and r["d"])
        if pts:
            ax.plot(*zip(*pts), label=enc, **style(enc))
    ax.axhline(4.0, color="k", ls=":", lw=0.8, label="4%")
    finish(ax, "density (%)", "index bytes (% of the mask)", f"index size vs density, 2^{n} bits")
    return save(fig, base, "memory", title)


def figures(rows, row_name, base, title):
    rs = parse(rows, row_name)
    if not rs:
        return []
    n = main_size(rs)
    sizes = len({r["n"] for r in rs}) > 1
    outs = [size_figure(rs, base, title) if sizes else None, density_figure(rs, base, title, n),
            work_item_figure(rs, base, title) if any(r["w"] for r in rs) else None,
            layers_figure(rs, base, title, n), memory_figure(rs, base, title, n) if sizes else None]
    return [o for o in outs if o]

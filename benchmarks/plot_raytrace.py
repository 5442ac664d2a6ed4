"""Figures of bench_raytrace (rows raytrace/<impl>/<ray_kind>/<scene>).

Writes next to the JSON:
  <name>_rays.png   Mrays/s per scene for each ray kind (primary, shadow,
                    diffuse): Sweep single / packet / packet with baseline
                    lanes / auto beside Embree's rtcIntersect1/Occluded1,
                    rtcIntersect8/Occluded8 and rtcIntersect16/Occluded16,
                    with the packet utilisation of Sweep's packet rows and
                    the ratios the targets are read from in the titles
                    (packets: against the faster of Embree's two packet rows)
  <name>_build.png  BVH build time per scene, Sweep vs Embree
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_common import ms, parse_rows, save  # noqa: E402

IMPLS = ("sweep_single", "sweep_packet", "sweep_packet_baseline", "sweep_auto", "embree_single", "embree_packet",
         "embree_packet16")
COLOURS = {"sweep_single": "tab:blue", "sweep_packet": "tab:cyan", "sweep_packet_baseline": "tab:green",
           "sweep_auto": "tab:purple", "embree_single": "tab:orange", "embree_packet": "tab:red",
           "embree_packet16": "tab:brown"}
KINDS = ("primary", "shadow", "diffuse")


def parse(rows, row_name):
    return parse_rows(rows, row_name, "raytrace", x=str)


def mrays(b):
    return b.get("rays_per_second", 0) / 1e6


def ratio(rs, a, peers, kind, scene):
    """Mrays/s of impl a over the fastest of the peer impls present."""
    x = rs.get((a, kind), {}).get(scene)
    ys = [mrays(rs[(b, kind)][scene]) for b in peers if scene in rs.get((b, kind), {})]
    return mrays(x) / max(ys) if x and ys and max(ys) > 0 else float("nan")


def rays_figure(rs, base, title):
    scenes = sorted({s for (impl, kind), v in rs.items() if impl in IMPLS for s in v})
    if not scenes:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    width = 0.12
    for ax, kind in zip(axes, KINDS):
        for k, impl in enumerate(IMPLS):
            series = rs.get((impl, kind), {})
            xs = [i + (k - 3) * width for i in range(len(scenes))]
            vals = [mrays(series[s]) if s in series else 0 for s in scenes]
            bars = ax.bar(xs, vals, width, color=COLOURS[impl], label=impl)
            if impl in ("sweep_packet", "sweep_packet_baseline", "sweep_auto"):
                for bar, s in zip(bars, scenes):
                    if s in series and "utilisation" in series[s]:
                        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), f"{series[s]['utilisation']:.2f}",
                                ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_xticks(range(len(scenes)))
        ax.set_xticklabels(scenes)
        ax.set_ylabel("Mrays/s")
        single = ", ".join(f"{s} {ratio(rs, 'sweep_single', ['embree_single'], kind, s):.2f}" for s in scenes)
        packet = ", ".join(
            f"{s} {ratio(rs, 'sweep_packet', ['embree_packet', 'embree_packet16'], kind, s):.2f}" for s in scenes)
        ax.set_title(f"{kind}\nsweep_single / embree_single: {single}\n"
                     f"sweep_packet / faster embree packet: {packet}", fontsize=7)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=7)
    return save(fig, base, "rays", title + " (numbers over packet bars: utilisation)", fontsize=9)


def build_figure(rs, base, title):
    sweep, embree = rs.get(("build", "sweep"), {}), rs.get(("build", "embree"), {})
    scenes = sorted(set(sweep) | set(embree))
    if not scenes:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.bar([i - 0.2 for i in range(len(scenes))], [ms(sweep[s]) if s in sweep else 0 for s in scenes], 0.4,
           color="tab:blue", label="Sweep (binned SAH, wide collapse)")
    ax.bar([i + 0.2 for i in range(len(scenes))], [ms(embree[s]) if s in embree else 0 for s in scenes], 0.4,
           color="tab:orange", label="Embree 3 (rtcCommitScene)")
    ax.set_xticks(range(len(scenes)))
    ax.set_xticklabels([f"{s}\n{int(sweep[s].get('triangles', 0)) if s in sweep else ''} tris" for s in scenes])
    ax.set_ylabel("BVH build, ms")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    return save(fig, base, "build")


def figures(rows, row_name, base, title):
    rs = parse(rows, row_name)
    if not rs:
        return []
    return [f for f in (rays_figure(rs, base, title), build_figure(rs, base, title)) if f]

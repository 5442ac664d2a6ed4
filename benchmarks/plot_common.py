"""Pieces the suite-specific figure scripts share: four-field row parsing,
times in ms, the copy ceiling, run titles and saving a figure."""
import collections
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def parse_rows(rows, row_name, suite, x=int):
    """Rows suite/<a>/<b>/<x> as {(a, b): {x: row}}."""
    out = collections.defaultdict(dict)
    for b in rows:
        p = row_name(b).split("/")
        if len(p) != 4 or p[0] != suite:
            continue
        out[(p[1], p[2])][x(p[3])] = b
    return out


def ms(b):
    return b["real_time"] * {"ms": 1, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b.get("time_unit", "ms")]


def ceiling(value, *series):
    """The bandwidth ceiling per x: the faster of the copy rows given (each
    {x: row}, e.g. `copy` with ordinary stores and `copy_streaming`), as
    {x: value(row)}, over the x any of them has."""
    out = {}
    for s in series:
        for x, b in (s or {}).items():
            out[x] = max(out.get(x, 0.0), value(b))
    return out


def run_title(path, context):
    return (f"{os.path.basename(path)} - {context.get('kokkos_execution_space', '?')} on "
            f"{context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs")


def save(fig, base, suffix, suptitle=None, fontsize=None):
    """Lays out, writes <base>_<suffix>.png and closes the figure."""
    if suptitle is not None:
        fig.suptitle(suptitle, fontsize=fontsize)
    fig.tight_layout()
    out = f"{base}_{suffix}.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def load_jsonl(path):
    """The JSON objects of a file with one per line (other lines skipped)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def jsonl_main(doc, text, figure, what):
    """main() of a script over ROWS.jsonl: writes <name>.md (text(rows)) and
    the figure (figure(rows, base, title) returns its path), prints both."""
    if len(sys.argv) != 2:
        sys.exit(doc)
    path = sys.argv[1]
    rows = load_jsonl(path)
    if not rows:
        sys.exit(f"{path}: no rows")
    base = os.path.splitext(path)[0]
    with open(base + ".md", "w") as f:
        f.write(text(rows))
    print(base + ".md")
    print(figure(rows, base, f"{os.path.basename(path)}: {what}"))

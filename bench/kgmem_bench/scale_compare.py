"""One plot of the ``scale`` suite across server versions: latency and recall@10 against memories in the database.

``kgmem bench --suite scale`` runs on one server; run it once per version, then::

    python -m kgmem_bench.scale_compare OUT_DIR RUN_DIR [RUN_DIR ...]

where each RUN_DIR holds one run's ``scale.json`` (``LABEL=RUN_DIR`` names its lines; default: the server
version). Writes ``OUT_DIR/scale_versions.png`` (p50, log-log) and
``OUT_DIR/scale_versions_recall.png``: one line per (server version, tenant).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .runner import render_plot

STYLE = {"small": "-", "big": "--"}


def _runs(args: list[str]) -> list[tuple[str, list[dict]]]:
    runs = []
    for arg in args:
        label, _, where = arg.rpartition("=")
        d = Path(where)
        path = d / "scale.json"
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise SystemExit(f"{path}: no scale.json here; run `kgmem bench --suite scale --out {d}` first") from None
        runs.append((label or data["figures"]["server"]["version"], data["figures"]["steps"]))
    return runs


def specs(runs: list[tuple[str, list[dict]]]) -> list[dict]:
    """The two plot specs (render_plot's format) over the union of the runs' database sizes."""
    xs = sorted({step["total"] for _, steps in runs for step in steps})
    p50, recall = [], []
    for version, steps in runs:
        by_total = {step["total"]: step for step in steps}
        for who in ("small", "big"):
            cells = [by_total.get(x, {}).get(who) for x in xs]
            if not any(cells):
                continue
            label = f"{version} {who} tenant"
            p50.append({"label": label, "y": [c and c["p50_ms"] for c in cells], "linestyle": STYLE[who]})
            recall.append({"label": label, "y": [c and c["recall_at_10"] for c in cells], "linestyle": STYLE[who]})
    common = {"kind": "line", "x": xs, "logx": True, "xlabel": "memories in the database"}
    return [
        {
            **common,
            "file": "scale_versions.png",
            "title": "Vector channel p50 against memories in the database, per Neo4j version",
            "ylabel": "p50 ms",
            "logy": True,
            "series": p50,
        },
        {
            **common,
            "file": "scale_versions_recall.png",
            "title": "recall@10 against exact per-tenant top-10, per Neo4j version",
            "ylabel": "recall@10",
            "series": recall,
            "hlines": [{"y": 0.99, "label": "goal for the small tenant (0.99)"}],
        },
    ]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], "\nusage: python -m kgmem_bench.scale_compare OUT_DIR RUN_DIR...")
        return 2
    out = Path(argv[0])
    for spec in specs(_runs(argv[1:])):
        print(render_plot(spec, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

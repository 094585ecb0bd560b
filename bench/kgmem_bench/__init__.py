"""kgmem benchmarks: a registry of suites, a shared run context, JSON results and a Markdown report.

A suite is a function ``run(ctx: BenchContext) -> dict`` registered with :func:`suite`::

    from kgmem_bench import suite

    @suite("speed", title="Write and read latency")
    def run(ctx):
        with ctx.memory_graph() as mg:          # a fresh tenant, deleted afterwards
            ...
        return {"tables": [{"title": ..., "columns": [...], "rows": [[...]], "note": ...}],
                "figures": {...},                # raw numbers, kept in bench/results/<suite>.json
                "plots": [{"file": "speed_latency.png", "kind": "line", ...}]}

Suites live in ``bench/kgmem_bench/<name>.py`` and are discovered automatically. Run them with
``kgmem bench --suite NAME [--quick]`` or ``python -m kgmem_bench --suite NAME [--quick]``; results go to
``bench/results/<suite>.json``, ``bench/results/REPORT.md`` and ``bench/results/*.png``.
"""

from .runner import (
    DEFAULT_OUT,
    BenchContext,
    Suite,
    available_suites,
    discover,
    main_cli,
    render_report,
    rerender,
    run_suites,
    suite,
)

__all__ = [
    "DEFAULT_OUT",
    "BenchContext",
    "Suite",
    "available_suites",
    "discover",
    "main_cli",
    "render_report",
    "rerender",
    "run_suites",
    "suite",
]

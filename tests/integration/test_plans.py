"""The hot statements seek indexes: none of them scans every node, or every node of a label.

A composite index serves only queries that constrain all its properties, and a pattern on a secondary label
(:Fact) does not use an index declared on :Memory — both mistakes turn a per-slot or per-tenant lookup into
a scan over every tenant, which stays invisible at test sizes and costs seconds at 100k memories.
"""

from __future__ import annotations

import pytest

from kgmem.store import cypher

HOT = [
    n
    for n in cypher.names()
    if n.split("/")[0] in ("recall", "facts", "why", "timeline", "memory", "ingest")
    or n
    in (
        "derived/inference_candidates",
        "derived/stream_candidates",
        "lifecycle/tombstones_for",
        "admin/delete_tenant",
        "export/memories",
        "export/edges",
        "export/entities",
    )
]


def _operators(plan: dict) -> list[str]:
    out = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        out += _operators(child)
    return out


@pytest.mark.parametrize("name", HOT)
def test_statement_uses_indexes(store, name):
    generation = cypher.generation_of(name)
    if generation is not None and store.server_info().generation != generation:
        pytest.skip(
            f"a {generation} statement; this server is Neo4j {store.server_info().version} (CI runs it on 2026.x)"
        )
    q = cypher.load(name)
    plan = store.explain(name, store.evaluate(dict(q.example_params)))
    ops = _operators(plan)
    assert "AllNodesScan" not in ops, f"{name} scans every node: {ops}"
    assert "NodeByLabelScan" not in ops, f"{name} scans every node of a label: {ops}"

"""The reads an ingest makes before and after its write cost what the batch needs, not what the tenant holds
(a one-record ingest into a 10k tenant took 165–179 ms, 81–86 ms after these two). On the real server."""

from __future__ import annotations

from neo4j import GraphDatabase

from kgmem.store import cypher
from kgmem.store.session import to_params


def _db_hits(plan: dict) -> int:
    return (plan.get("dbHits") or 0) + sum(_db_hits(c) for c in plan.get("children", []))


def test_the_newest_record_read_stops_after_limit_records_whatever_the_tenant_holds(mg, neo4j_connection):
    records = [
        {"id": f"n{i}", "text": f"Deploy note {i}", "at": f"2026-01-{1 + i // 24:02d}T{i % 24:02d}:00:00Z"}
        for i in range(300)
    ]
    assert mg.ingest(records, infer_causes=False, infer_supersession=False).errors == []
    uri, user, password, _ = neo4j_connection
    params = to_params({"tenant": mg.tenant, "ids": ["n299"], "limit": 2})
    with GraphDatabase.driver(uri, auth=(user, password)) as driver, driver.session() as s:
        result = s.run("PROFILE " + cypher.load("derived/newest_records").text, params)
        latest = result.single()["latest"]
        plan = result.consume().profile
    assert latest.to_native().isoformat() == "2026-01-13T10:00:00+00:00"  # the newest outside $ids: n298
    # the (tenant, at) index hands the records newest first: a few hits, not ~4 for every record of the tenant
    assert _db_hits(plan) < 60, _db_hits(plan)


def test_the_known_entities_come_as_one_row(mg):
    mg.ingest([{"text": "Maya met Jon in Lisbon.", "entities": ["Maya", "Jon", "Lisbon"]}])
    rows = mg.store.read("ingest/known_entities", tenant=mg.tenant)
    # the driver spends ~30 µs on each record it receives: thousands of entities as rows cost more than the write
    assert len(rows) == 1
    assert sorted(k for k, _, _ in rows[0]["entities"]) == ["jon", "lisbon", "maya"]


def test_a_small_tenants_texts_come_as_one_row(mg):
    mg.ingest([{"text": f"Pottery class number {i}"} for i in range(3)])
    rows = mg.store.read("recall/tenant_texts", tenant=mg.tenant, limit=2000)
    assert len(rows) == 1 and len(rows[0]["memories"]) == 3
    assert {"id", "text", "context_text", "window_text"} <= set(rows[0]["memories"][0])

"""A memory being forgotten by another client can be read half-gone (a node deleted while the read runs has no
properties left): why's reads skip it instead of failing (the reliability suite's "forget under load" row caught a
TypeError on its missing time)."""

from __future__ import annotations

from neo4j import GraphDatabase


def test_why_skips_a_cause_read_half_forgotten(mg, neo4j_connection):
    mg.ingest(
        [
            {"id": "disk", "text": "The disk on the build server filled up", "at": "2026-01-01T10:00:00Z"},
            {"id": "build", "text": "The nightly build failed", "at": "2026-01-01T11:00:00Z", "caused_by": ["disk"]},
        ]
    )
    assert [r["id"] for r in mg.why("why did the nightly build fail?").roots] == ["disk"]
    uri, user, password, _ = neo4j_connection
    with GraphDatabase.driver(uri, auth=(user, password)) as driver, driver.session() as s:
        s.run("MATCH (m:Memory {tenant: $t, id: 'disk'}) REMOVE m.at, m.text", t=mg.tenant).consume()
    out = mg.why("why did the nightly build fail?")  # no TypeError: the half-gone memory is not read
    assert all(c["id"] != "disk" for c in (out.causes or []))

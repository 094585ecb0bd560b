"""The foundation against the real server: schema, indexes, Browser, the Cypher files' headers."""

from __future__ import annotations

import urllib.request

import pytest

from kgmem.store import cypher, schema

# run again on the second server generation (./dev test): this is what differs between them
pytestmark = pytest.mark.generations


def test_schema_indexes_online_and_idempotent(store):
    first = schema.apply(store)
    second = schema.apply(store)  # applying again changes nothing and does not fail
    assert [i["name"] for i in first] == [i["name"] for i in second] == list(schema.EXPECTED)
    by_name = {i["name"]: i for i in store.read("admin/index_states")}
    assert by_name["memory_embedding"]["type"] == "VECTOR"
    assert by_name["memory_embedding"]["state"] == "ONLINE"
    cfg = by_name["memory_embedding"]["options"]["indexConfig"]
    assert cfg["vector.dimensions"] == 384
    assert cfg["vector.similarity_function"].lower() == "cosine"
    assert by_name["memory_text"]["type"] == "FULLTEXT"
    assert by_name["memory_text"]["state"] == "ONLINE"
    assert by_name["memory_key"]["properties"] == ["tenant", "id"]


def test_server_is_a_supported_neo4j(store, neo4j_connection):
    comps = store.read("admin/server_components")
    kernel = [c for c in comps if c["name"] == "Neo4j Kernel"][0]
    version = kernel["version"]
    assert version.startswith("5.26") or version.split(".")[0] >= "2026", kernel
    if neo4j_connection[-1] == "local-server":
        from kgmem import server

        assert server.status()["version"] == version  # the version the local server says it runs


def test_browser_page_answers(neo4j_connection):
    uri, *_, origin = neo4j_connection
    if origin != "local-server":
        pytest.skip("Browser is checked on the local server (testcontainers/NEO4J_URI expose other ports)")
    from kgmem import server

    info = server.status()
    with urllib.request.urlopen(info["browser"], timeout=10) as resp:
        body = resp.read(4096).decode(errors="replace")
        assert resp.status == 200
    assert "<html" in body.lower() and "neo4j" in body.lower()


def test_every_cypher_file_has_a_header_and_one_statement():
    names = cypher.names()
    assert len(names) > 10
    for name in names:
        q = cypher.load(name)
        assert f"// name: {name}" in q.source, f"{name}: header must name the query"
        assert "// params:" in q.source, f"{name}: header must list params"
        assert "// returns:" in q.source, f"{name}: header must say what it returns"
        declared = {p for p, _ in q.example_params}
        missing = set(q.params) - declared
        assert not missing, f"{name}: no ':param' line for {sorted(missing)} (Browser could not run it)"


def test_cypher_loader_rejects_two_statements(tmp_path):
    with pytest.raises(ValueError, match="one statement"):
        cypher.parse("x/y", "// name: x/y\nMATCH (n) RETURN n; MATCH (m) RETURN m", tmp_path / "y.cypher")


def test_store_rejects_params_that_do_not_match_the_file(store):
    with pytest.raises(TypeError, match="unexpected params"):
        store.read("memory/by_ids", tenant="t", ids=[], idz=[])
    with pytest.raises(TypeError, match="missing params"):
        store.read("memory/by_ids", tenant="t")

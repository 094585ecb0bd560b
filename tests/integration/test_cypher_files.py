"""Every statement in cypher/ runs as it is in Neo4j Browser: with the params its header's ':param' lines
give, evaluated the way Browser evaluates them, against the demo data (tenant 'demo')."""

from __future__ import annotations

import pytest

from kgmem.store import cypher

from ..conftest import FIXTURES

# run again on the second server generation (./dev test): this is what differs between them
pytestmark = pytest.mark.generations

NAMES = cypher.names()
# schema statements are applied by every session; CALL ... IN TRANSACTIONS cannot run inside a transaction
AUTO_COMMIT = {n for n in NAMES if n.startswith("schema/")} | {"admin/delete_tenant", "admin/drop_stale_index"}
# dropping a live index is exercised by `kgmem init --rebuild-indexes` tests, not by pasting
SKIP = {"admin/drop_vector_index", "admin/drop_text_index"}


@pytest.fixture(scope="module")
def demo_loaded(store, embedder):
    from kgmem import MemoryGraph

    mg = MemoryGraph(tenant="demo", store=store, embedder=embedder)
    mg._schema_ready = True
    report = mg.ingest(FIXTURES / "demo" / "demo.jsonl")
    assert report.errors == []
    return mg


@pytest.mark.parametrize("name", NAMES)
def test_statement_runs_with_its_header_params(store, demo_loaded, name):
    if name in SKIP:
        pytest.skip("drops a live index; covered by test_rebuild_indexes")
    generation = cypher.generation_of(name)
    if generation is not None and store.server_info().generation != generation:
        pytest.skip(
            f"a {generation} statement; this server is Neo4j {store.server_info().version} (CI runs it on 2026.x)"
        )
    q = cypher.load(name)
    params = store.evaluate(dict(q.example_params))
    # a generation's variant declares its base's parameters even where it needs fewer (recall/v2026/candidates
    # takes $vector_exact, which only 5.26's scan reads): the caller passes the same to either
    base_only = set(cypher.load(cypher.base_of(name)).params) - set(q.params) if generation else set()
    assert set(q.params) <= set(params) and set(params) - set(q.params) <= base_only, (
        f"{name}: header params {sorted(params)} vs statement {sorted(q.params)}"
    )
    if name in AUTO_COMMIT:
        if name.startswith("schema/") and cypher.variant(name, store.server_info().generation) != name:
            return  # another generation's index definition: creating it here would replace this server's
        store.run_raw(name, params, write=True)  # idempotent (IF NOT EXISTS) or a scratch tenant
        return
    rows = store.dry_run(name, params)  # rolled back: reads and writes alike leave nothing behind
    assert isinstance(rows, list)


def test_header_examples_find_demo_data(store, demo_loaded):
    """The walks' example params point at real demo memories, so pasting them shows something."""
    for name in ("why/roots", "facts/value_at", "facts/history", "timeline/around", "recall/keyword"):
        q = cypher.load(name)
        rows = store.dry_run(name, store.evaluate(dict(q.example_params)))
        assert rows, f"{name}: its header's example returns nothing on the demo data"


def test_rebuild_indexes_brings_them_back_online(store, embedder):
    from kgmem import MemoryGraph
    from kgmem.store import schema

    mg = MemoryGraph(tenant="unused", store=store, embedder=embedder)
    indexes = mg.init(rebuild_indexes=True)
    assert [i["name"] for i in indexes] == list(schema.EXPECTED)
    assert all(i["state"] == "ONLINE" for i in indexes)

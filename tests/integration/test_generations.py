"""The server's generation, against the real server: detected once per connection; on Neo4j 2026.x the vector
indexes carry the tenant and recall runs the v2026 statements, which filter inside the index; on 5.26 the base
statements. Either way the vector channel returns the exact per-tenant top-k. Reads go as read transactions.

The tests that assert 2026.x behaviour directly run on whichever server the suite has: each checks what that
server's generation must do. CI runs the suite on both (./dev test)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from kgmem.embed import MODEL_ID
from kgmem.errors import DatabaseError
from kgmem.query import execute
from kgmem.query import plan as pl
from kgmem.query.filters import Filters
from kgmem.query.question import Question
from kgmem.query.tenant_stats import TenantStats
from kgmem.store import Store, schema
from kgmem.store.capabilities import ServerInfo

from ..conftest import schema_current

# run again on the second server generation (./dev test): this is what differs between them
pytestmark = pytest.mark.generations

UTC = dt.timezone.utc


def _unit(rng: np.random.Generator, n: int, centre: np.ndarray | None = None, spread: float = 1.0) -> np.ndarray:
    v = rng.normal(size=(n, 384))
    if centre is not None:
        v = centre + spread * v / np.sqrt(384)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _write(store: Store, tenant: str, vectors: np.ndarray, prefix: str) -> None:
    rows = [
        {
            "id": f"{prefix}{i}",
            "labels": ["Episode"],
            "props": {
                "text": f"{prefix} {i}",
                "kind": "episode",
                "origin": "record",
                "at": dt.datetime(2026, 1, 1, tzinfo=UTC),
            },
            "embedding": [float(x) for x in vec],
        }
        for i, vec in enumerate(vectors)
    ]
    for i in range(0, len(rows), 500):
        store.write("lifecycle/import_memories", tenant=tenant, embedding_model=MODEL_ID, rows=rows[i : i + 500])


def _generation(store: Store) -> str | None:
    return store.server_info().generation


def test_the_server_is_detected_once_per_connection(recording, store):
    rows = store.read("admin/server_components")
    info = recording.server_info()
    assert info == ServerInfo.from_components(rows)
    assert info.version == next(r["version"] for r in rows if r["name"] == "Neo4j Kernel")
    for _ in range(3):
        recording.resolve("recall/vector")
        schema_current(recording)
    assert recording.ran.count("admin/server_components") == 1
    expected = "recall/v2026/vector" if info.filtered_vector_search else "recall/vector"
    assert recording.resolve("recall/vector") == expected


def test_the_vector_indexes_match_the_generation(store):
    by_name = {r["name"]: r for r in store.read("admin/index_states")}
    want = ["embedding", "tenant"] if _generation(store) == "v2026" else ["embedding"]
    assert by_name["memory_embedding"]["properties"] == want
    assert by_name["memory_context_embedding"]["properties"][1:] == want[1:]
    assert schema_current(store)


@pytest.fixture
def small_beside_big(store, tenant, other_tenant):
    """A 40-memory tenant beside a 3,000-memory one whose vectors crowd the query's neighbourhood."""
    rng = np.random.default_rng(14)
    query = _unit(rng, 1)[0]
    _write(store, other_tenant, _unit(rng, 3000, centre=query, spread=1.2), "big-")
    _write(store, tenant, _unit(rng, 40, centre=query, spread=1.6), "small-")
    return query, tenant, other_tenant


def _vector(store: Store, query: np.ndarray, tenant: str, k: int = 10):
    """The vector channel alone (a plan of that channel only), for a query vector."""
    return execute.channels(store, Question.from_vector("", "", query), Filters(tenant=tenant), ("vector",), k)


def _channel_statements(ran: list[str]) -> list[str]:
    return [n for n in ran if n.startswith("recall/") and n != "recall/tenant_version"]


def test_the_vector_channel_returns_the_exact_per_tenant_top_k(recording, small_beside_big):
    query, small, big = small_beside_big
    recording.server_info()  # detected once, before what is counted
    for who in (small, big):
        exact = recording.read(
            "recall/vector_exact", property="embedding", vector=query.tolist(), k=10, **Filters(tenant=who).params()
        )
        recording.ran.clear()
        found = _vector(recording, query, who).found["vector"]
        ran = _channel_statements(recording.ran)
        if _generation(recording) == "v2026":
            assert ran == ["recall/v2026/candidates"], ran  # one round trip, in the index
            assert found.detail["tries"][0]["kept"] == 10
        else:  # the index has no filter: the small tenant's candidates are widened (recall/vector), then scanned
            assert ran[0] == "recall/candidates" and "recall/v2026/vector" not in ran, ran
        got = found.ids
        want = [h["id"] for h in exact]
        if who == small:
            assert got == want, (who, found.detail)  # a small tenant: exactly its own top 10
        else:
            assert len(set(got) & set(want)) >= 9, (got, want)  # approximate search: recall@10 >= 0.9
        assert all(i.startswith("small-" if who == small else "big-") for i in got)


def test_recall_runs_the_generation_s_candidates_statement(recording, embedder, small_beside_big):
    from kgmem import MemoryGraph

    _, small, _ = small_beside_big
    mg = MemoryGraph(tenant=small, store=recording, embedder=embedder)
    mg._schema_ready = True
    res = mg.recall("small 3", k=5, explain=True)
    want = "recall/v2026/candidates" if _generation(recording) == "v2026" else "recall/candidates"
    assert want in recording.ran, recording.ran
    assert res.explain["cypher"]["recall/candidates"] == f"{want}.cypher"  # the manifest names the file that ran
    vec = embedder.encode_query(res.explain["ranking_text"])
    vector_ids = res.explain["channels"]["vector"]["ids"]
    assert vector_ids and all(i.startswith("small-") for i in vector_ids)
    exact = recording.read(
        "recall/vector_exact",
        property="embedding",
        vector=[float(x) for x in vec],
        k=len(vector_ids),
        **Filters(tenant=small).params(),
    )
    assert vector_ids == [h["id"] for h in exact]


def test_a_sliver_of_the_index_is_scanned_exactly_on_5_26(recording, embedder, small_beside_big, monkeypatch):
    """Once the survival share says the tenant is a sliver of the index, 5.26 scans the tenant's memories in
    one round trip (no over-fetch, no widening) and gets its exact top 10; every REPROBE-th query asks the
    index again. 2026.x never does: its index filters by tenant."""
    from kgmem import MemoryGraph

    query, small, _ = small_beside_big
    recording.server_info()
    TenantStats.of(recording).reset(small)  # the connection's learnt state, through its public seam
    TenantStats.of(recording).set_share(small, "vector", 0.001)
    monkeypatch.setattr(pl, "REPROBE", 3)
    want = [
        h["id"]
        for h in recording.read(
            "recall/vector_exact", property="embedding", vector=query.tolist(), k=10, **Filters(tenant=small).params()
        )
    ]
    ran, exact = [], []
    for _ in range(3):
        recording.ran.clear()
        found = _vector(recording, query, small).found["vector"]
        ran.append(_channel_statements(recording.ran))
        exact.append(bool(found.detail["tries"][0].get("exact")))
        assert found.ids == want, found.detail
    if _generation(recording) == "v2026":
        assert ran == [["recall/v2026/candidates"]] * 3 and exact == [False] * 3
        return
    assert ran[:2] == [["recall/candidates"]] * 2 and exact[:2] == [True, True]  # straight to the scan, one trip
    assert ran[2][:2] == ["recall/candidates", "recall/vector"] and not exact[2]  # the index asked again, widened
    # recall: the candidates statement scans the tenant for every vector channel, in its one round trip
    TenantStats.of(recording).reset(small)  # the connection's learnt state, through its public seam
    TenantStats.of(recording).set_share(small, "vector", 0.001)
    mg = MemoryGraph(tenant=small, store=recording, embedder=embedder)
    mg._schema_ready = True
    recording.ran.clear()
    res = mg.recall("small 3", k=5, explain=True)
    assert "recall/vector" not in recording.ran and "recall/vector_exact" not in recording.ran, recording.ran
    assert res.explain["channels"]["vector"]["tries"][0]["exact"] is True
    vec = embedder.encode_query(res.explain["ranking_text"])
    vector_ids = res.explain["channels"]["vector"]["ids"]
    exact = recording.read(
        "recall/vector_exact",
        property="embedding",
        vector=[float(x) for x in vec],
        k=len(vector_ids),
        **Filters(tenant=small).params(),
    )
    assert vector_ids and vector_ids == [h["id"] for h in exact]


def test_an_index_without_the_tenant_is_rebuilt_on_2026(store):
    if _generation(store) != "v2026":
        pytest.skip(f"Neo4j {store.server_info().version} has no filtered vector search (CI runs this on 2026.x)")
    store.auto_commit("admin/drop_stale_index", index_name="memory_wide_embedding")
    store.run_raw("schema/19_memory_wide_embedding", {}, write=True)  # the 5.26 definition, without WITH
    by_name = {r["name"]: r for r in store.read("admin/index_states")}
    assert by_name["memory_wide_embedding"]["properties"] == ["wide_embedding"]
    assert not schema_current(store)
    schema.apply(store)
    by_name = {r["name"]: r for r in store.read("admin/index_states")}
    assert by_name["memory_wide_embedding"]["properties"] == ["wide_embedding", "tenant"]
    assert schema_current(store)


# ---------------------------------------------------------------------------- routing


def _rows(tenant: str) -> list[dict]:
    return [
        {
            "id": "routing-1",
            "labels": ["Episode"],
            "props": {"text": "x", "kind": "episode", "origin": "record", "at": dt.datetime(2026, 1, 1, tzinfo=UTC)},
            "embedding": [0.05] * 384,
        }
    ]


def test_reads_are_sent_as_read_transactions(store, tenant):
    """A write statement sent down the read path is refused by Neo4j itself (access mode READ); the same
    statement as a write goes through. So Store.read and Store.read_tx open read transactions."""
    with pytest.raises(DatabaseError, match="Statement.AccessMode"):
        store.read("lifecycle/import_memories", tenant=tenant, embedding_model="m", rows=_rows(tenant))
    with pytest.raises(DatabaseError, match="Statement.AccessMode"):
        store.read_tx(
            lambda tx: tx.run("lifecycle/import_memories", tenant=tenant, embedding_model="m", rows=_rows(tenant))
        )
    assert store.read("admin/count_tenant", tenant=tenant)[0]["memories"] == 0
    assert (
        store.write("lifecycle/import_memories", tenant=tenant, embedding_model="m", rows=_rows(tenant))[0]["written"]
        == 1
    )

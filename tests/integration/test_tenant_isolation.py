"""A tenant's answers do not depend on what other tenants hold (issue 23): its top 10 for 50 questions alone and
beside 100,000 memories of another tenant written in the same words are identical.

Lucene's fulltext indexes are shared and BM25 reads its statistics index-wide, so before the small tenant's own
statistics (kgmem.query.own_keywords) the other tenant's documents reordered this tenant's keyword channels."""

from __future__ import annotations

import datetime as dt
import uuid

import numpy as np
import pytest

from kgmem import MemoryGraph
from kgmem.query import own_keywords

pytestmark = pytest.mark.slow

OTHER = 100_000
BATCH = 5_000


def _records(seed: int, n: int, prefix: str) -> tuple[list[dict], list[str]]:
    from kgmem_bench import chatgen

    records, questions = [], []
    for conv in chatgen.conversations(n, seed=seed):
        for r in conv["records"]:
            records.append({**r, "id": f"{prefix}{r['id']}"})
        questions += [q["question"] for q in conv["questions"]]
    return records, questions


@pytest.fixture(scope="module")
def small(store, embedder):
    tenant = f"iso-small-{uuid.uuid4().hex[:6]}"
    g = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
    g._schema_ready = True
    records, questions = _records(seed=5, n=5, prefix="")
    assert g.ingest(records).errors == []
    yield g, questions[::2][:50]
    store.auto_commit("admin/delete_tenant", tenant=tenant)


def _top10(g: MemoryGraph, questions: list[str]) -> list[list[str]]:
    return [[h.id for h in g.recall(q, k=10, now="2024-06-01").hits] for q in questions]


def _write_other(store, tenant: str) -> None:
    """100k memories of another tenant in the small tenant's words (texts of other template chats, their
    stream contexts as the texts themselves), with unit vectors near one another."""
    records, _ = _records(seed=77, n=OTHER // 60, prefix="o")
    rng = np.random.default_rng(3)
    at = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    for i in range(0, OTHER, BATCH):
        chunk = records[i : i + BATCH]
        vectors = rng.normal(size=(len(chunk), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rows = [
            {
                "id": f"o{i + j}",
                "labels": ["Episode"],
                "props": {
                    "text": r["text"],
                    "context_text": r["text"],
                    "window_text": r["text"],
                    "kind": "episode",
                    "origin": "record",
                    "at": at,
                    "recorded_at": at,
                },
                "embedding": v.tolist(),
            }
            for j, (r, v) in enumerate(zip(chunk, vectors))
        ]
        store.write("lifecycle/import_memories", tenant=tenant, embedding_model="test", rows=rows)


def test_a_small_tenants_top_10_is_the_same_beside_100k_memories_of_another_tenant(small, store):
    g, questions = small
    assert len(questions) == 50
    assert own_keywords.corpus(store, g.tenant) is not None  # the small tenant ranks by its own statistics
    alone = _top10(g, questions)
    assert all(alone), "every question finds something"
    other = f"iso-big-{uuid.uuid4().hex[:6]}"
    try:
        _write_other(store, other)
        assert store.read("admin/count_tenant", tenant=other)[0]["memories"] == OTHER
        beside = _top10(g, questions)
    finally:
        store.auto_commit("admin/delete_tenant", tenant=other)
    different = [(q, a, b) for q, a, b in zip(questions, alone, beside) if a != b]
    assert not different, f"{len(different)} of 50 top-10s changed beside the other tenant; first: {different[0]}"

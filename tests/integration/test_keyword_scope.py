"""The keyword channels ask Lucene for the tenant's memories only (issue 23): each fulltext index holds the
memory's tenant and the query requires it, weighing nothing. A tenant beside another whose notes use the same
words more often gets its own best memories in one fetch, no widening, with the text's BM25 scores unchanged."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from kgmem.embed import MODEL_ID
from kgmem.query import execute, lucene, own_keywords
from kgmem.query.filters import Filters
from kgmem.query.question import Question
from kgmem.store import Store

UTC = dt.timezone.utc
# the fulltext indexes and their queries are the same on both server generations; run on both (./dev test)
pytestmark = pytest.mark.generations


def _write(store: Store, tenant: str, texts: list[str], prefix: str) -> None:
    rng = np.random.default_rng(3)
    rows = []
    for i, text in enumerate(texts):
        v = rng.normal(size=384)
        rows.append(
            {
                "id": f"{prefix}{i}",
                "labels": ["Episode"],
                "props": {
                    "text": text,
                    "kind": "episode",
                    "origin": "record",
                    "at": dt.datetime(2026, 1, 1, tzinfo=UTC),
                },
                "embedding": [float(x) for x in v / np.linalg.norm(v)],
            }
        )
    for i in range(0, len(rows), 500):
        store.write("lifecycle/import_memories", tenant=tenant, embedding_model=MODEL_ID, rows=rows[i : i + 500])


@pytest.fixture
def crowded(store, tenant, other_tenant):
    """40 notes of the tenant that say "rollback" once among other words, beside 1,500 of another tenant that
    say it twice in three words (BM25 ranks every one of those first)."""
    _write(store, tenant, [f"note {i} about the rollback of service {i} and its runbook" for i in range(40)], "own-")
    _write(store, other_tenant, [f"rollback rollback {i}" for i in range(1500)], "far-")
    return tenant


def _channel_statements(asked: list[str]) -> list[str]:
    return [n for n in asked if n != "recall/tenant_version"]


def test_a_tenant_s_keyword_channel_fetches_its_own_memories_only(store, recording, embedder, crowded, monkeypatch):
    monkeypatch.setattr(own_keywords, "SMALL_TENANT", 10)  # 40 memories: Lucene ranks, which is what is tested
    q = Question.of("rollback", "rollback", embedder)
    recording.server_info()  # detected once, before what is counted
    recording.asked.clear()
    both = execute.channels(recording, q, Filters(tenant=crowded), ("keyword", "window_keyword"), 20)
    asked = _channel_statements(recording.asked)
    assert asked == ["recall/candidates"], asked  # the channels' one statement, not widened
    assert both.found["keyword"].detail["tries"] == [{"fetch": 52, "fetched": 40, "kept": 20}]
    recording.asked.clear()
    window = Filters(tenant=crowded, start=dt.datetime(2025, 1, 1, tzinfo=UTC))  # a time window: its own statement
    found = execute.channels(recording, q, window, ("keyword",), 10).found["keyword"]
    asked = _channel_statements(recording.asked)
    assert asked == ["recall/keyword"], asked  # one fetch: nothing of the other tenant to skip
    assert found.detail["tries"] == [{"fetch": 50, "fetched": 40, "eligible": None, "kept": 10}]
    assert all(i.startswith("own-") for i in found.ids) and len(found.ids) == 10
    # the scores are the text's BM25, as the same statement gives them without the tenant's clause (from a fetch
    # that reaches past the other tenant's 1,500)
    unscoped = store.read(
        "recall/keyword",
        index="memory_text",
        field="text",
        lucene=q.keys.lucene,
        tenant_scope="",
        fetch=2000,
        k=10,
        given=None,
        **Filters(tenant=crowded).params(),
    )[0]
    assert unscoped["fetched"] >= 1540  # every tenant's matches: the two here, and any a test before left
    assert [(h["id"], round(h["score"], 5)) for h in unscoped["hits"]] == [
        (i, round(s, 5)) for i, s in zip(found.ids, found.scores)
    ]


def test_the_tenant_clause_is_an_escaped_phrase_that_weighs_nothing():
    assert lucene.tenant_scope("acme") == '+tenant:"acme"^0'
    assert lucene.tenant_scope('a"b:c (d)') == '+tenant:"a\\"b\\:c \\(d\\)"^0'  # user text never becomes syntax

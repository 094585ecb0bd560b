"""The three retrieval channels. Each runs one cypher/recall/*.cypher statement and returns ranked candidates.

* vector — the native HNSW index (``db.index.vector.queryNodes``), over-fetching so that after the filters
  at least k remain; asks again with 4× more when too few survive, and falls back to an exact scan of the
  filtered set (``recall/vector_exact``) when the tenant is a small part of a large index.
* keyword — Lucene BM25 from the fulltext index over the escaped words of the question. Lucene's BM25 is
  the channel's ranking; rank-bm25 is not used here (it serves the flat-BM25 baseline in ``kgmem bench``,
  which scores a tenant's memories on their own).
* entity — entities whose whole name (or an alias) occurs in the question → memories mentioning them,
  ranked by how many they mention, then by cosine (an entity filter on the vector ranking).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..normalize import entity_key, looks_like_a_name
from ..store import Store
from . import lucene
from .filters import Filters

MAX_FETCH = 4000


@dataclass
class Candidates:
    channel: str
    ids: list[str]
    scores: list[float]
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"ids": self.ids, "scores": [round(float(s), 6) for s in self.scores], **self.detail}


def _widening(store: Store, name: str, k: int, overfetch: int, **params) -> tuple[list[dict], list[dict]]:
    """Run an index channel, widening the index fetch ×4 until k candidates survive the filters or the
    index has nothing more to give. Returns (hits, tries)."""
    fetch = min(MAX_FETCH, max(k * overfetch, 50))
    tries: list[dict] = []  # widened ×4 while too few candidates survive the filters
    while True:
        row = store.read(name, fetch=fetch, k=k, **params)[0]
        hits = row["hits"]
        tries.append({"fetch": fetch, "fetched": row["fetched"], "kept": len(hits)})
        if len(hits) >= k or row["fetched"] < fetch or fetch >= MAX_FETCH:
            return hits, tries
        fetch = min(MAX_FETCH, fetch * 4)


EXACT_LIMIT = 20000  # a time-windowed eligible set up to this size is scanned exactly


def vector(store: Store, vec: np.ndarray, filters: Filters, k: int, *, overfetch: int = 10) -> Candidates:
    v = vec.tolist()
    if filters.start is not None or filters.end is not None:
        n = store.read("recall/eligible_count", limit=EXACT_LIMIT + 1, **filters.params())[0]["eligible"]
        if n <= EXACT_LIMIT:
            hits = store.read("recall/vector_exact", vector=v, k=k, **filters.params()) if n else []
            return Candidates("vector", [h["id"] for h in hits], [2 * h["score"] - 1 for h in hits],
                              {"tries": [{"exact": True, "eligible": n, "kept": len(hits)}], "score": "cosine"})
    hits, tries = _widening(store, "recall/vector", k, overfetch, vector=v, **filters.params())
    if len(hits) < k and tries[-1]["fetched"] >= tries[-1]["fetch"]:
        # the tenant's eligible memories are a small part of a large index: scan them exactly
        hits = store.read("recall/vector_exact", vector=v, k=k, **filters.params())
        tries.append({"exact": True, "kept": len(hits)})
    return Candidates("vector", [h["id"] for h in hits], [2 * h["score"] - 1 for h in hits],
                      {"tries": tries, "score": "cosine"})


def keyword(store: Store, text: str, filters: Filters, k: int, *, overfetch: int = 10) -> Candidates:
    query = lucene.to_query(text)
    if query is None:
        return Candidates("keyword", [], [], {"lucene": None})
    hits, tries = _widening(store, "recall/keyword", k, overfetch, lucene=query, **filters.params())
    return Candidates("keyword", [h["id"] for h in hits], [h["score"] for h in hits],
                      {"lucene": query, "tries": tries, "score": "bm25"})


_WORD = re.compile(r"[\w][\w\-.'@#]*")


def _words(text: str) -> set[str]:
    words = {re.sub(r"['’]s$", "", w) for w in _WORD.findall(text)}
    return {entity_key(w) for w in words} - {""}


def resolve_entities(store: Store, text: str, tenant: str) -> list[dict]:
    """Entities of the tenant whose name or an alias occurs whole in the question."""
    query = lucene.to_query(text)
    if query is None:
        return []
    q_key = " " + entity_key(re.sub(r"['’]s\b", "", text)) + " "
    q_words = _words(text)
    found = []
    for row in store.read("recall/entities", lucene=query, tenant=tenant, fetch=25):
        for name in [row["name"], *(row["aliases"] or [])]:
            key = entity_key(name)
            if not key:
                continue
            # the whole (normalised) name must appear in the question, as words; and it must be a name:
            # seen name-like in the memories, or written name-like in the question ("Checkout" at the
            # start of sentences is a common word, not an entity)
            if not (f" {key} " in q_key or (" " not in key and key in q_words)):
                continue
            if row["named_mentions"] > 0 or looks_like_a_name(name, text):
                found.append({"key": row["key"], "name": row["name"], "matched": name,
                              "named_mentions": row["named_mentions"]})
                break
    return found


MAX_ENTITY_MENTIONS = 2000


def entity(store: Store, text: str, vec: np.ndarray, filters: Filters, k: int) -> Candidates:
    ents = resolve_entities(store, text, filters.tenant)
    if not ents:
        return Candidates("entity", [], [], {"entities": []})
    rows = store.read("recall/entity_memories", keys=[e["key"] for e in ents], vector=vec.tolist(),
                      max_mentions=MAX_ENTITY_MENTIONS, k=k, **filters.params())
    return Candidates("entity", [r["id"] for r in rows], [2 * r["score"] - 1 for r in rows],
                      {"entities": ents, "score": "entities matched, then cosine"})

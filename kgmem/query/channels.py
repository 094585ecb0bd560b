"""The three retrieval channels. Each runs one cypher/recall/*.cypher statement and returns ranked candidates.

* vector — the native HNSW index. On Neo4j 2026.x the index itself keeps only the tenant's memories
  (``recall/v2026/vector``). On 5.26 (``db.index.vector.queryNodes``, no filter) it over-fetches so that after
  the filters at least k remain, sized by the share of candidates that survived last time; asks again with
  4× more when too few survive, and falls back to an exact scan of the filtered set (``recall/vector_exact``)
  when the tenant is a small part of a large index — from the first query, once that share is known
  (:func:`use_exact`).
* keyword — Lucene BM25 from the fulltext index over the escaped words of the question. Lucene's BM25 is
  the channel's ranking; rank-bm25 is not used here (it serves the flat-BM25 baseline in ``kgmem bench``,
  which scores a tenant's memories on their own).
* entity — entities whose whole name occurs in the question (the one matcher, written in
  :mod:`kgmem.query.eligibility` and expanded into the statements) → memories mentioning them, ranked by
  how many they mention, then by cosine (an entity filter on the vector ranking).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..normalize import entity_key
from ..results import cosine
from ..store import Store
from . import lucene
from .eligibility import KEYWORD_INDEXES, VECTOR_INDEXES
from .filters import Filters

MAX_FETCH = 4000
# the share of index candidates that survived the filters last time, per (tenant, channel): the next first
# fetch asks for enough that one round trip usually suffices (a tenant that is 5 % of the index needs ~20×)
_SURVIVAL: dict[tuple[str, str], float] = {}


def first_fetch(tenant: str, channel: str, depth: int) -> int:
    share = _SURVIVAL.get((tenant, channel), 0.5)
    return int(min(MAX_FETCH, max(depth * 2, 50, depth / max(share, 0.01) * 1.3)))


def note_survival(tenant: str, channel: str, fetched: int, eligible: int) -> None:
    """Remember what share of the index's candidates passed the filters (eligible before the depth cut)."""
    if fetched <= 0:
        return
    share = eligible / fetched
    old = _SURVIVAL.get((tenant, channel))
    _SURVIVAL[(tenant, channel)] = share if old is None else 0.5 * old + 0.5 * share


@dataclass
class Candidates:
    channel: str
    ids: list[str]
    scores: list[float | None]  # None: a cosine against a memory without an embedding (the entity channel)
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        scores = [None if s is None else round(float(s), 6) for s in self.scores]
        return {"ids": self.ids, "scores": scores, **self.detail}


def _widening(
    store: Store, name: str, k: int, overfetch: int, *, initial_fetch: int | None = None, **params
) -> tuple[list[dict], list[dict]]:
    """Run an index channel, widening the index fetch ×4 until k candidates survive the filters or the
    index has nothing more to give. Returns (hits, tries)."""
    fetch = initial_fetch or min(MAX_FETCH, max(k * overfetch, 50))
    tries: list[dict] = []  # widened ×4 while too few candidates survive the filters
    while True:
        row = store.read(name, fetch=fetch, k=k, **params)[0]
        hits = row["hits"]
        tries.append({"fetch": fetch, "fetched": row["fetched"], "eligible": row.get("eligible"), "kept": len(hits)})
        if len(hits) >= k or row["fetched"] < fetch or fetch >= MAX_FETCH:
            return hits, tries
        fetch = min(MAX_FETCH, fetch * 4)


EXACT_LIMIT = 20000  # a time-windowed eligible set up to this size is scanned exactly
# On 5.26 (no in-index filter) an index fetch larger than this — the survival share says the tenant is that
# small a part of the index — is replaced by the exact scan of the tenant's memories; every REPROBE-th query
# of such a tenant asks the index again, so a tenant that has grown (or whose neighbours shrank) is noticed.
EXACT_OVER_FETCH = 1000
REPROBE = 32
_EXACT_RUNS: dict[str, int] = {}


def use_exact(store: Store, tenant: str, depth: int) -> bool:
    """Whether the vector channels should scan the tenant's memories rather than over-fetch from the index."""
    if store.server_info().filtered_vector_search or first_fetch(tenant, "vector", depth) <= EXACT_OVER_FETCH:
        return False
    runs = _EXACT_RUNS[tenant] = _EXACT_RUNS.get(tenant, 0) + 1
    return runs % REPROBE != 0


def vector(
    store: Store, vec: np.ndarray, filters: Filters, k: int, *, overfetch: int = 10, initial_fetch: int | None = None
) -> Candidates:
    v = vec.tolist()
    if filters.start is not None or filters.end is not None:
        n = store.read("recall/eligible_count", limit=EXACT_LIMIT + 1, **filters.params())[0]["eligible"]
        if n <= EXACT_LIMIT:
            hits = store.read("recall/vector_exact", vector=v, k=k, **filters.params()) if n else []
            return Candidates(
                "vector",
                [h["id"] for h in hits],
                [cosine(h["score"]) for h in hits],
                {"tries": [{"exact": True, "eligible": n, "kept": len(hits)}], "score": "cosine"},
            )
    if initial_fetch is None:
        initial_fetch = first_fetch(filters.tenant, "vector", k)
        if use_exact(store, filters.tenant, k):
            hits = store.read("recall/vector_exact", vector=v, k=k, **filters.params())
            return Candidates(
                "vector",
                [h["id"] for h in hits],
                [cosine(h["score"]) for h in hits],
                {"tries": [{"exact": True, "kept": len(hits)}], "score": "cosine"},
            )
    hits, tries = _widening(
        store,
        "recall/vector",
        k,
        overfetch,
        initial_fetch=initial_fetch,
        index="memory_embedding",
        vector=v,
        **filters.params(),
    )
    note_survival(filters.tenant, "vector", tries[-1]["fetched"], tries[-1]["eligible"] or 0)
    if len(hits) < k and tries[-1]["fetched"] >= tries[-1]["fetch"]:
        # the tenant's eligible memories are a small part of a large index: scan them exactly
        hits = store.read("recall/vector_exact", vector=v, k=k, **filters.params())
        tries.append({"exact": True, "kept": len(hits)})
    return Candidates(
        "vector", [h["id"] for h in hits], [cosine(h["score"]) for h in hits], {"tries": tries, "score": "cosine"}
    )


MAX_ENTITY_MENTIONS = 5000  # broader entities cost a cosine per mention; a speaker of a long chat has thousands


def entity(store: Store, text: str, vec: np.ndarray, filters: Filters, k: int) -> Candidates:
    """The entity channel alone (``recall/entity``: the same matcher and rule as ``recall/candidates``)."""
    q_key, named = question_keys(text)
    row = store.read(
        "recall/entity",
        entity_lucene=lucene.to_query(text, weigh_names=False),
        question_key=q_key,
        named_keys=named,
        max_mentions=MAX_ENTITY_MENTIONS,
        vector=vec.tolist(),
        depth=k,
        **filters.params(),
    )[0]
    return _entity_candidates(row["entity"], row["entities"])


def _entity_candidates(hits: list[dict], entities: list[dict]) -> Candidates:
    return Candidates(
        "entity",
        [h["id"] for h in hits],
        [cosine(h["score"]) for h in hits],
        {"entities": entities, "score": "entities matched, then cosine"},
    )


# ---------------------------------------------------------------------------- all channels at once


_NAME_TOKEN = re.compile(r"[\w][\w\-.'@#]*")


def question_keys(text: str) -> tuple[str, list[str]]:
    """(the question as a padded entity key, keys of its word n-grams that are written like names).

    A token is written like a name when it is capitalised other than at the start of the question, or
    carries digits or symbols (ids, codes, hosts); an n-gram is when its first and last tokens are."""
    bare = re.sub(r"['’]s\b", "", text)
    spans = [(m.start(), m.group(0)) for m in _NAME_TOKEN.finditer(bare)]
    namey = [any(not ch.isalpha() for ch in tok) or (tok[0].isupper() and i > 0) for i, (_, tok) in enumerate(spans)]
    tokens = [tok for _, tok in spans]
    named: set[str] = set()
    for i in range(len(tokens)):
        for n in range(1, min(4, len(tokens) - i) + 1):
            if namey[i] and namey[i + n - 1]:
                key = entity_key(" ".join(tokens[i : i + n]))
                if key:
                    named.add(key)
    return " " + entity_key(bare) + " ", sorted(named)


@dataclass
class AllChannels:
    found: dict[str, Candidates]
    details: dict[str, dict]


def _index_candidates(name: str, hits: list[dict], detail: dict) -> Candidates:
    if name in VECTOR_INDEXES:
        return Candidates(
            name, [h["id"] for h in hits], [cosine(h["score"]) for h in hits], {**detail, "score": "cosine"}
        )
    return Candidates(name, [h["id"] for h in hits], [h["score"] for h in hits], {**detail, "score": "bm25"})


def index_channel(
    store: Store,
    name: str,
    vec: np.ndarray,
    text: str,
    filters: Filters,
    k: int,
    *,
    overfetch: int = 10,
    initial_fetch: int | None = None,
) -> Candidates:
    """One index channel on its own: the turn's vector (with the exact fallback) or any other index, widened."""
    if name == "vector":
        return vector(store, vec, filters, k, overfetch=overfetch, initial_fetch=initial_fetch)
    if name in VECTOR_INDEXES:
        hits, tries = _widening(
            store,
            "recall/vector",
            k,
            overfetch,
            initial_fetch=initial_fetch,
            index=VECTOR_INDEXES[name],
            vector=vec.tolist(),
            **filters.params(),
        )
        return _index_candidates(name, hits, {"tries": tries})
    query = lucene.to_query(text)
    if query is None:
        return Candidates(name, [], [], {"lucene": None})
    hits, tries = _widening(
        store,
        "recall/keyword",
        k,
        overfetch,
        initial_fetch=initial_fetch,
        index=KEYWORD_INDEXES[name],
        lucene=query,
        **filters.params(),
    )
    return _index_candidates(name, hits, {"lucene": query, "tries": tries})


def all_channels(
    store: Store, vec: np.ndarray, text: str, filters: Filters, depth: int, channels: tuple[str, ...]
) -> AllChannels:
    """Every channel and the hits' details in one round trip (``recall/candidates``); an index channel whose
    survivors fall short while its index had more to give is widened with its own statement."""
    tenant = filters.tenant
    lucene_q = lucene.to_query(text)
    q_key, named = question_keys(text)
    v_fetch, k_fetch = first_fetch(tenant, "vector", depth), first_fetch(tenant, "keyword", depth)
    exact = use_exact(store, tenant, depth)
    if exact:  # 5.26, a tenant that is a sliver of the index: its memories are scanned; keep what the rule kept
        v_fetch = MAX_FETCH
    row = store.read(
        "recall/candidates",
        vector=vec.tolist(),
        vector_fetch=v_fetch,
        vector_exact=exact,
        lucene=lucene_q,
        entity_lucene=lucene.to_query(text, weigh_names=False),
        keyword_fetch=k_fetch,
        question_key=q_key,
        named_keys=named,
        max_mentions=MAX_ENTITY_MENTIONS,
        depth=depth,
        **filters.params(),
    )[0]
    details = {d["id"]: d for d in row["details"]}
    found: dict[str, Candidates] = {}
    for name in channels:
        if name == "entity":
            found["entity"] = _entity_candidates(row["entity"], row["entities"])
            continue
        is_vector = name in VECTOR_INDEXES
        fetch = v_fetch if is_vector else k_fetch
        hits = row[name] if (is_vector or lucene_q) else []
        if is_vector and exact:  # every eligible memory was scored: nothing to widen, no index share learnt
            tries = [{"exact": True, "eligible": row[f"{name}_eligible"], "kept": len(hits)}]
            found[name] = _index_candidates(name, hits, {"tries": tries})
            continue
        tries = [{"fetch": fetch, "fetched": row[f"{name}_fetched"], "kept": len(hits)}]
        note_survival(tenant, "vector" if is_vector else "keyword", row[f"{name}_fetched"], row[f"{name}_eligible"])
        if (is_vector or lucene_q) and len(hits) < depth and row[f"{name}_fetched"] >= fetch:
            c = index_channel(store, name, vec, text, filters, depth, initial_fetch=min(MAX_FETCH, fetch * 4))
            c.detail["tries"] = tries + c.detail.get("tries", [])
            found[name] = c
        else:
            found[name] = _index_candidates(name, hits, {"tries": tries, **({} if is_vector else {"lucene": lucene_q})})
    return AllChannels(found, details)

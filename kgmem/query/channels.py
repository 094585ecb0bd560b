"""The retrieval channels. Each runs one cypher/recall/*.cypher statement and returns ranked candidates.

* vector — the native HNSW index. On Neo4j 2026.x the index itself keeps only the tenant's memories
  (``recall/v2026/vector``). On 5.26 (``db.index.vector.queryNodes``, no filter) it over-fetches so that after
  the filters at least k remain, sized by the share of candidates that survived last time; asks again with
  4× more when too few survive, and falls back to an exact scan of the filtered set (``recall/vector_exact``)
  when the tenant is a small part of a large index — from the first query, once that share is known
  (:func:`use_exact`).
* keyword — Lucene BM25 from the fulltext index over the escaped words of the question; for a small tenant,
  Okapi BM25 over the tenant's own documents (:mod:`kgmem.query.own_keywords`, rank-bm25), so that what
  other tenants hold never changes its ranking.
* entity — entities whose whole name occurs in the question (the one matcher, written in
  :mod:`kgmem.store.rules` and expanded into the statements) → memories mentioning them, ranked by
  how many they mention, then the newest first (no cosine: the other channels rank by meaning, and a cosine for
  every memory of a broad entity was a third of recall at 100k, cypher/_templates/entity_memories.cypher.tmpl).
* the context channels — the same index channels over a memory's derived stream context.

What a channel learns per tenant (the survival shares, the exact-scan turns) is kept by the store
(``store.runtime``, :mod:`kgmem.store.runtime`); this module holds the policy and no state.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from ..results import cosine
from ..store import Store
from ..store.rules import KEYWORD_FIELDS, KEYWORD_INDEXES, VECTOR_INDEXES
from ..store.runtime import RuntimeState
from . import lucene, own_keywords
from .filters import Filters
from .own_keywords import Given
from .question import Keys, Question, question_keys

__all__ = tuple(
    [
        "AllChannels",
        "Candidates",
        "all_channels",
        "candidate_params",
        "entity",
        "families",
        "family_fetch",
        "first_fetch",
        "merge_rows",
        "index_channel",
        "note_survival",
        "question_keys",
        "use_exact",
        "vector",
        "words_ahead",
    ]
)

MAX_FETCH = 4000
DEFAULT_SHARE = 0.5  # the survival share assumed before a tenant's first query has measured one
EXACT_LIMIT = 20000  # a time-windowed eligible set up to this size is scanned exactly
# On 5.26 (no in-index filter) an index fetch larger than this — the survival share says the tenant is that
# small a part of the index — is replaced by the exact scan of the tenant's memories; every REPROBE-th query
# of such a tenant asks the index again, so a tenant that has grown (or whose neighbours shrank) is noticed.
EXACT_OVER_FETCH = 1000
REPROBE = 32
MAX_ENTITY_MENTIONS = 5000  # broader entities cost a cosine per mention; a speaker of a long chat has thousands


@dataclass
class Candidates:
    channel: str
    ids: list[str]
    scores: list[float | None]  # None: no score (the entity channel ranks by entities matched, then the newest)
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scores = [None if s is None else round(float(s), 6) for s in self.scores]
        return {"ids": self.ids, "scores": scores, **self.detail}


# ---------------------------------------------------------------------------- fetch sizing (pure)


def first_fetch(state: RuntimeState, tenant: str, channel: str, depth: int) -> int:
    """How many index candidates to ask for so that ``depth`` survive the filters in one round trip, from the
    share that survived last time (a tenant that is 5 % of the index needs ~20×), with 30 % to spare. A tenant
    whose candidates all survive (Neo4j 2026.x filters the vector index by tenant) asks for 1.3 × ``depth``."""
    share = state.share(tenant, channel)
    if share is None:
        share = DEFAULT_SHARE
    return int(min(MAX_FETCH, max(50, depth / max(share, 0.01) * 1.3)))


def family_fetch(state: RuntimeState, tenant: str, channels: tuple[str, ...], depth: int) -> tuple[int, int]:
    """The index fetch of the vector searches and of the fulltext ones (``recall/candidates`` takes one for each
    family): the most that any of the family's ``channels`` needs, each by the share learnt on its own index — the
    window index of a chat tenant beside another's short notes can keep far fewer than its memory index."""
    fetch = {c: first_fetch(state, tenant, c, depth) for c in ("vector", "keyword", *channels)}
    return (
        max((fetch[c] for c in channels if c in VECTOR_INDEXES), default=fetch["vector"]),
        max((fetch[c] for c in channels if c in KEYWORD_INDEXES), default=fetch["keyword"]),
    )


def search_size(store: Store, tenant: str, v_fetch: int) -> int:
    """How many nearest the vector indexes are asked for, of which recall keeps the best ``v_fetch``: for a small
    tenant (:func:`kgmem.query.own_keywords.small_size`) on a server that filters the index by tenant, every one
    of its vectors (:data:`MAX_FETCH`, above any small tenant's size) — when no more memories pass the index's
    filter than are asked for, Lucene scores each of them instead of walking the HNSW graph, so the nearest are
    exact and do not depend on what else the index holds (alone in a fresh index, the graph's approximate
    search can find other nearest than beside many other tenants' memories, where the filter makes it exact)."""
    if not store.server_info().filtered_vector_search or own_keywords.small_size(store, tenant) is None:
        return v_fetch
    return MAX_FETCH  # first_fetch never asks for more


def note_survival(state: RuntimeState, tenant: str, channel: str, fetched: int, eligible: int) -> None:
    """Remember what share of the index's candidates passed the filters (eligible before the depth cut),
    averaged with what was known."""
    if fetched <= 0:
        return
    share = min(1.0, eligible / fetched)
    old = state.share(tenant, channel)
    state.set_share(tenant, channel, share if old is None else 0.5 * old + 0.5 * share)


def use_exact(store: Store, tenant: str, depth: int) -> bool:
    """Whether the vector channels should scan the tenant's memories rather than over-fetch from the index."""
    state = store.runtime
    if store.server_info().filtered_vector_search or first_fetch(state, tenant, "vector", depth) <= EXACT_OVER_FETCH:
        return False
    return state.exact_turn(tenant) % REPROBE != 0


# ---------------------------------------------------------------------------- one channel on its own


def _widening(
    store: Store, name: str, k: int, overfetch: int, *, initial_fetch: int | None = None, **params: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run an index channel, widening the index fetch ×4 until k candidates survive the filters or the
    index has nothing more to give. Returns (hits, tries)."""
    fetch = initial_fetch or min(MAX_FETCH, max(k * overfetch, 50))
    tries: list[dict[str, Any]] = []  # widened ×4 while too few candidates survive the filters
    while True:
        row = store.read(name, fetch=fetch, k=k, **params)[0]
        hits = row["hits"]
        tries.append({"fetch": fetch, "fetched": row["fetched"], "eligible": row.get("eligible"), "kept": len(hits)})
        if len(hits) >= k or row["fetched"] < fetch or fetch >= MAX_FETCH:
            return hits, tries
        fetch = min(MAX_FETCH, fetch * 4)


def _scored(name: str, hits: list[dict[str, Any]], detail: dict[str, Any]) -> Candidates:
    """Candidates from a channel's rows ({id, score}): cosines for the vector channels, BM25 otherwise."""
    if name == "entity":
        return Candidates(name, [h["id"] for h in hits], [cosine(h["score"]) for h in hits], detail)
    if name in VECTOR_INDEXES:
        return Candidates(
            name, [h["id"] for h in hits], [cosine(h["score"]) for h in hits], {**detail, "score": "cosine"}
        )
    return Candidates(name, [h["id"] for h in hits], [h["score"] for h in hits], {**detail, "score": "bm25"})


def _exact(
    store: Store, vec: list[float], filters: Filters, k: int, tries: list[dict[str, Any]], eligible: int | None = None
) -> Candidates:
    """The vector channel by an exact scan of the eligible memories (``recall/vector_exact``)."""
    hits = store.read("recall/vector_exact", vector=vec, k=k, **filters.params()) if eligible != 0 else []
    step: dict[str, Any] = {"exact": True, **({"eligible": eligible} if eligible is not None else {})}
    tries.append({**step, "kept": len(hits)})
    return _scored("vector", hits, {"tries": tries})


def vector(
    store: Store,
    vec: Any,
    filters: Filters,
    k: int,
    *,
    overfetch: int = 10,
    initial_fetch: int | None = None,
    window_exact: bool = True,
) -> Candidates:
    """The memory's own vector channel on its own: an exact scan of a small time window, or of a tenant that is
    a sliver of the index (5.26), else the index widened until ``k`` survive, then the exact scan if not.
    ``vec``: the question's vector (a numpy array or a list of floats). ``window_exact=False``: a time window
    that holds most of the tenant (everything before a memory) goes to the index like no window."""
    vec = vec.tolist() if hasattr(vec, "tolist") else list(vec)
    if window_exact and (filters.start is not None or filters.end is not None):
        n = store.read("recall/eligible_count", limit=EXACT_LIMIT + 1, **filters.params())[0]["eligible"]
        if n <= EXACT_LIMIT:
            return _exact(store, vec, filters, k, [], eligible=n)
    if initial_fetch is None:
        initial_fetch = first_fetch(store.runtime, filters.tenant, "vector", k)
        if use_exact(store, filters.tenant, k):
            return _exact(store, vec, filters, k, [])
    hits, tries = _widening(
        store,
        "recall/vector",
        k,
        overfetch,
        initial_fetch=initial_fetch,
        index="memory_embedding",
        vector=vec,
        **filters.params(),
    )
    note_survival(store.runtime, filters.tenant, "vector", tries[-1]["fetched"], tries[-1]["eligible"] or 0)
    if len(hits) < k and tries[-1]["fetched"] >= tries[-1]["fetch"]:
        # the tenant's eligible memories are a small part of a large index: scan them exactly
        return _exact(store, vec, filters, k, tries)
    return _scored("vector", hits, {"tries": tries})


def entity(store: Store, q: Question, filters: Filters, k: int) -> Candidates:
    """The entity channel alone (``recall/entity``: the same matcher and rule as ``recall/candidates``)."""
    row = store.read(
        "recall/entity",
        key_ngrams=list(q.keys.ngrams),
        named_keys=list(q.keys.named),
        max_mentions=MAX_ENTITY_MENTIONS,
        depth=k,
        **filters.params(),
    )[0]
    return _entity_candidates(row["entity"], row["entities"])


def _entity_candidates(hits: list[dict[str, Any]], entities: list[dict[str, Any]]) -> Candidates:
    return _scored("entity", hits, {"entities": entities, "score": "entities matched, then the newest"})


def index_channel(
    store: Store,
    name: str,
    q: Question,
    filters: Filters,
    k: int,
    *,
    overfetch: int = 10,
    initial_fetch: int | None = None,
    given: dict[str, list[dict[str, Any]]] | None = None,
) -> Candidates:
    """One index channel on its own: the memory's vector (with the exact fallback) or any other index, widened;
    a keyword channel of a small tenant reads ``given`` (:func:`kgmem.query.own_keywords.given`), worked out by
    the caller when it runs several channels, here otherwise."""
    if name == "vector":
        return vector(store, q.vector_list, filters, k, overfetch=overfetch, initial_fetch=initial_fetch)
    if name in VECTOR_INDEXES:
        hits, tries = _widening(
            store,
            "recall/vector",
            k,
            overfetch,
            initial_fetch=initial_fetch,
            index=VECTOR_INDEXES[name],
            vector=q.vector_list,
            **filters.params(),
        )
        return _scored(name, hits, {"tries": tries})
    if q.keys.lucene is None:
        return Candidates(name, [], [], {"lucene": None})
    own = given if given is not None else own_keywords.given(store, filters.tenant, q.ranking_text, (name,))
    if (
        own is not None and name in own
    ):  # a small tenant: its own statistics rank, the statement reads the ids and keeps the eligible
        ranked = own[name]
        row = store.read(
            "recall/keyword",
            index=KEYWORD_INDEXES[name],
            field=KEYWORD_FIELDS[name],
            lucene=q.keys.lucene,
            tenant_scope=lucene.tenant_scope(filters.tenant),
            fetch=max(1, len(ranked)),
            k=k,
            given=ranked,
            **filters.params(),
        )[0]
        tries = [{"own": True, "ranked": len(ranked), "eligible": row.get("eligible"), "kept": len(row["hits"])}]
        return _scored(name, row["hits"], {"lucene": q.keys.lucene, "own_statistics": True, "tries": tries})
    hits, tries = _widening(
        store,
        "recall/keyword",
        k,
        overfetch,
        initial_fetch=initial_fetch,
        index=KEYWORD_INDEXES[name],
        field=KEYWORD_FIELDS[name],
        lucene=q.keys.lucene,
        tenant_scope=lucene.tenant_scope(filters.tenant),
        given=None,
        **filters.params(),
    )
    return _scored(name, hits, {"lucene": q.keys.lucene, "tries": tries})


def one_channel(
    store: Store,
    name: str,
    q: Question,
    filters: Filters,
    depth: int,
    overfetch: int,
    given: dict[str, list[dict[str, Any]]] | None = None,
) -> Candidates:
    """Any channel by its own statement (a time window: the vector channel may scan the eligible set)."""
    if name == "entity":
        return entity(store, q, filters, depth)
    return index_channel(store, name, q, filters, depth, overfetch=overfetch, given=given)


# ---------------------------------------------------------------------------- all channels at once


@dataclass
class AllChannels:
    found: dict[str, Candidates]
    details: dict[str, dict[str, Any]]


def families(channels: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The named ``channels`` in the groups that run side by side, each as one ``recall/candidates`` call: the
    vector channels (HNSW searches) and the others (fulltext searches and the entity channel). Either may be
    empty (then there is one call)."""
    vectors = tuple(c for c in channels if c in VECTOR_INDEXES)
    others = tuple(c for c in channels if c not in VECTOR_INDEXES)
    return [f for f in (vectors, others) if f]


def candidate_params(
    store: Store,
    keys: Keys,
    vector: list[float] | None,
    filters: Filters,
    depth: int,
    channels: tuple[str, ...],
    given: Given | None,
    exact: bool,
) -> tuple[dict[str, Any], int, int]:
    """The parameters of ``recall/candidates`` and the index fetches of the vector and fulltext searches.
    ``vector``: None for a call that runs no vector channel (it is asked before the question is embedded)."""
    v_fetch, k_fetch = family_fetch(store.runtime, filters.tenant, channels, depth)
    if exact:  # 5.26, a tenant that is a sliver of the index: its memories are scanned; keep what the rule kept
        v_fetch = MAX_FETCH
    params = dict(
        vector=vector,
        vector_fetch=v_fetch,
        vector_search=(
            search_size(store, filters.tenant, v_fetch)
            if vector is not None and any(c in VECTOR_INDEXES for c in channels)
            else v_fetch
        ),
        vector_exact=exact,
        lucene=keys.lucene,
        tenant_scope=lucene.tenant_scope(filters.tenant),
        key_ngrams=list(keys.ngrams) if "entity" in channels else None,
        keyword_fetch=k_fetch,
        named_keys=list(keys.named),
        max_mentions=MAX_ENTITY_MENTIONS,
        depth=depth,
        # the best k_fetch of each own ranking, as many as Lucene would be asked for (widened below if short)
        given=None if given is None else {name: ranked[:k_fetch] for name, ranked in given.items()},
        # every candidate's map (what the boosts read) when a time phrase ranks by its window; otherwise only when
        # an entity the question names matched (the statement knows): without either nothing reads them before
        # recall/details, which reads the kept and pooled candidates' maps anyway
        maps=filters.rank_window is not None,
        **filters.params(),
    )
    return params, v_fetch, k_fetch


def words_ahead(
    store: Store,
    keys: Keys,
    filters: Filters,
    depth: int,
    channels: tuple[str, ...],
    ranking_text: str,
) -> Future[tuple[Given | None, dict[str, Any]]] | None:
    """The ``recall/candidates`` call of the channels that need the question's words, not its vector (the
    fulltext channels and the entity channel: the second group of :func:`families`), started on the store's pool
    before the question is embedded, so that the server searches while the embedder runs; first, in the same
    task, a small tenant's own keyword rankings of ``ranking_text`` (:func:`kgmem.query.own_keywords.given`; no
    task waits for another, so recalls from many threads cannot starve the pool). None: no such channel is
    named. :func:`all_channels` takes (the rankings, the row)."""
    words = tuple(c for c in channels if c not in VECTOR_INDEXES)
    if not words:
        return None

    def run() -> tuple[Given | None, dict[str, Any]]:
        own = own_keywords.given(store, filters.tenant, ranking_text, channels) if keys.lucene is not None else None
        params, _, _ = candidate_params(store, keys, None, filters, depth, channels, own, exact=False)
        return own, store.read("recall/candidates", channels=list(words), **params)[0]

    return store.runtime.pool.submit(run)


def all_channels(
    store: Store,
    q: Question,
    filters: Filters,
    depth: int,
    channels: tuple[str, ...],
    given: Given | None = None,
    words: Future[tuple[Given | None, dict[str, Any]]] | None = None,
) -> AllChannels:
    """The named ``channels`` and every candidate's map (``details``: what the boosts read): ``recall/candidates``
    once per group of :func:`families`, the groups side by side (the word channels' group on the store's pool —
    started before the question was embedded when ``words`` is given —, the vector group in this thread: 2 cores
    search an HNSW index and a Lucene one at the same time); each call runs only
    the channels it is given and matches the question's entities, so that its candidates' maps say which they
    mention. An index channel whose survivors fall short while its index had more to give is widened with its
    own statement. ``given``: a small tenant's keyword rankings by its own statistics
    (:func:`kgmem.query.own_keywords.given`; None: Lucene ranks). ``words``: what :func:`words_ahead` started
    for these channels and filters, the rankings and the row of the word channels' call (then only the vector
    group runs here, and ``given`` comes from it)."""
    exact = use_exact(store, filters.tenant, depth)
    params, v_fetch, k_fetch = candidate_params(store, q.keys, q.vector_list, filters, depth, channels, given, exact)
    groups = families(channels)  # the vector group first, the word channels' group last
    calls = groups[:-1] if words is not None else groups  # the word channels' row is on its way
    pending = [
        store.runtime.pool.submit(store.read, "recall/candidates", channels=list(g), **params) for g in calls[:-1]
    ]
    here = [store.read("recall/candidates", channels=list(calls[-1]), **params)[0]] if calls else []
    rows = [*(f.result()[0] for f in pending), *here]
    if words is not None:
        given, word_row = words.result()
        rows.append(word_row)
    row = merge_rows(rows, groups)
    found = {name: _from_row(store, name, row, q, filters, depth, exact, v_fetch, k_fetch, given) for name in channels}
    return AllChannels(found, {d["id"]: d for d in row["details"]})


def merge_rows(rows: list[dict[str, Any]], groups: list[tuple[str, ...]]) -> dict[str, Any]:
    """One ``recall/candidates`` row from the rows of calls that each ran one group of channels: each channel's
    fields from the call that ran it, the matched entities (the same in every call), every candidate's map."""
    if len(rows) == 1:
        return rows[0]
    out: dict[str, Any] = dict(rows[0])
    for row, group in zip(rows, groups):
        for name in group:
            keys = ("entity", "entities") if name == "entity" else (name, f"{name}_fetched", f"{name}_eligible")
            out.update({k: row[k] for k in keys})
    out["details"] = list({d["id"]: d for row in rows for d in row["details"]}.values())
    return out


def _from_row(
    store: Store,
    name: str,
    row: dict[str, Any],
    q: Question,
    filters: Filters,
    depth: int,
    exact: bool,
    v_fetch: int,
    k_fetch: int,
    given: dict[str, list[dict[str, Any]]] | None = None,
) -> Candidates:
    """One channel's candidates from the ``recall/candidates`` row (widened by its own statement if short)."""
    if name == "entity":
        return _entity_candidates(row["entity"], row["entities"])
    is_vector = name in VECTOR_INDEXES
    if given is not None and name in given:  # the tenant's own ranking: widened to all of it when too few survive
        sent = min(k_fetch, len(given[name]))
        tries = [{"own": True, "ranked": len(given[name]), "sent": sent, "eligible": row[f"{name}_eligible"]}]
        tries[0]["kept"] = len(row[name])
        if len(row[name]) < depth and len(given[name]) > sent:
            c = index_channel(store, name, q, filters, depth, given=given)
            c.detail["tries"] = tries + c.detail.get("tries", [])
            return c
        return _scored(name, row[name], {"tries": tries, "lucene": q.keys.lucene, "own_statistics": True})
    fetch = v_fetch if is_vector else k_fetch
    hits = row[name] if (is_vector or q.keys.lucene) else []
    if is_vector and exact:  # every eligible memory was scored: nothing to widen, no index share learnt
        return _scored(name, hits, {"tries": [{"exact": True, "eligible": row[f"{name}_eligible"], "kept": len(hits)}]})
    tries = [{"fetch": fetch, "fetched": row[f"{name}_fetched"], "kept": len(hits)}]
    note_survival(store.runtime, filters.tenant, name, row[f"{name}_fetched"], row[f"{name}_eligible"])
    if (is_vector or q.keys.lucene) and len(hits) < depth and row[f"{name}_fetched"] >= fetch:
        c = index_channel(store, name, q, filters, depth, initial_fetch=min(MAX_FETCH, fetch * 4))
        c.detail["tries"] = tries + c.detail.get("tries", [])
        return c
    return _scored(name, hits, {"tries": tries, **({} if is_vector else {"lucene": q.keys.lucene})})

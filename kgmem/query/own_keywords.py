"""The keyword channels of a small tenant, ranked by the tenant's own statistics.

Lucene's fulltext indexes are shared by every tenant, and BM25 reads its term statistics (how many documents
hold a term, how long documents are) index-wide: another tenant's documents change this tenant's scores, and
the eligibility rule that keeps the tenant's own only runs after the index has ranked. A tenant's ranking then
depends on data it cannot see (a side channel on it, too).

So a tenant of at most :data:`SMALL_TENANT` memories ranks its keyword channels itself: its texts (the memory's
text and the two derived stream contexts, ``recall/tenant_texts``) are analysed like Lucene's English analyser
does (lower case, Lucene's English stopwords, the Snowball English stemmer) and scored with Okapi BM25 from
``rank-bm25`` with Lucene's idf and defaults (k1 = 1.2, b = 0.75) over the tenant's documents only; the ranked ids go to the
candidates statement (``$given``), which reads them by id and applies the eligibility rule as for Lucene's rows.
The question's terms and their weights are the keyword channels' own (:func:`kgmem.query.lucene.weighted_terms`).
A tenant's top 10 is then the same whatever else the database holds.

The statistics are built once per tenant and version (``recall/tenant_version``: how many memories, when the
last was recorded) and kept per connection (:class:`kgmem.query.tenant_stats.TenantStats`); a write to the tenant changes the version and the
next recall rebuilds them (the analysed texts are cached, so a rebuild after a small write is cheap). What changes no version — a ``rebuild`` that rewrites the derived contexts, a consolidation
that marks memories merged (the rule still drops them) — is read at the next write, or by a new process. A bigger tenant keeps Lucene (each of its queries re-checks its size every
:data:`RECHECK` queries).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from ..store import Store
from ..store.rules import KEYWORD_FIELDS, KEYWORD_INDEXES
from .meaning import stem, words
from .tenant_stats import TenantStats

SMALL_TENANT = 2000  # memories: up to this many, a tenant's keyword channels rank by its own statistics
RECHECK = 32  # a tenant known to be bigger is counted again every RECHECK queries (it may have shrunk)
K1, B = 1.2, 0.75  # Lucene's BM25 defaults
# Lucene's English analyser's stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET)
ANALYZER_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with".split()
)


class LuceneBM25(BM25Okapi):  # type: ignore[misc]  # rank-bm25 ships no type hints
    """rank-bm25's Okapi BM25 with Lucene's idf, ln(1 + (N − n + 0.5) / (n + 0.5)): never zero or negative, so a
    word in half of a small tenant's memories still counts (Okapi's own idf is 0 there)."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - freq + 0.5) / (freq + 0.5))
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0


def analyse(text: str | None) -> list[str]:
    """The terms of a text as the keyword channels match them: lower-cased words (a code like ``err-4411`` in
    its parts and "I've" whole, as Lucene's tokenizer splits them), Lucene's English stopwords dropped,
    Snowball-stemmed."""
    return list(_analysed(text)) if text else []


@lru_cache(maxsize=16384)
def _analysed(text: str) -> tuple[str, ...]:
    # cached: after a write the tenant's statistics are rebuilt, and all but a few texts are the same as before
    # split at hyphens as Lucene's tokenizer does ("err-4411"), not at apostrophes ("i've" stays a word)
    return tuple(stem(p) for w in words(text) for p in w.split("-") if p and p not in ANALYZER_STOPWORDS)


@dataclass
class Field:
    """One keyword channel's documents: BM25 statistics and, per term, the documents holding it."""

    bm25: LuceneBM25 | None
    postings: dict[str, list[int]]
    docs: list[list[str]]  # each document's terms in order (a phrase matches where its terms run in sequence)


@dataclass
class Corpus:
    """A small tenant's keyword statistics at one version."""

    version: tuple[int, Any]
    ids: list[str]
    fields: dict[str, Field]
    as_itself: bool = False  # every memory's context texts are its own text (no exchange around any of them)

    @classmethod
    def build(cls, version: tuple[int, Any], rows: Sequence[dict[str, Any]]) -> Corpus:
        ids = [r["id"] for r in rows]
        as_itself = all(r.get("context_text") == r.get("text") == r.get("window_text") for r in rows)
        fields = {}
        for channel, prop in KEYWORD_FIELDS.items():
            docs = [analyse(r.get(prop) or r.get("text")) for r in rows]
            postings: dict[str, list[int]] = {}
            for i, doc in enumerate(docs):
                for term in set(doc):
                    postings.setdefault(term, []).append(i)
            # an empty tenant has no statistics; rank-bm25 divides by the number of documents
            bm25 = LuceneBM25([d or [""] for d in docs], k1=K1, b=B) if docs else None
            fields[channel] = Field(bm25, postings, docs)
        return cls(version, ids, fields, as_itself)

    def rank(self, channel: str, weighted: Sequence[tuple[str, float]]) -> list[dict[str, Any]]:
        """Every document matching a term of the question, best first (score, then id): ``{id, score}``. A term
        with inner punctuation ("OPS-1187", "v2.3") is a phrase, as in the Lucene query
        (:func:`kgmem.query.lucene.to_query`): it matches a document whose terms hold its parts in sequence, and
        scores there as its parts together ("OPS-1178" does not match it by its "ops")."""
        field = self.fields[channel]
        if field.bm25 is None:
            return []
        phrases: dict[tuple[str, ...], float] = {}
        for raw, weight in weighted:
            parts = tuple(analyse(raw))
            if parts:
                phrases[parts] = max(phrases.get(parts, 0.0), weight)
        matched: dict[tuple[str, ...], list[int]] = {}
        for parts in phrases:
            docs = set(field.postings.get(parts[0], ()))
            for term in parts[1:]:
                docs &= set(field.postings.get(term, ()))
            if len(parts) > 1:
                docs = {i for i in docs if _holds_run(field.docs[i], parts)}
            if docs:
                matched[parts] = sorted(docs)
        ranked = sorted({i for docs in matched.values() for i in docs})
        if not ranked:
            return []
        at = {d: j for j, d in enumerate(ranked)}
        scores = np.zeros(len(ranked))
        for parts, holding in matched.items():
            rows = [at[d] for d in holding]
            scores[rows] += phrases[parts] * np.asarray(field.bm25.get_batch_scores(list(parts), holding))
        order = sorted(range(len(ranked)), key=lambda j: (-scores[j], self.ids[ranked[j]]))
        return [{"id": self.ids[ranked[j]], "score": float(scores[j])} for j in order if scores[j] > 0]


def _holds_run(doc: Sequence[str], parts: Sequence[str]) -> bool:
    """Whether the terms ``parts`` occur one after another in ``doc``."""
    n = len(parts)
    return any(list(doc[i : i + n]) == list(parts) for i in range(len(doc) - n + 1) if doc[i] == parts[0])


def version(store: Store, tenant: str) -> tuple[int, Any]:
    row = store.read("recall/tenant_version", tenant=tenant, limit=SMALL_TENANT)[0]
    return int(row["memories"]), row["last"]


def corpus(store: Store, tenant: str, known: tuple[int, Any] | None = None) -> Corpus | None:
    """The tenant's keyword statistics when it is small (built, or taken from the connection's :class:`~kgmem.query.tenant_stats.TenantStats`), else None.
    ``known``: the tenant's version when the caller has just read it (:func:`version`)."""
    state = TenantStats.of(store)
    big = state.big_tenant(tenant)
    if big is not None and big % RECHECK != 0:
        state.note_big_tenant(tenant)
        return None
    current = _small_version(store, tenant, known)
    if current is None:
        return None
    kept = state.corpus(tenant)
    if kept is not None and kept.version == current:
        return kept
    rows = store.read("recall/tenant_texts", tenant=tenant, limit=SMALL_TENANT)[0]["memories"]
    built = Corpus.build(current, rows)
    state.keep_corpus(tenant, built)
    return built


def small_size(store: Store, tenant: str, known: tuple[int, Any] | None = None) -> int | None:
    """How many memories the tenant holds when it is small (at most :data:`SMALL_TENANT`), else None: the count
    its keyword statistics were built at, or counted now when this process has neither those nor found it big
    (by :func:`corpus`'s rule, :func:`_small_version`: a count above it is noted, so the next recall does not count
    again)."""
    state = TenantStats.of(store)
    if state.big_tenant(tenant) is not None:
        return None
    kept = state.corpus(tenant)
    if kept is not None:
        return int(kept.version[0])
    current = _small_version(store, tenant, known)
    return None if current is None else current[0]


def _small_version(store: Store, tenant: str, known: tuple[int, Any] | None = None) -> tuple[int, Any] | None:
    """The tenant's version (:func:`version`) when it holds at most :data:`SMALL_TENANT` memories, else None, noted
    big in the connection's statistics (the rule :func:`corpus` and :func:`small_size` share)."""
    current = known if known is not None else version(store, tenant)
    if current[0] > SMALL_TENANT:
        TenantStats.of(store).note_big_tenant(tenant)
        return None
    TenantStats.of(store).forget_big_tenant(tenant)
    return current


Given = dict[str, list[dict[str, Any]]]  # keyword channel → its ranking by the tenant's own statistics ({id, score})


def rankings(c: Corpus, weighted: Sequence[tuple[str, float]], channels: Sequence[str]) -> Given:
    """Each keyword channel of ``channels`` ranked by the statistics ``c`` for the question's weighted terms (the
    keyword channels' own, :func:`kgmem.query.lucene.weighted_terms`: ``Keys.terms``; pure)."""
    return {name: c.rank(name, list(weighted)) for name in channels if name in KEYWORD_INDEXES}

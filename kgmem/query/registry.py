"""The retrieval channels, each once: its name, its family, the index it searches, the statement that runs it on
its own and what it needs from the question. Everything that used to branch on a channel's name reads its
:class:`Channel` here instead (the planner, :mod:`kgmem.query.plan`; the executor, :mod:`kgmem.query.execute`).

* ``vector`` family — an HNSW index over the memory's own vector or its derived stream context; scores are
  Neo4j's normalised cosines. The memory's own (``vector``) may also scan the eligible memories exactly.
* ``keyword`` family — a fulltext index (Lucene BM25) over the memory's text or its stream context, or a small
  tenant's own BM25 (:mod:`kgmem.query.own_keywords`).
* ``entity`` — entities whose whole name occurs in the question → memories mentioning them (no score: ranked by
  entities matched, then the newest).

The index and field names come from :mod:`kgmem.store.rules` (which also writes the indexes' schema and the
statement blocks), so the two cannot drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from ..store.rules import KEYWORD_FIELDS, KEYWORD_INDEXES, VECTOR_INDEXES

__all__ = ("AS_ITSELF", "CHANNELS", "Channel", "Family", "REGISTRY", "channel", "families", "run_as")

Family = Literal["vector", "keyword", "entity"]
Need = Literal["vector", "words", "entities"]


@dataclass(frozen=True)
class Channel:
    """One retrieval channel.

    ``family``: how it searches; ``index``: the Neo4j index (None: the entity channel); ``field``: the text
    property a keyword channel searches; ``solo``: the statement that runs it alone (widening, a time window);
    ``needs``: what it reads from the question — its vector, its words (the Lucene query), its entity keys;
    ``score``: what its scores are."""

    name: str
    family: Family
    index: str | None
    field: str | None
    solo: str
    needs: Need
    score: str

    @property
    def group(self) -> Literal["vector", "words"]:
        """The ``recall/candidates`` call it runs in: the vector searches together, the others (fulltext and
        entity: they need the question's words, not its vector, and can run while it is embedded) together."""
        return "vector" if self.family == "vector" else "words"

    @property
    def is_vector(self) -> bool:
        return self.family == "vector"

    @property
    def is_keyword(self) -> bool:
        return self.family == "keyword"

    def columns(self) -> tuple[str, str, str]:
        """Its columns in a ``recall/candidates`` row: the kept candidates, how many the index gave, how many of
        those passed the eligibility rule (the entity channel: its candidates and the entities matched)."""
        if self.family == "entity":
            return (self.name, "entities", "entities")
        return (self.name, f"{self.name}_fetched", f"{self.name}_eligible")


def _registry() -> dict[str, Channel]:
    out: dict[str, Channel] = {}
    order = ("vector", "keyword", "entity", "context_vector", "wide_vector", "context_keyword", "window_keyword")
    for name in order:
        if name in VECTOR_INDEXES:
            out[name] = Channel(name, "vector", VECTOR_INDEXES[name], None, "recall/vector", "vector", "cosine")
        elif name in KEYWORD_INDEXES:
            out[name] = Channel(
                name, "keyword", KEYWORD_INDEXES[name], KEYWORD_FIELDS[name], "recall/keyword", "words", "bm25"
            )
        else:
            out[name] = Channel(
                name, "entity", None, None, "recall/entity", "entities", "entities matched, then the newest"
            )
    missing = (set(VECTOR_INDEXES) | set(KEYWORD_INDEXES)) - set(out)
    if missing:  # an index channel added to kgmem.store.rules and not given a place here
        raise RuntimeError(f"channels without a place in the registry: {sorted(missing)}")
    return out


REGISTRY: dict[str, Channel] = _registry()
CHANNELS: tuple[str, ...] = tuple(REGISTRY)


def channel(name: str) -> Channel:
    return REGISTRY[name]


# A memory with no neighbour in its exchange reads as itself (kgmem.derived.context): its context text and vectors
# are its own, so each context channel ranks it as the channel of its own text or vector does.
AS_ITSELF: Mapping[str, str] = MappingProxyType(
    {"context_vector": "vector", "wide_vector": "vector", "context_keyword": "keyword", "window_keyword": "keyword"}
)


def run_as(channels: tuple[str, ...], as_itself: bool) -> tuple[tuple[str, ...], dict[str, str]]:
    """The channels to run for ``channels`` and, per channel not run, the channel whose ranking it takes: when
    every memory of the tenant reads as itself (``as_itself``), each context channel is its own channel's
    ranking (:data:`AS_ITSELF`), so only that one is searched; otherwise every channel runs."""
    if not as_itself:
        return channels, {}
    mirrors = {c: AS_ITSELF[c] for c in channels if c in AS_ITSELF}
    return tuple(dict.fromkeys(mirrors.get(c, c) for c in channels)), mirrors


def families(channels: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The named ``channels`` in the groups that run side by side, each as one ``recall/candidates`` call: the
    vector channels first, then the others (fulltext and entity). Either may be empty (then there is one call)."""
    vectors = tuple(c for c in channels if REGISTRY[c].group == "vector")
    others = tuple(c for c in channels if REGISTRY[c].group == "words")
    return [f for f in (vectors, others) if f]

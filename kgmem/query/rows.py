"""The typed rows of recall's channel statements: one dataclass per row shape, parsed once where the executor
reads them (:mod:`kgmem.query.execute`), so that no other code reads a statement's columns by name.

* :class:`Scored` — one candidate of a channel (``{id, score}``);
* :class:`ChannelRow` — an index channel's candidates with how many the index gave (``fetched``) and how many of
  those passed the eligibility rule (``eligible``): a ``recall/candidates`` channel's columns
  (:meth:`kgmem.query.registry.Channel.columns`), or a ``recall/vector`` / ``recall/keyword`` row;
* :class:`EntityRow` — the entity channel's candidates and the entities the question named;
* :class:`CandidatesRow` — a ``recall/candidates`` row: the channels it ran and every candidate's map
  (``details``: what the boosts read; recall/details reads the full hit map later);
* :class:`Candidates` — what a channel brings into fusion, however many statements it took;
* the three maps of a memory recall reads, each a subclass of the one before: :class:`CandidateMap` (what the
  boosts read), :class:`PoolMap` (and what the confidence reads of a candidate it does not show) and
  :class:`HitMap` (the full hit: :meth:`HitMap.hit`). :func:`map_of` tells a ``recall/details`` row's map.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Mapping, Self, Sequence

from ..results import Hit, cosine, from_epoch, retiring_order
from .registry import REGISTRY


def _stamp(value: Any) -> tuple[int, int] | None:
    """``[epoch seconds, nanoseconds]`` as a pair (None for no time, or a node deleted while it was read)."""
    return None if value is None or value[0] is None else (int(value[0]), int(value[1]))


_STAMPS = frozenset({"at_ts", "valid_to_ts"})  # [epoch seconds, nanoseconds]
_LISTS = frozenset({"mentions", "names", "superseded_by"})


def _read(name: str, value: Any) -> Any:
    """A map's column as its field holds it: times as pairs, lists as tuples."""
    if name in _STAMPS:
        return _stamp(value)
    if name in _LISTS:
        return tuple(value or ())
    return value


@dataclass(frozen=True)
class CandidateMap:
    """A candidate's map (``cypher/_templates/candidate_map``): what the boosts read. ``text`` is None for a
    memory forgotten meanwhile; times are ``[epoch seconds, nanoseconds]`` as the statement gives them."""

    id: str
    text: str | None
    at_ts: tuple[int, int] | None
    origin: str | None
    mentions: tuple[str, ...]  # the question's entities it mentions, by the graph

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Self:
        """The map of ``row``: each field read from the column of its name (a column the row lacks: None)."""
        return cls(**{name: _read(name, row.get(name)) for name in _COLUMNS[cls]})

    @property
    def at(self) -> dt.datetime | None:
        return from_epoch(self.at_ts)


@dataclass(frozen=True)
class PoolMap(CandidateMap):
    """A candidate's map with what the confidence reads of it (``cypher/_templates/pool_map``): the names it
    mentions and its cosine to the question without its names (raw, as Neo4j normalises it)."""

    names: tuple[str, ...] = ()
    topic_similarity: float | None = None


@dataclass(frozen=True)
class HitMap(PoolMap):
    """A full hit map (``cypher/_templates/hit_map``): everything a :class:`~kgmem.results.Hit` shows, the cosines
    to the question and to it in context (raw), and the memories that retired it (``superseded_by``: edges
    ``{id, confidence, inferred, cue, by}``)."""

    kind: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    polarity: bool | None = None
    valid_to_ts: tuple[int, int] | None = None
    stream: str | None = None
    user: str | None = None
    causes: int | None = None
    similarity: float | None = None
    context_similarity: float | None = None
    superseded_by: tuple[dict[str, Any], ...] = ()

    def hit(self) -> Hit:
        """The :class:`~kgmem.results.Hit` it shows (ranking fields — score, confident, channels — are set by
        recall)."""
        retired = retiring_order(list(self.superseded_by))
        return Hit(
            id=self.id,
            text=self.text or "",
            at=self.at,
            score=0.0,
            confident=False,
            current=True,
            channels={},
            kind=self.kind or "episode",
            similarity=cosine(self.similarity),
            subject=self.subject,
            predicate=self.predicate,
            object=self.object,
            polarity=self.polarity,
            causes=self.causes,
            origin=self.origin,
            valid_to=from_epoch(self.valid_to_ts),
            context_similarity=cosine(self.context_similarity),
            superseded_by=[r["id"] for r in retired],
            retired=retired,
        )


# the fields of each map class, in order: what :meth:`CandidateMap.of` reads of a row (an immutable table)
_COLUMNS: Mapping[type[CandidateMap], tuple[str, ...]] = MappingProxyType(
    {c: tuple(f.name for f in fields(c)) for c in (CandidateMap, PoolMap, HitMap)}
)


def map_of(row: Mapping[str, Any]) -> PoolMap:
    """A ``recall/details`` row's map: a full hit map where it holds one (the statement chose it for the ids of
    ``$full``: it has ``kind``), else a pool map (``cypher/_templates/details_case``)."""
    return HitMap.of(row) if "kind" in row else PoolMap.of(row)


@dataclass(frozen=True)
class Scored:
    id: str
    score: float | None  # None: the entity channel scores nothing

    @classmethod
    def many(cls, rows: Sequence[Mapping[str, Any]] | None) -> tuple[Scored, ...]:
        return tuple(cls(str(r["id"]), None if r.get("score") is None else float(r["score"])) for r in rows or ())


@dataclass(frozen=True)
class ChannelRow:
    hits: tuple[Scored, ...]
    fetched: int
    eligible: int | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> ChannelRow:
        """A ``recall/vector`` or ``recall/keyword`` row (``hits``, ``fetched``, ``eligible``)."""
        return cls(Scored.many(row["hits"]), int(row["fetched"] or 0), row.get("eligible"))


@dataclass(frozen=True)
class EntityRow:
    hits: tuple[Scored, ...]
    entities: tuple[Mapping[str, Any], ...]  # {key, name}

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> EntityRow:
        return cls(Scored.many(row["entity"]), tuple(row["entities"] or ()))


@dataclass(frozen=True)
class CandidatesRow:
    channels: Mapping[str, ChannelRow]
    entity: EntityRow | None
    details: tuple[CandidateMap, ...]

    @classmethod
    def of(cls, row: Mapping[str, Any], channels: Sequence[str]) -> CandidatesRow:
        """The columns of the ``channels`` a ``recall/candidates`` call ran (the registry names them)."""
        index: dict[str, ChannelRow] = {}
        entity = None
        for name in channels:
            spec = REGISTRY[name]
            if spec.family == "entity":
                entity = EntityRow.of(row)
                continue
            hits, fetched, eligible = spec.columns()
            index[name] = ChannelRow(Scored.many(row[hits]), int(row[fetched] or 0), row[eligible])
        return cls(index, entity, tuple(CandidateMap.of(d) for d in row["details"] or ()))


@dataclass
class Candidates:
    """A channel's ranked candidates: ids, scores (cosines for the vector family, BM25 for the keyword family,
    None for the entity channel) and what its statements did (``detail``: the tries, the Lucene query, ...)."""

    channel: str
    ids: list[str]
    scores: list[float | None]
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def scored(cls, name: str, hits: Sequence[Scored], detail: Mapping[str, Any]) -> Candidates:
        """From a channel's rows: Neo4j's normalised cosines back to cosines for the vector family and the entity
        channel (which has none), BM25 as it came for the keyword family."""
        spec = REGISTRY[name]
        scores = [h.score for h in hits] if spec.is_keyword else [cosine(h.score) for h in hits]
        return cls(name, [h.id for h in hits], scores, {**detail, "score": spec.score})

    def taken_by(self, name: str) -> Candidates:
        """These candidates as the ranking of channel ``name``, which takes them without a search of its own
        (a context channel in a tenant whose memories all read as themselves)."""
        return Candidates(name, list(self.ids), list(self.scores), {**self.detail, "same_as": self.channel})

    def to_dict(self) -> dict[str, Any]:
        scores = [None if s is None else round(float(s), 6) for s in self.scores]
        return {"ids": self.ids, "scores": scores, **self.detail}

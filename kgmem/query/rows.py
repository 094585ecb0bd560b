"""The typed rows of recall's channel statements: one dataclass per row shape, parsed once where the executor
reads them (:mod:`kgmem.query.execute`), so that no other code reads a statement's columns by name.

* :class:`Scored` — one candidate of a channel (``{id, score}``);
* :class:`ChannelRow` — an index channel's candidates with how many the index gave (``fetched``) and how many of
  those passed the eligibility rule (``eligible``): a ``recall/candidates`` channel's columns
  (:meth:`kgmem.query.registry.Channel.columns`), or a ``recall/vector`` / ``recall/keyword`` row;
* :class:`EntityRow` — the entity channel's candidates and the entities the question named;
* :class:`CandidatesRow` — a ``recall/candidates`` row: the channels it ran and every candidate's map
  (``details``: what the boosts read; recall/details reads the full hit map later);
* :class:`Candidates` — what a channel brings into fusion, however many statements it took.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..results import cosine
from .registry import REGISTRY

CandidateMap = dict[
    str, Any
]  # a candidate's map (id, text, at_ts, origin, mentions, ...): cypher/_templates/candidate_map


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
        return cls(index, entity, tuple(row["details"] or ()))


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

    def to_dict(self) -> dict[str, Any]:
        scores = [None if s is None else round(float(s), 6) for s in self.scores]
        return {"ids": self.ids, "scores": scores, **self.detail}

"""Typed results. Every result has ``to_dict()`` giving exactly the JSON of the contract (§3), plus added fields.

Both the write path and the query path produce these; neither imports the other.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, overload


@overload
def iso(t: dt.datetime) -> str: ...
@overload
def iso(t: None) -> None: ...
@overload
def iso(t: dt.datetime | None) -> str | None: ...


def iso(t: dt.datetime | None) -> str | None:
    """RFC 3339 in UTC with a 'Z' (seconds precision unless there are fractions)."""
    if t is None:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    t = t.astimezone(dt.timezone.utc)
    s = t.isoformat(timespec="microseconds" if t.microsecond else "seconds")
    return s.replace("+00:00", "Z")


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def from_epoch(ts: list[int] | None) -> dt.datetime | None:
    """[epoch seconds, nanoseconds] (how the recall statements return times) → aware UTC datetime (µs)."""
    if ts is None or ts[0] is None:  # no time (or a node deleted while the query read it: every property null)
        return None
    return _EPOCH + dt.timedelta(seconds=ts[0], microseconds=ts[1] // 1000)


def cosine(normalised: float | None) -> float | None:
    """Neo4j's vector scores (index and ``vector.similarity.cosine``) are (1 + cos) / 2: back to cos."""
    return None if normalised is None else 2.0 * normalised - 1.0


def normalised(cos: float) -> float:
    """The inverse of :func:`cosine`: a cosine back to Neo4j's (1 + cos) / 2."""
    return (cos + 1.0) / 2.0


# ---------------------------------------------------------------------------- ingest


@dataclass
class IngestReport:
    read: int = 0
    created: int = 0
    unchanged: int = 0
    superseded: int = 0
    linked: int = 0
    errors: list[dict] = field(default_factory=list)
    facts: int = 0  # facts compiled from episode text
    entities: int = 0  # mentions resolved
    new_predicates: list[str] = field(default_factory=list)
    edges: dict[str, int] = field(
        default_factory=lambda: {
            "caused_by": 0,
            "inferred_caused_by": 0,
            "inferred_supersedes": 0,
            "next": 0,
            "supersedes": 0,
            "mentions": 0,
            "derived_from": 0,
        }
    )
    ids: list[str] = field(default_factory=list)  # created record ids, in write order
    # the InputError of each refused record, in the order they were found (errors holds their lines and text)
    problems: list[Any] = field(default_factory=list, repr=False)
    # wall-clock seconds of each phase: write (normalise, embed, store), context, causes, supersession
    timings: dict[str, float] = field(default_factory=dict)
    # what a file that was not JSONL became: {"format", "name", and for a document "id", "title", "parts"; for a
    # chat export "stream", "messages"}
    file: dict | None = None

    def to_dict(self) -> dict:
        extra = {"file": dict(self.file)} if self.file is not None else {}
        return {
            "read": self.read,
            "created": self.created,
            "unchanged": self.unchanged,
            "superseded": self.superseded,
            "linked": self.linked,
            "errors": list(self.errors),
            "facts": self.facts,
            "entities": self.entities,
            "new_predicates": list(self.new_predicates),
            "edges": dict(self.edges),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            **extra,
        }


# ---------------------------------------------------------------------------- memories and facts


@dataclass
class Memory:
    id: str
    text: str
    at: dt.datetime | None
    kind: str = "episode"
    tenant: str | None = None
    user: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    polarity: bool | None = None
    stream: str | None = None
    source: str | None = None
    confidence: float | None = None
    recorded_at: dt.datetime | None = None
    valid_to: dt.datetime | None = None

    @property
    def current(self) -> bool:
        """Whether it holds now: dated by now, and not replaced by a version that took effect by now (a fact
        version dated in the future is not current yet; the one before it still is)."""
        now = dt.datetime.now(dt.timezone.utc)
        return (self.at is None or self.at <= now) and (self.valid_to is None or self.valid_to > now)

    @classmethod
    def from_row(cls, row: dict) -> Memory:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__ if k in row})

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"id": self.id, "text": self.text, "at": iso(self.at), "kind": self.kind}
        for k in ("subject", "predicate", "object", "polarity", "stream", "source", "confidence", "user"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        d["recorded_at"] = iso(self.recorded_at)
        d["valid_to"] = iso(self.valid_to)
        d["current"] = self.current
        return d


@dataclass
class Fact:
    """One version of a slot."""

    id: str
    subject: str
    predicate: str
    object: str
    polarity: bool
    text: str
    valid_from: dt.datetime
    valid_to: dt.datetime | None
    recorded_at: dt.datetime | None = None
    version: int | None = None
    source: str | None = None

    @property
    def current(self) -> bool:
        """Whether this version holds now: it took effect by now and no later version has (a version dated in
        the future is not current yet; the one before it still is)."""
        now = dt.datetime.now(dt.timezone.utc)
        return self.valid_from <= now and (self.valid_to is None or self.valid_to > now)

    @classmethod
    def from_row(cls, row: dict) -> Fact:
        return cls(
            id=row["id"],
            subject=row["subject"],
            predicate=row["predicate"],
            object=row["object"],
            polarity=bool(row["polarity"]) if row.get("polarity") is not None else True,
            text=row["text"],
            valid_from=row["at"],
            valid_to=row.get("valid_to"),
            recorded_at=row.get("recorded_at"),
            version=row.get("version"),
            source=row.get("source"),
        )

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "object": self.object,
            "polarity": self.polarity,
            "text": self.text,
            "valid_from": iso(self.valid_from),
            "valid_to": iso(self.valid_to),
        }


@dataclass
class SlotAnswer:
    """``now`` / ``as-of`` answer: the slot and its value at a time (None when nothing held)."""

    subject: str
    predicate: str
    object: str | None
    at: dt.datetime | None
    value: Fact | None
    known_at: dt.datetime | None = None
    # plain-text memories that retired the value (or the memory it was compiled from) by an inferred link by
    # then: {id, text, at, confidence, by, cue}, strongest first — the chain says nothing newer, the words do
    retired_by: list[dict[str, Any]] = field(default_factory=list)
    # when nothing held: why it may be so (an empty tenant, a predicate outside the vocabulary), else None
    hint: str | None = None
    # when nothing held: the memory recall answers the slot's question with, confidently ({id, text, at,
    # confidence}); the slot holds no fact, but a memory may say it in words
    evidence: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "at": iso(self.at),
            "value": self.value.to_dict() if self.value else None,
            "retired_by": list(self.retired_by),
        }
        if self.known_at is not None:
            d["known_at"] = iso(self.known_at)
        d["hint"] = self.hint
        d["evidence"] = [{**e, "at": iso(e.get("at"))} for e in self.evidence]
        return d


@dataclass
class History:
    subject: str
    predicate: str
    object: str | None
    versions: list[Fact]
    hint: str | None = None  # when there is no version: why it may be so (as SlotAnswer.hint)
    evidence: list[dict[str, Any]] = field(default_factory=list)  # as SlotAnswer.evidence

    def to_dict(self) -> dict:
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            **({"object": self.object} if self.object is not None else {}),
            "versions": [{**v.to_dict(), "current": v.current} for v in self.versions],
            "hint": self.hint,
            "evidence": [{**e, "at": iso(e.get("at"))} for e in self.evidence],
        }


# ---------------------------------------------------------------------------- recall


def retiring_order(edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The memories that retired a hit ({id, confidence, inferred, cue}), best first: explicit version chains
    before inferred links, then by confidence, then by id."""
    return sorted(edges, key=lambda r: (bool(r.get("inferred")), -float(r.get("confidence") or 0.0), r["id"]))


@dataclass
class Hit:
    id: str
    text: str
    at: dt.datetime | None
    score: float
    confident: bool
    current: bool
    channels: dict[str, int | None]
    kind: str = "episode"
    similarity: float | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    polarity: bool | None = None
    context: list[dict] = field(default_factory=list)
    causes: int | None = field(default=None, repr=False)  # recorded causes, when the query saw them (for why)
    origin: str | None = field(default=None, repr=False)  # record / compiled / consolidated
    valid_to: dt.datetime | None = field(default=None, repr=False)
    context_similarity: float | None = field(default=None, repr=False)  # cosine to the memory read in context
    superseded_by: list[str] = field(default_factory=list)  # newer memories (ids) that retired it, best first
    retired: list[dict[str, Any]] = field(default_factory=list, repr=False)  # those edges: id, confidence, cue

    @classmethod
    def from_record(cls, rec: dict) -> Hit:
        """The one formatter from a recall statement's hit map (cypher/_templates/hit_map.cypher.tmpl, expanded by kgmem/store/rules.py) to a hit;
        ranking fields (score, confident, channels) are set by recall."""
        retired = retiring_order(rec.get("superseded_by") or [])
        return cls(
            id=rec["id"],
            text=rec["text"],
            at=from_epoch(rec["at_ts"]),
            score=0.0,
            confident=False,
            current=True,
            channels={},
            kind=rec["kind"],
            similarity=cosine(rec["similarity"]),
            subject=rec["subject"],
            predicate=rec["predicate"],
            object=rec["object"],
            polarity=rec["polarity"],
            causes=rec["causes"],
            origin=rec["origin"],
            valid_to=from_epoch(rec["valid_to_ts"]),
            context_similarity=cosine(rec.get("context_similarity")),
            superseded_by=[r["id"] for r in retired],
            retired=retired,
        )

    def to_dict(self) -> dict:
        d: dict[str, Any] = {
            "id": self.id,
            "text": self.text,
            "at": iso(self.at),
            "score": round(self.score, 6),
            "confident": self.confident,
            "current": self.current,
            "channels": dict(self.channels),
            "kind": self.kind,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "superseded_by": list(self.superseded_by),
        }
        if self.subject is not None:
            d.update(subject=self.subject, predicate=self.predicate, object=self.object, polarity=self.polarity)
        if self.context:
            d["context"] = self.context
        return d


@dataclass
class Recall:
    query: str
    abstained: bool
    reason: str | None
    hits: list[Hit]
    explain: dict[str, Any] | None = None
    confidence: float | None = None  # the learned model's probability that the best hit should be answered
    features: dict[str, float] | None = field(default=None, repr=False)  # what the model saw
    # the kind of "no" when it abstained: {"kind": "topic_absent", "topic": [...]} (nothing about the topic),
    # {"kind": "other_subject", "named", "other"} (the memories say it of someone else), "low_confidence",
    # "no_match" (nothing eligible matched); each with "message" where the words tell. None when answered
    decline: dict[str, Any] | None = None

    def to_dict(self) -> dict:
        d = {
            "query": self.query,
            "abstained": self.abstained,
            "reason": self.reason,
            "hits": [h.to_dict() for h in self.hits],
        }
        if self.decline is not None:
            d["decline"] = dict(self.decline)
        if self.confidence is not None:
            d["confidence"] = round(self.confidence, 4)
        if self.explain is not None:
            d["explain"] = self.explain
        return d


# ---------------------------------------------------------------------------- why


@dataclass
class Why:
    query: str
    abstained: bool
    symptom: Memory | None
    roots: list[dict]  # {id, text, at, depth, confidence, score}
    paths: list[list[str]]
    reason: str | None = None
    explain: dict[str, Any] | None = None
    # the answer to "why?": the memory that states the symptom's cause, then that cause's causes (nearest first),
    # each {id, text, at, confidence, by: "recorded" | "inferred" | "words"}; the symptom itself when it states
    # its own cause
    causes: list[dict] = field(default_factory=list)
    confidence: float | None = None  # how likely the first of ``causes`` states why

    def to_dict(self) -> dict:
        d = {
            "query": self.query,
            "abstained": self.abstained,
            "symptom": None
            if self.symptom is None
            else {"id": self.symptom.id, "text": self.symptom.text, "at": iso(self.symptom.at)},
            "roots": [{**r, "at": iso(r.get("at"))} for r in self.roots],
            "paths": [list(p) for p in self.paths],
            "causes": [{**c, "at": iso(c.get("at"))} for c in self.causes],
            "confidence": self.confidence,
            "reason": self.reason,
        }
        if self.explain is not None:
            d["explain"] = self.explain
        return d

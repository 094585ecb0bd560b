"""Typed results. Every result has ``to_dict()`` giving exactly the JSON of the contract (§3), plus added fields.

Both the write path and the query path produce these; neither imports the other.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from .record_spec import SPEC

# the record fields a returned memory has when they are set, in the record's order (kgmem.record_spec: each
# field's ``result``); id, text, at and kind it always has
RECORD_FIELDS = tuple(name for name, spec in SPEC.items() if spec.result is not None)


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


def jsonable(value: Any) -> Any:
    """``value`` with every time as :func:`iso` (a date as ISO), maps and lists converted all the way down: what
    ``json.dumps`` takes as it is."""
    if isinstance(value, dt.datetime):
        return iso(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def from_epoch(ts: Sequence[Any] | None) -> dt.datetime | None:
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
    errors: list[dict[str, Any]] = field(default_factory=list)
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
    file: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
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
    def from_row(cls, row: dict[str, Any]) -> Memory:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__ if k in row})

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "text": self.text, "at": iso(self.at), "kind": self.kind}
        for k in RECORD_FIELDS:
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
    def from_row(cls, row: dict[str, Any]) -> Fact:
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

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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
    context: list[dict[str, Any]] = field(default_factory=list)
    causes: int | None = field(default=None, repr=False)  # recorded causes, when the query saw them (for why)
    origin: str | None = field(default=None, repr=False)  # record / compiled / consolidated
    valid_to: dt.datetime | None = field(default=None, repr=False)
    context_similarity: float | None = field(default=None, repr=False)  # cosine to the memory read in context
    superseded_by: list[str] = field(default_factory=list)  # newer memories (ids) that retired it, best first
    retired: list[dict[str, Any]] = field(default_factory=list, repr=False)  # those edges: id, confidence, cue

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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
    roots: list[dict[str, Any]]  # {id, text, at, depth, confidence, score}
    paths: list[list[str]]
    reason: str | None = None
    explain: dict[str, Any] | None = None
    # the answer to "why?": the memory that states the symptom's cause, then that cause's causes (nearest first),
    # each {id, text, at, confidence, by: "recorded" | "inferred" | "words"}; the symptom itself when it states
    # its own cause
    causes: list[dict[str, Any]] = field(default_factory=list)
    confidence: float | None = None  # how likely the first of ``causes`` states why

    def to_dict(self) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------- a memory's graph


def _edge_side(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "at": iso(row.get("at"))}


@dataclass
class Mentions:
    """The memories that mention an entity, newest first (:meth:`~kgmem.MemoryGraph.mentions`)."""

    entity: str  # the name asked about
    key: str  # its comparison key (kgmem.normalize.entity_key)
    name: str | None  # the entity's stored name; None when no memory of the tenant mentions it
    aliases: list[str]
    total: int  # memories that mention it in all (``memories`` holds the newest ``limit`` of them)
    memories: list[Memory]
    hint: str | None = None  # when nothing mentions it: why that may be so

    def to_dict(self) -> dict[str, Any]:
        return {
            "entity": self.entity,
            "key": self.key,
            "name": self.name,
            "aliases": list(self.aliases),
            "total": self.total,
            "memories": [m.to_dict() for m in self.memories],
            "hint": self.hint,
        }


@dataclass
class Neighbourhood:
    """A memory and what is next to it in the graph (:meth:`~kgmem.MemoryGraph.neighbourhood`): its causes and
    effects (CAUSED_BY, each ``{id, text, at, inferred, confidence}``), what it superseded and what superseded
    it (SUPERSEDES, one step, also with ``by`` and ``cue``), its stream neighbours (NEXT: ``previous``,
    ``next``), the entities it mentions (``{key, name}``) and the memory it is a part of (a document); each list
    holds at most the limit asked for, and ``counts`` has the full numbers."""

    memory: Memory
    causes: list[dict[str, Any]] = field(default_factory=list)
    effects: list[dict[str, Any]] = field(default_factory=list)
    supersedes: list[dict[str, Any]] = field(default_factory=list)
    superseded_by: list[dict[str, Any]] = field(default_factory=list)
    previous: dict[str, Any] | None = None
    next: dict[str, Any] | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    part_of: dict[str, Any] | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "memory": self.memory.to_dict(),
            "causes": [_edge_side(r) for r in self.causes],
            "effects": [_edge_side(r) for r in self.effects],
            "supersedes": [_edge_side(r) for r in self.supersedes],
            "superseded_by": [_edge_side(r) for r in self.superseded_by],
            "previous": None if self.previous is None else _edge_side(self.previous),
            "next": None if self.next is None else _edge_side(self.next),
            "entities": [dict(e) for e in self.entities],
            "part_of": None if self.part_of is None else _edge_side(self.part_of),
            "counts": dict(self.counts),
        }


# ---------------------------------------------------------------------------- the JSON schemas of the results
# The JSON schema (2020-12) of each ``to_dict()`` above and of the API's dict results: what ``kgmem ... --json``
# prints and what the MCP tools return (each tool's ``outputSchema``, so a client can plan with the fields).
# Objects name their fields and which are always there; the contract lets fields be added, so none forbids
# others. tests/integration/test_mcp.py checks every tool's real output against them with extra fields refused.


def _s(kind: str, description: str | None = None, *, null: bool = False, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": [kind, "null"] if null else kind, **more}
    if description:
        out["description"] = description
    return out


def _obj(
    properties: dict[str, dict[str, Any]],
    description: str | None = None,
    *,
    optional: tuple[str, ...] = (),
    null: bool = False,
) -> dict[str, Any]:
    """An object with these fields, all of them always present but those named ``optional``."""
    out: dict[str, Any] = {
        "type": ["object", "null"] if null else "object",
        "properties": properties,
        "required": [k for k in properties if k not in optional],
    }
    if description:
        out["description"] = description
    return out


def _list(items: dict[str, Any], description: str | None = None) -> dict[str, Any]:
    return _s("array", description, items=items)


def _time(description: str | None = None, *, null: bool = True) -> dict[str, Any]:
    return _s("string", description or "RFC 3339, UTC", null=null, format="date-time")


_ID = _s("string", "the memory's id")
_IDS = _list(_s("string"))
_TEXT = _s("string")
_CONFIDENCE = _s("number", "0 to 1")

MEMORY_SCHEMA = _obj(
    {
        "id": _ID,
        "text": _TEXT,
        "at": _time("when it happened (valid time)"),
        "kind": _s("string", "episode, fact or summary"),
        **{name: _s(SPEC[name].json_type, SPEC[name].result) for name in RECORD_FIELDS},
        "recorded_at": _time("when it was written"),
        "valid_to": _time("when a newer version replaced it (null: it still holds)"),
        "current": _s("boolean", "it holds now"),
    },
    "one memory",
    optional=RECORD_FIELDS,
)

INGEST_SCHEMA = _obj(
    {
        "read": _s("integer", "records read"),
        "created": _s("integer", "memories written"),
        "unchanged": _s("integer", "records already stored"),
        "superseded": _s("integer"),
        "linked": _s("integer"),
        "errors": _list(
            _obj({"line": _s("integer", "1-based position of the record"), "error": _s("string")}),
            "the refused records (the others landed)",
        ),
        "facts": _s("integer", "facts compiled from episode text"),
        "entities": _s("integer", "entity mentions resolved"),
        "new_predicates": _list(_s("string")),
        "edges": _s("object", "edges created, by kind", additionalProperties=_s("integer")),
        "timings": _s("object", "seconds per phase", additionalProperties=_s("number")),
        "file": _obj(
            {
                "format": _s("string", "markdown, text, json or chat"),
                "name": _s("string"),
                "id": _s("string", "a document's id (forgetting it forgets its parts)"),
                "title": _s("string"),
                "parts": _s("integer"),
                "stream": _s("string", "a chat export's stream"),
                "messages": _s("integer"),
                "records": _s("integer"),
            },
            "what a file that was not JSONL became",
            optional=("id", "title", "parts", "stream", "messages", "records"),
        ),
    },
    "the ingest report",
    optional=("file",),
)

_HIT = _obj(
    {
        "id": _ID,
        "text": _TEXT,
        "at": _time(),
        "score": _s("number", "fused rank score"),
        "confident": _s("boolean"),
        "current": _s("boolean", "still held at the question's time"),
        "channels": _s(
            "object", "its rank in each channel (null: not found there)", additionalProperties=_s("integer", null=True)
        ),
        "kind": _s("string"),
        "similarity": _s("number", "cosine to the question", null=True),
        "superseded_by": _list(_s("string"), "ids of the newer memories that retired it, best first"),
        "subject": _s("string", null=True),
        "predicate": _s("string", null=True),
        "object": _s("string", null=True),
        "polarity": _s("boolean", null=True),
        "context": _list(
            _obj({"id": _ID, "text": _TEXT, "at": _time(), "offset": _s("integer", "< 0 before, > 0 after")}),
            "its stream neighbours (expand)",
        ),
    },
    optional=("subject", "predicate", "object", "polarity", "context"),
)

RECALL_SCHEMA = _obj(
    {
        "query": _s("string"),
        "abstained": _s("boolean", "true: no hit answers confidently"),
        "reason": _s("string", null=True),
        "hits": _list(_HIT, "best first"),
        "decline": _obj(
            {
                "kind": _s("string", enum=["topic_absent", "other_subject", "low_confidence", "no_match"]),
                "message": _s("string"),
                "topic": _list(_s("string")),
                "named": _s("string"),
                "other": _s("string"),
            },
            "when it abstained: the kind of no",
            optional=("message", "topic", "named", "other"),
        ),
        "confidence": _s("number", "probability that the best hit answers the question"),
        "explain": _s("object", "the manifest (explain): filters, channel candidates, fused ranks"),
    },
    "recall's answer",
    optional=("decline", "confidence", "explain"),
)

_CAUSE = _obj(
    {
        "id": _ID,
        "text": _TEXT,
        "at": _time(),
        "confidence": _CONFIDENCE,
        "by": _s("string", "recorded, inferred or words"),
    }
)

WHY_SCHEMA = _obj(
    {
        "query": _s("string"),
        "abstained": _s("boolean"),
        "symptom": _obj({"id": _ID, "text": _TEXT, "at": _time()}, "the memory explained", null=True),
        "roots": _list(
            _obj(
                {
                    "id": _ID,
                    "text": _TEXT,
                    "at": _time(),
                    "depth": _s("integer"),
                    "confidence": _CONFIDENCE,
                    "inferred": _s("boolean"),
                    "truncated": _s("boolean"),
                },
                optional=("confidence", "inferred", "truncated"),
            ),
            "root causes, best first",
        ),
        "paths": _list(_list(_s("string")), "each from the symptom to a root"),
        "causes": _list(_CAUSE, "the cause, then its causes, nearest first"),
        "confidence": _s("number", null=True),
        "reason": _s("string", null=True),
        "explain": _s("object"),
    },
    "why's answer",
    optional=("explain",),
)

_VALUE = {
    "id": _ID,
    "object": _s("string"),
    "polarity": _s("boolean"),
    "text": _TEXT,
    "valid_from": _time(null=False),
    "valid_to": _time(),
}
_EVIDENCE = _list(
    _obj({"id": _ID, "text": _TEXT, "at": _time(), "confidence": _CONFIDENCE}),
    "when the slot holds nothing: the memory recall answers its question with",
)

SLOT_SCHEMA = _obj(
    {
        "subject": _s("string"),
        "predicate": _s("string"),
        "object": _s("string", null=True),
        "at": _time("the time asked about"),
        "value": _obj(_VALUE, "the version that held (null: nothing)", null=True),
        "retired_by": _list(
            _obj(
                {
                    "id": _ID,
                    "text": _TEXT,
                    "at": _time(),
                    "confidence": _s("number", null=True),
                    "by": _s("string", null=True),
                    "cue": _s("string", null=True),
                }
            ),
            "plain-text memories that retired the value, strongest first",
        ),
        "known_at": _time(),
        "hint": _s("string", "why an empty answer may be empty", null=True),
        "evidence": _EVIDENCE,
    },
    "a fact slot's value at a time",
    optional=("known_at",),
)

HISTORY_SCHEMA = _obj(
    {
        "subject": _s("string"),
        "predicate": _s("string"),
        "object": _s("string"),
        "versions": _list(_obj({**_VALUE, "current": _s("boolean")}), "oldest first"),
        "hint": _s("string", null=True),
        "evidence": _EVIDENCE,
    },
    "every version of a fact slot",
    optional=("object",),
)

CHANGES_SCHEMA = _obj(
    {
        "since": _s("string", "the time asked about, as given"),
        "changes": _list(
            _obj(
                {
                    "kind": _s("string", "fact: a version took effect; memory: a memory retired an earlier one"),
                    "id": _ID,
                    "text": _TEXT,
                    "at": _time(null=False),
                    "recorded_at": _time(),
                    "previous": _obj(
                        {
                            "id": _ID,
                            "text": _TEXT,
                            "object": _s("string", null=True),
                            "polarity": _s("boolean", null=True),
                            "at": _time(),
                        },
                        "what it replaced",
                        optional=("text", "object", "polarity"),
                        null=True,
                    ),
                    "current": _s("boolean"),
                    "subject": _s("string", null=True),
                    "predicate": _s("string", null=True),
                    "object": _s("string", null=True),
                    "polarity": _s("boolean", null=True),
                }
            ),
            "newest first",
        ),
    },
    "what changed since a time",
)

TIMELINE_SCHEMA = _obj(
    {
        "id": _ID,
        "items": _list(
            _obj(
                {
                    "id": _ID,
                    "text": _TEXT,
                    "at": _time(),
                    "kind": _s("string", null=True),
                    "stream": _s("string", null=True),
                    "offset": _s("integer", "< 0 before, 0 the memory, > 0 after"),
                }
            ),
            "in order",
        ),
    },
    "what happened around a memory",
)

FORGET_SCHEMA = _obj(
    {
        "ids": _list(_s("string"), "the memories asked to be forgotten"),
        "forgotten": _list(_s("string"), "every memory deleted (with what was derived from them)"),
        "missing": _IDS,
        "consolidated": _obj({"removed": _IDS, "rederived": _IDS}),
        "slots_relinked": _s("integer"),
        "entities_removed": _s("integer"),
        "tombstones": _s("integer", "content-free tombstones written"),
        "causes_reinferred": _s("integer"),
        "effects_checked": _s("integer"),
    },
    "what forgetting deleted",
)

FORGET_STREAM_SCHEMA = _obj(
    {
        **FORGET_SCHEMA["properties"],
        "stream": _s("string"),
        "document": _s("string", "the document memory forgotten with its parts (its id names the stream)", null=True),
    },
    "what forgetting a stream deleted",
)

VOCABULARY_SCHEMA = _obj(
    {
        "version": _s("integer"),
        "predicates": _s(
            "object",
            "by canonical name",
            additionalProperties=_obj(
                {
                    "aliases": _list(_s("string")),
                    "cardinality": _s("string", "one: a new value supersedes the old; many: one slot per object"),
                    "description": _s("string"),
                    "negative_aliases": _list(_s("string"), "names that negate it"),
                },
                optional=("negative_aliases",),
            ),
        ),
    },
    "the predicates facts are stored under",
)

ASK_SCHEMA = _obj(
    {
        "question": _s("string"),
        "intent": _s("string", "slot, history, why, recall or none"),
        "confidence": _CONFIDENCE,
        "operation": _s("string", "now, as_of, history, why or recall (null: none)", null=True),
        "result": {
            "description": "the answer of the operation (that command's JSON), or null",
            "anyOf": [SLOT_SCHEMA, HISTORY_SCHEMA, WHY_SCHEMA, RECALL_SCHEMA, {"type": "null"}],
        },
        "note": _s("string", null=True),
        "probabilities": _s("object", "the router's probability of each intent", additionalProperties=_s("number")),
    },
    "ask's routed answer",
)

_SIDE = {"id": _ID, "text": _TEXT, "at": _time()}
_LINKED = _obj(
    {**_SIDE, "inferred": _s("boolean", "inferred after the write (false: recorded)"), "confidence": _CONFIDENCE}
)
_RETIRING = _obj(
    {
        **_SIDE,
        "inferred": _s("boolean", "inferred from words (false: a slot's version chain)"),
        "confidence": _CONFIDENCE,
        "by": _s("string", null=True),
        "cue": _s("string", null=True),
    }
)

MENTIONS_SCHEMA = _obj(
    {
        "entity": _s("string", "the name asked about"),
        "key": _s("string", "its comparison key"),
        "name": _s("string", "the entity's stored name (null: no memory mentions it)", null=True),
        "aliases": _list(_s("string")),
        "total": _s("integer", "memories that mention it in all"),
        "memories": _list(MEMORY_SCHEMA, "newest first, at most the limit"),
        "hint": _s("string", null=True),
    },
    "the memories that mention an entity",
)

NEIGHBOURHOOD_SCHEMA = _obj(
    {
        "id": _ID,
        "memory": MEMORY_SCHEMA,
        "causes": _list(_LINKED, "what caused it (CAUSED_BY): recorded first, then by confidence"),
        "effects": _list(_LINKED, "what it caused"),
        "supersedes": _list(_RETIRING, "what it replaced (SUPERSEDES)"),
        "superseded_by": _list(_RETIRING, "what replaced it"),
        "previous": _obj(_SIDE, "the memory before it in its stream (NEXT)", null=True),
        "next": _obj(_SIDE, "the memory after it in its stream", null=True),
        "entities": _list(_obj({"key": _s("string"), "name": _s("string", null=True)}), "what it mentions"),
        "part_of": _obj(_SIDE, "the document it is a part of", null=True),
        "counts": _s("object", "the full number of each list", additionalProperties=_s("integer")),
    },
    "a memory and what is next to it in the graph",
)

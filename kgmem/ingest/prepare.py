"""Normalise validated records into the rows the writer stores — pure apart from the optional embedder
used to map unknown predicates to their nearest canonical one.

A record becomes one memory row. A record that is a fact gets its predicate through the vocabulary, its
subject and object keys, and its slot key. An episode's text goes through the rule-based compiler; each
fact found becomes its own ``:Fact`` memory (id ``<episode id>#f<n>``) derived from the episode.
Entities come from the record's ``entities`` or are extracted from the text.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Iterable

from ..keys import slot_key
from ..normalize import entity_key, looks_like_a_name, normalize_object, normalize_subject, object_key
from ..validate import MAX_ENTITY_NAME, MAX_SLOT_PART
from ..vocab import Vocabulary
from .compiler import compile_facts
from .entities import MAX_ENTITIES, KnownNames, extract_entities, known_names_in
from .records import Record

COMPILER_TRANSFORM = "compiler/v1"
# Entity.key is in the (tenant, key) uniqueness constraint, whose index refuses keys over ~8 kB and takes the
# whole batch's transaction down with it: a longer name (an 8k-character all-caps or base64 token read from a
# text) is not an entity, it is left out before the write
MAX_ENTITY_KEY = MAX_ENTITY_NAME


@dataclass
class Row:
    """One memory to write (the keys match ``cypher/ingest/write_memories.cypher``)."""

    id: str
    text: str
    kind: str
    at: dt.datetime
    content_key: str
    user: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    object_key: str | None = None
    polarity: bool | None = None
    slot: str | None = None
    source: str | None = None
    confidence: float | None = None
    stream: str | None = None
    retention: str | None = None
    origin: str = "record"
    transform: str | None = None
    derived_from: str | None = None
    entities: list[tuple[str, str, bool]] = field(default_factory=list)  # (key, display name, name-like)
    entities_given: bool = False  # the record named its entities: they are its mentions, no name is added later
    line: int | None = None

    def cypher_row(self, embedding: list[float]) -> dict[str, Any]:
        """The row's map for the statement: every field but those it does not write, and the embedding."""
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_WRITTEN}
        return {**row, "embedding": embedding}


# Row fields the statement does not take: the write links them (DERIVED_FROM, MENTIONS) or reports them (line)
_NOT_WRITTEN = ("derived_from", "entities", "line")


@dataclass
class Prepared:
    rows: list[Row]
    new_predicates: list[str]


class Preparer:
    """Turns records into rows for one tenant. Holds the vocabulary and the known entity aliases."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        *,
        embed: Callable[..., Any] | None = None,
        known_entities: Iterable[tuple[str, str, Iterable[str]]] = (),
        compile_text: bool = True,
    ):
        """``known_entities``: (key, name, aliases) of the tenant's existing entities."""
        self.vocabulary = vocabulary
        self.embed = embed
        self.compile_text = compile_text
        self._extracted: dict[str, list[str]] = {}
        self.alias_names = KnownNames()  # alias key -> canonical name (for extraction)
        self.alias_keys: dict[str, str] = {}  # alias key -> canonical entity key
        for key, name, aliases in known_entities:
            for alias in {name, *(aliases or ())}:
                ak = entity_key(alias)
                if ak and ak not in self.alias_keys:
                    self.alias_keys[ak] = key
                    self.alias_names.add(ak, name)

    def learn_names(self, records: Iterable[Record]) -> None:
        """First pass over a batch: names that show name-like evidence anywhere in it become known, so the
        second pass links every mention of them — also at the start of a sentence, where a lone
        capitalised word is otherwise taken for a common word."""
        self._extracted = {}
        for rec in records:
            if rec.entities is not None:
                names = list(rec.entities)
            else:
                # a record's own names come from its own words only (what other records taught is matched
                # below, by known_names_in): the same names whatever arrived before it
                names = self._extracted[rec.id] = extract_entities(rec.text)
            for name in names:
                key = entity_key(name)
                if not key or key in self.alias_keys or len(key) > MAX_ENTITY_KEY:
                    continue
                if rec.entities is not None or looks_like_a_name(name, rec.text):
                    self.alias_keys[key] = key
                    self.alias_names.add(key, name)

    def prepare(self, records: Iterable[Record]) -> Prepared:
        records = list(records)
        self.learn_names(records)
        rows: list[Row] = []
        new_predicates: list[str] = []
        for rec in records:
            user = rec.user or "user"
            base = Row(
                id=rec.id,
                text=rec.text,
                kind=rec.kind,
                at=rec.at,
                content_key=rec.content_key,
                user=rec.user,
                source=rec.source,
                confidence=rec.confidence,
                stream=rec.stream,
                retention=rec.retention,
                entities_given=rec.entities is not None,
                line=rec.line,
            )
            if rec.is_fact:
                assert rec.subject is not None and rec.predicate is not None and rec.object is not None
                match = self.vocabulary.normalize(rec.predicate, embed=self.embed)
                if match.status == "new" and match.name not in new_predicates:
                    new_predicates.append(match.name)
                self._fill_fact(
                    base,
                    rec.tenant,
                    normalize_subject(rec.subject, default_user=user),
                    match.name,
                    rec.object,
                    rec.polarity != match.negated,
                )
            base.entities = self._entities(rec.id, rec.text, rec.entities, base.subject)
            rows.append(base)
            if self.compile_text and rec.kind == "episode":
                rows.extend(self._compiled(rec, base, user))
        return Prepared(rows, new_predicates)

    def _fill_fact(self, row: Row, tenant: str, subject: str, predicate: str, obj: str, polarity: bool) -> None:
        row.subject = subject
        row.predicate = predicate
        row.object = normalize_object(obj)
        row.object_key = object_key(obj)
        row.polarity = polarity
        multi = self.vocabulary.is_multi(predicate)
        row.slot = slot_key(tenant, subject, predicate, row.object_key if multi else None)

    def _compiled(self, rec: Record, episode: Row, user: str) -> list[Row]:
        out: list[Row] = []
        seen: set[str | None] = set()
        for n, cf in enumerate(
            compile_facts(rec.text, subject_default=user, vocabulary=self.vocabulary, embed=self.embed), 1
        ):
            text = rec.text[cf.span[0] : cf.span[1]].strip() if cf.span else rec.text
            row = Row(
                id=f"{rec.id}#f{n}",
                text=text or rec.text,
                kind="fact",
                at=rec.at,
                content_key=f"{rec.content_key}#f{n}",
                user=rec.user,
                source=rec.source,
                confidence=cf.confidence,
                retention=rec.retention,
                origin="compiled",
                transform=COMPILER_TRANSFORM,
                derived_from=rec.id,
                line=rec.line,
            )
            subject = normalize_subject(cf.subject, default_user=user)
            if not subject or len(subject) > MAX_SLOT_PART or not cf.object or len(cf.object) > MAX_SLOT_PART * 2:
                continue  # a fact read from text whose subject is only symbols, or absurdly long: not a fact
            self._fill_fact(row, rec.tenant, subject, cf.predicate, cf.object, cf.polarity)
            if not row.object_key or row.slot in seen:  # the same slot twice in one text: the first statement stands
                continue
            seen.add(row.slot)
            okey = entity_key(row.object or "")
            row.entities = [e for e in episode.entities if e[0] == okey]
            out.append(row)
        return out

    def _entities(
        self, record_id: str, text: str, given: tuple[str, ...] | None, subject: str | None
    ) -> list[tuple[str, str, bool]]:
        if given is not None:
            names = list(given)
        else:  # the first pass's extraction, plus names learned since (from this batch) that occur here
            extracted = self._extracted.pop(record_id, None)
            if extracted is None:
                extracted = extract_entities(text)
            names = extracted + known_names_in(text, self.alias_names)
        if subject and subject != "user" and given is None:
            names.append(subject)
        out: list[tuple[str, str, bool]] = []
        seen: set[str] = set()
        for name in names:
            key = entity_key(name)
            key = self.alias_keys.get(key, key)
            if not key or key in seen or len(key) > MAX_ENTITY_KEY or len(name) > 4 * MAX_ENTITY_KEY:
                continue
            seen.add(key)
            name_like = given is not None or key in self.alias_keys.values() or looks_like_a_name(name, text)
            out.append((key, name, name_like))
            if len(out) >= MAX_ENTITIES:
                break
        return out

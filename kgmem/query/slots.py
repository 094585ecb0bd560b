"""Facts over time on one slot: now, as of T, known at T, history; and what changed since T."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ..keys import slot_key
from ..normalize import normalize_object, normalize_subject, object_key
from ..results import Fact, History, SlotAnswer, iso
from ..store import Store
from ..vocab import EmbedFn, Vocabulary


@dataclass(frozen=True)
class SlotRef:
    tenant: str
    subject: str
    predicate: str
    object: str | None  # display form, only for multi-valued predicates
    slot: str


def resolve_slot(
    vocabulary: Vocabulary,
    tenant: str,
    subject: str,
    predicate: str,
    obj: str | None = None,
    *,
    embed: EmbedFn | None = None,
) -> SlotRef:
    """Normalise a (subject, predicate[, object]) question the way the write path normalises facts."""
    pred = vocabulary.normalize(predicate, embed=embed).name
    subj = normalize_subject(subject)
    multi = vocabulary.is_multi(pred)
    okey = shown = None
    if multi and obj is not None:
        okey, shown = object_key(obj), normalize_object(obj)
    return SlotRef(tenant, subj, pred, shown, slot_key(tenant, subj, pred, okey))


def value_at(
    store: Store, ref: SlotRef, at: dt.datetime | None = None, known_at: dt.datetime | None = None
) -> SlotAnswer:
    """The slot's value at ``at`` (now when None), with the plain-text memories that retired it by then. A version
    dated later than now (scheduled: "from 2030 the rent is …") is not the value now: ``now`` is ``as_of`` the
    current time, and the value's ``valid_to`` says when the scheduled one takes over."""
    when = at if at is not None else dt.datetime.now(dt.timezone.utc)
    rows = store.read("facts/value_at", tenant=ref.tenant, slot=ref.slot, at=when, known_at=known_at)
    retired = [{**r, "at": iso(r["at"])} for r in rows[0]["retired_by"]] if rows else []
    return SlotAnswer(
        ref.subject,
        ref.predicate,
        ref.object,
        at,
        Fact.from_row(rows[0]) if rows else None,
        known_at=known_at,
        retired_by=retired,
    )


def history(store: Store, ref: SlotRef, known_at: dt.datetime | None = None) -> History:
    rows = store.read("facts/history", tenant=ref.tenant, slot=ref.slot, known_at=known_at)
    return History(ref.subject, ref.predicate, ref.object, [Fact.from_row(r) for r in rows])


def changes(store: Store, tenant: str, since: dt.datetime, limit: int = 100) -> list[dict[str, Any]]:
    """What changed since ``since`` in valid time, newest first, at most ``limit``: fact versions that took
    effect (``kind: "fact"``) and plain-text memories that retired an earlier one (``kind: "memory"``, with the
    memory they replaced as ``previous``)."""
    now = dt.datetime.now(dt.timezone.utc)
    facts = [
        {"kind": "fact", **r}
        for r in store.read("facts/changes_since", tenant=tenant, since=since, limit=limit, now=now)
    ]
    notes = [
        {"kind": "memory", "subject": None, "predicate": None, "object": None, "polarity": None, **r}
        for r in store.read("facts/memories_changed_since", tenant=tenant, since=since, limit=limit)
    ]
    both = sorted(facts + notes, key=lambda r: (r["at"], r["id"]), reverse=True)
    return both[:limit]

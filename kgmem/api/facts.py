"""Facts over time: a slot's value now (``now``), at a time (``as_of``), every version (``history``), and
what changed since a time (``changes``); and the vocabulary their predicates come from (``predicates``).
These read the slot chains only: no model, no ranked read.

The ``*_answer`` forms (what the CLI and the MCP server show) say why an empty answer may be empty
(``hint``): the tenant holds no memory, or the predicate is not in the vocabulary (with the nearest names)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Sequence, TypeVar

from ..config import DEFAULT_CHANGES
from ..errors import InputError
from ..normalize import snake_case
from ..query import slots as _slots
from ..results import Fact, History, SlotAnswer
from ..validate import MAX_CHANGES, MAX_SLOT_PART, check_int, check_slot_query, check_string, optional_time
from .base import GraphBase

if TYPE_CHECKING:
    import numpy as np

    from ..results import Recall

_Answer = TypeVar("_Answer", SlotAnswer, History)


def since_time(since: Any, now: Any = None) -> Any:
    """``since`` as a time: an RFC 3339 time or a date as written, else a time phrase ("April 15", "last
    week") read from ``now`` (the current time unless given) as the start of what it names."""
    import datetime as dt

    if since is None or (isinstance(since, str) and not since.strip()):
        raise InputError("is required", field="since", fix='give a time like "2026-03-01" or "April 15"')
    try:
        return optional_time(since, "since")
    except InputError as e:
        if not isinstance(since, str):
            raise
        as_time = e.fix
    from ..query.timeparse import parse_time_filter

    found = parse_time_filter(f"since {since.strip()}", now or dt.datetime.now(dt.timezone.utc))
    if found is None or found.start is None:
        raise InputError(
            f"'{since[:80]}' is neither a time nor a time phrase kgmem reads",
            field="since",
            fix=f'{as_time}, or a time phrase like "April 15" or "last week"',
        ) from None
    return found.start


class Facts(GraphBase):
    def _slot(self, subject: str, predicate: str, object: str | None) -> _slots.SlotRef:
        for name, value in (("subject", subject), ("predicate", predicate)):
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    "must be a non-empty string", field=name, fix='name the slot, e.g. now("maya", "lives_in")'
                )
        check_slot_query(subject, predicate, object)
        return _slots.resolve_slot(self.vocabulary, self.tenant, subject, predicate, object, embed=self._embed)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeds for the vocabulary's nearest-predicate match; a bound method, so its phrase cache hits."""
        return self.embedder.encode(texts)

    def now(self, subject: str, predicate: str, object: str | None = None) -> Fact | None:
        """The current value of a slot (None when nothing is recorded)."""
        return self._value_at(self._slot(subject, predicate, object)).value

    def now_answer(self, subject: str, predicate: str, object: str | None = None) -> SlotAnswer:
        """:meth:`now` with the slot and, when nothing is recorded, a ``hint`` saying why that may be."""
        return self._hinted(self._value_at(self._slot(subject, predicate, object)))

    def as_of(
        self, subject: str, predicate: str, at: Any, object: str | None = None, *, known_at: Any = None
    ) -> Fact | None:
        """The value the slot had at ``at`` (optionally: as the store knew it at ``known_at``)."""
        return self._as_of(subject, predicate, at, object, known_at).value

    def as_of_answer(
        self, subject: str, predicate: str, at: Any, object: str | None = None, *, known_at: Any = None
    ) -> SlotAnswer:
        """:meth:`as_of` with the slot and, when nothing held, a ``hint`` saying why that may be."""
        return self._hinted(self._as_of(subject, predicate, at, object, known_at))

    def _as_of(self, subject: str, predicate: str, at: Any, object: str | None, known_at: Any) -> SlotAnswer:
        when = optional_time(at, "at")
        if when is None:
            raise InputError("is required for as-of", field="at", fix='give a time like "2026-03-01"')
        slot, known = self._slot(subject, predicate, object), optional_time(known_at, "known_at")
        return self._value_at(slot, when, known)

    def _value_at(self, slot: _slots.SlotRef, at: Any = None, known_at: Any = None) -> SlotAnswer:
        self._ready(model=False)
        return _slots.value_at(self.store, slot, at, known_at)

    def history(self, subject: str, predicate: str, object: str | None = None, *, known_at: Any = None) -> list[Fact]:
        """Every version of the slot, oldest first."""
        return self._history(subject, predicate, object, known_at).versions

    def history_answer(
        self, subject: str, predicate: str, object: str | None = None, *, known_at: Any = None
    ) -> History:
        """:meth:`history` with the slot and, when there is no version, a ``hint`` saying why that may be."""
        return self._hinted(self._history(subject, predicate, object, known_at))

    def _history(self, subject: str, predicate: str, object: str | None, known_at: Any) -> History:
        slot, known = self._slot(subject, predicate, object), optional_time(known_at, "known_at")
        self._ready(model=False)
        return _slots.history(self.store, slot, known)

    def _hinted(self, answer: _Answer) -> _Answer:
        empty = answer.value is None if isinstance(answer, SlotAnswer) else not answer.versions
        if empty:
            answer.hint = self._empty_slot_hint(answer.predicate)
            if self.empty_tenant_hint() is None:
                self._evidence(answer)
        return answer

    def _evidence(self, answer: SlotAnswer | History) -> None:
        """An empty slot's question asked of recall (the predicate's description about the subject: "Where maya
        currently lives (city, region or country).", as of the answer's time): the memory it answers with
        confidently becomes the answer's ``evidence``, and the hint points to it."""
        spec = self.vocabulary.spec(answer.predicate)
        what = spec.description.replace("the subject", answer.subject) if spec and spec.description else ""
        phrase = " ".join(
            p for p in (what or f"{answer.subject} {answer.predicate.replace('_', ' ')}", answer.object) if p
        )
        found = self.recall(phrase, k=1, at=getattr(answer, "at", None))
        if found.abstained or not found.hits:
            return
        hit = found.hits[0]
        answer.evidence = [{"id": hit.id, "text": hit.text, "at": hit.at, "confidence": found.confidence}]
        said = f"no fact is recorded in this slot, but memory '{hit.id}' may say it: \"{hit.text[:120]}\""
        answer.hint = f"{answer.hint}; {said}" if answer.hint else said

    def _empty_slot_hint(self, predicate: str) -> str | None:
        """Why a slot may have answered nothing: an empty tenant, or a predicate outside the vocabulary (with the
        nearest spellings). None when neither holds (the slot is simply not recorded)."""
        empty = self.empty_tenant_hint()
        hints = [empty] if empty else []
        vocab = self.vocabulary
        if predicate not in vocab:
            spellings: dict[str, str] = {}
            for name in vocab.names():
                spec = vocab.spec(name)
                for word in (name, *(spec.aliases if spec else ())):
                    spellings.setdefault(word, name)
            scored = sorted(((difflib.SequenceMatcher(None, predicate, w).ratio(), w) for w in spellings), reverse=True)
            best = scored[0][0] if scored else 0.0
            close = [w for r, w in scored if r >= max(0.6, best - 0.08)]  # the best spellings, not every near one
            names = list(dict.fromkeys(spellings[w] for w in close))[:3]
            guess = f"; did you mean {' or '.join(names)}?" if names else " (see kgmem/data/vocabulary.json)"
            hints.append(f"predicate '{predicate}' is not in the vocabulary{guess}")
        return "; ".join(hints) or None

    if TYPE_CHECKING:  # provided by Reading (kgmem.api.reading); declared for the type checker only

        def recall(self, query: str, k: int = ..., at: Any = None) -> Recall: ...

    def predicates(self, match: str | None = None) -> dict[str, Any]:
        """The controlled vocabulary facts are stored under (the packaged one, extended by ``KGMEM_VOCABULARY``):
        ``{"version", "predicates": {name: {"aliases", "cardinality", "description"[, "negative_aliases"]}}}``,
        the shape of ``vocabulary.json``. Cardinality ``one``: a single-valued predicate (a new value supersedes
        the old); ``many``: multi-valued (one slot per object). ``match`` keeps the predicates whose name, an
        alias or the description contains it (case-insensitive)."""
        doc = self.vocabulary.to_dict()
        if match is None or not check_string(match, field="match", max_len=MAX_SLOT_PART, required=False).strip():
            return doc
        words = {match.strip().lower(), snake_case(match)} - {""}

        def hit(name: str, entry: dict[str, Any]) -> bool:
            names = [name, *entry["aliases"], *entry.get("negative_aliases", ())]
            return any(w in n for w in words for n in names) or any(w in entry["description"].lower() for w in words)

        return {**doc, "predicates": {k: v for k, v in doc["predicates"].items() if hit(k, v)}}

    def changes(self, since: Any, *, limit: int = DEFAULT_CHANGES, now: Any = None) -> list[dict[str, Any]]:
        """What changed since ``since`` in valid time, newest first: fact versions that took effect then
        (``kind: "fact"``) and memories that retired an earlier one (``kind: "memory"``). ``since`` is a time
        (RFC 3339, a date) or a time phrase measured from ``now`` ("April 15", "last week", "3 days ago")."""
        check_int(limit, field="limit", lo=1, hi=MAX_CHANGES, what="changes")
        when = since_time(since, optional_time(now, "now"))
        self._ready(model=False)
        return _slots.changes(self.store, self.tenant, when, limit)

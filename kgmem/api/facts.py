"""Facts over time: a slot's value now (``now``), at a time (``as_of``), every version (``history``), and
what changed since a time (``changes``). These read the slot chains only: no model, no ranked read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..config import DEFAULT_CHANGES
from ..errors import InputError
from ..query import slots as _slots
from ..results import Fact, History, SlotAnswer
from ..validate import MAX_CHANGES, check_int, check_slot_query, optional_time
from .base import GraphBase

if TYPE_CHECKING:
    import numpy as np


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
        return self.now_answer(subject, predicate, object).value

    def now_answer(self, subject: str, predicate: str, object: str | None = None) -> SlotAnswer:
        slot = self._slot(subject, predicate, object)
        self._ready(model=False)
        return _slots.value_at(self.store, slot)

    def as_of(
        self, subject: str, predicate: str, at: Any, object: str | None = None, *, known_at: Any = None
    ) -> Fact | None:
        """The value the slot had at ``at`` (optionally: as the store knew it at ``known_at``)."""
        return self.as_of_answer(subject, predicate, at, object, known_at=known_at).value

    def as_of_answer(
        self, subject: str, predicate: str, at: Any, object: str | None = None, *, known_at: Any = None
    ) -> SlotAnswer:
        when = optional_time(at, "at")
        if when is None:
            raise InputError("is required for as-of", field="at", fix='give a time like "2026-03-01"')
        slot, known = self._slot(subject, predicate, object), optional_time(known_at, "known_at")
        self._ready(model=False)
        return _slots.value_at(self.store, slot, when, known)

    def history(self, subject: str, predicate: str, object: str | None = None, *, known_at: Any = None) -> list[Fact]:
        """Every version of the slot, oldest first."""
        return self.history_answer(subject, predicate, object, known_at=known_at).versions

    def history_answer(
        self, subject: str, predicate: str, object: str | None = None, *, known_at: Any = None
    ) -> History:
        slot, known = self._slot(subject, predicate, object), optional_time(known_at, "known_at")
        self._ready(model=False)
        return _slots.history(self.store, slot, known)

    def changes(self, since: Any, *, limit: int = DEFAULT_CHANGES) -> list[dict[str, Any]]:
        """Fact versions that took effect or were recorded since ``since``, newest first."""
        check_int(limit, field="limit", lo=1, hi=MAX_CHANGES, what="changes")
        when = optional_time(since, "since")
        if when is None:
            raise InputError("is required", field="since", fix='give a time like "2026-03-01"')
        self._ready(model=False)
        return _slots.changes(self.store, self.tenant, when, limit)

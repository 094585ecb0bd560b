"""Eligibility filters — applied before ranking, never soft relevance features.

Tenant always; then user, kinds, a valid-time window [start, end), an as-of time (only memories with
``at <= T`` and, for facts, the version valid at T), and current-only (superseded versions excluded unless
``include_superseded`` or an ``at`` is given). Time phrases in the question ("last 7 days", "since March 1",
"in May", "yesterday") become the window, relative to a reference time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from ..results import iso
from .eligibility import PARAMS
from .timeparse import parse_time_filter


@dataclass(frozen=True)
class Filters:
    tenant: str
    user: str | None = None
    start: dt.datetime | None = None
    end: dt.datetime | None = None
    at: dt.datetime | None = None
    include_superseded: bool = False
    kinds: tuple[str, ...] | None = None
    time_phrase: str | None = None

    def params(self) -> dict:
        """The eligibility rule's parameters (:data:`~kgmem.query.eligibility.PARAMS`), as every recall
        statement takes them."""
        return {name: (list(v) if isinstance(v := getattr(self, name), tuple) else v) for name in PARAMS}

    def to_dict(self) -> dict:
        return {
            "tenant": self.tenant, "user": self.user, "start": iso(self.start), "end": iso(self.end),
            "at": iso(self.at), "include_superseded": self.include_superseded,
            "current_only": self.at is None and not self.include_superseded,
            "kinds": list(self.kinds) if self.kinds else None, "time_phrase": self.time_phrase,
        }


def build_filters(query: str, *, tenant: str, user: str | None = None, at: dt.datetime | None = None,
                  since: dt.datetime | None = None, until: dt.datetime | None = None,
                  include_superseded: bool = False, kinds: tuple[str, ...] | None = None,
                  now: dt.datetime | None = None, parse_time_phrases: bool = True) -> tuple[Filters, str]:
    """Filters for a question, and the text left to rank once a time phrase has been taken out."""
    f = Filters(tenant=tenant, user=user, start=since, end=until, at=at, include_superseded=include_superseded,
                kinds=kinds)
    text = query
    if parse_time_phrases:
        ref = now or at or dt.datetime.now(dt.timezone.utc)
        tf = parse_time_filter(query, ref)
        if tf is not None:
            start = max(filter(None, [f.start, tf.start]), default=None)
            end = min(filter(None, [f.end, tf.end]), default=None)
            f = replace(f, start=start, end=end, time_phrase=tf.phrase)
            text = tf.rest or query
    return f, text

"""Eligibility filters — applied before ranking, never soft relevance features.

Tenant always; then user, kinds, a valid-time window [start, end), an as-of time (only memories with
``at <= T`` and, for facts, the version valid at T), and current-only (superseded versions excluded unless
``include_superseded`` or an ``at`` is given). A time phrase in the question ("last 7 days", "since March 1",
"in May", "yesterday") becomes either the window or a ranking signal (:func:`time_use` says which).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import InputError
from ..results import iso
from ..store.rules import PARAMS
from .timeparse import TimeFilter, parse_time_filter

# questions that ask for a time: a time phrase in them says when the event was, not which memories to read
_ASKS_WHEN = re.compile(
    r"^\W*(?:when\b|what\s+(?:time|date|day|year|month)\b|which\s+(?:year|month|day|date)\b|"
    r"how\s+long\s+ago\b)|\bwhen\s+(?:did|was|were|is|will|do|does|had|has)\b",
    re.I,
)

TIME_MODES = ("auto", "filter", "rank", "off")


@dataclass(frozen=True)
class RankWindow:
    """A time phrase used as a ranking signal: memories whose time falls in [start, end) — or, for a year-less
    month, in that month of any year — rank higher; nothing is filtered out."""

    start: dt.datetime | None
    end: dt.datetime | None
    month: int | None = None

    def holds(self, at: dt.datetime | None) -> bool:
        if at is None:
            return False
        if self.month is not None:
            return at.month == self.month
        return (self.start is None or at >= self.start) and (self.end is None or at < self.end)

    def to_dict(self) -> dict[str, Any]:
        return {"start": iso(self.start), "end": iso(self.end), "month": self.month}


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
    time_use: str | None = None  # how the phrase was used: filter | rank | (after a fallback) rank-fallback
    rank_window: RankWindow | None = None
    given_start: dt.datetime | None = None  # explicit since / until (hard filters whatever the phrase did)
    given_end: dt.datetime | None = None
    # the question without its time phrase as the filters read it (the question itself when it has none); None
    # when they did not read one (``time_phrases="off"``): what it asks is read from it, not parsed again
    time_rest: str | None = field(default=None, compare=False)

    def params(self) -> dict[str, Any]:
        """The eligibility rule's parameters (:data:`~kgmem.store.rules.PARAMS`), as every recall
        statement takes them."""
        return {name: (list(v) if isinstance(v := getattr(self, name), tuple) else v) for name in PARAMS}

    @property
    def phrase_window(self) -> bool:
        """The window comes (partly) from a time phrase, so it may be dropped when it holds nothing."""
        return self.time_use == "filter"

    def without_phrase_window(self) -> Filters:
        """The same filters with the phrase's window turned into a ranking signal (explicit since/until stay)."""
        return replace(
            self,
            start=self.given_start,
            end=self.given_end,
            time_use="rank-fallback",
            rank_window=RankWindow(self.start, self.end),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "user": self.user,
            "start": iso(self.start),
            "end": iso(self.end),
            "at": iso(self.at),
            "include_superseded": self.include_superseded,
            "current_only": self.at is None and not self.include_superseded,
            "kinds": list(self.kinds) if self.kinds else None,
            "time_phrase": self.time_phrase,
            "time_use": self.time_use,
            "rank_window": self.rank_window.to_dict() if self.rank_window else None,
        }


def time_use(tf: TimeFilter, query: str, mode: str = "auto") -> str:
    """How a time phrase is used — the rule (docs/how-it-works.md, "Time phrases"):

    * ``filter`` (a hard window on the memory's valid time) when the phrase is measured back from the reference
      time — a range (since / before / after / between), a rolling window (the last 7 days, the past week) or a
      period (this week, last month, today, yesterday) — and the question does not ask *when*: "what did we talk
      about last week" reads the memories of last week;
    * ``rank`` otherwise: calendar names (in August, in 2022, on March 3), "N units ago" and weekdays, and any
      phrase in a question that asks when ("when did Caroline go to the parade in August?") say when the event
      happened, which is often not when the memory was recorded. Memories whose time falls in the window rank
      higher; none is filtered out.
    A window that holds nothing eligible is dropped and used for ranking instead (recall says so).
    """
    if mode in ("filter", "rank"):
        return mode
    return "filter" if tf.relative and not _ASKS_WHEN.search(query) else "rank"


def build_filters(
    query: str,
    *,
    tenant: str,
    user: str | None = None,
    at: dt.datetime | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    include_superseded: bool = False,
    kinds: tuple[str, ...] | None = None,
    now: dt.datetime | None = None,
    time_phrases: str = "auto",
) -> tuple[Filters, str]:
    """Filters for a question, and the text left to rank.

    ``time_phrases``: ``auto`` (the rule of :func:`time_use`), ``filter`` (every phrase is a hard window),
    ``rank`` (every phrase only ranks) or ``off``. The reference time of a phrase is ``now``, else ``at``, else
    the current time. A phrase used as a filter is taken out of the text to rank; one used for ranking stays
    in it (its words may be in the memory: "4 years ago")."""
    if time_phrases not in TIME_MODES:
        raise InputError(
            f"must be one of {', '.join(TIME_MODES)}, got {time_phrases!r}",
            field="time_phrases",
            fix=f"give one of {', '.join(TIME_MODES)}",
        )
    f = Filters(
        tenant=tenant,
        user=user,
        start=since,
        end=until,
        at=at,
        include_superseded=include_superseded,
        kinds=kinds,
        given_start=since,
        given_end=until,
    )
    text = query
    if time_phrases != "off":
        ref = now or at or dt.datetime.now(dt.timezone.utc)
        tf = parse_time_filter(query, ref)
        f = replace(f, time_rest=query if tf is None else tf.rest)
        if tf is not None:
            use = time_use(tf, query, time_phrases)
            if use == "filter":
                start = max(filter(None, [f.start, tf.start]), default=None)
                end = min(filter(None, [f.end, tf.end]), default=None)
                f = replace(f, start=start, end=end, time_phrase=tf.phrase, time_use="filter")
                text = tf.rest or query
            else:
                f = replace(
                    f, time_phrase=tf.phrase, time_use="rank", rank_window=RankWindow(tf.start, tf.end, tf.month)
                )
    return f, text

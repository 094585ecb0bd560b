"""Input checks and limits of every operation — the one home of them (floor 1: it imports only
:mod:`kgmem.errors` and :mod:`kgmem.normalize`).

The write path (:mod:`kgmem.ingest.records`) and the API's read methods (:mod:`kgmem.api`) both check their
arguments here, once per operation; the CLI and the MCP server reach kgmem through the API, so they never
check on their own. Every problem is an :class:`~kgmem.errors.InputError` naming the field (and the line,
for a record) and the fix.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Iterable

from .errors import InputError
from .normalize import NO_USER, normalize_subject, object_key, snake_case, user_key

MAX_TEXT = 32768
MAX_ID = 512
# subject and predicate are stored in the composite range index (tenant, subject, predicate); Neo4j refuses
# index keys over ~8 kB, so both stay far below (500 characters are at most 2,000 bytes of UTF-8 each)
MAX_SLOT_PART = 500
MAX_OBJECT = 1000
# an entity name becomes Entity.key in the (tenant, key) uniqueness constraint: same reason
MAX_ENTITY_NAME = 200
# entities one memory links (MENTIONS): a record's own list longer than this is refused, names found in text
# beyond it are not linked. Consolidation pairs a memory's entities (CO_OCCURS): 1,000 would be 500k pairs
MAX_ENTITIES = 20
# a question to recall / why / ask: longer is not a question (and costs time in every channel)
MAX_QUERY = 4096
MAX_USER = 500  # a user scope inside a tenant
MAX_HITS = 1000  # recall's k
MAX_AROUND = 500  # timeline: memories before / after
MAX_EXPAND = 5  # recall's expand: stream neighbours attached on each side of a hit (recall/neighbors walks 5)
MAX_CHANGES = 10000  # changes: versions listed
MAX_MENTIONS = 1000  # mentions: memories listed
MAX_NEIGHBOURS = 500  # neighbourhood: memories in each list

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def short(value: str, n: int = 60) -> str:
    """A value as an error message quotes it: at most ``n`` characters, surrogates escaped."""
    text = value if len(value) <= n else value[:n] + "..."
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def check_chars(value: str, *, field: str | None, line: int | None = None) -> str:
    """Refuse what no store can keep: a NUL (truncates in many tools, and kgmem refuses it everywhere) and a
    lone UTF-16 surrogate (not a character: it has no UTF-8 form, so neither the driver nor the tokenizer can
    take it). Returns ``value`` unchanged."""
    if "\x00" in value:
        raise InputError(
            f"contains a NUL character (at position {value.index(chr(0))})",
            field=field,
            line=line,
            fix="remove the NUL (\\u0000) characters",
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(
            f"contains a lone surrogate {short(value[e.start : e.end])} at position {e.start}, "
            "which is not a Unicode character",
            field=field,
            line=line,
            fix="send valid Unicode (pair the surrogates, or drop the stray one)",
        ) from None
    return value


def check_string(value: Any, *, field: str, max_len: int, line: int | None = None, required: bool = True) -> str:
    """A string argument of a query (recall/why/ask questions, slot names, ids): a string, not blank (when
    ``required``), at most ``max_len`` characters, no NUL, no lone surrogate. Returns it unchanged."""
    if not isinstance(value, str):
        raise InputError(
            f"must be a string, got {type(value).__name__}", field=field, line=line, fix=f"give {field} as a string"
        )
    if required and not value.strip():
        raise InputError("must not be empty", field=field, line=line, fix=f"give a non-empty {field}")
    if len(value) > max_len:
        raise InputError(
            f"is {len(value)} characters long; the limit is {max_len}", field=field, line=line, fix="shorten it"
        )
    return check_chars(value, field=field, line=line)


def parse_time(value: Any, *, field: str = "at", line: int | None = None) -> dt.datetime:
    """RFC 3339 timestamp (or a bare date = midnight UTC) → aware UTC datetime.

    A time whose UTC instant falls outside years 1..9999 (``9999-12-31T23:00:00-05:00``, ``0001-01-01T00:30:00+01:00``)
    is refused here, for its field, rather than overflowing later."""
    if isinstance(value, dt.datetime):
        return _utc(value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc), field=field, line=line)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    if not isinstance(value, str) or not value.strip():
        raise InputError(
            f"expected an RFC 3339 timestamp string, got {type(value).__name__}",
            field=field,
            line=line,
            fix='write it like "2026-03-03T09:30:00Z" or "2026-03-03"',
        )
    s = value.strip()
    if len(s) > 64:
        raise InputError(
            f"'{short(s)}' is not an RFC 3339 timestamp",
            field=field,
            line=line,
            fix='write it like "2026-03-03T09:30:00Z" or "2026-03-03"',
        )
    check_chars(s, field=field, line=line)
    try:
        if _DATE_ONLY.match(s):
            d = dt.date.fromisoformat(s)
            return dt.datetime(d.year, d.month, d.day, tzinfo=dt.timezone.utc)
        t = dt.datetime.fromisoformat(s.replace("z", "Z"))
    except ValueError:
        raise InputError(
            f"'{short(s)}' is not an RFC 3339 timestamp",
            field=field,
            line=line,
            fix='write it like "2026-03-03T09:30:00Z" or "2026-03-03"',
        ) from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return _utc(t, field=field, line=line)


def _utc(t: dt.datetime, *, field: str, line: int | None) -> dt.datetime:
    """An aware datetime in UTC; one whose UTC instant is before year 1 or after year 9999 is an InputError."""
    try:
        return t.astimezone(dt.timezone.utc)
    except OverflowError:
        raise InputError(
            f"'{t.isoformat()}' is outside the years 1 to 9999 once converted to UTC",
            field=field,
            line=line,
            fix="give a time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z",
        ) from None


def check_query(value: Any, *, field: str = "query", example: str = "what did we decide?") -> str:
    """A question (recall, why, ask): a non-blank string of at most :data:`MAX_QUERY` characters, no NUL, no
    lone surrogate. Returns it unchanged."""
    if not isinstance(value, str) or not value.strip():
        raise InputError("must be a non-empty question", field=field, fix=f'ask something, e.g. "{example}"')
    return check_string(value, field=field, max_len=MAX_QUERY)


def check_int(value: Any, *, field: str, lo: int, hi: int, what: str) -> int:
    """An integer argument within ``[lo, hi]`` (``what`` names the unit in the fix: "hits", "memories")."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"must be {lo} to {hi}, got {value!r}", field=field, fix=f"ask for {lo} to {hi} {what}")
    return value


def check_choices(values: Iterable[Any], allowed: tuple[str, ...], *, field: str) -> tuple[str, ...]:
    """Names each of which must be one of ``allowed`` (recall's channels, kinds); duplicates dropped."""
    chosen = tuple(dict.fromkeys(values))
    unknown = [v for v in chosen if v not in allowed]
    if unknown:
        raise InputError(f"unknown {field} {unknown!r}", field=field, fix=f"use {', '.join(allowed)}")
    return chosen


def optional_time(value: Any, field: str) -> dt.datetime | None:
    """A time argument of the API: a datetime, a date or an RFC 3339 string; None stays None."""
    return None if value is None else parse_time(value, field=field)


def check_slot_parts(subject: str | None, predicate: str | None, obj: str | None, *, line: int | None) -> None:
    """A fact's subject and predicate are keys: one that normalises to nothing (only symbols, emoji or
    punctuation) would put every such fact into one shared slot, so it is refused."""
    if subject is not None and not normalize_subject(subject):
        raise InputError(
            f"'{short(subject)}' has no letters or digits to name a subject by",
            field="subject",
            line=line,
            fix="name the subject with words",
        )
    if predicate is not None and not snake_case(predicate):
        raise InputError(
            f"'{short(predicate)}' has no letters or digits to name a predicate by",
            field="predicate",
            line=line,
            fix='use a predicate like "lives_in"',
        )
    if obj is not None and not object_key(obj):
        raise InputError(
            f"'{short(obj)}' is empty once normalised", field="object", line=line, fix="give the fact a value"
        )


def check_slot_query(subject: Any, predicate: Any, obj: Any) -> None:
    """The arguments of now / as_of / history: strings within the record limits, no NUL or lone surrogate,
    a subject and predicate that normalise to something (else they would name the shared empty slot)."""
    check_string(subject, field="subject", max_len=MAX_SLOT_PART)
    check_string(predicate, field="predicate", max_len=MAX_SLOT_PART)
    if obj is not None:
        check_string(obj, field="object", max_len=MAX_OBJECT)
    check_slot_parts(subject, predicate, obj, line=None)


def check_user(user: Any, *, line: int | None = None) -> str:
    """A user as its key (:func:`kgmem.normalize.user_key`): a string of at most ``MAX_USER`` characters with a
    letter or digit, not ``user`` (the subject of first-person facts in memories without one)."""
    check_string(user, field="user", max_len=MAX_USER)
    key = user_key(user)
    if not any(ch.isalnum() for ch in key):
        raise InputError(
            f"'{short(user)}' has no letters or digits to name a user by",
            field="user",
            line=line,
            fix="name the user with words",
        )
    if key == NO_USER:
        raise InputError(
            f"'{short(user)}' is reserved: it is the subject of first-person facts in memories without a user",
            field="user",
            line=line,
            fix="give the user another name (or leave user out for memories that belong to no one)",
        )
    return key

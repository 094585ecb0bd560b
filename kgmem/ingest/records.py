"""Validation of memory records (contract §1) into :class:`Record` — pure, no database.

Every problem is an :class:`~kgmem.errors.InputError` naming the line (when known), the field and the fix.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ..errors import InputError
from ..keys import content_key
from ..normalize import normalize_subject, object_key, snake_case

MAX_TEXT = 32768
MAX_ID = 512
# subject and predicate are stored in the composite range index (tenant, subject, predicate); Neo4j refuses
# index keys over ~8 kB, so both stay far below (500 characters are at most 2,000 bytes of UTF-8 each)
MAX_SLOT_PART = 500
MAX_OBJECT = 1000
# an entity name becomes Entity.key in the (tenant, key) uniqueness constraint: same reason
MAX_ENTITY_NAME = 200
# a question to recall / why / ask: longer is not a question (and costs time in every channel)
MAX_QUERY = 4096
KINDS = ("episode", "fact", "summary")
# the one definition of the retention classes (kgmem.derived.retention gives them their TTLs)
RETENTION_CLASSES = ("permanent", "standard", "short", "ephemeral")

FIELDS = (
    "text",
    "id",
    "at",
    "kind",
    "subject",
    "predicate",
    "object",
    "polarity",
    "entities",
    "caused_by",
    "stream",
    "source",
    "confidence",
    "tenant",
    "user",
    "retention",
)
# fields whose value identifies the record's content (id excluded: it names the content, it is not content)
CONTENT_FIELDS = tuple(f for f in FIELDS if f != "id")

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Record:
    """One validated memory record. ``at`` is always timezone-aware UTC."""

    id: str
    text: str
    at: dt.datetime
    at_given: bool
    kind: str
    tenant: str
    content_key: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    polarity: bool = True
    entities: tuple[str, ...] | None = None
    caused_by: tuple[str, ...] = ()
    stream: str | None = None
    source: str | None = None
    confidence: float | None = None
    user: str | None = None
    retention: str | None = None
    line: int | None = None

    @property
    def is_fact(self) -> bool:
        return self.subject is not None


@dataclass
class LineError:
    line: int | None
    error: str
    field: str | None = None
    id: str | None = None

    def to_dict(self) -> dict:
        return {"line": self.line, "error": self.error}


def _short(value: str, n: int = 60) -> str:
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
            f"contains a lone surrogate {_short(value[e.start : e.end])} at position {e.start}, "
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
        raise InputError(f"must be a string, got {type(value).__name__}", field=field, line=line)
    if required and not value.strip():
        raise InputError("must not be empty", field=field, line=line)
    if len(value) > max_len:
        raise InputError(
            f"is {len(value)} characters long; the limit is {max_len}", field=field, line=line, fix="shorten it"
        )
    return check_chars(value, field=field, line=line)


def parse_time(value: Any, *, field: str = "at", line: int | None = None) -> dt.datetime:
    """RFC 3339 timestamp (or a bare date = midnight UTC) → aware UTC datetime."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
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
            f"'{_short(s)}' is not an RFC 3339 timestamp",
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
            f"'{_short(s)}' is not an RFC 3339 timestamp",
            field=field,
            line=line,
            fix='write it like "2026-03-03T09:30:00Z" or "2026-03-03"',
        ) from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.astimezone(dt.timezone.utc)


def _str(obj: dict, name: str, line: int | None, *, required: bool = False, max_len: int | None = None) -> str | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise InputError("is required", field=name, line=line, fix=f'add "{name}": "..."')
        return None
    if not isinstance(value, str):
        raise InputError(f"must be a string, got {type(value).__name__}", field=name, line=line)
    check_chars(value, field=name, line=line)
    value = value.strip()
    if not value:
        if required:
            raise InputError("must not be empty", field=name, line=line)
        return None
    if max_len is not None and len(value) > max_len:
        raise InputError(
            f"is {len(value)} characters long; the limit is {max_len}",
            field=name,
            line=line,
            fix="split it into several records",
        )
    return value


def _str_list(obj: dict, name: str, line: int | None, *, max_len: int = MAX_ID) -> tuple[str, ...] | None:
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        raise InputError(
            "must be a list of strings, got a string", field=name, line=line, fix=f'write "{name}": ["{value}"]'
        )
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError("must be a list of non-empty strings", field=name, line=line)
    if len(value) > 1000:
        raise InputError(f"has {len(value)} entries; the limit is 1000", field=name, line=line)
    for v in value:
        check_chars(v, field=name, line=line)
        if len(v.strip()) > max_len:
            raise InputError(
                f"has an entry {len(v.strip())} characters long; the limit is {max_len}",
                field=name,
                line=line,
                fix="shorten it",
            )
    return tuple(dict.fromkeys(v.strip() for v in value))


def parse_record(obj: Any, *, tenant: str, line: int | None = None, now: dt.datetime | None = None) -> Record:
    """Validate one record (a dict) into a :class:`Record` of ``tenant``, the graph's tenant.

    The graph's tenant is authoritative: a record may repeat it in its ``tenant`` field, but a record that
    names another tenant is refused (its line), never written there."""
    if not isinstance(obj, dict):
        raise InputError(
            f"expected a JSON object, got {type(obj).__name__}",
            line=line,
            fix='write one object per line, like {"text": "..."}',
        )
    unknown = [k for k in obj if k not in FIELDS]
    if unknown:
        k = unknown[0]
        if not isinstance(k, str) or len(k) > 40 or "\x00" in k:
            raise InputError(
                f"unknown field '{_short(str(k), 40)}'", line=line, fix=f"known fields: {', '.join(FIELDS)}"
            )
        guess = difflib.get_close_matches(k, FIELDS, n=1)
        raise InputError(
            f"unknown field '{_short(k, 40)}'",
            field=_short(k, 40),
            line=line,
            fix=f"did you mean '{guess[0]}'?" if guess else f"known fields: {', '.join(FIELDS)}",
        )

    text = _str(obj, "text", line, required=True)
    assert text is not None  # required=True raises instead
    if len(obj["text"]) > MAX_TEXT:
        raise InputError(
            f"is {len(obj['text'])} characters long; the limit is {MAX_TEXT}",
            field="text",
            line=line,
            fix="split it into several records",
        )
    rid = _str(obj, "id", line, max_len=MAX_ID)
    named = _str(obj, "tenant", line, max_len=200)
    if named is not None and named != tenant:
        raise InputError(
            f"names tenant '{_short(named)}', but this graph writes to tenant '{tenant}'",
            field="tenant",
            line=line,
            fix=f"drop the field (records go to the graph's tenant), or ingest it with "
            f"--tenant {_short(named)} / MemoryGraph(tenant=...)",
        )

    at_given = obj.get("at") is not None
    at = parse_time(obj["at"], line=line) if at_given else (now or dt.datetime.now(dt.timezone.utc))

    kind = obj.get("kind", None)
    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        raise InputError(
            f"'{_short(str(kind))}' is not a kind", field="kind", line=line, fix=f"use one of {', '.join(KINDS)}"
        )

    spo = {
        k: _str(obj, k, line, max_len=MAX_OBJECT if k == "object" else MAX_SLOT_PART)
        for k in ("subject", "predicate", "object")
    }
    present = [k for k, v in spo.items() if v is not None]
    if present and len(present) != 3:
        missing = [k for k in spo if spo[k] is None]
        raise InputError(
            f"a fact needs subject, predicate and object; missing {', '.join(missing)}",
            field=missing[0],
            line=line,
            fix="give all three, or none for a plain episode",
        )
    if kind is None:
        kind = "fact" if present else "episode"
    if kind == "fact" and not present:
        raise InputError('kind "fact" needs subject, predicate and object', field="subject", line=line)
    if present:
        _check_slot_parts(spo["subject"], spo["predicate"], spo["object"], line=line)

    polarity = obj.get("polarity", True)
    if not isinstance(polarity, bool):
        raise InputError(f"must be true or false, got {json.dumps(polarity)}", field="polarity", line=line)

    confidence = obj.get("confidence")
    if confidence is not None:
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, (int, float))
            or math.isnan(confidence)
            or not 0 <= confidence <= 1
        ):
            raise InputError(
                f"must be a number from 0 to 1, got {json.dumps(confidence)}", field="confidence", line=line
            )
        confidence = float(confidence)

    retention = _str(obj, "retention", line)
    if retention is not None and retention not in RETENTION_CLASSES:
        raise InputError(
            f"'{_short(retention)}' is not a retention class",
            field="retention",
            line=line,
            fix=f"use one of {', '.join(RETENTION_CLASSES)}",
        )

    caused_by = _str_list(obj, "caused_by", line) or ()
    entities = _str_list(obj, "entities", line, max_len=MAX_ENTITY_NAME)
    if rid is not None and rid in caused_by:
        raise InputError("a memory cannot be its own cause", field="caused_by", line=line)

    stream = _str(obj, "stream", line, max_len=500)
    source = _str(obj, "source", line, max_len=2000)
    user = _str(obj, "user", line, max_len=500)
    content = {k: obj.get(k) for k in CONTENT_FIELDS}
    content["text"] = text
    content["tenant"] = tenant
    ckey = content_key(content)
    return Record(
        id=rid or "k" + ckey[:20],
        text=text,
        at=at,
        at_given=at_given,
        kind=kind,
        tenant=tenant,
        content_key=ckey,
        subject=spo["subject"],
        predicate=spo["predicate"],
        object=spo["object"],
        polarity=polarity,
        entities=entities,
        caused_by=caused_by,
        stream=stream,
        source=source,
        confidence=confidence,
        user=user,
        retention=retention,
        line=line,
    )


def _check_slot_parts(subject: str | None, predicate: str | None, obj: str | None, *, line: int | None) -> None:
    """A fact's subject and predicate are keys: one that normalises to nothing (only symbols, emoji or
    punctuation) would put every such fact into one shared slot, so it is refused."""
    if subject is not None and not normalize_subject(subject):
        raise InputError(
            f"'{_short(subject)}' has no letters or digits to name a subject by",
            field="subject",
            line=line,
            fix="name the subject with words",
        )
    if predicate is not None and not snake_case(predicate):
        raise InputError(
            f"'{_short(predicate)}' has no letters or digits to name a predicate by",
            field="predicate",
            line=line,
            fix='use a predicate like "lives_in"',
        )
    if obj is not None and not object_key(obj):
        raise InputError(
            f"'{_short(obj)}' is empty once normalised", field="object", line=line, fix="give the fact a value"
        )


def check_slot_query(subject: Any, predicate: Any, obj: Any) -> None:
    """The arguments of now / as_of / history: strings within the record limits, no NUL or lone surrogate,
    a subject and predicate that normalise to something (else they would name the shared empty slot)."""
    check_string(subject, field="subject", max_len=MAX_SLOT_PART)
    check_string(predicate, field="predicate", max_len=MAX_SLOT_PART)
    if obj is not None:
        check_string(obj, field="object", max_len=MAX_OBJECT)
    _check_slot_parts(subject, predicate, obj, line=None)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def parse_line(raw: str | bytes, n: int) -> Any | InputError | None:
    """One JSONL line → the parsed object, the InputError for that line, or None for a blank line.

    Bytes are decoded here, line by line (one bad byte costs its line, not the file); a UTF-8 byte-order mark
    at the start of line 1 is dropped; a key that appears twice in one object is an error (JSON leaves it
    undefined which one wins)."""
    if isinstance(raw, bytes):
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return InputError(
                f"is not valid UTF-8 (byte 0x{raw[e.start]:02x} at byte {e.start + 1} of the line)",
                line=n,
                fix="save the file as UTF-8",
            )
    elif n == 1 and raw.startswith("\ufeff"):
        raw = raw[1:]
    if not raw.strip():
        return None
    try:
        return json.loads(raw, object_pairs_hook=_no_duplicate_keys)
    except _DuplicateKey as e:
        return InputError(
            f"key '{_short(str(e.key), 40)}' appears twice in one object",
            line=n,
            field=_short(str(e.key), 40) if str(e.key) in FIELDS else None,
            fix="give each field once",
        )
    except json.JSONDecodeError as e:
        return InputError(
            f"not valid JSON ({e.msg} at column {e.colno})", line=n, fix="each line must be one complete JSON object"
        )
    except RecursionError:
        return InputError("not valid JSON (nested too deeply)", line=n, fix="each line must be one flat JSON object")


def read_jsonl(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Any | InputError]]:
    """Yield (line number, parsed object or the InputError for that line); blank lines are skipped.
    ``lines`` may be text or bytes (a file opened in binary mode: each line is decoded on its own)."""
    for n, raw in enumerate(lines, start=1):
        out = parse_line(raw, n)
        if out is not None:
            yield n, out

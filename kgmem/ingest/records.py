"""Validation of memory records (contract §1) into :class:`Record` — pure, no database.

Every problem is an :class:`~kgmem.errors.InputError` naming the line (when known), the field and the fix.
"""

from __future__ import annotations

import copy
import datetime as dt
import difflib
import json
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Iterator

from ..errors import InputError
from ..keys import content_key
from ..normalize import entity_key
from ..record_spec import KINDS, MAX_LIST, RETENTION_CLASSES, SPEC
from ..record_spec import MAX_STREAM as MAX_STREAM  # kgmem.api.lifecycle takes it from here
from ..validate import MAX_ENTITIES, check_chars, check_slot_parts, check_user, parse_time, short

PART_TRANSFORM = "document/v1"  # the DERIVED_FROM edge from a record to the memory it is ``part_of``

FIELDS = tuple(SPEC)  # the record spec's fields (kgmem.record_spec), text first
# the longest value of each field (a list's: its longest entry), from the spec's JSON schemas
_MAX = MappingProxyType({name: spec.max_length for name, spec in SPEC.items()})
# fields whose value identifies the record's content (id excluded: it names the content, it is not content)
CONTENT_FIELDS = tuple(f for f in FIELDS if f != "id")


def _user(obj: dict[str, Any], line: int | None) -> str | None:
    """The record's user as its key (:func:`kgmem.normalize.user_key`: case and accents do not matter)."""
    raw = _str(obj, "user", line, max_len=_MAX["user"])
    return None if raw is None else check_user(raw, line=line)


def record_schema() -> dict[str, Any]:
    """The JSON schema (2020-12) of one memory record: the fields of contract §1 with their types and limits.
    It describes; :func:`parse_record` decides (a record it refuses is an error for its line)."""
    spo = ("subject", "predicate", "object")
    return {
        "type": "object",
        "title": "memory record",
        "properties": {name: copy.deepcopy(dict(spec.schema)) for name, spec in SPEC.items()},
        "required": ["text"],
        "additionalProperties": False,
        "dependentRequired": {k: [o for o in spo if o != k] for k in spo},
    }


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
    part_of: str | None = None
    line: int | None = None

    @property
    def is_fact(self) -> bool:
        return self.subject is not None


def _str(
    obj: dict[str, Any], name: str, line: int | None, *, required: bool = False, max_len: int | None = None
) -> str | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise InputError("is required", field=name, line=line, fix=f'add "{name}": "..."')
        return None
    if not isinstance(value, str):
        raise InputError(
            f"must be a string, got {type(value).__name__}", field=name, line=line, fix=f'write "{name}": "..."'
        )
    check_chars(value, field=name, line=line)
    value = value.strip()
    if not value:
        if required:
            raise InputError("must not be empty", field=name, line=line, fix=f'write something in "{name}"')
        return None
    if max_len is not None and len(value) > max_len:
        raise InputError(
            f"is {len(value)} characters long; the limit is {max_len}",
            field=name,
            line=line,
            fix="split it into several records",
        )
    return value


def _str_list(obj: dict[str, Any], name: str, line: int | None) -> tuple[str, ...] | None:
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        raise InputError(
            "must be a list of strings, got a string", field=name, line=line, fix=f'write "{name}": ["{value}"]'
        )
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(
            "must be a list of non-empty strings", field=name, line=line, fix=f'write "{name}": ["...", "..."]'
        )
    if len(value) > MAX_LIST:
        raise InputError(
            f"has {len(value)} entries; the limit is {MAX_LIST}", field=name, line=line, fix="keep the ones that matter"
        )
    max_len = _MAX[name]
    for v in value:
        check_chars(v, field=name, line=line)
        if max_len is not None and len(v.strip()) > max_len:
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
                f"unknown field '{short(str(k), 40)}'", line=line, fix=f"known fields: {', '.join(FIELDS)}"
            )
        guess = difflib.get_close_matches(k, FIELDS, n=1)
        raise InputError(
            f"unknown field '{short(k, 40)}'",
            field=short(k, 40),
            line=line,
            fix=f"did you mean '{guess[0]}'?" if guess else f"known fields: {', '.join(FIELDS)}",
        )

    text = _str(obj, "text", line, required=True)
    assert text is not None  # required=True raises instead
    max_text = _MAX["text"]  # measured as given, white space and all
    if max_text is not None and len(obj["text"]) > max_text:
        raise InputError(
            f"is {len(obj['text'])} characters long; the limit is {max_text}",
            field="text",
            line=line,
            fix="split it into several records",
        )
    rid = _str(obj, "id", line, max_len=_MAX["id"])
    named = _str(obj, "tenant", line, max_len=_MAX["tenant"])
    if named is not None and named != tenant:
        raise InputError(
            f"names tenant '{short(named)}', but this graph writes to tenant '{tenant}'",
            field="tenant",
            line=line,
            fix=f"drop the field (records go to the graph's tenant), or ingest it with "
            f"--tenant {short(named)} / MemoryGraph(tenant=...)",
        )

    at_given = obj.get("at") is not None
    at = parse_time(obj["at"], line=line) if at_given else (now or dt.datetime.now(dt.timezone.utc))

    kind = obj.get("kind", None)
    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        raise InputError(
            f"'{short(str(kind))}' is not a kind", field="kind", line=line, fix=f"use one of {', '.join(KINDS)}"
        )

    spo = {k: _str(obj, k, line, max_len=_MAX[k]) for k in ("subject", "predicate", "object")}
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
        raise InputError(
            'kind "fact" needs subject, predicate and object',
            field="subject",
            line=line,
            fix='give all three, or "kind": "episode"',
        )
    if present:
        check_slot_parts(spo["subject"], spo["predicate"], spo["object"], line=line)

    polarity = obj.get("polarity", True)
    if not isinstance(polarity, bool):
        raise InputError(
            f"must be true or false, got {short(json.dumps(polarity))}",
            field="polarity",
            line=line,
            fix='write "polarity": false for a negated fact, or leave it out',
        )

    confidence = obj.get("confidence")
    if confidence is not None:
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, (int, float))
            or math.isnan(confidence)
            or not 0 <= confidence <= 1
        ):
            raise InputError(
                f"must be a number from 0 to 1, got {short(json.dumps(confidence))}",
                field="confidence",
                line=line,
                fix='write "confidence": 0.8, or leave it out',
            )
        confidence = float(confidence)

    retention = _str(obj, "retention", line)
    if retention is not None and retention not in RETENTION_CLASSES:
        raise InputError(
            f"'{short(retention)}' is not a retention class",
            field="retention",
            line=line,
            fix=f"use one of {', '.join(RETENTION_CLASSES)}",
        )

    caused_by = _str_list(obj, "caused_by", line) or ()
    entities = _str_list(obj, "entities", line)
    if entities is not None:
        keys = {entity_key(e) for e in entities} - {""}
        if len(keys) > MAX_ENTITIES:  # every entity a record names is linked: more than this is refused
            raise InputError(
                f"names {len(keys)} entities; a memory links at most {MAX_ENTITIES}",
                field="entities",
                line=line,
                fix=f"keep the {MAX_ENTITIES} that matter most, or split the memory into several records",
            )
    if rid is not None and rid in caused_by:
        raise InputError(
            "a memory cannot be its own cause", field="caused_by", line=line, fix="drop its own id from caused_by"
        )

    stream = _str(obj, "stream", line, max_len=_MAX["stream"])
    source = _str(obj, "source", line, max_len=_MAX["source"])
    user = _user(obj, line)
    part_of = _str(obj, "part_of", line, max_len=_MAX["part_of"])
    if part_of is not None and part_of == rid:
        raise InputError(
            "a memory cannot be a part of itself", field="part_of", line=line, fix="drop part_of or name its whole"
        )
    content = {k: obj.get(k) for k in CONTENT_FIELDS}
    content["text"] = text
    content["user"] = user
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
        part_of=part_of,
        line=line,
    )


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
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
            f"key '{short(str(e.key), 40)}' appears twice in one object",
            line=n,
            field=short(str(e.key), 40) if str(e.key) in FIELDS else None,
            fix="give each field once",
        )
    except json.JSONDecodeError as e:
        if raw.lstrip().startswith("["):  # a pretty-printed JSON array read as JSONL: say so once, at its start
            return InputError(
                "starts a JSON array spread over several lines, not a JSONL record",
                line=n,
                fix="ingest the file as JSON: kgmem ingest FILE --format json (a file that starts with [ is read "
                "so unless --format jsonl is given), or write one object a line",
            )
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

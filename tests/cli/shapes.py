"""The CLI's ``--json`` shapes (docs/interface.md §3 plus the commands the contract leaves open), and a
checker that says exactly which field is missing or has the wrong type.

The contract allows added fields, so objects must hold *at least* the listed keys, each of the listed type.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any


class Nullable:
    def __init__(self, inner: Any):
        self.inner = inner

    def __repr__(self) -> str:
        return f"Nullable({self.inner!r})"


class _Iso:
    """An RFC 3339 timestamp string (what kgmem prints: UTC with a 'Z')."""

    def __repr__(self) -> str:
        return "ISO"


ISO = _Iso()
NUMBER = (int, float)


def check(value: Any, schema: Any, path: str = "$") -> None:
    """Assert ``value`` matches ``schema``; the message names the JSON path that does not."""
    if isinstance(schema, Nullable):
        if value is not None:
            check(value, schema.inner, path)
        return
    if isinstance(schema, dict):
        assert isinstance(value, dict), f"{path}: expected an object, got {value!r}"
        for key, sub in schema.items():
            assert key in value, f"{path}: missing field {key!r} (has {sorted(value)})"
            check(value[key], sub, f"{path}.{key}")
        return
    if isinstance(schema, list):
        assert isinstance(value, list), f"{path}: expected a list, got {value!r}"
        for i, item in enumerate(value):
            check(item, schema[0], f"{path}[{i}]")
        return
    if schema is ISO:
        assert isinstance(value, str), f"{path}: expected an RFC 3339 string, got {value!r}"
        assert value.endswith("Z") or value[-6] in "+-", f"{path}: {value!r} has no UTC offset"
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return
    if schema is bool:
        assert isinstance(value, bool), f"{path}: expected a bool, got {value!r}"
        return
    if schema is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{path}: expected an int, got {value!r}"
        return
    if schema == NUMBER:
        assert isinstance(value, NUMBER) and not isinstance(value, bool), f"{path}: expected a number, got {value!r}"
        return
    assert isinstance(value, schema), f"{path}: expected {schema.__name__}, got {value!r}"


# progress bars some libraries print on stderr while the embedding model loads: not kgmem's messages
STDERR_NOISE = ("Loading weights",)


def stderr_lines(stderr: str) -> list[str]:
    """kgmem's own stderr lines (progress-bar noise of the model loader dropped)."""
    return [
        ln for ln in stderr.replace("\r", "\n").splitlines() if ln.strip() and not any(n in ln for n in STDERR_NOISE)
    ]


def parse_json_lines(stdout: str) -> list[dict]:
    """Every non-empty stdout line as one JSON object (the batch forms print one object per line)."""
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    out = []
    for ln in lines:
        obj = json.loads(ln)
        assert isinstance(obj, dict), ln
        out.append(obj)
    return out


# ---------------------------------------------------------------------------- contract §3

INGEST = {
    "read": int,
    "created": int,
    "unchanged": int,
    "superseded": int,
    "linked": int,
    "errors": [{"line": int, "error": str}],
}

HIT = {
    "id": str,
    "text": str,
    "at": Nullable(ISO),
    "score": NUMBER,
    "confident": bool,
    "current": bool,
    "superseded_by": [str],
    "channels": {"vector": Nullable(int), "keyword": Nullable(int), "entity": Nullable(int)},
}
RECALL = {"query": str, "abstained": bool, "reason": Nullable(str), "hits": [HIT]}

WHY = {
    "query": str,
    "abstained": bool,
    "symptom": Nullable({"id": str, "text": str, "at": Nullable(ISO)}),
    "roots": [{"id": str, "text": str, "at": Nullable(ISO), "depth": int}],
    "paths": [[str]],
}

VALUE = {"id": str, "object": str, "polarity": bool, "text": str, "valid_from": ISO, "valid_to": Nullable(ISO)}
RETIRED_BY = {"id": str, "text": str, "at": ISO, "confidence": NUMBER, "by": str, "cue": Nullable(str)}
SLOT = {
    "subject": str,
    "predicate": str,
    "object": Nullable(str),
    "at": Nullable(ISO),
    "value": Nullable(VALUE),
    "retired_by": [RETIRED_BY],
    "hint": Nullable(str),  # why an empty answer may be empty
}
HISTORY = {"subject": str, "predicate": str, "versions": [{**VALUE, "current": bool}], "hint": Nullable(str)}

# ---------------------------------------------------------------------------- commands the contract leaves open

MEMORY = {"id": str, "text": str, "at": Nullable(ISO), "kind": str, "current": bool}
INIT = {"indexes": [{"name": str, "type": str, "state": str}], "embedder": {"model": str, "backend": str}}
CHANGES = {
    "since": str,
    "changes": [
        {
            "id": str,
            "subject": str,
            "predicate": str,
            "object": str,
            "polarity": bool,
            "text": str,
            "at": ISO,
            "current": bool,
            "previous": Nullable({"id": str, "object": str, "at": ISO}),
        }
    ],
}
TIMELINE = {"id": str, "items": [{"id": str, "text": str, "at": Nullable(ISO), "offset": int}]}
SERVER_STATUS = {"state": str, "uri": str, "version": str, "browser": str, "data_dir": str}

MENTIONS = {
    "entity": str,
    "key": str,
    "name": Nullable(str),
    "aliases": [str],
    "total": int,
    "memories": [MEMORY],
    "hint": Nullable(str),
}
_SIDE = {"id": str, "text": str, "at": Nullable(ISO)}
_LINKED = {**_SIDE, "inferred": bool, "confidence": NUMBER}
NEIGHBOURHOOD = {
    "id": str,
    "memory": MEMORY,
    "causes": [_LINKED],
    "effects": [_LINKED],
    "supersedes": [{**_LINKED, "by": Nullable(str), "cue": Nullable(str)}],
    "superseded_by": [{**_LINKED, "by": Nullable(str), "cue": Nullable(str)}],
    "previous": Nullable(_SIDE),
    "next": Nullable(_SIDE),
    "entities": [{"key": str, "name": Nullable(str)}],
    "part_of": Nullable(_SIDE),
    "counts": {"causes": int, "effects": int, "supersedes": int, "superseded_by": int, "entities": int},
}
FORGET_STREAM = {
    "ids": [str],
    "forgotten": [str],
    "tombstones": int,
    "stream": str,
    "document": Nullable(str),
}

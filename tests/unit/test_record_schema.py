"""The JSON schema of a memory record (``MemoryGraph.record_schema()``, what the MCP ``ingest`` tool publishes)
says what the write path does: a record the schema accepts, ``parse_record`` accepts, and one it refuses,
``parse_record`` refuses too (on these cases, one per rule of contract §1)."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from kgmem import MemoryGraph
from kgmem.errors import InputError
from kgmem.ingest.records import FIELDS, parse_record
from kgmem.validate import MAX_ID, MAX_TEXT

SCHEMA = MemoryGraph.record_schema()
FACT = {"text": "Maya lives in Lisbon", "subject": "maya", "predicate": "lives_in", "object": "Lisbon"}

GOOD = [
    {"text": "Checkout crashed"},
    FACT,
    {**FACT, "kind": "fact", "polarity": False, "at": "2026-03-03"},
    {
        "text": "Worker memory grew",
        "id": "m-1",
        "at": "2026-03-12T09:30:00Z",
        "kind": "episode",
        "entities": ["worker"],
        "caused_by": ["m-0"],
        "stream": "inc",
        "source": "pagerduty",
        "confidence": 0.5,
        "tenant": "t",
        "user": "u",
        "retention": "short",
    },
    {"text": "x" * MAX_TEXT},
]
BAD = [
    {},
    {"id": "m-1"},
    {"text": "x", "tenant": "t", "colour": "red"},
    {"text": ""},
    {"text": "x" * (MAX_TEXT + 1)},
    {"text": "x", "id": "i" * (MAX_ID + 1)},
    {"text": "x", "subject": "maya"},
    {"text": "x", "subject": "maya", "predicate": "lives_in"},
    {"text": "x", "kind": "note"},
    {"text": "x", "polarity": "no"},
    {"text": "x", "confidence": 2},
    {"text": "x", "entities": "maya"},
    {"text": "x", "caused_by": [""]},
    {"text": "x", "retention": "forever"},
    {"text": 5},
]


def _parses(record: dict) -> bool:
    try:
        parse_record(record, tenant="t")
    except InputError:
        return False
    return True


def test_the_schema_is_a_valid_json_schema_over_the_record_fields() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert tuple(SCHEMA["properties"]) == FIELDS
    assert SCHEMA["required"] == ["text"] and SCHEMA["additionalProperties"] is False


@pytest.mark.parametrize("record", GOOD, ids=range(len(GOOD)))
def test_what_the_schema_accepts_the_write_path_accepts(record: dict) -> None:
    assert Draft202012Validator(SCHEMA).is_valid(record)
    assert _parses(record)


@pytest.mark.parametrize("record", BAD, ids=range(len(BAD)))
def test_what_the_schema_refuses_the_write_path_refuses(record: dict) -> None:
    assert not Draft202012Validator(SCHEMA).is_valid(record)
    assert not _parses(record)

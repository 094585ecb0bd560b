"""The JSON schema of a memory record (``MemoryGraph.record_schema()``, what the MCP ``ingest`` tool publishes)
says what the write path does: a record the schema accepts, ``parse_record`` accepts, and one it refuses,
``parse_record`` refuses too (on these cases, one per rule of contract §1)."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from kgmem import MemoryGraph
from kgmem.errors import InputError
from kgmem.ingest.records import FIELDS, parse_record
from kgmem.validate import MAX_ENTITIES, MAX_ID, MAX_TEXT

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
    {"text": "x", "entities": [f"Service {i}" for i in range(MAX_ENTITIES)]},
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
    {"text": "x", "entities": [f"Service {i}" for i in range(MAX_ENTITIES + 1)]},
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


def test_a_record_naming_more_entities_than_a_memory_links_is_refused_with_the_limit() -> None:
    # 1,000 entities were accepted and 20 of them linked, silently (issue 46)
    with pytest.raises(InputError) as e:
        parse_record({"text": "x", "entities": [f"Service {i}" for i in range(1000)]}, tenant="t", line=3)
    assert e.value.field == "entities" and e.value.line == 3
    assert f"at most {MAX_ENTITIES}" in str(e.value) and "names 1000 entities" in str(e.value) and e.value.fix
    # the same entity spelled many ways is one entity
    same = parse_record({"text": "x", "entities": ["Acme"] * 500 + ["ACME", "acme"]}, tenant="t")
    assert same.entities is not None

"""parse_export (kgmem.derived.portable) without a database: the checks an import makes before writing."""

from __future__ import annotations

import io
import json

import pytest

from kgmem.derived.portable import FORMAT, parse_export
from kgmem.errors import InputError

HEADER = {"type": "header", "format": FORMAT, "tenant": "t"}
MEMORY = {"type": "memory", "id": "m1", "labels": ["Episode"], "props": {"text": "Maya moved to Lisbon."}}
ENTITY = {"type": "entity", "key": " maya ", "props": {"name": "Maya"}}


def _edge(to: str) -> dict:
    return {
        "type": "edge",
        "rel": "MENTIONS",
        "from_kind": "memory",
        "from": "m1",
        "to_kind": "entity",
        "to": to,
        "props": {},
    }


def _file(*lines: dict | str) -> io.StringIO:
    return io.StringIO("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines))


def test_edges_between_known_ends_parse():
    data = parse_export(_file(HEADER, MEMORY, ENTITY, _edge(" maya ")))
    assert [e["to"] for e in data["edges"]] == [" maya "]
    assert data["entities"][0]["key"] == " maya " and data["memories"][0]["id"] == "m1"


def test_an_edge_to_an_unknown_end_names_its_line():
    with pytest.raises(InputError, match="edge MENTIONS points at unknown entity ' lisbon '") as err:
        parse_export(_file(HEADER, MEMORY, ENTITY, _edge(" maya "), _edge(" lisbon ")))
    assert err.value.line == 5


def test_a_line_that_is_not_json_names_its_line():
    with pytest.raises(InputError, match="not valid JSON") as err:
        parse_export(_file(HEADER, MEMORY, '{"type": "entity", "key": '))
    assert err.value.line == 3

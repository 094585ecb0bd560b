"""Every face of a memory record says what the one record spec (:mod:`kgmem.record_spec`) says: the JSONL
parser's fields and limits, the JSON schema, ``MemoryGraph.remember``'s signature, the MCP ``remember`` and
``ingest`` tools' arguments, ``kgmem remember``'s options, the fields of a returned memory, and what the write
stores (``cypher/ingest/write_memories.cypher``, the rows it is given, the graph's typed classes). No database
is needed."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import inspect
import re
import typing
from typing import Any

import anyio
import click
import pytest
from click.testing import CliRunner

from kgmem import MemoryGraph
from kgmem.errors import InputError
from kgmem.ingest import records
from kgmem.record_spec import SPEC, Option, RecordFields
from kgmem.results import MEMORY_SCHEMA, RECORD_FIELDS, Memory

from ..conftest import ROOT

NAMES = tuple(SPEC)
# a fact's three parts, each needing the other two
FACT = {"subject": "maya", "predicate": "lives_in", "object": "Lisbon"}


def _bare(hint: Any) -> Any:
    """A type without its Annotated metadata."""
    return typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint


def test_the_spec_lists_text_first_then_the_typed_fields_in_order() -> None:
    assert NAMES[0] == "text"
    assert NAMES[1:] == tuple(typing.get_type_hints(RecordFields))


# ---------------------------------------------------------------------------- the parser and the JSON schema


def test_the_parser_knows_the_spec_fields_and_parses_each_into_the_record() -> None:
    assert records.FIELDS == NAMES
    parsed = {f.name for f in dataclasses.fields(records.Record)}
    assert set(NAMES) <= parsed, set(NAMES) - parsed
    with pytest.raises(InputError, match="known fields: " + ", ".join(NAMES)):
        records.parse_record({"text": "x", "zzzzzzzz": 1}, tenant="t")


@pytest.mark.parametrize("name", [n for n in NAMES if SPEC[n].max_length is not None])
def test_the_parser_enforces_each_length_limit_of_the_spec(name: str) -> None:
    limit = SPEC[name].max_length
    assert limit is not None

    def record(value: str) -> dict[str, Any]:
        out: dict[str, Any] = {"text": "x", **(FACT if name in FACT else {})}
        out[name] = [value] if SPEC[name].json_type == "array" else value
        return out

    tenant = "a" * limit if name == "tenant" else "t"  # a record may only repeat the graph's tenant
    records.parse_record(record("a" * limit), tenant=tenant)
    with pytest.raises(InputError) as refused:
        records.parse_record(record("a" * (limit + 1)), tenant=tenant)
    assert refused.value.field == name and refused.value.message.endswith(f"; the limit is {limit}")


def test_the_json_schema_is_the_spec() -> None:
    schema = MemoryGraph.record_schema()
    assert list(schema["properties"]) == list(NAMES)
    assert schema["properties"] == {name: SPEC[name].schema for name in NAMES}
    assert schema["required"] == [n for n in NAMES if n == "text"]


# ---------------------------------------------------------------------------- remember()


def test_remember_takes_text_and_the_spec_fields_as_typed_keywords() -> None:
    from kgmem.api.writing import Writing

    params = inspect.signature(Writing.remember).parameters
    assert list(params) == ["self", "text", "fields"]
    assert params["fields"].kind is inspect.Parameter.VAR_KEYWORD
    hints = typing.get_type_hints(Writing.remember)
    assert hints["text"] is str
    assert hints["fields"] == typing.Unpack[RecordFields]  # mypy checks every caller against the spec


# ---------------------------------------------------------------------------- the MCP tools


@pytest.fixture(scope="module")
def tools() -> dict[str, Any]:
    from kgmem.mcp_server import build_server

    return {t.name: t for t in anyio.run(build_server(tenant="unused").list_tools)}


def _json_type(prop: dict[str, Any]) -> str:
    (only,) = [o for o in prop.get("anyOf", [prop]) if o.get("type") != "null"]
    return str(only["type"])


def test_the_mcp_remember_tool_takes_the_spec_fields_it_should(tools: dict[str, Any]) -> None:
    schema = tools["remember"].input_schema
    assert list(schema["properties"]) == [n for n in NAMES if SPEC[n].mcp]
    assert schema["required"] == ["text"]
    for name, prop in schema["properties"].items():
        assert prop["description"] == SPEC[name].schema["description"], name
        assert _json_type(prop) == SPEC[name].json_type, name
        if SPEC[name].json_type == "array":
            assert prop["anyOf"][0]["items"] == {"type": "string"}, name


def test_the_mcp_ingest_tool_takes_records_of_the_spec(tools: dict[str, Any]) -> None:
    records_arg = tools["ingest"].input_schema["properties"]["records"]
    assert records_arg["items"]["properties"] == {name: SPEC[name].schema for name in NAMES}


# ---------------------------------------------------------------------------- kgmem remember

CLI_OPTIONS = {n: spec.cli for n, spec in SPEC.items() if isinstance(spec.cli, Option)}


def test_the_cli_remember_options_are_the_spec_fields_it_should() -> None:
    from kgmem.cli.memory_cmd import remember

    params = {p.name: p for p in remember.params}
    assert isinstance(params["text"], click.Argument)
    for name, spec in SPEC.items():
        opt = spec.cli
        if isinstance(opt, Option):
            param = params[name]
            assert isinstance(param, click.Option)
            assert tuple(param.opts) == opt.decls and param.help == opt.help, name
            assert param.multiple == opt.multiple and param.is_flag == (opt.flag is not None), name
            enum = spec.schema.get("enum")
            assert (list(param.type.choices) if isinstance(param.type, click.Choice) else None) == enum, name
        elif isinstance(opt, str):  # given by an option every such command has (--user, --tenant) or TEXT
            assert any(opt in (*p.opts, p.human_readable_name) for p in params.values()), (name, opt)
        else:
            assert name not in params, name
    options = [p.name for p in remember.params if p.name in CLI_OPTIONS]
    assert options == list(CLI_OPTIONS)  # in the record's order


def test_the_cli_remember_hands_each_option_to_remember_as_its_field(monkeypatch: pytest.MonkeyPatch) -> None:
    from kgmem.cli import cli, memory_cmd

    calls: list[tuple[str, dict[str, Any]]] = []

    class Graph:
        def remember(self, text: str, **fields: Any) -> Memory:
            calls.append((text, fields))
            return Memory(id="m", text=text, at=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))

    monkeypatch.setattr(memory_cmd, "open_graph", lambda *a, **k: contextlib.nullcontext(Graph()))
    given = ["--negated", "--entity", "Maya", "--entity", "Lisbon", "--caused-by", "m0", "--kind", "fact"]
    given += ["--id", "m", "--at", "2026-01-01", "-s", "maya", "-p", "lives_in", "-o", "Lisbon"]
    given += ["--stream", "s", "--source", "src", "--user", "u"]
    out = CliRunner().invoke(cli, ["remember", "Maya lives in Lisbon", *given])
    assert out.exit_code == 0, out.output
    out = CliRunner().invoke(cli, ["remember", "Checkout crashed"])
    assert out.exit_code == 0, out.output
    (text, full), (_, bare) = calls
    assert text == "Maya lives in Lisbon"
    assert full == {
        "user": "u",
        "polarity": False,
        "entities": ["Maya", "Lisbon"],
        "caused_by": ["m0"],
        "kind": "fact",
        "id": "m",
        "at": "2026-01-01",
        "subject": "maya",
        "predicate": "lives_in",
        "object": "Lisbon",
        "stream": "s",
        "source": "src",
    }
    assert set(full) == set(CLI_OPTIONS) | {"user"}
    assert bare == dict.fromkeys(full)  # an option not given: the field is None (not given)


# ---------------------------------------------------------------------------- a returned memory


def test_a_returned_memory_carries_the_spec_fields_it_should() -> None:
    assert RECORD_FIELDS == tuple(n for n in NAMES if SPEC[n].result is not None)
    hints, typed = typing.get_type_hints(Memory), typing.get_type_hints(RecordFields, include_extras=True)
    for name in RECORD_FIELDS:
        assert hints[name] == _bare(typed[name]), name
    full = Memory(id="m", text="x", at=None, **dict.fromkeys(RECORD_FIELDS, "v"))
    assert list(full.to_dict()) == ["id", "text", "at", "kind", *RECORD_FIELDS, "recorded_at", "valid_to", "current"]
    bare = Memory(id="m", text="x", at=None)
    assert not set(bare.to_dict()) & set(RECORD_FIELDS)  # present only when set
    props = MEMORY_SCHEMA["properties"]
    assert [n for n in props if n in SPEC] == ["id", "text", "at", "kind", *RECORD_FIELDS]
    assert set(RECORD_FIELDS) == set(props) - set(MEMORY_SCHEMA["required"])
    for name in RECORD_FIELDS:
        assert props[name]["type"] == SPEC[name].json_type, name
        assert props[name].get("description", "") == SPEC[name].result, name


# ---------------------------------------------------------------------------- what the write stores


def _written() -> tuple[dict[str, str], str]:
    """The statement's ``m.<property> = row.<key>`` pairs, and its MERGE pattern."""
    text = (ROOT / "cypher" / "ingest" / "write_memories.cypher").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith((":param", "//")))
    merge = re.search(r"MERGE \(m:Memory \{([^}]*)\}\)", body)
    assert merge is not None
    return dict(re.findall(r"\bm\.(\w+) = row\.(\w+)", body)), merge.group(1)


def test_the_write_stores_each_spec_field_as_the_spec_says() -> None:
    from kgmem.ingest.prepare import Row
    from kgmem.store import models

    written, merge = _written()
    row_fields = {f.name for f in dataclasses.fields(Row)}
    row = Row(id="i", text="t", kind="episode", at=dt.datetime(2026, 1, 1), content_key="c")
    declared = {
        getattr(prop, "db_property", None) or name
        for cls in (models.Memory, models.Fact)
        for name, prop in cls.defined_properties(rels=False).items()
    }
    for name, spec in SPEC.items():
        if spec.stored == "property":
            assert written.get(name) == name, f"write_memories.cypher does not set m.{name} = row.{name}"
            assert name in row_fields, name
            assert name in declared, f"kgmem.store.models does not declare {name}"
        elif spec.stored == "key":
            assert re.search(rf"\b{name}: (row\.{name}|\${name})", merge), f"{name} is not in the MERGE key"
        else:
            assert name not in written, f"{name} is stored as an edge, not a property"
    assert set(row.cypher_row([0.0])) == set(written.values()) | {"id", "embedding"}

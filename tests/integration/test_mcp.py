"""``kgmem mcp`` through the MCP SDK's own client: the stdio server spawned as ``python -m kgmem mcp --tenant T``
with the test database in its environment, and one run of the streamable HTTP transport.

Every wait is bounded (anyio.fail_after around each session; subprocess waits have timeouts).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from typing import Any, Awaitable, Callable

import anyio
import pytest

from ..cli import shapes
from ..cli.shapes import check
from ..conftest import ROOT

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

TOOLS = {
    "remember",
    "ingest",
    "ingest_document",
    "recall",
    "why",
    "now",
    "as_of",
    "history",
    "changes",
    "timeline",
    "neighbourhood",
    "mentions",
    "forget",
    "forget_stream",
    "ask",
    "vocabulary",
}
READ_TOOLS = {
    "recall",
    "why",
    "now",
    "as_of",
    "history",
    "changes",
    "timeline",
    "neighbourhood",
    "mentions",
    "ask",
    "vocabulary",
}
FORGET_TOOLS = {"forget", "forget_stream"}
SESSION_TIMEOUT = 300  # seconds for one whole client session (the first call loads the embedding model)

RECORDS = [
    {
        "id": "m-root",
        "text": "Merged PR 4412: the reconciler caches full invoices per request",
        "at": "2026-03-10",
        "stream": "inc",
    },
    {
        "id": "m-mid",
        "text": "Worker memory grew 2 GB an hour",
        "at": "2026-03-12",
        "caused_by": ["m-root"],
        "stream": "inc",
    },
    {
        "id": "m-crash",
        "text": "Checkout crashed on Friday with OOM kills",
        "at": "2026-03-13",
        "caused_by": ["m-mid"],
        "stream": "inc",
    },
    {
        "id": "m-f1",
        "text": "Maya lives in Boston",
        "kind": "fact",
        "subject": "maya",
        "predicate": "lives_in",
        "object": "Boston",
        "at": "2026-01-02",
    },
    {
        "id": "m-f2",
        "text": "Maya moved to Lisbon",
        "kind": "fact",
        "subject": "maya",
        "predicate": "lives_in",
        "object": "Lisbon",
        "at": "2026-04-03",
    },
]


def _params(env: dict, tenant: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "kgmem", "mcp", "--tenant", tenant],
        env={k: v for k, v in env.items() if k != "KGMEM_TENANT"},
        cwd=str(ROOT),
    )


def _session(server: Any, body: Callable[[Client], Awaitable[Any]], timeout: float = SESSION_TIMEOUT) -> Any:
    async def main() -> Any:
        with anyio.fail_after(timeout):
            async with Client(server, read_timeout_seconds=timeout) as client:
                return await body(client)

    return anyio.run(main)


def _ok(result: Any) -> dict:
    text = "".join(c.text for c in result.content if getattr(c, "text", None))
    assert not result.is_error, text
    out = json.loads(text)
    if result.structured_content is not None:
        assert result.structured_content == out
    return out


def _error(result: Any) -> str:
    assert result.is_error, result
    return "".join(c.text for c in result.content if getattr(c, "text", None))


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_stdio_every_tool(cli_env: dict, tenant: str) -> None:
    async def body(client: Client) -> None:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        for tool in listed.tools:
            assert "tenant" not in tool.input_schema.get("properties", {}), tool.name
            assert tool.description, tool.name

        report = _ok(await client.call_tool("ingest", {"records": RECORDS}))
        check(report, shapes.INGEST)
        assert report["created"] == len(RECORDS) and not report["errors"], report
        again = _ok(await client.call_tool("ingest", {"records": RECORDS}))  # idempotentHint: nothing changes
        assert again["created"] == 0 and again["unchanged"] == len(RECORDS), again

        mem = _ok(
            await client.call_tool(
                "remember", {"text": "Maya's phone number is 555-0101", "id": "m-phone", "at": "2026-02-01"}
            )
        )
        check(mem, shapes.MEMORY)
        assert mem["id"] == "m-phone"
        same = _ok(
            await client.call_tool(
                "remember", {"text": "Maya's phone number is 555-0101", "id": "m-phone", "at": "2026-02-01"}
            )
        )
        assert same == mem, (same, mem)

        rec = _ok(await client.call_tool("recall", {"query": "reconciler invoices", "k": 3}))
        check(rec, shapes.RECALL)
        assert rec["hits"][0]["id"] == "m-root", rec

        why = _ok(await client.call_tool("why", {"query": "why did checkout crash on Friday?"}))
        check(why, shapes.WHY)
        assert not why["abstained"] and why["roots"][0]["id"] == "m-root", why

        now = _ok(await client.call_tool("now", {"subject": "maya", "predicate": "lives_in"}))
        check(now, shapes.SLOT)
        assert now["value"]["object"].lower() == "lisbon", now

        then = _ok(await client.call_tool("as_of", {"subject": "maya", "predicate": "lives_in", "at": "2026-02-01"}))
        check(then, shapes.SLOT)
        assert then["value"]["object"].lower() == "boston", then

        hist = _ok(await client.call_tool("history", {"subject": "maya", "predicate": "lives_in"}))
        check(hist, shapes.HISTORY)
        assert [v["object"].lower() for v in hist["versions"]] == ["boston", "lisbon"], hist

        ch = _ok(await client.call_tool("changes", {"since": "2026-03-01"}))
        check(ch, shapes.CHANGES)
        assert any(c["id"] == "m-f2" for c in ch["changes"]), ch

        tl = _ok(await client.call_tool("timeline", {"id": "m-mid", "before": 1, "after": 1}))
        check(tl, shapes.TIMELINE)
        assert {"m-root", "m-crash"} <= {i["id"] for i in tl["items"]}, tl

        ask = _ok(await client.call_tool("ask", {"question": "where does Maya live?"}))
        assert ask["intent"] == "slot" and ask["operation"] == "now", ask
        assert ask["result"]["value"]["object"].lower() == "lisbon", ask

        gone = _ok(await client.call_tool("forget", {"id": "m-phone"}))
        assert "m-phone" in gone["forgotten"], gone
        missing = _error(await client.call_tool("forget", {"id": "m-phone"}))
        assert "m-phone" in missing and "Fix:" in missing, missing

        # a whole document: its memory and its passages; forgetting the document forgets them
        text = "# House\n\nThe boiler is serviced every May by Carlos, who also checks the chimney.\n"
        doc = _ok(await client.call_tool("ingest_document", {"text": text, "name": "house.md"}))
        check(doc, shapes.INGEST)
        assert doc["created"] == 2 and not doc["errors"] and doc["file"]["parts"] == 1, doc
        gone = _ok(await client.call_tool("forget", {"id": doc["file"]["id"]}))
        assert sorted(gone["forgotten"]) == sorted([doc["file"]["id"], doc["file"]["id"] + "#p0001"]), gone

    _session(_params(cli_env, tenant), body)


def _closed(schema: Any) -> Any:
    """``schema`` with every object that lists its fields refusing others: a field a tool returns that its
    published schema does not name fails validation (the published schemas allow added fields)."""
    if isinstance(schema, list):
        return [_closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _closed(v) for k, v in schema.items()}
    if "properties" in schema:
        out["properties"] = {k: _closed(v) for k, v in schema["properties"].items()}
        out.setdefault("additionalProperties", False)
    return out


def test_stdio_every_tool_publishes_its_output_schema_and_keeps_to_it(cli_env: dict, tenant: str) -> None:
    """Every tool's outputSchema names the fields of what it returns (it was a bare {"type": "object"} for all),
    and what each tool returns on real calls validates against it, with no field the schema does not name."""
    from jsonschema import Draft202012Validator

    from kgmem.ingest.documents import document_id

    text = "# House\n\nThe boiler is serviced every May by Carlos, who also checks the chimney.\n"
    doc = document_id("house.md", text)
    calls: list[tuple[str, dict]] = [
        ("ingest", {"records": RECORDS}),
        ("ingest_document", {"text": text, "name": "house.md"}),
        ("remember", {"text": "Maya's phone number is 555-0101", "id": "m-phone", "at": "2026-02-01"}),
        ("remember", {"text": "Maya likes tea", "subject": "maya", "predicate": "likes", "object": "tea"}),
        ("recall", {"query": "reconciler invoices", "k": 3}),
        ("recall", {"query": "what did the reconciler cache?", "include_superseded": True, "at": "2026-03-11"}),
        ("recall", {"query": "quantum chromodynamics on a lattice"}),
        ("why", {"query": "why did checkout crash on Friday?"}),
        ("why", {"query": "why is the sky green?"}),
        ("now", {"subject": "maya", "predicate": "lives_in"}),
        ("now", {"subject": "maya", "predicate": "likes", "object": "tea"}),
        ("now", {"subject": "sam", "predicate": "lives_inn"}),
        ("as_of", {"subject": "maya", "predicate": "lives_in", "at": "2026-02-01"}),
        ("history", {"subject": "maya", "predicate": "lives_in"}),
        ("changes", {"since": "2026-01-01"}),
        ("timeline", {"id": "m-mid", "before": 2, "after": 2}),
        ("ask", {"question": "where does Maya live?"}),
        ("ask", {"question": "why did checkout crash?"}),
        ("ask", {"question": "what did the reconciler cache?"}),
        ("ask", {"question": "what is 2 + 2?"}),
        ("vocabulary", {"match": "like"}),
        ("neighbourhood", {"id": "m-mid"}),
        ("neighbourhood", {"id": "m-f1", "limit": 1}),
        ("neighbourhood", {"id": doc + "#p0001"}),
        ("mentions", {"entity": "Maya"}),
        ("mentions", {"entity": "nobody at all", "limit": 3}),
        ("forget", {"id": "m-phone"}),
        ("forget_stream", {"stream": "inc"}),
        ("forget_stream", {"stream": doc}),
    ]

    async def body(client: Client) -> tuple[dict, list[tuple[str, dict, Any]]]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        out = []
        for name, args in calls:
            result = await client.call_tool(name, args)  # the SDK's client checks it against the schema too
            _ok(result)
            out.append((name, args, result.structured_content))
        return tools, out

    tools, results = _session(_params(cli_env, tenant), body)
    for name, tool in tools.items():
        schema = tool.output_schema
        assert schema and schema.get("type") == "object", (name, schema)
        Draft202012Validator.check_schema(schema)
        assert len(schema.get("properties", {})) >= 2 and schema.get("required"), (name, schema)
        for field, sub in schema["properties"].items():
            assert sub.get("type") or sub.get("anyOf"), (name, field)
    assert {name for name, _, _ in results} == set(tools), "call every tool at least once"
    for name, args, content in results:
        assert content is not None, name
        errors = list(Draft202012Validator(_closed(tools[name].output_schema)).iter_errors(content))
        assert not errors, (name, args, [f"{list(e.absolute_path)}: {e.message}"[:300] for e in errors])


def test_stdio_recall_takes_the_cli_options_with_the_same_checks(cli_env: dict, tenant: str, mg) -> None:
    """recall over MCP had no since/until/now/expand/explain while `kgmem recall` had them: the same options,
    the same hard filters and the same error lines."""
    from click.testing import CliRunner

    from kgmem.cli import cli

    mg.ingest(RECORDS)
    query = "reconciler invoices worker memory checkout crash"
    bad = {"expand": 9, "since": "not a time at all", "until": "2026-13-01", "now": "someday"}

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {
            "all": _ok(await client.call_tool("recall", {"query": query})),
            "window": _ok(
                await client.call_tool("recall", {"query": query, "since": "2026-03-11", "until": "2026-03-13", "k": 5})
            ),
            "expand": _ok(await client.call_tool("recall", {"query": "worker memory grew", "k": 1, "expand": 1})),
            "explain": _ok(await client.call_tool("recall", {"query": query, "k": 2, "explain": True})),
            "then": _ok(
                await client.call_tool("recall", {"query": "what happened in the last 2 days?", "now": "2026-03-13"})
            ),
        }
        for name, value in bad.items():
            out[f"bad-{name}"] = _error(await client.call_tool("recall", {"query": query, name: value}))
        return out

    out = _session(_params(cli_env, tenant), body)
    assert {"m-root", "m-mid", "m-crash"} <= {h["id"] for h in out["all"]["hits"]}, out["all"]
    assert [h["id"] for h in out["window"]["hits"]] == ["m-mid"], out["window"]  # until is exclusive
    hit = out["expand"]["hits"][0]
    assert hit["id"] == "m-mid" and {c["id"] for c in hit["context"]} == {"m-root", "m-crash"}, hit
    assert out["explain"]["explain"]["filters"], out["explain"]
    assert "m-f2" not in {h["id"] for h in out["then"]["hits"]}, out["then"]  # April is after the 2 days
    for name, value in bad.items():
        text = out[f"bad-{name}"]
        assert text.startswith(f"Error: field '{name}'") and " Fix: " in text, text
        res = CliRunner().invoke(cli, ["recall", query, f"--{name}", str(value)], env=cli_env)
        assert res.exit_code == 1, res.output
        assert res.stderr.strip() == text, (res.stderr, text)  # the CLI's line, word for word
    res = CliRunner().invoke(
        cli, ["recall", query, "--since", "2026-03-11", "--until", "2026-03-13", "-k", "5", "--json"], env=cli_env
    )
    assert [h["id"] for h in json.loads(res.stdout)["hits"]] == ["m-mid"], res.output


def test_stdio_mentions_neighbourhood_and_forget_stream(cli_env: dict, tenant: str, mg) -> None:
    """The tools other graph memories have and kgmem lacked: the memories that mention an entity, a memory's
    neighbourhood in one call, forgetting a whole stream; each the JSON of its --json command."""
    from click.testing import CliRunner

    from kgmem.cli import cli

    mg.ingest(RECORDS + [{"id": "m-note", "text": "Maya reviewed the reconciler fix", "at": "2026-04-05"}])

    def cli_json(*args: str) -> dict:
        res = CliRunner().invoke(cli, [*args, "--json"], env=cli_env, catch_exceptions=False)
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    expected = {"mentions": cli_json("mentions", "maya", "--limit", "2"), "hood": cli_json("neighbourhood", "m-mid")}

    async def body(client: Client) -> dict[str, Any]:
        return {
            "mentions": _ok(await client.call_tool("mentions", {"entity": "Maya", "limit": 2})),
            "hood": _ok(await client.call_tool("neighbourhood", {"id": "m-mid"})),
            "empty": _error(await client.call_tool("forget_stream", {"stream": "  "})),
            "unknown": _error(await client.call_tool("forget_stream", {"stream": "no-such-stream"})),
            "gone": _ok(await client.call_tool("forget_stream", {"stream": "inc"})),
            "after": _ok(await client.call_tool("neighbourhood", {"id": "m-f2"})),
            "missing": _error(await client.call_tool("neighbourhood", {"id": "m-mid"})),
        }

    out = _session(_params(cli_env, tenant), body)
    assert [m["id"] for m in out["mentions"]["memories"]] == ["m-note", "m-f2"], out["mentions"]
    assert out["mentions"]["total"] >= 3 and out["mentions"] == {**expected["mentions"], "entity": "Maya"}
    hood = out["hood"]
    assert [c["id"] for c in hood["causes"]] == ["m-root"] and [e["id"] for e in hood["effects"]] == ["m-crash"]
    assert hood["previous"]["id"] == "m-root" and hood["next"]["id"] == "m-crash" and hood == expected["hood"]
    assert out["empty"].startswith("Error: field 'stream': must not be empty") and " Fix: " in out["empty"]
    assert "no-such-stream" in out["unknown"] and " Fix: " in out["unknown"], out["unknown"]
    assert sorted(out["gone"]["ids"]) == ["m-crash", "m-mid", "m-root"] and out["gone"]["stream"] == "inc"
    assert [s["id"] for s in out["after"]["supersedes"]] == ["m-f1"], out["after"]
    assert "m-mid" in out["missing"] and " Fix: " in out["missing"]


def test_stdio_bad_arguments_name_the_field(cli_env: dict, tenant: str) -> None:
    async def body(client: Client) -> None:
        bad_type = _error(await client.call_tool("recall", {"query": "x", "k": "lots"}))
        assert "k" in bad_type.split() or "\nk\n" in bad_type, bad_type
        missing = _error(await client.call_tool("now", {"predicate": "lives_in"}))
        assert "subject" in missing, missing
        # a kgmem InputError: the field and the fix, as the CLI prints them
        out_of_range = _error(await client.call_tool("timeline", {"id": "nope", "before": 1000}))
        assert "field 'before'" in out_of_range and "Fix:" in out_of_range, out_of_range
        bad_time = _error(
            await client.call_tool("as_of", {"subject": "maya", "predicate": "lives_in", "at": "not a time at all"})
        )
        assert "'at'" in bad_time, bad_time

    _session(_params(cli_env, tenant), body)


def test_stdio_tools_describe_every_argument_and_say_what_they_change(cli_env: dict, tenant: str) -> None:
    from kgmem import MemoryGraph
    from kgmem.ingest.records import FIELDS

    async def body(client: Client) -> dict:
        return {t.name: t for t in (await client.list_tools()).tools}

    tools = _session(_params(cli_env, tenant), body)
    arguments = 0
    for tool in tools.values():
        props = tool.input_schema["properties"]
        arguments += len(props)
        assert not [a for a, schema in props.items() if not schema.get("description")], tool.name
        assert tool.input_schema.get("additionalProperties") is False, tool.name  # unknown arguments: refused
        ann = tool.annotations
        assert ann is not None and ann.open_world_hint is False, tool.name
        assert ann.read_only_hint is (tool.name in READ_TOOLS), tool.name
        assert ann.destructive_hint is (tool.name in FORGET_TOOLS), tool.name
        assert ann.idempotent_hint is True, tool.name
    assert arguments >= 40, arguments
    assert set(tools) == TOOLS

    # ingest publishes the JSON schema of a record: the write path's own fields, with their descriptions
    records = tools["ingest"].input_schema["properties"]["records"]
    assert records["type"] == "array" and records["description"]
    record = records["items"]
    assert record == MemoryGraph.record_schema()
    assert tuple(record["properties"]) == FIELDS and record["required"] == ["text"]
    assert {"text", "id", "at", "user", "caused_by"} <= set(record["properties"])
    assert record["additionalProperties"] is False
    assert all(schema.get("description") for schema in record["properties"].values())
    # remember's arguments are a record's fields, described by the same words
    for name, schema in tools["remember"].input_schema["properties"].items():
        assert schema["description"] == record["properties"][name]["description"], name


def test_stdio_wrong_arguments_are_one_line_and_unknown_ones_refused(cli_env: dict, tenant: str) -> None:
    async def body(client: Client) -> dict[str, str]:
        return {
            "type": _error(await client.call_tool("recall", {"query": "x", "k": "lots"})),
            "missing": _error(await client.call_tool("now", {"predicate": "lives_in"})),
            "tenant": _error(await client.call_tool("recall", {"query": "x", "tenant": "someone-else"})),
            "typo": _error(await client.call_tool("recall", {"qurey": "reconciler"})),
            "nested": _error(await client.call_tool("remember", {"text": "x", "entities": ["a", 3]})),
            "kgmem": _error(await client.call_tool("timeline", {"id": "nope", "before": 1000})),
        }

    texts = _session(_params(cli_env, tenant), body)
    for case, text in texts.items():
        assert "\n" not in text and text.startswith("Error: field '") and " Fix: " in text, (case, text)
        assert "pydantic" not in text and "validation error" not in text, (case, text)
        assert "Error executing tool" not in text, (case, text)
    assert texts["type"].startswith("Error: field 'k': must be an integer, got \"lots\""), texts["type"]
    assert texts["missing"].startswith("Error: field 'subject': is required"), texts["missing"]
    assert "now takes subject, predicate, object" in texts["missing"], texts["missing"]
    assert texts["tenant"].startswith("Error: field 'tenant': is not an argument of recall"), texts["tenant"]
    assert "fixes the tenant" in texts["tenant"], texts["tenant"]
    assert "field 'qurey': is not an argument" in texts["typo"] and "did you mean 'query'?" in texts["typo"]
    assert texts["nested"].startswith("Error: field 'entities.1': must be a string, got 3"), texts["nested"]
    assert texts["kgmem"].startswith("Error: field 'before': must be 0 to 500"), texts["kgmem"]


def test_stdio_empty_slot_answers_carry_the_cli_hint(cli_env: dict, tenant: str, mg) -> None:
    from click.testing import CliRunner

    from kgmem.cli import cli

    mg.ingest(
        [
            {
                "id": "f1",
                "text": "Sam lives in Oslo",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Oslo",
                "at": "2026-01-01",
            }
        ]
    )

    async def body(client: Client) -> dict[str, dict]:
        return {
            "now": _ok(await client.call_tool("now", {"subject": "sam", "predicate": "lives_inn"})),
            "as_of": _ok(
                await client.call_tool("as_of", {"subject": "sam", "predicate": "lives_inn", "at": "2026-02-01"})
            ),
            "history": _ok(await client.call_tool("history", {"subject": "sam", "predicate": "lives_inn"})),
            "found": _ok(await client.call_tool("now", {"subject": "sam", "predicate": "lives_in"})),
        }

    out = _session(_params(cli_env, tenant), body)
    hint = out["now"]["hint"]
    assert out["now"]["value"] is None and "not in the vocabulary; did you mean lives_in?" in hint, out["now"]
    assert "memory 'f1' may say it" in hint, out["now"]  # the evidence an empty slot falls back to
    assert out["as_of"]["value"] is None and out["as_of"]["hint"] == hint, out["as_of"]
    assert out["history"]["versions"] == [] and out["history"]["hint"] == hint, out["history"]
    assert out["found"]["value"]["object"] == "Oslo" and out["found"]["hint"] is None, out["found"]
    # the same words as the CLI's --json
    res = CliRunner().invoke(cli, ["now", "sam", "lives_inn", "--json"], env=cli_env, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["hint"] == hint


def test_stdio_vocabulary_lists_predicates_aliases_and_cardinality(cli_env: dict, tenant: str) -> None:
    from kgmem.vocab import Vocabulary

    async def body(client: Client) -> dict[str, dict]:
        return {
            "vocabulary": _ok(await client.call_tool("vocabulary", {})),
            "live": _ok(await client.call_tool("vocabulary", {"match": "live"})),
        }

    out = _session(_params(cli_env, tenant), body)
    predicates = out["vocabulary"]["predicates"]
    assert len(predicates) == len(Vocabulary.load()) >= 100
    assert predicates["lives_in"]["cardinality"] == "one" and predicates["lives_in"]["aliases"]
    assert predicates["likes"]["cardinality"] == "many" and "dislikes" in predicates["likes"]["negative_aliases"]
    live = out["live"]["predicates"]
    assert "lives_in" in live and len(live) < len(predicates)
    for name, entry in live.items():
        words = [name, *entry["aliases"], *entry.get("negative_aliases", []), entry["description"].lower()]
        assert any("live" in w for w in words), name


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed


def test_stdio_unreachable_database_is_a_tool_error(cli_env: dict, tenant: str) -> None:
    env = {**cli_env, "NEO4J_URI": f"bolt://127.0.0.1:{_closed_port()}"}

    async def body(client: Client) -> None:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS  # the server starts regardless
        text = _error(await client.call_tool("recall", {"query": "anything"}))
        assert "not reachable" in text or "unreachable" in text, text
        assert "Fix:" in text, text
        again = _error(await client.call_tool("now", {"subject": "maya", "predicate": "lives_in"}))
        assert "reachable" in again, again

    _session(_params(env, tenant), body, timeout=120)


def test_stdio_another_tenant_is_refused(cli_env: dict, tenant: str, other_tenant: str, store) -> None:
    async def body(client: Client) -> None:
        # a record naming another tenant refuses the whole call: a tool error, nothing written
        refused = _error(
            await client.call_tool(
                "ingest",
                {
                    "records": [
                        {"id": "x-1", "text": "smuggled into the other tenant", "tenant": other_tenant},
                        {"id": "x-2", "text": "stays in the server's tenant", "tenant": tenant},
                    ]
                },
            )
        )
        assert "line 1, field 'tenant'" in refused and other_tenant in refused and " Fix: " in refused, refused
        _ok(await client.call_tool("ingest", {"records": [{"id": "x-2", "text": "stays in the server's tenant"}]}))
        # no tool takes a tenant: the argument is refused by name (not dropped, not obeyed)
        refused = _error(await client.call_tool("recall", {"query": "smuggled stays tenant", "tenant": other_tenant}))
        assert "field 'tenant'" in refused and "Fix:" in refused, refused
        rec = _ok(await client.call_tool("recall", {"query": "smuggled stays tenant"}))
        assert {h["id"] for h in rec["hits"]} <= {"x-2"}, rec

    _session(_params(cli_env, tenant), body)
    counts = store.read("admin/count_tenant", tenant=other_tenant)
    assert all(v == 0 for row in counts for v in row.values() if isinstance(v, int)), counts
    assert store.read("memory/by_ids", tenant=other_tenant, ids=["x-1", "x-2"]) == []
    assert [r["id"] for r in store.read("memory/by_ids", tenant=tenant, ids=["x-1", "x-2"])] == ["x-2"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http(cli_env: dict, tenant: str, mg) -> None:
    mg.ingest(RECORDS)
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kgmem",
            "mcp",
            "--http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--tenant",
            tenant,
        ],
        env=cli_env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.communicate(timeout=10)
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start listening in 120 s"
            time.sleep(0.25)

        async def body(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            rec = _ok(await client.call_tool("recall", {"query": "reconciler invoices", "k": 3}))
            check(rec, shapes.RECALL)
            assert rec["hits"][0]["id"] == "m-root", rec

        _session(f"http://127.0.0.1:{port}/mcp", body)
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=30)


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


def test_streamable_http_off_loopback_needs_a_bearer_token(cli_env: dict, tenant: str, mg) -> None:
    """``--host 0.0.0.0`` served anyone on the network with no token and no Host check (issue 46)."""
    import httpx2

    mg.ingest(RECORDS)
    port = _free_port()
    argv = [sys.executable, "-m", "kgmem", "mcp", "--http", "--host", "0.0.0.0", "--port", str(port)]
    env = {k: v for k, v in cli_env.items() if k != "KGMEM_MCP_TOKEN"}
    refused = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1, refused
    assert (
        "not a loopback address" in refused.stderr and "Fix:" in refused.stderr and "KGMEM_MCP_TOKEN" in refused.stderr
    )

    token = "t0k3n-" + tenant
    proc = subprocess.Popen(
        argv, env={**env, "KGMEM_MCP_TOKEN": token}, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.communicate(timeout=10)
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start listening in 120 s"
            time.sleep(0.25)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

        def post(**extra: str) -> httpx2.Response:
            return httpx2.post(url, json=_INITIALIZE, headers={**headers, **extra}, timeout=30)

        missing, wrong = post(), post(Authorization="Bearer not-" + token)
        assert (missing.status_code, wrong.status_code) == (401, 401), (missing.text, wrong.text)
        assert missing.headers["www-authenticate"] == "Bearer" and "Fix:" in missing.text
        assert post(Authorization=f"Bearer {token}").status_code == 200
        # the Host/Origin allow-list holds off loopback too (DNS rebinding)
        assert post(Authorization=f"Bearer {token}", Host="rebound.example").status_code == 421
        assert post(Authorization=f"Bearer {token}", Origin="http://rebound.example").status_code == 403

        async def body(client: Client) -> None:
            rec = _ok(await client.call_tool("recall", {"query": "reconciler invoices", "k": 3}))
            assert rec["hits"][0]["id"] == "m-root", rec

        from mcp.client.streamable_http import streamable_http_client

        authed = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=SESSION_TIMEOUT)
        _session(streamable_http_client(url, http_client=authed), body)
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate(timeout=30)
    assert "warning: serving http://0.0.0.0" in err, err


# ---------------------------------------------------------------------------- one error form (issue 46)

_BAD_STRINGS = ["", " ", "x" * 2**20, "a\x00b", "\ud800", 5, True, [], {}]
_BAD_INTS = ["5", True, 1.5, 0, -1, 10**9, "lots", None]
_BAD_TIMES = ["not-a-date", "9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00", "2026-13-01"]
_GOOD = {
    "query": "reconciler invoices",
    "text": "a note",
    "subject": "maya",
    "predicate": "lives_in",
    "at": "2026-03-01",
    "since": "2026-01-01",
    "id": "m-root",
    "question": "where does maya live?",
    "records": [{"text": "a note"}],
}


def _bad_values(schema: dict) -> list[Any]:
    kinds = {o.get("type") for o in schema.get("anyOf", [schema])}
    if "integer" in kinds or "number" in kinds:
        return _BAD_INTS
    if "boolean" in kinds:
        return ["true", 1, "yes"]
    if "array" in kinds:
        return ["a string", [5], [""], [{"text": 5}], {}]
    return _BAD_STRINGS + (_BAD_TIMES if "RFC 3339" in schema.get("description", "") else [])


def test_every_mcp_error_says_the_fix(mg) -> None:
    """Every tool, called with each wrong value of each argument (and with arguments missing or unknown): every
    error is one line with its Fix (8 texts over MCP had none: remember's record errors, an empty id, ...), and
    "5" or true is not an integer."""
    from kgmem.mcp_server import build_server

    mg.ingest(RECORDS)
    server = build_server(mg.tenant, graph_factory=lambda: mg)

    async def body(client: Client) -> list[tuple[str, str, str]]:
        bad: list[tuple[str, str, str]] = []
        for tool in (await client.list_tools()).tools:
            props = tool.input_schema["properties"]
            good = {k: v for k, v in _GOOD.items() if k in props}
            calls = [("nothing", {}), ("tenant", {**good, "tenant": "other"}), ("unknown", {**good, "colour": 1})]
            calls += [(name, {**good, name: value}) for name in props for value in _bad_values(props[name])]
            for name, args in calls:
                result = await client.call_tool(tool.name, args)
                text = "".join(getattr(c, "text", "") for c in result.content)
                shown = f"{name}={args.get(name, '')!r:.30}"
                if result.is_error and not (text.startswith("Error: ") and " Fix: " in text and "\n" not in text):
                    bad.append((tool.name, shown, text[:160]))
                integer = "integer" in json.dumps(props.get(name, {}))
                if integer and not result.is_error and args[name] in ("5", True, 1.5):
                    bad.append((tool.name, shown, "accepted: " + text[:80]))
        return bad

    assert _session(server, body) == []


def test_an_mcp_ingest_naming_another_tenant_is_a_tool_error_and_writes_nothing(mg, other_tenant, store) -> None:
    from kgmem.mcp_server import build_server

    server = build_server(mg.tenant, graph_factory=lambda: mg)

    async def body(client: Client) -> str:
        records = [
            {"id": "x-1", "text": "stays", "tenant": mg.tenant},
            {"id": "x-2", "text": "smuggled", "tenant": other_tenant},
        ]
        return _error(await client.call_tool("ingest", {"records": records}))

    text = _session(server, body)
    assert "line 2" in text and "field 'tenant'" in text and " Fix: " in text, text
    assert store.read("memory/by_ids", tenant=mg.tenant, ids=["x-1", "x-2"]) == []
    assert store.read("memory/by_ids", tenant=other_tenant, ids=["x-1", "x-2"]) == []


def _rpc(proc: subprocess.Popen, line: str, wanted: int) -> dict:
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    while True:
        out = proc.stdout.readline()
        assert out, proc.stderr.read()
        msg = json.loads(out)
        if msg.get("id") == wanted:
            return msg


def test_a_key_given_twice_over_mcp_is_refused_as_in_a_jsonl_file(cli_env: dict, tenant: str, mg) -> None:
    """JSON does not say which of two equal keys wins: a JSONL line with one is an error for its line, but over
    MCP the SDK's parser kept the last silently. The raw JSON-RPC lines, as a client writes them."""
    env = {k: v for k, v in cli_env.items() if k != "KGMEM_TENANT"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgmem", "mcp", "--tenant", tenant],
        env=env,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _rpc(proc, json.dumps({**_INITIALIZE, "params": {**_INITIALIZE["params"]}}), 1)
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        records = '[{"id": "d-1", "text": "first", "text": "second"}, {"id": "d-2", "text": "fine"}]'
        call = '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ingest", "arguments": {"records": %s}}}'
        result = _rpc(proc, call % records, 2)["result"]
        assert not result["isError"], result
        report = json.loads(result["content"][0]["text"])
        assert report["created"] == 1 and [e["line"] for e in report["errors"]] == [1], report
        assert "key 'text' appears twice in one object" in report["errors"][0]["error"], report
        twice = '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": "fine", "k": 3, "k": 50}}}'
        result = _rpc(proc, twice, 3)["result"]
        assert result["isError"] and "key 'k' appears twice" in result["content"][0]["text"], result
        assert " Fix: " in result["content"][0]["text"], result
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert mg.get("d-2").text == "fine"
    assert [r["id"] for r in mg.store.read("memory/by_ids", tenant=tenant, ids=["d-1", "d-2"])] == ["d-2"]

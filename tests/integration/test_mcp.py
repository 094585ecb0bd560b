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

TOOLS = {"remember", "ingest", "recall", "why", "now", "as_of", "history", "changes", "timeline", "forget", "ask"}
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

        mem = _ok(
            await client.call_tool(
                "remember", {"text": "Maya's phone number is 555-0101", "id": "m-phone", "at": "2026-02-01"}
            )
        )
        check(mem, shapes.MEMORY)
        assert mem["id"] == "m-phone"

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

    _session(_params(cli_env, tenant), body)


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
        report = _ok(
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
        assert report["created"] == 1, report
        assert [e["line"] for e in report["errors"]] == [1], report
        assert other_tenant in report["errors"][0]["error"] or "tenant" in report["errors"][0]["error"], report
        # no tool takes a tenant: an extra argument does not switch tenants (it is not in the schema)
        rec = _ok(await client.call_tool("recall", {"query": "smuggled stays tenant", "tenant": other_tenant}))
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

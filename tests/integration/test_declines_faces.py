"""Issue 22 item 4: the two kinds of "no" reach every face — the Python API (tested in test_recall.py), the CLI's
``recall`` and ``ask`` (human text and ``--json``), and the MCP server's ``recall`` and ``ask`` tools — as the
same reason: "nothing about <topic>" for a topic no memory holds, "the memories say this of <other>, not of
<named>" for a question about the wrong person."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgmem.cli import cli

from .test_recall import ingest_chat

PREMISE = "What did Melanie make in the pottery class?"  # Caroline made the bowl
ABSENT = "What is Caroline's favourite band?"
NOW = "2024-04-01"


@pytest.fixture
def chat(mg):
    return ingest_chat(mg)


def _cli(env: dict, *args: str) -> str:
    res = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout


def _is_premise(d: dict) -> None:
    assert d["abstained"] and d["hits"], d  # the hits come back with the confidence either way
    assert d["decline"]["kind"] == "other_subject", d["decline"]
    assert (d["decline"]["named"], d["decline"]["other"]) == ("Melanie", "Caroline"), d["decline"]
    assert d["reason"].startswith("the memories say this of Caroline, not of Melanie"), d["reason"]


def _is_absent(d: dict) -> None:
    assert d["abstained"] and d["decline"]["kind"] == "topic_absent", d
    assert "band" in d["decline"]["topic"] and d["reason"].startswith("nothing about"), d["reason"]


def test_the_cli_says_both_kinds_of_no_in_recall_and_ask(chat, cli_env):
    _is_premise(json.loads(_cli(cli_env, "recall", PREMISE, "--now", NOW, "--json")))
    _is_absent(json.loads(_cli(cli_env, "recall", ABSENT, "--now", NOW, "--json")))
    asked = json.loads(_cli(cli_env, "ask", PREMISE, "--now", NOW, "--json"))
    assert asked["operation"] == "recall", asked
    _is_premise(asked["result"])
    human = _cli(cli_env, "recall", PREMISE, "--now", NOW)
    assert "I don't know" in human and "the memories say this of Caroline, not of Melanie" in human, human
    human = _cli(cli_env, "ask", PREMISE, "--now", NOW)
    assert "I don't know" in human and "the memories say this of Caroline, not of Melanie" in human, human
    human = _cli(cli_env, "recall", ABSENT, "--now", NOW)
    assert "I don't know" in human and "nothing about" in human and "band" in human, human


def test_the_mcp_tools_say_both_kinds_of_no(chat, cli_env, tenant):
    pytest.importorskip("mcp")
    from .test_mcp import _ok, _params, _session

    async def body(client):
        rec = _ok(await client.call_tool("recall", {"query": PREMISE}))
        absent = _ok(await client.call_tool("recall", {"query": ABSENT}))
        asked = _ok(await client.call_tool("ask", {"question": PREMISE, "now": NOW}))
        return rec, absent, asked

    rec, absent, asked = _session(_params(cli_env, tenant), body)
    _is_premise(rec)
    _is_absent(absent)
    assert asked["operation"] == "recall", asked
    _is_premise(asked["result"])

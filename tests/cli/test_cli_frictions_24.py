"""Issue 24 item 5, the frictions a new user met from an installed wheel: `kgmem bench` outside a checkout,
empty answers on an empty tenant, `cypher --tenant`, `-k`, `server start`'s export lines, `server status`
without a pid, the unreachable message, the `init` table, the Browser port in `cypher --help`, `ask`'s
first line, the writing progress bar, shell completion, and what is slow once saying so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from kgmem.cli import cli

KGMEM = [str(Path(sys.executable).parent / "kgmem")]


def run_cli(*args: str, **kwargs):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kwargs)


# ------------------------------------------------------------------ bench from an installed copy


def test_bench_outside_a_checkout_is_a_one_line_usage_error(monkeypatch, tmp_path):
    # what an installed wheel sees: no kgmem_bench importable, no bench/ beside the package nor in the cwd
    main = sys.modules["kgmem.cli.main"]
    site = tmp_path / "site-packages" / "kgmem" / "cli"
    site.mkdir(parents=True)
    monkeypatch.setattr(main, "__file__", str(site / "main.py"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "kgmem_bench", None)
    monkeypatch.setitem(sys.modules, "kgmem_bench.runner", None)
    res = run_cli("bench", "--list")
    assert res.exit_code == 2, res.output  # a usage error (docs/interface.md: 2 usage)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith("Error: the benchmarks are not part of an installed kgmem"), lines
    assert " Fix: " in lines[0] and "inside a clone of the kgmem repository" in lines[0], lines
    assert "[bench]" in lines[0], lines


# ------------------------------------------------------------------ an empty tenant says so


def test_recall_why_and_ask_on_an_empty_tenant_say_it_is_empty(mg, cli_env):
    empty = f"tenant '{mg.tenant}' has no memories (check --tenant or KGMEM_TENANT)"
    res = mg.recall("where does Maya live?")
    assert res.abstained and res.hits == [] and res.reason.endswith(empty), res.reason
    why = mg.why("why did checkout crash on Friday?")
    assert why.abstained and why.symptom is None and why.reason.endswith(empty), why.reason
    asked = mg.ask("why did checkout crash on Friday?")
    assert asked.operation == "why" and asked.result.reason.endswith(empty), asked.to_dict()

    human = run_cli("recall", "where does Maya live?", env=cli_env)
    assert human.exit_code == 0 and "I don't know" in human.stdout and empty in human.stdout, human.stdout
    as_json = json.loads(run_cli("why", "why did checkout crash?", "--json", env=cli_env).stdout)
    assert as_json["abstained"] and as_json["reason"].endswith(empty), as_json


def test_an_empty_answer_from_a_tenant_with_memories_has_no_empty_tenant_hint(mg):
    mg.remember("Sam moved to Oslo", at="2026-01-01")
    res = mg.recall("where does Sam live?", since="2100-01-01")  # the filter leaves nothing eligible
    assert res.abstained and res.hits == [] and "has no memories" not in (res.reason or ""), res.reason

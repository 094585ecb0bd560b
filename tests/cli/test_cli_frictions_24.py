"""Issue 24 item 5, the frictions a new user met from an installed wheel: `kgmem bench` outside a checkout,
empty answers on an empty tenant, `cypher --tenant`, `-k`, `server start`'s export lines, `server status`
without a pid, the unreachable message, the `init` table, the Browser port in `cypher --help`, `ask`'s
first line, the writing progress bar, shell completion, and what is slow once saying so."""

from __future__ import annotations

import dataclasses
import json
import re
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


# ------------------------------------------------------------------ cypher: --tenant, the Browser's port


def test_cypher_tenant_sets_the_tenant_of_the_param_lines(mg, store):
    from kgmem.demo import DEMO_FILE

    records = [json.loads(line) for line in DEMO_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    report = mg.ingest([{k: v for k, v in r.items() if k != "tenant"} for r in records])  # in the test's tenant
    assert not report.errors
    res = run_cli("cypher", "why/roots", "--params", "--tenant", mg.tenant)
    assert res.exit_code == 0, res.output
    exprs = dict(line.removeprefix(":param ").rstrip(";").split(" => ", 1) for line in res.stdout.splitlines())
    params = store.evaluate(exprs)  # as Browser evaluates them
    assert params["tenant"] == mg.tenant and params["symptom_id"] is not None, params
    rows = store.run_raw("why/roots", params, write=False)
    assert rows and all(r["root_id"] for r in rows)  # the example now finds the test tenant's demo data
    full = run_cli("cypher", "why/roots", "--tenant", mg.tenant).stdout
    assert f":param tenant => '{mg.tenant}';" in full and "'demo'" not in full

    quoted = run_cli("cypher", "why/roots", "--params", "--tenant", "o'brien\\x").stdout.splitlines()
    assert store.evaluate({"tenant": quoted[0].removeprefix(":param tenant => ").rstrip(";")}) == {
        "tenant": "o'brien\\x"
    }
    env = run_cli("cypher", "why/roots", "--params", env={"KGMEM_TENANT": "acme"}).stdout
    assert env.startswith(":param tenant => 'acme';"), env
    scratch = run_cli("cypher", "admin/delete_tenant", "--params", "--tenant", "acme").stdout
    assert "'acme'" not in scratch  # only the demo data's tenant is replaced, never a scratch tenant to delete


def test_cypher_tenant_sets_the_lucene_tenant_clause_too(mg, store):
    """`--tenant` reaches every `:param` line that reads the demo data's tenant, the keyword channels' Lucene
    clause ($tenant_scope) included: Browser's keyword search then finds the given tenant's memories."""
    from kgmem.query.lucene import tenant_scope
    from kgmem.store import cypher

    mg.remember("The onboarding checklist moved to the wiki", at="2026-01-01")
    res = run_cli("cypher", "recall/keyword", "--params", "--tenant", mg.tenant)
    assert res.exit_code == 0, res.output
    exprs = dict(line.removeprefix(":param ").rstrip(";").split(" => ", 1) for line in res.stdout.splitlines())
    params = store.evaluate(exprs)  # as Browser evaluates them
    assert params["tenant"] == mg.tenant and params["tenant_scope"] == tenant_scope(mg.tenant), params
    hits = store.run_raw("recall/keyword", params, write=False)[0]["hits"]
    assert len(hits) == 1, hits  # the test tenant's memory, found by its Lucene clause

    odd = 'o\'brien "x" \\y'
    quoted = run_cli("cypher", "recall/keyword", "--params", "--tenant", odd).stdout
    line = next(x for x in quoted.splitlines() if x.startswith(":param tenant_scope => "))
    expr = line.removeprefix(":param tenant_scope => ").rstrip(";")
    assert store.evaluate({"s": expr}) == {"s": tenant_scope(odd)}
    # no statement's example keeps reading the demo data's tenant under another --tenant
    for q in cypher.all_queries():
        if q.example_params:
            text = run_cli("cypher", q.name, "--params", "--tenant", "zed").stdout
            assert not re.search(r"(?<![\w-])demo(?![\w-])", text), (q.name, text)


def test_cypher_help_names_the_configured_browser_port(monkeypatch, tmp_path):
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))  # no local server here: the configured port decides
    monkeypatch.setenv("KGMEM_HTTP_PORT", "7999")
    text = run_cli("cypher", "--help").stdout
    assert "http://127.0.0.1:7999/browser/" in text and "7474" not in text, text


# ------------------------------------------------------------------ -k as well as --k


def test_short_k_is_accepted_wherever_k_is(mg, cli_env):
    report = mg.ingest(
        [
            {"id": f"k{i}", "text": f"the reconciler cached invoice batch {i}", "at": f"2026-01-0{i}"}
            for i in range(1, 6)
        ]
    )
    assert report.created == 5, report
    for flag in ("-k", "--k"):
        res = run_cli("recall", "reconciler cached invoice batch", flag, "2", "--json", env=cli_env)
        assert res.exit_code == 0, res.output
        assert len(json.loads(res.stdout)["hits"]) == 2, res.stdout
        why = run_cli("why", "why did the reconciler cache invoices?", flag, "1", "--json", env=cli_env)
        assert why.exit_code == 0, why.output
    for path in (["recall"], ["why"]):
        assert "-k, --k INTEGER" in run_cli(*path, "--help").stdout


# ------------------------------------------------------------------ server start / status


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_start_prints_export_lines_a_shell_can_eval(monkeypatch):
    import subprocess

    from kgmem import server
    from kgmem.server import local

    password = "it's $HOME `x`"  # quoted, not expanded
    monkeypatch.setattr(local, "_read_state", lambda: {"user": "neo4j", "password": password})
    info = {"version": "2026.08.1", "already_running": True, "pid": 4242, "uri": "bolt://127.0.0.1:7999"}
    monkeypatch.setattr(server, "start", lambda settings, quiet=False: {**info, "browser": "http://x/browser/"})
    res = run_cli("server", "start")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert [ln.split("=", 1)[0] for ln in lines] == [
        "export NEO4J_URI",
        "export NEO4J_USERNAME",
        "export NEO4J_PASSWORD",
    ]
    shell = subprocess.run(
        ["sh", "-c", 'eval "$1" && exec env', "sh", res.stdout], capture_output=True, text=True, env={}, check=True
    )
    seen = dict(line.split("=", 1) for line in shell.stdout.splitlines() if line.startswith("NEO4J_"))
    assert seen == {"NEO4J_URI": info["uri"], "NEO4J_USERNAME": "neo4j", "NEO4J_PASSWORD": password}, seen


def test_server_status_without_a_pid_says_it_is_not_running(monkeypatch):
    from kgmem import server

    port = _free_port()
    stopped = {
        "state": "stopped",
        "pid": None,
        "bolt_port": port,
        "uri": f"bolt://127.0.0.1:{port}",
        "browser": "http://127.0.0.1:7474/browser/",
        "version": "2026.08.1",
        "data_dir": "/nowhere/data",
        "log": "/nowhere/console.log",
    }
    monkeypatch.setattr(server, "status", lambda settings: stopped)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    out = run_cli("server", "status").stdout
    assert "None" not in out and "pid       none: not running (`kgmem server start` starts it)" in out, out
    external = run_cli("server", "status", env={"NEO4J_URI": "neo4j+s://x.databases.neo4j.io"}).stdout
    assert "NEO4J_URI is set: kgmem commands use neo4j+s://x.databases.neo4j.io" in external, external
    assert json.loads(run_cli("server", "status", "--json").stdout)["pid"] is None  # the JSON keeps null


# ------------------------------------------------------------------ the unreachable message names today's versions


def test_unreachable_message_names_the_default_neo4j_not_neo4j_5():
    import re

    from kgmem.server import CURRENT_VERSION, LTS_VERSION

    down = f"bolt://127.0.0.1:{_free_port()}"
    res = run_cli("now", "sam", "lives_in", "--json", env={"NEO4J_URI": down, "NEO4J_PASSWORD": "x"})
    assert res.exit_code == 3, res.output
    line = res.stderr.strip()
    assert "\n" not in line and line.startswith("Error: Neo4j is not reachable at " + down), line
    default, lts = CURRENT_VERSION.split(".")[0], ".".join(LTS_VERSION.split(".")[:2])
    assert f"{default}.x" in line and lts in line, line  # 2026.x (the default) or 5.26
    assert not re.search(r"Neo4j 5(?![.\d])", line), line  # not the old "a running Neo4j 5"


# ------------------------------------------------------------------ init: an aligned table, the slow-once work up front


def test_init_prepares_the_model_up_front_says_so_and_prints_an_aligned_table(cli_env, tmp_path):
    import subprocess

    env = {**cli_env, "KGMEM_CACHE": str(tmp_path)}  # an empty cache: the embedding model is not built yet
    init = subprocess.run([*KGMEM, "init"], env=env, capture_output=True, text=True, timeout=300)
    assert init.returncode == 0, init.stderr
    # said on stderr while it ran, though stderr is a pipe here (an MCP client's log, a script)
    assert "kgmem: preparing the embedding model, once per install" in init.stderr, init.stderr
    assert list(tmp_path.glob("onnx-*/model.onnx")), "kgmem init did not prepare the embedding model"

    table = [ln for ln in init.stdout.splitlines() if not ln.startswith("embedding model ")]
    assert len(table) >= 20 and "memory_context_embedding" in init.stdout, init.stdout
    cells = [ln.split() for ln in table]
    assert all(len(c) == 3 for c in cells), table
    type_at = {ln.index(c[1], len(c[0])) for ln, c in zip(table, cells)}
    state_at = {ln.rindex(c[2]) for ln, c in zip(table, cells)}
    assert len(type_at) == 1 and len(state_at) == 1, table  # every row's type and state in the same column
    assert "embedding model sentence-transformers/all-MiniLM-L6-v2" in init.stdout and "ready" in init.stdout

    recall = subprocess.run([*KGMEM, "recall", "anything"], env=env, capture_output=True, text=True, timeout=120)
    assert recall.returncode == 0 and "preparing" not in recall.stderr, recall.stderr  # done once, by init


def test_creating_the_schema_on_first_use_says_so(mg, monkeypatch, capsys):
    from kgmem.api import base

    applied, setup = [], base.schema.setup
    monkeypatch.setattr(  # the setup read finds no schema of this version
        base.schema,
        "setup",
        lambda store, tenant, limit: dataclasses.replace(setup(store, tenant, limit), current=False),
    )
    monkeypatch.setattr(base.schema, "apply", lambda store: applied.append(store) or [])
    mg._schema_ready = False
    mg.now("sam", "lives_in")
    assert applied, "the schema was not applied"
    err = capsys.readouterr().err
    assert "kgmem: creating the schema (constraints and indexes) in this database" in err, err


# ------------------------------------------------------------------ ask says what was asked and what answered


def test_ask_says_plainly_what_was_asked_and_what_answered(mg, cli_env):
    import shlex

    empty = run_cli("ask", "where does Maya live?", env=cli_env).stdout.splitlines()
    assert empty[0].startswith("asked: the current value of a fact (router confidence 0."), empty
    assert empty[1] == "answered: the current value of maya · lives_in (= kgmem now maya lives_in)", empty
    assert any("hint: tenant" in ln and "has no memories" in ln for ln in empty), empty  # and why it is empty

    mg.remember("Maya lives in Lisbon", subject="maya", predicate="lives_in", object="Lisbon", at="2026-01-01")
    for question, answered in (
        ("where does Maya live?", "the current value of maya · lives_in"),
        ("where did Maya live in March 2026?", "the value of maya · lives_in at 2026-03-31T23:59:59.999999Z"),
        # no cause recorded: ask says so and answers from recall's evidence instead of "nothing"
        ("why did Maya move to Lisbon?", "the memories that best match the question"),
    ):
        out = run_cli("ask", question, env=cli_env)
        assert out.exit_code == 0, out.output
        lines = out.stdout.splitlines()
        assert "intent:" not in out.stdout and "→" not in lines[0], lines
        assert lines[0].startswith("asked: ") and "(router confidence " in lines[0], lines
        assert lines[1].startswith(f"answered: {answered} (= kgmem "), lines
        same = shlex.split(lines[1].rsplit("(= kgmem ", 1)[1].removesuffix(")"))
        assert run_cli(*same, env=cli_env).exit_code == 0, same  # the command it names runs
        if question.startswith("why"):
            assert lines[2] == "note: no cause behind it; answered from the best evidence recall finds", lines
    mg.remember("Maya took a job at the Lisbon office", id="job", at="2025-12-01")
    mg.remember("Maya moved to Lisbon", caused_by=["job"], at="2026-01-02")
    lines = run_cli("ask", "why did Maya move to Lisbon?", env=cli_env).stdout.splitlines()
    assert lines[1] == (
        "answered: the causes behind the memory that best matches the question "
        "(= kgmem why 'why did Maya move to Lisbon?')"
    ), lines
    assert any(ln.startswith("root 1: job ") for ln in lines), lines
    none = run_cli("ask", "write a poem about Lisbon", env=cli_env).stdout.splitlines()
    assert none == [
        none[0],
        "answered: nothing (no memory operation answers it)",
    ] and none[0].startswith("asked: nothing the memories hold (not a memory question)"), none


# ------------------------------------------------------------------ the writing bar moves before a batch commits


def test_ingest_progress_advances_within_a_batch_not_only_at_its_commit(mg, monkeypatch):
    from kgmem.ingest import pipeline

    n, batch = 1000, 600
    mg.remember("already here", id="p0")  # a record already stored counts as done at once
    calls: list[tuple[int, int]] = []
    sent: list[int] = []  # how many progress calls came before each write transaction was sent
    write_tx = mg.store.write_tx
    monkeypatch.setattr(mg.store, "write_tx", lambda fn: sent.append(len(calls)) or write_tx(fn))
    records = [{"id": f"p{i}", "text": f"progress note {i} about the harbour office"} for i in range(n)]
    records[0] = {"id": "p0", "text": "already here"}
    report = mg.ingest(records, batch_size=batch, progress=lambda done, total: calls.append((done, total)))
    assert report.created == n - 1 and report.unchanged == 1, report
    done = [d for d, _ in calls]
    assert {t for _, t in calls} == {n} and done == sorted(done) and calls[-1] == (n, n), calls
    assert done[0] == 1  # the stored record, before any work
    before = [d for d in done[: sent[0]] if 1 < d < batch]  # while the first batch was prepared and embedded
    assert len(before) >= batch // pipeline.PROGRESS_STEP, (calls, sent)
    assert max(b - a for a, b in zip(done, done[1:])) < batch, calls  # no jump of a whole batch
    batches = [k for k in sent if k < len(calls)]  # (the derived passes write after the last call)
    assert len(batches) == 2, sent  # still one transaction per batch_size records (999 new ones: two)


# ------------------------------------------------------------------ shell completion is documented, and works


def test_docs_cli_md_documents_shell_completion_that_works():
    import os
    import re
    import subprocess

    from ..conftest import ROOT

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "## Shell completion" in text
    section = text.split("## Shell completion", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]  # its code block
    lines = {
        m.group(1): m.group(0)
        for m in re.finditer(r"(?m)^[^#\n]*_KGMEM_COMPLETE=(bash|zsh|fish)_source kgmem.*$", section)
    }
    assert set(lines) == {"bash", "zsh", "fish"}, section
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    expected = {"bash": "_kgmem_completion()", "zsh": "#compdef kgmem", "fish": "complete --no-files --command kgmem"}
    for shell, mark in expected.items():
        script = subprocess.run(
            ["kgmem"], env={**env, "_KGMEM_COMPLETE": f"{shell}_source"}, capture_output=True, text=True, timeout=60
        )
        assert script.returncode == 0 and mark in script.stdout, (shell, script.stdout[:300], script.stderr[-500:])
    # the bash line as documented, in bash: kgmem then completes its commands
    bash = subprocess.run(
        ["bash", "-c", lines["bash"] + "\ncomplete -p kgmem"], env=env, capture_output=True, text=True
    )
    assert "_kgmem_completion" in bash.stdout, (bash.stdout, bash.stderr)
    words = subprocess.run(
        ["kgmem"],
        env={**env, "_KGMEM_COMPLETE": "bash_complete", "COMP_WORDS": "kgmem rec", "COMP_CWORD": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "recall" in words.stdout, words.stdout

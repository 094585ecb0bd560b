"""The CLI as a real program: ``python -m kgmem ...`` in a subprocess with the test database in the environment
(the ``cli_env`` fixture: NEO4J_URI/NEO4J_USERNAME/NEO4J_PASSWORD and KGMEM_TENANT = the test's tenant).

At least one run per command, checking exit codes and parsing --json; plus the exit codes 1, 2 and 3 as a
shell sees them (stderr holds exactly one 'Error:' line, nothing from the driver's logging).
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import pytest

from ..conftest import FIXTURES, ROOT
from . import shapes
from .shapes import check, parse_json_lines, stderr_lines

INCIDENTS = FIXTURES / "causal" / "incidents.jsonl"
FACTS = FIXTURES / "supersession" / "facts.jsonl"


def kgmem(env: dict, *args, input: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kgmem", *map(str, args)],
        env=env,
        cwd=ROOT,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def ok_json(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    return parse_json_lines(proc.stdout)


def error_line(proc: subprocess.CompletedProcess, code: int) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    lines = stderr_lines(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    return lines[0]


@pytest.fixture
def loaded(mg):
    """The test's tenant holding the causal incidents and the supersession facts."""
    mg.ingest(INCIDENTS)
    mg.ingest(FACTS)
    return mg


def test_server_status_json(cli_env, neo4j_connection, store):
    (out,) = ok_json(kgmem(cli_env, "server", "status", "--json"))
    check(out, shapes.SERVER_STATUS)
    if neo4j_connection[3] != "local-server":
        pytest.skip(f"tests run against {neo4j_connection[3]}, not the local server")
    assert out["state"] == "running"
    assert out["version"] == store.server_info().version, out["version"]  # what the running server reports


def test_init_json(cli_env):
    (out,) = ok_json(kgmem(cli_env, "init", "--json"))
    check(out, shapes.INIT)
    assert out["indexes"] and all(i["state"] == "ONLINE" for i in out["indexes"])


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_ingest_json_and_stdin(cli_env, mg):
    (out,) = ok_json(kgmem(cli_env, "ingest", INCIDENTS, "--json"))
    check(out, shapes.INGEST)
    assert (out["read"], out["created"], out["errors"]) == (61, 61, [])
    (again,) = ok_json(kgmem(cli_env, "ingest", "-", "--json", input=INCIDENTS.read_text(encoding="utf-8")))
    assert (again["created"], again["unchanged"]) == (0, 61)
    assert mg.get("inc01-root").text.startswith("Merged PR 4412")


def test_remember_json(cli_env, mg):
    (out,) = ok_json(
        kgmem(
            cli_env,
            "remember",
            "Kim moved to Porto.",
            "--id",
            "porto",
            "--at",
            "2026-04-01",
            "-s",
            "kim",
            "-p",
            "lives_in",
            "-o",
            "Porto",
            "--json",
        )
    )
    check(out, shapes.MEMORY)
    assert out["id"] == "porto" and out["kind"] == "fact"
    assert mg.now("kim", "lives_in").object == "Porto"


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_recall_json_and_text(cli_env, loaded):
    (out,) = ok_json(kgmem(cli_env, "recall", "reconciler invoice cache", "--k", "3", "--json"))
    check(out, shapes.RECALL)
    assert out["hits"][0]["id"] == "inc01-root"
    text = kgmem(cli_env, "recall", "reconciler invoice cache", "--k", "3")
    assert text.returncode == 0 and "inc01-root" in text.stdout, text.stderr


def test_recall_and_why_batches(cli_env, loaded, tmp_path):
    qfile = tmp_path / "q.jsonl"
    qfile.write_text(
        json.dumps({"query": "reconciler invoice cache"})
        + "\n"
        + json.dumps({"query": "why did checkout crash on Friday?", "k": 2})
        + "\n",
        encoding="utf-8",
    )
    recalls = ok_json(kgmem(cli_env, "recall", "--queries", qfile, "--json"))
    assert len(recalls) == 2
    for r in recalls:
        check(r, shapes.RECALL)
    assert len(recalls[1]["hits"]) <= 2
    whys = ok_json(kgmem(cli_env, "why", "--queries", qfile, "--json"))
    assert len(whys) == 2
    for w in whys:
        check(w, shapes.WHY)
    assert whys[1]["roots"][0]["id"] == "inc01-root"


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_why_json(cli_env, loaded):
    (out,) = ok_json(kgmem(cli_env, "why", "why did checkout crash on Friday?", "--json"))
    check(out, shapes.WHY)
    assert out["symptom"]["id"] == "inc01-symptom"
    assert out["paths"][0] == ["inc01-symptom", "inc01-h2", "inc01-h1", "inc01-root"]


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_now_as_of_history_json(cli_env, loaded):
    (now,) = ok_json(kgmem(cli_env, "now", "sam", "likes", "diet coke", "--json"))
    check(now, shapes.SLOT)
    assert now["value"]["polarity"] is False
    (then,) = ok_json(kgmem(cli_env, "as-of", "sam", "lives_in", "--at", "2026-02-01", "--json"))
    check(then, shapes.SLOT)
    assert then["value"]["object"] == "Boston"
    (hist,) = ok_json(kgmem(cli_env, "history", "sam", "lives_in", "--json"))
    check(hist, shapes.HISTORY)
    assert [v["object"] for v in hist["versions"]] == ["Madrid", "Boston", "Berlin", "Lisbon"]


def test_changes_and_timeline_json(cli_env, loaded):
    (changes,) = ok_json(kgmem(cli_env, "changes", "--since", "2026-05-01", "--json"))
    check(changes, shapes.CHANGES)
    assert "sam-lives-lisbon" in {c["id"] for c in changes["changes"]}
    (tl,) = ok_json(kgmem(cli_env, "timeline", "inc01-h1", "--before", "1", "--after", "1", "--json"))
    check(tl, shapes.TIMELINE)
    assert [i["id"] for i in tl["items"]] == ["inc01-root", "inc01-h1", "inc01-h2"]


def test_cypher(cli_env):
    proc = kgmem(cli_env, "cypher", "why/roots")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("// name: why/roots") and "MATCH" in proc.stdout


def _tenant_exists(store, name: str) -> bool:
    return store.read("admin/count_tenant", tenant=name)[0]["memories"] > 0


@pytest.mark.slow
def test_demo(cli_env, store):
    fresh = f"demo-test-{uuid.uuid4().hex[:10]}"
    demo_existed = _tenant_exists(store, "demo")  # demo.jsonl's records name tenant 'demo' themselves
    try:
        proc = kgmem(cli_env, "demo", "--tenant", fresh)
        assert proc.returncode == 0, (proc.stdout, proc.stderr)
        assert f"tenant '{fresh}'" in proc.stdout
        assert "PR 981" in proc.stdout, proc.stdout  # the root of the 4-hop chain
        assert "Lisbon" in proc.stdout, proc.stdout  # where Maya lives now
        assert _tenant_exists(store, fresh), "the story must land in the --tenant given"
    finally:
        store.auto_commit("admin/delete_tenant", tenant=fresh)
        if not demo_existed:
            store.auto_commit("admin/delete_tenant", tenant="demo")
    assert not _tenant_exists(store, fresh)


# ---------------------------------------------------------------------------- exit codes as a shell sees them


def test_bad_input_exit_1(cli_env, tmp_path):
    line = error_line(kgmem(cli_env, "ingest", tmp_path / "missing.jsonl"), 1)
    assert "missing.jsonl" in line and "Fix:" in line
    line = error_line(kgmem(cli_env, "as-of", "sam", "lives_in", "--at", "not-a-date", "--json"), 1)
    assert "not-a-date" in line and "Fix:" in line
    line = error_line(kgmem(cli_env, "recall", "", "--json"), 1)
    assert "query" in line
    # a time past year 9999 in UTC: a field error, not an OverflowError's traceback
    line = error_line(kgmem(cli_env, "recall", "deploy", "--at", "9999-12-31T23:00:00-05:00"), 1)
    assert "field 'at'" in line and "Fix:" in line
    line = error_line(kgmem(cli_env, "as-of", "sam", "lives_in", "--at", "0001-01-01T00:30:00+01:00"), 1)
    assert "field 'at'" in line and "Fix:" in line


def test_bad_jsonl_exit_1_names_the_line(cli_env, mg, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "ok-1", "text": "fine"}\nnot json at all\n', encoding="utf-8")
    proc = kgmem(cli_env, "ingest", bad, "--json")
    line = error_line(proc, 1)
    assert "line 2" in line
    (report,) = parse_json_lines(proc.stdout)
    assert report["created"] == 1 and report["errors"][0]["line"] == 2
    assert mg.get("ok-1").text == "fine"


def test_usage_exit_2(cli_env):
    for args in (("recall",), ("now",), ("nosuchcommand",)):
        proc = kgmem(cli_env, *args)
        assert proc.returncode == 2, (args, proc.stderr)


@pytest.mark.parametrize("args", [("now", "sam", "lives_in", "--json"), ("demo",)], ids=["now", "demo"])
def test_database_down_exit_3(cli_env, args):
    env = {**cli_env, "NEO4J_URI": "bolt://127.0.0.1:1"}
    line = error_line(kgmem(env, *args, timeout=60), 3)
    assert "kgmem server start" in line and "NEO4J_URI" in line


def test_wrong_user_exit_1(cli_env):
    # refused credentials are bad input (exit 1), not "unreachable" (3)
    # an unknown user (not 'neo4j'): failed logins would lock that account for every other test for a while
    env = {**cli_env, "NEO4J_USERNAME": "kgmem-no-such-user", "NEO4J_PASSWORD": "wrong"}
    line = error_line(kgmem(env, "now", "sam", "lives_in", "--json", timeout=60), 1)
    assert "credentials" in line

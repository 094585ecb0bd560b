"""Issue 13 item 5, the smaller frictions: Browser pastes, bad credentials, empty answers with a hint, `server
start` against a running server, ingest progress while reading, piped tables, `cypher --list` cuts."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem.cli import cli

KGMEM = [str(Path(sys.executable).parent / "kgmem")]


def kgmem(env: dict, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*KGMEM, *args], env=env, capture_output=True, text=True, timeout=timeout)


def run_cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# ------------------------------------------------------------------ cypher: two Browser pastes, --list


def test_cypher_params_and_body_are_the_two_browser_pastes():
    from kgmem.api import MemoryGraph

    q = MemoryGraph.statement("why/roots")
    params = run_cli("cypher", "why/roots", "--params")
    body = run_cli("cypher", "why/roots", "--body")
    assert params.exit_code == 0 and body.exit_code == 0
    lines = params.stdout.strip().splitlines()
    assert lines == [f":param {k} => {v};" for k, v in q.example_params]
    assert {line.split()[1] for line in lines} == set(q.params)  # every $param of the statement gets a value
    assert body.stdout.strip() == q.text
    assert ":param" not in body.stdout and not any(x.lstrip().startswith("//") for x in body.stdout.splitlines())
    assert "--params" in run_cli("cypher", "--help").stdout and "paste 2" in run_cli("cypher", "--help").stdout


def test_cypher_part_without_a_name_is_a_usage_error():
    assert CliRunner().invoke(cli, ["cypher", "--body"]).exit_code == 2


def test_cypher_list_cuts_descriptions_at_a_word_boundary():
    from kgmem.api import MemoryGraph

    summaries = {q.name: " ".join(q.summary.split()) for q in MemoryGraph.statements()}
    out = run_cli("cypher", "--list").stdout.splitlines()
    assert len(out) == len(summaries)
    cut = 0
    for line in out:
        name, _, shown = line.partition(" ")
        shown, full = shown.strip(), summaries[name]
        assert len(shown) <= 70, line
        if shown == full:
            continue
        cut += 1
        assert shown.endswith("…"), line
        stem = shown[:-1]
        assert full.startswith(stem), line
        assert full[len(stem)] in " ,;:.-—(", f"cut mid-word: {line!r} (next: {full[len(stem) :][:10]!r})"
    assert cut, "no description was long enough to be cut: the test checks nothing"


# ------------------------------------------------------------------ credentials: bad input, not unreachable


def test_wrong_credentials_exit_1_naming_neo4j_password(cli_env):
    # one attempt, with a user that does not exist: failed logins of 'neo4j' would rate-limit every other test
    env = {**cli_env, "NEO4J_USERNAME": "kgmem-no-such-user-" + uuid.uuid4().hex[:6], "NEO4J_PASSWORD": "wrong"}
    res = kgmem(env, "now", "sam", "lives_in", "--json", timeout=60)
    assert res.returncode == 1, (res.returncode, res.stderr)
    line = res.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: ") and "credentials" in line and "NEO4J_PASSWORD" in line, line
    assert res.stdout == ""


# ------------------------------------------------------------------ empty answers say why


def test_unknown_tenant_answers_nothing_with_a_hint(cli_env):
    env = {**cli_env, "KGMEM_TENANT": "no-such-tenant-" + uuid.uuid4().hex[:8]}
    res = kgmem(env, "now", "maya", "lives_in", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["value"] is None and "has no memories" in out["hint"] and env["KGMEM_TENANT"] in out["hint"]
    human = kgmem(env, "history", "maya", "lives_in")
    assert human.returncode == 0 and "nothing recorded" in human.stdout and "has no memories" in human.stdout


def test_misspelled_predicate_gets_did_you_mean(cli_env, mg):
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
    res = kgmem(cli_env, "now", "sam", "lives_inn", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["value"] is None and "is not in the vocabulary; did you mean lives_in?" in out["hint"], out
    assert out["hint"].endswith("memory 'f1' may say it: \"Sam lives in Oslo\""), out  # and the evidence
    assert "has no memories" not in out["hint"]
    res = kgmem(cli_env, "as-of", "sam", "lives_inn", "--at", "2026-02-01")
    assert res.returncode == 0 and "hint: predicate 'lives_inn' is not in the vocabulary" in res.stdout
    found = json.loads(kgmem(cli_env, "now", "sam", "lives_in", "--json").stdout)
    assert found["value"]["object"] == "Oslo" and found["hint"] is None
    known_but_empty = json.loads(kgmem(cli_env, "history", "sam", "likes", "--json").stdout)
    assert known_but_empty["versions"] == [] and known_but_empty["hint"] is None


# ------------------------------------------------------------------ piped tables are wide


def test_piped_table_keeps_text_on_one_line(cli_env, mg):
    text = (
        "Sam moved to Bergen for the new job at the harbour office, which the whole team had been "
        "talking about since the spring offsite in Trondheim"
    )
    mg.ingest(
        [{"id": "b1", "text": text, "subject": "sam", "predicate": "lives_in", "object": "Bergen", "at": "2026-03-01"}]
    )
    env = {k: v for k, v in cli_env.items() if k not in ("COLUMNS", "LINES")}
    res = kgmem(env, "history", "sam", "lives_in")  # stdout is a pipe
    assert res.returncode == 0, res.stderr
    assert any(text in line for line in res.stdout.splitlines()), res.stdout
    narrow = kgmem({**env, "COLUMNS": "60"}, "history", "sam", "lives_in")
    assert not any(text in line for line in narrow.stdout.splitlines())  # COLUMNS still decides when set


# ------------------------------------------------------------------ ingest progress while reading


def _run_in_pty(argv: list[str], env: dict, timeout: float = 240) -> tuple[int, str]:
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=max(1, deadline - time.monotonic()))
    os.close(master)
    proc.stdout.close()
    return proc.returncode, b"".join(chunks).decode(errors="replace")


def test_ingest_progress_counts_lines_read_before_the_first_batch(cli_env, tmp_path):
    n = 2500
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps({"id": f"p{i}", "text": f"progress note {i}"}) + "\n" for i in range(n)))
    env = {**cli_env, "COLUMNS": "120", "TERM": "xterm"}
    code, err = _run_in_pty([*KGMEM, "ingest", str(path), "--no-compile"], env)
    err = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err)  # the terminal's escape sequences
    assert code == 0, err[-2000:]
    assert "reading" in err and f"{n}/{n}" in err, err[-2000:]
    reads = [
        int(x.split("/")[0])
        for x in err.replace("\r", " ").split()
        if x.endswith(f"/{n}") and x.split("/")[0].isdigit()
    ]
    assert any(0 < r < n for r in reads) or reads[:1] == [n], reads  # counted while reading, not only at the end
    assert "0/?" not in err, err[-2000:]


# ------------------------------------------------------------------ server start against a running server


def test_start_without_ports_uses_the_running_servers_ports(monkeypatch, tmp_path):
    from kgmem.server import local

    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    for var in ("KGMEM_BOLT_PORT", "KGMEM_HTTP_PORT"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "neo4j"
    home.mkdir()
    (home / "server.json").write_text(
        json.dumps({"home": str(home), "bolt_port": 7999, "http_port": 7555, "password": "pw", "user": "neo4j"})
    )
    asked = []
    monkeypatch.setattr(local, "running_pid", lambda settings: 4242)
    monkeypatch.setattr(local, "_bolt_answers", lambda settings, pw, timeout=2.0: asked.append(settings.uri) or True)
    t0 = time.monotonic()
    info = local.start(local.ServerSettings.from_env(), quiet=True)
    assert time.monotonic() - t0 < 5
    assert asked == ["bolt://127.0.0.1:7999"] and info["already_running"] and info["uri"] == "bolt://127.0.0.1:7999"
    assert info["browser"] == "http://127.0.0.1:7555/browser/"

    with pytest.raises(local.ServerError) as e:  # other ports asked for: said at once, nothing waited for
        local.start(local.ServerSettings.from_env(bolt_port=7688), quiet=True)
    assert "already runs (pid 4242) with Bolt on 7999" in e.value.message and "kgmem server stop" in e.value.fix
    monkeypatch.setenv("KGMEM_HTTP_PORT", "7474")
    with pytest.raises(local.ServerError):
        local.start(local.ServerSettings.from_env(), quiet=True)
    monkeypatch.setenv("KGMEM_HTTP_PORT", "7555")  # the running ones, asked for: fine
    assert local.start(local.ServerSettings.from_env(), quiet=True)["already_running"]


def test_start_on_other_ports_fails_fast_against_the_live_server(neo4j_connection):
    if neo4j_connection[3] != "local-server":
        pytest.skip("needs the local server (the database comes from " + neo4j_connection[3] + ")")
    from kgmem import server

    running = server.status()
    other = running["bolt_port"] + 311
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "KGMEM_BOLT", "KGMEM_HTTP"))}
    t0 = time.monotonic()
    res = kgmem(env, "server", "start", "--bolt-port", str(other), timeout=60)
    assert time.monotonic() - t0 < 20
    assert res.returncode == 1 and f"Bolt on {running['bolt_port']}" in res.stderr, res.stderr
    same = kgmem(env, "server", "start", "--json", timeout=60)
    assert same.returncode == 0 and json.loads(same.stdout)["already_running"] is True

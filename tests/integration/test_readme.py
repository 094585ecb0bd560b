"""The README's examples run as written, against the test database.

- The ```python block runs with NEO4J_URI/NEO4J_USERNAME/NEO4J_PASSWORD pointing at the test database and
  prints what its comments promise (``print(x)  # False`` must print ``False``). It uses tenant 'readme',
  deleted afterwards.
- Each ``.venv/bin/kgmem ...`` line of the ```bash block under "### Command line" runs as
  ``python -m kgmem ...`` and exits 0 (``server start`` only when the local server already runs: then it is
  a no-op). Tenant 'demo' is deleted afterwards only if the test created it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import tokenize

import pytest

from ..conftest import ROOT

README = ROOT / "README.md"


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}[^\n]*\n(.*?)^```", text, flags=re.M | re.S)


def _python_block() -> str:
    blocks = _blocks(README.read_text(encoding="utf-8"), "python")
    assert blocks, "README.md has no ```python block"
    return blocks[0]


def _cli_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("### Command line")
    blocks = _blocks(text[start:], "bash")
    assert blocks, "no ```bash block under '### Command line' in README.md"
    return [ln.strip() for ln in blocks[0].splitlines() if ln.strip().startswith(".venv/bin/kgmem")]


def _promises(code: str) -> list[str | None]:
    """For each line that calls print(), the value its trailing comment promises (None: no comment)."""
    comments: dict[int, str] = {}
    prints: list[int] = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
        elif tok.type == tokenize.NAME and tok.string == "print":
            prints.append(tok.start[0])
    return [comments.get(line) for line in prints]


@pytest.fixture
def readme_env(neo4j_connection, monkeypatch):
    uri, user, password, _ = neo4j_connection
    monkeypatch.setenv("NEO4J_URI", uri)
    monkeypatch.setenv("NEO4J_USERNAME", user or "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", password or "")
    monkeypatch.delenv("NEO4J_DATABASE", raising=False)
    monkeypatch.delenv("KGMEM_TENANT", raising=False)
    return dict(os.environ)


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_readme_python_block(readme_env, store, capsys):
    code = _python_block()
    promises = _promises(code)
    assert [p for p in promises if p], "the README's python block promises no values in comments"
    assert 'tenant="readme"' in code, "the example should work in tenant 'readme' (the test deletes it)"
    try:
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
        out = capsys.readouterr().out.splitlines()
    finally:
        store.auto_commit("admin/delete_tenant", tenant="readme")
    assert len(out) == len(promises), out
    for line, printed, promised in zip(range(1, len(out) + 1), out, promises):
        if promised is not None:
            assert printed == promised, (
                f"print #{line} of the README example printed {printed!r}, its comment says {promised!r}"
            )
    # the recall line has no comment; it prints (abstained, ids): the reconciler PR must be among the hits
    recall_line = next(i for i, p in enumerate(promises) if p is None)
    assert "'r1'" in out[recall_line], out[recall_line]


def _server_running() -> bool:
    from kgmem import server

    try:
        return server.status().get("state") == "running"
    except Exception:
        return False


@pytest.mark.slow
def test_readme_command_lines(readme_env, store):
    lines = _cli_lines()
    assert any(" ingest " in ln for ln in lines) and any(" why " in ln for ln in lines), lines
    demo_existed = store.read("admin/count_tenant", tenant="demo")[0]["memories"] > 0
    ran, skipped = [], []
    try:
        for line in lines:
            args = shlex.split(line, comments=True)[1:]
            if args[:2] == ["server", "start"] and not _server_running():
                skipped.append(line)  # the tests run against another Neo4j: do not start a local one
                continue
            proc = subprocess.run(
                [sys.executable, "-m", "kgmem", *args],
                env=readme_env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert proc.returncode == 0, f"`{line}` exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
            if "--json" in args:
                for out_line in proc.stdout.splitlines():
                    if out_line.strip():
                        json.loads(out_line)
            ran.append(line)
    finally:
        if not demo_existed:
            store.auto_commit("admin/delete_tenant", tenant="demo")
    # every line ran and exited 0; the only one that may be left out is `server start` (no local server here)
    assert all(shlex.split(ln, comments=True)[1:3] == ["server", "start"] for ln in skipped), skipped
    assert ran == [ln for ln in lines if ln not in skipped], (ran, lines)

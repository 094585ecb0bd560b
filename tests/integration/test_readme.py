"""The README's and docs/'s examples run as written, against the test database.

- README.md stays a page for users: at most 15,000 bytes, the two quick-start commands first.
- The ```python blocks of README.md and docs/*.md (not the contract's signatures in docs/interface.md) run
  with NEO4J_URI/NEO4J_USERNAME/NEO4J_PASSWORD pointing at the test database and print what their comments
  promise (``print(x)  # False`` must print ``False``). They use tenant 'readme', deleted afterwards.
- The ```bash blocks listed in RUN run command by command (a heredoc is one command) through bash, with
  ``kgmem`` and ``.venv/bin/kgmem`` being ``python -m kgmem`` of the running interpreter: each exits 0, a
  ``# → TEXT`` comment promises TEXT in its output, and ``--json`` output parses. ``server start`` runs only
  when the local server already runs (then it is a no-op).
- Every line of a ```bash block that runs kgmem (``kgmem ...``, ``claude mcp add ... -- kgmem ...``,
  ``uvx --from X kgmem ...``, ``pipx run --spec X kgmem ...``) and every ``mcpServers`` entry of a ```json
  block must be accepted by the CLI's parser (its options exist), also those that are not run (they start
  servers or need a placeholder filled in).
- Every relative link of README.md and docs/*.md points at a file that exists (and a heading, for ``#anchor``).
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
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem.cli import cli

from ..conftest import ROOT

README = ROOT / "README.md"
README_MAX_BYTES = 15_000
# docs/cli.md is generated from --help (tests/cli/test_cli_docs.py): its blocks are help texts, not examples
DOCS = [README, *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "cli.md")]
NOT_RUN_PYTHON = {"docs/interface.md"}  # the contract's signatures, not a program


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository root
    heading: str  # the nearest heading above the block, without the #s
    lang: str
    text: str


def _blocks(path: Path) -> list[Block]:
    """Every fenced block of a markdown file with the heading it sits under."""
    out, heading, fence, lang, buf = [], "", None, "", []
    for line in path.read_text(encoding="utf-8").splitlines():
        if fence is None:
            if line.startswith("```"):
                fence, lang, buf = "```", line[3:].strip(), []
            elif line.startswith("#"):
                heading = line.lstrip("#").strip()
        elif line.startswith(fence):
            out.append(Block(path.relative_to(ROOT).as_posix(), heading, lang, "\n".join(buf) + "\n"))
            fence = None
        else:
            buf.append(line)
    assert fence is None, f"{path}: a fenced block is not closed"
    return out


def _all_blocks(lang: str) -> list[Block]:
    return [b for p in DOCS for b in _blocks(p) if b.lang == lang]


def _find(path: str, heading: str, contains: str) -> Block:
    found = [b for b in _blocks(ROOT / path) if b.heading == heading and contains in b.text]
    assert len(found) == 1, f"{path}: expected one block under {heading!r} holding {contains!r}, found {len(found)}"
    return found[0]


def _commands(text: str) -> list[str]:
    """The shell commands of a block: blank and comment lines dropped, a heredoc kept with its body."""
    cmds, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + lines[i].strip()
            i += 1
        heredoc = re.search(r"<<-?\s*'?(\w+)'?", line)
        if heredoc:
            body = []
            while i < len(lines) and lines[i].strip() != heredoc.group(1):
                body.append(lines[i])
                i += 1
            i += 1  # the terminator
            line = "\n".join([line, *body, heredoc.group(1)])
        cmds.append(line)
    return cmds


def _words(cmd: str) -> list[str]:
    return shlex.split(cmd.splitlines()[0], comments=True)


def _kgmem_args(cmd: str) -> list[str] | None:
    """The arguments a documented command gives kgmem, or None when it does not run kgmem."""
    words = _words(cmd)
    if not words:
        return None
    if words[0] in ("kgmem", ".venv/bin/kgmem"):
        return words[1:]
    if words[:3] == ["claude", "mcp", "add"] and "--" in words:
        return words[words.index("--") + 2 :]  # after `--`: the kgmem executable, then its arguments
    for runner, spec in (("uvx", "--from"), ("pipx", "--spec")):
        if words[0] == runner and spec in words:
            rest = words[words.index(spec) + 2 :]  # after the package: the command, then its arguments
            return rest[1:] if rest[:1] == ["kgmem"] else None
    return None


def _promise(cmd: str) -> str | None:
    m = re.search(r"\s#\s*→\s*(.+)$", cmd.splitlines()[0])
    return m.group(1).strip() if m else None


def _python_promises(code: str) -> list[str | None]:
    """For each line that calls print(), the value its trailing comment promises (None: no comment)."""
    comments: dict[int, str] = {}
    prints: list[int] = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
        elif tok.type == tokenize.NAME and tok.string == "print":
            prints.append(tok.start[0])
    return [comments.get(line) for line in prints]


def _server_running() -> bool:
    from kgmem import server

    try:
        return server.status().get("state") == "running"
    except Exception:
        return False


def _run_block(block: Block, env: dict, cwd: Path) -> list[str]:
    """Run a block's commands in order; return the ones that ran (``server start`` may be left out)."""
    shim = f'kgmem() {{ {shlex.quote(sys.executable)} -m kgmem "$@"; }}\nset -eo pipefail\n'
    ran = []
    for cmd in _commands(block.text):
        args = _kgmem_args(cmd)
        if args is not None and args[:2] == ["server", "start"] and not _server_running():
            continue  # the tests run against another Neo4j: do not start a local one
        script = re.sub(r"^\.venv/bin/kgmem\b", "kgmem", cmd)
        proc = subprocess.run(
            ["bash", "-c", shim + script], env=env, cwd=cwd, capture_output=True, text=True, timeout=600
        )
        where = f"{block.path} ({block.heading}): `{cmd.splitlines()[0]}`"
        assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
        promised = _promise(cmd)
        if promised is not None:
            assert promised in proc.stdout, f"{where} promises {promised!r}; it printed:\n{proc.stdout}"
        if args is not None and "--json" in args:
            for out_line in proc.stdout.splitlines():
                if out_line.strip():
                    json.loads(out_line)
        ran.append(cmd)
    return ran


@pytest.fixture
def readme_env(neo4j_connection, monkeypatch):
    uri, user, password, _ = neo4j_connection
    monkeypatch.setenv("NEO4J_URI", uri)
    monkeypatch.setenv("NEO4J_USERNAME", user or "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", password or "")
    monkeypatch.delenv("NEO4J_DATABASE", raising=False)
    monkeypatch.delenv("KGMEM_TENANT", raising=False)
    return dict(os.environ)


# --- the README is a page for users --------------------------------------------------------------------------


def test_readme_is_at_most_15_kb():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, (
        f"README.md is {size:,} bytes (at most {README_MAX_BYTES:,}): move contributor material into docs/"
    )


def test_readme_starts_with_the_two_quick_start_commands():
    first = _blocks(README)[0]
    assert first.lang == "bash" and first.heading == "kgmem", first
    assert [c.split("#")[0].strip() for c in _commands(first.text)] == ["./dev demo", "./dev test"]


def test_readme_shows_install_neo4j_and_mcp_for_users():
    text = README.read_text(encoding="utf-8")
    for needle in (
        "pip install kgmem-",  # from a built wheel
        "git+",  # from the repository
        "uvx --from",
        "pipx run",
        "kgmem server start",
        "export NEO4J_URI=",
        "docker run",
        "neo4j+s://",  # Aura
        "claude mcp add kgmem",
        '"mcpServers"',
    ):
        assert needle in text, f"README.md no longer shows {needle!r}"


def test_relative_links_resolve():
    broken = []
    for path in [*DOCS, ROOT / "docs" / "cli.md", ROOT / "CHANGELOG.md"]:
        text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md":
                slugs = {
                    re.sub(r"[^\w\- ]", "", h.lstrip("#").strip().lower()).replace(" ", "-")
                    for h in dest.read_text(encoding="utf-8").splitlines()
                    if h.startswith("#")
                }
                if anchor not in slugs:
                    broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == [], broken


# --- examples that are not run: the CLI accepts them ---------------------------------------------------------


def _documented_invocations() -> list[tuple[str, list[str]]]:
    found = []
    for block in _all_blocks("bash"):
        for cmd in _commands(block.text):
            args = _kgmem_args(cmd)
            if args is not None:
                found.append((f"{block.path}: {cmd.splitlines()[0]}", args))
    for block in _all_blocks("json"):
        servers = json.loads(block.text).get("mcpServers", {})
        for name, spec in servers.items():
            args = spec["args"]
            if spec["command"] == "uvx":
                args = args[args.index("kgmem") + 1 :]
            found.append((f"{block.path}: mcpServers.{name}", args))
    return found


def test_docs_name_many_kgmem_invocations():
    found = _documented_invocations()
    assert len(found) >= 20, found  # the parser below would pass vacuously on nothing
    assert any(args[:1] == ["mcp"] for _, args in found), "no MCP configuration found"


@pytest.mark.parametrize("where,args", _documented_invocations(), ids=lambda v: v if isinstance(v, str) else None)
def test_documented_invocation_parses(where, args):
    # --help is eager: it ends the run once every option before it has been parsed, so an unknown option or
    # command still fails while nothing starts (no server, no MCP loop, no database)
    res = CliRunner().invoke(cli, [*args, "--help"], prog_name="kgmem")
    assert res.exit_code == 0, f"{where}: kgmem {shlex.join(args)} is refused:\n{res.output}"


# --- examples that run -----------------------------------------------------------------------------------------


def _python_blocks() -> list[Block]:
    return [b for b in _all_blocks("python") if b.path not in NOT_RUN_PYTHON]


def test_readme_has_a_python_example():
    assert any(b.path == "README.md" for b in _python_blocks())


@pytest.mark.generations  # a smoke of this face on the second server generation
@pytest.mark.parametrize("block", _python_blocks(), ids=lambda b: f"{b.path}:{b.heading}")
def test_python_block(block, readme_env, store, capsys):
    code = block.text
    promises = _python_promises(code)
    assert [p for p in promises if p], f"{block.path}: the python block promises no values in comments"
    assert 'tenant="readme"' in code, "the example should work in tenant 'readme' (the test deletes it)"
    try:
        exec(compile(code, str(ROOT / block.path), "exec"), {"__name__": "readme_example"})
        out = capsys.readouterr().out.splitlines()
    finally:
        store.auto_commit("admin/delete_tenant", tenant="readme")
    assert len(out) == len(promises), out
    for line, printed, promised in zip(range(1, len(out) + 1), out, promises):
        if promised is not None:
            assert printed == promised, (
                f"print #{line} of the {block.path} example printed {printed!r}, its comment says {promised!r}"
            )
    if block.path == "README.md":
        # the recall line has no comment; it prints (abstained, ids): the reconciler PR must be among the hits
        recall_line = next(i for i, p in enumerate(promises) if p is None)
        assert "'r1'" in out[recall_line], out[recall_line]


def test_readme_user_commands_run_from_an_empty_directory(cli_env, tmp_path):
    """The README's first screen, as a user types it: in an empty directory, in the test's tenant."""
    block = _find("README.md", "Use it", "kgmem ingest memories.jsonl")
    ran = _run_block(block, cli_env, tmp_path)
    commands = [_words(c)[:2] for c in ran]
    for needed in (["kgmem", "init"], ["kgmem", "ingest"], ["kgmem", "recall"], ["kgmem", "why"], ["kgmem", "now"]):
        assert needed in commands, (needed, commands)
    assert sum(_promise(c) is not None for c in ran) >= 4, "the block should promise what its answers say"


def test_browser_paste_commands_run(cli_env):
    block = _find("docs/neo4j.md", "Neo4j Browser", "kgmem cypher why/roots --params")
    assert len(_run_block(block, cli_env, ROOT)) == 2


@pytest.mark.slow
def test_checkout_command_lines(readme_env, store):
    """docs/development.md's tour of the demo tenant from a checkout (.venv/bin/kgmem ...), from the root."""
    block = _find("docs/development.md", "Command line from a checkout", ".venv/bin/kgmem ingest")
    cmds = _commands(block.text)
    assert any(" ingest " in c for c in cmds) and any(" why " in c for c in cmds), cmds
    demo_existed = store.read("admin/count_tenant", tenant="demo")[0]["memories"] > 0
    try:
        ran = _run_block(block, readme_env, ROOT)
    finally:
        if not demo_existed:
            store.auto_commit("admin/delete_tenant", tenant="demo")
    # every line ran and exited 0; the only one that may be left out is `server start` (no local server here)
    skipped = [c for c in cmds if c not in ran]
    assert all(_kgmem_args(c)[:2] == ["server", "start"] for c in skipped), skipped

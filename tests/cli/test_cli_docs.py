"""The CLI reference: every command documents itself, docs/cli.md is what scripts/gen_cli_docs.py makes of the
current --help texts, and every command is mentioned in README.md or docs/cli.md.

New commands are covered without touching this file: the tree is walked from ``kgmem.cli.cli``.
"""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from kgmem.cli import cli

from ..conftest import ROOT

GEN = ROOT / "scripts" / "gen_cli_docs.py"
DOC = ROOT / "docs" / "cli.md"
README = ROOT / "README.md"


def _gen():
    spec = importlib.util.spec_from_file_location("gen_cli_docs", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tree() -> list[tuple[str, object]]:
    """(command path without 'kgmem', command) for every command and subcommand, root excluded."""
    return [(ctx.command_path.split(" ", 1)[1], cmd) for ctx, cmd in list(_gen().walk(cli))[1:]]


def test_tree_has_the_contract_commands():
    names = {path for path, _ in _tree()}
    assert {
        "init",
        "ingest",
        "remember",
        "recall",
        "why",
        "now",
        "as-of",
        "history",
        "changes",
        "timeline",
        "cypher",
        "demo",
        "server",
        "server start",
        "server stop",
        "server status",
    } <= names


def test_every_command_has_help():
    missing = [path for path, cmd in _tree() if not (cmd.help or cmd.short_help or "").strip()]
    assert (cli.help or "").strip(), "the top-level group needs a help text"
    assert missing == [], f"commands without a help text (write a docstring): {missing}"


@pytest.mark.parametrize("path", [p for p, _ in _tree()])
def test_help_runs(path):
    res = CliRunner().invoke(cli, [*path.split(), "--help"], prog_name="kgmem")
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"Usage: kgmem {path}"), res.output[:200]


def test_docs_cli_md_is_up_to_date():
    expected = _gen().render(cli)
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    assert current == expected, (
        "docs/cli.md is out of date with the commands' --help: run `python scripts/gen_cli_docs.py` "
        "(with the virtualenv's python) and commit the result"
    )


def test_docs_follow_the_command_order():
    text = DOC.read_text(encoding="utf-8")
    headings = [ln.lstrip("#").strip() for ln in text.splitlines() if ln.startswith(("## kgmem", "### kgmem"))]
    assert headings == ["kgmem"] + [f"kgmem {p}" for p, _ in _tree()]


def test_every_command_is_mentioned_in_readme_or_reference():
    text = README.read_text(encoding="utf-8") + "\n" + DOC.read_text(encoding="utf-8")
    missing = [path for path, _ in _tree() if f"kgmem {path}" not in text]
    assert missing == [], f"commands mentioned neither in README.md nor docs/cli.md: {missing}"

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


# ------------------------------------------------------------------ kgmem --help, by section


def _help_sections(output: str) -> dict[str, list[str]]:
    """{section title: its command names} from a `--help` output's sections after Options."""
    sections: dict[str, list[str]] = {}
    title = None
    for line in output.split("Options:", 1)[1].splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            title = line[:-1]
            sections[title] = []
        elif title and line.startswith("  ") and not line.startswith("   ") and line.strip():
            sections[title].append(line.split()[0])
    return sections


def test_help_lists_the_commands_by_section():
    res = CliRunner().invoke(cli, ["--help"], prog_name="kgmem")
    assert res.exit_code == 0, res.output
    sections = _help_sections(res.output)
    assert list(sections) == ["Remember", "Ask", "Walk the graph", "Lifecycle", "Server and admin"], sections
    assert sections["Remember"][:2] == ["remember", "ingest"] and sections["Ask"][0] == "recall"
    assert {"why", "timeline", "lineage"} <= set(sections["Walk the graph"])
    assert {"forget", "export", "import"} <= set(sections["Lifecycle"])
    assert {"server", "init", "mcp", "admin"} <= set(sections["Server and admin"])
    listed = [name for names in sections.values() for name in names]
    assert sorted(listed) == sorted(cli.commands), "each command once, in one section"  # bench: a checkout
    # the help's command column lines up across sections
    starts = {ln.index(ln.split()[1]) for ln in res.output.split("Remember:", 1)[1].splitlines() if ln[:2] == "  "}
    assert len(starts) == 1, starts


def test_every_command_has_a_section():
    from kgmem.cli.sections import SECTIONS

    placed = [name for _, names in SECTIONS for name in names]
    assert len(placed) == len(set(placed)), "a command in two sections"
    assert sorted(set(cli.commands) - set(placed)) == [], "place each new command in kgmem/cli/sections.py"


def test_help_hides_bench_outside_a_checkout(monkeypatch, tmp_path):
    import sys

    # what an installed wheel sees: no kgmem_bench importable, no bench/ beside the package nor in the cwd
    main = sys.modules["kgmem.cli.main"]
    site = tmp_path / "site-packages" / "kgmem" / "cli"
    site.mkdir(parents=True)
    monkeypatch.setattr(main, "__file__", str(site / "main.py"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "kgmem_bench", None)
    for name in [n for n in sys.modules if n.startswith("kgmem_bench.")]:  # a bench test before imported them
        monkeypatch.delitem(sys.modules, name)
    res = CliRunner().invoke(cli, ["--help"], prog_name="kgmem")
    assert res.exit_code == 0, res.output
    listed = [name for names in _help_sections(res.output).values() for name in names]
    assert "bench" not in listed and "admin" in listed, listed
    assert sorted(listed) == sorted(set(cli.commands) - {"bench"})
    # still a command there, which says why it cannot run (tests/cli/test_cli_frictions_24.py)
    assert CliRunner().invoke(cli, ["bench", "--list"]).exit_code == 2

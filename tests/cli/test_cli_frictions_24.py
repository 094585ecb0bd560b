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

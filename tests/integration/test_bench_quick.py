"""`kgmem bench --quick` completes: every suite runs end to end against the real server and writes its
JSON, the Markdown report and the plots (the figures themselves are reported, not asserted). A part of a
suite that raises is recorded in the suite's ``errors`` (and the suite's status is then "error"): none may."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_bench_quick_runs_every_suite(cli_env, tmp_path):
    out = tmp_path / "results"
    # every suite end to end, at the smallest sizes that still exercise each part: the speed suite at 500
    # memories (its ratios are reported, not asserted) and the reliability suite's rows with two of its quick
    # checks (every check is a test of its own in tests/reliability, at larger sizes)
    env = dict(cli_env, KGMEM_BENCH_SIZES="500", KGMEM_RELIABILITY_CHECKS="malformed,cypher")
    proc = subprocess.run(
        [sys.executable, "-m", "kgmem", "bench", "--quick", "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=2400,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    suites = {"ko", "graph", "retrieval", "speed", "signals", "updates", "causes", "notes"}
    for name in suites:
        data = json.loads((out / f"{name}.json").read_text())
        assert data["status"] == "ok", data.get("error")
        assert data["errors"] == [], data["errors"]
        assert not [t["title"] for t in data["tables"] if t["title"].endswith("— failed")]
        assert data["tables"] and all(t["rows"] for t in data["tables"])
    report = (out / "REPORT.md").read_text()
    assert all(f"`{name}`" in report for name in suites)
    assert list(out.glob("*.png"))


@pytest.mark.slow
def test_bench_without_the_wikiwhy_dataset_skips_that_part_and_says_how_to_fix_it(cli_env, tmp_path):
    out = tmp_path / "results"
    env = dict(cli_env, KGMEM_WIKIWHY=str(tmp_path / "no-wikiwhy-here"))
    proc = subprocess.run(
        [sys.executable, "-m", "kgmem", "bench", "--quick", "--suite", "graph", "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / "graph.json").read_text())
    assert data["status"] == "ok", data.get("error")
    assert data["errors"] == [], data["errors"]
    skipped = [t for t in data["tables"] if t["title"] == "WikiWhy: skipped"]
    assert skipped and "KGMEM_WIKIWHY" in skipped[0]["rows"][0][0]
    assert "wikiwhy" not in data["figures"] and "supersession" in data["figures"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("suite", "env_name", "file"),
    [("causes", "KGMEM_CAUSES", "causes-dev.json"), ("notes", "KGMEM_NOTES", "notes-dev.json")],
)
def test_bench_without_its_dataset_the_suite_says_skipped_and_how_to_fix_it(cli_env, tmp_path, suite, env_name, file):
    out = tmp_path / "results"
    env = dict(cli_env, **{env_name: str(tmp_path / "nothing-here")})
    proc = subprocess.run(
        [sys.executable, "-m", "kgmem", "bench", "--quick", "--suite", suite, "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / f"{suite}.json").read_text())
    assert data["status"] == "ok", data.get("error")
    (table,) = data["tables"]
    assert table["title"].endswith(": skipped")
    assert env_name in table["rows"][0][2] and file in table["rows"][0][1]
    assert data["tenants"] == []

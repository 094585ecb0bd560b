"""Issue 48 item 8, an interrupted ingest: Ctrl-C printed click's "Aborted!". It now says how many records are
stored and that running the same command again resumes — which it does: the stored records are found unchanged
and the rest is written. Through the CLI runner with a KeyboardInterrupt raised after a real commit, and with a
real SIGINT sent to a `kgmem ingest` subprocess while it writes."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

from click.testing import CliRunner

from kgmem.cli import cli


def run(*args, env: dict):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env, catch_exceptions=False)


def _records(n: int) -> str:
    return "".join(
        json.dumps({"id": f"r{i:05d}", "text": f"Note {i}: the shelf {i % 97} holds box {i}"}) + "\n" for i in range(n)
    )


def _count(store, tenant: str) -> int:
    return store.read("admin/count_tenant", tenant=tenant)[0]["memories"]


def test_ctrl_c_after_a_batch_says_what_is_stored_and_the_same_command_resumes(
    cli_env, store, tenant, tmp_path, monkeypatch
):
    from kgmem.ingest.pipeline import Ingestor

    f = tmp_path / "five.jsonl"
    f.write_text(_records(5))
    collect = Ingestor._collect

    def collect_then_ctrl_c(pending, report, progress):  # the first batch commits, then Ctrl-C
        collect(pending, report, progress)
        raise KeyboardInterrupt

    monkeypatch.setattr(Ingestor, "_collect", staticmethod(collect_then_ctrl_c))
    res = run("ingest", f, "--batch-size", 2, "--no-compile", env=cli_env)
    assert res.exit_code == 130, res.output
    assert "Aborted" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Interrupted: 2 of the 5 records read are stored (2 written by this run, 0 already")
    assert "Run the same command again to resume" in lines[0], lines[0]
    assert _count(store, tenant) == 2

    monkeypatch.setattr(Ingestor, "_collect", staticmethod(collect))
    again = run("ingest", f, "--batch-size", 2, "--no-compile", "--json", env=cli_env)
    assert again.exit_code == 0, again.output
    out = json.loads(again.stdout)
    assert (out["created"], out["unchanged"], out["errors"]) == (3, 2, []), out
    assert _count(store, tenant) == 5


def test_ctrl_c_in_the_passes_after_the_write_says_every_record_is_stored(
    cli_env, store, tenant, tmp_path, monkeypatch
):
    from kgmem.derived import causal

    f = tmp_path / "three.jsonl"
    f.write_text(_records(3))

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(causal, "run", ctrl_c)
    res = run("ingest", f, "--no-compile", env=cli_env)
    assert res.exit_code == 130, res.output
    assert res.stderr.strip().startswith("Interrupted after the write: all 3 records are stored"), res.stderr
    assert "Run the same command again to finish them" in res.stderr
    monkeypatch.undo()
    out = json.loads(run("ingest", f, "--no-compile", "--json", env=cli_env).stdout)
    assert (out["created"], out["unchanged"]) == (0, 3), out


def test_a_real_sigint_while_writing(cli_env, store, tenant, tmp_path):
    n = 3000
    f = tmp_path / "many.jsonl"
    f.write_text(_records(n))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgmem", "ingest", str(f), "--batch-size", "50", "--no-compile", "--silent"],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while _count(store, tenant) < 50 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # until the first batch is committed
        assert proc.poll() is None, "the ingest ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert "Aborted" not in err and "Traceback" not in err, err
    stored = _count(store, tenant)
    m = re.search(r"Interrupted: ([\d,]+) of the ([\d,]+) records read are stored", err)
    if m:  # stopped while writing: the number it says is what the database holds
        read = int(m.group(2).replace(",", ""))  # the input is streamed: the windows read so far
        assert int(m.group(1).replace(",", "")) == stored and stored <= read <= n, err
        assert 50 <= stored < n
    else:  # the write had just finished: the passes after it were stopped
        assert f"all {n:,} records are stored" in err and stored == n, err
    resumed = subprocess.run(
        [sys.executable, "-m", "kgmem", "ingest", str(f), "--batch-size", "50", "--no-compile", "--json"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(resumed.stdout)
    assert (report["created"], report["unchanged"], report["errors"]) == (n - stored, stored, []), report
    assert _count(store, tenant) == n

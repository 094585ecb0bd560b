"""The ``speed`` suite waits for a quiet Neo4j before it measures latency: it watches the local server's CPU also
when NEO4J_URI names that server, and after a large store it waits longer than ``--quick``'s 10 s."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kgmem_bench import speed


@pytest.fixture
def watched(monkeypatch):
    """_settle with a fake local server: which pid it reads and how long it may wait (time stands still, so
    the loop runs until its cap unless the CPU is quiet)."""
    from kgmem import server

    seen: dict = {"reads": 0, "slept": 0.0}
    clock = {"t": 0.0}
    monkeypatch.setattr(server, "status", lambda: {"pid": 4242, "uri": "bolt://127.0.0.1:7687"})
    monkeypatch.setattr(speed.time, "perf_counter", lambda: clock["t"])

    def sleep(s):
        seen["slept"] += s
        clock["t"] += s

    monkeypatch.setattr(speed.time, "sleep", sleep)
    busy = iter(range(0, 10**9, 1000))  # a busy server: 10 s of CPU (1,000 ticks) per read

    def fake_open(path, *a, **k):
        assert path == "/proc/4242/stat"
        seen["reads"] += 1
        ticks = next(busy)
        return SimpleNamespace(read=lambda: f"4242 (java) S {' '.join(['0'] * 10)} {ticks} 0 0")

    monkeypatch.setattr("builtins.open", fake_open)
    return seen


def test_the_local_server_named_by_neo4j_uri_is_watched(watched, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:7687")
    waited = speed._settle(SimpleNamespace(quick=True), 500)
    assert watched["reads"] > 0 and waited == pytest.approx(10.0)


def test_another_server_gets_a_fixed_wait(watched, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    waited = speed._settle(SimpleNamespace(quick=True), 500)
    assert watched["reads"] == 0 and waited == pytest.approx(10.0)


def test_quick_waits_longer_after_a_large_store(watched, monkeypatch):
    monkeypatch.delenv("NEO4J_URI", raising=False)
    assert speed._settle(SimpleNamespace(quick=True), 100_000) == pytest.approx(180.0)
    assert speed._settle(SimpleNamespace(quick=True), speed.QUICK_SETTLE_SIZE) == pytest.approx(10.0)


def test_the_cpu_ceiling_spreads_the_ingests_cpu_over_every_core():
    # embedding alone took 10 s; the ingest used 24 s of CPU (kgmem 18, Neo4j 6): on 2 cores it takes at least
    # 12 s, so it reaches at most 10 / 12 of embed-only
    assert speed.cpu_ceiling(10.0, 18.0, 6.0, 2) == pytest.approx(10 / 12)
    assert speed.cpu_ceiling(10.0, 18.0, None, 2) is None  # another server: its CPU is unknown


def test_the_cpu_meter_counts_this_process_and_the_servers_cpu_during_its_block(monkeypatch):
    ticks = iter([100, 350])  # the server's ticks before and after (100 per second)
    monkeypatch.setattr(speed, "_process_cpu", lambda pid: next(ticks) / 100)
    own = iter([1.0, 3.5, 4.0, 4.0])
    monkeypatch.setattr(speed, "_own_cpu", lambda: next(own))
    with speed.CpuMeter(4242) as used:
        pass
    assert used.client == pytest.approx(2.5) and used.server == pytest.approx(2.5)
    with speed.CpuMeter(None) as alone:
        pass
    assert alone.server is None

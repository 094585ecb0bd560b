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

"""A first command: the embedding model loads while the first statements wait for Neo4j (`init`: while the
schema is applied and the indexes come ONLINE), and a slow step says a line on stderr, never on stdout."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

KGMEM = [str(Path(sys.executable).parent / "kgmem")]


@pytest.fixture
def loading(monkeypatch):
    """A process with no embedder loaded yet; the event is set when an embedder starts loading."""
    from kgmem import embed

    monkeypatch.setattr(embed, "_shared", None)
    monkeypatch.setattr(embed, "_prefetching", None, raising=False)
    started = threading.Event()
    real = embed.Embedder.__init__

    def init(self, *args, **kwargs):
        started.set()
        real(self, *args, **kwargs)

    monkeypatch.setattr(embed.Embedder, "__init__", init)
    return started


def test_init_loads_the_model_while_the_schema_is_applied(store, tenant, loading, monkeypatch):
    from kgmem import MemoryGraph, embed
    from kgmem.store import schema

    real, seen = schema.apply, []

    def apply(store, **kwargs):
        seen.append(loading.wait(timeout=10))  # the model is loading before the schema is done
        return real(store, **kwargs)

    monkeypatch.setattr(schema, "apply", apply)
    mg = MemoryGraph(tenant=tenant, store=store)
    indexes = mg.init(prepare_model=True)
    assert seen == [True] and {i["name"] for i in indexes} >= {"memory_key", "memory_text"}
    assert mg._embedder is embed._shared and mg.embedder.backend == "onnx"


@pytest.mark.parametrize("method", ["recall", "why", "ingest"])
def test_a_command_that_embeds_loads_the_model_while_its_checks_wait(store, tenant, loading, monkeypatch, method):
    from kgmem import MemoryGraph
    from kgmem.store import schema

    real, seen = schema.setup, []

    def setup(store, tenant, limit):  # the first statements of a command: the server, is the schema there?
        seen.append(loading.wait(timeout=10))
        return real(store, tenant, limit)

    monkeypatch.setattr(schema, "setup", setup)
    mg = MemoryGraph(tenant=tenant, store=store)
    if method == "ingest":
        assert mg.ingest([{"text": "The first memory", "at": "2026-01-01"}]).created == 1
    else:
        getattr(mg, method)("what happened first?")
    assert seen == [True]


def test_slow_steps_say_a_line_on_stderr_and_json_stays_clean(cli_env):
    # KGMEM_PROGRESS_AFTER=0: every step says its line when it starts, however fast this machine is
    env = {**cli_env, "KGMEM_PROGRESS": "1", "KGMEM_PROGRESS_AFTER": "0"}
    res = subprocess.run([*KGMEM, "recall", "anything", "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert isinstance(json.loads(res.stdout), dict)  # no line of progress in stdout
    lines = res.stderr.splitlines()
    assert f"kgmem: connecting to Neo4j at {cli_env['NEO4J_URI']}…" in lines, lines
    assert "kgmem: loading the embedding model…" in lines, lines
    assert any(ln.startswith("kgmem: waiting for Neo4j (recall/") for ln in lines), lines
    assert len(lines) == len(set(lines)), lines  # each line once

    # stderr a pipe, KGMEM_PROGRESS unset: no step says anything (a script's stderr stays its own)
    quiet = subprocess.run([*KGMEM, "recall", "anything"], env=cli_env, capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and not any(ln.startswith("kgmem: ") for ln in quiet.stderr.splitlines()), quiet

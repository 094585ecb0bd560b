"""Test fixtures: a real Neo4j for every test that needs one.

Which Neo4j: ``NEO4J_URI`` (with NEO4J_USERNAME/NEO4J_PASSWORD) if set; else a testcontainers
``neo4j:<version>-community`` when a Docker engine answers; else the local server of ``kgmem server start``
(started here if it is not running). The version is the local server's default (2026.x) or
``KGMEM_NEO4J_VERSION`` (``5.26``); ``./dev test`` runs the Neo4j tests on both. Tests isolate themselves with a fresh tenant each, deleted afterwards,
so they can run in any order and beside real data.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _image() -> str:
    from kgmem.server import resolve_version

    return f"neo4j:{resolve_version(os.environ.get('KGMEM_NEO4J_VERSION'))}-community"


NEO4J_IMAGE = _image()
ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


def _docker_answers() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=3)
        client.ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def neo4j_connection():
    """(uri, user, password, origin) of the database the tests run against."""
    from kgmem.config import resolve_connection

    if os.environ.get("NEO4J_URI"):
        c = resolve_connection()
        yield c.uri, c.user, c.password, "environment"
        return
    if os.environ.get("KGMEM_TEST_DOCKER", "auto") != "off" and _docker_answers():
        try:
            from testcontainers.community.neo4j import Neo4jContainer  # testcontainers >= 4.15
        except ImportError:  # pragma: no cover - older testcontainers
            from testcontainers.neo4j import Neo4jContainer

        password = "kgmem-test-" + uuid.uuid4().hex[:8]
        container = Neo4jContainer(image=NEO4J_IMAGE, password=password)
        container.with_env("NEO4J_server_memory_heap_max__size", "1G")
        container.with_env("NEO4J_server_memory_pagecache_size", "1G")
        with container:
            yield container.get_connection_url(), "neo4j", password, "testcontainers"
        return
    from kgmem import server

    info = server.start(quiet=True)
    from kgmem.config import resolve_connection

    c = resolve_connection()
    assert c.origin == "local-server", c
    yield info["uri"], c.user, c.password, "local-server"


@pytest.fixture(scope="session")
def store(neo4j_connection):
    from kgmem.config import Connection
    from kgmem.store import Store, schema

    uri, user, password, origin = neo4j_connection
    s = Store(Connection(uri, user, password, None, origin))
    schema.apply(s)
    yield s
    s.close()


@pytest.fixture(scope="session")
def embedder():
    from kgmem.embed import get_embedder

    return get_embedder()


# tenants handed out and not deleted yet: a test's teardown deletes its own; what an interrupted run (Ctrl-C,
# SIGTERM, a crash in teardown) still holds is deleted when the session ends or the process exits. A run
# killed outright leaves them: `kgmem admin cleanup --prefix test-` (and other-) removes those.
_LIVE: dict[str, object] = {}


def schema_current(store) -> bool:
    """Whether the database holds kgmem's schema version with every index ONLINE, as a connection's setup read
    (``admin/setup`` and the index states) finds it."""
    from kgmem.store import schema

    return schema.setup(store, "schema-check", 1).current


def _new_tenant(prefix: str = "test") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _delete(store, name: str) -> None:
    store.auto_commit("admin/delete_tenant", tenant=name)
    _LIVE.pop(name, None)


def _delete_leftovers() -> None:
    for name, store in list(_LIVE.items()):
        try:
            _delete(store, name)
        except Exception:  # noqa: BLE001 - the database may be gone already; cleanup --prefix remains
            pass


atexit.register(_delete_leftovers)


def pytest_sessionfinish(session, exitstatus):
    _delete_leftovers()


def _on_sigterm(signum, frame):
    raise KeyboardInterrupt  # pytest unwinds: teardowns run, then the session finishes (and deletes leftovers)


if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGTERM, _on_sigterm)


def _fresh(store, prefix: str):
    name = _new_tenant(prefix)
    _LIVE[name] = store
    yield name
    _delete(store, name)


@pytest.fixture
def tenant(store):
    """A fresh tenant name; everything in it is deleted after the test (or at exit if the run is stopped)."""
    yield from _fresh(store, "test")


@pytest.fixture
def mg(store, embedder, tenant):
    """A MemoryGraph on the test database, in a fresh tenant."""
    from kgmem import MemoryGraph

    g = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
    g._schema_ready = True  # applied once per session by the store fixture
    yield g


@pytest.fixture
def other_tenant(store):
    yield from _fresh(store, "other")


@pytest.fixture
def cli_env(neo4j_connection, tenant):
    """Environment for running the CLI as a real subprocess against the test database."""
    uri, user, password, _ = neo4j_connection
    env = dict(os.environ)
    env.update(NEO4J_URI=uri, NEO4J_USERNAME=user or "neo4j", NEO4J_PASSWORD=password or "", KGMEM_TENANT=tenant)
    return env


@pytest.fixture
def recording(store):
    """A real Store on the test server that notes the statements it ran: ``ran`` as the server saw them (the
    generation's variant), ``asked`` by the names the code asked for."""
    from kgmem.store import Store

    class RecordingStore(Store):
        def __init__(self, connection):
            super().__init__(connection)
            self.ran: list[str] = []
            self.asked: list[str] = []

        def _execute(self, name, params, routing, *, resolve=True):
            self.asked.append(name)
            self.ran.append(self.resolve(name) if resolve else name)
            return super()._execute(name, params, routing, resolve=resolve)

    s = RecordingStore(store.connection)
    yield s
    s.close()

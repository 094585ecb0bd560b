"""Issue 48 item 3, the wrong server: a kgmem home remembers the ports and the password of its local server, every
command without NEO4J_URI uses that server (also with a NEO4J_PASSWORD left in the environment), `server status`
and `server start` after a stop keep its ports, and a command that finds no server of its own says which one it
tried and how to point at one ("a Neo4j answers at ... but kgmem has no password"), not the driver's "missing key
'credentials'". On a throwaway server of a temporary KGMEM_HOME on ports of its own; the shared server on 7687 is
not touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kgmem.server import local

from .test_server import _free, _free_ports


def _kgmem(env, *args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "kgmem", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def _clean_env(home) -> dict:
    """No NEO4J_* and no KGMEM_*_PORT: what a newcomer's shell has, with KGMEM_HOME pointing at ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "KGMEM_BOLT", "KGMEM_HTTP"))}
    env.update(KGMEM_HOME=str(home), KGMEM_NEO4J_HEAP="512m", KGMEM_NEO4J_PAGECACHE="256m")
    return env


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("kgmem-home-48")
    yield home
    _kgmem(_clean_env(home), "server", "stop", timeout=120)


def test_a_home_keeps_its_server_and_every_command_uses_it(home, tmp_path):
    bolt, http = _free_ports(2)
    env = _clean_env(home)
    started = _kgmem(env, "server", "start", "--bolt-port", str(bolt), "--http-port", str(http), "--json")
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["bolt_port"] == bolt

    # no NEO4J_*: the home's server, with its recorded login; a NEO4J_PASSWORD without NEO4J_URI is not sent to it
    for extra in ({}, {"NEO4J_PASSWORD": "left-over-from-elsewhere"}):
        res = _kgmem({**env, **extra}, "remember", "I moved to Porto", "--user", "maya", "--tenant", "t48", "--json")
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["user"] == "maya"

    # another home without a server of its own, pointed at this port: it says which server it tried and how to
    # point at one (the driver said "Unsupported authentication token, missing key `credentials`")
    other = tmp_path / "other-home"
    res = _kgmem({**_clean_env(other), "KGMEM_BOLT_PORT": str(bolt)}, "now", "maya", "lives_in")
    assert res.returncode == 1, res.stderr
    line = res.stderr.strip()
    assert "\n" not in line and "credentials" not in line, line
    assert f"a Neo4j answers at bolt://127.0.0.1:{bolt} (no NEO4J_URI is set and {other} has no local server" in line
    assert "NEO4J_URI" in line and "kgmem server start --bolt-port" in line, line

    # stopped: status names this home's ports, not 7687; a command says the home's server is down and how to start it
    assert _kgmem(env, "server", "stop").returncode == 0
    status = json.loads(_kgmem(env, "server", "status", "--json").stdout)
    assert status["state"] == "stopped" and status["bolt_port"] == bolt and status["http_port"] == http, status
    assert status["uri"] == f"bolt://127.0.0.1:{bolt}"
    text = _kgmem(env, "server", "status").stdout
    assert f"bolt://127.0.0.1:{bolt}" in text and "7687" not in text, text
    res = _kgmem(env, "now", "maya", "lives_in")
    assert res.returncode == 3, res.stderr
    assert f"the local server of {home} at bolt://127.0.0.1:{bolt}" in res.stderr, res.stderr
    assert "kgmem server start" in res.stderr

    # start again without ports: the same ports and the same password (the memory is still there)
    again = _kgmem(env, "server", "start", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["bolt_port"] == bolt
    res = _kgmem(env, "recall", "Porto", "--user", "maya", "--tenant", "t48", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["hits"], res.stderr
    assert _kgmem(env, "server", "stop").returncode == 0
    assert _free(bolt)


def test_status_of_a_stopped_home_reports_its_recorded_ports(monkeypatch, tmp_path):
    """Without a server: what a stopped home's status says, and the ports a start would use."""
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    for var in ("KGMEM_BOLT_PORT", "KGMEM_HTTP_PORT"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "neo4j").mkdir()
    state = {"home": str(tmp_path / "neo4j"), "bolt_port": 7730, "http_port": 7731, "uri": "bolt://127.0.0.1:7730"}
    (tmp_path / "neo4j" / "server.json").write_text(json.dumps(state))
    info = local.status()
    assert (info["state"], info["bolt_port"], info["uri"]) == ("stopped", 7730, "bolt://127.0.0.1:7730")
    assert info["browser"] == "http://127.0.0.1:7731/browser/"
    # asked for another port: that one (the start that follows records it)
    assert local.status(local.ServerSettings.from_env(bolt_port=7740))["bolt_port"] == 7740
    settings = local._recorded_ports(local.ServerSettings.from_env(), state)
    assert (settings.bolt_port, settings.http_port) == (7730, 7731)
    monkeypatch.setenv("KGMEM_BOLT_PORT", "7750")
    assert local._recorded_ports(local.ServerSettings.from_env(), state).bolt_port == 7750


def test_a_left_over_password_goes_to_the_server_it_belongs_to(monkeypatch, tmp_path):
    from kgmem.config import resolve_connection

    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.setenv("NEO4J_PASSWORD", "elsewhere")
    (tmp_path / "neo4j").mkdir()
    (tmp_path / "neo4j" / "server.json").write_text(json.dumps({"uri": "bolt://127.0.0.1:7730", "password": "home"}))
    c = resolve_connection()
    assert (c.uri, c.password, c.origin) == ("bolt://127.0.0.1:7730", "home", "local-server")
    assert resolve_connection(password="given").password == "given"
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    assert resolve_connection().password == "elsewhere"
    assert resolve_connection(uri="bolt://x:1").password == "elsewhere"  # --uri goes with NEO4J_PASSWORD too

"""`kgmem server` on a second, throwaway local Neo4j (own data directory and ports): start is idempotent,
status tells the truth, a taken port is a clear error, stop ends only the process it started."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from kgmem import server
from kgmem.errors import ServerError

# run again on the second server generation (./dev test): this is what differs between them
pytestmark = pytest.mark.generations


def _free_ports(n: int) -> list[int]:
    """``n`` distinct ports nothing listens on now (the kernel picks them: bind port 0, then release)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


BOLT, HTTP = _free_ports(2)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    home = tmp_path_factory.mktemp("kgmem-home")
    env = {
        **os.environ,
        "KGMEM_HOME": str(home),
        "KGMEM_BOLT_PORT": str(BOLT),
        "KGMEM_HTTP_PORT": str(HTTP),
        "KGMEM_NEO4J_HEAP": "512m",
        "KGMEM_NEO4J_PAGECACHE": "256m",
    }
    env.pop("NEO4J_URI", None)
    yield env
    subprocess.run([sys.executable, "-m", "kgmem", "server", "stop"], env=env, capture_output=True, timeout=120)


def _kgmem(env, *args, check=True):
    proc = subprocess.run([sys.executable, "-m", "kgmem", *args], env=env, capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_start_twice_gives_one_server_then_stop(scratch):
    first = _kgmem(scratch, "server", "start", "--json")
    info = json.loads(first.stdout)
    assert info["state"] == "running" and info["already_running"] is False
    # a new home runs the current Neo4j, or the one KGMEM_NEO4J_VERSION asks for (./dev test's 5.26 pass)
    assert info["bolt_port"] == BOLT and info["version"] == server.resolve_version(
        os.environ.get("KGMEM_NEO4J_VERSION")
    )
    again = json.loads(_kgmem(scratch, "server", "start", "--json").stdout)
    assert again["already_running"] is True and again["pid"] == info["pid"]

    status = json.loads(_kgmem(scratch, "server", "status", "--json").stdout)
    assert status["state"] == "running" and status["pid"] == info["pid"]
    assert status["data_dir"].startswith(scratch["KGMEM_HOME"])

    # the NEO4J_* lines it prints work, and the Browser answers
    lines = dict(  # export NAME=value, quoted for a shell
        shlex.split(line.removeprefix("export "))[0].split("=", 1)
        for line in _kgmem(scratch, "server", "start").stdout.splitlines()
    )
    assert lines["NEO4J_URI"] == f"bolt://127.0.0.1:{BOLT}"
    from neo4j import GraphDatabase

    with GraphDatabase.driver(lines["NEO4J_URI"], auth=(lines["NEO4J_USERNAME"], lines["NEO4J_PASSWORD"])) as d:
        assert d.execute_query("RETURN 1 AS one").records[0]["one"] == 1
    with urllib.request.urlopen(f"http://127.0.0.1:{HTTP}/browser/", timeout=10) as resp:
        assert resp.status == 200

    # the new home's transaction logs grow as they are written: none starts at its rotation size (Neo4j's
    # default preallocates 256 MB for each, the system database's and neo4j's), and the whole home is small
    data = Path(status["data_dir"])
    logs = {p.relative_to(data).as_posix(): p.stat().st_size for p in data.glob("transactions/*/*") if p.is_file()}
    assert logs and max(logs.values()) < 16 * 2**20, logs
    home = sum(p.stat().st_size for p in Path(scratch["KGMEM_HOME"]).rglob("*") if p.is_file())
    assert home < 64 * 2**20, f"{home / 2**20:.0f} MB in a new home"

    stopped = json.loads(_kgmem(scratch, "server", "stop", "--json").stdout)
    assert stopped["was_running"] is True and stopped["state"] == "stopped"
    assert json.loads(_kgmem(scratch, "server", "status", "--json").stdout)["state"] == "stopped"
    assert _free(BOLT)


def test_a_taken_port_is_a_clear_error(scratch, tmp_path):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        env = {**scratch, "KGMEM_BOLT_PORT": str(port)}
        proc = _kgmem(env, "server", "start", check=False)
    assert proc.returncode == 1
    assert f"port {port}" in proc.stderr and "--bolt-port" in proc.stderr


def test_stop_leaves_other_processes_alone(scratch, tmp_path):
    """A pid file naming some other process is not obeyed."""
    settings = server.ServerSettings.from_env()
    settings.home = tmp_path / "neo4j"
    (settings.home / "run").mkdir(parents=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        settings.pid_file.write_text(f"{sleeper.pid}\n")
        result = server.stop(settings)
        assert result["was_running"] is False
        assert sleeper.poll() is None  # still alive
    finally:
        sleeper.kill()


def test_missing_java_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ServerError, match="needs Java 21 or 25; found: none") as err:
        server.local.find_java(server.CURRENT_VERSION, jvm_root=tmp_path / "jvm")
    assert "JAVA_HOME" in str(err.value) and "--neo4j 5.26" in str(err.value)
    with pytest.raises(ServerError, match="needs Java 17 or 21") as err:
        server.local.find_java(server.LTS_VERSION, jvm_root=tmp_path / "jvm")
    assert "openjdk-17-jre-headless" in str(err.value)


@pytest.mark.parametrize("version", [server.CURRENT_VERSION, server.LTS_VERSION])
def test_a_java_for_each_version_is_found_here(version):
    import re as _re

    java = server.local.find_java(version)
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    major = int(_re.search(r'version "(\d+)', out).group(1))
    assert major in server.local.supported_java(version), out

"""The local server's versions: 2026.x by default, 5.26 LTS by a flag, a Java each runs on, a home keeps the
version its data was made with, and NEO4J_DATABASE / the URI reach the connection as given."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from kgmem.errors import ServerError
from kgmem.server import local

ROOT = Path(__file__).resolve().parents[2]


def test_version_aliases_and_exact_versions():
    assert local.resolve_version(None) == local.CURRENT_VERSION
    assert local.resolve_version("2026") == local.CURRENT_VERSION
    assert local.resolve_version("5.26") == local.resolve_version("lts") == local.LTS_VERSION
    assert local.resolve_version("2026.03.0") == "2026.03.0"
    with pytest.raises(ServerError, match="not a Neo4j version"):
        local.resolve_version("6")
    assert local.CURRENT_VERSION.startswith("2026.")
    assert local.supported_java("5.26.30") == (17, 21)
    assert local.supported_java("2025.01.0") == (21,)
    assert local.supported_java(local.CURRENT_VERSION) == (21, 25)


def test_the_jar_cache_is_keyed_by_version():
    a, b = local.distribution_dir(local.CURRENT_VERSION), local.distribution_dir(local.LTS_VERSION)
    assert a.name.startswith(f"neo4j-{local.CURRENT_VERSION}-") and b.name.startswith(f"neo4j-{local.LTS_VERSION}-")


def _fake_java(root: Path, name: str, version: str) -> Path:
    """A stand-in JDK whose `java -version` says ``version`` (find_java only asks it its version)."""
    java = root / name / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-09-16' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    return java


def test_find_java_picks_one_the_version_runs_on(monkeypatch, tmp_path):
    j17 = _fake_java(tmp_path / "jvm", "java-17", "17.0.15")
    j25 = _fake_java(tmp_path / "jvm", "temurin-25", "25.0.1")
    monkeypatch.setenv("JAVA_HOME", str(j17.parent.parent))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert local.find_java(local.LTS_VERSION, jvm_root=tmp_path / "jvm") == str(j17)
    assert local.find_java(local.CURRENT_VERSION, jvm_root=tmp_path / "jvm") == str(j25)
    with pytest.raises(ServerError, match="needs Java 21") as err:
        local.find_java("2025.01.0", jvm_root=tmp_path / "jvm")
    assert "Java 17" in str(err.value) and "Java 25" in str(err.value)  # what it found, named


def test_only_java_17_names_what_is_missing(monkeypatch, tmp_path):
    _fake_java(tmp_path / "jvm", "java-17", "17.0.15")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ServerError, match=r"Neo4j 2026\.\S+ needs Java 21 or 25; found: .*Java 17") as err:
        local.find_java(local.CURRENT_VERSION, jvm_root=tmp_path / "jvm")
    assert "--neo4j 5.26" in str(err.value) and "JAVA_HOME" in str(err.value)


def test_a_home_keeps_the_version_its_data_was_made_with(monkeypatch, tmp_path):
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.delenv("KGMEM_NEO4J_VERSION", raising=False)
    home = tmp_path / "neo4j"
    state = {"home": str(home), "version": local.LTS_VERSION, "password": "x"}
    default = local.ServerSettings.from_env()
    assert default.neo4j == local.CURRENT_VERSION and not default.explicit_version
    assert local._home_version(default, state).neo4j == local.LTS_VERSION  # not upgraded behind its back
    asked = local.ServerSettings.from_env(neo4j="5.26")
    assert local._home_version(asked, state).neo4j == local.LTS_VERSION
    with pytest.raises(ServerError, match="created by Neo4j 5.26.30") as err:
        local._home_version(local.ServerSettings.from_env(neo4j="2026"), state)
    assert "KGMEM_HOME" in str(err.value)
    newer = {**state, "version": "2026.02.0"}
    assert local._home_version(local.ServerSettings.from_env(neo4j="2026"), newer).neo4j == local.CURRENT_VERSION
    assert local._home_version(default, None).neo4j == local.CURRENT_VERSION  # a new home: the default


def test_status_reports_the_recorded_version(monkeypatch, tmp_path):
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.delenv("KGMEM_NEO4J_VERSION", raising=False)
    (tmp_path / "neo4j" / "data" / "databases").mkdir(parents=True)
    state = {"home": str(tmp_path / "neo4j"), "version": local.LTS_VERSION}
    (tmp_path / "neo4j" / "server.json").write_text(json.dumps(state))
    info = local.status()
    assert info["state"] == "stopped" and info["version"] == local.LTS_VERSION
    assert info["jars"].startswith(str(local.distribution_dir(local.LTS_VERSION)))


def test_neo4j_database_is_honoured_for_the_local_server(monkeypatch, tmp_path):
    from kgmem.config import resolve_connection

    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.setenv("NEO4J_DATABASE", "memories")
    assert resolve_connection().database == "memories"  # no server.json: the default local URI
    (tmp_path / "neo4j").mkdir()
    (tmp_path / "neo4j" / "server.json").write_text(json.dumps({"uri": "bolt://127.0.0.1:7999", "password": "p"}))
    assert resolve_connection().database == "memories"
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://abc.databases.neo4j.io")
    c = resolve_connection()
    assert c.uri == "neo4j+s://abc.databases.neo4j.io" and c.database == "memories"  # the URI as given


def test_docker_compose_runs_the_default_version():
    compose = (ROOT / "docker" / "compose.yml").read_text()
    assert f"neo4j:{local.CURRENT_VERSION}-community" in compose
    assert f"neo4j:{local.LTS_VERSION}-community" in compose  # and says how to run the LTS


def test_vector_search_settings_reach_the_conf_and_compose(monkeypatch, tmp_path):
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.delenv("KGMEM_NEO4J_VECTOR_MERGE_FACTOR", raising=False)
    conf = local._write_conf(local.ServerSettings.from_env()).read_text().splitlines()
    assert "internal.dbms.index.vector.standard_merge_factor=10" in conf
    assert "--add-modules=jdk.incubator.vector" in local.JVM_FLAGS
    monkeypatch.setenv("KGMEM_NEO4J_VECTOR_MERGE_FACTOR", "50")
    conf = local._write_conf(local.ServerSettings.from_env()).read_text().splitlines()
    assert "internal.dbms.index.vector.standard_merge_factor=50" in conf
    compose = (ROOT / "docker" / "compose.yml").read_text()
    assert 'NEO4J_internal_dbms_index_vector_standard__merge__factor: "10"' in compose


@pytest.mark.parametrize("raw", ["ten", "1", "-3"])
def test_a_bad_merge_factor_names_the_variable(monkeypatch, tmp_path, raw):
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.setenv("KGMEM_NEO4J_VECTOR_MERGE_FACTOR", raw)
    with pytest.raises(ServerError, match="KGMEM_NEO4J_VECTOR_MERGE_FACTOR"):
        local.ServerSettings.from_env()


def test_the_initial_password_never_reads_as_an_option():
    # neo4j-admin dbms set-initial-password took a password beginning with '-' for an unknown option (CI, 5.26):
    # token_urlsafe did that once in 64 starts; 4,000 draws would catch it with odds 1 - (63/64)^4000
    drawn = {local.new_password() for _ in range(4000)}
    assert len(drawn) == 4000
    assert not any(p.startswith("-") for p in drawn)
    assert min(len(p) for p in drawn) >= 16

"""Where kgmem keeps things and how it finds its database.

Connection settings resolve in this order: explicit arguments, then the environment (``NEO4J_URI``,
``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``), then the local server that
``kgmem server start`` runs (its URI and generated password are in ``$KGMEM_HOME/neo4j/server.json``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_HITS = 10  # recall hits when the caller does not say (API, CLI, MCP)
DEFAULT_RRF_K = 10  # reciprocal rank fusion constant (kgmem.query.fusion; see its docstring for why 10)
DEFAULT_BATCH = 2048  # ingest: one transaction per batch; bigger batches leave fewer, larger index segments
# the inferred-supersession pass pairs a first load's records by a matrix product over their vectors up to this
# many (the write hands it the vectors); above, or when the tenant holds other records, it asks the vector index
IN_MEMORY_PAIRS_MAX = 200_000
DEFAULT_TENANT = "default"
# what `kgmem ingest` / MemoryGraph.ingest_file read (kgmem.ingest.documents turns the others into records)
INGEST_FORMATS = ("jsonl", "json", "chat", "markdown", "text")
DEFAULT_ROOTS = 3  # why: root causes returned unless told
DEFAULT_WHY_DEPTH = 6  # why: CAUSED_BY hops walked unless told
DEFAULT_AROUND = 5  # timeline: memories before and after
DEFAULT_CHANGES = 100  # changes: versions listed
DEFAULT_MENTIONS = 20  # mentions: memories listed (newest first)
DEFAULT_NEIGHBOURS = 20  # neighbourhood: memories in each list (causes, effects, ...)


def kgmem_home() -> Path:
    """Data directory (local Neo4j data, credentials, logs). ``KGMEM_HOME`` or ``~/.local/share/kgmem``."""
    env = os.environ.get("KGMEM_HOME")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kgmem"


def cache_dir() -> Path:
    """Cache for things rebuilt from a recipe (virtualenv, Neo4j jars). ``KGMEM_CACHE`` or ``~/.cache/kgmem``."""
    env = os.environ.get("KGMEM_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kgmem"


def local_server_state_path() -> Path:
    return kgmem_home() / "neo4j" / "server.json"


@dataclass(frozen=True)
class Connection:
    uri: str
    user: str | None
    password: str | None
    database: str | None = None
    origin: str = "arguments"  # arguments | environment | local-server | default

    @property
    def auth(self) -> tuple[str, str] | None:
        if self.user is None and self.password is None:
            return None
        return (self.user or "neo4j", self.password or "")


def resolve_connection(
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
) -> Connection:
    """Pick the connection from arguments, the environment, or the local server, in that order.

    ``user``/``password`` given here win; otherwise a URI (argument or ``NEO4J_URI``) goes with
    ``NEO4J_USERNAME``/``NEO4J_PASSWORD``, and the local server of this home (``$KGMEM_HOME``, its
    ``server.json``) with the login it recorded: a ``NEO4J_PASSWORD`` left without a ``NEO4J_URI`` is not sent to
    the home's server. With neither, the address `kgmem server start` would use (``bolt://127.0.0.1:7687``, or
    ``KGMEM_BOLT_PORT``; origin ``default``) with what the environment gives; the store's errors then say that no
    server was configured."""
    env = os.environ
    database = database or env.get("NEO4J_DATABASE") or None
    env_user = env.get("NEO4J_USERNAME") or env.get("NEO4J_USER") or None
    env_password = env.get("NEO4J_PASSWORD")
    if uri or env.get("NEO4J_URI"):
        return Connection(
            uri or env["NEO4J_URI"],
            user or env_user or "neo4j",
            password if password is not None else env_password,
            database,
            "arguments" if uri else "environment",
        )
    info = local_server_state()
    if info is not None:
        return Connection(
            info["uri"],
            user or info.get("user") or "neo4j",
            password if password is not None else info.get("password"),
            database,
            "local-server",
        )
    return Connection(
        f"bolt://127.0.0.1:{env.get('KGMEM_BOLT_PORT') or 7687}",  # where `kgmem server start` would listen
        user or env_user or "neo4j",
        password if password is not None else env_password,
        database,
        "default",
    )


def local_server_state() -> dict[str, Any] | None:
    """This home's ``server.json`` (the local server's URI, ports, login, version), None when the home never ran
    one (or the file is unreadable)."""
    state = local_server_state_path()
    try:
        info = json.loads(state.read_text())
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) and isinstance(info.get("uri"), str) else None

"""Applies ``cypher/schema/*.cypher`` (idempotent, in file order) and waits until every index is ONLINE.

The schema is applied once per database and schema version, not on every command: :func:`apply` records
:func:`version` (a hash of kgmem's version, the texts of ``cypher/schema/*.cypher`` and the expected index
definitions) in a ``:KgmemSchema`` node, and :func:`setup` — the connection's first read (``admin/setup``,
which looks the version node up) and ``SHOW INDEXES`` — tells a new process whether it can skip the schema
step. Another version, a missing node, or one of kgmem's indexes missing, not ONLINE or of another definition
makes it apply the schema again.

The schema depends on the server's generation (:attr:`kgmem.store.capabilities.ServerInfo.generation`): on
Neo4j 2026.x the vector indexes are created ``WITH [m.tenant]`` (``cypher/schema/v2026``) so recall filters
inside them. Their version hashes those files, and an index of the same name without the extra property (made
on 5.26, or by an older kgmem) is of another definition: it is dropped and built again from the stored vectors.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import SchemaError
from ..progress import step
from . import cypher
from .cypher import GENERATIONS
from .rules import VECTOR_FILTER_PROPERTIES, VECTOR_INDEX_PROPERTY, fulltext_index_properties
from .session import Store

# the indexes and constraints kgmem creates (the constraints' backing indexes carry the same names), with
# the properties each covers: an index found under one of these names with other properties (an older
# definition) is dropped and created again. Those of the vector and fulltext indexes come from
# kgmem/store/rules.py, which also writes their schema statements.
EXPECTED_PROPERTIES = {
    "memory_key": ["tenant", "id"],
    "entity_key": ["tenant", "key"],
    "tombstone_key": ["tenant", "id"],
    "entity_names": ["name", "alias_text"],
    "memory_tenant_at": ["tenant", "at"],
    "memory_slot": ["slot"],
    "memory_valid_to": ["tenant", "valid_to"],
    "memory_recorded_at": ["tenant", "recorded_at"],
    "memory_stream": ["tenant", "stream", "at"],
    "memory_content_key": ["tenant", "content_key"],
    "memory_subject": ["tenant", "subject", "predicate"],
    "memory_tenant": ["tenant"],
    "entity_tenant": ["tenant"],
    "tombstone_tenant": ["tenant"],
    "run_tenant": ["tenant"],
    **{index: [prop] for index, prop in VECTOR_INDEX_PROPERTY.items()},
    **fulltext_index_properties(),
}
EXPECTED = tuple(EXPECTED_PROPERTIES)
CONSTRAINTS = {"memory_key", "entity_key", "tombstone_key"}
VECTOR_INDEXES = set(VECTOR_INDEX_PROPERTY)


def expected_properties(generation: str | None = None) -> dict[str, list[str]]:
    """The properties each kgmem index covers on a server of ``generation``: on 2026.x (``v2026``) the
    vector indexes also list the properties recall filters on inside them (SHOW INDEXES reports the WITH
    properties after the vector property)."""
    if generation != "v2026":
        return EXPECTED_PROPERTIES
    return {
        n: [*props, *VECTOR_FILTER_PROPERTIES] if n in VECTOR_INDEXES else props
        for n, props in EXPECTED_PROPERTIES.items()
    }


def schema_statements(generation: str | None = None) -> list[str]:
    """The schema statements in file order, each the variant of ``generation`` where it has one."""
    return [cypher.variant(n, generation) for n in cypher.base_names() if n.startswith("schema/")]


@lru_cache(maxsize=4)
def version(generation: str | None = None) -> str:
    """The schema version: kgmem's version + every schema statement's name and text (those of the server's
    ``generation``) + the expected index definitions, hashed (``<kgmem version>+<12 hex digits>``)."""
    from .. import __version__

    digest = hashlib.sha256(f"kgmem={__version__}\n".encode())
    for name in schema_statements(generation):
        digest.update(f"{name}\n{cypher.load(name).text}\n".encode())
    digest.update(repr(sorted(expected_properties(generation).items())).encode())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def indexes_ok(rows: list[dict[str, Any]], generation: str | None = None) -> bool:
    """Every kgmem index is there, ONLINE and of the expected definition (``admin/index_states`` rows)."""
    expected = expected_properties(generation)
    ours = {r["name"]: r for r in rows if r["name"] in expected}
    return all(
        n in ours and ours[n]["state"] == "ONLINE" and (n in CONSTRAINTS or ours[n]["properties"] == expected[n])
        for n in EXPECTED
    )


@dataclass(frozen=True)
class Setup:
    """What :func:`setup` read: whether the schema is current, the tenant's stored embedding model (None: it has
    no vectors yet) and the tenant's version (``recall/tenant_version``'s: memories up to the limit + 1, the
    last recorded)."""

    current: bool
    embedding_model: str | None
    tenant_version: tuple[int, Any]


def setup(store: Store, tenant: str, limit: int) -> Setup:
    """The reads before a connection's first query of ``tenant``: ``admin/setup`` (the server, the recorded schema
    version, the tenant's model and version, in one round trip), then the index states when the version is
    recorded — two statements where four were."""
    versions = {g: version(g) for g in (None, *GENERATIONS)}
    row = store.setup(tenant, sorted(set(versions.values())), limit)
    generation = store.server_info().generation
    current = versions[generation] in row["applied"] and indexes_ok(store.read("admin/index_states"), generation)
    return Setup(current, row["embedding_model"], (int(row["memories"]), row["last"]))


def record(store: Store) -> None:
    from .. import __version__

    generation = store.server_info().generation
    store.write(
        "admin/schema_version_set",
        version=version(generation),
        kgmem_version=__version__,
        schema_files=len(schema_statements(generation)),
    )


def stale_indexes(rows: list[dict[str, Any]], generation: str | None = None) -> list[str]:
    """kgmem's indexes (not constraints) that exist under their name with another definition."""
    expected = expected_properties(generation)
    return [
        r["name"]
        for r in rows
        if r["name"] in expected and r["name"] not in CONSTRAINTS and r["properties"] != expected[r["name"]]
    ]


def apply(store: Store, *, timeout: float = 300.0) -> list[dict[str, Any]]:
    """Create what is missing, then block until all kgmem indexes are ONLINE. Returns the index list."""
    generation = store.server_info().generation
    with step("creating the schema (constraints and indexes)"):
        for name in stale_indexes(store.read("admin/index_states"), generation):
            # an index kept under its name from an older definition (or made on 5.26, before a store upgrade)
            store.auto_commit("admin/drop_stale_index", index_name=name)
        for name in schema_statements(generation):
            store.auto_commit(name)
    with step("waiting until the indexes are ONLINE"):
        indexes = wait_online(store, timeout=timeout)
    record(store)
    return indexes


def wait_online(store: Store, *, timeout: float = 300.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        rows = store.read("admin/index_states")
        ours = {r["name"]: r for r in rows if r["name"] in EXPECTED}
        missing = [n for n in EXPECTED if n not in ours]
        failed = [n for n, r in ours.items() if r["state"] == "FAILED"]
        if failed:
            raise SchemaError(
                f"index(es) {', '.join(failed)} FAILED to populate",
                fix="drop them in Neo4j Browser (DROP INDEX name) and run `kgmem init` again",
            )
        pending = [n for n, r in ours.items() if r["state"] != "ONLINE"]
        if not missing and not pending:
            return [ours[n] for n in EXPECTED]
        if time.monotonic() > deadline:
            raise SchemaError(
                f"indexes not ONLINE after {timeout:.0f}s: missing {missing}, pending {pending}",
                fix="run kgmem init again once Neo4j has populated them (SHOW INDEXES shows their progress)",
            )
        time.sleep(0.2)

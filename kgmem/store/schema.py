"""Applies ``cypher/schema/*.cypher`` (idempotent, in file order) and waits until every index is ONLINE."""

from __future__ import annotations

import time

from ..errors import SchemaError
from . import cypher
from .session import Store

# the indexes and constraints kgmem creates (the constraints' backing indexes carry the same names)
EXPECTED = (
    "memory_key", "entity_key", "tombstone_key", "memory_embedding", "memory_text", "entity_names",
    "memory_tenant_at", "memory_slot", "memory_valid_to", "memory_recorded_at", "memory_stream",
    "memory_content_key", "memory_subject",
)


def schema_statements() -> list[str]:
    return [n for n in cypher.names() if n.startswith("schema/")]


def apply(store: Store, *, timeout: float = 300.0) -> list[dict]:
    """Create what is missing, then block until all kgmem indexes are ONLINE. Returns the index list."""
    for name in schema_statements():
        store.auto_commit(name)
    return wait_online(store, timeout=timeout)


def wait_online(store: Store, *, timeout: float = 300.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        rows = store.read("admin/index_states")
        ours = {r["name"]: r for r in rows if r["name"] in EXPECTED}
        missing = [n for n in EXPECTED if n not in ours]
        failed = [n for n, r in ours.items() if r["state"] == "FAILED"]
        if failed:
            raise SchemaError(f"index(es) {', '.join(failed)} FAILED to populate",
                              fix="drop them in Neo4j Browser (DROP INDEX name) and run `kgmem init` again")
        pending = [n for n, r in ours.items() if r["state"] != "ONLINE"]
        if not missing and not pending:
            return [ours[n] for n in EXPECTED]
        if time.monotonic() > deadline:
            raise SchemaError(f"indexes not ONLINE after {timeout:.0f}s: missing {missing}, pending {pending}")
        time.sleep(0.2)

"""Applies ``cypher/schema/*.cypher`` (idempotent, in file order) and waits until every index is ONLINE."""

from __future__ import annotations

import time

from ..errors import SchemaError
from . import cypher
from .session import Store

# the indexes and constraints kgmem creates (the constraints' backing indexes carry the same names), with
# the properties each covers: an index found under one of these names with other properties (an older
# definition) is dropped and created again
EXPECTED_PROPERTIES = {
    "memory_key": ["tenant", "id"], "entity_key": ["tenant", "key"], "tombstone_key": ["tenant", "id"],
    "memory_embedding": ["embedding"], "memory_text": ["text"], "entity_names": ["name", "alias_text"],
    "memory_tenant_at": ["tenant", "at"], "memory_slot": ["slot"], "memory_valid_to": ["tenant", "valid_to"],
    "memory_recorded_at": ["tenant", "recorded_at"], "memory_stream": ["tenant", "stream", "at"],
    "memory_content_key": ["tenant", "content_key"], "memory_subject": ["tenant", "subject", "predicate"],
    "memory_tenant": ["tenant"], "entity_tenant": ["tenant"], "tombstone_tenant": ["tenant"],
    "run_tenant": ["tenant"], "memory_context_embedding": ["context_embedding"],
    "memory_wide_embedding": ["wide_embedding"], "memory_context_text": ["context_text"],
    "memory_window_text": ["window_text"],
}
EXPECTED = tuple(EXPECTED_PROPERTIES)
CONSTRAINTS = {"memory_key", "entity_key", "tombstone_key"}


def schema_statements() -> list[str]:
    return [n for n in cypher.names() if n.startswith("schema/")]


def apply(store: Store, *, timeout: float = 300.0) -> list[dict]:
    """Create what is missing, then block until all kgmem indexes are ONLINE. Returns the index list."""
    stale = [r["name"] for r in store.read("admin/index_states")
             if r["name"] in EXPECTED_PROPERTIES and r["name"] not in CONSTRAINTS
             and r["properties"] != EXPECTED_PROPERTIES[r["name"]]]
    for name in stale:  # an index kept under its name from an older definition
        store.auto_commit("admin/drop_stale_index", index_name=name)
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

"""Applies ``cypher/schema/*.cypher`` (idempotent, in file order) and waits until every index is ONLINE.

The schema is applied once per database and schema version, not on every command: :func:`apply` records
:func:`version` (a hash of kgmem's version, the texts of ``cypher/schema/*.cypher`` and the expected index
definitions) in a ``:KgmemSchema`` node, and :func:`is_current` — two cheap reads, the version node and
``SHOW INDEXES`` — tells a new process whether it can skip the schema step. Another version, a missing node,
or one of kgmem's indexes missing, not ONLINE or of another definition makes it apply the schema again.
"""

from __future__ import annotations

import hashlib
import time
from functools import lru_cache

from ..errors import SchemaError
from . import cypher
from .session import Store

# the indexes and constraints kgmem creates (the constraints' backing indexes carry the same names), with
# the properties each covers: an index found under one of these names with other properties (an older
# definition) is dropped and created again
EXPECTED_PROPERTIES = {
    "memory_key": ["tenant", "id"],
    "entity_key": ["tenant", "key"],
    "tombstone_key": ["tenant", "id"],
    "memory_embedding": ["embedding"],
    "memory_text": ["text"],
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
    "memory_context_embedding": ["context_embedding"],
    "memory_wide_embedding": ["wide_embedding"],
    "memory_context_text": ["context_text"],
    "memory_window_text": ["window_text"],
}
EXPECTED = tuple(EXPECTED_PROPERTIES)
CONSTRAINTS = {"memory_key", "entity_key", "tombstone_key"}


def schema_statements() -> list[str]:
    return [n for n in cypher.names() if n.startswith("schema/")]


@lru_cache(maxsize=1)
def version() -> str:
    """The schema version: kgmem's version + every ``cypher/schema`` file's name and text + the expected
    index definitions, hashed (``<kgmem version>+<12 hex digits>``)."""
    from .. import __version__

    digest = hashlib.sha256(f"kgmem={__version__}\n".encode())
    for name in schema_statements():
        digest.update(f"{name}\n{cypher.load(name).text}\n".encode())
    digest.update(repr(sorted(EXPECTED_PROPERTIES.items())).encode())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def indexes_ok(rows: list[dict]) -> bool:
    """Every kgmem index is there, ONLINE and of the expected definition (``admin/index_states`` rows)."""
    ours = {r["name"]: r for r in rows if r["name"] in EXPECTED_PROPERTIES}
    return all(
        n in ours
        and ours[n]["state"] == "ONLINE"
        and (n in CONSTRAINTS or ours[n]["properties"] == EXPECTED_PROPERTIES[n])
        for n in EXPECTED
    )


def is_current(store: Store) -> bool:
    """True when this database has kgmem's schema of :func:`version` and all its indexes ONLINE (two reads)."""
    rows = store.read("admin/schema_version", version=version())
    if not rows or not rows[0]["applied"]:
        return False
    return indexes_ok(store.read("admin/index_states"))


def record(store: Store) -> None:
    from .. import __version__

    store.write(
        "admin/schema_version_set", version=version(), kgmem_version=__version__, schema_files=len(schema_statements())
    )


def apply(store: Store, *, timeout: float = 300.0) -> list[dict]:
    """Create what is missing, then block until all kgmem indexes are ONLINE. Returns the index list."""
    stale = [
        r["name"]
        for r in store.read("admin/index_states")
        if r["name"] in EXPECTED_PROPERTIES
        and r["name"] not in CONSTRAINTS
        and r["properties"] != EXPECTED_PROPERTIES[r["name"]]
    ]
    for name in stale:  # an index kept under its name from an older definition
        store.auto_commit("admin/drop_stale_index", index_name=name)
    for name in schema_statements():
        store.auto_commit(name)
    indexes = wait_online(store, timeout=timeout)
    record(store)
    return indexes


def wait_online(store: Store, *, timeout: float = 300.0) -> list[dict]:
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
            raise SchemaError(f"indexes not ONLINE after {timeout:.0f}s: missing {missing}, pending {pending}")
        time.sleep(0.2)

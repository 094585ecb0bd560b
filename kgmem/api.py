"""``MemoryGraph``: the Python face of kgmem (the CLI is the other face over the same methods)."""

from __future__ import annotations

import threading
from typing import Any

from .config import DEFAULT_TENANT, resolve_connection
from .store import Store, schema


class MemoryGraph:
    """A knowledge-graph memory for one tenant on one Neo4j database.

    >>> with MemoryGraph.from_env(tenant="demo") as mg:   # doctest: +SKIP
    ...     mg.remember("I like diet coke", at="2026-01-05")
    """

    def __init__(
        self,
        uri: str | None = None,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        tenant: str = DEFAULT_TENANT,
        *,
        store: Store | None = None,
    ):
        if not isinstance(tenant, str) or not tenant.strip():
            from .errors import InputError

            raise InputError("tenant must be a non-empty string", field="tenant")
        user, password = auth if auth else (None, None)
        self.tenant = tenant
        self._owns_store = store is None
        self.store = store or Store(resolve_connection(uri, user, password, database))
        self._schema_ready = False
        self._schema_lock = threading.Lock()

    @classmethod
    def from_env(cls, tenant: str = DEFAULT_TENANT, **kwargs: Any) -> "MemoryGraph":
        """Connect with NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD / NEO4J_DATABASE (else the local server)."""
        return cls(tenant=tenant, **kwargs)

    def for_tenant(self, tenant: str) -> "MemoryGraph":
        """Another tenant's view over the same connection (the connection is shared, not re-opened)."""
        other = MemoryGraph(tenant=tenant, store=self.store)
        other._schema_ready = self._schema_ready
        return other

    # ------------------------------------------------------------------ schema

    def init(self) -> list[dict]:
        """Create constraints and indexes (idempotent) and wait until they are ONLINE."""
        with self._schema_lock:
            indexes = schema.apply(self.store)
            self._schema_ready = True
        return indexes

    def _ready(self) -> None:
        if not self._schema_ready:
            self.init()

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> "MemoryGraph":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

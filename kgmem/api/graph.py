"""``MemoryGraph``: the Python face of kgmem (the CLI and the MCP server are the other two, over the same
methods). The class is put together from one part per concern, each in its own module:

- :class:`~kgmem.api.base.GraphBase` — the connection, the tenant, the model, the schema;
- :class:`~kgmem.api.writing.Writing` — ``ingest``, ``remember``, ``infer_causes``;
- :class:`~kgmem.api.reading.Reading` — ``get``, ``recall``, ``why``, ``timeline``, ``ask``;
- :class:`~kgmem.api.facts.Facts` — ``now``, ``as_of``, ``history``, ``changes``;
- :class:`~kgmem.api.lifecycle.Lifecycle` — ``forget``, ``gc``, ``consolidate``, export/import, ``rebuild``.

Every method checks its arguments once (:mod:`kgmem.validate`) before it touches the database. The layers a
method needs (the write path, the derived layer, the ranked reads) are imported inside it: importing kgmem
costs a command only what it uses (``tests/integration/test_cli_speed.py`` holds that to account).
"""

from __future__ import annotations

from typing import Any

from ..config import DEFAULT_TENANT
from .facts import Facts
from .lifecycle import Lifecycle
from .reading import Reading
from .writing import Writing


class MemoryGraph(Writing, Reading, Facts, Lifecycle):
    """A knowledge-graph memory for one tenant on one Neo4j database.

    >>> with MemoryGraph.from_env(tenant="demo") as mg:   # doctest: +SKIP
    ...     mg.remember("I like diet coke", at="2026-01-05")
    """

    @classmethod
    def from_env(cls, tenant: str = DEFAULT_TENANT, **kwargs: Any) -> MemoryGraph:
        """Connect with NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD / NEO4J_DATABASE (else the local server)."""
        return cls(tenant=tenant, **kwargs)

    @classmethod
    def connect(
        cls,
        uri: str | None = None,
        username: str | None = None,
        password: str | None = None,
        database: str | None = None,
        tenant: str = DEFAULT_TENANT,
        **kwargs: Any,
    ) -> MemoryGraph:
        """Open a graph and check at once that its database answers (the CLI and the MCP server connect so):
        an unreachable server raises :class:`~kgmem.errors.DatabaseUnavailable` now, not on a later retry.
        ``username``/``password``: the Neo4j login (``user`` elsewhere in the API is a memory's owner; the
        keyword ``user=`` is still taken here as the login, with a DeprecationWarning)."""
        if "user" in kwargs:
            import warnings

            warnings.warn(
                "MemoryGraph.connect(user=...) is the Neo4j login: write username=...",
                DeprecationWarning,
                stacklevel=2,
            )
            username = username or kwargs.pop("user")
        auth = (username, password) if (username or password) else None
        mg = cls(uri, auth=auth, database=database, tenant=tenant, **kwargs)
        try:
            mg.verify()
        except BaseException:
            mg.close()
            raise
        return mg

    def for_tenant(self, tenant: str) -> MemoryGraph:
        """Another tenant's view over the same connection (the connection is shared, not re-opened)."""
        other = MemoryGraph(tenant=tenant, store=self.store, embedder=self._embedder, vocabulary=self.vocabulary)
        other._schema_ready = self._schema_ready
        return other

    def __enter__(self) -> MemoryGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

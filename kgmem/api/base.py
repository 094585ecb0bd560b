"""What every part of :class:`~kgmem.api.MemoryGraph` stands on: the connection, the tenant, the model, the
vocabulary, and the schema check before the first statement."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..config import DEFAULT_TENANT, resolve_connection
from ..embed import MODEL_ID, Embedder, get_embedder, prefetch
from ..errors import InputError, NotFoundError
from ..onnx_embed import stderr_note
from ..query import own_keywords
from ..store import Store, schema
from ..store.model_check import check_stored
from ..vocab import Vocabulary

if TYPE_CHECKING:
    from ..config import Connection
    from ..store.cypher import Query


MIN_CLEANUP_PREFIX = 3


class GraphBase:
    """The connection and the schema: one tenant on one Neo4j database."""

    def __init__(
        self,
        uri: str | None = None,
        auth: tuple[str | None, str | None] | None = None,
        database: str | None = None,
        tenant: str = DEFAULT_TENANT,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        vocabulary: Vocabulary | None = None,
    ):
        if not isinstance(tenant, str) or not tenant.strip():
            raise InputError(
                "tenant must be a non-empty string", field="tenant", fix='name the tenant, e.g. tenant="agent-1"'
            )
        user, password = auth if auth else (None, None)
        self.tenant = tenant
        self._owns_store = store is None
        self.store = store or Store(resolve_connection(uri, user, password, database))
        self._schema_ready = False
        self._model_checked = False
        self._schema_lock = threading.Lock()
        self._embedder = embedder
        self.vocabulary = vocabulary or Vocabulary.load()

    @property
    def embedder(self) -> Embedder:
        """The process-wide all-MiniLM-L6-v2 embedder (loaded on first use)."""
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    def _prefetch_embedder(self) -> None:
        """Start loading the shared embedding model in the background when this graph has none yet, for a
        method that embeds: it loads while the method's first statements wait for Neo4j (the schema and model
        checks), and :attr:`embedder` then waits for it (:func:`kgmem.embed.prefetch`)."""
        if self._embedder is None:
            prefetch()

    # ------------------------------------------------------------------ the connection and the statements

    def verify(self) -> dict[str, Any]:
        """Check now that the database answers (raises :class:`DatabaseUnavailable` at once if it does not):
        {address, agent, protocol}."""
        return self.store.verify()

    def server_components(self) -> list[dict[str, Any]]:
        """The Neo4j server's components: [{name, version, edition}]."""
        return self.store.read("admin/server_components")

    @property
    def connection(self) -> Connection:
        """Where this graph is: uri, database, and where the settings came from (``origin``)."""
        return self.store.connection

    @staticmethod
    def statements() -> list[Query]:
        """Every Cypher statement kgmem runs (``cypher/``), as :class:`kgmem.store.cypher.Query` objects."""
        from ..store import cypher

        return cypher.all_queries()

    @staticmethod
    def tenant_scope(tenant: str) -> str:
        """The Lucene clause recall's keyword channels require for ``tenant`` (their ``$tenant_scope``
        parameter; :func:`kgmem.query.lucene.tenant_scope`)."""
        from ..query.lucene import tenant_scope

        return tenant_scope(tenant)

    @staticmethod
    def statement(name: str) -> Query:
        """One statement of ``cypher/`` by name (``"why/roots"``); :class:`NotFoundError` for an unknown one."""
        from ..store import cypher

        try:
            return cypher.load(name)
        except KeyError:
            raise NotFoundError(
                f"no Cypher statement named '{name}'", fix="run `kgmem cypher --list` for the names"
            ) from None

    # ------------------------------------------------------------------ schema

    def init(self, *, rebuild_indexes: bool = False, prepare_model: bool = False) -> list[dict[str, Any]]:
        """Create constraints and indexes (idempotent), wait until they are ONLINE, and record the schema
        version in the database (so later processes skip this step: see :mod:`kgmem.store.schema`).

        ``rebuild_indexes`` first drops the vector and fulltext indexes over memories and builds them again
        from the stored properties (they are derived; HNSW search slows down after many deletions).
        ``prepare_model`` also loads the embedding model (building it first, once per install) while the
        schema is created and the indexes come ONLINE; :attr:`embedder` is then ready."""
        if prepare_model:
            self.verify()  # Neo4j down: fail now, without starting the model's load
            self._prefetch_embedder()
        with self._schema_lock:
            if rebuild_indexes:
                self.store.auto_commit("admin/drop_vector_index")
                self.store.auto_commit("admin/drop_text_index")
            indexes = schema.apply(self.store)
            self._schema_ready = True
        if prepare_model:
            self.embedder  # noqa: B018 - waits for the load (and raises what it raised)
        return indexes

    def _ready(self, *, model: bool = True) -> tuple[int, Any] | None:
        """Before the first read or write of a connection: one statement (``admin/setup``: the server, the
        recorded schema version, the tenant's stored model and version) and the index states, instead of every
        CREATE ... IF NOT EXISTS; a new version, a missing record or a missing index applies the schema. Returns
        the tenant's version when this call read it (recall's keyword statistics then need not read it again),
        else None."""
        fresh: tuple[int, Any] | None = None
        if not self._schema_ready or (model and not self._model_checked):
            with self._schema_lock:
                if not self._schema_ready or (model and not self._model_checked):
                    got = schema.setup(self.store, self.tenant, own_keywords.SMALL_TENANT)
                    fresh = got.tenant_version
                    if got.current:
                        self._schema_ready = True
                    # vectors of two models are not comparable: refuse, say to rebuild. Slot reads (now, as-of,
                    # history, changes) compare no stored vectors, so they skip this check (model=False)
                    if model:
                        check_stored(got.embedding_model, self.tenant, MODEL_ID)
                        self._model_checked = True
        if not self._schema_ready:
            # once per database and kgmem version, and it waits for the indexes: say so while it runs
            stderr_note(
                "kgmem: creating the schema (constraints and indexes) in this database, once per database "
                "and kgmem version (`kgmem init` does it up front); waiting until the indexes are ONLINE…"
            )
            self.init()
        return fresh

    def empty_tenant_hint(self) -> str | None:
        """The hint an empty answer carries when this graph's tenant holds no memory at all (a misspelt
        ``--tenant``/``KGMEM_TENANT``, or nothing ingested yet); None when it holds any. One index seek."""
        if self.store.read("memory/tenant_has_any", tenant=self.tenant)[0]["has_any"]:
            return None
        return f"tenant '{self.tenant}' has no memories (check --tenant or KGMEM_TENANT)"

    # ------------------------------------------------------------------ administration

    def cleanup(self, prefix: str, *, dry_run: bool = False) -> dict[str, Any]:
        """Delete every tenant whose name starts with ``prefix`` (what interrupted test or benchmark runs left
        behind: ``test-``, ``bench-``): ``{"prefix", "tenants": [{"tenant", "nodes"}], "deleted"}``.
        ``dry_run`` only lists them. An administrator's command, across tenants by design; the prefix must be
        at least 3 characters and may not name this graph's own tenant."""
        from ..validate import check_string

        check_string(prefix, field="prefix", max_len=200)
        if len(prefix) < MIN_CLEANUP_PREFIX:
            raise InputError(
                f"is {len(prefix)} characters; a cleanup prefix needs at least {MIN_CLEANUP_PREFIX}",
                field="prefix",
                fix='name the prefix the runs used, e.g. "test-" or "bench-"',
            )
        if self.tenant.startswith(prefix):
            raise InputError(
                f"'{prefix}' would delete this graph's own tenant '{self.tenant}'",
                field="prefix",
                fix="run the cleanup from another tenant (--tenant), or choose a longer prefix",
            )
        tenants = self.store.read("admin/tenants_with_prefix", prefix=prefix)
        deleted = 0
        if not dry_run:
            for row in tenants:
                deleted += self.store.auto_commit("admin/delete_tenant", tenant=row["tenant"])[0]["deleted"]
        return {"prefix": prefix, "tenants": tenants, "deleted": deleted, "dry_run": dry_run}

    # ------------------------------------------------------------------ lifecycle of the object

    def close(self) -> None:
        if self._owns_store:
            self.store.close()

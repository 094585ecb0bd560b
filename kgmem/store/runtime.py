"""What a connection learns while it runs: the read path's per-tenant statistics and its worker threads.

Owned by one :class:`~kgmem.store.Store` (``store.runtime``), so two stores — two databases, or two servers
with a tenant of the same name — never share it, and nothing in :mod:`kgmem.query` keeps state of its own.
Every map is keyed by (database, tenant, ...) and bounded (least recently used entries go first), so a process
that serves many tenants does not grow without end. Tests set it through :meth:`RuntimeState.set_share` and
:meth:`RuntimeState.reset`, never through private dicts.

What is kept (the policy that reads it lives in :mod:`kgmem.query.plan`):

- ``share``: the share of an index channel's candidates that survived the eligibility rule last time, per
  (database, tenant, channel); the next first fetch asks for enough that one round trip usually suffices;
- ``exact_runs``: how many queries of a tenant were answered by the exact scan instead of the index (5.26),
  so that every so often the index is asked again;
- ``corpora``: a small tenant's own keyword statistics at a version (:mod:`kgmem.query.own_keywords`), and
  ``big``: how many queries ago a tenant was found too big for them (counted again every so often);
- ``pool``: the threads that run a recall's channels side by side when they cannot share one statement.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MAX_ENTRIES = 4096  # per map: tenants × channels a long-lived process keeps statistics for
MAX_CORPORA = 64  # small tenants whose keyword statistics a process keeps (each up to a few MB)
POOL_WORKERS = 4


class Bounded(Generic[K, V]):
    """A thread-safe map that keeps at most ``limit`` entries, dropping the least recently used."""

    def __init__(self, limit: int = MAX_ENTRIES) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.limit = limit
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            if key not in self._data:
                return None
            self._data.move_to_end(key)
            return self._data[key]

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.limit:
                self._data.popitem(last=False)

    def drop(self, match: object = None) -> None:
        """Forget every entry (``match`` None) or those whose key's second item is ``match`` (a tenant)."""
        with self._lock:
            if match is None:
                self._data.clear()
                return
            for key in [k for k in self._data if isinstance(k, tuple) and len(k) > 1 and k[1] == match]:
                del self._data[key]

    def drop_key(self, key: K) -> None:
        with self._lock:
            self._data.pop(key, None)

    def __len__(self) -> int:
        return len(self._data)


class RuntimeState:
    """The read path's learnt statistics and worker threads for one database connection."""

    def __init__(self, database: str | None, *, limit: int = MAX_ENTRIES) -> None:
        self.database = database
        self.shares: Bounded[tuple[str | None, str, str], float] = Bounded(limit)
        self.exact: Bounded[tuple[str | None, str], int] = Bounded(limit)
        self.corpora: Bounded[tuple[str | None, str], object] = Bounded(min(limit, MAX_CORPORA))
        self.big: Bounded[tuple[str | None, str], int] = Bounded(limit)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    # ------------------------------------------------------------------ survival shares

    def share(self, tenant: str, channel: str) -> float | None:
        """The learnt survival share of ``channel`` for ``tenant`` (None until a query has measured it)."""
        return self.shares.get((self.database, tenant, channel))

    def set_share(self, tenant: str, channel: str, share: float) -> None:
        """Set a survival share (what a measurement does, and the seam tests use)."""
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"a share is 0 to 1, got {share}")
        self.shares.put((self.database, tenant, channel), share)

    # ------------------------------------------------------------------ exact-scan turns

    def exact_runs(self, tenant: str) -> int:
        """How many exact-scan decisions ``tenant`` has had (read, not counted)."""
        return self.exact.get((self.database, tenant)) or 0

    def exact_turn(self, tenant: str) -> int:
        """Count one more exact-scan decision for ``tenant`` and return the count (1, 2, ...)."""
        key = (self.database, tenant)
        n = (self.exact.get(key) or 0) + 1
        self.exact.put(key, n)
        return n

    # ------------------------------------------------------------------ small tenants' keyword statistics

    def corpus(self, tenant: str) -> object | None:
        """The keyword statistics kept for ``tenant`` (a :class:`kgmem.query.own_keywords.Corpus`), if any."""
        return self.corpora.get((self.database, tenant))

    def keep_corpus(self, tenant: str, corpus: object) -> None:
        self.corpora.put((self.database, tenant), corpus)

    def big_tenant(self, tenant: str) -> int | None:
        """How many queries ago ``tenant`` was last counted and found too big (None: not known to be big)."""
        return self.big.get((self.database, tenant))

    def note_big_tenant(self, tenant: str) -> None:
        key = (self.database, tenant)
        self.big.put(key, (self.big.get(key) or 0) + 1)
        self.corpora.drop_key(key)

    def forget_big_tenant(self, tenant: str) -> None:
        self.big.drop_key((self.database, tenant))

    def reset(self, tenant: str | None = None) -> None:
        """Forget what was learnt about ``tenant`` (or about every tenant)."""
        self.shares.drop(tenant)
        self.exact.drop(tenant)
        self.corpora.drop(tenant)
        self.big.drop(tenant)

    # ------------------------------------------------------------------ worker threads

    @property
    def pool(self) -> ThreadPoolExecutor:
        """Threads for a query's side-by-side statements (started on first use, stopped by :meth:`close`)."""
        if self._pool is None:
            with self._pool_lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=POOL_WORKERS, thread_name_prefix="kgmem-query")
        return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

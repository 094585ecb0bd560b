"""What the read path learns about each tenant while a connection runs — the query layer's own state, attached
to the connection (``store.runtime.attached``: one per :class:`~kgmem.store.Store`, so two stores — two
databases, or two servers with a tenant of the same name — never share it; nothing is kept at module level).
Every map is bounded (least recently used entries go first), so a process that serves many tenants does not
grow without end. Tests set it through :meth:`TenantStats.set_share` and :meth:`TenantStats.reset`.

- ``shares``: the share of an index channel's candidates that survived the eligibility rule last time, per
  (tenant, channel); the planner's first fetch asks for enough that one round trip usually suffices
  (:func:`kgmem.query.plan.first_fetch`);
- ``exact``: how many exact-scan decisions a tenant had (5.26), so that every so often the index is asked again;
- ``corpora``: a small tenant's own keyword statistics, each at the tenant's version it was built at (a newer
  version rebuilds them: :func:`kgmem.query.own_keywords.corpus`), and ``big``: how many queries ago a tenant was
  found too big for them (counted again every so often).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Generic, Hashable, TypeVar

if TYPE_CHECKING:
    from ..store import Store
    from .own_keywords import Corpus

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MAX_ENTRIES = 4096  # per map: tenants × channels a long-lived process keeps statistics for
MAX_CORPORA = 64  # small tenants whose keyword statistics a process keeps (each up to a few MB)


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
        """Forget every entry (``match`` None) or those whose key is ``match`` or starts with it (a tenant)."""
        with self._lock:
            if match is None:
                self._data.clear()
                return
            for key in [k for k in self._data if k == match or (isinstance(k, tuple) and k and k[0] == match)]:
                del self._data[key]

    def drop_key(self, key: K) -> None:
        with self._lock:
            self._data.pop(key, None)

    def __len__(self) -> int:
        return len(self._data)


class TenantStats:
    """The read path's learnt statistics for one connection, per tenant."""

    def __init__(self, *, limit: int = MAX_ENTRIES) -> None:
        self.shares: Bounded[tuple[str, str], float] = Bounded(limit)
        self.exact: Bounded[str, int] = Bounded(limit)
        self.corpora: Bounded[str, Corpus] = Bounded(min(limit, MAX_CORPORA))
        self.big: Bounded[str, int] = Bounded(limit)

    @classmethod
    def of(cls, store: Store) -> TenantStats:
        """The statistics of ``store``'s connection."""
        return store.runtime.attached(cls)

    # ------------------------------------------------------------------ survival shares

    def share(self, tenant: str, channel: str) -> float | None:
        """The learnt survival share of ``channel`` for ``tenant`` (None until a query has measured it)."""
        return self.shares.get((tenant, channel))

    def set_share(self, tenant: str, channel: str, share: float) -> None:
        """Set a survival share (what a measurement does, and the seam tests use)."""
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"a share is 0 to 1, got {share}")
        self.shares.put((tenant, channel), share)

    # ------------------------------------------------------------------ exact-scan turns

    def exact_runs(self, tenant: str) -> int:
        """How many exact-scan decisions ``tenant`` has had (read, not counted)."""
        return self.exact.get(tenant) or 0

    def exact_turn(self, tenant: str) -> int:
        """Count one more exact-scan decision for ``tenant`` and return the count (1, 2, ...)."""
        n = self.exact_runs(tenant) + 1
        self.exact.put(tenant, n)
        return n

    # ------------------------------------------------------------------ small tenants' keyword statistics

    def corpus(self, tenant: str) -> Corpus | None:
        """The keyword statistics kept for ``tenant`` (at the version they were built at), if any."""
        return self.corpora.get(tenant)

    def keep_corpus(self, tenant: str, corpus: Corpus) -> None:
        self.corpora.put(tenant, corpus)

    def big_tenant(self, tenant: str) -> int | None:
        """How many queries ago ``tenant`` was last counted and found too big (None: not known to be big)."""
        return self.big.get(tenant)

    def note_big_tenant(self, tenant: str) -> None:
        self.big.put(tenant, (self.big.get(tenant) or 0) + 1)
        self.corpora.drop_key(tenant)

    def forget_big_tenant(self, tenant: str) -> None:
        self.big.drop_key(tenant)

    def reset(self, tenant: str | None = None) -> None:
        """Forget what was learnt about ``tenant`` (or about every tenant)."""
        self.shares.drop(tenant)
        self.exact.drop(tenant)
        self.corpora.drop(tenant)
        self.big.drop(tenant)

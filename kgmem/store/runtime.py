"""What a connection keeps while it runs: its worker threads, and what other layers attach to it.

Owned by one :class:`~kgmem.store.Store` (``store.runtime``), so two stores — two databases, or two servers
with a tenant of the same name — never share it. The store knows nothing of what is attached: the read path's
per-tenant statistics (:class:`kgmem.query.learnt.Learnt`) are the query layer's own type, created once per
connection by :meth:`RuntimeState.attached`.

- ``pool``: the threads that run a recall's statements side by side;
- ``attached(cls)``: one ``cls()`` per connection, made on first use (thread-safe).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

POOL_WORKERS = 4


class RuntimeState:
    """A connection's worker threads and the state other layers attach to it."""

    def __init__(self, database: str | None) -> None:
        self.database = database
        self._attached: dict[type[Any], Any] = {}
        self._attached_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def attached(self, cls: type[T]) -> T:
        """The one ``cls()`` of this connection (made on first use)."""
        got = self._attached.get(cls)
        if got is None:
            with self._attached_lock:
                got = self._attached.get(cls)
                if got is None:
                    got = self._attached[cls] = cls()
        out: T = got
        return out

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

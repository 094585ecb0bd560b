"""The ``kgmem`` command line: one click command per API method, over the same core as ``MemoryGraph``.

Exit codes (contract §3): 0 ok, 1 bad input (message on stderr, nothing half-written), 2 usage,
3 database unreachable.
"""

from __future__ import annotations

from .main import cli, main

__all__ = ["main", "cli"]

"""kgmem: a knowledge-graph memory for AI agents, on Neo4j."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import DatabaseError, DatabaseUnavailable, InputError, KgmemError, NotFoundError

if TYPE_CHECKING:
    from .api import MemoryGraph

__all__ = ["MemoryGraph", "KgmemError", "InputError", "NotFoundError", "DatabaseUnavailable", "DatabaseError"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `from kgmem import MemoryGraph` loads the API (and the Neo4j driver) on first use, not on `import kgmem`:
    # the CLI's --help, `kgmem server …` and `kgmem cypher --list` then start without the driver
    if name == "MemoryGraph":
        from .api import MemoryGraph

        return MemoryGraph
    raise AttributeError(f"module 'kgmem' has no attribute {name!r}")

"""kgmem: a knowledge-graph memory for AI agents, on Neo4j."""

from .api import MemoryGraph
from .errors import DatabaseError, DatabaseUnavailable, InputError, KgmemError, NotFoundError

__all__ = ["MemoryGraph", "KgmemError", "InputError", "NotFoundError", "DatabaseUnavailable", "DatabaseError"]
__version__ = "0.1.0"

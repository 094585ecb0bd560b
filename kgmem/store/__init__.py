"""kgmem's storage boundary: the only package that imports the Neo4j driver."""

from .session import Store, Tx, to_python
from . import cypher, schema

__all__ = ["Store", "Tx", "to_python", "cypher", "schema"]

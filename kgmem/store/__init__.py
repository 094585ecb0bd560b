"""kgmem's storage boundary: the only package that imports the Neo4j driver."""

from . import cypher, schema
from .session import Store, Tx, to_python

__all__ = ["Store", "Tx", "to_python", "cypher", "schema"]

"""The Python API: :class:`MemoryGraph` (see :mod:`kgmem.api.graph` for how it is put together)."""

from .graph import MemoryGraph

__all__ = ["MemoryGraph"]

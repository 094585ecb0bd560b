"""Local Neo4j server management (``kgmem server start|stop|status|logs|fetch``)."""

from .local import (
    CURRENT_VERSION,
    LTS_VERSION,
    NEO4J_VERSION,
    ServerSettings,
    env_lines,
    fetch,
    resolve_version,
    start,
    status,
    stop,
    tail_log,
)

__all__ = [
    "CURRENT_VERSION",
    "LTS_VERSION",
    "NEO4J_VERSION",
    "ServerSettings",
    "env_lines",
    "fetch",
    "resolve_version",
    "start",
    "status",
    "stop",
    "tail_log",
]

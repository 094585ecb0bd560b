"""Local Neo4j server management (``kgmem server start|stop|status|logs|fetch``)."""

from .local import NEO4J_VERSION, ServerSettings, env_lines, fetch, start, status, stop, tail_log

__all__ = ["NEO4J_VERSION", "ServerSettings", "env_lines", "fetch", "start", "status", "stop", "tail_log"]

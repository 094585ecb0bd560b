"""kgmem as a Model Context Protocol server (``kgmem mcp``), on the official ``mcp`` Python SDK.

Eleven tools, each calling exactly one :class:`~kgmem.MemoryGraph` method and returning the contract's JSON
(``docs/interface.md`` §3, the same objects ``kgmem ... --json`` prints): ``remember``, ``ingest``,
``recall``, ``why``, ``now``, ``as_of``, ``history``, ``changes``, ``timeline``, ``forget``, ``ask``.

The tenant is fixed when the server is built (``kgmem mcp --tenant`` or ``KGMEM_TENANT``); no tool takes one,
so an agent cannot reach another tenant, and records handed to ``ingest``/``remember`` that name another
tenant are refused by MemoryGraph. kgmem errors become MCP tool errors (``isError``) whose text is the
CLI's one line: ``Error: <message> Fix: <fix>.``

Transports: stdio (the default; what desktop MCP clients spawn) and streamable HTTP (``--http``).

    >>> from kgmem.mcp_server import build_server
    >>> server = build_server(tenant="agent-1")     # connects on the first tool call
    >>> server.run()                                 # stdio
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any, Callable

from .config import DEFAULT_AROUND, DEFAULT_CHANGES, DEFAULT_HITS, DEFAULT_ROOTS
from .errors import KgmemError

TOOLS = ("remember", "ingest", "recall", "why", "now", "as_of", "history", "changes", "timeline", "forget", "ask")

INSTRUCTIONS = (
    "kgmem: a knowledge-graph memory. Store with remember/ingest; read with recall (hybrid search that may "
    "abstain), why (causes of something remembered), now/as_of/history (a fact's value now, at a time, over "
    "time), changes (fact versions since a time), timeline (what happened around a memory), ask (plain-words "
    "question routed to the right one). Times are RFC 3339 or dates (2026-03-01). The tenant is fixed by the "
    "server: tenant '{tenant}'."
)


def error_text(exc: KgmemError) -> str:
    """The CLI's one-line error (``Error: ... Fix: ....``) for a kgmem error."""
    fix = f" Fix: {exc.fix}." if exc.fix else ""
    return f"Error: {' '.join(exc.message.split())}{fix}"


def _plain(value: Any) -> Any:
    """JSON-ready: datetimes as RFC 3339 (as the CLI prints them), tuples as lists."""
    from .results import iso

    if isinstance(value, dt.datetime):
        return iso(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class GraphHolder:
    """One MemoryGraph for the server's tenant, opened on first use (a database that is down at start-up is
    reported by the first tool call, and a later call tries again). Calls are serialised."""

    def __init__(
        self,
        tenant: str,
        *,
        uri: str | None = None,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        factory: Callable[[], Any] | None = None,
    ):
        self.tenant = tenant
        self._factory = factory or (lambda: self._open(uri, user, password, database))
        self._graph: Any = None
        self._lock = threading.Lock()

    def _open(self, uri, user, password, database):
        from .api import MemoryGraph

        return MemoryGraph.connect(uri, user, password, database, self.tenant)  # DatabaseUnavailable at once

    def call(self, fn: Callable[[Any], Any]) -> Any:
        from mcp.server.mcpserver.exceptions import ToolError

        with self._lock:
            try:
                if self._graph is None:
                    self._graph = self._factory()
                return _plain(fn(self._graph))
            except KgmemError as exc:
                if exc.exit_code == 3 and self._graph is not None:  # unreachable now: reconnect next time
                    self.close()
                raise ToolError(error_text(exc)) from exc

    def close(self) -> None:
        if self._graph is not None:
            try:
                self._graph.close()
            finally:
                self._graph = None


def build_server(
    tenant: str,
    *,
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    graph_factory: Callable[[], Any] | None = None,
):
    """The MCP server for one tenant. ``graph_factory`` (tests) returns a ready MemoryGraph."""
    from mcp.server.mcpserver import MCPServer

    from . import __version__

    holder = GraphHolder(tenant, uri=uri, user=user, password=password, database=database, factory=graph_factory)
    server = MCPServer("kgmem", instructions=INSTRUCTIONS.format(tenant=tenant), version=__version__)
    server.kgmem_graph = holder  # type: ignore[attr-defined]  # for kgmem mcp to close it

    @server.tool()
    def remember(
        text: str,
        at: str | None = None,
        id: str | None = None,
        kind: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        polarity: bool | None = None,
        entities: list[str] | None = None,
        caused_by: list[str] | None = None,
        stream: str | None = None,
        source: str | None = None,
        confidence: float | None = None,
        user: str | None = None,
    ) -> dict[str, Any]:
        """Store one memory (an episode, or a fact with subject/predicate/object) and return it.

        at: when it happened (RFC 3339 or a date; default now). polarity false: the fact is negated.
        caused_by: ids of memories that caused it. stream: the conversation/channel it belongs to."""
        fields = dict(
            at=at,
            id=id,
            kind=kind,
            subject=subject,
            predicate=predicate,
            object=object,
            polarity=polarity,
            entities=entities,
            caused_by=caused_by,
            stream=stream,
            source=source,
            confidence=confidence,
            user=user,
        )
        return holder.call(lambda mg: mg.remember(text, **fields).to_dict())

    @server.tool()
    def ingest(records: list[dict[str, Any]]) -> dict[str, Any]:
        """Store many memory records (the JSONL record format: text, id, at, kind, subject/predicate/object,
        polarity, entities, caused_by, stream, source, confidence, user). Bad records are reported in
        'errors' with their line (1-based position) and the rest still land. Returns the ingest report."""
        return holder.call(lambda mg: mg.ingest(records).to_dict())

    @server.tool()
    def recall(
        query: str,
        k: int = DEFAULT_HITS,
        at: str | None = None,
        include_superseded: bool = False,
        user: str | None = None,
    ) -> dict[str, Any]:
        """Hybrid recall (vector + keyword + entity, fused): the k best memories for the query, or an honest
        abstention ('abstained': true with a reason). at: answer as of that time."""
        return holder.call(
            lambda mg: mg.recall(query, k=k, at=at, include_superseded=include_superseded, user=user).to_dict()
        )

    @server.tool()
    def why(query: str, k: int = DEFAULT_ROOTS, at: str | None = None) -> dict[str, Any]:
        """Why did something happen: find the remembered symptom and walk its causes to the root causes
        (roots best first, with the paths). Abstains when nothing matches or no cause is recorded."""
        return holder.call(lambda mg: mg.why(query, k=k, at=at).to_dict())

    @server.tool()
    def now(subject: str, predicate: str, object: str | None = None) -> dict[str, Any]:
        """The current value of a fact slot, e.g. now("maya", "lives_in"); value null when nothing is recorded.
        Give object for a multi-valued predicate such as likes."""
        return holder.call(lambda mg: mg.now_answer(subject, predicate, object).to_dict())

    @server.tool()
    def as_of(subject: str, predicate: str, at: str, object: str | None = None) -> dict[str, Any]:
        """The value a fact slot had at a time (RFC 3339 or a date)."""
        return holder.call(lambda mg: mg.as_of_answer(subject, predicate, at, object).to_dict())

    @server.tool()
    def history(subject: str, predicate: str, object: str | None = None) -> dict[str, Any]:
        """Every version of a fact slot, oldest first, each with valid_from/valid_to and current."""
        return holder.call(lambda mg: mg.history_answer(subject, predicate, object).to_dict())

    @server.tool()
    def changes(since: str, limit: int = DEFAULT_CHANGES) -> dict[str, Any]:
        """Fact versions that took effect or were recorded since a time, newest first."""
        return holder.call(lambda mg: {"since": since, "changes": mg.changes(since, limit=limit)})

    @server.tool()
    def timeline(id: str, before: int = DEFAULT_AROUND, after: int = DEFAULT_AROUND) -> dict[str, Any]:
        """What happened before and after a memory (its stream, else nearest in time)."""
        return holder.call(lambda mg: {"id": id, "items": mg.timeline(id, before=before, after=after)})

    @server.tool()
    def forget(id: str) -> dict[str, Any]:
        """Forget a memory and what was derived from it (compiled facts go, summaries are re-derived); a
        content-free tombstone stays."""
        return holder.call(lambda mg: mg.forget(id))

    @server.tool()
    def ask(question: str, now: str | None = None, user: str | None = None) -> dict[str, Any]:
        """Ask in plain words: a learned router picks now / as_of / history / recall / why (or none, for a
        question that is not about the memory) and answers with it. now: reference time for 'last week'."""
        return holder.call(lambda mg: mg.ask(question, now=now, user=user).to_dict())

    return server


def serve(
    tenant: str, *, http: bool = False, host: str = "127.0.0.1", port: int = 8765, path: str = "/mcp", **connection: Any
) -> None:
    """Run the server until the client disconnects (stdio) or the process is stopped (HTTP)."""
    server = build_server(tenant, **connection)
    try:
        if http:
            server.run("streamable-http", host=host, port=port, streamable_http_path=path)
        else:
            server.run()
    finally:
        server.kgmem_graph.close()

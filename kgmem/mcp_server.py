"""kgmem as a Model Context Protocol server (``kgmem mcp``), on the official ``mcp`` Python SDK.

Thirteen tools, each calling exactly one :class:`~kgmem.MemoryGraph` method and returning the contract's JSON
(``docs/interface.md`` §3 and §4, the same objects ``kgmem ... --json`` prints): ``remember``, ``ingest``,
``ingest_document``,
``recall``, ``why``, ``now``, ``as_of``, ``history``, ``changes``, ``timeline``, ``forget``, ``ask``, and
``vocabulary`` (the predicates facts are stored under, with their aliases and cardinality). Every argument is
described in the tools' input schemas (:mod:`kgmem.mcp_args`), ``ingest`` publishes the JSON schema of a
record, and each tool carries annotations (read-only, destructive, idempotent).

The tenant is fixed when the server is built (``kgmem mcp --tenant`` or ``KGMEM_TENANT``); no tool takes one
and an argument a tool does not take is refused by name, so an agent cannot reach another tenant; records
handed to ``ingest``/``remember`` that name another tenant are refused by MemoryGraph. kgmem errors and wrong
arguments become MCP tool errors (``isError``) whose text is the CLI's one line: ``Error: <message> Fix:
<fix>.``

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
from .mcp_args import (
    FORGET,
    READ,
    WRITE,
    After,
    AskNow,
    AsOf,
    Before,
    CausedBy,
    CausesBy,
    Confidence,
    DocumentFormat,
    DocumentName,
    DocumentText,
    Entities,
    FactObject,
    FactPredicate,
    FactSubject,
    Hits,
    IncludeSuperseded,
    Kind,
    Limit,
    Match,
    MemoryId,
    Polarity,
    Predicate,
    Query,
    Question,
    RecordAt,
    RecordId,
    Records,
    RecordUser,
    Roots,
    Since,
    SlotObject,
    Source,
    Stream,
    Subject,
    Symptom,
    Text,
    UserScope,
    When,
    error_text,
    strict_tool,
)

TOOLS = (
    "remember",
    "ingest",
    "ingest_document",
    "recall",
    "why",
    "now",
    "as_of",
    "history",
    "changes",
    "timeline",
    "forget",
    "ask",
    "vocabulary",
)

INSTRUCTIONS = (
    "kgmem: a knowledge-graph memory. Store with remember/ingest (ingest_document for a whole document); read with recall (hybrid search that may "
    "abstain), why (causes of something remembered), now/as_of/history (a fact's value now, at a time, over "
    "time; an empty answer carries a hint), changes (what changed since a time), timeline (what happened "
    "around a memory), ask (plain-words question routed to the right one); vocabulary lists the predicates "
    "facts are stored under. Times are RFC 3339 or dates (2026-03-01). The tenant is fixed by the server: "
    "tenant '{tenant}'."
)

__all__ = ["TOOLS", "GraphHolder", "build_server", "error_text", "serve"]


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
    from mcp.server.mcpserver.tools import Tool

    from . import __version__

    holder = GraphHolder(tenant, uri=uri, user=user, password=password, database=database, factory=graph_factory)
    tools: list[Tool] = []

    def tool(annotations: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tools.append(strict_tool(fn, annotations))
            return fn

        return register

    @tool(WRITE)
    def remember(
        text: Text,
        at: RecordAt = None,
        id: RecordId = None,
        kind: Kind = None,
        subject: FactSubject = None,
        predicate: FactPredicate = None,
        object: FactObject = None,
        polarity: Polarity = None,
        entities: Entities = None,
        caused_by: CausedBy = None,
        stream: Stream = None,
        source: Source = None,
        confidence: Confidence = None,
        user: RecordUser = None,
    ) -> dict[str, Any]:
        """Store one memory (an episode, or a fact with subject/predicate/object) and return it. The same
        memory sent again changes nothing."""
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

    @tool(WRITE)
    def ingest(records: Records) -> dict[str, Any]:
        """Store many memory records (the JSONL record format; the records argument's schema lists the fields).
        Bad records are reported in 'errors' with their line (1-based position) and the rest still land.
        Returns the ingest report."""
        return holder.call(lambda mg: mg.ingest(records).to_dict())

    @tool(WRITE)
    def ingest_document(
        text: DocumentText, name: DocumentName, format: DocumentFormat = "markdown", user: RecordUser = None
    ) -> dict[str, Any]:
        """Store a whole document (notes, minutes, a markdown file): one document memory and its passages, each
        with its position, in the document's stream; forgetting the document's id forgets every passage. Returns
        the ingest report; its 'file' holds the document's id, title and number of parts."""
        return holder.call(lambda mg: mg.ingest_document(text, name=name, format=format, user=user).to_dict())

    @tool(READ)
    def recall(
        query: Query,
        k: Hits = DEFAULT_HITS,
        at: AsOf = None,
        include_superseded: IncludeSuperseded = False,
        user: UserScope = None,
    ) -> dict[str, Any]:
        """Hybrid recall (vector + keyword + entity, fused): the k best memories for the query, with 'confidence'
        (the probability that the best one answers it). Below 0.5 it abstains ('abstained': true) and says which
        kind of no in 'decline': 'topic_absent' (nothing about the topic), 'other_subject' (the memories say it
        of someone else: relay that premise check), 'low_confidence' or 'no_match'; the hits come either way."""
        return holder.call(
            lambda mg: mg.recall(query, k=k, at=at, include_superseded=include_superseded, user=user).to_dict()
        )

    @tool(READ)
    def why(query: Symptom, k: Roots = DEFAULT_ROOTS, at: CausesBy = None) -> dict[str, Any]:
        """Why did something happen: find the remembered symptom and walk its causes to the root causes
        (roots best first, with the paths). Abstains when nothing matches or no cause is recorded."""
        return holder.call(lambda mg: mg.why(query, k=k, at=at).to_dict())

    @tool(READ)
    def now(subject: Subject, predicate: Predicate, object: SlotObject = None) -> dict[str, Any]:
        """The current value of a fact slot, e.g. now("maya", "lives_in"). When nothing is recorded, value is
        null and hint says why that may be (an empty tenant, a predicate outside the vocabulary: "did you mean
        lives_in?")."""
        return holder.call(lambda mg: mg.now_answer(subject, predicate, object).to_dict())

    @tool(READ)
    def as_of(subject: Subject, predicate: Predicate, at: When, object: SlotObject = None) -> dict[str, Any]:
        """The value a fact slot had at a time; value null (with a hint) when nothing held then."""
        return holder.call(lambda mg: mg.as_of_answer(subject, predicate, at, object).to_dict())

    @tool(READ)
    def history(subject: Subject, predicate: Predicate, object: SlotObject = None) -> dict[str, Any]:
        """Every version of a fact slot, oldest first, each with valid_from/valid_to and current; no version
        comes with a hint."""
        return holder.call(lambda mg: mg.history_answer(subject, predicate, object).to_dict())

    @tool(READ)
    def changes(since: Since, limit: Limit = DEFAULT_CHANGES) -> dict[str, Any]:
        """What changed since a time (RFC 3339, a date, or a phrase like "April 15"), in valid time, newest
        first: fact versions that took effect and memories that retired an earlier one."""
        return holder.call(lambda mg: {"since": since, "changes": mg.changes(since, limit=limit)})

    @tool(READ)
    def timeline(id: MemoryId, before: Before = DEFAULT_AROUND, after: After = DEFAULT_AROUND) -> dict[str, Any]:
        """What happened before and after a memory (its stream, else nearest in time)."""
        return holder.call(lambda mg: {"id": id, "items": mg.timeline(id, before=before, after=after)})

    @tool(FORGET)
    def forget(id: MemoryId) -> dict[str, Any]:
        """Forget a memory and what was derived from it (compiled facts go, summaries are re-derived); a
        content-free tombstone stays."""
        return holder.call(lambda mg: mg.forget(id))

    @tool(READ)
    def ask(question: Question, now: AskNow = None, user: UserScope = None) -> dict[str, Any]:
        """Ask in plain words: a learned router picks now / as_of / history / recall / why (or none, for a
        question that is not about the memory) and answers with it."""
        return holder.call(lambda mg: mg.ask(question, now=now, user=user).to_dict())

    @tool(READ)
    def vocabulary(match: Match = None) -> dict[str, Any]:
        """The predicates facts are stored under: {"version", "predicates": {name: {"aliases", "cardinality",
        "description"}}} (and "negative_aliases", which negate: dislikes = likes with polarity false). An alias
        is stored as its name. Cardinality "one": single-valued, a new value supersedes the old; "many":
        multi-valued, one slot per object (give object to now/as_of/history)."""
        return holder.call(lambda mg: mg.predicates(match))

    server = MCPServer("kgmem", instructions=INSTRUCTIONS.format(tenant=tenant), version=__version__, tools=tools)
    server.kgmem_graph = holder  # type: ignore[attr-defined]  # for kgmem mcp to close it
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

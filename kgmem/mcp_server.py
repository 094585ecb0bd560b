"""kgmem as a Model Context Protocol server (``kgmem mcp``), on the official ``mcp`` Python SDK.

The tools of :data:`TOOLS`, each calling exactly one :class:`~kgmem.MemoryGraph` method and returning the
contract's JSON (``docs/interface.md`` §3 and §4, the same objects ``kgmem ... --json`` prints): ``remember``,
``ingest``, ``ingest_document``, ``recall``, ``why``, ``now``, ``as_of``, ``history``, ``changes``,
``timeline``, ``neighbourhood``, ``mentions``, ``forget``, ``forget_stream``, ``ask``, and ``vocabulary`` (the
predicates facts are stored under, with their aliases and cardinality). Every argument is
described in the tools' input schemas (:mod:`kgmem.mcp_args`), ``ingest`` publishes the JSON schema of a
record, each tool's output schema is the JSON schema of what it returns (:mod:`kgmem.results`), and each tool
carries annotations (read-only, destructive, idempotent).

The tenant is fixed when the server is built (``kgmem mcp --tenant`` or ``KGMEM_TENANT``); no tool takes one
and an argument a tool does not take is refused by name, so an agent cannot reach another tenant; records
handed to ``ingest``/``remember`` that name another tenant are refused by MemoryGraph. kgmem errors and wrong
arguments become MCP tool errors (``isError``) whose text is the CLI's one line: ``Error: <message> Fix:
<fix>.``

Transports: stdio (the default; what desktop MCP clients spawn) and streamable HTTP (``--http``). Over HTTP
every request's Host (and Origin, when sent) must name the address the server binds or a loopback name
(DNS-rebinding protection), and a server bound to anything but a loopback address (``--host 0.0.0.0``) refuses
to start without a bearer token (``--token`` or ``KGMEM_MCP_TOKEN``): every request must then carry
``Authorization: Bearer <token>`` (compared in constant time), else it is answered 401.

    >>> from kgmem.mcp_server import build_server
    >>> server = build_server(tenant="agent-1")     # connects on the first tool call
    >>> server.run()                                 # stdio
"""

from __future__ import annotations

import datetime as dt
import hmac
import inspect
import ipaddress
import socket
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable, cast

from .config import DEFAULT_AROUND, DEFAULT_CHANGES, DEFAULT_HITS, DEFAULT_MENTIONS, DEFAULT_NEIGHBOURS, DEFAULT_ROOTS
from .errors import KgmemError
from .mcp_args import (
    FORGET,
    READ,
    WRITE,
    After,
    AskNow,
    AsOf,
    Before,
    CausesBy,
    DocumentFormat,
    DocumentName,
    DocumentText,
    EntityName,
    Expand,
    Explain,
    Hits,
    IncludeSuperseded,
    Limit,
    Match,
    MemoryId,
    MentionLimit,
    NeighbourLimit,
    Predicate,
    Query,
    Question,
    RecallSince,
    RecallUntil,
    Records,
    RecordUser,
    Roots,
    Since,
    SlotObject,
    StreamName,
    Subject,
    Symptom,
    UserScope,
    When,
    error_text,
    mark_duplicate_keys,
    remember_parameters,
    strict_tool,
    tool_records,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .api import MemoryGraph

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
    "neighbourhood",
    "mentions",
    "forget",
    "forget_stream",
    "ask",
    "vocabulary",
)

INSTRUCTIONS = (
    "kgmem: a knowledge-graph memory. Store with remember/ingest (ingest_document for a whole document); read "
    "with recall (hybrid search that may abstain), why (causes of something remembered), now/as_of/history (a "
    "fact's value now, at a time, over time; an empty answer carries a hint), changes (what changed since a "
    "time), timeline (what happened around a memory), neighbourhood (a memory's causes, effects, what it "
    "replaced and what replaced it, stream neighbours and entities), mentions (the memories that name an "
    "entity), ask (plain-words question routed to the right one); vocabulary lists the predicates facts are "
    "stored under; forget removes a memory (a document with its passages), forget_stream a whole stream. Times "
    "are RFC 3339 or dates (2026-03-01). The tenant is fixed by the server: tenant '{tenant}'."
)

__all__ = ["TOKEN_ENV", "TOOLS", "GraphHolder", "build_server", "error_text", "http_app", "is_loopback", "serve"]

TOKEN_ENV = "KGMEM_MCP_TOKEN"  # the bearer token an HTTP server off loopback requires
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


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

    def _open(self, uri: str | None, user: str | None, password: str | None, database: str | None) -> MemoryGraph:
        from .api import MemoryGraph

        return MemoryGraph.connect(uri, user, password, database, self.tenant)  # DatabaseUnavailable at once

    def call(self, fn: Callable[[Any], Any]) -> dict[str, Any]:
        """``fn(graph)``, a tool's answer (a JSON object), made JSON-ready."""
        from mcp.server.mcpserver.exceptions import ToolError

        with self._lock:
            try:
                if self._graph is None:
                    self._graph = self._factory()
                return cast(dict[str, Any], _plain(fn(self._graph)))
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
) -> MCPServer:
    """The MCP server for one tenant. ``graph_factory`` (tests) returns a ready MemoryGraph."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool

    from . import __version__, results

    holder = GraphHolder(tenant, uri=uri, user=user, password=password, database=database, factory=graph_factory)
    tools: list[Tool] = []

    def tool(annotations: Any, output: dict[str, Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tools.append(strict_tool(fn, annotations, output))
            return fn

        return register

    def remember(**fields: Any) -> dict[str, Any]:
        """Store one memory (an episode, or a fact with subject/predicate/object) and return it. The same
        memory sent again changes nothing."""
        text = fields.pop("text")
        return holder.call(lambda mg: mg.remember(text, **fields).to_dict())

    # its arguments are the record's fields (kgmem.record_spec), as the SDK reads a signature
    remember.__signature__ = inspect.Signature(remember_parameters(), return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    tool(WRITE, results.MEMORY_SCHEMA)(remember)

    @tool(WRITE, results.INGEST_SCHEMA)
    def ingest(records: Records) -> dict[str, Any]:
        """Store many memory records (the JSONL record format; the records argument's schema lists the fields).
        Bad records are reported in 'errors' with their line (1-based position) and the rest still land; a record
        naming another tenant refuses the whole call. Returns the ingest report."""
        return holder.call(lambda mg: mg.ingest(tool_records(records, tenant)).to_dict())

    @tool(WRITE, results.INGEST_SCHEMA)
    def ingest_document(
        text: DocumentText, name: DocumentName, format: DocumentFormat = "markdown", user: RecordUser = None
    ) -> dict[str, Any]:
        """Store a whole document (notes, minutes, a markdown file): one document memory and its passages, each
        with its position, in the document's stream; forgetting the document's id forgets every passage. Returns
        the ingest report; its 'file' holds the document's id, title and number of parts."""
        return holder.call(lambda mg: mg.ingest_document(text, name=name, format=format, user=user).to_dict())

    @tool(READ, results.RECALL_SCHEMA)
    def recall(
        query: Query,
        k: Hits = DEFAULT_HITS,
        at: AsOf = None,
        since: RecallSince = None,
        until: RecallUntil = None,
        now: AskNow = None,
        include_superseded: IncludeSuperseded = False,
        user: UserScope = None,
        expand: Expand = 0,
        explain: Explain = False,
    ) -> dict[str, Any]:
        """Hybrid recall (vector + keyword + entity, fused): the k best memories for the query, with 'confidence'
        (the probability that the best one answers it). Below 0.5 it abstains ('abstained': true) and says which
        kind of no in 'decline': 'topic_absent' (nothing about the topic), 'other_subject' (the memories say it
        of someone else: relay that premise check), 'low_confidence' or 'no_match'; the hits come either way.
        since/until/at are hard filters; a time phrase in the query ("last week") counts from now."""
        options = dict(
            k=k,
            at=at,
            since=since,
            until=until,
            now=now,
            include_superseded=include_superseded,
            user=user,
            expand=expand,
            explain=explain,
        )
        return holder.call(lambda mg: mg.recall(query, **options).to_dict())

    @tool(READ, results.WHY_SCHEMA)
    def why(query: Symptom, k: Roots = DEFAULT_ROOTS, at: CausesBy = None) -> dict[str, Any]:
        """Why did something happen: find the remembered symptom and walk its causes to the root causes
        (roots best first, with the paths). Abstains when nothing matches or no cause is recorded."""
        return holder.call(lambda mg: mg.why(query, k=k, at=at).to_dict())

    @tool(READ, results.SLOT_SCHEMA)
    def now(subject: Subject, predicate: Predicate, object: SlotObject = None) -> dict[str, Any]:
        """The current value of a fact slot, e.g. now("maya", "lives_in"). When nothing is recorded, value is
        null and hint says why that may be (an empty tenant, a predicate outside the vocabulary: "did you mean
        lives_in?")."""
        return holder.call(lambda mg: mg.now_answer(subject, predicate, object).to_dict())

    @tool(READ, results.SLOT_SCHEMA)
    def as_of(subject: Subject, predicate: Predicate, at: When, object: SlotObject = None) -> dict[str, Any]:
        """The value a fact slot had at a time; value null (with a hint) when nothing held then."""
        return holder.call(lambda mg: mg.as_of_answer(subject, predicate, at, object).to_dict())

    @tool(READ, results.HISTORY_SCHEMA)
    def history(subject: Subject, predicate: Predicate, object: SlotObject = None) -> dict[str, Any]:
        """Every version of a fact slot, oldest first, each with valid_from/valid_to and current; no version
        comes with a hint."""
        return holder.call(lambda mg: mg.history_answer(subject, predicate, object).to_dict())

    @tool(READ, results.CHANGES_SCHEMA)
    def changes(since: Since, limit: Limit = DEFAULT_CHANGES) -> dict[str, Any]:
        """What changed since a time (RFC 3339, a date, or a phrase like "April 15"), in valid time, newest
        first: fact versions that took effect and memories that retired an earlier one."""
        return holder.call(lambda mg: {"since": since, "changes": mg.changes(since, limit=limit)})

    @tool(READ, results.TIMELINE_SCHEMA)
    def timeline(id: MemoryId, before: Before = DEFAULT_AROUND, after: After = DEFAULT_AROUND) -> dict[str, Any]:
        """What happened before and after a memory (its stream, else nearest in time)."""
        return holder.call(lambda mg: {"id": id, "items": mg.timeline(id, before=before, after=after)})

    @tool(READ, results.NEIGHBOURHOOD_SCHEMA)
    def neighbourhood(id: MemoryId, limit: NeighbourLimit = DEFAULT_NEIGHBOURS) -> dict[str, Any]:
        """A memory and what is next to it in the graph, in one call: its causes and effects (CAUSED_BY, recorded
        or inferred, with confidence), what it superseded and what superseded it (SUPERSEDES), the memories
        before and after it in its stream (NEXT), the entities it mentions and the document it is a part of."""
        return holder.call(lambda mg: mg.neighbourhood(id, limit=limit).to_dict())

    @tool(READ, results.MENTIONS_SCHEMA)
    def mentions(entity: EntityName, limit: MentionLimit = DEFAULT_MENTIONS) -> dict[str, Any]:
        """The memories that mention an entity (a person, a place, a product...), newest first, with the
        entity's stored name, its aliases and 'total' (how many mention it in all). Nothing mentions it: an
        empty list and a hint."""
        return holder.call(lambda mg: mg.mentions(entity, limit=limit).to_dict())

    @tool(FORGET, results.FORGET_SCHEMA)
    def forget(id: MemoryId) -> dict[str, Any]:
        """Forget a memory and what was derived from it (compiled facts go, summaries are re-derived); a
        content-free tombstone stays. Forgetting a document's id (ingest_document's file.id) forgets its
        passages too."""
        return holder.call(lambda mg: mg.forget(id))

    @tool(FORGET, results.FORGET_STREAM_SCHEMA)
    def forget_stream(stream: StreamName) -> dict[str, Any]:
        """Forget a whole stream (a conversation, a channel, a chat export): every memory whose stream it is, and
        what was derived from them, as forget does for each (a tombstone stays for each). A document's stream
        (its id) takes the document memory along. Returns forget's report with 'stream' and 'document'."""
        return holder.call(lambda mg: mg.forget_stream(stream))

    @tool(READ, results.ASK_SCHEMA)
    def ask(question: Question, now: AskNow = None, user: UserScope = None) -> dict[str, Any]:
        """Ask in plain words: a learned router picks now / as_of / history / recall / why (or none, for a
        question that is not about the memory) and answers with it."""
        return holder.call(lambda mg: mg.ask(question, now=now, user=user).to_dict())

    @tool(READ, results.VOCABULARY_SCHEMA)
    def vocabulary(match: Match = None) -> dict[str, Any]:
        """The predicates facts are stored under: {"version", "predicates": {name: {"aliases", "cardinality",
        "description"}}} (and "negative_aliases", which negate: dislikes = likes with polarity false). An alias
        is stored as its name. Cardinality "one": single-valued, a new value supersedes the old; "many":
        multi-valued, one slot per object (give object to now/as_of/history)."""
        return holder.call(lambda mg: mg.predicates(match))

    server = MCPServer("kgmem", instructions=INSTRUCTIONS.format(tenant=tenant), version=__version__, tools=tools)
    server.kgmem_graph = holder  # type: ignore[attr-defined]  # for kgmem mcp to close it
    return server


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_names(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a request's Host header may give for a server bound to ``host``: the loopback names, the bound
    address itself and, for a wildcard bind (0.0.0.0, ::), this machine's name and addresses; plus ``extra``
    (``--allow-host``: a DNS name the server is reached by)."""
    names = [*_LOOPBACK_NAMES, host.strip().strip("[]"), *extra]
    if host.strip().strip("[]") in ("0.0.0.0", "::", ""):
        hostname = socket.gethostname()
        names += [hostname, socket.getfqdn()]
        try:
            names += [str(info[4][0]) for info in socket.getaddrinfo(hostname, None)]
        except OSError:
            pass
    return list(dict.fromkeys(n for n in names if n and n not in ("0.0.0.0", "::")))


def _security(host: str, extra: Iterable[str] = ()) -> Any:
    """The SDK's Host/Origin check (DNS-rebinding protection) for the names of :func:`_host_names`: the SDK keeps
    it only for a loopback bind, so it is passed for every bind."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts, origins = [], []
    for name in _host_names(host, extra):
        shown = f"[{name}]" if ":" in name else name  # an IPv6 address in a Host header
        hosts += [shown, f"{shown}:*"]
        origins += [f"{scheme}://{shown}{port}" for scheme in ("http", "https") for port in ("", ":*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class BearerAuth:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` is answered 401 (the token
    compared in constant time, :func:`hmac.compare_digest`); lifespan events pass through."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", ()) if k == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                from starlette.responses import PlainTextResponse

                text = (
                    "Error: this kgmem MCP server needs a bearer token. Fix: send the header "
                    "'Authorization: Bearer <token>' with the token the server was started with."
                )
                reply = PlainTextResponse(text, status_code=401, headers={"WWW-Authenticate": "Bearer"})
                await reply(scope, receive, send)
                return
        await self.app(scope, receive, send)


class DuplicateKeys:
    """ASGI middleware: a POSTed JSON-RPC message goes on with its keys given twice marked
    (:func:`~kgmem.mcp_args.mark_duplicate_keys`); a body over ``max_body`` goes on untouched (the SDK refuses
    it)."""

    def __init__(self, app: Any, max_body: int = 4 * 1024 * 1024):
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        messages: list[dict[str, Any]] = []
        body, complete = bytearray(), False
        while len(body) <= self.max_body:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                complete = True
                break
        if complete and len(body) <= self.max_body:
            marked = mark_duplicate_keys(bytes(body))
            if isinstance(marked, bytes):
                messages = [{"type": "http.request", "body": marked, "more_body": False}]
                headers = [(k, v) for k, v in scope.get("headers", ()) if k != b"content-length"]
                scope = {**scope, "headers": [*headers, (b"content-length", str(len(marked)).encode())]}

        async def replay() -> Any:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


class _MarkedLines:
    """stdin's lines for the SDK's stdio transport, each message marked by
    :func:`~kgmem.mcp_args.mark_duplicate_keys` before the SDK parses it."""

    def __init__(self, lines: Any):
        self._lines = lines

    def __aiter__(self) -> Any:
        return self._marked()

    async def _marked(self) -> Any:
        async for line in self._lines:
            marked = mark_duplicate_keys(str(line))
            yield line if not isinstance(marked, str) else marked + "\n"


async def _run_stdio(server: Any) -> None:
    """``server.run()`` over stdio, with stdin read through :class:`_MarkedLines` (the SDK's own run parses each
    line itself, and keeps the last of a key given twice)."""
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs (mcp 2.3)
    stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    async with stdio_server(stdin=_MarkedLines(stdin)) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def check_http_bind(host: str, token: str | None) -> None:
    """Refuse (InputError) to serve HTTP off loopback without a token; any token must be usable as one."""
    from .errors import InputError

    if token is not None and (not token.strip() or any(ord(c) < 33 or ord(c) > 126 for c in token)):
        raise InputError(
            "must be printable ASCII without spaces (it travels in an HTTP header)",
            field="token",
            fix="use a random token, e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))'",
        )
    if token is None and not is_loopback(host):
        raise InputError(
            f"serving HTTP on {host}, which is not a loopback address, without a bearer token would let anyone "
            "who reaches the port read and change the memory",
            field="host",
            fix=f"pass --token TOKEN or set {TOKEN_ENV} (clients then send 'Authorization: Bearer TOKEN'), or bind "
            "--host 127.0.0.1",
        )


def http_app(
    server: Any, *, host: str, path: str = "/mcp", token: str | None = None, allow_hosts: Iterable[str] = ()
) -> Any:
    """The streamable-HTTP ASGI app of ``server`` with the Host/Origin allow-list for ``host`` and, when
    ``token`` is given, the bearer check in front."""
    check_http_bind(host, token)
    app = DuplicateKeys(
        server.streamable_http_app(
            streamable_http_path=path, transport_security=_security(host, allow_hosts), host=host
        )
    )
    return BearerAuth(app, token) if token is not None else app


def serve(
    tenant: str,
    *,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
    path: str = "/mcp",
    token: str | None = None,
    allow_hosts: Iterable[str] = (),
    **connection: Any,
) -> None:
    """Run the server until the client disconnects (stdio) or the process is stopped (HTTP). Over HTTP off
    loopback a ``token`` is required (see the module docstring); a warning goes to stderr."""
    if http:
        check_http_bind(host, token)  # before anything starts
    server = build_server(tenant, **connection)
    try:
        if http:
            import uvicorn

            app = http_app(server, host=host, path=path, token=token, allow_hosts=allow_hosts)
            if not is_loopback(host):
                print(
                    f"kgmem mcp: warning: serving http://{host}:{port}{path} beyond this machine (not a loopback "
                    "address); every request needs the bearer token, and the traffic is not encrypted (put a TLS "
                    "proxy in front, or bind --host 127.0.0.1)",
                    file=sys.stderr,
                    flush=True,
                )
            uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=server.settings.log_level.lower())).run()
        else:
            import anyio

            anyio.run(_run_stdio, server)
    finally:
        server.kgmem_graph.close()  # type: ignore[attr-defined]  # set by build_server

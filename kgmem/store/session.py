"""The only place in kgmem that talks to the Neo4j driver.

:class:`Store` runs the named statements of ``cypher/`` with parameters only, routes reads and writes,
retries transient failures (the driver's managed transactions), turns driver values into plain Python
values, and maps every driver error to a :mod:`kgmem.errors` class exactly once.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import random
import threading
import time
from typing import Any, Callable, Iterator, TypeVar

import neo4j
import numpy as np
from neo4j import GraphDatabase, RoutingControl
from neo4j import exceptions as nx
from neo4j import time as ntime

from ..config import Connection, resolve_connection
from ..errors import DatabaseError, DatabaseUnavailable, InputError, KgmemError
from ..progress import step
from . import cypher
from .capabilities import ServerInfo
from .runtime import RuntimeState

log = logging.getLogger("kgmem.store")
T = TypeVar("T")

_NEO4J_FIX = "retry; if it persists, look at the Neo4j log (kgmem server logs for the local server)"
_UNREACHABLE_FIX = (
    "start the local server with `kgmem server start`, or set NEO4J_URI (and NEO4J_USERNAME/NEO4J_PASSWORD) "
    "to a running Neo4j (2026.x or 5.26)"
)
_POINT_AT_ONE = (
    "set NEO4J_URI, NEO4J_USERNAME and NEO4J_PASSWORD (or --uri, -u, -p) to a running Neo4j (2026.x or 5.26)"
)


def _where(conn: Connection) -> str:
    """The server a connection tried, and why that one: the local server of which home, NEO4J_URI, --uri, or
    the default address because nothing was configured."""
    from ..config import kgmem_home

    if conn.origin == "local-server":
        return f"the local server of {kgmem_home()} at {conn.uri}"
    if conn.origin == "default":
        return f"{conn.uri} (no NEO4J_URI is set and {kgmem_home()} has no local server of its own)"
    if conn.origin == "environment":
        return f"{conn.uri} (NEO4J_URI)"
    return conn.uri


def _unreachable_fix(conn: Connection) -> str:
    from ..config import kgmem_home

    if conn.origin == "local-server":
        return f"start it with `kgmem server start` (KGMEM_HOME={kgmem_home()}), or {_POINT_AT_ONE}"
    if conn.origin == "default":
        return f"start kgmem's own server with `kgmem server start`, or {_POINT_AT_ONE}"
    return _UNREACHABLE_FIX


def _auth_message(conn: Connection, detail: str) -> tuple[str, str]:
    """What a refused login says: for the default address without a login, that kgmem found no server of its
    own there (the server answering is someone else's), not the driver's 'missing key credentials'."""
    if conn.origin == "default" and conn.password is None:
        return (
            f"a Neo4j answers at {_where(conn)} but kgmem has no password for it",
            "set NEO4J_URI, NEO4J_USERNAME and NEO4J_PASSWORD (or --uri, -u, -p) for that server, or start kgmem's "
            "own server on other ports: `kgmem server start --bolt-port 7688 --http-port 7475`",
        )
    if conn.origin == "local-server":
        return (
            f"{_where(conn)} refused the login its home recorded ({detail})",
            "if another server now runs on that port, stop it or move this home's server "
            "(`kgmem server stop`, then `kgmem server start --bolt-port N`); or set NEO4J_URI/NEO4J_PASSWORD",
        )
    return (
        f"Neo4j at {_where(conn)} refused the credentials: {detail}",
        "set NEO4J_PASSWORD (and NEO4J_USERNAME, default neo4j) or -p/--password (and -u/--username) to the right "
        "ones; the local server's are printed by `kgmem server start`",
    )


_UTC = _dt.timezone.utc


_PLAIN = frozenset((str, int, float, bool, type(None)))


def to_python(value: Any) -> Any:
    """Driver values to plain Python: neo4j.time types become datetime/date (UTC), nodes become dicts."""
    kind = type(value)
    if kind in _PLAIN:  # most values of a recall (thousands per query): one set lookup, not five isinstance
        return value
    if kind is list:
        return [v if type(v) in _PLAIN else to_python(v) for v in value]
    if kind is dict:
        return {k: v if type(v) in _PLAIN else to_python(v) for k, v in value.items()}
    if isinstance(value, ntime.DateTime):
        native = value.to_native()
        return native.astimezone(_UTC) if native.tzinfo is not None else native.replace(tzinfo=_UTC)
    if isinstance(value, ntime.Date):
        return value.to_native()
    if isinstance(value, ntime.Duration):
        return value
    if isinstance(value, list):
        return [to_python(v) for v in value]
    if isinstance(value, dict):
        return {k: to_python(v) for k, v in value.items()}
    if isinstance(value, neo4j.graph.Node):
        return {k: to_python(v) for k, v in value.items()}
    return value


class _Quiet(list):  # type: ignore[type-arg]
    """A list parameter whose ``repr`` is its length. The driver (neo4j 6.1, ``_bolt6.run``) formats every RUN
    message's parameters for its debug log before the logger checks its level: the ``repr`` of an ingest batch's
    2,048 vectors of 384 floats cost 0.7 s of Python, holding the GIL the embedder needs, and every recall paid
    for its question vector. It packs like any list; a debug log shows ``<384 values>`` instead of the values
    (which keeps users' texts out of it too)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} values>"


def to_params(value: Any) -> Any:
    """Python values to parameters. Every datetime goes as a UTC offset datetime: Neo4j orders a zone-id
    datetime ("...Z[UTC]", what pytz tzinfo produces) apart from an offset one at the same instant, so a
    range-index seek with ``at < $end`` would let equal instants through. Lists go as :class:`_Quiet` lists."""
    if isinstance(value, _dt.datetime):
        return value.astimezone(_UTC) if value.tzinfo is not None else value.replace(tzinfo=_UTC)
    if isinstance(value, np.ndarray):
        return _Quiet(value.tolist())
    if isinstance(value, (list, tuple)):
        if (
            value
            and isinstance(value[0], (float, int, str))
            and not isinstance(value[0], bool)
            and isinstance(value[-1], (float, int, str))
        ):
            return _Quiet(value)  # a vector or a list of ids: nothing to convert (and 384 floats per memory add up)
        return _Quiet([to_params(v) for v in value])
    if isinstance(value, dict):
        return {k: to_params(v) for k, v in value.items()}
    return value


def _record_dict(record: neo4j.Record) -> dict[str, Any]:
    return {k: to_python(v) for k, v in record.items()}  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def mapped_errors(target: str | Connection) -> Iterator[None]:
    """Translate driver exceptions into kgmem errors (the single mapping point). ``target``: the connection (its
    origin words the messages: which server was tried and how to point at one), or a bare URI."""
    conn = Connection(target, None, None) if isinstance(target, str) else target
    uri, fix = _where(conn), _unreachable_fix(conn)
    try:
        yield
    except KgmemError:
        raise
    except nx.AuthError as e:
        # the database answered: the credentials are bad input (exit 1), not an unreachable database (3)
        message, auth_fix = _auth_message(conn, e.message or str(e))
        raise InputError(message, fix=auth_fix) from e
    except (nx.ServiceUnavailable, nx.SessionExpired) as e:
        raise DatabaseUnavailable(f"Neo4j is not reachable at {uri}", fix=fix) from e
    except nx.ConstraintError as e:
        raise InputError(
            f"the database rejected the write: {e.message}",
            fix="correct the value it names (a key must be unique in its tenant)",
        ) from e
    except nx.ClientError as e:
        code = e.code or ""
        if "Security.AuthenticationRateLimit" in code:
            raise InputError(
                f"Neo4j at {uri} refused the credentials after too many failed logins: {e.message}",
                fix="wait a few seconds, then retry with the right NEO4J_PASSWORD (and NEO4J_USERNAME)",
            ) from e
        if "DatabaseNotFound" in code:
            raise DatabaseUnavailable(
                f"Neo4j at {uri} has no such database: {e.message}", fix="check NEO4J_DATABASE"
            ) from e
        if "Statement.ArgumentError" in code or "Statement.TypeError" in code:
            raise InputError(f"the database rejected a value: {e.message}", fix="correct the value it names") from e
        raise DatabaseError(f"Neo4j error {code}: {e.message}", fix=_NEO4J_FIX) from e
    except nx.Neo4jError as e:
        raise DatabaseError(f"Neo4j error {e.code}: {e.message}", fix=_NEO4J_FIX) from e
    except (nx.DriverError, OSError) as e:
        if isinstance(e, nx.ConfigurationError):
            raise DatabaseUnavailable(f"bad Neo4j connection settings for {uri}: {e}", fix=fix) from e
        raise DatabaseUnavailable(f"Neo4j is not reachable at {uri}: {e}", fix=fix) from e


TRANSIENT_ROUNDS = 4  # rounds of the driver's own retries (max_transaction_retry_time each) on a transient error


def _transient_retry(fn: Callable[[], T]) -> T:
    """Run ``fn`` (a managed transaction, already retried by the driver for max_transaction_retry_time) again
    when it still ends in a transient error: many writers on the same slots and streams can deadlock longer
    than one round of driver retries. An unreachable database is not transient here: it fails at once."""
    for attempt in range(TRANSIENT_ROUNDS):
        try:
            return fn()
        except nx.TransientError:
            if attempt == TRANSIENT_ROUNDS - 1:
                raise
            time.sleep(random.uniform(0.1, 0.5) * (attempt + 1))
        except nx.ClientError as e:
            # the server locks logins for a few seconds after repeated failures (auth_lock_time, 5 s by
            # default), also for a client with the right password: wait it out once or twice, then say so
            if "Security.AuthenticationRateLimit" not in (e.code or "") or attempt == TRANSIENT_ROUNDS - 1:
                raise
            time.sleep(2.5)
    raise AssertionError("unreachable")


class Tx:
    """A transaction handed to :meth:`Store.write_tx` / :meth:`Store.read_tx` callbacks."""

    def __init__(self, tx: neo4j.ManagedTransaction, resolve: Callable[[str], str] = lambda name: name):
        self._tx = tx
        self._resolve = resolve

    def run(self, statement_: str, /, **params: Any) -> list[dict[str, Any]]:
        q = _checked(self._resolve(statement_), params)
        with step(_waiting(q.name)):
            return [_record_dict(r) for r in self._tx.run(q.text, to_params(params))]


def _waiting(name: str) -> str:
    """The progress line of a statement that takes long (kgmem.progress): a statement's first run on a server
    includes Neo4j planning it, seconds for the largest ones on a cold server."""
    return f"waiting for Neo4j ({name})"


def _checked(name: str, params: dict[str, Any]) -> cypher.Query:
    q = cypher.load(name)
    missing = [p for p in q.params if p not in params]
    # a parameter the file declares (:param) but does not use is accepted: a generation's variant takes the
    # same parameters as its base even where it needs fewer (recall/v2026/candidates and $vector_exact)
    declared = {n for n, _ in q.example_params}
    extra = [p for p in params if p not in q.params and p not in declared]
    if missing or extra:
        # a programming error, not a user error: the Python call and the .cypher file disagree
        raise TypeError(f"cypher/{name}.cypher: missing params {missing}, unexpected params {extra}")
    return q


class Store:
    """A connection to one Neo4j database. Thread-safe; share one per process."""

    def __init__(self, connection: Connection, *, max_pool: int = 16, connection_timeout: float = 10):
        self.connection = connection
        self.database = connection.database
        with mapped_errors(connection):
            self._driver = GraphDatabase.driver(
                connection.uri,
                auth=connection.auth,
                max_connection_pool_size=max_pool,
                connection_acquisition_timeout=30,
                connection_timeout=connection_timeout,
                max_transaction_retry_time=8,
                notifications_min_severity="OFF",
            )
        self._server_info: ServerInfo | None = None
        self._server_info_lock = threading.Lock()
        # this connection's worker threads, and what other layers attach to it (the read path's statistics)
        self.runtime = RuntimeState(connection.database)

    @classmethod
    def connect(
        cls, uri: str | None = None, user: str | None = None, password: str | None = None, database: str | None = None
    ) -> Store:
        return cls(resolve_connection(uri, user, password, database))

    # ------------------------------------------------------------------ the server and its generation

    def server_info(self) -> ServerInfo:
        """The server's version and capabilities, read once per connection (``admin/server_components``)."""
        if self._server_info is None:
            with self._server_info_lock:
                if self._server_info is None:
                    with step(f"connecting to Neo4j at {self.connection.uri}"):
                        rows = self._execute("admin/server_components", {}, RoutingControl.READ, resolve=False)
                    self._keep_server_info(rows)
        assert self._server_info is not None
        return self._server_info

    def _keep_server_info(self, components: list[dict[str, Any]]) -> None:
        """Keep the server's components as this connection's :class:`ServerInfo` (the caller holds the lock)."""
        self._server_info = ServerInfo.from_components(components)
        log.debug("server %s: %s", self.connection.uri, self._server_info.to_dict())

    def setup(self, tenant: str, versions: list[str], limit: int) -> dict[str, Any]:
        """``admin/setup``: what a connection reads before its first query of ``tenant``, in one round trip; the
        server's components are kept (:meth:`server_info` then reads them no more)."""
        with step(f"connecting to Neo4j at {self.connection.uri}"):
            rows = self._execute(
                "admin/setup",
                {"tenant": tenant, "versions": versions, "limit": limit},
                RoutingControl.READ,
                resolve=False,
            )
        row = rows[0]
        with self._server_info_lock:
            if self._server_info is None:
                self._keep_server_info(row["components"])
        return row

    def resolve(self, name: str) -> str:
        """The statement that runs for ``name`` on this server: its variant for the server's generation
        (``recall/v2026/vector`` on Neo4j 2026.02+), else ``name`` itself. Detects the server on first need."""
        if name not in cypher.variants():
            return name
        return cypher.variant(name, self.server_info().generation)

    # ------------------------------------------------------------------ running statements

    # The statement is named by ``statement_`` (positional only, trailing underscore as in the driver's own
    # ``execute_query(query_, ...)``), so every other keyword is a query parameter: any ``$name`` is free.

    def read(self, statement_: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run the named statement as a read (routed to a reader on a cluster)."""
        return self._execute(statement_, params, RoutingControl.READ)

    def write(self, statement_: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._execute(statement_, params, RoutingControl.WRITE)

    def _execute(
        self, name: str, params: dict[str, Any], routing: RoutingControl, *, resolve: bool = True
    ) -> list[dict[str, Any]]:
        q = _checked(self.resolve(name) if resolve else name, params)
        with mapped_errors(self.connection), step(_waiting(q.name)):
            if routing == RoutingControl.READ:
                records = _transient_retry(lambda: self._auto_read(q.text, to_params(params)))
            else:
                records = _transient_retry(
                    lambda: (
                        self._driver.execute_query(
                            q.text, to_params(params), routing_=routing, database_=self.database
                        ).records
                    )
                )
        return [_record_dict(r) for r in records]

    def _auto_read(self, text: str, params: dict[str, Any]) -> list[neo4j.Record]:
        """One read statement as an auto-commit transaction in a read session: one round trip (RUN and PULL
        pipelined), where a managed transaction (``execute_query``) waits for its COMMIT too, a second round trip
        that costs a short read nearly half its time on the local server (recall sends three reads). It shares
        ``execute_query``'s bookmark
        manager, so a read still sees every write this driver committed (causal consistency on a cluster);
        transient errors are retried by :func:`_transient_retry` (a read is safe to repeat)."""
        with self._driver.session(
            database=self.database,
            default_access_mode=neo4j.READ_ACCESS,
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        ) as s:
            return list(s.run(text, params))

    def write_tx(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` in one write transaction (all or nothing), retried on transient errors."""

        def once() -> T:
            with self._driver.session(database=self.database) as s:
                return s.execute_write(lambda tx: fn(Tx(tx, self.resolve)))

        with mapped_errors(self.connection):
            return _transient_retry(once)

    def read_tx(self, fn: Callable[[Tx], T]) -> T:
        with (
            mapped_errors(self.connection),
            self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as s,
        ):
            return s.execute_read(lambda tx: fn(Tx(tx, self.resolve)))

    def run_raw(self, name: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        """Run a named statement with exactly ``params`` (used by ``kgmem cypher --run`` and the file tests)."""
        q = cypher.load(name)
        with mapped_errors(self.connection):
            result = self._driver.execute_query(
                q.text,
                to_params(params),
                routing_=RoutingControl.WRITE if write else RoutingControl.READ,
                database_=self.database,
            )
        return [_record_dict(r) for r in result.records]

    def dry_run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Run a named statement with exactly ``params`` inside a transaction that is rolled back."""
        q = cypher.load(name)
        with mapped_errors(self.connection), self._driver.session(database=self.database) as s:
            tx = s.begin_transaction()
            try:
                return [_record_dict(r) for r in tx.run(q.text, to_params(params))]
            finally:
                tx.rollback()

    def explain(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        """The plan Neo4j would use for a named statement, or the variant this server runs (EXPLAIN: nothing runs)."""
        q = cypher.load(self.resolve(name))
        with mapped_errors(self.connection):
            result = self._driver.execute_query("EXPLAIN " + q.text, to_params(params), database_=self.database)
        return result.summary.plan or {}

    def auto_commit(self, statement_: str, /, **params: Any) -> list[dict[str, Any]]:
        """Schema statements must run outside an explicit transaction."""
        q = _checked(self.resolve(statement_), params)
        with (
            mapped_errors(self.connection),
            step(_waiting(q.name)),
            self._driver.session(database=self.database) as s,
        ):
            return [_record_dict(r) for r in s.run(q.text, to_params(params))]

    def evaluate(self, expressions: dict[str, str]) -> dict[str, Any]:
        """Evaluate ``:param`` expressions the way Neo4j Browser does (``RETURN expr``), in order."""
        out: dict[str, Any] = {}
        with mapped_errors(self.connection):
            for key, expr in expressions.items():
                rec = self._driver.execute_query(
                    "RETURN " + expr + " AS value", out, routing_=RoutingControl.READ, database_=self.database
                ).records
                out[key] = rec[0]["value"]
        return out

    def bind_neomodel(self) -> None:
        """Point neomodel at this store's driver and database, through neomodel's public configuration
        (``DATABASE_NAME``, read by ``db.set_connection(driver=...)``); None means the server's default."""
        from neomodel import db, get_config

        get_config().database_name = self.database
        db.set_connection(driver=self._driver)

    def verify(self) -> dict[str, Any]:
        with mapped_errors(self.connection):
            self._driver.verify_connectivity()
            info = self._driver.get_server_info()
        return {
            "address": str(info.address),
            "agent": info.agent,
            "protocol": ".".join(map(str, info.protocol_version)),
        }

    def close(self) -> None:
        self.runtime.close()
        self._driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def utc(dt: _dt.datetime) -> _dt.datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=_dt.timezone.utc)

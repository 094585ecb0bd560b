"""``kgmem server``: the local Neo4j server, 2026.x or 5.26 LTS (fetch, start, stop, status, logs)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from .. import server as srv
from .common import FC, emit_json, handle_errors, json_option

R = TypeVar("R")


_NEO4J_HELP = (
    f"Neo4j version: 2026 (Neo4j {srv.CURRENT_VERSION}, the default for a new home; Java 21 or 25), 5.26 "
    f"(Neo4j {srv.LTS_VERSION} LTS; Java 17 or 21) or an exact Community version [env KGMEM_NEO4J_VERSION]. "
    "A home keeps the version its data was created with."
)


def _neo4j_option(fn: FC) -> FC:
    return click.option("--neo4j", "neo4j", default=None, metavar="VERSION", help=_NEO4J_HELP)(fn)


_SETTINGS = ("bolt_port", "http_port", "heap", "pagecache", "neo4j")


def _server_options(*, neo4j: bool = True) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """--bolt-port, --http-port, --heap, --pagecache (and --neo4j unless ``neo4j`` is false), read from the
    environment when not given, passed to the command as one :class:`~kgmem.server.ServerSettings`,
    ``settings``."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            given = {name: kwargs.pop(name) for name in _SETTINGS if name in kwargs}
            return fn(*args, settings=srv.ServerSettings.from_env(**given), **kwargs)

        cmd: Callable[..., R] = _neo4j_option(wrapper) if neo4j else wrapper
        cmd = click.option(
            "--pagecache", default=None, help="Page cache size, e.g. 1g [env KGMEM_NEO4J_PAGECACHE; 1g]."
        )(cmd)
        cmd = click.option("--heap", default=None, help="JVM heap, e.g. 1g [env KGMEM_NEO4J_HEAP; 1g].")(cmd)
        cmd = click.option(
            "--http-port",
            type=int,
            default=None,
            help="HTTP/Browser port [env KGMEM_HTTP_PORT; default: the port this home last ran on, else 7474].",
        )(cmd)
        return click.option(
            "--bolt-port",
            type=int,
            default=None,
            help="Bolt port [env KGMEM_BOLT_PORT; default: the port this home last ran on, else 7687].",
        )(cmd)

    return wrap


@click.group("server")
def server() -> None:
    """Run a local Neo4j Community (2026.x by default, or 5.26 LTS; from Maven Central jars) on 127.0.0.1.

    Data lives under $KGMEM_HOME/neo4j (default ~/.local/share/kgmem/neo4j); the jars are cached in
    $KGMEM_CACHE (default ~/.cache/kgmem). Auth is on with a generated password that kgmem reads
    itself; `start` prints it for other tools (Neo4j Browser, cypher-shell). The home remembers its ports
    and password (server.json): every kgmem command without NEO4J_URI uses this home's server.
    """


@server.command("start")
@_server_options()
@json_option
@handle_errors
def start(settings: srv.ServerSettings, as_json: bool) -> None:
    """Start the server (idempotent) and wait until Bolt answers; print `export NEO4J_*=…` lines for a shell:
    eval "$(kgmem server start)" points other tools (and kgmem elsewhere) at it."""
    info = srv.start(settings, quiet=as_json)
    if as_json:
        emit_json(info)
        return
    verb = "already running" if info.get("already_running") else f"started in {info.get('start_seconds')}s"
    click.echo(f"Neo4j {info['version']} {verb} (pid {info['pid']}); Browser: {info['browser']}", err=True)
    for line in srv.env_lines(info):
        click.echo(line)


@server.command("stop")
@_server_options(neo4j=False)
@json_option
@handle_errors
def stop(settings: srv.ServerSettings, as_json: bool) -> None:
    """Stop the server started by `kgmem server start` (by its pid file; other Neo4j processes are left alone)."""
    info = srv.stop(settings)
    if as_json:
        emit_json(info)
    else:
        click.echo("stopped" if info["was_running"] else "not running")


@server.command("status")
@_server_options()
@json_option
@handle_errors
def status(settings: srv.ServerSettings, as_json: bool) -> None:
    """Say whether the server runs: pid, ports, version, data directory."""
    info = srv.status(settings)
    if as_json:
        emit_json(info)
        return
    for key in ("state", "pid", "uri", "browser", "version", "data_dir", "log"):
        value = info[key]
        if key == "pid" and value is None:
            value = _no_pid(info)
        click.echo(f"{key:9} {value}")
    external = os.environ.get("NEO4J_URI")
    if external:
        click.echo(f"{'note':9} NEO4J_URI is set: kgmem commands use {external}, not this local server")


def _no_pid(info: dict[str, Any]) -> str:
    """What `status` says instead of a pid when this home's server does not run: whether something else
    listens on its Bolt port (another Neo4j, in Docker or started elsewhere)."""
    import socket

    with socket.socket() as s:
        s.settimeout(0.5)
        taken = s.connect_ex(("127.0.0.1", int(info["bolt_port"]))) == 0
    if taken:
        return (
            f"none: this home's server is not running, but port {info['bolt_port']} answers (a server kgmem "
            "did not start: Docker, or another KGMEM_HOME)"
        )
    return "none: not running (`kgmem server start` starts it)"


@server.command("logs")
@click.option("-n", "--lines", default=50, show_default=True, help="How many lines from the end.")
@handle_errors
def logs(lines: int) -> None:
    """Print the end of the server log."""
    click.echo(srv.tail_log(lines=lines))


@server.command("fetch")
@_neo4j_option
@handle_errors
def fetch(neo4j: str | None) -> None:
    """Download the Neo4j jars into the cache (start does this when needed)."""
    click.echo(str(srv.fetch(version=srv.ServerSettings.from_env(neo4j=neo4j).neo4j)))

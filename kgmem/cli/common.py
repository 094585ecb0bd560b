"""Shared pieces of the CLI: connection options, output, error → exit code mapping."""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Callable, ParamSpec, TypeVar, overload

import click
from click.core import ParameterSource

from ..config import DEFAULT_TENANT
from ..errors import KgmemError

if TYPE_CHECKING:  # pragma: no cover
    from ..api import MemoryGraph

# a command's function, as click's decorators take and return it
FC = TypeVar("FC", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
# set in ctx.meta by scripts/gen_cli_docs.py: help texts that name this machine (the Browser's port) show the
# defaults in docs/cli.md, so the reference does not depend on where it was generated
DOCS_META = "kgmem.docs"


class NotAvailable(KgmemError):
    """A command this installation cannot run (``kgmem bench`` from a wheel): a usage error, exit 2, said in
    one line with its fix."""

    exit_code = EXIT_USAGE


# the Neo4j login takes cypher-shell's names; --user is the memory's owner (a record's `user`)
LOGIN_MOVED = "the Neo4j login is -u/--username (with -p/--password)"
OWNER_COMMANDS = "remember, recall, ask, ingest"


@dataclass(frozen=True)
class Connection:
    """The Neo4j login and the tenant a command works on, as :func:`connection_options` read them (``None``:
    not given; :func:`kgmem.config.resolve_connection` fills it from the environment or the local server)."""

    uri: str | None
    username: str | None
    password: str | None
    database: str | None
    tenant: str


@overload
def connection_options(fn: Callable[..., R], *, password_short: bool = True) -> Callable[..., R]: ...
@overload
def connection_options(
    fn: None = None, *, password_short: bool = True
) -> Callable[[Callable[..., R]], Callable[..., R]]: ...


def connection_options(
    fn: Callable[..., R] | None = None, *, password_short: bool = True
) -> Callable[..., R] | Callable[[Callable[..., R]], Callable[..., R]]:
    """--uri, -u/--username, -p/--password, --database (cypher-shell's names) and --tenant, read from the
    environment when not given, passed to the command as one :class:`Connection`, ``conn``.
    ``password_short=False`` leaves ``-p`` to the command (``remember -p`` is the predicate). A command
    without an owner (see :func:`owner_option`) answers ``--user`` with a one-line usage error that says
    where the login went."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            conn = Connection(**{f.name: kwargs.pop(f.name) for f in fields(Connection)})
            return fn(*args, conn=conn, **kwargs)

        opts = [
            # the environment is read by kgmem.config.resolve_connection, not here: a NEO4J_PASSWORD without
            # a NEO4J_URI is not sent to the local server (whose login its home recorded)
            click.option("--uri", default=None, help="Bolt URI [env NEO4J_URI; default: the local server]."),
            click.option("-u", "--username", default=None, help="Neo4j user name [env NEO4J_USERNAME]."),
            click.option(
                *(("-p", "--password") if password_short else ("--password",)),
                default=None,
                help="Neo4j password [env NEO4J_PASSWORD].",
            ),
            click.option(
                "--database", envvar="NEO4J_DATABASE", default=None, help="Database name [env NEO4J_DATABASE]."
            ),
            click.option(
                "--tenant",
                envvar="KGMEM_TENANT",
                default=DEFAULT_TENANT,
                show_default=True,
                help="Isolation boundary: nothing crosses it [env KGMEM_TENANT].",
            ),
        ]
        if not getattr(fn, "_kgmem_owner", False):
            opts.append(
                click.option(
                    "--user",
                    "_no_owner",
                    hidden=True,
                    expose_value=False,
                    callback=_no_owner,
                    help="Not an option of this command (the login is -u/--username).",
                )
            )
        cmd: Callable[..., R] = wrapper
        for opt in reversed(opts):
            cmd = opt(cmd)
        return cmd

    return wrap(fn) if fn is not None else wrap


def _no_owner(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        usage_error(
            f"`{' '.join(['kgmem', *ctx.command_path.split()[1:]])}` takes no --user: --user names the owner of "
            f"memories ({OWNER_COMMANDS}), and {LOGIN_MOVED}",
            "for the login write -u/--username (or set NEO4J_USERNAME)",
        )


def owner_option(help: str) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """--user OWNER: the memory's owner (a record's ``user``), passed to the command as ``owner``. The old
    ``--for-user`` still works (hidden). ``--user X`` with ``--password`` on the command line and no
    ``--username`` is the old login spelling: a one-line usage error says so instead of storing for X.
    Put it below :func:`connection_options` (applied first, so that one knows the command has an owner)."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            owner, old = kwargs.pop("owner"), kwargs.pop("for_user_alias")
            if owner is not None and old is not None and owner != old:
                usage_error("--user and --for-user name two owners", "give --user once")
            ctx = click.get_current_context()
            src = ctx.get_parameter_source
            if (
                owner is not None
                and src("password") == ParameterSource.COMMANDLINE
                and src("username") != ParameterSource.COMMANDLINE
            ):
                usage_error(
                    f"--user {owner} names the owner of the memories now, not the login: {LOGIN_MOVED}",
                    f"log in with -u {owner} (or NEO4J_USERNAME), or add -u/--username to store for {owner}",
                )
            return fn(*args, owner=owner if owner is not None else old, **kwargs)

        wrapper.__dict__["_kgmem_owner"] = True
        with_alias = click.option("--for-user", "for_user_alias", hidden=True, default=None)(wrapper)
        return click.option("--user", "owner", default=None, metavar="NAME", help=help)(with_alias)

    return wrap


def usage_error(message: str, fix: str) -> None:
    """A usage error (exit 2) in one line: ``Error: <message>. Fix: <fix>.``"""
    click.echo(f"Error: {message}. Fix: {fix}.", err=True)
    sys.exit(EXIT_USAGE)


def json_option(fn: FC) -> FC:
    return click.option("--json", "as_json", is_flag=True, help="Print the contract's JSON instead of a table.")(fn)


def open_graph(conn: Connection, **kwargs: Any) -> MemoryGraph:
    """The graph a command works on, its database checked at once (exit 3 when it does not answer)."""
    from ..api import MemoryGraph

    return MemoryGraph.connect(conn.uri, conn.username, conn.password, conn.database, conn.tenant, **kwargs)


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, default=str))


def fail(message: str, code: int = EXIT_INPUT) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def handle_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn kgmem errors into a one-line message on stderr and the contract's exit code."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except KgmemError as e:
            msg = (
                e.message.replace("\n", " ") if e.exit_code == EXIT_INPUT and "\n" not in e.message[:200] else e.message
            )
            fix = f" Fix: {e.fix}." if e.fix else ""
            click.echo(f"Error: {msg}{fix}", err=True)
            sys.exit(e.exit_code)

    return wrapper

"""Shared pieces of the CLI: connection options, output, error → exit code mapping."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable

import click

from ..config import DEFAULT_TENANT
from ..errors import KgmemError

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
# set in ctx.meta by scripts/gen_cli_docs.py: help texts that name this machine (the Browser's port) show the
# defaults in docs/cli.md, so the reference does not depend on where it was generated
DOCS_META = "kgmem.docs"


class NotAvailable(KgmemError):
    """A command this installation cannot run (``kgmem bench`` from a wheel): a usage error, exit 2, said in
    one line with its fix."""

    exit_code = EXIT_USAGE


def connection_options(fn: Callable) -> Callable:
    """--uri/--user/--password/--database/--tenant, read from the environment when not given."""
    opts = [
        click.option(
            "--uri", envvar="NEO4J_URI", default=None, help="Bolt URI [env NEO4J_URI; default: the local server]."
        ),
        click.option("--user", envvar="NEO4J_USERNAME", default=None, help="User name [env NEO4J_USERNAME]."),
        click.option("--password", envvar="NEO4J_PASSWORD", default=None, help="Password [env NEO4J_PASSWORD]."),
        click.option("--database", envvar="NEO4J_DATABASE", default=None, help="Database name [env NEO4J_DATABASE]."),
        click.option(
            "--tenant",
            envvar="KGMEM_TENANT",
            default=DEFAULT_TENANT,
            show_default=True,
            help="Isolation boundary: nothing crosses it [env KGMEM_TENANT].",
        ),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def json_option(fn: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Print the contract's JSON instead of a table.")(fn)


def open_graph(uri, user, password, database, tenant, **kwargs):
    """The graph a command works on, its database checked at once (exit 3 when it does not answer)."""
    from ..api import MemoryGraph

    return MemoryGraph.connect(uri, user, password, database, tenant, **kwargs)


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, default=str))


def fail(message: str, code: int = EXIT_INPUT) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def handle_errors(fn: Callable) -> Callable:
    """Turn kgmem errors into a one-line message on stderr and the contract's exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
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

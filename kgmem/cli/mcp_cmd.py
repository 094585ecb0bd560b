"""``kgmem mcp``: serve the memory to MCP clients (stdio by default, streamable HTTP with --http)."""

from __future__ import annotations

import click

from .common import Connection, connection_options, handle_errors


@click.command("mcp")
@click.option("--http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP: address to bind. Any address but a loopback one (127.0.0.1, ::1, localhost) needs --token.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="HTTP: port.")
@click.option("--path", "http_path", default="/mcp", show_default=True, help="HTTP: the endpoint's path.")
@click.option(
    "--token",
    envvar="KGMEM_MCP_TOKEN",
    show_envvar=True,
    help="HTTP: the bearer token every request must send (Authorization: Bearer TOKEN). Required off loopback; "
    "prefer the environment variable (a command line is visible to other users).",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    help="HTTP: another name clients reach the server by (a DNS name), accepted in the Host and Origin headers "
    "beside the bound address and loopback (repeatable).",
)
@connection_options
@handle_errors
def mcp(
    http: bool,
    host: str,
    port: int,
    http_path: str,
    token: str | None,
    allow_hosts: tuple[str, ...],
    conn: Connection,
) -> None:
    """Run a Model Context Protocol server for one tenant (--tenant or KGMEM_TENANT; no tool can change it).

    Tools: remember, ingest, ingest_document, recall, why, now, as_of, history, changes, timeline, neighbourhood,
    mentions, forget, forget_stream, ask (each returning the JSON of the matching --json command, its schema
    published as the tool's output schema) and vocabulary (the predicates, their aliases and cardinality). kgmem
    errors are tool errors with the message and the fix.
    stdio (default) is what desktop clients spawn; --http serves streamable HTTP on http://HOST:PORT/mcp, checking
    each request's Host and Origin against the bound address. Off loopback (--host 0.0.0.0) it refuses to start
    without a bearer token, answers a request without it 401, and warns on stderr.
    """
    try:
        import mcp as _sdk  # noqa: F401

        from ..mcp_server import serve
    except ImportError as exc:
        from ..errors import InputError

        raise InputError(f"the MCP SDK is not installed ({exc})", fix="pip install 'kgmem[mcp]' (mcp>=2.3)") from exc
    serve(
        conn.tenant,
        http=http,
        host=host,
        port=port,
        path=http_path,
        token=token,
        allow_hosts=allow_hosts,
        uri=conn.uri,
        user=conn.username,
        password=conn.password,
        database=conn.database,
    )

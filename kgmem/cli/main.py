"""The ``kgmem`` click group and its top-level commands."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Protocol, cast

import click

from .common import (
    DOCS_META,
    Connection,
    NotAvailable,
    connection_options,
    emit_json,
    handle_errors,
    json_option,
    open_graph,
)
from .lifecycle_cmd import COMMANDS as LIFECYCLE_COMMANDS
from .memory_cmd import COMMANDS as MEMORY_COMMANDS
from .sections import SectionedGroup
from .server_cmd import server


@click.group(cls=SectionedGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="kgmem")
def cli() -> None:
    """kgmem: knowledge-graph memory for AI agents, on Neo4j.

    Connection: --uri, -u/--username, -p/--password, --database or NEO4J_URI, NEO4J_USERNAME,
    NEO4J_PASSWORD, NEO4J_DATABASE; without them, the local server of `kgmem server start`.
    --user NAME is the owner of memories (remember, recall, ask), a record's "user".
    Exit codes: 0 ok, 1 bad input, 2 usage, 3 database unreachable.
    Shell completion: eval "$(_KGMEM_COMPLETE=bash_source kgmem)" in ~/.bashrc (zsh, fish: docs/cli.md).
    """


cli.add_command(server)


@cli.group("admin")
def admin() -> None:
    """Administration across tenants (for operators, not agents)."""


@admin.command("cleanup")
@click.option("--prefix", required=True, help="Delete every tenant whose name starts with this (at least 3 chars).")
@click.option("--dry-run", is_flag=True, help="Only list the tenants and their node counts.")
@connection_options
@json_option
@handle_errors
def admin_cleanup(
    prefix: str,
    dry_run: bool,
    conn: Connection,
    as_json: bool,
) -> None:
    """Delete the tenants an interrupted test or benchmark run left behind (e.g. --prefix test-).

    Tests and benchmarks delete their own tenants when they end, even when interrupted; a run that was
    killed outright cannot, and this removes what it left."""
    with open_graph(conn) as mg:
        out = mg.cleanup(prefix, dry_run=dry_run)
    if as_json:
        emit_json(out)
        return
    for row in out["tenants"]:
        click.echo(f"{row['tenant']}  {row['nodes']} nodes")
    verb = "would delete" if dry_run else "deleted"
    click.echo(
        f"{len(out['tenants'])} tenant(s) starting with '{prefix}': {verb} {out['deleted'] if not dry_run else sum(r['nodes'] for r in out['tenants'])} nodes"
    )


cli.add_command(__import__("kgmem.cli.mcp_cmd", fromlist=["mcp"]).mcp)
for _cmd in MEMORY_COMMANDS + LIFECYCLE_COMMANDS:
    cli.add_command(_cmd)


@cli.command("demo")
@connection_options
@handle_errors
def demo(conn: Connection) -> None:
    """Load the demo story into tenant 'demo' (or --tenant) and ask it why / now / as-of / recall questions."""
    from .. import demo as demo_mod

    with open_graph(replace(conn, tenant="demo") if conn.tenant == "default" else conn) as mg:
        mg.init(prepare_model=True)  # fails fast (exit 3) when Neo4j is down; a first read would be retried for 15 s
        demo_mod.run(mg)


@cli.command("init")
@click.option(
    "--rebuild-indexes",
    is_flag=True,
    help="Drop and rebuild the vector and fulltext indexes from the stored data first.",
)
@connection_options
@json_option
@handle_errors
def init(
    rebuild_indexes: bool,
    conn: Connection,
    as_json: bool,
) -> None:
    """Create kgmem's constraints and indexes (idempotent); wait until every index is ONLINE. Prepares the
    embedding model too (once per install), so that the first recall does not."""
    with open_graph(conn) as mg:
        # the ONNX model is built now (said on stderr) while the indexes come ONLINE, not on the first recall
        indexes = mg.init(rebuild_indexes=rebuild_indexes, prepare_model=True)
        embedder = mg.embedder
    rows = [(i["name"], i["type"], i["state"]) for i in indexes]
    if as_json:
        emit_json(
            {
                "indexes": [dict(zip(("name", "type", "state"), r)) for r in rows],
                "embedder": {"model": embedder.model_id, "backend": embedder.backend},
            }
        )
        return
    widths = [max(len(r[c]) for r in rows) for c in (0, 1)] if rows else [0, 0]
    for name, kind, state in rows:
        click.echo(f"{name:{widths[0]}}  {kind:{widths[1]}}  {state}")
    click.echo(f"embedding model {embedder.model_id} ({embedder.backend}): ready")


EXAMPLE_TENANT = "demo"  # the tenant of the examples in cypher/'s :param lines (the demo data)
_EXAMPLE_TENANT_LITERAL = re.compile(r"(?<![\w$])'" + re.escape(EXAMPLE_TENANT) + "'")


def _cypher_string(text: str) -> str:
    """``text`` as a Cypher string literal (single-quoted, backslashes and quotes escaped)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _for_tenant(expr: str, tenant: str | None) -> str:
    """A `:param` expression (or line) reading ``tenant`` where it reads the demo data's tenant: the literal
    'demo' becomes ``tenant`` as a Cypher string literal, and the keyword channels' Lucene tenant clause
    (``$tenant_scope``, :meth:`MemoryGraph.tenant_scope`) of 'demo' becomes that of ``tenant``. Other
    tenants in the examples (a scratch tenant that admin/delete_tenant deletes) stay as they are."""
    if tenant is None or tenant == EXAMPLE_TENANT:
        return expr
    from ..api import MemoryGraph

    scope = _cypher_string(MemoryGraph.tenant_scope(EXAMPLE_TENANT))
    expr = expr.replace(scope, _cypher_string(MemoryGraph.tenant_scope(tenant)))
    return _EXAMPLE_TENANT_LITERAL.sub(lambda _: _cypher_string(tenant), expr)


class _LiveHelp(click.Command):
    """A command whose help names this machine's local server: ``{browser}`` in its help text becomes the
    Browser URL of the configured HTTP port (``kgmem server status``), worked out when the help is shown.
    docs/cli.md (``ctx.meta[DOCS_META]``) shows the default port instead."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        text = self.help or ""
        self.help = text.replace("{browser}", _browser_url(ctx))
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = text


def _browser_url(ctx: click.Context) -> str:
    from .. import server as srv
    from ..errors import KgmemError

    default = f"http://127.0.0.1:{srv.ServerSettings().http_port}/browser/"
    if ctx.meta.get(DOCS_META):
        return f"{default} on the default HTTP port; `kgmem server status` prints yours"
    try:
        return str(srv.status()["browser"])  # the running server's port, else KGMEM_HTTP_PORT or the default
    except (KgmemError, OSError, ValueError):
        return default


@cli.command("cypher", cls=_LiveHelp)
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="List every statement name with its summary.")
@click.option("--params", "part", flag_value="params", help="Print only the example `:param` lines (Browser paste 1).")
@click.option(
    "--body",
    "part",
    flag_value="body",
    help="Print only the statement, without header or `:param` lines (Browser paste 2).",
)
@click.option(
    "--tenant",
    envvar="KGMEM_TENANT",
    default=None,
    help=f"Tenant the examples read: replaces the demo data's tenant '{EXAMPLE_TENANT}' in the `:param` lines "
    "[env KGMEM_TENANT; default: the example's].",
)
@handle_errors
def cypher_cmd(name: str | None, list_: bool, part: str | None, tenant: str | None) -> None:
    """Print a Cypher statement from cypher/ with its header and example `:param` lines.

    \b
    Neo4j Browser: {browser}
    (user neo4j, the password `kgmem server start` printed). After `kgmem demo` or
    `kgmem ingest fixtures/demo/demo.jsonl --tenant demo`:
      paste 1: kgmem cypher why/roots --params   sets the parameters (Browser shows one status per line)
      paste 2: kgmem cypher why/roots --body     runs the statement: Browser shows the result table
    Pasting the whole file also runs, but Browser then shows only statuses, no rows (its multi-statement
    view). The parameters stay set in Browser, so paste 2 can be edited and rerun alone.
    With --tenant T (or KGMEM_TENANT) the `:param` lines read tenant T instead of the demo data's.
    """
    from ..api import MemoryGraph

    if list_ or not name:
        if part:
            raise click.UsageError("--params/--body need a statement NAME")
        for q in MemoryGraph.statements():
            click.echo(f"{q.name:40} {_clip(q.summary, 70)}")
        return
    q = MemoryGraph.statement(name)
    examples = [(key, _for_tenant(expr, tenant)) for key, expr in q.example_params]
    if part == "params":
        for key, expr in examples:
            click.echo(f":param {key} => {expr};")
        missing = [p for p in q.params if p not in dict(q.example_params)]
        if missing:
            click.echo(
                f"note: no example value for {', '.join('$' + p for p in missing)}; set each with :param NAME => VALUE",
                err=True,
            )
        if not q.example_params and not missing:
            click.echo(f"note: {name} takes no parameters; paste `kgmem cypher {name} --body` alone", err=True)
    elif part == "body":
        click.echo(q.text)
    else:
        click.echo(
            "\n".join(
                _for_tenant(line, tenant) if line.startswith(":param") else line
                for line in q.source.rstrip().splitlines()
            )
        )


def _clip(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    space = cut.rfind(" ")
    if space > width // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-—(") + "…"


@cli.command("bench")
@click.option("--suite", "suites", multiple=True, help="Suite to run (repeatable; default: all). See --list.")
@click.option("--quick", is_flag=True, help="A small version of every suite (a few minutes).")
@click.option("--out", default="bench/results", show_default=True, help="Where results, report and plots go.")
@click.option("--trials", type=int, default=None, help="Trials per experiment (default 5; quick 2).")
@click.option("--list", "list_", is_flag=True, help="List the suites and exit.")
@handle_errors
def bench(suites: tuple[str, ...], quick: bool, out: str, trials: int | None, list_: bool) -> None:
    """Run the benchmarks: the founding papers' experiments and kgmem's speed against baselines measured in the
    same run. Writes <out>/<suite>.json, <out>/REPORT.md and PNG plots. Uses the same Neo4j as the other
    commands (NEO4J_URI or the local server). Needs a clone of the repository (bench/ is not in the wheel)."""
    runner = _bench_runner()
    if list_:
        for name, spec in runner.discover().items():
            click.echo(f"{name:12} {spec.title}")
        return
    sys.exit(runner.main_cli(list(suites) or None, quick, out, trials=trials))


_BENCH_FIX = (
    "run `kgmem bench` (or ./dev bench) inside a clone of the kgmem repository, which has bench/kgmem_bench, "
    "its fixtures and ../shared beside it (there: pip install -e '.[bench]')"
)


class _Suite(Protocol):
    title: str


class _BenchRunner(Protocol):
    """What `kgmem bench` uses of ``kgmem_bench.runner`` (a checkout's module, imported by name)."""

    def discover(self) -> Mapping[str, _Suite]: ...

    def main_cli(self, suites: list[str] | None, quick: bool, out: str, *, trials: int | None = None) -> int: ...


def _bench_runner() -> _BenchRunner:
    """The benchmarks live beside the library in a checkout (``bench/kgmem_bench``), not in the wheel: they
    read the repository's fixtures and ``../shared``'s data sets. Outside a checkout, or without the
    ``[bench]`` extra's packages, a one-line usage error (exit 2) says what to do."""
    import importlib

    def load() -> _BenchRunner:
        try:
            return cast(_BenchRunner, importlib.import_module("kgmem_bench.runner"))
        except ModuleNotFoundError as e:
            if e.name and e.name.split(".")[0] == "kgmem_bench":
                raise
            raise NotAvailable(
                f"the benchmarks need the package '{e.name}', which is not installed",
                fix="install the bench extra in the clone: pip install -e '.[bench]'",
            ) from None

    try:
        return load()
    except ModuleNotFoundError:
        pass
    found = _bench_dir()
    if found is not None:
        sys.path.insert(0, str(found))
        try:
            return load()
        except ModuleNotFoundError:
            pass
    raise NotAvailable("the benchmarks are not part of an installed kgmem", fix=_BENCH_FIX)


def _bench_dir() -> Path | None:
    """The checkout's ``bench/`` directory (in the working directory, or beside the package), else None."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (base / "bench" / "kgmem_bench" / "runner.py").is_file():
            return base / "bench"
    return None


def _bench_available() -> bool:
    """Whether `kgmem bench` can find the benchmarks here (importable, or a checkout's bench/): `kgmem --help`
    lists it only then. Nothing is imported."""
    import importlib.util

    try:
        if importlib.util.find_spec("kgmem_bench") is not None:
            return True
    except (ImportError, ValueError):
        pass
    return _bench_dir() is not None


cli.available = {"bench": _bench_available}


def _same_help_everywhere(cmd: click.Command) -> None:
    """-h/--help on every command however it is invoked (click caches a command's help option the first
    time it builds it; a command invoked on its own would otherwise get only --help)."""
    cmd.context_settings.setdefault("help_option_names", ["-h", "--help"])
    for sub in getattr(cmd, "commands", {}).values():
        _same_help_everywhere(sub)


_same_help_everywhere(cli)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)

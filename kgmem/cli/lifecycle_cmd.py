"""Lifecycle commands: forget, gc, consolidate, export, import, rebuild."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from ..errors import InputError
from ..results import iso
from .common import Connection, connection_options, emit_json, handle_errors, json_option, open_graph

# The methods are called through the mixin so the commands work whether or not MemoryGraph includes it yet.


def _plain(value: object) -> object:
    """JSON-ready: datetimes as RFC 3339, tuples as lists."""
    if isinstance(value, dt.datetime):
        return iso(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@click.command("forget")
@click.argument("memory_id", metavar="ID")
@connection_options
@json_option
@handle_errors
def forget(
    memory_id: str,
    conn: Connection,
    as_json: bool,
) -> None:
    """Forget a memory and what was derived from it.

    Facts compiled from it are deleted (their slots fall back to the previous version), summaries and merges
    are re-derived from their remaining sources or removed, its NEXT chain is re-spliced, entities nobody
    mentions any more are removed, and a tombstone (id, content key, time; no content) remains.
    """
    with open_graph(conn) as mg:
        out = mg.forget(memory_id)
    if as_json:
        emit_json(_plain(out))
        return
    cons = out["consolidated"]
    click.echo(
        f"forgot {len(out['forgotten'])} memories ({', '.join(out['forgotten'])}); "
        f"re-derived {len(cons['rederived'])}, removed {len(cons['removed'])} consolidated; "
        f"entities removed {out['entities_removed']}; tombstones {out['tombstones']}"
    )


@click.command("forget-stream")
@click.argument("stream")
@connection_options
@json_option
@handle_errors
def forget_stream(
    stream: str,
    conn: Connection,
    as_json: bool,
) -> None:
    """Forget a whole stream (a conversation, a channel, a chat export) and what was derived from it.

    Every memory whose stream is STREAM goes as with `kgmem forget`, each leaving a tombstone. A document's
    passages are in the stream named by the document's id: forgetting that stream forgets the document too.
    """
    with open_graph(conn) as mg:
        out = mg.forget_stream(stream)
    if as_json:
        emit_json(_plain(out))
        return
    document = f" (document {out['document']})" if out["document"] else ""
    click.echo(
        f"forgot stream {out['stream']}{document}: {len(out['forgotten'])} memories; "
        f"entities removed {out['entities_removed']}; tombstones {out['tombstones']}"
    )


@click.command("gc")
@click.option("--dry-run", is_flag=True, help="Only list what has expired.")
@click.option("--now", help="Reference time (RFC 3339 or a date). Default: now.")
@click.option(
    "--ttl",
    "ttls",
    multiple=True,
    metavar="CLASS=DURATION",
    help="Time to live of a retention class, e.g. short=7d, ephemeral=12h, standard=never (repeatable; "
    "also KGMEM_RETENTION).",
)
@connection_options
@json_option
@handle_errors
def gc(
    dry_run: bool,
    now: str | None,
    ttls: tuple[str, ...],
    conn: Connection,
    as_json: bool,
) -> None:
    """Forget the memories whose retention has expired (recorded_at + TTL <= now).

    Retention classes: permanent and standard never expire, short after 30 days, ephemeral after 1 day
    (defaults). Expired memories go through the same propagation as `kgmem forget`.
    """
    with open_graph(conn) as mg:
        out = mg.gc(dry_run=dry_run, now=now, ttls=",".join(ttls) if ttls else None)
    if as_json:
        emit_json(_plain({k: v for k, v in out.items() if k != "report"}))
        return
    for r in out["expired"]:
        click.echo(f"{r['id']}  {r['retention']}  recorded {iso(r['recorded_at'])}  expired {iso(r['expired_at'])}")
    verb = "would forget" if dry_run else "forgot"
    click.echo(f"{out['count']} expired; {verb} {out['count'] if dry_run else len(out['forgotten'])} memories")


@click.command("consolidate")
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option("--threshold", type=float, help="Near-duplicate cosine (default 0.92).")
@click.option("--min-cluster", type=int, help="Occurrences a pattern summary needs (default 4).")
@click.option("--pattern-threshold", type=float, help="Cosine among a pattern's episodes (default 0.70).")
@click.option("--decay", type=float, help="Co-occurrence decay per run (default 0.95).")
@connection_options
@json_option
@handle_errors
def consolidate(
    dry_run: bool,
    threshold: float | None,
    min_cluster: int | None,
    pattern_threshold: float | None,
    decay: float | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """Compaction pass: merge near-duplicates, summarise recurring episodes, fix slot chains, decay and
    reinforce entity co-occurrence. Each run is recorded as a :ConsolidationRun node."""
    params = {
        k: v
        for k, v in dict(
            threshold=threshold, min_cluster=min_cluster, pattern_threshold=pattern_threshold, decay=decay
        ).items()
        if v is not None
    }
    with open_graph(conn) as mg:
        out = mg.consolidate(dry_run=dry_run, **params)
    if as_json:
        emit_json(_plain(out))
        return
    for step in out["plan"]:
        click.echo(
            f"{step['action']:6} {step['transform']:10} {step['id']}  ({len(step['sources'])} sources)  "
            f"{step['text'][:100]}"
        )
    co = out["co_occurrence"]
    head = "plan" if dry_run else f"run {out['run_id']}"
    click.echo(
        f"{head}: superseded {out['superseded']}, merges +{out['merges_created']}/-{out['merges_removed']}, "
        f"summaries +{out['summaries_created']}/-{out['summaries_removed']}, co-occurrence pairs "
        f"{co['pairs']} (new {co['created']}, reinforced {co['reinforced']}, decayed {co['decayed']})"
    )


@click.command("export")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@connection_options
@json_option
@handle_errors
def export(
    file: str,
    conn: Connection,
    as_json: bool,
) -> None:
    """Export the tenant as deterministic JSONL ('-' writes to stdout): every memory (without embeddings),
    entity, edge with its properties, tombstone and consolidation run."""
    with open_graph(conn) as mg:
        out = mg.export(sys.stdout if file == "-" else file)
    if file == "-":
        return
    if as_json:
        emit_json(_plain(out))
    else:
        click.echo(
            f"wrote {out['lines']} lines to {out['path']}: {out['memories']} memories, {out['entities']} "
            f"entities, {out['edges']} edges, {out['tombstones']} tombstones, {out['runs']} runs"
        )


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@connection_options
@json_option
@handle_errors
def import_(
    file: str,
    conn: Connection,
    as_json: bool,
) -> None:
    """Restore an export into an empty tenant exactly as it was (texts are re-embedded; nothing is inferred,
    compiled or superseded again). All or nothing."""
    if not Path(file).exists():
        raise InputError(f"no such file: {file}", fix="check the path")
    with open_graph(conn) as mg:
        out = mg.import_jsonl(file)
    if as_json:
        emit_json(_plain(out))
    else:
        click.echo(
            f"imported into '{out['tenant']}': {out['memories']} memories, {out['entities']} entities, "
            f"{out['edges']} edges, {out['tombstones']} tombstones, {out['runs']} runs"
        )


@click.command("rebuild")
@click.option(
    "--manifest",
    "manifest_path",
    type=click.Path(dir_okay=False),
    help="Write the manifests before and after (JSON) to this file.",
)
@connection_options
@json_option
@handle_errors
def rebuild(
    manifest_path: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """Recompute every derived artefact (embeddings, compiled facts, slot and NEXT chains, inferred causes,
    summaries) from the record memories and compare the manifests before and after."""
    with open_graph(conn) as mg:
        out = mg.rebuild(manifest_path)
    if as_json:
        emit_json(_plain(out))
        return
    verdict = "identical" if out["identical"] else f"{len(out['differences'])} differences"
    click.echo(
        f"rebuilt '{out['tenant']}': manifest {verdict} (digest {out['after_digest'][:12]}); "
        f"embedding drift {out['embedding_max_drift']:.2e}"
    )
    for d in out["differences"]:
        click.echo(f"  {d}")


COMMANDS = [forget, forget_stream, gc, consolidate, export, import_, rebuild]

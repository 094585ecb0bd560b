"""Memory commands: ingest, remember, recall, why, now, as-of, history, changes, timeline, forget."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..config import DEFAULT_AROUND, DEFAULT_BATCH, DEFAULT_CHANGES, DEFAULT_HITS, DEFAULT_ROOTS, DEFAULT_WHY_DEPTH
from ..errors import InputError
from ..results import iso
from .common import connection_options, emit_json, handle_errors, json_option, open_graph
from .render import (
    console,
    describe_ask,
    print_changes,
    print_history,
    print_recall,
    print_slot,
    print_timeline,
    print_why,
)


def _batch_queries(path: str) -> list[tuple[int, dict]]:
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {p}", fix="check the path given to --queries")
    out = []
    with open(p, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as e:
                raise InputError(f"not valid JSON ({e.msg})", line=n, fix='write {"query": "..."} per line') from None
            if not isinstance(obj, dict) or not isinstance(obj.get("query"), str) or not obj["query"].strip():
                raise InputError(
                    'needs a non-empty "query" string', line=n, field="query", fix='write {"query": "..."} per line'
                )
            out.append((n, obj))
    return out


# ---------------------------------------------------------------------------- write


@click.command("ingest")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--batch-size", default=DEFAULT_BATCH, show_default=True, help="Records per write transaction.")
@click.option("--no-compile", is_flag=True, help="Do not compile facts from episode text.")
@click.option("--silent", is_flag=True, help="No progress bar.")
@click.option("--force", is_flag=True, help="Bring back records that were forgotten.")
@connection_options
@json_option
@handle_errors
def ingest(file, batch_size, no_compile, silent, force, uri, user, password, database, tenant, as_json) -> None:
    """Ingest a JSONL file of memory records (one JSON object per line; '-' reads stdin).

    Bad lines are reported with their line number and the rest still lands; exit code 1 when any line
    was rejected. The file is streamed (read and written a few batches at a time, in bounded memory); each
    batch is one transaction, so running the same command again after a crash stores only what is missing.
    """
    if file != "-" and not Path(file).exists():
        raise InputError(f"no such file: {file}", fix="check the path")
    with open_graph(uri, user, password, database, tenant) as mg:
        source = sys.stdin if file == "-" else file
        if silent or as_json or not sys.stderr.isatty():
            report = mg.ingest(source, batch_size=batch_size, compile_facts=not no_compile, force=force)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console(err=True),
                transient=True,
            ) as bar:
                # the file is streamed: lines are read and validated a window at a time, and each window is
                # written before the next is read, so both bars advance together
                lines = None if file == "-" else _count_lines(file)
                reading = bar.add_task("reading", total=lines)
                writing = bar.add_task("writing", total=lines, visible=lines is not None)

                def read_done(n: int) -> None:  # every line read and validated
                    bar.update(reading, completed=n, total=n)

                def wrote(done: int, total: int) -> None:  # total: records read so far (the file's lines, at most)
                    bar.update(writing, completed=done, total=max(total, lines or 0), visible=True)

                counted = _CountingLines(
                    sys.stdin.buffer if file == "-" else open(file, "rb"),  # noqa: SIM115
                    lambda n: bar.update(reading, completed=n),
                    read_done,
                )
                with counted:
                    report = mg.ingest(
                        counted,
                        batch_size=batch_size,
                        compile_facts=not no_compile,
                        force=force,
                        progress=wrote,
                    )
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(
            f"read {report.read}, created {report.created}, unchanged {report.unchanged}, "
            f"superseded {report.superseded}, linked {report.linked}, facts {report.facts}, "
            f"errors {len(report.errors)}"
        )
        for e in report.errors:
            click.echo(_line_error(e), err=True)
        if report.new_predicates:
            click.echo(f"new predicates (not in the vocabulary): {', '.join(report.new_predicates)}", err=True)
    if report.errors:
        first = report.errors[0]
        more = f" (and {len(report.errors) - 1} more)" if len(report.errors) > 1 else ""
        click.echo(
            f"Error: {len(report.errors)} of {report.read} records rejected; {_line_error(first)}{more}. "
            "Fix: correct those lines and ingest the file again (the other records are stored; "
            "re-ingesting them changes nothing).",
            err=True,
        )
        sys.exit(1)


def _count_lines(path: str) -> int | None:
    """Lines in a file (the progress bar's total for reading), counted in 1 MiB chunks; None if unreadable."""
    try:
        n, last = 0, b"\n"
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                n += chunk.count(b"\n")
                last = chunk[-1:]
        return n + (last != b"\n")
    except OSError:
        return None


class _CountingLines:
    """The lines of a binary stream, counting as the ingest reads (and validates) them: ``on_line(n)`` every
    200 lines, ``on_end(n)`` at the end. Iterable of bytes lines, which ``MemoryGraph.ingest`` reads like a
    file; the stream is closed on exit unless it is stdin."""

    def __init__(self, stream, on_line, on_end, every: int = 200):
        self._stream, self._on_line, self._on_end, self._every = stream, on_line, on_end, every
        self.count = 0

    def __iter__(self):
        for raw in self._stream:
            self.count += 1
            if self.count % self._every == 0:
                self._on_line(self.count)
            yield raw
        self._on_end(self.count)

    def readline(self) -> bytes:  # file-like, so that ingest parses the lines as JSONL
        raw = self._stream.readline()
        if raw:
            self.count += 1
        return raw

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self._stream is not getattr(sys.stdin, "buffer", None):
            self._stream.close()


def _line_error(e: dict) -> str:
    """An ingest error that names its line once (the pipeline's messages usually start with 'line N')."""
    msg = str(e.get("error", ""))
    return msg if msg.startswith(f"line {e.get('line')}") else f"line {e.get('line')}: {msg}"


@click.command("remember")
@click.argument("text")
@click.option("--at", help="When it happened (RFC 3339 or a date). Default: now.")
@click.option("--id", "memory_id", help="Your stable id for it.")
@click.option("--kind", type=click.Choice(["episode", "fact", "summary"]), help="Default: episode (fact if -s/-p/-o).")
@click.option("-s", "--subject", help="Fact subject (with -p and -o).")
@click.option("-p", "--predicate", help="Fact predicate; aliases map to the vocabulary's canonical name.")
@click.option("-o", "--object", "obj", help="Fact value.")
@click.option("--negated", is_flag=True, help="The fact is negated (polarity false).")
@click.option("--caused-by", multiple=True, help="Id of a memory that caused this one (repeatable).")
@click.option("--stream", help="Stream (conversation, channel) it belongs to.")
@click.option("--source", help="Provenance (where it came from).")
@click.option("--entity", "entities", multiple=True, help="Entity it mentions (repeatable; default: extracted).")
@click.option("--for-user", "for_user", help="The user it is about (scope inside the tenant).")
@connection_options
@json_option
@handle_errors
def remember(
    text,
    at,
    memory_id,
    kind,
    subject,
    predicate,
    obj,
    negated,
    caused_by,
    stream,
    source,
    entities,
    for_user,
    uri,
    user,
    password,
    database,
    tenant,
    as_json,
) -> None:
    """Store one memory."""
    fields = dict(
        at=at,
        id=memory_id,
        kind=kind,
        subject=subject,
        predicate=predicate,
        object=obj,
        polarity=False if negated else None,
        caused_by=list(caused_by) or None,
        stream=stream,
        source=source,
        entities=list(entities) or None,
        user=for_user,
    )
    with open_graph(uri, user, password, database, tenant) as mg:
        mem = mg.remember(text, **fields)
    if as_json:
        emit_json(mem.to_dict())
    else:
        click.echo(f"{mem.id}  {iso(mem.at)}  {mem.text}")


# ---------------------------------------------------------------------------- read


def _recall_one(mg, query: str, opts: dict):
    return mg.recall(
        query,
        k=opts.get("k", 10),
        at=opts.get("at"),
        include_superseded=opts.get("include_superseded", False),
        user=opts.get("user"),
        since=opts.get("since"),
        until=opts.get("until"),
        now=opts.get("now"),
        expand=opts.get("expand", 0),
        explain=opts.get("explain", False),
    )


@click.command("recall")
@click.argument("query", required=False)
@click.option("-k", "--k", default=DEFAULT_HITS, show_default=True, help="How many hits.")
@click.option("--at", help="Answer as of this time (versions valid then).")
@click.option("--include-superseded", is_flag=True, help="Also return versions that were replaced.")
@click.option("--since", help="Only memories at or after this time.")
@click.option("--until", help="Only memories before this time.")
@click.option("--now", help="Reference time for phrases like 'last week' (default: now).")
@click.option("--for-user", "for_user", help="Only memories of this user.")
@click.option("--expand", default=0, help="Attach N NEXT-neighbours each side as context.")
@click.option("--explain", is_flag=True, help="Include the manifest: filters, channel candidates, fused ranks.")
@click.option("--queries", type=click.Path(dir_okay=False), help='JSONL of {"query": ..., options} (one model load).')
@connection_options
@json_option
@handle_errors
def recall(
    query,
    k,
    at,
    include_superseded,
    since,
    until,
    now,
    for_user,
    expand,
    explain,
    queries,
    uri,
    user,
    password,
    database,
    tenant,
    as_json,
) -> None:
    """Find memories: filters first, then vector + keyword + entity channels fused by RRF; may abstain."""
    if (query is not None) == bool(queries):  # "" is a bad QUERY (exit 1), not a missing one (exit 2)
        raise click.UsageError("give a QUERY or --queries FILE (not both)")
    base = dict(
        k=k,
        at=at,
        include_superseded=include_superseded,
        since=since,
        until=until,
        now=now,
        user=for_user,
        expand=expand,
        explain=explain,
    )
    with open_graph(uri, user, password, database, tenant) as mg:
        if queries:
            for n, obj in _batch_queries(queries):
                g = mg.for_tenant(obj["tenant"]) if obj.get("tenant") else mg
                try:
                    res = _recall_one(g, obj["query"], {**base, **{k2: v for k2, v in obj.items() if k2 != "query"}})
                except InputError as e:
                    raise InputError(e.message, line=n, fix=e.fix) from None
                emit_json(res.to_dict()) if as_json else print_recall(res)
            return
        res = _recall_one(mg, query, base)  # the API checks the question (kgmem.validate)
    emit_json(res.to_dict()) if as_json else print_recall(res)


@click.command("why")
@click.argument("query", required=False)
@click.option("-k", "--k", default=DEFAULT_ROOTS, show_default=True, help="How many roots.")
@click.option("--at", help="Only causes known to have happened by this time.")
@click.option("--max-depth", default=DEFAULT_WHY_DEPTH, show_default=True, help="Longest CAUSED_BY walk (1-10).")
@click.option("--min-confidence", default=0.0, show_default=True, help="Drop paths below this confidence.")
@click.option("--explain", is_flag=True, help="Include the manifest: recall candidates and the symptom rule.")
@click.option("--queries", type=click.Path(dir_okay=False), help='JSONL of {"query": ...} (one model load).')
@connection_options
@json_option
@handle_errors
def why(
    query, k, at, max_depth, min_confidence, explain, queries, uri, user, password, database, tenant, as_json
) -> None:
    """Why did it happen: find the symptom, walk CAUSED_BY to the roots (best first); may abstain."""
    if (query is not None) == bool(queries):  # "" is a bad QUERY (exit 1), not a missing one (exit 2)
        raise click.UsageError("give a QUERY or --queries FILE (not both)")
    with open_graph(uri, user, password, database, tenant) as mg:
        items = _batch_queries(queries) if queries else [(None, {"query": query})]
        for n, obj in items:
            g = mg.for_tenant(obj["tenant"]) if obj.get("tenant") else mg
            try:
                res = g.why(
                    obj["query"],
                    k=obj.get("k", k),
                    at=obj.get("at", at),
                    max_depth=max_depth,
                    min_confidence=min_confidence,
                    explain=explain,
                )
            except InputError as e:
                raise InputError(e.message, line=n, fix=e.fix) from None
            emit_json(res.to_dict()) if as_json else print_why(res)


@click.command("now")
@click.argument("subject")
@click.argument("predicate")
@click.argument("object", required=False)
@connection_options
@json_option
@handle_errors
def now(subject, predicate, object, uri, user, password, database, tenant, as_json) -> None:
    """The current value of a slot: SUBJECT PREDICATE [OBJECT for multi-valued predicates]."""
    with open_graph(uri, user, password, database, tenant) as mg:
        ans = mg.now_answer(subject, predicate, object)  # with a hint when nothing is recorded
    emit_json(ans.to_dict()) if as_json else print_slot(ans, ans.hint)


@click.command("as-of")
@click.argument("subject")
@click.argument("predicate")
@click.argument("object", required=False)
@click.option("--at", required=True, help="The time to ask about (RFC 3339 or a date).")
@click.option("--known-at", help="Only what the store had recorded by this time (bi-temporal).")
@connection_options
@json_option
@handle_errors
def as_of(subject, predicate, object, at, known_at, uri, user, password, database, tenant, as_json) -> None:
    """The value a slot had at a time."""
    with open_graph(uri, user, password, database, tenant) as mg:
        ans = mg.as_of_answer(subject, predicate, at, object, known_at=known_at)
    emit_json(ans.to_dict()) if as_json else print_slot(ans, ans.hint)


@click.command("history")
@click.argument("subject")
@click.argument("predicate")
@click.argument("object", required=False)
@click.option("--known-at", help="Only what the store had recorded by this time.")
@connection_options
@json_option
@handle_errors
def history(subject, predicate, object, known_at, uri, user, password, database, tenant, as_json) -> None:
    """Every version of a slot, oldest first."""
    with open_graph(uri, user, password, database, tenant) as mg:
        h = mg.history_answer(subject, predicate, object, known_at=known_at)
    emit_json(h.to_dict()) if as_json else print_history(h, h.hint)


@click.command("changes")
@click.option("--since", required=True, help="Time (RFC 3339 or a date).")
@click.option("--limit", default=DEFAULT_CHANGES, show_default=True, help="At most this many.")
@connection_options
@json_option
@handle_errors
def changes(since, limit, uri, user, password, database, tenant, as_json) -> None:
    """What changed in the tenant since a time: fact versions that took effect or were recorded."""
    with open_graph(uri, user, password, database, tenant) as mg:
        rows = mg.changes(since, limit=limit)
    if as_json:
        emit_json({"since": since, "changes": [_jsonable(r) for r in rows]})
    else:
        print_changes(rows)


@click.command("timeline")
@click.argument("memory_id")
@click.option("--before", default=DEFAULT_AROUND, show_default=True, help="Memories before it.")
@click.option("--after", default=DEFAULT_AROUND, show_default=True, help="Memories after it.")
@connection_options
@json_option
@handle_errors
def timeline(memory_id, before, after, uri, user, password, database, tenant, as_json) -> None:
    """What happened before and after a memory (its stream's NEXT chain, else nearest in time)."""
    with open_graph(uri, user, password, database, tenant) as mg:
        rows = mg.timeline(memory_id, before=before, after=after)
    if as_json:
        emit_json({"id": memory_id, "items": [_jsonable(r) for r in rows]})
    else:
        print_timeline(rows)


@click.command("lineage")
@click.argument("memory_id")
@click.option("--depth", default=5, show_default=True, help="SUPERSEDES steps each way (1-5).")
@connection_options
@json_option
@handle_errors
def lineage(memory_id, depth, uri, user, password, database, tenant, as_json) -> None:
    """What a memory replaced and what replaced it (SUPERSEDES: a slot's versions, or inferred from plain
    text with its cue and confidence), oldest first."""
    with open_graph(uri, user, password, database, tenant) as mg:
        out = mg.lineage(memory_id, depth=depth)
    if as_json:
        emit_json(_jsonable(out))
        return
    for row in out["memories"]:
        mark = {"self": "*", "retired": "<", "retired_by": ">"}[row["relation"]]
        click.echo(f"{mark} {iso(row['at'])}  {row['id']}  {row['text']}")
        for e in row["edges"][:1] if row["relation"] != "self" else []:
            how = f"inferred by {e['by']} ({e['confidence']:.2f}; {e['cue']})" if e["inferred"] else "slot chain"
            click.echo(f"      {e['newer']} supersedes {e['older']}: {how}")


@click.command("ask")
@click.argument("question")
@click.option("--now", help="Reference time for phrases like 'last week' (default: now).")
@click.option("--for-user", "for_user", help="Who 'I' and 'my' are.")
@connection_options
@json_option
@handle_errors
def ask(question, now, for_user, uri, user, password, database, tenant, as_json) -> None:
    """Ask in plain words: a learned router picks now / as-of / history / recall / why (or none)."""
    with open_graph(uri, user, password, database, tenant) as mg:
        res = mg.ask(question, now=now, user=for_user)
        hint = getattr(res.result, "hint", None) if res.operation in ("now", "as_of", "history") else None
    if as_json:
        emit_json(res.to_dict())
        return
    for line in describe_ask(res, now=now, for_user=for_user):
        click.echo(line)
    r = res.result
    if r is None:
        return
    if res.operation in ("now", "as_of"):
        print_slot(r, hint)
    elif res.operation == "history":
        print_history(r, hint)
    elif res.operation == "why":
        print_why(r)
    else:
        print_recall(r)


def _jsonable(row: dict) -> dict:
    out: dict = {}
    for k, v in row.items():
        if hasattr(v, "isoformat"):
            out[k] = iso(v)
        elif isinstance(v, dict):
            out[k] = _jsonable(v)
        elif isinstance(v, list):
            out[k] = [_jsonable(x) if isinstance(x, dict) else iso(x) if hasattr(x, "isoformat") else x for x in v]
        else:
            out[k] = v
    return out


COMMANDS = [ingest, remember, recall, why, ask, now, as_of, history, changes, timeline, lineage]

"""Memory commands: ingest, remember, recall, why, now, as-of, history, changes, timeline, forget."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator, Sequence, TypedDict

import click

from ..config import (
    DEFAULT_AROUND,
    DEFAULT_BATCH,
    DEFAULT_CHANGES,
    DEFAULT_HITS,
    DEFAULT_MENTIONS,
    DEFAULT_NEIGHBOURS,
    DEFAULT_ROOTS,
    DEFAULT_WHY_DEPTH,
    INGEST_FORMATS,
)
from ..errors import InputError, Interrupted
from ..record_spec import SPEC, Option
from ..results import IngestReport, Recall, iso, jsonable
from .common import (
    Connection,
    connection_options,
    emit_json,
    handle_errors,
    json_option,
    open_graph,
    owner_option,
    usage_error,
)
from .render import (
    describe_ask,
    print_changes,
    print_history,
    print_recall,
    print_slot,
    print_timeline,
    print_why,
    progress_bar,
)

if TYPE_CHECKING:
    from ..api import MemoryGraph


def _batch_queries(path: str) -> list[tuple[int, dict[str, Any]]]:
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {p}", fix="check the path given to --queries")
    out: list[tuple[int, dict[str, Any]]] = []
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


class _IngestOptions(TypedDict):
    """What kgmem ingest passes to each of ``MemoryGraph.ingest``, ``ingest_file`` and ``ingest_text``."""

    batch_size: int
    compile_facts: bool
    force: bool
    user: str | None


@click.command("ingest")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", *INGEST_FORMATS]),
    default="auto",
    show_default=True,
    help="jsonl: records, one a line. json: a JSON array of records. chat: a chat export "
    '([{"role"|"speaker", "content"|"text", "timestamp"?}]). markdown, text: a document, split into passages. '
    "auto: a file starting with [ is JSON (a chat when every element is a message), else by its extension "
    "(.md, .txt, .json), else JSONL.",
)
@click.option("--batch-size", default=DEFAULT_BATCH, show_default=True, help="Records per write transaction.")
@click.option("--no-compile", is_flag=True, help="Do not compile facts from episode text.")
@click.option("--silent", is_flag=True, help="No progress bar.")
@click.option("--force", is_flag=True, help="Bring back records that were forgotten.")
@connection_options
@owner_option("The owner of the records that name no user (of every part of a document or chat).")
@json_option
@handle_errors
def ingest(
    file: str,
    fmt: str,
    batch_size: int,
    no_compile: bool,
    silent: bool,
    force: bool,
    owner: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """Ingest memory records from a JSONL file, a JSON array, a chat export, or a markdown or text document
    ('-' reads stdin).

    \b
    A document (.md, .txt) becomes one document memory ("Document notes.md: <its title> (N parts)") and its
    parts: passages cut at blank lines and headings (packed up to ~1,000 characters; a longer paragraph is cut
    at sentence ends), each with its position in `source` ("notes.md, part 12 of 412, line 230 — Setup"),
    the id <document id>#p0012, and linked to the document, so `kgmem forget <document id>` forgets them all.
    Bad lines are reported with their line number and the rest still lands; exit code 1 when any line
    was rejected. The same file again changes nothing, and an interrupted run resumes where it stopped: Ctrl-C
    says how many records are stored (exit 130), and running the same command again writes the rest.
    """
    options = _IngestOptions(batch_size=batch_size, compile_facts=not no_compile, force=force, user=owner)
    stdin = _Stdin(sys.stdin.buffer) if file == "-" else None
    if stdin is not None:
        fmt = (
            ("json" if stdin.first.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[") else "jsonl")
            if fmt == "auto"
            else fmt
        )
    else:
        if not Path(file).exists():
            raise InputError(f"no such file: {file}", fix="check the path")
    try:
        with open_graph(conn) as mg:
            if fmt == "auto":
                fmt = mg.file_format(file)
            quiet = silent or as_json or not sys.stderr.isatty()
            if fmt != "jsonl":
                if stdin is not None:
                    text = stdin.read().decode("utf-8", errors="replace")
                    name = {"markdown": "stdin.md", "text": "stdin.txt"}.get(fmt, "stdin.json")
                    report = _with_bar(
                        quiet,
                        lambda progress: mg.ingest_text(text, name=name, format=fmt, progress=progress, **options),
                    )
                else:
                    report = _with_bar(
                        quiet, lambda progress: mg.ingest_file(file, format=fmt, progress=progress, **options)
                    )
            elif quiet:
                report = mg.ingest(stdin if stdin is not None else file, **options)
            else:
                with progress_bar() as bar:
                    lines = None if file == "-" else _count_lines(file)
                    reading = bar.add_task("reading", total=lines)
                    writing = bar.add_task("writing", total=None, visible=False)

                    def read_done(n: int) -> None:  # every line read and validated: the write phase starts
                        bar.update(reading, completed=n, total=n)
                        bar.update(writing, total=n, visible=True)

                    counted = _CountingLines(
                        stdin if stdin is not None else open(file, "rb"),  # noqa: SIM115
                        lambda n: bar.update(reading, completed=n),
                        read_done,
                    )
                    with counted:
                        report = mg.ingest(
                            counted,
                            progress=lambda done, total: bar.update(writing, completed=done, total=total),
                            **options,
                        )
    except KeyboardInterrupt as stop:  # Ctrl-C: what is stored, and that the same command resumes
        click.echo(_interrupted(stop), err=True)
        sys.exit(130)
    if as_json:
        emit_json(report.to_dict())
    else:
        if report.file is not None:
            click.echo(_describe_file(report.file))
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


def _interrupted(stop: KeyboardInterrupt) -> str:
    """What an interrupted ingest says instead of click's "Aborted!": how many records are stored, and that
    running the same command again resumes (stored records are found unchanged, the rest is written)."""
    if not isinstance(stop, Interrupted):
        return "Interrupted before any record was read: nothing was written. Run the same command again to start it."
    r = stop.report
    stored = r.created + r.unchanged
    if stop.phase == "read":
        return "Interrupted while reading the input: nothing was written. Run the same command again to start it."
    if stop.phase == "derived":
        return (
            f"Interrupted after the write: all {stored:,} records are stored; the passes that link them (stream "
            "context, causes, supersession) did not finish. Run the same command again to finish them: the "
            "stored records are found unchanged."
        )
    return (
        f"Interrupted: {stored:,} of the {r.read:,} records read are stored ({r.created:,} written by this run, "
        f"{r.unchanged:,} already there), the others are not. Run the same command again to resume: the stored "
        "records are found unchanged and the rest is written."
    )


class _Stdin:
    """stdin's bytes, its first line read ahead (``first``: what the format is told from) and given back to the
    reader: lines to iterate or ``readline`` (JSONL), or ``read`` for the whole (the other formats)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.first: bytes = stream.readline()
        self._given = False

    def readline(self) -> bytes:
        if not self._given:
            self._given = True
            return self.first
        return self._stream.readline()

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line

    def read(self) -> bytes:
        head, self._given = (b"" if self._given else self.first), True
        return head + self._stream.read()

    def close(self) -> None:  # stdin stays open
        pass


def _with_bar(quiet: bool, run: Callable[[Callable[[int, int], None] | None], IngestReport]) -> IngestReport:
    """``run(progress)`` with a writing bar on stderr (none when ``quiet``)."""
    if quiet:
        return run(None)
    with progress_bar() as bar:
        writing = bar.add_task("writing", total=None)
        return run(lambda done, total: bar.update(writing, completed=done, total=total))


def _describe_file(info: dict[str, Any]) -> str:
    """What a file that was not JSONL became, in one line."""
    if info["format"] in ("markdown", "text"):
        n = info["parts"]
        return f'{info["name"]}: document {info["id"]} "{info["title"]}", {n} part{"s" if n != 1 else ""}'
    if info["format"] == "chat":
        return f"{info['name']}: chat export, {info['messages']} messages in stream {info['stream']}"
    return f"{info['name']}: JSON array of {info['records']} records"


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

    def __init__(
        self,
        stream: BinaryIO | _Stdin,
        on_line: Callable[[int], None],
        on_end: Callable[[int], None],
        every: int = 200,
    ) -> None:
        self._stream, self._on_line, self._on_end, self._every = stream, on_line, on_end, every
        self.count = 0

    def __iter__(self) -> Iterator[bytes]:
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

    def __enter__(self) -> _CountingLines:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stream is not getattr(sys.stdin, "buffer", None):
            self._stream.close()


def _line_error(e: dict[str, Any]) -> str:
    """An ingest error that names its line once (the pipeline's messages usually start with 'line N')."""
    msg = str(e.get("error", ""))
    return msg if msg.startswith(f"line {e.get('line')}") else f"line {e.get('line')}: {msg}"


# the record fields kgmem remember takes as options of their own, with how each gives its field
_CLI_FIELDS = tuple((name, spec.cli) for name, spec in SPEC.items() if isinstance(spec.cli, Option))


def record_options(fn: Callable[..., None]) -> Callable[..., None]:
    """TEXT and the record fields ``kgmem remember`` takes as options (:data:`kgmem.record_spec.SPEC`, each
    field's ``cli``), in the spec's order; each option's parameter is named as its field."""
    for name, spec in reversed(list(SPEC.items())):
        opt = spec.cli
        if isinstance(opt, Option):
            choice = spec.schema.get("enum")
            fn = click.option(
                *opt.decls,
                name,
                help=opt.help,
                is_flag=opt.flag is not None,
                multiple=opt.multiple,
                type=click.Choice(choice) if choice else None,
            )(fn)
    return click.argument("text")(fn)


@click.command("remember")
@record_options
@connection_options(password_short=False)
@owner_option("The user it belongs to (its owner: recall and ask --user see it).")
@json_option
@handle_errors
def remember(
    text: str,
    owner: str | None,
    conn: Connection,
    as_json: bool,
    **options: Any,
) -> None:
    """Store one memory (for --user NAME: that user's). -s/-p/-o make it a fact; the Neo4j password is
    --password here (-p is the predicate)."""
    predicate = options["predicate"]
    if predicate is not None and (options["subject"] is None or options["object"] is None):
        usage_error(
            f"-p {predicate} is --predicate on remember, for a fact with -s and -o",
            "give -s SUBJECT -o OBJECT too; the Neo4j password is --password here (or NEO4J_PASSWORD)",
        )
    fields = {name: opt.value(options[name]) for name, opt in _CLI_FIELDS}
    with open_graph(conn) as mg:
        mem = mg.remember(text, user=owner, **fields)
    if as_json:
        emit_json(mem.to_dict())
    else:
        click.echo(f"{mem.id}  {iso(mem.at)}  {mem.text}")


# ---------------------------------------------------------------------------- read

# recall's options, shared by a QUERY and by each line of --queries (which may give any of them, and "user")
RECALL_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("-k", "--k"), dict(default=DEFAULT_HITS, show_default=True, help="How many hits.")),
    (("--at",), dict(help="Answer as of this time (versions valid then).")),
    (("--include-superseded",), dict(is_flag=True, help="Also return versions that were replaced.")),
    (("--since",), dict(help="Only memories at or after this time.")),
    (("--until",), dict(help="Only memories before this time.")),
    (("--now",), dict(help="Reference time for phrases like 'last week' (default: now).")),
    (("--expand",), dict(default=0, help="Attach N NEXT-neighbours each side as context (0-5).")),
    (
        ("--explain",),
        dict(
            is_flag=True,
            help="Include the manifest: filters, channel candidates, fused ranks; print the plan's statements "
            "with their :param lines for Neo4j Browser.",
        ),
    ),
)
_RECALL_ARGS = (*(click.Option(list(decls)).name for decls, _ in RECALL_OPTIONS), "user")


def recall_options(fn: Callable[..., None]) -> Callable[..., None]:
    """The options of :data:`RECALL_OPTIONS`, in order."""
    for decls, attrs in reversed(RECALL_OPTIONS):
        fn = click.option(*decls, **attrs)(fn)
    return fn


def _recall_one(mg: MemoryGraph, query: str, opts: dict[str, Any]) -> Recall:
    return mg.recall(query, **{k: v for k, v in opts.items() if k in _RECALL_ARGS})


@click.command("recall")
@click.argument("query", required=False)
@recall_options
@click.option("--queries", type=click.Path(dir_okay=False), help='JSONL of {"query": ..., options} (one model load).')
@connection_options
@owner_option("Only memories of this user.")
@json_option
@handle_errors
def recall(
    query: str | None,
    owner: str | None,
    queries: str | None,
    conn: Connection,
    as_json: bool,
    **options: Any,
) -> None:
    """Find memories: filters first, then vector + keyword + entity channels fused by RRF; may abstain."""
    if (query is not None) == bool(queries):  # "" is a bad QUERY (exit 1), not a missing one (exit 2)
        raise click.UsageError("give a QUERY or --queries FILE (not both)")
    base = {**options, "user": owner}
    with open_graph(conn) as mg:
        if queries:
            for n, obj in _batch_queries(queries):
                g = mg.for_tenant(obj["tenant"]) if obj.get("tenant") else mg
                try:
                    res = _recall_one(g, obj["query"], {**base, **{k2: v for k2, v in obj.items() if k2 != "query"}})
                except InputError as e:
                    raise InputError(e.message, line=n, fix=e.fix) from None
                emit_json(res.to_dict()) if as_json else print_recall(res)
            return
        assert query is not None  # one of the two, checked above
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
    query: str | None,
    k: int,
    at: str | None,
    max_depth: int,
    min_confidence: float,
    explain: bool,
    queries: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """Why did it happen: find the symptom, walk CAUSED_BY to the roots (best first); may abstain."""
    if (query is not None) == bool(queries):  # "" is a bad QUERY (exit 1), not a missing one (exit 2)
        raise click.UsageError("give a QUERY or --queries FILE (not both)")
    with open_graph(conn) as mg:
        items: Sequence[tuple[int | None, dict[str, Any]]]  # (line, query object); no line for a QUERY
        if queries:
            items = _batch_queries(queries)
        else:
            assert query is not None  # one of the two, checked above
            items = [(None, {"query": query})]
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
def now(
    subject: str,
    predicate: str,
    object: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """The current value of a slot: SUBJECT PREDICATE [OBJECT for multi-valued predicates]."""
    with open_graph(conn) as mg:
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
def as_of(
    subject: str,
    predicate: str,
    object: str | None,
    at: str,
    known_at: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """The value a slot had at a time."""
    with open_graph(conn) as mg:
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
def history(
    subject: str,
    predicate: str,
    object: str | None,
    known_at: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """Every version of a slot, oldest first."""
    with open_graph(conn) as mg:
        h = mg.history_answer(subject, predicate, object, known_at=known_at)
    emit_json(h.to_dict()) if as_json else print_history(h, h.hint)


@click.command("changes")
@click.option("--since", required=True, help='Time (RFC 3339 or a date) or a phrase ("April 15", "last week").')
@click.option("--limit", default=DEFAULT_CHANGES, show_default=True, help="At most this many.")
@connection_options
@json_option
@handle_errors
def changes(
    since: str,
    limit: int,
    conn: Connection,
    as_json: bool,
) -> None:
    """What changed in the tenant since a time, in valid time: fact versions that took effect, and memories
    that retired an earlier one."""
    with open_graph(conn) as mg:
        rows = mg.changes(since, limit=limit)
    if as_json:
        emit_json({"since": since, "changes": [jsonable(r) for r in rows]})
    else:
        print_changes(rows)


@click.command("timeline")
@click.argument("memory_id")
@click.option("--before", default=DEFAULT_AROUND, show_default=True, help="Memories before it.")
@click.option("--after", default=DEFAULT_AROUND, show_default=True, help="Memories after it.")
@connection_options
@json_option
@handle_errors
def timeline(
    memory_id: str,
    before: int,
    after: int,
    conn: Connection,
    as_json: bool,
) -> None:
    """What happened before and after a memory (its stream's NEXT chain, else nearest in time)."""
    with open_graph(conn) as mg:
        rows = mg.timeline(memory_id, before=before, after=after)
    if as_json:
        emit_json({"id": memory_id, "items": [jsonable(r) for r in rows]})
    else:
        print_timeline(rows)


@click.command("lineage")
@click.argument("memory_id")
@click.option("--depth", default=5, show_default=True, help="SUPERSEDES steps each way (1-5).")
@connection_options
@json_option
@handle_errors
def lineage(
    memory_id: str,
    depth: int,
    conn: Connection,
    as_json: bool,
) -> None:
    """What a memory replaced and what replaced it (SUPERSEDES: a slot's versions, or inferred from plain
    text with its cue and confidence), oldest first."""
    with open_graph(conn) as mg:
        out = mg.lineage(memory_id, depth=depth)
    if as_json:
        emit_json(jsonable(out))
        return
    for row in out["memories"]:
        mark = {"self": "*", "retired": "<", "retired_by": ">"}[row["relation"]]
        click.echo(f"{mark} {iso(row['at'])}  {row['id']}  {row['text']}")
        for e in row["edges"][:1] if row["relation"] != "self" else []:
            how = f"inferred by {e['by']} ({e['confidence']:.2f}; {e['cue']})" if e["inferred"] else "slot chain"
            click.echo(f"      {e['newer']} supersedes {e['older']}: {how}")


@click.command("neighbourhood")
@click.argument("memory_id", metavar="ID")
@click.option("--limit", default=DEFAULT_NEIGHBOURS, show_default=True, help="At most this many in each list.")
@connection_options
@json_option
@handle_errors
def neighbourhood(
    memory_id: str,
    limit: int,
    conn: Connection,
    as_json: bool,
) -> None:
    """A memory and what is next to it: its causes and effects, what it superseded and what superseded it, its
    stream neighbours, the entities it mentions and the document it is a part of."""
    with open_graph(conn) as mg:
        out = mg.neighbourhood(memory_id, limit=limit).to_dict()
    if as_json:
        emit_json(out)
        return
    m = out["memory"]
    click.echo(f"{m['id']}  {m['at']}  {m['text']}")
    rows = [("caused by", out["causes"]), ("caused", out["effects"]), ("supersedes", out["supersedes"])]
    rows += [("superseded by", out["superseded_by"]), ("previous", [out["previous"]] if out["previous"] else [])]
    rows += [("next", [out["next"]] if out["next"] else []), ("part of", [out["part_of"]] if out["part_of"] else [])]
    for label, items in rows:
        for r in items:
            how = f" ({'inferred' if r['inferred'] else 'recorded'}, {r['confidence']:.2f})" if "inferred" in r else ""
            click.echo(f"  {label:<13} {r['id']}  {r['at']}  {r['text']}{how}")
    if out["entities"]:
        click.echo(f"  {'mentions':<13} " + ", ".join(e["name"] or e["key"] for e in out["entities"]))


@click.command("mentions")
@click.argument("entity")
@click.option("--limit", default=DEFAULT_MENTIONS, show_default=True, help="At most this many memories.")
@connection_options
@json_option
@handle_errors
def mentions(
    entity: str,
    limit: int,
    conn: Connection,
    as_json: bool,
) -> None:
    """The memories that mention an entity (a person, a place, a product), newest first."""
    with open_graph(conn) as mg:
        out = mg.mentions(entity, limit=limit)
    if as_json:
        emit_json(out.to_dict())
        return
    if out.hint:
        click.echo(out.hint)
    else:
        click.echo(
            f"{out.name}: {out.total} memories mention it" + (f" (the newest {limit})" if out.total > limit else "")
        )
    for mem in out.memories:
        click.echo(f"{mem.id}  {iso(mem.at)}  {mem.text}")


@click.command("ask")
@click.argument("question")
@click.option("--now", help="Reference time for phrases like 'last week' (default: now).")
@connection_options
@owner_option("Whose memories: who 'I' and 'my' are.")
@json_option
@handle_errors
def ask(
    question: str,
    now: str | None,
    owner: str | None,
    conn: Connection,
    as_json: bool,
) -> None:
    """Ask in plain words: a learned router picks now / as-of / history / recall / why (or none)."""
    with open_graph(conn) as mg:
        res = mg.ask(question, now=now, user=owner)
        hint = getattr(res.result, "hint", None) if res.operation in ("now", "as_of", "history") else None
    if as_json:
        emit_json(res.to_dict())
        return
    for line in describe_ask(res, now=now, owner=owner):
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


COMMANDS = [
    ingest,
    remember,
    recall,
    why,
    ask,
    now,
    as_of,
    history,
    changes,
    timeline,
    lineage,
    neighbourhood,
    mentions,
]

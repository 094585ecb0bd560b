"""Human-readable tables for the CLI (rich). The --json output never goes through here."""

from __future__ import annotations

import datetime as dt
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any, TextIO

import click
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from rich.progress import Progress

from ..results import History, Recall, SlotAnswer, Why, iso

_consoles: dict[bool, Console] = {}


PIPE_WIDTH = 200  # columns of a table written to a pipe or file (COLUMNS overrides)


def progress_bar() -> Progress:
    """The bar a long write shows on standard error (description, bar, done of total, time left); it leaves
    nothing behind when it ends."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console(err=True),
        transient=True,
    )


def console(err: bool = False) -> Console:
    """A rich console. On a terminal it is as wide as the terminal; written to a pipe or a file (``| less``,
    ``> out.txt``) it is COLUMNS or 200 columns wide, so that tables do not squash text into a narrow column."""
    if err not in _consoles:
        stream = sys.stderr if err else sys.stdout
        width = None
        if not _isatty(stream):
            try:
                width = int(os.environ.get("COLUMNS", "")) or PIPE_WIDTH
            except ValueError:
                width = PIPE_WIDTH
        _consoles[err] = Console(stderr=err, highlight=False, soft_wrap=False, width=width)
    return _consoles[err]


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _short(t: dt.datetime | None) -> str:
    s = iso(t) or "—"
    return s.replace("T00:00:00Z", "")


def print_recall(res: Recall) -> None:
    c = console()
    c.print(f"[bold]{res.query}[/bold]")
    if res.abstained:
        c.print(f"[yellow]I don't know[/yellow] — {res.reason}")
    elif res.confidence is not None:
        c.print(f"[dim]confidence {res.confidence:.2f} that the best hit answers it[/dim]")
        if res.reason:
            c.print(f"[dim]{res.reason}[/dim]")
    t = Table(show_edge=False, pad_edge=False)
    for col in ("#", "id", "at", "text", "cos", "vec", "kw", "ent", "ok"):
        t.add_column(col, overflow="fold" if col == "text" else "ellipsis", no_wrap=col != "text")
    for i, h in enumerate(res.hits, 1):
        ch = h.channels
        t.add_row(
            str(i),
            h.id,
            _short(h.at),
            h.text + ("" if h.current else "  [dim](superseded)[/dim]"),
            "—" if h.similarity is None else f"{h.similarity:.2f}",
            *(str(ch.get(x) or "·") for x in ("vector", "keyword", "entity")),
            "✓" if h.confident else "?",
        )
    if res.hits:
        c.print(t)
    if res.explain:
        print_plan(res.explain.get("plan") or [])


def print_plan(plan: list[dict[str, Any]]) -> None:
    """recall's plan as it ran: per statement, why, then the ``:param`` lines to paste into Neo4j Browser before
    ``kgmem cypher NAME --body`` (NAME: the file that ran on this server)."""
    if not plan:
        return
    click.echo(
        "\n// the plan as it ran: paste a statement's :param lines into Neo4j Browser, then `kgmem cypher NAME --body`"
    )
    for step in plan:
        channels = ", ".join(step["channels"])
        ahead = ", sent while the question was embedded" if step.get("ahead") else ""
        click.echo(f"// round {step['round']} · {step['runs']} ({channels}{ahead}): {step['why']}")
        click.echo(step["browser"])


def print_why(res: Why) -> None:
    c = console()
    c.print(f"[bold]{res.query}[/bold]")
    if res.symptom:
        c.print(f"symptom: {res.symptom.id}  {_short(res.symptom.at)}  {res.symptom.text}")
    if res.abstained:
        c.print(f"[yellow]I don't know[/yellow] — {res.reason}")
        return
    for i, r in enumerate(res.roots, 1):
        tag = " (inferred)" if r.get("inferred") else ""
        c.print(
            f"root {i}: {r['id']}  {_short(r['at'])}  depth {r['depth']}  conf {r['confidence']}{tag}\n   {r['text']}"
        )
    for p in res.paths:
        c.print("path: " + " → ".join(p))


def print_slot(ans: SlotAnswer, hint: str | None = None) -> None:
    c = console()
    slot = f"{ans.subject} · {ans.predicate}" + (f" · {ans.object}" if ans.object else "")
    when = f" at {iso(ans.at)}" if ans.at else " now"
    if ans.value is None:
        c.print(f"{slot}{when}: [yellow]nothing recorded[/yellow]", markup=True)
        if hint:
            c.print(f"   hint: {hint}", markup=False)
        return
    v = ans.value
    neg = "" if v.polarity else "NOT "
    c.print(
        f"{slot}{when}: [bold]{neg}{v.object}[/bold]  (since {_short(v.valid_from)}"
        + (f", until {_short(v.valid_to)}" if v.valid_to else "")
        + f"; {v.id})"
    )
    c.print(f"   “{v.text}”")
    for r in ans.retired_by:  # the words say it changed, though the slot's chain has nothing newer
        c.print(
            f"   retired by {r['id']} ({str(r['at'])[:10]}, {r['by']} {r['confidence']:.2f}):"
            f" “{r['text']}” — recall shows what holds now",
            markup=False,
        )


def print_history(h: History, hint: str | None = None) -> None:
    if not h.versions:
        slot = f"{h.subject} · {h.predicate}" + (f" · {h.object}" if h.object else "")
        console().print(f"{slot}: [yellow]nothing recorded[/yellow]")
        if hint:
            console().print(f"   hint: {hint}", markup=False)
        return
    t = Table(show_edge=False, title=f"{h.subject} · {h.predicate}" + (f" · {h.object}" if h.object else ""))
    for col in ("from", "to", "value", "id", "text"):
        t.add_column(col)
    for v in h.versions:
        t.add_row(
            _short(v.valid_from),
            _short(v.valid_to) if v.valid_to else "[green]current[/green]",
            ("" if v.polarity else "NOT ") + v.object,
            v.id,
            v.text,
        )
    console().print(t)


def print_changes(rows: list[dict[str, Any]]) -> None:
    t = Table(show_edge=False)
    for col in ("at", "subject", "predicate", "was", "now", "id"):
        t.add_column(col)
    for r in rows:
        prev = r.get("previous")
        if r.get("kind") == "memory":  # a note that retired an earlier one: its words, and what it replaced
            t.add_row(_short(r["at"]), "", "", prev["text"][:60] if prev else "—", r["text"][:60], r["id"])
            continue
        t.add_row(
            _short(r["at"]),
            r["subject"],
            r["predicate"],
            prev["object"] if prev else "—",
            ("" if r["polarity"] else "NOT ") + str(r["object"]),
            r["id"],
        )
    console().print(t)


def print_timeline(rows: list[dict[str, Any]]) -> None:
    t = Table(show_edge=False)
    for col in ("", "at", "id", "text"):
        t.add_column(col)
    for r in rows:
        mark = "▶" if r["offset"] == 0 else f"{r['offset']:+d}"
        t.add_row(mark, _short(r["at"]), r["id"], r["text"])
    console().print(t)


# what each router intent means, in words (kgmem.router INTENTS)
ASKED = {
    "slot": "the current value of a fact",
    "history": "a fact's value at a time, or how it changed",
    "why": "why something happened",
    "recall": "what the memories say about something",
    "none": "nothing the memories hold (not a memory question)",
}


def describe_ask(res: Any, *, now: str | None = None, owner: str | None = None) -> list[str]:
    """What ``ask`` understood and what answered it, in words, with the command that gives the same answer:
    ``asked: a fact's value at a time, or how it changed (router confidence 0.63)`` and ``answered: the
    value of maya · lives_in at 2026-03-31T23:59:59.999999Z (= kgmem as-of maya lives_in --at …)``."""
    op, r = res.operation, res.result
    intent = ASKED.get(res.intent, res.intent) if op is None or res.intent != "none" else "no memory operation"
    asked = f"asked: {intent} (router confidence {res.confidence:.2f})"
    if op is None:
        return [asked, "answered: nothing (no memory operation answers it)"]
    if op in ("now", "as_of", "history"):
        slot = f"{r.subject} · {r.predicate}" + (f" · {r.object}" if r.object else "")
        args = [r.subject, r.predicate] + ([r.object] if r.object else [])
        if op == "now":
            what, cmd = f"the current value of {slot}", ["now", *args]
        elif op == "as_of":
            what, cmd = f"the value of {slot} at {iso(r.at)}", ["as-of", *args, "--at", iso(r.at)]
        else:
            what, cmd = f"every version of {slot}", ["history", *args]
    else:
        what = {
            "why": "the causes behind the memory that best matches the question",
            "recall": "the memories that best match the question",
        }[op]
        cmd = [op, res.question, *(["--now", now] if now else [])]
        if op == "recall" and owner:
            cmd += ["--user", owner]
    lines = [asked, f"answered: {what} (= kgmem {shlex.join(str(c) for c in cmd)})"]
    if res.note:
        lines.append(f"note: {res.note}")
    return lines

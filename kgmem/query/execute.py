"""The one executor of recall's channels: it reads what the planner needs (:func:`read_stats`), sends a
:class:`~kgmem.query.plan.Plan` round by round — each round's statements side by side, those the plan sends
``ahead`` while the question is embedded —, parses every row into its typed shape (:mod:`kgmem.query.rows`),
asks the planner what each channel still needs (:func:`kgmem.query.plan.advance`: widening, the exact scan)
and keeps what the rows taught (survival shares, exact-scan turns) in the connection's
:class:`~kgmem.query.tenant_stats.TenantStats`.

Usage: :func:`start` (before the question is embedded: the statistics, the plan, the ahead statements on the
store's pool), then :func:`finish` with the question's vector. :func:`channels` does both for a vector in hand.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from ..store import Store
from . import own_keywords
from .filters import Filters
from .plan import Ask, Learnt, Plan, Progress, Rows, Statement, Stats, advance, plan, updated_share
from .question import Keys, Question
from .registry import REGISTRY, run_as
from .rows import CandidateMap, Candidates, CandidatesRow, ChannelRow, EntityRow, Scored
from .tenant_stats import TenantStats

__all__ = ("Found", "Sent", "Started", "channels", "finish", "read_stats", "start")

MAX_ROUNDS = 16  # a plan's rounds are bounded by its widening (×4 up to the cap) and one exact scan


@dataclass(frozen=True)
class Sent:
    """A statement as it was sent, in which round (1: the plan's first)."""

    round: int
    statement: Statement

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, **self.statement.to_dict()}


@dataclass
class Found:
    """Every channel's candidates, the candidate maps the statements returned (by id) and what was sent."""

    found: dict[str, Candidates]
    details: dict[str, CandidateMap]
    sent: list[Sent] = field(default_factory=list)
    stats: Stats | None = None  # what the plan read (a second plan of the same recall reuses its tenant version)


@dataclass
class Started:
    """A plan under way: the plan (made on the store's pool, after the statistics are read) and the rows of
    its ``ahead`` statements."""

    planned: Future[Plan]
    ahead: Future[list[tuple[Statement, Rows, tuple[CandidateMap, ...]]]]


def read_stats(
    store: Store,
    tenant: str,
    channels: tuple[str, ...],
    keys: Keys,
    version: tuple[int, Any] | None = None,
) -> Stats:
    """What the planner reads about ``tenant``: the survival shares learnt, how many exact-scan decisions it had,
    a small tenant's size (when the server filters the vector index by tenant: then its vectors are all scored)
    and its own keyword rankings of the question's terms (``keys``; none without terms, or for a bigger tenant).
    ``version``: the tenant's version when the caller has just read it (else read here when needed)."""
    state = TenantStats.of(store)
    filtered = store.server_info().filtered_vector_search
    words = keys.lucene is not None and any(REGISTRY[c].is_keyword for c in channels)
    corpus = own_keywords.corpus(store, tenant, version) if words else None  # reads the version unless known
    vectors = any(REGISTRY[c].is_vector for c in channels)
    small: int | None
    if corpus is not None:
        version, small = corpus.version, corpus.version[0]
    else:
        small = own_keywords.small_size(store, tenant, version) if filtered and vectors else None
    as_itself = corpus is not None and corpus.as_itself
    run, _ = run_as(channels, as_itself)  # a context channel that takes its own channel's ranking is not ranked
    given = None if corpus is None else own_keywords.rankings(corpus, keys.terms, run)
    shares = {c: state.share(tenant, c) for c in dict.fromkeys(("vector", "keyword", *run))}
    return Stats(filtered, shares, state.exact_runs(tenant), small, given, version, as_itself)


def ask_of(q_keys: Keys, filters: Filters, channels: tuple[str, ...], depth: int, overfetch: int, stats: Stats) -> Ask:
    return Ask(
        tenant=filters.tenant,
        filters=filters.params(),
        window=filters.start is not None or filters.end is not None,
        maps=filters.rank_window is not None,
        lucene=q_keys.lucene,
        key_ngrams=q_keys.ngrams,
        named_keys=q_keys.named,
        channels=channels,
        depth=depth,
        overfetch=overfetch,
        stats=stats,
    )


def start(
    store: Store,
    keys: Keys,
    filters: Filters,
    channels: tuple[str, ...],
    depth: int,
    overfetch: int,
    *,
    version: tuple[int, Any] | None = None,
) -> Started:
    """Read the statistics, plan and send the plan's ``ahead`` statements, on the store's pool, in one task (no
    task waits for another, so recalls from many threads cannot starve the pool). ``keys``: those of the
    question's ranking text (:func:`kgmem.query.question.keys_of`); ``version``: the tenant's version when the caller has just read it."""
    planned: Future[Plan] = Future()

    def run() -> list[tuple[Statement, Rows, tuple[CandidateMap, ...]]]:
        try:
            stats = read_stats(store, filters.tenant, channels, keys, version)
            made = plan(ask_of(keys, filters, channels, depth, overfetch, stats))
        except BaseException as exc:
            planned.set_exception(exc)
            raise
        planned.set_result(made)
        return [_send(store, s, None) for s in made.statements if s.ahead]

    return Started(planned, store.runtime.pool.submit(run))


def finish(store: Store, started: Started, vector: list[float] | None) -> Found:
    """Send the rest of the plan ``started`` with the question's ``vector``, round after round, until every
    channel has its candidates."""
    made = started.planned.result()
    ask = made.ask
    _learn(store, ask.tenant, made.learnt)
    progress: dict[str, Progress] = dict(made.settled)
    details: dict[str, CandidateMap] = {}
    sent = [Sent(1, s) for s in made.statements]
    todo = [s for s in made.statements if not s.ahead]
    first = True
    for n in range(1, MAX_ROUNDS + 1):
        results = _side_by_side(store, todo, vector)
        if first:  # the ahead statements' rows come after this thread's: the plan's order is kept for the maps
            results += started.ahead.result()
            order = {id(s): i for i, s in enumerate(made.statements)}
            results.sort(key=lambda r: order[id(r[0])])
            first = False
        for statement, rows, maps in results:
            step, learnt = advance(ask, statement, rows)
            progress.update(step)
            _learn(store, ask.tenant, learnt)
            details.update({d.id: d for d in maps})
        todo = [p.next for p in progress.values() if p.next is not None]
        if not todo:
            break
        sent += [Sent(n + 1, s) for s in todo]
    else:  # the planner widens at most up to its cap: a plan that does not end is a bug, not a slow query
        raise RuntimeError(f"recall's plan did not settle in {MAX_ROUNDS} rounds: {[s.name for s in todo]}")
    found = {name: progress[name].candidates() for name in ask.channels}
    for name, own in made.mirrors.items():  # a context channel that takes its own channel's ranking
        found[name] = found[own].taken_by(name)
    found = {name: found[name] for name in made.asked()}
    return Found(found, details, sent, ask.stats)


def channels(
    store: Store, q: Question, filters: Filters, channels: tuple[str, ...], depth: int, overfetch: int = 3
) -> Found:
    """Every named channel's candidates for a question already embedded (:func:`start`, then :func:`finish`)."""
    return finish(store, start(store, q.keys, filters, channels, depth, overfetch), q.vector_list)


# ---------------------------------------------------------------------------- sending and reading


def _side_by_side(
    store: Store, statements: list[Statement], vector: list[float] | None
) -> list[tuple[Statement, Rows, tuple[CandidateMap, ...]]]:
    """Each statement's typed rows, in order: all but the last on the store's pool, the last in this thread."""
    if not statements:
        return []
    pending = [store.runtime.pool.submit(_send, store, s, vector) for s in statements[:-1]]
    last = _send(store, statements[-1], vector)
    return [*(f.result() for f in pending), last]


def _send(
    store: Store, statement: Statement, vector: list[float] | None
) -> tuple[Statement, Rows, tuple[CandidateMap, ...]]:
    rows = store.read(statement.name, **statement.bind(vector))
    return (statement, *_typed(statement, rows))


def _typed(statement: Statement, rows: list[dict[str, Any]]) -> tuple[Rows, tuple[CandidateMap, ...]]:
    """A statement's rows in their shape (and the candidate maps a ``recall/candidates`` row carries)."""
    if statement.kind == "candidates":
        row = CandidatesRow.of(rows[0], statement.channels)
        return row, row.details
    if statement.kind == "entity":
        return EntityRow.of(rows[0]), ()
    if statement.kind == "exact":
        return Scored.many(rows), ()
    if statement.kind == "count":
        return int(rows[0]["eligible"]), ()
    return ChannelRow.of(rows[0]), ()


def _learn(store: Store, tenant: str, learnt: tuple[Learnt, ...]) -> None:
    state = TenantStats.of(store)
    for item in learnt:
        if item.what == "exact_turn":
            state.exact_turn(tenant)
            continue
        share = updated_share(state.share(tenant, item.channel), item.fetched, item.eligible)
        if share is not None:
            state.set_share(tenant, item.channel, share)

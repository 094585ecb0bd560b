"""Recall's channels as a plan: which statements to send, with which parameters, and why — pure.

:func:`plan` reads what is asked (:class:`Ask`: the question's keys, the filters, the channels, the depth) and
what is known about the tenant and the server (:class:`Stats`: the survival shares learnt, the server's
in-index filter, a small tenant's own keyword rankings) and returns the first round of statements
(:class:`Plan`). :func:`advance` reads a statement's typed rows (:mod:`kgmem.query.rows`) and says, per channel,
what it found and the statement still to send (:class:`Progress`): widening an index that gave too few
eligible candidates, the exact scan when even that falls short, the vector channel of a time window once its
size is counted. The executor (:mod:`kgmem.query.execute`) sends each round side by side until no channel has a
statement left; it is the only code that talks to the store, and the only one that records what was learnt
(:class:`Learnt`).

Two shapes of first round:

* no time window — one ``recall/candidates`` call per family (:func:`kgmem.query.registry.families`): the
  vector searches, and the word channels (fulltext and entity), which need the question's words only and are
  sent while the question is embedded (``ahead``);
* a time window — one statement per channel (``recall/vector``, ``recall/keyword``, ``recall/entity``), and for
  the memory's own vector first ``recall/eligible_count``: a window of at most :data:`EXACT_LIMIT` memories is
  scanned exactly (``recall/vector_exact``).

Fetch sizing: an index is asked for enough candidates that ``depth`` survive the eligibility rule in one round
trip, from the share that survived last time (:func:`first_fetch`), and asked again with 4× more while too
few survive and the index had more to give. On Neo4j 5.26 (no in-index filter) a tenant that is a sliver of the
index is scanned exactly from the first query (:func:`exact_due`), every :data:`REPROBE`-th query asking the
index again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping, Sequence

from ..results import jsonable
from ..store.rules import VECTOR_INDEX_PROPERTY
from . import lucene
from .own_keywords import Given
from .registry import REGISTRY, families, run_as
from .rows import Candidates, CandidatesRow, ChannelRow, EntityRow, Scored

MAX_FETCH = 4000
DEFAULT_SHARE = 0.5  # the survival share assumed before a tenant's first query has measured one
EXACT_LIMIT = 20000  # a time-windowed eligible set up to this size is scanned exactly
# ... and, on a server whose vector index cannot filter by tenant (5.26), up to this size on the context channels'
# vectors too: their search over every tenant's vectors misses some of a small window's memories, and which ones
# depends on what else the index holds
EXACT_CONTEXT_LIMIT = 2000
# On 5.26 (no in-index filter) an index fetch larger than this — the survival share says the tenant is that
# small a part of the index — is replaced by the exact scan of the tenant's memories; every REPROBE-th query
# of such a tenant asks the index again, so a tenant that has grown (or whose neighbours shrank) is noticed.
EXACT_OVER_FETCH = 1000
REPROBE = 32
MAX_ENTITY_MENTIONS = 5000  # broader entities cost a cosine per mention; a speaker of a long chat has thousands

Kind = Literal["candidates", "index", "own", "exact", "count", "entity"]


class _Vector:
    """The question's vector in a plan's parameters: the plan is made before the question is embedded, and the
    executor binds it when it sends the statement."""

    def __repr__(self) -> str:
        return "<the question's vector>"


VECTOR: Any = _Vector()


# ---------------------------------------------------------------------------- what the planner reads


@dataclass(frozen=True)
class Stats:
    """What is known about the tenant and the server when a recall is planned (read by the executor,
    :func:`kgmem.query.execute.read_stats`).

    ``shares``: per channel, the share of its index's candidates that survived the rule last time (None: not
    measured); ``exact_runs``: how many exact-scan decisions this tenant has had (5.26); ``small``: the tenant's
    size when it is small enough for its own keyword statistics, else None; ``given``: the keyword channels'
    rankings by those statistics (None: Lucene ranks); ``version``: the tenant's version they were read at;
    ``as_itself``: no memory of the (small) tenant has an exchange around it, so its context texts and vectors
    are its own (:data:`kgmem.query.registry.AS_ITSELF`)."""

    filtered_vector_search: bool
    shares: Mapping[str, float | None] = field(default_factory=dict)
    exact_runs: int = 0
    small: int | None = None
    given: Given | None = None
    version: tuple[int, Any] | None = None  # the tenant's version the statistics were read at (None: not read)
    as_itself: bool = False  # every memory reads as itself: each context channel is its own channel's ranking

    def share(self, channel: str) -> float | None:
        return self.shares.get(channel)


@dataclass(frozen=True)
class Ask:
    """What a recall asks of its channels: the tenant and the eligibility rule's parameters (``filters``:
    :meth:`kgmem.query.filters.Filters.params`), whether a time window bounds it, whether every candidate's
    map is read (a time phrase ranks by its window), the question's keys, the channels and how deep."""

    tenant: str
    filters: Mapping[str, Any]
    window: bool
    maps: bool
    lucene: str | None
    key_ngrams: tuple[str, ...]
    named_keys: tuple[str, ...]
    channels: tuple[str, ...]
    depth: int
    overfetch: int
    stats: Stats


# ---------------------------------------------------------------------------- what the planner says


@dataclass(frozen=True)
class Statement:
    """One statement to send: the ``cypher/`` file, its parameters (:data:`VECTOR` where the question's vector
    goes), why it is there, the channels whose rows it brings, and ``ahead``: it needs no vector and is sent
    while the question is embedded. ``kind`` and ``meta`` say how :func:`advance` reads its rows."""

    name: str
    params: Mapping[str, Any]
    why: str
    channels: tuple[str, ...]
    kind: Kind
    ahead: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def needs_vector(self) -> bool:
        return any(v is VECTOR for v in self.params.values())

    def bind(self, vector: list[float] | None) -> dict[str, Any]:
        """The parameters to send, the question's vector in its place."""
        if self.needs_vector and vector is None:
            raise ValueError(f"{self.name} needs the question's vector")
        return {k: (vector if v is VECTOR else v) for k, v in self.params.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": self.name,
            "why": self.why,
            "channels": list(self.channels),
            "ahead": self.ahead,
            "params": {k: ("<the question's vector>" if v is VECTOR else jsonable(v)) for k, v in self.params.items()},
        }

    def browser(self, vector: Sequence[float] | None = None) -> str:
        """The ``:param`` lines that set this statement's parameters in Neo4j Browser (``kgmem cypher NAME
        --body`` prints the statement to run after them)."""
        return "\n".join(
            f":param {k} => {cypher_literal(vector if v is VECTOR and vector is not None else v)};"
            for k, v in self.params.items()
        )


@dataclass(frozen=True)
class Learnt:
    """What a statement's rows taught about the tenant, for the executor to keep: a survival share measured
    (``fetched``, ``eligible`` of ``channel``), or one more exact-scan decision taken."""

    what: Literal["share", "exact_turn"]
    channel: str = ""
    fetched: int = 0
    eligible: int = 0


@dataclass(frozen=True)
class Progress:
    """Where a channel stands: its candidates so far, what its statements did (``tries``), the statement still
    to send (``next``; None: done) and what extra it says (``detail``)."""

    channel: str
    hits: tuple[Scored, ...] = ()
    tries: tuple[Mapping[str, Any], ...] = ()
    next: Statement | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.next is None

    def candidates(self) -> Candidates:
        detail = dict(self.detail)
        if self.tries:
            detail["tries"] = [dict(t) for t in self.tries]
        return Candidates.scored(self.channel, self.hits, detail)


@dataclass(frozen=True)
class Plan:
    """The first round of statements, the channels already settled by planning (a keyword channel with no
    keyword terms), and what planning itself learnt (an exact-scan decision)."""

    ask: Ask
    statements: tuple[Statement, ...]
    settled: Mapping[str, Progress] = field(default_factory=dict)
    learnt: tuple[Learnt, ...] = ()
    mirrors: Mapping[str, str] = field(default_factory=dict)  # a channel not run -> the channel whose ranking it takes
    channels: tuple[str, ...] = ()  # the channels asked for, in their order (empty: those of ``ask``)

    def to_dict(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.statements]

    def asked(self) -> tuple[str, ...]:
        """The channels the recall asked for, in its order: those run, and those that take another's ranking."""
        return self.channels or self.ask.channels


# ---------------------------------------------------------------------------- fetch sizing (pure)


def first_fetch(stats: Stats, channel: str, depth: int) -> int:
    """How many index candidates to ask for so that ``depth`` survive the filters in one round trip, from the
    share that survived last time (a tenant that is 5 % of the index needs ~20×), with 30 % to spare. A tenant
    whose candidates all survive (Neo4j 2026.x filters the vector index by tenant) asks for 1.3 × ``depth``."""
    share = stats.share(channel)
    if share is None:
        share = DEFAULT_SHARE
    return int(min(MAX_FETCH, max(50, depth / max(share, 0.01) * 1.3)))


def family_fetch(stats: Stats, channels: tuple[str, ...], depth: int) -> tuple[int, int]:
    """The index fetch of the vector searches and of the fulltext ones (``recall/candidates`` takes one for each
    family): the most that any of the family's ``channels`` needs, each by the share learnt on its own index — the
    window index of a chat tenant beside another's short notes can keep far fewer than its memory index."""
    fetch = {c: first_fetch(stats, c, depth) for c in ("vector", "keyword", *channels)}
    return (
        max((fetch[c] for c in channels if REGISTRY[c].is_vector), default=fetch["vector"]),
        max((fetch[c] for c in channels if REGISTRY[c].is_keyword), default=fetch["keyword"]),
    )


def search_size(stats: Stats, v_fetch: int) -> int:
    """How many nearest the vector indexes are asked for, of which recall keeps the best ``v_fetch``: for a small
    tenant on a server that filters the index by tenant, every one of its vectors (:data:`MAX_FETCH`, above any
    small tenant's size) — when no more memories pass the index's filter than are asked for, Lucene scores each
    of them instead of walking the HNSW graph, so the nearest are exact and do not depend on what else the index
    holds."""
    if not stats.filtered_vector_search or stats.small is None:
        return v_fetch
    return MAX_FETCH  # first_fetch never asks for more


def updated_share(old: float | None, fetched: int, eligible: int) -> float | None:
    """The survival share after a measurement (``eligible`` of ``fetched`` passed), averaged with what was
    known; None: nothing was fetched, nothing to learn."""
    if fetched <= 0:
        return old
    share = min(1.0, eligible / fetched)
    return share if old is None else 0.5 * old + 0.5 * share


def exact_checked(stats: Stats, depth: int) -> bool:
    """Whether this query is one where the exact scan is weighed (5.26, a tenant so small a part of the index
    that over-fetching costs more than reading its memories): it counts one exact-scan decision."""
    return not stats.filtered_vector_search and first_fetch(stats, "vector", depth) > EXACT_OVER_FETCH


def exact_due(stats: Stats, depth: int) -> bool:
    """Whether the vector channels scan the tenant's memories rather than over-fetch from the index: weighed
    (:func:`exact_checked`), and not the turn on which the index is asked again."""
    return exact_checked(stats, depth) and (stats.exact_runs + 1) % REPROBE != 0


# ---------------------------------------------------------------------------- the first round


def plan(ask: Ask) -> Plan:
    """The first round of statements for ``ask`` (see the module's docstring). In a tenant whose memories all
    read as themselves (``Stats.as_itself``) a context channel is not searched: it takes the ranking of the
    channel of the memory's own text or vector (:func:`kgmem.query.registry.run_as`), which is the same; the
    plan's ``mirrors`` say which, and its statements say so in ``why``."""
    asked = ask.channels
    run, mirrors = run_as(asked, ask.stats.as_itself)
    if mirrors:
        ask = replace(ask, channels=run)
    made = _window_plan(ask) if ask.window else _candidates_plan(ask)
    if not mirrors:
        return made
    statements = tuple(_saying_mirrors(st, mirrors) for st in made.statements)
    return replace(made, statements=statements, mirrors=mirrors, channels=asked)


def _saying_mirrors(st: Statement, mirrors: Mapping[str, str]) -> Statement:
    """``st`` with its ``why`` naming the channels that take the ranking of one it runs."""
    took = [m for m, own in mirrors.items() if own in st.channels]
    if not took:
        return st
    owns = ", ".join(dict.fromkeys(mirrors[m] for m in took))
    return replace(st, why=f"{st.why}; {', '.join(took)} take the ranking of {owns}: every memory reads as itself")


def _candidates_plan(ask: Ask) -> Plan:
    stats, depth = ask.stats, ask.depth
    exact = exact_due(stats, depth)
    v_fetch, k_fetch = family_fetch(stats, ask.channels, depth)
    if exact:  # 5.26, a tenant that is a sliver of the index: its memories are scanned; keep what the rule kept
        v_fetch = MAX_FETCH
    has_vector = any(REGISTRY[c].is_vector for c in ask.channels)
    params: dict[str, Any] = dict(
        vector=VECTOR if has_vector else None,
        vector_fetch=v_fetch,
        vector_search=search_size(stats, v_fetch) if has_vector else v_fetch,
        vector_exact=exact,
        lucene=ask.lucene,
        tenant_scope=lucene.tenant_scope(ask.tenant),
        key_ngrams=list(ask.key_ngrams) if "entity" in ask.channels else None,
        keyword_fetch=k_fetch,
        named_keys=list(ask.named_keys),
        max_mentions=MAX_ENTITY_MENTIONS,
        depth=depth,
        # the best k_fetch of each own ranking, as many as Lucene would be asked for (widened if short)
        given=None if stats.given is None else {name: ranked[:k_fetch] for name, ranked in stats.given.items()},
        # every candidate's map (what the boosts read) when a time phrase ranks by its window; otherwise only when
        # an entity the question names matched (the statement knows): without either nothing reads them before
        # recall/details, which reads the kept and pooled candidates' maps anyway
        maps=ask.maps,
        **ask.filters,
    )
    statements = []
    for group in families(ask.channels):
        vectors = REGISTRY[group[0]].group == "vector"
        why = (
            f"the vector searches ({', '.join(group)}), {'an exact scan of the tenant' if exact else f'{v_fetch} nearest each'}"
            if vectors
            else f"the word channels ({', '.join(group)}), sent while the question is embedded"
        )
        statements.append(
            Statement(
                "recall/candidates",
                {**params, "channels": list(group), "vector": VECTOR if vectors else None},
                why,
                group,
                "candidates",
                ahead=not vectors,
                meta={"v_fetch": v_fetch, "k_fetch": k_fetch, "exact": exact},
            )
        )
    learnt = (Learnt("exact_turn"),) if exact_checked(stats, depth) else ()
    return Plan(ask, tuple(statements), {}, learnt)


def _window_plan(ask: Ask) -> Plan:
    statements: list[Statement] = []
    settled: dict[str, Progress] = {}
    # the vector channels that wait for the count: the memory's own; on 5.26 the context ones too
    counted = tuple(
        n for n in ask.channels if n == "vector" or (REGISTRY[n].is_vector and not ask.stats.filtered_vector_search)
    )
    for name in ask.channels:
        spec = REGISTRY[name]
        if spec.family == "entity":
            statements.append(_entity(ask))
        elif name in counted:
            if name == counted[0]:
                statements.append(
                    Statement(
                        "recall/eligible_count",
                        {**ask.filters, "limit": EXACT_LIMIT + 1},
                        f"how many memories the time window holds: up to {EXACT_LIMIT} are scanned exactly",
                        counted,
                        "count",
                    )
                )
        elif spec.is_keyword and ask.lucene is None:
            settled[name] = Progress(name, detail={"lucene": None})
        elif spec.is_keyword and ask.stats.given is not None and name in ask.stats.given:
            statements.append(_own(ask, name, ()))
        else:
            statements.append(_windowed_index(ask, name))
    return Plan(ask, tuple(statements), settled, ())


def _windowed_index(ask: Ask, name: str) -> Statement:
    """An index channel inside a time window: its own statement, over-fetched."""
    return _index(ask, name, min(MAX_FETCH, max(ask.depth * ask.overfetch, 50)))


def _entity(ask: Ask) -> Statement:
    return Statement(
        "recall/entity",
        dict(
            key_ngrams=list(ask.key_ngrams),
            named_keys=list(ask.named_keys),
            max_mentions=MAX_ENTITY_MENTIONS,
            depth=ask.depth,
            **ask.filters,
        ),
        "the entities the question names → the memories that mention them",
        ("entity",),
        "entity",
    )


def _index(ask: Ask, name: str, fetch: int, tries: tuple[Mapping[str, Any], ...] = ()) -> Statement:
    """An index channel by its own statement, ``fetch`` candidates asked of its index."""
    spec = REGISTRY[name]
    params: dict[str, Any] = {"index": spec.index}
    if spec.is_vector:
        params["vector"] = VECTOR
    else:
        params.update(field=spec.field, lucene=ask.lucene, tenant_scope=lucene.tenant_scope(ask.tenant), given=None)
    params.update(fetch=fetch, k=ask.depth, **ask.filters)
    why = f"{name}: {fetch} from its index" + (", widened: too few survived the filters" if tries else "")
    return Statement(spec.solo, params, why, (name,), "index", meta={"tries": tries})


def _own(ask: Ask, name: str, tries: tuple[Mapping[str, Any], ...]) -> Statement:
    """A keyword channel of a small tenant: every id its own ranking holds, read and kept when eligible."""
    spec = REGISTRY[name]
    ranked = (ask.stats.given or {}).get(name, [])
    return Statement(
        spec.solo,
        dict(
            index=spec.index,
            field=spec.field,
            lucene=ask.lucene,
            tenant_scope=lucene.tenant_scope(ask.tenant),
            fetch=max(1, len(ranked)),
            k=ask.depth,
            given=ranked,
            **ask.filters,
        ),
        f"{name}: the tenant's own BM25 ranking ({len(ranked)} ids)" + (", all of it" if tries else ""),
        (name,),
        "own",
        meta={"tries": tries},
    )


def _exact(ask: Ask, name: str, tries: tuple[Mapping[str, Any], ...], eligible: int | None) -> Statement:
    """A vector channel by an exact scan of the eligible memories' vectors of its index."""
    prop = VECTOR_INDEX_PROPERTY[REGISTRY[name].index or ""]
    return Statement(
        "recall/vector_exact",
        {"property": prop, "vector": VECTOR, "k": ask.depth, **ask.filters},
        f"{name}: an exact scan of the eligible memories",
        (name,),
        "exact",
        meta={"tries": tries, "eligible": eligible},
    )


# ---------------------------------------------------------------------------- the next rounds


Rows = CandidatesRow | ChannelRow | EntityRow | tuple[Scored, ...] | int


def advance(ask: Ask, statement: Statement, rows: Rows) -> tuple[dict[str, Progress], tuple[Learnt, ...]]:
    """What ``statement``'s typed ``rows`` say for each channel it served (its candidates, or the statement
    still to send), and what they taught (:class:`Learnt`)."""
    if statement.kind == "candidates":
        assert isinstance(rows, CandidatesRow)
        out: dict[str, Progress] = {}
        learnt: list[Learnt] = []
        for name in statement.channels:
            progress, more = _from_candidates(ask, statement, rows, name)
            out[name] = progress
            learnt += more
        return out, tuple(learnt)
    name = statement.channels[0]
    tries = tuple(statement.meta.get("tries", ()))
    if statement.kind == "entity":
        assert isinstance(rows, EntityRow)
        return {name: Progress(name, rows.hits, (), None, {"entities": [dict(e) for e in rows.entities]})}, ()
    if statement.kind == "exact":
        assert isinstance(rows, tuple)
        eligible = statement.meta.get("eligible")
        step = {"exact": True, **({"eligible": eligible} if eligible is not None else {}), "kept": len(rows)}
        return {name: Progress(name, rows, (*tries, step))}, ()
    if statement.kind == "count":
        assert isinstance(rows, int)
        return _after_count(ask, rows, statement.channels)
    assert isinstance(rows, ChannelRow)
    if statement.kind == "own":
        ranked = len((ask.stats.given or {}).get(name, []))
        step = {"own": True, "ranked": ranked, "eligible": rows.eligible, "kept": len(rows.hits)}
        detail = {"lucene": ask.lucene, "own_statistics": True}
        return {name: Progress(name, rows.hits, (*tries, step), None, detail)}, ()
    return _after_index(ask, statement, rows, tries)


def _from_candidates(
    ask: Ask, statement: Statement, rows: CandidatesRow, name: str
) -> tuple[Progress, tuple[Learnt, ...]]:
    """One channel's part of a ``recall/candidates`` row, widened by its own statement if short."""
    spec = REGISTRY[name]
    if spec.family == "entity":
        assert rows.entity is not None
        return Progress(name, rows.entity.hits, (), None, {"entities": [dict(e) for e in rows.entity.entities]}), ()
    row = rows.channels[name]
    given = ask.stats.given
    if given is not None and name in given:  # the tenant's own ranking: widened to all of it when too few survive
        sent = min(statement.meta["k_fetch"], len(given[name]))
        tries = (
            {"own": True, "ranked": len(given[name]), "sent": sent, "eligible": row.eligible, "kept": len(row.hits)},
        )
        detail = {"lucene": ask.lucene, "own_statistics": True}
        if len(row.hits) < ask.depth and len(given[name]) > sent:
            return Progress(name, row.hits, tries, _own(ask, name, tries), detail), ()
        return Progress(name, row.hits, tries, None, detail), ()
    searches = spec.is_vector or ask.lucene is not None
    hits = row.hits if searches else ()
    detail = {} if spec.is_vector else {"lucene": ask.lucene}
    if spec.is_vector and statement.meta["exact"]:  # every eligible memory was scored: nothing to widen or learn
        return Progress(name, hits, ({"exact": True, "eligible": row.eligible, "kept": len(hits)},), None, detail), ()
    fetch = statement.meta["v_fetch"] if spec.is_vector else statement.meta["k_fetch"]
    tries = ({"fetch": fetch, "fetched": row.fetched, "kept": len(hits)},)
    learnt = (Learnt("share", name, row.fetched, row.eligible or 0),)
    if searches and len(hits) < ask.depth and row.fetched >= fetch:
        return Progress(name, hits, tries, _index(ask, name, min(MAX_FETCH, fetch * 4), tries), detail), learnt
    return Progress(name, hits, tries, None, detail), learnt


def _after_count(ask: Ask, eligible: int, names: tuple[str, ...]) -> tuple[dict[str, Progress], tuple[Learnt, ...]]:
    """The vector channels ``names`` inside a time window, once the window is counted (nothing to scan in an
    empty one): the memory's own vector by an exact scan of a window of at most :data:`EXACT_LIMIT`, else from
    the index (or the exact scan of a tenant that is a sliver of it); a context channel that waited for the count
    (5.26) by an exact scan of a window of at most :data:`EXACT_CONTEXT_LIMIT`, else from its index."""
    if eligible == 0:
        return {n: Progress(n, (), ({"exact": True, "eligible": 0, "kept": 0},)) for n in names}, ()
    out = {
        n: Progress(
            n, next=_exact(ask, n, (), eligible) if eligible <= EXACT_CONTEXT_LIMIT else _windowed_index(ask, n)
        )
        for n in names
        if n != "vector"
    }
    if "vector" not in names:
        return out, ()
    if eligible <= EXACT_LIMIT:
        return {**out, "vector": Progress("vector", next=_exact(ask, "vector", (), eligible))}, ()
    learnt = (Learnt("exact_turn"),) if exact_checked(ask.stats, ask.depth) else ()
    if exact_due(ask.stats, ask.depth):
        return {**out, "vector": Progress("vector", next=_exact(ask, "vector", (), None))}, learnt
    fetch = first_fetch(ask.stats, "vector", ask.depth)
    return {**out, "vector": Progress("vector", next=_index(ask, "vector", fetch))}, learnt


def _after_index(
    ask: Ask, statement: Statement, row: ChannelRow, tries: tuple[Mapping[str, Any], ...]
) -> tuple[dict[str, Progress], tuple[Learnt, ...]]:
    """An index channel's own statement: asked again with 4× more while too few survive the filters and the
    index had more to give; then, for the memory's own vector, the survival share learnt and, still short, the
    exact scan."""
    name = statement.channels[0]
    spec = REGISTRY[name]
    fetch = int(statement.params["fetch"])
    tries = (*tries, {"fetch": fetch, "fetched": row.fetched, "eligible": row.eligible, "kept": len(row.hits)})
    detail = {} if spec.is_vector else {"lucene": ask.lucene}
    if not (len(row.hits) >= ask.depth or row.fetched < fetch or fetch >= MAX_FETCH):
        return {name: Progress(name, row.hits, tries, _index(ask, name, min(MAX_FETCH, fetch * 4), tries), detail)}, ()
    if name != "vector":
        return {name: Progress(name, row.hits, tries, None, detail)}, ()
    learnt = (Learnt("share", name, row.fetched, row.eligible or 0),)
    if len(row.hits) < ask.depth and row.fetched >= fetch:  # a small part of a large index: scan it exactly
        return {name: Progress(name, row.hits, tries, _exact(ask, name, tries, None), detail)}, learnt
    return {name: Progress(name, row.hits, tries, None, detail)}, learnt


# ---------------------------------------------------------------------------- printing


def cypher_literal(value: Any) -> str:
    """A parameter value as Neo4j Browser's ``:param`` takes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, dt.datetime):
        return f"datetime('{value.isoformat()}')"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"`{k}`: {cypher_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    if hasattr(value, "tolist"):
        return cypher_literal(value.tolist())
    return cypher_literal(str(value))


__all__ = (
    "Ask",
    "DEFAULT_SHARE",
    "EXACT_CONTEXT_LIMIT",
    "EXACT_LIMIT",
    "EXACT_OVER_FETCH",
    "Learnt",
    "MAX_ENTITY_MENTIONS",
    "MAX_FETCH",
    "Plan",
    "Progress",
    "REPROBE",
    "Statement",
    "Stats",
    "VECTOR",
    "advance",
    "cypher_literal",
    "exact_checked",
    "exact_due",
    "family_fetch",
    "first_fetch",
    "plan",
    "search_size",
    "updated_share",
)

"""``recall``: filters → channels → reciprocal rank fusion (+ entity and time boosts) → abstention → typed
answer (+ manifest).

:func:`recall` runs named steps, each a function of its own (and each unit-tested where it is pure); steps
1–4 are :func:`rank` (what ``why`` runs to find its symptom):

1. :func:`gather` — every channel's candidates: a plan of statements (:mod:`kgmem.query.plan`, pure) sent by
   the one executor (:mod:`kgmem.query.execute`), and a second plan without the time phrase's window when that
   window holds nothing;
2. :func:`fuse` — reciprocal rank fusion of the channels (pure);
3. :func:`boost` — the entity and time boosts, on the details of every candidate (:func:`bonuses` is pure);
4. :func:`select` — the best ``k`` hits, one per repeated sentence (:func:`collapse` is pure);
5. :func:`judge` — what the verdict reads, then its steps (:mod:`kgmem.query.verdict`: the hand policy per hit,
   the learned confidence for the answer, a retired best hit, an answer no memory gives; pure);
6. :func:`attach_context` — the NEXT neighbours of each hit, when asked;
7. :func:`manifest` — what ran and why, when ``explain``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeGuard

from ..config import DEFAULT_HITS
from ..embed import Embedder
from ..errors import InputError
from ..normalize import clean_text
from ..results import Hit, Recall, cosine, iso, normalised, retiring_order
from ..store import Store, cypher
from ..validate import MAX_HITS, check_choices, check_int
from . import confidence, currency, execute, meaning
from .abstain import AbstainPolicy
from .filters import Filters
from .fusion import DEFAULT_K, ENTITY_BOOST, TIME_BOOST, Fused, rrf
from .fusion import boost as add_bonuses
from .question import Question, keys_of, padded_key
from .registry import CHANNELS
from .rows import CandidateMap, Candidates, HitMap, PoolMap, map_of
from .verdict import Reading, Verdict, verdict_of
from .verdict import features as verdict_features

CONTEXT_TRANSFORM = "context/v1"  # the derived stream context the context channels search (kgmem.derived.context)
# the channels recall runs unless told: all of them. Each was left out in turn on the development conversations
# and update sets; every one pays on some data set (the figures are in CHANGELOG's benchmark log).
DEFAULT_CHANNELS = CHANNELS
TIE_CHANNEL = "vector"  # an exact tie of fused scores goes to the memory the question's meaning ranks higher
TRANSFORM_VERSION = "recall/v2"
STATEMENTS = ("recall/candidates", "recall/vector", "recall/vector_exact", "recall/keyword", "recall/entity")


@dataclass(frozen=True)
class RecallOptions:
    k: int = DEFAULT_HITS
    rrf_k: int = DEFAULT_K
    depth: int = 50  # candidates per channel entering fusion
    overfetch: int = 3  # index candidates asked per wanted candidate (widened when filters remove more)
    expand: int = 0  # NEXT neighbours (each side) attached to each hit as context
    channels: tuple[str, ...] = DEFAULT_CHANNELS
    # per-channel RRF weights (1.0 unless named): the entity channel brings its candidates in but its rank adds
    # nothing — the entity boost carries "mentions who is asked about" (its rank on top of the boost cost recall
    # on the development conversations)
    weights: tuple[tuple[str, float], ...] = (("entity", 0.0),)
    entity_boost: float = ENTITY_BOOST  # added to the fused score of hits mentioning the question's entities
    time_boost: float = TIME_BOOST  # added to the fused score of hits inside a time phrase's ranking window
    policy: AbstainPolicy = field(default_factory=AbstainPolicy)
    learned: bool = True  # the shipped confidence model decides abstention (when it is there)
    currency: bool = True  # a question about the present ranks a retired memory below what retired it

    def __post_init__(self) -> None:
        check_int(self.k, field="k", lo=1, hi=MAX_HITS, what="hits")
        object.__setattr__(self, "channels", check_choices(self.channels, CHANNELS, field="channels"))
        if not self.channels:
            raise InputError(
                "names no channel",
                field="channels",
                fix=f"name one or more of {', '.join(CHANNELS)}, or omit it for the default ones",
            )

    @property
    def fetch_depth(self) -> int:
        """Candidates each channel brings into fusion: at least ``k``."""
        return max(self.k, self.depth)


class Clock:
    """Per-step wall times of one recall, in milliseconds (``explain``'s ``timings_ms``)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.ms: dict[str, float] = {}

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        t = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - t) * 1000

    def total(self) -> float:
        self.ms["total_ms"] = (time.perf_counter() - self.start) * 1000
        return self.ms["total_ms"]


@dataclass
class Gathered:
    """The channels' candidates, the hit maps read so far (by id), and the filters that produced them."""

    found: dict[str, Candidates]
    details: dict[str, CandidateMap]  # a candidate's map, a pool map or a full hit map (:mod:`kgmem.query.rows`)
    filters: Filters
    note: str | None = None  # why the time phrase's window was dropped
    sent: list[execute.Sent] = field(default_factory=list)  # the plan's statements as they were sent (explain)
    version: tuple[int, Any] | None = None  # the tenant's version the plan read (a second plan reuses it)


@dataclass
class Ranked:
    """Steps 1–4 of a recall: the question, the channels' candidates, the fused (boosted) ranking, every
    candidate's unboosted score, the entities the boost was for, the best hits (not judged yet) and where the
    question put each candidate before the currency step (what decides which inferred retirements count)."""

    q: Question
    got: Gathered
    fused: list[Fused]
    plain: dict[str, float]
    entity_keys: list[str]
    hits: list[Hit]
    where: currency.Standing


def rank(
    store: Store,
    embedder: Embedder,
    query: str,
    filters: Filters,
    ranking_text: str,
    opts: RecallOptions,
    clock: Clock | None = None,
    *,
    pool: bool = True,
    tenant_version: tuple[int, Any] | None = None,
) -> Ranked:
    """The best ``opts.k`` eligible memories, ranked and not judged (:func:`recall` judges them; ``why`` finds
    its symptom among them without the confidence's reading). ``pool``: also read the pool maps the confidence
    reads (:func:`select`; ``why`` does not judge, so it need not). ``tenant_version``: the tenant's version when
    the caller has just read it (:func:`kgmem.query.own_keywords.version`)."""
    clock = clock or Clock()
    keys = keys_of(ranking_text)  # the channels' keys need the words only: worked out once, before the embedder
    # the statistics, the plan and the statements that need no vector go ahead on the store's pool
    started = execute.start(
        store, keys, filters, opts.channels, opts.fetch_depth, opts.overfetch, version=tenant_version
    )
    with clock.step("embed_ms"):
        rest = None if filters.time_rest is None else clean_text(filters.time_rest)
        q = Question.of(clean_text(query), ranking_text, embedder, keys, rest)
    with clock.step("channels_ms"):
        got = gather(store, q, filters, opts, started)
    fused = fuse(got.found, opts)
    entity_keys = boost_keys(got.found, q)
    with clock.step("boosts_ms"):
        fused, plain = boost(store, q, fused, got, entity_keys, opts)
    with clock.step("details_ms"):
        where = currency.standing(fused)
        hits = select(store, q, fused, got, entity_keys, opts, where, plain if pool else None)
    return Ranked(q, got, fused, plain, entity_keys, hits, where)


def recall(
    store: Store,
    embedder: Embedder,
    query: str,
    filters: Filters,
    ranking_text: str,
    opts: RecallOptions = RecallOptions(),
    *,
    explain: bool = False,
    tenant_version: tuple[int, Any] | None = None,
) -> Recall:
    """Answer a question with the best ``opts.k`` eligible memories, each judged; may abstain."""
    clock = Clock()
    r = rank(store, embedder, query, filters, ranking_text, opts, clock, tenant_version=tenant_version)
    q, got, hits = r.q, r.got, r.hits
    with clock.step("confidence_ms"):
        verdict = judge(hits, q, got, r.plain, r.entity_keys, opts, where=r.where)
    if opts.expand > 0 and hits:
        with clock.step("context_ms"):
            attach_context(store, got.filters.tenant, hits, opts.expand)
    clock.total()
    reason = (
        verdict.reason if got.note is None else got.note if verdict.reason is None else f"{verdict.reason}; {got.note}"
    )
    return Recall(
        query=q.text,
        abstained=verdict.abstained,
        reason=reason,
        hits=hits,
        explain=manifest(store, embedder, q, got, r.fused, hits, verdict, opts, clock) if explain else None,
        confidence=verdict.probability,
        features=verdict.features,
        decline=verdict.decline,
    )


# ---------------------------------------------------------------------------- 1. gather


def fetch(
    store: Store,
    q: Question,
    filters: Filters,
    opts: RecallOptions,
    started: execute.Started | None = None,
    version: tuple[int, Any] | None = None,
) -> Gathered:
    """Every channel's candidates: the plan (:mod:`kgmem.query.plan`) run by the executor
    (:mod:`kgmem.query.execute`). ``started``: the plan :func:`kgmem.query.execute.start` began for ``q``'s ranking
    text and these filters before the question was embedded (else it begins here, with the tenant's ``version``
    when it is known)."""
    if started is None:
        started = execute.start(
            store, q.keys, filters, opts.channels, opts.fetch_depth, opts.overfetch, version=version
        )
    found = execute.finish(store, started, q.vector_list)
    stats = found.stats
    return Gathered(found.found, found.details, filters, sent=found.sent, version=stats.version if stats else None)


def gather(
    store: Store, q: Question, filters: Filters, opts: RecallOptions, started: execute.Started | None = None
) -> Gathered:
    """:func:`fetch`; when the time phrase's window holds nothing eligible, a second plan ranks without it (the
    phrase still ranks, and the channels read the whole question) and says so."""
    got = fetch(store, q, filters, opts, started)
    if not filters.phrase_window or any(c.ids for c in got.found.values()):
        return got
    note = (
        f"the time phrase '{filters.time_phrase}' named a window with nothing eligible in it; "
        "ranked without that window, the phrase used only for ranking"
    )
    first = got.sent
    got = fetch(store, q.ranked_by(q.text), filters.without_phrase_window(), opts, version=got.version)
    last = max((s.round for s in first), default=0)
    got.sent = [*first, *(execute.Sent(s.round + last, s.statement) for s in got.sent)]
    got.note = note
    return got


# ---------------------------------------------------------------------------- 2. fuse, 3. boost


def fuse(found: dict[str, Candidates], opts: RecallOptions) -> list[Fused]:
    """Reciprocal rank fusion of the channels' rankings, with the options' per-channel weights."""
    return rrf(
        {name: c.ids for name, c in found.items()}, k=opts.rrf_k, weights=dict(opts.weights) or None, prefer=TIE_CHANNEL
    )


def boost_keys(found: dict[str, Candidates], q: Question) -> list[str]:
    """The matched entities the boost is for: those the question names — written like a name ("What did
    Caroline say"), not a common word that is also an entity somewhere ("why did checkout go down")."""
    entities = found["entity"].detail.get("entities", []) if "entity" in found else []
    named = set(q.keys.named)
    return [e["key"] for e in entities if e["key"] in named]


def bonuses(
    fused: list[Fused],
    details: dict[str, CandidateMap],
    entity_keys: list[str],
    filters: Filters,
    opts: RecallOptions,
) -> dict[str, float]:
    """The fusion's two boosts: the share of the question's entities a hit mentions (× ``entity_boost``) and
    whether its time falls in a time phrase's ranking window (× ``time_boost``)."""
    out: dict[str, float] = {}
    window = filters.rank_window
    for f in fused:
        d = details.get(f.id)
        if d is None:
            continue
        bonus = 0.0
        if entity_keys:
            bonus += opts.entity_boost * len(mentioned(d, entity_keys)) / len(entity_keys)
        if window is not None and window.holds(d.at):
            bonus += opts.time_boost
        if bonus:
            out[f.id] = bonus
    return out


def boost(
    store: Store, q: Question, fused: list[Fused], got: Gathered, entity_keys: list[str], opts: RecallOptions
) -> tuple[list[Fused], dict[str, float]]:
    """The boosted ranking and every candidate's unboosted score (the confidence reads the latter). The
    boosts need every candidate's time and mentions: what the channels did not bring is read first."""
    plain = {f.id: f.score for f in fused}
    if got.filters.rank_window is None and not entity_keys:
        return fused, plain
    if any(f.id not in got.details for f in fused):  # the channels ran one statement each (a time window):
        read_details(store, q, got, [], entity_keys, [f.id for f in fused])  # the small maps the boosts read
    return add_bonuses(fused, bonuses(fused, got.details, entity_keys, got.filters, opts), TIE_CHANNEL), plain


def is_full(detail: CandidateMap | None) -> TypeGuard[HitMap]:
    """Whether ``detail`` is a full hit map (``recall/details``), not a candidate's map (``recall/candidates``),
    a pool map or nothing."""
    return isinstance(detail, HitMap)


def has_pool_fields(detail: CandidateMap | None) -> TypeGuard[PoolMap]:
    """Whether ``detail`` holds what the confidence reads of a candidate: a pool map or a full one."""
    return isinstance(detail, PoolMap)


def read_details(
    store: Store, q: Question, got: Gathered, ids: list[str], entity_keys: list[str], pool: Sequence[str] = ()
) -> None:
    """Read the full hit maps (``recall/details``) of the ``ids`` that have none yet into ``got.details``, and
    the pool maps (the names and topic cosine the confidence reads) of the ``pool`` ids that have neither."""
    full = [i for i in dict.fromkeys(ids) if not is_full(got.details.get(i))]
    wanted = set(full)
    rest = [i for i in dict.fromkeys(pool) if i not in wanted and not has_pool_fields(got.details.get(i))]
    if full or rest:
        rows = store.read(
            "recall/details",
            ids=full + rest,
            full=full,
            known=known_similarities(got.found, full + rest),
            vector=q.vector_list,
            topic_vector=None if q.topic_vector is None else q.topic_vector_list,
            entity_keys=entity_keys,
            **got.filters.params(),
        )
        got.details.update({m.id: m for m in map(map_of, rows[0]["hits"])})


def known_similarities(found: dict[str, Candidates], ids: Sequence[str]) -> dict[str, float]:
    """The normalised cosines to the question the channels already scored for ``ids`` (the vector channel's, of
    the memory's own vector; the entity channel scores none, its None is skipped), which recall/details reads
    instead of computing."""
    wanted = set(ids)
    out: dict[str, float] = {}
    for name in ("vector", "entity"):
        c = found.get(name)
        if c is None:
            continue
        for i, score in zip(c.ids, c.scores):
            if score is not None and i in wanted:
                out.setdefault(i, normalised(score))
    return out


# ---------------------------------------------------------------------------- 4. select


def select(
    store: Store,
    q: Question,
    fused: list[Fused],
    got: Gathered,
    entity_keys: list[str],
    opts: RecallOptions,
    where: currency.Standing,
    plain: dict[str, float] | None = None,
) -> list[Hit]:
    """The best ``k`` hits of the fused ranking (read from ``2k`` candidates: repeats collapse); for a question
    about the present, what is current first (:func:`current_first`). The full hit maps of those ``2k``, and the
    pool maps of the other candidates the confidence reads (:func:`read_pool` of the unboosted scores ``plain``),
    are read here in one round trip: the other candidates keep the map the channels returned."""
    top = near_top(fused, opts)
    pool = read_pool(got.details, plain, unread=True) if plain is not None else []
    read_details(store, q, got, [f.id for f in top], entity_keys, pool)
    if present(q, got, opts):
        top = current_first(store, q, top, got, entity_keys, where)
    return collapse(top, got.details, got.filters, opts)


def counted_retirements(
    hit: Hit, q: Question, got: Gathered, where: currency.Standing, opts: RecallOptions
) -> list[dict[str, Any]]:
    """The retirements of ``hit`` that count for this question, best first, under the ranking's own rule
    (:func:`retirements`: a link inferred from words counts where it bears on the question, ``where`` it put the
    two memories);
    none unless the question is about the present. A newer turn that says nothing the question brought near
    the top does not make the answer stale."""
    if not hit.retired or not present(q, got, opts):
        return []
    counted = set(retirements(got.details, [hit.id], where, q.text).get(hit.id, ()))
    return [r for r in hit.retired if r["id"] in counted]


def near_top(fused: list[Fused], opts: RecallOptions) -> list[Fused]:
    """The candidates hits are chosen from (``2k``: repeats collapse)."""
    return fused[: opts.k * 2]


def retirements(
    details: dict[str, CandidateMap], ids: list[str], where: currency.Standing, question: str = ""
) -> dict[str, list[str]]:
    """Per memory of ``ids``, the memories that retired it (its hit map's ``superseded_by``), in the order the
    ranking follows them (:func:`~kgmem.query.currency.successor_order`): a slot's version chain always; a link
    inferred from words where it bears on this question (:func:`~kgmem.query.currency.link_counts`: where the
    question put the two memories, the link's confidence and how much the older one holds — a note about
    something else does not lift itself above what was asked)."""
    out: dict[str, list[str]] = {}
    for i in ids:
        detail = details.get(i)
        if not is_full(detail):
            continue
        by = currency.successor_order(
            [
                s
                for s in retiring_order(list(detail.superseded_by))
                if not s.get("inferred")
                or currency.link_counts(s, i, detail.text or "", where, question, _text(details.get(s["id"])))
            ],
            where,
        )
        if by:
            out[i] = [str(s["id"]) for s in by]
    return out


def current_first(
    store: Store,
    q: Question,
    top: list[Fused],
    got: Gathered,
    entity_keys: list[str],
    where: currency.Standing,
    rounds: int = 3,
) -> list[Fused]:
    """Rank each retired memory below the memory that retired it (:func:`kgmem.query.currency.retire`),
    reading the hit maps of the newer memories the candidates did not bring (a slot chain a few steps long)."""
    for _ in range(rounds):
        retired_by = retirements(got.details, [f.id for f in top], where, q.text)
        retired_by.update(repeats_of_retired(got.details, [f.id for f in top], retired_by))
        if not retired_by:
            return top
        top = currency.retire(top, retired_by)
        missing = [f.id for f in top if not is_full(got.details.get(f.id))]
        if not missing:
            return top
        read_details(store, q, got, missing, entity_keys)
    return top


def _text(detail: CandidateMap | None) -> str:
    return "" if detail is None else detail.text or ""


def _origin(detail: CandidateMap | None) -> str | None:
    return None if detail is None else detail.origin


def repeats_of_retired(
    details: dict[str, CandidateMap], ids: list[str], retired_by: dict[str, list[str]]
) -> dict[str, list[str]]:
    """A fact compiled from a retired memory repeats its sentence (:func:`collapse` shows the two as one, at the
    better place): it is retired by the same memories, or the repeat would carry the stale sentence back up."""

    def key(i: str) -> tuple[str, Any]:
        d = details.get(i)
        return clean_text(_text(d)).casefold(), (d.at_ts if d is not None else None) or ()

    stale = {key(i): by for i, by in retired_by.items() if _origin(details.get(i)) != "compiled"}
    return {
        i: stale[key(i)]
        for i in ids
        if i not in retired_by and _origin(details.get(i)) == "compiled" and key(i) in stale
    }


def is_current(hit: Hit, filters: Filters) -> bool:
    """Whether the hit still held at the question's time (now, or ``at``): not replaced in its slot by then,
    and no memory the query may see retired it."""
    return not hit.superseded_by and (hit.valid_to is None or (filters.at is not None and hit.valid_to > filters.at))


def collapse(top: list[Fused], details: dict[str, CandidateMap], filters: Filters, opts: RecallOptions) -> list[Hit]:
    """Hits in fused order, at most ``k``: a memory gone meanwhile is skipped, and a fact compiled from an
    episode (which repeats its sentence) is shown once, as the recorded memory, at the better of the two ranks;
    equal fused scores (common after consolidation) break by cosine."""
    hits: list[Hit] = []
    seen: dict[tuple[str, dt.datetime | None], Hit] = {}
    for f in top:
        rec = details.get(f.id)
        if not is_full(rec) or rec.text is None:  # gone: forgotten by a transaction that committed meanwhile
            continue
        hit = rec.hit()
        key = (clean_text(hit.text).casefold(), hit.at)
        if key in seen:
            kept = seen[key]
            if kept.origin == "compiled" and hit.origin != "compiled":
                hit.score, hit.channels = kept.score, kept.channels
                hit.current = is_current(hit, filters)
                hits[hits.index(kept)] = seen[key] = hit
            continue
        if len(hits) >= opts.k:
            continue
        hit.score, hit.channels = f.score, {c: f.ranks.get(c) for c in opts.channels}
        hit.current = is_current(hit, filters)
        seen[key] = hit
        hits.append(hit)
    hits.sort(key=lambda h: (-h.score, -(h.similarity if h.similarity is not None else -1.0)))
    return hits


# ---------------------------------------------------------------------------- 5. judge


def judge(
    hits: list[Hit],
    q: Question,
    got: Gathered,
    plain: dict[str, float],
    entity_keys: list[str],
    opts: RecallOptions,
    model: confidence.ConfidenceModel | None = None,
    *,
    where: currency.Standing,
) -> Verdict:
    """Gather what the verdict reads (the retirements of the best hit that count, the pool's texts, names and
    topic cosines), then run its steps (:func:`kgmem.query.verdict.verdict_of`): the hand policy per hit, then the
    learned confidence (the shipped model unless ``opts.learned`` is false) for the answer; sets each hit's
    ``confident``."""
    model = model or (confidence.shipped() if opts.learned else None)
    read_ids = read_pool(got.details, plain)
    reading = Reading(
        stale=counted_retirements(hits[0], q, got, where, opts) if hits else [],
        read=[_text(got.details[i]) for i in read_ids],
        read_names=[names_of(got.details[i]) for i in read_ids],
        read_topic=[topic_similarity(got.details[i]) for i in read_ids],
        hit_names=[names_of(got.details.get(h.id)) for h in hits],
        mentions={i: sorted(mentioned(d, entity_keys)) for i, d in got.details.items()} if entity_keys else {},
    )
    values = verdict_features(hits, q, plain, opts.rrf_k, tuple(got.found), entity_keys, reading)
    return verdict_of(hits, q, values, reading, opts.policy, model)


READ_POOL = 60  # candidates (best unboosted fused score first) whose texts the meaning features read


def read_pool(
    details: dict[str, CandidateMap], plain: dict[str, float], limit: int = READ_POOL, *, unread: bool = False
) -> list[str]:
    """The ids of the best ``limit`` candidates recall read (by unboosted fused score) that have a text.
    ``unread``: also those with no map yet, their text unknown (:func:`select` chooses the pool before
    recall/details reads it; the channels return a candidate's map only when something reads it first — an
    entity the question names, a time phrase's window)."""
    ids = sorted(plain, key=lambda i: -plain[i])
    return [i for i in ids if (i in details and details[i].text) or (unread and i not in details)][:limit]


def topic_similarity(detail: CandidateMap) -> float | None:
    """A candidate's cosine to the question without its names (to the question itself when it names no one)."""
    raw = detail.topic_similarity if isinstance(detail, PoolMap) else None
    return cosine(raw if raw is not None else detail.similarity if isinstance(detail, HitMap) else None)


def mentioned(detail: CandidateMap, entity_keys: Sequence[str]) -> set[str]:
    """Which of the question's entities a candidate mentions: by the graph, or written in its text unless the
    text opens like a chat turn (``"Name: …"``: a name in a turn mostly addresses the other speaker; counting
    those cost recall on the development chats)."""
    if not entity_keys:
        return set()
    graph = detail.mentions
    have = {k for k in entity_keys if k in graph}
    text = detail.text
    if text and len(have) < len(entity_keys):
        have |= _written_in(text, tuple(k for k in entity_keys if k not in have))
    return have


def _written_in(text: str, keys: tuple[str, ...]) -> frozenset[str]:
    """:func:`mentioned`'s reading of a text: which ``keys`` it writes as whole words."""
    padded = _text_key(text)
    return frozenset() if padded is None else frozenset(k for k in keys if f" {k} " in padded)


@lru_cache(maxsize=16384)
def _text_key(text: str) -> str | None:
    """A candidate's text as the entity matcher reads it (:func:`padded_key`: the key's words, whole, in the text's
    key), None for a chat turn. Cached by text alone: the same candidates come back question after question, each
    asking for other entities (a cache keyed by the entities too would miss on almost every question)."""
    return None if meaning.speaker(text) is not None else padded_key(text)


def names_of(detail: CandidateMap | None) -> list[str]:
    """The entities a candidate mentions (the question's and the names it writes, as keys)."""
    if detail is None:
        return []
    return list(dict.fromkeys([*detail.mentions, *(detail.names if isinstance(detail, PoolMap) else ())]))


def present(q: Question, got: Gathered, opts: RecallOptions) -> bool:
    """Whether recall's currency step applies: a question about the present, or asked as of a time."""
    return opts.currency and (got.filters.at is not None or q.about_the_present)


# ---------------------------------------------------------------------------- 6. context, 7. manifest


def attach_context(store: Store, tenant: str, hits: list[Hit], hops: int) -> None:
    rows = store.read("recall/neighbors", tenant=tenant, ids=[h.id for h in hits], hops=hops)
    by_id: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_id.setdefault(r["id"], []).append(
            {"id": r["neighbor"], "text": r["text"], "at": iso(r["at"]), "offset": r["offset"]}
        )
    for h in hits:
        h.context = by_id.get(h.id, [])


def plan_of(store: Store, q: Question, got: Gathered) -> list[dict[str, Any]]:
    """The statements recall sent, round by round: each with why, the file that ran on this server and the
    ``:param`` lines that set its parameters in Neo4j Browser (the question's vector in full)."""
    vector = [round(float(x), 6) for x in q.vector_list]
    return [
        {**s.to_dict(), "runs": store.resolve(s.statement.name), "browser": s.statement.browser(vector)}
        for s in got.sent
    ]


def manifest(
    store: Store,
    embedder: Embedder,
    q: Question,
    got: Gathered,
    fused: list[Fused],
    hits: list[Hit],
    verdict: Verdict,
    opts: RecallOptions,
    clock: Clock,
) -> dict[str, Any]:
    """What ran and why: options, filters, each channel's candidates, the fusion, the judgements, the
    confidence features, the statement files that ran (the server generation's variants) and the timings."""
    model = verdict.model
    out: dict[str, Any] = {
        "transform": TRANSFORM_VERSION,
        "model": embedder.model_id,
        "ranking_text": q.ranking_text,
        "filters": got.filters.to_dict(),
        "options": {
            "k": opts.k,
            "rrf_k": opts.rrf_k,
            "depth": opts.fetch_depth,
            "overfetch": opts.overfetch,
            "expand": opts.expand,
            "channels": list(opts.channels),
            "entity_boost": opts.entity_boost,
            "time_boost": opts.time_boost,
        },
        "policy": opts.policy.to_dict(),
        "confidence": {
            "features": {k: round(v, 6) for k, v in verdict.features.items()},
            "probability": None if verdict.probability is None else round(verdict.probability, 6),
            "model": None
            if model is None
            else {k: model.to_dict()[k] for k in ("threshold", "data_version", "trained_on")},
        },
        "plan": plan_of(store, q, got),  # the statements sent, round by round, and why
        "channels": {name: c.to_dict() for name, c in got.found.items()},
        "fused": [{"id": f.id, "score": round(f.score, 6), "ranks": f.ranks} for f in fused[: opts.fetch_depth]],
        "judgements": [{"id": h.id, "confident": j.confident, "why": j.why} for h, j in zip(hits, verdict.judgements)],
        "cypher": {  # the file that ran: the server generation's variant where there is one
            n: cypher.load(store.resolve(n)).path.relative_to(cypher.cypher_root()).as_posix()
            for n in (*STATEMENTS, "recall/details")
        },
        "currency": {  # what is current: retired hits and the memories that retired them (kgmem.query.currency)
            "about_the_present": present(q, got, opts),
            "retired": {h.id: h.retired for h in hits if h.retired},
        },
        "context_transform": CONTEXT_TRANSFORM,
        "timings_ms": {k: round(v, 2) for k, v in clock.ms.items()},
        "at": iso(dt.datetime.now(dt.timezone.utc)),
    }
    if got.note is not None:
        out["time_fallback"] = got.note
    return out

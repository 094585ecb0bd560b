"""Inferred causes: a memory that states why another one happened is linked to it —
``(effect)-[:CAUSED_BY {inferred: true, confidence, source}]->(cause)`` — whether the cause came first ("Cut the
free-tier rate limit to 60/min" before "Tallyworks' sync failing with 429s"), later (a postmortem, "turned out
the npm token had expired") or in the same breath ("delayed 3 hours thanks to a bird strike": the memory states
its own cause, kept as its ``cause_in_text`` confidence).

The cause model (:class:`CauseModel`, ``kgmem/data/causes.json``, fitted by ``scripts/fit_causes.py`` with
cross-validation by case) scores a pair from the features of :mod:`kgmem.derived.cause_cues`. The pass pairs
every new record with the records of the same tenant and user whose vectors are at least :data:`PAIR_FLOOR`
alike (and with itself): a pair's score depends on the two memories only, so the links are the same for any
arrival order, batch split or re-run. Of a pair's two directions the likelier is kept, when it reaches the
model's ``link`` threshold. An explicit ``caused_by`` always wins: a memory with one is not inferred for. Every
inferred link can be dropped and recomputed from the records (:func:`rebuild`).

``why`` reads the same model at question time (:func:`explain`): when no link leads from the symptom, the best
hits of the question are paired with each other and a cause read from the words is given at a lower
confidence, or none.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..config import IN_MEMORY_PAIRS_MAX
from ..embed import Embedder
from ..logit import Logit, shipped_json
from ..store import Store
from .cause_cues import FEATURES, Side, fragments, pair_features, text_cues

TRANSFORM_VERSION = "causes/v2"  # v2: a learned pair model over the memories near each new record (v1: marker clauses)
MODEL_FILE = "causes.json"
PAIR_FLOOR = 0.3  # the least cosine of two memories the pass pairs (more alike pairs are all scored)
PAIR_CAP = 30  # the most neighbours of one memory (the most alike; the floor, not the cap, should decide)
FETCH = 400  # index rows read per memory on 5.26 (no in-index tenant filter)
BATCH = 500


@dataclass(frozen=True)
class CauseModel(Logit):
    """The pair model (:class:`kgmem.logit.Logit` over :data:`~kgmem.derived.cause_cues.FEATURES`): ``threshold``
    is where ``why`` reads a cause from the words, ``link`` where the pass writes a link."""

    link: float = 0.9
    effects: int = 5  # how many of a why-question's best hits may be what it asks about (:func:`explain`)
    held_out: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, rows: Sequence[Mapping[str, float]]) -> list[float]:
        """:meth:`probability` of many feature rows at once (one matrix product)."""
        import numpy as np

        if not rows:
            return []
        x = np.array([[r.get(name, 0.0) for name in self.features] for r in rows], dtype=np.float64)
        scale = np.where(np.array(self.scale) == 0, 1.0, np.array(self.scale))
        z = self.intercept + ((x - np.array(self.mean)) / scale) @ np.array(self.coef)
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "transform": TRANSFORM_VERSION,
            **self.fields(),
            "link": self.link,
            "effects": self.effects,
            "held_out": self.held_out,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CauseModel:
        if tuple(d["features"]) != FEATURES:
            raise ValueError(f"cause model features {d['features']} are not kgmem's {list(FEATURES)}")
        return cls(
            **Logit.read_fields(d),
            link=float(d["link"]),
            effects=int(d.get("effects", EFFECTS)),
            held_out=dict(d.get("held_out") or {}),
        )


@lru_cache(maxsize=1)
def shipped() -> CauseModel | None:
    """The model shipped in ``kgmem/data/causes.json`` (None when absent: no causes are inferred)."""
    text = shipped_json(MODEL_FILE)
    return None if text is None else CauseModel.from_dict(json.loads(text))


# ---------------------------------------------------------------------------- question time (pure)


@dataclass(frozen=True)
class Candidate:
    """A hit of the why-question: the memory and its cosine to the question."""

    side: Side
    similarity: float


@dataclass(frozen=True)
class Explanation:
    """What :func:`explain` read: the memory the question is about, the memory that states its cause (the same
    one when it states its own), how likely, and the causes of that cause as far as they are read (nearest
    first, each with its likelihood)."""

    effect: str
    cause: str
    confidence: float
    chain: tuple[tuple[str, float], ...] = ()


EFFECTS = 5  # hits that may be what the question asks about
MARGIN = 0.2  # ... when their cosine to the question is within this of the best
EFFECT_FLOOR = 0.3  # ... and at least this (a why-question about nothing the memories hold reads no cause)
RANK_STEP = 0.02  # a lower-ranked effect needs this much more likelihood per place
CHAIN_DEPTH = 3


def explain(
    hits: Sequence[Candidate],
    model: CauseModel,
    vector_of: Callable[[str], Any],
    *,
    threshold: float | None = None,
    effects: int | None = None,
    margin: float = MARGIN,
) -> Explanation | None:
    """The likeliest (effect, cause) among ``hits`` (best first): the effect one of the first ``effects`` hits
    (the model's own unless given)
    nearly as close to the question as the best (``margin``), the cause any hit or the effect itself, its
    likelihood at least ``threshold`` (the model's own unless given), a lower-ranked effect paying
    :data:`RANK_STEP` a place and its cosine's distance to the best; the effect itself when it states its own
    cause (its pair with itself reaches the threshold), whatever another hit may add; then the causes of that
    cause among the hits. None when no pair reaches the threshold: nothing there says why."""
    if not hits:
        return None
    t = model.threshold if threshold is None else threshold
    effects = model.effects if effects is None else effects
    best_sim = max(h.similarity for h in hits)
    sides = [h.side for h in hits]
    pool = [(i, h) for i, h in enumerate(hits[:effects]) if h.similarity >= max(EFFECT_FLOOR, best_sim - margin)]
    pairs = [(e, c) for _, e in pool for c in sides]
    probs = model.probabilities([pair_features(e.side, c, vector_of) for e, c in pairs])
    place = {h.side.id: i for i, h in enumerate(hits)}
    scored = [
        (p - RANK_STEP * place[e.side.id] + (e.similarity - best_sim), p, e.side.id, c.id)
        for (e, c), p in zip(pairs, probs)
        if p >= t
    ]
    if not scored:
        return None
    _, p, effect, cause = max(scored, key=lambda s: (s[0], s[1], s[2] == s[3], s[3]))
    # a memory that states its own cause answers its why-question itself, whatever another memory may add
    own = [s for s in scored if s[2] == s[3] == effect]
    if own:
        _, p, effect, cause = own[0]
    by_id = {s.id: s for s in sides}
    chain: list[tuple[str, float]] = []
    seen = {effect, cause}
    head = cause
    while effect != cause and len(chain) < CHAIN_DEPTH:
        rest = [s for s in sides if s.id not in seen]
        if not rest:
            break
        nxt = model.probabilities([pair_features(by_id[head], s, vector_of) for s in rest])
        q, s = max(zip(nxt, rest), key=lambda x: (x[0], x[1].id))
        if q < t:
            break
        chain.append((s.id, q))
        seen.add(s.id)
        head = s.id
    return Explanation(effect, cause, p, tuple(chain))


def next_cause(
    store: Store,
    embedder: Embedder,
    tenant: str,
    effect: Side,
    model: CauseModel,
    *,
    exclude: set[str],
    threshold: float | None = None,
    until_ms: int | None = None,
) -> tuple[Side, float] | None:
    """The likeliest cause of ``effect`` among the records near it (alike to it or to its cause clause), when it
    reaches ``threshold`` (the model's own unless given): how ``why`` follows a chain past the hits of the
    question. ``exclude``: the memories already on the chain; ``until_ms``: as of that time, none later."""
    near = _near_by_index(store, tenant, [effect.id]).get(effect.id, [])
    if _states_clause(effect):
        clause = embed_one(embedder, text_cues(effect.text).after)
        near = list(
            dict.fromkeys([*near, *_near_clause_by_index(store, tenant, {effect.id: clause}).get(effect.id, [])])
        )
    wanted = [i for i in near if i not in exclude]
    sides = [side for side, _ in _sources(store, tenant, wanted).values()]
    sides = [s for s in sides if until_ms is None or s.at <= _EPOCH + dt.timedelta(milliseconds=until_ms)]
    if not sides:
        return None
    get = vector_lookup(embedder, [effect.text, *(s.text for s in sides)])
    probs = model.probabilities([pair_features(effect, c, get) for c in sides])
    p, best = max(zip(probs, sides), key=lambda x: (x[0], x[1].id))
    return (best, p) if p >= (model.threshold if threshold is None else threshold) else None


def embed_one(embedder: Embedder, text: str) -> Any:
    """``text``'s unit vector."""
    import numpy as np

    v = embedder.encode([text])[0]
    return v / max(float(np.linalg.norm(v)), 1e-12)


def vector_lookup(embedder: Embedder, texts: Sequence[str]) -> Callable[[str], Any]:
    """A fragment → unit vector function for :func:`pair_features`: the fragments of ``texts`` embedded in one
    batch, any other on demand."""
    import numpy as np

    wanted = sorted({f for t in texts for f in fragments(t)})
    known: dict[str, Any] = {}
    if wanted:
        for f, v in zip(wanted, embedder.encode(wanted)):
            known[f] = v / max(float(np.linalg.norm(v)), 1e-12)

    def get(text: str) -> Any:
        if text not in known:
            v = embedder.encode([text])[0]
            known[text] = v / max(float(np.linalg.norm(v)), 1e-12)
        return known[text]

    return get


# ---------------------------------------------------------------------------- the pass


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _side(row: Mapping[str, Any]) -> Side:
    import numpy as np

    v = np.asarray(row["embedding"], dtype=np.float32)
    return Side(
        row["id"],
        row["text"],
        _EPOCH + dt.timedelta(milliseconds=row["at_ms"]),
        v / max(float(np.linalg.norm(v)), 1e-12),
        row.get("user"),
    )


def _sources(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, tuple[Side, int]]:
    """The records ``ids`` as sides, each with its count of explicit causes."""
    out: dict[str, tuple[Side, int]] = {}
    for i in range(0, len(ids), 2000):
        for row in store.read("derived/cause_sources", tenant=tenant, ids=list(ids[i : i + 2000])):
            out[row["id"]] = (_side(row), int(row["explicit_causes"]))
    return out


def _alike(a: Side, b: Side) -> float:
    return float(a.vector @ b.vector)


def neighbourhoods(
    store: Store, tenant: str, ids: Sequence[str], clause_vector: Callable[[str], Any] | None = None
) -> tuple[dict[str, Side], dict[str, list[str]], dict[str, int]]:
    """The records the pass decides for when ``ids`` arrive — ``ids`` and every record of the same user at least
    :data:`PAIR_FLOOR` alike to one of them (a new memory may be a better cause of an older one, or of a later
    one written before it) — with each one's neighbours (the records at least that alike; for a new record that
    states a cause clause, also those at least that alike to the clause: ``clause_vector`` gives its vector),
    every side read, and each side's count of explicit causes."""
    known = _sources(store, tenant, ids)
    new = sorted(known)
    from .supersession import newest_outside

    in_memory = newest_outside(store, tenant, new) is None and len(new) <= IN_MEMORY_PAIRS_MAX
    groups = _user_vectors([known[i][0] for i in new]) if in_memory else []
    if in_memory:
        near = _near_in_memory(groups)
        affected = new
    else:
        first = _near_by_index(store, tenant, new)
        # and the memories whose cause clause names a new one (its arrival may change their cause)
        named = _clauses_naming(store, tenant, new)
        affected = sorted(
            set(new) | {n for ns in first.values() for n in ns} | {n for ns in named.values() for n in ns}
        )
        near = {**first, **_near_by_index(store, tenant, [a for a in affected if a not in first])}
        known |= _sources(store, tenant, [a for a in affected if a not in known])
    if clause_vector is not None:
        clauses = {
            i: clause_vector(text_cues(known[i][0].text).after)
            for i in affected
            if i in known and _states_clause(known[i][0])
        }
        if clauses:
            extra = (
                _near_clause_in_memory(groups, clauses) if in_memory else _near_clause_by_index(store, tenant, clauses)
            )
            for i, ns in extra.items():
                near[i] = list(dict.fromkeys([*near.get(i, ()), *ns]))
            _store_clauses(store, tenant, {i: v for i, v in clauses.items() if i in set(new)})
    if not in_memory:
        missing = sorted({n for ns in near.values() for n in ns} | set(affected))
        known |= _sources(store, tenant, [m for m in missing if m not in known])
    sides = {i: side for i, (side, _) in known.items()}
    near = {
        i: [j for j in near.get(i, ()) if j in sides and (sides[j].user or "") == (sides[i].user or "")]
        for i in affected
        if i in sides
    }
    return sides, near, {i: n for i, (_, n) in known.items()}


def _states_clause(side: Side) -> bool:
    c = text_cues(side.text)
    return c.clause and len(c.after.split()) >= 3


UserVectors = tuple[list[str], Any]  # one user's memory ids and their unit vectors stacked in that order


def _near_clause_in_memory(groups: list[UserVectors], clauses: dict[str, Any]) -> dict[str, list[str]]:
    """For each memory of ``clauses`` (id → its cause clause's unit vector), the other memories of its user
    (``groups``: :func:`_user_vectors`) at least :data:`PAIR_FLOOR` alike to the clause, exactly."""
    import numpy as np

    out: dict[str, list[str]] = {}
    for ids, matrix in groups:
        mine = [r for r, i in enumerate(ids) if i in clauses]
        if mine:
            queries = np.stack([clauses[ids[r]] for r in mine])
            out.update(zip((ids[r] for r in mine), _each_best(queries, matrix, ids, mine)))
    return out


def _index_neighbours(
    store: Store, statement: str, tenant: str, param: str, items: Sequence[Any], *, filtered_fetch: int = PAIR_CAP
) -> dict[str, list[str]]:
    """Per item (``param``: the statement's list of ids or of vector queries), the memories a vector index finds
    at least :data:`PAIR_FLOOR` alike, at most :data:`PAIR_CAP`, most alike first: one read per :data:`BATCH`
    items. A server that filters the index by tenant is asked for ``filtered_fetch``, another for :data:`FETCH`
    (the tenant's are kept after it)."""
    fetch = filtered_fetch if store.server_info().filtered_vector_search else FETCH
    out: dict[str, list[str]] = {}
    for i in range(0, len(items), BATCH):
        batch = {param: list(items[i : i + BATCH])}
        for row in store.read(
            statement, tenant=tenant, k=PAIR_CAP, fetch=fetch, floor=(1.0 + PAIR_FLOOR) / 2.0, **batch
        ):
            out[row["id"]] = list(row["near"])
    return out


def _clauses_naming(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """For each memory of ``ids``, the memories whose stored cause clause is at least :data:`PAIR_FLOOR` alike to
    it (the memory_clause_embedding index)."""
    return _index_neighbours(store, "derived/clauses_naming", tenant, "ids", ids, filtered_fetch=2 * PAIR_CAP)


def _store_clauses(store: Store, tenant: str, clauses: dict[str, Any]) -> None:
    """Store the clause vectors of new memories (derived: the index that finds them is how a memory that arrives
    later reaches the memories whose clause names it)."""
    rows = [{"id": i, "vector": [float(x) for x in v]} for i, v in sorted(clauses.items())]
    for j in range(0, len(rows), BATCH):
        store.write("derived/set_clause_embeddings", tenant=tenant, rows=rows[j : j + BATCH])


def _near_clause_by_index(store: Store, tenant: str, clauses: dict[str, Any]) -> dict[str, list[str]]:
    queries = [{"id": i, "vector": [float(x) for x in v]} for i, v in sorted(clauses.items())]
    return _index_neighbours(store, "derived/cause_clause_neighbors", tenant, "queries", queries)


def _near_in_memory(groups: list[UserVectors]) -> dict[str, list[str]]:
    """Every pair of memories of one user (``groups``: :func:`_user_vectors`) at least :data:`PAIR_FLOOR` alike,
    exactly."""
    out: dict[str, list[str]] = {}
    for ids, m in groups:
        if len(ids) >= 2:
            out.update(zip(ids, _each_best(m, m, ids, range(len(ids)))))
    return out


def _each_best(queries: Any, members: Any, ids: Sequence[str], itself: Sequence[int]) -> Iterator[list[str]]:
    """For each row of ``queries`` (unit vectors), :func:`_best` of its cosines to ``members`` (whose ids are
    ``ids``), leaving out the member at the row's position of ``itself``; at most 1,024 rows of cosines at a
    time."""
    for start in range(0, len(queries), 1024):
        sims = queries[start : start + 1024] @ members.T
        for row, me in zip(sims, itself[start : start + 1024]):
            yield _best(row, ids, me)


def _user_vectors(sides: Sequence[Side]) -> list[UserVectors]:
    """``sides`` by user, in their order: each user's ids and the matrix of their vectors."""
    import numpy as np

    by_user: dict[str, list[Side]] = {}
    for s in sides:
        by_user.setdefault(s.user or "", []).append(s)
    return [([s.id for s in members], np.stack([s.vector for s in members])) for members in by_user.values()]


def _best(scores: Any, ids: Sequence[str], itself: int) -> list[str]:
    """The ids of the at most :data:`PAIR_CAP` highest ``scores`` (a row of cosines to ``ids``) at least
    :data:`PAIR_FLOOR`, most alike first and ties by id, leaving out position ``itself``. Only the scores at least
    the :data:`PAIR_CAP`-th highest are sorted (its ties included), so a row of many alike memories costs a
    partition, not a sort of them all."""
    import numpy as np

    keep = np.nonzero(scores >= PAIR_FLOOR)[0]
    keep = keep[keep != itself]
    if len(keep) > PAIR_CAP:
        held = scores[keep]
        keep = keep[held >= np.partition(held, len(held) - PAIR_CAP)[len(held) - PAIR_CAP]]
    best = sorted(keep.tolist(), key=lambda c: (-float(scores[c]), ids[c]))[:PAIR_CAP]
    return [ids[c] for c in best]


def _near_by_index(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, list[str]]:
    return _index_neighbours(store, "derived/cause_neighbors", tenant, "ids", ids)


def infer(
    store: Store, embedder: Embedder, tenant: str, ids: Sequence[str], model: CauseModel | None = None
) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """The records whose inferred causes the arrival of ``ids`` decides (:func:`neighbourhoods`), their links
    and the memories among them that state their own cause (``[{id, confidence}]``), not written. Each record's
    link is its likeliest cause among its neighbours, when that reaches the model's ``link`` threshold and the
    other direction is not likelier: what it is depends on the record's neighbours only, so any arrival order
    ends with the same links."""
    model = model or shipped()
    if model is None or not ids:
        return [], [], []
    sides, near, explicit = neighbourhoods(store, tenant, ids, clause_vector=lambda t: embed_one(embedder, t))
    decided = sorted(near)
    get = vector_lookup(
        embedder, sorted({sides[i].text for i in decided} | {sides[j].text for ns in near.values() for j in ns})
    )
    links: list[dict[str, Any]] = []
    selves: list[dict[str, Any]] = []
    for i in decided:  # one memory at a time: its pairs are scored and dropped (memory stays bounded)
        e = sides[i]
        own, *scores = model.probabilities(
            [pair_features(e, e, get)] + [pair_features(e, sides[j], get) for j in near[i]]
        )
        if own >= model.link:
            selves.append({"id": i, "confidence": round(own, 4)})
        if explicit.get(i) or not near[i]:
            continue
        p, cause = max(zip(scores, near[i]))
        if p >= model.link and model.probabilities([pair_features(sides[cause], e, get)])[0] <= p:
            links.append(
                {"effect": i, "cause": cause, "confidence": round(p, 4), "source": f"{TRANSFORM_VERSION}: model"}
            )
            continue
        named = clause_cause(sides[i], [sides[j] for j in near[i]], get)
        if named is not None:
            links.append(
                {"effect": i, "cause": named[0], "confidence": named[1], "source": f"{TRANSFORM_VERSION}: clause"}
            )
    return decided, links, selves


CLAUSE_LINK = 0.45  # the least (cosine of a cause clause to a memory) × the marker's strength that names it
WEAK_MARKERS = frozenset({"after", "since", "following"})  # a time as often as a cause: 0.85 of the cosine


def clause_cause(effect: Side, near: Sequence[Side], vector_of: Callable[[str], Any]) -> tuple[str, float] | None:
    """The memory a cause clause names ("… because the disk on db-1 filled up"): the earlier neighbour most
    alike to the clause, when the cosine × the marker's strength reaches :data:`CLAUSE_LINK` — a cause stated in
    the effect's own words, which the pair model may score below its link threshold."""
    c = text_cues(effect.text)
    if not c.clause or len(c.after.split()) < 3:
        return None
    clause = vector_of(c.after)
    earlier = [s for s in near if s.at <= effect.at and s.id != effect.id]
    if not earlier:
        return None
    sim, best = max(((float(s.vector @ clause), s.id) for s in earlier), key=lambda x: (x[0], x[1]))
    marker = _marker(effect.text)
    score = sim * (0.85 if marker in WEAK_MARKERS else 1.0)
    return (best, round(score, 4)) if score >= CLAUSE_LINK else None


def _marker(text: str) -> str:
    from .cause_cues import CAUSE_CLAUSE, MAX_SCAN

    m = CAUSE_CLAUSE.search(text[:MAX_SCAN])
    return m.group(0).lower() if m else ""


def write(
    store: Store,
    tenant: str,
    decided: Sequence[str],
    links: list[dict[str, Any]],
    selves: list[dict[str, Any]],
    checked: Sequence[str],
) -> int:
    """Replace the inferred causes of the ``decided`` records by ``links`` and ``selves``, and mark ``checked``
    as read by this version of the pass (one transaction); returns how many edges were created."""
    if not decided and not checked:
        return 0

    def work(tx: Any) -> int:
        if decided:
            tx.run("derived/drop_inferred_causes", tenant=tenant, ids=list(decided))
        return int(
            tx.run(
                "derived/link_inferred_causes",
                tenant=tenant,
                links=links,
                selves=selves,
                transform=TRANSFORM_VERSION,
                checked=list(checked),
            )[0]["created"]
        )

    return int(store.write_tx(work))


def run(store: Store, embedder: Embedder, tenant: str, ids: Sequence[str]) -> int:
    """Infer and write the causes of the records ``ids`` (and of the records they are paired with); returns how
    many edges were created."""
    decided, links, selves = infer(store, embedder, tenant, ids)
    return write(store, tenant, decided, links, selves, ids)


def unchecked(store: Store, tenant: str, ids: Sequence[str]) -> list[str]:
    """Of ``ids``, the records this version of the pass has not read (a run killed after its write)."""
    from .supersession import unread

    return unread(store, "derived/causes_unchecked", tenant, ids, TRANSFORM_VERSION)


def rebuild(store: Store, embedder: Embedder, tenant: str) -> dict[str, Any]:
    """Drop every inferred causal link (and own-cause mark) of the tenant and infer them again from the records."""
    removed = store.write("derived/drop_inferred_causes", tenant=tenant, ids=None)[0]["removed"]
    ids = [r["id"] for r in store.read("derived/memory_ids", tenant=tenant)]
    decided, links, selves = infer(store, embedder, tenant, ids)
    return {"removed": removed, "inferred": write(store, tenant, decided, links, selves, ids), "links": links}

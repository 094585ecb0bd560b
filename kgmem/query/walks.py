"""Path walks: ``why`` (symptom → CAUSED_BY → roots) and timelines along NEXT.

Symptom rule: the symptom is the best-ranked of the top recall hits that has a recorded cause, provided it
matches the question at least moderately (cosine ≥ ``SYMPTOM_FLOOR``) and nearly as well as the best hit
overall (within ``SYMPTOM_MARGIN``); otherwise ``why`` abstains — a why-question whose best match has no
causal structure behind it gets "I don't know", not an invented chain.

Root ranking rule (documented in docs/how-it-works.md): roots are ordered by
1. path confidence, the product of the links' confidences (explicit ``caused_by`` links are 1.0, inferred
   links carry the confidence they were inferred with) — a chain you recorded beats one kgmem guessed;
2. depth, deeper first — the far end of a longer chain explains more of it than a side cause next to the
   symptom;
3. time, earlier first — causes precede effects;
4. id, for determinism.
A root reached by several paths keeps its best path's rank; every path is returned.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from ..config import DEFAULT_WHY_DEPTH
from ..embed import Embedder
from ..results import Hit, Memory, Recall, Why
from ..store import Store
from .abstain import NO_MATCH, AbstainPolicy
from .filters import Filters
from .recall import RecallOptions, rank, recall

MAX_DEPTH = 10
SYMPTOM_FLOOR = 0.50
SYMPTOM_MARGIN = 0.15
SYMPTOM_CANDIDATES = 10
# the channels that find the symptom: the memory's own vector, its words, the entities it names and the words of
# its exchange (window_keyword: a symptom told over two turns) — not the stream-context vectors and the context
# words, which rank chat turns read in their context (on WikiWhy as good as all the channels, and faster).
SYMPTOM_CHANNELS = ("vector", "keyword", "entity", "window_keyword")
# candidates each of those channels brings into fusion (recall's 50 ranks a pool for the confidence; the symptom
# is one of the best ten, which 20 per channel find as well as 50, and sooner).
SYMPTOM_DEPTH = 20
# a cause read past the question's hits, from the records near the last one of a chain, needs this likelihood
# (more than the hits need: nothing the question asked brought it)
EXTEND = 0.95


def symptom_options(policy: AbstainPolicy | None = None, k: int = SYMPTOM_CANDIDATES) -> RecallOptions:
    """The recall options that find a why-question's symptom: ``k`` candidates over :data:`SYMPTOM_CHANNELS`."""
    return RecallOptions(k=k, depth=max(k, SYMPTOM_DEPTH), channels=SYMPTOM_CHANNELS, policy=policy or AbstainPolicy())


def why(
    store: Store,
    embedder: Embedder,
    query: str,
    filters: Filters,
    ranking_text: str,
    *,
    k: int = 3,
    max_depth: int = DEFAULT_WHY_DEPTH,
    min_confidence: float = 0.0,
    symptom_candidates: int = SYMPTOM_CANDIDATES,
    opts: RecallOptions | None = None,
    explain: bool = False,
) -> Why:
    """Answer a why-question: find the symptom among the best hits of hybrid recall's ranking (its steps 1–4,
    :func:`~kgmem.query.recall.rank`: the symptom rule reads the cosines, not the confidence, so neither the
    confidence's reading nor the pool maps it reads are run; ``explain`` runs the whole recall for its
    manifest). A symptom with a recorded cause (a ``caused_by`` of its record) is walked to its roots; otherwise
    the best hits are read for a memory that states why the one asked about happened
    (:func:`kgmem.derived.causal.explain`, the cause model the ingest pass links with), at the model's
    likelihood: an inferred link or words only, said in ``reason``; else ``why`` abstains."""
    opts = opts or symptom_options(k=symptom_candidates)
    manifest: dict[str, Any] | None = None
    if explain:
        found: Recall = recall(store, embedder, query, filters, ranking_text, opts, explain=True)
        manifest = {"recall": found.explain}
        text, hits, empty = found.query, found.hits, found.reason
    else:
        ranked = rank(store, embedder, query, filters, ranking_text, opts, pool=False)
        text, hits, empty = ranked.q.text, ranked.hits, ranked.got.note or NO_MATCH

    if not hits:
        return Why(text, True, None, [], [], reason=f"nothing matched the question ({empty})", explain=manifest)
    return explain_hits(
        store,
        embedder,
        text,
        hits,
        filters,
        k=k,
        max_depth=max_depth,
        min_confidence=min_confidence,
        symptom_candidates=symptom_candidates,
        manifest=manifest,
    )


def explain_hits(
    store: Store,
    embedder: Embedder,
    text: str,
    hits: list[Hit],
    filters: Filters,
    *,
    k: int = 0,
    max_depth: int = DEFAULT_WHY_DEPTH,
    min_confidence: float = 0.0,
    symptom_candidates: int = SYMPTOM_CANDIDATES,
    manifest: dict[str, Any] | None = None,
) -> Why:
    """:func:`why`'s answer from a ranking's ``hits`` (best first, not empty): the symptom with a recorded cause
    walked to its roots; else the cause the hits state of the one asked about (:func:`read_cause`); else an
    abstention. Recall reads a why-question's own hits with it (:func:`cause_first`)."""
    max_depth = max(1, min(MAX_DEPTH, max_depth))
    sides = read_sides(store, filters.tenant, [h.id for h in hits])
    symptom = find_symptom(store, hits, filters, manifest, symptom_candidates, sides)
    if symptom is not None:
        rows = store.read(
            "why/roots",
            tenant=filters.tenant,
            symptom_id=symptom.id,
            max_depth=max_depth,
            at=filters.at,
            min_confidence=min_confidence,
        )
        roots, paths = roots_of(rows)
        if roots:
            causes = path_causes(store, filters.tenant, paths[0], rows)
            return Why(
                text,
                False,
                _memory(symptom),
                roots[:k] if k else roots,
                paths,
                reason=None,
                explain=manifest,
                causes=causes,
                confidence=causes[0]["confidence"] if causes else None,
            )
    linked = find_symptom(store, hits, filters, None, symptom_candidates, sides, inferred=True)
    return read_cause(store, embedder, text, hits, sides, filters, manifest, k, linked)


def cause_first(store: Store, embedder: Embedder, found: Recall, filters: Filters) -> str | None:
    """For a why-question that recall answers, put first among its hits (``found``, reordered in place) the
    memory that states the cause :func:`why` would give from the same hits (:func:`explain_hits`: a recorded or
    inferred link, else the words), when that memory is one of them: what a why-question asks for is the
    explaining note, not the event note most like the question. The hits are the same, only their order changes
    (the confidence judged them as recall found them). Returns the id moved first, or None when nothing states a
    cause among them. The caller leaves an abstention's hits as they are: where recall stands by no answer, a
    cause read from the words does not pick the first. ``found.reason`` says which hit came first and why, and
    that the confidence is the best match's."""
    if not found.hits:
        return None
    read = explain_hits(store, embedder, found.query, found.hits, filters, k=1)
    if read.abstained:
        return None
    first = read.causes[0]["id"] if read.causes else read.roots[0]["id"] if read.roots else None
    at = next((i for i, h in enumerate(found.hits) if h.id == first), None)
    if not at:  # not among the hits, or first already
        return None
    best = found.hits[0].id
    found.hits.insert(0, found.hits.pop(at))
    how = read.reason or f"'{first}' is a recorded cause of '{read.symptom.id if read.symptom else best}'"
    note = f"a why-question: '{first}' first, the memory that states the cause ({how}); the confidence is the best match's, '{best}'"
    found.reason = note if found.reason is None else f"{found.reason}; {note}"
    return str(first)


def read_sides(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The hits' rows of ``why/read_sides`` by id (text, time, vector, linked causes)."""
    return {r["id"]: r for r in store.read("why/read_sides", tenant=tenant, ids=list(dict.fromkeys(ids)))}


def read_cause(
    store: Store,
    embedder: Embedder,
    text: str,
    hits: list[Hit],
    sides: dict[str, dict[str, Any]],
    filters: Filters,
    manifest: dict[str, Any] | None,
    k: int,
    linked: Hit | None = None,
) -> Why:
    """The cause the best hits state of the one asked about, or an abstention: the inferred link of ``linked``
    (the best-ranked hit close enough to the question that the ingest pass linked to its likeliest cause), else
    what :func:`kgmem.derived.causal.explain` reads in the hits (with the hits' inferred causes the ranking did
    not bring); then the chain followed on (:func:`follow`)."""
    from ..derived import causal

    model = causal.shipped()
    limit = None if filters.at is None else int(filters.at.timestamp() * 1000)
    extra = [
        c["id"]
        for r in sides.values()
        for c in r["linked"]
        if c["id"] not in sides and (limit is None or c["at_ms"] <= limit)
    ]
    if extra:
        sides = {**sides, **read_sides(store, filters.tenant, extra)}
    candidates = [
        causal.Candidate(_cause_side(sides[h.id]), h.similarity if h.similarity is not None else -1.0)
        for h in hits
        if h.id in sides
    ] + [causal.Candidate(_cause_side(sides[i]), -1.0) for i in dict.fromkeys(extra) if i in sides]
    found = None
    # a linked cause read before must still be there (a memory forgotten meanwhile is gone from ``sides``)
    links = [
        c
        for c in (sides[linked.id]["linked"] if linked is not None and linked.id in sides else ())
        if c["id"] in sides and (limit is None or c["at_ms"] <= limit)
    ]
    if model is not None and linked is not None and links:
        best = max(links, key=lambda c: (c["confidence"], c["id"]))
        found = causal.Explanation(linked.id, best["id"], float(best["confidence"]))
    elif model is not None and candidates:
        vector_of = causal.vector_lookup(embedder, [c.side.text for c in candidates])
        found = causal.explain(candidates, model, vector_of)
    if manifest is not None:
        manifest["cause_read"] = (
            None
            if found is None
            else {
                "effect": found.effect,
                "cause": found.cause,
                "confidence": round(found.confidence, 4),
                "chain": [list(c) for c in found.chain],
            }
        )
    if found is None:
        return Why(
            text,
            True,
            _memory(hits[0]),
            [],
            [],
            reason=f"no recorded cause behind the best matches, and none of them states why (best: '{hits[0].id}')",
            explain=manifest,
        )
    if model is not None and found.effect != found.cause:
        found, sides = follow(store, embedder, filters, model, found, sides, limit)
    return answer_read(text, hits, sides, found, manifest, k)


def follow(
    store: Store,
    embedder: Embedder,
    filters: Filters,
    model: Any,
    found: Any,
    sides: dict[str, dict[str, Any]],
    limit: int | None,
) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The chain of a cause read from the words, followed past the question's hits: from its last memory, the
    link the ingest pass inferred from it (its likeliest), else the likeliest cause among the records near it
    (:func:`kgmem.derived.causal.next_cause`), up to :data:`~kgmem.derived.causal.CHAIN_DEPTH` steps more."""
    import dataclasses

    from ..derived import causal

    chain = list(found.chain)
    seen = {found.effect, found.cause, *(c for c, _ in chain)}
    head = chain[-1][0] if chain else found.cause
    while len(chain) < causal.CHAIN_DEPTH + 1 and head in sides:  # a memory forgotten meanwhile ends the chain
        linked = [
            (c["confidence"], c["id"])
            for c in sides[head]["linked"]
            if c["id"] not in seen and (limit is None or c["at_ms"] <= limit)
        ]
        if linked:  # a link the pass inferred (or one recorded): followed as it is
            p, nxt = max(linked)
        else:
            step = causal.next_cause(
                store,
                embedder,
                filters.tenant,
                _cause_side(sides[head]),
                model,
                exclude=seen,
                threshold=max(model.threshold, EXTEND),
                until_ms=limit,
            )
            if step is None:
                break
            nxt, p = step[0].id, step[1]
        if nxt not in sides:
            sides = {**sides, **read_sides(store, filters.tenant, [nxt])}
        if nxt not in sides:
            break
        chain.append((nxt, p))
        seen.add(nxt)
        head = nxt
    return dataclasses.replace(found, chain=tuple(chain)), sides


def answer_read(
    text: str,
    hits: list[Hit],
    sides: dict[str, dict[str, Any]],
    found: Any,
    manifest: dict[str, Any] | None,
    k: int,
) -> Why:
    """The :class:`Why` of a cause read by :func:`kgmem.derived.causal.explain` (``found``): the effect as its
    symptom, the cause and its causes nearest first, each said to come from an inferred link or from the words."""
    by_id = {h.id: h for h in hits}
    linked = {(i, c["id"]) for i, r in sides.items() for c in r["linked"]}
    steps = [(found.cause, found.confidence)] + list(found.chain)
    causes = []
    prev = found.effect
    for cid, p in steps:
        row = sides[cid]
        by = "inferred" if (prev, cid) in linked else "words"
        causes.append({"id": cid, "text": row["text"], "at": _at(row), "confidence": round(p, 4), "by": by})
        prev = cid
    effect = by_id.get(found.effect)
    symptom = (
        _memory(effect)
        if effect is not None
        else Memory(found.effect, sides[found.effect]["text"], _at(sides[found.effect]))
    )
    if found.cause == found.effect:
        path = [found.effect]
        reason = f"'{found.effect}' states its own cause (read from its words)"
    else:
        path = [found.effect] + [c["id"] for c in causes]
        how = "an inferred link" if causes[0]["by"] == "inferred" else "its words"
        reason = f"'{found.cause}' states why '{found.effect}' happened (read from {how}, not recorded)"
    last = causes[-1]
    root = {
        "id": last["id"],
        "text": last["text"],
        "at": last["at"],
        "depth": max(0, len(path) - 1),
        "confidence": causes[0]["confidence"],
        "inferred": True,
        "truncated": False,
    }
    return Why(
        text,
        False,
        symptom,
        [root][:k] if k else [root],
        [path],
        reason=reason,
        explain=manifest,
        causes=causes,
        confidence=causes[0]["confidence"],
    )


def _cause_side(row: dict[str, Any]) -> Any:
    import numpy as np

    from ..derived.cause_cues import Side

    v = np.asarray(row["embedding"], dtype=np.float32)
    return Side(row["id"], row["text"], _at(row), v / max(float(np.linalg.norm(v)), 1e-12), row.get("user"))


def _at(row: dict[str, Any]) -> dt.datetime:
    return _EPOCH + dt.timedelta(milliseconds=row["at_ms"])


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def path_causes(store: Store, tenant: str, path: list[str], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The memories of a walked path after its symptom (nearest cause first), each with the confidence of the
    path up to it."""
    ids = path[1:]
    if not ids:
        return []
    got = read_sides(store, tenant, ids)
    out = []
    for i in ids:
        r = got.get(i)
        if r is None:
            continue
        out.append({"id": i, "text": r["text"], "at": _at(r), "confidence": 1.0, "by": "recorded"})
    best = next((r for r in rows if r["path"] == path), None)
    if best is not None and out:
        out[0]["confidence"] = round(float(best["confidence"]), 4)
        if best["inferred"]:
            for c in out:
                c["by"] = "inferred"
    return out


def symptom_floor(hits: list[Hit]) -> float:
    """The cosine a symptom needs: at least ``SYMPTOM_FLOOR`` and within ``SYMPTOM_MARGIN`` of the best hit."""
    best_sim = max((h.similarity or -1.0) for h in hits)
    return max(SYMPTOM_FLOOR, best_sim - SYMPTOM_MARGIN)


def find_symptom(
    store: Store,
    hits: list[Hit],
    filters: Filters,
    manifest: dict[str, Any] | None,
    candidates: int,
    sides: dict[str, dict[str, Any]],
    *,
    inferred: bool = False,
) -> Hit | None:
    """The best-ranked of the first ``candidates`` hits that matches well enough (:func:`symptom_floor` of all
    the hits) and has a recorded cause (a ``caused_by`` of its record, not an inferred link; as of ``at``, a
    cause written by then)."""
    floor = symptom_floor(hits)
    eligible = [h for h in hits[:candidates] if (h.similarity or -1.0) >= floor]
    limit = None if filters.at is None else int(filters.at.timestamp() * 1000)
    causes = {
        h.id: sum(
            1
            for c in (sides.get(h.id) or {}).get("linked", [])
            if (inferred or not c["inferred"]) and (limit is None or c["at_ms"] <= limit)
        )
        for h in eligible
    }
    if manifest is not None and not inferred:
        manifest["symptom_rule"] = {
            "floor": round(floor, 4),
            "candidates": [h.id for h in eligible],
            "with_causes": [i for i, c in causes.items() if c],
        }
    return next((h for h in eligible if causes.get(h.id, 0) > 0), None)


def roots_of(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[list[str]]]:
    """The distinct roots in the order ``why/roots`` ranks them (a root reached by several paths keeps its best
    path's place), and every path."""
    roots: list[dict[str, Any]] = []
    paths: list[list[str]] = []
    seen: set[str] = set()
    for r in rows:
        paths.append(r["path"])
        if r["root_id"] in seen:
            continue
        seen.add(r["root_id"])
        roots.append(
            {
                "id": r["root_id"],
                "text": r["root_text"],
                "at": r["root_at"],
                "depth": r["depth"],
                "confidence": round(float(r["confidence"]), 4),
                "inferred": r["inferred"],
                "truncated": r["truncated"],
            }
        )
    return roots, paths


def _memory(hit: Hit) -> Memory:
    return Memory(id=hit.id, text=hit.text, at=hit.at, kind=hit.kind)


def timeline(store: Store, tenant: str, memory_id: str, *, before: int = 5, after: int = 5) -> list[dict[str, Any]]:
    """Memories around ``memory_id``: along its stream's NEXT chain, or by valid time when it has no stream."""
    rows = store.read("timeline/around", tenant=tenant, memory_id=memory_id, before=before, after=after)
    if len(rows) <= 1:
        rows = store.read("timeline/around_time", tenant=tenant, memory_id=memory_id, before=before, after=after)
    return rows

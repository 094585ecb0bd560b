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

from typing import Any

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
# words, which rank chat turns read in their context. WikiWhy (2,000 why-questions, one process, 2026-12-04):
# top-1 1,986 with recall's six default channels, 1,984 with these four, 1,975 without window_keyword (8
# abstentions instead of 4); why p50 on a synthetic 10k tenant, interleaved: 26.4 → 18.8 ms.
SYMPTOM_CHANNELS = ("vector", "keyword", "entity", "window_keyword")
# candidates each of those channels brings into fusion (recall's 50 ranks a pool for the confidence; the symptom
# is one of the best ten). WikiWhy (2,000 questions over its 18,800 memories, each asked at both depths in turn,
# 2026-12-05): top-1 1,984 at 50 and at 20, abstained 4 and 5, why p50 20.3 → 17.4 ms.
SYMPTOM_DEPTH = 20


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
    max_depth: int = 6,
    min_confidence: float = 0.0,
    symptom_candidates: int = SYMPTOM_CANDIDATES,
    opts: RecallOptions | None = None,
    explain: bool = False,
) -> Why:
    """Answer a why-question: find the symptom among the best hits of hybrid recall's ranking (its steps 1–4,
    :func:`~kgmem.query.recall.rank`: the symptom rule reads the cosines and recorded causes, not the confidence,
    so neither the confidence's reading nor the pool maps it reads are run; ``explain`` runs the whole recall for
    its manifest), then walk to its roots."""
    max_depth = max(1, min(MAX_DEPTH, max_depth))
    opts = opts or symptom_options(k=symptom_candidates)
    manifest: dict[str, Any] | None = None
    if explain:
        found: Recall = recall(store, embedder, query, filters, ranking_text, opts, explain=True)
        manifest = {"recall": found.explain}
        text, hits, empty = found.query, found.hits, found.reason
    else:
        ranked = rank(store, embedder, query, filters, ranking_text, opts, pool=False)
        text, hits, empty = ranked.q.text, ranked.hits, ranked.got.note or NO_MATCH

    def abstain(symptom: Hit | None, reason: str) -> Why:
        memory = None if symptom is None else _memory(symptom)
        return Why(text, True, memory, [], [], reason=reason, explain=manifest)

    if not hits:
        return abstain(None, f"nothing matched the question ({empty})")
    symptom = find_symptom(store, hits, filters, manifest, symptom_candidates)
    if symptom is None:
        return abstain(hits[0], f"no recorded cause behind the best matches (best: '{hits[0].id}')")
    rows = store.read(
        "why/roots",
        tenant=filters.tenant,
        symptom_id=symptom.id,
        max_depth=max_depth,
        at=filters.at,
        min_confidence=min_confidence,
    )
    roots, paths = roots_of(rows)
    if not roots:
        return abstain(symptom, "no cause passes the confidence and time limits")
    return Why(text, False, _memory(symptom), roots[:k] if k else roots, paths, reason=None, explain=manifest)


def symptom_floor(hits: list[Hit]) -> float:
    """The cosine a symptom needs: at least ``SYMPTOM_FLOOR`` and within ``SYMPTOM_MARGIN`` of the best hit."""
    best_sim = max((h.similarity or -1.0) for h in hits)
    return max(SYMPTOM_FLOOR, best_sim - SYMPTOM_MARGIN)


def find_symptom(
    store: Store, hits: list[Hit], filters: Filters, manifest: dict[str, Any] | None, candidates: int
) -> Hit | None:
    """The best-ranked of the first ``candidates`` hits that matches well enough (:func:`symptom_floor` of all
    the hits) and has a recorded cause."""
    floor = symptom_floor(hits)
    eligible = [h for h in hits[:candidates] if (h.similarity or -1.0) >= floor]
    causes: dict[str, int]
    if filters.at is None and all(h.causes is not None for h in eligible):
        # recall's single query already counted them (the filter only narrows the type: none is None here)
        causes = {h.id: h.causes for h in eligible if h.causes is not None}
    else:
        causes = {
            r["id"]: r["causes"]
            for r in store.read("why/has_causes", tenant=filters.tenant, ids=[h.id for h in eligible], at=filters.at)
        }
    if manifest is not None:
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

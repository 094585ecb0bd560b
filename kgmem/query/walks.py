"""Path walks: ``why`` (symptom → CAUSED_BY → roots) and timelines along NEXT.

Symptom rule: the symptom is the best-ranked of the top recall hits that has a recorded cause, provided it
matches the question at least moderately (cosine ≥ ``SYMPTOM_FLOOR``) and nearly as well as the best hit
overall (within ``SYMPTOM_MARGIN``); otherwise ``why`` abstains — a why-question whose best match has no
causal structure behind it gets "I don't know", not an invented chain.

Root ranking rule (documented in the README): roots are ordered by
1. path confidence, the product of the links' confidences (explicit ``caused_by`` links are 1.0, inferred
   links carry the confidence they were inferred with) — a chain you recorded beats one kgmem guessed;
2. depth, deeper first — the far end of a longer chain explains more of it than a side cause next to the
   symptom;
3. time, earlier first — causes precede effects;
4. id, for determinism.
A root reached by several paths keeps its best path's rank; every path is returned.
"""

from __future__ import annotations

from ..embed import Embedder
from ..results import Memory, Recall, Why
from ..store import Store
from .filters import Filters
from .recall import RecallOptions, recall

MAX_DEPTH = 10
SYMPTOM_FLOOR = 0.50
SYMPTOM_MARGIN = 0.15
SYMPTOM_CANDIDATES = 10


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
    """Answer a why-question: find the symptom with hybrid recall, then walk to its roots."""
    max_depth = max(1, min(MAX_DEPTH, max_depth))
    opts = opts or RecallOptions(k=symptom_candidates)
    found: Recall = recall(store, embedder, query, filters, ranking_text, opts, explain=explain)
    manifest = {"recall": found.explain} if explain else None
    if not found.hits:
        return Why(
            query=found.query,
            abstained=True,
            symptom=None,
            roots=[],
            paths=[],
            reason=f"nothing matched the question ({found.reason})",
            explain=manifest,
        )

    best_sim = max((h.similarity or -1.0) for h in found.hits)
    floor = max(SYMPTOM_FLOOR, best_sim - SYMPTOM_MARGIN)
    eligible = [h for h in found.hits[:symptom_candidates] if (h.similarity or -1.0) >= floor]
    causes: dict[str, int]
    if filters.at is None and all(h.causes is not None for h in eligible):
        # recall's single query already counted them (the filter only narrows the type: none is None here)
        causes = {h.id: h.causes for h in eligible if h.causes is not None}
    else:
        causes = {
            r["id"]: r["causes"]
            for r in store.read("why/has_causes", tenant=filters.tenant, ids=[h.id for h in eligible], at=filters.at)
        }
    symptom_hit = next((h for h in eligible if causes.get(h.id, 0) > 0), None)
    if manifest is not None:
        manifest["symptom_rule"] = {
            "floor": round(floor, 4),
            "candidates": [h.id for h in eligible],
            "with_causes": [i for i, c in causes.items() if c],
        }
    if symptom_hit is None:
        best = found.hits[0]
        return Why(
            query=found.query,
            abstained=True,
            symptom=_memory(best),
            roots=[],
            paths=[],
            reason=f"no recorded cause behind the best matches (best: '{best.id}')",
            explain=manifest,
        )

    rows = store.read(
        "why/roots",
        tenant=filters.tenant,
        symptom_id=symptom_hit.id,
        max_depth=max_depth,
        at=filters.at,
        min_confidence=min_confidence,
    )
    roots, paths, seen = [], [], set()
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
    if not roots:
        return Why(
            query=found.query,
            abstained=True,
            symptom=_memory(symptom_hit),
            roots=[],
            paths=[],
            reason="no cause passes the confidence and time limits",
            explain=manifest,
        )
    return Why(
        query=found.query,
        abstained=False,
        symptom=_memory(symptom_hit),
        roots=roots[:k] if k else roots,
        paths=paths,
        reason=None,
        explain=manifest,
    )


def _memory(hit) -> Memory:
    return Memory(id=hit.id, text=hit.text, at=hit.at, kind=hit.kind)


def timeline(store: Store, tenant: str, memory_id: str, *, before: int = 5, after: int = 5) -> list[dict]:
    """Memories around ``memory_id``: along its stream's NEXT chain, or by valid time when it has no stream."""
    rows = store.read("timeline/around", tenant=tenant, memory_id=memory_id, before=before, after=after)
    if len(rows) <= 1:
        rows = store.read("timeline/around_time", tenant=tenant, memory_id=memory_id, before=before, after=after)
    return rows

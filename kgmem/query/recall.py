"""``recall``: filters → channels → reciprocal rank fusion → abstention → typed answer (+ manifest)."""

from __future__ import annotations

import datetime as dt
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from ..embed import Embedder
from ..errors import InputError
from ..normalize import clean_text
from ..results import Hit, Recall, iso
from ..store import Store, cypher
from . import channels as ch
from .abstain import AbstainPolicy, decide, identifier_tokens
from .filters import Filters
from .fusion import DEFAULT_K, rrf

CHANNELS = ("vector", "keyword", "entity")
_POOL = ThreadPoolExecutor(max_workers=len(CHANNELS), thread_name_prefix="kgmem-channel")
TRANSFORM_VERSION = "recall/v1"


@dataclass(frozen=True)
class RecallOptions:
    k: int = 10
    rrf_k: int = DEFAULT_K
    depth: int = 20  # candidates per channel entering fusion
    overfetch: int = 3  # index candidates asked per wanted candidate (widened when filters remove more)
    expand: int = 0  # NEXT neighbours (each side) attached to each hit as context
    channels: tuple[str, ...] = CHANNELS
    policy: AbstainPolicy = field(default_factory=AbstainPolicy)


def _check(query: str, opts: RecallOptions) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InputError("must be a non-empty question", field="query", fix='ask something, e.g. "what did we decide?"')
    if opts.k < 1 or opts.k > 1000:
        raise InputError(f"must be between 1 and 1000, got {opts.k}", field="k", fix="ask for 1 to 1000 hits")
    unknown = set(opts.channels) - set(CHANNELS)
    if unknown:
        raise InputError(f"unknown channel(s) {sorted(unknown)}", field="channels", fix=f"use {', '.join(CHANNELS)}")
    return clean_text(query)


def recall(store: Store, embedder: Embedder, query: str, filters: Filters, ranking_text: str,
           opts: RecallOptions = RecallOptions(), *, explain: bool = False) -> Recall:
    query = _check(query, opts)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    vec = embedder.encode_one(ranking_text)
    timings["embed_ms"] = (time.perf_counter() - t0) * 1000
    depth = max(opts.k, opts.depth)

    t = time.perf_counter()
    windowed = filters.start is not None or filters.end is not None
    if windowed:
        # a time window: the vector channel may scan the (small) eligible set exactly; run the channels apart
        def run_channel(name: str) -> tuple[str, ch.Candidates]:
            if name == "vector":
                return name, ch.vector(store, vec, filters, depth, overfetch=opts.overfetch)
            if name == "keyword":
                return name, ch.keyword(store, ranking_text, filters, depth, overfetch=opts.overfetch)
            return name, ch.entity(store, ranking_text, vec, filters, depth)

        found = dict(_POOL.map(run_channel, opts.channels))
        details: dict[str, dict] = {}
    else:
        both = ch.all_channels(store, vec, ranking_text, filters, depth, tuple(opts.channels))
        found, details = both.found, both.details
    timings["channels_ms"] = (time.perf_counter() - t) * 1000

    fused = rrf({name: c.ids for name, c in found.items()}, k=opts.rrf_k)
    top = fused[: opts.k * 2]  # spare rows: duplicates of the same text collapse below
    missing = [f.id for f in top if f.id not in details]
    if missing:
        t = time.perf_counter()
        details.update({r["hit"]["id"]: r["hit"] for r in store.read("recall/details", tenant=filters.tenant,
                                                                      ids=missing, vector=vec.tolist())})
        timings["details_ms"] = (time.perf_counter() - t) * 1000

    hits: list[Hit] = []
    seen_text: dict[tuple, Hit] = {}
    for f in top:
        rec = details.get(f.id)
        if rec is None:
            continue
        hit = Hit.from_record(rec)
        key = (clean_text(hit.text).casefold(), hit.at)
        if key in seen_text:
            # a fact compiled from an episode repeats its sentence: show it once, as the recorded memory,
            # at the better of the two ranks
            kept = seen_text[key]
            if kept.origin == "compiled" and hit.origin != "compiled":
                hit.score, hit.channels = kept.score, kept.channels
                hits[hits.index(kept)] = seen_text[key] = hit
            continue
        if len(hits) >= opts.k:
            continue
        hit.score, hit.channels = f.score, {c: f.ranks.get(c) for c in CHANNELS}
        hit.current = hit.valid_to is None or (filters.at is not None and hit.valid_to > filters.at)
        seen_text[key] = hit
        hits.append(hit)

    # equal fused scores (common after consolidation) break by cosine, not by id
    hits.sort(key=lambda h: (-h.score, -(h.similarity if h.similarity is not None else -1.0)))
    judgements, abstained, reason = decide(hits, identifier_tokens(query), opts.policy)
    for hit, j in zip(hits, judgements):
        hit.confident = j.confident
    if opts.expand > 0 and hits:
        _attach_context(store, filters.tenant, hits, opts.expand)
    timings["total_ms"] = (time.perf_counter() - t0) * 1000

    manifest = None
    if explain:
        manifest = {
            "transform": TRANSFORM_VERSION,
            "model": embedder.model_id,
            "ranking_text": ranking_text,
            "filters": filters.to_dict(),
            "options": {"k": opts.k, "rrf_k": opts.rrf_k, "depth": depth, "overfetch": opts.overfetch,
                        "expand": opts.expand, "channels": list(opts.channels)},
            "policy": opts.policy.to_dict(),
            "channels": {name: c.to_dict() for name, c in found.items()},
            "fused": [{"id": f.id, "score": round(f.score, 6), "ranks": f.ranks} for f in fused[: depth]],
            "judgements": [{"id": h.id, "confident": j.confident, "why": j.why}
                           for h, j in zip(hits, judgements)],
            "cypher": {n: cypher.load(n).path.name for n in
                       ("recall/candidates", "recall/vector", "recall/vector_exact", "recall/keyword",
                        "recall/entity", "recall/details")},
            "timings_ms": {k2: round(v, 2) for k2, v in timings.items()},
            "at": iso(dt.datetime.now(dt.timezone.utc)),
        }
    return Recall(query=query, abstained=abstained, reason=reason, hits=hits, explain=manifest)


def _attach_context(store: Store, tenant: str, hits: list[Hit], hops: int) -> None:
    rows = store.read("recall/neighbors", tenant=tenant, ids=[h.id for h in hits], hops=hops)
    by_id: dict[str, list[dict]] = {}
    for r in rows:
        by_id.setdefault(r["id"], []).append({"id": r["neighbor"], "text": r["text"], "at": iso(r["at"]),
                                              "offset": r["offset"]})
    for h in hits:
        h.context = by_id.get(h.id, [])

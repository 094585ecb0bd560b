"""``recall``: filters → channels → reciprocal rank fusion (+ entity and time boosts) → abstention → typed
answer (+ manifest)."""

from __future__ import annotations

import datetime as dt
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..config import DEFAULT_HITS
from ..embed import Embedder
from ..errors import InputError
from ..normalize import clean_text
from ..results import Hit, Recall, from_epoch, iso
from ..store import Store, cypher
from . import channels as ch
from . import confidence
from .abstain import AbstainPolicy, Judgement, decide, identifier_tokens
from .filters import Filters
from .fusion import DEFAULT_K, ENTITY_BOOST, TIME_BOOST, Fused, boost, rrf

CONTEXT_TRANSFORM = "context/v1"  # the derived stream context the context channels search (kgmem.derived.context)
CHANNELS = ("vector", "keyword", "entity", "context_vector", "wide_vector", "context_keyword", "window_keyword")
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kgmem-channel")
TRANSFORM_VERSION = "recall/v2"


@dataclass(frozen=True)
class RecallOptions:
    k: int = DEFAULT_HITS
    rrf_k: int = DEFAULT_K
    depth: int = 50  # candidates per channel entering fusion
    overfetch: int = 3  # index candidates asked per wanted candidate (widened when filters remove more)
    expand: int = 0  # NEXT neighbours (each side) attached to each hit as context
    channels: tuple[str, ...] = CHANNELS
    # per-channel RRF weights (1.0 unless named): the entity channel brings its candidates in but its rank adds
    # nothing — the entity boost carries "mentions who is asked about" (on the development conversations the
    # channel's rank on top of the boost cost 0.02 frac@10; on the fixtures it changed one answer)
    weights: tuple[tuple[str, float], ...] = (("entity", 0.0),)
    entity_boost: float = ENTITY_BOOST  # added to the fused score of hits mentioning the question's entities
    time_boost: float = TIME_BOOST  # added to the fused score of hits inside a time phrase's ranking window
    policy: AbstainPolicy = field(default_factory=AbstainPolicy)
    learned: bool = True  # the shipped confidence model decides abstention (when it is there)


def _check(query: str, opts: RecallOptions) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InputError("must be a non-empty question", field="query", fix='ask something, e.g. "what did we decide?"')
    if opts.k < 1 or opts.k > 1000:
        raise InputError(f"must be between 1 and 1000, got {opts.k}", field="k", fix="ask for 1 to 1000 hits")
    unknown = set(opts.channels) - set(CHANNELS)
    if unknown:
        raise InputError(f"unknown channel(s) {sorted(unknown)}", field="channels", fix=f"use {', '.join(CHANNELS)}")
    return clean_text(query)


def _candidates(
    store: Store, vec, ranking_text: str, filters: Filters, depth: int, opts: RecallOptions
) -> tuple[dict[str, ch.Candidates], dict[str, dict]]:
    if filters.start is None and filters.end is None:
        both = ch.all_channels(store, vec, ranking_text, filters, depth, tuple(opts.channels))
        return both.found, both.details

    # a time window: the vector channel may scan the (small) eligible set exactly; run the channels apart
    def run_channel(name: str) -> tuple[str, ch.Candidates]:
        if name == "entity":
            return name, ch.entity(store, ranking_text, vec, filters, depth)
        return name, ch.index_channel(store, name, vec, ranking_text, filters, depth, overfetch=opts.overfetch)

    return dict(_POOL.map(run_channel, opts.channels)), {}


def recall(
    store: Store,
    embedder: Embedder,
    query: str,
    filters: Filters,
    ranking_text: str,
    opts: RecallOptions = RecallOptions(),
    *,
    explain: bool = False,
) -> Recall:
    query = _check(query, opts)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    vec = embedder.encode_one(ranking_text)
    timings["embed_ms"] = (time.perf_counter() - t0) * 1000
    depth = max(opts.k, opts.depth)

    t = time.perf_counter()
    found, details = _candidates(store, vec, ranking_text, filters, depth, opts)
    note = None
    if filters.phrase_window and not any(c.ids for c in found.values()):
        # the time phrase's window holds nothing eligible: rank without it (the phrase still ranks) and say so
        note = (
            f"the time phrase '{filters.time_phrase}' named a window with nothing eligible in it; "
            "ranked without that window, the phrase used only for ranking"
        )
        filters = filters.without_phrase_window()
        found, details = _candidates(store, vec, query, filters, depth, opts)
    timings["channels_ms"] = (time.perf_counter() - t) * 1000

    fused = rrf({name: c.ids for name, c in found.items()}, k=opts.rrf_k, weights=dict(opts.weights) or None)
    entities = found["entity"].detail.get("entities", []) if "entity" in found else []
    # the boost is for entities the question names — written like a name ("What did Caroline say"), not a
    # common word that is also an entity somewhere ("why did checkout go down")
    named = set(ch.question_keys(ranking_text)[1])
    entity_keys = [e["key"] for e in entities if e["key"] in named]
    if filters.rank_window is not None or entity_keys:
        # the boosts need every candidate's time and mentions
        missing = [f.id for f in fused if f.id not in details]
        if missing:
            t = time.perf_counter()
            details.update(_details(store, filters.tenant, missing, vec, entity_keys))
            timings["details_ms"] = (time.perf_counter() - t) * 1000
        plain = {f.id: f.score for f in fused}
        fused = boost(fused, _bonuses(fused, details, entity_keys, filters, opts))
    else:
        plain = {f.id: f.score for f in fused}
    top = fused[: opts.k * 2]  # spare rows: duplicates of the same text collapse below
    missing = [f.id for f in top if f.id not in details]
    if missing:
        t = time.perf_counter()
        details.update(_details(store, filters.tenant, missing, vec, entity_keys))
        timings["details_ms"] = timings.get("details_ms", 0.0) + (time.perf_counter() - t) * 1000

    hits: list[Hit] = []
    seen_text: dict[tuple, Hit] = {}
    for f in top:
        rec = details.get(f.id)
        if rec is None or rec.get("text") is None:  # gone: forgotten by a transaction that committed meanwhile
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
        hit.score, hit.channels = f.score, {c: f.ranks.get(c) for c in opts.channels}
        hit.current = hit.valid_to is None or (filters.at is not None and hit.valid_to > filters.at)
        seen_text[key] = hit
        hits.append(hit)

    # equal fused scores (common after consolidation) break by cosine, not by id
    hits.sort(key=lambda h: (-h.score, -(h.similarity if h.similarity is not None else -1.0)))
    idents = identifier_tokens(query)
    judgements, abstained, reason = decide(hits, idents, opts.policy)
    model = confidence.shipped() if opts.learned else None
    conf_values = confidence.features(
        hits,
        {h.id: h.channels for h in hits},
        plain,
        opts.rrf_k,
        tuple(found),
        entity_keys,
        {i: d.get("mentions") or [] for i, d in details.items()},
        bool(hits) and bool(idents & identifier_tokens(hits[0].text)),
    )
    p_answer: float | None = None
    if model is not None:
        p_answer = model.probability(conf_values)
        if hits and not judgements[0].why.startswith("exact token"):
            # the learned decision replaces the hand thresholds for the answer (an identifier of the question
            # found by the keyword channel stays decisive: embeddings blur "zx9q", the model's cosine says little
            # there); hits below the best keep their own judgement
            abstained = p_answer < model.threshold
            reason = f"not confident: learned confidence {p_answer:.2f} < {model.threshold:.2f}" if abstained else None
            judgements[0] = Judgement(
                not abstained, f"learned confidence {p_answer:.2f} (threshold {model.threshold:.2f})"
            )
    for hit, j in zip(hits, judgements):
        hit.confident = j.confident and not abstained
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
            "options": {
                "k": opts.k,
                "rrf_k": opts.rrf_k,
                "depth": depth,
                "overfetch": opts.overfetch,
                "expand": opts.expand,
                "channels": list(opts.channels),
                "entity_boost": opts.entity_boost,
                "time_boost": opts.time_boost,
            },
            "policy": opts.policy.to_dict(),
            "confidence": {
                "features": {k: round(v, 6) for k, v in conf_values.items()},
                "probability": None if p_answer is None else round(p_answer, 6),
                "model": None
                if model is None
                else {"threshold": model.threshold, "data_version": model.data_version, "trained_on": model.trained_on},
            },
            "channels": {name: c.to_dict() for name, c in found.items()},
            "fused": [{"id": f.id, "score": round(f.score, 6), "ranks": f.ranks} for f in fused[:depth]],
            "judgements": [{"id": h.id, "confident": j.confident, "why": j.why} for h, j in zip(hits, judgements)],
            "cypher": {  # the file that ran: the server generation's variant where there is one
                n: cypher.load(store.resolve(n)).path.relative_to(cypher.cypher_root()).as_posix()
                for n in (
                    "recall/candidates",
                    "recall/vector",
                    "recall/vector_exact",
                    "recall/keyword",
                    "recall/entity",
                    "recall/details",
                )
            },
            "context_transform": CONTEXT_TRANSFORM,
            "timings_ms": {k2: round(v, 2) for k2, v in timings.items()},
            "at": iso(dt.datetime.now(dt.timezone.utc)),
        }
    if note is not None:
        reason = note if reason is None else f"{reason}; {note}"
        if manifest is not None:
            manifest["time_fallback"] = note
    return Recall(
        query=query,
        abstained=abstained,
        reason=reason,
        hits=hits,
        explain=manifest,
        confidence=p_answer,
        features=conf_values,
    )


def _details(store: Store, tenant: str, ids: list[str], vec, entity_keys: list[str]) -> dict[str, dict]:
    return {
        r["hit"]["id"]: r["hit"]
        for r in store.read("recall/details", tenant=tenant, ids=ids, vector=vec.tolist(), entity_keys=entity_keys)
    }


def _bonuses(
    fused: list[Fused], details: dict[str, dict], entity_keys: list[str], filters: Filters, opts: RecallOptions
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
        if entity_keys and d.get("mentions"):
            bonus += opts.entity_boost * len(set(d["mentions"]) & set(entity_keys)) / len(entity_keys)
        if window is not None and window.holds(from_epoch(d["at_ts"])):
            bonus += opts.time_boost
        if bonus:
            out[f.id] = bonus
    return out


def _attach_context(store: Store, tenant: str, hits: list[Hit], hops: int) -> None:
    rows = store.read("recall/neighbors", tenant=tenant, ids=[h.id for h in hits], hops=hops)
    by_id: dict[str, list[dict]] = {}
    for r in rows:
        by_id.setdefault(r["id"], []).append(
            {"id": r["neighbor"], "text": r["text"], "at": iso(r["at"]), "offset": r["offset"]}
        )
    for h in hits:
        h.context = by_id.get(h.id, [])

"""Suite ``signals``: the seeds' unused query-time signals tried as fused signals on the LoCoMo development
half (issue 12, item 4): spreading activation over the decaying entity co-occurrence graph (seed 002 §2.1,
§3.3: depth ≤ 3, threshold 0.05), recency and source authority (§3.6).

Each conversation is ingested as its own tenant and consolidated once (consolidation writes the CO_OCCURS
weights), in two ways: as the dataset README says (each turn mentions its speaker only, so no two entities
ever share a memory and CO_OCCURS stays empty), and with the speaker plus the entities kgmem extracts from
the turn's text (names, quoted terms), which gives the co-occurrence graph something to hold. For every question, kgmem's recall returns its fused top 50; each signal ranks those same 50 and
joins the fusion as one more reciprocal-rank term of weight w (k = recall's RRF k), so a signal can only
reorder what recall found. Reported: frac@10 and any@10 per category for recall alone and for each signal at
each weight, every conversation held out in turn for choosing the weight (the weight is chosen on the other
conversations, scored on the held-out one): the figure that counts is the held-out one.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from typing import Any, Sequence

from kgmem.config import DEFAULT_RRF_K
from kgmem.ingest.entities import extract_entities

from .conversations import ANSWERABLE, CATEGORIES, _data_file, load_conversations, locomo_missing, locomo_path, score
from .runner import BenchContext, suite

DEPTH = 50
K = 10
WEIGHTS = (0.25, 0.5, 1.0, 2.0)
# seed 002 §3.6: authority by source type (lessons 1.5, tools 1.3, skills 1.2, activity 1.0); kgmem's
# counterpart is the origin of a memory: a consolidated summary, a compiled fact, a recorded episode
AUTHORITY = {"consolidated": 1.5, "compiled": 1.3, "record": 1.0}
SPREAD_DEPTH, SPREAD_THRESHOLD, SPREAD_DECAY = 3, 0.05, 0.5


def spread(seeds: Sequence[str], neighbours: Any) -> dict[str, float]:
    """Spreading activation from ``seeds`` (activation 1): a neighbour gets its parent's activation × the
    edge's share of the parent's strongest edge × SPREAD_DECAY per hop, kept when ≥ SPREAD_THRESHOLD, up to
    SPREAD_DEPTH hops; an entity keeps its strongest activation. ``neighbours(keys)`` → [{key, weight, via}]."""
    act = {k: 1.0 for k in seeds}
    frontier = dict(act)
    for _hop in range(SPREAD_DEPTH):
        if not frontier:
            break
        nxt: dict[str, float] = {}
        for parent, a in frontier.items():
            rows = neighbours([parent])
            top = max((r["weight"] for r in rows), default=0.0)
            if top <= 0:
                continue
            for r in rows:
                value = a * (r["weight"] / top) * SPREAD_DECAY
                if value >= SPREAD_THRESHOLD and value > act.get(r["key"], 0.0) and value > nxt.get(r["key"], 0.0):
                    nxt[r["key"]] = value
        for key, value in nxt.items():
            act[key] = max(act.get(key, 0.0), value)
        frontier = nxt
    return act


def fuse(base: Sequence[str], signal_order: Sequence[str], weight: float, k: int = DEFAULT_RRF_K) -> list[str]:
    """recall's order as a reciprocal-rank score (its own rank) plus ``weight`` × 1/(k + rank in the signal)."""
    score_of = {mid: 1.0 / (k + i + 1) for i, mid in enumerate(base)}
    for i, mid in enumerate(signal_order):
        if mid in score_of:
            score_of[mid] += weight / (k + i + 1)
    return sorted(base, key=lambda m: (-score_of[m], base.index(m)))


def _orders(hits: list, mentions: dict[str, set[str]], activation: dict[str, float]) -> dict[str, list[str]]:
    ids = [h.id for h in hits]
    newest = sorted(ids, key=lambda m: -(next(h.at for h in hits if h.id == m).timestamp()))
    auth = sorted(ids, key=lambda m: -AUTHORITY.get(next(h.origin or "record" for h in hits if h.id == m), 1.0))
    act = {m: sum(activation.get(e, 0.0) for e in mentions.get(m, ())) for m in ids}
    spread_order = [m for m in sorted(ids, key=lambda m: -act[m]) if act[m] > 0]
    return {"recency": newest, "authority": auth, "spreading": spread_order}


@suite("signals", title="Spreading activation, recency and source authority as fused signals (LoCoMo dev)")
def run(ctx: BenchContext) -> dict:
    """Each seed signal added to recall's fusion over its top 50; weights chosen leave-one-conversation-out."""
    missing = locomo_missing()
    if missing:
        return {"tables": [missing], "figures": {"skipped": True}, "notes": ["Skipped: no LoCoMo data."]}
    convs = load_conversations(_data_file(locomo_path()))
    if ctx.quick:
        convs = convs[:1]
    out: dict[str, dict] = {}
    for mode in ("speaker", "speaker+extracted"):
        out[mode] = _run_mode(ctx, convs, mode)
    tables = []
    for mode, rep in out.items():
        for t in rep["tables"]:
            tables.append({**t, "title": f"[entities: {mode}] {t['title']}"})
    return {"tables": tables, "figures": {mode: rep["figures"] for mode, rep in out.items()}}


def _records(conv: dict, mode: str) -> list[dict]:
    if mode == "speaker":
        return conv["records"]
    out = []
    for r in conv["records"]:
        names = list(dict.fromkeys([*r.get("entities", []), *extract_entities(r["text"].split(": ", 1)[-1])]))
        out.append({**r, "entities": names})
    return out


def _run_mode(ctx: BenchContext, convs: list[dict], mode: str) -> dict:
    # rows[variant] = list of per-question scores; variant = "recall" or f"{signal}@{w}"
    rows: dict[str, list[dict]] = defaultdict(list)
    info: dict[str, Any] = {}
    with ctx.memory_graph() as base:
        for conv in convs:
            tenant = ctx.new_tenant()
            ctx.tenants.append(tenant)
            mg = base.for_tenant(tenant)
            try:
                t0 = time.perf_counter()
                mg.ingest(_records(conv, mode))
                cons = mg.consolidate()
                mentions: dict[str, set[str]] = defaultdict(set)
                for e in mg.store.read("export/edges", tenant=tenant):
                    if e["type"] == "MENTIONS":
                        mentions[e["from"]].add(e["to"])
                cooc = mg.store.read("lifecycle/export_entity_edges", tenant=tenant)
                info[conv["sample_id"]] = {
                    "ingest_consolidate_s": time.perf_counter() - t0,
                    "co_occurs_edges": sum(1 for r in cooc if r["type"] == "CO_OCCURS"),
                    "consolidation": {k: v for k, v in cons.items() if isinstance(v, (int, float))},
                }
                memo: dict[str, list[dict]] = {}

                def neighbours(keys: list[str], _mg=mg, _memo=memo) -> list[dict]:
                    key = keys[0]
                    if key not in _memo:
                        _memo[key] = _mg.co_occurring(keys, limit=50)
                    return _memo[key]

                qs = [q for q in conv["questions"] if q["gold"]]
                for q in qs[:40] if ctx.quick else qs:
                    res = mg.recall(q["question"], k=DEPTH, now=conv["now"], explain=True)
                    hits = list(res.hits)
                    ids = [h.id for h in hits]
                    entity = (res.explain or {}).get("channels", {}).get("entity", {})
                    seeds = [e["key"] for e in entity.get("entities", [])]
                    activation = spread(seeds, neighbours) if seeds else {}
                    orders = _orders(hits, mentions, activation)
                    base_row = {"conversation": conv["sample_id"], "category": q["category"]}
                    rows["recall"].append({**base_row, **score(ids[:K], q["gold"])})
                    for signal, order in orders.items():
                        for w in WEIGHTS:
                            fused = fuse(ids, order, w)
                            rows[f"{signal}@{w}"].append({**base_row, **score(fused[:K], q["gold"])})
                ctx.log(
                    f"[{mode}] {conv['sample_id']}: {len(qs)} questions, "
                    f"{info[conv['sample_id']]['co_occurs_edges']} CO_OCCURS"
                )
            finally:
                ctx.delete_tenant(tenant)
    return _report(rows, info, [c["sample_id"] for c in convs])


def _mean(rows: list[dict], key: str) -> float:
    return sum(r[key] for r in rows) / len(rows) if rows else math.nan


def _report(rows: dict[str, list[dict]], info: dict, conv_ids: list[str]) -> dict:
    cats = [c for c in ANSWERABLE if any(r["category"] == c for r in rows["recall"])]

    def figures(variant_rows: list[dict]) -> dict[str, float]:
        out = {"overall frac@10": _mean([r for r in variant_rows if r["category"] in cats], "frac@10")}
        for c in cats:
            sel = [r for r in variant_rows if r["category"] == c]
            out[f"{CATEGORIES[c]} frac@10"] = _mean(sel, "frac@10")
            out[f"{CATEGORIES[c]} any@10"] = _mean(sel, "any@10")
        return out

    table_rows = [["recall (no extra signal)", "—", *(f"{v:.3f}" for v in figures(rows["recall"]).values())]]
    held: dict[str, dict] = {}
    for signal in ("spreading", "recency", "authority"):
        # the weight chosen on the other conversations (best overall frac@10), scored on the held-out one
        picked_rows: list[dict] = []
        chosen = []
        for held_out in conv_ids:
            best = max(
                WEIGHTS,
                key=lambda w: (
                    _mean(
                        [r for r in rows[f"{signal}@{w}"] if r["conversation"] != held_out and r["category"] in cats],
                        "frac@10",
                    )
                    if len(conv_ids) > 1
                    else 0.0
                ),
            )
            chosen.append(best)
            picked_rows += [r for r in rows[f"{signal}@{best}"] if r["conversation"] == held_out]
        held[signal] = {"weights": chosen, **figures(picked_rows)}
        table_rows.append(
            [
                f"recall + {signal} (held out)",
                "/".join(f"{w:g}" for w in chosen),
                *(f"{v:.3f}" for v in figures(picked_rows).values()),
            ]
        )
    columns = ["variant", "weight per held-out conversation", *figures(rows["recall"]).keys()]
    sweep = [
        [variant, *(f"{v:.3f}" for v in figures(r).values())]
        for variant, r in sorted(rows.items())
        if variant != "recall"
    ]
    return {
        "tables": [
            {
                "title": "Held-out figures: each signal fused into recall's top 50, weight chosen on the other conversations",
                "columns": columns,
                "rows": table_rows,
                "note": "A signal reorders recall's fused top 50 (frac@10 and any@10 of the gold evidence turns in the "
                "new top 10). Spreading activation: from the entities recall matched in the question over CO_OCCURS "
                f"(depth ≤ {SPREAD_DEPTH}, threshold {SPREAD_THRESHOLD}, ×{SPREAD_DECAY} per hop, edge weight over "
                "the parent's strongest edge); a memory scores the summed activation of the entities it mentions. "
                "Recency: newest first. Authority: consolidated 1.5, compiled 1.3, record 1.0 (seed 002 §3.6).",
            },
            {
                "title": "Every weight (all conversations; for reading, not for choosing)",
                "columns": ["variant", *columns[2:]],
                "rows": sweep,
            },
        ],
        "figures": {"held_out": held, "conversations": info},
    }

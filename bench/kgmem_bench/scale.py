"""Suite ``scale``: many tenants in one database, of skewed sizes, sharing the vector indexes.

The database grows in steps: one 1k-memory tenant alone; then beside nine more 1k tenants (10k memories);
then beside a big tenant of 90k (100k in all); with ``KGMEM_BENCH_BIG=1`` the big tenant grows to 990k (1M in
all). ``--quick``: 200-memory tenants, 2k, then 10k. Vectors are written straight through
``lifecycle/import_memories`` (clustered random unit vectors: the text does not matter here), so the steps cost
index upkeep, not embedding. At every step, for a small tenant and for the big one, the vector channel
(``kgmem.query.channels.vector``: on Neo4j 2026.x the in-index tenant filter, on 5.26 the over-fetch, widening
and exact fallback) answers query vectors near the tenant's data; reported: p50/p95 latency, recall@10 against
an exact per-tenant brute-force top-10 over the same vectors (numpy), the round trips and the index candidates
fetched per query; and the write rate of each step as the index grows. Latency is measured once Neo4j is idle
after a step's writes (``speed._settle``: its CPU under 5 % of a core for 2 s; a fixed 20 s with NEO4J_URI), after
unmeasured warm-up queries. Run it once per server version
(``NEO4J_URI=...`` or the local server) and compare the two JSON files.
"""

from __future__ import annotations

import datetime as dt
import os
import time

import numpy as np

from kgmem.embed import MODEL_ID
from kgmem.query import channels
from kgmem.query.filters import Filters

from .runner import BenchContext, suite
from .speed import _settle

K = 10
DIM = 384
BATCH = 1000
UTC = dt.timezone.utc


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _vectors(rng: np.random.Generator, n: int, centres: int = 8) -> np.ndarray:
    """``n`` unit vectors around a few random centres (memories of one tenant resemble each other)."""
    c = _unit(rng.normal(size=(centres, DIM)))
    pick = rng.integers(0, centres, n)
    return _unit(c[pick] + rng.normal(size=(n, DIM)) * (0.9 / np.sqrt(DIM)) * 8).astype(np.float32)


def _write(ctx: BenchContext, store, tenant: str, vectors: np.ndarray, start: int = 0) -> float:
    """Write ``vectors`` as memories ``v<start+i>`` of ``tenant``; returns the seconds it took."""
    at = dt.datetime(2026, 1, 1, tzinfo=UTC)
    t0 = time.perf_counter()
    for i in range(0, len(vectors), BATCH):
        rows = [
            {
                "id": f"v{start + i + j}",
                "labels": ["Episode"],
                "props": {"text": "scale", "kind": "episode", "origin": "record", "at": at},
                "embedding": vec.tolist(),
            }
            for j, vec in enumerate(vectors[i : i + BATCH])
        ]
        store.write("lifecycle/import_memories", tenant=tenant, embedding_model=MODEL_ID, rows=rows)
    return time.perf_counter() - t0


def _measure(store, tenant: str, matrix: np.ndarray, queries: np.ndarray) -> dict:
    """The vector channel on ``queries`` for ``tenant`` whose vectors are ``matrix`` (rows v0..vN-1)."""
    lat, recall, trips, fetched = [], [], [], []
    filters = Filters(tenant=tenant)
    for q in queries:
        t0 = time.perf_counter()
        found = channels.vector(store, q, filters, K)
        lat.append(time.perf_counter() - t0)
        exact = np.argsort(-(matrix @ q), kind="stable")[:K]
        want = {f"v{i}" for i in exact}
        recall.append(len(want & set(found.ids)) / K)
        tries = found.detail.get("tries", [])
        trips.append(len(tries))
        fetched.append(sum(t.get("fetched", t.get("eligible", 0)) or 0 for t in tries))
    ms = np.asarray(lat) * 1000
    return {
        "p50_ms": float(np.percentile(ms, 50)),
        "p95_ms": float(np.percentile(ms, 95)),
        "recall_at_10": float(np.mean(recall)),
        "min_recall_at_10": float(np.min(recall)),
        "round_trips": float(np.mean(trips)),
        "max_round_trips": int(np.max(trips)),
        "candidates_fetched": float(np.mean(fetched)),
        "queries": len(queries),
    }


def _queries(rng: np.random.Generator, matrix: np.ndarray, n: int) -> np.ndarray:
    """Query vectors near the tenant's own memories (a perturbed copy of random ones)."""
    pick = rng.integers(0, len(matrix), n)
    return _unit(matrix[pick] + rng.normal(size=(n, DIM)) * (0.5 / np.sqrt(DIM))).astype(np.float32)


@suite("scale", title="Scale: a small tenant beside a big one in shared vector indexes, per server version")
def run(ctx: BenchContext) -> dict:
    """Vector channel latency, recall@10 against exact per-tenant top-10, round trips and write cost as the
    database grows from one small tenant alone to 100k (1M with KGMEM_BENCH_BIG=1) memories."""
    small_n = 200 if ctx.quick else 1000
    smalls = 10
    big_steps = [10_000] if ctx.quick else [90_000]
    if os.environ.get("KGMEM_BENCH_BIG") and not ctx.quick:
        big_steps.append(990_000)
    n_queries = 30 if ctx.quick else 100
    base = ctx._base_graph()
    store = base.store
    info = store.server_info()
    ctx.log(f"server {info.version} (generation {info.generation or '5.x'})")
    base.init()
    rng = ctx.rng(14)
    tenants = [ctx.new_tenant() for _ in range(smalls + 1)]
    ctx.tenants.extend(tenants)
    small, others, big = tenants[0], tenants[1:smalls], tenants[smalls]
    rows, plot_x, plot = [], [], {"small_p50": [], "big_p50": [], "small_recall": [], "big_recall": []}
    writes, figures = [], {"server": info.to_dict(), "steps": []}
    try:
        small_m = _vectors(rng, small_n)
        writes.append(("small tenant", small_n, _write(ctx, store, small, small_m), small_n))
        small_q = _queries(rng, small_m, n_queries)
        steps = [("1 small tenant alone", None)]
        steps.append((f"{smalls} small tenants", "smalls"))
        steps += [(f"+ big tenant {n:,}", n) for n in big_steps]
        total, big_m, big_q = small_n, None, None
        for label, what in steps:
            if what == "smalls":
                secs = 0.0
                for t in others:
                    secs += _write(ctx, store, t, _vectors(rng, small_n))
                    total += small_n
                writes.append((f"{len(others)} more small tenants", small_n * len(others), secs, total))
            elif isinstance(what, int):
                have = 0 if big_m is None else len(big_m)
                more = _vectors(rng, what - have)
                big_m = more if big_m is None else np.vstack([big_m, more])
                for i in range(0, len(more), 50_000):
                    chunk = more[i : i + 50_000]
                    total += len(chunk)
                    secs = _write(ctx, store, big, chunk, start=have + i)
                    writes.append((f"big tenant to {have + i + len(chunk):,}", len(chunk), secs, total))
                    ctx.log(f"{total:,} memories: wrote {len(chunk):,} in {secs:.1f} s")
                big_q = _queries(rng, big_m, n_queries)
            settled = _settle(ctx)
            ctx.log(f"{label} ({total:,} memories): Neo4j quiet after {settled:.0f} s; measuring")
            for _ in range(10):  # warm-up (plans, JIT, page cache), not measured
                channels.vector(store, _queries(rng, small_m, 1)[0], Filters(tenant=small), K)
                if big_m is not None:
                    channels.vector(store, _queries(rng, big_m, 1)[0], Filters(tenant=big), K)
            s = _measure(store, small, small_m, small_q)
            b = _measure(store, big, big_m, big_q) if big_m is not None else None
            figures["steps"].append({"label": label, "total": total, "small": s, "big": b})
            measured = [(f"small ({small_n:,})", s)] + ([(f"big ({len(big_m):,})", b)] if b else [])
            for who, fig in measured:
                rows.append(
                    [
                        f"{total:,}",
                        label,
                        who,
                        f"{fig['p50_ms']:.1f} / {fig['p95_ms']:.1f}",
                        f"{fig['recall_at_10']:.3f} (min {fig['min_recall_at_10']:.1f})",
                        f"{fig['round_trips']:.2f} (max {fig['max_round_trips']})",
                        f"{fig['candidates_fetched']:,.0f}",
                    ]
                )
            plot_x.append(total)
            plot["small_p50"].append(s["p50_ms"])
            plot["small_recall"].append(s["recall_at_10"])
            plot["big_p50"].append(b["p50_ms"] if b else None)
            plot["big_recall"].append(b["recall_at_10"] if b else None)
    finally:
        for t in tenants:
            ctx.delete_tenant(t)
    alone = figures["steps"][0]["small"]["p50_ms"]
    last = figures["steps"][-1]["small"]
    figures["small_p50_vs_alone"] = last["p50_ms"] / alone if alone else None
    version = info.version
    return {
        "tables": [
            {
                "title": f"Vector channel on Neo4j {version}: p50 / p95 ms, recall@10 against exact per-tenant top-10",
                "columns": ["memories", "step", "tenant", "p50 / p95 ms", "recall@10", "round trips", "candidates"],
                "rows": rows,
                "note": f"{n_queries} query vectors per tenant near its own memories; recall@10 = share of the exact "
                "top-10 (numpy over the tenant's vectors) that the channel returned; round trips and candidates "
                "= the channel's index fetches per query (on 5.26 the over-fetch, widening and exact fallback; on "
                "2026.x the in-index tenant filter). The goal on 2026.x: small-tenant recall@10 ≥ 0.99 and its p50 "
                f"within 1.2× its p50 alone; here {figures['small_p50_vs_alone']:.2f}×.",
            },
            {
                "title": f"Write cost as the index grows (Neo4j {version})",
                "columns": ["batch", "memories", "seconds", "memories/s", "memories in the database after"],
                "rows": [[w, f"{n:,}", f"{s:.1f}", f"{n / s:,.0f}", f"{t:,}"] for w, n, s, t in writes],
                "note": f"lifecycle/import_memories in transactions of {BATCH:,}: node, labels, properties and the "
                "vector, with every index's upkeep (three vector indexes, of which one holds these vectors; "
                "fulltext and range indexes over the same nodes).",
            },
        ],
        "figures": {**figures, "writes": writes},
        "plots": [
            {
                "file": f"scale_{version}.png",
                "kind": "line",
                "title": f"Vector channel against memories in the database (Neo4j {version})",
                "xlabel": "memories in the database",
                "ylabel": "p50 ms",
                "x": plot_x,
                "logx": True,
                "series": [
                    {"label": "small tenant p50", "y": plot["small_p50"]},
                    {"label": "big tenant p50", "y": plot["big_p50"]},
                ],
            },
            {
                "file": f"scale_recall_{version}.png",
                "kind": "line",
                "title": f"recall@10 against exact per-tenant top-10 (Neo4j {version})",
                "xlabel": "memories in the database",
                "ylabel": "recall@10",
                "x": plot_x,
                "logx": True,
                "series": [
                    {"label": "small tenant", "y": plot["small_recall"]},
                    {"label": "big tenant", "y": plot["big_recall"]},
                ],
            },
        ],
    }

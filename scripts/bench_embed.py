"""Embedding speed, ONNX (onnxruntime) against sentence-transformers (torch), in one process each.

    python scripts/bench_embed.py onnx|torch [--queries 200] [--batch 2000]

Prints JSON: load seconds (import + model), query embedding p50/p90 in ms (one short question at a time,
no cache) and the wall time of one batch encode of N fixture-like texts. Run each backend in its own process
(cold imports differ) on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def texts(n: int) -> list[str]:
    pool: list[str] = []
    for path in sorted((ROOT / "fixtures").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row.get("text"), str):
                pool.append(row["text"])
    rng = random.Random(7)
    return [f"{rng.choice(pool)} ({i})" for i in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("backend", choices=["onnx", "torch"])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=2000)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    started = time.perf_counter()
    from kgmem.embed import Embedder

    emb = Embedder(backend="onnx" if args.backend == "onnx" else "sentence-transformers")
    load = time.perf_counter() - started
    questions = [f"why did checkout crash on friday number {i}?" for i in range(args.queries)]
    emb.encode_query("warm up")
    lat = []
    for q in questions:
        t = time.perf_counter()
        emb.encode_query(q)
        lat.append((time.perf_counter() - t) * 1000)
    batch = texts(args.batch)
    emb.encode(batch[:64])
    t = time.perf_counter()
    emb.encode(batch)
    batch_s = time.perf_counter() - t
    import resource

    lat.sort()
    print(
        json.dumps(
            {
                "backend": emb.backend,
                "load_s": round(load, 3),
                "query_p50_ms": round(statistics.median(lat), 2),
                "query_p90_ms": round(lat[int(0.9 * len(lat))], 2),
                "batch_texts": len(batch),
                "batch_s": round(batch_s, 2),
                "batch_texts_per_s": round(len(batch) / batch_s, 1),
                "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "load_average": os.getloadavg(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

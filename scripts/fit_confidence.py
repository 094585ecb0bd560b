"""Fit kgmem's confidence model (learned abstention) and write kgmem/data/confidence.json.

Training data — only what kgmem may ship coefficients from (Apache-2.0): kgmem's own fixtures and WikiWhy
(MIT), plus negatives generated from WikiWhy. Never LoCoMo (CC BY-NC): the conversations bench only measures.

* fixtures/recall: answerable questions (label 1 when a relevant memory is in recall's top 5; skipped when
  none is) and unanswerable ones (label 0);
* WikiWhy, a fixed sample of pairs: the cause and the effect of N pairs are stored as memories; the pairs'
  questions are answerable (label 1 when the effect or cause is in the top 5), questions of pairs that are not
  stored are off-topic negatives (label 0), and the stored pairs' questions with their first name swapped for a
  name from another question are false-premise negatives (label 0: the topic is there, the subject is not).

Each question goes through MemoryGraph.recall on the configured Neo4j (NEO4J_URI or the local server), in
throwaway tenants, and the model is a scikit-learn LogisticRegression on kgmem.query.confidence.FEATURES
(standardised; every source and label weighs the same). The threshold is the lowest probability at which
at most 25 % of the (weighted) training negatives are answered. The feature rows (numbers only) go to bench/confidence_training.json so the
conversations bench can refit with its own held-out folds.

    python scripts/fit_confidence.py [--pairs 600] [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_PATH = ROOT / "kgmem" / "data" / "confidence.json"
ROWS_PATH = ROOT / "bench" / "confidence_training.json"
WIKIWHY = ROOT.parent / "shared" / "datasets" / "wikiwhy"
MAX_NEGATIVES_ANSWERED = 0.25
_NAME = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def collect(pairs: int, seed: int = 7) -> list[dict]:
    from kgmem import MemoryGraph
    from kgmem.validate import parse_time

    rows: list[dict] = []
    base = MemoryGraph.from_env(tenant=f"fitconf-{uuid.uuid4().hex[:8]}")
    made: list[str] = []
    try:
        # ---- fixtures/recall
        records = _jsonl(ROOT / "fixtures" / "recall" / "memories.jsonl")
        questions = _jsonl(ROOT / "fixtures" / "recall" / "questions.jsonl")
        tenants = {}
        for name in sorted({r.get("tenant", "acme") for r in records}):
            tenants[name] = f"{base.tenant}-{name}"
            made.append(tenants[name])
            base.for_tenant(tenants[name]).ingest(
                [{k: v for k, v in r.items() if k != "tenant"} for r in records if r.get("tenant", "acme") == name]
            )
        for q in questions:
            g = base.for_tenant(tenants[q["tenant"]])
            res = g.recall(q["query"], k=10, now=parse_time(q["now"]) if q.get("now") else None)
            top5 = {h.id for h in res.hits[:5]}
            if q["kind"] == "answerable":
                if not top5 & set(q["relevant"]):
                    continue
                label = 1
            else:
                label = 0
            rows.append({"source": "fixtures/recall", "label": label, "features": res.features})

        # ---- WikiWhy
        cols = {
            c: json.loads((WIKIWHY / f"{c}.json").read_text(encoding="utf-8"))[c]
            for c in ("cause", "effect", "question")
        }
        ids = sorted(set(cols["cause"]) & set(cols["effect"]) & set(cols["question"]), key=int)
        rng = random.Random(seed)
        rng.shuffle(ids)
        stored, absent = ids[:pairs], ids[pairs : pairs + pairs // 2]
        ww = f"{base.tenant}-wikiwhy"
        made.append(ww)
        g = base.for_tenant(ww)
        g.ingest(
            [{"id": f"c{i}", "text": cols["cause"][i][:4000], "at": "2024-01-01"} for i in stored]
            + [
                {"id": f"e{i}", "text": cols["effect"][i][:4000], "at": "2024-01-02", "caused_by": [f"c{i}"]}
                for i in stored
            ],
            infer_causes=False,
        )
        names = [m.group(1) for i in ids[: pairs * 2] for m in [_NAME.search(cols["question"][i])] if m]
        for i in stored[: pairs // 2]:
            res = g.recall(cols["question"][i], k=10)
            if {f"c{i}", f"e{i}"} & {h.id for h in res.hits[:5]}:
                rows.append({"source": "wikiwhy/stored", "label": 1, "features": res.features})
        for i in absent:
            res = g.recall(cols["question"][i], k=10)
            rows.append({"source": "wikiwhy/absent", "label": 0, "features": res.features})
        for i in stored[pairs // 2 :]:
            q = cols["question"][i]
            m = _NAME.search(q)
            if not m:
                continue
            other = rng.choice([n for n in names if n != m.group(1)])
            res = g.recall(q[: m.start()] + other + q[m.end() :], k=10)
            rows.append({"source": "wikiwhy/swapped-name", "label": 0, "features": res.features})
    finally:
        for t in made:
            base.store.auto_commit("admin/delete_tenant", tenant=t)
        base.close()
    return rows


def fit(rows: list[dict]) -> dict:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from kgmem.query.confidence import FEATURES

    x = np.array([[r["features"][f] for f in FEATURES] for r in rows], dtype=float)
    y = np.array([r["label"] for r in rows])
    # every (source, label) group weighs the same: 22 unanswerable fixture questions count as much as 300
    # generated WikiWhy negatives, so the mix is not decided by whichever source is largest
    groups = [(r["source"], r["label"]) for r in rows]
    w = np.array([1.0 / groups.count(g) for g in groups])
    w *= len(w) / w.sum()
    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=1.0, max_iter=1000).fit(scaler.transform(x), y, sample_weight=w)
    p = clf.predict_proba(scaler.transform(x))[:, 1]
    # the lowest threshold at which at most 25 % of the negatives (weighted as above) get an answer
    neg = sorted(zip(p[y == 0], w[y == 0]), reverse=True)
    total, acc, threshold = sum(wt for _, wt in neg), 0.0, 1.0
    for prob, wt in neg:
        if acc + wt > MAX_NEGATIVES_ANSWERED * total:
            threshold = float(prob) + 1e-6
            break
        acc += wt
    data = json.dumps([[r["source"], r["label"], [round(r["features"][f], 6) for f in FEATURES]] for r in rows])
    return {
        "features": list(FEATURES),
        "mean": [float(v) for v in scaler.mean_],
        "scale": [float(v) for v in scaler.scale_],
        "coef": [float(v) for v in clf.coef_[0]],
        "intercept": float(clf.intercept_[0]),
        "threshold": round(threshold, 6),
        "data_version": "sha256:" + hashlib.sha256(data.encode()).hexdigest()[:16],
        "trained_on": ", ".join(
            f"{s} ({sum(1 for r in rows if r['source'] == s)})" for s in sorted({r["source"] for r in rows})
        ),
        "training_fit": {
            "positives_answered": round(float((p[y == 1] >= threshold).mean()), 4),
            "negatives_answered": round(float((p[y == 0] >= threshold).mean()), 4),
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=600)
    ap.add_argument("--refit", action="store_true", help="refit from bench/confidence_training.json (no queries)")
    args = ap.parse_args()
    if args.refit:
        from kgmem.query.confidence import FEATURES

        saved = json.loads(ROWS_PATH.read_text(encoding="utf-8"))
        rows = [
            {"source": r["source"], "label": r["label"], "features": dict(zip(FEATURES, r["x"]))} for r in saved["rows"]
        ]
        model = fit(rows)
        MODEL_PATH.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
        print(json.dumps({k: model[k] for k in ("threshold", "data_version", "trained_on", "training_fit")}))
        return 0
    if not (WIKIWHY / "cause.json").is_file():
        print(f"WikiWhy not found at {WIKIWHY}: put the dataset there (see ../shared/README.md)", file=sys.stderr)
        return 2
    rows = collect(args.pairs)
    model = fit(rows)
    MODEL_PATH.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    from kgmem.query.confidence import FEATURES

    ROWS_PATH.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "data_version": model["data_version"],
                "rows": [
                    {"source": r["source"], "label": r["label"], "x": [round(r["features"][f], 6) for f in FEATURES]}
                    for r in rows
                ],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    print(json.dumps({k: model[k] for k in ("threshold", "data_version", "trained_on", "training_fit")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

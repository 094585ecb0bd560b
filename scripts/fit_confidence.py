"""Fit kgmem's confidence model (learned abstention) and write kgmem/data/confidence.json.

Training data — only what kgmem may ship coefficients from (Apache-2.0): kgmem's own fixtures, updates-dev (CC0)
and the template chats of ``kgmem_bench.chatgen`` (written for kgmem: answerable questions, questions about the
other speaker, questions about a topic never discussed — the way LoCoMo made its adversarial ones). Never
LoCoMo (CC BY-NC): the conversations bench only chooses features and measures. WikiWhy (MIT) may be used but is
not (see SOURCES).

1. ``--collect`` asks every training question through ``MemoryGraph.recall`` on the configured Neo4j (in
   throwaway tenants) and keeps what the confidence step saw as snapshots outside the tree
   (``scripts/confidence_snapshots.py``; WikiWhy's text must not be published);
2. the features of each snapshot are computed by kgmem's own code (``kgmem.query.meaning`` for the meaning
   features; the ranking features as recall computed them);
3. a scikit-learn LogisticRegression on :data:`MODEL_FEATURES` (standardised; every (source, label) group weighs
   the same, so no source decides the mix by its size), then its probability recalibrated (Platt, sigmoid) on
   out-of-fold predictions (5 folds, grouped by conversation or stream), so ``confidence`` reads as a probability;
4. the threshold is 0.5: answer when the best hit more likely answers than not.

The feature rows (numbers only) go to bench/confidence_training.json; the conversations bench refits with them
and its own held-out folds.

    python scripts/fit_confidence.py --collect     # query and fit (needs Neo4j; ~4 min)
    python scripts/fit_confidence.py               # fit from the snapshots collected before
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from kgmem_bench.confidence_fit import fit  # noqa: E402  (the recipe, shared with the conversations bench)

MODEL_PATH = ROOT / "kgmem" / "data" / "confidence.json"
ROWS_PATH = ROOT / "bench" / "confidence_training.json"
SNAPSHOTS = Path(os.environ.get("KGMEM_SNAPSHOTS", os.path.expanduser("~/.cache/kgmem/confidence")))
# WikiWhy is not among them: its stored and absent questions part on the cosine alone, and a model fitted with
# them leant on the cosine, which says nothing about a false premise in a chat (on LoCoMo's development half it
# lost AUC and calibration: CHANGELOG.md, benchmark log)
SOURCES = ("fixtures", "updates", "chats")
# the features the shipped model reads: chosen on LoCoMo's development half (feature AUCs and leave-one-
# conversation-out fits: the conversations report); left out are those whose fitted coefficient points against their
# meaning (kgmem.query.confidence.DIRECTION: collinear with the others), so that "nothing matches" never raises
# the confidence: keyword, coverage, coverage_top3, topic_named, and — as the template chats' listeners answer
# news in the second person and relate it to themselves — cosine and attribution_margin
# (topic_similarity and pool_margin say the same, the right way round); entity_margin is read as entity_topic
# (with the margin alone the demo's band question, topic absent, got 0.70); pool_behind (someone else covers the
# topic better than the person named) stands in place of topic_other, whose coefficient turned against its
# meaning beside it (the figures: CHANGELOG.md, benchmark log); the others are computed and reported
MODEL_FEATURES = (
    "gap",
    "entity_topic",
    "topic_any",
    "topic_seen",
    "topic_similarity",
    "pool_margin",
    "pool_behind",
    "best_asks",
    "best_words",
    "retired",
)


def snapshot_features(snap: dict[str, Any]) -> dict[str, float]:
    """Every feature of a snapshot: the ranking's as recall computed them, the meaning's recomputed (so a
    change to kgmem.query.meaning refits without querying again), over the same candidates recall reads."""
    from kgmem.query import meaning
    from kgmem.query.confidence import RANK_FEATURES, combined
    from kgmem.query.recall import names_of as names
    from kgmem.query.recall import read_pool, topic_similarity
    from kgmem.query.rows import HitMap, PoolMap

    def typed(i: str, d: dict[str, Any]) -> PoolMap:  # a snapshot's map: a full one has the cosine to the question
        return (HitMap if d.get("similarity") is not None else PoolMap).of({"id": i, **d})

    hits = snap.get("hits") or []
    det = {i: typed(i, d) for i, d in (snap.get("details") or {}).items()}
    ids = read_pool(det, snap.get("plain") or {})

    old = (snap.get("old") or {}).get("features") or {}
    out = {k: float(old.get(k, 0.0)) for k in RANK_FEATURES}
    out.update(
        meaning.features(
            snap["question"],
            [h["text"] for h in hits],
            [
                names(det.get(h["id"]) or typed(h["id"], {"text": h["text"], "mentions": h.get("mentions")}))
                for h in hits
            ],
            [det[i].text or "" for i in ids],
            bool(hits and hits[0].get("retired") and old.get("retired", 1.0)),
            [names(det[i]) for i in ids],
            [topic_similarity(det[i]) for i in ids],
        )
    )
    out.update(combined(out))
    return out


def load_rows(sources: tuple[str, ...] = SOURCES) -> list[dict]:
    rows = []
    for name in sources:
        path = SNAPSHOTS / f"{name}.jsonl"
        if not path.is_file():
            raise SystemExit(f"no snapshots at {path}: run with --collect first")
        for line in path.read_text(encoding="utf-8").splitlines():
            snap = json.loads(line)
            if snap.get("label") is None:
                continue
            rows.append(
                {
                    "source": snap["source"],
                    "group": f"{name}/{snap.get('group')}",
                    "label": int(snap["label"]),
                    "features": snapshot_features(snap),
                }
            )
    return rows


def save_rows(rows: list[dict], model: dict) -> None:
    features = model["features"]
    ROWS_PATH.write_text(
        json.dumps(
            {
                "features": features,
                "data_version": model["data_version"],
                "rows": [
                    {
                        "source": r["source"],
                        "group": r["group"],
                        "label": r["label"],
                        "x": [round(r["features"][f], 6) for f in features],
                    }
                    for r in rows
                ],
            }
        )
        + "\n",
        encoding="utf-8",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collect", action="store_true", help="query the training sources first (needs Neo4j)")
    args = ap.parse_args()
    if args.collect:
        cmd = [sys.executable, str(ROOT / "scripts" / "confidence_snapshots.py"), "--out", str(SNAPSHOTS)]
        for s in SOURCES:
            cmd += ["--source", s]
        subprocess.run(cmd, check=True)
    rows = load_rows()
    model = fit(rows, MODEL_FEATURES)
    from kgmem.query.confidence import against_meaning

    wrong = against_meaning(model["features"], model["coef"])
    if wrong:
        raise SystemExit(f"coefficients against their meaning for {wrong}: leave them out of MODEL_FEATURES")
    MODEL_PATH.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    save_rows(rows, model)
    print(json.dumps({k: model[k] for k in ("threshold", "data_version", "trained_on", "training_fit")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

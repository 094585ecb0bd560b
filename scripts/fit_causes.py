"""Fit kgmem's cause model and write kgmem/data/causes.json.

The model says how likely a memory states why another one happened (or, for the same memory twice, why it
happened itself): a logistic regression over the pair features of :mod:`kgmem.derived.cause_cues`. Training
data — only what kgmem may ship coefficients from: causes-dev (written for this project, CC0,
``../shared/datasets/causes-dev``) and kgmem's own fixtures/causal (incidents told in words, and the
distractors as negatives). Each case's memories are paired with each other (and each with itself): a pair is
positive when a question names it (``effect`` → each id of ``cause``, each link of a ``chain``, an incident's
chain), negative otherwise — but a memory's pair with itself only where a question asks why that memory happened
(elsewhere nothing says whether a note with a cause clause states its own cause). No database: the texts are
embedded here.

Figures are those of held-out folds, grouped by case (5 folds): the pairs' AUC, precision and recall at the link
threshold, and each causes-dev question answered the way ``why`` answers it
(:func:`kgmem.derived.causal.explain`) over its case's memories ranked by cosine to the question — the fold's
model, never the training fit. Two thresholds are chosen on those folds: ``link`` (the ingest pass writes an
inferred CAUSED_BY from a memory to its likeliest cause at or above it: the lowest at which that link is right
for at least 75 % of the memories that get one, counted against the questions' labels, which name only the
causes a question asks about) and ``threshold`` (``why``
reads a cause from the words at or above it, and how many of the best hits may be the event asked about: the
most answerable questions answered with a stated cause among the settings that abstain on at least 40 % of the
no-cause questions).

    python scripts/fit_causes.py [--check] [--report PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODEL_PATH = ROOT / "kgmem" / "data" / "causes.json"
CAUSES = ROOT.parent / "shared" / "datasets" / "causes-dev" / "causes-dev.json"
FIXTURES = ROOT / "fixtures" / "causal"
GRID_C = (0.03, 0.1, 0.3, 1.0)
GRID_T = tuple(round(0.3 + 0.05 * i, 2) for i in range(13))  # 0.30 .. 0.90
GRID_E = (1, 2, 3, 5)  # how many of the best hits may be the effect
FOLDS = 5
MIN_LINK_PRECISION = 0.75
MIN_ABSTAINED = 0.4  # the share of no-cause questions the chosen threshold must abstain on


def _time(value: str) -> dt.datetime:
    t = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cases() -> list[dict]:
    """Every case as {key, dataset, memories, positives, questions}."""
    out = []
    for c in json.loads(CAUSES.read_text(encoding="utf-8")):
        pos: set[tuple[str, str]] = set()
        for q in c["questions"]:
            pos.update((q["effect"], x) for x in q["cause"])
            chain = q.get("chain") or []
            pos.update(zip(chain, chain[1:]))
        out.append(
            {
                "key": c["key"],
                "kind": c["kind"],
                "dataset": "causes-dev",
                "memories": c["memories"],
                "positives": pos,
                "questions": c["questions"],
            }
        )
    words = _jsonl(FIXTURES / "incidents_words.jsonl")
    chains = [q["chain"] for q in _jsonl(FIXTURES / "questions.jsonl") if q.get("chain")]
    by_stream: dict[str, list[dict]] = {}
    for m in words:
        by_stream.setdefault(m.get("stream") or m["id"], []).append(m)
    for stream, mems in sorted(by_stream.items()):
        ids = {m["id"] for m in mems}
        pos = {(a, b) for ch in chains for a, b in zip(ch, ch[1:]) if a in ids and b in ids}
        out.append(
            {
                "key": f"fixture-{stream}",
                "kind": "fixture",
                "dataset": "fixtures",
                "memories": mems,
                "positives": pos,
                "questions": [],
            }
        )
    dist = _jsonl(FIXTURES / "distractors.jsonl")
    for i in range(0, len(dist), 8):
        out.append(
            {
                "key": f"fixture-distractors-{i // 8}",
                "kind": "fixture",
                "dataset": "fixtures",
                "memories": dist[i : i + 8],
                "positives": set(),
                "questions": [],
            }
        )
    return out


def collect(all_cases: list[dict]) -> tuple[list[dict], dict[str, Any]]:
    """The pairs (case, effect, cause, label, features) and every memory's side (for the questions)."""
    import numpy as np

    from kgmem.derived import cause_cues as cc
    from kgmem.embed import get_embedder

    emb = get_embedder()
    texts = sorted({m["text"] for c in all_cases for m in c["memories"]})
    frags = sorted({f for t in texts for f in cc.fragments(t)})
    vecs = emb.encode(texts + frags)
    vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    vec = dict(zip(texts + frags, vecs))
    sides: dict[str, Any] = {}
    pairs = []
    for c in all_cases:
        ss = [cc.Side(m["id"], m["text"], _time(m["at"]), vec[m["text"]]) for m in c["memories"]]
        for s in ss:
            sides[s.id] = s
        # a memory's pair with itself ("it states its own cause") is labelled only where a question asks why that
        # memory happened: elsewhere a note with a cause clause may well state its own cause, and nothing says
        # whether it does (the questions name only the causes they ask about)
        asked = {q["effect"] for q in c["questions"]} | {a for a, _b in c["positives"]}
        for e in ss:
            for k in ss:
                if e.id == k.id and e.id not in asked:
                    continue
                x = cc.pair_features(e, k, vec)
                pairs.append(
                    {
                        "case": c["key"],
                        "effect": e.id,
                        "cause": k.id,
                        "label": int((e.id, k.id) in c["positives"]),
                        "x": x,
                    }
                )
    return pairs, {"sides": sides, "vector": vec, "embedder": emb}


def fit(pairs: list[dict], c: float) -> Any:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from kgmem.derived import cause_cues as cc
    from kgmem.derived.causal import CauseModel

    x = np.array([[p["x"][f] for f in cc.FEATURES] for p in pairs])
    y = np.array([p["label"] for p in pairs])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit((x - mean) / scale, y)
    return CauseModel(
        features=cc.FEATURES,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        coef=tuple(float(v) for v in lr.coef_[0]),
        intercept=float(lr.intercept_[0]),
        threshold=0.5,
        data_version="",
        trained_on="",
    )


def folds(keys: list[str], n: int) -> list[set[str]]:
    """``keys`` in ``n`` groups by a hash of each key (stable, not by position)."""
    out: list[set[str]] = [set() for _ in range(n)]
    for k in keys:
        out[int(hashlib.sha256(k.encode()).hexdigest(), 16) % n].add(k)
    return out


def ask(
    case: dict, question: dict, model: Any, threshold: float, sides: dict[str, Any], vec: dict, effects: int = 5
) -> Any:
    """The case's memories ranked by cosine to the question, then :func:`kgmem.derived.causal.explain`."""
    from kgmem.derived.causal import Candidate, explain

    qv = vec["__q__" + question["q"]]
    ranked = sorted(case["memories"], key=lambda m: -float(sides[m["id"]].vector @ qv))
    hits = [Candidate(sides[m["id"]], float(sides[m["id"]].vector @ qv)) for m in ranked[:10]]
    return explain(hits, model, vec.__getitem__, threshold=threshold, effects=effects)


def score_questions(answers: list[tuple[dict, Any]]) -> dict[str, Any]:
    per: dict[str, list[int]] = {}
    for q, found in answers:
        kind = q["kind"] + (": abstain" if not q["cause"] else "")
        ok = (found is None) if not q["cause"] else (found is not None and found.cause in q["cause"])
        per.setdefault(kind, []).append(int(ok))
    answerable = [v for k, vs in per.items() if not k.endswith("abstain") for v in vs]
    abstain = [v for k, vs in per.items() if k.endswith("abstain") for v in vs]
    return {
        "answerable": [sum(answerable), len(answerable)],
        "no_cause_abstained": [sum(abstain), len(abstain)],
        "by_kind": {k: [sum(v), len(v)] for k, v in sorted(per.items())},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fit and report, do not write the model")
    ap.add_argument("--report", default=None, help="write the cross-validation report (JSON) here")
    args = ap.parse_args()
    import numpy as np
    from sklearn.metrics import roc_auc_score

    all_cases = cases()
    pairs, ctx = collect(all_cases)
    sides, vec = ctx["sides"], ctx["vector"]
    questions = [(c, {**q, "kind": c["kind"]}) for c in all_cases for q in c["questions"]]
    qtexts = sorted({q["q"] for _, q in questions})
    qv = ctx["embedder"].encode(qtexts)
    qv = qv / np.maximum(np.linalg.norm(qv, axis=1, keepdims=True), 1e-12)
    vec.update({"__q__" + t: v for t, v in zip(qtexts, qv)})
    keys = sorted({c["key"] for c in all_cases})
    groups = folds(keys, FOLDS)
    report: dict[str, Any] = {"folds": FOLDS, "by_c": {}}
    best: tuple[float, float, tuple[float, int]] | None = None
    for c in GRID_C:
        oof: dict[tuple[str, str], float] = {}
        answers: dict[tuple[float, int], list[tuple[dict, Any]]] = {(t, e): [] for t in GRID_T for e in GRID_E}
        for test in groups:
            model = fit([p for p in pairs if p["case"] not in test], c)
            held = [p for p in pairs if p["case"] in test]
            for p, prob in zip(held, model.probabilities([p["x"] for p in held])):
                oof[(p["effect"], p["cause"])] = prob
            for case, q in questions:
                if case["key"] in test:
                    for t in GRID_T:
                        for e in GRID_E:
                            answers[(t, e)].append((q, ask(case, q, model, t, sides, vec, e)))
        y = [p["label"] for p in pairs]
        s = [oof[(p["effect"], p["cause"])] for p in pairs]
        by_t = {t: score_questions(a) for t, a in answers.items()}
        link = _link_threshold(pairs, oof)
        report["by_c"][c] = {
            "auc": roc_auc_score(y, s),
            "link": link,
            "questions": {f"{t}/{e}": v for (t, e), v in by_t.items()},
        }
        for t, sc in by_t.items():
            if sc["no_cause_abstained"][0] < MIN_ABSTAINED * sc["no_cause_abstained"][1]:
                continue
            value = sc["answerable"][0] / sc["answerable"][1]
            if best is None or value > best[0]:
                best = (value, c, t)
    assert best is not None
    _value, c, (t, effects) = best
    chosen = report["by_c"][c]
    print(
        f"chosen C={c} threshold={t} effects={effects} link={chosen['link']['threshold']}: held-out AUC "
        f"{chosen['auc']:.3f}, questions {json.dumps(chosen['questions'][f'{t}/{effects}'])}, link pairs "
        f"{json.dumps(chosen['link'])}"
    )
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1, default=str))
    rows = [
        [p["case"], p["effect"], p["cause"], p["label"], [round(p["x"][f], 6) for f in sorted(p["x"])]] for p in pairs
    ]
    version = "sha256:" + hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
    final = fit(pairs, c)
    import dataclasses

    shipped = dataclasses.replace(
        final,
        threshold=t,
        link=chosen["link"]["threshold"],
        effects=effects,
        data_version=version,
        trained_on="causes-dev (CC0) + fixtures/causal (incidents told in words, distractors)",
        held_out={
            "C": c,
            "auc": round(chosen["auc"], 4),
            "link": chosen["link"],
            "questions": chosen["questions"][f"{t}/{effects}"],
        },
    )
    if not args.check:
        MODEL_PATH.write_text(json.dumps(shipped.to_dict(), indent=1) + "\n")
        print(f"wrote {MODEL_PATH}")
    return 0


def _link_threshold(pairs: list[dict], oof: dict[tuple[str, str], float]) -> dict[str, Any]:
    """The lowest threshold at which each memory's likeliest cause among the others (the link the pass writes)
    is right at least :data:`MIN_LINK_PRECISION` of the time on the held-out folds, with its precision and the
    share of memories with a labelled cause that get their link."""
    best: dict[str, tuple[float, int]] = {}
    caused: set[str] = set()
    for p in pairs:
        if p["effect"] == p["cause"]:
            continue
        if p["label"]:
            caused.add(p["effect"])
        got = (oof[(p["effect"], p["cause"])], p["label"])
        if p["effect"] not in best or got > best[p["effect"]]:
            best[p["effect"]] = got
    for t in [round(0.5 + 0.005 * i, 3) for i in range(100)]:
        chosen = [lab for p, lab in best.values() if p >= t]
        if chosen and sum(chosen) / len(chosen) >= MIN_LINK_PRECISION:
            return {
                "threshold": t,
                "precision": round(sum(chosen) / len(chosen), 3),
                "recall": round(sum(chosen) / len(caused), 3),
                "links": len(chosen),
            }
    return {"threshold": 1.0, "precision": None, "recall": 0.0, "links": 0}


if __name__ == "__main__":
    sys.exit(main())

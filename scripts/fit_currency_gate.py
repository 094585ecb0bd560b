"""Fit the gate of recall's currency step and write kgmem/data/currency_gate.json.

For a question about the present, recall ranks a memory below the newer memory that retired it. A link
inferred from words is often right about the two notes and wrong about the question: a note that holds several
facts ("pantry hours, warehouse address, dock") is retired by a note that changed one of them, and the newer
note must not be lifted above the answer to a question about another. The gate decides, per question and per
inferred link, whether the link re-ranks (:func:`kgmem.query.currency.link_counts`), from
:data:`kgmem.query.currency.GATE_FEATURES` (same code at fit and query time).

Training data, all CC0 and by three different hands: updates-dev, updates-dev-2 (knowledge updates) and
notes-dev (four users' plain notes), from ``../shared/datasets``. Each case or user goes into a throwaway tenant;
the updates cases' links are inferred by the supersession model refitted without the case's fold (as the
updates bench does), so the links the gate learns from are held out too. For each question about the present
with a known answer, every inferred link among its ten hits is a row: positive when the newer memory is an
answer of the question, negative otherwise.

The model is a scikit-learn LogisticRegression (C = 1, balanced classes) on the standardised features, with
the threshold fixed at 0.5 (not chosen on any set). Reported: recall's first hit per set with the gate against
the fixed rule it replaces (a link counts when its newer memory is among the question's first 3), on 5 folds
grouped by tenant over the three sets and with each author's set left out in turn — held-out rankings
replayed from the recorded candidates (:func:`kgmem.query.currency.retire`, the same step recall runs).

    python scripts/fit_currency_gate.py [--check] [--report PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from kgmem_bench import notes as N  # noqa: E402
from kgmem_bench import supersession_fit as sf  # noqa: E402
from kgmem_bench import updates as U  # noqa: E402

MODEL_PATH = ROOT / "kgmem" / "data" / "currency_gate.json"
SETS = (U.DEV, U.DEV2, "notes-dev")  # three authors' sets, where the benches find them
C, THRESHOLD, FOLDS = 1.0, 0.5, 5
memory_of = N.memory_of


def tenants(name: str) -> list[dict]:
    """One dict per tenant, read by the benches' own loaders: key, records, questions (each with ``answer`` ids,
    ``at`` and the ``now`` the bench asks it at) and the supersession model its links are inferred with (the
    updates bench's refit without the case's fold; None: the shipped one)."""
    if name == "notes-dev":
        out = []
        for t in N.load_tenants(N._data_file(N.notes_path())):
            records = [{"id": n["id"], "text": n["text"], "at": n["at"]} for n in t["notes"]]
            now = N.asked_now(records)
            questions = [
                {"q": q["q"], "answer": q.get("answer", []), "at": q.get("at"), "now": None if q.get("at") else now}
                for q in t["questions"]
                if q["type"] not in ("changes", "unanswerable")
            ]
            out.append({"key": t["tenant"], "records": records, "questions": questions, "model": None})
        return out
    cases = U.load_cases(U._data_file(U.updates_path(name), name))
    models, _how = U.held_out_models(cases, dataset=name)
    return [
        {
            "key": c["key"],
            "records": [{"id": m["id"], "text": m["text"], "at": m["at"]} for m in c["memories"]],
            "questions": [
                {"q": q["q"], "answer": [q["current"]], "at": q.get("at"), "now": None} for q in c["questions"]
            ],
            "model": models.get(c["key"]),
        }
        for c in cases
    ]


def collect(name: str) -> list[dict]:
    """Every present-tense question of the set: its recorded candidates (the fused ranking before the currency
    step), the inferred links among its hits with their gate features, and the answer."""
    from kgmem import MemoryGraph
    from kgmem.derived import supersession
    from kgmem.query import currency
    from kgmem.query.fusion import Fused

    base = MemoryGraph.from_env(tenant="fit-currency-gate")
    out: list[dict] = []
    for t in tenants(name):
        tenant = f"fit-gate-{uuid.uuid4().hex[:10]}"
        mg = base.for_tenant(tenant)
        try:
            report = mg.ingest(t["records"], infer_supersession=False)
            supersession.run(mg.store, tenant, report.ids, model=t["model"])
            for q in t["questions"]:
                r = mg.recall(q["q"], k=10, explain=True, at=q["at"], now=q["now"])
                ex = r.explain or {}
                if not ex.get("currency", {}).get("about_the_present"):
                    continue
                fused = [Fused(f["id"], f["score"], f["ranks"]) for f in ex["fused"]]
                where = currency.standing(fused)
                links = []
                text_of = {h.id: h.text or "" for h in r.hits}
                for h in r.hits:
                    for s in h.retired or []:
                        if not s.get("inferred") or currency.keeps_what_is_asked(text_of.get(s["id"], ""), q["q"]):
                            continue  # a link that never counts for this question (recall's link_counts says so)
                        conf = s.get("confidence")
                        x = currency.gate_features(
                            float(conf) if conf is not None else 1.0, h.text or "", s["id"], h.id, where
                        )
                        links.append(
                            {
                                "old": h.id,
                                "new": s["id"],
                                "x": x,
                                "rule": s.get("by") == "rule",
                                "old_text": h.text or "",
                                "new_text": text_of.get(s["id"], ""),
                            }
                        )
                out.append(
                    {
                        "set": name,
                        "tenant": f"{name}/{t['key']}",
                        "question": q["q"],
                        "answer": q["answer"],
                        "fused": [(f.id, f.score) for f in fused[: currency.GATE_WINDOW]],
                        "explicit": {h.id: [s["id"] for s in h.retired or [] if not s.get("inferred")] for h in r.hits},
                        "links": links,
                    }
                )
        finally:
            base.store.auto_commit("admin/delete_tenant", tenant=tenant)
    return out


def rows_of(questions: list[dict]) -> tuple[list[list[float]], list[int], list[str]]:
    from kgmem.query import currency

    x, y, g = [], [], []
    for q in questions:
        answers = set(q["answer"])
        for link in q["links"]:
            x.append([link["x"][f] for f in currency.GATE_FEATURES])
            y.append(int(memory_of(link["new"]) in answers))
            g.append(q["tenant"])
    return x, y, g


def fit(x: list[list[float]], y: list[int]) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=5000, class_weight="balanced")).fit(x, y)


def first_right(q: dict, counts: Any) -> bool:
    """Whether the replayed ranking puts an answer first, ``counts(link)`` deciding each inferred link."""
    from kgmem.query import currency
    from kgmem.query.fusion import Fused

    fused = [Fused(i, s, {}) for i, s in q["fused"]]
    counted: dict[str, list[dict[str, Any]]] = {}
    for old, news in q["explicit"].items():
        counted.setdefault(old, []).extend({"id": n, "inferred": False} for n in news)
    for link in q["links"]:
        if link["rule"] or counts(link):
            counted.setdefault(link["old"], []).append({"id": link["new"], "inferred": True})
    where = currency.standing(fused)  # several retirers: recall's order (the one the question ranks highest)
    retired_by = {old: [str(s["id"]) for s in currency.successor_order(by, where)] for old, by in counted.items()}
    ranked = [f.id for f in currency.retire(fused, retired_by)] if retired_by else [f.id for f in fused]
    return bool(ranked) and memory_of(ranked[0]) in set(q["answer"])


def by_model(model: Any) -> Any:
    from kgmem.query import currency

    return lambda link: model.predict_proba([[link["x"][f] for f in currency.GATE_FEATURES]])[0][1] >= THRESHOLD


def reach_rule(link: dict) -> bool:
    from kgmem.query import currency

    return link["x"]["new_rank"] >= 1.0 / currency.REACH


def held_out(questions: list[dict]) -> dict[str, Any]:
    """First hits per set: the reach rule, and the gate on grouped folds and with each set left out."""
    sets = list(SETS)
    folds: dict[str, int] = dict.fromkeys(sets, 0)
    for _train, test in sf.split({q["tenant"] for q in questions}, FOLDS):  # the supersession fit's folds
        model = fit(*rows_of([q for q in questions if q["tenant"] not in test])[:2])
        for q in questions:
            if q["tenant"] in test:
                folds[q["set"]] += first_right(q, by_model(model))
    left_out: dict[str, int] = {}
    for s in sets:
        model = fit(*rows_of([q for q in questions if q["set"] != s])[:2])
        left_out[s] = sum(first_right(q, by_model(model)) for q in questions if q["set"] == s)
    return {
        "questions": {s: sum(q["set"] == s for q in questions) for s in sets},
        "reach_rule": {s: sum(first_right(q, reach_rule) for q in questions if q["set"] == s) for s in sets},
        "grouped_folds": folds,
        "set_left_out": left_out,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="report the held-out figures, write no model")
    ap.add_argument("--report", type=Path, help="also write the figures and the questions' rows here (JSON)")
    args = ap.parse_args()
    from kgmem.query import currency

    questions = [q for name in SETS for q in collect(name)]
    figures = held_out(questions)
    print(json.dumps(figures, indent=1))
    if args.report:
        args.report.write_text(json.dumps({"figures": figures, "questions": questions}), encoding="utf-8")
    if args.check:
        return
    x, y, _ = rows_of(questions)
    pipe = fit(x, y)
    scaler, lr = pipe[0], pipe[-1]
    digest = hashlib.sha256(json.dumps([x, y]).encode()).hexdigest()[:16]
    model = {
        "features": list(currency.GATE_FEATURES),
        "mean": [float(v) for v in scaler.mean_],
        "scale": [float(v) for v in scaler.scale_],
        "coef": [float(v) for v in lr.coef_[0]],
        "intercept": float(lr.intercept_[0]),
        "threshold": THRESHOLD,
        "data_version": f"sha256:{digest}",
        "trained_on": "updates-dev, updates-dev-2 and notes-dev (CC0, three authors): "
        f"{len(y)} inferred links among present-tense questions' hits, {sum(y)} whose newer memory answers",
        "held_out": figures,
    }
    MODEL_PATH.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print("wrote", MODEL_PATH.relative_to(ROOT))


if __name__ == "__main__":
    main()

"""The confidence model's recipe, one source for the fit script (scripts/fit_confidence.py) and the
conversations bench's held-out refits: a scikit-learn LogisticRegression on standardised features, every
(source, label) group weighing the same, its probability recalibrated (Platt) on out-of-fold scores grouped by
conversation or stream, threshold 0.5; and the measures of a probability (AUC, expected calibration error, a
reliability table)."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

import numpy as np

THRESHOLD = 0.5
REGULARISATION = 0.5  # the inverse regularisation strength C of the logistic regression
FOLDS = 5


def group_weights(rows: list[dict]) -> Any:
    """Every (source, label) group weighs the same; the weights sum to the number of rows."""
    groups = [(r["source"], r["label"]) for r in rows]
    counts = {g: groups.count(g) for g in set(groups)}
    w = np.array([1.0 / counts[g] for g in groups])
    return w * len(w) / w.sum()


def fit(rows: list[dict], features: Sequence[str]) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.array([[r["features"][f] for f in features] for r in rows], dtype=float)
    y = np.array([r["label"] for r in rows])
    w = group_weights(rows)
    groups = np.array([r.get("group") or r["source"] for r in rows])
    scaler = StandardScaler().fit(x)
    z = scaler.transform(x)

    def lr(idx: Any) -> Any:
        return LogisticRegression(C=REGULARISATION, max_iter=2000).fit(z[idx], y[idx], sample_weight=w[idx])

    # out-of-fold scores (5 folds, a conversation or stream never split) for the Platt recalibration
    from sklearn.model_selection import GroupKFold

    oof = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=FOLDS).split(z, y, groups):
        mask = np.zeros(len(y), dtype=bool)
        mask[tr] = True
        oof[te] = lr(mask).decision_function(z[te])
    platt = LogisticRegression(C=1e6, max_iter=1000).fit(oof.reshape(-1, 1), y, sample_weight=w)
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    clf = lr(np.ones(len(y), dtype=bool))
    coef = [float(c) * a for c in clf.coef_[0]]
    intercept = float(clf.intercept_[0]) * a + b
    p = 1 / (1 + np.exp(-(z @ np.array(coef) + intercept)))
    data = json.dumps([[r["source"], r["label"], [round(r["features"][f], 6) for f in features]] for r in rows])
    return {
        "features": list(features),
        "mean": [float(v) for v in scaler.mean_],
        "scale": [float(v) for v in scaler.scale_],
        "coef": coef,
        "intercept": intercept,
        "threshold": THRESHOLD,
        "data_version": "sha256:" + hashlib.sha256(data.encode()).hexdigest()[:16],
        "trained_on": ", ".join(
            f"{s} ({sum(1 for r in rows if r['source'] == s)})" for s in sorted({r["source"] for r in rows})
        ),
        "calibration": {
            "method": "Platt on 5-fold out-of-fold scores (grouped by conversation or stream)",
            "a": a,
            "b": b,
        },
        "training_fit": {
            "positives_answered": round(float((p[y == 1] >= THRESHOLD).mean()), 4),
            "negatives_answered": round(float((p[y == 0] >= THRESHOLD).mean()), 4),
        },
    }


def probability(model: dict, rows: Sequence[dict]) -> Any:
    """The model's probabilities for rows of ``{"features": {...}}`` (the same dot product as kgmem's)."""
    x = np.array([[r["features"].get(f, 0.0) for f in model["features"]] for r in rows], dtype=float)
    z = (x - np.array(model["mean"])) / np.array(model["scale"])
    return 1.0 / (1.0 + np.exp(-np.clip(z @ np.array(model["coef"]) + model["intercept"], -60, 60)))


def reliability(p: Any, y: Any, bins: int = 10) -> list[dict]:
    """Per probability bin: how many, the mean predicted probability, the observed rate."""
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        sel = (p >= lo) & ((p < hi) if b < bins - 1 else (p <= hi))
        out.append(
            {
                "lo": lo,
                "hi": hi,
                "n": int(sel.sum()),
                "predicted": float(p[sel].mean()) if sel.any() else None,
                "observed": float(y[sel].mean()) if sel.any() else None,
            }
        )
    return out


def ece(p: Any, y: Any, bins: int = 10) -> float:
    """Expected calibration error: the bins' |predicted − observed|, weighted by their share of the rows."""
    n = len(p)
    return float(sum(b["n"] / n * abs(b["predicted"] - b["observed"]) for b in reliability(p, y, bins) if b["n"]))

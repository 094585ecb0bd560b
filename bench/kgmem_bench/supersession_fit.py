"""Fitting kgmem's inferred-supersession model (scikit-learn), shared by ``scripts/fit_supersession.py`` (which
ships it) and the ``updates`` suite (which refits it without each held-out fold): grouped folds, the logistic
regression, and the conversion to the :class:`~kgmem.derived.supersession.PairModel` that kgmem scores with, so
what is measured is exactly what runs."""

from __future__ import annotations

import hashlib
from typing import Any, Iterable, Sequence

from kgmem.derived.supersession import FEATURES, PairModel, decide

# the training rows' case names of a set whose keys another set also uses (updates-dev-2 shares one with
# updates-dev): scripts/fit_supersession.py names its cases so, and the updates suite reads them back so
CASE_PREFIX = {"updates-dev-2": "u2-"}


def case_name(dataset: str | None, key: str) -> str:
    """The training rows' name of ``dataset``'s case ``key``."""
    return CASE_PREFIX.get(dataset or "", "") + key


def split(cases: Iterable[str], folds: int) -> list[tuple[set[str], set[str]]]:
    """Deterministic grouped folds: the cases dealt round-robin in the order of their names' hashes."""
    everything = sorted(set(cases))
    order = sorted(everything, key=lambda c: hashlib.sha256(c.encode()).hexdigest())
    parts = [set(order[i::folds]) for i in range(folds)]
    return [(set(everything) - part, part) for part in parts]


def fit(rows: Sequence[dict[str, Any]], c: float, threshold: float, *, chain_weight: float = 1.0) -> PairModel:
    """A logistic regression (balanced classes, standardised features) on ``rows`` ({"x": features, "label"})."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.array([[r["x"][f] for f in FEATURES] for r in rows])
    y = np.array([r["label"] for r in rows])
    scaler = StandardScaler().fit(x)
    lr = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(scaler.transform(x), y)
    return PairModel(
        features=FEATURES,
        mean=tuple(float(v) for v in scaler.mean_),
        scale=tuple(float(v) for v in scaler.scale_),
        coef=tuple(float(v) for v in lr.coef_[0]),
        intercept=float(lr.intercept_[0]),
        threshold=threshold,
        data_version="",
        trained_on="",
        held_out={},
        chain_weight=chain_weight,
    )


def edges(
    model: PairModel, rows: Sequence[dict[str, Any]], threshold: float | None = None
) -> dict[tuple[str, str], float]:
    """{(newer, older): probability} of the rows the model links (at its threshold unless given)."""
    out = {}
    for r in rows:
        linked = decide(model, r["x"], threshold)
        if linked is not None:
            out[(r["newer"], r["older"])] = linked[0]
    return out

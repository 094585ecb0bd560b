"""The shipped models' one formula: a logistic regression over standardised features, with its threshold and
provenance — the confidence (:class:`kgmem.query.confidence.ConfidenceModel`) and the inferred supersession's
pair model (:class:`kgmem.derived.supersession.PairModel`) are both one of these, fitted with scikit-learn by
their scripts and shipped as JSON under ``kgmem/data`` (read by :func:`shipped_json`; no numpy here)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

LOG_ODDS_LIMIT = 60.0  # |log-odds| beyond this is taken as this (exp would overflow; the probability is 0 or 1)


@dataclass(frozen=True)
class Logit:
    """``probability = σ(intercept + Σ coef · (value − mean) / scale)``; a feature the values lack counts as 0,
    a scale of 0 as 1."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    data_version: str
    trained_on: str

    def contributions(self, values: dict[str, float]) -> dict[str, float]:
        """Each feature's share of the log-odds (for ``--explain``)."""
        return {
            name: w * (values.get(name, 0.0) - mu) / (sd or 1.0)
            for name, mu, sd, w in zip(self.features, self.mean, self.scale, self.coef)
        }

    def log_odds(self, values: dict[str, float]) -> float:
        z = self.intercept
        for part in self.contributions(values).values():
            z += part
        return z

    def probability(self, values: dict[str, float]) -> float:
        return sigmoid(self.log_odds(values))

    def fields(self) -> dict[str, Any]:
        """The model as JSON-ready fields (a subclass adds its own)."""
        return {
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "threshold": self.threshold,
            "data_version": self.data_version,
            "trained_on": self.trained_on,
        }

    @staticmethod
    def read_fields(d: dict[str, Any]) -> dict[str, Any]:
        """The constructor's arguments for :meth:`fields` as read back from JSON."""
        return {
            "features": tuple(d["features"]),
            "mean": tuple(float(v) for v in d["mean"]),
            "scale": tuple(float(v) for v in d["scale"]),
            "coef": tuple(float(v) for v in d["coef"]),
            "intercept": float(d["intercept"]),
            "threshold": float(d["threshold"]),
            "data_version": str(d["data_version"]),
            "trained_on": str(d["trained_on"]),
        }


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-LOG_ODDS_LIMIT, min(LOG_ODDS_LIMIT, z))))


def logit(p: float) -> float:
    """The log-odds of ``p`` (kept off 0 and 1)."""
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1.0 - p))


def shipped_json(name: str) -> str | None:
    """The text of the model file ``kgmem/data/<name>`` (None when it is not there)."""
    try:
        return resources.files("kgmem").joinpath("data", name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None

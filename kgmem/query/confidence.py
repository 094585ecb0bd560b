"""Learned abstention: whether recall's best hit deserves a confident answer, from cheap signals of the ranking.

The decision is a logistic regression over :data:`FEATURES`, fitted with scikit-learn by
``scripts/fit_confidence.py`` and shipped as ``kgmem/data/confidence.json`` (coefficients, the standardisation,
the threshold, and the version of the data it was fitted on). At query time it is a dot product: no
scikit-learn import. Licences decide what it may be fitted on: kgmem's own fixtures, WikiWhy (MIT) and data
generated from them; LoCoMo (CC BY-NC) only chooses features and measures the result, it never provides the
shipped coefficients.

The features (all from what recall already holds, no extra query):

* ``cosine`` — the best hit's cosine to the question (alone or read in its stream context, whichever is higher);
* ``gap`` — that cosine minus the second hit's;
* ``agreement`` — how many channels rank the best hit in their top 3 (of those that ran), as a share;
* ``keyword`` — whether the keyword channel ranks the best hit in its top 3;
* ``fused`` — the best hit's fused score (before boosts) relative to the best possible (every channel rank 1);
* ``entity_named`` — whether the question names an entity of the tenant;
* ``entity_margin`` — with a named entity: the best fused score (before boosts) of a hit mentioning it minus
  that of a hit not mentioning it, relative to the best possible; 0 otherwise (a question about someone whose
  best evidence is about someone else is often a false premise);
* ``exact_token`` — whether the best hit shares an identifier-like token (``zx9q``) with the question.

The meaning features are :data:`kgmem.query.meaning.FEATURES`; ``entity_topic`` is ``entity_margin`` times
``topic_any`` (:func:`combined`). Each feature's direction is declared in :data:`DIRECTION`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from ..logit import Logit, shipped_json
from . import meaning

RANK_FEATURES = ("cosine", "gap", "agreement", "keyword", "fused", "entity_named", "entity_margin", "exact_token")
# features made of the two: ``entity_topic``, the entity margin as far as the topic is there (``entity_margin``
# times ``topic_any``): memories about the person the question names leading the ranking say nothing when none
# of the memories read says a word of what it asks ("what is Maya's favourite band?" over Maya's coffee) — a
# linear model cannot make the absent topic veto the margin, this product can
COMBINED_FEATURES = ("entity_topic",)
# every feature recall computes: the ranking's, the meaning's (kgmem.query.meaning) and their products; a model
# uses a subset
FEATURES = RANK_FEATURES + meaning.FEATURES + COMBINED_FEATURES
MODEL_FILE = "confidence.json"
# which way each feature means: +1 more of it says the best hit answers, -1 that it does not, 0 either (a
# retired best hit is stale for a question about now and right for one asked as of a past time). A model whose
# coefficient points the other way has learnt a collinearity, not the meaning, and can make "nothing matches"
# raise the confidence: scripts/fit_confidence.py refuses it (:func:`against_meaning`), a test checks the shipped
# one.
DIRECTION = MappingProxyType(
    {
        "cosine": 1,
        "gap": 1,
        "agreement": 1,
        "keyword": 1,
        "fused": 1,
        "entity_named": 0,
        "entity_margin": 1,
        "exact_token": 1,
        "coverage": 1,
        "coverage_top3": 1,
        "topic_any": 1,
        "topic_seen": 1,
        "topic_similarity": 1,
        "topic_named": 1,
        "topic_other": -1,
        "attribution_margin": 1,
        "pool_margin": 1,
        "pool_behind": -1,
        "best_asks": -1,
        "best_words": 1,
        "retired": 0,
        "entity_topic": 1,
    }
)


def against_meaning(features: Any, coef: Any) -> list[str]:
    """The features whose coefficient points against :data:`DIRECTION`."""
    return [f for f, c in zip(features, coef) if DIRECTION[f] * c < 0]


def best_cosine(hit: Any) -> float | None:
    """The question's cosine to the hit alone or to the hit read in its stream context, whichever is higher."""
    own: float | None = hit.similarity
    ctx: float | None = getattr(hit, "context_similarity", None)
    return own if ctx is None else ctx if own is None else max(own, ctx)


def features(
    hits: list[Any],
    ranks: dict[str, dict[str, int | None]],
    fused: dict[str, float],
    rrf_k: int,
    channels: tuple[str, ...],
    entity_keys: list[str],
    mentions: dict[str, list[str]],
    shared_token: bool,
) -> dict[str, float]:
    """The feature values for a ranked answer.

    ``ranks``: per hit id, its rank in each channel; ``fused``: unboosted fused scores of every candidate;
    ``mentions``: per candidate id, which of ``entity_keys`` it mentions."""
    if not hits:
        return dict.fromkeys(RANK_FEATURES, 0.0)
    top = hits[0]
    c1 = best_cosine(top)
    c2 = best_cosine(hits[1]) if len(hits) > 1 else None
    cos1 = -1.0 if c1 is None else c1
    top_ranks = ranks.get(top.id, {})
    ran = max(1, len(channels))
    best_possible = ran / (rrf_k + 1)
    with_e = [s for i, s in fused.items() if set(mentions.get(i, ())) & set(entity_keys)]
    without = [s for i, s in fused.items() if not set(mentions.get(i, ())) & set(entity_keys)]
    margin = 0.0
    if entity_keys:
        margin = ((max(with_e) if with_e else 0.0) - (max(without) if without else 0.0)) / best_possible
    return {
        "cosine": cos1,
        "gap": cos1 - (-1.0 if c2 is None else c2) if len(hits) > 1 else 1.0,
        "agreement": sum(1 for c in channels if (top_ranks.get(c) or 99) <= 3) / ran,
        "keyword": 1.0 if (top_ranks.get("keyword") or 99) <= 3 else 0.0,
        "fused": fused.get(top.id, 0.0) / best_possible,
        "entity_named": 1.0 if entity_keys else 0.0,
        "entity_margin": margin,
        "exact_token": 1.0 if shared_token else 0.0,
    }


def combined(values: dict[str, float]) -> dict[str, float]:
    """:data:`COMBINED_FEATURES` from the ranking's and the meaning's features."""
    return {"entity_topic": values.get("entity_margin", 0.0) * values.get("topic_any", 0.0)}


@dataclass(frozen=True)
class ConfidenceModel(Logit):
    """The probability that the best hit answers the question (:class:`kgmem.logit.Logit` over :data:`FEATURES`)."""

    def to_dict(self) -> dict[str, Any]:
        return self.fields()

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConfidenceModel:
        unknown = [f for f in d["features"] if f not in FEATURES]
        if unknown:
            raise ValueError(f"confidence model features {unknown} are not among kgmem's {list(FEATURES)}")
        return cls(**Logit.read_fields(d))


@lru_cache(maxsize=1)
def shipped() -> ConfidenceModel | None:
    """The model shipped in ``kgmem/data/confidence.json`` (None when absent: recall uses the hand policy)."""
    text = shipped_json(MODEL_FILE)
    return None if text is None else ConfidenceModel.from_dict(json.loads(text))

"""The learned ``ask`` router: which memory operation (if any) answers a question.

    >>> from kgmem.router import Router
    >>> Router.default().predict("where did I live in 2023?").intent
    'history'

``python -m kgmem.router`` prints the evaluation table (10-fold CV and adversarial accuracy).
"""

from .features import FEATURE_NAMES, SurfaceFeatures, build_features, surface_features
from .model import (
    DEFAULT_KIND,
    DEFAULT_USE_EMBEDDING,
    INTENTS,
    KINDS,
    RouteDecision,
    Router,
    cross_validate,
    evaluate,
    fixtures_dir,
    load_examples,
)

__all__ = [
    "DEFAULT_KIND",
    "DEFAULT_USE_EMBEDDING",
    "FEATURE_NAMES",
    "INTENTS",
    "KINDS",
    "RouteDecision",
    "Router",
    "SurfaceFeatures",
    "build_features",
    "cross_validate",
    "evaluate",
    "fixtures_dir",
    "load_examples",
    "surface_features",
]

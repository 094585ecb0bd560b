"""The learned ``ask`` router: a scikit-learn classifier of a question into one of five intents.

Intents (see ``fixtures/router/README.md`` for the labelling rule):

- ``slot``    one current fact about a subject ("what is my phone number?")
- ``recall``  memories about something ("what did we decide about pricing?")
- ``why``     the causes of something remembered ("why did the deploy fail?")
- ``history`` a fact's past values, as-of values or changes ("where did I live in 2023?")
- ``none``    not a question for the memory (creative, explanatory, world knowledge, chit-chat)

:meth:`Router.default` is the shipped router: the default configuration fitted on
``fixtures/router/train.jsonl`` by ``scripts/build_router.py`` and stored in the package as
``kgmem/data/router.joblib`` with the training file's sha256 (its data version); ``ask`` only loads it and
never trains. A router on another training file or configuration (``Router.default(train_path=...)``) is
trained once and cached in the kgmem cache directory, keyed by the training file's content, the
scikit-learn version and the router configuration. :func:`evaluate` reproduces the paper's Table 6 for
this task: 10-fold stratified CV per classifier, plus accuracy on the adversarial set.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Sequence

import joblib
import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, confusion_matrix
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

from kgmem.config import cache_dir
from kgmem.errors import InputError

from .features import FEATURE_VERSION, build_features

Intent = Literal["slot", "recall", "why", "history", "none"]
INTENTS: tuple[str, ...] = ("slot", "recall", "why", "history", "none")
Kind = Literal["logreg", "forest", "svm"]
KINDS: tuple[str, ...] = ("logreg", "forest", "svm")

# The shipped configuration, chosen by `python -m kgmem.router` (best CV with adversarial >= 85 %).
DEFAULT_KIND: Kind = "logreg"
DEFAULT_USE_EMBEDDING = True

_SAVE_FORMAT = 1
_REPO_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "router"
_PACKAGE_FIXTURES = Path(__file__).resolve().parents[1] / "data" / "router"
# The fitted default router, built by scripts/build_router.py from fixtures/router/train.jsonl.
SHIPPED_PATH = Path(__file__).resolve().parents[1] / "data" / "router.joblib"


def data_version(train_path: str | os.PathLike[str]) -> str:
    """The data version of a training file: the sha256 of its bytes."""
    return hashlib.sha256(Path(train_path).read_bytes()).hexdigest()


@dataclass(frozen=True)
class RouteDecision:
    """The router's answer: the intent, its probability, and every intent's probability."""

    intent: str
    confidence: float
    probabilities: dict[str, float] = field(default_factory=dict)


def make_classifier(kind: str, seed: int = 0) -> Any:
    """An unfitted classifier of the given kind (every kind predicts probabilities)."""
    if kind == "logreg":
        return LogisticRegression(C=10.0, solver="newton-cg", max_iter=1000)
    if kind == "forest":
        return RandomForestClassifier(n_estimators=300, random_state=seed, n_jobs=-1)
    if kind == "svm":
        return CalibratedClassifierCV(LinearSVC(C=1.0), cv=5, method="sigmoid")
    raise InputError(f"unknown router kind {kind!r}", fix=f"use one of {', '.join(KINDS)}")


def make_pipeline(kind: str = DEFAULT_KIND, use_embedding: bool = False, seed: int = 0) -> Pipeline:
    """Features and classifier as one unfitted scikit-learn pipeline (input: a list of questions).

    The linear kinds get every feature block; the forest gets only the surface features and the plain
    embedding: on ~1,300 sparse n-gram columns (or 768 anchor-split ones) its random feature subsets
    are mostly uninformative, and 10-fold CV drops by 4-6 points.
    """
    linear = kind != "forest"
    features = build_features(use_embedding=use_embedding, ngrams=linear, by_anchor=linear)
    return Pipeline([("features", features), ("classify", make_classifier(kind, seed))])


def load_examples(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Questions and intents from a JSONL file of ``{"question": ..., "intent": ...}`` lines."""
    questions: list[str] = []
    intents: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"not JSON: {exc.msg}", line=number, fix='write {"question": ..., "intent": ...} per line'
                ) from exc
            question, intent = row.get("question"), row.get("intent")
            if not isinstance(question, str) or not question.strip():
                raise InputError("missing question", field="question", line=number, fix='write "question": "..."')
            if intent not in INTENTS:
                raise InputError(
                    f"unknown intent {intent!r}", field="intent", line=number, fix=f"use one of {', '.join(INTENTS)}"
                )
            questions.append(question)
            intents.append(intent)
    return questions, intents


def fixtures_dir() -> Path:
    """Where train.jsonl and adversarial.jsonl live: the repository's fixtures, else a packaged copy."""
    for candidate in (_REPO_FIXTURES, _PACKAGE_FIXTURES):
        if (candidate / "train.jsonl").is_file():
            return candidate
    raise InputError(
        f"router training data not found in {_REPO_FIXTURES} or {_PACKAGE_FIXTURES}",
        fix="pass the path of a train.jsonl to Router.default(train_path=...)",
    )


class Router:
    """A fitted intent classifier. Build with :meth:`train`, :meth:`load` or :meth:`default`."""

    def __init__(self, kind: str = DEFAULT_KIND, use_embedding: bool = False):
        if kind not in KINDS:
            raise InputError(f"unknown router kind {kind!r}", fix=f"use one of {', '.join(KINDS)}")
        self.kind = kind
        self.use_embedding = use_embedding
        self.pipeline: Pipeline | None = None
        self.metadata: dict[str, Any] = {}

    def __repr__(self) -> str:
        state = "fitted" if self.pipeline is not None else "unfitted"
        return f"Router(kind={self.kind!r}, use_embedding={self.use_embedding}, {state})"

    # -- training and prediction -------------------------------------------------------------------

    def train(
        self,
        questions: Sequence[str],
        intents: Sequence[str],
        kind: str | None = None,
        use_embedding: bool | None = None,
        seed: int = 0,
    ) -> Router:
        """Fit on labelled questions (``kind``/``use_embedding`` override the constructor's). Returns self."""
        if len(questions) != len(intents):
            raise InputError(
                f"{len(questions)} questions but {len(intents)} intents", fix="give one intent per question"
            )
        unknown = sorted(set(intents) - set(INTENTS))
        if unknown:
            raise InputError(f"unknown intents {unknown}", fix=f"use {', '.join(INTENTS)}")
        if kind is not None:
            if kind not in KINDS:
                raise InputError(f"unknown router kind {kind!r}", fix=f"use one of {', '.join(KINDS)}")
            self.kind = kind
        if use_embedding is not None:
            self.use_embedding = use_embedding
        pipeline = make_pipeline(self.kind, self.use_embedding, seed)
        pipeline.fit(list(questions), list(intents))
        self.pipeline = pipeline
        return self

    def _fitted(self) -> Pipeline:
        if self.pipeline is None:
            raise InputError("the router is not trained", fix="call Router.train, Router.load or Router.default")
        return self.pipeline

    def predict_many(self, questions: Sequence[str]) -> list[RouteDecision]:
        """Route many questions at once (one embedding batch)."""
        if len(questions) == 0:
            return []
        pipeline = self._fitted()
        probabilities = pipeline.predict_proba(list(questions))
        classes = [str(c) for c in pipeline.classes_]
        decisions = []
        for row in probabilities:
            best = int(np.argmax(row))
            decisions.append(
                RouteDecision(
                    intent=classes[best],
                    confidence=float(row[best]),
                    probabilities={c: float(p) for c, p in zip(classes, row)},
                )
            )
        return decisions

    def predict(self, question: str) -> RouteDecision:
        """Route one question."""
        return self.predict_many([question])[0]

    # -- persistence ------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], *, compress: int = 0, **metadata: Any) -> Path:
        """Write the fitted router to ``path`` (joblib), atomically, with ``metadata`` (e.g. the training
        data's version) beside it. Returns the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "format": _SAVE_FORMAT,
            "feature_version": FEATURE_VERSION,
            "sklearn": sklearn.__version__,
            "kind": self.kind,
            "use_embedding": self.use_embedding,
            "pipeline": self._fitted(),
            **metadata,
        }
        fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
        os.close(fd)
        try:
            joblib.dump(payload, tmp, compress=compress)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Router:
        """Read a router written by :meth:`save`. Only load files you wrote: joblib runs pickles."""
        payload = cls.load_payload(path)
        router = cls(kind=payload["kind"], use_embedding=payload["use_embedding"])
        router.pipeline = payload["pipeline"]
        router.metadata = {k: v for k, v in payload.items() if k != "pipeline"}
        return router

    @staticmethod
    def load_payload(path: str | os.PathLike[str]) -> dict[str, Any]:
        """The saved dict (format, feature_version, sklearn, kind, use_embedding, pipeline, metadata)."""
        import warnings

        with warnings.catch_warnings():
            # A model pickled by another scikit-learn patch release still loads; the version is recorded.
            warnings.filterwarnings("ignore", message=".*Trying to unpickle estimator.*")
            payload = joblib.load(path)
        if not isinstance(payload, dict) or payload.get("format") != _SAVE_FORMAT:
            raise InputError(f"{path} is not a saved kgmem router", fix="retrain and save it again")
        if payload.get("feature_version") != FEATURE_VERSION:
            raise InputError(
                f"{path} was saved with router features v{payload.get('feature_version')}, "
                f"this kgmem has v{FEATURE_VERSION}",
                fix="retrain and save it again",
            )
        return payload

    # -- the shipped router -----------------------------------------------------------------------

    @staticmethod
    def cache_path(
        train_path: str | os.PathLike[str], kind: str = DEFAULT_KIND, use_embedding: bool = DEFAULT_USE_EMBEDDING
    ) -> Path:
        """Where :meth:`default` caches the router fitted on ``train_path`` with this configuration."""
        digest = hashlib.sha256()
        digest.update(Path(train_path).read_bytes())
        digest.update(
            f"\0sklearn={sklearn.__version__}\0kind={kind}\0embedding={use_embedding}"
            f"\0features={FEATURE_VERSION}\0format={_SAVE_FORMAT}".encode()
        )
        return cache_dir() / f"router-{digest.hexdigest()}.joblib"

    @classmethod
    def shipped(cls, path: str | os.PathLike[str] | None = None) -> Router:
        """The fitted router shipped in the package (``kgmem/data/router.joblib``), memoised per process.

        It is never retrained here: a missing or unreadable file is an error naming the fix."""
        target = Path(path) if path is not None else SHIPPED_PATH
        with _default_lock:
            hit = _default_routers.get(target)
            if hit is not None:
                return hit
            if not target.is_file():
                raise InputError(
                    f"the fitted ask router is missing ({target})",
                    fix="reinstall kgmem, or in a checkout run `python scripts/build_router.py`",
                )
            try:
                router = cls.load(target)
            except InputError:
                raise
            except Exception as exc:  # e.g. a scikit-learn too different from the one that fitted it
                raise InputError(
                    f"cannot load the fitted ask router {target}: {type(exc).__name__}: {exc}",
                    fix=f"install scikit-learn=={_peek_sklearn(target)} (it was fitted with it), or in a checkout "
                    "run `python scripts/build_router.py`",
                ) from exc
            _default_routers[target] = router
            return router

    @classmethod
    def default(
        cls,
        train_path: str | os.PathLike[str] | None = None,
        *,
        kind: str = DEFAULT_KIND,
        use_embedding: bool = DEFAULT_USE_EMBEDDING,
        use_cache: bool = True,
    ) -> Router:
        """The router ``ask`` uses.

        Without arguments: the shipped, already fitted router (:meth:`shipped`; nothing is trained). With a
        ``train_path`` or another configuration: trained on it once, then loaded from the cache
        (``$KGMEM_CACHE``, else ``~/.cache/kgmem``) and memoised per process."""
        if train_path is None and kind == DEFAULT_KIND and use_embedding == DEFAULT_USE_EMBEDDING:
            return cls.shipped()
        path = Path(train_path) if train_path is not None else fixtures_dir() / "train.jsonl"
        cached = cls.cache_path(path, kind, use_embedding)
        with _default_lock:
            hit = _default_routers.get(cached)
            if hit is not None:
                return hit
            router: Router | None = None
            if use_cache and cached.is_file():
                try:
                    router = cls.load(cached)
                except Exception:  # a corrupt or stale cache entry is rebuilt, never fatal
                    router = None
            if router is None:
                questions, intents = load_examples(path)
                router = cls(kind=kind, use_embedding=use_embedding).train(questions, intents)
                if use_cache:
                    try:
                        router.save(cached)
                    except OSError:  # a read-only cache only costs retraining next time
                        pass
            _default_routers[cached] = router
            return router


def _peek_sklearn(path: Path) -> str:
    """The scikit-learn version a saved router was fitted with (read without unpickling the estimator)."""
    meta = path.with_suffix(".json")
    try:
        return str(json.loads(meta.read_text(encoding="utf-8"))["sklearn"])
    except Exception:
        return "<the version in " + str(meta) + ">"


_default_routers: dict[Path, Router] = {}
_default_lock = threading.Lock()


# -- evaluation ----------------------------------------------------------------------------------


def _t_quantile_975(dof: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def cross_validate(
    questions: Sequence[str],
    intents: Sequence[str],
    kind: str,
    use_embedding: bool = False,
    folds: int = 10,
    seed: int = 0,
) -> dict[str, Any]:
    """Stratified k-fold CV accuracy: per-fold scores, mean, sd, a t-based 95 % CI, pooled confusion."""
    X = np.asarray(list(questions), dtype=object)
    y = np.asarray(list(intents), dtype=object)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    template = make_pipeline(kind, use_embedding, seed)
    scores: list[float] = []
    predicted = np.empty_like(y)
    for train_idx, test_idx in splitter.split(X, y):
        model = clone(template)
        model.fit(list(X[train_idx]), list(y[train_idx]))
        fold_pred = model.predict(list(X[test_idx]))
        predicted[test_idx] = fold_pred
        scores.append(float(accuracy_score(y[test_idx], fold_pred)))
    mean = float(np.mean(scores))
    sd = float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0
    half = _t_quantile_975(len(scores) - 1) * sd / math.sqrt(len(scores)) if len(scores) > 1 else 0.0
    return {
        "folds": scores,
        "mean": mean,
        "sd": sd,
        "ci95": (max(0.0, mean - half), min(1.0, mean + half)),
        "confusion": confusion_matrix(y, predicted, labels=list(INTENTS)).tolist(),
        "errors": [(str(q), str(t), str(p)) for q, t, p in zip(X, y, predicted) if t != p],
    }


def evaluate(
    kinds: Sequence[str] = KINDS,
    embeddings: Sequence[bool] = (False, True),
    train_path: str | os.PathLike[str] | None = None,
    adversarial_path: str | os.PathLike[str] | None = None,
    folds: int = 10,
    seed: int = 0,
) -> dict[str, Any]:
    """Evaluate every (classifier, embedding) configuration.

    For each: 10-fold stratified CV on the training set (mean, sd, 95 % CI, confusion matrix) and the
    accuracy on the adversarial set of a router trained on the whole training set (with its confusion
    matrix and misroutes). ``chosen`` is the configuration with the best CV mean among those whose
    adversarial accuracy is at least 85 % (the best CV mean overall if none is).
    """
    train_file = Path(train_path) if train_path is not None else fixtures_dir() / "train.jsonl"
    adv_file = Path(adversarial_path) if adversarial_path is not None else train_file.parent / "adversarial.jsonl"
    questions, intents = load_examples(train_file)
    adv_questions, adv_intents = load_examples(adv_file)
    results: list[dict[str, Any]] = []
    for use_embedding in embeddings:
        for kind in kinds:
            cv = cross_validate(questions, intents, kind, use_embedding, folds, seed)
            router = Router(kind, use_embedding).train(questions, intents, seed=seed)
            adv_pred = [d.intent for d in router.predict_many(adv_questions)]
            results.append(
                {
                    "kind": kind,
                    "use_embedding": use_embedding,
                    "cv": cv,
                    "adversarial": {
                        "accuracy": float(accuracy_score(adv_intents, adv_pred)),
                        "n": len(adv_questions),
                        "confusion": confusion_matrix(adv_intents, adv_pred, labels=list(INTENTS)).tolist(),
                        "errors": [(q, t, p) for q, t, p in zip(adv_questions, adv_intents, adv_pred) if t != p],
                    },
                }
            )
    passing = [r for r in results if r["adversarial"]["accuracy"] >= 0.85]
    best = max(passing or results, key=lambda r: (r["cv"]["mean"], r["adversarial"]["accuracy"]))
    counts = {i: intents.count(i) for i in INTENTS}
    adv_counts = {i: adv_intents.count(i) for i in INTENTS}
    return {
        "train": {"path": str(train_file), "n": len(questions), "per_intent": counts},
        "adversarial": {"path": str(adv_file), "n": len(adv_questions), "per_intent": adv_counts},
        "labels": list(INTENTS),
        "folds": folds,
        "seed": seed,
        "sklearn": sklearn.__version__,
        "results": results,
        "chosen": {"kind": best["kind"], "use_embedding": best["use_embedding"], "adversarial_gate_met": bool(passing)},
        "default": {"kind": DEFAULT_KIND, "use_embedding": DEFAULT_USE_EMBEDDING},
    }

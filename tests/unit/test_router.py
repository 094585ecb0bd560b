"""The ask router: shipped data, features, quality gates, persistence and the cached default."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from kgmem.errors import InputError
from kgmem.router import (
    DEFAULT_KIND,
    DEFAULT_USE_EMBEDDING,
    FEATURE_NAMES,
    INTENTS,
    Router,
    cross_validate,
    fixtures_dir,
    load_examples,
    surface_features,
)
from kgmem.router import model as router_model

# Quality gates on the shipped data (10-fold stratified CV of the default configuration, and the
# default router trained on all of train.jsonl scored on adversarial.jsonl). The goal for CV was 95 %;
# the shipped, deliberately hard five-way set measures 93.5 % (95 % CI 91.4-95.6 %), so the gate sits
# just below the measured mean to catch regressions without pretending the goal is met.
CV_GATE = 0.92
ADVERSARIAL_GATE = 0.85


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


@pytest.fixture(scope="module")
def train() -> tuple[list[str], list[str]]:
    return load_examples(fixtures_dir() / "train.jsonl")


@pytest.fixture(scope="module")
def adversarial() -> tuple[list[str], list[str]]:
    return load_examples(fixtures_dir() / "adversarial.jsonl")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private KGMEM_CACHE so tests never read or write the user's cache."""
    path = tmp_path_factory.mktemp("kgmem-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGMEM_CACHE", str(path))
        mp.setattr(router_model, "_default_routers", {})
        yield path


@pytest.fixture(scope="module")
def default_router(cache: Path) -> Router:
    return Router.default()


@pytest.fixture(scope="module")
def shipped_meta() -> dict:
    return json.loads(router_model.SHIPPED_PATH.with_suffix(".json").read_text(encoding="utf-8"))


# -- shipped data ----------------------------------------------------------------------------------


def test_training_set_is_large_and_balanced(train: tuple[list[str], list[str]]) -> None:
    questions, intents = train
    counts = Counter(intents)
    assert len(questions) >= 360
    assert set(counts) == set(INTENTS)
    assert min(counts.values()) >= 60, counts
    assert len({_norm(q) for q in questions}) == len(questions), "duplicate training questions"


def test_adversarial_set_covers_every_intent(adversarial: tuple[list[str], list[str]]) -> None:
    questions, intents = adversarial
    assert len(questions) >= 60
    assert set(intents) == set(INTENTS)


def test_train_and_adversarial_do_not_overlap(
    train: tuple[list[str], list[str]], adversarial: tuple[list[str], list[str]]
) -> None:
    overlap = {_norm(q) for q in train[0]} & {_norm(q) for q in adversarial[0]}
    assert not overlap


def test_load_examples_rejects_bad_rows(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "what is my phone number?", "intent": "lookup"}) + "\n")
    with pytest.raises(InputError, match="line 1"):
        load_examples(bad)
    bad.write_text("{not json\n")
    with pytest.raises(InputError):
        load_examples(bad)


# -- features --------------------------------------------------------------------------------------


def _features(question: str) -> dict[str, float]:
    vector = surface_features(question)
    assert vector.shape == (len(FEATURE_NAMES),)
    assert vector.dtype == np.float64
    return dict(zip(FEATURE_NAMES, vector.tolist()))


def test_feature_names_are_unique() -> None:
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)


def test_slot_question_features() -> None:
    f = _features("What is my phone number?")
    assert f["wh_what"] == 1 and f["wh_why"] == 0
    assert f["question_mark"] == 1 and f["starts_interrogative"] == 1
    assert f["possessive_my"] == 1 and f["first_person"] >= 1
    assert f["attribute_nouns"] >= 1 and f["causal"] == 0 and f["creative"] == 0
    assert f["word_count"] == 5


def test_history_question_features() -> None:
    f = _features("What was M.R.'s tumor size in January 2023?")
    assert f["possessive_s"] == 1 and f["past_aux"] >= 1
    assert f["month_or_weekday"] == 1 and f["year"] == 1 and f["digits"] == 1
    assert f["proper_nouns"] >= 1
    g = _features("what did my dosage used to be before the change")
    assert g["temporal_past"] >= 2 and g["temporal_change"] >= 1


def test_causal_creative_and_recall_features() -> None:
    assert _features("how come the deploy failed")["causal"] >= 1
    assert _features("what was the root cause of INC-4410")["causal"] >= 1
    assert _features("what was the root cause of INC-4410")["id_like"] == 1
    assert _features("write a poem about Paris")["creative"] >= 1
    assert _features("write a poem about Paris")["starts_imperative"] == 1
    assert _features("write a poem about Paris")["question_mark"] == 0
    recall = _features("anything about the zx9q error?")
    assert recall["recall_verbs"] >= 1 and recall["id_like"] == 1
    assert _features("what changed since Monday")["temporal_change"] >= 1


def test_cue_phrases_match_whole_words_only() -> None:
    # "misled today" must not count as "led to"; "Causeway" is not "cause".
    f = _features("Was the Causeway misled today")
    assert f["causal"] == 0


# -- persistence -----------------------------------------------------------------------------------


def test_save_load_round_trip_gives_identical_predictions(
    tmp_path: Path, train: tuple[list[str], list[str]], adversarial: tuple[list[str], list[str]]
) -> None:
    router = Router("logreg", use_embedding=False).train(*train)
    path = router.save(tmp_path / "router.joblib")
    loaded = Router.load(path)
    assert (loaded.kind, loaded.use_embedding) == ("logreg", False)
    before = router.predict_many(adversarial[0])
    after = loaded.predict_many(adversarial[0])
    assert [d.intent for d in before] == [d.intent for d in after]
    assert np.allclose([d.confidence for d in before], [d.confidence for d in after])


def test_load_rejects_foreign_files(tmp_path: Path) -> None:
    import joblib

    path = tmp_path / "other.joblib"
    joblib.dump({"something": "else"}, path)
    with pytest.raises(InputError):
        Router.load(path)


def test_untrained_router_and_unknown_kind_raise() -> None:
    with pytest.raises(InputError):
        Router().predict("what is my phone number?")
    with pytest.raises(InputError):
        Router(kind="naive-bayes")


# -- the default router ----------------------------------------------------------------------------


def test_default_router_is_the_shipped_model_and_never_trains(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(router_model, "_default_routers", {})

    def no_training(*args: object, **kwargs: object) -> Router:
        raise AssertionError("Router.default trained at run time instead of loading the shipped model")

    monkeypatch.setattr(Router, "train", no_training)
    router = Router.default()
    assert (router.kind, router.use_embedding) == (DEFAULT_KIND, DEFAULT_USE_EMBEDDING)
    assert router.metadata["data_version"] == router_model.data_version(fixtures_dir() / "train.jsonl")
    assert Router.default() is router  # memoised in-process
    assert not list(cache.glob("router-*.joblib"))  # nothing trained, nothing cached


def test_shipped_router_matches_training_on_the_fixtures(
    shipped_meta: dict, train: tuple[list[str], list[str]], adversarial: tuple[list[str], list[str]]
) -> None:
    """The shipped model is what scripts/build_router.py gives on today's fixtures: same data version, and
    a router trained here on train.jsonl predicts exactly what the shipped one does (on both sets)."""
    path = fixtures_dir() / "train.jsonl"
    assert shipped_meta["data_version"] == router_model.data_version(path), (
        "fixtures/router/train.jsonl changed: run python scripts/build_router.py"
    )
    shipped = Router.load(router_model.SHIPPED_PATH)
    assert shipped.metadata["data_version"] == shipped_meta["data_version"]
    assert (shipped.kind, shipped.use_embedding) == (DEFAULT_KIND, DEFAULT_USE_EMBEDDING)
    fresh = Router(DEFAULT_KIND, DEFAULT_USE_EMBEDDING).train(*train, seed=0)
    questions = train[0] + adversarial[0]
    assert [d.intent for d in shipped.predict_many(questions)] == [d.intent for d in fresh.predict_many(questions)]
    adv_pred = [d.intent for d in shipped.predict_many(adversarial[0])]
    adv_acc = float(np.mean([p == t for p, t in zip(adv_pred, adversarial[1])]))
    assert adv_acc == pytest.approx(shipped_meta["adversarial_accuracy"])


def test_explicit_training_file_is_cached_on_disk(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = fixtures_dir() / "train.jsonl"
    trained = Router.default(train_path=path)
    assert Router.cache_path(path).is_file()
    assert Router.cache_path(path).parent == cache
    assert Router.default(train_path=path) is trained  # memoised in-process
    # A fresh process (simulated by clearing the memo) loads the cached file instead of retraining.
    monkeypatch.setattr(router_model, "_default_routers", {})

    def no_training(*args: object, **kwargs: object) -> Router:
        raise AssertionError("Router.default retrained despite a cached model")

    monkeypatch.setattr(Router, "train", no_training)
    reloaded = Router.default(train_path=path)
    assert reloaded is not trained
    assert reloaded.predict("who is my manager?").intent == trained.predict("who is my manager?").intent


def test_default_accepts_an_explicit_training_file(
    cache: Path, tmp_path: Path, train: tuple[list[str], list[str]]
) -> None:
    copy = tmp_path / "train.jsonl"
    copy.write_bytes((fixtures_dir() / "train.jsonl").read_bytes())
    router = Router.default(train_path=copy, use_embedding=False)
    assert router.predict("write a poem about Paris").intent == "none"


UNAMBIGUOUS = {
    "slot": [
        "what is my phone number?",
        "where does Alice live?",
        "who is my manager?",
        "how much does the widget cost?",
    ],
    "recall": ["what did we decide about pricing?", "anything about the zx9q error?", "show me notes mentioning Bob"],
    "why": [
        "why did the checkout service go down on Friday?",
        "what caused the outage?",
        "how come the deploy failed?",
    ],
    "history": ["where did I live in 2023?", "what was my phone number before?", "how has my diet changed?"],
    "none": [
        "write a poem about Paris",
        "explain quantum computing",
        "help me draft an email",
        "what is the capital of France?",
    ],
}


@pytest.mark.parametrize("intent,question", [(i, q) for i, qs in UNAMBIGUOUS.items() for q in qs])
def test_default_router_routes_unambiguous_questions(default_router: Router, intent: str, question: str) -> None:
    decision = default_router.predict(question)
    assert decision.intent == intent, decision
    assert set(decision.probabilities) == set(INTENTS)
    assert abs(sum(decision.probabilities.values()) - 1.0) < 1e-6
    assert decision.confidence == max(decision.probabilities.values())


def test_default_router_adversarial_accuracy_gate(
    default_router: Router, adversarial: tuple[list[str], list[str]]
) -> None:
    questions, intents = adversarial
    predicted = [d.intent for d in default_router.predict_many(questions)]
    accuracy = float(np.mean([p == t for p, t in zip(predicted, intents)]))
    assert accuracy >= ADVERSARIAL_GATE, accuracy


@pytest.mark.slow
def test_default_configuration_cv_accuracy_gate(train: tuple[list[str], list[str]]) -> None:
    result = cross_validate(*train, kind=DEFAULT_KIND, use_embedding=DEFAULT_USE_EMBEDDING, folds=10, seed=0)
    assert len(result["folds"]) == 10
    assert result["ci95"][0] <= result["mean"] <= result["ci95"][1]
    assert result["mean"] >= CV_GATE, result["mean"]

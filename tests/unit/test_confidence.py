"""The shipped confidence model (learned abstention): it loads, matches kgmem's features, knows what it was
fitted on, and decides."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from kgmem.query import confidence, meaning
from kgmem.query.confidence import FEATURES, ConfidenceModel

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_model_loads_with_its_data_version_and_no_locomo():
    model = confidence.shipped()
    assert model is not None, "kgmem/data/confidence.json is missing: run scripts/fit_confidence.py"
    assert set(model.features) <= set(FEATURES)
    assert set(model.features) & set(meaning.FEATURES), "the model reads what the hits say, not only the ranking"
    assert model.data_version.startswith("sha256:")
    assert "locomo" not in model.trained_on.lower()  # CC BY-NC data never provides shipped coefficients
    assert model.threshold == 0.5  # calibrated: answer when the best hit more likely answers than not


def test_every_feature_has_a_direction_and_the_shipped_model_keeps_to_it():
    assert set(confidence.DIRECTION) == set(FEATURES)
    model = confidence.shipped()
    assert confidence.against_meaning(model.features, model.coef) == []
    assert confidence.against_meaning(("cosine", "best_asks"), (-0.2, 0.1)) == ["cosine", "best_asks"]


def test_the_data_version_is_the_hash_of_the_training_rows():
    rows = json.loads((ROOT / "bench" / "confidence_training.json").read_text())
    data = json.dumps([[r["source"], r["label"], r["x"]] for r in rows["rows"]])
    assert "sha256:" + hashlib.sha256(data.encode()).hexdigest()[:16] == confidence.shipped().data_version
    assert rows["features"] == list(confidence.shipped().features)


def _hit(hid, sim, ctx=None):
    return SimpleNamespace(id=hid, similarity=sim, context_similarity=ctx, text="")


def test_features_of_a_clear_answer_and_of_a_false_premise():
    strong = confidence.features(
        [_hit("a", 0.82), _hit("b", 0.40)],
        {"a": {"vector": 1, "keyword": 1, "entity": 2}},
        {"a": 0.25, "b": 0.1},
        10,
        ("vector", "keyword", "entity"),
        ["caroline"],
        {"a": ["caroline"]},
        False,
    )
    assert strong["cosine"] == pytest.approx(0.82) and strong["gap"] == pytest.approx(0.42)
    assert strong["agreement"] == 1.0 and strong["keyword"] == 1.0 and strong["entity_margin"] > 0
    swapped = confidence.features(
        [_hit("b", 0.55), _hit("a", 0.54)],
        {"b": {"vector": 1}},
        {"a": 0.1, "b": 0.2},
        10,
        ("vector", "keyword", "entity"),
        ["melanie"],
        {"a": ["melanie"]},
        False,
    )
    assert swapped["entity_margin"] < 0  # the best evidence is about someone else
    model = confidence.shipped()
    strong.update(
        meaning.features(
            "What did Caroline paint?",
            ["Caroline: I painted a sunrise over the lake."],
            [["caroline"]],
            ["Caroline: I painted a sunrise over the lake."],
            False,
        )
    )
    swapped.update(
        meaning.features(
            "What did Melanie paint?",
            ["Melanie: Wow, that's lovely!", "Caroline: I painted a sunrise over the lake."],
            [["melanie"], []],
            ["Melanie: Wow, that's lovely!", "Caroline: I painted a sunrise over the lake."],
            False,
        )
    )
    assert model.probability(strong) > model.threshold > model.probability(swapped)


def test_a_model_for_other_features_is_refused():
    d = confidence.shipped().to_dict()
    d["features"] = list(d["features"][:-1]) + ["something_else"]
    with pytest.raises(ValueError):
        ConfidenceModel.from_dict(d)


def test_no_hits_gives_zero_features():
    assert confidence.features([], {}, {}, 10, (), [], {}, False) == dict.fromkeys(confidence.RANK_FEATURES, 0.0)
    assert meaning.features("what?", [], [], [], False) == dict.fromkeys(meaning.FEATURES, 0.0)

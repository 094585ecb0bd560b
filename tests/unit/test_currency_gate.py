"""The gate of recall's currency step: which links inferred from words re-rank for a question (pure, no
database). The shipped model is fitted by scripts/fit_currency_gate.py."""

from __future__ import annotations

import json

import pytest

from kgmem.logit import Logit
from kgmem.query import currency
from kgmem.query.fusion import Fused

NOTE = (
    "Started the 2024 ops log. Pantry hours: Tue 4-7pm, Sat 9am-1pm. Warehouse = Unit 6 at 212 Ferris Rd, "
    "side door code 4471#. Pickup from the food bank on Mondays, dock 3."
)


def ranking(*ids: str) -> currency.Standing:
    return currency.standing([Fused(i, 1.0 / (n + 1), {}) for n, i in enumerate(ids)])


def test_the_shipped_gate_reads_the_features_this_code_computes():
    model = currency.gate_model()
    assert model is not None and model.features == currency.GATE_FEATURES
    assert 0.0 < model.threshold < 1.0


def test_a_gate_fitted_on_other_features_is_refused(monkeypatch):
    text = json.dumps({**currency.gate_model().fields(), "features": ["confidence", "cosine"]})  # type: ignore[union-attr]
    monkeypatch.setattr(currency, "shipped_json", lambda name: text)
    currency.gate_model.cache_clear()
    try:
        with pytest.raises(ValueError, match="currency gate features"):
            currency.gate_model()
    finally:
        monkeypatch.undo()
        currency.gate_model.cache_clear()


def test_the_features_read_where_the_question_put_the_two_memories():
    where = ranking("a", "b", "c")
    x = currency.gate_features(0.9, "short", "c", "a", where)
    assert x["new_rank"] == pytest.approx(1 / 3) and x["old_rank"] == 1.0
    assert x["new_score"] == pytest.approx(1 / 3) and x["old_score"] == 1.0
    outside = currency.gate_features(0.9, "short", "z", "a", where)
    assert outside["new_rank"] == 0.0 and outside["new_score"] == 0.0
    assert currency.gate_features(0.9, NOTE, "c", "a", where)["old_length"] > x["old_length"]


def test_the_shipped_gate_counts_an_update_the_question_reached_and_not_a_note_about_something_else():
    """The newer statement the question ranks first retires the short statement it replaced; a note the
    question did not bring near the top does not retire a long note that holds several facts."""
    link = {"id": "new", "confidence": 0.95, "inferred": True, "by": "model"}
    assert currency.link_counts(link, "old", "Pete charges $45/hr.", ranking("new", "old"))
    far = ranking(*(f"m{i}" for i in range(12)), "old", "other")
    assert not currency.link_counts({**link, "id": "other", "confidence": 0.81}, "old", NOTE, far)


def test_without_a_gate_the_question_must_have_reached_the_newer_memory(monkeypatch):
    monkeypatch.setattr(currency, "gate_model", lambda: None)
    link = {"id": "new", "confidence": 0.95, "inferred": True, "by": "model"}
    assert currency.link_counts(link, "old", "x", ranking("a", "new", "old"))
    assert not currency.link_counts(link, "old", "x", ranking("a", "b", "old", "new"))


def test_a_rule_link_counts_when_the_question_names_what_it_retires(monkeypatch):
    monkeypatch.setattr(
        currency, "gate_model", lambda: Logit(currency.GATE_FEATURES, (0,) * 6, (1,) * 6, (0,) * 6, -50.0, 0.5, "", "")
    )
    rule = {"id": "vegan", "confidence": 0.9, "inferred": True, "by": "rule", "cue": "implies:diet without meat"}
    assert currency.link_counts(rule, "steak", "I love steak", ranking("x"), "Do I still like steak?")
    assert not currency.link_counts(
        {**rule, "by": "model"}, "steak", "I love steak", ranking("x"), "Do I still like steak?"
    )


def test_a_link_does_not_count_for_what_the_newer_note_says_stays_the_same():
    """A note that changed one fact of an older note and says another stays as it was retires the older note
    for the fact that changed, not for the one it keeps."""
    old = "Our agency # TCFN-0482. Pickup Fridays at their dock 3, 9-11am."
    new = "TCFN changed our pickup: now THURSDAYS, dock 5, 1-3pm. Agency number stays the same."
    link = {"id": "new", "confidence": 0.95, "inferred": True, "by": "model"}
    where = ranking("new", "old")
    assert currency.keeps_what_is_asked(new, "What is our agency number at the food bank?")
    assert not currency.link_counts(link, "old", old, where, "What is our agency number at the food bank?", new)
    assert not currency.keeps_what_is_asked(new, "Which day is the food bank pickup now?")
    assert currency.link_counts(link, "old", old, where, "Which day is the food bank pickup now?", new)

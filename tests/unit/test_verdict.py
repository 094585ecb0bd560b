"""The verdict's steps (kgmem.query.verdict), each on its own: the learned confidence decides unless an exact
token does, a retired best hit is as likely wrong as the retirement is sure, an answer no memory gives is
refused by rule, and the kind of "no" follows from the step that refused."""

from __future__ import annotations

import datetime as dt

from kgmem.query import verdict as v
from kgmem.query.abstain import AbstainPolicy, Judgement
from kgmem.query.confidence import FEATURES, ConfidenceModel
from kgmem.query.question import Question
from kgmem.results import Hit

NOW = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)


def model(threshold: float = 0.5, bias: float = 0.0) -> ConfidenceModel:
    n = len(FEATURES)
    return ConfidenceModel(FEATURES, (0.0,) * n, (1.0,) * n, (0.0,) * n, bias, threshold, "sha256:x", "test")


def hits(*texts: str) -> list[Hit]:
    return [Hit(f"h{i}", t, NOW, 0.1, False, True, {"vector": i + 1}, similarity=0.6) for i, t in enumerate(texts)]


def decision(abstained: bool = False, why: str = "cosine 0.60") -> v.Decision:
    return v.Decision(abstained, None, [Judgement(not abstained, why), Judgement(True, "second")], None)


def reading(stale: list[dict] | None = None, read: list[str] | None = None) -> v.Reading:
    return v.Reading(stale=stale or [], read=read or [], read_names=[], read_topic=[], hit_names=[])


def test_the_model_decides_the_answer_and_hits_below_keep_their_judgement():
    found = hits("a", "b")
    no = v.by_model(decision(), found, 0.2, model())
    assert no.abstained and no.probability == 0.2 and "0.20 < 0.50" in (no.reason or "")
    assert not no.judgements[0].confident and no.judgements[1].why == "second"
    yes = v.by_model(decision(abstained=True), found, 0.9, model())
    assert not yes.abstained and yes.reason is None and yes.judgements[0].confident


def test_an_exact_token_stays_decisive_and_no_model_keeps_the_hand_policy():
    kept = v.by_model(decision(why="exact token zx9q"), hits("zx9q"), 0.01, model())
    assert not kept.abstained and kept.probability == 0.01
    assert not v.by_model(decision(), hits("a"), None, None).abstained


def test_a_retired_best_hit_is_refused_as_surely_as_it_was_retired():
    sure = v.retired_best(
        v.Decision(False, None, [Judgement(True, "x")], 0.8), [{"id": "n", "confidence": 0.9}], model()
    )
    assert sure.abstained and sure.probability is not None and abs(sure.probability - 0.08) < 1e-9
    assert "retired by 'n'" in (sure.reason or "") and not sure.judgements[0].confident
    unsure = v.retired_best(
        v.Decision(False, None, [Judgement(True, "x")], 0.8), [{"id": "n", "confidence": 0.2}], model()
    )
    assert not unsure.abstained and unsure.probability is not None and abs(unsure.probability - 0.64) < 1e-9


def test_a_code_no_memory_read_holds_is_refused_by_rule_and_said_in_the_decline():
    q = Question.from_vector("what does zx7k mean?", "what does zx7k mean?", [0.0])
    found = hits("the deploy failed")
    d = v.absent(v.Decision(False, None, [Judgement(True, "x")], 0.9), q, ["the deploy failed"], found)
    assert d.abstained and d.probability == v.ABSENT_CONFIDENCE and d.missing is not None
    assert v.decline(d, found, q, reading(read=["the deploy failed"]), model())["kind"] == "topic_absent"
    # without a model the hand policy's abstention still says what is missing
    hand = v.absent(v.Decision(True, "low", [Judgement(False, "x")], None), q, ["the deploy failed"], found)
    assert hand.missing is not None and hand.reason == "low"
    assert v.decline(hand, found, q, reading(), None)["kind"] == "topic_absent"


def test_the_steps_in_order_set_each_hits_confidence_and_the_reason_carries_the_decline():
    q = Question.from_vector("what does zx7k mean?", "what does zx7k mean?", [0.0])
    found = hits("the deploy failed", "the cache warmed")
    out = v.verdict_of(
        found, q, dict.fromkeys(FEATURES, 0.0), reading(read=["the deploy failed"]), AbstainPolicy(), model(bias=3.0)
    )
    assert out.abstained and out.decline is not None and out.decline["kind"] == "topic_absent"
    assert out.reason is not None and out.reason.startswith("nothing about zx7k in the memories")
    assert not any(h.confident for h in found)
    empty = v.verdict_of([], q, {}, reading(), AbstainPolicy(), model())
    assert empty.abstained and empty.decline == {"kind": "no_match"}

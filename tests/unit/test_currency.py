"""Recall's currency step (kgmem.query.currency): which questions are about the present, and how a retired
memory is ranked below the memory that retired it — pure functions."""

from __future__ import annotations

import pytest

from kgmem.query.currency import about_the_present, newest, retire, standing, successor_order
from kgmem.query.fusion import Fused


@pytest.mark.parametrize(
    ("question", "present"),
    [
        ("Is Marcus a smoker these days?", True),
        ("Where does Maya live?", True),
        ("Is the user still going to the gym?", True),
        ("Who is on call now?", True),
        ("When did Marcus quit?", False),
        ("What did Caroline do in May?", False),
        ("Where did Maya live before the move?", False),
        ("What was he like back in 2019?", False),
        ("Did he quit, and is he still off them now?", True),  # the present said outright wins
    ],
)
def test_about_the_present(question, present):
    assert about_the_present(question) is present


def test_a_question_asked_as_of_a_time_is_about_that_time():
    assert about_the_present("When did Marcus quit?", as_of=True)


def _f(*pairs):
    return [Fused(i, s, {}) for i, s in pairs]


def test_the_newest_of_a_chain_takes_the_place_of_what_it_retired():
    out = retire(_f(("old", 0.5), ("other", 0.4), ("new", 0.3)), {"old": ["new"]}, weight=0.0)
    assert [f.id for f in out] == ["new", "old", "other"]
    assert out[0].score == pytest.approx(0.5) and out[1].score < out[0].score


def test_the_chain_weight_adds_the_weaker_score():
    out = retire(_f(("distractor", 0.7), ("old", 0.5), ("new", 0.3)), {"old": ["new"]}, weight=1.0)
    assert [f.id for f in out] == ["new", "distractor", "old"]  # 0.5 + 0.3 beats 0.7


def test_a_chain_is_followed_to_its_head_and_a_missing_head_is_added():
    out = retire(_f(("a", 0.5), ("b", 0.4)), {"a": ["b"], "b": ["c"]}, weight=0.0)
    assert [f.id for f in out] == ["c", "b", "a"]
    assert newest("a", {"a": ["b"], "b": ["a"]}) == ("b", 1)  # a cycle stops
    # a memory of the chain that the ranking does not hold passes its place on and takes none
    skip = retire(_f(("a", 0.5), ("x", 0.1)), {"a": ["b"], "b": ["c"]}, weight=0.0)
    assert [f.id for f in skip] == ["c", "a", "x"] and skip[1].score > 0.49


def test_memories_outside_any_chain_keep_their_places():
    fused = _f(("x", 0.9), ("y", 0.8))
    assert retire(fused, {}) == fused
    assert [f.id for f in retire(_f(("x", 0.9), ("old", 0.1), ("new", 0.05)), {"old": ["new"]}, weight=0.0)] == [
        "x",
        "new",
        "old",
    ]


def test_of_several_retirers_the_one_the_question_ranks_highest_takes_the_place():
    # "Volunteer coordinator is Priya" retired by "Priya gave notice" (the likelier link) and by "Hired: Dele as
    # volunteer coordinator", which the question "who handles volunteer coordination?" ranks higher
    fused = _f(("coordinator", 0.52), ("hired", 0.45), ("notice", 0.44), ("slot_v2", 0.1))
    where = standing(fused)
    links = [
        {"id": "notice", "inferred": True, "confidence": 0.95},
        {"id": "hired", "inferred": True, "confidence": 0.85},
    ]
    order = [str(s["id"]) for s in successor_order(links, where)]
    assert order == ["hired", "notice"]
    out = retire(fused, {"coordinator": order}, weight=0.0)
    assert [f.id for f in out][:2] == ["hired", "coordinator"]
    # a slot's version chain comes first whatever the ranking says; retirers the question did not rank keep the
    # input's (confidence) order
    chained = [*links, {"id": "slot_v2", "inferred": False, "confidence": 1.0}]
    assert [s["id"] for s in successor_order(chained, where)] == ["slot_v2", "hired", "notice"]
    unranked = standing(_f(("coordinator", 0.5), ("other", 0.4)))
    assert [s["id"] for s in successor_order(links, unranked)] == ["notice", "hired"]

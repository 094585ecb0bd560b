"""Slot questions → (subject, predicate[, object]) for ``ask`` (pure)."""

from __future__ import annotations

import pytest

from kgmem.query.ask import asks, parse_slot_question
from kgmem.vocab import Vocabulary

VOCAB = Vocabulary.load()


@pytest.mark.parametrize(
    "question,expected",
    [
        ("what is my phone number?", ("user", "phone_number", None)),
        ("What's my telephone?", ("user", "phone_number", None)),
        ("where do I live?", ("user", "lives_in", None)),
        ("where does Alice live?", ("Alice", "lives_in", None)),
        ("where does maya live now", ("maya", "lives_in", None)),
        ("who is Sam's manager?", ("Sam", "manager", None)),
        ("who is my boss", ("user", "manager", None)),
        ("does maya still like diet coke?", ("maya", "likes", "diet coke")),
        ("do I like sushi?", ("user", "likes", "sushi")),
        ("where was Priya born?", ("Priya", "birth_place", None)),
        ("how much does the widget cost?", ("widget", "price", None)),
    ],
)
def test_parses_slot_questions(question, expected):
    sq = parse_slot_question(question, VOCAB)
    assert sq is not None, question
    assert (sq.subject, sq.predicate, sq.object) == expected


def test_first_person_uses_the_given_user():
    assert parse_slot_question("what is my email?", VOCAB, user="kim").subject == "kim"


@pytest.mark.parametrize("question", ["what did we decide about pricing?", "write a poem", "does it like?"])
def test_returns_none_when_no_slot_is_named(question):
    assert parse_slot_question(question, VOCAB) is None


def test_a_past_period_the_question_names_is_what_ask_answers_as_of():
    import datetime as dt

    from kgmem.query.ask import period_end

    now = dt.datetime(2024, 6, 1, tzinfo=dt.timezone.utc)
    end = period_end("In April, how much was Marisol giving per month?", now)
    assert end is not None and end.month == 4 and end < now
    assert period_end("When did we move the pickup to Thursdays?", now) is None  # asks when: no as-of
    assert period_end("How much is Marisol giving per month?", now) is None  # no period named


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Are we putting a new furnace in at Pell this winter?", True),
        ("how wide did the spine come out", True),
        ("anything about QX-7741", True),
        ("the spine width on Nine Small Rivers?", True),
        ("write a poem about Lisbon", False),
        ("thanks!", False),
        ("Whatever you think", False),
    ],
)
def test_a_question_is_told_from_a_request(text, expected):
    assert asks(text) is expected

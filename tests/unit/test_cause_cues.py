"""What one note says about a cause: the dash that tells an event with its reason, and a cause said to be unknown."""

from __future__ import annotations

import pytest

from kgmem.derived.cause_cues import text_cues


@pytest.mark.parametrize(
    "text",
    [
        "Breaker 14 had tripped - the freezer shares that circuit with the east outlet.",
        "Breaker 14 had tripped -- the freezer shares that circuit with the east outlet.",
        "Breaker 14 had tripped \u2014 the freezer shares that circuit with the east outlet.",
        "Breaker 14 had tripped \u2013 the freezer shares that circuit with the east outlet.",
        "The comp cells were in box 4 -- they sat through the warm-up.",
    ],
)
def test_an_event_told_with_its_reason_after_a_dash_in_any_spelling(text: str) -> None:
    assert text_cues(text).dash_self


@pytest.mark.parametrize(
    "text",
    [
        "Breaker 14 had tripped --- the freezer shares that circuit.",  # three dashes: a rule, not a dash
        "Rooms B212-the lab",  # a hyphen inside a word
        "Van 2 -- 11 days after the new alternator.",  # no clause follows
    ],
)
def test_no_dash_clause_where_none_is_written(text: str) -> None:
    assert not text_cues(text).dash_self


@pytest.mark.parametrize(
    "text",
    [
        "Walk-in at 38F since the weekend. Cause unknown -- the contractor comes Tue.",
        "Outage at 3am; the reason is still unknown.",
        "Pump stopped twice, unknown cause.",
        "Causes unclear so far, logs attached.",
    ],
)
def test_a_cause_said_to_be_unknown_is_no_stated_cause(text: str) -> None:
    assert text_cues(text).hedge >= 1


def test_a_stated_cause_is_not_hedged() -> None:
    cues = text_cues("The torn gasket is why we kept getting E7: the cause was the door not sealing.")
    assert cues.hedge == 0


@pytest.mark.parametrize(
    "text",
    [
        "Polar Mechanical: office 555-0130, after-hours line 555-0139.",
        "Drop-off at the after-school club.",
        "Since-launch figures attached.",
    ],
)
def test_a_marker_inside_a_hyphenated_word_is_no_cause_clause(text: str) -> None:
    cues = text_cues(text)
    assert not cues.clause and cues.before == cues.after == ""


def test_a_marker_beside_a_hyphenated_word_still_counts() -> None:
    assert text_cues("The walk-in warmed up after the breaker tripped.").clause
    assert text_cues("Book a follow-up with the plumber.").action

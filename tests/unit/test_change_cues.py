"""The change signals of a text (kgmem.derived.change_cues): what states a change, what only mentions the
thing, and the implications table — pure functions."""

from __future__ import annotations

import pytest

from kgmem.derived.change_cues import IMPLICATIONS, cues, implied_retirements


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Marcus quit! Hasn't had a cigarette since Feb 1", "stop"),
        ("I gave up on sourdough, too much work", "stop"),
        ("I don't like diet coke anymore", "stop"),
        ("not into running anymore tbh", "stop"),
        ("cancelled the gym membership yesterday", "stop"),
        ("we switched to Postgres last week", "switch"),
        ("Bob runs the team now", "switch"),
        ("Aisha took over the account from Tyler", "switch"),
        ("Correction: the party is on the 21st", "correction"),
        ("typo in my last message, it's 555-0174", "correction"),
    ],
)
def test_a_stated_change_is_read(text, kind):
    c = cues(text)
    assert getattr(c, kind) >= 1, c.matched
    assert c.changes


@pytest.mark.parametrize(
    "text",
    [
        "return flight is still 12:30pm, no changes there",
        "Counseled on cessation, pt not ready to quit.",
        "my number hasn't changed",
        "didn't quit, just cut back a little",
    ],
)
def test_a_negated_change_is_no_change(text):
    c = cues(text)
    assert c.stop == 0 and c.switch == 0, c.matched


def test_no_change_signals():
    assert cues("still love green tea").still == 1
    assert cues("should I quit the climbing gym?").hypothetical >= 1 and cues("should I quit?").question
    assert cues("in Mexico City for a week for work").temporary == 1
    assert cues("in Japan for 2 weeks with a local SIM").temporary == 1
    assert cues("my sister's favourite is pistachio").other_person
    assert not cues("I like pistachio").other_person


def test_values_are_read_by_kind():
    assert {"phone", "number"} <= cues("new cell: +1 415 555 0162").values
    assert "money" in cues("the Pro plan is $59 a month").values
    assert "dose" in cues("metformin increased to 1000 mg").values
    assert "version" in cues("prod api -> v2.4.2").values
    assert "time" in cues("standup moved to 9:30am").values
    assert not cues("lovely weather today").values


def test_implications_retire_what_the_older_statement_took_for_granted():
    assert implied_retirements("I've gone vegetarian", "my go-to is the double bacon cheeseburger")
    assert implied_retirements("sold my car, I bike to work now", "I drive to work every day")
    assert not implied_retirements("I've gone vegetarian", "I drive to work every day")
    assert all(name and trigger.pattern and retired.pattern for name, trigger, retired in IMPLICATIONS)


def test_a_stop_of_a_topic_names_the_topic():
    c = cues("he quit cigarettes in March")
    assert "smoking" in c.stopped_topics and "smoking" in cues("smokes a pack a day").topics

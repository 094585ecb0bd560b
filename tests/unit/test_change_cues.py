"""The change signals of a text (kgmem.derived.change_cues): what states a change, what only mentions the
thing, and the implications table — pure functions."""

from __future__ import annotations

import pytest

from kgmem.derived.change_cues import (
    IMPLICATIONS,
    cues,
    implied_retirements,
    keeps_without_change,
    nearest_sentence,
    negated_tokens,
    qualifiers,
    sentences,
    someone_else,
    subject,
    tokens,
    tokens_outside_negation,
)


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


def test_an_implication_leaves_what_agrees_with_it():
    # the older says the same itself: it takes the diet for granted, it does not contradict it
    assert not implied_retirements("I went vegan", "it's dairy-free vanilla with a coconut cream frosting")
    assert implied_retirements("I went vegan", "it's vanilla with a cream frosting")
    # plant milks, creams and butters are no animal products; dairy ones next to them still are
    for plant in ("coconut milk ice cream", "almond milk in my coffee", "vegan cheese", "peanut butter toast"):
        assert not implied_retirements("I went vegan", f"I love {plant}"), plant
    assert implied_retirements("I went vegan", "I love peanut butter and cheese toast")
    assert implied_retirements("I went vegan", "I love ice cream")


def test_a_stop_of_a_topic_names_the_topic():
    c = cues("he quit cigarettes in March")
    assert "smoking" in c.stopped_topics and "smoking" in cues("smokes a pack a day").topics


@pytest.mark.parametrize(
    "text, who",
    [
        ("I drive a 2015 Honda Civic", "self"),
        ("The user lives in Chicago (Logan Square)", "self"),
        ("started bouldering at the gym and I'm obsessed", "self"),  # chat leaves the subject out
        ("my roommate Jess is doing hot yoga now", "kin:roommate"),
        ("The user's partner switched to day shifts", "kin:partner"),
        ("Omar's wife Salma is doing keto again", "kin:wife:omar"),
        ("Omar's gone vegetarian", "name:omar"),
        ("Mom: Fatima got promoted!!", "name:fatima"),  # a speaker prefix is skipped
        ("#sre: Lucas is primary for the rest of the week", "name:lucas"),
        ("weigh-in: 94.2 kg", None),
        ("Carla's boss (the COO) just left the company", "kin:boss:carla"),  # someone else's role holder
        ("my boss left, Dev runs the team now", "self"),  # the speaker's own slot
        ("Priya says Arjun moved to Leeds", "name:arjun"),  # reported speech is about what is reported
        ("The user said they closed on a house in Denver", "self"),
    ],
)
def test_the_subject_is_read_from_how_a_statement_starts(text, who):
    assert subject(text) == who


def test_someone_else_is_a_relation_against_the_speaker_or_the_person_it_belongs_to():
    assert someone_else("kin:sister", "self") and someone_else("self", "kin:partner")
    assert someone_else("kin:wife:omar", "name:omar") and someone_else("kin:sister", "kin:roommate")
    # a role handed over names another person than the statement it retires: never vetoed by name
    assert not someone_else("name:hannah", "self") and not someone_else("name:zoe", "name:coach")
    assert not someone_else("kin:partner", "kin:partner") and not someone_else(None, "self")
    assert someone_else("kin:boss:carla", "self") and not someone_else("name:arjun", "kin:brother:priya")


def test_a_statement_says_which_older_token_it_negates():
    new = "oops it's 555-0174 not 0147, I flipped the digits"
    assert "0147" in negated_tokens(new) and "0147" in tokens("Dr. Ng's office number is 555-0147")
    assert "14" in negated_tokens("correction: the offsite is on March 21, not the 14th")
    assert "$120k" in negated_tokens("Q3 budget is $102k, not $120k") - tokens_outside_negation("$102k, not $120k")
    assert not negated_tokens("still a cortado girl")


def test_a_slot_noun_qualified_otherwise_is_another_slot():
    assert qualifiers("perf review: search p99 crept up to 510ms", frozenset({"p99"})) == {"p99": "search"}
    assert qualifiers("Q3 events budget set at $35k", frozenset({"budget"})) == {"budget": "events"}


def test_a_rotated_password_is_a_switch():
    assert cues("IT: guest wifi password has been rotated -> harbor-lights-17").switch


def test_a_decided_future_is_not_tentative_but_wondering_is():
    assert cues("Aunt Rosa will take him to his appointments").tentative == 0
    assert cues("thinking about moving to Denver").tentative and cues("maybe I'll switch to oat milk").tentative


def test_a_sentence_that_keeps_things_as_they_were():
    text = "the new barista tried to upsell me some pumpkin spice thing lol. still a cortado girl"
    assert keeps_without_change(nearest_sentence(text, frozenset({"cortado", "oat", "milk"})))
    assert not keeps_without_change("A1c still elevated, metformin increased to 1000 mg")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Release 4.2 (Android): crash-free sessions 97.1%.", ["Release 4.2 (Android): crash-free sessions 97.1%."]),
        ("prod api -> v2.4.0, adds bulk export", ["prod api -> v2.4.0, adds bulk export"]),
        ("Moved to 10.0.4.12. Then the rest!", ["Moved to 10.0.4.12.", " Then the rest!"]),
        (
            "3003 = pressure high (>0.5 MPa)\n3010 = pressure low",
            ["3003 = pressure high (>0.5 MPa)", "3010 = pressure low"],
        ),
    ],
)
def test_a_point_inside_a_number_or_a_version_does_not_end_a_sentence(text, expected):
    assert sentences(text) == expected

"""The meaning features of recall's confidence (kgmem.query.meaning): what the question asks against what the
hits say. Pure: no database."""

from __future__ import annotations

import pytest

from kgmem.query import meaning

CHAT = [
    "Caroline: I went to a pottery class last weekend and made a wonky blue bowl.",
    "Melanie: Wow Caroline, that's amazing! What colour was the glaze?",
    "Melanie: We adopted a golden retriever pup and called him Biscuit.",
]


def test_question_words_and_stopwords_are_not_the_topic_and_stems_match():
    a = meaning.asked("What did Caroline make in her pottery classes?")
    assert a.names == ("caroline",)
    assert set(a.salient) == {"potteri", "class"}  # stemmed; 'what', 'did', 'make', 'her', 'in' dropped
    assert meaning.coverage(a, ["I took a pottery class"]) == pytest.approx(1.0)
    assert meaning.coverage(a, ["nothing related"]) == 0.0


@pytest.mark.parametrize("question", ["anything involving Priya?", "what happened regarding Priya?"])
def test_a_question_that_only_names_someone_has_no_topic_to_be_absent(question):
    # "involving", "regarding" frame the question like "about": the topic is Priya, not "involving" (declining
    # with "nothing about involving in the memories" would be wrong twice)
    a = meaning.asked(question)
    assert a.salient == () and a.names == ("priya",)
    assert meaning.decline(question, ["Budget signed off by Priya."]) is None


def test_a_word_with_a_capital_inside_is_a_topic_term_not_a_name():
    a = meaning.asked("What did Diego say about GraphQL and YouTube, and did Jean-Luc or Maya's sister come?")
    assert a.names == ("diego", "jean-luc", "maya")
    assert {"graphql", "youtub"} <= set(a.salient)
    assert meaning.coverage(a, ["Standup: Diego is back from vacation"]) == 0.0


def test_coverage_is_weighted_by_rarity():
    a = meaning.asked("Which band did the user see at the stadium?")
    rare, common = a.salient[0], a.salient[-1]
    assert meaning.idf(rare) >= meaning.idf(common)
    only_rare = meaning.coverage(a, [rare])
    only_common = meaning.coverage(a, [common])
    assert only_rare >= only_common


def test_speaker_and_parts_attribute_questions_and_second_person_to_the_addressee():
    assert meaning.speaker("Melanie: hi") == "melanie"
    assert meaning.speaker("no speaker here") is None
    parts = meaning.parts("Caroline: Wow, Mel! What got you into running? I ran a marathon once.")
    assert parts == [({"caroline"}, "Wow, Mel! I ran a marathon once."), ({"mel"}, "What got you into running?")]
    assert meaning.same_person({"mel"}, {"melanie"}) and not meaning.same_person({"jo"}, {"jon"})


def test_attribution_of_a_swapped_question_points_at_the_other_speaker():
    a = meaning.asked("What did Melanie make in the pottery class?")
    att = meaning.attribution(a, CHAT)
    assert att.other == "caroline" and att.margin < 0
    right = meaning.attribution(meaning.asked("What did Caroline make in the pottery class?"), CHAT)
    assert right.margin > 0


def test_features_separate_answerable_from_swapped_and_absent():
    ok = meaning.features("What did Caroline make in the pottery class?", CHAT[:1], [[]], CHAT, False)
    swapped = meaning.features("What did Melanie make in the pottery class?", [CHAT[1], CHAT[0]], [[], []], CHAT, False)
    absent = meaning.features("What is Caroline's favourite band?", CHAT[:1], [[]], CHAT, False)
    assert ok["coverage"] == 1.0 and ok["topic_named"] == 1.0 and ok["pool_margin"] > 0
    assert swapped["topic_other"] == 1.0 and swapped["pool_margin"] < 0 and swapped["best_asks"] == 1.0
    assert swapped["pool_behind"] == 1.0 and ok["pool_behind"] == 0.0
    # no one named: nobody to be behind
    assert meaning.features("What was made in the pottery class?", CHAT[:1], [[]], CHAT, False)["pool_behind"] == 0.0
    assert absent["topic_seen"] == 0.0 and absent["coverage"] == 0.0
    assert meaning.features("Is it still true?", CHAT[:1], [[]], CHAT, True)["retired"] == 1.0


def test_topic_any_best_words_and_entity_topic_read_what_they_say():
    from kgmem.query.confidence import combined

    # topic_any: the best coverage of the topic by any memory read, whichever ranks first
    lost = meaning.features("What did Caroline make in the pottery class?", [CHAT[2]], [[]], CHAT, False)
    assert lost["coverage"] == 0.0 and lost["topic_any"] == 1.0
    partly = meaning.features("What did Caroline make in the pottery class?", [CHAT[2]], [[]], CHAT[1:], False)
    assert partly["topic_any"] == 0.0
    # best_words: how much the best hit says (log of 1 + its distinct content stems; the speaker is not said)
    short = meaning.features("What colour was the glaze?", ["Melanie: Oh okay!"], [[]], CHAT, False)
    long = meaning.features("What colour was the glaze?", [CHAT[0]], [[]], CHAT, False)
    assert short["best_words"] == 0.0 and long["best_words"] > 1.5
    # entity_topic: the entity margin counts as far as the topic is there
    assert combined({"entity_margin": 0.4, "topic_any": 1.0})["entity_topic"] == pytest.approx(0.4)
    assert combined({"entity_margin": 0.4, "topic_any": 0.0})["entity_topic"] == 0.0


def test_the_two_kinds_of_no_are_said_plainly():
    nothing = meaning.decline("What is Maya's favourite band?", ["Maya likes oat-milk flat whites."])
    assert nothing is not None and nothing["kind"] == "topic_absent"
    assert nothing["message"] == "nothing about favourite band in the memories"
    other = meaning.decline("What did Melanie make in the pottery class?", CHAT)
    assert other == {
        "kind": "other_subject",
        "named": "Melanie",
        "other": "Caroline",
        "message": "the memories say this of Caroline, not of Melanie",
    }
    assert meaning.decline("What did Caroline make in the pottery class?", CHAT) is None


def test_the_idf_table_ships_and_knows_common_words():
    assert meaning.idf("band") < meaning.idf("zzzunseenzzz")
    assert meaning.idf("zzzunseenzzz") == meaning.idf("qqqalsounseen")


def test_a_note_is_about_the_names_it_mentions_as_the_graph_knows_them():
    notes = ["Standup: Diego is back from vacation.", "Phone number of the on-call: 555-0199, says Maya."]
    assert meaning.about(notes[0], ["diego"]) == {"diego"}  # the graph's entities, not the "Standup:" label
    out = meaning.decline("what is Priya's phone number?", notes, [["diego"], ["maya"]])
    assert out is not None and out["kind"] == "other_subject" and (out["named"], out["other"]) == ("Priya", "Maya")
    assert meaning.persons("Maya's phone number is 555-0199.") == {"maya"}  # a possessive opening a sentence
    assert meaning.persons("Decided to buy vans. Priya agreed.") == set()  # capitalised because it opens one


def test_the_topic_is_the_question_without_its_names_and_its_nearest_memory_is_a_feature():
    assert meaning.without_names("what is Maya's favourite band?") == "what is favourite band?"
    assert meaning.without_names("which CDN do we use?") == "which CDN do we use?"  # no name: the question
    f = meaning.features("what is Maya's favourite band?", CHAT[:1], [[]], CHAT, False, (), [0.1, None, 0.3])
    assert f["topic_similarity"] == 0.3
    assert meaning.features("what is Maya's favourite band?", CHAT[:1], [[]], CHAT, False)["topic_similarity"] == 0


def test_a_time_phrase_is_not_what_a_question_is_about():
    # the time filters or ranks; "nothing about 2023 in the memories" was said of questions about May 2023
    assert meaning.asked("What did Maria donate to a homeless shelter in December 2023?").salient == (
        meaning.asked("What did Maria donate to a homeless shelter?").salient
    )
    a = meaning.asked("What book did Tim finish reading on 8th December, 2023?")
    assert not {"2023", "8th", "decemb"} & set(a.salient) and "book" in a.salient and a.names == ("tim",)
    assert meaning.asked("How many times has Melanie gone to the beach in 2023?").salient == ("beach",)
    assert meaning.asked("the 2023 budget for the 21st floor").salient == tuple(
        sorted({"budget", "floor"}, key=lambda s: (-meaning.idf(s), s))
    )
    assert meaning.without_time("What did Jon do in May 2023?") == "What did Jon do?"

"""The rule-based fact compiler: what it extracts, and — as important — what it must leave alone."""

from __future__ import annotations

import pytest

from kgmem.ingest.compiler import (
    CONF_FIRST_PERSON,
    CONF_LOOSE,
    CONF_THIRD_PERSON,
    CompiledFact,
    compile_facts,
    split_clauses,
    split_sentences,
)
from kgmem.vocab import Vocabulary


def triples(text: str, **kwargs) -> list[tuple[str, str, str, bool]]:
    return [(f.subject, f.predicate, f.object, f.polarity) for f in compile_facts(text, **kwargs)]


def one(text: str, **kwargs) -> CompiledFact:
    facts = compile_facts(text, **kwargs)
    assert len(facts) == 1, facts
    return facts[0]


# --------------------------------------------------------------------------- the scenarios of the issue


def test_diet_coke_sequence():
    assert triples("I like diet coke") == [("user", "likes", "diet coke", True)]
    assert triples("I don't like diet coke anymore") == [("user", "likes", "diet coke", False)]


def test_steak_sequence():
    assert triples("I stopped liking steak") == [("user", "likes", "steak", False)]
    assert triples("I like steak again") == [("user", "likes", "steak", True)]


def test_phone_correction():
    assert triples("Alice's phone is 555-1111") == [("alice", "phone_number", "555-1111", True)]
    assert triples("Alice's phone changed to 555-2222") == [("alice", "phone_number", "555-2222", True)]
    assert triples("My phone changed to 555-2222") == [("user", "phone_number", "555-2222", True)]


def test_moved_and_costs():
    assert triples("I moved to Berlin") == [("user", "lives_in", "Berlin", True)]
    assert triples("The widget costs $40") == [("widget", "price", "$40", True)]


# --------------------------------------------------------------------------- table of positives

POSITIVES = [
    # likes / dislikes
    ("I like diet coke.", ("user", "likes", "diet coke", True)),
    ("I really like Diet Coke", ("user", "likes", "Diet Coke", True)),
    ("I also love sushi", ("user", "likes", "sushi", True)),
    ("I still enjoy jazz", ("user", "likes", "jazz", True)),
    ("I do like olives", ("user", "likes", "olives", True)),
    ("I adore my cat", ("user", "likes", "my cat", True)),
    ("I really love Thai food a lot", ("user", "likes", "Thai food", True)),
    ("I'm a big fan of The Beatles!", ("user", "likes", "The Beatles", True)),
    ("I'm into bouldering these days", ("user", "likes", "bouldering", True)),
    ("I like mac and cheese", ("user", "likes", "mac and cheese", True)),  # no comma: one value
    ("I do not like olives", ("user", "likes", "olives", False)),
    ("I dont like olives", ("user", "likes", "olives", False)),
    ("I no longer like coffee", ("user", "likes", "coffee", False)),
    ("I don\u2019t like diet coke anymore.", ("user", "likes", "diet coke", False)),
    ("I don't really like horror movies", ("user", "likes", "horror movies", False)),
    ("I stopped liking steak.", ("user", "likes", "steak", False)),
    ("I've stopped enjoying golf", ("user", "likes", "golf", False)),
    ("I hate mushrooms", ("user", "likes", "mushrooms", False)),
    ("I dislike cilantro", ("user", "likes", "cilantro", False)),
    ("I really can't stand traffic", ("user", "likes", "traffic", False)),
    ("I'm not a fan of jazz", ("user", "likes", "jazz", False)),
    ("I am not really a fan of opera", ("user", "likes", "opera", False)),
    ("I'm no longer into crypto", ("user", "likes", "crypto", False)),
    ("I like steak again", ("user", "likes", "steak", True)),
    # where the user lives
    ("I live in Lisbon", ("user", "lives_in", "Lisbon", True)),
    ("I now live in Lisbon.", ("user", "lives_in", "Lisbon", True)),
    ("I currently live in New York City", ("user", "lives_in", "New York City", True)),
    ("I'm living in Oslo now", ("user", "lives_in", "Oslo", True)),
    ("I am based in Austin", ("user", "lives_in", "Austin", True)),
    ("I've lived in Berlin since 2019.", ("user", "lives_in", "Berlin", True)),
    ("I moved to Berlin last year", ("user", "lives_in", "Berlin", True)),
    ("I just moved to Berlin.", ("user", "lives_in", "Berlin", True)),
    ("I have moved to Madrid", ("user", "lives_in", "Madrid", True)),
    ("I relocated to Denver a few months ago", ("user", "lives_in", "Denver", True)),
    ("I moved back to Rome", ("user", "lives_in", "Rome", True)),
    ("I live in Berlin, Germany.", ("user", "lives_in", "Berlin, Germany", True)),
    ("I don't live in London anymore.", ("user", "lives_in", "London", False)),
    ("I'm originally from Ohio", ("user", "hometown", "Ohio", True)),
    # work
    ("I work at Acme Corp.", ("user", "employer", "Acme Corp", True)),
    ("I work for the city council", ("user", "employer", "the city council", True)),
    ("I'm now working at Globex", ("user", "employer", "Globex", True)),
    ("I no longer work at Globex", ("user", "employer", "Globex", False)),
    ("I left my job at Initech", ("user", "employer", "Initech", False)),
    ("I started working at Hooli", ("user", "employer", "Hooli", True)),
    ("I work with Priya", ("user", "works_with", "Priya", True)),
    ("My manager is Dana", ("user", "manager", "Dana", True)),
    ("My boss is now Dana.", ("user", "manager", "Dana", True)),
    ("Dana is my manager now.", ("user", "manager", "Dana", True)),
    # personal facts
    ("I was born in Lyon", ("user", "birth_place", "Lyon", True)),
    ("I was born on 3 May 1990", ("user", "birthday", "3 May 1990", True)),
    ("I was born in 1990.", ("user", "birthday", "1990", True)),
    ("I'm 34 years old", ("user", "age", "34", True)),
    ("I am 34.", ("user", "age", "34", True)),
    ("I just turned 40!", ("user", "age", "40", True)),
    ("I am allergic to penicillin", ("user", "allergy", "penicillin", True)),
    ("I'm severely allergic to bee stings.", ("user", "allergy", "bee stings", True)),
    ("I have a peanut allergy", ("user", "allergy", "peanut", True)),
    ("I'm no longer allergic to cats", ("user", "allergy", "cats", False)),
    ("I'm vegan", ("user", "diet", "vegan", True)),
    ("I'm vegetarian now.", ("user", "diet", "vegetarian", True)),
    ("I am a strict vegetarian", ("user", "diet", "vegetarian", True)),
    ("I'm no longer vegan", ("user", "diet", "vegan", False)),
    ("I went vegan", ("user", "diet", "vegan", True)),
    ("I'm on a keto diet", ("user", "diet", "keto", True)),
    ("I have a dog named Rex", ("user", "pet", "Rex", True)),
    ("I go by Sam", ("user", "nickname", "Sam", True)),
    # "my X is Y" and friends
    ("My name is Ada Lovelace.", ("user", "name", "Ada Lovelace", True)),
    ("My name's Bob.", ("user", "name", "Bob", True)),
    ("My phone is 555-1234", ("user", "phone_number", "555-1234", True)),
    ("my phone number is now 555-9876", ("user", "phone_number", "555-9876", True)),
    ("My new phone number is 555-0001", ("user", "phone_number", "555-0001", True)),
    ("My phone has changed to 555-2222.", ("user", "phone_number", "555-2222", True)),
    ("My phone number changed from 555-1111 to 555-2222", ("user", "phone_number", "555-2222", True)),
    ("My number: 555-3333", None),  # "number" is not a vocabulary predicate: kept as new (see below)
    ("My email is ada@example.com", ("user", "email", "ada@example.com", True)),
    ("My favourite colour is blue.", ("user", "favorite_color", "blue", True)),
    ("My favorite food is pizza", ("user", "favorite_food", "pizza", True)),
    ("My favorite food is no longer pizza", ("user", "favorite_food", "pizza", False)),
    ("My favorite movie is not Titanic.", ("user", "favorite_movie", "Titanic", False)),
    ("My birthday is June 5", ("user", "birthday", "June 5", True)),
    ("My wife's name is Anna.", ("user", "spouse", "Anna", True)),
    ("My dog's name is Rex", ("user", "pet", "Rex", True)),
    ("My car's color is red", ("user's car", "color", "red", True)),
    ("My blood type is O+", ("user", "blood_type", "O+", True)),
    ("My doctor is Dr. Smith.", ("user", "doctor", "Dr. Smith", True)),
    # third person
    ("Alice's phone is 555-1111", ("alice", "phone_number", "555-1111", True)),
    ("Alice\u2019s phone is now 555-3333.", ("alice", "phone_number", "555-3333", True)),
    ("Dr. Sarah Chen's phone is 617-555-0123.", ("dr sarah chen", "phone_number", "617-555-0123", True)),
    ("The widget's price is $45", ("widget", "price", "$45", True)),
    ("Project Phoenix's status is blocked", ("project phoenix", "status", "blocked", True)),
    ("The capital of France is Paris.", ("france", "capital", "Paris", True)),
    ("The price of the widget is now $45.", ("widget", "price", "$45", True)),
    ("The main export of Chile is copper", ("chile", "main_export", "copper", True)),
    ("Paris is the capital of France.", ("france", "capital", "Paris", True)),
    ("The widget costs $40", ("widget", "price", "$40", True)),
    ("The widget now costs \u20ac35.", ("widget", "price", "\u20ac35", True)),
    ("A latte costs 4.50 dollars", ("latte", "price", "4.50 dollars", True)),
    ("Gizmo Pro is priced at $99", ("gizmo pro", "price", "$99", True)),
    # discourse markers are not part of the statement
    ("Actually, I moved to Berlin.", ("user", "lives_in", "Berlin", True)),
    ("Update: my phone changed to 555-2222", ("user", "phone_number", "555-2222", True)),
    ("btw I'm vegan", ("user", "diet", "vegan", True)),
    ("I told you my phone is 555-9999.", ("user", "phone_number", "555-9999", True)),
    # everyday phrasings of a change
    ("Maya's phone changed again: it is now 555-0199", ("maya", "phone_number", "555-0199", True)),
    ("my phone changed: 555-0100", ("user", "phone_number", "555-0100", True)),
    ("Alice's team changed from Payments to Billing", ("alice", "team", "Billing", True)),
    ("Dad's doctor got switched from Dr Lee to Dr Okafor", ("dad", "doctor", "Dr Okafor", True)),
    ("the primary region moved from us-east-1 to eu-west-1", ("user", "region", "eu-west-1", True)),
    ("Dev Patel now runs the growth analytics team", ("growth analytics team", "manager", "Dev Patel", True)),
    ("Nadia Rahman now owns the Brightline Foods account", ("brightline foods account", "owner", "Nadia Rahman", True)),
    ("Lewis Abara leads the U10s from this Wednesday", ("u10s", "manager", "Lewis Abara", True)),
    # a heading with a value the vocabulary knows, or words that are only a value
    ("Teo's address: 44 Harbour Steps, Port Selwyn", ("teo", "address", "44 Harbour Steps, Port Selwyn", True)),
    ("Biscuit's food: salmon kibble", ("biscuit", "food", "salmon kibble", True)),
]


@pytest.mark.parametrize("text, expected", [case for case in POSITIVES if case[1]])
def test_positive(text, expected):
    assert triples(text) == [expected]


# --------------------------------------------------------------------------- table of negatives

NEGATIVES = [
    # questions
    "What is my phone number?",
    "what is my phone number",
    "Where do I live?",
    "Do I like diet coke?",
    "Is my manager Dana?",
    "Does the widget cost $40?",
    "I like diet coke?",
    # hypotheticals, desires, futures, hedges
    "If I moved to Paris, I'd learn French.",
    "If my phone changed to 555-2222 I would tell you.",
    "Suppose I live in Rome.",
    "I'd like a coffee",
    "I would love a holiday",
    "I want to move to Lisbon",
    "I'm planning to move to Lisbon",
    "I'm going to work at Google",
    "I will move to Rome next year.",
    "Maybe I like jazz.",
    "I might be allergic to nuts.",
    "I wish I lived in Paris.",
    "I used to like cats.",
    "I'm not sure my phone is 555-1111.",
    "I don't know if I like it.",
    # other people's words
    "She said my phone is 555-3333.",
    "Bob told me my phone is 555-4444.",
    "According to Alice, my manager is Dana.",
    "Apparently the widget costs $40.",
    "He thinks I live in Paris.",
    # pronouns and non-objects
    "I like it.",
    "I like that.",
    "I like to swim.",
    "I like how it looks.",
    "I love you",
    "I work at home",
    "I work from home",
    # value shapes
    "My phone is broken.",
    "My phone is in my bag",
    "My email is down",
    "The widget costs a fortune",
    "It costs $40",
    "My age is unknown",
    # past values and ordinary sentences
    "My old phone number was 555-0000.",
    "My previous phone is 555-0000",
    "My phone was 555-0000",
    "The deploy failed at 3pm.",
    "Paris is beautiful.",
    "I feel like pizza",
    "I went to Berlin",
    "Berlin is where I live",
    "",
    "   ",
    # a note's heading and what was done, not an attribute and its value
    "Walt's ceiling: Pete patched + painted (6 hrs).",
    "Gus's garage brewery: batch 14 is a hazy IPA, 6.8%.",
    "Walt's grab bars in: 2 bars, anchored into studs.",
    # a name inside the attribute is someone else
    "Priya's sister Kavya is still in Bristol doing her PhD",
    "my sister Tess is doing a wine tasting tour in Napa next month",
    # "my wife's …" is hers
    "my wife's Outback needs new brakes, $680 quote ugh",
    # where a person moved is not a new person
    "my sister moved from Paris to Berlin",
    # "the team" alone does not say which
    "Dev Patel runs the team",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text):
    assert compile_facts(text) == []


# --------------------------------------------------------------------------- several facts per text


def test_several_sentences_and_clauses():
    text = "I moved to Berlin last year and my phone changed to 555-2222 because I lost the old one. I'm vegan."
    assert triples(text) == [
        ("user", "lives_in", "Berlin", True),
        ("user", "phone_number", "555-2222", True),
        ("user", "diet", "vegan", True),
    ]


def test_abbreviation_does_not_hide_the_next_sentence():
    assert triples("I work at Acme Corp. My manager is Dana.") == [
        ("user", "employer", "Acme Corp", True),
        ("user", "manager", "Dana", True),
    ]


def test_but_splits_clauses():
    assert triples("I like tea but I don't like coffee") == [
        ("user", "likes", "tea", True),
        ("user", "likes", "coffee", False),
    ]


def test_question_sentence_does_not_block_the_others():
    assert triples("What is my phone number? I moved to Oslo.") == [("user", "lives_in", "Oslo", True)]


def test_comma_list_of_likes():
    assert triples("I love tea, coffee and hot chocolate.") == [
        ("user", "likes", "tea", True),
        ("user", "likes", "coffee", True),
        ("user", "likes", "hot chocolate", True),
    ]


@pytest.mark.parametrize(
    "text, objects",
    [
        ("I'm allergic to peanuts and shellfish.", ["peanuts", "shellfish"]),
        ("I'm allergic to peanuts, shellfish, and latex", ["peanuts", "shellfish", "latex"]),
        ("I speak French and German.", ["French", "German"]),
        ("My hobbies are hiking and chess.", ["hiking", "chess"]),
    ],
)
def test_list_predicates_split(text, objects):
    assert [f.object for f in compile_facts(text)] == objects


def test_single_valued_objects_are_not_split():
    assert triples("My favorite food is fish and chips") == [("user", "favorite_food", "fish and chips", True)]


def test_work_as_gives_title_and_employer():
    assert triples("I work as a nurse at Mercy Hospital.") == [
        ("user", "job_title", "nurse", True),
        ("user", "employer", "Mercy Hospital", True),
    ]


def test_born_in_place_and_year():
    assert triples("I was born in Paris in 1990.") == [
        ("user", "birth_place", "Paris", True),
        ("user", "birthday", "1990", True),
    ]


def test_duplicates_in_one_text_are_dropped():
    assert triples("I like tea. I really like tea!") == [("user", "likes", "tea", True)]


# --------------------------------------------------------------------------- fields


def test_span_points_at_the_statement():
    text = "Hi there. Actually, I moved to Berlin last week, and my phone changed to 555-2222."
    facts = compile_facts(text)
    assert [text[f.span[0] : f.span[1]] for f in facts] == [
        "I moved to Berlin last week",
        "my phone changed to 555-2222",
    ]


def test_span_with_object_first():
    text = "Paris is the capital of France."
    assert text[slice(*one(text).span)] == "Paris is the capital of France"


@pytest.mark.parametrize(
    "text, confidence",
    [
        ("I like diet coke", CONF_FIRST_PERSON),
        ("My phone changed to 555-2222", CONF_FIRST_PERSON),
        ("Alice's phone is 555-1111", CONF_THIRD_PERSON),
        ("The widget costs $40", CONF_THIRD_PERSON),
        ("alice's phone is 555-1111", CONF_LOOSE),  # lowercase name: less sure it is a name
        ("We live in Oslo", CONF_LOOSE),
        ("I'm originally from Ohio", CONF_LOOSE),
        ("Paris is the capital of France.", CONF_LOOSE),
        ("My shoe size is 42", CONF_LOOSE),  # predicate unknown to the vocabulary
    ],
)
def test_confidence(text, confidence):
    assert one(text).confidence == confidence


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("I like diet coke", "likes"),
        ("I don't like diet coke anymore", "likes_negated"),
        ("I stopped liking steak", "likes_stopped"),
        ("I hate mushrooms", "dislikes"),
        ("I moved to Berlin", "moved_to"),
        ("My phone changed to 555-2222", "my_x_is"),
        ("Alice's phone is 555-1111", "their_x_is"),
        ("The widget costs $40", "x_costs"),
        ("The capital of France is Paris", "y_of_x_is"),
    ],
)
def test_pattern_names(text, pattern):
    assert one(text).pattern == pattern


def test_predicate_status_reports_vocabulary_match():
    assert one("My phone is 555-1234").predicate_status == "alias"
    assert one("My phone number is 555-1234").predicate_status == "canonical"
    fact = one("My shoe size is 42")
    assert (fact.predicate, fact.predicate_status) == ("shoe_size", "new")


def test_unknown_predicate_is_kept_snake_cased():
    assert triples("My number: 555-3333") == [("user", "number", "555-3333", True)]


def test_subject_default_is_used_for_first_person():
    assert triples("I moved to Berlin", subject_default="Alice Smith") == [("alice smith", "lives_in", "Berlin", True)]
    assert triples("Bob's phone is 555-1111", subject_default="Alice") == [("bob", "phone_number", "555-1111", True)]


def test_custom_vocabulary_is_used():
    vocab = Vocabulary.default().copy()
    vocab.add("shoe_size", aliases=["shoe"], cardinality="one")
    assert triples("My shoe is 42", vocabulary=vocab) == [("user", "shoe_size", "42", True)]
    assert one("My shoe size is 42", vocabulary=vocab).confidence == CONF_FIRST_PERSON


def test_negative_alias_flips_polarity():
    vocab = Vocabulary.default().copy()
    vocab.add("likes", negative_aliases=["pet_peeve"], cardinality="many")
    assert triples("My pet peeve is loud chewing", vocabulary=vocab) == [("user", "likes", "loud chewing", False)]


def test_embed_maps_unknown_predicates():
    def fake_embed(texts):
        import numpy as np

        # every phrase gets the same vector except "cell phone number" ≈ "phone number"
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = (1.0, 0.0) if t in ("phone number", "cell phone number") else (0.0, 1.0)
        return out

    vocab = Vocabulary()
    vocab.add("phone_number", cardinality="one")
    vocab.add("name", cardinality="one")
    fact = one("My cell phone number is 555-1234", vocabulary=vocab, embed=fake_embed)
    assert (fact.predicate, fact.predicate_status) == ("phone_number", "nearest")


def test_to_dict():
    assert one("I like diet coke").to_dict() == {
        "subject": "user",
        "predicate": "likes",
        "object": "diet coke",
        "polarity": True,
        "confidence": CONF_FIRST_PERSON,
        "pattern": "likes",
        "span": [0, 16],
        "predicate_status": "canonical",
    }


def test_objects_keep_user_casing():
    assert one("I like Diet Coke").object == "Diet Coke"
    assert one("my phone is 555-1111.").object == "555-1111"


# --------------------------------------------------------------------------- segmentation helpers


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("I like tea. I like coffee!", ["I like tea.", "I like coffee!"]),
        ("Dr. Smith is here. Bye.", ["Dr. Smith is here.", "Bye."]),
        ("Version 2.3.1 shipped. Good.", ["Version 2.3.1 shipped.", "Good."]),
        ("One\nTwo", ["One", "Two"]),
        ("a; b", ["a;", "b"]),
        ("It costs approx. 5 dollars", ["It costs approx. 5 dollars"]),
        ("", []),
    ],
)
def test_split_sentences(text, sentences):
    assert [text[a:b] for a, b in split_sentences(text)] == sentences


@pytest.mark.parametrize(
    "text, clauses",
    [
        ("I moved to Berlin and my phone changed", ["I moved to Berlin", "my phone changed"]),
        ("I like tea but not coffee", ["I like tea", "not coffee"]),
        ("I like mac and cheese", ["I like mac and cheese"]),
        ("I like tea, I hate coffee", ["I like tea", "I hate coffee"]),
        ("Berlin, Germany", ["Berlin, Germany"]),
    ],
)
def test_split_clauses(text, clauses):
    assert [text[a:b] for a, b in split_clauses(text, 0, len(text))] == clauses


@pytest.mark.parametrize(
    "text",
    [
        "the price of " + "a b " * 3000 + "changed from x",
        "my phone " + "is changed from " * 2000,
        "I like " + "tea, " * 5000,
        "Alice " * 5000 + "'s phone is 5",
        ("word " * 50 + ". ") * 600,
    ],
)
def test_long_inputs_stay_fast(text):
    import time

    started = time.perf_counter()
    compile_facts(text[:32768])
    assert time.perf_counter() - started < 5.0  # no catastrophic backtracking


@pytest.mark.parametrize(
    "text,obj",
    [
        ("My name is Tobias", "Tobias"),
        ("My name is Tom", "Tom"),
        ("I live in Toronto", "Toronto"),
        ("I moved to Tokyo", "Tokyo"),
        ("My manager is Howard", "Howard"),
        ("My favorite food is whatnot pie", "whatnot pie"),
    ],
)
def test_objects_that_start_like_question_words_are_kept(text, obj):
    facts = compile_facts(text)
    assert [f.object for f in facts] == [obj]


@pytest.mark.parametrize(
    "text,name",
    [("Actually, call me Alicia.", "Alicia"), ("Call me Tom", "Tom"), ("Please just call me Mary Ann", "Mary Ann")],
)
def test_call_me_names_the_user(text, name):
    assert [(f.predicate, f.object) for f in compile_facts(text)] == [("name", name)]


@pytest.mark.parametrize("text", ["Please call me when you land", "call me back tomorrow"])
def test_call_me_as_a_request_is_not_a_name(text):
    assert [f for f in compile_facts(text) if f.predicate == "name"] == []

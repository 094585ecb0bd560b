"""Entity mention extraction: names, quoted terms, ids, handles and known aliases — and what is not one."""

from __future__ import annotations

import pytest

from kgmem.ingest.entities import MAX_ENTITIES, extract_entities, resolve

CASES = [
    # capitalised spans
    ("Yesterday Alice from Acme Corp flew to New York.", ["Alice", "Acme Corp", "New York"]),
    ("Alice and Bob went to São Paulo in May.", ["Alice", "Bob", "São Paulo"]),
    ("On Monday I met Bank of America people and Bank of the West folks.", ["Bank of America", "Bank of the West"]),
    ("Black Friday sales start on Friday.", ["Black Friday"]),
    ("Will Smith met Mark Twain's cat.", ["Will Smith", "Mark Twain"]),
    ("Dr. Sarah Chen is a 42-year-old cardiologist at MGH.", ["Dr. Sarah Chen", "MGH"]),
    ("The Beatles played in Hamburg.", ["Beatles", "Hamburg"]),
    ("My manager Dana approved it.", ["Dana"]),
    ("I use iPhone and eBay.", ["iPhone", "eBay"]),
    ("Alice's phone is 555-1111.", ["Alice"]),
    ("We met at Café Müller in Zürich.", ["Café Müller", "Zürich"]),
    ("Moscow is also Москва.", ["Moscow", "Москва"]),
    # ids, codes, versions, hosts
    (
        "The deploy of v2.3.1 to db-primary-02 failed with ERR-4411 (see INC-2031).",
        ["v2.3.1", "db-primary-02", "ERR-4411", "INC-2031"],
    ),
    ("the code is zx9q", ["zx9q"]),
    ("restart api-7f9c on node ip-10-0-3-17", ["api-7f9c", "ip-10-0-3-17"]),
    ("upgrade to python3.11 and COVID-19 rules", ["python3.11", "COVID-19"]),
    # quoted terms
    ('My manager Dana said "Project Phoenix" is late.', ["Dana", "Project Phoenix"]),
    ("I like 'diet coke' and `zx9q`.", ["diet coke", "zx9q"]),
    ("call it \u201cthe blue plan\u201d", ["the blue plan"]),
    # handles, tags, e-mails
    ("ping @bob in #ops-team", ["@bob", "#ops-team"]),
    ("mail alice@example.com today", ["alice@example.com"]),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_extract(text, expected):
    assert extract_entities(text) == expected


NOT_ENTITIES = [
    "I'm vegan. Thanks!",
    "Deploy failed again. We will deploy tomorrow.",
    "Meeting at 10am, 3rd floor, 5GB limit, 100ms latency, 2024-03-01.",
    "Yesterday it rained. Today it is sunny.",
    "On Monday in March we rest.",
    "My phone is 555-2222 and it costs $40.",
    "I like tea.",
    "It's a 5-star, 24/7, 2x faster thing at 10:30am.",
    "Alice's and Bob's",  # apostrophes are not quotes
    "",
]


@pytest.mark.parametrize("text", NOT_ENTITIES[:-2])
def test_no_entities(text):
    assert extract_entities(text) == []


def test_apostrophes_are_not_quotes():
    assert extract_entities("Alice's and Bob's") == ["Alice", "Bob"]


def test_empty_text():
    assert extract_entities("") == []


def test_long_quotes_are_not_entities():
    assert extract_entities('he said "this is a very long quoted sentence here" ok') == []


def test_known_aliases_return_canonical_names():
    known = {"acme": "Acme Corporation", "bobby": "Robert Smith"}
    assert extract_entities("I work at acme now. Acme is great.", known=known) == ["Acme Corporation"]
    assert extract_entities("Talked to bobby and ACME.", known=known) == ["Robert Smith", "Acme Corporation"]


def test_known_alias_wins_over_overlapping_span():
    known = {"acme": "Acme Corporation"}
    assert extract_entities("Acme Corp shipped.", known=known) == ["Acme Corporation"]


def test_known_multiword_alias_and_word_boundaries():
    known = {"new york": "New York City", "al": "Al Gore"}
    assert extract_entities("flying to new   york with Alice", known=known) == ["New York City", "Alice"]
    assert extract_entities("the algorithm is fine", known=known) == []  # "al" only on word boundaries


def test_known_keys_are_normalised():
    known = {"The Acme Corp.": "Acme Corporation", "Zürich": "Zurich HQ"}
    assert extract_entities("Visited ACME CORP in zurich", known=known) == ["Acme Corporation", "Zurich HQ"]


def test_capitalised_name_resolved_through_known():
    assert extract_entities("Globex called.", known={"globex": "Globex Inc"}) == ["Globex Inc"]


def test_dedupe_by_key_keeps_first_seen():
    assert extract_entities("Acme said hi. We love ACME and 'acme'.") == ["Acme"]
    assert extract_entities("The Hague and Hague") == ["Hague"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Talked to Bob.", ["Bob"]),
        ("Deployed v2 to prod. Restarting now.", ["v2"]),
        ("Meeting moved to Friday.", []),
        ("Deploy failed. We will deploy tomorrow.", []),
        ("Fred called.", ["Fred"]),  # short names survive
        ("Reading is lovely. I moved to Reading.", ["Reading"]),  # capitalised mid-sentence elsewhere
        ("Alfred called. Later Alfred left.", ["Alfred"]),
    ],
)
def test_sentence_initial_words(text, expected):
    assert extract_entities(text) == expected


def test_order_is_first_seen():
    assert extract_entities("ERR-4411 hit Alice then @bob") == ["ERR-4411", "Alice", "@bob"]


def test_cap_at_twenty():
    text = " ".join(f"id{i}x" for i in range(30))
    found = extract_entities(text)
    assert len(found) == MAX_ENTITIES == 20
    assert found[0] == "id0x"
    assert len(extract_entities(text, limit=5)) == 5


@pytest.mark.parametrize(
    "names, known, expected",
    [
        (
            ["Acme", "ACME corp", "Bob", "bob"],
            {"acme": "Acme Corporation", "acme corp": "Acme Corporation"},
            [("Acme Corporation", "acme corporation"), ("Bob", "bob")],
        ),
        (["The Acme Corp.", "acme corp"], None, [("The Acme Corp.", "acme corp")]),
        (["", "!!", "Zürich", "Zurich"], {}, [("Zürich", "zurich")]),
        (["bobby"], {"Bobby": "Robert Smith"}, [("Robert Smith", "robert smith")]),
    ],
)
def test_resolve(names, known, expected):
    assert resolve(names, known) == expected


def test_long_text_and_many_known_aliases_stay_fast():
    import time

    known = {f"entity number {i}": f"Entity {i}" for i in range(5000)}
    text = "I met entity number 17 and Acme's CEO. " * 700 + "A " * 5000
    started = time.perf_counter()
    found = extract_entities(text[:32768], known=known)
    assert time.perf_counter() - started < 5.0  # linear; ~0.1 s on a laptop
    assert found[:3] == ["Entity 17", "Acme", "CEO"]


def test_very_long_capitalised_run_is_cut():
    found = extract_entities("Alice " * 3000)
    assert found == ["Alice Alice Alice Alice Alice Alice Alice Alice"]

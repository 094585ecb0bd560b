"""A small tenant's keyword channels ranked by its own statistics (kgmem.query.own_keywords): pure parts."""

from __future__ import annotations

from kgmem.query import lucene
from kgmem.query.own_keywords import Corpus, analyse

ROWS = [
    {"id": "a", "text": "Caroline: I made a blue bowl in pottery class", "context_text": None, "window_text": None},
    {"id": "b", "text": "Melanie: pottery sounds fun, Caroline!", "context_text": "x", "window_text": "y"},
    {"id": "c", "text": "Melanie: we adopted a puppy called Biscuit", "context_text": None, "window_text": None},
    {"id": "d", "text": "error ERR-4411 on the checkout page", "context_text": None, "window_text": None},
]


def test_analyse_like_lucenes_english_analyser():
    assert analyse("Caroline's ERR-4411 errors in the Pottery-classes") == [
        "carolin",
        "err",
        "4411",
        "error",
        "potteri",
        "class",
    ]
    assert analyse(None) == [] and analyse("the and of") == []
    assert "i" not in analyse("I've been vegan since March")  # an apostrophe does not split a word


def test_rank_scores_only_documents_holding_a_term_best_first_ties_by_id():
    c = Corpus.build((4, None), ROWS)
    ranked = c.rank("keyword", lucene.weighted_terms("What did Caroline make in pottery class?"))
    assert [r["id"] for r in ranked] == ["a", "b"]  # c and d hold no term of the question
    assert ranked[0]["score"] > ranked[1]["score"] > 0
    assert [r["id"] for r in c.rank("keyword", [("puppy", 1.0)])] == ["c"]
    assert c.rank("keyword", [("zebra", 1.0)]) == []
    tie = Corpus.build((2, None), [{"id": "z", "text": "kiln"}, {"id": "y", "text": "kiln"}])
    assert [r["id"] for r in tie.rank("keyword", [("kiln", 1.0)])] == ["y", "z"]


def test_a_name_weighs_less_than_a_topic_word_as_in_the_lucene_query():
    c = Corpus.build((4, None), ROWS)
    weighted = lucene.weighted_terms("What did Melanie say about pottery?")
    assert ("Melanie", lucene.NAME_WEIGHT) in weighted
    assert [r["id"] for r in c.rank("keyword", weighted)][0] == "b"  # pottery and Melanie beat Melanie alone


def test_context_channels_read_their_own_text_or_the_memorys():
    c = Corpus.build((4, None), ROWS)
    assert [r["id"] for r in c.rank("context_keyword", [("pottery", 1.0)])] == ["a"]  # b's context is "x"
    assert [r["id"] for r in c.rank("window_keyword", [("y", 1.0)])] == ["b"]
    assert Corpus.build((0, None), []).rank("keyword", [("pottery", 1.0)]) == []


def test_a_tenant_reads_as_itself_only_when_every_memorys_context_is_its_own_text():
    own = [{"id": i, "text": t, "context_text": t, "window_text": t} for i, t in (("a", "kiln"), ("b", "glaze"))]
    assert Corpus.build((2, None), own).as_itself
    assert not Corpus.build((4, None), ROWS).as_itself  # b is read with its neighbour
    unread = [*own[:1], {"id": "c", "text": "clay", "context_text": None, "window_text": None}]
    assert not Corpus.build((2, None), unread).as_itself  # a context not derived yet is not taken for its own


def test_the_ranking_reads_the_tenants_documents_only():
    """The same documents rank the same whatever other corpora exist: statistics are per corpus."""
    mine = Corpus.build((4, None), ROWS)
    before = mine.rank("keyword", lucene.weighted_terms("pottery class with Caroline"))
    Corpus.build((1000, None), [{"id": f"o{i}", "text": "pottery pottery class"} for i in range(1000)])
    assert mine.rank("keyword", lucene.weighted_terms("pottery class with Caroline")) == before


def test_a_code_is_a_phrase_its_parts_in_sequence_as_in_the_lucene_query():
    rows = [
        {"id": "right", "text": "OPS-1187: rotate the database credentials"},
        {"id": "near", "text": "OPS-1178: clean up unused IAM roles"},
        {"id": "apart", "text": "1187 ops were counted"},
    ]
    c = Corpus.build((3, None), rows)
    assert lucene.to_query("OPS-1187") == '"OPS\\-1187"'  # Lucene searches the code as a phrase
    assert [r["id"] for r in c.rank("keyword", lucene.weighted_terms("OPS-1187"))] == ["right"]
    # the code and a word: the word still matches alone
    ranked = [r["id"] for r in c.rank("keyword", lucene.weighted_terms("OPS-1187 roles"))]
    assert ranked == ["right", "near"] or ranked == ["near", "right"]
    assert set(ranked) == {"right", "near"} and "apart" not in ranked

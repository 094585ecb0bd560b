"""User text → a safe Lucene query for the fulltext channel (pure function)."""

from __future__ import annotations

from kgmem.query.lucene import escape, terms, to_query


def test_special_characters_are_escaped_and_never_become_syntax():
    assert escape('a+b-(c)"d*e?f:g\\h/i') == 'a\\+b\\-\\(c\\)\\"d\\*e\\?f\\:g\\\\h\\/i'
    # syntax around words is dropped, operators stay words, inner punctuation is escaped inside a phrase
    assert to_query('title:"x" OR (y) AND z*') == "title x or y and z"
    assert to_query("host:db-1") == '"host\\:db\\-1"'


def test_ids_stay_whole_and_are_searched_as_phrases():
    assert terms("what is ERR-4411 about v2.3.1?") == ["ERR-4411", "about", "v2.3.1"]
    assert to_query("ERR-4411") == '"ERR\\-4411"'


def test_words_written_as_alternatives_are_searched_each_on_its_own():
    # "heating/HVAC" as a phrase would need "heating hvac" side by side: a note "HVAC: Ridgeline Heating" lacks it
    assert terms("phone number of our heating/HVAC guy") == ["phone", "number", "of", "heating", "HVAC", "guy"]
    assert to_query("heating/HVAC") == "heating HVAC"
    # a date, a path of codes or a token with digits stays whole
    assert terms("on 10/14 for a/b2") == ["on", "10/14", "for", "a/b2"]
    assert to_query("10/14") == '"10\\/14"'


def test_question_words_are_dropped_unless_nothing_else_is_left():
    assert to_query("Why did the catalog fail on Friday?") == "the catalog fail on Friday"
    assert to_query("what's the zx9q error") == "the zx9q error"
    assert to_query("why?") == "why"
    assert to_query("   ") is None


def test_pronouns_are_dropped_a_note_that_says_we_is_not_about_the_subject():
    # "We chose Fastly as the CDN" outranked "a 15% discount with the CDN provider" on "we" alone
    assert to_query("what discount did we get from the CDN?") == "discount get from the CDN"
    assert terms("what did we decide last week?") == ["decide", "last", "week"]
    assert to_query("How is my sister doing?") == "sister doing"
    assert to_query("what did she say to them?") == "say to"
    assert to_query("who are we?") == "who are we"  # nothing else left: keep them


def test_words_written_like_names_count_less_but_calendar_words_do_not():
    assert to_query("What book did Caroline recommend?") == "book Caroline^0.3 recommend"
    assert to_query("what happened on Friday in March") == "happened on Friday in March"
    assert to_query("Caroline") == "Caroline"  # a lone term keeps its weight


def test_terms_are_deduplicated_and_capped():
    assert terms("disk disk full full") == ["disk", "full"]
    assert len(terms(" ".join(f"w{i}" for i in range(100)), max_terms=32)) == 32

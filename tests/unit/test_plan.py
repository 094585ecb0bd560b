"""Recall's plan without a database: which statements a question sends, with which parameters and why, and what
each channel still needs once a statement's rows are read (kgmem.query.plan)."""

from __future__ import annotations

import datetime as dt

import pytest

from kgmem.query import plan as pl
from kgmem.query.execute import ask_of
from kgmem.query.filters import Filters
from kgmem.query.question import keys_of
from kgmem.query.registry import CHANNELS, REGISTRY
from kgmem.query.rows import CandidatesRow, ChannelRow, EntityRow, Scored

NOW = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
QUESTION = "What did Priya say about the billing job?"


def ask(stats: pl.Stats | None = None, *, window: bool = False, channels=CHANNELS, text=QUESTION, depth=50):
    filters = Filters("t", start=NOW - dt.timedelta(days=7), end=NOW) if window else Filters("t")
    return ask_of(keys_of(text), filters, tuple(channels), depth, 3, stats or pl.Stats(True))


def hits(n: int, prefix: str = "m") -> tuple[Scored, ...]:
    return tuple(Scored(f"{prefix}{i}", 0.9) for i in range(n))


def candidates_row(statement: pl.Statement, kept: int, fetched: int) -> CandidatesRow:
    row = {"details": [], "entities": [{"key": "priya", "name": "Priya"}], "entity": [{"id": "p", "score": None}]}
    for name in CHANNELS:
        if name != "entity":
            row |= {name: [{"id": f"{name}{i}", "score": 0.9} for i in range(kept)]}
            row |= {f"{name}_fetched": fetched, f"{name}_eligible": kept}
    return CandidatesRow.of(row, statement.channels)


# ---------------------------------------------------------------------------- the first round


def test_without_a_window_one_candidates_call_per_family_the_word_channels_ahead():
    made = pl.plan(ask())
    assert [(s.name, s.channels, s.ahead) for s in made.statements] == [
        ("recall/candidates", ("vector", "context_vector", "wide_vector"), False),
        ("recall/candidates", ("keyword", "entity", "context_keyword", "window_keyword"), True),
    ]
    vectors, words = made.statements
    assert vectors.params["vector"] is pl.VECTOR and vectors.needs_vector
    assert words.params["vector"] is None and not words.needs_vector  # sent while the question is embedded
    assert words.params["lucene"] == keys_of(QUESTION).lucene and "priya" in words.params["key_ngrams"]
    assert vectors.params["vector_fetch"] == words.params["keyword_fetch"] == 130  # nothing learnt: half assumed
    assert words.params["tenant"] == "t" and words.params["start"] is None and words.params["maps"] is False
    assert not made.learnt and not made.settled


def test_the_plan_is_a_function_of_what_is_asked_and_known():
    assert pl.plan(ask()) == pl.plan(ask())
    learnt = pl.Stats(True, {"vector": 0.05, "window_keyword": 0.1})
    assert pl.plan(ask(learnt)) != pl.plan(ask())
    vectors, words = pl.plan(ask(learnt)).statements
    assert vectors.params["vector_fetch"] == 1300 and words.params["keyword_fetch"] == 650


@pytest.mark.parametrize("window", [False, True])
def test_where_every_memory_reads_as_itself_a_context_channel_takes_its_own_channels_ranking(window):
    alone = pl.plan(ask(pl.Stats(True, as_itself=True), window=window))
    run = {c for s in alone.statements for c in s.channels} | set(alone.settled)
    assert run == {"vector", "keyword", "entity"}  # the context channels are not searched
    assert alone.mirrors == {
        "context_vector": "vector",
        "wide_vector": "vector",
        "context_keyword": "keyword",
        "window_keyword": "keyword",
    }
    assert alone.asked() == CHANNELS  # what the recall asked for, in its order
    assert any("take the ranking of vector" in s.why for s in alone.statements)
    full = pl.plan(ask(pl.Stats(True), window=window))  # a tenant with an exchange: every channel runs
    assert not full.mirrors and {c for s in full.statements for c in s.channels} | set(full.settled) == set(CHANNELS)
    # a context channel asked for alone runs its own channel's search under its own name
    only = pl.plan(ask(pl.Stats(True, as_itself=True), channels=("window_keyword",), window=window))
    assert [s.channels for s in only.statements] == [("keyword",)] and only.asked() == ("window_keyword",)


def test_only_the_named_channels_run_and_the_entities_are_matched_only_when_named():
    (only,) = pl.plan(ask(channels=("vector", "keyword"))).statements[1:]
    assert only.channels == ("keyword",) and only.params["key_ngrams"] is None
    (entity,) = pl.plan(ask(channels=("entity",))).statements
    assert entity.channels == ("entity",) and entity.params["key_ngrams"]


def test_a_small_tenants_own_rankings_go_as_far_as_lucene_would_be_asked():
    ranked = [{"id": f"k{i}", "score": 1.0} for i in range(300)]
    stats = pl.Stats(True, small=12, given={"keyword": ranked, "context_keyword": [], "window_keyword": ranked[:5]})
    vectors, words = pl.plan(ask(stats)).statements
    assert len(words.params["given"]["keyword"]) == 130 and words.params["given"]["window_keyword"] == ranked[:5]
    assert vectors.params["vector_search"] == pl.MAX_FETCH  # 2026.x, small: every vector of the tenant scored
    big = pl.Stats(True, given=None)
    assert pl.plan(ask(big)).statements[0].params["vector_search"] == 130


@pytest.mark.parametrize(
    "runs, exact", [(0, True), (pl.REPROBE - 2, True), (pl.REPROBE - 1, False)]
)  # every REPROBE-th decision asks the index again
def test_on_5_26_a_sliver_of_the_index_is_scanned_exactly(runs, exact):
    stats = pl.Stats(False, {"vector": 0.001}, exact_runs=runs)
    made = pl.plan(ask(stats))
    vectors = made.statements[0]
    assert vectors.params["vector_exact"] is exact and made.learnt == (pl.Learnt("exact_turn"),)
    assert vectors.params["vector_fetch"] == (pl.MAX_FETCH if exact else 4000)
    assert not pl.plan(ask(pl.Stats(True, {"vector": 0.001}))).statements[0].params["vector_exact"]  # 2026.x never
    assert not pl.plan(ask(pl.Stats(False, {"vector": 0.5}))).learnt  # not a sliver: nothing weighed


def test_inside_a_window_each_channel_runs_alone_and_the_window_is_counted_first():
    stats = pl.Stats(True, given={"keyword": [{"id": "k", "score": 2.0}], "context_keyword": [], "window_keyword": []})
    made = pl.plan(ask(stats, window=True))
    by = {s.channels[0]: s for s in made.statements}
    assert by["vector"].name == "recall/eligible_count" and by["vector"].params["limit"] == pl.EXACT_LIMIT + 1
    assert by["entity"].name == "recall/entity" and by["entity"].params["start"] == NOW - dt.timedelta(days=7)
    assert by["keyword"].kind == "own" and by["keyword"].params["given"] == [{"id": "k", "score": 2.0}]
    assert by["context_vector"].name == "recall/vector" and by["context_vector"].params["fetch"] == 150
    assert by["context_vector"].params["index"] == REGISTRY["context_vector"].index
    no_terms = pl.plan(ask(window=True, text="?"))  # no keyword terms: the keyword channels find nothing
    assert set(no_terms.settled) == {"keyword", "context_keyword", "window_keyword"}


def test_on_5_26_a_small_window_scans_every_vector_channel_exactly_after_the_count():
    """5.26's vector indexes cannot filter by tenant: a context channel's search over every tenant's vectors
    misses some of a small window's memories (which ones depends on what else the index holds), so inside a
    window the context channels wait for the count and scan their own vectors exactly when it is small."""
    made = pl.plan(ask(pl.Stats(False), window=True))
    by = {s.channels[0]: s for s in made.statements}
    count = by["vector"]
    assert count.name == "recall/eligible_count" and count.channels == ("vector", "context_vector", "wide_vector")
    assert "context_vector" not in by and "wide_vector" not in by  # nothing searched before the count
    small, _ = pl.advance(made.ask, count, 12)
    for name, prop in (
        ("vector", "embedding"),
        ("context_vector", "context_embedding"),
        ("wide_vector", "wide_embedding"),
    ):
        scan = small[name].next
        assert scan is not None and scan.name == "recall/vector_exact" and scan.channels == (name,)
        assert scan.params["property"] == prop and scan.params["start"] == NOW - dt.timedelta(days=7)
    empty, _ = pl.advance(made.ask, count, 0)
    assert all(empty[n].done and empty[n].hits == () for n in count.channels)
    mid, _ = pl.advance(made.ask, count, pl.EXACT_CONTEXT_LIMIT + 1)  # the memory's own vector still scans
    assert mid["vector"].next.name == "recall/vector_exact"
    assert mid["context_vector"].next.name == "recall/vector" and mid["context_vector"].next.params["fetch"] == 150
    filtered = pl.plan(ask(pl.Stats(True), window=True))  # 2026.x: only the memory's own vector is counted
    assert {s.channels for s in filtered.statements if s.kind == "count"} == {("vector",)}


# ---------------------------------------------------------------------------- the next rounds


def test_a_channel_short_of_eligible_candidates_is_widened_then_scanned_exactly():
    a = ask(pl.Stats(False))
    vectors = pl.plan(a).statements[0]
    progress, learnt = pl.advance(a, vectors, candidates_row(vectors, kept=10, fetched=130))
    assert learnt[0] == pl.Learnt("share", "vector", 130, 10)
    widen = progress["vector"].next
    assert widen is not None and widen.name == "recall/vector" and widen.params["fetch"] == 520
    assert progress["vector"].tries == ({"fetch": 130, "fetched": 130, "kept": 10},)
    step, _ = pl.advance(a, widen, ChannelRow(hits(20), fetched=520, eligible=20))
    again = step["vector"].next
    assert again is not None and again.params["fetch"] == 2080
    step, learnt = pl.advance(a, again, ChannelRow(hits(30), fetched=2080, eligible=30))
    last = step["vector"].next
    assert last is not None and last.params["fetch"] == pl.MAX_FETCH
    step, learnt = pl.advance(a, last, ChannelRow(hits(40), fetched=pl.MAX_FETCH, eligible=40))
    exact = step["vector"].next
    assert exact is not None and exact.name == "recall/vector_exact" and learnt[0].channel == "vector"
    step, _ = pl.advance(a, exact, hits(50))
    done = step["vector"]
    assert done.done and len(done.hits) == 50 and len(done.tries) == 5 and done.tries[-1]["exact"]
    assert done.candidates().scores[0] == pytest.approx(0.8)  # Neo4j's (1 + cos) / 2 back to a cosine


def test_an_index_with_nothing_more_to_give_is_not_widened():
    a = ask()
    vectors, words = pl.plan(a).statements
    progress, _ = pl.advance(a, words, candidates_row(words, kept=3, fetched=3))
    assert all(p.done for p in progress.values())
    assert progress["entity"].candidates().detail["entities"] == [{"key": "priya", "name": "Priya"}]
    assert progress["keyword"].candidates().detail["lucene"] == a.lucene


def test_a_short_own_ranking_is_widened_to_all_of_it():
    ranked = [{"id": f"k{i}", "score": 1.0} for i in range(200)]
    a = ask(pl.Stats(True, given={"keyword": ranked, "context_keyword": [], "window_keyword": []}))
    words = pl.plan(a).statements[1]
    progress, learnt = pl.advance(a, words, candidates_row(words, kept=10, fetched=130))
    own = progress["keyword"].next
    assert own is not None and own.kind == "own" and own.params["given"] == ranked and own.params["fetch"] == 200
    assert progress["context_keyword"].done  # its ranking was sent whole
    assert not [x for x in learnt if x.channel == "keyword"]  # an own ranking teaches nothing about the index
    step, _ = pl.advance(a, own, ChannelRow(hits(50), fetched=200, eligible=50))
    assert step["keyword"].done and step["keyword"].candidates().detail["own_statistics"]


@pytest.mark.parametrize(
    "eligible, then",
    [
        (0, None),
        (40, "recall/vector_exact"),
        (pl.EXACT_LIMIT, "recall/vector_exact"),
        (pl.EXACT_LIMIT + 1, "recall/vector"),
    ],
)
def test_a_windows_vector_channel_scans_a_small_window_exactly(eligible, then):
    a = ask(window=True)
    count = next(s for s in pl.plan(a).statements if s.kind == "count")
    progress, _ = pl.advance(a, count, eligible)
    step = progress["vector"]
    assert (step.next.name if step.next else None) == then
    if eligible == 0:
        assert step.done and step.candidates().ids == []


def test_entity_rows_are_read_by_the_registry_not_by_name():
    a = ask(window=True)
    entity = next(s for s in pl.plan(a).statements if s.kind == "entity")
    progress, _ = pl.advance(a, entity, EntityRow(hits(2, "e"), ({"key": "priya", "name": "Priya"},)))
    assert progress["entity"].candidates().ids == ["e0", "e1"] and progress["entity"].candidates().scores[0] == 0.8


# ---------------------------------------------------------------------------- printing


def test_a_statement_prints_as_browser_param_lines_and_needs_the_vector_to_be_sent():
    a = ask(window=True)
    entity = next(s for s in pl.plan(a).statements if s.kind == "entity")
    lines = entity.browser().splitlines()
    assert ":param tenant => 't';" in lines and ":param named_keys => ['priya'];" in lines
    assert ":param start => datetime('2026-02-22T00:00:00+00:00');" in lines
    vectors = pl.plan(ask()).statements[0]
    with pytest.raises(ValueError, match="vector"):
        vectors.bind(None)
    assert vectors.bind([0.5])["vector"] == [0.5]
    assert ":param vector => [0.5];" in vectors.browser([0.5]).splitlines()
    assert vectors.to_dict()["params"]["vector"] == "<the question's vector>"
    assert pl.cypher_literal({"a": "it's", "b": [1, None, True]}) == "{`a`: 'it\\'s', `b`: [1, null, true]}"

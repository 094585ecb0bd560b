"""The read path's pure logic, without a database: fusion, boosts, filters, question keys, fetch sizing, the
store's runtime state, hit selection and judgement (the steps of kgmem.query.recall)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import numpy as np
import pytest

from kgmem.errors import InputError
from kgmem.query import currency
from kgmem.query import plan as pl
from kgmem.query import recall as rc
from kgmem.query.abstain import AbstainPolicy
from kgmem.query.confidence import FEATURES, ConfidenceModel
from kgmem.query.filters import Filters, RankWindow, build_filters, time_use
from kgmem.query.fusion import Fused, boost, rrf
from kgmem.query.question import Question, keys_of, question_keys
from kgmem.query.registry import families
from kgmem.query.rows import CandidateMap, Candidates, HitMap, PoolMap, map_of
from kgmem.query.tenant_stats import Bounded, TenantStats
from kgmem.query.timeparse import parse_time_filter
from kgmem.store.runtime import RuntimeState

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 6, 15, 12, tzinfo=UTC)


# ---------------------------------------------------------------------------- fusion


def test_rrf_sums_reciprocal_ranks_and_breaks_ties_by_best_rank_then_id():
    out = rrf({"a": ["x", "y", "z"], "b": ["y", "x"]}, k=10)
    assert [f.id for f in out] == ["x", "y", "z"]  # x and y tie on score (1/11 + 1/12): x is first somewhere, by id
    assert out[0].score == pytest.approx(1 / 11 + 1 / 12)
    assert out[2].ranks == {"a": 3, "b": None}


def test_rrf_weights_duplicates_and_deleted_rows():
    out = rrf({"a": ["x", None, "x", "y"], "b": ["y"]}, k=0, weights={"b": 0.0})
    assert [f.id for f in out] == ["x", "y"]
    assert out[1].ranks == {"a": 2, "b": 1} and out[1].score == pytest.approx(0.5)
    with pytest.raises(ValueError):
        rrf({}, k=-1)


def test_boost_adds_and_resorts():
    fused = [Fused("a", 0.2, {"v": 1}), Fused("b", 0.1, {"v": 2})]
    assert [f.id for f in boost(fused, {"b": 0.2})] == ["b", "a"]
    assert boost(fused, {}) == fused


def test_fuse_step_uses_the_options_weights():
    found = {
        "vector": Candidates("vector", ["a", "b"], [0.9, 0.8]),
        "entity": Candidates("entity", ["b"], [0.8]),
    }
    fused = rc.fuse(found, rc.RecallOptions(channels=("vector", "entity")))
    assert [f.id for f in fused] == ["a", "b"]  # the entity channel's rank weighs 0 by default
    weighted = rc.fuse(found, rc.RecallOptions(channels=("vector", "entity"), weights=()))
    assert [f.id for f in weighted] == ["b", "a"]


# ---------------------------------------------------------------------------- boosts


def _detail(i, at, mentions=(), text=None):
    return CandidateMap.of({"id": i, "at_ts": [int(at.timestamp()), 0], "mentions": list(mentions), "text": text})


def _text(text):
    return CandidateMap.of({"id": "x", "text": text})


def test_bonuses_share_of_named_entities_and_the_time_window():
    fused = [Fused(i, 0.1, {}) for i in ("a", "b", "c", "gone")]
    details = {
        "a": _detail("a", NOW, ["caroline", "mel"]),
        "b": _detail("b", NOW - dt.timedelta(days=60), ["caroline"]),
        "c": _detail("c", NOW - dt.timedelta(days=60)),
    }
    window = RankWindow(NOW - dt.timedelta(days=7), NOW + dt.timedelta(days=1))
    opts = rc.RecallOptions()
    out = rc.bonuses(fused, details, ["caroline", "mel"], Filters("t", rank_window=window), opts)
    assert out == {"a": pytest.approx(opts.entity_boost + opts.time_boost), "b": pytest.approx(opts.entity_boost / 2)}


def test_a_note_writing_a_named_entity_gets_its_boost_a_chat_turn_naming_someone_does_not():
    # a record's own entities replace extraction: "Marta … the CDN provider" listed as ["Marta"] still says CDN
    fused = [Fused(i, 0.1, {}) for i in ("note", "listed", "turn", "partial", "other")]
    details = {
        "note": _detail("note", NOW, text="Marta negotiated a 15% discount with the CDN provider."),
        "listed": _detail("listed", NOW, ["cdn"], text="We chose Fastly as the CDN."),
        "turn": _detail("turn", NOW, text="Mel: Caroline, the CDN bill came in!"),  # a name in a chat turn
        "partial": _detail("partial", NOW, text="The cdns of Acme-CDN2 and CDNs"),  # not the whole word
        "other": _detail("other", NOW, text="Nothing about it."),
    }
    out = rc.bonuses(fused, details, ["cdn"], Filters("t"), rc.RecallOptions())
    assert out == {"note": pytest.approx(0.2), "listed": pytest.approx(0.2)}
    assert rc.mentioned(details["note"], ["cdn", "marta lopez"]) == {"cdn"}
    assert rc.mentioned(_text("Marta  Lopez's CDN"), ["marta lopez", "cdn", "café"]) == {"marta lopez", "cdn"}


def test_a_candidate_text_is_read_once_whatever_entities_later_questions_ask_for(monkeypatch):
    # recall reads the same candidates question after question, each naming other entities: the text's key is
    # worked out once per text, not once per (text, entities)
    calls = []
    monkeypatch.setattr(rc, "padded_key", lambda text: calls.append(text) or f" {text.lower()} ")
    rc._text_key.cache_clear()
    text = "Replica-8 lagged behind Host-3 after the failover"
    assert rc.mentioned(_text(text), ["replica-8"]) == {"replica-8"}
    assert rc.mentioned(_text(text), ["host-3", "db-1"]) == {"host-3"}
    assert rc.mentioned(_text("Mel: host-3 is down"), ["host-3"]) == set()  # a chat turn: not counted
    assert calls == [text]
    rc._text_key.cache_clear()


def test_a_year_less_month_window_holds_that_month_of_any_year():
    w = RankWindow(None, None, month=8)
    assert w.holds(dt.datetime(2019, 8, 30, tzinfo=UTC)) and not w.holds(dt.datetime(2026, 9, 1, tzinfo=UTC))
    assert not w.holds(None)


def test_boost_keys_are_the_matched_entities_the_question_names():
    q = Question.from_vector("What did Caroline say about checkout?", "What did Caroline say about checkout?", [0.0])
    found = {"entity": Candidates("entity", [], [], {"entities": [{"key": "caroline"}, {"key": "checkout"}]})}
    assert rc.boost_keys(found, q) == ["caroline"]
    assert rc.boost_keys({}, q) == []


# ---------------------------------------------------------------------------- question keys


def test_question_keys_name_like_ngrams_and_the_padded_key():
    key, named = question_keys("What did Caroline's friend Mel Jones say about QX-7741?")
    assert key.startswith(" ") and key.endswith(" ") and " caroline " in key
    assert {"caroline", "mel", "jones", "mel jones", "qx-7741"} <= set(named)
    assert "what" not in named  # the first word is capitalised by position, not as a name


def test_keys_are_worked_out_once_per_question():
    k = keys_of("why did ERR-4411 happen")
    assert k.lucene is not None and '"ERR\\-4411"' in k.lucene
    assert "why" not in k.lucene and "err-4411" in k.ngrams and "did err-4411 happen" in k.ngrams
    assert keys_of("why?").lucene == "why"  # a question of only question words keeps them
    q = Question.from_vector("Where is zx9q?", "Where is zx9q?", np.zeros(3, dtype=np.float32))
    assert q.identifiers == frozenset({"zx9q"}) and q.vector_list == [0.0, 0.0, 0.0]
    again = q.ranked_by("Where is zx9q last week?")
    assert again.vector is q.vector and again.keys.lucene != q.keys.lucene


def test_what_the_question_asks_is_read_once_and_every_reader_takes_it(monkeypatch):
    from kgmem.query import lucene, meaning, timeparse, verdict
    from kgmem.results import Hit

    counted: dict[str, int] = {}

    def counting(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            counted[name] = counted.get(name, 0) + 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    for module, name in (
        (meaning, "asked"),
        (lucene, "weighted_terms"),
        (timeparse, "asks_when_ahead"),
        (currency, "about_the_present"),
    ):
        counting(module, name)
    text = "When does Maya's Lisbon lease end?"
    q = Question.from_vector(text, text, [0.0])
    hits = [Hit("h1", "Maya signed the Lisbon lease.", NOW, 0.1, False, True, {"vector": 1}, similarity=0.6)]
    read = [h.text for h in hits]
    meaning.features(q.asked, read, [[]], read, False)
    assert meaning.decline(q.asked, ["Budget signed off by Priya."]) is not None
    assert verdict.answer_absent(q, read, hits) is not None  # asks when ahead; the hit states no time
    assert verdict.hits_about(q, hits) == read
    assert q.about_the_present and q.about_the_present and q.asks_when_ahead
    assert counted == {"asked": 1, "weighted_terms": 1, "asks_when_ahead": 1, "about_the_present": 1}


# ---------------------------------------------------------------------------- filters and time phrases


def test_build_filters_a_period_phrase_filters_and_leaves_the_rest_to_rank():
    f, text = build_filters("what did we discuss last week", tenant="t", now=NOW)
    assert f.time_use == "filter" and f.start is not None and f.end is not None and f.phrase_window
    assert "last week" not in text
    fallback = f.without_phrase_window()
    assert fallback.start is None and fallback.rank_window is not None and fallback.time_use == "rank-fallback"


def test_build_filters_a_when_question_only_ranks_and_explicit_bounds_stay():
    since = dt.datetime(2026, 1, 1, tzinfo=UTC)
    f, text = build_filters("when did we discuss pricing last week?", tenant="t", now=NOW, since=since)
    assert f.time_use == "rank" and f.start == since and f.rank_window is not None
    assert "last week" in text
    off, _ = build_filters("what did we discuss last week", tenant="t", now=NOW, time_phrases="off")
    assert off.time_phrase is None and off.start is None
    with pytest.raises(InputError):
        build_filters("x", tenant="t", time_phrases="sometimes")


def test_time_use_rule():
    tf = parse_time_filter("in August", NOW)
    assert tf is not None and time_use(tf, "what happened in August") == "rank"
    tf = parse_time_filter("in the last 7 days", NOW)
    assert tf is not None and time_use(tf, "what broke in the last 7 days") == "filter"
    assert time_use(tf, "when did it break in the last 7 days") == "rank"
    assert time_use(tf, "x", mode="rank") == "rank"


def test_filters_params_are_the_rule_parameters():
    p = Filters("t", kinds=("fact",)).params()
    assert p["tenant"] == "t" and p["kinds"] == ["fact"] and p["include_superseded"] is False


# ---------------------------------------------------------------------------- fetch sizing and runtime state


def test_first_fetch_from_the_learnt_share():
    def fetch(share, depth=50):
        return pl.first_fetch(pl.Stats(False, {"vector": share}), "vector", depth)

    assert fetch(None) == 130  # unknown: half assumed
    assert fetch(0.05) == 1300
    assert fetch(0.0) == pl.MAX_FETCH  # never more than the cap
    assert fetch(None, 10) == 50  # at least 50
    assert fetch(1.0) == 65  # every candidate survives: 30 % to spare, no more


def test_each_channel_learns_its_own_share_and_a_family_fetches_what_its_neediest_channel_needs():
    channels = ("vector", "keyword", "entity", "window_keyword")
    shares: dict[str, float | None] = {}
    assert pl.family_fetch(pl.Stats(False, shares), channels, 20) == (52, 52)  # nothing learnt: half assumed
    shares["keyword"] = pl.updated_share(None, 100, 90)
    shares["window_keyword"] = pl.updated_share(None, 100, 5)  # its own index keeps far fewer of the tenant's
    assert shares["keyword"] == pytest.approx(0.9) and shares["window_keyword"] == 0.05
    stats = pl.Stats(False, shares)
    assert pl.family_fetch(stats, channels, 20) == (52, 520)  # the window channel's need sets the fetch
    assert pl.family_fetch(stats, ("vector", "keyword"), 20) == (52, 50)  # not asked: not counted
    stats = pl.Stats(False, {**shares, "context_vector": pl.updated_share(None, 100, 10)})
    assert pl.family_fetch(stats, ("context_vector", "keyword"), 20)[0] == 260
    assert pl.family_fetch(stats, ("keyword",), 20)[0] == 52  # no vector channel: the memory index's own


def test_a_survival_share_averages_and_ignores_empty_fetches():
    assert pl.updated_share(None, 0, 0) is None and pl.updated_share(0.3, 0, 0) == 0.3
    assert pl.updated_share(None, 100, 20) == pytest.approx(0.2)
    assert pl.updated_share(0.2, 100, 60) == pytest.approx(0.4)
    assert pl.updated_share(None, 10, 30) == 1.0  # never more than all


def test_the_channels_run_in_two_families():
    assert families(("vector", "keyword", "entity", "wide_vector", "window_keyword")) == [
        ("vector", "wide_vector"),
        ("keyword", "entity", "window_keyword"),
    ]
    assert families(("keyword",)) == [("keyword",)] and families(("wide_vector",)) == [("wide_vector",)]


def test_known_similarities_are_the_vector_and_entity_channels_cosines_normalised():
    found = {
        "vector": Candidates("vector", ["a", "b"], [0.5, -0.25]),
        "entity": Candidates("entity", ["c", "a", "d"], [0.0, 0.4, None]),
        "wide_vector": Candidates("wide_vector", ["e"], [0.9]),  # another vector: not the memory's own
    }
    assert rc.known_similarities(found, ["a", "b", "c", "d", "e", "f"]) == {"a": 0.75, "b": 0.375, "c": 0.5}
    assert rc.known_similarities(found, ["b"]) == {"b": 0.375} and rc.known_similarities({}, ["a"]) == {}


def test_tenant_stats_are_per_connection_keyed_by_tenant_and_bounded():
    one, two = RuntimeState("one"), RuntimeState("two")
    a, b = one.attached(TenantStats), two.attached(TenantStats)
    assert one.attached(TenantStats) is a and a is not b  # one per connection, made once
    a.set_share("t", "vector", 0.3)
    assert b.share("t", "vector") is None  # another connection: nothing shared
    assert [a.exact_turn("t") for _ in range(3)] == [1, 2, 3] and a.exact_runs("t") == 3
    a.set_share("tt", "vector", 0.2)
    a.reset("t")
    assert a.share("t", "vector") is None and a.exact_turn("t") == 1
    assert a.share("tt", "vector") == 0.2  # another tenant whose name starts alike: kept
    small = TenantStats(limit=2)
    for t in ("x", "y", "z"):
        small.set_share(t, "vector", 0.5)
    assert small.share("x", "vector") is None and len(small.shares) == 2
    with pytest.raises(ValueError):
        a.set_share("t", "vector", 1.5)
    bounded: Bounded[str, int] = Bounded(1)
    bounded.put("a", 1)
    bounded.put("b", 2)
    assert bounded.get("a") is None and bounded.get("b") == 2


def test_the_pool_starts_on_first_use_and_stops_on_close():
    state = RuntimeState(None)
    assert list(state.pool.map(lambda x: x * 2, [1, 2])) == [2, 4]
    state.close()
    assert state._pool is None


# ---------------------------------------------------------------------------- options


def test_options_check_k_and_channels_once():
    with pytest.raises(InputError, match="field 'k'"):
        rc.RecallOptions(k=0)
    with pytest.raises(InputError, match="channels"):
        rc.RecallOptions(channels=("vector", "psychic"))
    assert rc.RecallOptions(channels=("vector", "vector")).channels == ("vector",)
    assert rc.RecallOptions(k=80).fetch_depth == 80


# ---------------------------------------------------------------------------- select and judge


def _rec(i, text, at, *, origin="record", valid_to=None, sim=0.5):
    ts = [int(at.timestamp()), 0]
    return HitMap.of(
        {
            "id": i,
            "text": text,
            "at_ts": ts,
            "kind": "episode",
            "origin": origin,
            "subject": None,
            "predicate": None,
            "object": None,
            "polarity": None,
            "valid_to_ts": None if valid_to is None else [int(valid_to.timestamp()), 0],
            "causes": 0,
            "similarity": (sim + 1) / 2,
            "mentions": [],
        }
    )


def test_the_three_maps_of_a_memory_are_told_apart_by_their_type():
    cand = CandidateMap.of({"id": "a", "text": "t", "at_ts": [0, 0], "origin": "record", "mentions": ["x"]})
    pool = map_of({"id": "a", "text": "t", "names": ["maya"], "topic_similarity": 0.8})
    full = map_of({"id": "a", "text": "t", "kind": "episode", "similarity": 0.9, "superseded_by": [{"id": "b"}]})
    assert type(pool) is PoolMap and type(full) is HitMap
    assert not rc.is_full(cand) and not rc.is_full(pool) and rc.is_full(full)
    assert not rc.has_pool_fields(cand) and rc.has_pool_fields(pool) and rc.has_pool_fields(full)
    assert rc.topic_similarity(cand) is None and rc.topic_similarity(pool) == pytest.approx(0.6)
    assert rc.topic_similarity(full) == pytest.approx(0.8)  # no topic cosine: the question's own
    assert rc.names_of(cand) == ["x"] and rc.names_of(pool) == ["maya"] and rc.names_of(None) == []
    hit = full.hit()
    assert hit.superseded_by == ["b"] and hit.at is None and hit.similarity == pytest.approx(0.8)
    assert cand.at == dt.datetime(1970, 1, 1, tzinfo=UTC)


def test_collapse_shows_a_repeated_sentence_once_as_the_record_and_skips_gone_memories():
    fused = [Fused("f#1", 0.5, {"vector": 1}), Fused("gone", 0.4, {}), Fused("e", 0.3, {"vector": 2})]
    fused.append(Fused("x", 0.2, {"vector": 3}))
    details = {
        "f#1": _rec("f#1", "Maya lives in Lisbon", NOW, origin="compiled"),
        "gone": HitMap.of({"id": "gone", "text": None}),
        "e": _rec("e", "Maya lives in Lisbon ", NOW),
        "x": _rec("x", "Something else", NOW, valid_to=NOW + dt.timedelta(days=1)),
    }
    hits = rc.collapse(fused, details, Filters("t"), rc.RecallOptions(k=2, channels=("vector",)))
    assert [h.id for h in hits] == ["e", "x"]
    assert hits[0].score == 0.5 and hits[0].channels == {"vector": 1}  # the compiled fact's better rank
    assert hits[1].current is False  # superseded at the question's time (now)
    later = rc.collapse(fused, details, Filters("t", at=NOW), rc.RecallOptions(k=2, channels=("vector",)))
    assert later[1].current is True  # as of NOW it still held


def test_collapse_breaks_equal_scores_by_cosine():
    fused = [Fused("a", 0.3, {}), Fused("b", 0.3, {})]
    details = {"a": _rec("a", "A", NOW, sim=0.2), "b": _rec("b", "B", NOW, sim=0.7)}
    assert [h.id for h in rc.collapse(fused, details, Filters("t"), rc.RecallOptions())] == ["b", "a"]


def _model(threshold: float, bias: float) -> ConfidenceModel:
    n = len(FEATURES)
    return ConfidenceModel(FEATURES, (0.0,) * n, (1.0,) * n, (0.0,) * n, bias, threshold, "sha256:x", "test")


def _hits(sims, texts=None):
    from kgmem.results import Hit

    out = []
    for i, s in enumerate(sims):
        out.append(Hit(f"h{i}", (texts or [""] * len(sims))[i], NOW, 0.1, False, True, {"vector": i + 1}, similarity=s))
    return out


def test_judge_lets_the_learned_model_decide_the_answer():
    q = Question.from_vector("q", "q", [0.0])
    got = rc.Gathered({"vector": Candidates("vector", ["h0", "h1"], [0.3, 0.2])}, {}, Filters("t"))
    no = rc.judge(_hits([0.3, 0.2]), q, got, {"h0": 0.1}, [], rc.RecallOptions(), model=_model(0.5, -3.0), where=near())
    assert no.abstained and no.probability is not None and no.probability < 0.5 and "learned" in (no.reason or "")
    hits = _hits([0.3, 0.2])
    yes = rc.judge(hits, q, got, {"h0": 0.1}, [], rc.RecallOptions(), model=_model(0.5, 3.0), where=near())
    assert not yes.abstained and hits[0].confident and not hits[1].confident


def test_judge_counts_a_retirement_by_words_only_when_what_retired_it_is_within_reach(reach_rule):
    """A best hit retired by an inferred link is declined as stale only when the memory that retired it is
    among the candidates the question brought near the top (the ranking's own rule): a newer chat turn about
    something else does not make the answer stale. A slot's version chain always counts."""
    q = Question.from_vector("what kind of writing does Tim do?", "what kind of writing does Tim do?", [0.0])
    edge = {"id": "n1", "confidence": 0.99, "inferred": True, "cue": "switch:currently"}

    def verdict(reach, inferred=True):
        hits = _hits([0.6, 0.2], ["Tim: I've been writing about fantasy novels", "Tim: I write articles"])
        hits[0].retired, hits[0].superseded_by = [{**edge, "inferred": inferred}], ["n1"]
        details = {
            "h0": HitMap.of({"id": "h0", "text": hits[0].text, "superseded_by": [{**edge, "inferred": inferred}]})
        }
        got = rc.Gathered({"vector": Candidates("vector", ["h0", "h1"], [0.6, 0.2])}, details, Filters("t"))
        return rc.judge(hits, q, got, {"h0": 0.6}, [], rc.RecallOptions(), model=_model(0.5, 3.0), where=near(*reach))

    far = verdict(["h0", "h1"])
    assert not far.abstained and far.probability is not None and far.probability > 0.9
    assert far.features["retired"] == 0.0
    close = verdict(["h0", "h1", "n1"])
    assert close.abstained and close.reason == "not confident: the best hit was retired by 'n1'"
    assert close.probability is not None and close.probability < 0.05 and close.features["retired"] == 1.0
    chain = verdict(["h0", "h1"], inferred=False)
    assert chain.abstained and "retired by 'n1'" in (chain.reason or "")


def test_judge_keeps_an_exact_token_decisive_and_abstains_on_nothing():
    q = Question.from_vector("what is zx9q?", "what is zx9q?", [0.0])
    hits = _hits([0.1], ["error zx9q on upload"])
    hits[0].channels = {"keyword": 1}
    got = rc.Gathered({"keyword": Candidates("keyword", ["h0"], [3.0])}, {}, Filters("t"))
    verdict = rc.judge(hits, q, got, {"h0": 0.1}, [], rc.RecallOptions(), model=_model(0.5, -9.0), where=near())
    assert not verdict.abstained and verdict.features["exact_token"] == 1.0
    empty = rc.judge([], q, got, {}, [], rc.RecallOptions(learned=False, policy=AbstainPolicy()), where=near())
    assert empty.abstained and empty.probability is None


def test_the_clock_adds_steps_and_the_total():
    clock = rc.Clock()
    with clock.step("a_ms"):
        pass
    with clock.step("a_ms"):
        pass
    assert set(clock.ms) == {"a_ms"} and clock.total() >= clock.ms["a_ms"]


def test_a_window_with_nothing_eligible_is_ranked_without_it(monkeypatch):
    """gather: the first fetch finds nothing in the phrase's window, so it asks again without the window, with
    the whole question's keys, and says so."""
    calls = []

    def fake_fetch(store, q, filters, opts, ahead=None, version=None):
        calls.append((q.ranking_text, filters.start, ahead))
        empty = not calls[1:]
        ids = [] if empty else ["m"]
        return rc.Gathered({"vector": Candidates("vector", ids, [0.5] * len(ids))}, {}, filters)

    monkeypatch.setattr(rc, "fetch", fake_fetch)
    f, text = build_filters("what did we discuss last week", tenant="t", now=NOW)
    q = Question.from_vector("what did we discuss last week", text, [0.0])
    started = object()  # the plan execute.start began (statistics, own rankings) for the first ranking text
    got = rc.gather(SimpleNamespace(), q, f, rc.RecallOptions(), started)
    # the second fetch ranks another text: a second plan, begun there (nothing started ahead)
    assert calls[0] == (text, f.start, started) and calls[1] == ("what did we discuss last week", None, None)
    assert got.note and "last week" in got.note and got.filters.time_use == "rank-fallback"


def near(*ids: str) -> currency.Standing:
    """The standing of a ranking whose first memories are ``ids`` (the question brought them near the top)."""
    return currency.standing([Fused(i, 1.0 - n / 10, {}) for n, i in enumerate(ids)])


@pytest.fixture
def reach_rule(monkeypatch):
    """Recall without the shipped gate: a link inferred from words counts when its newer memory is among the
    question's first three (what the gate replaces; the gate itself is tested in test_currency_gate.py)."""
    monkeypatch.setattr(currency, "gate_model", lambda: None)


def test_a_rule_link_retires_when_the_question_names_what_the_rule_retires(reach_rule):
    details = {
        "steak": HitMap.of(
            {
                "id": "steak",
                "superseded_by": [
                    {
                        "id": "vegan",
                        "confidence": 0.9,
                        "inferred": True,
                        "by": "rule",
                        "cue": "implies:diet without meat",
                    }
                ],
            }
        ),
        "tea": HitMap.of(
            {"id": "tea", "superseded_by": [{"id": "coffee", "confidence": 0.97, "inferred": True, "by": "model"}]}
        ),
        "home": HitMap.of({"id": "home", "superseded_by": [{"id": "home2", "confidence": 1.0, "inferred": False}]}),
    }
    reach = near("steak", "tea", "home")
    out = rc.retirements(details, ["steak", "tea", "home"], reach, "Do I still like steak?")
    # "went vegan" shares no word with "steak": the implications table stands for a question about meat; a
    # model link needs the question to have brought its newer memory near the top; a version chain always stands
    assert out == {"steak": ["vegan"], "home": ["home2"]}
    # a question that names nothing the implication retires: the rule link waits for the question to reach it
    assert rc.retirements(details, ["steak"], reach, "What do I cook on Sundays?") == {}
    assert rc.retirements(details, ["tea"], near("tea", "coffee")) == {"tea": ["coffee"]}


def test_a_fact_compiled_from_a_retired_memory_is_retired_with_it():
    at = [1767225600, 0]
    details = {
        "steak": CandidateMap.of({"id": "steak", "text": "I love steak", "at_ts": at, "origin": "recorded"}),
        "steak#f1": CandidateMap.of({"id": "steak#f1", "text": "I love steak", "at_ts": at, "origin": "compiled"}),
        "other#f1": CandidateMap.of({"id": "other#f1", "text": "I love tea", "at_ts": at, "origin": "compiled"}),
    }
    out = rc.repeats_of_retired(details, ["steak#f1", "other#f1", "steak"], {"steak": ["vegan"]})
    assert out == {"steak#f1": ["vegan"]}  # else collapse would show the stale sentence at the repeat's place


def test_ordinals_and_clock_times_are_not_codes():
    # "on 8th December" is a date: a memory need not write "8th" for the question to be answered
    from kgmem.query.abstain import identifier_tokens

    assert identifier_tokens("What did Tim read on 8th December, 2023, at 3pm or 10AM?") == set()
    assert identifier_tokens("ERR-4411 on db-1 after v2.4.2, the 5k run, sku 77b") == {
        "err-4411",
        "db-1",
        "v2.4.2",
        "5k",
        "77b",
    }


def test_an_exact_tie_goes_to_the_preferred_channel_before_the_id():
    """Two memories one channel ranks 1st and 2nd and another 2nd and 1st tie exactly (whatever order the
    reciprocal ranks were summed in): the preferred channel's rank decides, not the id."""
    rankings = {"vector": ["b", "a"], "keyword": ["a", "b"], "context_vector": ["b", "a"], "window_keyword": ["a", "b"]}
    assert [f.id for f in rrf(rankings, k=10)] == ["a", "b"]  # no preference: the id
    assert [f.id for f in rrf(rankings, k=10, prefer="vector")] == ["b", "a"]
    assert [f.id for f in boost(rrf(rankings, k=10), {"z": 1.0}, prefer="vector")] == ["b", "a"]

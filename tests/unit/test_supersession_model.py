"""The shipped inferred-supersession model: it loads, reads kgmem's features, knows what it was fitted on and
its held-out figures, and scores a stated change above a mention that changes nothing — plus the pure pair
features it reads."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

from kgmem.derived import supersession as sup
from kgmem.derived.change_cues import cues

ROOT = Path(__file__).resolve().parents[2]
UTC = dt.timezone.utc


def _side(i, text, day, mentions=()):
    return sup.Side(
        i, text, dt.datetime(2026, 1, 1, tzinfo=UTC) + dt.timedelta(days=day), frozenset(mentions), None, cues(text)
    )


def test_the_shipped_model_loads_with_its_data_version_and_no_locomo():
    model = sup.shipped()
    assert model is not None, "kgmem/data/supersession.json is missing: run scripts/fit_supersession.py"
    assert model.features == sup.FEATURES and 0.0 < model.threshold < 1.0
    assert "locomo" not in model.trained_on.lower()  # CC BY-NC data never provides shipped coefficients
    assert model.held_out["summary"]["updates-dev"]["now"][1] > 0  # the held-out figures travel with it


def test_the_data_version_is_the_hash_of_the_training_rows():
    rows = json.loads((ROOT / "bench" / "supersession_training.json").read_text())
    digest = "sha256:" + hashlib.sha256(json.dumps(rows["rows"]).encode()).hexdigest()[:16]
    assert digest == sup.shipped().data_version
    assert rows["features"] == list(sup.FEATURES)


def test_a_stated_change_scores_above_a_mention_that_changes_nothing():
    model = sup.shipped()
    old = _side("o", "Marcus smokes about a pack a day", 0, ["marcus"])
    quit_ = _side("n", "Marcus quit! Hasn't had a cigarette since Feb 1", 120, ["marcus"])
    ask = _side("n", "should Marcus quit smoking? he is thinking about it", 120, ["marcus"])
    yes = sup.decide(model, sup.pair_features(sup.Pair(quit_, old, 0.6)))
    assert yes is not None and yes[0] >= model.threshold
    assert sup.decide(model, sup.pair_features(sup.Pair(ask, old, 0.6))) is None  # a question changes nothing


def test_pair_features_read_both_sides():
    old = _side("o", "my number is 555-1111", 0)
    new = _side("n", "new number: 555-2222", 30)
    f = sup.pair_features(sup.Pair(new, old, 0.7))
    assert set(f) == set(sup.FEATURES) | set(sup.VETOES)
    assert f["new_number"] == 1.0 and f["same_value_kind"] == 1.0 and f["switch"] >= 1
    assert f["log_gap_days"] > 3 and f["other_entity"] == 0.0


def test_a_pair_s_features_depend_on_its_two_memories_only():
    """No feature reads the pair's place among other candidates (that changed with what else had arrived)."""
    a, b, c = (
        _side("a", "I live in Porto", 0),
        _side("b", "I moved to Lisbon", 10),
        _side("c", "moved again, Faro now", 20),
    )
    alone = sup.pair_features(sup.Pair(b, a, 0.8))
    pairs = sup.ranked_pairs({("b", "a"): (b, a, 0.8), ("c", "a"): (c, a, 0.6), ("c", "b"): (c, b, 0.7)})
    assert sup.pair_features(next(p for p in pairs if p.newer.id == "b")) == alone


def test_the_same_statement_about_another_named_entity_retires_nothing():
    acme = _side("a", "Customer Acme's contract renews on March 31 and their discount is 12 %", 0)
    globex = _side("g", "Customer Globex's contract now renews on June 30 and their discount is 5 %", 30)
    f = sup.pair_features(sup.Pair(globex, acme, 0.8))
    assert f["other_entity"] == 1.0
    assert sup.decide(_model(10.0), f) is None  # vetoed whatever the model says
    same = _side("s", "Acme's contract now renews on June 30 and their discount is 5 %", 30)
    assert sup.pair_features(sup.Pair(same, acme, 0.8))["other_entity"] == 0.0
    assert not sup.other_entity("Lukas bought the folding bike", "Teodor rode along the canal to work")


def test_a_product_switch_that_names_the_same_identifier_is_about_one_thing():
    """Each names a product the other does not, but both name the cell line: a switch of method, not a statement
    about another entity; a shared time, plain number or quarter is no identifier."""
    old = "HEK293T transfection, current: Lipofectamine 3000, 1:2 DNA:lipo, media change at 6 h. Doc in the Box folder"
    new = "Group mtg: HEK293T transfection switching to PEI (Polysciences 24765), 3:1 PEI:DNA, media change at 6 h"
    assert not sup.other_entity(new, old)
    assert sup.other_entity(new.replace("HEK293T", "Jurkat"), old)
    acme = "Customer Acme's contract renews in Q3 at 3pm on March 31 and their discount is 12 %"
    globex = "Customer Globex's contract now renews in Q3 at 3pm on June 30 and their discount is 5 %"
    assert sup.other_entity(globex, acme)


def _model(bias: float) -> sup.PairModel:
    """A model that says ``bias`` whatever the pair (all weights zero)."""
    n = len(sup.FEATURES)
    return sup.PairModel(sup.FEATURES, (0.0,) * n, (1.0,) * n, (0.0,) * n, bias, 0.5, "sha256:x", "test", {})


def test_decide_never_links_two_people_a_question_or_a_tentative_statement():
    sure = _model(20.0)  # the model alone would link anything
    linked = sup.decide(sure, {})
    assert linked is not None and linked[1] == "model"
    for veto in ("someone_else", "question", "tentative", "kept_in_clause"):
        assert sup.decide(sure, {veto: 1.0}) is None, veto
    # "ERRATUM: Node 16 is still supported, the notes were wrong": a correction may keep a thing as it was
    assert sup.decide(sure, {"kept_in_clause": 1.0, "correction": 1.0}) is not None


def test_a_chat_turn_speaks_for_its_speaker():
    nate = _side("n", "Nate: Yep, I made it with coconut milk so it's lactose-free now!", 30)
    joanna = _side("j", "Joanna: I'm lactose intolerant, I can't have the milk ones", 0)
    joanna_later = _side("j2", "Joanna: I've switched to oat milk now", 30)
    carmen = _side("c", "Aunt Carmen: Mama quit bingo!! says the new caller is rude", 30)
    dani = _side("d", "Cousin Dani: Mama is at bingo again tonight, every Thursday", 0)
    assert sup.pair_features(sup.Pair(nate, joanna, 0.6))["someone_else"] == 1.0  # two speakers, each of self
    recipe = _side("r", "Nate: No problem, Joanna! Sending you the recipe now!", 30)  # no subject: the speaker's
    assert sup.pair_features(sup.Pair(recipe, joanna, 0.6))["someone_else"] == 1.0
    assert sup.pair_features(sup.Pair(joanna_later, joanna, 0.6))["someone_else"] == 0.0  # one speaker
    assert sup.pair_features(sup.Pair(carmen, dani, 0.6))["someone_else"] == 0.0  # both about Mama
    note = _side("x", "I've switched to oat milk now", 30)
    assert sup.pair_features(sup.Pair(note, joanna, 0.6))["someone_else"] == 0.0  # a note has no speaker


def test_a_dated_report_of_what_happened_is_never_retired_by_words_unless_corrected():
    won = _side("w", "Nate: Hey Joanna! I won my first video game tournament last week - so exciting!", 0)
    again = _side("a", "Nate: Woah, I won an international tournament yesterday! Now I'm able to make a living", 30)
    assert sup.pair_features(sup.Pair(again, won, 0.7))["older_dated_event"] == 1.0
    # a change of its own is no mere report: "moved to Lisbon last month" may be retired by a later move
    moved = _side("m", "I moved to Lisbon last month", 0)
    assert sup.pair_features(sup.Pair(_side("p", "I moved to Porto", 30), moved, 0.7))["older_dated_event"] == 0.0
    # "this week" or "today" reaches up to the memory itself: not a report of before
    for text in ("this week I have a cold", "today I ran 5k", "I run 5k every morning"):
        assert sup.pair_features(sup.Pair(again, _side("t", text, 0), 0.7))["older_dated_event"] == 0.0, text
    for text in ("we adopted a pup three weeks ago", "I made vegan ice cream last Friday"):
        assert sup.pair_features(sup.Pair(again, _side("t", text, 0), 0.7))["older_dated_event"] == 1.0, text
    sure = _model(20.0)
    assert sup.decide(sure, {"older_dated_event": 1.0}) is None
    assert sup.decide(sure, {"older_dated_event": 1.0, "implication": 1.0}) is None  # "went vegan" / that ice cream
    assert sup.decide(sure, {"older_dated_event": 1.0, "correction": 1.0}) is not None  # "sorry, it was Thursday"


def test_rules_link_a_correction_and_an_implication_the_model_misses():
    unsure = _model(-20.0)
    assert sup.decide(unsure, {"correction": 1.0}) is None  # a correction cue alone is not enough
    p, by, rule = sup.decide(unsure, {"correction": 1.0, "negates_older": 1.0})
    assert (by, rule) == ("rule", "correction") and p == sup.RULE_CONFIDENCE
    assert sup.decide(unsure, {"implication": 1.0})[1:] == ("rule", "implication")
    assert sup.decide(unsure, {"implication": 1.0, "temporary": 1.0}) is None  # "vegan for a week"
    assert sup.decide(unsure, {"implication": 1.0, "older_other_person": 1.0}) is None  # "my sister's steak"


def test_the_pass_writes_which_rule_and_cue_linked_a_pair():
    old = _side("steak", "I love a good steak, ribeye medium rare is my go-to", 0)
    vegan = _side("vegan", "I've been vegan since March, feeling great", 120)
    sister = _side("sister", "my sister doesn't like steak anymore, she's vegan now", 120)
    pairs = [sup.Pair(vegan, old, 0.2), sup.Pair(sister, old, 0.6)]
    links = sup.score(pairs, _model(-20.0))  # the model links nothing: what is linked, the rules linked
    assert [(lk["newer"], lk["by"]) for lk in links] == [("vegan", "rule")]
    assert links[0]["cue"].startswith("implies:diet without meat") and links[0]["confidence"] == sup.RULE_CONFIDENCE
    assert [lk["newer"] for lk in sup.score(pairs, sup.shipped())] == ["vegan"]  # someone else's: never


def test_top_k_by_blocks_finds_each_row_s_highest_scores():
    import numpy as np

    rng = np.random.default_rng(7)
    for cols, k in ((5, 2), (600, 8), (9_526, 8), (1_000, 1)):
        scores = rng.random((40, cols), dtype=np.float32)
        scores[:, 3] = -np.inf  # a row's own column, as the pass marks it
        scores[::2, cols - 1] = 2.0  # the best of every other row in the last (maybe short) block
        want = np.sort(np.argpartition(scores, -k, axis=1)[:, -k:], axis=1)
        assert (np.sort(sup.top_k(scores, k), axis=1) == want).all()


# ---------------------------------------------------------------------------- the pass's shortcuts are exact


def _case_pairs() -> list[sup.Pair]:
    """Every (newer, older) pair within each case of kgmem's own update fixtures and updates-dev (where present),
    at a spread of cosines and ranks: stated changes, corrections, implications and mentions that change
    nothing."""
    cases = json.loads((ROOT / "fixtures" / "updates" / "cases.json").read_text())
    dev = ROOT.parent / "shared" / "datasets" / "updates-dev" / "updates-dev.json"
    if dev.exists():
        cases += json.loads(dev.read_text())
    pairs = []
    for case in cases:
        sides = []
        for m in case["memories"]:
            at = dt.datetime.fromisoformat(m["at"].replace("Z", "+00:00"))
            sides.append(sup.Side(m["id"], m["text"], at, frozenset(), None, cues(m["text"])))
        for i, newer in enumerate(sides):
            for j, older in enumerate(sides):
                if newer.at > older.at and newer.cues.changes:
                    cos = 0.35 + 0.6 * ((i * 7 + j * 3) % 10) / 10
                    pairs.append(sup.Pair(newer, older, cos))
    return pairs


def _score_every_pair_in_full(pairs, model):
    links = []
    rows = [sup.pair_features(p) for p in pairs]
    for pair, values, p in zip(pairs, rows, model.probabilities(rows)):
        linked = sup.decide(model, values, probability=p)
        if linked is not None:
            links.append((pair.newer.id, pair.older.id, round(linked[0], 4), linked[1]))
    return sorted(links)


def test_score_skips_only_pairs_that_could_not_be_linked():
    """score() leaves out the costly features of a pair whose cheap ones already rule out a link: the links are
    exactly those of scoring every pair in full, for the shipped model and for one at a lower threshold."""
    pairs = _case_pairs()
    assert len(pairs) >= 40
    shipped = sup.shipped()
    for model in (shipped, sup.PairModel(**{**shipped.__dict__, "threshold": 0.5})):
        full = _score_every_pair_in_full(pairs, model)
        fast = sorted((x["newer"], x["older"], x["confidence"], x["by"]) for x in sup.score(pairs, model))
        assert full and fast == full


def test_reachable_bounds_the_log_odds_from_above():
    """For each pair, the model's probability with the costly features as they are never exceeds what
    reachable() allows: a pair it rules out is below the threshold in full."""
    model = sup.shipped()
    pairs = _case_pairs()
    cheap = [sup._cheap_values(p) for p in pairs]
    reach = model.reachable(cheap, [sup.costly_ceiling(p) for p in pairs])
    full = model.probabilities([sup.pair_features(p) for p in pairs])
    assert any(not r for r in reach)  # it does rule some out
    assert all(r for r, p in zip(reach, full) if p >= model.threshold)


def test_cheap_features_are_the_full_features_cheap_part():
    for pair in _case_pairs()[:60]:
        full = sup.pair_features(pair)
        cheap = sup.cheap_features(pair)
        assert set(cheap) == set(sup.CHEAP) and all(cheap[k] == full[k] for k in cheap)


def test_the_cue_warmer_hands_over_each_text_s_cues_up_to_its_limit():
    texts = ["I quit smoking", "new phone: 555-0199", "still love it", "I quit smoking"]
    with sup.CueWarmer(limit=3) as warm:
        warm.submit(texts[:2])
        warm.submit(texts[2:])
        got = warm.result()
    assert got == {t: cues(t) for t in texts[:3]}


def test_each_cheap_feature_carries_its_own_value():
    """The cheap features are worked out as a list in FEATURES' order: each name must get its own value (a line
    out of place would give a neighbour's)."""
    import math

    old_text, new_text = "Tess says her phone is 555-1111", "I might switch my phone to 555-2222 next week maybe"
    at = dt.datetime(2026, 1, 1, tzinfo=UTC)
    old = sup.Side("o", old_text, at, frozenset(), "s1", cues(old_text))
    new = sup.Side("n", new_text, at + dt.timedelta(days=30), frozenset(), "s1", cues(new_text))
    f = sup.cheap_features(sup.Pair(new, old, 0.6))
    assert list(f) == [n for n in sup.FEATURES if n in sup.CHEAP]
    assert f["cosine"] == f["change_x_cosine"] == 0.6 and f["other_entity"] == 0.0
    assert f["switch"] == 1.0 and f["hypothetical"] == f["tentative"] == 2.0 and f["stop"] == 0.0
    assert f["same_stream"] == 1.0 and f["log_gap_days"] == math.log1p(30)
    assert f["replaced_value"] == f["new_number"] == f["same_value_kind"] == 1.0 and f["older_changes"] == 0.0


def test_a_report_of_an_episode_that_lasted_a_stated_time_retires_nothing():
    """One sentence saying something happened for a stated time is over: another report of the same kind does
    not retire it, nor does it retire a statement, whatever the model says; a correction still may."""
    older = _side("o", "Sofia reported that the gateway failed for 514 minutes", 0)
    newer = _side("n", "Priya reported that the gateway dropped requests for 532 minutes", 3)
    f = sup.pair_features(sup.Pair(newer, older, 0.8))
    assert f["episode"] == 1.0 and sup.decide(_model(10.0), f) is None
    state = _side("s", "The gateway runs on two replicas", 0)
    assert (
        sup.decide(
            _model(10.0), sup.pair_features(sup.Pair(_side("e", "The API was down for 20 minutes", 3), state, 0.6))
        )
        is None
    )
    fixed = _side("c", "Correction: the gateway failed for 415 minutes, not 514", 4)
    assert sup.pair_features(sup.Pair(fixed, older, 0.8))["episode"] == 1.0
    assert sup.decide(_model(10.0), sup.pair_features(sup.Pair(fixed, older, 0.8))) is not None
    for still_open in (
        "The gateway has been down for 2 days",  # a state that goes on
        "The office will be closed for a week",  # a plan
        "Standup moved to 10:00. It ran over for 20 minutes today.",  # several sentences: one may state a change
        "I walk for 30 minutes every day",  # a habit
    ):
        assert not sup.bounded_episode(still_open), still_open
    for over in ("Priya reported that gateway dropped requests for 532 minutes", "We lost power for about 3 hours."):
        assert sup.bounded_episode(over), over


def test_the_speed_corpus_s_incident_reports_retire_none_of_each_other():
    """The synthetic ops corpus (kgmem_bench.corpus) writes many one-sentence reports of the same kind about the
    same services ("Priya reported that gateway dropped requests for 532 minutes"): every pair of them, scored by
    the shipped model and the vetoes as the pass would, is left unlinked."""
    from kgmem_bench.corpus import generate

    reports = [r for r in generate(600).records if r["id"].endswith("-sym")]
    assert len(reports) > 50
    sides = [
        sup.Side(
            r["id"],
            r["text"],
            dt.datetime.fromisoformat(r["at"].replace("Z", "+00:00")),
            sup.own_names(r["text"]),
            None,
            cues(r["text"]),
        )
        for r in reports
    ]
    pairs = [sup.Pair(n, o, 0.85) for n in sides for o in sides if n.at > o.at]
    assert sup.score(pairs, sup.shipped()) == []

"""Pure parts of the ``updates`` bench suite: the first / beats-stale scoring, the --quick case selection, the
as-of filter of the baselines, the aggregation, the dataset lookup and the fixture file's format (no database)."""

from __future__ import annotations

import copy
import json

import pytest

from kgmem_bench.updates import (
    FIXTURE_FILE,
    KINDS,
    NO_CHANGE,
    ROOT,
    _texts_allowed,
    aggregate,
    check_cases,
    eligible,
    load_cases,
    quick_selection,
    score_ranking,
    updates_missing,
    updates_path,
)

# --------------------------------------------------------------------------- score_ranking


def test_current_first_and_above_stale():
    assert score_ranking(["c", "s", "x"], "c", ["s"]) == {"first": True, "beats_stale": True, "rank": 1}


def test_stale_first_fails_both():
    assert score_ranking(["s", "c"], "c", ["s"]) == {"first": False, "beats_stale": False, "rank": 2}


def test_beats_stale_without_being_first():
    # a distractor on top: current is not first, but it is above the stale statement
    assert score_ranking(["x", "c", "s"], "c", ["s"]) == {"first": False, "beats_stale": True, "rank": 2}


def test_absent_stale_counts_as_below():
    assert score_ranking(["c", "x"], "c", ["s1", "s2"]) == {"first": True, "beats_stale": True, "rank": 1}
    assert score_ranking(["x", "c"], "c", ["s1"]) == {"first": False, "beats_stale": True, "rank": 2}


def test_absent_current_fails_both_even_with_stale_absent():
    assert score_ranking(["x", "y"], "c", ["s"]) == {"first": False, "beats_stale": False, "rank": None}
    assert score_ranking([], "c", []) == {"first": False, "beats_stale": False, "rank": None}


def test_one_of_several_stale_above_fails():
    assert score_ranking(["c", "s2", "s1"], "c", ["s1", "s2"])["first"]
    r = score_ranking(["s2", "c", "s1"], "c", ["s1", "s2"])
    assert r == {"first": False, "beats_stale": False, "rank": 2}


def test_no_stale_means_first_is_rank_one():
    assert score_ranking(["c"], "c", [])["first"]
    assert not score_ranking(["x", "c"], "c", [])["first"]
    assert score_ranking(["x", "c"], "c", [])["beats_stale"]


def test_repeated_id_keeps_its_first_position():
    assert score_ranking(["c", "s", "c"], "c", ["s"])["first"]
    assert score_ranking(["s", "c", "s"], "c", ["s"]) == {"first": False, "beats_stale": False, "rank": 2}


def test_tie_with_stale_is_not_a_win():
    # listed first, but with the same score as the stale statement: the order is a tie-break, not a ranking
    r = score_ranking(["c", "s"], "c", ["s"], keys=[0.5, 0.5])
    assert r == {"first": False, "beats_stale": False, "rank": 1}


def test_tie_at_the_top_with_a_distractor_is_not_first_but_beats_stale():
    r = score_ranking(["c", "x", "s"], "c", ["s"], keys=[0.9, 0.9, 0.1])
    assert r == {"first": False, "beats_stale": True, "rank": 1}


def test_strict_keys_win():
    r = score_ranking(["c", "x", "s"], "c", ["s"], keys=[0.9, 0.8, 0.1])
    assert r == {"first": True, "beats_stale": True, "rank": 1}


def test_tuple_keys_break_ties_by_their_second_part():
    # kgmem orders by (fused score, similarity): a tie in score broken by similarity is a real ranking
    assert score_ranking(["c", "s"], "c", ["s"], keys=[(0.5, 0.7), (0.5, 0.6)])["first"]
    assert not score_ranking(["c", "s"], "c", ["s"], keys=[(0.5, 0.6), (0.5, 0.6)])["beats_stale"]


def test_current_listed_in_stale_is_ignored():
    assert score_ranking(["c", "s"], "c", ["c", "s"])["first"]
    assert score_ranking(["c", "s"], "c", ["c", "s"], keys=[1.0, 0.5])["first"]


def test_keys_must_match_the_ranking():
    with pytest.raises(ValueError):
        score_ranking(["c", "s"], "c", ["s"], keys=[1.0])


# --------------------------------------------------------------------------- quick selection


def _cases(kinds):
    return [{"key": f"k{i}", "kind": k, "memories": [], "questions": []} for i, k in enumerate(kinds)]


def test_quick_selection_covers_every_kind_in_file_order():
    kinds = ["a"] * 10 + ["b"] * 10 + ["c"] * 2 + ["d"]
    cases = _cases(kinds)
    chosen = quick_selection(cases, n=8)
    assert len(chosen) == 8
    assert {c["kind"] for c in chosen} == {"a", "b", "c", "d"}
    idx = [int(c["key"][1:]) for c in chosen]
    assert idx == sorted(idx)
    # kinds in turn: a,b,c,d then a,b,c then a
    assert [c["key"] for c in chosen] == ["k0", "k1", "k2", "k10", "k11", "k20", "k21", "k22"]


def test_quick_selection_is_stable_and_capped():
    cases = _cases(["x", "y"] * 20)
    assert quick_selection(cases, n=6) == quick_selection(copy.deepcopy(cases), n=6)
    assert [c["key"] for c in quick_selection(cases, n=5)] == ["k0", "k1", "k2", "k3", "k4"]
    assert len(quick_selection(cases, n=100)) == 40
    assert quick_selection(cases[:3], n=16) == cases[:3]


def test_quick_selection_of_the_fixtures_covers_every_kind():
    cases = load_cases(FIXTURE_FILE)
    chosen = quick_selection(cases)
    assert {c["kind"] for c in chosen} == set(KINDS)
    assert len(chosen) == min(16, len(cases))


# --------------------------------------------------------------------------- the baselines' as-of filter


MEMS = [
    {"id": "a", "text": "", "at": "2023-01-01T00:00:00Z"},
    {"id": "b", "text": "", "at": "2023-06-01T00:00:00Z"},
    {"id": "c", "text": "", "at": "2024-01-01T00:00:00+00:00"},
]


def test_eligible_filters_by_at_inclusive_and_keeps_everything_for_now():
    assert [m["id"] for m in eligible(MEMS, None)] == ["a", "b", "c"]
    assert [m["id"] for m in eligible(MEMS, "2023-06-01T00:00:00Z")] == ["a", "b"]
    assert [m["id"] for m in eligible(MEMS, "2023-05-31T23:59:59Z")] == ["a"]
    assert [m["id"] for m in eligible(MEMS, "2022-01-01T00:00:00Z")] == []


# --------------------------------------------------------------------------- aggregation


def test_aggregate_counts_by_mode_and_kind_with_no_change_apart():
    rows = [
        {"system": "s", "mode": "now", "kind": "reversal", "first": True, "beats_stale": True},
        {"system": "s", "mode": "now", "kind": "reversal", "first": False, "beats_stale": True},
        {"system": "s", "mode": "as-of", "kind": "quantity", "first": False, "beats_stale": False},
        {"system": "s", "mode": "now", "kind": NO_CHANGE, "first": True, "beats_stale": True},
    ]
    agg = aggregate(rows)["s"]
    assert agg["now"]["reversal"] == {"n": 2, "first": 1, "beats_stale": 2}
    assert agg["now"]["all"] == {"n": 2, "first": 1, "beats_stale": 2}  # no_change is not in "all"
    assert agg["as-of"]["all"] == {"n": 1, "first": 0, "beats_stale": 0}
    assert agg["all"]["all"] == {"n": 3, "first": 1, "beats_stale": 2}
    assert agg["now"][NO_CHANGE] == {"n": 1, "first": 1, "beats_stale": 1}


# --------------------------------------------------------------------------- data files


def test_missing_dataset_says_how_to_fix_it(tmp_path):
    table = updates_missing(tmp_path / "nowhere")
    assert table["title"] == "updates-dev: skipped"
    assert "KGMEM_UPDATES" in table["rows"][0][2]
    (tmp_path / "updates-dev.json").write_text("[]")
    assert updates_missing(tmp_path) is None
    assert updates_missing(tmp_path / "updates-dev.json") is None


def test_dataset_path_comes_from_kgmem_updates(monkeypatch, tmp_path):
    monkeypatch.setenv("KGMEM_UPDATES", str(tmp_path))
    assert updates_path() == tmp_path
    monkeypatch.delenv("KGMEM_UPDATES")
    assert updates_path().parts[-3:] == ("shared", "datasets", "updates-dev")


def test_fixture_cases_keep_the_format():
    cases = load_cases(FIXTURE_FILE)
    assert check_cases(cases) == []
    kinds = [c["kind"] for c in cases]
    assert set(kinds) == set(KINDS)
    assert kinds.count(NO_CHANGE) >= 3
    assert any("at" in q for c in cases for q in c["questions"])
    for c in cases:  # listed shuffled: the file order is not the time order
        ats = [m["at"] for m in c["memories"]]
        assert ats != sorted(ats), c["key"]


def test_check_cases_catches_broken_cases():
    good = load_cases(FIXTURE_FILE)[0]
    bad = copy.deepcopy(good)
    bad["questions"][0]["current"] = "nope"
    assert any("not in the case" in p for p in check_cases([bad]))
    bad = copy.deepcopy(good)
    bad["memories"][0]["id"] = "other-1"
    assert any("not <key>-<n>" in p for p in check_cases([bad]))
    bad = copy.deepcopy(good)
    q = bad["questions"][0]
    q["current"], q["stale"] = q["stale"][0], [q["current"]]  # a now-question answered by the older statement
    assert any("not older than current" in p for p in check_cases([bad]))
    bad = copy.deepcopy(good)
    asof = next(q for q in bad["questions"] if "at" in q)
    asof["at"] = "2030-01-01T00:00:00Z"  # after the update that replaced the answer
    assert any("not before the statement that replaced" in p for p in check_cases([bad]))
    bad = copy.deepcopy(good)
    bad["memories"][0]["entities"] = ["x"]
    assert any("want id, text, at" in p for p in check_cases([bad]))


def test_load_cases_rejects_a_non_list(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"key": "x"}))
    with pytest.raises(ValueError):
        load_cases(p)


def test_dev_texts_stay_out_of_an_output_inside_the_repository(tmp_path):
    assert not _texts_allowed(ROOT / "bench" / "results")
    assert _texts_allowed(tmp_path)


def test_supersession_folds_hold_each_case_out_exactly_once():
    from kgmem_bench import supersession_fit as sf

    cases = [f"case-{i}" for i in range(23)]
    folds = sf.split(cases, 5)
    held = [c for _train, test in folds for c in test]
    assert sorted(held) == sorted(cases)  # each case held out once
    assert all(not (train & test) and train | test == set(cases) for train, test in folds)
    assert sf.split(reversed(cases), 5) == folds  # deterministic whatever the order


def test_every_updates_case_is_scored_by_a_model_that_did_not_see_it():
    from kgmem_bench import updates

    cases = [{"key": k} for k in ("rv-bouldering", "vc-arjun-city", "rv-smoking", "not-in-the-rows")]
    models, how = updates.held_out_models(cases)
    assert "refitted" in how
    assert set(models) == {"rv-bouldering", "vc-arjun-city", "rv-smoking"}  # a case with no rows added nothing
    assert len({id(m) for m in models.values()}) >= 2  # different folds, different models


# --------------------------------------------------------------------------- the second development set


def test_second_set_comes_from_kgmem_updates_2(monkeypatch, tmp_path):
    from kgmem_bench.updates import DEV2

    monkeypatch.setenv("KGMEM_UPDATES_2", str(tmp_path))
    monkeypatch.setenv("KGMEM_UPDATES", str(tmp_path / "other"))
    assert updates_path(DEV2) == tmp_path
    table = updates_missing(dataset=DEV2)
    assert table["title"] == "updates-dev-2: skipped"
    assert "KGMEM_UPDATES_2" in table["rows"][0][2] and "updates-dev-2.json" in table["rows"][0][1]
    (tmp_path / "updates-dev-2.json").write_text("[]")
    assert updates_missing(dataset=DEV2) is None
    assert updates_missing() is not None  # the first set is looked for on its own
    monkeypatch.delenv("KGMEM_UPDATES_2")
    assert updates_path(DEV2).parts[-3:] == ("shared", "datasets", "updates-dev-2")


def test_a_set_the_training_rows_never_held_gets_the_shipped_model():
    from kgmem_bench import supersession_fit as sf
    from kgmem_bench import updates

    models, how = updates.held_out_models([{"key": "vc-guest-wifi"}, {"key": "x"}], dataset="no-such-set")
    assert models == {} and "shipped" in how
    # vc-guest-wifi is a key of updates-dev and of updates-dev-2: each set's case is refitted without its own
    # rows (the training rows name the second set's cases with its prefix), never the other set's
    assert sf.case_name("updates-dev-2", "vc-guest-wifi") == "u2-vc-guest-wifi"
    for dataset in ("updates-dev", "updates-dev-2"):
        models, how = updates.held_out_models([{"key": "vc-guest-wifi"}, {"key": "x"}], dataset=dataset)
        assert set(models) == {"vc-guest-wifi"} and "refitted" in how


def test_per_question_keeps_ids_and_outcomes_per_system():
    from kgmem_bench.updates import per_question

    base = {"case": "k", "index": 0, "kind": "reversal", "mode": "now", "current": "k-2"}
    rows = [
        {**base, "system": "kgmem", "first": True, "beats_stale": True, "top": ["k-2", "k-1", "k-3", "k-4"]},
        {**base, "system": "BM25", "first": False, "beats_stale": False, "top": ["k-1"]},
    ]
    q = per_question(rows)["k/0"]
    assert q["first"] == {"kgmem": True, "BM25": False}
    assert q["beats_stale"] == {"kgmem": True, "BM25": False}
    assert q["top"]["kgmem"] == ["k-2", "k-1", "k-3"]
    assert q["current"] == "k-2" and q["mode"] == "now"


def test_quick_selection_groups_by_a_key():
    cases = _cases(["a", "a", "a", "b"])
    cases[2]["tag"] = "rare"
    chosen = quick_selection(cases, n=2, key=lambda c: c.get("tag", c["kind"]))
    assert [c["key"] for c in chosen] == ["k0", "k2"]

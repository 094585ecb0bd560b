"""Pure parts of the ``causes`` bench suite: how a Why result is read, the pass / abstain / chain-in-order
scoring, the aggregation, the --quick selection and the dataset lookup (no database)."""

from __future__ import annotations

import datetime as dt

import pytest

from kgmem.results import Memory, Why
from kgmem_bench.causes import (
    ABSTAIN_GROUP,
    ANSWERABLE_GROUP,
    WHY,
    aggregate,
    causes_missing,
    causes_path,
    chain_recall,
    check_cases,
    in_order,
    question_group,
    quick_selection,
    score_answer,
    why_answer_ids,
)

T = dt.datetime(2025, 3, 11, 9, 20, tzinfo=dt.timezone.utc)


def _why(abstained=False, symptom="s", paths=(), roots=()):
    return Why(
        "why?",
        abstained,
        Memory(symptom, "text", T) if symptom else None,
        [{"id": r, "text": "", "at": T} for r in roots],
        [list(p) for p in paths],
    )


# --------------------------------------------------------------------------- why_answer_ids


def test_abstained_why_answers_nothing():
    assert why_answer_ids(_why(abstained=True, paths=[["s", "c"]], roots=["c"])) is None


def test_why_reads_the_best_path_after_the_symptom_then_other_roots():
    why = _why(paths=[["s", "c1", "c2"], ["s", "r2"]], roots=["c2", "r2"])
    assert why_answer_ids(why) == ["c1", "c2", "r2"]  # nearest cause first, the root once


def test_why_without_causes_but_not_abstained_answers_its_symptom():
    assert why_answer_ids(_why(paths=[], roots=[])) == ["s"]


def test_why_prefers_an_explicit_causes_list():
    class WithCauses(Why):
        def to_dict(self):
            return {**super().to_dict(), "causes": [{"id": "k1"}, {"id": "k2"}]}

    why = WithCauses("why?", False, Memory("s", "t", T), [{"id": "r", "text": "", "at": T}], [["s", "x", "r"]])
    assert why_answer_ids(why) == ["k1", "k2", "x", "r"]  # the causes first, then the path and roots


# --------------------------------------------------------------------------- score_answer


def test_abstain_question_passes_only_on_an_empty_answer():
    assert score_answer(None, "e", [])["pass"]
    assert score_answer([], "e", [])["pass"]
    assert not score_answer(["x"], "e", [])["pass"]  # any memory returned as the cause fails
    assert not score_answer(["e"], "e", [])["pass"]


def test_a_ranked_list_cannot_abstain():
    r = score_answer([], "e", [], can_abstain=False)
    assert not r["pass"] and not r["abstained"]


def test_answerable_question_passes_on_its_cause_first():
    assert score_answer(["c", "e"], "e", ["c"])["pass"]
    assert not score_answer(["x", "c"], "e", ["c"])["pass"]
    assert score_answer(["c2"], "e", ["c1", "c2"])["pass"]  # either stated cause counts


def test_effect_first_fails_unless_it_is_its_own_cause():
    assert not score_answer(["e", "c"], "e", ["c"])["pass"]
    assert score_answer(["e"], "e", ["e"])["pass"]


def test_abstaining_on_an_answerable_question_fails_and_counts():
    r = score_answer(None, "e", ["c"])
    assert not r["pass"] and r["abstained"] and r["answerable"]


def test_hit3_and_effect_found():
    r = score_answer(["x", "y", "c", "e"], "e", ["c"])
    assert r["hit3"] and r["effect_found"] and not r["pass"]
    r = score_answer(["x", "y", "z", "c"], "q", ["c"])
    assert not r["hit3"] and not r["effect_found"]
    assert score_answer(None, "e", ["c"], symptom="e")["effect_found"]  # found as the symptom
    assert not score_answer(["c", "e"], "e", ["c"], read=1, symptom="z")["effect_found"]  # e not read


def test_only_the_first_read_answers_count():
    ids = [f"x{i}" for i in range(10)] + ["c"]
    r = score_answer(ids, "e", ["c"], ["c"], read=10)
    assert r["chain_recall"] == 0.0 and not r["in_order"]


# --------------------------------------------------------------------------- chains


def test_chain_in_order_respects_the_order():
    assert in_order(["a", "b", "c"], ["a", "b", "c"])
    assert in_order(["a", "x", "b", "y", "c"], ["a", "b", "c"])  # others may sit between
    assert not in_order(["b", "a", "c"], ["a", "b", "c"])
    assert not in_order(["c", "b", "a"], ["a", "b", "c"])  # root first is wrong
    assert not in_order(["a", "b"], ["a", "b", "c"])  # every id needed
    assert not in_order(["a", "b", "a", "c"], ["b", "a", "c"])  # a repeated id keeps its first place
    assert not in_order([], [])


def test_chain_recall_is_the_share_in_any_order():
    assert chain_recall(["c", "a"], ["a", "b", "c"]) == pytest.approx(2 / 3)
    assert chain_recall([], ["a"]) == 0.0


def test_score_answer_scores_the_chain_in_order():
    r = score_answer(["a", "b", "c"], "e", ["a"], ["a", "b", "c"])
    assert r["pass"] and r["in_order"] and r["chain_recall"] == 1.0
    r = score_answer(["a", "c", "b"], "e", ["a"], ["a", "b", "c"])
    assert r["pass"] and not r["in_order"] and r["chain_recall"] == 1.0
    assert "in_order" not in score_answer(["a"], "e", ["a"])


# --------------------------------------------------------------------------- groups and aggregation


def test_no_cause_questions_split_into_abstain_and_answerable():
    assert question_group("no_cause", {"cause": []}) == ABSTAIN_GROUP
    assert question_group("no_cause", {"cause": ["x"]}) == ANSWERABLE_GROUP
    assert question_group("chain", {"cause": ["x"]}) == "chain"


def test_aggregate_counts_groups_answerable_and_chains():
    rows = [
        {"system": WHY, "group": "chain", **score_answer(["a", "b"], "e", ["a"], ["a", "b"])},
        {"system": WHY, "group": "chain", **score_answer(["b", "a"], "e", ["a"], ["a", "b"])},
        {"system": WHY, "group": ABSTAIN_GROUP, **score_answer(None, "e", [])},
        {"system": WHY, "group": "same_note", **score_answer(None, "e", ["e"])},
    ]
    agg = aggregate(rows)[WHY]
    assert agg["chain"]["n"] == 2 and agg["chain"]["pass"] == 1
    assert agg["chain"]["chain_n"] == 2 and agg["chain"]["in_order"] == 1 and agg["chain"]["chain_pass"] == 1
    assert agg["answerable"]["n"] == 3 and agg["answerable"]["abstained"] == 1  # the abstain question is apart
    assert agg["all"]["n"] == 4 and agg["all"]["pass"] == 2
    assert agg[ABSTAIN_GROUP]["pass"] == 1


# --------------------------------------------------------------------------- quick selection, data


def _case(key, kind, causes):
    return {"key": key, "kind": kind, "memories": [], "questions": [{"cause": c} for c in causes]}


def test_quick_selection_covers_every_kind_and_both_no_cause_rows():
    cases = [_case(f"n{i}", "no_cause", [[]]) for i in range(5)]
    cases += [_case("n-ans", "no_cause", [[], ["x"]])]
    cases += [_case(f"{k}{i}", k, [["x"]]) for k in ("chain", "same_note", "cause_first") for i in range(4)]
    chosen = quick_selection(cases, n=6)
    assert "n-ans" in [c["key"] for c in chosen]  # the answerable no_cause case, though it comes 6th of its kind
    assert {c["kind"] for c in chosen} == {"no_cause", "chain", "same_note", "cause_first"}
    assert quick_selection(cases, n=6) == chosen


def test_missing_dataset_says_how_to_fix_it(tmp_path, monkeypatch):
    table = causes_missing(tmp_path / "nowhere")
    assert "KGMEM_CAUSES" in table["rows"][0][2] and "skipped" in table["title"]
    (tmp_path / "causes-dev.json").write_text("[]")
    assert causes_missing(tmp_path) is None
    monkeypatch.setenv("KGMEM_CAUSES", str(tmp_path))
    assert causes_path() == tmp_path
    monkeypatch.delenv("KGMEM_CAUSES")
    assert causes_path().parts[-3:] == ("shared", "datasets", "causes-dev")


def test_check_cases_catches_a_chain_not_starting_at_the_cause():
    mem = [{"id": f"k-{i}", "text": "", "at": "2025-01-01T00:00:00Z"} for i in range(1, 4)]
    good = {
        "key": "k",
        "kind": "chain",
        "memories": mem,
        "questions": [{"effect": "k-1", "cause": ["k-2"], "chain": ["k-2", "k-3"]}],
    }
    assert check_cases([good]) == []
    bad = {**good, "questions": [{"effect": "k-1", "cause": ["k-2"], "chain": ["k-3", "k-2"]}]}
    assert any("chain[0]" in p for p in check_cases([bad]))
    bad = {**good, "questions": [{"effect": "k-9", "cause": ["k-2"]}]}
    assert any("not in the case" in p for p in check_cases([bad]))

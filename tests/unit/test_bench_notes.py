"""Pure parts of the ``notes`` bench suite: hit@1 with stale violations, hit@5, MRR, the changes' set P/R/F1,
the AUROC, the macro average, how an AskResult is read, the --quick selection and the dataset lookup (no
database)."""

from __future__ import annotations

import datetime as dt

import pytest

from kgmem.query.ask import AskResult
from kgmem.results import Fact, History, Hit, Memory, Recall, SlotAnswer, Why
from kgmem_bench.notes import (
    TYPES,
    accuracy_cell,
    ask_answer_ids,
    asked_now,
    auroc,
    check_tenants,
    macro,
    memory_of,
    notes_missing,
    notes_path,
    quick_selection,
    score_retrieval,
    set_prf,
)

UTC = dt.timezone.utc


def t(day: int) -> dt.datetime:
    return dt.datetime(2024, 3, day, tzinfo=UTC)


# --------------------------------------------------------------------------- score_retrieval


def test_current_first_with_stale_below_is_a_hit():
    r = score_retrieval(["c", "s"], ["c"], ["s"])
    assert r["hit1"] and r["first_right"] and not r["violation"] and r["rr"] == 1.0 and r["rank"] == 1


def test_stale_ranked_above_current_fails():
    r = score_retrieval(["s", "c"], ["c"], ["s"])
    assert not r["hit1"] and r["violation"] and r["rr"] == 0.5


def test_stale_present_without_any_answer_is_a_violation():
    r = score_retrieval(["x", "s"], ["c"], ["s"])
    assert r["violation"] and not r["hit1"] and r["rr"] == 0.0 and r["rank"] is None


def test_first_right_with_a_later_note_returned_for_as_of_fails():
    times = {"c": t(1), "x": t(20)}
    r = score_retrieval(["c", "x"], ["c"], [], at="2024-03-10T00:00:00Z", times=times)
    assert r["first_right"] and r["violation"] and not r["hit1"]
    r = score_retrieval(["c"], ["c"], [], at="2024-03-10T00:00:00Z", times=times)
    assert r["hit1"]


def test_wrong_first_fails_even_without_stale():
    r = score_retrieval(["x", "c"], ["c"])
    assert not r["hit1"] and not r["first_right"] and r["hit5"] and r["rr"] == 0.5


def test_hit5_needs_every_answer_id_in_the_first_five():
    assert score_retrieval(["a", "x", "y", "z", "b"], ["a", "b"])["hit5"]
    assert not score_retrieval(["a", "x", "y", "z", "w", "b"], ["a", "b"])["hit5"]
    r = score_retrieval(["b", "x", "a"], ["a", "b"])
    assert r["hit1"] and r["rr"] == 1.0  # a multi-id answer: the first answer is one of them


def test_abstained_is_not_answered_and_misses():
    r = score_retrieval(None, ["c"])
    assert not r["answered"] and not r["hit1"] and not r["hit5"] and r["rr"] == 0.0


def test_only_the_first_read_ids_count_and_repeats_keep_their_first_place():
    assert score_retrieval([f"y{i}" for i in range(10)] + ["c"], ["c"], read=10)["rr"] == 0.0
    assert score_retrieval(["c", "s", "c"], ["c"], ["s"])["hit1"]


# --------------------------------------------------------------------------- changes, AUROC, macro


def test_set_prf():
    r = set_prf(["a", "b", "x", "x"], ["a", "b", "c"])
    assert r["p"] == pytest.approx(2 / 3) and r["r"] == pytest.approx(2 / 3) and r["f1"] == pytest.approx(2 / 3)
    assert r["returned"] == 3 and r["tp"] == 2
    assert set_prf([], ["a"]) == {"p": 0.0, "r": 0.0, "f1": 0.0, "returned": 0, "tp": 0}
    assert set_prf(None, ["a"])["f1"] == 0.0
    assert set_prf(["a#f1"], ["a"])["tp"] == 0  # a fact id is not its note


def test_auroc():
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.1], [0.9]) == 0.0
    assert auroc([0.5], [0.5]) == 0.5
    assert auroc([0.9, 0.1], [0.5]) == 0.5
    assert auroc([], [0.1]) is None


def test_accuracy_and_macro_count_an_unanswered_type_as_zero():
    rows = [
        {"type": "fact", "hit1": True},
        {"type": "fact", "hit1": False},
        {"type": "unanswerable", "abstained": True},
        {"type": "changes", "f1": 0.5},
    ]
    assert accuracy_cell(rows, "fact") == 0.5
    assert accuracy_cell(rows, "unanswerable") == 1.0
    assert accuracy_cell(rows, "changes") == 0.5
    assert accuracy_cell(rows, "now") is None
    assert macro(rows) == pytest.approx((0.5 + 1.0 + 0.5) / len(TYPES))


# --------------------------------------------------------------------------- ask_answer_ids


def _hit(id_):
    return Hit(id_, "text", t(1), 0.5, True, True, {})


def _ask(operation, result, intent="recall"):
    return AskResult("q?", intent, 0.9, operation, result)


def _fact(id_, current=True, day=1):
    return Fact(id_, "x", "p", "o", True, "text", t(day), None if current else t(day + 1))


def test_ask_reads_a_recall():
    assert ask_answer_ids(_ask("recall", Recall("q", False, None, [_hit("a"), _hit("b"), _hit("a")]))) == ["a", "b"]
    assert ask_answer_ids(_ask("recall", Recall("q", True, "no", [_hit("a")]))) is None  # it declined


def test_ask_that_answers_nothing():
    assert ask_answer_ids(_ask(None, None, intent="none")) is None
    assert ask_answer_ids(_ask("now", SlotAnswer("x", "p", None, None, None))) is None  # an empty slot


def test_ask_reads_a_slot_as_the_note_the_fact_came_from():
    assert ask_answer_ids(_ask("now", SlotAnswer("x", "p", None, None, _fact("n-3#f1")))) == ["n-3"]
    assert memory_of("n-3#f12") == "n-3" and memory_of("n-3") == "n-3" and memory_of("a#b") == "a#b"


def test_ask_reads_a_history_current_first_then_newest():
    hist = History("x", "p", None, [_fact("n-1#f1", False, 1), _fact("n-5#f1", True, 9), _fact("n-3#f1", False, 5)])
    assert ask_answer_ids(_ask("history", hist)) == ["n-5", "n-3", "n-1"]


def test_ask_reads_a_why_like_why():
    why = Why("q", False, Memory("s", "t", t(1)), [{"id": "r", "text": "", "at": t(1)}], [["s", "c", "r"]])
    assert ask_answer_ids(_ask("why", why, intent="why")) == ["c", "r"]
    why = Why("q", True, Memory("s", "t", t(1)), [], [])
    assert ask_answer_ids(_ask("why", why, intent="why")) is None


# --------------------------------------------------------------------------- selection and data


def _tenant(name, types):
    return {
        "tenant": name,
        "notes": [{"id": f"{name}-1", "text": "", "at": "2024-01-01T00:00:00Z"}],
        "questions": [{"id": f"{name}-q{i}", "type": ty} for i, ty in enumerate(types)],
    }


def test_quick_selection_covers_every_type_stably():
    types = [ty for ty in TYPES for _ in range(3)]
    tenants = [_tenant(n, types) for n in ("a", "b", "c")]
    chosen = quick_selection(tenants, n_tenants=2, per_type=2)
    assert [x["tenant"] for x in chosen] == ["a", "b"]
    for x in chosen:
        assert sorted({q["type"] for q in x["questions"]}) == sorted(TYPES)
        assert len(x["questions"]) == 2 * len(TYPES)
        ids = [int(q["id"].rsplit("q", 1)[1]) for q in x["questions"]]
        assert ids == [i for i in range(len(types)) if i % 3 < 2]  # each type's first two, in file order
    assert quick_selection(tenants, n_tenants=2, per_type=2) == chosen


def test_questions_are_asked_a_day_after_the_last_note():
    notes = [{"at": "2024-05-20T16:50:00Z"}, {"at": "2024-01-08T15:02:00Z"}]
    assert asked_now(notes) == dt.datetime(2024, 5, 21, 16, 50, tzinfo=UTC)


def test_missing_dataset_says_how_to_fix_it(tmp_path, monkeypatch):
    table = notes_missing(tmp_path / "nowhere")
    assert "KGMEM_NOTES" in table["rows"][0][2] and "skipped" in table["title"]
    (tmp_path / "notes-dev.json").write_text("{}")
    assert notes_missing(tmp_path) is None
    monkeypatch.setenv("KGMEM_NOTES", str(tmp_path))
    assert notes_path() == tmp_path
    monkeypatch.delenv("KGMEM_NOTES")
    assert notes_path().parts[-3:] == ("shared", "datasets", "notes-dev")


def test_check_tenants_catches_broken_questions():
    good = _tenant("a", ["fact"])
    good["questions"][0]["answer"] = ["a-1"]
    assert check_tenants([good]) == []
    bad = _tenant("a", ["fact"])
    bad["questions"][0]["answer"] = ["a-9"]
    assert any("not in the tenant" in p for p in check_tenants([bad]))
    bad = _tenant("a", ["as_of"])
    bad["questions"][0]["answer"] = ["a-1"]
    assert any("'at'" in p for p in check_tenants([bad]))
    bad = _tenant("a", ["unanswerable"])
    bad["questions"][0]["answer"] = ["a-1"]
    assert any("empty answer" in p for p in check_tenants([bad]))

"""Pure parts of the LoCoMo ``conversations`` suite: session dates, evidence ids, scoring, loading (no database)."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest

from kgmem_bench.conversations import (
    aggregate,
    load_conversations,
    locomo_missing,
    normalize_evidence,
    parse_session_time,
    query_tokens,
    score,
    turn_text,
    turn_time,
)

UTC = dt.UTC


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1:56 pm on 8 May, 2023", dt.datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:04 am on 1 January, 2022", dt.datetime(2022, 1, 1, 0, 4, tzinfo=UTC)),
        ("12:30 pm on 31 December, 2021", dt.datetime(2021, 12, 31, 12, 30, tzinfo=UTC)),
        ("11:01 am on 17 December, 2022", dt.datetime(2022, 12, 17, 11, 1, tzinfo=UTC)),
        ("7:31 PM on 21 January 2022", dt.datetime(2022, 1, 21, 19, 31, tzinfo=UTC)),
    ],
)
def test_parse_session_time(text, expected):
    assert parse_session_time(text) == expected


@pytest.mark.parametrize("bad", ["", "8 May 2023", "13:56 pm on 8 May, 2023", "1:56 pm on 8 Mayday, 2023"])
def test_parse_session_time_rejects(bad):
    with pytest.raises(ValueError):
        parse_session_time(bad)


def test_turn_time_adds_the_index_in_seconds():
    assert turn_time("1:56 pm on 8 May, 2023", 0) == "2023-05-08T13:56:00Z"
    assert turn_time("1:56 pm on 8 May, 2023", 3) == "2023-05-08T13:56:03Z"
    assert turn_time("11:59 pm on 8 May, 2023", 75) == "2023-05-09T00:00:15Z"


def test_turn_text_with_and_without_caption():
    assert turn_text({"speaker": "Mel", "text": "hi"}) == "Mel: hi"
    assert turn_text({"speaker": "Mel", "text": "look", "blip_caption": "a dog"}) == "Mel: look [image: a dog]"
    assert turn_text({"speaker": "Mel", "text": "look", "blip_caption": ""}) == "Mel: look"


# --------------------------------------------------------------------------- evidence

TURNS = ["D1:1", "D1:2", "D1:3", "D1:5", "D8:6", "D9:17", "D11:26"]


def test_evidence_kept_as_is():
    assert normalize_evidence(["D1:3", "D1:1"], TURNS) == (["D1:3", "D1:1"], [], 0)


def test_evidence_spaces_stripped_and_split():
    assert normalize_evidence([" D1:3 "], TURNS) == (["D1:3"], [], 1)
    assert normalize_evidence(["D8:6; D9:17"], TURNS) == (["D8:6", "D9:17"], [], 1)
    assert normalize_evidence(["D1:1, D1:2"], TURNS) == (["D1:1", "D1:2"], [], 1)


def test_evidence_malformed_repaired():
    assert normalize_evidence(["D:11:26"], TURNS) == (["D11:26"], [], 1)
    assert normalize_evidence(["D1:3:5"], TURNS) == (["D1:3", "D1:5"], [], 1)
    assert normalize_evidence(["D1:03"], TURNS) == (["D1:3"], [], 1)


def test_evidence_not_a_turn_is_dropped_and_counted():
    kept, dropped, repaired = normalize_evidence(["D1:1", "D", "D10:19", "D1:1", 7], TURNS)
    assert kept == ["D1:1"]
    assert dropped == ["D", "D10:19", "7"]
    assert repaired == 0
    assert normalize_evidence([], TURNS) == ([], [], 0)


# --------------------------------------------------------------------------- scoring


def test_score_fractions_and_any():
    ranked = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
    s = score(ranked, ["b", "k"])
    assert s["frac@10"] == 0.5 and s["any@10"] == 1.0 and s["any@5"] == 1.0 and s["first"] == 2
    s = score(ranked, ["f", "z"])
    assert s["frac@10"] == 0.5 and s["any@10"] == 1.0 and s["any@5"] == 0.0 and s["frac@5"] == 0.0
    s = score([], ["a"])
    assert s == {"frac@10": 0.0, "any@10": 0.0, "any@5": 0.0, "frac@5": 0.0, "first": None}
    assert score(ranked, ["a", "a"])["frac@10"] == 1.0  # a duplicated gold id counts once
    with pytest.raises(ValueError):
        score(ranked, [])


def test_aggregate_overall_excludes_adversarial():
    rows = [
        {"category": 1, "frac@10": 1.0, "any@10": 1.0, "any@5": 1.0, "empty": False, "abstained": False},
        {"category": 2, "frac@10": 0.0, "any@10": 0.0, "any@5": 0.0, "empty": True, "abstained": True},
        {"category": 4, "frac@10": 0.5, "any@10": 1.0, "any@5": 1.0, "empty": False, "abstained": True},
        {"category": 5, "frac@10": 0.0, "any@10": 0.0, "any@5": 0.0, "empty": False, "abstained": False},
    ]
    a = aggregate(rows)
    o = a["overall"]
    assert o["n"] == 3 and o["frac@10"] == pytest.approx(0.5) and o["n_adversarial"] == 1
    assert o["empty"] == 1 and o["empty_answerable"] == 1
    assert o["abstained_answerable"] == 2 and o["gold_top5_answerable"] == 2 and o["gold_top5_answered"] == 1
    assert o["adversarial_answered"] == 1
    assert a["by_category"]["adversarial"]["n"] == 1
    assert math.isnan(a["by_category"]["open-domain"]["frac@10"])
    assert (
        "abstained_answerable"
        not in aggregate([{k: v for k, v in r.items() if k != "abstained"} for r in rows])["overall"]
    )


def test_query_tokens_drop_question_and_stop_words():
    assert query_tokens("When did Caroline go to the LGBTQ support group?") == ["caroline", "lgbtq", "support", "group"]
    assert query_tokens("What is it?") == ["what", "is", "it"]  # nothing left: keep all


# --------------------------------------------------------------------------- loading


def _sample():
    return [
        {
            "sample_id": "conv-x",
            "conversation": {
                "speaker_a": "Ann",
                "speaker_b": "Bob",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [
                    {"speaker": "Ann", "dia_id": "D1:1", "text": "hello"},
                    {"speaker": "Bob", "dia_id": "D1:2", "text": "see this", "blip_caption": "a cat"},
                ],
                "session_2_date_time": "9:00 am on 10 May, 2023",
                "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "bye"}],
                "session_3_date_time": "9:00 am on 1 June, 2023",  # a date without a session is ignored
            },
            "qa": [
                {"question": "q1", "answer": "a", "evidence": ["D1:2"], "category": 4},
                {"question": "q2", "adversarial_answer": "a", "evidence": ["D2:1; D9:9", "D"], "category": 5},
                {"question": "q3", "answer": "a", "evidence": [], "category": 1},
            ],
        }
    ]


def test_load_conversations(tmp_path):
    (tmp_path / "locomo5.json").write_text(json.dumps(_sample()))
    assert locomo_missing(tmp_path) is None
    for where in (tmp_path, tmp_path / "locomo5.json"):
        [c] = load_conversations(where)
        assert c["sample_id"] == "conv-x" and c["sessions"] == 2 and c["turn_ids"] == ["D1:1", "D1:2", "D2:1"]
        assert c["records"][1] == {
            "id": "D1:2",
            "text": "Bob: see this [image: a cat]",
            "at": "2023-05-08T13:56:01Z",
            "stream": "conv-x/session_1",
            "entities": ["Bob"],
        }
        assert c["records"][2]["at"] == "2023-05-10T09:00:00Z" and c["records"][2]["stream"] == "conv-x/session_2"
        assert c["last_at"] == "2023-05-10T09:00:00Z" and c["now"] == "2023-05-11T09:00:00Z"
        assert [q["gold"] for q in c["questions"]] == [["D1:2"], ["D2:1"], []]
        assert c["dropped_evidence"] == 2 and c["repaired_evidence"] == 1


def test_missing_dataset_gives_a_skip_table(tmp_path):
    t = locomo_missing(tmp_path / "nowhere")
    assert t["title"].endswith("skipped")
    assert "KGMEM_LOCOMO" in t["rows"][0][2] and "nowhere" in t["rows"][0][1]


def test_confidence_folds_score_held_out_conversations_with_the_shipped_model_and_refits():
    """Synthetic rows whose attribution separates answerable from adversarial: the shipped model and the
    leave-one-out refits rank them apart, every conversation gets a fold, the tables and the plot follow."""
    from kgmem.query import confidence
    from kgmem_bench.conversations import ADVERSARIAL, confidence_folds, confidence_tables

    model = confidence.shipped()
    good = {f: 0.0 for f in confidence.FEATURES} | {"pool_margin": 0.8, "attribution_margin": 0.8, "best_words": 2.5}
    good |= {"coverage": 1.0, "coverage_top3": 1.0, "topic_any": 1.0, "topic_seen": 1.0, "topic_named": 1.0}
    bad = dict(good) | {"pool_margin": -0.8, "attribution_margin": -0.8, "topic_named": 0.0, "topic_other": 1.0}
    rows = []
    for c in ("a", "b", "c"):
        for i in range(20):
            rows.append({"conversation": c, "category": 4, "any@5": 1, "features": good, "index": i})
            rows.append({"conversation": c, "category": ADVERSARIAL, "any@5": 0, "features": bad, "index": 100 + i})
        rows.append({"conversation": c, "category": 4, "any@5": 0, "features": good, "index": 99})  # not labelled
    conf = confidence_folds(rows)
    assert set(conf["folds"]) == set(conf["shipped"]["by_conversation"]) == {"a", "b", "c"}
    assert conf["shipped"]["pooled"]["n_pos"] == 60 and conf["shipped"]["pooled"]["n_neg"] == 60
    assert conf["shipped"]["mean"]["auc"] == 1.0 and conf["mean"]["auc"] == 1.0
    assert conf["shipped"]["pooled"]["answerable_answered"] > conf["shipped"]["pooled"]["adversarial_answered"]
    assert conf["model_features"] == list(model.features) and conf["threshold"] == model.threshold
    assert sum(b["n"] for b in conf["shipped"]["reliability"]) == 120
    tables, plots = confidence_tables(conf)
    assert len(tables) == 2 and len(tables[0]["rows"]) == 3 + 2
    assert plots[0]["file"] == "confidence_reliability.png" and len(plots[0]["x"]) == 10

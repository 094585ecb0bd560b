"""The faces that read the graph fall back to the evidence: ask answers from recall where its operation finds
nothing, an empty slot points to the memory that says it in words, and changes lists what changed in valid
time, from a time or a time phrase."""

from __future__ import annotations

import pytest

from kgmem.errors import InputError

NOTES = [
    {
        "id": "flat",
        "text": "Maya's new flat is on Rua das Flores in Porto, she got the keys in March",
        "at": "2026-03-20",
    },
    {"id": "dog", "text": "Maya adopted a greyhound called Pixel", "at": "2026-02-11"},
    {"id": "gym", "text": "The office gym closes at 9pm on weekdays", "at": "2026-01-05"},
]


def test_ask_answers_from_the_evidence_where_the_slot_is_empty(mg):
    mg.ingest(NOTES, infer_supersession=False)
    slot = mg.now_answer("maya", "lives_in")
    assert slot.value is None  # nothing compiled the flat into a fact
    assert [e["id"] for e in slot.evidence] == ["flat"] and "flat" in (slot.hint or "")
    res = mg.ask("Where does Maya live now?")  # recall alone declines it ("nothing about live")
    assert res.operation == "now" and "'flat' may say it" in (res.note or ""), res.to_dict()
    assert [e["id"] for e in res.to_dict()["result"]["evidence"]] == ["flat"]
    why = mg.ask("Why did Maya get a dog?")  # no cause behind it: recall's answer, said so
    assert why.operation in ("why", "recall")
    if why.operation == "recall":
        assert "best evidence" in (why.note or "") and not why.result.abstained


def test_ask_still_says_nothing_when_recall_has_no_confident_answer(mg):
    mg.ingest(NOTES, infer_supersession=False)
    res = mg.ask("What is Maya's blood type?")
    d = res.to_dict()
    assert res.operation != "recall" or res.result.abstained, d


def test_changes_lists_memories_that_retired_another_in_valid_time_and_reads_phrases(mg):
    mg.ingest(
        [
            {"id": "mgr1", "text": "my manager is Alice Moreau, she runs the data platform team", "at": "2026-01-05"},
            {
                "id": "mgr2",
                "text": "Alice left for another company, Bob Tran runs the team now so I report to him",
                "at": "2026-04-02",
            },
        ]
    )
    rows = mg.changes("2026-03-01")
    notes = [r for r in rows if r["kind"] == "memory"]
    assert [(r["id"], r["previous"]["id"]) for r in notes] == [("mgr2", "mgr1")]
    assert all(r["at"].isoformat() >= "2026-03-01" for r in rows)
    same = mg.changes("March 1", now="2026-06-01")  # a time phrase, read from now
    assert [r["id"] for r in same] == [r["id"] for r in rows]
    assert not [r for r in mg.changes("2026-05-01") if r["kind"] == "memory"]
    with pytest.raises(InputError) as err:
        mg.changes("whenever the moon is blue")
    assert err.value.field == "since" and "April 15" in str(err.value)

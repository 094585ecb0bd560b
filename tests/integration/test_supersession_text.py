"""Supersession inferred from plain text, against the real server: the derived pass writes
(newer)-[:SUPERSEDES {inferred, confidence, by, transform, cue}]->(older), recall ranks what holds now first for
a question about the present and keeps the plain ranking for one about the past, as-of stays right, and the
links follow the lifecycle of every derived artefact (out-of-order arrival, rebuild, forget, a crash re-run)."""

from __future__ import annotations

import pytest

from kgmem.derived import supersession as sup

pytestmark = pytest.mark.generations

STORY = [
    {"id": "smoke", "text": "Marcus smokes about a pack a day, has for years", "at": "2026-01-10"},
    {"id": "run", "text": "Marcus is training for a half marathon in October", "at": "2026-06-01"},
    {"id": "ana", "text": "Marcus's sister Ana loves hiking in the Alps", "at": "2026-06-20"},
    {"id": "cil", "text": "I can't stand cilantro, it tastes like soap to me", "at": "2026-01-05"},
]
QUIT = {"id": "quit", "text": "Marcus quit! Hasn't had a cigarette since Feb 1", "at": "2026-05-03"}
CONTROLS = [
    {"id": "gym", "text": "I go to the climbing gym three times a week", "at": "2026-01-08"},
    {"id": "gym-q", "text": "should I quit the climbing gym? thinking about it", "at": "2026-03-08"},
    {"id": "tea", "text": "I drink green tea every morning", "at": "2026-01-07"},
    {"id": "tea-still", "text": "still drinking green tea every morning, love it", "at": "2026-03-07"},
    {"id": "home", "text": "I live in Porto, near the river", "at": "2026-01-09"},
    {"id": "home-trip", "text": "in Mexico City for a week for work, back next Friday", "at": "2026-03-09"},
]


def _inferred(mg) -> set[tuple[str, str]]:
    out = set()
    for row in mg.store.read("export/edges", tenant=mg.tenant):
        if row["type"] == "SUPERSEDES" and row["props"].get("inferred"):
            out.add((row["from"], row["to"]))
    return out


def test_a_stated_reversal_retires_the_older_memory_and_recall_knows_what_holds_now(mg):
    report = mg.ingest([*STORY, QUIT])
    assert report.edges["inferred_supersedes"] == 1
    assert _inferred(mg) == {("quit", "smoke")}
    edge = next(e for row in mg.lineage("smoke")["memories"] for e in row["edges"])
    assert edge["inferred"] and edge["by"] == "model" and edge["transform"] == sup.TRANSFORM_VERSION
    assert edge["confidence"] >= sup.shipped().threshold and "quit" in edge["cue"]

    now = mg.recall("Is Marcus a smoker these days?", k=4, explain=True)
    assert now.hits[0].id == "quit"
    stale = next(h for h in now.hits if h.id == "smoke")
    assert stale.superseded_by == ["quit"] and stale.current is False and stale.to_dict()["superseded_by"] == ["quit"]
    assert now.explain["currency"]["about_the_present"] and "smoke" in now.explain["currency"]["retired"]

    past = mg.recall("Did Marcus smoke in January?", k=4, explain=True)
    assert not past.explain["currency"]["about_the_present"]
    assert "smoke" in [h.id for h in past.hits[:2]]  # re-ranked only for the present: the past is still found

    then = mg.recall("Is Marcus a smoker?", k=4, at="2026-03-01")
    assert then.hits[0].id == "smoke" and then.hits[0].current  # written after the question's time: no retirement
    assert "quit" not in [h.id for h in then.hits]


def test_statements_that_change_nothing_retire_nothing(mg):
    mg.ingest(CONTROLS)
    assert _inferred(mg) == set()
    assert mg.recall("Where does the user live?", k=3).hits[0].id == "home"
    assert mg.recall("What does the user drink in the morning?", k=3).hits[0].id in ("tea", "tea-still")


def test_an_older_memory_arriving_late_slots_in_as_history(mg):
    mg.ingest([QUIT, *STORY[1:]])
    assert _inferred(mg) == set()
    mg.ingest([STORY[0]])  # the older statement arrives after the newer one was stored
    assert _inferred(mg) == {("quit", "smoke")}
    assert mg.recall("Is Marcus a smoker these days?", k=3).hits[0].id == "quit"


def test_rebuild_recomputes_the_inferred_links_and_keeps_the_explicit_ones(mg):
    facts = [
        {
            "id": "f1",
            "text": "Maya lives in Boston",
            "subject": "maya",
            "predicate": "lives_in",
            "object": "Boston",
            "at": "2026-01-02",
        },
        {
            "id": "f2",
            "text": "Maya lives in Lisbon",
            "subject": "maya",
            "predicate": "lives_in",
            "object": "Lisbon",
            "at": "2026-04-03",
        },
    ]
    mg.ingest([*STORY, QUIT, *facts])
    before = _inferred(mg)
    assert before == {("quit", "smoke")}
    out = mg.rebuild()
    assert out["counts"]["inferred_supersedes"] == 1 and out["identical"], out["differences"]
    assert _inferred(mg) == before
    explicit = {
        (r["from"], r["to"])
        for r in mg.store.read("export/edges", tenant=mg.tenant)
        if r["type"] == "SUPERSEDES" and not r["props"].get("inferred")
    }
    assert ("f2", "f1") in explicit
    removed = mg.store.write("derived/drop_inferred_supersedes", tenant=mg.tenant, ids=None)[0]["removed"]
    assert removed == 1 and ("f2", "f1") in {
        (r["from"], r["to"]) for r in mg.store.read("export/edges", tenant=mg.tenant) if r["type"] == "SUPERSEDES"
    }


def test_forgetting_the_newer_memory_makes_the_older_current_again(mg):
    mg.ingest([*STORY, QUIT])
    mg.forget("quit")
    assert _inferred(mg) == set()
    hit = mg.recall("Is Marcus a smoker these days?", k=3).hits[0]
    assert hit.id == "smoke" and hit.current and hit.superseded_by == []


def test_a_run_killed_before_the_pass_is_completed_by_its_re_run(mg):
    mg.ingest([*STORY, QUIT], infer_supersession=False)  # what a client killed after the write leaves
    assert _inferred(mg) == set()
    assert set(sup.unchecked(mg.store, mg.tenant, ["smoke", "quit"])) == {"smoke", "quit"}
    again = mg.ingest([*STORY, QUIT])
    assert again.unchanged == len(STORY) + 1 and again.edges["inferred_supersedes"] == 1
    assert _inferred(mg) == {("quit", "smoke")} and sup.unchecked(mg.store, mg.tenant, ["smoke", "quit"]) == []
    assert mg.ingest([*STORY, QUIT]).edges["inferred_supersedes"] == 0  # nothing left to do


def test_lineage_of_an_unknown_memory_is_not_found(mg):
    from kgmem.errors import NotFoundError

    with pytest.raises(NotFoundError):
        mg.lineage("nope")

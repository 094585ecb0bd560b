"""What an agent asks of a graph memory beside recall: the memories that mention an entity
(``MemoryGraph.mentions``), a memory's neighbourhood in one read (``neighbourhood``), and forgetting a whole
stream or document (``forget_stream``, through the same propagation as ``forget``). Against the test database."""

from __future__ import annotations

import pytest

from kgmem.errors import InputError, NotFoundError

RECORDS = [
    {"id": "i-root", "text": "Priya merged PR 4412: the reconciler caches invoices", "at": "2026-03-10", "stream": "inc"},
    {
        "id": "i-mid",
        "text": "Worker memory grew 2 GB an hour",
        "at": "2026-03-12",
        "stream": "inc",
        "caused_by": ["i-root"],
        "entities": ["Worker", "reconciler"],
    },
    {"id": "i-crash", "text": "Checkout crashed with OOM kills", "at": "2026-03-13", "stream": "inc"},
    # outside the stream: caused by a memory of it
    {
        "id": "o-post",
        "text": "Postmortem: Priya reverted the reconciler cache",
        "at": "2026-03-20",
        "caused_by": ["i-crash"],
    },
    {"id": "f-1", "text": "Priya lives in Boston", "subject": "priya", "predicate": "lives_in", "object": "Boston",
     "at": "2026-01-02", "stream": "chat"},
    {"id": "f-2", "text": "Priya moved to Lisbon", "subject": "priya", "predicate": "lives_in", "object": "Lisbon",
     "at": "2026-04-03", "stream": "chat"},
]  # fmt: skip


@pytest.fixture
def g(mg):
    report = mg.ingest(RECORDS)
    assert report.errors == [], report.errors
    return mg


def test_mentions_lists_the_memories_naming_an_entity_newest_first(g):
    out = g.mentions("Priya")
    ids = [m.id for m in out.memories]
    assert {"i-root", "o-post", "f-1", "f-2"} <= set(ids), ids
    assert out.key == "priya" and out.name == "Priya" and out.total == len(ids) and out.hint is None
    ats = [m.at for m in out.memories]
    assert ats == sorted(ats, reverse=True), ids
    # the name is compared by its key: case, accents and a leading article do not matter
    assert [m.id for m in g.mentions("  PRIYA ").memories] == ids
    assert "i-mid" in {m.id for m in g.mentions("The Reconciler").memories}
    cut = g.mentions("priya", limit=2)
    assert [m.id for m in cut.memories] == ids[:2] and cut.total == out.total
    d = out.to_dict()
    assert d["memories"][0]["id"] == ids[0] and d["memories"][0]["current"] is True and "at" in d["memories"][0]


def test_mentions_of_an_unknown_entity_is_empty_with_a_hint_and_bad_input_names_the_field(g):
    out = g.mentions("Zanzibar")
    assert out.memories == [] and out.total == 0 and out.name is None
    assert "mentions 'zanzibar'" in out.hint
    for bad, field in (("", "entity"), ("...", "entity"), ("x" * 201, "entity"), (5, "entity")):
        with pytest.raises(InputError) as e:
            g.mentions(bad)
        assert e.value.field == field and e.value.fix, (bad, e.value)
    for limit in (0, 1001, "5", True):
        with pytest.raises(InputError) as e:
            g.mentions("priya", limit=limit)
        assert e.value.field == "limit" and e.value.fix


def test_neighbourhood_reads_causes_effects_supersession_stream_and_entities_at_once(g):
    mid = g.neighbourhood("i-mid").to_dict()
    assert mid["memory"]["id"] == "i-mid" and mid["memory"]["stream"] == "inc"
    assert [(c["id"], c["inferred"], c["confidence"]) for c in mid["causes"]] == [("i-root", False, 1.0)]
    assert mid["previous"]["id"] == "i-root" and mid["next"]["id"] == "i-crash"
    assert {"worker", "reconciler"} <= {e["key"] for e in mid["entities"]}
    assert mid["counts"]["causes"] == 1 and mid["counts"]["entities"] == len(mid["entities"])
    assert mid["part_of"] is None and mid["supersedes"] == [] and mid["superseded_by"] == []

    crash = g.neighbourhood("i-crash").to_dict()
    assert [e["id"] for e in crash["effects"]] == ["o-post"] and crash["next"] is None
    root = g.neighbourhood("i-root").to_dict()
    assert root["previous"] is None and [e["id"] for e in root["effects"]] == ["i-mid"]

    new, old = g.neighbourhood("f-2").to_dict(), g.neighbourhood("f-1").to_dict()
    assert [(s["id"], s["by"], s["inferred"]) for s in new["supersedes"]] == [("f-1", "slot", False)]
    assert [s["id"] for s in old["superseded_by"]] == ["f-2"] and old["memory"]["current"] is False
    assert new["memory"]["at"].startswith("2026-04-03") and new["memory"]["current"] is True


def test_neighbourhood_cuts_each_list_at_the_limit_and_counts_them_all(g):
    g.ingest([{"id": f"e-{i}", "text": f"Effect {i} of the crash", "caused_by": ["i-crash"]} for i in range(4)])
    cut = g.neighbourhood("i-crash", limit=2).to_dict()
    assert len(cut["effects"]) == 2 and cut["counts"]["effects"] == 5
    with pytest.raises(NotFoundError):
        g.neighbourhood("no-such-id")
    for limit in (0, 501, 2.0):
        with pytest.raises(InputError) as e:
            g.neighbourhood("i-crash", limit=limit)
        assert e.value.field == "limit"


def test_a_documents_passages_know_their_document(g):
    text = "# House\n\nThe boiler is serviced every May by Carlos.\n\n## Garden\n\nThe hedge is cut in June.\n"
    doc = g.ingest_document(text, name="house.md").file
    part = g.neighbourhood(doc["id"] + "#p0001").to_dict()
    assert part["part_of"]["id"] == doc["id"] and part["next"]["id"] == doc["id"] + "#p0002"


def test_forget_stream_forgets_every_memory_of_it_as_forget_does(g, store):
    g.ingest([{"id": "c-1", "text": "I moved to Porto last week", "stream": "inc2", "at": "2026-05-01"}])
    out = g.forget_stream("inc")
    assert sorted(out["ids"]) == ["i-crash", "i-mid", "i-root"] and out["stream"] == "inc" and out["document"] is None
    assert set(out["forgotten"]) >= {"i-crash", "i-mid", "i-root"} and out["tombstones"] == 3
    assert store.read("memory/by_ids", tenant=g.tenant, ids=["i-root", "i-mid", "i-crash"]) == []
    # a memory outside the stream stays, and loses the cause the stream gave it
    post = g.neighbourhood("o-post").to_dict()
    assert post["causes"] == [] and post["memory"]["id"] == "o-post"
    # the stream's entities nobody mentions any more are gone; Priya is still mentioned
    assert g.mentions("worker").total == 0 and g.mentions("priya").total > 0
    # other streams are untouched, and the forgotten ones stay forgotten (tombstones)
    assert {m.id for m in g.mentions("priya").memories} >= {"f-1", "f-2", "o-post"}
    again = g.ingest([{"id": "i-root", "text": RECORDS[0]["text"], "at": "2026-03-10", "stream": "inc"}])
    assert again.created == 0 and again.errors, again
    with pytest.raises(NotFoundError) as e:
        g.forget_stream("inc")
    assert e.value.fix


def test_forget_stream_of_a_facts_stream_relinks_the_slot(g):
    g.ingest([{"id": "f-3", "text": "Priya moved to Porto", "subject": "priya", "predicate": "lives_in",
               "object": "Porto", "at": "2026-06-01", "stream": "late"}])  # fmt: skip
    assert g.now("priya", "lives_in").object == "Porto"
    g.forget_stream("late")
    assert g.now("priya", "lives_in").object == "Lisbon"


def test_forget_stream_of_a_document_forgets_the_document_too(g, store):
    text = "# Notes\n\nThe lease ends in June.\n\n## Team\n\nMarcus runs the team.\n"
    doc = g.ingest_document(text, name="notes.md").file
    out = g.forget_stream(doc["id"])
    parts = [doc["id"] + "#p0001", doc["id"] + "#p0002"]
    assert out["document"] == doc["id"] and sorted(out["forgotten"]) == sorted([doc["id"], *parts])
    assert store.read("memory/by_ids", tenant=g.tenant, ids=[doc["id"], *parts]) == []


def test_forget_stream_refuses_an_empty_name_clearly(g, store):
    for bad in ("", "   ", None, 5, "x" * 501):
        with pytest.raises(InputError) as e:
            g.forget_stream(bad)
        assert e.value.field == "stream" and e.value.fix, (bad, e.value)
    assert len(store.read("memory/by_ids", tenant=g.tenant, ids=[r["id"] for r in RECORDS])) == len(RECORDS)

"""The write path against the real Neo4j: version chains, streams, idempotency, bad input, tenants."""

from __future__ import annotations

import json
import random

import pytest

from kgmem.errors import InputError
from kgmem.validate import parse_time

from ..conftest import FIXTURES

# sums of the stored vectors (kgmem/derived/context.py): equal up to float rounding, compared apart
DERIVED_VECTORS = ("context_embedding", "wide_embedding")


def derived_vectors(store, tenant: str) -> dict:
    return {
        r["id"]: [x for k in DERIVED_VECTORS for x in dict(r["props"])[k]]
        for r in store.read("export/memories", tenant=tenant)
    }


def graph_dump(store, tenant: str, *, drop=("recorded_at", "tenant", "content_key", "slot")) -> dict:
    """A tenant's memories and edges, without the fields that depend on ingest time or the tenant name."""
    mems = {}
    for r in store.read("export/memories", tenant=tenant):
        mems[r["id"]] = (
            tuple(sorted(r["labels"])),
            tuple((k, str(v)) for k, v in r["props"] if k not in drop + DERIVED_VECTORS),
        )
    edges = sorted(
        (e["type"], e["from"], e["to"], json.dumps(e["props"], sort_keys=True, default=str))
        for e in store.read("export/edges", tenant=tenant)
    )
    return {"memories": mems, "edges": edges}


def _versions(n=3):
    return [
        {
            "id": f"home-v{i}",
            "text": f"Sam lives in {city}.",
            "at": f"2026-0{i + 1}-01T09:00:00Z",
            "subject": "sam",
            "predicate": "lives_in",
            "object": city,
            "stream": "chat-sam",
        }
        for i, city in enumerate(["Boston", "Berlin", "Lisbon"][:n])
    ]


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_out_of_order_versions_give_the_same_graph(mg, store, other_tenant):
    v0, v1, v2 = _versions()
    in_order = mg.for_tenant(other_tenant)
    for rec in (v0, v1, v2):
        in_order.ingest([rec])
    for rec in (v0, v2, v1):  # v1 arrives late, after v2
        mg.ingest([rec])
    assert graph_dump(store, mg.tenant) == graph_dump(store, other_tenant)
    # and the graph is the right one: v2 current, chain v2 -> v1 -> v0, valid_to = next version's at
    hist = mg.history("sam", "lives_in")
    assert [f.object for f in hist] == ["Boston", "Berlin", "Lisbon"]
    assert [f.current for f in hist] == [False, False, True]
    assert hist[0].valid_to == hist[1].valid_from and hist[1].valid_to == hist[2].valid_from
    edges = {(e["from"], e["to"]) for e in store.read("export/edges", tenant=mg.tenant) if e["type"] == "SUPERSEDES"}
    assert edges == {("home-v1", "home-v0"), ("home-v2", "home-v1")}
    nexts = {(e["from"], e["to"]) for e in store.read("export/edges", tenant=mg.tenant) if e["type"] == "NEXT"}
    assert nexts == {("home-v0", "home-v1"), ("home-v1", "home-v2")}


def test_late_arrival_does_not_become_current(mg):
    v0, v1, v2 = _versions()
    mg.ingest([v0, v2])
    report = mg.ingest([v1])
    assert report.created == 1
    assert mg.now("sam", "lives_in").object == "Lisbon"
    assert mg.as_of("sam", "lives_in", "2026-02-15").object == "Berlin"
    assert mg.as_of("sam", "lives_in", "2025-12-31") is None


def test_shuffled_stream_gets_the_same_next_chain(mg, store, other_tenant):
    recs = [
        {
            "id": f"s{i:02d}",
            "text": f"step {i} of the deploy",
            "at": f"2026-03-01T10:{i:02d}:00Z",
            "stream": "deploy-42",
        }
        for i in range(20)
    ]
    shuffled = recs[:]
    random.Random(7).shuffle(shuffled)
    for i in range(0, 20, 3):  # several batches, out of order
        mg.ingest(shuffled[i : i + 3])
    mg.for_tenant(other_tenant).ingest(recs)
    chain = sorted((e["from"], e["to"]) for e in store.read("export/edges", tenant=mg.tenant) if e["type"] == "NEXT")
    assert chain == [(f"s{i:02d}", f"s{i + 1:02d}") for i in range(19)]
    assert graph_dump(store, mg.tenant) == graph_dump(store, other_tenant)
    mine, theirs = derived_vectors(store, mg.tenant), derived_vectors(store, other_tenant)
    assert mine.keys() == theirs.keys()
    for mem_id in mine:
        assert mine[mem_id] == pytest.approx(theirs[mem_id], abs=1e-6), mem_id


def test_as_of_by_direct_cypher_on_the_supersession_fixture(mg, store):
    report = mg.ingest(FIXTURES / "supersession" / "facts.jsonl")
    assert report.errors == []
    checked = 0
    for line in (FIXTURES / "supersession" / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        if q["op"] != "as_of":
            continue
        ref = mg._slot(q["subject"], q["predicate"], q.get("object"))
        rows = store.read("facts/value_at", tenant=mg.tenant, slot=ref.slot, at=parse_time(q["at"]), known_at=None)
        expect = q["expect"]
        if expect is None:
            assert rows == [], q
        else:
            assert rows and rows[0]["object"].lower() == expect["object"].lower(), (q, rows)
            assert rows[0]["polarity"] == expect.get("polarity", True), (q, rows)
        checked += 1
    assert checked >= 10


def test_alias_predicates_land_on_the_canonical_slot(mg, store):
    mg.ingest(
        [
            {
                "id": "p1",
                "text": "Ana's phone is 555-1111",
                "at": "2026-01-01",
                "subject": "Ana",
                "predicate": "phone",
                "object": "555-1111",
            },
            {
                "id": "p2",
                "text": "Ana's telephone is 555-2222",
                "at": "2026-02-01",
                "subject": "ana",
                "predicate": "Telephone",
                "object": "555-2222",
            },
            {
                "id": "b1",
                "text": "Ana was born in Porto",
                "at": "2026-01-01",
                "subject": "Ana",
                "predicate": "was_born_in",
                "object": "Porto",
            },
        ]
    )
    assert mg.now("Ana", "phone_number").object == "555-2222"
    assert mg.now("ana", "telephone").object == "555-2222"  # questions are normalised the same way
    assert [f.object for f in mg.history("ana", "phone")] == ["555-1111", "555-2222"]
    assert mg.now("ana", "birth_place").object == "Porto"
    preds = {r["id"]: dict(r["props"])["predicate"] for r in store.read("export/memories", tenant=mg.tenant)}
    assert preds["p1"] == preds["p2"] == "phone_number" and preds["b1"] == "birth_place"


def test_reingesting_a_file_changes_nothing(mg, store):
    path = FIXTURES / "causal" / "incidents.jsonl"
    first = mg.ingest(path)
    before = graph_dump(store, mg.tenant, drop=())
    second = mg.ingest(path)
    assert first.created == second.unchanged == first.read
    assert second.created == 0 and second.superseded == 0 and second.linked == 0 and second.errors == []
    assert graph_dump(store, mg.tenant, drop=()) == before


def test_records_without_id_are_idempotent_by_content_key(mg):
    a = mg.ingest([{"text": "The build server is build-07", "at": "2026-01-01"}])
    b = mg.ingest([{"text": "The build server is build-07", "at": "2026-01-01"}])
    c = mg.ingest([{"text": "The build server is build-07", "at": "2026-01-02"}])
    assert (a.created, b.created, b.unchanged, c.created) == (1, 0, 1, 1)


BAD_LINES = [
    ('{"text": "ok", "at": "2026-01-01"', "not valid JSON"),
    ('{"at": "2026-01-01"}', "field 'text'"),
    ('{"text": ""}', "field 'text'"),
    ('{"text": "x", "at": "2026-13-45"}', "field 'at'"),
    ('{"text": "x", "at": 20260101}', "field 'at'"),
    ('{"text": 42}', "field 'text'"),
    ('{"text": "x", "polarity": "no"}', "field 'polarity'"),
    ('{"text": "x", "confidence": 1.5}', "field 'confidence'"),
    ('{"text": "x", "entities": "Bob"}', "field 'entities'"),
    ('{"text": "x", "subject": "a", "predicate": "b"}', "field 'object'"),
    ('{"text": "x", "kind": "rumour"}', "field 'kind'"),
    ('{"text": "x", "txt": "y"}', "did you mean 'text'"),
    ('{"text": "x", "caused_by": ["no-such-id"]}', "unknown id 'no-such-id'"),
    ('["text", "x"]', "expected a JSON object"),
    ('{"text": "' + "x" * 32769 + '"}', "limit is 32768"),
    ('{"text": "x", "at": "9999-12-31T23:00:00-05:00"}', "field 'at': '9999-12-31T23:00:00-05:00' is outside"),
    ('{"text": "x", "at": "0001-01-01T00:30:00+01:00"}', "field 'at': '0001-01-01T00:30:00+01:00' is outside"),
]


@pytest.mark.parametrize("line,message", BAD_LINES, ids=[m for _, m in BAD_LINES])
def test_bad_lines_are_reported_with_line_and_field_and_valid_lines_land(mg, store, tmp_path, line, message):
    path = tmp_path / "in.jsonl"
    path.write_text(
        "\n".join(
            [
                '{"id": "good-1", "text": "first good line", "at": "2026-01-01"}',
                line,
                '{"id": "good-2", "text": "second good line", "at": "2026-01-02"}',
            ]
        )
        + "\n"
    )
    report = mg.ingest(path)
    assert report.read == 3 and report.created == 2
    assert len(report.errors) == 1
    assert report.errors[0]["line"] == 2
    assert message in report.errors[0]["error"]
    ids = {r["id"] for r in store.read("export/memories", tenant=mg.tenant)}
    assert ids == {"good-1", "good-2"}  # nothing of the bad line was written


def test_same_id_with_other_content_is_an_error_and_leaves_the_original(mg):
    mg.ingest([{"id": "x1", "text": "original", "at": "2026-01-01"}])
    report = mg.ingest([{"id": "x1", "text": "changed", "at": "2026-01-01"}])
    assert report.created == 0 and "already holds different content" in report.errors[0]["error"]
    assert mg.get("x1").text == "original"


def test_caused_by_resolves_within_batch_store_and_later_lines_but_never_across_tenants(mg, other_tenant):
    mg.for_tenant(other_tenant).ingest([{"id": "foreign-cause", "text": "a cause in another tenant"}])
    report = mg.ingest(
        [
            {"id": "effect-first", "text": "the effect, listed before its cause", "caused_by": ["cause-later"]},
            {"id": "cause-later", "text": "the cause, listed after", "caused_by": []},
            {"id": "cross", "text": "tries to point into another tenant", "caused_by": ["foreign-cause"]},
        ],
        batch_size=1,
    )
    assert report.created == 2 and report.edges["caused_by"] == 1
    assert [e["line"] for e in report.errors] == [3]
    assert "unknown id 'foreign-cause'" in report.errors[0]["error"]


def test_the_input_is_streamed_a_window_at_a_time(mg, store):
    """The reader is lazy: the windows read before the input fails are written (each batch committed), and the
    rest of the input is never read (issue 46: the whole input was read before the first write)."""
    from kgmem.ingest.pipeline import WINDOW_BATCHES

    batch = 5
    window = batch * WINDOW_BATCHES
    pulled: list[int] = []

    def records():
        for i in range(4 * window):
            if i == 2 * window + 3:
                raise RuntimeError("the source broke")
            pulled.append(i)
            yield {"id": f"s{i}", "text": f"streamed note {i} about the harbour office"}

    with pytest.raises(RuntimeError, match="the source broke"):
        mg.ingest(records(), batch_size=batch, infer_causes=False, infer_supersession=False)
    assert {r["id"] for r in store.read("export/memories", tenant=mg.tenant)} == {f"s{i}" for i in range(2 * window)}
    assert max(pulled) == 2 * window + 2
    # the same input again, whole: the windows written are unchanged, the rest lands
    report = mg.ingest(
        ({"id": f"s{i}", "text": f"streamed note {i} about the harbour office"} for i in range(3 * window)),
        batch_size=batch,
    )
    assert (report.unchanged, report.created, report.errors) == (2 * window, window, [])


def test_a_cause_later_in_a_streamed_input_is_waited_for_and_one_that_never_comes_is_an_error(mg, store):
    from kgmem.ingest.pipeline import WINDOW_BATCHES

    window = WINDOW_BATCHES  # batch_size 1
    records = [{"id": f"n{i}", "text": f"filler note {i} on the depot"} for i in range(3 * window)]
    records[1] = {"id": "effect", "text": "the effect, two windows before its cause", "caused_by": ["cause"]}
    records[2] = {"id": "orphan", "text": "its cause never comes", "caused_by": ["nowhere"]}
    records[3] = {"id": "chained", "text": "caused by the waiting effect", "caused_by": ["effect"]}
    records[2 * window + 1] = {"id": "cause", "text": "the cause, in the third window"}
    records[2 * window + 2] = {"id": "n5", "text": "filler note 5 on the depot"}  # a repeat across windows
    records[2 * window + 3] = {"id": "n6", "text": "other content under a used id"}
    report = mg.ingest(iter(records), batch_size=1, infer_causes=False, infer_supersession=False)
    assert [e["line"] for e in report.errors] == [3, 2 * window + 4]
    assert "unknown id 'nowhere'" in report.errors[0]["error"]
    assert "already holds different content" in report.errors[1]["error"]
    assert report.created == 3 * window - 3 and report.unchanged == 1
    links = {(e["from"], e["to"]) for e in store.read("export/edges", tenant=mg.tenant) if e["type"] == "CAUSED_BY"}
    assert links == {("effect", "cause"), ("chained", "effect")}


def test_polarity_flips_on_a_multi_valued_slot_are_versions_of_one_slot(mg):
    mg.ingest(
        [
            {"text": "I like steak", "at": "2026-01-01", "user": "kim"},
            {"text": "I like sushi", "at": "2026-01-02", "user": "kim"},
            {"text": "I stopped liking steak", "at": "2026-02-01", "user": "kim"},
            {"text": "I like steak again", "at": "2026-03-01", "user": "kim"},
        ]
    )
    hist = mg.history("kim", "likes", "steak")
    assert [f.polarity for f in hist] == [True, False, True]
    assert mg.now("kim", "likes", "steak").polarity is True
    assert mg.as_of("kim", "likes", "2026-02-15", "steak").polarity is False
    assert mg.now("kim", "likes", "sushi").polarity is True  # another object: its own slot, untouched


def test_compiled_facts_retire_their_episode_from_current_recall(mg):
    mg.ingest(
        [
            {"id": "e1", "text": "I like diet coke", "at": "2026-01-05", "user": "kim"},
            {"id": "e2", "text": "I don't like diet coke anymore", "at": "2026-05-03", "user": "kim"},
        ]
    )
    assert mg.now("kim", "likes", "diet coke").polarity is False
    assert mg.get("e1").current is False and mg.get("e2").current is True
    current = mg.recall("does kim like diet coke?", k=5)
    assert "e1" not in [h.id for h in current.hits]
    everything = mg.recall("does kim like diet coke?", k=5, include_superseded=True)
    assert "e1" in [h.id for h in everything.hits]


def test_entities_resolve_to_one_node_per_tenant(mg, store, other_tenant):
    mg.ingest(
        [
            {"text": "Met the Acme Corp team", "entities": ["Acme Corp"]},
            {"text": "acme corp. sent the invoice", "entities": ["acme corp."]},
            {"text": "ACME CORP renewed", "entities": ["ACME CORP"]},
        ]
    )
    mg.for_tenant(other_tenant).ingest([{"text": "Acme Corp in the other tenant", "entities": ["Acme Corp"]}])
    ents = store.read("export/entities", tenant=mg.tenant)
    assert [e["key"] for e in ents] == ["acme corp"]
    assert len(store.read("export/entities", tenant=other_tenant)) == 1
    mentions = [e for e in store.read("export/edges", tenant=mg.tenant) if e["type"] == "MENTIONS"]
    assert len(mentions) == 3


def test_every_entity_a_record_names_is_linked_and_too_many_is_an_error_for_its_line(mg, store):
    from kgmem.validate import MAX_ENTITIES

    names = [f"Service {i}" for i in range(MAX_ENTITIES)]
    report = mg.ingest(
        [
            {"id": "all", "text": "The services restarted", "entities": names},
            {"id": "many", "text": "Everything restarted", "entities": [f"Host {i}" for i in range(1000)]},
        ]
    )
    assert report.created == 1 and [e["line"] for e in report.errors] == [2]
    assert f"a memory links at most {MAX_ENTITIES}" in report.errors[0]["error"]
    mentions = [e for e in store.read("export/edges", tenant=mg.tenant) if e["type"] == "MENTIONS"]
    assert len(mentions) == MAX_ENTITIES and {e["from"] for e in mentions} == {"all"}


def test_remember_returns_the_stored_memory_and_rejects_bad_input(mg):
    m = mg.remember("Deployed v2.3.1 to production", at="2026-03-03T10:00:00Z", stream="deploys")
    assert m.text == "Deployed v2.3.1 to production" and m.stream == "deploys"
    assert m.at.isoformat().startswith("2026-03-03T10:00:00")
    with pytest.raises(InputError, match="at"):
        mg.remember("bad time", at="yesterday-ish")


def test_negative_alias_predicate_flips_polarity(mg):
    mg.ingest(
        [
            {"text": "Jo likes olives", "at": "2026-01-01", "subject": "jo", "predicate": "likes", "object": "olives"},
            {
                "text": "Jo dislikes olives",
                "at": "2026-02-01",
                "subject": "jo",
                "predicate": "dislikes",
                "object": "olives",
            },
        ]
    )
    assert [f.polarity for f in mg.history("jo", "likes", "olives")] == [True, False]

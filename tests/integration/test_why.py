"""Path walks on the real server: why (explicit and inferred chains, abstention, cycles, depth), facts over
time (changes since, known-at), timelines."""

from __future__ import annotations

import json
import uuid

import pytest

from kgmem import MemoryGraph

from ..conftest import FIXTURES

CAUSAL = FIXTURES / "causal"


def _questions():
    return [json.loads(line) for line in (CAUSAL / "questions.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def causal_graph(store, embedder):
    tenant = f"why-{uuid.uuid4().hex[:8]}"
    mg = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
    mg._schema_ready = True
    for name in ("incidents.jsonl", "distractors.jsonl"):
        assert mg.ingest(CAUSAL / name).errors == []
    yield mg
    store.auto_commit("admin/delete_tenant", tenant=tenant)


@pytest.fixture(scope="module")
def words_graph(store, embedder):
    tenant = f"whyw-{uuid.uuid4().hex[:8]}"
    mg = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
    mg._schema_ready = True
    assert mg.ingest(CAUSAL / "distractors.jsonl").errors == []
    assert mg.ingest(CAUSAL / "incidents_words.jsonl").errors == []
    yield mg
    store.auto_commit("admin/delete_tenant", tenant=tenant)


CHAIN_QUESTIONS = [q for q in _questions() if "root" in q]
ABSTAIN_QUESTIONS = [q for q in _questions() if q.get("expect") == "abstain"]


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_why_finds_the_true_root_first_for_most_chains(causal_graph):
    """The suite's questions share no content word with their roots; flat vector gets 0 of them."""
    correct, paths_ok = 0, 0
    for q in CHAIN_QUESTIONS:
        w = causal_graph.why(q["query"])
        if not w.abstained and w.roots[0]["id"] == q["root"]:
            correct += 1
            paths_ok += q["chain"] in w.paths
    assert correct >= len(CHAIN_QUESTIONS) - 1, f"{correct}/{len(CHAIN_QUESTIONS)}"
    assert paths_ok == correct  # the full symptom → … → root path is reported


def test_why_abstains_without_causal_structure(causal_graph):
    """Questions about events nothing explains: most abstain; a cause read from the words of a near match says
    so (never presented as recorded). The cause model's operating point is chosen on causes-dev's held-out folds
    (scripts/fit_causes.py), where it abstains on about half of the no-cause questions."""
    answered = []
    for q in ABSTAIN_QUESTIONS:
        w = causal_graph.why(q["query"])
        assert w.reason
        if w.abstained:
            assert w.roots == [] and w.causes == []
        else:
            answered.append(q["query"])
            assert w.causes[0]["by"] in ("words", "inferred") and "not recorded" in w.reason
            assert w.confidence is not None and w.confidence < 1.0
    assert len(answered) <= 2, answered


def test_why_json_shape_and_depths(causal_graph):
    w = next(d for d in (causal_graph.why(q["query"]).to_dict() for q in CHAIN_QUESTIONS) if not d["abstained"])
    assert set(w) >= {"query", "abstained", "symptom", "roots", "paths"}
    assert set(w["symptom"]) >= {"id", "text", "at"}
    root = w["roots"][0]
    assert set(root) >= {"id", "text", "at", "depth"}
    best_path = next(p for p in w["paths"] if p[-1] == root["id"])
    assert root["depth"] == len(best_path) - 1 and best_path[0] == w["symptom"]["id"]


def test_why_finds_its_symptom_with_the_symptom_channels_and_no_pool_maps(causal_graph, monkeypatch):
    """why ranks with the symptom channels only (its manifest says which ran), and reads no
    pool map: every candidate map recall/details returns is a full one (the symptom rule reads no confidence)."""
    from kgmem.query.walks import SYMPTOM_CHANNELS

    q = CHAIN_QUESTIONS[0]["query"]
    assert causal_graph.why(q, explain=True).explain["recall"]["channels"].keys() == set(SYMPTOM_CHANNELS)
    calls: list[dict] = []
    read = causal_graph.store.read

    def spy(name, **params):
        out = read(name, **params)
        calls.append({"name": name, "channels": params.get("channels"), "ids": params.get("ids"), **params})
        return out

    monkeypatch.setattr(causal_graph.store, "read", spy)
    w = causal_graph.why(q)
    assert not w.abstained
    ran = {c for call in calls if call["name"] == "recall/candidates" for c in call["channels"]}
    assert ran == set(SYMPTOM_CHANNELS)
    details = [call for call in calls if call["name"] == "recall/details"]
    assert details and all(call["ids"] == call["full"] for call in details)


def test_why_is_safe_on_cycles_and_respects_max_depth(mg):
    mg.ingest(
        [
            {"id": "a", "text": "Alpha service failed health checks repeatedly", "at": "2026-01-05"},
            {"id": "b", "text": "Bravo queue consumer stalled", "at": "2026-01-04", "caused_by": ["a"]},
            {"id": "c", "text": "Charlie cache was cold after restart", "at": "2026-01-03", "caused_by": ["b"]},
        ]
    )
    # close a cycle a -> c (explicit), and a chain symptom -> a
    mg.ingest([{"id": "a2", "text": "Alpha failed again", "at": "2026-01-06", "caused_by": ["c"]}])
    mg.store.write(
        "ingest/link_causes",
        tenant=mg.tenant,
        links=[{"effect": "a", "cause": "c", "inferred": False, "confidence": 1.0, "source": "test"}],
    )
    w = mg.why("why did alpha fail again?")
    assert not w.abstained
    assert all(len(p) == len(set(p)) for p in w.paths)  # simple paths only: the walk never loops
    shallow = mg.why("why did alpha fail again?", max_depth=1)
    assert all(len(p) <= 2 for p in shallow.paths)


def test_inferred_links_from_words_are_precise_and_explicit_wins(words_graph, mg):
    truth = {}
    for line in (CAUSAL / "incidents.jsonl").read_text().splitlines():
        rec = json.loads(line)
        for c in rec.get("caused_by", []):
            truth[rec["id"]] = c
    edges = [e for e in words_graph.store.read("export/edges", tenant=words_graph.tenant) if e["type"] == "CAUSED_BY"]
    assert all(e["props"]["inferred"] for e in edges)
    correct = sum(truth.get(e["from"]) == e["to"] for e in edges)
    # the links of the learned pass (one per memory: its likeliest cause, or the memory its cause clause names);
    # the held-out precision its threshold is chosen for is 0.75 (scripts/fit_causes.py); here most wrong ones
    # are distractors read as effects
    assert correct >= 30 and correct / len(edges) >= 0.65, (correct, len(edges))
    # explicit caused_by wins: the same words with an explicit (different) cause infer nothing
    mg.ingest(
        [
            {"id": "cause-x", "text": "The deploy bot pushed a broken config to the edge nodes", "at": "2026-02-01"},
            {"id": "cause-y", "text": "An engineer restarted the load balancer by hand", "at": "2026-02-01"},
            {
                "id": "eff",
                "text": "Edge nodes returned errors because the deploy bot pushed a broken config",
                "at": "2026-02-02",
                "caused_by": ["cause-y"],
            },
        ]
    )
    links = [e for e in mg.store.read("export/edges", tenant=mg.tenant) if e["type"] == "CAUSED_BY"]
    assert [(e["from"], e["to"], e["props"]["inferred"]) for e in links] == [("eff", "cause-y", False)]


def test_a_later_note_that_states_the_cause_is_linked_and_a_guess_is_not(mg):
    mg.ingest(
        [
            {
                "id": "outage",
                "text": "Login page returning 502 for everyone since 09:05, sessions dropping",
                "at": "2026-03-11T09:20:00Z",
            },
            {
                "id": "guess",
                "text": "Maybe the login outage is the CDN again? Not confirmed",
                "at": "2026-03-11T09:40:00Z",
            },
            {
                "id": "pm",
                "text": "Postmortem for Tuesday's login outage: the session Redis hit its maxmemory limit and "
                "evicted every session, so logins returned 502",
                "at": "2026-03-12T16:40:00Z",
            },
        ],
        infer_supersession=False,
    )
    links = {(e["from"], e["to"]) for e in mg.store.read("export/edges", tenant=mg.tenant) if e["type"] == "CAUSED_BY"}
    assert ("outage", "pm") in links and not any(c == "guess" for _, c in links)
    w = mg.why("why couldn't anyone sign in on Tuesday morning?")
    assert not w.abstained and w.causes[0]["id"] == "pm" and w.paths[0][:2] == [w.symptom.id, "pm"]


def test_recall_puts_first_the_memory_that_states_the_cause_of_a_why_question(mg):
    mg.ingest(
        [
            {
                "id": "outage",
                "text": "Nobody could sign in on Tuesday morning: the login page returned 502 for everyone",
                "at": "2026-03-11T09:20:00Z",
            },
            {
                "id": "guess",
                "text": "Maybe the sign-in trouble is the CDN again? Not confirmed",
                "at": "2026-03-11T09:40:00Z",
            },
            {
                "id": "pm",
                "text": "Postmortem: the session Redis hit its maxmemory limit and evicted every session, "
                "which is what broke authentication",
                "at": "2026-03-12T16:40:00Z",
            },
        ],
        infer_supersession=False,
    )
    question = "why couldn't anyone sign in on Tuesday morning?"
    r = mg.recall(question, explain=True)
    assert r.explain is not None and r.explain["cause_first"] == "pm"
    assert [h.id for h in r.hits][:2] == ["pm", "outage"]  # the best match comes next: only the order changes
    assert {h.id for h in r.hits} >= {"outage", "guess", "pm"}
    assert r.reason is not None and "'pm' first" in r.reason and "the best match's, 'outage'" in r.reason
    # not a why-question: the plain ranking, the event note most like the question first
    plain = mg.recall("couldn't anyone sign in on Tuesday morning?", explain=True)
    assert plain.explain is not None and "cause_first" not in plain.explain
    assert plain.hits[0].id == "outage"


def test_inferred_causes_never_cross_users(mg):
    mg.ingest(
        [
            {
                "id": "b1",
                "text": "The disk on the build server filled up with old artifacts",
                "at": "2026-02-01",
                "user": "bob",
            },
            {
                "id": "a1",
                "text": "My nightly build failed because the disk on the build server filled up",
                "at": "2026-02-02",
                "user": "alice",
            },
        ],
        infer_supersession=False,
    )
    assert not [e for e in mg.store.read("export/edges", tenant=mg.tenant) if e["type"] == "CAUSED_BY"]


def test_inferred_causes_do_not_depend_on_arrival_order_or_batches(store, embedder):
    """The fixture incidents told in words, ingested at once, newest first one per call, and in two batches
    (and the second re-run, as after a crash): the same inferred links each time."""
    rows = [json.loads(line) for line in (CAUSAL / "incidents_words.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("stream") in ("inc-01", "inc-02", "inc-03", "inc-05")]
    orders = {
        "batch": [rows],
        "newest first": [[r] for r in sorted(rows, key=lambda r: r["at"], reverse=True)],
        "split and re-run": [rows[: len(rows) // 2], rows, rows],
    }
    seen = {}
    for name, batches in orders.items():
        tenant = f"whyo-{uuid.uuid4().hex[:8]}"
        g = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
        g._schema_ready = True
        try:
            for b in batches:
                assert g.ingest(b, infer_supersession=False).errors == []
            seen[name] = sorted(
                (e["from"], e["to"]) for e in store.read("export/edges", tenant=tenant) if e["type"] == "CAUSED_BY"
            )
        finally:
            store.auto_commit("admin/delete_tenant", tenant=tenant)
    assert seen["batch"], seen
    assert seen["newest first"] == seen["batch"] and seen["split and re-run"] == seen["batch"], seen


def test_changes_since_and_known_at(mg):
    mg.ingest(
        [
            {
                "id": "h1",
                "text": "Sam lives in Boston",
                "at": "2026-01-01",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Boston",
            },
            {
                "id": "h2",
                "text": "Sam lives in Berlin",
                "at": "2026-04-01",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Berlin",
            },
        ]
    )
    changes = mg.changes("2026-03-01")
    assert [(c["id"], c["previous"]["id"]) for c in changes if c["at"].year == 2026 and c["at"].month == 4] == [
        ("h2", "h1")
    ]
    # a correction recorded now about the past: known_at before this moment does not see it
    import datetime as dt

    before = dt.datetime.now(dt.timezone.utc)
    mg.ingest(
        [
            {
                "id": "h1b",
                "text": "Actually Sam lived in Cambridge in February",
                "at": "2026-02-01",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Cambridge",
            }
        ]
    )
    assert mg.as_of("sam", "lives_in", "2026-02-15").object == "Cambridge"
    assert mg.as_of("sam", "lives_in", "2026-02-15", known_at=before).object == "Boston"
    assert [f.object for f in mg.history("sam", "lives_in", known_at=before)] == ["Boston", "Berlin"]
    assert [f.object for f in mg.history("sam", "lives_in")] == ["Boston", "Cambridge", "Berlin"]


def test_a_version_dated_in_the_future_is_not_the_value_now(mg):
    """A slot with a version five years ago and one scheduled five years ahead: now is as_of(the present time),
    the scheduled one takes over at its own time (issue 46: now() returned the future one)."""
    import datetime as dt

    today = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    past, future = today.replace(year=today.year - 5, day=1), today.replace(year=today.year + 5, day=1)
    mg.ingest(
        [
            {"id": "rent-old", "text": "The rent is 900", "at": past.isoformat(), "subject": "flat", "predicate": "price", "object": "900"},
            {"id": "rent-new", "text": "The rent will be 1200", "at": future.isoformat(), "subject": "flat", "predicate": "price", "object": "1200"},
        ]
    )  # fmt: skip
    now = mg.now("flat", "price")
    assert now is not None and now.id == "rent-old" and now.valid_to == future
    assert mg.as_of("flat", "price", today).id == now.id
    assert mg.now_answer("flat", "price").to_dict()["value"]["object"] == "900"
    assert mg.as_of("flat", "price", future).id == "rent-new"
    assert [(v.id, v.current) for v in mg.history("flat", "price")] == [("rent-old", True), ("rent-new", False)]
    assert mg.get("rent-old").current and not mg.get("rent-new").current
    changes = {c["id"]: c["current"] for c in mg.changes(past)}
    assert changes == {"rent-old": True, "rent-new": False}


def test_timeline_before_and_after_along_next(mg):
    mg.ingest(
        [
            {"id": f"t{i}", "text": f"incident channel message {i}", "at": f"2026-05-01T10:0{i}:00Z", "stream": "inc-9"}
            for i in range(7)
        ]
    )
    rows = mg.timeline("t3", before=2, after=2)
    assert [(r["id"], r["offset"]) for r in rows] == [("t1", -2), ("t2", -1), ("t3", 0), ("t4", 1), ("t5", 2)]


def test_timeline_by_valid_time_orders_ties_by_id(mg):
    # no stream: the timeline is by valid time; three memories share the middle instant
    recs = [
        {"id": f"v{i:03d}", "text": f"note {i} on the depot", "at": f"2026-03-{1 + i // 10:02d}T{i % 10:02d}:00:00Z"}
        for i in range(200)
    ]
    recs += [{"id": tid, "text": f"tied note {tid}", "at": "2026-03-11T05:00:00Z"} for tid in ("tb", "tc", "ta")]
    assert mg.ingest(recs, infer_causes=False, infer_supersession=False).errors == []
    rows = mg.timeline("tb", before=3, after=3)
    assert [(r["id"], r["offset"]) for r in rows] == [
        ("v103", -3),
        ("v104", -2),
        ("ta", -1),
        ("tb", 0),
        ("tc", 1),
        ("v105", 2),
        ("v106", 3),
    ]  # v105 is at the tied instant too: ties go by id


def _db_hits(plan: dict) -> int:
    return (plan.get("dbHits") or 0) + sum(_db_hits(c) for c in plan.get("children", []))


def test_the_cause_pass_reads_its_own_statements_only(mg, monkeypatch):
    # the pass pairs a new memory with the memories alike to it (derived/cause_neighbors) and reads them once
    # (derived/cause_sources): no recall channel runs
    read = mg.store.read
    names: list[str] = []

    def spy(name, **params):
        names.append(name)
        return read(name, **params)

    monkeypatch.setattr(mg.store, "read", spy)
    mg.ingest(
        [
            {"id": "disk", "text": "The disk on db-1 filled up with audit logs", "at": "2026-02-01"},
            {"id": "down", "text": "Checkout went down because the disk on db-1 filled up", "at": "2026-02-02"},
        ],
        infer_supersession=False,
    )
    links = [e for e in read("export/edges", tenant=mg.tenant) if e["type"] == "CAUSED_BY"]
    assert [(e["from"], e["to"], e["props"]["inferred"]) for e in links] == [("down", "disk", True)]
    assert "derived/cause_sources" in names and not [n for n in names if n.startswith("recall/")], names

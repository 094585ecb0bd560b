"""Time phrases that never silently empty a result, and turns read with their stream context (derived,
rebuilt by rebuild, removed by forget). On the real server."""

from __future__ import annotations

import pytest

from kgmem.query.filters import build_filters

CHAT = [  # one session of a conversation held in 2023; questions are asked long after it ended
    {"id": "c1", "text": "Melanie: I read a great book last month.", "at": "2023-05-08T10:00:00Z"},
    {"id": "c2", "text": "Caroline: Which one has been your favorite?", "at": "2023-05-08T10:00:01Z"},
    {
        "id": "c3",
        "text": "Melanie: I loved 'Becoming Nicole', a moving story about a family.",
        "at": "2023-05-08T10:00:02Z",
    },
    {"id": "c4", "text": "Caroline: I moved from Sweden 4 years ago with my mum.", "at": "2023-05-08T10:00:03Z"},
]
SESSION2 = [
    {
        "id": "p1",
        "text": "Caroline: I went to a pride parade last weekend, it was amazing!",
        "at": "2023-08-14T09:00:00Z",
    },
    {"id": "p2", "text": "Melanie: That sounds wonderful, I am so happy for you.", "at": "2023-08-14T09:00:01Z"},
]


@pytest.fixture
def chat(mg):
    rep = mg.ingest(
        [{**r, "stream": "conv/session_1", "entities": [r["text"].split(":")[0]]} for r in CHAT]
        + [{**r, "stream": "conv/session_2", "entities": [r["text"].split(":")[0]]} for r in SESSION2]
    )
    assert rep.errors == []
    return mg


# ---------------------------------------------------------------------------- time phrases


def test_in_august_on_a_tenant_whose_memories_are_all_from_an_earlier_year_is_not_emptied(chat):
    res = chat.recall("When did Caroline attend a pride parade in August?", explain=True)
    assert res.hits, res.reason
    assert res.hits[0].id == "p1"  # August 2023 ranks first although "in August" from 2026 means August 2026
    f = res.explain["filters"]
    assert f["time_use"] == "rank" and f["start"] is None and f["end"] is None
    assert f["rank_window"]["month"] == 8  # a year-less month ranks any year's August higher
    assert res.explain["fused"][0]["id"] == "p1"


def test_n_years_ago_is_a_year_sized_ranking_window_and_keeps_its_words(chat):
    res = chat.recall("Where did Caroline move from 4 years ago?", now="2023-06-01", explain=True)
    assert res.hits and res.hits[0].id == "c4"
    w = res.explain["filters"]["rank_window"]
    assert (w["start"], w["end"]) == ("2019-01-01T00:00:00Z", "2020-01-01T00:00:00Z")
    assert "4 years ago" in res.explain["ranking_text"]  # a ranking phrase stays in the text to rank


def test_a_window_that_asks_for_a_period_filters_and_an_empty_one_falls_back_and_says_so(chat):
    # "last week" measured from a time inside the chat: a real window, used as a filter
    res = chat.recall("what did we talk about last week?", now="2023-08-22", explain=True)  # last week = Aug 14-20
    assert res.explain["filters"]["time_use"] == "filter"
    assert {h.id for h in res.hits} <= {"p1", "p2"} and res.hits
    # measured from today (2026): the window holds nothing eligible — ranked without it, and said so
    res = chat.recall("what did we talk about last week?", explain=True)
    assert res.hits, "a time phrase must never silently empty a result"
    assert "nothing eligible" in res.reason
    assert res.explain["filters"]["time_use"] == "rank-fallback"
    assert "time_fallback" in res.explain


def test_explicit_since_and_until_stay_hard_filters_even_when_they_hold_nothing(chat):
    assert chat.recall("pride parade", since="2026-01-01").hits == []
    assert chat.recall("pride parade", until="2023-01-01").hits == []
    assert [h.id for h in chat.recall("pride parade", since="2023-08-01", k=1).hits] == ["p1"]


def test_the_rule_for_each_kind_of_phrase():
    def use(q, now="2026-03-04T10:00:00Z"):
        import datetime as dt

        f, _ = build_filters(q, tenant="t", now=dt.datetime.fromisoformat(now.replace("Z", "+00:00")))
        return f.time_use

    assert use("what did we talk about last week?") == "filter"  # a period, not a when-question
    assert use("what changed in the last 7 days?") == "filter"  # rolling window
    assert use("what did we decide since March 1?") == "filter"  # a range
    assert use("what did we talk about yesterday?") == "filter"
    assert use("what did Bob say in August?") == "rank"  # a calendar name
    assert use("what happened in 2022?") == "rank"
    assert use("what did Bob say 3 days ago?") == "rank"  # N units ago
    assert use("when did we talk about the budget last week?") == "rank"  # a when-question
    assert use("nothing about time here") is None


# ---------------------------------------------------------------------------- stream context


def _props(mg, mem_id):
    rows = mg.store.read("export/memories", tenant=mg.tenant)
    return next(dict(r["props"]) for r in rows if r["id"] == mem_id)


def test_the_reply_after_the_matching_turn_is_found_through_its_context(chat):
    props = _props(chat, "c3")
    assert props["context_text"].startswith("Caroline: Which one has been your favorite?\n")
    assert props["window_text"].splitlines()[0].startswith("Melanie: I read a great book")
    assert len(props["context_embedding"]) == 384 and len(props["wide_embedding"]) == 384
    res = chat.recall("What was Melanie's favorite book?", k=3)
    assert "c3" in [h.id for h in res.hits]
    c3 = next(h for h in res.hits if h.id == "c3")
    assert c3.channels["wide_vector"] is not None or c3.channels["context_keyword"] is not None
    named = chat.recall("What was Melanie's favorite book?", k=3, channels=["context_vector"])
    assert "c3" in [h.id for h in named.hits]  # not a default channel, still one to name


def test_the_context_vectors_are_the_normalised_sums_stored_as_32_bit_floats(chat):
    import numpy as np

    texts = {r["id"]: r["text"] for r in CHAT}
    prev, own, nxt = chat.embedder.encode([texts[i] for i in ("c2", "c3", "c4")]).astype(np.float64)
    props = _props(chat, "c3")
    for key, total in (("context_embedding", prev + own), ("wide_embedding", prev + own + nxt)):
        stored = np.array(props[key])
        assert stored == pytest.approx(total / np.linalg.norm(total), abs=1e-6), key
        # 32-bit like the embedding (db.create.setNodeVectorProperty): a Cypher SET keeps 64-bit floats, twice
        # the bytes in the store and the page cache, whose values a 32-bit float cannot hold exactly
        assert (stored.astype(np.float32).astype(np.float64) == stored).all(), key


def test_a_re_run_adds_the_context_a_run_killed_before_its_context_pass_left_out(chat, neo4j_connection):
    from neo4j import GraphDatabase

    before = {i: _props(chat, i) for i in ("c2", "c3")}
    uri, user, password, _ = neo4j_connection
    with GraphDatabase.driver(uri, auth=(user, password)) as driver:  # as a run killed after its write leaves them
        driver.execute_query(
            "MATCH (m:Memory {tenant: $t}) WHERE m.id IN ['c2', 'c3'] "
            "REMOVE m.context_text, m.window_text, m.context_embedding, m.wide_embedding",
            t=chat.tenant,
        )
    assert "context_text" not in _props(chat, "c3")
    again = chat.ingest(
        [{**r, "stream": "conv/session_1", "entities": [r["text"].split(":")[0]]} for r in CHAT]
    )  # the same ingest again: every record is unchanged, nothing is written
    assert again.ids == [] and again.errors == []
    for mem_id, props in before.items():
        after = _props(chat, mem_id)
        for key in ("context_text", "window_text", "context_embedding", "wide_embedding"):
            assert after[key] == props[key], (mem_id, key)


def test_a_fact_compiled_from_a_record_gets_its_context_with_the_record(mg):
    rep = mg.ingest([{"id": "ph", "text": "Maya's phone number is 555-0101.", "at": "2026-01-01"}])
    assert rep.facts >= 1
    facts = [r for r in mg.store.read("export/memories", tenant=mg.tenant) if r["id"] != "ph"]
    assert facts
    for f in facts:  # a fact has no stream: it reads as itself
        props = dict(f["props"])
        assert props["context_text"] == props["text"] and len(props["wide_embedding"]) == 384


def test_forget_removes_the_forgotten_text_from_every_neighbours_context(chat):
    chat.forget("c2")
    for mem_id in ("c1", "c3", "c4"):
        props = _props(chat, mem_id)
        for key in ("context_text", "window_text"):
            assert "Which one has been your favorite" not in props[key], (mem_id, key)
    assert _props(chat, "c3")["context_text"].startswith("Melanie: I read a great book")  # the new predecessor


def test_rebuild_recomputes_the_context_and_export_leaves_it_out(chat, tmp_path):
    before = _props(chat, "c3")
    chat.store.write(
        "derived/refresh_context", tenant=chat.tenant, ids=["c3"], prev_weight=0.0, gap_seconds=3600
    )  # corrupt it
    assert _props(chat, "c3")["context_embedding"] != before["context_embedding"]
    out = chat.rebuild()
    assert out["counts"]["context"] >= len(CHAT) + len(SESSION2)
    after = _props(chat, "c3")
    for key in ("context_text", "window_text", "context_embedding", "wide_embedding"):
        assert after[key] == pytest.approx(before[key]) if key.endswith("embedding") else after[key] == before[key]
    path = tmp_path / "export.jsonl"
    chat.export(path)
    text = path.read_text()
    assert "context_text" not in text and "window_text" not in text and "wide_embedding" not in text


def test_a_memory_without_neighbours_in_its_exchange_reads_as_itself(mg):
    mg.ingest(
        [
            {"id": "solo", "text": "A note with no stream", "at": "2026-01-01"},
            {"id": "q1", "text": "Ticket one", "at": "2026-01-01T09:00:00Z", "stream": "queue"},
            {"id": "q2", "text": "Ticket two, a day later", "at": "2026-01-02T09:00:00Z", "stream": "queue"},
        ]
    )
    for mem_id in ("solo", "q2"):  # no stream / a neighbour more than an hour away: its own text and vector
        props = _props(mg, mem_id)
        assert props["context_text"] == props["text"] == props["window_text"]
        assert props["context_embedding"] == pytest.approx(props["wide_embedding"])


# ---------------------------------------------------------------------------- learned abstention


def test_recall_decides_with_the_shipped_confidence_model(chat):
    from kgmem.query import confidence

    model = confidence.shipped()
    res = chat.recall("What book did Melanie love?", explain=True)
    assert res.confidence is not None and res.to_dict()["confidence"] == round(res.confidence, 4)
    assert res.explain["confidence"]["model"]["data_version"] == model.data_version
    assert res.abstained == (res.confidence < model.threshold)
    assert res.hits[0].confident == (not res.abstained)
    off = chat.recall("What is the airspeed of an unladen swallow in the Andes?")
    assert off.abstained and "learned confidence" in off.reason


@pytest.mark.parametrize(
    "question",
    [
        "What did Melanie read last month?",  # a phrase used as a filter, taken out of the text to rank
        "When did Caroline attend a pride parade in August?",  # one that only ranks
        "Which book has been Melanie's favorite?",  # none
    ],
)
def test_one_recall_reads_the_time_phrase_once(chat, monkeypatch, question):
    """The filters read the question's time phrase; what the question asks is read from the text they leave,
    not parsed again — and the answer is the one a second parse gave."""
    from kgmem.query import filters, meaning, timeparse

    before = chat.recall(question, now="2023-06-01")
    calls: list[str] = []
    real = timeparse.parse_time_filter

    def counted(query, now):
        calls.append(query)
        return real(query, now)

    monkeypatch.setattr(timeparse, "parse_time_filter", counted)
    monkeypatch.setattr(filters, "parse_time_filter", counted)
    res = chat.recall(question, now="2023-06-01")
    assert len(calls) == 1, calls
    assert [h.id for h in res.hits] == [h.id for h in before.hits]
    assert res.confidence == before.confidence
    assert meaning.asked(question) == res_asked(chat, question)


def res_asked(mg, question):
    """What recall's question read of ``question`` (its ``Question.asked``), through the filters' text."""
    from kgmem.normalize import clean_text
    from kgmem.query import meaning

    f, _ = build_filters(question, tenant=mg.tenant, now=None)
    return meaning.asked(clean_text(question), None if f.time_rest is None else clean_text(f.time_rest))


def test_a_tenant_of_notes_searches_no_context_channel_and_ranks_as_if_it_had(mg):
    """Notes with no exchange around them read as themselves: each context channel takes the ranking of the
    channel of the memory's own text or vector (the same ranking, one search instead of three); a tenant that
    gains a conversation searches every channel again."""
    notes = [
        {"id": "n1", "text": "The office gym closes at 9pm on weekdays", "at": "2026-01-05"},
        {"id": "n2", "text": "Maya adopted a greyhound called Pixel", "at": "2026-02-11"},
        {"id": "n3", "text": "Pixel the greyhound is scared of the vacuum cleaner", "at": "2026-03-02"},
    ]
    assert mg.ingest(notes).errors == []
    res = mg.recall("What is Maya's greyhound called?", explain=True)
    channels = res.explain["channels"]
    same = {name: c.get("same_as") for name, c in channels.items()}
    assert same["context_vector"] == same["wide_vector"] == "vector"
    assert same["context_keyword"] == same["window_keyword"] == "keyword"
    assert [c for s in res.explain["plan"] for c in s["channels"]] == ["vector", "keyword", "entity"]
    for name, own in (("context_vector", "vector"), ("window_keyword", "keyword")):
        assert channels[name]["ids"] == channels[own]["ids"]
        assert all(h.channels[name] == h.channels[own] for h in res.hits)
    assert res.hits[0].id == "n2"
    # the context channel named alone answers from its own channel's search, under its own name
    alone = mg.recall("What is Maya's greyhound called?", channels=["window_keyword"], explain=True)
    assert [h.id for h in alone.hits] == channels["keyword"]["ids"][: len(alone.hits)]
    # a conversation arrives: its turns are read with their neighbours, so every channel is searched again
    turns = [
        {"id": "t1", "text": "Maya: the vet says Pixel is healthy", "at": "2026-03-10T10:00:00Z"},
        {"id": "t2", "text": "Leo: great news about the greyhound!", "at": "2026-03-10T10:00:30Z"},
    ]
    assert mg.ingest([{**t, "stream": "chat/1"} for t in turns]).errors == []
    again = mg.recall("What is Maya's greyhound called?", explain=True)
    assert not any(c.get("same_as") for c in again.explain["channels"].values())
    assert {c for s in again.explain["plan"] for c in s["channels"]} >= {"context_vector", "window_keyword"}

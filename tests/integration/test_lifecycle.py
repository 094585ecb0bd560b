"""Memory lifecycle against the real Neo4j: forget with lineage propagation, retention gc, consolidation
(merges, pattern summaries, co-occurrence), export/import round trip, rebuild from the records.

``LG`` puts the lifecycle mixin on ``MemoryGraph`` so these tests run whether or not the API includes it yet.
"""

from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from click.testing import CliRunner

from kgmem import MemoryGraph
from kgmem.errors import InputError, NotFoundError

from ..conftest import FIXTURES

LG = MemoryGraph


def _graph(store, embedder, tenant) -> LG:
    g = LG(tenant=tenant, store=store, embedder=embedder)
    g._schema_ready = True
    return g


@pytest.fixture
def lg(store, embedder, tenant):
    return _graph(store, embedder, tenant)


FRIDAY = dt.date(2026, 1, 9)
THAI = [
    "Ordered pad thai from Bangkok Kitchen for dinner.",
    "Got thai takeout from Bangkok Kitchen tonight.",
    "Ordered thai food from Bangkok Kitchen.",
    "Ordered massaman curry from Bangkok Kitchen.",
    "Ordered green curry from Bangkok Kitchen.",
]


def thai_records(n: int = 5) -> list[dict]:
    return [
        {"id": f"thai-{i}", "text": THAI[i], "at": f"{FRIDAY + dt.timedelta(days=7 * i)}T19:00:00Z"} for i in range(n)
    ]


def consolidated(store, tenant: str) -> list[dict]:
    return store.read("lifecycle/consolidated", tenant=tenant, ids=None)


def all_text(store, tenant: str) -> str:
    """Every property value of every node and edge of the tenant, as one string (what an export holds)."""
    buf = io.StringIO()
    from kgmem.derived import portable

    portable.export(store, tenant, buf)
    return buf.getvalue()


# ---------------------------------------------------------------------------- forget: lineage


def test_forget_a_source_rederives_the_summary_and_the_last_source_removes_it(lg, store):
    lg.ingest(
        thai_records(5) + [{"id": "other", "text": "The quarterly report is due on March 31.", "at": "2026-01-20"}]
    )
    run = lg.consolidate()
    assert run["summaries_created"] == 1
    [summary] = consolidated(store, lg.tenant)
    assert summary["transform"] == "summary/v1" and summary["kind"] == "summary"
    assert summary["sources"] == [f"thai-{i}" for i in range(5)]
    assert "on Fridays, 5 times 2026-01-09–2026-02-06" in summary["text"]

    out = lg.forget("thai-2")
    assert out["forgotten"] == ["thai-2"]
    assert out["consolidated"]["removed"] == [summary["id"]]
    [again] = consolidated(store, lg.tenant)
    assert again["id"] != summary["id"] and again["sources"] == ["thai-0", "thai-1", "thai-3", "thai-4"]
    assert "4 times" in again["text"] and THAI[2].rstrip(".") not in again["text"]
    # the summary is a memory like any other: recall finds it (and it is embedded)
    hits = lg.recall("do I have a habit of ordering thai food on Fridays?", k=5).hits
    assert again["id"] in [h.id for h in hits]

    # below min_cluster occurrences the regularity is no longer a pattern: the summary goes (same rule as a
    # consolidation run, so forget, consolidate and rebuild agree); and with the last source surely
    for i in (0, 1, 3):
        lg.forget(f"thai-{i}")
    assert consolidated(store, lg.tenant) == []
    lg.forget("thai-4")
    assert consolidated(store, lg.tenant) == []
    assert lg.consolidate()["summaries_created"] == 0
    tombs = store.read(
        "lifecycle/tombstones_for", tenant=lg.tenant, ids=[f"thai-{i}" for i in range(5)], content_keys=[]
    )
    assert sorted(t["id"] for t in tombs) == [f"thai-{i}" for i in range(5)]


def test_forgotten_text_is_never_returned(lg, store):
    secret = "The vault combination zebra-7731 is taped under the Quorvex desk."
    lg.ingest(
        [
            {"id": "root", "text": secret, "at": "2026-03-01T09:00:00Z", "stream": "ops"},
            {
                "id": "mid",
                "text": "Someone opened the vault overnight.",
                "at": "2026-03-02T09:00:00Z",
                "caused_by": ["root"],
                "stream": "ops",
            },
            {
                "id": "symptom",
                "text": "Payroll cash went missing from the vault.",
                "at": "2026-03-03T09:00:00Z",
                "caused_by": ["mid"],
                "stream": "ops",
            },
            {
                "id": "vault-fact",
                "text": "The vault code is zebra-7731.",
                "subject": "vault",
                "predicate": "code",
                "object": "zebra-7731",
                "at": "2026-03-01T09:00:00Z",
            },
            {
                "id": "vault-fact-2",
                "text": "The vault code is lynx-2024.",
                "subject": "vault",
                "predicate": "code",
                "object": "lynx-2024",
                "at": "2026-03-05T09:00:00Z",
            },
            {"id": "noise", "text": "The cafeteria serves soup on Mondays.", "at": "2026-03-01T12:00:00Z"},
        ]
    )
    before = lg.why("why did payroll cash go missing from the vault?")
    assert before.roots and before.roots[0]["id"] == "root"
    assert lg.history("vault", "code")[0].text == "The vault code is zebra-7731."

    lg.forget("root")
    lg.forget("vault-fact")
    questions = ["vault combination zebra-7731", "zebra-7731", "Quorvex desk", "what is the vault code?"]
    for q in questions:
        for res in (
            lg.recall(q, k=20),
            lg.recall(q, k=20, include_superseded=True),
            lg.recall(q, k=20, at="2026-03-02"),
        ):
            assert all("zebra" not in h.text and "Quorvex" not in h.text for h in res.hits), q
    why = lg.why("why did payroll cash go missing from the vault?")
    assert "root" not in [r["id"] for r in why.roots]
    assert all("zebra" not in (r["text"] or "") for r in why.roots)
    assert [f.object for f in lg.history("vault", "code")] == ["lynx-2024"]
    assert lg.now("vault", "code").object == "lynx-2024"
    assert lg.as_of("vault", "code", "2026-03-02") is None
    dump = all_text(store, lg.tenant)
    assert "zebra-7731" not in dump and "Quorvex" not in dump
    # the entity only the forgotten memory named is gone; the stream is re-spliced around the hole
    assert "quorvex" not in [r["key"] for r in store.read("export/entities", tenant=lg.tenant)]
    nexts = {(e["from"], e["to"]) for e in store.read("export/edges", tenant=lg.tenant) if e["type"] == "NEXT"}
    assert nexts == {("mid", "symptom")}
    # the tombstone keeps no content
    tomb = [json.loads(line) for line in dump.splitlines() if '"type":"tombstone"' in line]
    assert {t["id"] for t in tomb} == {"root", "vault-fact"}
    assert all(set(t["props"]) == {"content_key", "forgotten_at", "reason"} for t in tomb)
    with pytest.raises(NotFoundError, match="already forgotten"):
        lg.forget("root")
    with pytest.raises(NotFoundError, match="no memory"):
        lg.forget("never-existed")


def test_next_chain_is_respliced(lg, store):
    lg.ingest(
        [
            {"id": f"s{i}", "text": f"Step {i} of the migration is done.", "at": f"2026-02-0{i + 1}", "stream": "mig"}
            for i in range(4)
        ]
    )
    lg.forget("s1")
    nexts = {(e["from"], e["to"]) for e in store.read("export/edges", tenant=lg.tenant) if e["type"] == "NEXT"}
    assert nexts == {("s0", "s2"), ("s2", "s3")}
    assert [r["id"] for r in lg.timeline("s2", before=3, after=3)] == ["s0", "s2", "s3"]


def test_forgetting_a_fact_version_makes_the_previous_one_current(lg, store):
    lg.ingest(
        [
            {"id": "ph-1", "text": "My phone number is 555-0101.", "at": "2026-01-10T09:00:00Z"},
            {"id": "ph-2", "text": "My phone number changed to 555-0199.", "at": "2026-03-10T09:00:00Z"},
            {
                "id": "home-1",
                "text": "Sam lives in Boston.",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Boston",
                "at": "2026-01-01",
            },
            {
                "id": "home-2",
                "text": "Sam lives in Lisbon.",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Lisbon",
                "at": "2026-04-01",
            },
        ]
    )
    assert lg.now("user", "phone_number").object == "555-0199"
    assert lg.get("ph-1").valid_to is not None  # its compiled fact was superseded

    out = lg.forget("ph-2")  # an episode: the fact compiled from it goes too
    assert out["forgotten"] == ["ph-2", "ph-2#f1"]
    now = lg.now("user", "phone_number")
    assert (now.id, now.object, now.valid_to) == ("ph-1#f1", "555-0101", None)
    assert [f.id for f in lg.history("user", "phone_number")] == ["ph-1#f1"]
    assert lg.get("ph-1").valid_to is None  # the episode is current again
    assert "ph-1" in [h.id for h in lg.recall("what is my phone number?", k=5).hits]

    lg.forget("home-2")  # a recorded fact
    assert lg.now("sam", "lives_in").object == "Boston"
    assert lg.now("sam", "lives_in").valid_to is None
    edges = [e for e in store.read("export/edges", tenant=lg.tenant) if e["type"] == "SUPERSEDES"]
    assert edges == []

    lg.forget("ph-1#f1")  # a compiled fact on its own: the episode stays, the slot empties
    assert lg.now("user", "phone_number") is None
    assert lg.get("ph-1").valid_to is None


def test_tombstones_for_finds_forgotten_ids_and_content_keys(lg, store):
    lg.ingest([{"text": "A record without an id, keyed by its content.", "at": "2026-01-01"}])
    [mem] = store.read("export/memories", tenant=lg.tenant)
    content_key = dict(mem["props"])["content_key"]
    lg.forget(mem["id"])
    by_id = store.read("lifecycle/tombstones_for", tenant=lg.tenant, ids=[mem["id"]], content_keys=[])
    by_key = store.read("lifecycle/tombstones_for", tenant=lg.tenant, ids=["other-id"], content_keys=[content_key])
    assert [(r["id"], r["matched"], r["reason"]) for r in by_id] == [(mem["id"], "id", "forget")]
    assert [(r["id"], r["matched"]) for r in by_key] == [(mem["id"], "content_key")]


# ---------------------------------------------------------------------------- retention


def test_gc_removes_only_expired_memories(lg, store):
    lg.ingest(
        [
            {"id": "eph", "text": "Temporary tool output: build 17 is green.", "retention": "ephemeral"},
            {"id": "short", "text": "Reminder: the parking garage closes at 9 pm this month.", "retention": "short"},
            {"id": "std", "text": "Our fiscal year starts in April.", "retention": "standard"},
            {"id": "perm", "text": "The company was founded in 2009.", "retention": "permanent"},
            {"id": "none", "text": "The team mascot is a heron."},
            {"id": "eph-fact", "text": "My phone number is 555-7777.", "retention": "ephemeral"},
        ]
    )
    now = dt.datetime.now(dt.timezone.utc)
    assert lg.gc(dry_run=True, now=now)["count"] == 0
    listed = lg.gc(dry_run=True, now=now + dt.timedelta(days=2))
    assert sorted(r["id"] for r in listed["expired"]) == ["eph", "eph-fact"]
    assert len(store.read("export/memories", tenant=lg.tenant)) == 7  # dry run: nothing gone

    out = lg.gc(now=now + dt.timedelta(days=2))
    assert sorted(out["forgotten"]) == ["eph", "eph-fact", "eph-fact#f1"]
    left = {r["id"] for r in store.read("export/memories", tenant=lg.tenant)}
    assert left == {"short", "std", "perm", "none"}
    assert lg.now("user", "phone_number") is None

    assert [r["id"] for r in lg.gc(dry_run=True, now=now + dt.timedelta(days=29))["expired"]] == []
    assert lg.gc(now=now + dt.timedelta(days=31))["forgotten"] == ["short"]
    assert lg.gc(now=now + dt.timedelta(days=3650))["forgotten"] == []
    # TTLs are configurable; no retention class counts as standard
    custom = lg.gc(dry_run=True, now=now + dt.timedelta(days=2), ttls={"standard": "1d"})
    assert sorted(r["id"] for r in custom["expired"]) == ["none", "std"]
    with pytest.raises(InputError):
        lg.gc(dry_run=True, ttls="forever=1d")
    reasons = {
        r["id"]: r["reason"]
        for r in store.read("lifecycle/export_tombstones", tenant=lg.tenant)
        for r in [{"id": r["id"], **r["props"]}]
    }
    assert reasons == {"eph": "expired", "eph-fact": "expired", "short": "expired"}


# ---------------------------------------------------------------------------- consolidation


DUPES = [
    {"id": "wifi-1", "text": "The office wifi password is on the whiteboard in room 4.", "at": "2026-02-01"},
    {"id": "wifi-2", "text": "The office wifi password is written on the whiteboard in room 4.", "at": "2026-02-03"},
    {"id": "err-q", "text": "Customer hit error zx9q when exporting the quarterly report.", "at": "2026-02-05"},
    {"id": "err-p", "text": "Customer hit error zx9p when exporting the quarterly report.", "at": "2026-02-06"},
]


def test_consolidation_merges_near_duplicates_and_records_the_run(lg, store):
    lg.ingest(DUPES)
    plan = lg.consolidate(dry_run=True)
    assert plan["dry_run"] and plan["merges_created"] == 1 and plan["run_id"] is None
    assert consolidated(store, lg.tenant) == [] and store.read("lifecycle/latest_run", tenant=lg.tenant) == []

    run = lg.consolidate()
    assert run["merges_created"] == 1 and run["merged_sources"] == 2
    [merge] = consolidated(store, lg.tenant)
    assert merge["transform"] == "merge/v1" and merge["sources"] == ["wifi-1", "wifi-2"]
    assert merge["text"] == DUPES[0]["text"] and merge["kind"] == "episode"  # canonical: the earliest source
    mems = {r["id"]: dict(r["props"]) for r in store.read("export/memories", tenant=lg.tenant)}
    assert mems["wifi-1"]["merged_into"] == mems["wifi-2"]["merged_into"] == merge["id"]
    assert "merged_into" not in mems["err-q"] and "merged_into" not in mems["err-p"]  # zx9q ≠ zx9p
    assert mems[merge["id"]]["origin"] == "consolidated"
    [row] = store.read("lifecycle/latest_run", tenant=lg.tenant)
    assert row["id"] == run["run_id"] and json.loads(row["params"])["threshold"] == 0.92
    runs = store.read("lifecycle/export_runs", tenant=lg.tenant)
    assert runs[0]["props"]["merges_created"] == 1

    again = lg.consolidate()  # idempotent: the consolidated layer is a function of the records
    assert again["merges_created"] == again["merges_removed"] == 0 and again["kept"] == 1
    assert len(store.read("lifecycle/export_runs", tenant=lg.tenant)) == 2

    # forgetting the merge itself releases its sources, and later runs do not derive it again
    lg.forget(merge["id"])
    mems = {r["id"]: dict(r["props"]) for r in store.read("export/memories", tenant=lg.tenant)}
    assert "merged_into" not in mems["wifi-1"] and "merged_into" not in mems["wifi-2"]
    assert lg.consolidate()["merges_created"] == 0 and consolidated(store, lg.tenant) == []
    store.write("lifecycle/clear_tombstones", tenant=lg.tenant, ids=[merge["id"]])
    assert lg.consolidate()["merges_created"] == 1

    # forgetting one source dissolves the merge and gives the other back to recall
    lg.forget("wifi-1")
    assert consolidated(store, lg.tenant) == []
    mems = {r["id"]: dict(r["props"]) for r in store.read("export/memories", tenant=lg.tenant)}
    assert "merged_into" not in mems["wifi-2"]


def test_consolidation_rebuilds_inconsistent_slot_chains(lg, store):
    lg.ingest(
        [
            {
                "id": "v1",
                "text": "Sam lives in Boston.",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Boston",
                "at": "2026-01-01",
            },
            {
                "id": "v2",
                "text": "Sam lives in Lisbon.",
                "subject": "sam",
                "predicate": "lives_in",
                "object": "Lisbon",
                "at": "2026-03-01",
            },
        ]
    )
    store.write("lifecycle/drop_chains", tenant=lg.tenant)  # as if imported without order
    assert not [e for e in store.read("export/edges", tenant=lg.tenant) if e["type"] == "SUPERSEDES"]
    lg.consolidate()
    sup = {(e["from"], e["to"]) for e in store.read("export/edges", tenant=lg.tenant) if e["type"] == "SUPERSEDES"}
    assert sup == {("v2", "v1")}


def test_co_occurrence_decays_and_is_reinforced(lg, store):
    lg.ingest(
        [
            {"id": "c1", "text": "Ravi and Jo reviewed the billing design.", "entities": ["Ravi", "Jo"]},
            {"id": "c2", "text": "Jo paired with Ravi on the migration.", "entities": ["Ravi", "Jo"]},
            {"id": "c3", "text": "Ravi met Ana about hiring.", "entities": ["Ravi", "Ana"]},
        ]
    )
    lg.consolidate()
    got = {r["key"]: r for r in lg.co_occurring(["ravi"])}
    assert got["jo"]["weight"] == pytest.approx(2.0) and got["ana"]["weight"] == pytest.approx(1.0)
    assert got["jo"]["via"] == ["ravi"] and [r["key"] for r in lg.co_occurring(["ravi"])] == ["jo", "ana"]
    lg.consolidate()
    assert {r["key"]: r["weight"] for r in lg.co_occurring(["ravi"])} == pytest.approx({"jo": 1.9, "ana": 0.95})
    lg.ingest([{"id": "c4", "text": "Jo asked Ravi for a review.", "entities": ["Ravi", "Jo"]}])
    lg.consolidate()
    assert {r["key"]: r["weight"] for r in lg.co_occurring(["jo"])} == pytest.approx({"ravi": 1.9 * 0.95 + 1})
    for _ in range(3):
        lg.consolidate(decay=0.1)
    assert {r["key"]: r["weight"] for r in lg.co_occurring(["ravi"])} == pytest.approx({"jo": 0.1, "ana": 0.1})
    # forgetting the only memory that linked Ravi and Ana removes that co-occurrence
    lg.forget("c3")
    assert [r["key"] for r in lg.co_occurring(["ravi"])] == ["jo"]
    assert lg.co_occurring([]) == []


# ---------------------------------------------------------------------------- export / import / rebuild


def _rich_tenant(g: LG) -> None:
    recs = [json.loads(line) for line in open(FIXTURES / "demo" / "demo.jsonl", encoding="utf-8")]
    for r in recs:
        r["tenant"] = g.tenant
    extra = (
        thai_records(5)
        + DUPES
        + [
            {"id": "ph-1", "text": "My phone number is 555-0101.", "at": "2026-01-10T09:00:00Z"},
            {
                "id": "ph-2",
                "text": "My phone number changed to 555-0199.",
                "at": "2026-03-10T09:00:00Z",
                "retention": "short",
            },
            {
                "id": "gw-1",
                "text": "The payment gateway TLS certificate expired on Monday morning.",
                "at": "2026-03-16T08:00:00Z",
            },
            {
                "id": "gw-2",
                "text": "Checkout failed for an hour because the payment gateway TLS certificate expired.",
                "at": "2026-03-16T10:00:00Z",
            },
        ]
    )
    report = g.ingest(recs + extra)
    assert report.errors == []
    g.consolidate()


def test_export_import_round_trip_is_byte_identical(lg, store, embedder, other_tenant, tmp_path):
    _rich_tenant(lg)
    lg.forget("bg-01")
    first = tmp_path / "first.jsonl"
    out = lg.export(first)
    lines = first.read_text(encoding="utf-8").splitlines()
    assert out["lines"] == len(lines) and json.loads(lines[0])["type"] == "header"
    kinds = {json.loads(line)["type"] for line in lines}
    assert kinds == {"header", "memory", "entity", "edge", "tombstone", "run"}
    rels = {json.loads(line)["rel"] for line in lines if '"type":"edge"' in line}
    assert rels == {"SUPERSEDES", "CAUSED_BY", "NEXT", "MENTIONS", "DERIVED_FROM", "CO_OCCURS"}
    assert 'embedding"' not in first.read_text(encoding="utf-8").replace("embedding_model", "")

    store.auto_commit("admin/delete_tenant", tenant=lg.tenant)
    assert lg.manifest()["counts"]["memories"] == 0
    restored = lg.import_jsonl(first)
    assert restored["memories"] == out["memories"] and restored["edges"] == out["edges"]
    second = tmp_path / "second.jsonl"
    lg.export(second)
    assert second.read_bytes() == first.read_bytes()
    # the restored tenant works: facts, causes, recall
    assert lg.now("maya", "lives_in").object == "Lisbon"
    assert lg.why("why were pictures broken on the product pages on Friday?").roots[0]["id"] == "img-root"

    # into another tenant name: slots are re-keyed, everything else restored
    other = _graph(store, embedder, other_tenant)
    res = other.import_jsonl(first)
    assert res["slots_rekeyed"] > 0 and res["memories"] == out["memories"]
    assert other.now("maya", "lives_in").object == "Lisbon"
    assert other.now("user", "phone_number").object == "555-0199"
    with pytest.raises(InputError, match="not empty"):
        other.import_jsonl(first)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        lines[0] + "\n" + '{"type":"edge","rel":"OWNS","from":"a","from_kind":"memory","to":"b",'
        '"to_kind":"memory","props":{}}\n',
        encoding="utf-8",
    )
    store.auto_commit("admin/delete_tenant", tenant=other_tenant)
    with pytest.raises(InputError, match="unknown relationship type"):
        other.import_jsonl(bad)
    assert other.manifest()["counts"]["memories"] == 0  # nothing half-written


@pytest.mark.generations  # a smoke of this face on the second server generation
def test_rebuild_recomputes_every_derived_artefact_identically(lg, store, tmp_path):
    _rich_tenant(lg)
    m0 = lg.manifest()
    derived = m0["derived"]
    assert derived["compiled_facts"] and derived["consolidated"] and derived["inferred_causes"]
    assert derived["slot_chains"] and derived["next"] and derived["merged_into"]

    path = tmp_path / "manifest.json"
    out = lg.rebuild(manifest_path=path)
    assert out["identical"], out["differences"]
    assert out["after_digest"] == m0["digest"]
    assert out["embedding_max_drift"] < 1e-4
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["before"]["digest"] == saved["after"]["digest"] == m0["digest"]

    # damage the derived state (chains, compiled facts, summaries): rebuild restores the same manifest
    store.write("lifecycle/drop_chains", tenant=lg.tenant)
    store.write("lifecycle/drop_derived_memories", tenant=lg.tenant, origins=["compiled", "consolidated"])
    store.write("derived/drop_inferred_causes", tenant=lg.tenant, ids=None)
    damaged = lg.manifest()
    assert damaged["digest"] != m0["digest"]
    fixed = lg.rebuild()
    assert not fixed["identical"] and fixed["after_digest"] == m0["digest"]
    assert lg.now("user", "phone_number").object == "555-0199"

    # after forgetting (a summary source, a compiled fact on its own) the rebuild agrees with the repairs
    lg.forget("thai-1")
    lg.forget("ph-2#f1")
    assert lg.now("user", "phone_number").object == "555-0101"
    assert lg.rebuild()["identical"]
    assert lg.now("user", "phone_number").object == "555-0101"  # the tombstoned fact is not compiled again


# ---------------------------------------------------------------------------- CLI


def test_cli_lifecycle_commands(lg, cli_env, tmp_path):
    from kgmem.cli import lifecycle_cmd as lc

    lg.ingest(DUPES + thai_records(4))
    runner = CliRunner()
    res = runner.invoke(lc.consolidate, ["--dry-run", "--json"], env=cli_env)
    assert res.exit_code == 0, res.output
    plan = json.loads(res.output)
    assert plan["dry_run"] and plan["merges_created"] == 1 and plan["summaries_created"] == 1
    res = runner.invoke(lc.consolidate, ["--json"], env=cli_env)
    assert res.exit_code == 0 and json.loads(res.output)["run_id"]
    res = runner.invoke(lc.gc, ["--dry-run", "--json"], env=cli_env)
    assert res.exit_code == 0 and json.loads(res.output)["count"] == 0
    res = runner.invoke(lc.forget, ["nope", "--json"], env=cli_env)
    assert res.exit_code == 1 and "Error: no memory with id 'nope'" in res.output and "Fix:" in res.output
    res = runner.invoke(lc.forget, ["err-q", "--json"], env=cli_env)
    assert res.exit_code == 0 and json.loads(res.output)["forgotten"] == ["err-q"]
    path = tmp_path / "t.jsonl"
    res = runner.invoke(lc.export, [str(path), "--json"], env=cli_env)
    assert res.exit_code == 0 and json.loads(res.output)["memories"] >= 8
    res = runner.invoke(lc.import_, [str(path)], env=cli_env)
    assert res.exit_code == 1 and "not empty" in res.output
    res = runner.invoke(lc.rebuild, ["--json"], env=cli_env)
    assert res.exit_code == 0 and json.loads(res.output)["identical"], res.output
    res = runner.invoke(lc.gc, ["--ttl", "bogus=1d"], env=cli_env)
    assert res.exit_code == 1 and "retention class" in res.output


def test_a_forgotten_record_is_not_ingested_again_unless_forced(mg):
    rec = {"id": "secret", "text": "The staging root password is hunter2", "at": "2026-01-01"}
    mg.ingest([rec])
    mg.forget("secret")
    again = mg.ingest([rec])
    assert again.created == 0 and "was forgotten" in again.errors[0]["error"]
    assert mg.recall("staging root password", include_superseded=True).hits == []
    forced = mg.ingest([rec], force=True)
    assert forced.created == 1 and forced.errors == []
    assert mg.get("secret").text == rec["text"]

"""Recall's top 10 pinned: every question of the recall and updates fixtures, and some more over the same memories
(time windows, as-of, channel subsets), asked as a user asks them, must rank the same hits in the same order and
abstain alike as when tests/data/rankings_kept.json was written. A hit is its (text, time): ids are per tenant;
scores are not compared. What a change of how the channels run (kgmem/query/plan.py, execute.py, recall.py) must keep.

A change meant to alter rankings writes the file again: ``KGMEM_WRITE_RANKINGS=1`` runs the questions, writes it
and fails (so that writing never passes); run again without it, then review the diff of the file.

Each server generation has its own golden (5.26 has no in-index tenant filter: its vector channel over-fetches or
scans): tests/data/rankings_kept.json for 2026.x, tests/data/rankings_kept_5.json for 5.26; CI runs the test on
both (it is marked ``generations``).
"""

from __future__ import annotations

import json
import os
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from kgmem import MemoryGraph
from kgmem.api.reading import optional_time
from kgmem.query.filters import build_filters
from kgmem.results import iso

from ..conftest import FIXTURES, _fresh

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDENS = {"2026": DATA / "rankings_kept.json", "5": DATA / "rankings_kept_5.json"}  # by the server's major version
pytestmark = pytest.mark.generations  # run again on the second server generation (./dev test)
WRITE = os.environ.get("KGMEM_WRITE_RANKINGS") == "1"
K = 10
VK, ENTITY = ["vector", "keyword"], ["entity"]
CONTEXTS = ["context_vector", "wide_vector", "context_keyword", "window_keyword"]

# Questions beyond the fixtures', over the same memories ("data": recall/<tenant> or updates/<case key>). Every
# phrase measured from the present ("last week", "since 2024") has its "now": no ranking depends on the day it runs.
EXTRA: list[dict[str, Any]] = [
    # time windows from a phrase (filters with start/end: one statement per channel)
    {"data": "recall/acme", "q": "what did we discuss last week?", "now": "2026-04-20T09:00:00Z"},
    {"data": "recall/acme", "q": "which decisions were made since March 10?", "now": "2026-04-01T09:00:00Z"},
    {"data": "recall/acme", "q": "what happened with billing-api in the last 30 days?", "now": "2026-04-20T09:00:00Z"},
    {"data": "recall/acme", "q": "any incidents before May 10?", "now": "2026-05-25T09:00:00Z"},
    {"data": "recall/acme", "q": "what did Priya do in the past two months?", "now": "2026-05-20T09:00:00Z"},
    {"data": "recall/acme", "q": "what did we decide last week?", "now": "2026-12-01T09:00:00Z"},  # empty: dropped
    {"data": "recall/globex", "q": "which depot decisions were made since April 2026?", "now": "2026-05-20T09:00:00Z"},
    {"data": "recall/globex", "q": "what did Omar work on this month?", "now": "2026-04-20T09:00:00Z"},
    {"data": "updates/fx-vc-locker", "q": "Which locker did the user have before June 2024?"},
    {"data": "updates/fx-rc-release", "q": "Who approved mobile releases since 2024?", "now": "2025-01-01T00:00:00Z"},
    {"data": "updates/fx-vc-choir", "q": "Where did the choir rehearse since 2024?", "now": "2025-01-01T00:00:00Z"},
    {"data": "updates/fx-qt-heartrate", "q": "What was the resting heart rate before June 2024?"},
    {"data": "updates/fx-qt-crashfree", "q": "what was the crash-free rate in the last 3 months?", "now": "2024-04-15T00:00:00Z"},
    {"data": "updates/fx-co-hall", "q": "what room was the workshop in yesterday?", "now": "2024-02-13T12:00:00Z"},
    {"data": "updates/fx-co-invoice", "q": "What did the print shop bill since April 2024?", "now": "2025-01-01T00:00:00Z"},
    {"data": "updates/fx-nc-laptop", "q": "What laptop did the user talk about last week?", "now": "2024-12-16T09:00:00Z"},
    # explicit since / until (hard filters, no phrase)
    {"data": "recall/globex", "q": "what did we decide?", "since": "2026-03-01", "until": "2026-04-01"},
    {"data": "recall/acme", "q": "deploy freeze", "until": "2026-03-20"},
    # a calendar phrase only ranks (no window)
    {"data": "updates/fx-rv-kayak", "q": "what did the user say about the kayak in March 2024?"},
    {"data": "updates/fx-rc-release", "q": "Who signed off mobile releases in March 2024?"},
    # as of a time
    {"data": "recall/acme", "q": "zx9q", "at": "2026-02-04T00:00:00Z"},
    {"data": "recall/acme", "q": "what discount did we get from the CDN?", "at": "2026-03-01T00:00:00Z"},
    {"data": "recall/acme", "q": "anything involving Priya?", "at": "2026-03-01T00:00:00Z"},
    {"data": "recall/acme", "q": "what happened last week?", "at": "2026-03-20T00:00:00Z"},  # and a window
    {"data": "recall/globex", "q": "which map provider are we switching to?", "at": "2026-04-01T00:00:00Z"},
    {"data": "recall/globex", "q": "what is the password policy?", "at": "2026-01-05T00:00:00Z"},  # nothing yet
    {"data": "updates/fx-vc-locker", "q": "Which locker does the user keep the bicycle in?", "at": "2023-09-01T00:00:00Z"},
    {"data": "updates/fx-qt-heartrate", "q": "What is the user's resting pulse now?", "at": "2024-05-15T00:00:00Z"},
    {"data": "updates/fx-nc-laptop", "q": "Which laptop does the user work on this week?", "at": "2024-12-11T00:00:00Z"},
    # channel subsets
    {"data": "recall/acme", "q": "zx9q", "channels": VK},
    {"data": "recall/acme", "q": "what does error zx9q mean?", "channels": VK},
    {"data": "recall/globex", "q": "how big is the fleet?", "channels": VK},
    {"data": "recall/acme", "q": "which decisions were made since March 10?", "now": "2026-04-01T09:00:00Z", "channels": VK},
    {"data": "updates/fx-vc-choir", "q": "Which venue hosted choir rehearsals in November 2023?", "at": "2023-11-15T00:00:00Z", "channels": VK},
    {"data": "recall/acme", "q": "anything involving Priya?", "channels": ENTITY},
    {"data": "recall/acme", "q": "what do we know about billing-api?", "channels": ENTITY},
    {"data": "recall/globex", "q": "anything involving Lena?", "channels": ENTITY},
    {"data": "recall/acme", "q": "what did Priya do in the past two months?", "now": "2026-05-20T09:00:00Z", "channels": ENTITY},
    {"data": "recall/globex", "q": "anything involving Omar?", "at": "2026-03-01T00:00:00Z", "channels": ENTITY},
    {"data": "recall/acme", "q": "who runs the vendor consolidation?", "channels": CONTEXTS},
    {"data": "updates/fx-vc-choir", "q": "Where does the choir practise at the moment?", "channels": ["vector", "keyword", "entity", *CONTEXTS[1:]]},
    {"data": "recall/acme", "q": "ERR-4411", "channels": ["keyword"]},
    {"data": "recall/globex", "q": "when do drivers need a break?", "channels": ["vector"]},
    {"data": "recall/acme", "q": "any incidents before May 10?", "now": "2026-05-25T09:00:00Z", "channels": ["keyword", "entity"]},
]  # fmt: skip


def questions() -> list[dict[str, Any]]:
    """Every question: the recall fixture's (with its "now"), the updates fixture's (with its "at"), EXTRA."""
    out = []
    for line in (FIXTURES / "recall" / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        out.append({"data": f"recall/{q['tenant']}", "q": q["query"], **({"now": q["now"]} if "now" in q else {})})
    for case in json.loads((FIXTURES / "updates" / "cases.json").read_text()):
        for q in case["questions"]:
            out.append({"data": f"updates/{case['key']}", "q": q["q"], **({"at": q["at"]} if "at" in q else {})})
    out += EXTRA
    keys = [key(q) for q in out]
    assert len(set(keys)) == len(keys), "a question is asked twice"
    return out


def kind(ask: dict[str, Any]) -> str:
    """channels (a subset named) / as-of (an at) / windowed (filters with start or end) / default."""
    if "channels" in ask:
        return "channels"
    if "at" in ask:
        return "as-of"
    f, _ = build_filters(
        ask["q"],
        tenant="-",
        now=optional_time(ask.get("now"), "now"),
        since=optional_time(ask.get("since"), "since"),
        until=optional_time(ask.get("until"), "until"),
    )
    return "windowed" if f.start is not None or f.end is not None else "default"


@pytest.fixture(scope="module")
def graphs(store, embedder):
    """One fresh tenant per fixture tenant (acme, globex) and per updates case, each ingested as the fixtures'
    own tests and the updates suite do; all deleted afterwards."""
    records = [json.loads(line) for line in (FIXTURES / "recall" / "memories.jsonl").read_text().splitlines()]
    sets = {
        f"recall/{t}": [{k: v for k, v in r.items() if k != "tenant"} for r in records if r.get("tenant", "acme") == t]
        for t in ("acme", "globex")
    }
    for case in json.loads((FIXTURES / "updates" / "cases.json").read_text()):
        sets[f"updates/{case['key']}"] = [{k: m[k] for k in ("id", "text", "at")} for m in case["memories"]]
    fresh = contextmanager(_fresh)  # conftest's fresh tenant: deleted after, or at exit if the run is stopped
    with ExitStack() as stack:
        out = {}
        for label, rows in sets.items():
            g = MemoryGraph(tenant=stack.enter_context(fresh(store, "test")), store=store, embedder=embedder)
            g._schema_ready = True  # applied once per session by the store fixture
            assert g.ingest(rows).errors == [], label
            out[label] = g
        yield out


def ranking(g: MemoryGraph, ask: dict[str, Any]) -> dict[str, Any]:
    options = {name: ask[name] for name in ("at", "now", "since", "until") if name in ask}
    if "channels" in ask:
        options["channels"] = tuple(ask["channels"])
    res = g.recall(ask["q"], k=K, **options)
    return {"ask": ask, "kind": kind(ask), "abstained": res.abstained, "top": [[h.text, iso(h.at)] for h in res.hits]}


def golden_file(server: str) -> Path:
    major = generation(server)
    if major not in GOLDENS:
        pytest.fail(f"no golden rankings for Neo4j {server}: name one in GOLDENS and write it (KGMEM_WRITE_RANKINGS=1)")
    return GOLDENS[major]


def write(server: str, rows: list[dict[str, Any]]) -> None:
    path = golden_file(server)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text(f'{{"server": {json.dumps(server)}, "k": {K}, "questions": [\n{lines}\n]}}\n')


def key(ask: dict[str, Any]) -> str:
    return json.dumps(ask, sort_keys=True)


def generation(version: str) -> str:
    return version.split(".")[0]


def test_every_ranking_is_kept(store, graphs):
    server = store.server_info().version
    path = golden_file(server)
    if not WRITE:
        golden = json.loads(path.read_text())
        assert generation(golden["server"]) == generation(server), (path, golden["server"], server)
    fresh = [ranking(graphs[ask["data"]], ask) for ask in questions()]
    if WRITE:
        write(server, fresh)
        pytest.fail("golden written; run again without KGMEM_WRITE_RANKINGS")
    kept = {key(r["ask"]): r for r in golden["questions"]}
    differ = [(r, kept.get(key(r["ask"]))) for r in fresh if r != kept.get(key(r["ask"]))]
    gone = len(set(kept) - {key(r["ask"]) for r in fresh})  # pinned, and no longer asked
    if differ or gone:

        def show(r: dict[str, Any] | None) -> str:
            if r is None:
                return "    (not in the golden)"
            top = "".join(f"\n      {i}. {text!r} @ {at}" for i, (text, at) in enumerate(r["top"], 1))
            return f"    kind {r['kind']}, abstained {r['abstained']}:{top or ' no hits'}"

        parts = [
            f"{len(differ)} of {len(fresh)} rankings differ from {path.name}"
            + (f"; {gone} of its questions were not asked" if gone else "")
            + " (KGMEM_WRITE_RANKINGS=1 writes it again)"
        ]
        for now, then in differ[:5]:
            parts.append(f"\n{json.dumps(now['ask'])}\n  golden:\n{show(then)}\n  now:\n{show(now)}")
        pytest.fail("\n".join(parts), pytrace=False)

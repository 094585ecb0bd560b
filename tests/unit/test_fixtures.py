"""Validates the evaluation fixtures under fixtures/ (no database, no model; predicates through kgmem.vocab).

Every memory file must follow the JSONL record contract (docs/interface.md section 1); every question
file must point at memories that exist, in the right tenant; causal chains must follow caused_by from
symptom to root; supersession expectations must agree with a small reference reading of the contract
(latest `at` not later than the question's time wins, per slot); and the causal suite must stay honest:
each why-question shares at most one content word with its root.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pytest

from kgmem.ingest.records import FIELDS as RECORD_FIELDS
from kgmem.ingest.records import KINDS as RECORD_KINDS
from kgmem.vocab import Vocabulary

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# The memory-record suites (other fixture folders, e.g. router/, have their own formats and tests).
SUITES = ("causal", "supersession", "recall", "demo")
MEMORY_FILES = sorted(p for s in SUITES for p in (FIXTURES / s).glob("*.jsonl") if p.name != "questions.jsonl")
QUESTION_FILES = sorted(p for s in SUITES for p in (FIXTURES / s).glob("questions.jsonl"))

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
KINDS = set(RECORD_KINDS)  # the contract's, as kgmem validates them
KNOWN_FIELDS = set(RECORD_FIELDS)

# The controlled vocabulary kgmem itself uses (kgmem/data/vocabulary.json): aliases -> canonical, cardinality.
VOCAB = Vocabulary.default()

STOP = set(
    """a an the and or but if of on in at to for from by with about into over after before during
until since as is are was were be been being do does did done doing have has had having i me my we our
you your he she it its they them their this that these those what which who whom whose why how when where
there here so such not no nor too very can could should would will shall may might must just than then
up down out off again further once all any both each few more most other some own same only s t don
didn doesn isn wasn weren couldn can't won wouldn shouldn aren hadn hasn haven mustn anything something
get got keep kept go went going""".split()
)


def canon(pred: str) -> str:
    return VOCAB.normalize(pred).name


def is_alias(pred: str) -> bool:
    return VOCAB.normalize(pred).status == "alias"


def multi_valued(pred: str) -> bool:
    return VOCAB.is_multi(canon(pred))


def stem(tok: str) -> str:
    """A crude stemmer: plural, then -ing/-ed, then a final -e (so arrive/arriving/arrived meet)."""
    for group in ((("ies", "y"), ("es", ""), ("s", "")), (("ing", ""), ("ed", ""))):
        for suf, rep in group:
            if tok.endswith(suf) and len(tok) - len(suf) >= 3 and not tok.endswith("ss"):
                tok = tok[: len(tok) - len(suf)] + rep
                break
    return tok[:-1] if len(tok) > 3 and tok.endswith("e") else tok


def content_words(text: str) -> set[str]:
    toks = re.findall(r"[a-z0-9]+", text.lower())
    return {stem(t) for t in toks if t not in STOP and len(t) > 1}


def parse_at(value: str) -> datetime:
    if DATE.match(value):
        return datetime.fromisoformat(value).replace(tzinfo=timezone.utc)
    assert RFC3339.match(value), f"not RFC 3339: {value!r}"
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def load(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:  # pragma: no cover - reported as a failure
            pytest.fail(f"{path.relative_to(FIXTURES)}:{n}: invalid JSON: {e}")
        assert isinstance(obj, dict), f"{path}:{n}: not an object"
        rows.append(obj)
    return rows


def by_id(rows):
    return {r["id"]: r for r in rows}


def test_fixture_files_exist():
    names = {str(p.relative_to(FIXTURES)) for p in MEMORY_FILES + QUESTION_FILES}
    for required in [
        "causal/incidents.jsonl",
        "causal/incidents_words.jsonl",
        "causal/distractors.jsonl",
        "causal/questions.jsonl",
        "supersession/facts.jsonl",
        "supersession/questions.jsonl",
        "recall/memories.jsonl",
        "recall/questions.jsonl",
        "demo/demo.jsonl",
    ]:
        assert required in names
    assert (FIXTURES / "demo" / "README.md").is_file()


# ---------------------------------------------------------------- record contract (every memory file)


@pytest.mark.parametrize("path", MEMORY_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_memory_records_follow_contract(path):
    rows = load(path)
    assert rows, "empty fixture"
    seen = defaultdict(set)
    for n, r in enumerate(rows, 1):
        where = f"{path.relative_to(FIXTURES)} record {n} ({r.get('id')})"
        assert set(r) <= KNOWN_FIELDS, f"{where}: unknown fields {set(r) - KNOWN_FIELDS}"
        assert isinstance(r.get("text"), str) and 1 <= len(r["text"]) <= 32768 and r["text"].strip(), where
        if "at" in r:
            parse_at(r["at"])
        if "kind" in r:
            assert r["kind"] in KINDS, where
        spo = [k in r for k in ("subject", "predicate", "object")]
        assert all(spo) or not any(spo), f"{where}: subject/predicate/object must be all or none"
        if all(spo):
            assert all(isinstance(r[k], str) and r[k] for k in ("subject", "predicate", "object")), where
        if "polarity" in r:
            assert isinstance(r["polarity"], bool), where
        if "confidence" in r:
            assert isinstance(r["confidence"], (int, float)) and 0 <= r["confidence"] <= 1, where
        for key in ("entities", "caused_by"):
            if key in r:
                assert isinstance(r[key], list) and all(isinstance(x, str) and x for x in r[key]), where
        for key in ("id", "stream", "source", "tenant", "user"):
            if key in r:
                assert isinstance(r[key], str) and r[key], where
        if "id" in r:
            tenant = r.get("tenant", "default")
            assert r["id"] not in seen[tenant], f"{where}: duplicate id in tenant {tenant}"
            seen[tenant].add(r["id"])


@pytest.mark.parametrize("path", MEMORY_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_caused_by_resolves_to_earlier_memory_in_same_file(path):
    rows = load(path)
    index = {(r.get("tenant", "default"), r["id"]): r for r in rows if "id" in r}
    for r in rows:
        for cause_id in r.get("caused_by", []):
            cause = index.get((r.get("tenant", "default"), cause_id))
            assert cause is not None, f"{r['id']}: caused_by {cause_id} not in {path.name} (same tenant)"
            assert parse_at(cause["at"]) < parse_at(r["at"]), f"{r['id']}: cause {cause_id} is not earlier"


# ---------------------------------------------------------------- causal suite

CAUSAL = FIXTURES / "causal"
INC_ID = re.compile(r"^inc\d{2}-(root|h\d|symptom)$")
CONNECTIVES = ("because", "due to", "caused by", "after", "since", "as ", "when ")


def _incidents():
    return load(CAUSAL / "incidents.jsonl")


def test_incident_chains_shape():
    rows = _incidents()
    idx = by_id(rows)
    for r in rows:
        assert INC_ID.match(r["id"]), r["id"]
        assert "tenant" not in r
        assert r.get("stream", "").startswith("inc-"), r["id"]
        if r["id"].endswith("-root"):
            assert "caused_by" not in r, f"{r['id']}: a root has no cause"
        else:
            assert len(r.get("caused_by", [])) == 1, f"{r['id']}: effect needs exactly one direct cause"
            assert idx[r["caused_by"][0]]["id"].split("-")[0] == r["id"].split("-")[0], "cause crosses incidents"
    chains = Counter(r["id"].split("-")[0] for r in rows)
    assert len(chains) >= 10
    for inc, n in chains.items():
        members = [r for r in rows if r["id"].startswith(inc + "-")]
        ats = {r["id"]: parse_at(r["at"]) for r in members}
        assert ats[f"{inc}-root"] == min(ats.values()), f"{inc}: root must be earliest"
        assert ats[f"{inc}-symptom"] == max(ats.values()), f"{inc}: symptom must be latest"
        assert 3 <= n - 1 <= 5, f"{inc}: {n - 1} hops"
        assert all(a.year == 2026 and 1 <= a.month <= 6 for a in ats.values()), inc
    days = {parse_at(r["at"]).date() for r in rows}
    assert len({d.month for d in days}) == 6, "incidents should spread over 2026-01..2026-06"


def test_words_variant_matches_explicit_chains():
    explicit = by_id(_incidents())
    words = load(CAUSAL / "incidents_words.jsonl")
    assert set(by_id(words)) == set(explicit)
    for w in words:
        e = explicit[w["id"]]
        assert "caused_by" not in w, f"{w['id']}: the words variant must not carry caused_by"
        assert w["at"] == e["at"] and w.get("stream") == e.get("stream")
        if "caused_by" not in e:
            assert w["text"] == e["text"]
            continue
        assert w["text"].startswith(e["text"].rstrip(".")), w["id"]
        clause = w["text"][len(e["text"].rstrip(".")) :].lower()
        assert any(c in clause for c in CONNECTIVES), f"{w['id']}: cause not stated in words"
        cause_text = explicit[e["caused_by"][0]]["text"].rstrip(".").lower()
        assert cause_text not in clause, f"{w['id']}: cause copied, not paraphrased"


def test_distractors():
    dist = load(CAUSAL / "distractors.jsonl")
    incident_ids = set(by_id(_incidents()))
    assert len(dist) >= 240
    months = Counter(parse_at(d["at"]).month for d in dist)
    assert set(months) == {1, 2, 3, 4, 5, 6}
    assert sum(1 for d in dist if "stream" in d) >= 30
    for d in dist:
        assert re.match(r"^dist-\d{3}$", d["id"]) and d["id"] not in incident_ids
        assert "caused_by" not in d and "tenant" not in d
    assert len({d["text"] for d in dist}) == len(dist), "duplicate distractor texts"


def test_causal_questions_follow_links_and_stay_honest():
    idx = by_id(_incidents())
    qs = load(CAUSAL / "questions.jsonl")
    chains = [q for q in qs if "chain" in q]
    abstain = [q for q in qs if q.get("expect") == "abstain"]
    assert len(chains) >= 10 and len(abstain) >= 6
    assert len(chains) + len(abstain) == len(qs)
    covered = set()
    for q in chains:
        chain = q["chain"]
        assert q["query"].strip() and chain[0] == q["symptom"] and chain[-1] == q["root"]
        assert 3 <= len(chain) - 1 <= 5, f"{q['symptom']}: {len(chain) - 1} hops"
        for effect, cause in zip(chain, chain[1:]):
            assert idx[effect].get("caused_by") == [cause], f"{effect} -/-> {cause}"
            assert parse_at(idx[cause]["at"]) < parse_at(idx[effect]["at"])
        assert "caused_by" not in idx[q["root"]]
        shared = content_words(q["query"]) & content_words(idx[q["root"]]["text"])
        assert len(shared) <= 1, f"question shares {shared} with root {q['root']}"
        covered.add(q["symptom"].split("-")[0])
    assert covered == {i.split("-")[0] for i in idx}, "every incident has a question"
    for q in abstain:
        assert set(q) == {"query", "expect"} and q["query"].lower().startswith("why")


# ---------------------------------------------------------------- supersession

SUP = FIXTURES / "supersession"
EPISODE_RULES = [  # a tiny reference compiler for the first-person episodes (subject = record's user)
    (re.compile(r"^i don'?t like (.+?)( anymore| any more)?\.?$", re.I), "likes", False),
    (re.compile(r"^i like (.+?)\.?$", re.I), "likes", True),
    (re.compile(r"^my phone(?: number)? (?:is|changed to) (.+?)\.?$", re.I), "phone_number", True),
    (re.compile(r"^i (?:live in|moved to) (.+?)\.?$", re.I), "lives_in", True),
    (re.compile(r"^my manager is (.+?)(?: now)?\.?$", re.I), "manager", True),
]


def _compile_episode(r):
    for rx, pred, pol in EPISODE_RULES:
        m = rx.match(r["text"].strip())
        if m:
            return {"subject": r["user"], "predicate": pred, "object": m.group(1), "polarity": pol, "at": r["at"]}
    return None


def _slots(records):
    slots = defaultdict(list)
    for r in records:
        pred = canon(r["predicate"])
        key = (r["subject"], pred, r["object"].lower() if multi_valued(pred) else None)
        slots[key].append(r)
    for versions in slots.values():
        versions.sort(key=lambda v: parse_at(v["at"]))
    return slots


def test_supersession_facts_cover_the_cases():
    facts = load(SUP / "facts.jsonl")
    explicit = [r for r in facts if "subject" in r]
    episodes = [r for r in facts if "subject" not in r]
    assert all(r.get("kind") == "fact" for r in explicit)
    assert len(episodes) >= 4 and all("user" in r and "at" in r for r in episodes)
    assert all(_compile_episode(r) for r in episodes), "an episode the reference rules cannot read"
    assert any(is_alias(r["predicate"]) for r in explicit), "no predicate aliases used"
    assert any(r.get("polarity") is False for r in explicit)
    # out-of-order arrival: some slot lists a newer version before an older one
    order = defaultdict(list)
    for r in explicit:
        pred = canon(r["predicate"])
        order[(r["subject"], pred, r["object"] if multi_valued(pred) else None)].append(parse_at(r["at"]))
    assert any(seq != sorted(seq) for seq in order.values()), "no out-of-order slot"


def test_supersession_questions_agree_with_reference_reading():
    facts = load(SUP / "facts.jsonl")
    explicit = [r for r in facts if "subject" in r]
    compiled = [c for c in (_compile_episode(r) for r in facts if "subject" not in r) if c]
    slots_explicit, slots_compiled = _slots(explicit), _slots(compiled)
    qs = load(SUP / "questions.jsonl")
    assert len(qs) >= 30
    for q in qs:
        assert q["op"] in {"now", "as_of", "history"} and q["query"].strip()
        assert q["predicate"] == canon(q["predicate"]), f"question uses alias {q['predicate']}"
        multi = multi_valued(q["predicate"])
        assert ("object" in q) == multi, f"{q['query']}: object only for multi-valued predicates"
        slots = slots_compiled if q.get("compiled") else slots_explicit
        key = (q["subject"], q["predicate"], q["object"].lower() if multi else None)
        assert key in slots, f"{q['query']}: no such slot {key}"
        versions = slots[key]
        pol = lambda v: v.get("polarity", True)
        if q["op"] == "history":
            assert [v["object"].lower() for v in versions] == [o.lower() for o in q["expect_objects"]], q["query"]
            if "expect_polarities" in q:
                assert [pol(v) for v in versions] == q["expect_polarities"], q["query"]
            continue
        if q["op"] == "as_of":
            t = parse_at(q["at"])
            live = [v for v in versions if parse_at(v["at"]) <= t]
        else:
            assert "at" not in q
            live = versions
        value = live[-1] if live else None
        if q["expect"] is None:
            assert value is None, q["query"]
        else:
            assert value is not None, q["query"]
            assert value["object"].lower() == q["expect"]["object"].lower(), q["query"]
            assert pol(value) == q["expect"]["polarity"], q["query"]


# ---------------------------------------------------------------- recall

REC = FIXTURES / "recall"
CODE = re.compile(r"#?[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


def test_recall_corpus_and_questions():
    mems = load(REC / "memories.jsonl")
    tenant_of = {r["id"]: r["tenant"] for r in mems}
    assert len(tenant_of) == len(mems), "recall ids must be unique across the file"
    tenants = Counter(tenant_of.values())
    assert set(tenants) == {"acme", "globex"} and 130 <= len(mems) <= 170
    qs = load(REC / "questions.jsonl")
    kinds = Counter(q["kind"] for q in qs)
    assert kinds["answerable"] >= 60 and kinds["unanswerable"] >= 20 and set(kinds) == {"answerable", "unanswerable"}
    assert sum(1 for q in qs if q.get("forbidden")) >= 3
    for q in qs:
        assert q["query"].strip() and q["tenant"] in tenants
        if q["kind"] == "unanswerable":
            assert "relevant" not in q
        else:
            assert q["relevant"], q["query"]
            for i in q["relevant"]:
                assert tenant_of.get(i) == q["tenant"], f"{q['query']}: {i} not in tenant {q['tenant']}"
        for i in q.get("forbidden", []):
            assert i in tenant_of and tenant_of[i] != q["tenant"], f"{q['query']}: forbidden {i} not other-tenant"


def test_recall_question_types_are_what_they_claim():
    mems = by_id(load(REC / "memories.jsonl"))
    qs = load(REC / "questions.jsonl")
    types = Counter(q.get("type") for q in qs if q["kind"] == "answerable")
    assert types["exact"] >= 8 and types["entity"] >= 5 and types["time"] >= 4
    for q in qs:
        if q["kind"] != "answerable":
            continue
        tenant_mems = [m for m in mems.values() if m["tenant"] == q["tenant"]]
        if q["type"] == "exact":
            codes = [c for c in CODE.findall(q["query"]) if re.search(r"\d", c)]
            assert codes, q["query"]
            code = codes[0].lower()
            holders = {m["id"] for m in tenant_mems if code in m["text"].lower()}
            assert holders == set(q["relevant"]), f"{q['query']}: token {code} held by {holders}"
        elif q["type"] == "entity":
            ent = q["entity"]
            holders = {m["id"] for m in tenant_mems if ent in m.get("entities", [])}
            assert holders == set(q["relevant"]), f"{q['query']}: {ent} held by {holders}"
            ent_words = content_words(ent)
            for i in q["relevant"]:
                shared = (content_words(q["query"]) & content_words(mems[i]["text"])) - ent_words
                assert not shared, f"{q['query']}: {i} shares {shared} beyond the entity"
        elif q["type"] == "time":
            now = parse_at(q["now"])
            lo, hi = parse_at(q["window"]["from"]), parse_at(q["window"]["to"])
            assert hi <= now
            for i in q["relevant"]:
                assert lo <= parse_at(mems[i]["at"]) < hi, f"{q['query']}: {i} outside the window"
            for i in q.get("outside_window", []):
                assert mems[i]["tenant"] == q["tenant"], i
                at = parse_at(mems[i]["at"])
                assert not lo <= at < hi, f"{q['query']}: trap {i} is inside the window"


# ---------------------------------------------------------------- demo


def test_demo_story():
    rows = load(FIXTURES / "demo" / "demo.jsonl")
    assert 30 <= len(rows) <= 50 and all(r.get("tenant") == "demo" for r in rows)
    idx = by_id(rows)

    # a 4-hop explicit chain
    def depth(i):
        r = idx[i]
        return 0 if "caused_by" not in r else 1 + depth(r["caused_by"][0])

    assert max(depth(i) for i in idx) == 4
    facts = [r for r in rows if "subject" in r]
    slots = _slots(facts)
    assert any(len({v.get("polarity", True) for v in vs}) == 2 for vs in slots.values()), "no preference flip"
    assert any(len(vs) >= 2 and k[1] == "lives_in" for k, vs in slots.items()), "no move"
    assert any(len(vs) >= 2 and k[1] == "phone_number" for k, vs in slots.items()), "no phone change"
    assert any(r["text"].lower().startswith("decision") and r.get("stream") == "demo-standup" for r in rows)
    assert any(re.search(r"\b[A-Z]{2}-\d{4}\b", r["text"]) for r in rows), "no error code"
    readme = (FIXTURES / "demo" / "README.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"`([a-z]+(?:-[a-z0-9]+)+)`", readme))
    cited = {c for c in cited if re.match(r"^(img|maya|su|err|bg|sup)-", c)}
    assert cited and cited <= set(idx), f"README cites unknown ids {cited - set(idx)}"

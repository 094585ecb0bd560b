"""Reliability checks (issue 16): hostile strings, malformed JSONL, tenant isolation, concurrent writers, a
client or the database killed mid-ingest, path traversal in ``kgmem cypher``, forget under load; and (issue 46)
times at the edges of years 1..9999 on every face, long tokens (ingest time linear in length), the HTTP MCP
server off loopback (no request without the token is served).

Each check returns one row — ``check, attempts, failures, lost, duplicated, leaked`` plus ``notes`` — and
the suite ``reliability`` prints them as one table. ``tests/reliability/`` runs the same checks and asserts
that every count but ``attempts`` is 0. The checks only read the graph through the driver (``_q``) to verify
invariants; every write goes through kgmem.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .runner import BenchContext, suite

ROOT = Path(__file__).resolve().parents[2]
KGMEM = [sys.executable, "-m", "kgmem"]


@dataclass
class Row:
    check: str
    attempts: int = 0
    failures: int = 0
    lost: int = 0
    duplicated: int = 0
    leaked: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def fail(self, note: str, n: int = 1) -> None:
        self.failures += n
        if len(self.notes) < 12:
            self.notes.append(note[:1500])

    @property
    def ok(self) -> bool:
        return not (self.failures or self.lost or self.duplicated or self.leaked)

    def cells(self) -> list:
        return [
            self.check,
            self.attempts,
            self.failures,
            self.lost,
            self.duplicated,
            self.leaked,
            round(self.seconds, 1),
            "; ".join(self.notes[:3]),
        ]

    def __str__(self) -> str:
        return (
            f"{self.check}: attempts={self.attempts} failures={self.failures} lost={self.lost} "
            f"duplicated={self.duplicated} leaked={self.leaked} notes={self.notes}"
        )


COLUMNS = ["check", "attempts", "failures", "lost", "duplicated", "leaked", "seconds", "notes"]


# --------------------------------------------------------------------------- graph inspection (verification only)


def _q(store, cypher: str, **params: Any) -> list[dict]:
    """Run a verification query straight on the driver (checks only: kgmem itself never builds Cypher)."""
    res = store._driver.execute_query(cypher, params, database_=store.database)
    return [dict(r) for r in res.records]


def counts(store, tenant: str) -> dict:
    """Nodes and relationships of a tenant, by label / type (the sentinel's fingerprint)."""
    nodes = _q(store, "MATCH (n {tenant: $t}) RETURN labels(n) AS l, count(*) AS c", t=tenant)
    rels = _q(store, "MATCH (n {tenant: $t})-[r]->() RETURN type(r) AS t, count(*) AS c", t=tenant)
    out = {"nodes:" + ":".join(sorted(r["l"])): r["c"] for r in nodes}
    out.update({"rels:" + r["t"]: r["c"] for r in rels})
    return out


def invariants(store, tenant: str, *, expect_records: int | None = None, stream_prefix: str | None = None) -> dict:
    """Counts of what must be zero after any crash or race: duplicates, dangling edges, broken chains."""
    out: dict[str, int] = {}
    out["memories"] = _q(
        store, "MATCH (m:Memory {tenant: $t}) WHERE m.origin = 'record' RETURN count(m) AS c", t=tenant
    )[0]["c"]
    out["duplicate_ids"] = _q(
        store,
        "MATCH (m:Memory {tenant: $t}) WITH m.id AS id, count(*) AS c WHERE c > 1 RETURN count(id) AS c",
        t=tenant,
    )[0]["c"]
    out["duplicate_edges"] = _q(
        store,
        "MATCH (a:Memory {tenant: $t})-[r]->(b) WITH a, b, type(r) AS t, count(r) AS c "
        "WHERE c > 1 RETURN count(*) AS c",
        t=tenant,
    )[0]["c"]
    out["dangling_edges"] = _q(
        store,
        "MATCH (a:Memory {tenant: $t})-[r]->(b) WHERE b.tenant <> $t OR b.tenant IS NULL RETURN count(r) AS c",
        t=tenant,
    )[0]["c"]
    out["no_embedding"] = _q(
        store, "MATCH (m:Memory {tenant: $t}) WHERE m.embedding IS NULL RETURN count(m) AS c", t=tenant
    )[0]["c"]
    # NEXT: per stream a simple path (<= 1 in, <= 1 out, n-1 edges)
    out["next_branching"] = _q(
        store,
        "MATCH (m:Memory {tenant: $t}) WHERE COUNT { (m)-[:NEXT]->() } > 1 "
        "OR COUNT { (m)<-[:NEXT]-() } > 1 RETURN count(m) AS c",
        t=tenant,
    )[0]["c"]
    rows = _q(
        store,
        "MATCH (m:Memory {tenant: $t}) WHERE m.stream IS NOT NULL "
        "WITH m.stream AS s, count(m) AS n, sum(COUNT { (m)-[:NEXT]->() }) AS e "
        "RETURN count(CASE WHEN e <> n - 1 THEN 1 END) AS broken",
        t=tenant,
    )
    out["next_broken_streams"] = rows[0]["broken"]
    # SUPERSEDES: per slot one current version, a linear chain of versions-1 edges
    rows = _q(
        store,
        "MATCH (f:Fact {tenant: $t}) WHERE f.slot IS NOT NULL "
        "WITH f.slot AS slot, count(f) AS n, count(CASE WHEN f.valid_to IS NULL THEN 1 END) AS cur, "
        "sum(COUNT { (f)-[:SUPERSEDES]->() }) AS e, max(COUNT { (f)-[:SUPERSEDES]->() }) AS o, "
        "max(COUNT { (f)<-[:SUPERSEDES]-() }) AS i "
        "RETURN count(CASE WHEN cur <> 1 THEN 1 END) AS not_one_current, "
        "count(CASE WHEN e <> n - 1 OR o > 1 OR i > 1 THEN 1 END) AS broken_chains",
        t=tenant,
    )
    out["slots_not_one_current"] = rows[0]["not_one_current"]
    out["broken_supersedes"] = rows[0]["broken_chains"]
    if expect_records is not None:
        out["lost"] = max(0, expect_records - out["memories"])
        out["extra"] = max(0, out["memories"] - expect_records)
    return out


def _tally(row: Row, inv: dict) -> None:
    row.lost += inv.get("lost", 0)
    row.duplicated += inv["duplicate_ids"] + inv["duplicate_edges"] + inv.get("extra", 0)
    for k in (
        "dangling_edges",
        "next_branching",
        "next_broken_streams",
        "slots_not_one_current",
        "broken_supersedes",
        "no_embedding",
    ):
        if inv[k]:
            row.fail(f"{k}={inv[k]}", inv[k])


def delete_tenant(store, tenant: str) -> None:
    with contextlib.suppress(Exception):
        store.auto_commit("admin/delete_tenant", tenant=tenant)


def stored_values(obj: Any, out: list[str]) -> list[str]:
    """The ids and texts a result shows (not the echo of the question)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("id", "text", "cause", "effect", "symptom_id") and isinstance(v, str):
                out.append(v)
            elif k not in ("query", "question", "subject", "predicate", "object"):
                stored_values(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            stored_values(v, out)
    elif isinstance(obj, str) and obj.lstrip().startswith("{"):  # an export: JSON lines
        for line in obj.splitlines():
            with contextlib.suppress(ValueError):
                stored_values(json.loads(line), out)
    return out


# --------------------------------------------------------------------------- 1. hostile strings

B64 = base64.b64encode(bytes(range(256)) * 24).decode()[:8000]
HOSTILE = [
    "MATCH (n) DETACH DELETE n",
    "') RETURN 1 //",
    '" OR 1=1 --',
    "`x` WITH `y`",
    "$tenant",
    "{tenant}",
    "'",
    '"',
    "\\",
    "a\x00b",
    "\x00",
    "\ud800",
    "x\udfffy",
    "\udc00\ud800",
    "x" * 100_000,
    "A" * 8000,
    B64,
    "😀",
    "👩‍👩‍👧‍👦 family",
    "\u202eevil\u202c",
    "שלום עולם",
    "مرحبا بالعالم",
    "*:*",
    "AND",
    "OR NOT",
    '~ " ( ) [ ] { } : \\ /',
    "title:x^10 AND text:[a TO z]",
    "\u200b",
    "!!!",
    "🎉🎉",
    " ",
    "",
    "\r\n\t",
    "\ufeff",
    "a" * 4097,
    "Zürich ünïcödé",
    "a/../../etc/passwd",
    "%s%n%x",
    "<script>alert(1)</script>",
    "NULL",
    "null",
    "0",
    "-1e999",
]
_SHORT = [h for h in HOSTILE if len(h) < 100]
RECORD_FIELDS = (
    "text",
    "id",
    "at",
    "kind",
    "subject",
    "predicate",
    "object",
    "entities",
    "caused_by",
    "stream",
    "source",
    "tenant",
    "user",
    "retention",
)


def _record_with(field_name: str, value: str, n: int) -> dict:
    rec: dict[str, Any] = {"text": f"hostile probe {n}", "at": "2026-02-01T00:00:00Z"}
    if field_name in ("subject", "predicate", "object"):
        rec.update({"subject": "probe", "predicate": "lives_in", "object": "Lisbon", field_name: value})
    elif field_name in ("entities", "caused_by"):
        rec[field_name] = [value]
    else:
        rec[field_name] = value
    return rec


def _hostile_ingest(mg, field_name: str, values: list[str], row: Row) -> None:
    records = [_record_with(field_name, v, i) for i, v in enumerate(values)]
    row.attempts += len(records)
    t0 = time.perf_counter()
    try:
        report = mg.ingest(records, infer_causes=False)
    except Exception as e:  # ingest reports bad lines; it must never raise for them
        row.fail(f"ingest of field {field_name} raised {type(e).__name__}: {e}")
        return
    if time.perf_counter() - t0 > 60:
        row.fail(f"ingest of field {field_name} took {time.perf_counter() - t0:.0f}s")
    named = ("subject", "predicate", "object") if field_name in ("subject", "predicate", "object") else (field_name,)
    for err in report.errors:
        if not any(f"field '{f}'" in err["error"] for f in named):
            row.fail(f"field {field_name} line {err['line']}: error does not name the field: {err['error'][:120]}")


def _query_ops(mg, v: Any) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("recall", lambda: mg.recall(v, k=3)),
        ("recall.user", lambda: mg.recall("probe", k=3, user=v)),
        ("recall.at", lambda: mg.recall("probe", k=3, at=v)),
        ("why", lambda: mg.why(v)),
        ("now.subject", lambda: mg.now(v, "lives_in")),
        ("now.predicate", lambda: mg.now("probe", v)),
        ("now.object", lambda: mg.now("probe", "likes", v)),
        ("as_of.at", lambda: mg.as_of("probe", "lives_in", v)),
        ("as_of.subject", lambda: mg.as_of(v, "lives_in", "2026-03-01")),
        ("history", lambda: mg.history(v, "likes")),
        ("history.object", lambda: mg.history("probe", "likes", v)),
        ("timeline", lambda: mg.timeline(v)),
        ("changes", lambda: mg.changes(v)),
    ]


def _hostile_query(mg, v: Any, row: Row, only: tuple[str, ...] | None = None) -> None:
    from kgmem.errors import InputError, NotFoundError

    for name, fn in _query_ops(mg, v):
        if only and name not in only:
            continue
        row.attempts += 1
        t0 = time.perf_counter()
        try:
            fn()
        except NotFoundError:
            pass  # an unknown id or slot: a clean answer, not a refusal of the string
        except InputError as e:
            if e.field is None:
                row.fail(f"{name}({v[:30]!r}): InputError without a field: {e}")
        except Exception as e:
            row.fail(f"{name}({str(v)[:30]!r}) raised {type(e).__name__}: {str(e)[:150]}")
        if time.perf_counter() - t0 > 10:
            row.fail(f"{name}({str(v)[:30]!r}) took {time.perf_counter() - t0:.1f}s")


def check_hostile_strings(base, *, examples: int = 40, fixed: bool = True) -> Row:
    """Every string field of a record and every query argument, with a fixed list of hostile strings and with
    hypothesis-generated ones (any code point, lone surrogates included). A sentinel tenant must not change;
    every refusal must be an InputError (or a report line) naming the field."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    row = Row("hostile strings")
    t_start = time.perf_counter()
    sentinel = base.for_tenant("rel-sentinel-" + uuid.uuid4().hex[:8])
    probe = base.for_tenant("rel-hostile-" + uuid.uuid4().hex[:8])
    try:
        sentinel.ingest(
            [
                {"text": "The sentinel lives in Oslo", "id": "s1", "at": "2026-01-01"},
                {
                    "text": "sentinel",
                    "subject": "sentinel",
                    "predicate": "lives_in",
                    "object": "Oslo",
                    "id": "s2",
                    "at": "2026-01-02",
                },
                {"text": "because of the fjord", "id": "s3", "caused_by": ["s1"], "stream": "s"},
            ]
        )
        before = counts(base.store, sentinel.tenant)
        probe.ingest(
            [
                {
                    "text": "probe lives in Lisbon",
                    "subject": "probe",
                    "predicate": "lives_in",
                    "object": "Lisbon",
                    "at": "2026-01-01",
                    "id": "p0",
                }
            ]
        )
        values = HOSTILE if fixed else []
        for f in RECORD_FIELDS if fixed else ():
            _hostile_ingest(probe, f, values, row)
        for v in values:
            _hostile_query(probe, v, row)
        row.attempts += 1
        try:  # a sentinel tenant is only reachable by name: a record naming it is refused
            rep = probe.ingest([{"text": "x", "tenant": sentinel.tenant}])
            if not rep.errors:
                row.leaked += 1
        except Exception as e:
            row.fail(f"tenant field raised {type(e).__name__}")

        text = st.text(st.characters(blacklist_categories=()), max_size=60)
        hostile = st.one_of(
            st.sampled_from(HOSTILE),
            text,
            st.lists(st.one_of(st.sampled_from(_SHORT), text), min_size=1, max_size=5).map("".join),
        )

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.sampled_from(RECORD_FIELDS), hostile)
        def record_case(field_name, value):
            _hostile_ingest(probe, field_name, [value], row)

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(hostile, st.sampled_from([n for n, _ in _query_ops(probe, "")]))
        def query_case(value, op):
            _hostile_query(probe, value, row, only=(op,))

        if examples:
            record_case()
            query_case()
        after = counts(base.store, sentinel.tenant)
        if after != before:
            row.leaked += 1
            row.notes.append(f"sentinel changed: {before} -> {after}")
    finally:
        delete_tenant(base.store, sentinel.tenant)
        delete_tenant(base.store, probe.tenant)
    row.seconds = time.perf_counter() - t_start
    return row


# --------------------------------------------------------------------------- 2. malformed JSONL


def malformed_file(path: Path, n_good: int = 30) -> tuple[list[str], dict[int, str | None], dict[int, str]]:
    """Write a JSONL file of good lines interleaved with ~25 kinds of bad ones (as bytes).

    Returns (ids of the good lines, {line: field the error must name or None}, {line: kind})."""
    bad: list[tuple[str, bytes, str | None]] = [
        ("bad JSON", b'{"text": "unterminated"', None),
        ("missing text", b'{"id": "nope-1"}', "text"),
        ("too-long text", json.dumps({"text": "x" * 32769}).encode(), "text"),
        ("bad at", b'{"text": "bad time", "at": "yesterday-ish"}', "at"),
        ("at as number", b'{"text": "numeric time", "at": 1700000000}', "at"),
        ("text as number", b'{"text": 42}', "text"),
        ("unknown caused_by", b'{"text": "orphan effect", "caused_by": ["no-such-cause"]}', "caused_by"),
        ("partial fact", b'{"text": "half a fact", "subject": "kim"}', "predicate"),
        (
            "polarity as a string",
            b'{"text": "p", "subject": "kim", "predicate": "likes", "object": "tea", "polarity": "false"}',
            "polarity",
        ),
        ("reused id, new content", b'{"id": "good-0", "text": "something else entirely"}', "id"),
        ("trailing garbage", b'{"text": "tail"} trailing', None),
        ("duplicate keys", b'{"text": "one", "text": "two"}', "text"),
        ("invalid UTF-8", b'{"text": "caf\xe9 au lait"}', None),
        ("an array", b'["text", "x"]', None),
        ("confidence 2", b'{"text": "sure", "confidence": 2}', "confidence"),
        ("entities a string", b'{"text": "e", "entities": "Maya"}', "entities"),
        ("unknown field", b'{"txt": "typo"}', "txt"),
        ("NUL in text", b'{"text": "nul \\u0000 here"}', "text"),
        ("lone surrogate", b'{"text": "half \\ud800 pair"}', "text"),
        ("unknown kind", b'{"text": "k", "kind": "memo"}', "kind"),
        ("another tenant", b'{"text": "t", "tenant": "someone-else"}', "tenant"),
        ("emoji subject", '{"text": "e", "subject": "🎉🎉", "predicate": "likes", "object": "x"}'.encode(), "subject"),
        ("nested too deep", b"[" * 100_000, None),
        ("id not a string", b'{"text": "i", "id": 7}', "id"),
        ("caused_by itself", b'{"id": "selfish", "text": "s", "caused_by": ["selfish"]}', "caused_by"),
    ]
    good_ids: list[str] = []
    expect: dict[int, str | None] = {}
    kinds: dict[int, str] = {}
    lines: list[bytes] = []
    bi = 0
    for i in range(n_good):
        gid = f"good-{i}"
        rec: dict[str, Any] = {"id": gid, "text": f"good line {i} about the ledger", "at": f"2026-03-{1 + i % 28:02d}"}
        if i == 1:
            rec["at"] = "2026-03-02T10:00:00"  # no offset: accepted as UTC (documented)
        if i == 2:
            rec["caused_by"] = ["good-1"]
        if i % 5 == 3:
            rec["stream"] = "s-good"
        line = json.dumps(rec, ensure_ascii=False).encode()
        if i == 0:
            line = b"\xef\xbb\xbf" + line  # a BOM on line 1: accepted
        if i == 4:
            line += b"\r"  # CRLF
        lines.append(line)
        good_ids.append(gid)
        if i % 3 == 0:
            lines.append(b"")  # blank lines are skipped
            lines.append(b"   ")
        if bi < len(bad):
            kind, raw, fld = bad[bi]
            bi += 1
            lines.append(raw)
            expect[len(lines)] = fld
            kinds[len(lines)] = kind
    while bi < len(bad):
        kind, raw, fld = bad[bi]
        bi += 1
        lines.append(raw)
        expect[len(lines)] = fld
        kinds[len(lines)] = kind
    path.write_bytes(b"\n".join(lines) + b"\n")
    return good_ids, expect, kinds


def check_malformed(base, tmp: Path) -> Row:
    row = Row("malformed JSONL")
    t0 = time.perf_counter()
    mg = base.for_tenant("rel-malformed-" + uuid.uuid4().hex[:8])
    try:
        path = tmp / "malformed.jsonl"
        good, expect, kinds = malformed_file(path)
        row.attempts = len(good) + len(expect)
        try:
            report = mg.ingest(path, infer_causes=False)
        except Exception as e:
            row.fail(f"ingest raised {type(e).__name__}: {e}")
            return row
        by_line = {e["line"]: e["error"] for e in report.errors}
        for line, fld in expect.items():
            err = by_line.get(line)
            if err is None:
                row.fail(f"line {line} ({kinds[line]}) was not reported")
            elif fld is not None and f"field '{fld}'" not in err:
                row.fail(f"line {line} ({kinds[line]}): error does not name field {fld}: {err[:100]}")
        for line in by_line:
            if line not in expect:
                row.fail(f"good line {line} was reported: {by_line[line][:100]}")
        stored = {
            r["id"]: r
            for r in _q(
                mg.store,
                "MATCH (m:Memory {tenant: $t}) WHERE m.origin = 'record' RETURN m.id AS id, m.text AS text, m.at AS at",
                t=mg.tenant,
            )
        }
        row.lost = sum(1 for g in good if g not in stored)
        if stored.get("good-0", {}).get("text", "").startswith("\ufeff"):
            row.fail("the BOM was kept in the text")
        at1 = stored.get("good-1", {}).get("at")
        if at1 is not None and at1.to_native().utcoffset() != dt.timedelta(0):
            row.fail(f"a time without an offset was not read as UTC: {at1}")
        if report.edges.get("caused_by") != 1:
            row.fail(f"caused_by edges: {report.edges.get('caused_by')}")
    finally:
        delete_tenant(base.store, mg.tenant)
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 3. tenant isolation


def check_tenant_isolation(base, tmp: Path, *, queries: int = 1000) -> Row:
    """Tenant A holds memories with unique marker words, ids, entities, facts and a stream; tenant B asks for
    them through every read operation and tries to reach them through every write path."""
    from kgmem.errors import InputError, NotFoundError

    row = Row("tenant isolation")
    t0 = time.perf_counter()
    a = base.for_tenant("rel-iso-a-" + uuid.uuid4().hex[:8])
    b = base.for_tenant("rel-iso-b-" + uuid.uuid4().hex[:8])
    try:
        recs, a_words = [], []
        for i in range(40):
            w = f"zqa{i}xv"
            a_words.append(w)
            recs.append(
                {
                    "id": f"a-{i}",
                    "text": f"Marker {w}: Quintrell Vashti moved the {w} server to rack {i}",
                    "at": f"2026-01-{1 + i % 28:02d}T10:00:00Z",
                    "stream": "a-stream",
                    "entities": [f"Quintrell{i}", "Vashti Okonkwo"],
                }
            )
        for i in range(10):
            recs.append(
                {
                    "id": f"a-f{i}",
                    "text": f"vashti{i} lives in Zyrtopolis{i}",
                    "subject": f"vashti{i}",
                    "predicate": "lives_in",
                    "object": f"Zyrtopolis{i}",
                    "at": "2026-01-05",
                }
            )
            recs.append(
                {
                    "id": f"a-g{i}",
                    "text": f"vashti{i} lives in Qorvath{i}",
                    "subject": f"vashti{i}",
                    "predicate": "lives_in",
                    "object": f"Qorvath{i}",
                    "at": "2026-02-05",
                }
            )
        recs.append(
            {
                "id": "a-effect",
                "text": "Checkout crashed because zqa0xv server overheated",
                "at": "2026-02-10",
                "caused_by": ["a-0"],
            }
        )
        a.ingest(recs)
        b.ingest(
            [
                {"id": "b-1", "text": "B's own note about a server", "at": "2026-01-03"},
                {
                    "id": "b-2",
                    "text": "kim lives in Oslo",
                    "subject": "kim",
                    "predicate": "lives_in",
                    "object": "Oslo",
                    "at": "2026-01-03",
                },
            ]
        )
        a_before = counts(a.store, a.tenant)
        a_ids = {r["id"] for r in recs} | {f"{r['id']}#f1" for r in recs}
        secrets = tuple(a_words) + ("Quintrell", "Vashti", "Zyrtopolis", "Qorvath", "vashti")

        def leaks(obj: Any) -> int:
            vals = stored_values(obj, [])
            return int(any(v in a_ids for v in vals) or any(s in v for v in vals for s in secrets))

        ops: list[tuple[str, Callable[[], Any]]] = []
        for i in range(40):
            w, aid = a_words[i], f"a-{i}"
            ops += [
                ("recall", lambda w=w: b.recall(w, k=10).to_dict()),
                ("recall.id", lambda aid=aid: b.recall(aid, k=10).to_dict()),
                ("timeline", lambda aid=aid: b.timeline(aid)),
                ("get", lambda aid=aid: b.get(aid).to_dict()),
                ("timeline.f", lambda aid=aid: b.timeline(aid + "#f1")),
                ("recall.entity", lambda i=i: b.recall(f"Quintrell{i} Vashti Okonkwo", k=10).to_dict()),
            ]
            if i % 4 == 0:
                ops += [
                    (
                        "recall.superseded",
                        lambda w=w: b.recall(f"Quintrell Vashti {w}", include_superseded=True, k=10).to_dict(),
                    ),
                    ("why", lambda w=w: b.why(f"why did the {w} server crash?").to_dict()),
                    ("ask", lambda w=w: b.ask(f"where is the {w} server?").to_dict()),
                ]
        for i in range(10):
            ops += [
                ("now", lambda i=i: b.now_answer(f"vashti{i}", "lives_in").to_dict()),
                ("as_of", lambda i=i: b.as_of_answer(f"vashti{i}", "lives_in", "2026-01-20").to_dict()),
                ("history", lambda i=i: b.history_answer(f"vashti{i}", "lives_in").to_dict()),
                ("ask.slot", lambda i=i: b.ask(f"where does vashti{i} live?").to_dict()),
            ]
        ops += [
            ("changes", lambda: b.changes("2000-01-01", limit=10000)),
            ("co_occurring", lambda: b.co_occurring(["vashti okonkwo", "quintrell1"])),
        ]

        def export():
            out = tmp / f"b-export-{uuid.uuid4().hex[:6]}.jsonl"
            b.export(out)
            return out.read_text(encoding="utf-8")

        ops.append(("export", export))
        n = 0
        while n < queries:
            for name, fn in ops:
                if n >= queries:
                    break
                n += 1
                row.attempts += 1
                try:
                    res = fn()
                except NotFoundError:
                    continue
                except InputError as e:
                    if e.field is None and name not in ("get", "timeline"):
                        row.fail(f"{name}: InputError without a field: {e}")
                    continue
                except Exception as e:
                    row.fail(f"{name} raised {type(e).__name__}: {str(e)[:120]}")
                    continue
                if leaks(res):
                    row.leaked += 1
                    row.notes.append(f"{name} leaked: {json.dumps(res, default=str)[:160]}")

        # write paths from B toward A
        writes: list[tuple[str, Callable[[], Any], str]] = [
            ("record names tenant A", lambda: b.ingest([{"text": "into A", "tenant": a.tenant}]), "errors"),
            ("caused_by an id of A", lambda: b.ingest([{"text": "effect in B", "caused_by": ["a-3"]}]), "errors"),
            ("forget an id of A", lambda: b.forget("a-5"), "raise"),
            ("timeline an id of A", lambda: b.timeline("a-6"), "raise"),
            ("reuse an id of A", lambda: b.ingest([{"id": "a-7", "text": "B's own a-7"}]), "either"),
        ]
        imp = tmp / "import-naming-a.jsonl"
        exported = tmp / "a-export.jsonl"
        a.export(exported)
        imp.write_text(exported.read_text(encoding="utf-8").replace(a.tenant, a.tenant), encoding="utf-8")
        writes.append(("import an export of A", lambda: b.import_jsonl(imp), "either"))
        for name, fn, expect in writes:
            row.attempts += 1
            try:
                res = fn()
                if expect == "raise":
                    row.fail(f"{name}: no error")
                elif expect == "errors" and not getattr(res, "errors", None):
                    row.leaked += 1
                    row.notes.append(f"{name}: accepted")
            except (NotFoundError, InputError):
                pass
            except Exception as e:
                row.fail(f"{name} raised {type(e).__name__}: {str(e)[:120]}")
        after = counts(a.store, a.tenant)
        if after != a_before:
            row.leaked += 1
            row.notes.append(f"tenant A changed: {a_before} -> {after}")
        cross = _q(a.store, "MATCH (x {tenant: $a})-[r]-(y) WHERE y.tenant <> $a RETURN count(r) AS c", a=a.tenant)[0][
            "c"
        ]
        if cross:
            row.leaked += cross
            row.notes.append(f"{cross} edges cross from A to another tenant")
    finally:
        delete_tenant(base.store, a.tenant)
        delete_tenant(base.store, b.tenant)
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 4. concurrent writers

_WRITER = r"""
import json, sys, time
from kgmem import MemoryGraph
tenant, proc, n, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
acked, errors = [], []
with MemoryGraph.from_env(tenant=tenant) as mg:
    recs = []
    for i in range(n):
        t = f"2026-01-01T00:00:00.{proc:03d}{i:03d}Z"
        minute = i * 8 + proc
        at = f"2026-01-{1 + minute // 1440:02d}T{(minute // 60) % 24:02d}:{minute % 60:02d}:00Z"
        slot = (proc + i) % 10
        if i % 10 == 9:
            recs.append({"id": f"w{proc}-{i}", "text": f"slot{slot} likes fruit{proc}x{i}", "subject": "slotm",
                         "predicate": "likes", "object": f"fruit{proc}x{i % 20}", "at": at})
        elif i % 10 == 8:
            recs.append({"id": f"w{proc}-{i}", "text": f"stream line {proc} {i}", "stream": "shared", "at": at})
        else:
            recs.append({"id": f"w{proc}-{i}", "text": f"slot{slot} lives in city {proc}-{i}",
                         "subject": f"slot{slot}", "predicate": "lives_in", "object": f"city {proc}-{i}", "at": at})
    for k in range(0, n, batch):
        chunk = recs[k:k + batch]
        try:
            rep = mg.ingest(chunk, infer_causes=False, compile_facts=False)
            acked += rep.ids
            errors += [e["error"] for e in rep.errors]
        except Exception as e:
            import traceback
            tb = "".join(traceback.format_tb(e.__traceback__)[-4:]).replace(chr(10), " | ")
            errors.append(f"{type(e).__name__}: {e} at {tb[-700:]}")
print(json.dumps({"acked": acked, "errors": errors}))
"""


def check_concurrent_writers(base, *, procs: int = 8, updates: int = 200, batch: int = 10, timeout: float = 300) -> Row:
    row = Row("concurrent writers")
    t0 = time.perf_counter()
    tenant = "rel-conc-" + uuid.uuid4().hex[:8]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    _export_connection(base, env)
    try:
        ps = [
            subprocess.Popen(
                [sys.executable, "-c", _WRITER, tenant, str(p), str(updates), str(batch)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=ROOT,
            )
            for p in range(procs)
        ]
        acked: list[str] = []
        for p in ps:
            try:
                out, err = p.communicate(timeout=max(1, timeout - (time.perf_counter() - t0)))
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                row.fail("a writer did not finish in time")
            row.attempts += updates
            try:
                res = json.loads(out.strip().splitlines()[-1])
            except Exception:
                row.fail(f"writer output unreadable (rc {p.returncode}): {err[-300:]}")
                continue
            acked += res["acked"]
            for e in res["errors"]:
                row.fail(f"surfaced: {e[:1500]}")
        stored = {r["id"] for r in _q(base.store, "MATCH (m:Memory {tenant: $t}) RETURN m.id AS id", t=tenant)}
        row.lost = sum(1 for i in acked if i not in stored)
        inv = invariants(base.store, tenant, expect_records=procs * updates)
        _tally(row, inv)
        # the current version of each single-valued slot is the one with the latest `at`
        wrong = _q(
            base.store,
            "MATCH (f:Fact {tenant: $t, predicate: 'lives_in'}) WITH f.slot AS s, "
            "max(f.at) AS last, collect(f) AS fs UNWIND fs AS f WITH s, last, f "
            "WHERE f.valid_to IS NULL AND f.at <> last RETURN count(*) AS c",
            t=tenant,
        )[0]["c"]
        if wrong:
            row.fail(f"{wrong} slots whose current version is not the latest", wrong)
        row.notes.append(f"{len(acked)} acknowledged")
    finally:
        delete_tenant(base.store, tenant)
    row.seconds = time.perf_counter() - t0
    return row


def _export_connection(base, env: dict) -> None:
    c = base.store.connection
    env["NEO4J_URI"] = c.uri
    if c.user:
        env["NEO4J_USERNAME"] = c.user
    if c.password:
        env["NEO4J_PASSWORD"] = c.password
    if c.database:
        env["NEO4J_DATABASE"] = c.database


# --------------------------------------------------------------------------- 5. client killed mid-ingest


def crash_corpus(path: Path, n: int, seed: int = 16) -> list[dict]:
    """``n`` records of the speed corpus; every tenth explicit caused_by is replaced by "because <the cause>" so the inference pass
    has memories that state their cause in words to link."""
    from .corpus import generate

    recs = generate(n, seed=seed).records[:n]
    text_of = {r["id"]: r["text"] for r in recs}
    for i, r in enumerate(recs):
        if "caused_by" in r and i % 10 == 0:  # the cause in words instead: "..., because <the cause's words>"
            cause = text_of.get(r.pop("caused_by")[0], "")
            words = cause.rstrip(".").split()[:10]
            if len(words) >= 3:
                r["text"] = r["text"].rstrip(".") + " because " + " ".join(words) + "."
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return recs


def _count(store, tenant: str) -> int:
    try:
        return _q(store, "MATCH (m:Memory {tenant: $t}) RETURN count(m) AS c", t=tenant)[0]["c"]
    except Exception:
        return -1


def _inferred(store, tenant: str) -> set[tuple[str, str]]:
    return {
        (r["e"], r["c"])
        for r in _q(
            store,
            "MATCH (e:Memory {tenant: $t})-[r:CAUSED_BY {inferred: true}]->(c) RETURN e.id AS e, c.id AS c",
            t=tenant,
        )
    }


def check_client_killed(
    base, tmp: Path, *, n: int = 5000, batch: int = 250, kill_after_records: int = 500, timeout: float = 400
) -> Row:
    """``kgmem ingest`` of ``n`` records killed (-9) once a few batches are committed, then run again: exactly
    ``n`` memories, no duplicates, no dangling edges, chains complete, and the inferred causal links equal to
    what inference over the whole tenant finds."""
    from kgmem.derived import causal

    row = Row("client killed mid-ingest")
    t0 = time.perf_counter()
    tenant = "rel-kill-" + uuid.uuid4().hex[:8]
    path = tmp / "crash.jsonl"
    crash_corpus(path, n)
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    _export_connection(base, env)
    cmd = KGMEM + ["ingest", str(path), "--tenant", tenant, "--batch-size", str(batch), "--json"]
    try:
        row.attempts = n
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        while p.poll() is None and time.perf_counter() - t0 < timeout:
            if _count(base.store, tenant) >= kill_after_records:
                break
            time.sleep(0.2)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            row.notes.append(f"killed at {_count(base.store, tenant)} memories")
        else:
            row.notes.append("the first run finished before the kill")
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=max(10, timeout - (time.perf_counter() - t0)),
        )
        if done.returncode != 0:
            row.fail(f"re-run exit {done.returncode}: {done.stderr[-300:]}")
        inv = invariants(base.store, tenant, expect_records=n)
        _tally(row, inv)
        mg = base.for_tenant(tenant)
        ids = [r["id"] for r in base.store.read("derived/memory_ids", tenant=tenant)]
        expected = {(x["effect"], x["cause"]) for x in causal.infer(base.store, mg.embedder, tenant, ids)[1]}
        have = _inferred(base.store, tenant)
        missing = expected - have
        row.notes.append(f"inferred links {len(have)} (inference over all finds {len(expected)})")
        if missing:
            row.lost += len(missing)
            row.notes.append(f"{len(missing)} inferred links missing after the re-run")
    finally:
        delete_tenant(base.store, tenant)
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 6. database killed mid-ingest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayNeo4j:
    """A second local Neo4j (``kgmem server``) with its own KGMEM_HOME and free ports; only its own process is
    ever killed (by the pid it wrote)."""

    def __init__(self, root: Path):
        self.home = root / "kgmem-home"
        self.env = {
            **os.environ,
            "KGMEM_HOME": str(self.home),
            "KGMEM_BOLT_PORT": str(_free_port()),
            "KGMEM_HTTP_PORT": str(_free_port()),
            "KGMEM_NEO4J_HEAP": "512m",
            "KGMEM_NEO4J_PAGECACHE": "256m",
            "TOKENIZERS_PARALLELISM": "false",
        }
        for k in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
            self.env.pop(k, None)

    def kgmem(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            KGMEM + list(args), capture_output=True, text=True, env=self.env, cwd=ROOT, timeout=timeout
        )

    def start(self) -> None:
        out = self.kgmem("server", "start", timeout=240)
        if out.returncode != 0:
            raise RuntimeError(f"throwaway server did not start: {out.stderr[-500:]}")

    def pid(self) -> int:
        st = self.kgmem("server", "status", "--json", timeout=60)
        return int(json.loads(st.stdout)["pid"])

    def kill9(self) -> None:
        os.kill(self.pid(), signal.SIGKILL)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.kgmem("server", "stop", timeout=120)


def check_database_killed(
    base, tmp: Path, *, n: int = 3000, batch: int = 250, kill_after: float = 60.0, fail_fast: float = 60.0
) -> Row:
    """Our own Neo4j is killed (-9) during ``kgmem ingest``, once its first batch is committed (or after
    ``kill_after`` seconds): the client exits 3 (DatabaseUnavailable) within ``fail_fast`` seconds; after a
    restart the same ingest completes with every invariant intact (the committed part unchanged)."""
    row = Row("database killed mid-ingest")
    t0 = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="kgmem-rel-db-", dir=tmp))
    server = ThrowawayNeo4j(root)
    tenant = "rel-dbkill"
    path = root / "crash.jsonl"
    crash_corpus(path, n)
    cmd = ["ingest", str(path), "--tenant", tenant, "--batch-size", str(batch), "--json"]
    try:
        server.start()
        init = server.kgmem("init", timeout=240)
        if init.returncode != 0:
            row.fail(f"init failed: {init.stderr[-300:]}")
            return row
        row.attempts = n
        p = subprocess.Popen(
            KGMEM + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server.env, cwd=ROOT
        )
        committed = _committed(server.env, tenant, p, at_least=batch, timeout=kill_after)
        if p.poll() is None:
            row.notes.append(f"killed at {committed} memories")
            server.kill9()
            t_kill = time.perf_counter()
            try:
                _, err = p.communicate(timeout=fail_fast)
                waited = time.perf_counter() - t_kill
                row.notes.append(f"client exit {p.returncode} {waited:.1f}s after the kill")
                if p.returncode != 3:
                    row.fail(f"client exit {p.returncode}, not 3: {err.strip()[-200:]}")
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                row.fail(f"client hung > {fail_fast:.0f}s after the database died")
        else:
            row.notes.append("ingest finished before the kill")
        server.start()
        again = server.kgmem(*cmd, timeout=600)
        if again.returncode != 0:
            row.fail(f"re-run exit {again.returncode}: {again.stderr[-300:]}")
        from kgmem import MemoryGraph

        env = server.env
        with _env(env):
            with MemoryGraph(tenant=tenant) as mg:
                inv = invariants(mg.store, tenant, expect_records=n)
        _tally(row, inv)
    except Exception as e:
        row.fail(f"{type(e).__name__}: {e}")
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    row.seconds = time.perf_counter() - t0
    return row


def _committed(env: dict, tenant: str, p: subprocess.Popen, *, at_least: int, timeout: float) -> int:
    """Wait (while ``p`` runs, up to ``timeout`` s) until the server of ``env`` holds ``at_least`` memories of
    ``tenant``; returns the last count."""
    from kgmem import MemoryGraph

    seen, t0 = 0, time.perf_counter()
    with _env(env), MemoryGraph(tenant=tenant) as mg:
        while p.poll() is None and time.perf_counter() - t0 < timeout:
            seen = _count(mg.store, tenant)
            if seen >= at_least:
                break
            time.sleep(0.2)
    return seen


@contextlib.contextmanager
def _env(env: dict):
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(old)


# --------------------------------------------------------------------------- 7. cypher path traversal


def check_cypher_paths() -> Row:
    from kgmem import MemoryGraph
    from kgmem.errors import NotFoundError

    row = Row("cypher name traversal")
    t0 = time.perf_counter()
    bad = [
        "../README",
        "../README.md",
        "../../etc/passwd",
        "/etc/passwd",
        "why/../../README",
        "why/./roots",
        "..",
        "why//roots",
        "why\\..\\..\\README",
        "~/x",
        "why/roots\x00",
        "C:/x",
    ]
    for name in bad:
        row.attempts += 1
        try:
            MemoryGraph.statement(name)
            row.leaked += 1
            row.notes.append(f"{name!r} was loaded")
        except NotFoundError:
            pass
        except Exception as e:
            row.fail(f"{name!r}: {type(e).__name__}: {e}")
    for name in ("../README", "/etc/passwd"):
        row.attempts += 1
        out = subprocess.run(KGMEM + ["cypher", name], capture_output=True, text=True, cwd=ROOT, timeout=120)
        if out.returncode == 0 or "kgmem" in out.stdout[:2000].lower() and "# kgmem" in out.stdout:
            row.leaked += 1
            row.notes.append(f"`kgmem cypher {name}` exit {out.returncode}")
    row.attempts += 1
    try:
        MemoryGraph.statement("why/roots")
    except Exception as e:
        row.fail(f"a good name failed: {e}")
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 8. forget under load

_RECALLER = r"""
import json, sys, time
from kgmem import MemoryGraph
tenant, seconds = sys.argv[1], float(sys.argv[2])
n, errors = 0, []
with MemoryGraph.from_env(tenant=tenant) as mg:
    end = time.time() + seconds
    while time.time() < end:
        try:
            mg.recall("forgettable plover secret", k=10)
            mg.why("why did the plover alarm fire?")
            n += 2
        except Exception as e:
            import traceback
            frames = traceback.extract_tb(e.__traceback__)[-6:]
            tb = " <- ".join(f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno} {f.name}" for f in reversed(frames))
            errors.append(f"{type(e).__name__}: {e} at {tb}")
print(json.dumps({"queries": n, "errors": errors}))
"""


def check_forget_under_load(base, tmp: Path, *, n_forget: int = 20, seconds: float = 25) -> Row:
    row = Row("forget under load")
    t0 = time.perf_counter()
    mg = base.for_tenant("rel-forget-" + uuid.uuid4().hex[:8])
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    _export_connection(base, env)
    try:
        recs = []
        for i in range(n_forget):
            recs.append(
                {
                    "id": f"secret-{i}",
                    "text": f"forgettable plover secret number pl{i}vz is kept by Ansel",
                    "at": f"2026-01-{1 + i:02d}T08:00:00Z",
                    "stream": "plover",
                }
            )
            recs.append(
                {
                    "id": f"keep-{i}",
                    "text": f"ordinary note {i} about the plover alarm",
                    "at": f"2026-01-{1 + i:02d}T09:00:00Z",
                    "stream": "plover",
                    "caused_by": [f"secret-{i}"],
                }
            )
        recs.append({"id": "fact-1", "text": "my password hint is pl0vz", "at": "2026-01-02"})
        mg.ingest(recs)
        with contextlib.suppress(Exception):
            mg.consolidate()
        p = subprocess.Popen(
            [sys.executable, "-c", _RECALLER, mg.tenant, str(seconds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        time.sleep(min(6.0, seconds / 3))
        for i in range(n_forget):
            row.attempts += 1
            try:
                mg.forget(f"secret-{i}")
            except Exception as e:
                row.fail(f"forget raised {type(e).__name__}: {e}")
        row.attempts += 1
        try:
            mg.forget("fact-1")
        except Exception as e:
            row.fail(f"forget raised {type(e).__name__}: {e}")
        out, err = p.communicate(timeout=seconds + 120)
        try:
            res = json.loads(out.strip().splitlines()[-1])
            row.attempts += res["queries"]
            for e in res["errors"]:
                row.fail(f"recall during forget: {e[:150]}")
        except Exception:
            row.fail(f"recaller output unreadable: {err[-300:]}")
        secrets = [f"pl{i}vz" for i in range(n_forget)] + ["forgettable plover secret", "password hint"]

        forgotten = {f"secret-{i}" for i in range(n_forget)} | {"fact-1", "fact-1#f1"}

        def leaked(obj: Any, where: str) -> None:
            vals = stored_values(obj, [])
            if any(v in forgotten for v in vals):
                row.leaked += 1
                row.notes.append(f"{where} still shows a forgotten id: {[v for v in vals if v in forgotten][:3]}")
                return
            for s in secrets:
                if any(s in v for v in vals):
                    row.leaked += 1
                    row.notes.append(f"{where} still shows {s!r}")
                    return

        leaked(mg.recall("forgettable plover secret", k=50, include_superseded=True).to_dict(), "recall")
        for i in range(0, n_forget, 4):
            leaked(mg.recall(f"pl{i}vz", k=20).to_dict(), "recall")
        leaked(mg.why("why did the plover alarm fire?").to_dict(), "why")
        leaked([x.to_dict() for x in mg.history("user", "password hint")], "history")
        exp = tmp / f"forget-export-{uuid.uuid4().hex[:6]}.jsonl"
        mg.export(exp)
        exported = exp.read_text(encoding="utf-8")
        leaked([json.loads(x) for x in exported.splitlines() if x.strip() and '"tombstone"' not in x], "export")
        for x in exported.splitlines():
            if any(f'"{i}"' in x for i in forgotten) and any(s in x for s in secrets):
                row.leaked += 1
                row.notes.append(f"export line with forgotten content: {x[:200]}")
        stored = _q(
            mg.store,
            "MATCH (m:Memory {tenant: $t}) RETURN m.id AS id, "
            "coalesce(m.text, '') + ' ' + coalesce(m.context_text, '') + ' ' "
            "+ coalesce(m.window_text, '') AS text",
            t=mg.tenant,
        )
        leaked(stored, "stored text, summary or context")
        ents = _q(mg.store, "MATCH (e:Entity {tenant: $t}) RETURN e.key AS text", t=mg.tenant)
        leaked(ents, "entities")
    finally:
        delete_tenant(base.store, mg.tenant)
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 9. time edges (issue 46)

# times whose UTC instant leaves years 1..9999 (refused for their field), the valid edges themselves, and garbage
EDGE_TIMES = [
    "9999-12-31T23:00:00-05:00",
    "0001-01-01T00:30:00+01:00",
    "0001-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59.999999Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31",
    "0001-01-01",
    "2026-13-01",
    "+10000-01-01",
    "9999-12-31T23:59:59-23:59",
]


def _no_traceback(row: Row, what: str, fn: Callable[[], Any]) -> None:
    """``fn`` answers, or refuses with a kgmem error that says its fix; anything else is a failure."""
    from kgmem.errors import KgmemError

    row.attempts += 1
    try:
        fn()
    except KgmemError as e:
        if not e.fix:
            row.fail(f"{what}: an error without a fix: {e}")
    except Exception as e:  # noqa: BLE001 - what the check looks for
        row.fail(f"{what}: {type(e).__name__}: {e}")


def check_time_edges(base, tmp: Path, *, cli: int = 4) -> Row:
    """Every face given a time at the edges of what datetime holds: the Python API (ingest, where the good line
    must still land; recall, why, as_of, changes, ask, gc), the MCP tools and the CLI (no traceback on stderr)."""
    import anyio
    from mcp import Client

    from kgmem.mcp_server import build_server

    row = Row("time edges (no traceback on any at)")
    t0 = time.perf_counter()
    mg = base.for_tenant("rel-time-" + uuid.uuid4().hex[:8])
    try:
        fact = {"id": "f0", "text": "Maya lives in Boston", "subject": "maya", "predicate": "lives_in"}
        mg.ingest([{**fact, "object": "Boston"}])
        for i, at in enumerate(EDGE_TIMES):
            row.attempts += 1
            try:
                report = mg.ingest(
                    [{"id": f"ok-{i}", "text": f"good line {i}"}, {"id": f"edge-{i}", "text": "edge", "at": at}]
                )
            except Exception as e:  # noqa: BLE001
                row.fail(f"ingest with at={at}: {type(e).__name__}: {e}")
                continue
            if mg.store.read("memory/by_ids", tenant=mg.tenant, ids=[f"ok-{i}"]) == []:
                row.lost += 1
                row.notes.append(f"the good line beside at={at} was lost")
            errors = [e["error"] for e in report.errors]
            if errors and not (errors[0].startswith("field 'at'") and errors[0].endswith(")")):
                row.fail(f"at={at}: {errors[0][:120]}")
            for name, fn in (
                ("recall", lambda at=at: mg.recall("good line", at=at)),
                ("why", lambda at=at: mg.why("why the good line?", at=at)),
                ("as_of", lambda at=at: mg.as_of("maya", "lives_in", at)),
                ("changes", lambda at=at: mg.changes(at)),
                ("ask", lambda at=at: mg.ask("what happened last week?", now=at)),
                ("gc", lambda at=at: mg.gc(dry_run=True, now=at)),
            ):
                _no_traceback(row, f"{name}({at})", fn)
        server = build_server(mg.tenant, graph_factory=lambda: mg)

        async def tools() -> None:
            async with Client(server) as client:
                for at in EDGE_TIMES:
                    for tool, args in (
                        ("recall", {"query": "good line", "at": at}),
                        ("as_of", {"subject": "maya", "predicate": "lives_in", "at": at}),
                        ("changes", {"since": at}),
                        ("remember", {"text": "edge over mcp", "at": at}),
                    ):
                        row.attempts += 1
                        result = await client.call_tool(tool, args)
                        text = "".join(getattr(c, "text", "") for c in result.content)
                        if result.is_error and " Fix: " not in text:
                            row.fail(f"mcp {tool}(at={at}): {text[:120]}")

        anyio.run(tools)
        env = {**os.environ, "KGMEM_TENANT": mg.tenant}
        _export_connection(base, env)
        path = tmp / "edge-times.jsonl"
        path.write_text("".join(json.dumps({"text": f"cli {i}", "at": at}) + "\n" for i, at in enumerate(EDGE_TIMES)))
        commands = [["ingest", str(path)]] + [
            ["recall", "good line", "--at", at] for at in EDGE_TIMES[: max(0, cli - 1)]
        ]
        for args in commands:
            row.attempts += 1
            out = subprocess.run(KGMEM + args, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
            if "Traceback" in out.stderr or out.returncode not in (0, 1):
                row.fail(f"kgmem {' '.join(args[:2])}: exit {out.returncode}: {out.stderr[-300:]}")
    finally:
        delete_tenant(base.store, mg.tenant)
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 10. long tokens (issue 46)

LONG_SHAPES: dict[str, Callable[[int], str]] = {
    "base64 key": lambda n: base64.b64encode(os.urandom(n)).decode()[:n],
    "one letter": lambda n: "a" * n,
    "digits and commas": lambda n: "1," * (n // 2),
    "run of spaces": lambda n: "x" + " " * (n - 2) + "y",
    "run of full stops": lambda n: "x" + "." * (n - 1),
    "a fact, then nows": lambda n: "I live in Paris" + " now" * ((n - 15) // 4),
}


def check_long_tokens(base, *, small: int = 4096, big: int = 32768, bound: float = 20.0) -> Row:
    """One record holding an unbroken token (or a run of spaces or punctuation) of ``big`` characters against
    one of ``small``: the ingest time's ratio must stay below ``bound`` (linear: about big/small = 8; the
    quadratic regexes gave 40 to 90). A ratio, never an absolute time; the slowest ingest is noted."""
    row = Row("long tokens (ingest time linear in length)")
    t0 = time.perf_counter()
    mg = base.for_tenant("rel-long-" + uuid.uuid4().hex[:8])
    worst, slowest = 0.0, 0.0
    try:
        mg.ingest([{"text": "warm up: I live in Paris now"}])
        for name, shape in LONG_SHAPES.items():
            seconds = []
            for n in (small, big):
                row.attempts += 1
                start = time.perf_counter()
                try:
                    report = mg.ingest([{"id": f"{name}-{n}", "text": shape(n)}])
                except Exception as e:  # noqa: BLE001
                    row.fail(f"{name} ({n}): {type(e).__name__}: {e}")
                    break
                seconds.append(time.perf_counter() - start)
                if report.created != 1:
                    row.lost += 1
                    row.notes.append(f"{name} ({n}) not stored: {report.errors[:1]}")
            if len(seconds) == 2:
                ratio = seconds[1] / max(seconds[0], 1e-3)
                worst, slowest = max(worst, ratio), max(slowest, seconds[1])
                if ratio > bound:
                    row.fail(f"{name}: {big} characters took {ratio:.1f}x the time of {small}")
        row.notes.append(f"worst ratio {worst:.1f} ({big}/{small} characters); slowest {big}: {slowest:.2f} s")
    finally:
        delete_tenant(base.store, mg.tenant)
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- 11. HTTP MCP server off loopback (issue 46)


def check_http_off_loopback(base, *, requests: int = 20) -> Row:
    """``kgmem mcp --http --host 0.0.0.0``: without a token it must refuse to start (exit 1, a Fix, no
    traceback); with one, a request without it or with a wrong one is 401 (a 200 is a leak), a rebound Host 421,
    and the token's request 200."""
    import httpx2

    row = Row("HTTP MCP server off loopback")
    t0 = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "KGMEM_MCP_TOKEN"}
    env["KGMEM_TENANT"] = "rel-http-" + uuid.uuid4().hex[:8]
    _export_connection(base, env)
    port = _free_port()
    argv = KGMEM + ["mcp", "--http", "--host", "0.0.0.0", "--port", str(port)]
    row.attempts += 1
    try:
        out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
        if out.returncode != 1 or "Fix:" not in out.stderr or "Traceback" in out.stderr:
            row.leaked += 1
            row.notes.append(f"started without a token: exit {out.returncode} {out.stderr[-200:]}")
    except subprocess.TimeoutExpired:
        row.leaked += 1
        row.notes.append("served without a token (still running after 120 s)")
    token = uuid.uuid4().hex
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env={**env, "KGMEM_MCP_TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "rel", "version": "1"}},
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    cases: list[tuple[dict, int]] = [
        ({}, 401),
        ({"Authorization": "Bearer " + token[:-1]}, 401),
        ({"Authorization": "Bearer"}, 401),
        ({"Authorization": token}, 401),
        ({"Authorization": "Basic " + base64.b64encode(token.encode()).decode()}, 401),
        ({"Authorization": f"Bearer {token}", "Host": "rebound.example"}, 421),
        ({"Authorization": f"Bearer {token}", "Origin": "http://rebound.example"}, 403),
        ({"Authorization": f"Bearer {token}"}, 200),
    ]
    err = ""
    try:
        deadline = time.monotonic() + 120
        listening = False
        while proc.poll() is None and time.monotonic() < deadline and not listening:
            with socket.socket() as sock:
                listening = sock.connect_ex(("127.0.0.1", port)) == 0
            if not listening:
                time.sleep(0.25)
        if not listening:
            row.fail("the server with a token did not start listening")
        for i in range(requests if listening else 0):
            extra, expected = cases[i % len(cases)]
            row.attempts += 1
            got = httpx2.post(url, json=body, headers={**headers, **extra}, timeout=60).status_code
            if got == expected:
                continue
            if got == 200:
                row.leaked += 1
                row.notes.append(f"{sorted(extra)} answered 200")
            else:
                row.fail(f"{sorted(extra)}: {got}, expected {expected}")
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate(timeout=30)
    if "warning: serving" not in (err or ""):
        row.fail("no warning on stderr")
    row.seconds = time.perf_counter() - t0
    return row


# --------------------------------------------------------------------------- the suite


# --------------------------------------------------------------------------- identity and arrival order


def check_identity(base) -> Row:
    """Inferred links respect who and what a memory is about: one user whatever the case or accents of its name
    (retired in the slot and in recall alike, saying by what), never across users (causes, supersession), never
    across named entities; "user" is reserved."""
    row = Row("identity: users and named entities")
    t0 = time.perf_counter()
    mg = base.for_tenant("rel-id-" + uuid.uuid4().hex[:8])
    try:
        rep = mg.ingest(
            [
                {"id": "b1", "text": "I live in Boston", "at": "2026-01-02", "user": "bob"},
                {"id": "b2", "text": "I moved to Lisbon", "at": "2026-04-03", "user": "Bob"},
                {
                    "id": "x1",
                    "text": "The disk on the build server filled up with old artifacts",
                    "at": "2026-02-01",
                    "user": "José",
                },
                {
                    "id": "x2",
                    "text": "My nightly build failed because the disk on the build server filled up",
                    "at": "2026-02-02",
                    "user": "alice",
                },
                {
                    "id": "c1",
                    "text": "Customer Acme's contract renews on March 31 and their discount is 12 %",
                    "at": "2026-01-10",
                },
                {
                    "id": "c2",
                    "text": "Customer Globex's contract now renews on June 30 and their discount is 5 %",
                    "at": "2026-02-09",
                },
                {"id": "u1", "text": "I live in Porto", "at": "2026-01-02", "user": "USER"},
            ]
        )
        row.attempts = 5
        if [e["line"] for e in rep.errors] != [7]:
            row.fail(f"the reserved user: errors {rep.errors}")
        now = mg.now("BOB", "lives_in")
        if now is None or now.object != "Lisbon":
            row.fail(f"now(BOB, lives_in) = {now and now.object}")
        hits = {h.id: h for h in mg.recall("where do I live?", user="bob", k=5, include_superseded=True).hits}
        if "b1" not in hits or hits["b1"].current or not hits["b1"].superseded_by:
            row.fail("bob's Boston is not retired by Bob's Lisbon, or does not say by what")
        edges = _q(
            mg.store,
            "MATCH (a:Memory {tenant: $t})-[r:CAUSED_BY|SUPERSEDES]->(b) WHERE coalesce(r.inferred, false) "
            "RETURN a.id AS a, b.id AS b",
            t=mg.tenant,
        )
        crossed = [(e["a"], e["b"]) for e in edges if {e["a"], e["b"]} & {"x1", "x2"} and e["a"] != e["b"]]
        if crossed:
            row.leaked += len(crossed)
            row.notes.append(f"links across users: {crossed}")
        if [(e["a"], e["b"]) for e in edges if (e["a"], e["b"]) == ("c2", "c1")]:
            row.fail("Globex's contract retired Acme's")
    finally:
        delete_tenant(base.store, mg.tenant)
    row.seconds = time.perf_counter() - t0
    return row


def _derived(store, tenant: str) -> dict[str, Any]:
    return {
        "links": sorted(
            (r["t"], r["a"], r["b"])
            for r in _q(
                store,
                "MATCH (a:Memory {tenant: $t})-[r:CAUSED_BY|SUPERSEDES]->(b) WHERE coalesce(r.inferred, false) "
                "RETURN type(r) AS t, a.id AS a, b.id AS b",
                t=tenant,
            )
        ),
        "mentions": sorted(
            (r["k"], r["n"])
            for r in _q(
                store,
                "MATCH (:Memory {tenant: $t})-[:MENTIONS]->(e:Entity) RETURN e.key AS k, count(*) AS n",
                t=tenant,
            )
        ),
        "memories": _count(store, tenant),
    }


def check_arrival_order(base) -> Row:
    """kgmem's update and causal fixtures (records told in plain words) ingested as one batch, one record per
    call newest first, in two batches of which the first is ingested again with the whole after it (a crash
    re-run), and by two identical runs at once: the same memories, inferred links and entity mentions each
    time."""
    row = Row("arrival order, batches and re-runs")
    t0 = time.perf_counter()
    cases = json.loads((ROOT / "fixtures" / "updates" / "cases.json").read_text(encoding="utf-8"))
    rows = [{"id": m["id"], "text": m["text"], "at": m["at"]} for c in cases for m in c["memories"]]
    words = (ROOT / "fixtures" / "causal" / "incidents_words.jsonl").read_text(encoding="utf-8").splitlines()
    rows += [{k: v for k, v in json.loads(x).items() if k in ("id", "text", "at", "stream")} for x in words if x]
    orders = {
        "one batch": [rows],
        "newest first, one per call": [[r] for r in sorted(rows, key=lambda r: r["at"], reverse=True)],
        "half, then all again": [rows[: len(rows) // 2], rows],
    }
    seen: dict[str, dict[str, Any]] = {}
    for name, batches in orders.items():
        mg = base.for_tenant("rel-order-" + uuid.uuid4().hex[:8])
        try:
            for b in batches:
                mg.ingest(b)
            seen[name] = _derived(mg.store, mg.tenant)
        finally:
            delete_tenant(base.store, mg.tenant)
    # the same ingest run twice at once into one tenant (two threads over the shared driver)
    tenant = "rel-order-" + uuid.uuid4().hex[:8]
    twins = [base.for_tenant(tenant), base.for_tenant(tenant)]
    failed: list[str] = []

    def ingest(g: Any) -> None:
        try:
            g.ingest(rows)
        except Exception as e:  # reported in the row: a concurrent run must not fail
            failed.append(f"{type(e).__name__}: {e}")

    try:
        threads = [threading.Thread(target=ingest, args=(g,)) for g in twins]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for f in failed:
            row.fail(f"two runs at once: {f}")
        seen["two identical runs at once"] = _derived(base.store, tenant)
    finally:
        delete_tenant(base.store, tenant)
    ref = seen["one batch"]
    row.attempts = len(seen) - 1
    row.notes.append(f"{len(ref['links'])} inferred links, {sum(n for _, n in ref['mentions'])} mentions")
    for name, got in seen.items():
        if got == ref:
            continue
        extra = set(got["links"]) - set(ref["links"])
        missing = set(ref["links"]) - set(got["links"])
        row.duplicated += len(extra)
        row.lost += len(missing)
        if got["mentions"] != ref["mentions"] or got["memories"] != ref["memories"]:
            row.fail(f"{name}: mentions or memories differ from one batch")
        row.notes.append(f"{name}: +{len(extra)} / -{len(missing)} links")
    row.seconds = time.perf_counter() - t0
    return row


@suite("reliability", title="Reliability: hostile input, crashes, races and isolation (issue 16)")
def run(ctx: BenchContext) -> dict:
    """Hostile strings, malformed JSONL, tenant isolation, concurrent writers, client and database killed
    mid-ingest, cypher path traversal, forget under load, time edges, long tokens, the HTTP MCP server off
    loopback: one row per check."""
    base = ctx._base_graph()
    rows: list[Row] = []
    errors: list[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="kgmem-rel-"))
    quick = ctx.quick
    checks: list[tuple[str, Callable[[], Row]]] = [
        ("hostile", lambda: check_hostile_strings(base, examples=15 if quick else 60)),
        ("malformed", lambda: check_malformed(base, tmp)),
        ("isolation", lambda: check_tenant_isolation(base, tmp, queries=150 if quick else 1000)),
        ("concurrent", lambda: check_concurrent_writers(base, procs=4 if quick else 8, updates=50 if quick else 200)),
        (
            "client",
            lambda: check_client_killed(
                base,
                tmp,
                n=800 if quick else 5000,
                batch=100 if quick else 250,
                kill_after_records=200 if quick else 500,
            ),
        ),
        (
            "database",
            lambda: (
                Row("database killed mid-ingest", notes=["skipped in --quick: it starts its own Neo4j"])
                if quick
                else check_database_killed(base, tmp, n=3000)
            ),
        ),
        ("cypher", check_cypher_paths),
        ("forget", lambda: check_forget_under_load(base, tmp, seconds=10 if quick else 25)),
        ("time", lambda: check_time_edges(base, tmp, cli=2 if quick else 6)),
        ("long", lambda: check_long_tokens(base)),
        ("http", lambda: check_http_off_loopback(base, requests=16 if quick else 80)),
        ("identity", lambda: check_identity(base)),
        ("order", lambda: check_arrival_order(base)),
    ]
    only = [c for c in os.environ.get("KGMEM_RELIABILITY_CHECKS", "").split(",") if c]
    for name, fn in checks:
        if only and name not in only:
            continue
        ctx.log(f"check {name}")
        try:
            r = fn()
        except Exception as e:
            errors.append(f"{name}: {type(e).__name__}: {e}")
            r = Row(name, failures=1, notes=[f"{type(e).__name__}: {e}"])
        ctx.log(str(r))
        rows.append(r)
    shutil.rmtree(tmp, ignore_errors=True)
    failed = [r.check for r in rows if not r.ok]
    return {
        "tables": [
            {
                "title": "Reliability checks",
                "columns": COLUMNS,
                "rows": [r.cells() for r in rows],
                "note": "failures, lost, duplicated and leaked must all be 0",
            }
        ],
        "figures": {"rows": [{**{c: v for c, v in zip(COLUMNS, r.cells())}, "notes": r.notes} for r in rows]},
        "notes": [f"failed checks: {', '.join(failed)}" if failed else "every check passed"],
        "errors": errors + [str(r) for r in rows if not r.ok],
    }

"""The CLI in-process through click's CliRunner, against the test database: every command's --json output
checked against the contract's shape (docs/interface.md §3), bad input (exit 1, one "Error:" line that
says what is wrong and the fix), usage errors (exit 2) and an unreachable database (exit 3).

Data is set up through the ``mg`` fixture (same tenant as ``--tenant``), or through the CLI itself.
"""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner

from kgmem.cli import cli

from ..conftest import FIXTURES
from . import shapes
from .shapes import check, parse_json_lines

INCIDENTS = FIXTURES / "causal" / "incidents.jsonl"
FACTS = FIXTURES / "supersession" / "facts.jsonl"
DEMO = FIXTURES / "demo" / "demo.jsonl"
DOWN_URI = "bolt://127.0.0.1:1"  # nothing listens on port 1


def make_runner() -> CliRunner:
    """stdout and stderr apart: click 8.0/8.1 need mix_stderr=False; from 8.2 they are always separate."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def stderr_lines(result) -> list[str]:
    return shapes.stderr_lines(result.stderr)


def error_line(result, code: int = 1) -> str:
    """The run failed with ``code`` and printed exactly one line on stderr, starting with 'Error:'."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr, result.exception)
    lines = stderr_lines(result)
    assert len(lines) == 1, f"expected one line on stderr, got {lines}"
    assert lines[0].startswith("Error: "), lines[0]
    return lines[0]


@pytest.fixture
def kg(neo4j_connection, tenant):
    """Run ``kgmem ARGS`` against the test database in the test's tenant; returns click's Result."""
    uri, user, password, _ = neo4j_connection
    runner = make_runner()

    def run(*args, input=None, uri_=None, password_=None, tenant_=None, conn=True, env=None):
        argv = [str(a) for a in args]
        if conn:
            argv += [
                "--uri",
                uri_ or uri,
                "--username",
                user or "neo4j",
                "--password",
                password_ if password_ is not None else (password or ""),
                "--tenant",
                tenant_ or tenant,
            ]
        return runner.invoke(cli, argv, input=input, env=env, catch_exceptions=False)

    return run


def ok_json(result) -> dict:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr)
    objs = parse_json_lines(result.stdout)
    assert len(objs) == 1, result.stdout
    return objs[0]


def write_jsonl(path, rows) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


# ============================================================================ success: one per command


def test_init_json(kg):
    out = ok_json(kg("init", "--json"))
    check(out, shapes.INIT)
    names = {i["name"]: i for i in out["indexes"]}
    assert {"memory_embedding", "memory_text", "memory_key"} <= set(names)
    assert all(i["state"] == "ONLINE" for i in out["indexes"]), out
    assert names["memory_embedding"]["type"] == "VECTOR"


def test_ingest_json_then_reingest_changes_nothing(kg):
    first = ok_json(kg("ingest", INCIDENTS, "--json"))
    check(first, shapes.INGEST)
    assert (first["read"], first["created"], first["unchanged"], first["errors"]) == (61, 61, 0, [])
    assert first["linked"] > 0
    again = ok_json(kg("ingest", INCIDENTS, "--json"))
    check(again, shapes.INGEST)
    assert (again["read"], again["created"], again["unchanged"], again["superseded"]) == (61, 0, 61, 0)


def test_ingest_from_stdin(kg, mg):
    rows = [
        {"id": "s1", "text": "Deploy 7 started", "at": "2026-02-01T10:00:00Z", "stream": "d"},
        {"id": "s2", "text": "Deploy 7 finished", "at": "2026-02-01T10:05:00Z", "stream": "d"},
    ]
    out = ok_json(kg("ingest", "-", "--json", input="".join(json.dumps(r) + "\n" for r in rows)))
    check(out, shapes.INGEST)
    assert out["created"] == 2 and out["errors"] == []
    assert mg.get("s2").text == "Deploy 7 finished"


def test_ingest_demo_story_copy_without_tenant_field(kg, tmp_path):
    rows = [json.loads(ln) for ln in DEMO.read_text(encoding="utf-8").splitlines() if ln.strip()]
    for r in rows:
        r.pop("tenant", None)
    out = ok_json(kg("ingest", write_jsonl(tmp_path / "demo.jsonl", rows), "--json"))
    check(out, shapes.INGEST)
    assert (out["read"], out["created"], out["errors"]) == (39, 39, [])
    assert out["superseded"] >= 3
    home = ok_json(kg("now", "maya", "lives_in", "--json"))
    assert home["value"]["object"] == "Lisbon"


def test_ingest_text_output(kg):
    res = kg("ingest", INCIDENTS)
    assert res.exit_code == 0, res.stderr
    assert "read 61, created 61" in res.stdout


def test_remember_json(kg, mg):
    out = ok_json(
        kg(
            "remember",
            "Sam moved to Oslo.",
            "--id",
            "oslo",
            "--at",
            "2026-07-01",
            "-s",
            "sam",
            "-p",
            "lives_in",
            "-o",
            "Oslo",
            "--json",
        )
    )
    check(out, shapes.MEMORY)
    assert (out["id"], out["text"], out["at"], out["kind"], out["current"]) == (
        "oslo",
        "Sam moved to Oslo.",
        "2026-07-01T00:00:00Z",
        "fact",
        True,
    )
    assert out["subject"] == "sam" and out["object"] == "Oslo"
    ep = ok_json(kg("remember", "Oslo office opened", "--id", "ep1", "--caused-by", "oslo", "--json"))
    check(ep, shapes.MEMORY)
    assert ep["kind"] == "episode"
    assert mg.now("sam", "lives_in").object == "Oslo"
    # remembering the same thing again is not an error and gives the same memory
    assert ok_json(kg("remember", "Oslo office opened", "--id", "ep1", "--caused-by", "oslo", "--json"))["id"] == "ep1"


def test_recall_json(kg, mg):
    mg.ingest(INCIDENTS)
    out = ok_json(kg("recall", "reconciler invoice cache", "--k", "3", "--json"))
    check(out, shapes.RECALL)
    assert out["query"] == "reconciler invoice cache"
    assert out["abstained"] is False and out["reason"] is None
    assert 1 <= len(out["hits"]) <= 3
    assert out["hits"][0]["id"] == "inc01-root"
    assert set(out["hits"][0]["channels"]) >= {"vector", "keyword", "entity"}
    scores = [h["score"] for h in out["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_recall_at_and_include_superseded(kg, mg):
    mg.ingest(FACTS)
    q = "where does Sam live?"
    current = ok_json(kg("recall", q, "--json"))
    check(current, shapes.RECALL)
    assert all(h["current"] for h in current["hits"]), "superseded versions are left out by default"
    everything = ok_json(kg("recall", q, "--include-superseded", "--k", "20", "--json"))
    check(everything, shapes.RECALL)
    assert any(not h["current"] for h in everything["hits"])
    then = ok_json(kg("recall", q, "--at", "2026-02-01", "--json"))
    check(then, shapes.RECALL)
    ids = [h["id"] for h in then["hits"]]
    assert "sam-lives-lisbon" not in ids  # Lisbon came later (2026-05-20)


def test_recall_abstains_with_reason(kg, mg):
    mg.ingest(INCIDENTS)
    out = ok_json(kg("recall", "what is Maya's favourite band?", "--json"))
    check(out, shapes.RECALL)
    assert out["abstained"] is True
    assert isinstance(out["reason"], str) and out["reason"]


def test_recall_batch_one_line_per_question(kg, mg, tmp_path):
    mg.ingest(INCIDENTS)
    queries = [
        {"query": "reconciler invoice cache"},
        {"query": "OOM killer terminated pods", "k": 1},
        {"query": "what is Maya's favourite band?"},
    ]
    res = kg("recall", "--queries", write_jsonl(tmp_path / "q.jsonl", queries), "--json")
    assert res.exit_code == 0, res.stderr
    outs = parse_json_lines(res.stdout)
    assert len(outs) == len(queries)
    for q, out in zip(queries, outs):
        check(out, shapes.RECALL)
        assert out["query"] == q["query"]
    assert outs[0]["hits"][0]["id"] == "inc01-root"
    assert len(outs[1]["hits"]) <= 1


def test_why_json(kg, mg):
    mg.ingest(INCIDENTS)
    out = ok_json(kg("why", "why did checkout crash on Friday?", "--json"))
    check(out, shapes.WHY)
    assert out["query"] == "why did checkout crash on Friday?"
    assert out["abstained"] is False
    assert out["symptom"]["id"] == "inc01-symptom"
    assert out["roots"][0]["id"] == "inc01-root" and out["roots"][0]["depth"] == 3
    assert out["paths"][0] == ["inc01-symptom", "inc01-h2", "inc01-h1", "inc01-root"]
    assert len(out["roots"]) <= 3


def test_why_abstains(kg, mg):
    mg.ingest(INCIDENTS)
    out = ok_json(kg("why", "why did the office printer stop working?", "--json"))
    check(out, shapes.WHY)
    assert out["abstained"] is True
    assert out["roots"] == [] and out["paths"] == []


def test_why_batch_one_line_per_question(kg, mg, tmp_path):
    mg.ingest(INCIDENTS)
    queries = [{"query": "why did checkout crash on Friday?"}, {"query": "why did the office printer stop working?"}]
    res = kg("why", "--queries", write_jsonl(tmp_path / "q.jsonl", queries), "--json")
    assert res.exit_code == 0, res.stderr
    outs = parse_json_lines(res.stdout)
    assert len(outs) == 2
    for q, out in zip(queries, outs):
        check(out, shapes.WHY)
        assert out["query"] == q["query"]
    assert outs[0]["roots"][0]["id"] == "inc01-root"
    assert outs[1]["abstained"] is True


def test_now_json(kg, mg):
    mg.ingest(FACTS)
    out = ok_json(kg("now", "sam", "likes", "diet coke", "--json"))
    check(out, shapes.SLOT)
    assert (out["subject"], out["predicate"], out["object"], out["at"]) == ("sam", "likes", "diet coke", None)
    assert out["value"]["polarity"] is False and out["value"]["valid_to"] is None
    home = ok_json(kg("now", "sam", "lives_in", "--json"))
    check(home, shapes.SLOT)
    assert home["object"] is None and home["value"]["object"] == "Lisbon"
    nothing = ok_json(kg("now", "sam", "favourite_band", "--json"))
    check(nothing, shapes.SLOT)
    assert nothing["value"] is None


def test_as_of_json(kg, mg):
    mg.ingest(FACTS)
    out = ok_json(kg("as-of", "sam", "likes", "diet coke", "--at", "2026-03-01", "--json"))
    check(out, shapes.SLOT)
    assert out["at"] == "2026-03-01T00:00:00Z"
    assert out["value"]["polarity"] is True and out["value"]["id"] == "sam-likes-dietcoke-v1"
    before = ok_json(kg("as-of", "sam", "likes", "diet coke", "--at", "2026-01-05", "--json"))
    check(before, shapes.SLOT)
    assert before["value"] is None
    home = ok_json(kg("as-of", "sam", "lives_in", "--at", "2026-02-01", "--json"))
    assert home["value"]["object"] == "Boston" and home["value"]["valid_to"] == "2026-03-01T09:00:00Z"


def test_history_json(kg, mg):
    mg.ingest(FACTS)
    out = ok_json(kg("history", "sam", "lives_in", "--json"))
    check(out, shapes.HISTORY)
    assert (out["subject"], out["predicate"]) == ("sam", "lives_in")
    assert [v["object"] for v in out["versions"]] == ["Madrid", "Boston", "Berlin", "Lisbon"]
    assert [v["current"] for v in out["versions"]] == [False, False, False, True]
    likes = ok_json(kg("history", "sam", "likes", "diet coke", "--json"))
    check(likes, shapes.HISTORY)
    assert [v["polarity"] for v in likes["versions"]] == [True, False]
    empty = ok_json(kg("history", "nobody", "lives_in", "--json"))
    check(empty, shapes.HISTORY)
    assert empty["versions"] == []


def test_changes_json(kg, mg):
    mg.ingest(FACTS)
    out = ok_json(kg("changes", "--since", "2026-05-01", "--limit", "50", "--json"))
    check(out, shapes.CHANGES)
    assert out["since"] == "2026-05-01"
    assert 0 < len(out["changes"]) <= 50
    by_id = {c["id"]: c for c in out["changes"]}
    assert by_id["sam-lives-lisbon"]["previous"]["id"] == "sam-lives-berlin"
    limited = ok_json(kg("changes", "--since", "2026-01-01", "--limit", "2", "--json"))
    assert len(limited["changes"]) == 2


def test_timeline_json(kg, mg):
    mg.ingest(INCIDENTS)
    out = ok_json(kg("timeline", "inc01-h1", "--before", "1", "--after", "1", "--json"))
    check(out, shapes.TIMELINE)
    assert out["id"] == "inc01-h1"
    assert [(i["id"], i["offset"]) for i in out["items"]] == [("inc01-root", -1), ("inc01-h1", 0), ("inc01-h2", 1)]


def test_neighbourhood_json(kg, mg):
    mg.ingest(INCIDENTS)
    out = ok_json(kg("neighbourhood", "inc01-h1", "--limit", "3", "--json"))
    check(out, shapes.NEIGHBOURHOOD)
    assert out["id"] == "inc01-h1" and out["previous"]["id"] == "inc01-root" and out["next"]["id"] == "inc01-h2"
    assert out == mg.neighbourhood("inc01-h1", limit=3).to_dict()


def test_mentions_json(kg, mg):
    mg.ingest(FACTS)
    out = ok_json(kg("mentions", "Sam", "--limit", "2", "--json"))
    check(out, shapes.MENTIONS)
    assert out["key"] == "sam" and len(out["memories"]) == 2 and out["total"] >= 2
    assert out == mg.mentions("Sam", limit=2).to_dict()


def test_forget_stream_json(kg, mg):
    mg.ingest(INCIDENTS)
    stream = mg.get("inc01-h1").stream
    out = ok_json(kg("forget-stream", stream, "--json"))
    check(out, shapes.FORGET_STREAM)
    assert out["stream"] == stream and "inc01-h1" in out["forgotten"] and out["document"] is None
    line = error_line(kg("forget-stream", stream, "--json"))
    assert stream in line and "Fix:" in line


def test_cypher_prints_a_statement_and_lists_names(kg):
    res = kg("cypher", "why/roots", conn=False)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("// name: why/roots")
    assert ":param tenant" in res.stdout and "MATCH" in res.stdout
    listing = kg("cypher", "--list", conn=False)
    assert listing.exit_code == 0
    assert any(ln.split()[0] == "why/roots" for ln in listing.stdout.splitlines() if ln.strip())


def test_server_status_json(kg, neo4j_connection, store):
    res = kg("server", "status", "--json", conn=False)
    out = ok_json(res)
    check(out, shapes.SERVER_STATUS)
    if neo4j_connection[3] == "local-server":
        assert out["state"] == "running"
        assert out["version"] == store.server_info().version  # the version the running server reports


@pytest.mark.parametrize(
    "args",
    [
        ("recall", "reconciler invoice cache"),
        ("recall", "reconciler invoice cache", "--explain"),
        ("why", "why did checkout crash on Friday?"),
        ("now", "sam", "lives_in"),
        ("as-of", "sam", "lives_in", "--at", "2026-02-01"),
        ("history", "sam", "likes", "diet coke"),
        ("changes", "--since", "2026-05-01"),
        ("timeline", "inc01-h1"),
        ("neighbourhood", "inc01-h1"),
        ("mentions", "sam"),
        ("mentions", "nobody"),
    ],
    ids=lambda a: " ".join(a),
)
def test_text_output_renders(kg, mg, args):
    mg.ingest(INCIDENTS)
    mg.ingest(FACTS)
    res = kg(*args)
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert res.stdout.strip()
    assert not stderr_lines(res), res.stderr


# ============================================================================ bad input: exit 1, one "Error:" line


def test_ingest_missing_file(kg, tmp_path):
    line = error_line(kg("ingest", tmp_path / "nope.jsonl", "--json"))
    assert "nope.jsonl" in line and "Fix:" in line


def test_ingest_bad_line_is_reported_and_good_lines_land(kg, mg, tmp_path):
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {"id": "good-1", "text": "first good line", "at": "2026-01-01"},
            '{"id": "broken", "text": ',
            {"id": "good-2", "text": "second good line", "at": "2026-01-02"},
        ],
    )
    res = kg("ingest", path, "--json")
    line = error_line(res, 1)
    assert "line 2" in line and "Fix:" in line
    report = parse_json_lines(res.stdout)[0]
    check(report, shapes.INGEST)
    assert report["created"] == 2
    assert [e["line"] for e in report["errors"]] == [2]
    assert mg.get("good-1").text == "first good line" and mg.get("good-2").text == "second good line"
    # the text form names the line once per bad line and ends with the one Error: line
    text = kg("ingest", path)
    assert text.exit_code == 1
    lines = stderr_lines(text)
    assert lines[-1].startswith("Error: ") and sum(ln.startswith("Error:") for ln in lines) == 1
    assert any(ln.startswith("line 2") and "line 2: line 2" not in ln for ln in lines[:-1]), lines


def test_ingest_record_missing_text(kg, tmp_path):
    res = kg("ingest", write_jsonl(tmp_path / "r.jsonl", [{"id": "x", "text": "ok"}, {"id": "y"}]), "--json")
    line = error_line(res, 1)
    assert "line 2" in line and "text" in line


_DATE_FIX = "2026-03-03"  # the example the fix gives


@pytest.mark.parametrize(
    "args,field",
    [
        (("as-of", "sam", "lives_in", "--at", "not-a-date"), "at"),
        (("as-of", "sam", "lives_in", "--at", "2026-01-01", "--known-at", "not-a-date"), "known_at"),
        (("recall", "where does sam live", "--at", "not-a-date"), "at"),
        (("recall", "where does sam live", "--since", "not-a-date"), "since"),
        (("why", "why did checkout crash", "--at", "not-a-date"), "at"),
        (("changes", "--since", "not-a-date"), "since"),
        (("history", "sam", "lives_in", "--known-at", "not-a-date"), "known_at"),
        (("remember", "hello", "--at", "not-a-date"), "at"),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, tuple) else a,
)
def test_bad_date(kg, args, field):
    line = error_line(kg(*args, "--json"))
    assert "not-a-date" in line and f"'{field}'" in line
    assert _DATE_FIX in line, f"the message should show the fix (a valid date): {line}"


def test_timeline_unknown_id(kg, tenant):
    line = error_line(kg("timeline", "NOSUCHID", "--json"))
    assert "NOSUCHID" in line and tenant in line and "Fix:" in line


@pytest.mark.parametrize("cmd", ["recall", "why"])
@pytest.mark.parametrize("query", ["", "   "], ids=["empty", "blank"])
def test_empty_query(kg, cmd, query):
    line = error_line(kg(cmd, query, "--json"))
    assert "query" in line and "non-empty" in line and "Fix:" in line


def test_unknown_cypher_name(kg):
    line = error_line(kg("cypher", "no/such-statement", conn=False))
    assert "no/such-statement" in line and "kgmem cypher --list" in line


@pytest.mark.parametrize("cmd", ["recall", "why"])
def test_queries_file_missing(kg, cmd, tmp_path):
    line = error_line(kg(cmd, "--queries", tmp_path / "nope.jsonl", "--json"))
    assert "nope.jsonl" in line and "--queries" in line


@pytest.mark.parametrize("cmd", ["recall", "why"])
@pytest.mark.parametrize(
    "bad",
    ['{"query": "ok", ', '{"question": "no query field"}', '{"query": ""}', '["query"]'],
    ids=["broken-json", "no-query", "empty-query", "not-an-object"],
)
def test_queries_file_bad_line(kg, cmd, bad, tmp_path):
    path = write_jsonl(tmp_path / "q.jsonl", [{"query": "first question is fine"}, "", bad])
    res = kg(cmd, "--queries", path, "--json")
    line = error_line(res)
    assert "line 3" in line and "Fix:" in line
    assert res.stdout == "", "the file is checked before any answer is printed"


@pytest.mark.parametrize(
    "args,words",
    [
        (("now", "", "lives_in"), ["subject"]),
        (("history", "sam", ""), ["predicate"]),
        (("recall", "x", "--k", "0"), ["'k'"]),
        (("remember", ""), ["text"]),
        (("remember", "hello", "-s", "sam"), ["predicate", "object"]),
        (("forget-stream", ""), ["'stream'", "must not be empty"]),
        (("forget-stream", "no-such-stream"), ["no-such-stream"]),
        (("mentions", "sam", "--limit", "0"), ["'limit'"]),
        (("mentions", "..."), ["'entity'"]),
        (("neighbourhood", "nope"), ["nope"]),
        (("neighbourhood", "x", "--limit", "501"), ["'limit'"]),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, tuple) else None,
)
def test_other_bad_input(kg, args, words):
    line = error_line(kg(*args, "--json"))
    for w in words:
        assert w in line, line


# ============================================================================ usage errors: exit 2


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("nosuchcommand",),
        ("ingest",),
        ("remember",),
        ("recall",),
        ("why",),
        ("now",),
        ("now", "sam"),
        ("as-of", "sam", "lives_in"),
        ("history",),
        ("changes",),
        ("timeline",),
        ("neighbourhood",),
        ("mentions",),
        ("forget-stream",),
        ("server",),
        ("server", "nosuch"),
        ("recall", "q", "--queries", "q.jsonl"),
        ("why", "q", "--queries", "q.jsonl"),
        ("recall", "q", "--k", "many"),
        ("ingest", "."),
    ],
    ids=lambda a: " ".join(a) or "(none)",
)
def test_usage_errors_exit_2(kg, args):
    res = kg(*args, conn=False)
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr)


# ============================================================================ database unreachable: exit 3


DB_COMMANDS = [
    ("init",),
    ("ingest", str(INCIDENTS)),
    ("remember", "hello"),
    ("recall", "hello"),
    ("why", "why hello"),
    ("now", "sam", "lives_in"),
    ("as-of", "sam", "lives_in", "--at", "2026-01-01"),
    ("history", "sam", "lives_in"),
    ("changes", "--since", "2026-01-01"),
    ("timeline", "x"),
    ("neighbourhood", "x"),
    ("mentions", "x"),
    ("forget-stream", "x"),
    ("demo",),
]


@pytest.mark.parametrize("args", DB_COMMANDS, ids=lambda a: a[0])
def test_database_down_exit_3(kg, args):
    line = error_line(kg(*args, "--json", uri_=DOWN_URI) if args[0] != "demo" else kg(*args, uri_=DOWN_URI), 3)
    assert "127.0.0.1:1" in line
    assert "kgmem server start" in line and "NEO4J_URI" in line


def test_database_down_from_environment_exit_3(kg):
    res = kg(
        "now",
        "sam",
        "lives_in",
        "--json",
        conn=False,
        env={"NEO4J_URI": DOWN_URI, "NEO4J_USERNAME": "neo4j", "NEO4J_PASSWORD": "x"},
    )
    line = error_line(res, 3)
    assert "kgmem server start" in line and "NEO4J_URI" in line


def test_recall_batch_database_down_exit_3(kg, tmp_path):
    path = write_jsonl(tmp_path / "q.jsonl", [{"query": "hello"}])
    line = error_line(kg("recall", "--queries", path, "--json", uri_=DOWN_URI), 3)
    assert "kgmem server start" in line


def test_wrong_password_exit_1(kg):
    # refused credentials are bad input (the database answered), not "unreachable" (3)
    # one attempt only: repeated failures would make Neo4j lock the account for everyone for a few seconds
    line = error_line(kg("now", "sam", "lives_in", "--json", password_="wrong-" + uuid.uuid4().hex[:8]), 1)
    assert "credentials" in line and "NEO4J_PASSWORD" in line


def test_admin_cleanup_deletes_the_tenants_a_killed_run_left_and_nothing_else(kg, mg, store):
    """What an interrupted run leaves (tenants named by its prefix) goes; other tenants, and the tenant the
    command runs in, stay; a prefix too short to be safe is refused."""
    prefix = f"killed-{uuid.uuid4().hex[:6]}-"
    left = [mg.for_tenant(prefix + str(i)) for i in range(2)]
    try:
        for g in left:
            g.remember("a memory an interrupted run left behind", at="2026-01-01")
        mg.remember("the tenant the command runs in", at="2026-01-01")
        dry = ok_json(kg("admin", "cleanup", "--prefix", prefix, "--dry-run", "--json"))
        assert [t["tenant"] for t in dry["tenants"]] == [g.tenant for g in left] and dry["deleted"] == 0
        assert all(t["nodes"] >= 1 for t in dry["tenants"])
        done = ok_json(kg("admin", "cleanup", "--prefix", prefix, "--json"))
        assert done["deleted"] == sum(t["nodes"] for t in dry["tenants"])
        assert store.read("admin/tenants_with_prefix", prefix=prefix) == []
        assert store.read("admin/count_tenant", tenant=mg.tenant)[0]["memories"] >= 1
        assert "at least 3" in error_line(kg("admin", "cleanup", "--prefix", "ab"))
        assert "own tenant" in error_line(kg("admin", "cleanup", "--prefix", mg.tenant[:6]))
    finally:
        for g in left:
            store.auto_commit("admin/delete_tenant", tenant=g.tenant)

"""Issue 48 item 1, documents in: `kgmem ingest FILE` of the real files under fixtures/documents — a markdown note
file, a text file, a pretty-printed JSON array of records and a chat export — through the CLI runner, on the
test database: what lands (a document memory and its parts with their positions, linked DERIVED_FROM the
document; one stream of "speaker: text" turns), that recall finds a passage from the middle of a larger
document, that the same file again changes nothing, and that forgetting the document forgets its parts. The
Python API (`ingest_file`, `ingest_text`, `ingest_document`) is the same path."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from kgmem.cli import cli
from kgmem.errors import InputError, NotFoundError

from ..conftest import FIXTURES
from ..unit.test_documents import _big_markdown

DOCS = FIXTURES / "documents"


def run(*args, env: dict, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env, input=input, catch_exceptions=False)


def ok_json(res) -> dict:
    assert res.exit_code == 0, (res.exit_code, res.output)
    return json.loads(res.stdout)


def derived_from(mg, ids: list[str]) -> dict[str, list[str]]:
    """What each memory is DERIVED_FROM, by the lineage the forget propagation reads."""
    rows = mg.store.read("lifecycle/forget_targets", tenant=mg.tenant, ids=ids)
    return {r["id"]: r["sources"] for r in rows}


def test_a_markdown_file_becomes_a_document_and_its_parts(mg, cli_env):
    out = ok_json(run("ingest", DOCS / "kestrel-notes.md", "--user", "priya", "--json", env=cli_env))
    info = out["file"]
    assert info["format"] == "markdown" and info["name"] == "kestrel-notes.md" and info["parts"] == 8, info
    assert info["title"] == "Project Kestrel — engineering notes"
    assert (out["read"], out["created"], out["errors"]) == (9, 9, []), out
    doc_id = info["id"]
    assert re.fullmatch(r"doc-kestrel-notes-[0-9a-f]{12}", doc_id)

    doc = mg.get(doc_id)
    assert doc.text == "Document kestrel-notes.md: Project Kestrel — engineering notes (8 parts)"
    assert doc.kind == "summary" and doc.user == "priya"
    parts = [mg.get(f"{doc_id}#p{i:04d}") for i in range(1, 9)]
    assert all(p.user == "priya" and p.stream == doc_id for p in parts)
    assert parts[3].source == (
        "kestrel-notes.md, part 4 of 8, line 28 — Project Kestrel › Incidents › The March memory leak"
    )
    assert parts[4].text.startswith("Marta, who ran the review") and "line 45" in parts[4].source
    links = derived_from(mg, [p.id for p in parts])
    assert all(links[p.id] == [doc_id] for p in parts), links
    # in order in the document's stream: a passage's neighbours are the passages around it
    around = [r["id"] for r in mg.timeline(parts[3].id, before=1, after=1)]
    assert around == [parts[2].id, parts[3].id, parts[4].id], around

    hit = mg.recall("what time was the first alert of the memory leak?", k=3).hits[0]
    assert hit.id == parts[4].id, hit

    again = ok_json(run("ingest", DOCS / "kestrel-notes.md", "--user", "priya", "--json", env=cli_env))
    assert (again["created"], again["unchanged"], again["file"]["id"]) == (0, 9, doc_id), again

    # forgetting the document forgets its parts; ingesting it again is refused in one line unless --force
    gone = ok_json(run("forget", doc_id, "--json", env=cli_env))
    assert sorted(gone["forgotten"]) == sorted([doc_id, *(p.id for p in parts)]), gone
    with pytest.raises(NotFoundError):
        mg.get(parts[0].id)
    res = run("ingest", DOCS / "kestrel-notes.md", "--user", "priya", env=cli_env)
    assert res.exit_code == 1 and len(res.stderr.strip().splitlines()) == 1, res.output
    assert "kestrel-notes.md: the document memory" in res.stderr and "--force" in res.stderr, res.stderr
    assert mg.empty_tenant_hint() is not None  # nothing half-written: no part came back without its document
    back = ok_json(run("ingest", DOCS / "kestrel-notes.md", "--user", "priya", "--force", "--json", env=cli_env))
    assert back["created"] == 9 and back["errors"] == [], back


def test_a_text_file_is_a_document_too(mg, cli_env):
    res = run("ingest", DOCS / "standup-minutes.txt", env=cli_env)
    assert res.exit_code == 0, res.output
    first = res.stdout.splitlines()[0]
    assert first.startswith("standup-minutes.txt: document doc-standup-minutes-"), first
    assert first.endswith('"Standup minutes, week 14", 1 part'), first
    hit = mg.recall("who runs the soak test before Thursday's deploy?", k=1).hits[0]
    assert hit.id.endswith("#p0001") and "Priya will run the soak test" in hit.text


def test_a_pretty_printed_json_array_is_read_as_records(mg, cli_env):
    out = ok_json(run("ingest", DOCS / "decisions.json", "--json", env=cli_env))
    assert out["file"] == {"format": "json", "name": "decisions.json", "records": 3}, out
    assert (out["created"], out["errors"], out["edges"]["caused_by"]) == (3, [], 1), out
    assert mg.get("dec-rate-limit").text.startswith("A per-supplier rate limit")
    # from stdin too (told by its first character), and as JSONL it says what it is instead of 10 errors
    piped = ok_json(run("ingest", "-", "--json", env=cli_env, input=(DOCS / "decisions.json").read_text()))
    assert (piped["created"], piped["unchanged"]) == (0, 3), piped
    res = run("ingest", DOCS / "decisions.json", "--format", "jsonl", env=cli_env)
    assert res.exit_code == 1
    first = [ln for ln in res.stderr.splitlines() if ln.startswith("line 1:")][0]
    assert "starts a JSON array" in first and "--format json" in first, first


def test_a_json_array_with_a_bad_element_names_its_position(mg, cli_env, tmp_path):
    f = tmp_path / "mixed.json"
    f.write_text(
        json.dumps([{"id": "ok-1", "text": "fine"}, {"txt": "typo"}, {"id": "ok-3", "text": "fine too"}], indent=2)
    )
    res = run("ingest", f, env=cli_env)
    assert res.exit_code == 1
    assert "line 2: field 'txt': unknown field 'txt' (did you mean 'text'?)" in res.stderr, res.stderr
    assert mg.get("ok-3").text == "fine too"
    f.write_text('[\n  {"text": "a"},\n  {"text": "b"\n]\n')
    res = run("ingest", f, env=cli_env)
    assert res.exit_code == 1 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "mixed.json is not valid JSON" in res.stderr and "line 4, column 1" in res.stderr


def test_a_chat_export_becomes_one_stream_of_turns(mg, cli_env):
    out = ok_json(run("ingest", DOCS / "support-chat.json", "--json", env=cli_env))
    info = out["file"]
    assert info["format"] == "chat" and info["messages"] == 6, info
    assert (out["created"], out["errors"]) == (5, []), out  # the empty system message is not stored
    stream = info["stream"]
    turns = mg.timeline(f"{stream}#0003", before=5, after=5)
    assert [t["id"] for t in turns] == [f"{stream}#{i:04d}" for i in (1, 2, 3, 4, 6)]
    assert turns[0]["text"] == "user: Hi, our invoices from Northwind have been stuck since this morning."
    assert mg.get(f"{stream}#0006").at.isoformat().startswith("2026-04-07T08:16:45")
    hit = mg.recall("who owns the Northwind account?", k=1).hits[0]
    assert hit.id == f"{stream}#0006", hit


def test_the_api_reads_the_same_files(mg, tmp_path):
    report = mg.ingest_file(DOCS / "support-chat.json", user="maya")
    assert report.file["format"] == "chat" and report.created == 5
    assert mg.get(report.file["stream"] + "#0001").user == "maya"
    notes = mg.ingest_text("# Garden\n\nThe roses need pruning in February.\n", name="garden.md", format="markdown")
    assert notes.file["parts"] == 1 and notes.created == 2
    again = mg.ingest_document("# Garden\n\nThe roses need pruning in February.\n", name="garden.md")
    assert again.created == 0 and again.unchanged == 2 and again.file["id"] == notes.file["id"]
    with pytest.raises(InputError, match="not a format"):
        mg.ingest_file(DOCS / "support-chat.json", format="yaml")
    with pytest.raises(InputError, match="holds one JSON object"):
        (tmp_path / "one.json").write_text('{\n  "text": "one record, pretty-printed"\n}\n')
        mg.ingest_file(tmp_path / "one.json")


def test_recall_finds_a_passage_from_the_middle_of_a_larger_markdown_file(mg, cli_env, tmp_path):
    """The path of a big document (the splitter is tested on 5 MB in tests/unit/test_documents.py; a 5 MB
    ingest takes minutes to embed, so here ~300 KB)."""
    text, passage = _big_markdown(300_000)
    path = tmp_path / "notebook.md"
    path.write_text(text, encoding="utf-8")
    out = ok_json(run("ingest", path, "--json", "--no-compile", env=cli_env))
    assert out["errors"] == [] and out["created"] == out["file"]["parts"] + 1 > 200, out
    hits = mg.recall("when does the lighthouse keeper log the fog horn test?", k=3).hits
    assert passage in hits[0].text, [h.text[:80] for h in hits]
    part = int(hits[0].id.rsplit("#p", 1)[1])
    assert 0.3 < part / out["file"]["parts"] < 0.7  # from the middle


def test_a_record_part_of_an_unknown_memory_is_refused(mg):
    report = mg.ingest([{"id": "p1", "text": "a passage", "part_of": "no-such-doc"}])
    assert report.created == 0 and "field 'part_of': unknown id 'no-such-doc'" in report.errors[0]["error"]
    # the whole may come later in the same input, in a later batch: the link is still made
    report = mg.ingest(
        [{"id": "p2", "text": "another passage", "part_of": "whole"}, {"id": "whole", "text": "the whole"}],
        batch_size=1,
    )
    assert report.created == 2 and report.errors == [], report.errors
    assert derived_from(mg, ["p2"]) == {"p2": ["whole"]}
    assert sorted(mg.forget("whole")["forgotten"]) == ["p2", "whole"]

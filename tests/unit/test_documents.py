"""Issue 48 item 1, documents in (no database): a markdown or text document split into passages at blank lines and
headings (never inside a code block), long paragraphs cut at sentence ends within the limits, each part with its
position; a 5 MB markdown file split whole, every word kept, every part within the record limit; JSON arrays and
chat exports read into records, and every malformed file answered with one clear error."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest

from kgmem.errors import InputError
from kgmem.ingest import documents as docs
from kgmem.ingest.records import parse_record
from kgmem.validate import MAX_TEXT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "documents"


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_the_markdown_fixture_is_cut_at_headings_and_paragraphs_with_positions():
    path = FIXTURES / "kestrel-notes.md"
    text = path.read_text(encoding="utf-8")
    doc = docs.split_document(text, name=path.name, format="markdown")
    assert doc.title == "Project Kestrel — engineering notes"  # the front matter's title
    lines = text.split("\n")
    for part in doc.parts:
        assert 0 < len(part.text) <= docs.PART_MAX
        first_word = _words(part.text)[0]
        assert first_word in lines[part.line - 1], (part.line, lines[part.line - 1], part.text[:60])
    by_heading = {p.headings[-1]: p for p in doc.parts if p.headings}
    # a code block stays whole, blank line and all, with the paragraph before it
    arch = by_heading["Architecture"]
    assert "```python" in arch.text and "    return invoice.sku" in arch.text and arch.text.count("```") == 2
    # a setext heading is a heading
    assert by_heading["Storage"].headings == ("Project Kestrel", "Storage")
    # the long paragraph (1,650 characters) is cut at a sentence end into two parts under the same headings
    leak = [p for p in doc.parts if p.headings[-1:] == ("The March memory leak",)]
    assert len(leak) == 2 and leak[0].text.startswith("## Incidents\n### The March memory leak\n\nOn 12 March")
    assert leak[0].text.endswith(".") and leak[1].text.startswith("Marta, who ran the review")
    assert leak[1].line == next(i for i, ln in enumerate(lines, 1) if "Marta, who ran" in ln)
    # nothing is lost but the front matter and the blank lines
    body = "\n".join(lines[4:])
    assert sorted(_words(" ".join(p.text for p in doc.parts))) == sorted(_words(body))


def test_the_records_of_a_document_and_their_ids_are_stable():
    text = (FIXTURES / "kestrel-notes.md").read_text(encoding="utf-8")
    doc = docs.split_document(text, name="kestrel-notes.md", format="markdown")
    doc_id = docs.document_id("kestrel-notes.md", text)
    assert doc_id == docs.document_id("kestrel-notes.md", text)  # the same file: the same id
    assert doc_id != docs.document_id("kestrel-notes.md", text + "\nMore.")
    assert doc_id != docs.document_id("kestrel-notes.md", text, user="maya")
    assert re.fullmatch(r"doc-kestrel-notes-[0-9a-f]{12}", doc_id)
    records = docs.document_records(doc, doc_id=doc_id, user="maya")
    head, parts = records[0], records[1:]
    assert head == {
        "id": doc_id,
        "text": f"Document kestrel-notes.md: Project Kestrel — engineering notes ({len(doc.parts)} parts)",
        "kind": "summary",
        "source": "kestrel-notes.md",
        "user": "maya",
    }
    assert [r["id"] for r in parts] == [f"{doc_id}#p{i:04d}" for i in range(1, len(parts) + 1)]
    assert all(r["part_of"] == doc_id and r["stream"] == doc_id and r["user"] == "maya" for r in parts)
    assert parts[3]["source"].startswith(f"kestrel-notes.md, part 4 of {len(parts)}, line 28 — ")
    assert parts[3]["source"].endswith("Project Kestrel › Incidents › The March memory leak")
    for n, r in enumerate(records, 1):
        parse_record(r, tenant="t", line=n)  # every one a valid record


def test_a_text_file_is_cut_at_blank_lines_and_titled_by_its_first_line():
    doc = docs.split_document(
        (FIXTURES / "standup-minutes.txt").read_text(encoding="utf-8"), name="standup-minutes.txt", format="text"
    )
    assert doc.title == "Standup minutes, week 14"
    assert len(doc.parts) == 1 and doc.parts[0].text.count("\n\n") == 4  # short paragraphs packed, kept apart
    two = docs.split_document(("x" * 300 + ".\n\n" + "y" * 300 + ".\n\n") * 2, name="n.txt", format="text")
    assert [p.line for p in two.parts] == [1, 3, 5, 7]  # passages of their own are not packed
    with pytest.raises(InputError, match="holds no text"):
        docs.split_document("\n\n  \n", name="empty.md", format="markdown")


def test_long_text_is_cut_at_sentence_ends_then_lines_then_spaces():
    sentence = 'He said "stop." Then he left. '
    pieces = docs.split_long(sentence * 200, 500)
    assert all(len(p) <= 500 for p in pieces) and all(p.endswith(("left.", 'stop."')) for p in pieces)
    assert " ".join(pieces) == (sentence * 200).strip()
    lines = docs.split_long("\n".join(["word " * 30] * 40), 400)
    assert all(len(p) <= 400 for p in lines)
    assert docs.split_long("x" * 1000, 300) == ["x" * 300, "x" * 300, "x" * 300, "x" * 100]


def _big_markdown(target: int, seed: int = 7) -> tuple[str, str]:
    """About ``target`` characters of markdown (sections, paragraphs, lists, code, long paragraphs) with one
    unmistakable passage in the middle; returns (text, passage)."""
    rng = random.Random(seed)
    vocab = [w.strip() for w in open(__file__, encoding="utf-8").read().split() if w.isalpha()][:400]
    passage = "The lighthouse keeper on Ilha Verde logs the fog horn's test every second Sunday at dawn."
    out, size, section, placed = [], 0, 0, False
    while size < target:
        section += 1
        chunk = [f"## Section {section}", ""]
        for _ in range(rng.randint(2, 8)):
            kind = rng.random()
            if kind < 0.1:
                chunk += ["```", *(f"x = {rng.randint(0, 99)}" for _ in range(rng.randint(2, 6))), "", "y = 1", "```"]
            elif kind < 0.2:
                chunk += [f"- {' '.join(rng.choices(vocab, k=6))}" for _ in range(rng.randint(2, 6))]
            else:
                n = rng.randint(3, 40) if rng.random() < 0.95 else rng.randint(60, 200)
                chunk.append(" ".join(" ".join(rng.choices(vocab, k=rng.randint(6, 18))) + "." for _ in range(n)))
            chunk.append("")
        if not placed and size > target // 2:
            chunk += [passage, ""]
            placed = True
        text = "\n".join(chunk) + "\n"
        out.append(text)
        size += len(text)
    return "# A big notebook\n\n" + "".join(out), passage


def test_a_5_mb_markdown_file_is_split_whole_within_the_limits():
    text, passage = _big_markdown(5 * 1024 * 1024)
    assert len(text) >= 5 * 1024 * 1024
    t0 = time.perf_counter()
    doc = docs.split_document(text, name="notes.md", format="markdown")
    records = docs.document_records(doc, doc_id=docs.document_id("notes.md", text), user=None)
    seconds = time.perf_counter() - t0
    assert seconds < 30, seconds  # a few seconds on a loaded machine
    assert all(0 < len(p.text) <= min(docs.PART_MAX, MAX_TEXT) for p in doc.parts)
    assert len({r["id"] for r in records}) == len(records)
    assert [p.line for p in doc.parts] == sorted(p.line for p in doc.parts)
    assert sum(passage in p.text for p in doc.parts) == 1  # the middle passage is one part's text
    middle = next(i for i, p in enumerate(doc.parts) if passage in p.text)
    assert 0.3 < middle / len(doc.parts) < 0.7
    assert len(_words(" ".join(p.text for p in doc.parts))) == len(_words(text))  # every word kept


# ---------------------------------------------------------------------------- formats, JSON arrays, chats


def test_formats_are_told_from_the_first_character_then_the_name():
    assert docs.detect_format(Path("a.jsonl"), '  [\n  {"text": "x"}\n]') == "json"  # an array whatever the name
    assert docs.detect_format(Path("a.md"), "# T") == "markdown"
    assert docs.detect_format(Path("a.txt"), "hello") == "text"
    assert docs.detect_format(Path("a.json"), '{"messages": []}') == "json"
    assert docs.detect_format(Path("a.jsonl"), '{"text": "x"}') == "jsonl"
    assert docs.detect_format(Path("memories"), '{"text": "x"}') == "jsonl"


def test_json_files_that_are_not_arrays_of_records_get_one_clear_error():
    with pytest.raises(InputError) as e:
        docs.load_json('[\n  {"text": "a"},\n  {"text": "b"\n]', name="bad.json")
    assert "bad.json is not valid JSON" in e.value.message and "line 4, column 1" in e.value.message
    with pytest.raises(InputError) as e:
        docs.json_items({"text": "one record"}, name="one.json")
    assert "holds one JSON object, not an array" in e.value.message and "JSONL" in (e.value.fix or "")
    assert docs.json_items([{"text": "a"}], name="r.json") == ("json", [{"text": "a"}])
    assert docs.json_items([{"role": "user", "content": "hi"}], name="c.json")[0] == "chat"
    assert docs.json_items({"messages": [{"speaker": "A", "text": "hi"}]}, name="c.json")[0] == "chat"
    assert docs.json_items([{"role": "user", "content": "hi"}], name="c.json", format="json")[0] == "json"


def test_a_chat_export_is_one_stream_of_speaker_lines():
    items = json.loads((FIXTURES / "support-chat.json").read_text(encoding="utf-8"))
    chat = docs.chat_records(items, name="support-chat.json", user="maya")
    assert re.fullmatch(r"chat-support-chat-[0-9a-f]{12}", chat.stream) and chat.errors == []
    assert len(chat.records) == 5 and chat.positions == [1, 2, 3, 4, 6]  # the empty system message is skipped
    first = chat.records[0]
    assert first == {
        "id": f"{chat.stream}#0001",
        "text": "user: Hi, our invoices from Northwind have been stuck since this morning.",
        "stream": chat.stream,
        "source": "support-chat.json, message 1",
        "user": "maya",
        "at": "2026-04-07T08:12:00Z",
    }
    assert chat.records[-1]["id"] == f"{chat.stream}#0006"
    assert chat.stream == docs.chat_records(items, name="support-chat.json", user="maya").stream  # stable

    other = [
        {"speaker": "Caroline", "text": "I went to the LGBTQ support group yesterday", "timestamp": 1683100800},
        {"speaker": "Melanie", "text": [{"type": "text", "text": "That's great!"}], "timestamp": 1683100860000},
        {"speaker": "Caroline"},
        "not a message",
        {"speaker": "Melanie", "text": "y" * (MAX_TEXT + 10)},
    ]
    chat = docs.chat_records(other, name="locomo.json")
    assert [r["text"][:20] for r in chat.records[:2]] == ["Caroline: I went to ", "Melanie: That's grea"]
    assert [r["at"] for r in chat.records[:2]] == ["2023-05-03T08:00:00Z", "2023-05-03T08:01:00Z"]
    assert [e["line"] for e in chat.errors] == [3, 4]
    assert '"role" or "speaker"' in chat.errors[0]["error"] and "must be an object" in chat.errors[1]["error"]
    long = [r for r in chat.records if r["id"].split("#")[1].startswith("0005")]
    assert len(long) == 2 and all(len(r["text"]) <= MAX_TEXT for r in long)  # too long: cut in two
    assert [r["id"][-2:] for r in long] == [".1", ".2"]


def test_a_pretty_printed_array_read_as_jsonl_says_what_it_is():
    from kgmem.ingest.records import parse_line

    err = parse_line("[", 1)
    assert isinstance(err, InputError) and "starts a JSON array" in err.message and "--format json" in (err.fix or "")

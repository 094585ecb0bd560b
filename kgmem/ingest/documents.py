"""Files that are not JSONL, turned into memory records — pure, no database.

* **markdown** (``.md``) and **text** (``.txt``): one *document memory* (kind ``summary``; its text is the
  title, the file name and the number of parts: ``Document notes.md: Project notes (412 parts)``) and its
  *parts*. A part is a passage: the document is cut at blank lines and headings (never inside a fenced code
  block); consecutive blocks of one section are packed while they fit in :data:`PART_TARGET` characters (about
  what the embedding model reads) when one of them is short (:data:`PART_MIN`: a line, a short list), and a
  block longer than :data:`PART_MAX` is cut at sentence ends (then line ends, then spaces). A heading stays in
  the text of the part that follows it. The title is the first heading (a ``title:`` in YAML front matter,
  which is not stored as a part), else the first line when short, else the file name. Each part is
  ``part_of`` the document (forgetting the document forgets its parts), in the stream named by the document's
  id (``timeline`` and ``recall --expand`` read its neighbours), with its position in ``source`` (``notes.md,
  part 12 of 412, line 230 — Setup › Install``) and the id ``<document id>#p0012``. The document's id is
  ``doc-<file stem>-<hash of the name, the text and the owner>``: ingesting the same file again changes
  nothing, and a run that was interrupted resumes.
* **json**: a JSON array of records (contract §1); an element's position is its "line" in the report.
* **chat**: a chat export, a JSON array of ``{"role" | "speaker", "content" | "text", "timestamp"?}`` (or an
  object with such a ``messages`` array): one stream (``chat-<file stem>-<hash>``), one memory per message whose
  text is ``speaker: content``, at its timestamp when it has one; an empty message is skipped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import INGEST_FORMATS
from ..errors import InputError
from ..validate import MAX_TEXT, short

FORMATS = INGEST_FORMATS
PART_MIN = 200  # a block shorter than this joins its neighbours in the section (a heading, a line, a short list)
PART_TARGET = 1000  # ... up to this many characters (about what the embedding model reads)
PART_MAX = 1500  # a longer block is cut at sentence ends into pieces of at most this many characters
PART_TRANSFORM = "document/v1"  # the DERIVED_FROM edge from a part to its document
MAX_TITLE = 200
_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text", ".jsonl": "jsonl"}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# the space after a sentence's end (its closing quote or bracket stays with it)
_SENTENCE_END = re.compile(r"(?<=[.!?…。！？][\"'”’)\]])\s+|(?<=[.!?…。！？])\s+")
_CHAT_SPEAKER = ("role", "speaker")
_CHAT_TEXT = ("content", "text")
_CHAT_TIME = ("timestamp", "time", "at", "date", "created_at")


@dataclass(frozen=True)
class Part:
    """A passage of a document: its text, its first line in the file and the headings above it."""

    text: str
    line: int
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Document:
    """A split document: what its memory says and its parts, in order."""

    name: str
    title: str
    format: str
    parts: list[Part]


# ---------------------------------------------------------------------------- splitting


def split_document(text: str, *, name: str, format: str) -> Document:
    """Split markdown or plain text into parts (see the module doc). Raises :class:`InputError` when the text
    holds nothing to store."""
    if format not in ("markdown", "text"):
        raise ValueError(f"not a document format: {format}")
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    title, start = None, 0
    if format == "markdown":
        title, start = _front_matter(lines)
        blocks = _markdown_blocks(lines, start)
    else:
        blocks = _text_blocks(lines)
    parts = _pack(blocks)
    if not parts:
        raise InputError(f"{name} holds no text", fix="give a file with some text in it")
    if title is None and format == "markdown":
        title = next((h for b in blocks for h in b.headings[:1]), None)
    if title is None:
        first = parts[0].text.split("\n", 1)[0].strip().lstrip("#").strip()
        title = first if first and len(first) <= 120 else None
    return Document(name=name, title=short(title or Path(name).stem or name, MAX_TITLE), format=format, parts=parts)


def _front_matter(lines: list[str]) -> tuple[str | None, int]:
    """YAML front matter (``---`` … ``---`` at the top): its ``title:`` and the first line after it."""
    if not lines or lines[0].strip() != "---":
        return None, 0
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            title = None
            for ln in lines[1:i]:
                m = re.match(r"^title:\s*(.+?)\s*$", ln)
                if m:
                    title = m.group(1).strip("\"'") or None
            return title, i + 1
    return None, 0


@dataclass
class _Block:
    lines: list[str]  # as in the file
    line: int  # of the first one
    headings: tuple[str, ...]
    head: int = 0  # the first ``head`` lines are headings: a blank line follows them in the text
    body_line: int = 0  # the file line of the first line after the headings

    @property
    def text(self) -> str:
        if 0 < self.head < len(self.lines):
            return "\n".join(self.lines[: self.head]) + "\n\n" + "\n".join(self.lines[self.head :]).strip("\n")
        return "\n".join(self.lines).strip("\n")

    def line_at(self, offset: int) -> int:
        """The file line of the character at ``offset`` of :attr:`text`."""
        text = self.text
        if 0 < self.head < len(self.lines):
            body = len("\n".join(self.lines[: self.head])) + 2
            if offset >= body:
                return self.body_line + text.count("\n", body, offset)
        return self.line + text.count("\n", 0, offset)


def _markdown_blocks(lines: list[str], start: int) -> list[_Block]:
    blocks: list[_Block] = []
    path: list[tuple[int, str]] = []  # (level, heading) of the headings above
    cur: list[str] = []
    cur_line = start + 1
    cur_head, cur_body = 0, 0  # heading lines at the front of cur, and the file line after them
    pending: list[str] = []  # heading lines waiting for the block they introduce
    pending_line = 0
    fence: str | None = None
    para_lines = 0  # lines of the paragraph being read (a setext underline needs exactly one)

    def flush() -> None:
        nonlocal cur, para_lines, cur_head
        if any(ln.strip() for ln in cur):
            blocks.append(_Block(cur, cur_line, tuple(h for _, h in path), cur_head, cur_body))
        cur, para_lines, cur_head = [], 0, 0

    def heading(level: int, text: str, raw: list[str], n: int) -> None:
        nonlocal pending, pending_line
        flush()
        while path and path[-1][0] >= level:
            path.pop()
        if text:
            path.append((level, text))
        if not pending:
            pending_line = n
        pending = pending + raw

    def take(ln: str, n: int) -> None:
        nonlocal cur, cur_line, pending, cur_head, cur_body
        if not cur:
            cur_line = pending_line if pending else n
            cur, cur_head, cur_body, pending = pending, len(pending), n, []
        cur.append(ln)

    for n, ln in enumerate(lines[start:], start=start + 1):
        if fence is not None:
            take(ln, n)
            if ln.strip().startswith(fence) and not ln.strip().strip(fence[0]):
                fence = None
            continue
        m = _FENCE.match(ln)
        if m:
            take(ln, n)
            fence, para_lines = m.group(1), 0
            continue
        if not ln.strip():
            flush()
            continue
        m = _ATX.match(ln)
        if m:
            heading(len(m.group(1)), (m.group(2) or "").strip(), [ln], n)
            continue
        m = _SETEXT.match(ln)
        if m and para_lines == 1:  # the one line above is a heading's text (setext: underlined by = or -)
            title_line = cur.pop()
            pending, cur, para_lines, cur_head = cur, [], 0, 0  # headings taken into the paragraph wait again
            if pending:
                pending_line = cur_line
            heading(1 if m.group(1).startswith("=") else 2, title_line.strip(), [title_line, ln], n - 1)
            continue
        if _BREAK.match(ln):
            flush()
            continue
        take(ln, n)
        para_lines += 1
    flush()
    if pending:  # headings at the end with nothing under them
        blocks.append(_Block(pending, pending_line, tuple(h for _, h in path)))
    return blocks


def _text_blocks(lines: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    cur: list[str] = []
    first = 1
    for n, ln in enumerate(lines, start=1):
        if ln.strip():
            if not cur:
                first = n
            cur.append(ln)
        elif cur:
            blocks.append(_Block(cur, first, ()))
            cur = []
    if cur:
        blocks.append(_Block(cur, first, ()))
    return blocks


def _pack(blocks: list[_Block]) -> list[Part]:
    """Blocks into parts: consecutive blocks of one section while they fit in PART_TARGET; a block longer than
    PART_MAX cut into pieces."""
    parts: list[Part] = []
    cur: list[str] = []
    cur_len, cur_line = 0, 0
    cur_path: tuple[str, ...] = ()

    def flush() -> None:
        nonlocal cur, cur_len
        if cur:
            parts.append(Part("\n\n".join(cur), cur_line, cur_path))
        cur, cur_len = [], 0

    for b in blocks:
        text = b.text
        if not text.strip():
            continue
        if len(text) > PART_MAX:
            flush()
            offset = 0
            for piece in split_long(text, PART_MAX):
                # where the piece starts in the block, for its line: its first word, after the previous piece
                # (a piece is never longer than its span of the block: only runs of spaces are joined to one)
                at = text.find(piece.split(None, 1)[0], offset)
                if at >= 0:
                    offset = at + len(piece)
                parts.append(Part(piece, b.line_at(at) if at >= 0 else b.line, b.headings))
            continue
        if cur and (
            b.headings != cur_path
            or cur_len + 2 + len(text) > PART_TARGET
            or (cur_len >= PART_MIN and len(text) >= PART_MIN)  # two passages of their own
        ):
            flush()
        if not cur:
            cur_line, cur_path = b.line, b.headings
        cur.append(text)
        cur_len += len(text) + (2 if len(cur) > 1 else 0)
    flush()
    return parts


def split_long(text: str, limit: int = PART_MAX) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at sentence ends where it can, else at line ends,
    else at spaces, else anywhere; consecutive sentences are packed into one piece while they fit."""
    text = text.strip()
    if len(text) <= limit:
        return [text] if text else []
    for splitter in (_SENTENCE_END, re.compile(r"\n+"), re.compile(r"\s+")):
        units = [u for u in splitter.split(text) if u.strip()]
        if len(units) > 1:
            break
    else:
        return [text[i : i + limit] for i in range(0, len(text), limit)]
    pieces: list[str] = []
    cur = ""
    for unit in units:
        unit = unit.strip()
        if len(unit) > limit:
            if cur and not re.search(r"\s", unit):  # one unbroken token: the current piece takes its start
                joined = f"{cur} {unit}"
                sub = [joined[i : i + limit] for i in range(0, len(joined), limit)]
            else:
                if cur:
                    pieces.append(cur)
                sub = split_long(unit, limit)
            pieces.extend(sub[:-1])
            cur = sub[-1]  # what follows may join the last piece
            continue
        if cur and len(cur) + 1 + len(unit) > limit:
            pieces.append(cur)
            cur = ""
        cur = f"{cur} {unit}" if cur else unit
    if cur:
        pieces.append(cur)
    return pieces


# ---------------------------------------------------------------------------- records


def _slug(name: str) -> str:
    stem = Path(name).stem if name else "document"
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")[:40] or "document"


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def document_id(name: str, text: str, user: str | None = None) -> str:
    """``doc-<stem>-<hash>``: the same file (name, text) for the same owner has the same id."""
    return f"doc-{_slug(name)}-{_digest('document', Path(name).name, text, user)}"


def document_records(doc: Document, *, doc_id: str, user: str | None = None) -> list[dict[str, Any]]:
    """The document's memory, then its parts, as records (contract §1)."""
    n = len(doc.parts)
    width = max(4, len(str(n)))
    label = Path(doc.name).name
    head = f"Document {label}" if doc.title == Path(doc.name).stem else f"Document {label}: {doc.title}"
    owner = {"user": user} if user is not None else {}
    records: list[dict[str, Any]] = [
        {"id": doc_id, "text": f"{head} ({n} part{'s' if n != 1 else ''})", "kind": "summary", "source": label, **owner}
    ]
    for i, part in enumerate(doc.parts, start=1):
        where = f"{label}, part {i} of {n}, line {part.line}"
        if part.headings:
            where += " — " + " › ".join(short(h, 100) for h in part.headings)
        records.append(
            {
                "id": f"{doc_id}#p{i:0{width}d}",
                "text": part.text,
                "part_of": doc_id,
                "stream": doc_id,
                "source": short(where, 2000),
                **owner,
            }
        )
    return records


# ---------------------------------------------------------------------------- JSON arrays and chat exports


def detect_format(path: Path, head: str) -> str:
    """The format of a file from its first characters (``head``) and its name: a file that starts with ``[``
    (or ``{`` and spans lines, with a ``messages`` array) is JSON whatever its name; then the extension (.md,
    .txt, .jsonl); a .json file is JSON; anything else is read as JSONL."""
    first = head.lstrip("\ufeff \t\r\n")[:1]
    if first == "[":
        return "json"
    ext = path.suffix.lower()
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if ext == ".json":
        return "json"
    return "jsonl"


def load_json(text: str, *, name: str) -> Any:
    """The JSON value of a whole file, or one :class:`InputError` that names where it is broken."""
    try:
        return json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as e:
        raise InputError(
            f"{name} is not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})",
            fix="fix the JSON there (a JSON array of records, or a chat export), or write JSONL: one object a line",
        ) from None
    except RecursionError:
        raise InputError(f"{name} is not valid JSON (nested too deeply)", fix="flatten it") from None


def is_chat(items: list[Any]) -> bool:
    """Every element is a chat message of the common shape (a speaker and a text)."""
    return bool(items) and all(
        isinstance(m, dict) and any(k in m for k in _CHAT_SPEAKER) and any(k in m for k in _CHAT_TEXT) for m in items
    )


def json_items(value: Any, *, name: str, format: str | None = None) -> tuple[str, list[Any]]:
    """(``"json"`` or ``"chat"``, the elements) of a parsed JSON file: an array of records, or a chat export (an
    array of messages, or an object with a ``messages`` array). Anything else is one clear error."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
        if format != "json":
            format = "chat"
    if not isinstance(value, list):
        kind = "one JSON object" if isinstance(value, dict) else f"a JSON {type(value).__name__}"
        raise InputError(
            f"{name} holds {kind}, not an array",
            fix="ingest JSONL (one record a line), a JSON array of records, or a chat export (an array of "
            '{"role", "content"} messages)',
        )
    if format is None:
        format = "chat" if is_chat(value) else "json"
    return format, value


@dataclass
class Chat:
    """A chat export as records: its stream, one record per message (``positions``: the message number of each,
    1-based) and the messages that are not messages (``errors``: ``{"line": message number, "error"}``)."""

    stream: str
    records: list[dict[str, Any]]
    positions: list[int]
    errors: list[dict[str, Any]]


def chat_records(items: list[Any], *, name: str, user: str | None = None) -> Chat:
    """The records of a chat export: one stream, one memory per message whose text is ``speaker: content``, at
    its ``timestamp`` (RFC 3339, a date, or seconds since 1970) when it has one. An empty message is skipped; a
    message longer than the record limit becomes several records (``#<n>.<k>``)."""
    stream = f"chat-{_slug(name)}-{_digest('chat', Path(name).name, items, user)}"
    width = max(4, len(str(len(items))))
    chat = Chat(stream, [], [], [])
    owner = {"user": user} if user is not None else {}
    for i, m in enumerate(items, start=1):
        try:
            text, at = _message(m)
        except InputError as e:
            chat.errors.append({"line": i, "error": e.without_line()})
            continue
        if not text:
            continue  # an empty message (a system prompt left blank): nothing to store
        base = {"stream": stream, "source": f"{Path(name).name}, message {i}", **owner}
        if at is not None:
            base["at"] = at
        pieces = split_long(text, MAX_TEXT) if len(text) > MAX_TEXT else [text]
        for k, piece in enumerate(pieces, start=1):
            suffix = f".{k}" if len(pieces) > 1 else ""
            chat.records.append({"id": f"{stream}#{i:0{width}d}{suffix}", "text": piece, **base})
            chat.positions.append(i)
    return chat


def _message(m: Any) -> tuple[str, Any]:
    if not isinstance(m, dict):
        raise InputError(
            f"a chat message must be an object, got {type(m).__name__}", fix='write {"role": "...", "content": "..."}'
        )
    speaker = next((m[k] for k in _CHAT_SPEAKER if m.get(k) is not None), None)
    content = next((m[k] for k in _CHAT_TEXT if k in m), None)
    if speaker is None or content is None:
        raise InputError(
            'a chat message needs "role" or "speaker", and "content" or "text"',
            fix='write {"role": "...", "content": "..."} (or speaker/text)',
        )
    if isinstance(content, list):  # content parts: [{"type": "text", "text": "..."}]
        content = "\n".join(
            str(c.get("text", "")) if isinstance(c, dict) else str(c) for c in content if c is not None
        ).strip()
    if not isinstance(content, str) or not isinstance(speaker, str):
        raise InputError(
            "a chat message's speaker and content must be strings", fix="give role/speaker and content/text as text"
        )
    content, speaker = content.strip(), speaker.strip()
    text = f"{speaker}: {content}" if speaker and content else content
    when = next((m[k] for k in _CHAT_TIME if m.get(k) is not None), None)
    if isinstance(when, bool):
        raise InputError("a chat message's timestamp must be a time", fix="give RFC 3339 or seconds since 1970")
    if isinstance(when, (int, float)):
        seconds = when / 1000 if when > 1e11 else when  # milliseconds, as JavaScript exports write them
        when = dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat().replace("+00:00", "Z")
    return text, when

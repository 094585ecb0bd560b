"""Writing memories: ``ingest``, ``remember``, and the derived passes that follow a write (the stream
context, inferred causes). The write path (:mod:`kgmem.ingest.pipeline`) and the derived layer are imported by
the methods, so a command that only reads never loads them."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Unpack

from ..config import DEFAULT_BATCH
from ..errors import InputError, Interrupted
from ..record_spec import RecordFields
from ..results import IngestReport, Memory
from ..validate import check_string, check_user
from .base import GraphBase


class Writing(GraphBase):
    def ingest(
        self,
        records: Any,
        *,
        batch_size: int = DEFAULT_BATCH,
        compile_facts: bool = True,
        infer_causes: bool = True,
        infer_supersession: bool = True,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
        user: str | None = None,
    ) -> IngestReport:
        """Ingest records: a JSONL path, an open text file, or an iterable of dicts (contract §1); ``user`` owns
        the records that name none (a record's own ``user`` wins). Other files: :meth:`ingest_file`. The input is
        streamed (read, checked and written a window of 8 batches at a time), so a file or a generator of
        millions of records runs in bounded memory; the windows written stay written if the input fails later.

        Bad lines are reported in ``report.errors`` (with line numbers) and the rest still lands. After the
        write, memories that state their cause in words get inferred CAUSED_BY links (``infer_causes``), and
        plain-text memories that state a change get inferred SUPERSEDES links to the earlier memories they retire
        (``infer_supersession``, :mod:`kgmem.derived.supersession`).
        A record that was forgotten stays forgotten (an error for its line) unless ``force``.
        ``progress(done, total)`` is called as the write advances, in records: each counts a third when
        normalised, a third when embedded (every few hundred) and a third when its transaction of
        ``batch_size`` records commits; records already stored count at once; ``(total, total)`` comes after
        the last commit (the derived passes follow). ``total`` is the input's length for a list, else the
        records read so far (it grows as a file is streamed).
        """
        from ..derived import supersession as _supersession
        from ..ingest.pipeline import ingest as _ingest

        self._prefetch_embedder()  # loads while the schema and model checks wait for Neo4j
        _check_user(user)
        self._ready()
        unchanged: list[str] = []
        vectors: dict[str, Any] | None = {} if infer_supersession else None  # each record's vector, for the pass
        started = [time.perf_counter()]

        def lap(phase: str) -> None:  # the wall-clock seconds of a phase, into report.timings
            now = time.perf_counter()
            report.timings[phase] = now - started[0]
            started[0] = now

        recorded_at = dt.datetime.now(dt.timezone.utc)  # this ingest's transaction time (its new entities carry it)
        with _supersession.CueWarmer() as warm:  # the pass's per-text work, beside the embedder
            report = _ingest(
                self.store,
                records,
                tenant=self.tenant,
                embedder=self.embedder,
                vocabulary=self.vocabulary,
                batch_size=batch_size,
                compile_text=compile_facts,
                progress=progress,
                force=force,
                unchanged_ids=unchanged,
                vectors_out=vectors,
                texts_out=warm.submit if infer_supersession else None,
                user=user,
                now=recorded_at,
            )
            lap("write")
            try:
                if report.created:  # names this ingest learned, wherever the tenant's memories mention them
                    from ..derived import mentions as _mentions

                    _mentions.link_learned(self.store, self.tenant, recorded_at)
                lap("mentions")
                self._after_write(report, unchanged, vectors, warm, lap, infer_causes, infer_supersession)
            except KeyboardInterrupt:  # every record is stored; a re-run finishes the passes (see below)
                raise Interrupted(report, "derived") from None
        return report

    def _after_write(
        self,
        report: IngestReport,
        unchanged: list[str],
        vectors: dict[str, Any] | None,
        warm: Any,
        lap: Callable[[str], None],
        infer_causes: bool,
        infer_supersession: bool,
    ) -> None:
        """The derived passes after an ingest's write: the stream context, inferred causes, inferred
        supersession. Each also takes the unchanged records a run stopped before it left undone, so running the
        same ingest again is what completes an interrupted one."""
        from ..derived import causal as _causal
        from ..derived import context as _context
        from ..derived import supersession as _supersession

        if report.ids or unchanged:  # the derived stream context of the new memories and their neighbours
            _context.refresh_for(self.store, self.tenant, report.ids, unchanged=unchanged)
        lap("context")
        # unchanged records the pass has not read: a run killed after its write but before this pass left them,
        # and a re-run is what completes it (links are merged: a repeat creates nothing)
        todo = report.ids + (
            _causal.unchecked(self.store, self.tenant, unchanged) if infer_causes and unchanged else []
        )
        if infer_causes and todo:
            created = _causal.run(self.store, self.embedder, self.tenant, todo)
            report.edges["inferred_caused_by"] = report.edges.get("inferred_caused_by", 0) + created
            report.linked += created
        lap("causes")
        if infer_supersession:
            # the new records, and unchanged ones a run killed before this pass left unread (marked when read)
            ids = report.ids + (_supersession.unchecked(self.store, self.tenant, unchanged) if unchanged else [])
            if ids:
                created = _supersession.run(self.store, self.tenant, ids, vectors=vectors, cues_of=warm.result())
                report.edges["inferred_supersedes"] = report.edges.get("inferred_supersedes", 0) + created
                report.linked += created
        lap("supersession")

    def ingest_document(
        self,
        text: str,
        *,
        name: str,
        format: str = "markdown",
        user: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        compile_facts: bool = True,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Store a markdown (``format="markdown"``) or plain-text (``"text"``) document: one document memory and
        its parts, each ``part_of`` it (forgetting the document forgets them), cut at paragraphs and headings
        (:mod:`kgmem.ingest.documents` says how, and what the document memory's text is). ``name`` is the file
        name (the document's title falls back to it; its id comes from the name, the text and ``user``, so the
        same document again changes nothing and an interrupted run resumes). ``report.file`` says what it
        became; a report error's ``line`` is the file line of the part it names. A document that was forgotten
        stays forgotten (:class:`InputError`) unless ``force``."""
        from ..ingest import documents as _documents

        check_string(name, field="name", max_len=1000)
        if not isinstance(text, str):
            raise InputError(
                f"must be a string, got {type(text).__name__}", field="text", fix="pass the document's text"
            )
        if format not in ("markdown", "text"):
            raise InputError(f"'{format}' is not a document format", field="format", fix="use markdown or text")
        _check_user(user)
        user = None if user is None else check_user(user)  # its key: the document's id is the same for any spelling
        doc = _documents.split_document(text, name=name, format=format)
        doc_id = _documents.document_id(name, text, user)
        records = _documents.document_records(doc, doc_id=doc_id, user=user)
        report = self.ingest(
            records, batch_size=batch_size, compile_facts=compile_facts, force=force, progress=progress
        )
        lines = [1] + [p.line for p in doc.parts]  # the input position of a record -> its line in the file
        refused = next((e for e in report.errors if e["line"] == 1), None)
        if refused is not None:  # the document memory itself (forgotten): its parts were refused with it
            raise InputError(
                f"{name}: the document memory {doc_id} was refused: {refused['error']}",
                fix="ingest with force=True to bring a forgotten document back, or give it another name",
            )
        for e in report.errors:
            e["line"] = lines[e["line"] - 1] if e.get("line") and e["line"] <= len(lines) else e.get("line")
        report.file = {"format": format, "name": name, "id": doc_id, "title": doc.title, "parts": len(doc.parts)}
        return report

    @staticmethod
    def file_format(path: str | os.PathLike[str]) -> str:
        """The format :meth:`ingest_file` reads ``path`` in when not told: ``json`` for a file that starts with
        ``[`` whatever its name, else by its extension (``.md`` markdown, ``.txt`` text, ``.json`` json), else
        ``jsonl``."""
        from ..ingest.documents import detect_format

        p = Path(path)
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                head = f.read(4096)
        except OSError:
            head = ""
        return detect_format(p, head)

    def ingest_file(
        self,
        path: str | os.PathLike[str],
        *,
        format: str | None = None,
        user: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        compile_facts: bool = True,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Ingest a file of any format kgmem reads (``format``, else :func:`kgmem.ingest.documents.detect_format`
        from its first character and its name: a file that starts with ``[`` is JSON whatever its name): JSONL
        is read line by line (:meth:`ingest`), the others as :meth:`ingest_text` says. ``user`` owns the
        records that name none."""

        p = Path(path)
        if not p.exists():
            raise InputError(f"no such file: {p}", fix="check the path")
        if p.is_dir():
            raise InputError(f"{p} is a directory", fix="give a file")
        _check_format(format)
        fmt = format or self.file_format(p)
        options: dict[str, Any] = dict(
            batch_size=batch_size, compile_facts=compile_facts, force=force, progress=progress
        )
        if fmt == "jsonl":
            return self.ingest(p, user=user, **options)
        return self.ingest_text(_read_text(p), name=p.name, format=fmt, user=user, **options)

    def ingest_text(
        self,
        text: str,
        *,
        name: str,
        format: str,
        user: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        compile_facts: bool = True,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Ingest the text of a file named ``name`` in ``format``: ``jsonl`` (records, one a line), ``json`` (a
        JSON array of records; an element's position is its line in the report; an array whose every element is
        a chat message is read as a chat), ``chat`` (a chat export, ``[{"role"|"speaker", "content"|"text",
        "timestamp"?}]`` or ``{"messages": [...]}``: one stream, one memory per message with the text
        ``speaker: content``; an error's line is the message's number), ``markdown`` and ``text``
        (:meth:`ingest_document`). ``report.file`` says what the file became."""
        from ..ingest import documents as _documents

        _check_format(format, required=True)
        check_string(name, field="name", max_len=1000)
        options: dict[str, Any] = dict(
            batch_size=batch_size, compile_facts=compile_facts, force=force, progress=progress
        )
        if format == "jsonl":
            import io

            return self.ingest(io.StringIO(text), user=user, **options)
        if format in ("markdown", "text"):
            return self.ingest_document(text, name=name, format=format, user=user, **options)
        kind, items = _documents.json_items(
            _documents.load_json(text, name=name), name=name, format=format if format == "chat" else None
        )
        if kind == "chat":
            _check_user(user)
            chat = _documents.chat_records(items, name=name, user=user)
            report = self.ingest(chat.records, **options)
            for e in report.errors:  # a record's position -> the number of its message
                e["line"] = chat.positions[e["line"] - 1] if e.get("line") else e.get("line")
            report.errors = sorted(report.errors + chat.errors, key=lambda e: e["line"] or 0)
            report.read += len(chat.errors)
            report.file = {"format": "chat", "name": name, "stream": chat.stream, "messages": len(items)}
        else:
            report = self.ingest(items, user=user, **options)
            report.file = {"format": "json", "name": name, "records": len(items)}
        return report

    def infer_causes(self, *, rebuild: bool = True) -> dict[str, Any]:
        """Re-infer every inferred causal link of the tenant from the memories (explicit links are kept)."""
        from ..derived import causal as _causal

        self._ready()
        out = _causal.rebuild(self.store, self.embedder, self.tenant)
        return {"removed": out["removed"], "inferred": out["inferred"]}

    def remember(self, text: str, **fields: Unpack[RecordFields]) -> Memory:
        """Store one memory and return it: ``text`` and any other field of a record (:mod:`kgmem.record_spec`;
        None: not given, ``at`` may be a datetime or a date). Raises :class:`InputError` when the record is
        invalid."""
        record: dict[str, Any] = {"text": text, **{k: v for k, v in fields.items() if v is not None}}
        if isinstance(record.get("at"), (dt.datetime, dt.date)):
            record["at"] = record["at"].isoformat()
        report = self.ingest([record])
        if report.problems:  # the record's own error, with its field and fix
            raise report.problems[0]
        if report.errors:
            raise InputError(report.errors[0]["error"], fix="correct the record")
        mem_id = report.ids[0] if report.ids else None
        if mem_id is None:  # unchanged: the same record is already stored
            from ..ingest.records import parse_record

            mem_id = parse_record(record, tenant=self.tenant).id
        return self.get(mem_id)

    @staticmethod
    def record_schema() -> dict[str, Any]:
        """The JSON schema of one memory record (contract §1: its fields, types and limits), made from the write
        path's own field list. It describes what :meth:`ingest` accepts; ingest still decides, line by line."""
        from ..ingest.records import record_schema

        return record_schema()

    if TYPE_CHECKING:  # provided by Reading (kgmem.api.reading); declared for the type checker only

        def get(self, memory_id: str) -> Memory: ...


def _read_text(path: Path) -> str:
    """A whole file as text: UTF-8 (a byte-order mark dropped), or one error that names the first bad byte."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(
            f"{path.name} is not valid UTF-8 (byte 0x{data[e.start]:02x} on line {line})", fix="save it as UTF-8"
        ) from None


def _check_format(format: str | None, *, required: bool = False) -> None:
    from ..ingest.documents import FORMATS

    if (format is None and required) or (format is not None and format not in FORMATS):
        raise InputError(
            f"'{format}' is not a format kgmem reads", field="format", fix=f"use one of {', '.join(FORMATS)}"
        )


def _check_user(user: str | None) -> None:
    """An owner given to an ingest is checked as a record's user is (:func:`kgmem.validate.check_user`)."""
    if user is not None:
        check_user(user)

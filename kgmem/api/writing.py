"""Writing memories: ``ingest``, ``remember``, and the derived passes that follow a write (the stream
context, inferred causes). The write path (:mod:`kgmem.ingest.pipeline`) and the derived layer are imported by
the methods, so a command that only reads never loads them."""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING, Any, Callable

from ..config import DEFAULT_BATCH
from ..errors import InputError
from ..results import IngestReport, Memory
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
    ) -> IngestReport:
        """Ingest records: a JSONL path, an open text file, or an iterable of dicts (contract §1). The input is
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
        from ..derived import causal as _causal
        from ..derived import context as _context
        from ..derived import supersession as _supersession
        from ..ingest.pipeline import ingest as _ingest
        from ..ingest.pipeline import uninferred as _uninferred

        self._ready()
        unchanged: list[str] = []
        vectors: dict[str, Any] | None = {} if infer_supersession else None  # each record's vector, for the pass
        started = [time.perf_counter()]

        def lap(phase: str) -> None:  # the wall-clock seconds of a phase, into report.timings
            now = time.perf_counter()
            report.timings[phase] = now - started[0]
            started[0] = now

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
            )
            lap("write")
            if report.ids or unchanged:  # the derived stream context of the new memories and their neighbours
                _context.refresh_for(self.store, self.tenant, report.ids, unchanged=unchanged)
            lap("context")
            # unchanged records without any cause: a run killed after its write but before this pass left them
            # uninferred, and a re-run is what completes it (links are merged: a repeat creates nothing)
            todo = report.ids + (_uninferred(self.store, self.tenant, unchanged) if infer_causes and unchanged else [])
            if infer_causes and todo:
                links = _causal.infer_links(self.store, self.embedder, self.tenant, todo)
                created = _causal.write_links(self.store, self.tenant, links)
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
        return report

    def infer_causes(self, *, rebuild: bool = True) -> dict[str, Any]:
        """Re-infer every inferred causal link of the tenant from the memories (explicit links are kept)."""
        from ..derived import causal as _causal

        self._ready()
        out = _causal.rebuild(self.store, self.embedder, self.tenant)
        return {"removed": out["removed"], "inferred": out["inferred"]}

    def remember(self, text: str, **fields: Any) -> Memory:
        """Store one memory and return it. Raises :class:`InputError` when the record is invalid."""
        record = {"text": text, **{k: v for k, v in fields.items() if v is not None}}
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

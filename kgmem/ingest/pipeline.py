"""``ingest``: read → validate → deduplicate → check references → normalise → embed → write in batches.

* A malformed line gets an error naming its line and field; every valid line still lands.
* Idempotent: a record whose id already holds the same content is ``unchanged``; the same id with other
  content is an error for that line (episodes are append-only: write a new record instead).
* ``caused_by`` ids must exist in the record's tenant, in the store or anywhere in this input.
* Each batch is one transaction. Normalising batch *i+1*, embedding batch *i* and writing batch *i-1*
  overlap (two threads beside the embedder), so graph writes add little to the embedding time.
* The input is streamed: it is read a window of :data:`WINDOW_BATCHES` batches at a time, and each window is
  checked and written before the next is read, so a file of millions of lines runs in bounded memory (what
  grows with the input is the list of created ids the report and the derived passes keep). A record whose
  cause comes later in the input waits, held, until the cause is written (or the input ends: then its line is
  an error).
"""

from __future__ import annotations

import datetime as dt
import io
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sized

from ..config import DEFAULT_BATCH, IN_MEMORY_PAIRS_MAX
from ..embed import Embedder
from ..errors import InputError, Interrupted
from ..results import IngestReport
from ..store import Store
from ..validate import short
from ..vocab import Vocabulary
from .prepare import Preparer, Row
from .records import PART_TRANSFORM, Record, parse_record, read_jsonl
from .writer import BatchResult, link_causes, link_derived, write_batch

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

# a batch being written: its transaction's future, its record count, its rows and the tenant
_Pending = tuple[Future[BatchResult], int, list[Row], str]

Progress = Callable[[int, int], None]
# texts embedded between two progress calls: the bar moves while a batch is embedded, not only when its
# transaction (batch_size records) commits; the transactions stay as they are
PROGRESS_STEP = 256
# batches read, checked and written as one window: the records held in memory at a time (a window is checked
# against the store once, and the three-stage overlap below drains at its end)
WINDOW_BATCHES = 8


class _Progress:
    """``progress(done, total)`` in records as the work advances: each record counts a third when it is
    normalised, a third when its text is embedded (every :data:`PROGRESS_STEP` texts) and a third when its
    transaction commits, so ``(total, total)`` comes after the last commit. Records that need no writing
    (already stored, rejected) count as done at once. ``total`` is the input's length when it has one (a list),
    else the records read so far (it grows while a file is streamed). Called from the ingesting thread only."""

    def __init__(self, report: Progress | None, total: int | None):
        self._report, self._sized, self.total, self._thirds = report, total is not None, total or 0, 0

    def read(self, records: int) -> None:
        """``records`` more were read from an input of unknown length."""
        if not self._sized:
            self.total += records

    def skip(self, records: int) -> None:
        """``records`` need no writing (already stored, or rejected): done at once."""
        self.add(3 * records, thirds=3 * records)

    def add(self, records: int, *, thirds: int | None = None) -> None:
        """``records`` finished one of their three steps (or ``thirds`` of a record, when given)."""
        self._thirds += records if thirds is None else thirds
        self.tell()

    def tell(self) -> None:
        if self._report is not None and self.total:
            self._report(min(self._thirds // 3, self.total), self.total)


def _reject(report: IngestReport, line: int | None, error: InputError) -> None:
    """A record refused: its line and message in ``report.errors`` (the message says the field and, in
    parentheses, the fix), the error itself in ``report.problems``."""
    report.errors.append({"line": line, "error": error.without_line()})
    report.problems.append(error)


@dataclass
class _Item:
    line: int | None
    record: Record


def iter_source(source: Any) -> Iterator[tuple[int | None, Any]]:
    """(line number, object or InputError) from a JSONL path, a text stream, or an iterable of dicts."""
    if isinstance(source, (str, os.PathLike)) and not isinstance(source, dict):
        path = Path(source)
        if not path.exists():
            raise InputError(f"no such file: {path}", fix="check the path")
        if path.is_dir():
            raise InputError(f"{path} is a directory", fix="give a .jsonl file")
        with open(path, "rb") as f:  # bytes: each line is decoded on its own (a bad byte costs one line)
            yield from read_jsonl(f)
        return
    if isinstance(source, io.TextIOBase) or hasattr(source, "readline"):
        buffer = getattr(source, "buffer", None)  # sys.stdin: read its bytes, for the same reason
        yield from read_jsonl(buffer if buffer is not None and hasattr(buffer, "readline") else source)
        return
    if isinstance(source, dict):
        source = [source]
    yield from enumerate(source, start=1)


class Ingestor:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        vocabulary: Vocabulary,
        *,
        batch_size: int = DEFAULT_BATCH,
        compile_text: bool = True,
        force: bool = False,
        unchanged_ids: list[str] | None = None,
        vectors_out: dict[str, Any] | None = None,
        texts_out: Callable[[list[str]], None] | None = None,
        user: str | None = None,
    ):
        self.store = store
        self.embedder = embedder
        self.vocabulary = vocabulary
        self.batch_size = max(1, batch_size)
        self.compile_text = compile_text
        self.force = force
        # ids of records found already stored with the same content (the caller may finish their derived
        # work: after a crash between the write and the inference pass, a re-run is what completes it)
        self.unchanged_ids = unchanged_ids if unchanged_ids is not None else []
        self.vectors_out = vectors_out
        # called with each batch's record texts before they are embedded: a derived pass may start its
        # per-text work then, beside the embedder (the write path knows nothing of what it does)
        self.texts_out = texts_out
        # the owner of the records that name none (``kgmem ingest --user``); a record's own ``user`` wins
        self.user = user
        self._preparer: Preparer | None = None

    # ------------------------------------------------------------------ phases

    def run(
        self, source: Any, *, tenant: str, progress: Progress | None = None, now: dt.datetime | None = None
    ) -> IngestReport:
        report = IngestReport()
        self.phase = "read"
        try:
            return self._run(source, report, tenant=tenant, progress=progress, now=now)
        except Interrupted:
            raise
        except KeyboardInterrupt:  # Ctrl-C: say what is stored (each batch is one transaction)
            raise Interrupted(report, self.phase) from None

    def _run(
        self, source: Any, report: IngestReport, *, tenant: str, progress: Progress | None, now: dt.datetime | None
    ) -> IngestReport:
        recorded_at = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
        sized = isinstance(source, Sized) and not isinstance(source, (str, bytes, dict, os.PathLike))
        tracker = _Progress(progress, len(source) if sized else None)
        window = self.batch_size * WINDOW_BATCHES
        items: list[_Item] = []
        waiting: list[_Item] = []  # records whose cause was not written yet (it may come later in the input)
        for line, obj in iter_source(source):
            report.read += 1
            tracker.read(1)
            if isinstance(obj, InputError):
                _reject(report, line, obj)
                tracker.skip(1)
                continue
            if self.user is not None and isinstance(obj, dict) and obj.get("user") is None:
                obj = {**obj, "user": self.user}
            try:
                rec = parse_record(obj, line=line, tenant=tenant, now=recorded_at)
            except InputError as e:
                _reject(report, line, e)
                tracker.skip(1)
                continue
            items.append(_Item(line, rec))
            if len(items) >= window:
                waiting = self._window(tenant, waiting + items, report, recorded_at, tracker, last=False)
                items = []
        self._window(tenant, waiting + items, report, recorded_at, tracker, last=True)
        report.errors.sort(key=lambda e: (e["line"] is None, e["line"] or 0))
        report.linked = report.edges["caused_by"] + report.edges["next"]
        return report

    def _window(
        self,
        tenant: str,
        items: list[_Item],
        report: IngestReport,
        recorded_at: dt.datetime,
        tracker: _Progress,
        *,
        last: bool,
    ) -> list[_Item]:
        """Check and write one window of records (with the ones still waiting for a cause, which come first);
        return those that wait on: a cause that is neither stored nor among them may come later in the input.
        In the ``last`` window nothing waits: an unknown cause is an error for its line."""
        fresh = self._select_fresh(tenant, items, report)
        ok, waiting = self._check_causes(tenant, fresh, report, last=last)
        tracker.skip(len(items) - len(ok) - len(waiting))
        tracker.tell()
        self.phase = "write"  # from the first window on, some batches may be stored
        self._write(tenant, ok, report, recorded_at, tracker)
        return waiting

    def _select_fresh(self, tenant: str, items: list[_Item], report: IngestReport) -> list[_Item]:
        """Drop records already stored with the same content; flag ids reused for other content."""
        seen: dict[str, str] = {}
        unique: list[_Item] = []
        for it in items:
            rec = it.record
            if rec.id in seen:
                if seen[rec.id] == rec.content_key:
                    report.unchanged += 1
                else:
                    _reject(
                        report,
                        it.line,
                        InputError(
                            f"id '{short(rec.id)}' appears earlier in this input with different content",
                            field="id",
                            fix="give each memory its own id",
                        ),
                    )
                continue
            seen[rec.id] = rec.content_key
            unique.append(it)
        unique = self._check_tombstones(tenant, unique, report)
        existing = self._existing(tenant, [it.record.id for it in unique])
        fresh = []
        for it in unique:
            stored = existing.get(it.record.id)
            if stored is None:
                fresh.append(it)
            elif stored == it.record.content_key:
                report.unchanged += 1
                self.unchanged_ids.append(it.record.id)
            else:
                _reject(
                    report,
                    it.line,
                    InputError(
                        f"id '{short(it.record.id)}' already holds different content; memories are append-only",
                        field="id",
                        fix="give the new memory a new id",
                    ),
                )
        return fresh

    def _check_tombstones(self, tenant: str, items: list[_Item], report: IngestReport) -> list[_Item]:
        """A record forgotten on purpose stays forgotten unless ``force``; one that expired (gc) may return."""
        stones: dict[str, dict[str, Any]] = {}
        for i in range(0, len(items), 5000):
            chunk = items[i : i + 5000]
            for row in self.store.read(
                "lifecycle/tombstones_for",
                tenant=tenant,
                ids=[it.record.id for it in chunk],
                content_keys=[it.record.content_key for it in chunk],
            ):
                stones.setdefault(row["id"], row)
                stones.setdefault("ck:" + (row["content_key"] or ""), row)
        if not stones:
            return items
        keep, revive = [], []
        for it in items:
            stone = stones.get(it.record.id) or stones.get("ck:" + it.record.content_key)
            if stone is None:
                keep.append(it)
            elif stone["reason"] == "forget" and not self.force:
                _reject(
                    report,
                    it.line,
                    InputError(
                        f"id '{short(it.record.id)}' was forgotten at {stone['forgotten_at']} and is not stored again",
                        field="id",
                        fix="ingest with force=True, or --force, to bring it back",
                    ),
                )
            else:
                keep.append(it)
                revive.append(stone["id"])
        if revive:
            self.store.write("lifecycle/clear_tombstones", tenant=tenant, ids=sorted(set(revive)))
        return keep

    def _existing(self, tenant: str, ids: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(0, len(ids), 5000):
            for row in self.store.read("ingest/existing_ids", tenant=tenant, ids=ids[i : i + 5000]):
                out[row["id"]] = row["content_key"]
        return out

    def _check_causes(
        self, tenant: str, fresh: list[_Item], report: IngestReport, *, last: bool = True
    ) -> tuple[list[_Item], list[_Item]]:
        """Every caused_by and part_of id must be in the store or among this input's valid records (same tenant). Returns
        the records to write now and, unless ``last``, those whose cause (or whole) is not known yet (they wait for the
        rest of the input; in the last window such a record is an error for its line)."""
        wanted = {c for it in fresh for c in it.record.caused_by}
        wanted |= {it.record.part_of for it in fresh if it.record.part_of is not None}
        input_ids = {it.record.id for it in fresh}
        in_store = set(self._existing(tenant, sorted(wanted - input_ids)))
        ok, waiting = list(fresh), []
        while True:
            valid_ids = {it.record.id for it in ok}
            keep, dropped = [], False
            for it in ok:
                unknown = [c for c in it.record.caused_by if c not in valid_ids and c not in in_store]
                whole = it.record.part_of
                if whole is not None and whole not in valid_ids and whole not in in_store:
                    unknown = unknown or [whole]
                if not unknown:
                    keep.append(it)
                    continue
                dropped = True
                if not last:
                    waiting.append(it)
                    continue
                part = unknown[0] == it.record.part_of and unknown[0] not in it.record.caused_by
                _reject(
                    report,
                    it.line,
                    InputError(
                        f"unknown id '{short(unknown[0])}' (not in tenant '{tenant}' nor elsewhere in this input)",
                        field="part_of" if part else "caused_by",
                        fix="ingest the memory it is a part of first or fix the id"
                        if part
                        else "ingest the cause first or fix the id",
                    ),
                )
            ok = keep
            if not dropped:
                return ok, sorted(waiting, key=lambda it: it.line or 0)

    # ------------------------------------------------------------------ writing

    def _write(
        self,
        tenant: str,
        items: list[_Item],
        report: IngestReport,
        recorded_at: dt.datetime,
        progress: _Progress,
    ) -> None:
        if not items:
            return
        if self._preparer is None:  # one for the whole input: names learned in a window link in the next ones
            known = self.store.read("ingest/known_entities", tenant=tenant)[0]["entities"]  # [key, name, aliases]
            self._preparer = Preparer(
                self.vocabulary, embed=self.embedder.encode, known_entities=known, compile_text=self.compile_text
            )
        preparer = self._preparer
        batches = [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
        batch_of = {it.record.id: b for b, batch in enumerate(batches) for it in batch}
        deferred: list[dict[str, Any]] = []

        deferred_parts: list[dict[str, Any]] = []

        def parts_for(b: int, batch: list[_Item]) -> list[dict[str, Any]]:
            """DERIVED_FROM links of this batch's parts to their whole (later, when the whole is in a later batch)."""
            now_links: list[dict[str, Any]] = []
            for it in batch:
                whole = it.record.part_of
                if whole is not None:
                    link = {"id": it.record.id, "source": whole, "transform": PART_TRANSFORM}
                    (deferred_parts if batch_of.get(whole, -1) > b else now_links).append(link)
            return now_links

        def links_for(b: int, batch: list[_Item]) -> list[dict[str, Any]]:
            now_links: list[dict[str, Any]] = []
            for it in batch:
                for cause in it.record.caused_by:
                    link = {
                        "effect": it.record.id,
                        "cause": cause,
                        "inferred": False,
                        "confidence": 1.0,
                        "source": "caused_by",
                    }
                    (deferred if batch_of.get(cause, -1) > b else now_links).append(link)
            return now_links

        def prepare(b: int) -> tuple[list[Row], tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
            prepared = preparer.prepare(it.record for it in batches[b])
            for p in prepared.new_predicates:
                if p not in report.new_predicates:
                    report.new_predicates.append(p)
            return prepared.rows, (links_for(b, batches[b]), parts_for(b, batches[b]))

        def embed(rows: list[Row], records: int) -> dict[str, np.ndarray]:
            # by length, so each chunk pads as little as the whole batch would in one call (the encoder
            # batches a call's texts by length)
            texts = sorted(dict.fromkeys(r.text for r in rows), key=len)
            vectors: dict[str, np.ndarray] = {}
            told = 0  # thirds of a record reported for this batch's embedding so far (3 * records at the end)
            for start in range(0, len(texts), PROGRESS_STEP):
                chunk = texts[start : start + PROGRESS_STEP]
                vectors.update(zip(chunk, self.embedder.encode(chunk)))
                reached = 3 * records * (start + len(chunk)) // len(texts)
                progress.add(0, thirds=reached - told)
                told = reached
            return vectors

        def write(
            rows: list[Row],
            vectors: dict[str, np.ndarray],
            links: tuple[list[dict[str, Any]], list[dict[str, Any]]],
        ) -> BatchResult:
            return self.store.write_tx(
                lambda tx: write_batch(
                    tx,
                    tenant=tenant,
                    recorded_at=recorded_at,
                    model_id=self.embedder.model_id,
                    rows=rows,
                    vectors=vectors,
                    causal_links=links[0],
                    part_links=links[1],
                )
            )

        # three stages overlap: normalising batch b+1 (a thread), embedding batch b (here; torch releases
        # the GIL) and writing batch b-1 (a thread, one transaction per batch, in order)
        pending: _Pending | None = None
        try:
            with (
                ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgmem-prepare") as prep_pool,
                ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgmem-writer") as write_pool,
            ):
                next_prep = prep_pool.submit(prepare, 0)
                for b in range(len(batches)):
                    rows, links = next_prep.result()
                    progress.add(len(batches[b]))  # normalised
                    if b + 1 < len(batches):
                        next_prep = prep_pool.submit(prepare, b + 1)
                    if self.texts_out is not None:
                        self.texts_out([r.text for r in rows if r.origin == "record"])
                    vectors = embed(rows, len(batches[b]))
                    if pending:
                        done, pending = pending, None
                        self._collect(done, report, progress)
                    if self.vectors_out is not None and len(self.vectors_out) < IN_MEMORY_PAIRS_MAX:
                        self.vectors_out.update((r.id, vectors[r.text]) for r in rows if r.origin == "record")
                    pending = (write_pool.submit(write, rows, vectors, links), len(batches[b]), rows, tenant)
                if pending:
                    done, pending = pending, None
                    self._collect(done, report, progress)
        except KeyboardInterrupt:
            # leaving the pools waited for the batch being written: when its transaction committed, count it
            if pending and pending[0].done() and not pending[0].cancelled() and pending[0].exception() is None:
                self._collect(pending, report, progress)
            raise
        if deferred:
            report.edges["caused_by"] += self.store.write_tx(lambda tx: link_causes(tx, tenant=tenant, links=deferred))
        if deferred_parts:
            report.edges["derived_from"] += self.store.write_tx(
                lambda tx: link_derived(tx, tenant=tenant, links=deferred_parts)
            )

    @staticmethod
    def _collect(pending: _Pending, report: IngestReport, progress: _Progress) -> None:
        fut, n_records, rows, tenant = pending
        res: BatchResult = fut.result()
        report.created += sum(1 for r in rows if r.origin == "record")
        report.facts += sum(1 for r in rows if r.origin == "compiled")
        report.ids.extend(r.id for r in rows if r.origin == "record")
        report.superseded += res.superseded
        report.entities += res.edges["mentions"]
        for k, v in res.edges.items():
            report.edges[k] += v
        progress.add(n_records)  # written: its transaction committed


def ingest(
    store: Store,
    source: Any,
    *,
    tenant: str,
    embedder: Embedder,
    vocabulary: Vocabulary,
    batch_size: int = DEFAULT_BATCH,
    compile_text: bool = True,
    progress: Progress | None = None,
    now: dt.datetime | None = None,
    force: bool = False,
    unchanged_ids: list[str] | None = None,
    vectors_out: dict[str, Any] | None = None,
    texts_out: Callable[[list[str]], None] | None = None,
    user: str | None = None,
) -> IngestReport:
    """``user``: the owner of the records that name none;
    ``unchanged_ids``: a list that receives the ids of records already stored with the same content;
    ``vectors_out``: a dict that receives each written record's vector by id (for the derived passes);
    ``texts_out``: called with each batch's record texts before they are embedded (for the derived passes)."""
    return Ingestor(
        store,
        embedder,
        vocabulary,
        batch_size=batch_size,
        compile_text=compile_text,
        force=force,
        unchanged_ids=unchanged_ids,
        vectors_out=vectors_out,
        texts_out=texts_out,
        user=user,
    ).run(source, tenant=tenant, progress=progress, now=now)

"""The memory lifecycle: forget, gc, consolidate, export/import, rebuild.

The work is done in :mod:`kgmem.derived` (forget, retention, consolidate, portable, rebuild), imported by the
method that needs it: a command that only reads pays for none of them (numpy, the compiler, the writer).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..errors import InputError, NotFoundError
from ..validate import MAX_ID, check_string, optional_time, short
from .base import GraphBase


class Lifecycle(GraphBase):
    """Forgetting, retention, consolidation, export/import and rebuilding (see each method)."""

    def forget(self, id: str) -> dict[str, Any]:
        """Forget a memory and propagate through lineage: facts compiled from it go, summaries and merges
        derived from it are re-derived from their remaining sources (or removed), its slot chains and NEXT
        chain are rebuilt, entities left without mentions are removed, and a content-free tombstone stays.
        Raises :class:`~kgmem.errors.NotFoundError` for an unknown (or already forgotten) id."""
        from ..derived import context as _context
        from ..derived import forget as _forget

        check_string(id, field="id", max_len=MAX_ID)  # a string, not blank, no NUL, no lone surrogate
        self._ready()
        out = _forget.forget_ids(self.store, self.embedder, self.tenant, [id], reason="forget")
        _context.refresh_for(self.store, self.tenant, [])  # re-derived summaries and merges get their context
        return out

    def forget_stream(self, stream: str) -> dict[str, Any]:
        """Forget a whole stream (a conversation, a channel, a chat export): every record of the tenant whose
        ``stream`` is ``stream``, through the same propagation as :meth:`forget` (what was derived from them goes
        or is re-derived, entities nobody mentions go, a tombstone stays for each). A document's passages are in
        the stream named by the document's id: forgetting that stream forgets the document memory too. Returns
        :meth:`forget`'s report with ``stream`` and ``document`` (that memory's id, else None). Raises
        :class:`~kgmem.errors.NotFoundError` when no memory of the tenant is in the stream."""
        from ..derived import context as _context
        from ..derived import forget as _forget
        from ..ingest.records import MAX_STREAM

        if isinstance(stream, str) and not stream.strip():
            raise InputError(
                "must not be empty (memories without a stream are no stream)",
                field="stream",
                fix="name the stream to forget, as the memories' 'stream' field gives it",
            )
        name = check_string(stream, field="stream", max_len=MAX_STREAM).strip()  # records store it stripped
        self._ready()
        rows = self.store.read("lifecycle/stream_members", tenant=self.tenant, stream=name)
        if not rows:
            raise NotFoundError(
                f"no memory of tenant '{self.tenant}' is in stream '{short(name)}'",
                fix="check the stream's name (a memory's 'stream', as timeline shows it) and the tenant",
            )
        out = _forget.forget_ids(self.store, self.embedder, self.tenant, [r["id"] for r in rows], reason="forget")
        _context.refresh_for(self.store, self.tenant, [])
        document = next((r["id"] for r in rows if r["document"]), None)
        return {**out, "stream": name, "document": document}

    def gc(
        self, dry_run: bool = False, now: Any = None, *, ttls: str | Mapping[str, object] | None = None
    ) -> dict[str, Any]:
        """Forget every record whose retention class has expired (``recorded_at + TTL <= now``), through the
        same propagation as :meth:`forget`. ``dry_run`` only lists them. TTLs: defaults, ``KGMEM_RETENTION``,
        then ``ttls`` (``{"short": "7d"}`` or ``"short=7d,ephemeral=12h"``)."""
        from ..derived import context as _context
        from ..derived import retention as _retention

        self._ready()
        out = _retention.gc(
            self.store, self.embedder, self.tenant, now=optional_time(now, "now"), ttls=ttls, dry_run=dry_run
        )
        if not dry_run:
            _context.refresh_for(self.store, self.tenant, [])
        return out

    def consolidate(self, dry_run: bool = False, **params: Any) -> dict[str, Any]:
        """One consolidation run: rebuild slot chains, merge near-duplicates, write pattern summaries, decay
        and reinforce entity co-occurrence; recorded as a ``:ConsolidationRun``. ``dry_run`` returns the plan
        only. Params: threshold (0.92), min_cluster (4), pattern_threshold (0.70), weekday_share (0.75),
        interval_tolerance (0.25), decay (0.95), floor (0.1); ``now`` for the run's time."""
        from ..derived import consolidate as _cons
        from ..derived import context as _context

        self._ready()
        now = optional_time(params.pop("now", None), "now")
        p = _cons.ConsolidationParams.from_kwargs(**params)
        out = _cons.consolidate(self.store, self.embedder, self.tenant, p, dry_run=dry_run, now=now)
        if not dry_run:  # merges and summaries are memories too: every memory is in every context channel
            _context.refresh_for(self.store, self.tenant, [])
        return out

    def co_occurring(self, keys: Iterable[str], limit: int = 20) -> list[dict[str, Any]]:
        """Entities that co-occur with the given entity keys: ``[{key, name, weight, count, via}]``, strongest
        first (weights from consolidation runs; an extra ranking signal)."""
        from ..derived import consolidate as _cons

        self._ready()
        return _cons.co_occurring(self.store, self.tenant, keys, limit)

    def export(self, path_or_file: Any) -> dict[str, Any]:
        """Write the tenant as deterministic JSONL (``kgmem-export/v1``) to a path or an open text file."""
        from ..derived import portable as _portable

        self._ready()
        return _portable.export(self.store, self.tenant, path_or_file)

    def import_jsonl(self, path: Any) -> dict[str, Any]:
        """Restore an export into this (empty) tenant exactly, re-embedding the texts. All or nothing."""
        from ..derived import portable as _portable

        self._ready()
        return _portable.import_jsonl(self.store, self.embedder, self.tenant, path)

    def manifest(self) -> dict[str, Any]:
        """The rebuild manifest: record ids and content keys, model id, transform versions, counts and the
        sources of every derived artefact (deterministic fields only)."""
        from ..derived import rebuild as _rebuild

        self._ready()
        return _rebuild.manifest(self.store, self.tenant, self.embedder.model_id)

    def rebuild(self, manifest_path: Any = None) -> dict[str, Any]:
        """Recompute every derived artefact from the records; compare the manifests before and after (and
        write both to ``manifest_path``). ``identical`` is true when nothing deterministic changed. It is
        also the fix for vectors of another model (it re-embeds), so it skips the model check."""
        from ..derived import rebuild as _rebuild

        self._ready(model=False)
        return _rebuild.rebuild(self.store, self.embedder, self.vocabulary, self.tenant, manifest_path)

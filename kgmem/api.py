"""``MemoryGraph``: the Python face of kgmem (the CLI is the other face over the same methods)."""

from __future__ import annotations

import datetime as dt
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .api_lifecycle import LifecycleMixin
from .config import DEFAULT_BATCH, DEFAULT_HITS, DEFAULT_RRF_K, DEFAULT_TENANT, resolve_connection
from .embed import MODEL_ID, Embedder, get_embedder
from .errors import InputError, NotFoundError
from .ingest.records import MAX_ID, MAX_QUERY, check_slot_query, check_string, parse_time
from .query import slots as _slots
from .results import Fact, History, IngestReport, Memory, Recall, SlotAnswer, Why
from .store import Store, schema
from .store.model_check import check_model
from .vocab import Vocabulary

if TYPE_CHECKING:
    from .query.abstain import AbstainPolicy
    from .query.ask import AskResult

# The write path (kgmem.ingest.pipeline), the derived layer (kgmem.derived) and the ranked reads
# (kgmem.query.recall / walks) are imported by the methods that use them, not here: `kgmem now` or `history`
# then loads the driver and the slot code only (issue 13: a CLI that answers in well under a second).


def _time(value: Any, field: str) -> dt.datetime | None:
    """Accept datetime, date or an RFC 3339 string for time arguments."""
    if value is None:
        return None
    return parse_time(value, field=field)


def _time_mode(value: Any) -> str:
    """``time_filters`` of recall/why: True = "auto", False = "off", or a mode of :data:`TIME_MODES`."""
    from .query.filters import TIME_MODES

    if value is True:
        return "auto"
    if value is False or value is None:
        return "off"
    if value in TIME_MODES:
        return value
    raise InputError(f"must be true, false or one of {', '.join(TIME_MODES)}, got {value!r}", field="time_filters")


class MemoryGraph(LifecycleMixin):
    """A knowledge-graph memory for one tenant on one Neo4j database.

    >>> with MemoryGraph.from_env(tenant="demo") as mg:   # doctest: +SKIP
    ...     mg.remember("I like diet coke", at="2026-01-05")
    """

    def __init__(
        self,
        uri: str | None = None,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        tenant: str = DEFAULT_TENANT,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        vocabulary: Vocabulary | None = None,
    ):
        if not isinstance(tenant, str) or not tenant.strip():
            from .errors import InputError

            raise InputError("tenant must be a non-empty string", field="tenant")
        user, password = auth if auth else (None, None)
        self.tenant = tenant
        self._owns_store = store is None
        self.store = store or Store(resolve_connection(uri, user, password, database))
        self._schema_ready = False
        self._model_checked = False
        self._schema_lock = threading.Lock()
        self._embedder = embedder
        self.vocabulary = vocabulary or Vocabulary.load()

    @property
    def embedder(self) -> Embedder:
        """The process-wide all-MiniLM-L6-v2 embedder (loaded on first use)."""
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    @classmethod
    def from_env(cls, tenant: str = DEFAULT_TENANT, **kwargs: Any) -> MemoryGraph:
        """Connect with NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD / NEO4J_DATABASE (else the local server)."""
        return cls(tenant=tenant, **kwargs)

    def for_tenant(self, tenant: str) -> MemoryGraph:
        """Another tenant's view over the same connection (the connection is shared, not re-opened)."""
        other = MemoryGraph(tenant=tenant, store=self.store, embedder=self._embedder, vocabulary=self.vocabulary)
        other._schema_ready = self._schema_ready
        return other

    # ------------------------------------------------------------------ the connection and the statements

    def verify(self) -> dict:
        """Check now that the database answers (raises :class:`DatabaseUnavailable` at once if it does not):
        {address, agent, protocol}."""
        return self.store.verify()

    def server_components(self) -> list[dict]:
        """The Neo4j server's components: [{name, version, edition}]."""
        return self.store.read("admin/server_components")

    @property
    def connection(self):
        """Where this graph is: uri, database, and where the settings came from (``origin``)."""
        return self.store.connection

    @staticmethod
    def statements() -> list:
        """Every Cypher statement kgmem runs (``cypher/``), as :class:`kgmem.store.cypher.Query` objects."""
        from .store import cypher

        return cypher.all_queries()

    @staticmethod
    def statement(name: str):
        """One statement of ``cypher/`` by name (``"why/roots"``); :class:`NotFoundError` for an unknown one."""
        from .store import cypher

        try:
            return cypher.load(name)
        except KeyError:
            raise NotFoundError(
                f"no Cypher statement named '{name}'", fix="run `kgmem cypher --list` for the names"
            ) from None

    # ------------------------------------------------------------------ schema

    def init(self, *, rebuild_indexes: bool = False) -> list[dict]:
        """Create constraints and indexes (idempotent), wait until they are ONLINE, and record the schema
        version in the database (so later processes skip this step: see :mod:`kgmem.store.schema`).

        ``rebuild_indexes`` first drops the vector and fulltext indexes over memories and builds them again
        from the stored properties (they are derived; HNSW search slows down after many deletions)."""
        with self._schema_lock:
            if rebuild_indexes:
                self.store.auto_commit("admin/drop_vector_index")
                self.store.auto_commit("admin/drop_text_index")
            indexes = schema.apply(self.store)
            self._schema_ready = True
        return indexes

    def _ready(self, *, model: bool = True) -> None:
        if not self._schema_ready:
            # one cheap check (the recorded schema version and the index states) instead of every
            # CREATE ... IF NOT EXISTS; a new version, a missing record or a missing index applies the schema
            with self._schema_lock:
                if not self._schema_ready and schema.is_current(self.store):
                    self._schema_ready = True
            if not self._schema_ready:
                self.init()
        # vectors of two models are not comparable: refuse, say to rebuild. Slot reads (now, as-of, history,
        # changes) compare no stored vectors, so they skip this read (model=False)
        if model and not self._model_checked:
            check_model(self.store, self.tenant, MODEL_ID)
            self._model_checked = True

    # ------------------------------------------------------------------ write path

    def ingest(
        self,
        records: Any,
        *,
        batch_size: int = DEFAULT_BATCH,
        compile_facts: bool = True,
        infer_causes: bool = True,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Ingest records: a JSONL path, an open text file, or an iterable of dicts (contract §1).

        Bad lines are reported in ``report.errors`` (with line numbers) and the rest still lands. After the
        write, memories that state their cause in words get inferred CAUSED_BY links (``infer_causes``).
        A record that was forgotten stays forgotten (an error for its line) unless ``force``.
        """
        from .derived import causal as _causal
        from .derived import context as _context
        from .ingest.pipeline import ingest as _ingest
        from .ingest.pipeline import uninferred as _uninferred

        self._ready()
        unchanged: list[str] = []
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
        )
        if report.ids:  # the derived stream context of the new memories and their neighbours
            _context.refresh_for(self.store, self.tenant, report.ids)
        # unchanged records without any cause: a run killed after its write but before this pass left them
        # uninferred, and a re-run is what completes it (links are merged: a repeat creates nothing)
        todo = report.ids + (_uninferred(self.store, self.tenant, unchanged) if infer_causes and unchanged else [])
        if infer_causes and todo:
            links = _causal.infer_links(self.store, self.embedder, self.tenant, todo)
            created = _causal.write_links(self.store, self.tenant, links)
            report.edges["inferred_caused_by"] = report.edges.get("inferred_caused_by", 0) + created
            report.linked += created
        return report

    def infer_causes(self, *, rebuild: bool = True) -> dict:
        """Re-infer every inferred causal link of the tenant from the memories (explicit links are kept)."""
        from .derived import causal as _causal

        self._ready()
        out = _causal.rebuild(self.store, self.embedder, self.tenant)
        return {"removed": out["removed"], "inferred": out["inferred"]}

    def remember(self, text: str, **fields: Any) -> Memory:
        """Store one memory and return it. Raises :class:`InputError` when the record is invalid."""
        record = {"text": text, **{k: v for k, v in fields.items() if v is not None}}
        if isinstance(record.get("at"), (dt.datetime, dt.date)):
            record["at"] = record["at"].isoformat()
        report = self.ingest([record])
        if report.errors:
            raise InputError(report.errors[0]["error"])
        mem_id = report.ids[0] if report.ids else None
        if mem_id is None:  # unchanged: the same record is already stored
            from .ingest.records import parse_record

            mem_id = parse_record(record, tenant=self.tenant).id
        return self.get(mem_id)

    # ------------------------------------------------------------------ reading one memory

    def get(self, memory_id: str) -> Memory:
        check_string(memory_id, field="id", max_len=MAX_ID)
        rows = self.store.read("memory/by_ids", tenant=self.tenant, ids=[memory_id])
        if not rows:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in tenant '{self.tenant}'", fix="check the id (and --tenant)"
            )
        return Memory.from_row(rows[0])

    # ------------------------------------------------------------------ recall

    def recall(
        self,
        query: str,
        k: int = DEFAULT_HITS,
        at: Any = None,
        include_superseded: bool = False,
        *,
        user: str | None = None,
        since: Any = None,
        until: Any = None,
        now: Any = None,
        kinds: Iterable[str] | None = None,
        expand: int = 0,
        explain: bool = False,
        rrf_k: int = DEFAULT_RRF_K,
        channels: Iterable[str] | None = None,
        time_filters: bool | str = True,
        policy: AbstainPolicy | None = None,
    ) -> Recall:
        """Hybrid recall: filters first, then the channels fused by RRF (see README, "Recall").

        ``at`` answers as of that time (versions valid then). A time phrase in the question is measured from
        ``now`` (default: ``at``, else the current time) and, by the rule of ``time_filters="auto"`` (True),
        is a hard window when it asks for memories of a period ("what did we discuss last week", "in the last
        7 days") and a ranking signal otherwise ("in August", "4 years ago", any phrase in a when-question);
        a window that holds nothing eligible is dropped and says so in ``reason``. ``"filter"`` / ``"rank"``
        force one use, False ignores phrases. Explicit ``since``/``until``/``at`` are always hard filters.
        The result may abstain.
        """
        from .query.abstain import AbstainPolicy
        from .query.filters import build_filters
        from .query.recall import CHANNELS, RecallOptions
        from .query.recall import recall as _recall

        check_string(query, field="query", max_len=MAX_QUERY)
        if user is not None:
            check_string(user, field="user", max_len=500)
        self._ready()
        filters, text = build_filters(
            query if isinstance(query, str) else "",
            tenant=self.tenant,
            user=user,
            at=_time(at, "at"),
            since=_time(since, "since"),
            until=_time(until, "until"),
            include_superseded=include_superseded,
            kinds=tuple(kinds) if kinds else None,
            now=_time(now, "now"),
            time_phrases=_time_mode(time_filters),
        )
        opts = RecallOptions(
            k=k, rrf_k=rrf_k, expand=expand, channels=tuple(channels or CHANNELS), policy=policy or AbstainPolicy()
        )
        return _recall(self.store, self.embedder, query, filters, text, opts, explain=explain)

    # ------------------------------------------------------------------ why and timelines

    def why(
        self,
        query: str,
        k: int = 3,
        *,
        at: Any = None,
        max_depth: int = 6,
        min_confidence: float = 0.0,
        now: Any = None,
        time_filters: bool = False,
        explain: bool = False,
        policy: AbstainPolicy | None = None,
    ) -> Why:
        """Why did something happen: find the symptom, walk CAUSED_BY to the roots (best first).

        Abstains when no memory matches confidently or the best match has no recorded cause. Time phrases
        ("on Friday") help rank the symptom but are not hard filters unless ``time_filters`` is set: an
        incident's "Friday" is rarely the Friday before today.
        """
        from .query import walks as _walks
        from .query.abstain import AbstainPolicy
        from .query.filters import build_filters
        from .query.recall import RecallOptions

        check_string(query, field="query", max_len=MAX_QUERY)
        self._ready()
        filters, text = build_filters(
            query if isinstance(query, str) else "",
            tenant=self.tenant,
            at=_time(at, "at"),
            now=_time(now, "now"),
            time_phrases="filter"
            if time_filters is True
            else "rank"
            if time_filters is False
            else _time_mode(time_filters),
        )
        opts = RecallOptions(k=_walks.SYMPTOM_CANDIDATES, policy=policy or AbstainPolicy())
        return _walks.why(
            self.store,
            self.embedder,
            query,
            filters,
            text,
            k=k,
            max_depth=max_depth,
            min_confidence=min_confidence,
            opts=opts,
            explain=explain,
        )

    def timeline(self, memory_id: str, *, before: int = 5, after: int = 5) -> list[dict]:
        """What happened before and after a memory (its stream, else nearest in time)."""
        from .query import walks as _walks

        for name, value in (("before", before), ("after", after)):
            if not isinstance(value, int) or not 0 <= value <= 500:
                raise InputError(f"must be 0 to 500, got {value}", field=name, fix="ask for 0 to 500 memories")
        check_string(memory_id, field="id", max_len=MAX_ID)
        self._ready()
        rows = _walks.timeline(self.store, self.tenant, memory_id, before=before, after=after)
        if not rows:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in tenant '{self.tenant}'", fix="check the id (and --tenant)"
            )
        return rows

    # ------------------------------------------------------------------ ask

    def ask(self, question: str, *, now: Any = None, user: str | None = None) -> AskResult:
        """Route a question with the learned router (slot, recall, why, history, none) and answer it."""
        if not isinstance(question, str) or not question.strip():
            raise InputError(
                "must be a non-empty question", field="question", fix='ask something, e.g. "where does Maya live?"'
            )
        check_string(question, field="question", max_len=MAX_QUERY)
        from .query.ask import AskResult, parse_slot_question
        from .query.timeparse import parse_time_filter
        from .router import Router

        route = Router.default().predict(question)
        out = AskResult(
            question=question,
            intent=route.intent,
            confidence=route.confidence,
            operation=None,
            probabilities=dict(route.probabilities),
        )
        ref = _time(now, "now")
        if route.intent == "none":
            out.note = "not a memory question: no memory operation answers it"
            return out
        if route.intent in ("slot", "history"):
            sq = parse_slot_question(question, self.vocabulary, user=user)
            if sq is not None:
                if route.intent == "slot":
                    out.operation, out.result = "now", self.now_answer(sq.subject, sq.predicate, sq.object)
                    return out
                tf = parse_time_filter(question, ref or dt.datetime.now(dt.timezone.utc))
                if tf is not None and tf.end is not None:
                    at = tf.end - dt.timedelta(microseconds=1)  # the value as the period ended
                    out.operation = "as_of"
                    out.result = self.as_of_answer(sq.subject, sq.predicate, at, sq.object)
                    return out
                out.operation, out.result = "history", self.history_answer(sq.subject, sq.predicate, sq.object)
                return out
            out.note = "could not name the slot in the question; answered with recall"
        if route.intent == "why":
            out.operation, out.result = "why", self.why(question, now=ref)
            return out
        out.operation, out.result = "recall", self.recall(question, now=ref, user=user)
        return out

    # ------------------------------------------------------------------ facts over time

    def _slot(self, subject: str, predicate: str, object: str | None) -> _slots.SlotRef:
        for name, value in (("subject", subject), ("predicate", predicate)):
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    "must be a non-empty string", field=name, fix='name the slot, e.g. now("maya", "lives_in")'
                )
        check_slot_query(subject, predicate, object)
        return _slots.resolve_slot(self.vocabulary, self.tenant, subject, predicate, object, embed=self._embed)

    def _embed(self, texts):
        """Embeds for the vocabulary's nearest-predicate match; a bound method, so its phrase cache hits."""
        return self.embedder.encode(texts)

    def now(self, subject: str, predicate: str, object: str | None = None) -> Fact | None:
        """The current value of a slot (None when nothing is recorded)."""
        return self.now_answer(subject, predicate, object).value

    def now_answer(self, subject: str, predicate: str, object: str | None = None) -> SlotAnswer:
        self._ready(model=False)
        return _slots.value_at(self.store, self._slot(subject, predicate, object))

    def as_of(
        self, subject: str, predicate: str, at: Any, object: str | None = None, *, known_at: Any = None
    ) -> Fact | None:
        """The value the slot had at ``at`` (optionally: as the store knew it at ``known_at``)."""
        return self.as_of_answer(subject, predicate, at, object, known_at=known_at).value

    def as_of_answer(
        self, subject: str, predicate: str, at: Any, object: str | None = None, *, known_at: Any = None
    ) -> SlotAnswer:
        self._ready(model=False)
        when = _time(at, "at")
        if when is None:
            raise InputError("is required for as-of", field="at", fix='give a time like "2026-03-01"')
        return _slots.value_at(self.store, self._slot(subject, predicate, object), when, _time(known_at, "known_at"))

    def history(self, subject: str, predicate: str, object: str | None = None, *, known_at: Any = None) -> list[Fact]:
        """Every version of the slot, oldest first."""
        return self.history_answer(subject, predicate, object, known_at=known_at).versions

    def history_answer(
        self, subject: str, predicate: str, object: str | None = None, *, known_at: Any = None
    ) -> History:
        self._ready(model=False)
        return _slots.history(self.store, self._slot(subject, predicate, object), _time(known_at, "known_at"))

    def changes(self, since: Any, *, limit: int = 100) -> list[dict]:
        """Fact versions that took effect or were recorded since ``since``, newest first."""
        if not isinstance(limit, int) or not 1 <= limit <= 10000:
            raise InputError(f"must be 1 to 10000, got {limit}", field="limit", fix="ask for 1 to 10000 changes")
        self._ready(model=False)
        when = _time(since, "since")
        if when is None:
            raise InputError("is required", field="since")
        return _slots.changes(self.store, self.tenant, when, limit)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> MemoryGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

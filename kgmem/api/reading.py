"""Reading memories: one by id, ranked recall, ``why`` walks, timelines, and ``ask`` (which routes a question
to one of these or to a fact read). The ranked reads (:mod:`kgmem.query.recall`, ``walks``, ``filters``) are
imported by the methods that use them, so a fact command never loads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, cast

from ..config import (
    DEFAULT_AROUND,
    DEFAULT_HITS,
    DEFAULT_MENTIONS,
    DEFAULT_NEIGHBOURS,
    DEFAULT_ROOTS,
    DEFAULT_RRF_K,
    DEFAULT_WHY_DEPTH,
)
from ..errors import InputError, NotFoundError
from ..normalize import entity_key
from ..results import Memory, Mentions, Neighbourhood, Recall, Why
from ..validate import (
    MAX_AROUND,
    MAX_ENTITY_NAME,
    MAX_EXPAND,
    MAX_ID,
    MAX_MENTIONS,
    MAX_NEIGHBOURS,
    check_int,
    check_query,
    check_string,
    check_user,
    optional_time,
)
from .base import GraphBase

if TYPE_CHECKING:
    from ..query.abstain import AbstainPolicy
    from ..query.ask import AskResult


def time_mode(value: Any) -> str:
    """``time_filters`` of recall/why: True = "auto", False = "off", or a mode of ``TIME_MODES``."""
    from ..query.filters import TIME_MODES

    if value is True:
        return "auto"
    if value is False or value is None:
        return "off"
    if value in TIME_MODES:
        return str(value)
    raise InputError(
        f"must be true, false or one of {', '.join(TIME_MODES)}, got {value!r}",
        field="time_filters",
        fix=f"give true, false or one of {', '.join(TIME_MODES)}",
    )


def asks_why(question: str) -> bool:
    """Whether recall reads ``question`` as a why-question: it uses a word of cause
    (:func:`kgmem.question_words.names_a_cause`) and the shipped router, which ``ask`` routes by, reads the
    intent ``why`` in it (asked only then: the router embeds the question)."""
    from ..question_words import names_a_cause

    if not names_a_cause(question):
        return False
    from ..router import Router  # scikit-learn and the embedder: only for a question with a word of cause

    return Router.default().predict(question).intent == "why"


def _with_hint(reason: str | None, hint: str | None) -> str | None:
    """An abstention's reason with a hint after it (the hint alone when there is no reason)."""
    if hint is None:
        return reason
    return f"{reason}; {hint}" if reason else hint


class Reading(GraphBase):
    def get(self, memory_id: str) -> Memory:
        """One memory by id; :class:`NotFoundError` when the tenant has none of that id."""
        check_string(memory_id, field="id", max_len=MAX_ID)
        rows = self.store.read("memory/by_ids", tenant=self.tenant, ids=[memory_id])
        if not rows:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in tenant '{self.tenant}'", fix="check the id (and --tenant)"
            )
        return Memory.from_row(rows[0])

    def lineage(self, memory_id: str, *, depth: int = 5) -> dict[str, Any]:
        """What a memory replaced and what replaced it, along SUPERSEDES (a slot's versions, or inferred from
        plain text — with the cue, the model's confidence and the transform that inferred it), oldest first:
        ``{"id", "memories": [{id, text, at, relation, steps, edges}]}``."""
        check_string(memory_id, field="id", max_len=MAX_ID)
        check_int(depth, field="depth", lo=1, hi=5, what="steps")
        self._ready(model=False)
        rows = self.store.read("memory/lineage", tenant=self.tenant, id=memory_id, depth=depth)
        if not rows:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in tenant '{self.tenant}'", fix="check the id (and --tenant)"
            )
        return {"id": memory_id, "memories": rows}

    def neighbourhood(self, memory_id: str, *, limit: int = DEFAULT_NEIGHBOURS) -> Neighbourhood:
        """A memory and what is next to it in the graph, in one read: its causes and effects (CAUSED_BY both
        ways, with ``inferred`` and ``confidence``), what it superseded and what superseded it (SUPERSEDES, one
        step, with ``by`` and ``cue``), the memories before and after it in its stream (NEXT), the entities it
        mentions and the memory it is a part of (a document). Each list holds at most ``limit`` (1 to
        500); ``counts`` has the full numbers. :class:`NotFoundError` for an unknown id."""
        check_string(memory_id, field="id", max_len=MAX_ID)
        check_int(limit, field="limit", lo=1, hi=MAX_NEIGHBOURS, what="memories in each list")
        self._ready(model=False)
        rows = self.store.read("memory/neighbourhood", tenant=self.tenant, id=memory_id, limit=limit)
        if not rows:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in tenant '{self.tenant}'", fix="check the id (and --tenant)"
            )
        r = rows[0]
        return Neighbourhood(
            memory=Memory.from_row(r),
            causes=r["causes"],
            effects=r["effects"],
            supersedes=r["supersedes"],
            superseded_by=r["superseded_by"],
            previous=r["previous"],
            next=r["next"],
            entities=r["entities"],
            part_of=r["part_of"],
            counts=r["counts"],
        )

    def mentions(self, entity: str, *, limit: int = DEFAULT_MENTIONS) -> Mentions:
        """The memories that mention an entity, newest first (valid time), at most ``limit`` (1 to 1000), with
        the entity's stored name, its aliases and how many memories mention it in all (``total``). The name is
        compared by its key (:func:`kgmem.normalize.entity_key`: case, Latin accents, punctuation and a leading
        article do not matter). When nothing mentions it the list is empty and ``hint`` says so."""
        check_string(entity, field="entity", max_len=MAX_ENTITY_NAME)
        check_int(limit, field="limit", lo=1, hi=MAX_MENTIONS, what="memories")
        key = entity_key(entity)
        if not key:
            raise InputError(
                f"'{entity.strip()}' has no letters or digits to compare", field="entity", fix="name it, e.g. maya"
            )
        self._ready(model=False)
        rows = self.store.read("memory/mentions", tenant=self.tenant, key=key, limit=limit)
        if not rows:
            hint = self.empty_tenant_hint() or f"no memory of tenant '{self.tenant}' mentions '{key}'"
            return Mentions(entity, key, None, [], 0, [], hint=hint)
        r = rows[0]
        memories = [Memory.from_row(m) for m in r["memories"]]
        return Mentions(entity, key, r["name"], list(r["aliases"]), r["total"], memories)

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
        """Hybrid recall: filters first, then the channels fused by RRF (see docs/how-it-works.md, "Reading").

        ``at`` answers as of that time (versions valid then). A time phrase in the question is measured from
        ``now`` (default: ``at``, else the current time) and, by the rule of ``time_filters="auto"`` (True),
        is a hard window when it asks for memories of a period ("what did we discuss last week", "in the last
        7 days") and a ranking signal otherwise ("in August", "4 years ago", any phrase in a when-question);
        a window that holds nothing eligible is dropped and says so in ``reason``. ``"filter"`` / ``"rank"``
        force one use, False ignores phrases. Explicit ``since``/``until``/``at`` are always hard filters.
        The result may abstain. ``channels`` (default: ``kgmem.query.recall.DEFAULT_CHANNELS``, all of
        ``CHANNELS``) runs only the named channels (one name or several). For a why-question (:func:`asks_why`)
        that recall answers (does not abstain), the hit that states the cause ``why`` reads from the same hits
        comes first (:func:`kgmem.query.walks.cause_first`; ``explain["cause_first"]`` names it, or is None).
        """
        from ..query.abstain import AbstainPolicy
        from ..query.filters import build_filters
        from ..query.recall import DEFAULT_CHANNELS, RecallOptions
        from ..query.recall import recall as _recall

        check_query(query)
        if user is not None:
            user = check_user(user)
        check_int(expand, field="expand", lo=0, hi=MAX_EXPAND, what="neighbours on each side")
        self._prefetch_embedder()  # loads while the filters are built and the first statements wait
        names = DEFAULT_CHANNELS if channels is None else tuple([channels] if isinstance(channels, str) else channels)
        opts = RecallOptions(k=k, rrf_k=rrf_k, expand=expand, channels=names, policy=policy or AbstainPolicy())
        filters, text = build_filters(
            query,
            tenant=self.tenant,
            user=user,
            at=optional_time(at, "at"),
            since=optional_time(since, "since"),
            until=optional_time(until, "until"),
            include_superseded=include_superseded,
            kinds=tuple(kinds) if kinds else None,
            now=optional_time(now, "now"),
            time_phrases=time_mode(time_filters),
        )
        version = self._ready()  # the tenant's version when this was the connection's first read of it
        res = _recall(self.store, self.embedder, query, filters, text, opts, explain=explain, tenant_version=version)
        if res.hits and not res.abstained and asks_why(query):
            from ..query.walks import cause_first

            moved = cause_first(self.store, self.embedder, res, filters)
            if res.explain is not None:
                res.explain["cause_first"] = moved
        if res.abstained and not res.hits:
            res.reason = _with_hint(res.reason, self.empty_tenant_hint())
        return res

    def why(
        self,
        query: str,
        k: int = DEFAULT_ROOTS,
        *,
        at: Any = None,
        max_depth: int = DEFAULT_WHY_DEPTH,
        min_confidence: float = 0.0,
        now: Any = None,
        time_filters: bool | str = False,
        explain: bool = False,
        policy: AbstainPolicy | None = None,
    ) -> Why:
        """Why did something happen: find the symptom, walk CAUSED_BY to the roots (best first).

        Abstains when no memory matches confidently or the best match has no recorded cause. Time phrases
        ("on Friday") help rank the symptom but are not hard filters unless ``time_filters`` is set: an
        incident's "Friday" is rarely the Friday before today.
        """
        from ..query import walks as _walks
        from ..query.filters import build_filters

        check_query(query, example="why did checkout crash?")
        self._prefetch_embedder()  # loads while the filters are built and the first statements wait
        mode = "filter" if time_filters is True else "rank" if time_filters is False else time_mode(time_filters)
        filters, text = build_filters(
            query, tenant=self.tenant, at=optional_time(at, "at"), now=optional_time(now, "now"), time_phrases=mode
        )
        opts = _walks.symptom_options(policy)
        self._ready()
        res = _walks.why(
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
        if res.abstained and res.symptom is None:
            res.reason = _with_hint(res.reason, self.empty_tenant_hint())
        return res

    def timeline(
        self, memory_id: str, *, before: int = DEFAULT_AROUND, after: int = DEFAULT_AROUND
    ) -> list[dict[str, Any]]:
        """What happened before and after a memory (its stream, else nearest in time)."""
        from ..query import walks as _walks

        for name, value in (("before", before), ("after", after)):
            check_int(value, field=name, lo=0, hi=MAX_AROUND, what="memories")
        check_string(memory_id, field="id", max_len=MAX_ID)
        self._ready()
        rows = _walks.timeline(self.store, self.tenant, memory_id, before=before, after=after)
        if not rows:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in tenant '{self.tenant}'", fix="check the id (and --tenant)"
            )
        return rows

    def ask(self, question: str, *, now: Any = None, user: str | None = None) -> AskResult:
        """Route a question with the learned router (slot, recall, why, history, none) and answer it with that
        operation (:func:`kgmem.query.ask.answer`)."""
        from ..query.ask import Answering, answer

        check_query(question, field="question", example="where does Maya live?")
        return answer(
            cast(Answering, self),
            question,
            now=optional_time(now, "now"),
            user=None if user is None else check_user(user),
        )

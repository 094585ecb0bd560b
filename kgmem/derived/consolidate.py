"""Consolidation: the background compaction pass over a tenant's memories. No LLM; deterministic.

One run (``consolidate``) does four things, and records itself as a ``:ConsolidationRun``:

1. **Slot chains** — every slot's version chain is rebuilt from valid time (``ingest/relink_slots``), so
   versions that arrived without order (imports, late batches) supersede each other as they should.
2. **Pattern summaries** — ≥ ``min_cluster`` episodes of one user that all mention one same entity (or all
   mention none; extraction adds noise like a sentence-initial "Team", so not the identical set), are
   pairwise similar (cosine ≥ ``pattern_threshold``) and happen with a regularity (mostly on one weekday,
   or at a steady interval) become one ``:Memory:Summary`` (origin ``consolidated``, transform
   ``summary/v1``): "Ordered thai food from Bangkok Kitchen — on Fridays, 8 times 2026-01-09–2026-03-06",
   with ``DERIVED_FROM`` to every source and MENTIONS of the shared entities. The sources stay and stay
   visible: they are distinct occurrences (and are therefore never merged as duplicates).
3. **Merges of near-duplicates** — current record memories (episodes, recorded summaries) of one user and
   kind that mention exactly the same entities ("error zx9q" and "error zx9p" are not duplicates, however
   close their vectors) and are pairwise similar (cosine ≥ ``threshold``) and are not part
   of a pattern or of a causal link. The canonical memory is a *new derived node* (origin
   ``consolidated``, transform ``merge/v1``, same kind) carrying the **earliest** source's text, time and
   user, with ``DERIVED_FROM`` to every source; each source gets ``merged_into = <merge id>`` and drops out
   of recall (the recall filter ``merged_into IS NULL``). Sources are never modified otherwise
   (append-only); lineage stays one-directional (derived → record). Facts are never merged: facts in one
   slot are versions of it, and the slot chain (step 1) already keeps exactly one current — a restated
   value simply becomes the current version, the older statement its history.
4. **Co-occurrence** — ``(:Entity)-[:CO_OCCURS {weight, count, updated}]->(:Entity)`` (stored once, from the
   smaller key) from record memories that mention both: each run multiplies every weight by ``decay``
   (never below ``floor``) and adds what the pair's count grew by since the last run.

The consolidated layer is a function of the records and the params: each run computes the desired set of
merges and summaries from scratch and reconciles (creates the missing, removes the obsolete). Ids are
hashes of the sorted source ids (``merge-…``/``summary-…``), so the same sources give the same id in a
later run, after a rebuild or an export/import. A consolidated id that was forgotten (tombstoned) is not
derived again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import statistics
import uuid
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterable, Sequence

import numpy as np

from ..embed import Embedder
from ..errors import InputError
from ..keys import canonical_json, sha256_hex
from ..store import Store, Tx

TRANSFORM_SUMMARY = "summary/v1"
TRANSFORM_MERGE = "merge/v1"
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_CHUNK = 1024


@dataclass(frozen=True)
class ConsolidationParams:
    threshold: float = 0.92  # near-duplicate merge: pairwise cosine at least this
    min_cluster: int = 4  # pattern summary: at least this many occurrences (distinct days)
    pattern_threshold: float = 0.70  # pattern summary: pairwise cosine at least this
    weekday_share: float = 0.75  # "on Fridays": at least this share of the occurrences on one weekday
    interval_tolerance: float = 0.25  # "every 7 days": every gap within ±25 % (or ±1 day) of the median gap
    decay: float = 0.95  # co-occurrence weight × decay per run
    floor: float = 0.1  # ... never below floor

    def __post_init__(self) -> None:
        for name in ("threshold", "pattern_threshold", "weekday_share", "decay"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v <= 1:
                raise InputError(
                    f"must be a number in (0, 1], got {v!r}", field=name, fix=f"give {name} as a number like 0.9"
                )
        if not isinstance(self.min_cluster, int) or isinstance(self.min_cluster, bool) or self.min_cluster < 2:
            raise InputError(
                f"must be an integer ≥ 2, got {self.min_cluster!r}",
                field="min_cluster",
                fix="give min_cluster as 2 or more",
            )
        for name in ("interval_tolerance", "floor"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                raise InputError(f"must be a number ≥ 0, got {v!r}", field=name, fix=f"give {name} as 0 or more")

    @classmethod
    def from_kwargs(cls, **params: Any) -> ConsolidationParams:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise InputError(f"unknown consolidation parameter(s) {unknown}", fix=f"use {', '.join(sorted(known))}")
        return cls(**{k: v for k, v in params.items() if v is not None})

    @classmethod
    def from_json(cls, text: str | None) -> ConsolidationParams:
        if not text:
            return cls()
        try:
            data = json.loads(text)
        except ValueError:
            return cls()
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


@dataclass
class Candidate:
    """A record memory as consolidation sees it."""

    id: str
    text: str
    at: dt.datetime
    kind: str
    user: str | None
    valid_to: dt.datetime | None
    causal: bool
    entities: tuple[str, ...]
    vec: np.ndarray | None

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> Candidate:
        emb = r.get("embedding")
        return cls(
            id=r["id"],
            text=r["text"],
            at=r["at"],
            kind=r["kind"],
            user=r.get("user"),
            valid_to=r.get("valid_to"),
            causal=bool(r.get("causal")),
            entities=tuple(r.get("entities") or ()),
            vec=None if emb is None else np.asarray(emb, dtype=np.float32),
        )


@dataclass
class Derived:
    """A consolidated memory to write: a merge or a pattern summary."""

    id: str
    transform: str
    kind: str
    text: str
    at: dt.datetime
    user: str | None
    sources: tuple[str, ...]  # sorted ids
    entities: tuple[str, ...]
    first_at: dt.datetime
    last_at: dt.datetime
    occurrences: int
    pattern: str | None = None
    weekday: str | None = None
    interval_days: int | None = None
    content_key: str = field(default="")

    def __post_init__(self) -> None:
        if not self.content_key:
            self.content_key = sha256_hex(
                canonical_json({"transform": self.transform, "sources": list(self.sources), "text": self.text})
            )

    def row(self, embedding: Sequence[float]) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "kind": self.kind,
            "at": self.at,
            "user": self.user,
            "content_key": self.content_key,
            "transform": self.transform,
            "sources": list(self.sources),
            "entities": list(self.entities),
            "first_at": self.first_at,
            "last_at": self.last_at,
            "occurrences": self.occurrences,
            "pattern": self.pattern,
            "weekday": self.weekday,
            "interval_days": self.interval_days,
            "embedding": list(embedding),
        }

    def brief(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "transform": self.transform,
            "kind": self.kind,
            "text": self.text,
            "sources": list(self.sources),
        }


def derived_id(transform: str, sources: Iterable[str]) -> str:
    prefix = "merge" if transform == TRANSFORM_MERGE else "summary"
    digest = hashlib.sha256("\x1f".join([transform, *sorted(sources)]).encode("utf-8")).hexdigest()[:16]
    return f"{prefix}-{digest}"


# ---------------------------------------------------------------------------- pure planning


def _stack(items: list[Candidate]) -> np.ndarray:
    """The candidates' vectors as the rows of a matrix (callers pass only candidates that have one)."""
    vecs = [c.vec for c in items if c.vec is not None]
    assert len(vecs) == len(items), "a candidate without a vector"
    return np.stack(vecs)


def _cliques(items: list[Candidate], threshold: float, *, shared_entity: bool = False) -> list[list[Candidate]]:
    """Greedy complete-linkage clusters in (at, id) order: each member is within ``threshold`` of all others.
    ``shared_entity``: the members must also all mention at least one common entity (or all mention none)."""
    items = [c for c in items if c.vec is not None]
    if len(items) < 2:
        return [[c] for c in items]
    items.sort(key=lambda c: (c.at, c.id))
    mat = _stack(items)
    adj: list[set[int]] = [set() for _ in items]
    for start in range(0, len(items), _CHUNK):
        sims = mat[start : start + _CHUNK] @ mat.T
        rows, cols = np.nonzero(sims >= threshold)
        for i, j in zip(rows.tolist(), cols.tolist()):
            if start + i != j:
                adj[start + i].add(j)
    assigned = [False] * len(items)
    out: list[list[Candidate]] = []
    for i in range(len(items)):
        if assigned[i]:
            continue
        members = [i]
        common = set(items[i].entities)
        assigned[i] = True
        for j in sorted(adj[i]):
            if assigned[j] or not all(j in adj[m] for m in members):
                continue
            if shared_entity:
                ents = set(items[j].entities)
                if common or ents:
                    if not common & ents:
                        continue
                    common &= ents
            members.append(j)
            assigned[j] = True
        out.append([items[m] for m in members])
    return out


def detect_pattern(
    ats: Sequence[dt.datetime], params: ConsolidationParams
) -> tuple[str, str | None, int | None] | None:
    """('weekday', 'Friday', None) or ('interval', None, 7) when the times are regular, else None."""
    days = sorted({a.astimezone(dt.timezone.utc).date() for a in ats})
    if len(days) < params.min_cluster:
        return None
    counts = Counter(d.weekday() for d in days)
    top, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if n / len(days) >= params.weekday_share and (days[-1] - days[0]).days >= 7:
        return "weekday", WEEKDAYS[top], None
    gaps = [(b - a).days for a, b in zip(days, days[1:])]
    med = statistics.median(gaps)
    if med >= 1 and all(abs(g - med) <= max(1.0, params.interval_tolerance * med) for g in gaps):
        return "interval", None, int(round(med))
    return None


def _medoid(members: list[Candidate]) -> Candidate:
    if len(members) <= 2:
        return members[0]
    mat = _stack(members)
    score = (mat @ mat.T).sum(axis=1)
    best = max(range(len(members)), key=lambda i: (round(float(score[i]), 4), -i))
    return members[best]


def _common_user(members: list[Candidate]) -> str | None:
    users = {m.user for m in members}
    return users.pop() if len(users) == 1 else None


def summary_of(members: list[Candidate], params: ConsolidationParams) -> Derived | None:
    """A pattern summary of the members, or None when they are too few or not regular."""
    if not members or any(m.vec is None for m in members):
        return None
    members = sorted(members, key=lambda c: (c.at, c.id))
    found = detect_pattern([m.at for m in members], params)
    if found is None:
        return None
    pattern, weekday, interval = found
    core = _medoid(members).text.strip().rstrip(".!;,: ").strip()
    if pattern == "weekday":
        when = f"on {weekday}s"
    elif interval == 1:
        when = "every day"
    else:
        when = f"every {interval} days"
    first, last = members[0].at, members[-1].at
    text = f"{core} — {when}, {len(members)} times {first:%Y-%m-%d}–{last:%Y-%m-%d}"
    sources = tuple(sorted(m.id for m in members))
    shared = set(members[0].entities).intersection(*(m.entities for m in members[1:]))
    if any(m.entities for m in members) and not shared:
        return None  # the members do not mention one same entity
    return Derived(
        id=derived_id(TRANSFORM_SUMMARY, sources),
        transform=TRANSFORM_SUMMARY,
        kind="summary",
        text=text,
        at=last,
        user=_common_user(members),
        sources=sources,
        entities=tuple(sorted(shared)),
        first_at=first,
        last_at=last,
        occurrences=len(members),
        pattern=pattern,
        weekday=weekday,
        interval_days=interval,
    )


def merge_of(members: list[Candidate]) -> Derived | None:
    """The canonical memory of near-duplicates: the earliest source's text, time and user (None for < 2)."""
    if len(members) < 2:
        return None
    members = sorted(members, key=lambda c: (c.at, c.id))
    first = members[0]
    sources = tuple(sorted(m.id for m in members))
    return Derived(
        id=derived_id(TRANSFORM_MERGE, sources),
        transform=TRANSFORM_MERGE,
        kind=first.kind,
        text=first.text,
        at=first.at,
        user=first.user,
        sources=sources,
        entities=first.entities,
        first_at=first.at,
        last_at=members[-1].at,
        occurrences=len(members),
    )


def plan(candidates: list[Candidate], params: ConsolidationParams) -> list[Derived]:
    """The consolidated memories the candidates call for: pattern summaries first, then merges (pure)."""
    out: list[Derived] = []
    patterned: set[str] = set()
    by_user: dict[tuple[str], list[Candidate]] = defaultdict(list)
    for c in candidates:
        if c.kind == "episode" and c.vec is not None:
            by_user[(c.user or "",)].append(c)
    for key in sorted(by_user):
        for cluster in _cliques(by_user[key], params.pattern_threshold, shared_entity=True):
            if len(cluster) < params.min_cluster:
                continue
            summary = summary_of(cluster, params)
            if summary is not None:
                out.append(summary)
                patterned.update(summary.sources)
    alike: dict[tuple[str, str, tuple[str, ...]], list[Candidate]] = defaultdict(list)  # kind, user, entities
    for c in candidates:
        if c.id in patterned or c.causal or c.valid_to is not None or c.vec is None:
            continue
        alike[(c.kind, c.user or "", c.entities)].append(c)
    for shape in sorted(alike):
        for cluster in _cliques(alike[shape], params.threshold):
            merged = merge_of(cluster)
            if merged is not None:
                out.append(merged)
    return sorted(out, key=lambda d: d.id)


def rederive(transform: str, remaining: list[Candidate], params: ConsolidationParams) -> Derived | None:
    """Derive a consolidated memory again from the sources it has left (after some were forgotten): the same
    rules as a run — a merge needs two sources, a summary a pattern of ``min_cluster`` occurrences."""
    if transform == TRANSFORM_MERGE:
        return merge_of(remaining)
    if transform == TRANSFORM_SUMMARY:
        return summary_of(remaining, params)
    return None


# ---------------------------------------------------------------------------- store side


def load_candidates(store: Store, tenant: str, ids: Sequence[str] | None = None) -> list[Candidate]:
    rows = store.read("lifecycle/candidates", tenant=tenant, ids=None if ids is None else list(ids))
    return [Candidate.from_row(r) for r in rows]


def latest_params(store: Store, tenant: str) -> ConsolidationParams:
    """The params of the tenant's last consolidation run (defaults when it never ran)."""
    rows = store.read("lifecycle/latest_run", tenant=tenant)
    return ConsolidationParams.from_json(rows[0]["params"] if rows else None)


def has_run(store: Store, tenant: str) -> bool:
    return bool(store.read("lifecycle/latest_run", tenant=tenant))


def tombstoned(store: Store, tenant: str, ids: Sequence[str]) -> set[str]:
    if not ids:
        return set()
    rows = store.read("lifecycle/tombstones_for", tenant=tenant, ids=list(ids), content_keys=[])
    return {r["id"] for r in rows if r["matched"] == "id"}


def embed_rows(embedder: Embedder, derived: Sequence[Derived]) -> list[dict[str, Any]]:
    if not derived:
        return []
    texts = list(dict.fromkeys(d.text for d in derived))
    vectors = dict(zip(texts, embedder.encode(texts)))
    return [d.row(vectors[d.text].tolist()) for d in derived]


def write_derived(tx: Tx, tenant: str, rows: list[dict[str, Any]], recorded_at: dt.datetime, model_id: str) -> int:
    if not rows:
        return 0
    written: int = tx.run(
        "lifecycle/write_consolidated", tenant=tenant, recorded_at=recorded_at, embedding_model=model_id, rows=rows
    )[0]["written"]
    return written


def all_slots(store: Store, tenant: str) -> list[str]:
    return [r["slot"] for r in store.read("lifecycle/slots", tenant=tenant)]


def relink_all_slots(tx: Tx, tenant: str, slots: list[str]) -> int:
    superseded = 0
    for i in range(0, len(slots), 2000):
        part = slots[i : i + 2000]
        superseded += tx.run("ingest/relink_slots", tenant=tenant, slots=part)[0]["superseded"] or 0
        tx.run("ingest/refresh_episode_validity", tenant=tenant, slots=part)
    return superseded


@dataclass
class Reconciliation:
    create: list[Derived]
    remove: list[dict[str, Any]]  # existing consolidated rows: id, transform, sources
    keep: int

    def counts(self) -> dict[str, Any]:
        c = Counter(d.transform for d in self.create)
        r = Counter(x["transform"] for x in self.remove)
        return {
            "merges_created": c[TRANSFORM_MERGE],
            "merges_removed": r[TRANSFORM_MERGE],
            "merged_sources": sum(len(d.sources) for d in self.create if d.transform == TRANSFORM_MERGE),
            "summaries_created": c[TRANSFORM_SUMMARY],
            "summaries_removed": r[TRANSFORM_SUMMARY],
            "kept": self.keep,
        }


def reconcile(store: Store, tenant: str, params: ConsolidationParams) -> Reconciliation:
    """What the consolidated layer should become (desired from the records vs what is stored)."""
    desired = {d.id: d for d in plan(load_candidates(store, tenant), params)}
    blocked = tombstoned(store, tenant, sorted(desired))
    desired = {k: v for k, v in desired.items() if k not in blocked}
    existing = {r["id"]: r for r in store.read("lifecycle/consolidated", tenant=tenant, ids=None)}
    create = [desired[k] for k in sorted(desired) if k not in existing]
    remove = [existing[k] for k in sorted(existing) if k not in desired]
    return Reconciliation(create, remove, keep=len(set(desired) & set(existing)))


def apply_reconciliation(
    tx: Tx, tenant: str, rec: Reconciliation, rows: list[dict[str, Any]], recorded_at: dt.datetime, model_id: str
) -> None:
    if rec.remove:
        tx.run("lifecycle/delete_consolidated", tenant=tenant, ids=[r["id"] for r in rec.remove])
    write_derived(tx, tenant, rows, recorded_at, model_id)


def consolidate(
    store: Store,
    embedder: Embedder,
    tenant: str,
    params: ConsolidationParams | None = None,
    *,
    dry_run: bool = False,
    now: dt.datetime | None = None,
) -> dict[str, Any]:
    """One consolidation run (see the module doc). ``dry_run`` computes and returns the plan, writes nothing."""
    params = params or ConsolidationParams()
    now = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    slots = all_slots(store, tenant)
    if dry_run:
        superseded = (
            sum(
                (
                    store.dry_run("ingest/relink_slots", {"tenant": tenant, "slots": slots[i : i + 2000]})[0][
                        "superseded"
                    ]
                    or 0
                )
                for i in range(0, len(slots), 2000)
            )
            if slots
            else 0
        )
    else:
        superseded = store.write_tx(lambda tx: relink_all_slots(tx, tenant, slots)) if slots else 0
    rec = reconcile(store, tenant, params)
    counts = rec.counts()
    plan_out = [{"action": "create", **d.brief()} for d in rec.create] + [
        {
            "action": "remove",
            "id": r["id"],
            "transform": r["transform"],
            "kind": r["kind"],
            "text": r["text"],
            "sources": r["sources"],
        }
        for r in rec.remove
    ]
    if dry_run:
        cooc = store.dry_run("lifecycle/cooc_reinforce", {"tenant": tenant, "now": now})[0]
        decayed = store.dry_run(
            "lifecycle/cooc_decay", {"tenant": tenant, "decay": params.decay, "floor": params.floor, "now": now}
        )[0]["decayed"]
        return {
            "dry_run": True,
            "run_id": None,
            "at": now,
            "superseded": superseded,
            **counts,
            "co_occurrence": {
                "decayed": decayed,
                "created": cooc["created"],
                "reinforced": cooc["reinforced"],
                "pairs": cooc["pairs"],
            },
            "plan": plan_out,
            "params": params.to_dict(),
        }

    rows = embed_rows(embedder, rec.create)
    run_id = f"run-{now:%Y%m%dT%H%M%S%fZ}-{uuid.uuid4().hex[:6]}"

    def work(tx: Tx) -> dict[str, Any]:
        apply_reconciliation(tx, tenant, rec, rows, now, embedder.model_id)
        decayed = tx.run("lifecycle/cooc_decay", tenant=tenant, decay=params.decay, floor=params.floor, now=now)[0][
            "decayed"
        ]
        cooc = tx.run("lifecycle/cooc_reinforce", tenant=tenant, now=now)[0]
        cooc_counts = {
            "decayed": decayed,
            "created": cooc["created"],
            "reinforced": cooc["reinforced"],
            "pairs": cooc["pairs"],
        }
        run = {
            "id": run_id,
            "at": now,
            "superseded": superseded,
            **counts,
            **{f"cooc_{k}": v for k, v in cooc_counts.items()},
            "params": params.to_json(),
        }
        tx.run("lifecycle/write_run", tenant=tenant, run=run)
        return cooc_counts

    cooc_counts = store.write_tx(work)
    return {
        "dry_run": False,
        "run_id": run_id,
        "at": now,
        "superseded": superseded,
        **counts,
        "co_occurrence": cooc_counts,
        "plan": plan_out,
        "params": params.to_dict(),
    }


def rederive_consolidated(store: Store, tenant: str) -> tuple[Reconciliation, ConsolidationParams] | None:
    """For rebuild: the consolidated layer as the last run's params make it (None when no run ever happened)."""
    if not has_run(store, tenant):
        return None
    params = latest_params(store, tenant)
    return reconcile(store, tenant, params), params


def co_occurring(store: Store, tenant: str, keys: Iterable[str], limit: int = 20) -> list[dict[str, Any]]:
    """Entities co-occurring with any of ``keys``, strongest first: key, name, weight, count, via."""
    if isinstance(keys, str):
        keys = [keys]
    keys = sorted({k for k in keys if isinstance(k, str) and k})
    if not keys:
        return []
    if not isinstance(limit, int) or limit < 1:
        raise InputError(f"must be a positive integer, got {limit!r}", field="limit", fix="ask for 1 or more")
    rows = store.read("lifecycle/co_occurring", tenant=tenant, keys=keys, limit=limit)
    return [
        {
            "key": r["key"],
            "name": r["name"],
            "weight": round(float(r["weight"]), 6),
            "count": r["count"],
            "via": sorted(r["via"]),
        }
        for r in rows
    ]

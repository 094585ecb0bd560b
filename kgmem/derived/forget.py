"""Forgetting that propagates through lineage.

``forget_ids`` removes memories and everything that only existed because of them, in one write
transaction:

* **derived from it** — facts compiled from it (``DERIVED_FROM {transform: 'compiler/v1'}``) and any other
  non-consolidated derivative are deleted too (recursively). Consolidated memories (merges, pattern
  summaries) are *re-derived* from the sources they have left, with the same rules as a consolidation run
  (a merge needs two sources, a summary a regular pattern of ``min_cluster`` occurrences); otherwise they
  are removed — always when no source remains. A merge dissolved this way releases its last source
  (``merged_into`` is cleared) so it shows up in recall again.
* **slot chains** of the deleted facts are rebuilt (``ingest/relink_slots``): the previous version becomes
  current again, and the episodes whose facts changed get their ``valid_to`` refreshed.
* **NEXT chains** are re-spliced: the predecessor of a deleted memory links to its successor.
* **entities** it mentioned that no memory mentions any more are deleted; co-occurrence edges of the
  entities it mentioned are recounted (an edge without evidence left is removed).
* **causal links** to and from it go with it; memories that named it as their cause get their inferred
  causes inferred again (after the transaction).
* a ``:Tombstone {tenant, id, content_key, forgotten_at, reason}`` (no content) records each memory that
  was asked to be forgotten (not what was only derived from it). Ingest refuses a tombstoned id or content
  key unless forced (``lifecycle/tombstones_for``); rebuild and consolidation never derive a tombstoned id.

Forgetting a consolidated memory itself deletes it (releasing a merge's sources) and tombstones its id, so
later runs do not derive it again.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any, Sequence

from ..embed import Embedder
from ..errors import InputError, NotFoundError
from ..results import iso
from ..store import Store, Tx
from . import causal, context
from . import consolidate as cons


def _targets(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for i in range(0, len(ids), 2000):
        for r in store.read("lifecycle/forget_targets", tenant=tenant, ids=list(ids[i : i + 2000])):
            out[r["id"]] = r
    return out


def plan_forget(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, Any]:
    """The closure of a forget: what is deleted, what is re-derived, which chains and entities are touched."""
    rows = _targets(store, tenant, list(dict.fromkeys(ids)))
    delete: dict[str, dict[str, Any]] = dict(rows)
    frontier = list(rows.values())
    consolidated: set[str] = set()
    while frontier:
        nxt: list[str] = []
        for row in frontier:
            for dep in row["dependents"]:
                if dep["id"] in delete:
                    continue
                if dep["origin"] == "consolidated":
                    consolidated.add(dep["id"])
                else:  # compiled facts and any other derivative without a re-derivation rule
                    nxt.append(dep["id"])
        frontier = list(_targets(store, tenant, sorted(set(nxt))).values()) if nxt else []
        for r in frontier:
            delete[r["id"]] = r
    consolidated -= set(delete)
    return {"rows": rows, "delete": delete, "rederive": sorted(consolidated)}


def forget_ids(
    store: Store,
    embedder: Embedder,
    tenant: str,
    ids: Sequence[str],
    *,
    reason: str = "forget",
    now: dt.datetime | None = None,
    missing_ok: bool = False,
) -> dict[str, Any]:
    """Forget memories by id with full propagation (see the module doc). Returns a report."""
    now = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    ids = [i for i in dict.fromkeys(ids)]
    for i in ids:
        if not isinstance(i, str) or not i.strip():
            raise InputError("must be a non-empty string", field="id", fix="give the id of a memory")
    p = plan_forget(store, tenant, ids)
    missing = [i for i in ids if i not in p["rows"]]
    if missing and not missing_ok:
        gone = store.read("lifecycle/tombstones_for", tenant=tenant, ids=missing[:1], content_keys=[])
        if gone:
            raise NotFoundError(
                f"memory '{missing[0]}' was already forgotten (at {iso(gone[0]['forgotten_at'])}) in tenant '{tenant}'",
                fix="nothing to do; its tombstone remains",
            )
        raise NotFoundError(f"no memory with id '{missing[0]}' in tenant '{tenant}'", fix="check the id (and --tenant)")
    delete: dict[str, dict[str, Any]] = p["delete"]
    if not delete:
        return _report(ids, [], [], [], {}, 0, 0, 0, 0)

    # consolidated memories to re-derive: their sources minus everything deleted
    params = cons.latest_params(store, tenant)
    existing = store.read("lifecycle/consolidated", tenant=tenant, ids=p["rederive"]) if p["rederive"] else []
    remaining_ids = sorted({s for r in existing for s in r["sources"] if s not in delete})
    cands = {c.id: c for c in cons.load_candidates(store, tenant, remaining_ids)} if remaining_ids else {}
    new: list[cons.Derived] = []
    for r in existing:
        d = cons.rederive(r["transform"], [cands[s] for s in r["sources"] if s in cands], params)
        if d is not None:  # the old node is deleted first, so even an unchanged id is written afresh
            new.append(d)
    blocked = cons.tombstoned(store, tenant, [d.id for d in new])
    new = [d for d in {d.id: d for d in new}.values() if d.id not in blocked]
    rows = cons.embed_rows(embedder, new)

    consolidated_targets = [i for i, r in delete.items() if r["origin"] == "consolidated"]
    plain = [i for i, r in delete.items() if r["origin"] != "consolidated"]
    slots = sorted({r["slot"] for r in delete.values() if r["slot"]})
    streams: dict[str, dt.datetime] = {}
    for r in delete.values():
        if r["stream"] and r["at"] is not None and (r["stream"] not in streams or r["at"] < streams[r["stream"]]):
            streams[r["stream"]] = r["at"]
    refresh = sorted({s for r in delete.values() if r["origin"] == "compiled" for s in r["sources"]} - set(delete))
    entity_keys = sorted({k for r in delete.values() for k in r["entities"]})
    effects = sorted({e for r in delete.values() for e in r["effects"]} - set(delete))
    # the memories asked for leave tombstones; what was only derived from them does not (a forced re-ingest
    # of the record derives it again, and rebuild must not be blocked from doing the same)
    tombstones = [
        {"id": i, "content_key": r["content_key"], "forgotten_at": now, "reason": reason}
        for i, r in sorted(p["rows"].items())
    ]
    # stream neighbours whose derived context holds a forgotten text: recomputed in the same transaction
    neighbours = [i for i in context.affected(store, tenant, sorted(delete)) if i not in delete]

    def work(tx: Tx) -> dict[str, Any]:
        out = defaultdict(int)
        gone = [r["id"] for r in existing] + consolidated_targets
        if gone:
            out["consolidated_removed"] = tx.run("lifecycle/delete_consolidated", tenant=tenant, ids=gone)[0]["removed"]
        if plain:
            out["deleted"] = tx.run("lifecycle/delete_memories", tenant=tenant, ids=plain)[0]["deleted"]
        out["consolidated_created"] = cons.write_derived(tx, tenant, rows, now, embedder.model_id)
        if slots:
            out["superseded"] = tx.run("ingest/relink_slots", tenant=tenant, slots=slots)[0]["superseded"] or 0
            tx.run("ingest/refresh_episode_validity", tenant=tenant, slots=slots)
        if refresh:
            tx.run("lifecycle/refresh_validity", tenant=tenant, ids=refresh)
        if streams:
            out["next_created"] = (
                tx.run(
                    "ingest/relink_streams",
                    tenant=tenant,
                    streams=[{"stream": s, "from_at": at} for s, at in sorted(streams.items())],
                )[0]["next_created"]
                or 0
            )
        if neighbours:
            out["context_refreshed"] = context.refresh(tx, tenant, neighbours)
        if entity_keys:
            tx.run("lifecycle/cooc_recount", tenant=tenant, keys=entity_keys)
            out["entities_removed"] = tx.run("lifecycle/delete_orphan_entities", tenant=tenant, keys=entity_keys)[0][
                "removed"
            ]
        tx.run("lifecycle/write_tombstones", tenant=tenant, rows=tombstones)
        return dict(out)

    done = store.write_tx(work)
    reinferred = 0
    if effects:
        reinferred = causal.run(store, embedder, tenant, effects)
    return _report(
        ids,
        sorted(delete),
        [r["id"] for r in existing],
        [d.id for d in new],
        done,
        len(slots),
        len(tombstones),
        reinferred,
        len(effects),
        missing=missing,
    )


def _report(
    ids: Sequence[str],
    deleted: Sequence[str],
    rederived_from: Sequence[str],
    rederived_to: Sequence[str],
    done: dict[str, int],
    slots: int,
    tombstones: int,
    reinferred: int,
    effects: int,
    *,
    missing: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "ids": list(ids),
        "forgotten": list(deleted),
        "missing": list(missing),
        "consolidated": {"removed": list(rederived_from), "rederived": list(rederived_to)},
        "slots_relinked": slots,
        "entities_removed": done.get("entities_removed", 0),
        "tombstones": tombstones,
        "causes_reinferred": reinferred,
        "effects_checked": effects,
    }

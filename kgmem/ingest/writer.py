"""One batch of prepared rows → one write transaction (all of it lands, or none of it)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from ..store import Tx
from .prepare import Row


@dataclass
class BatchResult:
    written: int = 0
    superseded: int = 0
    edges: dict[str, int] = field(
        default_factory=lambda: {"caused_by": 0, "next": 0, "supersedes": 0, "mentions": 0, "derived_from": 0}
    )
    entities: int = 0


def entity_rows(rows: Sequence[Row]) -> list[dict[str, Any]]:
    by_key: dict[str, dict[str, Any]] = {}
    for row in rows:
        for key, name, name_like in row.entities:
            ent = by_key.setdefault(key, {"key": key, "name": name, "aliases": [], "memory_ids": [], "named": 0})
            ent["named"] += int(name_like)
            if name not in ent["aliases"]:
                ent["aliases"].append(name)
            ent["memory_ids"].append(row.id)
    return list(by_key.values())


def stream_rows(rows: Sequence[Row]) -> list[dict[str, Any]]:
    first: dict[str, dt.datetime] = {}
    for row in rows:
        if row.stream and (row.stream not in first or row.at < first[row.stream]):
            first[row.stream] = row.at
    return [{"stream": s, "from_at": at} for s, at in sorted(first.items())]


def write_batch(
    tx: Tx,
    *,
    tenant: str,
    recorded_at: dt.datetime,
    model_id: str,
    rows: Sequence[Row],
    vectors: Mapping[str, np.ndarray],
    causal_links: Sequence[dict[str, Any]],
    part_links: Sequence[dict[str, Any]] = (),
) -> BatchResult:
    """Write rows, lineage (compiled facts to their episode, parts to their whole: ``part_links``), entities and
    causal links, then rebuild the touched slot and stream chains."""
    res = BatchResult()
    if rows:
        out = tx.run(
            "ingest/write_memories",
            tenant=tenant,
            recorded_at=recorded_at,
            embedding_model=model_id,
            rows=[r.cypher_row(vectors[r.text].tolist()) for r in rows],
        )
        res.written = out[0]["written"]
    derived = [{"id": r.id, "source": r.derived_from, "transform": r.transform} for r in rows if r.derived_from]
    derived += list(part_links)
    if derived:
        res.edges["derived_from"] = link_derived(tx, tenant=tenant, links=derived)
    ents = entity_rows(rows)
    if ents:
        linked = tx.run("ingest/link_entities", tenant=tenant, recorded_at=recorded_at, entities=ents)[0]
        res.edges["mentions"] = linked["mentions"] or 0
        res.entities = linked["entities"] or 0
    if causal_links:
        res.edges["caused_by"] = tx.run("ingest/link_causes", tenant=tenant, links=list(causal_links))[0]["created"]
    slots = sorted({r.slot for r in rows if r.slot})
    if slots:
        relinked = tx.run("ingest/relink_slots", tenant=tenant, slots=slots)[0]
        res.superseded = relinked["superseded"] or 0
        res.edges["supersedes"] = relinked["edges_created"] or 0
        tx.run("ingest/refresh_episode_validity", tenant=tenant, slots=slots)
    streams = stream_rows(rows)
    if streams:
        res.edges["next"] = tx.run("ingest/relink_streams", tenant=tenant, streams=streams)[0]["next_created"] or 0
    return res


def link_causes(tx: Tx, *, tenant: str, links: Sequence[dict[str, Any]]) -> int:
    if not links:
        return 0
    created: int = tx.run("ingest/link_causes", tenant=tenant, links=list(links))[0]["created"]
    return created


def link_derived(tx: Tx, *, tenant: str, links: Sequence[dict[str, Any]]) -> int:
    """DERIVED_FROM {transform} edges (id → source), merged: a repeat creates nothing."""
    if not links:
        return 0
    created: int = tx.run("ingest/link_derived", tenant=tenant, links=list(links))[0]["created"]
    return created

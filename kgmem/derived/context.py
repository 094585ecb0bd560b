"""Memories read with their neighbours: the derived stream context (transform ``context/v1``).

A turn of a conversation often means little alone ("I loved it!") and a question is often answered by the
reply after the turn it matches. So every memory in a stream carries, beside its own text and vector:

A memory with no neighbour in its exchange reads as itself (own text and vector), so every memory is in every
context channel.

* ``context_text`` — the previous memory's text and its own (searched by the ``context_keyword`` channel);
* ``window_text`` — three memories before, itself, three after (the ``window_keyword`` channel);
* ``context_embedding`` — normalise(previous vector + own vector) (the ``context_vector`` channel);
* ``wide_embedding`` — normalise(previous + own + next vector) (the ``wide_vector`` channel).

Neighbours count while each NEXT step is at most an hour apart (``GAP_SECONDS``): the turns of one exchange,
not the entries of a ticket queue days apart (a memory with no such neighbour reads as itself).
The vectors are sums of the stored vectors, not new model calls, so ingest embeds each text once. All four
are derived: written after the episodes by :func:`refresh_for` (ingest, import), recomputed for every
streamed memory by :func:`rebuild`, and refreshed for the neighbours of a forgotten memory in the same
transaction that deletes it (so its text survives in no neighbour's context).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..store import Store, Tx

TRANSFORM_VERSION = "context/v1"
# the properties this layer writes on :Memory (derived: never exported, recomputed on import and rebuild)
PROPERTIES = ("context_text", "window_text", "context_embedding", "wide_embedding")
PREV_WEIGHT = 1.0  # plain sum: better than 0.5 on the development conversations
GAP_SECONDS = 3600  # neighbours further apart than this (per NEXT step) are not the same exchange
_CHUNK = 2000


def affected(store: Store, tenant: str, ids: Sequence[str]) -> list[str]:
    """The memories whose context includes one of ``ids`` (each streamed one and three either side)."""
    out: set[str] = set()
    for i in range(0, len(ids), _CHUNK):
        out.update(
            r["id"] for r in store.read("derived/context_affected", tenant=tenant, ids=list(ids[i : i + _CHUNK]))
        )
    return sorted(out)


def refresh(tx_or_store: Store | Tx, tenant: str, ids: Sequence[str]) -> int:
    """Recompute the context of exactly ``ids`` (in one transaction when given a :class:`Tx`)."""
    done = 0
    for i in range(0, len(ids), _CHUNK):
        chunk = list(ids[i : i + _CHUNK])
        if isinstance(tx_or_store, Tx):
            rows = tx_or_store.run(
                "derived/refresh_context", tenant=tenant, ids=chunk, prev_weight=PREV_WEIGHT, gap_seconds=GAP_SECONDS
            )
        else:
            rows = tx_or_store.write(
                "derived/refresh_context", tenant=tenant, ids=chunk, prev_weight=PREV_WEIGHT, gap_seconds=GAP_SECONDS
            )
        done += rows[0]["refreshed"]
    return done


def missing_among(store: Store, tenant: str, ids: Sequence[str]) -> list[str]:
    """Of ``ids`` and the memories derived from them, those without a context (read by id)."""
    out: set[str] = set()
    for i in range(0, len(ids), _CHUNK):
        out.update(store.read("derived/missing_context_of", tenant=tenant, ids=list(ids[i : i + _CHUNK]))[0]["ids"])
    return sorted(out)


def refresh_for(store: Store, tenant: str, written: Sequence[str], *, unchanged: Sequence[str] | None = None) -> int:
    """After a write: recompute the context of the written memories and of their stream neighbours, and add the
    context of what has none. An ingest passes its records already stored as ``unchanged``: then only the
    written and unchanged memories and the facts compiled from them are looked at (the records of a run killed
    between its write and this pass are among a re-run's unchanged), so an ingest costs what it writes; without
    it (forget, gc, consolidation write memories of their own), every memory of the tenant is."""
    ids = set(affected(store, tenant, written)) if written else set()
    if unchanged is None:
        ids.update(r["id"] for r in store.read("derived/missing_context", tenant=tenant))
    else:
        ids.update(missing_among(store, tenant, [*written, *unchanged]))
    return refresh(store, tenant, sorted(ids))


def rebuild(store: Store, tenant: str) -> int:
    """Recompute the context of every memory of the tenant (the records, then whatever has none)."""
    ids = {r["id"] for r in store.read("derived/memory_ids", tenant=tenant)}
    ids.update(r["id"] for r in store.read("derived/missing_context", tenant=tenant))
    return refresh(store, tenant, sorted(ids))

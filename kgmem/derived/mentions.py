"""Mentions that do not depend on arrival order: a name learned from a record (written like a name there) is
linked wherever the tenant's memories mention it, also in memories written before it was learned.

The write path links each record to the names in its own words and to the names the tenant already knew (or
that the same input teaches). What it cannot see is a name learned later: "checkout" in an old note, before a
later record wrote "Checkout" as a name. This pass, after the write, reads the entities the ingest created and
links every memory of the tenant whose text mentions one of them — found by the fulltext index, confirmed by the
write path's own matching (:func:`kgmem.ingest.entities.known_names_in`) — so one ingest of every record, the
same records in any other order or batches, and a crash re-run end with the same mentions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..ingest.entities import KnownNames, known_names_in
from ..normalize import entity_key
from ..query.lucene import escape, tenant_scope
from ..store import Store

LIMIT = 1000  # memories read per name (a name in more than this many was learned long before)
BATCH = 200  # names per statement


def link_learned(store: Store, tenant: str, recorded_at: dt.datetime) -> int:
    """Link the memories of ``tenant`` that mention an entity created by the ingest recorded at
    ``recorded_at``; returns how many MENTIONS were asked for (existing ones are kept, not doubled)."""
    entities = store.read("derived/new_entities", tenant=tenant, recorded_at=recorded_at)
    if not entities:
        return 0
    scope = tenant_scope(tenant)
    # the tenant's every known spelling, matched as the write path matches them (the longest first): a memory
    # mentions a new name only where the write path, knowing it, would have linked it
    known = KnownNames()
    for _key, name, aliases in store.read("ingest/known_entities", tenant=tenant)[0]["entities"]:
        for alias in (name, *(aliases or ())):
            known.add(alias, name)
    links: list[dict[str, Any]] = []
    for i in range(0, len(entities), BATCH):
        chunk = entities[i : i + BATCH]
        names = [{"key": e["key"], "lucene": f'+text:"{escape(e["name"])}"'} for e in chunk]
        by_key = {e["key"]: e for e in chunk}
        for row in store.read("derived/memories_naming", tenant=tenant, tenant_scope=scope, names=names, limit=LIMIT):
            e = by_key[row["key"]]
            for m in row["memories"]:
                if any(entity_key(n) == e["key"] for n in known_names_in(m["text"], known)):
                    links.append({"id": m["id"], "key": e["key"]})
    if links:
        store.write("lifecycle/link_mentions", tenant=tenant, links=links)
    return len(links)

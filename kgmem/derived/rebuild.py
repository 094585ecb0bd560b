"""Rebuild every derived artefact of a tenant from its record memories, and the manifest that proves it.

Sources (kept): the record memories (origin ``record``) with their properties, their explicit causal links
(``caused_by``), their entity links (MENTIONS of records: a record's explicit ``entities`` are not stored
on the node and extraction depends on the names known at ingest time, so they are taken as given), the
tombstones and the consolidation runs (their params).

Derived (dropped and recomputed, in the order the write path makes them):

1. embeddings of every record (current model; ``embedding_model`` updated);
2. compiled facts (``compiler/v1``: ids ``<episode>#f<n>``, DERIVED_FROM, MENTIONS of the object entity)
   — except tombstoned ones;
3. slot chains (SUPERSEDES, ``valid_to``, ``version``) and episode validity;
4. NEXT chains of every stream;
5. inferred causal links (``kgmem.derived.causal.rebuild``) and inferred SUPERSEDES from plain text
   (``kgmem.derived.supersession.rebuild``; a slot chain's explicit edges are laid again in step 3);
6. merges and pattern summaries with the params of the last consolidation run (none if it never ran).

Co-occurrence edges are not rebuilt: their weights are the history of the runs (decay), not a function of
the records. The manifest (:func:`manifest`) lists, without texts or vectors, the record ids and content
keys, the model id, the transform versions, counts, and for every derived artefact the ids it comes from;
every field in it is deterministic, so the manifests before and after a rebuild of a settled tenant are
identical (``rebuild`` compares them and writes both to ``manifest_path``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from ..embed import Embedder
from ..ingest.prepare import COMPILER_TRANSFORM, Preparer, Row
from ..ingest.records import Record
from ..keys import canonical_json, sha256_hex
from ..normalize import entity_key
from ..results import iso
from ..store import Store, Tx
from ..vocab import Vocabulary
from . import causal, context, supersession
from . import consolidate as cons

FORMAT = "kgmem-manifest/v1"
TRANSFORMS = {
    "compiler": COMPILER_TRANSFORM,
    "causal": causal.TRANSFORM_VERSION,
    "supersession": supersession.TRANSFORM_VERSION,
    "summary": cons.TRANSFORM_SUMMARY,
    "merge": cons.TRANSFORM_MERGE,
}
COMPARED = ("model", "transforms", "counts", "sources", "derived")


# ---------------------------------------------------------------------------- manifest


def manifest(store: Store, tenant: str, model_id: str) -> dict[str, Any]:
    """The tenant's rebuild manifest: deterministic fields only (ids, keys, versions, counts, lineage)."""
    mems = store.read("lifecycle/manifest_memories", tenant=tenant)
    edges = store.read("export/edges", tenant=tenant)
    entities = [r["key"] for r in store.read("export/entities", tenant=tenant)]
    tombstones = store.read("lifecycle/export_tombstones", tenant=tenant)

    by_origin: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in mems:
        by_origin[m["origin"]].append(m)
    chains: dict[str, list[list[object]]] = defaultdict(list)  # [id, version, valid_to] by slot
    for m in sorted((m for m in mems if m["slot"]), key=lambda m: (m["slot"], m["version"] or 0, m["id"])):
        chains[m["slot"]].append([m["id"], m["version"], iso(m["valid_to"])])
    pairs: dict[str, list[list[str]]] = defaultdict(list)  # [from, to] by kind
    mentions: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e["type"] == "MENTIONS":
            mentions[e["to"]].append(e["from"])
        elif e["type"] == "CAUSED_BY":
            kind = "inferred_causes" if e["props"].get("inferred") else "explicit_causes"
            pairs[kind].append([e["from"], e["to"]])
        elif e["type"] == "SUPERSEDES" and e["props"].get("inferred"):
            pairs["inferred_supersedes"].append([e["from"], e["to"]])
        elif e["type"] in ("NEXT", "SUPERSEDES"):
            pairs[e["type"].lower()].append([e["from"], e["to"]])
    out = {
        "format": FORMAT,
        "tenant": tenant,
        "model": model_id,
        "transforms": dict(TRANSFORMS),
        "counts": {
            "memories": len(mems),
            **{f"origin_{o}": len(v) for o, v in sorted(by_origin.items())},
            "kinds": dict(sorted(Counter(m["kind"] for m in mems).items())),
            "entities": len(entities),
            "edges": dict(sorted(Counter(e["type"] for e in edges).items())),
            "tombstones": len(tombstones),
        },
        "sources": {
            "records": sorted([m["id"], m["content_key"]] for m in by_origin.get("record", [])),
            "explicit_causes": sorted(pairs["explicit_causes"]),
            "tombstones": sorted(t["id"] for t in tombstones),
        },
        "derived": {
            "embeddings": {
                "models": dict(sorted(Counter(m["embedding_model"] for m in mems).items())),
                "missing": sorted(m["id"] for m in mems if not m["embedded"]),
            },
            "compiled_facts": sorted(
                [m["id"], m["content_key"], m["transform"], m["sources"]] for m in by_origin.get("compiled", [])
            ),
            "consolidated": sorted(
                [m["id"], m["content_key"], m["transform"], m["kind"], m["sources"]]
                for m in by_origin.get("consolidated", [])
            ),
            "merged_into": sorted([m["id"], m["merged_into"]] for m in mems if m["merged_into"]),
            "slot_chains": dict(sorted(chains.items())),
            "episode_validity": sorted(
                [m["id"], iso(m["valid_to"])] for m in mems if m["kind"] == "episode" and m["valid_to"] is not None
            ),
            "supersedes": sorted(pairs["supersedes"]),
            "next": sorted(pairs["next"]),
            "inferred_causes": sorted(pairs["inferred_causes"]),
            "mentions": {k: sorted(v) for k, v in sorted(mentions.items())},
            "entities": sorted(entities),
        },
    }
    out["digest"] = sha256_hex(canonical_json({k: out[k] for k in COMPARED}))
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Paths of the deterministic fields that differ (empty: identical)."""
    diffs: list[str] = []

    def walk(a: object, b: object, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        elif a != b:
            if isinstance(a, list) and isinstance(b, list):
                sa = {json.dumps(x, sort_keys=True, default=str) for x in a}
                sb = {json.dumps(x, sort_keys=True, default=str) for x in b}
                gone, new = sorted(sa - sb)[:3], sorted(sb - sa)[:3]
                diffs.append(f"{path}: {len(a)} → {len(b)} items; only before {gone}; only after {new}")
            else:
                diffs.append(f"{path}: {a!r} → {b!r}")

    for key in COMPARED:
        walk(before.get(key), after.get(key), key)
    return diffs


# ---------------------------------------------------------------------------- rebuild


def _records(store: Store, tenant: str) -> list[dict[str, Any]]:
    return store.read("lifecycle/records", tenant=tenant)


def _record(r: dict[str, Any], tenant: str) -> Record:
    return Record(
        id=r["id"],
        text=r["text"],
        at=r["at"],
        at_given=True,
        kind=r["kind"],
        tenant=tenant,
        content_key=r["content_key"],
        entities=(),
        source=r["source"],
        confidence=r["confidence"],
        user=r["user"],
        retention=r["retention"],
    )


def compiled_rows(records: list[dict[str, Any]], tenant: str, vocabulary: Vocabulary, embedder: Embedder) -> list[Row]:
    """The facts the compiler makes of the record episodes (rows for ``ingest/write_memories``)."""
    episodes = [r for r in records if r["kind"] == "episode"]
    if not episodes:
        return []
    preparer = Preparer(vocabulary, embed=embedder.encode, compile_text=True)
    rows = [row for row in preparer.prepare(_record(r, tenant) for r in episodes).rows if row.origin == "compiled"]
    keys = {r["id"]: set(r["entities"]) for r in episodes}
    for row in rows:
        obj = row.object or ""
        okey = entity_key(obj)
        row.entities = [(okey, obj, False)] if okey and okey in keys[row.derived_from] else []
    return rows


def rebuild(
    store: Store,
    embedder: Embedder,
    vocabulary: Vocabulary,
    tenant: str,
    manifest_path: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    before = manifest(store, tenant, embedder.model_id)
    records = _records(store, tenant)
    recorded = {r["id"]: r["recorded_at"] for r in records}

    texts = list(dict.fromkeys(r["text"] for r in records))
    vectors: dict[str, np.ndarray] = {}
    for i in range(0, len(texts), 1024):
        chunk = texts[i : i + 1024]
        vectors.update(zip(chunk, embedder.encode(chunk)))
    drift = 0.0
    for r in records:
        if r["embedding"] is not None:
            old = np.asarray(r["embedding"], dtype=np.float32)
            drift = max(drift, float(1.0 - old @ vectors[r["text"]]))

    compiled = compiled_rows(records, tenant, vocabulary, embedder)
    blocked = cons.tombstoned(store, tenant, [row.id for row in compiled])
    compiled = [row for row in compiled if row.id not in blocked]
    fact_texts = [t for t in dict.fromkeys(row.text for row in compiled) if t not in vectors]
    if fact_texts:
        vectors.update(zip(fact_texts, embedder.encode(fact_texts)))
    by_time: dict[dt.datetime, list[Row]] = defaultdict(list)
    for row in compiled:
        by_time[recorded[row.derived_from]].append(row)

    def work(tx: Tx) -> dict[str, Any]:
        out: dict[str, int] = {}
        out["derived_removed"] = tx.run(
            "lifecycle/drop_derived_memories", tenant=tenant, origins=["compiled", "consolidated"]
        )[0]["removed"]
        out["chain_edges_removed"] = tx.run("lifecycle/drop_chains", tenant=tenant)[0]["removed"]
        out["inferred_removed"] = tx.run("derived/drop_inferred_causes", tenant=tenant, ids=None)[0]["removed"]
        emb = [{"id": r["id"], "embedding": vectors[r["text"]].tolist()} for r in records]
        out["embedded"] = 0
        for i in range(0, len(emb), 500):
            out["embedded"] += tx.run(
                "lifecycle/set_embeddings", tenant=tenant, embedding_model=embedder.model_id, rows=emb[i : i + 500]
            )[0]["embedded"]
        out["compiled"] = 0
        for when, rows in sorted(by_time.items()):
            for i in range(0, len(rows), 500):
                part = rows[i : i + 500]
                out["compiled"] += tx.run(
                    "ingest/write_memories",
                    tenant=tenant,
                    recorded_at=when,
                    embedding_model=embedder.model_id,
                    rows=[r.cypher_row(vectors[r.text].tolist()) for r in part],
                )[0]["written"]
        links = [{"id": r.id, "source": r.derived_from, "transform": r.transform} for r in compiled]
        mentions = [{"id": r.id, "key": k} for r in compiled for k, _, _ in r.entities]
        for i in range(0, len(links), 2000):
            tx.run("ingest/link_derived", tenant=tenant, links=links[i : i + 2000])
        for i in range(0, len(mentions), 2000):
            tx.run("lifecycle/link_mentions", tenant=tenant, links=mentions[i : i + 2000])
        slots = [r["slot"] for r in tx.run("lifecycle/slots", tenant=tenant)]
        out["superseded"] = 0
        for i in range(0, len(slots), 2000):
            out["superseded"] += (
                tx.run("ingest/relink_slots", tenant=tenant, slots=slots[i : i + 2000])[0]["superseded"] or 0
            )
        tx.run("lifecycle/refresh_validity", tenant=tenant, ids=None)
        streams = tx.run("lifecycle/streams", tenant=tenant)
        out["next"] = (
            tx.run("ingest/relink_streams", tenant=tenant, streams=streams)[0]["next_created"] or 0 if streams else 0
        )
        out["entities_removed"] = tx.run("lifecycle/delete_orphan_entities", tenant=tenant, keys=None)[0]["removed"]
        return out

    done = store.write_tx(work)
    done["context"] = context.rebuild(store, tenant)
    inferred = causal.rebuild(store, embedder, tenant)
    done["inferred"] = inferred["inferred"]
    done["inferred_supersedes"] = supersession.rebuild(store, tenant)["inferred"]
    again = cons.rederive_consolidated(store, tenant)
    done["consolidated"] = 0
    if again is not None:
        rec, _params = again
        rows = cons.embed_rows(embedder, rec.create)
        now = dt.datetime.now(dt.timezone.utc)
        store.write_tx(lambda tx: cons.apply_reconciliation(tx, tenant, rec, rows, now, embedder.model_id))
        done["consolidated"] = len(rows)

    after = manifest(store, tenant, embedder.model_id)
    diffs = compare(before, after)
    out = {
        "tenant": tenant,
        "identical": not diffs,
        "differences": diffs,
        "before_digest": before["digest"],
        "after_digest": after["digest"],
        "counts": done,
        "embedding_max_drift": round(drift, 8),
        "model": embedder.model_id,
        "manifest_path": None,
    }
    if manifest_path is not None:
        path = Path(manifest_path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(
            json.dumps(
                {
                    "before": before,
                    "after": after,
                    "identical": not diffs,
                    "differences": diffs,
                    "embedding_max_drift": out["embedding_max_drift"],
                },
                ensure_ascii=False,
                sort_keys=True,
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        os.replace(tmp, path)
        out["manifest_path"] = str(path)
    return out

"""Export and import of a whole tenant as JSONL, deterministic and lossless (except the vectors).

File format ``kgmem-export/v1``, one JSON object per line (keys sorted, no spaces, UTF-8), in this order:

1. ``{"type": "header", "format": "kgmem-export/v1", "tenant": T, "counts": {...}}``
2. ``{"type": "memory", "id", "labels": ["Episode"|"Fact"|"Summary"], "props": {...}}`` by id — every
   memory (records, compiled facts with their version fields, consolidated memories) with all its properties
   except ``embedding`` (derived: re-computed from the text on import) and ``tenant``/``id``
3. ``{"type": "entity", "key", "props": {...}}`` by key
4. ``{"type": "edge", "rel", "from_kind", "from", "to_kind", "to", "props": {...}}`` — every relationship
   (SUPERSEDES, CAUSED_BY, NEXT, MENTIONS, DERIVED_FROM, CO_OCCURS) with its properties, sorted
5. ``{"type": "tombstone", "id", "props": {...}}`` by id
6. ``{"type": "run", "id", "props": {...}}`` by id (consolidation runs)

Times are ``{"$datetime": "2026-01-05T10:00:00+00:00"}`` (dates ``{"$date": ...}``) so they come back as
times. Import restores exactly what was exported into an *empty* tenant — no inference, compilation or
supersession runs — and computes the embeddings from the texts with the current model. Export → import →
export into the same tenant name gives a byte-identical file. Importing into another tenant name re-keys
the slots (slot keys include the tenant); content keys are kept as they were.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
from pathlib import Path
from typing import IO, Any, Iterator

from ..embed import Embedder
from ..errors import InputError
from ..keys import slot_key
from ..store import Store, Tx
from . import context

FORMAT = "kgmem-export/v1"
LABELS = ("Episode", "Fact", "Summary")
REL_TYPES = ("SUPERSEDES", "CAUSED_BY", "NEXT", "MENTIONS", "DERIVED_FROM", "CO_OCCURS")
KINDS = ("memory", "entity")
_BATCH = 500


# ---------------------------------------------------------------------------- values


def encode(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return {"$datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"cannot export the non-finite number {value}", fix="store finite numbers only")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise InputError(
        f"cannot export a value of type {type(value).__name__}",
        fix="store strings, numbers, booleans, times or lists of them",
    )


def decode(value: Any, line: int | None = None) -> Any:
    if isinstance(value, dict):
        try:
            if set(value) == {"$datetime"}:
                return dt.datetime.fromisoformat(value["$datetime"])
            if set(value) == {"$date"}:
                return dt.date.fromisoformat(value["$date"])
        except (TypeError, ValueError):
            raise InputError(f"bad time value {value!r}", line=line, fix="write times as kgmem export does") from None
        raise InputError(
            "property values are strings, numbers, booleans, times or lists of them",
            line=line,
            fix="import a file written by `kgmem export`",
        )
    if isinstance(value, list):
        return [decode(v, line) for v in value]
    return value


def _props(d: object, line: int | None = None) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise InputError("'props' must be an object", line=line, fix="import a file written by `kgmem export`")
    return {k: decode(v, line) for k, v in d.items() if v is not None}


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------------------- export


def export_lines(store: Store, tenant: str) -> Iterator[tuple[str, str]]:
    """(line type, JSON text) of the tenant's export, in file order."""
    mems = []
    for r in store.read("export/memories", tenant=tenant):
        props = {
            k: encode(v)
            for k, v in r["props"]
            if k not in ("tenant", "id", "embedding") and k not in context.PROPERTIES
        }
        mems.append({"type": "memory", "id": r["id"], "labels": sorted(r["labels"]), "props": props})
    ents = [
        {
            "type": "entity",
            "key": r["key"],
            "props": {k: encode(v) for k, v in r["props"].items() if k not in ("tenant", "key")},
        }
        for r in store.read("export/entities", tenant=tenant)
    ]
    edges = [
        {
            "type": "edge",
            "rel": r["type"],
            "from_kind": "memory",
            "from": r["from"],
            "to_kind": r["to_kind"],
            "to": r["to"],
            "props": {k: encode(v) for k, v in r["props"].items()},
        }
        for r in store.read("export/edges", tenant=tenant)
    ]
    edges += [
        {
            "type": "edge",
            "rel": r["type"],
            "from_kind": "entity",
            "from": r["from"],
            "to_kind": "entity",
            "to": r["to"],
            "props": {k: encode(v) for k, v in r["props"].items()},
        }
        for r in store.read("lifecycle/export_entity_edges", tenant=tenant)
    ]
    tombs = [
        {
            "type": "tombstone",
            "id": r["id"],
            "props": {k: encode(v) for k, v in r["props"].items() if k not in ("tenant", "id")},
        }
        for r in store.read("lifecycle/export_tombstones", tenant=tenant)
    ]
    runs = [
        {
            "type": "run",
            "id": r["id"],
            "props": {k: encode(v) for k, v in r["props"].items() if k not in ("tenant", "id")},
        }
        for r in store.read("lifecycle/export_runs", tenant=tenant)
    ]
    mems.sort(key=lambda o: o["id"])
    ents.sort(key=lambda o: o["key"])
    edges.sort(key=lambda o: (o["rel"], o["from_kind"], o["from"], o["to_kind"], o["to"], _dump(o["props"])))
    tombs.sort(key=lambda o: o["id"])
    runs.sort(key=lambda o: o["id"])
    counts = {
        "memories": len(mems),
        "entities": len(ents),
        "edges": len(edges),
        "tombstones": len(tombs),
        "runs": len(runs),
    }
    yield "header", _dump({"type": "header", "format": FORMAT, "tenant": tenant, "counts": counts})
    for section in (mems, ents, edges, tombs, runs):
        for obj in section:
            yield obj["type"], _dump(obj)


def export(store: Store, tenant: str, target: str | os.PathLike[str] | IO[str]) -> dict[str, Any]:
    """Write the tenant's export to a path ('-' is not handled here) or an open text file."""
    digest = hashlib.sha256()
    counts = {"memory": 0, "entity": 0, "edge": 0, "tombstone": 0, "run": 0}
    lines = 0

    def write_all(f: IO[str]) -> None:
        nonlocal lines
        for kind, text in export_lines(store, tenant):
            f.write(text + "\n")
            digest.update((text + "\n").encode("utf-8"))
            lines += 1
            if kind in counts:
                counts[kind] += 1

    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if path.is_dir():
            raise InputError(f"{path} is a directory", fix="give a file name like export.jsonl")
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            write_all(f)
        os.replace(tmp, path)
        where: str | None = str(path)
    else:
        write_all(target)
        where = getattr(target, "name", None)
    return {
        "path": where,
        "tenant": tenant,
        "lines": lines,
        "memories": counts["memory"],
        "entities": counts["entity"],
        "edges": counts["edge"],
        "tombstones": counts["tombstone"],
        "runs": counts["run"],
        "sha256": digest.hexdigest(),
    }


# ---------------------------------------------------------------------------- import


def _read(source: str | os.PathLike[str] | IO[str]) -> Iterator[tuple[int, str]]:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise InputError(f"no such file: {path}", fix="check the path")
        if path.is_dir():
            raise InputError(f"{path} is a directory", fix="give an export file (.jsonl)")
        with open(path, encoding="utf-8") as f:
            yield from enumerate(f, 1)
        return
    yield from enumerate(source, 1)


def parse_export(source: str | os.PathLike[str] | IO[str]) -> dict[str, Any]:
    """Validate a whole export file (nothing is written when any line is bad)."""
    header = None
    mems: list[dict[str, Any]] = []
    ents: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    tombs: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for n, raw in _read(source):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InputError(
                f"not valid JSON ({e.msg})", line=n, fix="import a file written by `kgmem export`"
            ) from None
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", line=n, fix="import a file written by `kgmem export`")
        kind = obj.get("type")
        if header is None:
            if kind != "header" or obj.get("format") != FORMAT:
                raise InputError(
                    f"the first line must be the {FORMAT} header", line=n, fix="import a file written by `kgmem export`"
                )
            header = obj
            continue
        ident = obj.get("key") if kind == "entity" else obj.get("id")
        if kind in ("memory", "entity", "tombstone", "run") and (not isinstance(ident, str) or not ident):
            raise InputError(
                f"a {kind} line needs a non-empty {'key' if kind == 'entity' else 'id'}",
                line=n,
                fix="import a file written by `kgmem export`",
            )
        if kind == "memory":
            labels = obj.get("labels") or []
            if not isinstance(labels, list) or any(lb not in LABELS for lb in labels):
                raise InputError(
                    f"labels must be among {', '.join(LABELS)}",
                    line=n,
                    field="labels",
                    fix="import a file written by `kgmem export`",
                )
            props = _props(obj.get("props"), n)
            if not isinstance(props.get("text"), str) or not props["text"].strip():
                raise InputError(
                    "a memory needs its text", line=n, field="text", fix="import a file written by `kgmem export`"
                )
            mems.append({"id": ident, "labels": labels, "props": props})
        elif kind == "entity":
            ents.append({"key": ident, "props": _props(obj.get("props"), n)})
        elif kind == "edge":
            rel = obj.get("rel")
            if rel not in REL_TYPES:
                raise InputError(
                    f"unknown relationship type {rel!r}",
                    line=n,
                    field="rel",
                    fix=f"kgmem's types are {', '.join(REL_TYPES)}",
                )
            if obj.get("from_kind") not in KINDS or obj.get("to_kind") not in KINDS:
                raise InputError(
                    "from_kind and to_kind must be 'memory' or 'entity'",
                    line=n,
                    fix="import a file written by `kgmem export`",
                )
            if not isinstance(obj.get("from"), str) or not isinstance(obj.get("to"), str):
                raise InputError(
                    "an edge needs 'from' and 'to' ids", line=n, fix="import a file written by `kgmem export`"
                )
            edges.append(
                {
                    "type": rel,
                    "from_kind": obj["from_kind"],
                    "from": obj["from"],
                    "to_kind": obj["to_kind"],
                    "to": obj["to"],
                    "props": _props(obj.get("props"), n),
                    "line": n,
                }
            )
        elif kind == "tombstone":
            tombs.append({"id": ident, "props": _props(obj.get("props"), n)})
        elif kind == "run":
            runs.append({"id": ident, "props": _props(obj.get("props"), n)})
        else:
            raise InputError(
                f"unknown line type {kind!r}", line=n, field="type", fix="import a file written by `kgmem export`"
            )
    if header is None:
        raise InputError("the file is empty", fix="import a file written by `kgmem export`")
    for what, items, key in (
        ("memory", mems, "id"),
        ("entity", ents, "key"),
        ("tombstone", tombs, "id"),
        ("run", runs, "id"),
    ):
        seen: set[str] = set()
        for it in items:
            if it[key] in seen:
                raise InputError(
                    f"{what} '{it[key]}' appears twice in the file", fix="import a file written by `kgmem export`"
                )
            seen.add(it[key])
    mem_ids = {m["id"] for m in mems}
    ent_keys = {ent["key"] for ent in ents}
    for edge in edges:
        for end, kind in (("from", edge["from_kind"]), ("to", edge["to_kind"])):
            if edge[end] not in (mem_ids if kind == "memory" else ent_keys):
                raise InputError(
                    f"edge {edge['type']} points at unknown {kind} '{edge[end]}'",
                    line=edge["line"],
                    fix="import a file written by `kgmem export`",
                )
    return {"header": header, "memories": mems, "entities": ents, "edges": edges, "tombstones": tombs, "runs": runs}


def _rekey_slots(mems: list[dict[str, Any]], source: str, target: str) -> int:
    """Slot keys hash the tenant: give facts imported under another tenant name that tenant's slot keys."""
    changed = 0
    for m in mems:
        p = m["props"]
        slot, subj, pred = p.get("slot"), p.get("subject"), p.get("predicate")
        if not slot or not subj or not pred:
            continue
        okey = p.get("object_key")
        if okey is not None and slot == slot_key(source, subj, pred, okey):
            p["slot"] = slot_key(target, subj, pred, okey)
        elif slot == slot_key(source, subj, pred, None):
            p["slot"] = slot_key(target, subj, pred, None)
        else:
            continue
        changed += 1
    return changed


def import_jsonl(
    store: Store, embedder: Embedder, tenant: str, source: str | os.PathLike[str] | IO[str]
) -> dict[str, Any]:
    """Restore an export into an empty tenant (one transaction: all of it lands, or none of it)."""
    data = parse_export(source)
    present = store.read("lifecycle/tenant_nodes", tenant=tenant)[0]
    if any(present.values()):
        raise InputError(
            f"tenant '{tenant}' is not empty ({present['memories']} memories, {present['entities']} "
            f"entities, {present['tombstones']} tombstones, {present['runs']} runs)",
            fix="import into a new tenant (--tenant NAME) or delete this one first",
        )
    mems = data["memories"]
    source_tenant = data["header"].get("tenant")
    rekeyed = _rekey_slots(mems, source_tenant, tenant) if source_tenant and source_tenant != tenant else 0
    texts = list(dict.fromkeys(m["props"]["text"] for m in mems))
    vectors: dict[str, Any] = {}
    for i in range(0, len(texts), 1024):
        chunk = texts[i : i + 1024]
        vectors.update(zip(chunk, embedder.encode(chunk)))
    mem_rows = [
        {"id": m["id"], "labels": m["labels"], "props": m["props"], "embedding": vectors[m["props"]["text"]].tolist()}
        for m in mems
    ]
    edge_rows = [{k: e[k] for k in ("type", "from_kind", "from", "to_kind", "to", "props")} for e in data["edges"]]

    def work(tx: Tx) -> dict[str, Any]:
        out = {"memories": 0, "entities": 0, "edges": 0, "tombstones": 0, "runs": 0}
        for i in range(0, len(mem_rows), _BATCH):
            out["memories"] += tx.run(
                "lifecycle/import_memories",
                tenant=tenant,
                embedding_model=embedder.model_id,
                rows=mem_rows[i : i + _BATCH],
            )[0]["written"]
        for i in range(0, len(data["entities"]), _BATCH * 4):
            out["entities"] += tx.run(
                "lifecycle/import_entities", tenant=tenant, rows=data["entities"][i : i + _BATCH * 4]
            )[0]["written"]
        for i in range(0, len(edge_rows), _BATCH * 4):
            out["edges"] += tx.run("lifecycle/import_edges", tenant=tenant, rows=edge_rows[i : i + _BATCH * 4])[0][
                "created"
            ]
        if data["tombstones"]:
            out["tombstones"] = tx.run("lifecycle/import_tombstones", tenant=tenant, rows=data["tombstones"])[0][
                "written"
            ]
        if data["runs"]:
            out["runs"] = tx.run("lifecycle/import_runs", tenant=tenant, rows=data["runs"])[0]["written"]
        if out["edges"] != len(edge_rows):  # cannot happen after parse_export's checks; never half-import
            raise InputError(
                f"only {out['edges']} of {len(edge_rows)} edges could be restored",
                fix="import into an empty tenant a file written by `kgmem export` (nothing was imported)",
            )
        return out

    done = store.write_tx(work)
    done["context"] = context.rebuild(store, tenant)  # derived, not in the file
    return {
        "tenant": tenant,
        "source_tenant": source_tenant,
        **done,
        "slots_rekeyed": rekeyed,
        "embedding_model": embedder.model_id,
    }

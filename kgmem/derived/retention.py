"""Retention classes and garbage collection of expired memories.

Each record carries a retention class (record field ``retention``): ``permanent``, ``standard`` (also what a
record without one gets), ``short`` or ``ephemeral``. A class has a time to live; a memory expires when
``recorded_at + TTL <= now`` — counted from when the store *learned* it (``recorded_at``), not from its valid
time ``at``, so a back-filled old record is not deleted on arrival, and an exported/imported memory keeps
its clock. Defaults: permanent and standard never expire, short after 30 days, ephemeral after 1 day.
Override with ``KGMEM_RETENTION="short=7d,ephemeral=12h,standard=never"`` or the ``ttls`` argument
(units s, m, h, d, w; ``never``).

``gc`` forgets the expired records through the same propagation as ``forget`` (compiled facts, summaries,
chains, entities, tombstones with reason ``expired``). Derived memories carry no clock of their own: they
go or are re-derived when their sources expire.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from typing import Any, Mapping

from ..embed import Embedder
from ..errors import InputError
from ..record_spec import RETENTION_CLASSES as CLASSES
from ..store import Store
from ..validate import short
from .forget import forget_ids

DEFAULT_TTLS: dict[str, dt.timedelta | None] = {
    "permanent": None,
    "standard": None,
    "short": dt.timedelta(days=30),
    "ephemeral": dt.timedelta(days=1),
}
ENV = "KGMEM_RETENTION"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(value: object) -> dt.timedelta | None:
    """'30d', '12h', '2w', 'never' (None), or a timedelta / number of days."""
    if value is None or isinstance(value, dt.timedelta):
        return value
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return dt.timedelta(days=value)
        if isinstance(value, str):
            if value.strip().lower() in ("never", "none", "forever", "inf"):
                return None
            m = _DURATION.match(value)
            if m:
                return dt.timedelta(**{_UNITS[m.group(2).lower()]: float(m.group(1))})
    except (OverflowError, ValueError):  # longer than timedelta holds (999,999,999 days), or NaN
        raise InputError(
            f"'{short(str(value))}' is too long a duration", field="ttl", fix="write at most 999999999d, or never"
        ) from None
    raise InputError(f"'{short(str(value))}' is not a duration", field="ttl", fix="write it like 30d, 12h, 2w or never")


def _before(now: dt.datetime, ttl: dt.timedelta) -> dt.datetime:
    """``now - ttl``; before year 1 (a TTL longer than the time since then) is the earliest time, so nothing of
    that class has expired."""
    try:
        return now - ttl
    except OverflowError:
        return dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def _overrides(spec: str | Mapping[str, object] | None) -> dict[str, dt.timedelta | None]:
    """The classes a mapping or a 'class=duration,...' string names, with their TTLs."""
    if not spec:
        return {}
    items = (
        spec.items()
        if isinstance(spec, Mapping)
        else (part.split("=", 1) if "=" in part else (part, None) for part in str(spec).split(",") if part.strip())
    )
    out: dict[str, dt.timedelta | None] = {}
    for cls, value in items:
        cls = str(cls).strip()
        if cls not in CLASSES:
            raise InputError(f"'{cls}' is not a retention class", field="ttl", fix=f"use one of {', '.join(CLASSES)}")
        if value is None:
            raise InputError(f"no duration for '{cls}'", field="ttl", fix=f"write {cls}=30d")
        out[cls] = parse_duration(value.strip() if isinstance(value, str) else value)
    return out


def configured_ttls(override: str | Mapping[str, object] | None = None) -> dict[str, dt.timedelta | None]:
    """TTL per class: the defaults, then ``KGMEM_RETENTION``, then ``override``."""
    return {**DEFAULT_TTLS, **_overrides(os.environ.get(ENV)), **_overrides(override)}


def expired(
    store: Store, tenant: str, now: dt.datetime, ttls: Mapping[str, dt.timedelta | None]
) -> list[dict[str, Any]]:
    cutoffs = [{"retention": cls, "before": _before(now, ttl)} for cls, ttl in sorted(ttls.items()) if ttl is not None]
    if not cutoffs:
        return []
    rows = store.read("lifecycle/expired", tenant=tenant, cutoffs=cutoffs)
    return [
        {
            "id": r["id"],
            "retention": r["retention"],
            "kind": r["kind"],
            "recorded_at": r["recorded_at"],
            "expired_at": r["recorded_at"] + ttls[r["retention"]],
        }
        for r in rows
    ]


def gc(
    store: Store,
    embedder: Embedder,
    tenant: str,
    *,
    now: dt.datetime | None = None,
    ttls: str | Mapping[str, object] | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Forget every expired record (``dry_run``: only list them)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.timezone.utc)
    table = configured_ttls(ttls)
    found = expired(store, tenant, now, table)
    out: dict[str, Any] = {
        "dry_run": dry_run,
        "now": now,
        "ttls": {k: (None if v is None else v.total_seconds()) for k, v in table.items()},
        "expired": found,
        "count": len(found),
    }
    if dry_run or not found:
        out["forgotten"] = []
        return out
    report = forget_ids(store, embedder, tenant, [r["id"] for r in found], reason="expired", now=now, missing_ok=True)
    out["forgotten"] = report["forgotten"]
    out["report"] = report
    return out

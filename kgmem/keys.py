"""Deterministic keys: canonical JSON, content keys and slot keys (pure functions).

* content key: SHA-256 (hex) of the canonical JSON of a record's content fields — sorted keys, no
  insignificant whitespace, UTF-8, strings NFC-normalised. Missing fields and ``None`` are dropped, so
  "absent" and "null" hash alike; list order is kept (it is meaningful for ``caused_by``).
* slot key: SHA-256 of (tenant, subject, predicate[, object]) joined by U+001F, truncated to 64 bits and
  written as 16 hex digits (Knowledge Objects paper, appendix A.4). The object takes part only for
  multi-valued predicates.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

SEP = "\x1f"


def _nfc(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {_nfc(k): _nfc(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_nfc(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    return json.dumps(_nfc(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_key(content: dict[str, Any]) -> str:
    """Key of a record's content fields (the caller chooses which fields are content)."""
    return sha256_hex(canonical_json(content))


def slot_key(tenant: str, subject: str, predicate: str, obj: str | None = None) -> str:
    parts = [tenant, subject, predicate] + ([obj] if obj is not None else [])
    joined = SEP.join(unicodedata.normalize("NFC", p) for p in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]

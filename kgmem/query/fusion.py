"""Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) — a pure function.

score(d) = Σ_channels 1 / (k + rank_c(d)), ranks starting at 1; a document missing from a channel adds
nothing for it. k = 60 by default. Ties break by best single rank, then by id, so the output is
deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

DEFAULT_K = 60


@dataclass(frozen=True)
class Fused:
    id: str
    score: float
    ranks: dict[str, int | None]  # channel -> 1-based rank, None when the channel did not return it


def rrf(rankings: Mapping[str, Sequence[str]], k: int = DEFAULT_K,
        weights: Mapping[str, float] | None = None) -> list[Fused]:
    """Fuse ranked id lists (one per channel, best first) into one list, best first."""
    if k < 0:
        raise ValueError("k must be >= 0")
    channels = list(rankings)
    ranks: dict[str, dict[str, int]] = {}
    for channel, ids in rankings.items():
        seen: set[str] = set()
        r = 0
        for doc in ids:
            if doc in seen:  # a duplicate keeps its first (best) rank
                continue
            seen.add(doc)
            r += 1
            ranks.setdefault(doc, {})[channel] = r
    out = []
    for doc, per in ranks.items():
        score = sum((weights or {}).get(c, 1.0) / (k + rank) for c, rank in per.items())
        out.append(Fused(doc, score, {c: per.get(c) for c in channels}))
    out.sort(key=lambda f: (-f.score, min(r for r in f.ranks.values() if r is not None), f.id))
    return out

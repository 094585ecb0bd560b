"""Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) — a pure function.

score(d) = Σ_channels 1 / (k + rank_c(d)), ranks starting at 1; a document missing from a channel adds
nothing for it. k = 10 by default (see DEFAULT_K). Ties break by best single rank, then by the rank in the
``prefer`` channel when one is named (recall names its vector channel: two memories that one channel ranks 1st
and 2nd and another 2nd and 1st tie exactly, and the memory's meaning decides rather than its id), then by id,
so the output is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..config import DEFAULT_RRF_K

# k = 10, not the usual 60: with seven channels, k = 60 flattens the fusion (a memory ranked 1st by one
# channel barely beats one ranked 30th by two); chosen on the development conversations (docs/benchmarks.md).
DEFAULT_K = DEFAULT_RRF_K  # the value lives in kgmem.config (the API's signatures read it without this module)
# boosts added to a fused score, in the units of 1 / (k + rank): 0.2 is about twice a rank-1 channel's share
ENTITY_BOOST = 0.2
TIME_BOOST = 0.2


@dataclass(frozen=True)
class Fused:
    id: str
    score: float
    ranks: dict[str, int | None]  # channel -> 1-based rank, None when the channel did not return it


def rrf(
    rankings: Mapping[str, Sequence[str]],
    k: int = DEFAULT_K,
    weights: Mapping[str, float] | None = None,
    prefer: str | None = None,
) -> list[Fused]:
    """Fuse ranked id lists (one per channel, best first) into one list, best first (ties: :func:`order`)."""
    if k < 0:
        raise ValueError("k must be >= 0")
    channels = list(rankings)
    weight = {c: (weights or {}).get(c, 1.0) for c in channels}
    score: dict[str, float] = {}
    ranks: dict[str, dict[str, int | None]] = {}
    for channel, ids in rankings.items():
        seen: set[str] = set()
        w = weight[channel]
        r = 0
        for doc in ids:
            if doc is None:  # a memory deleted (forgotten) while the query ran: its index entry has no id
                continue
            if doc in seen:  # a duplicate keeps its first (best) rank
                continue
            seen.add(doc)
            r += 1
            if doc in ranks:
                ranks[doc][channel] = r
                score[doc] += w / (k + r)  # summed in channel order, as sum() over the channels would
            else:
                ranks[doc] = dict.fromkeys(channels)  # every channel, None where it did not return the memory
                ranks[doc][channel] = r
                score[doc] = w / (k + r)
    return order([Fused(doc, score[doc], per) for doc, per in ranks.items()], prefer)


_NONE = 10**9  # the rank of a channel that did not return the memory


def order(fused: Sequence[Fused], prefer: str | None = None) -> list[Fused]:
    """``fused`` best first: by score, then by best single rank, then by the rank in ``prefer``, then by id."""

    def key(f: Fused) -> tuple[float, int, int, str]:
        best = min((r for r in f.ranks.values() if r is not None), default=_NONE)
        preferred = f.ranks.get(prefer) if prefer is not None else None
        # scores equal but for the order they were summed in are a tie (1/11 + 1/12 against 1/12 + 1/11)
        return (-round(f.score, 12), best, preferred if preferred is not None else _NONE, f.id)

    return sorted(fused, key=key)


def boost(fused: Sequence[Fused], bonuses: Mapping[str, float], prefer: str | None = None) -> list[Fused]:
    """Add ``bonuses[id]`` to fused scores and re-sort (same tie rules as :func:`rrf`)."""
    return order(
        [Fused(f.id, f.score + bonuses.get(f.id, 0.0), f.ranks) if f.id in bonuses else f for f in fused], prefer
    )

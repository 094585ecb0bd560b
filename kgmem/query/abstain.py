"""Abstention: decide per hit whether it is ``confident`` and whether the whole answer abstains.

Signals (all cheap, no model):

* similarity floor — the cosine between the question and the hit;
* gap — how far the best hit stands above the second (a near-tie of two mediocre hits is a coin flip);
* agreement — how many channels (vector, keyword, entity) put the hit near their top;
* exact tokens — the hit contains an identifier-like token of the question (``zx9q``, ``ERR-4411``),
  which embeddings blur but which is decisive when present.

The thresholds are calibrated on ``fixtures/recall`` (answerable and unanswerable questions) by
``kgmem bench --suite calibration``; the defaults below are the values chosen there.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import AbstractSet, Any

from .confidence import best_cosine
from .timeparse import is_time_token

_IDENT = re.compile(r"(?=[\w\-.]*\d)(?=[\w\-.]*[a-zA-Z])[\w][\w\-.]*[\w]")  # the definition; see below
_RUN = re.compile(r"[\w\-.]+")
_DIGIT = re.compile(r"\d")
_ASCII_LETTER = re.compile(r"[a-zA-Z]")


# the channels whose agreement counts (the thresholds were calibrated on these three; the context channels
# largely repeat the vector and keyword ones)
AGREEMENT_CHANNELS = ("vector", "keyword", "entity")
NO_MATCH = "no eligible memory matched"  # the reason of an answer without hits


@dataclass(frozen=True)
class AbstainPolicy:
    # chosen by the grid search of `kgmem bench --suite retrieval` (objective: right answers minus twice the
    # confidently wrong ones on fixtures/recall; the report gives the two-fold held-out figures)
    strong: float = 0.66  # cosine at which one channel is enough
    floor: float = 0.40  # below this a hit is never confident on similarity (exact tokens aside)
    min_gap: float = 0.0  # top-1 vs top-2 cosine gap needed when the best hit is below `strong`
    agree_depth: int = 3  # a channel "agrees" when it ranks the hit within this depth
    agree_channels: int = 3  # channels that must agree for a hit between floor and strong

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@lru_cache(maxsize=16384)
def identifier_tokens(text: str) -> frozenset[str]:
    """Tokens mixing letters and digits (codes, ids, versions, hostnames), ordinals and clock times apart:
    lower-cased (cached: recall reads the same candidates question after question)."""
    # Same tokens as ``_IDENT.finditer`` but linear: the lookaheads of _IDENT rescan the rest of a run from
    # every position of it, which is quadratic on a long run without a digit. A match is a maximal run of
    # [\w.-] with its leading and trailing '-'/'.' stripped, kept when it has a digit and an ASCII letter.
    out: set[str] = set()
    for m in _RUN.finditer(text):
        token = m.group(0).strip("-.")
        if len(token) >= 2 and _DIGIT.search(token) and _ASCII_LETTER.search(token):
            # an ordinal or a clock time ("8th", "3pm") is a time, not a code: "on 8th December" was declined
            # as "no memory mentions 8th" (LoCoMo dev: 3 answerable questions)
            if not is_time_token(token):
                out.add(token.lower())
    return frozenset(out)


@dataclass
class Judgement:
    confident: bool
    why: str


def judge_hit(
    similarity: float | None,
    ranks: dict[str, int | None],
    query_idents: AbstractSet[str],
    text: str,
    policy: AbstainPolicy,
) -> Judgement:
    sim = similarity if similarity is not None else -1.0
    agreeing = [c for c, r in ranks.items() if c in AGREEMENT_CHANNELS and r is not None and r <= policy.agree_depth]
    if query_idents:
        hit_tokens = identifier_tokens(text)
        shared = query_idents & hit_tokens
        keyword_rank = ranks.get("keyword")
        if shared and keyword_rank is not None and keyword_rank <= policy.agree_depth:
            return Judgement(True, f"exact token {sorted(shared)[0]!r}")
    if sim >= policy.strong:
        return Judgement(True, f"cosine {sim:.2f} >= {policy.strong}")
    if sim < policy.floor:
        return Judgement(False, f"cosine {sim:.2f} < floor {policy.floor}")
    if len(agreeing) >= policy.agree_channels:
        return Judgement(True, f"{len(agreeing)} channels agree ({', '.join(agreeing)})")
    return Judgement(False, f"cosine {sim:.2f} with only {len(agreeing)} channel(s) agreeing")


def decide(
    hits: list[Any], query_idents: AbstractSet[str], policy: AbstainPolicy
) -> tuple[list[Judgement], bool, str | None]:
    """Judge each hit (a :class:`~kgmem.results.Hit`: similarity, channels, text); the answer abstains when its
    best hit is not confident."""
    if not hits:
        return [], True, NO_MATCH
    judgements = [judge_hit(best_cosine(h), h.channels, query_idents, h.text, policy) for h in hits]
    top = judgements[0]
    if top.confident and len(hits) > 1 and "cosine" in top.why and "channels" not in top.why:
        s1 = best_cosine(hits[0]) or 0.0
        s2 = best_cosine(hits[1]) or 0.0
        if s1 < policy.strong and s1 - s2 < policy.min_gap:
            judgements[0] = Judgement(False, f"top two hits tie (cosine {s1:.2f} vs {s2:.2f})")
    if not judgements[0].confident:
        return judgements, True, f"not confident: {judgements[0].why}"
    return judgements, False, None

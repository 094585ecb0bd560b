"""What is current: recall ranks a memory below the newer memory that retired it when the question is about
the present — pure functions, no database.

A memory is retired by the memories with a SUPERSEDES edge into it that the query may see (the hit map's
``superseded_by``, under the eligibility rule: as of ``at``, a memory written after ``at`` does not count).
The edge is a slot's version chain (explicit) or inferred from plain text (:mod:`kgmem.derived.supersession`).

For a question about the present (":func:`about_the_present`": "these days", "still", "now", "currently", a
present-tense question, or any question asked as of a time) the newest memory of a chain takes the place of
the best-ranked memory it retired, and each retired memory ranks just below the memory that retired it
(:func:`retire`). A question about the past ("When did Marcus quit?", "What did Caroline do in May?", "used
to") keeps the plain ranking: an inferred edge re-ranks, it never filters, so the old memory is still found.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..derived.change_cues import IMPLICATIONS, content_words, keeps_without_change, nearest_sentence
from ..logit import Logit, shipped_json
from .fusion import Fused

# the present, said outright: wins over any past-tense word in the same question
_PRESENT = re.compile(
    r"\b(?:now|nowadays|currently|current|these days|this days|still|any ?more|at the moment|right now|today|"
    r"lately|at present|presently|as of (?:now|today)|these weeks|this (?:week|month|year|season)|latest|"
    r"most recent(?:ly)?|up to date|any longer|no longer)\b",
    re.IGNORECASE,
)
# the past, said outright (a past-tense auxiliary or a time before now)
_PAST = re.compile(
    r"\b(?:did|was|were|had|used to|previously|formerly|originally|before|at first|initially|back then|back in|"
    r"in the past|ago|last (?:year|month|week|summer|winter|spring|fall|autumn|time|night)|earlier|"
    r"the first time|once|(?:in|during|by) (?:19|20)\d\d|yesterday|how long ago|when did|when was|when were)\b",
    re.IGNORECASE,
)
MAX_HOPS = 8  # a chain longer than this is followed no further (and a cycle never loops)


def about_the_present(question: str, *, as_of: bool = False) -> bool:
    """Whether the question asks what holds now (or, with ``as_of``, what held at the question's time):
    present words win; a past-tense question is about the past; otherwise the present."""
    if as_of or _PRESENT.search(question):
        return True
    return not _PAST.search(question)


def asks_what_a_rule_retires(question: str, link: Mapping[str, object]) -> bool:
    """Whether a link of the implications table (``by: "rule"``, cue ``implies:<name>``) bears on the question:
    the question names what the implication retires ("Do I like steak these days?" and "diet without meat").
    Such a link retires a memory even when the question did not bring the newer one near the top ("went vegan"
    shares no word with "steak"); any other inferred link needs the question to have reached its newer memory."""
    if link.get("by") != "rule":
        return False
    names = [
        c.strip()[len("implies:") :] for c in str(link.get("cue") or "").split(",") if c.strip().startswith("implies:")
    ]
    return any(name in names and retired.search(question) for name, _trigger, retired in IMPLICATIONS)


# ---------------------------------------------------------------------------- which inferred links count

# The question's ranking before the currency step that the gate reads: the first GATE_WINDOW memories of the
# fused ranking (recall's candidates for ten hits).
GATE_WINDOW = 20
REACH = 3  # without a gate model: a link inferred from words counts when its newer memory is one of the first 3
GATE_FEATURES = ("confidence", "old_length", "new_score", "old_score", "new_rank", "old_rank")
GATE_FILE = "currency_gate.json"


@dataclass(frozen=True)
class Standing:
    """Where the question itself put each memory before the currency step: its fused score as a share of the
    best one and its 1-based place, for the first :data:`GATE_WINDOW` of the fused ranking."""

    share: Mapping[str, float]
    place: Mapping[str, int]

    def reach(self) -> set[str]:
        return {i for i, p in self.place.items() if p <= REACH}


def standing(fused: Sequence[Fused]) -> Standing:
    top = fused[:GATE_WINDOW]
    best = top[0].score if top and top[0].score > 0 else 1.0
    return Standing({f.id: f.score / best for f in top}, {f.id: n for n, f in enumerate(top, 1)})


def gate_features(confidence: float, old_text: str, new: str, old: str, where: Standing) -> dict[str, float]:
    """What the gate reads of an inferred link ``new`` → ``old`` for one question: the link's confidence, the
    length of the retired memory (a long note holds several facts, most of which the newer one does not
    change), and where the question put each of the two (share of the best score, 1 / place; 0 outside the
    window)."""
    return {
        "confidence": float(confidence),
        "old_length": math.log(1 + len(old_text or "")),
        "new_score": where.share.get(new, 0.0),
        "old_score": where.share.get(old, 0.0),
        "new_rank": 1.0 / where.place[new] if new in where.place else 0.0,
        "old_rank": 1.0 / where.place[old] if old in where.place else 0.0,
    }


@lru_cache(maxsize=1)
def gate_model() -> Logit | None:
    """The gate shipped in ``kgmem/data/currency_gate.json`` (``scripts/fit_currency_gate.py``), its feature
    names checked against :data:`GATE_FEATURES`; None without the file (the :data:`REACH` rule then)."""
    text = shipped_json(GATE_FILE)
    if text is None:
        return None
    model = Logit(**Logit.read_fields(json.loads(text)))
    if tuple(model.features) != GATE_FEATURES:
        raise ValueError(f"currency gate features {list(model.features)} are not kgmem's {list(GATE_FEATURES)}")
    return model


def keeps_what_is_asked(new_text: str, question: str) -> bool:
    """Whether the newer memory of a link says, in its sentence nearest to the question, that what the question
    asks about stays as it was ("TCFN changed our pickup: now Thursdays, dock 5. Agency number stays the same."
    asked for the agency number): it retires the older note for another of the facts that note holds."""
    words = content_words(question)
    if not new_text or not words:
        return False
    sentence = nearest_sentence(new_text, words)
    return bool(content_words(sentence) & words) and keeps_without_change(sentence)


def link_counts(
    link: Mapping[str, object], old: str, old_text: str, where: Standing, question: str = "", new_text: str = ""
) -> bool:
    """Whether an inferred link (a ``superseded_by`` entry of ``old``) re-ranks for this question: a link of the
    implications table when the question names what it retires (:func:`asks_what_a_rule_retires`); any other by
    the shipped gate over :func:`gate_features` (a retirement by words counts where the question is about what
    changed, not about another fact the older note also holds), or, without one, when its newer memory is
    among the question's first :data:`REACH`."""
    if asks_what_a_rule_retires(question, link):
        return True
    if keeps_what_is_asked(new_text, question):
        return False
    new = str(link["id"])
    model = gate_model()
    if model is None:
        return new in where.reach()
    conf = link.get("confidence")
    values = gate_features(float(conf) if isinstance(conf, (int, float)) else 1.0, old_text, new, old, where)
    return model.probability(values) >= model.threshold


def successor_order(links: Sequence[Mapping[str, object]], where: Standing) -> list[Mapping[str, object]]:
    """The memories that retired one memory (``links``, each with ``id`` and ``inferred``, in
    :func:`kgmem.results.retiring_order`), in the order the ranking follows them: a slot's version chain first;
    then the newer memory the question itself put highest (its share of the best fused score, then its place),
    so that of several notes that each retired the one asked about ("Priya gave notice", "Hired: Dele as
    volunteer coordinator") the one about what was asked takes its place; ties keep the input's order (the
    link's confidence)."""

    def key(link: Mapping[str, object]) -> tuple[bool, float, int]:
        mid = str(link["id"])
        return bool(link.get("inferred")), -where.share.get(mid, 0.0), where.place.get(mid, GATE_WINDOW + 1)

    return sorted(links, key=key)


def newest(memory: str, retired_by: Mapping[str, Sequence[str]]) -> tuple[str, int]:
    """The memory at the head of ``memory``'s chain (following each retirement to the memory that retired it,
    the first listed when there are several: :func:`successor_order`) and how many steps away it is."""
    seen = {memory}
    head, hops = memory, 0
    while retired_by.get(head) and hops < MAX_HOPS:
        nxt = retired_by[head][0]
        if nxt in seen:
            break
        seen.add(nxt)
        head, hops = nxt, hops + 1
    return head, hops


CHAIN_WEIGHT = 1.0  # used when no model file says otherwise


@lru_cache(maxsize=1)
def chain_weight() -> float:
    """The share of the weaker score a chain's head adds (:func:`retire`): chosen with the inferred-supersession
    model by cross-validation (``scripts/fit_supersession.py``) and shipped beside it in
    ``kgmem/data/supersession.json``; :data:`CHAIN_WEIGHT` without that file."""
    try:
        text = resources.files("kgmem").joinpath("data", "supersession.json").read_text(encoding="utf-8")
        return float(json.loads(text).get("chain_weight", CHAIN_WEIGHT))
    except (FileNotFoundError, OSError, ValueError):
        return CHAIN_WEIGHT


def retire(fused: Sequence[Fused], retired_by: Mapping[str, Sequence[str]], weight: float | None = None) -> list[Fused]:
    """The ranking with every retired memory just below the memory that retired it: the head of a chain takes
    the better of its own place and that of the memories it retired (it may be missing from ``fused``: it is
    added there), plus ``weight`` of the other (the shipped :func:`chain_weight` unless given) — the chain as a
    whole is about what was asked, and its head is what holds now — and each retired memory ranks a step below
    its successor. Memories outside any chain keep their scores; ties keep the input order."""
    w = chain_weight() if weight is None else weight
    score = {f.id: f.score for f in fused}
    ranks = {f.id: f.ranks for f in fused}
    order = {f.id: i for i, f in enumerate(fused)}
    heads: dict[str, tuple[str, int]] = {f.id: newest(f.id, retired_by) for f in fused}
    best_of_head: dict[str, float] = {}
    for mid, (head, hops) in heads.items():
        if hops:
            best_of_head[head] = max(best_of_head.get(head, float("-inf")), score[mid])
    out: dict[str, float] = {}
    step = 1e-9
    for head, best in best_of_head.items():
        own = score.get(head, 0.0)
        out[head] = max(own, best) + w * min(own, best)
        if head not in order:
            order[head] = len(order)
            ranks[head] = {}

    def effective(mid: str, depth: int = 0) -> float:
        """A retired memory ranks a step below the memory that retired it (its own score, when lower)."""
        if mid in out:
            return out[mid]
        _head, hops = heads.get(mid) or newest(mid, retired_by)
        if not hops or depth > MAX_HOPS:
            return score.get(mid, 0.0)
        successor = retired_by[mid][0]
        # a memory between two of the ranking's (not in it itself) passes its place on, and takes none
        value = min(score.get(mid, float("inf")), effective(successor, depth + 1) - step)
        out[mid] = value
        return value

    for mid, (_head, hops) in heads.items():
        if hops:
            effective(mid)
    final = {mid: out.get(mid, score.get(mid, 0.0)) for mid in order}
    ids = sorted(order, key=lambda i: (-final[i], order[i]))
    return [Fused(i, final[i], ranks[i]) for i in ids]

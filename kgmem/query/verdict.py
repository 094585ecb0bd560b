"""Recall's step 5, the verdict: whether the best hit answers the question, as named steps over one feature
vector.

:func:`kgmem.query.recall.judge` gathers what the verdict reads (the hits, the candidates' maps, the
retirements of the best hit that count, the texts of the pool) into a :class:`Reading`, then :func:`verdict_of` runs
the steps in order, each a function of its own that takes the decision so far and returns the next:

1. :func:`by_hand` — the hand policy per hit (:func:`kgmem.query.abstain.decide`);
2. :func:`by_model` — the learned confidence decides the answer, unless an exact token of the question decides;
3. :func:`retired_best` — a best hit that something newer retired is as likely wrong as the retirement is sure;
4. :func:`answer_absent` — what the question asks for (a code it names, a time it asks for) in no memory read;
5. :func:`decline` — the kind of "no" when the verdict abstains.

The feature vector (:func:`features`) is named as the shipped model's features, which
:class:`kgmem.query.confidence.ConfidenceModel` checks when it loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..results import Hit
from . import confidence, meaning, timeparse
from .abstain import AbstainPolicy, Judgement, identifier_tokens
from .abstain import decide as hand_policy
from .question import Question

ABSENT_CONFIDENCE = 0.05  # the confidence of an answer whose asked-for code or time no memory read gives
WHEN_HITS = 5  # the hits whose words a question asking when something is must find a time in


@dataclass
class Verdict:
    abstained: bool
    reason: str | None
    decline: dict[str, Any] | None  # the kind of "no" (Recall.decline), None when answered
    judgements: list[Judgement]
    features: dict[str, float]
    probability: float | None
    model: confidence.ConfidenceModel | None


@dataclass(frozen=True)
class Reading:
    """What the verdict reads besides the hits: the retirements of the best hit that count for the question
    (best first), and the texts, names and topic cosines of the candidates the meaning features read."""

    stale: list[dict[str, Any]]
    read: list[str]
    read_names: list[list[str]]
    read_topic: list[float | None]
    hit_names: list[list[str]]
    mentions: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Decision:
    """The decision so far: abstained or not and why, each hit's judgement, the answer's probability."""

    abstained: bool
    reason: str | None
    judgements: list[Judgement]
    probability: float | None
    missing: tuple[str, dict[str, Any]] | None = None  # what no memory read gives (:func:`answer_absent`)

    def refused(self, reason: str, probability: float | None) -> Decision:
        """The same decision, abstaining for ``reason``: the best hit's judgement says so."""
        return replace(
            self, abstained=True, reason=reason, probability=probability, judgements=_first(self, False, reason)
        )


def _first(d: Decision, confident: bool, why: str) -> list[Judgement]:
    return [Judgement(confident, why), *d.judgements[1:]]


def features(
    hits: list[Hit],
    q: Question,
    plain: dict[str, float],
    rrf_k: int,
    channels: tuple[str, ...],
    entity_keys: list[str],
    reading: Reading,
) -> dict[str, float]:
    """The confidence model's feature vector: the ranking's features, the meaning's, and their combinations."""
    values = confidence.features(
        hits,
        {h.id: h.channels for h in hits},
        plain,
        rrf_k,
        channels,
        entity_keys,
        reading.mentions,
        bool(hits) and bool(q.identifiers) and bool(q.identifiers & identifier_tokens(hits[0].text)),
    )
    values.update(
        meaning.features(
            q.asked,
            [h.text for h in hits],
            reading.hit_names,
            reading.read,
            bool(reading.stale),
            reading.read_names,
            reading.read_topic,
        )
    )
    values.update(confidence.combined(values))
    return values


def by_hand(hits: list[Hit], q: Question, policy: AbstainPolicy) -> Decision:
    """Step 1: the hand policy judges every hit and the answer."""
    judgements, abstained, reason = hand_policy(hits, set(q.identifiers), policy)
    return Decision(abstained, reason, judgements, None)


def by_model(d: Decision, hits: list[Hit], p: float | None, model: confidence.ConfidenceModel | None) -> Decision:
    """Step 2: the learned decision replaces the hand thresholds for the answer, unless an identifier of the
    question found by the keyword channel decides (embeddings blur "zx9q", the model's cosine says little there);
    hits below the best keep their own judgement."""
    d = replace(d, probability=p)
    if model is None or p is None or not hits or d.judgements[0].why.startswith("exact token"):
        return d
    abstained = p < model.threshold
    reason = f"not confident: learned confidence {p:.2f} < {model.threshold:.2f}" if abstained else None
    why = f"learned confidence {p:.2f} (threshold {model.threshold:.2f})"
    return replace(d, abstained=abstained, reason=reason, judgements=_first(d, not abstained, why))


def retired_best(d: Decision, stale: list[dict[str, Any]], model: confidence.ConfidenceModel | None) -> Decision:
    """Step 3: a stale best hit about the present, what retired it not above it, is as likely wrong as the link
    is sure: the probability is scaled down, and the answer refused when that takes it below the threshold."""
    if not stale or d.probability is None:
        return d
    p = d.probability * (1.0 - float(stale[0].get("confidence") or 1.0))
    if model is not None and p < model.threshold and not d.abstained:
        return d.refused(f"not confident: the best hit was retired by '{stale[0]['id']}'", p)
    return replace(d, probability=p)


def absent(d: Decision, q: Question, read: list[str], hits: Sequence[Hit]) -> Decision:
    """Step 4: what the question asks for is in no memory read, whatever the words around it match — a rule,
    not the model (the mirror of the exact-token rule of step 2)."""
    d = replace(d, missing=answer_absent(q, read, hits))
    if not hits or d.probability is None or d.missing is None:
        return d
    return d.refused(f"not confident: {d.missing[0]}", min(d.probability, ABSENT_CONFIDENCE))


def decline(
    d: Decision, hits: list[Hit], q: Question, reading: Reading, model: confidence.ConfidenceModel | None
) -> dict[str, Any] | None:
    """Step 5: the kind of "no" (None when the verdict answers)."""
    if not d.abstained:
        return None
    if not hits:
        return {"kind": "no_match"}
    if d.missing is not None:
        return d.missing[1]
    said = meaning.decline(q.asked, reading.read, reading.read_names) if model is not None else None
    return said or {"kind": "low_confidence"}


def verdict_of(
    hits: list[Hit],
    q: Question,
    values: dict[str, float],
    reading: Reading,
    policy: AbstainPolicy,
    model: confidence.ConfidenceModel | None,
) -> Verdict:
    """The steps in order over the feature vector ``values`` (:func:`features`); sets each hit's ``confident``."""
    d = by_hand(hits, q, policy)
    d = by_model(d, hits, model.probability(values) if model is not None else None, model)
    d = retired_best(d, reading.stale, model)
    d = absent(d, q, reading.read, hits)
    for hit, j in zip(hits, d.judgements):
        hit.confident = j.confident and not d.abstained
    kind = decline(d, hits, q, reading, model)
    reason = d.reason
    if kind is not None and "message" in kind:
        reason = f"{kind['message']} ({reason})" if reason else kind["message"]
    return Verdict(d.abstained, reason, kind, d.judgements, values, d.probability, model)


def codes_absent(q: Question, read: list[str]) -> list[str]:
    """The codes the question names (``zx7k``) that none of the texts read contains (the texts are tokenised only
    when the question names one)."""
    if not (read and q.identifiers):
        return []
    return sorted(q.identifiers - set().union(*(identifier_tokens(t) for t in read)))


def answer_absent(q: Question, read: list[str], hits: Sequence[Hit]) -> tuple[str, dict[str, Any]] | None:
    """What the question asks for that no memory read gives, when a rule can tell: (why, decline), else None.

    * a code the question names (``zx7k``, ``INV-30000``) that none of the texts read contains;
    * a question asking when something is or will be ("when does the Lisbon office lease end?") where none of
      the best :data:`WHEN_HITS` hits that are about it (:func:`hits_about`) states a time: the time a memory was
      recorded answers "when did …?", not "when is …?" (the time is in the words or nowhere)."""
    codes = codes_absent(q, read)
    if codes and len(codes) == len(q.identifiers):
        text = f"nothing about {' '.join(codes)} in the memories"
        return f"no memory mentions {', '.join(codes)}", {"kind": "topic_absent", "topic": codes, "message": text}
    if hits and q.asks_when_ahead and not any(map(timeparse.says_when, hits_about(q, hits[:WHEN_HITS]))):
        topic = meaning.topic_words(q.asked)
        text = "no memory says when" + (f" ({' '.join(topic)})" if topic else "")
        return "no memory read states a time", {"kind": "topic_absent", "topic": ["when", *topic], "message": text}
    return None


def hits_about(q: Question, hits: Sequence[Hit]) -> list[str]:
    """The texts of ``hits`` about what the question asks: that write a name it names ("Lisbon"), or, when it
    names none, a word of its topic (a memory about the Porto office's lease says nothing of Lisbon's)."""
    asked = q.asked
    if asked.names:
        names = set(asked.names)
        return [h.text for h in hits if names & set(meaning.words(h.text))]
    topic = set(asked.salient)
    return [h.text for h in hits if topic & meaning.stems(h.text)]

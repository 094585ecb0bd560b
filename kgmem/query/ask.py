"""``ask``: route a question with the learned router, then answer it with the matching operation.

Intents (``kgmem.router``): ``slot`` → ``now`` on the slot the question names; ``history`` → ``as_of`` when
the question gives a time, else ``history``; ``why`` → ``why``; ``recall`` → ``recall``; ``none`` → no
memory operation ("not a memory question"), unless it is written as a question and recall answers it
confidently. When a slot question cannot be parsed into (subject,
predicate), ``ask`` falls back to ``recall`` and says so.

Slot parsing is rule-based: the predicate is the longest vocabulary name, alias or question verb found in the
question; the subject is "I/my/me" (the user), a possessive ("Alice's"), or the capitalised name next to the
verb ("where does Alice live").
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from ..normalize import entity_key
from ..vocab import Vocabulary

# question verbs that name a predicate without its vocabulary phrase
QUESTION_VERBS = MappingProxyType(
    {
        "live": "lives_in",
        "lives": "lives_in",
        "lived": "lives_in",
        "living": "lives_in",
        "moved": "lives_in",
        "born": "birth_place",
        "work": "employer",
        "works": "employer",
        "worked": "employer",
        "like": "likes",
        "likes": "likes",
        "liked": "likes",
        "love": "likes",
        "loves": "likes",
        "enjoy": "likes",
        "cost": "price",
        "costs": "price",
        "cost?": "price",
        "manages": "manager",
        "call": "phone_number",
        "reach": "phone_number",
        "old": "age",
        "called": "name",
        "named": "name",
        "home": "lives_in",
        "address": "address",
    }
)
_FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|i'm|i've)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"\b([A-Z][\w.\-]*(?:\s+[A-Z][\w.\-]*)*)['’]s\b")
_NAME_NEAR_VERB = re.compile(r"\b(?i:does|did|do|is|was|has|had)\s+(?:(?i:the)\s+)?([\w.\-]+(?:\s+[A-Z][\w.\-]*)*)")
_POSSESSIVE_ANY = re.compile(r"\b([\w.\-]+)['’]s\b")
_WORD = re.compile(r"[a-z][a-z0-9'_]*")
_STOP = frozenset(
    {
        "what",
        "is",
        "the",
        "of",
        "a",
        "an",
        "my",
        "does",
        "do",
        "did",
        "where",
        "who",
        "how",
        "much",
        "when",
        "which",
        "was",
        "were",
        "are",
        "i",
        "me",
        "now",
        "currently",
        "still",
        "current",
        "today",
    }
)


@dataclass(frozen=True)
class SlotQuestion:
    subject: str
    predicate: str
    object: str | None = None


def parse_slot_question(question: str, vocabulary: Vocabulary, *, user: str | None = None) -> SlotQuestion | None:
    """(subject, predicate[, object]) named by a slot question, or None."""
    text = question.strip()
    lower = text.lower()
    words = _WORD.findall(lower)
    predicate, best_len, span_end = None, 0, -1
    phrases: dict[str, str] = {}
    for name, spec in vocabulary.to_dict()["predicates"].items():
        phrases[name.replace("_", " ")] = name
        for alias in spec.get("aliases", []):
            phrases.setdefault(alias.replace("_", " "), name)
    for i in range(len(words)):
        for n in range(min(5, len(words) - i), 0, -1):
            phrase = " ".join(words[i : i + n])
            if phrase in phrases and n > best_len and not (n == 1 and phrase in _STOP):
                predicate, best_len, span_end = phrases[phrase], n, i + n
                break
    if predicate is None:
        for w in words:
            if w in QUESTION_VERBS:
                predicate = QUESTION_VERBS[w]
                break
    if predicate is None:
        return None
    m = _POSSESSIVE.search(text) or _POSSESSIVE_ANY.search(text)
    near = _NAME_NEAR_VERB.search(text)
    if m and entity_key(m.group(1)) not in _STOP | {"it", "that", "what's", "who's", "where's"}:
        subject = m.group(1)
    elif _FIRST_PERSON.search(text):
        subject = user or "user"
    elif near and entity_key(near.group(1).split()[0]) not in _STOP | {"the", "it", "that", "this", "there"}:
        subject = near.group(1)
    else:
        return None
    obj = None
    if vocabulary.is_multi(predicate) and span_end >= 0:
        rest = [w for w in words[span_end:] if w not in _STOP]
        obj = " ".join(rest).strip("?.! ") or None
    elif vocabulary.is_multi(predicate):
        verb_at = next((i for i, w in enumerate(words) if QUESTION_VERBS.get(w) == predicate), None)
        if verb_at is not None:
            rest = [w for w in words[verb_at + 1 :] if w not in _STOP and w not in ("still", "anymore")]
            obj = " ".join(rest).strip("?.! ") or None
    if vocabulary.is_multi(predicate) and not obj:
        return None
    return SlotQuestion(subject, predicate, obj)


@dataclass
class AskResult:
    question: str
    intent: str
    confidence: float
    operation: str | None
    result: Any = None
    note: str | None = None
    probabilities: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        res = self.result
        if hasattr(res, "to_dict"):
            res = res.to_dict()
        elif isinstance(res, list):
            res = [r.to_dict() if hasattr(r, "to_dict") else r for r in res]
        return {
            "question": self.question,
            "intent": self.intent,
            "confidence": round(self.confidence, 4),
            "operation": self.operation,
            "result": res,
            "note": self.note,
            "probabilities": {k: round(v, 4) for k, v in self.probabilities.items()},
        }


class Answering(Protocol):
    """The operations ``ask`` routes to (what :class:`~kgmem.api.MemoryGraph` provides)."""

    vocabulary: Vocabulary

    def now_answer(self, subject: str, predicate: str, object: str | None = None) -> Any: ...

    def as_of_answer(self, subject: str, predicate: str, at: Any, object: str | None = None) -> Any: ...

    def history_answer(self, subject: str, predicate: str, object: str | None = None) -> Any: ...

    def why(self, query: str, *, now: Any = None) -> Any: ...

    def recall(self, query: str, *, at: Any = None, now: Any = None, user: str | None = None) -> Any: ...


def answer(graph: Answering, question: str, *, now: dt.datetime | None = None, user: str | None = None) -> AskResult:
    """Route ``question`` with the shipped router and answer it with the operation of its intent: a slot
    question → ``now`` (a time in it → ``as_of`` at the end of that period), a history question → ``history``,
    ``why`` → ``why``, anything else about memories → ``recall`` (as of the end of a past period the question
    names: "back around Feb 10, when was it due?"); ``none`` answers nothing, unless it is written as a
    question (:func:`asks`) that recall answers confidently. A slot question whose slot cannot be named falls
    back to recall, and says so. Where the operation finds nothing — an empty slot, a why with
    no cause behind it — recall answers from the best evidence when it answers confidently, and the note says
    so: ``ask`` says "nothing recorded" only when recall would say it too."""
    from ..router import Router

    route = Router.default().predict(question)
    out = AskResult(question, route.intent, route.confidence, None, probabilities=dict(route.probabilities))
    then = period_end(question, now)
    if route.intent == "none":
        if not asks(question):
            out.note = "not a memory question: no memory operation answers it"
            return out
        return _from_evidence(graph, out, question, then, now, user, "the router reads no memory operation in it")
    if route.intent in ("slot", "history"):
        sq = parse_slot_question(question, graph.vocabulary, user=user)
        if sq is not None:
            if route.intent == "slot":
                out.operation, out.result = "now", graph.now_answer(sq.subject, sq.predicate, sq.object)
            elif then is not None:  # the value as the period ended
                out.operation, out.result = "as_of", graph.as_of_answer(sq.subject, sq.predicate, then, sq.object)
            else:
                out.operation, out.result = "history", graph.history_answer(sq.subject, sq.predicate, sq.object)
            if not _empty(out.result):
                return out
            return _from_evidence(graph, out, question, then, now, user, f"the {out.operation} slot holds nothing")
        out.note = "could not name the slot in the question; answered with recall"
    if route.intent == "why":
        out.operation, out.result = "why", graph.why(question, now=now)
        if not out.result.abstained:
            return out
        return _from_evidence(graph, out, question, None, now, user, "no cause behind it")
    out.operation, out.result = "recall", graph.recall(question, at=then, now=now, user=user)
    if then is not None:
        out.note = _join(
            out.note, f"answered as of {then.date().isoformat()}, the end of the period the question names"
        )
    return out


_ASKS = re.compile(
    r"\s*(?:what|who|whom|whose|which|when|where|why|how|is|are|was|were|am|do|does|did|can|could|should|will"
    r"|would|has|have|had|any|anything)\b",
    re.IGNORECASE,
)


def asks(question: str) -> bool:
    """Whether ``question`` is written as a question (a question mark, or a question word or auxiliary first):
    one the router reads no memory operation in is still put to recall ("are we putting a new furnace in this
    winter?"); a request ("write a poem about Lisbon") is not."""
    return question.rstrip().endswith("?") or _ASKS.match(question) is not None


def period_end(question: str, now: dt.datetime | None) -> dt.datetime | None:
    """The end of the past period a question names ("in mid-April", "back around Feb 10", "in 2023"), when it
    ends before ``now`` and the question does not ask when: what held then is the answer. None otherwise."""
    from .timeparse import parse_time_filter

    ref = now or dt.datetime.now(dt.timezone.utc)
    if re.match(r"\s*(?:when|how long)\b", question, re.IGNORECASE):
        return None
    tf = parse_time_filter(question, ref)
    if tf is None or tf.end is None or tf.end >= ref:
        return None
    return tf.end - dt.timedelta(microseconds=1)


def _empty(result: Any) -> bool:
    """Whether a slot or history answer holds nothing."""
    return getattr(result, "value", None) is None and not getattr(result, "versions", None)


def _join(a: str | None, b: str) -> str:
    return f"{a}; {b}" if a else b


def _from_evidence(
    graph: Answering,
    out: AskResult,
    question: str,
    at: dt.datetime | None,
    now: dt.datetime | None,
    user: str | None,
    why_empty: str,
) -> AskResult:
    """When the routed operation found nothing: recall's answer, if it answers confidently, with a note saying
    so; else the empty answer (with the memory its slot's own question found, when one did: ``evidence``) and
    a note saying which."""
    found = graph.recall(question, at=at, now=now, user=user)
    if getattr(found, "abstained", True):
        evidence = getattr(out.result, "evidence", None)
        if evidence:  # the slot's own question found a memory that says it in words
            out.note = _join(out.note, f"{why_empty}; memory '{evidence[0]['id']}' may say it in words (evidence)")
        else:
            out.note = _join(out.note, f"{why_empty}, and recall finds no confident answer either")
        return out
    out.note = _join(out.note, f"{why_empty}; answered from the best evidence recall finds")
    out.operation, out.result = "recall", found
    return out

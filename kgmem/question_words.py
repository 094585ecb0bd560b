"""The words of a question that say what it asks, with no model behind them (no scikit-learn, no embedder):
what the router's surface features count, and what recall reads cheaply before it asks the router
(:func:`names_a_cause`). One source for those word lists."""

from __future__ import annotations

import re
from collections.abc import Iterable

CAUSAL = (
    "why",
    "cause",
    "caused",
    "causes",
    "causing",
    "because",
    "led to",
    "lead to",
    "leads to",
    "reason",
    "reasons",
    "reasoning",
    "how come",
    "root cause",
    "went wrong",
    "go wrong",
    "due to",
    "triggered",
    "trigger",
    "motivation",
    "prompted",
    "behind",
    "explanation",
    "contributed",
    "responsible for",
    "made us",
    "brought down",
    "drove",
    "made the",
)

_TOKEN_RE = re.compile(r"[a-z0-9]+(?:['][a-z]+)?")


def normalise(question: str) -> str:
    return question.replace("\u2019", "'").replace("\u2018", "'").strip()


def tokenize(question: str) -> list[str]:
    """Lowercased word tokens, apostrophes kept inside words ("what's", "i'm")."""
    return _TOKEN_RE.findall(normalise(question).lower())


def count(padded: str, tokens: frozenset[str], cues: Iterable[str]) -> int:
    """How many of ``cues`` the question holds: a phrase inside the space-padded token string ``padded``, a word
    among ``tokens``."""
    n = 0
    for cue in cues:
        if " " in cue:
            n += padded.count(f" {cue} ")
        elif cue in tokens:
            n += 1
    return n


def names_a_cause(question: str) -> bool:
    """Whether the question uses a word of cause ("why", "how come", "what caused", "the reason", "due to": the
    router's causal cues), the cheap test before the router is asked whether it is a why-question."""
    tokens = tokenize(question)
    return count(" " + " ".join(tokens) + " ", frozenset(tokens), CAUSAL) > 0

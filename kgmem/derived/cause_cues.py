"""What a plain-text memory says about causes, and what a pair of memories says about one causing the other —
pure functions over text, time and vectors; no model and no database.

A note that explains an event usually says so in words: a cause clause ("because …", "due to …", "thanks to
…", "after …"), or the language of an explanation ("root cause", "turned out", "traced it to", "postmortem",
"that's why", "led to"). A note that does not explain it says that too: a guess ("maybe the cache?", "might
be", "not confirmed"), an action item ("need to", "ordered a new one"). :func:`text_cues` reads those signals
of one text; :func:`pair_features` turns the signals of an (effect, cause) pair — how alike the two are, which
came first and how far apart, whether the cause's words name the effect before their cause clause, whether the
effect states its own cause — into the features of the cause model (:mod:`kgmem.derived.causal`). The word
lists are general English written for kgmem, not taken from any evaluation set; the model that weighs them is
fitted by ``scripts/fit_causes.py`` with cross-validation by case.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_SCAN = 4000  # characters of a text the cue patterns read (a cue beyond that is not worth a slow scan)


def _words(*alternatives: str) -> re.Pattern[str]:
    """Any of ``alternatives`` as whole words, not inside a hyphenated compound ("after-hours", "well-due")."""
    return re.compile(r"(?<![\w'])(?<!\w-)(?:" + "|".join(alternatives) + r")(?![\w'])(?!-\w)", re.IGNORECASE)


# a cause stated outright: what follows is the reason
CAUSE_CLAUSE = _words(
    r"because(?: of)?",
    r"due to",
    r"caused by",
    r"as a result of",
    r"owing to",
    r"triggered by",
    r"thanks to",
    r"resulting from",
    r"stemming from",
    r"on account of",
    r"down to",
    r"blamed? (?:it )?on",
    r"since",
    r"after",
    r"following",
)
# the language of an explanation: the note says what a cause was
EXPLANATION = _words(
    r"root cause",
    r"turn(?:ed|s) out",
    r"traced (?:it |this |that |the \w+ )?(?:back )?to",
    r"tracked (?:it )?down to",
    r"culprit",
    r"post-?mortem",
    r"mystery solved",
    r"the reason",
    r"reason (?:was|is|being)",
    r"(?:was|were|is|are) caused",
    r"caused",
    r"causing",
    r"that'?s why",
    r"which is why",
    r"this is why",
    r"explains",
    r"the (?:problem|issue|fault|trouble) (?:was|is)",
    r"all along",
    r"figured out",
    r"found (?:the|out)",
    r"diagnos(?:is|ed)",
    r"the cause",
    r"led to",
    r"leads to",
    r"resulted in",
    r"which meant",
    r"reckons",
    r"puts? (?:it )?down to",
    r"blame",
    r"because",
    r"due to",
)
# a guess, a doubt or an open question: not a stated cause
HEDGE = _words(
    r"maybe",
    r"might",
    r"may be",
    r"could be",
    r"perhaps",
    r"possibly",
    r"probably",
    r"not sure",
    r"unsure",
    r"not confirmed",
    r"unconfirmed",
    r"no idea",
    r"wonder(?:ing)?",
    r"guess",
    r"suspect",
    r"thinks? it",
    r"theory",
    r"hypothes[ie]s",
    r"if it'?s",
    r"or (?:maybe|is it)",
    r"who knows",
    r"dunno",
    r"can'?t tell",
    r"unclear",
    r"mystery",
    r"(?:cause|reason)s? (?:(?:is|are|was|were|still|as yet) )*(?:unknown|unclear|tbd)",
    r"unknown (?:cause|reason)",
)
# something to do next: not a cause of what happened
ACTION = _words(
    r"todo",
    r"to-do",
    r"need to",
    r"needs to",
    r"should",
    r"will",
    r"going to",
    r"gonna",
    r"plan(?:ning)? to",
    r"ordered",
    r"booked",
    r"bought",
    r"scheduled",
    r"reminder",
    r"remember to",
    r"action item",
    r"follow[- ]up",
    r"next step",
    r"let'?s",
    r"pls",
    r"please",
)
_QUESTION = re.compile(r"\?(?:\s|$)")
_SPLIT = re.compile(r":|\s[-\u2013\u2014]+\s|;")
# a dash between words: "-", "–", "—" or the "--" that plain text writes for one
_DASH_SELF = re.compile(r"\w\s+(?:-{1,2}|[\u2013\u2014])\s+(?:it'?s|the|our|they|she|he|we)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z0-9']+")
_STOPWORDS = frozenset(
    "the a an and or of to in on at for with from by is was were are be been it its this that these those i we you "
    "he she they my our your their me us them as so but not no yes do did does have has had just".split()
)
_NAME = re.compile(r"(?<![\w'])(?:[A-Z][\w'\-]*[A-Za-z0-9]|[A-Z]{2,}|\w*\d\w*)(?![\w'])")


@dataclass(frozen=True)
class TextCues:
    """The cause signals of one text."""

    clause: bool  # states a cause clause ("because …", "due to …")
    explanation: int  # how many explanation phrases it uses
    hedge: int  # guesses and open questions
    action: int  # action items
    words: frozenset[str]  # its content words
    names: frozenset[str]  # capitalised words, acronyms and codes (who and what it names)
    before: str  # the words before its first cause marker (what it explains), or ""
    after: str  # the words after it (the cause), or ""
    dash_self: bool  # "X happened - it's Y": an event told with its reason after a dash


@lru_cache(maxsize=65536)
def text_cues(text: str) -> TextCues:
    """The cause signals of ``text`` (its first :data:`MAX_SCAN` characters)."""
    t = text[:MAX_SCAN]
    marks = [m for m in (CAUSE_CLAUSE.search(t), EXPLANATION.search(t)) if m]
    before = after = ""
    if marks:
        first = min(marks, key=lambda m: m.start())
        before, after = t[: first.start()].strip(), t[first.end() :].strip()
        if len(before.split()) < 3:  # "Postmortem for Tuesday's outage: the session store …"
            cut = _SPLIT.search(t, first.end())
            if cut:
                before, after = t[: cut.start()].strip(), t[cut.end() :].strip()
    lower = t.lower()
    return TextCues(
        clause=bool(CAUSE_CLAUSE.search(t)),
        explanation=len(EXPLANATION.findall(t)),
        hedge=len(HEDGE.findall(t)) + len(_QUESTION.findall(t)),
        action=len(ACTION.findall(t)),
        words=frozenset(w for w in _WORD.findall(lower) if w not in _STOPWORDS and len(w) > 2),
        names=frozenset(n.casefold() for n in _NAME.findall(t)),
        before=before,
        after=after,
        dash_self=bool(_DASH_SELF.search(t)),
    )


def fragments(text: str) -> tuple[str, ...]:
    """The parts of ``text`` whose vectors :func:`pair_features` reads (what it explains, and its cause), so
    a caller can embed them once."""
    c = text_cues(text)
    return tuple(f for f in (c.before, c.after) if f)


@dataclass(frozen=True)
class Side:
    """One memory of an (effect, cause) pair: what the features read."""

    id: str
    text: str
    at: dt.datetime
    vector: Any  # its unit-length embedding (a numpy array)
    user: str | None = None


FEATURES = (
    "self",
    "cosine",
    "clause",
    "explanation",
    "hedge",
    "action",
    "cause_later",
    "cause_earlier",
    "log_gap_hours",
    "cause_within_day_before",
    "cause_within_two_days_after",
    "name_overlap",
    "word_overlap",
    "before_cosine",
    "after_cosine",
    "self_marked",
    "self_hedged",
    "effect_explains",
    "marked_x_cosine",
    "marked_x_before",
    "hedge_x_cosine",
    "unmarked_later",
    "marked_later_x_cosine",
    "earlier_unmarked_x_cosine",
    "dash_self",
    "effect_clause_cosine",
    "effect_clause_x_earlier",
)


def _cos(a: Any, b: Any) -> float:
    return float(a @ b)


def pair_features(effect: Side, cause: Side, vector_of: Callable[[str], Any] | Mapping[str, Any]) -> dict[str, float]:
    """The features of "``cause`` states why ``effect`` happened" (pure but for ``vector_of``, which gives the
    unit vector of a text fragment of :func:`fragments`). ``effect`` and ``cause`` may be the same memory: a
    note that states its own cause ("the flight was delayed thanks to a bird strike")."""
    get = vector_of.__getitem__ if isinstance(vector_of, Mapping) else vector_of
    same = effect.id == cause.id
    ce, cc = text_cues(effect.text), text_cues(cause.text)
    gap = (cause.at - effect.at).total_seconds() / 3600.0
    cosine = 0.0 if same else _cos(effect.vector, cause.vector)
    before = _cos(get(cc.before), effect.vector) if cc.before and not same else 0.0
    after = _cos(get(cc.after), effect.vector) if cc.after and not same else 0.0
    effect_clause = _cos(get(ce.after), cause.vector) if ce.clause and ce.after and not same else 0.0
    union = ce.names | cc.names
    marked = 1.0 if cc.clause or cc.explanation else 0.0
    later = 1.0 if gap > 0 else 0.0
    earlier = 1.0 if gap < 0 else 0.0
    return {
        "self": 1.0 if same else 0.0,
        "cosine": cosine,
        "clause": 1.0 if cc.clause else 0.0,
        "explanation": min(cc.explanation, 3) / 3,
        "hedge": min(cc.hedge, 2) / 2,
        "action": min(cc.action, 2) / 2,
        "cause_later": later,
        "cause_earlier": earlier,
        "log_gap_hours": math.log1p(abs(gap)) / 10,
        "cause_within_day_before": 1.0 if 0 < -gap <= 24 else 0.0,
        "cause_within_two_days_after": 1.0 if 0 < gap <= 48 else 0.0,
        "name_overlap": len(ce.names & cc.names) / len(union) if union and not same else 0.0,
        "word_overlap": len(ce.words & cc.words) / max(1, len(ce.words)) if not same else 0.0,
        "before_cosine": before,
        "after_cosine": after,
        "self_marked": 1.0 if same and marked else 0.0,
        "self_hedged": 1.0 if same and cc.hedge else 0.0,
        "effect_explains": min(ce.explanation, 3) / 3 if not same else 0.0,
        "marked_x_cosine": marked * cosine,
        "marked_x_before": marked * before,
        "hedge_x_cosine": (1.0 if cc.hedge else 0.0) * cosine,
        "unmarked_later": (1.0 - marked) * later,
        "marked_later_x_cosine": marked * later * cosine,
        "earlier_unmarked_x_cosine": earlier * cosine * (1.0 - marked),
        "dash_self": 1.0 if same and cc.dash_self else 0.0,
        # the effect says its cause in words ("… because the disk filled up") and the other memory is that cause
        "effect_clause_cosine": effect_clause,
        "effect_clause_x_earlier": effect_clause * earlier,
    }
